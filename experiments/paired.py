"""What the paired experiments share: seat 0's paired rows, the seat-position study,
and the paired-difference charts.

A paired study plays every alternative on the same deals and keeps sums per
block (:class:`simcore.engine.stats.PairedStats` and plain counts), through
:func:`simcore.engine.map_alternatives`, whose default merge
(:func:`simcore.engine.merge_parts`) merges them in block order; the rows carry
95% intervals from ``stats.interval``. The charts read the tables and never
simulate.
"""
from __future__ import annotations

from experiments.outputs import save_figure


def ci_columns(value, se, prefix: str = "") -> dict:
    """The 95% interval of ``value`` (standard error ``se``) as columns
    ``{prefix}ci_low`` and ``{prefix}ci_high`` (:func:`simcore.engine.stats.interval`).

    >>> sorted(ci_columns(0.5, 0.0, "diff_").items())
    [('diff_ci_high', 0.5), ('diff_ci_low', 0.5)]
    """
    from simcore.engine.stats import interval

    lo, hi = interval(value, se)
    return {f"{prefix}ci_low": lo, f"{prefix}ci_high": hi}


def paired_rows(st, labels, base, common) -> list[dict]:
    """Seat 0's rows of a paired run: one per alternative, with the paired difference to ``base``.

    Parameters
    ----------
    st : PairedStats over the alternatives (seat 0 under each).
    labels : the alternatives' names, in the order of ``st`` (the ``strategy`` column).
    base : index of the alternative the differences are taken to.
    common : columns shared by every row, first in each row; a ``strategy`` key
        given there (any value) keeps that place for the label column.
    """
    mean, se = st.share()
    rows = []
    for a, lab in enumerate(labels):
        d, dse = st.diff(a, base)
        rows.append({**common, "strategy": lab, "seat": 0, "n": st.n, "share": mean[a],
                     "stderr": se[a], **ci_columns(mean[a], se[a]),
                     "win_rate": st.wins[a] / st.n, "tie_rate": st.ties[a] / st.n,
                     "diff": d, "diff_stderr": dse, **ci_columns(d, dse, "diff_")})
    return rows


def _seat_paired(cards, outcomes):
    """A block's PairedStats over the seats (module level: cells travel)."""
    from simcore.engine.stats import PairedStats

    o = outcomes[0]
    return PairedStats.of_block(o.payoffs, o.wins, o.ties)


def seat0_paired(cards, outcomes):
    """A block's PairedStats of seat 0 over the alternatives (a reduce for map_alternatives)."""
    from simcore.engine.stats import PairedStats

    return PairedStats.of_outcomes(outcomes, 0)


def seat_cell(variant, n_players, spec, n_deals, seed, block, threads):
    """One cell of the seat-position study: PairedStats over the seats, every seat on ``spec``."""
    from simcore.engine import map_alternatives
    from simcore.variants import get_variant
    from strategies import lineup

    v = get_variant(variant)
    return map_alternatives(v, n_players, [lineup(v, n_players, spec, spec)], n_deals, _seat_paired, seed=seed,
                            block_size=block, threads=threads)[0]


def seat_position_table(variant, players, policies, n_deals, seed, threads, block, spec="{}"):
    """Per-seat shares with every seat on one policy, with paired differences to seat 0.

    Parameters
    ----------
    variant : the variant's name.
    players : table sizes.
    policies : policy names (the ``strategy`` column).
    n_deals : deals per table size and policy.
    seed : the run of P players uses ``seed + P``.
    threads : worker threads (cells run one after another), unless
        :mod:`experiments.cells` sends the cells out as one batch.
    block : deals per block.
    spec : the strategy spec of a policy name, ``spec.format(name)`` ("place={}").

    Returns
    -------
    DataFrame, one row per (players, policy, seat).
    """
    import pandas as pd

    from .cells import run_cells

    cells = [{"variant": variant, "n_players": P, "spec": spec.format(pol), "n_deals": n_deals,
              "seed": seed + P, "block": block} for P in players for pol in policies]
    results = iter(run_cells(seat_cell, cells, threads))
    rows = []
    for P in players:
        for pol in policies:
            st = next(results)
            mean, se = st.share()
            for seat in range(P):
                d, dse = st.diff(seat, 0)
                rows.append({
                    "variant": variant, "players": P, "strategy": pol, "seat": seat, "n": st.n,
                    "share": mean[seat], "stderr": se[seat], **ci_columns(mean[seat], se[seat]),
                    "win_rate": st.wins[seat] / st.n, "tie_rate": st.ties[seat] / st.n,
                    "diff_vs_seat0": d, **ci_columns(d, dse, "diff_"),
                })
    return pd.DataFrame(rows)


