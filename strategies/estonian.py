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

import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from simcore.kernels import (
    CARD_BIT, CARD_KEY, FLUSH_FLAGS, FLUSH_HIGH, RANK_HIGH, SUIT_START, flush_ranks, popcount,
    rank_slot, value_high,
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


# -- potential from a table: the same decisions without enumerating per row -----------
#
# The enumeration above sums a pair's strength over every unseen turn and
# river. Whether a card is unseen to the seat or simply out of the deck,
# every option of one decision excludes the same cards, so the sum splits:
#
#     sum over turn/river pairs avoiding F + kept + excluded
#       = T(F + kept)                    all pairs avoiding the five cards
#       - pairs that touch an excluded card
#
# T (a table over all 2,598,960 five-card sets, built once per table size
# from its 134,459 suit-isomorphism classes) depends on the five cards only.
# At the pass the excluded card is the passed one: its pairs, with the kept
# pair and flop, are the flop and whole hand plus one more card, the same
# for every option, so the scores differ by T alone. At the discard the
# card passed earlier, ``x``, is also
# excluded; an option's pairs that touch ``x`` sum to W(F + kept + x), a sum
# over one card, computed only for the options that the bound 0 <= W <= 45
# leaves in contention. The scores differ from the enumeration's by a
# constant per row (the same for every option) and by rounding (about 1e-16,
# far inside the 1e-12 tie margin), so the actions are the same; a test
# compares them on large random samples.

_N5 = 2598960


def _binomials():
    b = np.zeros((53, 6), np.int64)
    for n in range(53):
        for k in range(6):
            b[n, k] = math.comb(n, k)
    return b


_BINOM = _binomials()


@njit(cache=True, nogil=True, inline="always")
def _sort2(a, b):
    return min(a, b), max(a, b)


@njit(cache=True, nogil=True, inline="always")
def _index5(c0, c1, c2, c3, c4):
    """Colex index (0 .. C(52,5)-1) of five distinct cards in any order."""
    # a sorting network (nine compare-exchanges), then sum C(card, place)
    c0, c1 = _sort2(c0, c1)
    c3, c4 = _sort2(c3, c4)
    c2, c4 = _sort2(c2, c4)
    c2, c3 = _sort2(c2, c3)
    c1, c4 = _sort2(c1, c4)
    c0, c3 = _sort2(c0, c3)
    c0, c2 = _sort2(c0, c2)
    c1, c3 = _sort2(c1, c3)
    c1, c2 = _sort2(c1, c2)
    return _BINOM[c0, 1] + _BINOM[c1, 2] + _BINOM[c2, 3] + _BINOM[c3, 4] + _BINOM[c4, 5]


@njit(cache=True, nogil=True)
def _canonical_classes():
    """(canon (C(52,5),) int32, classes): every five-card set's class representative.

    Two sets are in one class when a relabelling of suits maps one onto the
    other; the representative is the set whose suits, by rank mask, are in
    descending order. ``classes`` lists the representatives' indices.
    """
    canon = np.empty(_N5, np.int32)
    masks = np.empty(4, np.int64)
    cards = np.empty(5, np.int64)
    n_classes = 0
    for e in range(4, 52):
        for d in range(3, e):
            for c in range(2, d):
                for b in range(1, c):
                    for a in range(b):
                        masks[:] = 0
                        for x in (a, b, c, d, e):
                            masks[x & 3] |= np.int64(1) << (x >> 2)
                        # descending: an insertion sort of four
                        for u in range(1, 4):
                            v = masks[u]
                            w = u
                            while w > 0 and masks[w - 1] < v:
                                masks[w] = masks[w - 1]
                                w -= 1
                            masks[w] = v
                        k = 0
                        for su in range(4):
                            for r in range(13):
                                if (masks[su] >> r) & 1:
                                    cards[k] = 4 * r + su
                                    k += 1
                        own = _index5(a, b, c, d, e)
                        canon[own] = _index5(cards[0], cards[1], cards[2], cards[3], cards[4])
                        if canon[own] == own:
                            n_classes += 1
    classes = np.empty(n_classes, np.int64)
    k = 0
    for i in range(_N5):
        if canon[i] == i:
            classes[k] = i
            k += 1
    return canon, classes


@njit(cache=True, nogil=True)
def _unrank5(idx, cards):
    """The five cards (ascending) of colex index ``idx``."""
    for place in range(5, 0, -1):
        c = place - 1
        while _BINOM[c + 1, place] <= idx:
            c += 1
        cards[place - 1] = c
        idx -= _BINOM[c, place]


@njit(cache=True, nogil=True)
def _class_sums(classes, strength, out):
    """out[k] = sum of strength over every two-card completion of the set ``classes[k]``."""
    cards = np.empty(5, np.int64)
    used = np.empty(52, np.bool_)
    rest = np.empty(52, np.int64)
    for k in range(classes.shape[0]):
        _unrank5(classes[k], cards)
        used[:] = False
        key = SUIT_START
        bits = np.uint64(0)
        for j in range(5):
            used[cards[j]] = True
            key += CARD_KEY[cards[j]]
            bits |= CARD_BIT[cards[j]]
        m = unseen_cards(used, rest)
        acc = 0.0
        for t in range(m - 1):
            kt = key + CARD_KEY[rest[t]]
            bt = bits | CARD_BIT[rest[t]]
            for r in range(t + 1, m):
                acc += strength[value_high(kt + CARD_KEY[rest[r]], bt | CARD_BIT[rest[r]])]
        out[k] = acc


@njit(cache=True, nogil=True)
def _fill_table(canon, classes, sums, table):
    pos = np.empty(_N5, np.int32)
    for k in range(classes.shape[0]):
        pos[classes[k]] = k
    for i in range(_N5):
        table[i] = sums[pos[canon[i]]]


_CLASSES = None
_TABLES: dict[int, np.ndarray] = {}


def completion_table(n_players: int) -> np.ndarray:
    """(C(52,5),) float64: for every five-card set (colex index), the summed
    strength (:func:`strength_table`) of its completions by two more cards.

    Built on first use per table size (about a second on two cores) from the
    suit-isomorphism classes, so that isomorphic sets hold the same sum.
    """
    global _CLASSES
    strength = strength_table(n_players)
    with _LOCK:
        if n_players in _TABLES:
            return _TABLES[n_players]
        if _CLASSES is None:
            _CLASSES = _canonical_classes()
        canon, classes = _CLASSES
        sums = np.empty(classes.shape[0], np.float64)
        # Threads over chunks (the kernel releases the GIL): safe from any
        # thread, unlike a numba parallel loop inside a run's worker.
        workers = max(1, min(os.cpu_count() or 1, 8))
        bounds = np.linspace(0, classes.shape[0], 4 * workers + 1).astype(np.int64)
        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(lambda k: _class_sums(classes[bounds[k]:bounds[k + 1]], strength,
                                                sums[bounds[k]:bounds[k + 1]]),
                          range(len(bounds) - 1)))
        table = np.empty(_N5, np.float64)
        _fill_table(canon, classes, sums, table)
        table.flags.writeable = False
        _TABLES[n_players] = table
        return table


