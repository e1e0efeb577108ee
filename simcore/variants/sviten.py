"""Sviten Special: five-card draw with One Open, a recycled muck, and a pot split
between the best own five and the best Omaha hand.

Each player gets five cards, then a three-card flop is dealt (no burn cards).
In seat order each player names the cards it throws (0 to 5); then, in seat
order, each is served its replacements from the stub. A player that threw
exactly one card is served it face up (One Open) and keeps or refuses it; a
refused card is mucked face up and the next card is served face down and
must be kept. When the stub runs out, the muck of the players already served
is recycled into a new stub; only when nothing else is left does the current
player's own muck go in. The turn and river come from the stub after the
draw, recycling the whole muck if needed. Half the pot goes to the best own
five cards, half to the best Omaha hand (exactly 2 own cards + 3 board cards);
ties split each half.

Slots of a deal with ``P`` players: seat ``p`` holds ``5p .. 5p+4``; the flop
is ``5P .. 5P+2``; the stub is every slot after it, ``5P+3 .. 51``, served in
order. A deal uses all 52 slots because how many stub cards a deal needs
depends on the decisions.

A recycled stub is drawn lazily: each card served from it is a uniform pick
among the cards left in it, from the next of the deal's chance draws (uint32,
consumed in order). This is the same as shuffling the recycled cards and
serving them from the top, and it needs one draw per card served from a
recycled stub, so :func:`n_chance` is small and fixed per table size. The
deal is then a deterministic function of the dealt slots, the chance draws and
the actions.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..engine.variant import (
    REST, Decision, Field, NoRollout, Obs, Outcome, Situation, SlotLayout, Variant, pot_shares, private, public,
)
from ..kernels import CARD_BIT, CARD_KEY, SUIT_START, best_omaha_hole, omaha_triples, value_high

HAND = 5
FLOP = 3
DECK = 52
N_DRAWS = 32  # a draw is a 5-bit mask over the seat's card slots
KEEP, REFUSE = 0, 1
MAX_RESHUFFLES = 16  # recyclings logged per deal (counted beyond); 9 is the most seen at 9 players

# Error codes of the service kernels (0: fine).
_OK, _NO_CARD, _NO_CHANCE = 0, 1, 2


def n_slots(n_players: int) -> int:
    """Card slots of one deal: the whole deck (hands, flop, then the stub in order)."""
    return DECK


def stub_start(n_players: int) -> int:
    """First stub slot: after the five cards of every seat and the flop."""
    return HAND * n_players + FLOP


def n_chance(n_players: int) -> int:
    """Chance draws a deal needs in the worst case: one per card served from a
    recycled stub.

    A seat is served at most five cards (five thrown, or one thrown plus one
    refused open card), and the turn and river make two more, so a deal
    serves at most ``5P + 2`` cards. The first ``49 - 5P`` come from the
    dealt stub; the rest, ``10P - 47`` at most, from recycled ones.

    >>> [n_chance(p) for p in (2, 4, 5, 6, 9)]
    [0, 0, 3, 13, 43]
    """
    return max(0, (HAND * n_players + 2) - (DECK - FLOP - HAND * n_players))


def mask_cards(mask: int) -> list[int]:
    """Card positions (0..4) a draw mask throws.

    >>> mask_cards(0b10010)
    [1, 4]
    """
    return [j for j in range(HAND) if (int(mask) >> j) & 1]


@njit(cache=True, nogil=True)
def _split_deal(cards, P, hands, board):
    """Seat hands (n, P, 5) and the board (n, 5; turn and river -1) out of the slots."""
    for i in range(cards.shape[0]):
        for p in range(P):
            for j in range(HAND):
                hands[i, p, j] = cards[i, HAND * p + j]
        for j in range(FLOP):
            board[i, j] = cards[i, HAND * P + j]
        board[i, 3] = -1
        board[i, 4] = -1


# The service state of a block is packed into three arrays: a kernel that takes
# a card from the stub passes them to the rare recycling path, and numba counts
# references to every array argument of a call (measured: 15 separate arrays
# made each card cost about 250 ns, against about 1 ns served inline).
# counts (n, 5) int64 columns:
_POS, _N_POOL, _N_MUCK, _N_USED, _N_RESHUFFLES = range(5)
# piles (n, 3, 52) int8 rows: the muck, who mucked each card, the recycled stub.
_MUCK, _OWNER, _POOL = range(3)
# log (n, 3, MAX_RESHUFFLES) int8 rows: seat served, cards recycled, own muck (0/1).
_LOG_SEAT, _LOG_SIZE, _LOG_OWN = range(3)


@njit(cache=True, nogil=True)
def _throw_kernel(p, masks, hands, piles, counts, thrown):
    """Seat p throws the masked cards: each goes to the muck (owner p), its slot to -1."""
    for i in range(masks.shape[0]):
        m = masks[i]
        k = 0
        for j in range(HAND):
            if (m >> j) & 1:
                t = counts[i, _N_MUCK]
                piles[i, _MUCK, t] = hands[i, p, j]
                piles[i, _OWNER, t] = p
                counts[i, _N_MUCK] = t + 1
                hands[i, p, j] = -1
                k += 1
        thrown[i, p] = k


@njit(cache=True, nogil=True)
def _recycled_card(i, seat, piles, counts, chance, log):
    """The next card of row ``i`` once the dealt stub is out, for ``seat`` (``P``: the
    turn and river): from the recycled stub, recycling first if it is empty.

    Recycling takes the muck of the seats already served (owner < seat), and
    only if that is empty, the seat's own muck (owner == seat). Returns the
    card, or -1 with an error code in the second value.
    """
    if counts[i, _N_POOL] == 0:
        for rule in range(2):
            k = 0
            t = 0
            for j in range(counts[i, _N_MUCK]):
                o = piles[i, _OWNER, j]
                if (o < seat) if rule == 0 else (o == seat):
                    piles[i, _POOL, k] = piles[i, _MUCK, j]
                    k += 1
                else:
                    piles[i, _MUCK, t] = piles[i, _MUCK, j]
                    piles[i, _OWNER, t] = o
                    t += 1
            counts[i, _N_MUCK] = t
            counts[i, _N_POOL] = k
            if k > 0:
                r = counts[i, _N_RESHUFFLES]
                if r < MAX_RESHUFFLES:
                    log[i, _LOG_SEAT, r] = seat
                    log[i, _LOG_SIZE, r] = k
                    log[i, _LOG_OWN, r] = rule
                counts[i, _N_RESHUFFLES] = r + 1
                break
            # ... and only when nothing else is left, the current player's own.
        if counts[i, _N_POOL] == 0:
            return -1, _NO_CARD
    u = counts[i, _N_USED]
    if u >= chance.shape[1]:
        return -1, _NO_CHANCE
    counts[i, _N_USED] = u + 1
    # A uniform pick among the cards left (multiply-shift; the bias, under
    # 52 / 2**32, is far below any Monte Carlo error).
    m = counts[i, _N_POOL]
    j = (np.uint64(chance[i, u]) * np.uint64(m)) >> np.uint64(32)
    c = piles[i, _POOL, j]
    piles[i, _POOL, j] = piles[i, _POOL, m - 1]
    counts[i, _N_POOL] = m - 1
    return c, _OK


@njit(cache=True, nogil=True)
def _draw_kernel(seat, need, cards, piles, counts, chance, log, drawn):
    """The one way a card is served: ``need[i]`` cards (0..5) in each row ``i`` to
    ``seat`` (``P``: the turn and river), into ``drawn[i, :need[i]]`` in the
    order served. Each is the dealt stub's next card, inline (the common
    case), and once the stub is out one of :func:`_recycled_card`. Returns
    ``(row, error)`` for the first row that cannot be served, else ``(-1, _OK)``.

    It serves a whole block in one call, not a card a call: a helper called
    card by card with the service arrays, even inlined, took the serving of a
    block twice as long (the references numba counts at each call).
    """
    for i in range(need.shape[0]):
        for m in range(need[i]):
            pos = counts[i, _POS]
            if pos < DECK:
                c = cards[i, pos]
                counts[i, _POS] = pos + 1
            else:
                c, err = _recycled_card(i, seat, piles, counts, chance, log)
                if err:
                    return i, err
            drawn[i, m] = c
    return -1, _OK


@njit(cache=True, nogil=True)
def _serve_kernel(p, cards, hands, thrown, open_cards, piles, counts, chance, log):
    """Serve seat p: every replacement, except that a one-card thrower gets its
    card face up in ``open_cards[:, p]`` and waits for its keep-or-refuse answer."""
    n = cards.shape[0]
    need = np.empty(n, np.int64)
    for i in range(n):
        need[i] = thrown[i, p]
    drawn = np.empty((n, HAND), np.int8)
    row, err = _draw_kernel(p, need, cards, piles, counts, chance, log, drawn)
    if err:
        return row, err
    for i in range(n):
        if need[i] == 1:
            open_cards[i, p] = drawn[i, 0]
            continue
        m = 0
        for j in range(HAND if need[i] else 0):
            if hands[i, p, j] < 0:
                hands[i, p, j] = drawn[i, m]
                m += 1
    return -1, _OK


@njit(cache=True, nogil=True)
def _finish_open_kernel(p, actions, cards, hands, thrown, open_cards, refused, piles, counts, chance, log):
    """Seat p's answer to its open card: keep it, or muck it face up and take the next one."""
    n = cards.shape[0]
    need = np.zeros(n, np.int64)
    for i in range(n):
        if thrown[i, p] != 1:
            continue
        if actions[i] == KEEP:
            need[i] = -1  # its open card goes into the hand
            continue
        t = counts[i, _N_MUCK]
        piles[i, _MUCK, t] = open_cards[i, p]
        piles[i, _OWNER, t] = p
        counts[i, _N_MUCK] = t + 1
        refused[i, p] = True
        need[i] = 1
    drawn = np.empty((n, 1), np.int8)
    row, err = _draw_kernel(p, need, cards, piles, counts, chance, log, drawn)
    if err:
        return row, err
    for i in range(n):
        if need[i]:
            j = 0
            while hands[i, p, j] >= 0:
                j += 1
            hands[i, p, j] = open_cards[i, p] if need[i] < 0 else drawn[i, 0]
    return -1, _OK


