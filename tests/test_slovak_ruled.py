"""Slovak Double Barrel: seats that exchange by a built-in rule are played in one
kernel (simcore.variants.slovak._play_ruled, strategies.slovak.ruled_exchanges),
alternatives (a comparison's lineups, a rollout's actions) together, each seat
that plays alike under every alternative once. It must give exactly what the
decision-by-decision play gives, table by table."""
import numpy as np
import pytest
from numba import njit

import strategies
from simcore.engine import StrategyError, Table, deal_block, play_block, play_tables, policy_traits
from simcore.engine.variant import with_traits
from simcore.variants import get_variant
from simcore.variants import slovak as S
from strategies import slovak as T
from same_play import assert_same_play, spy  # tests/same_play.py

V = get_variant("slovak")
RULES = ("never", "lower", "threshold", "made-or-draw", "live-outs", "thoughtful")
ROUNDS = ("exchange1", "exchange2")


def _fn(name, decision="exchange1"):
    return strategies.resolve("slovak", decision, name)[1]


def _unruled(fn):
    """The same policy without its ``exchange_rule``: played decision by decision."""
    def strategy(obs, rng):
        return fn(obs, rng)

    return strategy


def _lineup(names, ruled=True):
    """names: per seat (exchange1 policy, exchange2 policy)."""
    wrap = (lambda f: f) if ruled else _unruled
    return [{d: (n, wrap(_fn(n, d))) for d, n in zip(ROUNDS, pair)} for pair in names]


def _tables(P, lineups, forced, record=True):
    return [Table(V, P, lu, [np.random.default_rng(10 + p) for p in range(P)], f, None, record)
            for lu, f in zip(lineups, forced)]


def _forced(rng, P, n, seats):
    """Random forced actions for ``seats`` at both exchanges (a muck is always legal:
    two face-down cards, two exchanges), -1 (free) on about a quarter of the rows."""
    out = {}
    for p in seats:
        out[(p, "exchange1")] = rng.integers(-1, 3, n)
        out[(p, "exchange2", 0)] = rng.integers(-1, 3, n)  # the per-round key form
    return out


def test_the_built_in_rules_declare_themselves():
    for code, name in enumerate(RULES):
        for d in ROUNDS:
            assert policy_traits(_fn(name, d))["exchange_rule"] == (code, T.ruled_exchanges)
    assert policy_traits(_fn("random")).get("exchange_rule") is None


@pytest.mark.parametrize("P", [2, 3, 6, 11])
@pytest.mark.parametrize("mix", ["own cards", "live", "mixed"])
def test_ruled_alternatives_are_the_decision_by_decision_play(P, mix):
    """Three alternatives on one block: the base lineup, the same with another seat's
    actions forced, and another lineup for one seat; with and without forced
    actions elsewhere."""
    n = 2000
    rng = np.random.default_rng(P)
    cards, _ = deal_block(V, np.full(V.n_slots(P), -1, np.int8), n, P, rng)
    pool = {"own cards": RULES[:4], "live": RULES[4:], "mixed": RULES}[mix]
    names = [tuple(rng.choice(pool, 2)) for _ in range(P)]
    other = list(names)
    other[P - 1] = tuple(rng.choice(pool, 2))
    forced0 = _forced(rng, P, n, [0])
    forced1 = {**forced0, **_forced(rng, P, n, [1])}
    lineups = [names, names, other]
    forced = [forced0, forced1, forced0]
    assert S._play_ruled(cards, P, _tables(P, [_lineup(x) for x in lineups], forced)) is not None  # no fall-back
    fast = play_tables(V, cards, _tables(P, [_lineup(x) for x in lineups], forced))
    for k, (x, f) in enumerate(zip(lineups, forced)):
        slow = play_block(V, cards, P, _lineup(x, ruled=False), [np.random.default_rng(10 + p) for p in range(P)],
                          f, record=True)
        assert_same_play(fast[k], slow)
        # and alone (play_block: a table of its own)
        assert_same_play(play_block(V, cards, P, _lineup(x), [np.random.default_rng(0)] * P, f, record=True), slow)


