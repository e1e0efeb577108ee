"""Benchmark: deals/s of every variant at 1, 2, ... all cores, for each executor.

Run ``python -m experiments.bench_scaling [--deals N] [--seconds S] [--repeat R] [--players P]
[--variants a,b] [--executors threads,processes,dask] [--out results/bench]``.

For each variant's default run (``--players`` players or the variant's
maximum, every seat on its default policies) and each executor, plays
``--deals`` deals at 1, 2, ... ``os.cpu_count()`` workers (more for a fast
variant: enough for ``--seconds`` on one worker) and prints deals/s,
the best and the median of ``--repeat`` rounds, with the speed-up of the best
over one worker on threads (a plain serial run). The rounds interleave the
executors and worker counts, so that on a shared machine a busy spell hits
them all alike, and the best run is the one least disturbed. Pools are started and warmed before timing; their start-up is
timed separately. Then the overhead per block of Dask against local
processes: many one-deal blocks through ``map_blocks``, so that the time is
almost all dispatch. Writes ``scaling.txt`` and ``scaling.json`` to ``--out``.

The row ``independent`` is the machine's own ceiling, with no executor at
all: W separate single-thread Python processes, started and warmed
beforehand, each play ``--deals``/W deals of the same run at the same moment
(released together), and the rate is all their deals over the slowest one's
time. An executor at W workers can at best match it; where the ceiling
itself stays below W x, the cores (or the memory and caches they share) are
the limit, not the way blocks are handed out.
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import time

import numpy as np

from experiments.outputs import write_json, write_text

TARGET_2_CORES = 1.9


def tiny_block(b: int, n: int) -> int:
    """A block that does nothing: what is left of its time is dispatch and merge."""
    return n


def _add(a, b):
    return a + b


def time_run(variant: str, players: int, deals: int, executor: str, workers: int, scheduler=None) -> float:
    """Deals/s of one run (pools already warm)."""
    from simcore import simulate

    t = time.perf_counter()
    r = simulate(variant, players, deals, seed=1, workers=workers, executor=executor, scheduler=scheduler,
                 progress=False)
    return r.n_deals / (time.perf_counter() - t)


class Independent:
    """W single-thread processes that play a share of a run together when told to (see the docstring)."""

    def __init__(self, variant: str, players: int, workers: int):
        import subprocess

        self.procs = [subprocess.Popen([sys.executable, "-m", "experiments.bench_scaling", "--child", variant,
                                        str(players)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                       bufsize=1) for _ in range(workers)]
        for p in self.procs:
            if p.stdout.readline().strip() != "ready":
                raise RuntimeError("a benchmark child process did not start")

    def rate(self, deals: int) -> float:
        share = deals // len(self.procs)
        for k, p in enumerate(self.procs):
            p.stdin.write(f"{share} {k + 1}\n")
        times = [float(p.stdout.readline()) for p in self.procs]
        return share * len(self.procs) / max(times)

    def close(self) -> None:
        for p in self.procs:
            p.stdin.close()
            p.wait()


def child(variant: str, players: int) -> int:
    """Warm up, say ready, then for each line "DEALS SEED" play one single-thread run and print its seconds."""
    from simcore import simulate

    simulate(variant, players, 4 * 16384, seed=0, workers=1, executor="threads", progress=False)  # as the pools
    print("ready", flush=True)
    for line in sys.stdin:
        deals, seed = map(int, line.split())
        t = time.perf_counter()
        simulate(variant, players, deals, seed=seed, workers=1, executor="threads", progress=False)
        print(time.perf_counter() - t, flush=True)
    return 0


def block_overhead(executor: str, workers: int, n_blocks: int, scheduler=None) -> float:
    """Seconds per block of a run of ``n_blocks`` empty blocks (warm pool)."""
    from simcore.engine import map_blocks

    map_blocks(tiny_block, 4 * workers, 1, _add, workers=workers, executor=executor, scheduler=scheduler)
    t = time.perf_counter()
    acc, _ = map_blocks(tiny_block, n_blocks, 1, _add, workers=workers, executor=executor, scheduler=scheduler)
    assert acc == n_blocks
    return (time.perf_counter() - t) / n_blocks


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        return child(argv[1], int(argv[2]))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=2_000_000, help="deals a run, at least")
    parser.add_argument("--seconds", type=float, default=2.0,
                        help="more deals for a fast variant, so that its run on one worker lasts about this "
                             "long (a short run's fixed costs, a few tens of ms, hold its speed-up down)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--variants", default=None, help="comma-separated (default: all)")
    parser.add_argument("--executors", default="threads,processes,dask")
    parser.add_argument("--blocks", type=int, default=400, help="empty blocks for the overhead figure")
    parser.add_argument("--out", default="results/bench")
    args = parser.parse_args(argv)

    from simcore.engine import executors
    from simcore.variants import all_variants, get_variant

    cores = os.cpu_count() or 1
    names = args.variants.split(",") if args.variants else list(all_variants())
    wanted = [e for e in args.executors.split(",") if e]
    for e in wanted:
        executors.check_executor(e)
    if "dask" in wanted:
        try:
            import distributed  # noqa: F401
        except ImportError:
            print(f"dask not installed ({executors.DASK_INSTALL}); skipping it", file=sys.stderr)
            wanted.remove("dask")
    counts = list(range(1, cores + 1))
    startup = {}
    for e in wanted:
        if e == "threads":
            continue
        for w in counts:
            t = time.perf_counter()
            time_run("holdem", 2, 16384 * w * 2, e, w)  # starts the pool, loads the kernels
            startup[f"{e}/{w}"] = time.perf_counter() - t
    executors.close_dask()  # started again for its own phase, at the end
    rows = []
    local = [e for e in wanted if e != "dask"]
    # Dask last, in a phase of its own: its idle LocalCluster (scheduler, nannies,
    # heartbeats) would otherwise take CPU from every other measurement.
    phases = [local + ["independent"]] + ([["dask"]] if "dask" in wanted else [])
    players_of = {name: max(get_variant(name).min_players, min(args.players, get_variant(name).max_players))
                  for name in names}
    rates = {}
    deals_of = {}
    for phase in phases:
        for name in names:
            players = players_of[name]
            time_run(name, players, 20_000, "threads", 1)  # compile or load from the cache
            if name not in deals_of:
                rate1 = time_run(name, players, 8 * 16384, "threads", 1)
                step = 16384 * cores  # whole blocks, the same number per worker
                deals_of[name] = max(args.deals, -(-int(rate1 * args.seconds) // step) * step)
            deals = deals_of[name]
            for w in counts:  # one worker count at a time: the process pool is kept across its runs
                timed = [e for e in phase if e != "independent"]
                for e in timed:
                    time_run(name, players, 4 * 16384 * w, e, w)  # every worker loads this variant's kernels
                ceiling = Independent(name, players, w) if "independent" in phase else None
                try:
                    # Interleaved rounds: a busy spell on a shared machine hits every executor alike.
                    for _ in range(args.repeat):
                        for e in timed:
                            rates.setdefault((name, e, w), []).append(time_run(name, players, deals, e, w))
                        if ceiling is not None:
                            rates.setdefault((name, "independent", w), []).append(ceiling.rate(deals))
                finally:
                    if ceiling is not None:
                        ceiling.close()
    for name in names:
        players = players_of[name]
        base = max(rates[(name, "threads", 1)]) if (name, "threads", 1) in rates else float("nan")
        for e in wanted + ["independent"]:
            for w in counts:
                rs = rates[(name, e, w)]
                rate = max(rs)
                rows.append({"variant": name, "players": players, "deals": deals_of[name], "executor": e, "workers": w,
                             "deals_per_s": rate, "median_deals_per_s": float(np.median(rs)),
                             "speedup": rate / base})
                print(f"{name:<9} {players} players  {e:<11} {w:>2} workers  best {rate:>12,.0f} deals/s  "
                      f"x{rows[-1]['speedup']:.2f}  median {np.median(rs):>12,.0f}", flush=True)
    overhead = {}
    for e in [x for x in wanted if x != "threads"] + ["threads"]:
        overhead[e] = block_overhead(e, cores, args.blocks)
        print(f"overhead per block, {e:<9} {cores} workers: {overhead[e] * 1e3:.3f} ms", flush=True)

    lines = [f"pvsim scaling: at least {args.deals:,} deals a run, more where one worker would take under "
             f"{args.seconds:g} s (the deals column); best of {args.repeat} interleaved rounds; {cores} cores "
             f"({platform.processor() or platform.machine()}); load average at the end "
             f"{os.getloadavg()[0]:.1f}",
             "", "| variant | players | deals | executor | " + " | ".join(f"{w} workers" for w in counts) + " |",
             "| --- | --- | --- | --- | " + " | ".join("---" for _ in counts) + " |"]
    for name in names:
        for e in wanted + ["independent"]:
            rs = [r for r in rows if r["variant"] == name and r["executor"] == e]
            cells = [f"{r['deals_per_s'] / 1e6:.2f} M (x{r['speedup']:.2f})" for r in rs]
            lines.append(f"| {name} | {rs[0]['players']} | {rs[0]['deals'] / 1e6:.1f} M | {e} | " + " | ".join(cells)
                         + " |")
    lines += ["", "pool start-up (first run, s): " + ", ".join(f"{k} {v:.2f}" for k, v in startup.items()),
              "overhead per block (ms, empty blocks): "
              + ", ".join(f"{k} {v * 1e3:.3f}" for k, v in overhead.items())]
    best = {}
    for r in rows:
        if r["workers"] == cores and r["executor"] != "independent":
            best[r["variant"]] = max(best.get(r["variant"], 0.0), r["speedup"])
    ceil = {r["variant"]: r["speedup"] for r in rows if r["workers"] == cores and r["executor"] == "independent"}
    lines.append(f"at {cores} workers, the best executor against the independent processes' ceiling: " + ", ".join(
        f"{k} x{v:.2f} of x{ceil[k]:.2f} ({v / ceil[k]:.0%})" for k, v in best.items()))
    if cores == 2:
        lines.append(f"target x{TARGET_2_CORES} on 2 cores: " + ", ".join(
            f"{k} x{v:.2f} {'met' if v >= TARGET_2_CORES else 'NOT met'}" for k, v in best.items()))
    text = "\n".join(lines)
    print("\n" + text)
    os.makedirs(args.out, exist_ok=True)
    write_text(os.path.join(args.out, "scaling.txt"), text + "\n")
    write_json(os.path.join(args.out, "scaling.json"),
               {"command": " ".join(sys.argv), "cores": cores, "rows": rows, "startup_s": startup,
                "overhead_per_block_s": overhead, "load_average": os.getloadavg()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
