"""Batch hand evaluators: high (5-7 cards), Omaha, ace-to-six low, group choices.

Every evaluator takes a batch, an ``(n, k)`` integer array of cards
(``4*rank + suit``), and returns an ``(n,)`` int32 array in which a HIGHER value
wins and equal values tie, whatever the ranking. A high value is
``category << 12 | ordinal`` (category 0 high card .. 8 straight flush).

The public functions check their arguments and allocate; the jitted kernels
below them only loop over arrays. The card keys, lookup tables and per-hand
kernels they loop over live in :mod:`simcore.kernels`, for variants and
strategies to use too.
"""
from __future__ import annotations

import itertools
import threading

import numba
import numpy as np
from numba import njit, prange

from .cards import parse_cards, rank_name
from .kernels import (
    CARD_BIT, CARD_KEY, CLASS_RANKS, FLUSH_FLAGS, KEY_U8, LOW_TOP, RANK_HIGH, SIMD_ROW_CHECK, SUIT_START,
    bad_rows8, best_choice_value, best_omaha_value, flush_value, popcount, rank_slot, value_high, value_low5,
)

__all__ = [
    "CATEGORY_NAMES",
    "evaluate_hands",
    "evaluate_hand",
    "hand_category",
    "describe_hand",
    "evaluate_omaha",
    "evaluate_low_a6",
    "low_category",
    "group_choices",
    "evaluate_choices",
    "category_counts_all",
]

CATEGORY_NAMES = (
    "high card", "pair", "two pair", "three of a kind", "straight",
    "flush", "full house", "four of a kind", "straight flush",
)


@njit(cache=True, nogil=True, inline="always")
def _row_value(cards, i, k, key):
    """High value of row ``i`` (``k`` cards) from its summed key: the rank table, or the
    out-of-line flush path when the key flags a flush."""
    if key & FLUSH_FLAGS:
        return flush_value(cards, i, k, key)
    return np.int32(RANK_HIGH[rank_slot(key)])


@njit(cache=True, nogil=True, inline="always")
def _eval_high_fixed(cards, out, k, check):
    """Evaluate every row and, with ``check``, check it in the same pass; True if some row is bad.

    One scalar pass over the flat card buffer. Measured on this project's
    2-core EPYC (Zen 4): 1.3x over vectorized gathers with a separate flush
    pass, and 1.1x over 2-D indexing (whose row stride numba reloads from
    the stack). Cards are read as uint8: with a signed index numba adds a
    wrap-around check to every lookup (measured 1.4x), and with the 256-entry
    tables (and the masked flush path) any byte reads inside them. Requires C
    order.

    The check is fused and branch-free. Where the CPU has AVX-512 byte
    permutes (:data:`~simcore.kernels.SIMD_ROW_CHECK`), every 8 rows are
    checked by :func:`~simcore.kernels.bad_rows8` inside the evaluation loop,
    where its vector instructions overlap the scalar lookups (measured 0.94x
    the unchecked rate on 7 cards, against 0.67x for the scalar check and
    0.77x for the same vector check run chunk by chunk before the
    evaluation). Elsewhere, and for the last rows, a row's cards are summed
    as bits ``1 << card``; the sum has as many set bits as the row has cards
    exactly when no card repeats (a repeat carries), and a card outside 0..51
    adds BAD_CARD_KEY to the key.
    """
    flat = cards.reshape(-1)
    n = cards.shape[0]
    bad = np.uint64(0)
    # Unsigned positions: numba adds no negative-index wrap-around to them.
    b = np.uint64(0)
    i = np.uint64(0)
    if check and SIMD_ROW_CHECK:
        # Groups of 8 rows while a 64-byte read stays inside the buffer.
        n_groups = (flat.shape[0] - 64) // (8 * k) + 1 if flat.shape[0] >= 64 else 0
        for _ in range(n_groups):
            bad |= bad_rows8(flat, b, k)
            for _r in range(8):
                key = SUIT_START
                for j in range(k):
                    key += KEY_U8[np.uint8(flat[b + np.uint64(j)])]
                b += np.uint64(k)
                out[i] = _row_value(cards, i, k, key)
                i += np.uint64(1)
    while i < n:
        key = SUIT_START
        total = np.uint64(0)
        for j in range(k):
            u = np.uint8(flat[b + np.uint64(j)])
            key += KEY_U8[u]
            if check:
                total += np.uint64(1) << np.uint64(u & np.uint8(63))
        b += np.uint64(k)
        if check:
            bad |= (popcount(total) ^ np.uint64(k)) | (key >> np.uint64(56))
        out[i] = _row_value(cards, i, k, key)
        i += np.uint64(1)
    return bad != np.uint64(0)


