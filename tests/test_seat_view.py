"""A game's seat view (``Variant.seat_view``) and the ``seat_view`` trait.

A policy that declares ``seat_view`` answers each row from the game's seat view of that row
alone (and draws nothing); an abstraction that declares it reads its buckets from it; a table
over such an abstraction, falling back on such policies, answers row by row from it and from
one uniform a row per draw. A best response's fit then asks a field seat, in each replay of a
deal after the deviator's action, only about the rows whose view that action changed
(``simcore.exploit._Memo``). Checked here on real observations (random play): what the view
leaves out is changed and every declared answer stays; the fit reuses answers and fits the
very same tables as when it asks every row; the reused uniforms and the stream are the ones
the whole call would have used.
"""
from __future__ import annotations

import importlib

import numpy as np
import pytest

import strategies  # noqa: F401  (registers the policies)
from abstraction_obs import collect, copy_obs
from simcore.abstraction import abstractions, observation_rows, seat_view_kind
from simcore.engine import policy_traits
from simcore.variants import get_variant
from strategies import resolve
from strategies.registry import _REGISTRY

ex = importlib.import_module("simcore.exploit")

SEAT_VIEW = sorted((g, d, name) for g, by_d in _REGISTRY.items() for d, by_name in by_d.items()
                   for name, e in by_name.items()
                   if e.function is not None and policy_traits(e.function).get("seat_view", False))


def test_the_russian_policies_that_read_their_own_hands_declare_it_and_fight_weak_does_not():
    names = {name for g, d, name in SEAT_VIEW if g == "russian"}
    assert {"conceal", "best-gain", "two-and-dump", "first-open", "by-rank"} <= names
    assert "fight-weak" not in names  # it reads the other players' hands
    assert {g for g, _, _ in SEAT_VIEW} == {"russian", "sviten"}  # the games that declare a seat view


def test_every_sviten_policy_that_reads_its_cards_declares_it():
    names = {(d, name) for g, d, name in SEAT_VIEW if g == "sviten"}
    assert {("draw", n) for n in ("draw-poker", "omaha-flop", "balanced", "one-lowest")} <= names
    assert {("open", n) for n in ("improves", "both-halves")} <= names
    assert ("draw", "random") not in names  # it draws from its stream
    # they read nothing: asked whole, faster than a view is compared
    assert not names & {("draw", "pat"), ("open", "accept"), ("open", "decline")}


@pytest.fixture(scope="module")
def seen():
    return {P: collect("russian", P, n=1500, seed=9)["place"] for P in (3, 4)}


def _outside_the_view(obs, rng):
    """``obs`` with what its seat's view leaves out changed: the other seats' face-up cards moved
    between their face-up slots (the cards in sight stay the same), their face-down counts and
    every seat's placement history scrambled."""
    out = copy_obs(obs)
    seat, up, placed = int(obs["seat"]), out["up"], obs["placed"]
    n, P = up.shape[:2]
    for i in range(n):
        slots = [(q, h, j) for q in range(P) if q != seat for h in range(3) for j in range(min(placed[i, q, h], 3))]
        cards = [up[i, q, h, j] for q, h, j in slots]
        for (q, h, j), c in zip(slots, rng.permutation(cards) if cards else []):
            up[i, q, h, j] = c
    out["n_down"] = rng.integers(0, 2, obs["n_down"].shape).astype(obs["n_down"].dtype)
    out["history"] = rng.integers(-1, 3, obs["history"].shape).astype(obs["history"].dtype)
    return out


def test_what_the_view_leaves_out_changes_no_declared_answer(seen):
    v = get_variant("russian")
    rng = np.random.default_rng(4)
    checked = 0
    for P, calls in seen.items():
        absts = [a for a in abstractions("russian", "place", P).values() if a.seat_view]
        assert len(absts) == 3
        for obs in calls[::5]:
            other = _outside_the_view(obs, rng)
            assert np.array_equal(v.seat_view("place", obs), v.seat_view("place", other))
            for g, d, name in SEAT_VIEW:
                if g != "russian":
                    continue
                fn = resolve(v, d, name)[1]
                assert np.array_equal(fn(obs, np.random.default_rng(0)), fn(other, np.random.default_rng(0))), name
            r = int(obs["round"])
            for a in absts:
                b0, c0 = a.kernel(obs, r)
                b1, c1 = a.kernel(other, r)
                assert np.array_equal(b0, b1) and np.array_equal(c0, c1), a.name
            checked += 1
    assert checked >= 10


