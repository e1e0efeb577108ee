"""Russian Hold'em: seats that place by a rule (first-open, by-rank) are played in one
kernel (simcore.variants.russian._play_ruled); it must give exactly what the
decision-by-decision play gives."""
import numpy as np
import pytest

import strategies
from simcore.engine import Table, deal_block, play_block, policy_traits
from simcore.variants import get_variant
from simcore.variants import russian as R
from same_play import spy  # tests/same_play.py

V = get_variant("russian")


def _fn(name):
    return strategies.resolve("russian", "place", name)[1]


def _unruled(fn):
    """The same policy without its ``place_rule``: played decision by decision."""
    def strategy(obs, rng):
        return fn(obs, rng)

    return strategy


def _play(cards, P, fns, forced=None):
    lu = [{"place": (f"seat{p}", f)} for p, f in enumerate(fns)]
    rngs = [np.random.default_rng(10 + p) for p in range(P)]
    return play_block(V, cards, P, lu, rngs, forced, record=True)


def test_the_built_in_rules_declare_themselves():
    assert policy_traits(_fn("first-open"))["place_rule"] == R.PLACE_FIRST_OPEN
    assert strategies.traits("russian", "place", "by-rank")["place_rule"] == R.PLACE_BY_RANK
    for name in ("random", "best-gain", "fight-weak"):
        assert policy_traits(_fn(name)).get("place_rule") is None
        assert not hasattr(_fn(name), "place_rule")  # traits are declared, not set on functions


@pytest.mark.parametrize("P", [2, 3, 4])
@pytest.mark.parametrize("mix", ["by-rank", "first-open", "mixed"])
def test_ruled_play_is_the_decision_by_decision_play(P, mix):
    n = 3000
    cards, _ = deal_block(V, np.full(V.n_slots(P), -1, np.int8), n, P, np.random.default_rng(P))
    names = [mix] * P if mix != "mixed" else [("by-rank", "first-open")[p % 2] for p in range(P)]
    fns = [_fn(x) for x in names]
    assert R._place_rules(Table(V, P, [{"place": ("x", f)} for f in fns], [None] * P), P) is not None
    fast = _play(cards, P, fns)
    slow = _play(cards, P, [_unruled(f) for f in fns])
    for name in ("payoffs", "wins", "ties", "categories", "winning"):
        a, b = getattr(fast, name), getattr(slow, name)
        assert a.dtype == b.dtype and np.array_equal(a, b), name
    assert fast.parts.keys() == slow.parts.keys()
    assert all(np.array_equal(fast.parts[k], slow.parts[k]) for k in fast.parts)
    assert fast.actions.keys() == slow.actions.keys()
    for k in slow.actions:
        assert fast.actions[k].dtype == np.int64 and np.array_equal(fast.actions[k], slow.actions[k]), k
    # the recorded placements, placed again one by one, give the same showdown
    up, placed, down = R.new_state(n, P)
    for r in range(R.ROUNDS):
        for q in range(P):
            R.apply_placements(cards[:, R.card_slot(P, r, q)], q, fast.actions[(q, "place", r)], up, placed, down)
    assert np.array_equal(R.showdown(cards[:, :3], up, down)["payoffs"], fast.payoffs)


def test_forced_actions_or_another_policy_take_the_decision_by_decision_play():
    P, n = 3, 50
    cards, _ = deal_block(V, np.full(V.n_slots(P), -1, np.int8), n, P, np.random.default_rng(0))
    seen = []
    _play(cards, P, [_fn("by-rank"), spy(_fn("by-rank"), seen, "round"), _fn("first-open")])
    assert len(seen) == 12
    forced = {(0, "place", 0): np.full(n, 2, np.int64)}
    out = _play(cards, P, [_fn("by-rank")] * P, forced=forced)
    assert (out.actions[(0, "place", 0)] == 2).all()