# One kernel per card count: a literal count lets LLVM unroll the inner loop
# (measured 1.6x); a literal ``check`` leaves the unchecked loop bare.
@njit(cache=True, nogil=True, inline="never")
def _eval_high7(cards, out, check):
    if check:
        return _eval_high_fixed(cards, out, 7, True)
    return _eval_high_fixed(cards, out, 7, False)


@njit(cache=True, nogil=True, inline="never")
def _eval_high6(cards, out, check):
    if check:
        return _eval_high_fixed(cards, out, 6, True)
    return _eval_high_fixed(cards, out, 6, False)


@njit(cache=True, nogil=True, inline="never")
def _eval_high5(cards, out, check):
    if check:
        return _eval_high_fixed(cards, out, 5, True)
    return _eval_high_fixed(cards, out, 5, False)


@njit(cache=True, nogil=True)
def _eval_high_rows(cards, out, check):
    """Values of every row into ``out``; with ``check``, True if some row holds a bad card."""
    # Rows run from 0 (callers pass slices): with start/stop bounds numba keeps
    # negative-index checks in the loop (measured 1.3x slower).
    k = cards.shape[1]
    if k == 7:
        return _eval_high7(cards, out, check)
    elif k == 6:
        return _eval_high6(cards, out, check)
    else:
        return _eval_high5(cards, out, check)


@njit(cache=True, nogil=True, parallel=True)
def _eval_high_parallel(cards, out, n_chunks, check):
    n = cards.shape[0]
    step = (n + n_chunks - 1) // n_chunks
    bad = np.zeros(n_chunks, np.bool_)
    for ch in prange(n_chunks):
        lo, hi = min(n, ch * step), min(n, (ch + 1) * step)
        bad[ch] = _eval_high_rows(cards[lo:hi], out[lo:hi], check)
    return bad.any()


@njit(cache=True, nogil=True)
def _eval_omaha_rows(hole, board, out):
    # Scratch for the board triples, allocated once per call.
    tkey = np.empty(10, np.uint64)
    tbits = np.empty(10, np.uint64)
    for i in range(hole.shape[0]):
        out[i] = best_omaha_value(hole, board, i, tkey, tbits)


@njit(cache=True, nogil=True)
def _eval_choices_rows(cards, choices, low, out):
    """Best of the five-card hands ``cards[i, choices[c]]`` for every row."""
    for i in range(cards.shape[0]):
        out[i] = best_choice_value(cards, i, choices, low)


@njit(cache=True, nogil=True)
def _first_bad_card(arr):
    """(row, card, kind) of the first card out of 0..51 (kind 1) or repeated in its row (kind 2).

    One pass over the flat C-order buffer with uint8 cards (negative cards
    wrap to 128..255, so one comparison finds both ends); its branches are
    never taken on good input, which makes it faster than a branch-free pass.
    """
    flat = arr.reshape(-1)
    k = arr.shape[1]
    b = 0
    for i in range(arr.shape[0]):
        seen = np.uint64(0)
        for j in range(k):
            u = np.uint8(flat[b + j])
            if u > 51:
                return i, arr[i, j], 1
            bit = np.uint64(1) << np.uint64(u)
            if seen & bit:
                return i, arr[i, j], 2
            seen |= bit
        b += k
    return -1, 0, 0


def _check_cards(arr, what):
    """Raise ValueError naming the first bad card of a C-contiguous int8 batch."""
    row, card, kind = _first_bad_card(arr)
    if kind == 1:
        raise ValueError(f"{what}: card value {card} is not in 0..51 (row {row})")
    if kind == 2:
        from .cards import format_cards

        raise ValueError(f"{what}: duplicate card {format_cards([card])} in row {row}")


def _as_batch(cards, widths, what, check=True, fused=False):
    """A validated 2-D int8 card batch (a 1-D hand or a string becomes one row).

    With ``check`` every card is checked to be in 0..51 and distinct within its
    row; the engine, whose deals are distinct by construction, skips it. With
    ``fused`` the caller's kernel checks the int8 cards itself (values that do
    not fit int8 are still rejected here, before the cast could hide them).
    """
    if isinstance(cards, str):
        cards = parse_cards(cards)
    arr = np.asarray(cards)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] not in widths:
        raise ValueError(
            f"{what}: expected an (n, k) card array with k in {sorted(widths)}, got shape {arr.shape}"
        )
    if not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{what}: cards must be integers 0..51, got dtype {arr.dtype}")
    if check:
        if arr.dtype != np.int8 and arr.size and (arr.min() < -128 or arr.max() > 127):
            bad = arr[(arr < 0) | (arr > 51)][0]
            raise ValueError(f"{what}: card value {bad} is not in 0..51")
        arr = np.ascontiguousarray(arr, dtype=np.int8)
        if not fused:
            _check_cards(arr, what)
    return np.ascontiguousarray(arr, dtype=np.int8)


