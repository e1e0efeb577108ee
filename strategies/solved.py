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
    from .table import load_table

    st = os.stat(path)
    key = (path, st.st_mtime_ns, st.st_size)
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

    st = os.stat(path)
    key = (path, st.st_mtime_ns, st.st_size)
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


def exploitability_lines(tf) -> list[str]:
    """A table's measured exploitability as aligned lines for ``pvsim strategies``: one row per BR
    that measured it (the solve's own check, then each finer or larger one under each judge seed, which
    ``experiments/bench_finer.py --annotate`` records; a row names its seed where there are several), the
    table's gain beside the least exploitable
    built-in's under the same BR, and the quarter target by each one's strongest BR: the table's
    largest gain, whose upper 95% end must be at most a quarter of the largest gain the rows give the
    built-in (where no BR resolves the built-in's gain, the target is not resolvable)."""
    import re

    from simcore.engine.stats import interval

    m = tf.meta.get("exploitability") or {}
    if m.get("gain") is None:
        return ["exploitability not measured"]
    how = m.get("how", "pvsim exploit")
    found = re.search(r"(\w+) buckets, ([\d,]+) fitting deals", how)
    seed = re.search(r"seed (\d+)", how)
    finer = m.get("finer") or ()
    # a BR's seed is named where the rows come from more than one (a second judge seed)
    seeds = ({int(seed[1]) if seed else None} | {f.get("seed") for f in finer}) - {None}

    def named(br, s):
        return f"{br}, seed {s}" if len(seeds) > 1 and s is not None else br

    rows = [{"br": named(f"{found[1]}, {found[2]} fitting deals" if found else "the solve's check",
                         int(seed[1]) if seed else None),
             "gain": m["gain"], "ci": (m["ci_low"], m["ci_high"])}]
    b = m.get("best_builtin")
    if b:
        rows[0].update(builtin=b["field"], builtin_gain=b["br_gain"],
                       builtin_ci=interval(b["br_gain"], b["br_stderr"]) if b.get("br_stderr") is not None
                       else None)
    for f in finer:  # the same comparison by a finer or larger BR (experiments/bench_finer.py)
        rows.append({"br": named(f"{f['abstraction']}, {f['deals']:,} fitting deals", f.get("seed")), "gain": f["gain"],
                     "ci": (f["ci_low"], f["ci_high"]), "builtin": f["builtin"], "builtin_gain": f["builtin_gain"],
                     "builtin_ci": (f["builtin_ci_low"], f["builtin_ci_high"])})

    def fig(x, ci):
        return f"{x:+.5f}" + (f" [{ci[0]:+.5f}, {ci[1]:+.5f}]" if ci is not None else "")

    def sure(r):  # the built-in's gain is resolved: a ratio to it means something
        return r.get("builtin_ci") is not None and r["builtin_ci"][0] > 0

    names = {r["builtin"] for r in rows if r.get("builtin")}
    one = len(names) == 1
    lines = ["exploitability: seat 0's best-response gain a deal, 95% intervals"
             + (f", beside the least exploitable built-in ({next(iter(names))}) under the same best response (BR)"
                if one else ", beside the least exploitable built-in under the same best response (BR)" if names
                else "")]
    width = max(len(r["br"]) for r in rows + [{"br": "BR"}])
    lines.append(f"  {'BR':<{width}}   {'the table':<29}" + (f"   {'the built-in':<29}   ratio" if names else ""))
    for r in rows:
        other = ""
        if r.get("builtin_gain") is not None:
            who = "" if one else f"{r['builtin']} "
            other = f"   {who}{fig(r['builtin_gain'], r.get('builtin_ci')):<29}"
            if sure(r):
                other += f"   {r['gain'] / r['builtin_gain']:.2f}"
        lines.append(f"  {r['br']:<{width}}   {fig(r['gain'], r['ci']):<29}{other}".rstrip())
    strongest = max(rows, key=lambda r: r["gain"])
    judged = [r for r in rows if r.get("builtin_gain") is not None]
    if judged:
        ref = max(judged, key=lambda r: r["builtin_gain"])
        # meets_quarter says whether the built-in's gain is resolved; a built-in without an interval is not
        ok = (meets_quarter(strongest["ci"][1], ref["builtin_gain"], ref["builtin_ci"][0])
              if ref.get("builtin_ci") is not None else None)
        if ok is not None:
            by = strongest["br"] if ref is strongest else f"{strongest['br']}; the built-in's {ref['br']}"
            lines.append(f"by each one's strongest BR ({by}): {strongest['gain'] / ref['builtin_gain']:.2f} of "
                         f"the built-in's gain, upper end {strongest['ci'][1] / ref['builtin_gain']:.2f}: "
                         + ("at most a quarter, the target met" if ok else "a quarter not shown"))
        else:
            lines.append("no BR finds anything sure in the built-in: the quarter target is not resolvable")
    lines.append(f"(the first row: {how})")
    beaten = m.get("beaten_by")
    if beaten:
        lines.append("BEATEN by " + ", ".join(f"{d['decision']}={d['policy']} ({d['gain']:+.4f})" for d in beaten))
    elif m.get("deviations_checked"):
        lines.append(f"no built-in deviation of {m['deviations_checked']} beats it")
    return lines


def solve_command(game: str, n_players, options: dict) -> str:
    opts = "".join((f" --{k.replace('_', '-')}" if v is True else f" --{k.replace('_', '-')} {v}")
                   for k, v in sorted(options.items()) if v is not False)
    p = n_players if n_players is not None else "P"
    return f"pvsim solve {game} --players {p}{opts} --out {game}{p}.npz"


def _missing(variant, decision, n_players=None, have=()) -> ValueError:
    opts = dict(variant.opts)
    where = f"{variant.name}" + (f" at {n_players} players" if n_players is not None else "") + \
        (f" with options {opts}" if opts else "")
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

__all__ = ["shipped_tables", "make_solved", "SolvedPolicy", "exploitability_lines", "meets_quarter", "solve_command",
           "TABLES_DIR"]