def test_seats_that_play_alike_are_played_once():
    """Own-card rules everywhere: an alternative that forces seat 2 replays seat 2
    alone; with a live rule anywhere, every seat is played again."""
    P, n = 4, 500
    cards, _ = deal_block(V, np.full(V.n_slots(P), -1, np.int8), n, P, np.random.default_rng(1))
    up = np.empty((2, n, P, 2), np.int8)
    flop, in_sight = np.empty((n, 3), np.int8), np.empty(n, np.uint64)
    S._split_deal(cards, P, up[0], flop, in_sight)
    up[1] = up[0]
    forced = np.full((2, 2, P, n), -1, np.int8)
    forced[1, 0, 2] = 1
    same = np.empty((2, P), np.bool_)
    actions = np.empty((2, 2, P, 1), np.int64)
    codes = np.full((2, 2, P), 3, np.int8)  # made-or-draw
    assert T.ruled_exchanges(cards, flop, in_sight, codes, forced, up.copy(), False, actions, same) == -1
    assert same.tolist() == [[True] * P, [True, True, False, True]]
    codes[:, 1, 3] = 5  # thoughtful reads the other seats' cards
    assert T.ruled_exchanges(cards, flop, in_sight, codes, forced, up.copy(), False, actions, same) == -1
    assert same.tolist() == [[True] * P, [False] * P]


def test_an_action_out_of_range_gets_the_decision_path_error():
    # (a muck is always legal: two face-down cards, two exchanges; what a forced
    # action can get wrong is its range)
    P, n = 3, 40
    cards, _ = deal_block(V, np.full(V.n_slots(P), -1, np.int8), n, P, np.random.default_rng(2))
    bad = {(0, "exchange1"): np.where(np.arange(n) == 7, 3, -1)}
    for lineup in (_lineup([("never", "never")] * P), _lineup([("never", "never")] * P, ruled=False)):
        with pytest.raises(StrategyError, match=r"forced action 3 is illegal for exchange1 \(round 0\) "
                                                r"of seat 0 \(deal 7\)"):
            play_block(V, cards, P, lineup, [np.random.default_rng(0)] * P, bad)


def test_a_user_strategy_anywhere_takes_the_decision_by_decision_play():
    P, n = 3, 60
    cards, _ = deal_block(V, np.full(V.n_slots(P), -1, np.int8), n, P, np.random.default_rng(4))
    seen = []
    lineup = _lineup([("lower", "lower")] * P)
    lineup[1] = {"exchange1": ("lower", _fn("lower")), "exchange2": ("spy", spy(_fn("lower"), seen, "decision"))}
    fast = play_block(V, cards, P, lineup, [np.random.default_rng(0)] * P, record=True)
    assert seen == ["exchange2"]
    slow = play_block(V, cards, P, _lineup([("lower", "lower")] * P, ruled=False), [np.random.default_rng(0)] * P,
                      record=True)
    assert_same_play(fast, slow)


@njit(nogil=True)
def _card0_decide(up, board, in_sight, legal, seat, code, second):
    """Another policy module's decision function: rule 0 mucks face-up card 0 whenever
    a face-down card is left, rule 1 mucks card 1 at the second exchange only."""
    out = np.zeros(up.shape[0], np.int64)
    for i in range(up.shape[0]):
        if legal[i, 1]:
            out[i] = 1 if code == 0 else (2 if second else 0)
    return out


def _card0_policy(code, kernel=None):
    def strategy(obs, rng):
        return _card0_decide(obs["up"], obs["board"], np.zeros(0, np.uint64), obs["legal"], int(obs["seat"]),
                             code, obs["decision"] == "exchange2")

    return with_traits(strategy, exchange_rule=(code, kernel)) if kernel is not None else strategy


def test_rule_kernel_compiles_the_variants_kernel_for_another_policy_module():
    """rule_kernel(decide, ...) is the variant's one rule kernel for any policy module's
    rules: one kernel per decision function, and it plays them exactly as their
    policies play decision by decision."""
    kernel = S.rule_kernel(_card0_decide, 2)  # neither rule reads the cards in sight
    assert S.rule_kernel(_card0_decide, 2) is kernel and kernel is not T.ruled_exchanges
    P, n = 5, 1500
    cards, _ = deal_block(V, np.full(V.n_slots(P), -1, np.int8), n, P, np.random.default_rng(7))
    codes = [(0, 1), (1, 0), (0, 0), (1, 1), (0, 1)]
    forced = _forced(np.random.default_rng(8), P, n, [2])

    def lineup(ruled):
        return [{d: ("card0", _card0_policy(c, kernel if ruled else None)) for d, c in zip(ROUNDS, pair)}
                for pair in codes]

    assert S._play_ruled(cards, P, _tables(P, [lineup(True)], [forced])) is not None  # no fall-back
    rngs = [np.random.default_rng(10 + p) for p in range(P)]
    assert_same_play(play_block(V, cards, P, lineup(True), rngs, forced, record=True),
                     play_block(V, cards, P, lineup(False), rngs, forced, record=True))
