"""Solved strategies: how each built-in does in a field of them, and where the best heuristic departs.

Run ``python -m experiments.solved [--full] [--threads K] [--results DIR] [--games G ...]``.

For every game with a shipped solved table (``strategies/solved_tables/``, the
policy ``solved``; Estonian, Slovak, Tapiola and Sviten at 6 players, Russian at
4 and 3: whichever is shipped), three studies, every comparison paired on the
same deals:

1. ``results/solve/solved_field.csv``: every built-in policy of each decision
   (the game's own, as ``experiments/exploitability.py`` lists them), and the
   least exploitable built-in as a whole (a game of several decisions), at
   seat 0 against a field of ``solved`` (seat 0 keeps ``solved`` at its other decisions), paired with
   seat 0 on ``solved`` (:func:`simcore.compare`): the gain per deal with its
   95% interval. Issue 21's "no profitable deviation": none should be above 0
   by more than its interval allows.
2. The disagreement charts, in ``results/<game>/`` beside the heuristic charts:
   seat 0 plays ``solved`` everywhere (S), then the best heuristic (:data:`GAMES`'
   ``best``, the least exploitable built-in) at one decision and ``solved`` at the
   others (H), on the same deals, in a field of ``solved``. Per situation class of
   that decision: what each plays, how often they differ, and what S gains over H
   there (the mean of seat 0's S minus H payoff over the class's deals, with its
   95% interval; summed over the classes, weighted by frequency, it is exactly
   the paired ``compare`` of S and H on the same seed). Estonian: the pass and the
   discard by ``estonian_pass.classify``'s situations (``solved_pass``,
   ``solved_discard``); Slovak: the 13x13 first-exchange chart
   (``solved_exchange_chart``) and the second exchange by flop category
   (``solved_exchange2``); Tapiola: the first discard by hand and tower type
   (``solved_discard_chart``) and the last discard (``solved_last``); Sviten: how
   many cards to throw by the dealt hand's own-five class (``solved_draw``) and
   keeping or refusing the open card by that class and the card's rank
   (``solved_open``, a grid); Russian, at each size: where a card goes
   (``solved_placement_<P>p``, a grid of the card's rank and what it does to the
   three hands; a deal is classed at the first placement where S and H differ,
   its labels the hand each chose by made strength).
   ``results/solve/solved_top.csv``: per game, the situation classes where the
   best heuristic loses the most to ``solved`` (its share of the overall gap).
3. ``--full`` only: the shipped tables re-solved with the settings recorded in
   ``results/solve/bench_<game>_<P>.json`` (:func:`simcore.solve.solve`), into
   ``results/solve/resolved/``, and compared with the shipped table (a table
   without that record is not re-solved, and the run says so).

Quick mode (default) re-checks the shipped tables briefly (about 30 s on two
cores for the first three games, 24 s more, 15 CPU-s, for Sviten and Russian);
``--full`` is the committed run. A run of some games (``--games``) replaces
only their rows of the ``results/solve/`` summaries and keeps the others'. ``results/solve/solved_provenance.json``
records the command, seeds, deal counts, git commit, versions and seconds.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

from .cells import add_arguments as add_cell_arguments, configure_from as configure_cells, seed as seed_type
from .outputs import save_figure, write_csv, write_json, write_text
from .paired import ci_columns, seat0_paired
from .russian_placement import card_state, target_place
from .studylog import StudyLog

ROOT = Path(__file__).resolve().parents[1]
SEED = 2121
BLOCK = 1 << 14  # simcore.compare's default block: the same deals as a compare of the same seed

# Per game: the table size of its shipped table, and the best heuristic per decision (the least
# exploitable built-in of experiments/bench_solve.py's measurement, results/solve/bench_<game>_6.json).
# Sviten's and Russian's as their shipped tables' metadata (exploitability.best_builtin) and
# results/solve/bench_<game>_<P>.json name them: draw=draw-poker,open=both-halves (0.00099; the
# committed exploitability table varies one decision at a time and holds no such field) and
# place=best-gain at 4 players (+0.00007: at 4 it beats conceal in a field of either, and the 4-player
# table starts from it) and place=conceal at 3 (+0.00012; there conceal beats best-gain in a field of
# either). The BR finds nothing in either; the older BR of results/exploitability/table.md had
# best-gain, 0.0026 and 0.0166. ``best`` is {decision: policy}, or {players: {decision: policy}}.
GAMES = {
    "estonian": dict(players=6, best={"pass": "thoughtful", "discard": "best-potential"}),
    "slovak": dict(players=6, best={"exchange1": "thoughtful", "exchange2": "thoughtful"}),
    "tapiola": dict(players=6, best={"discard": "made", "last": "best"}, scale=0.25),
    "sviten": dict(players=6, best={"draw": "draw-poker", "open": "both-halves"}, scale=0.25, full_scale=0.5),
    "russian": dict(players=(4, 3), best={4: {"place": "best-gain"}, 3: {"place": "conceal"}}, scale=0.125,
                    full_scale=0.25),
}
# ``players``: the table size(s) of the shipped tables (Russian ships two). ``scale``: the share of
# the deal budgets a game gets (Tapiola plays four decisions a deal and costs about four times
# Estonian's per deal; Russian has two sizes), ``full_scale`` with ``--full`` where it differs
# (Sviten's and Russian's quick budgets are kept small: a few seconds each).


def best_heuristic(game: str, players: int) -> dict:
    """{decision: policy}: the best heuristic of ``game`` at ``players`` (:data:`GAMES`)."""
    best = GAMES[game]["best"]
    return best[players] if players in best else best


def sizes(game: str) -> tuple:
    """The table sizes of ``game``'s shipped tables (:data:`GAMES`)."""
    p = GAMES[game]["players"]
    return tuple(p) if isinstance(p, (tuple, list)) else (p,)


def suffix(game: str, players: int) -> str:
    """The size suffix of a game's chart files: none for a game with one table size, ``_<P>p`` else."""
    return "" if len(sizes(game)) == 1 else f"_{players}p"

QUICK = dict(field_deals=1 << 16, chart_deals=1 << 17, rollout_deals=1 << 13, resolve=False)
FULL = dict(field_deals=1 << 20, chart_deals=1 << 21, rollout_deals=1 << 17, resolve=True)


# -- which tables -------------------------------------------------------------------------------


def shipped(games=None) -> list[dict]:
    """The shipped tables of :data:`GAMES` at their table size: game, players, options, path, the
    policy spec that plays them (``solved``) and the table's decisions."""
    from strategies.solved import shipped_tables

    out = []
    for tf in shipped_tables():
        g = GAMES.get(tf.game)
        if g is None or tf.n_players not in sizes(tf.game) or (games and tf.game not in games):
            continue
        out.append({"game": tf.game, "players": tf.n_players, "options": dict(tf.options), "path": tf.path,
                    "spec": "solved", "decisions": tuple(tf.decisions)})
    return out


def shipped_entry(game: str, players: int) -> dict:
    """The shipped table's entry (:func:`shipped`) for ``game`` at ``players``; a size with none is a
    ValueError that names it and the sizes shipped."""
    tables = shipped([game])
    entry = next((e for e in tables if e["players"] == players), None)
    if entry is None:
        sizes_shipped = sorted(e["players"] for e in tables)
        raise ValueError(f"no shipped {game} table at {players} players (shipped: {sizes_shipped or 'none'})")
    return entry


def table_entry(game: str, path: str) -> dict:
    """An entry like :func:`shipped`'s for a table file that is not shipped (played as ``table:PATH``)."""
    from strategies.table import load_table

    if game not in GAMES:
        raise ValueError(f"--table {game}={path}: no charts for {game!r} (games: {', '.join(GAMES)})")
    tf = load_table(path)
    if tf.game != game:
        raise ValueError(f"--table {game}={path}: the file holds a {tf.game} table")
    return {"game": game, "players": tf.n_players, "options": dict(tf.options), "path": str(path),
            "spec": f"table:{path}", "decisions": tuple(tf.decisions)}


def hero_spec(entry: dict, decision: str, policy: str) -> str:
    """Seat 0 on ``policy`` at ``decision`` and on the solved table at the table's other decisions."""
    return ",".join(f"{d}={policy if d == decision else entry['spec']}" for d in entry["decisions"])


def _variant(entry):
    from simcore.variants import get_variant

    return get_variant(entry["game"], **entry["options"])


# -- 1. every built-in in a field of solved ------------------------------------------------------


