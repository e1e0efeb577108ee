"""Slovak Double Barrel: buckets for the two exchanges.

The actions are 0 decline, 1 muck face-up card 0, 2 muck face-up card 1. The
seat's two face-up cards are put in a canonical order: the higher rank first;
on equal ranks, the card whose suit shows more often (in sight at the first
exchange, on the flop at the second) first, then dealt order. Canonical action
1 mucks the first card of that order, 2 the second; decline stays 0.

Every bucket includes the seat (players act in turn, and a later seat has seen
more), so counts are per player count P.

``exchange1``

- ``coarse`` (169 x P): the starting hand: both ranks and whether suited.
- ``medium`` (1,521 x P): the starting hand and, per card, how many of its
  rank are in sight elsewhere (0, 1, 2+).
- ``fine`` (18,252 x P): that, and what is in sight elsewhere (other players'
  face-up cards and the muck): per card how many of its rank (0, 1, 2+), for a
  suited hand how many of its suit (0-1, 2-3, 4+), and the best pair another
  player shows (none, 2-8, 9-Q, K-A).

``exchange2``

- ``coarse`` (145,800 x P, a few thousand occur): per canonical action, what
  the cards kept face up make with the flop (high card, pair, two pair, trips,
  straight or flush, full house or better) and their best draw (none; a
  gutshot or three to a flush of a face-up card's suit; open-ended or four to
  a flush); and the rank group (2-5, 6-8, 9-J, Q-K, A) of each face-up card.
- ``fine`` (538,265 x P): the exact ranks of both cards (91) and of the flop
  (455), and the suits as they matter for flushes: suited, with 0-3 flop cards
  of the suit, or offsuit with each card's flop suit count (at most 1, 2, 3).
- ``medium`` (530,712 x P, tens of thousands occur): ``coarse``'s per-action
  made hands and draws with the exact ranks of both face-up cards (91).

In each decision every granularity is a function of the next finer one.

Cards in the muck and other players' cards enter ``exchange2`` only through
the seat (live outs are not counted).

In ``coarse`` and ``medium`` the action the built-in ``thoughtful`` policy
takes (it counts live outs) is moved to canonical action 0, the other two
keeping their order, so their table of zeros is ``thoughtful``; ``fine``
keeps decline = 0. Bucket ids are unchanged by this.
"""
from __future__ import annotations

import functools

import numpy as np
from numba import njit

from ..kernels import popcount
from . import NAMES, Abstraction
from ._common import (MULTI2, MULTI3, RANK_GROUP_NAMES, RANKS, best_draw, builtin_choice, made_class,
                      multiset_ranks, per_action_state, policy_first, ranks3_desc, straight_state)

N_HAND = 169
N_FINE1 = N_HAND * 9 * 3 * 4
N_COARSE2 = 18 ** 3 * 25
RANK_GROUP = np.array([0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 4], np.int64)
N_SUIT2 = 13
N_FINE2 = 91 * 455 * N_SUIT2


@njit(cache=True, nogil=True)
def _order(c0, c1, s0, s1):
    """(first, second) positions: higher rank first, then the suit count s, then dealt order."""
    k0 = (c0 >> 2) * 16 + s0
    k1 = (c1 >> 2) * 16 + s1
    if k1 > k0:
        return 1, 0
    return 0, 1


@njit(cache=True, nogil=True)
def _hand_class(a, b):
    """0..168: ranks high to low and suited (a is the higher)."""
    ra, rb = a >> 2, b >> 2
    if (a & 3) == (b & 3):
        return rb * 13 + ra  # suited: low rank first (rb < ra)
    return ra * 13 + rb


