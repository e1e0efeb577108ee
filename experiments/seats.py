"""Every seat's best response to the shipped ``solved`` tables, beside each game's least
exploitable built-in: is any seat more exploitable than seat 0, and what NashConv comes to.

Every exploitability figure pvsim prints about its tables (the solve's log, the judges of
``results/solve/finer.md``, ``pvsim strategies``) is seat 0's best-response (BR) gain. The seats
are not alike: the buckets hold the seat's position in Slovak, Sviten and Russian, and the rules
treat seats differently everywhere (the order of exchanges and discards, who passes to whom). So
another seat may find more. This script fits a BR at every seat under the common coarse BR that
each table's metadata records first (its fitting and fresh deals, seed 2024), or under the
buckets and budget given, against a field of ``solved`` and against a field of the game's least
exploitable built-in, and reports:

- each seat's gain with its 95% interval;
- their sum, an estimate of NashConv (a lower bound, as each seat's figure is), with the
  interval ``pvsim exploit`` gives for the mean, times the seats;
- the ratio of the two sums, table over built-in, where the built-in's is resolved.

The BR makes the backward passes ``pvsim exploit`` makes by default for the game and field (two
for the 6-player games, one for Russian against a field that reads the cards), or ``--passes``;
each row records them. The judges of ``experiments/bench_finer.py`` make one, so ``--passes 1``
at a judge's buckets and deals repeats the judge at seat 0 and costs half the default's fitting.

Each measurement is written to ``results/solve/seats.json`` as it completes, and a rerun skips
those already there with the same settings and, for ``solved``, the same table (each row records
its table's digest: a table shipped since is measured anew, and seats.md shows only the rows of
the tables shipped now). The one under way is checkpointed every minute to
``results/solve/seats.partial/`` (``pvsim exploit``'s checkpoint files, one family a measurement),
so an interrupted run (Ctrl-C, or a killed process) resumes where it stopped, mid-fit, when the
same command runs again, with the figures of an uninterrupted run; the files go once it is done.
``results/solve/seats.md`` opens with a summary, a line per game and budget beside the share of
the judge's fitting deals it is and the table's seat-0 verdict, and then gives every seat.

    python -m experiments.seats                          # every shipped table, its recorded budget
    python -m experiments.seats --games russian:3 --deals 8192 --eval-deals 8192
    python -m experiments.seats --games russian:4,russian:3 --abstraction fine --deals 262144
    python -m experiments.seats --games estonian:6 --abstraction medium --deals 67108864 --passes 1
"""
from __future__ import annotations

import argparse
import hashlib
import json
import time
from collections import defaultdict
from pathlib import Path

from experiments import cells, sizes
from experiments.outputs import write_json, write_text

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "solve"
PARTIAL = "seats.partial"  # beside seats.json: the checkpoint files of the measurement under way
CHECKPOINT_EVERY = 60.0  # seconds between checkpoint saves


def plans(games=None, deals=None, eval_deals=None, seed=None, abstraction=None, passes=None) -> list[dict]:
    """One plan a shipped table: its game, players, rules, the two fields and the BR's buckets
    and budget (coarse, and the first exploitability row of its metadata, unless overridden), and
    its backward passes (None: ``pvsim exploit``'s default for the game and field)."""
    from strategies.solved import exploitability, shipped_tables

    want = list(sizes.USUAL) if games is None else list(games)
    tables = {f"{tf.game}:{tf.n_players}": tf for tf in shipped_tables()}
    missing = [g for g in want if g not in tables]
    if missing:
        raise SystemExit(f"no shipped table for {', '.join(missing)}; shipped: {', '.join(sorted(tables))}")
    out = []
    for g in want:
        tf = tables[g]
        first = exploitability(tf)["rows"][0]
        out.append({"game": tf.game, "players": tf.n_players, "options": dict(tf.options),
                    "table": table_digest(tf.path),
                    "fields": ["solved", first["builtin"]], "abstraction": abstraction or "coarse",
                    "deals": first["deals"] if deals is None else deals,
                    "eval_deals": first["eval_deals"] if eval_deals is None else eval_deals,
                    "seed": first["seed"] if seed is None else seed, "passes": passes})
    return out


_DIGESTS: dict = {}


def table_digest(path) -> str:
    """A shipped table's identity in a row of ``solved``: the digest of its arrays and header, its
    metadata aside (``experiments.benchkit``'s), so annotating a table keeps its rows while shipping
    another makes them another table's. Kept per ``strategies.table.file_version``, as
    ``strategies.solved`` keeps the loaded tables: a run asks for it when planning and again when
    writing seats.md."""
    from experiments import benchkit
    from strategies.table import file_version

    key = file_version(path)
    if key not in _DIGESTS:
        _DIGESTS[key] = benchkit.table_digest(Path(path)).hex()[:16]
    return _DIGESTS[key]


