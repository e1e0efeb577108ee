"""Table sizes: the usual ones, which the shipped ``solved`` tables are made for, and the
``GAME:PLAYERS`` specs that the solving experiments and benchmarks take on their command lines.

One reader for every ``--games`` option, so that a misspelt game or an impossible player count is
the same clear error everywhere (naming the spec), raised before anything runs, rather than a
``KeyError`` or an ``int()`` traceback part-way through a long run.
"""

from __future__ import annotations

import argparse

# issue 21's usual sizes, in the order the tables and docs list them
USUAL = ("estonian:6", "slovak:6", "tapiola:6", "sviten:6", "russian:4", "russian:3")
DEFAULT_PLAYERS = 6


def split(spec: str) -> tuple[str, int]:
    """``"russian:4"`` -> ``("russian", 4)``; a bare game name is at :data:`DEFAULT_PLAYERS`.

    Raises :class:`argparse.ArgumentTypeError` (a ``ValueError`` would do as well for argparse)
    naming the spec, for an unknown game, a player count that is not a whole number, or one the
    game cannot seat.
    """
    from simcore.variants import get_variant, variant_classes

    game, colon, p = str(spec).strip().partition(":")
    known = sorted(variant_classes())
    if game not in known:
        raise argparse.ArgumentTypeError(f"unknown game {game!r} in {spec!r}; games: {', '.join(known)}")
    try:
        players = int(p) if colon else DEFAULT_PLAYERS
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"the player count in {spec!r} is not a whole number: {p!r} (write GAME:PLAYERS, e.g. russian:4)") from None
    try:
        get_variant(game).check_players(players)
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"{spec!r}: {e}") from None
    return game, players


def size(spec: str) -> str:
    """An argparse ``type``: the spec checked by :func:`split` and written ``GAME:PLAYERS``."""
    game, players = split(spec)
    return f"{game}:{players}"


def size_list(text: str) -> list[str]:
    """An argparse ``type`` for a comma-separated list of specs (``estonian:6,russian:4``)."""
    return [size(s) for s in str(text).split(",") if s.strip()]
