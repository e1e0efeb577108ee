"""The every-seat figures the README and docs/solving.md quote are those results/solve/seats.json holds.

``python -m experiments.seats`` writes each field's gains at every seat and their sum; the two
documents copy the sums into tables by hand. These tests read both tables and find, for each row,
the committed measurement it names (game, buckets, fitting deals a stage and, where the row says
"one pass", one backward pass), so that a rerun or a new budget cannot leave a stale figure in them.
"""
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GAMES = {"Estonian, 6": ("estonian", 6), "Slovak, 6": ("slovak", 6), "Tapiola (pot), 6": ("tapiola", 6),
         "Sviten, 6": ("sviten", 6), "Russian, 4": ("russian", 4), "Russian, 3": ("russian", 3)}


def budget(text: str) -> int:
    """Fitting deals as the tables write them: ``64M``, ``1M`` or ``262,144``."""
    m = re.fullmatch(r"(\d+)M", text)
    return int(m.group(1)) << 20 if m else int(text.replace(",", ""))


def ci(total: dict) -> str:
    """A sum as the tables write it, unsigned: ``0.00400 [0.00358, 0.00443]``."""
    return f"{total['gain']:.5f} [{total['ci_low']:.5f}, {total['ci_high']:.5f}]"


def ratio(table: dict, builtin: dict) -> str:
    """The sum over sum and its upper end, as ``seats.md`` computes them."""
    return f"{table['gain'] / builtin['gain']:.2f} ({table['ci_high'] / builtin['gain']:.2f})"


def rows_of(text: str, header: str) -> list[list[str]]:
    """The body rows of the one Markdown table whose header line starts with ``header``."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith(header)]
    assert len(starts) == 1, f"no single table headed {header!r}"
    out = []
    for line in lines[starts[0] + 2:]:
        if not line.startswith("|"):
            break
        out.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    assert out
    return out


@pytest.fixture(scope="module")
def measured():
    return json.loads((ROOT / "results" / "solve" / "seats.json").read_text())["rows"]


def pair(measured, game, players, abstraction, deals, one_pass):
    """The table's field and the built-in's, measured at every seat with this BR."""
    mine = [r for r in measured if (r["game"], r["players"], r["abstraction"], r["deals"]) ==
            (game, players, abstraction, deals) and (r["passes"] == 1 or not one_pass)]
    if one_pass:
        assert all(r["passes"] == 1 for r in mine)
    solved = [r for r in mine if r["field"] == "solved"]
    builtin = [r for r in mine if r["field"] != "solved"]
    assert len(solved) == len(builtin) == 1, (game, players, abstraction, deals, one_pass)
    return solved[0], builtin[0]


def test_the_readme_quotes_each_tables_largest_every_seat_budget(measured):
    text = (ROOT / "README.md").read_text()
    rows = rows_of(text, "| game | every-seat BR (of the judge's budget) |")
    assert sorted(row[0] for row in rows) == sorted(GAMES)
    for name, br, table_sum, builtin_sum, shown_ratio, _verdict in rows:
        game, players = GAMES[name]
        m = re.fullmatch(r"(\w+), ([\d,]+M?) \((all|1/\d+)(; one pass)?\)", br)
        assert m, br
        abstraction, deals = m.group(1), budget(m.group(2))
        table, builtin = pair(measured, game, players, abstraction, deals, bool(m.group(4)))
        assert (table_sum, shown_ratio) == (ci(table["sum"]), ratio(table["sum"], builtin["sum"])), name
        assert builtin_sum == ci(builtin["sum"]), name
        # The largest budget measured under these buckets, as the text above the table says.
        assert deals == max(r["deals"] for r in measured
                            if (r["game"], r["players"], r["abstraction"]) == (game, players, abstraction))


def test_the_solving_docs_quote_every_every_seat_budget_under_the_judges_buckets(measured):
    text = (ROOT / "docs" / "solving.md").read_text()
    rows = rows_of(text, "| game | judge | every-seat budget (of the judge's) |")
    shown = set()
    name = judge = None
    for cells in rows:
        name, judge = cells[0] or name, cells[1] or judge
        game, players = GAMES[name]
        abstraction = judge.split(",")[0]
        m = re.fullmatch(r"([\d,]+M?) \((all|1/\d+)\)(, one pass)?", cells[2])
        assert m, cells[2]
        deals = budget(m.group(1))
        table, builtin = pair(measured, game, players, abstraction, deals, bool(m.group(3)))
        assert cells[4:6] == [ci(table["sum"]), ci(builtin["sum"])], cells
        assert cells[6].replace("**", "") == ratio(table["sum"], builtin["sum"]), cells
        # The bold ratio is each game's largest budget.
        last = deals == max(r["deals"] for r in measured
                            if (r["game"], r["players"], r["abstraction"]) == (game, players, abstraction))
        assert cells[6].startswith("**") == last, cells
        shown.add((game, players, abstraction, deals))
    # No measurement under a judge's buckets is left out of the table.
    judges = {GAMES[n]: None for n in GAMES}
    for cells in rows:
        if cells[0]:
            judges[GAMES[cells[0]]] = cells[1].split(",")[0]
    done = {(r["game"], r["players"], r["abstraction"], r["deals"]) for r in measured
            if judges[(r["game"], r["players"])] == r["abstraction"]}
    assert done == shown
