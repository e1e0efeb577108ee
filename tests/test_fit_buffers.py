"""A fit's stages sum into one set of arrays (FitBuffers), cleared between stages.

The arrays are dense over every bucket, so the reuse saves faulting in fresh memory at every
stage; it must change nothing a fit computes. Checked against fresh arrays a stage
(``keep_stats=True``): the same tables and reports, the kept counts the dense sums' own, and
a buffer cleared to zeros everywhere, the held-out (validated) sums included.
"""
from __future__ import annotations

import numpy as np

from simcore.abstraction import get_abstraction
from simcore.exploit import ARRAYS, HOLD_ARRAYS, FitBuffers, FitStats, fit_seat
from simcore.api import _registry
from simcore.variants import get_variant

P = 3


def _fit(keep_stats, validate=False):
    v = get_variant("tapiola")
    seat = {d: _registry().resolve(v, d, spec) for d, spec in
            (("discard", "made"), ("last", "best"))}
    abst = {d: get_abstraction(v, d, P, "coarse") for d in seat}
    return fit_seat(v, P, [dict(seat) for _ in range(P)], 0, abst, "coarse", deals=4096, seed=5, passes=2,
                    block_size=1024, keep_stats=keep_stats, validate=validate, top=1)


def test_reused_arrays_fit_what_fresh_arrays_fit():
    for validate in (False, True):
        fresh_tables, fresh = _fit(True, validate)
        tables, reports = _fit("counts", validate)
        for d in fresh_tables:
            np.testing.assert_array_equal(tables[d], fresh_tables[d])
        for a, b in zip(reports, fresh):
            assert {**a.to_dict(), "seconds": 0} == {**b.to_dict(), "seconds": 0}
            visits = np.zeros(b.stats.n_buckets, np.int64)
            choices = np.zeros((b.stats.n_buckets, b.stats.n_actions), np.int64)
            a.stats.add_to(visits, choices)
            np.testing.assert_array_equal(visits, b.stats.field_count)
            np.testing.assert_array_equal(choices, b.stats.field_choice)
            assert a.stats.n == b.stats.n
        plain_tables, plain = _fit(False, validate)
        assert all(r.stats is None for r in plain)
        for d in fresh_tables:
            np.testing.assert_array_equal(plain_tables[d], fresh_tables[d])


def test_a_cleared_buffer_holds_nothing():
    tables, reports = _fit(True, validate=True)
    full = next(r.stats for r in reports if r.stats.hold_count is not None and r.stats.n)
    assert any(getattr(full, k).any() for k in ARRAYS + HOLD_ARRAYS)
    full.clear()
    assert full.n == 0
    for k in ARRAYS + HOLD_ARRAYS:
        assert not getattr(full, k).any(), k
    # a buffer is one set of arrays a shape, handed out cleared
    buffers = FitBuffers()

    class Part:
        n_buckets, n_actions = 10, 3

    one = buffers.take(Part)
    one.field_count[4] = 2
    one.total[4, 1] = 1.5
    again = buffers.take(Part)
    assert again is one and not again.field_count.any() and not again.total.any()
    assert isinstance(again, FitStats)
