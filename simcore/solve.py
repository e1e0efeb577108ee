"""Solving: fictitious play over an information abstraction, one mixed table shared by every seat.

:func:`solve` iterates best responses (:func:`simcore.exploit.exploit`) into a
near-equilibrium *mixed table*: per decision, a probability per (bucket,
canonical action), played by every seat (the games are symmetric up to seat;
the abstractions put the seat's position in the bucket where the order of play
matters).

- **The average.** Iteration ``t`` fits a best response (BR) of one seat,
  ``t mod P`` (the seats take turns), against a field that plays the current
  average table at every seat. The BR's action then enters the average of
  every bucket the fit visited with the bucket's own weight: a bucket updated
  ``n`` times before holds the mean of its initial play and ``n`` BRs, so
  ``new = old + (BR - old) / (n + 1)``. Where the BR keeps the field's play
  (too few visits, or no action ahead at the fit's confidence) its "action" is
  the average itself, so that bucket does not move.
- **The start.** Rows without an entry play ``init`` (the game's default
  policy unless given), which may read more than the bucket does. While the BRs
  keep the field's play in a row, the average there *is* ``init``, so the row
  stays empty; at the BR's first departure it takes the share of each action
  ``init`` chose in that bucket during the fit (what a table row can hold),
  then the BR.
- **Each iteration reports** the BR's gain over the average on fresh deals
  (exploit's measuring path: a lower bound on the table's exploitability at that
  seat, with its 95% interval) and how much probability moved (per decision:
  half the L1 change of each row, weighted by how often the fit visited it).
- **Ends** after ``iterations`` measurements, at ``target`` (the gain's upper
  95% end at or below it) or on Ctrl-C, keeping what it has. The table written
  is the one the last completed iteration measured, so its metadata's gain is
  its own (the checkpoint holds the average after that iteration's update, so
  that a resumed run continues as an uninterrupted one would); after an
  interruption it is the newest average (what a resume continues from), and
  says so (``table_measured`` False).
- **Reproducible.** Every iteration's seed is derived from ``seed`` and the
  iteration number; the fit is exploit's (same table at any worker count, on
  threads, processes or Dask); the update is deterministic numpy.
- **Checkpoint and resume** at iteration boundaries: the average, the weights,
  the iteration count, the log and the settings, in one file guarded by a
  SHA-256 of its body (a damaged or edited file is refused).

Why fictitious play and not external-sampling MCCFR: exploit already gives a
paired, variance-controlled BR fit over the same buckets, on every executor;
FP's table is the average of BRs and needs nothing else, while MCCFR would
need a regret traversal of its own per game. See docs/solving.md.
"""
from __future__ import annotations

import io
import json
import math
import os
import time
import zipfile
from dataclasses import dataclass, field as dc_field
from functools import partial

import numpy as np

from .abstraction import (NO_START, ask_fallback, draw_mixed, entries, entry_bits, rows_of, table_view_kind,
                          with_answers)
from .engine import is_pure
from .engine.checkpoint import frame, read_bytes, save_figure, unframe, write_atomic, write_json
from .engine.checks import (chart_format, check_deals, check_seed, check_validate_blocks, check_whole, check_writable,
                            is_real, same_file)
from .engine.stats import Z95

SOLVE_TAG = 0x534F4C56  # "SOLV": the solver's own seed domain
CHECKPOINT_FORMAT = b"pvsim-solve-checkpoint 1"
# the average and weight tables of the finest abstraction fit well under this (about 0.2 GB)
CHECKPOINT_MAX_BYTES = 1 << 30
DEFAULT_ITERATIONS = 20
DEFAULT_DEALS = 50_000
DEFAULT_EVAL_DEALS = 50_000
# The BR's departure test (exploit's ``confidence``): one-sided, Bonferroni over the other actions. At
# exploit's 95% a bucket keeps the average wherever no single departure is significant, so the start's
# play survives in many buckets of small, systematic loss (Estonian: the start's discard=best-made kept a
# +0.0022 deviation open after 32 iterations); at 50% (z = 0 for two actions, 0.67 for three) more noise
# enters each BR and averages out (Draw Duel, 12 iterations: exact gain 0.0091-0.0096 against 0.0123-0.0129).
DEFAULT_CONFIDENCE = 0.5


def iteration_seed(seed: int, t: int) -> int:
    """The seed of iteration ``t`` (its fit and measurement derive their own from it)."""
    ss = np.random.SeedSequence([int(seed), SOLVE_TAG, int(t)])
    return int(ss.generate_state(1, np.uint64)[0] >> np.uint64(1))


# -- the average as a policy ------------------------------------------------------------------