_SLOT_STRENGTHS: dict[int, tuple] = {}


def _slot_strengths(n_players):
    """Strength by rank-table slot and by flush rank mask (one lookup instead of two)."""
    if n_players not in _SLOT_STRENGTHS:
        strength = strength_table(n_players)
        _SLOT_STRENGTHS[n_players] = (strength[RANK_HIGH], strength[FLUSH_HIGH])
    return _SLOT_STRENGTHS[n_players]


@njit(cache=True, nogil=True)
def _option_indices(hand, flop):
    """(n, 3) colex indices of flop + the pair kept when hand[:, o] leaves."""
    n = hand.shape[0]
    idx = np.empty((n, 3), np.int64)
    for i in range(n):
        f0, f1, f2 = np.int64(flop[i, 0]), np.int64(flop[i, 1]), np.int64(flop[i, 2])
        h0, h1, h2 = np.int64(hand[i, 0]), np.int64(hand[i, 1]), np.int64(hand[i, 2])
        idx[i, 0] = _index5(f0, f1, f2, h1, h2)
        idx[i, 1] = _index5(f0, f1, f2, h0, h2)
        idx[i, 2] = _index5(f0, f1, f2, h0, h1)
    return idx


@njit(cache=True, nogil=True)
def _table_sums(hand, flop, table):
    """(n, 3) table entries of each option's five cards."""
    # Indices first, lookups in a loop of their own: the lookups miss the
    # cache, and with nothing else in the loop many are in flight at once
    # (measured 5x over one loop).
    idx = _option_indices(hand, flop)
    n = hand.shape[0]
    out = np.empty((n, 3), np.float64)
    for i in range(n):
        out[i, 0] = table[idx[i, 0]]
        out[i, 1] = table[idx[i, 1]]
        out[i, 2] = table[idx[i, 2]]
    return out


