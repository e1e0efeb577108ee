"""Runs: simulate, compare (paired), analyze (a decision's actions, paired).

The engine takes variant objects and resolved strategies (per seat,
``{decision: (label, function)}``); policy names are resolved by the façade,
:mod:`simcore.api`, which the CLI and ``simcore.simulate`` use.

A run is split into fixed-size blocks of deals. Block ``b`` has its own seed
streams (see :func:`deal.block_seeds`), is dealt at once, goes through the
variant's decisions and showdown, and is reduced to running sums. Blocks run
on a thread pool (the numba kernels release the GIL) and are merged strictly
in block order, so a run is bit-identical at any thread count, and memory
stays flat however many deals are asked for.
"""
from __future__ import annotations

import math
import os
import sys
import time
from dataclasses import dataclass

import numpy as np

from .deal import block_seeds, chance_draws, check_known, deal
from .match import MatchChances, PayoffRows, match_chances
from .stats import MIN_INTERVAL_DEALS, MIN_STOP_DEALS, PairedStats, SeatStats, Z95, interval
from .variant import Outcome, Table, Variant

DEFAULT_BLOCK = 1 << 14
# The default executor moves a run from threads to worker processes once it has
# run this long (s) with at least UPGRADE_LEFT (s) to go: starting processes
# costs about a second (see the README's measurements).
UPGRADE_AFTER = 1.0
UPGRADE_LEFT = 3.0


def default_threads() -> int:
    return os.cpu_count() or 1


def deal_block(variant: Variant, known: np.ndarray, n_deals: int, n_players: int,
               rng: np.random.Generator, repeat: int = 1):
    """Deal one block: ``(cards (n, n_slots) int8, chance (n, k) uint32 or None)``.

    ``known`` is (n_slots,) or (n, n_slots) with -1 for random slots; with
    ``repeat`` each row of a 2-D ``known`` stands for that many consecutive
    deals (see :func:`~simcore.engine.deal.deal`). The chance draws
    (``variant.n_chance``) come from ``rng`` after the cards.
    """
    cards = deal(known, n_deals, rng, repeat)
    return cards, chance_draws(n_deals, variant.n_chance(n_players), rng)


def play_block(variant: Variant, cards: np.ndarray, n_players: int, lineup, rngs,
               forced: dict | None = None, chance: np.ndarray | None = None,
               record: bool = False) -> Outcome:
    """Play a dealt block to the showdown with one lineup.

    Parameters
    ----------
    variant : the variant object.
    cards : (n, n_slots) int8 dealt slots.
    lineup : per seat {decision: (label, function)}.
    rngs : per seat, a numpy Generator for randomised strategies.
    forced : {(seat, decision[, round]): (n,) int64 actions, -1 where free}.
    chance : (n, k) uint32 chance draws (see :func:`deal_block`).
    record : also return every decision's actions in ``outcome.actions``.
    """
    return play_tables(variant, cards, [Table(variant, n_players, lineup, rngs, forced or {}, chance, record)])[0]


def play_tables(variant: Variant, cards: np.ndarray, tables: list[Table]) -> list[Outcome]:
    """Play a dealt block to the showdown once per table (alternatives of a comparison
    or a rollout; see :meth:`Variant.play_alternatives`), one Outcome each."""
    outs = variant.play_alternatives(cards, tables[0].n_players, tables)
    for out, table in zip(outs, tables):
        out.unit, out.total = variant.payoff_unit, variant.payoff_total
        if table.record:
            out.actions = table.actions
    return outs


def seat_streams(seeds, n_players: int) -> list[np.random.Generator]:
    """The seats' strategy streams of a block (from :func:`block_seeds`)."""
    return [np.random.Generator(np.random.PCG64(s)) for s in seeds[1 : 1 + n_players]]


