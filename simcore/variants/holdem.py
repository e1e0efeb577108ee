"""Texas Hold'em with no betting (Blind Hold'em): the reference game.

No decisions; with known hole cards it is an equity calculator, checked
against exactly enumerated equities.
"""
from __future__ import annotations

import numpy as np

from ..evaluate import evaluate_hands
from ..cards import parse_cards
from ..engine.variant import Field, Outcome, SlotLayout, Variant, private, public


class TexasHoldem(Variant):
    name = "holdem"
    title = "Texas Hold'em"
    min_players = 2
    max_players = 23  # 2N + 5 <= 52
    decisions = ()
    fields = (Field("hands", "other seats' hole cards: {seat: cards}, or \"1=Qd Qc;2=Js Ts\""),)
    # Seat p's hole cards at 2p, 2p+1; then the five board cards. No strategy is ever
    # asked anything, so a seat sees nothing but its own cards before the showdown.
    layout = SlotLayout(private("hole", 2, fills="hand"), public("board", 5, seen="none", fills="board"))

    def known_slots(self, n_players, hand=None, board=None, seat=0, hands=None, **fields):
        """Fix seat ``seat``'s hand, the board, and ``hands`` {seat: cards}."""
        if isinstance(hands, str):
            hands = _parse_hands(hands)
        known = np.full(self.n_slots(n_players), -1, dtype=np.int8)
        self.place(known, [2 * seat, 2 * seat + 1], hand, "hand")
        for s, cards in (hands or {}).items():
            if not 0 <= int(s) < n_players:
                raise ValueError(f"seat {s} is not at a {n_players}-player table")
            self.place(known, [2 * int(s), 2 * int(s) + 1], cards, f"seat {s}'s hand")
        self.place(known, list(range(2 * n_players, 2 * n_players + 5)), board, "board")
        return known

    def play(self, cards, n_players, table):
        n = cards.shape[0]
        board = cards[:, 2 * n_players:]
        values = np.empty((n, n_players), np.int32)
        for p in range(n_players):
            seven = np.concatenate([cards[:, 2 * p: 2 * p + 2], board], axis=1)
            values[:, p] = evaluate_hands(seven, threads=1, check=False)
        return Outcome.from_values(values)


def _parse_hands(text: str) -> dict:
    """``"1=Qd Qc;2=Js Ts"`` -> {1: "Qd Qc", 2: "Js Ts"}."""
    out = {}
    for item in text.split(";"):
        if not item.strip():
            continue
        k, sep, cards = item.partition("=")
        if not sep or not k.strip().isdigit():
            raise ValueError(f"hands: give SEAT=CARDS separated by ';' (1=Qd Qc;2=Js Ts), got {item.strip()!r}")
        parse_cards(cards)
        out[int(k)] = cards
    return out
