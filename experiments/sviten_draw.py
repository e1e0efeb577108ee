"""Sviten Special: how many cards to draw with what, when to keep an open card, and how the pot splits.

Run ``python -m experiments.sviten_draw [--full] [--threads K] [--seed S] [--out DIR]``.

Six studies, written to ``results/sviten/``; the paired ones play every
alternative on the same deals (same cards, same chance draws for recycling):

1. ``policies.csv`` / ``policies.png``: each draw policy in seat 0 (open
   answer ``improves``) against a field of ``draw=balanced,open=improves``,
   for 2 to 9 players, as a paired difference to ``pat``; and each open policy
   at 6 players (draw ``balanced``) against ``accept``.
2. ``draw_chart.csv`` / ``draw_chart.png``: how many cards to throw, by the
   own-five class of seat 0's dealt hand, at 6 players: throwing exactly k
   cards (the k that draw practice values least), k = 0..5, on the same deals.
3. ``open_chart.csv`` / ``open_chart.png``: the One Open thresholds: seat 0
   throws one card (the one draw practice values least), and keeping the open
   card is compared with refusing it on the same deals, by hand class and the
   open card's rank.
4. ``halves.csv`` / ``halves.png``: how the halves are won at 6 players with
   every seat on one draw policy: scoops, own-five half only, Omaha half only,
   and how often nobody scoops (the pot is split).
5. ``reshuffles.csv``: how often the stub is recycled, by table size and
   policy (all seats alike), during the draw and for the turn and river.

Quick mode (default) takes a few seconds on two cores; ``--full`` about
70 s (67 s measured on the quiet machine on 2026-12-01). ``provenance.json`` records the command, seeds, deal counts, git
commit, package versions and seconds of each study.
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from .cells import run_cells
from .outputs import save_figure, write_csv
from .paired import ci_columns, paired_rows, plot_paired_by_players, seat0_paired
from .studylog import open_study, study_parser

VARIANT = "sviten"
SEED = 2026
FIELD = "draw=balanced,open=improves"
DRAW_POLICIES = ["pat", "one-lowest", "random", "draw-poker", "omaha-flop", "balanced"]
OPEN_POLICIES = ["accept", "decline", "improves", "both-halves"]
RANKS = "23456789TJQKA"
CHART_PLAYERS = 6

QUICK = dict(policy_players=[2, 6, 9], policy_deals=16_000, open_deals=16_000, chart_deals=48_000,
             open_chart_deals=48_000, halves_deals=12_000, reshuffle_players=[5, 7, 9],
             reshuffle_deals=8_000)
FULL = dict(policy_players=list(range(2, 10)), policy_deals=200_000, open_deals=400_000,
            chart_deals=1_500_000, open_chart_deals=3_000_000, halves_deals=400_000,
            reshuffle_players=list(range(2, 10)), reshuffle_deals=200_000)
BLOCK = 1 << 13


def paired_blocks(P, lineups, forced, n_deals, seed, threads, reduce, keep_state=False):
    """Play every alternative (lineup, forced) on the same deals; reduce(cards, outcomes) per block,
    merged in block order (:func:`simcore.engine.map_alternatives`)."""
    from simcore.engine import map_alternatives
    from simcore.variants import get_variant

    return map_alternatives(get_variant(VARIANT), P, lineups, n_deals, reduce, seed=seed, forced=forced,
                            block_size=BLOCK, keep_state=keep_state, threads=threads)[0]


# -- 1. policies ----------------------------------------------------------------------------


def policy_table(players, n_deals, open_deals, seed, threads):
    import pandas as pd

    studies = [(P, "draw", DRAW_POLICIES, [f"draw={x},open=improves" for x in DRAW_POLICIES], n_deals, seed + P)
               for P in players]
    studies.append((CHART_PLAYERS, "open", OPEN_POLICIES, [f"draw=balanced,open={x}" for x in OPEN_POLICIES],
                    open_deals, seed + 100))
    cells = [{"n_players": P, "heroes": heroes, "n_deals": deals, "seed": s}
             for P, _, _, heroes, deals, s in studies]
    rows = []
    for (P, decision, names, *_), st in zip(studies, run_cells(policy_cell, cells, threads)):
        # "strategy" in common: the label column stands before field and baseline
        rows.extend(paired_rows(st, names, 0, {"variant": VARIANT, "players": P, "decision": decision,
                                               "strategy": None, "field": FIELD, "baseline": names[0]}))
    return pd.DataFrame(rows)


def policy_cell(n_players, heroes, n_deals, seed, threads):
    """One cell of the policy study: seat 0 under each hero spec against the field, PairedStats."""
    from strategies import lineup

    lus = [lineup(VARIANT, n_players, h, FIELD) for h in heroes]
    return paired_blocks(n_players, lus, None, n_deals, seed, threads, seat0_paired)


def plot_policies(df, path):
    plot_paired_by_players(
        df[df.decision == "draw"], path, baseline="pat", panel_size=(7.5, 4.2), spread=0, ms=6, capsize=3,
        ylabel="seat 0's pot share minus pat's (95% CI)", suptitle=f"Sviten draw policies in seat 0 vs {FIELD}")


# -- 2. the draw chart --------------------------------------------------------------------


def _hero_throwing(k):
    from strategies.sviten import throw_count_masks

    def strategy(obs, rng):
        return throw_count_masks(obs["hand"], k)

    return strategy


def draw_chart_table(n_deals, seed, threads, P=CHART_PLAYERS):
    import pandas as pd

    from strategies import lineup
    from strategies.sviten import HAND_CLASSES, hand_classes

    from simcore.engine.stats import PairedStats

    lus = []
    for k in range(6):
        lu = lineup(VARIANT, P, "draw=pat,open=improves", FIELD)
        lu[0] = dict(lu[0], draw=(f"throw {k}", _hero_throwing(k)))
        lus.append(lu)

    def reduce(cards, outs):
        cls = hand_classes(cards[:, :5])
        x = np.stack([o.payoffs[:, 0] for o in outs], axis=1)
        return {c: PairedStats.of_block(x[cls == c]) for c in range(len(HAND_CLASSES)) if (cls == c).any()}

    acc = paired_blocks(P, lus, None, n_deals, seed, threads, reduce)
    rows = []
    for c in sorted(acc):
        st = acc[c]
        mean, se = st.share()
        best = int(np.argmax(mean))
        for k in range(6):
            d, dse = st.diff(k, best)
            rows.append({"variant": VARIANT, "players": P, "field": FIELD, "hand_class": HAND_CLASSES[c],
                         "class_index": c, "throw": k, "n": st.n, "share": mean[k], "stderr": se[k],
                         **ci_columns(mean[k], se[k]),
                         "best": k == best, "diff_vs_best": d, **ci_columns(d, dse, "diff_")})
    return pd.DataFrame(rows)


def plot_draw_chart(df, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    classes = df.drop_duplicates("class_index").sort_values("class_index")
    grid = np.full((len(classes), 6), np.nan)
    for r, (_, c) in enumerate(classes.iterrows()):
        g = df[df.class_index == c.class_index].sort_values("throw")
        grid[r] = g["diff_vs_best"].to_numpy()
    fig, ax = plt.subplots(figsize=(7.5, 4.6))
    im = ax.imshow(grid, cmap="RdYlGn", vmin=-0.08, vmax=0.0, aspect="auto")
    for r, (_, c) in enumerate(classes.iterrows()):
        g = df[df.class_index == c.class_index].sort_values("throw")
        for k, (_, row) in enumerate(g.iterrows()):
            ax.text(k, r, "best" if row.best else f"{row.diff_vs_best:+.3f}", ha="center", va="center",
                    fontsize=7, weight="bold" if row.best else None)
    ax.set_xticks(range(6), [f"throw {k}" for k in range(6)])
    ax.set_yticks(range(len(classes)), [f"{c.hand_class} ({c.n:,})" for _, c in classes.iterrows()], fontsize=8)
    ax.set_title(f"Sviten: how many to throw, by own-five class ({CHART_PLAYERS} players; "
                 "pot share vs the best)", fontsize=9)
    fig.colorbar(im, ax=ax, label="pot share minus the best count's")
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    plt.close(fig)


# -- 3. One Open thresholds ------------------------------------------------------------------


def open_chart_table(n_deals, seed, threads, P=CHART_PLAYERS):
    import pandas as pd

    from simcore.engine.stats import PairedStats, interval
    from simcore.variants.sviten import KEEP, REFUSE, stub_start
    from strategies import lineup
    from strategies.sviten import HAND_CLASSES, hand_classes

    lu = lineup(VARIANT, P, "draw=pat,open=accept", FIELD)
    lu[0] = dict(lu[0], draw=("throw 1", _hero_throwing(1)))

    def reduce(cards, outs):
        # seat 0 is served first: its open card is the first stub card
        cell = hand_classes(cards[:, :5]) * 13 + (cards[:, stub_start(P)] >> 2)
        x = np.stack([o.payoffs[:, 0] for o in outs], axis=1)
        return {c: PairedStats.of_block(x[cell == c]) for c in np.unique(cell)}

    acc = paired_blocks(P, [lu, lu], [{(0, "open"): KEEP}, {(0, "open"): REFUSE}], n_deals, seed, threads,
                        reduce)
    rows = []
    for cell in sorted(acc):
        st = acc[cell]
        d, dse = st.diff(0, 1)
        lo, hi = interval(d, dse)
        mean, se = st.share()
        rows.append({"variant": VARIANT, "players": P, "field": FIELD, "hand_class": HAND_CLASSES[cell // 13],
                     "class_index": int(cell // 13), "open_rank": RANKS[cell % 13], "n": st.n,
                     "share_keep": mean[0], "share_refuse": mean[1], "keep_gain": d, "stderr": dse,
                     "ci_low": lo, "ci_high": hi,
                     "verdict": "keep" if lo > 0 else ("refuse" if hi < 0 else "close")})
    return pd.DataFrame(rows)


def plot_open_chart(df, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from strategies.sviten import HAND_CLASSES

    grid = np.full((len(HAND_CLASSES), 13), np.nan)
    for _, r in df.iterrows():
        grid[r.class_index, RANKS.index(r.open_rank)] = r.keep_gain
    fig, ax = plt.subplots(figsize=(8.5, 4.6))
    lim = np.nanmax(np.abs(grid))
    im = ax.imshow(grid, cmap="RdBu", vmin=-lim, vmax=lim, aspect="auto")
    for _, r in df.iterrows():
        mark = {"keep": "K", "refuse": "R", "close": "?"}[r.verdict]
        ax.text(RANKS.index(r.open_rank), r.class_index, mark, ha="center", va="center", fontsize=7)
    ax.set_xticks(range(13), list(RANKS))
    ax.set_yticks(range(len(HAND_CLASSES)), HAND_CLASSES, fontsize=8)
    ax.set_xlabel("rank of the card served face up")
    ax.set_title(f"Sviten One Open: keep (K) or refuse (R), by hand class before the throw "
                 f"({CHART_PLAYERS} players; ? = not separated at 95%)", fontsize=9)
    fig.colorbar(im, ax=ax, label="pot share: keep minus refuse")
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    plt.close(fig)


# -- 4. how the halves are won ------------------------------------------------------------------


def halves_table(n_deals, seed, threads, P=CHART_PLAYERS):
    import pandas as pd

    from simcore.engine.stats import interval
    from strategies import lineup

    keys = ("scoop", "own5_only", "omaha_only", "both_partial", "nothing", "pot_split")
    rows = []
    for k, pol in enumerate(DRAW_POLICIES):
        spec = f"draw={pol},open=improves"
        lu = lineup(VARIANT, P, spec, spec)

        def reduce(cards, outs):
            o = outs[0]
            s5, so = o.parts["share_own5"][:, 0], o.parts["share_omaha"][:, 0]
            ev = {"scoop": o.wins[:, 0], "own5_only": (s5 > 0) & (so == 0), "omaha_only": (s5 == 0) & (so > 0),
                  "both_partial": (s5 > 0) & (so > 0) & ~o.wins[:, 0], "nothing": (s5 == 0) & (so == 0),
                  "pot_split": ~o.wins.any(axis=1)}
            return np.array([len(s5)] + [float(ev[x].sum()) for x in keys])

        acc = paired_blocks(P, [lu], None, n_deals, seed + k, threads, reduce)
        n = acc[0]
        for j, key in enumerate(keys):
            p = acc[1 + j] / n
            se = np.sqrt(p * (1 - p) / n)
            lo, hi = interval(p, se)
            rows.append({"variant": VARIANT, "players": P, "strategy": spec, "seat": 0 if key != "pot_split" else -1,
                         "event": key, "n": int(n), "rate": p, "stderr": se, "ci_low": lo, "ci_high": hi})
    return pd.DataFrame(rows)


def plot_halves(df, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = ["scoop", "own5_only", "omaha_only", "both_partial"]
    names = {"scoop": "scoop (both halves alone)", "own5_only": "own-five half only",
             "omaha_only": "Omaha half only", "both_partial": "part of both"}
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    pols = list(dict.fromkeys(df.strategy))
    bottom = np.zeros(len(pols))
    for key in keys:
        vals = np.array([df[(df.strategy == p) & (df.event == key)].rate.iloc[0] for p in pols])
        ax.bar(range(len(pols)), vals, bottom=bottom, label=names[key])
        bottom += vals
    split = [df[(df.strategy == p) & (df.event == "pot_split")].rate.iloc[0] for p in pols]
    for i, s in enumerate(split):
        ax.text(i, bottom[i] + 0.005, f"split {s:.0%}", ha="center", fontsize=7)
    ax.set_xticks(range(len(pols)), [p.split(",")[0].removeprefix("draw=") for p in pols], fontsize=8)
    ax.set_ylabel("seat 0's rate per deal")
    ax.set_ylim(0, 1.35 * bottom.max())
    ax.set_title(f"Sviten: how seat 0 wins its share ({CHART_PLAYERS} players, every seat alike; "
                 "'split' = nobody scoops)", fontsize=9)
    ax.legend(fontsize=8, loc="upper center", ncol=2)
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    plt.close(fig)


# -- 5. recycling --------------------------------------------------------------------------------


def _recycling(cards, outs):
    """A block's recycling counts, from the Service (the final state) of its one outcome."""
    svc = outs[0].state
    P = svc.n_players
    during = (svc.reshuffle_seat < P) & (svc.reshuffle_seat >= 0)
    board = svc.reshuffle_seat == P
    return np.array([len(cards), (svc.reshuffles > 0).sum(), during.any(axis=1).sum(), board.any(axis=1).sum(),
                     svc.reshuffles.sum(), svc.reshuffle_own.any(axis=1).sum()], np.float64)


