"""The figures the README and docs/solving.md copy by hand are those the committed results hold.

Five kinds of table are copied: the shipped tables' verdicts and their check under the common
coarse BR (as the tables' metadata records them and ``pvsim strategies`` prints them), the
every-seat sums that ``python -m experiments.seats`` writes to results/solve/seats.json, how
each built-in does in a field of ``solved`` (results/solve/solved_field.csv), and how exploitable
each built-in is (results/exploitability/<game>_<P>.json). These tests read each table and find,
for each row, the measurement it names (game, buckets, fitting deals a stage, seed and, where a
row says "one pass", one backward pass; else the passes ``pvsim exploit`` makes by default), so
that a rerun or a new budget cannot leave a stale figure in the documents.
"""
import json
import re
from pathlib import Path

import pytest

from strategies.solved import ratio_text

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
    return f"{ratio_text(table['gain'] / builtin['gain'])} ({ratio_text(table['ci_high'] / builtin['gain'])})"


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
    from experiments.seats import current

    # the rows of the tables shipped now (a table shipped before keeps its rows there, apart)
    return current(json.loads((ROOT / "results" / "solve" / "seats.json").read_text())["rows"])


def pair(measured, game, players, abstraction, deals, one_pass):
    """The table's field and the built-in's, measured at every seat with this BR."""
    from experiments.seats import default_passes

    mine = [r for r in measured if (r["game"], r["players"], r["abstraction"], r["deals"]) ==
            (game, players, abstraction, deals)
            and r["passes"] == (1 if one_pass else default_passes(game, players, r["options"], r["field"]))]
    solved = [r for r in mine if r["field"] == "solved"]
    builtin = [r for r in mine if r["field"] != "solved"]
    assert len(solved) == len(builtin) == 1, (game, players, abstraction, deals, one_pass)
    return solved[0], builtin[0]


def strongest(measured, game, players, abstraction) -> tuple[int, int]:
    """The strongest every-seat BR measured under these buckets: the most fitting deals a stage,
    then the most backward passes."""
    return max((r["deals"], r["passes"]) for r in measured
               if (r["game"], r["players"], r["abstraction"]) == (game, players, abstraction))


def test_the_readme_quotes_each_tables_strongest_every_seat_br(measured):
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
        # The strongest BR measured under these buckets, as the text above the table says.
        assert (deals, table["passes"]) == strongest(measured, game, players, abstraction), name


def test_the_solving_docs_quote_every_every_seat_budget_under_the_judges_buckets(measured):
    text = (ROOT / "docs" / "solving.md").read_text()
    rows = rows_of(text, "| game | judge | every-seat budget (of the judge's) |")
    shown, judges = set(), {}
    name = judge = None
    for cells in rows:
        name, judge = cells[0] or name, cells[1] or judge
        game, players = GAMES[name]
        abstraction = judges[(game, players)] = judge.split(",")[0]
        m = re.fullmatch(r"([\d,]+M?) \((all|1/\d+)\)(, one pass)?", cells[2])
        assert m, cells[2]
        deals = budget(m.group(1))
        table, builtin = pair(measured, game, players, abstraction, deals, bool(m.group(3)))
        assert cells[4:6] == [ci(table["sum"]), ci(builtin["sum"])], cells
        assert cells[6].replace("**", "") == ratio(table["sum"], builtin["sum"]), cells
        # The bold ratio is each game's strongest BR.
        last = (deals, table["passes"]) == strongest(measured, game, players, abstraction)
        assert cells[6].startswith("**") == last, cells
        shown.add((game, players, abstraction, deals, table["passes"]))
    # No measurement of a shipped table under its judge's buckets, at any budget or number of passes,
    # is left out (a built-in's row whose table was measured only before the one shipped now has no pair).
    done = {(r["game"], r["players"], r["abstraction"], r["deals"], r["passes"]) for r in measured
            if judges.get((r["game"], r["players"])) == r["abstraction"] and r["field"] == "solved"}
    assert done == shown


# -- the verdicts: each table's judge, as its metadata records it ---------------------------------

@pytest.fixture(scope="module")
def verdicts():
    """Per shipped table, ``strategies.solved.exploitability``: its rows and its verdict."""
    from strategies.solved import exploitability, shipped_tables

    return {(tf.game, tf.n_players): exploitability(tf) for tf in shipped_tables()}