def test_the_view_sees_a_card_come_into_sight(seen):
    v = get_variant("russian")
    obs = seen[4][20]
    key = v.seat_view("place", obs)
    other = copy_obs(obs)
    seat = int(obs["seat"])
    q = (seat + 1) % 4
    rows = np.flatnonzero(obs["placed"][:, q, 0] == 0)[:50]  # hand 1 of seat q empty: show it a card
    assert len(rows)
    changed = []
    for i in rows:
        up, down = obs["up"][i], obs["own_down"][i]
        sight = set(obs["flop"][i]) | set(up[up >= 0]) | set(down[down >= 0]) | {obs["card"][i]}
        c = next(c for c in range(52) if c not in sight)
        other["up"][i, q, 0, 0] = c
        other["placed"][i, q, 0] = 1
        changed.append(i)
    new = v.seat_view("place", other)
    differ = ~(key == new).all(axis=1)
    assert differ[changed].all() and differ.sum() == len(changed)


def test_the_solved_tables_answer_row_by_row():
    v = get_variant("russian")
    for P in (3, 4):
        assert seat_view_kind(resolve(v, "place", "solved")[1], P) == "uniform"
    assert seat_view_kind(resolve(v, "place", "conceal")[1], 3) == "pure"
    assert seat_view_kind(resolve(v, "place", "fight-weak")[1], 3) is None
    assert seat_view_kind(resolve(v, "place", "random")[1], 3) is None


def _memo(P):
    v = get_variant("russian")
    fn = resolve(v, "place", "solved")[1]
    return ex._Memo(fn, *ex._row_view(v, "place", fn, P)), fn


