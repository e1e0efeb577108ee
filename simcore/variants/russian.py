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

from ..engine.variant import Decision, Field, Obs, Outcome, SharedState, Situation, SlotLayout, Variant, private, public
from ..kernels import CARD_KEY, FLUSH_FLAGS, RANK_HIGH, SUIT_START, pot_best, pot_share, rank_slot, value_five_high

__all__ = [
    "ROUNDS", "FLOP", "N_HANDS", "PLACED_MAX", "HAND_LABELS",
    "n_slots", "card_slot", "split_deal", "place_legal", "apply_placements", "new_state", "showdown",
    "RussianHoldem", "PLACE_FIRST_OPEN", "PLACE_BY_RANK", "seat_view",
]

ROUNDS = 12  # cards each player places
FLOP = 3  # flop cards, one per hand
N_HANDS = 3
PLACED_MAX = 4  # placed cards per hand; the fourth lies face down
HAND_LABELS = ("hand 1", "hand 2", "hand 3")
# Placement rules that RussianHoldem.play can apply itself, in one kernel with the
# showdown: a policy whose ``place_rule`` trait is one of these
# places exactly so and uses neither its observation nor its random stream.
PLACE_FIRST_OPEN = 0  # the lowest-numbered hand with room
PLACE_BY_RANK = 1  # J-A hand 1, 7-T hand 2, 2-6 hand 3 when it has room, else first-open


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


def split_deal(cards: np.ndarray, n_players: int):
    """The flop and the dealt cards out of a block of slots.

    Parameters
    ----------
    cards : (n, n_slots(P)) int8, as the engine deals them.
    n_players : P.

    Returns
    -------
    flop : (n, 3) int8, flop card k starting hand k+1.
    dealt : (n, 12, P) int8, the card each seat receives in each round (a view
        of round-major memory, as the play deals them: see :func:`_deal_rounds`).
    """
    cards = np.ascontiguousarray(cards, dtype=np.int8)
    P = int(n_players)
    if cards.ndim != 2 or cards.shape[1] != n_slots(P):
        raise ValueError(f"cards: expected shape (n, {n_slots(P)}) for {P} players, got {cards.shape}")
    flop = np.empty((cards.shape[0], FLOP), np.int8)
    dealt = np.empty((ROUNDS, P, cards.shape[0]), np.int8)
    _deal_rounds(cards, P, flop, dealt)
    return flop, dealt.transpose(2, 0, 1)


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


@njit(cache=True, nogil=True, inline="always")
def cards_in_sight(flop, up, placed, own_down, card, i):
    """The 52-bit set (int64) of the cards the deciding seat sees in row ``i`` of a ``place``
    observation: the flop, every face-up card, its own face-down cards (``own_down``, -1 where a
    hand has none) and the card to place. The seat view's first word, and what the built-ins
    count the unseen cards from."""
    P = up.shape[1]
    m = np.int64(1) << card[i]
    for h in range(N_HANDS):
        m |= np.int64(1) << flop[i, h]
        for q in range(P):
            for j in range(min(placed[i, q, h], PLACED_MAX - 1)):
                m |= np.int64(1) << up[i, q, h, j]
        if own_down[i, h] >= 0:
            m |= np.int64(1) << own_down[i, h]
    return m


@njit(cache=True, nogil=True)
def _seat_view_kernel(flop, up, placed, own_down, card, seat, key):
    """:func:`seat_view`'s key, one row at a time: ``key[i, 0]`` the cards ``seat`` sees in row
    ``i`` (:func:`cards_in_sight`), then its own face-up cards by hand and slot, its hands'
    counts, its face-down cards and the card."""
    for i in range(up.shape[0]):
        key[i, 0] = cards_in_sight(flop, up, placed, own_down, card, i)
        for h in range(N_HANDS):
            for j in range(PLACED_MAX - 1):
                key[i, 1 + (PLACED_MAX - 1) * h + j] = up[i, seat, h, j]
            key[i, 10 + h] = placed[i, seat, h]
            key[i, 13 + h] = own_down[i, h]
        key[i, 16] = card[i]


