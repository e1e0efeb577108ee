"""pvsim played by a hostile user, the second round (issue 22).

The output and analysis items (units in every format, zero-deal runs, negative
zero, analyses with no question or no choice, what an analysis is conditioned
on, the help text) and the API and resource items (wrong types named as types,
strategies that return nothing or raise KeyboardInterrupt, block sizes beyond
the machine's memory, ``--seat -1``). Every test failed before its fix.
"""
from __future__ import annotations

import argparse
import io
import json

import numpy as np
import pandas as pd
import pytest

from simcore import analyze, simulate
from simcore.cli import build_parser, main
from simcore.engine import StrategyError
from test_hostile import first_legal, registered  # noqa: F401 - registered is a fixture


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def one_line_error(code, err, command, needle):
    assert code == 2 and "Traceback" not in err, err
    assert len(err.strip().splitlines()) == 1 and err.startswith(f"pvsim {command}: error: "), err
    assert needle in err, err


# -- help ------------------------------------------------------------------------------------


def test_no_help_text_shows_a_doubled_percent_sign():
    parser = build_parser()
    texts = {"pvsim": parser.format_help()}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            texts.update({name: sub.format_help() for name, sub in action.choices.items()})
    assert "analyze" in texts and all("%%" not in t for t in texts.values()), \
        [name for name, t in texts.items() if "%%" in t]
    assert "separated at 95%." in texts["analyze"]


# -- the API: types named as types ----------------------------------------------------------


@pytest.mark.parametrize("players", [4.0, "4", np.float64(4), True])
def test_a_player_count_of_the_wrong_type_is_blamed_on_the_type(players):
    with pytest.raises(ValueError, match="whole number") as e:
        simulate("sviten", players, 100, progress=False)
    assert repr(players) in str(e.value) and type(players).__name__ in str(e.value)
    assert "takes 2 to 9" not in str(e.value)  # not blamed on the range


def test_a_player_count_out_of_range_still_names_the_range():
    with pytest.raises(ValueError, match="takes 2 to 9 players, got 12"):
        simulate("sviten", 12, 100, progress=False)


@pytest.mark.parametrize("call,needle", [
    (lambda: simulate("tapiola", 3, 100, options="points", progress=False), "options"),
    (lambda: simulate("tapiola", 3, 100, options=["scoring", "points"], progress=False), "options"),
    (lambda: analyze("estonian", 3, "As Ks 7d", extra="7d", progress=False), "extra"),
])
def test_options_and_fields_that_are_not_dicts_get_a_clear_error(call, needle):
    with pytest.raises(ValueError, match=needle) as e:
        call()
    assert "must be a dict" in str(e.value) and "**" not in str(e.value)


# -- strategies that answer with nothing ---------------------------------------------------


@pytest.mark.parametrize("answer,kind", [
    (lambda obs: None, "NoneType"),
    (lambda obs: (a for a in np.argmax(obs["legal"], axis=1)), "generator"),
    (lambda obs: 0, "int"),
])
def test_a_strategy_returning_no_array_is_named_with_the_type_it_returned(registered, answer, kind):
    registered("estonian", "pass", "test-no-array", lambda obs, rng: answer(obs))
    with pytest.raises(StrategyError, match=f"'test-no-array' for pass .* returned {kind}") as e:
        simulate("estonian", 3, 200, hero="pass=test-no-array", threads=1, progress=False)
    assert "shape ()" not in str(e.value)


def test_a_strategy_returning_the_wrong_length_still_names_the_shape(registered):
    registered("estonian", "pass", "test-short", lambda obs, rng: first_legal(obs, rng)[:-1])
    with pytest.raises(StrategyError, match=r"returned shape \(199,\); expected \(200,\)"):
        simulate("estonian", 3, 200, hero="pass=test-short", threads=1, progress=False)


# -- --seat -1 -------------------------------------------------------------------------------


