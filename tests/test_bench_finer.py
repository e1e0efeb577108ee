"""experiments/bench_finer.py: the verdict of its table (a quarter of the built-in's BR gain, judged on the
solved table's upper 95% end; "not resolvable" when the built-in's interval reaches zero), a candidate
table's own line, and rows that another run added to the same file meanwhile are kept."""
from __future__ import annotations

import json

from experiments import bench_finer as bf


def _row(field, gain, lo, hi, abstraction="medium", game="estonian", P=6, deals=1 << 22):
    return {"game": game, "players": P, "field": field, "abstraction": abstraction, "deals": deals,
            "eval_deals": 1 << 20, "seed": 2024, "gain": gain, "ci_low": lo, "ci_high": hi}


def _verdicts(md: str) -> dict:
    lines = [ln for ln in md.splitlines()[2:] if ln.startswith("|")]
    return {ln.split("|")[1].strip(): ln.split("|")[-2].strip() for ln in lines if "| medium |" in ln}


def test_quarter_is_judged_on_the_upper_end():
    rows = [_row("solved", 0.00009, 0.00004, 0.00014), _row("b", 0.00036, 0.00027, 0.00044)]
    assert _verdicts(bf.render(rows)) == {"estonian 6": "no"}  # 0.00014 > 0.00036 / 4
    rows[0] = _row("solved", 0.00005, 0.00001, 0.00009)
    assert _verdicts(bf.render(rows)) == {"estonian 6": "yes"}  # 0.00009 <= 0.00009


def test_a_built_in_the_br_cannot_resolve_is_said_so():
    rows = [_row("solved", 0.0, -0.0001, 0.0001), _row("b", 0.00007, -0.00007, 0.00022)]
    assert _verdicts(bf.render(rows))["estonian 6"].startswith("not resolvable")


def test_a_candidate_has_its_own_line_against_the_same_built_in():
    rows = [_row("solved", 0.00115, 0.00096, 0.00135), _row("b", 0.0019, 0.0017, 0.0021),
            _row("table:x.npz", 0.0003, 0.0002, 0.0004), _row("b", 0.0019, 0.0017, 0.0021, abstraction="coarse")]
    v = _verdicts(bf.render(rows))
    assert v == {"estonian 6": "no", "estonian 6 (x.npz)": "yes"}


def test_rows_written_or_edited_meanwhile_are_kept(tmp_path):
    # The file's rows win: rows another run added, and a note or label added by hand while this
    # run measured (the seventeenth session lost a hand-written note to a judge that had read the
    # file before it), stay; this run's new rows are added once.
    path = tmp_path / "finer.json"
    old = _row("solved", 0.1, 0.0, 0.2)
    mine = _row("table:x.npz", 0.3, 0.2, 0.4)
    edited = dict(old, note="relabelled by hand")
    theirs = [_row("b", 0.2, 0.1, 0.3), edited]
    path.write_text(json.dumps({"rows": theirs}))
    merged = bf._merged(path, [old, mine], [mine])
    assert [r["field"] for r in merged] == ["b", "solved", "table:x.npz"]
    assert merged[1]["note"] == "relabelled by hand"
    path.write_text(json.dumps({"rows": merged}))
    assert bf._merged(path, merged, [mine]) == merged  # written once
    assert bf._merged(tmp_path / "none.json", [old, mine], [mine]) == [old, mine]


def test_annotate_writes_the_finer_figures_that_pvsim_strategies_prints(tmp_path):
    import shutil

    import numpy as np

    from strategies.solved import TABLES_DIR, exploitability_lines
    from strategies.table import load_table

    path = tmp_path / "estonian-6p.npz"
    shutil.copyfile(f"{TABLES_DIR}/estonian-6p.npz", path)
    before = load_table(str(path))
    rows = [_row("solved", 0.00009, 0.00004, 0.00014), _row("b", 0.00036, 0.00027, 0.00044),
            _row("table:x.npz", 0.0, -0.1, 0.1), _row("solved", 0.1, 0.0, 0.2, game="slovak")]
    assert bf.annotate(rows, [before]) == [str(path)]
    after = load_table(str(path))
    for d in before.decisions:  # the table itself is unchanged
        assert np.array_equal(before.arrays[d], after.arrays[d])
    finer = after.meta["exploitability"]["finer"]
    assert [(f["abstraction"], f["gain"], f["builtin"], f["builtin_gain"]) for f in finer] == [
        ("medium", 0.00009, "b", 0.00036)]
    assert after.meta["exploitability"]["gain"] == before.meta["exploitability"]["gain"]
    row = next(ln for ln in exploitability_lines(after) if "medium, 4,194,304 fitting deals" in ln)  # pvsim strategies
    assert "+0.00009 [+0.00004, +0.00014]   b +0.00036 [+0.00027, +0.00044]" in row  # b: that BR's least exploitable


