"""Answers shared within one call (simcore.abstraction.with_answers): a chain of tables over one
built-in (the shipped Estonian table: medium tables on a coarse one on thoughtful and
best-potential) asks each built-in once per observation, and plays exactly what it played when
each asker computed its own answer."""
from __future__ import annotations

import numpy as np
import pytest

import simcore.abstraction as abstraction
import simcore.abstraction._common as common
import strategies.estonian as estonian
from abstraction_obs import assert_solved_plays_the_same, collect
from simcore.exploit import exploit
from strategies import resolve

CHAIN = "solved"  # the shipped Estonian table: medium over medium over coarse over the built-ins


@pytest.fixture(scope="module")
def seen():
    return collect("estonian", 6, n=3000, seed=5, policy="random")


def _no_sharing(monkeypatch):
    monkeypatch.setattr(common, "SHARE", False)


def _counted(monkeypatch, module, name, arg=None) -> list:
    """Put a wrapper in place of ``module.name`` that records each call (the length of positional
    argument ``arg``, or 1); the list of records."""
    calls = []
    real = getattr(module, name)

    def counted(*a):
        calls.append(1 if arg is None else len(a[arg]))
        return real(*a)

    monkeypatch.setattr(module, name, counted)
    return calls


def _play(decision, obs, seed=3):
    fn = resolve("estonian", decision, CHAIN)[1]
    return fn(obs, np.random.default_rng(seed))


@pytest.mark.parametrize("decision", ["pass", "discard"])
def test_the_chain_plays_the_same_with_and_without_shared_answers(seen, decision, monkeypatch):
    obs = seen[decision][0]
    shared = _play(decision, obs)
    _no_sharing(monkeypatch)
    assert np.array_equal(_play(decision, obs), shared)


def test_the_chain_asks_its_built_in_once(seen, monkeypatch):
    calls = _counted(monkeypatch, estonian, "_pick_thoughtful", 1)
    obs = seen["pass"][0]
    _play("pass", obs)
    assert len(calls) == 1  # every table's buckets and the fallback: one answer
    calls.clear()
    _no_sharing(monkeypatch)
    _play("pass", obs)
    fn, tables = resolve("estonian", "pass", CHAIN)[1]._policy(6), 0  # the table policy solved plays at 6
    while hasattr(fn, "fallback"):  # the tables of the chain (three since the seventeenth session)
        fn, tables = fn.fallback, tables + 1
    assert tables >= 2 and len(calls) == tables + 1  # each table's buckets, and the fallback


def test_an_answer_serves_only_the_arrays_it_came_from(seen):
    obs = abstraction.with_answers(seen["pass"][0])
    fn = resolve("estonian", "pass", "thoughtful")[1]
    full = abstraction.shared_answer(obs, fn, lambda: fn(abstraction.without_answers(obs), None))
    assert abstraction.shared_answer(obs, fn, lambda: pytest.fail("asked again")) is full
    rows = np.arange(0, len(full), 2)
    sub = abstraction.observation_rows(obs, rows, "estonian", "pass")
    assert abstraction.ANSWERS not in sub  # a subset of the rows starts afresh
    other = dict(obs, hand=obs["hand"][:, ::-1].copy())  # the same answers, another hand array
    asked = []
    again = abstraction.shared_answer(other, fn, lambda: asked.append(1) or fn(abstraction.without_answers(other),
                                                                                  None))
    assert asked == [1] and np.array_equal(again, fn(abstraction.without_answers(other), None))
    assert seen["pass"][0].get(abstraction.ANSWERS) is None  # the caller's observation is left as it was


def test_a_policy_that_does_not_share_never_sees_the_answers(seen):
    got = []

    def plain(obs, rng):
        got.append(set(obs))
        return np.zeros(len(obs["legal"]), np.int64)

    obs = abstraction.with_answers(seen["pass"][0])
    abstraction.ask_policy(plain, obs, np.random.default_rng(0), pure=False)
    abstraction.ask_policy(plain, obs, np.random.default_rng(0), pure=True)
    abstraction.ask_policy(plain, obs, np.random.default_rng(0), pure=True)  # pure: answered once
    assert len(got) == 2 and all(abstraction.ANSWERS not in keys for keys in got)


