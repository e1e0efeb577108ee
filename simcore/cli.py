"""The ``pvsim`` command line.

Every subcommand is a thin layer over the Python API (simcore.simulate,
compare, analyze): it parses, calls, and formats. Errors in what the user
typed are reported in one line, naming the bad value, without a traceback.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys

DESCRIPTION = """\
pvsim plays poker variants with card decisions (which card to pass, which to
discard, whether to exchange) millions of times, and tells you how often each
seat wins, with 95% intervals.

Start with:
  pvsim strategies estonian                      what you can choose, per decision
  pvsim simulate estonian --players 6 --deals 200000
  pvsim compare estonian --players 6 --a pass=highest --b pass=lowest
  pvsim analyze estonian --players 6 --hand "As Ks 7d" --board "Qs Js 4h"
  pvsim eval "Ks Kh Kd 9s 9d"                    value and name of a hand
  pvsim solve estonian --players 6 --out e6.npz  a near-equilibrium table (table:e6.npz)

Variants: `pvsim variants` lists them with their rule options.
A policy spec names a policy per decision: pass=highest,discard=best-made;
decisions left out use the variant's default. --hero is the hero seat (seat 0,
or --hero-seat K), --field every other seat, --seat K=SPEC one seat.
"""

FORMATS = ("table", "csv", "json", "markdown")
ANALYZE_SHOWN = 10  # actions an analysis table shows when there are many
PRECISION_CAP = 1_000_000_000


def _version() -> str:
    from simcore import __version__

    return __version__


def _variant_flags(p: argparse.ArgumentParser, situations: bool = True) -> None:
    """Rule options and situation fields, built from what the variants declare.

    A flag belongs to the variants that declare it; giving it with another
    variant is a clear error (from get_variant or the variant's setup). With
    ``situations=False`` (commands that play random deals) the situation flags
    stay out of the help but are still parsed, so that giving one is that
    clear error rather than argparse's "unrecognized arguments".
    """
    from simcore.variants import variant_classes

    options, fields = {}, {}
    for cls in variant_classes().values():
        for o in cls.options:
            options.setdefault(o.name, (o, []))[1].append(cls.name)
        for f in cls.fields:
            fields.setdefault(f.name, (f, []))[1].append(cls.name)
    g = p.add_argument_group("rule options (by variant)")
    for name, (o, owners) in options.items():
        flag = "--" + name.replace("_", "-")
        text = f"{'/'.join(owners)}: {o.help}"
        if isinstance(o.default, bool):
            g.add_argument(flag, dest=f"opt_{name}", action="store_true", default=None, help=text)
        else:
            choices = f" ({'|'.join(map(str, o.choices))}; default {o.default})" if o.choices else \
                f" (default {o.default})"
            g.add_argument(flag, dest=f"opt_{name}", metavar=name.upper(), default=None, help=text + choices)
    g = p.add_argument_group("situation (by variant)") if situations else p
    for name, (f, owners) in fields.items():
        g.add_argument("--" + name.replace("_", "-"), dest=f"field_{name}", default=None,
                       help=f"{'/'.join(owners)}: {f.help}" if situations else argparse.SUPPRESS)


EXECUTOR_HELP = ("where blocks run (default: threads, moving a run that will last more than a few seconds to "
                 "processes when its strategies can be imported by them)")


def _add_run_options(p: argparse.ArgumentParser, deals_default: int) -> None:
    from simcore.variants import variant_classes

    p.add_argument("variant", help=", ".join(variant_classes()))
    p.add_argument("--players", "-n", type=int, default=2, help="players at the table (default 2)")
    p.add_argument("--deals", "-d", type=int, default=None,
                   help=f"deals to play (default {deals_default:,}); with --precision, the cap "
                        f"(default {PRECISION_CAP:,})")
    p.set_defaults(deals_default=deals_default)
    p.add_argument("--seed", "-s", type=int, default=0, help="random seed (default 0): same seed, same numbers")
    p.add_argument("--field", help="policy spec for every seat but 0")
    p.add_argument("--seat", action="append", default=[], metavar="K=SPEC",
                   help="policy spec for seat K (repeatable), e.g. --seat 3=pass=highest")
    p.add_argument("--hero-seat", type=int, default=0, metavar="K",
                   help="the seat --hero, --hand and the situation are about (default 0)")
    p.add_argument("--hand", help="the hero seat's known cards, e.g. \"As Ks 7d\"")
    p.add_argument("--board", help="known board cards, first ones first")
    g = p.add_argument_group("where it runs")
    g.add_argument("--workers", "-w", "--threads", "-t", dest="workers", type=int, default=None, metavar="N",
                   help="threads or processes that play blocks (default: all cores); --threads is an alias")
    g.add_argument("--executor", choices=("threads", "processes", "dask"), default=None,
                   help=EXECUTOR_HELP)
    g.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                   help="send the blocks to this Dask scheduler (implies --executor dask)")
    g.add_argument("--checkpoint", metavar="FILE",
                   help="save the run's progress to FILE every few seconds (a new file)")
    g.add_argument("--resume", metavar="FILE", help="continue the run saved in FILE (and keep saving to it)")
    g.add_argument("--checkpoint-every", type=float, default=None, metavar="SECONDS",
                   help="seconds between checkpoint saves (default 5)")
    p.add_argument("--block-size", type=int, default=None, help="deals per block (default 16384; changes the random stream)")
    p.add_argument("--format", "-f", choices=FORMATS, default="table", help="output format (default table)")
    p.add_argument("--out", "-o", help="write the output to this file instead of the screen")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    _variant_flags(p)


def _add_exploit_options(p: argparse.ArgumentParser) -> None:
    from simcore.exploit import DEFAULT_DEALS, DEFAULT_EVAL_DEALS, DEFAULT_MIN_VISITS, DEFAULT_ROLLOUT_DEALS, \
        DEFAULT_ROLLOUT_K, FITS
    from simcore.variants import variant_classes

    p.add_argument("variant", help=", ".join(variant_classes()))
    p.add_argument("--players", "-n", type=int, default=2, help="players at the table (default 2)")
    p.add_argument("--field", help="policy spec of the field (every seat; the BR's fallback)")
    p.add_argument("--seat", type=int, default=None, metavar="K", help="the deviating seat (default: every seat)")
    p.add_argument("--deals", "-d", type=int, default=None,
                   help=f"fitting deals per stage and pass (default {DEFAULT_DEALS:,}; Russian 32,768)")
    p.add_argument("--eval-deals", type=int, default=DEFAULT_EVAL_DEALS,
                   help=f"fresh deals the BR is measured on (default {DEFAULT_EVAL_DEALS:,}; the cap with --precision)")
    p.add_argument("--precision", type=float, help="stop measuring when the gain's 95%% half-width is at most this")
    p.add_argument("--abstraction", default="coarse", help="the game's information abstraction: coarse, medium or fine "
                        "(default coarse: at the default budget it finds the most; fine needs many millions of fitting deals), "
                        "or one per decision: exchange1=fine,exchange2=medium")
    p.add_argument("--seed", "-s", type=int, default=0, help="random seed (default 0): same seed, same table")
    p.add_argument("--min-visits", type=int, default=None,
                   help=f"tries an action needs in a bucket before the BR may choose it (default {DEFAULT_MIN_VISITS}; "
                        "Russian 4 against a rule field)")
    p.add_argument("--passes", type=int, default=None,
                   help="backward passes over the decisions (default 2; Russian 4 against a field that places by a "
                        "rule, first-open or by-rank, else 1)")
    p.add_argument("--confidence", type=float, default=None,
                   help="the level at which a bucket's best action must be ahead of the field's play before the "
                        "BR leaves the field (default 0.95; Russian against a rule field 0: any positive mean over "
                        "--min-visits tries)")
    p.add_argument("--validate", action="store_true",
                   help="hold out every other fitting block and keep only the departures it confirms")
    p.add_argument("--fit", choices=FITS, default="backward",
                   help="backward (default): the decisions fitted last to first, the later ones playing the BR; "
                        "one-play: every decision from one play of each deal, the later ones playing the field "
                        "(cheaper, and a weaker bound: a one-step improvement of the field)")
    p.add_argument("--start", default=None, metavar="SPEC",
                   help="what the deviator plays in the first pass at the stages not fitted yet (default: the "
                        "field; Russian against a rule field conceal); 'field' for the field")
    p.add_argument("--rollout", type=int, default=DEFAULT_ROLLOUT_K, metavar="K",
                   help=f"K of the rollout:K bound (default {DEFAULT_ROLLOUT_K}; 0: skip it)")
    p.add_argument("--rollout-deals", type=int, default=DEFAULT_ROLLOUT_DEALS,
                   help=f"deals the rollout bound is measured on (default {DEFAULT_ROLLOUT_DEALS:,})")
    p.add_argument("--out", "-o", help="write the BR table to this file (play it with table:FILE); "
                                       "with several seats one file a seat, NAME.seatK.npz")
    _json_flags(p)
    _add_fit_options(p, "save progress to files FILE.seatK.* every few seconds (new files)", checkpoint_every=True)


def _add_fit_options(p: argparse.ArgumentParser, checkpoint_help: str, checkpoint_every: bool) -> None:
    """The options exploit and solve end with: where the blocks run, the block size, the progress
    bar and the game's options."""
    g = p.add_argument_group("where it runs")
    g.add_argument("--workers", "-w", "--threads", "-t", dest="workers", type=int, default=None, metavar="N",
                   help="threads or processes that play blocks (default: all cores)")
    g.add_argument("--executor", choices=("threads", "processes", "dask"), default=None,
                   help=EXECUTOR_HELP + "; the same numbers on each")
    g.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="send the blocks to this Dask scheduler")
    g.add_argument("--checkpoint", metavar="FILE", help=checkpoint_help)
    g.add_argument("--resume", metavar="FILE",
                   help="continue the run saved with --checkpoint FILE (and keep saving to it)")
    if checkpoint_every:
        g.add_argument("--checkpoint-every", type=float, default=None, metavar="SECONDS",
                       help="seconds between checkpoint saves (default 5)")
    p.add_argument("--block-size", type=int, default=None,
                   help="deals per block (default 16384; changes the random stream, so the numbers)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    _variant_flags(p, situations=False)


def _add_solve_options(p: argparse.ArgumentParser) -> None:
    from simcore.exploit import FITS
    from simcore.solve import DEFAULT_DEALS, DEFAULT_EVAL_DEALS, DEFAULT_ITERATIONS
    from simcore.variants import variant_classes

    p.add_argument("variant", help=", ".join(variant_classes()))
    p.add_argument("--players", "-n", type=int, default=2, help="players at the table (default 2)")
    p.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS,
                   help=f"best responses fitted and measured, in all: a resumed run goes on to this count "
                        f"(default {DEFAULT_ITERATIONS})")
    p.add_argument("--target", type=float, default=None, metavar="EPS",
                   help="stop once a measured gain's upper 95%% end is at most EPS (per deal)")
    p.add_argument("--abstraction", default="coarse", help="the game's information abstraction: coarse, medium "
                                                            "or fine (default coarse), or one per decision: exchange1=medium,exchange2=coarse")
    p.add_argument("--deals", "-d", type=int, default=DEFAULT_DEALS,
                   help=f"fitting deals per stage of each best response (default {DEFAULT_DEALS:,})")
    p.add_argument("--eval-deals", type=int, default=DEFAULT_EVAL_DEALS,
                   help=f"fresh deals measuring each iteration (default {DEFAULT_EVAL_DEALS:,})")
    p.add_argument("--seed", "-s", type=int, default=0, help="random seed (default 0): same seed, same table")
    p.add_argument("--init", default=None, help="policy spec of buckets not yet visited (default: the game's defaults)")
    p.add_argument("--validate", action="store_true",
                   help="each best response keeps only the departures that held-out fitting blocks confirm")
    p.add_argument("--method", choices=("fp", "cfr"), default="fp",
                   help="fp: fictitious play (default); cfr: sampled CFR+ over the same buckets")
    p.add_argument("--start-weight", type=int, default=1, metavar="W",
                   help="fp: terms the starting policy counts for in each row's average (default 1: a row's "
                        "first departure takes half of it; 0: all of it, the average of the BRs alone)")
    p.add_argument("--keep", choices=("measured", "newest"), default="measured",
                   help="fp: the table a finished run keeps: measured (default), the one its last iteration "
                        "measured (N iterations keep N - 1 BRs), or newest, every BR in, unmeasured")
    p.add_argument("--fit", choices=FITS, default="backward",
                   help="fp: how each best response is fitted: backward (default), or one-play, every decision "
                        "from one play of each deal with the average's own later play (about 2x cheaper for "
                        "Russian's 12 rounds; the same fixed points)")
    p.add_argument("--measure-every", type=int, default=None, metavar="N",
                   help="cfr: measure the average table every N iterations and at the end (default: the players)")
    p.add_argument("--passes", type=int, default=1, help="backward passes of each best-response fit (default 1)")
    p.add_argument("--confidence", type=float, default=None,
                   help="a BR bucket departs from the average when its gain is ahead at this level (default 0.5)")
    p.add_argument("--out", "-o", default="solved.npz",
                   help="the table file (default solved.npz; play it with table:FILE); the convergence chart and "
                        "the iteration log go beside it (its name with .png and .json: neither may be the "
                        "checkpoint)")
    _json_flags(p)
    _add_fit_options(p, "save the state here after every iteration", checkpoint_every=False)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pvsim", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--version", action="version", version=f"pvsim {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("simulate", help="every seat's pot share, win and tie rates",
                       description="Play many deals and report each seat's pot share with its 95% interval.")
    _add_run_options(p, 200_000)
    p.add_argument("--hero", help="policy spec for the hero seat, e.g. pass=highest,discard=best-made")
    p.add_argument("--precision", type=float, help="stop when every share's 95%% half-width is at most this")
    p.add_argument("--categories", action="store_true", help="also print final hand categories per seat")
    p.add_argument("--match", action="store_true",
                   help="also each seat's chance of winning a match (variants with a match target)")

    p = sub.add_parser("compare", help="two policies for the hero seat on the same deals, with the paired difference",
                       description="The hero seat plays --a, then --b, on identical deals; the difference a - b "
                                   "comes with its own (paired, much tighter) interval.")
    _add_run_options(p, 200_000)
    p.add_argument("--a", required=True, help="policy spec A for the hero seat")
    p.add_argument("--b", required=True, help="policy spec B for the hero seat")
    p.add_argument("--precision", type=float, help="stop when the difference's 95%% half-width is at most this")

    p = sub.add_parser("analyze", help="every action of the hero's decision in a situation, ranked",
                       description="From a situation (the hero seat's cards, known board), play each legal action "
                                   "of the decision on the same deals; stops once the best is separated at 95%.")
    _add_run_options(p, 2_000_000)
    p.add_argument("--decision", help="which decision (default: the one the situation is at)")
    p.add_argument("--hero", help="policy spec for the hero's other decisions")
    p.add_argument("--min-deals", type=int, default=1 << 15, help="deals before stopping early (default 32768)")
    p.add_argument("--no-stop", action="store_true", help="play all --deals even once separated")

    p = sub.add_parser("exploit", help="a best response to a field: how much it can be beaten (a lower bound)",
                       description="Fit a best response (BR) to the field's policy over an information "
                                   "abstraction, then measure its gain over the field on fresh deals: a lower "
                                   "bound on the field's exploitability, beside that of rollout:K deviations.")
    _add_exploit_options(p)

    p = sub.add_parser("solve", help="fictitious play or sampled CFR+: a near-equilibrium table every seat plays",
                       description="Iterate best responses (pvsim exploit) into a mixed table shared by every "
                                   "seat: each iteration fits one seat's BR to the average table, reports its gain "
                                   "on fresh deals (a lower bound on the table's exploitability) and mixes it in. "
                                   "Ends on --iterations, --target or Ctrl-C, keeping the table.")
    _add_solve_options(p)

    p = sub.add_parser("strategies", help="list decisions and policies",
                       description="List every decision of a variant (or all) with its policies, and the "
                                   "solved tables shipped for it with their measured exploitability.")
    p.add_argument("variant", nargs="?", help="one variant (default: all)")
    _json_flags(p)

    p = sub.add_parser("eval", help="value and name of a hand (5-7 cards)",
                       description="Evaluate hands of 5 to 7 cards: pvsim eval \"As Ks Qs Js Ts\" \"Ah Ad 5c 5d 9s\"")
    p.add_argument("hands", nargs="+", help="hands, one per argument")

    p = sub.add_parser("demo", help="a short demo: hands described, evaluator throughput",
                       description="Evaluate and describe a few hands and measure the evaluator's speed.")
    p.add_argument("--hands", type=int, default=2_000_000, help="random hands for the throughput figure")

    p = sub.add_parser("bench", help="evaluator benchmark beside eval7 / phevaluator",
                       description="Run python -m experiments.bench_evaluator (pass its options after --).")
    p.add_argument("args", nargs=argparse.REMAINDER)

    p = sub.add_parser("variants", help="the variants and their player limits")
    return parser


