"""Slovak Double Barrel: which exchange policy wins, and what acting late is worth.

Run ``python -m experiments.slovak_exchange [--full] [--threads K] [--out DIR]``.

Four studies, all paired on the same deals, written to ``results/slovak/``:

1. ``policies.csv``: every exchange policy in seat 0 against a field of each
   policy, for several table sizes, compared with ``never`` on the same deals
   (:func:`simcore.compare`); ``policies.png``. ``policies_pairwise.csv``:
   every policy against every other in seat 0 on the same deals (one run per
   table size, field ``thoughtful``), for the close calls.
2. ``seat_position.csv`` / ``seat_position.png``: every seat's share when all
   seats play the same policy (``never`` is the control: there seat order
   cannot matter), with the paired difference to seat 0.
3. ``exchange_chart.csv`` / ``exchange_chart.png``: the best first exchange
   for each of the 169 starting classes at a 6-player table against a
   ``thoughtful`` field, from :func:`simcore.analyze` (keep both, muck the
   lower, muck the higher), with the paired gain over the next best action.
4. ``exchange2.csv`` / ``exchange2_chart.png``: the second exchange by what
   the flop did to seat 0's face-up cards (seat 0 declined the first
   exchange), every action on the same deals.

Quick mode (default) takes about 25 s on two cores; ``--full`` about two and a
half minutes (144 s measured on the quiet machine on 2026-12-01, 312 s before
the faster policies of issue 13, with bit-identical tables). ``provenance.json`` records the command, seeds, deal
counts, git commit, package versions and seconds of each study.
"""
from __future__ import annotations

import sys
import time

import numpy as np
from numba import njit

from strategies.features import straight_outs

from .cells import compare_cell, run_cells
from .outputs import save_figure, write_csv
from .paired import ci_columns, plot_paired_by_players, plot_seat_position, seat0_paired, seat_position_table
from .studylog import open_study, study_parser

VARIANT = "slovak"
POLICIES = ["never", "lower", "threshold", "made-or-draw", "live-outs", "thoughtful"]
BASELINE = "never"
RANKS = "23456789TJQKA"
SEED = 2024

QUICK = dict(
    policy_players=[2, 6, 11], policy_deals=100_000,
    seat_players=[6], seat_policies=["thoughtful", "never"], seat_deals=1_000_000,
    chart_deals=150_000, ex2_deals=1_000_000,
)
FULL = dict(
    policy_players=list(range(2, 12)), policy_deals=320_000,
    seat_players=[2, 4, 6, 8, 11], seat_policies=["thoughtful", "lower", "never"],
    seat_deals=4_000_000, chart_deals=800_000, ex2_deals=8_000_000,
)
CHART_PLAYERS = 6
CHART_FIELD = "thoughtful"

# -- 1. policies against fields ----------------------------------------------------------


def policy_table(players, n_deals, seed, threads):
    """Seat 0 with each policy vs ``never`` on the same deals, in a field of each policy."""
    import pandas as pd

    cells = [{"variant": VARIANT, "n_players": P, "n_deals": n_deals, "seed": seed + 1000 * P + 10 * POLICIES.index(field),
              "a": pol, "b": BASELINE, "field": field}
             for P in players for field in POLICIES for pol in POLICIES if pol != BASELINE]
    results = iter(run_cells(compare_cell, cells, threads))  # one batch on processes or Dask
    rows = []
    for P in players:
        for field in POLICIES:
            base = None
            for pol in POLICIES:
                if pol == BASELINE:
                    continue
                r = next(results)
                d = r.to_dict()
                n = d["deals"]
                rows.append(_policy_row(P, pol, field, n, d["share_a"], d["stderr_a"],
                                        r.stats.wins[0] / n, r.stats.ties[0] / n, d))
                base = (n, d["share_b"], d["stderr_b"], r.stats.wins[1] / n, r.stats.ties[1] / n)
            n, s, se, w, t = base
            rows.append(_policy_row(P, BASELINE, field, n, s, se, w, t, None))
    return pd.DataFrame(rows)


def _policy_row(P, pol, field, n, share, se, win, tie, d):
    return {
        "variant": VARIANT, "players": P, "strategy": pol, "field": field, "baseline": BASELINE,
        "seat": 0, "n": n, "share": share, "stderr": se, **ci_columns(share, se),
        "win_rate": win, "tie_rate": tie,
        "diff": d["diff"] if d else 0.0, "diff_stderr": d["diff_stderr"] if d else 0.0,
        "diff_ci_low": d["diff_ci_low"] if d else 0.0, "diff_ci_high": d["diff_ci_high"] if d else 0.0,
    }