@njit(cache=True, nogil=True)
def _kernel1(up, in_sight, seat, level, out, canon):
    n, P = up.shape[0], up.shape[1]
    c = np.empty(2, np.int64)
    rank_seen = np.zeros(2, np.int64)
    suit_seen = np.zeros(2, np.int64)
    for i in range(n):
        c[0], c[1] = up[i, seat, 0], up[i, seat, 1]
        sight = np.uint64(in_sight[i])
        # counts in sight other than the seat's own two cards
        for j in range(2):
            r, s = c[j] >> 2, c[j] & 3
            k = 0
            for t in range(4):
                k += (sight >> np.uint64(4 * r + t)) & np.uint64(1)
            for t in range(2):
                k -= (c[t] >> 2) == r
            rank_seen[j] = k
            k = 0
            for rr in range(13):
                k += (sight >> np.uint64(4 * rr + s)) & np.uint64(1)
            for t in range(2):
                k -= (c[t] & 3) == s
            suit_seen[j] = k
        f, g = _order(c[0], c[1], suit_seen[0], suit_seen[1])
        canon[i, 0] = 0
        canon[i, 1 + f] = 1
        canon[i, 1 + g] = 2
        hc = _hand_class(c[f], c[g])
        if level == 0:
            out[i] = hc * P + seat
            continue
        d = min(rank_seen[f], 2) * 3 + min(rank_seen[g], 2)
        if level == 1:
            out[i] = (hc * 9 + d) * P + seat
            continue
        su = 0
        if (c[0] & 3) == (c[1] & 3):
            x = suit_seen[0]
            su = 0 if x <= 1 else (1 if x <= 3 else 2)
        threat = 0
        for q in range(P):
            if q != seat and up[i, q, 0] >= 0 and (up[i, q, 0] >> 2) == (up[i, q, 1] >> 2):
                r = up[i, q, 0] >> 2
                t = 1 if r <= 6 else (2 if r <= 10 else 3)
                threat = max(threat, t)
        out[i] = (((hc * 9 + d) * 3 + su) * 4 + threat) * P + seat


@njit(cache=True, nogil=True)
def _kernel2(up, board, seat, level, out, canon, multi2, multi3, rank_group):
    fine = level == 2
    n, P = up.shape[0], up.shape[1]
    rc = np.zeros(13, np.int64)
    fs = np.zeros(2, np.int64)
    for i in range(n):
        c0, c1 = up[i, seat, 0], up[i, seat, 1]
        fs[0] = 0
        fs[1] = 0
        for t in range(3):
            fs[0] += (board[i, t] & 3) == (c0 & 3)
            fs[1] += (board[i, t] & 3) == (c1 & 3)
        f, g = _order(c0, c1, fs[0], fs[1])
        cf, cg = (c0, c1) if f == 0 else (c1, c0)
        canon[i, 0] = 0
        canon[i, 1 + f] = 1
        canon[i, 1 + g] = 2
        suited = (c0 & 3) == (c1 & 3)
        if fine:
            b0, b1, b2 = ranks3_desc(board[i, 0], board[i, 1], board[i, 2])
            if suited:
                su = fs[0]
            else:
                su = 4 + (max(fs[f], 1) - 1) * 3 + (max(fs[g], 1) - 1)
            out[i] = ((multi2[cf >> 2, cg >> 2] * 455 + multi3[b0, b1, b2]) * 13 + su) * P + seat
            continue
        code = 0
        for a in range(3):  # canonical actions: keep both, keep cg, keep cf
            for r in range(13):
                rc[r] = 0
            mask = 0
            m = 0
            for t in range(3):
                rc[board[i, t] >> 2] += 1
                mask |= 1 << (board[i, t] >> 2)
            for j in range(2):
                if a == 0 or (a == 1 and j == 1) or (a == 2 and j == 0):
                    x = cf if j == 0 else cg
                    rc[x >> 2] += 1
                    mask |= 1 << (x >> 2)
                    # cards of this face-up card's suit among the kept cards and the flop
                    k = 1 + (fs[f] if j == 0 else fs[g])
                    if a == 0 and suited:
                        k += 1
                    m = max(m, k)
            st = straight_state(mask)
            made = made_class(rc, m, st)
            code = code * 18 + made * 3 + best_draw(made, m, st)
        if level == 1:
            code = code * 91 + multi2[cf >> 2, cg >> 2]
        else:
            code = (code * 5 + rank_group[cf >> 2]) * 5 + rank_group[cg >> 2]
        out[i] = code * P + seat


