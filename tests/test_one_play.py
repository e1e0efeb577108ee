"""The one-play fit (``fit="one-play"``): every stage of the deviator from one play of each deal,
its other stages playing the field.

- On Draw Duel with a 7-card deck (5,040 equally likely deals, tests/test_exploit_exact.py), the
  exact one-step improvement of the field is enumerated: per bucket of each stage, the exact value
  of each action with everything else played by the field. The sampled fit must choose it in every
  bucket visited enough to tell (the exact gap at least 4 standard errors of the sampled
  difference), and its measured gain must land within 4 standard errors of its table's exact
  value, which no table beats the exact BR's. Fixed seed (3).
- On Russian and Estonian, each stage's sums are, number for number, those of the backward fit's
  own stage fit (:func:`simcore.exploit.fit_stage`) with every other stage playing the field, on
  the same deals: the one play shares its first play and its memo between stages and changes
  nothing else. The same table comes on threads and on worker processes.
"""
from __future__ import annotations

import numpy as np
import pytest

from solve_exact import histories
import test_exploit_exact
from test_exploit_exact import DECK, FIELD, _bucket_card, _play_all, exact_best_response, table_value
from test_exploit_game import DRAW, STAKE, DrawDuel, always_play, below_4, enumerated_chance, history_abstraction, \
    register_duel, unregister_duel

# A field that always plays its stake: its one-step improvement (0.094 a deal, exact) is well short of
# its best response (0.131), which also plays the stake well after its own draws, so the gain tells the
# two fits apart. Against the field of tests/test_exploit_exact.py they are 0.094 and 0.097.
PLAY_FIELD = "draw=below-4,stake=play"


def _play_field():
    return [{DRAW: ("below-4", below_4), STAKE: ("play", always_play)}] * 2


@pytest.fixture(scope="module")
def duel():
    register_duel()
    yield DrawDuel(deck=DECK)
    unregister_duel()


def exact_one_step(v, abst):
    """({decision: (n_buckets,) best action, -1 not reached}, {decision: (n_buckets,) |gap|}) of
    seat 0's one-step improvement of the field: each stage's action against the field's
    continuation (its own other stages too), by enumeration."""
    chance = enumerated_chance(DECK, 2)
    vals = v.values(chance, 2)
    lu = test_exploit_exact._field_lineup()
    h, e0 = vals[:, 0, 0], vals[:, 1, 0]
    fa0 = (h < 4).astype(np.int64)  # the field: exchange a card under 4, stake from 4
    fa1 = (np.where(fa0 == 1, e0, h) < 4).astype(np.int64)
    stages = [((0, DRAW, 0), DRAW, abst[DRAW].buckets({"history": histories(vals, 0)}, 0)),
              ((0, DRAW, 1), DRAW, abst[DRAW].buckets({"history": histories(vals, 0, fa0)}, 1)),
              ((0, STAKE), STAKE, abst[STAKE].buckets({"history": histories(vals, 0, fa0, fa1)}))]
    tables = {d: np.full(abst[d].n_buckets, -1, np.int64) for d in (DRAW, STAKE)}
    gaps = {d: np.full(abst[d].n_buckets, np.nan) for d in (DRAW, STAKE)}
    for key, d, k in stages:
        nb = abst[d].n_buckets
        seen = np.bincount(k, minlength=nb) > 0
        q = np.stack([np.bincount(k, weights=_play_all(v, chance, lu, {key: a}).payoffs[:, 0], minlength=nb)
                      / np.maximum(np.bincount(k, minlength=nb), 1) for a in (0, 1)], axis=1)
        tables[d][seen] = np.argmax(q, axis=1)[seen]
        gaps[d][seen] = np.abs(q[seen, 1] - q[seen, 0])
    return tables, gaps


