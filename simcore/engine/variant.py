"""What a variant is to the engine, and the table it is played at.

A variant is a small frozen description (player limits, card slots, decision
points) plus one method, :meth:`Variant.play`, that takes a block of dealt
slots through the decisions to the showdown. Every decision goes through
:meth:`Table.act`, which calls the seat's strategy with what that seat can
see, checks the answer, and applies any forced action (decision analysis and
rollouts force actions this way).
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Callable, Mapping

import numpy as np
from numba import njit

Strategy = Callable[[dict, np.random.Generator], np.ndarray]


class StrategyError(ValueError):
    """A strategy returned an illegal action (names strategy, decision, value)."""


@dataclass(frozen=True)
class Decision:
    """One decision point of a variant.

    ``n_actions`` actions are numbered 0..n_actions-1; ``actions`` names them
    (for tables and charts); ``observation`` documents the observation keys.
    """

    name: str
    n_actions: int
    actions: tuple[str, ...]
    description: str
    observation: str = ""


@dataclass
class Outcome:
    """What a block of deals produced.

    shares : (n, players) float64 pot shares (1 for a win, 1/k in a k-way tie).
    categories : (n, players) int8 final hand category per seat (-1 if none).
    """

    shares: np.ndarray
    categories: np.ndarray


class SharedState:
    """State arrays that a variant changes between sequential decisions, shown
    to strategies as read-only snapshots without copying them every time.

    ``show()`` returns read-only views of the arrays; once the caller has
    dropped them (the decision is over), ``settle()`` replaces every array
    that something still references (a strategy that kept ``obs`` or a view
    of it) by a private copy. The next change then goes to the copy, so
    whatever a strategy kept never changes: the views are snapshots. When
    nothing was kept, which is the rule, nothing is copied (measured on a
    6-player Slovak block: 53 copies, 0.8 ms of 5 ms, saved).

    >>> st = SharedState(up=np.zeros(3, np.int8))
    >>> kept = st.show()["up"]
    >>> st.settle(); st["up"][0] = 7
    >>> int(kept[0]), int(st["up"][0])
    (0, 7)
    """

    def __init__(self, **arrays: np.ndarray):
        self._arrays = arrays
        self._refs: dict[str, int] = {}

    def __getitem__(self, name: str) -> np.ndarray:
        return self._arrays[name]

    def _count(self, name: str) -> int:
        # One code path for both counts, so that the interpreter's own
        # references are the same in each.
        return sys.getrefcount(self._arrays[name])

    def show(self) -> dict[str, np.ndarray]:
        """Read-only views of every array, for one decision's observation."""
        self._refs = {k: self._count(k) for k in self._arrays}
        out = {}
        for k, a in self._arrays.items():
            v = a.view()
            v.flags.writeable = False
            out[k] = v
        return out

    def settle(self) -> None:
        """After the decision: copy every array still referenced from outside."""
        for k, base in self._refs.items():
            if self._count(k) > base:
                self._arrays[k] = self._arrays[k].copy()
        self._refs = {}


@njit(cache=True, nogil=True)
def pot_shares(values):
    """Pot shares from hand values (n, players): the best value wins, ties split."""
    n, p = values.shape
    out = np.zeros((n, p), np.float64)
    for i in range(n):
        best = values[i, 0]
        for j in range(1, p):
            if values[i, j] > best:
                best = values[i, j]
        k = 0
        for j in range(p):
            if values[i, j] == best:
                k += 1
        for j in range(p):
            if values[i, j] == best:
                out[i, j] = 1.0 / k
    return out