@njit(cache=True, nogil=True)
def _exchange2_of_fine(level, mp, check, multi2, multi3, rank_group):
    """Fill ``mp`` (N_FINE2,), -1 where unknown, with the ``level`` bucket (0 coarse, 1 medium; seat
    left out) of each fine bucket of ``exchange2``, read by :func:`_kernel2` itself from a hand of
    each. Every hand up to the suits' names is read: the two face-up cards (suited or not), every
    flop of ranks and every flop suit, one relabelling of the suits no face-up card holds. With
    ``check`` every flop suit pattern (all 64) is read at ``level`` too, and the count of hands whose
    bucket differs from their fine bucket's entry is returned (0: the level is a function of the
    fine buckets on every hand)."""
    up = np.empty((1, 1, 2), np.int8)
    board = np.empty((1, 3), np.int8)
    out = np.empty(1, np.int64)
    canon = np.empty((1, 3), np.int64)
    wrong = 0
    for rf in range(13):
        for rg in range(rf + 1):
            for suited in range(2 if rf != rg else 1):
                up[0, 0, 0] = 4 * rf
                up[0, 0, 1] = 4 * rg + (1 - suited)
                for b0 in range(13):
                    for b1 in range(b0 + 1):
                        for b2 in range(b1 + 1):
                            for suits in range(64):
                                s0, s1, s2 = suits & 3, (suits >> 2) & 3, suits >> 4
                                # the suits no face-up card holds are alike: without ``check``, a
                                # flop card takes the lowest of them that no card before it took
                                top = 1 - suited
                                if not check and (s0 > top + 1 or s1 > max(top, s0) + 1
                                                  or s2 > max(top, s0, s1) + 1):
                                    continue
                                board[0, 0] = 4 * b0 + s0
                                board[0, 1] = 4 * b1 + s1
                                board[0, 2] = 4 * b2 + s2
                                held = (1 << (4 * rf)) | (1 << (4 * rg + 1 - suited))
                                for t in range(3):
                                    held |= 1 << board[0, t]
                                if popcount(np.uint64(held)) < 5:
                                    continue  # a card twice
                                _kernel2(up, board, 0, 2, out, canon, multi2, multi3, rank_group)
                                fine = out[0]
                                if mp[fine] >= 0 and not check:
                                    continue
                                _kernel2(up, board, 0, level, out, canon, multi2, multi3, rank_group)
                                if mp[fine] < 0:
                                    mp[fine] = out[0]
                                elif mp[fine] != out[0]:
                                    wrong += 1
    return wrong


@functools.lru_cache(maxsize=None)
def exchange2_of_fine(level: int) -> np.ndarray:
    """The coarse (0) or medium (1) ``exchange2`` bucket of each fine one, seat left out (-1 for
    codes no hand has); built on first use (0.2-0.35 s). The cache keeps a map once it is whole,
    so a thread never reads one another is still building."""
    mp = np.full(N_FINE2, -1, np.int64)
    _exchange2_of_fine(level, mp, False, MULTI2, MULTI3, RANK_GROUP)
    return mp


