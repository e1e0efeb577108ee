"""Tapiola Hold'em: which discard policy wins, what the last discard is worth, match chances.

Run ``python -m experiments.tapiola_discards [--full] [--threads K] [--out DIR]``.

Four studies, every comparison paired on the same deals, written to ``results/tapiola/``:

1. ``policies.csv`` / ``policies.png``: seat 0 plays each discard policy
   (``last=never``) against a field on the defaults, for 2 to 9 players, under
   each scoring system (pot, points, straight-up-or-die) and in lowball (pot),
   with the paired difference to ``lowest`` on the same deals; and again
   against a strong field (:data:`STRONG`, the best policies of the first
   pass), seat 0 then taking its last discard as the field does.
2. ``last_discard.csv`` / ``last_discard.png``: seat 0 discards with the best
   high-game policy of study 1 and plays each last-discard policy (``never``,
   ``always``, ``best``, ``dive``); paired differences to ``never`` and how
   often ``best`` keeps two cards and the centre (every card is known then,
   so that is how often it is right by the hand's strength).
3. ``match.csv``: the chance that seat 0, with the best policies of studies 1
   and 2 for its scoring, wins a match (first to 5 pots, 10 points, 15
   points) against a field on the defaults, with the mean match length; the
   fair chance is 1/P.
4. ``discard_chart.csv`` / ``discard_chart.png``: which card the best
   high-game policy throws at the first discard, by what the hand holds
   (nothing, a pair, two pair, trips; three or more of a suit) and what the
   first tower cards show (a tower card pairs a hand card, matches the
   hand's long suit, or neither). Read straight from the policy kernel on
   random situations: no game is played.

Quick mode (default) takes about 12 s on two cores; ``--full`` about two
minutes (109 s measured on the quiet machine on 2026-12-01). ``provenance.json`` records the command, seeds, deal counts, git
commit, package versions and the seconds of each study.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from .cells import run_cells
from .outputs import save_figure, write_csv
from .paired import ci_columns, paired_panel, paired_rows, plot_paired_by_players, seat0_paired
from .studylog import open_study, study_parser

VARIANT = "tapiola"
SEED = 2031
HIGH_POLICIES = ["lowest", "pairs", "draws", "made", "dive"]
LOW_POLICIES = ["lowest", "throw-high", "distinct-low", "best-low"]
LAST_POLICIES = ["never", "always", "best", "dive"]
BASELINE = "lowest"
# (label, options): the three scoring systems of the high game, and lowball.
FORMS = [
    ("pot", {}),
    ("points", {"scoring": "points"}),
    ("straight-up-or-die", {"scoring": "straight-up-or-die"}),
    ("lowball", {"lowball": True}),
]
HEADLINE_PLAYERS = 6

QUICK = dict(policy_players=[2, 6, 9], policy_deals=16_384, strong_deals=8192, last_players=[2, 6, 9],
             last_deals=16_384, match_players=[2, 6], match_deals=16_384, chart_situations=100_000)
FULL = dict(policy_players=list(range(2, 10)), policy_deals=131_072, strong_deals=49_152, last_players=list(range(2, 10)),
            last_deals=131_072, match_players=[2, 4, 6, 9], match_deals=262_144,
            chart_situations=1_000_000)
BLOCK = 1 << 13


def _paired(v, P, lineups, n_deals, seed, threads, extra=None, record=False):
    """Seat 0 under each lineup on the same deals: PairedStats, plus ``extra(outcomes)`` sums."""
    from simcore.engine import map_alternatives

    def with_extra(cards, outs):
        return (seat0_paired(cards, outs),) + tuple(extra(outs))

    return map_alternatives(v, P, lineups, n_deals, seat0_paired if extra is None else with_extra, seed=seed,
                            block_size=BLOCK, record=record, threads=threads)[0]


def paired_cell(opts, n_players, heroes, field, n_deals, seed, threads):
    """One cell of a paired study: seat 0 under each hero spec (the rest ``field``), PairedStats."""
    from simcore.variants import get_variant
    from strategies import lineup

    v = get_variant(VARIANT, **opts)
    return _paired(v, n_players, [lineup(v, n_players, h, field) for h in heroes], n_deals, seed, threads)


# -- 1. discard policies -----------------------------------------------------------------------


# The strong field of each form: the best policies found with the defaults as field.
STRONG = {"pot": "discard=made,last=best", "points": "discard=made,last=best",
          "straight-up-or-die": "discard=dive,last=dive", "lowball": "discard=best-low"}


def policy_table(players, n_deals, seed, threads, strong_deals):
    """Seat 0 with each discard policy against the default field and a strong one,
    per form and table size (against the strong field seat 0 plays its last discard)."""
    import pandas as pd

    from simcore.variants import get_variant

    cells, where = [], []
    for f, (form, opts) in enumerate(FORMS):
        v = get_variant(VARIANT, **opts)
        pols = LOW_POLICIES if v.lowball else HIGH_POLICIES
        for field, field_spec in (("defaults", None), ("strong", STRONG[form])):
            last = "" if field_spec is None or v.lowball else "," + field_spec.split(",")[1]
            for P in players:
                if P > v.max_players:
                    continue
                # A strong field costs up to six times more per deal: fewer deals.
                cells.append({"opts": opts, "n_players": P, "heroes": [f"discard={p}{last}" for p in pols],
                              "field": field_spec, "n_deals": strong_deals if field_spec else n_deals,
                              "seed": seed + 100 * f + P + (50 if field_spec else 0)})
                where.append((form, v, pols, field, field_spec, last, P))
    rows = []
    for (form, v, pols, field, field_spec, last, P), st in zip(where, run_cells(paired_cell, cells, threads)):
        rows += paired_rows(st, pols, pols.index(BASELINE),
                            {"variant": VARIANT, "form": form, "unit": v.payoff_unit, "players": P,
                             "field": field, "field_spec": field_spec or "defaults",
                             "hero_last": last[6:] or ("never" if not v.lowball else ""),
                             "baseline": BASELINE})
    return pd.DataFrame(rows)


def best_policy(df, form, players=HEADLINE_PLAYERS, field="defaults"):
    """The policy with the highest paired difference at ``players`` in ``form``."""
    sub = df[(df.form == form) & (df.players == players) & (df.field == field)]
    return str(sub.loc[sub["diff"].idxmax(), "strategy"])


def plot_policies(df, path):
    """Seat 0's gain over ``lowest`` by table size: a row of forms per field."""
    plot_paired_by_players(
        df, path, panels=("field", "form"), baseline=BASELINE, title="{form}; field: {field_spec}",
        ylabel="gain over 'lowest' ({unit}/hand, 95% CI)", ylabel_each=True, legend_each=True, fontsize=8,
        panel_size=(4.6, 4.0),
        suptitle="Tapiola Hold'em: seat 0's discard policy against a default and a strong field "
                 "(paired on the same deals)")


