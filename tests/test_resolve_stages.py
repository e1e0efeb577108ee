"""experiments.solved.resolve with a two-stage record (a coarse solve, then a finer one started from its
table, as the shipped Estonian and Slovak tables were made): both stages are solved again, the second
from the first's new table, and the result is the same table as the two stages run by hand."""
from __future__ import annotations

import json

import numpy as np
import pytest

from experiments import solved


@pytest.mark.parametrize("fit", ["backward", "one-play"])  # a stage's fit travels in its record too
def test_two_stages_are_re_solved_in_order(tmp_path, fit):
    from simcore.solve import solve
    from strategies.table import load_table

    stage = dict(iterations=1, deals_per_iteration=2048, eval_deals=2048, seed=4, confidence=0.95, method="fp",
                 validate=False, measure_every=None)
    first = dict(stage, abstraction="coarse", init="thoughtful")
    made = tmp_path / "made"
    made.mkdir()
    kw = dict(passes=1, executor="threads", workers=1)
    solve("slovak", 6, iterations=1, abstraction="coarse", deals_per_iteration=2048, eval_deals=2048, seed=4,
          init="thoughtful", confidence=0.95, out=str(made / "one.npz"), **kw)
    init = f"exchange1=table:{made / 'one.npz'},exchange2=table:{made / 'one.npz'}"
    # two iterations: the table keeps a BR (one iteration keeps its start)
    # the one-play case as Slovak's shipped record has it: every BR whole (start weight 0), the newest kept
    how = {"fit": fit, "start_weight": 0, "keep": "newest"} if fit != "backward" else {}
    second = dict(stage, iterations=2, abstraction="exchange1=medium,exchange2=coarse", init=init, seed=5,
                  init_table=str(made / "one.npz"), **how)
    solve("slovak", 6, iterations=2, abstraction=second["abstraction"], deals_per_iteration=2048, eval_deals=2048,
          seed=5, init=init, confidence=0.95, out=str(made / "two.npz"), **dict(how, fit=fit), **kw)
    bench = tmp_path / "bench.json"
    bench.write_text(json.dumps({"solve": first, "refine": {"solve": second}}))
    entry = solved.table_entry("slovak", str(made / "two.npz"))
    r = solved.resolve(entry, tmp_path / "again", workers=1, executor="threads", bench=bench)
    again = load_table(str(tmp_path / "again" / "slovak_6.npz"))
    assert again.abstraction == "exchange1=medium,exchange2=coarse"
    assert str(tmp_path / "again" / "slovak_6_stage1.npz") in again.meta["init"]
    assert r["settings"]["stage1"]["abstraction"] == "coarse"
    assert r["settings"].get("fit", "backward") == fit and again.meta.get("fit", "backward") == fit
    for k in ("start_weight", "keep"):  # what the stage was run with is in the report
        assert r["settings"].get(k) == how.get(k)
    two = load_table(str(made / "two.npz"))
    for d in two.decisions:  # the same seeds and settings: the same table
        assert np.array_equal(two.arrays[d], again.arrays[d])
    assert all(r["identical_to_shipped"].values())


