"""Runs: simulate, compare (paired), analyze (a decision's actions, paired).

A run is split into fixed-size blocks of deals. Block ``b`` has its own seed
streams (see :func:`deal.block_seeds`), is dealt at once, goes through the
variant's decisions and showdown, and is reduced to running sums. Blocks run
on a thread pool (the numba kernels release the GIL) and are merged strictly
in block order, so a run is bit-identical at any thread count, and memory
stays flat however many deals are asked for.
"""
from __future__ import annotations

import os
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass

import numpy as np

from .deal import block_seeds, check_known, deal
from .stats import PairedStats, SeatStats, Z95, interval
from .variant import Table, Variant

DEFAULT_BLOCK = 1 << 14


def default_threads() -> int:
    return os.cpu_count() or 1


@dataclass
class Job:
    """Everything a block needs; blocks differ only by their index."""

    variant: Variant
    n_players: int
    lineups: list  # one lineup (per seat {decision: (label, fn)}) per alternative
    known: np.ndarray  # (n_slots,) int8
    seed: int
    block_size: int
    forced: list  # one {(seat, decision): action} per alternative
    hero_seat: int = 0

    def run_block(self, b: int, n: int):
        seeds = block_seeds(self.seed, b)
        cards = deal(self.known, n, np.random.Generator(np.random.PCG64(seeds[0])))
        outcomes = []
        for lineup, forced in zip(self.lineups, self.forced):
            # Fresh streams per alternative: the field draws the same numbers
            # under every alternative (common random numbers).
            rngs = [np.random.Generator(np.random.PCG64(s)) for s in seeds[1 : 1 + self.n_players]]
            f = {k: np.full(n, a, dtype=np.int64) for k, a in forced.items()}
            table = Table(self.variant, self.n_players, lineup, rngs, f)
            outcomes.append(self.variant.play(cards, self.n_players, table))
        return outcomes


@dataclass
class RunInfo:
    n_deals: int
    seconds: float
    interrupted: bool
    threads: int
    seed: int
    block_size: int


def map_blocks(run_block, n_deals: int, block_size: int, merge, *, threads=None, done=None,
               progress=False, label: str = "", seed: int = 0):
    """Run ``run_block(b, n)`` for every block on a thread pool; merge in block order.

    This is the engine's execution loop, public for experiments that need their
    own per-block reduction (block b covers deals b*block_size onwards, n of them).
    At most 2 x threads blocks are in flight, so memory stays flat; ``done(acc)``
    may stop the run early (checked on the merged prefix, so the stop is the same
    at any thread count). Ctrl-C keeps the merged prefix and flags the run
    interrupted; another error is raised with ``.partial = (acc, info)``.

    Returns
    -------
    (acc, RunInfo): the merged result (None if no block finished) and run facts.
    """
    threads = threads or default_threads()
    bs = int(block_size)
    n_blocks = (n_deals + bs - 1) // bs
    acc = None
    merged = 0
    interrupted = False
    error = None
    start = time.perf_counter()
    bar = _progress_bar(progress, n_deals, label)
    pending = {}
    results = {}
    next_block = 0
    try:
        with ThreadPoolExecutor(max_workers=threads) as pool:
            try:
                while merged < n_blocks:
                    while next_block < n_blocks and len(pending) + len(results) < 2 * threads:
                        n = min(bs, n_deals - next_block * bs)
                        fut = pool.submit(run_block, next_block, n)
                        pending[fut] = next_block
                        next_block += 1
                    finished, _ = wait(list(pending), return_when=FIRST_COMPLETED)
                    failed = None
                    # In block order, so that an error in one block never hides an
                    # earlier block that finished at the same moment.
                    for fut in sorted(finished, key=pending.get):
                        b = pending.pop(fut)
                        if fut.exception() is None:
                            results[b] = fut.result()
                        elif failed is None:
                            failed = fut
                    while merged in results:
                        part = results.pop(merged)
                        acc = part if acc is None else merge(acc, part)
                        merged += 1
                        if bar is not None:
                            bar.update(min(bs, n_deals - (merged - 1) * bs))
                        if done is not None and done(acc):
                            n_blocks = merged
                            break
                    if failed is not None:
                        failed.result()  # raises the block's error (or Ctrl-C) here
            except KeyboardInterrupt:
                interrupted = True
                for fut in pending:
                    fut.cancel()
            except Exception as e:  # a strategy's illegal action, say: keep what is done
                error = e
                for fut in pending:
                    fut.cancel()
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if bar is not None:
            bar.close()
    info = RunInfo(
        n_deals=merged * bs if merged < (n_deals + bs - 1) // bs else n_deals,
        seconds=time.perf_counter() - start,
        interrupted=interrupted,
        threads=threads,
        seed=seed,
        block_size=bs,
    )
    info.n_deals = min(info.n_deals, n_deals)
    if error is not None:
        # The blocks merged before the error are not lost: callers attach them
        # to the error as ``partial_result``.
        error.partial = (acc, info)
        raise error
    return acc, info


