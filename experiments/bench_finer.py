"""The shipped ``solved`` tables and the least exploitable built-ins under finer best responses.

Issue 21 asks for the solved table's exploitability to be at most a quarter of
the least exploitable built-in's, both measured by "the same BR abstraction at
its finest". The shipped tables were measured with the coarse buckets
(``experiments/bench_solve.py``). This script measures both fields again with
the medium and fine buckets, the same seat (0), seed, fitting deals and fresh
deals for both, and reports what each granularity finds.

A finer BR can only see more, but it must also visit each of its buckets often
enough to leave the field there (``--min-visits`` tries of every action and a
95% confidence test). At a fixed budget a finer abstraction therefore finds
*less* once its buckets are too thin. The table printed here shows where that
happens for each game: the BR "at its finest" that still finds something is
the one the target can be judged by.

Each measurement is written to ``results/solve/finer.json`` as it completes,
and the run skips those already there with the same settings, so an
interrupted run resumes where it stopped. ``results/solve/finer.md`` is the
table.

    python -m experiments.bench_finer                       # every game, the budgets below
    python -m experiments.bench_finer --games estonian:6 --abstractions medium
    python -m experiments.bench_finer --annotate            # the shipped tables' metadata, from finer*.json
"""
from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from experiments import sizes
from experiments.bench_solve import Z95
from experiments.outputs import write_json, write_text

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "solve"
# Fitting deals a stage and fresh deals for each game: what 2 cores measure in minutes per field.
# Estonian and Slovak play about 4x faster than Tapiola and Sviten per fitting deal; Russian has
# 12 placement rounds a deal.
BUDGET = {"estonian": (1 << 22, 1 << 20), "slovak": (1 << 22, 1 << 20), "tapiola": (1 << 20, 1 << 18),
          "sviten": (1 << 20, 1 << 18), "russian": (1 << 16, 1 << 18)}
ORDER = {"coarse": 0, "medium": 1, "fine": 2}


def _best_builtin(game: str, P: int) -> str:
    """The least exploitable built-in of the shipped table's own measurement (bench_<game>_<P>.json)."""
    d = json.loads((OUT / f"bench_{game}_{P}.json").read_text())
    return d["best_builtin"]["field"]


def _key(game, P, field, abstraction, deals, eval_deals, seed) -> str:
    return f"{game}:{P}|{field}|{abstraction}|{deals}|{eval_deals}|{seed}"


def _row_key(r: dict) -> str:
    return _key(r["game"], r["players"], r["field"], r["abstraction"], r["deals"], r["eval_deals"], r["seed"])


def _merged(path: Path, rows: list[dict], new: list[dict]) -> list[dict]:
    """The rows of ``path`` as they are now, with ``new`` (the rows this run measured) that it lacks.

    Another run may have added rows since this one read the file, or a hand relabelled or annotated
    some: the file's rows win, so nothing written meanwhile is lost. Without the file: ``rows``."""
    if not path.exists():
        return rows
    now = json.loads(path.read_text())["rows"]
    have = {_row_key(r) for r in now}
    return now + [r for r in new if _row_key(r) not in have]


def measure(game: str, P: int, field: str, abstraction: str, deals: int, eval_deals: int, seed: int,
            workers: int, executor: str) -> dict:
    """Seat 0's BR to ``field`` over ``abstraction`` buckets: its gain on fresh deals and where it departs."""
    from simcore.exploit import exploit

    t0, c0 = time.perf_counter(), time.process_time()
    r = exploit(game, P, field, seat=0, deals=deals, eval_deals=eval_deals, abstraction=abstraction, seed=seed,
                passes=1, rollout=0, executor=executor, workers=workers, progress=False)
    s = r.seats[0]
    departs = {st.stage.name: {"share": float(st.departure_rate), "buckets_departing": int(st.buckets_departing),
                               "buckets_seen": int(st.buckets_visited)} for st in s.stages}
    return {"game": game, "players": P, "field": field, "abstraction": abstraction, "seat": s.seat,
            "deals": r.deals, "eval_deals": s.eval_deals, "seed": seed, "gain": s.gain, "stderr": s.stderr,
            "ci_low": s.gain - Z95 * s.stderr, "ci_high": s.gain + Z95 * s.stderr, "departures": departs,
            "wall_s": time.perf_counter() - t0, "cpu_s_main": time.process_time() - c0,
            "how": (f"pvsim exploit {game} -n {P} --field '{field}' --seat 0 --abstraction {abstraction} "
                    f"--deals {r.deals} --eval-deals {s.eval_deals} --passes 1 --rollout 0 --seed {seed}")}


