"""Sviten Special: buckets for the draw and the One Open answer.

**draw** (32 actions, a 5-bit mask over hand positions). The five cards are put
in a canonical order: the suits are ordered by the ranks they hold (the larger
13-bit rank set first; equal sets by the first hand position holding the
suit), and the cards by rank, high to low, then by that suit order. Canonical
action m throws the cards at the canonical positions of m's bits.

- ``fine`` (268,918 buckets): the exact suit-isomorphic class of the five
  cards (134,459 classes), and whether the seat is in the first or second half
  of the table (later seats face a shorter stub and have seen more draws).
- ``medium`` (43,316 buckets): the ranks of the five cards (6,188 multisets)
  and their flush shape: at most three of a suit, four of a suit with the odd
  card at position 1-5 of the order above, or five of a suit.
- ``coarse`` (270 buckets): the made hand (high card to straight flush), four
  to a flush or not, the straight draw (none, gutshot, open-ended) and the top
  card's rank group (2-5, 6-8, 9-J, Q-K, A).

``coarse`` and ``medium`` move the draw the built-in ``draw-poker`` policy
makes to canonical action 0 (the other masks keep the order above), so their
table of zeros is ``draw-poker`` and a best response starts from it; ``fine``
keeps the plain order. Bucket ids nest: each is a function of the next finer
one.

None reads the flop: the own-five half of the pot is the five cards alone,
and the flop enters only the Omaha half.

**open** (keep 0, refuse 1; asked after throwing exactly one card):

- ``fine`` (2,563,393 buckets): the exact class of the four kept cards
  (16,432) with the open card's rank and its suit's place in that class's
  suit order.
- ``coarse`` (1,501 buckets): the kept cards' rank pattern (four different,
  a pair, two pair, trips, quads), how many kept cards share the open card's
  rank (0-3), its rank group (2-5, 6-8, 9-J, Q-K, A) and how many kept cards
  share its suit (0-4).
- ``medium`` (3,901 buckets): ``coarse`` with the open card's exact rank.

Each also says whether the open card's rank is below, equal to or above the
thrown card's (x 3).

Each granularity is a function of the next finer one.

Rows without an open card (only keep is legal) get the last bucket. In
``coarse`` and ``medium`` canonical action 0 is the answer of the built-in
``both-halves`` policy (1 the other one); ``fine`` keeps keep = 0, refuse = 1.

Every one reads its buckets and canonical order from the game's seat view
(``simcore.variants.sviten.seat_view``: ``seat_view=True``) and the seat.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from . import NAMES, Abstraction, identity_canon
from ._common import (COMB, RANK_GROUP_NAMES, RANKS, STRAIGHT_STATE, builtin_choice, canonical_suits, class_id,
                      class_keys, multiset_index, multiset_unrank, policy_first, popcount, sort_desc)

N_CLASS5 = 134_459
N_CLASS4 = 16_432
N_FINE_DRAW = N_CLASS5 * 2
N_RANKS5 = 6_188
N_MEDIUM_DRAW = N_RANKS5 * 7
N_COARSE_DRAW = 9 * 2 * 3 * 5
# x 3: the open card's rank below, equal to or above the thrown card's; + 1: no open card
N_FINE_OPEN = N_CLASS4 * 52 * 3 + 1
N_COARSE_OPEN = 5 * 4 * 5 * 5 * 3 + 1
N_MEDIUM_OPEN = 5 * 4 * 13 * 5 * 3 + 1
OPEN_SIZES = (N_COARSE_OPEN, N_MEDIUM_OPEN, N_FINE_OPEN)
RANK_GROUP = np.array([0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 4], np.int64)


@njit(cache=True, nogil=True)
def _draw_kernel(hand, seat, n_players, level, keys5, comb, out, canon):
    fine = level == 2
    n = hand.shape[0]
    cards = np.empty(5, np.int64)
    sr = np.empty(4, np.int64)
    key = np.empty(5, np.int64)
    order = np.empty(5, np.int64)
    pos = np.empty(5, np.int64)
    st = np.empty(5, np.int64)
    sc = np.zeros(4, np.int64)
    scratch = np.empty((3, 4), np.int64)
    half = 1 if 2 * seat >= n_players else 0
    for i in range(n):
        for j in range(5):
            cards[j] = hand[i, j]
        ckey = canonical_suits(cards, 5, sr, scratch)
        for j in range(5):
            key[j] = (cards[j] >> 2) * 4 + (3 - sr[cards[j] & 3])
        # ranks high to low; on equal ranks the earlier suit of the canonical order
        sort_desc(key, order, 5)
        for k in range(5):
            pos[order[k]] = k
        for m in range(32):
            c = 0
            for j in range(5):
                if (m >> j) & 1:
                    c |= 1 << pos[j]
            canon[i, m] = c
        if fine:
            out[i] = class_id(keys5, ckey) * 2 + half
            continue
        for s in range(4):
            sc[s] = 0
        for j in range(5):
            sc[cards[j] & 3] += 1
            st[j] = cards[order[j]] >> 2
        mx = 0
        ms = 0
        for s in range(4):
            if sc[s] > mx:
                mx = sc[s]
                ms = s
        if mx <= 3:
            fl = 0
        elif mx == 5:
            fl = 6
        else:
            fl = 1
            for k in range(5):
                if (cards[order[k]] & 3) != ms:
                    fl = 1 + k
        if level == 1:
            out[i] = multiset_index(st, 5, comb) * 7 + fl
            continue
        # coarse: the made hand, the draws, the top card's rank group
        mask = 0
        for k in range(5):
            mask |= 1 << st[k]
        distinct = popcount(mask)
        quads = st[0] == st[3] or st[1] == st[4]
        trips = False
        pairs = 0
        for k in range(3):
            trips = trips or (st[k] == st[k + 2])
        for k in range(4):
            pairs += st[k] == st[k + 1]
        sstate = STRAIGHT_STATE[mask] if distinct >= 4 else 0
        flush = mx == 5
        straight = distinct == 5 and sstate == 3
        if straight and flush:
            made = 8
        elif quads:
            made = 7
        elif trips and distinct == 2:
            made = 6
        elif flush:
            made = 5
        elif straight:
            made = 4
        elif trips:
            made = 3
        elif distinct == 3:
            made = 2
        elif distinct == 4:
            made = 1
        else:
            made = 0
        fd = 1 if (made < 4 and mx == 4) else 0
        sd = min(sstate, 2) if made < 4 else 0
        out[i] = ((made * 2 + fd) * 3 + sd) * 5 + RANK_GROUP[st[0]]


@njit(cache=True, nogil=True)
def _open_kernel(hand, mask, open_card, level, keys4, empty, out):
    fine = level == 2
    n = hand.shape[0]
    cards = np.empty(4, np.int64)
    sr = np.empty(4, np.int64)
    rc = np.zeros(13, np.int64)
    scratch = np.empty((3, 4), np.int64)
    for i in range(n):
        oc = open_card[i]
        if oc < 0:
            out[i] = empty
            continue
        k = 0
        thrown = 0
        for j in range(5):
            if not (mask[i] >> j) & 1:
                cards[k] = hand[i, j]
                k += 1
            else:
                thrown = hand[i, j] >> 2
        vs = 0 if (oc >> 2) < thrown else (1 if (oc >> 2) == thrown else 2)
        if fine:
            ckey = canonical_suits(cards, 4, sr, scratch)
            present = 0
            for s in range(4):
                for j in range(4):
                    if (cards[j] & 3) == s:
                        present |= 1 << s
            s = oc & 3
            if (present >> s) & 1:
                code = sr[s]
            else:  # a suit the kept cards lack: every such suit is alike
                code = 0
                for t in range(4):
                    code += (present >> t) & 1
            out[i] = (class_id(keys4, ckey) * 52 + (oc >> 2) * 4 + code) * 3 + vs
            continue
        for r in range(13):
            rc[r] = 0
        same_suit = 0
        for j in range(4):
            rc[cards[j] >> 2] += 1
            same_suit += (cards[j] & 3) == (oc & 3)
        mx = 0
        pairs = 0
        for r in range(13):
            mx = max(mx, rc[r])
            pairs += rc[r] == 2
        if mx == 4:
            pat = 4
        elif mx == 3:
            pat = 3
        elif pairs == 2:
            pat = 2
        elif pairs == 1:
            pat = 1
        else:
            pat = 0
        rank = rc[oc >> 2]
        if level == 1:
            out[i] = (((pat * 4 + rank) * 13 + (oc >> 2)) * 5 + same_suit) * 3 + vs
        else:
            out[i] = (((pat * 4 + rank) * 5 + RANK_GROUP[oc >> 2]) * 5 + same_suit) * 3 + vs


POLICY = {"draw": "draw-poker", "open": "both-halves"}  # the best built-in policy per decision


def _draw(level):
    def kernel(obs, round=0):
        hand = np.ascontiguousarray(obs["hand"], dtype=np.int8)
        n = hand.shape[0]
        out = np.empty(n, np.int64)
        canon = np.empty((n, 32), np.int64)
        _draw_kernel(hand, int(obs["seat"]), int(obs["n_players"]), level, class_keys(5), COMB, out, canon)
        if level < 2:
            canon = policy_first(canon, builtin_choice("sviten", "draw", POLICY["draw"], obs))
        return out, canon

    return kernel


def _open(level):
    def kernel(obs, round=0):
        hand = np.ascontiguousarray(obs["hand"], dtype=np.int8)
        n = hand.shape[0]
        out = np.empty(n, np.int64)
        _open_kernel(hand, np.ascontiguousarray(obs["mask"], dtype=np.int8),
                     np.ascontiguousarray(obs["open_card"], dtype=np.int8), level,
                     class_keys(4) if level == 2 else np.zeros(1, np.int64), OPEN_SIZES[level] - 1, out)
        canon = identity_canon(n, 2)
        if level < 2:
            canon = policy_first(np.array(canon), builtin_choice("sviten", "open", POLICY["open"], obs))
        return out, canon

    return kernel


_SUITS = "shdc"  # how a class's suits are shown: its first suit as spades, and so on
_PATTERNS = ("four different ranks", "a pair", "two pair", "trips", "quads")


def _class_cards(k: int, cls: int) -> str:
    """A hand of suit-isomorphic class ``cls`` of k cards, its suits named in class order."""
    key = int(class_keys(k)[cls])
    cards = []
    for j in range(4):
        mask = (key >> (13 * (3 - j))) & 0x1FFF
        cards += [(r, j) for r in range(12, -1, -1) if (mask >> r) & 1]
    cards.sort(key=lambda c: (-c[0], c[1]))
    return " ".join(RANKS[r] + _SUITS[j] for r, j in cards)


_MADE = ("high card", "a pair", "two pair", "trips", "a straight", "a flush", "a full house", "quads",
         "a straight flush")


def _describe_draw(level: int):
    def describe(b: int) -> str:
        if level == 2:
            b, h = divmod(b, 2)
            return _class_cards(5, b) + ", " + ("second" if h else "first") + " half of the table"
        if level == 0:
            b, top = divmod(b, 5)
            b, sd = divmod(b, 3)
            made, fd = divmod(b, 2)
            draws = (" + four to a flush" if fd else "") + ("", " + a gutshot", " + an open-ender")[sd]
            return f"{_MADE[made]}{draws}, top card {RANK_GROUP_NAMES[top]}"
        ms, fl = divmod(b, 7)
        ranks = "".join(RANKS[r] for r in multiset_unrank(ms, 5, 13))
        shape = ("at most three of a suit" if fl == 0 else "five of a suit" if fl == 6 else
                 f"four of a suit, the odd card {('1st', '2nd', '3rd', '4th', '5th')[fl - 1]} by rank")
        return f"{ranks}, {shape}"

    return describe


def _describe_open(level: int):
    empty = OPEN_SIZES[level] - 1

    def describe(b: int) -> str:
        if b == empty:
            return "no open card (only keep is legal)"
        b, vs = divmod(b, 3)
        than = ("lower than", "the rank of", "higher than")[vs] + " the thrown card"
        if level == 2:
            cls, rest = divmod(b, 52)
            r, code = divmod(rest, 4)
            return f"kept {_class_cards(4, cls)}; open card {RANKS[r]}{_SUITS[code]}, {than}"
        b, same_suit = divmod(b, 5)
        if level == 1:
            b, r = divmod(b, 13)
            rank = RANKS[r]
        else:
            b, g = divmod(b, 5)
            rank = RANK_GROUP_NAMES[g]
        pat, pairs = divmod(b, 4)
        return (f"kept {_PATTERNS[pat]}; open card {rank}, {than}, pairing {pairs} kept card(s), "
                f"{same_suit} kept card(s) of its suit")

    return describe


def abstractions(variant, decision: str, n_players: int) -> dict[str, Abstraction]:
    # per granularity (coarse, medium, fine): buckets, what they say, version
    if decision == "draw":
        n_actions, make, describer = 32, _draw, _describe_draw
        specs = ((N_COARSE_DRAW, "draw-poker's draw first; the made hand (9), four to a flush, a straight draw (3) and "
                                 "the top card's rank group (5)", 2),
                 (N_MEDIUM_DRAW, "draw-poker's draw first; the ranks of the five cards (6,188) and their flush shape "
                                 "(7)", 2),
                 (N_FINE_DRAW, "exact suit-isomorphic class of the five cards (134,459) and the half of the table the "
                               "seat sits in", 1))
    else:
        n_actions, make, describer = 2, _open, _describe_open
        specs = ((N_COARSE_OPEN, "kept cards' rank pattern; the open card's pairs, rank group, suit count and rank "
                                 "against the thrown card", 3),
                 (N_MEDIUM_OPEN, "kept cards' rank pattern; the open card's pairs, rank, suit count and rank against "
                                 "the thrown card", 3),
                 (N_FINE_OPEN, "exact class of the four kept cards with the open card, and the open card against the "
                               "thrown one", 2))
    return {name: Abstraction("sviten", decision, name, size, n_actions, text, make(level), key=(n_players,),
                              version=version, describer=describer(level), seat_view=True)
            for level, (name, (size, text, version)) in enumerate(zip(NAMES, specs))}