@pytest.fixture(scope="module")
def judged():
    """Per shipped table, the BR its verdict takes the built-in's gain from (the judge)."""
    from experiments.seats import judges

    return judges()


def judge_rows(e: dict, judge: dict, shown: str) -> dict:
    """The judge's row under each seed (2024 and 7), after checking the judge the text names."""
    abstraction, deals = judge["abstraction"], judge["deals"]
    m = re.fullmatch(r"(\w+), (\d+M)( a (placement )?round)?", shown)
    assert m and (m.group(1), budget(m.group(2))) == (abstraction, deals), shown
    rows = {r["seed"]: r for r in e["rows"] if (r["abstraction"], r["deals"]) == (abstraction, deals)}
    assert set(rows) == {2024, 7}, shown
    return rows


def builtin_text(row: dict) -> str:
    """The built-in's name and gain as the tables write them (Russian's without ``place=``)."""
    name = row["builtin"].removeprefix("place=")
    return f"`{name}` {ci({'gain': row['builtin_gain'], 'ci_low': row['builtin_ci_low'], 'ci_high': row['builtin_ci_high']})}"


def seed_ratio(row: dict) -> str:
    return f"{ratio_text(row['gain'] / row['builtin_gain'])} ({ratio_text(row['ci_high'] / row['builtin_gain'])})"


def test_the_readme_verdicts_are_the_tables_metadata(verdicts, judged):
    rows = rows_of((ROOT / "README.md").read_text(), "| game | judge: buckets, fitting deals a stage |")
    assert sorted(row[0] for row in rows) == sorted(GAMES)
    for name, judge, table_gain, builtin_gain, shown_ratio, verdict, _minutes in rows:
        key = GAMES[name]
        e = verdicts[key]
        first = judge_rows(e, judged["{}:{}".format(*key)], judge)[2024]
        assert table_gain == ci(first), name
        assert builtin_gain == builtin_text(first), name
        assert shown_ratio == seed_ratio(first), name
        v = e["verdict"]  # bold where the quarter is met; else the text says it is not
        r, upper = ratio_text(v["ratio"]), ratio_text(v["ratio_upper"])  # 0.251, not 0.25, where over
        assert verdict == (f"**{r}** ({upper})" if v["quarter_met"] else f"{r} ({upper}), not a quarter"), name


def test_the_solving_docs_verdicts_are_the_tables_metadata(verdicts, judged):
    rows = rows_of((ROOT / "docs" / "solving.md").read_text(), "| game | strongest judge (buckets,")
    assert sorted(row[0] for row in rows) == sorted(GAMES)
    for name, judge, table_gain, builtin_gain, shown in rows:
        key = GAMES[name]
        by_seed = judge_rows(verdicts[key], judged["{}:{}".format(*key)], judge)
        assert table_gain == ci(by_seed[2024]) and builtin_gain == builtin_text(by_seed[2024]), name
        first, _, second = shown.partition("; a second judge seed ")
        assert first.replace("**", "") == seed_ratio(by_seed[2024]) and first.startswith("**"), name
        assert second == seed_ratio(by_seed[7]), name


def test_the_solving_docs_quote_every_judge_twice_as_strong():
    """The table of judges twice as strong (results/solve/judge2x/, seeds 2024 and 7; kept out of the
    tables' metadata): a row per game measured there, each seed's gains as the rows hold them, and the
    ratio by the verdict's pairing (the table's largest gain against the built-in's largest)."""
    from experiments.bench_finer import _best_builtin
    from strategies.solved import meets_quarter

    found = {}
    for name, seed in (("finer.json", 2024), ("finer_seed7.json", 7)):
        for r in json.loads((ROOT / "results" / "solve" / "judge2x" / name).read_text())["rows"]:
            assert r["seed"] == seed, name
            found.setdefault((r["game"], r["players"]), []).append(r)
    rows = rows_of((ROOT / "docs" / "solving.md").read_text(), "| game | judge twice as strong |")
    assert sorted(GAMES[row[0]] for row in rows) == sorted(k for k, rs in found.items()
                                                           if any(r["field"] == "solved" for r in rs))
    for name, judge, table_cell, builtin_cell, shown in rows:
        game, players = GAMES[name]
        abstraction, _, deals = judge.partition(", ")
        mine = [r for r in found[(game, players)] if (r["abstraction"], r["deals"]) == (abstraction, budget(deals))]
        best = _best_builtin(game, players)
        table = {r["seed"]: r for r in mine if r["field"] == "solved"}
        builtin = {r["seed"]: r for r in mine if r["field"] == best}
        assert set(table) == set(builtin) == {2024, 7}, name
        assert table_cell == "; ".join(ci(table[s]) for s in (2024, 7)), name
        assert builtin_cell == f"`{best}` " + "; ".join(ci(builtin[s]) for s in (2024, 7)), name
        t, b = max(table.values(), key=lambda r: r["gain"]), max(builtin.values(), key=lambda r: r["gain"])
        r, upper = ratio_text(t["gain"] / b["gain"]), ratio_text(t["ci_high"] / b["gain"])
        met = meets_quarter(t["ci_high"], b["gain"], b["ci_low"])
        assert shown == (f"**{r}** ({upper})" if met else f"{r} ({upper}), not a quarter"), name