@dataclass
class Job:
    """Everything a block needs; blocks differ only by their index."""

    variant: Variant
    n_players: int
    lineups: list  # one lineup (per seat {decision: (label, fn)}) per alternative
    known: np.ndarray  # (n_slots,) int8
    seed: int
    block_size: int
    forced: list  # one {(seat, decision[, round]): action} per alternative
    record: bool = False  # outcomes carry every decision's actions

    def deal(self, b: int, n: int):
        """Block ``b``'s cards, chance draws and seed streams: ``(cards, chance, seeds)``."""
        seeds = block_seeds(self.seed, b, self.n_players)
        rng = np.random.Generator(np.random.PCG64(seeds[0]))
        cards, chance = deal_block(self.variant, self.known, n, self.n_players, rng)
        return cards, chance, seeds

    def play(self, cards, chance, seeds) -> list[Outcome]:
        """Every alternative played on the same dealt block."""
        n = cards.shape[0]
        # Fresh streams per alternative: the field draws the same numbers
        # under every alternative (common random numbers).
        return play_tables(self.variant, cards, [
            Table(self.variant, self.n_players, lineup, seat_streams(seeds, self.n_players),
                  {k: np.full(n, a, dtype=np.int64) for k, a in forced.items()}, chance, self.record)
            for lineup, forced in zip(self.lineups, self.forced)])

    def run_block(self, b: int, n: int) -> list[Outcome]:
        return self.play(*self.deal(b, n))


@dataclass
class RunInfo:
    n_deals: int
    seconds: float
    interrupted: bool
    threads: int  # workers: threads or processes, whichever the executor
    seed: int
    block_size: int
    executor: str = "threads"
    resumed_deals: int = 0  # deals taken from a checkpoint (not played in this session)


