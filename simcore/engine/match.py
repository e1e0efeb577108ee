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

from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from .stats import Z95

_EPS = 1e-9


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
    P = rows.shape[1]
    states = {(0.0,) * P: 1.0}
    win = np.zeros(P)
    hands = 0.0
    h = 0
    rows_t = [tuple(r) for r in rows.tolist()]
    while states:
        h += 1
        nxt: dict = defaultdict(float)
        for st, pr in states.items():
            for row, q in zip(rows_t, probs):
                s2 = tuple(round(a + b, 9) for a, b in zip(st, row))
                top = max(s2)
                w = pr * q
                if top >= target - _EPS:
                    best = [j for j in range(P) if s2[j] >= top - _EPS]
                    for j in best:
                        win[j] += w / len(best)
                    hands += h * w
                else:
                    nxt[s2] += w
        states = {k: v for k, v in nxt.items() if v > 1e-15}
        if len(states) > max_states or h > 100_000:
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
                  max_states: int = 50_000, n_matches: int = 50_000) -> MatchChances:
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
    boot_w, boot_h = [], []
    for _ in range(n_boot):
        c = rng.multinomial(n, probs)
        w, hh, _ = match_probabilities(rows, c / n, target, max_states=max_states,
                                       n_matches=n_matches, seed=seed)
        boot_w.append(w)
        boot_h.append(hh)
    se = np.std(boot_w, axis=0, ddof=1) if n_boot > 1 else np.full(len(win), np.nan)
    hse = float(np.std(boot_h, ddof=1)) if n_boot > 1 else float("nan")
    if not exact:  # the point estimate's own simulation error
        se = np.sqrt(se ** 2 + win * (1 - win) / n_matches)
    return MatchChances(float(target), win, se, float(hands), hse, exact)
