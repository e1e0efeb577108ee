"""The façade: runs named the way users name them.

The engine (:mod:`simcore.engine`) takes variant objects and resolved
strategies. This module is the one place that turns what a user writes (a
variant name and its options, policy specs such as
``pass=highest,discard=best-made``, a situation's cards) into those, and it is
what ``simcore.simulate``, ``compare``, ``analyze`` and the CLI call. Policies
live in the ``strategies`` package, which builds on the engine; importing it
here, and only here, keeps the engine free of it.
"""
from __future__ import annotations

from .engine.runner import (
    DEFAULT_BLOCK, AnalysisResult, ComparisonResult, SimulationResult, check_deals, check_situation,
    run_analysis, run_comparison, run_simulation,
)
from .variants import get_variant


def _registry():
    import strategies  # the built-in policies register themselves on import

    return strategies


def policies(variant, decision: str) -> dict:
    """The policies of ``variant``'s ``decision`` by name (entries with a description)."""
    return _registry().policies(get_variant(variant).name, decision)


def default_policy(variant, decision: str) -> str:
    """The policy a seat follows at ``decision`` when none is named."""
    return _registry().default_policy(get_variant(variant).name, decision)


def _check_players_type(n_players) -> None:
    """A player count that is not a whole number is a type error, not one of range."""
    from .engine.checks import is_whole

    if not is_whole(n_players):
        raise ValueError(f"the number of players must be a whole number (an int), got {n_players!r} "
                         f"({type(n_players).__name__})")


def _check_mapping(value, what: str, example: str) -> None:
    from collections.abc import Mapping

    if value is not None and not isinstance(value, Mapping):
        raise ValueError(f"{what} must be a dict such as {example}, got {value!r} ({type(value).__name__})")


def _variant(variant, options):
    _check_mapping(options, "options (the variant's rule options)", "{'scoring': 'points'}")
    if options:
        if not isinstance(variant, str):
            raise ValueError("give options with a variant name, or a variant object without options")
        return get_variant(variant, **options)
    return get_variant(variant)


def _situation(v, n_players, hero_seat, hand, board, known, fields):
    """The :class:`~simcore.engine.Situation` seen from ``hero_seat``: from the variant's
    setup, or around slots given directly (``known``), its known slots checked."""
    _check_players_type(n_players)
    _check_mapping(fields, "extra (the situation fields)", "{'passed': '7d'}")
    v.check_players(n_players)
    seat = v.check_seat(n_players, hero_seat)
    for what, cards in (("hand", hand), ("board", board)):
        if isinstance(cards, str) and not cards.strip():  # not "random cards" in disguise
            raise ValueError(f"{what} is empty: give cards such as 'As Ks', or None for random ones")
    fields = {k: x for k, x in (fields or {}).items() if x is not None}
    if known is None:  # setup checks the players, the seat and the fields (the base class)
        sit = v.setup(n_players, hand=hand, board=board, seat=seat, **fields)
    else:
        v.check_fields(fields)
        sit = v.situation_of(n_players, check_situation(v, n_players, known), seat, None, hand, board, **fields)
    check_situation(v, n_players, sit.known)
    return sit