@pytest.mark.parametrize("seat", ["-1", "3", "-7"])
def test_a_seat_off_the_table_is_named_with_the_table_seats(capsys, seat):
    code, _, err = run(capsys, "simulate", "estonian", "--players", "3", "--seat", f"{seat}=pass=highest",
                       "--deals", "100", "--no-progress")
    one_line_error(code, err, "simulate", f"--seat {seat}: seats are 0..2")


def test_a_seat_spec_that_is_no_number_is_still_refused_as_such(capsys):
    code, _, err = run(capsys, "simulate", "estonian", "--players", "3", "--seat", "-x=pass=highest",
                       "--deals", "100", "--no-progress")
    one_line_error(code, err, "simulate", "--seat takes K=SPEC")


# -- analyses without a question -----------------------------------------------------------


SVITEN = ["analyze", "sviten", "--players", "2", "--hand", "Qs Qd 9c 5h 2s", "--board", "Qh 8d 7s"]


def test_sviten_open_without_the_open_card_asks_for_it(capsys):
    code, out, err = run(capsys, *SVITEN, "--decision", "open", "--no-progress")
    one_line_error(code, err, "analyze", "--open CARD")
    assert out == ""
    with pytest.raises(ValueError, match="open"):
        analyze("sviten", 2, "Qs Qd 9c 5h 2s", "Qh 8d 7s", decision="open", progress=False)


def test_sviten_open_with_the_open_card_still_analyses_it(capsys):
    r = analyze("sviten", 2, "Qs Qd 9c 5h 2s", "Qh 8d 7s", extra={"open": "9h"}, n_deals=4000,
                stop_early=False, progress=False)
    assert r.decision == "open" and sorted(r.labels) == ["keep 9h", "refuse 9h"]


# -- what a number means, in every format ----------------------------------------------------


TAPIOLA_POINTS = ["simulate", "tapiola", "--players", "3", "--scoring", "points", "--deals", "2000", "--no-progress"]


def test_csv_states_the_unit_the_rules_and_the_match_target(capsys):
    code, out, _ = run(capsys, *TAPIOLA_POINTS, "--match", "--format", "csv")
    df = pd.read_csv(io.StringIO(out))
    assert code == 0 and len(df) == 3
    assert (df.unit == "points").all() and (df.scoring == "points").all() and (df.match_target == 10).all()
    assert out.splitlines()[0].endswith("deals,interrupted,small_sample")  # the run's facts stay last
    code, out, _ = run(capsys, "simulate", "holdem", "--deals", "500", "--format", "csv", "--no-progress")
    assert "unit" in out.splitlines()[0].split(",") and ",pot share," in out.splitlines()[1]
    code, out, _ = run(capsys, "compare", "tapiola", "--players", "3", "--scoring", "points", "--a",
                       "discard=lowest", "--b", "discard=made", "--deals", "500", "--format", "csv",
                       "--no-progress")
    assert ",points,points," in out.splitlines()[1]


def test_markdown_states_the_unit_the_rules_and_the_match_target(capsys):
    code, out, _ = run(capsys, *TAPIOLA_POINTS, "--match", "--format", "markdown")
    assert code == 0 and "*share = mean points per deal; rules: scoring=points" in out
    assert "match to 10*" in out
    code, out, _ = run(capsys, "simulate", "holdem", "--deals", "500", "--format", "markdown", "--no-progress")
    assert "*share = mean pot share per deal*" in out
    code, out, _ = run(capsys, "analyze", "tapiola", "--players", "3", "--scoring", "points", "--hand",
                       "As Ks Qs Js", "--deals", "2000", "--format", "markdown", "--no-progress")
    assert code == 0 and "*share = mean points per deal; rules: scoring=points" in out


def test_the_json_of_a_normal_run_keeps_its_keys():
    d = simulate("tapiola", 3, 500, options={"scoring": "points"}, progress=False).to_dict()
    assert "interrupted_by" not in d and "match_target" not in d and d["unit"] == "points"
    assert d["seats"][0]["win_rate"] is not None and d["seats"][0]["categories"]["pair"] is not None


