"""Strategies by name: ``registry[variant][decision][name]``.

A strategy answers one decision for a batch of deals::

    def my_pass(obs: dict, rng: numpy.random.Generator) -> numpy.ndarray: ...

``obs`` maps names to arrays of what the deciding seat can see (each decision
documents its keys; every observation has ``legal``, an ``(n, n_actions)``
bool mask, plus the scalars ``seat``, ``n_players``, ``decision`` and
``variant``). The answer is an ``(n,)`` integer array of legal actions. A
strategy must not modify ``obs`` and draws any randomness from ``rng``.

Register your own with :func:`register` and use it by name anywhere a policy
is named (``--hero pass=my-pass``).
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Callable

import numpy as np

from simcore.engine.checks import is_whole
from simcore.engine.variant import policy_traits, with_traits


@dataclass(frozen=True)
class Entry:
    name: str
    function: Callable | None  # a strategy, or None for factories
    description: str
    factory: Callable | None = None  # factory(variant, decision, *args) -> strategy


_REGISTRY: dict[str, dict[str, dict[str, Entry]]] = {}
_DEFAULTS: dict[tuple[str, str], str] = {}
_GENERIC: dict[str, Entry] = {}  # available for every decision of every variant


def register(variant: str, decision: str, name: str, description: str = "", *, default: bool = False,
             pure: bool = False, **traits):
    """Decorator: register ``fn`` as policy ``name`` for ``variant``'s ``decision``.

    Any game's policies register so, a plug-in's included (at module level in the
    module its ``pvsim.variants`` entry point names, so that every process that
    loads the game has them; worker processes import them from there).

    ``pure=True`` says the policy's actions depend on its observation alone (no
    random stream, no state kept between calls), so a game may ask it once for
    several tables that show it the same thing. ``rowwise=True`` says each
    row's action depends on that row of the observation alone and the policy
    draws nothing from its stream, so a table policy whose fallback it is asks
    it for the rows its entries leave only (``tests/test_rowwise.py`` checks
    every policy that declares it). ``seat_view=True`` says each row's action is
    a function of the game's seat view of that row alone (``Variant.seat_view``)
    and nothing is drawn, so a best response's fit may reuse its answer for a
    row that looks the same to it in another play of the deal (checked by
    ``tests/test_seat_view.py``). Other keywords are traits a
    game reads to apply a fixed rule itself (Russian's ``place_rule``, Slovak's
    ``exchange_rule``). Traits are read through one accessor,
    :func:`simcore.engine.policy_traits` (``Table.trait`` for a seat).

    >>> @register("estonian", "pass", "doc-example", "pass the first card", pure=True)
    ... def first(obs, rng):
    ...     return np.zeros(len(obs["legal"]), dtype=np.int64)
    >>> resolve("estonian", "pass", "doc-example")[0], traits("estonian", "pass", "doc-example")["pure"]
    ('doc-example', True)
    >>> unregister("estonian", "pass", "doc-example")
    """
    if pure:
        traits["pure"] = True

    def wrap(fn):
        if traits:
            with_traits(fn, **traits)
        text = description or (fn.__doc__ or "").strip().splitlines()[0]
        _REGISTRY.setdefault(variant, {}).setdefault(decision, {})[name] = Entry(name, fn, text)
        if default:
            _DEFAULTS[(variant, decision)] = name
        return fn

    return wrap


def traits(variant: str, decision: str, name: str):
    """The traits policy ``name`` of ``variant``'s ``decision`` was registered with (read-only)."""
    entry = policies(variant, decision).get(name)
    if entry is None:
        raise ValueError(f"unknown policy {name!r} for {variant} {decision}")
    return policy_traits(entry.function) if entry.function is not None else {}


def unregister(variant: str, decision: str, name: str) -> None:
    """Remove a registered policy (for example one a test added)."""
    _REGISTRY.get(variant, {}).get(decision, {}).pop(name, None)
    if _DEFAULTS.get((variant, decision)) == name:
        del _DEFAULTS[(variant, decision)]


def register_generic(name: str, description: str, factory: Callable) -> None:
    """A policy every decision has (``random``, ``rollout``), built per decision."""
    _GENERIC[name] = Entry(name, None, description, factory)


def policies(variant: str, decision: str) -> dict[str, Entry]:
    """All policies of one decision, the variant's own first."""
    own = dict(_REGISTRY.get(variant, {}).get(decision, {}))
    for name, entry in _GENERIC.items():
        own.setdefault(name, entry)
    return own


def default_policy(variant: str, decision: str) -> str:
    return _DEFAULTS.get((variant, decision), "random")