class MixedTable:
    """One decision of the average table as a strategy: a draw from the bucket's probabilities
    (from the seat's own stream: one uniform a row, every call), ``fallback`` where the bucket has
    no entry, and with the bucket's ``start`` share (the starting policy's weight in the average).
    ``source`` lets worker processes rebuild the abstraction by name."""

    ships_by_value = True  # a BR falling back to it ships it with itself (simcore.exploit.BRPolicy)
    shares_answers = True  # its buckets and its fallbacks ask a built-in once (abstraction.with_answers)
    # never changed once built: worker processes rebuild it once and every seat and task plays that
    # copy, as every seat plays this one (simcore.engine.executors, "shared")
    immutable = True

    def __init__(self, abstraction, probs: np.ndarray, fallback, source=None, start=None, rows=None):
        self.abstraction = abstraction
        self.probs = np.ascontiguousarray(probs, dtype=np.float64)
        self.fallback = fallback  # (label, fn)
        self._fallback_pure = is_pure(fallback[1])
        # a rowwise fallback is asked for the rows that miss (abstraction.ask_fallback)
        self._fallback_rows = rows_of(fallback[1], getattr(abstraction, "game", None),
                                      getattr(abstraction, "decision", None))
        self.source = source  # (variant name, options, decision, P, abstraction name) or None
        self.start = NO_START if start is None or not np.any(start) else np.ascontiguousarray(start, np.float64)
        # draw_mixed skips the buckets without one; ``rows``: those with one, where known (_unpack)
        if rows is None:
            has = self.probs.any(axis=1)
        else:
            has = np.zeros(len(self.probs), np.bool_)
            has[rows] = True
        self.entry = entry_bits(has)

    def __call__(self, obs, rng):
        from .exploit import _observe

        obs = with_answers(obs)
        legal = np.ascontiguousarray(obs["legal"], dtype=np.bool_)
        n, A = legal.shape
        b, canon = _observe(self.abstraction, obs, int(obs.get("round", 0)), n, A)
        out, miss = np.empty(n, np.int64), np.empty(n, np.bool_)
        draw_mixed(b, np.ascontiguousarray(canon), self.probs, legal, rng.random(n), out, miss, self.start,
                   entries(self.entry))
        ask_fallback(self.fallback[1], obs, rng, miss, out, self._fallback_pure, self._fallback_rows)
        return out

    def seat_view_kind(self, n_players: int) -> str | None:
        """``simcore.abstraction.seat_view_kind``: one uniform a row, then the fallback's draws."""
        return table_view_kind(self.abstraction, True, self.fallback[1], n_players)

    def __reduce__(self):
        # Travels as its rows with an entry: declared bucket counts run to millions, visited ones far fewer.
        packed = _pack(self.probs, self.start)
        if self.source is None:
            return _unpack_mixed, (self.abstraction, packed, self.fallback)
        return _rebuild_mixed, (self.source, packed, self.fallback[0])


def _pack(probs: np.ndarray, start: np.ndarray):
    rows = np.flatnonzero(probs.any(axis=1))
    return probs.shape, rows, probs[rows], (start[rows] if len(start) else None)


def _unpack(packed):
    shape, rows, vals, st = packed
    probs = np.zeros(shape)
    probs[rows] = vals
    start = None
    if st is not None:
        start = np.zeros(shape[0])
        start[rows] = st
    return probs, start


def _unpack_mixed(abstraction, packed, fallback):
    probs, start = _unpack(packed)
    return MixedTable(abstraction, probs, fallback, start=start, rows=packed[1])


def _rebuild_mixed(source, packed, fallback_label):
    from . import abstraction as abstraction_module
    from .api import _registry
    from .variants import get_variant

    name, opts, decision, n_players, abs_name = source
    v = get_variant(name, **opts)
    abst = abstraction_module.get_abstraction(v, decision, n_players, abs_name)
    probs, start = _unpack(packed)
    return MixedTable(abst, probs, _registry().resolve(v, decision, fallback_label), source, start, packed[1])


# -- state, log, result ----------------------------------------------------------------------


SETTINGS = ("game", "options", "n_players", "abstraction", "buckets", "seed", "init", "deals", "eval_deals",
            "passes", "min_visits", "confidence", "block_size", "validate", "method", "measure_every",
            "start_weight", "fit")
CFR_ARRAYS = ("regret", "sum", "sum_start")
SETTING_DEFAULTS = {"method": "fp", "start_weight": 1, "fit": "backward"}
METHODS = ("fp", "cfr")
KEEPS = ("measured", "newest")  # the table a finished fictitious-play run keeps
ALGORITHMS = {"fp": "fictitious play", "cfr": "sampled CFR+ (linear averaging)"}


@dataclass
class SolveState:
    """What an iteration boundary needs to go on: the settings, the average table (per decision
    (n_buckets, n_actions), all-zero rows = no entry), each bucket's weight (terms averaged in),
    the number of iterations done and their log."""

    settings: dict
    avg: dict
    weight: dict
    iteration: int = 0
    log: list = dc_field(default_factory=list)
    # per decision (n_buckets,): the starting policy's share of each row (the row's probabilities
    # sum to 1 less it); None: no row holds one (a checkpoint of an older pvsim)
    start: dict | None = None
    # method "cfr": {"regret": {d: (n_buckets, n_actions)}, "sum": {d: same}, "sum_start": {d: (n_buckets,)}}
    cfr: dict | None = None


