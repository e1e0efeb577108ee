"""Match chances (first to a target, hand after hand) on cases solved by hand.

The simulated fallback is checked against the exact computation within 4
standard errors, with a fixed seed.
"""
import sys
from pathlib import Path

import numpy as np
import pytest

from simcore.engine import PayoffRows, match_chances, match_probabilities

sys.path.insert(0, str(Path(__file__).parent))


def test_even_coin_first_to_one_is_one_hand():
    win, hands, exact = match_probabilities([[1, 0], [0, 1]], [0.5, 0.5], 1)
    assert exact and win.tolist() == [0.5, 0.5] and hands == 1.0


def test_first_to_two_with_a_sixty_percent_player():
    # Seat 0 wins a hand with p = 0.6: it takes the match by 2-0 (p^2) or 2-1 (2 p^2 (1-p)).
    # The match lasts 2 hands when one seat wins both (p^2 + (1-p)^2), else 3.
    p = 0.6
    win, hands, exact = match_probabilities([[1, 0], [0, 1]], [p, 1 - p], 2)
    assert exact
    assert win[0] == pytest.approx(p**2 + 2 * p**2 * (1 - p))
    assert win[1] == pytest.approx(1 - win[0])
    assert hands == pytest.approx(2 * (p**2 + (1 - p) ** 2) + 3 * 2 * p * (1 - p))


def test_split_pots_count_their_fraction_and_a_tie_splits_the_match():
    # Every hand is split: after two hands both have exactly 1 pot, and tie the match.
    win, hands, _ = match_probabilities([[0.5, 0.5]], [1.0], 1)
    assert win.tolist() == [0.5, 0.5] and hands == 2.0


def test_when_both_pass_the_target_the_highest_total_wins():
    # 3-2 or 2-3 points on the first hand: both pass 2 at once, the higher total takes it.
    win, hands, _ = match_probabilities([[3, 2], [2, 3]], [0.7, 0.3], 2)
    assert win.tolist() == pytest.approx([0.7, 0.3]) and hands == 1.0


def test_equal_totals_past_the_target_split_the_match():
    # Two points each way: 2-1 then 1-2 reaches 3-3 together; 2-1 twice is 4-2.
    q = 0.75
    win, _, _ = match_probabilities([[2, 1], [1, 2]], [q, 1 - q], 3)
    assert win[0] == pytest.approx(q * q + q * (1 - q))  # 4-2, or half of the two 3-3 orders
    assert win[1] == pytest.approx((1 - q) ** 2 + q * (1 - q))


def test_three_seats_first_to_one_after_a_split_pot():
    # A split first hand (0.5, 0.5, 0) leaves everyone short of 1; the second hand then
    # decides as a single hand would, except that another split (1, 1) ties the match.
    rows = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0.5, 0.5, 0]]
    probs = [0.4, 0.3, 0.2, 0.1]
    after_split = np.array([0.4 + 0.1 / 2, 0.3 + 0.1 / 2, 0.2])
    win, hands, _ = match_probabilities(rows, probs, 1)
    assert win.tolist() == pytest.approx(np.array([0.4, 0.3, 0.2]) + 0.1 * after_split)
    assert hands == pytest.approx(0.9 * 1 + 0.1 * 2)


def test_simulated_matches_agree_with_the_exact_chances():
    # Forced to simulate (no score state allowed): within 4 standard errors of exact.
    rows = [[2, 1, 0], [1, 0, 2], [0, 2, 1], [1.5, 1.5, 0]]
    probs = [0.4, 0.3, 0.2, 0.1]
    exact, hands, ok = match_probabilities(rows, probs, 10)
    sim, sim_hands, sim_ok = match_probabilities(rows, probs, 10, max_states=1, n_matches=40_000, seed=3)
    assert ok and not sim_ok
    se = np.sqrt(exact * (1 - exact) / 40_000)
    assert (np.abs(sim - exact) < 4 * se).all()
    assert abs(sim_hands - hands) < 0.05


def test_bootstrap_standard_error_matches_the_binomial_one():
    # First to one pot: the match chance is the hand chance, whose standard error
    # from n deals is sqrt(p (1 - p) / n); the bootstrap must find about that.
    rows = PayoffRows(2, {(1.0, 0.0): 600, (0.0, 1.0): 400})
    m = match_chances(rows, 1, n_boot=200)
    assert m.win[0] == pytest.approx(0.6)
    assert m.stderr[0] == pytest.approx(np.sqrt(0.24 / 1000), rel=0.2)
    assert m.ci_low[0] < 0.6 < m.ci_high[0]


def test_payoff_rows_merge_in_any_split():
    rng = np.random.default_rng(0)
    pay = rng.integers(0, 3, (500, 3)) / 2.0
    whole = PayoffRows.of_block(pay)
    parts = PayoffRows.of_block(pay[:123])
    parts.merge(PayoffRows.of_block(pay[123:]))
    assert whole.counts == parts.counts and whole.n == 500


def test_bad_matches_are_clear_errors():
    with pytest.raises(ValueError, match="never end"):
        match_probabilities([[0, 0]], [1.0], 3)
    with pytest.raises(ValueError, match="target must be positive"):
        match_probabilities([[1, 0]], [1.0], 0)


def test_match_chances_through_a_run():
    # The toy game plays points to 10: chances come with intervals and sum to one.
    from simcore import simulate
    from toy_variant import register_toy, unregister_toy

    register_toy()
    try:
        r = simulate("toy", 3, 6000, seed=1, field="random", match=True, progress=False, threads=2)
    finally:
        unregister_toy()
    t = r.table()
    assert t.match_win.sum() == pytest.approx(1.0)
    assert (t.match_ci_low < t.match_win).all() and (t.match_win < t.match_ci_high).all()
    assert t.match_win[0] > t.match_win[1]  # discarding the lowest card beats random
    d = r.to_dict()
    assert d["unit"] == "points" and d["match"]["target"] == 10.0 and d["match"]["mean_hands"] > 3
    with pytest.raises(ValueError, match="no match target"):
        simulate("estonian", 3, 100, match=True, progress=False)
