"""Validated best responses (exploit's and solve's ``validate``): a departure chosen on some
fitting blocks stays only where the held-out blocks confirm it.

Checked on Draw Duel (deck 7, 2 players), whose exact action values come from
enumeration (tests/solve_exact.py), and on hand-built fitting sums.
"""
from __future__ import annotations

import numpy as np
import pytest

from test_exploit_game import STAKE, history_abstraction
from test_solve import _played, _whole, duel, exact  # noqa: F401 - the module-scoped Draw Duel fixtures


def _stats(diff, count, hold_diff=None, hold_count=None):
    """FitStats of one action pair per bucket: action 0 the field's, action 1 the alternative
    (mean paired gain ``diff / count``, a standard error of about 0.01 on its fitting part)."""
    from simcore.exploit import FitStats

    nb = len(diff)
    s = FitStats(nb, 2)
    s.field_count[:] = count
    s.count[:, 0] = s.count[:, 1] = count
    s.diff[:, 1] = diff
    if hold_count is not None:
        s._hold()
        s.hold_count[:, 0] = s.hold_count[:, 1] = hold_count
        s.hold_diff[:, 1] = hold_diff
        s.count += s.hold_count
        s.diff += s.hold_diff
    fit = s.count[:, 1] - (0 if hold_count is None else s.hold_count[:, 1])
    s.dsq[:, 1] = (s.diff[:, 1] / np.maximum(s.count[:, 1], 1)) ** 2 * s.count[:, 1] + 0.01 ** 2 * fit ** 2
    return s


def test_choose_keeps_a_departure_only_where_the_held_out_blocks_confirm_it():
    from simcore.exploit import choose

    n = np.array([100, 100, 100, 100])
    # Fitting part: buckets 0-2 ahead by 0.05 a deal (5 standard errors), bucket 3 behind.
    fit_diff = np.array([5.0, 5.0, 5.0, -5.0])
    # Held-out part: bucket 0 confirms, bucket 1 contradicts, bucket 2 was not seen there.
    hold_diff = np.array([2.0, -1.0, 0.0, 9.0])
    hold_n = np.array([50, 50, 0, 50])
    plain = choose(_stats(fit_diff, n), min_visits=16, confidence=0.95)
    assert plain.tolist() == [1, 1, 1, -1]
    held = choose(_stats(fit_diff, n, hold_diff, hold_n), min_visits=16, confidence=0.95)
    # chosen on the fitting part alone (bucket 3's held-out gain cannot make it depart), then confirmed
    assert held.tolist() == [1, -1, -1, -1]


def test_held_out_sums_survive_a_checkpoint_and_a_merge():
    import pickle

    from simcore.exploit import FitStats

    s = _stats(np.array([5.0, 1.0]), np.array([100, 30]), np.array([2.0, -1.0]), np.array([50, 10]))
    t = pickle.loads(pickle.dumps(s))
    for k in ("diff", "dsq", "count", "hold_diff", "hold_dsq", "hold_count", "field_count"):
        assert np.array_equal(getattr(s, k), getattr(t, k)), k
    plain = pickle.loads(pickle.dumps(FitStats(3, 2)))
    assert plain.hold_count is None  # a fit without validation carries no held-out arrays