# -- formatting ----------------------------------------------------------------


def _num(x: float, digits: int = 4) -> str:
    """A number as a table shows it: "n/a" for NaN (nothing measured), and never "-0.0000"
    (a negative number that rounds to zero prints as zero)."""
    if math.isnan(x):
        return "n/a"
    text = f"{x:.{digits}f}"
    return text[1:] if text.startswith("-") and not text.strip("-0.") else text


def _fmt_table(df) -> str:
    def fmt(col, x):
        if isinstance(x, float):
            return _num(x, 5 if col in ("stderr", "diff_stderr") else 4)
        return str(x)

    cols = list(df.columns)
    rows = [[fmt(c, v) for c, v in zip(cols, r)] for r in df.itertuples(index=False)]
    widths = [max(len(c), *(len(r[i]) for r in rows)) if rows else len(c) for i, c in enumerate(cols)]
    lines = ["  ".join(c.rjust(w) for c, w in zip(cols, widths))]
    lines += ["  ".join(v.rjust(w) for v, w in zip(r, widths)) for r in rows]
    return "\n".join(lines)


def _fmt_markdown(df) -> str:
    cols = list(df.columns)
    out = ["| " + " | ".join(cols) + " |", "|" + "|".join(" --- " for _ in cols) + "|"]
    for r in df.itertuples(index=False):
        out.append("| " + " | ".join(_num(v) if isinstance(v, float) else str(v) for v in r) + " |")
    return "\n".join(out)


