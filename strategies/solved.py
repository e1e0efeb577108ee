"""``solved``: the tables pvsim ships, made by ``pvsim solve`` (fictitious play).

Each shipped table is a mixed table file (:mod:`strategies.table`) in
``strategies/solved_tables/`` (package data), for one game, rule options and
player count; its metadata holds how it was made and its measured
exploitability. ``--field solved`` plays the shipped table at every decision it
holds, ``pass=solved`` at one. Asking for ``solved`` where no table was
shipped (another player count, other rule options) is a ValueError that gives
the ``pvsim solve`` command making one (then ``table:FILE`` plays it).

:func:`shipped_tables` lists them (``pvsim strategies GAME`` shows them with
their exploitability).
"""
from __future__ import annotations

import os

from .registry import register_generic

TABLES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "solved_tables")

_LOADED: dict = {}


def _files() -> list[str]:
    if not os.path.isdir(TABLES_DIR):
        return []
    return sorted(os.path.join(TABLES_DIR, f) for f in os.listdir(TABLES_DIR) if f.endswith(".npz"))


def _load(path):
    from .table import file_version, load_table

    key = file_version(path)
    tf = _LOADED.get(key)
    if tf is None:
        tf = _LOADED[key] = load_table(path)
    return tf


_GAMES: dict = {}


def _game(path) -> str | None:
    """The game a table file was made for, from its header alone (its arrays, up to 85 MB a table
    once inflated, are read only when that game is asked for); None if the header is unreadable
    (loading the file then gives the clear error)."""
    import json

    import numpy as np

    from .table import file_version

    key = file_version(path)
    if key not in _GAMES:
        try:
            with np.load(path, allow_pickle=False) as z:
                _GAMES[key] = json.loads(str(z["header"])).get("game")
        except Exception:  # noqa: BLE001 - load_table names what is wrong with the file
            _GAMES[key] = None
    return _GAMES[key]


def shipped_tables(game: str | None = None) -> list:
    """The shipped table files (loaded :class:`~strategies.table.TableFile`), of ``game`` or all;
    another game's tables are not loaded."""
    paths = [p for p in _files() if game is None or _game(p) in (game, None)]
    return [tf for tf in map(_load, paths) if game is None or tf.game == game]


def meets_quarter(table_ci_high: float, builtin_gain: float, builtin_ci_low: float) -> bool | None:
    """Issue 21's exploitability target under one BR: the table's upper 95% end at most a quarter of
    the least exploitable built-in's gain; None where that gain is not resolved (its interval reaches
    zero), so no verdict.

    >>> meets_quarter(0.0001, 0.0008, 0.0006), meets_quarter(0.0003, 0.0008, 0.0006)
    (True, False)
    >>> meets_quarter(0.0001, 0.0002, -0.0001) is None
    True
    """
    if builtin_ci_low <= 0:
        return None
    return table_ci_high <= builtin_gain / 4


ROW_KEYS = ("abstraction", "deals", "eval_deals", "seed", "gain", "ci_low", "ci_high", "builtin", "builtin_gain",
            "builtin_ci_low", "builtin_ci_high")


