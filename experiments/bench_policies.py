"""Benchmark: the thoughtful policies, rollouts and the checked evaluator, beside the code they replaced.

Run ``python -m experiments.bench_policies [--deals N] [--old-deals N] [--repeat R]``.

Every timed run is printed beside the same run with the policy code as it
was before issue 13 (frozen below: the Estonian potential enumerated over
every turn and river, the Slovak rules on per-row histograms), played on the
same deals (the old code plays the first ``--old-deals`` of them), and the
actions of both are compared decision by decision on a played block.
Timings are interleaved (old, new, old, new, ...) in one process and the
best of ``--repeat`` is kept, so the ratio holds up on a loaded machine even
when the absolute rates do not.

Targets (issue 13), 6 players, 2 threads unless said:

========================================================  ===================
Estonian ``pass=thoughtful,discard=best-potential``         >= 1 M deals/s
Slovak ``thoughtful``                                       >= 4 M deals/s
Slovak ``exchange1=rollout:8:made-or-draw`` hero            >= 400 k deals/s
``evaluate_hands`` checked, 7 cards, 1 thread               >= 0.9x unchecked
========================================================  ===================

Measured 2026-12-01 on the project's 2-core VM (load 1.0-1.2; this host's
rates swing by 15% between runs), 6 players, 2 threads
(``results/bench/policies.txt``): Estonian thoughtful + best-potential 1.42
M deals/s (0.72 M per CPU second, 87x the old code); Slovak ``thoughtful``
4.41 M deals/s (2.27 M per CPU second, 4.6x); the Slovak rollout hero 0.50 M
deals/s (0.26 M per CPU second, 6.4x its continuations played by the old
policies; 0.21 M before the rule kernel and play_alternatives); the Estonian
``pass=rollout:8`` hero 0.35 M deals/s (1.2x each action's table played
alone); the checked evaluator 0.95x the unchecked rate (0.42x with the old
separate pass). Every action was the same as the old code's.
"""
from __future__ import annotations

import argparse
import contextlib
import sys
import time

import numpy as np
from numba import njit

from simcore.kernels import CARD_BIT, CARD_KEY, SUIT_START, value_high
from strategies.features import (
    argmin_lowest_card, bit_count, count_ranks_suits, lower_of_two, lowest_card_within, mark_cards,
    straight_outs, unseen_cards,
)

PLAYERS = 6

# ============================================================================
# Frozen copies of the policy code before issue 13 (the reference)
# ============================================================================

# strategies/slovak.py constants, as they were
DECLINE, MUCK0, MUCK1 = 0, 1, 2
SUITED_NEEDS = np.array([3, 4, 7, 13, 14, 14, 13, 13, 14, 13, 13, 13])
OFFSUIT_NEEDS = np.array([17] + [99] * 11)
MIN_LIVE_SUIT = 5
DEAD_RANK = 3.0
MIN_LIVE_OUTS = 1
_NEVER, _LOWER, _THRESHOLD, _MADE_OR_DRAW, _LIVE_OUTS, _THOUGHTFUL = range(6)
SLOVAK_CODES = {"never": _NEVER, "lower": _LOWER, "threshold": _THRESHOLD,
                "made-or-draw": _MADE_OR_DRAW, "live-outs": _LIVE_OUTS, "thoughtful": _THOUGHTFUL}
THOUGHTFUL_MARGIN = 0.01
_PAIRS = np.array([[1, 2], [0, 2], [0, 1]], dtype=np.int64)


@njit(cache=True, nogil=True)
def _danger(c, f0, f1, f2):
    """How much card ``c`` can help a player on this flop (higher helps more).

    Pairing a flop card 3 each; its suit on the flop: three 4, two 2; each
    distinct flop rank within two ranks of it (an ace also plays low) 1; and
    up to 2 for its rank (an ace is a live overcard and a top kicker).
    """
    r = c >> 2
    s = c & 3
    d = 0.0
    n_suit = 0
    near = np.int64(0)
    for f in (f0, f1, f2):
        fr = f >> 2
        if fr == r:
            d += 3.0
        if (f & 3) == s:
            n_suit += 1
        gap = abs(fr - r)
        if r == 12 or fr == 12:
            lo_f = -1 if fr == 12 else fr
            lo_r = -1 if r == 12 else r
            gap = min(gap, abs(lo_f - lo_r))
        if 0 < gap <= 2:
            near |= np.int64(1) << fr
    if n_suit == 3:
        d += 4.0
    elif n_suit == 2:
        d += 2.0
    d += bit_count(near)
    d += 2.0 * r / 12.0
    return d



