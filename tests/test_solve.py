"""Fictitious play (simcore.solve): it converges on a game small enough to enumerate, gives the
same table on threads and processes, resumes to the same table, keeps its table when interrupted,
and writes a table file that `table:FILE` plays.

Most checks use Draw Duel (tests/test_exploit_game.py; deck 7, 2 players, a bucket per
information set), whose exact values tests/solve_exact.py computes by enumerating its 5,040 deals.
Monte Carlo: fixed seeds; the sampled gains are compared with the exact ones with a tolerance of
4 standard errors; the convergence checks leave a margin over what seeds 1-3 give (stated at each).
"""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

from solve_exact import Enumeration
from test_exploit_game import DRAW, STAKE, DrawDuel, history_abstraction, register_duel, unregister_duel

SMALL = dict(deals_per_iteration=20_000, eval_deals=20_000, block_size=4096, options={"deck": 7})


@pytest.fixture(scope="module")
def duel():
    register_duel()
    yield
    unregister_duel()


@pytest.fixture(scope="module")
def exact(duel):
    abst = history_abstraction(7)
    return abst, Enumeration(DrawDuel(deck=7), abst)


def _empty(abst):
    return {d: np.zeros((abst[d].n_buckets, 2)) for d in abst}


def _init_action(abst, d):
    """The default policy's action in every bucket (exchange under 4, play from 4): what an empty row plays."""
    b = np.arange(abst[d].n_buckets)
    card = np.where(b >= 7, (b - 7) % 7, b) if d == DRAW else b % 7
    return ((card < 4) if d == DRAW else (card >= 4)).astype(np.int64)


def _whole(abst, r):
    """A solve result's tables with each row's start share put on the default policy's action: the
    duel's start (the default policy) plays one action per history bucket, so this is exact."""
    out = {}
    for d, t in r.tables.items():
        t = t.copy()
        s = r.starts.get(d)
        if s is not None:
            t[np.arange(len(t)), _init_action(abst, d)] += s
        out[d] = t
    return out


def _played(abst, tables, d):
    """(n_buckets, 2): the table's probabilities, the default policy's action where a row is empty."""
    t = tables[d].copy()
    empty = t.sum(axis=1) == 0
    t[empty, _init_action(abst, d)[empty]] = 1.0
    return t


def _exact_fp(abst, E, iterations):
    """Fictitious play with exact best responses (the same update), from the same start."""
    from simcore.solve import update

    avg, w = _empty(abst), {d: np.zeros(abst[d].n_buckets, np.int64) for d in abst}
    for _ in range(iterations):
        _, Q = E.best_response(avg)
        for d in abst:
            seen = ~np.isnan(Q[d][:, 0])
            br = np.where(seen & (Q[d][:, 1] != Q[d][:, 0]), np.argmax(np.nan_to_num(Q[d], nan=-1), axis=1), -1)
            b = np.arange(abst[d].n_buckets)
            init = _init_action(abst, d)
            choices = np.zeros((len(b), 2))
            choices[b, init] = 1
            update(avg[d], w[d], br, seen.astype(np.int64), choices)
    return avg