def exploitability(tf) -> dict | None:
    """A table's measured exploitability as data (``pvsim strategies --json``; :func:`exploitability_lines`
    prints it); None where its metadata has no measurement.

    ``rows``: one per BR that measured it, the solve's own check first (``first_row`` is its command),
    then each finer or larger one under each judge seed, which ``experiments/bench_finer.py --annotate``
    records. Each has the BR (``abstraction``, fitting ``deals`` a stage, ``eval_deals``, ``seed`` and a
    ``br`` label that names the seed where there are several), the table's gain per deal with its 95%
    interval, the least exploitable built-in's under the same BR, and ``ratio`` where that BR resolves
    the built-in's gain.

    ``verdict``: the quarter target by each one's strongest BR, the table's largest gain (its upper
    95% end) against the largest gain the rows give the built-in. ``table_row`` and ``builtin_row``
    index the rows chosen; ``quarter_met`` is None, with no ratio, where the built-in's gain is not
    resolved. None where no row measured a built-in."""
    import re

    from simcore.engine.stats import interval

    m = tf.meta.get("exploitability") or {}
    if m.get("gain") is None:
        return None
    how = m.get("how", "pvsim exploit")
    found = re.search(r"(\w+) buckets, ([\d,]+) fitting deals", how)
    fresh = re.search(r"([\d,]+) fresh deals", how)
    seed = re.search(r"seed (\d+)", how)
    first = dict.fromkeys(ROW_KEYS)
    first.update(abstraction=found[1] if found else None, deals=int(found[2].replace(",", "")) if found else None,
                 eval_deals=int(fresh[1].replace(",", "")) if fresh else None, seed=int(seed[1]) if seed else None,
                 gain=m["gain"], ci_low=m["ci_low"], ci_high=m["ci_high"])
    b = m.get("best_builtin")
    if b:
        lo, hi = interval(b["br_gain"], b["br_stderr"]) if b.get("br_stderr") is not None else (None, None)
        first.update(builtin=b["field"], builtin_gain=b["br_gain"], builtin_ci_low=lo, builtin_ci_high=hi)
    # the same comparison by a finer or larger BR (experiments/bench_finer.py)
    rows = [first] + [{k: f.get(k) for k in ROW_KEYS} for f in m.get("finer") or ()]
    seeds = {r["seed"] for r in rows} - {None}
    for r in rows:
        label = f"{r['abstraction']}, {r['deals']:,} fitting deals" if r["abstraction"] else "the solve's check"
        r["br"] = f"{label}, seed {r['seed']}" if len(seeds) > 1 and r["seed"] is not None else label
        sure = r["builtin_ci_low"] is not None and r["builtin_ci_low"] > 0  # a ratio to it means something
        r["ratio"] = r["gain"] / r["builtin_gain"] if sure else None
    verdict = None
    judged = [i for i, r in enumerate(rows) if r["builtin_gain"] is not None]
    if judged:
        t = max(range(len(rows)), key=lambda i: rows[i]["gain"])
        j = max(judged, key=lambda i: rows[i]["builtin_gain"])
        strongest, ref = rows[t], rows[j]
        # meets_quarter says whether the built-in's gain is resolved; a built-in without an interval is not
        ok = (meets_quarter(strongest["ci_high"], ref["builtin_gain"], ref["builtin_ci_low"])
              if ref["builtin_ci_low"] is not None else None)
        verdict = {"table_row": t, "builtin_row": j, "builtin": ref["builtin"], "quarter_met": ok,
                   "ratio": strongest["gain"] / ref["builtin_gain"] if ok is not None else None,
                   "ratio_upper": strongest["ci_high"] / ref["builtin_gain"] if ok is not None else None}
    return {"rows": rows, "verdict": verdict, "first_row": how, "deviations_checked": m.get("deviations_checked"),
            "beaten_by": list(m.get("beaten_by") or ())}


def ratio_text(x: float) -> str:
    """A ratio to the built-in's gain, to 2 places; to 3 where 2 would round one over a quarter down
    to 0.25 (0.2507 is "0.251"), so a verdict that misses the quarter never shows 0.25."""
    two = f"{x:.2f}"
    return f"{x:.3f}" if two == "0.25" and x > 0.25 else two


def exploitability_lines(tf) -> list[str]:
    """:func:`exploitability` as aligned lines for ``pvsim strategies`` (:func:`format_exploitability`)."""
    return format_exploitability(exploitability(tf))


def format_exploitability(e: dict | None) -> list[str]:
    """What :func:`exploitability` returns, as aligned lines: a row per BR, the table's gain beside the
    least exploitable built-in's and their ratio, then the verdict by each one's strongest BR."""
    if e is None:
        return ["exploitability not measured"]
    rows = e["rows"]

    def fig(x, lo, hi):
        return f"{x:+.5f}" + (f" [{lo:+.5f}, {hi:+.5f}]" if lo is not None else "")

    names = {r["builtin"] for r in rows if r["builtin"]}
    one = len(names) == 1
    lines = ["exploitability: seat 0's best-response gain a deal, 95% intervals"
             + (f", beside the least exploitable built-in ({next(iter(names))}) under the same best response (BR)"
                if one else ", beside the least exploitable built-in under the same best response (BR)" if names
                else "")]
    width = max(len(r["br"]) for r in rows + [{"br": "BR"}])
    lines.append(f"  {'BR':<{width}}   {'the table':<29}" + (f"   {'the built-in':<29}   ratio" if names else ""))
    for r in rows:
        other = ""
        if r["builtin_gain"] is not None:
            who = "" if one else f"{r['builtin']} "
            other = f"   {who}{fig(r['builtin_gain'], r['builtin_ci_low'], r['builtin_ci_high']):<29}"
            if r["ratio"] is not None:
                other += f"   {r['ratio']:.2f}"
        lines.append(f"  {r['br']:<{width}}   {fig(r['gain'], r['ci_low'], r['ci_high']):<29}{other}".rstrip())
    v = e["verdict"]
    if v is not None and v["quarter_met"] is not None:
        t, b = rows[v["table_row"]]["br"], rows[v["builtin_row"]]["br"]
        by = t if v["table_row"] == v["builtin_row"] else f"{t}; the built-in's {b}"
        lines.append(f"by each one's strongest BR ({by}): {ratio_text(v['ratio'])} of the built-in's gain, upper end "
                     f"{ratio_text(v['ratio_upper'])}: " + ("at most a quarter, the target met" if v["quarter_met"]
                                                            else "a quarter not shown"))
    elif v is not None:
        lines.append("no BR finds anything sure in the built-in: the quarter target is not resolvable")
    lines.append(f"(the first row: {e['first_row']})")
    if e["beaten_by"]:
        lines.append("BEATEN by " + ", ".join(f"{d['decision']}={d['policy']} ({d['gain']:+.4f})"
                                              for d in e["beaten_by"]))
    elif e["deviations_checked"]:
        lines.append(f"no built-in deviation of {e['deviations_checked']} beats it")
    return lines