def pairwise_table(players, n_deals, seed, threads, field="thoughtful", block=1 << 14):
    """Seat 0 under every policy on the same deals: all pairwise paired differences."""
    import pandas as pd

    from simcore.engine import map_alternatives
    from simcore.variants import get_variant
    from strategies import lineup

    v = get_variant(VARIANT)
    rows = []
    for P in players:
        lus = [lineup(v, P, pol, field) for pol in POLICIES]
        st = map_alternatives(v, P, lus, n_deals, seat0_paired, seed=seed + 7 * P, block_size=block,
                              threads=threads)[0]
        mean, se = st.share()
        for a, pa in enumerate(POLICIES):
            for b, pb in enumerate(POLICIES):
                if a == b:
                    continue
                d, dse = st.diff(a, b)
                rows.append({
                    "variant": VARIANT, "players": P, "field": field, "seat": 0, "n": st.n,
                    "a": pa, "b": pb, "share_a": mean[a], "share_b": mean[b], "diff": d,
                    "diff_stderr": dse, **ci_columns(d, dse, "diff_"),
                })
    return pd.DataFrame(rows)


def plot_policies(df, path):
    """Share gained over ``never`` (seat 0) by policy, one panel per field."""
    plot_paired_by_players(
        df, path, panels="field", ncols=(df.field.nunique() + 1) // 2, baseline=BASELINE, title="field: {field}",
        ylabel="seat 0 share minus 'never' (points, 95% CI)", sharey=True, panel_size=(5, 4), scale=100,
        suptitle="Slovak Double Barrel: exchange policies against fields (paired on the same deals; "
                 "share minus the share with 'never' on the same deals)")


# -- 2. seat position -----------------------------------------------------------------------


def seat_table(players, policies, n_deals, seed, threads, block=1 << 14):
    """Per-seat shares, all seats one policy, with paired differences to seat 0."""
    return seat_position_table(VARIANT, players, policies, n_deals, seed, threads, block)


def plot_seats(df, path):
    """Each seat's share minus the fair 1/P, with 95% intervals."""
    plot_seat_position(df, path, title="{P} players, everyone the same policy", xlabel="seat (0 acts first)",
                       suptitle="Slovak Double Barrel: what acting later in the exchanges is worth")


# -- 3. the first-exchange chart ------------------------------------------------------------


def class_hand(i, j):
    """Cards of grid cell (row i, column j), rows and columns A..2: suited above the diagonal."""
    hi, lo = RANKS[12 - min(i, j)], RANKS[12 - max(i, j)]
    if i == j:
        return f"{hi}s {lo}d", "pair"
    if j > i:
        return f"{hi}s {lo}s", "suited"
    return f"{hi}s {lo}d", "offsuit"


def chart_table(n_deals, seed, threads, players=CHART_PLAYERS, field=CHART_FIELD):
    """analyze() on each of the 169 classes: the three first-exchange actions, paired."""
    import pandas as pd

    from simcore import analyze
    from simcore.engine.stats import interval

    rows = []
    for i in range(13):
        for j in range(13):
            hand, kind = class_hand(i, j)
            hi, lo = hand.split()
            r = analyze(VARIANT, players, hand, decision="exchange1", n_deals=n_deals,
                        stop_early=False, seed=seed + 13 * i + j, hero=f"exchange2={field}",
                        field=field, threads=threads, progress=False)
            st = r.stats
            mean, se = st.share()
            # actions: 0 decline, 1 muck the higher (card 0), 2 muck the lower (card 1)
            names = ["keep both", "muck the higher", "muck the lower"]
            order = np.argsort(-mean, kind="stable")
            best, second = int(order[0]), int(order[1])
            g, gse = st.diff(best, second)
            k, kse = st.diff(best, 0)
            row = {
                "variant": VARIANT, "players": players, "field": field, "row": i, "col": j,
                "hand": hand, "kind": kind, "class": _class_name(hi, lo, kind), "n": st.n,
                "best": names[best],
                "gain": g, **ci_columns(g, gse, "gain_"),
                "gain_vs_keep": k, **ci_columns(k, kse, "gain_vs_keep_"),
            }
            for a, name in enumerate(["keep", "muck_higher", "muck_lower"]):
                row[f"share_{name}"] = mean[a]
                row[f"ci_low_{name}"], row[f"ci_high_{name}"] = interval(mean[a], se[a])
            rows.append(row)
    return pd.DataFrame(rows)


