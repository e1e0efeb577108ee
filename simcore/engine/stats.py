"""Running statistics that never grow with the number of deals.

Every accumulator holds sums only and merges by addition, in block order, so
that a run's numbers are bit-identical whatever the thread count. Intervals
are normal 95% intervals on the mean of per-deal results (n is large). The
per-deal result is the variant's payoff (a pot share or points), reported as
``share``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

Z95 = 1.959963984540054
N_CATEGORIES = 9
# Below this many deals a normal 95% interval is not one: with a 15% outcome
# (a pair of aces losing) 100 deals hold about 15 events, the fewest for which
# the normal approximation is roughly right. Results below it say so.
MIN_INTERVAL_DEALS = 100
# A stopping rule (--precision, analysis separation) looks only from here on:
# after a couple of deals the sample variance is often zero and a lucky start
# would stop the run with a zero-width interval.
MIN_STOP_DEALS = 1000


def _mean_se(total, total_sq, n):
    """Mean and its standard error from a sum and a sum of squares."""
    if n == 0:
        return np.full_like(np.asarray(total, float), np.nan), np.full_like(np.asarray(total, float), np.nan)
    mean = total / n
    if n == 1:  # one deal has no spread to measure: no interval, not a zero-width one
        return mean, np.full_like(np.asarray(mean, float), np.nan)
    var = np.maximum(total_sq / n - mean**2, 0.0) * n / max(n - 1, 1)
    return mean, np.sqrt(var / n)


@dataclass
class SeatStats:
    """Per-seat payoff, win and tie counts, hand categories and the variant's parts.

    The payoff is reported as ``share`` (its mean per deal) in the variant's
    unit; wins and ties are counted from the outcome's explicit flags.
    """

    n_players: int
    n_hands: int = 1
    part_names: tuple = ()
    n: int = 0
    share_sum: np.ndarray = None
    share_sq: np.ndarray = None
    wins: np.ndarray = None
    ties: np.ndarray = None
    categories: np.ndarray = None  # (players, hands, 9) final hand categories
    winning: np.ndarray = None  # (hands, 9) category of the winning hand
    part_sum: np.ndarray = None  # (parts, players)
    part_sq: np.ndarray = None

    def __post_init__(self):
        p, h, k = self.n_players, self.n_hands, len(self.part_names)
        if self.share_sum is None:
            self.share_sum = np.zeros(p)
            self.share_sq = np.zeros(p)
            self.wins = np.zeros(p, np.int64)
            self.ties = np.zeros(p, np.int64)
            self.categories = np.zeros((p, h, N_CATEGORIES), np.int64)
            self.winning = np.zeros((h, N_CATEGORIES), np.int64)
            self.part_sum = np.zeros((k, p))
            self.part_sq = np.zeros((k, p))

    @classmethod
    def of_outcome(cls, outcome, part_names: tuple = ()) -> "SeatStats":
        """Sums of one block's :class:`~simcore.engine.variant.Outcome`."""
        n, p = outcome.payoffs.shape
        cats = np.ascontiguousarray(outcome.categories, dtype=np.int8)
        if cats.ndim == 2:
            cats = cats[:, :, None]
        s = cls(p, cats.shape[2], tuple(part_names))
        s.n = n
        winning = outcome.winning
        if winning is None:
            winning = np.empty((0, cats.shape[2]), np.int8)
        (s.share_sum, s.share_sq, s.wins, s.ties, s.categories, s.winning) = _seat_sums(
            np.ascontiguousarray(outcome.payoffs, dtype=np.float64),
            np.ascontiguousarray(outcome.wins, dtype=np.bool_),
            np.ascontiguousarray(outcome.ties, dtype=np.bool_),
            cats, np.ascontiguousarray(winning, dtype=np.int8),
        )
        for k, name in enumerate(part_names):
            s.part_sum[k], s.part_sq[k] = _column_sums(
                np.ascontiguousarray(outcome.parts[name], dtype=np.float64))
        return s

    def merge(self, other: "SeatStats") -> None:
        self.n += other.n
        self.share_sum += other.share_sum
        self.share_sq += other.share_sq
        self.wins += other.wins
        self.ties += other.ties
        self.categories += other.categories
        self.winning += other.winning
        self.part_sum += other.part_sum
        self.part_sq += other.part_sq

    def share(self):
        """(mean, standard error) of each seat's payoff."""
        return _mean_se(self.share_sum, self.share_sq, self.n)

    def part(self, name: str):
        """(mean, standard error) of each seat's part ``name``."""
        k = self.part_names.index(name)
        return _mean_se(self.part_sum[k], self.part_sq[k], self.n)

    def max_half_width(self) -> float:
        _, se = self.share()
        return float(np.max(Z95 * se)) if self.n > 1 else np.inf


@njit(cache=True, nogil=True)
def _column_sums(x):
    """Per-column sums and sums of squares of x (n, p), in row order (numpy's
    axis-0 sum of a narrow array took 0.5 ms a 16,384-row block; this 0.02)."""
    n, p = x.shape
    total = np.zeros(p)
    squares = np.zeros(p)
    for i in range(n):
        for j in range(p):
            v = x[i, j]
            total[j] += v
            squares[j] += v * v
    return total, squares


