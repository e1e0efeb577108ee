"""experiments.solved.resolve with a two-stage record (a coarse solve, then a finer one started from its
table, as the shipped Estonian and Slovak tables were made): both stages are solved again, the second
from the first's new table, and the result is the same table as the two stages run by hand."""
from __future__ import annotations

import json

import numpy as np

from experiments import solved


def test_two_stages_are_re_solved_in_order(tmp_path):
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
    second = dict(stage, abstraction="exchange1=medium,exchange2=coarse", init=init, seed=5,
                  init_table=str(made / "one.npz"))
    solve("slovak", 6, iterations=1, abstraction=second["abstraction"], deals_per_iteration=2048, eval_deals=2048,
          seed=5, init=init, confidence=0.95, out=str(made / "two.npz"), **kw)
    bench = tmp_path / "bench.json"
    bench.write_text(json.dumps({"solve": first, "refine": {"solve": second}}))
    entry = solved.table_entry("slovak", str(made / "two.npz"))
    r = solved.resolve(entry, tmp_path / "again", workers=1, executor="threads", bench=bench)
    again = load_table(str(tmp_path / "again" / "slovak_6.npz"))
    assert again.abstraction == "exchange1=medium,exchange2=coarse"
    assert str(tmp_path / "again" / "slovak_6_stage1.npz") in again.meta["init"]
    assert r["settings"]["stage1"]["abstraction"] == "coarse"
    two = load_table(str(made / "two.npz"))
    for d in two.decisions:  # the same seeds and settings: the same table
        assert np.array_equal(two.arrays[d], again.arrays[d])
    assert all(r["identical_to_shipped"].values())
