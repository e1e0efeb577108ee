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
    with pytest.raises(ValueError, match="no charts for 'duel'"):
        solved.table_entry("duel", "x.npz")
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
               tables=arrays, fallback={d: tf.fallback_spec(d) for d in tf.decisions}, meta=tf.meta,
               starts=tf.starts)
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
        b = solved.hero_spec(e, chart.decision, solved.best_heuristic("tapiola", 6)[chart.decision])
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


# -- Sviten and Russian: on the shipped table, or on a tiny table solved here until one is shipped --

@pytest.fixture(scope="module")
def small_tables(tmp_path_factory):
    """(game, players) -> an entry: the shipped table where there is one, else one iteration of
    ``pvsim solve`` on 2,048 deals (a few seconds; the charts' identities hold for any table)."""
    from simcore.solve import solve

    out = {}
    for game, P in (("sviten", 6), ("russian", 3)):
        ship = [e for e in solved.shipped([game]) if e["players"] == P]
        if ship:
            out[(game, P)] = ship[0]
            continue
        path = str(tmp_path_factory.mktemp("tables") / f"{game}_{P}.npz")
        solve(game, P, iterations=1, deals_per_iteration=2048, eval_deals=2048, block_size=2048, seed=3, out=path)
        out[(game, P)] = solved.table_entry(game, path)
    return out


def _total_is_compare(e, chart, n, seed):
    """The chart's total row is the paired compare of the same seed, and its classes hold every deal."""
    from simcore import compare

    df, _ = solved.disagreement(e, chart, n, seed, 2)
    b = solved.hero_spec(e, chart.decision, solved.best_heuristic(e["game"], e["players"])[chart.decision])
    r = compare(e["game"], e["players"], n, seed, a=e["spec"], b=b, field=e["spec"], options=e["options"],
                progress=False)
    a = df[df["class"] == "all"].iloc[0]
    d, se = r.stats.diff(0, 1)
    assert a.gain == d and a.gain_stderr == se
    classes = df[df["class"] != "all"]
    assert len(classes) == len(chart.classes) and classes.n.sum() == n
    assert abs(classes.differ_contribution.sum() - a.differ_contribution) < 1e-12
    return df


def test_sviten_charts_total_and_classes(small_tables):
    """Both Sviten charts' totals are the paired compare; the draw chart's classes are the dealt hand's
    own-five class and its labels the number of cards thrown; the open chart's deals without an open
    card (seat 0 did not throw exactly one) show no disagreement."""
    from strategies.sviten import HAND_CLASSES

    e = small_tables[("sviten", 6)]
    draw, opn = solved._charts("sviten")
    df = _total_is_compare(e, draw, 1 << 12, 21)
    assert list(df["class"][:-1]) == list(HAND_CLASSES)
    df = _total_is_compare(e, opn, 1 << 12, 22)
    none = df[df["class"] == "no open card"].iloc[0]
    assert none.disagree == 0 and none.gain == 0
    assert len(opn.classes) == 9 * 13 + 1 and opn.grid == (list(HAND_CLASSES), list("23456789TJQKA"))


