"""The notebooks run top to bottom on the committed results and show what those say.

Each notebook's code cells run in one namespace, without Jupyter; the value of
a cell's last expression is kept as its output, as Jupyter would display it.
Every notebook in ``notebooks/`` is covered: ``EXPECT`` names the tables a
notebook must build (with their columns) and the figures it must draw, and a
notebook not listed there must at least build a non-empty table of its own
game's results. The tests at the end check the figures the two current
notebooks show against the committed CSV files, read independently.
"""
import ast
import csv
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

# Per notebook: {variable: columns it must have}, and how many figures it draws at least.
EXPECT = {
    "estonian": {
        "frames": {
            "policies": {"variant", "players", "policy", "varied", "n", "share", "stderr", "ci_low",
                         "ci_high", "diff_vs_baseline", "diff_ci_low", "diff_ci_high"},
            "six": {"policy", "varied", "share", "ci_low", "ci_high", "diff_vs_baseline"},
            "rollout": {"variant", "players", "situation", "n", "frequency", "passes_key_card",
                        "gain_vs_lowest", "gain_ci_low", "gain_ci_high"},
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
        },
        "figures": 0,
    },
    "tapiola": {
        "frames": {
            "policies": {"players", "field", "form", "n", "seat", "ci_low", "ci_high", "diff", "diff_ci_low",
                         "diff_ci_high"},
            "last": {"discard", "form", "n", "best_minus_this", "best_minus_this_ci_low",
                     "best_minus_this_ci_high"},
            "match": {"players", "seat", "match_win", "match_ci_low", "match_ci_high", "mean_hands", "fair"},
            "chart": {"variant", "policy", "round", "hand", "towers", "thrown", "fraction", "ci_low", "ci_high"},
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
        },
        "figures": 1,
    },
    "russian": {
        "frames": {
            "policies": {"field", "n", "ci_low", "ci_high", "diff_vs_best", "diff_vs_best_ci_low",
                         "diff_vs_best_ci_high", "hands_won_0"},
            "seats": {"variant", "players", "strategy", "seat", "share", "ci_low", "ci_high", "diff_vs_seat0"},
            "chart": {"variant", "players", "policy", "rank", "state", "target", "share"},
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
