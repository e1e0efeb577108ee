"""A public conformance check for games: :func:`check_variant`.

In the spirit of scikit-learn's ``check_estimator``: hand it a game (a
:class:`~simcore.engine.Variant` subclass or instance) and it plays the game
the way the engine will, checking every promise of the contract
(``docs/architecture.md``). The first broken promise raises
:class:`ContractError`, whose message names the game, the promise and what
was seen instead::

    from simcore.testing import check_variant
    check_variant(MyGame)        # every rule option's values too
    check_variant(MyGame(bonus=3))

The promises, in the order they are checked:

``declaration``
    the attributes agree with each other (decisions, hands, parts, players,
    the slot layout), ``setup`` of a situation without cards fixes none, the
    analysis hooks answer for it, and ``hidden_slots`` is a non-empty list of
    distinct slots (a check of hiding that hides nothing proves nothing).
``play``
    random legal play never fails; shapes and dtypes are the Outcome's; a
    deal's payoffs add up to ``payoff_total``, deal by deal; at most one
    outright winner, who excludes ties, and nobody ties alone; every decision
    of every seat is taken, in every round, with a legal action.
``observations``
    what a strategy is shown is exactly each decision's declared fields
    (:class:`~simcore.engine.Obs`: key, dtype, shape) plus ``legal`` and the
    scalars, read-only; a card field holds cards 0..51 or -1.
``forced``
    forced actions are played: the actions of one random play, forced on the
    same cards under other strategies (every policy the game registered, so
    fast paths are covered), on every deal or every other one, give those
    actions and that outcome exactly.
``alternatives``
    ``play_alternatives`` gives each table exactly what it gives played
    alone (tables that differ in strategies and forced actions, as a
    comparison or a rollout plays them).
``hiding``
    dealing anew the slots ``hidden_slots`` names changes nothing a seat is
    shown (the message names the slot that leaks).
``rollout``
    ``situation`` rebuilds what the deciding seat saw: dealing the rest anew
    and replaying shows it the same observation (``NoRollout`` is allowed).
``threads``
    1 and 2 threads give identical simulate, compare and analyze numbers.
``blocks``
    a run's numbers are those of ``play_block`` on ``block_seeds``' streams.
``stateless``
    the instance holds after the checks exactly what it held before: a game
    keeps no state after ``configure`` (one instance serves every thread).
``seat_view``
    for a game that declares a seat view (``Variant.seat_view``, which a best
    response's fit trusts to reuse answers row by row): the view is an
    (n, w) int64 array, row by row (the view of some rows of an observation
    is those rows of its view); and every policy the game registered with the
    trait ``seat_view`` answers some rows as it answers them in the whole
    observation, draws nothing, and gives rows with equal views (same seat,
    round and table size) equal answers across every observation of a
    random play. That a policy reads nothing else is checked only where rows
    share a view; a game should also change what its view leaves out and
    compare (Russian's ``tests/test_seat_view.py`` does).
"""
from __future__ import annotations

import itertools
import pickle
import threading

import numpy as np

from .engine import NoRollout, Situation, Variant, deal_block, play_block, play_tables, seat_streams
from .engine.deal import block_seeds, deal
from .engine.variant import Table, policy_traits

CHECKS = ("declaration", "play", "observations", "forced", "alternatives", "hiding", "rollout", "threads", "blocks",
          "stateless", "seat_view")
SCALARS = {"seat", "n_players", "decision", "variant", "round"}


class ContractError(AssertionError):
    """A game broke a promise of the variant contract.

    ``variant`` is the game's label, ``check`` the promise (one of
    :data:`CHECKS`) and the message says what was seen.
    """

    def __init__(self, variant: str, check: str, message: str):
        self.variant, self.check = variant, check
        super().__init__(f"{variant} breaks the contract ({check}): {message}")


def variant_instances(cls) -> list[Variant]:
    """The game with its default options, then one instance per other value of each
    option (True for a switch, every other choice); combinations the game refuses
    (a ValueError from its ``configure``) are left out."""
    out = [cls()]
    for o in cls.options:
        values = (not o.default,) if isinstance(o.default, bool) else [c for c in o.choices if c != o.default]
        for value in values:
            try:
                out.append(cls(**{o.name: value}))
            except ValueError:
                continue
    return out