# -- a run with no deals measures nothing -----------------------------------------------------


def _ctrl_c_at_once(obs, rng):
    raise KeyboardInterrupt


ZERO = ["--players", "3", "--hero", "pass=test-ctrl-c-now", "--deals", "5000", "--threads", "1", "--no-progress"]


def test_a_run_of_zero_deals_reports_null_rates_and_categories(registered, capsys):
    registered("estonian", "pass", "test-ctrl-c-now", _ctrl_c_at_once)
    r = simulate("estonian", 3, 5000, hero="pass=test-ctrl-c-now", threads=1, progress=False)
    assert r.info.interrupted and r.n_deals == 0
    t = r.table()
    assert t.win_rate.isna().all() and t.tie_rate.isna().all()
    assert r.categories().drop(columns="seat").isna().all().all()
    d = r.to_dict()
    json.dumps(d, allow_nan=False)
    for seat in d["seats"]:
        assert seat["win_rate"] is None and seat["tie_rate"] is None
        assert set(seat["categories"].values()) == {None}
    assert set(d["winning_categories"].values()) == {None}
    code, out, _ = run(capsys, "simulate", "estonian", *ZERO, "--format", "json")
    assert code == 130 and json.loads(out)["seats"][0]["win_rate"] is None
    code, out, _ = run(capsys, "simulate", "estonian", *ZERO, "--categories")
    rows = out.split("final hand categories")[0].splitlines()[2:5]
    assert all(row.split()[-2:] == ["n/a", "n/a"] for row in rows), rows
    assert "0.0000" not in out and "n/a" in out.split("final hand categories")[1]
    code, out, _ = run(capsys, "simulate", "estonian", *ZERO, "--format", "csv")
    assert out.splitlines()[1].startswith('0,"pass=test-ctrl-c-now,discard=best-made",0,,,,,,,')


def test_an_analysis_of_zero_deals_has_no_rates_and_no_best(registered):
    registered("estonian", "discard", "test-ctrl-c-now", _ctrl_c_at_once)
    r = analyze("estonian", 3, "As Ks 7d", "Qs Js 4h", hero="discard=test-ctrl-c-now", threads=1,
                progress=False)
    assert r.info.interrupted and r.stats.n == 0
    d = r.to_dict()
    json.dumps(d, allow_nan=False)
    assert d["best"] is None
    assert all(o["win_rate"] is None and o["tie_rate"] is None for o in d["options"])


def test_a_normal_analysis_still_names_its_best_and_rates():
    d = analyze("estonian", 3, "As Ks 7d", "Qs Js 4h", n_deals=2000, progress=False).to_dict()
    assert d["best"] == d["options"][0]["action"] and 0 < d["options"][0]["win_rate"] < 1


# -- never -0 ----------------------------------------------------------------------------------


def test_no_format_prints_negative_zero():
    from simcore.cli import _fmt_markdown, _fmt_table, _group_table

    df = pd.DataFrame({"seat": [0, 1, 2], "share": [0.0, 4e-5, 0.25], "stderr": [0.0, 2e-6, 0.01],
                       "ci_low": [-0.0, -4e-5, -0.00006]})
    table = _fmt_table(df)
    assert "-0.0000" not in table and "-0.00000" not in table and "-0.0001" in table
    assert table.splitlines()[1].split()[-1] == "0.0000" and table.splitlines()[2].split()[-1] == "0.0000"
    md = _fmt_markdown(df)
    assert "-0.0000" not in md and "| 0.0000 |" in md
    groups = _group_table(pd.DataFrame({"seat": [0], "x": [0.0002], "x_ci_low": [-0.0003], "x_ci_high": [0.0007]}),
                          ["x"])
    assert groups.x[0] == "0.0% [0.0, 0.1]"


