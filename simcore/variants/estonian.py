"""Estonian Twist: three cards, a flop, pass one card left, discard one, keep two.

Slots of one deal with P players: seat p's three dealt cards at 3p, 3p+1,
3p+2, then the board at 3P..3P+4 (the flop is its first three cards, then
turn and river).

Decisions, in order:

* ``pass``: every seat at once passes one of its three dealt cards to seat+1
  (with two players they swap). Observation: ``hand`` (n, 3) int8, the seat's
  dealt cards in slot order; ``flop`` (n, 3) int8. Action i passes hand[:, i].
* ``discard``: every seat holds its two kept cards (in slot order) and the card
  received from seat-1, in that order, and discards one. Observation: ``hand``
  (n, 3) int8 = [kept, kept, received]; ``flop`` (n, 3) int8; ``passed`` (n,)
  int8, the card the seat passed. Action i discards hand[:, i].

Showdown: best five of the two kept cards and the five board cards; ties split.
The game itself reads only the dealt cards and the actions, so a strategy can
change a hand only through its answers.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..cards import format_cards, parse_cards
from ..engine.variant import Decision, Field, Obs, Outcome, Situation, SlotLayout, Variant, private, public
from ..kernels import CARD_KEY, FLUSH_FLAGS, RANK_HIGH, SUIT_START, pot_best, pot_share, rank_slot, value_two_and_board

PASS, DISCARD = "pass", "discard"


@njit(cache=True, nogil=True)
def _split_deal(cards, n_players):
    """Seats' dealt hands (P, n, 3) and the flop (n, 3), each contiguous."""
    n = cards.shape[0]
    hands = np.empty((n_players, n, 3), np.int8)
    flop = np.empty((n, 3), np.int8)
    b = 3 * n_players
    for i in range(n):
        for p in range(n_players):
            for j in range(3):
                hands[p, i, j] = cards[i, 3 * p + j]
        for j in range(3):
            flop[i, j] = cards[i, b + j]
    return hands, flop


@njit(cache=True, nogil=True)
def _apply_passes(cards, passes, n_players):
    """Held cards after the pass (P, n, 3) = [kept, kept, received] and passed (P, n).

    ``passes`` (P, n) int64: the index of the card each seat passes; seat p
    receives seat p-1's card (with two players the seats swap).
    """
    n = cards.shape[0]
    held = np.empty((n_players, n, 3), np.int8)
    passed = np.empty((n_players, n), np.int8)
    # Seat by seat, so that every array is read and written in order.
    for p in range(n_players):
        base = 3 * p
        for i in range(n):
            a = passes[p, i]
            # the kept cards in slot order, without branching on a
            held[p, i, 0] = cards[i, base + (a == 0)]
            held[p, i, 1] = cards[i, base + 2 - (a == 2)]
            passed[p, i] = cards[i, base + a]
    for p in range(n_players):
        r = p - 1 if p > 0 else n_players - 1
        for i in range(n):
            held[p, i, 2] = passed[r, i]
    return held, passed


