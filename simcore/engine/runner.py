"""Runs: simulate, compare (paired), analyze (a decision's actions, paired).

The engine takes variant objects and resolved strategies (per seat,
``{decision: (label, function)}``); policy names are resolved by the façade,
:mod:`simcore.api`, which the CLI and ``simcore.simulate`` use.

A run is a :class:`~.blocks.Job` whose blocks :func:`~.schedule.map_blocks`
plays on a pool (:mod:`.executors`), each block reduced to running sums
(:mod:`.stats`) and merged strictly in block order, so a run is bit-identical
at any worker count, and memory stays flat however many deals are asked for.
The results are in :mod:`.results`, the input checks in :mod:`.checks`.

This module's names from before the engine was split (``Job``, ``map_blocks``,
the result classes, the checks, ...) are still importable from here.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .blocks import DEFAULT_BLOCK, Job, deal_block, play_block, play_tables, seat_streams
from .checks import (
    check_block_memory, check_block_size, check_deals, check_every, check_flag, check_min_deals, check_precision,
    check_seed, check_situation, check_workers,
)
from .executors import BlockTask, default_workers
from .match import PayoffRows, match_chances
from .results import AnalysisResult, ComparisonResult, SimulationResult, json_ready
from .schedule import RunInfo, map_blocks
from .stats import MIN_STOP_DEALS, PairedStats, SeatStats, Z95
from .variant import Situation, Variant

__all__ = [
    "run_simulation", "run_comparison", "run_analysis", "SeatReduce", "PairedReduce", "NothingToDecide",
    # from the modules the engine was split into
    "DEFAULT_BLOCK", "Job", "deal_block", "play_block", "play_tables", "seat_streams", "map_blocks", "RunInfo",
    "SimulationResult", "ComparisonResult", "AnalysisResult", "json_ready", "check_deals", "check_seed",
    "check_block_size", "check_flag", "check_situation", "default_workers",
]


def _execute(job: Job, n_deals: int, reduce, merge, done, threads, progress, label, run=None):
    """A job's blocks through map_blocks, each reduced to its statistics.

    ``run`` holds the executor settings (workers, executor, scheduler, checkpoint).
    """
    run = dict(run or {})
    return map_blocks(BlockTask(job, reduce), n_deals, job.block_size, merge, threads=threads, done=done,
                      progress=progress, label=label, seed=job.seed, **run)


def _run(job, n_deals, reduce, merge, done, threads, progress, make_result, run=None):
    """_execute, then make_result(acc, info); on an error the finished part rides along."""
    try:
        acc, info = _execute(job, n_deals, reduce, merge, done, threads, progress, job.variant.name, run)
    except Exception as e:
        if hasattr(e, "partial"):
            e.partial_result = make_result(*e.partial)
            info = e.partial[1]
            if hasattr(e, "add_note"):
                e.add_note(f"{info.n_deals:,} deals finished before the error; see .partial_result")
        raise
    return make_result(acc, info)


class NothingToDecide(ValueError):
    """An analysis whose decision offers the hero one legal action (or none) in the situation:
    there is no question to answer, so nothing is played."""


def _run_settings(kind: str, job: Job, n_deals: int, workers, executor, scheduler, checkpoint, resume,
                  checkpoint_every, **identity) -> dict:
    """map_blocks' executor and checkpoint arguments for a run (see run_simulation)."""
    from .checkpoint import DEFAULT_EVERY, Checkpoint, run_header

    ckpt = None
    check_every(checkpoint_every)
    if job.block_size > DEFAULT_BLOCK:  # the default always runs; a bigger block must fit in memory
        check_block_memory(job.variant, job.n_players, len(job.lineups), job.block_size, n_deals,
                           check_workers(workers) or default_workers())
    if checkpoint is not None or resume is not None:
        every = DEFAULT_EVERY if checkpoint_every is None else checkpoint_every
        ckpt = Checkpoint(run_header(kind, job, n_deals, **identity), checkpoint, resume, every)
    return {"workers": workers, "executor": executor, "scheduler": scheduler, "checkpoint": ckpt}


def _merge(a, b):
    """Fold block statistics ``b`` into ``a`` (SeatStats or PairedStats)."""
    a.merge(b)
    return a