def _grouped(rows: list[dict]) -> dict:
    """The rows by judge, (game, players, granularity, fitting deals, seed): ``solved`` (the shipped table),
    ``builtin`` (of several, the least exploitable under this BR: the target is judged against it) and
    ``candidates`` (table files measured beside them)."""
    by = {}
    for r in rows:
        slot = by.setdefault((r["game"], r["players"], r["abstraction"], r["deals"], r["seed"]), {})
        if r["field"] == "solved":
            slot["solved"] = r
        elif r["field"].startswith("table:"):
            slot.setdefault("candidates", []).append(r)
        elif "builtin" not in slot or r["gain"] < slot["builtin"]["gain"]:
            slot["builtin"] = r
    return by


def _cell(x) -> str:
    return "-" if x is None else f"{x['gain']:+.5f} [{x['ci_low']:+.5f}, {x['ci_high']:+.5f}]"


def _game_order(game: str, P: int) -> int:
    """Where a game's rows go in the tables: :data:`experiments.sizes.USUAL`' order, others last."""
    spec = f"{game}:{P}"
    return sizes.USUAL.index(spec) if spec in sizes.USUAL else 99


def _verdict(table: dict | None, builtin: dict | None, unresolved: str) -> str:
    """The quarter test: the table's upper 95% end at most a quarter of the built-in's gain; "not
    resolvable (``unresolved``)" when the built-in's interval reaches zero."""
    from strategies.solved import meets_quarter

    if table is None or builtin is None:
        return "-"
    ok = meets_quarter(table["ci_high"], builtin["gain"], builtin["ci_low"])
    if ok is None:
        return f"not resolvable ({unresolved})"
    return "yes" if ok else "no"


def render(rows: list[dict]) -> str:
    """One line per game and granularity: the solved table's BR gain, the built-in's, and the quarter test."""
    by = _grouped(rows)
    lines = ["| game | buckets | fitting deals a stage | solved: BR gain [95%] | best built-in | "
             "built-in: BR gain [95%] | a quarter? |", "|---|---|---|---|---|---|---|"]
    for (g, P, a, n, _), pair in sorted(by.items(), key=lambda kv: (_game_order(kv[0][0], kv[0][1]),
                                                                    ORDER.get(kv[0][2], 9), kv[0][3], kv[0][4])):
        b = pair.get("builtin")
        for s in [pair.get("solved")] + pair.get("candidates", []):
            if s is None and pair.get("candidates"):
                continue
            verdict = _verdict(s, b, "the BR finds nothing sure in the built-in")
            name = "" if s is None or s["field"] == "solved" else f" ({s['field'][len('table:'):]})"
            lines.append(f"| {g} {P}{name} | {a} | {n:,} | {_cell(s)} | {b['field'] if b else '-'} | {_cell(b)} "
                         f"| {verdict} |")
    return "\n".join(lines) + "\n"


def best_bounds(rows: list[dict]) -> list[dict]:
    """Each policy's best lower bound: of the BRs measured (any granularity and budget), the one that
    gains most on fresh deals. A finer BR at a fixed budget may find *less* than a coarser one (its
    buckets are too thin to leave the field), so "the finest" is not always the strongest; the
    largest gain is the tightest bound on the policy's exploitability that these runs give.

    Per game and table (the shipped one, ``solved``, and each candidate): its largest gain, and the
    least exploitable built-in by the same measure, among the built-ins measured with every BR
    (granularity and budget) the table was measured with, so that neither has a BR the other
    lacks. One dict per table: ``table`` and ``builtin`` (the rows chosen), ``verdict``."""
    games = {}
    for r in rows:
        games.setdefault((r["game"], r["players"]), []).append(r)
    out = []
    for (g, P), rs in sorted(games.items(), key=lambda kv: _game_order(*kv[0])):
        by_field = {}
        for r in rs:
            by_field.setdefault(r["field"], []).append(r)
        tables = [f for f in by_field if f == "solved"] + sorted(f for f in by_field if f.startswith("table:"))
        builtins = [f for f in by_field if f != "solved" and not f.startswith("table:")]
        for t in tables:
            brs = {(r["abstraction"], r["deals"]) for r in by_field[t]}
            best_t = max(by_field[t], key=lambda r: r["gain"])
            candidates = [max((r for r in by_field[b] if (r["abstraction"], r["deals"]) in brs),
                              key=lambda r: r["gain"])
                          for b in builtins if brs <= {(r["abstraction"], r["deals"]) for r in by_field[b]}]
            best_b = min(candidates, key=lambda r: r["gain"]) if candidates else None
            out.append({"game": g, "players": P, "table": best_t, "builtin": best_b,
                        "verdict": _verdict(best_t, best_b, "no BR finds anything sure in the built-in"),
                        "brs": sorted(brs, key=lambda x: (ORDER.get(x[0], 9), x[1]))})
    return out


