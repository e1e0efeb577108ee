"""The contract every variant keeps, checked on every variant (and the toy game).

A new game inherits all of these by being in ``all_variants()``: random legal
play never fails, per-deal payoffs add up, wins and ties are consistent,
hidden cards never reach a strategy, 1 and 2 threads give identical numbers
for simulate, compare and analyze, and rollout situations reproduce what the
deciding seat saw. Each rule option's other values are checked too.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import strategies
from simcore import analyze, compare, simulate
from simcore.engine import NoRollout, deal_block, play_block, seat_streams
from simcore.engine.deal import block_seeds, deal
from simcore.variants import all_variants, get_variant, variant_classes
from toy_variant import register_toy, unregister_toy


@pytest.fixture(scope="module", autouse=True)
def toy():
    register_toy()
    yield
    unregister_toy()


def _instances():
    """Every variant with default options, plus one instance per other option value."""
    out = []
    names = list(variant_classes()) + (["toy"] if "toy" not in variant_classes() else [])
    for name in names:
        out.append((name, {}))
        cls = variant_classes().get(name)
        if cls is None:
            from toy_variant import TrumpPoints as cls
        for o in cls.options:
            values = (True,) if isinstance(o.default, bool) else [c for c in o.choices if c != o.default]
            out.extend((name, {o.name: v}) for v in values)
    return out


INSTANCES = _instances()
IDS = [n + "".join(f"-{k}={v}" for k, v in o.items()) for n, o in INSTANCES]


def _variant(name, opts):
    try:
        return get_variant(name, **opts)
    except ValueError as e:  # an option that needs another (lowball without high-only scoring)
        pytest.skip(f"not a valid combination: {e}")


def _tables(v):
    """Player counts to check: the limits and one between."""
    return sorted({v.min_players, (v.min_players + v.max_players) // 2, v.max_players})


def _random_lineup(v, P):
    return strategies.lineup(v, P, "random", "random")


def _first_legal(obs, rng):
    return np.argmax(obs["legal"], axis=1).astype(np.int64)


def _recorder(fn, log):
    def record(obs, rng):
        log[(obs["decision"], int(obs["round"]))] = {
            k: np.array(x, copy=True) for k, x in obs.items() if isinstance(x, np.ndarray)}
        return fn(obs, rng)

    return record


def _play(v, P, known, lineup, seed=0, n=None, forced=None):
    rng = np.random.default_rng(seed)
    n = known.shape[0] if known.ndim == 2 else n
    cards, chance = deal_block(v, known, n, P, rng)
    rngs = [np.random.default_rng(seed + 1 + p) for p in range(P)]
    return cards, chance, play_block(v, cards, P, lineup, rngs, forced, chance, record=True)


# -- play --------------------------------------------------------------------------------


@pytest.mark.parametrize("name,opts", INSTANCES, ids=IDS)
def test_random_legal_play_never_fails_and_payoffs_add_up_per_deal(name, opts):
    v = _variant(name, opts)
    for P in _tables(v):
        known = np.full(v.n_slots(P), -1, np.int8)
        cards, _, out = _play(v, P, known, _random_lineup(v, P), seed=P, n=1500)
        n = cards.shape[0]
        assert (np.sort(cards, axis=1)[:, 1:] != np.sort(cards, axis=1)[:, :-1]).all()
        assert out.payoffs.shape == (n, P) and out.wins.shape == (n, P) and out.ties.shape == (n, P)
        assert out.categories.shape == (n, P, len(v.hands))
        assert ((out.categories >= -1) & (out.categories <= 8)).all()
        if v.payoff_total is not None:
            # Per deal, not only on average.
            assert np.allclose(out.payoffs.sum(axis=1), v.payoff_total, atol=1e-9), (name, P)
        # At most one outright winner; a win excludes ties; nobody ties alone.
        assert (out.wins.sum(axis=1) <= 1).all()
        assert not (out.wins.any(axis=1) & out.ties.any(axis=1)).any()
        assert (out.ties.sum(axis=1) != 1).all()
        assert (out.wins | out.ties).any(axis=1).all()
        assert not (out.wins & out.ties).any()
        for part in v.parts:
            assert out.parts[part].shape == (n, P)
        # Every decision of every seat was taken, in every round, with a legal action.
        for d in v.decisions:
            for p, r in itertools.product(range(P), range(d.rounds)):
                key = (p, d.name, r)
                if key in out.actions:
                    a = out.actions[key]
                    assert a.shape == (n,) and (a >= 0).all() and (a < d.n_actions).all()


@pytest.mark.parametrize("name,opts", INSTANCES, ids=IDS)
def test_hidden_cards_never_reach_a_strategy(name, opts):
    # Deal the slots a seat never sees anew (every other seat taking its first legal
    # action): every observation that seat gets must stay exactly the same.
    v = _variant(name, opts)
    if not v.decisions:
        pytest.skip(f"{v.title} asks no strategy anything")
    for P in _tables(v):
        for seat in sorted({0, P - 1}):
            hidden = v.hidden_slots(P, seat)
            base = {d.name: ("first", _first_legal) for d in v.decisions}
            dealt, chance = deal_block(v, np.full(v.n_slots(P), -1, np.int8), 400, P, np.random.default_rng(P))
            redealt = dealt.copy()
            redealt[:, hidden] = -1
            redealt = deal(redealt, dealt.shape[0], np.random.default_rng(99))
            assert not hidden or (redealt[:, hidden] != dealt[:, hidden]).any()
            logs = []
            for cards in (dealt, redealt):
                log = {}
                lineup = [dict(base) for _ in range(P)]
                lineup[seat] = {d.name: ("rec", _recorder(strategies.resolve(v, d.name, "random")[1], log))
                                for d in v.decisions}
                rngs = [np.random.default_rng(7 + p) for p in range(P)]
                play_block(v, cards, P, lineup, rngs, None, chance)
                logs.append(log)
            assert logs[0].keys() == logs[1].keys() and logs[0]
            for key in logs[0]:
                for k in logs[0][key]:
                    assert np.array_equal(logs[0][key][k], logs[1][key][k]), (name, P, seat, key, k)


# -- runs -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name,opts", INSTANCES, ids=IDS)
def test_one_and_two_threads_give_identical_numbers(name, opts):
    v = _variant(name, opts)
    P = v.min_players + 1 if v.max_players > v.min_players else v.min_players
    kw = dict(seed=5, progress=False, block_size=512)
    spec = "random" if v.decisions else None
    runs = []
    for threads in (1, 2):
        s = simulate(v, P, 2048, threads=threads, hero=spec, field=spec, hero_seat=P - 1, **kw)
        c = compare(v, P, 2048, threads=threads, a=spec, b=None, field=spec, hero_seat=P - 1, **kw)
        a = analyze(v, P, threads=threads, n_deals=2048, stop_early=False, field=spec, hero_seat=P - 1, **kw)
        runs.append((s.table(), c.table(), a.table()))
    for one, two in zip(*runs):
        assert one.equals(two)
    assert runs[0][0].n[0] == 2048


@pytest.mark.parametrize("name,opts", INSTANCES, ids=IDS)
def test_block_results_are_the_block_seeds_results(name, opts):
    # The run's numbers are those of play_block on block_seeds' streams, block by block.
    v = _variant(name, opts)
    P = v.min_players
    spec = "random" if v.decisions else None
    r = simulate(v, P, 300, seed=9, hero=spec, field=spec, block_size=100, progress=False, threads=2)
    lineup = strategies.lineup(v, P, spec, spec)
    total = np.zeros(P)
    for b in range(3):
        seeds = block_seeds(9, b, P)
        cards, chance = deal_block(v, np.full(v.n_slots(P), -1, np.int8), 100, P,
                                   np.random.Generator(np.random.PCG64(seeds[0])))
        total += play_block(v, cards, P, lineup, seat_streams(seeds, P), None, chance).payoffs.sum(axis=0)
    assert np.array_equal(total, r.stats.share_sum)


# -- rollouts -------------------------------------------------------------------------------


@pytest.mark.parametrize("name,opts", INSTANCES, ids=IDS)
def test_rollout_situations_reproduce_what_the_seat_saw(name, opts):
    # From each decision's observation, situation() gives the cards the seat has seen and
    # the public actions; dealing the rest anew and replaying must show the seat exactly
    # the same observation at the same decision and round.
    v = _variant(name, opts)
    if not v.decisions:
        pytest.skip(f"{v.title} has no decisions")
    P = max(v.min_players, min(3, v.max_players))
    rand = {d.name: ("random", strategies.resolve(v, d.name, "random")[1]) for d in v.decisions}
    for seat in sorted({0, P - 1}):
        log = {}
        lineup = [dict(rand) for _ in range(P)]
        lineup[seat] = {d.name: ("rec", _recorder(rand[d.name][1], log)) for d in v.decisions}
        _play(v, P, np.full(v.n_slots(P), -1, np.int8), lineup, seed=seat, n=200)
        for (decision, rnd), obs in log.items():
            obs = dict(obs, seat=seat, n_players=P, decision=decision, round=rnd, variant=v.name)
            try:
                known, forced = v.situation(decision, obs, P)
            except NoRollout as e:
                assert decision in str(e)
                continue
            assert known.shape == (200, v.n_slots(P))
            replay = {}
            lineup[seat] = {d.name: ("rec", _recorder(rand[d.name][1], replay)) for d in v.decisions}
            _play(v, P, known, lineup, seed=100 + seat, forced=forced)
            again = replay[(decision, rnd)]
            for k in obs:
                if isinstance(obs[k], np.ndarray):
                    assert np.array_equal(obs[k], again[k]), (name, seat, decision, rnd, k)


def test_every_registered_variant_is_checked():
    assert set(all_variants()) - {"toy"} <= {n for n, _ in INSTANCES}
