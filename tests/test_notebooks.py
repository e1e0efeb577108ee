"""The notebooks run top to bottom on the committed results and show what those say.

Each notebook's code cells run in one namespace, without Jupyter; the value of
a cell's last expression is kept as its output, as Jupyter would display it.
Every notebook in ``notebooks/`` is covered: ``EXPECT`` names the tables a
notebook must build (with their columns) and the figures it must draw, and a
notebook not listed there must at least build a non-empty table of its own
game's results. The tests at the end check the figures the notebooks show
against the committed CSV files, read independently; each game's notebook ends
with a section on the shipped ``solved`` strategy, checked the same way.
"""
import ast
import csv
import json
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import matplotlib
import pandas as pd
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))

# The tables of each game's section "## The solved strategy".
SOLVED_FRAMES = {
    "solved_verdict": {"players", "seed", "abstraction", "deals", "gain", "ci_low", "ci_high", "builtin",
                       "builtin_gain", "builtin_ci_low", "builtin_ci_high", "ratio", "ratio_upper", "quarter"},
    "solved_field": {"players", "deviation", "n", "gain", "gain_ci_low", "gain_ci_high"},
    "solved_overall": {"chart", "players", "decision", "heuristic", "n", "disagree", "gain", "gain_ci_low",
                       "gain_ci_high"},
    "solved_top": {"chart", "players", "decision", "class", "frequency", "disagree", "differ_contribution",
                   "differ_contribution_ci_low", "differ_contribution_ci_high"},
    "solved_worst": {"chart", "players", "class", "differ_contribution"},
}
SOLVED_GAMES = [g for g in ("estonian", "slovak", "tapiola", "sviten", "russian") if g in NOTEBOOKS]

# Per notebook: {variable: columns it must have}, and how many figures it draws at least.
EXPECT = {
    "estonian": {
        "frames": {
            "policies": {"variant", "players", "policy", "varied", "n", "share", "stderr", "ci_low",
                         "ci_high", "diff_vs_baseline", "diff_ci_low", "diff_ci_high"},
            "six": {"policy", "varied", "share", "ci_low", "ci_high", "diff_vs_baseline"},
            "rollout": {"variant", "players", "situation", "n", "frequency", "passes_key_card",
                        "gain_vs_lowest", "gain_ci_low", "gain_ci_high"},
            **SOLVED_FRAMES,
        },
        "figures": 1,
    },
    "slovak": {
        "frames": {
            "policies": {"variant", "players", "strategy", "n", "share", "ci_low", "ci_high", "diff",
                         "diff_ci_low", "diff_ci_high"},
            "seats": {"variant", "players", "strategy", "seat", "share", "ci_low", "ci_high",
                      "diff_vs_seat0"},
            "chart": {"variant", "players", "hand", "kind", "best", "gain", "gain_ci_low", "gain_ci_high"},
            **SOLVED_FRAMES,
        },
        "figures": 1,  # the solved section's field deviations
    },
    "tapiola": {
        "frames": {
            "policies": {"players", "field", "form", "n", "seat", "ci_low", "ci_high", "diff", "diff_ci_low",
                         "diff_ci_high"},
            "last": {"discard", "form", "n", "best_minus_this", "best_minus_this_ci_low",
                     "best_minus_this_ci_high"},
            "match": {"players", "seat", "match_win", "match_ci_low", "match_ci_high", "mean_hands", "fair"},
            "chart": {"variant", "policy", "round", "hand", "towers", "thrown", "fraction", "ci_low", "ci_high"},
            **SOLVED_FRAMES,
        },
        "figures": 1,
    },
    "sviten": {
        "frames": {
            "policies": {"players", "decision", "field", "n", "share", "ci_low", "ci_high", "diff",
                         "diff_ci_low", "diff_ci_high"},
            "chart": {"hand_class", "throw", "n", "share", "ci_low", "ci_high", "best", "diff_vs_best"},
            "open_chart": {"variant", "hand_class", "open_rank", "keep_gain", "ci_low", "ci_high", "verdict"},
            "halves": {"variant", "players", "strategy", "seat", "event", "rate", "ci_low", "ci_high"},
            "reshuffles": {"players", "n", "rate_any", "rate_any_ci_low", "rate_any_ci_high"},
            **SOLVED_FRAMES,
        },
        "figures": 1,
    },
    "russian": {
        "frames": {
            "policies": {"field", "n", "ci_low", "ci_high", "diff_vs_best", "diff_vs_best_ci_low",
                         "diff_vs_best_ci_high", "hands_won_0"},
            "seats": {"variant", "players", "strategy", "seat", "share", "ci_low", "ci_high", "diff_vs_seat0"},
            "chart": {"variant", "players", "policy", "rank", "state", "target", "share"},
            **SOLVED_FRAMES,
        },
        "figures": 1,
    },
}
# A notebook not in EXPECT: some table of its own game's results.
GENERIC_COLUMNS = {"variant", "players", "n"}


