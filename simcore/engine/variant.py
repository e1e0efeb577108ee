"""What a variant is to the engine, and the table it is played at.

A variant is a small description (player limits, rule options, card slots,
decision points, what a seat's result is measured in) plus one method,
:meth:`Variant.play`, that takes a block of dealt slots through the decisions
to the showdown and returns an :class:`Outcome`. Every decision goes through
:meth:`Table.act`, which calls the seat's strategy with what that seat can
see, checks the answer, and applies any forced action (decision analysis and
rollouts force actions this way). ``docs/architecture.md`` shows how a new
game is written against this contract.
"""
from __future__ import annotations

import functools
import sys
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable, Mapping

import numpy as np
from numba import njit

from .checks import is_whole
from ..kernels import pot_best, pot_share

Strategy = Callable[[dict, np.random.Generator], np.ndarray]


class StrategyError(ValueError):
    """A strategy returned an illegal action (names strategy, decision, value)."""


class StrategyInterrupt(KeyboardInterrupt):
    """A KeyboardInterrupt raised inside a user's strategy (names strategy, decision,
    seat): the run ends as interrupted, as on Ctrl-C, and says which strategy it was."""


class NoRollout(ValueError):
    """A variant cannot yet resample a decision's hidden cards for a rollout."""


@dataclass(frozen=True)
class Decision:
    """One decision point of a variant.

    ``n_actions`` actions are numbered 0..n_actions-1; ``actions`` names them
    (for tables and charts); ``observation`` documents the observation keys.
    ``rounds`` is how many times each seat takes the decision in one deal
    (Russian Hold'em places a card 12 times); observations carry ``round``
    (0-based) and forced actions may name one round.
    """

    name: str
    n_actions: int
    actions: tuple[str, ...]
    description: str
    observation: str = ""
    rounds: int = 1
    obs: tuple = ()  # the observation's declared fields (:class:`Obs`), checked by check_variant

    def __post_init__(self):
        if not self.observation and self.obs:  # the documentation follows from the declaration
            object.__setattr__(self, "observation", "; ".join(o.describe() for o in self.obs))

    @property
    def row_keys(self) -> frozenset:
        """The observation keys that hold a row per deal: every declared field of shape
        ``("n", ...)``, and ``legal`` (what cutting an observation to some of its rows cuts)."""
        return frozenset([o.name for o in self.obs if len(o.shape) and o.shape[0] == "n"] + ["legal"])


@dataclass(frozen=True)
class Obs:
    """One declared field of a decision's observation: its key, dtype and shape.

    ``shape`` holds ints and expressions in ``n`` (deals in the block) and
    ``P`` (players): ``Obs("hand", "int8", ("n", 3), "the seat's cards")``,
    ``Obs("mucked", "int8", ("n", "2*P"))``. An int8 field holds cards (-1: none)
    unless it says ``cards=False`` (counts, actions, masks): reports show card
    fields as cards and the others as numbers.
    Every observation also has ``legal`` (n, n_actions) bool and the scalars
    ``seat``, ``n_players``, ``decision``, ``variant`` and ``round``, which
    need no declaring. :func:`simcore.testing.check_variant` checks that what
    a strategy is shown is exactly what is declared.
    """

    name: str
    dtype: str
    shape: tuple
    help: str = ""
    cards: bool | None = None  # None: an int8 field holds cards, any other does not

    @property
    def holds_cards(self) -> bool:
        return self.dtype == "int8" if self.cards is None else bool(self.cards)

    def expected_shape(self, n: int, n_players: int) -> tuple:
        """The shape with ``n`` and ``P`` filled in ("2*P" may be written too)."""
        return tuple(int(eval(d, {"__builtins__": {}}, {"n": n, "P": n_players})) if isinstance(d, str)
                     else int(d) for d in self.shape)

    def describe(self) -> str:
        dims = ", ".join(str(d) for d in self.shape) + ("," if len(self.shape) == 1 else "")
        return f"{self.name} ({dims}) {self.dtype}" + (f": {self.help}" if self.help else "")


@dataclass(frozen=True)
class Option:
    """A rule option of a variant (``get_variant("tapiola", scoring="points")``).

    ``default`` fixes the type: a bool option is a CLI switch (``--lowball``),
    any other takes a value (``--scoring points``), one of ``choices`` if given.
    """

    name: str
    default: Any
    help: str
    choices: tuple = ()

    def check(self, value, variant: str):
        """The value converted to the option's type; ValueError naming it if bad."""
        kind = type(self.default)
        if kind is bool:
            if isinstance(value, str) and value.lower() in ("true", "false", "1", "0", "yes", "no"):
                value = value.lower() in ("true", "1", "yes")
            if not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"{variant} option {self.name} is true or false, got {value!r}")
            return bool(value)
        if kind is int and not isinstance(value, bool):
            try:
                value = int(value)
            except (TypeError, ValueError):
                raise ValueError(f"{variant} option {self.name} is a whole number, got {value!r}") from None
        if self.choices and value not in self.choices:
            raise ValueError(f"{variant} option {self.name}={value!r} is not one of "
                             + ", ".join(map(str, self.choices)))
        return value


