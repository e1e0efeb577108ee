"""Match chances: first to a target score, played hand after hand from zero.

A run keeps the distribution of per-deal payoff rows (:class:`PayoffRows`, a
reducer that merges by addition like every other statistic), and
:func:`match_chances` turns it into each seat's chance of winning a match,
treating hands as independent draws from that distribution. When several
seats pass the target on the same hand, the highest total wins, and a tie on
it splits the match.

The chances are computed exactly (the distribution of score vectors, hand by
hand) while the number of reachable scores stays small, and by simulating
matches otherwise. Their intervals come from a bootstrap over the observed
rows: the rows are resampled as a multinomial with the run's deal count and
the chances recomputed, so they cover the uncertainty of the estimated
distribution (and of the simulation, when one is used).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .stats import Z95

_EPS = 1e-9
_WORK = 10  # state x row products per hand, per state allowed (bounds a hand's work)


@dataclass
class PayoffRows:
    """Counts of every distinct per-deal payoff row (n_players,) seen in a run."""

    n_players: int
    counts: dict = field(default_factory=dict)  # row as a tuple -> deals

    @classmethod
    def of_block(cls, payoffs: np.ndarray) -> "PayoffRows":
        rows, counts = np.unique(np.asarray(payoffs, np.float64), axis=0, return_counts=True)
        return cls(payoffs.shape[1], {tuple(r.tolist()): int(c) for r, c in zip(rows, counts)})

    def merge(self, other: "PayoffRows") -> None:
        for row, c in other.counts.items():
            self.counts[row] = self.counts.get(row, 0) + c

    @property
    def n(self) -> int:
        return sum(self.counts.values())

    def arrays(self):
        """(rows (m, P) float64, counts (m,) int64), rows in sorted order."""
        keys = sorted(self.counts)
        rows = np.array(keys, dtype=np.float64).reshape(len(keys), self.n_players)
        return rows, np.array([self.counts[k] for k in keys], dtype=np.int64)


@dataclass
class MatchChances:
    """Each seat's chance of winning a match, with its standard error and interval."""

    target: float
    win: np.ndarray  # (P,)
    stderr: np.ndarray  # (P,)
    mean_hands: float
    mean_hands_stderr: float
    exact: bool  # computed exactly from the distribution (else simulated)

    @property
    def ci_low(self) -> np.ndarray:
        return self.win - Z95 * self.stderr

    @property
    def ci_high(self) -> np.ndarray:
        return self.win + Z95 * self.stderr


def match_probabilities(rows, probs, target: float, *, max_states: int = 50_000,
                        n_matches: int = 100_000, seed: int = 0):
    """Win chance per seat and mean match length for hands drawn from ``probs``.

    Parameters
    ----------
    rows : (m, P) float per-hand payoffs.
    probs : (m,) probabilities of the rows (summing to 1).
    target : the score that ends a match.

    Returns
    -------
    (win (P,), mean_hands, exact): exact is False when the score space grew
    past ``max_states`` and ``n_matches`` matches were simulated instead.

    >>> win, hands, exact = match_probabilities([[1.0, 0.0], [0.0, 1.0]], [0.5, 0.5], 2)
    >>> win.tolist(), hands, exact
    ([0.5, 0.5], 2.5, True)
    """
    rows = np.asarray(rows, np.float64)
    probs = np.asarray(probs, np.float64)
    if rows.ndim != 2 or rows.shape[0] != probs.shape[0]:
        raise ValueError(f"rows (m, P) and probs (m,) do not match: {rows.shape}, {probs.shape}")
    if not target > 0:
        raise ValueError(f"a match target must be positive, got {target!r}")
    keep = probs > 0
    rows, probs = rows[keep], probs[keep] / probs[keep].sum()
    if (rows.max(axis=1) <= 0).all():
        raise ValueError("no payoff row scores anything: a match would never end")
    exact = _exact(rows, probs, target, max_states)
    if exact is not None:
        return exact[0], exact[1], True
    win, hands = _simulated(rows, probs, target, n_matches, seed)
    return win, hands, False