def test_fictitious_play_converges_to_the_enumerated_equilibrium(exact):
    from simcore.solve import solve

    abst, E = exact
    start = E.gain(_empty(abst))  # the default field (exchange under 4, play from 4): 0.097 points a deal
    r = solve("duel", 2, iterations=12, abstraction=abst, seed=1, executor="threads", workers=1, **SMALL)
    assert r.iterations == 12 and r.stopped == "iterations" and not r.interrupted
    log = r.log
    # The first iteration measures the start: its sampled gain is a lower bound within 4 SE of the exact one.
    assert abs(log[0]["gain"] - start) <= 4 * log[0]["stderr"], (log[0]["gain"], start)
    # Exploitability falls: the table kept is exactly at most a quarter as exploitable (seeds 1-3: 1/10.1 to 1/10.7),
    # and the last sampled gain is far below the first.
    final = E.gain(_whole(abst, r))
    assert final <= start / 4, (final, start)
    assert log[-1]["ci_high"] < log[0]["ci_low"] / 3
    # The last measurement is of the table kept: a lower bound on its exact gain (4 SE).
    assert r.table_measured
    assert log[-1]["gain"] <= final + 4 * log[-1]["stderr"]
    assert all(e["moved"] >= 0 for e in log) and log[1]["moved"] > log[-1]["moved"]
    # Every row is a distribution with its start share (or empty: the default policy plays it).
    assert r.starts and all(s.max() < 1 for s in r.starts.values())
    for d, t in _whole(abst, r).items():
        s = t.sum(axis=1)
        assert np.all((np.abs(s - 1) < 1e-9) | (s == 0)), d

    # The equilibrium by enumeration: exact fictitious play, 150 iterations (exact gain < 0.001).
    eq = _exact_fp(abst, E, 150)
    assert E.gain(eq) < 1e-3
    _, Q = E.best_response(eq)
    agree = total = 0
    for d in (DRAW, STAKE):
        gap = np.abs(Q[d][:, 1] - Q[d][:, 0])
        clear = ~np.isnan(gap) & (gap >= 0.05) & (_played(abst, eq, d).max(axis=1) > 0.99)
        agree += int((np.argmax(_played(abst, _whole(abst, r), d)[clear], 1)
                      == np.argmax(_played(abst, eq, d)[clear], 1)).sum())
        total += int(clear.sum())
    # where the equilibrium is pure and its action worth 0.05 a deal more, the sampled table mostly
    # plays it after 12 iterations (seeds 1-3: all of 156 buckets; an empty row plays the default policy)
    assert total >= 100 and agree >= 0.95 * total, (agree, total)


def test_the_same_seed_gives_the_same_table_on_threads_and_processes(duel):
    from simcore.solve import solve

    kw = dict(SMALL, iterations=3, abstraction=history_abstraction(7), seed=4)
    one = solve("duel", 2, executor="threads", workers=1, **kw)
    procs = solve("duel", 2, executor="processes", workers=2, **kw)
    for d in one.tables:
        assert np.array_equal(one.tables[d], procs.tables[d]), d
    strip = lambda log: [{k: v for k, v in e.items() if k != "seconds"} for e in log]  # noqa: E731
    assert strip(one.log) == strip(procs.log)
    other = solve("duel", 2, executor="threads", workers=1, **dict(kw, seed=5))
    assert any(not np.array_equal(one.tables[d], other.tables[d]) for d in one.tables)


def test_a_resumed_run_gives_the_table_of_an_uninterrupted_one(duel, tmp_path):
    from simcore.solve import load_checkpoint, solve

    kw = dict(SMALL, abstraction=history_abstraction(7), seed=6, executor="threads", workers=1)
    full = solve("duel", 2, iterations=4, **kw)
    strip = lambda log: [{k: v for k, v in e.items() if k != "seconds"} for e in log]  # noqa: E731
    # a run that finished its 2 iterations, then resumed to 4
    ck = tmp_path / "fp.ckpt"
    part = solve("duel", 2, iterations=2, checkpoint=ck, **kw)
    assert part.iterations == 2 and load_checkpoint(ck).iteration == 2 and part.table_measured
    # a run interrupted after iteration 1 (Ctrl-C), then resumed to 4
    ck2 = tmp_path / "fp2.ckpt"
    cut = solve("duel", 2, iterations=3, checkpoint=ck2, callback=_stop_after(1), **kw)
    assert cut.interrupted and cut.iterations == 2
    for path in (ck, ck2):
        done = solve("duel", 2, iterations=4, resume=path, **kw)
        assert done.iterations == 4 and done.stopped == "iterations"
        for d in full.tables:
            assert np.array_equal(full.tables[d], done.tables[d]), (path, d)
        assert strip(full.log) == strip(done.log)
        assert load_checkpoint(path).iteration == 4  # a resumed run goes on saving to the file it resumed
    # and from there a further resume goes on as the uninterrupted run would
    five = solve("duel", 2, iterations=5, resume=ck, **kw)
    assert strip(five.log) == strip(solve("duel", 2, iterations=5, **kw).log)


def _stop_after(k):
    def cb(entry):
        if entry["iteration"] >= k:
            raise KeyboardInterrupt
    return cb