@dataclass(frozen=True)
class Field:
    """A situation field beyond ``hand`` and ``board`` (``--passed``, ``--seen``).

    The CLI offers ``--NAME`` for it and passes it to :meth:`Variant.setup`.
    """

    name: str
    help: str


REST = -1  # a slot group's size: the rest of the deck (see :class:`Slots`)
SEEN = ("all", "owner", "none")


@dataclass(frozen=True)
class Slots:
    """A group of card slots in a deal's layout (see :class:`SlotLayout`).

    name : what the cards are ("hand", "flop", "stub").
    size : cards in the group, per seat when ``per_seat``; :data:`REST` takes
        what the deck has left after every other group (at most one group).
    per_seat : one such group for every seat (private cards).
    seen : who may see the cards before the showdown: "all" (face up),
        "owner" (the seat whose cards they are) or "none". The default
        :meth:`Variant.hidden_slots` is every slot a seat may not see.
    fills : "hand" or "board": the default :meth:`Variant.setup` puts the
        situation's ``hand`` into the seat's "hand" groups and its ``board``
        into the "board" groups, in layout order; None for neither.
    by_round : a per-seat group dealt a card to every seat in turn (round
        after round) instead of seat after seat.

    Build them with :func:`private` and :func:`public`.
    """

    name: str
    size: int
    per_seat: bool = False
    seen: str = "all"
    fills: str | None = None
    by_round: bool = False

    def __post_init__(self):
        if self.seen not in SEEN:
            raise ValueError(f"slot group {self.name!r}: seen is one of {', '.join(SEEN)}, got {self.seen!r}")
        if self.seen == "owner" and not self.per_seat:
            raise ValueError(f"slot group {self.name!r}: only a per-seat group has an owner")
        if self.fills not in (None, "hand", "board"):
            raise ValueError(f"slot group {self.name!r}: fills is 'hand', 'board' or None, got {self.fills!r}")
        if not isinstance(self.size, int) or (self.size < 1 and self.size != REST):
            raise ValueError(f"slot group {self.name!r}: size is a positive int or REST, got {self.size!r}")
        if self.size == REST and self.per_seat:
            raise ValueError(f"slot group {self.name!r}: the rest of the deck is not per seat")


def private(name: str, size: int, *, seen: str = "owner", fills: str | None = None,
            by_round: bool = False) -> Slots:
    """``size`` cards per seat (``seen`` by their owner unless said otherwise)."""
    return Slots(name, size, True, seen, fills, by_round)


def public(name: str, size: int, *, seen: str = "all", fills: str | None = None) -> Slots:
    """``size`` cards for the table (face up unless ``seen="none"``); :data:`REST`: the rest of the deck."""
    return Slots(name, size, False, seen, fills)


class SlotLayout:
    """Where a deal's cards lie: slot groups in the order they are dealt.

    Consecutive per-seat groups are laid out seat by seat (seat 0's cards of
    every such group, then seat 1's...), or round by round for a ``by_round``
    group. ``n_slots``, the default ``setup`` (``hand`` and ``board`` placed)
    and the default ``hidden_slots`` follow from it.

    >>> lay = SlotLayout(private("hand", 2, fills="hand"), public("board", 5, seen="none", fills="board"))
    >>> lay.n_slots(3), lay.slots("hand", 3, seat=1), lay.slots("board", 3)
    (11, [2, 3], [6, 7, 8, 9, 10])
    """

    def __init__(self, *groups: Slots):
        names = [g.name for g in groups]
        if len(set(names)) != len(names):
            raise ValueError(f"slot groups need distinct names, got {names}")
        if sum(g.size == REST for g in groups) > 1:
            raise ValueError("at most one slot group takes the rest of the deck")
        self.groups = tuple(groups)

    def __repr__(self):
        return f"SlotLayout({', '.join(g.name for g in self.groups)})"

    def _fixed(self, n_players: int) -> int:
        return sum(g.size * (n_players if g.per_seat else 1) for g in self.groups if g.size != REST)

    def n_slots(self, n_players: int, deck: int = 52) -> int:
        """Slots of one deal at ``n_players`` (a REST group fills the deck)."""
        fixed = self._fixed(n_players)
        return deck if any(g.size == REST for g in self.groups) else fixed

    def _places(self, n_players: int) -> dict:
        """{group name: (n_players or 1, size) array of slot numbers}."""
        out, at, i, groups = {}, 0, 0, self.groups
        rest = 52 - self._fixed(n_players)
        while i < len(groups):
            g = groups[i]
            if not g.per_seat or g.by_round:
                size = rest if g.size == REST else g.size
                if g.per_seat:  # card k of seat q at at + k * P + q
                    out[g.name] = at + np.arange(size)[None, :] * n_players + np.arange(n_players)[:, None]
                    at += size * n_players
                else:
                    out[g.name] = at + np.arange(size)[None, :]
                    at += size
                i += 1
                continue
            j = i  # a run of per-seat groups, seat by seat
            while j < len(groups) and groups[j].per_seat and not groups[j].by_round:
                j += 1
            block = sum(g.size for g in groups[i:j])
            off = 0
            for g in groups[i:j]:
                out[g.name] = at + np.arange(n_players)[:, None] * block + off + np.arange(g.size)[None, :]
                off += g.size
            at += block * n_players
            i = j
        return out

    def slots(self, name: str, n_players: int, seat: int | None = None) -> list[int]:
        """The slots of group ``name`` (a per-seat group's for ``seat``), in deal order."""
        places = self._places(n_players)
        if name not in places:
            raise ValueError(f"no slot group {name!r}; the groups are {', '.join(places)}")
        g = next(g for g in self.groups if g.name == name)
        if g.per_seat:
            if seat is None:
                raise ValueError(f"slot group {name!r} is per seat: name the seat")
            return places[name][seat].tolist()
        return places[name][0].tolist()

    def filled_by(self, what: str, n_players: int, seat: int) -> list[int]:
        """The slots that the situation's ``what`` ("hand" or "board") fills, in order."""
        out = []
        for g in self.groups:
            if g.fills == what:
                out += self.slots(g.name, n_players, seat if g.per_seat else None)
        return out

    def hidden(self, n_players: int, seat: int) -> list[int]:
        """Every slot ``seat`` may not see before the showdown (from each group's ``seen``)."""
        places, out = self._places(n_players), []
        for g in self.groups:
            rows = places[g.name]
            if g.seen == "none":
                out += rows.ravel().tolist()
            elif g.seen == "owner":
                out += [int(s) for q in range(n_players) if q != seat for s in rows[q]]
        return sorted(out)