@dataclass
class Run:
    scope: dict  # the notebook's variables after the last cell
    outputs: list  # each code cell's displayed value (None if it shows nothing)
    figures: list  # (number of axes, number of plotted artists per axes) per figure


@lru_cache(maxsize=None)
def run_notebook(name: str) -> Run:
    """Execute ``notebooks/<name>.ipynb``'s code from the repository root."""
    import json

    nb = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text())
    scope: dict = {}
    outputs = []
    here = os.getcwd()
    plt.close("all")
    os.chdir(ROOT)
    try:
        for cell in nb["cells"]:
            if cell["cell_type"] != "code":
                continue
            tree = ast.parse("".join(cell["source"]), f"{name}.ipynb")
            last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
            exec(compile(tree, f"{name}.ipynb", "exec"), scope)
            shown = None
            if last is not None:
                shown = eval(compile(ast.Expression(last.value), f"{name}.ipynb", "eval"), scope)
            outputs.append(shown)
        figures = []
        for num in plt.get_fignums():
            axes = plt.figure(num).axes
            figures.append((len(axes), [len(ax.lines) + len(ax.collections) + len(ax.images)
                                        + len(ax.patches) for ax in axes]))
    finally:
        os.chdir(here)
        plt.close("all")
    return Run(scope, outputs, figures)


def read_csv_rows(path):
    with open(ROOT / path, newline="") as f:
        return list(csv.DictReader(f))


def frames(scope):
    return {k: v for k, v in scope.items() if isinstance(v, pd.DataFrame) and not k.startswith("_")}


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_builds_its_tables_and_figures_from_committed_results(name):
    run = run_notebook(name)
    built = frames(run.scope)
    assert built, f"{name}.ipynb builds no table"
    for var, df in built.items():
        assert len(df) > 0, f"{name}.ipynb: {var} is empty"
        if {"share", "ci_low", "ci_high"} <= set(df.columns):
            # Every interval the notebook shows contains its point estimate.
            assert ((df.ci_low <= df.share) & (df.share <= df.ci_high)).all(), var
    for n_axes, artists in run.figures:
        assert n_axes >= 1 and all(a > 0 for a in artists), f"{name}.ipynb draws an empty chart"
    expect = EXPECT.get(name)
    if expect is None:
        own = [v for v, df in built.items() if GENERIC_COLUMNS <= set(df.columns)
               and set(df.variant.astype(str)) == {name}]
        assert own, (f"{name}.ipynb: no table with columns {sorted(GENERIC_COLUMNS)} holding only "
                     f"{name!r} results; add the notebook to EXPECT in {Path(__file__).name}")
        return
    for var, columns in expect["frames"].items():
        df = run.scope.get(var)
        assert isinstance(df, pd.DataFrame), f"{name}.ipynb does not build {var}"
        assert columns <= set(df.columns), f"{name}.ipynb {var} lacks {sorted(columns - set(df.columns))}"
        if "variant" in df.columns:
            assert set(df.variant.astype(str)) == {name}, var
    assert len(run.figures) >= expect["figures"], run.figures


@pytest.mark.skipif("estonian" not in NOTEBOOKS, reason="no notebooks/estonian.ipynb")
def test_estonian_notebook_ranks_the_policies_as_the_csv_says():
    run = run_notebook("estonian")
    rows = [r for r in read_csv_rows("results/estonian/policies.csv") if r["players"] == "6"]
    best = max(rows, key=lambda r: float(r["diff_vs_baseline"]))
    ranked = run.outputs[1]  # the 6-player table, best first
    assert list(ranked.columns) == ["policy", "varied", "share", "ci_low", "ci_high",
                                    "diff_vs_baseline", "diff_ci_low", "diff_ci_high"]
    assert len(ranked) == len(rows)
    assert ranked.policy.iloc[0] == best["policy"]
    assert ranked.diff_vs_baseline.iloc[0] == pytest.approx(float(best["diff_vs_baseline"]), abs=1e-4)
    assert ranked.diff_vs_baseline.is_monotonic_decreasing
    # The chart: one error-bar line per pass policy, over every table size.
    passes = {r["policy"] for r in read_csv_rows("results/estonian/policies.csv") if r["varied"] == "pass"}
    (n_axes, artists), = run.figures
    assert n_axes == 1 and artists[0] >= len(passes)
    rollout = run.outputs[3]
    assert list(rollout.situation) == [r["situation"] for r in read_csv_rows("results/estonian/rollout_pass.csv")]