def field_table(entry: dict, n_deals: int, seed: int, threads, rollout_deals: int = 0, executor=None,
                workers=None, scheduler=None):
    """Seat 0 on each built-in (one decision at a time, then the best heuristic at every decision
    where there are several) against a field of the solved table, paired with seat 0 on the table:
    gain per deal, 95% CI. ``executor``, ``workers`` and ``scheduler`` as :func:`simcore.compare` takes them (the same
    table anywhere)."""
    import pandas as pd

    from simcore import compare

    from .exploitability import builtin_policies

    game, P, spec = entry["game"], entry["players"], entry["spec"]
    best = best_heuristic(game, P)
    runs = [(d, p, hero_spec(entry, d, p), n_deals) for d in entry["decisions"] for p in builtin_policies(game, d)]
    whole = ",".join(f"{d}={best[d]}" for d in entry["decisions"])
    if len(entry["decisions"]) > 1:  # with one decision (Russian) it is that decision's row already
        runs.append(("all", "best heuristic", whole, n_deals))
    if rollout_deals:
        runs += [(d, "rollout:8", hero_spec(entry, d, "rollout:8"), rollout_deals) for d in entry["decisions"]]
    rows = []
    for k, (decision, policy, hero, deals) in enumerate(runs):
        t = time.perf_counter()
        r = compare(game, P, deals, seed + k, a=hero, b=spec, field=spec, options=entry["options"],
                    threads=threads, executor=executor, workers=workers, scheduler=scheduler, progress=False)
        d, se = r.stats.diff(0, 1)
        rows.append({"game": game, "players": P, "decision": decision, "policy": policy, "hero": hero,
                     "field": spec, "n": r.stats.n, "seed": seed + k, "gain": float(d), "gain_stderr": float(se),
                     **ci_columns(float(d), float(se), "gain_"),
                     "seconds": round(time.perf_counter() - t, 2)})
        lo, hi = rows[-1]["gain_ci_low"], rows[-1]["gain_ci_high"]
        print(f"  {game} {P}p {decision:9s} {policy:16s} gain {d:+.5f} [{lo:+.5f}, {hi:+.5f}]"
              f"{'  <- beats solved' if lo > 0 else ''}", flush=True)
    return pd.DataFrame(rows)


# -- 2. disagreement by situation class ---------------------------------------------------------


class Chart:
    """One disagreement chart: the decision, the classes and how a block's deals fall into them.

    ``classify(cards, outs, P, layout)`` gets a block's deals (as dealt), the two recorded
    outcomes (S, H), the table size and the variant's slot layout, and returns
    ``(cls, act_s, act_h)``: each deal's class index (into ``classes``) and the index into
    ``labels`` of what S and H played there (-1 where seat 0 did not decide).
    """

    def __init__(self, name, decision, classes, labels, classify, title, grid=None, optional=False):
        self.name, self.decision, self.classes, self.labels = name, decision, classes, labels
        self.classify, self.title = classify, title
        # optional: the decision does not come up on every deal, so a block may record none of it
        self.optional = optional
        # grid: (row names, column names) when the first rows x columns classes are a grid, row by
        # row (drawn as one by :func:`plot_cells`); classes after them are listed in its title
        self.grid = grid


def _sums(cls, diff, differ, act_s, act_h, k, m):
    """Per class: [n, sum d, sum d^2, disagreements, sum d and sum d^2 over the deals where S and H
    play differently (``differ``: their actions, not only their labels), S's label counts (m),
    H's label counts (m)]."""
    out = np.zeros((k, 6 + 2 * m))
    np.add.at(out[:, 0], cls, 1.0)
    np.add.at(out[:, 1], cls, diff)
    np.add.at(out[:, 2], cls, diff * diff)
    np.add.at(out[:, 3], cls, differ.astype(float))
    np.add.at(out[:, 4], cls[differ], diff[differ])
    np.add.at(out[:, 5], cls[differ], diff[differ] ** 2)
    ok = act_s >= 0
    np.add.at(out, (cls[ok], 6 + act_s[ok]), 1.0)
    ok = act_h >= 0
    np.add.at(out, (cls[ok], 6 + m + act_h[ok]), 1.0)
    return out


class ChartReduce:
    """A block's (PairedStats of S and H at seat 0, per-class sums) for one chart of one game: a small
    object that pickles by name (cells travel to processes and Dask)."""

    def __init__(self, game: str, name: str, n_players: int, options: dict):
        self.game, self.name, self.n_players, self.options = game, name, n_players, dict(options)
        self.layout = None

    def chart(self) -> Chart:
        return next(c for c in _charts(self.game) if c.name == self.name)

    def __call__(self, cards, outs):
        if self.layout is None:
            from simcore.variants import get_variant

            self.layout = get_variant(self.game, **self.options).layout
        chart = self.chart()
        cls, act_s, act_h = chart.classify(cards, outs, self.n_players, self.layout)
        diff = outs[0].payoffs[:, 0] - outs[1].payoffs[:, 0]
        differ = differs(outs, chart.decision, chart.optional)
        return seat0_paired(cards, outs), _sums(cls, diff, differ, act_s, act_h, len(chart.classes),
                                                len(chart.labels))


def differs(outs, decision: str, optional: bool = False) -> np.ndarray:
    """Per deal: whether seat 0 played ``decision`` differently under S and H (any round of it).
    A block without a recorded ``decision`` of seat 0 is an error unless the decision is
    ``optional`` (then they did not differ: seat 0 never faced it)."""
    keys = sorted(set(k for o in outs for k in o.actions if k[0] == 0 and k[1] == decision))
    if not keys and not optional:
        raise ValueError(f"no recorded {decision} actions of seat 0")
    out = np.zeros(len(outs[0].payoffs), bool)
    for k in keys:
        if k not in outs[0].actions or k not in outs[1].actions:
            raise ValueError(f"seat 0's {k[1]} (round {k[2]}) is recorded under one of S and H only")
        out |= outs[0].actions[k] != outs[1].actions[k]
    return out


def disagreement(entry: dict, chart: Chart, n_deals: int, seed: int, threads, executor=None, workers=None,
                 scheduler=None):
    """S (solved everywhere) and H (the best heuristic at ``chart.decision``) at seat 0, in a field
    of the solved table, on the same deals: one row per situation class, and the PairedStats of
    the whole run (S minus H: what :func:`simcore.compare` of the same seed reports)."""
    import pandas as pd

    from simcore.engine import map_alternatives
    from strategies import lineup

    from simcore.engine.stats import interval

    v = _variant(entry)
    P, spec = entry["players"], entry["spec"]
    best = best_heuristic(entry["game"], P)[chart.decision]
    h = hero_spec(entry, chart.decision, best)
    lus = [lineup(v, P, spec, spec), lineup(v, P, h, spec)]
    reduce = ChartReduce(entry["game"], chart.name, P, entry["options"])
    st, sums = map_alternatives(v, P, lus, n_deals, reduce, seed=seed, block_size=BLOCK, record=True,
                                threads=threads, executor=executor, workers=workers, scheduler=scheduler)[0]
    total = st.n
    m = len(chart.labels)
    rows = []
    for c, name in enumerate(chart.classes):
        n, s1, s2, dis, t1, t2 = sums[c, :6]
        mean = s1 / n if n else np.nan
        var = (s2 - n * mean * mean) / (n - 1) if n > 1 else np.nan
        se = np.sqrt(max(var, 0.0) / n) if n > 1 else np.nan
        contrib, cse = s1 / total, (np.sqrt(max(var, 0.0) * n) / total if n > 1 else np.nan)
        # Where S and H play alike the difference is noise of mean zero (the table's later draws
        # differ): the same quantity from the deals where they differ, with less noise.
        dvar = (t2 - t1 * t1 / total) / (total - 1)  # per deal over all deals, zero where they agree
        dc, dcse = t1 / total, np.sqrt(max(dvar, 0.0) / total)
        row = {"game": entry["game"], "players": P, "decision": chart.decision, "class": name, "n": int(n),
               "frequency": n / total, "heuristic": best, "disagree": dis / n if n else np.nan,
               "gain": mean, "gain_stderr": se, **ci_columns(mean, se, "gain_"),
               "contribution": contrib, "contribution_stderr": cse, **ci_columns(contrib, cse, "contribution_"),
               "differ_contribution": dc, "differ_contribution_stderr": dcse,
               **ci_columns(dc, dcse, "differ_contribution_"),
               "gain_where_differ": t1 / dis if dis else np.nan}
        f = n / total
        row.update({"worth": dc / f if n else np.nan, "worth_stderr": dcse / f if n else np.nan,
                    **ci_columns(dc / f if n else np.nan, dcse / f if n else np.nan, "worth_")})
        ns, nh = sums[c, 6:6 + m].sum(), sums[c, 6 + m:].sum()
        for j, lab in enumerate(chart.labels):
            row[f"solved: {lab}"] = sums[c, 6 + j] / ns if ns else np.nan
        for j, lab in enumerate(chart.labels):
            row[f"{best}: {lab}"] = sums[c, 6 + m + j] / nh if nh else np.nan
        rows.append(row)
    d, dse = st.diff(0, 1)
    lo, hi = interval(d, dse)
    t1, t2 = sums[:, 4].sum(), sums[:, 5].sum()
    dc, dcse = t1 / total, np.sqrt(max((t2 - t1 * t1 / total) / (total - 1), 0.0) / total)
    rows.append({"game": entry["game"], "players": P, "decision": chart.decision, "class": "all", "n": int(total),
                 "frequency": 1.0, "heuristic": best, "disagree": sums[:, 3].sum() / total,
                 "gain": d, "gain_stderr": dse, "gain_ci_low": lo, "gain_ci_high": hi,
                 "contribution": d, "contribution_stderr": dse, "contribution_ci_low": lo,
                 "contribution_ci_high": hi, "differ_contribution": dc, "differ_contribution_stderr": dcse,
                 **ci_columns(dc, dcse, "differ_contribution_"),
                 "gain_where_differ": t1 / sums[:, 3].sum() if sums[:, 3].sum() else np.nan,
                 "worth": dc, "worth_stderr": dcse, **ci_columns(dc, dcse, "worth_")})
    df = pd.DataFrame(rows)
    df["seed"] = seed
    df["solved"] = spec
    return df, st


