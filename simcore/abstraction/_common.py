"""Compiled building blocks shared by the games' abstractions.

Cards are ``4*rank + suit``. Everything here reads ranks and suit *counts*,
never a suit's name, so what is built from it is suit-isomorphic.
"""
from __future__ import annotations

import functools

import numpy as np
from numba import njit

from ..kernels import popcount as ctpop


def _multiset_table(k: int) -> np.ndarray:
    """Dense ids of rank multisets of size ``k`` given sorted high to low:
    ``table[r0, r1, ...]`` with r0 >= r1 >= ...; -1 elsewhere."""
    shape = (13,) * k
    table = np.full(shape, -1, np.int32)
    nxt = 0
    for idx in np.ndindex(*shape):
        if all(idx[j] >= idx[j + 1] for j in range(k - 1)):
            table[idx] = nxt
            nxt += 1
    return table


MULTI2 = _multiset_table(2)  # 91 ids
MULTI3 = _multiset_table(3)  # 455 ids
N_MULTI2, N_MULTI3 = 91, 455

# Straight windows as 13-bit rank masks (the ace also plays low): bit r for rank r.
_WINDOWS = np.array([(0b11111 << lo) for lo in range(9)] + [0b1000000001111], np.int64)


@njit(cache=True, nogil=True, inline="always")
def popcount(x):
    """The number of set bits of a non-negative integer, as an int64 (the engine's ctpop)."""
    return np.int64(ctpop(np.uint64(x)))


def _straight_states() -> np.ndarray:
    """0 none, 1 gutshot-like (four of one five-rank window), 2 open-ended (four of two windows),
    3 made, for every 13-bit rank set."""
    masks = np.arange(1 << 13, dtype=np.int64)
    fours = np.zeros(1 << 13, np.int64)
    made = np.zeros(1 << 13, np.bool_)
    for w in _WINDOWS:
        c = np.array([bin(int(x)).count("1") for x in (masks & w)])
        made |= c == 5
        fours += c == 4
    out = np.where(fours >= 2, 2, np.where(fours == 1, 1, 0))
    return np.where(made, 3, out).astype(np.int8)


STRAIGHT_STATE = _straight_states()


@njit(cache=True, nogil=True, inline="always")
def straight_state(mask):
    """:data:`STRAIGHT_STATE` of a 13-bit rank set."""
    return STRAIGHT_STATE[mask]


@njit(cache=True, nogil=True, inline="always")
def sort_desc(keys, order, m):
    """``order[:m]``: positions ``0..m-1`` sorted by ``keys`` high to low, stable (equal keys keep
    position order). Inlined: a constant ``m`` lets the compiler unroll a short sort."""
    for j in range(m):
        order[j] = j
    for j in range(1, m):
        x = order[j]
        i = j - 1
        while i >= 0 and keys[order[i]] < keys[x]:
            order[i + 1] = order[i]
            i -= 1
        order[i + 1] = x


@njit(cache=True, nogil=True)
def made_class(rank_counts, max_suit, straight):
    """A five-to-seven-card made hand as 0 high card, 1 pair, 2 two pair, 3 trips,
    4 straight or flush, 5 full house or better."""
    pairs = 0
    trips = 0
    quads = 0
    for r in range(13):
        c = rank_counts[r]
        if c == 2:
            pairs += 1
        elif c == 3:
            trips += 1
        elif c >= 4:
            quads += 1
    if quads or (trips and pairs) or trips >= 2:
        return 5
    if max_suit >= 5 or straight == 3:
        return 4
    if trips:
        return 3
    if pairs >= 2:
        return 2
    if pairs == 1:
        return 1
    return 0


@njit(cache=True, nogil=True, inline="always")
def best_draw(made, max_suit, straight):
    """The best draw beside a :func:`made_class` ``made``: 0 none, 1 a gutshot or three to a
    flush, 2 open-ended or four to a flush; 0 from a straight or flush up (``made >= 4``).
    One return on purpose: written with several, it made Slovak's exchange2 kernel 13-66% slower."""
    draw = 0
    if made < 4:
        if max_suit == 4 or straight == 2:
            draw = 2
        elif max_suit == 3 or straight == 1:
            draw = 1
    return draw


@njit(cache=True, nogil=True)
def ranks3_desc(c0, c1, c2):
    """The ranks of three cards, high to low."""
    r0, r1, r2 = c0 >> 2, c1 >> 2, c2 >> 2
    if r0 < r1:
        r0, r1 = r1, r0
    if r1 < r2:
        r1, r2 = r2, r1
    if r0 < r1:
        r0, r1 = r1, r0
    return r0, r1, r2