def current(rows: list[dict]) -> list[dict]:
    """The rows that measure what is shipped now: every built-in's, and each `solved` row whose
    ``table`` digest is the shipped table's of its game and size. A row of a table shipped before
    stays in seats.json, apart; a row without a digest (none in results/solve/seats.json) is taken
    as current."""
    from strategies.solved import shipped_tables

    digests = {f"{tf.game}:{tf.n_players}": table_digest(tf.path) for tf in shipped_tables()}
    return [r for r in rows if r["field"] != "solved" or "table" not in r
            or digests.get(f"{r['game']}:{r['players']}") == r["table"]]


def default_passes(game: str, players: int, options: dict | None, field: str) -> int:
    """The backward passes ``pvsim exploit`` makes against ``field`` where it is not told: the game's
    own fitting default (Russian's depends on the field), else two."""
    from simcore.api import _registry, _variant
    from simcore.exploit import fit_settings

    v = _variant(game, options or None)
    return fit_settings(v, _registry().lineup(v, players, field, field)[0])["passes"]


def budget(r: dict) -> tuple:
    """What a measurement of either field shares: game, players, buckets, fitting and fresh deals, seed
    and backward passes (None for a row that does not record them)."""
    return (r["game"], r["players"], r["abstraction"], r["deals"], r["eval_deals"], r["seed"], r.get("passes"))


def key(r: dict, field=None) -> tuple:
    """A measurement's identity: its budget and its field, and for `solved` the table's digest (a
    table shipped since is measured again; the row of the one before stays, apart)."""
    field = field or r["field"]
    return budget(r) + (field,) + ((r["table"],) if field == "solved" and "table" in r else ())


def checkpoint_path(folder: Path, r: dict, field=None) -> Path:
    """Where the measurement ``key(r, field)`` keeps its checkpoint files (``NAME.seatK.*``) in
    ``folder``: one name a measurement, so a rerun of other settings never resumes this one."""
    digest = hashlib.sha256(repr(key(r, field)).encode()).hexdigest()[:12]
    return folder / f"{r['game']}_{r['players']}_{digest}"


def _spent_file(base: Path) -> Path:
    return base.parent / (base.name + ".seconds")


def _spent(base: Path) -> float:
    """The seconds that earlier, interrupted runs of this measurement spent (0 for none; a run
    that was killed, not interrupted, recorded none)."""
    f = _spent_file(base)
    return float(json.loads(f.read_text())["seconds"]) if f.exists() else 0.0


def _clear(base: Path) -> None:
    for f in base.parent.glob(base.name + ".*"):
        f.unlink()
    if base.parent.exists() and not any(base.parent.iterdir()):
        base.parent.rmdir()


def measure(plan: dict, field: str, workers=None, checkpoint: Path | None = None, progress=False,
            say=None) -> dict:
    """Every seat's BR against ``field`` at every other seat: gains, and their sum.

    The seats are fitted and measured one after another, each as ``pvsim exploit --seat K`` (the
    figures of one run over every seat: each seat's deals come from its own seeds), so that each
    seat's gain can be said as it is done.
    ``checkpoint``: save the run to files ``checkpoint.*`` as it goes, and resume from the ones
    there (a finished part is not played again); they are removed once the measurement is done.
    Raises KeyboardInterrupt, the files kept, when interrupted; the time spent so far is kept beside
    them (``checkpoint.seconds``), and the run that finishes counts it. ``progress``: as
    ``pvsim exploit``'s (None: a bar for each fit and measurement where stderr is a terminal).
    ``say``: called with a line as each seat is done.
    """
    import dataclasses

    kw, resumed, before = {}, False, 0.0
    if checkpoint is not None:
        checkpoint.parent.mkdir(parents=True, exist_ok=True)
        kw = dict(resume=str(checkpoint), checkpoint_every=CHECKPOINT_EVERY)
        resumed = any(checkpoint.parent.glob(checkpoint.name + ".*"))
        before = _spent(checkpoint)
    t0 = time.perf_counter()
    try:
        results = _every_seat(plan, field, workers, progress, say, kw)
    except KeyboardInterrupt:
        if checkpoint is not None:  # the time so far, for the run that finishes it
            write_json(_spent_file(checkpoint), {"seconds": round(before + time.perf_counter() - t0, 1)})
        raise
    if checkpoint is not None:
        _clear(checkpoint)
    P = plan["players"]
    d = dataclasses.replace(results[0], seats=[r.seats[0] for r in results]).to_dict()
    mean = d["mean"]
    return {"game": plan["game"], "players": P, "options": plan["options"], "field": field,
            **({"table": plan["table"]} if field == "solved" and "table" in plan else {}),
            "abstraction": plan["abstraction"], "deals": plan["deals"], "eval_deals": plan["eval_deals"],
            "seed": plan["seed"], "passes": results[0].passes, "unit": d["unit"],
            "seats": [{k: s[k] for k in ("seat", "gain", "stderr", "ci_low", "ci_high")} for s in d["seats"]],
            "sum": {"gain": P * mean["gain"], "ci_low": P * mean["ci_low"], "ci_high": P * mean["ci_high"]},
            "wall_s": round(before + time.perf_counter() - t0, 1), **({"resumed": True} if resumed else {})}