def test_three_stages_are_re_solved_each_from_the_previous_new_table(tmp_path):
    from simcore.solve import solve
    from strategies.table import load_table

    kw = dict(passes=1, executor="threads", workers=1, deals_per_iteration=2048, eval_deals=2048, iterations=1)
    made = tmp_path / "made"
    made.mkdir()
    stages = [("coarse", "thoughtful", 4), ("exchange1=medium,exchange2=coarse", None, 5),
              ("exchange1=medium,exchange2=fine", None, 6)]
    record, prev = {}, None
    for k, (abstraction, init, seed) in enumerate(stages, start=1):
        init = init or f"exchange1=table:{prev},exchange2=table:{prev}"
        path = str(made / f"s{k}.npz")
        solve("slovak", 6, abstraction=abstraction, seed=seed, init=init, confidence=0.95, out=path, **kw)
        s = dict(iterations=1, deals_per_iteration=2048, eval_deals=2048, seed=seed, confidence=0.95, method="fp",
                 validate=False, measure_every=None, abstraction=abstraction, init=init)
        if prev is None:
            record["solve"] = {k: x for k, x in s.items() if k != "method"}  # older records name none: fp
        else:
            record.setdefault("refine", []).append({"solve": dict(s, init_table=prev)})
        prev = path
    bench = tmp_path / "bench.json"
    bench.write_text(json.dumps(record))
    r = solved.resolve(solved.table_entry("slovak", prev), tmp_path / "again", workers=1, executor="threads",
                       bench=bench)
    again = load_table(str(tmp_path / "again" / "slovak_6.npz"))
    assert again.abstraction == "exchange1=medium,exchange2=fine"
    assert str(tmp_path / "again" / "slovak_6_stage2.npz") in again.meta["init"]  # from the new second stage
    assert load_table(str(tmp_path / "again" / "slovak_6_stage2.npz")).meta["init"].count("slovak_6_stage1.npz") == 2
    assert [x["abstraction"] for x in r["settings"]["earlier_stages"]] == [a for a, _, _ in stages[:2]]
    assert [x["method"] for x in r["settings"]["earlier_stages"]] == ["fp", "fp"]
    last = load_table(prev)
    for d in last.decisions:
        assert np.array_equal(last.arrays[d], again.arrays[d])
    assert all(r["identical_to_shipped"].values())


def test_a_re_solved_first_stage_is_compared_with_the_shipped_tables_first_stage():
    """The shipped Estonian table was refined from a coarse one (bundled in starts/, startK.npz being
    K stages before it): a re-solve of the coarse stage alone is compared with that one, and a table
    over the shipped buckets with the shipped."""
    import glob
    import re

    from strategies.solved import TABLES_DIR
    from strategies.table import load_table

    entry = next(e for e in solved.shipped() if e["game"] == "estonian")
    coarse = [p for p in sorted(glob.glob(f"{TABLES_DIR}/starts/estonian-6p.start*.npz"))
              if load_table(p).abstraction == "coarse"]
    assert len(coarse) == 1, coarse
    back = int(re.search(r"start(\d+)\.npz$", coarse[0]).group(1))
    got, which = solved._same_stage(entry, coarse[0])
    assert got["path"] == coarse[0] and which.startswith(f"the stage {back} before")
    assert solved._same_stage(entry, entry["path"]) == (entry, "shipped")


def test_ship_bundles_the_stages_and_names_the_record_that_re_solves_them(tmp_path, monkeypatch):
    from experiments import bench_solve
    from simcore import simulate
    from simcore.solve import solve
    from strategies.table import load_table

    kw = dict(passes=1, executor="threads", workers=1, deals_per_iteration=2048, eval_deals=2048, iterations=1,
              confidence=0.95)
    one, two = str(tmp_path / "one.npz"), str(tmp_path / "two.npz")
    solve("slovak", 6, abstraction="coarse", seed=4, init="thoughtful", out=one, **kw)
    solve("slovak", 6, abstraction="exchange1=medium,exchange2=coarse", seed=5,
          init=f"exchange1=table:{one},exchange2=table:{one}", out=two, **kw)
    monkeypatch.setattr(bench_solve, "SHIP_DIR", tmp_path / "ship")
    record = tmp_path / "bench.json"
    dest = bench_solve.ship("slovak", 6, two, {"gain": 0.0}, record=str(record))
    shipped = tmp_path / "ship" / "slovak-6p.npz"
    tf = load_table(shipped)
    assert dest.endswith("slovak-6p.npz") and tf.meta["record"] == str(record) and tf.meta["exploitability"] == {
        "gain": 0.0}
    assert tf.header["fallback"]["exchange1"] == "table:starts/slovak-6p.start1.npz"
    want = simulate("slovak", 6, 600, field=f"table:{two}", seed=3, progress=False).table().drop(columns="strategy")
    (tmp_path / "one.npz").unlink()  # the first stage travels with the shipped file
    got = simulate("slovak", 6, 600, field=f"table:{shipped}", seed=3, progress=False).table().drop(columns="strategy")
    assert got.equals(want)
    record.write_text("{}")
    assert solved.record_of({"game": "slovak", "players": 6, "path": str(shipped)}) == record