class Variant:
    """Base class of a game: subclasses set the attributes and implement play.

    Attributes
    ----------
    name : the CLI name ("estonian").
    title : the human name ("Estonian Twist").
    min_players, max_players : player limits.
    decisions : the decision points, in the order they are taken.
    """

    name: str = ""
    title: str = ""
    min_players: int = 2
    max_players: int = 2
    decisions: tuple[Decision, ...] = ()
    hand_size: int = 2  # cards a user gives with --hand

    # -- the contract -------------------------------------------------------
    def n_slots(self, n_players: int) -> int:
        """Number of card slots in one deal."""
        raise NotImplementedError

    def play(self, cards: np.ndarray, n_players: int, table: "Table") -> Outcome:
        """Play a block of deals (n, n_slots) to the showdown."""
        raise NotImplementedError

    def known_slots(self, n_players: int, hand=None, board=None, seat: int = 0, **extra) -> np.ndarray:
        """Slots (n_slots,) int8 with the given cards fixed and -1 elsewhere."""
        raise NotImplementedError

    def setup(self, n_players: int, hand=None, board=None, seat: int = 0, **extra):
        """(known slots, preset actions) for a user's situation.

        Presets {(seat, decision): action} are earlier actions the situation
        implies (for example the card the hero already passed); they are
        forced in every deal. The default has none and uses known_slots.
        """
        return self.known_slots(n_players, hand=hand, board=board, seat=seat, **extra), {}

    def situation(self, decision: str, obs: dict, n_players: int):
        """What a rollout resamples around: ``(known, forced)`` for an observation.

        known : (n, n_slots) int8, the cards the deciding seat has seen (-1 else).
        forced : {(seat, decision): (n,) actions} for public earlier actions.
        """
        raise NotImplementedError

    def action_label(self, decision: str, obs: dict, row: int, action: int) -> str:
        """A readable label for one action in one observation row."""
        return self.decision(decision).actions[action]

    def default_decision(self, board=None, **extra) -> str:
        """The decision a situation asks about when the user names none."""
        return self.decisions[0].name

    def analysis_actions(self, decision: str, n_players: int, known: np.ndarray) -> list[int]:
        """The hero's actions to try in a decision analysis (default: all)."""
        return list(range(self.decision(decision).n_actions))

    def analysis_label(self, decision: str, action: int, known: np.ndarray) -> str:
        """How an action reads in an analysis table ("pass 7d")."""
        return self.decision(decision).actions[action]

    # -- shared helpers ------------------------------------------------------
    def place(self, known: np.ndarray, slots, cards, what: str) -> None:
        """Fix ``cards`` (string or ints) into the first ``slots`` of ``known``."""
        from ..cards import parse_cards

        if cards is None:
            return
        arr = parse_cards(cards, allow_empty=True)
        if len(arr) > len(slots):
            raise ValueError(f"{what}: at most {len(slots)} cards, got {len(arr)}")
        known[np.asarray(slots[: len(arr)], dtype=np.int64)] = arr

    def decision(self, name: str) -> Decision:
        for d in self.decisions:
            if d.name == name:
                return d
        raise ValueError(
            f"{self.name} has no decision {name!r}; its decisions are "
            + ", ".join(d.name for d in self.decisions)
        )

    def check_players(self, n_players: int) -> None:
        if not isinstance(n_players, (int, np.integer)) or not (
            self.min_players <= n_players <= self.max_players
        ):
            raise ValueError(
                f"{self.title} takes {self.min_players} to {self.max_players} players, got {n_players}"
            )


@dataclass
class Table:
    """The seats of one block: strategies, their random streams, forced actions.

    strategies : per seat, {decision: (name, function)}.
    rngs : per seat, the seat's stream for randomised strategies.
    forced : {(seat, decision): (n,) int actions, -1 where not forced}.
    """

    variant: Variant
    n_players: int
    strategies: list[Mapping[str, tuple[str, Strategy]]]
    rngs: list[np.random.Generator]
    forced: dict = field(default_factory=dict)

    def act(self, seat: int, decision: str, obs: dict) -> np.ndarray:
        """Ask ``seat``'s strategy for ``decision`` and return checked actions.

        ``obs`` must hold ``legal`` (n, n_actions) bool. Forced actions replace
        the strategy's where given; rows where every action is forced skip the
        call entirely.
        """
        legal = obs["legal"]
        forced = self.forced.get((seat, decision))
        if forced is not None and (forced >= 0).all():
            actions = np.asarray(forced, dtype=np.int64)
        else:
            name, fn = self.strategies[seat][decision]
            obs = dict(obs, seat=seat, n_players=self.n_players, decision=decision,
                       variant=self.variant.name)
            actions = check_actions(fn(obs, self.rngs[seat]), legal, name, decision)
            if forced is None:
                return actions
            actions = np.where(forced >= 0, forced, actions)
        i = _first_illegal(actions, legal)
        if i >= 0:
            raise StrategyError(
                f"forced action {int(actions[i])} is illegal for {decision} of seat {seat} (deal {i})"
            )
        return actions


@njit(cache=True, nogil=True)
def _first_illegal(actions, legal):
    """Index of the first action out of range or not legal in its row, else -1."""
    n, k = legal.shape
    for i in range(n):
        a = actions[i]
        if a < 0 or a >= k or not legal[i, a]:
            return i
    return -1


def check_actions(actions, legal: np.ndarray, name: str, decision: str) -> np.ndarray:
    """Validate a strategy's answer: (n,) integers, each legal in its row."""
    n, n_actions = legal.shape
    arr = np.asarray(actions)
    if arr.shape != (n,):
        raise StrategyError(
            f"strategy {name!r} for {decision} returned shape {arr.shape}; expected ({n},)"
        )
    if not np.issubdtype(arr.dtype, np.integer):
        raise StrategyError(
            f"strategy {name!r} for {decision} returned dtype {arr.dtype}; expected integers"
        )
    arr = arr.astype(np.int64, copy=False)
    i = _first_illegal(arr, legal)
    if i < 0:
        return arr
    if not 0 <= arr[i] < n_actions:
        raise StrategyError(
            f"strategy {name!r} for {decision} returned action {int(arr[i])} (deal {i}); "
            f"actions are 0..{n_actions - 1}"
        )
    raise StrategyError(
        f"strategy {name!r} for {decision} returned illegal action {int(arr[i])} (deal {i}); "
        f"legal there: {np.flatnonzero(legal[i]).tolist()}"
    )