@pytest.mark.skipif("slovak" not in NOTEBOOKS, reason="no notebooks/slovak.ipynb")
def test_slovak_notebook_shows_the_committed_tables():
    run = run_notebook("slovak")
    assert {"policies.csv", "seat_position.csv", "exchange_chart.csv"} <= set(run.outputs[0])
    shown_policies = run.outputs[1]
    assert len(shown_policies) == 30
    assert len(run.scope["policies"]) == len(read_csv_rows("results/slovak/policies.csv"))
    # Seat shares with everyone on one policy add up to the whole pot at every table size.
    seats = run.scope["seats"]
    for (players, strategy), g in seats.groupby(["players", "strategy"]):
        assert len(g) == players, (players, strategy)
        assert g.share.sum() == pytest.approx(1.0, abs=1e-9), (players, strategy)
    # The chart covers all 169 starting classes once; the notebook shows its first 20.
    chart = run.scope["chart"]
    assert len(chart) == 169 and chart.hand.is_unique
    assert set(chart.best) <= {"keep both", "muck the lower", "muck the higher"}
    assert run.outputs[3].equals(chart.head(20))


# -- the solved strategy: the section each game's notebook ends with ------------------------------

# The judge the README's verdict table names per shipped table: buckets, fitting deals a stage.
README_JUDGE = {("estonian", 6): ("medium", 1 << 26), ("slovak", 6): ("fine", 1 << 26),
                ("tapiola", 6): ("coarse", 1 << 24), ("sviten", 6): ("medium", 1 << 22),
                ("russian", 4): ("fine", 1 << 22), ("russian", 3): ("fine", 1 << 21)}
SOLVED_HEAD = "## The solved strategy"


def ci_text(x, lo, hi):
    """An estimate and its interval as results/solve/solved.md writes them."""
    return f"{x:+.5f} [{lo:+.5f}, {hi:+.5f}]"


@pytest.mark.parametrize("name", SOLVED_GAMES)
def test_solved_section_ends_the_notebook_and_names_the_committed_charts(name):
    nb = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text())
    cells = nb["cells"]
    heads = [i for i, c in enumerate(cells)
             if c["cell_type"] == "markdown" and "".join(c["source"]).startswith(SOLVED_HEAD)]
    assert len(heads) == 1, f"{name}.ipynb has no single {SOLVED_HEAD!r} section"
    section = cells[heads[0]:]
    later = ["".join(c["source"]) for c in section[1:] if c["cell_type"] == "markdown"]
    assert not any(t.startswith("## ") for t in later), "the solved section is the notebook's last"
    assert sum(c["cell_type"] == "code" for c in section) >= 3
    text = "".join("".join(c["source"]) for c in section if c["cell_type"] == "markdown")
    pngs = sorted(p.name for p in (ROOT / "results" / name).glob("solved_*.png"))
    assert pngs and all(p in text for p in pngs), (pngs, "named in the section's text")
    # Stored without outputs, as every other cell.
    for c in cells:
        if c["cell_type"] == "code":
            assert c["outputs"] == [] and c["execution_count"] is None


@pytest.mark.parametrize("name", SOLVED_GAMES)
def test_solved_verdict_is_each_judge_seeds_strongest_judge(name):
    # the judge files, read here on their own: seed 2024's and the second seed's (7)
    files = ("results/solve/finer.json", "results/solve/finer_seed7.json")
    rows = [r for f in files for r in json.loads((ROOT / f).read_text())["rows"] if r["game"] == name]
    shown = run_notebook(name).scope["solved_verdict"]
    sizes = sorted({r["players"] for r in rows if r["field"] == "solved"}, reverse=True)
    assert list(shown.players) == [P for P in sizes for _ in (2024, 7)], "a row per size and judge seed"
    assert list(shown.seed) == [2024, 7] * len(sizes)
    key = ("abstraction", "deals", "eval_deals", "seed")
    for row in shown.itertuples():
        mine = [r for r in rows if r["players"] == row.players and r["seed"] == row.seed]
        judge = sorted((r for r in mine if r["field"] == "solved"), key=lambda r: r["deals"])[-1]
        assert (judge["abstraction"], judge["deals"]) == README_JUDGE[(name, row.players)]
        builtin = min((r for r in mine if all(r[k] == judge[k] for k in key) and r["field"] != "solved"
                       and not r["field"].startswith("table:")), key=lambda r: r["gain"])
        assert (row.abstraction, row.deals, row.builtin) == (judge["abstraction"], judge["deals"], builtin["field"])
        for col in ("gain", "ci_low", "ci_high"):
            assert getattr(row, col) == pytest.approx(judge[col], abs=1e-12), col
            assert getattr(row, f"builtin_{col}") == pytest.approx(builtin[col], abs=1e-12), col
        assert row.ratio == pytest.approx(judge["gain"] / builtin["gain"])
        assert row.ratio_upper == pytest.approx(judge["ci_high"] / builtin["gain"])
        assert bool(row.quarter) == (row.ratio_upper <= 0.25)


