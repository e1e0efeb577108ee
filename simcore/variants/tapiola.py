"""Tapiola Hold'em: a centre card, two three-card towers and three discards.

Each player gets five hand cards (six in the lowball form) and one card goes
face up in the middle, the centre. Three tower rounds follow: one card face
up on tower A, one on tower B, then every player discards one hand card face
down, all at the same time. The third discard is optional in the high game,
so a player ends with three hand cards or two. The final hand is exactly
five cards: the three kept hand cards and one card of each tower, or the two
kept hand cards, the centre and one card of each tower; the best of the nine
tower choices counts. In lowball every discard is mandatory, and the best
ace-to-six low five of the six cards (three hand cards, the centre, one card
of each tower; best of the nine tower choices) wins.

Slots of a deal with ``P`` players and ``h`` hand cards (5, lowball 6):
the centre is slot 0; seat ``p`` holds ``1 + h*p .. h*p + h``; the towers
follow in deal order ``A1 B1 A2 B2 A3 B3`` at ``1 + h*P .. h*P + 6``.
Burn cards change no probability and get no slot; they only lower the
player limit (nine players fill the deck exactly: 1 + 45 + 6 = 52).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..cards import card_to_str, parse_cards
from ..engine.checks import is_whole
from ..engine.variant import (
    Decision, Field, Obs, Option, Outcome, Situation, SlotLayout, Variant, place_points, pot_shares, private,
    public,
)
from ..kernels import CARD_BIT, CARD_KEY, LOW_TOP, SUIT_START, pot_best, pot_share, value_high, value_low5

HIGH_HAND = 5  # hand cards dealt in the high game
LOW_HAND = 6  # and in lowball
N_ROUNDS = 3
SCORINGS = ("pot", "points", "straight-up-or-die")
MATCH_TARGETS = {"pot": 5.0, "points": 10.0, "straight-up-or-die": 15.0}
# Straight-Up-or-Die: points by high category (straight 1 .. straight flush 5).
SUOD_CLASS_POINTS = np.array([0, 0, 0, 0, 1, 2, 3, 4, 5], dtype=np.float64)
SUOD_WORST_POINTS = np.array([5.0, 2.0])  # the worst hand, then the second worst
PLACE_POINTS = np.array([2.0, 1.0])  # the points system: best, second best


# -- the layout -------------------------------------------------------------------------


def hand_size(lowball: bool) -> int:
    """Hand cards dealt to each player: 5, or 6 in lowball."""
    return LOW_HAND if lowball else HIGH_HAND


def n_slots(n_players: int, lowball: bool = False) -> int:
    """Card slots of one deal: the centre, every hand, six tower cards.

    >>> n_slots(9), n_slots(7, lowball=True)
    (52, 49)
    """
    return 1 + hand_size(lowball) * n_players + 6


def hand_slots(n_players: int, seat: int, lowball: bool = False) -> list[int]:
    """The slots of ``seat``'s dealt hand cards."""
    h = hand_size(lowball)
    return list(range(1 + h * seat, 1 + h * seat + h))


def tower_slots(n_players: int, lowball: bool = False) -> list[int]:
    """The six tower slots in deal order A1, B1, A2, B2, A3, B3."""
    base = 1 + hand_size(lowball) * n_players
    return list(range(base, base + 6))


@njit(cache=True, nogil=True)
def split_deal(cards, P, h, hands, centre, towers):
    """Copy a block's slots into ``hands (P, n, h)``, ``centre (n,)``, ``towers (n, 6)``.

    Hands are seat-major so that one seat's cards are one contiguous array.
    """
    t0 = 1 + h * P
    n = cards.shape[0]
    # Seat by seat, so that each seat's hands are written in one sequential stream.
    for p in range(P):
        for i in range(n):
            for j in range(h):
                hands[p, i, j] = cards[i, 1 + h * p + j]
    for i in range(n):
        centre[i] = cards[i, 0]
        for j in range(6):
            towers[i, j] = cards[i, t0 + j]


@njit(cache=True, nogil=True)
def visible_towers(towers, n_rounds, out):
    """The towers as a player sees them after ``n_rounds`` tower rounds: -1 beyond."""
    for i in range(towers.shape[0]):
        for j in range(6):
            out[i, j] = towers[i, j] if j < 2 * n_rounds else -1