@njit(cache=True, nogil=True)
def _potential_rows(hole, flop, seen, strength):
    """Mean strength of each kept pair over every unseen turn/river pair.

    hole : (n, k, 2) int8 candidate kept pairs per row.
    flop : (n, 3) int8.
    seen : (n, m) int8 cards the seat has seen (-1 = none); never dealt.
    strength : (9 << 12,) float32 strength of a seven-card value.

    Returns (n, k) float64.
    """
    n, k = hole.shape[0], hole.shape[1]
    out = np.zeros((n, k), np.float64)
    unseen = np.empty(52, np.int64)
    used = np.empty(52, np.bool_)
    okey = np.empty(k, np.uint64)
    obits = np.empty(k, np.uint64)
    acc = np.empty(k, np.float64)
    for i in range(n):
        used[:] = False
        mark_cards(flop[i], used)
        mark_cards(seen[i], used)
        for o in range(k):
            mark_cards(hole[i, o], used)
        m = unseen_cards(used, unseen)
        fkey = SUIT_START + CARD_KEY[flop[i, 0]] + CARD_KEY[flop[i, 1]] + CARD_KEY[flop[i, 2]]
        fbits = CARD_BIT[flop[i, 0]] | CARD_BIT[flop[i, 1]] | CARD_BIT[flop[i, 2]]
        for o in range(k):
            a, b = hole[i, o, 0], hole[i, o, 1]
            okey[o] = fkey + CARD_KEY[a] + CARD_KEY[b]
            obits[o] = fbits | CARD_BIT[a] | CARD_BIT[b]
            acc[o] = 0.0
        for t in range(m - 1):
            ct = unseen[t]
            kt, bt = CARD_KEY[ct], CARD_BIT[ct]
            for r in range(t + 1, m):
                cr = unseen[r]
                kr = kt + CARD_KEY[cr]
                br = bt | CARD_BIT[cr]
                for o in range(k):
                    acc[o] += strength[value_high(okey[o] + kr, obits[o] | br)]
        pairs = m * (m - 1) / 2.0
        for o in range(k):
            out[i, o] = acc[o] / pairs
    return out



@njit(cache=True, nogil=True)
def _pick_max(scores, hand, margin):
    """Per row, the action of highest score; within ``margin`` of it, the lowest card."""
    n = scores.shape[0]
    out = np.empty(n, np.int64)
    for i in range(n):
        out[i] = lowest_card_within(scores[i], hand[i], margin)
    return out


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



# -- the frozen code as policies ------------------------------------------------------


def _c(a):
    return np.ascontiguousarray(a, dtype=np.int8)


def reference_potential(hand, flop, seen, n_players):
    """(n, 3) potential by full enumeration, exactly as before issue 13."""
    from strategies.estonian import strength_table

    hand = _c(hand)
    return _potential_rows(np.ascontiguousarray(hand[:, _PAIRS]), _c(flop), _c(seen),
                           strength_table(int(n_players)))


def reference_estonian(decision: str, name: str):
    """The pre-issue-13 Estonian policy ``name`` (keep-potential, thoughtful, best-potential)."""
    def policy(obs, rng):
        hand = _c(obs["hand"])
        if decision == "discard":
            seen = _c(obs["passed"]).reshape(-1, 1)
        else:
            seen = np.full((len(hand), 1), -1, np.int8)
        scores = reference_potential(hand, obs["flop"], seen, obs["n_players"])
        if name == "thoughtful":
            return _pick_thoughtful(scores, hand, _c(obs["flop"]), THOUGHTFUL_MARGIN)
        return _pick_max(scores, hand, 1e-12)

    if (decision, name) not in (("pass", "keep-potential"), ("pass", "thoughtful"),
                                ("discard", "best-potential")):
        raise ValueError(f"no frozen Estonian policy {decision}={name}")
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


@njit(cache=True, nogil=True)
def reference_first_bad_card(arr):
    """The evaluator's separate check pass as it was: (row, card, kind) of the first bad card."""
    flat = arr.reshape(-1)
    k = arr.shape[1]
    b = 0
    for i in range(arr.shape[0]):
        seen = np.uint64(0)
        for j in range(k):
            u = np.uint8(flat[b + j])
            if u > 51:
                return i, arr[i, j], 1
            bit = np.uint64(1) << np.uint64(u)
            if seen & bit:
                return i, arr[i, j], 2
            seen |= bit
        b += k
    return -1, 0, 0


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