def test_an_interruption_keeps_the_table_and_says_so(duel, tmp_path):
    from simcore.solve import load_checkpoint, solve

    kw = dict(SMALL, abstraction=history_abstraction(7), seed=7, executor="threads", workers=1)
    ck = tmp_path / "fp.ckpt"
    r = solve("duel", 2, iterations=10, checkpoint=ck, callback=_stop_after(2), log_json=tmp_path / "log.json",
              **kw)
    assert r.stopped == "interrupted" and r.iterations == 3
    assert not r.table_measured and r.brs_in_table == 3  # the kept table took iteration 2's BR in
    state = load_checkpoint(ck)
    for d in r.tables:
        assert np.array_equal(r.tables[d], state.avg[d])
        assert r.tables[d].sum() > 0
    assert "interrupt" in r.text()
    saved = json.loads((tmp_path / "log.json").read_text())
    assert saved["interrupted"] is True and saved["iterations"] == 3 and len(saved["log"]) == 3


def test_a_one_iteration_run_keeps_its_start_and_says_so(duel, tmp_path):
    # The table a run ends with is the one its last iteration measured: after 1 iteration, the start
    # itself (every row empty), the BR's departures only in the checkpoint. The result says so, and a
    # resume with nothing left to do writes the newest average (the sixteenth session judged a
    # 1-iteration Tapiola stage as a candidate; it was the shipped table again).
    from simcore.solve import load_checkpoint, solve

    kw = dict(SMALL, abstraction=history_abstraction(7), seed=5, executor="threads", workers=1)
    ck = tmp_path / "fp.ckpt"
    one = solve("duel", 2, iterations=1, checkpoint=ck, **kw)
    assert one.table_measured and one.brs_in_table == 0
    assert all(t.sum() == 0 for t in one.tables.values())
    assert "the table kept is the start itself" in one.text() and "--iterations 1" in one.text()
    assert one.to_dict()["brs_in_table"] == 0
    newest = solve("duel", 2, iterations=1, resume=ck, **kw)
    assert not newest.table_measured and newest.brs_in_table == 1 and newest.kept_note() is None
    state = load_checkpoint(ck)
    assert any(t.sum() > 0 for t in newest.tables.values())
    for d in newest.tables:
        assert np.array_equal(newest.tables[d], state.avg[d])
    three = solve("duel", 2, iterations=3, **kw)
    assert three.brs_in_table == 2 and "averages 2 of the 3 BRs" in three.text()
    # no checkpoint was saved: the note says so, and how to keep or measure the newest average instead
    assert "in no file, since the run saved no checkpoint (--keep newest keeps it" in three.text()
    assert "--iterations 4 measures it" in three.text() and "in the checkpoint" not in three.text()
    assert f"in the checkpoint {ck} (a resume with --iterations 1 keeps it" in one.text()
    assert "seat 0's rows" not in three.text()  # seat 0's first BR is in the table
    # a stage of one BR a seat (Slovak's at 6 players): the measured table leaves out the last seat's only one
    two = solve("duel", 2, iterations=2, **kw)
    assert two.brs_in_table == 1 and "No other BR of this run is seat 1's" in two.text()
    # keep="newest": the run itself keeps the average with its BR in, the same table the resume wrote
    kept = solve("duel", 2, iterations=1, keep="newest", **kw)
    assert not kept.table_measured and kept.brs_in_table == 1 and kept.kept_note() is None
    for d in kept.tables:
        assert np.array_equal(kept.tables[d], newest.tables[d])
    with pytest.raises(ValueError, match="keep must be one of measured, newest, got 'last'"):
        solve("duel", 2, iterations=1, keep="last", **kw)
    with pytest.raises(ValueError, match="keep is fictitious play's"):
        solve("duel", 2, iterations=1, keep="newest", method="cfr", **kw)


