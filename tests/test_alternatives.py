"""map_alternatives: several alternatives on the same deals, reduced per block, merged in block order.

What it must give is what the hand-written loop gave (deal a block from its
seeds, play every alternative with fresh seat streams, reduce): bit-identical
at any worker count, on threads and on worker processes, with the variant's
play_alternatives seeing every alternative of a block at once.
"""
import numpy as np
import pytest

import strategies  # noqa: F401  (registers the policies)
from simcore.engine import (
    AlternativesTask, deal_block, map_alternatives, map_blocks, merge_parts, play_block, seat_streams,
)
from simcore.engine.deal import block_seeds
from simcore.engine.executors import NotShippable
from simcore.variants import get_variant
from simcore.variants.estonian import EstonianTwist
from strategies import lineup

P = 4
SPECS = ["pass=random,discard=random", "pass=lowest,discard=best-made", "pass=highest,discard=random"]


def seat0_sums(cards, outcomes):
    """Module level, so that worker processes can import it: seat 0's payoff sum and wins
    per alternative, and a fingerprint of the block's cards."""
    return (np.array([o.payoffs[:, 0].sum() for o in outcomes]),
            np.array([int(o.wins[:, 0].sum()) for o in outcomes]),
            int(cards.astype(np.int64).sum()))


def _lineups(v):
    return [lineup(v, P, spec, "pass=random,discard=random") for spec in SPECS]


def _by_hand(v, lus, forced, n_deals, seed, block):
    """The loop the experiments wrote by hand before map_alternatives."""
    known = np.full(v.n_slots(P), -1, np.int8)

    def run_block(b, n):
        seeds = block_seeds(seed, b, P)
        cards, chance = deal_block(v, known, n, P, np.random.Generator(np.random.PCG64(seeds[0])))
        outs = [play_block(v, cards, P, lu, seat_streams(seeds, P),
                           {k: np.full(n, a, np.int64) for k, a in f.items()}, chance)
                for lu, f in zip(lus, forced)]
        return seat0_sums(cards, outs)

    return map_blocks(run_block, n_deals, block, merge_parts, threads=1)[0]


def _same(a, b):
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) and a[2] == b[2]


def test_it_is_the_hand_written_loop_at_any_thread_count():
    v = get_variant("estonian")
    lus = _lineups(v)
    forced = [{}, {(1, "pass"): 2}, {}]
    want = _by_hand(v, lus, forced, 5000, 11, 1024)
    for threads in (1, 2):
        got, info = map_alternatives(v, P, lus, 5000, seat0_sums, seed=11, forced=forced, block_size=1024,
                                     threads=threads)
        _same(got, want)
        assert info.n_deals == 5000 and info.executor == "threads"
    # the alternatives differ (the test can fail), and a different seed deals differently
    assert len(set(want[0].tolist())) == 3
    other, _ = map_alternatives(v, P, lus, 5000, seat0_sums, seed=12, forced=forced, block_size=1024, threads=1)
    assert other[2] != want[2]


@pytest.mark.parametrize("executor", ["processes", "dask"])
def test_worker_processes_and_dask_give_the_same_numbers(executor, request):
    v = get_variant("estonian")
    lus = _lineups(v)
    where = ({"scheduler": request.getfixturevalue("scheduler")} if executor == "dask"
             else {"executor": "processes", "workers": 2})
    want, _ = map_alternatives(v, P, lus, 6000, seat0_sums, seed=3, block_size=500, threads=1)
    got, info = map_alternatives(v, P, lus, 6000, seat0_sums, seed=3, block_size=500, **where)
    assert info.executor == executor
    _same(got, want)


def test_the_task_pickles_and_runs_a_block_as_the_original_does():
    import pickle

    v = get_variant("estonian")
    from simcore.engine import Job

    job = Job(v, P, _lineups(v), np.full(v.n_slots(P), -1, np.int8), 5, 256, [{}] * 3)
    task = AlternativesTask(job, seat0_sums)
    again = pickle.loads(pickle.dumps(task))
    assert isinstance(again, AlternativesTask) and again is not task
    _same(again(3, 200), task(3, 200))


def test_the_variant_sees_every_alternative_of_a_block_at_once():
    calls = []

    class Counting(EstonianTwist):
        def play_alternatives(self, cards, n_players, tables):
            calls.append((cards.shape[0], len(tables)))
            return super().play_alternatives(cards, n_players, tables)

    v = Counting()
    map_alternatives(v, P, _lineups(v), 1000, seat0_sums, seed=1, block_size=400, threads=1)
    assert calls == [(400, 3), (400, 3), (200, 3)]


