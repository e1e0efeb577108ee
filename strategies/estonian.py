"""Estonian Twist policies: which card to pass, which card to discard.

Observations (see simcore/variants/estonian.py):

* pass: ``hand`` (n, 3) int8, the seat's dealt cards; ``flop`` (n, 3) int8.
  Action i passes ``hand[:, i]`` to the left.
* discard: ``hand`` (n, 3) int8 = [kept, kept, received]; ``flop`` (n, 3);
  ``passed`` (n,) int8. Action i discards ``hand[:, i]``.

Cards are ``4*rank + suit`` with suits c < d < h < s, so "the lowest card,
ties broken by suit" is simply the smallest card number.

Every policy here is deterministic (no use of ``rng``); the loops are numba
kernels over the batch. ``random`` and ``rollout`` exist for every decision
(strategies/registry.py, strategies/rollout.py).
"""
from __future__ import annotations

import threading

import numpy as np
from numba import njit

from simcore.kernels import (
    CARD_BIT, CARD_KEY, FLUSH_FLAGS, RANK_HIGH, SUIT_START, rank_slot, value_high,
)

from .features import (
    FLUSH_DRAW, FLUSH_MADE, STRAIGHT_MADE, argmax3, argmax_lowest_card,
    argmin_lowest_card, bit_count, flush_status, lowest_card_rows, lowest_card_within,
    mark_cards, straight_draw, unseen_cards,
)
from .registry import register

V = "estonian"

# -- shared kernels ---------------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def _value5(a, b, fkey, fbits):
    """Five-card value of two hole cards and a flop given by its key and bits."""
    return value_high(fkey + CARD_KEY[a] + CARD_KEY[b], fbits | CARD_BIT[a] | CARD_BIT[b])


@njit(cache=True, nogil=True)
def _draw_level(a, b, f0, f1, f2):
    """Draws of two hole cards with the flop: flush draw 2, open-ended 2, gutshot 1 (max 3).

    Only four-card draws count (three flop cards cannot make one alone, so a
    hole card is always part of it); made straights and flushes count none.
    """
    suits = np.int64(0)  # one byte per suit
    ranks = np.int64(0)
    for c in (a, b, f0, f1, f2):
        suits += np.int64(1) << (8 * (c & 3))
        ranks |= np.int64(1) << (c >> 2)
    level = 0
    for s in range(4):
        flush = flush_status((suits >> (8 * s)) & 255)
        if flush == FLUSH_MADE:
            return 0
        if flush == FLUSH_DRAW:
            level = 2
    straight = straight_draw(ranks)
    if straight == STRAIGHT_MADE:
        return level
    return min(level + straight, 3)  # GUTSHOT 1, OPEN_ENDED 2


@njit(cache=True, nogil=True)
def _danger(c, f0, f1, f2):
    """How much card ``c`` can help a player on this flop (higher helps more).

    Pairing a flop card 3 each; its suit on the flop: three 4, two 2; each
    distinct flop rank within two ranks of it (an ace also plays low) 1; and
    up to 2 for its rank (an ace is a live overcard and a top kicker).
    """
    r = c >> 2
    s = c & 3
    d = 0.0
    n_suit = 0
    near = np.int64(0)
    for f in (f0, f1, f2):
        fr = f >> 2
        if fr == r:
            d += 3.0
        if (f & 3) == s:
            n_suit += 1
        gap = abs(fr - r)
        if r == 12 or fr == 12:
            lo_f = -1 if fr == 12 else fr
            lo_r = -1 if r == 12 else r
            gap = min(gap, abs(lo_f - lo_r))
        if 0 < gap <= 2:
            near |= np.int64(1) << fr
    if n_suit == 3:
        d += 4.0
    elif n_suit == 2:
        d += 2.0
    d += bit_count(near)
    d += 2.0 * r / 12.0
    return d


