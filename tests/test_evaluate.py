"""Tests for simcore.evaluate: exact enumerations, independent cross-checks, rules.

Reference counts come from REFERENCE_VALUES.md (copied to
``tests/reference/hand_counts.json``). Independent evaluators: phevaluator
(lower is better) and eval7 (higher is better); ace-to-six low is checked
against a small pure-Python reference written below from RULES.md.

Slow checks (``-m slow``) repeat the random cross-checks on 1,000,000 hands.
"""

import itertools
import json
from collections import Counter
from math import comb
from pathlib import Path

import eval7
import numpy as np
import phevaluator._pheval as pheval
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simcore.cards import card_to_str, parse_cards
from simcore.evaluate import (
    CATEGORY_NAMES,
    all_five_card_values,
    category_counts_all,
    describe_hand,
    evaluate_choices,
    evaluate_hand,
    evaluate_hands,
    evaluate_low_a6,
    evaluate_omaha,
    group_choices,
    hand_category,
    low_category,
)

REF = json.loads((Path(__file__).parent / "reference" / "hand_counts.json").read_text())
N_FIVE = comb(52, 5)
E7_CARDS = [eval7.Card(card_to_str(c)) for c in range(52)]

# Distinct five-card classes per category (combinatorics, not measured):
# high card / flush: 5 distinct ranks that are no straight; pair 13*C(12,3);
# two pair C(13,2)*11; trips 13*C(12,2); full house and quads 13*12.
# High: 10 straights (five-high .. ace-high). Ace-to-six: 9 (six-high .. king-high).
HIGH_CLASSES = [comb(13, 5) - 10, 13 * comb(12, 3), comb(13, 2) * 11, 13 * comb(12, 2),
                10, comb(13, 5) - 10, 13 * 12, 13 * 12, 10]
LOW_CLASSES = [comb(13, 5) - 9, 13 * comb(12, 3), comb(13, 2) * 11, 13 * comb(12, 2),
               9, comb(13, 5) - 9, 13 * 12, 13 * 12, 9]


# --- helpers -------------------------------------------------------------------

def random_hands(n, k, seed):
    """(n, k) int8 hands of distinct cards, uniformly random."""
    rng = np.random.default_rng(seed)
    return rng.random((n, 52)).argpartition(k, axis=1)[:, :k].astype(np.int8)


def assert_same_order(ours, theirs, what=""):
    """Both rank the hands identically (higher = better in both), ties included.

    Our values and theirs must be in a strictly increasing one-to-one
    correspondence: equal ours <=> equal theirs, and ours < ours' <=> theirs < theirs'.
    """
    ours = np.asarray(ours, np.int64)
    theirs = np.asarray(theirs, np.int64)
    theirs = theirs - theirs.min()
    assert ours.min() >= 0 and ours.max() < 1 << 30 and theirs.max() < 1 << 32
    pairs = np.unique(ours << 32 | theirs)  # sorted by ours, then theirs
    ours_u, theirs_u = pairs >> 32, pairs & 0xFFFFFFFF
    split = np.flatnonzero(np.diff(ours_u) == 0)
    assert split.size == 0, f"{what}: our value {ours_u[split[0]]} covers several of theirs"
    bad = np.flatnonzero(np.diff(theirs_u) <= 0)
    assert bad.size == 0, (
        f"{what}: ours {ours_u[bad[0]]} < {ours_u[bad[0] + 1]} but theirs "
        f"{theirs_u[bad[0]]} >= {theirs_u[bad[0] + 1]}"
    )


def phe_values(hands):
    """phevaluator, negated so that higher is better."""
    f = {5: pheval.evaluate_5cards, 6: pheval.evaluate_6cards, 7: pheval.evaluate_7cards}
    f = f[hands.shape[1]]
    return -np.fromiter(itertools.starmap(f, hands.tolist()), np.int64, count=len(hands))


def e7_values(hands):
    ev, cards = eval7.evaluate, E7_CARDS
    return np.fromiter((ev([cards[c] for c in h]) for h in hands.tolist()),
                       np.int64, count=len(hands))


