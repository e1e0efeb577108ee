"""Tapiola Hold'em: a centre card, two three-card towers and three discards.

Each player gets five hand cards (six in the lowball form) and one card goes
face up in the middle, the centre. Three tower rounds follow: one card face
up on tower A, one on tower B, then every player discards one hand card face
down, all at the same time. The third discard is optional in the high game,
so a player ends with three hand cards or two. The final hand is exactly
five cards: the three kept hand cards and one card of each tower, or the two
kept hand cards, the centre and one card of each tower; the best of the nine
tower choices counts. In lowball every discard is mandatory, and the best
ace-to-six low five of the six cards (three hand cards, the centre, one card
of each tower; best of the nine tower choices) wins.

Slots of a deal with ``P`` players and ``h`` hand cards (5, lowball 6):
the centre is slot 0; seat ``p`` holds ``1 + h*p .. h*p + h``; the towers
follow in deal order ``A1 B1 A2 B2 A3 B3`` at ``1 + h*P .. h*P + 6``.
Burn cards change no probability and get no slot; they only lower the
player limit (nine players fill the deck exactly: 1 + 45 + 6 = 52).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..kernels import CARD_BIT, CARD_KEY, SUIT_START, value_high, value_low5

HIGH_HAND = 5  # hand cards dealt in the high game
LOW_HAND = 6  # and in lowball
N_ROUNDS = 3
SCORINGS = ("pot", "points", "straight-up-or-die")
MATCH_TARGETS = {"pot": 5.0, "points": 10.0, "straight-up-or-die": 15.0}
# Straight-Up-or-Die: points by high category (straight 1 .. straight flush 5).
SUOD_CLASS_POINTS = np.array([0, 0, 0, 0, 1, 2, 3, 4, 5], dtype=np.float64)
SUOD_WORST_POINTS = np.array([5.0, 2.0])  # the worst hand, then the second worst
PLACE_POINTS = np.array([2.0, 1.0])  # the points system: best, second best


# -- the layout -------------------------------------------------------------------------


def hand_size(lowball: bool) -> int:
    """Hand cards dealt to each player: 5, or 6 in lowball."""
    return LOW_HAND if lowball else HIGH_HAND


def n_slots(n_players: int, lowball: bool = False) -> int:
    """Card slots of one deal: the centre, every hand, six tower cards.

    >>> n_slots(9), n_slots(7, lowball=True)
    (52, 49)
    """
    return 1 + hand_size(lowball) * n_players + 6


def hand_slots(n_players: int, seat: int, lowball: bool = False) -> list[int]:
    """The slots of ``seat``'s dealt hand cards."""
    h = hand_size(lowball)
    return list(range(1 + h * seat, 1 + h * seat + h))


def tower_slots(n_players: int, lowball: bool = False) -> list[int]:
    """The six tower slots in deal order A1, B1, A2, B2, A3, B3."""
    base = 1 + hand_size(lowball) * n_players
    return list(range(base, base + 6))


@njit(cache=True, nogil=True)
def split_deal(cards, P, h, hands, centre, towers):
    """Copy a block's slots into ``hands (n, P, h)``, ``centre (n,)``, ``towers (n, 6)``."""
    t0 = 1 + h * P
    for i in range(cards.shape[0]):
        centre[i] = cards[i, 0]
        for p in range(P):
            for j in range(h):
                hands[i, p, j] = cards[i, 1 + h * p + j]
        for j in range(6):
            towers[i, j] = cards[i, t0 + j]


@njit(cache=True, nogil=True)
def visible_towers(towers, n_rounds, out):
    """The towers as a player sees them after ``n_rounds`` tower rounds: -1 beyond."""
    for i in range(towers.shape[0]):
        for j in range(6):
            out[i, j] = towers[i, j] if j < 2 * n_rounds else -1


@njit(cache=True, nogil=True)
def apply_discards(held, p, positions):
    """Seat ``p`` discards hand position ``positions[i]`` in deal ``i`` (-1: keeps all)."""
    for i in range(positions.shape[0]):
        a = positions[i]
        if a >= 0:
            held[i, p, a] = False