def _execute(job: Job, n_deals: int, reduce, merge, done, threads, progress, label):
    """A job's blocks through map_blocks, each reduced to its statistics."""
    return map_blocks(lambda b, n: reduce(job.run_block(b, n)), n_deals, job.block_size, merge,
                      threads=threads, done=done, progress=progress, label=label, seed=job.seed)


def _run(job, n_deals, reduce, merge, done, threads, progress, make_result):
    """_execute, then make_result(acc, info); on an error the finished part rides along."""
    try:
        acc, info = _execute(job, n_deals, reduce, merge, done, threads, progress, job.variant.name)
    except Exception as e:
        if hasattr(e, "partial"):
            e.partial_result = make_result(*e.partial)
            info = e.partial[1]
            if hasattr(e, "add_note"):
                e.add_note(f"{info.n_deals:,} deals finished before the error; see .partial_result")
        raise
    return make_result(acc, info)


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

    @property
    def n_deals(self) -> int:
        return self.stats.n

    def table(self):
        """Tidy per-seat table: share with its interval, win and tie rates."""
        import pandas as pd

        s = self.stats
        mean, se = s.share()
        lo, hi = interval(mean, se)
        return pd.DataFrame(
            {
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
        )

    def categories(self):
        """Final hand categories per seat and of the winning hand, as rates."""
        import pandas as pd
        from ..evaluate import CATEGORY_NAMES

        n = max(self.stats.n, 1)
        df = pd.DataFrame(self.stats.categories / n, columns=CATEGORY_NAMES)
        df.insert(0, "seat", [str(i) for i in range(self.n_players)])
        win = pd.DataFrame([self.stats.winning / n], columns=CATEGORY_NAMES)
        win.insert(0, "seat", ["winner"])
        return pd.concat([df, win], ignore_index=True)

    def to_dict(self) -> dict:
        from ..evaluate import CATEGORY_NAMES

        rows = self.table().to_dict(orient="records")
        seats = [
            {k: (v.item() if hasattr(v, "item") else v) for k, v in r.items() if k != "n"}
            for r in rows
        ]
        n = max(self.stats.n, 1)
        for seat, counts in zip(seats, self.stats.categories):
            seat["categories"] = {name: int(c) / n for name, c in zip(CATEGORY_NAMES, counts)}
        return {
            "variant": self.variant,
            "players": self.n_players,
            "deals": int(self.stats.n),
            "seed": self.seed,
            "seats": seats,
            "winning_categories": {name: int(c) / n for name, c in zip(CATEGORY_NAMES, self.stats.winning)},
            "interrupted": self.info.interrupted,
            "seconds": round(self.info.seconds, 3),
            "threads": self.info.threads,
        }


def _setup(variant, n_players, hand, board, known, hero_seat, extra):
    from ..variants import get_variant

    v = get_variant(variant)
    v.check_players(n_players)
    presets = {}
    if known is None:
        known, presets = v.setup(n_players, hand=hand, board=board, seat=hero_seat, **(extra or {}))
    known = np.asarray(known, dtype=np.int8)
    if known.shape != (v.n_slots(n_players),):
        raise ValueError(f"known slots must have shape ({v.n_slots(n_players)},), got {known.shape}")
    check_known(known, "the known cards")
    return v, known, presets


def _check_deals(n_deals):
    if not isinstance(n_deals, (int, np.integer)) or n_deals < 1:
        raise ValueError(f"the number of deals must be a positive integer, got {n_deals!r}")


def simulate(
    variant, n_players: int, n_deals: int = 100_000, seed: int = 0, *, hero=None, field=None,
    seats=None, hand=None, board=None, known=None, threads=None, precision=None,
    block_size: int = DEFAULT_BLOCK, progress=None, extra=None,
) -> SimulationResult:
    """Play ``n_deals`` deals and report every seat's pot share.

    Parameters
    ----------
    variant : a variant name ("estonian") or object.
    n_players : players at the table.
    n_deals : deals to play; with ``precision`` the cap on deals.
    seed : the run's seed (same seed, same numbers, at any thread count).
    hero, field, seats : policy specs for seat 0, the other seats, and
        {seat: spec}; ``"pass=highest,discard=best-made"`` or a dict.
    hand, board : cards fixed for seat 0 and the board (strings or arrays).
    threads : worker threads (default: all cores).
    precision : stop once every seat's 95% half-width is at most this.

    Examples
    --------
    >>> r = simulate("holdem", 2, 20000, seed=1, hand="Ah Ad", progress=False)
    >>> bool(0.83 < r.table().share[0] < 0.87)
    True
    """
    _check_deals(n_deals)
    v, known, presets = _setup(variant, n_players, hand, board, known, 0, extra)
    from strategies import lineup
    from strategies.registry import spec_label

    lu = lineup(v, n_players, hero, field, seats)
    job = Job(v, n_players, [lu], known, int(seed), int(block_size), [presets])
    done = None
    if precision is not None:
        if precision <= 0:
            raise ValueError(f"precision must be positive, got {precision}")
        done = lambda acc: acc.max_half_width() <= precision  # noqa: E731

    def reduce(outcomes):
        o = outcomes[0]
        return SeatStats.of_block(o.shares, o.categories)

    labels = [spec_label(s) for s in lu]
    return _run(job, n_deals, reduce, _merge, done, threads, progress,
                lambda acc, info: SimulationResult(v.name, n_players, int(seed), labels,
                                                   acc or SeatStats(n_players), info))


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

    def to_dict(self) -> dict:
        mean, se = self.stats.share()
        d, dse = self.stats.diff(0, 1)
        out = {
            "variant": self.variant,
            "players": self.n_players,
            "deals": int(self.stats.n),
            "seed": self.seed,
            "seat": 0,
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
            "seconds": round(self.info.seconds, 3),
        }
        return out

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


def compare(
    variant, n_players: int, n_deals: int = 100_000, seed: int = 0, *, a=None, b=None, field=None,
    seats=None, hand=None, board=None, known=None, threads=None, precision=None,
    block_size: int = DEFAULT_BLOCK, progress=None, extra=None,
) -> ComparisonResult:
    """Seat 0 plays policy ``a``, then ``b``, on the same deals; the rest as given.

    The difference a - b comes with its own paired interval, far tighter than
    that of two separate runs.
    """
    _check_deals(n_deals)
    v, known, presets = _setup(variant, n_players, hand, board, known, 0, extra)
    from strategies import lineup
    from strategies.registry import spec_label

    la = lineup(v, n_players, a, field, seats)
    lb = lineup(v, n_players, b, field, seats)
    job = Job(v, n_players, [la, lb], known, int(seed), int(block_size), [presets, presets])
    done = None
    if precision is not None:
        done = lambda acc: acc.n > 1 and Z95 * acc.diff(0, 1)[1] <= precision  # noqa: E731

    def reduce(outcomes):
        return PairedStats.of_block(np.stack([o.shares[:, 0] for o in outcomes], axis=1))

    field_label = spec_label(la[1]) if n_players > 1 else ""
    return _run(job, n_deals, reduce, _merge, done, threads, progress,
                lambda acc, info: ComparisonResult(v.name, n_players, int(seed), spec_label(la[0]),
                                                   spec_label(lb[0]), field_label, acc or PairedStats(2), info))


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
        options = [
            {k: (v.item() if hasattr(v, "item") else v) for k, v in r.items()}
            for r in self.table().to_dict(orient="records")
        ]
        return {
            "variant": self.variant,
            "players": self.n_players,
            "decision": self.decision,
            "deals": int(self.stats.n),
            "seed": self.seed,
            "separated": bool(self.separated),
            "best": options[0]["action"],
            "options": options,
            "interrupted": self.info.interrupted,
            "seconds": round(self.info.seconds, 3),
        }


def analyze(
    variant, n_players: int, hand=None, board=None, *, decision: str | None = None,
    n_deals: int = 2_000_000, min_deals: int = 1 << 15, seed: int = 0, hero=None, field=None,
    seats=None, known=None, threads=None, block_size: int = DEFAULT_BLOCK, progress=None,
    stop_early: bool = True, extra=None,
) -> AnalysisResult:
    """Every legal action of the hero's (seat 0's) decision, on the same deals.

    The rest of the hand, the hero's later decisions included, is played by
    the chosen strategies. Stops once the best action is ahead of every other
    at 95% (after ``min_deals``), or at ``n_deals``.
    """
    _check_deals(n_deals)
    v, known, presets = _setup(variant, n_players, hand, board, known, 0, extra)
    from strategies import lineup

    lu = lineup(v, n_players, hero, field, seats)
    if v.decisions:
        dec = v.decision(decision or v.default_decision(board=board, **(extra or {})))
        actions = v.analysis_actions(dec.name, n_players, known)
        labels = [v.analysis_label(dec.name, a, known) for a in actions]
        forced = [{**presets, (0, dec.name): a} for a in actions]
        name = dec.name
    else:
        if decision is not None:
            raise ValueError(f"{v.title} has no decisions; got --decision {decision}")
        forced, labels, name = [presets], ["play"], None
    job = Job(v, n_players, [lu] * len(forced), known, int(seed), int(block_size), forced)

    def reduce(outcomes):
        return PairedStats.of_block(np.stack([o.shares[:, 0] for o in outcomes], axis=1))

    done = None
    if stop_early and len(forced) > 1:
        done = lambda acc: acc.n >= min_deals and acc.separated()  # noqa: E731
    def make(acc, info):
        stats = acc or PairedStats(len(forced))
        return AnalysisResult(v.name, n_players, int(seed), name, labels, stats, info,
                              stats.separated() if len(forced) > 1 else True)

    return _run(job, n_deals, reduce, _merge, done, threads, progress, make)
