"""Slovak Double Barrel: Hold'em with two face-up cards and two blind spares.

Each player gets two cards face up (public) and two face down that nobody,
the owner included, has seen. Before the flop and again after it, each
player in seat order may muck one face-up card face up and turn the next
face-down card up in its place. The hand is the best five of the two
face-up cards and the five-card board; unused face-down cards are dead.

Slots of a deal with ``P`` players: seat ``p`` holds ``up0, up1, down0,
down1`` at ``4p .. 4p+3``; the board is ``4P .. 4P+4`` (flop first). Which
face-down card a player turns is a fair coin since neither has been seen,
so the engine simply turns ``down0`` first and ``down1`` second.

A situation for :func:`simcore.analyze` is given as ``hand`` (seat 0's two
face-up cards), ``board`` (the flop) and ``extra={"seen": ...}`` (the other
seats' face-up cards, seat 1 first, two each). When a flop is given, the
cards are read as they lie at the second exchange: seat 0 and every seat
whose cards are given are taken to have declined the first exchange, unless
``extra={"mucked": "4d"}`` says that seat 0 mucked that card at the first
exchange and turned up the second card of ``hand`` in its place.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..cards import card_to_str, parse_cards
from ..engine.variant import (
    Decision, Field, Obs, Outcome, SharedState, Situation, SlotLayout, Variant, private, public,
)
from ..kernels import (
    CARD_KEY,
    FLUSH_FLAGS,
    RANK_HIGH,
    SUIT_START,
    rank_slot,
    value_two_and_board,
)

DECLINE, MUCK0, MUCK1 = 0, 1, 2
_ROUNDS = ("exchange1", "exchange2")

_OBSERVATION = (
    "up (n, P, 2) int8: every player's face-up cards now, after the exchanges of the "
    "seats that acted before this one; "
    "mucked (n, 2P) int8: the cards mucked face up so far, in the order they were mucked, "
    "-1 padded; "
    "board (n, 3) int8: the flop at the second exchange, all -1 at the first; "
    "history (n, P) int8: this round's action of each seat that has acted, -1 for seats "
    "still to act; "
    "round1 (n, P) int8: every seat's first-exchange action at the second exchange, all -1 "
    "at the first; "
    "downs_left (n, P) int8: face-down cards each player still holds (public); "
    "in_sight (n,) uint64: the cards in sight as one set, bit c for card c: every face-up "
    "card and every mucked card (the union of up and mucked, for rules that count them); "
    "legal (n, 3) bool; plus seat, n_players. Arrays are read-only snapshots; face-down "
    "cards never appear."
)
_ACTIONS = ("decline", "muck card 0", "muck card 1")


def exchange_legal(downs_left: np.ndarray) -> np.ndarray:
    """Legal actions (n, 3) bool: decline always; a muck only with a face-down card left.

    >>> exchange_legal(np.array([2, 0])).tolist()
    [[True, True, True], [True, False, False]]
    """
    return _seat_legal(np.ascontiguousarray(downs_left, dtype=np.int8)[:, None], 0)


@njit(cache=True, nogil=True)
def _seat_legal(downs_left, p):
    """:func:`exchange_legal` of seat ``p``'s column of ``downs_left`` (n, P), read in place
    (the play reads every seat's column of the shared array; no copy)."""
    legal = np.empty((downs_left.shape[0], 3), np.bool_)
    for i in range(downs_left.shape[0]):
        ok = downs_left[i, p] > 0
        legal[i, 0] = True
        legal[i, 1] = ok
        legal[i, 2] = ok
    return legal


@njit(cache=True, nogil=True)
def _showdown_values(up, cards, values, seats):
    """Hand values (n, P): best five of each seat's two face-up cards and the board,
    for the seats where ``seats`` (P,) is true (the other columns are left as they are).

    The board's key is summed once per deal and each seat adds its two cards
    (the evaluator's own keys and value function, so values match
    :func:`simcore.evaluate.evaluate_hands`). Cards index the tables as uint8:
    numba checks signed indices for wrap-around.
    """
    n, P = up.shape[0], up.shape[1]
    for i in range(n):
        bkey = SUIT_START
        for j in range(4 * P, 4 * P + 5):
            bkey += CARD_KEY[np.uint8(cards[i, j])]
        for p in range(P):
            if not seats[p]:
                continue
            a, b = up[i, p, 0], up[i, p, 1]
            key = bkey + CARD_KEY[np.uint8(a)] + CARD_KEY[np.uint8(b)]
            if key & FLUSH_FLAGS:
                values[i, p] = value_two_and_board(key, a, b, cards, i, 4 * P)
            else:
                values[i, p] = np.int32(RANK_HIGH[rank_slot(key)])


@njit(cache=True, nogil=True)
def _split_deal(cards, P, up, flop, in_sight):
    """Seat face-up cards, the flop and the set of cards in sight out of the
    dealt slots (numpy's strided copy of the same took 0.7 ms a block, this 0.02 ms)."""
    for i in range(cards.shape[0]):
        s = np.uint64(0)
        for p in range(P):
            a, b = cards[i, 4 * p], cards[i, 4 * p + 1]
            up[i, p, 0] = a
            up[i, p, 1] = b
            s |= card_bit(a) | card_bit(b)
        in_sight[i] = s
        for j in range(3):
            flop[i, j] = cards[i, 4 * P + j]


@njit(cache=True, nogil=True, inline="always")
def card_bit(c):
    """Bit of card ``c`` (int8) in a card set (``in_sight``); "no card" (-1) gives
    bit 63, outside the 52 card bits.

    A shift, not a table look-up: no load, so the loops over a row's cards vectorise.
    """
    return np.uint64(1) << (np.uint64(np.uint8(c)) & np.uint64(63))


def _make_exchange_step(play: bool):
    """The exchange step, one source compiled twice: ``play`` for the decision-by-decision
    play (the table has applied forced actions; the muck is kept for the
    observations), else for :func:`rule_kernel`'s kernel (forced actions applied
    here, no muck kept). Each form has only its own work in its loop: one form
    doing both, with the choice made at run time, took the rule kernel 10% longer
    on a 6-player 'lower' block."""

    @njit(cache=True, nogil=True, inline="always")
    def step(cards, p, actions, forced, up, downs_left, in_sight, live, recorded, record, mucked, n_mucked):
        for i in range(actions.shape[0]):
            a = np.int64(actions[i])
            left = np.int64(downs_left[i, p])
            if not play:
                f = np.int64(forced[i])
                if f >= 0:
                    if f > MUCK1 or (f > 0 and left == 0):
                        return i
                    a = f
            if record:
                recorded[i] = a
            ex = np.int64(a > 0)
            # down0, then down1; with no face-down card left (a decline) a slot of the
            # next seat or the board, read and never used. Unsigned positions: numba
            # checks signed indices for wrap-around.
            turned = cards[i, np.uint64(4 * p + 4 - left)]
            pos = np.uint64(a - ex)  # a decline reads and rewrites card 0
            old = up[i, p, pos]
            up[i, p, pos] = turned if ex else old
            if live:
                in_sight[i] |= card_bit(turned) & (np.uint64(0) - np.uint64(ex))
            if play and ex:
                k = n_mucked[i]
                mucked[i, k] = old
                n_mucked[i] = k + 1
            downs_left[i, p] = left - ex
        return -1

    return step


exchange_step = _make_exchange_step(True)
exchange_step.__doc__ = """Seat ``p``'s exchange over a block, the rule step of both plays (the
    decision-by-decision play, this form, and :func:`rule_kernel`'s, the same
    source compiled without the muck and with forced actions): an exchange
    mucks the chosen face-up card and turns the seat's next face-down card
    (down0, then down1) up in its place.

    ``actions`` (n,) the seat's actions. ``forced`` (n,) an action or -1 per
    row (read by the rule kernel's form only: a forced action replaces the
    seat's, and the first row where it is illegal is returned; else -1). With
    ``record``, ``recorded`` (n,) gets the action taken. ``up`` (n, P, 2) and
    ``downs_left`` (n, P) are changed in place; with ``live``, ``in_sight``
    (n,) uint64 gets the turned card (the mucked one stays in sight);
    ``mucked`` (n, 2P) gets the mucked card at ``n_mucked`` (n,).

    Branch-free (whether a row exchanges is a coin flip to the branch
    predictor: the branching loop took 3x as long): a decline writes back the
    card it reads.
    """
_rule_exchange_step = _make_exchange_step(False)


_NONE_FORCED = np.empty(0, np.int8)  # exchange_step from Python: no forced actions
_NONE_RECORDED = np.empty(0, np.int64)  # exchange_step from Python: nothing recorded


# -- the rule kernel: both exchanges of a block, by rule policies -------------------------
#
# Its source is the two templates below; rule_kernel(decide, ...) compiles them
# for one policy module's decide function, which they call as `_decide`, and its
# first code that reads the cards in sight, `_FIRST_SIGHT_CODE`. (A function
# passed as an argument or captured in a closure would not be cached by numba:
# each process would compile the kernel again.)
_decide = None
_FIRST_SIGHT_CODE = None


def _ruled_exchanges(cards, board, in_sight, codes, forced, up, record, actions, same):
    """Both exchanges of a block under A alternatives (tables that differ in their
    policies or forced actions) when every seat decides by a rule of one policy
    module (its policies' ``exchange_rule``): the actions the play decision by
    decision gives, with no strategy called between them.

    ``cards`` (n, 4P + 5) the dealt slots, ``board`` (n, 3) their flop and
    ``in_sight`` (n,) uint64 their face-up cards as a card set (as the play's
    observation starts them); ``codes`` (A, 2, P) each seat's
    policy code per exchange; ``forced`` (A, 2, P, n) an action or -1; ``up``
    (A, n, P, 2) the face-up cards as dealt, changed in place to the cards at
    the showdown; with ``record``, ``actions`` (A, 2, P, n) gets every action (else (A, 2, P, 1), unused).
    ``same`` (A, P) is set where a seat ends with the cards it ends with under
    alternative 0 because it was not played again (its showdown value is then
    alternative 0's). That is so when no seat reads more than its own cards
    and the flop (codes below ``_FIRST_SIGHT_CODE``) and the seat's codes and
    forced actions are those of alternative 0: nothing it decides can then
    differ. Returns the first row with an illegal forced action (the caller
    replays the block decision by decision for the error), else -1.
    """
    A, P, n = codes.shape[0], codes.shape[2], cards.shape[0]
    own_only = True
    for x in codes.ravel():
        own_only &= x < _FIRST_SIGHT_CODE
    play = np.ones(P, np.bool_)
    for a in range(A):
        for p in range(P):
            alike = a == 0 or (own_only and codes[a, 0, p] == codes[0, 0, p] and codes[a, 1, p] == codes[0, 1, p])
            for r in range(2):
                for i in range(n):
                    if not alike:
                        break
                    alike = forced[a, r, p, i] == forced[0, r, p, i]
            same[a, p] = alike
            play[p] = a == 0 or not alike
            if record and not play[p]:
                actions[a, :, p] = actions[0, :, p]
        # a seat not played keeps its dealt cards in up[a]: its value is alternative 0's
        bad = _exchange_rounds(cards, board, in_sight, codes[a], forced[a], up[a], play, not own_only, record,
                               actions[a])
        if bad >= 0:
            return bad
    return -1


def _exchange_rounds(cards, board, dealt_sight, codes, forced, up, play, live, record, actions):
    """:func:`_ruled_exchanges` of one alternative, for the seats in ``play`` (the
    others untouched: they must be seats nobody else's rule reads). Seat by
    seat, each decided over every row by the policies' ``_decide`` (as the
    policies are), so that each sees the exchanges of the seats before it. The
    cards in sight are kept only with ``live`` (a rule that reads them), from
    the dealt ones (``dealt_sight``, left as it is)."""
    n, P = up.shape[0], up.shape[1]
    in_sight = dealt_sight.copy() if live else np.zeros(1, np.uint64)
    downs = np.full((n, P), 2, np.int8)
    every = np.ones((n, 3), np.bool_)  # at the first exchange every seat holds two face-down cards
    no_muck, no_count = np.empty((0, 0), np.int8), np.empty(0, np.int64)  # the muck is not kept
    for r in range(2):
        for p in range(P):
            if not play[p]:
                continue
            legal = _seat_legal(downs, p) if r == 1 else every
            acts = _decide(up, board, in_sight, legal, p, codes[r, p], r == 1)
            bad = _rule_exchange_step(cards, p, acts, forced[r, p], up, downs, in_sight, live, actions[r, p],
                                      record, no_muck, no_count)
            if bad >= 0:
                return bad
    return -1


_RULE_KERNELS: dict = {}


def rule_kernel(decide, first_sight_code: int):
    """The rule kernel for a policy module's rules (its policies' ``exchange_rule``
    is ``(code, rule_kernel(decide, first_sight_code))``): both exchanges of a
    block under A alternatives, as :func:`_ruled_exchanges` says, compiled once
    per policy module and cached by numba like any kernel.

    ``decide(up, board, in_sight, legal, seat, code, second)`` is a jitted
    function that returns the actions (n,) int64 of rule ``code`` for ``seat``
    from what the seat sees (the observation's arrays; ``second``: the second
    exchange); rules with a code from ``first_sight_code`` on read the cards
    in sight, the others only the seat's own cards and the flop.
    """
    import hashlib
    import inspect
    import types
    from pathlib import Path

    from numba import njit as _njit

    key = (decide, int(first_sight_code))
    if key in _RULE_KERNELS:
        return _RULE_KERNELS[key]
    # Named after the policy module and its source, so that numba's cache keeps one
    # kernel per policy module, made again when that module changes.
    source = inspect.getsourcefile(decide.py_func)
    stamp = hashlib.sha1(Path(source).read_bytes()).hexdigest()[:12] if source else "nosource"
    tag = f"{decide.py_func.__module__}_{decide.py_func.__qualname__}_{int(first_sight_code)}_{stamp}"
    tag = "".join(c if c.isalnum() else "_" for c in tag)
    names = dict(globals(), _decide=decide, _FIRST_SIGHT_CODE=int(first_sight_code))
    for template in (_exchange_rounds, _ruled_exchanges):  # the callee first
        fn = types.FunctionType(template.__code__, names, template.__name__)
        fn.__qualname__ = f"{template.__name__}__{tag}"
        fn.__doc__ = template.__doc__
        names[template.__name__] = _njit(cache=True, nogil=True)(fn)
    kernel = names["_ruled_exchanges"]
    _RULE_KERNELS[key] = kernel
    return kernel


def _exchange_rules(table, P):
    """The seats' rule codes (2, P) int8 and the kernel that applies them, when every
    seat's strategy for both exchanges declares an ``exchange_rule``
    ``(code, kernel)`` with one kernel; else None."""
    codes = np.empty((2, P), np.int8)
    kernel = None
    for r, decision in enumerate(_ROUNDS):
        for p in range(P):
            rule = table.trait(p, decision, "exchange_rule")
            if rule is None or (kernel is not None and rule[1] is not kernel):
                return None
            codes[r, p], kernel = rule
    return codes, kernel


def _play_ruled(cards, P, tables):
    """:meth:`SlovakDoubleBarrel.play_alternatives` when every seat of every table
    exchanges by a rule that one kernel applies (:func:`rule_kernel`, as
    ``strategies.slovak``'s policies declare it): no observation is built and
    no strategy called, since none would look at more than the kernel reads,
    and a seat that the kernel finds plays alike under every table is played and
    evaluated once. Forced actions are applied and the actions recorded as
    :meth:`Table.act` does. None when a seat has no such rule, or when a forced
    action is illegal (the play decision by decision then raises the error it
    always gives)."""
    rules = [_exchange_rules(t, P) for t in tables]
    if any(r is None for r in rules) or len({id(r[1]) for r in rules}) > 1:
        return None
    kernel = rules[0][1]
    A, n = len(tables), cards.shape[0]
    codes = np.stack([r[0] for r in rules])
    forced = np.full((A, 2, P, n), -1, np.int8)
    for a, t in enumerate(tables):
        for r, decision in enumerate(_ROUNDS):
            for p in range(P):
                f = t.forced_actions(p, decision)
                if f is not None:
                    if np.max(f) > MUCK1:  # not an action: the decision path names it
                        return None
                    forced[a, r, p] = f
    up = np.empty((A, n, P, 2), np.int8)
    flop, in_sight = np.empty((n, 3), np.int8), np.empty(n, np.uint64)
    _split_deal(cards, P, up[0], flop, in_sight)
    up[1:] = up[0]
    record = any(t.record for t in tables)
    actions = np.empty((A, 2, P, n if record else 1), np.int64)
    same = np.empty((A, P), np.bool_)
    if kernel(cards, flop, in_sight, codes, forced, up, record, actions, same) >= 0:
        return None
    values = np.empty((A, n, P), np.int32)
    outcomes = []
    for a, t in enumerate(tables):
        if a:
            values[a] = values[0]
        # alternative 0 evaluates every seat; another only those not played alike
        _showdown_values(up[a], cards, values[a], ~same[a] if a else np.ones(P, np.bool_))
        if t.record:
            for r, decision in enumerate(_ROUNDS):
                for p in range(P):
                    t.actions[(p, decision, 0)] = actions[a, r, p]
        outcomes.append(Outcome.from_values(values[a]))
    return outcomes


def _decision(name: str, when: str) -> Decision:
    return Decision(
        name, 3, _ACTIONS,
        f"{when}: decline, or muck face-up card 0 or 1 and turn up a face-down card in its place",
        _OBSERVATION, obs=_OBS,
    )


_OBS = (Obs("up", "int8", ("n", "P", 2)), Obs("mucked", "int8", ("n", "2*P")), Obs("board", "int8", ("n", 3)),
        Obs("history", "int8", ("n", "P"), cards=False), Obs("round1", "int8", ("n", "P"), cards=False),
        Obs("downs_left", "int8", ("n", "P"), cards=False), Obs("in_sight", "uint64", ("n",)))


class SlovakDoubleBarrel(Variant):
    name = "slovak"
    title = "Slovak Double Barrel"
    min_players = 2
    max_players = 11  # 4N + 5 <= 52
    fields = (
        Field("seen", "the other players' face-up cards, two each, from the seat after the hero on"),
        Field("mucked", "the card the hero mucked at the first exchange (with --board; the second "
                        "card of --hand is then the one turned up)"),
    )
    decisions = (
        _decision("exchange1", "before the flop, in seat order"),
        _decision("exchange2", "after the flop, in seat order"),
    )

    # Seat q: face-up cards at 4q, 4q+1, face-down at 4q+2, 4q+3; then the board. A seat
    # never sees another's face-down cards while every other seat declines.
    layout = SlotLayout(private("up", 2, seen="all", fills="hand"), private("down", 2),
                        public("flop", 3, fills="board"), public("turn and river", 2, seen="none", fills="board"))

    # -- situations ------------------------------------------------------------
    def known_slots(self, n_players, hand=None, board=None, seat=0, seen=None, mucked=None, **fields):
        """Fix ``seat``'s face-up cards, the board, and the others' face-up cards.

        ``seen`` lists the other seats' face-up cards, two per seat, in seat
        order from ``seat + 1`` (seat 1 first for seat 0). ``mucked`` is the
        card ``seat`` mucked at the first exchange; the second card of
        ``hand`` is then the one turned up in its place.
        """
        P = n_players
        known = np.full(self.n_slots(P), -1, dtype=np.int8)
        base = 4 * seat
        if mucked is not None:
            m = parse_cards(mucked)
            h = parse_cards(hand) if hand is not None else np.zeros(0, np.int8)
            if len(m) != 1:
                raise ValueError(f"mucked: one card (the one mucked at the first exchange), got {len(m)}")
            if len(h) != 2:
                raise ValueError("mucked needs both face-up cards in hand (the second is the one turned up)")
            # The turned card came from down0 and took the mucked card's place (up1).
            known[[base, base + 1, base + 2]] = [h[0], m[0], h[1]]
        else:
            self.place(known, [base, base + 1], hand, "hand")
        if seen is not None:
            others = [(seat + k) % P for k in range(1, P)]
            slots = [4 * q + j for q in others for j in (0, 1)]
            self.place(known, slots, seen, "seen (the other players' face-up cards)")
        self.place(known, list(range(4 * P, 4 * P + 5)), board, "board")
        return known

    def default_decision(self, situation) -> str:
        """A situation with the flop (or a first-round muck) asks about the second exchange."""
        board = situation.board
        has_flop = board is not None and len(parse_cards(board, allow_empty=True)) >= 3
        return "exchange2" if has_flop or situation.get("mucked") is not None else "exchange1"

    def setup(self, n_players, hand=None, board=None, seat=0, **fields):
        """Known slots plus the first-exchange actions a flop situation implies.

        With a flop (or ``mucked``) the given cards are those at the second
        exchange: seat ``seat`` declined the first exchange (or mucked the
        ``mucked`` card, action 2), and so did each seat whose two face-up
        cards are given. Analysing ``exchange1`` overrides seat ``seat``'s preset.
        """
        known = self.known_slots(n_players, hand=hand, board=board, seat=seat, **fields)
        presets = {}
        P = n_players
        if (known[4 * P: 4 * P + 3] >= 0).any() or fields.get("mucked") is not None:
            presets[(seat, "exchange1")] = MUCK1 if fields.get("mucked") is not None else DECLINE
            for q in range(P):
                if q != seat and known[4 * q] >= 0 and known[4 * q + 1] >= 0:
                    presets[(q, "exchange1")] = DECLINE
        return Situation(known, presets)

    # -- the game ------------------------------------------------------------------
    def play(self, cards, n_players, table):
        P = n_players
        n = cards.shape[0]
        cards = np.ascontiguousarray(cards)
        ruled = _play_ruled(cards, P, [table])
        if ruled is not None:
            return ruled[0]
        # What the strategies see changes seat by seat; SharedState shows it
        # read-only and copies an array only if a strategy kept a view of it.
        up = np.empty((n, P, 2), np.int8)
        dealt_flop = np.empty((n, 3), np.int8)
        in_sight = np.empty(n, np.uint64)
        _split_deal(cards, P, up, dealt_flop, in_sight)
        st = SharedState(
            up=up, mucked=np.full((n, 2 * P), -1, np.int8), downs_left=np.full((n, P), 2, np.int8),
            in_sight=in_sight,
        )
        del up, in_sight
        n_mucked = np.zeros(n, np.int64)
        round1 = np.full((n, P), -1, np.int8)
        for r, decision in enumerate(_ROUNDS):
            # Constant within a round, and never changed afterwards: one
            # read-only array serves every seat.
            flop = dealt_flop if r == 1 else np.full((n, 3), -1, np.int8)
            flop.flags.writeable = False
            round1.flags.writeable = False
            seen = SharedState(history=np.full((n, P), -1, np.int8))
            for p in range(P):
                legal = _seat_legal(st["downs_left"], p)
                legal.flags.writeable = False  # the engine checks the answer against it
                obs = {**st.show(), **seen.show(), "board": flop, "round1": round1, "legal": legal}
                actions = table.act(p, decision, obs)
                del obs
                st.settle()
                seen.settle()
                seen["history"][:, p] = actions
                # the face-down cards stay in ``cards``, which no strategy sees
                exchange_step(cards, p, actions, _NONE_FORCED, st["up"], st["downs_left"], st["in_sight"], True,
                              _NONE_RECORDED, False, st["mucked"], n_mucked)
            round1 = seen["history"]
        values = np.empty((n, P), np.int32)
        _showdown_values(st["up"], cards, values, np.ones(P, np.bool_))
        return Outcome.from_values(values)

    def play_alternatives(self, cards, n_players, tables):
        """Every table on the same block; with rule policies throughout, in one kernel
        that plays once what the tables have in common (see :func:`_play_ruled`)."""
        cards = np.ascontiguousarray(cards)
        ruled = _play_ruled(cards, n_players, tables)
        return ruled if ruled is not None else [self.play(cards, n_players, t) for t in tables]

    # -- rollouts ----------------------------------------------------------------
    def situation(self, decision, obs, n_players):
        """Rebuild the dealt slots the public state implies; face-down cards stay -1.

        Each exchange is undone backwards from the current face-up cards: the
        card now in the exchanged position came from the next face-down slot,
        and the card mucked then (the mucked row is in acting order) was the
        one dealt there. Replaying the public actions by forcing them then
        reproduces every face-up card and the muck exactly.
        """
        P = n_players
        self.decision(decision)
        up, mucked = obs["up"], obs["mucked"]
        seat = int(obs["seat"])
        n = up.shape[0]
        rows = np.arange(n)
        rnd = _ROUNDS.index(decision)
        acts = []  # (round, seat, actions) in acting order
        if rnd == 1:
            acts += [(0, q, obs["round1"][:, q].astype(np.int64)) for q in range(P)]
        acts += [(rnd, q, obs["history"][:, q].astype(np.int64)) for q in range(seat)]
        taken = np.zeros(n, np.int64)
        muck_of = {}
        for r, q, a in acts:
            ex = a > 0
            muck_of[(r, q)] = np.where(ex, mucked[rows, np.minimum(taken, 2 * P - 1)], -1)
            taken += ex
        known = np.full((n, self.n_slots(P)), -1, np.int8)
        for q in range(P):
            cur = up[:, q, :].astype(np.int8).copy()
            own = [(r, a) for r, qq, a in acts if qq == q]
            first = own[0][1] if own and own[0][0] == 0 else np.zeros(n, np.int64)
            down = np.full((n, 2), -1, np.int8)
            for r, a in reversed(own):
                ex = rows[a > 0]
                pos = a[ex] - 1
                k = (first[ex] > 0).astype(np.int64) if r == 1 else np.zeros(ex.size, np.int64)
                down[ex, k] = cur[ex, pos]
                cur[ex, pos] = muck_of[(r, q)][ex]
            known[:, 4 * q: 4 * q + 2] = cur
            known[:, 4 * q + 2: 4 * q + 4] = down
        if rnd == 1:
            known[:, 4 * P: 4 * P + 3] = obs["board"]
        forced = {(q, _ROUNDS[r]): a for r, q, a in acts}
        return known, forced

    # -- labels ------------------------------------------------------------------
    def analysis_label(self, decision, action, situation):
        if action == DECLINE:
            return "decline"
        known, base = situation.known, 4 * situation.seat
        cur = [int(known[base]), int(known[base + 1])]
        if decision == "exchange2" and known[base + 2] >= 0:
            cur[1] = int(known[base + 2])  # the card turned up at the first exchange
        card = cur[action - 1]
        return f"muck {card_to_str(card)}" if card >= 0 else f"muck card {action - 1}"
