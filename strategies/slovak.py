"""Slovak Double Barrel exchange policies (decisions ``exchange1``, ``exchange2``).

Every policy answers both exchanges: 0 decline, 1 muck face-up card 0,
2 muck face-up card 1 (the next face-down card is turned up in its place).
A policy sees only the public table (see the decision's observation): all
face-up cards, the muck, the flop at the second exchange and the actions
taken so far; the face-down cards never reach it.

Policies (the heuristics are plain rules, not tuned optima; see
``experiments/slovak_exchange.py`` for how each fares):

never
    always decline (the default): the game is then Texas Hold'em with the
    face-up cards as hole cards.
lower
    muck the lower-ranked face-up card whenever a face-down card is left
    (equal ranks: the lower suit).
threshold
    keep a pair, and keep an unpaired hand whose two ranks (0..12 for 2..A)
    add up to at least what its gap needs (:data:`SUITED_NEEDS`,
    :data:`OFFSUIT_NEEDS`: suited connectors from 4-3, suited gappers when
    higher, big suited aces and kings, offsuit only J-T, Q-J, K-Q, A-K);
    otherwise muck the lower card. The second exchange applies the same rule
    to the face-up cards alone, ignoring the flop.
made-or-draw
    first exchange as ``threshold``; after the flop keep each card that
    works (pairs the board or the other face-up card, or is part of four or
    more to a flush or to a straight); muck a card that does not work, the
    lower one when neither does, and keep both when both work.
live-outs
    reads the cards in sight (other players' face-up cards, the muck): a
    card whose rank is showing elsewhere has fewer cards left to pair it,
    and a draw whose outs are showing is worth less. Before the flop the
    threshold rule is applied with each card's rank lowered by
    :data:`DEAD_RANK` per card of that rank in sight (the card worth less
    goes), and a suited hand counts as offsuit when fewer than
    :data:`MIN_LIVE_SUIT` cards of its suit are unseen; after the flop a card works if it
    makes a pair or better, or keeps a draw with at least
    :data:`MIN_LIVE_OUTS` live outs; of two idle cards it mucks the lower,
    unless only the higher one's rank is all in sight (nothing left to pair it).
thoughtful
    ``live-outs``, and after the flop it also reads the other players'
    made hands: a pocket pair without a set that another player's face-up
    cards already beat on this flop (a higher pair, two pair or trips) is
    broken up, one of its cards mucked for a fresh card.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .features import count_ranks_suits, lower_of_two, straight_outs
from .registry import register

DECLINE, MUCK0, MUCK1 = 0, 1, 2

# Threshold rule (calibrated on the first-exchange chart, 6 players): keep a pair;
# keep an unpaired hand when the sum of its two ranks (0..12 for 2..A) reaches the
# sum needed for its gap (ranks missing between the two); else muck the lower card.
SUITED_NEEDS = np.array([3, 4, 7, 13, 14, 14, 13, 13, 14, 13, 13, 13])  # by gap
OFFSUIT_NEEDS = np.array([17] + [99] * 11)  # only offsuit J-T, Q-J, K-Q, A-K keep
MIN_LIVE_SUIT = 5  # live-outs: a suited hand counts as suited with this many unseen
DEAD_RANK = 3.0  # live-outs: rank points lost per card of that rank in sight
MIN_LIVE_OUTS = 1  # live-outs: a draw with every out in sight is idle

_NEVER, _LOWER, _THRESHOLD, _MADE_OR_DRAW, _LIVE_OUTS, _THOUGHTFUL = range(6)


# -- row helpers ---------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _preflop(c0, c1, seen_rank, seen_suit, live):
    """Threshold rule on two face-up cards; with ``live`` the sight counts apply."""
    r0, r1 = c0 >> 2, c1 >> 2
    if r0 == r1:
        return DECLINE
    lo = lower_of_two(c0, c1)
    e0, e1 = float(r0), float(r1)
    suited = (c0 & 3) == (c1 & 3)
    if live:
        e0 -= DEAD_RANK * seen_rank[r0]
        e1 -= DEAD_RANK * seen_rank[r1]
        if suited and 11 - seen_suit[c0 & 3] < MIN_LIVE_SUIT:
            suited = False  # too many of the suit in sight to count on a flush
        # the card worth less is the one to go (ties: the lower card)
        if e0 < e1:
            lo = 0
        elif e1 < e0:
            lo = 1
    gap = abs(r0 - r1) - 1
    needs = SUITED_NEEDS[gap] if suited else OFFSUIT_NEEDS[gap]
    if e0 + e1 >= needs:
        return DECLINE
    return MUCK0 if lo == 0 else MUCK1


@njit(cache=True, nogil=True)
def _postflop(c, board, seen_rank, seen_suit, live, beaten, suit_count, rank_count, outs):
    """Second-exchange rule for face-up cards ``c`` (2,) and the flop ``board`` (3,).

    The last three arrays are working space (4, 13 and 2 int64), allocated
    once per batch: an allocation per row took a third of the policy's time.
    """
    suit_count[:] = 0
    rank_count[:] = 0
    ranks = 0
    for j in range(5):
        x = c[j] if j < 2 else board[j - 2]
        ranks |= 1 << (x >> 2)
        suit_count[x & 3] += 1
        rank_count[x >> 2] += 1
    works0 = False
    works1 = False
    for i in range(2):
        r, s = c[i] >> 2, c[i] & 3
        made = rank_count[r] >= 2  # pairs the board or the other face-up card
        draw_outs = 0
        # flush: four or more of the suit with this card
        if suit_count[s] >= 5:
            made = True
        elif suit_count[s] == 4:
            draw_outs = max(draw_outs, 9 - seen_suit[s]) if live else 9
        # straight: four or more ranks of a straight that uses this card; the
        # missing rank of each such straight completes it
        straight, complete = straight_outs(ranks, r)
        if straight:
            made = True
        k = 0
        for rb in range(13):
            if (complete >> rb) & 1:
                k += 4 - seen_rank[rb] if live else 4
        draw_outs = max(draw_outs, k)
        outs[i] = 3 - seen_rank[r] - (rank_count[r] - 1)  # live cards that pair it
        works = made or (draw_outs > 0 and (draw_outs >= MIN_LIVE_OUTS if live else True))
        if i == 0:
            works0 = works
        else:
            works1 = works
    if beaten and c[0] >> 2 == c[1] >> 2 and rank_count[c[0] >> 2] == 2:
        return MUCK0 if lower_of_two(c[0], c[1]) == 0 else MUCK1
    if works0 and works1:
        return DECLINE
    if works0:
        return MUCK1
    if works1:
        return MUCK0
    lo = lower_of_two(c[0], c[1])
    if live and (outs[0] == 0) != (outs[1] == 0):
        lo = 0 if outs[0] == 0 else 1  # a card no live card can pair goes first
    return MUCK0 if lo == 0 else MUCK1


@njit(cache=True, nogil=True)
def _pair_beaten(up, board, seat):
    """Does another player's face-up pair, two pair or trips beat ``seat``'s pocket pair?"""
    mine = up[seat, 0] >> 2
    if up[seat, 1] >> 2 != mine:
        return False
    for q in range(up.shape[0]):
        if q == seat:
            continue
        a, b = up[q, 0] >> 2, up[q, 1] >> 2
        hits = 0
        best = -1
        for j in range(3):
            f = board[j] >> 2
            if f == a:
                hits += 1
                best = max(best, a)
            if f == b and b != a:
                hits += 1
                best = max(best, b)
        if a == b:
            if hits > 0 or a > mine:
                return True  # a set, or a higher pocket pair
        elif hits >= 2 or best > mine:
            return True  # two pair or trips, or a higher pair
    return False


@njit(cache=True, nogil=True)
def _decide(up, board, mucked, legal, seat, policy, second):
    """Actions (n,) of one policy for one seat over a batch."""
    n, P = up.shape[0], up.shape[1]
    out = np.zeros(n, np.int64)
    seen_rank = np.zeros(13, np.int64)
    seen_suit = np.zeros(4, np.int64)
    c = np.empty(2, np.int64)
    suit_count = np.zeros(4, np.int64)
    rank_count = np.zeros(13, np.int64)
    outs = np.zeros(2, np.int64)
    live = policy == _LIVE_OUTS or policy == _THOUGHTFUL
    for i in range(n):
        if not legal[i, 1]:
            continue
        c[0], c[1] = up[i, seat, 0], up[i, seat, 1]
        if policy == _LOWER:
            out[i] = MUCK0 if lower_of_two(c[0], c[1]) == 0 else MUCK1
            continue
        seen_rank[:] = 0
        seen_suit[:] = 0
        if live:
            for q in range(P):
                if q != seat:
                    for j in range(2):
                        # Unsigned cards: numba checks signed indices for wrap-around.
                        x = np.uint8(up[i, q, j])
                        seen_rank[x >> np.uint8(2)] += 1
                        seen_suit[x & np.uint8(3)] += 1
            count_ranks_suits(mucked[i], seen_rank, seen_suit)
        if not second or policy == _THRESHOLD:
            out[i] = _preflop(c[0], c[1], seen_rank, seen_suit, live)
        else:
            beaten = policy == _THOUGHTFUL and _pair_beaten(up[i], board[i], seat)
            out[i] = _postflop(c, board[i], seen_rank, seen_suit, live, beaten,
                               suit_count, rank_count, outs)
    return out


def _policy(code):
    def strategy(obs, rng):
        legal = obs["legal"]
        if code == _NEVER:
            return np.zeros(legal.shape[0], dtype=np.int64)
        return _decide(obs["up"], obs["board"], obs["mucked"], legal, int(obs["seat"]), code,
                       obs["decision"] == "exchange2")

    return strategy


_POLICIES = (
    ("never", _NEVER, "always decline (the game is then Hold'em with the face-up cards)"),
    ("lower", _LOWER, "muck the lower face-up card whenever a face-down card is left"),
    ("threshold", _THRESHOLD, "keep pairs, suited connectors, big suited and offsuit broadway "
                              "connectors (rank sum by gap), else muck the lower card; ignores the flop"),
    ("made-or-draw", _MADE_OR_DRAW, "threshold before the flop; after it keep cards that pair "
                                    "or draw, muck an idle one"),
    ("live-outs", _LIVE_OUTS, "as made-or-draw, counting only live cards: ranks and outs in "
                              "sight in other hands or the muck are gone"),
    ("thoughtful", _THOUGHTFUL, "live-outs, and after the flop breaks up a pocket pair that a "
                                "hand in sight already beats"),
)

for _name, _code, _text in _POLICIES:
    for _decision in ("exchange1", "exchange2"):
        register("slovak", _decision, _name, _text, default=_name == "never")(_policy(_code))
