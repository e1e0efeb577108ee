"""Table policies: a stored action (or a probability per action) for every bucket.

A table file (``.npz``) holds, per decision, an array indexed by the bucket of
an information abstraction (:mod:`simcore.abstraction`) and the *canonical*
action (see :meth:`~simcore.abstraction.Abstraction.observe`):

- ``(n_buckets,)`` int64: one canonical action per bucket, ``-1`` for "no
  entry" (a pure table);
- ``(n_buckets, n_actions)`` float64: a probability per canonical action, each
  row summing to 1, or all zeros for "no entry" (a mixed table). A mixed table
  may also hold a *start share* per bucket (``start_<decision>``, format version
  2): the probability that the bucket plays the fallback itself, which may read
  more than the bucket does; the row's probabilities then sum to 1 less it (a
  fictitious-play average that started from a heuristic holds it exactly).

Its JSON header names the game, the rule options, the player count, the
decisions, the abstraction (name, bucket count, version per decision), the
format version, the policy that plays where the table has no entry (its
``fallback``; the game's default policy when none is named), and free-form
``meta`` (who made it, seeds, gains). A fallback ``table:FILE`` with a
relative path is read beside the file naming it when it is there (as
:func:`save_bundled` writes it), else from the working directory.

In a policy spec, ``table:FILE`` plays the file: ``--hero table:br.npz`` for
every decision the file holds (the others keep their defaults), or
``pass=table:br.npz`` for one. Loading a file into another game, player
count, rule options or abstraction is a ValueError that says which.

A table policy looks up a whole block at once: one compiled kernel computes
the buckets and canonical order, one more maps the stored actions back to
hand positions and checks them against ``legal``; rows without an entry, or
whose stored action is illegal there, play the fallback. A mixed table draws
from the seat's own random stream, so runs are reproducible; a pure table with
a pure fallback declares the ``pure`` trait.

>>> import os, tempfile
>>> import numpy as np
>>> from simcore.abstraction import get_abstraction
>>> a = get_abstraction("estonian", "pass", 6, "coarse")
>>> path = os.path.join(tempfile.mkdtemp(), "t.npz")
>>> save_table(path, game="estonian", options={}, n_players=6, abstraction="coarse",
...            tables={"pass": np.full(a.n_buckets, 2, np.int64)})
>>> load_table(path).decisions
('pass',)
"""
from __future__ import annotations

import io
import json
import os
import weakref
import zipfile
from collections import OrderedDict

import numpy as np
from numba import njit

try:  # the one accessor for policy traits (pure, ...)
    from simcore.engine.variant import is_pure, with_traits
except ImportError:  # a pvsim from before traits were declared: the attribute alone
    def is_pure(fn):
        return bool(getattr(fn, "pure", False))

    def with_traits(fn, **traits):
        return fn

from simcore.abstraction import (NO_START, ask_fallback, draw_mixed, entries, entry_bits, rows_of, table_view_kind,
                                 with_answers)
from simcore.engine.checkpoint import write_atomic

from .registry import default_policy, parse_spec, register_generic, resolve

FORMAT = "pvsim-table"
FORMAT_VERSION = 2  # written when a decision holds a start share; version 1 files (none) read as before
READ_VERSIONS = (1, 2)


def _variant(game, options):
    from simcore.variants import get_variant

    return get_variant(game, **(options or {}))


def _fallback_specs(v, fallback) -> dict:
    if fallback is None:
        return {}
    if isinstance(fallback, dict):
        return {str(d): str(p) for d, p in fallback.items()}
    return parse_spec(v, fallback)