@njit(cache=True, nogil=True)
def apply_discards(held, positions):
    """One seat's discards: ``held (n, h)`` loses position ``positions[i]`` (-1 keeps all)."""
    for i in range(positions.shape[0]):
        a = positions[i]
        if a >= 0:
            held[i, a] = False


# -- final hands ------------------------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def dealt(towers):
    """``(na, nb)``: how many cards of tower A and of tower B a (6,) row in deal order
    ``A1 B1 A2 B2 A3 B3`` holds (-1 beyond: each tower fills from its first card)."""
    na = 0
    while na < 3 and towers[2 * na] >= 0:
        na += 1
    nb = 0
    while nb < 3 and towers[2 * nb + 1] >= 0:
        nb += 1
    return na, nb


@njit(cache=True, nogil=True, inline="always")
def tower_choices(towers, tw):
    """The tower choices a (6,) row has dealt so far (one card of A and one of B), each pair's key
    into ``tw[0]`` and bit set into ``tw[1]`` (``tw`` (2, 9) uint64, summed once for many hands;
    :func:`_high_over_towers` reads them); returns how many."""
    na, nb = dealt(towers)
    nt = 0
    for a in range(na):
        ca = np.uint8(towers[2 * a])
        for b in range(nb):
            cb = np.uint8(towers[2 * b + 1])
            tw[0, nt] = CARD_KEY[ca] + CARD_KEY[cb]
            tw[1, nt] = CARD_BIT[ca] | CARD_BIT[cb]
            nt += 1
    return nt


@njit(cache=True, nogil=True)
def best_high(c0, c1, c2, towers):
    """Best high value of cards ``c0 c1 c2`` plus one card of each tower.

    ``towers`` is one (6,) row in deal order A1 B1 A2 B2 A3 B3, -1 where not
    dealt yet: towers A are the even entries, B the odd ones. For two kept hand
    cards pass the centre as ``c2``. Returns -1 when a tower is still empty.
    """
    key = SUIT_START + CARD_KEY[np.uint8(c0)] + CARD_KEY[np.uint8(c1)] + CARD_KEY[np.uint8(c2)]
    bits = CARD_BIT[np.uint8(c0)] | CARD_BIT[np.uint8(c1)] | CARD_BIT[np.uint8(c2)]
    best = -1
    na, nb = dealt(towers)
    for a in range(na):
        ca = towers[2 * a]
        ka = key + CARD_KEY[np.uint8(ca)]
        ba = bits | CARD_BIT[np.uint8(ca)]
        for b in range(nb):
            cb = towers[2 * b + 1]
            v = value_high(ka + CARD_KEY[np.uint8(cb)], ba | CARD_BIT[np.uint8(cb)])
            if v > best:
                best = v
    return best


@njit(cache=True, nogil=True)
def best_low(c0, c1, c2, centre, towers):
    """Best ace-to-six low (inverted: higher is better) of three hand cards, the
    centre and one card of each tower: the best five of those six, over the
    tower choices dealt so far (``towers`` as in :func:`best_high`); -1 when a
    tower is still empty."""
    key4 = (SUIT_START + CARD_KEY[np.uint8(c0)] + CARD_KEY[np.uint8(c1)] + CARD_KEY[np.uint8(c2)]
            + CARD_KEY[np.uint8(centre)])
    bits4 = (CARD_BIT[np.uint8(c0)] | CARD_BIT[np.uint8(c1)] | CARD_BIT[np.uint8(c2)]
             | CARD_BIT[np.uint8(centre)])
    best = -1
    na, nb = dealt(towers)
    for a in range(na):
        ca = towers[2 * a]
        for b in range(nb):
            cb = towers[2 * b + 1]
            key = key4 + CARD_KEY[np.uint8(ca)] + CARD_KEY[np.uint8(cb)]
            bits = bits4 | CARD_BIT[np.uint8(ca)] | CARD_BIT[np.uint8(cb)]
            # The best five of six: drop each card in turn (cards are
            # distinct, so XOR takes its bit out of the set).
            for x in (np.int64(c0), np.int64(c1), np.int64(c2), np.int64(centre),
                      np.int64(ca), np.int64(cb)):
                v = value_low5(key - CARD_KEY[np.uint8(x)], bits ^ CARD_BIT[np.uint8(x)])
                if v > best:
                    best = v
    return best