def map_blocks(run_block, n_deals: int, block_size: int, merge, *, threads=None, done=None,
               progress=False, label: str = "", seed: int = 0, workers=None, executor=None,
               scheduler=None, checkpoint=None):
    """Run ``run_block(b, n)`` for every block on a pool of workers; merge in block order.

    This is the engine's execution loop, public for experiments that need their
    own per-block reduction (block b covers deals b*block_size onwards, n of them).
    At most 2 x workers blocks are in flight, so memory stays flat; ``done(acc)``
    may stop the run early (checked on the merged prefix, so the stop is the same
    at any worker count). Ctrl-C keeps the merged prefix and flags the run
    interrupted; another error is raised with ``.partial = (acc, info)``.

    Parameters
    ----------
    workers : threads or processes that run blocks (default: all cores). ``threads`` is its
        alias, and with no executor named it also means the thread pool.
    executor : "threads", "processes" or "dask" (see :mod:`simcore.engine.executors`);
        None chooses. Processes and Dask need a ``run_block`` that pickles: a
        module-level function or an :class:`~simcore.engine.executors.BlockTask`.
    scheduler : a Dask scheduler address ("tcp://host:8786") or Client; implies "dask".
    checkpoint : a :class:`~simcore.engine.checkpoint.Checkpoint`: the run starts from
        its state and saves the merged prefix every few seconds and at the end.

    Returns
    -------
    (acc, RunInfo): the merged result (None if no block finished) and run facts.
    """
    from . import executors

    if threads is not None and workers is not None and threads != workers:
        raise ValueError(f"threads ({threads}) is an alias of workers ({workers}); give one")
    if threads is not None and workers is None and executor is None and scheduler is None:
        executor = "threads"  # threads=N from before executors existed: worker threads, as it says
    workers = executors.check_workers(workers if workers is not None else threads)
    executor = executors.check_executor(executor, scheduler)
    bs = check_block_size(block_size)
    total_blocks = (n_deals + bs - 1) // bs
    n_blocks = total_blocks
    acc, merged, finished = checkpoint.start() if checkpoint is not None else (None, 0, False)
    resumed, first_block = min(merged * bs, n_deals), merged
    if finished:
        n_blocks = merged
    if executor == "dask" and workers is None:
        name, pool = "dask", executors.open_pool("dask", None, scheduler)
        workers = pool.workers
    else:
        workers = workers or default_threads()
        name = executors.choose(executor, run_block, workers, n_blocks - merged)
        pool = None
    # Left to the default, a run starts on threads and moves to worker processes
    # once it has run UPGRADE_AFTER seconds with more than UPGRADE_LEFT to go.
    upgrade = executor is None and name == "threads" and executors.can_move(run_block, workers,
                                                                             n_blocks - merged)
    warmup = None
    thread_pool = None
    interrupted = False
    error = None
    start = time.perf_counter()
    bar = _progress_bar(progress, n_deals, label)
    if bar is not None and resumed:
        bar.update(resumed)
    pending = {}
    results = {}
    next_block = merged
    failed = None  # (block, error) of the earliest block that raised
    try:
        if merged < n_blocks:
            pool = pool or executors.open_pool(name, workers, scheduler)
        cancel = False
        try:
            while merged < n_blocks:
                if upgrade:
                    elapsed = time.perf_counter() - start
                    if warmup is None and elapsed >= UPGRADE_AFTER and merged > first_block:
                        left = elapsed * (n_blocks - merged) / (merged - first_block)
                        if left >= UPGRADE_LEFT:
                            warmup = executors.Warmup(run_block, workers)
                        else:
                            upgrade = False
                    elif warmup is not None and warmup.ready():
                        thread_pool, pool, name, upgrade = pool, executors.open_pool("processes", workers), \
                            "threads, then processes", False
                    elif warmup is not None and warmup.failed:
                        upgrade = False
                per_task = pool.blocks_per_task
                if n_blocks - next_block < 2 * workers * per_task:
                    per_task = 1  # the last blocks one a task, so that no worker waits on another's long task
                while (failed is None and next_block < n_blocks
                       and len(pending) * per_task + len(results) < 2 * workers * per_task):
                    blocks = [(b, min(bs, n_deals - b * bs))
                              for b in range(next_block, min(next_block + per_task, n_blocks))]
                    chunked = pool.blocks_per_task > 1
                    if not chunked:
                        fut = pool.submit(run_block, *blocks[0])
                    else:  # several blocks per task (fewer round trips); a Ctrl-C in one comes back as a value
                        fut = pool.submit(executors.run_blocks, run_block, blocks)
                    pending[fut] = (next_block, chunked)
                    next_block += len(blocks)
                finished_now = pool.collect(pool.wait_first(list(pending)))
                # In block order, so that an error in one block never hides an
                # earlier block that finished at the same moment.
                for fut in sorted(finished_now, key=lambda f: pending[f][0]):
                    b, chunked = pending.pop(fut)
                    value, err = finished_now[fut]
                    if err is None and chunked:
                        parts, err = value
                        results.update(zip(range(b, b + len(parts)), parts))
                        b += len(parts)
                    elif err is None:
                        results[b] = value
                    if err is not None and (failed is None or b < failed[0]):
                        failed = (b, err)
                while merged in results:
                    part = results.pop(merged)
                    acc = part if acc is None else merge(acc, part)
                    merged += 1
                    if bar is not None:
                        bar.update(min(bs, n_deals - (merged - 1) * bs))
                    if done is not None and done(acc):
                        n_blocks = merged
                        break
                    if checkpoint is not None and checkpoint.due():
                        checkpoint.save(acc, merged, min(merged * bs, n_deals))
                if failed is not None and not any(b < failed[0] for b, _ in pending.values()):
                    # Every block before the failed one is merged: the partial
                    # result is the same whichever worker ran what.
                    raise failed[1]  # the block's error (or Ctrl-C)
        except KeyboardInterrupt:
            interrupted = cancel = True
            for fut in pending:
                fut.cancel()
        except Exception as e:  # a strategy's illegal action, say: keep what is done
            error = e
            cancel = True
            for fut in pending:
                fut.cancel()
        finally:
            if pool is not None:
                pool.close(cancel)
            if thread_pool is not None:
                thread_pool.close(cancel)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if bar is not None:
            bar.close()
    info = RunInfo(
        n_deals=merged * bs if merged < total_blocks else n_deals,
        seconds=time.perf_counter() - start,
        interrupted=interrupted,
        threads=workers,
        seed=seed,
        block_size=bs,
        executor=name,
        resumed_deals=resumed,
    )
    info.n_deals = min(info.n_deals, n_deals)
    if checkpoint is not None and acc is not None:
        # Also after Ctrl-C or an error: the merged prefix is a valid state to resume.
        checkpoint.save(acc, merged, info.n_deals, finished=merged >= n_blocks and not interrupted
                        and error is None)
    if error is not None:
        # The blocks merged before the error are not lost: callers attach them
        # to the error as ``partial_result``.
        error.partial = (acc, info)
        raise error
    return acc, info


