"""Input checks of the engine's runs: bad input gets a ValueError naming the bad value.

One place for the rules every argument check shares: :func:`is_whole` (an
integer, Python or numpy, but never a bool: ``True`` is no count) and
:func:`is_real` (the same for a real number), so that no caller writes
``isinstance(x, bool) or not isinstance(x, ...)`` again.
"""
from __future__ import annotations

import math
import os

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


# The memory one block holds while it is played, per deal: measured peaks (tracemalloc and
# the process's resident high-water mark agree) run from 46 B (Hold'em, 2 players) to
# 1,111 B (Sviten, 9 players) with one alternative, and each further alternative of a
# paired run (compare's b, an analysis action) adds about 36 B a player (a Sviten draw
# analysis, 32 actions: 2,930 B at 2 players, 11,081 B at 9). The estimate below is
# above every one of those measurements, so a block it allows fits.
BLOCK_BYTES_FIXED = 300
BLOCK_BYTES_PER_PLAYER = 100
BLOCK_BYTES_PER_ALTERNATIVE = 48  # per player, for every alternative after the first
MEMORY_SHARE = 0.5  # of the machine's memory, for the blocks being played at once


def deal_bytes(n_players: int, alternatives: int = 1) -> int:
    """Estimated bytes a deal of a block holds while the block is played (an upper bound
    over the built-in variants; see BLOCK_BYTES_FIXED)."""
    return (BLOCK_BYTES_FIXED + BLOCK_BYTES_PER_PLAYER * n_players
            + BLOCK_BYTES_PER_ALTERNATIVE * n_players * max(alternatives - 1, 0))


def machine_memory() -> int | None:
    """Bytes of memory this process may use: the physical memory, or a container's
    (cgroup) limit when lower; None where neither can be read."""
    import os

    sizes = []
    try:
        sizes.append(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        pass
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path) as f:
                text = f.read().strip()
        except OSError:
            continue
        if text.isdigit():
            sizes.append(int(text))
    sizes = [s for s in sizes if s > 0]
    return min(sizes) if sizes else None


def check_block_memory(variant, n_players: int, alternatives: int, block_size: int, n_deals: int,
                       workers: int) -> None:
    """A ValueError naming the figures when the blocks played at once (one a worker, each
    ``min(block_size, n_deals)`` deals) would hold more than MEMORY_SHARE of the machine's
    memory: a clear refusal before the run, not a MemoryError in the middle of it."""
    total = machine_memory()
    if total is None:
        return
    deals = min(block_size, n_deals)
    blocks = max(1, min(workers, -(-n_deals // block_size)))
    per_deal = deal_bytes(n_players, alternatives)
    need = deals * per_deal * blocks
    if need <= MEMORY_SHARE * total:
        return
    most = max(1, int(MEMORY_SHARE * total // (per_deal * blocks)))
    what = f"{n_players} players" + (f", {alternatives} alternatives" if alternatives > 1 else "")
    raise ValueError(
        f"the block size {block_size:,} (--block-size) would hold about {need / 2**30:,.1f} GiB at once "
        f"({blocks} block{'s' if blocks > 1 else ''} being played x {deals:,} deals x about {per_deal:,} bytes "
        f"a deal for {variant.name} with {what}), more than {MEMORY_SHARE:.0%} of this machine's "
        f"{total / 2**30:,.1f} GiB; give a block size of at most {most:,} (or fewer workers)")


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


def check_writable(path, what: str = "out") -> str:
    """``path`` as a string if a file can be written there; else ValueError naming it and why.

    Checked before a run, so that a missing folder or a folder given as the file name is found
    before the work, not after it (nothing is created or written)."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{what} is a file name, got {path!r}")
    path = os.fspath(path)
    if not isinstance(path, str) or not path.strip():
        raise ValueError(f"{what} is empty ({path!r}): give a file name")
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise ValueError(f"{what} {path!r} is a folder; give a file name")
    if not os.path.isdir(folder):
        raise ValueError(f"{what} {path!r}: the folder {folder!r} does not exist")
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise ValueError(f"{what} {path!r} cannot be written (permission denied)")
    return path


def chart_format(path, what: str = "chart") -> str:
    """The image format ``path``'s suffix names (``"png"`` for ``x.png``); else ValueError naming it.

    Checked before a run, so that a chart named ``x`` or ``x.npz`` is refused before the work, not
    after it (matplotlib would add ``.png`` to the first and refuse the second)."""
    from matplotlib.backend_bases import FigureCanvasBase

    suffix = os.path.splitext(os.fspath(path))[1].lstrip(".").lower()
    formats = FigureCanvasBase.get_supported_filetypes()
    if suffix not in formats:
        raise ValueError(f"{what} {os.fspath(path)!r}: " + (f"{suffix!r} is not an image format" if suffix else
                         "no suffix to name its image format") + f"; end it with one of {', '.join(sorted(formats))}")
    return suffix


def same_file(a, b) -> bool:
    """Whether two paths name one file: the same path once links are resolved, or (both existing)
    one file reached two ways, such as a hard link; a path that does not exist yet is another file."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist yet
        return False


def check_validate_blocks(validate: bool, deals: int, block_size: int, deals_name: str = "deals",
                          block_name: str = "block_size", validate_name: str = "validate") -> None:
    """A validated fit holds out every other block, so it needs more than one; a ValueError naming
    the two figures. The names are as the caller's user wrote them: parameters, or the CLI's flags."""
    if validate and deals <= block_size:
        raise ValueError(f"{validate_name} holds out every other block of the fitting deals, so it needs more "
                         f"than one block: {deals_name} {deals:,} is not above {block_name} {block_size:,}")


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
