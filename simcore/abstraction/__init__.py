"""Information abstractions: what a seat has seen, as a bucket id, per game and decision.

A best response (``simcore.exploit``) and a table policy (``strategies.table``)
both need the same thing: a map from the observation a strategy receives to a
small integer, the *bucket*, such that situations in one bucket are alike
enough to be played alike. Each game declares its abstractions per decision in
its own module (``simcore/abstraction/estonian.py``, ...), in three
granularities with declared bucket counts: ``coarse`` (a few thousand buckets
occur: a best response fits it from a few hundred thousand deals), ``medium``
(tens of thousands occur) and ``fine`` (as much as fits a table under 200 MB;
it needs many millions of deals). Each is a function of the next finer one,
except where a game says otherwise (Estonian's ``fine`` does not refine the
other two, which order the cards by a built-in policy's choice).

Every abstraction is

- computed from the observation alone (the dict a strategy gets, with
  ``seat``, ``n_players`` and ``round``), by a compiled kernel;
- suit-isomorphic: relabelling the suits of the whole observation gives the
  same bucket;
- action-aligned. Hand positions are dealt in random order, so a bucket that
  merges ``As Kd 7c`` with ``7c As Kd`` would mix up "pass card 1" with "pass
  card 3". :meth:`Abstraction.observe` therefore also gives each row's
  *canonical action order*: ``canon[i, a]`` is the canonical index of real
  action ``a`` (a permutation per row). Tables are indexed by (bucket,
  canonical action), and :func:`to_real` maps a canonical choice back.

>>> from simcore.variants import get_variant
>>> a = get_abstraction(get_variant("estonian"), "pass", 6, "coarse")
>>> a.game, a.decision, a.name, a.n_actions
('estonian', 'pass', 'coarse', 3)
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from numba import njit

from ._common import (ANSWERS, ask_policy, recall, remember, shared_answer, take_rows, with_answers,
                      without_answers)

GAMES = ("estonian", "slovak", "tapiola", "sviten", "russian")
NAMES = ("coarse", "medium", "fine")


@dataclass(frozen=True)
class Abstraction:
    """One decision's buckets at one granularity.

    ``kernel(obs, round) -> (buckets (n,) int64, canon (n, n_actions) int64)``
    does the work; ``version`` changes whenever the meaning of a bucket does,
    so that a table saved under another version is refused.
    """

    game: str
    decision: str
    name: str
    n_buckets: int
    n_actions: int
    description: str
    kernel: Callable = field(repr=False, compare=False)
    version: int = 1
    key: tuple = ()  # what else the buckets depend on (player count, options), for table files
    describer: Callable | None = field(default=None, repr=False, compare=False)
    # ``bucket_kernel(obs, round) -> buckets (n,) int64``: the same buckets without the canonical
    # order, where that order costs most of the work (a built-in policy's answer). A table
    # look-up then orders only the rows whose bucket holds an entry.
    bucket_kernel: Callable | None = field(default=None, repr=False, compare=False)
    # ``(finer name, f)``: this abstraction's buckets are ``f(finer buckets)`` with the finer one's
    # canonical order, so an observation the finer one has read (shared answers) is not read again;
    # ``(finer name, f, g)``: with the canonical order ``g(finer canonical order, obs)``.
    coarsens: tuple | None = field(default=None, repr=False, compare=False)
    # ``(finer name, f)``: this abstraction's buckets alone are ``f(finer buckets)`` (its canonical
    # order may differ), so :meth:`buckets` of an observation whose finer buckets were read (a chain
    # of tables, the finer first) maps them instead of reading the rows again.
    buckets_of: tuple | None = field(default=None, repr=False, compare=False)
    # True: a row's buckets and canonical order are a function of the game's seat view of that
    # row alone (``Variant.seat_view``), so a table over them may say the same of itself
    # (:func:`seat_view_kind`).
    seat_view: bool = field(default=False, compare=False)

    def _memo_key(self, name: str, r: int) -> tuple:
        # No version: in one process each (game, decision, name, key) is this pvsim's one meaning
        # (a table file of another version is refused), and a coarser abstraction finds the finer
        # one's answer under it whatever either's version (Slovak's exchange2: coarse 2, fine 1).
        return ("observe", self.game, self.decision, name, self.key, r)

    def observe(self, obs: dict, round: int | None = None):
        """``(buckets (n,) int64, canon (n, n_actions) int64)`` for one observation; read once per
        observation that carries shared answers (:func:`with_answers`), by this abstraction or by
        the finer one it coarsens. The arrays returned may be shared: read them, do not write."""
        r = int(obs.get("round", 0) if round is None else round)
        if ANSWERS not in obs or not _hashable(self.key):
            return self.kernel(obs, r)
        mine = self._memo_key(self.name, r)
        got = recall(obs, mine)
        if got is None and self.coarsens is not None:
            finer = recall(obs, self._memo_key(self.coarsens[0], r))
            if finer is not None:
                canon = finer[1] if len(self.coarsens) < 3 else self.coarsens[2](finer[1], obs)
                got = (self.coarsens[1](finer[0]), canon)
        if got is None:
            got = self.kernel(obs, r)
        remember(obs, mine, got)
        return got

    def buckets(self, obs: dict, round: int | None = None) -> np.ndarray:
        """The bucket id of each row, in ``[0, n_buckets)``; with a ``bucket_kernel``, read once per
        observation that carries shared answers (a chain of tables over the same buckets reads them
        once), or taken from :meth:`observe`'s answer where it was read already."""
        if self.bucket_kernel is None:
            return self.observe(obs, round)[0]
        r = int(obs.get("round", 0) if round is None else round)
        if ANSWERS not in obs or not _hashable(self.key):
            return self.bucket_kernel(obs, r)
        got = self._read_buckets(obs, self.name, r)
        if got is None:
            if self.buckets_of is not None:
                finer = self._read_buckets(obs, self.buckets_of[0], r)
                if finer is not None:
                    got = self.buckets_of[1](finer)
            if got is None:
                got = self.bucket_kernel(obs, r)
            remember(obs, self._memo_key(self.name + " buckets", r), got)
        return got

    def _read_buckets(self, obs: dict, name: str, r: int):
        """The buckets of abstraction ``name`` (of this game, decision and key) already read for
        ``obs``, alone or with the canonical order; None where neither was."""
        got = recall(obs, self._memo_key(name + " buckets", r))
        if got is None:
            whole = recall(obs, self._memo_key(name, r))
            got = whole[0] if whole is not None else None
        return got

    def observe_rows(self, obs: dict, rows: np.ndarray, round: int | None = None):
        """:meth:`observe` of the rows ``rows`` (an index array) alone: the same buckets and
        canonical order as those rows get in the whole observation (each row is its own).

        With shared answers, a row is read once per observation: the rows read so far are kept
        (the whole observation's answer, where :meth:`observe` has read it, serves them all), and
        a later call reads only the rows of its own that no earlier one did. A chain of tables over
        the same buckets (each reading the rows that hold an entry in its own table) so orders
        each row once, not once a table that holds it."""
        r = int(obs.get("round", 0) if round is None else round)
        if ANSWERS not in obs or not _hashable(self.key):
            return self.kernel(observation_rows(obs, rows, self.game, self.decision), r)
        whole = recall(obs, self._memo_key(self.name, r))
        if whole is not None:
            return whole[0][rows], take_rows(whole[1], rows)
        mine = self._memo_key(self.name + " rows", r)
        kept = recall(obs, mine)
        if kept is None:
            n = len(obs["legal"])
            kept = (np.zeros(n, np.int64), None, np.zeros(n, np.bool_))  # buckets, canon, read
        buckets, canon, read = kept
        todo = rows[~read[rows]]
        if len(todo):
            b, c = self.kernel(observation_rows(obs, todo, self.game, self.decision), r)
            if canon is None:
                canon = np.empty((len(read), c.shape[1]), c.dtype)
            buckets[todo], canon[todo], read[todo] = b, c, True
            remember(obs, mine, (buckets, canon, read))
        return buckets[rows], take_rows(canon, rows)

    def actions(self, obs: dict, round: int | None = None) -> np.ndarray:
        """``canon (n, n_actions) int64``: the canonical index of each real action."""
        return self.observe(obs, round)[1]

    def describe(self, bucket: int) -> str:
        """What bucket ``bucket`` says, in words (for reports); a ValueError outside the range."""
        b = int(bucket)
        if not 0 <= b < self.n_buckets:
            raise ValueError(f"bucket {bucket} is outside 0..{self.n_buckets - 1} ({self.game} {self.decision} "
                             f"{self.name})")
        if self.describer is None:
            return f"{self.decision} bucket {b}"
        return self.describer(b)

    def identity(self) -> dict:
        """What a table file records to refuse another abstraction."""
        return {"game": self.game, "decision": self.decision, "name": self.name,
                "n_buckets": int(self.n_buckets), "n_actions": int(self.n_actions),
                "version": int(self.version)}