def _execute(job: Job, n_deals: int, reduce, merge, done, threads, progress, label, run=None):
    """A job's blocks through map_blocks, each reduced to its statistics.

    ``run`` holds the executor settings (workers, executor, scheduler, checkpoint).
    """
    from .executors import BlockTask

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


def _run_settings(kind: str, job: Job, n_deals: int, workers, executor, scheduler, checkpoint, resume,
                  checkpoint_every, **identity) -> dict:
    """map_blocks' executor and checkpoint arguments for a run (see run_simulation)."""
    from .checkpoint import DEFAULT_EVERY, Checkpoint, run_header

    ckpt = None
    if checkpoint_every is not None and (isinstance(checkpoint_every, bool)
                                         or not isinstance(checkpoint_every, (int, float))
                                         or not math.isfinite(checkpoint_every) or checkpoint_every <= 0):
        raise ValueError(f"--checkpoint-every (checkpoint_every) takes a positive number of seconds, "
                         f"got {checkpoint_every!r}")
    if checkpoint is not None or resume is not None:
        every = DEFAULT_EVERY if checkpoint_every is None else checkpoint_every
        ckpt = Checkpoint(run_header(kind, job, n_deals, **identity), checkpoint, resume, every)
    return {"workers": workers, "executor": executor, "scheduler": scheduler, "checkpoint": ckpt}