@dataclass(frozen=True, eq=False)
class Situation:
    """A user's situation as a value: what :meth:`Variant.setup` returns and every
    analysis hook (``default_decision``, ``analysis_round``, ``analysis_actions``,
    ``analysis_label``, ``analysis_conditions``) receives.

    known : (n_slots,) int8, the cards fixed for every deal (-1: dealt at random).
    presets : {(seat, decision[, round]): action}, earlier actions the situation
        implies, forced in every deal.
    n_players, seat : the table and the seat the situation is seen from.
    hand, board : the cards as the user gave them.
    fields : the variant's situation fields as given (None left out).
    data : whatever else the variant's ``setup`` worked out for its hooks
        (Russian: how many cards the hero has placed on each hand).

    A variant's ``setup`` returns ``Situation(known, presets)`` (or with
    ``data``); the base class fills in the rest. Everything is read-only, so
    one situation may be shared by threads and one variant serves many.
    """

    known: np.ndarray
    presets: Mapping = field(default_factory=dict)
    n_players: int | None = None
    seat: int = 0
    hand: Any = None
    board: Any = None
    fields: Mapping = field(default_factory=dict)
    data: Mapping = field(default_factory=dict)

    def __post_init__(self):
        known = np.array(self.known, copy=True)
        if known.ndim != 1 or (known.size and known.dtype.kind not in "iu"):
            raise ValueError(f"a situation's known slots are one row of integer cards, got shape "
                             f"{known.shape} and dtype {known.dtype}")
        known = known.astype(np.int8)
        known.flags.writeable = False
        object.__setattr__(self, "known", known)
        for name in ("presets", "fields", "data"):
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name) or {})))

    def get(self, name: str, default=None):
        """The situation field ``name`` as given, or ``default``."""
        return self.fields.get(name, default)

    def completed(self, n_players: int, seat: int, hand, board, fields: Mapping) -> "Situation":
        """This situation with the table, seat, cards and fields filled in."""
        return Situation(self.known, self.presets, n_players, seat, hand, board,
                         {k: v for k, v in fields.items() if v is not None}, self.data)


class MissingHook(NotImplementedError):
    """A game lacks a part of the contract the engine needs (the message says which
    and how to give it, see docs/architecture.md)."""