# -- the games' charts ---------------------------------------------------------------------------

EST_PASS_LABELS = ("a key card", "another card", "the lowest card")


def _estonian_roles(hands, flops):
    """Per deal: estonian_pass.classify's situation and the per-card key roles (n, 3)."""
    from .estonian_pass import classify

    n = len(hands)
    cls = np.empty(n, np.int64)
    roles = np.empty((n, 3), bool)
    for i in range(n):
        cls[i], r = classify(hands[i].tolist(), flops[i].tolist())
        roles[i] = r
    return cls, roles


def _pass_labels(acts, roles, hands):
    """0: a key card, 1: another card; the lowest card counted apart in 2 when it is not key."""
    rows = np.arange(len(acts))
    key = roles[rows, acts]
    low = acts == np.argmin(hands, axis=1)
    return np.where(key, 0, np.where(low, 2, 1))


def _slots(cards, layout, group, P, seat=None):
    """The block's cards of one slot group (seat ``seat``'s, or the shared group's), (n, size)."""
    return cards[:, layout.slots(group, P) if seat is None else layout.slots(group, P, seat=seat)]


def estonian_pass_classify(cards, outs, P, layout):
    hands, flop = _slots(cards, layout, "dealt", P, 0), _slots(cards, layout, "flop", P)
    cls, roles = _estonian_roles(hands, flop)
    a_s = outs[0].actions[(0, "pass", 0)]
    a_h = outs[1].actions[(0, "pass", 0)]
    return cls, _pass_labels(a_s, roles, hands), _pass_labels(a_h, roles, hands)


EST_DISCARD_LABELS = ("a key card", "another kept card", "the received card")


def held_at_discard(cards, passes, P, layout):
    """Seat 0's three cards at the discard, [kept, kept, received], from every seat's pass (P, n):
    seat 0 receives seat P-1's passed card (with two players the seats swap: the same seat)."""
    n = len(cards)
    rows = np.arange(n)
    dealt = _slots(cards, layout, "dealt", P, 0)
    keep = np.ones((n, 3), bool)
    keep[rows, passes[0]] = False
    kept = dealt[keep].reshape(n, 2)
    src = P - 1
    received = _slots(cards, layout, "dealt", P, src)[rows, passes[src]]
    return np.concatenate([kept, received[:, None]], axis=1)


def estonian_discard_classify(cards, outs, P, layout):
    passes = np.stack([outs[0].actions[(s, "pass", 0)] for s in range(P)])
    held = held_at_discard(cards, passes, P, layout)
    cls, roles = _estonian_roles(held, _slots(cards, layout, "flop", P))

    def labels(acts):
        key = roles[np.arange(len(acts)), acts]
        return np.where(acts == 2, 2, np.where(key, 0, 1))

    return cls, labels(outs[0].actions[(0, "discard", 0)]), labels(outs[1].actions[(0, "discard", 0)])


SLOVAK_LABELS = ("keep both", "muck the higher", "muck the lower")


def slovak_class_index(hands):
    """The 13x13 grid cell of two cards, rows and columns A..2, suited above the diagonal
    (:func:`experiments.slovak_exchange.class_hand`'s layout): row * 13 + col."""
    hands = hands.astype(np.int64)
    r0, r1 = hands[:, 0] >> 2, hands[:, 1] >> 2
    hi, lo = np.maximum(r0, r1), np.minimum(r0, r1)
    suited = (hands[:, 0] & 3) == (hands[:, 1] & 3)
    row = np.where(suited, 12 - hi, 12 - lo)
    col = np.where(suited, 12 - lo, 12 - hi)
    return (row * 13 + col).astype(np.int64)


def _slovak_labels(acts, hands):
    """0 keep both, 1 muck the higher card, 2 the lower (by card: rank, then suit)."""
    higher0 = hands[:, 0] > hands[:, 1]
    mucks0 = acts == 1
    return np.where(acts == 0, 0, np.where(mucks0 == higher0, 1, 2))


def slovak_exchange1_classify(cards, outs, P, layout):
    hands = _slots(cards, layout, "up", P, 0)
    return (slovak_class_index(hands), _slovak_labels(outs[0].actions[(0, "exchange1", 0)], hands),
            _slovak_labels(outs[1].actions[(0, "exchange1", 0)], hands))


SLOVAK2_LABELS = ("keep both", "muck the other card", "muck the card that plays")


def slovak_up_at_exchange2(cards, act1, P, layout):
    """Seat 0's face-up cards at the second exchange: a muck at the first turns down0 up in its place."""
    up = _slots(cards, layout, "up", P, 0).copy()
    down0 = _slots(cards, layout, "down", P, 0)[:, 0]
    for a, pos in ((1, 0), (2, 1)):
        m = act1 == a
        up[m, pos] = down0[m]
    return up


def slovak_exchange2_classify(cards, outs, P, layout):
    from .slovak_exchange import flop_categories

    up = slovak_up_at_exchange2(cards, outs[0].actions[(0, "exchange1", 0)], P, layout)
    cat, key = flop_categories(np.ascontiguousarray(up), np.ascontiguousarray(_slots(cards, layout, "flop", P)))

    def labels(acts):  # action 1 mucks card 0, 2 card 1; the card that plays is ``key``
        mucked = acts - 1
        return np.where(acts == 0, 0, np.where(mucked == key, 2, 1))

    return cat, labels(outs[0].actions[(0, "exchange2", 0)]), labels(outs[1].actions[(0, "exchange2", 0)])


def _charts(game):
    if game == "estonian":
        from .estonian_pass import SITUATIONS

        names = [s[0] for s in SITUATIONS]
        return [Chart("solved_pass", "pass", names, EST_PASS_LABELS, estonian_pass_classify,
                      "which card to pass, by the dealt cards and the flop"),
                Chart("solved_discard", "discard", names, EST_DISCARD_LABELS, estonian_discard_classify,
                      "which card to discard, by the three cards held and the flop")]
    if game == "slovak":
        from .slovak_exchange import EX2_CATEGORIES, class_hand

        names = []
        for i in range(13):
            for j in range(13):
                hand, kind = class_hand(i, j)
                name = hand[0] + hand[3]
                names.append(name if kind == "pair" else name + ("s" if kind == "suited" else "o"))
        return [Chart("solved_exchange_chart", "exchange1", names, SLOVAK_LABELS, slovak_exchange1_classify,
                      "the first exchange, by the two face-up cards"),
                Chart("solved_exchange2", "exchange2", list(EX2_CATEGORIES), SLOVAK2_LABELS,
                      slovak_exchange2_classify, "the second exchange, by what the flop did to the face-up cards")]
    if game == "tapiola":
        return _tapiola_charts()
    if game == "sviten":
        return _sviten_charts()
    if game == "russian":
        return _russian_charts()
    raise ValueError(f"no solved charts for {game!r}")


# Tapiola: the first discard by hand and tower type, the last discard by what the heuristic does.

def _tapiola_charts():
    from .tapiola_discards import HAND_TYPES, THROWN, TOWER_TYPES

    names = [f"{h}; {t}" for h in HAND_TYPES for t in TOWER_TYPES]
    return [Chart("solved_discard_chart", "discard", names, THROWN, tapiola_discard_classify,
                  "the discards\n(classes: the first discard's hand and first tower cards; the gain covers "
                  "all three discard rounds)"),
            Chart("solved_last", "last", ["best keeps three", "best takes two + centre"],
                  ("keep three", "two + centre"), tapiola_last_classify, "the optional last discard")]


def tapiola_discard_classify(cards, outs, P, layout):
    from .tapiola_discards import round1_classes

    hand = np.ascontiguousarray(_slots(cards, layout, "hand", P, 0))
    towers = _slots(cards, layout, "towers", P)[:, :2]  # A1 B1: the first tower cards
    a_s, a_h = outs[0].actions[(0, "discard", 0)], outs[1].actions[(0, "discard", 0)]
    htype, ttype, what_s = round1_classes(hand, towers, a_s)
    _, _, what_h = round1_classes(hand, towers, a_h)
    return htype * 3 + ttype, what_s, what_h


def tapiola_last_classify(cards, outs, P, layout):
    a_s = (outs[0].actions[(0, "last", 0)] > 0).astype(np.int64)
    a_h = (outs[1].actions[(0, "last", 0)] > 0).astype(np.int64)
    return a_h, a_s, a_h


# Sviten: how many cards to draw, by the dealt five's class; keep or refuse the open card, by that
# class and the open card's rank.

SVITEN_DRAW_LABELS = tuple(f"throw {k}" for k in range(6))
SVITEN_OPEN_LABELS = ("keep", "refuse")
_POPCOUNT = np.array([bin(m).count("1") for m in range(32)], np.int64)