def test_reduce_gets_the_dealt_cards_and_recorded_actions():
    v = get_variant("estonian")
    seen = []

    def reduce(cards, outcomes):
        seen.append(cards.copy())
        assert all(set(o.actions) == {(p, d, 0) for p in range(P) for d in ("pass", "discard")}
                   for o in outcomes)
        return len(cards)

    n, _ = map_alternatives(v, P, _lineups(v)[:2], 900, reduce, seed=2, block_size=300, record=True, threads=1)
    assert n == 900 and len(seen) == 3
    seeds = block_seeds(2, 1, P)
    want, _ = deal_block(v, np.full(v.n_slots(P), -1, np.int8), 300, P,
                         np.random.Generator(np.random.PCG64(seeds[0])))
    assert np.array_equal(seen[1], want)


def russian_won(cards, outcomes):
    """Module level: hands won per seat and hand from each outcome's final state, and the payoffs."""
    from simcore.variants.russian import showdown

    return [(showdown(**o.state)["won"].sum(axis=0), o.payoffs.sum(axis=0)) for o in outcomes]


def test_outcomes_carry_the_final_state_when_asked_also_on_worker_processes():
    from simcore.variants.russian import showdown

    v = get_variant("russian")
    lus = [lineup(v, 3, f"place={p}", "place=by-rank") for p in ("by-rank", "best-gain")]
    states = []

    def keep(cards, outcomes):
        states.append([o.state for o in outcomes])
        for o in outcomes:  # the state is the game's: its showdown is the outcome's
            assert o.state is None or np.array_equal(showdown(**o.state)["payoffs"], o.payoffs)
        return 0

    map_alternatives(v, 3, lus, 600, keep, block_size=300, keep_state=True, threads=1)
    map_alternatives(v, 3, lus, 600, keep, block_size=300, threads=1)
    assert all(s is not None for s in states[0] + states[1]) and all(s is None for s in states[2] + states[3])
    want, _ = map_alternatives(v, 3, lus, 2400, russian_won, block_size=300, keep_state=True, threads=1)
    got, info = map_alternatives(v, 3, lus, 2400, russian_won, block_size=300, keep_state=True, workers=2,
                                 executor="processes")
    assert info.executor == "processes"
    assert all(np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) for a, b in zip(want, got))


def test_known_slots_are_dealt_in_every_block():
    v = get_variant("estonian")
    known = np.full(v.n_slots(P), -1, np.int8)
    known[:3] = [48, 49, 50]
    first = []
    map_alternatives(v, P, _lineups(v)[:1], 600, lambda cards, outs: first.append(cards[:, :3].copy()) or 0,
                     known=known, block_size=256, threads=1)
    assert all((f == [48, 49, 50]).all() for f in first)


def test_a_closure_stays_on_threads_and_cannot_be_sent_to_processes():
    v = get_variant("estonian")
    lus = _lineups(v)

    def local(cards, outcomes):
        return seat0_sums(cards, outcomes)

    got, info = map_alternatives(v, P, lus, 3000, local, seed=4, block_size=100, workers=2)
    assert info.executor == "threads"
    _same(got, map_alternatives(v, P, lus, 3000, seat0_sums, seed=4, block_size=100, threads=1)[0])
    with pytest.raises(NotShippable, match="cannot be sent to worker processes"):
        map_alternatives(v, P, lus, 3000, local, seed=4, block_size=100, workers=2, executor="processes")


@pytest.mark.parametrize("kwargs, match", [
    ({"lineups": []}, "at least one lineup"),
    ({"forced": [{}]}, r"one dict of forced actions per alternative \(3\), got 1"),
    ({"forced": [{}, {}, 7]}, r"forced\[2\] must be a dict"),
    ({"reduce": "sums"}, "reduce must be a function"),
    ({"merge": 0}, "merge must be a function"),
    ({"lineups": [[{}] * 3]}, r"lineups\[0\] has 3 seats for 4 players"),
    ({"n_deals": 0}, "number of deals must be a positive integer, got 0"),
    ({"seed": -1}, "seed must be a non-negative integer, got -1"),
    ({"block_size": 1.5}, "block size must be a positive integer"),
    ({"record": "yes"}, "record must be True or False"),
    ({"keep_state": 1}, "keep_state must be True or False"),
])
def test_bad_input_is_named(kwargs, match):
    v = get_variant("estonian")
    args = {"lineups": _lineups(v), "n_deals": 100, "reduce": seat0_sums, **kwargs}
    rest = {k: x for k, x in args.items() if k not in ("lineups", "n_deals", "reduce")}
    with pytest.raises(ValueError, match=match):
        map_alternatives(v, P, args["lineups"], args["n_deals"], args["reduce"], threads=1, **rest)


def test_merge_parts_merges_statistics_containers_and_counts():
    from simcore.engine.stats import PairedStats

    a = PairedStats.of_block(np.array([[1.0, 0.0], [0.0, 1.0]]))
    b = PairedStats.of_block(np.array([[1.0, 1.0]]))
    acc = merge_parts({"s": a, "n": 2}, {"s": b, "n": 1, "new": np.ones(2)})
    assert acc["s"] is a and a.n == 3 and acc["n"] == 3 and acc["new"].tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match="2 items against 3"):
        merge_parts((1, 2), (1, 2, 3))