@dataclass
class Outcome:
    """What a block of deals produced, seat by seat.

    payoffs : (n, P) float64, each seat's result in the variant's
        ``payoff_unit`` (a pot share, points).
    wins : (n, P) bool, the seat alone has the best result (an outright win).
    ties : (n, P) bool, the seat shares the best result with others.
    categories : (n, P, H) int8, the final category 0..8 of each of the seat's
        H hands (the variant's ``hands``), -1 where none; (n, P) is read as H = 1.
    winning : (n, H) int8, the category of the winning hand on each hand;
        None derives it from the first seat that wins or ties.
    parts : {name: (n, P) float64}, the variant's ``parts`` (reported with
        intervals, like the payoff).
    actions : {(seat, decision, round): (n,) int64} when the block was played
        with ``record=True``, else None.
    unit, total : the payoffs' unit and what every deal's payoffs sum to
        (None: not constant); :func:`~simcore.engine.play_block` stamps the
        variant's ``payoff_unit`` and ``payoff_total``.
    state : optional, the game's final state for experiments that need more
        than the payoffs (what each seat ended with, the cards served): a
        variant fills it when the table asks (``table.keep_state``), else None.

    Wins and ties are said by the variant, never inferred from the payoffs: a
    half-pot payoff (Sviten) or 1.5 points (Tapiola) is not a tie by itself.
    """

    payoffs: np.ndarray
    wins: np.ndarray
    ties: np.ndarray
    categories: np.ndarray
    winning: np.ndarray | None = None
    parts: dict = field(default_factory=dict)
    actions: dict | None = None
    unit: str = "pot share"
    total: float | None = 1.0
    state: Any = None

    def __post_init__(self):
        if self.categories.ndim == 2:
            self.categories = self.categories[:, :, None]

    @property
    def shares(self) -> np.ndarray:
        """The payoffs (pot shares in a pot game)."""
        return self.payoffs

    @classmethod
    def from_values(cls, values: np.ndarray, categories: np.ndarray | None = None) -> "Outcome":
        """One pot to the highest hand value (n, P); ties split it.

        >>> o = Outcome.from_values(np.array([[5, 9, 9]], np.int32))
        >>> o.payoffs.tolist(), o.wins.tolist(), o.ties.tolist()
        ([[0.0, 0.5, 0.5]], [[False, False, False]], [[False, True, True]])
        """
        shares, wins, ties, cats = _pot_outcome(values)  # one pass
        return cls(shares, wins, ties, cats if categories is None else categories)

    @classmethod
    def from_pot_shares(cls, shares: np.ndarray, categories: np.ndarray) -> "Outcome":
        """One pot already divided (n, P): a whole pot is a win, part of it a tie."""
        return cls(shares, shares == 1.0, (shares > 0.0) & (shares < 1.0), categories)



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
def place_points(values, points):
    """Points by place (n, P) from hand values (n, P), the highest first.

    ``points[k]`` goes to place k (0 the best; places beyond ``points`` score
    0). Tied players take consecutive places and share those places' points
    equally: with points (2, 1), two tied for best get 1.5 each and the next
    nothing; one best and two tied for second get 2, 0.5, 0.5.

    >>> place_points(np.array([[7, 9, 7, 1]]), np.array([2.0, 1.0])).tolist()
    [[0.5, 2.0, 0.5, 0.0]]
    """
    n, p = values.shape
    out = np.zeros((n, p), np.float64)
    m = points.shape[0]
    for i in range(n):
        for j in range(p):
            above = 0
            level = 0
            for q in range(p):
                above += values[i, q] > values[i, j]
                level += values[i, q] == values[i, j]
            total = 0.0
            for k in range(above, above + level):
                if k < m:
                    total += points[k]
            out[i, j] = total / level
    return out


@njit(cache=True, nogil=True)
def _pot_outcome(values):
    """What :meth:`Outcome.from_values` builds from high values (n, P), in one pass:
    (shares, wins, ties, categories), each (n, P)."""
    n, p = values.shape
    shares = np.empty((n, p), np.float64)
    wins = np.empty((n, p), np.bool_)
    ties = np.empty((n, p), np.bool_)
    cats = np.empty((n, p), np.int8)
    for i in range(n):
        best, k = pot_best(values[i])
        for j in range(p):
            shares[i, j], wins[i, j], ties[i, j] = pot_share(values[i, j], best, k)
            cats[i, j] = np.int8(values[i, j] >> 12)
    return shares, wins, ties, cats


@njit(cache=True, nogil=True)
def pot_shares(values):
    """Pot shares from hand values (n, players): the best value wins, ties split
    (:func:`simcore.kernels.pot_best` and :func:`~simcore.kernels.pot_share`)."""
    n, p = values.shape
    shares = np.empty((n, p), np.float64)
    for i in range(n):
        best, k = pot_best(values[i])
        for j in range(p):
            shares[i, j] = pot_share(values[i, j], best, k)[0]
    return shares