# -- 2. the last discard ----------------------------------------------------------------------


def last_table(players, n_deals, seed, threads, discard):
    """Seat 0 with each last-discard policy (discard policy ``discard[form]``), paired."""
    import pandas as pd

    from simcore.variants import get_variant
    from strategies import lineup

    rows = []
    best_i = LAST_POLICIES.index("best")

    def extra(outs):
        took = outs[best_i].actions[(0, "last", 0)] > 0
        return (int(took.sum()),)

    for f, (form, opts) in enumerate(FORMS):
        if opts.get("lowball"):
            continue
        v = get_variant(VARIANT, **opts)
        for P in players:
            lus = [lineup(v, P, f"discard={discard[form]},last={p}", None) for p in LAST_POLICIES]
            st, took = _paired(v, P, lus, n_deals, seed + 100 * f + P, threads, extra, record=True)
            frac = took / st.n
            fse = np.sqrt(frac * (1 - frac) / st.n)
            for r in paired_rows(st, LAST_POLICIES, LAST_POLICIES.index("never"),
                                 {"variant": VARIANT, "form": form, "unit": v.payoff_unit, "players": P,
                                  "field": "defaults", "discard": discard[form], "baseline": "never"}):
                if r["strategy"] == "best":
                    r.update(two_plus_centre=frac, **ci_columns(frac, fse, "two_plus_centre_"))
                # best minus always, on the same deals
                if r["strategy"] == "always":
                    d, dse = st.diff(best_i, LAST_POLICIES.index("always"))
                    r.update(best_minus_this=d, **ci_columns(d, dse, "best_minus_this_"))
                rows.append(r)
    return pd.DataFrame(rows)


