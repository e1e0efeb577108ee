"""Benchmark: Slovak Double Barrel deals per second, pvsim beside plain Python + eval7.

Run ``python -m experiments.bench_slovak [--players 6] [--deals N] [--py-deals N]``.

One run: pvsim plays ``--deals`` deals with every seat on the ``lower`` policy
(both exchanges used, every card turned) at 1 thread and at 2 threads; a
plain pure-Python implementation of the same game and the same policy, with
eval7 for the showdown, plays ``--py-deals`` deals. Prints deals/s side by
side with the ratios (target: at least 100x on 2 threads), then checks that
both give the same per-seat shares within their intervals (4 standard errors
of the difference). The ``thoughtful`` policy is timed in pvsim as well.
Each timing, pvsim's and the pure-Python one alike, is the best of
``--repeat`` runs of the same deals (2-thread times vary from run to run on a
virtual machine).
"""
from __future__ import annotations

import random
import sys
import time

from .benchkit import mean_stderr, peer_parser, print_rates, print_seat_agreement, time_simulate

TARGET_RATIO = 100.0


def python_lower(n_players: int, n_deals: int, seed: int):
    """Pure Python + eval7: every seat mucks its lower face-up card whenever it can.

    Returns per-seat (mean share, standard error) and the seconds taken.
    """
    import eval7

    from simcore.cards import card_to_str

    cards = [eval7.Card(card_to_str(c)) for c in range(52)]
    rng = random.Random(seed)
    P = n_players
    total = [0.0] * P
    total_sq = [0.0] * P
    start = time.perf_counter()
    for _ in range(n_deals):
        d = rng.sample(range(52), 4 * P + 5)
        up = [[d[4 * p], d[4 * p + 1]] for p in range(P)]
        down = [[d[4 * p + 2], d[4 * p + 3]] for p in range(P)]
        left = [2] * P
        board = d[4 * P:]
        mucked = []
        for _round in range(2):  # first exchange, flop, second exchange: seat order
            for p in range(P):
                if left[p] > 0:
                    a = 0 if up[p][0] < up[p][1] else 1  # the lower card (rank, then suit)
                    mucked.append(up[p][a])
                    up[p][a] = down[p][2 - left[p]]
                    left[p] -= 1
        values = [eval7.evaluate([cards[c] for c in up[p] + board]) for p in range(P)]
        best = max(values)
        k = values.count(best)
        for p in range(P):
            if values[p] == best:
                total[p] += 1.0 / k
                total_sq[p] += 1.0 / (k * k)
    seconds = time.perf_counter() - start
    stats = mean_stderr(total, total_sq, n_deals)
    return stats, seconds


def pvsim_rate(n_players, n_deals, policy, threads, seed, repeat=1):
    """(result, best seconds of ``repeat`` runs); every run plays the same deals."""
    return time_simulate("slovak", n_players, n_deals, policy, threads, seed, repeat)[:2]


def block_breakdown(n_players, policy, block=1 << 14, repeat=20):
    """Milliseconds per block of deals, one thread: dealing, play, the run's reduction."""
    import numpy as np

    from simcore.engine import Job
    from simcore.engine.stats import SeatStats
    from simcore.variants import get_variant
    from strategies import lineup

    v = get_variant("slovak")
    known = np.full(v.n_slots(n_players), -1, np.int8)
    job = Job(v, n_players, [lineup(v, n_players, policy, policy)], known, 1, block, [{}])
    job.run_block(0, block)
    t = {"deal": 0.0, "play": 0.0, "reduce": 0.0}
    for b in range(repeat):
        s0 = time.perf_counter()
        dealt = job.deal(b, block)
        s1 = time.perf_counter()
        o = job.play(*dealt)[0]
        s2 = time.perf_counter()
        SeatStats.of_outcome(o)
        s3 = time.perf_counter()
        t["deal"] += s1 - s0
        t["play"] += s2 - s1
        t["reduce"] += s3 - s2
    return {k: 1e3 * x / repeat for k, x in t.items()}


def main(argv=None) -> int:
    p = peer_parser("bench_slovak", __doc__.split("\n\n")[0], players=6, deals=4_000_000, py_deals=100_000,
                    repeat=3)
    args = p.parse_args(argv)
    P = args.players

    from simcore.engine.executors import default_workers

    t = time.perf_counter()
    pvsim_rate(P, 20_000, "lower", 1, 0)  # load or compile the kernels
    pvsim_rate(P, 20_000, "thoughtful", 1, 0)
    warm = time.perf_counter() - t

    print(f"Slovak Double Barrel, {P} players, every seat 'lower' (both exchanges used)\n")
    py_runs = [python_lower(P, args.py_deals, args.seed) for _ in range(args.repeat)]
    py_stats, py_s = py_runs[0][0], min(s for _, s in py_runs)
    py_rate = args.py_deals / py_s
    rows = [("pure Python + eval7", 1, args.py_deals, py_s, py_rate)]
    results = {}
    for threads in (1, 2):
        r, s = pvsim_rate(P, args.deals, "lower", threads, args.seed, args.repeat)
        results[threads] = r
        rows.append(("pvsim", threads, args.deals, s, args.deals / s))
    print_rates(rows, py_rate)
    ratio2 = rows[-1][4] / py_rate
    print(f"\n2-thread ratio {ratio2:.0f}x (target >= {TARGET_RATIO:.0f}x): "
          + ("met" if ratio2 >= TARGET_RATIO else "NOT met"))
    print(f"(first calls, kernels loaded from cache or compiled: {warm:.2f} s; cores: {default_workers()})")

    r, s = pvsim_rate(P, args.deals, "thoughtful", 2, args.seed, args.repeat)
    print(f"\npvsim, every seat 'thoughtful', 2 threads: {args.deals / s:,.0f} deals/s")
    ms = block_breakdown(P, "lower")
    total = sum(ms.values())
    print(f"one block of {1 << 14:,} deals, 1 thread: " + ", ".join(
        f"{k} {v:.2f} ms ({100 * v / total:.0f}%)" for k, v in ms.items())
        + f"; total {total:.2f} ms (engine: dealing and the run's reduction; the variant: play)")

    print("\nagreement, per seat share (pvsim 2 threads vs pure Python), 4 standard errors:")
    ok = print_seat_agreement(results[2].table(), py_stats, P)
    print("agreement: " + ("all seats within 4 standard errors" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