# -- pass kernels -------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _pass_keep_best(hand, flop):
    """Pass the card whose removal leaves the best kept pair (category, draws, value)."""
    n = hand.shape[0]
    out = np.empty(n, np.int64)
    scores = np.empty(3, np.int64)
    for i in range(n):
        f0, f1, f2 = flop[i, 0], flop[i, 1], flop[i, 2]
        fkey = SUIT_START + CARD_KEY[f0] + CARD_KEY[f1] + CARD_KEY[f2]
        fbits = CARD_BIT[f0] | CARD_BIT[f1] | CARD_BIT[f2]
        for a in range(3):
            x = hand[i, (a + 1) % 3]
            y = hand[i, (a + 2) % 3]
            v = np.int64(_value5(x, y, fkey, fbits))
            scores[a] = (v >> 12) * 65536 + _draw_level(x, y, f0, f1, f2) * 4096 + (v & 4095)
        out[i] = argmax_lowest_card(scores, hand[i])  # ties: pass the lower card
    return out


@njit(cache=True, nogil=True)
def _pass_least_helpful(hand, flop):
    """Pass the card of least danger to the left neighbour (ties: the lower card)."""
    n = hand.shape[0]
    out = np.empty(n, np.int64)
    danger = np.empty(3, np.float64)
    for i in range(n):
        f0, f1, f2 = flop[i, 0], flop[i, 1], flop[i, 2]
        for a in range(3):
            danger[a] = _danger(hand[i, a], f0, f1, f2)
        out[i] = argmin_lowest_card(danger, hand[i])
    return out


# -- potential: expected strength over every turn and river ---------------------------


@njit(cache=True, nogil=True)
def _potential_rows(hole, flop, seen, strength):
    """Mean strength of each kept pair over every unseen turn/river pair.

    hole : (n, k, 2) int8 candidate kept pairs per row.
    flop : (n, 3) int8.
    seen : (n, m) int8 cards the seat has seen (-1 = none); never dealt.
    strength : (9 << 12,) float32 strength of a seven-card value.

    Returns (n, k) float64.
    """
    n, k = hole.shape[0], hole.shape[1]
    out = np.zeros((n, k), np.float64)
    unseen = np.empty(52, np.int64)
    used = np.empty(52, np.bool_)
    okey = np.empty(k, np.uint64)
    obits = np.empty(k, np.uint64)
    acc = np.empty(k, np.float64)
    for i in range(n):
        used[:] = False
        mark_cards(flop[i], used)
        mark_cards(seen[i], used)
        for o in range(k):
            mark_cards(hole[i, o], used)
        m = unseen_cards(used, unseen)
        fkey = SUIT_START + CARD_KEY[flop[i, 0]] + CARD_KEY[flop[i, 1]] + CARD_KEY[flop[i, 2]]
        fbits = CARD_BIT[flop[i, 0]] | CARD_BIT[flop[i, 1]] | CARD_BIT[flop[i, 2]]
        for o in range(k):
            a, b = hole[i, o, 0], hole[i, o, 1]
            okey[o] = fkey + CARD_KEY[a] + CARD_KEY[b]
            obits[o] = fbits | CARD_BIT[a] | CARD_BIT[b]
            acc[o] = 0.0
        for t in range(m - 1):
            ct = unseen[t]
            kt, bt = CARD_KEY[ct], CARD_BIT[ct]
            for r in range(t + 1, m):
                cr = unseen[r]
                kr = kt + CARD_KEY[cr]
                br = bt | CARD_BIT[cr]
                for o in range(k):
                    acc[o] += strength[value_high(okey[o] + kr, obits[o] | br)]
        pairs = m * (m - 1) / 2.0
        for o in range(k):
            out[i, o] = acc[o] / pairs
    return out


@njit(cache=True, nogil=True)
def _sample_cdf(n_hands, seed):
    """Fraction of random seven-card hands below each value (Monte Carlo)."""
    np.random.seed(seed)
    counts = np.zeros(9 << 12, np.float64)
    deck = np.arange(52)
    for _ in range(n_hands):
        key = SUIT_START
        bits = np.uint64(0)
        for j in range(7):
            k = j + np.random.randint(52 - j)
            c = deck[k]
            deck[k] = deck[j]
            deck[j] = c
            key += CARD_KEY[c]
            bits |= CARD_BIT[c]
        counts[value_high(key, bits)] += 1.0
    below = np.empty(9 << 12, np.float64)
    total = 0.0
    for v in range(9 << 12):
        # half of the equal hands count as beaten (a tie is half a win)
        below[v] = (total + 0.5 * counts[v]) / n_hands
        total += counts[v]
    return below


_CDF = None
_STRENGTH: dict[int, np.ndarray] = {}
_LOCK = threading.Lock()
CDF_HANDS = 1 << 21


