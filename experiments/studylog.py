"""The provenance record of one experiment run, kept study by study.

An experiment that runs several studies writes ``provenance.json`` beside its
CSVs: the command, mode, seed, threads, git commit, package versions (from
:mod:`experiments.provenance`), its configuration, and each study's seconds
and parameters.
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from .outputs import write_json
from .provenance import git_commit, versions


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
