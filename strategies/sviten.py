"""Sviten Special policies: which cards to throw (``draw``), and whether to keep
a card served face up (``open``).

Observations (see simcore/variants/sviten.py):

* draw: ``hand`` (n, 5) int8, the seat's five cards; ``board`` (n, 3) int8,
  the flop; ``thrown`` (n, P) int8, how many cards each seat has thrown so
  far (-1 for seats yet to name their draw). Action ``a`` (0..31) is a mask:
  bit j throws ``hand[:, j]``.
* open: ``hand`` (n, 5) int8, the five cards held before the throw;
  ``mask`` (n,) int8, the seat's draw; ``open_card`` (n,) int8, the card
  served face up (-1 in rows where the seat did not throw exactly one);
  ``board`` (n, 3) the flop; ``thrown`` (n, P) every seat's count;
  ``open_cards`` (n, P) int8 and ``refused`` (n, P) bool, the cards served
  face up so far. Action 0 keeps the card, 1 refuses it; in rows without an
  open card only 0 is legal.

Cards are ``4*rank + suit`` with suits c < d < h < s, so "the lowest card,
ties broken by suit" is the smallest card number.

The draw policies, as a thoughtful player would play each half:

draw-poker
    the own-five half, by five-card draw practice: stand pat with a straight
    or better; keep trips, two pair (throwing the kicker), quads; draw one to
    a four-flush; keep a pair and draw three; draw one to an open-ended
    straight; with nothing, keep the highest card and draw four.
omaha-flop
    the Omaha half: keep the two cards that play best with the flop (made
    hand first, then flush and straight draws that use both), plus any card
    that pairs the flop; throw the rest.
balanced
    both halves: with two pair or better, play ``draw-poker``; otherwise keep
    every card that either of the two policies keeps.

Every policy except ``random`` is deterministic. ``random`` (the draw's own,
uniform over the 32 masks) and ``rollout`` exist for every decision.
"""
from __future__ import annotations

import threading

import numpy as np
from numba import njit

from simcore.kernels import CARD_BIT, CARD_KEY, SUIT_START, value_high
from simcore.variants.sviten import own_five_value

from .features import (
    OPEN_ENDED, bit_count, lowest_card, mark_cards, rank_mask, straight_draw, straight_outs,
    unseen_cards,
)
from .registry import register

V = "sviten"
KEEP, REFUSE = 0, 1
PAT, ONE_LOWEST, DRAW_POKER, OMAHA_FLOP, BALANCED = range(5)
ACCEPT, DECLINE, IMPROVES, BOTH_HALVES = range(4)


# -- values --------------------------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def _flop_key(flop):
    """The flop's part of a five-card key and bit set (:func:`_pair_on_key` adds the pair's)."""
    key = SUIT_START
    bits = np.uint64(0)
    for j in range(3):
        u = np.uint8(flop[j])
        key += CARD_KEY[u]
        bits |= CARD_BIT[u]
    return key, bits


@njit(cache=True, nogil=True, inline="always")
def _pair_on_key(a, b, key, bits):
    """High value of cards ``a``, ``b`` with the flop whose :func:`_flop_key` is ``key, bits``."""
    ua, ub = np.uint8(a), np.uint8(b)
    return value_high(key + CARD_KEY[ua] + CARD_KEY[ub], bits | CARD_BIT[ua] | CARD_BIT[ub])


@njit(cache=True, nogil=True, inline="always")
def _pair_with_flop(a, b, flop):
    """High value of cards ``a``, ``b`` and the three flop cards (an Omaha hand on the flop)."""
    key, bits = _flop_key(flop)
    return _pair_on_key(a, b, key, bits)


@njit(cache=True, nogil=True)
def _omaha_on_flop(h, flop):
    """Best two of the five cards ``h`` with the flop: the Omaha hand made so far."""
    best = np.int32(0)
    for a in range(4):
        for b in range(a + 1, 5):
            v = _pair_with_flop(h[a], h[b], flop)
            if v > best:
                best = v
    return best


# -- draw policies ---------------------------------------------------------------------


