"""Benchmark: Tapiola Hold'em deals per second, pvsim beside plain Python + eval7.

Run ``python -m experiments.bench_tapiola [--players 6] [--deals N] [--py-deals N]``.

One run: pvsim plays ``--deals`` deals with the defaults (``discard=lowest,
last=never``) at 1 and at 2 threads, and again with ``last=best`` at every
seat; a plain pure-Python implementation of the same game and the same
policies, with eval7 for the hands, plays ``--py-deals`` deals of each. It
prints deals/s side by side with the ratios (targets: at least 100x on 2
threads with the defaults, 50x with ``last=best``), then checks that both
give the same per-seat shares within 4 standard errors of the difference.
Every timing is the best of ``--repeat`` runs of the same deals (the machine
is shared, so 2-thread times vary from run to run).
"""
from __future__ import annotations

import argparse
import math
import random
import sys
import time

TARGETS = {"never": 100.0, "best": 50.0}


def python_final(cards7, three, towers):
    """Best eval7 value of three cards plus one card of each tower (deal order A1 B1 A2 B2 A3 B3)."""
    import eval7

    base = [cards7[c] for c in three]
    return max(eval7.evaluate(base + [cards7[a], cards7[b]]) for a in towers[0::2] for b in towers[1::2])


def python_deal(d, n_players, last_best, cards7):
    """Pot shares of one high-game deal ``d`` (slot order of :mod:`simcore.variants.tapiola`),
    every seat discarding its lowest card, and at round 3 keeping three
    (``last_best`` False) or taking the strongest final hand (keep three on a tie)."""
    P = n_players
    centre = d[0]
    hands = [list(d[1 + 5 * p: 6 + 5 * p]) for p in range(P)]
    towers = list(d[1 + 5 * P: 7 + 5 * P])
    for _round in range(2):
        for held in hands:
            held.remove(min(held))
    values = []
    for held in hands:
        best = python_final(cards7, held, towers)
        if last_best:
            for j in range(3):
                v = python_final(cards7, [c for q, c in enumerate(held) if q != j] + [centre], towers)
                if v > best:
                    best = v
        values.append(best)
    top = max(values)
    k = values.count(top)
    return [1.0 / k if v == top else 0.0 for v in values]


def python_run(n_players: int, n_deals: int, last_best: bool, seed: int):
    """Pure Python + eval7 over random deals: per-seat (mean share, stderr) and seconds."""
    import eval7

    from simcore.cards import card_to_str

    cards7 = [eval7.Card(card_to_str(c)) for c in range(52)]
    rng = random.Random(seed)
    P = n_players
    total = [0.0] * P
    total_sq = [0.0] * P
    start = time.perf_counter()
    for _ in range(n_deals):
        shares = python_deal(rng.sample(range(52), 1 + 5 * P + 6), P, last_best, cards7)
        for p in range(P):
            total[p] += shares[p]
            total_sq[p] += shares[p] * shares[p]
    seconds = time.perf_counter() - start
    stats = []
    for p in range(P):
        mean = total[p] / n_deals
        var = max(total_sq[p] / n_deals - mean * mean, 0.0) * n_deals / (n_deals - 1)
        stats.append((mean, math.sqrt(var / n_deals)))
    return stats, seconds