def resolve(variant, decision: str, spec: str):
    """(label, strategy function) for a policy spec such as ``rollout:32``.

    ``variant`` is a name or a variant object; factories (``rollout``) are
    built for that object, rule options included.
    """
    from simcore.variants import get_variant

    v = get_variant(variant)
    name, _, arg = spec.partition(":")
    entries = policies(v.name, decision)
    if name not in entries:
        raise ValueError(
            f"unknown policy {name!r} for {v.name} {decision}; choose from "
            + ", ".join(sorted(entries))
        )
    entry = entries[name]
    if entry.factory is not None:
        params = list(inspect.signature(entry.factory).parameters.values())[2:]
        # The last parameter takes the rest, colons included (rollout:8:pass=table:br.npz), unless
        # the factory takes any number (table:FILE joins them itself).
        most = -1 if any(p.kind is p.VAR_POSITIONAL for p in params) else max(len(params) - 1, 0)
        args = [a for a in arg.split(":", most) if a] if arg else []
        try:
            inspect.signature(entry.factory).bind(v, decision, *args)
        except TypeError:
            takes = list(inspect.signature(entry.factory).parameters)[2:]
            what = ("no arguments" if not takes else
                    "at most " + str(len(takes)) + " (" + ":".join(t.upper() for t in takes) + ")")
            raise ValueError(f"policy {name!r} takes {what}, got {len(args)} in {spec!r}") from None
        try:
            return spec, entry.factory(v, decision, *args)
        except (TypeError, ValueError) as e:
            raise ValueError(f"policy spec {spec!r}: {e}") from None
    if arg:
        raise ValueError(f"policy {name!r} takes no arguments, got {spec!r}")
    return spec, entry.function


def parse_spec(variant, spec) -> dict[str, str]:
    """``"pass=highest,discard=best-made"`` -> {decision: policy}; checks names.

    A bare policy name (``"random"``) applies to every decision, and a
    ``decision=policy`` beside it wins for that decision (``random,pass=lowest``).
    A decision named twice, or two bare names, is a ValueError: which one was
    meant cannot be guessed.
    """
    from simcore.variants import get_variant

    v = get_variant(variant)
    if spec is None or spec == "":
        return {}
    if isinstance(spec, dict):
        items, bare = list(spec.items()), []
    elif not isinstance(spec, str):
        raise TypeError(f"a policy spec is a string such as 'pass=highest' or a dict, got {type(spec).__name__}")
    else:
        items, bare = [], []
        for part in spec.split(","):
            part = part.strip()
            if not part:
                continue
            if "=" in part:
                d, _, p = part.partition("=")
                items.append((d.strip(), p.strip()))
            else:
                bare.append(part)
    if len(bare) > 1:
        raise ValueError(f"policy spec {spec!r} names {len(bare)} policies for every decision "
                         f"({', '.join(map(repr, bare))}); give one")
    if bare and not v.decisions:  # nothing for it to play: say so rather than play the rules alone
        raise ValueError(f"{v.title} has no decisions, so policy {bare[0]!r} has nothing to play; leave it out")
    out = {}
    for d, p in items:
        if not isinstance(d, str) or not isinstance(p, str):
            raise TypeError(f"a policy spec maps decision names to policy names, got {d!r}: {p!r}")
        v.decision(d)  # raises with the list of decisions
        if d in out:
            raise ValueError(f"policy spec {spec!r} gives {d} twice ({out[d]!r} and {p!r}); give one")
        resolve(v, d, p)  # raises with the list of policies
        out[d] = p
    for p in bare:
        names = [dec.name for dec in v.decisions]
        if p.partition(":")[0] == "table":  # a table file plays the decisions it holds
            from .table import file_decisions

            names = [d for d in names if d in file_decisions(v, p)]
        for d in names:
            resolve(v, d, p)
            out.setdefault(d, p)
    return out


def lineup(variant, n_players: int, hero=None, field=None, seats=None, hero_seat: int = 0):
    """Per seat {decision: (label, function)}: ``hero`` for seat ``hero_seat``,
    ``field`` for the others, then per-seat specs {seat: spec}."""
    from simcore.variants import get_variant

    v = get_variant(variant)
    hero_spec, field_spec = parse_spec(v, hero), parse_spec(v, field)
    seat_specs = {}
    if seats is not None and not isinstance(seats, dict):
        raise TypeError(f"seats maps seat numbers to policy specs ({{2: 'pass=highest'}}), "
                        f"got {type(seats).__name__}")
    for k, s in (seats or {}).items():
        if not is_whole(k):
            raise ValueError(f"seat {k!r} in seats is not a seat number")
        seat_specs[int(k)] = parse_spec(v, s)
    for k in seat_specs:
        if not 0 <= k < n_players:
            raise ValueError(f"--seat {k}: seats are 0..{n_players - 1}")
    if hero_spec and hero_seat in seat_specs:
        raise ValueError(f"seat {hero_seat} is the hero seat: its strategy comes from the hero spec "
                         f"(--hero, or --a/--b), so --seat {hero_seat}= conflicts with it; give one")
    out = []
    for seat in range(n_players):
        chosen = {d.name: default_policy(v.name, d.name) for d in v.decisions}
        chosen.update(hero_spec if seat == hero_seat else field_spec)
        chosen.update(seat_specs.get(seat, {}))
        resolved = {d: resolve(v, d, p) for d, p in chosen.items()}
        for _, fn in resolved.values():  # a table policy refuses another player count here
            check = getattr(fn, "check_players", None)
            if check is not None:
                check(n_players)
        out.append(resolved)
    return out


def spec_label(table_seat: dict) -> str:
    """``pass=lowest,discard=best-made`` for one seat of a lineup."""
    return ",".join(f"{d}={label}" for d, (label, _) in table_seat.items())


def _random_factory(variant, decision):
    def random_policy(obs, rng):
        legal = obs["legal"]
        # A uniformly random legal action: argmax of random keys on legal cells.
        keys = rng.random(legal.shape) + legal
        return np.argmax(keys, axis=1)

    return random_policy


register_generic("random", "a uniformly random legal action", _random_factory)
