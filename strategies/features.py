"""What policies read off cards: draws, the unseen deck, and tie-break pickers.

Shared by every variant's strategies so that a rule such as "four cards to a
straight" is written once. Cards are ``4*rank + suit`` (rank 0 = deuce ..
12 = ace, suits c < d < h < s), so the smallest card number is the lowest card
by rank, then by suit. Negative entries in a card array mean "no card" and are
skipped wherever a function takes an array of cards.

Blocks
------
Counting
    :func:`bit_count`, :func:`rank_mask`, :func:`count_ranks_suits`.
Flush draws
    :func:`flush_status` of the number of cards held in one suit:
    :data:`FLUSH_MADE` (five or more), :data:`FLUSH_DRAW` (exactly four),
    :data:`NO_FLUSH`.
Straight draws
    :func:`straight_outs` (does a rank set hold a straight, and which ranks
    would complete one, optionally only straights that use a given rank) and
    :func:`straight_draw` (:data:`STRAIGHT_MADE`, :data:`OPEN_ENDED`,
    :data:`GUTSHOT`, :data:`NO_STRAIGHT_DRAW`). A draw is four of the five
    ranks of some straight; the ace plays high and low.
The unseen deck
    :func:`mark_cards`, :func:`unseen_cards` (one row, inside a kernel) and
    :func:`unseen_mask` (a batch, from Python).
Tie-break pickers
    :func:`lowest_card`, :func:`highest_card`, :func:`lower_of_two`,
    :func:`lowest_card_rows`, :func:`argmax3`, :func:`argmax_lowest_card`,
    :func:`argmin_lowest_card`, :func:`lowest_card_within`. Policies that score
    their actions use these so that ties always go the same documented way.

Every function except :func:`unseen_mask` and :func:`lowest_card_rows` is a
jitted kernel meant to be called inside another kernel's row loop.

>>> from simcore.cards import parse_cards
>>> straight_draw(rank_mask(parse_cards("9s 8d 7c 6h 2c"))) == OPEN_ENDED
True
>>> straight_draw(rank_mask(parse_cards("As Kd Qc Jh 2c"))) == GUTSHOT
True
"""
from __future__ import annotations

import numpy as np
from numba import njit

__all__ = [
    "NO_FLUSH", "FLUSH_DRAW", "FLUSH_MADE",
    "NO_STRAIGHT_DRAW", "GUTSHOT", "OPEN_ENDED", "STRAIGHT_MADE",
    "bit_count", "rank_mask", "count_ranks_suits", "flush_status",
    "straight_outs", "straight_draw",
    "mark_cards", "unseen_cards", "unseen_mask",
    "lowest_card", "highest_card", "lower_of_two", "lowest_card_rows", "argmax3",
    "argmax_lowest_card", "argmin_lowest_card", "lowest_card_within",
]

NO_FLUSH, FLUSH_DRAW, FLUSH_MADE = 0, 1, 2
# The draw codes are also the draw's weight in strategies/estonian.py's
# keep-best score (an open-ended draw counts as much as a flush draw).
NO_STRAIGHT_DRAW, GUTSHOT, OPEN_ENDED, STRAIGHT_MADE = 0, 1, 2, 3


# -- counting ----------------------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def bit_count(x):
    """Number of set bits of a non-negative integer."""
    k = 0
    while x:
        x &= x - 1
        k += 1
    return k


@njit(cache=True, nogil=True)
def rank_mask(cards):
    """13-bit set (int64) of the ranks in ``cards`` (k,) int; bit r for rank r."""
    m = np.int64(0)
    for j in range(cards.shape[0]):
        if cards[j] >= 0:
            m |= np.int64(1) << (cards[j] >> 2)
    return m


@njit(cache=True, nogil=True, inline="always")
def count_ranks_suits(cards, rank_counts, suit_counts):
    """Add the cards ``cards`` (k,) int to ``rank_counts`` (13,) and ``suit_counts`` (4,)."""
    for j in range(cards.shape[0]):
        x = cards[j]
        if x >= 0:
            # Unsigned indices: numba checks signed ones for wrap-around.
            u = np.uint8(x)
            rank_counts[u >> np.uint8(2)] += 1
            suit_counts[u & np.uint8(3)] += 1


