"""Where a run's blocks are played: a thread pool, worker processes, or a Dask cluster.

:func:`~simcore.engine.schedule.map_blocks` is the one execution loop; it asks
this module for a pool (:func:`open_pool`) and submits ``run_block(b, n)`` for
every block, merging the results strictly in block order. Whatever runs the
blocks, block ``b`` is dealt from the same seeds and the merge order never
changes, so a seed's numbers are bit-identical for every executor, number of
workers and scheduling.

- ``threads``: a thread pool in this process. No start-up cost, and the
  numba kernels release the GIL, but strategy calls, table set-up and small
  numpy operations hold it, which caps the speed-up.
- ``processes``: a pool of worker processes, kept for the life of the calling
  process, so a second run starts at once.
- ``dask``: the blocks become tasks on a ``dask.distributed`` cluster: an
  existing scheduler (``scheduler="tcp://host:8786"``) or a ``LocalCluster``
  of worker processes started on first use.

A process or Dask worker cannot receive a :class:`~simcore.engine.blocks.Job`
as it is (it holds the variant object and strategy functions), so a
:class:`BlockTask` travels as a description instead: the variant's class and
options, every seat's strategies (a module-level function by its module and
name, a registry factory such as ``rollout:32`` by its spec), the known
slots, seed, block size and forced actions. The worker rebuilds the job once
and keeps it for the next blocks of the same run. Importing a strategy's
module in the worker registers what that module registers, as it did in the
calling program.
"""
from __future__ import annotations

import atexit
import hashlib
import importlib
import itertools
import logging
import multiprocessing
import os
import pickle
import select
import signal
import sys
import threading
import time
import weakref
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, ThreadPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from multiprocessing import resource_tracker

from .blocks import Job
from .checks import check_workers  # noqa: F401 - part of this module's API

EXECUTORS = ("threads", "processes", "dask")
DASK_INSTALL = 'pip install "pvsim[dask]"  (or: pip install "dask[distributed]")'


class DaskNotInstalled(ImportError, ValueError):
    """Dask was asked for but ``dask.distributed`` cannot be imported.

    Also a ValueError, so that the CLI reports it in one line like other bad input.
    """


class NotShippable(ValueError):
    """A run cannot travel to worker processes (a strategy defined where they cannot import it)."""


def check_executor(executor, scheduler=None) -> str | None:
    """The executor's name (None: choose automatically), checked against :data:`EXECUTORS`."""
    if executor is not None and executor not in EXECUTORS:
        raise ValueError(f"unknown executor {executor!r}; choose from {', '.join(EXECUTORS)}")
    if scheduler is not None:
        if executor not in (None, "dask"):
            raise ValueError(f"a scheduler ({scheduler!r}) needs executor 'dask', got {executor!r}")
        return "dask"
    return executor


def default_workers() -> int:
    """Worker threads or processes when none are named: one per core."""
    return os.cpu_count() or 1


# -- a job as a description --------------------------------------------------------------


def _version() -> str:
    from simcore import __version__

    return __version__


def by_reference(obj):
    """(module, qualname) if another process can import ``obj`` by name, else None."""
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None)
    if not module or not qualname or module == "__main__" or "<" in qualname:
        return None
    try:
        found = importlib.import_module(module)
        for part in qualname.split("."):
            found = getattr(found, part)
    except Exception:  # noqa: BLE001 - any failure means: not importable by name
        return None
    return (module, qualname) if found is obj else None


# How strategies that are not importable by name travel (policy factories,
# built-in policies made by a helper): the façade, which knows the registry,
# sets these (simcore.api); the engine never imports the strategies itself.
_CODEC = {"ship": None, "unship": None, "preload": ()}


def set_strategy_codec(ship, unship, preload=()) -> None:
    """Teach workers to rebuild strategies by name.

    ``ship(variant, seat, decision, label, fn)`` returns picklable data that
    stands for ``fn`` (None when it cannot); ``unship(variant, decision, label,
    data)``, run in the worker, returns ``(label, fn)``. ``unship`` must be
    importable by name. ``preload``: modules worker processes import before
    their first block (where the start method allows).
    """
    _CODEC.update(ship=ship, unship=unship, preload=tuple(preload))