def seat_view(obs: dict) -> np.ndarray:
    """The ``place`` decision's seat view (:meth:`Variant.seat_view`): per row, the cards in
    sight (a 52-bit set), the seat's own face-up cards by hand and slot, how many cards each of
    its hands holds, its face-down cards and the card to place: (n, 17) int64. Everything the
    policies that reason from their own hands read (``best-gain``, ``conceal``, ...: their
    hands, and the rank and suit counts of the cards not in sight), and the buckets."""
    up = np.asarray(obs["up"], dtype=np.int8)
    key = np.empty((up.shape[0], 17), np.int64)
    _seat_view_kernel(np.asarray(obs["flop"], dtype=np.int8), up, np.asarray(obs["placed"], dtype=np.int8),
                      np.asarray(obs["own_down"], dtype=np.int8), np.asarray(obs["card"], dtype=np.int8),
                      int(obs["seat"]), key)
    return key


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
    # the play's placement step; what only the play keeps (the public count of
    # face-down cards, the legal mask, the history) goes to scratch
    n_down, legal, history = np.empty((n, N_HANDS), np.int8), np.empty((n, N_HANDS), np.bool_), np.empty(n, np.int8)
    _place_round_kernel(card, actions, up[:, seat], placed[:, seat], n_down, down[:, seat], legal, history)


def new_state(n: int, n_players: int):
    """Empty ``(up, placed, down)`` for ``n`` deals (see the module docstring)."""
    P = int(n_players)
    return (np.full((n, P, N_HANDS, PLACED_MAX - 1), -1, np.int8),
            np.zeros((n, P, N_HANDS), np.int8),
            np.full((n, P, N_HANDS), -1, np.int8))


# -- showdown ------------------------------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def _hand_value(fkey, f, c0, c1, c2, c3):
    """High value of flop card ``f`` (``fkey``: SUIT_START plus its key, shared by
    every seat) and placed cards ``c0 .. c3`` (uint8)."""
    key = fkey + CARD_KEY[c0] + CARD_KEY[c1] + CARD_KEY[c2] + CARD_KEY[c3]
    if key & FLUSH_FLAGS:  # rare: only then are the card bits needed
        return value_five_high(f, c0, c1, c2, c3)
    return np.int32(RANK_HIGH[rank_slot(key)])


@njit(cache=True, nogil=True)
def _settle_rows(flop, lo, held, categories, winning, payoffs, wins, ties, parts, values, won_hands):
    """The showdown and the pot of deals ``lo .. lo + m - 1``: the one rule step
    that every way of playing Russian ends with.

    ``flop[i, h]`` starts hand ``h`` of every seat (the dealt slots themselves
    will do: the flop is slots 0..2). ``held`` (m, 12P) uint8: row ``j`` holds
    deal ``lo + j``'s placed cards, ``held[j, 12p + 4h + k]`` the ``k``-th
    card seat ``p`` placed on hand ``h`` (the fourth lies face down). Writes
    those deals' rows of ``categories``, ``winning``, ``payoffs``, ``wins``,
    ``ties`` and ``parts`` (4, n, P) (one-hot hands won), and of ``values``
    and ``won_hands`` (n, P, 3) unless they are empty (only :func:`showdown`
    reports them).

    A call settles a batch of deals, not one: called deal by deal with these
    arrays, the ruled kernel took 2.4 ms a 4-player block of 16,384 deals
    inlined and 3.4 ms not (reference counting at each call), against 1.8 ms
    with the settling written out in it and 1.6 ms in batches of 64.
    """
    P = held.shape[1] // 12
    detail = values.shape[0] > 0
    vals = np.empty(P, np.int32)
    won = np.empty(P, np.int32)
    for j in range(held.shape[0]):
        i = lo + j
        for p in range(P):
            won[p] = 0
        for h in range(N_HANDS):
            f = np.uint8(flop[i, h])
            fkey = SUIT_START + CARD_KEY[f]  # the flop card's key, shared by every seat
            best = np.int32(-1)
            for p in range(P):
                at = 12 * p + 4 * h
                v = _hand_value(fkey, f, held[j, at], held[j, at + 1], held[j, at + 2], held[j, at + 3])
                vals[p] = v
                categories[i, p, h] = v >> 12
                best = max(best, v)
            winning[i, h] = best >> 12
            for p in range(P):  # every player tied for best counts a win on this hand
                top = vals[p] == best
                won[p] += top
                if detail:
                    values[i, p, h] = vals[p]
                    won_hands[i, p, h] = top
        # the most hands won take the pot, a tie on that count splits it
        most, k = pot_best(won)
        for p in range(P):
            payoffs[i, p], wins[i, p], ties[i, p] = pot_share(won[p], most, k)
            for c in range(4):
                parts[c, i, p] = 1.0 if won[p] == c else 0.0