def save_table(path, *, game: str, options: dict, n_players: int, abstraction: str, tables: dict,
               meta: dict | None = None, fallback=None, starts: dict | None = None) -> None:
    """Write a table file (see the module docstring); every part is checked first.

    ``tables`` maps decision names to arrays; ``fallback`` is a policy spec (or
    {decision: spec}) for the rows without an entry (default: the game's
    default policies); ``meta`` is any JSON-serialisable dict; ``starts`` maps
    decisions of mixed tables to their start shares ((n_buckets,) in [0, 1]).
    """
    from simcore.abstraction import get_abstraction

    v = _variant(game, options)
    P = int(n_players)
    v.check_players(P)
    if not tables:
        raise ValueError("save_table: no decisions in tables")
    fb = _fallback_specs(v, fallback)
    decisions, arrays = {}, {}
    for d, arr in tables.items():
        a = get_abstraction(v, d, P, abstraction)
        arr = np.asarray(arr)
        _check_array(arr, a, d, with_start=(starts or {}).get(d) is not None)
        decisions[d] = {"kind": "pure" if arr.ndim == 1 else "mixed", "abstraction": a.identity()}
        arrays[f"table_{d}"] = arr.astype(np.int64 if arr.ndim == 1 else np.float64)
    for d, st in (starts or {}).items():
        if d not in decisions or decisions[d]["kind"] != "mixed":
            raise ValueError(f"save_table: a start share needs a mixed table, and {d} has none")
        st = np.asarray(st, dtype=np.float64)
        _check_start(st, np.asarray(tables[d]), d)
        if st.any():
            decisions[d]["start"] = True
            arrays[f"start_{d}"] = st
    has_start = any(info.get("start") for info in decisions.values())
    header = {
        "format": FORMAT, "version": FORMAT_VERSION if has_start else 1, "game": v.name, "options": dict(v.opts),
        "n_players": P, "abstraction": abstraction, "decisions": decisions,
        "fallback": {d: fb[d] for d in decisions if d in fb}, "meta": meta or {},
    }
    text = json.dumps(header, default=_json_default)
    buf = io.BytesIO()
    np.savez_compressed(buf, header=np.array(text), **arrays)
    write_atomic(path, [buf.getvalue()])  # a run killed mid-save leaves the old file whole, not half a new one


def _json_default(x):
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return x.tolist()
    raise TypeError(f"table meta: {type(x).__name__} is not JSON-serialisable")


def _check_array(arr, a, decision, with_start=False):
    nb, na = a.n_buckets, a.n_actions
    if arr.ndim == 1:
        if arr.shape != (nb,) or not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(f"table for {decision}: a pure table is ({nb},) integers (one canonical action "
                             f"per bucket of {a.name!r}), got {arr.shape} {arr.dtype}")
        bad = (arr < -1) | (arr >= na)
        if bad.any():
            i = int(np.argmax(bad))
            raise ValueError(f"table for {decision}: bucket {i} holds action {int(arr[i])}; actions are "
                             f"0..{na - 1}, or -1 for no entry")
    elif arr.ndim == 2:
        if arr.shape != (nb, na) or not np.issubdtype(arr.dtype, np.floating):
            raise ValueError(f"table for {decision}: a mixed table is ({nb}, {na}) floats (a probability per "
                             f"canonical action), got {arr.shape} {arr.dtype}")
        if not np.isfinite(arr).all() or (arr < 0).any():
            raise ValueError(f"table for {decision}: probabilities must be finite and non-negative")
        if with_start:
            return  # the rows' sums with their start shares: _check_start
        s = arr.sum(axis=1)
        bad = (s != 0) & (np.abs(s - 1) > 1e-9)
        if bad.any():
            i = int(np.argmax(bad))
            raise ValueError(f"table for {decision}: bucket {i}'s probabilities sum to {s[i]:.6g}; each row "
                             "sums to 1 (or is all zeros: no entry)")
    else:
        raise ValueError(f"table for {decision}: one action per bucket (1-D) or a probability per action "
                         f"(2-D), got {arr.ndim} dimensions")


def _check_start(st, arr, decision):
    if st.shape != (arr.shape[0],) or not np.isfinite(st).all() or (st < 0).any() or (st > 1).any():
        raise ValueError(f"table for {decision}: a start share is one number in [0, 1] per bucket "
                         f"({arr.shape[0]}), got shape {st.shape}")
    s = arr.sum(axis=1) + st
    bad = (s != 0) & (np.abs(s - 1) > 1e-9)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"table for {decision}: bucket {i}'s probabilities and start share sum to {s[i]:.6g}; "
                         "each row sums to 1 (or is all zeros: no entry)")