def test_sviten_classes_rebuilt():
    """With draw=one-lowest seat 0 throws one card: the draw labels are all 'throw 1' (and
    draw-poker's are its masks' bit counts), seat 0's open card (read by the open chart as the first
    stub card) is the one the play served it, accept keeps it and decline refuses it; two different
    draws at seat 0 are refused by the open chart."""
    from simcore.engine import map_alternatives
    from simcore.variants import get_variant
    from strategies import lineup
    from strategies.sviten import hand_classes

    v = get_variant("sviten")
    lu = [lineup(v, 6, "draw=one-lowest,open=accept", "draw=draw-poker,open=accept"),
          lineup(v, 6, "draw=one-lowest,open=decline", "draw=draw-poker,open=accept"),
          lineup(v, 6, "draw=draw-poker,open=decline", "draw=draw-poker,open=accept")]

    def reduce(cards, outs):
        cls, ls, lh = solved.sviten_draw_classify(cards, [outs[0], outs[2]], 6, v.layout)
        masks = outs[2].actions[(0, "draw", 0)]
        # the third lineup's count, bit by bit
        bits = sum((masks.astype(np.int64) >> j) & 1 for j in range(5))
        hand = np.ascontiguousarray(cards[:, :5])
        ocls, os_, oh = solved.sviten_open_classify(cards, outs[:2], 6, v.layout)
        served = outs[0].state.open_cards[:, 0]
        with pytest.raises(ValueError, match="draw alike"):  # its classes need one draw for S and H
            solved.sviten_open_classify(cards, [outs[0], outs[2]], 6, v.layout)
        return np.array([np.sum(cls == hand_classes(hand)), np.sum(ls == 1), np.sum(lh == bits),
                         np.sum(ocls == hand_classes(hand) * 13 + (served.astype(np.int64) >> 2)),
                         np.sum((os_ == 0) & (oh == 1)), len(cards)])

    a, b, c, d, e, n = map_alternatives(v, 6, lu, 4096, reduce, seed=5, record=True, keep_state=True,
                                        threads=1)[0]
    assert a == b == c == d == e == n == 4096  # accept keeps and decline refuses every open card


def test_russian_rows_agree_with_the_placement_chart():
    """russian_place_rows' state and target of every placement add up to
    russian_placement.placement_features' counts (both over all twelve rounds)."""
    from simcore.engine import map_alternatives
    from simcore.variants import get_variant
    from simcore.variants.russian import ROUNDS, apply_placements, card_slot, new_state
    from strategies import lineup

    from experiments.russian_placement import placement_features

    v = get_variant("russian")
    P = 3

    def reduce(cards, outs):
        mine, theirs = np.zeros((13, 3, 3), np.int64), np.zeros((13, 3, 3), np.int64)
        flop = np.ascontiguousarray(cards[:, :3])
        up, placed, down = new_state(len(cards), P)
        for r in range(ROUNDS):
            card = np.ascontiguousarray(cards[:, card_slot(P, r, 0)])
            a = outs[0].actions[(0, "place", r)]
            placement_features(flop, up, placed, down[:, 0], card, 0, a, theirs)
            rows = np.empty((len(card), 3), np.int64)
            other = (a.astype(np.int64) + 1) % 3  # the H column: another hand, the same features
            solved.russian_place_rows(flop, up, placed, down[:, 0], card, 0, a.astype(np.int64), other, rows)
            np.add.at(mine, (card.astype(np.int64) >> 2, rows[:, 0], rows[:, 1]), 1)
            assert np.all(rows[:, 2] != rows[:, 1])  # another hand has another place
            apply_placements(card, 0, a, up, placed, down)
        return np.stack([mine, theirs])

    both = map_alternatives(v, P, [lineup(v, P, "place=best-gain", "place=by-rank")], 4096, reduce, seed=6,
                            record=True, threads=1)[0]
    assert both[0].sum() == 4096 * ROUNDS and np.array_equal(both[0], both[1])