def _every_seat(plan, field, workers, progress, say, kw) -> list:
    """``pvsim exploit --seat K`` for each seat K in turn; KeyboardInterrupt where one is cut short."""
    from simcore.exploit import exploit

    results = []
    for K in range(plan["players"]):
        t = time.perf_counter()
        r = exploit(plan["game"], plan["players"], field, seat=K, deals=plan["deals"],
                    eval_deals=plan["eval_deals"], abstraction=plan["abstraction"], seed=plan["seed"],
                    options=plan["options"] or None, passes=plan.get("passes"), rollout=0, workers=workers,
                    progress=progress, **kw)
        if r.interrupted:  # a gain on fewer fresh deals than asked is no row: the files resume it
            raise KeyboardInterrupt(f"interrupted while measuring seat {K}")
        results.append(r)
        if say is not None:
            s = r.to_dict()["seats"][0]
            say(f"  seat {K}: {s['gain']:+.5f} [{s['ci_low']:+.5f}, {s['ci_high']:+.5f}] "
                f"({time.perf_counter() - t:.0f} s)")
    return results


def _load(path: Path) -> list[dict]:
    return json.loads(path.read_text())["rows"] if path.exists() else []


def _save(path: Path, rows: list[dict]) -> None:
    write_json(path, {"rows": rows}, indent=1)  # a whole file or the old one, never half of one


def ratio(table: dict, builtin: dict) -> tuple[float, float] | None:
    """The sums' ratio and its upper end (the table's upper 95% end over the built-in's sum), or
    None where the built-in's sum is not resolved (its interval reaches zero)."""
    if builtin["sum"]["ci_low"] <= 0:
        return None
    return table["sum"]["gain"] / builtin["sum"]["gain"], table["sum"]["ci_high"] / builtin["sum"]["gain"]


def _fig(g: dict) -> str:
    """A gain with its 95% interval, in a table's cell."""
    return f"{g['gain']:+.5f} [{g['ci_low']:+.5f}, {g['ci_high']:+.5f}]"


def _passes(n: int) -> str:
    """``n`` backward passes over the stages, in words."""
    return f"{n} backward pass{'es' if n > 1 else ''}"


def judges() -> dict[str, dict]:
    """Per shipped table (``"game:players"``), the BR its seat-0 verdict takes the built-in's gain
    from (``pvsim strategies``: the strongest BR against the built-in, the judge) and that verdict's
    ratio and upper end; a table whose metadata has no verdict is left out."""
    from strategies.solved import exploitability, shipped_tables

    out = {}
    for tf in shipped_tables():
        e = exploitability(tf)
        v = e and e["verdict"]
        if v and v["ratio"] is not None:
            j = e["rows"][v["builtin_row"]]
            out[f"{tf.game}:{tf.n_players}"] = {"abstraction": j["abstraction"], "deals": j["deals"],
                                                "ratio": v["ratio"], "ratio_upper": v["ratio_upper"]}
    return out


def share(deals: int, abstraction: str, judge: dict | None) -> str:
    """How much of the judge's BR a budget is: "all", "1/4", "2x" (more than the judge's), or where
    the buckets differ, which they are (a budget under other buckets is no share of the judge's);
    "-" for a table with no judge."""
    if judge is None:
        return "-"
    if abstraction != judge["abstraction"]:
        return f"{abstraction}, not the judge's {judge['abstraction']}"
    if deals == judge["deals"]:
        return "all"
    if deals < judge["deals"] and judge["deals"] % deals == 0:
        return f"1/{judge['deals'] // deals}"
    if deals > judge["deals"] and deals % judge["deals"] == 0:
        return f"{deals // judge['deals']}x"
    return f"{deals / judge['deals']:.2f}"