def _coarsening(decision: str, level: int, P: int) -> tuple:
    """``Abstraction.coarsens`` of a decision's coarse or medium buckets: the fine ones mapped (in
    ``exchange1`` the fine bucket's leading digits, in ``exchange2`` a look-up), and ``thoughtful``'s
    choice moved first in the fine canonical order (the kernel's own order, before that move)."""
    if decision == "exchange1":
        per = 12 if level == 1 else 108  # fine adds the suit (3) and the pair shown (4); medium the ranks seen (9)

        def buckets(fine):
            return fine // P // per * P + fine % P
    else:
        def buckets(fine):
            return exchange2_of_fine(level)[fine // P] * P + fine % P

    def canon(fine_canon, obs):
        return policy_first(fine_canon, builtin_choice("slovak", decision, POLICY, obs))

    return ("fine", buckets, canon)


def _make(decision, level):
    def kernel(obs, round=0):
        up = np.ascontiguousarray(obs["up"], dtype=np.int8)
        seat = int(obs["seat"])
        n = up.shape[0]
        out = np.empty(n, np.int64)
        canon = np.empty((n, 3), np.int64)
        if decision == "exchange1":
            _kernel1(up, np.ascontiguousarray(obs["in_sight"], dtype=np.uint64), seat, level, out, canon)
        else:
            _kernel2(up, np.ascontiguousarray(obs["board"], dtype=np.int8), seat, level, out, canon,
                     MULTI2, MULTI3, RANK_GROUP)
        if level < 2:
            canon = policy_first(canon, builtin_choice("slovak", decision, POLICY, obs))
        return out, canon

    return kernel


POLICY = "thoughtful"  # its action is canonical action 0 in coarse and medium


def _hand_text(hc: int) -> str:
    x, y = divmod(hc, 13)
    return f"{RANKS[y]}{RANKS[x]} suited" if x < y else f"{RANKS[x]}{RANKS[y]}" + ("" if x == y else " offsuit")


def _describe(decision: str, level: int, P: int):
    def describe(b: int) -> str:
        seat, b = b % P, b // P
        where = f"seat {seat}"
        if decision == "exchange1":
            if level == 0:
                return f"{_hand_text(b)}, {where}"
            if level == 2:
                b, threat = divmod(b, 4)
                b, su = divmod(b, 3)
            hc, d = divmod(b, 9)
            text = f"{_hand_text(hc)}, {where}; in sight elsewhere: {d // 3} and {d % 3} of their ranks (2 = 2+)"
            if level == 2:
                text += (f"; {('0-1', '2-3', '4+')[su]} of the suit" if "suited" in _hand_text(hc) else "")
                text += "; best pair shown: " + ("none", "2-8", "9-Q", "K-A")[threat]
            return text
        if level == 2:
            b, su = divmod(b, 13)
            m2, m3 = divmod(b, 455)
            suits = (f"suited, {su} of the suit on the flop" if su < 4 else
                     f"offsuit, flop cards of each card's suit: {('<=1', '2', '3')[(su - 4) // 3]} and "
                     f"{('<=1', '2', '3')[(su - 4) % 3]}")
            return f"{multiset_ranks(MULTI2, m2)} on a {multiset_ranks(MULTI3, m3)} flop, {suits}, {where}"
        if level == 1:
            code, m2 = divmod(b, 91)
            cards = multiset_ranks(MULTI2, m2)
        else:
            code, g = divmod(b, 25)
            cards = f"{RANK_GROUP_NAMES[g // 5]} and {RANK_GROUP_NAMES[g % 5]}"
        states = (code // 324, (code // 18) % 18, code % 18)
        return (f"face up {cards}, {where}; declining makes {per_action_state(states[0])}; mucking the "
                f"higher keeps {per_action_state(states[1])}; mucking the lower keeps {per_action_state(states[2])}")

    return describe


def abstractions(variant, decision: str, n_players: int) -> dict[str, Abstraction]:
    P = n_players
    # per granularity (coarse, medium, fine): buckets per seat, what they say, version
    if decision == "exchange1":
        specs = ((N_HAND, "starting hand (169) and seat", 2),
                 (N_HAND * 9, "starting hand and how many of each card's rank are in sight elsewhere, and seat", 2),
                 (N_FINE1, "starting hand, its ranks and suit in sight elsewhere, the best pair shown, and seat", 1))
    else:
        specs = ((N_COARSE2, "per action the made hand and draw of the kept face-up cards with the flop, rank groups "
                             "of the face-up cards, and seat", 2),
                 (18 ** 3 * 91, "per action the made hand and draw of the kept face-up cards with the flop, exact "
                                "ranks of the face-up cards, and seat", 2),
                 (N_FINE2, "exact ranks of the face-up cards and the flop, flush-relevant suit counts, and seat", 1))
    return {name: Abstraction("slovak", decision, name, size * P, 3, text, _make(decision, level), key=(P,),
                              version=version, describer=_describe(decision, level, P),
                              coarsens=_coarsening(decision, level, P) if level < 2 else None)
            for level, (name, (size, text, version)) in enumerate(zip(NAMES, specs))}
