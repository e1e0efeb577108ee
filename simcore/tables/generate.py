"""Build the evaluator's lookup tables (``eval_tables.npz``).

Run ``python -m simcore.tables.generate`` to rebuild; the result is committed,
so users never pay for this. The tests enumerate every 5- and 7-card hand
against reference counts, so a wrong table cannot pass unnoticed.

Layout of a hand value: ``category << 12 | ordinal``, where the ordinal ranks
the hand within its category (higher wins). Categories: 0 high card .. 8
straight flush.

Non-flush hands are looked up by the multiset of their ranks. The multiset key
is ``sum(5 ** rank)`` (counts are at most 4, so the key is a base-5 numeral and
unique); a perfect hash (hash and displace) maps the ~74k keys of 5-, 6- and
7-card multisets to a small table. Flushes are looked up by the 13-bit mask of
the flush suit's ranks.
"""
from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np

N_RANKS = 13
# One 64-bit multiply hashes a key: its top 14 bits pick the bucket, the 17
# bits below them the slot (one multiply instead of two: measured 1.1x).
HASH_MUL = 0x9E3779B97F4A7C15
BUCKET_BITS = 14
SLOT_BITS = 17
_M64 = (1 << 64) - 1


def bucket_of(key: int) -> int:
    return ((key * HASH_MUL) & _M64) >> (64 - BUCKET_BITS)


def slot_of(key: int) -> int:
    return (((key * HASH_MUL) & _M64) >> (64 - BUCKET_BITS - SLOT_BITS)) & ((1 << SLOT_BITS) - 1)


def _straight_top(ranks: set[int], ace_high: bool) -> int:
    """Top rank of the best straight in ``ranks`` (rank order 0..12), or -1."""
    for top in range(12, 3, -1):
        if all(r in ranks for r in range(top - 4, top + 1)):
            return top
    if ace_high and {12, 0, 1, 2, 3} <= ranks:
        return 3  # the wheel, five-high
    return -1


def five_card_class(ranks: tuple[int, ...], flush: bool, ace_high: bool):
    """(category, tiebreak ranks) of five cards given in rank order 0..12.

    With ``ace_high=False`` the caller has already moved the ace to rank 0;
    straights are then only five consecutive ranks (no wrap-around).
    """
    counts: dict[int, int] = {}
    for r in ranks:
        counts[r] = counts.get(r, 0) + 1
    # Order by (count, rank) descending: the order in which ranks break ties.
    order = sorted(counts, key=lambda r: (counts[r], r), reverse=True)
    shape = sorted(counts.values(), reverse=True)
    top = _straight_top(set(ranks), ace_high) if len(counts) == 5 else -1
    if top >= 0:
        return (8 if flush else 4), (top,)
    if flush:
        return 5, tuple(order)
    if shape == [4, 1]:
        return 7, tuple(order)
    if shape == [3, 2]:
        return 6, tuple(order)
    if shape == [3, 1, 1]:
        return 3, tuple(order)
    if shape == [2, 2, 1]:
        return 2, tuple(order)
    if shape == [2, 1, 1, 1]:
        return 1, tuple(order)
    return 0, tuple(order)


def class_values(ace_high: bool):
    """Map (category, tiebreak) of every five-card class to its value.

    Returns the map and the rank words for each value (ranks in standard
    0..12 numbering, tiebreak order), used to describe hands.
    """
    classes = set()
    for combo in itertools.combinations_with_replacement(range(N_RANKS), 5):
        if max(combo.count(r) for r in combo) > 4:
            continue
        classes.add(five_card_class(combo, False, ace_high))
        if len(set(combo)) == 5:
            classes.add(five_card_class(combo, True, ace_high))
    value_of = {}
    for cat in range(9):
        members = sorted(c for c in classes if c[0] == cat)
        for i, c in enumerate(members):
            value_of[c] = cat << 12 | i
    return value_of