def strength_table(n_players: int) -> np.ndarray:
    """Strength of a seven-card value at a table of ``n_players``: F(v)^(P-1).

    F is the fraction of random seven-card hands a value beats (ties count
    half), estimated once from 2**21 hands with a fixed seed. F^(P-1) is the
    chance of beating P-1 independent random hands: it ignores that players
    share the board, which matters less when only one player's options are
    compared on the same runouts.
    """
    global _CDF
    with _LOCK:
        if n_players not in _STRENGTH:
            if _CDF is None:
                _CDF = _sample_cdf(CDF_HANDS, 20240917)
            _STRENGTH[n_players] = (_CDF ** max(n_players - 1, 1)).astype(np.float32)
        return _STRENGTH[n_players]


_PAIRS = np.array([[1, 2], [0, 2], [0, 1]], dtype=np.int64)  # kept pair when card i leaves


def potential(hand, flop, seen, n_players) -> np.ndarray:
    """(n, 3) mean strength of keeping the two cards other than hand[:, i].

    hand : (n, 3) int8; flop : (n, 3) int8; seen : (n, m) int8 other cards the
    seat knows are out of the deck (-1 for none); n_players : table size.

    A set of aces is worth more than anything the 2c can make:

    >>> from simcore import parse_cards
    >>> s = potential(parse_cards("Ah Ad 2c")[None], parse_cards("As Kd 7h")[None],
    ...               np.full((1, 1), -1, np.int8), 6)
    >>> int(s[0].argmax())
    2
    """
    hand = np.ascontiguousarray(hand, dtype=np.int8)
    hole = hand[:, _PAIRS]
    return _potential_rows(
        np.ascontiguousarray(hole), np.ascontiguousarray(flop, dtype=np.int8),
        np.ascontiguousarray(seen, dtype=np.int8), strength_table(int(n_players)),
    )


@njit(cache=True, nogil=True)
def _pick_max(scores, hand, margin):
    """Per row, the action of highest score; within ``margin`` of it, the lowest card."""
    n = scores.shape[0]
    out = np.empty(n, np.int64)
    for i in range(n):
        out[i] = lowest_card_within(scores[i], hand[i], margin)
    return out


@njit(cache=True, nogil=True)
def _pick_thoughtful(scores, hand, flop, margin):
    """Among passes within ``margin`` of the best kept pair, the least helpful card."""
    n, k = scores.shape
    out = np.empty(n, np.int64)
    danger = np.empty(k, np.float64)
    for i in range(n):
        top = scores[i, 0]
        for a in range(1, k):
            top = max(top, scores[i, a])
        for a in range(k):
            # passes outside the margin never win: a pass within it has finite danger
            danger[a] = (_danger(hand[i, a], flop[i, 0], flop[i, 1], flop[i, 2])
                         if scores[i, a] >= top - margin else np.inf)
        out[i] = argmin_lowest_card(danger, hand[i])
    return out


# -- discard kernels -----------------------------------------------------------------


@njit(cache=True, nogil=True)
def _discard_best_made(hand, flop):
    """Discard so that the kept pair makes the best five with the flop.

    Ties keep the higher cards, i.e. discard the lowest of the tied cards:
    each option scores 64 * value + (63 - discarded card), all distinct.
    The first pass looks up the non-flush value of every option without
    branching (so the loop vectorises); rows where an option holds a flush,
    rare with five cards, are redone exactly in the second.
    """
    n = hand.shape[0]
    out = np.empty(n, np.int64)
    flush = np.empty(n, np.bool_)
    for i in range(n):
        fkey = SUIT_START + CARD_KEY[flop[i, 0]] + CARD_KEY[flop[i, 1]] + CARD_KEY[flop[i, 2]]
        h0, h1, h2 = hand[i, 0], hand[i, 1], hand[i, 2]
        k0, k1, k2 = CARD_KEY[h0], CARD_KEY[h1], CARD_KEY[h2]
        key0, key1, key2 = fkey + k1 + k2, fkey + k0 + k2, fkey + k0 + k1
        # suit counters never carry, so OR-ing the keys keeps every flush flag
        flush[i] = ((key0 | key1 | key2) & FLUSH_FLAGS) != np.uint64(0)
        out[i] = argmax3(np.int64(RANK_HIGH[rank_slot(key0)]) * 64 + (63 - h0),
                                np.int64(RANK_HIGH[rank_slot(key1)]) * 64 + (63 - h1),
                                np.int64(RANK_HIGH[rank_slot(key2)]) * 64 + (63 - h2))
    for i in range(n):
        if flush[i]:
            f0, f1, f2 = flop[i, 0], flop[i, 1], flop[i, 2]
            fkey = SUIT_START + CARD_KEY[f0] + CARD_KEY[f1] + CARD_KEY[f2]
            fbits = CARD_BIT[f0] | CARD_BIT[f1] | CARD_BIT[f2]
            h0, h1, h2 = hand[i, 0], hand[i, 1], hand[i, 2]
            out[i] = argmax3(np.int64(_value5(h1, h2, fkey, fbits)) * 64 + (63 - h0),
                                    np.int64(_value5(h0, h2, fkey, fbits)) * 64 + (63 - h1),
                                    np.int64(_value5(h0, h1, fkey, fbits)) * 64 + (63 - h2))
    return out


