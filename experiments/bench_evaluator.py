"""Benchmark the hand evaluators against eval7 and phevaluator.

Run ``python -m experiments.bench_evaluator [--hands N] [--json FILE]``.

One run, one set of random hands: our batch evaluators (1 thread and all
threads) beside the per-call rates of eval7 and phevaluator on a sample of the
same hands, the full 7-card enumeration, and the cold and warm start of a fresh
process. Every figure is the best of ``--repeat`` runs.
"""
from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from itertools import starmap
from pathlib import Path

import numba
import numpy as np

from experiments.outputs import write_json
from simcore.cards import card_to_str
from simcore.evaluate import category_counts_all, evaluate_hands, evaluate_omaha

ROOT = Path(__file__).resolve().parents[1]
TARGET_RATE_1T = 300e6
TARGET_ENUM_1T = 0.3
TARGET_WARM = 1.0
START_CODE = (
    "import time; t = time.perf_counter(); import simcore; "
    "simcore.evaluate_hand('As Ks Qs Js Ts'); print(time.perf_counter() - t)"
)


def random_hands(n: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """(n, k) int8 rows of k distinct cards, uniform (rejection sampling)."""
    out = rng.integers(0, 52, (n, k), dtype=np.int8)
    bad = np.arange(n)
    while True:
        srt = np.sort(out[bad], axis=1)
        bad = bad[(np.diff(srt, axis=1) == 0).any(axis=1)]
        if bad.size == 0:
            return out
        out[bad] = rng.integers(0, 52, (bad.size, k), dtype=np.int8)


def cpu_snapshot() -> tuple[float, float] | None:
    """(busy seconds of the whole machine, CPU seconds of this process and its
    children), to tell how much other work shared the cores (Linux only)."""
    import resource

    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    except (OSError, ValueError):
        return None
    tick = os.sysconf("SC_CLK_TCK")
    busy = (sum(fields[:8]) - fields[3] - fields[4]) / tick  # minus idle and iowait
    own = sum(getattr(resource.getrusage(w), a) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
              for a in ("ru_utime", "ru_stime"))
    return busy, own


def best_time(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def start_time(cache_dir: str) -> tuple[float, float]:
    """(in-process import + first call, whole process wall time) of a fresh interpreter."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    t = time.perf_counter()
    res = subprocess.run([sys.executable, "-c", START_CODE], env=env, check=True,
                         capture_output=True, text=True)
    wall = time.perf_counter() - t
    return float(res.stdout.split()[-1]), wall


def library_rates(hands: np.ndarray, repeat: int) -> dict[str, float]:
    """Calls per second of eval7 and phevaluator, cards converted beforehand."""
    import eval7
    import phevaluator._pheval as pheval

    rows = hands.tolist()
    k = hands.shape[1]
    phe = {5: pheval.evaluate_5cards, 6: pheval.evaluate_6cards, 7: pheval.evaluate_7cards}[k]
    e7_cards = [eval7.Card(card_to_str(c)) for c in range(52)]
    e7_rows = [[e7_cards[c] for c in r] for r in rows]
    e7 = eval7.evaluate
    n = len(rows)
    return {
        "phevaluator": n / best_time(lambda: list(starmap(phe, rows)), repeat),
        "eval7": n / best_time(lambda: list(map(e7, e7_rows)), repeat),
    }


def omaha_library_rate(hole: np.ndarray, board: np.ndarray, repeat: int) -> float:
    import phevaluator._pheval as pheval

    rows = [b + h for h, b in zip(hole.tolist(), board.tolist())]
    return len(rows) / best_time(lambda: list(starmap(pheval.evaluate_omaha_cards, rows)), repeat)


def run(n_hands: int, n_sample: int, n_omaha: int, repeat: int, seed: int) -> dict:
    load_before = os.getloadavg()[0]
    cpu0, wall0 = cpu_snapshot(), time.perf_counter()
    rng = np.random.default_rng(seed)
    threads = numba.get_num_threads()
    seven = random_hands(n_hands, 7, rng)
    deals = random_hands(n_omaha, 10, rng)
    rows = []

    def ours(label, fn, n, lib=None, parallel=True):
        fn(1)  # compile or load from cache
        r1 = n / best_time(lambda: fn(1), repeat)
        rn = n / best_time(lambda: fn(threads), repeat) if parallel else None
        rows.append(dict(what=label, n=n, ours_1t=r1, ours_all=rn, **(lib or {})))

    out = np.empty(n_hands, dtype=np.int32)
    for k in (7, 6, 5):
        cards = np.ascontiguousarray(seven[:, :k])
        lib = library_rates(cards[:n_sample], repeat)
        # check=False: the kernel as the engine calls it (its deals are distinct by
        # construction); the default also checks every card in one extra pass.
        # The output array is reused, as by a caller evaluating batch after batch.
        ours(f"{k}-card high", lambda t, c=cards: evaluate_hands(c, threads=t, check=False, out=out),
             n_hands, {"phevaluator": lib["phevaluator"], "eval7": lib["eval7"]})
        if k == 7:
            ours("7-card, new output array", lambda t, c=cards: evaluate_hands(c, threads=t, check=False),
                 n_hands, {})
            ours("7-card, checked input", lambda t, c=cards: evaluate_hands(c, threads=t, out=out),
                 n_hands, {})
    for k in (4, 5):
        hole, board = np.ascontiguousarray(deals[:, :k]), np.ascontiguousarray(deals[:, 5:])
        lib = {"phevaluator": omaha_library_rate(hole[:n_sample], board[:n_sample], repeat)} if k == 4 else {}
        ours(f"Omaha, {k} hole", lambda t, h=hole, b=board: evaluate_omaha(h, b, check=False), n_omaha, lib,
             parallel=False)

    category_counts_all(7, threads=1)
    enum_1t = best_time(lambda: category_counts_all(7, threads=1), repeat)
    enum_all = best_time(lambda: category_counts_all(7, threads=threads), repeat)

    cold, warm = [], []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as d:
            cold.append(start_time(d))
            warm.append(start_time(d))
    return dict(
        rows=rows, threads=threads, enum_1t=enum_1t, enum_all=enum_all,
        cold_start=min(c[0] for c in cold), cold_start_process=min(c[1] for c in cold),
        warm_start=min(w[0] for w in warm), warm_start_process=min(w[1] for w in warm),
        load_average=(load_before, os.getloadavg()[0]),
        other_cpus=other_cpus(cpu0, cpu_snapshot(), time.perf_counter() - wall0),
        settings=dict(hands=n_hands, sample=n_sample, omaha_deals=n_omaha, repeat=repeat, seed=seed),
    )


def other_cpus(before, after, wall: float) -> float | None:
    """Average number of CPUs busy with other processes during the run."""
    if before is None or after is None:
        return None
    return max(0.0, ((after[0] - before[0]) - (after[1] - before[1])) / wall)


def fmt_rate(x):
    return "-" if x is None else f"{x / 1e6:8.1f}M"


def report(res: dict) -> str:
    t = res["threads"]
    lines = [
        f"Evaluations per second, best of {res['settings']['repeat']} "
        f"(ours: {res['settings']['hands']:,} hands, Omaha {res['settings']['omaha_deals']:,} deals; "
        f"libraries: per call, first {res['settings']['sample']:,} of the same hands)",
        "",
        f"Machine: {os.cpu_count()} CPUs, numba threads {t}; 1-minute load average "
        f"{res['load_average'][0]:.2f} before, {res['load_average'][1]:.2f} after; "
        + ("" if res["other_cpus"] is None else
           f"other processes kept {res['other_cpus']:.2f} CPUs busy on average during the run "
           "(well above 0 means shared cores and low figures)"),
        "",
        f"{'':24} {'ours 1 thr':>10} {f'ours {t} thr':>10} {'scaling':>8} "
        f"{'phevaluator':>11} {'eval7':>9} {'1thr/phe':>9} {'1thr/e7':>8}",
    ]
    for r in res["rows"]:
        scale = "-" if r["ours_all"] is None else f"{r['ours_all'] / r['ours_1t']:6.2f}x"
        phe, e7 = r.get("phevaluator"), r.get("eval7")
        vs_phe = "-" if phe is None else f"{r['ours_1t'] / phe:.0f}x"
        vs_e7 = "-" if e7 is None else f"{r['ours_1t'] / e7:.0f}x"
        lines.append(
            f"{r['what']:24} {fmt_rate(r['ours_1t']):>10} {fmt_rate(r['ours_all']):>10} {scale:>8} "
            f"{fmt_rate(phe):>11} {fmt_rate(e7):>9} {vs_phe:>9} {vs_e7:>8}"
        )
    seven = next(r for r in res["rows"] if r["what"] == "7-card high")
    ok = lambda c: "ok" if c else "MISSED"  # noqa: E731
    lines += [
        "",
        "Against the targets:",
        f"  7-card, 1 thread      {seven['ours_1t'] / 1e6:7.1f}M/s   target >= {TARGET_RATE_1T / 1e6:.0f}M/s"
        f"   {ok(seven['ours_1t'] >= TARGET_RATE_1T)}",
        f"  7-card, {t} threads     {seven['ours_all'] / seven['ours_1t']:7.2f}x     "
        f"target near-linear ({t}x)   {ok(seven['ours_all'] / seven['ours_1t'] >= 0.85 * t)}",
        f"  all 133,784,560 7-card hands, 1 thread   {res['enum_1t']:6.3f} s   target < {TARGET_ENUM_1T} s"
        f"   {ok(res['enum_1t'] < TARGET_ENUM_1T)}",
        f"  all 133,784,560 7-card hands, {t} threads  {res['enum_all']:6.3f} s   "
        f"({res['enum_1t'] / res['enum_all']:.2f}x)",
        f"  cold start (empty numba cache): import + first call {res['cold_start']:6.2f} s, "
        f"process {res['cold_start_process']:.2f} s",
        f"  warm start (cached):            import + first call {res['warm_start']:6.2f} s, "
        f"process {res['warm_start_process']:.2f} s   target < {TARGET_WARM} s   "
        f"{ok(res['warm_start'] < TARGET_WARM)}",
    ]
    return "\n".join(lines)


def provenance() -> dict:
    from .provenance import git_commit, versions

    return dict(
        command=" ".join([Path(sys.executable).name, "-m", "experiments.bench_evaluator", *sys.argv[1:]]),
        commit=git_commit(), machine=platform.processor() or platform.machine(),
        cpus=os.cpu_count(), numba_threads=numba.get_num_threads(),
        versions=versions("eval7", "phevaluator"),
    )


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=10_000_000, help="random 5/6/7-card hands (ours)")
    ap.add_argument("--sample", type=int, default=200_000, help="hands given to eval7/phevaluator")
    ap.add_argument("--omaha", type=int, default=None, help="Omaha deals (default hands/10)")
    ap.add_argument("--repeat", type=int, default=5, help="best of this many runs")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--json", type=Path, help="also save the figures here")
    args = ap.parse_args(argv)
    n_omaha = args.omaha or max(1, args.hands // 10)
    res = run(args.hands, min(args.sample, args.hands, n_omaha), n_omaha, args.repeat, args.seed)
    print(report(res))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        write_json(args.json, dict(provenance(), **res))
        print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