# A policy object that declares ``immutable = True`` answers from (obs, rng) alone and never
# changes once built (solve's average table): it travels as "shared", pickled once
# in this process (_PICKLED) and rebuilt once in a worker (_SHARED), where every seat and every
# task of the same bytes plays the one object, as every seat plays it here. A fit's tasks
# differ stage by stage (the seed, the deviator's tables), its field does not: without this each
# stage rebuilt the field in every worker, once a seat (Russian 4 at fine buckets: 0.25 s a stage,
# 12 stages an iteration, and 84 MB a seat a task kept).
_PICKLED: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_SHARED: "weakref.WeakValueDictionary" = weakref.WeakValueDictionary()


def _pickled(fn) -> bytes:
    """``pickle.dumps(fn)``, once per object when it declares itself immutable."""
    if not getattr(fn, "immutable", False):
        return pickle.dumps(fn)
    try:
        return _PICKLED[fn]
    except (KeyError, TypeError):  # TypeError: not weakly referable (then not kept)
        pass
    data = pickle.dumps(fn)
    try:
        _PICKLED[fn] = data
    except TypeError:
        pass
    return data


def _strategy_item(variant, seat: int, decision: str, label: str, fn) -> tuple:
    """How one seat's strategy for one decision travels to a worker."""
    ref = by_reference(fn)
    if ref is not None:
        return ("ref", label, *ref)
    data = _CODEC["ship"](variant, seat, decision, label, fn) if _CODEC["ship"] is not None else None
    if data is not None:
        return ("codec", label, data)
    if not hasattr(fn, "__code__"):  # a callable object: try it by value
        try:
            return ("shared" if getattr(fn, "immutable", False) else "value", label, _pickled(fn))
        except Exception:  # noqa: BLE001
            pass
    where = f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}"
    raise NotShippable(
        f"strategy {label!r} ({decision}, seat {seat}) is {where}, which worker processes cannot import. "
        "Define it at module level in an importable module (a .py file on the path, not __main__ "
        "or a notebook cell) and register it there, or use executor='threads' (--executor threads)")


def describe(job) -> dict:
    """A picklable description of ``job`` that :func:`rebuild` turns back into a Job.

    Raises :class:`NotShippable` naming the first strategy a worker could not import.
    """
    v = job.variant
    cls_ref = by_reference(type(v))
    if cls_ref is None:
        raise NotShippable(f"variant class {type(v).__qualname__} is not importable by name; "
                           "define it at module level in an importable module, or use threads")
    lineups = [[{d: _strategy_item(v, s, d, label, fn) for d, (label, fn) in seat.items()}
                for s, seat in enumerate(lineup)] for lineup in job.lineups]
    codec = by_reference(_CODEC["unship"]) if _CODEC["unship"] is not None else None
    return {
        "version": _version(), "variant": (cls_ref, v.name, dict(v.opts)), "n_players": job.n_players,
        "codec": codec,
        "lineups": lineups, "known": job.known, "seed": job.seed, "block_size": job.block_size,
        "forced": job.forced, "record": job.record, "keep_state": job.keep_state,
    }


def _import(module: str, qualname: str):
    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def _shared(game: tuple, decision: str, data: bytes):
    """The policy an immutable policy's bytes stand for, unpickled once in this process while a
    task still plays it (see _PICKLED)."""
    key = (game, decision, data)
    with _SHARED_LOCK:
        fn = _SHARED.get(key)
        if fn is None:
            fn = pickle.loads(data)
            try:
                _SHARED[key] = fn
            except TypeError:  # not weakly referable: rebuilt every time
                pass
        return fn


_SHARED_LOCK = threading.Lock()


def rebuild(desc: dict):
    """The Job a description (:func:`describe`) stands for, built in this process."""
    from simcore import variants

    if desc["version"] != _version():
        raise RuntimeError(f"this worker runs pvsim {_version()} but the run was started with pvsim "
                           f"{desc['version']}; install the same version on every worker")
    (module, qualname), name, opts = desc["variant"]
    cls = _import(module, qualname)  # a plug-in's module registers its policies on import
    known = variants.variant_classes().get(name)
    if known is None:  # registered in the calling program only: known here by name too
        known = variants.register_variant(cls)
    if known is cls:
        v = variants.get_variant(name, **opts)
    else:  # another game of that name here: the caller's class, unregistered
        v = cls(**opts)
    unship = _import(*desc["codec"]) if desc["codec"] is not None else None

    def strategy(decision, item):
        kind, label = item[0], item[1]
        if kind == "ref":
            return label, _import(item[2], item[3])
        if kind == "codec":
            return unship(v, decision, label, item[2])
        if kind == "shared":
            return label, _shared(key, decision, item[2])
        return label, pickle.loads(item[2])

    key = (name, repr(sorted(opts.items())))

    lineups = [[{d: strategy(d, item) for d, item in seat.items()} for seat in lineup]
               for lineup in desc["lineups"]]
    return Job(v, desc["n_players"], lineups, desc["known"], desc["seed"], desc["block_size"],
               desc["forced"], desc["record"], desc["keep_state"])