class TableFile:
    """A loaded, checked table file. :meth:`strategy` turns one decision into a policy."""

    def __init__(self, path, header: dict, arrays: dict, starts: dict | None = None):
        self.path = os.fspath(path)
        self.header = header
        self.arrays = arrays
        self.starts = dict(starts or {})  # {decision: (n_buckets,) start share}, mixed tables only
        self.policies = {}  # (variant label, decision) -> the one policy ``table:FILE`` plays: see make_table_policy

    game = property(lambda self: self.header["game"])
    options = property(lambda self: dict(self.header["options"]))
    n_players = property(lambda self: int(self.header["n_players"]))
    abstraction = property(lambda self: self.header["abstraction"])
    meta = property(lambda self: dict(self.header.get("meta", {})))
    decisions = property(lambda self: tuple(self.header["decisions"]))

    def mixed(self, decision: str) -> bool:
        return self.header["decisions"][decision]["kind"] == "mixed"

    def check(self, variant, n_players=None, decision=None) -> None:
        """ValueError unless the file fits ``variant`` (game, options), ``n_players`` and ``decision``."""
        where = f"table file {self.path!r}"
        if variant.name != self.game:
            raise ValueError(f"{where} was made for {self.game}, not {variant.name}")
        if dict(variant.opts) != self.options:
            diff = {k: (self.options.get(k), variant.opts.get(k))
                    for k in set(self.options) | set(variant.opts) if self.options.get(k) != variant.opts.get(k)}
            text = ", ".join(f"{k}={a!r} in the file, {b!r} here" for k, (a, b) in sorted(diff.items()))
            raise ValueError(f"{where} was made for other rule options: {text}")
        if n_players is not None and int(n_players) != self.n_players:
            raise ValueError(f"{where} was made for {self.n_players} players, not {int(n_players)}")
        if decision is not None and decision not in self.header["decisions"]:
            raise ValueError(f"{where} holds no table for {decision}; it holds {', '.join(self.decisions)}")

    def abstraction_for(self, variant, decision, n_players):
        """The abstraction the file was made with, checked against what this pvsim declares."""
        from simcore.abstraction import get_abstraction

        self.check(variant, n_players, decision)
        a = get_abstraction(variant, decision, n_players, self.abstraction)
        saved = self.header["decisions"][decision]["abstraction"]
        if a.identity() != saved:
            diff = ", ".join(f"{k} {saved.get(k)!r} in the file, {x!r} here"
                             for k, x in a.identity().items() if saved.get(k) != x)
            raise ValueError(f"table file {self.path!r}: its {decision} abstraction {self.abstraction!r} is not "
                             f"this pvsim's ({diff})")
        return a

    def save(self, path, meta: dict | None = None, fallback: dict | None = None) -> None:
        """Write this table to ``path`` (the same arrays, start shares and fallback), with ``meta`` in
        place of its own metadata, and ``fallback`` ({decision: spec}) in place of its fallback, when
        given. Written to another directory, a fallback table read beside this file is named by its
        full path, so the copy plays the same."""
        if fallback is None:
            fallback = self.header.get("fallback") or None
            here = os.path.dirname(os.path.abspath(self.path))
            if fallback and os.path.dirname(os.path.abspath(os.fspath(path))) != here:
                # elsewhere, a fallback file read beside this one is named by its full path
                fallback = {d: self.fallback_spec(d) for d in fallback}
        save_table(path, game=self.game, options=self.options, n_players=self.n_players,
                   abstraction=self.abstraction, tables={d: self.arrays[d] for d in self.decisions},
                   fallback=fallback, meta=self.meta if meta is None else meta, starts=self.starts)

    def fallback_spec(self, decision: str) -> str | None:
        """The file's fallback for ``decision``, a ``table:`` path anchored (:func:`anchored`)."""
        spec = (self.header.get("fallback") or {}).get(decision)
        return None if spec is None else anchored(spec, os.path.dirname(os.path.abspath(self.path)))

    def strategy(self, variant, decision: str, n_players: int | None = None, fallback=None):
        """The policy playing this file's ``decision`` in ``variant``.

        ``fallback`` is a resolved strategy function for rows without an entry;
        None: the file's fallback spec, else the game's default policy. With
        ``n_players`` None, the player count is checked on the first call.
        """
        self.check(variant, n_players, decision)
        if n_players is not None:
            self.abstraction_for(variant, decision, n_players)
        return TablePolicy(self, variant, decision, fallback)