@njit(cache=True, nogil=True)
def _turn_river_kernel(P, cards, board, piles, counts, chance, log):
    """Turn and river from the stub; every seat has been served, so the whole muck recycles."""
    n = cards.shape[0]
    drawn = np.empty((n, 2), np.int8)
    row, err = _draw_kernel(P, np.full(n, 2, np.int64), cards, piles, counts, chance, log, drawn)
    if err:
        return row, err
    for i in range(n):
        board[i, 3] = drawn[i, 0]
        board[i, 4] = drawn[i, 1]
    return -1, _OK


@njit(cache=True, nogil=True, inline="always")
def own_five_value(h):
    """High value of a seat's five cards ``h`` (5,) int8: its own-five half (the
    policies value hands with it too)."""
    key = SUIT_START
    bits = np.uint64(0)
    for j in range(HAND):
        c = np.uint8(h[j])
        key += CARD_KEY[c]
        bits |= CARD_BIT[c]
    return value_high(key, bits)


@njit(cache=True, nogil=True)
def _showdown_kernel(hands, board, own5, omaha):
    """Own-five and Omaha values (n, P) of every seat (the board's triples summed
    once per deal, see :func:`~simcore.kernels.omaha_triples`)."""
    n, P = hands.shape[0], hands.shape[1]
    rows = hands.reshape(n * P, HAND)
    tkey = np.empty(10, np.uint64)
    tbits = np.empty(10, np.uint64)
    for i in range(n):
        omaha_triples(board, i, tkey, tbits)
        for p in range(P):
            own5[i, p] = own_five_value(hands[i, p])
            omaha[i, p] = best_omaha_hole(rows, i * P + p, tkey, tbits)