def _to_order(rank: int, ace_high: bool) -> int:
    """Standard rank (0 = two .. 12 = ace) to the evaluator's rank order."""
    return rank if ace_high else (rank + 1) % N_RANKS


def multiset_value(ranks, value_of, ace_high) -> int:
    best = -1
    for sub in set(itertools.combinations(sorted(ranks), 5)):
        ordered = tuple(sorted(_to_order(r, ace_high) for r in sub))
        best = max(best, value_of[five_card_class(ordered, False, ace_high)])
    return best


def flush_value(mask: int, value_of, ace_high) -> int:
    ranks = [r for r in range(N_RANKS) if mask >> r & 1]
    if len(ranks) < 5:
        return 0
    best = -1
    for sub in itertools.combinations(ranks, 5):
        ordered = tuple(sorted(_to_order(r, ace_high) for r in sub))
        best = max(best, value_of[five_card_class(ordered, True, ace_high)])
    return best


def rank_multisets():
    """Every multiset of 5 to 7 ranks with no rank more than four times."""
    for size in (5, 6, 7):
        for combo in itertools.combinations_with_replacement(range(N_RANKS), size):
            if max(combo.count(r) for r in set(combo)) <= 4:
                yield combo


def build_perfect_hash(keys: list[int]):
    """Hash and displace: slot = slot_of(key) ^ disp[bucket_of(key)]."""
    n_slots = 1 << SLOT_BITS
    buckets: dict[int, list[int]] = {}
    for k in keys:
        buckets.setdefault(bucket_of(k), []).append(k)
    # Displacements are searched from 0 up and must fit a byte, so that the
    # displacement table (16 KiB) stays in the L1 cache.
    disp = np.zeros(1 << BUCKET_BITS, dtype=np.uint8)
    taken = np.zeros(n_slots, dtype=bool)
    where = {}
    for b in sorted(buckets, key=lambda b: -len(buckets[b])):
        base = np.array([slot_of(k) for k in buckets[b]], dtype=np.int64)
        for d in range(256):
            pos = base ^ d
            if not taken[pos].any() and len(set(pos.tolist())) == len(pos):
                taken[pos] = True
                disp[b] = d
                where.update(zip(buckets[b], pos.tolist()))
                break
        else:  # pragma: no cover - would need another multiplier
            raise RuntimeError(f"bucket {b} could not be placed")
    return disp, where


def build() -> dict[str, np.ndarray]:
    high = class_values(ace_high=True)
    low = class_values(ace_high=False)
    multisets = list(rank_multisets())
    keys = [sum(5**r for r in m) for m in multisets]
    assert len(set(keys)) == len(keys)
    disp, where = build_perfect_hash(keys)
    rank_high = np.zeros(1 << SLOT_BITS, dtype=np.uint16)
    rank_low = np.zeros(1 << SLOT_BITS, dtype=np.uint16)
    for m, k in zip(multisets, keys):
        rank_high[where[k]] = multiset_value(m, high, True)
        if len(m) == 5:  # low hands are always evaluated five cards at a time
            rank_low[where[k]] = multiset_value(m, low, False)
    flush_high = np.array([flush_value(m, high, True) for m in range(1 << N_RANKS)], np.uint16)
    flush_low = np.array(
        [flush_value(m, low, False) if bin(m).count("1") == 5 else 0 for m in range(1 << N_RANKS)],
        np.uint16,
    )
    # Tiebreak ranks of every high value (standard numbering), to describe hands.
    class_ranks = np.full((9 << 12, 5), -1, dtype=np.int8)
    for (cat, ranks), v in high.items():
        class_ranks[v, : len(ranks)] = ranks
    return dict(
        disp=disp, rank_high=rank_high, rank_low=rank_low,
        flush_high=flush_high, flush_low=flush_low, class_ranks=class_ranks,
    )


def main() -> None:
    out = Path(__file__).with_name("eval_tables.npz")
    np.savez_compressed(out, **build())
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