_MALLOC_TUNED = []


def undo_malloc_trim() -> bool:
    """Give this process back glibc's adaptive allocation if MALLOC_TRIM_THRESHOLD_ took it away.

    Dask's nannies start workers with ``MALLOC_TRIM_THRESHOLD_=65536``; any
    explicit trim threshold turns off glibc's adaptive mmap threshold, so each
    block's large arrays are mapped and faulted in afresh (measured 0.66x the
    deals/s of a clean process). Raising both thresholds with ``mallopt``
    restores the speed (measured 0.98x). Run once per worker process, on its
    first block; True if it changed anything (glibc with the variable set).
    """
    if _MALLOC_TUNED or "MALLOC_TRIM_THRESHOLD_" not in os.environ or not sys.platform.startswith("linux"):
        return False
    _MALLOC_TUNED.append(True)
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        m_trim_threshold, m_mmap_threshold = -1, -3  # glibc's malloc.h
        return bool(libc.mallopt(m_trim_threshold, 256 << 20)) and bool(libc.mallopt(m_mmap_threshold, 32 << 20))
    except (OSError, AttributeError):  # not glibc: nothing to undo
        return False


_WORKER_JOBS: dict = {}  # token -> BlockTask, in a worker process
_WORKER_LOCK = threading.Lock()
_WORKER_KEEP = 8


def _remote_task(token: str, payload: bytes) -> "BlockTask":
    """Unpickling a BlockTask in a worker: rebuilt once per run and process, then reused."""
    with _WORKER_LOCK:
        task = _WORKER_JOBS.get(token)
        if task is None:
            undo_malloc_trim()
            desc, reduce = pickle.loads(payload)
            task = BlockTask(rebuild(desc), reduce)
            task._payload, task._token = payload, token
            if len(_WORKER_JOBS) >= _WORKER_KEEP:
                _WORKER_JOBS.pop(next(iter(_WORKER_JOBS)))
            _WORKER_JOBS[token] = task
        return task


class BlockTask:
    """``run_block(b, n) = reduce(job.run_block(b, n))`` that can travel to other processes.

    ``reduce`` must be picklable (a module-level function or a small object);
    the job travels as its description (:func:`describe`).
    """

    def __init__(self, job, reduce):
        self.job = job
        self.reduce = reduce
        self._payload = None
        self._token = None

    def __call__(self, b: int, n: int):
        return self.reduce(self.job.run_block(b, n))

    # What a subclass changes to travel: what goes beside the job's description, what the
    # error calls the task, and the function that rebuilds it in a worker from (token, payload).
    _what = "run"

    def _cargo(self):
        return self.reduce

    def _rebuilder(self):
        return _remote_task

    def payload(self) -> bytes:
        """The pickled description; raises :class:`NotShippable` when it cannot travel."""
        if self._payload is None:
            desc = describe(self.job)  # NotShippable names the strategy
            try:
                payload = pickle.dumps((desc, self._cargo()), protocol=pickle.HIGHEST_PROTOCOL)
            except (pickle.PicklingError, TypeError, AttributeError) as e:
                raise NotShippable(f"this {self._what} cannot be sent to worker processes ({e}); "
                                   "use executor='threads'") from e
            self._payload = payload
            self._token = hashlib.sha256(payload).hexdigest()
        return self._payload

    def shippable(self) -> bool:
        try:
            self.payload()
        except NotShippable:
            return False
        return True

    def __reduce__(self):
        payload = self.payload()
        return self._rebuilder(), (self._token, payload)


def require_shippable(run_block, executor: str) -> None:
    """Raise :class:`NotShippable` unless ``run_block`` can be sent to ``executor``'s workers."""
    if isinstance(run_block, BlockTask):
        run_block.payload()
        return
    try:
        pickle.dumps(run_block)
    except Exception as e:  # noqa: BLE001
        raise NotShippable(f"run_block {run_block!r} cannot be sent to {executor} workers ({e}); "
                           "pass a module-level function or a BlockTask, or use executor='threads'") from e


# -- signals and orphans ------------------------------------------------------------------

# How often (s) a run waiting on its workers looks at the Ctrl-C flag.
POLL = 0.1

_TRACKER = []  # [True] once this process has made sure multiprocessing's resource tracker runs


