"""draw_mixed skips the buckets without an entry (simcore.abstraction.SKIP_EMPTY): the same
draw, bit for bit, as reading every row's probabilities and start share."""
from __future__ import annotations

import numpy as np
import pytest

import simcore.abstraction as abstraction
from abstraction_obs import assert_solved_plays_the_same
from simcore.abstraction import NO_START, draw_mixed, entry_bits


def _draw(probs, start, buckets, canon, legal, u, bits):
    out, miss = np.empty(len(buckets), np.int64), np.empty(len(buckets), np.bool_)
    draw_mixed(buckets, canon, probs, legal, u, out, miss, start, bits)
    return out, miss


@pytest.mark.parametrize("with_start", [False, True])
def test_a_sparse_table_draws_as_a_dense_read_does(with_start):
    rng = np.random.default_rng(11)
    n_buckets, n_actions, n = 1000, 4, 20_000
    probs = rng.random((n_buckets, n_actions)) * (rng.random((n_buckets, n_actions)) < 0.5)
    probs[rng.random(n_buckets) < 0.9] = 0.0  # nine buckets in ten hold nothing
    start = rng.random(n_buckets) * (rng.random(n_buckets) < 0.5) if with_start else NO_START
    if with_start:
        start[rng.random(n_buckets) < 0.05] = 1.0
    buckets = rng.integers(0, n_buckets, n)
    canon = np.array([rng.permutation(n_actions) for _ in range(n)])
    legal = rng.random((n, n_actions)) < 0.7
    legal[np.arange(n), rng.integers(0, n_actions, n)] = True
    u = rng.random(n)
    bits = entry_bits(probs.any(axis=1))
    assert np.array_equal(np.unpackbits(bits, bitorder="little")[:n_buckets].astype(bool), probs.any(axis=1))
    every = np.full_like(bits, 0xFF)
    sparse, dense = _draw(probs, start, buckets, canon, legal, u, bits), _draw(probs, start, buckets, canon, legal, u, every)
    assert np.array_equal(sparse[0], dense[0]) and np.array_equal(sparse[1], dense[1])
    has = probs.any(axis=1)[buckets]
    assert sparse[1][~has].all() and (sparse[0][~has] == -1).all()  # no entry: the fallback plays
    assert (~sparse[1][has]).sum() > 1000  # and the rows with one drew actions (the test is not vacuous)
    got = sparse[0][~sparse[1]]
    assert legal[np.flatnonzero(~sparse[1]), got].all()


@pytest.mark.parametrize("game,P", [("estonian", 6), ("slovak", 6), ("sviten", 6), ("tapiola", 6), ("russian", 4)])
def test_every_shipped_chain_plays_the_same_with_the_skip_and_without(game, P, monkeypatch):
    assert_solved_plays_the_same(game, P, monkeypatch, abstraction, "SKIP_EMPTY", calls=3)
