"""Playing the shipped ``solved`` tables: each asker's own answers beside answers shared.

A shipped table is a chain: its finest stage falls back to the coarser stage it
was refined from, which falls back to the built-in it started from, and every
stage's buckets put a built-in's choice first in their canonical order. Since
the ninth session one call shares what it computed from the observation
(``simcore.abstraction.with_answers``), so the chain asks each built-in once;
before, each stage and the fallback at its end asked it again (Estonian's
discard: best-potential three times). Setting
``simcore.abstraction._common.SHARE`` to False brings back the old way, bit for
bit the same play, so the two are timed side by side in one run. So is a third way
(``dense``): answers shared, but with ``simcore.abstraction.SKIP_EMPTY`` False,
so that a mixed table reads every row's probabilities and start share, as before
the eighteenth session, instead of skipping the buckets without an entry (most of
them: a shipped table holds mass in a few percent of its buckets). The fit has a fourth
(``whole``): ``simcore.exploit.BY_ROWS`` False, so that in each replay of a deal a field
seat is asked about every row again, as before the twentieth session, instead of only the
rows whose seat view the deviator's action changed (Russian and, since the fifty-fourth session,
Sviten declare a seat view):

- ``simulate``: deals per CPU-second of a field of ``solved`` at every seat
  (and of the game's default built-in field, for scale);
- ``fit``: fitting deals per CPU-second of seat 0's best response to a field of
  ``solved`` (coarse buckets, one pass): what ``pvsim exploit``, ``pvsim
  solve`` and ``bench_finer`` spend their time on;
- ``solve fit``: the same fit to the field a solve's iteration plays when it starts from the
  shipped table (its arrays as the average, ``simcore.solve.MixedTable``, on the table's own
  fallback), own and shared answers only. A solve's average orders every row it is asked about,
  where a table file orders only the rows with an entry: Russian's ``conceal`` (the order) and
  ``best-gain`` (the fallback) were both asked of every row until the twenty-sixth session's
  ``joint_answers``: ``apart`` shares answers but computes each policy alone
  (``simcore.abstraction._common.JOINT`` False), as before;
- ``one-play``: that solve fit with ``fit="one-play"`` (the twenty-seventh session's: every stage
  from one play of each deal, against the field's own later play), beside the backward fit
  (``shared``), answers shared.

CPU seconds of the process (the threads' together), best of ``--repeat``, the
two ways taken in turn; threads, so that the switch holds in every worker.

Usage::

    python -m experiments.bench_tables                   # every shipped size
    python -m experiments.bench_tables --games estonian:6 --sim-deals 65536
"""
from __future__ import annotations

import argparse
import time

from experiments import sizes


def _cpu(fn) -> float:
    c = time.process_time()
    fn()
    return time.process_time() - c


def _simulate(game, P, field, deals, workers, seed):
    from simcore import simulate

    return lambda: simulate(game, P, deals, field=field, seed=seed, workers=workers, executor="threads",
                            progress=False)


def _fit(game, P, deals, workers, seed, field="solved", fit="backward"):
    from simcore.api import _registry
    from simcore.exploit import fit_seat, resolve_abstractions
    from simcore.variants import get_variant

    def run():
        v = get_variant(game)
        name, abst = resolve_abstractions(v, P, "coarse")
        lineup = _registry().lineup(v, P, "solved", "solved") if field == "solved" else [_solve_field(v, P)] * P
        fit_seat(v, P, lineup, 0, abst, name, deals=deals, seed=seed, passes=1,
                 run={"workers": workers, "executor": "threads"}, top=0, fit=fit)

    return run


def _solve_field(v, P) -> dict:
    """The seat a solve's iteration plays when it starts from the shipped table of ``v`` at ``P``:
    each decision's arrays as the average (``MixedTable``) on the table's own fallback."""
    from simcore.solve import MixedTable
    from strategies import resolve
    from strategies.solved import shipped_tables

    tf = next(t for t in shipped_tables(v.name) if t.header["n_players"] == P)
    return {d: (f"fp-average[{d}]", MixedTable(tf.abstraction_for(v, d, P), tf.arrays[d],
                                                resolve(v, d, tf.fallback_spec(d)), start=tf.starts.get(d)))
            for d in tf.arrays}


WAYS = {"shared": (True, True, True, True), "own": (False, True, True, True), "dense": (True, False, True, True),
        "whole": (True, True, False, True), "apart": (True, True, True, False)}  # (SHARE, SKIP_EMPTY, BY_ROWS, JOINT)
FIT_ONLY = {"whole"}  # a switch of the fit alone: simulate is not timed that way
SOLVE_WAYS = ("own", "apart", "shared")  # the solve's field: what sharing saves there, and joint answers


def _way(name):
    import importlib

    import simcore.abstraction as abstraction
    from simcore.abstraction import _common

    (_common.SHARE, abstraction.SKIP_EMPTY, importlib.import_module("simcore.exploit").BY_ROWS,
     _common.JOINT) = WAYS[name]