def _reached(precision, n: int, half_width: float):
    """Did a stopping rule's run reach its precision? None when it had none."""
    if precision is None:
        return None
    return bool(n >= MIN_STOP_DEALS and half_width <= precision)


@dataclass(frozen=True)
class SeatReduce:
    """A simulation block's outcomes -> [SeatStats, PayoffRows or None]; picklable, so
    that worker processes can run it."""

    parts: tuple
    match: bool

    def __call__(self, outcomes):
        o = outcomes[0]
        return [SeatStats.of_outcome(o, self.parts), PayoffRows.of_block(o.payoffs) if self.match else None]


@dataclass(frozen=True)
class PairedReduce:
    """A paired block's outcomes -> PairedStats of ``seat``; picklable."""

    seat: int

    def __call__(self, outcomes):
        return PairedStats.of_outcomes(outcomes, self.seat)


def _both(a, b):
    """Merge (SeatStats, PayoffRows or None) pairs."""
    a[0].merge(b[0])
    if a[1] is not None:
        a[1].merge(b[1])
    return a


# -- simulate ----------------------------------------------------------------


def run_simulation(variant: Variant, n_players: int, lineup, n_deals: int, seed: int = 0, *,
                   known: np.ndarray, presets: dict | None = None, labels=None, threads=None,
                   precision=None, block_size: int = DEFAULT_BLOCK, progress=None,
                   match: bool = False, workers=None, executor=None, scheduler=None, checkpoint=None,
                   resume=None, checkpoint_every=None) -> SimulationResult:
    """Play ``n_deals`` deals with a resolved lineup and report every seat's payoff.

    ``match`` keeps the distribution of per-deal payoff rows and reports each
    seat's chance of winning a match to the variant's ``match_target``.
    ``workers`` (alias ``threads``), ``executor`` and ``scheduler`` say where
    blocks run (see :func:`map_blocks`); ``checkpoint`` is a file the merged
    statistics are saved to every ``checkpoint_every`` seconds (default 5),
    ``resume`` a checkpoint file to continue (see :mod:`simcore.engine.checkpoint`).
    """
    check_deals(n_deals)
    check_precision(precision)
    check_flag(match, "match")
    if match and variant.match_target is None:
        raise ValueError(f"{variant.title} has no match target: match chances are not defined")
    job = Job(variant, n_players, [lineup], known, check_seed(seed), check_block_size(block_size),
              [presets or {}])
    done = None
    if precision is not None:
        done = lambda acc: acc[0].n >= MIN_STOP_DEALS and acc[0].max_half_width() <= precision  # noqa: E731
    parts = tuple(variant.parts)
    reduce = SeatReduce(parts, bool(match))
    run = _run_settings("simulate", job, n_deals, workers, executor, scheduler, checkpoint, resume,
                        checkpoint_every, precision=precision, match=bool(match))

    def make(acc, info):
        stats = acc[0] if acc else SeatStats(n_players, len(variant.hands), parts)
        chances = None
        if match and acc and stats.n:
            chances = match_chances(acc[1], variant.match_target)
        return SimulationResult(variant.name, n_players, int(seed), list(labels or [""] * n_players), stats,
                                info, variant.payoff_unit, tuple(variant.hands), dict(variant.opts),
                                dict(variant.part_groups), chances,
                                precision=precision,
                                precision_reached=_reached(precision, stats.n, stats.max_half_width()),
                                hand_kinds=tuple(variant.hand_kinds))

    return _run(job, n_deals, reduce, _both, done, threads, progress, make, run)


# -- compare ------------------------------------------------------------------