def _class_name(hi, lo, kind):
    if kind == "pair":
        return hi[0] + lo[0]
    return hi[0] + lo[0] + ("s" if kind == "suited" else "o")


ACTION_COLOURS = {"keep both": "#4c9a4c", "muck the lower": "#d9a441", "muck the higher": "#c0504d"}


def grid_axes(ax, note: str) -> None:
    """The 13x13 hand grid's axes: the ranks, white cell borders, and the actions' legend with
    ``note`` (how the colours' strength reads) below the grid."""
    from matplotlib.patches import Patch

    ax.set_xticks(range(13), list(RANKS[::-1]))
    ax.set_yticks(range(13), list(RANKS[::-1]))
    ax.set_xticks(np.arange(-0.5, 13), minor=True)
    ax.set_yticks(np.arange(-0.5, 13), minor=True)
    ax.grid(which="minor", color="white", lw=1.5)
    ax.tick_params(which="minor", length=0)
    handles = [Patch(color=c, label=k) for k, c in ACTION_COLOURS.items()]
    handles.append(Patch(color="#dddddd", label=note))
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.03), ncol=4, fontsize=10)


def plot_chart(df, path):
    """13x13 grid coloured by the best first exchange, annotated with its paired gain."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_rgba

    fig, ax = plt.subplots(figsize=(13, 13.8))
    img = np.ones((13, 13, 4))
    for _, r in df.iterrows():
        colour = to_rgba(ACTION_COLOURS[r.best])
        # a best action not separated from the next best at 95% is drawn pale
        alpha = 1.0 if r.gain_ci_low > 0 else 0.35
        img[r.row, r.col] = [c * alpha + (1 - alpha) for c in colour[:3]] + [1.0]
    ax.imshow(img, interpolation="nearest")
    for _, r in df.iterrows():
        half = (r.gain_ci_high - r.gain_ci_low) / 2
        ax.text(r.col, r.row - 0.18, r["class"], ha="center", va="center", fontsize=9, weight="bold")
        ax.text(r.col, r.row + 0.12, f"+{100 * r.gain:.2f}", ha="center", va="center", fontsize=7.5)
        ax.text(r.col, r.row + 0.34, f"±{100 * half:.2f}", ha="center", va="center", fontsize=6.5)
    grid_axes(ax, "pale: best not separated from the next at 95%")
    n = int(df.n.iloc[0])
    ax.set_title(
        f"Slovak Double Barrel, first exchange, {int(df.players.iloc[0])} players, field "
        f"'{df.field.iloc[0]}' (both exchanges), second exchange '{df.field.iloc[0]}'\n"
        f"suited above the diagonal, offsuit below; each cell: best action, its share gain over "
        f"the next best in points, ±95% half-width ({n:,} paired deals per class)", fontsize=11)
    fig.tight_layout()
    save_figure(fig, path, dpi=100)
    plt.close(fig)


# -- 4. the second exchange by what the flop did ----------------------------------------------

EX2_CATEGORIES = (
    "straight or better", "set or two pair", "trips (paired flop)", "overpair", "top pair",
    "lower pair", "underpair", "flush draw, both cards", "flush draw, one card",
    "straight draw, both cards", "straight draw, one card", "two overcards", "nothing",
)
EX2_ACTIONS = ("keep both", "muck the other card", "muck the card that plays")
_EX2_SHORT = {"keep both": "keep both", "muck the other card": "muck other",
              "muck the card that plays": "muck player"}


@njit(cache=True, nogil=True)
def flop_categories(hands, flops):
    """What the flop did to two face-up cards: (category, position of the card that plays).

    The card that plays is the pairing card, the drawing card, or else the
    higher card; when both play equally, the higher (then the higher suit).
    """
    n = hands.shape[0]
    cat = np.empty(n, np.int64)
    key = np.empty(n, np.int64)
    for i in range(n):
        c0, c1 = hands[i, 0], hands[i, 1]
        r0, r1 = c0 >> 2, c1 >> 2
        hi = 0 if c0 > c1 else 1
        fr = np.empty(3, np.int64)
        top = 0
        rank_count = np.zeros(13, np.int64)
        suit_count = np.zeros(4, np.int64)
        mask = 0
        for j in range(3):
            fr[j] = flops[i, j] >> 2
            top = max(top, fr[j])
            rank_count[fr[j]] += 1
            suit_count[flops[i, j] & 3] += 1
            mask |= 1 << fr[j]
        p0, p1 = rank_count[r0] > 0, rank_count[r1] > 0
        paired_flop_0 = rank_count[r0] >= 2
        paired_flop_1 = rank_count[r1] >= 2
        suit_count[c0 & 3] += 1
        suit_count[c1 & 3] += 1
        mask |= (1 << r0) | (1 << r1)
        made0, outs0 = straight_outs(mask, r0)
        made1, outs1 = straight_outs(mask, r1)
        straight = made0 or made1
        draw0 = outs0 != 0  # four to a straight that uses card 0
        draw1 = outs1 != 0
        flush = suit_count[c0 & 3] >= 5 or suit_count[c1 & 3] >= 5
        fd0 = suit_count[c0 & 3] == 4
        fd1 = suit_count[c1 & 3] == 4
        a = hi
        if straight or flush:
            c = 0
        elif (r0 == r1 and p0) or (r0 != r1 and p0 and p1):
            c = 1
        elif paired_flop_0 or paired_flop_1:
            c = 2
            a = 0 if paired_flop_0 else 1
        elif r0 == r1 and r0 > top:
            c = 3
        elif (p0 and r0 == top) or (p1 and r1 == top):
            c = 4
            a = 0 if (p0 and r0 == top) else 1
        elif p0 or p1:
            c = 5
            a = 0 if p0 else 1
        elif r0 == r1:
            c = 6
        elif fd0 and fd1:
            c = 7
        elif fd0 or fd1:
            c = 8
            a = 0 if fd0 else 1
        elif draw0 and draw1:
            c = 9
        elif draw0 or draw1:
            c = 10
            a = 0 if draw0 else 1
        elif r0 > top and r1 > top:
            c = 11
        else:
            c = 12
        cat[i] = c
        key[i] = a
    return cat, key


def exchange2_table(n_deals, seed, threads, players=CHART_PLAYERS, field=CHART_FIELD, block=1 << 14):
    """Seat 0's three second-exchange actions on the same deals, by flop category."""
    import pandas as pd

    from simcore.engine import map_alternatives
    from simcore.engine.stats import PairedStats
    from simcore.variants import get_variant
    from strategies import lineup

    v = get_variant(VARIANT)
    P = players
    lu = lineup(v, P, field, field)
    k = len(EX2_CATEGORIES)
    forced = [{(0, "exchange1"): 0, (0, "exchange2"): a} for a in range(3)]

    def reduce(cards, outs):
        shares = np.stack([o.payoffs[:, 0] for o in outs], axis=1)
        cat, play = flop_categories(cards[:, :2], cards[:, 4 * P: 4 * P + 3])
        rows = np.arange(len(cards))
        rel = np.stack([shares[:, 0], shares[rows, 2 - play], shares[rows, 1 + play]], axis=1)
        return [PairedStats.of_block(rel[cat == c]) for c in range(k)]

    stats = map_alternatives(v, P, [lu] * 3, n_deals, reduce, seed=seed, forced=forced, block_size=block,
                             threads=threads)[0]
    rows = []
    total = sum(s.n for s in stats)
    for c, st in enumerate(stats):
        if st.n < 2:
            continue
        mean, se = st.share()
        best = int(np.argmax(mean))
        second = int(np.argsort(-mean, kind="stable")[1])
        g, gse = st.diff(best, second)
        for a in range(3):
            d, dse = st.diff(a, 0)
            rows.append({
                "variant": VARIANT, "players": P, "field": field, "category": EX2_CATEGORIES[c],
                "frequency": st.n / total, "n": st.n, "action": EX2_ACTIONS[a], "share": mean[a],
                "stderr": se[a], **ci_columns(mean[a], se[a]),
                "diff_vs_keep": d, **ci_columns(d, dse, "diff_"),
                "best": EX2_ACTIONS[best], "best_gain": g, **ci_columns(g, gse, "best_gain_"),
            })
    return pd.DataFrame(rows)