@njit(cache=True, nogil=True)
def draw_poker_keep(h):
    """Cards (5-bit mask) that five-card draw practice keeps from the five cards ``h``.

    >>> from simcore.cards import parse_cards
    >>> bin(draw_poker_keep(parse_cards("7s 7d Kc 4h 2s")))  # keep the pair
    '0b11'
    >>> bin(draw_poker_keep(parse_cards("As 9s 6s 2s Kd")))  # draw to the flush
    '0b1111'
    """
    v = own_five_value(h)
    cat = v >> 12
    if cat >= 4:
        return 31
    ranks = np.zeros(13, np.int64)
    suits = np.zeros(4, np.int64)
    for j in range(5):
        ranks[h[j] >> 2] += 1
        suits[h[j] & 3] += 1
    keep = 0
    if cat == 2 or cat == 3:  # two pair, trips (quads stand pat above)
        for j in range(5):
            if ranks[h[j] >> 2] >= 2:
                keep |= 1 << j
        return keep
    for s in range(4):
        if suits[s] == 4:
            for j in range(5):
                if h[j] & 3 == s:
                    keep |= 1 << j
            return keep
    if cat == 1:
        for j in range(5):
            if ranks[h[j] >> 2] == 2:
                keep |= 1 << j
        return keep
    rm = rank_mask(h)
    if straight_draw(rm) == OPEN_ENDED:
        # keep the cards whose rank is part of a four-card straight draw
        for j in range(5):
            others = rm & ~(np.int64(1) << (h[j] >> 2))
            made, outs = straight_outs(others, -1)
            if bit_count(outs) < 2:  # without it the draw is gone: it belongs
                keep |= 1 << j
        if bit_count(keep) == 4:
            return keep
        keep = 0
    hi = 0
    for j in range(1, 5):
        if h[j] > h[hi]:
            hi = j
    return 1 << hi


@njit(cache=True, nogil=True)
def _pair_draw_level(a, b, flop):
    """Flush and straight draws of cards ``a``, ``b`` with the flop that use both cards:
    a flush draw 2, an open-ended straight 2, a gutshot 1 (at most 3)."""
    level = 0
    if (a & 3) == (b & 3):
        k = 0
        for j in range(3):
            k += (flop[j] & 3) == (a & 3)
        if k == 2:
            level += 2
    ranks = (np.int64(1) << (a >> 2)) | (np.int64(1) << (b >> 2))
    for j in range(3):
        ranks |= np.int64(1) << (flop[j] >> 2)
    made_a, outs_a = straight_outs(ranks, a >> 2)
    made_b, outs_b = straight_outs(ranks, b >> 2)
    if not (made_a and made_b):
        n = bit_count(outs_a & outs_b)
        level += 2 if n >= 2 else n
    return min(level, 3)


@njit(cache=True, nogil=True)
def omaha_flop_keep(h, flop):
    """Cards (5-bit mask) that play for the Omaha half: the best two with the flop,
    and every card that pairs the flop.

    >>> from simcore.cards import parse_cards
    >>> bin(omaha_flop_keep(parse_cards("Ks Qs 7d 4c 2h"), parse_cards("Js Ts 3h")))
    '0b11'
    """
    best = -1
    pa, pb = 0, 1
    for a in range(4):
        for b in range(a + 1, 5):
            v = _pair_with_flop(h[a], h[b], flop)
            score = (np.int64(v >> 12) * 4 + _pair_draw_level(h[a], h[b], flop)) * 65536 + v
            if score > best:
                best, pa, pb = score, a, b
    keep = (1 << pa) | (1 << pb)
    for j in range(5):
        for f in range(3):
            if h[j] >> 2 == flop[f] >> 2:
                keep |= 1 << j
    return keep


@njit(cache=True, nogil=True)
def _draw_kernel(hand, flop, code):
    n = hand.shape[0]
    out = np.zeros(n, np.int64)
    for i in range(n):
        h = hand[i]
        if code == ONE_LOWEST:
            out[i] = 1 << lowest_card(h)
            continue
        if code == DRAW_POKER:
            keep = draw_poker_keep(h)
        elif code == OMAHA_FLOP:
            keep = omaha_flop_keep(h, flop[i])
        else:  # BALANCED
            keep = draw_poker_keep(h)
            if (own_five_value(h) >> 12) < 2:
                keep |= omaha_flop_keep(h, flop[i])
        out[i] = 31 & ~keep
    return out


def _draw_policy(code):
    def strategy(obs, rng):
        hand = obs["hand"]
        if code == PAT:
            return np.zeros(hand.shape[0], np.int64)
        return _draw_kernel(np.ascontiguousarray(hand, dtype=np.int8),
                            np.ascontiguousarray(obs["board"], dtype=np.int8), code)

    return strategy


def _random_draw(obs, rng):
    return rng.integers(0, 32, obs["hand"].shape[0]).astype(np.int64)


# -- open policies -----------------------------------------------------------------------

_PCT = None
_PCT_LOCK = threading.Lock()