def json_ready(x):
    """A result as plain JSON values: NaN and infinities as None (null), numpy scalars as
    Python ones, so that strict JSON parsers accept every ``to_dict()``."""
    if isinstance(x, dict):
        return {k: json_ready(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [json_ready(v) for v in x]
    if hasattr(x, "item") and not isinstance(x, (str, bytes)):
        x = x.item()
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def _progress_bar(progress, total, label):
    if progress is False:
        return None
    if progress is None and not sys.stderr.isatty():
        return None
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover
        return None
    # delay: only runs longer than about a second show a bar
    return tqdm(total=total, desc=label, unit="deal", unit_scale=True, delay=1.0, leave=False)


def _merge(a, b):
    """Fold block statistics ``b`` into ``a`` (SeatStats or PairedStats)."""
    a.merge(b)
    return a


# -- simulate ----------------------------------------------------------------


@dataclass
class SimulationResult:
    variant: str
    n_players: int
    seed: int
    strategies: list[str]
    stats: SeatStats
    info: RunInfo
    unit: str = "pot share"
    hands: tuple = ("hand",)
    options: dict = None
    part_groups: dict = None
    match: MatchChances | None = None
    precision: float | None = None  # the stopping rule's half-width, if one was given
    precision_reached: bool | None = None  # None without a stopping rule
    hand_kinds: tuple = ("high",)  # per hand: "high", or "low" (the category counts against it)

    @property
    def n_deals(self) -> int:
        return self.stats.n

    @property
    def small_sample(self) -> bool:
        """Too few deals for the intervals to mean anything (see ``stats.MIN_INTERVAL_DEALS``)."""
        return self.stats.n < MIN_INTERVAL_DEALS

    def table(self):
        """Tidy per-seat table: share (mean payoff) with its interval, win and tie
        rates, the variant's parts with theirs, and match chances when asked."""
        import pandas as pd

        s = self.stats
        mean, se = s.share()
        lo, hi = interval(mean, se)
        cols = {
            "seat": np.arange(self.n_players),
            "strategy": self.strategies,
            "n": s.n,
            "share": mean,
            "stderr": se,
            "ci_low": lo,
            "ci_high": hi,
            "win_rate": s.wins / max(s.n, 1),
            "tie_rate": s.ties / max(s.n, 1),
        }
        for name in s.part_names:
            m, e = s.part(name)
            pl, ph = interval(m, e)
            cols.update({name: m, f"{name}_stderr": e, f"{name}_ci_low": pl, f"{name}_ci_high": ph})
        if self.match is not None:
            cols.update({"match_win": self.match.win, "match_stderr": self.match.stderr,
                         "match_ci_low": self.match.ci_low, "match_ci_high": self.match.ci_high})
        return pd.DataFrame(cols)

    def categories(self):
        """Final hand categories per seat (and hand) and of the winning hand, as rates."""
        import pandas as pd
        from ..evaluate import CATEGORY_NAMES

        n = max(self.stats.n, 1)
        frames = []
        for h, hand in enumerate(self.hands):
            df = pd.DataFrame(self.stats.categories[:, h] / n, columns=CATEGORY_NAMES)
            df.insert(0, "seat", [str(i) for i in range(self.n_players)])
            win = pd.DataFrame([self.stats.winning[h] / n], columns=CATEGORY_NAMES)
            win.insert(0, "seat", ["winner"])
            part = pd.concat([df, win], ignore_index=True)
            if len(self.hands) > 1:
                part.insert(0, "hand", hand)
            frames.append(part)
        return pd.concat(frames, ignore_index=True)

    def to_dict(self) -> dict:
        from ..evaluate import CATEGORY_NAMES

        rows = self.table().to_dict(orient="records")
        seats = [{k: v for k, v in r.items() if k != "n"} for r in rows]  # plain values: json_ready below
        n = max(self.stats.n, 1)
        multi = len(self.hands) > 1
        for p, seat in enumerate(seats):
            cats = [{name: int(c) / n for name, c in zip(CATEGORY_NAMES, self.stats.categories[p, h])}
                    for h in range(len(self.hands))]
            seat["categories"] = dict(zip(self.hands, cats)) if multi else cats[0]
            for group, names in (self.part_groups or {}).items():
                seat[group] = {name: {"share": seat[name], "stderr": seat[f"{name}_stderr"],
                                      "ci_low": seat[f"{name}_ci_low"], "ci_high": seat[f"{name}_ci_high"]}
                               for name in names}
        winning = [{name: int(c) / n for name, c in zip(CATEGORY_NAMES, self.stats.winning[h])}
                   for h in range(len(self.hands))]
        out = {
            "variant": self.variant,
            **(self.options or {}),
            "variant_options": dict(self.options or {}),
            "players": self.n_players,
            "deals": int(self.stats.n),
            "seed": self.seed,
            "unit": self.unit,
            "seats": seats,
            "winning_categories": dict(zip(self.hands, winning)) if multi else winning[0],
            "hands": dict(zip(self.hands, self.hand_kinds)),
            "interrupted": self.info.interrupted,
            "small_sample": self.small_sample,
            "precision": self.precision,
            "precision_reached": self.precision_reached,
            "seconds": round(self.info.seconds, 3),
            "threads": self.info.threads,
        }
        if self.match is not None:
            out["match"] = {"target": self.match.target, "mean_hands": self.match.mean_hands,
                            "mean_hands_stderr": self.match.mean_hands_stderr, "exact": self.match.exact}
        return json_ready(out)


def check_deals(n_deals) -> None:
    if isinstance(n_deals, bool) or not isinstance(n_deals, (int, np.integer)) or n_deals < 1:
        raise ValueError(f"the number of deals must be a positive integer, got {n_deals!r}")


def check_seed(seed) -> int:
    """``seed`` as an int, or a ValueError naming it (no truncation of 1.7, no bools)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"the seed must be a non-negative integer, got {seed!r}")
    return int(seed)


def check_block_size(block_size) -> int:
    """``block_size`` as an int, or a ValueError naming it (0 or -5 would play nothing)."""
    if isinstance(block_size, bool) or not isinstance(block_size, (int, np.integer)) or block_size < 1:
        raise ValueError(f"the block size must be a positive integer (deals per block), got {block_size!r}")
    return int(block_size)


def check_flag(value, name: str) -> None:
    """A ValueError unless ``value`` is a bool ("no" is truthy: it must not mean yes)."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")


def _reached(precision, n: int, half_width: float):
    """Did a stopping rule's run reach its precision? None when it had none."""
    if precision is None:
        return None
    return bool(n >= MIN_STOP_DEALS and half_width <= precision)


def check_situation(variant: Variant, n_players: int, known: np.ndarray) -> np.ndarray:
    """The known slots as int8 (n_slots,), checked for shape, range and repeats.

    Checked before the cast: 300 or 1.7 are errors, not K♣ or 2♦.
    """
    raw = np.asarray(known)
    if raw.size and raw.dtype.kind not in "iu":
        raise TypeError(f"known slots must be integer cards (0..51, -1 for a random slot), got dtype {raw.dtype}")
    bad = np.flatnonzero((raw < -1) | (raw > 51)) if raw.size else []
    if len(bad):
        i = int(bad[0])
        raise ValueError(f"known slot {i} holds {raw.ravel()[i]!r}; a slot is a card 0..51 or -1 (random)")
    known = raw.astype(np.int8)
    if known.shape != (variant.n_slots(n_players),):
        raise ValueError(f"known slots must have shape ({variant.n_slots(n_players)},), got {known.shape}")
    check_known(known, "the known cards")
    return known


def _check_precision(precision):
    if precision is not None and (isinstance(precision, bool) or not isinstance(precision, (int, float, np.integer, np.floating))
                                  or not 0 < precision < np.inf):
        raise ValueError(f"precision must be a positive, finite number, got {precision!r}")


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
    _check_precision(precision)
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
                                dict(getattr(variant, "part_groups", {}) or {}), chances,
                                precision=precision,
                                precision_reached=_reached(precision, stats.n, stats.max_half_width()),
                                hand_kinds=tuple(variant.hand_kinds))

    return _run(job, n_deals, reduce, _both, done, threads, progress, make, run)


