"""Fixtures shared by several test modules."""
from __future__ import annotations

import logging

import pytest


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
