"""What the paired experiments share: the block merge, seat 0's paired rows,
and the seat-position study (table and chart).

A paired study plays every alternative on the same deals and keeps sums per
block (:class:`simcore.engine.stats.PairedStats` and plain counts), merged in
block order by :func:`merge_blocks`; the rows carry 95% intervals from
``stats.interval``. The charts read the tables and never simulate.
"""
from __future__ import annotations

import numpy as np


def merge_blocks(acc, part):
    """Merge one block's sums ``part`` into ``acc`` (block order) and return ``acc``.

    Anything with a ``merge`` method (the engine's statistics) merges in place;
    tuples and lists merge item by item; dicts merge key by key (a key new in
    ``part`` is taken as it is); anything else (counts, arrays) adds.

    >>> merge_blocks((2, {"a": 1}), (3, {"a": 1, "b": 5}))
    (5, {'a': 2, 'b': 5})
    """
    if hasattr(acc, "merge"):
        acc.merge(part)
        return acc
    if isinstance(acc, dict):
        for k, v in part.items():
            acc[k] = merge_blocks(acc[k], v) if k in acc else v
        return acc
    if isinstance(acc, (tuple, list)):
        if len(acc) != len(part):
            raise ValueError(f"merge_blocks: {len(acc)} items against {len(part)}")
        return type(acc)(merge_blocks(x, y) for x, y in zip(acc, part))
    return acc + part


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


def seat_cell(variant, n_players, spec, n_deals, seed, block, threads):
    """One cell of the seat-position study: PairedStats over the seats, every seat on ``spec``."""
    from simcore.engine import map_blocks
    from simcore.engine.runner import Job
    from simcore.engine.stats import PairedStats
    from simcore.variants import get_variant
    from strategies import lineup

    v = get_variant(variant)
    known = np.full(v.n_slots(n_players), -1, np.int8)
    job = Job(v, n_players, [lineup(v, n_players, spec, spec)], known, seed, block, [{}])

    def run_block(b, n):
        o = job.run_block(b, n)[0]
        return PairedStats.of_block(o.payoffs, o.wins, o.ties)

    return map_blocks(run_block, n_deals, block, merge_blocks, threads=threads)[0]


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
    fig.savefig(path, dpi=110)
    plt.close(fig)
