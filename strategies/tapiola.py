"""Tapiola Hold'em policies: which hand card to discard, and whether to take the last discard.

Decision ``discard`` (three rounds): the answer is the position (0..h-1) of a
held card in the seat's dealt hand. Decision ``last`` (high game, round 3
only): 0 keeps all three cards, ``1 + j`` discards position ``j`` and plays
the two others with the centre. A policy sees only its own hand cards, the
centre and the towers dealt so far (see the decisions' observations).

Discard policies (plain rules, not tuned optima; ``experiments/tapiola_discards.py``
measures how each fares):

lowest
    the default: the smallest card number, that is the lowest rank with the
    ace high, and on equal ranks the lower suit. In lowball too, where it is
    a deliberately naive baseline.
pairs
    keep pairs and trips: throw a card whose rank the hand holds once, the
    lowest such; only when every card is paired the lowest of the smallest group.
draws
    chase the flush or straight that the towers and the centre offer. A
    target (a suit, or the five ranks of a straight) is alive when the hand
    still holds three of its cards, or two and the centre; among live
    targets it prefers the one whose cards the towers already show (tower A
    and tower B each count once), then a flush, then higher cards. It throws a
    card outside the target, chosen as ``pairs`` would, and plays ``pairs``
    when no target is alive.
made
    keep what combines with the towers so far: throw the card whose loss
    leaves the best hand that the remaining cards make with the towers dealt
    so far (three hand cards, or two and the centre, with one card of each
    tower); on equal hands the lowest card goes.
dive
    for straight-up-or-die, where with no straight or better on the table the
    worst hand scores 5: keep the hand weak, throwing a card that pairs
    another hand card or the centre first, then the highest (ace high).
throw-high
    lowball: the highest card, counting the ace low.
distinct-low
    lowball: keep distinct low ranks: throw a card whose rank another hand
    card or the centre already holds (the highest such, ace low), else the
    highest card.
best-low
    lowball: throw the card whose loss leaves the best ace-to-six low that
    three of the remaining cards make with the centre and the towers so far
    (at round 3 every card is known and this is exact); equal lows: the
    highest card (ace low) goes.

Last-discard policies:

never
    the default: keep all three cards.
always
    discard the card the seat's ``discard`` policy chose (``proposed``).
best
    every card is known at round 3: take the strongest final hand, comparing
    keeping all three with each discard plus the centre; on a tie keep three.
dive
    for straight-up-or-die: take the strongest final hand when it is a
    straight or better (it scores by class), else the weakest one (the worst
    hand scores 5 when nobody has a straight); on a tie keep three.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from simcore.variants.tapiola import throw_values

from .registry import register

# discard policies
LOWEST, PAIRS, DRAWS, MADE, DIVE, THROW_HIGH, DISTINCT_LOW, BEST_LOW = range(8)
# last-discard policies
NEVER, ALWAYS, BEST, LAST_DIVE = range(4)


@njit(cache=True, nogil=True, inline="always")
def _low_rank(card):
    """Rank counting the ace low: ace 0, deuce 1 .. king 12."""
    return ((card >> 2) + 1) % 13


@njit(cache=True, nogil=True)
def _lowest(hand, held):
    pos = -1
    for j in range(hand.shape[0]):
        if held[j] and (pos < 0 or hand[j] < hand[pos]):
            pos = j
    return pos


@njit(cache=True, nogil=True)
def _multiplicity(hand, held, j, centre):
    """How many hand cards (``j`` included) and, with ``centre >= 0``, centre share ``j``'s rank."""
    r = hand[j] >> 2
    m = 0
    for q in range(hand.shape[0]):
        if held[q] and hand[q] >> 2 == r:
            m += 1
    if centre >= 0 and centre >> 2 == r:
        m += 1
    return m


@njit(cache=True, nogil=True)
def _pairs(hand, held, exclude):
    """Throw the lowest card of the smallest rank group; ``exclude`` marks cards to keep."""
    pos = -1
    best = 1 << 30
    for j in range(hand.shape[0]):
        if held[j] and not exclude[j]:
            k = _multiplicity(hand, held, j, -1) * 64 + hand[j]
            if k < best:
                best = k
                pos = j
    return pos


@njit(cache=True, nogil=True)
def _tower_has_suit(towers, first, s):
    for t in range(first, 6, 2):
        if towers[t] >= 0 and towers[t] & 3 == s:
            return 1
    return 0


@njit(cache=True, nogil=True)
def _in_window(rank, w):
    """Is ``rank`` (0..12 for 2..A) one of the five ranks of straight ``w``
    (0: A-2-3-4-5 .. 9: T-J-Q-K-A)?"""
    if rank == 12 and w == 0:
        return True
    return w <= rank + 1 <= w + 4


@njit(cache=True, nogil=True)
def _tower_fills(towers, first, w, have):
    """Does a card of this tower have a rank of window ``w`` that the rank set ``have`` lacks?"""
    for t in range(first, 6, 2):
        c = towers[t]
        if c >= 0 and _in_window(c >> 2, w) and not (have >> (c >> 2)) & 1:
            return 1
    return 0