def plot_last(df, path):
    import matplotlib.pyplot as plt

    forms = list(dict.fromkeys(df.form))
    fig, axes = plt.subplots(1, len(forms) + 1, figsize=(4.6 * (len(forms) + 1), 4.4), squeeze=False)
    for ax, form in zip(axes[0], forms):
        sub = df[df.form == form]
        paired_panel(ax, sub, baseline="never", label="last={}")
        ax.set_title(f"{form} (discard={sub.discard.iloc[0]})")
        ax.set_ylabel(f"gain over last=never ({sub.unit.iloc[0]} per hand, 95% CI)")
        ax.legend(fontsize=8)
    ax = axes[0, -1]
    for form in forms:
        s = df[(df.form == form) & (df.strategy == "best")]
        ax.errorbar(s.players, 100 * s.two_plus_centre,
                    yerr=100 * (s.two_plus_centre - s.two_plus_centre_ci_low), fmt="o-", capsize=2,
                    label=form)
    ax.set_title("how often two cards + centre is stronger")
    ax.set_xlabel("players")
    ax.set_ylabel("% of deals, last=best (95% CI)")
    ax.legend(fontsize=8)
    fig.suptitle("Tapiola Hold'em: what the optional last discard is worth (paired on the same deals)")
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    plt.close(fig)


# -- 3. match chances -------------------------------------------------------------------------


def match_table(players, n_deals, seed, threads, best):
    """Seat 0 with ``best[form]`` against a default field: match chances per scoring."""
    import pandas as pd

    from simcore.engine import PayoffRows, match_chances
    from simcore.variants import get_variant
    from strategies import lineup

    rows = []
    for f, (form, opts) in enumerate(FORMS):
        v = get_variant(VARIANT, **opts)
        for P in players:
            if P > v.max_players:
                continue
            for spec in (best[form], None):
                lus = [lineup(v, P, spec, None)]
                st, payoff_rows = _paired(v, P, lus, n_deals, seed + 100 * f + P, threads,
                                          lambda outs: (PayoffRows.of_block(outs[0].payoffs),))
                # A small exact-state budget: the engine then simulates the matches, which
                # keeps straight-up-or-die (many distinct rows) to seconds.
                m = match_chances(payoff_rows, v.match_target, n_boot=16, max_states=2000,
                                  n_matches=20_000)
                mean, se = st.share()
                rows.append({
                    "variant": VARIANT, "form": form, "unit": v.payoff_unit, "players": P,
                    "strategy": spec or "defaults", "field": "defaults", "seat": 0, "n": st.n,
                    "target": v.match_target, "share": mean[0], **ci_columns(mean[0], se[0], "share_"),
                    "match_win": m.win[0],
                    "match_stderr": m.stderr[0], "match_ci_low": m.ci_low[0],
                    "match_ci_high": m.ci_high[0], "fair": 1 / P, "mean_hands": m.mean_hands,
                    **ci_columns(m.mean_hands, m.mean_hands_stderr, "mean_hands_"), "exact": m.exact,
                })
    return pd.DataFrame(rows)


# -- 4. the discard chart ---------------------------------------------------------------------

HAND_TYPES = ["no pair", "no pair, 3+ suited", "one pair", "two pair", "trips or better"]
TOWER_TYPES = ["a tower card pairs the hand", "a tower card suits the long suit", "neither"]
THROWN = ["lowest card", "a paired card", "a long-suit card", "highest card", "another card"]


