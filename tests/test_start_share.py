"""A mixed table's start share: the weight of the starting policy in a fictitious-play average,
played by that policy itself (which may read more than the bucket does).

Before it, a row's first departure replaced the start by its share of each action in the bucket,
so that the table lost what the start read (Slovak: `exchange1=thoughtful` beat the table that
started from it by +0.0008 a deal; Tapiola: `discard=made` by +0.0006).
"""
from __future__ import annotations

import numpy as np
import pytest

from simcore.solve import update


def test_the_first_departure_keeps_the_start_as_a_share_of_the_row():
    avg = np.zeros((3, 3))
    weight = np.array([0, 3, 0])
    start = np.zeros(3)
    choices = np.array([[5, 5, 0], [9, 1, 0], [0, 0, 0]])
    # bucket 0 departs to action 2 at its first visit; bucket 1 after three visits that kept the start
    update(avg, weight, np.array([2, 2, -1]), np.array([10, 10, 0]), choices, start)
    assert start.tolist() == [0.5, 0.75, 0.0]
    assert avg[0].tolist() == [0, 0, 0.5] and avg[1].tolist() == [0, 0, 0.25] and not avg[2].any()
    assert weight.tolist() == [2, 4, 0]
    # a BR that keeps the field's play leaves a live row as it is; another departure halves... thirds it
    update(avg, weight, np.array([-1, 0, -1]), np.array([1, 1, 0]), choices, start)
    assert start[0] == 0.5 and np.isclose(start[1], 0.6) and np.allclose(avg[1], [0.2, 0, 0.2])
    assert np.allclose(avg.sum(axis=1) + start, [1, 1, 0])


def test_without_start_shares_the_update_is_as_before():
    avg = np.zeros((1, 3))
    weight = np.zeros(1, np.int64)
    update(avg, weight, np.array([2]), np.array([10]), np.array([[9, 1, 0]]))
    assert np.allclose(avg, [[0.45, 0.05, 0.5]])  # the start's choice shares, then the BR at 1/2


def test_a_start_of_weight_zero_gives_the_row_to_the_first_departure():
    """start_weight=0: the textbook average of BRs alone. A row's first departure replaces the start
    outright; the next one halves it; a row the BRs kept holds the start, which counts one term."""
    avg = np.zeros((3, 3))
    weight = np.zeros(3, np.int64)
    start = np.zeros(3)
    choices = np.array([[5, 5, 0], [9, 1, 0], [0, 0, 0]])
    update(avg, weight, np.array([2, -1, -1]), np.array([10, 10, 0]), choices, start, start_weight=0)
    assert avg[0].tolist() == [0, 0, 1] and start[0] == 0 and weight.tolist() == [1, 1, 0]
    assert not avg[1].any() and start[1] == 0  # kept: still empty, the start plays it
    update(avg, weight, np.array([1, 1, -1]), np.array([10, 10, 0]), choices, start, start_weight=0)
    assert np.allclose(avg[0], [0, 0.5, 0.5]) and start[0] == 0
    assert np.allclose(avg[1], [0, 0.5, 0]) and np.isclose(start[1], 0.5)
    assert np.allclose(avg.sum(axis=1) + start, [1, 1, 0])
    # without start shares too (a checkpoint of an older pvsim): the first departure takes the row
    a, w = np.zeros((1, 3)), np.zeros(1, np.int64)
    update(a, w, np.array([2]), np.array([10]), np.array([[9, 1, 0]]), start_weight=0)
    assert a.tolist() == [[0, 0, 1]]


def _tables(tmp_path, start_share):
    from simcore.abstraction import get_abstraction
    from strategies.table import save_table

    a = get_abstraction("estonian", "pass", 3, "coarse")
    probs = np.zeros((a.n_buckets, 3))
    probs[:, 2] = 1 - start_share  # canonical action 2 where the start does not play
    path = tmp_path / f"s{start_share}.npz"
    save_table(path, game="estonian", options={}, n_players=3, abstraction="coarse", tables={"pass": probs},
               fallback="pass=thoughtful", starts={"pass": np.full(a.n_buckets, start_share)})
    return str(path)


