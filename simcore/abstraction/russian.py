"""Russian Hold'em: buckets for the twelve placements.

Each of the seat's three hands (its flop card, the cards placed on it, its own
face-down card) gets a *state*:

- how many cards it has been given (0 to 4; 4 is full, so not legal);
- what it holds: high card, a pair, two pair, trips or better;
- whether it can still become a flush (every card one suit) or a straight
  (distinct ranks inside one five-rank window);
- what the card to place does on it: pairs one of its ranks, else keeps its
  flush or straight possible, else nothing.

Two wins out of three take the pot and hands differ only by their cards, so
the hands are put in a canonical order: first the hand the built-in
``conceal`` policy would place the card on (the card's gain in made strength
and chances, keeping the face-down fifth card for a strong card), then the
other two by state, high to low (equal states keep hand order); canonical
action k places the card on the k-th hand of that order. A table that always
plays canonical action 0 is ``conceal``. A bucket is the multiset of the three states, the rank group of the
card to place (2-6, 7-T, J-A) and the seat (seats place in turn; a later one
has seen the others' cards of the round). The round is the number of cards
the seat has given, so it is in the bucket.

- ``fine``: 120 states (5 x 4 x 2 x 3): 295,240 multisets x 3 x P
  (3,542,880 buckets at 4 players, 2,657,160 at 3).
- ``coarse``: 30 states (cards given 0-4 x pair or better x what the card
  does): 4,960 multisets x 3 x P.
- ``medium``: 60 states (``fine``'s without the flush or straight still
  possible): 37,820 multisets x 3 x P.

Each granularity is a function of the next finer one.

Other players' visible cards do not enter: the buckets are a function of the seat's view
(``simcore.variants.russian.seat_view``: ``seat_view=True``).
"""
from __future__ import annotations

import functools

import numpy as np
from numba import njit

from . import Abstraction
from ._common import COMB, builtin_choice, multiset_index, multiset_unrank, n_multisets, popcount, sort_desc
from ..kernels import rank_sets

_WINDOWS = np.array([(0b11111 << lo) for lo in range(9)] + [0b1000000001111], np.int64)
# FITS[mask]: the ranks of ``mask`` lie inside one five-rank window (the ace also low)
FITS = np.zeros(1 << 13, np.bool_)
for _w in _WINDOWS:
    FITS[np.arange(1 << 13)[(np.arange(1 << 13) & ~_w) == 0]] = True
N_FINE_STATES, N_MEDIUM_STATES, N_COARSE_STATES = 120, 60, 30

# How `pvsim exploit` fits a Russian BR unless told otherwise (simcore.exploit.fit_defaults).
# Against a field that places by a rule (first-open, the default, and by-rank: the `place_rule`
# trait): twelve placement rounds are twelve stages; fitted last-first from first-open's earlier
# placements, a late round sees only the few situations first-open leads to, and each pass
# reaches about one round further. The first pass therefore plays the rounds not yet fitted by
# `conceal` (canonical action 0 of these buckets). And where a bucket keeps the field, it keeps
# first-open, the worst placement: a departure needs a positive paired mean over 4 tries, not a
# 95% margin over 16 (which kept first-open in about half of the decisions). Seat 0 at 4 players,
# 65,536 fresh deals (conceal itself: +0.3605): 2 passes of 32,768 deals, 95% over 16 tries, no
# start: +0.129; confidence 0, no start, 6 passes: +0.376; confidence 0, start conceal: +0.329,
# +0.344, +0.378, +0.385 after 1 to 4 passes; 4 tries instead of 16: +0.391. Against by-rank
# (16,384 deals): +0.151, where a 95% margin over 16 tries from the same start gave +0.038.
# Against a field that reads the cards (conceal, best-gain, ...) a departure on a positive mean
# leaves good play on noise (conceal field, 16,384 deals, 1 pass: -0.033 at confidence 0, -0.0005
# at 95%), and more passes find nothing more (4 passes at 95%: -0.0006): the usual test, 1 pass.
RULE_FIELD_FIT = {"deals": 32_768, "passes": 4, "min_visits": 4, "confidence": 0.0, "start": "conceal"}
CARD_FIELD_FIT = {"deals": 32_768, "passes": 1}