def solve_command(game: str, n_players, options: dict) -> str:
    opts = "".join((f" --{k.replace('_', '-')}" if v is True else f" --{k.replace('_', '-')} {v}")
                   for k, v in sorted(options.items()) if v is not False)
    p = n_players if n_players is not None else "P"
    return f"pvsim solve {game} --players {p}{opts} --out {game}{p}.npz"


def format_options(options: dict) -> str:
    """A game's rule options as a reader writes them: ``scoring pot, lowball off, burn off``."""
    return ", ".join(f"{k.replace('_', '-')} {('on' if v else 'off') if isinstance(v, bool) else v}"
                     for k, v in options.items())


def _missing(variant, decision, n_players=None, have=()) -> ValueError:
    opts = dict(variant.opts)
    where = f"{variant.name}" + (f" at {n_players} players" if n_players is not None else "") + \
        (f" with options {format_options(opts)}" if opts else "")
    have_txt = (f" (shipped: {', '.join(have)})" if have else " (none is shipped for these rules)")
    name = f"{variant.name}{n_players if n_players is not None else 'P'}.npz"
    return ValueError(f"policy solved ({decision}): no solved table is shipped for {where}{have_txt}; make one "
                      f"with `{solve_command(variant.name, n_players, opts)}` and play it with table:{name} "
                      f"(e.g. --field table:{name}, or {decision}=table:{name})")


class SolvedPolicy:
    """``solved`` for one decision: the shipped table of the table's player count."""

    shares_answers = True  # it hands the observation on to a table policy (simcore.abstraction.with_answers)

    def __init__(self, variant, decision: str, files: dict):
        self.variant, self.decision = variant, decision
        self.files = files  # {n_players: TableFile}
        self._policies = {}

    def check_players(self, n_players: int):
        """Refuse a player count without a shipped table (a lineup calls this when it knows it)."""
        return self._policy(int(n_players))

    def _policy(self, n_players: int):
        pol = self._policies.get(n_players)
        if pol is None:
            tf = self.files.get(n_players)
            if tf is None:
                raise _missing(self.variant, self.decision, n_players,
                               [f"{p} players" for p in sorted(self.files)])
            pol = self._policies[n_players] = tf.strategy(self.variant, self.decision, n_players)
        return pol

    def __call__(self, obs, rng):
        return self._policy(int(obs["n_players"]))(obs, rng)

    def seat_view_kind(self, n_players: int):
        """The shipped table's (``simcore.abstraction.seat_view_kind``)."""
        from simcore.abstraction import seat_view_kind

        return seat_view_kind(self._policy(int(n_players)), n_players)

    def __reduce__(self):
        # Worker processes load the same shipped tables (package data) by name.
        return _rebuild, (type(self.variant).__module__, self.variant.name, dict(self.variant.opts), self.decision)


def _rebuild(module, name, opts, decision):
    import importlib

    from simcore.variants import get_variant

    importlib.import_module(module)
    return make_solved(get_variant(name, **opts), decision)


def make_solved(variant, decision: str):
    """``solved``: the shipped tables of ``variant`` (its rule options) that hold ``decision``."""
    files = {}
    for tf in shipped_tables(variant.name):
        if tf.options == dict(variant.opts) and decision in tf.decisions:
            files[tf.n_players] = tf
    return SolvedPolicy(variant, decision, files)  # a player count without a table: refused when known


register_generic("solved", "the shipped near-equilibrium table (pvsim solve; `pvsim strategies GAME` lists them)",
                 make_solved)

__all__ = ["shipped_tables", "make_solved", "SolvedPolicy", "exploitability", "exploitability_lines",
           "format_exploitability", "format_options", "meets_quarter", "solve_command", "TABLES_DIR"]
