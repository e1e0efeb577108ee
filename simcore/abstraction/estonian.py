"""Estonian Twist: buckets for the pass and the discard.

Both decisions hold three cards and see the flop, and each action throws one
card (to the left neighbour, or away) and keeps the other two.

``fine`` (3,933,475 buckets): the exact ranks of the three cards (455 rank
multisets) and of the flop (455), and for each canonical action the most cards
of one suit among the two kept cards and the flop (at most 2, 3, 4 or 5: 19
combinations occur). Ranks give every pair, trips and straight (draw) exactly;
the suit counts give every flush (draw), backdoor included. Canonical order:
by rank, high to low, then by how many flop cards share the card's suit, then
by how many other held cards do (ties keep their dealt order); canonical
action k throws the k-th card of that order.

``coarse`` (19,683 buckets) and ``medium`` (492,075) put first the card the
best built-in policy throws (``thoughtful`` at the pass, ``best-potential``
at the discard: both weigh every turn and river), then the other two in the
order above; canonical action 0 therefore plays that policy. For each
canonical action the bucket says what the two kept cards make with the flop:
high card; a pair, told apart as the board's own pair, top pair or an
overpair, a middle pair (eights or better) or a low pair; two pair; trips;
straight or flush; full house or better; and the best draw (none; a gutshot
or three to a flush; open-ended or four to a flush): 27 states, 27^3
buckets. ``medium`` adds the rank groups (2-5, 6-8, 9-J, Q-K, A) of the
highest and of the lowest card (x 25). ``coarse`` is a function of
``medium``; ``fine``, ordered by rank alone, does not know the policy's
choice, so it does not refine them.

The discard uses the same buckets on ``[kept, kept, received]``; the passed
card (dead) and which card was received do not enter.
"""
from __future__ import annotations

import itertools

import numpy as np
from numba import njit

from . import Abstraction
from ._common import (MULTI3, N_MULTI3, RANK_GROUP_NAMES, best_draw, builtin_choice, dense_ids,
                      multiset_ranks, ranks3_desc, sort_desc, straight_state)


def _flush_combos() -> np.ndarray:
    """Dense ids of (s0, s1, s2), s_k = (most kept+flop cards of one suit) - 2, clipped at 0."""
    codes = []
    for suits in itertools.product(range(4), repeat=6):
        h, f = suits[:3], suits[3:]
        s = []
        for k in range(3):
            kept = [h[j] for j in range(3) if j != k] + list(f)
            m = max(kept.count(x) for x in range(4))
            s.append(max(0, m - 2))
        codes.append(s[0] * 16 + s[1] * 4 + s[2])
    return dense_ids(codes)


FLUSH_IDS = _flush_combos()
N_FLUSH = int(FLUSH_IDS.max()) + 1  # 19
N_FINE = N_MULTI3 * N_MULTI3 * N_FLUSH
RANK_GROUP = np.array([0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 4], np.int64)


@njit(cache=True, nogil=True)
def _kernel(hand, flop, level, first, out, canon, multi3, flush_ids, rank_group):
    """``level`` 0 coarse, 1 medium, 2 fine; ``first`` (n,): the position the policy throws
    (coarse and medium put it first in the canonical order)."""
    fine = level == 2
    n = hand.shape[0]
    key = np.empty(3, np.int64)
    order = np.empty(3, np.int64)
    sc = np.zeros(4, np.int64)
    for i in range(n):
        for j in range(3):
            c = hand[i, j]
            fs = 0
            for t in range(3):
                fs += (flop[i, t] & 3) == (c & 3)
            hs = 0
            for t in range(3):
                hs += t != j and (hand[i, t] & 3) == (c & 3)
            key[j] = (c >> 2) * 16 + fs * 4 + hs
        sort_desc(key, order, 3)
        r_hi = hand[i, order[0]] >> 2
        r_lo = hand[i, order[2]] >> 2
        if not fine:  # the policy's card first, the others in rank order
            f = first[i]
            if order[1] == f:
                order[1] = order[0]
                order[0] = f
            elif order[2] == f:
                order[2] = order[1]
                order[1] = order[0]
                order[0] = f
        for k in range(3):
            canon[i, order[k]] = k
        f0, f1, f2 = ranks3_desc(flop[i, 0], flop[i, 1], flop[i, 2])
        # The flop's part, once a row: suit counts, rank set, equal-rank pairs among its cards.
        for x in range(4):
            sc[x] = 0
        fmask = 0
        for t in range(3):
            sc[flop[i, t] & 3] += 1
            fmask |= 1 << (flop[i, t] >> 2)
        fmax = max(sc[0], sc[1], sc[2], sc[3])
        feq = (f0 == f1) + (f1 == f2) + (f0 == f2)
        code = 0
        coarse = 0
        for k in range(3):
            a = hand[i, order[1]] if k == 0 else hand[i, order[0]]  # the two cards action k keeps
            b = hand[i, order[1]] if k == 2 else hand[i, order[2]]
            ra, rb, sa, sb = a >> 2, b >> 2, a & 3, b & 3
            # most cards of one suit among the kept pair and the flop
            m = max(fmax, sc[sa] + 1 + (sb == sa), sc[sb] + 1 + (sa == sb))
            code = code * 4 + max(0, m - 2)
            if fine:
                continue
            # equal-rank pairs among the five cards: 0 high card, 1 a pair, 2 two pair, 3 trips,
            # 4 a full house, 6 quads (made_class's classes, read without counting every rank)
            eq = feq + (ra == rb)
            for t in range(3):
                rf = flop[i, t] >> 2
                eq += (ra == rf) + (rb == rf)
            st = straight_state(fmask | (1 << ra) | (1 << rb))
            if eq >= 4:
                made = 5
            elif m >= 5 or st == 3:
                made = 4
            else:
                made = eq
            if made == 1:  # which pair
                if ra == rb:
                    pr = ra
                elif ra == f0 or ra == f1 or ra == f2:
                    pr = ra
                elif rb == f0 or rb == f1 or rb == f2:
                    pr = rb
                else:  # the flop's own pair
                    pr = f1
                if ra != pr and rb != pr:
                    made9 = 1
                elif pr >= f0:
                    made9 = 2
                elif pr >= 6:
                    made9 = 3
                else:
                    made9 = 4
            else:
                made9 = (0, 0, 5, 6, 7, 8)[made]
            coarse = coarse * 27 + made9 * 3 + best_draw(made, m, st)
        if fine:
            r0 = hand[i, order[0]] >> 2
            r1 = hand[i, order[1]] >> 2
            r2 = hand[i, order[2]] >> 2
            out[i] = (multi3[r0, r1, r2] * 455 + multi3[f0, f1, f2]) * 19 + flush_ids[code]
        elif level == 1:
            out[i] = (coarse * 5 + rank_group[r_hi]) * 5 + rank_group[r_lo]
        else:
            out[i] = coarse