def test_a_result_whose_interval_dips_below_zero_prints_no_negative_zero():
    # A seat that scored in 1 deal of 40,000: its interval's low end is about -0.00002,
    # which rounds to zero; the table, markdown and the part groups print 0.0000.
    from simcore.cli import _render
    from simcore.engine.results import SimulationResult
    from simcore.engine.schedule import RunInfo
    from simcore.engine.stats import SeatStats

    stats = SeatStats(2, part_names=("p",))
    stats.n = 40_000
    stats.share_sum[:] = stats.share_sq[:] = [1.0, 39_999.0]
    stats.part_sum[0] = stats.part_sq[0] = [1.0, 39_999.0]
    r = SimulationResult("holdem", 2, 0, ["a", "b"], stats, RunInfo(40_000, 1.0, False, 1, 0, 16384))
    t = r.table()
    assert -5e-5 < t.ci_low[0] < 0  # the case: a negative low end that rounds to zero
    for fmt in ("table", "markdown"):
        text = _render(fmt, t, r.to_dict(), "header", r)
        assert "-0.0000" not in text and "0.0000" in text and "-0.00000" not in text


# -- a KeyboardInterrupt from a strategy -------------------------------------------------------


def test_a_strategy_raising_keyboardinterrupt_is_named(registered, capsys):
    registered("estonian", "pass", "test-ctrl-c-now", _ctrl_c_at_once)
    r = simulate("estonian", 3, 5000, hero="pass=test-ctrl-c-now", threads=1, progress=False)
    assert r.info.interrupted and r.n_deals == 0
    assert r.info.interrupted_by == "strategy 'test-ctrl-c-now' for pass (seat 0, round 0) raised KeyboardInterrupt"
    assert r.to_dict()["interrupted_by"] == r.info.interrupted_by
    for fmt in ("table", "markdown"):
        code, out, _ = run(capsys, "simulate", "estonian", *ZERO, "--format", fmt)
        assert code == 130 and "interrupted: 0 deals finished" in out and "'test-ctrl-c-now' for pass" in out


def test_a_ctrl_c_that_is_no_strategy_of_the_user_names_nothing(registered):
    # A KeyboardInterrupt inside pvsim's own code (a built-in policy) is a plain Ctrl-C, as before.
    def ours(obs, rng):
        raise KeyboardInterrupt

    ours.__module__ = "strategies.pretend_builtin"
    registered("estonian", "pass", "test-builtin-ctrl-c", ours)
    r = simulate("estonian", 3, 5000, hero="pass=test-builtin-ctrl-c", threads=1, progress=False)
    assert r.info.interrupted and r.info.interrupted_by is None and "interrupted_by" not in r.to_dict()


# -- analyses with one action: nothing to decide ------------------------------------------------


RUSSIAN_LAST = ["--players", "2", "--hand", "Qs", "--board", "2c 3d 4h", "--hand1", "As Ad Ac Ah", "--hand2",
                "Ks Kd Kc Kh", "--hand3", "5s 6s 7s"]


def test_an_analysis_with_one_legal_action_says_there_is_nothing_to_decide(capsys):
    import time

    from simcore.engine.runner import NothingToDecide

    start = time.perf_counter()
    code, out, err = run(capsys, "analyze", "russian", *RUSSIAN_LAST, "--no-progress")
    one_line_error(code, err, "analyze", "nothing to decide")
    assert "one legal action here (hand 3)" in err and "round 12" in err and out == ""
    assert time.perf_counter() - start < 30  # not 2,000,000 deals
    with pytest.raises(NothingToDecide, match="hand 3"):
        analyze("russian", 2, "Qs", "2c 3d 4h", extra={"hand1": "As Ad Ac Ah", "hand2": "Ks Kd Kc Kh",
                                                        "hand3": "5s 6s"}, progress=False)
    # The situation itself still has a value.
    code, out, _ = run(capsys, "simulate", "russian", *RUSSIAN_LAST, "--deals", "2000", "--no-progress")
    assert code == 0 and "2,000 deals" in out