# -- final hands ------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def best_high(c0, c1, c2, towers):
    """Best high value of cards ``c0 c1 c2`` plus one card of each tower.

    ``towers`` is one (6,) row in deal order A1 B1 A2 B2 A3 B3, -1 where not
    dealt yet: towers A are the even entries, B the odd ones. For two kept hand
    cards pass the centre as ``c2``. Returns -1 when a tower is still empty.
    """
    key = SUIT_START + CARD_KEY[np.uint8(c0)] + CARD_KEY[np.uint8(c1)] + CARD_KEY[np.uint8(c2)]
    bits = CARD_BIT[np.uint8(c0)] | CARD_BIT[np.uint8(c1)] | CARD_BIT[np.uint8(c2)]
    best = -1
    for a in range(0, 6, 2):
        ca = towers[a]
        if ca < 0:
            break
        ka = key + CARD_KEY[np.uint8(ca)]
        ba = bits | CARD_BIT[np.uint8(ca)]
        for b in range(1, 6, 2):
            cb = towers[b]
            if cb < 0:
                break
            v = value_high(ka + CARD_KEY[np.uint8(cb)], ba | CARD_BIT[np.uint8(cb)])
            if v > best:
                best = v
    return best


@njit(cache=True, nogil=True)
def best_low(c0, c1, c2, centre, towers):
    """Best ace-to-six low (inverted: higher is better) of three hand cards, the
    centre and one card of each tower: the best five of those six, over the
    tower choices dealt so far (``towers`` as in :func:`best_high`); -1 when a
    tower is still empty."""
    key4 = (SUIT_START + CARD_KEY[np.uint8(c0)] + CARD_KEY[np.uint8(c1)] + CARD_KEY[np.uint8(c2)]
            + CARD_KEY[np.uint8(centre)])
    bits4 = (CARD_BIT[np.uint8(c0)] | CARD_BIT[np.uint8(c1)] | CARD_BIT[np.uint8(c2)]
             | CARD_BIT[np.uint8(centre)])
    best = -1
    for a in range(0, 6, 2):
        ca = towers[a]
        if ca < 0:
            break
        for b in range(1, 6, 2):
            cb = towers[b]
            if cb < 0:
                break
            key = key4 + CARD_KEY[np.uint8(ca)] + CARD_KEY[np.uint8(cb)]
            bits = bits4 | CARD_BIT[np.uint8(ca)] | CARD_BIT[np.uint8(cb)]
            # The best five of six: drop each card in turn (cards are
            # distinct, so XOR takes its bit out of the set).
            for x in (np.int64(c0), np.int64(c1), np.int64(c2), np.int64(centre),
                      np.int64(ca), np.int64(cb)):
                v = value_low5(key - CARD_KEY[np.uint8(x)], bits ^ CARD_BIT[np.uint8(x)])
                if v > best:
                    best = v
    return best


@njit(cache=True, nogil=True)
def kept_cards(hand, held, out):
    """Write the held cards of one hand (h,) into ``out`` in position order; return how many."""
    k = 0
    for j in range(hand.shape[0]):
        if held[j]:
            out[k] = hand[j]
            k += 1
    return k


@njit(cache=True, nogil=True)
def _showdown_kernel(hands, held, centre, towers, low, values):
    n, P, h = hands.shape
    kept = np.empty(h, np.int64)
    for i in range(n):
        for p in range(P):
            k = kept_cards(hands[i, p], held[i, p], kept)
            if low:
                values[i, p] = best_low(kept[0], kept[1], kept[2], centre[i], towers[i])
            elif k == 3:
                values[i, p] = best_high(kept[0], kept[1], kept[2], towers[i])
            else:
                values[i, p] = best_high(kept[0], kept[1], centre[i], towers[i])


