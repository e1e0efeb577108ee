"""Russian Hold'em: which placement policy wins, what a later seat is worth, where the cards go.

Run ``python -m experiments.russian_placement [--full] [--threads K] [--out DIR]``.

Three studies, written to ``results/russian/``:

1. ``policies.csv`` / ``policies.png``: every placement policy in seat 0
   against a field of ``by-rank`` (and, with ``--full``, of ``best-gain``),
   at 2, 3 and 4 players, all on the same deals: share, win and tie rates,
   the paired differences to ``first-open`` and to the best policy of the
   same table (``diff_vs_best``), how often seat 0 wins 0, 1, 2 or
   3 hands (``hands_won_0..3``: two hands rather than three), and its win
   rate on each of the three hands (``won_hand_1..3``: how the policy spreads
   its strength). ``hands.png`` charts the last two.
2. ``seat_position.csv`` / ``seat_position.png``: every seat's share when all
   seats play the same policy, with the paired difference to seat 0. The rule
   text says later seats see more; ``by-rank`` reads nothing, so there seat
   order cannot matter (the control).
3. ``placement_chart.csv`` / ``placement_chart.png``: where the best policy of
   study 1 at 3 players puts a card, by the card's rank and what it does to
   the three hands (pairs a card of a hand with room; fits a hand that is
   all one suit; neither), as shares going to the strongest, middle and
   weakest hand (by made strength before the card; ties: the lower hand).

Quick mode (default) takes about 5 s on two cores; ``--full`` about a minute
(52 s measured on the quiet machine on 2026-12-01; 136 to 208 s on the shared
machine before the faster placement kernels, with bit-identical tables). ``provenance.json`` records the command, seeds, deal counts, git
commit, package versions and seconds of each study.
"""
from __future__ import annotations

import sys
import time

import numpy as np
from numba import njit

from .cells import run_cells
from .outputs import save_figure, write_csv
from .paired import ci_columns, plot_paired_by_players, plot_seat_position, seat_position_table
from .studylog import open_study, study_parser

VARIANT = "russian"
POLICIES = ["first-open", "random", "by-rank", "best-gain", "two-and-dump", "fight-weak", "conceal"]
BASELINE = "first-open"
RANKS = "23456789TJQKA"
STATES = ("pairs a hand", "fits a one-suit hand", "neither")
TARGETS = ("strongest", "middle", "weakest")
SEED = 2026
BLOCK = 1 << 12

QUICK = dict(policy_players=[2, 3, 4], policy_fields=["by-rank"], policy_deals=12_000,
             seat_players=[4], seat_policies=["best-gain", "by-rank"], seat_deals=16_000,
             chart_deals=6_000)
FULL = dict(policy_players=[2, 3, 4], policy_fields=["by-rank", "best-gain"], policy_deals=60_000,
            seat_players=[2, 3, 4], seat_policies=["best-gain", "fight-weak", "by-rank"],
            seat_deals=60_000, chart_deals=60_000)
CHART_PLAYERS = 3
CHART_FIELD = "by-rank"


# -- 1. policies ----------------------------------------------------------------------------


class PolicySums:
    """Seat 0 under each alternative on the same deals: paired shares, wins, ties,
    hands-won counts (0..3) and per-hand wins; sums only, merged in block order."""

    def __init__(self, paired, hands_won, won_hand):
        self.paired = paired  # PairedStats over the alternatives
        self.hands_won = hands_won  # (A, 4) counts
        self.won_hand = won_hand  # (A, 3) counts

    def merge(self, other):
        self.paired.merge(other.paired)
        self.hands_won += other.hands_won
        self.won_hand += other.won_hand
        return self


def _policy_block(cards, outs):
    """A block's PolicySums from its outcomes, each carrying the placed hands (module level: cells travel)."""
    from simcore.engine.stats import PairedStats
    from simcore.variants.russian import showdown

    hw = np.array([[int(o.parts[f"hands_won_{k}"][:, 0].sum()) for k in range(4)] for o in outs], np.int64)
    wh = np.array([showdown(**o.state)["won"][:, 0].sum(axis=0) for o in outs], np.int64)
    pay, wins, ties = (np.stack([getattr(o, x)[:, 0] for o in outs], 1) for x in ("payoffs", "wins", "ties"))
    return PolicySums(PairedStats.of_block(pay, wins, ties), hw, wh)