def relabel_suits(cards, perm):
    cards = np.asarray(cards)
    return (cards // 4 * 4 + np.asarray(perm)[cards % 4]).astype(np.int8)


def cards_strategy(k):
    return st.lists(st.integers(0, 51), min_size=k, max_size=k, unique=True)


# --- exact enumeration ----------------------------------------------------------

@pytest.fixture(scope="module")
def five_hands():
    """All C(52, 5) hands in lexicographic order (the order of all_five_card_values)."""
    return np.fromiter(itertools.combinations(range(52), 5), np.dtype((np.int8, 5)), count=N_FIVE)


@pytest.fixture(scope="module")
def high5():
    return all_five_card_values()


@pytest.fixture(scope="module")
def low5():
    return all_five_card_values("low")


def test_five_card_high_categories_and_classes(high5):
    ref = REF["five_card_high"]
    assert high5.shape == (ref["hands"],)
    assert np.bincount(hand_category(high5), minlength=9).tolist() == ref["by_category"]
    assert np.unique(high5).size == ref["distinct_values"] == sum(HIGH_CLASSES)
    # Layout category << 12 | ordinal, ordinals dense from 0 in each category.
    distinct = np.unique(high5)
    for cat, n in enumerate(HIGH_CLASSES):
        got = distinct[distinct >> 12 == cat]
        assert got.tolist() == list(range(cat << 12, (cat << 12) + n)), CATEGORY_NAMES[cat]


def test_five_card_low_categories_and_classes(low5):
    ref = REF["five_card_ace_to_six"]
    assert low5.shape == (ref["hands"],)
    cats = low_category(low5)
    assert np.bincount(cats, minlength=9).tolist() == ref["by_category"]
    assert np.unique(low5).size == ref["distinct_values"] == sum(LOW_CLASSES)
    for cat, n in enumerate(LOW_CLASSES):
        assert np.unique(low5[cats == cat]).size == n, CATEGORY_NAMES[cat]
    # A better category is a worse low: categories decrease as the value rises.
    order = np.argsort(low5, kind="stable")
    assert np.all(np.diff(cats[order]) <= 0)


def test_five_card_counts_via_category_counts_all():
    assert category_counts_all(5).tolist() == REF["five_card_high"]["by_category"]


@pytest.mark.parametrize("threads", [None, 1])
def test_seven_card_categories_all_hands(threads):
    counts = category_counts_all(7, threads=threads)
    assert counts.tolist() == REF["seven_card_high"]["by_category"]
    assert counts.sum() == comb(52, 7) == REF["seven_card_high"]["hands"]


def test_enumeration_order_matches_evaluate_hands(five_hands, high5):
    sample = np.random.default_rng(5).choice(N_FIVE, 50_000, replace=False)
    assert np.array_equal(evaluate_hands(five_hands[sample]), high5[sample])
    assert np.array_equal(evaluate_low_a6(five_hands[sample]), all_five_card_values("low")[sample])


# --- cross-checks with independent evaluators -------------------------------------

def test_class_representatives_same_order_as_libraries(five_hands, high5):
    """One hand per class (7,462): same order, no ties, in phevaluator and eval7."""
    values, first = np.unique(high5, return_index=True)
    reps = five_hands[first]
    phe, e7 = phe_values(reps), e7_values(reps)
    order = np.argsort(values)
    assert np.all(np.diff(phe[order]) > 0)
    assert np.all(np.diff(e7[order]) > 0)
    # phevaluator numbers the classes 1..7462 from the best down.
    assert sorted((-phe).tolist()) == list(range(1, 7463))


def test_all_five_card_hands_same_order_as_phevaluator(five_hands, high5):
    assert_same_order(high5, phe_values(five_hands), "phevaluator, all 5-card hands")


def test_all_five_card_hands_same_order_as_eval7(five_hands, high5):
    assert_same_order(high5, e7_values(five_hands), "eval7, all 5-card hands")


def _check_random_vs_libraries(n, k, seed):
    hands = random_hands(n, k, seed)
    ours = evaluate_hands(hands)
    assert np.array_equal(ours, evaluate_hands(hands, threads=1))
    phe, e7 = phe_values(hands), e7_values(hands)
    assert_same_order(ours, phe, f"phevaluator, {k} cards")
    assert_same_order(ours, e7, f"eval7, {k} cards")
    # Showdowns between consecutive hands: the same winner every time.
    a, b = slice(0, n - 1, 2), slice(1, n, 2)
    assert np.array_equal(np.sign(ours[a] - ours[b]), np.sign(e7[a] - e7[b]))
    assert np.array_equal(np.sign(ours[a] - ours[b]), np.sign(phe[a] - phe[b]))


@pytest.mark.parametrize("k", [6, 7])
def test_random_hands_same_order_as_libraries(k):
    _check_random_vs_libraries(200_000, k, seed=k)


@pytest.mark.slow
@pytest.mark.parametrize("k", [5, 6, 7])
def test_random_hands_same_order_as_libraries_1m(k):
    _check_random_vs_libraries(1_000_000, k, seed=100 + k)


# --- known hands and descriptions ----------------------------------------------------

@pytest.mark.parametrize("hand, words", [
    ("As Kd Qh Jc Ts", "ace-high straight"),
    ("Ks Kh Kd 9s 9d", "kings full of nines"),
    ("Ks Kh Kd 9s 9d 2c 7h", "kings full of nines"),
    ("Qs Qd 5c 5h 2s", "two pair, queens and fives"),
    ("Qs Qd 5c 5h 2s 2d 3c", "two pair, queens and fives"),
    ("As Ks Qs Js Ts", "royal flush"),
    ("5s 4d 3c 2h Ac", "five-high straight"),
    ("As Ad 7c 5h 2s", "pair of aces"),
    ("As Ad Ah Ac 2s", "four of a kind, aces"),
    ("9s 8s 7s 6s 5s", "nine-high straight flush"),
    ("5s 4s 3s 2s As", "five-high straight flush"),
    ("As Qs 9s 7s 2s", "ace-high flush"),
    ("7s 7d 7c 5h 2s", "three of a kind, sevens"),
    ("As Qd 9s 7s 2s", "ace high"),
    ("7c 5d 4h 3s 2c", "seven high"),
    ("As Kd 6s 5h 4c 3d 2h", "six-high straight"),  # the six-high beats the wheel
    ("Ah Kh 4h 5h 2h 3h 4d", "five-high straight flush"),
    ("Ts 9s 8s 7s 6s 5s Jd", "ten-high straight flush"),
    ("Ks Kd Kh Qs Qd Qh 2c", "kings full of queens"),
    ("As Ad Ah Ac Ks Kd Kh", "four of a kind, aces"),
    ("9s 9d 4c 4h 3s 3d Ac", "two pair, nines and fours"),
])
def test_describe_known_hands(hand, words):
    assert describe_hand(evaluate_hand(hand)) == words


def test_describe_every_class(high5):
    distinct = np.unique(high5)
    words = [describe_hand(v) for v in distinct]
    assert all(words)
    for v, w in zip(distinct, words):
        cat = v >> 12
        if cat == 8:
            assert w == "royal flush" or w.endswith("straight flush")
        elif cat == 4:
            assert w.endswith("-high straight")
        elif cat == 5:
            assert w.endswith("-high flush")
        elif cat == 0:
            assert w.endswith(" high")
    # Words name only the ranks a player names: "X high" and "X-high flush" for
    # X = seven .. ace, one per straight (flush), one per rank or pair of ranks.
    assert len(set(words)) == 8 + 13 + 78 + 13 + 10 + 8 + 156 + 13 + 10


@pytest.mark.parametrize("value", [-1, 9 << 12, (4 << 12) | 10, (8 << 12) | 10, 1277, 1 << 30])
def test_describe_rejects_non_values(value):
    with pytest.raises(ValueError, match=str(value)):
        describe_hand(value)


def test_known_order():
    hands = ["As Ks Qs Js Ts", "Ks Qs Js Ts 9s", "5d 4d 3d 2d Ad", "Ac Ad Ah As Kc",
             "2c 2d 2h 2s 3c", "Ac Ad Ah Kc Kd", "As Qs 9s 7s 2s", "As Kd Qh Jc Ts",
             "5s 4d 3c 2h Ac", "Ac Ad Ah Kc Qd", "Ac Ad Kh Kc Qd", "Ac Ad Kh Qc Jd",
             "As Kd Qs Js 9s", "7c 5d 4h 3s 2c"]
    values = evaluate_hands(np.stack([parse_cards(h) for h in hands]))
    assert np.all(np.diff(values) < 0)
    # Suits never break ties.
    assert evaluate_hand("As Kd Qh Jc 9s") == evaluate_hand("Ad Kh Qc Js 9d")


def test_threads_give_identical_values():
    hands = random_hands(100_003, 7, seed=11)
    base = evaluate_hands(hands, threads=1)
    for threads in (None, 2, 3, 64):
        assert np.array_equal(evaluate_hands(hands, threads=threads), base)
    for k in (5, 6):
        sub = np.ascontiguousarray(hands[:, :k])
        assert np.array_equal(evaluate_hands(sub, threads=2), evaluate_hands(sub, threads=1))


def test_input_forms():
    v = evaluate_hand("As Ks Qs Js Ts")
    assert evaluate_hands("As Ks Qs Js Ts").tolist() == [v]
    assert evaluate_hands([51, 47, 43, 39, 35]).tolist() == [v]
    assert evaluate_hands(np.array([[51, 47, 43, 39, 35]], np.int64)).tolist() == [v]
    assert evaluate_hands(np.array([[51, 47, 43, 39, 35]], np.uint8)).tolist() == [v]
    assert evaluate_hands(np.zeros((0, 7), np.int8)).shape == (0,)
    # A non-contiguous view evaluates the same as a copy.
    hands = random_hands(1000, 7, seed=3)
    assert np.array_equal(evaluate_hands(hands[:, ::-1]), evaluate_hands(hands))
    assert np.array_equal(evaluate_hands(hands[::2, :5]), evaluate_hands(hands[::2, :5].copy()))


# --- bad input --------------------------------------------------------------------------

@pytest.mark.parametrize("func, arr, pattern", [
    (evaluate_hands, np.zeros((3, 4), np.int8), r"\(3, 4\)"),
    (evaluate_hands, np.zeros((3, 8), np.int8), r"\(3, 8\)"),
    (evaluate_hands, np.zeros((2, 3, 7), np.int8), r"\(2, 3, 7\)"),
    (evaluate_hands, np.array([[0, 1, 2, 3, 52]]), "52"),
    (evaluate_hands, np.array([[0, 1, 2, 3, -1]]), "-1"),
    (evaluate_hands, np.array([[0, 1, 2, 3, 300]], np.int16), "300"),
    (evaluate_hands, np.array([[0.0, 1, 2, 3, 4]]), "float64"),
    (evaluate_low_a6, np.zeros((1, 7), np.int8), r"\(1, 7\)"),
    (evaluate_low_a6, np.array([[0, 1, 2, 3, 52]]), "52"),
    (evaluate_low_a6, np.array([[0, 1, 2, 3, 4.0]]), "float64"),
])
def test_bad_cards(func, arr, pattern):
    with pytest.raises(ValueError, match=pattern):
        func(arr)


def test_batch_check_finds_every_planted_error():
    # The batch check finds every planted error, in its row, with its kind,
    # and the message names the row.
    from simcore.evaluate import _first_bad_card

    rng = np.random.default_rng(11)
    hands = random_hands(2000, 7, seed=5)
    assert _first_bad_card(hands)[0] == -1
    for trial in range(300):
        bad = hands.copy()
        i, j = rng.integers(0, len(bad)), rng.integers(0, 7)
        kind = trial % 3
        if kind == 0:  # a repeated card, in any two places of a row
            j2 = (j + 1 + rng.integers(0, 6)) % 7
            bad[i, j] = bad[i, j2]
        else:  # out of range, above or below
            bad[i, j] = rng.choice([52, 63, 64, 100, 127, -1, -52, -128])
        row, card, k = _first_bad_card(bad)
        assert row == i and k == (2 if kind == 0 else 1)
        assert card == bad[i, j] or (kind == 0 and card == bad[i, j2])
        with pytest.raises(ValueError, match=f"row {i}"):
            evaluate_hands(bad)


def test_out_argument():
    hands = random_hands(500, 7, seed=8)
    out = np.full(500, -7, np.int32)
    res = evaluate_hands(hands, out=out)
    assert res is out and np.array_equal(out, evaluate_hands(hands))
    for wrong in (np.empty(499, np.int32), np.empty(500, np.int64), np.empty((500, 2), np.int32)[:, 0],
                  [0] * 500):
        with pytest.raises(ValueError, match="out must be"):
            evaluate_hands(hands, out=wrong)


def test_bad_omaha_input():
    board = np.array([[0, 1, 2, 3, 4]])
    with pytest.raises(ValueError, match=r"\(1, 3\)"):
        evaluate_omaha(np.array([[5, 6, 7]]), board)
    with pytest.raises(ValueError, match=r"\(1, 6\)"):
        evaluate_omaha(np.array([[5, 6, 7, 8, 9, 10]]), board)
    with pytest.raises(ValueError, match=r"\(1, 4\)"):
        evaluate_omaha(np.array([[5, 6, 7, 8]]), board[:, :4])
    with pytest.raises(ValueError, match="52"):
        evaluate_omaha(np.array([[5, 6, 7, 52]]), board)
    with pytest.raises(ValueError, match="-1"):
        evaluate_omaha(np.array([[5, 6, 7, 8]]), np.array([[0, 1, 2, 3, -1]]))
    with pytest.raises(ValueError, match="float"):
        evaluate_omaha(np.array([[5.0, 6, 7, 8]]), board)
    with pytest.raises(ValueError, match="2 hole rows but 1 board rows"):
        evaluate_omaha(np.array([[5, 6, 7, 8], [9, 10, 11, 12]]), board)


def test_bad_counts_argument():
    with pytest.raises(ValueError, match="6"):
        category_counts_all(6)


# --- Omaha -------------------------------------------------------------------------------

def omaha_brute(hole, board):
    """Max over every 2-of-hole x 3-of-board five-card hand (evaluate_hands).

    Also returns the (n, m, 5) five-card hands, for an independent evaluator.
    """
    five = np.stack([np.concatenate([hole[:, list(h)], board[:, list(b)]], axis=1)
                     for h in itertools.combinations(range(hole.shape[1]), 2)
                     for b in itertools.combinations(range(5), 3)], axis=1)
    n, m = five.shape[:2]
    return evaluate_hands(five.reshape(n * m, 5)).reshape(n, m).max(axis=1), five


@pytest.mark.parametrize("k", [4, 5])
def test_omaha_matches_brute_force(k):
    deals = random_hands(5000, k + 5, seed=20 + k)
    hole, board = deals[:, :k], np.ascontiguousarray(deals[:, k:])
    ours = evaluate_omaha(hole, board)
    brute, five = omaha_brute(hole, board)
    assert np.array_equal(ours, brute)
    # Independently: phevaluator on every five-card choice, best (lowest) one.
    phe = phe_values(five.reshape(-1, 5)).reshape(five.shape[:2]).max(axis=1)
    assert_same_order(ours, phe, f"Omaha {k} hole cards, phevaluator 5-card")


def test_omaha_same_order_as_phevaluator_omaha():
    deals = random_hands(20_000, 9, seed=29)
    hole, board = deals[:, :4], deals[:, 4:]
    ours = evaluate_omaha(hole, board)
    phe = -np.fromiter((pheval.evaluate_omaha_cards(*b, *h)
                        for h, b in zip(hole.tolist(), board.tolist())), np.int64, count=len(deals))
    assert_same_order(ours, phe, "phevaluator Omaha")


@pytest.mark.parametrize("hole, board, words", [
    # Four spades in the hand and one on the board: no flush (two from the hand only).
    ("As Ks Qs Js", "2s 7d 8c 9h 3d", "ace high"),
    # A royal flush in Hold'em, but only one spade may come from the hand.
    ("Ts 3c 4c 5c", "As Ks Qs Js 2d", "ace high"),
    # Three board spades + two hole spades do make a flush.
    ("As 2s 7d 7c", "Ks 9s 4s 3d 8h", "ace-high flush"),
    # Board quads: only three of them play, so a full house at most.
    ("2s 2d 5c 6h", "Ks Kd Kc Kh 3c", "kings full of twos"),
    ("As Qd 5c 6h", "Ks Kd Kc Kh 3c", "three of a kind, kings"),
    ("As Ad Ah 6h", "Ks Kd Kc Kh 3c", "kings full of aces"),
    # A board straight needs two hole cards: a pair on the hand plays instead.
    ("9c 9d 2h 2s", "As Kd Qh Jc Tc", "pair of nines"),
    # Three of a kind in the hand: only two of them play.
    ("7s 7d 7c 2h", "Ks Qd 9c 5h 3c", "pair of sevens"),
    # Five hole cards: still exactly two of them.
    ("As Ks Qs Js Ts", "2s 3s 4s 8c 9h", "ace-high flush"),
    ("As Ks Qs Js Ts", "2c 3h 4d 8c 9h", "ace high"),
])
def test_omaha_known_hands(hole, board, words):
    value = evaluate_omaha(parse_cards(hole), parse_cards(board))
    assert describe_hand(value[0]) == words


# --- ace-to-six low ---------------------------------------------------------------------

def a6_key(cards):
    """Ace-to-six class of five cards, from RULES.md; LOWER key = better low.

    The ordinary high ranking with the ace as the lowest rank only: (category,
    ranks by count then rank, descending). A-2-3-4-5 is a straight, T-J-Q-K-A is
    king-high, and flushes and straights count as such.
    """
    ranks = [(c // 4 + 1) % 13 for c in cards]  # ace 0, two 1, ..., king 12
    flush = len({c % 4 for c in cards}) == 1
    counts = Counter(ranks)
    shape = sorted(counts.values(), reverse=True)
    order = tuple(sorted(counts, key=lambda r: (counts[r], r), reverse=True))
    straight = len(counts) == 5 and max(ranks) - min(ranks) == 4
    if straight and flush:
        cat = 8
    elif shape[0] == 4:
        cat = 7
    elif shape == [3, 2]:
        cat = 6
    elif flush:
        cat = 5
    elif straight:
        cat = 4
    elif shape[0] == 3:
        cat = 3
    elif shape == [2, 2, 1]:
        cat = 2
    elif shape[0] == 2:
        cat = 1
    else:
        cat = 0
    return cat, order


def a6_best_key(cards):
    return min(a6_key(sub) for sub in itertools.combinations(cards, 5))


def key_scores(keys):
    """Dense scores of ``keys``, higher = better low (lower key)."""
    ranked = {k: -i for i, k in enumerate(sorted(set(keys)))}
    return np.array([ranked[k] for k in keys], np.int64)


def test_low_matches_reference_all_five_card_hands(five_hands, low5):
    cache = {}
    keys = []
    for hand in five_hands.tolist():
        sig = (tuple(sorted(c // 4 for c in hand)), len({c % 4 for c in hand}) == 1)
        key = cache.get(sig)
        if key is None:
            key = cache[sig] = a6_key(hand)
        keys.append(key)
    scores = key_scores(keys)
    assert_same_order(low5, scores, "ace-to-six reference, all 5-card hands")
    cats = np.array([k[0] for k in keys])
    assert np.array_equal(low_category(low5), cats)


@pytest.mark.parametrize("k", [5, 6])
def test_low_matches_reference_random(k):
    hands = random_hands(20_000, k, seed=40 + k)
    ours = evaluate_low_a6(hands)
    keys = [a6_best_key(h) for h in hands.tolist()]
    assert_same_order(ours, key_scores(keys), f"ace-to-six reference, {k} cards")
    a, b = slice(0, None, 2), slice(1, None, 2)
    ref = key_scores(keys)
    assert np.array_equal(np.sign(ours[a] - ours[b]), np.sign(ref[a] - ref[b]))


def test_low_six_cards_is_best_five_of_six():
    hands = random_hands(30_000, 6, seed=46)
    subsets = [evaluate_low_a6(hands[:, list(s)]) for s in itertools.combinations(range(6), 5)]
    assert np.array_equal(evaluate_low_a6(hands), np.max(subsets, axis=0))


def test_low_best_and_worst_of_all_hands(five_hands, low5):
    best = five_hands[low5 == low5.max()]
    assert len(best) == 4**5 - 4  # 6-4-3-2-A in any suits but one
    assert {tuple(sorted(c // 4 for c in h)) for h in best.tolist()} == {(0, 1, 2, 4, 12)}
    assert all(len({c % 4 for c in h}) > 1 for h in best.tolist())
    worst = five_hands[low5 == low5.min()]
    assert len(worst) == 4  # 9-T-J-Q-K suited: the king-high straight flush
    assert {tuple(sorted(c // 4 for c in h)) for h in worst.tolist()} == {(7, 8, 9, 10, 11)}


def low(*hands):
    return evaluate_low_a6(np.stack([parse_cards(h) for h in hands]))


def test_low_rules():
    best, wheel, six_high_flush = low("6s 4d 3c 2h Ac", "5s 4d 3c 2h Ac", "6s 4s 3s 2s As")
    assert best > wheel and best > six_high_flush
    # A-2-3-4-5 is a straight (worse than any pair); T-J-Q-K-A is king high.
    assert low_category(wheel) == 4
    assert low_category(low("5s 4s 3s 2s As"))[0] == 8
    tjqka, kqjt9, queen_high, aces, kings = low(
        "Ts Jd Qc Kh Ac", "Ks Qd Jc Th 9c", "Qs Jd 9c 8h 7s", "As Ad 7c 8h 9s", "Ks Kd Qc Jh Ts")
    assert low_category(tjqka) == 0 and low_category(kqjt9) == 4
    assert queen_high > tjqka > aces > kings > kqjt9
    # A pair of aces is the best pair, better than a pair of twos.
    aces, twos = low("As Ad 7c 8h 9s", "2s 2d 7c 8h 9s")
    assert aces > twos
    # Trips rank the same way: aces best.
    assert low("As Ad Ac 8h 9s")[0] > low("2s 2d 2c 8h 9s")[0]
    # A flush counts against: worse than trips, better than a full house.
    flush, plain, trips, boat = low("8s 6s 4s 3s 2s", "8s 6d 4s 3s 2s", "Ks Kd Kc Qh Js",
                                    "2s 2d 2c 3h 3s")
    assert low_category(flush) == 5 and plain > trips > flush > boat
    # Six cards: the best five.
    assert low("6s 4d 3c 2h Ac Kd")[0] == best
    assert low("Ks Kd 7c 5h 3s 2d")[0] == low("Ks 7c 5h 3s 2d")[0]
    assert low("5s 4d 3c 2h Ac 7d")[0] == low("7d 4d 3c 2h Ac")[0]


# --- group choices ------------------------------------------------------------------------

# Tapiola: hand cards 0-2, centre 3, tower A 4-6, tower B 7-9.
TAPIOLA = (
    [((0, 1, 2), 3), ((4, 5, 6), 1), ((7, 8, 9), 1)],
    [((0, 1, 2), 2), ((3,), 1), ((4, 5, 6), 1), ((7, 8, 9), 1)],
)


def test_group_choices_tapiola():
    ch = group_choices(*TAPIOLA)
    assert ch.shape == (36, 5) and ch.dtype == np.int8
    rows = {tuple(sorted(r)) for r in ch.tolist()}
    assert len(rows) == 36
    expected = set()
    for a in (4, 5, 6):
        for b in (7, 8, 9):
            expected.add((0, 1, 2, a, b))
            for pair in itertools.combinations((0, 1, 2), 2):
                expected.add(tuple(sorted(pair + (3, a, b))))
    assert rows == expected


@pytest.mark.parametrize("kind", ["high", "low"])
def test_evaluate_choices_matches_brute_force(kind):
    cards = random_hands(5000, 10, seed=50)
    ch = group_choices(*TAPIOLA)
    ours = evaluate_choices(cards, ch, kind)
    each = evaluate_hands if kind == "high" else evaluate_low_a6
    brute = np.max([each(cards[:, list(r)]) for r in ch], axis=0)
    assert np.array_equal(ours, brute)
    if kind == "high":
        phe = np.max([phe_values(cards[:, list(r)]) for r in ch], axis=0)
        assert_same_order(ours, phe, "Tapiola choices, phevaluator")
    else:
        keys = [min(a6_key([h[j] for j in r]) for r in ch.tolist()) for h in cards[:1000].tolist()]
        assert_same_order(ours[:1000], key_scores(keys), "Tapiola low choices, reference")


def test_evaluate_choices_single_row_and_six_card_low():
    cards = random_hands(2000, 6, seed=51)
    assert np.array_equal(evaluate_choices(cards, [[4, 0, 2, 1, 3]]), evaluate_hands(cards[:, :5]))
    five_of_six = np.array(list(itertools.combinations(range(6), 5)))
    assert np.array_equal(evaluate_choices(cards, five_of_six, "low"), evaluate_low_a6(cards))


def test_bad_choices():
    cards = random_hands(3, 10, seed=52)
    with pytest.raises(ValueError, match="exactly five"):
        group_choices([((0, 1, 2), 3), ((4, 5, 6), 1)])
    with pytest.raises(ValueError, match="exactly five"):
        group_choices([((0, 1, 2), 3), ((4, 5, 6), 3)])
    with pytest.raises(ValueError, match="below 10"):
        evaluate_choices(cards, [[0, 1, 2, 3, 10]])
    with pytest.raises(ValueError, match="below 10"):
        evaluate_choices(cards, [[0, 1, 2, 3, -1]])
    with pytest.raises(ValueError, match=r"\(c, 5\)"):
        evaluate_choices(cards, [[0, 1, 2, 3]])
    with pytest.raises(ValueError, match="kind"):
        evaluate_choices(cards, [[0, 1, 2, 3, 4]], "mid")
    with pytest.raises(ValueError, match="52"):
        evaluate_choices(np.array([[0, 1, 2, 3, 52]]), [[0, 1, 2, 3, 4]])


def test_choices_with_repeated_column_rejected():
    with pytest.raises(ValueError, match=r"\[0, 0, 1, 2, 3\] uses a column twice"):
        evaluate_choices(parse_cards("As Ks Qs Js Ts 2c"), [[0, 0, 1, 2, 3]])


@pytest.mark.parametrize("call,match", [
    (lambda c: evaluate_hands(c), "duplicate card As in row 1"),
    (lambda c: evaluate_low_a6(c[:, :5]), "duplicate card As in row 1"),
    (lambda c: evaluate_omaha(c[:, :4], np.array([[0, 1, 2, 3, 4], [5, 6, 7, 8, 51]])), "duplicate card As"),
])
def test_duplicate_cards_in_a_batch_are_named(call, match):
    cards = np.array([[51, 50, 49, 48, 47, 46, 45], [51, 51, 49, 48, 47, 46, 45]], np.int8)
    with pytest.raises(ValueError, match=match):
        call(cards)


def test_engine_path_skips_the_check_but_gives_the_same_values():
    cards = np.random.default_rng(0).random((1000, 52)).argpartition(7, axis=1)[:, :7]
    assert (evaluate_hands(cards, check=False) == evaluate_hands(cards)).all()


# --- properties ------------------------------------------------------------------------------

@settings(max_examples=150)
@given(k=st.sampled_from([5, 6, 7]), data=st.data(), suits=st.permutations(range(4)))
def test_high_invariant_under_order_and_suit_relabelling(k, data, suits):
    cards = np.array(data.draw(cards_strategy(k)), np.int8)
    order = np.array(data.draw(st.permutations(range(k))))
    v = evaluate_hands(cards)[0]
    assert evaluate_hands(cards[order])[0] == v
    assert evaluate_hands(relabel_suits(cards, suits))[0] == v
    assert evaluate_hands(relabel_suits(cards[order], suits))[0] == v


@settings(max_examples=150)
@given(k=st.sampled_from([5, 6]), data=st.data(), suits=st.permutations(range(4)))
def test_low_invariant_under_order_and_suit_relabelling(k, data, suits):
    cards = np.array(data.draw(cards_strategy(k)), np.int8)
    order = np.array(data.draw(st.permutations(range(k))))
    v = evaluate_low_a6(cards)[0]
    assert evaluate_low_a6(relabel_suits(cards[order], suits))[0] == v
    assert evaluate_low_a6(cards[order])[0] == v


@settings(max_examples=150)
@given(k=st.sampled_from([4, 5]), data=st.data(), suits=st.permutations(range(4)))
def test_omaha_invariant_under_order_and_suit_relabelling(k, data, suits):
    cards = np.array(data.draw(cards_strategy(k + 5)), np.int8)
    hole, board = cards[:k], cards[k:]
    ph = np.array(data.draw(st.permutations(range(k))))
    pb = np.array(data.draw(st.permutations(range(5))))
    v = evaluate_omaha(hole, board)[0]
    assert evaluate_omaha(relabel_suits(hole[ph], suits), relabel_suits(board[pb], suits))[0] == v
    assert evaluate_omaha(hole[ph], board[pb])[0] == v


@settings(max_examples=150)
@given(cards=cards_strategy(7))
def test_best_of_seven_is_max_of_the_21_fives(cards):
    cards = np.array(cards, np.int8)
    fives = evaluate_hands(np.array(list(itertools.combinations(cards, 5)), np.int8))
    v = evaluate_hands(cards)[0]
    assert np.all(v >= fives)
    assert v == fives.max()


def test_best_of_seven_and_six_is_max_of_subsets_batch():
    for k in (6, 7):
        hands = random_hands(50_000, k, seed=60 + k)
        subsets = [evaluate_hands(np.ascontiguousarray(hands[:, list(s)]))
                   for s in itertools.combinations(range(k), 5)]
        assert np.array_equal(evaluate_hands(hands), np.max(subsets, axis=0))


# --- the fused check finds every bad card, wherever it lies ---------------------------------
# The check runs 8 rows at a time as vector instructions while 64 bytes can be
# read, and row by row after that: a batch of 40 rows puts bad cards in both.

def _bad_batches(k, seed):
    """(batch, bad?) pairs: one card overwritten with a repeat of its row or a value outside
    0..51, at every row and column of a 40-row batch (plus the good batch)."""
    good = random_hands(40, k, seed=seed)
    yield good, False
    rng = np.random.default_rng(seed)
    for row in range(40):
        for col in range(k):
            rep = good.copy()
            rep[row, col] = rep[row, (col + 1 + rng.integers(k - 1)) % k]
            yield rep, True
            out = good.copy()
            out[row, col] = rng.choice([52, 63, 64, 127, -1, -128])
            yield out, True


@pytest.mark.parametrize("k", [5, 6, 7])
def test_checked_evaluation_finds_every_bad_card(k):
    for cards, bad in _bad_batches(k, seed=60 + k):
        if not bad:
            assert np.array_equal(evaluate_hands(cards), evaluate_hands(cards, check=False))
            continue
        with pytest.raises(ValueError, match="duplicate card|not in 0..51"):
            evaluate_hands(cards)


@pytest.mark.parametrize("k", [2, 5, 6, 7, 8])
def test_bad_rows8_agrees_with_a_plain_check(k):
    """bad_rows8 on every group of 8 rows, against numpy, on whatever instructions this CPU has."""
    from numba import njit

    from simcore.kernels import bad_rows8

    @njit
    def groups(flat):  # k is a constant of the compiled code, as bad_rows8 needs
        n_groups = (flat.shape[0] - 64) // (8 * k) + 1
        out = np.zeros(n_groups, np.bool_)
        for g in range(n_groups):
            out[g] = bad_rows8(flat, np.uint64(g * 8 * k), k) != 0
        return out

    for cards, _ in _bad_batches(k, seed=70 + k):
        got = groups(np.ascontiguousarray(cards).reshape(-1))
        row_bad = (cards < 0) | (cards > 51)
        srt = np.sort(cards, axis=1)
        row_bad = row_bad.any(axis=1) | (np.diff(srt, axis=1) == 0).any(axis=1)
        want = row_bad[:8 * got.size].reshape(-1, 8).any(axis=1)
        assert np.array_equal(got, want)
