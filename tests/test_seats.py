"""experiments.seats: every seat's BR to a shipped table and to its built-in, their sum, the
ratio; a rerun skips what is measured. A tiny budget (Russian at 3 players, 1,024 deals): the
figures are checked against their own parts, not against values."""
from __future__ import annotations

import json

import pytest

from strategies.solved import ratio_text


def test_every_seat_is_measured_summed_and_a_rerun_skips_them(tmp_path, monkeypatch, capsys):
    import experiments.seats as seats

    argv = ["--games", "russian:3", "--deals", "1024", "--eval-deals", "1024", "--workers", "1", "--out", str(tmp_path)]
    assert seats.main(argv) == 0
    rows = json.loads((tmp_path / "seats.json").read_text())["rows"]
    assert [r["field"] for r in rows] == ["solved", "place=conceal"]  # the table's recorded built-in
    for r in rows:
        assert [s["seat"] for s in r["seats"]] == [0, 1, 2] and (r["deals"], r["eval_deals"]) == (1024, 1024)
        assert r["seed"] == 2024  # the recorded BR's seed
        # the sum is the seats' gains added up (exploit's mean times the seats)
        assert r["sum"]["gain"] == pytest.approx(sum(s["gain"] for s in r["seats"]), abs=1e-12)
        assert r["sum"]["ci_low"] <= r["sum"]["gain"] <= r["sum"]["ci_high"]
    md = (tmp_path / "seats.md").read_text()
    assert "## russian, 3 players" in md and "| field | seat 0 | seat 1 | seat 2 | sum (NashConv, lower bound) |" in md
    assert md.count("| `solved` |") == 1 and "| `place=conceal` |" in md
    # the summary's line: a coarse BR is no share of the fine judge's, beside the table's seat-0 verdict
    j = seats.judges()["russian:3"]
    assert j["abstraction"] == "fine" and j["ratio"] <= j["ratio_upper"]
    # Russian's BR against a field that reads the cards makes one backward pass (its fit_defaults)
    assert [r["passes"] for r in rows] == [1, 1] and "1,024 fitting deals a stage x 1 backward pass," in md
    line = next(x for x in md.splitlines() if x.startswith("| russian 3 | coarse | 1 | 1,024 |"))
    assert "| coarse, not the judge's fine |" in line and line.endswith(
        f"| {ratio_text(j['ratio'])} ({ratio_text(j['ratio_upper'])}) |")  # 0.251, not 0.25, where over
    assert md.index("## Summary") < md.index(line) < md.index("## russian, 3 players")

    def no_measure(*a, **k):
        raise AssertionError("measured again")

    monkeypatch.setattr(seats, "measure", no_measure)
    capsys.readouterr()
    assert seats.main(argv) == 0  # everything is there: nothing is fitted again
    assert capsys.readouterr().out.count("already measured") == 2
    with pytest.raises(SystemExit, match="no shipped table for estonian:5"):
        seats.main(["--games", "estonian:5", "--out", str(tmp_path)])


def test_a_table_shipped_since_is_measured_anew_and_the_old_rows_stay_apart(tmp_path, monkeypatch, capsys):
    # a row of `solved` names its table by digest: a table shipped since is no "already measured"
    import experiments.seats as seats
    from strategies.solved import shipped_tables

    argv = ["--games", "russian:3", "--deals", "1024", "--eval-deals", "1024", "--workers", "1", "--out", str(tmp_path)]
    assert seats.main(argv) == 0
    rows = json.loads((tmp_path / "seats.json").read_text())["rows"]
    (tf,) = [t for t in shipped_tables("russian") if t.n_players == 3]
    assert rows[0]["table"] == seats.table_digest(tf.path) and "table" not in rows[1]  # the built-in has none
    rows[0]["table"] = "0123456789abcdef"  # as if it measured a table shipped before this one
    rows[0]["sum"] = dict(rows[0]["sum"], gain=0.5)  # a figure the new row cannot repeat
    (tmp_path / "seats.json").write_text(json.dumps({"rows": rows}))
    capsys.readouterr()
    assert seats.main(argv) == 0
    out = capsys.readouterr().out
    assert "russian:3 solved: already measured" not in out and "russian:3 place=conceal: already measured" in out
    after = json.loads((tmp_path / "seats.json").read_text())["rows"]
    assert [r.get("table") for r in after] == ["0123456789abcdef", None, seats.table_digest(tf.path)]
    md = (tmp_path / "seats.md").read_text()
    assert md.count("| `solved` |") == 1 and "+0.50000" not in md  # only the shipped table's row is shown
    assert "One row of a `solved` table shipped before stays in seats.json" in md
    assert seats.current(after) == after[1:]


