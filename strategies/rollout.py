"""The rollout strategy: try every legal action on simulated continuations.

At a decision, the hidden cards are resampled from what the deciding player
cannot see (the variant's :meth:`~simcore.engine.variant.Variant.situation`
says what it has seen and which public actions must be replayed), every
legal action is played on the same K continuations with everyone, the
decider's later decisions included, following base strategies, and the action
with the best mean payoff is taken (ties: the lowest action).

Spec: ``rollout`` (K = 32, the variant's default policies as base),
``rollout:K`` or ``rollout:K:BASE`` where BASE is a policy spec with ``+``
between decisions, e.g. ``rollout:64:pass=lowest+discard=best-made``.
"""
from __future__ import annotations

import numpy as np

from .registry import lineup, parse_spec, register_generic

DEFAULT_K = 32
MAX_ROWS = 1 << 15  # continuations played at once: bounds memory


def make_rollout(variant, decision: str, k: int | str = DEFAULT_K, base: str | None = None):
    """Build a rollout strategy for ``variant``'s ``decision``."""
    from simcore.engine import Table, deal_block, play_tables

    try:
        k = int(k)
    except ValueError:
        raise ValueError(f"rollout: K must be a whole number, got {k!r}") from None
    if k < 1:
        raise ValueError(f"rollout: K must be at least 1, got {k}")
    base_spec = base.replace("+", ",") if base else None
    if base_spec:
        parse_spec(variant, base_spec)  # a bad base is named with the whole spec now, not at the first decision
    n_actions = variant.decision(decision).n_actions
    lineups: dict[int, list] = {}

    def base_lineup(n_players):
        if n_players not in lineups:
            lineups[n_players] = lineup(variant, n_players, base_spec, base_spec)
        return lineups[n_players]

    def rollout(obs, rng):
        seat, n_players = obs["seat"], obs["n_players"]
        # A repeated decision is forced in this round only; later rounds follow the base.
        key = (seat, decision, int(obs.get("round", 0))) if variant.decision(decision).rounds > 1 \
            else (seat, decision)
        legal = obs["legal"]
        n = legal.shape[0]
        known, forced = variant.situation(decision, obs, n_players)
        lu = base_lineup(n_players)
        values = np.full((n, n_actions), -np.inf)
        step = max(1, MAX_ROWS // k)
        for lo in range(0, n, step):
            hi = min(n, lo + step)
            m = (hi - lo) * k
            cards, chance = deal_block(variant, known[lo:hi], m, n_players, rng, repeat=k)
            f_rep = {key: np.repeat(v[lo:hi], k) for key, v in forced.items()}
            seeds = rng.integers(0, 2**63, size=n_players)
            first_legal = np.argmax(legal[lo:hi], axis=1)
            tried = [a for a in range(n_actions) if legal[lo:hi, a].any()]
            tables = []
            for a in tried:
                # Where a is illegal, play any legal action; that row's value is discarded.
                f = dict(f_rep)
                f[key] = np.repeat(np.where(legal[lo:hi, a], a, first_legal), k)
                # the same streams under every action (common random numbers)
                rngs = [np.random.Generator(np.random.PCG64(int(s))) for s in seeds]
                tables.append(Table(variant, n_players, lu, rngs, f, chance))
            # one call: the variant may play once what the actions have in common
            for a, out in zip(tried, play_tables(variant, cards, tables)):
                mean = out.payoffs[:, seat].reshape(hi - lo, k).mean(axis=1)
                values[lo:hi, a] = np.where(legal[lo:hi, a], mean, -np.inf)
        return np.argmax(values, axis=1)

    rollout.k = k
    return rollout


register_generic(
    "rollout",
    "try every legal action on K resampled continuations, keep the best (rollout:K:BASE)",
    make_rollout,
)