def _hashable(x) -> bool:
    try:
        hash(x)
    except TypeError:
        return False
    return True


_ROW_KEYS: dict = {}


def observation_rows(obs: dict, rows: np.ndarray, game: str, decision: str) -> dict:
    """The observation of the deals ``rows`` alone: every array the game declares per deal
    (shape ``("n", ...)``) and ``legal``, indexed by ``rows``; the rest as it is."""
    keys = _ROW_KEYS.get((game, decision))
    if keys is None:
        from ..variants import get_variant

        keys = _ROW_KEYS[(game, decision)] = get_variant(game).decision(decision).row_keys
    rows = np.flatnonzero(rows) if rows.dtype == np.bool_ else rows
    return {k: (take_rows(a, rows) if k in keys and isinstance(a, np.ndarray) else a)
            for k, a in obs.items() if k != ANSWERS}


def ask_fallback(fn, obs: dict, rng, miss: np.ndarray, out: np.ndarray, pure: bool = False,
                 rows_of: tuple | None = None) -> None:
    """``out[miss]`` from a table's fallback ``fn`` (the rows its own entries leave). With
    ``rows_of`` ``(game, decision)``, for a fallback that declares the trait ``rowwise`` (each row
    its own, nothing drawn), it is asked for those rows alone when some rows hit; otherwise it is
    asked for the whole observation through :func:`ask_policy` (``pure``: answered once)."""
    # one count for "any" and "all", and a masked copy in place of two boolean indexings (a chain of
    # five tables asks this at every level: 60 -> 25 us a call of 14,000 rows)
    n_lost = np.count_nonzero(miss)
    if not n_lost:
        return
    if rows_of and n_lost < len(miss):
        lost = np.flatnonzero(miss)
        out[lost] = np.asarray(fn(observation_rows(obs, lost, *rows_of), rng), dtype=np.int64)
        return
    np.copyto(out, ask_policy(fn, obs, rng, pure), where=miss)