@contextmanager
def sigint_held():
    """Hold SIGINT back in this thread while it starts processes, so that they start with it blocked.

    A terminal's Ctrl-C goes to the whole process group. A worker process (or
    the forkserver, or a Dask nanny) still starting up, before anything could
    tell it to ignore SIGINT, would die of it with a traceback and break the
    pool. Processes started here inherit the blocked signal mask (fork and exec
    keep it), so the terminal's Ctrl-C never reaches them: the calling process
    alone handles it. A SIGINT that arrives meanwhile stays pending and is
    delivered to this process when the block ends.
    """
    if not hasattr(signal, "pthread_sigmask"):  # Windows: no process groups to share a Ctrl-C
        yield
        return
    if not _TRACKER:  # it unblocks SIGINT in the thread that starts it: start it first, once
        resource_tracker.ensure_running()
        _TRACKER.append(True)
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


class CtrlC:
    """Ctrl-C as a flag while a run lasts: SIGINT counts, and the run looks at the count.

    A KeyboardInterrupt raised wherever the main thread happens to be can land
    inside a pool's or a future's locks (concurrent.futures takes each
    future's lock in turn while it waits) and leave one held; the process then
    hangs at exit, joining a pool thread that waits for that lock. So while a
    run lasts, SIGINT only counts; the run stops at its next look (at most
    :data:`~simcore.engine.schedule.POLL` seconds later), keeps what its workers finish, and returns.
    Installed only from the main thread, and only over Python's default
    handler: a program's own SIGINT handler is left alone.
    """

    def __init__(self):
        self.count = 0
        self._old = None

    def __enter__(self):
        if (threading.current_thread() is threading.main_thread()
                and signal.getsignal(signal.SIGINT) is signal.default_int_handler):
            self._old = signal.signal(signal.SIGINT, self._count)
        return self

    def _count(self, signum, frame):
        self.count += 1

    def __exit__(self, *exc):
        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)
            self._old = None
        return False


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (an exited one waiting to be reaped does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return True  # no /proc: kill(pid, 0) said it exists


def watch_parent(pid: int, poll: float = 0.5) -> threading.Thread:
    """Exit this process (``os._exit``) as soon as process ``pid`` ends.

    A worker's parent is the forkserver, not the calling program, so the
    program's pid is watched: through a pidfd where Linux has one (woken at
    once), else polled every ``poll`` seconds. After a ``kill -9`` of the
    program, its workers exit; the forkserver and the resource tracker, which
    run while any worker holds their pipes, follow.
    """
    def watch():
        fd = None
        try:
            fd = os.pidfd_open(pid)
        except ProcessLookupError:
            os._exit(1)
        except (AttributeError, OSError):  # no pidfd (not Linux, or before 5.3): poll
            pass
        if fd is not None:
            select.select([fd], [], [])
        else:
            while _alive(pid):
                time.sleep(poll)
        os._exit(1)

    thread = threading.Thread(target=watch, name="pvsim-watch-parent", daemon=True)
    thread.start()
    return thread


# -- pools ------------------------------------------------------------------------------


class Stopped(Exception):
    """In place of a task's error: the task stopped early because its run was stopped
    (Ctrl-C); the blocks it returns are finished, the rest were not played."""


_STOP = {"shared": None}  # in a worker process: the shared array below

# The worker processes' shared array (one per program, with a lock):
# [0] the last stopped run, [1] the first block its tasks are not to play (the
#     calling process's limit: the block after the last finished one it has),
# [2] a run, [3] the highest block of that run a worker has finished (a task
#     still running may hold finished blocks the calling process has not seen).
STOPPED, LIMIT, RUN, HIGHEST = range(4)


def _stopped(run: int, b: int) -> bool:
    """Whether block ``b`` of run ``run`` is not to be played: its run was stopped and no
    finished block lies past it, or a later run was stopped (a stopped run's tasks end with it)."""
    shared = _STOP["shared"]
    if run <= 0 or shared is None:
        return False
    with shared.get_lock():
        stopped, limit, last_run, highest = shared[:]
    if stopped != run:
        return stopped > run
    return b >= max(limit, highest + 1 if last_run == run else 0)


def _finished(run: int, b: int) -> None:
    shared = _STOP["shared"]
    if run <= 0 or shared is None:
        return
    with shared.get_lock():
        if shared[RUN] != run:
            shared[RUN], shared[HIGHEST] = run, b
        elif b > shared[HIGHEST]:
            shared[HIGHEST] = b


def run_blocks(run_block, blocks, run: int = 0):
    """Several blocks in one task, in order: ``(results, None)``, the results before
    the first block that raised and that block's error, or the finished blocks and
    :class:`Stopped` when run ``run`` was stopped meanwhile (worker processes check
    before each block, so a Ctrl-C costs at most the block in hand)."""
    out = []
    for b, n in blocks:
        if _stopped(run, b):
            return out, Stopped(f"run {run} stopped before block {b}")
        try:
            out.append(run_block(b, n))
        except BaseException as e:  # noqa: BLE001 - Ctrl-C from a strategy included, as locally
            return out, e
        _finished(run, b)
    return out, None


class Pool:
    """What map_blocks needs of an executor: submit, wait for the first finished, stop, close."""

    name = "threads"
    blocks_per_task = 1
    run = 0  # the run's id that tasks check between blocks (0: never stopped)

    def __init__(self, workers: int):
        self.workers = workers

    def submit(self, fn, *args):
        raise NotImplementedError

    def wait_first(self, futures, timeout: float | None = None) -> set:
        """The finished futures among ``futures``: at least one, or none after ``timeout`` seconds."""
        done, _ = wait(futures, timeout=timeout, return_when=FIRST_COMPLETED)
        return done

    def collect(self, done) -> dict:
        """{future: (result, None) or (None, error)} for finished (not cancelled) futures."""
        out = {}
        for f in done:
            if f.cancelled():
                continue
            err = f.exception()
            out[f] = (None, err) if err is not None else (f.result(), None)
        return out

    def stop(self, limit: int = 0) -> None:
        """Ask the workers to play no block from ``limit`` on in this run's tasks (they
        finish the block in hand): blocks below it are wanted, to merge all that finished."""

    def highest(self) -> int:
        """The highest block of this run the workers have finished, as far as they tell (-1)."""
        return -1

    def close(self, cancel: bool) -> None:
        pass


class ThreadPool(Pool):
    name = "threads"

    def __init__(self, workers):
        super().__init__(workers)
        self._pool = ThreadPoolExecutor(max_workers=workers)

    def submit(self, fn, *args):
        return self._pool.submit(fn, *args)

    def close(self, cancel):
        self._pool.shutdown(wait=True, cancel_futures=cancel)


def _worker_init(stop=None, parent=None):
    # Ctrl-C is the calling process's to handle: it keeps the merged prefix and
    # stops the workers between blocks (``stop``). The workers start with SIGINT
    # blocked (sigint_held); ignoring it too covers a forkserver started elsewhere.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _STOP["shared"] = stop
    if parent is not None:
        watch_parent(parent)
    # One thread per worker: blocks already run in parallel, one per process, and
    # a kernel that goes parallel on a main thread (evaluate_hands on a big
    # batch) would oversubscribe the cores (measured: 3x slower than threads).
    import numba

    numba.set_num_threads(1)


class _Shared:
    """The worker processes kept for the life of the program: the executor, its size,
    what is known of it (broken, warm) and the shared stop id its workers read."""

    def __init__(self):
        self.lock = threading.Lock()
        self.executor = None
        self.workers = 0
        self.broken = False  # a task came back with BrokenProcessPool: start a new pool
        self.warm = False  # every worker has run a task
        self.stop = None  # a multiprocessing Array: see STOPPED, LIMIT, RUN, HIGHEST
        self.runs = itertools.count(1)


_PROCESSES = _Shared()


def _mp_context():
    # forkserver: workers fork from a clean server that has imported pvsim once
    # (fast starts, no threads inherited from the caller); spawn elsewhere.
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["simcore.engine.executors", *_CODEC["preload"]])
        return ctx
    return multiprocessing.get_context("spawn")