def _run_notes(r) -> list[str]:
    """What every format says about a run that is not a plain, complete one."""
    from simcore.engine.stats import MIN_INTERVAL_DEALS

    notes = []
    if r.info.interrupted:
        by = getattr(r.info, "interrupted_by", None)  # a strategy that raised KeyboardInterrupt
        notes.append(f"interrupted: {r.info.n_deals:,} deals finished; the intervals cover those"
                     + (f" ({by})" if by else ""))
    if r.small_sample:
        notes.append(f"only {r.stats.n:,} deals: fewer than {MIN_INTERVAL_DEALS} deals give no "
                     f"usable 95% interval (n/a: none at all)")
    if getattr(r, "precision_reached", None) is False:
        notes.append(f"--precision {r.precision:g} NOT reached: stopped at {r.stats.n:,} deals "
                     f"(the --deals cap{', or interrupted' if r.info.interrupted else ''})")
    return notes


def _unit_facts(r) -> dict:
    """What a number means, for the formats without the table's header: the unit, the
    variant's rule options (Tapiola's scoring) and the match target of match chances."""
    facts = {"unit": r.unit, **(r.options or {})}
    if getattr(r, "match", None) is not None:
        facts["match_target"] = r.match.target
    return facts


def _unit_line(r) -> str:
    facts = _unit_facts(r)
    line = f"share = mean {facts.pop('unit')} per deal"
    target = facts.pop("match_target", None)
    if facts:
        line += "; rules: " + ", ".join(f"{k}={v}" for k, v in facts.items())
    if target is not None:
        line += f"; match to {target:g}"
    return line


