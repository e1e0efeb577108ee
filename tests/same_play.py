"""Shared by the tests of fast paths (rule kernels, alternatives played together)."""
import numpy as np


def assert_same_play(fast, slow):
    """Two Outcomes of the same block are the same: payoffs, wins, ties, categories
    (values and dtypes) and every recorded action."""
    for name in ("payoffs", "wins", "ties", "categories"):
        a, b = getattr(fast, name), getattr(slow, name)
        assert a.dtype == b.dtype and np.array_equal(a, b), name
    assert fast.actions.keys() == slow.actions.keys()
    for k in slow.actions:
        assert fast.actions[k].dtype == np.int64 and np.array_equal(fast.actions[k], slow.actions[k]), k


def spy(fn, seen, field):
    """A user strategy (no fast-path attribute) that notes ``obs[field]`` in ``seen``
    and plays as ``fn``: it shows whether a game called it."""
    def strategy(obs, rng):
        seen.append(obs[field])
        return fn(obs, rng)

    return strategy