def round1_classes(hand, towers, thrown):
    """The first discard's situation and what it threw, as the discard chart reads them.

    ``hand`` (n, 5) the dealt hand cards, ``towers`` (n, >= 2) with the first tower cards
    (A1, B1) first, ``thrown`` (n,) the index of the card thrown. Returns
    (hand type index into HAND_TYPES, tower type into TOWER_TYPES, thrown into THROWN).
    """
    n_situations = len(hand)
    ranks, suits = hand >> 2, hand & 3
    rank_counts = (ranks[:, :, None] == ranks[:, None, :]).sum(axis=2)  # (n, 5) multiplicity
    suit_counts = (suits[:, :, None] == suits[:, None, :]).sum(axis=2)
    pairs = (rank_counts >= 2).sum(axis=1)  # cards in a pair or more
    top_group = rank_counts.max(axis=1)
    long_suit = suit_counts.max(axis=1) >= 3
    htype = np.where(top_group >= 3, 4, np.where(pairs >= 4, 3, np.where(pairs == 2, 2,
                     np.where(long_suit, 1, 0))))
    trank, tsuit = towers[:, :2] >> 2, towers[:, :2] & 3
    tower_pairs = (trank[:, :, None] == ranks[:, None, :]).any(axis=(1, 2))
    lsuit = np.take_along_axis(suits, suit_counts.argmax(axis=1)[:, None], axis=1)[:, 0]
    tower_suits = long_suit & (tsuit == lsuit[:, None]).any(axis=1)
    ttype = np.where(tower_pairs, 0, np.where(tower_suits, 1, 2))

    rows_i = np.arange(n_situations)
    card = hand[rows_i, thrown]
    lowest = card == hand.min(axis=1)
    highest = card == hand.max(axis=1)
    paired = rank_counts[rows_i, thrown] >= 2
    in_long = long_suit & (suit_counts[rows_i, thrown] >= 3)
    what = np.where(paired, 1, np.where(in_long, 2, np.where(lowest, 0, np.where(highest, 3, 4))))
    return htype, ttype, what


def chart_table(n_situations, seed, policy):
    """Round-1 discards of ``policy`` on random situations, by hand type and tower type."""
    import pandas as pd

    from strategies import tapiola as S

    code = dict((n, c) for n, c, _ in S.DISCARD_POLICIES)[policy]
    rng = np.random.default_rng(seed)
    cards = np.argsort(rng.random((n_situations, 52)), axis=1)[:, :8].astype(np.int8)
    hand = np.ascontiguousarray(cards[:, :5])
    centre = np.ascontiguousarray(cards[:, 5])
    towers = np.full((n_situations, 6), -1, np.int8)
    towers[:, :2] = cards[:, 6:8]
    held = np.ones((n_situations, 5), np.bool_)
    thrown = np.empty(n_situations, np.int64)
    S.discard_rows(hand, held, centre, towers, code, thrown)

    htype, ttype, what = round1_classes(hand, towers, thrown)

    rows = []
    for h, hname in enumerate(HAND_TYPES):
        for t, tname in enumerate(TOWER_TYPES):
            sel = (htype == h) & (ttype == t)
            n = int(sel.sum())
            for w, wname in enumerate(THROWN):
                k = int((what[sel] == w).sum())
                p = k / n if n else float("nan")
                se = np.sqrt(p * (1 - p) / n) if n else float("nan")
                rows.append({"variant": VARIANT, "policy": policy, "round": 1, "hand": hname,
                             "towers": tname, "thrown": wname, "n": n, "count": k, "fraction": p,
                             **ci_columns(p, se)})
    return pd.DataFrame(rows)


def plot_chart(df, path):
    import matplotlib.pyplot as plt

    colours = ["#6baed6", "#fd8d3c", "#74c476", "#de2d26", "#bdbdbd"]
    fig, axes = plt.subplots(1, len(TOWER_TYPES), figsize=(15, 4.8), sharey=True)
    for ax, tname in zip(axes, TOWER_TYPES):
        sub = df[df.towers == tname]
        bottom = np.zeros(len(HAND_TYPES))
        for w, wname in enumerate(THROWN):
            vals = np.array([sub[(sub.hand == h) & (sub.thrown == wname)].fraction.iloc[0]
                             for h in HAND_TYPES])
            vals = np.nan_to_num(vals)
            ax.barh(HAND_TYPES, 100 * vals, left=100 * bottom, color=colours[w], label=wname)
            bottom += vals
        n = [int(sub[sub.hand == h].n.iloc[0]) for h in HAND_TYPES]
        for y, k in enumerate(n):
            ax.text(101, y, f"n={k:,}", va="center", fontsize=7)
        ax.set_title(f"first towers: {tname}", fontsize=10)
        ax.set_xlabel("% of first discards")
        ax.set_xlim(0, 118)
        ax.invert_yaxis()
    axes[0].set_ylabel("the five dealt hand cards")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(THROWN), fontsize=8)
    fig.suptitle(f"Tapiola Hold'em: which card '{df.policy.iloc[0]}' throws first, "
                 "by what the hand holds and what the towers show")
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    save_figure(fig, path, dpi=110)
    plt.close(fig)