def _exact(rows, probs, target, max_states):
    """The score-vector distribution, hand by hand; None once it outgrows max_states
    (or one hand's state-by-row products outgrow ``_WORK`` times that)."""
    P = rows.shape[1]
    states = np.zeros((1, P))
    mass = np.ones(1)
    win = np.zeros(P)
    hands = 0.0
    h = 0
    while mass.size:
        h += 1
        # Every state followed by every row; scores rounded so that equal totals
        # reached in different orders are one state.
        nxt = np.round((states[:, None, :] + rows[None, :, :]).reshape(-1, P), 9)
        w = (mass[:, None] * probs[None, :]).reshape(-1)
        top = nxt.max(axis=1)
        done = top >= target - _EPS
        if done.any():
            best = nxt[done] >= top[done, None] - _EPS
            win += (w[done, None] * best / best.sum(axis=1, keepdims=True)).sum(axis=0)
            hands += h * w[done].sum()
        nxt, w = nxt[~done], w[~done]
        if nxt.size:
            states, inverse = np.unique(nxt, axis=0, return_inverse=True)
            mass = np.bincount(inverse.reshape(-1), weights=w, minlength=len(states))
            keep = mass > 1e-15
            states, mass = states[keep], mass[keep]
        else:
            mass = np.zeros(0)
        if len(mass) > max_states or len(mass) * len(rows) > _WORK * max_states or h > 100_000:
            return None
    return win / win.sum(), float(hands)


def _simulated(rows, probs, target, n_matches, seed):
    rng = np.random.default_rng(seed)
    P = rows.shape[1]
    scores = np.zeros((n_matches, P))
    alive = np.arange(n_matches)
    win = np.zeros(P)
    hands = 0.0
    cum = np.cumsum(probs)
    h = 0
    while alive.size:
        h += 1
        pick = np.minimum(np.searchsorted(cum, rng.random(alive.size), side="right"), len(probs) - 1)
        scores[alive] += rows[pick]
        s = scores[alive]
        top = s.max(axis=1)
        done = top >= target - _EPS
        if done.any():
            best = s[done] >= top[done, None] - _EPS
            win += (best / best.sum(axis=1, keepdims=True)).sum(axis=0)
            hands += h * done.sum()
        alive = alive[~done]
    return win / n_matches, float(hands / n_matches)


def match_chances(payoff_rows: PayoffRows, target: float, *, n_boot: int = 32, seed: int = 0,
                  max_states: int = 5_000, n_matches: int = 40_000) -> MatchChances:
    """Match chances from a run's payoff rows, with bootstrap standard errors.

    >>> rows = PayoffRows(2, {(1.0, 0.0): 500, (0.0, 1.0): 500})
    >>> m = match_chances(rows, 1)
    >>> m.win.tolist(), m.mean_hands, m.exact
    ([0.5, 0.5], 1.0, True)
    """
    rows, counts = payoff_rows.arrays()
    n = int(counts.sum())
    if n == 0:
        raise ValueError("no deals: match chances need a finished run")
    probs = counts / n
    win, hands, exact = match_probabilities(rows, probs, target, max_states=max_states,
                                            n_matches=n_matches, seed=seed)
    rng = np.random.default_rng(seed + 1)
    # Simulated replicates may be smaller: their own simulation variance,
    # p (1 - p) / n_rep for independent seeds, is taken out of the spread.
    n_rep = max(n_matches // 4, 1000)
    boot_w, boot_h = [], []
    for b in range(n_boot):
        c = rng.multinomial(n, probs)
        # A score space too big for the estimate is too big for its replicates.
        w, hh, _ = match_probabilities(rows, c / n, target, max_states=max_states if exact else 0,
                                       n_matches=n_rep, seed=seed + 2 + b)
        boot_w.append(w)
        boot_h.append(hh)
    var = np.var(boot_w, axis=0, ddof=1) if n_boot > 1 else np.full(len(win), np.nan)
    hse = float(np.std(boot_h, ddof=1)) if n_boot > 1 else float("nan")
    if not exact:
        var = np.maximum(var - win * (1 - win) / n_rep, 0.0) + win * (1 - win) / n_matches
    se = np.sqrt(var)
    return MatchChances(float(target), win, se, float(hands), hse, exact)