def plot_seat_position(df, path, *, title, xlabel, suptitle, panel_width=4.5):
    """Each seat's share minus the fair 1/P, with 95% intervals, one panel per table size.

    ``title`` is formatted with ``P`` (the table size) for each panel.
    """
    import matplotlib.pyplot as plt

    players = sorted(df.players.unique())
    fig, axes = plt.subplots(1, len(players), figsize=(panel_width * len(players), 4), squeeze=False)
    for ax, P in zip(axes[0], players):
        sub = df[df.players == P]
        pols = list(dict.fromkeys(sub.strategy))
        for k, pol in enumerate(pols):
            s = sub[sub.strategy == pol]
            x = s.seat + (k - (len(pols) - 1) / 2) * 0.15
            ax.errorbar(x, 100 * (s.share - 1 / P), yerr=100 * (s.share - s.ci_low), fmt="o",
                        capsize=2, label=pol)
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_title(title.format(P=P))
        ax.set_xlabel(xlabel)
        ax.set_xticks(range(P))
    axes[0, 0].set_ylabel("share minus 1/P (points, 95% CI)")
    axes[0, 0].legend(fontsize=8)
    fig.suptitle(suptitle)
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    plt.close(fig)


def paired_panel(ax, rows, *, baseline=None, scale=1.0, spread=0.12, label="{}", ms=3, capsize=2):
    """Draw one panel of paired differences against the table size, one line per strategy.

    ``rows`` is a tidy table with columns ``players``, ``strategy``, ``diff``,
    ``diff_ci_low`` and ``diff_ci_high`` (as :func:`paired_rows` writes them);
    the ``baseline`` strategy (its difference is 0) is left out. Strategies keep
    the order in which they first appear, each shifted sideways by ``spread``
    so that the intervals do not cover each other; ``scale`` multiplies the
    values (100: points of a pot), ``label`` formats a strategy's legend entry.
    """
    if baseline is not None:
        rows = rows[rows.strategy != baseline]
    pols = list(dict.fromkeys(rows.strategy))
    for k, pol in enumerate(pols):
        s = rows[rows.strategy == pol]
        x = s.players + (k - (len(pols) - 1) / 2) * spread
        ax.errorbar(x, scale * s["diff"], yerr=[scale * (s["diff"] - s.diff_ci_low),
                                                scale * (s.diff_ci_high - s["diff"])],
                    fmt="o-", ms=ms, capsize=capsize, label=label.format(pol))
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xticks(sorted(rows.players.unique()))
    ax.set_xlabel("players")


def plot_paired_by_players(df, path, *, suptitle, ylabel, panels=(), ncols=None, title="", baseline=None,
                           panel_size=(6.5, 4.5), sharey=False, ylabel_each=False, legend_each=False,
                           fontsize=None, **style):
    """The paired-difference chart: one panel per value of the ``panels`` columns, each
    drawn by :func:`paired_panel` from the tidy table ``df``; written to ``path``.

    ``panels`` names no column (one panel), one (its values in the order they
    first appear, ``ncols`` to a row, default all) or two (the first varies by
    row of the grid, the second by column; a combination without rows leaves
    its panel empty). ``title`` and ``ylabel`` are formatted with a panel's
    first row (``"field: {field}"``); the y label goes on every panel with
    ``ylabel_each``, else on the first of each row, and the legend on every
    panel with ``legend_each``, else on the first. ``fontsize`` sets the
    titles', labels' and legends' size (None: the defaults, legends 8).
    ``style`` goes to :func:`paired_panel`.
    """
    import matplotlib.pyplot as plt

    panels = (panels,) if isinstance(panels, str) else tuple(panels)
    keys = [list(dict.fromkeys(df[c])) for c in panels]
    if len(panels) == 0:
        cells, ncols = [df], 1
    elif len(panels) == 1:
        cells, ncols = [df[df[panels[0]] == k] for k in keys[0]], ncols or len(keys[0])
    elif len(panels) == 2:
        cells = [df[(df[panels[0]] == r) & (df[panels[1]] == c)] for r in keys[0] for c in keys[1]]
        ncols = len(keys[1])
    else:
        raise ValueError(f"panels: at most two columns (rows, columns of the grid), got {panels}")
    nrows = -(-len(cells) // ncols)
    fig, axes = plt.subplots(nrows, ncols, squeeze=False, sharey=sharey,
                             figsize=(panel_size[0] * ncols, panel_size[1] * nrows))
    first = True
    for k, ax in enumerate(axes.flat):
        sub = cells[k] if k < len(cells) else df.iloc[:0]
        if sub.empty:
            ax.axis("off")
            continue
        head = sub.iloc[0]
        paired_panel(ax, sub, baseline=baseline, **style)
        if title:
            ax.set_title(title.format(**head), fontsize=fontsize)
        if ylabel_each or k % ncols == 0:
            ax.set_ylabel(ylabel.format(**head), fontsize=fontsize)
        if legend_each or first:
            ax.legend(fontsize=fontsize or 8)
        first = False
    fig.suptitle(suptitle)
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    plt.close(fig)