def anchored(spec: str, base: str) -> str:
    """``spec`` with a relative ``table:FILE`` read from ``base`` (the directory of the file naming it)
    when the file is there; any other spec, or a file not there, unchanged (the working directory)."""
    if not spec.startswith("table:"):
        return spec
    path = spec[len("table:"):]
    if os.path.isabs(path):
        return spec
    beside = os.path.join(base, path)
    return f"table:{beside}" if os.path.exists(beside) else spec


def save_bundled(tf: "TableFile", path, meta: dict | None = None) -> list[str]:
    """Write ``tf`` to ``path`` with every table its fallback plays copied beside it, in ``starts/``
    next to ``path`` (and theirs, recursively), each fallback naming its copy by a path relative to
    the file that names it. The file then plays the same from any working directory, or once
    installed: a table refined from another (``pvsim solve --init table:FILE``) plays that file in
    every row it left to its start. Returns the files written, ``path`` first."""
    path = os.fspath(path)
    root = os.path.dirname(os.path.abspath(path))
    starts = os.path.join(root, "starts")
    stem = os.path.splitext(os.path.basename(path))[0]
    copies = {}  # the source of each start -> its copy

    def rewired(t: TableFile, where: str) -> dict | None:
        fb = dict(t.header.get("fallback") or {})
        for d in list(fb):
            spec = t.fallback_spec(d)
            if not spec.startswith("table:"):
                continue
            src = os.path.abspath(spec[len("table:"):])
            if src not in copies:
                inner = load_table(src)
                dest = copies[src] = os.path.join(starts, f"{stem}.start{len(copies) + 1}.npz")
                os.makedirs(starts, exist_ok=True)
                inner_fb = rewired(inner, starts)
                inner.save(dest, fallback=inner_fb)
            fb[d] = "table:" + os.path.relpath(copies[src], where)
        return fb or None

    fb = rewired(tf, root)
    tf.save(path, meta=meta, fallback=fb)
    if os.path.isdir(starts):  # copies an earlier bundle of this name left and this one does not use
        for f in os.listdir(starts):
            old = os.path.join(starts, f)
            if f.startswith(f"{stem}.start") and f.endswith(".npz") and old not in copies.values():
                os.remove(old)
    return [path, *copies.values()]