def spy_on_exploit(monkeypatch, arg: str) -> list:
    """The list that each later measurement appends its keyword ``arg`` to: the call of
    simcore.exploit.exploit for its seat 0 (experiments.seats makes one a seat)."""
    import importlib

    module = importlib.import_module("simcore.exploit")  # the module: simcore.exploit is also the function
    used = []
    real = module.exploit

    def spy(*a, **k):
        if k["seat"] == 0:
            used.append(k[arg])
        return real(*a, **k)

    monkeypatch.setattr(module, "exploit", spy)
    return used


def test_finer_buckets_are_measured_apart_and_listed_after_the_coarse(tmp_path, monkeypatch):
    import experiments.seats as seats

    used = spy_on_exploit(monkeypatch, "abstraction")
    base = ["--games", "russian:3", "--deals", "1024", "--eval-deals", "1024", "--workers", "1", "--out", str(tmp_path)]
    assert seats.main(base + ["--abstraction", "medium"]) == 0
    assert seats.main(base) == 0  # coarse: another budget, so measured, not skipped
    assert used == ["medium", "medium", "coarse", "coarse"]
    rows = json.loads((tmp_path / "seats.json").read_text())["rows"]
    assert [r["abstraction"] for r in rows] == ["medium", "medium", "coarse", "coarse"]
    md = (tmp_path / "seats.md").read_text()
    coarse, medium = md.index("## russian, 3 players\n"), md.index("## russian, 3 players, medium BR")
    assert coarse < medium  # the coarse BR first, whatever order they were measured in
    assert "BR: medium, 1,024 fitting deals a stage" in md and "BR: coarse, 1,024 fitting deals a stage" in md


def test_a_zero_budget_is_an_error_not_the_recorded_one(tmp_path, capsys):
    import experiments.seats as seats

    base = ["--games", "russian:3", "--deals", "4096", "--eval-deals", "4096", "--workers", "1", "--seed", "7"]
    for flag, bad in (("--deals", "0"), ("--eval-deals", "-5"), ("--workers", "two"), ("--seed", "-1")):
        argv = list(base)
        argv[argv.index(flag) + 1] = bad
        with pytest.raises(SystemExit) as stop:
            seats.main(argv + ["--out", str(tmp_path)])
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert f"argument {flag}:" in err and repr(bad) in err
    assert not (tmp_path / "seats.json").exists()
    # Called as a library, a zero budget is still refused by name, before any deal is played.
    with pytest.raises(ValueError, match="positive integer, got 0"):
        seats.measure(seats.plans(["russian:3"], deals=0, eval_deals=4096)[0], "solved", 1)


def test_the_ratio_needs_a_resolved_built_in():
    from experiments.seats import ratio

    def row(g, lo, hi):
        return {"sum": {"gain": g, "ci_low": lo, "ci_high": hi}}

    assert ratio(row(0.001, 0.0, 0.002), row(0.004, 0.003, 0.005)) == pytest.approx((0.25, 0.5))
    assert ratio(row(0.001, 0.0, 0.002), row(0.004, -0.001, 0.009)) is None


