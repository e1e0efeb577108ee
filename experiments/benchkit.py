"""What the variant benchmarks share: the pure-Python tally, best-of timings of
pvsim, the rate table and the agreement check between the two implementations.

The benchmarks (``bench_slovak``, ``bench_tapiola``, ``bench_sviten``,
``bench_russian``) each write their own plain-Python game; this module holds
only the bookkeeping around it, so every benchmark reports the same way.
"""
from __future__ import annotations

import math
import time

# The benchmarks print 95% intervals with the rounded 1.96 (their printed
# figures are compared run to run); the experiments use stats.Z95.
Z_PRINT = 1.96


def mean_stderr(total, total_sq, n_deals: int) -> list[tuple[float, float]]:
    """Per-seat (mean, standard error) from per-seat sums of a payoff and of its square.

    The variance is the unbiased one (``n / (n - 1)``), clipped at 0 against rounding.

    >>> mean_stderr([1.0, 1.0], [1.0, 1.0], 2)
    [(0.5, 0.5), (0.5, 0.5)]
    """
    if n_deals < 2:
        raise ValueError(f"mean_stderr: n_deals must be at least 2, got {n_deals}")
    stats = []
    for s, sq in zip(total, total_sq):
        mean = s / n_deals
        var = max(sq / n_deals - mean * mean, 0.0) * n_deals / (n_deals - 1)
        stats.append((mean, math.sqrt(var / n_deals)))
    return stats


def time_simulate(variant: str, n_players: int, n_deals: int, spec: str, threads: int, seed: int,
                  repeat: int = 1, **options):
    """pvsim with every seat on ``spec``, ``repeat`` times on the same deals.

    Returns (the first run's result, the least wall seconds, the least process
    CPU seconds) over the runs; ``options`` go to :func:`simcore.simulate`.
    """
    from simcore import simulate

    if repeat < 1:
        raise ValueError(f"time_simulate: repeat must be at least 1, got {repeat}")
    runs, cpu = [], []
    for _ in range(repeat):
        c = time.process_time()
        runs.append(simulate(variant, n_players, n_deals, seed=seed, hero=spec, field=spec,
                             threads=threads, progress=False, **options))
        cpu.append(time.process_time() - c)
    return runs[0], min(r.info.seconds for r in runs), min(cpu)


def print_rates(rows, py_rate: float, width: int = 22) -> None:
    """The timing table: rows of (implementation, threads, deals, seconds, deals/s),
    with each rate's ratio to the pure-Python ``py_rate``."""
    print(f"{'implementation':<{width}}{'threads':>8}{'deals':>12}{'seconds':>10}{'deals/s':>14}{'ratio':>9}")
    for name, threads, n, s, rate in rows:
        print(f"{name:<{width}}{threads:>8}{n:>12,}{s:>10.2f}{rate:>14,.0f}{rate / py_rate:>8.0f}x")


def agreement_line(label: str, a: float, sa: float, b: float, sb: float) -> tuple[str, bool]:
    """One line comparing pvsim's share ``a`` (stderr ``sa``) with pure Python's ``b`` (``sb``).

    Returns the line and whether the two agree within 4 standard errors of the difference.

    >>> agreement_line("seat 0", 0.5, 0.01, 0.5, 0.01)[1]
    True
    """
    z = (a - b) / math.hypot(sa, sb)
    fine = abs(z) < 4
    return (f"  {label}: pvsim {a:.4f} ± {Z_PRINT * sa:.4f}   python {b:.4f} ± {Z_PRINT * sb:.4f}   "
            f"z = {z:+.2f} {'ok' if fine else 'DISAGREE'}"), fine


def print_seat_agreement(table, py_stats, n_players: int) -> bool:
    """Print every seat's agreement (pvsim ``table`` vs pure-Python (mean, stderr)
    pairs); True when all agree within 4 standard errors."""
    ok = True
    for seat in range(n_players):
        b, sb = py_stats[seat]
        line, fine = agreement_line(f"seat {seat}", table.share[seat], table.stderr[seat], b, sb)
        ok &= fine
        print(line)
    return ok
