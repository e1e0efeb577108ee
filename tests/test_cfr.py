"""Sampled CFR (``pvsim solve --method cfr``) on Draw Duel, whose exploitability is exact by
enumeration (tests/solve_exact.py), and on a built-in game.

Fixed seeds; the exact figures the assertions leave room around are in the comments.
"""
from __future__ import annotations

import numpy as np
import pytest

from test_exploit_game import history_abstraction
from test_solve import _whole, duel, exact  # noqa: F401 - the module-scoped Draw Duel fixtures

SMALL = dict(deals_per_iteration=20_000, eval_deals=2048, block_size=4096, options={"deck": 7})


def test_cfr_beats_fictitious_play_at_the_same_budget_exactly(exact):
    """12 iterations of 20,000 fitting deals: CFR's exact gain 0.0035-0.0037 (seeds 1-3), fictitious
    play's 0.0091-0.0096, from a start of 0.097 points a deal."""
    from simcore.solve import solve

    abst, E = exact
    for seed in (1, 2):
        cfr = solve("duel", 2, iterations=12, abstraction=abst, seed=seed, executor="threads", workers=1,
                    method="cfr", **SMALL)
        fp = solve("duel", 2, iterations=12, abstraction=abst, seed=seed, executor="threads", workers=1, **SMALL)
        g_cfr, g_fp = E.gain(_whole(abst, cfr)), E.gain(_whole(abst, fp))
        assert g_cfr <= 0.005 and g_cfr < g_fp / 2, (seed, g_cfr, g_fp)
        # measured every 2 iterations (the players) and at the end; the table kept is the last measured
        assert [e["iteration"] for e in cfr.log] == [1, 3, 5, 7, 9, 11] and cfr.table_measured
        assert cfr.log[-1]["gain"] <= g_cfr + 4 * cfr.log[-1]["stderr"]  # a lower bound, 4 SE
        for d, t in _whole(abst, cfr).items():
            s = t.sum(axis=1)
            assert np.all((np.abs(s - 1) < 1e-9) | (s == 0)), d


def test_cfr_is_the_same_on_threads_and_processes_and_resumes_as_uninterrupted(duel, tmp_path):
    from simcore.solve import load_checkpoint, solve

    kw = dict(SMALL, abstraction=history_abstraction(7), seed=4, method="cfr")
    one = solve("duel", 2, iterations=5, executor="threads", workers=1, **kw)
    procs = solve("duel", 2, iterations=5, executor="processes", workers=2, **kw)
    for d in one.tables:
        assert np.array_equal(one.tables[d], procs.tables[d]), d
        assert np.array_equal(one.starts.get(d, 0), procs.starts.get(d, 0)), d
    ck = tmp_path / "c.ckpt"
    solve("duel", 2, iterations=3, executor="threads", workers=1, checkpoint=str(ck), **kw)
    assert load_checkpoint(ck).cfr is not None
    done = solve("duel", 2, iterations=5, executor="threads", workers=1, resume=str(ck), **kw)
    for d in one.tables:
        assert np.array_equal(one.tables[d], done.tables[d]), d
    with pytest.raises(ValueError, match="method 'cfr' there, 'fp' here; measure_every 2 there, None here"):
        solve("duel", 2, iterations=5, executor="threads", workers=1, resume=str(ck),
              **dict(kw, method="fp"))


def test_bad_method_settings_are_clear_errors(duel):
    from simcore.solve import solve

    with pytest.raises(ValueError, match="method must be one of fp, cfr, got 'mccfr'"):
        solve("duel", 2, abstraction=history_abstraction(7), method="mccfr", **SMALL)
    with pytest.raises(ValueError, match="measure_every must be a positive integer"):
        solve("duel", 2, abstraction=history_abstraction(7), method="cfr", measure_every=0, **SMALL)


def test_cfr_on_a_built_in_game_writes_a_table_with_start_shares(tmp_path, capsys):
    from simcore.cli import main
    from strategies.table import load_table

    out = tmp_path / "e.npz"
    rc = main(["solve", "estonian", "--players", "3", "--method", "cfr", "--iterations", "3", "--deals", "20000",
               "--eval-deals", "4096", "--init", "pass=thoughtful,discard=best-potential", "--no-progress",
               "--block-size", "4096", "--out", str(out)])
    text = capsys.readouterr().out
    assert rc == 0 and "sampled CFR+" in text
    tf = load_table(str(out))
    assert tf.meta["algorithm"].startswith("sampled CFR+") and tf.meta["measured"] is not None
    # the start (which reads more than the buckets) keeps a share wherever regrets were never positive
    assert tf.starts and max(float(s.max()) for s in tf.starts.values()) == 1.0


@pytest.mark.parametrize("method, title", [("cfr", "sampled CFR+"), ("fp", "fictitious play")])
def test_the_convergence_chart_names_its_method_and_counts_whole_iterations(duel, method, title, monkeypatch,
                                                                              tmp_path):
    """The chart's title names the algorithm that made the table (it said "fictitious play" for CFR
    runs too), and its iteration axis has whole-number ticks only."""
    import matplotlib.figure

    from simcore.solve import convergence_chart, solve

    r = solve("duel", 2, iterations=3, abstraction=history_abstraction(7), seed=1, executor="threads", workers=1,
              method=method, **SMALL)
    seen = {}

    def keep(fig, path, **kw):
        ax = fig.axes[0]
        seen.update(title=ax.get_title(), ticks=list(ax.get_xticks()))

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", keep)
    convergence_chart(r, tmp_path / "unused.png")  # savefig is stubbed: nothing lands in the working folder
    assert title in seen["title"] and ("fictitious" in seen["title"]) == (method == "fp")
    assert seen["ticks"] and all(float(t).is_integer() for t in seen["ticks"]), seen["ticks"]