def evaluate_hands(cards, threads: int | None = None, check: bool = True,
                   out: np.ndarray | None = None) -> np.ndarray:
    """Value of the best five-card high hand in each row.

    Parameters
    ----------
    cards : (n, k) int array, k in {5, 6, 7}; one hand per row (a string or
        a 1-D hand is one row).
    threads : worker threads; default: numba's current setting (all cores).
    check : check that cards are 0..51 and distinct in each row. The check
        is fused into the evaluation (it costs a few percent); with False
        bad cards still cannot crash anything, they just give meaningless
        values.
    out : optional (n,) C-contiguous int32 array to write the values into,
        for callers that evaluate batch after batch (a fresh 40 MB result
        costs about 10% of a 10-million-hand call in page faults).

    Returns
    -------
    (n,) int32 (``out`` when given); higher wins, equal values tie.

    Examples
    --------
    >>> royal, quads = evaluate_hands([parse_cards("As Ks Qs Js Ts"),
    ...                                parse_cards("Ac Ad Ah As Kd")])
    >>> bool(royal > quads)
    True
    """
    arr = _as_batch(cards, (5, 6, 7), "evaluate_hands", check, fused=True)
    if out is None:
        out = np.empty(arr.shape[0], dtype=np.int32)
    elif not (isinstance(out, np.ndarray) and out.dtype == np.int32 and out.shape == arr.shape[:1]
              and out.flags.c_contiguous and out.flags.writeable):
        got = f"{out.dtype} {out.shape}" if isinstance(out, np.ndarray) else type(out).__name__
        raise ValueError(f"evaluate_hands: out must be a writeable C-contiguous int32 array of "
                         f"shape ({arr.shape[0]},), got {got}")
    n_threads = numba.get_num_threads() if threads is None else int(threads)
    # Numba's default (workqueue) threading layer must not be entered from two
    # threads at once: off the main thread (a strategy inside a run's worker
    # pool, say) the evaluation stays serial; the run is parallel already.
    if n_threads <= 1 or arr.shape[0] < 20000 or threading.current_thread() is not threading.main_thread():
        bad = _eval_high_rows(arr, out, check)
    else:
        prev = numba.get_num_threads()
        numba.set_num_threads(min(n_threads, numba.config.NUMBA_NUM_THREADS))
        try:
            bad = _eval_high_parallel(arr, out, 4 * n_threads, check)
        finally:
            numba.set_num_threads(prev)
    if check and bad:
        _check_cards(arr, "evaluate_hands")  # names the first bad card and its row
    return out


def evaluate_hand(cards) -> int:
    """Value of one hand of 5-7 cards given as a string or a sequence.

    >>> describe_hand(evaluate_hand("Ks Kh Kd 9s 9d 2c 7h"))
    'kings full of nines'
    """
    hand = parse_cards(cards)
    return int(evaluate_hands(hand)[0])


def hand_category(values):
    """Category of high values: 0 high card, 1 pair, ... 8 straight flush.

    >>> int(hand_category(evaluate_hand("As Ks Qs Js Ts")))
    8
    """
    return np.asarray(values) >> 12