@dataclass
class SolveResult:
    variant: str
    n_players: int
    options: dict
    abstraction: str
    seed: int
    init: str
    unit: str
    iterations: int  # iterations completed (BR fits measured)
    log: list  # one dict per iteration
    tables: dict  # {decision: (n_buckets, n_actions) float64}: the table kept
    stopped: str  # "iterations", "target", "interrupted"
    target: float | None = None
    # True: ``tables`` is the table log[-1] measured; False (an interruption, or nothing left to do
    # on resume): the newest average, which took log[-1]'s BR in and is not measured itself
    table_measured: bool = True
    seconds: float = 0.0
    files: dict = dc_field(default_factory=dict)
    starts: dict = dc_field(default_factory=dict)  # {decision: (n_buckets,)}: the start shares kept
    method: str = "fp"
    validate: bool = False
    start_weight: int = 1
    fit: str = "backward"  # fp: how each BR was fitted (simcore.exploit's fit)
    checkpoint: str | None = None  # the file that holds the newest average (the run's checkpoint), if any

    LABEL = "lower bound on exploitability (one seat's best-response gain)"

    @property
    def interrupted(self) -> bool:
        return self.stopped == "interrupted"

    @property
    def last(self) -> dict | None:
        return self.log[-1] if self.log else None

    @property
    def brs_in_table(self) -> int | None:
        """Fictitious play: how many BRs the table kept averages. The table a run ends with is the
        one its last iteration measured, which took in every BR but that iteration's own, so a run
        of N iterations keeps N - 1 (a 1-iteration run keeps its start, nothing of the BR it fitted);
        after an interruption it is the newest average, with all of them. None for CFR."""
        if self.method != "fp":
            return None
        if self.table_measured and self.last is not None:
            return int(self.last["iteration"])
        return int(self.iterations)

    def kept_note(self) -> str | None:
        """A line saying what the table kept holds, when a fictitious-play run could mislead: a
        table that leaves out the BR the run fitted last (its departures are in the checkpoint)."""
        k = self.brs_in_table
        if k is None or not self.table_measured or self.last is None:
            return None
        n = self.iterations
        if self.checkpoint is not None:
            where = (f"in the checkpoint {self.checkpoint} (a resume with --iterations {n} keeps it, unmeasured, "
                     f"and one with --iterations {n + 1} measures it)")
        else:  # nothing saved it: the run's own options are the way to it
            where = (f"in no file, since the run saved no checkpoint (--keep newest keeps it, unmeasured; "
                     f"--iterations {n + 1} measures it)")
        if k == 0:
            return (f"the table kept is the start itself: iteration 0 measured it, and its BR's departures "
                    f"are only in the newest average, {where}")
        note = (f"the table kept averages {k} of the {n} BRs fitted (the one iteration {k} measured); the newest "
                f"average, with the last BR, is {where}")
        if k < self.n_players:  # the BR left out, iteration k's, is the only one of seat k in the run
            note += (f". No other BR of this run is seat {k}'s: where the buckets hold the seat's position "
                     f"(Slovak, Sviten, Russian), seat {k}'s rows keep what the run started from")
        return note

    def to_dict(self) -> dict:
        from .engine.results import json_ready

        return json_ready({
            "variant": self.variant, "players": self.n_players, "options": dict(self.options),
            "abstraction": self.abstraction, "seed": self.seed, "init": self.init, "unit": self.unit,
            "label": self.LABEL, "method": self.method, "validate": self.validate,
            **({"start_weight": self.start_weight, "fit": self.fit} if self.method == "fp" else {}),
            "iterations": self.iterations, "stopped": self.stopped,
            "interrupted": self.interrupted, "target": self.target, "final": self.last,
            "table_measured": self.table_measured,
            **({"brs_in_table": self.brs_in_table} if self.brs_in_table is not None else {}),
            "log": self.log, "files": self.files, "seconds": round(self.seconds, 3),
        })

    def text(self) -> str:
        cfr = self.method == "cfr"
        lines = [f"{self.variant}, {self.n_players} players, abstraction {self.abstraction}, "
                 f"{ALGORITHMS['cfr' if cfr else 'fp']}"
                 f"{'' if cfr or self.fit == 'backward' else f' (BRs fitted {self.fit})'} from {self.init}, "
                 f"seed {self.seed}",
                 f"each {'measured ' if cfr else ''}iteration: a best response of one seat to the average table, "
                 f"its gain per deal in "
                 f"{self.unit} on fresh deals (a lower bound on exploitability; 95% interval), and the share "
                 "of probability mass the update moved:",
                 f"  {'iter':>4}  {'seat':>4}  {'BR gain':>9}  {'95% interval':>20}  {'moved':>7}  {'seconds':>7}"]
        for r in self.log:
            moved = f"{r['moved']:.4f}" if r.get("moved") is not None else "-"
            lines.append(f"  {r['iteration']:>4}  {r['seat']:>4}  {r['gain']:>9.4f}  "
                         f"[{r['ci_low']:+.4f}, {r['ci_high']:+.4f}]  {moved:>7}  {r['seconds']:>7.1f}")
        why = {"iterations": "the iteration count", "target": f"the target (gain at most {self.target})",
               "interrupted": "an interruption (Ctrl-C): the newest average is kept (every completed "
                              "iteration's update in it)"}
        lines.append(f"stopped by {why.get(self.stopped, self.stopped)} after {self.iterations} iterations, "
                     f"{self.seconds:.1f} s")
        if self.last is not None:
            r = self.last
            lines.append(f"last measurement (iteration {r['iteration']}, seat {r['seat']}): BR gain "
                         f"{r['gain']:.4f} [{r['ci_low']:+.4f}, {r['ci_high']:+.4f}] {self.unit} a deal, "
                         + ("of the table kept" if self.table_measured else
                            "of the table before its last update (the table kept took that BR in, unmeasured)"))
        note = self.kept_note()
        if note is not None:
            lines.append(note)
        for k, p in self.files.items():
            lines.append(f"{k} written to {p}")
        return "\n".join(lines)


# -- checkpoints -------------------------------------------------------------------------------


def save_checkpoint(path, state: SolveState) -> None:
    """Write ``state`` atomically: a format line, the SHA-256 of the body, the body (.npz bytes)."""
    buf = io.BytesIO()
    arrays = {}
    for d in state.avg:
        arrays[f"avg_{d}"] = state.avg[d]
        arrays[f"weight_{d}"] = state.weight[d]
        if state.start is not None:
            arrays[f"start_{d}"] = state.start[d]
        for k in CFR_ARRAYS if state.cfr is not None else ():
            arrays[f"{k}_{d}"] = state.cfr[k][d]
    meta = {"settings": state.settings, "iteration": state.iteration, "log": state.log,
            "decisions": list(state.avg)}
    np.savez_compressed(buf, meta=np.array(json.dumps(meta)), **arrays)
    body = buf.getvalue()
    write_atomic(path, frame(CHECKPOINT_FORMAT + b"\n", body))


