"""Tapiola Hold'em: buckets for the three discards and the last decision.

Each held card gets a *state*: its rank and its class, where the class says
what it does with the cards in sight (the centre and the tower cards dealt so
far):

- high game: it pairs a visible card; else (``coarse`` and ``medium`` only: in
  ``fine`` the exact ranks say it) it pairs another held card; else its suit
  has at least three cards among the held cards, the centre and the visible
  towers; else none of these;
- lowball: 1 it pairs a visible card or another held card, else 0 (ranks count
  the ace low).

A bucket is the multiset of the held cards' states; the number held says the
round (5, 4, 3 cards; lowball 6, 5, 4). A ``last`` bucket also says whether
keeping three makes a final hand at least as strong as the best throw (x 2).

Canonical order: first the held card whose throw leaves the best hand the
other held cards make with what is in sight (high: three of them, or two and
the centre, with one card of each tower dealt; lowball: three, the centre and
the towers; at ``last`` the final hands; equal hands: the lower state), then
the others by state, high to low (rank first, then class; equal states keep
their hand order), the thrown positions last. Canonical action k throws the
k-th card of that order (``last``: 0 keeps all, 1 + k throws the k-th).

- ``coarse``: three rank groups (2-8, 9-J, Q-A; lowball A-5, 6-T, J-K) x the
  classes (12 high, 6 lowball): 6,097 discard buckets (high), 728 for
  ``last``; lowball 840. Few enough for a best response to fit from a few
  hundred thousand deals.
- ``medium``: five rank groups (2-5, 6-8, 9-J, Q-K, A; lowball A-3, 4-5, 6-7,
  8-T, J-K) x the classes (20 high, 10 lowball): 52,899 discard buckets
  (high), 3,080 for ``last``; lowball 7,722.
- ``fine``: states of 13 ranks x the classes (39 high, 26 lowball):
  1,085,188 discard buckets (high), 21,320 for ``last``; lowball 902,538.

Each granularity is a function of the next finer one (the groups nest).

The scoring option changes what a bucket is worth, not what it means; a table
file records the options and refuses others.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..variants.tapiola import throw_values
from . import Abstraction
from ._common import COMB, multiset_index, multiset_unrank, n_multisets, sort_desc

# rank groups per granularity (coarse, medium, fine), each nested in the next
HIGH_GROUPS = (np.array([0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2], np.int64),   # 2-8 9-J Q-A
               np.array([0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 4], np.int64),   # 2-5 6-8 9-J Q-K A
               np.arange(13, dtype=np.int64))
# lowball: rank index with the ace low (A=0, 2=1, ..., K=12)
LOW_GROUPS = (np.array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2], np.int64),    # A-5 6-T J-K
              np.array([0, 0, 0, 1, 1, 2, 2, 3, 3, 3, 4, 4, 4], np.int64),    # A-3 4-5 6-7 8-T J-K
              np.arange(13, dtype=np.int64))


@njit(cache=True, nogil=True)
def _kernel(hand, held, centre, towers, lowball, groups, n_class, last, offsets, comb, out, canon, ordered=True):
    """Buckets into ``out`` and the canonical order into ``canon``; ``ordered`` False (a discard's
    buckets alone, which do not depend on it): no canonical order, nor the hands it needs."""
    n, h = hand.shape
    state = np.empty(h, np.int64)
    order = np.empty(h, np.int64)
    sorted_states = np.empty(h, np.int64)
    rc = np.zeros(13, np.int64)
    hrc = np.zeros(13, np.int64)
    sc = np.zeros(4, np.int64)
    vals = np.empty(h, np.int64)
    sort_key = np.empty(h, np.int64)
    work = np.empty(h, np.int64)
    tw = np.empty((2, 9), np.uint64)
    for i in range(n):
        for r in range(13):
            rc[r] = 0
            hrc[r] = 0
        for s in range(4):
            sc[s] = 0
        rc[centre[i] >> 2] += 1
        sc[centre[i] & 3] += 1
        for t in range(6):
            c = towers[i, t]
            if c >= 0:
                rc[c >> 2] += 1
                sc[c & 3] += 1
        k = 0
        for j in range(h):
            if held[i, j]:
                k += 1
                hrc[hand[i, j] >> 2] += 1
                sc[hand[i, j] & 3] += 1
        for j in range(h):
            c = hand[i, j]
            r = c >> 2
            if lowball:
                lr = (r + 1) % 13
                cls = 1 if (rc[r] > 0 or hrc[r] > 1) else 0
                rank = lr
            else:
                if n_class == 4:
                    cls = 3 if rc[r] > 0 else (2 if hrc[r] > 1 else (1 if sc[c & 3] >= 3 else 0))
                else:
                    cls = 2 if rc[r] > 0 else (1 if sc[c & 3] >= 3 else 0)
                rank = r
            rank = groups[rank]
            # held cards first (larger keys), then thrown ones
            state[j] = (rank * n_class + cls) if held[i, j] else -1 - j
        # the multiset of the held cards' states, high to low
        for j in range(h):
            sort_key[j] = state[j]
        sort_desc(sort_key, order, h)
        for q in range(k):
            sorted_states[q] = state[order[q]]
        rnd = h - k
        if rnd < 0 or rnd > 2:
            rnd = 2
        if not ordered and not last:
            out[i] = offsets[rnd] + multiset_index(sorted_states, k, comb)
            continue
        # canonical order: the throw that leaves the best hand first (on equal hands the
        # higher state), then by state high to low, thrown positions last
        keep = throw_values(hand[i], held[i], centre[i], towers[i], lowball, last, work, vals, tw)
        best = order[0]
        for q in range(k):  # on equal hands the lower state (the lower card) goes, as in `made`
            if vals[order[q]] >= vals[best]:
                best = order[q]
        sort_key[best] = 1 << 40
        sort_desc(sort_key, order, h)
        for q in range(h):
            if last:
                canon[i, 1 + order[q]] = 1 + q
            else:
                canon[i, order[q]] = q
        if last:
            canon[i, 0] = 0
        b = offsets[rnd] + multiset_index(sorted_states, k, comb)
        if last:  # and whether keeping three is at least as good as the best throw
            b = b * 2 + (1 if keep >= vals[best] else 0)
        out[i] = b


def _offsets(n_states: int, h: int, last: bool):
    if last:
        return np.array([0, 0, 0], np.int64), 2 * n_multisets(n_states, h - 2)
    sizes = [n_multisets(n_states, h - r) for r in range(3)]
    return np.array([0, sizes[0], sizes[0] + sizes[1]], np.int64), sum(sizes)


def _make(lowball: bool, level: int, last: bool, h: int):
    groups = (LOW_GROUPS if lowball else HIGH_GROUPS)[level]
    n_class = 2 if lowball else (3 if level == 2 else 4)
    n_states = int(groups.max() + 1) * n_class
    offsets, total = _offsets(n_states, h, last)

    def kernel(obs, round=0, order=True):
        hand = np.ascontiguousarray(obs["hand"], dtype=np.int8)
        n = hand.shape[0]
        out = np.empty(n, np.int64)
        canon = np.empty((n, h + 1 if last else h), np.int64)
        _kernel(hand, np.ascontiguousarray(obs["held"], dtype=np.bool_),
                np.ascontiguousarray(obs["centre"], dtype=np.int8),
                np.ascontiguousarray(obs["towers"], dtype=np.int8), lowball, groups, n_class, last, offsets, COMB,
                out, canon, order)
        return out, canon

    def buckets(obs, round=0):  # a discard's buckets without its canonical order (the costly part)
        return kernel(obs, round, order=False)[0]

    return (kernel, None if last else buckets, total,
            _describer(lowball, level, last, h, groups, n_class, n_states, offsets))


_GROUP_NAMES = {
    (False, 0): ("2-8", "9-J", "Q-A"), (False, 1): ("2-5", "6-8", "9-J", "Q-K", "A"),
    (True, 0): ("A-5", "6-T", "J-K"), (True, 1): ("A-3", "4-5", "6-7", "8-T", "J-K"),
    (False, 2): tuple("23456789TJQKA"), (True, 2): tuple("A23456789TJQK"),
}
_CLASS_NAMES = {2: ("", " pairing"), 3: ("", " suited", " pairing the board"),
                4: ("", " suited", " paired in hand", " pairing the board")}


def _describer(lowball, level, last, h, groups, n_class, n_states, offsets):
    names = _GROUP_NAMES[(lowball, level)]

    def describe(b: int) -> str:
        keep = None
        if last:
            b, keep = divmod(b, 2)
            rnd = 2
        else:
            rnd = max(r for r in range(3) if offsets[r] <= b)
        k = h - rnd
        states = multiset_unrank(b - int(offsets[rnd]), k, n_states)
        cards = ", ".join(names[x // n_class] + _CLASS_NAMES[n_class][x % n_class] for x in states)
        text = f"round {rnd + 1}, holding {cards}"
        if keep is not None:
            text += "; keeping three is " + ("at least as good as" if keep else "worse than") + " the best throw"
        return text

    return describe


def abstractions(variant, decision: str, n_players: int) -> dict[str, Abstraction]:
    lowball, h = bool(variant.lowball), int(variant.h)
    last = decision == "last"
    key = (n_players, tuple(sorted(variant.opts.items())))
    out = {}
    for level, name in enumerate(("coarse", "medium", "fine")):
        kernel, buckets, total, describer = _make(lowball, level, last, h)
        ranks = ("3 rank groups", "5 rank groups", "ranks")[level]
        out[name] = Abstraction(
            "tapiola", decision, name, total, h + 1 if last else h,
            f"the multiset of the held cards' states ({ranks} x what the card does with the cards in "
            "sight); the number held gives the round", kernel, key=key,
            version=4, describer=describer, bucket_kernel=buckets)
    return out
