"""Tapiola Hold'em: one test per rule (RULES.md), final hands, scoring, policies, analysis.

Monte Carlo checks use a fixed seed and a tolerance of 4 standard errors.
"""
import itertools

import numpy as np
import pytest

import strategies  # noqa: F401  (registers the policies)
from simcore.cards import parse_cards
from simcore.evaluate import describe_hand, evaluate_hand, evaluate_hands, evaluate_low_a6
from simcore.variants import tapiola as T
from strategies import tapiola as S


def cards(text):
    return parse_cards(text).astype(np.int64)


def tower_row(text):
    """Towers in deal order, -1 for cards not dealt yet."""
    t = np.full(6, -1, np.int8)
    given = parse_cards(text, allow_empty=True)
    t[: len(given)] = given
    return t


def high(hand, centre, towers):
    """Final high value of kept hand cards (2 or 3), the centre and the towers (deal order)."""
    h, c, t = cards(hand), cards(centre)[0], tower_row(towers)
    if len(h) == 3:
        return int(T.best_high(h[0], h[1], h[2], t))
    return int(T.best_high(h[0], h[1], c, t))


def low(hand, centre, towers):
    h, c, t = cards(hand), cards(centre)[0], tower_row(towers)
    return int(T.best_low(h[0], h[1], h[2], c, t))


# -- layout -------------------------------------------------------------------------------


def test_layout_centre_hands_then_towers_in_deal_order():
    assert T.n_slots(9) == 52  # nine players use the whole deck
    assert T.n_slots(7, lowball=True) == 49
    assert T.hand_slots(4, 2) == [11, 12, 13, 14, 15]
    assert T.hand_slots(4, 1, lowball=True) == [7, 8, 9, 10, 11, 12]
    assert T.tower_slots(4) == [21, 22, 23, 24, 25, 26]
    deal = np.arange(T.n_slots(2), dtype=np.int8)[None, :]
    hands = np.empty((2, 1, 5), np.int8)
    centre = np.empty(1, np.int8)
    towers = np.empty((1, 6), np.int8)
    T.split_deal(deal, 2, 5, hands, centre, towers)
    assert centre.tolist() == [0]
    assert hands[:, 0].tolist() == [[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]]
    assert towers[0].tolist() == [11, 12, 13, 14, 15, 16]
    seen = np.empty((1, 6), np.int8)
    T.visible_towers(towers, 2, seen)
    assert seen[0].tolist() == [11, 12, 13, 14, -1, -1]


def test_discards_are_applied_per_seat_and_keep_all_is_minus_one():
    held = np.ones((2, 5), np.bool_)
    T.apply_discards(held, np.array([3, -1]))
    assert held[0].tolist() == [True, True, True, False, True]
    assert held[1].all()


# -- final hands: the rule ----------------------------------------------------------------


def test_the_issue_example_two_kings_and_the_centre_make_four_kings():
    # Hand Kd 7d Ks, centre Kh, towers Kc 5h 2d 8h 3d Jc (A1 B1 A2 B2 A3 B3).
    assert describe_hand(high("Kd 7d Ks", "Kh", "Kc 5h 2d 8h 3d Jc")) == "three of a kind, kings"
    assert describe_hand(high("Kd Ks", "Kh", "Kc 5h 2d 8h 3d Jc")) == "four of a kind, kings"


def test_three_kept_cards_cannot_use_the_centre():
    # The centre would pair the ace, but three kept cards play without it.
    assert describe_hand(high("As 9c 4d", "Ah", "2s 3h 7c 8d Jc Qd")) == "ace high"
    assert describe_hand(high("As 9c", "Ah", "2s 3h 7c 8d Jc Qd")) == "pair of aces"


def test_one_card_of_each_tower_never_two_of_one():
    # Tower A holds two hearts, tower B none: no flush.
    v = high("Ah Kh Qh", "2c", "Jh 3d Th 4d 2s 5d")
    assert describe_hand(v) == "ace high"
    # One heart in each tower makes it.
    assert describe_hand(high("Ah Kh Qh", "2c", "Jh Th 3d 4d 2s 5d")) == "royal flush"


def test_the_centre_completes_a_straight_flush():
    assert describe_hand(high("9h Th", "Jh", "Qh Kh 2c 3d 4s 5c")) == "king-high straight flush"
    # Keeping a third card shuts the centre out: only the straight's other cards help.
    assert describe_hand(high("9h Th 2d", "Jh", "Qh Kh 2c 3d 4s 5c")) == "pair of twos"


def test_a_tower_card_completes_a_straight_flush_and_the_wheel_counts():
    assert describe_hand(high("5s 6s 7s", "Ad", "2c 3c 8s 9s 4d Kd")) == "nine-high straight flush"
    assert describe_hand(high("As 2s 3s", "Kd", "4s 5s 9c 9d Qh Jc")) == "five-high straight flush"


def test_the_best_of_the_nine_tower_choices_counts():
    # Only the third card of A and the second of B make the full house.
    v = high("Qs Qd 7c", "2d", "3c 4h 5s 7h Qh 8d")
    assert describe_hand(v) == "queens full of sevens"


