"""The ``rowwise`` trait: a policy that declares it answers each row from that row alone and
draws nothing from its stream, so a table policy asks it for the rows its own entries leave
(strategies.table.TablePolicy). Every registered policy that declares it is checked here on
real observations (random play), and a table over it plays what it played when it asked the
fallback for every row."""
from __future__ import annotations

import numpy as np
import pytest

import strategies  # noqa: F401  (registers the policies)
import strategies.table as table_module
from abstraction_obs import collect
from simcore.abstraction import observation_rows
from simcore.engine import policy_traits
from strategies import resolve
from strategies.registry import _REGISTRY

ROWWISE = sorted((g, d, name) for g, by_d in _REGISTRY.items() for d, by_name in by_d.items()
                 for name, e in by_name.items()
                 if e.function is not None and policy_traits(e.function).get("rowwise", False))
OPTIONS = {"tapiola": ({}, {"lowball": True})}


def test_some_policies_declare_it():
    assert ("tapiola", "discard", "made") in ROWWISE and ("tapiola", "last", "best") in ROWWISE


@pytest.fixture(scope="module")
def seen():
    from simcore.variants import get_variant
    out = {}
    for game in sorted({g for g, _, _ in ROWWISE}):
        for opts in OPTIONS.get(game, ({},)):
            v = get_variant(game, **opts)
            out[(game, tuple(sorted(opts.items())))] = (v, collect(v, 6 if game != "russian" else 4, n=1500, seed=9))
    return out


def _state(rng):
    return rng.bit_generator.state