# -- registered policies ---------------------------------------------------------------

THOUGHTFUL_MARGIN = 0.01


def _c(a):
    return np.ascontiguousarray(a, dtype=np.int8)


@register(V, "pass", "lowest", default=True)
def pass_lowest(obs, rng):
    """Pass the lowest card (rank, then suit c<d<h<s).

    >>> from simcore import parse_cards
    >>> pass_lowest({"hand": parse_cards("7s 7c Kd")[None]}, None).tolist()
    [1]
    """
    return lowest_card_rows(_c(obs["hand"]))


@register(V, "pass", "highest")
def pass_highest(obs, rng):
    """Pass the highest card (rank, then suit c<d<h<s)."""
    return lowest_card_rows(_c(obs["hand"]), highest=True)


@register(V, "pass", "keep-best")
def pass_keep_best(obs, rng):
    """Pass the card whose removal leaves the best pair with the flop: made hand, then draws, then high cards."""
    return _pass_keep_best(_c(obs["hand"]), _c(obs["flop"]))


@register(V, "pass", "least-helpful")
def pass_least_helpful(obs, rng):
    """Pass the card least useful to the left neighbour: not pairing, suiting or connecting with the flop, low."""
    return _pass_least_helpful(_c(obs["hand"]), _c(obs["flop"]))


@register(V, "pass", "keep-potential")
def pass_keep_potential(obs, rng):
    """Pass the card whose removal leaves the pair with the best mean strength over every turn and river."""
    hand = _c(obs["hand"])
    scores = potential(hand, obs["flop"], np.full((len(hand), 1), -1, np.int8), obs["n_players"])
    return _pick_max(scores, hand, 1e-12)


@register(V, "pass", "thoughtful")
def pass_thoughtful(obs, rng):
    """Keep the pair with the best turn/river potential; if passes are within 0.01 of it, give the least helpful card."""
    hand = _c(obs["hand"])
    scores = potential(hand, obs["flop"], np.full((len(hand), 1), -1, np.int8), obs["n_players"])
    return _pick_thoughtful(scores, hand, _c(obs["flop"]), THOUGHTFUL_MARGIN)


@register(V, "discard", "best-made", default=True)
def discard_best_made(obs, rng):
    """Keep the two cards that make the best five with the flop (ties: keep the higher cards)."""
    return _discard_best_made(_c(obs["hand"]), _c(obs["flop"]))


@register(V, "discard", "best-potential")
def discard_best_potential(obs, rng):
    """Keep the pair with the best mean strength over every turn and river (draws count)."""
    hand = _c(obs["hand"])
    seen = _c(obs["passed"]).reshape(-1, 1)
    scores = potential(hand, obs["flop"], seen, obs["n_players"])
    return _pick_max(scores, hand, 1e-12)


@register(V, "discard", "lowest")
def discard_lowest(obs, rng):
    """Discard the lowest card (rank, then suit), keeping the two highest."""
    return lowest_card_rows(_c(obs["hand"]))


@register(V, "discard", "received")
def discard_received(obs, rng):
    """Always discard the card received from the right, keeping the two dealt cards."""
    return np.full(len(obs["hand"]), 2, dtype=np.int64)