def _render(fmt: str, df, payload: dict, header: str, result=None) -> str:
    """One output format; ``result`` adds the run's deal count, interrupted flag and notes."""
    from simcore.engine.results import json_ready

    notes = _run_notes(result) if result is not None else []
    if fmt == "json":
        return json.dumps(json_ready(payload), indent=2, allow_nan=False)
    if fmt == "csv":
        if result is not None:  # every row carries the run's facts, so no file loses them
            units = {(k if k not in df.columns else f"option_{k}"): v for k, v in _unit_facts(result).items()}
            df = df.assign(**units, deals=result.stats.n, interrupted=result.info.interrupted,
                           small_sample=result.small_sample)
            if getattr(result, "precision_reached", None) is not None:
                df = df.assign(precision_reached=result.precision_reached)
        return df.to_csv(index=False).rstrip("\n")
    if fmt == "markdown":
        text = _fmt_markdown(df)
        if result is not None:
            facts = f"{result.stats.n:,} deals" + (", interrupted" if result.info.interrupted else "")
            text += "\n\n" + "\n".join(f"*{line}*" for line in [facts, _unit_line(result)] + notes)
        return text
    return header + "\n" + _fmt_table(df) + "".join("\nnote: " + line for line in notes)


class OutputError(ValueError):
    """--out could not be written (the result went to the screen instead)."""


def _check_out(path: str, flag: str = "--out") -> None:
    """Before a run: can ``path`` be written? (Never find out after the work is done.)"""
    from simcore.engine.checks import check_writable

    check_writable(path, flag)