def plot_exchange2(df, path):
    """Per flop category: each action's share minus keeping both, with 95% intervals."""
    import matplotlib.pyplot as plt

    cats = list(dict.fromkeys(df.category))
    import textwrap

    fig, ax = plt.subplots(figsize=(18, 7.5))
    colours = ["#4c9a4c", "#d9a441", "#c0504d"]
    width = 0.27
    for a, action in enumerate(EX2_ACTIONS):
        s = df[df.action == action].set_index("category").loc[cats]
        x = np.arange(len(cats)) + (a - 1) * width
        ax.bar(x, 100 * s.diff_vs_keep, width, color=colours[a],
               label=action + (" (the reference: 0)" if a == 0 else ""),
               yerr=[100 * (s.diff_vs_keep - s.diff_ci_low), 100 * (s.diff_ci_high - s.diff_vs_keep)],
               capsize=2)
    labels = []
    for c in cats:
        s = df[df.category == c].iloc[0]
        half = (s.best_gain_ci_high - s.best_gain_ci_low) / 2
        labels.append("\n".join(textwrap.wrap(c, 14)) + f"\n{100 * s.frequency:.1f}% of flops\n"
                      f"best: {_EX2_SHORT[s.best]}\n+{100 * s.best_gain:.2f}±{100 * half:.2f}")
    ax.set_xticks(np.arange(len(cats)), labels, fontsize=8)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_ylabel("share minus 'keep both' (points, 95% CI)")
    ax.legend()
    n = int(df.drop_duplicates("category").n.sum())
    ax.set_title(
        f"Slovak Double Barrel, second exchange, seat 0 of {int(df.players.iloc[0])} (declined the "
        f"first), field '{df.field.iloc[0]}': {n:,} deals, every action on the same deals\n"
        "under each category: its frequency, the best action and its gain over the next best "
        "(points ±95% half-width); 'the card that plays' pairs, draws, or else is the higher",
        fontsize=10)
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    plt.close(fig)