def reshuffle_table(players, n_deals, seed, threads, policies=("balanced", "draw-poker", "random")):
    import pandas as pd

    from simcore.engine.stats import interval
    from strategies import lineup

    rows = []
    for P in players:
        for k, pol in enumerate(policies):
            spec = f"draw={pol},open=improves"
            acc = paired_blocks(P, [lineup(VARIANT, P, spec, spec)], None, n_deals, seed + 10 * P + k, threads,
                                _recycling, keep_state=True)
            n = acc[0]
            row = {"variant": VARIANT, "players": P, "strategy": spec, "n": int(n)}
            for j, key in ((1, "any"), (2, "during_draw"), (3, "for_turn_river"), (5, "own_muck")):
                p = acc[j] / n
                se = np.sqrt(p * (1 - p) / n)
                lo, hi = interval(p, se)
                row.update({f"rate_{key}": p, f"rate_{key}_ci_low": lo, f"rate_{key}_ci_high": hi})
            row["mean_recycles"] = acc[4] / n
            rows.append(row)
    return pd.DataFrame(rows)


# -- main -------------------------------------------------------------------------------------------


def main(argv=None) -> int:
    ap = study_parser("sviten_draw", __doc__, full_help="the committed results (about a minute)", out="sviten",
                      seed=SEED, seed_help=f"the first study's seed; each later study takes the next (default {SEED})",
                      formatter_class=argparse.RawDescriptionHelpFormatter)
    args = ap.parse_args(argv)
    cfg, _, out, log = open_study(ap, args, argv, QUICK, FULL)
    import strategies  # noqa: F401  (registers the policies)

    log.record["field"] = FIELD
    done = log.done

    t0 = time.perf_counter()
    pol = policy_table(cfg["policy_players"], cfg["policy_deals"], cfg["open_deals"], args.seed, args.threads)
    write_csv(pol, out / "policies.csv")
    plot_policies(pol, out / "policies.png")
    done("policies", t0, seed=args.seed)

    t0 = time.perf_counter()
    chart = draw_chart_table(cfg["chart_deals"], args.seed + 1, args.threads)
    write_csv(chart, out / "draw_chart.csv")
    plot_draw_chart(chart, out / "draw_chart.png")
    done("draw_chart", t0, seed=args.seed + 1)

    t0 = time.perf_counter()
    oc = open_chart_table(cfg["open_chart_deals"], args.seed + 2, args.threads)
    write_csv(oc, out / "open_chart.csv")
    plot_open_chart(oc, out / "open_chart.png")
    done("open_chart", t0, seed=args.seed + 2)

    t0 = time.perf_counter()
    hv = halves_table(cfg["halves_deals"], args.seed + 3, args.threads)
    write_csv(hv, out / "halves.csv")
    plot_halves(hv, out / "halves.png")
    done("halves", t0, seed=args.seed + 3)

    t0 = time.perf_counter()
    rs = reshuffle_table(cfg["reshuffle_players"], cfg["reshuffle_deals"], args.seed + 4, args.threads)
    write_csv(rs, out / "reshuffles.csv")
    done("reshuffles", t0, seed=args.seed + 4)

    log.write(out / "provenance.json")
    _headline(pol, chart, oc, hv, rs)
    return 0


