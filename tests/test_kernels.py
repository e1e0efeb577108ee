"""Tests for simcore.kernels: each building block against the batch evaluators
(whose 7-card path, ``flush_value`` aside, does not go through these kernels)
or against a reference written here from RULES.md.

Flush paths are rare in random hands, so the checks also run on hands dealt
from two suits (flushes mixed with pairs) or from one suit (flushes only).
"""
import itertools

import numpy as np
import pytest
from numba import njit

from simcore.cards import parse_cards
from simcore.evaluate import (
    evaluate_hands, evaluate_low_a6, evaluate_omaha, group_choices, hand_category, low_category,
)
from simcore.kernels import (
    CARD_BIT, CARD_KEY, FLUSH_FLAGS, RANK_HIGH, SUIT_START, best_choice_value, best_omaha_value,
    category_high, category_low, flush_ranks, flush_value, pot_best, pot_share, rank_slot, value_five_high,
    value_five_low, value_high, value_low5, value_two_and_board,
)


def deal(n, k, seed, suits=4):
    """(n, k) int8 distinct cards per row, from the first ``suits`` suits."""
    rng = np.random.default_rng(seed)
    deck = np.array([c for c in range(52) if c % 4 < suits])
    idx = np.argsort(rng.random((n, len(deck))), axis=1)[:, :k]
    return deck[idx].astype(np.int8)


@njit
def _key_bits(cards, i):
    key = SUIT_START
    bits = np.uint64(0)
    for j in range(cards.shape[1]):
        key += CARD_KEY[cards[i, j]]
        bits |= CARD_BIT[cards[i, j]]
    return key, bits


@njit
def _values(cards, low):
    out = np.empty(cards.shape[0], np.int32)
    for i in range(cards.shape[0]):
        key, bits = _key_bits(cards, i)
        out[i] = value_low5(key, bits) if low else value_high(key, bits)
    return out


@njit
def _rank_lookups(cards):
    """RANK_HIGH at rank_slot, and flush_value where the key flags a flush."""
    out = np.empty(cards.shape[0], np.int32)
    for i in range(cards.shape[0]):
        key, bits = _key_bits(cards, i)
        if key & FLUSH_FLAGS:
            out[i] = flush_value(cards, i, cards.shape[1], key)
        else:
            out[i] = np.int32(RANK_HIGH[rank_slot(key)])
    return out


@njit
def _two_and_board(cards):
    out = np.empty(cards.shape[0], np.int32)
    for i in range(cards.shape[0]):
        key, _ = _key_bits(cards, i)
        out[i] = value_two_and_board(key, cards[i, 0], cards[i, 1], cards, i, 2)
    return out


@njit
def _fives(cards, low):
    out = np.empty(cards.shape[0], np.int32)
    for i in range(cards.shape[0]):
        c = cards[i]
        out[i] = (value_five_low(c[0], c[1], c[2], c[3], c[4]) if low
                  else value_five_high(c[0], c[1], c[2], c[3], c[4]))
    return out


@njit
def _choices(cards, choices, low):
    out = np.empty(cards.shape[0], np.int32)
    for i in range(cards.shape[0]):
        out[i] = best_choice_value(cards, i, choices, low)
    return out


@njit
def _omaha(hole, board):
    out = np.empty(hole.shape[0], np.int32)
    tkey = np.empty(10, np.uint64)
    tbits = np.empty(10, np.uint64)
    for i in range(hole.shape[0]):
        out[i] = best_omaha_value(hole, board, i, tkey, tbits)
    return out


@njit
def _categories(values, low):
    out = np.empty(values.shape[0], np.int64)
    for i in range(values.shape[0]):
        out[i] = category_low(values[i]) if low else category_high(values[i])
    return out


@pytest.mark.parametrize("suits", [4, 2, 1])
@pytest.mark.parametrize("k", [5, 6, 7])
def test_value_high_agrees_with_evaluate_hands(k, suits):
    cards = deal(20000, k, seed=10 * k + suits, suits=suits)
    want = evaluate_hands(cards)
    assert (_values(cards, False) == want).all()
    assert (_rank_lookups(cards) == want).all()
    if k == 7:
        assert (_two_and_board(cards) == want).all()
    if suits == 1:
        assert (hand_category(want) >= 5).all()  # every hand took a flush path


def test_flush_ranks_is_the_flush_suits_rank_set():
    cards = parse_cards("As Ks 9s 4s 2s 2d 3h")
    key = SUIT_START + CARD_KEY[cards].sum(dtype=np.uint64)
    bits = np.bitwise_or.reduce(CARD_BIT[cards])
    assert int(flush_ranks(key & FLUSH_FLAGS, bits)) == sum(1 << r for r in (12, 11, 7, 2, 0))


# Ace-to-six low from RULES.md: a high-hand value with the ace as the lowest
# rank only (A-2-3-4-5 is a straight, 10-J-Q-K-A is not); the lowest wins.
def low_reference(hand):
    ranks = sorted(((c >> 2) + 1) % 13 for c in hand)  # ace 0, deuce 1, ... king 12
    flush = len({c & 3 for c in hand}) == 1
    straight = len(set(ranks)) == 5 and ranks[4] - ranks[0] == 4
    groups = sorted(((ranks.count(r), r) for r in set(ranks)), reverse=True)
    shape = [g[0] for g in groups]
    cat = (8 if straight and flush else 7 if shape[0] == 4 else 6 if shape == [3, 2]
           else 5 if flush else 4 if straight else 3 if shape[0] == 3
           else 2 if shape == [2, 2, 1] else 1 if shape[0] == 2 else 0)
    return (cat, [g[1] for g in groups])