def process_executor(workers: int) -> ProcessPoolExecutor:
    """The shared pool of ``workers`` worker processes (started on first use, kept)."""
    shared = _PROCESSES
    with shared.lock:
        pool = shared.executor
        if pool is not None and (shared.workers != workers or shared.broken):
            pool.shutdown(wait=False, cancel_futures=True)
            pool = None
        if pool is None:
            ctx = _mp_context()
            with sigint_held():
                shared.stop = shared.stop or ctx.Array("q", 4)
                pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_worker_init,
                                           initargs=(shared.stop, os.getpid()))
            shared.executor, shared.workers, shared.broken, shared.warm = pool, workers, False, False
        return pool


def mark_broken(executor, err) -> None:
    """Note that ``executor``'s worker processes are gone (``err`` a BrokenProcessPool): the
    next run starts new ones."""
    if isinstance(err, BrokenProcessPool) and _PROCESSES.executor is executor:
        _PROCESSES.broken = True


def shutdown_processes() -> None:
    """Stop the shared worker processes (a later run starts new ones)."""
    shared = _PROCESSES
    with shared.lock:
        pool = shared.executor
        shared.executor, shared.workers, shared.broken, shared.warm = None, 0, False, False
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)


class ProcessPool(Pool):
    name = "processes"
    # Four blocks a task: half the calling process's CPU time per block (sending
    # tasks, receiving results), which on 2 cores the workers get back
    # (measured 2026-11-30, 6-player Hold'em on 2 workers: 7.5% -> 3.3% of
    # the wall time, +8% deals/s). The last blocks of a run go one a task.
    blocks_per_task = 4

    def __init__(self, workers):
        super().__init__(workers)
        self._pool = process_executor(workers)
        self.run = next(_PROCESSES.runs)
        self._submitted = 0

    def submit(self, fn, *args):
        if fn is run_blocks:
            args = (*args, self.run)
        with sigint_held():  # a submit may start a worker process
            try:
                fut = self._pool.submit(fn, *args)
            except BrokenProcessPool as e:
                mark_broken(self._pool, e)
                self._pool = process_executor(self.workers)
                fut = self._pool.submit(fn, *args)
        self._submitted += 1
        return fut

    def collect(self, done):
        out = super().collect(done)
        for _, err in out.values():
            mark_broken(self._pool, err)
        return out

    def highest(self):
        stop = _PROCESSES.stop
        if stop is None:
            return -1
        with stop.get_lock():
            return stop[HIGHEST] if stop[RUN] == self.run else -1

    def stop(self, limit=0):
        stop = _PROCESSES.stop
        if stop is not None:
            with stop.get_lock():
                if stop[STOPPED] <= self.run:
                    stop[STOPPED], stop[LIMIT] = self.run, limit

    def close(self, cancel):
        # The pool outlives the run; tasks still running stop after their block
        # (cancel) or finish, and are dropped.
        if cancel:
            self.stop(0)
        if _PROCESSES.broken and _PROCESSES.executor is self._pool:
            shutdown_processes()
        elif not cancel and self._submitted and _PROCESSES.executor is self._pool:
            _PROCESSES.warm = True  # its workers have run a whole run: the next run starts on them