@njit(cache=True, nogil=True)
def _showdown(cards, held, discards, values, seats):
    """Pot shares (n, P) and final categories (n, P) from held cards and discards.

    ``values`` (n, P) int32 gets every seat's hand value; those of the seats
    where ``seats`` (P,) is false must be in it already (an alternative's
    seats that hold what they hold under another).
    """
    n, n_players = values.shape
    b = 3 * n_players
    bkey = np.empty(n, np.uint64)
    for i in range(n):
        key = SUIT_START
        for j in range(5):
            key += CARD_KEY[np.uint8(cards[i, b + j])]
        bkey[i] = key
    # Seat by seat, so that every array is read in order. The first pass is
    # branch-free (it vectorises): the non-flush value, the sign bit marking a
    # flush, which the second pass values exactly (about 3% of seven cards).
    for p in range(n_players):
        for i in range(n if seats[p] else 0):
            d = discards[p, i]
            # uint8 card indices: numba checks signed ones for wrap-around
            key = (bkey[i] + CARD_KEY[np.uint8(held[p, i, 1 if d == 0 else 0])]
                   + CARD_KEY[np.uint8(held[p, i, 1 if d == 2 else 2])])
            flush = np.int32((key & FLUSH_FLAGS) != np.uint64(0))
            values[i, p] = np.int32(RANK_HIGH[rank_slot(key)]) | (flush << np.int32(31))
    shares = np.empty((n, n_players), np.float64)
    cats = np.empty((n, n_players), np.int8)
    for i in range(n):
        for p in range(n_players):
            v = values[i, p]
            if v < 0:
                d = discards[p, i]
                x = held[p, i, 1 if d == 0 else 0]
                y = held[p, i, 1 if d == 2 else 2]
                v = value_two_and_board(bkey[i] + CARD_KEY[np.uint8(x)] + CARD_KEY[np.uint8(y)],
                                         x, y, cards, i, b)
                values[i, p] = v
            cats[i, p] = v >> 12
        best, k = pot_best(values[i])
        for p in range(n_players):
            shares[i, p] = pot_share(values[i, p], best, k)[0]
    return shares, cats