def load_table(path) -> TableFile:
    """Read and check a table file; a clear ValueError names what is wrong."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise ValueError(f"table file {path!r} does not exist")
    if os.path.isfile(path) and not zipfile.is_zipfile(path):  # numpy would call it pickled data
        raise ValueError(f"table file {path!r} is not a pvsim table: it is not an .npz archive")
    try:
        with np.load(path, allow_pickle=False) as z:
            files = dict((k, z[k]) for k in z.files)
    except Exception as e:  # noqa: BLE001 - any unreadable file gets the same message
        raise ValueError(f"table file {path!r} is not a pvsim table (.npz): {e}") from None
    if "header" not in files:
        raise ValueError(f"table file {path!r} has no header; it was not written by save_table")
    try:
        header = json.loads(str(files.pop("header")))
    except ValueError as e:
        raise ValueError(f"table file {path!r}: its header is not JSON ({e})") from None
    if header.get("format") != FORMAT:
        raise ValueError(f"table file {path!r} is not a pvsim table (format {header.get('format')!r})")
    if header.get("version") not in READ_VERSIONS:
        raise ValueError(f"table file {path!r} has format version {header.get('version')!r}; this pvsim "
                         f"reads versions {', '.join(map(str, READ_VERSIONS))}")
    arrays, starts = {}, {}
    for d, info in header["decisions"].items():
        arr = files.get(f"table_{d}")
        if arr is None:
            raise ValueError(f"table file {path!r} names decision {d} but holds no table for it")
        ident = info["abstraction"]
        want = (ident["n_buckets"],) if info["kind"] == "pure" else (ident["n_buckets"], ident["n_actions"])
        if arr.shape != want:
            raise ValueError(f"table file {path!r}: the {d} table has shape {arr.shape}, its header says {want}")
        arrays[d] = arr
        if info.get("start"):
            st = files.get(f"start_{d}")
            if st is None or info["kind"] != "mixed":
                raise ValueError(f"table file {path!r}: the {d} table names a start share but holds none")
            try:
                _check_start(st, arr, d)
            except ValueError as e:
                raise ValueError(f"table file {path!r}: {e}") from None
            starts[d] = st
    return TableFile(path, header, arrays, starts)


# -- the policy --------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _lookup_pure(buckets, canon, table, legal, out, miss):
    n, na = canon.shape
    for i in range(n):
        k = table[buckets[i]]
        out[i] = -1
        if k >= 0:
            for a in range(na):
                if canon[i, a] == k:
                    if legal[i, a]:
                        out[i] = a
                    break
        miss[i] = out[i] < 0


class TablePolicy:
    """One decision of a table file as a strategy ``(obs, rng) -> actions``. It shares the answers
    its buckets and fallbacks compute from one observation (``simcore.abstraction.with_answers``):
    a chain of tables over one built-in asks the built-in once."""

    shares_answers = True

    def __init__(self, tf: TableFile, variant, decision: str, fallback=None):
        self.file, self.variant, self.decision = tf, variant, decision
        self.mixed = tf.mixed(decision)
        arr = tf.arrays[decision]
        self.table = arr if self.mixed else arr.astype(np.int16 if arr.max(initial=0) > 127 else np.int8)
        self.start = tf.starts.get(decision, NO_START)
        # buckets with an entry (a start share of 1 plays the fallback, as no entry does)
        self._entry = self.table.any(axis=1) if self.mixed else self.table >= 0
        self._entry_bits = entry_bits(self._entry) if self.mixed else None
        self._abstractions = {}
        if fallback is None:
            spec = tf.fallback_spec(decision) or default_policy(variant.name, decision)
            fallback = resolve(variant, decision, spec)[1]
            self.fallback_spec = spec
        else:
            self.fallback_spec = None
        self.fallback = fallback
        self._fallback_pure = is_pure(fallback)
        # a fallback whose rows are their own (trait ``rowwise``) is asked for the rows that miss
        self._fallback_rows = rows_of(fallback, variant.name, decision)
        pure = not self.mixed and self._fallback_pure
        self.pure = pure
        if pure:
            with_traits(self, pure=True)

    def seat_view_kind(self, n_players: int) -> str | None:
        """``simcore.abstraction.seat_view_kind`` of this table: a mixed one draws one uniform a row."""
        return table_view_kind(self._abstraction(n_players), self.mixed, self.fallback, n_players)

    def check_players(self, n_players: int):
        """Refuse another player count (a lineup calls this as soon as it knows the table size)."""
        return self._abstraction(n_players)

    def _abstraction(self, n_players):
        a = self._abstractions.get(n_players)
        if a is None:
            a = self._abstractions[n_players] = self.file.abstraction_for(self.variant, self.decision, n_players)
        return a

    def __call__(self, obs, rng):
        obs = with_answers(obs)
        a = self._abstraction(int(obs["n_players"]))
        legal = np.ascontiguousarray(obs["legal"], dtype=np.bool_)
        n = legal.shape[0]
        u = rng.random(n) if self.mixed else None
        if a.bucket_kernel is not None:
            # The buckets alone are cheap: the canonical order only for the rows with an entry.
            buckets = a.buckets(obs)
            rows = np.flatnonzero(self._entry[buckets])
            out = np.full(n, -1, np.int64)
            miss = np.ones(n, np.bool_)
            if len(rows):
                sub_b, canon = a.observe_rows(obs, rows)
                self._lookup(sub_b, np.ascontiguousarray(canon, dtype=np.int64), legal[rows],
                             u[rows] if self.mixed else None, out, miss, rows)
        else:
            buckets, canon = a.observe(obs)
            out = np.empty(n, np.int64)
            miss = np.empty(n, np.bool_)
            self._lookup(buckets, np.ascontiguousarray(canon, dtype=np.int64), legal, u, out, miss)
        ask_fallback(self.fallback, obs, rng, miss, out, self._fallback_pure, self._fallback_rows)
        return out

    def _lookup(self, buckets, canon, legal, u, out, miss, rows=None):
        m = legal.shape[0]
        o = out if rows is None else np.empty(m, np.int64)
        x = miss if rows is None else np.empty(m, np.bool_)
        if self.mixed:
            draw_mixed(buckets, canon, self.table, legal, u, o, x, self.start, entries(self._entry_bits))
        else:
            _lookup_pure(buckets, canon, self.table, legal, o, x)
        if rows is not None:
            out[rows] = o
            miss[rows] = x

    def __repr__(self):
        return f"TablePolicy({self.file.path!r}, {self.decision})"

    def __reduce__(self):
        # Worker processes rebuild the policy from its data (the file need not exist there).
        return (_rebuild, (self.file.path, self.file.header, {self.decision: self.file.arrays[self.decision]},
                           type(self.variant).__module__, self.variant.name, dict(self.variant.opts),
                           self.decision, self.fallback_spec,
                           {k: v for k, v in self.file.starts.items() if k == self.decision}))


def _rebuild(path, header, arrays, module, name, opts, decision, fallback_spec, starts=None):
    import importlib

    from simcore.variants import get_variant

    importlib.import_module(module)
    v = get_variant(name, **opts)
    tf = TableFile(path, header, arrays, starts)
    fb = resolve(v, decision, fallback_spec)[1] if fallback_spec is not None else None
    return TablePolicy(tf, v, decision, fb)


# -- the spec ``table:FILE`` -------------------------------------------------------------

def file_version(path) -> tuple[str, int, int]:
    """``(absolute path, mtime_ns, size)``: one version of one file on disk, the key under which
    loaded tables (here and in ``strategies.solved``) and their digests (``experiments.seats``) are
    kept, so a file rewritten in place is read again. Raises OSError if ``path`` cannot be stat'ed."""
    full = os.path.abspath(os.fspath(path))
    st = os.stat(full)
    return full, st.st_mtime_ns, st.st_size


