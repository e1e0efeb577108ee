"""The games pvsim plays, by CLI name."""
from __future__ import annotations

from ..engine.variant import Variant


def _registry() -> dict[str, Variant]:
    from .estonian import EstonianTwist
    from .holdem import TexasHoldem
    from .slovak import SlovakDoubleBarrel

    return {v.name: v for v in (TexasHoldem(), EstonianTwist(), SlovakDoubleBarrel())}


_VARIANTS: dict[str, Variant] | None = None


def all_variants() -> dict[str, Variant]:
    """All variants by name."""
    global _VARIANTS
    if _VARIANTS is None:
        _VARIANTS = _registry()
    return _VARIANTS


def get_variant(variant) -> Variant:
    """A variant object from its name (or the object itself)."""
    if isinstance(variant, Variant):
        return variant
    all_ = all_variants()
    if variant not in all_:
        raise ValueError(f"unknown variant {variant!r}; choose from {', '.join(all_)}")
    return all_[variant]
