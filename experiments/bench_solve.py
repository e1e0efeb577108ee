"""Solving speed: exploitability by iteration and by CPU-minute, and the shipped tables' measurement.

For each game given (``GAME:P``), this runs :func:`simcore.solve.solve`
(fictitious play, coarse buckets by default) on worker threads and records,
per iteration, the best-response gain measured on fresh deals (a lower bound
on the current table's exploitability, with its 95% interval), the mass moved,
the wall seconds and the process CPU seconds (every thread of this process;
use ``--executor threads`` so that the CPU time is all counted here).

Then the final table is measured the way ``experiments/exploitability.py``
measures the built-in policies (its ``--full`` settings: seat 0's best response
fitted on ``FULL_DEALS`` deals a stage, coarse buckets, one pass, measured on
2**18 fresh deals, beside ``rollout:8``), and set beside the least exploitable
built-in policy of the committed ``results/exploitability/<game>_<P>.json``:
issue 21's target is at most a quarter of it.

Outputs in ``--out`` (default ``results/solve``): ``<game>_<P>.npz`` (the table),
``<game>_<P>.png`` (convergence chart), ``<game>_<P>.json`` (the iteration log),
``bench_<game>_<P>.json`` (timings, the final measurement, the comparison).
Each built-in policy is also played at seat 0 against a field of the table (``--dev-deals``): no
deviation should gain more than its interval allows (issue 21's no-profitable-deviation target).
``--ship`` copies the table into ``strategies/solved_tables/`` (the policy
``solved``) with the final measurement in its metadata.

    python -m experiments.bench_solve --games estonian:6 --iterations 24 --deals 262144
    python -m experiments.bench_solve --games estonian:6 --from-table results/solve/estonian_6.npz --ship

Timings depend on the machine's load; the JSON records the load average at the start and the end.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import time
from pathlib import Path

from experiments import sizes
from experiments.outputs import write_json
from simcore.engine.stats import Z95

ROOT = Path(__file__).resolve().parent.parent
SHIP_DIR = ROOT / "strategies" / "solved_tables"


def run_solve(game, P, args, out_dir: Path) -> dict:
    """Solve with the given budget; per iteration the gain, wall and CPU seconds (cumulative)."""
    from simcore.solve import solve

    t0, c0 = time.perf_counter(), time.process_time()
    timing = []

    def cb(entry):
        timing.append({"iteration": entry["iteration"], "wall_s": time.perf_counter() - t0,
                       "cpu_s": time.process_time() - c0})
        print(f"  {game} {P}p iteration {entry['iteration']}: gain {entry['gain']:.4f} +- "
              f"{Z95 * entry['stderr']:.4f}, cpu {timing[-1]['cpu_s'] / 60:.1f} min", flush=True)

    stem = out_dir / f"{game}_{P}"
    r = solve(game, P, iterations=args.iterations, target=args.target, abstraction=args.abstraction,
              deals_per_iteration=args.deals, eval_deals=args.eval_deals, seed=args.seed, passes=1, init=args.init,
              confidence=args.confidence, validate=args.validate, method=args.method,
              measure_every=args.measure_every, start_weight=args.start_weight, keep=args.keep, fit=args.fit,
              executor=args.executor, workers=args.workers, checkpoint=f"{stem}.ckpt",
              resume=f"{stem}.ckpt" if args.resume and os.path.exists(f"{stem}.ckpt") else None,
              out=f"{stem}.npz", callback=cb)
    log = [{**e, **t} for e, t in zip(r.log[-len(timing):] if timing else [], timing)]
    note = r.kept_note()
    if note is not None:
        print(f"  {game} {P}p: {note}", flush=True)
    return {"iterations": r.iterations, "stopped": r.stopped,
            **({"brs_in_table": r.brs_in_table} if r.brs_in_table is not None else {}), "abstraction": r.abstraction,
            "deals_per_iteration": args.deals, "eval_deals": args.eval_deals, "seed": args.seed, "init": r.init,
            "confidence": args.confidence, "validate": args.validate, "method": args.method,
            "measure_every": args.measure_every, "start_weight": args.start_weight,
            **({"keep": args.keep} if args.keep != "measured" else {}),
            **({"fit": args.fit} if args.fit != "backward" else {}),
            "workers": args.workers, "executor": args.executor, "log": log,
            "wall_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0, "table": f"{stem}.npz"}


def measure(game, P, table: str | None, args, field: str | None = None) -> dict:
    """The table's exploitability (or a built-in ``field``'s) as experiments/exploitability.py --full
    measures a built-in field."""
    from experiments.exploitability import FULL, FULL_DEALS, FULL_PASSES
    from simcore.exploit import exploit

    # None: the game's own fitting defaults for this field (Russian), as exploitability.py --full
    cfg = dict(FULL, deals=args.measure_deals or FULL_DEALS.get(game, FULL["deals"]),
               passes=FULL_PASSES.get(game, FULL["passes"]))
    if args.measure_eval_deals:
        cfg["eval_deals"] = args.measure_eval_deals
    t0 = time.perf_counter()
    r = exploit(game, P, field or f"table:{table}", seat=cfg["seat"], deals=cfg["deals"], eval_deals=cfg["eval_deals"],
                abstraction=cfg["abstraction"], seed=args.measure_seed, passes=cfg["passes"],
                rollout=cfg["rollout"], rollout_deals=cfg["rollout_deals"], executor=args.executor,
                workers=args.workers, progress=False)
    s = r.seats[0]
    ro = s.rollout or {}
    return {"how": (f"pvsim exploit: seat {s.seat}, {cfg['abstraction']} buckets, {r.deals:,} fitting deals a "
                    f"stage, {r.passes} pass(es), {s.eval_deals:,} fresh deals, seed {args.measure_seed}"),
            "seat": s.seat, "gain": s.gain, "stderr": s.stderr, "ci_low": s.gain - Z95 * s.stderr,
            "ci_high": s.gain + Z95 * s.stderr, "deals": r.deals, "eval_deals": s.eval_deals,
            "rollout_k": cfg["rollout"], "rollout_gain": ro.get("gain"), "rollout_stderr": ro.get("stderr"),
            "seconds": time.perf_counter() - t0}


def deviations(game, P, table: str, args) -> list[dict]:
    """Every built-in policy of each decision at seat 0 against a field of the table (the table's
    other decisions kept): its paired gain over the table itself on the same deals."""
    from experiments.exploitability import builtin_policies
    from simcore import compare
    from strategies.table import load_table

    tf = load_table(table)
    base = f"table:{table}"
    rows = []
    for d in tf.decisions:
        for p in builtin_policies(game, d):
            hero = ",".join(f"{x}={p if x == d else base}" for x in tf.decisions)
            field = ",".join(f"{x}={base}" for x in tf.decisions)
            r = compare(game, P, args.dev_deals, args.measure_seed + 1, a=hero, b=field, field=field, hero_seat=0,
                        workers=args.workers, executor=args.executor, progress=False)
            diff, se = r.stats.diff(0, 1)
            rows.append({"decision": d, "policy": p, "gain": float(diff), "stderr": float(se),
                         "ci_low": float(diff - Z95 * se), "ci_high": float(diff + Z95 * se),
                         "deals": args.dev_deals})
            print(f"  {game} {P}p: {d}={p} in a field of the table: {diff:+.4f} +- {Z95 * se:.4f}", flush=True)
    return rows


def best_builtin(game, P) -> dict | None:
    path = Path(__file__).resolve().parent.parent / "results" / "exploitability" / f"{game}_{P}.json"
    if not path.exists():
        return None
    d = json.loads(path.read_text())
    rows = [f for f in d["fields"] if f.get("br_gain") is not None]
    best = min(rows, key=lambda f: f["br_gain"])
    return {"field": best["field"], "br_gain": best["br_gain"], "br_stderr": best["br_stderr"],
            "settings": d.get("settings"), "source": str(path.relative_to(path.parents[2]))}


def ship(game, P, table: str, measured: dict, deviations=None, builtin=None, record=None) -> str:
    """Copy the table into the package data with its measurement in the metadata: the BR gain, the
    least exploitable built-in measured the same way, the built-in deviations that beat the table
    (their 95% interval above zero), and ``record``, the bench JSON that holds how it was solved
    (every stage: ``experiments.solved --full`` re-solves from it)."""
    from strategies.table import load_table, save_bundled

    from simcore.variants import get_variant

    tf = load_table(table)
    v = get_variant(tf.game, **tf.options)
    for d in tf.decisions:  # refuses a table made under other buckets or another canonical order
        tf.abstraction_for(v, d, tf.n_players)
    SHIP_DIR.mkdir(parents=True, exist_ok=True)
    default = get_variant(tf.game).opts  # a file name names only the options that differ from the rules' defaults
    suffix = "".join(f"-{k}-{v}" for k, v in sorted(tf.options.items())
                     if v not in (False, None) and default.get(k) != v)
    dest = SHIP_DIR / f"{game}-{P}p{suffix}.npz"
    measured = dict(measured)
    if builtin is not None:
        measured["best_builtin"] = {k: builtin[k] for k in ("field", "br_gain", "br_stderr") if k in builtin}
    if deviations is not None:
        measured["beaten_by"] = [{k: d[k] for k in ("decision", "policy", "gain", "ci_low", "ci_high")}
                                 for d in deviations if d["ci_low"] > 0]
        measured["deviations_checked"] = len(deviations)
    # a refined table's start (the table it was solved from) travels with it: see save_bundled
    save_bundled(tf, dest, meta=dict(tf.meta, exploitability=measured, **({"record": record} if record else {})))
    return str(dest.relative_to(SHIP_DIR.parents[1]))


def main(argv=None) -> int:
    from simcore.exploit import FITS

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", nargs="+", type=sizes.size, default=["estonian:6"], help="GAME:P (default estonian:6)")
    ap.add_argument("--iterations", type=int, default=16)
    ap.add_argument("--target", type=float, default=None)
    ap.add_argument("--abstraction", default="coarse")
    ap.add_argument("--confidence", type=float, default=None, help="the BR's departure test (solve's default 0.5)")
    ap.add_argument("--method", choices=("fp", "cfr"), default="fp", help="fictitious play or sampled CFR+")
    ap.add_argument("--measure-every", type=int, default=None, help="cfr: measure every N iterations")
    ap.add_argument("--start-weight", type=int, default=1,
                    help="fp: terms the start counts for in a row's average (0: a first departure takes the row)")
    ap.add_argument("--keep", choices=("measured", "newest"), default="measured",
                    help="fp: the table a finished run keeps (newest: every BR in, unmeasured)")
    ap.add_argument("--fit", choices=FITS, default="backward",
                    help="fp: how each BR is fitted (one-play: every stage from one play of each deal)")
    ap.add_argument("--validate", action="store_true",
                    help="each BR keeps only the departures that held-out fitting blocks confirm")
    ap.add_argument("--deals", type=int, default=1 << 18, help="fitting deals a stage per iteration")
    ap.add_argument("--eval-deals", type=int, default=1 << 17)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--init", default=None, help="policy spec of buckets not yet visited (default: the game's "
                                                  "defaults; the least exploitable built-in converges sooner)")
    ap.add_argument("--measure-deals", type=int, default=None, help="fitting deals of the final measurement "
                                                                    "(default: exploitability.py's FULL_DEALS)")
    ap.add_argument("--measure-seed", type=int, default=2024)
    ap.add_argument("--measure-eval-deals", type=int, default=None,
                    help="fresh deals of the final measurement (default: exploitability.py's, 262,144)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--executor", default="threads")
    ap.add_argument("--resume", action="store_true", help="continue from the checkpoint beside the table")
    ap.add_argument("--from-table", default=None, help="skip solving: measure (and --ship) this table")
    ap.add_argument("--no-measure", action="store_true")
    ap.add_argument("--builtin", nargs="*", default=None,
                    help="also measure these built-in fields with the same settings and compare with the least "
                         "exploitable (default: the committed exploitability JSON)")
    ap.add_argument("--ship", action="store_true", help="copy the measured table into strategies/solved_tables/")
    ap.add_argument("--dev-deals", type=int, default=1 << 18,
                    help="deals of each built-in deviation against a field of the table (0: skip)")
    ap.add_argument("--out", default="results/solve")
    ap.add_argument("--record", default=None,
                    help="with --ship: the bench JSON holding every stage of the solve, named in the table's "
                         "metadata (default: this run's)")
    args = ap.parse_args(argv)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    for game, P in map(sizes.split, args.games):
        report = {"game": game, "players": P, "loadavg_start": os.getloadavg()}
        if args.from_table:
            report["table"] = args.from_table
            table = args.from_table
        else:
            report["solve"] = run_solve(game, P, args, out_dir)
            table = report["solve"]["table"]
            s = report["solve"]
            print(f"{game} {P}p: {s['iterations']} iterations, {s['wall_s'] / 60:.1f} min wall, "
                  f"{s['cpu_s'] / 60:.1f} CPU-min")
        if not args.no_measure:
            m = report["measured"] = measure(game, P, table, args)
            b = report["best_builtin"] = best_builtin(game, P)
            if args.builtin:  # the references measured now, same settings and seed (the same buckets)
                ms = report["builtin_measured"] = [dict(measure(game, P, None, args, field=f), field=f)
                                                   for f in args.builtin]
                for bm in ms:
                    print(f"  built-in {bm['field']}: BR gain {bm['gain']:.4f} [{bm['ci_low']:+.4f}, "
                          f"{bm['ci_high']:+.4f}]", flush=True)
                bm = min(ms, key=lambda x: x["gain"])
                b = {"field": bm["field"], "br_gain": bm["gain"], "br_stderr": bm["stderr"], "source": "measured now"}
                report["best_builtin"] = b
            line = f"{game} {P}p solved: BR gain {m['gain']:.4f} [{m['ci_low']:+.4f}, {m['ci_high']:+.4f}]"
            if b is not None:
                report["target"] = b["br_gain"] / 4
                report["meets_target"] = bool(m["ci_high"] <= b["br_gain"] / 4)
                line += (f"; least exploitable built-in {b['field']}: {b['br_gain']:.4f}; target (a quarter) "
                         f"{b['br_gain'] / 4:.4f}: {'met' if report['meets_target'] else 'NOT met'}")
            print(line)
            if args.dev_deals:
                report["deviations"] = deviations(game, P, table, args)
            if args.ship:
                record = args.record or os.path.relpath((out_dir / f"bench_{game}_{P}.json").resolve(), ROOT)
                report["shipped"] = ship(game, P, table, m, report.get("deviations"), report.get("best_builtin"),
                                         record)
                print(f"shipped as {report['shipped']}")
        report["loadavg_end"] = os.getloadavg()
        path = out_dir / f"bench_{game}_{P}.json"
        if path.exists() and args.from_table:  # keep the solve timings of an earlier run beside the measurement
            old = json.loads(path.read_text())
            report = {**old, **{k: v for k, v in report.items() if k != "table"}}
        write_json(path, report)
        if args.from_table and os.path.abspath(args.from_table) != os.path.abspath(out_dir / f"{game}_{P}.npz"):
            shutil.copyfile(args.from_table, out_dir / f"{game}_{P}.npz")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
