"""The games pvsim plays, by CLI name."""
from __future__ import annotations

from ..engine.variant import Variant


def _classes() -> dict[str, type]:
    from .estonian import EstonianTwist
    from .holdem import TexasHoldem
    from .russian import RussianHoldem
    from .slovak import SlovakDoubleBarrel
    from .sviten import SvitenSpecial
    from .tapiola import TapiolaHoldem

    classes = [TexasHoldem, EstonianTwist, SlovakDoubleBarrel, TapiolaHoldem, SvitenSpecial, RussianHoldem]
    return {c.name: c for c in classes}


_CLASSES: dict[str, type] | None = None
_DEFAULTS: dict[str, Variant] = {}
_CACHE: dict[tuple, Variant] = {}


def variant_classes() -> dict[str, type]:
    """Every variant class by name."""
    global _CLASSES
    if _CLASSES is None:
        _CLASSES = _classes()
    return _CLASSES


def all_variants() -> dict[str, Variant]:
    """Every variant, with its default options, by name."""
    if not _DEFAULTS:
        _DEFAULTS.update({name: cls() for name, cls in variant_classes().items()})
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
    return _CACHE.setdefault(key, made)