@pytest.mark.parametrize("suits", [4, 2])
def test_value_low5_orders_hands_as_ace_to_six_low(suits):
    cards = deal(1500, 5, seed=7 + suits, suits=suits)
    values = _values(cards, True)
    assert (values == evaluate_low_a6(cards)).all()
    assert (_fives(cards, True) == values).all()
    refs = [low_reference(h.tolist()) for h in cards]
    for a, b in itertools.combinations(range(300), 2):
        # a higher value wins, i.e. has the lower reference
        assert np.sign(values[a] - values[b]) == (refs[a] < refs[b]) - (refs[a] > refs[b])
    assert (_categories(values, True) == low_category(values)).all()
    assert (_categories(values, True) == [r[0] for r in refs]).all()


def test_best_low_is_six_four_and_wheel_is_a_straight():
    best, wheel = parse_cards("6s 4d 3c 2h Ac"), parse_cards("5s 4d 3c 2h Ac")
    assert value_five_low(*best) > value_five_low(*wheel)
    assert category_low(value_five_low(*wheel)) == 4


@pytest.mark.parametrize("suits", [4, 2])
def test_value_five_high_and_categories(suits):
    cards = deal(20000, 5, seed=3 + suits, suits=suits)
    want = evaluate_hands(cards)
    assert (_fives(cards, False) == want).all()
    assert (_categories(want, False) == hand_category(want)).all()


@pytest.mark.parametrize("suits", [4, 1])
def test_best_choice_value_is_the_best_of_its_choices(suits):
    # Tapiola's 36 tower choices over 10 cards, and every five of six for low
    cards = deal(3000, 10, seed=20 + suits, suits=suits)
    choices = group_choices([((0, 1, 2), 3), ((4, 5, 6), 1), ((7, 8, 9), 1)],
                            [((0, 1, 2), 2), ((3,), 1), ((4, 5, 6), 1), ((7, 8, 9), 1)])
    per_choice = np.stack([evaluate_hands(cards[:, ch]) for ch in choices], axis=1)
    assert (_choices(cards, choices, False) == per_choice.max(axis=1)).all()
    six = np.array(list(itertools.combinations(range(6), 5)), dtype=np.int8)
    per_low = np.stack([_values(np.ascontiguousarray(cards[:, ch]), True) for ch in six], axis=1)
    assert (_choices(cards, six, True) == per_low.max(axis=1)).all()


@pytest.mark.parametrize("h", [4, 5])
@pytest.mark.parametrize("suits", [4, 2, 1])
def test_best_omaha_value_uses_two_hole_and_three_board_cards(h, suits):
    cards = deal(2000, h + 5, seed=30 + h + suits, suits=suits)
    hole, board = np.ascontiguousarray(cards[:, :h]), np.ascontiguousarray(cards[:, h:])
    hands = [np.concatenate([hole[:, list(p)], board[:, list(t)]], axis=1)
             for p in itertools.combinations(range(h), 2)
             for t in itertools.combinations(range(5), 3)]
    want = np.stack([evaluate_hands(x) for x in hands], axis=1).max(axis=1)
    assert (_omaha(hole, board) == want).all()
    assert (evaluate_omaha(hole, board) == want).all()


@njit
def _settle(values):
    shares = np.empty(values.shape, np.float64)
    wins = np.empty(values.shape, np.bool_)
    ties = np.empty(values.shape, np.bool_)
    for i in range(values.shape[0]):
        best, k = pot_best(values[i])
        for p in range(values.shape[1]):
            shares[i, p], wins[i, p], ties[i, p] = pot_share(values[i, p], best, k)
    return shares, wins, ties


@pytest.mark.parametrize("P", [2, 3, 6])
def test_pot_settlement_is_the_best_value_taking_the_pot_and_ties_splitting_it(P):
    """pot_best / pot_share against the rule written here, on values with many ties;
    every pot game's settlement (Outcome.from_values, pot_shares, Tapiola's flags)
    gives the same, bit for bit."""
    from simcore.engine import Outcome, pot_shares
    from simcore.variants.tapiola import best_flags

    values = np.random.default_rng(P).integers(0, 4, (3000, P)).astype(np.int32)
    top = values == values.max(axis=1, keepdims=True)
    k = top.sum(axis=1, keepdims=True)
    want = (np.where(top, 1.0 / k, 0.0), top & (k == 1), top & (k > 1))
    for got, exp in zip(_settle(values), want):
        assert got.dtype == exp.dtype and np.array_equal(got, exp)
    o = Outcome.from_values(values)
    assert np.array_equal(o.payoffs, want[0]) and np.array_equal(o.wins, want[1]) and np.array_equal(o.ties, want[2])
    assert np.array_equal(pot_shares(values), want[0])
    wins, ties = np.empty(values.shape, np.bool_), np.empty(values.shape, np.bool_)
    best_flags(values, wins, ties)
    assert np.array_equal(wins, want[1]) and np.array_equal(ties, want[2])