# -- flush and straight draws ----------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def flush_status(n_suited):
    """FLUSH_MADE for five or more cards of one suit, FLUSH_DRAW for exactly four, else NO_FLUSH."""
    if n_suited >= 5:
        return FLUSH_MADE
    if n_suited == 4:
        return FLUSH_DRAW
    return NO_FLUSH


def _windows_of_rank(rank):
    """10-bit set of the straights (by lowest ext bit, see straight_outs) that use ``rank``."""
    b = rank + 1
    w = sum(1 << x for x in range(max(0, b - 4), min(9, b) + 1))
    return w | 1 if rank == 12 else w


# Indexed by rank + 1: every straight for rank -1 (no restriction).
_WINDOWS = np.array([0x3FF] + [_windows_of_rank(r) for r in range(13)], dtype=np.int64)


@njit(cache=True, nogil=True, inline="always")
def straight_outs(ranks, rank):
    """(made, outs) of the rank set ``ranks`` (13-bit int): a straight held, and the
    13-bit set of ranks that would complete one; with ``rank`` >= 0 only the
    straights that use ``rank`` count.

    The ten straights run from 5-high (ace low) to ace-high. A straight with
    four of its five ranks held is a draw and its missing rank an out.
    """
    # Bit b of ext is rank b - 1; bit 0 is the ace playing low. Straight w
    # is ext bits w..w+4; every straight is tested at once, bit w of each
    # mask below standing for straight w (branch-free: 5x a loop over them).
    ext = (np.int64(ranks) << 1) | ((np.int64(ranks) >> 12) & 1)
    e0, e1, e2, e3, e4 = ext, ext >> 1, ext >> 2, ext >> 3, ext >> 4
    windows = _WINDOWS[rank + 1]
    made = (e0 & e1 & e2 & e3 & e4 & windows) != 0
    # straights missing exactly their j-th rank, shifted onto that rank's bit
    outs_ext = ((~e0 & e1 & e2 & e3 & e4 & windows)
                | ((e0 & ~e1 & e2 & e3 & e4 & windows) << 1)
                | ((e0 & e1 & ~e2 & e3 & e4 & windows) << 2)
                | ((e0 & e1 & e2 & ~e3 & e4 & windows) << 3)
                | ((e0 & e1 & e2 & e3 & ~e4 & windows) << 4))
    outs = (outs_ext >> 1) | ((outs_ext & 1) << 12)
    return made, outs


@njit(cache=True, nogil=True, inline="always")
def straight_draw(ranks):
    """STRAIGHT_MADE, OPEN_ENDED (two or more ranks complete a straight, double
    gutshots included), GUTSHOT (one rank) or NO_STRAIGHT_DRAW, of a 13-bit rank set."""
    made, outs = straight_outs(ranks, -1)
    if made:
        return STRAIGHT_MADE
    n = bit_count(outs)
    if n >= 2:
        return OPEN_ENDED
    if n == 1:
        return GUTSHOT
    return NO_STRAIGHT_DRAW


# -- the unseen deck ---------------------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def mark_cards(cards, used):
    """Set ``used`` (52,) bool at every card of ``cards`` (k,) int (negative: none)."""
    for j in range(cards.shape[0]):
        if cards[j] >= 0:
            used[cards[j]] = True


@njit(cache=True, nogil=True, inline="always")
def unseen_cards(used, out):
    """Write the cards not in ``used`` (52,) bool into ``out`` (52,) ascending; return how many."""
    m = 0
    for c in range(52):
        if not used[c]:
            out[m] = c
            m += 1
    return m


def unseen_mask(seen) -> np.ndarray:
    """(n, 52) bool: True where a card is in none of the row's ``seen`` cards.

    seen : (n, k) int array of cards in sight; negative entries mean none.

    >>> from simcore.cards import parse_cards
    >>> int(unseen_mask(parse_cards("As Kd")[None]).sum())
    50
    """
    seen = np.asarray(seen)
    if seen.ndim != 2:
        raise ValueError(f"seen: expected an (n, k) card array, got shape {seen.shape}")
    if seen.size and seen.max() > 51:
        raise ValueError(f"seen: card value {int(seen.max())} is not in 0..51")
    out = np.ones((seen.shape[0], 52), dtype=bool)
    rows, cols = np.nonzero(seen >= 0)
    out[rows, seen[rows, cols]] = False
    return out