# -- compare ------------------------------------------------------------------


@dataclass
class ComparisonResult:
    variant: str
    n_players: int
    seed: int
    a: str
    b: str
    field: str
    stats: PairedStats
    info: RunInfo
    seat: int = 0
    unit: str = "pot share"
    options: dict = None
    precision: float | None = None  # the stopping rule's half-width (of a - b), if one was given
    precision_reached: bool | None = None  # None without a stopping rule

    @property
    def small_sample(self) -> bool:
        """Too few deals for the intervals to mean anything (see ``stats.MIN_INTERVAL_DEALS``)."""
        return self.stats.n < MIN_INTERVAL_DEALS

    def to_dict(self) -> dict:
        mean, se = self.stats.share()
        d, dse = self.stats.diff(0, 1)
        out = {
            "variant": self.variant,
            **(self.options or {}),
            "variant_options": dict(self.options or {}),
            "players": self.n_players,
            "deals": int(self.stats.n),
            "seed": self.seed,
            "seat": self.seat,
            "unit": self.unit,
            "a": self.a,
            "b": self.b,
            "field": self.field,
            "share_a": float(mean[0]),
            "stderr_a": float(se[0]),
            "ci_low_a": float(mean[0] - Z95 * se[0]),
            "ci_high_a": float(mean[0] + Z95 * se[0]),
            "share_b": float(mean[1]),
            "stderr_b": float(se[1]),
            "ci_low_b": float(mean[1] - Z95 * se[1]),
            "ci_high_b": float(mean[1] + Z95 * se[1]),
            "diff": float(d),
            "diff_stderr": float(dse),
            "diff_ci_low": float(d - Z95 * dse),
            "diff_ci_high": float(d + Z95 * dse),
            "interrupted": self.info.interrupted,
            "small_sample": self.small_sample,
            "precision": self.precision,
            "precision_reached": self.precision_reached,
            "seconds": round(self.info.seconds, 3),
        }
        return json_ready(out)

    def table(self):
        import pandas as pd

        mean, se = self.stats.share()
        lo, hi = interval(mean, se)
        d, dse = self.stats.diff(0, 1)
        return pd.DataFrame(
            {
                "policy": ["a: " + self.a, "b: " + self.b, "a - b"],
                "share": [mean[0], mean[1], d],
                "stderr": [se[0], se[1], dse],
                "ci_low": [lo[0], lo[1], d - Z95 * dse],
                "ci_high": [hi[0], hi[1], d + Z95 * dse],
            }
        )


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
    _check_precision(precision)
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