def dense_ids(values) -> np.ndarray:
    """A lookup table: value -> dense id (order of first sorted appearance), -1 elsewhere."""
    values = sorted(set(int(v) for v in values))
    table = np.full(max(values) + 1, -1, np.int32)
    for i, v in enumerate(values):
        table[v] = i
    return table


def _comb_table(n_max: int = 256, k_max: int = 8) -> np.ndarray:
    t = np.zeros((n_max + 1, k_max + 1), np.int64)
    for n in range(n_max + 1):
        t[n, 0] = 1
        for k in range(1, min(n, k_max) + 1):
            t[n, k] = t[n - 1, k - 1] + (t[n - 1, k] if k <= n - 1 else 0)
    return t


COMB = _comb_table()


def n_multisets(n_states: int, k: int) -> int:
    """How many multisets of ``k`` states out of ``n_states`` there are."""
    return int(COMB[n_states + k - 1, k])


@njit(cache=True, nogil=True)
def multiset_index(states, k, comb):
    """Dense id in ``[0, C(S + k - 1, k))`` of ``states[:k]`` sorted high to low (S states)."""
    idx = 0
    for j in range(k):
        idx += comb[states[j] + (k - 1 - j), k - j]
    return idx


# -- exact suit-isomorphic classes of a set of cards -------------------------------------


@njit(cache=True, nogil=True)
def canonical_suits(cards, m, suit_rank, scratch):
    """Order the suits of ``cards[:m]``: by their 13-bit rank sets, larger first, equal sets by
    the first position holding the suit (so the order is suit-isomorphic). Writes
    ``suit_rank[s]`` (0 = first) and returns the class key (the four rank sets, in that order).
    ``scratch``: (3, 4) int64 work space."""
    masks, first, order = scratch[0], scratch[1], scratch[2]
    for s in range(4):
        masks[s] = 0
        first[s] = 99
        order[s] = s
    for j in range(m):
        c = cards[j]
        s = c & 3
        masks[s] |= np.int64(1) << (c >> 2)
        if first[s] == 99:
            first[s] = j
    for j in range(1, 4):
        x = order[j]
        i = j - 1
        while i >= 0 and (masks[order[i]] < masks[x] or
                          (masks[order[i]] == masks[x] and first[order[i]] > first[x])):
            order[i + 1] = order[i]
            i -= 1
        order[i + 1] = x
    key = np.int64(0)
    for j in range(4):
        suit_rank[order[j]] = j
        key = (key << 13) | masks[order[j]]
    return key


@njit(cache=True)
def _all_keys(k):
    """The class key of every k-card set (k = 4 or 5)."""
    total = 1
    for j in range(k):
        total = total * (52 - j) // (j + 1)
    out = np.empty(total, np.int64)
    cards = np.empty(k, np.int64)
    sr = np.empty(4, np.int64)
    scratch = np.empty((3, 4), np.int64)
    idx = np.arange(k)
    t = 0
    while True:
        for j in range(k):
            cards[j] = idx[j]
        out[t] = canonical_suits(cards, k, sr, scratch)
        t += 1
        j = k - 1
        while j >= 0 and idx[j] == 52 - k + j:
            j -= 1
        if j < 0:
            break
        idx[j] += 1
        for i in range(j + 1, k):
            idx[i] = idx[i - 1] + 1
    return out


_CLASS_KEYS: dict[int, np.ndarray] = {}


def class_keys(k: int) -> np.ndarray:
    """Sorted class keys of every suit-isomorphic class of k cards (134,459 for five, 16,432 for four)."""
    if k not in _CLASS_KEYS:
        _CLASS_KEYS[k] = np.unique(_all_keys(k))
    return _CLASS_KEYS[k]