def rows_of(fn, game: str | None, decision: str | None) -> tuple | None:
    """:func:`ask_fallback`'s ``rows_of`` for fallback ``fn``: ``(game, decision)`` where ``fn``
    declares ``rowwise`` (and the game and decision are known), else None."""
    from ..engine.variant import policy_traits

    rowwise = bool(policy_traits(fn).get("rowwise", False))
    return (game, decision) if rowwise and game is not None and decision is not None else None


def seat_view_kind(fn, n_players: int) -> str | None:
    """How policy ``fn`` answers a row from the game's seat view of it (``Variant.seat_view``):

    - ``"pure"``: each row's action is a function of that row's view alone, nothing is drawn
      (the trait ``seat_view``; a pure table over a ``seat_view`` abstraction whose fallback is so);
    - ``"uniform"``: a function of that row's view and of its uniforms, where the policy draws from
      its stream only ``rng.random(n)`` (one uniform a row of the call) and the draws of a call on
      some of the rows are the first draws of the call on all of them (a mixed table: one draw,
      then its fallback's, asked only where rows are left);
    - None: neither is known.

    An object says so itself with a method ``seat_view_kind(n_players)``."""
    from ..engine.variant import policy_traits

    kind = getattr(fn, "seat_view_kind", None)
    if kind is not None:
        return kind(n_players)
    return "pure" if policy_traits(fn).get("seat_view", False) else None


def table_view_kind(abstraction, mixed: bool, fallback, n_players: int) -> str | None:
    """:func:`seat_view_kind` of a table over ``abstraction`` (``mixed``: it draws one uniform a row,
    every call) that plays ``fallback`` where its entries leave rows."""
    if not getattr(abstraction, "seat_view", False):
        return None
    inner = seat_view_kind(fallback, n_players)
    if inner is None:
        return None
    return "uniform" if mixed or inner == "uniform" else "pure"


def to_real(canon: np.ndarray, k: np.ndarray) -> np.ndarray:
    """The real action of each row whose canonical index is ``k[i]``.

    >>> to_real(np.array([[2, 0, 1]]), np.array([0]))
    array([1])
    """
    k = np.asarray(k, dtype=np.int64)
    return np.argmax(canon == k[:, None], axis=1).astype(np.int64)


def identity_canon(n: int, n_actions: int) -> np.ndarray:
    """The canonical order of a decision whose actions carry no position."""
    return np.broadcast_to(np.arange(n_actions, dtype=np.int64), (n, n_actions))


NO_START = np.zeros(0)  # draw_mixed's "no start share"
SKIP_EMPTY = True  # False: draw_mixed reads every row's bucket, as before the 18th session (a benchmark's peer)


def entry_bits(has_entry: np.ndarray) -> np.ndarray:
    """draw_mixed's ``entry``: one bit a bucket from ``has_entry`` (n_buckets,) bool, True where
    the bucket's row of probabilities holds mass (``probs.any(axis=1)``)."""
    return np.packbits(np.asarray(has_entry, dtype=np.bool_), bitorder="little")


def entries(bits: np.ndarray) -> np.ndarray:
    """``bits`` as draw_mixed should read them: every bit set where :data:`SKIP_EMPTY` is off."""
    return bits if SKIP_EMPTY else np.full_like(bits, 0xFF)