@njit(cache=True, nogil=True, inline="always")
def _high_over_towers(key, bits, tw, nt):
    """:func:`best_high` of a summed key and bit set, over the ``nt`` tower choices of ``tw``."""
    best = -1
    for t in range(nt):
        v = value_high(key + tw[0, t], bits | tw[1, t])
        if v > best:
            best = v
    return best


@njit(cache=True, nogil=True)
def throw_values(hand, held, centre, towers, lowball, last, c, vals, tw):
    """What each throw leaves, for one hand (h,) with ``held`` (h,) bool: ``vals[j]`` the best hand
    the held cards other than j make with what is in sight (high: three of them, or two and the
    centre, with one card of each tower dealt, as :func:`best_high` values them; lowball: three,
    the centre and the towers, :func:`best_low`), -1 where they make none yet (a tower still
    empty), -2 for cards not held. Returns the value of keeping all three held cards (``last``:
    then ``vals`` holds the throws' two-card hands only), else -1. ``c`` (h,) int64 and ``tw``
    (2, 9) uint64 are working space.

    Each subset of held cards is valued once and counts for every card it leaves out: with five
    held, 20 hands instead of the 50 that valuing each throw on its own takes; a subset that
    leaves out no held card is not valued (unless ``last``). In the high game the tower choices
    are summed once for all of them. The ``made`` discard, the ``last`` policies and Tapiola's
    buckets' canonical order all rank the throws by these values."""
    h = hand.shape[0]
    m = 0
    for j in range(h):
        vals[j] = -1 if held[j] else -2
        if held[j]:
            c[m] = j
            m += 1
    nt = 0
    kc = bc = key2 = bits2 = np.uint64(0)
    if not lowball:  # the tower choices dealt so far, each pair's key and bits summed once
        nt = tower_choices(towers, tw)
        kc, bc = CARD_KEY[np.uint8(centre)], CARD_BIT[np.uint8(centre)]
    keep = -1
    triples = last or m > 3
    for x in range(m):
        ca = hand[c[x]]
        for y in range(x + 1, m):
            a, b = c[x], c[y]
            cb = hand[b]
            if not lowball:
                key2 = SUIT_START + CARD_KEY[np.uint8(ca)] + CARD_KEY[np.uint8(cb)]
                bits2 = CARD_BIT[np.uint8(ca)] | CARD_BIT[np.uint8(cb)]
                if m > 2 or last:
                    v = _high_over_towers(key2 + kc, bits2 | bc, tw, nt)
                    for t in range(m):
                        j = c[t]
                        if j != a and j != b and v > vals[j]:
                            vals[j] = v
            if not triples:
                continue
            for z in range(y + 1, m):
                d = c[z]
                if lowball:
                    v = best_low(ca, cb, hand[d], centre, towers)
                else:
                    v = _high_over_towers(key2 + CARD_KEY[np.uint8(hand[d])], bits2 | CARD_BIT[np.uint8(hand[d])],
                                          tw, nt)
                if last:
                    keep = max(keep, v)
                    continue
                for t in range(m):
                    j = c[t]
                    if j != a and j != b and j != d and v > vals[j]:
                        vals[j] = v
    return keep


@njit(cache=True, nogil=True)
def kept_cards(hand, held, out):
    """Write the held cards of one hand (h,) into ``out`` in position order; return how many."""
    k = 0
    for j in range(hand.shape[0]):
        if held[j]:
            out[k] = hand[j]
            k += 1
    return k