def strength_table() -> np.ndarray:
    """(36864,) float64: for each high value, the fraction of all 2,598,960 five-card
    hands it beats (ties count half). A common scale for the two halves.

    >>> from simcore.evaluate import evaluate_hand
    >>> float(strength_table()[evaluate_hand("As Ks Qs Js Ts")]) > 0.99999  # beats all but the other royals
    True
    >>> round(float(strength_table()[evaluate_hand("2c 2d 3h 4s 5c")]), 3)  # the lowest pair
    0.501
    """
    global _PCT
    with _PCT_LOCK:
        if _PCT is None:
            from simcore.evaluate import all_five_card_values

            counts = np.bincount(all_five_card_values(), minlength=9 << 12).astype(np.float64)
            below = np.cumsum(counts) - counts
            _PCT = (below + 0.5 * counts) / counts.sum()
        return _PCT


@njit(cache=True, nogil=True)
def _both_halves_score(h, flop, pct):
    return pct[own_five_value(h)] + pct[_omaha_on_flop(h, flop)]


@njit(cache=True, nogil=True)
def _mean_both_halves(h, slot, flop, unseen, m, pct):
    """The mean of :func:`_both_halves_score` over ``h`` with ``h[slot]`` each of the ``m`` cards
    ``unseen[:m]`` (summed in that order, as one score at a time would be). The six Omaha pairs
    without the slot are the same for every card, so they are valued once: four pairs a card
    instead of ten."""
    key, bits = _flop_key(flop)
    rest = np.int32(0)  # the best pair without the slot
    for a in range(4):
        for b in range(a + 1, 5):
            if a != slot and b != slot:
                v = _pair_on_key(h[a], h[b], key, bits)
                if v > rest:
                    rest = v
    total = 0.0
    for k in range(m):
        u = unseen[k]
        h[slot] = u
        best = rest
        for j in range(5):
            if j != slot:
                v = _pair_on_key(h[j], u, key, bits)
                if v > best:
                    best = v
        total += pct[own_five_value(h)] + pct[best]
    return total / max(m, 1)


@njit(cache=True, nogil=True)
def _open_kernel(hand, mask, open_card, flop, open_cards, legal, code, pct):
    n = hand.shape[0]
    out = np.zeros(n, np.int64)
    h = np.empty(5, np.int64)
    used = np.zeros(52, np.bool_)
    unseen = np.empty(52, np.int64)
    for i in range(n):
        if not legal[i, REFUSE]:
            continue
        if code == DECLINE:
            out[i] = REFUSE
            continue
        slot = 0
        while not (mask[i] >> slot) & 1:
            slot += 1
        for j in range(5):
            h[j] = hand[i, j]
        if code == IMPROVES:
            before = own_five_value(h)
            h[slot] = open_card[i]
            out[i] = KEEP if own_five_value(h) >= before else REFUSE
            continue
        # BOTH_HALVES: the open card against the average card still unseen
        used[:] = False
        mark_cards(hand[i], used)
        mark_cards(flop[i], used)
        mark_cards(open_cards[i], used)
        m = unseen_cards(used, unseen)
        mean = _mean_both_halves(h, slot, flop[i], unseen, m, pct)
        h[slot] = open_card[i]
        out[i] = KEEP if _both_halves_score(h, flop[i], pct) >= mean else REFUSE
    return out


def _open_policy(code):
    def strategy(obs, rng):
        legal = obs["legal"]
        if code == ACCEPT:
            return np.zeros(legal.shape[0], np.int64)
        pct = strength_table() if code == BOTH_HALVES else np.zeros(1)
        return _open_kernel(
            np.ascontiguousarray(obs["hand"], dtype=np.int8), np.ascontiguousarray(obs["mask"], dtype=np.int8),
            np.ascontiguousarray(obs["open_card"], dtype=np.int8), np.ascontiguousarray(obs["board"], dtype=np.int8),
            np.ascontiguousarray(obs["open_cards"], dtype=np.int8), np.ascontiguousarray(legal), code, pct)

    return strategy


_DRAW = (
    ("pat", PAT, "throw nothing"),
    ("one-lowest", ONE_LOWEST, "throw exactly the lowest card (rank, ace high; then suit)"),
    ("draw-poker", DRAW_POKER, "five-card draw practice for the own-five half: pat with a straight "
                               "or better, keep pairs and trips, draw to four-flushes and open-enders"),
    ("omaha-flop", OMAHA_FLOP, "for the Omaha half: keep the best two cards with the flop and "
                               "cards that pair it, throw the rest"),
    ("balanced", BALANCED, "both halves: draw-poker with two pair or better, else keep what "
                           "either draw-poker or omaha-flop keeps"),
)
_OPEN = (
    ("accept", ACCEPT, "keep every card served face up"),
    ("decline", DECLINE, "refuse every card served face up"),
    ("improves", IMPROVES, "keep it if the own five with it are at least as strong as before the throw"),
    ("both-halves", BOTH_HALVES, "keep it if it makes the own five plus the Omaha hand on the flop "
                                 "(each as a fraction of five-card hands beaten) at least as strong "
                                 "as an average unseen card would"),
)