# -- main -------------------------------------------------------------------------------------


def main(argv=None) -> int:
    p = study_parser("slovak_exchange", __doc__.split("\n\n")[0],
                     full_help="the full study (about 5 minutes on 2 cores)", out="slovak", seed=SEED)
    p.add_argument("--only", choices=["policies", "seats", "chart", "exchange2"], action="append",
                   help="run only these studies (repeatable)")
    args = p.parse_args(argv)
    cfg, threads, out, log = open_study(p, args, argv, QUICK, FULL)

    import matplotlib

    matplotlib.use("Agg")
    only = set(args.only or ["policies", "seats", "chart", "exchange2"])
    prov_path = out / "provenance.json"
    log.keep_studies(prov_path)
    done = log.done

    if "policies" in only:
        t0 = time.perf_counter()
        df = policy_table(cfg["policy_players"], cfg["policy_deals"], args.seed, threads)
        write_csv(df, out / "policies.csv")
        plot_policies(df, out / "policies.png")
        write_csv(pairwise_table(cfg["policy_players"], 2 * cfg["policy_deals"], args.seed, threads),
                  out / "policies_pairwise.csv")
        done("policies", t0, deals_per_comparison=cfg["policy_deals"], players=cfg["policy_players"])
    if "seats" in only:
        t0 = time.perf_counter()
        df = seat_table(cfg["seat_players"], cfg["seat_policies"], cfg["seat_deals"], args.seed, threads)
        write_csv(df, out / "seat_position.csv")
        plot_seats(df, out / "seat_position.png")
        done("seats", t0, deals=cfg["seat_deals"], players=cfg["seat_players"])
    if "chart" in only:
        t0 = time.perf_counter()
        df = chart_table(cfg["chart_deals"], args.seed, threads)
        write_csv(df, out / "exchange_chart.csv")
        plot_chart(df, out / "exchange_chart.png")
        done("chart", t0, deals_per_class=cfg["chart_deals"], players=CHART_PLAYERS, field=CHART_FIELD)
    if "exchange2" in only:
        t0 = time.perf_counter()
        df = exchange2_table(cfg["ex2_deals"], args.seed, threads)
        write_csv(df, out / "exchange2.csv")
        plot_exchange2(df, out / "exchange2_chart.png")
        done("exchange2", t0, deals=cfg["ex2_deals"], players=CHART_PLAYERS, field=CHART_FIELD)
    seconds = log.write(prov_path)
    print(f"wrote {out} ({seconds} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