@njit(cache=True, nogil=True)
def _showdown_kernel(hands, held, centre, towers, low, values):
    """Final values (n, P): hands and held (P, n, h), centre (n,), towers (n, 6)."""
    P, n, h = hands.shape
    # The nine tower pairs are summed once per deal and shared by every seat.
    tw = np.empty((2, 9), np.uint64)
    nt = 0
    for i in range(n):
        if not low:
            nt = tower_choices(towers[i], tw)
        for p in range(P):
            k = 0
            c0 = c1 = c2 = np.int8(-1)
            for j in range(h):
                if held[p, i, j]:
                    c = hands[p, i, j]
                    if k == 0:
                        c0 = c
                    elif k == 1:
                        c1 = c
                    else:
                        c2 = c
                    k += 1
            if low:
                values[i, p] = best_low(c0, c1, c2, centre[i], towers[i])
                continue
            if k == 2:
                c2 = centre[i]
            u0, u1, u2 = np.uint8(c0), np.uint8(c1), np.uint8(c2)
            key = SUIT_START + CARD_KEY[u0] + CARD_KEY[u1] + CARD_KEY[u2]
            bits = CARD_BIT[u0] | CARD_BIT[u1] | CARD_BIT[u2]
            values[i, p] = _high_over_towers(key, bits, tw, nt)


def showdown_values(hands, held, centre, towers, lowball: bool = False) -> np.ndarray:
    """Final hand values (n, P) int32: higher wins (lowball values are inverted).

    Parameters
    ----------
    hands : (P, n, h) int8 dealt hand cards, seat-major.
    held : (P, n, h) bool, the cards each seat still holds: exactly 2 or 3 in
        the high game, exactly 3 in lowball.
    centre : (n,) int8.
    towers : (n, 6) int8 complete towers in deal order A1 B1 A2 B2 A3 B3.
    lowball : value ace-to-six lows instead of high hands.
    """
    hands = np.ascontiguousarray(hands, dtype=np.int8)
    held = np.ascontiguousarray(held, dtype=np.bool_)
    centre = np.ascontiguousarray(centre, dtype=np.int8)
    towers = np.ascontiguousarray(towers, dtype=np.int8)
    if hands.ndim != 3 or held.shape != hands.shape:
        raise ValueError(f"hands and held must both be (P, n, h); got {hands.shape} and {held.shape}")
    n = hands.shape[1]
    if centre.shape != (n,) or towers.shape != (n, 6):
        raise ValueError(f"centre must be ({n},) and towers ({n}, 6); got {centre.shape} and {towers.shape}")
    counts = held.sum(axis=2)
    allowed = (3,) if lowball else (2, 3)
    bad = ~np.isin(counts, allowed)
    if bad.any():
        p, i = np.argwhere(bad)[0]
        raise ValueError(f"seat {p} of deal {i} holds {counts[p, i]} cards; a final hand keeps "
                         + ("3" if lowball else "2 or 3"))
    if n and (towers.min() < 0 or hands.min() < 0 or centre.min() < 0):
        raise ValueError("showdown needs every card dealt: found a -1")
    values = np.empty((n, hands.shape[0]), np.int32)
    _showdown_kernel(hands, held, centre, towers, lowball, values)
    return values


# -- scoring ----------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def suod_kernel(values, worst, out):
    """Straight-Up-or-Die points (n, P) from high values: by class when anyone
    has a straight or better, else the worst-hand points ``worst`` (n, P)
    (5 to the worst, 2 to the second worst, ties sharing places)."""
    n, P = values.shape
    for i in range(n):
        top = 0
        for p in range(P):
            top = max(top, values[i, p] >> 12)
        for p in range(P):
            out[i, p] = SUOD_CLASS_POINTS[values[i, p] >> 12] if top >= 4 else worst[i, p]


@njit(cache=True, nogil=True)
def best_flags(values, wins, ties):
    """``wins``: the seat alone holds the best value; ``ties``: tied for it (a pot's
    settlement, :func:`simcore.kernels.pot_share`, whatever the scoring)."""
    for i in range(values.shape[0]):
        best, k = pot_best(values[i])
        for p in range(values.shape[1]):
            _, wins[i, p], ties[i, p] = pot_share(values[i, p], best, k)