@pytest.mark.parametrize("name", SOLVED_GAMES)
def test_solved_field_table_ranks_the_deviations_as_the_csv_says(name):
    run = run_notebook(name)
    rows = [r for r in read_csv_rows("results/solve/solved_field.csv") if r["game"] == name]
    shown = run.scope["solved_field"]
    assert len(shown) == len(rows) > 0
    for players in sorted({int(r["players"]) for r in rows}, reverse=True):
        mine = sorted((r for r in rows if int(r["players"]) == players), key=lambda r: -float(r["gain"]))
        got = shown[shown.players == players]
        assert list(got.gain) == pytest.approx([float(r["gain"]) for r in mine], abs=1e-12)
        best = mine[0]
        label = (f"best heuristic ({best['hero']})" if best["decision"] == "all"
                 else f"{best['decision']}={best['policy']}")
        assert got.deviation.iloc[0] == label
        assert (got.gain_ci_low.iloc[0], got.gain_ci_high.iloc[0]) == pytest.approx(
            (float(best["gain_ci_low"]), float(best["gain_ci_high"])), abs=1e-12)
    # The line under the table, and the text's claim: no deviation's interval lies above zero.
    beaten = [r for r in rows if float(r["gain_ci_low"]) > 0]
    line = run.scope["field_verdict"]
    assert any(isinstance(o, str) and o == line for o in run.outputs), "the notebook shows the line"
    assert line.startswith("no deviation's interval lies above zero") == (not beaten)
    assert not beaten, "the notebook says no built-in beats solved"


@pytest.mark.parametrize("name", SOLVED_GAMES)
def test_solved_charts_show_the_classes_solved_md_shows(name):
    run = run_notebook(name)
    overall, top, worst = (run.scope[v] for v in ("solved_overall", "solved_top", "solved_worst"))
    md = (ROOT / "results/solve/solved.md").read_text()
    files = sorted((ROOT / "results" / name).glob("solved_*.csv"))
    assert files and sorted(overall.chart) == [f.stem for f in files]
    by_size = {}
    for f in files:
        rows = read_csv_rows(f.relative_to(ROOT))
        (whole,) = [r for r in rows if r["class"] == "all"]
        got = overall[overall.chart == f.stem].iloc[0]
        for col in ("disagree", "gain", "gain_ci_low", "gain_ci_high"):
            assert got[col] == pytest.approx(float(whole[col]), abs=1e-12), (f.stem, col)
        # The three classes where the heuristic loses the most, those with a positive contribution.
        classes = sorted((r for r in rows if r["class"] != "all" and int(r["n"]) > 0),
                         key=lambda r: -float(r["differ_contribution"]))[:3]
        classes = [r for r in classes if float(r["differ_contribution"]) > 0]
        shown = top[top.chart == f.stem]
        assert list(shown["class"]) == [r["class"] for r in classes], f.stem
        assert list(shown.differ_contribution) == pytest.approx(
            [float(r["differ_contribution"]) for r in classes], abs=1e-12)
        for r in classes:  # the same rows as results/solve/solved.md
            dc = ci_text(*(float(r[f"differ_contribution{s}"]) for s in ("", "_ci_low", "_ci_high")))
            assert f"| {r['class']} | {float(r['frequency']):.1%} | {float(r['disagree']):.1%} | {dc} |" in md
        by_size.setdefault(int(whole["players"]), []).extend(classes)
    # The three per table size over all its charts, as the README lists them.
    for players, classes in by_size.items():
        best = sorted(classes, key=lambda r: -float(r["differ_contribution"]))[:3]
        got = worst[worst.players == players]
        assert list(got["class"]) == [r["class"] for r in best], players
        assert list(got.differ_contribution) == pytest.approx([float(r["differ_contribution"]) for r in best])