def test_the_least_exploitable_built_in_under_each_br_is_the_reference():
    rows = [_row("solved", 0.0002, 0.0001, 0.0003), _row("b", 0.0019, 0.0017, 0.0021),
            _row("c", 0.0008, 0.0006, 0.0010)]
    md = bf.render(rows)
    assert "| c |" in md and "| b |" not in md
    assert _verdicts(md) == {"estonian 6": "no"}  # 0.0003 > 0.0008 / 4


def test_best_bounds_take_each_policys_strongest_br():
    # the coarse BR finds more in the built-in than the medium one (its buckets are visited more often);
    # the table's strongest BR is the medium one: each is judged by its own largest gain
    rows = [_row("solved", 0.00006, -0.00002, 0.00014, abstraction="coarse"),
            _row("solved", 0.00023, 0.00011, 0.00035),
            _row("b", 0.0020, 0.0017, 0.0022, abstraction="coarse"), _row("b", 0.00113, 0.00091, 0.00136)]
    (b,) = bf.best_bounds(rows)
    assert (b["table"]["abstraction"], b["builtin"]["abstraction"]) == ("medium", "coarse")
    assert b["verdict"] == "yes"  # 0.00035 <= 0.0020 / 4, though 0.00035 > 0.00113 / 4 at medium alone
    assert _verdicts(bf.render(rows)) == {"estonian 6": "no"}
    assert "| estonian 6 | coarse 4M, medium 4M | +0.00023 [+0.00011, +0.00035] (medium 4M) |" in bf.render_bounds(rows)


def test_best_bounds_skip_a_built_in_without_the_tables_brs():
    # c was measured only at medium: its smaller figure there cannot stand against b's coarse one
    rows = [_row("solved", 0.0001, 0.0000, 0.0002, abstraction="coarse"), _row("solved", 0.0001, 0.0000, 0.0002),
            _row("b", 0.0020, 0.0017, 0.0022, abstraction="coarse"), _row("b", 0.0011, 0.0009, 0.0013),
            _row("c", 0.0005, 0.0003, 0.0007), _row("table:x.npz", 0.0006, 0.0004, 0.0008)]
    bounds = bf.best_bounds(rows)
    assert [(b["table"]["field"], b["builtin"]["field"], b["verdict"]) for b in bounds] == [
        ("solved", "b", "yes"), ("table:x.npz", "c", "no")]  # x has only the medium BR, where c counts
    rows = [_row("solved", 0.0, -0.0001, 0.0001), _row("b", 0.00007, -0.00007, 0.00022)]
    assert bf.best_bounds(rows)[0]["verdict"].startswith("not resolvable")


def test_render_rewrites_the_markdown_without_measuring(tmp_path, monkeypatch):
    path = tmp_path / "finer.json"
    rows = [_row("solved", 0.00009, 0.00004, 0.00014), _row("b", 0.00036, 0.00027, 0.00044)]
    path.write_text(json.dumps({"rows": rows}))
    monkeypatch.setattr(bf, "measure", lambda *a, **k: (_ for _ in ()).throw(AssertionError("measured")))
    assert bf.main(["--render", "--out", str(path)]) == 0
    assert path.with_suffix(".md").read_text() == bf._markdown(rows)
    assert json.loads(path.read_text())["rows"] == rows  # the rows are untouched


