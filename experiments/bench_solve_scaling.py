"""Benchmark: one solve iteration at 1 and 2 workers, its serial part, and what 16 cores would do.

Run ``python -m experiments.bench_solve_scaling [--games slovak:6,...] [--repeat R] [--workers 1,2,...]
[--out FILE.json]``. On a machine with more cores, ``--workers 1,2,4,8,16`` also measures the larger
counts and prints them beside what the estimate from 1 and 2 says for them.

``bench_scaling`` times ``simulate``; a solve is not only blocks. Each fictitious-play iteration
fits one seat's best response (every stage's blocks, on the workers), measures it (more blocks),
and between those runs serial work in the calling process: the plan and the field shipped to the
workers, the average table updated, the iteration logged. This benchmark times one iteration of
each game's last solve stage as recorded (its abstraction, the shipped table as the field's
fallback, fewer fitting deals so that the whole benchmark takes minutes), on worker threads at 1
worker (a plain serial run) and at 2 (how the recorded solves ran), and on worker processes at 1 and
2 (how a larger machine would run them: threads share one interpreter), the rounds interleaved so that a
busy spell hits them alike, the best of ``--repeat`` kept. Every block run (the engine's
``_Run.play``) is timed as it runs in the calling process, so that the iteration splits into

- ``serial``: the wall time outside the block runs (the same at any worker count), and
- ``blocks``: the wall time of the block runs, which more workers share.

Worker processes add a third part: at the start of each block run, every worker process rebuilds
the fit's task (the plan, and the field: its average table once a process since the twenty-third
session, over the field's tables), which threads share with the calling process. (Starting the processes, and their first read of the shipped tables and
compiled kernels, happens once a solve: a small untimed iteration on the same pool does it before
each timed one.) So

- ``setup``: processes/1's block time less threads/1's, paid by each worker at once (it does not
  shrink with more workers), and
- ``work``: threads/1's block time, which the workers share, at the efficiency ``e`` the 2-process
  run reached (``work / (2 x (blocks(2) - setup))``).

The 16-core column is ``serial + setup + work / (16 x e)``, ``e`` assumed to hold at 16: an
estimate, not a measurement. A 16-core machine lent to the twenty-fifth session measured less:
whole stage iterations of Slovak ran x4.8-x5.5, and of Russian 4 x3.1-x3.7, faster on 16 worker
processes than on 2 cores here (``results/solve/retimed/s25/sixteen_cores.json``; its cores about
1.2x slower each, 73% of 8x from 2 to 16 processes there for Slovak, and about 50% for Russian 4,
whose blocks slowed down more). At fewer fitting deals the
serial part and the setup are a larger share than in a whole solve, whose iterations fit 1M-64M
deals a stage; a second table therefore scales the block runs' work to the recorded stage's deals
(the serial part and the setup kept as measured) and gives one iteration's time there on 2 threads
and, estimated, on 16 processes.
"""
from __future__ import annotations

import argparse
import os
import platform
import time

from experiments.outputs import write_json

# game:P -> (abstraction of its last recorded stage, fitting deals a stage here, measuring deals,
#            fitting deals a stage of that recorded stage's iterations)
STAGES = {
    "estonian:6": ("medium", 1 << 20, 1 << 16, 1 << 26),
    "slovak:6": ("fine", 1 << 20, 1 << 16, 1 << 26),
    "tapiola:6": ("coarse", 1 << 19, 1 << 16, 1 << 24),
    "sviten:6": ("medium", 1 << 17, 1 << 16, 1 << 20),
    # Russian 4's shipped last stage makes 2M iterations (forty-sixth session); kept at 1M here, the
    # size its runs were compared at, and Russian 3's, so the two sizes compare like for like
    "russian:4": ("fine", 1 << 15, 1 << 15, 1 << 20),
    "russian:3": ("fine", 1 << 15, 1 << 15, 1 << 20),
}
CONFIGS = (("threads", 1), ("threads", 2), ("processes", 1), ("processes", 2))
CORES_ESTIMATED = 16


