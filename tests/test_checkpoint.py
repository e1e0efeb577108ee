"""Checkpoint and resume: a killed or interrupted run continues to the same numbers.

The checkpoint holds the merged statistics of blocks 0..k-1 and k; resuming
deals block k from the same seeds and merges onto them, so the final numbers
are bit-identical to an uninterrupted run's (compared exactly, not within a
tolerance). A checkpoint of another run, or a damaged file, is a clear error,
and such a file is never overwritten.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from waiting import LOADED_WAIT_S, wait_until, why_not  # tests/waiting.py

import simcore
import strategies
from simcore import compare, simulate
from simcore.cli import main
from simcore.engine import checkpoint as ckpt
from simcore.engine.checkpoint import CheckpointError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CALLS = {"n": 0, "stop_at": None}


def stops_once(obs, rng):
    """Pass the lowest card; raise KeyboardInterrupt (a Ctrl-C) on call number CALLS['stop_at']."""
    CALLS["n"] += 1
    if CALLS["stop_at"] is not None and CALLS["n"] == CALLS["stop_at"]:
        raise KeyboardInterrupt
    return np.argmin(obs["hand"], axis=1).astype(np.int64)


@pytest.fixture(autouse=True)
def registered():
    strategies.register("estonian", "pass", "test-ckpt-stops-once", "Ctrl-C once, on a chosen call")(stops_once)
    CALLS.update(n=0, stop_at=None)
    yield
    strategies.unregister("estonian", "pass", "test-ckpt-stops-once")


def _same(a, b):
    assert a.n == b.n
    for name, x in vars(a).items():
        if isinstance(x, np.ndarray):
            np.testing.assert_array_equal(x, getattr(b, name), err_msg=name)


def _seats(d: dict) -> list:
    return d["seats"]


def test_kill_9_mid_run_then_resume_gives_the_uninterrupted_numbers(tmp_path):
    path = tmp_path / "run.ckpt"
    n, bs = 400_000, 1024
    args = ["simulate", "slovak", "--players", "4", "--deals", str(n), "--block-size", str(bs), "--seed", "7",
            "--format", "json", "--no-progress"]
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "simcore.cli", *args, "--workers", "1", "--executor", "threads",
                             "--checkpoint", str(path), "--checkpoint-every", "0.05"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=ROOT)
    try:
        written = wait_until(path.exists, proc, poll=0.01)  # ends at the first checkpoint
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        _, err = proc.communicate()
    assert proc.returncode == -signal.SIGKILL, err.decode()
    assert written, f"no checkpoint in {LOADED_WAIT_S} s"
    saved = ckpt.read(path)
    assert 0 < saved["next_block"] < n // bs and not saved["finished"]  # killed mid-run

    out = subprocess.run([sys.executable, "-m", "simcore.cli", *args, "--workers", "2", "--resume", str(path)],
                         capture_output=True, text=True, env=env, cwd=ROOT, timeout=LOADED_WAIT_S)
    assert out.returncode == 0, out.stderr
    resumed = json.loads(out.stdout)
    whole = simulate("slovak", 4, n, seed=7, block_size=bs, progress=False).to_dict()
    assert resumed["deals"] == whole["deals"] == n
    assert _seats(resumed) == _seats(whole)  # exact: JSON floats round-trip
    assert ckpt.read(path)["finished"]


def test_ctrl_c_saves_a_checkpoint_and_resume_finishes_identically(tmp_path):
    path = tmp_path / "run.ckpt"
    kw = dict(hero="pass=test-ckpt-stops-once", block_size=256, seed=4, progress=False, workers=1)
    CALLS.update(n=0, stop_at=5)
    cut = simulate("estonian", 3, 20 * 256, checkpoint=path, **kw)
    assert cut.info.interrupted and cut.n_deals == 4 * 256
    CALLS.update(stop_at=None)
    resumed = simulate("estonian", 3, 20 * 256, resume=path, **kw)
    assert resumed.info.resumed_deals == 4 * 256 and resumed.n_deals == 20 * 256
    _same(resumed.stats, simulate("estonian", 3, 20 * 256, **kw).stats)
    again = simulate("estonian", 3, 20 * 256, resume=path, executor="processes", **kw)  # finished: nothing to run
    _same(resumed.stats, again.stats)


def test_paired_runs_resume_too(tmp_path):
    path = tmp_path / "cmp.ckpt"
    kw = dict(a="pass=test-ckpt-stops-once", b="pass=highest", block_size=256, seed=2, progress=False, workers=1)
    CALLS.update(n=0, stop_at=7)
    assert compare("estonian", 3, 12 * 256, checkpoint=path, **kw).info.interrupted
    CALLS.update(stop_at=None)
    resumed = compare("estonian", 3, 12 * 256, resume=path, **kw)
    _same(resumed.stats, compare("estonian", 3, 12 * 256, **kw).stats)


@pytest.mark.parametrize("change,named", [
    ({"seed": 2}, "seed: 1 in the checkpoint, 2 here"),
    ({"variant": "holdem"}, 'variant: "estonian" in the checkpoint, "holdem" here'),
    ({"block_size": 512}, "block size: 256 in the checkpoint, 512 here"),
    ({"hero": "pass=highest"}, "strategies:"),
    ({"n_deals": 9 * 256}, "deals: 2048 in the checkpoint, 2304 here"),
])
def test_a_checkpoint_of_another_run_is_refused_naming_the_difference(tmp_path, change, named):
    path = tmp_path / "run.ckpt"
    base = dict(variant="estonian", n_players=3, n_deals=8 * 256, seed=1, block_size=256, progress=False)
    simulate(**{**base, "checkpoint": path})
    before = path.read_bytes()
    with pytest.raises(CheckpointError, match=f"is of another run; .*{named}".replace("(", r"\(")):
        simulate(**{**base, **change, "resume": path})
    assert path.read_bytes() == before


def test_another_pvsim_version_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "run.ckpt"
    simulate("holdem", 2, 1000, block_size=256, checkpoint=path, progress=False)
    monkeypatch.setattr(simcore, "__version__", "99.0")
    with pytest.raises(CheckpointError, match='pvsim version: ".*" in the checkpoint, "99.0" here'):
        simulate("holdem", 2, 1000, block_size=256, resume=path, progress=False)


def test_damaged_files_are_clear_errors_and_never_overwritten(tmp_path):
    path = tmp_path / "run.ckpt"
    kw = dict(block_size=256, progress=False)
    simulate("holdem", 2, 2000, checkpoint=path, **kw)
    good = path.read_bytes()
    damaged = {
        "truncated": good[:-10],
        "flipped": good[:-5] + bytes([good[-5] ^ 1]) + good[-4:],
        "garbage": b"not a checkpoint at all",
        "header cut": good[:30],
    }
    messages = {"truncated": "truncated or corrupted", "flipped": "truncated or corrupted",
                "garbage": "is not a pvsim checkpoint", "header cut": "truncated or corrupted"}
    for what, data in damaged.items():
        path.write_bytes(data)
        with pytest.raises(CheckpointError, match=messages[what]):
            simulate("holdem", 2, 2000, resume=path, **kw)
        with pytest.raises(CheckpointError, match=f"{messages[what]}.*not overwriting it"):
            simulate("holdem", 2, 2000, checkpoint=path, **kw)
        assert path.read_bytes() == data, what


def test_a_new_run_never_overwrites_an_existing_checkpoint(tmp_path):
    path = tmp_path / "run.ckpt"
    simulate("holdem", 2, 2000, checkpoint=path, block_size=256, progress=False)
    before = path.read_bytes()
    with pytest.raises(CheckpointError, match="already holds a checkpoint of this run.*--resume"):
        simulate("holdem", 2, 2000, checkpoint=path, block_size=256, progress=False)
    with pytest.raises(CheckpointError, match=r"another run \(seed: 0 in the checkpoint, 5 here\); not overwriting"):
        simulate("holdem", 2, 2000, seed=5, checkpoint=path, block_size=256, progress=False)
    assert path.read_bytes() == before


def test_resuming_onto_the_same_file_by_another_name_is_no_clash(tmp_path):
    """--resume F --checkpoint G, where G is F through a link or a spelling with '..', continues F."""
    path = tmp_path / "run.ckpt"
    (tmp_path / "sub").mkdir()
    (tmp_path / "link.ckpt").symlink_to(path)
    kw = dict(block_size=256, progress=False)
    whole = simulate("holdem", 2, 2000, checkpoint=path, **kw)
    for other in (tmp_path / "link.ckpt", f"{tmp_path}/sub/../run.ckpt"):
        again = simulate("holdem", 2, 2000, resume=path, checkpoint=other, **kw)
        assert again.info.resumed_deals == 2000
        _same(again.stats, whole.stats)
    assert (tmp_path / "link.ckpt").is_symlink()  # still a link: the file it names was saved, not the link
    assert sorted(os.listdir(tmp_path)) == ["link.ckpt", "run.ckpt", "sub"]  # and no temporary file is left


def test_a_save_through_a_link_replaces_the_file_and_keeps_the_link(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "run.ckpt").write_bytes(b"old")
    (tmp_path / "link.ckpt").symlink_to(tmp_path / "real" / "run.ckpt")
    ckpt.write_atomic(tmp_path / "link.ckpt", [b"new ", b"bytes"])
    assert (tmp_path / "link.ckpt").is_symlink() and (tmp_path / "link.ckpt").read_bytes() == b"new bytes"
    assert os.listdir(tmp_path / "real") == ["run.ckpt"]


def test_an_atomic_save_keeps_the_old_permissions_and_gives_a_new_file_the_umasks(tmp_path):
    old = tmp_path / "shared.npz"
    old.write_bytes(b"old")
    old.chmod(0o640)
    ckpt.write_atomic(old, [b"new"])
    assert old.read_bytes() == b"new" and (old.stat().st_mode & 0o777) == 0o640
    mask = os.umask(0o022)
    try:
        ckpt.write_atomic(tmp_path / "fresh.npz", [b"x"])
    finally:
        os.umask(mask)
    assert ((tmp_path / "fresh.npz").stat().st_mode & 0o777) == 0o644  # as open(path, "wb") would make it
    assert sorted(os.listdir(tmp_path)) == ["fresh.npz", "shared.npz"]


def test_cli_reports_a_mismatch_in_one_line(tmp_path, capsys):
    path = tmp_path / "run.ckpt"
    assert main(["simulate", "holdem", "--deals", "1000", "--no-progress", "--checkpoint", str(path)]) == 0
    capsys.readouterr()
    assert main(["simulate", "holdem", "--deals", "1000", "--seed", "3", "--no-progress", "--resume", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "seed: 0 in the checkpoint, 3 here" in err


def test_checkpoints_are_written_atomically(tmp_path, disk_full):
    """A failure mid-write leaves the previous checkpoint whole and no temporary file."""
    path = tmp_path / "run.ckpt"
    simulate("holdem", 2, 1000, checkpoint=path, block_size=256, progress=False)
    before = path.read_bytes()
    with disk_full(), pytest.raises(OSError, match="disk full"):
        ckpt.write(path, {"kind": "x"}, None, 1, 1, False)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["run.ckpt"]


# -- issue 22: paths that are not checkpoints, one run a file, checked progress, clear messages --------


def _cli(args, timeout=120, memory=2 << 30):
    """The CLI in a child process whose memory is capped (a run that reads a device fails, not the machine)."""
    import resource

    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "simcore.cli", *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=timeout, preexec_fn=cap)


RUN = ["simulate", "holdem", "--deals", "2000", "--block-size", "256", "--no-progress"]


@pytest.mark.parametrize("flag,path,named", [
    ("--checkpoint", "/dev/full", "is a character device"),
    ("--resume", "/dev/zero", "is a character device"),
    ("--resume", "{tmp}", "is a folder"),
    ("--checkpoint", "", "is empty"),
    ("--resume", "", "is empty"),
    ("--resume", "{tmp}/fifo", "is a pipe"),
])
def test_a_path_that_is_not_a_regular_file_is_one_line_before_the_run(tmp_path, flag, path, named):
    """Checkpoints are regular files, sized before they are read: /dev/zero was read until the
    kernel killed pvsim (24 GB), a folder gave [Errno 21], '' failed after the run."""
    os.mkfifo(tmp_path / "fifo")
    path = path.format(tmp=tmp_path)
    t = time.monotonic()
    out = _cli([*RUN, flag, path])
    assert out.returncode == 2, out.stderr
    err = out.stderr.strip()
    assert err.count("\n") == 0 and named in err and repr(path) in err, err
    assert out.stdout == "" and time.monotonic() - t < 60
    assert sorted(os.listdir(tmp_path)) == ["fifo"]  # no lock or temporary file left beside anything


@pytest.fixture
def within_60_s():
    """Fail, rather than hang, where opening a pipe would wait for a writer forever."""
    def late(signum, frame):
        raise TimeoutError("still running after 60 s (waiting on a pipe?)")

    old = signal.signal(signal.SIGALRM, late)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


@pytest.mark.parametrize("arg,path", [("checkpoint", ""), ("resume", ""), ("resume", "{tmp}"),
                                      ("resume", "{tmp}/fifo"), ("checkpoint", "{tmp}/fifo")])
def test_the_api_refuses_such_paths_before_any_deal(tmp_path, arg, path, within_60_s):
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(CheckpointError, match=r"is empty|is a folder|is a pipe") as e:
        simulate("estonian", 3, 1024, hero="pass=test-ckpt-stops-once", block_size=256, progress=False,
                 **{arg: path.format(tmp=tmp_path)})
    assert repr(path.format(tmp=tmp_path)) in str(e.value)
    assert CALLS["n"] == 0  # refused before the run: the strategy never played


def test_a_file_over_the_size_limit_is_refused_unread(tmp_path, monkeypatch):
    path = tmp_path / "big.ckpt"
    simulate("holdem", 2, 1000, block_size=256, checkpoint=path, progress=False)
    monkeypatch.setattr(ckpt, "MAX_BYTES", path.stat().st_size - 1)

    def no_reading(*a, **k):
        raise AssertionError("read before its size was checked")

    monkeypatch.setattr(ckpt, "read_bytes", no_reading)
    with pytest.raises(CheckpointError, match=f"{str(path)!r} is [0-9,]+ bytes; a pvsim checkpoint is at most"):
        simulate("holdem", 2, 1000, block_size=256, resume=path, progress=False)


def test_a_second_run_on_the_same_new_file_is_refused_at_once(tmp_path):
    """The first run has not saved yet (saves every 1000 s): the file does not exist, but it is claimed.
    kill -9 of the first run frees the claim (an flock dies with its process): no stale lock."""
    path = tmp_path / "run.ckpt"
    lock = str(path) + ".pvsim-lock"
    slow = ["simulate", "estonian", "--players", "6", "--deals", "100000000", "--block-size", "1024",
            "--no-progress", "--workers", "1", "--executor", "threads", "--checkpoint-every", "1000"]
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    first = subprocess.Popen([sys.executable, "-m", "simcore.cli", *slow, "--checkpoint", str(path)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=ROOT)
    try:
        assert wait_until(lambda: os.path.exists(lock), first), why_not(first, "lock")
        assert first.poll() is None, first.stderr.read().decode()  # it holds the lock while it runs
        t = time.monotonic()
        second = _cli([*slow, "--checkpoint", str(path)])
        assert second.returncode == 2, second.stderr
        err = second.stderr.strip()
        assert err.count("\n") == 0 and f"{str(path)!r} is in use by another run (process {first.pid})" in err
        assert time.monotonic() - t < 60 and not path.exists()
        with pytest.raises(CheckpointError, match="in use by another run"):  # the API too, and --resume
            simulate("holdem", 2, 1000, block_size=256, resume=path, progress=False)
    finally:
        first.kill()
        first.communicate()
    assert first.returncode == -signal.SIGKILL
    # The killed run's lock file is left behind, unlocked: the next run takes it over and removes it.
    assert os.path.exists(lock)
    simulate("holdem", 2, 1000, block_size=256, checkpoint=path, progress=False)
    assert os.listdir(tmp_path) == ["run.ckpt"]


def test_a_claim_lasts_the_run_and_ends_with_it_even_on_an_error(tmp_path):
    path = tmp_path / "run.ckpt"
    header = {"kind": "test"}
    with ckpt.Checkpoint(header, path):
        with pytest.raises(CheckpointError, match=f"{str(path)!r} is in use by another run in this process"):
            ckpt.Checkpoint(header, path)
        # another spelling of the same file is the same claim
        with pytest.raises(CheckpointError, match="in use by another run"):
            ckpt.Checkpoint(header, os.path.join(str(tmp_path), ".", "run.ckpt"))
    assert os.listdir(tmp_path) == []
    with ckpt.Checkpoint(header, path):
        pass
    # A strategy's error ends the run: the claim ends too, and the saved prefix resumes.
    CALLS.update(n=0, stop_at=None)

    def fails_on_call_3(obs, rng):
        CALLS["n"] += 1
        if CALLS["n"] == 3:
            raise RuntimeError("strategy bug")
        return np.argmin(obs["hand"], axis=1).astype(np.int64)

    strategies.register("estonian", "pass", "test-ckpt-fails", "fails on call 3")(fails_on_call_3)
    try:
        kw = dict(block_size=256, seed=4, progress=False, workers=1)
        with pytest.raises(Exception, match="strategy bug"):
            simulate("estonian", 3, 8 * 256, hero="pass=test-ckpt-fails", checkpoint=path, **kw)
        assert os.listdir(tmp_path) == ["run.ckpt"]
        resumed = simulate("estonian", 3, 8 * 256, hero="pass=test-ckpt-fails", resume=path, **kw)
        assert resumed.info.resumed_deals == 2 * 256 and resumed.n_deals == 8 * 256
    finally:
        strategies.unregister("estonian", "pass", "test-ckpt-fails")
    assert os.listdir(tmp_path) == ["run.ckpt"]


@pytest.mark.parametrize("edit", [
    (b'"next_block": 4', b'"next_block": 2'),
    (b'"finished": false', b'"finished": true '),
    (b'"deals": 1024,', b'"deals": 2048,'),
    (b'"deals": 2048,', b'"deals": 4096,'),  # the header's
])
def test_every_byte_that_decides_a_resume_is_checksummed(tmp_path, edit):
    """Editing "next_block" resumed with rc 0, "interrupted": false and other numbers than the
    uninterrupted run's. Now any edit is refused, naming the file."""
    path = tmp_path / "run.ckpt"
    kw = dict(hero="pass=test-ckpt-stops-once", block_size=256, seed=4, progress=False, workers=1)
    CALLS.update(n=0, stop_at=5)
    assert simulate("estonian", 3, 8 * 256, checkpoint=path, **kw).n_deals == 4 * 256
    good = path.read_bytes()
    old, new = edit
    assert good.count(old) == 1
    path.write_bytes(good.replace(old, new))
    CALLS.update(stop_at=None)
    with pytest.raises(CheckpointError, match=f"checkpoint {str(path)!r} is truncated or corrupted: its checksum"):
        simulate("estonian", 3, 8 * 256, resume=path, **kw)
    out = _cli(["simulate", "estonian", "--players", "3", "--deals", str(8 * 256), "--block-size", "256",
                "--seed", "4", "--no-progress", "--resume", str(path), "--hero", "pass=lowest"])
    assert out.returncode == 2 and "checksum does not match" in out.stderr and str(path) in out.stderr
    path.write_bytes(good)
    assert simulate("estonian", 3, 8 * 256, resume=path, **kw).info.resumed_deals == 4 * 256