def test_the_one_play_fit_finds_the_exact_one_step_improvement(duel, monkeypatch):
    from simcore.exploit import exploit

    monkeypatch.setattr(test_exploit_exact, "_field_lineup", _play_field)  # the enumerations' field
    abst = history_abstraction(DECK)
    exact, gaps = exact_one_step(duel, abst)
    _, _, br_value, field_value, chance = exact_best_response(duel, abst)
    one_step_gain = table_value(duel, abst, exact, chance) - field_value
    assert 0.02 < one_step_gain < br_value - field_value - 0.03  # something to find; well short of a BR

    # fixed seed; 4-standard-error tolerances below
    r = exploit("duel", 2, PLAY_FIELD, seat=0, deals=60_000, eval_deals=100_000, abstraction=abst, seed=3, rollout=0,
                executor="threads", workers=2, options={"deck": DECK}, keep_stats=True, fit="one-play")
    rep, fitted = r.seats[0], r.tables[0]
    assert r.fit == "one-play" and r.to_dict()["fit"] == "one-play" and "one play" in r.text()
    assert [st.stage.name for st in rep.stages] == ["draw round 1", "draw round 2", "stake"]
    checked = 0
    field_action = {DRAW: lambda card: int(card < 4), STAKE: lambda card: 1}
    for st in rep.stages:
        s, d = st.stats, st.stage.decision
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = s.diff / s.count
            se = np.sqrt(np.maximum(s.dsq / s.count - mean ** 2, 0) / s.count).max(axis=1)
        telling = (s.count.min(axis=1) >= 32) & (gaps[d] >= 4 * se)
        rounds = np.array([_round_of(d, b) for b in range(abst[d].n_buckets)])
        for b in np.flatnonzero(telling & (rounds == st.stage.round)):
            chosen = fitted[d][b]
            if chosen < 0:
                chosen = field_action[d](_bucket_card(d, int(b), DECK, st.stage.round))
            assert chosen == exact[d][b], (st.stage.name, int(b), chosen, exact[d][b], gaps[d][b])
            checked += 1
    assert checked >= 40
    own_gain = table_value(duel, abst, fitted, chance) - field_value
    assert own_gain <= br_value - field_value + 1e-12
    assert abs(rep.gain - own_gain) <= 4 * rep.stderr, (rep.gain, rep.stderr, own_gain)
    assert abs(rep.gain - one_step_gain) <= 4 * rep.stderr, (rep.gain, rep.stderr, one_step_gain)


def _round_of(decision, b):
    """The round of a history bucket: the draw's second round holds the first's history too."""
    return 0 if decision != DRAW or b < DECK else 1


@pytest.mark.parametrize("game,players,field,abstraction", [
    ("russian", 3, "solved", "coarse"),  # a mixed table over Russian buckets: the memo by rows, uniforms
    ("estonian", 3, None, "coarse"),  # two decisions, one round each
])
def test_each_stage_sums_what_the_backward_fit_of_that_stage_sums_against_the_field(game, players, field,
                                                                                     abstraction):
    from simcore.api import _registry
    from simcore.exploit import FIT, derived_seed, fit_one_play, fit_stage, play_order, resolve_abstractions
    from simcore.variants import get_variant

    v = get_variant(game)
    lineup = _registry().lineup(v, players, field, field)
    name, absts = resolve_abstractions(v, players, abstraction)
    seat, seed, deals = 1, derived_seed(11, FIT, 1, 0, 0), 8192
    stages = play_order(v, players, lineup, seat)
    empty = {d: np.full(absts[d].n_buckets, -1, np.int64) for d in absts}
    run = {"executor": "threads", "workers": 2}
    one, _ = fit_one_play(v, players, lineup, seat, stages, absts, name, empty, deals=deals, seed=seed,
                          block_size=4096, run=run)
    assert sorted(one.stats) == sorted({st.decision for st in stages})
    for st in stages:
        back, _ = fit_stage(v, players, lineup, seat, st, absts, name, empty, deals=deals, seed=seed,
                            block_size=4096, run=run)
        mine = one.round_of[st.decision] == st.round
        assert np.array_equal(np.flatnonzero(back.field_count), np.flatnonzero(mine)), st.name
        s = one.stats[st.decision]
        for k in ("total", "diff", "dsq", "count", "field_total", "field_count", "field_choice"):
            assert np.array_equal(getattr(back, k), np.where(mine.reshape(-1, *[1] * (getattr(s, k).ndim - 1)),
                                                              getattr(s, k), 0)), (st.name, k)
        assert back.n == one.stats[st.decision].n == deals


def test_the_same_table_on_threads_and_processes_and_a_resume_of_its_fit():
    from simcore.exploit import exploit

    kw = dict(seat=0, deals=8192, eval_deals=4096, abstraction="coarse", seed=5, rollout=0, block_size=4096,
              fit="one-play", top=1)
    a = exploit("russian", 3, "solved", executor="threads", workers=1, **kw)
    b = exploit("russian", 3, "solved", executor="processes", workers=2, **kw)
    assert np.array_equal(a.tables[0]["place"], b.tables[0]["place"])
    assert (a.seats[0].gain, a.seats[0].stderr) == (b.seats[0].gain, b.seats[0].stderr)
    assert {st.executor for st in b.seats[0].stages} == {"processes"}
    assert (a.tables[0]["place"] >= 0).any()  # it departs somewhere: the comparison has something in it
    assert [st.stage.round for st in a.seats[0].stages] == list(range(12))