@njit(cache=True, nogil=True)
def _shared_showdown_kernel(hands, boards, own5, omaha):
    """:func:`_showdown_kernel` of several tables of one block (hands (A, n, P, 5), boards
    (A, n, 5)), each (deal, seat) valued once per distinct hand and board: a seat whose five
    cards and board are those of the first table that dealt that board in the deal takes its
    values (an own five equal to table 0's, its own-five value)."""
    A, n, P = hands.shape[0], hands.shape[1], hands.shape[2]
    rows = hands.reshape(A * n * P, HAND)  # one view for every call below (no view per deal)
    flat_boards = boards.reshape(A * n, 5)
    tkey = np.empty(10, np.uint64)
    tbits = np.empty(10, np.uint64)
    first = np.empty(A, np.int64)  # per deal, the first table with each distinct board
    for i in range(n):
        d = 0
        for a in range(A):
            b = -1
            for q in range(d):
                c = first[q]
                same = True
                for j in range(5):
                    if boards[c, i, j] != boards[a, i, j]:
                        same = False
                        break
                if same:
                    b = c
                    break
            if b < 0:
                first[d] = a
                d += 1
            triples = False
            for p in range(P):
                if b >= 0:
                    same = True
                    for j in range(HAND):
                        if hands[b, i, p, j] != hands[a, i, p, j]:
                            same = False
                            break
                    if same:
                        own5[a, i, p] = own5[b, i, p]
                        omaha[a, i, p] = omaha[b, i, p]
                        continue
                same = a > 0
                for j in range(HAND):
                    if not same or hands[0, i, p, j] != hands[a, i, p, j]:
                        same = False
                        break
                own5[a, i, p] = own5[0, i, p] if same else own_five_value(hands[a, i, p])
                if not triples:
                    omaha_triples(flat_boards, a * n + i, tkey, tbits)
                    triples = True
                omaha[a, i, p] = best_omaha_hole(rows, (a * n + i) * P + p, tkey, tbits)
    return 0


@njit(cache=True, nogil=True)
def _categories(own5, omaha):
    """Every seat's category of each half (n, P, 2) int8, and the best of each half (n, 2)."""
    n, P = own5.shape
    cats = np.empty((n, P, 2), np.int8)
    winning = np.empty((n, 2), np.int8)
    for i in range(n):
        w0 = np.int8(-128)
        w1 = np.int8(-128)
        for p in range(P):
            c0 = np.int8(own5[i, p] >> 12)
            c1 = np.int8(omaha[i, p] >> 12)
            cats[i, p, 0] = c0
            cats[i, p, 1] = c1
            w0 = max(w0, c0)
            w1 = max(w1, c1)
        winning[i, 0] = w0
        winning[i, 1] = w1
    return cats, winning


def split_pot(own5: np.ndarray, omaha: np.ndarray) -> dict[str, np.ndarray]:
    """Pot shares from the own-five and Omaha values (n, P) of every seat.

    Returns ``share_own5`` and ``share_omaha`` (the fraction of each half a
    seat wins), ``payoff`` (its share of the whole pot, the mean of the two),
    ``scoop`` (both halves alone), ``win`` (= scoop) and ``tie`` (part of the
    pot but not all of it), each (n, P).

    >>> s = split_pot(np.array([[9, 5]]), np.array([[1, 1]]))
    >>> s["payoff"].tolist(), s["win"].tolist(), s["tie"].tolist()
    ([[0.75, 0.25]], [[False, False]], [[True, True]])
    """
    own5 = np.ascontiguousarray(own5, dtype=np.int32)
    omaha = np.ascontiguousarray(omaha, dtype=np.int32)
    if own5.ndim != 2 or own5.shape != omaha.shape:
        raise ValueError(f"split_pot: own5 and omaha must be (n, P) of one shape, got "
                         f"{own5.shape} and {omaha.shape}")
    # each half is an ordinary pot: the best value takes it, ties split it
    s5 = pot_shares(own5)
    so = pot_shares(omaha)
    payoff = 0.5 * (s5 + so)
    scoop = (s5 == 1.0) & (so == 1.0)
    return {"share_own5": s5, "share_omaha": so, "payoff": payoff, "scoop": scoop,
            "win": scoop, "tie": (payoff > 0.0) & ~scoop}