def fit_defaults(field=None) -> dict:
    """Russian's fitting defaults against ``field`` (a resolved seat {decision: (label, fn)};
    None: the default field, first-open): :data:`RULE_FIELD_FIT` where the field places by a
    rule (the ``place_rule`` trait), else :data:`CARD_FIELD_FIT`."""
    from ..engine import policy_traits

    if field is None or policy_traits(field["place"][1]).get("place_rule") is not None:
        return dict(RULE_FIELD_FIT)
    return dict(CARD_FIELD_FIT)


@njit(cache=True, nogil=True, inline="always")
def _hand_state(level, pc, made, draw, effect):
    """A hand's state at granularity ``level`` (2 fine, 1 medium, 0 coarse) from its cards given
    (0-4), what it holds (0 high card .. 3 trips+), whether a flush or straight is still possible
    and what the card does on it (0 nothing, 1 keeps it alive, 2 pairs it)."""
    if level == 2:
        return ((pc * 4 + made) * 2 + draw) * 3 + effect
    if level == 1:
        return (pc * 4 + made) * 3 + effect
    return (pc * 2 + (made > 0)) * 3 + effect


@njit(cache=True, nogil=True)
def _kernel(flop, up, placed, own_down, card, seat, level, first, comb, out, canon):
    n = flop.shape[0]
    P = up.shape[1]
    state = np.empty(3, np.int64)
    order = np.empty(3, np.int64)
    srt = np.empty(3, np.int64)
    cards = np.empty(6, np.int64)
    for i in range(n):
        x = card[i]
        xr, xs = x >> 2, x & 3
        for k in range(3):
            m = 0
            cards[m] = flop[i, k]
            m += 1
            for t in range(3):
                c = up[i, seat, k, t]
                if c >= 0:
                    cards[m] = c
                    m += 1
            if own_down[i, k] >= 0:
                cards[m] = own_down[i, k]
                m += 1
            s1, s2, s3, _ = rank_sets(cards, m)
            one_suit = True
            for t in range(1, m):
                one_suit = one_suit and (cards[t] & 3) == (cards[0] & 3)
            made = 3 if s3 else min(popcount(s2), 2)
            straight = s2 == 0 and FITS[s1]
            draw = 1 if (one_suit or straight) else 0
            pc = placed[i, seat, k]
            effect = 0
            if pc < 4:
                if (s1 >> xr) & 1:
                    effect = 2
                elif (one_suit and xs == (cards[0] & 3)):
                    effect = 1
                elif straight and FITS[s1 | (1 << xr)]:
                    effect = 1
            state[k] = _hand_state(level, pc, made, draw, effect)
        sort_desc(state, order, 3)
        for q in range(3):
            srt[q] = state[order[q]]
        # canonical order: the hand `conceal` chooses first, then the others by state
        f = first[i]
        canon[i, f] = 0
        q = 1
        for j in range(3):
            if order[j] != f:
                canon[i, order[j]] = q
                q += 1
        group = 0 if xr <= 4 else (1 if xr <= 8 else 2)
        out[i] = (multiset_index(srt, 3, comb) * 3 + group) * P + seat


def _make(level: int):
    def kernel(obs, round=0, order=True):
        flop = np.ascontiguousarray(obs["flop"], dtype=np.int8)
        n = flop.shape[0]
        out = np.empty(n, np.int64)
        canon = np.empty((n, 3), np.int64)
        # the hand the built-in `conceal` places the card on (it reads the seat's hands, the cards
        # in sight and the card); the buckets do not depend on it (``order=False``: buckets only)
        first = (np.ascontiguousarray(builtin_choice("russian", "place", "conceal", obs)) if order
                 else np.zeros(n, np.int64))
        _kernel(flop, np.asarray(obs["up"], dtype=np.int8),
                np.asarray(obs["placed"], dtype=np.int8),
                np.ascontiguousarray(obs["own_down"], dtype=np.int8),
                np.ascontiguousarray(obs["card"], dtype=np.int8), int(obs["seat"]), level, first, COMB, out,
                canon)
        return out, canon

    def buckets(obs, round=0):
        return kernel(obs, round, order=False)[0]

    return kernel, buckets


_MADE = ("high card", "a pair", "two pair", "trips+")
_EFFECT = ("the card does nothing", "the card keeps it alive", "the card pairs it")