_DASK: dict = {}  # scheduler address or ("local", workers) -> (client, cluster or None)
_SCHEMES = ("tcp", "tls", "ws", "wss", "ucx", "inproc")


def _distributed():
    try:
        import distributed
    except ImportError as e:
        raise DaskNotInstalled(f"the dask executor needs dask.distributed, which is not installed: "
                               f"{DASK_INSTALL}") from e
    return distributed


def check_scheduler(address: str) -> str:
    """A Dask scheduler address (``tcp://host:8786``, ``host:8786``, ``tls://...``), or a
    ValueError naming what is wrong with it.

    Checked before a Client is made: one that cannot parse its address fails
    with the error, but lingers and hangs for 20 s when it is collected.
    """
    if not isinstance(address, str):
        raise ValueError(f"a Dask scheduler is an address such as tcp://127.0.0.1:8786 or a Client, "
                         f"got {address!r}")
    scheme, sep, rest = address.rpartition("://")
    if not sep:
        scheme, rest = "tcp", address
    example = "give one such as tcp://127.0.0.1:8786 (`dask scheduler` prints its address)"
    if scheme not in _SCHEMES:
        raise ValueError(f"unknown protocol {scheme!r} in the Dask scheduler address {address!r}; "
                         f"Dask speaks {', '.join(_SCHEMES)}: {example}")
    if scheme == "inproc":
        return address
    host, colon, port = rest.rpartition(":")
    if not colon or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"missing port number in the Dask scheduler address {address!r}; {example}")
    if not host.strip("[]") or "/" in host:
        raise ValueError(f"missing host in the Dask scheduler address {address!r}; {example}")
    return address