def policy_sums(P, field, n_deals, seed, threads):
    """Every policy in seat 0 against ``field``, on the same deals."""
    from simcore.engine import map_alternatives
    from simcore.variants import get_variant
    from strategies import lineup

    v = get_variant(VARIANT)
    lus = [lineup(v, P, f"place={pol}", f"place={field}") for pol in POLICIES]
    return map_alternatives(v, P, lus, n_deals, _policy_block, seed=seed, block_size=BLOCK, keep_state=True,
                            threads=threads)[0]


def policy_table(players, fields, n_deals, seed, threads):
    import pandas as pd

    rows = []
    base = POLICIES.index(BASELINE)
    cells = [{"P": P, "field": field, "n_deals": n_deals, "seed": seed + 100 * P + f}
             for P in players for f, field in enumerate(fields)]
    sums = iter(run_cells(policy_sums, cells, threads))  # one batch on processes or Dask
    for P in players:
        for field in fields:
            s = next(sums)
            st = s.paired
            n = st.n
            mean, se = st.share()
            best = int(np.argmax(mean))
            for a, pol in enumerate(POLICIES):
                d, dse = st.diff(a, base)
                g, gse = st.diff(a, best)
                row = {"variant": VARIANT, "players": P, "strategy": pol, "field": field, "seat": 0,
                       "n": n, "share": mean[a], "stderr": se[a], **ci_columns(mean[a], se[a]),
                       "win_rate": st.wins[a] / n,
                       "tie_rate": st.ties[a] / n, "baseline": BASELINE, "diff": d, "diff_stderr": dse,
                       **ci_columns(d, dse, "diff_"),
                       "best": POLICIES[best], "diff_vs_best": g, **ci_columns(g, gse, "diff_vs_best_")}
                # indicator rates: binomial standard errors
                for name, counts in [(f"hands_won_{k}", s.hands_won[a, k]) for k in range(4)] + \
                        [(f"won_hand_{h + 1}", s.won_hand[a, h]) for h in range(3)]:
                    p = counts / n
                    e = np.sqrt(p * (1 - p) / n)
                    row.update({name: p, **ci_columns(p, e, f"{name}_")})
                rows.append(row)
    return pd.DataFrame(rows)


def plot_policies(df, path):
    """Seat 0's share minus its first-open share on the same deals, by policy and table size."""
    plot_paired_by_players(
        df, path, panels="field", baseline=BASELINE, title="field: {field}", sharey=True, scale=100, spread=0.1,
        ms=4, ylabel=f"seat 0 share minus its '{BASELINE}' share (points, 95% CI)",
        suptitle="Russian Hold'em: placement policies in seat 0, paired on the same deals")


def plot_hands(df, path, field="by-rank"):
    """How many hands each policy wins (0..3), and its win rate on each hand, 3 players."""
    import matplotlib.pyplot as plt

    P = 3 if 3 in set(df.players) else int(df.players.max())
    sub = df[(df.players == P) & (df.field == field)].set_index("strategy").loc[POLICIES]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(13, 4.5))
    x = np.arange(len(POLICIES))
    for k in range(4):
        col = f"hands_won_{k}"
        a1.bar(x + (k - 1.5) * 0.2, 100 * sub[col], 0.2, label=f"{k} hands",
               yerr=[100 * (sub[col] - sub[f"{col}_ci_low"]), 100 * (sub[f"{col}_ci_high"] - sub[col])],
               capsize=2)
    a1.set_xticks(x, POLICIES, rotation=20)
    a1.set_ylabel("% of deals (95% CI)")
    a1.set_title("hands won by seat 0 (two take the pot)")
    a1.legend(fontsize=8)
    for h in range(3):
        col = f"won_hand_{h + 1}"
        a2.bar(x + (h - 1) * 0.25, 100 * sub[col], 0.25, label=f"hand {h + 1}",
               yerr=[100 * (sub[col] - sub[f"{col}_ci_low"]), 100 * (sub[f"{col}_ci_high"] - sub[col])],
               capsize=2)
    a2.axhline(100 / P, color="grey", lw=0.8, ls="--")
    a2.set_xticks(x, POLICIES, rotation=20)
    a2.set_title("seat 0 best or tied for best on each hand")
    a2.legend(fontsize=8)
    fig.suptitle(f"Russian Hold'em, {P} players, field '{field}': how each policy spreads its strength")
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    plt.close(fig)


# -- 2. seat position -------------------------------------------------------------------------


