"""Dealing: seeds per block and a numba partial Fisher-Yates with fixed cards.

Dealing is the only random step of a deal: a deal is a row of card *slots*
(the variant says which slot is whose), each either fixed by the caller or
drawn without replacement from the cards that are left.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..cards import format_cards

BLOCK_STREAMS = 16  # at least: the deal stream + one per seat


def block_seeds(seed: int, block: int, n_players: int = BLOCK_STREAMS - 1) -> list[np.random.SeedSequence]:
    """Independent seed sequences of one block: [deal, seat 0, seat 1, ...].

    Block ``b`` always gets the same streams whatever the thread count or the
    order in which blocks run, which makes runs bit-identical. Child ``k`` of
    a SeedSequence does not depend on how many are spawned, so tables of more
    than 15 seats get streams of their own without changing anyone else's.
    """
    root = np.random.SeedSequence(entropy=int(seed), spawn_key=(int(block),))
    return root.spawn(max(BLOCK_STREAMS, 1 + int(n_players)))


@njit(cache=True, nogil=True, inline="always")
def _deal_row(known, deck, m, rand, out, i):
    """Deal row i from the m cards in ``deck``: fixed slots copied, others drawn.

    ``(r * left) >> 32`` maps a uint32 onto the cards left (bias below
    left / 2**32, about 1e-8: negligible). Deck positions are unsigned, which
    spares numba's negative-index check on every access (measured 1.25x).
    """
    t = np.uint64(0)
    mm = np.uint64(m)
    for j in range(out.shape[1]):
        if known[j] >= 0:
            out[i, j] = known[j]
        else:
            k = t + ((np.uint64(rand[i, j]) * (mm - t)) >> np.uint64(32))
            c = deck[k]
            deck[k] = deck[t]
            deck[t] = c
            out[i, j] = c
            t += np.uint64(1)


@njit(cache=True, nogil=True, inline="always")
def _remaining(known, deck):
    """Cards not fixed in ``known``, in card order, into ``deck``; returns their count."""
    used = np.zeros(52, np.bool_)
    for j in range(known.shape[0]):
        if known[j] >= 0:
            used[known[j]] = True
    m = 0
    for c in range(52):
        if not used[c]:
            deck[m] = c
            m += 1
    return m


@njit(cache=True, nogil=True, inline="always")
def _deal_two_rows(known, base, m, rand, out, i, da, db):
    """Rows ``i`` and ``i + 1`` dealt from the same ``m`` remaining cards ``base``, each
    from its own deck (``da``, ``db``), so that the CPU overlaps two independent
    chains of swaps (measured 1.3x over one row at a time); each row gets exactly
    the cards :func:`_deal_row` would give it."""
    for c in range(52):  # a plain loop: a slice copy costs a call per row
        da[c] = base[c]
        db[c] = base[c]
    mm = np.uint64(m)
    t = np.uint64(0)
    for j in range(out.shape[1]):
        if known[j] >= 0:
            out[i, j] = known[j]
            out[i + 1, j] = known[j]
        else:
            left = mm - t
            ka = t + ((np.uint64(rand[i, j]) * left) >> np.uint64(32))
            kb = t + ((np.uint64(rand[i + 1, j]) * left) >> np.uint64(32))
            ca = da[ka]
            cb = db[kb]
            da[ka] = da[t]
            db[kb] = db[t]
            da[t] = ca
            db[t] = cb
            out[i, j] = ca
            out[i + 1, j] = cb
            t += np.uint64(1)


@njit(cache=True, nogil=True)
def _deal_kernel(known, rand, out):
    """Each row has its own fixed cards (rollouts resample around many situations)."""
    deck = np.empty(52, np.int8)
    for i in range(out.shape[0]):
        m = _remaining(known[i], deck)
        _deal_row(known[i], deck, m, rand, out, i)


@njit(cache=True, nogil=True)
def _deal_repeated(known, k, rand, out):
    """Row ``i`` of ``known`` dealt ``k`` times, into rows ``i*k .. i*k + k - 1``.

    The rows :func:`_deal_kernel` gives ``known`` repeated ``k`` times, with the
    remaining deck built once per known row (rollouts: K continuations of
    each situation; a run's block: one row of fixed cards, dealt n times) and
    the repeats dealt two at a time (:func:`_deal_two_rows`).
    """
    base = np.empty(52, np.int8)
    da = np.empty(52, np.int8)
    db = np.empty(52, np.int8)
    row = 0
    for i in range(known.shape[0]):
        m = _remaining(known[i], base)
        for _ in range(k // 2):
            _deal_two_rows(known[i], base, m, rand, out, row, da, db)
            row += 2
        if k % 2:
            for c in range(52):
                da[c] = base[c]
            _deal_row(known[i], da, m, rand, out, row)
            row += 1


def check_known(known: np.ndarray, what: str = "known cards") -> None:
    """Raise ValueError for a duplicated card or too many slots for one deck."""
    known = np.atleast_2d(known)
    if known.shape[1] > 52:
        raise ValueError(f"a deal needs {known.shape[1]} cards but the deck holds 52")
    for row in known[:1] if known.shape[0] == 1 else known:
        fixed = row[row >= 0]
        if fixed.size and fixed.max() > 51:
            raise ValueError(f"card value {int(fixed.max())} is not in 0..51")
        vals, counts = np.unique(fixed, return_counts=True)
        if (counts > 1).any():
            raise ValueError(f"duplicate card {format_cards([vals[counts > 1][0]])} in {what}")


def chance_draws(n_deals: int, k: int, rng: np.random.Generator) -> np.ndarray | None:
    """(n_deals, k) uint32 draws for chance during a deal, or None when k is 0.

    Taken from the deal stream after the cards, so the cards of a deal are
    the same whether or not a variant asks for chance draws.
    """
    if k == 0:
        return None
    raw = rng.bit_generator.random_raw((n_deals * k + 1) // 2)
    return raw.view(np.uint32)[: n_deals * k].reshape(n_deals, k)


def deal(known: np.ndarray, n_deals: int, rng: np.random.Generator, repeat: int = 1) -> np.ndarray:
    """Deal ``n_deals`` rows of slots.

    Parameters
    ----------
    known : (s,) or (n_deals, s) int8, a fixed card or -1 per slot; with
        ``repeat`` > 1, (n_deals // repeat, s), each row standing for
        ``repeat`` consecutive deals (the same cards as ``np.repeat(known,
        repeat, axis=0)``, dealt faster).
    n_deals : number of deals.
    rng : the block's deal stream.
    repeat : deals per row of a 2-D ``known``.

    Returns
    -------
    (n_deals, s) int8 cards, distinct within each row.
    """
    known = np.asarray(known, dtype=np.int8)
    n_slots = known.shape[-1]
    if n_slots > 52:
        raise ValueError(f"a deal of {n_slots} slots needs more cards than the deck's 52")
    out = np.empty((n_deals, n_slots), dtype=np.int8)
    # Raw 64-bit draws split into two uint32 each: the cheapest way to the bits.
    raw = rng.bit_generator.random_raw((n_deals * n_slots + 1) // 2)
    rand = raw.view(np.uint32)[: n_deals * n_slots].reshape(n_deals, n_slots)
    if known.ndim == 1:  # every row the same fixed cards: one row dealt n_deals times
        _deal_repeated(known[None, :], n_deals, rand, out)
    else:
        if known.shape[0] * repeat != n_deals:
            raise ValueError(f"known has {known.shape[0]} rows (each dealt {repeat} times) for {n_deals} deals")
        if repeat > 1:
            _deal_repeated(np.ascontiguousarray(known), int(repeat), rand, out)
        else:
            _deal_kernel(np.ascontiguousarray(known), rand, out)
    return out
