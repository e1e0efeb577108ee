"""experiments/solved.py: the solved-table charts are checkable against direct paired runs.

Every Monte Carlo figure here is compared with another run of the same seed (equal, not
within a tolerance), or is an identity of the same run's sums (to 1e-12, float rounding).
"""
from __future__ import annotations

import pickle

import numpy as np
import pytest

from experiments import solved

pytestmark = pytest.mark.skipif(not solved.shipped(["estonian"]) or not solved.shipped(["slovak"]),
                                reason="the Estonian and Slovak solved tables are not shipped")


def _entry(game):
    return solved.shipped([game])[0]


def _chart(game, name):
    return next(c for c in solved._charts(game) if c.name == name)


def test_chart_total_is_the_paired_compare_of_the_same_seed():
    from simcore import compare

    e = _entry("estonian")
    df, st = solved.disagreement(e, _chart("estonian", "solved_pass"), 1 << 15, 77, 2)
    r = compare("estonian", 6, 1 << 15, 77, a="solved", b=solved.hero_spec(e, "pass", "thoughtful"),
                field="solved", progress=False)
    d, se = r.stats.diff(0, 1)
    a = df[df["class"] == "all"].iloc[0]
    assert a.n == 1 << 15
    assert a.gain == d and a.gain_stderr == se  # the same deals, the same sums: equal
    classes = df[df["class"] != "all"]
    assert classes.n.sum() == a.n
    # the classes' contributions add up to the whole (frequency-weighted gains, and the differing deals')
    assert abs(classes.contribution.sum() - a.gain) < 1e-12
    assert abs((classes.gain * classes.frequency).sum() - a.gain) < 1e-12
    assert abs(classes.differ_contribution.sum() - a.differ_contribution) < 1e-12
    for lab in solved.EST_PASS_LABELS:  # shares of each class's deals
        assert np.all((classes[f"solved: {lab}"] >= 0) & (classes[f"solved: {lab}"] <= 1))
    assert np.allclose(classes[[f"solved: {lab}" for lab in solved.EST_PASS_LABELS]].sum(axis=1), 1.0)


def test_last_decision_differs_only_where_the_actions_differ():
    """The discard is Estonian's last decision: where S and H discard alike, seat 0's result is the
    same, so all of the gain comes from the deals where they differ."""
    e = _entry("estonian")
    df, _ = solved.disagreement(e, _chart("estonian", "solved_discard"), 1 << 15, 78, 2)
    a = df[df["class"] == "all"].iloc[0]
    assert 0 < a.disagree < 0.2
    assert abs(a.gain - a.differ_contribution) < 1e-12
    classes = df[df["class"] != "all"]
    assert np.allclose(classes.contribution, classes.differ_contribution, atol=1e-12)
    # a class where they never differ has no gain at all
    same = classes[classes.disagree == 0]
    assert (same.gain == 0).all()


def test_held_at_discard_is_what_the_seat_holds():
    """discard=lowest throws the lowest of the three cards held: the reconstruction agrees on every deal."""
    from simcore.engine import map_alternatives
    from simcore.variants import get_variant
    from strategies import lineup

    v = get_variant("estonian")
    for P in (2, 6):
        pas = "solved" if P == 6 else "thoughtful"  # the table is shipped at 6 players
        lu = [lineup(v, P, f"pass={pas},discard=lowest", f"pass={pas}")]

        def reduce(cards, outs, P=P):
            o = outs[0]
            passes = np.stack([o.actions[(s, "pass", 0)] for s in range(P)])
            held = solved.held_at_discard(cards, passes, P, v.layout)
            return np.array([np.sum(np.argmin(held, axis=1) == o.actions[(0, "discard", 0)]), len(cards)])

        same, n = map_alternatives(v, P, lu, 10_000, reduce, seed=3, record=True, threads=1)[0]
        assert n == 10_000 and same == n


def test_slovak_face_up_cards_at_the_second_exchange():
    """exchange2=lower mucks the lower face-up card: the reconstructed cards say which (pairs left out)."""
    from simcore.engine import map_alternatives
    from simcore.variants import get_variant
    from strategies import lineup

    v = get_variant("slovak")
    lu = [lineup(v, 6, "exchange1=solved,exchange2=lower", "solved")]

    def reduce(cards, outs):
        o = outs[0]
        a1 = o.actions[(0, "exchange1", 0)]
        up = solved.slovak_up_at_exchange2(cards, a1, 6, v.layout)
        ranks = up.astype(np.int64) >> 2
        ok = ranks[:, 0] != ranks[:, 1]
        a2 = o.actions[(0, "exchange2", 0)]
        return np.array([np.sum((a2 - 1 == np.argmin(ranks, axis=1))[ok]), ok.sum(), np.sum(a1 > 0)])

    same, n, mucked1 = map_alternatives(v, 6, lu, 20_000, reduce, seed=4, record=True, threads=1)[0]
    assert mucked1 > 1000  # the first exchange moved cards on many deals
    assert n > 15_000 and same == n


def test_slovak_grid_cells():
    from experiments.slovak_exchange import class_hand
    from simcore.cards import parse_cards

    names = _chart("slovak", "solved_exchange_chart").classes
    for i in range(13):
        for j in range(13):
            hand, kind = class_hand(i, j)
            cards = np.array([parse_cards(hand)], np.int8)
            assert solved.slovak_class_index(cards)[0] == 13 * i + j
            assert solved.slovak_class_index(cards[:, ::-1])[0] == 13 * i + j
    assert names[0] == "AA" and names[1] == "AKs" and names[13] == "AKo" and names[168] == "22"