@njit(cache=True, nogil=True)
def class_id(keys, key):
    """The dense id of ``key`` in the sorted ``keys`` (binary search)."""
    lo, hi = 0, keys.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if keys[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    return lo


# -- describing buckets (reports) -----------------------------------------------------------

RANKS = "23456789TJQKA"
RANK_GROUP_NAMES = ("2-5", "6-8", "9-J", "Q-K", "A")
MADE_NAMES = ("high card", "pair", "two pair", "trips", "straight or flush", "full house+")
DRAW_NAMES = ("", " + gutshot/backdoor flush", " + open-ender/flush draw")


def multiset_unrank(index: int, k: int, n_states: int) -> list:
    """The states (high to low) of multiset id ``index`` (see :func:`multiset_index`)."""
    out = []
    for j in range(k):
        r = k - j
        b = r - 1
        while COMB[b + 1, r] <= index:
            b += 1
        index -= COMB[b, r]
        out.append(b - (k - 1 - j))
    return out


def multiset_ranks(table: np.ndarray, index: int) -> str:
    """The ranks (high to low) whose id in a :data:`MULTI2`/:data:`MULTI3` table is ``index``."""
    where = np.argwhere(table == index)[0]
    return "".join(RANKS[r] for r in where)


def per_action_state(c: int) -> str:
    """Text of a made-hand-and-draw state (``made * 3 + draw``)."""
    return MADE_NAMES[c // 3] + DRAW_NAMES[c % 3]


def policy_first(canon: np.ndarray, choice: np.ndarray) -> np.ndarray:
    """``canon`` with the real action ``choice[i]`` moved to canonical index 0 in each row (the
    others keep their order): a built-in policy's answer as canonical action 0.

    >>> policy_first(np.array([[0, 1, 2], [2, 0, 1]]), np.array([2, 0]))
    array([[1, 2, 0],
           [0, 1, 2]])
    """
    canon = np.asarray(canon)
    choice = np.asarray(choice, dtype=np.int64)
    if canon.ndim != 2 or choice.shape != canon.shape[:1]:
        raise ValueError(f"policy_first: canon {canon.shape} and choice {choice.shape} do not match")
    if len(choice) and not (-canon.shape[1] <= choice.min() and choice.max() < canon.shape[1]):
        raise ValueError(f"policy_first: a choice outside the {canon.shape[1]} actions "
                         f"({int(choice.min())} .. {int(choice.max())})")
    out = np.empty(canon.shape, canon.dtype)
    _policy_first(canon, choice, out)
    return out


@njit(cache=True, nogil=True)
def _policy_first(canon, choice, out):
    # One pass a row (Sviten's draw has 32 actions: numpy's version made three (n, 32) temporaries).
    n, na = canon.shape
    for i in range(n):
        c = choice[i]
        if c < 0:
            c += na
        k0 = canon[i, c]
        for a in range(na):
            k = canon[i, a]
            out[i, a] = k + 1 if k < k0 else k
        out[i, c] = 0


_BUILTIN: dict = {}
_OBS_ALONE: set = set()  # ids of the built-ins the buckets ask: functions of the observation alone


def builtin_choice(game: str, decision: str, spec: str, obs: dict) -> np.ndarray:
    """The actions (n,) int64 the built-in policy ``spec`` takes at ``game``'s ``decision``
    (such a policy reads the observation alone, so a bucket's canonical order may use it).
    Asked once per observation that carries shared answers (:func:`with_answers`)."""
    fn = _BUILTIN.get((game, decision, spec))
    if fn is None:
        from strategies import resolve  # the policies build on the games; resolved once, lazily

        fn = _BUILTIN[(game, decision, spec)] = resolve(game, decision, spec)[1]
        _OBS_ALONE.add(id(fn))
    return shared_answer(obs, fn, lambda: fn(without_answers(obs), None))


# -- answers shared within one call ------------------------------------------------------------
#
# A table policy reads its buckets, whose canonical order puts a built-in policy's choice first;
# where the bucket has no entry it plays its fallback, often a coarser table whose buckets ask
# the same built-in, and that table's fallback is the built-in itself. Each asks the same
# question of the same observation: Estonian's discard chain (a medium table on a coarse one on
# best-potential) asked best-potential three times. A call that starts such a chain gives the
# observation a place for the answers (with_answers: a shallow copy, the caller's dict is left
# as it is), and each later asker finds the first answer there. An answer is used only for the
# very arrays it was computed from (the same objects), so a subset of the rows (a new array)
# or another observation never takes it.

ANSWERS = "_answers"  # the observation key of the shared answers (only within one call chain)
SHARE = True  # False: every asker computes its own answer (the benchmark's peer; the tests' check)
JOINT = True  # False: a policy's joint_answers go unused, each policy computed alone (the benchmark's peer)


def take_rows(a: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``a[rows]`` for an index array ``rows``: the same values, taken along the first axis.

    numpy's fancy indexing copies each row of a many-column array item by item; ``np.take``
    copies it whole, three to four times faster for the small rows of an observation (an
    (8192, 3) int8 array: 61 against 16 us for half its rows). ``np.take`` first copies any
    array that is not C-contiguous whole, so a view whose axes are a permutation of contiguous
    memory (Russian's (n, P, ...) views of seat-major state) is taken along the row axis of
    that memory and permuted back (4,096 of 16,384 rows of its history: 653 against 122 us);
    another view is indexed as usual. The result may be such a view too."""
    if a.ndim == 1:
        return a[rows]
    if a.flags.c_contiguous:
        return np.take(a, rows, axis=0)
    perm = _contiguous_order(a.strides, a.shape, a.itemsize)
    if perm is None:
        return a[rows]
    order, axis, back = perm
    return np.take(a.transpose(order), rows, axis=axis).transpose(back)


@functools.lru_cache(maxsize=256)
def _contiguous_order(strides: tuple, shape: tuple, itemsize: int):
    """``(order, axis, back)`` where ``transpose(order)`` of an array with these strides, shape
    and item size is C-contiguous (its first axis then lies at ``axis``; ``back`` undoes the
    permutation); else None."""
    order = tuple(sorted(range(len(shape)), key=lambda k: -strides[k]))
    step = itemsize
    for k in reversed(order):
        if shape[k] != 1 and strides[k] != step:
            return None
        step *= shape[k]
    return order, order.index(0), tuple(order.index(k) for k in range(len(shape)))


def with_answers(obs: dict) -> dict:
    """``obs`` with a place for shared answers: itself if it has one, else a shallow copy."""
    if not SHARE:
        return obs
    return obs if ANSWERS in obs else {**obs, ANSWERS: {}}


def without_answers(obs: dict) -> dict:
    """``obs`` as a policy that does not share answers should see it."""
    if ANSWERS not in obs:
        return obs
    return {k: a for k, a in obs.items() if k != ANSWERS}


def _arrays(obs: dict) -> tuple:
    return tuple((k, a) for k, a in obs.items() if isinstance(a, np.ndarray))


def recall(obs: dict, key):
    """What :func:`remember` kept under ``key`` for these same arrays of ``obs``, or None."""
    answers = obs.get(ANSWERS)
    kept = None if answers is None else answers.get(key)
    if kept is None:
        return None
    arrays = _arrays(obs)
    if len(kept[0]) == len(arrays) and all(k == k2 and a is a2 for (k, a), (k2, a2) in zip(kept[0], arrays)):
        return kept[1]
    return None


def remember(obs: dict, key, value) -> None:
    """Keep ``value`` under ``key`` in ``obs``'s shared answers (if it has a place for them),
    for these arrays only (they are held, so their ids cannot be reused meanwhile)."""
    answers = obs.get(ANSWERS)
    if answers is not None:
        answers[key] = (_arrays(obs), value)


def shared_answer(obs: dict, fn, compute) -> np.ndarray:
    """``compute()`` (the answer (n,) int64 of ``fn``, a function of the observation alone), or
    the answer already computed for these same arrays in ``obs``'s shared answers.

    A policy whose answer comes with others' at little more cost declares ``joint_answers``:
    ``fn.joint_answers(obs) -> {policy function: answer}``, its own among them, each exactly
    what that policy answers alone. All of them are kept, so a later asker of any finds its
    own (Russian's ``conceal``, which orders a table's hands, and ``best-gain``, the tables'
    fallback, score the same hands)."""
    key = ("policy", fn)  # the function itself: equal only to itself, and held while kept
    out = recall(obs, key)
    if out is None:
        joint = getattr(fn, "joint_answers", None) if JOINT else None
        if joint is None:
            out = np.asarray(compute(), dtype=np.int64)
            remember(obs, key, out)
        else:
            answers = {f: np.asarray(a, dtype=np.int64) for f, a in joint(without_answers(obs)).items()}
            for other, answer in answers.items():
                remember(obs, ("policy", other), answer)
            out = answers[fn]  # its own is among them (a KeyError, not a silent None, where it is not)
    return out


def ask_policy(fn, obs: dict, rng, pure: bool) -> np.ndarray:
    """A fallback's answer (n,) int64: a policy that shares answers (``shares_answers``) gets the
    observation with them; a ``pure`` one, or a built-in that buckets ask (:func:`builtin_choice`
    asks it without a stream), answers once per observation, as both are functions of the
    observation alone, as is one that declares ``joint_answers`` (:func:`shared_answer`); any other
    is asked as usual (its random stream moves exactly as it would)."""
    if getattr(fn, "shares_answers", False):
        return np.asarray(fn(obs, rng), dtype=np.int64)
    plain = without_answers(obs)
    if (pure or id(fn) in _OBS_ALONE or hasattr(fn, "joint_answers")) and ANSWERS in obs:
        return shared_answer(obs, fn, lambda: fn(plain, rng))
    return np.asarray(fn(plain, rng), dtype=np.int64)