@njit(cache=True, nogil=True)
def draw_mixed(buckets, canon, probs, legal, u, out, miss, start, entry):
    """A mixed table's draw: row i takes a legal real action with the probability its bucket
    gives the action's canonical index (``probs[bucket, canon[i, a]]``, renormalised over the
    legal ones), using the uniform ``u[i]``; ``out[i]`` is -1 and ``miss[i]`` True where the
    bucket has no legal mass. ``start`` (empty, or one share a bucket): the share of the bucket
    that plays the table's starting policy (``miss``) instead: ``u[i]`` below it; above it, the
    rest of ``u[i]``'s range draws the action (an empty ``start`` draws as a share of 0).

    ``entry`` (:func:`entry_bits`: bit ``b & 7`` of byte ``b >> 3``) is clear where the bucket's
    row of ``probs`` is all zero: such a row misses without reading ``probs`` or ``start``. The
    draw is the same; it is faster because solved tables are sparse (a few percent of the buckets
    hold mass) and far larger than the cache (77 MB for Slovak's fine exchange), while ``entry``
    is a bit a bucket (400 KB)."""
    n, na = canon.shape
    has_start = start.shape[0] > 0
    for i in range(n):
        b = buckets[i]
        if not (entry[b >> 3] >> (b & 7)) & 1:
            out[i] = -1
            miss[i] = True
            continue
        w = u[i]
        if has_start:
            s = start[b]
            if s > 0.0:
                if w < s or s >= 1.0:
                    out[i] = -1
                    miss[i] = True
                    continue
                w = (w - s) / (1.0 - s)
        total = 0.0
        for a in range(na):
            if legal[i, a]:
                total += probs[b, canon[i, a]]
        out[i] = -1
        if total > 0.0:
            x = w * total
            acc = 0.0
            for a in range(na):
                if legal[i, a]:
                    p = probs[b, canon[i, a]]
                    if p > 0.0:
                        out[i] = a
                        acc += p
                        if x < acc:
                            break
        miss[i] = out[i] < 0


def _module(game: str):
    if game not in GAMES:
        raise ValueError(f"no abstractions for game {game!r}; games with abstractions: {', '.join(GAMES)}")
    return importlib.import_module(f"{__name__}.{game}")


def abstractions(variant, decision: str, n_players: int) -> dict[str, Abstraction]:
    """Every granularity of ``variant``'s ``decision`` at ``n_players``, by name."""
    from ..variants import get_variant

    v = get_variant(variant)
    v.decision(decision)  # raises with the decisions' names
    v.check_players(n_players)
    return _module(v.name).abstractions(v, decision, int(n_players))


def _spec(name: str) -> dict:
    spec = {}
    for part in name.split(","):
        d, eq, g = (x.strip() for x in part.partition("="))
        if not eq or not d or not g:
            raise ValueError(f"abstraction {name!r}: {part!r} is not DECISION=GRANULARITY")
        if d in spec:
            raise ValueError(f"abstraction {name!r} names decision {d!r} twice")
        spec[d] = g
    return spec


def _pick(name: str, spec: dict, decision: str) -> str:
    if decision not in spec:
        raise ValueError(f"abstraction {name!r} gives no granularity for {decision!r}: name every decision "
                         f"(DECISION=GRANULARITY, comma-separated)")
    return spec[decision]


def granularity(name: str, decision: str) -> str:
    """The granularity ``name`` gives ``decision``: ``name`` itself ("coarse"), or that decision's
    entry of a per-decision spec ("exchange1=fine,exchange2=coarse"; every decision named once)."""
    name = str(name)
    return _pick(name, _spec(name), decision) if "=" in name else name


def get_abstraction(variant, decision: str, n_players: int, name: str = "fine") -> Abstraction:
    """One granularity; an unknown ``name`` is a ValueError listing the valid ones. ``name`` may give
    each decision its own ("exchange1=fine,exchange2=coarse": :func:`granularity`); a table file or a
    checkpoint then records that spec."""
    if "=" in str(name):
        from ..variants import get_variant

        v, spec = get_variant(variant), _spec(str(name))
        unknown = sorted(set(spec) - {d.name for d in v.decisions})
        if unknown:
            raise ValueError(f"abstraction {name!r} names {', '.join(map(repr, unknown))}, not a decision of "
                             f"{v.name} (its decisions: {', '.join(d.name for d in v.decisions)})")
        name = _pick(str(name), spec, decision)
    found = abstractions(variant, decision, n_players)
    if name not in found:
        raise ValueError(f"unknown abstraction {name!r} for {decision}; choose from {', '.join(found)}")
    return found[name]


__all__ = ["Abstraction", "abstractions", "get_abstraction", "granularity", "to_real", "identity_canon", "draw_mixed",
           "NO_START", "SKIP_EMPTY", "entry_bits", "entries", "GAMES",
           "NAMES", "observation_rows", "with_answers", "without_answers", "shared_answer", "ask_policy", "recall",
           "remember", "seat_view_kind", "table_view_kind"]
