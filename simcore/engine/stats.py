"""Running statistics that never grow with the number of deals.

Every accumulator holds sums only and merges by addition, in block order, so
that a run's numbers are bit-identical whatever the thread count. Intervals
are normal 95% intervals on the mean of per-deal results (n is large).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

Z95 = 1.959963984540054
N_CATEGORIES = 9


def _mean_se(total, total_sq, n):
    """Mean and its standard error from a sum and a sum of squares."""
    if n == 0:
        return np.full_like(np.asarray(total, float), np.nan), np.full_like(np.asarray(total, float), np.nan)
    mean = total / n
    var = np.maximum(total_sq / n - mean**2, 0.0) * n / max(n - 1, 1)
    return mean, np.sqrt(var / n)


@dataclass
class SeatStats:
    """Per-seat pot share, win and tie counts, and final hand categories."""

    n_players: int
    n: int = 0
    share_sum: np.ndarray = None
    share_sq: np.ndarray = None
    wins: np.ndarray = None
    ties: np.ndarray = None
    categories: np.ndarray = None  # (players, 9) final hand categories
    winning: np.ndarray = None  # (9,) category of the winning hand

    def __post_init__(self):
        p = self.n_players
        if self.share_sum is None:
            self.share_sum = np.zeros(p)
            self.share_sq = np.zeros(p)
            self.wins = np.zeros(p, np.int64)
            self.ties = np.zeros(p, np.int64)
            self.categories = np.zeros((p, N_CATEGORIES), np.int64)
            self.winning = np.zeros(N_CATEGORIES, np.int64)

    @classmethod
    def of_block(cls, shares: np.ndarray, categories: np.ndarray | None) -> "SeatStats":
        """Sums of one block: shares (n, players) float64, categories (n, players) int8."""
        n, p = shares.shape
        s = cls(p)
        s.n = n
        if categories is None:
            categories = np.full((n, p), -1, np.int8)
        (s.share_sum, s.share_sq, s.wins, s.ties, s.categories, s.winning) = _seat_sums(
            np.ascontiguousarray(shares), np.ascontiguousarray(categories, dtype=np.int8)
        )
        return s

    def merge(self, other: "SeatStats") -> None:
        self.n += other.n
        self.share_sum += other.share_sum
        self.share_sq += other.share_sq
        self.wins += other.wins
        self.ties += other.ties
        self.categories += other.categories
        self.winning += other.winning

    def share(self):
        """(mean, standard error) of each seat's pot share."""
        return _mean_se(self.share_sum, self.share_sq, self.n)

    def max_half_width(self) -> float:
        _, se = self.share()
        return float(np.max(Z95 * se)) if self.n > 1 else np.inf


@njit(cache=True, nogil=True)
def _seat_sums(shares, categories):
    """One pass over a block: share sums, squares, wins, ties, categories.

    The winning hand's category is that of the first seat with the top share;
    rows with a category below 0 (none recorded) count in no histogram.
    """
    n, p = shares.shape
    total = np.zeros(p)
    squares = np.zeros(p)
    wins = np.zeros(p, np.int64)
    ties = np.zeros(p, np.int64)
    cats = np.zeros((p, N_CATEGORIES), np.int64)
    winning = np.zeros(N_CATEGORIES, np.int64)
    for i in range(n):
        best = 0
        for j in range(p):
            x = shares[i, j]
            total[j] += x
            squares[j] += x * x
            if x == 1.0:
                wins[j] += 1
            elif x > 0.0:
                ties[j] += 1
            c = categories[i, j]
            if c >= 0:
                cats[j, c] += 1
            if x > shares[i, best]:
                best = j
        c = categories[i, best]
        if c >= 0:
            winning[c] += 1
    return total, squares, wins, ties, cats, winning


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
    def of_block(cls, x: np.ndarray) -> "PairedStats":
        """x: (n, k) the seat's share per deal under each alternative."""
        s = cls(x.shape[1])
        s.n = x.shape[0]
        s.total = x.sum(axis=0)
        s.cross = x.T @ x
        s.wins = (x == 1.0).sum(axis=0)
        s.ties = ((x > 0) & (x < 1.0)).sum(axis=0)
        return s

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
        """Is the best alternative ahead of every other at 95%?"""
        if self.n < 2:
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


def interval(mean, se):
    """The 95% interval (low, high) of a mean with standard error se."""
    return mean - Z95 * se, mean + Z95 * se
