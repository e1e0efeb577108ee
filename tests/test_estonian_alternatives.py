"""Estonian Twist plays a comparison's or a rollout's tables together
(EstonianTwist.play_alternatives), asking a seat with a pure policy once for the
tables that show it the same thing. Each table's outcome and recorded actions
must be exactly those of playing it alone."""
import numpy as np
import pytest

import strategies
from simcore.engine import Table, deal_block, play_block, play_tables, policy_traits, with_traits
from simcore.variants import get_variant
from simcore.variants import estonian as E
from same_play import assert_same_play  # tests/same_play.py

V = get_variant("estonian")
PASSES = ("lowest", "highest", "keep-best", "least-helpful", "thoughtful", "random")
DISCARDS = ("best-made", "best-potential", "lowest", "received", "random")


def _fn(decision, name):
    return strategies.resolve("estonian", decision, name)[1]


def _lineup(names):
    """names: per seat (pass policy, discard policy)."""
    return [{"pass": (a, _fn("pass", a)), "discard": (b, _fn("discard", b))} for a, b in names]


def _streams(P):
    return [np.random.default_rng(100 + p) for p in range(P)]


def test_the_policies_here_are_pure_and_random_is_not():
    for d, names in (("pass", PASSES), ("discard", DISCARDS)):
        for name in names:
            assert policy_traits(_fn(d, name)).get("pure", False) == (name != "random"), (d, name)


@pytest.mark.parametrize("P", [2, 3, 6])
def test_alternatives_are_each_table_played_alone(P):
    """A rollout of seat 0's pass, one of seat 1's discard, another lineup for the last
    seat, and a random policy somewhere: every table as if played alone."""
    n = 3000
    rng = np.random.default_rng(P)
    cards, chance = deal_block(V, np.full(V.n_slots(P), -1, np.int8), n, P, rng)
    names = [(rng.choice(PASSES), rng.choice(DISCARDS)) for _ in range(P)]
    other = list(names)
    other[P - 1] = ("highest", "lowest")
    shared = {(1, "pass"): rng.integers(0, 3, n)}  # one array in every table, as a rollout forces
    alternatives = [(names, {**shared, (0, "pass"): np.full(n, a)}) for a in range(3)]
    alternatives += [(names, {**shared, (1, "discard"): rng.integers(-1, 3, n)}), (other, dict(shared))]
    tables = [Table(V, P, _lineup(x), _streams(P), f, chance, True) for x, f in alternatives]
    fast = play_tables(V, cards, tables)
    for out, (x, f) in zip(fast, alternatives):
        assert_same_play(out, play_block(V, cards, P, _lineup(x), _streams(P), f, chance, record=True))


def test_a_seat_asked_once_is_asked_once():
    """Three tables that differ only in seat 0's forced pass: at 4 players the pure
    policies of seats 2 and 3 are asked once per decision, seat 1 (who receives seat
    0's card) once for its pass and three times for its discard."""
    P, n = 4, 200
    cards, _ = deal_block(V, np.full(V.n_slots(P), -1, np.int8), n, P, np.random.default_rng(1))
    calls = []

    def counting(decision, name):
        fn = _fn(decision, name)

        def strategy(obs, rng):
            calls.append((obs["seat"], decision))
            return fn(obs, rng)

        return with_traits(strategy, pure=True)

    lineup = [{"pass": ("c", counting("pass", "lowest")), "discard": ("c", counting("discard", "best-made"))}
              for _ in range(P)]
    tables = [Table(V, P, lineup, _streams(P), {(0, "pass"): np.full(n, a)}) for a in range(3)]
    play_tables(V, cards, tables)
    count = {k: calls.count(k) for k in set(calls)}
    assert count == {(1, "pass"): 1, (2, "pass"): 1, (3, "pass"): 1,
                     (0, "discard"): 3, (1, "discard"): 3, (2, "discard"): 1, (3, "discard"): 1}


def test_a_policy_without_pure_is_asked_by_every_table():
    P, n = 3, 100
    cards, _ = deal_block(V, np.full(V.n_slots(P), -1, np.int8), n, P, np.random.default_rng(2))
    calls = []

    def user(obs, rng):  # may keep state or draw from rng: never shared
        calls.append(obs["seat"])
        return np.zeros(len(obs["legal"]), np.int64)

    lineup = [{"pass": ("user", user), "discard": ("best-made", _fn("discard", "best-made"))} for _ in range(P)]
    play_tables(V, cards, [Table(V, P, lineup, _streams(P), {}) for _ in range(3)])
    assert len(calls) == 3 * P
    assert E._asked_before([Table(V, P, lineup, _streams(P), {})] * 2, 1, 0, "pass", lambda b: True) is None