def score(values, scoring: str = "pot") -> np.ndarray:
    """Each seat's payoff (n, P) float64 under a scoring system.

    ``pot``: the best value takes 1, ties split it; ``points``: 2 to the best,
    1 to the second best, ties sharing places; ``straight-up-or-die``: by
    high class, or 5 to the worst and 2 to the second worst when no one has a
    straight or better (``values`` must then be high values).

    >>> score(np.array([[7, 9, 9]]), "points").tolist()
    [[0.0, 1.5, 1.5]]
    """
    if scoring not in SCORINGS:
        raise ValueError(f"scoring {scoring!r} is not one of {', '.join(SCORINGS)}")
    values = np.ascontiguousarray(values, dtype=np.int64)
    if values.ndim != 2 or values.shape[1] < 2:
        raise ValueError(f"values must be (n, players) with at least 2 players, got {values.shape}")
    if scoring == "pot":
        return pot_shares(values)
    if scoring == "points":
        return place_points(values, PLACE_POINTS)
    out = np.empty(values.shape, np.float64)
    suod_kernel(values, place_points(-values, SUOD_WORST_POINTS), out)
    return out


# -- the variant ------------------------------------------------------------------------

DISCARD, LAST = "discard", "last"
_OBSERVATION = (
    "hand (n, h) int8: the seat's dealt hand cards (h = 5, lowball 6), in deal order; "
    "held (n, h) bool: which of them it still holds; "
    "centre (n,) int8; "
    "towers (n, 6) int8: the towers in deal order A1 B1 A2 B2 A3 B3, -1 for cards not dealt yet; "
    "discards (n, 3) int8: the hand positions the seat threw in rounds 1-3, -1 for rounds to come "
    "(and for a last discard not taken); "
    "legal; plus seat, n_players, decision, variant and round (0-based). Nothing of any other "
    "seat's hand or discards."
)


def _discard_decision(h: int, lowball: bool) -> Decision:
    third = "mandatory" if lowball else "the third is the seat's proposal, which the last decision takes or not"
    return Decision(
        DISCARD, h, tuple(f"discard card {j + 1}" for j in range(h)),
        f"after each tower round, the hand position of the card to throw ({third})",
        _OBSERVATION + "; legal (n, h) bool: the held cards.",
        rounds=N_ROUNDS, obs=_obs_fields(h),
    )


def _obs_fields(h: int, last: bool = False) -> tuple:
    return (Obs("hand", "int8", ("n", h)), Obs("held", "bool", ("n", h)), Obs("centre", "int8", ("n",)),
            Obs("towers", "int8", ("n", 6)), Obs("discards", "int8", ("n", N_ROUNDS), cards=False)) + (
        (Obs("proposed", "int64", ("n",)),) if last else ())


def _last_decision(h: int) -> Decision:
    return Decision(
        LAST, 1 + h, ("keep all",) + tuple(f"discard card {j + 1}" for j in range(h)),
        "round 3, every card known: keep all three hand cards (0), or throw position j (1 + j) "
        "and play the other two with the centre",
        _OBSERVATION + "; proposed (n,) int64: the position the seat's discard policy chose this "
        "round; legal (n, 1 + h) bool: keeping all, and each held card.", obs=_obs_fields(h, last=True),
    )