class Variant:
    """Base class of a game: subclasses set the attributes and implement play.

    Attributes
    ----------
    name : the CLI name ("estonian").
    title : the human name ("Estonian Twist").
    min_players, max_players : player limits (an instance may narrow them
        by its options).
    options : the rule options (:class:`Option`); an instance's values are
        in ``self.opts``.
    fields : situation fields (:class:`Field`) that :meth:`setup` takes.
    decisions : the decision points, in the order they are first taken.
    hands : names of the hands each seat is scored on.
    hand_kinds : "high" or "low" per hand: a low hand's category counts what
        stands against it (a straight or a flush in ace-to-six); results
        report it per hand (``"hands"`` in the JSON).
    payoff_unit : what a payoff is measured in ("pot share", "points").
    payoff_total : what the payoffs of every deal sum to, or None.
    parts : names of the Outcome's extra per-seat quantities.
    part_groups : {key: part names} reported together in the JSON (each seat
        gets ``key`` with every part's share, stderr and interval).
    match_target : the score a match is played to (match chances), or None.
    layout : the deal's :class:`SlotLayout` (may be set in ``configure``), from
        which ``n_slots``, the default ``setup`` and ``hidden_slots`` follow.

    An instance holds nothing but its options and what ``configure`` derives
    from them: every method is a function of its arguments, so one instance
    is shared by every thread and run (``get_variant`` caches them).
    """

    name: str = ""
    title: str = ""
    min_players: int = 2
    max_players: int = 2
    options: tuple[Option, ...] = ()
    fields: tuple[Field, ...] = ()
    decisions: tuple[Decision, ...] = ()
    hands: tuple[str, ...] = ("hand",)
    hand_kinds: tuple[str, ...] = ("high",)
    payoff_unit: str = "pot share"
    payoff_total: float | None = 1.0
    parts: tuple[str, ...] = ()
    part_groups: Mapping[str, tuple[str, ...]] = MappingProxyType({})
    match_target: float | None = None
    layout: SlotLayout | None = None

    def __init_subclass__(cls, **kwargs):
        # Input checks live here, once: an override of setup or known_slots is
        # wrapped so that it gets a checked seat and only declared fields.
        super().__init_subclass__(**kwargs)
        for name in ("setup", "known_slots"):
            fn = cls.__dict__.get(name)
            if fn is not None and not getattr(fn, "_checked", False):
                setattr(cls, name, _checked_situation(fn, name))

    def __init__(self, **options):
        known = {o.name: o for o in self.options}
        unknown = sorted(set(options) - set(known))
        if unknown:
            valid = ", ".join(o.name for o in self.options) or "none"
            raise ValueError(f"{self.name} has no option {unknown[0]!r}; its options are: {valid}")
        self.opts = {o.name: o.check(options.get(o.name, o.default), self.name) for o in self.options}
        self.configure(**self.opts)

    def configure(self, **opts) -> None:
        """Set what depends on the options (limits, decisions, unit); default nothing."""

    @property
    def label(self) -> str:
        """The name with every option that differs from its default: ``tapiola(scoring=points)``."""
        changed = [f"{o.name}={self.opts[o.name]}" for o in self.options if self.opts[o.name] != o.default]
        return f"{self.name}({', '.join(changed)})" if changed else self.name

    def __repr__(self) -> str:
        return f"<variant {self.label}>"

    # -- the contract -------------------------------------------------------
    def n_slots(self, n_players: int) -> int:
        """Number of card slots in one deal (from ``layout`` unless overridden)."""
        return self._layout("n_slots").n_slots(n_players)

    def _layout(self, hook: str) -> SlotLayout:
        if self.layout is None:
            raise MissingHook(
                f"{self.name or type(self).__name__} declares no slot layout, so the base class cannot "
                f"give {hook}: set layout = SlotLayout(private(...), public(...)) on the class (or in "
                f"configure), or override {hook} (docs/architecture.md, 'The slot layout')")
        return self.layout

    def n_chance(self, n_players: int) -> int:
        """Extra random uint32 draws per deal, for chance during a deal (``table.chance``)."""
        return 0

    def play(self, cards: np.ndarray, n_players: int, table: "Table") -> Outcome:
        """Play a block of deals (n, n_slots) to the showdown."""
        raise NotImplementedError

    def play_alternatives(self, cards: np.ndarray, n_players: int, tables: list) -> list[Outcome]:
        """Play the same block once per table (alternatives: tables that differ in their
        strategies or forced actions, as a comparison or a rollout plays them), one
        Outcome each, exactly as :meth:`play` would. The default plays them one after
        another; a variant may share the work the tables have in common."""
        return [self.play(cards, n_players, t) for t in tables]

    def known_slots(self, n_players: int, hand=None, board=None, seat: int = 0, **fields) -> np.ndarray:
        """Slots (n_slots,) int8 with the situation's cards fixed and -1 elsewhere.

        The default puts ``hand`` into the seat's slot groups that fill the
        hand and ``board`` into those that fill the board (the ``layout``'s
        ``fills``), first slots first. A game with situation fields of its own
        overrides this or :meth:`setup`. The base class has already checked
        the seat (an int at the table) and that every field is declared.
        """
        layout = self._layout("known_slots")
        used = sorted(k for k, v in fields.items() if v is not None)
        if used:
            raise MissingHook(f"{self.title} declares the situation field {used[0]!r}, but the default "
                              f"known_slots places only hand and board: override setup to use it")
        known = np.full(self.n_slots(n_players), -1, np.int8)
        for what, cards in (("hand", hand), ("board", board)):
            slots = layout.filled_by(what, n_players, seat)
            if cards is not None and not slots:
                raise ValueError(f"{self.title} has no {what} slots to place {cards!r} in")
            self.place(known, slots, cards, what)
        from ..cards import check_distinct

        check_distinct(known[known >= 0], "the situation's cards")
        return known

    def setup(self, n_players: int, hand=None, board=None, seat: int = 0, **fields) -> "Situation":
        """The :class:`Situation` of a user's situation, seen from ``seat``.

        An override returns ``Situation(known, presets)`` (or with ``data`` for
        its hooks); the base class checks the players, the seat and the fields
        before it runs and fills in the rest after. Presets {(seat, decision):
        action} or {(seat, decision, round): action} are earlier actions the
        situation implies (for example the card the hero already passed); they
        are forced in every deal. The default has none and uses known_slots.
        """
        return Situation(self.known_slots(n_players, hand=hand, board=board, seat=seat, **fields))

    def situation_of(self, n_players: int, known, seat: int = 0, presets=None, hand=None, board=None,
                     **fields) -> "Situation":
        """A :class:`Situation` for slots given directly (``known=``), not built by setup."""
        return Situation(known, presets or {}).completed(n_players, seat, hand, board, fields)

    def situation(self, decision: str, obs: dict, n_players: int):
        """What a rollout resamples around: ``(known, forced)`` for an observation.

        known : (n, n_slots) int8, the cards the deciding seat has seen (-1 else).
        forced : {(seat, decision[, round]): (n,) actions} for public earlier actions.

        Optional: without it a rollout refuses every decision (:class:`NoRollout`).
        """
        raise NoRollout(f"{self.name} gives no rollout situation for decision {decision!r} "
                        f"(it does not implement Variant.situation)")

    def hidden_slots(self, n_players: int, seat: int) -> list[int]:
        """Slots whose cards ``seat`` never sees before the showdown while every
        other seat takes its first legal action (default: from ``layout``).

        The contract check deals those slots anew and checks that none of
        ``seat``'s observations change: the proof that hidden cards never
        reach a strategy.
        """
        return self._layout("hidden_slots").hidden(n_players, seat)

    def seat_view(self, decision: str, obs: dict) -> np.ndarray | None:
        """Optional: a key (n, w) int64 per row of ``obs`` (one seat's observation at
        ``decision``) holding what the game's *seat-view* policies read of that row: two rows
        with equal keys get equal answers from a policy that declares the trait ``seat_view``
        (and from a table over an abstraction that does), whatever else differs. None (the
        default): the game declares no such view.

        A best response's fit replays the rest of each deal once per other action of the
        deviator; where a field seat's view of a row is the same as in the first play, its
        answer there is reused (``simcore.exploit``), and only the other rows are asked."""
        return None

    def default_decision(self, situation: Situation) -> str:
        """The decision a situation asks about when the user names none."""
        return self.decisions[0].name

    def analysis_round(self, decision: str, situation: Situation) -> int:
        """The round of a repeated decision that a situation is at (default 0)."""
        return 0

    def analysis_actions(self, decision: str, situation: Situation) -> list[int]:
        """The hero's actions to try in a decision analysis (default: all)."""
        return list(range(self.decision(decision).n_actions))

    def analysis_label(self, decision: str, action: int, situation: Situation) -> str:
        """How an action reads in an analysis table ("pass 7d")."""
        return self.decision(decision).actions[action]

    def analysis_conditions(self, decision: str, situation: Situation) -> list[str]:
        """What an analysis's numbers are conditioned on beyond the hand and board (for its
        header), e.g. Sviten's open card in a draw analysis; default none."""
        return []

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
        if not is_whole(n_players) or not (
            self.min_players <= n_players <= self.max_players
        ):
            raise ValueError(
                f"{self.title} takes {self.min_players} to {self.max_players} players, got {n_players!r}"
            )

    def check_seat(self, n_players: int, seat) -> int:
        """``seat`` as an int, or a ValueError naming it."""
        if not is_whole(seat) or not 0 <= seat < n_players:
            raise ValueError(f"seat {seat!r} is not at a {n_players}-player table (seats 0..{n_players - 1})")
        return int(seat)

    def check_fields(self, fields: dict) -> None:
        """A ValueError naming any situation field this variant does not take."""
        valid = {f.name for f in self.fields}
        bad = sorted(k for k, v in fields.items() if v is not None and k not in valid)
        if bad:
            takes = ", ".join(sorted(valid)) or "only hand and board"
            raise ValueError(f"{self.title} has no situation field {bad[0]!r}; it takes {takes}")


