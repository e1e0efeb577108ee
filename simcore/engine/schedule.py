"""The scheduler: a run's blocks go to a pool (:mod:`.executors`) and come back merged in block order.

:func:`map_blocks` is the engine's one execution loop. It keeps at most
2 x workers blocks in flight (memory stays flat), merges finished blocks
strictly in block order (a seed's numbers are bit-identical at any worker
count, on any executor), stops when ``done(merged)`` says so, saves a
checkpoint of the merged prefix, and on Ctrl-C keeps that prefix.
"""
from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass

from . import executors
from .checks import check_block_size, check_workers
from .checkpoint import CheckpointError
from .variant import StrategyInterrupt

# The default executor moves a run from threads to worker processes once it has
# run this long (s) with at least UPGRADE_LEFT (s) to go: starting processes
# costs about a second (see the README's measurements).
UPGRADE_AFTER = 1.0
UPGRADE_LEFT = 3.0


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
    # What raised KeyboardInterrupt when it was not a Ctrl-C: "strategy 'x' for pass (seat 0,
    # round 0) raised KeyboardInterrupt" (a :class:`~simcore.engine.variant.StrategyInterrupt`).
    interrupted_by: str | None = None


def map_blocks(run_block, n_deals: int, block_size: int, merge, *, threads=None, done=None,
               progress=False, label: str = "", seed: int = 0, workers=None, executor=None,
               scheduler=None, checkpoint=None):
    """Run ``run_block(b, n)`` for every block on a pool of workers; merge in block order.

    This is the engine's execution loop, public for experiments that need their
    own per-block reduction (block b covers deals b*block_size onwards, n of them).
    At most 2 x workers blocks are in flight, so memory stays flat; ``done(acc)``
    may stop the run early (checked on the merged prefix, so the stop is the same
    at any worker count). Ctrl-C stops the run: the workers finish the block in
    hand (worker processes drop the rest of their task), every finished block
    that continues the merged prefix is merged, and the run is flagged
    interrupted; a second Ctrl-C stops waiting for the workers. Another error
    is raised with ``.partial = (acc, info)``.

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
    if threads is not None and workers is not None and threads != workers:
        raise ValueError(f"threads ({threads}) is an alias of workers ({workers}); give one")
    if threads is not None and workers is None and executor is None and scheduler is None:
        executor = "threads"  # threads=N from before executors existed: worker threads, as it says
    workers = check_workers(workers if workers is not None else threads)
    executor = executors.check_executor(executor, scheduler)
    if scheduler is not None and isinstance(scheduler, str):
        executors.check_scheduler(scheduler)
    bs = check_block_size(block_size)
    with executors.CtrlC() as ctrl_c, _closing(checkpoint):
        run = _Run(run_block, n_deals, bs, merge, done, checkpoint, ctrl_c)
        run.play(workers, executor, scheduler, progress, label)
        info = RunInfo(
            n_deals=min(run.merged * bs, n_deals),
            seconds=time.perf_counter() - run.start,
            interrupted=run.interrupted,
            threads=run.workers,
            seed=seed,
            block_size=bs,
            executor=run.name,
            resumed_deals=run.resumed,
            interrupted_by=run.interrupted_by,
        )
        if checkpoint is not None and run.acc is not None and not run.save_failed:
            # Also after Ctrl-C or an error: the merged prefix is a valid state to resume.
            run.save(finished=run.merged >= run.n_blocks and not run.interrupted and run.error is None)
    if run.error is not None:
        # The blocks merged before the error are not lost: callers attach them
        # to the error as ``partial_result``.
        run.error.partial = (run.acc, info)
        raise run.error
    return run.acc, info


POLL = executors.POLL  # how often (s) a run waiting on its workers looks at the Ctrl-C flag


@contextmanager
def _closing(checkpoint):
    """The run's checkpoint, closed when the run ends however it ends: another run may take the file."""
    try:
        yield
    finally:
        if checkpoint is not None and hasattr(checkpoint, "close"):
            checkpoint.close()


