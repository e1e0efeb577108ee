"""Fictitious play or external-sampling MCCFR? Exact exploitability per CPU-second on Draw Duel.

Issue 21 asks ``pvsim solve`` to choose between fictitious play (FP, what
:func:`simcore.solve.solve` does) and external-sampling Monte Carlo CFR
(MCCFR) "by measured exploitability per CPU-minute". This script measures the
two on Draw Duel, the small test game whose exploitability is exact: the duel
is a test game (``tests/test_exploit_game.py``), and its exact best response
comes from enumerating all 5,040 deals (``tests/solve_exact.py``), so the
repository's ``tests/`` directory is put on ``sys.path`` to reuse both.

Draw Duel: deck 7, 2 players; each seat draws twice (keep or exchange for its
next spare) and then folds (0.3 points) or plays for the point (the higher card
takes it). Nothing of the other seat is seen. Information abstraction: one
bucket per information set (``history_abstraction(7)``); the buckets read only
the seat's own history, never the seat's index, so seat 0 and seat 1 with the
same history share a bucket, and one table serves both seats, as in pvsim.

- **MCCFR** (:class:`DuelMCCFR`): external sampling (Lanctot et al. 2009),
  written here for this game. One regret table per decision, shared by the two
  seats (the game is symmetric and the buckets carry no seat). An iteration
  traverses for seat 0 and then for seat 1 (the shared strategy is recomputed
  between them): it samples ``batch`` deals (chance) and, on each, the
  opponent's three actions from the current regret-matching strategy; it tries
  every action of the traverser at each of its own nodes (1 first draw, 2
  second draws, 4 stakes a deal) and adds each action's sampled counterfactual
  regret, summed over the batch. The average strategy is the standard one of
  external sampling: each opponent node visited adds the current strategy
  there. Regret matching is plain (negative regrets kept), the average uniform
  over iterations. Seeded by one ``numpy.random.Generator``: the same seed
  gives the same table.
- **FP**: pvsim's :func:`simcore.solve.solve` on one worker thread
  (``abstraction=history_abstraction(7)``, its default start: exchange under 4,
  play from 4; its default confidence 0.5), for three fitting budgets a BR
  stage (``--fp DEALS:ITERATIONS``: 5,000 and 20,000 deals for 60 iterations,
  100,000 for 24). Each iteration also measures the BR's gain on fresh deals;
  that measurement does not change the table, so it is kept small here
  (``--fp-eval-deals``, 1,024) so that both curves time the solving. The table
  after iteration ``t`` is read from the run's checkpoint in the callback (the
  checkpoint's write is counted in FP's time; its read and the exact evaluation
  are not).

For both, the exact exploitability of the average table (``Enumeration.gain``:
one seat's exact best-response gain against the table at the other seat) is
recorded against the process CPU seconds (``time.process_time``, every thread
of this process) spent solving; the exact evaluations are not counted. Several
seeds each; the report gives mean and range over seeds, and the CPU seconds
each method needs to reach exact gains of 0.01, 0.005 and 0.002. Beside them,
FP with exact (enumerated) best responses and solve's update gives FP's own
rate per iteration without sampling noise (iterations, not CPU time).

Outputs: ``results/solve/fp_vs_mccfr.txt`` (side-by-side table), ``.json``
(every curve point) and ``.png`` (the curves).

    nice -n 10 python -m experiments.bench_fp_mccfr

It runs numba's parallel kernels on one thread (``numba.set_num_threads(1)`` in
:func:`main`; importing the module changes nothing, so the tests that import it
keep their threads); CPU time, not wall time, is the figure, as other jobs may
share the machine.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from experiments.outputs import save_figure, write_json, write_text

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from test_exploit_game import DRAW, FOLD, STAKE, DrawDuel, history_abstraction  # noqa: E402

THRESHOLDS = (0.01, 0.005, 0.002)


def _history(cards, a0=None, a1=None):
    """(n, 5) history of a seat holding ``cards`` (n, 3) [dealt, spare 1, spare 2] after the given draws."""
    n = cards.shape[0]
    H = np.full((n, 5), -1, np.int64)
    H[:, 0] = cards[:, 0]
    if a0 is not None:
        c1 = np.where(a0 == 1, cards[:, 1], cards[:, 0])
        H[:, 1], H[:, 2] = a0, c1
        if a1 is not None:
            H[:, 3], H[:, 4] = a1, np.where(a1 == 1, cards[:, 2], c1)
    return H


def _add(acc, rows, values):
    """acc[rows] += values for (n,) rows and (n, 2) values, repeated rows summed."""
    nb = acc.shape[0]
    acc[:, 0] += np.bincount(rows, weights=values[:, 0], minlength=nb)
    acc[:, 1] += np.bincount(rows, weights=values[:, 1], minlength=nb)


def regret_matching(regret):
    """(nb, 2) strategy: positive regrets normalised, uniform where none is positive."""
    pos = np.maximum(regret, 0.0)
    s = pos.sum(axis=1, keepdims=True)
    return np.where(s > 0, pos / np.where(s > 0, s, 1.0), 0.5)


class DuelMCCFR:
    """External-sampling MCCFR for Draw Duel (2 players) over the history buckets, one table for both seats.

    Parameters
    ----------
    abst : {decision: abstraction} from ``history_abstraction(deck)``.
    deck : the duel's deck (card values 0 .. deck-1).
    batch : deals sampled per traversal (each iteration traverses once per seat).
    seed : seeds the one random generator (deals and the opponent's sampled actions).
    """

    def __init__(self, abst, deck: int = 7, batch: int = 256, seed: int = 0):
        if not isinstance(batch, int) or batch < 1:
            raise ValueError(f"batch must be a positive integer, got {batch!r}")
        if not isinstance(deck, int) or not 6 <= deck <= 20:
            raise ValueError(f"deck holds 6 to 20 values, got {deck!r}")
        self.abst, self.deck, self.batch = abst, deck, batch
        self.rng = np.random.default_rng(seed)
        self.regret = {d: np.zeros((abst[d].n_buckets, 2)) for d in (DRAW, STAKE)}
        self.avg_sum = {d: np.zeros((abst[d].n_buckets, 2)) for d in (DRAW, STAKE)}
        self.iterations = 0

    def _b(self, decision, H, round_=0):
        return self.abst[decision].buckets({"history": H}, round_)

    def deal(self, n):
        """(n, 2, 3) card values without replacement: [seat][dealt, spare 1, spare 2], every order equally likely."""
        perm = np.argsort(self.rng.random((n, self.deck)), axis=1)[:, :6]
        return perm.reshape(n, 2, 3)

    def strategy(self):
        return {d: regret_matching(r) for d, r in self.regret.items()}

    def _opponent(self, cards, sigma):
        """Sample the opponent's actions from ``sigma``; add sigma at its visited nodes to the average.
        Returns its final card (n,) and whether it plays (n,) bool."""
        n = cards.shape[0]
        H = _history(cards)
        k = self._b(DRAW, H, 0)
        _add(self.avg_sum[DRAW], k, sigma[DRAW][k])
        a0 = (self.rng.random(n) < sigma[DRAW][k, 1]).astype(np.int64)
        H = _history(cards, a0)
        k = self._b(DRAW, H, 1)
        _add(self.avg_sum[DRAW], k, sigma[DRAW][k])
        a1 = (self.rng.random(n) < sigma[DRAW][k, 1]).astype(np.int64)
        H = _history(cards, a0, a1)
        k = self._b(STAKE, H)
        _add(self.avg_sum[STAKE], k, sigma[STAKE][k])
        plays = self.rng.random(n) < sigma[STAKE][k, 1]
        return H[:, 4], plays

    def _traverse(self, mine, theirs):
        """One external-sampling traversal of the traverser holding ``mine`` (n, 3) on each deal."""
        sigma = self.strategy()
        opp_card, opp_plays = self._opponent(theirs, sigma)
        n = mine.shape[0]
        v2 = np.empty((n, 2))
        k2 = {}
        for a0 in (0, 1):
            A0 = np.full(n, a0)
            vs = np.empty((n, 2))
            for a1 in (0, 1):
                H = _history(mine, A0, np.full(n, a1))
                k = self._b(STAKE, H)
                u = np.empty((n, 2))
                u[:, 0] = FOLD
                # cards are distinct, so playing wins alone or against a lower card, and loses otherwise
                u[:, 1] = np.where(~opp_plays | (H[:, 4] > opp_card), 1.0, 0.0)
                v = (sigma[STAKE][k] * u).sum(axis=1)
                _add(self.regret[STAKE], k, u - v[:, None])
                vs[:, a1] = v
            k = self._b(DRAW, _history(mine, A0), 1)
            v = (sigma[DRAW][k] * vs).sum(axis=1)
            _add(self.regret[DRAW], k, vs - v[:, None])
            v2[:, a0] = v
            k2[a0] = k
        k = self._b(DRAW, _history(mine), 0)
        v = (sigma[DRAW][k] * v2).sum(axis=1)
        _add(self.regret[DRAW], k, v2 - v[:, None])

    def iterate(self, n_iterations: int = 1):
        """Run ``n_iterations`` iterations (a traversal for seat 0, then one for seat 1, each on fresh deals)."""
        for _ in range(int(n_iterations)):
            for seat in (0, 1):
                cards = self.deal(self.batch)
                self._traverse(cards[:, seat], cards[:, 1 - seat])
            self.iterations += 1
        return self

    def average(self):
        """{decision: (n_buckets, 2)} the average strategy; rows never visited stay all-zero (default policy)."""
        out = {}
        for d, s in self.avg_sum.items():
            tot = s.sum(axis=1, keepdims=True)
            out[d] = np.where(tot > 0, s / np.where(tot > 0, tot, 1.0), 0.0)
        return out


# -- the benchmark ------------------------------------------------------------------------------


def _checkpoints(last, per_decade=6):
    pts = np.unique(np.round(np.logspace(0, np.log10(last), per_decade * int(np.ceil(np.log10(last))) + 1)))
    return [int(p) for p in pts if p >= 1]


def run_mccfr(E, abst, seed, batch, cpu_budget, max_iterations):
    """[(iterations, cpu_s, exact gain)] at geometric iteration counts, until the CPU budget or the last count."""
    m = DuelMCCFR(abst, deck=7, batch=batch, seed=seed)
    points = [(0, 0.0, E.gain({d: np.full((abst[d].n_buckets, 2), 0.5) for d in abst}))]  # its start: uniform
    cpu = 0.0
    done = 0
    for target in _checkpoints(max_iterations):
        c0 = time.process_time()
        m.iterate(target - done)
        cpu += time.process_time() - c0
        done = target
        points.append((done, cpu, E.gain(m.average())))
        if cpu >= cpu_budget:
            break
    return points


def default_actions(abst, decision):
    """(n_buckets,) the duel's default policy's action in every history bucket (exchange under 4, play
    from 4, on the card held at that point): what FP's start plays there."""
    d = abst[decision].deck
    b = np.arange(abst[decision].n_buckets)
    if decision == DRAW:
        card = np.where(b < d, b, (b - d) % d)
        return (card < 4).astype(np.int64)
    return (b % d >= 4).astype(np.int64)


def played_table(abst, avg, start=None):
    """FP's average as a plain (n_buckets, 2) table: where solve keeps a row's start share (the start's
    weight in the average, played by the start itself), that share goes on the start's action, which
    is exact for the duel's start (one action per history bucket)."""
    out = {}
    for d, t in avg.items():
        t = np.array(t, dtype=np.float64)
        if start is not None and start.get(d) is not None:
            t[np.arange(len(t)), default_actions(abst, d)] += start[d]
        out[d] = t
    return out


def run_fp(E, abst, seed, deals, eval_deals, iterations):
    """[(iterations, cpu_s, exact gain)] after every FP iteration (the checkpoint's average table)."""
    from simcore.solve import load_checkpoint, solve

    points = [(0, 0.0, E.gain({d: np.zeros((abst[d].n_buckets, 2)) for d in abst}))]
    excluded = [0.0]
    with tempfile.TemporaryDirectory() as tmp:
        ck = Path(tmp) / "fp.ckpt"
        c0 = time.process_time()

        def cb(entry):
            t0 = time.process_time()
            state = load_checkpoint(ck)
            gain = E.gain(played_table(abst, state.avg, getattr(state, "start", None)))
            points.append((entry["iteration"] + 1, t0 - c0 - excluded[0], gain))
            excluded[0] += time.process_time() - t0

        solve("duel", 2, iterations=iterations, abstraction=abst, options={"deck": 7}, seed=seed,
              deals_per_iteration=deals, eval_deals=eval_deals, block_size=4096, executor="threads",
              workers=1, checkpoint=ck, callback=cb)
    return points


def exact_fp(E, abst, iterations):
    """[(iterations, exact gain)] of FP with exact best responses (enumerated) and solve's update: how
    fast FP itself converges here, without sampling noise."""
    from simcore.solve import update

    avg = {d: np.zeros((abst[d].n_buckets, 2)) for d in abst}
    weight = {d: np.zeros(abst[d].n_buckets, np.int64) for d in abst}
    points = [(0, E.gain(avg))]
    for t in range(1, iterations + 1):
        _, Q = E.best_response(avg)
        for d in abst:
            seen = ~np.isnan(Q[d][:, 0])
            br = np.where(seen & (Q[d][:, 1] != Q[d][:, 0]), np.argmax(np.nan_to_num(Q[d], nan=-1), axis=1), -1)
            choices = np.zeros((abst[d].n_buckets, 2))
            choices[np.arange(abst[d].n_buckets), default_actions(abst, d)] = 1
            update(avg[d], weight[d], br, seen.astype(np.int64), choices)
        points.append((t, E.gain(avg)))
    return points


def first_reach(points, eps):
    """CPU seconds at the first curve point with exact gain <= eps (None if never)."""
    for _, cpu, g in points:
        if g <= eps:
            return cpu
    return None


def summarise(label, runs):
    """Per method: CPU-s to reach each threshold (mean, min, max over seeds) and the best gain reached."""
    reach = {}
    for eps in THRESHOLDS:
        r = [first_reach(p, eps) for p in runs]
        reach[str(eps)] = {"cpu_s": r, "all_reached": all(x is not None for x in r)}
    best = [min(g for _, _, g in p) for p in runs]
    final = [p[-1] for p in runs]
    return {"label": label, "reach": reach, "best_gain": best, "final": final}


def _fmt_reach(r):
    vals = r["cpu_s"]
    got = [v for v in vals if v is not None]
    if not got:
        return "not reached"
    s = f"{np.mean(got):6.2f} [{min(got):.2f}, {max(got):.2f}]"
    if len(got) < len(vals):
        s += f" ({len(got)}/{len(vals)} seeds)"
    return s


def _curve_at(points, cpu):
    """The exact gain of the last point at or before ``cpu`` CPU-seconds (the table one would hold then)."""
    g = points[0][2]
    for _, c, gg in points:
        if c <= cpu:
            g = gg
    return g


def report(methods, grid):
    lines = []
    lines.append("Draw Duel (deck 7, 2 players, one bucket per information set): exact exploitability "
                 "(one seat's exact BR gain, points a deal)")
    lines.append("against process CPU seconds spent solving (exact evaluations not counted); "
                 "mean [min, max] over seeds.")
    lines.append("")
    lines.append("CPU-seconds to first reach an exact gain of")
    head = f"{'method':34s}" + "".join(f"{'<= ' + str(e):>32s}" for e in THRESHOLDS) + f"{'best gain reached':>32s}"
    lines.append(head)
    for m in methods:
        s = m["summary"]
        row = f"{m['label']:34s}" + "".join(f"{_fmt_reach(s['reach'][str(e)]):>32s}" for e in THRESHOLDS)
        b = s["best_gain"]
        row += f"{np.mean(b):.5f} [{min(b):.5f}, {max(b):.5f}]".rjust(32)
        lines.append(row)
    lines.append("")
    lines.append("Exact gain of the table held after a given CPU time (mean [min, max] over seeds)")
    lines.append(f"{'method':34s}" + "".join(f"{str(c) + ' CPU-s':>28s}" for c in grid))
    for m in methods:
        row = f"{m['label']:34s}"
        for c in grid:
            if any(p[-1][1] < c for p in m["runs"]):
                row += f"{'(run ended)':>28s}"
                continue
            g = [_curve_at(p, c) for p in m["runs"]]
            row += f"{np.mean(g):.5f} [{min(g):.5f}, {max(g):.5f}]".rjust(28)
        lines.append(row)
    return lines


def chart(methods, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, m in enumerate(methods):
        for j, p in enumerate(m["runs"]):
            xs = [c for _, c, _ in p[1:]]
            ys = [g for _, _, g in p[1:]]
            ax.plot(xs, ys, color=colours[i % len(colours)], alpha=0.8, lw=1.2,
                    label=m["label"] if j == 0 else None, marker="." if "FP" in m["label"] else None)
    for e in THRESHOLDS:
        ax.axhline(e, color="grey", lw=0.6, ls=":")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("process CPU seconds spent solving (1 thread)")
    ax.set_ylabel("exact exploitability (one seat's BR gain, points a deal)")
    ax.set_title("Draw Duel (deck 7, 2 players): FP (pvsim solve) vs external-sampling MCCFR")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3, which="both")
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    plt.close(fig)


def _differs(path) -> bool | None:
    """Whether ``path`` differs from the checkout's commit (FP's figures are those of the code that ran)."""
    import subprocess

    try:
        out = subprocess.run(["git", "status", "--porcelain", "--", path], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return bool(out.strip())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--batches", type=int, nargs="+", default=[64, 256, 1024],
                    help="MCCFR deals sampled per traversal")
    ap.add_argument("--mccfr-cpu", type=float, default=4.0, help="MCCFR CPU seconds per run (a curve stops after)")
    ap.add_argument("--mccfr-max-iterations", type=int, default=1_000_000)
    ap.add_argument("--fp", nargs="+", default=["5000:60", "20000:60", "100000:24"],
                    help="FP budgets DEALS:ITERATIONS (fitting deals a BR stage, iterations)")
    ap.add_argument("--fp-eval-deals", type=int, default=1_024)
    ap.add_argument("--exact-fp-iterations", type=int, default=120,
                    help="iterations of FP with exact (enumerated) best responses, for its own rate")
    ap.add_argument("--out", type=Path, default=ROOT / "results" / "solve" / "fp_vs_mccfr")
    args = ap.parse_args(argv)
    import numba

    numba.set_num_threads(1)  # one thread: CPU seconds compare like for like

    from solve_exact import Enumeration
    from test_exploit_game import register_duel, unregister_duel

    from experiments.provenance import git_commit, versions

    register_duel()
    try:
        abst = history_abstraction(7)
        E = Enumeration(DrawDuel(deck=7), abst)
        load0 = os.getloadavg()
        wall0 = time.perf_counter()
        methods = []
        for spec in args.fp:
            deals, _, its = spec.partition(":")
            deals, its = int(deals), int(its or 24)
            label = f"FP (pvsim solve, {deals:,} deals)"
            runs = []
            for seed in args.seeds:
                runs.append(run_fp(E, abst, seed, deals, args.fp_eval_deals, its))
                print(f"{label} seed {seed}: {runs[-1][-1][0]} iterations, {runs[-1][-1][1]:.2f} CPU-s, "
                      f"exact gain {runs[-1][-1][2]:.5f}", flush=True)
            methods.append({"label": label, "method": "fp", "deals": deals, "iterations": its,
                            "eval_deals": args.fp_eval_deals, "runs": runs})
        for batch in args.batches:
            label = f"MCCFR (external, batch {batch})"
            runs = []
            for seed in args.seeds:
                runs.append(run_mccfr(E, abst, seed, batch, args.mccfr_cpu, args.mccfr_max_iterations))
                print(f"{label} seed {seed}: {runs[-1][-1][0]} iterations, {runs[-1][-1][1]:.2f} CPU-s, "
                      f"exact gain {runs[-1][-1][2]:.5f}", flush=True)
            methods.append({"label": label, "method": "mccfr", "batch": batch, "runs": runs})
        for m in methods:
            m["summary"] = summarise(m["label"], m["runs"])
        xfp = exact_fp(E, abst, args.exact_fp_iterations)
        xfp_reach = {str(e): next((i for i, g in xfp if g <= e), None) for e in THRESHOLDS}
        grid = [0.25, 0.5, 1, 2, 4]
        lines = report(methods, grid)
        start = E.gain({d: np.zeros((abst[d].n_buckets, 2)) for d in abst})
        uniform = E.gain({d: np.full((abst[d].n_buckets, 2), 0.5) for d in abst})
        per_it = {m["label"]: float(np.mean([p[-1][1] / p[-1][0] for p in m["runs"]])) for m in methods
                  if m["method"] == "fp"}
        lines += ["", "FP with exact (enumerated) best responses and solve's update, no sampling: iterations to "
                  "reach " + ", ".join(f"{e}: {xfp_reach[str(e)] if xfp_reach[str(e)] is not None else 'not reached'}"
                                       for e in THRESHOLDS)
                  + f"; exact gain {xfp[-1][1]:.5f} after {xfp[-1][0]} iterations.",
                  "pvsim's FP, CPU-s an iteration: " + ", ".join(f"{k.split(', ')[1].rstrip(')')} {v:.3f}"
                                                              for k, v in per_it.items()) + "."]
        lines += ["", f"Starts: FP from the default policies (exchange under 4, play from 4), exact gain {start:.5f}; "
                  f"MCCFR from uniform play, exact gain {uniform:.5f}.",
                  f"FP: {', '.join(args.fp)} (deals:iterations), {args.fp_eval_deals:,} measuring deals an iteration, "
                  f"confidence 0.5 (solve's default), 1 worker thread; MCCFR: one shared regret table, "
                  f"a traversal per seat an iteration.",
                  f"Seeds {args.seeds}; load average {load0[0]:.2f} at the start, {os.getloadavg()[0]:.2f} "
                  f"at the end; {time.perf_counter() - wall0:.0f} s wall.",
                  "Command: nice -n 10 python -m experiments.bench_fp_mccfr"]
        text = "\n".join(lines)
        print(text)
        out = args.out
        out.parent.mkdir(parents=True, exist_ok=True)
        write_text(out.with_suffix(".txt"), text + "\n")
        doc = {"game": "duel", "deck": 7, "n_players": 2, "abstraction": "history (a bucket per information set)",
               "thresholds": list(THRESHOLDS), "seeds": args.seeds, "start_gain_fp": start,
               "start_gain_mccfr": uniform,
               "exact_fp": {"reach_iterations": xfp_reach,
                            "curve": [{"iterations": i, "exact_gain": g} for i, g in xfp]},
               "fp_cpu_s_per_iteration": per_it, "load_start": load0[0], "load_end": os.getloadavg()[0],
               "commit": git_commit(), "solve_py_differs_from_commit": _differs("simcore/solve.py"),
               "versions": versions(),
               "methods": [{k: v for k, v in m.items() if k != "runs"}
                           | {"curves": [[{"iterations": i, "cpu_s": c, "exact_gain": g} for i, c, g in p]
                                         for p in m["runs"]]} for m in methods]}
        write_json(out.with_suffix(".json"), doc, indent=1)
        chart(methods, out.with_suffix(".png"))
    finally:
        unregister_duel()


if __name__ == "__main__":
    main()
