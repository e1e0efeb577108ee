"""Block primitives: deal a block of deals, play it with one or several lineups, and
:class:`Job`, everything a run's blocks need (blocks differ only by their index).

A block ``b`` has its own seed streams (see :func:`deal.block_seeds`): it is dealt
at once, goes through the variant's decisions and showdown, and comes back as one
:class:`~simcore.engine.variant.Outcome` per alternative. What runs the blocks
lives in :mod:`.schedule` and :mod:`.executors`; what a run makes of them, in
:mod:`.runner`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .deal import block_seeds, chance_draws, deal
from .variant import Outcome, Table, Variant

DEFAULT_BLOCK = 1 << 14


def deal_block(variant: Variant, known: np.ndarray, n_deals: int, n_players: int,
               rng: np.random.Generator, repeat: int = 1):
    """Deal one block: ``(cards (n, n_slots) int8, chance (n, k) uint32 or None)``.

    ``known`` is (n_slots,) or (n, n_slots) with -1 for random slots; with
    ``repeat`` each row of a 2-D ``known`` stands for that many consecutive
    deals (see :func:`~simcore.engine.deal.deal`). The chance draws
    (``variant.n_chance``) come from ``rng`` after the cards.
    """
    cards = deal(known, n_deals, rng, repeat)
    return cards, chance_draws(n_deals, variant.n_chance(n_players), rng)


def play_block(variant: Variant, cards: np.ndarray, n_players: int, lineup, rngs,
               forced: dict | None = None, chance: np.ndarray | None = None,
               record: bool = False, keep_state: bool = False) -> Outcome:
    """Play a dealt block to the showdown with one lineup.

    Parameters
    ----------
    variant : the variant object.
    cards : (n, n_slots) int8 dealt slots.
    lineup : per seat {decision: (label, function)}.
    rngs : per seat, a numpy Generator for randomised strategies.
    forced : {(seat, decision[, round]): (n,) int64 actions, -1 where free}.
    chance : (n, k) uint32 chance draws (see :func:`deal_block`).
    record : also return every decision's actions in ``outcome.actions``.
    keep_state : ask the variant for its final state in ``outcome.state`` (experiments).
    """
    return play_tables(variant, cards, [Table(variant, n_players, lineup, rngs, forced or {}, chance, record,
                                              keep_state=keep_state)])[0]


def play_tables(variant: Variant, cards: np.ndarray, tables: list[Table]) -> list[Outcome]:
    """Play a dealt block to the showdown once per table (alternatives of a comparison
    or a rollout; see :meth:`Variant.play_alternatives`), one Outcome each."""
    outs = variant.play_alternatives(cards, tables[0].n_players, tables)
    for out, table in zip(outs, tables):
        out.unit, out.total = variant.payoff_unit, variant.payoff_total
        if table.record:
            out.actions = table.actions
    return outs


def seat_streams(seeds, n_players: int) -> list[np.random.Generator]:
    """The seats' strategy streams of a block (from :func:`block_seeds`)."""
    return [np.random.Generator(np.random.PCG64(s)) for s in seeds[1 : 1 + n_players]]


@dataclass
class Job:
    """Everything a block needs; blocks differ only by their index."""

    variant: Variant
    n_players: int
    lineups: list  # one lineup (per seat {decision: (label, fn)}) per alternative
    known: np.ndarray  # (n_slots,) int8
    seed: int
    block_size: int
    forced: list  # one {(seat, decision[, round]): action} per alternative
    record: bool = False  # outcomes carry every decision's actions
    keep_state: bool = False  # outcomes carry the game's final state (Outcome.state)

    def deal(self, b: int, n: int):
        """Block ``b``'s cards, chance draws and seed streams: ``(cards, chance, seeds)``."""
        seeds = block_seeds(self.seed, b, self.n_players)
        rng = np.random.Generator(np.random.PCG64(seeds[0]))
        cards, chance = deal_block(self.variant, self.known, n, self.n_players, rng)
        return cards, chance, seeds

    def play(self, cards, chance, seeds) -> list[Outcome]:
        """Every alternative played on the same dealt block."""
        n = cards.shape[0]
        # Fresh streams per alternative: the field draws the same numbers
        # under every alternative (common random numbers).
        return play_tables(self.variant, cards, [
            Table(self.variant, self.n_players, lineup, seat_streams(seeds, self.n_players),
                  {k: np.full(n, a, dtype=np.int64) for k, a in forced.items()}, chance, self.record,
                  keep_state=self.keep_state)
            for lineup, forced in zip(self.lineups, self.forced)])

    def run_block(self, b: int, n: int) -> list[Outcome]:
        return self.play(*self.deal(b, n))