def _emit(text: str, out: str | None) -> None:
    if out:
        from simcore.engine.checkpoint import write_text

        try:
            write_text(out, text + "\n")  # the old file or the whole new one
        except OSError as e:  # a finished result is never thrown away
            print(text)
            raise OutputError(f"could not write --out {out!r} ({e.strerror or e}); "
                              f"the result is printed above") from None
        print(f"wrote {out}", file=sys.stderr)
    else:
        print(text)


# -- commands ----------------------------------------------------------------


def _seat_specs(items) -> dict:
    out = {}
    for item in items:
        k, sep, spec = item.partition("=")
        digits = k.strip().removeprefix("-")
        if not sep or not (digits.isascii() and digits.isdigit()):
            raise ValueError(f"--seat takes K=SPEC (e.g. 2=pass=highest), got {item!r}")
        if not spec.strip(" ,"):
            raise ValueError(f"--seat {item!r} gives no policy spec (e.g. {k}=pass=highest)")
        if int(k) in out:
            raise ValueError(f"--seat {int(k)} is given twice ({out[int(k)]!r} and {spec!r}); give one")
        out[int(k)] = spec  # a seat off the table (-1, 7) is refused by name with the table's seats
    return out


def _join_seat_values(argv: list[str]) -> list[str]:
    """``--seat -1=SPEC`` as ``--seat=-1=SPEC``: argparse would take ``-1=SPEC`` for a flag
    and say "expected one argument" instead of naming the seat."""
    out = []
    for token in argv:
        if out and out[-1] == "--seat" and token.startswith("-") and "=" in token and not token.startswith("--"):
            out[-1] = "--seat=" + token
        else:
            out.append(token)
    return out


def _deals(args) -> int:
    """--deals, or the default: a fixed count, or the cap when --precision decides."""
    if args.deals is not None:
        return args.deals
    return PRECISION_CAP if getattr(args, "precision", None) else args.deals_default


def _prefixed(args, prefix: str) -> dict:
    return {k[len(prefix):]: v for k, v in vars(args).items() if k.startswith(prefix) and v is not None}


def _common(args) -> dict:
    kw = dict(
        seed=args.seed, field=args.field, seats=_seat_specs(args.seat), hand=args.hand,
        board=args.board, workers=args.workers, progress=False if args.no_progress else None,
        extra=_prefixed(args, "field_") or None, options=_prefixed(args, "opt_") or None,
        hero_seat=args.hero_seat,
    )
    if args.block_size is not None:
        kw["block_size"] = args.block_size
    if args.workers is not None and args.workers < 1:
        raise ValueError(f"--workers must be at least 1, got {args.workers}")
    kw.update(executor=args.executor, scheduler=args.scheduler, checkpoint=args.checkpoint,
              resume=args.resume, checkpoint_every=args.checkpoint_every)
    return kw


def _title(r) -> str:
    """The variant with the options that differ from its defaults: ``tapiola(scoring=points)``."""
    from simcore.variants import get_variant

    return get_variant(r.variant, **(r.options or {})).label


def cmd_simulate(args) -> int:
    from simcore import simulate

    r = simulate(args.variant, args.players, _deals(args), hero=args.hero, precision=args.precision,
                 match=args.match, **_common(args))
    df = r.table()
    unit = "" if r.unit == "pot share" else f"; share = mean {r.unit} per deal"
    header = (f"{_title(r)}, {r.n_players} players, {r.n_deals:,} deals, seed {r.seed}{unit} "
              f"({r.info.seconds:.2f} s, {(r.n_deals - r.info.resumed_deals) / max(r.info.seconds, 1e-9):,.0f} "
              f"deals/s{f'; {r.info.resumed_deals:,} from the checkpoint' if r.info.resumed_deals else ''})")
    if r.match is not None:
        header += (f"\nmatch to {r.match.target:g}: {r.match.mean_hands:.2f} hands on average "
                   f"({'exact' if r.match.exact else 'simulated'} from the payoff distribution)")
    groups = r.part_groups or {}
    if groups and args.format in ("table", "markdown"):
        # A group of parts (Russian's hands_won_dist) reads better as its own small
        # table, one row per seat, than as four columns per part.
        grouped = [c for names in groups.values() for n in names
                   for c in (n, f"{n}_stderr", f"{n}_ci_low", f"{n}_ci_high")]
        text = _render(args.format, df.drop(columns=grouped), r.to_dict(), header, r)
        fmt = _fmt_markdown if args.format == "markdown" else _fmt_table
        for group, names in groups.items():
            text += f"\n\n{group} (rate per deal [95% interval]):\n" + fmt(_group_table(df, names))
    else:
        text = _render(args.format, df, r.to_dict(), header, r)
    if args.categories and args.format == "table":
        text += "\n\nfinal hand categories (rate per deal):\n" + _fmt_table(r.categories())
    _emit(text, args.out)
    return 130 if r.info.interrupted else 0


def _group_table(df, names):
    """One row per seat: each part as "41.0% [40.6, 41.5]"."""
    import pandas as pd

    cols = {"seat": df.seat}
    for n in names:
        cols[n] = [f"{_num(100 * m, 1)}% [{_num(100 * lo, 1)}, {_num(100 * hi, 1)}]"
                   for m, lo, hi in zip(df[n], df[f"{n}_ci_low"], df[f"{n}_ci_high"])]
    return pd.DataFrame(cols)