def _sections(rows: list[dict]) -> list[tuple[tuple, dict, dict]]:
    """(budget, `solved`'s row, the built-in's row) for every budget that has both, in the order of
    sizes.USUAL, a game's coarse BR first, then the finer ones, each by its deals."""
    from simcore.abstraction import NAMES

    groups: dict[tuple, dict] = {}
    for r in rows:
        groups.setdefault(budget(r), {})["table" if r["field"] == "solved" else "builtin"] = r
    rank = {g: i for i, g in enumerate(sizes.USUAL)}
    fineness = {name: i for i, name in enumerate(NAMES)}  # coarse first
    return [(k, pair["table"], pair["builtin"]) for k, pair in sorted(
            groups.items(), key=lambda kv: (rank.get(f"{kv[0][0]}:{kv[0][1]}", len(rank)),
                                            fineness.get(kv[0][2], len(fineness)), kv[0]))
            if len(pair) == 2]


def summary(rows: list[dict], judge_of: dict[str, dict] | None = None) -> list[str]:
    """seats.md's first table: a line per game and budget, the two sums and their ratio beside what
    part of the judge's BR the budget is and the seat-0 verdict (``judge_of``: :func:`judges`)."""
    from strategies.solved import ratio_text

    judge_of = judge_of or {}

    def pair(r, upper):  # "0.20 (0.251)": a ratio and its upper end
        return f"{ratio_text(r)} ({ratio_text(upper)})"

    def minutes(r):  # a resumed run's: its parts' (a killed part's is not counted)
        if r.get("wall_s") is None:
            return "-"
        return f"{r['wall_s'] / 60:.0f}" + (" (resumed)" if r.get("resumed") else "")

    lines = ["| game | BR | passes | fitting deals | of the judge's BR | minutes (`solved` + built-in) "
             "| `solved`'s sum | the built-in's sum | sum over sum (upper end) | seat-0 verdict (upper end) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for (game, P, abstraction, deals, *_), t, b in _sections(rows):
        q, j = ratio(t, b), judge_of.get(f"{game}:{P}")
        ours = pair(*q) if q else "not resolved"
        verdict = pair(j["ratio"], j["ratio_upper"]) if j else "-"
        lines.append(f"| {game} {P} | {abstraction} | {t.get('passes') or '-'} | {deals:,} "
                     f"| {share(deals, abstraction, j)} | {minutes(t)} + {minutes(b)} | {_fig(t['sum'])} "
                     f"| `{b['field']}` {_fig(b['sum'])} | {ours} | {verdict} |")
    return lines


def render(rows: list[dict], judge_of: dict[str, dict] | None = None) -> str:
    """seats.md: a summary line per game and budget (:func:`summary`), then per game and budget
    `solved`'s row and the built-in's at every seat, in the order of sizes.USUAL (a game's coarse BR
    first, then the finer ones). Only the rows of the tables shipped now (:func:`current`)."""
    shown = current(rows)
    earlier = len(rows) - len(shown)
    rows = shown
    sections = _sections(rows)
    # a heading names its deals where its game, size and buckets were measured at several, and its
    # passes where those deals were measured at several
    deals_of, passes_of = defaultdict(set), defaultdict(set)
    for k, _, _ in sections:
        deals_of[k[:3]].add(k[3])
        passes_of[k[:4]].add(k[6])
    lines = ["# Every seat's best response to the shipped `solved` tables", "",
             "Made by `python -m experiments.seats`. Each seat's best response (BR), fitted and measured "
             "against a field that plays the policy at every other seat: coarse, with the budget and seed of the "
             "first BR each table's metadata records (the one `pvsim strategies` prints first), and, where a "
             "section says so, finer buckets or another budget; gain per deal in the "
             "game's unit, 95% intervals. The sum over the seats estimates NashConv (zero exactly at a Nash "
             "equilibrium); like each seat's figure it is a lower bound: a finer BR may find more.", "",
             "## Summary", "",
             "A line per game and budget. The judge is the BR that a table's seat-0 verdict (`pvsim strategies`) "
             "takes the built-in's gain from (`experiments/bench_finer.py`: seat 0, one backward pass); the "
             "verdict's ratio is seat 0's gain by its strongest BR over that. The BR here makes the passes "
             "`pvsim exploit` makes by default for the game and field (or `--passes`), so where that is more than "
             "one, it is at least as strong as the judge at the same fitting deals a stage. Minutes are wall-clock for "
             "the whole measurement of each field."
             + ((" One row of a `solved` table shipped before stays in seats.json, with its table's digest, and is "
                 "not shown." if earlier == 1 else f" The {earlier} rows of `solved` tables shipped before stay in "
                 "seats.json, each with its table's digest, and are not shown.") if earlier else ""), ""]
    lines += summary(rows, judge_of) + [""]
    for (game, P, abstraction, deals, eval_deals, seed, passes), t, b in sections:
        said = "" if passes is None else _passes(passes)  # an older row may not record its passes
        lines += [f"## {game}, {P} players" + ("" if abstraction == "coarse" else f", {abstraction} BR")
                  + (f", {deals:,} fitting deals" if len(deals_of[(game, P, abstraction)]) > 1 else "")
                  + (f", {said}" if said and len(passes_of[(game, P, abstraction, deals)]) > 1 else ""), "",
                  f"BR: {abstraction}, {deals:,} fitting deals a stage" + (f" x {said}" if said else "")
                  + f", {eval_deals:,} fresh deals, seed {seed}; {t['unit']}.", "",
                  "| field | " + " | ".join(f"seat {k}" for k in range(P)) + " | sum (NashConv, lower bound) |",
                  "|---|" + "---|" * (P + 1)]
        for r in (t, b):
            name = "`solved`" if r["field"] == "solved" else f"`{r['field']}`"
            lines.append(f"| {name} | " + " | ".join(_fig(s) for s in r["seats"]) + f" | {_fig(r['sum'])} |")
        top = max(t["seats"], key=lambda s: s["gain"])
        q = ratio(t, b)
        lines += ["", f"`solved`'s largest seat: seat {top['seat']}, {_fig(top)}; seat 0's: {_fig(t['seats'][0])}. "
                  + (f"Sum over sum: {q[0]:.2f} (upper end {q[1]:.2f})." if q is not None
                     else "The built-in's sum is not resolved (its interval reaches zero): no ratio.")
                  + (" This BR finds no gain in `solved` (the sum's interval lies below zero)."
                     if t["sum"]["ci_high"] <= 0 else ""), ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    from simcore.abstraction import NAMES

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=sizes.size_list, help="game:players,... (default: every shipped table)")
    ap.add_argument("--deals", type=cells.count, help="fitting deals a stage (default: each table's recorded BR)")
    ap.add_argument("--eval-deals", type=cells.count, help="fresh deals (default: each table's recorded BR)")
    ap.add_argument("--abstraction", choices=NAMES,
                    help="the BR's buckets (default: coarse, the recorded BR's)")
    ap.add_argument("--seed", type=cells.seed, help="the BRs' seed (default: each table's recorded BR, 2024)")
    ap.add_argument("--passes", type=cells.count, help="backward passes over the stages (default: pvsim "
                                                       "exploit's for the game and field; the judges make 1)")
    ap.add_argument("--workers", type=cells.count, help="threads or processes that play blocks (default: every core)")
    ap.add_argument("--no-progress", action="store_true",
                    help="no progress bars (default: a bar for each fit and measurement on a terminal)")
    ap.add_argument("--out", type=Path, default=OUT, help="folder of seats.json and seats.md (default results/solve)")
    args = ap.parse_args(argv)
    plan_list = plans(args.games or None, args.deals, args.eval_deals, args.seed,
                      args.abstraction, args.passes)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "seats.json"
    rows = _load(path)
    for p in plan_list:
        for field in p["fields"]:
            want = dict(p, passes=p["passes"] or default_passes(p["game"], p["players"], p["options"], field))
            if any(key(r) == key(want, field) for r in rows):
                print(f"{p['game']}:{p['players']} {field}: already measured", flush=True)
                continue
            base = checkpoint_path(args.out / PARTIAL, want, field)
            try:
                r = measure(want, field, args.workers, checkpoint=base,
                            progress=False if args.no_progress else None,
                            say=lambda line: print(line, flush=True))
            except KeyboardInterrupt as e:
                print(f"{p['game']}:{p['players']} {field}: {str(e) or 'interrupted'}; run the same command "
                      f"again to go on from {base}.*", flush=True)
                write_text(args.out / "seats.md", render(rows, judges()) + "\n")
                return 130
            rows.append(r)
            _save(path, rows)
            print(f"{p['game']}:{p['players']} {field}: sum {r['sum']['gain']:+.5f} "
                  f"[{r['sum']['ci_low']:+.5f}, {r['sum']['ci_high']:+.5f}] ({r['wall_s']} s)", flush=True)
    write_text(args.out / "seats.md", render(rows, judges()) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