@njit(cache=True, nogil=True)
def _pass_scores(hand, flop, table):
    """(n, 3) pass scores: the enumeration's potential of each kept pair, up to a per-row constant."""
    # 1035 turn/river pairs from the 46 unseen cards, as in the enumeration
    return _table_sums(hand, flop, table) / 1035.0


_ONE_BIT = np.uint64(1) << np.arange(52, dtype=np.uint64)  # bit ``card``: rank r is the nibble at 4r
_RANK_KEY = np.array([5 ** r for r in range(13)], dtype=np.uint64)


@njit(cache=True, nogil=True, inline="always")
def _sum_over_one_card(key6, bits6, known, rank_strength, flush_strength):
    """Summed strength of six cards (key ``key6``, card bits ``bits6``) with each
    card not in ``known`` (a set of cards, bit ``card``) added.

    Without a flush, a seven-card value depends on the added card's rank alone,
    so the 45 or so additions are 13 lookups weighted by how many cards of
    each rank are left; the cards that complete a four-card flush are looked
    up one by one. Six cards holding a flush already are summed card by card.
    """
    acc = 0.0
    if key6 & FLUSH_FLAGS:
        for c in range(52):
            if not (known >> np.uint64(c)) & np.uint64(1):
                acc += _strength_of(key6 + CARD_KEY[c], bits6 | CARD_BIT[c], rank_strength,
                                   flush_strength)
        return acc
    s4 = -1
    for su in range(4):
        if (key6 >> np.uint64(32 + 4 * su)) & np.uint64(15) == np.uint64(7):  # counter 3 + four cards
            s4 = su
    for r in range(13):
        left = 4 - np.int64(popcount((known >> np.uint64(4 * r)) & np.uint64(15)))
        if s4 >= 0 and not (known >> np.uint64(4 * r + s4)) & np.uint64(1):
            left -= 1  # this one makes the flush
            acc += flush_strength[((bits6 >> np.uint64(16 * s4)) & np.uint64(0x1FFF))
                                  | (np.uint64(1) << np.uint64(r))]
        if left > 0:
            acc += left * rank_strength[rank_slot(key6 + _RANK_KEY[r])]
    return acc


@njit(cache=True, nogil=True, inline="always")
def _strength_of(key, bits, rank_strength, flush_strength):
    """Strength of a 5-7 card hand (summed key, card bits) from the slot strength tables."""
    flags = key & FLUSH_FLAGS
    if flags:
        return flush_strength[flush_ranks(flags, bits)]
    return rank_strength[rank_slot(key)]


@njit(cache=True, nogil=True)
def _discard_best_potential(hand, flop, passed, table, rank_strength, flush_strength, margin):
    """best-potential's discard per row: the enumeration's choice, from the table
    and, for the options still in contention, the pairs that touch the passed card."""
    n = hand.shape[0]
    t5 = _table_sums(hand, flop, table)
    out = np.empty(n, np.int64)
    scores = np.empty(3, np.float64)
    h = np.empty(3, np.int64)
    slack = margin * 990.0 + 1e-9  # the margin, and rounding of sums near 1000 (about 1e-13)
    for i in range(n):
        # score (times 990 pairs, less a per-row constant) = T - W, where W,
        # the sum over the pairs that touch the passed card, is 45 strengths in 0..1
        low = max(t5[i, 0], t5[i, 1], t5[i, 2]) - 45.0
        n_in = 0
        for o in range(3):
            n_in += t5[i, o] >= low - slack
        if n_in == 1:
            out[i] = argmax3(t5[i, 0], t5[i, 1], t5[i, 2])
            continue
        f0, f1, f2 = np.int64(flop[i, 0]), np.int64(flop[i, 1]), np.int64(flop[i, 2])
        h[0], h[1], h[2] = np.int64(hand[i, 0]), np.int64(hand[i, 1]), np.int64(hand[i, 2])
        x = np.int64(passed[i])
        known = (_ONE_BIT[f0] | _ONE_BIT[f1] | _ONE_BIT[f2] | _ONE_BIT[h[0]] | _ONE_BIT[h[1]]
                 | _ONE_BIT[h[2]] | _ONE_BIT[x])
        fkey = SUIT_START + CARD_KEY[f0] + CARD_KEY[f1] + CARD_KEY[f2] + CARD_KEY[x]
        fbits = CARD_BIT[f0] | CARD_BIT[f1] | CARD_BIT[f2] | CARD_BIT[x]
        # options by T, best first: once one score is known exactly, an
        # option whose T (its score's upper bound) falls below it less the
        # margin is out, so W is often summed for the first option only
        first = argmax3(t5[i, 0], t5[i, 1], t5[i, 2])
        cut = low - slack
        for k in range(3):
            o = (first + k) % 3
            if k > 0 and t5[i, (first + 1) % 3] < t5[i, (first + 2) % 3]:
                o = (first + 3 - k) % 3  # the other two in descending T
            if t5[i, o] < cut:
                scores[o] = -np.inf
                continue
            a, b = h[(o + 1) % 3], h[(o + 2) % 3]
            w = _sum_over_one_card(fkey + CARD_KEY[a] + CARD_KEY[b], fbits | CARD_BIT[a] | CARD_BIT[b],
                                   known, rank_strength, flush_strength)
            scores[o] = (t5[i, o] - w) / 990.0
            cut = max(cut, t5[i, o] - w - slack)
        out[i] = lowest_card_within(scores, h, margin)
    return out


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
        n_within = 0
        for a in range(k):
            if scores[i, a] >= top - margin:
                n_within += 1
                out[i] = a
        if n_within == 1:
            continue  # the one pass within the margin: no danger to weigh
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
# Every policy here answers from its observation alone (no random stream, no state):
# pure=True lets a game ask it once for alternatives that show it the same thing
# (EstonianTwist.play_alternatives: a rollout's or a comparison's tables).