def _sviten_charts():
    from strategies.sviten import HAND_CLASSES

    from .sviten_draw import RANKS

    cells = [f"{h}; open {r}" for h in HAND_CLASSES for r in RANKS]
    return [Chart("solved_draw", "draw", list(HAND_CLASSES), SVITEN_DRAW_LABELS, sviten_draw_classify,
                  "how many cards to throw, by the own-five class of the dealt hand"),
            Chart("solved_open", "open", cells + ["no open card"], SVITEN_OPEN_LABELS, sviten_open_classify,
                  "One Open: keep or refuse the card served face up, by the dealt hand's class and the card's rank",
                  grid=(list(HAND_CLASSES), list(RANKS)), optional=True)]


def thrown_count(masks) -> np.ndarray:
    """Cards thrown by each draw (a 5-bit mask over the seat's card slots)."""
    return _POPCOUNT[np.asarray(masks, np.int64)]


def sviten_draw_classify(cards, outs, P, layout):
    from strategies.sviten import hand_classes

    hand = np.ascontiguousarray(_slots(cards, layout, "hand", P, 0))
    return (hand_classes(hand), thrown_count(outs[0].actions[(0, "draw", 0)]),
            thrown_count(outs[1].actions[(0, "draw", 0)]))


def sviten_open_classify(cards, outs, P, layout):
    """Seat 0 answers an open card only where it threw exactly one card; it throws first, so its
    open card is the first stub card. S and H draw alike (both play the table at the draw): the
    class is read from S's draw. Deals without an open card go to the last class."""
    from simcore.variants.sviten import stub_start
    from strategies.sviten import HAND_CLASSES, hand_classes

    hand = np.ascontiguousarray(_slots(cards, layout, "hand", P, 0))
    draw = outs[0].actions[(0, "draw", 0)]
    if not np.array_equal(draw, outs[1].actions[(0, "draw", 0)]):
        raise ValueError("the open chart needs seat 0 to draw alike under S and H (the table at the draw)")
    one = thrown_count(draw) == 1
    rank = cards[:, stub_start(P)].astype(np.int64) >> 2
    cls = np.where(one, hand_classes(hand) * 13 + rank, len(HAND_CLASSES) * 13)
    none = np.full(len(cards), -1)  # a block where seat 0 faced no open card records none
    a_s = np.where(one, outs[0].actions.get((0, "open", 0), none), -1)
    a_h = np.where(one, outs[1].actions.get((0, "open", 0), none), -1)
    return cls, a_s, a_h


# Russian: where a card goes, by its rank and what it does to the three hands (the states of
# experiments/russian_placement.py's chart), at the first placement where S and H differ.

def _russian_charts():
    from .russian_placement import RANKS, STATES, TARGETS

    cells = [f"{r}; {st}" for r in RANKS for st in STATES]
    return [Chart("solved_placement", "place", cells + ["they place alike throughout"], TARGETS,
                  russian_place_classify,
                  "where a card goes, at the first placement where solved and the heuristic differ,\nby the "
                  "card's rank and what it does to the three hands (targets: the hands by made strength)",
                  grid=(list(RANKS), list(STATES)))]


@njit(cache=True, nogil=True)
def russian_place_rows(flop, up, placed, own_down, card, seat, acts_s, acts_h, out):
    """Per row: ``out[i] = (state, S's target, H's target)`` of placing ``card[i]`` on hand
    ``acts_s[i]`` or ``acts_h[i]``, by :func:`experiments.russian_placement.placement_features`'
    rules (state 0 the card pairs a hand with room, 1 fits a one-suit hand with room, 2 neither;
    target 0 the strongest hand by made strength before the card, ties: the lower hand first)."""
    strength = np.zeros(3)
    for i in range(card.shape[0]):
        out[i, 0] = card_state(flop, up, placed, own_down, i, seat, card[i], strength)
        out[i, 1] = target_place(strength, acts_s[i])
        out[i, 2] = target_place(strength, acts_h[i])


def russian_place_classify(cards, outs, P, layout):
    """Each deal by its first placement where S and H put seat 0's card on different hands: the
    card's rank and state, and the target each chose; seat 0's hands up to then are rebuilt from
    S's placements (the same as H's until then). Deals where they never differ go to the last class."""
    from simcore.variants.russian import ROUNDS, apply_placements, card_slot, new_state

    from .russian_placement import STATES

    n = len(cards)
    flop = np.ascontiguousarray(cards[:, :3])
    up, placed, down = new_state(n, P)
    cls = np.full(n, 13 * len(STATES), np.int64)
    act_s, act_h = np.full(n, -1, np.int64), np.full(n, -1, np.int64)
    alike = np.ones(n, bool)
    for r in range(ROUNDS):
        card = np.ascontiguousarray(cards[:, card_slot(P, r, 0)])
        a_s, a_h = outs[0].actions[(0, "place", r)], outs[1].actions[(0, "place", r)]
        first = np.flatnonzero(alike & (a_s != a_h))
        if first.size:
            out = np.empty((first.size, 3), np.int64)
            russian_place_rows(flop[first], up[first], placed[first], down[first, 0], card[first], 0,
                               a_s[first].astype(np.int64), a_h[first].astype(np.int64), out)
            cls[first] = (card[first].astype(np.int64) >> 2) * len(STATES) + out[:, 0]
            act_s[first], act_h[first] = out[:, 1], out[:, 2]
            alike[first] = False
        apply_placements(card, 0, a_s, up, placed, down)
    return cls, act_s, act_h


# -- charts -------------------------------------------------------------------------------------