class BlockClock:
    """Wall seconds spent inside the engine's block runs (``_Run.play``), in this process."""

    def __init__(self):
        from simcore.engine import schedule

        self.seconds, self._cls = 0.0, schedule._Run
        self._play = self._cls.play
        clock = self

        def timed(run, *args, **kwargs):
            t = time.perf_counter()
            try:
                return clock._play(run, *args, **kwargs)
            finally:
                clock.seconds += time.perf_counter() - t

        self._cls.play = timed

    def close(self):
        self._cls.play = self._play


def one_iteration(game: str, P: int, abstraction: str, deals: int, eval_deals: int, executor: str,
                  workers: int) -> dict:
    """Wall, block and serial seconds of one FP iteration over the shipped table, and its gain."""
    from simcore.solve import solve

    clock = BlockClock()
    try:
        t = time.perf_counter()
        r = solve(game, P, iterations=1, abstraction=abstraction, deals_per_iteration=deals, eval_deals=eval_deals,
                  seed=7, init="solved", executor=executor, workers=workers)
        wall = time.perf_counter() - t
    finally:
        clock.close()
    return {"wall_s": wall, "blocks_s": clock.seconds, "serial_s": wall - clock.seconds, "gain": r.log[-1]["gain"]}


def estimate(row: dict, deals: int, recorded: int, cores: int = CORES_ESTIMATED) -> dict:
    """serial + setup + work / (cores x e), from the four runs (module docstring), at this run's
    fitting deals (``deals``) and scaled to ``recorded`` fitting deals a stage (the block runs' work in
    proportion to the deals, the serial part and the setup as measured)."""
    plain, t2, one, two = (row[k] for k in ("threads/1", "threads/2", "processes/1", "processes/2"))
    serial = min(x["serial_s"] for x in (plain, t2, one, two))
    work = plain["blocks_s"]
    setup = max(one["blocks_s"] - work, 0.0)
    efficiency = min(work / (2 * max(two["blocks_s"] - setup, 1e-9)), 1.0)
    wall = serial + setup + work / (cores * efficiency)
    k = recorded / deals
    t2_recorded = serial + t2["blocks_s"] * k
    wall_recorded = serial + setup + work * k / (cores * efficiency)
    return {"serial_s": serial, "setup_s": setup, "work_s": work, "efficiency_2": efficiency,
            f"wall_{cores}_s": wall, f"speedup_{cores}_over_threads_2": t2["wall_s"] / wall,
            "recorded_deals": recorded, "threads_2_at_recorded_s": t2_recorded,
            f"wall_{cores}_at_recorded_s": wall_recorded,
            f"speedup_{cores}_over_threads_2_at_recorded": t2_recorded / wall_recorded}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default=",".join(STAGES), help="comma-separated GAME:P (default: all six)")
    ap.add_argument("--repeat", type=int, default=2, help="interleaved rounds; the best of them is kept")
    ap.add_argument("--out", default=None, help="also write the figures as JSON here")
    ap.add_argument("--workers", default="1,2",
                    help="comma-separated worker counts, 1 and 2 among them (default 1,2); on a machine with more "
                         "cores, more (1,2,4,8,16) measure what the estimate predicts for them, side by side")
    args = ap.parse_args(argv)
    try:
        counts = sorted({int(w) for w in args.workers.split(",") if w.strip()})
    except ValueError:
        ap.error(f"--workers must be comma-separated whole numbers, got {args.workers!r}")
    if not {1, 2} <= set(counts) or counts[0] < 1:
        ap.error(f"--workers must include 1 and 2 (the estimate's two measurements) and nothing below 1, "
                 f"got {args.workers!r}")
    configs = (*CONFIGS, *((e, w) for w in counts if w > 2 for e in ("threads", "processes")))
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    unknown = [g for g in games if g not in STAGES]
    if unknown:
        ap.error(f"no recorded last stage for {', '.join(unknown)}; choose from {', '.join(STAGES)}")
    load0 = os.getloadavg()[0]
    print(f"pvsim solve scaling: one fictitious-play iteration of each game's last stage over the shipped table, "
          f"best of {args.repeat} interleaved rounds; {os.cpu_count()} cores ({platform.machine()}); "
          f"1-minute load average {load0:.2f} at the start\n")
    rows = {}
    for g in games:
        name, p = g.split(":")
        abstraction, deals, eval_deals, recorded = STAGES[g]
        runs = {f"{e}/{w}": [] for e, w in configs}
        for _ in range(args.repeat):
            for e, w in configs:
                # a solve starts its worker processes once (a pool of another size is started anew), and
                # they load the game's tables and compiled kernels once: a small iteration does that first
                one_iteration(name, int(p), abstraction, 1 << 14, 1 << 14, e, w)
                runs[f"{e}/{w}"].append(one_iteration(name, int(p), abstraction, deals, eval_deals, e, w))
        row = {k: min(v, key=lambda x: x["wall_s"]) for k, v in runs.items()}
        gains = {round(x["gain"], 12) for v in runs.values() for x in v}
        row.update(game=name, players=int(p), abstraction=abstraction, deals=deals, eval_deals=eval_deals,
                   same_gain_every_run=len(gains) == 1, **estimate(row, deals, recorded))
        rows[g] = row
        walls = ", ".join(f"{k} {x['wall_s']:.1f} s" for k, x in row.items() if "/" in k)
        print(f"  {g}: {walls}", flush=True)
    w16 = f"wall_{CORES_ESTIMATED}_s"
    print(f"\n| game | buckets | deals a stage | threads/1 | threads/2 (x) | processes/1 | processes/2 (x) | serial | "
          f"setup | work | 2-process efficiency | {CORES_ESTIMATED} processes, est. (x over threads/2) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for g, r in rows.items():
        plain, t2, one, two = (r[k]["wall_s"] for k in ("threads/1", "threads/2", "processes/1", "processes/2"))
        print(f"| {g} | {r['abstraction']} | {r['deals']:,} | {plain:.1f} s | {t2:.1f} s (x{plain / t2:.2f}) | "
              f"{one:.1f} s | {two:.1f} s (x{plain / two:.2f}) | {r['serial_s']:.1f} s | {r['setup_s']:.1f} s | "
              f"{r['work_s']:.1f} s | {100 * r['efficiency_2']:.0f}% | {r[w16]:.1f} s (x{t2 / r[w16]:.1f}) |")
    print(f"\nAt the recorded stage's fitting deals (the block runs' work scaled in proportion, the serial part "
          f"and the setup as measured), one iteration:\n")
    print(f"| game | fitting deals a stage | threads/2 | {CORES_ESTIMATED} processes, est. | x |")
    print("| --- | --- | --- | --- | --- |")
    for g, r in rows.items():
        print(f"| {g} | {r['recorded_deals']:,} | {r['threads_2_at_recorded_s'] / 60:.1f} min | "
              f"{r[f'wall_{CORES_ESTIMATED}_at_recorded_s'] / 60:.1f} min | "
              f"x{r[f'speedup_{CORES_ESTIMATED}_over_threads_2_at_recorded']:.1f} |")
    more = [w for w in counts if w > 2]
    if more:
        print("\nMeasured at more workers, beside the estimate from 1 and 2 (at this run's fitting deals):\n")
        print("| game | workers | threads | processes | processes, est. |")
        print("| --- | --- | --- | --- | --- |")
        for g, r in rows.items():
            plain = r["threads/1"]["wall_s"]
            for w in more:
                t, p = r[f"threads/{w}"]["wall_s"], r[f"processes/{w}"]["wall_s"]
                est = estimate(r, r["deals"], r["deals"], cores=w)[f"wall_{w}_s"]
                r[f"estimate_{w}_s"] = est
                print(f"| {g} | {w} | {t:.1f} s (x{plain / t:.2f}) | {p:.1f} s (x{plain / p:.2f}) | "
                      f"{est:.1f} s (x{plain / est:.2f}) |")
    print("\n(x): speed-up over threads/1, a plain serial run. serial: outside the block runs; setup: each worker "
          "process's share of a block run that does not shrink with more workers; work: the rest, shared.")
    same = all(r["same_gain_every_run"] for r in rows.values())
    print(f"\nthe same gain at every worker count and executor (a check that the runs did the same work): "
          f"{'yes' if same else 'NO'}")
    print(f"1-minute load average at the end {os.getloadavg()[0]:.2f}")
    if args.out:
        write_json(args.out, {"games": rows, "load_average": [load0, os.getloadavg()[0]],
                              "cores": os.cpu_count(), "cores_estimated": CORES_ESTIMATED}, indent=1)
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