def test_a_start_share_plays_the_start_that_often(tmp_path):
    """A table whose every row plays the start (pass=thoughtful) with share 0.3 and canonical
    action 2 otherwise agrees with thoughtful on 0.3 + 0.7 x [thoughtful plays canonical 2] of
    the decisions: 3 x 7,000 decisions, within 4 standard errors (fixed seeds)."""
    from abstraction_obs import collect
    from simcore.exploit import _observe
    from simcore.variants import get_variant
    from strategies.registry import resolve
    from strategies.table import load_table

    v = get_variant("estonian")
    tf = load_table(_tables(tmp_path, 0.3))
    assert tf.header["version"] == 2 and tf.header["decisions"]["pass"]["start"] is True
    table = tf.strategy(v, "pass", 3)
    thoughtful = resolve(v, "pass", "thoughtful")[1]
    abst = tf.abstraction_for(v, "pass", 3)
    agree, two, n = 0, 0, 0
    for i, obs in enumerate(collect(v, 3, n=7000, seed=3)["pass"]):
        a = table(obs, np.random.default_rng(10 + i))
        t = np.asarray(thoughtful(obs, None))
        _, canon = _observe(abst, obs, 0, len(t), 3)
        is_two = canon[np.arange(len(t)), t] == 2  # thoughtful's own choice is canonical action 2 there
        agree += int((a == t).sum())
        two += int(is_two.sum())
        n += len(t)
        assert np.all(a[is_two] == t[is_two])  # both parts play the same card there
    want = 0.3 + 0.7 * two / n
    assert abs(agree / n - want) <= 4 * np.sqrt(want * (1 - want) / n), (agree / n, want)


def test_a_start_share_of_one_plays_the_start_exactly_and_bad_shares_are_refused(tmp_path):
    from abstraction_obs import collect
    from simcore.variants import get_variant
    from strategies.registry import resolve
    from strategies.table import load_table, save_table

    v = get_variant("estonian")
    tf = load_table(_tables(tmp_path, 1.0))
    thoughtful = resolve(v, "pass", "thoughtful")[1]
    for obs in collect(v, 3, n=2000, seed=4)["pass"]:
        assert np.array_equal(tf.strategy(v, "pass", 3)(obs, np.random.default_rng(0)), thoughtful(obs, None))
    from simcore.abstraction import get_abstraction

    a = get_abstraction("estonian", "pass", 3, "coarse")
    probs = np.zeros((a.n_buckets, 3))
    probs[:, 0] = 0.5
    kw = dict(game="estonian", options={}, n_players=3, abstraction="coarse", tables={"pass": probs})
    with pytest.raises(ValueError, match="bucket 0's probabilities and start share sum to 0.9"):
        save_table(tmp_path / "x.npz", starts={"pass": np.full(a.n_buckets, 0.4)}, **kw)
    with pytest.raises(ValueError, match=r"a start share is one number in \[0, 1\] per bucket"):
        save_table(tmp_path / "x.npz", starts={"pass": np.full(a.n_buckets, 1.5)}, **kw)
    with pytest.raises(ValueError, match="a start share needs a mixed table, and discard has none"):
        save_table(tmp_path / "x.npz", starts={"discard": np.zeros(5)}, **dict(kw, tables={"pass": probs * 2}))


def test_solve_writes_start_shares_that_the_file_plays_as_the_run_did(tmp_path):
    """A solve from a heuristic that reads more than the bucket (Estonian, thoughtful passes) keeps
    the heuristic's weight in every departed row; the written file plays the same as the last
    average the run measured (paired compare of the file against itself: difference exactly 0)."""
    from simcore.solve import solve
    from strategies.table import load_table

    out = tmp_path / "e.npz"
    r = solve("estonian", 3, iterations=2, deals_per_iteration=40_000, eval_deals=8192, block_size=8192, seed=2,
              init="pass=thoughtful,discard=best-potential", executor="threads", workers=1, out=str(out))
    assert r.starts and all(0 < s.max() < 1 for s in r.starts.values())
    tf = load_table(str(out))
    for d in r.starts:
        assert np.array_equal(tf.starts[d], r.starts[d]) and np.array_equal(tf.arrays[d], r.tables[d])
        busy = tf.arrays[d].sum(axis=1) > 0
        assert np.allclose(tf.arrays[d][busy].sum(axis=1) + tf.starts[d][busy], 1.0)
