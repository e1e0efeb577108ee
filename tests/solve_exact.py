"""Exact values of a symmetric mixed table in Draw Duel (deck 7, 2 players), by enumeration.

Every ordered deal (5,040) is played once for each pair of pure action
sequences of the two seats (8 x 8: draw round 1, draw round 2, stake), with
forced actions, by the game itself. A table's probability of a sequence on a
deal is the product of its bucket probabilities along the seat's history (rows
without an entry play the game's default policies: exchange under 4, play from
4). The exact best response to a table (seat 0, seat 1 playing the table) comes
from backward induction over the history buckets, as in test_exploit_exact.
"""
from __future__ import annotations

from itertools import product

import numpy as np

from test_exploit_game import DRAW, STAKE, enumerated_chance

DECK = 7
SEQS = list(product((0, 1), (0, 1), (0, 1)))  # (draw round 1, draw round 2, stake)


def histories(vals, p, a0=None, a1=None):
    """Seat p's history array (n, 5) after the given actions (None: not yet taken)."""
    n = vals.shape[0]
    h, e0, e1 = vals[:, 0, p], vals[:, 1, p], vals[:, 2, p]
    H = np.full((n, 5), -1, np.int64)
    H[:, 0] = h
    if a0 is not None:
        c1 = np.where(a0 == 1, e0, h)
        H[:, 1], H[:, 2] = a0, c1
        if a1 is not None:
            H[:, 3], H[:, 4] = a1, np.where(a1 == 1, e1, c1)
    return H


class Enumeration:
    """The duel's payoffs for every pair of pure sequences on every deal."""

    def __init__(self, v, abst):
        from simcore.engine import play_block

        self.v, self.abst = v, abst
        self.chance = enumerated_chance(DECK, 2)
        n = len(self.chance)
        self.vals = v.values(self.chance, 2)
        lu = [{DRAW: ("x", None), STAKE: ("x", None)}] * 2
        self.pay = np.empty((8, 8, n))  # [seq of seat 0, seq of seat 1, deal] -> seat 0's payoff
        for i, (a0, a1, s) in enumerate(SEQS):
            for j, (b0, b1, t) in enumerate(SEQS):
                forced = {(0, DRAW, 0): a0, (0, DRAW, 1): a1, (0, STAKE): s,
                          (1, DRAW, 0): b0, (1, DRAW, 1): b1, (1, STAKE): t}
                forced = {k: np.full(n, a, np.int64) for k, a in forced.items()}
                out = play_block(v, np.zeros((n, 0), np.int8), 2, lu, [np.random.default_rng(0)] * 2,
                                 forced=forced, chance=self.chance)
                self.pay[i, j] = out.payoffs[:, 0]

    def _prob(self, table, decision, H, round_, action):
        """(n,) probability the table plays ``action`` at the nodes with history H."""
        b = self.abst[decision].buckets({"history": H}, round_)
        probs = table[decision][b]
        empty = probs.sum(axis=1) == 0
        card = np.where(H[:, 4] >= 0, H[:, 4], np.where(H[:, 2] >= 0, H[:, 2], H[:, 0]))
        default = (card < 4) if decision == DRAW else (card >= 4)
        p = probs[:, action] / np.where(empty, 1.0, probs.sum(axis=1))
        return np.where(empty, (default == action).astype(np.float64), p)

    def seq_probs(self, table, p):
        """(8, n) probability of each of seat p's sequences on each deal."""
        out = np.empty((8, len(self.chance)))
        for i, (a0, a1, s) in enumerate(SEQS):
            n = len(self.chance)
            A0, A1 = np.full(n, a0), np.full(n, a1)
            out[i] = (self._prob(table, DRAW, histories(self.vals, p), 0, a0)
                      * self._prob(table, DRAW, histories(self.vals, p, A0), 1, a1)
                      * self._prob(table, STAKE, histories(self.vals, p, A0, A1), 0, s))
        return out

    def value(self, table0, table1) -> float:
        """Seat 0's expected payoff, seat 0 playing table0 and seat 1 table1."""
        p0, p1 = self.seq_probs(table0, 0), self.seq_probs(table1, 1)
        return float(np.einsum("in,jn,ijn->n", p0, p1, self.pay).mean())

    def best_response(self, table):
        """(exact BR value of seat 0 against ``table`` at seat 1, {decision: (n_buckets, 2) Q-values})."""
        p1 = self.seq_probs(table, 1)
        q = np.einsum("jn,ijn->in", p1, self.pay)  # seat 0's payoff per own sequence and deal
        n = q.shape[1]
        Q = {d: np.full((self.abst[d].n_buckets, 2), np.nan) for d in (DRAW, STAKE)}

        def best(H, round_, d, vals0, vals1):
            nb = self.abst[d].n_buckets
            k = self.abst[d].buckets({"history": H}, round_)
            cnt = np.bincount(k, minlength=nb)
            q0 = np.bincount(k, weights=vals0, minlength=nb) / np.maximum(cnt, 1)
            q1 = np.bincount(k, weights=vals1, minlength=nb) / np.maximum(cnt, 1)
            seen = cnt > 0
            Q[d][seen, 0], Q[d][seen, 1] = q0[seen], q1[seen]
            return np.where(q1[k] > q0[k], vals1, vals0)

        v2 = {}
        for a0 in (0, 1):
            v3 = {}
            for a1 in (0, 1):
                H = histories(self.vals, 0, np.full(n, a0), np.full(n, a1))
                v3[a1] = best(H, 0, STAKE, q[SEQS.index((a0, a1, 0))], q[SEQS.index((a0, a1, 1))])
            v2[a0] = best(histories(self.vals, 0, np.full(n, a0)), 1, DRAW, v3[0], v3[1])
        v1 = best(histories(self.vals, 0), 0, DRAW, v2[0], v2[1])
        return float(v1.mean()), Q

    def gain(self, table) -> float:
        """Exact best-response gain of one seat against a symmetric table (the seats are alike)."""
        return self.best_response(table)[0] - self.value(table, table)