@njit(cache=True, nogil=True)
def _draws(hand, held, centre, towers, keep):
    """The ``draws`` policy for one row; ``keep`` (h,) bool is working space."""
    h = hand.shape[0]
    best = -1
    best_kind = -1  # 0..3 a suit, 4 + w a straight window
    cs = centre & 3
    for s in range(4):
        n = 0
        top = 0
        for j in range(h):
            if held[j] and hand[j] & 3 == s:
                n += 1
                top = max(top, hand[j] >> 2)
        if n >= 3 or (n == 2 and cs == s):
            score = 1000 * (_tower_has_suit(towers, 0, s) + _tower_has_suit(towers, 1, s)) + 100 + top
            if score > best:
                best = score
                best_kind = s
    for w in range(10):
        have = 0
        n = 0
        top = 0
        for j in range(h):
            r = hand[j] >> 2
            if held[j] and _in_window(r, w) and not (have >> r) & 1:
                have |= 1 << r
                n += 1
                top = max(top, w + 4)
        rc = centre >> 2
        with_centre = n == 2 and _in_window(rc, w) and not (have >> rc) & 1
        if n >= 3 or with_centre:
            if with_centre:
                have |= 1 << rc
            score = 1000 * (_tower_fills(towers, 0, w, have) + _tower_fills(towers, 1, w, have)) + top
            if score > best:
                best = score
                best_kind = 4 + w
    if best_kind < 0:
        keep[:] = False
        return _pairs(hand, held, keep)
    # Mark the target's cards (one per rank for a straight), then throw another.
    seen = 0
    for j in range(h):
        keep[j] = False
        if not held[j]:
            continue
        if best_kind < 4:
            keep[j] = hand[j] & 3 == best_kind
        else:
            r = hand[j] >> 2
            if _in_window(r, best_kind - 4) and not (seen >> r) & 1:
                seen |= 1 << r
                keep[j] = True
    pos = _pairs(hand, held, keep)
    if pos < 0:  # every held card is in the target: the lowest of it goes
        pos = _lowest(hand, held)
    return pos


@njit(cache=True, nogil=True)
def _made(hand, held, centre, towers, low, c, vals, tw):
    """Throw the card whose loss leaves the best made hand (with what is in sight, as
    :func:`~simcore.variants.tapiola.throw_values` values it); ties: the lowest card (lowball:
    the highest card counting the ace low). ``c``, ``vals`` and ``tw`` are working space."""
    throw_values(hand, held, centre, towers, low, False, c, vals, tw)
    pos = -1
    best = -2
    for j in range(hand.shape[0]):
        if not held[j]:
            continue
        v = vals[j]
        if pos < 0 or v > best:
            better = True
        elif v < best:
            better = False
        elif low:
            lj, lp = _low_rank(hand[j]), _low_rank(hand[pos])
            better = lj > lp or (lj == lp and hand[j] > hand[pos])
        else:
            better = hand[j] < hand[pos]
        if better:
            best = v
            pos = j
    return pos


@njit(cache=True, nogil=True)
def _throw_high(hand, held, centre, distinct, ace_low):
    """Throw the highest card (ace low or high); with ``distinct`` a card whose
    rank another hand card or the centre holds goes first."""
    pos = -1
    best = -1
    for j in range(hand.shape[0]):
        if not held[j]:
            continue
        r = _low_rank(hand[j]) if ace_low else hand[j] >> 2
        k = r * 4 + (hand[j] & 3)
        if distinct and _multiplicity(hand, held, j, centre) > 1:
            k += 1000
        if k > best:
            best = k
            pos = j
    return pos


@njit(cache=True, nogil=True)
def lowest_rows(hand, held, out):
    """The default policy over a batch: the held card with the smallest number.

    Its own kernel, with scalar indexing only: the default runs at every
    seat of most runs, and row views cost more than the comparison.
    """
    for i in range(hand.shape[0]):
        pos = -1
        low = 127
        for j in range(hand.shape[1]):
            if held[i, j] and hand[i, j] < low:
                low = hand[i, j]
                pos = j
        out[i] = pos


