"""Russian Hold'em: twelve cards placed on three hands, a concealed fifth card, win two of three.

One card is burned unseen and a three-card flop is dealt; flop card ``k``
starts every player's hand ``k``. Twelve rounds follow. Each round deals one
card to every player, and then, in seat order, each player places it on one
of its own three hands that holds fewer than four placed cards. Placed cards
lie face up, except the fourth card placed on a hand (its fifth card), which
lies face down and is known to its owner only. At the showdown hand ``k`` is
compared with every other player's hand ``k`` (five cards, no choice); every
player tied for best on a hand counts a win on it, and the most wins take the
pot (a tie on that count splits it).

Slots of a deal with ``P`` players (the burn needs no slot: an unseen card
changes no probability): the flop is ``0 .. 2``; the card that seat ``p``
receives in round ``r`` (0-based) is ``3 + r*P + p`` (:func:`card_slot`).

State while the rounds are played, one row per deal:

- ``up (n, P, 3, 3) int8``: the face-up placed cards of each hand, in the
  order placed, -1 padded (the flop card is not repeated here);
- ``placed (n, P, 3) int8``: cards placed on each hand so far (0..4, public);
- ``down (n, P, 3) int8``: the face-down fifth card of each hand, -1 while
  there is none; private to its owner.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..kernels import value_five_high

__all__ = [
    "ROUNDS", "FLOP", "N_HANDS", "PLACED_MAX", "HAND_LABELS",
    "n_slots", "card_slot", "split_deal", "place_legal", "apply_placements", "showdown",
]

ROUNDS = 12  # cards each player places
FLOP = 3  # flop cards, one per hand
N_HANDS = 3
PLACED_MAX = 4  # placed cards per hand; the fourth lies face down
HAND_LABELS = ("hand 1", "hand 2", "hand 3")


def n_slots(n_players: int) -> int:
    """Card slots of one deal: the flop, then one card per player and round.

    >>> n_slots(4)  # with the burn, the whole deck
    51
    """
    return FLOP + ROUNDS * int(n_players)


def card_slot(n_players: int, rnd: int, seat: int) -> int:
    """Slot of the card ``seat`` receives in round ``rnd`` (0-based).

    >>> card_slot(3, 0, 2), card_slot(3, 1, 0)
    (5, 6)
    """
    if not 0 <= rnd < ROUNDS:
        raise ValueError(f"round {rnd} is not in 0..{ROUNDS - 1}")
    if not 0 <= seat < n_players:
        raise ValueError(f"seat {seat} is not in 0..{n_players - 1}")
    return FLOP + rnd * int(n_players) + seat


# -- dealing and placing -----------------------------------------------------------------


@njit(cache=True, nogil=True)
def _split_kernel(cards, P, flop, dealt):
    n = cards.shape[0]
    for i in range(n):
        for j in range(FLOP):
            flop[i, j] = cards[i, j]
        for r in range(ROUNDS):
            for p in range(P):
                dealt[i, r, p] = cards[i, FLOP + r * P + p]


def split_deal(cards: np.ndarray, n_players: int):
    """The flop and the dealt cards out of a block of slots.

    Parameters
    ----------
    cards : (n, n_slots(P)) int8, as the engine deals them.
    n_players : P.

    Returns
    -------
    flop : (n, 3) int8, flop card k starting hand k+1.
    dealt : (n, 12, P) int8, the card each seat receives in each round.
    """
    cards = np.ascontiguousarray(cards, dtype=np.int8)
    P = int(n_players)
    if cards.ndim != 2 or cards.shape[1] != n_slots(P):
        raise ValueError(f"cards: expected shape (n, {n_slots(P)}) for {P} players, got {cards.shape}")
    flop = np.empty((cards.shape[0], FLOP), np.int8)
    dealt = np.empty((cards.shape[0], ROUNDS, P), np.int8)
    _split_kernel(cards, P, flop, dealt)
    return flop, dealt


@njit(cache=True, nogil=True)
def _legal_kernel(placed, p, legal):
    for i in range(placed.shape[0]):
        for h in range(N_HANDS):
            legal[i, h] = placed[i, p, h] < PLACED_MAX


def place_legal(placed: np.ndarray, seat: int) -> np.ndarray:
    """Legal placements (n, 3) bool of ``seat``: the hands with fewer than four placed cards.

    >>> place_legal(np.array([[[4, 0, 3]]], np.int8), 0).tolist()
    [[False, True, True]]
    """
    placed = np.ascontiguousarray(placed, dtype=np.int8)
    if placed.ndim != 3 or placed.shape[2] != N_HANDS:
        raise ValueError(f"placed: expected shape (n, P, 3), got {placed.shape}")
    if not 0 <= seat < placed.shape[1]:
        raise ValueError(f"seat {seat} is not in 0..{placed.shape[1] - 1}")
    legal = np.empty((placed.shape[0], N_HANDS), np.bool_)
    _legal_kernel(placed, seat, legal)
    return legal


@njit(cache=True, nogil=True)
def _place_kernel(card, p, actions, up, placed, down):
    """Put ``card[i]`` on hand ``actions[i]`` of seat ``p``; the index of the
    first row whose hand is already full, else -1 (nothing after it is changed)."""
    for i in range(actions.shape[0]):
        h = actions[i]
        k = placed[i, p, h]
        if k >= PLACED_MAX:
            return i
        if k == PLACED_MAX - 1:
            down[i, p, h] = card[i]  # the fifth card lies face down
        else:
            up[i, p, h, k] = card[i]
        placed[i, p, h] = k + 1
    return -1


def apply_placements(card, seat, actions, up, placed, down) -> None:
    """Place each row's ``card`` on hand ``actions`` (0, 1, 2) of ``seat``, in place.

    Parameters
    ----------
    card : (n,) int8, the card seat ``seat`` holds.
    seat : the placing seat.
    actions : (n,) int, the hand (0-based) for each row.
    up, placed, down : the state arrays (see the module docstring); changed in place.

    Raises ValueError for a hand out of 0..2 or one that already holds four
    placed cards (no row is changed then).
    """
    actions = np.asarray(actions)
    card = np.ascontiguousarray(card, dtype=np.int8)
    n, P = placed.shape[0], placed.shape[1]
    if actions.shape != (n,) or card.shape != (n,):
        raise ValueError(f"card and actions: expected shape ({n},), got {card.shape} and {actions.shape}")
    if up.shape != (n, P, N_HANDS, PLACED_MAX - 1) or down.shape != (n, P, N_HANDS):
        raise ValueError(f"up, down: expected shapes {(n, P, 3, 3)} and {(n, P, 3)}, "
                         f"got {up.shape} and {down.shape}")
    if not 0 <= seat < P:
        raise ValueError(f"seat {seat} is not in 0..{P - 1}")
    if n and (actions.min() < 0 or actions.max() >= N_HANDS):
        bad = actions[(actions < 0) | (actions >= N_HANDS)][0]
        raise ValueError(f"hand {int(bad)} is not one of 0, 1, 2")
    actions = actions.astype(np.int64, copy=False)
    full = np.flatnonzero(placed[np.arange(n), seat, actions] >= PLACED_MAX)
    if full.size:
        i = int(full[0])
        raise ValueError(f"hand {int(actions[i]) + 1} of seat {seat} already holds four placed "
                         f"cards (deal {i})")
    _place_kernel(card, seat, actions, up, placed, down)


def new_state(n: int, n_players: int):
    """Empty ``(up, placed, down)`` for ``n`` deals (see the module docstring)."""
    P = int(n_players)
    return (np.full((n, P, N_HANDS, PLACED_MAX - 1), -1, np.int8),
            np.zeros((n, P, N_HANDS), np.int8),
            np.full((n, P, N_HANDS), -1, np.int8))


# -- showdown ------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _showdown_kernel(flop, up, down, values, won, payoffs, wins, ties):
    n, P = up.shape[0], up.shape[1]
    for i in range(n):
        for p in range(P):
            won[i, p] = 0
        for h in range(N_HANDS):
            f = np.uint8(flop[i, h])
            best = np.int32(-1)
            for p in range(P):
                v = value_five_high(f, np.uint8(up[i, p, h, 0]), np.uint8(up[i, p, h, 1]),
                                    np.uint8(up[i, p, h, 2]), np.uint8(down[i, p, h]))
                values[i, p, h] = v
                if v > best:
                    best = v
            # every player tied for best counts a win on this hand
            for p in range(P):
                if values[i, p, h] == best:
                    won[i, p] += 1
        most = 0
        for p in range(P):
            if won[i, p] > most:
                most = won[i, p]
        k = 0
        for p in range(P):
            if won[i, p] == most:
                k += 1
        for p in range(P):
            top = won[i, p] == most
            payoffs[i, p] = 1.0 / k if top else 0.0
            wins[i, p] = top and k == 1
            ties[i, p] = top and k > 1


def showdown(flop, up, down):
    """Values, hands won and pot shares of complete Russian hands.

    Parameters
    ----------
    flop : (n, 3) int8.
    up : (n, P, 3, 3) int8, every hand's three face-up placed cards.
    down : (n, P, 3) int8, every hand's face-down card.

    Returns
    -------
    dict with ``values (n, P, 3) int32`` (high values, higher wins),
    ``categories (n, P, 3) int8``, ``hands_won (n, P) int8`` (hands on which
    the seat is best or tied for best), ``payoffs (n, P) float64`` (pot
    shares: the most hands won take the pot, ties on that count split it),
    ``wins`` and ``ties (n, P) bool`` (alone with the most hands won; tied).

    Examples
    --------
    >>> from simcore.cards import parse_cards
    >>> flop = parse_cards("2c 7d Kh")[None]
    >>> up = np.stack([parse_cards("2d 2h 2s 7c 8c 9c Kd Ks Ac"),
    ...                parse_cards("3c 3d 4c 7h 7s 8d Qc Qd Qs")]).reshape(1, 2, 3, 3)
    >>> down = parse_cards("3s Tc 5c 4d 8h 6s").reshape(1, 2, 3)
    >>> r = showdown(flop, up, down)  # quads, sevens, kings v two pair, a full house, queens
    >>> r["hands_won"].tolist(), r["payoffs"].tolist()
    ([[2, 1]], [[1.0, 0.0]])
    """
    flop = np.ascontiguousarray(flop, dtype=np.int8)
    up = np.ascontiguousarray(up, dtype=np.int8)
    down = np.ascontiguousarray(down, dtype=np.int8)
    if up.ndim != 4 or up.shape[2:] != (N_HANDS, PLACED_MAX - 1):
        raise ValueError(f"up: expected shape (n, P, 3, 3), got {up.shape}")
    n, P = up.shape[:2]
    if flop.shape != (n, FLOP) or down.shape != (n, P, N_HANDS):
        raise ValueError(f"flop, down: expected shapes {(n, 3)} and {(n, P, 3)}, "
                         f"got {flop.shape} and {down.shape}")
    for name, arr in (("flop", flop), ("up", up), ("down", down)):
        if arr.size and (arr.min() < 0 or arr.max() > 51):
            bad = arr[(arr < 0) | (arr > 51)][0]
            raise ValueError(f"{name}: card value {int(bad)} is not in 0..51 (every hand must be complete)")
    values = np.empty((n, P, N_HANDS), np.int32)
    won = np.empty((n, P), np.int8)
    payoffs = np.empty((n, P), np.float64)
    wins = np.empty((n, P), np.bool_)
    ties = np.empty((n, P), np.bool_)
    _showdown_kernel(flop, up, down, values, won, payoffs, wins, ties)
    return {"values": values, "categories": (values >> 12).astype(np.int8), "hands_won": won,
            "payoffs": payoffs, "wins": wins, "ties": ties}
