"""The games pvsim plays, by CLI name: the built-in ones and every registered plug-in.

A game from another package registers itself in one of two ways:

- ``simcore.register_variant(MyGame)`` when its module is imported, or
- an entry point in the group ``pvsim.variants`` naming the class
  (``mygame = "mypackage.game:MyGame"``): pvsim loads it the first time it
  lists the games, in every process (the CLI, the API, worker processes).

Loading the entry point imports its module, so the game's policies register
there too (``strategies.register("mygame", ...)`` at module level).
"""
from __future__ import annotations

import threading

from ..engine.variant import Variant

ENTRY_POINT_GROUP = "pvsim.variants"


def _builtin() -> list[type]:
    from .estonian import EstonianTwist
    from .holdem import TexasHoldem
    from .russian import RussianHoldem
    from .slovak import SlovakDoubleBarrel
    from .sviten import SvitenSpecial
    from .tapiola import TapiolaHoldem

    return [TexasHoldem, EstonianTwist, SlovakDoubleBarrel, TapiolaHoldem, SvitenSpecial, RussianHoldem]


_CLASSES: dict[str, type] = {}
_DEFAULTS: dict[str, Variant] = {}
_CACHE: dict[tuple, Variant] = {}
_LOADED = []  # [True] once the built-in games and the entry points are in _CLASSES
_LOCK = threading.RLock()


def _check_class(cls) -> None:
    if not isinstance(cls, type) or not issubclass(cls, Variant):
        raise TypeError(f"a variant is a subclass of simcore.engine.Variant, got {cls!r}")
    name = getattr(cls, "name", "")
    if not isinstance(name, str) or not name or not name.replace("-", "").replace("_", "").isalnum():
        raise ValueError(f"variant class {cls.__qualname__} needs a name: letters, digits, - or _ "
                         f"(its CLI name), got {name!r}")


def register_variant(cls: type, *, replace: bool = False) -> type:
    """Make the game ``cls`` (a :class:`~simcore.engine.Variant` subclass) known by its
    ``name`` to ``get_variant``, the CLI, the API and ``pvsim variants``; returns ``cls``
    (so it also serves as a class decorator).

    Registering the same class again does nothing; another class under a taken
    name is a ValueError unless ``replace=True``. Worker processes rebuild a
    registered game from its class's module (import it there, or use an
    entry point in the group ``pvsim.variants``).
    """
    _check_class(cls)
    with _LOCK:
        _load()
        old = _CLASSES.get(cls.name)
        if old is cls:
            return cls
        if old is not None and not replace:
            raise ValueError(f"variant name {cls.name!r} is taken by {old.__module__}.{old.__qualname__}; "
                             f"choose another name (or replace=True)")
        _forget(cls.name)
        _CLASSES[cls.name] = cls
    return cls


def unregister_variant(name: str) -> None:
    """Forget the game ``name`` (a test's game, say); unknown names are a ValueError."""
    with _LOCK:
        _load()
        if name not in _CLASSES:
            raise ValueError(f"unknown variant {name!r}; choose from {', '.join(_CLASSES)}")
        _forget(name)
        del _CLASSES[name]


def _forget(name: str) -> None:
    _DEFAULTS.pop(name, None)
    for key in [k for k in _CACHE if k[0] == name]:
        del _CACHE[key]


def _entry_points():
    from importlib.metadata import entry_points

    return list(entry_points(group=ENTRY_POINT_GROUP))


def _load() -> None:
    """The built-in games, then every entry point of the group (once per process)."""
    if _LOADED:
        return
    with _LOCK:
        if _LOADED:
            return
        for cls in _builtin():
            _CLASSES.setdefault(cls.name, cls)
        _LOADED.append(True)  # before the entry points: their modules may register themselves
        _load_entry_points()


def load_plugins() -> list[str]:
    """Register every game of the entry-point group ``pvsim.variants`` not registered yet
    (pvsim does this once per process, on first listing the games; call it again after
    installing a plug-in into a running process). Returns the names it registered."""
    with _LOCK:
        before = set(_CLASSES) if _LOADED else {c.name for c in _builtin()}
        _load()
        _load_entry_points()
        return [name for name in _CLASSES if name not in before]


def _load_entry_points() -> None:
    with _LOCK:
        for ep in _entry_points():
            cur = _CLASSES.get(ep.name)
            if cur is not None and f"{cur.__module__}:{cur.__qualname__}" == ep.value.replace(" ", ""):
                continue  # loaded already (a second name taken is register_variant's error below)
            try:
                cls = ep.load()
            except Exception as e:  # noqa: BLE001 - name the plug-in that failed
                raise ImportError(f"pvsim.variants entry point {ep.name!r} ({ep.value}) failed to load: "
                                  f"{type(e).__name__}: {e}") from e
            _check_class(cls)
            if cls.name != ep.name:
                raise ValueError(f"pvsim.variants entry point {ep.name!r} names class {cls.__qualname__} "
                                 f"whose name is {cls.name!r}: the two must agree")
            if _CLASSES.get(cls.name) is not cls:
                register_variant(cls)


def variant_classes() -> dict[str, type]:
    """Every variant class by name: the built-in games, then the registered ones."""
    _load()
    return _CLASSES


def all_variants() -> dict[str, Variant]:
    """Every variant, with its default options, by name."""
    classes = variant_classes()
    with _LOCK:
        for name, cls in list(classes.items()):
            if name not in _DEFAULTS:
                _DEFAULTS[name] = cls()
        for name in [n for n in _DEFAULTS if n not in classes]:
            del _DEFAULTS[name]
    return _DEFAULTS


def get_variant(variant, **options) -> Variant:
    """A variant object from its name and rule options (or the object itself).

    >>> get_variant("estonian").title
    'Estonian Twist'
    >>> get_variant("estonian", speed="fast")
    Traceback (most recent call last):
    ...
    ValueError: estonian has no option 'speed'; its options are: none
    """
    if isinstance(variant, Variant):
        if options:
            return get_variant(variant.name, **{**variant.opts, **options})
        return variant
    classes = variant_classes()
    if variant not in classes:
        raise ValueError(f"unknown variant {variant!r}; choose from {', '.join(classes)}")
    if not options:
        return all_variants()[variant]
    made = classes[variant](**options)  # checks and converts the values
    key = (variant, tuple(sorted(made.opts.items())))
    with _LOCK:
        return _CACHE.setdefault(key, made)


__all__ = ["get_variant", "all_variants", "variant_classes", "register_variant", "unregister_variant",
           "load_plugins", "ENTRY_POINT_GROUP"]