def dask_client(scheduler=None, workers: int | None = None):
    """A ``distributed.Client``: to ``scheduler`` (an address or a Client), or to a
    LocalCluster of ``workers`` single-threaded processes started on first use and
    kept for the life of this process."""
    distributed = _distributed()
    if scheduler is not None and not isinstance(scheduler, str):
        return scheduler  # a Client the caller made
    if scheduler is not None:
        check_scheduler(scheduler)
    key = scheduler or ("local", workers or default_workers())
    got = _DASK.get(key)
    if got is not None and got[0].status == "running":
        return got[0]
    if scheduler is not None:
        try:
            client = distributed.Client(scheduler, timeout="10s", set_as_default=False)
        except (OSError, ValueError, TypeError) as e:
            raise ValueError(f"cannot reach the Dask scheduler at {scheduler!r} ({e}); start one with "
                             "`dask scheduler` and workers with `dask worker ADDRESS`") from e
        _DASK[key] = (client, None)
        return client
    if not main_reimports_safely():  # the nannies spawn workers that import the main script again
        raise ValueError(f"a local Dask cluster's worker processes would run "
                         f"{sys.modules['__main__'].__file__} again: put the script's work under "
                         "`if __name__ == \"__main__\":`, or use executor='threads'")
    import dask

    # Dask's nannies set MALLOC_TRIM_THRESHOLD_ for their workers, and do it in
    # this process's environment. An explicit trim threshold turns off glibc's
    # adaptive mmap threshold, so every large numpy array of every block is
    # mapped and faulted in afresh: measured 0.66x the deals/s, in the Dask
    # workers and in any process started from here afterwards (a process
    # pool, a subprocess). Workers we start go without it, and this process's
    # environment is given back as it was.
    before = dict(os.environ)
    try:
        # The cluster's processes start with SIGINT blocked: a Ctrl-C while they
        # start would kill them with tracebacks (the run keeps its merged prefix anyway).
        with dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}), \
                sigint_held():
            cluster = distributed.LocalCluster(n_workers=key[1], threads_per_worker=1, processes=True,
                                               dashboard_address=":0", silence_logs=logging.ERROR)
    finally:
        for k in set(os.environ) | set(before):
            if k.startswith("__DASK"):
                continue
            if k not in before:
                del os.environ[k]
            elif os.environ.get(k) != before[k]:
                os.environ[k] = before[k]
    client = distributed.Client(cluster, set_as_default=False)
    _DASK[key] = (client, cluster)
    return client


def close_dask(scheduler=None) -> None:
    """Close the Dask clients (and LocalClusters) pvsim opened: those to ``scheduler``, or all."""
    keys = [k for k in _DASK if scheduler is None or k == scheduler]
    for key in keys:
        client, cluster = _DASK.pop(key)
        try:
            client.close()
            if cluster is not None:
                cluster.close()
        except Exception:  # noqa: BLE001 - closing what may already be gone (at exit, say)
            pass


atexit.register(close_dask)


class DaskPool(Pool):
    name = "dask"
    # A Dask task costs milliseconds of scheduling (results/bench/scaling.txt);
    # four blocks per task spread that over about 65,000 deals.
    blocks_per_task = 4

    def __init__(self, workers, scheduler=None):
        self._distributed = _distributed()
        self.client = dask_client(scheduler, workers)
        if workers is None:  # every thread the cluster has
            workers = max(sum(self.client.nthreads().values()), 1)
        super().__init__(workers)
        self._finished = threading.Event()  # set by each future as it finishes

    def submit(self, fn, *args):
        fut = self.client.submit(fn, *args, pure=False)
        fut.add_done_callback(self._wake)
        return fut

    def _wake(self, _future):
        self._finished.set()

    def wait_first(self, futures, timeout=None):
        # Public APIs only: a future's done() and done-callbacks (distributed.wait
        # would need our client to be the default one, which the caller's may be).
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            self._finished.clear()
            done = {f for f in futures if f.done()}
            if done or not futures:
                return done
            left = None if end is None else end - time.monotonic()
            if left is not None and left <= 0:
                return done
            self._finished.wait(left)

    def collect(self, done) -> dict:
        # One round trip for every finished result (each .result() would be one).
        ok = [f for f in done if f.status == "finished"]
        out = dict(zip(ok, ((r, None) for r in self.client.gather(ok)))) if ok else {}
        for f in done:
            if f not in out and not f.cancelled():
                out[f] = (None, f.exception())
        return out

    def close(self, cancel):
        pass  # map_blocks cancels what is pending; the client is kept for the next run


def open_pool(executor: str, workers: int, scheduler=None) -> Pool:
    if executor == "threads":
        return ThreadPool(workers)
    if executor == "processes":
        return ProcessPool(workers)
    return DaskPool(workers, scheduler)


def call_with(fn, kwargs: dict):
    """``fn(**kwargs)``: one task of :func:`run_batch` (module level, so that it travels)."""
    undo_malloc_trim()
    return fn(**kwargs)