def plot_situations(df, chart: Chart, path):
    """Per class: what solved and the heuristic play (stacked bars), and what S gains over H."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    d = df[(df["class"] != "all") & (df.n > 0)].iloc[::-1]
    best = df.heuristic.iloc[0]
    y = np.arange(len(d))
    colours = ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(15, 1.2 + 0.55 * len(d) + 2),
                                   gridspec_kw={"width_ratios": [1.5, 1]})
    for who, off in (("solved", 0.2), (best, -0.2)):
        left = np.zeros(len(d))
        for j, lab in enumerate(chart.labels):
            v = np.nan_to_num(d[f"{who}: {lab}"].to_numpy(float))
            ax1.barh(y + off, v, 0.38, left=left, color=colours[j], label=lab if who == "solved" else None,
                     alpha=1.0 if who == "solved" else 0.55)
            left += v
        for yi, txt in zip(y, d[f"{who}: {chart.labels[0]}"]):
            ax1.text(1.01, yi + off, who, va="center", fontsize=6.5)
    ax1.set_yticks(y, [f"{c}\n({f:.1%}; differ {g:.0%})" for c, f, g in zip(d["class"], d.frequency, d.disagree)],
                   fontsize=7)
    ax1.set_xlim(0, 1.16)
    ax1.set_xlabel(f"share of the class's deals (upper bar: solved, lower: {best})")
    ax1.legend(fontsize=7, loc="lower center", bbox_to_anchor=(0.5, -0.22), ncol=len(chart.labels), frameon=False)
    ax1.set_title("what each plays")
    err = np.vstack([d.worth - d.worth_ci_low, d.worth_ci_high - d.worth])
    ax2.errorbar(100 * d.worth, y, xerr=100 * err, fmt="o", capsize=3, color="#55a868")
    for yi, (_, r) in zip(y, d.iterrows()):
        ax2.text(0.99, yi, f"{100 * r.differ_contribution:+.4f} points a deal overall",
                 transform=ax2.get_yaxis_transform(), ha="right", va="center", fontsize=6.5, color="#444444")
    ax2.axvline(0, color="grey", lw=0.8, ls="--")
    ax2.set_yticks(y, [""] * len(y))
    ax2.set_xlabel(f"solved minus {best}, per deal of the class (points of a pot, 95% CI)")
    ax2.set_title("what the disagreement is worth")
    ax2.grid(alpha=0.3)
    a = df[df["class"] == "all"].iloc[0]
    fig.suptitle(
        f"{a.game.capitalize()}, {int(a.players)} players, {chart.title}: seat 0 on solved vs "
        f"{chart.decision}={best} (solved elsewhere), field solved; {int(a.n):,} paired deals;\noverall "
        f"{100 * a.gain:+.3f} [{100 * a.gain_ci_low:+.3f}, {100 * a.gain_ci_high:+.3f}] points a deal (all deals), "
        f"{100 * a.worth:+.3f} [{100 * a.worth_ci_low:+.3f}, {100 * a.worth_ci_high:+.3f}] from the "
        f"{a.disagree:.1%} of deals where they differ (the rest is the table's own noise, mean 0)", fontsize=9.5)
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    plt.close(fig)


def plot_grid(df, chart: Chart, path):
    """Slovak's 13x13 first-exchange chart of the solved table, marked where the heuristic departs."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_rgba

    from .slovak_exchange import ACTION_COLOURS, grid_axes

    d = df[df["class"] != "all"].reset_index(drop=True)
    best = d.heuristic.iloc[0]
    fig, ax = plt.subplots(figsize=(13, 14))
    img = np.ones((13, 13, 4))
    for k, r in d.iterrows():
        shares = [r[f"solved: {lab}"] for lab in chart.labels]
        top = int(np.nanargmax(shares)) if r.n else 0
        colour = to_rgba(ACTION_COLOURS[chart.labels[top]])
        alpha = 0.35 + 0.65 * float(np.nan_to_num(shares[top]))
        img[k // 13, k % 13] = [c * alpha + (1 - alpha) for c in colour[:3]] + [1.0]
    ax.imshow(img, interpolation="nearest")
    for k, r in d.iterrows():
        i, j = divmod(k, 13)
        shares = [r[f"solved: {lab}"] for lab in chart.labels]
        heur = [r[f"{best}: {lab}"] for lab in chart.labels]
        ax.text(j, i - 0.3, r["class"], ha="center", va="center", fontsize=9, weight="bold")
        mix = "/".join(f"{100 * s:.0f}" for s in np.nan_to_num(shares))
        ax.text(j, i - 0.05, mix, ha="center", va="center", fontsize=6.5)
        if r.disagree > 0.05:
            half = (r.worth_ci_high - r.worth_ci_low) / 2
            h = chart.labels[int(np.nanargmax(heur))] if r.n else ""
            ax.text(j, i + 0.18, f"{best[:4]}: {h.replace('muck the ', 'm.')}", ha="center", va="center",
                    fontsize=5.5, color="#222222")
            ax.text(j, i + 0.36, f"{100 * r.worth:+.2f}±{100 * half:.2f}", ha="center", va="center", fontsize=6,
                    weight="bold" if r.worth_ci_low > 0 or r.worth_ci_high < 0 else "normal")
    grid_axes(ax, "paler: a mixed row (the top action's share lower)")
    a = df[df["class"] == "all"].iloc[0]
    ax.set_title(
        f"Slovak Double Barrel, first exchange of the solved table, seat 0 of {int(a.players)} in a field of solved\n"
        f"each cell: class; solved's keep/muck-higher/muck-lower %; where {best} plays otherwise on over 5% of the "
        f"class's deals:\nits action and what solved gains over it there (points per deal of the class, from the "
        f"deals where they differ, ±95%;\nbold: away from 0 at 95%). Overall "
        f"{100 * a.gain:+.3f} [{100 * a.gain_ci_low:+.3f}, {100 * a.gain_ci_high:+.3f}] points a deal, "
        f"{int(a.n):,} paired deals, they differ on {a.disagree:.1%}", fontsize=10)
    fig.tight_layout()
    save_figure(fig, path, dpi=100)
    plt.close(fig)


def plot_cells(df, chart: Chart, path):
    """A chart whose classes form a grid (:attr:`Chart.grid`): per cell, solved's shares of the labels,
    the heuristic's where it plays otherwise on over 5% of the cell's deals, and what solved gains over
    it there (per deal of the cell, from the deals where they differ, 95%; bold: away from 0),
    coloured by that gain. The classes after the grid are listed in the title."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows, cols = chart.grid
    R, C = len(rows), len(cols)
    d = df[df["class"] != "all"].reset_index(drop=True)
    best = d.heuristic.iloc[0]
    grid = np.full((R, C), np.nan)
    for k in range(R * C):
        r = d.iloc[k]
        if r.n and r.disagree > 0:
            grid[k // C, k % C] = 100 * r.worth
    # the colour scale from the cells of at least 50 deals and 5% of the largest cell's, where there
    # are any (a small cell's gain is noise enough to wash out the rest)
    big = grid[np.array(d.n[:R * C] >= max(50, 0.05 * d.n[:R * C].max())).reshape(R, C)]
    scale = big if np.isfinite(big).any() else grid
    lim = float(np.nanmax(np.abs(scale))) if np.isfinite(scale).any() else 1.0
    fig, ax = plt.subplots(figsize=(max(9.0, 1.25 * C + 3), 2.2 + 0.62 * R + 1.4))
    im = ax.imshow(grid, cmap="RdBu", vmin=-lim, vmax=lim, aspect="auto")
    short = [lab.split()[-1][:4] if len(chart.labels) > 2 else lab[0].upper() for lab in chart.labels]
    for k in range(R * C):
        r = d.iloc[k]
        i, j = divmod(k, C)
        if not r.n:
            continue
        ink = "white" if abs(np.nan_to_num(grid[i, j])) > 0.6 * lim else "black"  # readable on dark cells
        mix = "/".join(f"{100 * x:.0f}" for x in np.nan_to_num([r[f"solved: {lab}"] for lab in chart.labels]))
        ax.text(j, i - 0.28, f"{mix} ({int(r.n):,})", ha="center", va="center", fontsize=6, color=ink)
        if r.disagree > 0.05:
            heur = np.nan_to_num([r[f"{best}: {lab}"] for lab in chart.labels])
            ax.text(j, i, f"{best[:6]}: " + "/".join(f"{100 * x:.0f}" for x in heur), ha="center", va="center",
                    fontsize=5.5, color=ink)
            half = (r.worth_ci_high - r.worth_ci_low) / 2
            ax.text(j, i + 0.28, f"{100 * r.worth:+.2f}±{100 * half:.2f}", ha="center", va="center", fontsize=6,
                    weight="bold" if r.worth_ci_low > 0 or r.worth_ci_high < 0 else "normal", color=ink)
    ax.set_xticks(range(C), cols, fontsize=8)
    ax.set_yticks(range(R), rows, fontsize=8)
    fig.colorbar(im, ax=ax, label=f"solved minus {best}, per deal of the cell (points of a pot)", shrink=0.8)
    a = df[df["class"] == "all"].iloc[0]
    extra = "; ".join(f"{r['class']}: {r.frequency:.1%} of deals, differ {r.disagree:.1%}"
                      for _, r in d.iloc[R * C:].iterrows())
    import textwrap

    width = int(14 * fig.get_size_inches()[0])
    parts = [f"{a.game.capitalize()}, {int(a.players)} players, {chart.title.replace(chr(10), ' ')}",
             f"Seat 0 on solved vs {chart.decision}={best} (solved elsewhere), field solved, {int(a.n):,} paired "
             f"deals. Each cell: solved's {'/'.join(short)} % (deals); where {best} plays otherwise on over 5% of "
             f"them, its shares and what solved gains there (points per deal of the cell, ±95%; bold: away from 0).",
             f"Overall {100 * a.gain:+.3f} [{100 * a.gain_ci_low:+.3f}, {100 * a.gain_ci_high:+.3f}] points a deal, "
             f"{100 * a.worth:+.3f} [{100 * a.worth_ci_low:+.3f}, {100 * a.worth_ci_high:+.3f}] from the "
             f"{a.disagree:.1%} of deals where they differ" + (f"; {extra}" if extra else "") + "."]
    ax.set_title("\n".join(textwrap.fill(x, width) for x in parts), fontsize=8)
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    plt.close(fig)


def plot_chart(df, chart: Chart, path):
    """The chart's picture: the 13x13 grid (Slovak's first exchange), a grid of cells, or bars by class."""
    if chart.name == "solved_exchange_chart":
        return plot_grid(df, chart, path)
    if chart.grid is not None:
        return plot_cells(df, chart, path)
    return plot_situations(df, chart, path)


def plot_field(df, path):
    """Each built-in as one deviating seat in a field of solved: gain per deal with 95% intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    games = list(dict.fromkeys(zip(df.game, df.players)))
    fig, axes = plt.subplots(1, len(games), figsize=(7 * len(games), 0.6 + 0.32 * df.groupby(["game", "players"])
                                                     .size().max()), squeeze=False)
    for ax, (g, P) in zip(axes[0], games):
        s = df[(df.game == g) & (df.players == P)].iloc[::-1]
        y = np.arange(len(s))
        err = np.vstack([s.gain - s.gain_ci_low, s.gain_ci_high - s.gain])
        colours = ["#c44e52" if lo > 0 else "#4c72b0" for lo in s.gain_ci_low]
        for yi, x, e0, e1, c in zip(y, s.gain, err[0], err[1], colours):
            ax.errorbar([100 * x], [yi], xerr=[[100 * e0], [100 * e1]], fmt="o", ms=4, color=c, capsize=3)
        ax.axvline(0, color="grey", lw=0.8, ls="--")
        ax.set_yticks(y, [f"{d}={p}" if d != "all" else p for d, p in zip(s.decision, s.policy)], fontsize=8)
        ax.set_xlabel("gain over playing solved (points of a pot per deal, 95% CI)")
        ax.set_title(f"{g}, {int(s.players.iloc[0])} players ({int(s.n.max()):,} paired deals)")
        ax.grid(alpha=0.3)
    fig.suptitle("One seat deviating from a field of solved players (red: gains at 95%)")
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    plt.close(fig)


def top_situations(df, k=3):
    """The ``k`` classes where the heuristic loses the most to solved (largest contribution per deal)."""
    d = df[(df["class"] != "all") & (df.n > 0)].sort_values("differ_contribution", ascending=False).head(k)
    return d


# -- 3. --full: re-solve --------------------------------------------------------------------------


def record_of(entry: dict) -> Path:
    """The bench record a shipped table was solved with: the one its metadata names (``record``, as
    ``bench_solve --ship`` writes it), else ``results/solve/bench_<game>_<P>.json``."""
    from strategies.table import load_table

    named = load_table(entry["path"]).meta.get("record")
    if named and (ROOT / named).exists():
        return ROOT / named
    return ROOT / "results" / "solve" / f"bench_{entry['game']}_{entry['players']}.json"