def showdown_values(hands, held, centre, towers, lowball: bool = False) -> np.ndarray:
    """Final hand values (n, P) int32: higher wins (lowball values are inverted).

    Parameters
    ----------
    hands : (n, P, h) int8 dealt hand cards.
    held : (n, P, h) bool, the cards each seat still holds: exactly 2 or 3 in
        the high game, exactly 3 in lowball.
    centre : (n,) int8.
    towers : (n, 6) int8 complete towers in deal order A1 B1 A2 B2 A3 B3.
    lowball : value ace-to-six lows instead of high hands.
    """
    hands = np.ascontiguousarray(hands, dtype=np.int8)
    held = np.ascontiguousarray(held, dtype=np.bool_)
    centre = np.ascontiguousarray(centre, dtype=np.int8)
    towers = np.ascontiguousarray(towers, dtype=np.int8)
    if hands.ndim != 3 or held.shape != hands.shape:
        raise ValueError(f"hands and held must both be (n, P, h); got {hands.shape} and {held.shape}")
    n = hands.shape[0]
    if centre.shape != (n,) or towers.shape != (n, 6):
        raise ValueError(f"centre must be ({n},) and towers ({n}, 6); got {centre.shape} and {towers.shape}")
    counts = held.sum(axis=2)
    allowed = (3,) if lowball else (2, 3)
    bad = ~np.isin(counts, allowed)
    if bad.any():
        i, p = np.argwhere(bad)[0]
        raise ValueError(f"seat {p} of deal {i} holds {counts[i, p]} cards; a final hand keeps "
                         + ("3" if lowball else "2 or 3"))
    if towers.size and (towers.min() < 0 or hands.min() < 0 or centre.min() < 0):
        raise ValueError("showdown needs every card dealt: found a -1")
    values = np.empty(counts.shape, np.int32)
    _showdown_kernel(hands, held, centre, towers, lowball, values)
    return values


# -- scoring ----------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def place_points_kernel(values, points, out):
    """Points by place: the highest value takes ``points[0]``, the next
    ``points[1]`` and so on; tied seats take consecutive places and share those
    places' points equally."""
    n, P = values.shape
    m = points.shape[0]
    for i in range(n):
        for p in range(P):
            better = 0
            tied = 0
            for q in range(P):
                if values[i, q] > values[i, p]:
                    better += 1
                elif values[i, q] == values[i, p]:
                    tied += 1
            s = 0.0
            for k in range(better, min(better + tied, m)):
                s += points[k]
            out[i, p] = s / tied


@njit(cache=True, nogil=True)
def suod_kernel(values, out):
    """Straight-Up-or-Die points from high values (n, P): by class when anyone
    has a straight or better, else 5 to the worst hand and 2 to the second
    worst, tied seats sharing their places."""
    n, P = values.shape
    neg = np.empty((1, P), np.int64)
    row = np.empty((1, P), np.float64)
    for i in range(n):
        top = 0
        for p in range(P):
            top = max(top, values[i, p] >> 12)
        if top >= 4:
            for p in range(P):
                out[i, p] = SUOD_CLASS_POINTS[values[i, p] >> 12]
        else:
            for p in range(P):
                neg[0, p] = -values[i, p]
            place_points_kernel(neg, SUOD_WORST_POINTS, row)
            for p in range(P):
                out[i, p] = row[0, p]


@njit(cache=True, nogil=True)
def best_flags(values, wins, ties):
    """``wins``: the seat alone holds the best value; ``ties``: tied for it."""
    n, P = values.shape
    for i in range(n):
        best = values[i, 0]
        for p in range(1, P):
            best = max(best, values[i, p])
        k = 0
        for p in range(P):
            k += values[i, p] == best
        for p in range(P):
            top = values[i, p] == best
            wins[i, p] = top and k == 1
            ties[i, p] = top and k > 1


def score(values, scoring: str = "pot") -> np.ndarray:
    """Each seat's payoff (n, P) float64 under a scoring system.

    ``pot``: the best value takes 1, ties split it; ``points``: 2 to the best,
    1 to the second best, ties sharing places; ``straight-up-or-die``: by
    high class, or 5 to the worst and 2 to the second worst when no one has a
    straight or better (``values`` must then be high values).

    >>> score(np.array([[7, 9, 9]]), "points").tolist()
    [[0.0, 1.5, 1.5]]
    """
    if scoring not in SCORINGS:
        raise ValueError(f"scoring {scoring!r} is not one of {', '.join(SCORINGS)}")
    values = np.ascontiguousarray(values, dtype=np.int64)
    if values.ndim != 2 or values.shape[1] < 2:
        raise ValueError(f"values must be (n, players) with at least 2 players, got {values.shape}")
    out = np.empty(values.shape, np.float64)
    if scoring == "pot":
        place_points_kernel(values, np.ones(1), out)
    elif scoring == "points":
        place_points_kernel(values, PLACE_POINTS, out)
    else:
        suod_kernel(values, out)
    return out