def test_a_best_response_to_the_chain_is_the_same_with_and_without_shared_answers(monkeypatch):
    kw = dict(field=CHAIN, seat=0, deals=8192, eval_deals=4096, abstraction="coarse", seed=11, rollout=0,
              workers=1, executor="threads", progress=False)
    shared = exploit("estonian", 6, **kw)
    _no_sharing(monkeypatch)
    plain = exploit("estonian", 6, **kw)
    a, b = shared.seats[0], plain.seats[0]
    assert (a.gain, a.stderr) == (b.gain, b.stderr)
    for d in shared.tables[0]:
        assert np.array_equal(shared.tables[0][d], plain.tables[0][d])


@pytest.mark.parametrize("game,P", [("slovak", 6), ("tapiola", 6), ("sviten", 6), ("russian", 4), ("russian", 3)])
def test_every_shipped_chain_plays_the_same_with_and_without_shared_answers(game, P, monkeypatch):
    assert_solved_plays_the_same(game, P, monkeypatch, common, "SHARE")


def test_slovaks_chain_asks_thoughtful_once(monkeypatch):
    import strategies.slovak as slovak

    obs = collect("slovak", 6, n=2000, seed=7, policy="random")["exchange2"][0]
    calls = _counted(monkeypatch, slovak, "_decide")
    resolve("slovak", "exchange2", "solved")[1](obs, np.random.default_rng(0))
    # The shipped chain (twenty-ninth session): the fine table, its first stage's coarse table, then
    # thoughtful. The fine buckets need no answer; the coarse table's buckets and the fallback share one.
    assert len(calls) == 1
    calls.clear()
    monkeypatch.setattr(common, "SHARE", False)
    resolve("slovak", "exchange2", "solved")[1](obs, np.random.default_rng(0))
    assert len(calls) == 2


def test_the_fit_asks_a_seat_that_cannot_see_the_deviation_once(monkeypatch):
    """simcore.exploit._Memo: after the fitted stage too, a seat asked the same question with its
    stream in the same state gets the first table's answer. Estonian's passes are private, so at
    the pass stage only the deviator and its left neighbour discard differently across the
    alternatives: the field is asked less, and the fit is the same as when every table asks."""
    import importlib

    import strategies.table as table

    ex = importlib.import_module("simcore.exploit")
    calls = []
    real = table.TablePolicy.__call__

    def counted(self, obs, rng):
        calls.append(self.decision)
        return real(self, obs, rng)

    monkeypatch.setattr(table.TablePolicy, "__call__", counted)
    kw = dict(field=CHAIN, seat=0, deals=4096, eval_deals=2048, abstraction="coarse", seed=3, rollout=0,
              workers=1, executor="threads", progress=False)
    kept = exploit("estonian", 6, **kw)
    n_kept = len(calls)

    class AskAlways(ex._Memo):
        def __call__(self, obs, rng):
            return np.asarray(self.fn(obs, rng), dtype=np.int64)

    monkeypatch.setattr(ex, "_Memo", AskAlways)
    calls.clear()
    asked = exploit("estonian", 6, **kw)
    assert n_kept < 0.7 * len(calls)
    assert (kept.seats[0].gain, kept.seats[0].stderr) == (asked.seats[0].gain, asked.seats[0].stderr)
    for d in kept.tables[0]:
        assert np.array_equal(kept.tables[0][d], asked.tables[0][d])


@pytest.mark.parametrize("decision", ["pass", "discard"])
def test_coarse_buckets_read_from_the_medium_ones_are_its_own(seen, decision):
    from simcore.abstraction import get_abstraction

    plain = seen[decision][0]
    medium, coarse = (get_abstraction("estonian", decision, 6, g) for g in ("medium", "coarse"))
    assert coarse.coarsens[0] == "medium"
    obs = abstraction.with_answers(plain)
    mb, mc = medium.observe(obs)
    cb, cc = coarse.observe(obs)  # derived from the medium answer, not read again
    own_b, own_c = coarse.kernel(plain, 0)
    assert np.array_equal(cb, own_b) and np.array_equal(cc, own_c) and cc is mc
    again = get_abstraction("estonian", decision, 6, "medium").observe(obs)  # another object, same buckets
    assert again[0] is mb