def _br(abstraction: str, deals: int) -> str:
    """A BR in a few characters: its buckets and fitting deals a stage (``fine 16M``, ``coarse 64K``)."""
    return f"{abstraction} {deals >> 20}M" if deals >= 1 << 20 else f"{abstraction} {deals >> 10}K"


def render_bounds(rows: list[dict]) -> str:
    """:func:`best_bounds` as a markdown table."""
    lines = ["| game | BRs measured (buckets, fitting deals a stage) | table: largest BR gain [95%] (by) | "
             "least exploitable built-in | its largest BR gain [95%] (by) | a quarter? |", "|---|---|---|---|---|---|"]
    for b in best_bounds(rows):
        t, bi = b["table"], b["builtin"]
        name = "" if t["field"] == "solved" else f" ({t['field'][len('table:'):]})"
        by_b = f" ({_br(bi['abstraction'], bi['deals'])})" if bi else ""
        lines.append(f"| {b['game']} {b['players']}{name} | {', '.join(_br(a, n) for a, n in b['brs'])} | {_cell(t)} "
                     f"({_br(t['abstraction'], t['deals'])}) | {bi['field'] if bi else '-'} | {_cell(bi)}{by_b} "
                     f"| {b['verdict']} |")
    return "\n".join(lines) + "\n"


def _markdown(rows: list[dict]) -> str:
    return (render(rows) + "\nEach policy's best lower bound (the BR that gains most, of those above; a finer "
            "BR at a fixed budget can find less than a coarser one):\n\n" + render_bounds(rows))


def annotate(rows: list[dict], tables=None) -> list[str]:
    """Write each shipped table's finer measurements (its own and its best built-in's, same BR) into its
    metadata (``exploitability.finer``), which ``pvsim strategies GAME`` prints; the arrays are unchanged.
    ``rows`` may hold several judge seeds (:func:`judge_rows`): each seed's rows come together, in the
    order the seeds first appear. Returns the files rewritten."""
    from strategies.solved import shipped_tables

    by = _grouped(rows)
    seeds = list(dict.fromkeys(r["seed"] for r in rows))
    done = []
    for tf in shipped_tables() if tables is None else tables:
        pairs = [((a, n, sd), p) for (g, P, a, n, sd), p in by.items() if (g, P) == (tf.game, tf.n_players)]
        finer = [{"abstraction": a, "deals": n, "eval_deals": p["solved"]["eval_deals"], "seed": sd,
                  "gain": p["solved"]["gain"], "ci_low": p["solved"]["ci_low"], "ci_high": p["solved"]["ci_high"],
                  "builtin": p["builtin"]["field"], "builtin_gain": p["builtin"]["gain"],
                  "builtin_ci_low": p["builtin"]["ci_low"], "builtin_ci_high": p["builtin"]["ci_high"]}
                 for (a, n, sd), p in sorted(pairs, key=lambda kv: (seeds.index(kv[0][2]), ORDER.get(kv[0][0], 9),
                                                                     kv[0][1]))
                 if "solved" in p and "builtin" in p]
        if not finer:
            continue
        meta = tf.meta
        meta["exploitability"] = dict(meta.get("exploitability") or {}, finer=finer)
        tf.save(tf.path, meta=meta)
        done.append(str(tf.path))
    return done


