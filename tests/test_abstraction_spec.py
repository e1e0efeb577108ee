"""A per-decision abstraction spec ("exchange1=fine,exchange2=coarse"): each decision gets its own
granularity in a best response, a solve and the table file they write; a malformed spec, a missing or
unknown decision and an unknown granularity are errors that name them."""
from __future__ import annotations

import pytest

from simcore.abstraction import get_abstraction, granularity


def test_each_decision_gets_its_own_granularity():
    spec = "exchange1=fine, exchange2=coarse"
    assert granularity(spec, "exchange1") == "fine" and granularity(spec, "exchange2") == "coarse"
    assert granularity("medium", "exchange1") == "medium"
    assert get_abstraction("slovak", "exchange1", 6, spec) == get_abstraction("slovak", "exchange1", 6, "fine")
    assert get_abstraction("slovak", "exchange2", 6, spec) == get_abstraction("slovak", "exchange2", 6, "coarse")


@pytest.mark.parametrize("spec, words", [
    ("exchange1=fine", ["no granularity for 'exchange2'"]),
    ("exchange1=fine,exchange2=huge", ["unknown abstraction 'huge'", "coarse, medium, fine"]),
    ("exchange1=fine,exchange3=coarse", ["'exchange3'", "exchange1, exchange2"]),
    ("exchange1fine,exchange2=coarse", ["'exchange1fine' is not DECISION=GRANULARITY"]),
    ("exchange1=fine,exchange1=coarse", ["'exchange1' twice"]),
])
def test_bad_specs_name_what_is_wrong(spec, words):
    with pytest.raises(ValueError) as e:
        get_abstraction("slovak", "exchange2", 6, spec)
    for w in words:
        assert w in str(e.value)


def test_solve_writes_a_table_that_records_the_spec_and_plays(tmp_path):
    from simcore import simulate
    from simcore.solve import solve
    from strategies.table import load_table

    spec = "exchange1=medium,exchange2=coarse"
    out = tmp_path / "s.npz"
    r = solve("slovak", 6, iterations=1, abstraction=spec, deals_per_iteration=2048, eval_deals=2048, seed=3,
              out=str(out), executor="threads", workers=1)
    assert r.abstraction == spec
    tf = load_table(str(out))
    assert tf.abstraction == spec
    assert tf.arrays["exchange1"].shape[0] == get_abstraction("slovak", "exchange1", 6, "medium").n_buckets
    assert tf.arrays["exchange2"].shape[0] == get_abstraction("slovak", "exchange2", 6, "coarse").n_buckets
    res = simulate("slovak", 6, 512, 1, hero=f"table:{out}", field="thoughtful", executor="threads", workers=1)
    assert res.n_deals == 512