def test_a_replay_asks_the_rows_it_changed_with_the_whole_calls_uniforms():
    """The memo's answer to a second question is the policy's own, and the stream ends where the
    whole call leaves it: a third of the rows are another deal's (their view changed)."""
    for P in (3, 4):
        a = collect("russian", P, n=3000, seed=1)["place"]
        b = collect("russian", P, n=3000, seed=2)["place"]
        for k in (2, len(a) // 2, len(a) - 3):
            first, other = a[k], b[k]
            assert (first["seat"], first["round"]) == (other["seat"], other["round"])
            second = copy_obs(first)
            rows = np.arange(len(first["card"])) % 3 == 0
            for key, x in other.items():
                if isinstance(x, np.ndarray) and x.shape[:1] == rows.shape:
                    second[key][rows] = x[rows]
            memo, fn = _memo(P)
            memo(first, np.random.default_rng(5))
            got_rng, ref_rng = np.random.default_rng(5), np.random.default_rng(5)
            got = memo(second, got_rng)
            ref = np.asarray(fn(second, ref_rng))
            assert np.array_equal(got, ref)
            assert got_rng.bit_generator.state == ref_rng.bit_generator.state
            assert memo.rows_kept >= 0.6 * len(rows) and memo.rows_asked >= 0.3 * len(rows)


class _TwoDraws:
    """A made-up policy of one uniform a row: a second draw only when some row holds a card below 8."""

    def seat_view_kind(self, n_players):
        return "uniform"

    def __call__(self, obs, rng):
        u = rng.random(len(obs["card"]))
        if (obs["card"] < 8).any():
            u = u + rng.random(len(obs["card"]))
        return (u * 3).astype(np.int64) % 3


def test_where_the_rows_asked_draw_less_than_the_first_call_the_whole_question_is_asked():
    v = get_variant("russian")
    obs = collect("russian", 3, n=500, seed=3)["place"][5]
    first = copy_obs(obs)
    first["card"][:] = 20
    first["card"][0] = 4  # the first question draws twice, for this row alone
    second = copy_obs(first)
    second["card"][0] = 30  # now no row needs a second draw
    fn = _TwoDraws()
    memo = ex._Memo(fn, *ex._row_view(v, "place", fn, 3))
    memo(first, np.random.default_rng(8))
    got_rng, ref_rng = np.random.default_rng(8), np.random.default_rng(8)
    assert np.array_equal(memo(second, got_rng), fn(second, ref_rng))
    assert got_rng.bit_generator.state == ref_rng.bit_generator.state
    assert memo.rows_asked == 0  # asked as a whole


@pytest.mark.parametrize("game, P, abstraction, fit", [("russian", 3, "fine", "backward"),
                                                   ("sviten", 6, "medium", "one-play")])
def test_the_fit_reuses_answers_and_fits_the_same_tables(monkeypatch, game, P, abstraction, fit):
    kept = []
    real = ex._Memo._by_rows

    def counted(self, r, first, obs, rng):
        before = self.rows_kept
        out = real(self, r, first, obs, rng)
        kept.append(self.rows_kept - before)
        return out

    monkeypatch.setattr(ex._Memo, "_by_rows", counted)
    kw = dict(field="solved", seat=0, deals=2048, eval_deals=2048, abstraction=abstraction, seed=3, rollout=0,
              workers=1, executor="threads", progress=False, block_size=1024, keep_stats=True, fit=fit)
    by_rows = ex.exploit(game, P, **kw)
    assert sum(kept) > 0
    monkeypatch.setattr(ex, "BY_ROWS", False)
    kept.clear()
    whole = ex.exploit(game, P, **kw)
    assert not kept
    assert (by_rows.seats[0].gain, by_rows.seats[0].stderr) == (whole.seats[0].gain, whole.seats[0].stderr)
    for d in by_rows.tables[0]:
        assert np.array_equal(by_rows.tables[0][d], whole.tables[0][d])
    for a, b in zip(by_rows.seats[0].stages, whole.seats[0].stages, strict=True):  # every sum of every stage
        for name in ex.ARRAYS:
            assert np.array_equal(getattr(a.stats, name), getattr(b.stats, name)), (a.stage.name, name)


# -- Sviten: the draw's view is the five cards and the flop; One Open's adds the thrown mask,
# the open card and the cards served face up so far -----------------------------------------

SVITEN_READS = {"draw": ("hand", "board"), "open": ("hand", "mask", "open_card", "board", "open_cards")}


@pytest.fixture(scope="module")
def sviten_seen():
    return {P: collect("sviten", P, n=400, seed=5) for P in (6, 3, 9)}  # 9: the most open cards a view packs


def _declared(v, decision):
    return [(name, resolve(v, d, name)[1]) for g, d, name in SEAT_VIEW if g == "sviten" and d == decision]


def test_what_sviten_s_view_leaves_out_changes_no_declared_answer(sviten_seen):
    """The seats before have thrown other counts, and (open) refused other open cards: the view,
    every declared policy's answers and every abstraction's buckets and canonical order stay."""
    v = get_variant("sviten")
    rng = np.random.default_rng(6)
    checked = 0
    for P, by_decision in sviten_seen.items():
        for decision, calls in by_decision.items():
            absts = list(abstractions("sviten", decision, P).values())
            assert all(a.seat_view for a in absts)
            for obs in calls[:: max(1, len(calls) // 6)]:
                other = copy_obs(obs)
                other["thrown"] = rng.integers(-1, 6, obs["thrown"].shape).astype(obs["thrown"].dtype)
                if "refused" in obs:
                    other["refused"] = rng.random(obs["refused"].shape) < 0.5
                assert np.array_equal(v.seat_view(decision, obs), v.seat_view(decision, other))
                for name, fn in _declared(v, decision):
                    assert np.array_equal(fn(obs, np.random.default_rng(0)), fn(other, np.random.default_rng(0))), name
                for a in absts:
                    b0, c0 = a.kernel(obs)
                    b1, c1 = a.kernel(other)
                    assert np.array_equal(b0, b1) and np.array_equal(c0, c1), a.name
                checked += 1
    assert checked >= 12


def test_sviten_s_view_changes_wherever_a_declared_policy_reads_a_change():
    """Each field the view holds is read by some declared policy (its answers move when that
    field moves), and every row whose answer moves has another view: the view leaves out
    nothing they read. (Other seats' open cards move both-halves's answer in a few rows in a
    hundred: hence the 4,000 deals.)"""
    v = get_variant("sviten")
    seen = collect("sviten", 6, n=4000, seed=7)
    for decision, keys in SVITEN_READS.items():
        obs = max(seen[decision], key=lambda o: o["legal"][:, -1].sum())
        if decision == "open":  # the rows served an open card (one card thrown): any mask moved is one
            obs = observation_rows(obs, obs["legal"][:, 1], "sviten", "open")
            assert len(obs["legal"]) >= 20
        view = v.seat_view(decision, obs)
        assert view.dtype == np.int64 and view.shape[0] == len(obs["legal"])
        for key in keys:
            other = copy_obs(obs)
            other[key] = np.roll(obs[key], 1, axis=0)  # each row gets the row before's
            moved = ~(v.seat_view(decision, other) == view).all(axis=1)
            read = np.zeros(len(moved), np.bool_)
            for name, fn in _declared(v, decision):
                read |= fn(obs, np.random.default_rng(0)) != fn(other, np.random.default_rng(0))
            assert read.any(), f"no declared {decision} policy reads {key}"
            assert not (read & ~moved).any(), f"{decision}: an answer moved with {key} but the view did not"


def test_sviten_s_solved_table_answers_row_by_row():
    v = get_variant("sviten")
    for d in ("draw", "open"):
        assert seat_view_kind(resolve(v, d, "solved")[1], 6) == "uniform"
    assert seat_view_kind(resolve(v, "draw", "balanced")[1], 6) == "pure"
    assert seat_view_kind(resolve(v, "open", "both-halves")[1], 6) == "pure"
    assert seat_view_kind(resolve(v, "draw", "random")[1], 6) is None
