"""Estonian Twist: which card should I pass, and which should I discard?

Run ``python -m experiments.estonian_pass [--full] [--threads T] [--out DIR]``.

Two studies, written to ``results/estonian/``:

1. ``policies.csv`` and ``share_by_players.png``: every pass policy (with the
   best-made discard) and every discard policy (with the lowest pass) in seat
   0, against a field that passes the lowest card and discards to the best
   made hand, for 2 to 10 players. Each policy is paired with that baseline on
   the same deals (:func:`simcore.compare`): its pot share with a 95%
   interval, and its gain over the baseline with the paired interval.
2. ``rollout_pass.csv`` and ``rollout_pass.png``: at a 6-player table, what
   the rollout strategy passes in recognisable situations (the seat's three
   cards and the flop: a pocket pair, a card pairing the board, a flush draw,
   ...), and the share it gains there over passing the lowest card, paired
   on the same deals.

Quick mode (default) takes about 10 s on two cores (9 s measured), ``--full``
about two minutes (131 s measured on the quiet machine on 2026-12-01, tables
bit-identical to the committed ones). ``provenance.json`` records the command, seeds, deal counts, git
commit, package versions and seconds.
"""
from __future__ import annotations

import sys
import time

import numpy as np

from simcore.engine.stats import Z95

from .cells import compare_cell, run_cells
from .outputs import save_figure, write_csv
from .studylog import open_study, study_parser

VARIANT = "estonian"
BASELINE = "pass=lowest,discard=best-made"
SEED = 2025

# (label, spec, decision varied, cost class)
POLICIES = [
    ("lowest", "pass=lowest,discard=best-made", "pass", "cheap"),
    ("highest", "pass=highest,discard=best-made", "pass", "cheap"),
    ("keep-best", "pass=keep-best,discard=best-made", "pass", "cheap"),
    ("least-helpful", "pass=least-helpful,discard=best-made", "pass", "cheap"),
    ("keep-potential", "pass=keep-potential,discard=best-made", "pass", "potential"),
    ("thoughtful", "pass=thoughtful,discard=best-made", "pass", "potential"),
    ("random pass", "pass=random,discard=best-made", "pass", "cheap"),
    ("rollout pass", "pass=rollout:32,discard=best-made", "pass", "rollout"),
    ("best-potential", "pass=lowest,discard=best-potential", "discard", "potential"),
    ("discard lowest", "pass=lowest,discard=lowest", "discard", "cheap"),
    ("discard received", "pass=lowest,discard=received", "discard", "cheap"),
    ("random discard", "pass=lowest,discard=random", "discard", "cheap"),
    ("rollout discard", "pass=lowest,discard=rollout:32", "discard", "rollout"),
    ("thoughtful + best-potential", "pass=thoughtful,discard=best-potential", "both", "potential"),
]

QUICK = dict(players=[2, 4, 6, 10],
             deals={"cheap": 300_000, "potential": 100_000, "rollout": 10_000},
             situation_players=6, situation_deals=30_000, rollout_k=32)
FULL = dict(players=list(range(2, 11)),
            deals={"cheap": 3_000_000, "potential": 600_000, "rollout": 200_000},
            situation_players=6, situation_deals=400_000, rollout_k=64)


# -- study 1: policies against the baseline --------------------------------------------------


def policy_rows(players, deals, threads, seed, log=print):
    """One row per (players, policy): seat 0's share and its gain over the baseline."""
    cells = [{"variant": VARIANT, "n_players": n_players, "n_deals": deals[cost], "seed": seed + n_players,
              "a": spec, "b": BASELINE, "field": BASELINE}
             for n_players in players for _, spec, _, cost in POLICIES]
    results = iter(run_cells(compare_cell, cells, threads))  # one batch on processes or Dask
    rows = []
    for n_players in players:
        for label, spec, varied, cost in POLICIES:
            r = next(results)
            d = r.to_dict()
            st = r.stats
            rows.append({
                "variant": VARIANT, "players": n_players, "policy": label, "strategy": spec,
                "varied": varied, "field": BASELINE, "seat": 0, "n": d["deals"],
                "share": d["share_a"], "stderr": d["stderr_a"],
                "ci_low": d["ci_low_a"], "ci_high": d["ci_high_a"],
                "win_rate": st.wins[0] / st.n, "tie_rate": st.ties[0] / st.n,
                "fair": 1 / n_players,
                "diff_vs_baseline": d["diff"], "diff_stderr": d["diff_stderr"],
                "diff_ci_low": d["diff_ci_low"], "diff_ci_high": d["diff_ci_high"],
                "seed": seed + n_players, "seconds": d["seconds"],
            })
            log(f"  {n_players:2d} players  {label:28s} share {d['share_a']:.4f} "
                f"gain {d['diff']:+.4f} [{d['diff_ci_low']:+.4f}, {d['diff_ci_high']:+.4f}]  "
                f"({d['deals']:,} deals, {d['seconds']:.1f} s)")
    import pandas as pd

    return pd.DataFrame(rows)