def _checked_situation(fn, kind: str):
    """``setup`` or ``known_slots`` with the base class's input checks before it
    (players, seat, declared fields) and, for setup, a complete Situation after."""

    @functools.wraps(fn)
    def checked(self, n_players, hand=None, board=None, seat=0, **fields):
        self.check_fields(fields)
        self.check_players(n_players)
        seat = self.check_seat(n_players, seat)
        out = fn(self, n_players, hand=hand, board=board, seat=seat, **fields)
        if kind == "known_slots":
            return out
        if not isinstance(out, Situation):
            raise TypeError(f"{type(self).__name__}.setup returned {type(out).__name__}; it returns "
                            f"Situation(known, presets)")
        if out.known.shape != (self.n_slots(n_players),):
            raise ValueError(f"{type(self).__name__}.setup gave known slots of shape {out.known.shape}; "
                             f"a {n_players}-player deal has {self.n_slots(n_players)}")
        return out.completed(n_players, seat, hand, board, fields)

    checked._checked = True
    return checked


Variant.setup = _checked_situation(Variant.setup, "setup")
Variant.known_slots = _checked_situation(Variant.known_slots, "known_slots")


@dataclass
class Table:
    """The seats of one block: strategies, their random streams, forced actions.

    strategies : per seat, {decision: (name, function)}.
    rngs : per seat, the seat's stream for randomised strategies.
    forced : {(seat, decision): (n,) int actions} for every round of the
        decision, or {(seat, decision, round): ...} for one round (that key
        wins); -1 where not forced.
    chance : (n, variant.n_chance(P)) uint32 draws for chance during a deal,
        from the block's deal stream (the same for every alternative of a
        paired run); None when the variant asks for none.
    record : keep every decision's actions in ``actions``
        {(seat, decision, round): (n,) int64}.
    keep_state : ask the variant to put its final state in ``Outcome.state``.
    """

    variant: Variant
    n_players: int
    strategies: list[Mapping[str, tuple[str, Strategy]]]
    rngs: list[np.random.Generator]
    forced: dict = field(default_factory=dict)
    chance: np.ndarray | None = None
    record: bool = False
    actions: dict = field(default_factory=dict)
    keep_state: bool = False

    def trait(self, seat: int, decision: str, name: str, default=None):
        """The policy trait ``name`` of ``seat``'s strategy for ``decision`` (see
        :func:`policy_traits`), or ``default`` (also when the seat has no such decision)."""
        entry = self.strategies[seat].get(decision)
        return default if entry is None else policy_traits(entry[1]).get(name, default)

    def act(self, seat: int, decision: str, obs: dict, round: int = 0) -> np.ndarray:
        """Ask ``seat``'s strategy for ``decision`` (in ``round``) and return checked actions.

        ``obs`` must hold ``legal`` (n, n_actions) bool. Forced actions replace
        the strategy's where given; rows where every action is forced skip the
        call entirely. The strategy sees ``obs`` plus ``seat``, ``n_players``,
        ``decision``, ``variant`` and ``round``.
        """
        actions = self._act(seat, decision, obs, round)
        if self.record:
            self.actions[(seat, decision, round)] = actions
        return actions

    def forced_actions(self, seat: int, decision: str, round: int = 0):
        """The (n,) actions forced on ``seat``'s ``decision`` in ``round`` (-1 where
        free), or None: the per-round key wins over the every-round one."""
        forced = self.forced.get((seat, decision, round))
        return self.forced.get((seat, decision)) if forced is None else forced

    def _act(self, seat, decision, obs, round):
        legal = obs["legal"]
        forced = self.forced_actions(seat, decision, round)
        if forced is not None and (forced >= 0).all():
            actions = np.asarray(forced, dtype=np.int64)
        else:
            name, fn = self.strategies[seat][decision]
            answer = call_guarded(fn, obs, self.rngs[seat], name, decision, seat, round,
                                  {"seat": seat, "n_players": self.n_players, "decision": decision,
                                   "variant": self.variant.name, "round": round})
            actions = check_actions(answer, legal, name, f"{decision} (seat {seat}, round {round})")
            if forced is None:
                return actions
            actions = np.where(forced >= 0, forced, actions)
        i = _first_illegal(actions, legal)
        if i >= 0:
            raise StrategyError(
                f"forced action {int(actions[i])} is illegal for {decision} (round {round}) "
                f"of seat {seat} (deal {i})"
            )
        return actions