# -- each built-in in a field of solved players: results/solve/solved_field.csv -----------------

def game_of(name: str) -> tuple[str, int]:
    """The game and players a row names: ``Estonian, 6 (three stages)`` or ``Russian, 4``."""
    m = re.match(r"(\w+)(?: \(pot\))?, (\d+)", name)
    assert m, name
    return m.group(1).lower(), int(m.group(2))


def signed(row: dict) -> str:
    """A gain and its interval as the field tables write them: ``-0.00024 [-0.00043, -0.00004]``."""
    g, lo, hi = (float(row[k]) for k in ("gain", "gain_ci_low", "gain_ci_high"))
    return f"{g:+.5f}" if lo == hi else f"{g:+.5f} [{lo:+.5f}, {hi:+.5f}]"


def check_field_row(name: str, best: str, every: str, rollouts: str, field_rows: list[dict]) -> None:
    """One game's line: its best built-in at one decision, its best heuristic at every decision
    and its ``rollout:8`` deviations, against the committed rows."""
    game, players = game_of(name)
    mine = [r for r in field_rows if r["game"] == game and int(r["players"]) == players]
    assert mine, name
    singles = [r for r in mine if r["decision"] != "all" and r["policy"] != "rollout:8"]
    top = max(singles, key=lambda r: float(r["gain"]))
    label = top["policy"] if game == "russian" else f"{top['decision']}={top['policy']}"
    assert best.startswith(f"`{label}`") and signed(top) in best, (name, best)
    if float(top["gain"]) == 0:  # the table plays it: the line goes on to the best that differs
        runner = max((r for r in singles if r is not top), key=lambda r: float(r["gain"]))
        assert f"`{runner['decision']}={runner['policy']}` {signed(runner)}" in best, (name, best)
    whole = [r for r in mine if r["decision"] == "all"]
    assert every == (signed(whole[0]) if whole else "(one decision)"), name
    shown = [float(x) for x in rollouts.split(", ")]
    rolled = [float(r["gain"]) for r in mine if r["policy"] == "rollout:8"]
    assert len(shown) == len(rolled), name
    for text, g in zip(rollouts.split(", "), rolled):
        places = len(text.split(".")[1])
        assert abs(float(text) - g) <= 0.5 * 10 ** -places + 1e-12, (name, text, g)
    # "No built-in and no rollout:8 gains against any table."
    assert all(float(r["gain_ci_low"]) <= 0 for r in mine), name


@pytest.fixture(scope="module")
def field_rows():
    import csv

    with open(ROOT / "results" / "solve" / "solved_field.csv", newline="") as f:
        return list(csv.DictReader(f))


def test_the_readme_field_table_is_the_committed_field(field_rows):
    rows = rows_of((ROOT / "README.md").read_text(), "| game | best built-in at one decision |")
    assert len(rows) == 6
    for name, best, every, rollouts in rows:
        check_field_row(name, best, every, rollouts, field_rows)


def test_the_solving_docs_field_table_is_the_committed_field(field_rows):
    rows = rows_of((ROOT / "docs" / "solving.md").read_text(), "| game | best built-in deviation | gain |")
    assert len(rows) == 6
    for name, label, gain, every, rollouts in rows:
        check_field_row(name, f"{label} {gain}", every, rollouts, field_rows)


def shown_as(text: str, values) -> bool:
    """Whether the numbers written in ``text`` (outside backticks) are ``values``, each to within
    half a unit of its last written digit."""
    written = re.findall(r"[+-]?\d+\.\d+", re.sub(r"`[^`]*`", "", text))
    return len(written) == len(values) and all(
        abs(float(w) - v) <= 0.5 * 10 ** -len(w.split(".")[1]) + 1e-12 for w, v in zip(written, values))