_ALIVE = weakref.WeakValueDictionary()  # file_version -> TableFile: every file still in use
_FILES = OrderedDict()  # the few used last, held even when no policy plays them
_KEEP_FILES = 4


def _load_cached(path):
    """``(key, TableFile)``: a file is read again only when it changed on disk.

    The few files used last stay loaded; beyond them, a file stays found as long as a policy
    still plays it. A chain of tables longer than the few (``table:A`` falling back to ``table:B``
    to ...) is then read once, and each of its files is one object with one policy per decision,
    so the seats of a field share answers; a file read again would double the memory of each
    seat's chain and lose that sharing (a 5-file chain over 6 seats: 7x the time, 7x the memory).
    """
    try:
        key = file_version(path)
    except OSError:
        raise ValueError(f"table file {os.fspath(path)!r} does not exist") from None
    tf = _ALIVE.get(key)
    if tf is None:
        tf = _ALIVE[key] = load_table(path)
    _FILES[key] = tf
    _FILES.move_to_end(key)
    while len(_FILES) > _KEEP_FILES:  # tables can be large: keep a few beyond those in use
        _FILES.popitem(last=False)
    return key, tf


def make_table_policy(variant, decision: str, *parts):
    """``table:FILE``: the policy for ``decision`` from the table file FILE. One object per file,
    variant and decision, so that tables of a paired run that ask it the same thing share answers."""
    if not parts:
        raise ValueError("table: name the table file (table:FILE)")
    path = ":".join(parts)
    _, tf = _load_cached(path)
    tf.check(variant, None, decision)
    pkey = (variant.label, decision)
    pol = tf.policies.get(pkey)
    if pol is None:
        pol = tf.policies[pkey] = tf.strategy(variant, decision)
    return pol


def file_decisions(variant, spec: str) -> tuple:
    """The decisions a bare ``table:FILE`` spec covers: those the file holds."""
    tf = _load_cached(spec.partition(":")[2])[1]
    tf.check(variant)
    return tf.decisions


register_generic("table", "play a table file (table:FILE): a stored action per information bucket",
                 make_table_policy)