def cmd_compare(args) -> int:
    from simcore import compare

    r = compare(args.variant, args.players, _deals(args), a=args.a, b=args.b, precision=args.precision,
                **_common(args))
    d = r.to_dict()
    header = (f"{_title(r)}, {r.n_players} players, seat {r.seat}: a={r.a} vs b={r.b}; field {r.field}; "
              f"{d['deals']:,} paired deals, seed {r.seed}")
    _emit(_render(args.format, r.table(), d, header, r), args.out)
    return 130 if r.info.interrupted else 0


def cmd_analyze(args) -> int:
    from simcore import analyze

    kw = _common(args)
    hand, board = kw.pop("hand"), kw.pop("board")
    if hand is None:
        raise ValueError("analyze needs --hand (the hero seat's cards)")
    r = analyze(args.variant, args.players, hand, board, decision=args.decision, n_deals=_deals(args),
                min_deals=args.min_deals, hero=args.hero, stop_early=not args.no_stop, **kw)
    d = r.to_dict()
    verdict = "best separated at 95%" if r.separated else "NOT separated at 95% (more --deals?)"
    header = (f"{_title(r)}, {r.n_players} players, seat {r.seat}, hand {hand}"
              + (f", board {board}" if board else "")
              + (f", decision {r.decision}" if r.decision else "")
              + (f" (round {r.round + 1})" if r.round is not None else "")
              + f": {d['deals']:,} deals, {len(r.labels)} actions tried, {verdict}"
              + "".join(f"\n{line}" for line in r.conditions))
    cols = ["action", "share", "ci_low", "ci_high", "diff_vs_best", "diff_ci_low", "diff_ci_high"]
    df = r.table()
    if args.format == "csv":
        _emit(_render(args.format, df, d, header, r), args.out)
        return 130 if r.info.interrupted else 0
    shown = df[cols]
    if args.format in ("table", "markdown") and len(df) > ANALYZE_SHOWN + 2:
        # Many actions (Sviten's 32 draws): the best ones, and how many more there are.
        shown = shown.head(ANALYZE_SHOWN)
        header += f"\nthe best {ANALYZE_SHOWN} of {len(df)} (--format csv or json lists every action)"
    _emit(_render(args.format, shown, d, header, r), args.out)
    return 130 if r.info.interrupted else 0


def cmd_strategies(args) -> int:
    from simcore.variants import all_variants, get_variant

    vs = [get_variant(args.variant)] if args.variant else list(all_variants().values())
    data = [_strategies_json(v) for v in vs]
    if _wants_json(args):
        print(json.dumps(data, indent=2))
        return 0
    for v in data:  # the text: the same data, printed
        print(f"{v['variant']}: {v['title']} ({v['min_players']}-{v['max_players']} players)")
        if not v["decisions"]:
            print("  no decisions (every deal plays itself out)")
        for d in v["decisions"]:
            print(f"  {d['name']}: {d['description']}")
            for p in d["policies"]:
                mark = " (default)" if p["name"] == d["default"] else ""
                print(f"    {p['name']:<18} {p['description']}{mark}")
        _print_shipped(v)
        print()
    return 0


def _strategies_json(v) -> dict:
    """What ``pvsim strategies`` says of ``v``, as data: each decision's policies, and each shipped
    solved table with its exploitability rows and verdict (:func:`strategies.solved.exploitability`)."""
    from simcore import api
    from strategies.solved import exploitability, shipped_tables

    decisions = [{"name": d.name, "description": d.description, "default": api.default_policy(v, d.name),
                  "policies": [{"name": n, "description": e.description}
                               for n, e in api.policies(v, d.name).items()]} for d in v.decisions]
    tables = [{"players": tf.n_players, "options": dict(tf.options), "abstraction": tf.abstraction,
               "decisions": list(tf.decisions), "file": os.fspath(tf.path), "exploitability": exploitability(tf)}
              for tf in (shipped_tables(v.name) if v.decisions else ())]
    return {"variant": v.name, "title": v.title, "min_players": v.min_players, "max_players": v.max_players,
            "decisions": decisions, "solved_tables": tables}


def _print_shipped(v: dict) -> None:
    """The solved tables shipped for a variant (the policy ``solved``), with their exploitability, from
    :func:`_strategies_json`'s data."""
    from strategies.solved import format_exploitability, format_options

    if not v["decisions"]:
        return
    if not v["solved_tables"]:
        print("  solved tables shipped: none (make one with `pvsim solve " + v["variant"] + " --players P`)")
        return
    print("  solved tables shipped (policy `solved`):")
    for t in v["solved_tables"]:
        opts = f" ({format_options(t['options'])})" if t["options"] else ""
        first, *rest = format_exploitability(t["exploitability"])
        print(f"    {t['players']} players{opts}, {t['abstraction']} buckets, {'+'.join(t['decisions'])}: {first}")
        for line in rest:
            print("      " + line)


def cmd_eval(args) -> int:
    from simcore import describe_hand, evaluate_hand, format_cards, parse_cards

    several = len(args.hands) > 1
    for i, text in enumerate(args.hands, 1):
        where = f"hand {i} of {len(args.hands)} ({text!r})" if several else repr(text)
        try:
            cards = parse_cards(text)
        except ValueError as e:
            raise ValueError(f"hand {i} of {len(args.hands)}: {e}" if several else str(e)) from None
        if not 5 <= len(cards) <= 7:
            raise ValueError(f"{where} has {len(cards)} card{'' if len(cards) == 1 else 's'}; "
                             f"a hand to evaluate has 5 to 7 cards")
        v = evaluate_hand(cards)
        print(f"{format_cards(cards):<22} {describe_hand(v):<32} value {v}")
    return 0


