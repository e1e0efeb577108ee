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
        deadline = time.monotonic() + 120
        while not path.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        _, err = proc.communicate()
    assert proc.returncode == -signal.SIGKILL, err.decode()
    saved = ckpt.read(path)
    assert 0 < saved["next_block"] < n // bs and not saved["finished"]  # killed mid-run

    out = subprocess.run([sys.executable, "-m", "simcore.cli", *args, "--workers", "2", "--resume", str(path)],
                         capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
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


def test_cli_reports_a_mismatch_in_one_line(tmp_path, capsys):
    path = tmp_path / "run.ckpt"
    assert main(["simulate", "holdem", "--deals", "1000", "--no-progress", "--checkpoint", str(path)]) == 0
    capsys.readouterr()
    assert main(["simulate", "holdem", "--deals", "1000", "--seed", "3", "--no-progress", "--resume", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "seed: 0 in the checkpoint, 3 here" in err


def test_checkpoints_are_written_atomically(tmp_path, monkeypatch):
    """A failure mid-write leaves the previous checkpoint whole and no temporary file."""
    path = tmp_path / "run.ckpt"
    simulate("holdem", 2, 1000, checkpoint=path, block_size=256, progress=False)
    before = path.read_bytes()

    def broken_fsync(fd):
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError, match="disk full"):
        ckpt.write(path, {"kind": "x"}, None, 1, 1, False)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["run.ckpt"]