def _hand_text(level: int, x: int) -> str:
    if level == 2:
        rest, effect = divmod(x, 3)
        rest, draw = divmod(rest, 2)
        pc, made = divmod(rest, 4)
        draw_text = ", flush or straight possible" if draw else ""
        return f"{pc} given, {_MADE[made]}{draw_text}: {_EFFECT[effect]}"
    rest, effect = divmod(x, 3)
    if level == 1:
        pc, made = divmod(rest, 4)
        return f"{pc} given, {_MADE[made]}: {_EFFECT[effect]}"
    pc, paired = divmod(rest, 2)
    return f"{pc} given, {'pair or better' if paired else 'no pair'}: {_EFFECT[effect]}"


def _describe(level: int, P: int):
    n_states = (N_COARSE_STATES, N_MEDIUM_STATES, N_FINE_STATES)[level]

    def describe(b: int) -> str:
        m, seat = divmod(b, P)
        m, group = divmod(m, 3)
        states = multiset_unrank(m, 3, n_states)
        hands = "; ".join(f"hand {k + 1} (canonical) {_hand_text(level, x)}" for k, x in enumerate(states))
        return f"seat {seat}, a {('2-6', '7-T', 'J-A')[group]} to place; {hands}"

    return describe


@njit(cache=True, nogil=True)
def _state_of_fine(level, fine, out):
    """``out``: the level's hand state (:func:`_hand_state`) of each ``fine`` state."""
    for i in range(fine.size):
        effect, rest = fine.flat[i] % 3, fine.flat[i] // 3
        out.flat[i] = _hand_state(level, rest // 8, (rest // 2) % 4, rest % 2, effect)


@functools.lru_cache(maxsize=None)
def _multiset_of_fine(level: int) -> np.ndarray:
    """(295,240,) int64: the level's multiset id of each fine multiset id (the three hands'
    states, each mapped by :func:`_state_of_fine`, sorted again)."""
    a, b, c = np.meshgrid(*(np.arange(N_FINE_STATES),) * 3, indexing="ij")
    keep = (a >= b) & (b >= c)
    fine = np.stack([a[keep], b[keep], c[keep]], axis=1)  # every multiset, high to low
    mine = np.empty_like(fine)
    _state_of_fine(level, fine, mine)
    mine = -np.sort(-mine, axis=1)

    def index(s):  # multiset_index, row by row
        return COMB[s[:, 0] + 2, 3] + COMB[s[:, 1] + 1, 2] + COMB[s[:, 2], 1]

    out = np.empty(len(fine), np.int64)
    out[index(fine)] = index(mine)
    return out


@njit(cache=True, nogil=True)
def _map_buckets(b, multisets, P, out):
    for i in range(b.shape[0]):
        m, seat = divmod(b[i], P)
        m, group = divmod(m, 3)
        out[i] = (multisets[m] * 3 + group) * P + seat


def _buckets_of_fine(level: int, P: int):
    """``f(fine buckets) -> the level's buckets`` (a multiset of states is a function of the fine
    one; the canonical order is not: equal states keep hand order)."""
    def f(b):
        b = np.ascontiguousarray(b, dtype=np.int64)
        out = np.empty(len(b), np.int64)
        _map_buckets(b, _multiset_of_fine(level), P, out)
        return out

    return f


def abstractions(variant, decision: str, n_players: int) -> dict[str, Abstraction]:
    P = n_players
    made = [_make(level) for level in range(3)]  # (kernel, buckets only)
    return {
        "coarse": Abstraction(
            "russian", "place", "coarse", n_multisets(N_COARSE_STATES, 3) * 3 * P, 3,
            "the three hands' states (cards given, pair or better, what the card does on it), the card's "
            "rank group and the seat",
            made[0][0], key=(P,), version=3, bucket_kernel=made[0][1], describer=_describe(0, P), seat_view=True,
            buckets_of=("fine", _buckets_of_fine(0, P))),
        "medium": Abstraction(
            "russian", "place", "medium", n_multisets(N_MEDIUM_STATES, 3) * 3 * P, 3,
            "the three hands' states (cards given, made hand, what the card does on it), the card's rank "
            "group and the seat",
            made[1][0], key=(P,), version=3, bucket_kernel=made[1][1], describer=_describe(1, P), seat_view=True,
            buckets_of=("fine", _buckets_of_fine(1, P))),
        "fine": Abstraction(
            "russian", "place", "fine", n_multisets(N_FINE_STATES, 3) * 3 * P, 3,
            "the three hands' states (cards given, made hand, flush or straight still possible, what "
            "the card does on it), the card's rank group and the seat", made[2][0], key=(P,), version=3,
            bucket_kernel=made[2][1], describer=_describe(2, P), seat_view=True),
    }