def _stake_departures(abst, E, field, seeds, validate, deals=8192):
    """Seat 0's stake departures from ``field`` (None: the default policies; else a {decision: probs}
    table) at confidence 0, where every positive estimate departs, over several seeds: (how many,
    the sum over them of their exact worth in their bucket: Q of the chosen action less the
    field's expected Q there)."""
    from simcore.api import _registry, _variant
    from simcore.exploit import exploit
    from simcore.solve import MixedTable

    probs = field or {d: np.zeros((abst[d].n_buckets, 2)) for d in abst}
    _, Q = E.best_response(probs)
    q = Q[STAKE]
    init = _registry().lineup(_variant("duel", {"deck": 7}), 2, None, None)[0]
    table = {d: (f"t[{d}]", MixedTable(abst[d], probs[d], init[d])) for d in abst}
    played = np.nan_to_num(_played(abst, probs, STAKE))
    field_q = (played * np.nan_to_num(q)).sum(axis=1)
    n, worth = 0, 0.0
    for seed in seeds:
        r = exploit("duel", 2, table, seat=0, deals=deals, eval_deals=1024, abstraction=abst, seed=seed,
                    options={"deck": 7}, min_visits=4, confidence=0.0, passes=1, rollout=0,
                    block_size=deals // 8, executor="threads", workers=1, validate=validate)
        t = r.tables[0][STAKE]
        b = np.flatnonzero(t >= 0)
        b = b[~np.isnan(q[b, 0])]
        n += len(b)
        worth += float((q[b, t[b]] - field_q[b]).sum())
    return n, worth


def test_near_an_equilibrium_validation_keeps_less_than_half_the_loss_of_noise_departures(exact):
    """Near an equilibrium no departure gains: a BR's departures there are noise, and the
    average of fictitious play takes each one in. Validated, their exact total loss is at most
    half of a plain fit's (seeds 0-5; measured 0.36x at 8,192 deals, 0.33x at 2,048)."""
    from test_solve import _exact_fp

    abst, E = exact
    eq = _exact_fp(abst, E, 40)  # exact fictitious play: exact gain 0.0015 points a deal
    assert E.gain(eq) < 0.002
    n0, w0 = _stake_departures(abst, E, eq, range(6), validate=False)
    n1, w1 = _stake_departures(abst, E, eq, range(6), validate=True)
    assert w0 < 0 and n0 >= 100, (n0, w0)
    assert w0 / 2 <= w1 <= 0, (w0, w1)
    assert n1 < n0 / 2, (n0, n1)


def test_against_a_weak_field_validation_keeps_most_of_what_departing_gains(exact):
    """Against the default field (far from equilibrium) the validated fit still departs where it
    pays: it keeps at least 60% of a plain fit's exact total gain (seeds 0-5; measured 75% at 2,048
    fitting deals, 100% at 8,192)."""
    abst, E = exact
    n0, w0 = _stake_departures(abst, E, None, range(6), validate=False, deals=2048)
    n1, w1 = _stake_departures(abst, E, None, range(6), validate=True, deals=2048)
    assert w0 > 0 and w1 >= 0.6 * w0, (n0, w0, n1, w1)


def test_a_validated_fit_is_the_same_table_at_any_worker_count_and_on_processes(duel):
    from simcore.exploit import exploit

    kw = dict(seat=0, deals=20_000, eval_deals=4096, abstraction=history_abstraction(7), seed=3,
              options={"deck": 7}, confidence=0.5, rollout=0, block_size=2048, validate=True)
    one = exploit("duel", 2, None, executor="threads", workers=1, **kw)
    procs = exploit("duel", 2, None, executor="processes", workers=2, **kw)
    for d in one.tables[0]:
        assert np.array_equal(one.tables[0][d], procs.tables[0][d]), d
    assert one.seats[0].gain == procs.seats[0].gain
    plain = exploit("duel", 2, None, executor="threads", workers=1, **dict(kw, validate=False))
    assert any(not np.array_equal(one.tables[0][d], plain.tables[0][d]) for d in one.tables[0])


def test_validated_fictitious_play_falls_to_a_quarter_of_the_start_exactly(exact):
    from simcore.solve import solve

    abst, E = exact
    start = E.gain({d: np.zeros((abst[d].n_buckets, 2)) for d in abst})
    r = solve("duel", 2, iterations=12, abstraction=abst, seed=1, executor="threads", workers=1, validate=True,
              deals_per_iteration=20_000, eval_deals=20_000, block_size=4096, options={"deck": 7})
    assert E.gain(_whole(abst, r)) <= start / 4, (E.gain(_whole(abst, r)), start)


def test_validate_needs_two_blocks_and_a_yes_or_no(duel):
    from simcore.exploit import exploit
    from simcore.solve import solve

    abst = history_abstraction(7)
    with pytest.raises(ValueError, match=r"deals 4,096 is not above block_size 4,096"):
        exploit("duel", 2, None, seat=0, deals=4096, block_size=4096, abstraction=abst, options={"deck": 7},
                validate=True)
    with pytest.raises(ValueError, match=r"deals_per_iteration 4,096 is not above block_size 4,096"):
        solve("duel", 2, deals_per_iteration=4096, block_size=4096, abstraction=abst, options={"deck": 7},
              validate=True)
    with pytest.raises(TypeError, match="validate must be True or False, got 'yes'"):
        exploit("duel", 2, None, seat=0, abstraction=abst, options={"deck": 7}, validate="yes")


def test_the_command_line_takes_validate(tmp_path, capsys):
    from simcore.cli import main

    rc = main(["exploit", "estonian", "--players", "3", "--seat", "0", "--deals", "40000", "--eval-deals",
               "8192", "--rollout", "0", "--validate", "--no-progress", "--block-size", "8192"])
    out = capsys.readouterr().out
    assert rc == 0 and "departures validated on held-out blocks" in out
    out_file = tmp_path / "s.npz"
    rc = main(["solve", "estonian", "--players", "3", "--iterations", "1", "--deals", "40000", "--eval-deals",
               "8192", "--validate", "--no-progress", "--block-size", "8192", "--out", str(out_file)])
    assert rc == 0 and out_file.exists()
    from strategies.table import load_table

    assert load_table(str(out_file)).meta.get("validate") is True