def test_a_damaged_or_foreign_checkpoint_is_refused(duel, tmp_path):
    from simcore.solve import solve

    kw = dict(SMALL, abstraction=history_abstraction(7), seed=8, executor="threads", workers=1)
    ck = tmp_path / "fp.ckpt"
    solve("duel", 2, iterations=2, checkpoint=ck, **kw)
    with pytest.raises(ValueError, match="seed 8 there, 9 here"):
        solve("duel", 2, iterations=3, resume=ck, **dict(kw, seed=9))
    raw = bytearray(ck.read_bytes())
    raw[-10] ^= 0xFF
    bad = tmp_path / "bad.ckpt"
    bad.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match="damaged"):
        solve("duel", 2, iterations=3, resume=bad, **kw)
    other = tmp_path / "other.ckpt"
    other.write_bytes(b"hello\n")
    with pytest.raises(ValueError, match="not a pvsim solve checkpoint"):
        solve("duel", 2, iterations=3, resume=other, **kw)
    # a right header and checksum over a body that is no archive: numpy called it pickled data
    import hashlib

    from simcore.solve import CHECKPOINT_FORMAT
    for body, why in ((b"not an archive", "its body is not an .npz archive"),
                      (_npz(x=np.zeros(2)), "its body is not the arrays a solve saves .KeyError")):
        forged = tmp_path / "forged.ckpt"
        forged.write_bytes(CHECKPOINT_FORMAT + b"\n" + hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
        with pytest.raises(ValueError, match=f"solve checkpoint '.*forged.ckpt' is damaged: {why}"):
            solve("duel", 2, iterations=3, resume=forged, **kw)


def test_a_solve_checkpoint_is_saved_atomically_and_through_a_link(duel, tmp_path, disk_full):
    """A failed save leaves the last checkpoint whole and no temporary file; a link stays a link."""
    from simcore.solve import load_checkpoint, save_checkpoint, solve

    kw = dict(SMALL, abstraction=history_abstraction(7), seed=8, executor="threads", workers=1)
    ck = tmp_path / "fp.ckpt"
    solve("duel", 2, iterations=2, checkpoint=ck, **kw)
    state, before = load_checkpoint(ck), ck.read_bytes()
    with disk_full(), pytest.raises(OSError, match="disk full"):
        save_checkpoint(ck, state)
    assert ck.read_bytes() == before and os.listdir(tmp_path) == ["fp.ckpt"]
    (tmp_path / "link.ckpt").symlink_to(ck)
    solve("duel", 2, iterations=3, resume=tmp_path / "link.ckpt", **kw)
    assert (tmp_path / "link.ckpt").is_symlink() and load_checkpoint(ck).iteration == 3


def test_the_convergence_chart_is_written_whole_in_the_format_its_suffix_names(duel, tmp_path, disk_full):
    """The chart went through savefig straight to its file: a run killed while it was written left half a
    PNG. It is now made in memory and renamed over the old one; an SVG gets no PNG-only metadata."""
    from simcore.solve import convergence_chart, solve

    kw = dict(SMALL, abstraction=history_abstraction(7), seed=8, executor="threads", workers=1)
    r = solve("duel", 2, iterations=2, chart=tmp_path / "c.png", **kw)
    assert r.files["chart"] == str(tmp_path / "c.png")
    before = (tmp_path / "c.png").read_bytes()
    assert before[:8] == b"\x89PNG\r\n\x1a\n"
    with disk_full(), pytest.raises(OSError, match="disk full"):
        convergence_chart(r, tmp_path / "c.png")
    assert (tmp_path / "c.png").read_bytes() == before and os.listdir(tmp_path) == ["c.png"]
    convergence_chart(r, tmp_path / "c.svg")
    assert b"<svg" in (tmp_path / "c.svg").read_bytes()


@pytest.mark.parametrize("name, why", [("chart", "no suffix to name its image format"),
                                       ("chart.npz", "'npz' is not an image format")])
def test_a_chart_without_an_image_suffix_is_refused_before_the_work(duel, tmp_path, name, why):
    # matplotlib added .png to the first (the result's files named a file that was not there) and
    # refused the second after the solve
    from simcore.solve import solve

    kw = dict(SMALL, abstraction=history_abstraction(7), seed=8, executor="threads", workers=1)
    with pytest.raises(ValueError, match=f"chart '.*{name}': {why}; end it with one of .*png"):
        solve("duel", 2, iterations=2, chart=tmp_path / name, **kw)
    assert not any(tmp_path.iterdir())


def _npz(**arrays) -> bytes:
    import io

    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def test_a_solve_checkpoint_that_is_not_a_regular_file_is_refused_before_reading(tmp_path):
    # /dev/zero would be read until memory runs out; a folder gave a raw OS error
    from simcore.solve import load_checkpoint

    for path, what in (("/dev/zero", "character device"), (str(tmp_path), "folder")):
        with pytest.raises(ValueError, match=f"solve checkpoint '{path}' is a {what}"):
            load_checkpoint(path)
    with pytest.raises(ValueError, match="no solve checkpoint at"):
        load_checkpoint(tmp_path / "missing.ckpt")


def test_bad_input_is_a_clear_error(duel):
    from simcore.solve import solve

    kw = dict(SMALL, abstraction=history_abstraction(7))
    with pytest.raises(ValueError, match="iterations"):
        solve("duel", 2, iterations=0, **kw)
    with pytest.raises(ValueError, match="target"):
        solve("duel", 2, iterations=2, target=-0.1, **kw)
    with pytest.raises(ValueError, match="abstraction"):
        solve("duel", 2, iterations=2, out="x.npz", **kw)
    with pytest.raises(ValueError, match="confidence"):
        solve("duel", 2, iterations=2, confidence=1.5, **kw)
    with pytest.raises(ValueError, match="measure_every is sampled CFR\\+'s .* got measure_every 3"):
        solve("duel", 2, iterations=2, measure_every=3, **kw)  # fp measures every iteration: it was ignored


def test_an_output_that_cannot_be_written_is_refused_before_the_work(tmp_path, monkeypatch):
    """A table, chart, log or checkpoint in a missing folder, or a folder given as the file, is a
    ValueError naming the path before any fitting starts (the API's solve and exploit, as the CLI
    already did), not an OSError after the first iteration or the whole run. The work is replaced
    by an AssertionError to show it never began."""
    import simcore.api
    from simcore.exploit import exploit
    from simcore.solve import solve

    def no_work():
        raise AssertionError("the run started before its outputs were checked")

    monkeypatch.setattr(simcore.api, "_registry", no_work)  # the first thing either run does after its checks
    gone = tmp_path / "gone" / "t.npz"
    for kw in ({"out": gone}, {"out": tmp_path / "t.npz", "chart": tmp_path / "gone" / "t.png"},
               {"log_json": tmp_path / "gone" / "t.json"}, {"checkpoint": tmp_path / "gone" / "t.ckpt"}):
        with pytest.raises(ValueError, match="gone'.* does not exist"):
            solve("estonian", 6, iterations=1, abstraction="coarse", **kw)
    with pytest.raises(ValueError, match="is a folder; give a file name"):
        solve("estonian", 6, iterations=1, abstraction="coarse", out=tmp_path)
    for name in ("out", "chart", "log_json", "checkpoint", "resume"):
        with pytest.raises(TypeError, match=f"{name} is a file name, got 3"):
            solve("estonian", 6, iterations=1, abstraction="coarse", **{name: 3})
    with pytest.raises(ValueError, match="out .*gone.* does not exist"):
        exploit("estonian", 6, abstraction="coarse", out=gone)
    with pytest.raises(AssertionError, match="before its outputs were checked"):  # a good path gets to work
        solve("estonian", 6, iterations=1, abstraction="coarse", out=tmp_path / "t.npz")


def test_no_output_lands_on_another_or_on_the_checkpoint(tmp_path, monkeypatch, capsys):
    """The chart and the log take out's name with .png and .json: an out ending .json or .png, or a
    checkpoint or resume file named like the log, was overwritten at the end of the run (the table lost,
    or the checkpoint replaced by the log, so the resume failed). Each is now refused before the work
    (replaced by an AssertionError to show it never began), naming the two and the file."""
    import simcore.api
    from simcore.cli import main
    from simcore.solve import solve

    def no_work():
        raise AssertionError("the run started before its outputs were checked")

    monkeypatch.setattr(simcore.api, "_registry", no_work)
    t = lambda name: tmp_path / name  # noqa: E731
    clashes = [
        (dict(out=t("x.json")), r"out \(--out\) and the iteration log beside out .* same file, '.*x\.json'.*"
                                r"ending \.npz"),
        (dict(out=t("x.png")), r"out \(--out\) and the chart beside out .* same file"),
        (dict(out=t("c.npz"), checkpoint=t("c.json")), r"iteration log beside out \(--out\) and checkpoint "
                                                        r"\(--checkpoint\) are the same file.*name them apart"),
        (dict(out=t("r.npz"), resume=t("r.json")), r"iteration log beside out \(--out\) and resume \(--resume\)"),
        (dict(out=t("a.npz"), checkpoint=t("a.npz")), r"out \(--out\) and checkpoint"),
        (dict(out=t("a.npz"), log_json=t("b.json"), chart=t("b.json")), r"chart and log_json are the same file"),
        (dict(out=t("a.npz"), checkpoint=t("k.ckpt"), resume=t("a.png")), r"chart beside out .* and resume"),
        (dict(chart=t("k.ckpt"), checkpoint=t("k.ckpt")), r"chart and checkpoint"),
    ]
    for kw, message in clashes:
        with pytest.raises(ValueError, match=message):
            solve("estonian", 6, iterations=1, abstraction="coarse", **kw)
    for kw in (dict(out=t("a.npz"), checkpoint=t("a.ckpt")), dict(resume=t("a.ckpt")),
               dict(out=t("a.npz"), resume=t("a.ckpt"), checkpoint=t("a.ckpt"))):
        with pytest.raises(AssertionError, match="before its outputs were checked"):  # apart: the work starts
            solve("estonian", 6, iterations=1, abstraction="coarse", **kw)
    # the command line says it in one line, and writes nothing
    assert main(["solve", "estonian", "-n", "3", "--out", str(t("c.npz")), "--checkpoint", str(t("c.json"))]) == 2
    assert "pvsim solve: error: the iteration log beside out (--out) and checkpoint" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_the_log_lists_the_files_written_and_the_chart_ticks_the_measured_iterations(tmp_path):
    """The iteration log beside the table listed no files ({}) while --json gave them; the chart of a
    short run got fractional ticks (one point: -0.04 ... 0.04); an interrupted run's chart says so."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    from simcore.solve import convergence_chart, solve

    out = tmp_path / "e.npz"
    r = solve("estonian", 3, iterations=1, deals_per_iteration=4096, eval_deals=4096, block_size=2048, seed=3,
              executor="threads", workers=1, out=out)
    files = {"table": str(out), "chart": str(tmp_path / "e.png"), "log": str(tmp_path / "e.json")}
    assert r.files == files and json.loads((tmp_path / "e.json").read_text())["files"] == files
    seen = {}
    real_savefig = plt.Figure.savefig

    def spy(fig, *a, **k):
        ax = fig.axes[0]
        seen.update(ticks=list(ax.get_xticks()), title=ax.get_title())
        return real_savefig(fig, *a, **k)

    plt.Figure.savefig = spy
    try:
        convergence_chart(r, tmp_path / "one.png")
        assert seen["ticks"] == [0] and "interrupted" not in seen["title"]
        r.stopped = "interrupted"
        convergence_chart(r, tmp_path / "cut.png")
        assert seen["title"].endswith("(interrupted after 1 iteration)")
    finally:
        plt.Figure.savefig = real_savefig


def test_a_start_of_weight_zero_is_the_average_of_the_best_responses(exact, tmp_path):
    """start_weight=0: the first BR replaces the start wherever it departs, so after one iteration
    every row it left plays the BR's action alone; the run converges faster than with the start as a
    term (exactly, after 12 iterations: seeds 1-3 give 1/26 to 1/29 of the start's gain, against
    1/10 to 1/11 with start_weight 1), and its setting is part of the checkpoint."""
    from simcore.solve import load_checkpoint, solve

    abst, E = exact
    kw = dict(SMALL, abstraction=abst, seed=1, executor="threads", workers=1)
    one = solve("duel", 2, iterations=2, start_weight=0, checkpoint=tmp_path / "w0.ckpt", **kw)
    half = solve("duel", 2, iterations=2, **kw)
    state = load_checkpoint(tmp_path / "w0.ckpt")
    assert state.settings["start_weight"] == 0
    departed = 0
    for d, t in state.avg.items():
        live = t.sum(axis=1) > 0
        departed += int(live.sum())
        # seat 0's rows took one BR each: whole rows, no start share
        assert np.all(state.start[d][live & (state.weight[d] == 1)] == 0)
        assert np.all(t[live & (state.weight[d] == 1)].max(axis=1) == 1)
    assert departed > 0
    assert any(not np.array_equal(one.tables[d], half.tables[d]) for d in one.tables)
    with pytest.raises(ValueError, match="start_weight 0 there, 1 here"):
        solve("duel", 2, iterations=3, resume=tmp_path / "w0.ckpt", **kw)
    with pytest.raises(ValueError, match="start_weight must be a whole number"):
        solve("duel", 2, iterations=2, start_weight=-1, **kw)
    with pytest.raises(ValueError, match="start_weight is fictitious play's"):
        solve("duel", 2, iterations=2, start_weight=0, method="cfr", **kw)
    start = E.gain(_empty(abst))
    r = solve("duel", 2, iterations=12, start_weight=0, **kw)
    assert E.gain(_whole(abst, r)) <= start / 15


def test_a_target_stops_the_run_on_the_table_it_measured(duel):
    from simcore.solve import solve

    r = solve("duel", 2, iterations=30, target=0.02, abstraction=history_abstraction(7), seed=1,
              executor="threads", workers=1, **SMALL)
    assert r.stopped == "target" and r.iterations < 30
    assert r.log[-1]["ci_high"] <= 0.02 and all(e["ci_high"] > 0.02 for e in r.log[:-1])
    assert r.table_measured


def test_a_built_in_game_writes_a_table_that_table_FILE_plays(tmp_path):
    """Estonian at 3 players, coarse buckets, a tiny budget: the file, chart and log are written, the
    table is mixed, names fictitious play, and plays in simulate as the field."""
    from simcore import simulate
    from simcore.solve import solve
    from strategies.table import load_table

    out = tmp_path / "fp.npz"
    r = solve("estonian", 3, iterations=2, deals_per_iteration=4096, eval_deals=4096, block_size=2048, seed=3,
              passes=1, executor="threads", workers=1, out=out)
    assert set(r.files) == {"table", "chart", "log"} and all(os.path.exists(p) for p in r.files.values())
    tf = load_table(out)
    assert tf.decisions == ("pass", "discard") and tf.mixed("pass") and tf.meta["algorithm"] == "fictitious play"
    assert tf.meta["measured"]["gain"] == r.log[-1]["gain"]
    s = simulate("estonian", 3, 2048, 1, hero=f"table:{out}", field=f"table:{out}", block_size=1024)
    assert s.n_deals == 2048
    saved = json.loads((tmp_path / "fp.json").read_text())
    assert saved["variant"] == "estonian" and len(saved["log"]) == 2


def test_the_command_line_solves_writes_and_resumes(tmp_path, capsys):
    from simcore.cli import main
    from strategies.table import load_table

    out, ck = tmp_path / "e3.npz", tmp_path / "e3.ckpt"
    base = ["solve", "estonian", "--players", "3", "--deals", "2048", "--eval-deals", "2048", "--block-size", "1024",
            "--seed", "2", "--workers", "1", "--executor", "threads", "--no-progress", "--out", str(out)]
    assert main(base + ["--iterations", "1", "--checkpoint", str(ck)]) == 0
    text = capsys.readouterr()
    assert "iteration 0: seat 0 BR gain" in text.err and "stopped by the iteration count" in text.out
    assert load_table(out).n_players == 3 and (tmp_path / "e3.png").exists() and (tmp_path / "e3.json").exists()
    assert main(base + ["--iterations", "2", "--resume", str(ck), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["iterations"] == 2 and [e["seat"] for e in d["log"]] == [0, 1] and d["interrupted"] is False
    assert main(base + ["--iterations", "0"]) == 2
    assert "iterations must be a positive integer" in capsys.readouterr().err
    # --start-weight reaches the solve: the table says so, and a checkpoint of the other weight is refused
    w0 = tmp_path / "w0.npz"
    flags = [a if a != str(out) else str(w0) for a in base]
    assert main(flags + ["--iterations", "1", "--start-weight", "0", "--checkpoint", str(tmp_path / "w0.ckpt")]) == 0
    capsys.readouterr()
    assert load_table(w0).meta["start_weight"] == 0 and "start_weight" not in load_table(out).meta
    assert main(flags + ["--iterations", "2", "--resume", str(tmp_path / "w0.ckpt")]) == 2
    assert "start_weight 0 there, 1 here" in capsys.readouterr().err
    # --keep newest reaches the solve: a 1-iteration run keeps its BR, unmeasured, and says so in the JSON
    nw = tmp_path / "nw.npz"
    assert main([x if x != str(out) else str(nw) for x in base] + ["--iterations", "1", "--keep", "newest",
                                                                    "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["table_measured"] is False and d["brs_in_table"] == 1 and load_table(nw).meta["measured"] is None


def test_a_dask_cluster_solves_to_the_same_table():
    import logging

    distributed = pytest.importorskip("distributed", reason='dask is not installed (pip install "pvsim[dask]")')
    from simcore.engine import executors
    from simcore.solve import solve

    kw = dict(iterations=2, deals_per_iteration=2048, eval_deals=2048, block_size=1024, seed=5)
    ckw = dict(kw, method="cfr", iterations=3, init="pass=thoughtful,discard=best-potential")
    ref = solve("estonian", 3, executor="threads", workers=1, **kw)
    ref_cfr = solve("estonian", 3, executor="threads", workers=1, **ckw)
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                       silence_logs=logging.ERROR)
    try:
        r = solve("estonian", 3, scheduler=cluster.scheduler_address, **kw)
        r_cfr = solve("estonian", 3, scheduler=cluster.scheduler_address, **ckw)
    finally:
        executors.close_dask(cluster.scheduler_address)
        cluster.close()
    for a, b in ((ref, r), (ref_cfr, r_cfr)):
        for d in a.tables:
            assert np.array_equal(a.tables[d], b.tables[d]), d
            assert np.array_equal(a.starts.get(d, 0), b.starts.get(d, 0)), d
        assert [e["gain"] for e in a.log] == [e["gain"] for e in b.log]
    assert ref_cfr.starts  # sampled CFR (its start reads more than the buckets) on Dask too


def test_solved_without_a_shipped_table_gives_the_command_that_makes_one():
    import strategies

    with pytest.raises(ValueError, match=r"no solved table is shipped for estonian at 3 players.*"
                                         r"pvsim solve estonian --players 3 --out estonian3\.npz"):
        strategies.lineup("estonian", 3, "solved", "solved")
    with pytest.raises(ValueError, match=r"pvsim solve tapiola --players 6 --lowball --scoring pot"):
        from simcore import simulate

        simulate("tapiola", 6, 1024, hero="solved", options={"lowball": True})


def test_the_shipped_solved_table_plays_on_threads_and_processes_and_is_listed(capsys):
    from simcore import simulate
    from simcore.cli import main
    from strategies.solved import shipped_tables

    found = {tf.n_players: tf for tf in shipped_tables("estonian") if not tf.options}
    assert 6 in found, "the Estonian 6-player table is shipped"
    m = found[6].meta["exploitability"]
    assert m["ci_low"] <= m["gain"] <= m["ci_high"] and "pvsim exploit" in m["how"]
    kw = dict(hero="pass=solved", field="solved", block_size=1024)
    a = simulate("estonian", 6, 2048, 3, executor="threads", workers=1, **kw)
    b = simulate("estonian", 6, 2048, 3, executor="processes", workers=2, **kw)
    assert a.to_dict()["seats"] == b.to_dict()["seats"]
    assert main(["strategies", "estonian"]) == 0
    out = capsys.readouterr().out
    assert "solved tables shipped (policy `solved`):" in out
    assert f"6 players, {found[6].abstraction} buckets, pass+discard" in out


def test_ctrl_c_on_the_command_line_keeps_the_table(tmp_path):
    """A real SIGINT to `pvsim solve` after its second iteration: exit 130, the table, chart and log
    written and marked interrupted. (The child restores Python's SIGINT handler, which a shell that
    runs the tests in the background may have set to ignore.)"""
    import signal
    import subprocess
    import sys

    code = ("import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
            "from simcore.cli import main; raise SystemExit(main())")
    out = tmp_path / "e3.npz"
    p = subprocess.Popen([sys.executable, "-c", code, "solve", "estonian", "--players", "3", "--iterations", "500",
                          "--deals", "4096", "--eval-deals", "4096", "--block-size", "2048", "--workers", "1",
                          "--executor", "threads", "--no-progress", "--out", str(out)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        seen = []
        for line in p.stderr:  # one line per iteration
            seen.append(line)
            if line.startswith("iteration 1:"):
                p.send_signal(signal.SIGINT)
                break
        rest_out, rest_err = p.communicate(timeout=300)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130, (p.returncode, rest_err[-2000:])
    assert "interruption (Ctrl-C)" in rest_out
    log = json.loads((tmp_path / "e3.json").read_text())
    assert log["interrupted"] is True and 2 <= log["iterations"] < 500
    assert out.exists() and (tmp_path / "e3.png").exists()
