"""Input checks of the engine's runs: bad input gets a ValueError naming the bad value.

One place for the rules every argument check shares: :func:`is_whole` (an
integer, Python or numpy, but never a bool: ``True`` is no count) and
:func:`is_real` (the same for a real number), so that no caller writes
``isinstance(x, bool) or not isinstance(x, ...)`` again.
"""
from __future__ import annotations

import math

import numpy as np

from .deal import check_known


def is_whole(value) -> bool:
    """An integer (``int`` or a numpy integer) and not a bool."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def is_real(value) -> bool:
    """A finite or infinite real number (``int``, ``float`` or numpy's), not a bool."""
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)


def check_whole(value, least: int, message: str) -> int:
    """``value`` as an int if it is whole and at least ``least``; else ValueError(message + value)."""
    if not is_whole(value) or value < least:
        raise ValueError(f"{message}, got {value!r}")
    return int(value)


def check_deals(n_deals) -> int:
    """``n_deals`` as an int, or a ValueError naming it."""
    return check_whole(n_deals, 1, "the number of deals must be a positive integer")


def check_seed(seed) -> int:
    """``seed`` as an int, or a ValueError naming it (no truncation of 1.7, no bools)."""
    return check_whole(seed, 0, "the seed must be a non-negative integer")


def check_block_size(block_size) -> int:
    """``block_size`` as an int, or a ValueError naming it (0 or -5 would play nothing)."""
    return check_whole(block_size, 1, "the block size must be a positive integer (deals per block)")


def check_min_deals(min_deals) -> int:
    return check_whole(min_deals, 0, "min_deals must be a non-negative integer")


def check_workers(workers) -> int | None:
    """The number of worker threads or processes (None: the default), or a ValueError naming it."""
    if workers is None:
        return None
    return check_whole(workers, 1, "the number of workers must be a positive integer")


def check_flag(value, name: str) -> None:
    """A ValueError unless ``value`` is a bool ("no" is truthy: it must not mean yes)."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")


def check_precision(precision) -> None:
    """A stopping rule's half-width: None, or a positive finite number."""
    if precision is not None and (not is_real(precision) or not 0 < precision < np.inf):
        raise ValueError(f"precision must be a positive, finite number, got {precision!r}")


def check_every(checkpoint_every) -> None:
    """Seconds between checkpoint saves: None (the default) or a positive finite number."""
    if checkpoint_every is not None and (not is_real(checkpoint_every) or not math.isfinite(checkpoint_every)
                                         or checkpoint_every <= 0):
        raise ValueError(f"--checkpoint-every (checkpoint_every) takes a positive number of seconds, "
                         f"got {checkpoint_every!r}")


def check_situation(variant, n_players: int, known: np.ndarray) -> np.ndarray:
    """The known slots as int8 (n_slots,), checked for shape, range and repeats.

    Checked before the cast: 300 or 1.7 are errors, not K♣ or 2♦.
    """
    raw = np.asarray(known)
    if raw.size and raw.dtype.kind not in "iu":
        raise TypeError(f"known slots must be integer cards (0..51, -1 for a random slot), got dtype {raw.dtype}")
    bad = np.flatnonzero((raw < -1) | (raw > 51)) if raw.size else []
    if len(bad):
        i = int(bad[0])
        raise ValueError(f"known slot {i} holds {raw.ravel()[i]!r}; a slot is a card 0..51 or -1 (random)")
    known = raw.astype(np.int8)
    if known.shape != (variant.n_slots(n_players),):
        raise ValueError(f"known slots must have shape ({variant.n_slots(n_players)},), got {known.shape}")
    check_known(known, "the known cards")
    return known