# -- main ---------------------------------------------------------------------------------------


def replot(out: Path) -> None:
    """Redraw every chart from the CSVs in ``out`` (no simulation)."""
    import matplotlib
    import pandas as pd

    matplotlib.use("Agg")
    plot_policies(pd.read_csv(out / "policies.csv"), out / "policies.png")
    plot_last(pd.read_csv(out / "last_discard.csv"), out / "last_discard.png")
    plot_chart(pd.read_csv(out / "discard_chart.csv"), out / "discard_chart.png")


def main(argv=None) -> int:
    p = study_parser("tapiola_discards", __doc__.split("\n\n")[0],
                     full_help="the full study (about 2 minutes on 2 cores)", out="tapiola", seed=SEED)
    p.add_argument("--replot", action="store_true", help="only redraw the charts from the CSVs in --out")
    args = p.parse_args(argv)
    if args.replot:
        replot(args.out)
        return 0
    cfg, threads, out, log = open_study(p, args, argv, QUICK, FULL)

    import matplotlib

    matplotlib.use("Agg")
    import strategies  # noqa: F401  (registers the policies)

    done = log.done

    t0 = time.perf_counter()
    pol = policy_table(cfg["policy_players"], cfg["policy_deals"], args.seed, threads, cfg["strong_deals"])
    write_csv(pol, out / "policies.csv")
    plot_policies(pol, out / "policies.png")
    best_discard = {form: best_policy(pol, form) for form, _ in FORMS}
    done("policies", t0, deals=cfg["policy_deals"], strong_deals=cfg["strong_deals"],
         players=cfg["policy_players"], best=best_discard,
         best_against_strong={form: best_policy(pol, form, field="strong") for form, _ in FORMS})

    t0 = time.perf_counter()
    last = last_table(cfg["last_players"], cfg["last_deals"], args.seed + 1, threads, best_discard)
    write_csv(last, out / "last_discard.csv")
    plot_last(last, out / "last_discard.png")
    best_last = {}
    for form, _ in FORMS:
        sub = last[(last.form == form) & (last.players == HEADLINE_PLAYERS)]
        best_last[form] = str(sub.loc[sub["diff"].idxmax(), "strategy"]) if len(sub) else None
    done("last", t0, deals=cfg["last_deals"], players=cfg["last_players"], best=best_last)

    t0 = time.perf_counter()
    best = {form: f"discard={best_discard[form]}" + (f",last={best_last[form]}" if best_last[form] else "")
            for form, _ in FORMS}
    match = match_table(cfg["match_players"], cfg["match_deals"], args.seed + 2, threads, best)
    write_csv(match, out / "match.csv")
    done("match", t0, deals=cfg["match_deals"], players=cfg["match_players"], strategies=best)

    t0 = time.perf_counter()
    chart = chart_table(cfg["chart_situations"], args.seed + 3, best_discard["pot"])
    write_csv(chart, out / "discard_chart.csv")
    plot_chart(chart, out / "discard_chart.png")
    done("chart", t0, situations=cfg["chart_situations"], policy=best_discard["pot"])

    import pandas as pd

    with pd.option_context("display.width", 200, "display.max_columns", 20):
        P = HEADLINE_PLAYERS
        print(f"\nDiscard policies, seat 0 against a default and a strong field, {P} players "
              "(gain over 'lowest' on the same deals, 95% CI):")
        s = pol[pol.players == P]
        print(s[["form", "field", "strategy", "share", "ci_low", "ci_high", "diff", "diff_ci_low",
                 "diff_ci_high"]].round(4).to_string(index=False))
        print(f"\nThe last discard, {P} players (gain over 'never'; two+centre: how often 'best' takes it):")
        s = last[last.players == P]
        print(s[["form", "discard", "strategy", "share", "diff", "diff_ci_low", "diff_ci_high",
                 "two_plus_centre"]].round(4).to_string(index=False))
        print("\nMatch chances, seat 0 with the best policies against a default field:")
        print(match[["form", "players", "strategy", "target", "match_win", "match_ci_low",
                     "match_ci_high", "fair", "mean_hands"]].round(4).to_string(index=False))
    seconds = log.write(out / "provenance.json")
    print(f"wrote {out} ({seconds} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