def test_annotate_takes_every_judge_seed_and_pvsim_strategies_names_them(tmp_path):
    # A second judge seed (finer_seed7.json beside finer.json) is a judge like any other: its rows go into
    # the metadata after seed 2024's, each row names its seed, and the verdict takes the strongest judge,
    # here seed 7's (0.00013 of 0.00073, upper end 0.00017: 0.23, within a quarter).
    import shutil

    from strategies.solved import TABLES_DIR, exploitability_lines
    from strategies.table import load_table

    first = [_row("solved", 0.00005, 0.00001, 0.00009), _row("b", 0.00060, 0.00048, 0.00072)]
    second = [dict(r, seed=7) for r in (_row("solved", 0.00013, 0.00008, 0.00017), _row("b", 0.00073, 0.00061, 0.00085))]
    (tmp_path / "finer_seed7.json").write_text(json.dumps({"rows": second}))
    (tmp_path / "finer.json").write_text(json.dumps({"rows": first}))
    (tmp_path / "other.json").write_text(json.dumps({"rows": [_row("solved", 0.1, 0.0, 0.2)]}))  # not a judge file
    assert bf.judge_rows(tmp_path / "finer.json") == first + second
    assert bf.judge_rows(tmp_path / "finer_seed7.json") == second + first

    path = tmp_path / "estonian-6p.npz"
    shutil.copyfile(f"{TABLES_DIR}/estonian-6p.npz", path)
    bf.annotate(bf.judge_rows(tmp_path / "finer.json"), [load_table(str(path))])
    finer = load_table(str(path)).meta["exploitability"]["finer"]
    assert [(f["seed"], f["gain"], f["builtin_gain"]) for f in finer] == [(2024, 0.00005, 0.00060), (7, 0.00013, 0.00073)]
    lines = exploitability_lines(load_table(str(path)))
    assert any(ln.strip().startswith("coarse, 1,048,576 fitting deals, seed 2024") for ln in lines)  # the solve's own
    assert any(ln.strip().startswith("medium, 4,194,304 fitting deals, seed 7 ") and ln.split()[-1] == "0.18"
               and "+0.00013 [+0.00008, +0.00017]" in ln for ln in lines)
    verdict = next(ln for ln in lines if ln.startswith("by each one's strongest BR"))
    assert verdict.startswith("by each one's strongest BR (medium, 4,194,304 fitting deals, seed 7): 0.18 of")
    assert "upper end 0.23" in verdict and "target met" in verdict
    # one seed only: rows are not labelled with it
    bf.annotate(first, [load_table(str(path))])
    assert not any("seed 2024   " in ln for ln in exploitability_lines(load_table(str(path))))


def test_candidates_and_built_ins_are_matched_to_games_by_spec_and_a_bad_one_is_refused(tmp_path, monkeypatch,
                                                                                        capsys):
    import pytest

    measured = []

    def fake_measure(game, P, field, a, deals, eval_deals, seed, workers, executor):
        measured.append((game, P, field, a))
        return dict(_row(field, 0.001, 0.0, 0.002, abstraction=a, game=game, P=P, deals=deals), wall_s=0.0)

    monkeypatch.setattr(bf, "measure", fake_measure)
    out = str(tmp_path / "finer.json")
    # a bare game name is the usual 6 players, on either side of the match
    assert bf.main(["--games", "estonian", "--abstractions", "coarse", "--no-solved", "--out", out,
                    "--candidate", "estonian=x.npz", "--builtin", "estonian:6=thoughtful"]) == 0
    assert [m[2] for m in measured] == ["table:x.npz", bf._best_builtin("estonian", 6), "thoughtful"]
    for bad, words in [(["--candidate", "russian:3=x.npz"], "is for russian:3, which --games (russian:4) leaves out"),
                       (["--candidate", "russain:4=x.npz"], "unknown game 'russain'"),
                       (["--builtin", "russian:4"], "write GAME:P=FIELD"),
                       (["--candidate", "russian:5=x.npz"], "got 5")]:
        with pytest.raises(SystemExit) as e:
            bf.main(["--games", "russian:4", "--out", out, *bad])
        assert e.value.code == 2 and words in capsys.readouterr().err
    assert len(measured) == 3  # nothing more ran
