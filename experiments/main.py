"""pvsim's main job: the experiments, each answering one question.

``python -m experiments.main`` runs every experiment in its quick mode (a few
minutes on 2 cores) and prints the headline tables; ``--full`` produces the
committed results. Results go to ``results/<experiment>/`` below the current
folder. After the games, ``solved`` (:mod:`experiments.solved`) re-checks the
shipped solved tables (about a minute; ``--full`` also re-solves them); its charts go
beside each game's, its tables to ``results/solve/``.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from .cells import OPTIONS as CELL_OPTIONS, add_arguments as add_cell_arguments


EXPERIMENTS = ("estonian", "slovak", "tapiola", "sviten", "russian", "solved")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.main", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--full", action="store_true", help="the full runs behind the committed results")
    add_cell_arguments(ap)
    ap.add_argument("--only", choices=EXPERIMENTS, action="append",
                    help="run only this experiment (repeatable)")
    ap.add_argument("--results", type=Path, default=Path("results"), help="results folder (default ./results)")
    args = ap.parse_args(argv)

    from . import estonian_pass, russian_placement, slovak_exchange, solved, sviten_draw, tapiola_discards

    # solved: the shipped solved tables re-checked (briefly; --full re-solves them), after the games
    jobs = {"estonian": estonian_pass, "slovak": slovak_exchange, "tapiola": tapiola_discards,
            "sviten": sviten_draw, "russian": russian_placement, "solved": solved}
    for name, module in jobs.items():
        if args.only and name not in args.only:
            continue
        sub = ["--results", str(args.results)] if name == "solved" else ["--out", str(args.results / name)]
        if args.full:
            sub.append("--full")
        for flag in CELL_OPTIONS:
            if getattr(args, flag) is not None:
                sub += [f"--{flag}", str(getattr(args, flag))]
        print(f"\n=== {name}: {module.__doc__.strip().splitlines()[0]}", flush=True)
        t = time.perf_counter()
        module.main(sub)
        where = args.results / ("solve" if name == "solved" else name)
        print(f"=== {name} done in {time.perf_counter() - t:.0f} s; results in {where}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