@dataclass
class AnalysisResult:
    variant: str
    n_players: int
    seed: int
    decision: str | None
    labels: list[str]
    stats: PairedStats
    info: RunInfo
    separated: bool
    seat: int = 0
    round: int | None = None
    unit: str = "pot share"
    options: dict = None

    @property
    def small_sample(self) -> bool:
        """Too few deals for the intervals to mean anything (see ``stats.MIN_INTERVAL_DEALS``)."""
        return self.stats.n < MIN_INTERVAL_DEALS

    def table(self):
        """Actions sorted by share, with intervals and the paired gap to the best."""
        import pandas as pd

        mean, se = self.stats.share()
        best = int(np.argmax(mean))
        rows = []
        for a, label in enumerate(self.labels):
            d, dse = self.stats.diff(a, best)
            rows.append({
                "action": label,
                "share": mean[a],
                "stderr": se[a],
                "ci_low": mean[a] - Z95 * se[a],
                "ci_high": mean[a] + Z95 * se[a],
                "diff_vs_best": d,
                "diff_ci_low": d - Z95 * dse,
                "diff_ci_high": d + Z95 * dse,
                "win_rate": self.stats.wins[a] / max(self.stats.n, 1),
                "tie_rate": self.stats.ties[a] / max(self.stats.n, 1),
            })
        return pd.DataFrame(rows).sort_values("share", ascending=False, kind="stable").reset_index(drop=True)

    def to_dict(self) -> dict:
        options = self.table().to_dict(orient="records")  # plain values: json_ready below
        return json_ready({
            "variant": self.variant,
            **(self.options or {}),
            "variant_options": dict(self.options or {}),
            "players": self.n_players,
            "seat": self.seat,
            "decision": self.decision,
            "round": self.round,
            "unit": self.unit,
            "deals": int(self.stats.n),
            "seed": self.seed,
            "separated": bool(self.separated),
            "best": options[0]["action"],
            "actions_tried": len(self.labels),
            "options": options,
            "interrupted": self.info.interrupted,
            "small_sample": self.small_sample,
            "seconds": round(self.info.seconds, 3),
        })


def run_analysis(variant: Variant, n_players: int, lineup, decision: str | None, n_deals: int = 2_000_000,
                 seed: int = 0, *, hero_seat: int = 0, known: np.ndarray, presets: dict | None = None,
                 round: int | None = None, min_deals: int = 1 << 15, threads=None,
                 block_size: int = DEFAULT_BLOCK, progress=None, stop_early: bool = True, workers=None,
                 executor=None, scheduler=None, checkpoint=None, resume=None,
                 checkpoint_every=None) -> AnalysisResult:
    """Every action the variant offers seat ``hero_seat`` at ``decision``, on the same deals.

    ``round`` forces one round of a repeated decision (None: the decision
    key without a round, which a one-round decision uses). Executor and
    checkpoint arguments as in :func:`run_simulation`.
    """
    check_deals(n_deals)
    if isinstance(min_deals, bool) or not isinstance(min_deals, (int, np.integer)) or min_deals < 0:
        raise ValueError(f"min_deals must be a non-negative integer, got {min_deals!r}")
    check_flag(stop_early, "stop_early")
    presets = dict(presets or {})
    if decision is not None:
        dec = variant.decision(decision)
        actions = variant.analysis_actions(dec.name, n_players, known, hero_seat)
        labels = [variant.analysis_label(dec.name, a, known, hero_seat) for a in actions]
        key = (hero_seat, dec.name) if round is None else (hero_seat, dec.name, int(round))
        forced = [{**presets, key: a} for a in actions]
    else:
        forced, labels = [presets], ["play"]
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
                              variant.payoff_unit, dict(variant.opts))

    return _run(job, n_deals, reduce, _merge, done, threads, progress, make, run)
