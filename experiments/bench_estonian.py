"""Benchmark: Estonian Twist in pvsim beside a plain Python + eval7 implementation.

Both play the same game with the same policies for all six seats (pass the
lowest card, discard to the best made hand with the flop), so their pot
shares must agree; the script checks that, prints deals per second and the
ratios, times the CLI warm and cold (empty numba cache), and times a decision
analysis until the best pass is separated.

    python -m experiments.bench_estonian [--deals N] [--py-deals N] [--no-cold]

Targets: >= 150x the plain version on 2 threads, >= 75x on 1 thread,
>= 5 million deals/s on 2 threads, a cold CLI start under 30 s.
"""
from __future__ import annotations

import argparse
import math
import os
import random
import subprocess
import sys
import tempfile
import time

from .benchkit import mean_stderr

SPEC = "pass=lowest,discard=best-made"
PLAYERS = 6


# -- the plain implementation ---------------------------------------------------------


def play_plain(n_deals: int, n_players: int, seed: int):
    """Estonian Twist written plainly: returns (seat 0's mean share, its standard error).

    Cards are 4*rank + suit (suits c, d, h, s), so the lowest card by rank and
    then suit is the smallest number.
    """
    import eval7

    deck = [eval7.Card(r + s) for r in "23456789TJQKA" for s in "cdhs"]
    rnd = random.Random(seed)
    total = total_sq = 0.0
    for _ in range(n_deals):
        cards = rnd.sample(range(52), 3 * n_players + 5)
        hands = [cards[3 * p: 3 * p + 3] for p in range(n_players)]
        board = cards[3 * n_players:]
        flop = board[:3]
        # the pass: everyone passes its lowest card to the left at once
        passed = [min(hand) for hand in hands]
        held = []
        for p in range(n_players):
            kept = [c for c in hands[p] if c != passed[p]]
            held.append(kept + [passed[p - 1]])
        # the discard: keep the pair making the best five with the flop;
        # trying the lowest discard first keeps the higher cards on ties
        values = []
        for hand in held:
            best_value, best_pair = -1, None
            for discard in sorted(hand):
                pair = [c for c in hand if c != discard]
                value = eval7.evaluate([deck[c] for c in pair + flop])
                if value > best_value:
                    best_value, best_pair = value, pair
            values.append(eval7.evaluate([deck[c] for c in best_pair + board]))
        top = max(values)
        winners = values.count(top)
        share = 1.0 / winners if values[0] == top else 0.0
        total += share
        total_sq += share * share
    return mean_stderr([total], [total_sq], n_deals)[0]


# -- timings ------------------------------------------------------------------------------


def time_pvsim(n_deals: int, threads: int):
    import simcore

    simcore.simulate("estonian", PLAYERS, 50_000, seed=2, hero=SPEC, field=SPEC,
                     threads=threads, progress=False)  # warm: kernels loaded
    best = None
    for _ in range(3):
        t = time.perf_counter()
        r = simcore.simulate("estonian", PLAYERS, n_deals, seed=1, hero=SPEC, field=SPEC,
                             threads=threads, progress=False)
        dt = time.perf_counter() - t
        best = dt if best is None else min(best, dt)
    return n_deals / best, r


def cli_command(deals: int) -> list[str]:
    """``pvsim simulate estonian`` for ``deals`` deals, run by this interpreter."""
    return [sys.executable, "-m", "simcore.cli", "simulate", "estonian", "--players",
            str(PLAYERS), "--deals", str(deals), "--no-progress"]


def time_subprocess(cmd, env=None):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - t


def time_analyze():
    import simcore

    t = time.perf_counter()
    r = simcore.analyze("estonian", PLAYERS, "As Ks 7d", "Qs Js 4h", progress=False)
    return time.perf_counter() - t, r


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=2_000_000, help="pvsim deals per timing")
    ap.add_argument("--py-deals", type=int, default=20_000, help="plain Python deals")
    ap.add_argument("--no-cold", action="store_true", help="skip the cold-cache CLI timing")
    args = ap.parse_args(argv)

    import numpy
    import numba
    print(f"Estonian Twist, {PLAYERS} players, everyone {SPEC}")
    print(f"python {sys.version.split()[0]}, numpy {numpy.__version__}, numba {numba.__version__}, "
          f"{os.cpu_count()} cpus\n")

    t = time.perf_counter()
    py_share, py_se = play_plain(args.py_deals, PLAYERS, seed=1)
    py_rate = args.py_deals / (time.perf_counter() - t)

    rate1, _ = time_pvsim(args.deals, 1)
    rate2, r2 = time_pvsim(args.deals, 2)

    rows = [
        ("plain Python + eval7", py_rate, 1.0, None),
        ("pvsim, 1 thread", rate1, rate1 / py_rate, 75),
        ("pvsim, 2 threads", rate2, rate2 / py_rate, 150),
    ]
    print(f"{'implementation':24s} {'deals/s':>14s} {'ratio':>9s}  target")
    for name, rate, ratio, target in rows:
        tgt = "" if target is None else f">= {target}x  {'ok' if ratio >= target else 'MISSED'}"
        print(f"{name:24s} {rate:14,.0f} {ratio:8.0f}x  {tgt}")
    print(f"2-thread target 5,000,000 deals/s: {'ok' if rate2 >= 5e6 else 'MISSED'}\n")

    t = r2.table()
    pv_share, pv_se = float(t.share[0]), float(t.stderr[0])
    diff = pv_share - py_share
    se = math.hypot(pv_se, py_se)
    agree = abs(diff) < 4 * se
    print("Same game, seat 0's pot share (95% intervals):")
    print(f"  pvsim  {pv_share:.4f} [{pv_share - 1.96 * pv_se:.4f}, {pv_share + 1.96 * pv_se:.4f}]  "
          f"({args.deals:,} deals)")
    print(f"  plain  {py_share:.4f} [{py_share - 1.96 * py_se:.4f}, {py_share + 1.96 * py_se:.4f}]  "
          f"({args.py_deals:,} deals)")
    print(f"  difference {diff:+.4f} +- {1.96 * se:.4f}: {'agree' if agree else 'DISAGREE'} "
          f"(within 4 standard errors)\n")

    cmd = cli_command(200_000)
    time_subprocess(cmd)  # fills the cache
    warm = min(time_subprocess(cmd) for _ in range(2))
    print("pvsim CLI, simulate estonian --players 6 --deals 200000")
    print(f"  warm (cached kernels): {warm:6.2f} s")
    if not args.no_cold:
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, NUMBA_CACHE_DIR=cache)
            cold = time_subprocess(cmd, env)
        print(f"  cold (empty NUMBA_CACHE_DIR): {cold:6.2f} s  target < 30 s: "
              f"{'ok' if cold < 30 else 'MISSED'}")
    print()

    dt, res = time_analyze()
    d = res.to_dict()
    print(f'analyze("estonian", 6, "As Ks 7d", "Qs Js 4h"): {dt:.2f} s, {d["deals"]:,} deals, '
          f'separated={d["separated"]}, best {d["best"]}')
    print(res.table()[["action", "share", "ci_low", "ci_high", "diff_vs_best", "diff_ci_low",
                       "diff_ci_high"]].to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