def judge_rows(path: Path) -> list[dict]:
    """The rows of ``path`` and of every other judge file beside it (``finer*.json``: a second judge
    seed is run with ``--seed 7 --out results/solve/finer_seed7.json``), ``path``'s first."""
    files = [path] + sorted(p for p in path.parent.glob("finer*.json") if p.resolve() != path.resolve())
    return [r for f in files if f.exists() for r in json.loads(f.read_text())["rows"]]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", nargs="+", type=sizes.size, default=list(sizes.USUAL),
                    help="GAME:P (default: every shipped size)")
    ap.add_argument("--abstractions", nargs="+", default=["medium", "fine"])
    ap.add_argument("--deals", type=int, default=None, help="fitting deals a stage (default: BUDGET by game)")
    ap.add_argument("--eval-deals", type=int, default=None)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--executor", default="processes")
    ap.add_argument("--candidate", action="append", default=[], metavar="GAME:P=FILE",
                    help="also measure this table (a candidate for shipping) beside the shipped one")
    ap.add_argument("--builtin", action="append", default=[], metavar="GAME:P=FIELD",
                    help="also measure this built-in field; the least exploitable built-in under each BR is the "
                         "one the table is judged against")
    ap.add_argument("--no-solved", action="store_true", help="skip the shipped table (only candidates)")
    ap.add_argument("--out", default=str(OUT / "finer.json"))
    ap.add_argument("--annotate", action="store_true",
                    help="measure nothing: write the rows already in --out and in every finer*.json beside it "
                         "(other judge seeds) into each shipped table's metadata (pvsim strategies shows them)")
    ap.add_argument("--render", action="store_true",
                    help="measure nothing: rewrite the markdown beside --out from its rows (after rows were "
                         "relabelled by hand, say)")
    args = ap.parse_args(argv)
    extra = {"candidate": [], "builtin": []}  # (GAME:P, FILE or FIELD), the spec written as --games writes it
    for opt, pairs in extra.items():
        for text in getattr(args, opt):
            spec, eq, what = text.partition("=")
            try:
                spec = sizes.size(spec)
            except argparse.ArgumentTypeError as e:
                ap.error(f"--{opt} {text!r}: {e}")
            if not eq or not what:
                ap.error(f"--{opt} {text!r}: write GAME:P={'FILE' if opt == 'candidate' else 'FIELD'}")
            if spec not in args.games:
                ap.error(f"--{opt} {text!r} is for {spec}, which --games ({' '.join(args.games)}) leaves out")
            pairs.append((spec, what))
    path = Path(args.out)
    rows = json.loads(path.read_text())["rows"] if path.exists() else []
    done = {_row_key(r) for r in rows}
    new = []  # the rows this run measures
    if args.annotate:
        for f in annotate(judge_rows(path)):
            print(f"annotated {f}")
        return 0
    if args.render:
        write_text(path.with_suffix(".md"), _markdown(rows))
        print(f"wrote {path.with_suffix('.md')} from {len(rows)} rows")
        return 0
    for spec in args.games:
        game, P = sizes.split(spec)
        deals, eval_deals = BUDGET[game]
        deals, eval_deals = args.deals or deals, args.eval_deals or eval_deals
        for a in args.abstractions:
            fields = [] if args.no_solved else ["solved"]
            fields += [f"table:{file}" for s, file in extra["candidate"] if s == spec]
            builtins = [_best_builtin(game, P)] + [field for s, field in extra["builtin"] if s == spec]
            for field in fields + builtins:
                k = _key(game, P, field, a, deals, eval_deals, args.seed)
                if k in done:
                    continue
                r = measure(game, P, field, a, deals, eval_deals, args.seed, args.workers, args.executor)
                r["loadavg"] = os.getloadavg()
                rows.append(r)
                new.append(r)
                done.add(k)
                print(f"{game} {P}p {a:6s} {field}: {r['gain']:+.5f} [{r['ci_low']:+.5f}, {r['ci_high']:+.5f}] "
                      f"({r['wall_s']:.0f} s)", flush=True)
                rows = _merged(path, rows, new)  # another run or a hand may have changed the file meanwhile
                write_json(path, {"rows": rows})
                write_text(path.with_suffix(".md"), _markdown(rows))
    write_text(path.with_suffix(".md"), _markdown(rows))
    print(_markdown(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