def _headline(pol, chart, oc, hv, rs):
    import pandas as pd

    with pd.option_context("display.width", 160, "display.max_columns", 20):
        d = pol[pol.decision == "draw"].pivot(index="strategy", columns="players", values="diff")
        print("draw policy in seat 0, pot share minus pat's, by players:")
        print(d.round(4).to_string())
        cols = ["strategy", "share", "ci_low", "ci_high", "diff", "diff_ci_low", "diff_ci_high"]
        o = pol[pol.decision == "open"][cols]
        print(f"\nopen policy in seat 0 ({CHART_PLAYERS} players, draw=balanced):")
        print(o.round(4).to_string(index=False))
        best = chart[chart.best][["hand_class", "throw", "share", "n"]]
        print("\nhow many to throw, by hand class (best count):")
        print(best.round(4).to_string(index=False))
        keep = oc.pivot(index="hand_class", columns="open_rank", values="verdict").reindex(columns=list(RANKS))
        print("\nOne Open: keep or refuse, by hand class and open rank:")
        print(keep.fillna("").to_string())
        print("\nhow often the pot is split (nobody scoops), 6 players:")
        print(hv[hv.event == "pot_split"][["strategy", "rate", "ci_low", "ci_high"]].round(4).to_string(index=False))
        print("\nrecycling: share of deals with a recycled stub:")
        print(rs[["players", "strategy", "rate_any", "rate_during_draw", "rate_for_turn_river", "mean_recycles"]]
              .round(4).to_string(index=False))


if __name__ == "__main__":
    sys.exit(main())