def cmd_demo(args) -> int:
    import time

    import numpy as np

    import simcore
    from simcore import describe_hand, evaluate_hand, evaluate_hands

    print("pvsim demo: a few hands, evaluated and described\n")
    for text in ("As Ks Qs Js Ts 2d 3c", "Ks Kh Kd 9s 9d 2c 7h", "As Ks Qs Jd Td 2c 2h",
                 "Qs Qd 5c 5h 2s 8d 9c", "Ah 2d 3c 4s 5h Kd Kc", "7c 7d 7h 2s 3d 9c Jh"):
        v = evaluate_hand(text)
        print(f"  {text:<24} {describe_hand(v)}")
    n = args.hands
    rng = np.random.default_rng(0)
    hands = rng.random((n, 52)).argpartition(7, axis=1)[:, :7].astype(np.int8)
    evaluate_hands(hands[:100], threads=1)  # compile / load from cache
    for threads in sorted({1, simcore.engine.executors.default_workers()}):
        best = float("inf")
        for _ in range(3):
            t = time.perf_counter()
            evaluate_hands(hands, threads=threads)
            best = min(best, time.perf_counter() - t)
        print(f"\n7-card evaluations: {n / best / 1e6:,.0f} million per second on {threads} thread(s)", end="")
    print()
    r = simcore.simulate("holdem", 2, 400_000, seed=1, hand="Ah Ad", progress=False)
    t = r.table()
    print(f"\nA♥A♦ against one random hand: share {t.share[0]:.4f} "
          f"(95% CI {t.ci_low[0]:.4f}-{t.ci_high[0]:.4f}); exact 0.852037")
    return 0


def cmd_bench(args) -> int:
    import subprocess

    # A process, not an import: the experiments build on simcore, not the other way.
    rest = [a for a in args.args if a != "--"]
    return subprocess.call([sys.executable, "-m", "experiments.bench_evaluator", *rest])


def cmd_variants(args) -> int:
    from simcore.variants import all_variants

    for v in all_variants().values():
        names = ", ".join(d.name + (f" (x{d.rounds})" if d.rounds > 1 else "") for d in v.decisions) or "none"
        print(f"{v.name:<10} {v.title:<22} {v.min_players}-{v.max_players} players; decisions: {names}")
        for o in v.options:
            kind = "switch" if isinstance(o.default, bool) else f"default {o.default}"
            choices = f" ({'|'.join(map(str, o.choices))})" if o.choices else ""
            print(f"{'':<10} --{o.name}{choices}: {o.help} [{kind}]")
    return 0


def _fit_kw(args, command: str) -> dict:
    """The keywords exploit and solve take beside their own (``block_size`` when given); a
    situation flag is an error naming it, since both play random deals."""
    fields = _prefixed(args, "field_")
    if fields:
        flag = "--" + next(iter(fields)).replace("_", "-")
        raise ValueError(f"{flag}: {command} plays random deals; it takes no situation")
    return {} if args.block_size is None else {"block_size": args.block_size}


def cmd_exploit(args) -> int:
    import json

    from simcore.exploit import exploit

    kw = _fit_kw(args, "exploit")
    if args.out:
        _check_out(args.out)
    r = exploit(args.variant, args.players, args.field, seat=args.seat, deals=args.deals,
                eval_deals=args.eval_deals, precision=args.precision, abstraction=args.abstraction,
                seed=args.seed, options=_prefixed(args, "opt_") or None, min_visits=args.min_visits,
                passes=args.passes, confidence=args.confidence, start=args.start, rollout=args.rollout,
                validate=args.validate, fit=args.fit,
                rollout_deals=args.rollout_deals,
                executor=args.executor, workers=args.workers, scheduler=args.scheduler, checkpoint=args.checkpoint,
                resume=args.resume, checkpoint_every=args.checkpoint_every, out=args.out,
                progress=False if args.no_progress else None, **kw)
    print(json.dumps(r.to_dict(), indent=2) if _wants_json(args) else r.text())
    return 130 if r.interrupted else 0


def cmd_solve(args) -> int:
    import json

    from simcore.solve import solve

    kw = _fit_kw(args, "solve")

    def report(e):
        moved = f", moved {e['moved']:.4f}" if e.get("moved") is not None else ""
        print(f"iteration {e['iteration']}: seat {e['seat']} BR gain {e['gain']:.4f} [{e['ci_low']:+.4f}, "
              f"{e['ci_high']:+.4f}]{moved} ({e['seconds']:.1f} s)", file=sys.stderr, flush=True)

    kw["callback"] = None if _wants_json(args) else report
    r = solve(args.variant, args.players, iterations=args.iterations, target=args.target,
              abstraction=args.abstraction, deals_per_iteration=args.deals, eval_deals=args.eval_deals,
              seed=args.seed, options=_prefixed(args, "opt_") or None, init=args.init, passes=args.passes,
              confidence=args.confidence, validate=args.validate, method=args.method,
              measure_every=args.measure_every, start_weight=args.start_weight, keep=args.keep, fit=args.fit,
              executor=args.executor, workers=args.workers, scheduler=args.scheduler, checkpoint=args.checkpoint,
              resume=args.resume, out=args.out, progress=False if args.no_progress else None, **kw)
    print(json.dumps(r.to_dict(), indent=2) if _wants_json(args) else r.text())
    return 130 if r.interrupted else 0


COMMANDS = {
    "simulate": cmd_simulate, "compare": cmd_compare, "analyze": cmd_analyze,
    "solve": cmd_solve, "strategies": cmd_strategies, "eval": cmd_eval, "demo": cmd_demo, "bench": cmd_bench,
    "variants": cmd_variants, "exploit": cmd_exploit,
}


