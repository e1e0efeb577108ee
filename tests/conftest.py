"""Fixtures shared by several test modules."""
from __future__ import annotations

import contextlib
import logging
import os

import pytest
from hypothesis import settings

# No per-example deadline: a property test checks what holds, not how fast; on a loaded 2-core
# machine the default 200 ms deadline failed test_round_trip_mixed_spelling once (CI run beside a
# solve, fourteenth session). Speed is measured in the benchmarks. This profile is the one place it
# is set for every property test.
settings.register_profile("pvsim", deadline=None)
settings.load_profile("pvsim")


@pytest.fixture(scope="module")
def scheduler():
    """The address of a LocalCluster of two single-threaded worker processes (one per module)."""
    from simcore.engine import executors

    distributed = pytest.importorskip("distributed", reason='dask is not installed (pip install "pvsim[dask]")')
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=":0", silence_logs=logging.ERROR)
    try:
        yield cluster.scheduler_address
    finally:
        executors.close_dask(cluster.scheduler_address)
        cluster.close()


@pytest.fixture
def disk_full(monkeypatch):
    """A context in which every ``os.fsync`` fails as on a full disk (OSError "disk full")."""
    def full(fd):
        raise OSError("disk full")

    @contextlib.contextmanager
    def failing():
        with monkeypatch.context() as m:
            m.setattr(os, "fsync", full)
            yield

    return failing