def stage_start(stage: dict) -> str:
    """The table a later stage was solved from, as its ``init`` names it: ``init_table`` where the
    record gives it, else the one file that the ``table:`` specs of ``init`` name."""
    if stage.get("init_table"):
        return stage["init_table"]
    named = {part.split("table:", 1)[1] for part in str(stage.get("init") or "").split(",") if "table:" in part}
    if len(named) != 1:
        raise ValueError(f"a later stage's init {stage.get('init')!r} names {len(named)} tables, not one: "
                         "give the one it started from as init_table in the record")
    return named.pop()


def resolve(entry: dict, out_dir: Path, workers=None, executor=None, settings=None, bench=None) -> dict:
    """Re-solve the game with the settings of its record (:func:`record_of`, or ``bench``;
    those of ``settings`` replaced) and compare the table with the shipped one (every decision's
    probabilities). A record with ``refine`` (a later solve over finer buckets started from the
    previous stage's table, :func:`stage_start`; or a list of them, in order) re-solves
    every stage, each from the previous one's new table (``<game>_<P>_stage<k>.npz`` beside it)."""
    from simcore.solve import solve

    game, P = entry["game"], entry["players"]
    bench = Path(bench) if bench else record_of(entry)
    record = json.loads(bench.read_text())
    s = dict(record["solve"], **(settings or {}))
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = out_dir / f"{game}_{P}"
    t0, c0 = time.perf_counter(), time.process_time()

    def run(s, out, init):
        return solve(game, P, iterations=s["iterations"], abstraction=s["abstraction"],
                     deals_per_iteration=s["deals_per_iteration"], eval_deals=s["eval_deals"], seed=s["seed"],
                     options=entry["options"] or None, init=init, passes=1, confidence=s["confidence"],
                     validate=bool(s.get("validate")), method=s.get("method") or "fp",
                     measure_every=s.get("measure_every"), start_weight=s.get("start_weight", 1),
                     keep=s.get("keep", "measured"), fit=s.get("fit", "backward"),
                     executor=executor, workers=workers, out=out)

    later = record.get("refine") or []  # later solves over finer buckets, each from the previous table
    later = [later] if isinstance(later, dict) else list(later)
    later = [st if "solve" in st else {"solve": st} for st in later]  # a stage's settings, or its bench report

    def out(k):
        return f"{stem}.npz" if k == 1 + len(later) else f"{stem}_stage{k}.npz"

    r = run(s, out(1), s["init"])
    for k, stage in enumerate(later, start=2):
        prev = stage_start(stage["solve"])  # the previous stage's table as this one's init names it
        r = run(stage["solve"], out(k), stage["solve"]["init"].replace(f"table:{prev}", f"table:{_rel(out(k - 1))}"))
    if later:
        summary = [{"iterations": x["iterations"], "abstraction": x["abstraction"], "method": x.get("method") or "fp",
                    **({"fit": x["fit"]} if x.get("fit", "backward") != "backward" else {})}
                   for x in [record["solve"]] + [st["solve"] for st in later[:-1]]]
        s = dict(later[-1]["solve"], stage1=summary[0], **({"earlier_stages": summary} if len(later) > 1 else {}))
    last = r.log[-1] if r.log else {}
    return {"game": game, "players": P, "settings": {k: s[k] for k in ("iterations", "abstraction",
                                                                       "deals_per_iteration", "eval_deals",
                                                                       "seed", "init", "confidence", "fit",
                                                                       "start_weight", "keep", "stage1",
                                                                       "earlier_stages")
                                                     if k in s},
            "validate": bool(s.get("validate")), "method": s.get("method") or "fp",
            "from": os.path.relpath(bench, ROOT), "table": _rel(f"{stem}.npz"),
            "last_gain": last.get("gain"), "last_stderr": last.get("stderr"),
            # cpu_s: this process's CPU only (worker processes' time is not counted)
            "wall_s": round(time.perf_counter() - t0, 1), "cpu_s": round(time.process_time() - c0, 1),
            **compare_tables(entry, f"{stem}.npz")}


def resolve_candidate(game: str, players: int, candidate: str, chain: str, out_dir: Path, workers=2,
                      executor="threads") -> dict:
    """Re-solve a candidate table (one not shipped yet) whole from its chain record, every stage on
    ``workers``, and compare the new table with the candidate's file (:func:`resolve`'s comparison).
    Writes and returns ``<out_dir>/resolve_report.json``, with the load averages around the run: a
    candidate's whole solve time, timed before it ships."""
    entry = shipped_entry(game, players)  # the game's options; the candidate replaces its table
    out_dir, start = Path(out_dir), os.getloadavg()
    out_dir.mkdir(parents=True, exist_ok=True)
    r = resolve(dict(entry, path=candidate, spec=f"table:{candidate}"), out_dir, workers=workers,
                executor=executor, bench=chain)
    report = {**r, "compared_with": candidate, "loadavg_start": start, "loadavg_end": os.getloadavg()}
    write_json(out_dir / "resolve_report.json", report)
    return report


def compare_tables(entry: dict, path: str, n_deals: int = 1 << 16, seed: int = 5) -> dict:
    """How a table file differs from the entry's (shipped) table: per decision, the rows with an
    entry in both (and whether they are equal), the rows with an entry in one only (and whether
    all of those are the pure first canonical action, which the start policy plays: the canonical
    order puts its choice first), and whether seat 0 on the file, in a field of the shipped table,
    plays every deal of a paired run exactly as the shipped table does (difference 0, spread 0)."""
    from simcore import compare
    from strategies.table import load_table

    new, old = load_table(path), load_table(entry["path"])
    rows = {}
    for d in old.decisions:
        x, y = new.arrays[d], old.arrays[d]
        ex, ey = x.sum(axis=1) > 0, y.sum(axis=1) > 0
        both, one = ex & ey, ex ^ ey
        lone = np.where(ex[one, None], x[one], y[one])
        rows[d] = {"rows_in_both": int(both.sum()), "equal_in_both": bool(np.array_equal(x[both], y[both])),
                   "rows_in_one_only": int(one.sum()),
                   "one_only_pure_first": bool(np.all(lone[:, 0] == 1.0)) if one.any() else True}
    r = compare(entry["game"], entry["players"], n_deals, seed, a=f"table:{path}", b=entry["spec"],
                field=entry["spec"], options=entry["options"], threads=1, progress=False)
    d, se = r.stats.diff(0, 1)
    def same(k):  # the probabilities and the start shares (none: all zeros)
        none = np.zeros(len(old.arrays[k]))
        return bool(np.array_equal(new.arrays[k], old.arrays[k])
                    and np.array_equal(new.starts.get(k, none), old.starts.get(k, none)))

    return {"identical_to_shipped": {k: same(k) for k in old.decisions},
            "rows": rows, "same_play": {"deals": n_deals, "seed": seed, "diff": float(d), "stderr": float(se),
                                        "same": bool(d == 0 and se == 0)}}


def recheck_resolved(res: Path) -> list[dict]:
    """Compare the tables of ``<res>/solve/resolved/`` with the shipped ones again (:func:`compare_tables`),
    keeping each re-solve's settings and seconds in ``resolved.json``."""
    path = res / "solve" / "resolved" / "resolved.json"
    entries = {(e["game"], e["players"]): e for e in shipped()}
    out = [_compared_again(r, entries[(r["game"], r["players"])],
                           res / "solve" / "resolved" / f"{r['game']}_{r['players']}.npz")
           for r in json.loads(path.read_text())]
    write_json(path, out)
    return out


def _compared_again(row: dict, entry: dict, table: Path) -> dict:
    """A ``resolved.json`` row with its comparison made anew: the table file at ``table`` against the
    shipped ``entry`` (or the stage of it over the same buckets, :func:`_same_stage`), in place of
    whatever comparison the row held (``compared_with`` keeps its place in the row)."""
    row = {k: v for k, v in row.items() if k not in ("identical_to_shipped", "max_abs_difference", "rows", "same_play")}
    entry, which = _same_stage(entry, str(table))
    return {**row, "compared_with": which, **compare_tables(entry, str(table))}


def _same_stage(entry: dict, path: str) -> tuple[dict, str]:
    """The shipped table, or the stage of it (a table it was refined from, bundled in ``starts/``) made
    over the same buckets as the table file at ``path``, and which one it is in words: a re-solve of
    only the first stage is compared with the first stage."""
    from strategies.table import load_table

    made = load_table(path).abstraction
    tf, back = load_table(entry["path"]), 0
    while tf.abstraction != made:
        specs = {tf.fallback_spec(d) for d in tf.decisions} - {None}
        if len(specs) != 1 or not next(iter(specs)).startswith("table:"):
            return entry, "shipped"  # no earlier stage over these buckets: compared with the shipped table
        tf, back = load_table(next(iter(specs))[len("table:"):]), back + 1
    if back == 0:
        return entry, "shipped"
    return (table_entry(entry["game"], tf.path),
            f"the stage {back} before the shipped table ({_rel(tf.path)}, {tf.abstraction} buckets)")