def test_a_checkpointed_one_play_fit_resumes_to_the_same_numbers(tmp_path):
    from simcore.exploit import exploit

    kw = dict(seat=1, deals=8192, eval_deals=4096, abstraction="coarse", seed=2, rollout=0, block_size=2048,
              fit="one-play", executor="threads", workers=2)
    ref = exploit("estonian", 3, None, **kw)
    ck = tmp_path / "run.ckpt"
    exploit("estonian", 3, None, checkpoint=str(ck), **kw)
    assert (tmp_path / "run.ckpt.seat1.oneplay").exists()
    (tmp_path / "run.ckpt.seat1.eval").unlink()  # as if interrupted after the fit
    again = exploit("estonian", 3, None, resume=str(ck), **kw)
    for d in ref.tables[1]:
        assert np.array_equal(ref.tables[1][d], again.tables[1][d]), d
    assert (ref.seats[0].gain, ref.seats[0].stderr) == (again.seats[0].gain, again.seats[0].stderr)


def test_bad_input_to_the_fit_is_a_clear_error(duel):
    from simcore.exploit import exploit, fit_seat
    from simcore.solve import solve

    kw = dict(deals=4096, eval_deals=4096, block_size=2048, rollout=0, abstraction=history_abstraction(),
              executor="threads", workers=1)
    with pytest.raises(ValueError, match="fit must be one of backward, one-play, got 'forward'"):
        exploit("duel", 2, FIELD, fit="forward", **kw)
    with pytest.raises(ValueError, match=r"no passes \(2\)"):
        exploit("duel", 2, FIELD, fit="one-play", passes=2, **kw)
    with pytest.raises(ValueError, match="start"):
        exploit("russian", 3, "first-open", fit="one-play", start="conceal", **dict(kw, abstraction="coarse"))
    with pytest.raises(ValueError, match="passes"):
        fit_seat(None, 2, None, 0, {}, None, deals=10, seed=0, passes=2, fit="one-play")
    skw = dict(deals_per_iteration=4096, eval_deals=4096, block_size=2048, abstraction=history_abstraction(),
               executor="threads", workers=1)
    with pytest.raises(ValueError, match="fit is fictitious play's"):
        solve("duel", 2, method="cfr", fit="one-play", **skw)
    with pytest.raises(ValueError, match="passes must be 1"):
        solve("duel", 2, passes=2, fit="one-play", **skw)
    with pytest.raises(ValueError, match="fit must be one of"):
        solve("duel", 2, fit="sideways", **skw)


def test_a_one_play_solve_resumes_and_refuses_a_backward_checkpoint(duel, tmp_path):
    from simcore.solve import solve

    kw = dict(deals_per_iteration=20_000, eval_deals=20_000, block_size=4096, abstraction=history_abstraction(7),
              seed=6, executor="threads", workers=1, fit="one-play")
    full = solve("duel", 2, iterations=3, **kw)
    assert full.fit == "one-play"
    ck = tmp_path / "op.ckpt"
    solve("duel", 2, iterations=2, checkpoint=ck, **kw)
    done = solve("duel", 2, iterations=3, resume=ck, **kw)
    for d in full.tables:
        assert np.array_equal(full.tables[d], done.tables[d]), d
    with pytest.raises(ValueError, match="fit"):
        solve("duel", 2, iterations=3, resume=ck, **dict(kw, fit="backward"))
    # the other fit is another solve: other BRs, another table
    back = solve("duel", 2, iterations=3, **dict(kw, fit="backward"))
    assert any(not np.array_equal(full.tables[d], back.tables[d]) for d in full.tables)


def test_the_command_line_takes_the_fit(tmp_path, capsys):
    import json

    from simcore.cli import main
    from strategies.table import load_table

    out = tmp_path / "r3.npz"
    assert main(["solve", "russian", "--players", "3", "--deals", "4096", "--eval-deals", "2048", "--block-size",
                 "2048", "--iterations", "1", "--seed", "1", "--workers", "1", "--executor", "threads",
                 "--no-progress", "--fit", "one-play", "--out", str(out), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert (d["method"], d["fit"], d["start_weight"]) == ("fp", "one-play", 1)
    assert load_table(out).meta["fit"] == "one-play"
    assert main(["exploit", "russian", "--players", "3", "--field", "best-gain", "--seat", "0", "--deals", "4096",
                 "--eval-deals", "2048", "--rollout", "0", "--workers", "1", "--executor", "threads",
                 "--no-progress", "--fit", "one-play", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["fit"] == "one-play"
    with pytest.raises(SystemExit):
        main(["exploit", "russian", "--players", "3", "--fit", "sideways"])
    assert "invalid choice: 'sideways'" in capsys.readouterr().err