def test_an_analysis_with_two_actions_still_runs():
    r = analyze("russian", 2, "Qs", "2c 3d 4h", extra={"hand1": "As Ad Ac Ah", "hand2": "Ks Kd Kc"},
                n_deals=3000, stop_early=False, progress=False)
    assert r.labels == ["hand 2", "hand 3"] and r.stats.n == 3000


# -- what an analysis is conditioned on --------------------------------------------------------


def test_a_sviten_draw_analysis_given_the_open_card_says_it_is_conditioned_on_it(capsys):
    code, out, _ = run(capsys, *SVITEN, "--open", "9h", "--decision", "draw", "--deals", "3000", "--no-stop",
                       "--no-progress")
    header = out.split("\n  ")[0]
    assert code == 0 and "decision draw" in header and "conditioned on --open 9h" in header
    r = analyze("sviten", 2, "Qs Qd 9c 5h 2s", "Qh 8d 7s", decision="draw", extra={"open": "9h"}, n_deals=2000,
                stop_early=False, progress=False)
    assert any("9h" in c for c in r.conditions)
    code, out, _ = run(capsys, *SVITEN, "--deals", "3000", "--no-stop", "--no-progress")
    assert code == 0 and "conditioned" not in out  # without --open the draw is not conditioned


# -- block sizes beyond the machine ---------------------------------------------------------------


def test_a_block_size_beyond_the_machine_memory_is_refused_naming_the_figures(monkeypatch, capsys):
    from simcore.engine import checks

    monkeypatch.setattr(checks, "machine_memory", lambda: 8 * 2**30)
    with pytest.raises(ValueError, match="block size 50,000,000") as e:
        simulate("sviten", 9, 50_000_000, block_size=50_000_000, progress=False)
    text = str(e.value)
    assert "1,200 bytes a deal for sviten with 9 players" in text and "8.0 GiB" in text
    assert "at most 3,579,139" in text  # 4 GiB / 1,200 bytes
    code, _, err = run(capsys, "simulate", "sviten", "--players", "9", "--deals", "50000000", "--block-size",
                       "50000000", "--no-progress")
    one_line_error(code, err, "simulate", "--block-size")
    assert "GiB" in err
    # An analysis holds every action's outcomes: 32 Sviten draws need far more a deal.
    with pytest.raises(ValueError, match="32 alternatives"):
        analyze("sviten", 9, "Qs Qd 9c 5h 2s", "Qh 8d 7s", block_size=1_000_000, workers=2, progress=False)


def test_an_absurd_block_size_is_refused_on_any_machine():
    with pytest.raises(ValueError, match="block size 10,000,000,000,000 .* GiB"):
        simulate("holdem", 2, 10**13, block_size=10**13, progress=False)


def test_block_sizes_that_fit_still_run(monkeypatch):
    from simcore.engine import checks

    monkeypatch.setattr(checks, "machine_memory", lambda: 2**20)  # 1 MiB: only the default is exempt
    assert simulate("holdem", 2, 2000, progress=False).n_deals == 2000  # the default block always runs
    monkeypatch.setattr(checks, "machine_memory", lambda: 8 * 2**30)
    r = simulate("holdem", 2, 3000, block_size=1_000_000, progress=False)  # one block of 3,000 deals
    assert r.n_deals == 3000


def test_the_memory_estimate_is_above_what_a_block_holds():
    # The estimate is an upper bound: measured with tracemalloc on one block of each kind.
    import tracemalloc

    from simcore.api import _registry
    from simcore.engine.blocks import Job
    from simcore.engine.checks import deal_bytes
    from simcore.variants import get_variant

    n = 20_000
    for name, players in (("holdem", 9), ("estonian", 6), ("sviten", 9), ("russian", 4), ("tapiola", 9)):
        v = get_variant(name)
        lineup = _registry().lineup(v, players, None, None, None)
        job = Job(v, players, [lineup], np.full(v.n_slots(players), -1, np.int8), 0, n, [{}])
        job.run_block(0, 200)  # compiled, caches warm
        tracemalloc.start()
        try:
            job.run_block(0, n)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak / n <= deal_bytes(players), (name, players, peak / n)