def _json_flags(p) -> None:
    """exploit and solve: a text report or JSON (``--format json``, as the run commands take it, or ``--json``)."""
    p.add_argument("--format", "-f", choices=("table", "json"), default="table",
                   help="output format: the text report (default) or json")
    p.add_argument("--json", action="store_true", help="print the result as JSON (the same as --format json)")


def _wants_json(args) -> bool:
    return args.json or args.format == "json"


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(_join_seat_values(list(sys.argv[1:] if argv is None else argv)))
    if not args.command:
        parser.print_help()
        return 0
    try:
        _check_flags(args)
        return COMMANDS[args.command](args)
    except ValueError as e:  # bad input: one clear line, no traceback
        _print_partial(e)
        print(f"pvsim {args.command}: error: " + "; ".join(str(e).splitlines()), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("pvsim: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader stopped reading (`pvsim strategies estonian | head`): not an error
        # the interpreter flushes stdout at exit: point it at devnull so that flush cannot fail again
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):  # a stdout with no file descriptor (captured): nothing to flush there
            pass
        return 128 + 13  # what a command that SIGPIPE stopped returns
    except OSError as e:  # the file system said no (a path, the disk): not a bug
        _print_partial(e)
        print(f"pvsim {args.command}: error: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # a bug of ours: the traceback, and a request to report it
        import traceback

        _print_partial(e)
        traceback.print_exc()
        print(f"pvsim {args.command}: internal error ({type(e).__name__}): this is a bug in pvsim, not in "
              f"what you typed; please report it with the command line and the traceback above",
              file=sys.stderr)
        return 1


def _print_partial(e: BaseException) -> None:
    """The blocks a run finished before an error, on stderr (never lost)."""
    partial = getattr(e, "partial_result", None)
    if partial is not None and partial.info.n_deals:
        print(f"finished before the error ({partial.info.n_deals:,} deals):\n"
              + _fmt_table(partial.table()), file=sys.stderr)


def _check_flags(args) -> None:
    """Flags a run cannot use, named with their values before any work is done."""
    def at_least(flag, value, low):
        if value is not None and value < low:
            raise ValueError(f"{flag} must be at least {low}, got {value}")

    at_least("--seed", getattr(args, "seed", None), 0)
    at_least("--deals", getattr(args, "deals", None), 1)
    at_least("--block-size", getattr(args, "block_size", None), 1)
    at_least("--min-deals", getattr(args, "min_deals", None), 0)
    at_least("--eval-deals", getattr(args, "eval_deals", None), 1)
    at_least("--start-weight", getattr(args, "start_weight", None), 0)
    at_least("--measure-every", getattr(args, "measure_every", None), 1)
    if getattr(args, "measure_every", None) is not None and getattr(args, "method", "cfr") != "cfr":
        raise ValueError(f"--measure-every {args.measure_every} is for --method cfr: fictitious play "
                         f"(--method {args.method}) measures every iteration")
    if getattr(args, "validate", False) and getattr(args, "deals", None) is not None:
        from simcore.engine.blocks import DEFAULT_BLOCK
        from simcore.engine.checks import check_validate_blocks

        block = args.block_size if getattr(args, "block_size", None) is not None else DEFAULT_BLOCK
        check_validate_blocks(True, args.deals, block, "--deals", "--block-size", "--validate")
    if args.command == "demo":
        at_least("--hands", args.hands, 1)
    precision = getattr(args, "precision", None)
    if precision is not None and not 0 < precision < math.inf:  # nan fails this too
        raise ValueError(f"--precision must be a positive, finite number, got {precision}")
    for key, value in vars(args).items():
        if key in ("hand", "board") or key.startswith("field_"):
            if value is not None and not value.strip():
                flag = "--" + key.removeprefix("field_").replace("_", "-")
                raise ValueError(f"{flag} is empty: give cards (e.g. \"As Ks 7d\"), or leave {flag} "
                                 f"out for random ones")
        if key in ("hero", "field", "a", "b") and value is not None and not value.strip(" ,"):
            raise ValueError(f"--{key} is empty: give a policy spec (e.g. pass=highest), or leave --{key} "
                             f"out for the defaults")
    _check_files(args)


def _check_files(args) -> None:
    """--out, --checkpoint and --resume, before any work: named files that can serve, and not one file twice."""
    from simcore.engine.checkpoint import check_path
    from simcore.engine.checks import same_file

    for flag in ("out", "checkpoint", "resume"):
        value = getattr(args, flag, None)
        if value is not None and not value.strip():
            raise ValueError(f"--{flag} is empty ({value!r}): give a file name"
                             + (", or leave --out out to print the result" if flag == "out" else ""))
    for flag in ("out", "checkpoint"):
        if getattr(args, flag, None):
            _check_out(getattr(args, flag), "--" + flag)
    for flag in ("checkpoint", "resume"):
        if getattr(args, flag, None):
            check_path(getattr(args, flag), "--" + flag, sized=False)  # each command's reader sizes its own
    out = getattr(args, "out", None)
    saved_to = getattr(args, "checkpoint", None) or getattr(args, "resume", None)
    if out and saved_to:
        flag = "--checkpoint" if getattr(args, "checkpoint", None) else "--resume"
        if same_file(out, saved_to):
            raise ValueError(f"--out {out!r} and {flag} {saved_to!r} are the same file: the output would "
                             f"destroy the checkpoint; give --out another file name")


if __name__ == "__main__":
    sys.exit(main())