def seat_table(players, policies, n_deals, seed, threads):
    """Per-seat shares, all seats one policy, with paired differences to seat 0."""
    return seat_position_table(VARIANT, players, policies, n_deals, seed, threads, BLOCK, spec="place={}")


def plot_seats(df, path):
    """Each seat's share minus the fair 1/P, with 95% intervals."""
    plot_seat_position(df, path, title="{P} players, every seat the same policy",
                       xlabel="seat (0 places first)",
                       suptitle="Russian Hold'em: what placing later in each round is worth", panel_width=4.8)


# -- 3. the placement chart ---------------------------------------------------------------------


@njit(cache=True, nogil=True)
def placement_features(flop, up, placed, own_down, card, seat, actions, counts):
    """Add each row's (card rank, state, target) to ``counts`` (13, 3, 3).

    state: 0 the card's rank is on a hand with room, 1 a hand with room is
    all of the card's suit (at least two cards), 2 neither. target: the
    chosen hand's place by made strength before the card (0 strongest; the
    strength is the largest group of equal ranks, then its rank; ties: the
    lower hand first).
    """
    strength = np.zeros(3)
    for i in range(card.shape[0]):
        state = card_state(flop, up, placed, own_down, i, seat, card[i], strength)
        counts[card[i] >> 2, state, target_place(strength, actions[i])] += 1


@njit(cache=True, nogil=True)
def card_state(flop, up, placed, own_down, i, seat, c, strength):
    """Row ``i``: the state of placing card ``c`` (0 its rank is on a hand with room, 1 a hand
    with room is all of its suit, 2 neither), and each hand's made strength before it in
    ``strength`` (3,): the largest group of equal ranks, then its rank."""
    r, s = c >> 2, c & 3
    pairs, suits = False, False
    for h in range(3):
        m = placed[i, seat, h]
        cards = np.empty(5, np.int64)
        cards[0] = flop[i, h]
        k = 1
        for j in range(min(m, 3)):
            cards[k] = up[i, seat, h, j]
            k += 1
        if m == 4:
            cards[k] = own_down[i, h]
            k += 1
        cnt = np.zeros(13, np.int64)
        one_suit = True
        for j in range(k):
            cnt[cards[j] >> 2] += 1
            if (cards[j] & 3) != s:
                one_suit = False
        big, top = 0, 0
        for x in range(13):
            if cnt[x] >= big and cnt[x] > 0:
                big, top = cnt[x], x
        strength[h] = big * 13 + top
        if m < 4:
            if cnt[r] > 0:
                pairs = True
            if one_suit and k >= 2:
                suits = True
    return 0 if pairs else (1 if suits else 2)


@njit(cache=True, nogil=True)
def target_place(strength, a):
    """Hand ``a``'s place by made strength (0 the strongest; ties: the lower hand first)."""
    place = 0
    for h in range(3):
        if strength[h] > strength[a] or (strength[h] == strength[a] and h < a):
            place += 1
    return place


def chart_table(policy, n_deals, seed, threads, players=CHART_PLAYERS, field=CHART_FIELD):
    """Where ``policy`` in seat 0 puts its cards, counted by rank, state and target."""
    import pandas as pd

    from simcore.engine import map_alternatives
    from simcore.variants import get_variant
    from simcore.variants.russian import ROUNDS, apply_placements, card_slot, new_state
    from strategies import lineup

    v = get_variant(VARIANT)
    P = players

    def reduce(cards, outs):
        # Seat 0's hands before each of its placements, rebuilt from the recorded actions:
        # what its observation showed when it chose.
        counts = np.zeros((13, 3, 3), np.int64)
        flop = cards[:, :3]
        up, placed, down = new_state(len(cards), P)
        for r in range(ROUNDS):
            card, a = cards[:, card_slot(P, r, 0)], outs[0].actions[(0, "place", r)]
            placement_features(flop, up, placed, down[:, 0], card, 0, a, counts)
            apply_placements(card, 0, a, up, placed, down)
        return counts

    counts = map_alternatives(v, P, [lineup(v, P, f"place={policy}", f"place={field}")], n_deals, reduce,
                              seed=seed, block_size=BLOCK, record=True, threads=threads)[0]
    rows = []
    for r in range(13):
        for st in range(3):
            tot = int(counts[r, st].sum())
            for t in range(3):
                p = counts[r, st, t] / tot if tot else np.nan
                e = np.sqrt(p * (1 - p) / tot) if tot else np.nan
                rows.append({"variant": VARIANT, "players": P, "policy": policy, "field": field,
                             "rank": RANKS[r], "state": STATES[st], "target": TARGETS[t],
                             "n": tot, "share": p, **ci_columns(p, e)})
    return pd.DataFrame(rows)