def test_every_rowwise_policy_answers_a_subset_as_it_answers_the_whole(seen):
    checked = 0
    for (game, _), (v, obs_by_d) in seen.items():
        for g, d, name in ROWWISE:
            if g != game or d not in obs_by_d:  # (lowball has no last decision)
                continue
            fn = resolve(v, d, name)[1]
            for i, obs in enumerate(obs_by_d[d][:6]):
                rng = np.random.default_rng(i)
                before = _state(rng)
                try:
                    whole = np.asarray(fn(obs, rng), dtype=np.int64)
                except ValueError:  # a policy for the other rules (lowball only, ...)
                    continue
                assert _state(rng) == before, (g, d, name)  # draws nothing
                rows = np.sort(np.random.default_rng(100 + i).choice(len(whole), len(whole) // 3, replace=False))
                part = np.asarray(fn(observation_rows(obs, rows, g, d), rng), dtype=np.int64)
                assert np.array_equal(part, whole[rows]), (g, d, name, i)
                checked += 1
    assert checked >= 20


def test_a_table_asks_a_rowwise_fallback_for_the_rows_it_misses_and_plays_the_same(seen, monkeypatch):
    """The shipped Tapiola chain ends in rowwise built-ins: each decision plays the same actions
    when its root is asked for every row (the trait ignored), and is asked for fewer rows."""
    v, obs_by_d = seen[("tapiola", ())]
    asked = []
    for d in ("discard", "last"):
        for i, obs in enumerate(obs_by_d[d][:4]):
            fn = resolve(v, d, "solved")[1]
            got = fn(obs, np.random.default_rng(i))
            root = fn._policy(6)
            while isinstance(root.fallback, table_module.TablePolicy):
                root = root.fallback
            real = root.fallback
            sizes = []
            monkeypatch.setattr(root, "fallback", lambda o, r, real=real: sizes.append(len(o["legal"])) or real(o, r))
            assert np.array_equal(fn(obs, np.random.default_rng(i)), got)
            monkeypatch.setattr(root, "_fallback_rows", None)
            assert np.array_equal(fn(obs, np.random.default_rng(i)), got), (d, i)
            asked.append((sizes[0], len(obs["legal"])))
            monkeypatch.undo()
    assert all(a <= n for a, n in asked) and any(a < n for a, n in asked), asked


def test_the_solvers_average_table_asks_a_rowwise_fallback_for_its_misses_too(seen):
    """simcore.solve.MixedTable (the field of a solve) shares the table policy's fallback ask: with
    made as its fallback it asks made for the rows without an entry, and plays what it played
    when it asked made for every row."""
    from simcore.abstraction import get_abstraction
    from simcore.solve import MixedTable

    v, obs_by_d = seen[("tapiola", ())]
    a = get_abstraction(v, "discard", 6, "coarse")
    probs = np.zeros((a.n_buckets, a.n_actions))
    rng = np.random.default_rng(0)
    probs[rng.choice(a.n_buckets, a.n_buckets // 2, replace=False), 0] = 1.0  # half the buckets hold an entry
    made = resolve(v, "discard", "made")
    table = MixedTable(a, probs, made)
    assert table._fallback_rows == ("tapiola", "discard")
    sizes = []
    table.fallback = (made[0], lambda o, r: sizes.append(len(o["legal"])) or made[1](o, r))
    for i, obs in enumerate(obs_by_d["discard"][:4]):
        got = table(obs, np.random.default_rng(i))
        rows_asked = sizes[-1]
        table._fallback_rows = None
        assert np.array_equal(table(obs, np.random.default_rng(i)), got), i
        assert sizes[-1] == len(obs["legal"]) > rows_asked > 0
        table._fallback_rows = ("tapiola", "discard")


@pytest.mark.parametrize("make", [
    lambda rng: rng.integers(0, 52, (64, 3)).astype(np.int8),  # C-contiguous: np.take
    lambda rng: rng.integers(-1, 52, (3, 64, 3, 3)).astype(np.int8).transpose(1, 0, 2, 3),  # a seat-major view
    lambda rng: rng.integers(0, 2, (64, 3)).astype(np.bool_)[::-1],  # negative strides
    lambda rng: rng.integers(0, 52, 64).astype(np.int8),  # one column
])
def test_take_rows_is_fancy_indexing_whatever_the_layout(make):
    from simcore.abstraction._common import take_rows

    rng = np.random.default_rng(3)
    a = make(rng)
    for rows in (np.arange(0), np.array([5]), np.array([63, 0, 7, 7]), np.flatnonzero(rng.random(64) < 0.5)):
        got = take_rows(a, rows)
        assert got.dtype == a.dtype and np.array_equal(got, a[rows])


def test_observation_rows_takes_the_same_rows_by_mask_or_by_index():
    # Russian shows its public state as (n, P, ...) views of seat-major memory: so here too
    obs = collect("russian", 3, n=200, seed=4)["place"][17]
    for k in ("up", "placed", "n_down"):
        a = obs[k]
        obs[k] = np.ascontiguousarray(np.moveaxis(a, 1, 0)).swapaxes(0, 1)
        assert not obs[k].flags.c_contiguous and np.array_equal(obs[k], a)
    n = obs["legal"].shape[0]
    mask = np.random.default_rng(4).random(n) < 0.3
    by_mask = observation_rows(obs, mask, "russian", "place")
    by_index = observation_rows(obs, np.flatnonzero(mask), "russian", "place")
    for k, a in obs.items():
        if isinstance(a, np.ndarray) and a.ndim and a.shape[0] == n:
            assert np.array_equal(by_mask[k], a[mask]) and np.array_equal(by_index[k], a[mask]), k


def test_take_rows_takes_a_permuted_view_along_its_memory():
    from simcore.abstraction._common import _contiguous_order, take_rows

    history = np.arange(12 * 3 * 40, dtype=np.int8).reshape(12, 3, 40).transpose(2, 0, 1)  # (n, rounds, P)
    assert _contiguous_order(history.strides, history.shape, 1) == ((1, 2, 0), 2, (2, 0, 1))
    rows = np.array([39, 0, 4, 4])
    assert np.array_equal(take_rows(history, rows), history[rows])
    every_other = np.zeros((3, 80, 3), np.int8)[:, ::2].transpose(1, 0, 2)  # not a permutation of memory
    assert _contiguous_order(every_other.strides, every_other.shape, 1) is None