def test_field_table_and_top_situations():
    e = _entry("slovak")
    df = solved.field_table(e, 1 << 12, 5, 2)
    from experiments.exploitability import builtin_policies

    n_builtin = sum(len(builtin_policies("slovak", d)) for d in e["decisions"])
    assert len(df) == n_builtin + 1 and df.policy.iloc[-1] == "best heuristic"
    assert df.hero.iloc[-1] == "exchange1=thoughtful,exchange2=thoughtful"
    assert (df.gain_ci_low <= df.gain).all() and (df.gain <= df.gain_ci_high).all()
    chart, _ = solved.disagreement(e, _chart("slovak", "solved_exchange2"), 1 << 14, 6, 2)
    top = solved.top_situations(chart)
    rest = chart[(chart["class"] != "all") & ~chart["class"].isin(top["class"])]
    assert len(top) == 3 and top.differ_contribution.min() >= rest.differ_contribution.max()


def test_reduce_pickles_and_errors():
    r = solved.ChartReduce("slovak", "solved_exchange2", 6, {})
    r2 = pickle.loads(pickle.dumps(r))
    assert r2.chart().decision == "exchange2"
    with pytest.raises(ValueError, match="sviten"):
        solved.table_entry("sviten", "x.npz")
    with pytest.raises(ValueError, match="holds a estonian table"):
        solved.table_entry("slovak", solved.shipped(["estonian"])[0]["path"])


def test_summary_reads_the_csvs(tmp_path):
    """solved.md is written from the CSVs alone: the field rows and each chart's overall line."""
    e = _entry("slovak")
    (tmp_path / "solve").mkdir()
    (tmp_path / "slovak").mkdir()
    field = solved.field_table(e, 1 << 12, 8, 2)
    field.to_csv(tmp_path / "solve" / "solved_field.csv", index=False)
    chart = _chart("slovak", "solved_exchange2")
    df, _ = solved.disagreement(e, chart, 1 << 13, 9, 2)
    df.to_csv(tmp_path / "slovak" / "solved_exchange2.csv", index=False)
    text = solved.summary(tmp_path)
    assert (tmp_path / "solve" / "solved.md").read_text() == text
    assert "## slovak, 6 players" in text
    a = df[df["class"] == "all"].iloc[0]
    assert f"{a.gain:+.5f} [{a.gain_ci_low:+.5f}, {a.gain_ci_high:+.5f}]" in text
    for _, r in field.iterrows():
        assert f"| {r.gain:+.5f} | [{r.gain_ci_low:+.5f}, {r.gain_ci_high:+.5f}] |" in text


def test_compare_tables_tells_same_play_from_different(tmp_path):
    """The shipped table against itself plays alike on every deal; one row changed shows."""
    from strategies.table import load_table, save_table

    e = _entry("slovak")
    same = solved.compare_tables(e, e["path"], n_deals=1 << 13)
    assert all(same["identical_to_shipped"].values()) and same["same_play"]["same"]
    tf = load_table(e["path"])
    arrays = {d: tf.arrays[d].copy() for d in tf.decisions}
    a = arrays["exchange2"]
    busy = np.flatnonzero(a.sum(axis=1) > 0)
    a[busy] = a[busy][:, ::-1]  # every row with an entry plays otherwise
    path = tmp_path / "other.npz"
    save_table(path, game=tf.game, options=tf.options, n_players=tf.n_players, abstraction=tf.abstraction,
               tables=arrays, fallback=tf.header.get("fallback") or None, meta=tf.meta)
    other = solved.compare_tables(e, str(path), n_deals=1 << 13)
    assert not other["identical_to_shipped"]["exchange2"] and other["identical_to_shipped"]["exchange1"]
    assert not other["rows"]["exchange2"]["equal_in_both"] and other["rows"]["exchange1"]["equal_in_both"]
    assert not other["same_play"]["same"]


def test_tapiola_charts_on_a_table_file():
    """Tapiola's charts (for when its table is shipped), on the unshipped record table: the first
    discard's recorded action indexes the dealt hand, and the chart's total is the paired compare."""
    import os

    from simcore import compare
    from simcore.engine import map_alternatives
    from simcore.variants import get_variant
    from strategies import lineup

    path = str(solved.ROOT / "results" / "solve" / "tapiola_6.npz")
    if not os.path.exists(path):
        pytest.skip("no Tapiola table file")
    v = get_variant("tapiola")
    lu = [lineup(v, 6, "discard=lowest,last=never", "discard=made,last=best")]

    def reduce(cards, outs):
        hand = solved._slots(cards, v.layout, "hand", 6, 0)
        a = outs[0].actions[(0, "discard", 0)]
        return np.array([np.sum(hand[np.arange(len(a)), a] == hand.min(axis=1)), len(a)])

    same, n = map_alternatives(v, 6, lu, 4096, reduce, seed=2, record=True, threads=1)[0]
    assert same == n == 4096
    e = solved.table_entry("tapiola", path)
    for chart in solved._charts("tapiola"):
        df, _ = solved.disagreement(e, chart, 1 << 12, 11, 2)
        b = solved.hero_spec(e, chart.decision, solved.GAMES["tapiola"]["best"][chart.decision])
        r = compare("tapiola", 6, 1 << 12, 11, a=e["spec"], b=b, field=e["spec"], options=e["options"],
                    progress=False)
        a = df[df["class"] == "all"].iloc[0]
        assert a.gain == r.stats.diff(0, 1)[0]
        assert df[df["class"] != "all"].n.sum() == 1 << 12


def test_chart_on_processes_equals_threads():
    """The chart's reduce travels to worker processes: the same table as on threads."""
    e = _entry("slovak")
    chart = _chart("slovak", "solved_exchange2")
    a, _ = solved.disagreement(e, chart, 1 << 15, 12, 2)
    b, _ = solved.disagreement(e, chart, 1 << 15, 12, None, executor="processes", workers=2)
    assert a.equals(b)