class EstonianTwist(Variant):
    """Estonian Twist: pass one of three cards to the left, discard one, keep two."""

    name = "estonian"
    title = "Estonian Twist"
    min_players = 2
    max_players = 15  # 3N + 5 <= 52
    fields = (
        Field("passed", "the card the hero passed; --hand is then the three cards held at the "
                        "discard (two kept, then the received card)"),
    )
    decisions = (
        Decision(
            PASS, 3, ("pass dealt card 1", "pass dealt card 2", "pass dealt card 3"),
            "pass one of the three dealt cards to the left (seat+1), all seats at once",
            "hand (n, 3) int8: the seat's dealt cards in slot order; flop (n, 3) int8",
            obs=(Obs("hand", "int8", ("n", 3), "the seat's dealt cards in slot order"),
                 Obs("flop", "int8", ("n", 3))),
        ),
        Decision(
            DISCARD, 3, ("discard kept card 1", "discard kept card 2", "discard the received card"),
            "discard one of the three cards held after the pass, keeping two",
            "hand (n, 3) int8: [kept, kept, received]; flop (n, 3) int8; "
            "passed (n,) int8: the card the seat passed",
            obs=(Obs("hand", "int8", ("n", 3), "[kept, kept, received]"), Obs("flop", "int8", ("n", 3)),
                 Obs("passed", "int8", ("n",), "the card the seat passed")),
        ),
    )
    layout = SlotLayout(private("dealt", 3, fills="hand"), public("flop", 3, fills="board"),
                        public("turn and river", 2, seen="none", fills="board"))

    # -- situations -----------------------------------------------------------
    def default_decision(self, situation) -> str:
        """With the passed card known the pass is history: the discard is the question."""
        return "discard" if situation.get("passed") is not None else "pass"

    def setup(self, n_players, hand=None, board=None, seat=0, passed=None, **fields):
        """Known slots and presets; with ``passed``, the situation at the discard.

        With ``passed`` given, ``hand`` is the three cards held at the discard:
        the two kept cards, then the received card. The seat's dealt hand is
        then the kept cards plus ``passed`` (its pass preset to that card), and
        the received card sits in the right neighbour's slots with that
        neighbour's pass preset to it.

        >>> s = EstonianTwist().setup(3, "As Ks 9c", "Qs Js 4h", passed="7d")
        >>> format_cards(s.known[:3]), format_cards(s.known[6:7]), dict(s.presets)
        ('As Ks 7d', '9c', {(0, 'pass'): 2, (2, 'pass'): 0})
        """
        if passed is None:
            return Situation(self.known_slots(n_players, hand=hand, board=board, seat=seat, **fields))
        p = parse_cards(passed)
        if len(p) != 1:
            raise ValueError(f"passed: give exactly one card, got {len(p)} ({format_cards(p)})")
        if hand is None:
            raise ValueError("passed: give the three cards held at the discard as the hand "
                             "(two kept, then the received card)")
        h = parse_cards(hand)
        if len(h) != 3:
            raise ValueError(
                f"with passed, the hand is the three cards held at the discard "
                f"(two kept, then the received card); got {len(h)} ({format_cards(h)})"
            )
        known = np.full(self.n_slots(n_players), -1, dtype=np.int8)
        right = (seat - 1) % n_players
        known[3 * seat: 3 * seat + 3] = [h[0], h[1], p[0]]
        known[3 * right] = h[2]
        self.place(known, _board_slots(n_players), board, "board")
        return Situation(known, {(seat, PASS): 2, (right, PASS): 0})

    def situation(self, decision, obs, n_players):
        """What the deciding seat has seen, and the passes its knowledge fixes."""
        seat = int(obs["seat"])
        hand, flop = obs["hand"], obs["flop"]
        n = hand.shape[0]
        known = np.full((n, self.n_slots(n_players)), -1, dtype=np.int8)
        known[:, 3 * n_players: 3 * n_players + 3] = flop
        if decision == PASS:
            known[:, 3 * seat: 3 * seat + 3] = hand
            return known, {}
        if decision != DISCARD:
            self.decision(decision)  # raises with the decisions' names
        right = (seat - 1) % n_players
        known[:, 3 * seat] = hand[:, 0]
        known[:, 3 * seat + 1] = hand[:, 1]
        known[:, 3 * seat + 2] = obs["passed"]
        known[:, 3 * right] = hand[:, 2]
        forced = {
            (seat, PASS): np.full(n, 2, dtype=np.int64),
            (right, PASS): np.zeros(n, dtype=np.int64),
        }
        return known, forced

    def hidden_slots(self, n_players, seat):
        """Every other seat's cards but the one passed to ``seat`` (the right
        neighbour's first, when it passes its first card), and the turn and river."""
        right = 3 * ((seat - 1) % n_players)
        others = [s for s in range(3 * n_players) if s // 3 != seat and s != right]
        return others + [3 * n_players + 3, 3 * n_players + 4]

    # -- labels -----------------------------------------------------------------
    def analysis_label(self, decision, action, situation):
        known, seat, n_players = situation.known, situation.seat, situation.n_players
        own = 3 * seat
        right = 3 * ((seat - 1) % n_players)
        if decision == PASS:
            card = int(known[own + action])
        elif (known[own: own + 3] >= 0).all() and known[right] >= 0 and (known[right + 1: right + 3] < 0).all():
            # The pattern setup(passed=...) leaves: the seat's two kept cards and
            # the passed one, the received card alone in the right neighbour's
            # first slot. Held at the discard: kept, kept, received.
            card = int(known[(own, own + 1, right)[action]])
        else:
            card = -1  # which cards are held depends on the passes
        if card < 0:
            return self.decision(decision).actions[action]
        return f"{'pass' if decision == PASS else 'discard'} {format_cards([card])}"

    # -- play ---------------------------------------------------------------------
    def play(self, cards, n_players, table):
        return self.play_alternatives(cards, n_players, [table])[0]

    def play_alternatives(self, cards, n_players, tables):
        """Every table on the same block, asking a seat once for the tables that would
        ask it the same thing.

        A seat's pass is the same under two tables when its policy is the same
        *pure* function (the ``pure`` trait: its actions depend on its
        observation alone, not on its random stream or on earlier calls) with
        the same forced actions: every seat sees the same dealt cards. Its
        discard also needs the same observation: its own pass and its right
        neighbour's the same. Its hand value is table 0's when its pass, its
        right neighbour's and its discard are. So a rollout of the hero's pass
        replays the hero and its left neighbour, one of its discard the hero
        alone.
        """
        P, A = n_players, len(tables)
        n = cards.shape[0]
        cards = np.ascontiguousarray(cards)
        hands, flop = _split_deal(cards, P)
        legal = np.ones((n, 3), dtype=np.bool_)
        # Observations are read-only: a strategy cannot change what others see.
        for a in (hands, flop, legal):
            a.flags.writeable = False
        # passes[a][p], discards[a][p]: (n,) int64; a seat asked once for several tables
        # holds the same array in each (so alike answers are found by identity)
        passes = [[None] * P for _ in range(A)]
        pass_rows = np.empty((A, P, n), np.int64)  # the same, one array per table for the kernels
        for p in range(P):
            for a, t in enumerate(tables):
                b = _asked_before(tables, a, p, PASS, lambda b: True)
                passes[a][p] = (t.act(p, PASS, {"hand": hands[p], "flop": flop, "legal": legal}) if b is None
                                else _take_answer(t, p, PASS, passes[b][p]))
                pass_rows[a, p] = passes[a][p]

        def alike(a, b, p):  # seat p passes alike under tables a and b
            return passes[a][p] is passes[b][p] or np.array_equal(passes[a][p], passes[b][p])

        right = [(p - 1) % P for p in range(P)]
        held, passed = [], []
        for a in range(A):
            h, x = _apply_passes(cards, pass_rows[a], P)
            h.flags.writeable = False
            x.flags.writeable = False
            held.append(h)
            passed.append(x)
        discards = [[None] * P for _ in range(A)]
        discard_rows = np.empty((A, P, n), np.int64)
        for p in range(P):
            for a, t in enumerate(tables):
                b = _asked_before(tables, a, p, DISCARD, lambda b: alike(a, b, p) and alike(a, b, right[p]))
                discards[a][p] = (t.act(p, DISCARD, {"hand": held[a][p], "flop": flop, "passed": passed[a][p],
                                                     "legal": legal}) if b is None
                                  else _take_answer(t, p, DISCARD, discards[b][p]))
                discard_rows[a, p] = discards[a][p]
        outcomes = []
        values = np.empty((A, n, P), np.int32)
        for a in range(A):
            seats = np.ones(P, np.bool_)
            if a:
                values[a] = values[0]
                seats = np.array([not (alike(a, 0, p) and alike(a, 0, right[p])
                                       and (discards[a][p] is discards[0][p]
                                            or np.array_equal(discards[a][p], discards[0][p])))
                                  for p in range(P)])
            shares, cats = _showdown(cards, held[a], discard_rows[a], values[a], seats)
            outcomes.append(Outcome.from_pot_shares(shares, cats))
        return outcomes


def _asked_before(tables, a, seat, decision, same_view):
    """An earlier table whose answer for ``seat``'s ``decision`` is table ``a``'s, or None.

    That holds when both ask the same pure function (see
    :meth:`EstonianTwist.play_alternatives`) with the same forced actions
    and ``same_view(b)``: the seat sees the same under both.
    """
    if not tables[a].trait(seat, decision, "pure", False):
        return None
    fn = tables[a].strategies[seat][decision][1]
    forced = tables[a].forced_actions(seat, decision)
    for b in range(a):
        other = tables[b].forced_actions(seat, decision)
        if (tables[b].strategies[seat][decision][1] is fn and same_view(b)
                and (other is forced or (other is not None and forced is not None
                                         and np.array_equal(other, forced)))):
            return b
    return None


def _take_answer(table, seat, decision, answer):
    """Another table's ``answer`` as this table's actions for ``seat``'s ``decision``
    (recorded as :meth:`Table.act` records them)."""
    if table.record:
        table.actions[(seat, decision, 0)] = answer
    return answer


def _board_slots(n_players: int) -> list[int]:
    return list(range(3 * n_players, 3 * n_players + 5))