def check_variant(variant_or_class, *, deals: int = 600, seed: int = 0, checks=None) -> list[str]:
    """Check that a game keeps the variant contract; raise :class:`ContractError` if not.

    ``variant_or_class`` is a :class:`~simcore.engine.Variant` instance, its
    class (then every rule option's other values are checked too, see
    :func:`variant_instances`) or a registered name. ``deals`` per table in
    the play checks; ``checks`` a subset of :data:`CHECKS` (default all).
    Returns the labels of the instances checked.
    """
    from .variants import get_variant

    if isinstance(variant_or_class, str):
        variants = [get_variant(variant_or_class)]
    elif isinstance(variant_or_class, type) and issubclass(variant_or_class, Variant):
        variants = variant_instances(variant_or_class)
    elif isinstance(variant_or_class, Variant):
        variants = [variant_or_class]
    else:
        raise TypeError(f"check_variant takes a Variant subclass, instance or name, got {variant_or_class!r}")
    chosen = CHECKS if checks is None else tuple(checks)
    bad = [c for c in chosen if c not in CHECKS]
    if bad:
        raise ValueError(f"unknown check {bad[0]!r}; the checks are {', '.join(CHECKS)}")
    for v in variants:
        _Checker(v, int(deals), int(seed)).run(chosen)
    return [v.label for v in variants]


def _first_legal(obs, rng):
    return np.argmax(obs["legal"], axis=1).astype(np.int64)


def _recorder(fn, log, every=False):
    """``fn`` that keeps a copy of each observation it is shown, by (decision, round)."""
    def record(obs, rng):
        kept = {k: (np.array(x, copy=True) if isinstance(x, np.ndarray) else x) for k, x in obs.items()}
        if every:
            kept["_writeable"] = [k for k, x in obs.items() if isinstance(x, np.ndarray) and x.flags.writeable]
            log.append(kept)
        else:
            log[(obs["decision"], int(obs["round"]))] = kept
        return fn(obs, rng)

    return record


def _obs_rows(decision, obs: dict, rows: np.ndarray) -> dict:
    """``obs`` for the rows ``rows`` alone: each declared per-row field and ``legal`` cut, the rest kept."""
    per_row = decision.row_keys
    return {k: (x[rows] if k in per_row and isinstance(x, np.ndarray) else x) for k, x in obs.items()}


def _fingerprint(value):
    try:
        return pickle.dumps(value)
    except Exception:  # noqa: BLE001 - unpicklable: its identity
        return ("id", id(value))