def _timed(what: str, way: str) -> bool:
    """Whether run ``what`` is timed ``way``."""
    if what == "solve fit":
        return way in SOLVE_WAYS
    if what == "one-play":  # a way to fit, not a switch: timed with everything on
        return way == "shared"
    if way == "apart":  # a switch that matters where a table orders every row: the solve's field
        return False
    return not (what == "simulate" and way in FIT_ONLY)


def bench_game(game, P, sim_deals, fit_deals, workers, repeat) -> dict:
    """CPU seconds (best of ``repeat``) of each run, each way (:data:`WAYS`), and the built-in
    field's simulate."""
    made = {"simulate": lambda n, s: _simulate(game, P, "solved", n, workers, s),
            "fit": lambda n, s: _fit(game, P, n, workers, s),
            "solve fit": lambda n, s: _fit(game, P, n, workers, s, field="solve"),
            "one-play": lambda n, s: _fit(game, P, n, workers, s, field="solve", fit="one-play")}
    runs = {what: (lambda s, m=m, n=sim_deals if what == "simulate" else fit_deals: m(n, s))
            for what, m in made.items()}
    best = {}
    try:
        for way in WAYS:  # compile and warm every way
            _way(way)
            for what in runs:
                if _timed(what, way):
                    made[what](4096, 99)()
        _simulate(game, P, None, 4096, workers, 99)()
        for r in range(repeat):
            for what, make in runs.items():
                for way in WAYS:
                    if not _timed(what, way):
                        continue
                    _way(way)
                    t = _cpu(make(r))
                    best[(what, way)] = min(best.get((what, way), t), t)
            _way("shared")
            t = _cpu(_simulate(game, P, None, sim_deals, workers, r))
            best[("builtin", "shared")] = min(best.get(("builtin", "shared"), t), t)
    finally:
        _way("shared")
    return best


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="*", type=sizes.size, default=list(sizes.USUAL),
                    help="GAME:PLAYERS (default: every shipped size)")
    ap.add_argument("--sim-deals", type=int, default=1 << 17, help="simulate's deals (default 131,072)")
    ap.add_argument("--fit-deals", type=int, default=1 << 15, help="fitting deals a stage (default 32,768)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args(argv)
    print(f"a field of solved: CPU-seconds with each asker's own answers (own), with answers shared (shared), "
          f"and shared but reading every bucket (dense); the fit also asking every row of a replay (whole); "
          f"the fit to a solve's average table (solve fit), and fitted one-play (one-play); "
          f"{args.workers} threads, best of {args.repeat}; "
          f"simulate {args.sim_deals:,} deals, seat 0's coarse BR {args.fit_deals:,} fitting deals a stage")
    print(f"{'game':<12} {'simulate own':>13} {'dense':>7} {'shared':>7} {'x own':>6} {'x dense':>8} {'built-in':>9} "
          f"{'fit own':>9} {'dense':>7} {'shared':>7} {'x own':>6} {'x dense':>8} {'whole':>7} {'x whole':>8} "
          f"{'solve fit own':>14} {'apart':>7} {'shared':>7} {'x own':>6} {'x apart':>8} {'one-play':>9} "
          f"{'x one-play':>11}")
    for game, P in map(sizes.split, args.games):
        b = bench_game(game, P, args.sim_deals, args.fit_deals, args.workers, args.repeat)
        cols = []
        for what, width in (("simulate", 12), ("fit", 8)):
            o, d, s = b[(what, "own")], b[(what, "dense")], b[(what, "shared")]
            cols.append(f"{o:>{width}.1f}s {d:>6.1f}s {s:>6.1f}s {o / s:>6.2f} {d / s:>8.2f}")
        w = b[("fit", "whole")]
        so, sa, ss = b[("solve fit", "own")], b[("solve fit", "apart")], b[("solve fit", "shared")]
        op = b[("one-play", "shared")]
        print(f"{game + ':' + str(P):<12} {cols[0]} {b[('builtin', 'shared')]:>8.1f}s {cols[1]} {w:>6.1f}s "
              f"{w / b[('fit', 'shared')]:>8.2f} {so:>13.1f}s {sa:>6.1f}s {ss:>6.1f}s {so / ss:>6.2f} "
              f"{sa / ss:>8.2f} {op:>8.1f}s {ss / op:>11.2f}", flush=True)
    print("x own: own / shared (how many times less CPU the shared answers take); x dense: dense / shared (what "
          "skipping the buckets without an entry saves); x whole: whole / shared (what asking a field seat only "
          "about the rows the deviator's action changed saves); built-in: simulate of the game's default field, "
          "for scale; solve fit: the fit to a solve's average table started from the shipped one, x apart: what "
          "answering policies together (joint_answers: Russian's best-gain and conceal) saves there; x one-play: "
          "solve fit shared / one-play (what fitting every stage from one play of each deal saves)")


if __name__ == "__main__":
    main()