class TapiolaHoldem(Variant):
    """Tapiola Hold'em with its rule options: scoring, lowball, burn."""

    name = "tapiola"
    title = "Tapiola Hold'em"
    options = (
        Option("scoring", "pot", "pot (best hand takes the pot), points (2 to the best, 1 to the "
               "second) or straight-up-or-die (points by class, or to the worst hands)",
               choices=SCORINGS),
        Option("lowball", False, "the lowball form: six hand cards, three mandatory discards, "
               "ace-to-six low (2 to 7 players)"),
        Option("burn", False, "burn a card before each tower round (changes no probability; "
               "at most 8 players)"),
    )
    fields = (Field("discarded", "cards the hero threw in earlier rounds, in round order "
                                 "(unknown cards when not given)"),)

    def configure(self, scoring, lowball, burn):
        if lowball and scoring == "straight-up-or-die":
            raise ValueError("tapiola: straight-up-or-die scores high hands; it cannot be played "
                             "with lowball (use scoring pot or points)")
        self.lowball = bool(lowball)
        self.scoring = scoring
        self.h = hand_size(lowball)
        # The centre, every hand, six tower cards (A1 B1 A2 B2 A3 B3): see n_slots, hand_slots.
        self.layout = SlotLayout(public("centre", 1, fills="board"), private("hand", self.h, fills="hand"),
                                 public("towers", 6, fills="board"))
        # Lowball: 1 + 6*7 + 6 = 49 cards (52 with burns); high: 9 fill the deck, 8 with burns.
        self.max_players = 7 if lowball else (8 if burn else 9)
        self.decisions = ((_discard_decision(self.h, True),) if lowball
                          else (_discard_decision(self.h, False), _last_decision(self.h)))
        self.hand_kinds = ("low",) if lowball else ("high",)
        self.payoff_unit = "pot share" if scoring == "pot" else "points"
        self.payoff_total = {"pot": 1.0, "points": 3.0}.get(scoring)
        self.match_target = MATCH_TARGETS[scoring]

    def decision(self, name: str) -> Decision:
        if name == LAST and self.lowball:
            raise ValueError("tapiola: the last discard is a high-game decision; in lowball every "
                             "discard is mandatory, so its only decision is discard")
        return super().decision(name)

    def check_players(self, n_players: int) -> None:
        if is_whole(n_players) and n_players > self.max_players >= 2:
            why = "lowball" if self.lowball else ("with burn cards" if self.opts["burn"] else "")
            raise ValueError(f"{self.title} takes {self.min_players} to {self.max_players} players"
                             + (f" {why}" if why else "") + f", got {n_players}")
        super().check_players(n_players)

    # -- the game ------------------------------------------------------------------
    def play(self, cards, n_players, table):
        P, h = n_players, self.h
        n = cards.shape[0]
        hands = np.empty((P, n, h), np.int8)
        centre = np.empty(n, np.int8)
        towers = np.empty((n, 6), np.int8)
        split_deal(np.ascontiguousarray(cards), P, h, hands, centre, towers)
        hands.flags.writeable = False
        centre.flags.writeable = False
        held = np.ones((P, n, h), np.bool_)
        discards = np.full((P, n, 3), -1, np.int8)
        for r in range(N_ROUNDS):
            seen = np.empty((n, 6), np.int8)
            visible_towers(towers, r + 1, seen)
            seen.flags.writeable = False
            # Simultaneous: every seat chooses before any discard of this round is applied
            # (and no seat sees another's hand or discards anyway).
            chosen = []
            for p in range(P):
                obs = self._obs(hands[p], held[p], centre, seen, discards[p])
                obs["legal"] = obs["held"]
                chosen.append(table.act(p, DISCARD, obs, round=r))
            if r == N_ROUNDS - 1 and not self.lowball:
                for p in range(P):
                    obs = self._obs(hands[p], held[p], centre, seen, discards[p])
                    legal = np.concatenate([np.ones((n, 1), np.bool_), held[p]], axis=1)
                    legal.flags.writeable = False
                    proposed = chosen[p].copy()
                    proposed.flags.writeable = False
                    obs.update(legal=legal, proposed=proposed)
                    chosen[p] = table.act(p, LAST, obs) - 1  # -1: keeps all
            for p in range(P):
                apply_discards(held[p], chosen[p])
                discards[p, :, r] = chosen[p]
        values = np.empty((n, P), np.int32)
        _showdown_kernel(hands, held, centre, towers, self.lowball, values)
        wins = np.empty((n, P), np.bool_)
        ties = np.empty((n, P), np.bool_)
        best_flags(values, wins, ties)
        if self.lowball:
            categories = ((LOW_TOP - 1 - values) >> 12).astype(np.int8)
        else:
            categories = (values >> 12).astype(np.int8)
        return Outcome(score(values, self.scoring), wins, ties, categories[:, :, None])

    @staticmethod
    def _obs(hand, held, centre, towers, discards):
        """One seat's observation: copies of what changes, read-only."""
        obs = {"hand": hand, "held": held.copy(), "centre": centre, "towers": towers,
               "discards": discards.copy()}
        for k in ("held", "discards"):
            obs[k].flags.writeable = False
        return obs

    # -- situations -------------------------------------------------------------
    def _board_round(self, board) -> int:
        """The discard round a board implies: centre, then the tower cards in pairs."""
        b = parse_cards(board, allow_empty=True) if board is not None else np.zeros(0, np.int8)
        nb = len(b)
        if nb > 7:
            raise ValueError(f"board: the centre and at most six tower cards, got {nb} cards")
        if nb >= 2 and nb % 2 == 0:
            raise ValueError(f"board: the centre, then the tower cards in pairs (A1 B1, A2 B2, A3 B3): "
                             f"got {nb} cards")
        return max(0, (nb - 1) // 2 - 1)

    def _hero_round(self, known, n_players, seat) -> int:
        towers = known[tower_slots(n_players, self.lowball)]
        return max(0, int((towers >= 0).sum()) // 2 - 1)

    def setup(self, n_players, hand=None, board=None, seat=0, discarded=None, **fields):
        """Known slots and presets for a situation: ``hand`` is what the hero holds now.

        ``board`` is given in deal order: the centre, A1, B1, A2, B2, A3, B3;
        the round follows from the number of tower cards (none or two: round
        1, four: round 2, six: round 3). The hero's hand fills its first
        positions; its earlier discards (``discarded``, in round order, else
        unknown cards) fill the rest and are forced in their rounds.
        """
        P, h = n_players, self.h
        r = self._board_round(board)
        known = np.full(self.n_slots(P), -1, np.int8)
        self.place(known, [0] + tower_slots(P, self.lowball), board, "board")
        slots = hand_slots(P, seat, self.lowball)
        holds = h - r
        if hand is not None and len(parse_cards(hand, allow_empty=True)) > holds:
            raise ValueError(f"hand: at round {r + 1} the hero holds {holds} cards, got "
                             f"{len(parse_cards(hand, allow_empty=True))}")
        self.place(known, slots[:holds], hand, "hand")
        if discarded is not None:
            if r == 0:
                raise ValueError("discarded: nothing is discarded before round 1's discard")
            k = len(parse_cards(discarded, allow_empty=True))
            if k != r:
                raise ValueError(f"discarded: one card per earlier round ({r} at round {r + 1}), got {k}")
            self.place(known, slots[holds:holds + r], discarded, "discarded")
        presets = {(seat, DISCARD, q): holds + q for q in range(r)}
        return Situation(known, presets)

    def default_decision(self, situation) -> str:
        """With the whole board in the high game, the question is the last discard."""
        if not self.lowball and self._board_round(situation.board) == N_ROUNDS - 1:
            return LAST
        return DISCARD

    def analysis_round(self, decision, situation) -> int:
        board = situation.board
        r = (self._board_round(board) if board is not None
             else self._hero_round(situation.known, situation.n_players, situation.seat))
        if decision == DISCARD and r == N_ROUNDS - 1 and not self.lowball:
            raise ValueError("at round 3 of the high game the discard is optional: analyse it with "
                             "decision last (keep all, or discard a card)")
        return r

    def analysis_actions(self, decision, situation):
        r = self._hero_round(situation.known, situation.n_players, situation.seat)
        if decision == LAST:
            if r != N_ROUNDS - 1:
                raise ValueError("the last discard comes at round 3: give the whole board "
                                 "(the centre and six tower cards)")
            return [0, 1, 2, 3]
        self.decision(decision)
        return list(range(self.h - r))

    def analysis_label(self, decision, action, situation):
        if decision == LAST:
            if action == 0:
                return "keep all"
            action -= 1
        card = int(situation.known[hand_slots(situation.n_players, situation.seat, self.lowball)[action]])
        return f"discard {card_to_str(card)}" if card >= 0 else f"discard card {action + 1}"

    # -- rollouts ---------------------------------------------------------------------
    def situation(self, decision, obs, n_players):
        """The seat's own hand, the centre and the towers so far; its own earlier
        discards (and at ``last`` its discard policy's proposal) replayed."""
        self.decision(decision)
        seat = int(obs["seat"])
        n = obs["hand"].shape[0]
        P = n_players
        known = np.full((n, self.n_slots(P)), -1, np.int8)
        known[:, 0] = obs["centre"]
        known[:, hand_slots(P, seat, self.lowball)] = obs["hand"]
        known[:, tower_slots(P, self.lowball)] = obs["towers"]
        rnd = N_ROUNDS - 1 if decision == LAST else int(obs["round"])
        disc = obs["discards"].astype(np.int64)
        forced = {(seat, DISCARD, q): disc[:, q].copy() for q in range(rnd)}
        if decision == LAST:
            forced[(seat, DISCARD, rnd)] = np.asarray(obs["proposed"], np.int64).copy()
        return known, forced