# seat_view: each one that reads its cards reads only the seat's own cards, the flop and (open)
# the cards served face up so far (simcore.variants.sviten.seat_view), row by row, drawing
# nothing. pat, accept and decline read nothing: asking them is cheaper than comparing views.
_CONSTANT = {"pat", "accept", "decline"}
for _name, _code, _text in _DRAW:
    register(V, "draw", _name, _text, default=_name == "pat",
             **({} if _name in _CONSTANT else {"seat_view": True}))(_draw_policy(_code))
register(V, "draw", "random", "uniform over the 32 ways to throw")(_random_draw)
for _name, _code, _text in _OPEN:
    register(V, "open", _name, _text, default=_name == "accept",
             **({} if _name in _CONSTANT else {"seat_view": True}))(_open_policy(_code))


# -- hand classes and draws by count (for charts) ------------------------------------------

HAND_CLASSES = (
    "straight or better", "trips", "two pair", "pair JJ-AA", "pair 22-TT",
    "four-flush", "open-ender", "ace high", "king high or less",
)


@njit(cache=True, nogil=True)
def _hand_class(h):
    cat = own_five_value(h) >> 12
    if cat >= 4:
        return 0
    if cat == 3:
        return 1
    if cat == 2:
        return 2
    if cat == 1:
        ranks = np.zeros(13, np.int64)
        for j in range(5):
            ranks[h[j] >> 2] += 1
        for r in range(13):
            if ranks[r] == 2:
                return 3 if r >= 9 else 4
    suits = np.zeros(4, np.int64)
    hi = 0
    for j in range(5):
        suits[h[j] & 3] += 1
        hi = max(hi, h[j] >> 2)
    for s in range(4):
        if suits[s] == 4:
            return 5
    if straight_draw(rank_mask(h)) == OPEN_ENDED:
        return 6
    return 7 if hi == 12 else 8


@njit(cache=True, nogil=True)
def _classes_kernel(hands, out):
    for i in range(hands.shape[0]):
        out[i] = _hand_class(hands[i])


def hand_classes(hands) -> np.ndarray:
    """Own-five class (index into :data:`HAND_CLASSES`) of each five-card row.

    Classes go by five-card draw practice: made straights and better, trips,
    two pair, high and low pairs, then (no pair) four-flushes, open-ended
    straight draws, ace high and the rest.

    >>> from simcore.cards import parse_cards
    >>> [HAND_CLASSES[c] for c in hand_classes(np.stack([parse_cards("Qs Qd 7c 4h 2s"),
    ...                                                   parse_cards("9s 8d 7c 6h 2c")]))]
    ['pair JJ-AA', 'open-ender']
    """
    hands = np.ascontiguousarray(hands, dtype=np.int8)
    if hands.ndim != 2 or hands.shape[1] != 5:
        raise ValueError(f"hands: expected (n, 5) cards, got shape {hands.shape}")
    out = np.empty(hands.shape[0], np.int64)
    _classes_kernel(hands, out)
    return out


@njit(cache=True, nogil=True)
def _throw_count_kernel(hand, k, out):
    pri = np.empty(5, np.int64)
    for i in range(hand.shape[0]):
        keep = draw_poker_keep(hand[i])
        for j in range(5):
            # kept by draw practice first, then by card (rank, then suit)
            pri[j] = ((keep >> j) & 1) * 64 + hand[i, j]
        m = 0
        for _ in range(k):
            lo = -1
            for j in range(5):
                if not (m >> j) & 1 and (lo < 0 or pri[j] < pri[lo]):
                    lo = j
            m |= 1 << lo
        out[i] = m


def throw_count_masks(hand, k: int) -> np.ndarray:
    """Draw masks (n,) that throw exactly ``k`` cards: those draw practice values least.

    The cards ``draw-poker`` keeps go last; among the rest, and among those,
    the lowest card goes first.

    >>> from simcore.cards import parse_cards
    >>> bin(int(throw_count_masks(parse_cards("7s 7d Kc 4h 2s")[None], 2)[0]))
    '0b11000'
    """
    if not 0 <= int(k) <= 5:
        raise ValueError(f"k: 0 to 5 cards, got {k!r}")
    hand = np.ascontiguousarray(hand, dtype=np.int8)
    out = np.empty(hand.shape[0], np.int64)
    _throw_count_kernel(hand, int(k), out)
    return out