POLICY = {"pass": "thoughtful", "discard": "best-potential"}  # the best built-in policy per decision


def _make(level: int, decision: str):
    def kernel(obs, round=0):
        hand = np.ascontiguousarray(obs["hand"], dtype=np.int8)
        flop = np.ascontiguousarray(obs["flop"], dtype=np.int8)
        n = hand.shape[0]
        out = np.empty(n, np.int64)
        canon = np.empty((n, 3), np.int64)
        first = (np.zeros(n, np.int64) if level == 2
                 else np.ascontiguousarray(builtin_choice("estonian", decision, POLICY[decision], obs)))
        _kernel(hand, flop, level, first, out, canon, MULTI3, FLUSH_IDS, RANK_GROUP)
        return out, canon

    return kernel


N_COARSE = 27 ** 3
N_MEDIUM = N_COARSE * 25


def _coarse_of_medium(b: np.ndarray) -> np.ndarray:
    """The coarse bucket of each medium one (medium adds the two rank groups; same canonical order)."""
    return b // 25


_ORD = ("1st", "2nd", "3rd")
_MADE9 = ("high card", "the board's pair", "top pair or an overpair", "a middle pair", "a low pair",
          "two pair", "trips", "straight or flush", "full house+")
_DRAWS = ("", " + gutshot/backdoor flush", " + open-ender/flush draw")


def _actions_text(code: int, verb: str, decision: str) -> str:
    states = (code // 729, (code // 27) % 27, code % 27)
    third = verb + ("es" if verb.endswith("s") else "s")  # passes, discards
    who = (f"the card {POLICY[decision]} {third}", "the higher other", "the lower other")
    return "; ".join(f"{verb}ing {who[k]} keeps {_MADE9[c // 3]}{_DRAWS[c % 3]}" for k, c in enumerate(states))


def _describe(level: int, verb: str, decision: str):
    flush_codes = {int(i): c for c, i in enumerate(FLUSH_IDS) if i >= 0}

    def describe(b: int) -> str:
        if level == 0:
            return _actions_text(b, verb, decision)
        if level == 1:
            code, hi, lo = b // 25, (b // 5) % 5, b % 5
            return (f"highest card {RANK_GROUP_NAMES[hi]}, lowest {RANK_GROUP_NAMES[lo]}; "
                    + _actions_text(code, verb, decision))
        code = flush_codes[b % 19]
        most = ", ".join(f"{verb}ing the {_ORD[k]}: {('<=2', '3', '4', '5')[(code >> (4 - 2 * k)) & 3]}"
                         for k in range(3))
        return (f"cards {multiset_ranks(MULTI3, b // (19 * 455))} on a {multiset_ranks(MULTI3, (b // 19) % 455)} "
                f"flop; most cards of one suit with the flop ({most})")

    return describe


def abstractions(variant, decision: str, n_players: int) -> dict[str, Abstraction]:
    what = "the card to pass" if decision == "pass" else "the card to discard"
    verb = "pass" if decision == "pass" else "discard"
    policy = POLICY[decision]
    per_action = ("per action the made hand (9 classes: pairs told apart) and best draw (3) the kept pair "
                  "makes with the flop")
    return {
        "coarse": Abstraction(
            "estonian", decision, "coarse", N_COARSE, 3,
            f"{what}: {policy}'s choice first, the others in rank order; {per_action}",
            _make(0, decision), key=(n_players,), version=2, describer=_describe(0, verb, decision),
            coarsens=("medium", _coarse_of_medium)),
        "medium": Abstraction(
            "estonian", decision, "medium", N_MEDIUM, 3,
            f"{what}: {policy}'s choice first, the others in rank order; {per_action}; rank groups of "
            "the highest and lowest card", _make(1, decision), key=(n_players,), version=2,
            describer=_describe(1, verb, decision)),
        "fine": Abstraction(
            "estonian", decision, "fine", N_FINE, 3,
            f"{what}, in rank order; exact ranks of the three cards and of the flop, and per action "
            "the most cards of one suit among the kept pair and the flop", _make(2, decision),
            key=(n_players,), describer=_describe(2, verb, decision)),
    }