def simulate(
    variant, n_players: int, n_deals: int = 100_000, seed: int = 0, *, hero=None, field=None,
    seats=None, hero_seat: int = 0, hand=None, board=None, known=None, threads=None, precision=None,
    block_size: int = DEFAULT_BLOCK, progress=None, extra=None, options=None, match: bool = False,
    workers=None, executor=None, scheduler=None, checkpoint=None, resume=None, checkpoint_every=None,
) -> SimulationResult:
    """Play ``n_deals`` deals and report every seat's payoff (its pot share in a pot game).

    Parameters
    ----------
    variant : a variant name ("estonian") or object (``get_variant("tapiola", scoring="points")``).
    n_players : players at the table.
    n_deals : deals to play; with ``precision`` the cap on deals.
    seed : the run's seed (same seed, same numbers, at any thread count).
    hero, field, seats : policy specs for seat ``hero_seat``, the other seats,
        and {seat: spec}; ``"pass=highest,discard=best-made"`` or a dict.
    hero_seat : the seat that ``hero``, ``hand`` and the situation fields are about.
    hand, board : cards fixed for the hero seat and the board (strings or arrays).
    extra : the variant's situation fields ({"passed": "7d"}).
    options : the variant's rule options ({"scoring": "points"}), with a name.
    workers : threads or processes that play blocks (default: all cores). ``threads`` is its
        alias, and with no executor named it also means the thread pool.
    executor : "threads", "processes" or "dask"; None chooses (processes when the
        run can travel to them and has enough blocks, else threads).
    scheduler : a Dask scheduler address ("tcp://host:8786") or Client; implies "dask".
    precision : stop once every seat's 95% half-width is at most this.
    match : also report match chances (variants with a match target).
    checkpoint : a file to save the run's progress to every ``checkpoint_every``
        seconds (default 5); ``resume`` continues a run from such a file (with the
        same variant, seed, strategies, block size, deals and pvsim version).

    Examples
    --------
    >>> r = simulate("holdem", 2, 20000, seed=1, hand="Ah Ad", progress=False)
    >>> bool(0.83 < r.table().share[0] < 0.87)
    True
    """
    check_deals(n_deals)
    v = _variant(variant, options)
    sit = _situation(v, n_players, hero_seat, hand, board, known, extra)
    known, presets = sit.known, dict(sit.presets)
    reg = _registry()
    lu = reg.lineup(v, n_players, hero, field, seats, hero_seat=hero_seat)
    return run_simulation(v, n_players, lu, n_deals, seed, known=known, presets=presets,
                          labels=[reg.spec_label(s) for s in lu], threads=threads, precision=precision,
                          block_size=block_size, progress=progress, match=match, workers=workers,
                          executor=executor, scheduler=scheduler, checkpoint=checkpoint, resume=resume,
                          checkpoint_every=checkpoint_every)


def compare(
    variant, n_players: int, n_deals: int = 100_000, seed: int = 0, *, a=None, b=None, field=None,
    seats=None, hero_seat: int = 0, hand=None, board=None, known=None, threads=None, precision=None,
    block_size: int = DEFAULT_BLOCK, progress=None, extra=None, options=None,
    workers=None, executor=None, scheduler=None, checkpoint=None, resume=None, checkpoint_every=None,
) -> ComparisonResult:
    """Seat ``hero_seat`` plays policy ``a``, then ``b``, on the same deals; the rest as given.

    The difference a - b comes with its own paired interval, far tighter than
    that of two separate runs. Executor and checkpoint arguments as in :func:`simulate`.
    """
    check_deals(n_deals)
    v = _variant(variant, options)
    sit = _situation(v, n_players, hero_seat, hand, board, known, extra)
    known, presets = sit.known, dict(sit.presets)
    reg = _registry()
    la = reg.lineup(v, n_players, a, field, seats, hero_seat=hero_seat)
    lb = reg.lineup(v, n_players, b, field, seats, hero_seat=hero_seat)
    other = (hero_seat + 1) % n_players
    labels = (reg.spec_label(la[hero_seat]), reg.spec_label(lb[hero_seat]),
              reg.spec_label(la[other]) if n_players > 1 else "")
    return run_comparison(v, n_players, la, lb, n_deals, seed, hero_seat=hero_seat, known=known,
                          presets=presets, labels=labels, threads=threads, precision=precision,
                          block_size=block_size, progress=progress, workers=workers, executor=executor,
                          scheduler=scheduler, checkpoint=checkpoint, resume=resume,
                          checkpoint_every=checkpoint_every)