def test_a_checkpoint_of_the_old_unchecked_format_is_refused_by_name(tmp_path):
    path = tmp_path / "old.ckpt"
    path.write_bytes(b'PVSIM-CHECKPOINT 1\n{"kind": "simulate"}\n{"next_block": 3}\n')
    with pytest.raises(CheckpointError, match=r"'.*old.ckpt' is of an older format \(PVSIM-CHECKPOINT 1\)"):
        ckpt.read(path)


def test_a_run_checkpoint_and_a_solve_checkpoint_share_one_frame_and_refuse_each_other(tmp_path):
    """Both are written by ``frame`` and checked by ``unframe``: each reader names the other's
    file as not its own, and a byte changed anywhere in the body is the same checksum error."""
    from simcore.solve import CHECKPOINT_FORMAT, load_checkpoint

    run = tmp_path / "run.ckpt"
    ckpt.write(run, {"kind": "simulate"}, {"n": 1}, next_block=1, deals=256, finished=False)
    solve_file = tmp_path / "solve.ckpt"
    ckpt.write_atomic(solve_file, ckpt.frame(CHECKPOINT_FORMAT + b"\n", b"an .npz would be here"))
    assert ckpt.unframe(solve_file.read_bytes(), CHECKPOINT_FORMAT + b"\n", solve_file) == b"an .npz would be here"
    with pytest.raises(CheckpointError, match=r"'.*run.ckpt' is not a pvsim solve checkpoint \(it does not start "
                                              r"with 'pvsim-solve-checkpoint 1'\)"):
        load_checkpoint(run)
    with pytest.raises(CheckpointError, match=r"'.*solve.ckpt' is not a pvsim checkpoint \(it does not start "
                                              r"with 'PVSIM-CHECKPOINT 2'\)"):
        ckpt.read(solve_file)
    raw = bytearray(solve_file.read_bytes())
    raw[-3] ^= 0x01
    solve_file.write_bytes(bytes(raw))
    with pytest.raises(CheckpointError, match=r"solve checkpoint '.*solve.ckpt' is truncated or corrupted: its "
                                              r"checksum does not match its contents \(21 bytes after"):
        load_checkpoint(solve_file)


