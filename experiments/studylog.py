"""The provenance record of one experiment run, kept study by study.

An experiment that runs several studies writes ``provenance.json`` beside its
CSVs: the command, mode, seed, threads, git commit, package versions (from
:mod:`experiments.provenance`), its configuration, and each study's seconds
and parameters. :func:`study_parser` and :func:`open_study` give the game
studies their shared command line and begin a run: cells configured, the
output folder made, the record opened.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from . import cells
from .outputs import write_json
from .provenance import git_commit, versions

ROOT = Path(__file__).resolve().parents[1]


class StudyLog:
    """Provenance of one run of ``prog``; ``record`` is what :meth:`write` saves.

    Parameters
    ----------
    prog : the module as run ("python -m experiments.russian_placement").
    argv : the arguments given (None: ``sys.argv[1:]``).
    full : whether the run is in full mode (else quick).
    seed : the run's seed.
    threads : worker threads.
    config : the mode's configuration (deal counts, table sizes).
    """

    def __init__(self, prog: str, argv, *, full: bool, seed: int, threads: int, config: dict):
        self.record = {
            "command": " ".join([prog] + list(argv if argv is not None else sys.argv[1:])),
            "mode": "full" if full else "quick", "seed": seed, "threads": threads,
            "git_commit": git_commit(), "versions": versions(), "config": config, "studies": {},
        }
        self.start = time.perf_counter()

    def keep_studies(self, path: Path) -> None:
        """Keep the studies recorded in an earlier ``path`` of the same mode (a run of only some studies)."""
        if path.exists():
            old = json.loads(path.read_text())
            if old.get("mode") == self.record["mode"]:
                self.record["studies"] = old.get("studies", {})

    def done(self, name: str, t0: float, **extra) -> None:
        """Record study ``name``, begun at ``perf_counter`` time ``t0``, with ``extra``; say so on stderr."""
        self.record["studies"][name] = {"seconds": round(time.perf_counter() - t0, 1), **extra}
        print(f"{name}: {time.perf_counter() - t0:.1f} s", file=sys.stderr)

    def write(self, path: Path) -> float:
        """Write the record, with the run's total seconds, to ``path``; return those seconds."""
        self.record["seconds"] = round(time.perf_counter() - self.start, 1)
        write_json(path, self.record)
        return self.record["seconds"]


def study_parser(module: str, description: str, *, full_help: str, out: str, seed: int,
                 seed_help: str | None = None, **parser_kw) -> argparse.ArgumentParser:
    """The command line every game's study shares, for ``python -m experiments.<module>``: ``--full``
    (``full_help`` says what it runs), where its cells run (:func:`experiments.cells.add_arguments`),
    ``--seed`` (default ``seed``) and ``--out``, a folder under the repository's ``results/``
    (``out``) wherever it is run from. The study adds its own flags to what this returns."""
    ap = argparse.ArgumentParser(prog=f"python -m experiments.{module}", description=description, **parser_kw)
    ap.add_argument("--full", action="store_true", help=full_help)
    cells.add_arguments(ap)
    ap.add_argument("--seed", type=cells.seed, default=seed, help=seed_help or f"the run's seed (default {seed})")
    ap.add_argument("--out", type=Path, default=ROOT / "results" / out,
                    help=f"folder of the CSVs, charts and provenance.json (default results/{out})")
    return ap


def open_study(ap: argparse.ArgumentParser, args: argparse.Namespace, argv, quick: dict, full: dict):
    """Begin a run of the study whose command line ``ap`` parsed into ``args``: set where its
    cells run, make ``--out``, and open its provenance record.

    Returns the mode's configuration (``full`` with ``--full``, else ``quick``), the worker threads
    (``--threads``, else one per core), the output folder and the :class:`StudyLog`."""
    from simcore.engine.executors import default_workers

    cells.configure_from(args)
    cfg = full if args.full else quick
    threads = args.threads or default_workers()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    log = StudyLog(ap.prog, argv, full=args.full, seed=args.seed, threads=threads, config=cfg)
    return cfg, threads, out, log