# ============================================================================
# Agreement and timing
# ============================================================================


def actions_disagreeing(variant: str, n_players: int, spec_a, spec_b, n: int, seed: int,
                        hero_only: bool = False, context_b=contextlib.nullcontext) -> tuple[int, int]:
    """(decisions that differ, decisions compared) when lineups a and b (b inside
    ``context_b()``) play one block."""
    from simcore.engine import deal_block, play_block, seat_streams
    from simcore.variants import get_variant
    from strategies import lineup

    v = get_variant(variant)
    known = np.full(v.n_slots(n_players), -1, np.int8)
    rng = np.random.default_rng(seed)
    cards, chance = deal_block(v, known, n, n_players, rng)
    acts = []
    for spec, context in ((spec_a, contextlib.nullcontext), (spec_b, context_b)):
        lu = lineup(v, n_players, spec, None if hero_only else spec)
        rngs = seat_streams(np.random.SeedSequence(seed).generate_state(n_players + 1), n_players)
        with context():
            acts.append(play_block(v, cards.copy(), n_players, lu, rngs, chance=chance, record=True).actions)
    differ = sum(int((acts[0][k] != acts[1][k]).sum()) for k in acts[0])
    return differ, sum(a.size for a in acts[0].values())


@contextlib.contextmanager
def tables_alone():
    """Every variant plays a rollout's (or a comparison's) tables one by one, as before
    ``Variant.play_alternatives`` shared their common work."""
    from simcore.engine import Variant
    from simcore.variants import variant_classes

    saved = {cls: cls.__dict__["play_alternatives"] for cls in variant_classes().values()
             if "play_alternatives" in cls.__dict__}

    def alone(self, cards, n_players, tables):
        return [saved[type(self)](self, cards, n_players, [t])[0] if type(self) in saved
                else Variant.play_alternatives(self, cards, n_players, [t])[0] for t in tables]

    for cls in saved:
        cls.play_alternatives = alone
    try:
        yield
    finally:
        for cls, f in saved.items():
            cls.play_alternatives = f


