"""Where an experiment's cells run: here, one after another, or as one batch on many workers.

A cell is one independent run of a study (a table size, a policy, a field).
By default the cells run one after another in this process, each spread over
the worker threads. With ``--executor processes`` or ``--executor dask``
(``--scheduler tcp://HOST:8786`` for a running cluster) every cell of a
study is submitted at once, as one batch of tasks, and each runs whole on one
worker thread. A cell's blocks are dealt from its own seed and merged in block
order wherever they run, so the tables are bit-identical either way.

The experiments' ``main`` calls :func:`add_arguments` and :func:`configure_from`
(the game studies through :func:`experiments.studylog.study_parser` and
:func:`experiments.studylog.open_study`); a study calls :func:`run_cells` with a
module-level function (workers import it by name).
"""
from __future__ import annotations

import argparse

_SETTINGS: dict = {"executor": None, "workers": None, "scheduler": None}
OPTIONS = ("threads", "executor", "workers", "scheduler")  # what add_arguments adds


def _whole(text: str, low: int, what: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = None
    if n is None or n < low:
        raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}")
    return n


def count(text: str) -> int:
    """An argparse type: a positive integer (threads, workers, deals), or an error naming ``text``."""
    return _whole(text, 1, "a positive integer")


def seed(text: str) -> int:
    """An argparse type: a seed, a non-negative integer (as ``pvsim``'s ``--seed``), or an error
    naming ``text``."""
    return _whole(text, 0, "a non-negative integer")


def add_arguments(ap) -> None:
    """Where an experiment's command line runs its cells: ``--threads``, ``--executor``,
    ``--workers`` and ``--scheduler`` (:data:`OPTIONS`)."""
    ap.add_argument("--threads", type=count, default=None, help="worker threads (default: all cores)")
    ap.add_argument("--executor", choices=("threads", "processes", "dask"), default=None,
                    help="threads (default): cells one after another, each on all threads; processes or "
                         "dask: every cell of a study at once, one per worker")
    ap.add_argument("--workers", type=count, default=None, help="worker processes or Dask workers (default: all cores)")
    ap.add_argument("--scheduler", default=None,
                    help="a Dask scheduler address (tcp://HOST:8786): send the cells to that cluster")


def configure(executor=None, workers=None, scheduler=None) -> None:
    """Set where :func:`run_cells` runs cells (None: one after another, here)."""
    from simcore.engine import executors

    executor = executors.check_executor(executor, scheduler)
    _SETTINGS.update(executor=executor, workers=executors.check_workers(workers), scheduler=scheduler)


def configure_from(args) -> None:
    """:func:`configure` from parsed :func:`add_arguments` options."""
    configure(args.executor, args.workers, args.scheduler)


def batched() -> bool:
    """Whether cells go out as one batch (processes or Dask) rather than one after another."""
    return _SETTINGS["executor"] in ("processes", "dask")


def run_cells(fn, cells: list[dict], threads=None) -> list:
    """``fn(**cell, threads=...)`` for every cell, results in the order of ``cells``.

    One after another with ``threads`` worker threads each, or, when
    :func:`configure` named processes or Dask, all at once as one batch of
    tasks on one thread each. ``fn`` must be a module-level function.
    """
    if not batched():
        return [fn(**cell, threads=threads) for cell in cells]
    from simcore.engine import executors

    calls = [{**cell, "threads": 1} for cell in cells]
    return executors.run_batch(fn, calls, _SETTINGS["executor"], _SETTINGS["workers"], _SETTINGS["scheduler"],
                               labels=cells)



def compare_cell(threads=None, **kw):
    """One :func:`simcore.compare` run as a cell (keyword arguments as compare takes them)."""
    from simcore import compare

    return compare(**kw, threads=threads, progress=False)
