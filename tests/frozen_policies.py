"""The policy code as it was before issue 13, where it differs from the live code: the reference
that tests/test_policy_speed.py compares the fast policies against (and that
``python -m experiments.bench_policies`` times beside them).

Only what the fast code replaced is kept here; what it still shares with the
live code comes from there:

- Estonian: the potential of a kept pair enumerated over every turn and river
  is the live :func:`strategies.estonian.potential` (the fast policies read a
  table instead); the old ``thoughtful`` pick, which weighed the danger of
  every pass even when one pass alone was within the margin, is below.
- Slovak: the rules on per-row rank and suit histograms (the live code counts
  with popcounts on 52-bit card sets); the rule's constants are the live ones.

:func:`registered_references` registers every frozen policy as ``old-<name>``
while a block runs (through the registry's public register/unregister), so
that whole games can be played with them; :func:`actions_disagreeing` plays one
block under two specs and counts the decisions that differ.
"""
from __future__ import annotations

import contextlib

import numpy as np
from numba import njit

from strategies.estonian import THOUGHTFUL_MARGIN, _danger, _pick_max, potential
from strategies.features import argmin_lowest_card, count_ranks_suits, lower_of_two, straight_outs
from strategies.slovak import (
    DEAD_RANK, DECLINE, MIN_LIVE_OUTS, MIN_LIVE_SUIT, MUCK0, MUCK1, OFFSUIT_NEEDS, SUITED_NEEDS,
)

_NEVER, _LOWER, _THRESHOLD, _MADE_OR_DRAW, _LIVE_OUTS, _THOUGHTFUL = range(6)
SLOVAK_CODES = {"never": _NEVER, "lower": _LOWER, "threshold": _THRESHOLD,
                "made-or-draw": _MADE_OR_DRAW, "live-outs": _LIVE_OUTS, "thoughtful": _THOUGHTFUL}


# -- Estonian ----------------------------------------------------------------------------------


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
        for a in range(k):
            # passes outside the margin never win: a pass within it has finite danger
            danger[a] = (_danger(hand[i, a], flop[i, 0], flop[i, 1], flop[i, 2])
                         if scores[i, a] >= top - margin else np.inf)
        out[i] = argmin_lowest_card(danger, hand[i])
    return out



# -- Slovak ------------------------------------------------------------------------------------


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


def _c(a):
    return np.ascontiguousarray(a, dtype=np.int8)


def reference_estonian(decision: str, name: str):
    """The pre-issue-13 Estonian policy ``name`` (keep-potential, thoughtful, best-potential):
    the enumerated potential, then the pick."""
    if (decision, name) not in (("pass", "keep-potential"), ("pass", "thoughtful"),
                                ("discard", "best-potential")):
        raise ValueError(f"no frozen Estonian policy {decision}={name}")

    def policy(obs, rng):
        hand = _c(obs["hand"])
        if decision == "discard":
            seen = _c(obs["passed"]).reshape(-1, 1)
        else:
            seen = np.full((len(hand), 1), -1, np.int8)
        scores = potential(hand, obs["flop"], seen, obs["n_players"])
        if name == "thoughtful":
            return _pick_thoughtful(scores, hand, _c(obs["flop"]), THOUGHTFUL_MARGIN)
        return _pick_max(scores, hand, 1e-12)

    return policy


def reference_slovak(name: str):
    """The pre-issue-13 Slovak policy ``name`` (either exchange)."""
    code = SLOVAK_CODES[name]

    def policy(obs, rng):
        legal = obs["legal"]
        if code == _NEVER:
            return np.zeros(legal.shape[0], dtype=np.int64)
        return _decide(obs["up"], obs["board"], obs["mucked"], legal, int(obs["seat"]), code,
                       obs["decision"] == "exchange2")

    return policy


REFERENCES = {
    ("estonian", "pass", "thoughtful"): lambda: reference_estonian("pass", "thoughtful"),
    ("estonian", "pass", "keep-potential"): lambda: reference_estonian("pass", "keep-potential"),
    ("estonian", "discard", "best-potential"): lambda: reference_estonian("discard", "best-potential"),
    **{("slovak", d, name): (lambda name=name: reference_slovak(name))
       for d in ("exchange1", "exchange2") for name in SLOVAK_CODES},
}


@contextlib.contextmanager
def registered_references():
    """Register every frozen policy as ``old-<name>`` while the block runs."""
    from strategies.registry import register, unregister

    for (variant, decision, name), make in REFERENCES.items():
        register(variant, decision, f"old-{name}", f"{name} as before issue 13")(make())
    try:
        yield
    finally:
        for variant, decision, name in REFERENCES:
            unregister(variant, decision, f"old-{name}")


def old_spec(spec: str) -> str:
    """``pass=thoughtful,discard=best-potential`` -> the same with the frozen policies."""
    return ",".join(f"{d}=old-{p}" for d, p in (part.split("=") for part in spec.split(",")))


def actions_disagreeing(variant, n_players: int, spec_a, spec_b, n: int, seed: int,
                        hero_only: bool = False, variant_b=None) -> tuple[int, int]:
    """(decisions that differ, decisions compared) when lineups a and b play one block
    of ``n`` deals (the same cards, chance draws and seat streams). ``variant`` is a
    name or a variant object; ``variant_b`` (default: the same) plays lineup b."""
    from simcore.engine import deal_block, play_block, seat_streams
    from simcore.variants import get_variant
    from strategies import lineup

    v = get_variant(variant)
    known = np.full(v.n_slots(n_players), -1, np.int8)
    rng = np.random.default_rng(seed)
    cards, chance = deal_block(v, known, n, n_players, rng)
    acts = []
    for spec, vs in ((spec_a, v), (spec_b, get_variant(variant_b if variant_b is not None else v))):
        lu = lineup(vs, n_players, spec, None if hero_only else spec)
        rngs = seat_streams(np.random.SeedSequence(seed).generate_state(n_players + 1), n_players)
        acts.append(play_block(vs, cards.copy(), n_players, lu, rngs, chance=chance, record=True).actions)
    differ = sum(int((acts[0][k] != acts[1][k]).sum()) for k in acts[0])
    return differ, sum(a.size for a in acts[0].values())