def test_russian_chart_total_first_departure_and_summary(small_tables, tmp_path):
    """Russian's placement chart: the total is the paired compare; every deal where S and H place a
    card differently is classed at the first such card (disagree 1), the rest in the last class
    (disagree 0); a game of two sizes writes _<P>p files and the summary has a section per size."""
    from experiments.russian_placement import RANKS, STATES

    e = small_tables[("russian", 3)]
    chart = solved._charts("russian")[0]
    df = _total_is_compare(e, chart, 1 << 12, 23)
    cells = df[(df["class"] != "all") & (df["class"] != "they place alike throughout") & (df.n > 0)]
    assert (cells.disagree == 1).all()
    alike = df[df["class"] == "they place alike throughout"].iloc[0]
    assert alike.disagree == 0 or alike.n == 0
    assert list(df["class"][:3]) == [f"2; {s}" for s in STATES] and df["class"].iloc[-3].startswith(RANKS[-1])
    # what S and H chose at the departure: shares of the class's deals, never the same place (other hands)
    assert np.allclose(cells[[f"solved: {x}" for x in chart.labels]].sum(axis=1), 1.0)
    best = solved.best_heuristic("russian", 3)["place"]
    assert np.allclose(cells[[f"{best}: {x}" for x in chart.labels]].sum(axis=1), 1.0)
    assert not np.any(np.isclose(cells[[f"solved: {x}" for x in chart.labels]].to_numpy(), 1.0)
                      & np.isclose(cells[[f"{best}: {x}" for x in chart.labels]].to_numpy(), 1.0))
    assert solved.suffix("russian", 3) == "_3p" and solved.suffix("sviten", 6) == ""
    (tmp_path / "solve").mkdir()
    (tmp_path / "russian").mkdir()
    field = solved.field_table(e, 1 << 12, 24, 2)
    four = field.assign(players=4)  # the summary's sections go by (game, players)
    import pandas as pd

    pd.concat([four, field]).to_csv(tmp_path / "solve" / "solved_field.csv", index=False)
    df.to_csv(tmp_path / "russian" / "solved_placement_3p.csv", index=False)
    text = solved.summary(tmp_path)
    assert "## russian, 4 players" in text and "## russian, 3 players" in text
    assert text.count("`russian/solved_placement_3p.png`") == 1
    solved.plot_chart(df, chart, tmp_path / "russian" / "solved_placement_3p.png")
    assert (tmp_path / "russian" / "solved_placement_3p.png").stat().st_size > 10_000


def test_partial_run_keeps_the_other_games_rows(tmp_path):
    """A run of some games (--games) replaces only their rows of the summary CSVs, games in GAMES' order."""
    import pandas as pd

    path = tmp_path / "f.csv"
    pd.DataFrame({"game": ["estonian", "slovak", "russian", "russian"], "players": [6, 6, 4, 3],
                  "x": [1, 2, 3, 4]}).to_csv(path, index=False)
    new = pd.DataFrame({"game": ["russian", "russian", "sviten"], "players": [4, 3, 6], "x": [5, 6, 7]})
    done = {("russian", 4), ("russian", 3), ("sviten", 6)}
    m = solved._merge(path, new, done, True)
    assert list(zip(m.game, m.players, m.x)) == [("estonian", 6, 1), ("slovak", 6, 2), ("sviten", 6, 7),
                                                 ("russian", 4, 5), ("russian", 3, 6)]
    assert list(solved._merge(path, new, done, False).x) == [7, 5, 6]  # a whole run: its own rows only


def test_one_decision_field_has_no_whole_row(small_tables):
    """Russian has one decision: its built-ins' rows are the whole deviations already (no 'all' row)."""
    from experiments.exploitability import builtin_policies

    e = small_tables[("russian", 3)]
    df = solved.field_table(e, 1 << 12, 25, 2)
    assert list(df.policy) == builtin_policies("russian", "place") and (df.decision == "place").all()


def test_partial_run_keeps_the_earlier_runs_record(tmp_path):
    """The provenance of a run of some games keeps the earlier run's command, commit and seconds."""
    import json

    path = tmp_path / "p.json"
    path.write_text(json.dumps({"command": "python -m experiments.solved --full", "mode": "full", "git_commit": "abc",
                                "config": {"field_deals": 1}, "seconds": 1099.1, "studies": {}}))
    runs = solved._earlier_runs(path, "full")
    assert runs == [{"command": "python -m experiments.solved --full", "git_commit": "abc",
                     "config": {"field_deals": 1}, "seconds": 1099.1}]
    assert solved._earlier_runs(path, "quick") == []
    path.write_text(json.dumps({"command": "second", "mode": "full", "earlier_runs": runs, "seconds": 2}))
    assert [r["command"] for r in solved._earlier_runs(path, "full")] == ["python -m experiments.solved --full",
                                                                          "second"]