def describe_hand(value: int) -> str:
    """The words a player uses for a high hand value.

    >>> describe_hand(evaluate_hand("Qs Qd 5c 5h 2s"))
    'two pair, queens and fives'
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"a hand value is a whole number (from evaluate_hand), got {value!r}")
    value = int(value)
    if not 0 <= value < 9 << 12 or CLASS_RANKS[value, 0] < 0:
        raise ValueError(f"{value} is not a hand value")
    cat = value >> 12
    r = [int(x) for x in CLASS_RANKS[value] if x >= 0]
    one, many = rank_name, lambda x: rank_name(x, plural=True)
    if cat == 8:
        return "royal flush" if r[0] == 12 else f"{one(r[0])}-high straight flush"
    if cat == 7:
        return f"four of a kind, {many(r[0])}"
    if cat == 6:
        return f"{many(r[0])} full of {many(r[1])}"
    if cat == 5:
        return f"{one(r[0])}-high flush"
    if cat == 4:
        return f"{one(r[0])}-high straight"
    if cat == 3:
        return f"three of a kind, {many(r[0])}"
    if cat == 2:
        return f"two pair, {many(r[0])} and {many(r[1])}"
    if cat == 1:
        return f"pair of {many(r[0])}"
    return f"{one(r[0])} high"


def evaluate_omaha(hole, board, check: bool = True) -> np.ndarray:
    """Omaha value: exactly two of the hole cards plus exactly three board cards.

    Parameters
    ----------
    hole : (n, k) int array, k in {4, 5}.
    board : (n, 5) int array.

    Returns
    -------
    (n,) int32 high values; higher wins.

    >>> v = evaluate_omaha(parse_cards("As Ks Qd Jd"), parse_cards("Qs Js Ts 2c 3h"))
    >>> describe_hand(v[0])
    'royal flush'
    """
    h = _as_batch(hole, (4, 5), "evaluate_omaha hole", check)
    b = _as_batch(board, (5,), "evaluate_omaha board", check)
    if h.shape[0] != b.shape[0]:
        raise ValueError(f"evaluate_omaha: {h.shape[0]} hole rows but {b.shape[0]} board rows")
    if check:
        _check_cards(np.concatenate([h, b], axis=1), "evaluate_omaha hole + board")
    out = np.empty(h.shape[0], dtype=np.int32)
    _eval_omaha_rows(h, b, out)
    return out


_LOW5 = np.arange(5, dtype=np.int8)[None, :]
_LOW6 = np.array(list(itertools.combinations(range(6), 5)), dtype=np.int8)


def evaluate_low_a6(cards, check: bool = True) -> np.ndarray:
    """Ace-to-six low of 5 or 6 cards (best five); the best low scores highest.

    A five-card hand is valued as a high hand with the ace as the lowest rank
    only (A-2-3-4-5 is a straight, 10-J-Q-K-A is king-high), and the lowest of
    those wins; values are inverted so that a higher value wins here too.

    >>> best, wheel = evaluate_low_a6([parse_cards("6s 4d 3c 2h Ac"), parse_cards("5s 4d 3c 2h Ac")])
    >>> bool(best > wheel)
    True
    """
    arr = _as_batch(cards, (5, 6), "evaluate_low_a6", check)
    out = np.empty(arr.shape[0], dtype=np.int32)
    _eval_choices_rows(arr, _LOW5 if arr.shape[1] == 5 else _LOW6, True, out)
    return out


def low_category(values):
    """Category (0 high card .. 8 straight flush) of ace-to-six low values."""
    return (LOW_TOP - 1 - np.asarray(values)) >> 12


def group_choices(*options) -> np.ndarray:
    """Column choices for hands built from groups of cards.

    Each option is a sequence of ``(columns, count)`` pairs whose counts add up
    to five: take ``count`` cards from ``columns``. The result lists every way
    of doing so, over all options, as a ``(c, 5)`` int8 array of columns for
    :func:`evaluate_choices`.

    Tapiola: hand cards in columns 0-2, centre 3, tower A 4-6, tower B 7-9:

    >>> ch = group_choices([((0, 1, 2), 3), ((4, 5, 6), 1), ((7, 8, 9), 1)],
    ...                    [((0, 1, 2), 2), ((3,), 1), ((4, 5, 6), 1), ((7, 8, 9), 1)])
    >>> ch.shape
    (36, 5)
    """
    rows = []
    for option in options:
        if sum(count for _, count in option) != 5:
            raise ValueError(f"group choice {option} does not take exactly five cards")
        parts = [list(itertools.combinations(cols, count)) for cols, count in option]
        for pick in itertools.product(*parts):
            rows.append(sum(pick, ()))
    out = np.array(rows, dtype=np.int8)
    return out


def evaluate_choices(cards, choices, kind: str = "high", check: bool = True) -> np.ndarray:
    """Best five-card hand per row among the column choices ``choices``.

    Parameters
    ----------
    cards : (n, m) int array of the cards available to each hand.
    choices : (c, 5) int array of column indices (see :func:`group_choices`).
    kind : "high" or "low" (ace-to-six).

    Returns
    -------
    (n,) int32 values of the requested kind; higher wins.
    """
    if kind not in ("high", "low"):
        raise ValueError(f"kind must be 'high' or 'low', got {kind!r}")
    arr = np.asarray(cards)
    ch = np.ascontiguousarray(choices, dtype=np.int8)
    if ch.ndim != 2 or ch.shape[1] != 5 or ch.min() < 0 or ch.max() >= arr.shape[-1]:
        raise ValueError(f"choices must be (c, 5) column indices below {arr.shape[-1]}")
    repeated = (np.diff(np.sort(ch, axis=1), axis=1) == 0).any(axis=1)
    if repeated.any():
        raise ValueError(f"choice {ch[repeated][0].tolist()} uses a column twice")
    arr = _as_batch(arr, (arr.shape[-1],), "evaluate_choices", check)
    out = np.empty(arr.shape[0], dtype=np.int32)
    _eval_choices_rows(arr, ch, kind == "low", out)
    return out


# First two cards of a seven-card hand, for the enumeration's parallel loop.
_PAIR_A = np.array([a for a in range(52) for b in range(a + 1, 52)], dtype=np.int64)
_PAIR_B = np.array([b for a in range(52) for b in range(a + 1, 52)], dtype=np.int64)
_ENUM_CHUNKS = 64
# Adding one to every suit counter sets a flush flag iff a suit already holds four.
_SUIT_ONES = np.uint64(sum(1 << (32 + 4 * s) for s in range(4)))


@njit(cache=True, nogil=True, parallel=True)
def _count_7card_categories():
    """Category counts of all C(52, 7) seven-card hands (incremental keys)."""
    # Chunks take every 64th (a, b) pair: the work per pair falls steeply with
    # a and b, so contiguous ranges (or a loop over a alone) balance badly.
    counts = np.zeros((_ENUM_CHUNKS, 16), np.int64)
    for ch in prange(_ENUM_CHUNKS):
        for p in range(ch, _PAIR_A.shape[0], _ENUM_CHUNKS):
            a, b = _PAIR_A[p], _PAIR_B[p]
            kb = SUIT_START + CARD_KEY[a] + CARD_KEY[b]
            bb = CARD_BIT[a] | CARD_BIT[b]
            for c in range(b + 1, 52):
                kc, bc = kb + CARD_KEY[c], bb | CARD_BIT[c]
                for d in range(c + 1, 52):
                    kd, bd = kc + CARD_KEY[d], bc | CARD_BIT[d]
                    for e in range(d + 1, 52):
                        ke, be = kd + CARD_KEY[e], bd | CARD_BIT[e]
                        for f in range(e + 1, 52):
                            kf, bf = ke + CARD_KEY[f], be | CARD_BIT[f]
                            if (kf + _SUIT_ONES) & FLUSH_FLAGS:
                                for g in range(f + 1, 52):
                                    v = value_high(kf + CARD_KEY[g], bf | CARD_BIT[g])
                                    counts[ch, v >> 12] += 1
                            else:
                                # No suit holds four of the six: no flush (measured 1.2x).
                                for g in range(f + 1, 52):
                                    v = RANK_HIGH[rank_slot(kf + CARD_KEY[g])]
                                    counts[ch, v >> 12] += 1
    return counts.sum(axis=0)[:9]


@njit(cache=True, nogil=True)
def _all_five_card_values(low):
    out = np.empty(2598960, np.int32)
    i = 0
    for a in range(52):
        for b in range(a + 1, 52):
            for c in range(b + 1, 52):
                for d in range(c + 1, 52):
                    for e in range(d + 1, 52):
                        key = (SUIT_START + CARD_KEY[a] + CARD_KEY[b] + CARD_KEY[c]
                               + CARD_KEY[d] + CARD_KEY[e])
                        bits = (CARD_BIT[a] | CARD_BIT[b] | CARD_BIT[c]
                                | CARD_BIT[d] | CARD_BIT[e])
                        out[i] = value_low5(key, bits) if low else value_high(key, bits)
                        i += 1
    return out


def all_five_card_values(kind: str = "high") -> np.ndarray:
    """Values of all 2,598,960 five-card hands in lexicographic card order."""
    return _all_five_card_values(kind == "low")


def category_counts_all(k: int = 7, threads: int | None = None) -> np.ndarray:
    """Category counts over every k-card hand (k = 5 or 7), by full enumeration."""
    if k == 5:
        return np.bincount(all_five_card_values() >> 12, minlength=9)
    if k != 7:
        raise ValueError(f"k must be 5 or 7, got {k}")
    prev = numba.get_num_threads()
    if threads is not None:
        numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))
    try:
        return _count_7card_categories()
    finally:
        numba.set_num_threads(prev)
