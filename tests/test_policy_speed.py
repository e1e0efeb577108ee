"""The fast policies (issue 13) choose exactly what the code they replaced chose.

The reference is the pre-issue-13 code where it differs from the live code,
frozen in ``tests/frozen_policies.py`` (the Slovak rules on per-row histograms,
the old Estonian ``thoughtful`` pick), and the Estonian potential enumerated over
every turn and river (:func:`strategies.estonian.potential`). Each test compares actions on large random samples,
including samples built to tie, and checks that the samples exercise what
they are meant to (ties, contested discards), so that none holds by
construction. The evaluator's unchecked path is fed garbage: it may return
meaningless values for bad rows but must never read outside its tables.
"""
import itertools
import math

import numpy as np
import pytest

import strategies  # noqa: F401  (registers the policies)
from frozen_policies import actions_disagreeing, old_spec, reference_estonian, reference_slovak, registered_references
from slovak_situations import slovak_situations
from simcore.evaluate import (
    evaluate_choices, evaluate_hands, evaluate_low_a6, evaluate_omaha, group_choices,
)
from strategies.estonian import completion_table, potential, strength_table
from strategies.registry import policies


def _deals(rng, n, k):
    return np.argsort(rng.random((n, 52)), axis=1)[:, :k].astype(np.int8)


def _estonian_obs(d, P):
    """Pass and discard observations of seat 0 from (n, 8) deals: hand, flop, received."""
    n = len(d)
    base = {"legal": np.ones((n, 3), bool), "seat": 0, "n_players": P, "variant": "estonian", "round": 0}
    pass_obs = {**base, "hand": d[:, :3], "flop": d[:, 3:6], "decision": "pass"}
    discard_obs = {**base, "hand": np.ascontiguousarray(d[:, [0, 1, 6]]), "flop": d[:, 3:6],
                   "passed": d[:, 2].copy(), "decision": "discard"}
    return pass_obs, discard_obs


def _compare_estonian(pass_obs, discard_obs):
    for decision, name, obs in (("pass", "keep-potential", pass_obs), ("pass", "thoughtful", pass_obs),
                                ("discard", "best-potential", discard_obs)):
        new = policies("estonian", decision)[name].function(obs, None)
        old = reference_estonian(decision, name)(obs, None)
        bad = np.flatnonzero(new != old)
        assert bad.size == 0, (f"{decision}={name}: {bad.size} of {len(new)} rows differ, first row "
                               f"{bad[0]}: hand {obs['hand'][bad[0]]} flop {obs['flop'][bad[0]]}")


@pytest.mark.parametrize("P, n", [(2, 3000), (3, 3000), (6, 20000), (11, 3000), (15, 3000)])
def test_estonian_potential_policies_agree_with_the_enumeration(P, n):
    rng = np.random.default_rng(500 + P)
    _compare_estonian(*_estonian_obs(_deals(rng, n, 8), P))


def _tied_deals(rng, n):
    """Deals whose hand holds two cards of one rank in suits that neither the flop
    nor the third card (nor, at the discard, the passed card) holds: keeping
    either of them is the same up to swapping two suits, an exact tie."""
    out = []
    while len(out) < n:
        d = _deals(rng, 1, 20)[0]
        r = rng.integers(13)
        a, b = rng.choice(4, 2, replace=False)
        pair = [4 * r + a, 4 * r + b]
        others = [c for c in d if c not in pair and c & 3 not in (a, b)]
        if len(others) < 6:
            continue
        # hand: pair card, third card, pair card; flop; received = pair card's twin at the discard
        out.append([pair[0], others[0], pair[1], *others[1:4], others[4]] + [others[5]])
    d = np.array(out, np.int8)
    # the discard sees [kept, kept, received] = [pair0, pair1, other] with the passed card elsewhere
    return d


def test_estonian_exact_ties_go_the_same_way():
    rng = np.random.default_rng(77)
    d = _tied_deals(rng, 2000)
    pass_obs, _ = _estonian_obs(d, 6)
    # the discard: hand [pair0, pair1, third card], passed card of a third suit
    discard_obs = {**pass_obs, "hand": np.ascontiguousarray(d[:, [0, 2, 1]]), "passed": d[:, 6].copy(),
                   "decision": "discard"}
    _compare_estonian(pass_obs, discard_obs)
    # the sample does tie: discarding either pair card scores the same
    s = potential(discard_obs["hand"], discard_obs["flop"], discard_obs["passed"][:, None], 6)
    assert (np.abs(s[:, 0] - s[:, 1]) < 1e-12).mean() > 0.9


def test_estonian_contested_discards_are_common_in_the_samples():
    # The discard decides most rows from the table alone; rows where two options
    # are within the bound (45 strengths) take the summed path. Both must occur.
    rng = np.random.default_rng(3)
    _, obs = _estonian_obs(_deals(rng, 4000, 8), 6)
    s = potential(obs["hand"], obs["flop"], obs["passed"][:, None], 6) * 990
    top2 = np.sort(s, axis=1)[:, 1:]
    close = (top2[:, 1] - top2[:, 0]) < 45
    assert 0.2 < close.mean() < 0.9