def test_partial_towers_give_the_best_hand_so_far_and_minus_one_when_empty():
    assert describe_hand(high("As Ad Kc", "2d", "Ah 3c")) == "three of a kind, aces"
    t = np.full(6, -1, np.int8)
    assert T.best_high(0, 1, 2, t) == -1
    assert T.best_low(0, 1, 2, 3, t) == -1


def brute_high(kept, centre, towers):
    """Best five-card value over every choice the rule allows, by enumeration."""
    a, b = towers[0::2], towers[1::2]
    pool = list(kept) + [centre] + list(towers)
    best = -1
    for combo in itertools.combinations(pool, 5):
        na = sum(c in a for c in combo)
        nb = sum(c in b for c in combo)
        nh = sum(c in kept for c in combo)
        nc = centre in combo
        legal = na == 1 and nb == 1 and nh == len(kept) and nc == (len(kept) == 2)
        if legal:
            best = max(best, int(evaluate_hands(np.array(combo, np.int8))[0]))
    return best


def brute_low(kept, centre, towers):
    a, b = towers[0::2], towers[1::2]
    best = -1
    for x in a:
        for y in b:
            six = np.array(list(kept) + [centre, x, y], np.int8)
            for five in itertools.combinations(six, 5):
                best = max(best, int(evaluate_low_a6(np.array(five, np.int8))[0]))
    return best


def random_rows(n, k, seed):
    rng = np.random.default_rng(seed)
    return np.array([rng.permutation(52)[:k] for _ in range(n)], np.int8)


def test_final_high_hand_matches_brute_force_on_a_random_sample():
    rows = random_rows(300, 10, 11)
    for r in rows:
        towers = r[4:10]
        for kept in (r[:3], r[:2]):
            h = kept.astype(np.int64)
            third = h[2] if len(h) == 3 else np.int64(r[3])
            got = int(T.best_high(h[0], h[1], third, towers))
            assert got == brute_high([int(x) for x in kept], int(r[3]), [int(x) for x in towers])


def test_final_low_hand_matches_brute_force_on_a_random_sample():
    rows = random_rows(150, 10, 12)
    for r in rows:
        h = r[:3].astype(np.int64)
        got = int(T.best_low(h[0], h[1], h[2], np.int64(r[3]), r[4:10]))
        assert got == brute_low([int(x) for x in r[:3]], int(r[3]), [int(x) for x in r[4:10]])


