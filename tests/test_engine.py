"""The engine: dealing, seeds, statistics, paired runs, analysis, errors.

Monte Carlo checks use a fixed seed and a tolerance of 4 standard errors.
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import simcore
import strategies
from simcore import analyze, compare, simulate
from simcore.engine import StrategyError
from simcore.engine.deal import block_seeds, deal
from simcore.engine.stats import PairedStats, SeatStats

# -- dealing ----------------------------------------------------------------


@settings(max_examples=40)
@given(st.lists(st.integers(0, 51), unique=True, max_size=10), st.integers(1, 30), st.integers(0, 2**32))
def test_deal_keeps_known_cards_and_never_repeats_a_card(fixed, n_slots, seed):
    n_slots = max(n_slots, len(fixed))
    known = np.full(n_slots, -1, np.int8)
    pos = np.random.default_rng(seed).permutation(n_slots)[: len(fixed)]
    known[pos] = fixed
    cards = deal(known, 200, np.random.default_rng(seed))
    assert (cards[:, pos] == np.array(fixed, np.int8)).all()
    srt = np.sort(cards, axis=1)
    assert (np.diff(srt, axis=1) > 0).all()
    assert cards.min() >= 0 and cards.max() <= 51


def test_deal_is_uniform():
    # Each card lands in a random slot with probability 1/52: counts within 4 standard errors.
    n = 260_000
    cards = deal(np.full(3, -1, np.int8), n, np.random.default_rng(7))
    counts = np.bincount(cards[:, 2], minlength=52)
    p = 1 / 52
    assert np.all(np.abs(counts - n * p) < 4 * np.sqrt(n * p * (1 - p)) + 1)


@pytest.mark.parametrize("n", [1, 2, 7, 1000, 1001])
def test_shared_deck_dealing_matches_row_by_row_dealing(n):
    # The fast path (one fixed-card pattern, two rows at a time) must give
    # every row exactly what the per-row kernel gives it from the same draws.
    from simcore.engine.deal import _deal_kernel

    rng = np.random.default_rng(n)
    for fixed in ([], [51, 0, 17], list(range(10))):
        known = np.full(29, -1, np.int8)
        known[rng.permutation(29)[: len(fixed)]] = fixed
        fast = deal(known, n, np.random.default_rng(3))
        raw = np.random.default_rng(3).bit_generator.random_raw((n * 29 + 1) // 2)
        slow = np.empty((n, 29), np.int8)
        _deal_kernel(np.tile(known, (n, 1)), raw.view(np.uint32)[: n * 29].reshape(n, 29), slow)
        assert np.array_equal(fast, slow), fixed


def test_block_seeds_depend_on_block_only():
    a = block_seeds(5, 3)[0].generate_state(4)
    b = block_seeds(5, 3)[0].generate_state(4)
    c = block_seeds(5, 4)[0].generate_state(4)
    assert (a == b).all() and not (a == c).all()


# -- Texas Hold'em against exact equities (REFERENCE_VALUES.md) ---------------


def _within(table, seat, exact, k=4.0):
    share, se = table.share[seat], table.stderr[seat]
    assert abs(share - exact) < k * se, (share, se, exact)


def test_holdem_aces_against_a_random_hand():
    # 0.852037 exact (REFERENCE_VALUES.md); fixed seed, 4 standard errors.
    t = simulate("holdem", 2, 600_000, seed=11, hand="Ah Ad", progress=False).table()
    _within(t, 0, 893604787 / 1048786200)


def test_holdem_ak_suited_against_a_random_hand():
    t = simulate("holdem", 2, 600_000, seed=12, hand="As Ks", progress=False).table()
    _within(t, 0, 468769901 / 699190800)


def test_holdem_ak_suited_against_queens():
    # 0.462145 = 197833 / 428076 exact; wins 787,966, ties 6,732 of 1,712,304 boards.
    r = simulate("holdem", 2, 600_000, seed=13, hand="As Ks", extra={"hands": {1: "Qd Qc"}}, progress=False)
    t = r.table()
    _within(t, 0, 197833 / 428076)
    tie = 6732 / 1712304
    assert abs(t.tie_rate[0] - tie) < 4 * np.sqrt(tie * (1 - tie) / r.n_deals)


def _exact_three_way(hands):
    """Exact pot shares of three known hands by enumerating every board."""
    import itertools

    from simcore import evaluate_hands, parse_cards

    held = [parse_cards(h) for h in hands]
    rest = np.setdiff1d(np.arange(52), np.concatenate(held)).astype(np.int8)
    boards = np.array(list(itertools.combinations(rest, 5)), dtype=np.int8)
    values = np.stack(
        [evaluate_hands(np.concatenate([np.broadcast_to(h, (len(boards), 2)), boards], axis=1)) for h in held],
        axis=1,
    )
    best = values.max(axis=1, keepdims=True)
    winners = values == best
    return (winners / winners.sum(axis=1, keepdims=True)).mean(axis=0)


def test_holdem_three_way_matches_exact_enumeration():
    hands = ["Ah Kh", "Qs Qd", "7c 8c"]
    exact = _exact_three_way(hands)
    r = simulate("holdem", 3, 600_000, seed=14, hand=hands[0],
                 extra={"hands": {1: hands[1], 2: hands[2]}}, progress=False)
    t = r.table()
    for seat in range(3):
        _within(t, seat, exact[seat])
    assert abs(t.share.sum() - 1) < 1e-9


# -- reproducibility ------------------------------------------------------------


@pytest.mark.parametrize("variant,players,spec", [
    ("holdem", 6, None),
    ("estonian", 6, "pass=random,discard=random"),
    ("slovak", 5, "random"),
])
def test_same_seed_same_numbers_at_one_and_two_threads(variant, players, spec):
    kw = dict(seed=42, hero=spec, field=spec, progress=False, block_size=4096)
    one = simulate(variant, players, 30_000, threads=1, **kw).table()
    two = simulate(variant, players, 30_000, threads=2, **kw).table()
    assert one.equals(two)
    other = simulate(variant, players, 30_000, seed=43, hero=spec, field=spec, progress=False,
                     threads=2, block_size=4096).table()
    assert not one.share.equals(other.share)


def test_rollout_is_reproducible():
    kw = dict(seed=3, hero="pass=rollout:4", progress=False, block_size=256)
    one = simulate("estonian", 3, 512, threads=1, **kw).table()
    two = simulate("estonian", 3, 512, threads=2, **kw).table()
    assert one.equals(two)


# -- paired comparison --------------------------------------------------------------


def test_paired_interval_covers_the_difference_of_two_independent_runs():
    # Independent long runs give each share; their difference must lie in the paired
    # interval widened by the independent runs' own error (4 standard errors overall).
    kw = dict(field="pass=lowest,discard=best-made", progress=False)
    c = compare("estonian", 4, 200_000, seed=21, a="pass=highest", b="pass=lowest", **kw).to_dict()
    ra = simulate("estonian", 4, 400_000, seed=22, hero="pass=highest", **kw).table()
    rb = simulate("estonian", 4, 400_000, seed=23, hero="pass=lowest", **kw).table()
    diff_indep = ra.share[0] - rb.share[0]
    se_indep = np.hypot(ra.stderr[0], rb.stderr[0])
    assert abs(diff_indep - c["diff"]) < 4 * np.hypot(se_indep, c["diff_stderr"])
    assert c["diff_ci_low"] < c["diff"] < c["diff_ci_high"]
    # Pairing is what makes the difference precise: at equal deals its error is smaller.
    assert c["diff_stderr"] * np.sqrt(200_000 / 400_000) < se_indep


def test_paired_stats_difference_matches_direct_computation():
    rng = np.random.default_rng(0)
    x = rng.random((1000, 3))
    s = PairedStats.of_block(x[:400])
    s.merge(PairedStats.of_block(x[400:]))
    d, se = s.diff(0, 2)
    direct = x[:, 0] - x[:, 2]
    assert d == pytest.approx(direct.mean())
    assert se == pytest.approx(direct.std(ddof=1) / np.sqrt(1000))


def _block_outcome(rng, n, players, hands=2):
    """A random Outcome with pot shares, explicit wins/ties, categories and a part."""
    from simcore.engine import Outcome

    values = rng.integers(0, 4, (n, players))
    o = Outcome.from_values(values.astype(np.int32), rng.integers(-1, 9, (n, players, hands)).astype(np.int8))
    o.parts = {"extra": rng.random((n, players))}
    return o


def _assert_same_fields(a, b):
    """Every dataclass field of two accumulators is equal (arrays elementwise)."""
    import dataclasses

    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        assert np.array_equal(np.asarray(x), np.asarray(y)), f.name


@pytest.mark.parametrize("cut", [1, 100, 499])
def test_seat_stats_merge_equals_one_block(cut):
    # Sums merge exactly in block order: every accumulated field, not just the shares.
    # Payoffs are multiples of 1/4 here, so float sums are exact in any order.
    rng = np.random.default_rng(1)
    o = _block_outcome(rng, 500, 3)
    o.payoffs = np.round(o.payoffs * 4) / 4
    whole = SeatStats.of_outcome(o, ("extra",))
    head, tail = (Outcome_slice(o, slice(0, cut)), Outcome_slice(o, slice(cut, None)))
    parts = SeatStats.of_outcome(head, ("extra",))
    parts.merge(SeatStats.of_outcome(tail, ("extra",)))
    whole.part_sum, parts.part_sum = np.round(whole.part_sum, 9), np.round(parts.part_sum, 9)
    whole.part_sq, parts.part_sq = np.round(whole.part_sq, 9), np.round(parts.part_sq, 9)
    _assert_same_fields(whole, parts)
    assert whole.wins.sum() + whole.ties.sum() > 0 and whole.winning.sum() > 0


def test_paired_stats_merge_equals_one_block():
    rng = np.random.default_rng(2)
    outs = [_block_outcome(rng, 300, 4) for _ in range(3)]
    for o in outs:
        o.payoffs = np.round(o.payoffs * 4) / 4
    whole = PairedStats.of_outcomes(outs, 1)
    parts = PairedStats.of_outcomes([Outcome_slice(o, slice(0, 120)) for o in outs], 1)
    parts.merge(PairedStats.of_outcomes([Outcome_slice(o, slice(120, None)) for o in outs], 1))
    _assert_same_fields(whole, parts)


def Outcome_slice(o, rows):
    from simcore.engine import Outcome

    return Outcome(o.payoffs[rows], o.wins[rows], o.ties[rows], o.categories[rows],
                   None if o.winning is None else o.winning[rows], {k: v[rows] for k, v in o.parts.items()})


@pytest.fixture
def register_for_test():
    """Register policies for one test only, so other tests never see them."""
    added = []

    def reg(variant, decision, name, description, fn=None):
        added.append((variant, decision, name))
        deco = strategies.register(variant, decision, name, description)
        return deco(fn) if fn is not None else deco

    yield reg
    for key in added:
        strategies.unregister(*key)


# -- precision, interruption ----------------------------------------------------------


def test_precision_target_stops_the_run():
    r = simulate("holdem", 2, 5_000_000, seed=2, precision=0.004, progress=False, block_size=4096)
    t = r.table()
    assert r.n_deals < 5_000_000
    assert (1.959964 * t.stderr <= 0.004 + 1e-12).all()


def test_ctrl_c_reports_finished_blocks(register_for_test):
    calls = {"n": 0}

    @register_for_test("estonian", "pass", "test-interrupt", "raises KeyboardInterrupt on its 3rd call")
    def interrupting(obs, rng):
        calls["n"] += 1
        if calls["n"] >= 3:
            raise KeyboardInterrupt
        return np.zeros(len(obs["legal"]), dtype=np.int64)

    r = simulate("estonian", 3, 100 * 1024, seed=1, hero="pass=test-interrupt", threads=1,
                 block_size=1024, progress=False)
    assert r.info.interrupted
    assert r.n_deals == 2 * 1024  # the two finished blocks, nothing else
    assert np.isfinite(r.table().stderr).all()


# -- strategies from outside the package ------------------------------------------------


def test_user_strategy_plugged_in_by_name(register_for_test):
    @register_for_test("estonian", "pass", "test-pass-first", "always pass the first card")
    def pass_first(obs, rng):
        assert set(obs) >= {"hand", "flop", "legal"}
        return np.zeros(len(obs["legal"]), dtype=np.int64)

    r = simulate("estonian", 3, 5_000, seed=1, hero="pass=test-pass-first", progress=False)
    assert "pass=test-pass-first" in r.table().strategy[0]
    assert "test-pass-first" in strategies.policies("estonian", "pass")


@pytest.mark.parametrize("bad,match", [
    (lambda obs, rng: np.full(len(obs["legal"]), 3), r"'test-bad'.*pass.*action 3"),
    (lambda obs, rng: np.zeros(2, dtype=np.int64), r"'test-bad'.*pass.*shape \(2,\)"),
    (lambda obs, rng: np.zeros(len(obs["legal"])) + 0.5, r"'test-bad'.*pass.*dtype float64"),
    (lambda obs, rng: np.full(len(obs["legal"]), -1), r"'test-bad'.*pass.*action -1"),
])
def test_illegal_actions_are_errors_naming_strategy_decision_and_value(bad, match, register_for_test):
    register_for_test("estonian", "pass", "test-bad", "broken on purpose", bad)
    with pytest.raises(StrategyError, match=match):
        simulate("estonian", 3, 1000, hero="pass=test-bad", progress=False)


def test_an_illegal_action_mid_run_keeps_the_finished_blocks(register_for_test):
    calls = {"n": 0}

    def late_bad(obs, rng):
        calls["n"] += 1
        return np.full(len(obs["legal"]), 7 if calls["n"] >= 4 else 0)

    register_for_test("estonian", "pass", "test-late-bad", "illegal from its 4th call", late_bad)
    with pytest.raises(StrategyError, match="'test-late-bad'.*action 7") as e:
        simulate("estonian", 3, 50 * 1024, seed=2, hero="pass=test-late-bad", threads=1,
                 block_size=1024, progress=False)
    partial = e.value.partial_result
    assert partial.n_deals == 3 * 1024 and partial.stats.share_sum.sum() == pytest.approx(3 * 1024)


# -- clear errors --------------------------------------------------------------------


@pytest.mark.parametrize("call,match", [
    (lambda: simulate("estonian", 16, 10), "2 to 15 players, got 16"),
    (lambda: simulate("estonian", 1, 10), "got 1"),
    (lambda: simulate("slovak", 12, 10), "got 12"),
    (lambda: simulate("nope", 2, 10), "unknown variant 'nope'"),
    (lambda: simulate("holdem", 2, 10, hand="As As"), "duplicate card As"),
    (lambda: simulate("holdem", 2, 10, hand="As Kd", board="Kd 2c 3c"), "duplicate card Kd"),
    (lambda: simulate("holdem", 2, 10, hand="As Xd"), "'Xd'"),
    (lambda: simulate("holdem", 2, 10, hand="As Kd Qc"), "at most 2 cards"),
    (lambda: simulate("holdem", 2, 0), "positive integer, got 0"),
    (lambda: simulate("estonian", 2, 10, hero="pass=nosuch"), "unknown policy 'nosuch'"),
    (lambda: simulate("estonian", 2, 10, hero="fold=lowest"), "no decision 'fold'"),
    (lambda: simulate("estonian", 3, 10, seats={5: "pass=lowest"}), "seats are 0..2"),
    (lambda: simulate("holdem", 24, 10), "2 to 23 players, got 24"),
])
def test_bad_input_is_a_clear_error(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# -- decision analysis -------------------------------------------------------------------


def test_analysis_separates_an_obvious_pass():
    # Passing the ace from a made royal-flush draw is clearly worse than passing the deuce.
    r = analyze("estonian", 4, "As Ks 2d", "Qs Js Ts", n_deals=400_000, progress=False, seed=3)
    t = r.table()
    assert r.separated
    assert t.action[0] != "pass As" and t.action.iloc[-1] in ("pass As", "pass Ks")
    assert (t.diff_vs_best.iloc[1:] < 0).all() and t.diff_vs_best[0] == 0
    assert r.stats.n < 400_000  # stopped early


def test_analysis_of_holdem_is_the_equity():
    r = analyze("holdem", 2, "Ah Ad", n_deals=200_000, seed=4, progress=False)
    d = r.to_dict()
    assert d["options"][0]["action"] == "play"
    assert abs(d["options"][0]["share"] - 0.852037) < 4 * d["options"][0]["stderr"]


def test_a_strategy_may_evaluate_big_batches_inside_a_parallel_run(register_for_test):
    # evaluate_hands is parallel on the main thread; inside the run's worker threads it
    # stays serial. Under numba's workqueue threading layer (used where neither OpenMP
    # nor TBB is available) two threads entering a parallel kernel at once abort the
    # process; with OpenMP this test passes either way, but checks the run completes.
    def evaluating(obs, rng):
        n = len(obs["legal"])
        seven = np.random.default_rng(0).random((max(n, 30_000), 52)).argpartition(7, axis=1)[:, :7]
        simcore.evaluate_hands(seven)
        return np.zeros(n, dtype=np.int64)

    register_for_test("estonian", "pass", "test-evaluating", "evaluates a big batch", evaluating)
    r = simulate("estonian", 3, 4 * 1024, seed=1, hero="pass=test-evaluating", threads=2,
                 block_size=1024, progress=False)
    assert r.n_deals == 4 * 1024


# -- the contract's options, seats and rounds --------------------------------------------


def test_unknown_and_bad_rule_options_are_clear_errors():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from toy_variant import register_toy, unregister_toy

    with pytest.raises(ValueError, match="estonian has no option 'scoring'; its options are: none"):
        simcore.get_variant("estonian", scoring="points")
    register_toy()
    try:
        with pytest.raises(ValueError, match="toy has no option 'bonsu'; its options are: bonus"):
            simcore.get_variant("toy", bonsu=3)
        with pytest.raises(ValueError, match="toy option bonus is a whole number, got 'lots'"):
            simcore.get_variant("toy", bonus="lots")
        v = simcore.get_variant("toy", bonus="5")
        assert v.opts == {"bonus": 5} and v.label == "toy(bonus=5)"
        assert simcore.get_variant("toy", bonus=5) is v  # one instance per option set
        r = simulate("toy", 3, 3000, seed=2, options={"bonus": 0}, progress=False)
        assert r.to_dict()["bonus"] == 0 and r.to_dict()["variant_options"] == {"bonus": 0}
    finally:
        unregister_toy()


def test_a_repeated_decision_is_analysed_in_the_round_the_situation_is_at():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from toy_variant import register_toy, unregister_toy

    register_toy()
    try:
        # Round 2 with A-K kept and a deuce new: throwing the deuce is plainly right.
        r = analyze("toy", 3, "As Kd 7c 2h", extra={"discarded": "7c"}, progress=False, threads=2)
        assert r.round == 1 and r.table().action[0] == "discard the new card"
        assert r.to_dict()["round"] == 1
    finally:
        unregister_toy()


def test_analysis_and_comparison_from_any_seat():
    # Estonian is symmetric in the seats at the pass: seat 3's answer matches seat 0's
    # (4 standard errors), and the labels name seat 3's own cards.
    kw = dict(progress=False, threads=2, n_deals=60_000, stop_early=False)
    a0 = analyze("estonian", 6, "As Ks 7d", "Qs Js 4h", seed=1, **kw).table()
    a3 = analyze("estonian", 6, "As Ks 7d", "Qs Js 4h", seed=2, hero_seat=3, **kw).table()
    assert list(a3.action) == list(a0.action) == ["pass 7d", "pass Ks", "pass As"]
    assert (abs(a3.share - a0.share) < 4 * np.hypot(a3.stderr, a0.stderr)).all()
    c = compare("estonian", 4, 4096, a="pass=highest", b="pass=lowest", hero_seat=2, progress=False)
    assert c.to_dict()["seat"] == 2 and c.a.startswith("pass=highest")
    s = simulate("estonian", 4, 4096, hero="pass=highest", hero_seat=2, progress=False)
    assert list(s.table().strategy.str.startswith("pass=highest")) == [False, False, True, False]
    with pytest.raises(ValueError, match="seat 4 is not at a 4-player table"):
        simulate("estonian", 4, 100, hero_seat=4, progress=False)


def test_tables_of_more_than_fifteen_seats_get_streams_of_their_own():
    many = block_seeds(3, 1, 23)
    assert len(many) == 24
    assert [s.spawn_key for s in many[:16]] == [s.spawn_key for s in block_seeds(3, 1)]


def test_chance_draws_are_common_to_every_alternative_and_come_after_the_cards():
    # The toy game draws its trump suit after the decisions: two identical
    # alternatives of a paired block must see the same draws (so identical
    # outcomes), and asking for draws must not move any card.
    import sys
    from pathlib import Path

    from simcore.engine import Job, deal_block

    sys.path.insert(0, str(Path(__file__).parent))
    from toy_variant import register_toy, unregister_toy

    register_toy()
    try:
        v = simcore.get_variant("toy")
        lu = strategies.lineup(v, 3, "random", "random")
        job = Job(v, 3, [lu, lu], np.full(v.n_slots(3), -1, np.int8), 4, 1000, [{}, {}])
        a, b = job.run_block(2, 1000)
        assert np.array_equal(a.payoffs, b.payoffs) and a.unit == "points" and a.total == 3.0
        cards, chance = deal_block(v, np.full(12, -1, np.int8), 500, 3, np.random.default_rng(1))
        assert chance.shape == (500, 1) and chance.dtype == np.uint32
        assert np.array_equal(cards, deal(np.full(12, -1, np.int8), 500, np.random.default_rng(1)))
    finally:
        unregister_toy()


def test_results_say_how_each_hand_is_ranked():
    low = simulate("tapiola", 3, 500, options={"lowball": True}, progress=False).to_dict()
    assert low["hands"] == {"hand": "low"} and low["lowball"] is True
    three = simulate("russian", 2, 500, progress=False).to_dict()
    assert three["hands"] == {"hand 1": "high", "hand 2": "high", "hand 3": "high"}
    assert set(three["seats"][0]["categories"]) == {"hand 1", "hand 2", "hand 3"}


def test_dealing_a_known_row_k_times_gives_the_rows_of_the_repeated_known():
    """deal(..., repeat=k), as rollouts use it, deals exactly what np.repeat(known, k) would."""
    from simcore.engine.deal import deal

    rng = np.random.default_rng(0)
    known = np.full((200, 30), -1, np.int8)
    for i in range(200):
        known[i, rng.permutation(30)[:10]] = rng.permutation(52)[:10]
    for k in (1, 3, 8):
        a = deal(np.repeat(known, k, axis=0), 200 * k, np.random.default_rng(5))
        b = deal(known, 200 * k, np.random.default_rng(5), repeat=k)
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="200 rows"):
        deal(known, 1000, np.random.default_rng(5), repeat=3)


def test_a_deal_of_more_slots_than_cards_is_refused():
    # (a Job built by hand for too many players reached the kernel, which then read past the deck)
    with pytest.raises(ValueError, match="75 slots"):
        deal(np.full(75, -1, np.int8), 10, np.random.default_rng(0))