def test_every_coarsening_a_game_declares_holds(seen):
    """Any abstraction that declares itself a function of a finer one gives its own kernel's buckets."""
    from simcore.abstraction import abstractions

    found = 0
    for game, P in (("estonian", 6), ("slovak", 6), ("tapiola", 6), ("sviten", 6), ("russian", 4)):
        calls = seen if game == "estonian" else collect(game, P, n=1500, seed=2, policy="random")
        for d, obs_list in calls.items():
            by_name = abstractions(game, d, P)
            for a in by_name.values():
                if a.coarsens is None:
                    continue
                found += 1
                for plain in obs_list[:3]:
                    r = int(plain.get("round", 0))
                    obs = abstraction.with_answers(plain)
                    by_name[a.coarsens[0]].observe(obs, r)
                    b, c = a.observe(obs, r)
                    own_b, own_c = a.kernel(plain, r)
                    assert np.array_equal(b, own_b) and np.array_equal(c, own_c), (game, d, a.name)
    assert found >= 2


@pytest.mark.parametrize("P,policy", [(3, "conceal"), (4, "random")])
def test_every_buckets_of_a_game_declares_holds(P, policy):
    """An abstraction whose buckets alone are a function of a finer one's (``buckets_of``: Russian's
    coarse and medium, of the fine) gives its own kernel's buckets from the finer ones, on every row
    of a played block, and reads no row itself where the finer buckets were read."""
    from dataclasses import replace

    from simcore.abstraction import abstractions

    found = 0
    for d, obs_list in collect("russian", P, n=1000, seed=P, policy=policy).items():
        by_name = abstractions("russian", d, P)
        for a in by_name.values():
            if a.buckets_of is None:
                continue
            found += 1
            quiet = replace(a, bucket_kernel=lambda o, r: pytest.fail("read the rows again"))
            for plain in obs_list:
                r = int(plain.get("round", 0))
                obs = abstraction.with_answers(plain)
                by_name[a.buckets_of[0]].buckets(obs, r)
                assert np.array_equal(quiet.buckets(obs, r), a.bucket_kernel(plain, r)), (d, a.name, r)
    assert found == 2


def test_buckets_are_read_once_per_observation_that_shares_answers():
    """Russian's shipped 3-player chain holds two tables over the fine buckets: the second asker gets
    the first one's buckets, and an observation already read whole gives its buckets without a read."""
    from dataclasses import replace

    seen = collect("russian", 3, n=400, seed=2, policy="random")
    obs = seen["place"][5]
    a = abstraction.get_abstraction("russian", "place", 3, "fine")
    reads = []
    counted = replace(a, bucket_kernel=lambda o, r: reads.append(r) or a.bucket_kernel(o, r))
    plain = counted.buckets(obs)
    assert len(reads) == 1 and np.array_equal(plain, a.observe(obs)[0])
    shared = abstraction.with_answers(obs)
    first = counted.buckets(shared)
    assert counted.buckets(shared) is first and len(reads) == 2  # the second ask: no read
    whole = abstraction.with_answers(obs)
    counted.observe(whole)
    assert np.array_equal(counted.buckets(whole), first) and len(reads) == 2  # from observe's answer