def test_showdown_values_match_the_row_kernels_and_check_their_input():
    rng = np.random.default_rng(5)
    n, P = 200, 4
    deal = np.array([rng.permutation(52)[:T.n_slots(P)] for _ in range(n)], np.int8)
    hands = np.empty((P, n, 5), np.int8)
    centre = np.empty(n, np.int8)
    towers = np.empty((n, 6), np.int8)
    T.split_deal(deal, P, 5, hands, centre, towers)
    held = np.ones((P, n, 5), np.bool_)
    held[:, :, 0] = False
    held[:, :, 3] = False
    held[:, : n // 2, 4] = False  # half the deals: every seat plays two cards and the centre
    values = T.showdown_values(hands, held, centre, towers)
    for i in (0, 1, n - 1):
        for p in range(P):
            kept = hands[p, i][held[p, i]].astype(np.int64)
            third = kept[2] if len(kept) == 3 else np.int64(centre[i])
            assert values[i, p] == T.best_high(kept[0], kept[1], third, towers[i])
    with pytest.raises(ValueError, match="holds 4 cards"):
        T.showdown_values(hands, np.ones((P, n, 5), bool) & (np.arange(5) != 0), centre, towers)
    with pytest.raises(ValueError, match="keeps 3"):
        T.showdown_values(hands, held, centre, towers, lowball=True)


# -- ace-to-six low -----------------------------------------------------------------------


def test_ace_to_six_facts_of_the_rules():
    # The best low is 6-4-3-2-A of mixed suits; the wheel is a straight, so worse.
    best = low("As 2d 3c", "4h", "6s Kd Qc Jc 9d 9h")
    assert best == int(evaluate_low_a6(parse_cards("6s 4h 3c 2d As"))[0])
    wheel = low("As 2d 3c", "4h", "5s Kd Qc Kc Jd Jh")  # 5s must join: A-2-3-4-5 or a king pair
    assert best > wheel
    # 10-J-Q-K-A is no straight: ace low, it is a king-high hand, better than a pair.
    broadway = low("Ts Jd Qc", "Kh", "Ad Kd Ah Ks As Kc")
    pair = int(evaluate_low_a6(parse_cards("Ts Jd Qc Kh Kd"))[0])
    assert broadway == int(evaluate_low_a6(parse_cards("As Td Jc Qh Kd"))[0]) > pair
    # A flush counts against a hand: with tower A all hearts and tower B all
    # kings, K-5-4-3-2 (a king for the seven) beats the 7-5-4-3-2 flush.
    got = low("7h 5h 4h", "3h", "2h Kc 6h Kd 8h Ks")
    flush = int(evaluate_low_a6(parse_cards("7h 5h 4h 3h 2h"))[0])
    assert got == int(evaluate_low_a6(parse_cards("Kc 5h 4h 3h 2h"))[0]) > flush


def test_lowball_with_paired_towers_drops_the_worst_card():
    # Every tower card pairs a hand card or the centre: the best five of six
    # drops one card of a pair, leaving a single pair: aces, A-A-2-3-4.
    v = low("As 2c 3d", "4h", "2d 2s 3h 3c Ah 4c")
    assert v == brute_low(list(cards("As 2c 3d")), int(cards("4h")[0]), list(cards("2d 2s 3h 3c Ah 4c")))
    assert v == int(evaluate_low_a6(parse_cards("As Ah 2c 3d 4h"))[0])


# -- scoring ------------------------------------------------------------------------------


@pytest.mark.parametrize("values, shares", [
    ([5, 9, 7], [0, 1, 0]),
    ([9, 9, 7], [0.5, 0.5, 0]),
    ([9, 9, 9], [1 / 3] * 3),
])
def test_pot_best_hand_wins_ties_split(values, shares):
    assert np.allclose(T.score(np.array([values]), "pot")[0], shares)


@pytest.mark.parametrize("values, points", [
    ([5, 9, 7, 3], [0, 2, 1, 0]),  # best 2, second 1
    ([9, 9, 7], [1.5, 1.5, 0]),  # two tied for best share 2 + 1
    ([9, 7, 7], [2, 0.5, 0.5]),  # two tied for second share 1 + 0
    ([9, 7, 7, 7], [2, 1 / 3, 1 / 3, 1 / 3]),
    ([9, 9, 9], [1, 1, 1]),  # three tied for best share 2 + 1 + 0
    ([4, 4], [1.5, 1.5]),
])
def test_points_two_and_one_with_ties_sharing_places(values, points):
    assert np.allclose(T.score(np.array([values]), "points")[0], points)


def v(text):
    return evaluate_hand(text)


SF, QUADS, FULL, FLUSH, STRAIGHT = (v("9h Th Jh Qh Kh"), v("2c 2d 2h 2s 3c"), v("3c 3d 3h 2s 2c"),
                                    v("2h 5h 7h 9h Jh"), v("5c 6d 7h 8s 9c"))
TRIPS, TWO_PAIR, PAIR, HIGH, LOWER_HIGH = (v("Ac Ad Ah 2s 3c"), v("Ac Ad Kh Ks 3c"),
                                           v("Ac Ad Kh Qs 3c"), v("Ac Kd Qh Js 9c"),
                                           v("7c 5d 4h 3s 2c"))


@pytest.mark.parametrize("values, points", [
    ([SF, QUADS, FULL, FLUSH, STRAIGHT, TRIPS], [5, 4, 3, 2, 1, 0]),  # by class
    ([STRAIGHT, STRAIGHT, PAIR], [1, 1, 0]),  # classes never share
    ([PAIR, HIGH, TWO_PAIR], [2, 5, 0]),  # no straight: worst 5, second worst 2
    ([HIGH, HIGH, TRIPS], [3.5, 3.5, 0]),  # tied for worst share 5 + 2
    ([HIGH, HIGH, HIGH], [7 / 3] * 3),
    ([LOWER_HIGH, PAIR, PAIR, TRIPS], [5, 1, 1, 0]),  # tied for second worst share 2 + 0
    ([TRIPS, TRIPS], [3.5, 3.5]),
])
def test_straight_up_or_die_by_class_or_the_worst_hands(values, points):
    assert np.allclose(T.score(np.array([values]), "straight-up-or-die")[0], points)


def test_best_flags_mark_outright_wins_and_ties_for_best():
    values = np.array([[3, 9, 7], [9, 9, 7], [1, 1, 1]])
    wins = np.zeros(values.shape, bool)
    ties = np.zeros(values.shape, bool)
    T.best_flags(values, wins, ties)
    assert wins.tolist() == [[False, True, False], [False] * 3, [False] * 3]
    assert ties.tolist() == [[False] * 3, [True, True, False], [True] * 3]


def test_score_names_a_bad_scoring():
    with pytest.raises(ValueError, match="'chips' is not one of pot, points, straight-up-or-die"):
        T.score(np.zeros((1, 2)), "chips")


# -- policies -----------------------------------------------------------------------------


def discard(policy, hand, towers="", centre="2c", held=None, rnd=None):
    """Position the named discard policy throws for one hand-built row."""
    h = parse_cards(hand)
    t = tower_row(towers)
    hl = np.ones(len(h), bool) if held is None else np.array(held, bool)
    out = np.empty(1, np.int64)
    code = dict((n, c) for n, c, _ in S.DISCARD_POLICIES)[policy]
    S.discard_rows(h[None], hl[None], parse_cards(centre), t[None], code, out)
    return int(out[0])


def test_lowest_throws_the_smallest_card_number_ace_high():
    assert discard("lowest", "Ah 7d 7c Ks 2s") == 4  # the deuce
    assert discard("lowest", "Ah 7d 7c Ks 9s") == 2  # 7c before 7d: clubs is the lower suit
    assert discard("lowest", "Ah 7d 7c Ks 2s", held=[1, 1, 1, 1, 0]) == 2


def test_pairs_keeps_pairs_and_trips():
    assert discard("pairs", "7d 7c Ks 2s 2d") == 2  # the lone king goes
    assert discard("pairs", "7d 7c 7s 2s 2d") == 4  # pairs before trips
    assert discard("pairs", "Ah Kd 9c 5s 3d") == 4


def test_draws_chases_the_flush_the_towers_offer():
    # Three hearts; both towers show a heart: keep the hearts, throw a club (lower first).
    assert discard("draws", "Ah 9h 4h Kc 3c", towers="2h 8h") == 4
    # Two hearts and a heart centre also make a live target.
    assert discard("draws", "Ah 9h Kc Kd 3s", towers="2h 8h", centre="5h") == 4
    # A straight window (5-6-7 with an 8 and a 9 on the towers) beats the pair of kings.
    assert discard("draws", "5c 6d 7h Kc Ks", towers="8d 9s") == 3
    # No live target: as pairs.
    assert discard("draws", "Ah Kd 8c 7s 2d", towers="2h 8h") == discard("pairs", "Ah Kd 8c 7s 2d") == 4


def test_made_keeps_what_combines_with_the_towers():
    # Tower cards Qd and 8s: the queen and the eight make two pair; the 3 goes.
    assert discard("made", "Qc 8c 3h 4d 5s", towers="Qd 8s") == 2
    # On equal hands the lowest card goes.
    assert discard("made", "Ac Ad Kh 3c 2d", towers="9s 7h") == 4


def test_lowball_policies_count_the_ace_low():
    assert discard("throw-high", "As Kd 2c 3d 4h 5s") == 1  # the king, not the ace
    # A deuce that pairs the centre goes before the king.
    assert discard("distinct-low", "As Kd 2c 3d 4h 5s", centre="2h") == 2
    assert discard("distinct-low", "As Kd 2c 3d 4h 5s", centre="6h") == 1
    # Every card known (round 3, four held): keeping 2h 3h 4h with the heart
    # centre and all-heart towers is a flush, so best-low throws the 4h, not the 5c.
    args = dict(towers="7h 9h Kh Jh Qh Th", centre="6h")
    assert discard("throw-high", "2h 3h 4h 5c", **args) == 3
    assert discard("best-low", "2h 3h 4h 5c", **args) == 2


def test_dive_keeps_the_hand_weak():
    assert discard("dive", "As Kd 7c 3d 2h", centre="9c") == 0  # the ace goes first
    assert discard("dive", "As Kd 7c 3d 2h", centre="3c") == 3  # a card pairing the centre first


def last(policy, hand, centre, towers, proposed=0, held=None):
    h = parse_cards(hand)
    hl = np.ones(len(h), bool) if held is None else np.array(held, bool)
    out = np.empty(1, np.int64)
    code = dict((n, c) for n, c, _ in S.LAST_POLICIES)[policy]
    S.last_rows(h[None], hl[None], parse_cards(centre), parse_cards(towers)[None],
                np.array([proposed]), code, out)
    return int(out[0])


def test_last_best_takes_the_stronger_final_hand_and_keeps_three_on_a_tie():
    held = [1, 0, 1, 0, 1]
    # Kd 7d Ks kept (positions 0, 2, 4): throwing 7d (position 2) gives four kings.
    assert last("best", "Kd 2c 7d 3c Ks", "Kh", "Kc 5h 2d 8h 3d Jc", held=held) == 3
    # Nothing gained by the centre: keep all.
    assert last("best", "Ad 2c Kd 3c Qd", "2h", "Jd 9d 4c 5c 6c 7s", held=held) == 0
    assert last("never", "Kd 2c 7d 3c Ks", "Kh", "Kc 5h 2d 8h 3d Jc", held=held) == 0
    assert last("always", "Kd 2c 7d 3c Ks", "Kh", "Kc 5h 2d 8h 3d Jc", proposed=4, held=held) == 5


def test_last_dive_plays_the_worst_hand_unless_a_straight_is_made():
    held = [1, 0, 1, 0, 1]
    # Best is trips: no straight, so take the weakest hand.
    got = last("dive", "Kd 2c 7d 3c Ks", "Kh", "Qc 5h 2d 8h 3d Jc", held=held)
    assert got != last("best", "Kd 2c 7d 3c Ks", "Kh", "Qc 5h 2d 8h 3d Jc", held=held)
    # A made flush by keeping three: take it.
    assert last("dive", "Ad 2c Kd 3c Qd", "2h", "Jd 9d 4c 5c 6c 7s", held=held) == 0


# -- the game, played ---------------------------------------------------------------------

from simcore import analyze, simulate  # noqa: E402
from simcore.engine import play_block  # noqa: E402
from simcore.variants import get_variant  # noqa: E402
from strategies.registry import lineup as make_lineup  # noqa: E402

V = get_variant("tapiola")
OBS_KEYS = {"hand", "held", "centre", "towers", "discards", "legal", "seat", "n_players",
            "decision", "variant", "round"}


def fixed_deal(v, P, centre, seats, towers):
    """One deal: the centre, then per seat its hand cards, then the towers in deal order."""
    deal = parse_cards(" ".join([centre, *seats, towers]))
    assert deal.shape == (v.n_slots(P),)
    return deal[None, :]


def play(v, deal, P, spec=None, per_seat=None, record=False, forced=None):
    lu = make_lineup(v, P, spec, spec)
    for p, fns in (per_seat or {}).items():
        lu[p] = dict(lu[p], **{d: (f"seat{p}-{d}", fn) for d, fn in fns.items()})
    rngs = [np.random.default_rng(p) for p in range(P)]
    return play_block(v, deal, P, lu, rngs, forced=forced, record=record)


def recorder(fn, log):
    def strategy(obs, rng):
        log.append({k: (x.copy() if isinstance(x, np.ndarray) else x) for k, x in obs.items()})
        return fn(obs, rng)

    return strategy


# Seat 0 keeps Kd 7d Ks (it throws 2c, then 3c); seat 1 keeps Ah Ad 9s.
DEAL = ("Kh", ["Kd 7d Ks 2c 3c", "Ah Ad 9s 8s 4c"], "Kc 5h 2d 8h 3d Jc")


def test_player_limits_and_the_burn_and_lowball_limits():
    assert (V.min_players, V.max_players) == (2, 9)
    assert get_variant("tapiola", burn=True).max_players == 8
    assert get_variant("tapiola", lowball=True).max_players == 7
    simulate("tapiola", 9, 300, progress=False)  # nine players use the whole deck
    with pytest.raises(ValueError, match="2 to 9 players, got 10"):
        simulate("tapiola", 10, 10, progress=False)
    with pytest.raises(ValueError, match="2 to 8 players with burn cards, got 9"):
        simulate("tapiola", 9, 10, progress=False, options={"burn": True})
    with pytest.raises(ValueError, match="2 to 7 players lowball, got 8"):
        simulate("tapiola", 8, 10, progress=False, options={"lowball": True})
    with pytest.raises(ValueError, match="2 to 9 players, got 1"):
        simulate("tapiola", 1, 10, progress=False)


def test_options_scoring_and_lowball_combinations():
    assert get_variant("tapiola", scoring="points").payoff_unit == "points"
    assert get_variant("tapiola", scoring="points").payoff_total == 3.0
    assert get_variant("tapiola", scoring="straight-up-or-die").payoff_total is None
    with pytest.raises(ValueError, match="straight-up-or-die scores high hands"):
        get_variant("tapiola", lowball=True, scoring="straight-up-or-die")
    with pytest.raises(ValueError, match="scoring='chips' is not one of pot, points"):
        get_variant("tapiola", scoring="chips")
    assert {o: get_variant("tapiola", scoring=o).match_target for o in T.SCORINGS} == {
        "pot": 5.0, "points": 10.0, "straight-up-or-die": 15.0}


def test_defaults_are_exactly_lowest_and_never():
    r = simulate("tapiola", 3, 200, progress=False)
    assert r.table().strategy[0] == "discard=lowest,last=never"
    lo = simulate("tapiola", 3, 200, progress=False, options={"lowball": True})
    assert lo.table().strategy[0] == "discard=lowest"


def test_naming_last_in_lowball_is_a_clear_error():
    with pytest.raises(ValueError, match="last discard is a high-game decision"):
        simulate("tapiola", 3, 100, hero="last=best", progress=False, options={"lowball": True})


def test_three_tower_rounds_then_simultaneous_discards_and_what_a_seat_sees():
    log = []
    deal = fixed_deal(V, 2, *DEAL)
    lowest = strategies.resolve("tapiola", "discard", "lowest")[1]
    never = strategies.resolve("tapiola", "last", "never")[1]
    out = play(V, deal, 2, per_seat={0: {"discard": recorder(lowest, log), "last": recorder(never, log)}})
    assert [o["decision"] for o in log] == ["discard"] * 3 + ["last"]
    assert [o["round"] for o in log[:3]] == [0, 1, 2]
    for r, o in enumerate(log[:3]):
        assert set(o) == OBS_KEYS
        # One card to each tower per round, in deal order; nothing else of the deal.
        assert o["towers"][0].tolist() == parse_cards("Kc 5h 2d 8h 3d Jc")[: 2 * r + 2].tolist() + [-1] * (4 - 2 * r)
        assert o["centre"].tolist() == [parse_cards("Kh")[0]]
        assert o["hand"][0].tolist() == parse_cards("Kd 7d Ks 2c 3c").tolist()
        assert int(o["held"][0].sum()) == 5 - r  # one mandatory discard per round
        assert (o["legal"] == o["held"]).all()
    assert log[1]["discards"][0].tolist() == [3, -1, -1] and log[2]["discards"][0].tolist() == [3, 4, -1]
    last = log[3]
    assert set(last) == OBS_KEYS | {"proposed"}
    assert last["legal"][0].tolist() == [True, True, True, True, False, False]
    assert last["proposed"].tolist() == [1]  # lowest would throw the 7d
    # Keeping all three: trip kings beat the aces.
    assert out.payoffs.tolist() == [[1.0, 0.0]]
    assert out.wins.tolist() == [[True, False]] and out.categories[0, :, 0].tolist() == [3, 1]


def test_the_optional_last_discard_plays_two_cards_and_the_centre():
    deal = fixed_deal(V, 2, *DEAL)
    best = play(V, deal, 2, "last=best", record=True)
    assert best.actions[(0, "last", 0)].tolist() == [2]  # throw the 7d (position 1)
    # Four kings; seat 1 throws the 9s: aces and kings (the centre and Kc).
    assert best.categories[0, :, 0].tolist() == [7, 2]
    always = play(V, deal, 2, "last=always", record=True)
    # always takes the discard policy's card: lowest throws 7d, and 9s for seat 1.
    assert always.actions[(0, "last", 0)].tolist() == [2] and always.actions[(1, "last", 0)].tolist() == [3]
    assert always.categories[0, :, 0].tolist() == [7, 2]


def test_points_and_straight_up_or_die_on_a_played_deal():
    deal = fixed_deal(V, 3, "Kh", ["Kd 7d Ks 2c 3c", "Ah Ad 9s 8s 4c", "Qs Qd 6s 5s 4d"],
                      "Kc 5h 2d 8h 3d Jc")
    pts = play(get_variant("tapiola", scoring="points"), deal, 3)
    # Seat 0 trip kings, seat 1 aces, seat 2 queens (keeps Qs Qd 6s).
    assert pts.payoffs.tolist() == [[2.0, 1.0, 0.0]]
    suod = play(get_variant("tapiola", scoring="straight-up-or-die"), deal, 3)
    # No straight or better: the worst hand (queens) 5, the second worst (aces) 2.
    assert suod.payoffs.tolist() == [[0.0, 2.0, 5.0]]
    assert suod.wins.tolist() == [[True, False, False]]  # win_rate keeps its meaning: best hand
    suod_best = play(get_variant("tapiola", scoring="straight-up-or-die"), deal, 3, "last=best")
    assert suod_best.payoffs[0, 0] == 4.0  # four kings score their class


def test_lowball_six_cards_three_mandatory_discards_best_low_wins():
    lo = get_variant("tapiola", lowball=True)
    assert lo.n_slots(2) == 1 + 12 + 6 and [d.name for d in lo.decisions] == ["discard"]
    deal = fixed_deal(lo, 2, "4h", ["As 2c 3d Kc Qc Jc", "5s 6d 7c 8h 9h Th"], "6c 7d 9c Ts 8d 5d")
    out = play(lo, deal, 2, "discard=throw-high", record=True)
    for r in range(3):
        assert (0, "discard", r) in out.actions
    # Seat 0 keeps As 2c 3d: with 4h and the 6c, 6-4-3-2-A; seat 1 keeps 5s 6d 7c.
    assert low("As 2c 3d", "4h", "6c 7d 9c Ts 8d 5d") > low("5s 6d 7c", "4h", "6c 7d 9c Ts 8d 5d")
    assert out.payoffs.tolist() == [[1.0, 0.0]]
    assert out.categories[0, 0, 0] == 0  # a high-card low: no pair, straight or flush
    naive = play(lo, deal, 2, record=True)  # lowest throws 2c, 3d, Jc: seat 0 keeps Qc Kc As
    assert naive.actions[(0, "discard", 0)].tolist() == [1]


def test_information_hidden_cards_never_change_a_seats_observations():
    # Redeal every other seat's hand: seat 0's observations stay the same, decision by decision.
    rng = np.random.default_rng(3)
    P = 4
    base = np.stack([rng.permutation(52)[: V.n_slots(P)] for _ in range(300)]).astype(np.int8)
    others = [s for s in range(V.n_slots(P)) if s not in T.hand_slots(P, 0) and s != 0
              and s not in T.tower_slots(P)]
    assert sorted(V.hidden_slots(P, 0)) == others
    logs = []
    for trial in range(2):
        deal = base.copy()
        if trial:
            for i in range(deal.shape[0]):  # permute the other seats' cards with unseen cards
                free = np.setdiff1d(np.arange(52), deal[i, [0, *T.hand_slots(P, 0), *T.tower_slots(P)]])
                deal[i, others] = rng.permutation(free)[: len(others)]
            assert (deal[:, others] != base[:, others]).any()
        log = []
        rec = {d: recorder(strategies.resolve("tapiola", d, p)[1], log)
               for d, p in (("discard", "made"), ("last", "best"))}
        play(V, deal, P, "discard=draws,last=best", per_seat={0: rec})
        logs.append(log)
    for a, b in zip(*logs, strict=True):
        for k in a:
            if isinstance(a[k], np.ndarray):
                assert np.array_equal(a[k], b[k]), k


def test_engine_matches_a_plain_python_eval7_implementation_deal_by_deal():
    pytest.importorskip("eval7")
    import eval7

    from plain_tapiola import python_deal
    from simcore.cards import card_to_str

    cards7 = [eval7.Card(card_to_str(c)) for c in range(52)]
    rng = np.random.default_rng(8)
    P = 4
    deals = np.stack([rng.permutation(52)[: V.n_slots(P)] for _ in range(400)]).astype(np.int8)
    for spec, best in (("last=never", False), ("last=best", True)):
        out = play(V, deals, P, spec)
        want = [python_deal([int(c) for c in d], P, best, cards7) for d in deals]
        assert np.allclose(out.payoffs, want), spec


# -- analysis ------------------------------------------------------------------------------


def test_analysis_the_issue_example_ranks_discarding_the_seven_first():
    a = analyze("tapiola", 6, hand="Kd 7d Ks", board="Kh Kc 5h 2d 8h 3d Jc", decision="last",
                progress=False, seed=1)
    t = a.table()
    assert t.action[0] == "discard 7d" and a.separated
    assert set(t.action) == {"discard 7d", "keep all", "discard Kd", "discard Ks"}
    # The whole board in the high game asks about the last discard by default.
    assert V.default_decision(V.setup(6, board="Kh Kc 5h 2d 8h 3d Jc")) == "last"
    # Any seat: the same question from seat 3.
    a3 = analyze("tapiola", 6, hand="Kd 7d Ks", board="Kh Kc 5h 2d 8h 3d Jc", hero_seat=3,
                 progress=False, seed=2)
    assert a3.table().action[0] == "discard 7d"


def test_analysis_round_follows_the_tower_cards_and_labels_name_cards():
    # Centre 2s; A1 9d B1 Th; A2 4c B2 5c: the second discard, holding four cards.
    sit = V.setup(6, hand="As Ad 7c 4h", board="2s 9d Th 4c 5c")
    assert V.analysis_round("discard", sit) == 1
    assert V.analysis_round("discard", V.setup(6, board="2s 9d Th")) == 0
    assert sit.presets == {(0, "discard", 0): 4}  # the unknown fifth card went in round 1
    assert V.analysis_actions("discard", sit) == [0, 1, 2, 3]
    assert [V.analysis_label("discard", a, sit) for a in range(4)] == [
        "discard As", "discard Ad", "discard 7c", "discard 4h"]
    a = analyze("tapiola", 4, hand="As Ad 7c 4h", board="2s 9d Th 4c 5c", progress=False, n_deals=40_000)
    assert len(a.table()) == 4 and a.round == 1
    with pytest.raises(ValueError, match="at round 2 the hero holds 4 cards, got 5"):
        V.setup(6, hand="As Ad 7c 4h 2c", board="2s 9d Th 4c 5c")
    with pytest.raises(ValueError, match="tower cards in pairs"):
        V.setup(6, hand="As Ad 7c", board="2s 9d")
    with pytest.raises(ValueError, match="analyse it with decision last"):
        analyze("tapiola", 6, hand="Kd 7d Ks", board="Kh Kc 5h 2d 8h 3d Jc", decision="discard",
                progress=False)
    with pytest.raises(ValueError, match="give the whole board"):
        analyze("tapiola", 6, hand="Kd 7d Ks 2c", board="Kh Kc 5h", decision="last", progress=False)


def test_discarded_field_fixes_the_heros_earlier_discards():
    sit = V.setup(3, hand="As Ad 7c", board="2s 9d Th 4c 5c 6h 8h", discarded="Kc Qc")
    known, presets = sit.known, sit.presets
    slots = T.hand_slots(3, 0)
    assert known[slots].tolist() == parse_cards("As Ad 7c Kc Qc").tolist()
    assert presets == {(0, "discard", 0): 3, (0, "discard", 1): 4}
    with pytest.raises(ValueError, match=r"one card per earlier round \(1 at round 2\), got 2"):
        V.setup(3, hand="As Ad 7c", board="2s 9d Th 4c 5c", discarded="Kc Qc")


# -- match chances and rollouts ------------------------------------------------------------


@pytest.mark.parametrize("scoring", T.SCORINGS)
def test_match_chances_for_every_scoring(scoring):
    # Two players: the engine's exact match computation is quick there for every scoring.
    r = simulate("tapiola", 2, 4000, progress=False, match=True, options={"scoring": scoring})
    m = r.match
    assert m.target == T.MATCH_TARGETS[scoring]
    assert abs(m.win.sum() - 1) < 1e-6 and m.mean_hands > 1


def test_rollout_decides_both_decisions():
    # The hero's rollout is asked at every discard round and at the last discard, for every
    # deal, and the deal plays its answers. It is no copy of its base: at round 1 (where
    # the hero sees the same cards under any policy) it throws other cards than the
    # default policy somewhere (seed 2; a K=4 rollout differs from it on many of 60 deals).
    import strategies
    from simcore.engine import deal_block

    P, n = 3, 60
    cards, chance = deal_block(V, np.full(V.n_slots(P), -1, np.int8), n, P, np.random.default_rng(2))
    asked = []

    def spy(decision):
        fn = strategies.resolve(V, decision, "rollout:4")[1]

        def strategy(obs, rng):
            a = fn(obs, rng)
            asked.append((decision, int(obs["round"]), np.array(a, copy=True)))
            return a

        return strategy

    def run(hero):
        lu = make_lineup(V, P)
        if hero:
            lu[0] = {d: ("rollout:4", spy(d)) for d in ("discard", "last")}
        rngs = [np.random.default_rng(10 + p) for p in range(P)]
        return play_block(V, cards, P, lu, rngs, None, chance, record=True)

    out, base = run(True), run(False)
    assert [(d, r) for d, r, _ in asked] == [("discard", 0), ("discard", 1), ("discard", 2), ("last", 0)]
    for d, r, a in asked:
        assert a.shape == (n,) and np.array_equal(out.actions[(0, d, r)], a), (d, r)
    assert (out.actions[(0, "discard", 0)] != base.actions[(0, "discard", 0)]).any()
    assert (out.actions[(0, "last", 0)] != 0).any() and (out.actions[(0, "last", 0)] == 0).any()


def test_rollout_takes_the_four_kings_in_the_issue_example():
    # Every continuation of the example deal gives four kings for "discard 7d" and
    # trips otherwise, so a rollout must choose it (a constant policy would not).
    out = play(V, fixed_deal(V, 2, *DEAL), 2, "last=rollout:8", record=True)
    assert out.actions[(0, "last", 0)].tolist() == [2]


@pytest.mark.parametrize("scoring, per_hand", [("pot", 1.0), ("points", 3.0)])
def test_seats_on_the_same_policy_score_alike(scoring, per_hand):
    # Monte Carlo, seed 4, tolerance 4 standard errors: with everyone on the
    # defaults no seat is favoured (discards are simultaneous), so each seat
    # scores per_hand / P on average.
    P = 5
    r = simulate("tapiola", P, 60_000, seed=4, progress=False, options={"scoring": scoring})
    t = r.table()
    assert (abs(t.share - per_hand / P) < 4 * t.stderr).all(), t.share.tolist()


def test_cli_options_json_and_the_analysis_example(capsys):
    import json

    from simcore.cli import main

    assert main(["simulate", "tapiola", "--players", "3", "--deals", "2000", "--scoring", "points",
                 "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["scoring"] == "points" and out["unit"] == "points"
    assert main(["analyze", "tapiola", "--players", "6", "--hand", "Kd 7d Ks", "--board",
                 "Kh Kc 5h 2d 8h 3d Jc", "--decision", "last"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[2].split()[:2] == ["discard", "7d"]  # title, header, then the best action
    assert main(["simulate", "tapiola", "--players", "3", "--deals", "100", "--lowball",
                 "--hero", "last=best"]) != 0
    assert "last discard is a high-game decision" in capsys.readouterr().err


def _throw_reference(hand, held, centre, towers, lowball):
    """Each held card's throw valued on its own, by the plain evaluators: the best final hand the
    other held cards make with the centre and one dealt card of each tower (-1: none yet)."""
    a = [int(x) for x in towers[0::2] if x >= 0]
    b = [int(x) for x in towers[1::2] if x >= 0]
    out = []
    for j in range(len(hand)):
        if not held[j]:
            out.append(-2)
            continue
        others = [int(hand[q]) for q in range(len(hand)) if held[q] and q != j]
        best = -1
        for x in a:
            for y in b:
                if lowball:
                    for three in itertools.combinations(others, 3):
                        for five in itertools.combinations(list(three) + [int(centre), x, y], 5):
                            best = max(best, int(evaluate_low_a6(np.array(five, np.int8))[0]))
                else:
                    kept = list(itertools.combinations(others, 3)) + \
                        [pair + (int(centre),) for pair in itertools.combinations(others, 2)]
                    for k in kept:
                        best = max(best, int(evaluate_hands(np.array(list(k) + [x, y], np.int8))[0]))
        out.append(best)
    return out


@pytest.mark.parametrize("lowball", [False, True])
def test_throw_values_value_each_throw_as_the_plain_evaluators_do(lowball):
    """throw_values (what the made discard and the buckets' canonical order rank throws by) values
    each subset once; each throw's value is the one valuing it on its own gives, every round."""
    h = 6 if lowball else 5
    rng = np.random.default_rng(21)
    c, vals, tw = np.empty(h, np.int64), np.empty(h, np.int64), np.empty((2, 9), np.uint64)
    for rnd in range(3):
        for _ in range(40):
            deck = rng.permutation(52).astype(np.int8)
            hand, centre = deck[:h], deck[h]
            towers = np.full(6, -1, np.int8)
            towers[: 2 * (rnd + 1)] = deck[h + 1: h + 3 + 2 * rnd]
            held = np.ones(h, np.bool_)
            held[rng.choice(h, rnd, replace=False)] = False
            keep = T.throw_values(hand, held, centre, towers, lowball, False, c, vals, tw)
            assert keep == -1
            assert list(vals) == _throw_reference(hand, held, centre, towers, lowball), (hand, held, towers)
    # last (high, three held, towers complete): the throws' two-card hands, and keeping all three
    for _ in range(40):
        deck = rng.permutation(52).astype(np.int8)
        held = np.ones(5, np.bool_)
        held[rng.choice(5, 2, replace=False)] = False
        keep = T.throw_values(deck[:5], held, deck[5], deck[6:12], False, True, c[:5], vals[:5], tw)
        kept = [int(x) for x, k in zip(deck[:5], held) if k]
        assert keep == brute_high(kept, int(deck[5]), [int(x) for x in deck[6:12]])
        for j in np.flatnonzero(held):
            pair = [int(deck[q]) for q in np.flatnonzero(held) if q != j]
            assert vals[j] == brute_high(pair, int(deck[5]), [int(x) for x in deck[6:12]])