def analyze(
    variant, n_players: int, hand=None, board=None, *, decision: str | None = None,
    n_deals: int = 2_000_000, min_deals: int = 1 << 15, seed: int = 0, hero=None, field=None,
    seats=None, hero_seat: int = 0, known=None, threads=None, block_size: int = DEFAULT_BLOCK,
    progress=None, stop_early: bool = True, extra=None, options=None,
    workers=None, executor=None, scheduler=None, checkpoint=None, resume=None, checkpoint_every=None,
) -> AnalysisResult:
    """Every legal action of the hero's decision in a situation, on the same deals.

    The rest of the hand, the hero's later decisions included, is played by
    the chosen strategies. Stops once the best action is ahead of every other
    at 95% (after ``min_deals``), or at ``n_deals``. For a decision taken in
    several rounds, the situation says which round (the variant's
    ``analysis_round``), and only that round is forced. Executor and
    checkpoint arguments as in :func:`simulate`.
    """
    check_deals(n_deals)
    v = _variant(variant, options)
    sit = _situation(v, n_players, hero_seat, hand, board, known, extra)
    reg = _registry()
    lu = reg.lineup(v, n_players, hero, field, seats, hero_seat=hero_seat)
    rnd = None
    if v.decisions:
        name = decision or v.default_decision(sit)
        dec = v.decision(name)
        if dec.rounds > 1:
            rnd = v.analysis_round(dec.name, sit)
    else:
        if decision is not None:
            raise ValueError(f"{v.title} has no decisions; got decision {decision!r}")
        name = None
    return run_analysis(v, n_players, lu, name, n_deals, seed, hero_seat=hero_seat, known=sit.known,
                        presets=dict(sit.presets), situation=sit, round=rnd, min_deals=min_deals, threads=threads,
                        block_size=block_size, progress=progress, stop_early=stop_early, workers=workers,
                        executor=executor, scheduler=scheduler, checkpoint=checkpoint, resume=resume,
                        checkpoint_every=checkpoint_every)


def ship_strategy(variant, seat: int, decision: str, label: str, fn):
    """How a resolved policy travels to worker processes by name (see
    :func:`simcore.engine.executors.set_strategy_codec`): the module to import
    there before resolving ``label`` again, or None when that would not give ``fn``."""
    from .engine.executors import by_reference

    entry = _registry().policies(variant.name, decision).get(label.partition(":")[0])
    if entry is None:
        return None
    if entry.factory is not None:  # random, rollout:N: closures built per run
        ref = by_reference(entry.factory)
        return ref[0] if ref is not None else None
    module = getattr(fn, "__module__", "") or ""
    if entry.function is fn and module.split(".")[0] == "strategies":
        return module  # a built-in policy made by a helper: importing its module registers it
    return None


def unship_strategy(variant, decision: str, label: str, module: str):
    """In a worker: ``(label, fn)`` for a policy shipped by :func:`ship_strategy`."""
    import importlib

    importlib.import_module(module)
    return _registry().resolve(variant, decision, label)


def _teach_workers():
    from .engine import executors

    executors.set_strategy_codec(ship_strategy, unship_strategy, preload=("simcore.api", "strategies"))


_teach_workers()

RUNS = {"simulate": simulate, "compare": compare, "analyze": analyze}


def run_cell(cell: dict, imports=()):
    """One cell of a :func:`sweep`, played on one thread wherever it runs."""
    import importlib

    for module in imports:  # modules that register the cell's own policies
        importlib.import_module(module)
    kw = dict(cell)
    run = RUNS[kw.pop("run", "simulate")]
    return run(**kw, workers=1, executor="threads", progress=False)


def sweep(cells, *, executor: str | None = None, workers=None, scheduler=None, imports=()) -> list:
    """Many independent runs (an experiment's cells) sent as one batch of tasks.

    Each cell is a dict of keyword arguments for :func:`simulate` (or, with
    ``"run": "compare"`` or ``"analyze"``, for those), naming variants and
    policies by name (a worker knows the built-in ones and those that the
    modules named in ``imports`` register). Every cell runs whole on one worker, on one thread, so
    its numbers are those of the same run made alone; the cells run side by
    side on ``executor`` ("processes" by default, "dask" with ``scheduler``,
    or "threads"). Returns the results in the order of ``cells``. A cell that
    fails raises its error after the others finish, noting which cell it was.

    Examples
    --------
    >>> rs = sweep([{"variant": "holdem", "n_players": p, "n_deals": 2000} for p in (2, 3)],
    ...            executor="threads")
    >>> [r.n_players for r in rs]
    [2, 3]
    """
    from .engine import executors

    cells = [dict(c) for c in cells]
    for i, c in enumerate(cells):
        if c.get("run", "simulate") not in RUNS:
            raise ValueError(f"cell {i}: unknown run {c['run']!r}; choose from {', '.join(RUNS)}")
    name = executors.check_executor(executor, scheduler) or "processes"
    workers = executors.check_workers(workers)
    return executors.run_batch(run_cell, [{"cell": c, "imports": tuple(imports)} for c in cells], name, workers,
                               scheduler, labels=cells)


__all__ = ["simulate", "compare", "analyze", "sweep", "get_variant", "policies", "default_policy"]