@njit(cache=True, nogil=True)
def discard_rows(hand, held, centre, towers, policy, out):
    """One discard policy over a batch: ``out[i]`` the hand position to throw.

    hand (n, h) int8 dealt cards; held (n, h) bool; centre (n,) int8; towers
    (n, 6) int8 dealt so far (-1 beyond); policy: one of the module's codes.
    """
    keep = np.zeros(hand.shape[1], np.bool_)
    c = np.empty(hand.shape[1], np.int64)
    vals = np.empty(hand.shape[1], np.int64)
    tw = np.empty((2, 9), np.uint64)
    for i in range(hand.shape[0]):
        if policy == LOWEST:
            out[i] = _lowest(hand[i], held[i])
        elif policy == PAIRS:
            keep[:] = False
            out[i] = _pairs(hand[i], held[i], keep)
        elif policy == DRAWS:
            out[i] = _draws(hand[i], held[i], centre[i], towers[i], keep)
        elif policy == MADE:
            out[i] = _made(hand[i], held[i], centre[i], towers[i], False, c, vals, tw)
        elif policy == BEST_LOW:
            out[i] = _made(hand[i], held[i], centre[i], towers[i], True, c, vals, tw)
        elif policy == DIVE:
            out[i] = _throw_high(hand[i], held[i], centre[i], True, False)
        elif policy == THROW_HIGH:
            out[i] = _throw_high(hand[i], held[i], centre[i], False, True)
        else:  # DISTINCT_LOW
            out[i] = _throw_high(hand[i], held[i], centre[i], True, True)


@njit(cache=True, nogil=True)
def last_rows(hand, held, centre, towers, proposed, policy, out):
    """One last-discard policy over a batch: ``out[i]`` 0 keeps all, ``1 + j`` throws position j.

    hand (n, h) int8; held (n, h) bool with three cards held; centre (n,)
    int8; towers (n, 6) int8, complete; proposed (n,) int64: the position the
    seat's discard policy chose.
    """
    h = hand.shape[1]
    c = np.empty(h, np.int64)
    vals = np.empty(h, np.int64)
    tw = np.empty((2, 9), np.uint64)
    for i in range(hand.shape[0]):
        if policy == NEVER:
            out[i] = 0
            continue
        if policy == ALWAYS:
            out[i] = 1 + proposed[i]
            continue
        # Option 0 keeps three; option 1 + j throws j and adds the centre (the two others with
        # it: with three held, the one pair that leaves j out).
        kept3 = throw_values(hand[i], held[i], centre[i], towers[i], False, True, c, vals, tw)
        choice, best, worst, worst_choice = 0, kept3, kept3, 0
        for j in range(h):
            if not held[i, j]:
                continue
            v = vals[j]
            if v > best:
                best = v
                choice = 1 + j
            if v < worst:
                worst = v
                worst_choice = 1 + j
        if policy == LAST_DIVE and best >> 12 < 4:
            choice = worst_choice
        out[i] = choice


def _view(obs):
    return obs["hand"], obs["held"], obs["centre"], obs["towers"]


def _discard_policy(code):
    def strategy(obs, rng):
        hand, held, centre, towers = _view(obs)
        out = np.empty(hand.shape[0], np.int64)
        if code == LOWEST:
            lowest_rows(hand, held, out)
        else:
            discard_rows(hand, held, centre, towers, code, out)
        return out

    return strategy


def _last_policy(code):
    def strategy(obs, rng):
        hand, held, centre, towers = _view(obs)
        if code == NEVER:
            return np.zeros(hand.shape[0], np.int64)
        out = np.empty(hand.shape[0], np.int64)
        last_rows(hand, held, centre, towers, np.ascontiguousarray(obs["proposed"], np.int64), code, out)
        return out

    return strategy


DISCARD_POLICIES = (
    ("lowest", LOWEST, "the smallest card number: the lowest rank (ace high), then the lower suit"),
    ("pairs", PAIRS, "keep pairs and trips: throw the lowest card whose rank the hand holds once"),
    ("draws", DRAWS, "chase the flush or straight the towers and centre offer; else as pairs"),
    ("made", MADE, "keep what combines with the towers so far: throw the card whose loss "
                   "leaves the best hand with the towers dealt"),
    ("dive", DIVE, "straight-up-or-die: keep the hand weak, throwing pairs first, then the highest"),
    ("throw-high", THROW_HIGH, "lowball: throw the highest card, counting the ace low"),
    ("distinct-low", DISTINCT_LOW, "lowball: throw a card that pairs the hand or centre, "
                                   "else the highest (ace low)"),
    ("best-low", BEST_LOW, "lowball: throw the card whose loss leaves the best low with the "
                           "centre and the towers dealt"),
)
LAST_POLICIES = (
    ("never", NEVER, "keep all three hand cards"),
    ("always", ALWAYS, "discard the card the discard policy chose, and play the centre"),
    ("best", BEST, "take the strongest final hand (every card is known); keep three on a tie"),
    ("dive", LAST_DIVE, "straight-up-or-die: the strongest hand if it is a straight or better, "
                        "else the weakest"),
)

# rowwise: each row's action is a function of that row alone (no stream), so a table whose
# fallback this is asks it for the rows its own entries leave (strategies.table.TablePolicy)
for _name, _code, _text in DISCARD_POLICIES:
    register("tapiola", "discard", _name, _text, default=_name == "lowest", rowwise=True)(_discard_policy(_code))
for _name, _code, _text in LAST_POLICIES:
    register("tapiola", "last", _name, _text, default=_name == "never", rowwise=True)(_last_policy(_code))