def plot_chart(df, path):
    """Stacked shares of the cards going to the strongest, middle and weakest hand."""
    import matplotlib.pyplot as plt

    colours = {"strongest": "#4c72b0", "middle": "#dd8452", "weakest": "#8c8c8c"}
    fig, axes = plt.subplots(1, 3, figsize=(16, 4.6), sharey=True)
    for ax, state in zip(axes, STATES):
        sub = df[df.state == state]
        bottom = np.zeros(13)
        for t in TARGETS:
            s = sub[sub.target == t].set_index("rank").loc[list(RANKS)]
            vals = np.nan_to_num(100 * s.share.to_numpy())
            ax.bar(range(13), vals, bottom=bottom, color=colours[t], label=f"to the {t} hand")
            bottom += vals
        n = sub[sub.target == TARGETS[0]].set_index("rank").loc[list(RANKS)].n.to_numpy()
        for x, k in enumerate(n):
            ax.text(x, 101, f"{k // 1000}k" if k >= 1000 else str(k), ha="center", fontsize=7)
        ax.set_xticks(range(13), list(RANKS))
        ax.set_xlabel("rank of the card to place")
        ax.set_title(f"the card {state}")
        ax.set_ylim(0, 108)
    axes[0].set_ylabel("% of that card's placements")
    axes[0].legend(fontsize=8, loc="lower left")
    r = df.iloc[0]
    fig.suptitle(f"Russian Hold'em: where '{r.policy}' (seat 0, {int(r.players)} players, field "
                 f"'{r.field}') places a card, by rank and what it does to the hands\n"
                 f"(hands ranked by made strength before the card; counts of placements above the bars)")
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    plt.close(fig)


# -- main -----------------------------------------------------------------------------------------


def best_policy(df, players=CHART_PLAYERS, field=CHART_FIELD) -> str:
    sub = df[(df.players == players) & (df.field == field)]
    return str(sub.sort_values("share", ascending=False).strategy.iloc[0])


def main(argv=None) -> int:
    p = study_parser("russian_placement", __doc__.split("\n\n")[0],
                     full_help="the full study (about 2-4 minutes on 2 cores)", out="russian", seed=SEED)
    args = p.parse_args(argv)
    cfg, threads, out, log = open_study(p, args, argv, QUICK, FULL)

    import matplotlib

    matplotlib.use("Agg")
    import pandas as pd

    done = log.done

    t0 = time.perf_counter()
    pol = policy_table(cfg["policy_players"], cfg["policy_fields"], cfg["policy_deals"], args.seed, threads)
    write_csv(pol, out / "policies.csv")
    plot_policies(pol, out / "policies.png")
    plot_hands(pol, out / "hands.png")
    done("policies", t0, deals=cfg["policy_deals"], players=cfg["policy_players"],
         fields=cfg["policy_fields"])

    t0 = time.perf_counter()
    seats = seat_table(cfg["seat_players"], cfg["seat_policies"], cfg["seat_deals"], args.seed + 1, threads)
    write_csv(seats, out / "seat_position.csv")
    plot_seats(seats, out / "seat_position.png")
    done("seats", t0, deals=cfg["seat_deals"], players=cfg["seat_players"], policies=cfg["seat_policies"])

    t0 = time.perf_counter()
    best = best_policy(pol)
    chart = chart_table(best, cfg["chart_deals"], args.seed + 2, threads)
    write_csv(chart, out / "placement_chart.csv")
    plot_chart(chart, out / "placement_chart.png")
    done("chart", t0, deals=cfg["chart_deals"], players=CHART_PLAYERS, field=CHART_FIELD, policy=best)

    seconds = log.write(out / "provenance.json")

    with pd.option_context("display.width", 160, "display.max_columns", 20):
        cols = ["players", "field", "strategy", "share", "ci_low", "ci_high", "win_rate", "tie_rate",
                "hands_won_2", "hands_won_3"]
        print(pol[cols].round(4).to_string(index=False))
        print(seats[["players", "strategy", "seat", "share", "ci_low", "ci_high", "diff_vs_seat0",
                     "diff_ci_low", "diff_ci_high"]].round(4).to_string(index=False))
    print(f"wrote {out} ({seconds} s); chart policy: {best}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