class _Run:
    """One map_blocks run: the blocks in flight, the finished ones, the merged prefix."""

    def __init__(self, run_block, n_deals, bs, merge, done, checkpoint, ctrl_c):
        self.run_block, self.n_deals, self.bs, self.merge_fn, self.done = run_block, n_deals, bs, merge, done
        self.checkpoint, self.ctrl_c = checkpoint, ctrl_c
        self.total_blocks = self.n_blocks = (n_deals + bs - 1) // bs
        self.acc, self.merged, finished = checkpoint.start() if checkpoint is not None else (None, 0, False)
        self.resumed, self.first_block = min(self.merged * bs, n_deals), self.merged
        if finished:
            self.n_blocks = self.merged
        self.next_block = self.merged
        self.pending = {}  # future -> (first block, chunked)
        self.results = {}  # block -> its result, until merged
        self.failed = None  # (block, error) of the earliest block that raised
        self.interrupted = False
        self.interrupted_by = None
        self.error = None
        self.save_failed = False  # a checkpoint save failed: the run stops, with that as its error
        self.pool = self.thread_pool = None
        self.bar = None
        self.start = time.perf_counter()
        self.name, self.workers = "threads", 0

    # -- the loop ----------------------------------------------------------------------

    def play(self, workers, executor, scheduler, progress, label):
        ctrl_c = self.ctrl_c
        if executor == "dask" and workers is None:
            self.name, self.pool = "dask", executors.open_pool("dask", None, scheduler)
            workers = self.pool.workers
        else:
            workers = workers or executors.default_workers()
            self.name = executors.choose(executor, self.run_block, workers, self.n_blocks - self.merged)
        self.workers = workers
        # Left to the default, a run starts on threads and moves to worker processes
        # once it has run UPGRADE_AFTER seconds with more than UPGRADE_LEFT to go.
        self.upgrade = executor is None and self.name == "threads" and executors.can_move(
            self.run_block, workers, self.n_blocks - self.merged)
        self.warmup = None
        self.start = time.perf_counter()
        self.bar = _progress_bar(progress, self.n_deals, label)
        if self.bar is not None and self.resumed:
            self.bar.update(self.resumed)
        try:
            try:
                if self.merged < self.n_blocks and not ctrl_c.count:
                    self.pool = self.pool or executors.open_pool(self.name, workers, scheduler)
                while self.merged < self.n_blocks and not ctrl_c.count and self.error is None:
                    self._maybe_upgrade()
                    self._submit()
                    self._take(self.pool.wait_first(list(self.pending), POLL))
                    self._merge_ready()
                    if self.failed is not None and not any(b < self.failed[0] for b, _ in self.pending.values()):
                        # Every block before the failed one is merged: the partial
                        # result is the same whichever worker ran what.
                        raise self.failed[1]  # the block's error (or a strategy's KeyboardInterrupt)
            except KeyboardInterrupt as e:  # a strategy's, or a Ctrl-C where the flag could not be set
                self.interrupted = True
                if isinstance(e, StrategyInterrupt):  # not a Ctrl-C: a user's strategy raised it
                    self.interrupted_by = str(e)
            except Exception as e:  # a strategy's illegal action, say: keep what is done
                self.error = e
            if ctrl_c.count and self.merged < self.n_blocks:
                self.interrupted = True
                self._drain()
            self._close(cancel=self.interrupted or self.error is not None)
        except KeyboardInterrupt:  # raised in here, where no flag was set (not the main thread's default)
            self.interrupted = True
            self._close(cancel=True)
        finally:
            if self.bar is not None:
                self.bar.close()

    def _maybe_upgrade(self):
        if not self.upgrade:
            return
        elapsed = time.perf_counter() - self.start
        if self.warmup is None and elapsed >= UPGRADE_AFTER and self.merged > self.first_block:
            left = elapsed * (self.n_blocks - self.merged) / (self.merged - self.first_block)
            if left >= UPGRADE_LEFT:
                self.warmup = executors.Warmup(self.run_block, self.workers)
            else:
                self.upgrade = False
        elif self.warmup is not None and self.warmup.ready():
            self.thread_pool, self.pool = self.pool, executors.open_pool("processes", self.workers)
            self.name, self.upgrade = "threads, then processes", False
        elif self.warmup is not None and self.warmup.failed:
            self.upgrade = False

    def _submit(self):
        pool, workers, bs = self.pool, self.workers, self.bs
        per_task = pool.blocks_per_task
        if self.n_blocks - self.next_block < 2 * workers * per_task:
            per_task = 1  # the last blocks one a task, so that no worker waits on another's long task
        while (self.failed is None and self.next_block < self.n_blocks and not self.ctrl_c.count
               and len(self.pending) * per_task + len(self.results) < 2 * workers * per_task):
            b0 = self.next_block
            blocks = [(b, min(bs, self.n_deals - b * bs)) for b in range(b0, min(b0 + per_task, self.n_blocks))]
            chunked = pool.blocks_per_task > 1
            if not chunked:
                fut = pool.submit(self.run_block, *blocks[0])
            else:  # several blocks per task (fewer round trips); a Ctrl-C in one comes back as a value
                fut = pool.submit(executors.run_blocks, self.run_block, blocks)
            self.pending[fut] = (b0, chunked)
            self.next_block += len(blocks)

    def _take(self, finished):
        """Move finished futures' blocks to ``results`` (errors to ``failed``)."""
        finished_now = self.pool.collect(finished)
        for fut in finished:
            if fut not in finished_now:  # cancelled
                self.pending.pop(fut, None)
        # In block order, so that an error in one block never hides an
        # earlier block that finished at the same moment.
        for fut in sorted(finished_now, key=lambda f: self.pending[f][0]):
            b, chunked = self.pending.pop(fut)
            value, err = finished_now[fut]
            if err is None and chunked:
                parts, err = value
                self.results.update(zip(range(b, b + len(parts)), parts))
                b += len(parts)
            elif err is None:
                self.results[b] = value
            if isinstance(err, executors.Stopped):
                continue  # the run was stopped: the task's later blocks were not played
            if err is not None and (self.failed is None or b < self.failed[0]):
                self.failed = (b, err)

    def _merge_ready(self):
        """Merge the finished blocks that continue the merged prefix."""
        while self.merged < self.n_blocks and self.merged in self.results:
            part = self.results.pop(self.merged)
            self.acc = part if self.acc is None else self.merge_fn(self.acc, part)
            self.merged += 1
            if self.bar is not None:
                self.bar.update(min(self.bs, self.n_deals - (self.merged - 1) * self.bs))
            if self.done is not None and self.done(self.acc):
                self.n_blocks = self.merged
                break
            if self.checkpoint is not None and not self.save_failed and self.checkpoint.due():
                self.save()

    def save(self, finished: bool = False):
        """Save the merged prefix; a save that fails (the folder went, the disk filled) becomes
        the run's error, so the run stops and returns its merged prefix with it."""
        try:
            self.checkpoint.save(self.acc, self.merged, min(self.merged * self.bs, self.n_deals), finished)
        except CheckpointError as e:
            self.save_failed = True
            if self.error is None:
                self.error = e

    def _drain(self):
        """After a Ctrl-C: keep every block the workers finished.

        A block can be merged only once every block before it is. The limit is
        the block after the last finished one: the workers play no block past
        it (they finish the block in hand and drop the rest of their task) but
        do play the few below it that close the gaps (a task of four blocks,
        half played); tasks not started past it are cancelled. The limit rises
        as finished tasks come in. The run waits for the tasks that hold a
        block up to the limit; the others end in the background. A second
        Ctrl-C stops waiting.
        """
        cancelled = set()
        pools = [pool for pool in (self.pool, self.thread_pool) if pool is not None]
        while True:
            # past every finished block: those in hand, and those the workers hold in tasks not yet back
            limit = max(max(self.results, default=-1) + 1, self.merged, *(pool.highest() + 1 for pool in pools))
            for pool in pools:
                pool.stop(limit)
            for fut, (b0, _) in list(self.pending.items()):
                if b0 >= limit and fut not in cancelled:
                    cancelled.add(fut)
                    if fut.cancel() is True:  # not started (Dask cancels asynchronously: it comes back cancelled)
                        self.pending.pop(fut)
            if self.ctrl_c.count >= 2 or not any(b0 <= limit for b0, _ in self.pending.values()):
                break
            # Any task that finishes may raise the limit: wake on all of them.
            self._take(self.pool.wait_first(list(self.pending), POLL))
        self._take({fut for fut in self.pending if fut.done()})
        self._merge_ready()

    def _close(self, cancel: bool):
        for fut in self.pending:
            fut.cancel()
        for pool in (self.pool, self.thread_pool):
            if pool is not None:
                pool.close(cancel)
        self.pool = self.thread_pool = None


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