def test_a_stage_without_init_table_starts_from_the_one_table_its_init_names():
    assert solved.stage_start({"init": "place=table:results/solve/fine256k/russian_3.npz"}) == \
        "results/solve/fine256k/russian_3.npz"
    both = "exchange1=table:a/one.npz,exchange2=table:a/one.npz"
    assert solved.stage_start({"init": both}) == "a/one.npz"
    assert solved.stage_start({"init": both, "init_table": "b/two.npz"}) == "b/two.npz"  # the record's word first
    import pytest
    with pytest.raises(ValueError, match="names 2 tables"):
        solved.stage_start({"init": "exchange1=table:a.npz,exchange2=table:b.npz"})
    with pytest.raises(ValueError, match="names 0 tables"):
        solved.stage_start({"init": "pass=best-made"})


def test_every_shipped_records_later_stages_name_where_they_started():
    """Each refine stage of a committed bench record names one start table (what --full re-solves from)."""
    from pathlib import Path

    for bench in sorted((Path(solved.ROOT) / "results" / "solve").glob("bench_*.json")):
        record = json.loads(bench.read_text())
        later = record.get("refine") or []
        for stage in [later] if isinstance(later, dict) else later:
            assert solved.stage_start(stage.get("solve", stage)).endswith(".npz"), bench


def test_a_partial_run_keeps_the_other_sizes_re_solves(tmp_path):
    """resolved.json after a run of some games: their new rows replace theirs, the other (game,
    players) rows stay, in the games' order; a whole run keeps only its own."""
    path = tmp_path / "resolved.json"
    path.write_text(json.dumps([{"game": g, "players": p, "v": "old"}
                                for g, p in [("estonian", 6), ("russian", 4), ("russian", 3)]]))
    new = [{"game": "russian", "players": 4, "v": "new"}]
    rows = solved._merge_resolved(path, new, {("russian", 4)}, partial=True)
    assert [(r["game"], r["players"], r["v"]) for r in rows] == [
        ("estonian", 6, "old"), ("russian", 4, "new"), ("russian", 3, "old")]
    assert solved._merge_resolved(path, new, {("russian", 4)}, partial=False) == new
    # a size this run meant to re-solve but could not (no record) loses its old row, as before
    assert [r["players"] for r in solved._merge_resolved(path, [], {("russian", 4)}, partial=True)] == [6, 3]


def test_every_shipped_tables_record_names_start_files_that_exist():
    """The record each shipped table's metadata names (what --full re-solves from, chain records
    such as results/solve/oneplay_s6_chain.json included): every later stage starts from a
    committed table file."""
    from pathlib import Path

    for entry in solved.shipped():
        record = json.loads(solved.record_of(entry).read_text())
        assert record["solve"]["iterations"] >= 1, entry["path"]
        later = record.get("refine") or []
        for stage in [later] if isinstance(later, dict) else later:
            start = solved.stage_start(stage.get("solve", stage))
            assert (Path(solved.ROOT) / start).is_file(), (entry["path"], start)


def test_one_shipped_table_is_re_solved_and_merged_alone(tmp_path, monkeypatch):
    """resolve_shipped: the table's row replaces its own in resolved.json, the others stay; a size
    with no shipped table is refused by name."""
    (tmp_path / "resolved.json").write_text(json.dumps([{"game": g, "players": p, "v": "old"}
                                                        for g, p in [("slovak", 6), ("russian", 4)]]))
    seen = []

    def fake(entry, out_dir, workers=None, executor=None):
        seen.append((entry["game"], entry["players"], out_dir, workers, executor))
        return {"game": entry["game"], "players": entry["players"], "v": "new"}

    monkeypatch.setattr(solved, "resolve", fake)
    r = solved.resolve_shipped("slovak", 6, workers=2, executor="processes", out_dir=tmp_path)
    assert r["v"] == "new" and seen == [("slovak", 6, tmp_path, 2, "processes")]
    rows = json.loads((tmp_path / "resolved.json").read_text())
    assert [(x["game"], x["players"], x["v"]) for x in rows] == [("slovak", 6, "new"), ("russian", 4, "old")]
    with pytest.raises(ValueError, match="no shipped slovak table at 5 players"):
        solved.resolve_shipped("slovak", 5, out_dir=tmp_path)