def test_two_budgets_of_one_bucket_set_get_headings_apart():
    # russian 4, fine BR, at 262,144 and 524,288 fitting deals: both sections were headed alike
    from experiments.seats import render

    def row(field, deals, gain):
        g = {"gain": gain, "ci_low": gain / 2, "ci_high": 2 * gain}
        return {"game": "russian", "players": 3, "abstraction": "fine", "deals": deals, "eval_deals": 4096,
                "seed": 1, "field": field, "unit": "pot share", "seats": [dict(g, seat=k) for k in range(3)],
                "sum": g}

    rows = [row("solved", d, 0.001) for d in (8192, 4096)] + [row("place=conceal", d, 0.01) for d in (8192, 4096)]
    md = render(rows)
    assert md.index("## russian, 3 players, fine BR, 4,096 fitting deals\n") < md.index(
        "## russian, 3 players, fine BR, 8,192 fitting deals\n")
    assert "fitting deals\n" not in render(rows[::2])  # one budget: the plain heading
    assert "## russian, 3 players, fine BR\n" in render(rows[::2])


def test_a_budget_is_named_as_a_share_of_the_judge_s_under_the_same_buckets_only():
    from experiments.seats import share

    judge = {"abstraction": "fine", "deals": 1 << 20, "ratio": 0.1, "ratio_upper": 0.2}
    assert share(1 << 20, "fine", judge) == "all"
    assert share(1 << 18, "fine", judge) == "1/4"
    assert share(3 << 18, "fine", judge) == "0.75"  # not a whole fraction
    assert share(1 << 21, "fine", judge) == "2x"  # more than the judge's
    assert share(3 << 19, "fine", judge) == "1.50"  # more, not a whole multiple
    assert share(1 << 20, "coarse", judge) == "coarse, not the judge's fine"
    assert share(1 << 20, "fine", None) == "-"


def test_the_summary_has_a_line_per_budget_in_the_sections_order():
    from experiments.seats import render, summary

    def row(field, deals, gain, lo, wall=90.0):
        g = {"gain": gain, "ci_low": lo, "ci_high": 2 * gain - lo}
        return {"game": "russian", "players": 3, "abstraction": "fine", "deals": deals, "eval_deals": 4096,
                "seed": 1, "field": field, "unit": "pot share", "seats": [dict(g, seat=k) for k in range(3)],
                "sum": g, "wall_s": wall}

    rows = [row("solved", 8192, 0.001, 0.0005), row("place=conceal", 8192, 0.01, 0.008, 30.0),
            row("solved", 4096, 0.001, 0.0), row("place=conceal", 4096, 0.004, -0.001),
            row("solved", 2048, 0.001, 0.0)]  # no built-in at 2,048: no line
    rows[0]["passes"] = rows[1]["passes"] = 2
    judge = {"russian:3": {"abstraction": "fine", "deals": 8192, "ratio": 0.12, "ratio_upper": 0.25}}
    lines = summary(rows, judge)
    assert len(lines) == 4  # the header, its rule, a line per budget that has both fields
    small, full = lines[2], lines[3]
    assert small.startswith("| russian 3 | fine | - | 4,096 | 1/2 | 2 + 2 |")  # no passes recorded
    assert "| not resolved |" in small
    assert full.startswith("| russian 3 | fine | 2 | 8,192 | all | 2 + 0 |")
    assert "| `place=conceal` +0.01000 [+0.00800, +0.01200] | 0.10 (0.15) | 0.12 (0.25) |" in full
    assert summary(rows)[3].endswith("| 0.10 (0.15) | - |")  # no judge known: no verdict
    md = render(rows, judge)
    assert "BR: fine, 8,192 fitting deals a stage x 2 backward passes, 4,096 fresh deals" in md
    assert "BR: fine, 4,096 fitting deals a stage, 4,096 fresh deals" in md
    assert md.index(full) < md.index("## russian, 3 players, fine BR, 4,096 fitting deals")