def rollout_row(label, variant, spec, old, context, target, args) -> int:
    """Print one rollout hero's rates, old (``old`` under ``context``) beside new, and
    whether their actions agree; returns 1 if any differ."""
    def old_rate(n):
        with context():
            return rate(variant, old, n, args.threads, hero_only=True)

    rate(variant, spec, 2_000, 1, hero_only=True)
    old_rate(2_000)
    rates = best_rates({"old": lambda: old_rate(args.rollout_deals // 4),
                        "new": lambda: rate(variant, spec, args.rollout_deals, args.threads, hero_only=True)},
                       args.repeat)
    differ, total = actions_disagreeing(variant, PLAYERS, spec, old, 4_096, 7, hero_only=True, context_b=context)
    o, r = rates["old"], rates["new"]
    met = "" if target is None else f">={target / 1e6:g} M " + ("met" if r[0] >= target else "NOT met")
    print(f"{label:<38}{o[0]:>11,.0f} [{o[1]:>9,.0f}]{r[0]:>12,.0f} [{r[1]:>10,.0f}]{r[1] / o[1]:>9.1f}x"
          f"{met:>16}{differ:>12} of {total:,}")
    return int(differ > 0)


def rate(variant, spec, n_deals, threads, seed=1, hero_only=False):
    """(deals per wall second, deals per CPU second) of one simulate run.

    The CPU rate (process time, every thread's) is what the work costs; on a
    machine that other jobs share it varies much less than the wall rate.
    """
    from simcore import simulate

    cpu = time.process_time()
    r = simulate(variant, PLAYERS, n_deals, seed=seed, hero=spec, field=None if hero_only else spec,
                 threads=threads, progress=False)
    cpu = time.process_time() - cpu
    return np.array([n_deals / r.info.seconds, n_deals / cpu])


def best_rates(runs: dict, repeat: int) -> dict:
    """Best rate(s) of each zero-argument run, over ``repeat`` interleaved rounds."""
    best = {k: 0.0 for k in runs}
    for _ in range(repeat):
        for k, f in runs.items():
            best[k] = np.maximum(best[k], f())
    return best


def evaluator_rates(n: int, repeat: int) -> dict:
    """Hands/s of evaluate_hands on 1 thread: checked, unchecked, and the old check pass + unchecked."""
    from simcore.evaluate import evaluate_hands

    hands = np.random.default_rng(0).random((n, 52)).argpartition(7, axis=1)[:, :7].astype(np.int8)
    out = np.empty(n, np.int32)

    def timed(f):
        def run():
            t = time.thread_time()  # CPU time: less disturbed by other jobs than wall time
            f()
            return n / (time.thread_time() - t)
        return run

    runs = {
        "checked (fused)": timed(lambda: evaluate_hands(hands, threads=1, out=out)),
        "unchecked": timed(lambda: evaluate_hands(hands, threads=1, check=False, out=out)),
        "old checked (separate pass)": timed(lambda: (reference_first_bad_card(hands),
                                                      evaluate_hands(hands, threads=1, check=False,
                                                                     out=out))),
    }
    for f in runs.values():
        f()
    return best_rates(runs, repeat)


CASES = (
    # (label, variant, spec, hero only, target deals/s)
    ("Estonian thoughtful + best-potential", "estonian", "pass=thoughtful,discard=best-potential",
     False, 1e6),
    ("Estonian thoughtful (pass)", "estonian", "pass=thoughtful", False, None),
    ("Estonian best-potential (discard)", "estonian", "discard=best-potential", False, None),
    ("Slovak thoughtful", "slovak", "exchange1=thoughtful,exchange2=thoughtful", False, 4e6),
)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m experiments.bench_policies",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--deals", type=int, default=400_000, help="deals per new-code timing")
    p.add_argument("--old-deals", type=int, default=40_000,
                   help="deals per old-code timing (the first of the same deals)")
    p.add_argument("--agree", type=int, default=20_000, help="deals whose every action is compared")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--rollout-deals", type=int, default=131_072,
                   help="deals per rollout timing (whole blocks of 16,384, the same number per thread)")
    args = p.parse_args(argv)
    failures = 0
    with registered_references():
        print(f"{PLAYERS} players, {args.threads} threads, best of {args.repeat} interleaved runs\n")
        print("deals/s: wall time at the given threads; in brackets, deals per CPU second (all threads)")
        print(f"{'run':<38}{'old deals/s':>22}{'new deals/s':>24}{'speed-up':>10}{'target':>16}"
              f"{'actions differing':>22}")
        for label, variant, spec, hero_only, target in CASES:
            for s in (spec, old_spec(spec)):
                rate(variant, s, 2_000, 1)  # compile / load, build the tables
            rates = best_rates({
                "old": lambda: rate(variant, old_spec(spec), args.old_deals, args.threads),
                "new": lambda: rate(variant, spec, args.deals, args.threads),
            }, args.repeat)
            differ, total = actions_disagreeing(variant, PLAYERS, spec, old_spec(spec), args.agree, 7)
            failures += differ > 0
            old, new = rates["old"], rates["new"]
            met = "" if target is None else (f">={target / 1e6:g} M " + ("met" if new[0] >= target
                                                                         else "NOT met"))
            print(f"{label:<38}{old[0]:>11,.0f} [{old[1]:>9,.0f}]{new[0]:>12,.0f} [{new[1]:>10,.0f}]"
                  f"{new[1] / old[1]:>9.1f}x{met:>16}{differ:>12} of {total:,}")
        # The rollout heroes (the field: the default policies): Slovak's continuations
        # with the policies as they are and as they were (decision by decision, each
        # action's table alone); Estonian's with each action's table played alone.
        for label, variant, spec, old, context, target in (
                ("Slovak rollout:8:made-or-draw hero", "slovak", "exchange1=rollout:8:made-or-draw",
                 "exchange1=rollout:8:old-made-or-draw", contextlib.nullcontext, 4e5),
                ("Estonian pass=rollout:8 hero", "estonian", "pass=rollout:8", "pass=rollout:8",
                 tables_alone, None)):
            failures += rollout_row(label, variant, spec, old, context, target, args)
    ev = evaluator_rates(2_000_000, 3 * args.repeat)
    print("\nevaluate_hands, 7 cards, 1 thread (CPU time), hands/s:")
    for k, v in ev.items():
        print(f"  {k:<30}{v / 1e6:>8.0f} M  ({v / ev['unchecked']:.2f}x unchecked)")
    ratio = ev["checked (fused)"] / ev["unchecked"]
    print(f"checked / unchecked {ratio:.2f} (target >= 0.9): " + ("met" if ratio >= 0.9 else "NOT met"))
    if failures:
        print(f"\n{failures} runs whose actions differ from the old code's")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