def test_a_candidate_is_re_solved_from_its_chain_and_compared_with_its_own_file(tmp_path, monkeypatch):
    """resolve_candidate: the shipped entry's options with the candidate as its table, the chain given
    as the record, and a report beside the new table; a size with no shipped table is refused by name."""
    seen = []

    def fake(entry, out_dir, workers=None, executor=None, bench=None):
        seen.append((entry["path"], entry["spec"], bench, workers, executor))
        return {"game": entry["game"], "players": entry["players"], "identical_to_shipped": {"pass": True}}

    monkeypatch.setattr(solved, "resolve", fake)
    r = solved.resolve_candidate("estonian", 6, "c/estonian_6.npz", "c/chain.json", tmp_path / "again")
    assert seen == [("c/estonian_6.npz", "table:c/estonian_6.npz", "c/chain.json", 2, "threads")]
    assert r["compared_with"] == "c/estonian_6.npz" and len(r["loadavg_start"]) == 3
    assert json.loads((tmp_path / "again" / "resolve_report.json").read_text()) == json.loads(json.dumps(r))
    with pytest.raises(ValueError, match="no shipped estonian table at 5 players"):
        solved.resolve_candidate("estonian", 5, "c/estonian_5.npz", "c/chain.json", tmp_path / "no")


def test_a_candidates_re_solve_is_adopted_with_its_paths_moved(tmp_path, monkeypatch):
    """adopt_resolved: the stage files are copied with the paths in their headers rewritten (the last
    stage then starts from the copied first, not the original), the arrays unchanged, and the row,
    compared with the shipped table again, replaces the size's own in resolved.json; a re-solve of
    another size is refused by name."""
    from simcore.solve import solve
    from strategies.table import load_table

    src, dst = tmp_path / "candidate_resolved", tmp_path / "resolved"
    kw = dict(passes=1, executor="threads", workers=1, deals_per_iteration=2048, eval_deals=2048, iterations=1)
    first = src / "estonian_6_stage1.npz"
    src.mkdir()
    solve("estonian", 6, abstraction="coarse", seed=4, out=str(first), **kw)
    solve("estonian", 6, abstraction="medium", seed=5, init=f"pass=table:{first},discard=table:{first}",
          out=str(src / "estonian_6.npz"), **kw)
    (src / "resolve_report.json").write_text(json.dumps(
        {"game": "estonian", "players": 6, "table": str(src / "estonian_6.npz"), "wall_s": 1.0,
         "identical_to_shipped": {"pass": False}, "compared_with": "x", "loadavg_start": [0, 0, 0],
         "loadavg_end": [1, 1, 1]}))
    (dst / "x").mkdir(parents=True)
    (dst / "resolved.json").write_text(json.dumps([{"game": "estonian", "players": 6, "v": "old"},
                                                   {"game": "slovak", "players": 6, "v": "old"}]))
    monkeypatch.setattr(solved, "shipped_entry",
                        lambda g, p: solved.table_entry(g, str(src / "estonian_6.npz")))
    row = solved.adopt_resolved("estonian", 6, src, dst)
    moved = load_table(dst / "estonian_6.npz")
    assert str(dst / "estonian_6_stage1.npz") in moved.meta["init"] and str(src) not in json.dumps(moved.header)
    orig = load_table(src / "estonian_6.npz")
    assert all(np.array_equal(moved.arrays[d], orig.arrays[d]) for d in orig.decisions)
    assert (dst / "estonian_6_stage1.json").exists() and (dst / "estonian_6.png").exists()
    assert row["table"] == str(dst / "estonian_6.npz") and "loadavg_start" not in row
    assert row["compared_with"] == "shipped" and all(row["identical_to_shipped"].values())
    assert row["same_play"]["same"]
    rows = json.loads((dst / "resolved.json").read_text())
    assert [(r["game"], r.get("v")) for r in rows] == [("estonian", None), ("slovak", "old")]
    with pytest.raises(ValueError, match="re-solved estonian at 6 players, not estonian at 4"):
        solved.adopt_resolved("estonian", 4, src, dst)