def load_checkpoint(path) -> SolveState:
    """Read a solve checkpoint; a ValueError names the file and what is wrong with it."""
    path = os.fspath(path)
    raw = read_bytes(path, "solve checkpoint", CHECKPOINT_MAX_BYTES)  # a regular file, sized first
    body = unframe(raw, CHECKPOINT_FORMAT + b"\n", path, "solve checkpoint")
    if not zipfile.is_zipfile(io.BytesIO(body)):  # numpy would call it pickled data: say what it is not
        raise ValueError(f"solve checkpoint {path!r} is damaged: its body is not an .npz archive")
    try:
        with np.load(io.BytesIO(body), allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            avg = {d: z[f"avg_{d}"] for d in meta["decisions"]}
            weight = {d: z[f"weight_{d}"] for d in meta["decisions"]}
            start = ({d: z[f"start_{d}"] for d in meta["decisions"]} if f"start_{meta['decisions'][0]}" in z.files
                     else None)
            cfr = ({k: {d: z[f"{k}_{d}"] for d in meta["decisions"]} for k in CFR_ARRAYS}
                   if f"regret_{meta['decisions'][0]}" in z.files else None)
    except (ValueError, KeyError, IndexError, TypeError, OSError, EOFError, zipfile.BadZipFile) as e:
        raise ValueError(f"solve checkpoint {path!r} is damaged: its body is not the arrays a solve saves "
                         f"({type(e).__name__}: {e})") from None
    return SolveState(meta["settings"], avg, weight, int(meta["iteration"]), meta["log"], start, cfr)


def _check_resumed(state: SolveState, settings: dict, path) -> None:
    def get(s, k):  # a checkpoint from before a setting existed had its default
        return s.get(k, SETTING_DEFAULTS.get(k))

    diff = [k for k in SETTINGS if _norm(get(state.settings, k)) != _norm(get(settings, k))]
    if diff:
        text = "; ".join(f"{k} {get(state.settings, k)!r} there, {get(settings, k)!r} here" for k in diff)
        raise ValueError(f"solve checkpoint {os.fspath(path)!r} was made with other settings: {text}")


def _norm(x):
    return json.loads(json.dumps(x))


# -- the update --------------------------------------------------------------------------------


def update(avg: np.ndarray, weight: np.ndarray, br: np.ndarray, visits: np.ndarray, choices: np.ndarray,
           start: np.ndarray | None = None, start_weight: int = 1):
    """Mix one BR into one decision's average, in place; returns the visit-weighted share of
    probability mass moved.

    ``br``: (n_buckets,) canonical action, -1 = the field's play (no move); ``visits``: (n_buckets,)
    how often the fit saw each bucket; ``choices``: (n_buckets, n_actions) how often the field chose
    each canonical action there. ``weight[b]`` counts the terms averaged into row b (the start counts
    one). A row without an entry still plays the start itself, which may read more than the bucket
    does: while the BR keeps the field's play there, the average *is* the start, so the row stays
    empty (only its weight grows). At its first departure the start keeps its weight in the row:

    - with ``start`` ((n_buckets,), the start's share of each row, updated in place) as that
      share, played by the start itself, so the average is exact: the start's play in the
      bucket loses nothing of what it reads;
    - without it (a checkpoint of an older pvsim) as the start's share of each action in the
      bucket during the fit (``choices``), which is what a plain table row can hold.

    ``start_weight`` is how many terms the start counts for: 1 (the default) keeps half of it at
    the first departure; 0 is the textbook average of BRs alone, so a row's first departure
    replaces the start outright (and a row the BRs kept, which holds the start, counts one term).
    """
    rows = np.flatnonzero(visits)
    if len(rows) == 0:
        return 0.0
    held = start is not None
    b = br[rows]
    empty = avg[rows].sum(axis=1) == 0
    if held:
        empty &= start[rows] == 0
    lazy = rows[empty & (b < 0)]
    weight[lazy] = np.maximum(weight[lazy], start_weight) + 1
    fresh = rows[empty & (b >= 0)]
    if len(fresh):
        if held:
            start[fresh] = 1.0
        else:
            c = choices[fresh].astype(np.float64)
            s = c.sum(axis=1, keepdims=True)
            avg[fresh] = np.where(s > 0, c / np.maximum(s, 1), 1.0 / avg.shape[1])
        weight[fresh] = np.maximum(weight[fresh], start_weight)
    live = ~(empty & (b < 0))
    moved = np.zeros(len(rows))
    if live.any():
        r, bl = rows[live], b[live]
        old = avg[r].copy()
        target = old.copy()
        hit = bl >= 0
        target[hit] = 0.0
        target[np.flatnonzero(hit), bl[hit]] = 1.0
        w = weight[r].astype(np.float64)
        new = old + (target - old) / (w[:, None] + 1.0)
        if held:
            old_s = start[r].copy()
            new_s = old_s + (np.where(hit, 0.0, old_s) - old_s) / (w + 1.0)
            total = new.sum(axis=1) + new_s
            start[r] = new_s / total
        else:
            total = new.sum(axis=1)
        new /= total[:, None]
        avg[r] = new
        weight[r] += 1
        moved[live] = 0.5 * np.abs(new - old).sum(axis=1)
        if held:
            moved[live] += 0.5 * np.abs(start[r] - old_s)
    v = visits[rows].astype(np.float64)
    return float((moved * v).sum() / v.sum())


# -- the run ----------------------------------------------------------------------------------


def solve(game, n_players: int, *, iterations: int = DEFAULT_ITERATIONS, target=None, abstraction="coarse",
          deals_per_iteration: int = DEFAULT_DEALS, eval_deals: int = DEFAULT_EVAL_DEALS, seed: int = 0,
          options=None, init=None, passes: int = 1, min_visits: int | None = None, confidence: float | None = None,
          block_size: int = 1 << 14, executor=None, workers=None, scheduler=None, checkpoint=None, resume=None,
          out=None, chart=None, log_json=None, progress=False, callback=None, validate: bool = False,
          method: str = "fp", measure_every: int | None = None, start_weight: int = 1,
          keep: str = "measured", fit: str = "backward") -> SolveResult:
    """Fictitious play: iterate best responses into a mixed table every seat plays (module docstring).

    Parameters
    ----------
    game, options : the variant (name or object) and its rule options.
    n_players : players at the table.
    iterations : best-response fits (each measured); the table written is the last one measured.
    target : stop once a measured gain's upper 95% end is at most this (per deal, game's unit).
    abstraction : "coarse", "medium", "fine" (the game's own), one per decision
        ("exchange1=medium,exchange2=coarse") or {decision: Abstraction object}
        (then no table file can be written: a table file names its abstraction).
    deals_per_iteration : fitting deals per stage of each BR fit (exploit's ``deals``).
    eval_deals : fresh deals measuring each iteration's BR gain.
    seed : the run's seed; iteration t uses a seed derived from (seed, t).
    init : the policy spec of rows without an entry yet (default: the game's default policies).
    passes, min_visits, block_size : the BR fit's (see :func:`simcore.exploit.exploit`).
    confidence : the BR's departure test (default 0.5, not exploit's 0.95: see DEFAULT_CONFIDENCE).
    validate : each BR keeps only the departures that held-out fitting blocks confirm (exploit's
        ``validate``): fewer noise-chosen departures for the average to mix in.
    start_weight : fp: the terms the starting policy counts for in each row's average (default 1:
        a row's first departure takes half the row; 0: the average of the BRs alone, so the first
        departure takes all of it, for a stage that starts from a solved table).
    fit : fp: how each iteration's BR is fitted (:func:`simcore.exploit.exploit`'s ``fit``):
        "backward" (the default), or "one-play", every stage from one play of each deal with the
        field's own later play, a one-step improvement of the average: about 2x cheaper on
        Russian's 12 rounds. Its fixed points are the backward fit's (no stage of the average can
        be improved on its own, so no seat can improve it); each iteration's logged gain is then the
        one-step improvement's, a weaker lower bound.
    keep : fp: the table a finished run keeps: "measured" (default), the one its last iteration
        measured, so its gain is its own and N iterations keep N - 1 BRs; "newest", the average
        with every BR in, unmeasured (a 1-iteration stage that takes one BR whole keeps it, with no
        second BR fitted only to measure it). An interruption keeps the newest either way.
    method : "fp" (fictitious play, above) or "cfr": sampled counterfactual regret minimisation
        (:func:`_cfr_iteration`; CFR+ regrets, linearly weighted average), which measures the
        average table every ``measure_every`` iterations (default: the player count) and at the end.
    executor, workers, scheduler : where blocks run (as in :func:`simcore.simulate`).
    checkpoint : save the state here after every iteration; resume : start from such a file, and
        keep saving to it unless ``checkpoint`` names another (as :func:`simcore.simulate` does).
    out : write the table (``table:FILE`` plays it); chart / log_json default to ``out`` with
        ``.png`` / ``.json`` (the convergence chart and the iteration log).
    callback : called with each iteration's log entry (after it is checkpointed).
    """
    from .api import _registry, _variant
    from .exploit import DEFAULT_MIN_VISITS, check_fit, resolve_abstractions

    t_start = time.perf_counter()
    iterations = check_whole(iterations, 1, "iterations must be a positive integer")
    if target is not None and (not is_real(target) or not target > 0 or not math.isfinite(target)):
        raise ValueError(f"target must be a positive number (a gain per deal), got {target!r}")
    deals = check_deals(deals_per_iteration)
    eval_deals = check_deals(eval_deals)
    seed = check_seed(seed)
    passes = check_whole(passes, 1, "passes must be a positive integer")
    min_visits = DEFAULT_MIN_VISITS if min_visits is None else check_whole(
        min_visits, 1, "min_visits must be a positive integer")
    confidence = DEFAULT_CONFIDENCE if confidence is None else confidence
    if not is_real(confidence) or not 0 <= confidence < 1:
        raise ValueError(f"confidence must be a number in [0, 1), got {confidence!r}")
    if not isinstance(validate, (bool, np.bool_)):
        raise TypeError(f"validate must be True or False, got {validate!r}")
    check_validate_blocks(validate, deals, block_size, deals_name="deals_per_iteration")
    if callback is not None and not callable(callback):
        raise TypeError(f"callback must be callable, got {callback!r}")
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if measure_every is not None:
        measure_every = check_whole(measure_every, 1, "measure_every must be a positive integer")
        if method != "cfr":
            raise ValueError(f"measure_every is sampled CFR+'s (method 'cfr'); fictitious play (method {method!r}) "
                             f"measures every iteration, got measure_every {measure_every}")
    start_weight = check_whole(start_weight, 0, "start_weight must be a whole number, 0 or more")
    if keep not in KEEPS:
        raise ValueError(f"keep must be one of {', '.join(KEEPS)}, got {keep!r}")
    if keep != "measured" and method != "fp":
        raise ValueError(f"keep is fictitious play's (method 'fp'); method {method!r} keeps its measured table")
    fit = check_fit(fit)
    if fit != "backward" and method != "fp":
        raise ValueError(f"fit is fictitious play's (method 'fp'); method {method!r} got fit {fit!r}")
    if fit != "backward" and passes != 1:
        raise ValueError(f"fit 'one-play' plays the field at the deviator's other stages: passes must be 1, got {passes}")
    if start_weight != 1 and method != "fp":
        raise ValueError(f"start_weight is fictitious play's (method 'fp'); method {method!r} got {start_weight}")
    v = _variant(game, options)
    v.check_players(n_players)
    P = int(n_players)
    abs_name, absts = resolve_abstractions(v, P, abstraction)
    by_name = abs_name if isinstance(abstraction, str) else None
    if out is not None and by_name is None:
        raise ValueError("out: a table file names its abstraction, so it needs one of the game's own "
                         "(abstraction='coarse', 'medium' or 'fine'), not a dict of objects")
    for name, path in (("out", out), ("chart", chart), ("log_json", log_json), ("checkpoint", checkpoint)):
        if path is not None:  # before the work: never find out after it that the file cannot be written
            check_writable(path, name)  # a file name (TypeError otherwise) in a folder that can take it
    if resume is not None and not isinstance(resume, (str, os.PathLike)):
        raise TypeError(f"resume is a file name, got {resume!r}")
    if resume is not None and checkpoint is None:  # a resumed run goes on saving where it was saved
        checkpoint = resume
        check_writable(checkpoint, "resume")
    _check_distinct_files(out, chart, log_json, checkpoint, resume)
    if chart is not None:
        chart_format(chart)  # an image format's suffix: never a table solved and then no chart
    reg = _registry()
    init_seat = reg.lineup(v, P, init, init)[0]
    init_label = reg.spec_label(init_seat)
    decisions = [d.name for d in v.decisions]
    n_actions = {d: int(v.decision(d).n_actions) for d in decisions}
    # each decision's bucket count and abstraction version: a checkpoint of other buckets is refused
    buckets = {d: [int(absts[d].n_buckets), int(getattr(absts[d], "version", 0))] for d in decisions}
    settings = {"game": v.name, "options": dict(v.opts), "n_players": P, "abstraction": abs_name,
                "buckets": buckets, "seed": seed,
                "init": init_label, "deals": deals, "eval_deals": eval_deals, "passes": passes,
                "min_visits": min_visits, "confidence": float(confidence), "block_size": int(block_size)}
    if validate:  # only when on: checkpoints made before the option resume as they did
        settings["validate"] = True
    settings["method"] = method
    if start_weight != 1:  # only when set: checkpoints made before the option resume as they did
        settings["start_weight"] = start_weight
    if fit != "backward":  # only when set: checkpoints made before the option resume as they did
        settings["fit"] = fit
    if method == "cfr":
        measure_every = P if measure_every is None else measure_every
        settings["measure_every"] = measure_every
    if resume is not None:
        state = load_checkpoint(resume)
        _check_resumed(state, settings, resume)
        for d in decisions:
            want = (absts[d].n_buckets, n_actions[d])
            if state.avg.get(d) is None or state.avg[d].shape != want:
                raise ValueError(f"solve checkpoint {os.fspath(resume)!r}: its {d} table is not {want}")
    else:
        state = SolveState(settings, {d: np.zeros((absts[d].n_buckets, n_actions[d])) for d in decisions},
                           {d: np.zeros(absts[d].n_buckets, np.int64) for d in decisions},
                           start={d: np.zeros(absts[d].n_buckets) for d in decisions})
        if method == "cfr":
            state.cfr = {"regret": {d: np.zeros_like(state.avg[d]) for d in decisions},
                         "sum": {d: np.zeros_like(state.avg[d]) for d in decisions},
                         "sum_start": {d: np.zeros(absts[d].n_buckets) for d in decisions}}
    run = {"executor": executor, "workers": workers, "scheduler": scheduler}
    source = (lambda d: (v.name, dict(v.opts), d, P, by_name)) if by_name else (lambda d: None)
    stopped = "iterations"
    measured = None  # the table the last iteration of this call measured
    if state.log and target is not None and state.log[-1]["ci_high"] <= target:
        stopped = "target"
    try:
        while state.iteration < iterations and stopped != "target":
            t = state.iteration
            K = t % P
            t0 = time.perf_counter()
            step = _cfr_iteration if method == "cfr" else partial(_fp_iteration, start_weight=start_weight, fit=fit)
            nxt, entry, was = step(v, P, state, t, K, absts, abstraction, by_name, init_seat, source, deals,
                                   eval_deals, seed, block_size, run, progress,
                                   measure=method == "fp" or (t + 1) % measure_every == 0 or t + 1 == iterations,
                                   min_visits=min_visits, passes=passes, confidence=confidence, validate=validate)
            if entry is not None:
                entry["seconds"] = time.perf_counter() - t0
            # one assignment: an interruption leaves the state of one iteration boundary or the next
            state, measured = nxt, (was if was is not None else measured)
            if checkpoint is not None:
                save_checkpoint(checkpoint, state)
            if entry is not None:
                if target is not None and entry["ci_high"] <= target:
                    stopped = "target"
                if callback is not None:
                    callback(entry)
    except KeyboardInterrupt:
        stopped = "interrupted"
    kept_measured = measured is not None and stopped != "interrupted" and keep == "measured"
    tables, starts = measured if kept_measured else (state.avg, state.start)
    result = SolveResult(v.name, P, dict(v.opts), abs_name, seed, init_label, v.payoff_unit, state.iteration,
                         list(state.log), tables, stopped, target, table_measured=kept_measured,
                         starts={d: x for d, x in (starts or {}).items() if x.any()}, method=method,
                         validate=bool(validate), start_weight=start_weight, fit=fit,
                         checkpoint=os.fspath(checkpoint) if checkpoint is not None else None)
    result.seconds = time.perf_counter() - t_start
    if out is not None:
        write_outputs(result, out, chart, log_json)
    else:
        if chart is not None:
            result.files["chart"] = convergence_chart(result, chart)
        if log_json is not None:
            result.files["log"] = os.fspath(log_json)  # before the log is written: it lists itself
            _write_json(result, log_json)
    return result


def _fp_iteration(v, P, state: SolveState, t, K, absts, abstraction, by_name, init_seat, source, deals, eval_deals,
                  seed, block_size, run, progress, *, measure, min_visits, passes, confidence, validate,
                  start_weight, fit="backward"):
    """One iteration of fictitious play for seat ``K`` (every iteration is measured: the BR it mixes
    in is the one it measures); returns (the next state, the log entry, (average, start shares)
    measured). The update works on copies: the next state holds the updated average (what the
    next iteration plays, so a resumed run is the uninterrupted one), the result the one measured."""
    from .exploit import exploit

    decisions = list(state.avg)
    field = {d: (f"fp-average[{d}]", MixedTable(absts[d], state.avg[d], init_seat[d], source(d),
                                                None if state.start is None else state.start[d]))
             for d in decisions}
    r = exploit(v, P, field, seat=K, deals=deals, eval_deals=eval_deals, abstraction=abstraction,
                seed=iteration_seed(seed, t), min_visits=min_visits, confidence=confidence,
                passes=passes, rollout=0, block_size=block_size, progress=progress, keep_stats="counts",
                validate=validate, top=0, fit=fit, **run)
    entry = _measured(r.seats[0], t, K, eval_deals)
    avg = {d: a.copy() for d, a in state.avg.items()}
    weight = {d: w.copy() for d, w in state.weight.items()}
    start = None if state.start is None else {d: x.copy() for d, x in state.start.items()}
    visits, choices = {}, {}
    for st in r.seats[0].stages:
        d, s = st.stage.decision, st.stats
        if d not in visits:
            visits[d], choices[d] = np.zeros(s.n_buckets, np.int64), np.zeros((s.n_buckets, s.n_actions), np.int64)
        s.add_to(visits[d], choices[d])
    total, moved = 0.0, 0.0
    for d in decisions:
        if d in visits:
            m = update(avg[d], weight[d], r.tables[K][d], visits[d], choices[d], None if start is None else start[d],
                       start_weight)
            n_vis = float(visits[d].sum())
            entry["moved_by_decision"][d] = m
            moved, total = moved + m * n_vis, total + n_vis
    entry["moved"] = moved / total if total else 0.0
    nxt = SolveState(state.settings, avg, weight, t + 1, state.log + [entry], start)
    return nxt, entry, (state.avg, state.start)


def _measured(rep, t: int, K: int, eval_deals: int) -> dict:
    """An iteration's log entry from the measuring BR's seat report (Ctrl-C while measuring: raised)."""
    if rep.eval_deals < eval_deals or getattr(rep, "interrupted", False):
        raise KeyboardInterrupt("interrupted while measuring")
    return {"iteration": t, "seat": K, "gain": rep.gain, "stderr": rep.stderr,
            "ci_low": rep.gain - Z95 * rep.stderr, "ci_high": rep.gain + Z95 * rep.stderr,
            "eval_deals": rep.eval_deals, "departure": {st.stage.name: st.departure_rate for st in rep.stages},
            "moved": None, "moved_by_decision": {}}


MEASURE_TAG = 0x4D454153  # "MEAS": CFR's measuring BR fits on other deals than the iteration's regrets


def _cfr_iteration(v, P, state: SolveState, t, K, absts, abstraction, by_name, init_seat, source, deals, eval_deals,
                   seed, block_size, run, progress, *, measure, min_visits, passes, confidence, validate):
    """One iteration of sampled CFR for seat ``K``; returns (the next state, the log entry or None,
    (average, start shares) measured or None).

    Every seat plays the current strategy: per bucket, regret matching over the canonical actions
    (probabilities in proportion to the positive regrets), and the starting policy itself where no
    regret is positive (it may read more than the bucket does). For each of seat ``K``'s stages,
    last to first, every legal action is played on the same deals with everything else (the other
    seats, chance, and the seat's own other stages) sampled from the current strategy: exploit's
    paired fit with an empty table. The paired differences ``x(a) - x(played)`` summed per bucket
    are a sample of the counterfactual regret of each action, weighted by how often the bucket is
    reached; they are added to the regrets, which are then floored at zero (CFR+). The average
    strategy takes the current one in with weight ``t + 1`` per visit (linear averaging), the
    starting policy's part as a start share. It differs from external-sampling MCCFR in one way:
    the seat's own later decisions are sampled from the current strategy rather than enumerated
    (enumerating them would cost the product of the stages' action counts a deal, not the sum).
    """
    from .exploit import FIT, FitBuffers, derived_seed, exploit, fit_stage, play_order

    cfr = state.cfr
    decisions = list(state.avg)
    sigma = {}
    for d in decisions:
        r = cfr["regret"][d]
        tot = r.sum(axis=1, keepdims=True)
        sigma[d] = np.divide(r, tot, out=np.zeros_like(r), where=tot > 0)
    seat = {d: (f"cfr-current[{d}]", MixedTable(absts[d], sigma[d], init_seat[d], source(d))) for d in decisions}
    lineup = [dict(seat) for _ in range(P)]
    stages = play_order(v, P, lineup, K)
    empty = {d: np.full(absts[d].n_buckets, -1, np.int64) for d in decisions}
    new = {k: {d: a.copy() for d, a in cfr[k].items()} for k in CFR_ARRAYS}
    visits = {d: np.zeros(absts[d].n_buckets) for d in decisions}
    w = float(t + 1)
    fseed = iteration_seed(seed, t)
    buffers = FitBuffers()  # each stage's sums are read before the next begins
    for i in reversed(range(len(stages))):
        st = stages[i]
        acc, _ = fit_stage(v, P, lineup, K, st, absts, by_name, empty, deals=deals, seed=derived_seed(fseed, FIT, K, 0, i),
                           block_size=block_size, run=run, progress=progress, buffers=buffers)
        d = st.decision
        rows = np.flatnonzero(acc.field_count)
        n = acc.field_count[rows].astype(np.float64)
        p = sigma[d][rows]
        new["sum"][d][rows] += w * n[:, None] * p
        new["sum_start"][d][rows] += w * n * (p.sum(axis=1) == 0)
        reg = new["regret"][d]
        reg += acc.diff
        np.maximum(reg, 0.0, out=reg)
        visits[d][rows] += n
    avg, start, moved_by = {}, {}, {}
    moved = total = 0.0
    for d in decisions:
        s, s0 = new["sum"][d], new["sum_start"][d]
        tot = s.sum(axis=1) + s0
        has = tot > 0
        avg[d] = np.zeros_like(s)
        start[d] = np.zeros_like(s0)
        avg[d][has] = s[has] / tot[has, None]
        start[d][has] = s0[has] / tot[has]
        rows = np.flatnonzero(visits[d])
        if len(rows):
            old_s = state.start[d][rows] if state.start is not None else 0.0
            ch = 0.5 * (np.abs(avg[d][rows] - state.avg[d][rows]).sum(axis=1) + np.abs(start[d][rows] - old_s))
            n = visits[d][rows]
            moved_by[d] = float((ch * n).sum() / n.sum())
            moved, total = moved + float((ch * n).sum()), total + float(n.sum())
    entry = None
    if measure:
        field = {d: (f"cfr-average[{d}]", MixedTable(absts[d], avg[d], init_seat[d], source(d), start[d]))
                 for d in decisions}
        r = exploit(v, P, field, seat=K, deals=deals, eval_deals=eval_deals, abstraction=abstraction,
                    seed=derived_seed(fseed, MEASURE_TAG), min_visits=min_visits, confidence=confidence,
                    passes=passes, rollout=0, block_size=block_size, progress=progress, validate=validate,
                    top=0, **run)
        entry = _measured(r.seats[0], t, K, eval_deals)
        entry.update(moved=moved / total if total else 0.0, moved_by_decision=moved_by)
    log = state.log + [entry] if entry is not None else state.log
    nxt = SolveState(state.settings, avg, state.weight, t + 1, log, start, new)
    return nxt, entry, ((avg, start) if measure else None)


def table_meta(result: SolveResult) -> dict:
    last = result.last or {}
    algorithm = ALGORITHMS[result.method]
    return {"made_by": "pvsim solve", "algorithm": algorithm, "seed": result.seed, "init": result.init,
            "iterations": result.iterations, "stopped": result.stopped,
            "measured_iteration": last.get("iteration"),
            "measured": ({k: last[k] for k in ("seat", "gain", "stderr", "ci_low", "ci_high", "eval_deals")}
                         if last and result.table_measured else None),
            **({"validate": True} if result.validate else {}),
            **({"start_weight": result.start_weight} if result.start_weight != 1 else {}),
            **({"fit": result.fit} if result.fit != "backward" else {})}


def output_paths(out=None, chart=None, log_json=None) -> dict:
    """The files a run writes: the table ``out``, and its chart and log (by default beside ``out``,
    its name with .png and .json); a part neither named nor implied by ``out`` is left out."""
    stem = os.path.splitext(os.fspath(out))[0] if out is not None else None
    paths = {"table": out,
             "chart": chart if chart is not None else (f"{stem}.png" if stem is not None else None),
             "log": log_json if log_json is not None else (f"{stem}.json" if stem is not None else None)}
    return {k: os.fspath(p) for k, p in paths.items() if p is not None}


def _check_distinct_files(out, chart, log_json, checkpoint, resume) -> None:
    """Before any work: no file is written twice, and no output lands on the checkpoint (a log named
    like it would replace it, and the resume would then fail)."""
    implied = {"chart": chart is None, "log": log_json is None}  # out's name with .png, .json
    named = {"table": "out (--out)", "chart": "the chart beside out (--out)" if implied["chart"] else "chart",
             "log": "the iteration log beside out (--out)" if implied["log"] else "log_json"}
    files = [(k, named[k], p) for k, p in output_paths(out, chart, log_json).items()]
    if resume is not None:  # read, then (unless checkpoint names another file) saved to
        files.append(("resume", "resume (--resume)", os.fspath(resume)))
    if checkpoint is not None and (resume is None or not same_file(checkpoint, resume)):
        files.append(("checkpoint", "checkpoint (--checkpoint)", os.fspath(checkpoint)))
    for i, (kind, what, path) in enumerate(files):
        for other_kind, other, path2 in files[:i]:
            if same_file(path, path2):
                own_name = other_kind == "table" and implied.get(kind)  # out itself ends .png or .json
                raise ValueError(f"{other} and {what} are the same file, {path2!r}: one would overwrite the "
                                 f"other; " + ("the chart and the log take out's name with .png and .json, so "
                                               "give out a name ending .npz" if own_name else "name them apart"))


def write_outputs(result: SolveResult, out, chart=None, log_json=None) -> dict:
    """The table (``table:FILE``), the convergence chart and the iteration log; returns their paths."""
    from strategies.table import save_table

    paths = output_paths(out, chart, log_json)
    files = {k: p for k, p in paths.items() if k != "chart" or result.log}  # no chart without a point
    result.files.update(files)  # before the log is written: it lists them
    save_table(paths["table"], game=result.variant, options=dict(result.options), n_players=result.n_players,
               abstraction=result.abstraction, tables=result.tables, fallback=result.init,
               meta=table_meta(result), starts=result.starts)
    if "chart" in files:
        convergence_chart(result, files["chart"])
    _write_json(result, files["log"])
    return files


def _write_json(result: SolveResult, path) -> str:
    path = os.fspath(path)
    write_json(path, result.to_dict())
    return path


def convergence_chart(result: SolveResult, path) -> str:
    """Exploitability (the BR gain, a lower bound) by iteration with 95% intervals (Agg backend)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    path = os.fspath(path)
    it = np.array([r["iteration"] for r in result.log])
    g = np.array([r["gain"] for r in result.log])
    lo = np.array([r["ci_low"] for r in result.log])
    hi = np.array([r["ci_high"] for r in result.log])
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.errorbar(it, g, yerr=[g - lo, hi - g], fmt="o-", ms=3, capsize=2, label="best-response gain (95% interval)")
    ax.axhline(0, color="grey", lw=0.8)
    if result.target is not None:
        ax.axhline(result.target, color="tab:red", ls="--", lw=0.8, label=f"target {result.target}")
    if len(it) <= 12:  # a tick at each measured iteration (one point alone would get fractional ones)
        ax.set_xticks(it)
    else:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # iterations are whole
    ax.set_xlabel("iteration (seat t mod P best-responds)")
    ax.set_ylabel(f"gain per deal ({result.unit})")
    ax.set_title(f"{result.variant} {result.n_players}p, {result.abstraction}: {ALGORITHMS[result.method]}"
                 + (f" (interrupted after {result.iterations} iteration{'s' if result.iterations != 1 else ''})"
                    if result.interrupted else ""))
    ax.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, path, dpi=100)  # the old chart or the whole new one; a PNG without matplotlib's version
    plt.close(fig)
    return path


__all__ = ["solve", "SolveResult", "SolveState", "MixedTable", "update", "save_checkpoint", "load_checkpoint",
           "iteration_seed", "convergence_chart", "write_outputs"]