def test_passes_are_the_game_s_default_unless_given_and_a_budget_of_their_own(tmp_path, monkeypatch):
    import experiments.seats as seats

    assert seats.default_passes("estonian", 6, {}, "solved") == 2  # exploit's DEFAULT_PASSES
    assert seats.default_passes("russian", 3, {}, "place=conceal") == 1  # a field that reads the cards
    assert seats.default_passes("russian", 3, {}, "place=first-open") == 4  # a rule field
    used, shown = spy_on_exploit(monkeypatch, "passes"), spy_on_exploit(monkeypatch, "progress")
    base = ["--games", "russian:3", "--deals", "1024", "--eval-deals", "1024", "--workers", "1", "--out", str(tmp_path)]
    assert seats.main(base) == 0 and shown == [None, None]  # bars where stderr is a terminal
    assert seats.main(base + ["--passes", "1"]) == 0  # the default, spelt out: nothing measured again
    shown.clear()
    assert seats.main(base + ["--passes", "2", "--no-progress"]) == 0  # another budget
    assert used == [1, 1, 2, 2] and shown == [False, False]
    rows = json.loads((tmp_path / "seats.json").read_text())["rows"]
    assert [r["passes"] for r in rows] == [1, 1, 2, 2]
    md = (tmp_path / "seats.md").read_text()
    one = md.index("## russian, 3 players, 1 backward pass\n")
    two = md.index("## russian, 3 players, 2 backward passes\n")
    assert one < two and "1,024 fitting deals a stage x 2 backward passes," in md[two:]
    assert "| russian 3 | coarse | 2 | 1,024 |" in md and "| russian 3 | coarse | 1 | 1,024 |" in md
    with pytest.raises(SystemExit) as e:
        seats.main(base + ["--passes", "0"])
    assert e.value.code == 2 and used == [1, 1, 2, 2]


@pytest.mark.parametrize("how", ["raised", "returned"])
def test_an_interrupted_measurement_resumes_from_its_checkpoint_with_the_same_figures(how, tmp_path, monkeypatch,
                                                                                     capsys):
    """Ctrl-C in a fit raises KeyboardInterrupt; in a measurement on fresh deals the run returns what
    it finished, marked interrupted. Either way no row is recorded, the checkpoint files stay, and
    the same command again finishes from them with an uninterrupted run's figures."""
    import experiments.seats as seats
    from simcore.engine import runner

    def argv(out):
        return ["--games", "russian:3", "--deals", "1024", "--eval-deals", "1024", "--workers", "1", "--out", str(out)]

    assert seats.main(argv(tmp_path / "whole")) == 0
    whole = json.loads((tmp_path / "whole" / "seats.json").read_text())["rows"]
    assert not (tmp_path / "whole" / seats.PARTIAL).exists()
    capsys.readouterr()

    real, calls = runner.run_comparison, []

    def stopped_at_seat_1(*a, **k):  # the second seat's measurement of the first field
        calls.append(k["hero_seat"])
        if len(calls) == 2 and how == "raised":
            raise KeyboardInterrupt
        r = real(*a, **k)
        if len(calls) == 2:
            r.info.interrupted = True
        return r

    monkeypatch.setattr(runner, "run_comparison", stopped_at_seat_1)
    out = tmp_path / "cut"
    assert seats.main(argv(out)) == 130
    said = capsys.readouterr().out
    assert "solved: interrupted" in said and "  seat 0: " in said and "  seat 1: " not in said
    assert calls == [0, 1]  # it stopped there: seat 2 was not fitted after the Ctrl-C
    assert not (out / "seats.json").exists()  # nothing measured in full: no row
    kept = sorted(f.name.split(".", 1)[1] for f in (out / seats.PARTIAL).iterdir())
    assert "seat0.eval" in kept and "seat1.pass0.fit0" in kept and ("seat1.eval" in kept) == (how == "returned")
    spent = json.loads(next((out / seats.PARTIAL).glob("*.seconds")).read_text())["seconds"]
    assert spent > 0  # the time so far, which the run that finishes it counts
    monkeypatch.setattr(runner, "run_comparison", real)
    assert seats.main(argv(out)) == 0
    cut = json.loads((out / "seats.json").read_text())["rows"]
    strip = [{k: v for k, v in r.items() if k != "wall_s"} for r in whole]
    assert [r.pop("resumed", False) for r in cut] == [True, False]  # the second field began afresh
    assert cut[0]["wall_s"] >= spent
    assert [{k: v for k, v in r.items() if k != "wall_s"} for r in cut] == strip
    assert " (resumed) + " in (out / "seats.md").read_text()  # its minutes are the last part's alone
    assert not (out / seats.PARTIAL).exists()  # the files go once their measurement is done