def run_comparison(variant: Variant, n_players: int, lineup_a, lineup_b, n_deals: int, seed: int = 0, *,
                   hero_seat: int = 0, known: np.ndarray, presets: dict | None = None,
                   labels=("", "", ""), threads=None, precision=None, block_size: int = DEFAULT_BLOCK,
                   progress=None, workers=None, executor=None, scheduler=None, checkpoint=None, resume=None,
                   checkpoint_every=None) -> ComparisonResult:
    """Seat ``hero_seat`` plays lineup a, then b, on the same deals.

    ``labels`` names (a, b, the field) for the tables. Executor and checkpoint
    arguments as in :func:`run_simulation`.
    """
    check_deals(n_deals)
    check_precision(precision)
    job = Job(variant, n_players, [lineup_a, lineup_b], known, check_seed(seed),
              check_block_size(block_size), [presets or {}, presets or {}])
    done = None
    if precision is not None:
        done = lambda acc: acc.n >= MIN_STOP_DEALS and Z95 * acc.diff(0, 1)[1] <= precision  # noqa: E731
    run = _run_settings("compare", job, n_deals, workers, executor, scheduler, checkpoint, resume,
                        checkpoint_every, hero_seat=hero_seat, precision=precision)

    return _run(job, n_deals, PairedReduce(int(hero_seat)), _merge, done, threads, progress,
                lambda acc, info: ComparisonResult(variant.name, n_players, int(seed), labels[0], labels[1],
                                                   labels[2], acc or PairedStats(2), info, hero_seat,
                                                   variant.payoff_unit, dict(variant.opts),
                                                   precision=precision, precision_reached=_reached(
                                                       precision, acc.n if acc else 0,
                                                       Z95 * acc.diff(0, 1)[1] if acc else np.inf)), run)


# -- analyze ------------------------------------------------------------------


def run_analysis(variant: Variant, n_players: int, lineup, decision: str | None, n_deals: int = 2_000_000,
                 seed: int = 0, *, hero_seat: int = 0, known: np.ndarray, presets: dict | None = None,
                 situation: Situation | None = None, round: int | None = None, min_deals: int = 1 << 15,
                 threads=None,
                 block_size: int = DEFAULT_BLOCK, progress=None, stop_early: bool = True, workers=None,
                 executor=None, scheduler=None, checkpoint=None, resume=None,
                 checkpoint_every=None) -> AnalysisResult:
    """Every action the variant offers seat ``hero_seat`` at ``decision``, on the same deals.

    ``round`` forces one round of a repeated decision (None: the decision
    key without a round, which a one-round decision uses). ``situation``
    (what the variant's ``setup`` gave) is what the analysis hooks see; None
    makes one of ``known`` and ``presets``. Executor and checkpoint
    arguments as in :func:`run_simulation`.
    """
    check_deals(n_deals)
    check_min_deals(min_deals)
    check_flag(stop_early, "stop_early")
    presets = dict(presets or {})
    if decision is not None:
        dec = variant.decision(decision)
        if situation is None:
            situation = variant.situation_of(n_players, known, hero_seat, presets)
        actions = variant.analysis_actions(dec.name, situation)
        labels = [variant.analysis_label(dec.name, a, situation) for a in actions]
        if len(actions) < 2:  # no question: never play millions of deals to "separate" one action
            at = f"{variant.name} {dec.name}" + (f" (round {int(round) + 1})" if round is not None else "")
            raise NothingToDecide(
                f"nothing to decide: at {at} seat {hero_seat} has "
                + (f"one legal action here ({labels[0]})" if labels else "no legal action here")
                + "; the situation's value is what simulate gives for it (pvsim simulate with the same "
                  "situation flags)")
        key = (hero_seat, dec.name) if round is None else (hero_seat, dec.name, int(round))
        forced = [{**presets, key: a} for a in actions]
        conditions = tuple(variant.analysis_conditions(dec.name, situation))
    else:
        forced, labels, conditions = [presets], ["play"], ()
    job = Job(variant, n_players, [lineup] * len(forced), known, check_seed(seed), check_block_size(block_size),
              forced)
    reduce = PairedReduce(int(hero_seat))

    done = None
    if stop_early and len(forced) > 1:
        # however small min_deals, never before MIN_STOP_DEALS: a lucky start is no separation
        done = lambda acc: acc.n >= max(min_deals, MIN_STOP_DEALS) and acc.separated()  # noqa: E731
    run = _run_settings("analyze", job, n_deals, workers, executor, scheduler, checkpoint, resume,
                        checkpoint_every, hero_seat=hero_seat, decision=decision, round=round,
                        min_deals=min_deals if done is not None else None, stop_early=bool(stop_early))

    def make(acc, info):
        stats = acc or PairedStats(len(forced))
        return AnalysisResult(variant.name, n_players, int(seed), decision, labels, stats, info,
                              stats.separated() if len(forced) > 1 else True, hero_seat, round,
                              variant.payoff_unit, dict(variant.opts), conditions)

    return _run(job, n_deals, reduce, _merge, done, threads, progress, make, run)