def summary(res: Path) -> str:
    """``results/solve/solved.md`` from the CSVs (no simulation): the field table, each chart's
    overall gap, and the classes where the best heuristic loses the most to solved and gains the most."""
    import pandas as pd

    solve_dir = res / "solve"
    field = pd.read_csv(solve_dir / "solved_field.csv")
    lines = ["# The solved tables: built-ins in a field of solved, and where the best heuristic departs",
             "", "Made by `python -m experiments.solved` (its provenance: `solved_provenance.json`). Gains in "
             "pot share per deal at seat 0, paired on the same deals, with 95% intervals.", ""]

    def ci(x, lo, hi):
        return f"{x:+.5f} [{lo:+.5f}, {hi:+.5f}]"

    for (game, P), g in field.groupby(["game", "players"], sort=False):
        lines += [f"## {game}, {int(P)} players", "",
                  "One seat deviates from a field of `solved` (keeping `solved` at its other decisions); its "
                  "gain over playing `solved` itself:", "",
                  "| deviation | gain per deal | 95% interval | deals | beats solved? |", "|---|---|---|---|---|"]
        for _, r in g.iterrows():
            name = r.policy if r.decision == "all" else f"{r.decision}={r.policy}"
            if r.decision == "all":
                name = f"best heuristic ({r.hero})"
            lines.append(f"| {name} | {r.gain:+.5f} | [{r.gain_ci_low:+.5f}, {r.gain_ci_high:+.5f}] | "
                         f"{int(r.n):,} | {'**yes**' if r.gain_ci_low > 0 else 'no'} |")
        lines.append("")
        for chart in _charts(game):
            stem = f"{chart.name}{suffix(game, int(P))}"
            path = res / game / f"{stem}.csv"
            if not path.exists():
                continue
            df = pd.read_csv(path)
            a = df[df["class"] == "all"].iloc[0]
            lines += [f"**{chart.decision}** (`{game}/{stem}.png`): solved against `{chart.decision}="
                      f"{a.heuristic}`, {int(a.n):,} deals; they differ on {a.disagree:.1%} of deals; solved "
                      f"minus the heuristic {ci(a.gain, a.gain_ci_low, a.gain_ci_high)} a deal, "
                      f"{ci(a.worth, a.worth_ci_low, a.worth_ci_high)} from the deals where they differ.", ""]
            cls = df[(df["class"] != "all") & (df.n > 0)]
            lose = top_situations(df)
            gain = cls.sort_values("differ_contribution").head(3)
            for title, d in (("Where the heuristic loses the most to solved", lose[lose.differ_contribution > 0]),
                             ("Where the heuristic gains the most over solved", gain[gain.differ_contribution < 0])):
                if d.empty:
                    lines += [f"{title}: nowhere.", ""]
                    continue
                lines += [f"{title} (from the deals where they differ):", "",
                          "| class | share of deals | they differ | per deal overall | per deal of the class |",
                          "|---|---|---|---|---|"]
                for _, r in d.iterrows():
                    dc = ci(r.differ_contribution, r.differ_contribution_ci_low, r.differ_contribution_ci_high)
                    lines.append(f"| {r['class']} | {r.frequency:.1%} | {r.disagree:.1%} | {dc} | "
                                 f"{ci(r.worth, r.worth_ci_low, r.worth_ci_high)} |")
                lines.append("")
    rpath = solve_dir / "resolved" / "resolved.json"
    if rpath.exists():
        lines += ["## Re-solved with the recorded settings", ""]
        for r in json.loads(rpath.read_text()):
            same = all(r["identical_to_shipped"].values())
            rows = r["rows"]
            against = r.get("compared_with", "shipped")
            if same:
                what = ("identical to the shipped one" if against == "shipped" else f"identical to {against}, "
                        "the table the shipped one was refined from")
            else:
                what = (f"not byte-identical to {'the shipped one' if against == 'shipped' else against}: " + "; ".join(
                    f"{d}: {x['rows_in_both']} rows in both, " + ("equal" if x["equal_in_both"] else "NOT equal")
                    + f", {x['rows_in_one_only']} in one only"
                    + (" (all the pure first action, the start's)" if x["one_only_pure_first"] else "")
                    for d, x in rows.items()))
            sp = r["same_play"]
            st = r["settings"]
            earlier = st.get("earlier_stages") or ([st["stage1"]] if st.get("stage1") else [])
            stages = "".join(f"stage {k}: {x['iterations']} iterations ({x['method']}, {x['abstraction']}); "
                             for k, x in enumerate(earlier, start=1))
            last = "last stage: " if earlier else ""
            lines.append(f"- {r['game']} {r['players']}p ({stages}{last}{st['iterations']} iterations x "
                         f"{st['deals_per_iteration']:,} deals, seed {st['seed']}): "
                         f"{r['wall_s']:.0f} s wall in all" + (f" ({r['note']})" if r.get("note") else "")
                         + f"; the table is {what}. Seat 0 on it in "
                         f"a field of {'the shipped table' if against == 'shipped' else 'that table'}, "
                         f"{sp['deals']:,} paired deals: "
                         + ("the same play on every deal (difference 0, spread 0)." if sp["same"] else
                            f"difference {sp['diff']:+.6f} +- {1.96 * sp['stderr']:.6f}."))
        lines.append("")
    text = "\n".join(lines)
    write_text(solve_dir / "solved.md", text)
    return text


def _size_index(game: str, players: int) -> int:
    return sizes(game).index(players) if players in sizes(game) else len(sizes(game))


def _order(game: str, players: int):
    """Games in :data:`GAMES`' order, a game's sizes in theirs (the CSVs' row order)."""
    return (list(GAMES).index(game) if game in GAMES else len(GAMES), game, _size_index(game, players))


def _key(game: str, players: int) -> str:
    """A table's name in the provenance: the game, or ``<game>-<P>p`` for a game of several sizes."""
    return game if len(sizes(game)) == 1 else f"{game}-{players}p"


def _old_tables(path: Path, mode: str) -> dict:
    """The tables recorded by an earlier run of the same mode (a run of some games keeps the others')."""
    if not path.exists():
        return {}
    old = json.loads(path.read_text())
    return old.get("tables", {}) if old.get("mode") == mode else {}


def _earlier_runs(path: Path, mode: str) -> list:
    """The runs of the same mode whose studies a run of some games keeps: the earlier record's own
    command, commit, settings and seconds, after those it kept itself."""
    if not path.exists():
        return []
    old = json.loads(path.read_text())
    if old.get("mode") != mode:
        return []
    return old.get("earlier_runs", []) + [{k: old[k] for k in ("command", "git_commit", "config", "seconds")
                                           if k in old}]


def _merge(path: Path, new, done: set, partial: bool):
    """``new`` rows, and, in a run of some games (``partial``), the earlier rows of ``path`` of the
    other (game, players); the games in :func:`_order`, each game's rows in their order."""
    import pandas as pd

    both = new
    if partial and path.exists():
        old = pd.read_csv(path)
        keep = old[[(g, int(p)) not in done for g, p in zip(old.game, old.players)]]
        both = pd.concat([keep, new], ignore_index=True)
    order = sorted(dict.fromkeys(zip(both.game, both.players)), key=lambda k: _order(k[0], int(k[1])))
    return pd.concat([both[(both.game == g) & (both.players == p)] for g, p in order], ignore_index=True)


def _merge_resolved(path: Path, new: list, done: set, partial: bool) -> list:
    """resolved.json's rows as :func:`_merge` merges a CSV's: the ``new`` re-solves, and in a run of
    some games (``partial``) the earlier rows of the other (game, players), in :func:`_order`."""
    old = json.loads(path.read_text()) if partial and path.exists() else []
    rows = [r for r in old if (r["game"], r["players"]) not in done] + list(new)
    return sorted(rows, key=lambda r: _order(r["game"], r["players"]))


def resolve_shipped(game: str, players: int, workers=None, executor=None, out_dir: Path | None = None) -> dict:
    """What ``--full`` does for one shipped table alone: re-solve it whole from its record
    (:func:`resolve`) and merge its row into ``resolved.json``, the other tables' rows kept."""
    entry = shipped_entry(game, players)
    out_dir = Path(out_dir) if out_dir is not None else ROOT / "results" / "solve" / "resolved"
    r = resolve(entry, out_dir, workers=workers, executor=executor)
    r["loadavg_end"] = os.getloadavg()
    path = out_dir / "resolved.json"
    write_json(path, _merge_resolved(path, [r], {(game, players)}, partial=True))
    return r