def run_batch(fn, calls, executor: str, workers: int | None = None, scheduler=None, labels=None) -> list:
    """``fn(**kw)`` for every ``kw`` in ``calls``, submitted at once as one batch of tasks.

    ``fn`` must be importable by name (a module-level function) for processes
    and Dask. Returns the results in the order of ``calls``; a call that
    failed raises its error after the others finish, with a note naming it
    (by ``labels[i]`` where given, else by its arguments).
    """
    if executor != "threads":
        require_shippable(fn, executor)
    pool = open_pool(executor, workers or (None if executor == "dask" else default_workers()), scheduler)
    futures = []
    with CtrlC() as ctrl_c:  # Ctrl-C: the calls not started are cancelled, then KeyboardInterrupt
        try:
            for kw in calls:
                if ctrl_c.count:
                    break
                futures.append(pool.submit(call_with, fn, dict(kw)))
            left = list(futures)
            while left and not ctrl_c.count:
                finished = pool.wait_first(left, POLL)
                left = [f for f in left if f not in finished]
        finally:
            if ctrl_c.count or len(futures) < len(calls):
                for f in futures:
                    f.cancel()
            pool.close(bool(ctrl_c.count))
    if ctrl_c.count or len(futures) < len(calls):
        raise KeyboardInterrupt
    done = pool.collect(futures)
    for i, f in enumerate(futures):
        err = done[f][1]
        if err is not None:
            if hasattr(err, "add_note"):
                err.add_note(f"in cell {i} of the sweep: {calls[i] if labels is None else labels[i]}")
            raise err
    return [done[f][0] for f in futures]


def main_reimports_safely() -> bool:
    """Whether worker processes can import the calling program's ``__main__`` harmlessly.

    Process workers (forkserver or spawn) import the main script again; one
    without an ``if __name__ == "__main__":`` guard would run itself again in
    every worker. A session with no main file (a notebook, the REPL) is safe.
    """
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if not path:
        return True
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            source = f.read()
    except OSError:
        return False
    return "__name__" in source and "__main__" in source


def choose(executor: str | None, run_block, workers: int, n_blocks: int) -> str:
    """The executor a run uses: the one asked for, or the default.

    The default is ``processes`` when there is more than one worker, more than
    one block per worker, the run can travel (its strategies importable by
    name) and the main script re-imports safely (:func:`main_reimports_safely`),
    else ``threads``; the README gives the measurements behind it.
    """
    if executor is not None:
        if executor != "threads":
            require_shippable(run_block, executor)
        if executor == "processes" and not main_reimports_safely():
            raise ValueError(f"worker processes would run {sys.modules['__main__'].__file__} again: put the "
                             "script's work under `if __name__ == \"__main__\":`, or use executor='threads'")
        return executor
    if can_move(run_block, workers, n_blocks) and process_pool_ready(workers):
        return "processes"
    return "threads"


def can_move(run_block, workers: int, n_blocks: int) -> bool:
    """Whether a run left to the default may move to worker processes."""
    return (workers > 1 and n_blocks > 2 * workers and isinstance(run_block, BlockTask)
            and run_block.shippable() and main_reimports_safely())


def process_pool_ready(workers: int) -> bool:
    """Whether the shared pool of ``workers`` processes is running already and has run
    a whole run or a warm-up (a warm start)."""
    shared = _PROCESSES
    return shared.executor is not None and shared.workers == workers and not shared.broken and shared.warm


def _prepare(task, n: int) -> int:
    """In a worker: rebuild the job (unpickling did) and load its kernels on a few deals."""
    task(0, n)
    return os.getpid()


class Warmup:
    """Starts the shared worker processes and readies them for one run, in the background.

    The default executor starts a run on threads (no start-up cost) and calls
    this once the run has shown it will last; when :meth:`ready`, the rest of
    the run's blocks go to the processes. Block seeds and the merge order do
    not depend on where a block ran, so the numbers do not change.
    """

    def __init__(self, run_block, workers: int):
        self.workers = workers
        self.failed = False
        self.pool = pool = process_executor(workers)
        with sigint_held():  # the submits start the worker processes
            self.futures = [pool.submit(_prepare, run_block, 16) for _ in range(workers)]

    def ready(self) -> bool:
        if not all(f.done() for f in self.futures):
            return False
        errors = [f.exception() for f in self.futures if f.exception() is not None]
        if errors:
            mark_broken(self.pool, errors[0])
            self.failed = True  # stay on threads; a real error shows up there
            return False
        if _PROCESSES.executor is self.pool:
            _PROCESSES.warm = True
        return True