def test_the_solving_docs_common_coarse_br_table_is_the_tables_metadata(verdicts):
    """The table under "Exploitability, next to the built-ins'": each table's first row, the
    solve's own check under the common coarse BR, and the built-ins it checked as one seat."""
    rows = rows_of((ROOT / "docs" / "solving.md").read_text(), "| game | `solved`'s BR gain |")
    assert len(rows) == 6
    for name, table_gain, builtin, beaten in rows:
        e = verdicts[game_of(name)]
        first = e["rows"][0]
        assert first["abstraction"] == "coarse" and first["seed"] == 2024, name
        assert shown_as(table_gain, [first[k] for k in ("gain", "ci_low", "ci_high")]), (name, table_gain)
        assert shown_as(builtin, [first[k] for k in ("builtin_gain", "builtin_ci_low", "builtin_ci_high")]), (
            name, builtin)
        parts = re.findall(r"`([^`]*)`", builtin)
        assert parts and all(p in first["builtin"] for p in parts), (name, builtin, first["builtin"])
        assert not e["beaten_by"] and beaten == f"none of {e['deviations_checked']}", name


# -- how exploitable each built-in is: results/exploitability/<game>_<P>.json -------------------

def four(gain: float, stderr: float) -> str:
    """A gain and its 95% interval as the README's exploitability table writes them."""
    from simcore.engine.stats import Z95

    return f"{gain:+.4f} [{gain - Z95 * stderr:.4f}, {gain + Z95 * stderr:.4f}]"


def names_field(label: str, field: str, default: str) -> bool:
    """Whether a README label names this field: the whole spec, Russian's policy without
    ``place=``, or the decisions that differ from the default field, the others left out."""
    if "=" not in field or label == field:
        return label == field.removeprefix("place=")
    shown = dict(part.split("=") for part in label.split(","))
    spec, base = (dict(part.split("=") for part in s.split(",")) for s in (field, default))
    return all(spec[d] == p for d, p in shown.items()) and all(
        spec[d] == base[d] for d in spec if d not in shown)


def test_the_readme_exploitability_table_is_the_committed_measurement():
    """The table under "How exploitable is each built-in policy?": each game's hardest built-in
    (the smallest of the BR's and rollout's lower bounds, as table.md picks it), the BR's gain
    against the default field, and the best single built-in deviation from it."""
    from experiments.exploitability import hardest

    rows = rows_of((ROOT / "README.md").read_text(), "| game | hardest built-in to exploit |")
    assert sorted(row[0] for row in rows) == sorted(n.replace(" (pot)", "") for n in GAMES)
    for name, label, beaten, br, deviation in rows:
        game, players = game_of(name)
        doc = json.loads((ROOT / "results" / "exploitability" / f"{game}_{players}.json").read_text())
        default = doc["fields"][0]
        low, best = hardest(doc)
        assert names_field(label.strip("`"), best["field"], default["field"]), (name, label, best["field"])
        assert low == best["br_gain"], name  # the bound the README quotes is the BR's
        assert beaten == four(best["br_gain"], best["br_stderr"]), (name, beaten)
        assert br == f"{default['br_gain']:+.4f}", (name, br)
        top = max(doc["deviations_vs_default"], key=lambda r: r["gain"])
        assert deviation == f"`{top['hero'].removeprefix('place=')}` {top['gain']:+.4f}", (name, deviation)


def test_the_readme_names_the_combinations_the_tables_are_compared_with(verdicts):
    """The bullet under that table: the combined built-ins harder to exploit than any of its
    rows, with their gains under the common coarse BR (each table's first metadata row)."""
    text = (ROOT / "README.md").read_text()
    start = text.index("Some combinations\n  of built-ins are harder to exploit than any row here")
    bullet = text[start:text.index("\n\n", start)]
    named = re.findall(r"`([^`]+)`\s+for (\w+) \(\+(\d\.\d+)", bullet)
    assert len(named) == 3, bullet
    for field, name, gain in named:
        first = verdicts[(name.lower(), 6)]["rows"][0]
        assert (first["abstraction"], first["builtin"]) == ("coarse", field), name
        assert shown_as(gain, [first["builtin_gain"]]), (name, gain, first["builtin_gain"])