_TRAITS = "__pvsim_traits__"
_NO_TRAITS = MappingProxyType({})


def policy_traits(fn) -> Mapping:
    """The traits a policy was declared with (``register(..., pure=True)``), read-only.

    Traits tell a variant what it may do instead of asking the strategy:
    ``pure`` (its actions depend on its observation alone, so one answer may
    serve several tables that show it the same thing), ``place_rule`` and
    ``exchange_rule`` (a fixed rule the variant applies in its own kernel);
    ``rowwise`` (each row's action depends on that row alone and it draws
    nothing from its stream: a table policy may ask it for some rows only).
    This is the one accessor; :meth:`Table.trait` reads it for a seat.
    """
    return getattr(fn, _TRAITS, _NO_TRAITS)


def is_pure(fn) -> bool:
    """Whether policy ``fn`` is pure: declared so (:func:`with_traits`), or, for an object that
    predates traits, by its ``pure`` attribute."""
    return bool(policy_traits(fn).get("pure", getattr(fn, "pure", False)))


def with_traits(fn, **traits):
    """Declare ``traits`` on the policy ``fn`` (``strategies.register`` does this for
    its keywords); returns ``fn``. Declaring a trait again with another value is a
    ValueError: one function is one policy."""
    old = dict(policy_traits(fn))
    for k, v in traits.items():
        if k in old and old[k] != v:
            raise ValueError(f"policy {getattr(fn, '__qualname__', fn)!r} already has trait {k}={old[k]!r}; "
                             f"got {k}={v!r}")
    old.update(traits)
    setattr(fn, _TRAITS, MappingProxyType(old))
    return fn