class _Checker:
    def __init__(self, v: Variant, deals: int, seed: int):
        self.v, self.n, self.seed = v, deals, seed
        self.tables = sorted({v.min_players, (v.min_players + v.max_players) // 2, v.max_players})
        self.check = ""
        self.random_play = {}  # P -> (cards, chance, outcome)

    # -- plumbing ---------------------------------------------------------------------------
    def fail(self, message: str):
        raise ContractError(self.v.label, self.check, message)

    def run(self, chosen):
        before = {k: _fingerprint(x) for k, x in vars(self.v).items()}
        self.before = before
        for name in chosen:
            self.check = name
            try:
                getattr(self, "check_" + name)()
            except ContractError:
                raise
            except Exception as e:  # noqa: BLE001 - whatever the game raised, named
                raise ContractError(self.v.label, name, f"raised {type(e).__name__}: {e}") from e

    def strategies(self):
        import strategies

        return strategies

    def random_lineup(self, P, record=None):
        reg = self.strategies()
        rand = {d.name: ("random", reg.resolve(self.v, d.name, "random")[1]) for d in self.v.decisions}
        if record is None:
            return [dict(rand) for _ in range(P)]
        return [{d: ("random", _recorder(f, record, every=True)) for d, (_, f) in rand.items()} for _ in range(P)]

    def empty(self, P):
        return np.full(self.v.n_slots(P), -1, np.int8)

    def play(self, P, known, lineup, seed, n=None, forced=None, chance=None, cards=None):
        if cards is None:
            cards, chance = deal_block(self.v, known, n if known.ndim == 1 else known.shape[0], P,
                                       np.random.default_rng(seed))
        rngs = [np.random.default_rng(seed + 1 + p) for p in range(P)]
        return cards, chance, play_block(self.v, cards, P, lineup, rngs, forced, chance, record=True)

    def middle_play(self):
        """``(P, (cards, chance, outcome))``: the random lineup's play (seed ``P``) at the middle table
        size checked, played once and kept (``check_play`` keeps it for every size)."""
        P = self.tables[len(self.tables) // 2]
        if P not in self.random_play:
            self.random_play[P] = self.play(P, self.empty(P), self.random_lineup(P), seed=P, n=self.n)
        return P, self.random_play[P]

    def slot_name(self, P, s):
        layout = self.v.layout
        if layout is None:
            return f"slot {s}"
        for g, rows in layout._places(P).items():
            hit = np.argwhere(rows == s)
            if hit.size:
                q, k = hit[0]
                whose = f"seat {q}'s " if rows.shape[0] > 1 or next(
                    x for x in layout.groups if x.name == g).per_seat else ""
                return f"slot {s} ({whose}{g!r} card {k + 1})"
        return f"slot {s}"

    # -- the checks -----------------------------------------------------------------------------
    def check_declaration(self):
        v = self.v
        if not isinstance(v.name, str) or not v.name or not isinstance(v.title, str) or not v.title:
            self.fail(f"name and title are non-empty strings, got {v.name!r} and {v.title!r}")
        if not (isinstance(v.min_players, int) and isinstance(v.max_players, int)
                and 1 <= v.min_players <= v.max_players):
            self.fail(f"player limits {v.min_players!r}..{v.max_players!r} are not 1 <= min <= max")
        names = [d.name for d in v.decisions]
        if len(set(names)) != len(names):
            self.fail(f"decision names repeat: {names}")
        for d in v.decisions:
            if d.n_actions < 1 or len(d.actions) != d.n_actions:
                self.fail(f"decision {d.name!r} has n_actions={d.n_actions} but names {len(d.actions)} actions")
            if not isinstance(d.rounds, int) or d.rounds < 1:
                self.fail(f"decision {d.name!r} has rounds={d.rounds!r}; a decision is taken at least once")
            if not d.obs:
                self.fail(f"decision {d.name!r} declares no observation fields: give "
                          f"Decision(..., obs=(Obs('hand', 'int8', ('n', 3)), ...)) for every key it shows")
        if len(v.hands) != len(v.hand_kinds) or any(k not in ("high", "low") for k in v.hand_kinds):
            self.fail(f"hands {v.hands} and hand_kinds {v.hand_kinds} must pair up, each 'high' or 'low'")
        for group, parts in dict(v.part_groups).items():
            missing = [p for p in parts if p not in v.parts]
            if missing:
                self.fail(f"part_groups[{group!r}] names {missing[0]!r}, which is not in parts {v.parts}")
        if v.payoff_total is not None and not np.isfinite(v.payoff_total):
            self.fail(f"payoff_total is a number or None, got {v.payoff_total!r}")
        for P in self.tables:
            n_slots = v.n_slots(P)
            if not isinstance(n_slots, (int, np.integer)) or not 1 <= n_slots <= 52:
                self.fail(f"n_slots({P}) = {n_slots!r}; a deal has 1 to 52 card slots")
            if v.layout is not None and v.layout.n_slots(P) != n_slots:
                self.fail(f"n_slots({P}) = {n_slots} but its slot layout has {v.layout.n_slots(P)}")
            if not isinstance(v.n_chance(P), (int, np.integer)) or v.n_chance(P) < 0:
                self.fail(f"n_chance({P}) = {v.n_chance(P)!r}; a count of draws")
            for seat in sorted({0, P - 1}):
                hidden = list(v.hidden_slots(P, seat))
                if not hidden:
                    self.fail(f"hidden_slots({P}, {seat}) is empty: every game hides some card from a seat "
                              f"(the others' cards, the cards to come), and a hiding check that redeals "
                              f"nothing proves nothing")
                if len(set(hidden)) != len(hidden) or min(hidden) < 0 or max(hidden) >= n_slots:
                    self.fail(f"hidden_slots({P}, {seat}) = {hidden} are not distinct slots 0..{n_slots - 1}")
            sit = v.setup(P)
            if not isinstance(sit, Situation) or sit.known.shape != (n_slots,) or (sit.known >= 0).any():
                self.fail(f"setup({P}) (no cards given) must be a Situation fixing no card, got {sit!r}")
            if v.decisions:
                d = v.default_decision(sit)
                dec = v.decision(d)
                r = v.analysis_round(d, sit)
                if not isinstance(r, (int, np.integer)) or not 0 <= r < dec.rounds:
                    self.fail(f"analysis_round({d!r}, setup({P})) = {r!r}, not a round 0..{dec.rounds - 1}")
                actions = list(v.analysis_actions(d, sit))
                if not actions or any(not isinstance(a, (int, np.integer)) or not 0 <= a < dec.n_actions
                                      for a in actions):
                    self.fail(f"analysis_actions({d!r}, setup({P})) = {actions}; actions are 0..{dec.n_actions - 1}")
                labels = [v.analysis_label(d, a, sit) for a in actions]
                if not all(isinstance(x, str) and x for x in labels):
                    self.fail(f"analysis_label gives non-empty strings, got {labels}")

    def check_play(self):
        v = self.v
        for P in self.tables:
            cards, chance, out = self.play(P, self.empty(P), self.random_lineup(P), seed=P, n=self.n)
            self.random_play[P] = (cards, chance, out)
            n, H = cards.shape[0], len(v.hands)
            if (np.sort(cards, axis=1)[:, 1:] == np.sort(cards, axis=1)[:, :-1]).any():
                self.fail(f"the dealer dealt a card twice at {P} players (n_slots {v.n_slots(P)})")
            for what, arr, shape, kind in (("payoffs", out.payoffs, (n, P), "f"), ("wins", out.wins, (n, P), "b"),
                                           ("ties", out.ties, (n, P), "b"),
                                           ("categories", out.categories, (n, P, H), "i")):
                arr = np.asarray(arr)
                if arr.shape != shape or arr.dtype.kind != kind:
                    self.fail(f"Outcome.{what} is {arr.dtype} {arr.shape}; expected {shape} of kind {kind!r} "
                              f"({P} players, {n} deals)")
            if not np.isfinite(out.payoffs).all():
                i = int(np.flatnonzero(~np.isfinite(out.payoffs).all(axis=1))[0])
                self.fail(f"deal {i} at {P} players has payoffs {out.payoffs[i].tolist()}")
            bad = np.flatnonzero(((out.categories < -1) | (out.categories > 8)).any(axis=(1, 2)))
            if bad.size:
                self.fail(f"deal {bad[0]}: categories {out.categories[bad[0]].tolist()} outside -1..8")
            if v.payoff_total is not None:
                sums = out.payoffs.sum(axis=1)
                off = np.flatnonzero(~np.isclose(sums, v.payoff_total, rtol=0, atol=1e-9))
                if off.size:
                    i = int(off[0])
                    self.fail(f"deal {i} at {P} players pays {out.payoffs[i].tolist()}, which sum to "
                              f"{sums[i]:.12g}, but payoff_total promises {v.payoff_total!r} every deal "
                              f"({off.size} of {n} deals miss it)")
            w, t = out.wins, out.ties
            checks = (((w.sum(axis=1) > 1), "more than one outright winner"),
                      ((w.any(axis=1) & t.any(axis=1)), "an outright winner beside a tie"),
                      ((t.sum(axis=1) == 1), "a seat tied alone"),
                      (~(w | t).any(axis=1), "neither a winner nor a tie"),
                      ((w & t).any(axis=1), "a seat both winning and tying"))
            for rows, what in checks:
                if rows.any():
                    i = int(np.flatnonzero(rows)[0])
                    self.fail(f"deal {i} at {P} players has {what}: wins {w[i].tolist()}, ties {t[i].tolist()}")
            for part in v.parts:
                got = out.parts.get(part)
                if got is None or np.shape(got) != (n, P):
                    self.fail(f"Outcome.parts[{part!r}] is missing or not ({n}, {P})")
            for d in v.decisions:
                for p, r in itertools.product(range(P), range(d.rounds)):
                    a = out.actions.get((p, d.name, r))
                    if a is None:
                        self.fail(f"seat {p} never took decision {d.name!r} in round {r} at {P} players "
                                  f"(every seat takes every decision in every round, through table.act)")
                    if np.shape(a) != (n,) or (np.asarray(a) < 0).any() or (np.asarray(a) >= d.n_actions).any():
                        self.fail(f"seat {p}'s {d.name!r} round {r} actions are not ({n},) in 0..{d.n_actions - 1}")

    def check_observations(self):
        v = self.v
        if not v.decisions:
            return
        for P in self.tables:
            log = []
            self.play(P, self.empty(P), self.random_lineup(P, record=log), seed=P, n=min(self.n, 200))
            if not log:
                self.fail(f"no strategy was asked anything at {P} players, though the game has decisions")
            for obs in log:
                d = v.decision(obs["decision"])
                n = obs["legal"].shape[0] if isinstance(obs.get("legal"), np.ndarray) else None
                declared = {o.name: o for o in d.obs}
                keys = set(obs) - SCALARS - {"legal", "_writeable"}
                where = f"decision {d.name!r} (seat {obs.get('seat')}, round {obs.get('round')}, {P} players)"
                if keys != set(declared):
                    extra, missing = sorted(keys - set(declared)), sorted(set(declared) - keys)
                    self.fail(f"{where} shows {sorted(keys)}; declared {sorted(declared)}"
                              + (f" (undeclared: {extra})" if extra else "")
                              + (f" (declared but not shown: {missing})" if missing else ""))
                legal = obs.get("legal")
                if not isinstance(legal, np.ndarray) or legal.dtype != np.bool_ or legal.shape != (n, d.n_actions):
                    self.fail(f"{where}: legal must be ({n}, {d.n_actions}) bool")
                for k, o in declared.items():
                    x, shape = obs[k], o.expected_shape(n, P)
                    if not isinstance(x, np.ndarray) or x.dtype != np.dtype(o.dtype) or x.shape != shape:
                        got = f"{x.dtype} {x.shape}" if isinstance(x, np.ndarray) else type(x).__name__
                        self.fail(f"{where}: observation {k!r} is {got}; declared {o.dtype} {shape}")
                    if o.holds_cards:
                        self.check_cards(where, k, x)
                if obs["_writeable"]:
                    self.fail(f"{where}: {obs['_writeable']} reached the strategy writeable")
                for k, want in (("n_players", P), ("variant", v.name), ("decision", d.name)):
                    if obs.get(k) != want:
                        self.fail(f"{where}: scalar {k} is {obs.get(k)!r}, expected {want!r}")
                if not 0 <= int(obs["round"]) < d.rounds or not 0 <= int(obs["seat"]) < P:
                    self.fail(f"{where}: seat or round out of range")

    def check_cards(self, where, key, x):
        """A card field holds cards 0..51 (4*rank + suit) or -1. (A card may show twice: a field of
        what each seat was served repeats a refused card dealt again from a reshuffled muck.)"""
        flat = x.reshape(len(x), -1).astype(np.int64)
        bad = np.argwhere((flat < -1) | (flat > 51))
        if bad.size:
            i, j = bad[0]
            self.fail(f"{where}: observation {key!r} holds {int(flat[i, j])} in row {i}, which is no card "
                      f"(cards are 0..51, -1 for none; a field of counts or actions says Obs(..., cards=False))")

    def own_lineups(self, P):
        """(label, lineup): every policy the game registered, each for every seat (the
        decisions without it keep their default), so that fast paths are exercised."""
        reg, v = self.strategies(), self.v
        names = []
        for d in v.decisions:
            for name, entry in reg.policies(v.name, d.name).items():
                if entry.function is not None and name not in names:
                    names.append(name)
        out = []
        for name in names:
            seat = {}
            for d in v.decisions:
                pick = name if name in reg.policies(v.name, d.name) else reg.default_policy(v.name, d.name)
                seat[d.name] = reg.resolve(v, d.name, pick)
            out.append((name, [dict(seat) for _ in range(P)]))
        return out

    def check_forced(self):
        if not self.v.decisions:
            return
        P, (cards, chance, base) = self.middle_play()
        n = cards.shape[0]
        lineups = [("random (other streams)", self.random_lineup(P))] + self.own_lineups(P)
        for label, lineup in lineups:
            for every in (True, False):
                rows = np.ones(n, bool) if every else (np.arange(n) % 2 == 0)
                forced = {k: np.where(rows, a, -1).astype(np.int64) for k, a in base.actions.items()}
                _, _, out = self.play(P, None, lineup, seed=1000 + P, forced=forced, chance=chance, cards=cards)
                how = "every deal" if every else "every other deal"
                for key, a in base.actions.items():
                    got = out.actions.get(key)
                    if got is None:
                        self.fail(f"with actions forced on {how} (lineup {label}), seat {key[0]} never took "
                                  f"{key[1]!r} round {key[2]}")
                    wrong = np.flatnonzero(rows & (np.asarray(got) != a))
                    if wrong.size:
                        i = int(wrong[0])
                        self.fail(f"forced action ignored: seat {key[0]}'s {key[1]!r} (round {key[2]}) was "
                                  f"forced to {int(a[i])} in deal {i} but the game played {int(got[i])} "
                                  f"(lineup {label}, forced on {how})")
                for what in ("payoffs", "wins", "ties", "categories"):
                    x, y = getattr(out, what)[rows], getattr(base, what)[rows]
                    if not np.array_equal(x, y):
                        i = int(np.flatnonzero(rows)[np.flatnonzero((x != y).reshape(len(x), -1).any(axis=1))[0]])
                        self.fail(f"forced actions not followed: deal {i} replayed with every action forced as "
                                  f"first played gives {what} {getattr(out, what)[i].tolist()}, not "
                                  f"{getattr(base, what)[i].tolist()} (lineup {label}, forced on {how})")

    def check_alternatives(self):
        v = self.v
        if not v.decisions:
            return
        P, (cards, chance, base) = self.middle_play()
        n = cards.shape[0]
        even = np.arange(n) % 2 == 0
        # every lineup twice: free, and with the random play's actions forced on every other
        # deal; then one seat's first decision forced alone (a rollout's or an analysis's table)
        first = min(base.actions, key=lambda k: (k[2], [d.name for d in v.decisions].index(k[1]), k[0]))
        alts = []
        for label, lineup in [("random", self.random_lineup(P))] + self.own_lineups(P):
            alts.append((label + ", free", lineup, {}))
            alts.append((label + ", forced on every other deal", lineup,
                         {k: np.where(even, a, -1).astype(np.int64) for k, a in base.actions.items()}))
        alts.append(("random, one decision forced", self.random_lineup(P), {first: base.actions[first]}))

        def tables():
            return [Table(v, P, lu, [np.random.default_rng(500 + p) for p in range(P)], f, chance, True)
                    for _, lu, f in alts]

        together = play_tables(v, cards, tables())
        for (label, lineup, forced), out in zip(alts, together):
            alone = play_block(v, cards, P, lineup, [np.random.default_rng(500 + p) for p in range(P)], forced,
                               chance, record=True)
            for what in ("payoffs", "wins", "ties", "categories"):
                if not np.array_equal(getattr(out, what), getattr(alone, what)):
                    self.fail(f"play_alternatives gives table '{label}' other {what} than playing it alone "
                              f"({len(alts)} tables, {P} players)")
            if out.actions.keys() != alone.actions.keys() or any(
                    not np.array_equal(out.actions[k], alone.actions[k]) for k in alone.actions):
                self.fail(f"play_alternatives records other actions for table '{label}' than playing it alone")

    def observe(self, P, seat, cards, chance):
        """What ``seat`` (random) is shown when every other seat takes its first legal action."""
        reg, v = self.strategies(), self.v
        base = {d.name: ("first", _first_legal) for d in v.decisions}
        log = {}
        lineup = [dict(base) for _ in range(P)]
        lineup[seat] = {d.name: ("rec", _recorder(reg.resolve(v, d.name, "random")[1], log)) for d in v.decisions}
        play_block(v, cards, P, lineup, [np.random.default_rng(7 + p) for p in range(P)], None, chance)
        return log

    def leak(self, a, b):
        """The first (decision, round, key) whose observation differs between logs, or None."""
        if a.keys() != b.keys():
            return (sorted(set(a) ^ set(b))[0], None)
        for key in a:
            for k in a[key]:
                x, y = a[key][k], b[key][k]
                if isinstance(x, np.ndarray) and not np.array_equal(x, y):
                    return (key, k)
        return None

    def check_hiding(self):
        v = self.v
        if not v.decisions:
            return
        for P in self.tables:
            for seat in sorted({0, P - 1}):
                hidden = list(v.hidden_slots(P, seat))
                dealt, chance = deal_block(v, self.empty(P), 400, P, np.random.default_rng(P))
                first = self.observe(P, seat, dealt, chance)
                if not first:
                    self.fail(f"seat {seat} was asked nothing at {P} players")

                def redealt(slots, salt):
                    again = dealt.copy()
                    again[:, slots] = -1
                    return deal(again, dealt.shape[0], np.random.default_rng(99 + salt))

                if self.leak(first, self.observe(P, seat, redealt(hidden, 0), chance)) is None:
                    continue
                for s in hidden:  # name the slot that leaks
                    found = self.leak(first, self.observe(P, seat, redealt([s], s), chance))
                    if found is not None:
                        (decision, rnd), key = found
                        self.fail(f"a hidden card reaches an observation: {self.slot_name(P, s)}, which "
                                  f"hidden_slots({P}, {seat}) says seat {seat} never sees, changes its "
                                  f"{key!r} at decision {decision!r} round {rnd}")
                self.fail(f"the slots hidden_slots({P}, {seat}) names, dealt anew together, change what "
                          f"seat {seat} is shown (no single slot does)")

    def check_rollout(self):
        v = self.v
        if not v.decisions:
            return
        P = max(v.min_players, min(3, v.max_players))
        reg = self.strategies()
        rand = {d.name: ("random", reg.resolve(v, d.name, "random")[1]) for d in v.decisions}
        for seat in sorted({0, P - 1}):
            log = {}
            lineup = [dict(rand) for _ in range(P)]
            lineup[seat] = {d.name: ("rec", _recorder(rand[d.name][1], log)) for d in v.decisions}
            self.play(P, self.empty(P), lineup, seed=seat, n=200)
            for (decision, rnd), obs in log.items():
                try:
                    known, forced = v.situation(decision, obs, P)
                except NoRollout as e:
                    if decision not in str(e):
                        self.fail(f"NoRollout for {decision!r} must name the decision, got {e}")
                    continue
                if np.shape(known) != (200, v.n_slots(P)):
                    self.fail(f"situation({decision!r}) gave known of shape {np.shape(known)}; "
                              f"expected (200, {v.n_slots(P)})")
                replay = {}
                lineup[seat] = {d.name: ("rec", _recorder(rand[d.name][1], replay)) for d in v.decisions}
                self.play(P, np.asarray(known, np.int8), lineup, seed=100 + seat, forced=forced)
                again = replay.get((decision, rnd))
                if again is None:
                    self.fail(f"replaying situation({decision!r}) round {rnd} never asked seat {seat} again")
                for k, x in obs.items():
                    if isinstance(x, np.ndarray) and not np.array_equal(x, again[k]):
                        self.fail(f"situation({decision!r}) round {rnd} does not rebuild what seat {seat} saw: "
                                  f"replayed, its {k!r} differs")

    def check_threads(self):
        from .api import analyze, compare, simulate

        v = self.v
        P = v.min_players + 1 if v.max_players > v.min_players else v.min_players
        kw = dict(seed=5, progress=False, block_size=512, executor="threads")
        spec = "random" if v.decisions else None
        runs = []
        for threads in (1, 2):
            s = simulate(v, P, 2048, workers=threads, hero=spec, field=spec, hero_seat=P - 1, **kw)
            c = compare(v, P, 2048, workers=threads, a=spec, b=None, field=spec, hero_seat=P - 1, **kw)
            a = analyze(v, P, workers=threads, n_deals=2048, stop_early=False, field=spec, hero_seat=P - 1, **kw)
            runs.append((s.table(), c.table(), a.table()))
        for what, one, two in zip(("simulate", "compare", "analyze"), *runs):
            if not one.equals(two):
                self.fail(f"{what} gives other numbers on 2 threads than on 1 (same seed): a block's "
                          f"numbers must depend on its seeds alone")

    def check_blocks(self):
        from .api import simulate

        v = self.v
        P = v.min_players
        spec = "random" if v.decisions else None
        r = simulate(v, P, 300, seed=9, hero=spec, field=spec, block_size=100, progress=False, workers=2,
                     executor="threads")
        lineup = self.strategies().lineup(v, P, spec, spec)
        total = np.zeros(P)
        for b in range(3):
            seeds = block_seeds(9, b, P)
            cards, chance = deal_block(v, self.empty(P), 100, P, np.random.Generator(np.random.PCG64(seeds[0])))
            total += play_block(v, cards, P, lineup, seat_streams(seeds, P), None, chance).payoffs.sum(axis=0)
        if not np.array_equal(total, r.stats.share_sum):
            self.fail("a run's payoff sums are not those of play_block on block_seeds' streams, block by block")

    def check_stateless(self):
        after = {k: _fingerprint(x) for k, x in vars(self.v).items()}
        changed = sorted(set(after) ^ set(self.before)) or sorted(k for k in after if after[k] != self.before[k])
        if changed:
            self.fail(f"the instance's attribute {changed[0]!r} changed while it played: a game keeps no "
                      f"state after configure (one instance is shared by every thread and run)")
        self.check_concurrent_hooks()

    def check_seat_view(self):
        v = self.v
        reg = self.strategies()
        for P in self.tables:
            log = []
            self.play(P, self.empty(P), self.random_lineup(P, record=log), seed=P, n=min(self.n, 300))
            pooled = {}  # (decision, round, seat) -> [(views, {policy: answers})]
            for obs in log:
                d = v.decision(obs["decision"])
                obs = {k: x for k, x in obs.items() if k != "_writeable"}
                view = v.seat_view(d.name, obs)
                if view is None:
                    continue
                n = obs["legal"].shape[0]
                where = f"decision {d.name!r} (seat {obs['seat']}, round {obs['round']}, {P} players)"
                if not isinstance(view, np.ndarray) or view.dtype != np.int64 or view.ndim != 2 or view.shape[0] != n:
                    got = f"{view.dtype} {view.shape}" if isinstance(view, np.ndarray) else type(view).__name__
                    self.fail(f"{where}: the seat view is {got}; it must be ({n}, w) int64, a row per row")
                rows = np.flatnonzero(np.arange(n) % 3 != 1)[::-1]  # some rows, out of order
                part = _obs_rows(d, obs, rows)
                if not np.array_equal(v.seat_view(d.name, part), view[rows]):
                    self.fail(f"{where}: the seat view of some rows of an observation is not those rows of its "
                              "view (a row's view must be a function of that row alone)")
                answers = {}
                for name, entry in reg.policies(v.name, d.name).items():
                    fn = entry.function
                    if fn is None or not policy_traits(fn).get("seat_view", False):
                        continue
                    rng = np.random.default_rng(0)
                    before = rng.bit_generator.state
                    whole = np.asarray(fn(obs, rng), dtype=np.int64)
                    some = np.asarray(fn(part, rng), dtype=np.int64)
                    if rng.bit_generator.state != before:
                        self.fail(f"{where}: policy {name!r} declares the trait seat_view but draws from its stream")
                    if not np.array_equal(some, whole[rows]):
                        i = int(rows[np.flatnonzero(some != whole[rows])[0]])
                        self.fail(f"{where}: policy {name!r} declares the trait seat_view but answers row {i} "
                                  f"{int(whole[i])} in the whole observation and otherwise asked with some rows")
                    answers[name] = whole
                if answers:
                    pooled.setdefault((d.name, int(obs["round"]), int(obs["seat"])), []).append((view, answers))
            for (d, r, seat), kept in pooled.items():
                views = np.concatenate([x for x, _ in kept])
                _, group = np.unique(views, axis=0, return_inverse=True)
                group = group.reshape(-1)
                for name in kept[0][1]:
                    a = np.concatenate([ans[name] for _, ans in kept])
                    first = np.empty(group.max() + 1, np.int64)
                    first[group[::-1]] = a[::-1]  # each view's first answer
                    bad = np.flatnonzero(a != first[group])
                    if bad.size:
                        i = int(bad[0])
                        j = int(np.flatnonzero(group == group[i])[0])
                        self.fail(f"decision {d!r} (seat {seat}, round {r}, {P} players): policy {name!r} declares "
                                  f"the trait seat_view but gives two rows with the same seat view "
                                  f"{views[i].tolist()} the answers {int(a[j])} and {int(a[i])}: it reads "
                                  "something the view leaves out")

    def check_concurrent_hooks(self):
        """The analysis hooks on one instance from several threads give what they give alone."""
        v = self.v
        if not v.decisions:
            return
        situations = [v.setup(P, seat=s) for P in self.tables for s in sorted({0, P - 1})]

        def answer(sit):
            d = v.default_decision(sit)
            acts = list(v.analysis_actions(d, sit))
            return d, v.analysis_round(d, sit), acts, [v.analysis_label(d, a, sit) for a in acts]

        alone = [answer(s) for s in situations]
        together, errors = [None] * len(situations), []

        def work(i):
            try:
                for _ in range(20):
                    together[i] = answer(situations[i])
            except Exception as e:  # noqa: BLE001
                errors.append(e)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(len(situations))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise errors[0]
        if together != alone:
            self.fail("the analysis hooks give other answers when called from several threads at once")


__all__ = ["check_variant", "ContractError", "CHECKS", "variant_instances"]
