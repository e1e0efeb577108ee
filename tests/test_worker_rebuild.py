"""How a solve's field travels to worker processes: once per process, one object for every seat.

A fit sends one task a stage (its seed and the deviator's tables change), each carrying the
field. The field of a solve is its average table (``simcore.solve.MixedTable``), which declares
itself ``immutable``: it is pickled once here and unpickled once in a worker while a task still
plays it, and the seats that share it here share it there. A policy object that does not declare
it travels by value, one copy a seat and task, as before.
"""
from __future__ import annotations

import gc
import pickle

import numpy as np

from simcore.api import _registry
from simcore.engine import executors
from simcore.engine.blocks import Job
from simcore.solve import MixedTable, _pack, _unpack_mixed
from simcore.variants import get_variant

P = 3


class Counting:
    """A user's callable object that keeps state: it must not be shared by seats that did not share it."""

    def __init__(self):
        self.calls = 0

    def __call__(self, obs, rng):
        self.calls += 1
        return np.zeros(len(obs["legal"]), np.int64)


def _field(seed=5):
    """The average table of a small solve: Estonian at 3 players over the coarse buckets, a third
    of the rows with mass (their probabilities summing to 1 less the start's share)."""
    from simcore.abstraction import get_abstraction

    v = get_variant("estonian")
    rng = np.random.default_rng(seed)
    field = {}
    for d in ("pass", "discard"):
        abst = get_abstraction(v, d, P, "coarse")
        n, A = abst.n_buckets, 3
        probs = np.zeros((n, A))
        rows = rng.choice(n, n // 3, replace=False)
        probs[rows] = rng.dirichlet(np.ones(A), len(rows)) * 0.75
        start = np.zeros(n)
        start[rows] = 0.25
        fallback = _registry().resolve(v, d, {"pass": "thoughtful", "discard": "best-potential"}[d])
        field[d] = (f"fp-average[{d}]", MixedTable(abst, probs, fallback, (v.name, {}, d, P, "coarse"), start))
    return v, field


def _job(v, lineup, seed):
    return Job(v, P, [lineup], np.full(v.n_slots(P), -1, np.int8), seed, 256, [{}])


def test_an_immutable_table_is_rebuilt_once_and_shared_by_its_seats():
    v, field = _field()
    desc = executors.describe(_job(v, [dict(field) for _ in range(P)], seed=1))
    items = desc["lineups"][0]
    assert all(seat[d][0] == "shared" for seat in items for d in field)
    assert all(seat[d][2] is items[0][d][2] for seat in items for d in field)  # pickled once here

    first = executors.rebuild(desc)
    seats = first.lineups[0]
    for d in field:
        assert all(seat[d][1] is seats[0][d][1] for seat in seats), d  # one object for every seat
        assert seats[0][d][1] is not field[d][1]
    # the next stage's task (another seed): the same objects while the first task still holds them
    second = executors.rebuild(executors.describe(_job(v, [dict(field) for _ in range(P)], seed=2)))
    assert all(second.lineups[0][0][d][1] is seats[0][d][1] for d in field)
    # and it plays as the original does, deal for deal
    here = _job(v, [dict(field) for _ in range(P)], seed=1)
    for a, b in zip(here.run_block(0, 512), first.run_block(0, 512)):
        np.testing.assert_array_equal(a.payoffs, b.payoffs)

    # nothing is kept once no task plays it: a later run rebuilds its own
    del first, second, seats
    gc.collect()
    ours = {items[0][d][2] for d in field}
    assert not any(key[2] in ours for key in list(executors._SHARED.keys()))
    third = executors.rebuild(desc)
    assert third.lineups[0][0]["pass"][1] is third.lineups[0][1]["pass"][1]


def test_a_policy_that_does_not_declare_it_travels_one_copy_a_seat():
    v, field = _field()
    one = Counting()
    lineup = [{"pass": ("counting", one), "discard": field["discard"]} for _ in range(P)]
    desc = executors.describe(_job(v, lineup, seed=1))
    assert all(seat["pass"][0] == "value" for seat in desc["lineups"][0])
    job = executors.rebuild(desc)
    fns = [seat["pass"][1] for seat in job.lineups[0]]
    assert len({id(f) for f in fns}) == P  # as before: unpickled for each seat


def test_a_table_rebuilt_from_its_rows_marks_the_same_buckets():
    v, field = _field(seed=9)
    table = field["discard"][1]
    packed = _pack(table.probs, table.start)
    again = _unpack_mixed(table.abstraction, packed, table.fallback)
    np.testing.assert_array_equal(again.entry, table.entry)
    np.testing.assert_array_equal(again.probs, table.probs)
    np.testing.assert_array_equal(again.start, table.start)
    travelled = pickle.loads(pickle.dumps(table))  # by name: the worker's path
    np.testing.assert_array_equal(travelled.entry, table.entry)