def adopt_resolved(game: str, players: int, src: Path, out_dir: Path | None = None) -> dict:
    """Make a candidate's re-solve (``src``, as :func:`resolve_candidate` wrote it) the shipped table's
    re-solve once the candidate ships: its stage files (``<game>_<P>*.npz``, their JSON logs and
    charts) copied into ``out_dir`` (``results/solve/resolved/``) with the paths in their headers
    and logs rewritten to the new place, every array checked equal to the original's, and its report
    compared with the shipped table again and merged into ``resolved.json`` (the other rows kept).
    ``src`` is left as it was. Refuses a re-solve of another game or size."""
    from strategies.table import load_table

    src = Path(src)
    out_dir = Path(out_dir) if out_dir is not None else ROOT / "results" / "solve" / "resolved"
    report = json.loads((src / "resolve_report.json").read_text())
    if (report["game"], report["players"]) != (game, players):
        raise ValueError(f"{src}/resolve_report.json re-solved {report['game']} at {report['players']} players, "
                         f"not {game} at {players}")
    old, new = _rel(src) + "/", _rel(out_dir) + "/"

    def moved(x):
        return None if x is None else json.loads(json.dumps(x).replace(old, new))

    out_dir.mkdir(parents=True, exist_ok=True)
    for npz in sorted(src.glob(f"{game}_{players}*.npz")):
        t = load_table(npz)
        t.save(out_dir / npz.name, meta=moved(t.meta), fallback=moved(t.header.get("fallback")))
        copy = load_table(out_dir / npz.name)
        if not all(np.array_equal(copy.arrays[d], t.arrays[d]) for d in t.decisions):
            raise RuntimeError(f"{out_dir / npz.name}: the copy's arrays differ from {npz}'s")
        log, chart = npz.with_suffix(".json"), npz.with_suffix(".png")
        if log.exists():
            (out_dir / log.name).write_text(log.read_text().replace(old, new))
        if chart.exists():
            shutil.copyfile(chart, out_dir / chart.name)
    row = _compared_again({k: v for k, v in moved(report).items() if k != "loadavg_start"},
                          shipped_entry(game, players), out_dir / f"{game}_{players}.npz")
    path = out_dir / "resolved.json"
    write_json(path, _merge_resolved(path, [row], {(game, players)}, partial=True))
    return row


def _rel(path) -> str:
    """``path`` relative to the repository when it lies inside it (as committed results name files)."""
    p = Path(path).resolve()
    return str(p.relative_to(ROOT)) if ROOT in p.parents else str(path)


# -- main ------------------------------------------------------------------------------------------


def _fmt(x):
    return f"{x:+.5f}"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m experiments.solved", description=__doc__.split("\n\n")[0])
    p.add_argument("--full", action="store_true", help="the committed run: more deals, rollout:8 deviations and "
                                                       "the tables re-solved (each within 30 minutes on 2 cores, about 2.2 hours for all six)")
    add_cell_arguments(p)
    p.add_argument("--seed", type=seed_type, default=SEED)
    p.add_argument("--results", type=Path, default=ROOT / "results",
                   help="results folder: charts go to <results>/<game>/, tables to <results>/solve/")
    p.add_argument("--games", nargs="+", choices=list(GAMES), default=None, help="only these games")
    p.add_argument("--table", action="append", default=[], metavar="GAME=FILE",
                   help="chart this table file instead of the shipped one (repeatable)")
    p.add_argument("--no-resolve", action="store_true", help="with --full: skip re-solving")
    p.add_argument("--summary", action="store_true",
                   help="only rewrite <results>/solve/solved.md from the CSVs (no simulation)")
    p.add_argument("--recheck-resolved", action="store_true",
                   help="only compare the re-solved tables of <results>/solve/resolved/ with the shipped ones "
                        "again (resolved.json keeps each re-solve's settings and seconds), then the summary")
    args = p.parse_args(argv)
    if args.recheck_resolved:
        recheck_resolved(Path(args.results))
    if args.summary or args.recheck_resolved:
        print(summary(Path(args.results)))
        return 0
    configure_cells(args)
    from simcore.engine.executors import default_workers

    cfg = dict(FULL if args.full else QUICK)
    # threads unless --executor or --scheduler says otherwise (the same tables anywhere)
    where = {"executor": args.executor, "workers": args.workers, "scheduler": args.scheduler}
    if args.no_resolve:
        cfg["resolve"] = False
    threads = args.threads or default_workers()
    if args.workers is not None or args.scheduler or args.executor in ("processes", "dask"):
        threads = None  # the workers say how many
    entries = {(e["game"], e["players"]): e for e in shipped(args.games)}
    for t in args.table:
        game, sep, path = t.partition("=")
        if not sep or not path:
            raise SystemExit(f"--table {t!r}: give GAME=FILE")
        e = table_entry(game, path)
        entries[(game, e["players"])] = e
    res = Path(args.results)
    solve_dir = res / "solve"
    solve_dir.mkdir(parents=True, exist_ok=True)
    log = StudyLog("python -m experiments.solved", argv, full=args.full, seed=args.seed, threads=threads,
                   config=cfg)
    partial = args.games is not None  # a run of some games keeps the others' rows and records
    if partial:
        log.keep_studies(solve_dir / "solved_provenance.json")
        log.record["earlier_runs"] = _earlier_runs(solve_dir / "solved_provenance.json", log.record["mode"])
    tables = dict(_old_tables(solve_dir / "solved_provenance.json", log.record["mode"]) if partial else {})
    tables = {k: v for k, v in tables.items() if v.get("game", k.split("-")[0]) not in (args.games or [])}
    tables.update({_key(*g): {"game": g[0], "path": _rel(e["path"]), **{k: e[k] for k in ("spec", "players",
                                                                                             "options")}}
                   for g, e in entries.items()})
    log.record["tables"] = tables
    if not entries:
        print("no solved table is shipped for " + ", ".join(args.games or GAMES) + ": nothing to check")
    import pandas as pd

    fields, tops = [], []
    for (game, P), e in sorted(entries.items(), key=lambda x: _order(*x[0])):
        # a game's seeds do not depend on which others run; a second table size adds 500
        base = args.seed + 1000 * list(GAMES).index(game) + 500 * _size_index(game, P)
        name = _key(game, P)  # the game, or game-<P>p where it has more than one size
        e["path"] = str(e["path"])
        print(f"\n{game}, {P} players, solved table {os.path.relpath(e['path'], ROOT)}")
        t0 = time.perf_counter()
        scale = GAMES[game].get("full_scale" if args.full else "scale", GAMES[game].get("scale", 1.0))
        deals = {k: max(1 << 12, int(cfg[k] * scale)) for k in ("field_deals", "chart_deals", "rollout_deals")}
        fields.append(field_table(e, deals["field_deals"], base, threads,
                                  deals["rollout_deals"] if cfg["rollout_deals"] else 0, **where))
        log.done(f"{name} field", t0, deals=deals["field_deals"], rollout_deals=deals["rollout_deals"])
        out = res / game
        out.mkdir(parents=True, exist_ok=True)
        for ci, chart in enumerate(_charts(game)):
            t0 = time.perf_counter()
            df, _ = disagreement(e, chart, deals["chart_deals"], base + 100 + ci, threads, **where)
            stem = f"{chart.name}{suffix(game, P)}"
            write_csv(df, out / f"{stem}.csv")
            plot_chart(df, chart, out / f"{stem}.png")
            a = df[df["class"] == "all"].iloc[0]
            print(f"  {chart.decision}: solved vs {chart.decision}={a.heuristic}: {_fmt(a.gain)} "
                  f"[{_fmt(a.gain_ci_low)}, {_fmt(a.gain_ci_high)}], differ on {a.disagree:.1%} of deals")
            top = top_situations(df)
            for _, r in top.iterrows():
                print(f"    {r['class']:42s} {r.frequency:6.1%} of deals, differ {r.disagree:5.1%}: "
                      f"{_fmt(r.differ_contribution)} a deal [{_fmt(r.differ_contribution_ci_low)}, "
                      f"{_fmt(r.differ_contribution_ci_high)}]")
            tops.append(top.assign(chart=chart.name))
            log.done(f"{name} {chart.name}", t0, deals=deals["chart_deals"], seed=int(df.seed.iloc[0]))
    if fields:
        done = set(entries)
        field = _merge(solve_dir / "solved_field.csv", pd.concat(fields, ignore_index=True), done, partial)
        write_csv(field, solve_dir / "solved_field.csv")
        plot_field(field, solve_dir / "solved_field.png")
        top = pd.concat(tops, ignore_index=True)
        top = top.sort_values(["game", "players", "differ_contribution"], ascending=[True, False, False])
        top = top.groupby(["game", "players"], sort=False).head(3)
        top = _merge(solve_dir / "solved_top.csv", top, done, partial)
        write_csv(top, solve_dir / "solved_top.csv")
    if cfg["resolve"]:
        path = solve_dir / "resolved" / "resolved.json"
        resolved = []
        for (game, P), e in sorted(entries.items(), key=lambda x: _order(*x[0])):
            bench = record_of(e)
            if not bench.exists():
                print(f"\nnot re-solving {game} {P}p: no recorded settings ({_rel(bench)})", flush=True)
                continue
            t0 = time.perf_counter()
            print(f"\nre-solving {game} {P}p with the recorded settings ...", flush=True)
            r = resolve(e, solve_dir / "resolved", workers=args.workers, executor=args.executor)
            resolved.append(r)
            print(f"  {r['wall_s']:.0f} s; identical to the shipped table: {r['identical_to_shipped']}")
            log.done(f"{_key(game, P)} resolve", t0)
        resolved = _merge_resolved(path, resolved, set(entries), partial)
        if resolved:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_json(path, resolved)
    if fields:
        summary(res)
    seconds = log.write(solve_dir / "solved_provenance.json")
    print(f"wrote {solve_dir} and the games' solved_* charts ({seconds} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