THOUGHTFUL_MARGIN = 0.01


def _c(a):
    return np.ascontiguousarray(a, dtype=np.int8)


@register(V, "pass", "lowest", default=True, pure=True)
def pass_lowest(obs, rng):
    """Pass the lowest card (rank, then suit c<d<h<s).

    >>> from simcore import parse_cards
    >>> pass_lowest({"hand": parse_cards("7s 7c Kd")[None]}, None).tolist()
    [1]
    """
    return lowest_card_rows(_c(obs["hand"]))


@register(V, "pass", "highest", pure=True)
def pass_highest(obs, rng):
    """Pass the highest card (rank, then suit c<d<h<s)."""
    return lowest_card_rows(_c(obs["hand"]), highest=True)


@register(V, "pass", "keep-best", pure=True)
def pass_keep_best(obs, rng):
    """Pass the card whose removal leaves the best pair with the flop: made hand, then draws, then high cards."""
    return _pass_keep_best(_c(obs["hand"]), _c(obs["flop"]))


@register(V, "pass", "least-helpful", pure=True)
def pass_least_helpful(obs, rng):
    """Pass the card least useful to the left neighbour: not pairing, suiting or connecting with the flop, low."""
    return _pass_least_helpful(_c(obs["hand"]), _c(obs["flop"]))


@register(V, "pass", "keep-potential", pure=True)
def pass_keep_potential(obs, rng):
    """Pass the card whose removal leaves the pair with the best mean strength over every turn and river."""
    hand = _c(obs["hand"])
    scores = _pass_scores(hand, _c(obs["flop"]), completion_table(int(obs["n_players"])))
    return _pick_max(scores, hand, 1e-12)


@register(V, "pass", "thoughtful", pure=True)
def pass_thoughtful(obs, rng):
    """Keep the pair with the best turn/river potential; if passes are within 0.01 of it, give the least helpful card."""
    hand = _c(obs["hand"])
    flop = _c(obs["flop"])
    scores = _pass_scores(hand, flop, completion_table(int(obs["n_players"])))
    return _pick_thoughtful(scores, hand, flop, THOUGHTFUL_MARGIN)


@register(V, "discard", "best-made", default=True, pure=True)
def discard_best_made(obs, rng):
    """Keep the two cards that make the best five with the flop (ties: keep the higher cards)."""
    return _discard_best_made(_c(obs["hand"]), _c(obs["flop"]))


@register(V, "discard", "best-potential", pure=True)
def discard_best_potential(obs, rng):
    """Keep the pair with the best mean strength over every turn and river (draws count)."""
    P = int(obs["n_players"])
    return _discard_best_potential(_c(obs["hand"]), _c(obs["flop"]), _c(obs["passed"]).reshape(-1),
                                   completion_table(P), *_slot_strengths(P), 1e-12)


@register(V, "discard", "lowest", pure=True)
def discard_lowest(obs, rng):
    """Discard the lowest card (rank, then suit), keeping the two highest."""
    return lowest_card_rows(_c(obs["hand"]))


@register(V, "discard", "received", pure=True)
def discard_received(obs, rng):
    """Always discard the card received from the right, keeping the two dealt cards."""
    return np.full(len(obs["hand"]), 2, dtype=np.int64)