@njit(cache=True, nogil=True)
def _held_rows(up, down):
    """Placed state ``up`` (n, P, 3, 3) and ``down`` (n, P, 3) as the rows
    (n, 12P) uint8 that :func:`_settle_rows` reads."""
    n, P = up.shape[0], up.shape[1]
    held = np.empty((n, 12 * P), np.uint8)
    for i in range(n):
        for p in range(P):
            for h in range(N_HANDS):
                at = 12 * p + 4 * h
                for k in range(PLACED_MAX - 1):
                    held[i, at + k] = np.uint8(up[i, p, h, k])
                held[i, at + PLACED_MAX - 1] = np.uint8(down[i, p, h])
    return held


def _rule_table():
    """Placement by rule as one table look-up: ``_RULE_STEP[rule, 3 * s + g]`` for a
    seat whose hands hold ``s = 25 k1 + 5 k2 + k3`` placed cards and a card of
    group ``g`` (0: J-A, 1: 7-T, 2: 2-6) is ``(s' << 4) | (4 h + k)``: the hand
    ``h`` it goes to, as the ``k``-th card placed there, and the counts after."""
    step = np.zeros((2, 125 * 3), np.uint32)
    for rule in (PLACE_FIRST_OPEN, PLACE_BY_RANK):
        for st in range(125):
            ks = (st // 25, st // 5 % 5, st % 5)
            if min(ks) == PLACED_MAX:
                continue  # every hand full: no card comes
            first = next(h for h in range(N_HANDS) if ks[h] < PLACED_MAX)  # first-open
            for g in range(3):
                h = g if rule == PLACE_BY_RANK and ks[g] < PLACED_MAX else first
                step[rule, 3 * st + g] = ((st + (25, 5, 1)[h]) << 4) | (4 * h + ks[h])
    return step


_RULE_STEP = _rule_table()


@njit(cache=True, nogil=True, inline="always")
def _rule_place(steps, st, c, held, at):
    """One placement by rule (see :func:`_rule_table`): ``c`` into ``held[at + 4h + k]``;
    the new state and ``h``."""
    v = steps[st * np.uint32(3) + np.uint32(c < 36) + np.uint32(c < 20)]
    held[at + (v & np.uint32(15))] = c
    return v >> np.uint32(4), (v & np.uint32(15)) >> np.uint32(2)


@njit(cache=True, nogil=True)
def _ruled_kernel(cards, rules, steps, record, actions, payoffs, wins, ties, categories, winning, parts):
    """A whole block in one pass when every seat places by a rule
    (:data:`PLACE_FIRST_OPEN`, :data:`PLACE_BY_RANK`; ``rules`` (P,) their codes,
    ``steps`` :data:`_RULE_STEP`): the twelve rounds and the showdown of each
    deal, with no state but the deal's own; the same placements and numbers as
    the decision-by-decision play. Actions go to ``actions`` (12, P, n) when
    ``record``.

    The four seats' placements are written out side by side: each is a chain of
    table look-ups, and interleaved chains overlap (measured 4.6x over a loop
    over the seats). The showdown is :func:`_settle_rows`, 64 deals at a time.
    """
    n, P = cards.shape[0], rules.shape[0]
    # _settle_rows' rows, 64 deals at a time: seat p, hand h, k-th card at 12p + 4h + k
    chunk = 64
    rows = np.empty((chunk, 12 * P), np.uint8)
    t0, t1 = steps[rules[0]], steps[rules[1]]
    t2, t3 = steps[rules[min(2, P - 1)]], steps[rules[min(3, P - 1)]]
    no_values, no_won = np.empty((0, P, N_HANDS), np.int32), np.empty((0, P, N_HANDS), np.bool_)
    for i in range(n):
        held = rows[i % chunk]
        s0 = s1 = s2 = s3 = np.uint32(0)
        h2 = h3 = np.uint32(0)
        for r in range(ROUNDS):
            b = FLOP + r * P
            s0, h0 = _rule_place(t0, s0, cards[i, b], held, np.uint32(0))
            s1, h1 = _rule_place(t1, s1, cards[i, b + 1], held, np.uint32(12))
            if P > 2:
                s2, h2 = _rule_place(t2, s2, cards[i, b + 2], held, np.uint32(24))
            if P > 3:
                s3, h3 = _rule_place(t3, s3, cards[i, b + 3], held, np.uint32(36))
            if record:
                actions[r, 0, i] = h0
                actions[r, 1, i] = h1
                if P > 2:
                    actions[r, 2, i] = h2
                if P > 3:
                    actions[r, 3, i] = h3
        if i % chunk == chunk - 1 or i == n - 1:
            lo = i - i % chunk
            _settle_rows(cards, lo, rows[:i - lo + 1], categories, winning, payoffs, wins, ties, parts,
                         no_values, no_won)


def _showdown_arrays(flop, up, down, detail):
    """Every output of :func:`_settle_rows` for placed state ``up`` and ``down``, as a
    dict; ``values`` and ``won`` (per hand) empty unless ``detail``."""
    n, P = up.shape[:2]
    m = n if detail else 0
    out = {"values": np.empty((m, P, N_HANDS), np.int32), "won": np.empty((m, P, N_HANDS), np.bool_),
           "payoffs": np.empty((n, P), np.float64),
           "wins": np.empty((n, P), np.bool_), "ties": np.empty((n, P), np.bool_),
           "categories": np.empty((n, P, N_HANDS), np.int8), "winning": np.empty((n, N_HANDS), np.int8),
           "parts": np.empty((4, n, P), np.float64)}
    _settle_rows(flop, 0, _held_rows(up, down), out["categories"], out["winning"], out["payoffs"], out["wins"],
                 out["ties"], out["parts"], out["values"], out["won"])
    return out


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
    ``categories (n, P, 3) int8``, ``winning (n, 3) int8`` (the category
    of the best hand on each hand number), ``won (n, P, 3) bool`` (best or tied
    for best on that hand), ``hands_won (n, P) int8`` (hands on which
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
    out = _showdown_arrays(flop, up, down, True)
    out["hands_won"] = out["won"].sum(axis=2, dtype=np.int8)
    del out["parts"]
    return out


# -- the variant ------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _deal_rounds(cards, P, flop, dealt):
    """The flop (n, 3) and the dealt cards round-major (12, P, n): each seat's card of a
    round is then one contiguous array, shown to its strategy without a copy.

    Transposed 64 rows at a time, so that both the rows read and the 12P
    runs written stay in cache (row by row it took 3x as long).
    """
    n = cards.shape[0]
    for lo in range(0, n, 64):
        hi = min(n, lo + 64)
        for i in range(lo, hi):
            for j in range(FLOP):
                flop[i, j] = cards[i, j]
        for r in range(ROUNDS):
            for p in range(P):
                slot = FLOP + r * P + p
                for i in range(lo, hi):
                    dealt[r, p, i] = cards[i, slot]


@njit(cache=True, nogil=True)
def _place_round_kernel(card, actions, up, placed, n_down, own_down, legal, history):
    """The engine's placement step for one seat (actions already checked legal):
    ``up`` (n, 3, 3), ``placed``, ``n_down``, ``own_down``, ``legal`` (n, 3) and
    ``history`` (n,) are that seat's parts of the state, changed in place. The
    state is stored seat-major, so these are contiguous: a step writes only its
    seat's memory, not a byte in every row of every array.
    """
    # Unsigned indices: numba checks signed ones for wrap-around.
    last = np.uint64(PLACED_MAX - 1)
    for i in range(actions.shape[0]):
        h = np.uint64(actions[i])
        k = np.uint64(placed[i, h])
        if k == last:
            own_down[i, h] = card[i]
            n_down[i, h] = 1
            legal[i, h] = False
        else:
            up[i, h, k] = card[i]
        placed[i, h] = k + np.uint64(1)
        history[i] = h


@njit(cache=True, nogil=True)
def _rebuild_kernel(flop, up, own_down, history, card, seat, rnd, P, known, forced):
    """Rollout situation: the dealt slots ``seat`` has seen and every earlier placement.

    The k-th card a seat placed on a hand (in round order) is that hand's
    k-th face-up card, or its face-down card for k = 3, which only the seat
    itself knows (-1 for the others: resampled).
    """
    n = up.shape[0]
    count = np.zeros((P, N_HANDS), np.int64)
    for i in range(n):
        for j in range(FLOP):
            known[i, j] = flop[i, j]
        count[:, :] = 0
        for r in range(rnd + 1):
            for q in range(P):
                if r == rnd and q >= seat:
                    break
                h = history[i, r, q]
                k = count[q, h]
                count[q, h] = k + 1
                if k < PLACED_MAX - 1:
                    c = up[i, q, h, k]
                elif q == seat:
                    c = own_down[i, h]
                else:
                    c = -1
                known[i, FLOP + r * P + q] = c
                forced[r, q, i] = h
        known[i, FLOP + rnd * P + seat] = card[i]


_OBSERVATION = (
    "flop (n, 3) int8: flop card k starts hand k+1 of every player; "
    "up (n, P, 3, 3) int8: every player's face-up placed cards per hand, in the order placed, "
    "-1 padded (the flop card not repeated); "
    "placed (n, P, 3) int8: cards placed on each hand so far (0..4); "
    "n_down (n, P, 3) int8: face-down cards each hand holds (0 or 1); "
    "own_down (n, 3) int8: the seat's own face-down cards, -1 where none; "
    "card (n,) int8: the card to place; "
    "history (n, 12, P) int8: the hand (0..2) each seat chose in each round so far, -1 to come "
    "(public: placements are made in the open); "
    "legal (n, 3) bool: hands with fewer than four placed cards; plus seat, n_players, round "
    "(0..11). Arrays are read-only; the other players' face-down cards never appear."
)


def _parse_visible(text, n_others):
    """Opponents' visible cards: seats separated by ';', hands by '/', 'xx' a face-down card."""
    from ..cards import parse_cards

    seats = [s for s in str(text).split(";")]
    if len(seats) != n_others:
        raise ValueError(f"visible: give {n_others} seat(s) separated by ';' (each as three hands "
                         f"separated by '/'), got {len(seats)}")
    out = []
    for s in seats:
        hands = s.split("/")
        if len(hands) != N_HANDS:
            raise ValueError(f"visible: each seat is three hands separated by '/', got {s.strip()!r}")
        seat = []
        for h in hands:
            tokens = h.split()
            n_hidden = sum(t.lower() == "xx" for t in tokens)
            cards = parse_cards(" ".join(t for t in tokens if t.lower() != "xx"), allow_empty=True)
            if n_hidden > 1 or (n_hidden and (tokens[-1].lower() != "xx" or len(cards) != 3)):
                raise ValueError(f"visible: 'xx' (a face-down card) can only follow three face-up "
                                 f"cards on a hand, got {h.strip()!r}")
            if len(cards) > 3:
                raise ValueError(f"visible: a hand shows at most three placed cards, got {h.strip()!r}")
            seat.append((list(int(c) for c in cards), n_hidden))
        out.append(seat)
    return out


def _place_rules(table, P):
    """The seats' :data:`PLACE_FIRST_OPEN` / :data:`PLACE_BY_RANK` codes (P,) int8 when
    every seat's strategy declares one and no action is forced; else None."""
    if table.forced:
        return None
    rules = np.empty(P, np.int8)
    for p in range(P):
        rule = table.trait(p, "place", "place_rule")
        if rule not in (PLACE_FIRST_OPEN, PLACE_BY_RANK):
            return None
        rules[p] = rule
    return rules


def _play_ruled(cards, P, table, rules):
    """:meth:`RussianHoldem.play` when every seat places by a rule: no observation
    is built and no strategy called, since none would look at one; the rounds
    and the showdown are one kernel (measured on a 4-player 'by-rank' block of
    16,384 deals: 10.8 ms -> 2.7 ms). The actions are recorded as
    :meth:`Table.act` records them."""
    n = cards.shape[0]
    cards = np.ascontiguousarray(cards, dtype=np.int8)
    actions = np.empty((ROUNDS, P, n) if table.record else (1, 1, 1), np.int64)
    payoffs, parts = np.empty((n, P), np.float64), np.empty((4, n, P), np.float64)
    wins, ties = np.empty((n, P), np.bool_), np.empty((n, P), np.bool_)
    categories, winning = np.empty((n, P, N_HANDS), np.int8), np.empty((n, N_HANDS), np.int8)
    _ruled_kernel(cards, rules, _RULE_STEP, table.record, actions, payoffs, wins, ties, categories, winning, parts)
    if table.record:
        for r in range(ROUNDS):
            for p in range(P):
                table.actions[(p, "place", r)] = actions[r, p]
    return Outcome(payoffs, wins, ties, categories, winning, {f"hands_won_{k}": parts[k] for k in range(4)})


class RussianHoldem(Variant):
    """Russian Hold'em (see the module docstring)."""

    name = "russian"
    title = "Russian Hold'em"
    min_players = 2
    max_players = 4  # 1 + 3 + 12N <= 52
    fields = (
        Field("hand1", "the hero's cards placed on hand 1 so far, in the order placed "
                       "(a fourth is its face-down card)"),
        Field("hand2", "the hero's cards placed on hand 2 so far"),
        Field("hand3", "the hero's cards placed on hand 3 so far"),
        Field("visible", "the other players' placed cards, seat by seat from the hero's left, "
                      "';' between seats, '/' between hands, 'xx' for a face-down card: "
                      "\"Kc Kd / 4h / 7d; 2c 3c 4c xx / 9s / \" (omit: the other players' "
                      "earlier cards are dealt at random and placed by their policies)"),
    )
    decisions = (
        Decision("place", N_HANDS, HAND_LABELS,
                 "place the card just dealt on one of the seat's three hands with fewer than "
                 "four placed cards (12 rounds, in seat order)", _OBSERVATION, rounds=ROUNDS,
                 obs=(Obs("flop", "int8", ("n", FLOP)), Obs("up", "int8", ("n", "P", N_HANDS, PLACED_MAX - 1)),
                      Obs("placed", "int8", ("n", "P", N_HANDS), cards=False),
                      Obs("n_down", "int8", ("n", "P", N_HANDS), cards=False),
                      Obs("own_down", "int8", ("n", N_HANDS)), Obs("card", "int8", ("n",)),
                      Obs("history", "int8", ("n", ROUNDS, "P"), cards=False))),
    )
    hands = HAND_LABELS
    hand_kinds = ("high", "high", "high")
    parts = ("hands_won_0", "hands_won_1", "hands_won_2", "hands_won_3")
    part_groups = {"hands_won_dist": parts}
    # The flop, then one card per seat and round (card_slot). Placed cards lie face up
    # but the fourth on each hand: hidden_slots says which those are.
    layout = SlotLayout(public("flop", FLOP, fills="board"), private("cards", ROUNDS, seen="all", by_round=True))

    # -- the game --------------------------------------------------------------------
    def play(self, cards, n_players, table):
        P = n_players
        n = cards.shape[0]
        rules = _place_rules(table, P) if not table.keep_state else None  # the rule kernel keeps none
        if rules is not None:
            return _play_ruled(cards, P, table, rules)
        flop = np.empty((n, FLOP), np.int8)
        dealt = np.empty((ROUNDS, P, n), np.int8)
        _deal_rounds(np.ascontiguousarray(cards, dtype=np.int8), P, flop, dealt)
        flop.flags.writeable = False
        dealt.flags.writeable = False
        # Public state as (n, P, ...) views of seat-major memory (see _place_round_kernel;
        # measured 1.4x on a 4-player block over (n, P, ...) memory).
        # SharedState shows it read-only and copies an array only if a strategy kept it.
        st = SharedState(
            up=np.full((P, n, N_HANDS, PLACED_MAX - 1), -1, np.int8).transpose(1, 0, 2, 3),
            placed=np.zeros((P, n, N_HANDS), np.int8).transpose(1, 0, 2),
            n_down=np.zeros((P, n, N_HANDS), np.int8).transpose(1, 0, 2),
            history=np.full((ROUNDS, P, n), -1, np.int8).transpose(2, 0, 1))
        # What only the seat itself sees: its face-down cards (and its legal mask).
        own = [SharedState(own_down=np.full((n, N_HANDS), -1, np.int8),
                           legal=np.ones((n, N_HANDS), np.bool_)) for _ in range(P)]
        for r in range(ROUNDS):
            for p in range(P):
                card = dealt[r, p]
                obs = {**st.show(), **own[p].show(), "flop": flop, "card": card}
                actions = table.act(p, "place", obs, round=r)
                del obs
                st.settle()
                own[p].settle()
                _place_round_kernel(card, actions, st["up"][:, p], st["placed"][:, p], st["n_down"][:, p],
                                    own[p]["own_down"], own[p]["legal"], st["history"][:, r, p])
        down = np.stack([own[p]["own_down"] for p in range(P)], axis=1)
        out = _showdown_arrays(flop, st["up"], down, False)
        # table.keep_state: the final hands, for experiments (showdown(**state) gives every value)
        state = {"flop": flop, "up": st["up"], "down": down} if table.keep_state else None
        return Outcome(out["payoffs"], out["wins"], out["ties"], out["categories"], out["winning"],
                       {f"hands_won_{k}": out["parts"][k] for k in range(4)}, state=state)

    def seat_view(self, decision, obs):
        return seat_view(obs)

    def hidden_slots(self, n_players, seat):
        """Placing on the first hand with room, another seat's cards of rounds 4, 8
        and 12 are the fourth placed on its hands 1, 2, 3: face down."""
        return [card_slot(n_players, r, q) for q in range(n_players) if q != seat
                for r in (PLACED_MAX - 1, 2 * PLACED_MAX - 1, 3 * PLACED_MAX - 1)]

    # -- rollouts ---------------------------------------------------------------------
    def situation(self, decision, obs, n_players):
        """The slots the deciding seat has seen (opponents' face-down cards -1) and
        every earlier placement, forced per round (see :func:`_rebuild_kernel`)."""
        self.decision(decision)
        P = n_players
        seat, rnd = int(obs["seat"]), int(obs["round"])
        n = obs["up"].shape[0]
        known = np.full((n, n_slots(P)), -1, np.int8)
        forced = np.full((ROUNDS, P, n), -1, np.int64)
        _rebuild_kernel(obs["flop"], obs["up"], obs["own_down"], obs["history"], obs["card"],
                        seat, rnd, P, known, forced)
        out = {}
        for r in range(rnd + 1):
            for q in range(P if r < rnd else seat):
                out[(q, "place", r)] = forced[r, q]
        return known, out

    # -- situations -------------------------------------------------------------------
    def setup(self, n_players, hand=None, board=None, seat=0, hand1=None, hand2=None, hand3=None,
              visible=None, **fields):
        """Known slots and the placements the situation implies.

        ``board`` is the flop, ``hand`` the card to place, ``hand1..3`` the
        hero's placed cards (the round is their number), ``visible`` the other
        seats' (see the field's help). Each seat's given cards are dealt in
        rounds 0, 1, ... in the order hand 1, hand 2, hand 3, each forced onto
        its hand; which round a card came in changes nothing at the showdown.
        Seats before the hero have placed this round's card too.
        """
        from ..cards import check_distinct, parse_cards

        P = n_players
        known = np.full(n_slots(P), -1, np.int8)
        flop = parse_cards(board, allow_empty=True) if board is not None else np.zeros(0, np.int8)
        if len(flop) not in (0, FLOP):
            raise ValueError(f"board: the flop is three cards, got {len(flop)}")
        if len(flop) == 0 and any(x is not None for x in (hand1, hand2, hand3, visible)):
            raise ValueError("board: give the flop (three cards) with placed cards")
        known[:len(flop)] = flop
        own = [list(int(c) for c in parse_cards(x, allow_empty=True)) if x is not None else []
               for x in (hand1, hand2, hand3)]
        for h, cs in enumerate(own):
            if len(cs) > PLACED_MAX:
                raise ValueError(f"hand{h + 1}: at most four placed cards, got {len(cs)}")
        rnd = sum(len(cs) for cs in own)
        if rnd >= ROUNDS:
            raise ValueError(f"hand1..hand3: the hero has placed all 12 cards ({rnd}); nothing to decide")
        presets = {}
        self._assign(known, presets, P, seat, [(cs, 0) for cs in own], allow_hidden=True)
        card = parse_cards(hand, allow_empty=True) if hand is not None else np.zeros(0, np.int8)
        if len(card) > 1:
            raise ValueError(f"hand: the card to place is one card, got {len(card)}")
        if len(card):
            known[card_slot(P, rnd, seat)] = card[0]
        if visible is not None:
            others = [(seat + k) % P for k in range(1, P)]
            for q, hands in zip(others, _parse_visible(visible, P - 1)):
                expect = rnd + 1 if q < seat else rnd
                got = sum(len(cs) + hid for cs, hid in hands)
                if got != expect:
                    raise ValueError(f"visible: seat {q} has placed {expect} card(s) at this point "
                                     f"(the hero has placed {rnd}), got {got}")
                self._assign(known, presets, P, q, hands, allow_hidden=False)
        check_distinct(known[known >= 0], "the situation's cards")
        return Situation(known, presets)

    @staticmethod
    def _assign(known, presets, P, q, hands, allow_hidden):
        """Deal seat ``q``'s placed cards in rounds 0, 1, ... and preset each onto its hand."""
        r = 0
        for h, (cs, hidden) in enumerate(hands):
            for c in cs:
                known[card_slot(P, r, q)] = c
                presets[(q, "place", r)] = h
                r += 1
            for _ in range(hidden):
                presets[(q, "place", r)] = h  # its card stays random: no one has seen it
                r += 1

    def default_decision(self, situation) -> str:
        return "place"

    @staticmethod
    def _placed(situation) -> list[int]:
        """How many cards the hero has placed on each hand (its fields hand1..hand3)."""
        from ..cards import parse_cards

        return [len(parse_cards(x, allow_empty=True)) if x is not None else 0
                for x in (situation.get(f"hand{h + 1}") for h in range(N_HANDS))]

    def analysis_round(self, decision, situation) -> int:
        """The round is the number of cards the hero has placed."""
        return sum(self._placed(situation))

    def analysis_actions(self, decision, situation):
        """The hands with room (all three unless the situation fills one)."""
        return [h for h, k in enumerate(self._placed(situation)) if k < PLACED_MAX]

    def analysis_label(self, decision, action, situation):
        return HAND_LABELS[action]
