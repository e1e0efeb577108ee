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
from dataclasses import dataclass

from . import executors
from .checks import check_block_size, check_workers
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
    if threads is not None and workers is not None and threads != workers:
        raise ValueError(f"threads ({threads}) is an alias of workers ({workers}); give one")
    if threads is not None and workers is None and executor is None and scheduler is None:
        executor = "threads"  # threads=N from before executors existed: worker threads, as it says
    workers = check_workers(workers if workers is not None else threads)
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
        workers = workers or executors.default_workers()
        name = executors.choose(executor, run_block, workers, n_blocks - merged)
        pool = None
    # Left to the default, a run starts on threads and moves to worker processes
    # once it has run UPGRADE_AFTER seconds with more than UPGRADE_LEFT to go.
    upgrade = executor is None and name == "threads" and executors.can_move(run_block, workers,
                                                                             n_blocks - merged)
    warmup = None
    thread_pool = None
    interrupted = False
    interrupted_by = None
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
        except KeyboardInterrupt as e:
            interrupted = cancel = True
            if isinstance(e, StrategyInterrupt):  # not a Ctrl-C: a user's strategy raised it
                interrupted_by = str(e)
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
        interrupted_by=interrupted_by,
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