# -- tie-break pickers -------------------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def lowest_card(cards):
    """Index of the lowest card of ``cards`` (k,) int, distinct (first index on ties)."""
    best = 0
    for j in range(1, cards.shape[0]):
        if cards[j] < cards[best]:
            best = j
    return best


@njit(cache=True, nogil=True, inline="always")
def lower_of_two(c0, c1):
    """0 if card ``c0`` is lower than card ``c1``, else 1 (by rank, then suit)."""
    return 0 if c0 < c1 else 1


@njit(cache=True, nogil=True, inline="always")
def highest_card(cards):
    """Index of the highest card of ``cards`` (k,) int, distinct (first index on ties)."""
    best = 0
    for j in range(1, cards.shape[0]):
        if cards[j] > cards[best]:
            best = j
    return best


@njit(cache=True, nogil=True)
def _lowest_rows(hands, sign):
    n, k = hands.shape
    out = np.empty(n, np.int64)
    if k == 3:
        # Branch-free, so the loop vectorises (9x the general loop).
        for i in range(n):
            x0 = sign * np.int64(hands[i, 0])
            x1 = sign * np.int64(hands[i, 1])
            x2 = sign * np.int64(hands[i, 2])
            a = 1 if x1 < x0 else 0
            out[i] = 2 if x2 < min(x0, x1) else a
        return out
    for i in range(n):
        best = 0
        for j in range(1, k):
            if sign * hands[i, j] < sign * hands[i, best]:
                best = j
        out[i] = best
    return out


def lowest_card_rows(hands, highest: bool = False) -> np.ndarray:
    """(n,) int64 index of the lowest (``highest``: the highest) card of each row of ``hands`` (n, k) int8.

    >>> from simcore.cards import parse_cards
    >>> lowest_card_rows(parse_cards("7s 7c Kd")[None]).tolist()
    [1]
    """
    hands = np.ascontiguousarray(hands, dtype=np.int8)
    if hands.ndim != 2 or hands.shape[1] == 0:
        raise ValueError(f"hands: expected an (n, k) card array with k >= 1, got shape {hands.shape}")
    return _lowest_rows(hands, -1 if highest else 1)


@njit(cache=True, nogil=True, inline="always")
def argmax3(s0, s1, s2):
    """Index (0, 1, 2) of the largest of three scores, the first on ties (branch-light)."""
    a = 1 if s1 > s0 else 0
    return 2 if s2 > max(s0, s1) else a


@njit(cache=True, nogil=True, inline="always")
def argmax_lowest_card(scores, cards):
    """Index of the highest of ``scores`` (k,); ties go to the lowest of ``cards`` (k,)."""
    best = 0
    for a in range(1, scores.shape[0]):
        if scores[a] > scores[best] or (scores[a] == scores[best] and cards[a] < cards[best]):
            best = a
    return best


@njit(cache=True, nogil=True, inline="always")
def argmin_lowest_card(scores, cards):
    """Index of the lowest of ``scores`` (k,); ties go to the lowest of ``cards`` (k,)."""
    best = 0
    for a in range(1, scores.shape[0]):
        if scores[a] < scores[best] or (scores[a] == scores[best] and cards[a] < cards[best]):
            best = a
    return best


@njit(cache=True, nogil=True, inline="always")
def lowest_card_within(scores, cards, margin):
    """Index of the lowest of ``cards`` (k,) among the actions whose score is within
    ``margin`` of the best of ``scores`` (k,) float."""
    top = scores[0]
    for a in range(1, scores.shape[0]):
        top = max(top, scores[a])
    best = -1
    for a in range(scores.shape[0]):
        if scores[a] >= top - margin and (best < 0 or cards[a] < cards[best]):
            best = a
    return best