def test_completion_table_is_the_sum_over_two_more_cards():
    P = 6
    table, strength = completion_table(P), strength_table(P)
    rng = np.random.default_rng(9)
    binom = np.array([[math.comb(n, k) for k in range(6)] for n in range(53)])
    for cards in _deals(rng, 40, 5):
        c = np.sort(cards.astype(np.int64))
        idx = sum(binom[c[k], k + 1] for k in range(5))
        rest = [x for x in range(52) if x not in c]
        hands = np.array([list(c) + [t, r] for t, r in itertools.combinations(rest, 2)], np.int8)
        want = float(strength[evaluate_hands(hands)].astype(np.float64).sum())
        assert table[idx] == pytest.approx(want, rel=1e-12, abs=1e-9)
        # a suit relabelling gives exactly the same entry
        perm = rng.permutation(4)
        c2 = np.sort(c // 4 * 4 + perm[c % 4])
        assert table[sum(binom[c2[k], k + 1] for k in range(5))] == table[idx]


@pytest.mark.parametrize("P", [2, 6, 11])
def test_slovak_policies_agree_with_the_histogram_code(P):
    names = ("lower", "threshold", "made-or-draw", "live-outs", "thoughtful")
    changed = {name: 0 for name in names}
    for decision, seat, obs in slovak_situations(P, 6000, 40 + P):
        for name in names:
            new = policies("slovak", decision)[name].function(obs, None)
            old = reference_slovak(name)(obs, None)
            assert np.array_equal(new, old), (decision, seat, name, np.flatnonzero(new != old)[:5])
            changed[name] += int((new > 0).sum())
    assert all(v > 1000 for v in changed.values()), changed  # every policy mucks in the sample


@pytest.mark.parametrize("variant, spec, n", [
    ("estonian", "pass=thoughtful,discard=best-potential", 3000),
    ("estonian", "pass=keep-potential,discard=best-potential", 3000),
    ("slovak", "exchange1=thoughtful,exchange2=thoughtful", 20000),
    ("slovak", "exchange1=live-outs,exchange2=made-or-draw", 20000),
])
def test_whole_games_play_the_same_actions(variant, spec, n):
    with registered_references():
        differ, total = actions_disagreeing(variant, 6, spec, old_spec(spec), n, seed=11)
    assert total == 6 * n * 2 and differ == 0


# -- the evaluator: the fused check, and nothing read outside the tables -----------------------

def test_fused_check_names_a_bad_card_on_the_parallel_path():
    rng = np.random.default_rng(1)
    hands = _deals(rng, 60000, 7)
    for bad_value, what in ((-5, "card value -5"), (52, "card value 52"), (None, "duplicate card")):
        bad = hands.copy()
        if bad_value is None:
            bad[59999, 6] = bad[59999, 0]
        else:
            bad[59999, 3] = bad_value
        with pytest.raises(ValueError, match=f"{what}.*row 59999"):
            evaluate_hands(bad, threads=2)
        with pytest.raises(ValueError, match="row 59999"):
            evaluate_hands(bad, threads=1)
    assert (evaluate_hands(hands, threads=2) == evaluate_hands(hands, threads=1, check=False)).all()


def test_unchecked_calls_survive_any_card_values():
    rng = np.random.default_rng(2)
    good = _deals(rng, 3000, 7)
    garbage = rng.integers(-128, 128, (3000, 7)).astype(np.int8)
    garbage[:100] = -128  # the extremes, repeated
    garbage[100:200] = 127
    mixed = np.where(rng.random((3000, 1)) < 0.5, good, garbage)
    for k in (5, 6, 7):
        v = evaluate_hands(mixed[:, :k], check=False)
        ok = (mixed[:, :k] == good[:, :k]).all(axis=1)
        assert (v[ok] == evaluate_hands(good[ok, :k])).all()  # good rows keep their values
    for arr in (garbage, mixed):
        evaluate_hands(arr, check=False, threads=2)
        evaluate_omaha(arr[:, :4], arr[:, 2:7], check=False)
        evaluate_low_a6(arr[:, :6], check=False)
        evaluate_choices(arr[:, :7], group_choices([(tuple(range(7)), 5)]), check=False)
        evaluate_choices(arr[:, :7], group_choices([(tuple(range(7)), 5)]), kind="low", check=False)
    with pytest.raises(ValueError, match="not in 0..51"):
        evaluate_hands(garbage)


def test_popcount_and_the_safe_tables():
    from numba import njit

    from simcore.kernels import (
        BAD_CARD_BIT, BAD_CARD_KEY, BIT_U8, CARD_BIT, CARD_KEY, KEY_U8, SUIT_START, popcount,
    )

    @njit
    def counts(xs):
        out = np.empty(xs.shape[0], np.int64)
        for i in range(xs.shape[0]):
            out[i] = popcount(xs[i])
        return out

    xs = np.random.default_rng(4).integers(0, 2**63, 1000, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    xs[:3] = [0, 2**64 - 1, 2**63]
    assert counts(xs).tolist() == [bin(int(x)).count("1") for x in xs]
    assert (KEY_U8[:52] == CARD_KEY).all() and (BIT_U8[:52] == CARD_BIT).all()
    assert (KEY_U8[52:] == BAD_CARD_KEY).all() and (BIT_U8[52:] == BAD_CARD_BIT).all()
    # the marker sits above every field of a key: seven good cards never reach it
    assert int(SUIT_START) + 7 * int(CARD_KEY.max()) < int(BAD_CARD_KEY)