@njit(cache=True, nogil=True)
def _seat_sums(payoffs, wins, ties, categories, winning):
    """One pass over a block: payoff sums, squares, wins, ties, categories.

    ``winning`` (n, hands) gives the winning category per hand; when it has
    no rows, it is that of the first seat that wins or ties. Categories below
    0 (none recorded) count in no histogram.
    """
    n, p = payoffs.shape
    h = categories.shape[2]
    total = np.zeros(p)
    squares = np.zeros(p)
    n_wins = np.zeros(p, np.int64)
    n_ties = np.zeros(p, np.int64)
    cats = np.zeros((p, h, N_CATEGORIES), np.int64)
    won = np.zeros((h, N_CATEGORIES), np.int64)
    given = winning.shape[0] == n
    # The sums run seat by seat in deal order (the order a run's numbers were
    # always summed in); the counts follow in a second pass.
    for i in range(n):
        for j in range(p):
            x = payoffs[i, j]
            total[j] += x
            squares[j] += x * x
    for i in range(n):
        first = -1
        for j in range(p):
            w = wins[i, j]
            t = ties[i, j]
            n_wins[j] += w
            n_ties[j] += t
            if first < 0 and (w or t):
                first = j
        for k in range(h):
            for j in range(p):
                c = categories[i, j, k]
                if c >= 0:
                    cats[j, k, c] += 1
            c = winning[i, k] if given else (categories[i, first, k] if first >= 0 else -1)
            if c >= 0:
                won[k, c] += 1
    return total, squares, n_wins, n_ties, cats, won


@dataclass
class PairedStats:
    """One seat's share under k alternatives played on the same deals.

    Holds the sums of x_a and of x_a * x_b, so that any difference between
    alternatives has its own (paired, much tighter) standard error.
    """

    k: int
    n: int = 0
    total: np.ndarray = None
    cross: np.ndarray = None
    wins: np.ndarray = None
    ties: np.ndarray = None

    def __post_init__(self):
        if self.total is None:
            self.total = np.zeros(self.k)
            self.cross = np.zeros((self.k, self.k))
            self.wins = np.zeros(self.k, np.int64)
            self.ties = np.zeros(self.k, np.int64)

    @classmethod
    def of_block(cls, x: np.ndarray, wins: np.ndarray | None = None,
                 ties: np.ndarray | None = None) -> "PairedStats":
        """x: (n, k) the seat's payoff per deal under each alternative;
        wins, ties: (n, k) bool, its outright wins and ties (none counted if None)."""
        s = cls(x.shape[1])
        s.n = x.shape[0]
        s.total = x.sum(axis=0)
        s.cross = x.T @ x
        if wins is not None:
            s.wins = wins.sum(axis=0).astype(np.int64)
        if ties is not None:
            s.ties = ties.sum(axis=0).astype(np.int64)
        return s

    @classmethod
    def of_outcomes(cls, outcomes, seat: int) -> "PairedStats":
        """``seat``'s payoffs, wins and ties under each alternative's Outcome."""
        return cls.of_block(np.stack([o.payoffs[:, seat] for o in outcomes], axis=1),
                            np.stack([o.wins[:, seat] for o in outcomes], axis=1),
                            np.stack([o.ties[:, seat] for o in outcomes], axis=1))

    def merge(self, other: "PairedStats") -> None:
        self.n += other.n
        self.total += other.total
        self.cross += other.cross
        self.wins += other.wins
        self.ties += other.ties

    def share(self):
        return _mean_se(self.total, np.diag(self.cross), self.n)

    def diff(self, a: int, b: int):
        """(mean, standard error) of share[a] - share[b] on the same deals."""
        t = self.total[a] - self.total[b]
        sq = self.cross[a, a] + self.cross[b, b] - 2 * self.cross[a, b]
        return _mean_se(t, sq, self.n)

    def separated(self) -> bool:
        """Is the best alternative ahead of every other at 95%? (Never below
        ``MIN_INTERVAL_DEALS`` deals: too few for an interval.)"""
        if self.n < MIN_INTERVAL_DEALS:
            return False
        mean, _ = self.share()
        best = int(np.argmax(mean))
        for a in range(self.k):
            if a != best:
                d, se = self.diff(best, a)
                if d - Z95 * se <= 0:
                    return False
        return True

    def max_half_width(self) -> float:
        _, se = self.share()
        return float(np.max(Z95 * se)) if self.n > 1 else np.inf


def rates(counts, n: int):
    """``counts / n`` as floats: a rate per deal, or NaN (no rate at all, null in JSON)
    when no deal was played; never a 0.0 that no deal measured."""
    counts = np.asarray(counts)
    if n == 0:
        return np.full(counts.shape, np.nan)
    return counts / n


def interval(mean, se):
    """The 95% interval (low, high) of a mean with standard error se."""
    return mean - Z95 * se, mean + Z95 * se