def showdown_values(hands: np.ndarray, board: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Own-five and Omaha values of every seat.

    Parameters
    ----------
    hands : (n, P, 5) int array, each seat's final five cards.
    board : (n, 5) int array, flop, turn and river.

    Returns
    -------
    own5, omaha : (n, P) int32 high values (higher wins).

    >>> from simcore.cards import parse_cards
    >>> o5, om = showdown_values(parse_cards("As Ad Ac 2s 3d")[None, None],
    ...                          parse_cards("Ks Qs Js 7h 7c")[None])
    >>> int(o5[0, 0]) >> 12, int(om[0, 0]) >> 12  # trips; As 2s make a flush with Ks Qs Js
    (3, 5)
    """
    hands = np.ascontiguousarray(hands, dtype=np.int8)
    board = np.ascontiguousarray(board, dtype=np.int8)
    if hands.ndim != 3 or hands.shape[2] != HAND or board.shape != (hands.shape[0], 5):
        raise ValueError(f"showdown_values: hands must be (n, P, 5) and board (n, 5), got "
                         f"{hands.shape} and {board.shape}")
    if (hands < 0).any() or (hands > 51).any() or (board < 0).any() or (board > 51).any():
        raise ValueError("showdown_values: cards must be 0..51")
    own5 = np.empty(hands.shape[:2], np.int32)
    omaha = np.empty(hands.shape[:2], np.int32)
    _showdown_kernel(hands, board, own5, omaha)
    return own5, omaha


class Service:
    """The cards of a block of Sviten deals, from the deal through the draw to the river.

    The state is plain arrays (read them, do not write them; the muck, the
    recycled stub, the counters and the recycling record are views of three
    packed arrays, ``piles``, ``counts`` and ``log``):

    hands : (n, P, 5) int8, every seat's cards; a thrown card's slot is -1
        until its replacement is served.
    board : (n, 5) int8, the flop, then turn and river (-1 until dealt).
    masks : (n, P) int8, each seat's draw (a 5-bit mask over its slots), -1
        before it is named; ``thrown`` (n, P) int8 the counts, -1 likewise.
    open_cards : (n, P) int8, the card served face up to a one-card thrower
        (-1 for none); ``refused`` (n, P) bool, whether it was refused.
    muck, muck_owner : (n, 52) int8, the mucked cards not yet recycled and the
        seat that mucked each; ``n_muck`` (n,) how many.
    pool : (n, 52) int8, the recycled stub's cards (``n_pool`` of them).
    pos : (n,) next dealt-stub slot (52 when it is empty).
    chance_used : (n,) chance draws consumed.
    reshuffles : (n,) how many times a stub was recycled; ``reshuffle_seat``
        and ``reshuffle_size`` (n, 16) say for whom (``P``: the turn and river)
        and how many cards; ``reshuffle_own`` (n, 16) bool marks a recycle of
        the served seat's own muck (nothing else was left).

    Every method takes the whole block; the engine calls them in the order of
    the rules: :meth:`throw` for each seat in order, then :meth:`serve` and
    :meth:`answer_open` for each seat in order, :meth:`turn_and_river`, and
    :meth:`showdown`.

    >>> from simcore.cards import parse_cards
    >>> deck = np.arange(52, dtype=np.int8)[None]
    >>> s = Service(deck, 2, np.zeros((1, 0), np.uint32))
    >>> s.throw(0, np.array([0b00001])); s.throw(1, np.array([0]))
    >>> s.serve(0).tolist(), int(s.open_cards[0, 0])  # seat 0 threw one: card 13 face up
    ([True], 13)
    >>> s.answer_open(0, np.array([REFUSE])); int(s.hands[0, 0, 0])  # the next card, face down
    14
    """

    def __init__(self, cards: np.ndarray, n_players: int, chance: np.ndarray):
        cards = np.ascontiguousarray(cards, dtype=np.int8)
        P = int(n_players)
        if cards.ndim != 2 or cards.shape[1] != DECK:
            raise ValueError(f"Sviten deals are (n, 52) card slots, got shape {cards.shape}")
        if not 2 <= P <= 9:
            raise ValueError(f"Sviten Special is for 2 to 9 players, got {P}")
        n = cards.shape[0]
        chance = np.ascontiguousarray(chance, dtype=np.uint32)
        if chance.ndim != 2 or chance.shape[0] != n:
            raise ValueError(f"chance must be ({n}, k) uint32, got shape {chance.shape}")
        self.cards, self.n_players, self.chance = cards, P, chance
        self.hands = np.empty((n, P, HAND), np.int8)
        self.board = np.empty((n, 5), np.int8)
        _split_deal(cards, P, self.hands, self.board)
        self.masks = np.full((n, P), -1, np.int8)
        self.thrown = np.full((n, P), -1, np.int8)
        self.open_cards = np.full((n, P), -1, np.int8)
        self.refused = np.zeros((n, P), np.bool_)
        self.piles = np.full((n, 3, DECK), -1, np.int8)
        self.counts = np.zeros((n, 5), np.int64)
        self.counts[:, _POS] = stub_start(P)
        self.log = np.zeros((n, 3, MAX_RESHUFFLES), np.int8)
        self.log[:, _LOG_SEAT] = -1

    # Views of the packed state, for reading.
    muck = property(lambda self: self.piles[:, _MUCK])
    muck_owner = property(lambda self: self.piles[:, _OWNER])
    pool = property(lambda self: self.piles[:, _POOL])
    pos = property(lambda self: self.counts[:, _POS])
    n_pool = property(lambda self: self.counts[:, _N_POOL])
    n_muck = property(lambda self: self.counts[:, _N_MUCK])
    chance_used = property(lambda self: self.counts[:, _N_USED])
    reshuffles = property(lambda self: self.counts[:, _N_RESHUFFLES])
    reshuffle_seat = property(lambda self: self.log[:, _LOG_SEAT])
    reshuffle_size = property(lambda self: self.log[:, _LOG_SIZE])
    reshuffle_own = property(lambda self: self.log[:, _LOG_OWN].astype(bool))

    def _stub_args(self):
        return self.piles, self.counts, self.chance, self.log

    def _raise(self, row, err):
        if err == _NO_CARD:
            raise RuntimeError(f"Sviten deal row {row}: no card left to serve (a rules bug)")
        if err == _NO_CHANCE:
            raise RuntimeError(f"Sviten deal row {row}: chance draws exhausted after "
                               f"{self.chance.shape[1]} (n_chance is {n_chance(self.n_players)})")

    def throw(self, seat: int, masks: np.ndarray) -> None:
        """Seat ``seat`` throws the cards its masks (n,) name (bit j: slot j)."""
        masks = np.asarray(masks)
        if masks.shape != (self.cards.shape[0],) or (masks < 0).any() or (masks >= N_DRAWS).any():
            raise ValueError(f"draw masks must be ({self.cards.shape[0]},) integers 0..31")
        m = masks.astype(np.int8)
        self.masks[:, seat] = m
        _throw_kernel(seat, m, self.hands, self.piles, self.counts, self.thrown)

    def serve(self, seat: int) -> np.ndarray:
        """Serve ``seat``'s replacements; returns the rows (n,) bool where it threw
        one card and now has an open card to keep or refuse."""
        if (self.thrown < 0).any():
            raise ValueError(f"seat {seat} served before every seat named its draw")
        row, err = _serve_kernel(seat, self.cards, self.hands, self.thrown, self.open_cards,
                                 *self._stub_args())
        self._raise(row, err)
        return self.thrown[:, seat] == 1

    def answer_open(self, seat: int, actions: np.ndarray) -> None:
        """Seat ``seat`` keeps (0) or refuses (1) its open card; other rows are ignored."""
        actions = np.ascontiguousarray(actions, dtype=np.int64)
        row, err = _finish_open_kernel(seat, actions, self.cards, self.hands, self.thrown,
                                       self.open_cards, self.refused, *self._stub_args())
        self._raise(row, err)

    def turn_and_river(self) -> None:
        """Deal the turn and river (the whole muck recycles if the stub is out)."""
        row, err = _turn_river_kernel(self.n_players, self.cards, self.board, *self._stub_args())
        self._raise(row, err)

    def showdown(self) -> tuple[np.ndarray, np.ndarray]:
        """(own5, omaha) values (n, P) of the final hands and board."""
        own5 = np.empty(self.hands.shape[:2], np.int32)
        omaha = np.empty(self.hands.shape[:2], np.int32)
        _showdown_kernel(self.hands, self.board, own5, omaha)
        return own5, omaha

    def places(self) -> np.ndarray:
        """Where every card is now, (n, 52) int8: 0 in a hand, 1 on the board,
        2 in the muck, 3 in the recycled stub, 4 in the dealt stub, 5 out (an
        open card awaiting its answer); -1 nowhere. A card counted twice is
        marked 9, so a correct deal has only 0..5 here."""
        n = self.cards.shape[0]
        where = np.full((n, DECK), -1, np.int8)

        def put(rows, cards, code):
            ok = cards >= 0
            r, c = rows[ok], cards[ok].astype(np.int64)
            twice = where[r, c] != -1
            where[r, c] = np.where(twice, 9, code)
            # the same card twice in one call
            flat = r * DECK + c
            u, cnt = np.unique(flat, return_counts=True)
            where.reshape(-1)[u[cnt > 1]] = 9

        rows = np.arange(n)
        P = self.n_players
        put(np.repeat(rows, P * HAND), self.hands.reshape(-1), 0)
        put(np.repeat(rows, 5), self.board.reshape(-1), 1)
        live = np.arange(DECK)[None, :] < self.n_muck[:, None]
        put(np.repeat(rows, DECK), np.where(live, self.muck, -1).reshape(-1), 2)
        live = np.arange(DECK)[None, :] < self.n_pool[:, None]
        put(np.repeat(rows, DECK), np.where(live, self.pool, -1).reshape(-1), 3)
        left = np.arange(DECK)[None, :] >= self.pos[:, None]
        put(np.repeat(rows, DECK), np.where(left, self.cards, -1).reshape(-1), 4)
        pending = (self.thrown == 1) & (self.open_cards >= 0) & ~self.refused
        held = np.zeros((n, P), bool)
        for p in range(P):
            held[:, p] = (self.hands[:, p, :] == self.open_cards[:, p, None]).any(axis=1)
        waiting = pending & ~held & (self.hands < 0).any(axis=2)
        put(np.repeat(rows, P), np.where(waiting, self.open_cards, -1).reshape(-1), 5)
        return where


# -- the variant ----------------------------------------------------------------------------

DRAW, OPEN = "draw", "open"


@njit(cache=True, nogil=True)
def _seat_view_kernel(hand, board, mask, open_card, open_cards, key):
    """:func:`seat_view`'s key, one row at a time: each card as 6 bits (card + 1, so -1 is 0)."""
    for i in range(hand.shape[0]):
        k = np.int64(0)
        for j in range(HAND):
            k = (k << 6) | (hand[i, j] + 1)
        for j in range(FLOP):
            k = (k << 6) | (board[i, j] + 1)
        key[i, 0] = k
        if key.shape[1] == 1:
            continue
        key[i, 1] = (np.int64(open_card[i] + 1) << 5) | mask[i]
        k = np.int64(0)
        for q in range(open_cards.shape[1]):
            k = (k << 6) | (open_cards[i, q] + 1)
        key[i, 2] = k


def seat_view(decision: str, obs: dict) -> np.ndarray:
    """The seat view (:meth:`Variant.seat_view`) of a ``draw`` or ``open`` observation, a row per
    row: what the policies that declare the trait ``seat_view`` read, and what the buckets read.

    - ``draw``: the seat's five cards and the flop, (n, 1) int64. Not ``thrown``: no built-in
      reads how many cards the seats before it threw.
    - ``open``: the same, the thrown mask with the open card, and every seat's open card so far
      (``both-halves`` counts them out of the unseen cards), (n, 3) int64. Not ``thrown`` nor
      ``refused``.

    Each card takes 6 bits (card + 1), so eight fit one int64, and the open cards of up to 9
    seats another. A best response's fit replays a deal once per draw of the deviator: the seats
    after it draw from the same dealt cards in every replay, so each is asked once
    (``simcore.exploit``); at ``open`` the seats served before the deviator see what they saw
    in the first replay.

    >>> from simcore.cards import parse_cards
    >>> obs = {"hand": parse_cards("As Ad 7c 4h 2s")[None], "board": parse_cards("Ks 9d 3c")[None]}
    >>> seat_view("draw", obs).shape
    (1, 1)
    """
    hand = np.ascontiguousarray(obs["hand"], dtype=np.int8)
    n = hand.shape[0]
    board = np.ascontiguousarray(obs["board"], dtype=np.int8)
    if decision == OPEN:
        key = np.empty((n, 3), np.int64)
        _seat_view_kernel(hand, board, np.ascontiguousarray(obs["mask"], dtype=np.int8),
                          np.ascontiguousarray(obs["open_card"], dtype=np.int8),
                          np.ascontiguousarray(obs["open_cards"], dtype=np.int8), key)
    else:
        key = np.empty((n, 1), np.int64)
        none = np.zeros(0, np.int8)
        _seat_view_kernel(hand, board, none, none, np.zeros((0, 0), np.int8), key)
    return key


def _mask_name(mask: int) -> str:
    slots = mask_cards(mask)
    if not slots:
        return "stand pat"
    return ("throw card " if len(slots) == 1 else "throw cards ") + " ".join(str(j + 1) for j in slots)


_DRAW_OBS = (
    "hand (n, 5) int8: the seat's five cards; board (n, 3) int8: the flop; "
    "thrown (n, P) int8: how many cards each seat has thrown, -1 for seats yet to name their draw; "
    "legal (n, 32) bool (all legal). Action a is a mask: bit j throws hand[:, j]."
)
_OPEN_OBS = (
    "hand (n, 5) int8: the five cards held before the throw; mask (n,) int8: the seat's draw; "
    "open_card (n,) int8: the card served face up (-1 where the seat did not throw exactly one); "
    "board (n, 3) int8: the flop; thrown (n, P) int8: every seat's count; open_cards (n, P) int8: "
    "the cards served face up so far (-1 none); refused (n, P) bool: which of them were refused; "
    "legal (n, 2) bool: keep always, refuse only where there is an open card."
)


class SvitenSpecial(Variant):
    name = "sviten"
    title = "Sviten Special"
    min_players = 2
    max_players = 9
    fields = (
        Field("open", "the card served face up after the hero threw one (analyses --decision open)"),
        Field("threw", "the card the hero threw for the open card (default: its lowest card)"),
    )
    decisions = (
        Decision(DRAW, N_DRAWS, tuple(_mask_name(m) for m in range(N_DRAWS)),
                 "after the flop, in seat order: which of the five cards to throw (0 to 5)", _DRAW_OBS,
                 obs=(Obs("hand", "int8", ("n", HAND)), Obs("board", "int8", ("n", FLOP)),
                      Obs("thrown", "int8", ("n", "P"), cards=False))),
        Decision(OPEN, 2, ("keep", "refuse"),
                 "One Open: keep the card served face up after throwing one, or refuse it and take "
                 "the next card face down", _OPEN_OBS,
                 obs=(Obs("hand", "int8", ("n", HAND)), Obs("mask", "int8", ("n",), cards=False),
                      Obs("open_card", "int8", ("n",)),
                      Obs("board", "int8", ("n", FLOP)), Obs("thrown", "int8", ("n", "P"), cards=False),
                      Obs("open_cards", "int8", ("n", "P")), Obs("refused", "bool", ("n", "P")))),
    )
    hands = ("own five", "omaha")
    hand_kinds = ("high", "high")
    parts = ("share_own5", "share_omaha", "scoop_rate")

    # The whole deck: every seat's five cards, the flop, then the stub in order (its first
    # card the one a seat that throws sees first; the rest no one sees before the showdown).
    layout = SlotLayout(private("hand", HAND, fills="hand"), public("flop", FLOP, fills="board"),
                        public("first stub card", 1), public("stub", REST, seen="none"))

    def n_chance(self, n_players: int) -> int:
        return n_chance(n_players)

    def seat_view(self, decision, obs):
        return seat_view(decision, obs)

    def play(self, cards, n_players, table):
        """The draw, One Open, turn, river and showdown of a block; with ``table.keep_state``
        the outcome's ``state`` is the :class:`Service` (with its recycling record)."""
        svc = self._serve(cards, n_players, table)
        own5, omaha = svc.showdown()
        return self._outcome(svc, own5, omaha, table)

    def play_alternatives(self, cards, n_players, tables):
        """Every table on the same block, each played as :meth:`play` plays it, with one
        showdown for all: a seat's values are a function of its five cards and the board, so a
        seat whose cards and board in a deal are those of an earlier table's takes that table's
        values (an alternative draw of one seat changes its own hand and, through the stub, the
        turn and river: the other seats are valued once per board, not once per table)."""
        if len(tables) == 1:
            return [self.play(cards, n_players, tables[0])]
        svcs = [self._serve(cards, n_players, t) for t in tables]
        hands = np.stack([svc.hands for svc in svcs])
        boards = np.stack([svc.board for svc in svcs])
        own5 = np.empty(hands.shape[:3], np.int32)
        omaha = np.empty(hands.shape[:3], np.int32)
        _shared_showdown_kernel(hands, boards, own5, omaha)
        return [self._outcome(svc, own5[a], omaha[a], t) for a, (svc, t) in enumerate(zip(svcs, tables))]

    def _serve(self, cards, n_players, table):
        """The draw, One Open, turn and river of a block: the :class:`Service` before the showdown."""
        P = n_players
        n = cards.shape[0]
        chance = table.chance if table.chance is not None else np.zeros((n, 0), np.uint32)
        svc = Service(np.ascontiguousarray(cards), P, chance)
        before = svc.hands.copy()
        flop = svc.board[:, :FLOP].copy()
        legal = np.ones((n, N_DRAWS), np.bool_)
        for a in (flop, legal, before):
            a.flags.writeable = False
        for p in range(P):
            thrown = svc.thrown.copy()
            thrown.flags.writeable = False
            obs = {"hand": before[:, p], "board": flop, "thrown": thrown, "legal": legal}
            svc.throw(p, table.act(p, DRAW, obs))
        thrown = svc.thrown.copy()
        thrown.flags.writeable = False
        for p in range(P):
            pending = svc.serve(p)
            actions = np.zeros(n, np.int64)
            if pending.any():
                legal_open = np.ones((n, 2), np.bool_)
                legal_open[:, REFUSE] = pending
                obs = {"hand": before[:, p], "mask": svc.masks[:, p].copy(),
                       "open_card": np.where(pending, svc.open_cards[:, p], -1).astype(np.int8),
                       "board": flop, "thrown": thrown, "open_cards": svc.open_cards.copy(),
                       "refused": svc.refused.copy(), "legal": legal_open}
                for k in ("mask", "open_card", "open_cards", "refused", "legal"):
                    obs[k].flags.writeable = False
                actions = table.act(p, OPEN, obs)
            svc.answer_open(p, actions)
        svc.turn_and_river()
        return svc

    @staticmethod
    def _outcome(svc, own5, omaha, table):
        s = split_pot(own5, omaha)
        cats, winning = _categories(own5, omaha)
        parts = {"share_own5": s["share_own5"], "share_omaha": s["share_omaha"],
                 "scoop_rate": s["scoop"].astype(np.float64)}
        # table.keep_state: the Service, every seat's final cards, what was served and recycled
        return Outcome(s["payoff"], s["win"], s["tie"], cats, winning, parts,
                       state=svc if table.keep_state else None)

    # -- situations ------------------------------------------------------------
    def setup(self, n_players, hand=None, board=None, seat=0, open=None, threw=None, **fields):
        """Known slots for the hero's five cards and the flop; with ``open``, the
        hero (seat 0) threw ``threw`` (default its lowest card) and is served
        ``open`` face up: its draw is preset and the card is the first of the stub."""
        from ..cards import parse_cards

        P = n_players
        known = np.full(DECK, -1, np.int8)
        h = parse_cards(hand, allow_empty=True) if hand is not None else np.zeros(0, np.int8)
        if len(h) > HAND:
            raise ValueError(f"hand: a Sviten hand is five cards, got {len(h)}")
        known[HAND * seat: HAND * seat + len(h)] = h
        b = parse_cards(board, allow_empty=True) if board is not None else np.zeros(0, np.int8)
        if len(b) > FLOP:
            raise ValueError(f"board: the draw comes after the flop, so give at most 3 cards, got {len(b)}")
        known[HAND * P: HAND * P + len(b)] = b
        presets = {}
        if threw is not None and open is None:
            raise ValueError("threw needs open (the card served face up)")
        if open is not None:
            if seat != 0:
                raise ValueError(f"open: the card served face up is known only for seat 0 (the first "
                                 f"served), got seat {seat}")
            if len(h) != HAND:
                raise ValueError(f"open: give all five cards held before the throw, got {len(h)}")
            o = parse_cards(open)
            if len(o) != 1:
                raise ValueError(f"open: one card, got {open!r}")
            if threw is None:
                j = int(np.argmin(h))
            else:
                t = parse_cards(threw)
                if len(t) != 1 or int(t[0]) not in h.tolist():
                    raise ValueError(f"threw: one card of the hand, got {threw!r}")
                j = h.tolist().index(int(t[0]))
            known[stub_start(P)] = o[0]
            presets[(seat, DRAW)] = 1 << j
        from ..cards import check_distinct

        check_distinct(known[known >= 0], "hand, board and open card")
        return Situation(known, presets)

    def default_decision(self, situation) -> str:
        return OPEN if situation.get("open") is not None else DRAW

    def analysis_actions(self, decision, situation):
        """Every action; keep or refuse only with the card served face up given (``open``):
        without it the question has no card to ask about."""
        known, seat, n_players = situation.known, situation.seat, situation.n_players
        if self.decision(decision).name == OPEN and (seat != 0 or known[stub_start(n_players)] < 0):
            raise ValueError("decision open is about the card served face up after the hero threw one: "
                             "give that card with --open CARD (extra={'open': CARD} in the API), "
                             "e.g. --open 9h")
        return super().analysis_actions(decision, situation)

    def analysis_conditions(self, decision, situation) -> list[str]:
        """A draw analysis given ``open`` is conditioned on that card coming first from the stub."""
        known, n_players = situation.known, situation.n_players
        if decision == DRAW and known[stub_start(n_players)] >= 0:
            from ..cards import card_to_str

            return [f"conditioned on --open {card_to_str(int(known[stub_start(n_players)]))}: the first "
                    f"card served from the stub (face up to a seat that throws one)"]
        return []

    def analysis_label(self, decision, action, situation):
        from ..cards import card_to_str

        known, seat = situation.known, situation.seat
        if decision == DRAW:
            hand = known[HAND * seat: HAND * seat + HAND]
            slots = mask_cards(action)
            if not slots:
                return "stand pat"
            if all(hand[j] >= 0 for j in slots):
                return "throw " + " ".join(card_to_str(int(hand[j])) for j in slots)
            return _mask_name(action)
        word = "keep" if action == KEEP else "refuse"
        card = int(known[stub_start(situation.n_players)])  # the open card: the first stub card
        return f"{word} {card_to_str(card)}" if card >= 0 else word

    def situation(self, decision, obs, n_players):
        """The seat's own cards and the flop; each seat's public draw replayed as a mask
        throwing that many cards (which cards is hidden, and those cards are resampled);
        for ``open``, the cards served face up so far in the stub slots they came from.

        An open card served from a recycled stub cannot be placed in a slot (it was
        some earlier player's thrown card): such a batch raises :class:`NoRollout`.
        """
        self.decision(decision)
        P = n_players
        seat = int(obs["seat"])
        hand, board, thrown = obs["hand"], obs["board"], obs["thrown"].astype(np.int64)
        n = hand.shape[0]
        known = np.full((n, DECK), -1, np.int8)
        known[:, HAND * seat: HAND * seat + HAND] = hand
        known[:, HAND * P: HAND * P + FLOP] = board
        first_k = ((1 << np.clip(thrown, 0, HAND)) - 1)  # mask of the first k slots
        forced = {}
        upto = seat if decision == DRAW else P
        for q in range(upto):
            if q != seat:
                forced[(q, DRAW)] = first_k[:, q].astype(np.int64)
        if decision == DRAW:
            return known, forced
        mask = obs["mask"].astype(np.int64)
        forced[(seat, DRAW)] = mask
        refused = obs["refused"]
        open_cards = obs["open_cards"]
        pos = np.full(n, stub_start(P), np.int64)
        rows = np.arange(n)
        for q in range(seat + 1):
            one = thrown[:, q] == 1
            if q < seat:
                forced[(q, OPEN)] = np.where(one, refused[:, q].astype(np.int64), -1)
            put = one & (open_cards[:, q] >= 0)
            if (put & (pos >= DECK)).any():
                raise NoRollout(f"sviten decision {decision!r}: an open card came from a recycled stub "
                                "(its resampling is not implemented)")
            known[rows[put], pos[put]] = open_cards[put, q]
            pos += thrown[:, q] + refused[:, q]
        return known, forced