@pytest.mark.parametrize("ckpt_flag,out_spelling", [
    ("--checkpoint", "{tmp}/run.ckpt"),
    ("--checkpoint", "{tmp}/./sub/../run.ckpt"),
    ("--checkpoint", "{tmp}/link/run.ckpt"),
    ("--resume", "{tmp}//run.ckpt"),
])
def test_out_and_checkpoint_on_one_file_are_refused_before_the_run(tmp_path, ckpt_flag, out_spelling, capsys):
    (tmp_path / "sub").mkdir()
    (tmp_path / "link").symlink_to(tmp_path)
    path = tmp_path / "run.ckpt"
    if ckpt_flag == "--resume":
        assert main([*RUN, "--checkpoint", str(path)]) == 0
    before = path.read_bytes() if path.exists() else None
    capsys.readouterr()
    assert main([*RUN, ckpt_flag, str(path), "--out", out_spelling.format(tmp=tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "are the same file" in err and f"{ckpt_flag} {str(path)!r}" in err
    assert (path.read_bytes() if path.exists() else None) == before
    assert sorted(os.listdir(tmp_path)) == sorted(["sub", "link"] + (["run.ckpt"] if before else []))


def test_out_beside_the_checkpoint_is_fine(tmp_path, capsys):
    path, out = tmp_path / "run.ckpt", tmp_path / "run.json"
    assert main([*RUN, "--checkpoint", str(path), "--out", str(out), "--format", "json"]) == 0
    assert ckpt.read(path)["finished"] and json.loads(out.read_text())["deals"] == 2000


def test_empty_out_is_refused(capsys):
    assert main([*RUN, "--out", ""]) == 2
    assert "--out is empty" in capsys.readouterr().err


def test_a_mismatch_names_the_first_differing_card(tmp_path):
    """Ten players' known cards are 25 slots: cut at 77 characters, both lists read the same, as
    integers. Now: the first differing slot, as cards."""
    path = tmp_path / "run.ckpt"
    kw = dict(n_deals=1000, block_size=256, progress=False, hand="As Ks")
    simulate("holdem", 10, board="2c 3d 4h", checkpoint=path, **kw)
    with pytest.raises(CheckpointError) as e:
        simulate("holdem", 10, board="2c 3d 5h", resume=path, **kw)
    msg = str(e.value)
    assert "known cards: slot 22 is 4h in the checkpoint, 5h here" in msg, msg
    assert "2c 3d 4h ?? ??, here" in msg and msg.endswith("2c 3d 5h ?? ??)") and "[51, 47" not in msg


def test_mismatch_messages_name_the_first_differing_item():
    saved = {"strategies": [["pass=lowest"] * 6], "known": [51, -1, 3], "seed": 1}
    here = {"strategies": [["pass=lowest"] * 5 + ["pass=highest"]], "known": [51, 7, 3], "seed": 1}
    assert ckpt.differences(saved, here) == [
        'strategies: seat 5: "pass=lowest" in the checkpoint, "pass=highest" here',
        "known cards: slot 1 is random in the checkpoint, 3s here (in the checkpoint As ?? 2s, here As 3s 2s)",
    ]
    fewer = {"strategies": [["pass=lowest"] * 5], "known": [51, -1], "seed": 2}
    assert ckpt.differences(saved, fewer) == [
        "seed: 1 in the checkpoint, 2 here", "strategies: 6 seats in the checkpoint, 5 here",
        "known cards: 3 slots in the checkpoint, 2 here (in the checkpoint As ?? 2s, here As ??)",
    ]


def test_a_file_in_the_way_of_the_lock_is_left_alone(tmp_path):
    path = tmp_path / "run.ckpt"
    other = tmp_path / "run.ckpt.pvsim-lock"
    other.write_text("someone's notes\n")
    with pytest.raises(CheckpointError, match="is not a pvsim lock"):
        ckpt.Checkpoint({"kind": "test"}, path)
    assert other.read_text() == "someone's notes\n" and not path.exists()


FOLDER = {"path": None, "at": None, "n": 0}


def loses_its_folder(obs, rng):
    """Pass the lowest card; on call number FOLDER['at'], take the checkpoint's folder away
    (renamed in one step: a save may be writing into it at that moment)."""
    FOLDER["n"] += 1
    if FOLDER["n"] == FOLDER["at"]:
        os.rename(FOLDER["path"], FOLDER["path"].with_name("moved"))
    return np.argmin(obs["hand"], axis=1).astype(np.int64)


@pytest.fixture
def folder_goes(tmp_path):
    strategies.register("estonian", "pass", "test-ckpt-folder-goes", "deletes the checkpoint folder")(loses_its_folder)
    FOLDER.update(path=tmp_path / "gone", at=10, n=0)  # three seats: call 10 is in block 3
    FOLDER["path"].mkdir()
    yield FOLDER["path"] / "run.ckpt"
    strategies.unregister("estonian", "pass", "test-ckpt-folder-goes")


def test_a_save_that_fails_mid_run_stops_it_and_keeps_the_merged_prefix(folder_goes):
    """The checkpoint's folder goes away during the run (a save after every block): the next save
    fails, and the run stops with a CheckpointError naming the file and the reason, carrying the
    merged prefix; its numbers are those of an uninterrupted run of that many deals (before: the
    OSError escaped from the middle of the run and everything was lost)."""
    kw = dict(field="pass=test-ckpt-folder-goes", block_size=256, progress=False, workers=1, executor="threads")
    with pytest.raises(CheckpointError, match=r"cannot save the checkpoint '.*gone/run\.ckpt' \(No such file") as e:
        simulate("estonian", 3, 100_000, checkpoint=folder_goes, checkpoint_every=1e-9, **kw)
    partial = e.value.partial_result
    assert partial is not None and 0 < partial.info.n_deals < 100_000 and partial.info.n_deals % 256 == 0
    # The saves before the folder went worked; the run stopped at the first one that failed.
    assert "the run stopped, keeping the deals it had finished" in str(e.value)
    assert partial.info.n_deals >= 2 * 256
    FOLDER.update(at=None)
    ref = simulate("estonian", 3, partial.info.n_deals, **kw)
    _same(ref.stats, partial.stats)


def test_the_cli_reports_a_failed_save_in_one_line_with_the_finished_deals(folder_goes, capsys):
    rc = main(["simulate", "estonian", "--players", "3", "--deals", "100000", "--block-size", "256",
               "--field", "pass=test-ckpt-folder-goes", "--workers", "1", "--executor", "threads",
               "--checkpoint", str(folder_goes), "--checkpoint-every", "1e-9", "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2
    assert "finished before the error (" in err and "strategy" in err  # the merged prefix's table
    assert err.strip().splitlines()[-1].startswith("pvsim simulate: error: cannot save the checkpoint")
    assert "Traceback" not in err
