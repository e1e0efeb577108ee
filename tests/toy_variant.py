"""A toy game written against the engine contract (docs/architecture.md).

"Trump Points": every seat gets two cards, then in each of two rounds one
more card face down, and discards one of its three cards, keeping two. After
the second round a trump suit is drawn (chance during the deal), each hand
scores the ranks of its two cards (2 = 0 .. A = 12) plus ``bonus`` per trump,
and places score points: 2 to the best, 1 to the second, ties sharing.

It shows every part of the contract a new game uses: a rule option
(``bonus``), a situation field (``discarded``), a decision taken in several
rounds, points that are not pot shares, chance draws, explicit wins and ties,
rollout situations and the slots a seat never sees (from its slot layout). It
is registered only by the tests (``register_toy``, through
``simcore.register_variant``), never in the CLI.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from simcore.cards import parse_cards
from simcore.engine import (
    Decision, Field, Obs, Option, Outcome, Situation, SlotLayout, Variant, place_points, private,
)

DISCARD = "discard"
POINTS = np.array([2.0, 1.0])


@njit(cache=True, nogil=True)
def _take_round(cards, kept, p, r, hand):
    """Seat p's three cards at round r into ``hand`` (n, 3): kept, kept, new."""
    for i in range(cards.shape[0]):
        hand[i, 0] = kept[i, p, 0]
        hand[i, 1] = kept[i, p, 1]
        hand[i, 2] = cards[i, 4 * p + 2 + r]


@njit(cache=True, nogil=True)
def _apply(hand, actions, kept, p):
    """Seat p keeps the two cards of ``hand`` (n, 3) it did not discard."""
    for i in range(hand.shape[0]):
        a = actions[i]
        kept[i, p, 0] = hand[i, 1 if a == 0 else 0]
        kept[i, p, 1] = hand[i, 1 if a == 2 else 2]


@njit(cache=True, nogil=True)
def _scores(kept, trump, bonus):
    n, P = kept.shape[0], kept.shape[1]
    out = np.empty((n, P), np.int64)
    for i in range(n):
        for p in range(P):
            s = 0
            for j in range(2):
                c = kept[i, p, j]
                s += (c >> 2) + (bonus if (c & 3) == trump[i] else 0)
            out[i, p] = s
    return out


class TrumpPoints(Variant):
    name = "toy"
    title = "Trump Points (toy)"
    min_players = 2
    max_players = 8
    options = (Option("bonus", 13, "what a trump card adds to a hand's score"),)
    fields = (Field("discarded", "the card the hero discarded in round 1 (hand = its four cards)"),)
    decisions = (
        Decision(DISCARD, 3, ("discard kept card 1", "discard kept card 2", "discard the new card"),
                 "discard one of three cards, keeping two (two rounds)",
                 "hand (n, 3) int8: [kept, kept, new]; seen (n, 4) int8: the seat's cards so far in "
                 "deal order, -1 not yet dealt; thrown (n, 2) int64: the seat's discards so far, -1 to come",
                 rounds=2, obs=(Obs("hand", "int8", ("n", 3)), Obs("seen", "int8", ("n", 4)),
                                Obs("thrown", "int64", ("n", 2)))),
    )
    hands = ("hand",)
    payoff_unit = "points"
    payoff_total = 3.0
    match_target = 10.0
    # Seat p: two dealt cards, then round 1's and round 2's card (slots 4p..4p+3), seen by p alone.
    layout = SlotLayout(private("cards", 4, fills="hand"))

    def n_chance(self, n_players):
        return 1  # the trump suit, drawn after the decisions

    def play(self, cards, n_players, table):
        n, P = cards.shape[0], n_players
        kept = np.empty((n, P, 2), np.int8)
        kept[:, :, 0] = cards[:, 0::4]
        kept[:, :, 1] = cards[:, 1::4]
        thrown = np.full((P, n, 2), -1, np.int64)
        legal = np.ones((n, 3), np.bool_)
        legal.flags.writeable = False
        for r in range(2):
            hands = np.empty((P, n, 3), np.int8)
            for p in range(P):
                _take_round(cards, kept, p, r, hands[p])
            for p in range(P):  # simultaneous: every seat decides on its own cards
                seen = np.full((n, 4), -1, np.int8)
                seen[:, : 3 + r] = cards[:, 4 * p: 4 * p + 3 + r]
                obs = {"hand": hands[p], "seen": seen, "thrown": thrown[p].copy(), "legal": legal}
                for a in obs.values():
                    a.flags.writeable = False
                thrown[p, :, r] = table.act(p, DISCARD, obs, round=r)
            for p in range(P):
                _apply(hands[p], thrown[p, :, r], kept, p)
        trump = (table.chance[:, 0] % np.uint32(4)).astype(np.int64)
        values = _scores(kept, trump, self.opts["bonus"])
        payoffs = place_points(values, POINTS)
        best = values.max(axis=1, keepdims=True)
        top = values == best
        alone = top.sum(axis=1, keepdims=True) == 1
        return Outcome(payoffs, top & alone, top & ~alone, np.full((n, P, 1), -1, np.int8))

    # -- situations -------------------------------------------------------
    def setup(self, n_players, hand=None, board=None, seat=0, discarded=None, **fields):
        """The hero's cards in deal order (3 at round 1; 4 with ``discarded`` at round 2)."""
        known = np.array(self.known_slots(n_players, hand=hand, board=board, seat=seat))
        presets = {}
        if discarded is not None:
            d = parse_cards(discarded)
            first = known[4 * seat: 4 * seat + 3].tolist()
            if len(d) != 1 or int(d[0]) not in first:
                raise ValueError(f"discarded: one of the first three cards of hand, got {discarded!r}")
            presets[(seat, DISCARD, 0)] = first.index(int(d[0]))
        return Situation(known, presets)

    def analysis_round(self, decision, situation):
        return 1 if situation.get("discarded") is not None else 0

    def situation(self, decision, obs, n_players):
        """Own cards seen so far; own earlier discards replayed; the rest resampled."""
        self.decision(decision)
        seat, seen, thrown = int(obs["seat"]), obs["seen"], obs["thrown"]
        known = np.full((seen.shape[0], self.n_slots(n_players)), -1, np.int8)
        known[:, 4 * seat: 4 * seat + 4] = seen
        forced = {(seat, DISCARD, r): thrown[:, r].copy() for r in range(int(obs["round"]))}
        return known, forced


def register_toy():
    """Make the toy variant and a policy for it known to get_variant and the registry."""
    import strategies
    from simcore import register_variant

    register_variant(TrumpPoints)
    strategies.register("toy", DISCARD, "lowest", "discard the lowest card", default=True, pure=True)(lowest)
    return TrumpPoints


def lowest(obs, rng):
    """Discard the lowest card."""
    return np.argmin(obs["hand"], axis=1).astype(np.int64)


def unregister_toy():
    import strategies
    from simcore import unregister_variant, variants

    if "toy" in variants.variant_classes():
        unregister_variant("toy")
    strategies.unregister("toy", DISCARD, "lowest")