@pytest.mark.parametrize("game, P, fine", [("tapiola", 6, "coarse"), ("russian", 3, "fine")])
def test_rows_are_ordered_once_per_observation_that_shares_answers(game, P, fine):
    """observe_rows with shared answers reads only rows no earlier call read (a chain of tables,
    each ordering the rows with an entry in its own table), and gives each row what the kernel
    gives that row alone; without shared answers, and after observe read the whole, no read."""
    from dataclasses import replace

    seen = collect(game, P, n=300, seed=4, policy="random")
    d = next(iter(seen))
    obs = seen[d][0]
    a = abstraction.get_abstraction(game, d, P, fine)
    n = len(obs["legal"])
    reads = []
    counted = replace(a, kernel=lambda o, r: reads.append(len(o["legal"])) or a.kernel(o, r))
    whole_b, whole_c = a.kernel(obs, int(obs.get("round", 0)))
    shared = abstraction.with_answers(obs)
    rng = np.random.default_rng(1)
    first, second = np.sort(rng.choice(n, n // 2, replace=False)), np.sort(rng.choice(n, n // 2, replace=False))
    new = np.setdiff1d(second, first)
    assert 0 < len(new) < len(second)
    for rows, read in ((first, len(first)), (second, len(new)), (first[::-1], 0), (np.arange(0), 0)):
        reads.clear()
        b, c = counted.observe_rows(shared, rows)
        assert np.array_equal(b, whole_b[rows]) and np.array_equal(c, whole_c[rows])
        assert sum(reads) == read, (rows[:5], reads)
    reads.clear()
    counted.observe_rows(obs, first)  # no shared answers: every call reads its rows
    assert reads == [len(first)]
    whole = abstraction.with_answers(obs)
    counted.observe(whole)
    reads.clear()
    b, c = counted.observe_rows(whole, second)
    assert not reads and np.array_equal(c, whole_c[second])


@pytest.mark.parametrize("level", [0, 1])
def test_slovaks_exchange2_coarse_and_medium_are_functions_of_the_fine_buckets(level):
    """Every hand up to the suits' names (the face-up pair, every flop of ranks, all 64 flop suit
    patterns) gives, at ``level``, the bucket the map holds for its fine bucket: the map is a
    function, and the one built on first use (one relabelling of the suits a hand) is that one."""
    from simcore.abstraction import slovak as S

    mp = np.full(S.N_FINE2, -1, np.int64)
    assert S._exchange2_of_fine(level, mp, True, S.MULTI2, S.MULTI3, S.RANK_GROUP) == 0
    assert np.array_equal(S.exchange2_of_fine(level), mp)
    assert (mp >= 0).sum() > 200_000  # every fine code a hand can have


def test_slovaks_chain_reads_each_observation_once_with_the_fine_kernel():
    """In the shipped Slovak chain (fine tables over coarse or medium ones) the coarser buckets come
    from the fine ones: their kernels read no row, and the chain plays as with every table reading
    its own (no shared answers)."""
    from dataclasses import replace

    from simcore.abstraction import abstractions

    for d, obs_list in collect("slovak", 6, n=1500, seed=4, policy="random").items():
        by_name = abstractions("slovak", d, 6)
        for name in ("coarse", "medium"):
            a = by_name[name]
            quiet = replace(a, kernel=lambda o, r: pytest.fail("read the rows again"))
            for plain in obs_list:
                obs = abstraction.with_answers(plain)
                by_name["fine"].observe(obs)
                b, c = quiet.observe(obs)
                own_b, own_c = a.kernel(plain, 0)
                assert np.array_equal(b, own_b) and np.array_equal(c, own_c), (d, name)


@pytest.fixture(scope="module")
def russian_seen():
    return collect("russian", 4, n=1500, seed=13, policy="random")["place"]


def test_russians_joint_answers_are_each_policys_own(russian_seen):
    best, conceal = (resolve("russian", "place", name)[1] for name in ("best-gain", "conceal"))
    assert best.joint_answers is conceal.joint_answers
    for obs in russian_seen[::5]:  # every round, seats in turn
        joint = best.joint_answers(obs)
        assert set(joint) == {best, conceal}
        for fn in (best, conceal):
            assert np.array_equal(joint[fn], fn(obs, None))


def test_a_solves_table_over_russian_buckets_scores_a_row_once(russian_seen, monkeypatch):
    """A solve's average table reads the fine buckets of every row (their order is ``conceal``'s
    choice) and falls back on ``best-gain``: one pass of the scores gives both."""
    import strategies.russian as russian
    from simcore.abstraction import get_abstraction
    from simcore.solve import MixedTable
    from simcore.variants import get_variant

    v = get_variant("russian")
    abst = get_abstraction(v, "place", 4, "fine")
    obs = russian_seen[40]
    probs = np.zeros((abst.n_buckets, 3))
    b = abst.buckets(obs)
    probs[b[::2], 1] = 1.0  # half the rows hold an entry: canonical action 1
    table = MixedTable(abst, probs, resolve(v, "place", "best-gain"))
    calls = _counted(monkeypatch, russian, "_decide", 0)
    shared = table(obs, np.random.default_rng(0))
    assert calls == [len(b)]  # the buckets' order and the fallback: one pass over every row
    for switch in ("JOINT", "SHARE"):  # each policy computed alone (the benchmark's peer), no sharing at all
        calls.clear()
        monkeypatch.setattr(common, switch, False)
        assert np.array_equal(table(obs, np.random.default_rng(0)), shared)
        assert len(calls) == 2