def plot_share_by_players(df, path):
    """Seat 0's share relative to the fair 1/N against players, one line per policy."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(13, 5.2), sharey=True)
    panels = [("pass", "Pass policies (discard: best-made)"),
              ("discard", "Discard policies (pass: lowest) and the combination")]
    for ax, (varied, title) in zip(axes, panels):
        if varied == "pass":
            sub = df[df.varied == "pass"]
        else:  # the baseline first, for the same colour in both panels
            sub = df[(df.policy == "lowest") | df.varied.isin(["discard", "both"])]
        for label in dict.fromkeys(sub.policy):
            s = sub[sub.policy == label].sort_values("players")
            rel = s.share * s.players
            err = np.vstack([(s.share - s.ci_low) * s.players, (s.ci_high - s.share) * s.players])
            name = "baseline (lowest / best-made)" if label == "lowest" else label
            ax.errorbar(s.players, rel, yerr=err, marker="o", ms=4, capsize=3, label=name,
                        lw=2.2 if label == "lowest" else 1.4)
        ax.axhline(1.0, color="grey", lw=0.8, ls="--")
        ax.set_title(title)
        ax.set_xlabel("players at the table")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    axes[0].set_ylabel("seat 0's pot share x players (1 = fair share)")
    fig.suptitle("Estonian Twist: one seat's policy against a lowest-pass / best-made field "
                 "(95% intervals)")
    fig.tight_layout()
    save_figure(fig, path, dpi=130)
    plt.close(fig)


# -- study 2: what the rollout passes, by situation ---------------------------------------------

SITUATIONS = [
    ("pocket pair", "a pair card", "the odd card"),
    ("a card pairs the board", "the pairing card", "another card"),
    ("flush draw (two suited + two on the flop)", "a suited card", "the off-suit card"),
    ("straight draw", "a draw card", "the card outside the draw"),
    ("two suited cards", "a suited card", "the off-suit card"),
    ("two overcards", "an overcard", "the undercard"),
    ("nothing", "a higher card", "the lowest card"),
]


def _straight_draw(ranks):
    """Do these ranks (with the flop) hold four of some five-rank straight window?"""
    from strategies.features import straight_outs

    made, outs = straight_outs(sum(1 << r for r in set(ranks)), -1)
    return bool(made or outs)


def classify(hand, flop):
    """(situation index, per-card role: True for the situation's key cards)."""
    r = [c >> 2 for c in hand]
    s = [c & 3 for c in hand]
    fr = [c >> 2 for c in flop]
    fs = [c & 3 for c in flop]
    for i in range(3):
        for j in range(i + 1, 3):
            if r[i] == r[j]:
                return 0, [r[k] == r[i] for k in range(3)]
    pairing = [r[k] in fr for k in range(3)]
    if any(pairing):
        return 1, pairing
    for i in range(3):
        for j in range(i + 1, 3):
            if s[i] == s[j] and fs.count(s[i]) >= 2:
                return 2, [s[k] == s[i] for k in range(3)]
    draw = [False] * 3
    for i in range(3):
        for j in range(i + 1, 3):
            if _straight_draw([r[i], r[j]] + fr):
                draw[i] = draw[j] = True
    if any(draw) and not all(draw):
        return 3, draw
    for i in range(3):
        for j in range(i + 1, 3):
            if s[i] == s[j]:
                return 4, [s[k] == s[i] for k in range(3)]
    over = [r[k] > max(fr) for k in range(3)]
    if sum(over) == 2:
        return 5, over
    low = int(np.argmin(hand))
    return 6, [k != low for k in range(3)]


def situation_rows(n_players, n_deals, k, threads, seed, block=2000):
    """Per situation: how often it occurs, what rollout passes, and its gain over lowest."""
    import pandas as pd

    from simcore.engine import map_alternatives
    from simcore.variants import get_variant
    from strategies import lineup

    v = get_variant(VARIANT)
    P = n_players
    lineups = [lineup(v, P, spec, BASELINE) for spec in (f"pass=rollout:{k}", "pass=lowest")]

    def reduce(cards, outs):
        """The same deals with seat 0 passing by rollout, then lowest."""
        rollout, lowest = outs
        return [(cards[:, :3], cards[:, 3 * P: 3 * P + 3], rollout.actions[(0, "pass", 0)],
                 rollout.payoffs[:, 0] - lowest.payoffs[:, 0])]

    parts, _ = map_alternatives(v, P, lineups, n_deals, reduce, lambda acc, part: acc + part, seed=seed,
                                block_size=block, record=True, threads=threads)
    hands = np.concatenate([p[0] for p in parts])
    flops = np.concatenate([p[1] for p in parts])
    acts = np.concatenate([p[2] for p in parts])
    gain = np.concatenate([p[3] for p in parts])
    n = len(acts)
    sit = np.empty(n, np.int64)
    key_pass = np.empty(n, bool)
    key_share = np.empty(n)  # how often a random pass would give a key card
    lowest_pass = acts == np.argmin(hands, axis=1)
    for i in range(n):
        h, f = hands[i].tolist(), flops[i].tolist()
        sit[i], roles = classify(h, f)
        key_pass[i] = roles[acts[i]]
        key_share[i] = sum(roles) / 3
    rows = []
    for j, (name, key_role, other_role) in enumerate(SITUATIONS):
        m = sit == j
        c = int(m.sum())
        g = gain[m]
        se = g.std(ddof=1) / np.sqrt(c) if c > 1 else np.nan
        rows.append({
            "variant": VARIANT, "players": n_players, "situation": name, "n": c,
            "frequency": c / n,
            "key_role": key_role, "other_role": other_role,
            "passes_key_card": key_pass[m].mean() if c else np.nan,
            "passes_other_card": 1 - key_pass[m].mean() if c else np.nan,
            "passes_lowest_card": lowest_pass[m].mean() if c else np.nan,
            "random_passes_key_card": key_share[m].mean() if c else np.nan,
            "gain_vs_lowest": g.mean() if c else np.nan, "gain_stderr": se,
            "gain_ci_low": g.mean() - Z95 * se if c else np.nan,
            "gain_ci_high": g.mean() + Z95 * se if c else np.nan,
            "strategy": f"pass=rollout:{k},discard=best-made", "baseline": BASELINE,
            "seed": seed,
        })
    se_all = gain.std(ddof=1) / np.sqrt(n)
    rows.append({
        "variant": VARIANT, "players": n_players, "situation": "all", "n": n, "frequency": 1.0,
        "key_role": "", "other_role": "", "passes_key_card": np.nan, "passes_other_card": np.nan,
        "passes_lowest_card": lowest_pass.mean(), "random_passes_key_card": np.nan,
        "gain_vs_lowest": gain.mean(),
        "gain_stderr": se_all, "gain_ci_low": gain.mean() - Z95 * se_all,
        "gain_ci_high": gain.mean() + Z95 * se_all,
        "strategy": f"pass=rollout:{k},discard=best-made", "baseline": BASELINE, "seed": seed,
    })
    return pd.DataFrame(rows)


def plot_rollout_pass(df, path):
    """What rollout passes per situation, and what it gains there over passing the lowest."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    d = df[df.situation != "all"].iloc[::-1]
    y = np.arange(len(d))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(14, 5.6), gridspec_kw={"width_ratios": [1.5, 1]})
    ax1.barh(y, d.passes_key_card, color="#4c72b0")
    ax1.barh(y, d.passes_other_card, left=d.passes_key_card, color="#dd8452")
    ax1.scatter(d.random_passes_key_card, y + 0.42, marker="v", color="black", s=22, zorder=3,
                label="a random pass would give a key card this often")
    ax1.legend(loc="lower center", bbox_to_anchor=(0.5, -0.2), fontsize=7, frameon=False)
    for yi, (_, r) in zip(y, d.iterrows()):
        if r.passes_key_card > 0.08:
            ax1.text(r.passes_key_card / 2, yi, f"{r.key_role}\n{r.passes_key_card:.0%}",
                     ha="center", va="center", fontsize=7, color="white")
        if r.passes_other_card > 0.08:
            ax1.text(r.passes_key_card + r.passes_other_card / 2, yi,
                     f"{r.other_role}\n{r.passes_other_card:.0%}", ha="center", va="center",
                     fontsize=7, color="black")
        ax1.text(1.01, yi, f"lowest {r.passes_lowest_card:.0%}", va="center", fontsize=7)
    ax1.set_yticks(y, [f"{s}\n({f:.0%} of deals)" for s, f in zip(d.situation, d.frequency)],
                   fontsize=8)
    ax1.set_xlim(0, 1.13)
    ax1.set_xlabel("share of rollout's passes")
    ax1.set_title("Which card rollout passes")
    err = np.vstack([d.gain_vs_lowest - d.gain_ci_low, d.gain_ci_high - d.gain_vs_lowest])
    ax2.errorbar(d.gain_vs_lowest, y, xerr=err, fmt="o", capsize=3, color="#55a868")
    ax2.axvline(0, color="grey", lw=0.8, ls="--")
    ax2.set_yticks(y, [""] * len(y))
    ax2.set_xlabel("pot share gained over passing the lowest card (95% interval)")
    ax2.set_title("What it is worth")
    ax2.grid(alpha=0.3)
    allrow = df[df.situation == "all"].iloc[0]
    fig.suptitle(
        f"Estonian Twist, {int(allrow.players)} players, seat 0 passes by rollout "
        f"(field and later decisions: lowest pass, best-made discard); {int(allrow.n):,} deals, "
        f"overall gain {allrow.gain_vs_lowest:+.4f} [{allrow.gain_ci_low:+.4f}, {allrow.gain_ci_high:+.4f}]",
        fontsize=10)
    fig.tight_layout()
    save_figure(fig, path, dpi=130)
    plt.close(fig)


# -- the run --------------------------------------------------------------------------------------


def headline(df):
    """Per player count: the baseline's share and the best pass and discard policies."""
    lines = []
    for n_players, g in df.groupby("players"):
        g = g[~g.policy.str.startswith("rollout")]
        parts = [f"{n_players:2d} players (fair {1 / n_players:.3f})"]
        for varied in ("pass", "discard", "both"):
            s = g[g.varied == varied].sort_values("diff_vs_baseline", ascending=False).iloc[0]
            parts.append(f"best {varied}: {s.policy} {s.share:.4f} "
                         f"(+{s.diff_vs_baseline:.4f} [{s.diff_ci_low:+.4f}, {s.diff_ci_high:+.4f}])")
        lines.append("  ".join(parts))
    return "\n".join(lines)


def main(argv=None):
    ap = study_parser("estonian_pass", "Estonian Twist: which card to pass and to discard",
                      full_help="2 to 10 players and more deals (about two minutes)", out="estonian", seed=SEED)
    args = ap.parse_args(argv)
    cfg, n_threads, out, log = open_study(ap, args, argv, QUICK, FULL)
    log.record["baseline"] = BASELINE
    t0 = time.perf_counter()
    print(f"Estonian Twist policies, {'full' if args.full else 'quick'} mode, {n_threads} threads")
    df = policy_rows(cfg["players"], cfg["deals"], n_threads, args.seed)
    write_csv(df, out / "policies.csv")
    plot_share_by_players(df, out / "share_by_players.png")
    log.done("policies", t0, players=cfg["players"], deals=cfg["deals"],
             seeds={str(p): args.seed + p for p in cfg["players"]},
             files=["policies.csv", "share_by_players.png"])

    print(f"\nWhat rollout passes: {cfg['situation_players']} players, {cfg['situation_deals']:,} deals")
    t0 = time.perf_counter()
    sit = situation_rows(cfg["situation_players"], cfg["situation_deals"], cfg["rollout_k"],
                         n_threads, args.seed + 100)
    write_csv(sit, out / "rollout_pass.csv")
    plot_rollout_pass(sit, out / "rollout_pass.png")
    log.done("rollout_pass", t0, players=cfg["situation_players"], deals=cfg["situation_deals"],
             rollout_k=cfg["rollout_k"], seed=args.seed + 100, files=["rollout_pass.csv", "rollout_pass.png"])
    seconds = log.write(out / "provenance.json")

    print("\nHeadline: seat 0's pot share against a lowest-pass / best-made field, "
          "gain over that baseline with paired 95% intervals")
    print(headline(df))
    print("\nWhat rollout passes (6 players), gain over passing the lowest card:")
    for _, r in sit.iterrows():
        extra = "" if r.situation == "all" else (
            f"passes {r.key_role} {r.passes_key_card:.0%}, {r.other_role} {r.passes_other_card:.0%}; ")
        print(f"  {r.situation:44s} {r.frequency:5.1%}  {extra}lowest {r.passes_lowest_card:.0%}; "
              f"gain {r.gain_vs_lowest:+.4f} [{r.gain_ci_low:+.4f}, {r.gain_ci_high:+.4f}]")
    print(f"\nwrote {out} in {seconds:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