def _ours(fn) -> bool:
    """Is ``fn`` a built-in policy (an error in it is a bug of pvsim, not the user's)?"""
    module = getattr(fn, "__module__", None) or ""
    return module.split(".")[0] in ("strategies", "simcore")


def call_guarded(fn, obs: dict, rng, name: str, decision: str, seat: int, round: int = 0,
                 scalars: dict | None = None):
    """Call a strategy on ``obs`` so that nothing it does to its arrays reaches the game.

    Every array reaches the strategy as a read-only view through a read-only
    buffer, which numpy refuses to make writeable again (``flags.writeable =
    True`` raises inside the strategy). The arrays behind those views (and
    their bases, which a strategy could reach through ``.base``) are locked
    read-only for the call and must still be so afterwards; one made writeable
    is a :class:`StrategyError` naming the strategy. No array is copied, so a
    decision costs a few microseconds per array however large the block
    (writes through raw pointers, ctypes or the garbage collector are beyond
    what this guards). An exception inside a user's strategy becomes a
    StrategyError naming the strategy, decision, seat and round, with the
    original as its cause; one in a built-in policy is a bug and propagates
    unchanged.
    """
    shown = {}
    locked = []  # (array, writeable before, depth in its base chain)
    seen = set()
    for key, a in obs.items():
        if not isinstance(a, np.ndarray):
            shown[key] = a
            continue
        x, depth = a, 0
        while isinstance(x, np.ndarray) and id(x) not in seen:
            seen.add(id(x))
            w = x.flags.writeable
            if w:
                x.flags.writeable = False
            locked.append((x, w, depth))
            x, depth = x.base, depth + 1
        try:
            shown[key] = np.asarray(memoryview(a))
        except (TypeError, ValueError, NotImplementedError):  # a dtype the buffer protocol lacks
            shown[key] = a.copy()
            shown[key].flags.writeable = False
    shown.update(scalars or {})
    cheated = False
    try:
        answer = fn(shown, rng)
    except (StrategyError, StrategyInterrupt):
        raise
    except KeyboardInterrupt as e:
        if _ours(fn):
            raise
        raise StrategyInterrupt(f"strategy {name!r} for {decision} (seat {seat}, round {round}) raised "
                                f"KeyboardInterrupt") from e
    except Exception as e:
        if _ours(fn):
            raise
        hint = ""
        if "WRITEABLE" in str(e) or "read-only" in str(e):
            hint = " (observations are read-only: copy an array to change it)"
        raise StrategyError(f"strategy {name!r} for {decision} (seat {seat}, round {round}) raised "
                            f"{type(e).__name__}: {e}{hint}") from e
    finally:
        # Everything was read-only during the call: whatever is writeable now,
        # the strategy unlocked. One flag read per array (each costs ~0.2 us).
        unlock = []
        for t in locked:
            if t[0].flags.writeable:
                cheated = True
                t[0].flags.writeable = False
            if t[1]:
                unlock.append(t)
        if unlock:  # bases first: numpy lets a view be writeable only over a writeable base
            unlock.sort(key=lambda t: -t[2])
            for t in unlock:
                t[0].flags.writeable = True
    if cheated:
        raise StrategyError(f"strategy {name!r} for {decision} (seat {seat}, round {round}) made an "
                            f"observation writeable: strategies must not change what they are given "
                            f"(copy an array to change it)")
    return answer


@njit(cache=True, nogil=True)
def _first_illegal(actions, legal):
    """Index of the first action out of range or not legal in its row, else -1."""
    n, k = legal.shape
    for i in range(n):
        a = actions[i]
        if a < 0 or a >= k or not legal[i, a]:
            return i
    return -1


def _brief(x) -> str:
    """A short repr of what a strategy returned (a generator's repr is long enough)."""
    text = repr(x)
    return text if len(text) <= 60 else text[:57] + "..."


def check_actions(actions, legal: np.ndarray, name: str, decision: str) -> np.ndarray:
    """Validate a strategy's answer: (n,) integers, each legal in its row."""
    n, n_actions = legal.shape
    arr = np.asarray(actions)
    if arr.ndim == 0:  # None, a generator, a scalar: name what came back, not numpy's shape ()
        raise StrategyError(
            f"strategy {name!r} for {decision} returned {type(actions).__name__} {_brief(actions)}; "
            f"expected an array of {n} integer actions, one per deal"
        )
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
