"""Russian Hold'em placement policies (decision ``place``, taken 12 times a deal).

Action ``h`` (0, 1, 2) puts the card in hand on hand ``h + 1``; a hand with
four placed cards is full. A policy sees what its seat sees at the table (see
the decision's observation): the flop, every face-up card of every hand, how
many cards each hand holds, its own face-down cards and the card to place;
the other players' face-down cards never reach it.

Policies (plain rules, not tuned optima; ``experiments/russian_placement.py``
measures how each fares):

first-open
    the lowest-numbered hand with room (the default).
random
    uniform over the hands with room (the registry's generic ``random``).
by-rank
    J, Q, K, A to hand 1; 7 to 10 to hand 2; 2 to 6 to hand 3, when that hand
    has room; otherwise the lowest-numbered hand with room.
best-gain
    where the card raises the hand's score most (:func:`hand_score`: what the
    hand has made, plus its best chance of making more with the cards still
    to come, counted from the cards not in sight); ties: the lower hand.
two-and-dump
    two wins take the pot, so the weakest hand (lowest score) is the dump:
    a card goes to a kept hand where it gains at least :data:`DUMP_BELOW`,
    otherwise to the dump while it has room.
fight-weak
    reads the other players' visible cards per hand: the chance of winning
    hand ``h`` is a logistic function of the own score minus the best score
    an opponent shows there (its face-down card counted as a card still to
    come), and the card goes where the chance of winning at least two hands,
    the three taken as independent, is highest.
conceal
    ``best-gain``, but the fourth card placed on a hand (the concealed fifth
    card) must gain at least :data:`CONCEAL_MIN`; a card that does not goes
    to a hand with fewer than three placed cards when there is one, so a
    strong card is kept for the concealed slot.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from simcore.kernels import popcount, rank_sets
from simcore.variants.russian import PLACE_BY_RANK, PLACE_FIRST_OPEN, cards_in_sight

from .registry import register

__all__ = ["hand_score", "RANK_WEIGHT", "DUMP_BELOW", "CONCEAL_MIN", "FIGHT_SCALE"]

RANK_WEIGHT = 0.07  # score per rank step of the highest group (a pair of aces ~ 1.84)
DUMP_BELOW = 0.0  # two-and-dump: a card that gains less on every kept hand is dumped
CONCEAL_MIN = 0.3  # conceal: what the concealed fifth card must gain
FIGHT_SCALE = 0.8  # fight-weak: score difference for odds of e (logistic scale)

_FIRST_OPEN, _BY_RANK, _BEST_GAIN, _TWO_AND_DUMP, _FIGHT_WEAK, _CONCEAL = range(6)
_NO_CARD = -1


# -- the hand score ----------------------------------------------------------------------


WHEEL = (1 << 12) | 0xF  # the rank set A, 2, 3, 4, 5

# HIGH_RANK[mask]: the highest rank of a 13-bit rank set (-1 for the empty set)
HIGH_RANK = np.array([m.bit_length() - 1 for m in range(1 << 13)], np.int64)


@njit(cache=True, nogil=True, inline="always")
def _pattern(cards, k):
    """Rank pattern of ``k`` cards: the rank sets (13-bit masks) held at least once, twice,
    three times and four times (:func:`~simcore.kernels.rank_sets`), then (largest group, its
    rank, ranks held twice or more, the highest of those, or -1)."""
    s1, s2, s3, s4 = rank_sets(cards, k)
    if s4:
        best_n, top = 4, s4
    elif s3:
        best_n, top = 3, s3
    elif s2:
        best_n, top = 2, s2
    else:
        best_n, top = 1, s1
    return s1, s2, s3, s4, best_n, HIGH_RANK[top], np.int64(popcount(np.uint64(s2))), HIGH_RANK[s2]


@njit(cache=True, nogil=True, inline="always")
def _held(pattern, r):
    """How many cards of rank ``r`` the :func:`_pattern` counts."""
    s1, s2, s3, s4 = pattern[0], pattern[1], pattern[2], pattern[3]
    return ((s1 >> r) & 1) + ((s2 >> r) & 1) + ((s3 >> r) & 1) + ((s4 >> r) & 1)


@njit(cache=True, nogil=True, inline="always")
def _category(best_n, pairs):
    if best_n == 4:
        return 7
    if best_n == 3:
        return 6 if pairs >= 2 else 3
    if best_n == 2:
        return 2 if pairs >= 2 else 1
    return 0


@njit(cache=True, nogil=True, inline="always")
def _made_of(cards, k, pattern):
    """Made score of ``k`` (1..5) cards from their :func:`_pattern`: category + RANK_WEIGHT * rank
    of the top group; straights and flushes count only with five cards."""
    best_n, best_r, pairs = pattern[4], pattern[5], pattern[6]
    if k == 5 and best_n == 1:
        # five distinct ranks: a straight, a flush, both, or a high card, read from the rank set
        # and the suits (the evaluator's tables are a cache miss a hand; the same categories)
        mask = pattern[0]
        s = cards[0] & 3
        flush = ((cards[1] & 3) == s) & ((cards[2] & 3) == s) & ((cards[3] & 3) == s) & ((cards[4] & 3) == s)
        wheel = mask == WHEEL
        straight = wheel or (best_r >= 4 and (mask >> (best_r - 4)) == 0x1F)
        if flush:
            return (8 if straight else 5) + RANK_WEIGHT * best_r  # a straight flush keeps its top rank
        if wheel:
            return 4 + RANK_WEIGHT * 3  # the wheel is five-high
        return (4 if straight else 0) + RANK_WEIGHT * best_r
    return _category(best_n, pairs) + RANK_WEIGHT * best_r


@njit(cache=True, nogil=True)
def _tail(trials, p, need):
    """P(at least ``need`` successes in ``trials`` draws with chance ``p``)."""
    if need <= 0:
        return 1.0
    if trials < need or p <= 0.0:
        return 0.0
    # 1 - P(fewer than need), term by term
    term = (1.0 - p) ** trials
    below = 0.0
    for x in range(need):
        below += term
        if p >= 1.0:
            break
        term *= (trials - x) / (x + 1.0) * p / (1.0 - p)
    return max(0.0, 1.0 - below)


@njit(cache=True, nogil=True)
def _hit_chance(to_come, r_unseen, n_unseen):
    """The chance that ``to_come`` cards drawn from ``n_unseen`` hold at least one of
    the ``r_unseen`` of a rank."""
    return 1.0 - (1.0 - r_unseen / n_unseen) ** to_come if n_unseen > 0 else 0.0


@njit(cache=True, nogil=True)
def _hit_table():
    """:func:`_hit_chance` for every (to_come 0..13, r_unseen 0..4, n_unseen 0..52), computed
    by the same compiled expression, so a look-up gives exactly the value it would."""
    out = np.zeros((14, 5, 53))
    for t in range(14):
        for a in range(5):
            for m in range(53):
                out[t, a, m] = _hit_chance(np.int64(t), np.int64(a), np.int64(m))
    return out


# A look-up instead of 13 powers per call: the powers were most of the thoughtful
# policies' time (measured on 4-player best-gain: see the commit).
HIT_TABLE = _hit_table()


@njit(cache=True, nogil=True)
def _tail_table():
    """:func:`_tail` (to_come 0..13, chance s_unseen / n_unseen for s_unseen 0..13 and
    n_unseen 1..52, need 0..4) by the same compiled code, so a look-up gives exactly its value."""
    out = np.zeros((14, 14, 53, 5))
    for t in range(14):
        for a in range(14):
            for m in range(1, 53):
                for need in range(5):
                    out[t, a, m, need] = _tail(np.int64(t), np.int64(a) / np.int64(m), np.int64(need))
    return out


# _score asks _tail of every hand that is one suit so far (every one-card hand).
TAIL_TABLE = _tail_table()


@njit(cache=True, nogil=True, inline="always")
def _hits(to_come, ru, n_unseen, hit):
    """``hit[r]``: the chance that ``to_come`` cards drawn from the ``n_unseen``
    not in sight (``ru[r]`` of rank r) hold at least one of rank r."""
    for r in range(13):
        hit[r] = HIT_TABLE[to_come, ru[r], n_unseen]


def _straight_windows():
    """Per 13-bit set of distinct ranks: bit ``w`` set when the five-rank window ``w``
    (0: A-5, 9: T-A) holds every one of them (the ace counts once, high or low)."""
    mask = np.arange(1 << 13)
    ones = sum((np.arange(1 << 14) >> b) & 1 for b in range(14))  # popcounts up to 14 bits
    ext = (mask << 1) | ((mask >> 12) & 1)
    out = np.zeros(1 << 13, np.uint16)
    for w in range(10):
        out |= ((ones[ext & (0x1F << w)] >= ones[mask]) << w).astype(np.uint16)
    return out


# _score's straight windows by look-up instead of a popcount per window (4-player best-gain,
# a block of 16,384 deals: 748 -> 627 ms)
STRAIGHT_WINDOWS = _straight_windows()


@njit(cache=True, nogil=True, inline="always")
def _score(cards, k, to_come, hit, su, n_unseen):
    """Score of a hand holding ``cards[:k]`` with ``5 - k`` slots open.

    The made score, plus the best single improvement weighted by its chance:
    a flush (every card one suit), a straight (every rank distinct and in one
    five-rank window), or one more card of a held rank. Chances count the
    ``to_come`` cards the owner still receives, each drawn from the
    ``n_unseen`` cards not in sight (``su`` (4,) of each suit; ``hit`` (13,)
    from :func:`_hits` for the same ``to_come``: computed once per row, since
    the powers are most of the cost).
    """
    pattern = _pattern(cards, k)
    made = _made_of(cards, k, pattern)
    left = 5 - k
    if left <= 0 or to_come <= 0 or n_unseen <= 0:
        return made
    best = 0.0
    # flush: every card of one suit
    s = cards[0] & 3
    one_suit = True
    for j in range(1, k):
        if (cards[j] & 3) != s:
            one_suit = False
    if one_suit:
        p = TAIL_TABLE[to_come, su[s], n_unseen, left]
        best = max(best, p * (5.6 - made))
    # straight: distinct ranks inside one window (the ace also low)
    mask = pattern[0]
    distinct = pattern[1] == 0
    if distinct:
        ext = (mask << 1) | ((mask >> 12) & 1)
        windows = STRAIGHT_WINDOWS[mask]
        for w in range(10):
            if not (windows >> w) & 1:
                continue
            inside = ext & (0x1F << w)
            p = 1.0
            for b in range(w, w + 5):
                if not (inside >> b) & 1:
                    r = 12 if b == 0 else b - 1
                    p *= hit[r]
            best = max(best, p * (4.0 + RANK_WEIGHT * (w + 3) - made))
    # one more of a held rank
    pairs, top2 = pattern[6], pattern[7]
    for j in range(k):
        r = cards[j] >> 2
        p = hit[r]
        if p <= 0.0:
            continue
        c = _held(pattern, r) + 1
        n_pairs = pairs + (1 if c == 2 else 0)
        if c == 4:
            new = 7.0
        elif c == 3:
            new = 6.0 if n_pairs >= 2 else 3.0
        else:
            new = 2.0 if n_pairs >= 2 else 1.0
        top = r
        if c == 2 and n_pairs >= 2 and top2 > top:
            top = top2
        best = max(best, p * (new + RANK_WEIGHT * top - made))
    return made + best


def hand_score(cards, to_come: int = 0, unseen=None) -> float:
    """Score of one Russian hand (1 to 5 cards): made strength plus its chance of more.

    Parameters
    ----------
    cards : the hand's cards (a string or ints), the flop card included.
    to_come : cards its owner still receives.
    unseen : the cards not in sight (default: all cards not in ``cards``).

    Returns
    -------
    float; the category (0 high card .. 8 straight flush) plus
    :data:`RANK_WEIGHT` per rank of the top group, plus the best improvement
    times its chance. Complete hands score what they made.

    >>> hand_score("As Ad Kc 7h 2d") > hand_score("Ks Kd Qc 7h 2d")
    True
    """
    from simcore.cards import parse_cards

    hand = parse_cards(cards).astype(np.int64)
    if not 1 <= len(hand) <= 5:
        raise ValueError(f"a Russian hand holds 1 to 5 cards, got {len(hand)}")
    if not 0 <= int(to_come) <= 12:
        raise ValueError(f"to_come: a player receives at most 12 cards, got {to_come}")
    pool = (np.setdiff1d(np.arange(52), hand) if unseen is None
            else parse_cards(unseen, allow_empty=True).astype(np.int64))
    ru = np.bincount(pool >> 2, minlength=13).astype(np.int64)
    su = np.bincount(pool & 3, minlength=4).astype(np.int64)
    buf = np.zeros(5, np.int64)
    buf[: len(hand)] = hand
    hit = np.zeros(13)
    _hits(int(to_come), ru, len(pool), hit)
    return float(_score(buf, len(hand), int(to_come), hit, su, len(pool)))


# -- one row's view ------------------------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def _gather(flop, up, placed, own_down, i, q, h, seat, buf):
    """Cards of hand ``h`` of seat ``q`` in sight of ``seat`` into ``buf``; their count."""
    buf[0] = flop[i, h]
    k = 1
    m = placed[i, q, h]
    for j in range(min(m, 3)):
        buf[k] = up[i, q, h, j]
        k += 1
    if m == 4 and q == seat:
        buf[k] = own_down[i, h]
        k += 1
    return k


# SUIT_CARDS[s]: the 52-bit set of the cards of suit s (card 4 * rank + suit)
SUIT_CARDS = np.array([sum(1 << (4 * r + s) for r in range(13)) for s in range(4)], np.uint64)
ALL_CARDS = np.uint64((1 << 52) - 1)


@njit(cache=True, nogil=True, inline="always")
def _unseen(flop, up, placed, own_down, card, i, ru, su):
    """Rank and suit counts of the cards not in sight of the deciding seat in row ``i``; their number.

    The cards in sight come as one 52-bit set (the seat view's, :func:`cards_in_sight`), counted
    by rank (four bits a rank) and by suit, where each card decremented two counters in memory
    (4-player best-gain on 2.4M rows recorded from a fit: 304 -> 275 ns a row)."""
    unseen = ~np.uint64(cards_in_sight(flop, up, placed, own_down, card, i)) & ALL_CARDS
    for r in range(13):
        ru[r] = popcount((unseen >> np.uint64(4 * r)) & np.uint64(15))
    for s in range(4):
        su[s] = popcount(unseen & SUIT_CARDS[s])
    return np.int64(popcount(unseen))


@njit(cache=True, nogil=True, inline="always")
def _by_rank_hand(card):
    r = card >> 2
    if r >= 9:  # J, Q, K, A
        return 0
    if r >= 5:  # 7 .. 10
        return 1
    return 2


@njit(cache=True, nogil=True, inline="always")
def _first_legal(legal, i):
    for h in range(3):
        if legal[i, h]:
            return h
    return 0


@njit(cache=True, nogil=True, inline="always")
def _logistic(x):
    return 1.0 / (1.0 + np.exp(-x / FIGHT_SCALE))


@njit(cache=True, nogil=True)
def _decide(flop, up, placed, own_down, card, legal, seat, rnd, policy, best_out):
    """Actions (n,) of one policy for ``seat`` over a batch. ``best_out``: (n,) int64 to receive
    ``best-gain``'s action of each row as well (a scoring policy computes it on the way), or (0,)."""
    n, P = up.shape[0], up.shape[1]
    both = best_out.shape[0] == n
    out = np.zeros(n, np.int64)
    buf = np.zeros(5, np.int64)
    ru = np.zeros(13, np.int64)
    su = np.zeros(4, np.int64)
    now = np.zeros(3)
    after = np.zeros(3)
    opp = np.zeros(3)
    hit = np.zeros((3, 13))  # for to_come, to_come + 1, to_come + 2 cards
    to_come = 11 - rnd  # cards this seat receives after this one
    for i in range(n):
        first = _first_legal(legal, i)
        if policy == _FIRST_OPEN:
            out[i] = first
            continue
        c = card[i]
        if policy == _BY_RANK:
            h = _by_rank_hand(c)
            out[i] = h if legal[i, h] else first
            continue
        if np.int64(legal[i, 0]) + np.int64(legal[i, 1]) + np.int64(legal[i, 2]) == 1:
            # one hand with room: every policy below places there (each picks a legal hand),
            # so nothing is scored (the last round, and 13% of conceal's rows in Russian 3's fit)
            out[i] = first
            if both:
                best_out[i] = first
            continue
        n_unseen = _unseen(flop, up, placed, own_down, card, i, ru, su)
        for t in range(3 if policy == _FIGHT_WEAK else 2):
            _hits(to_come + t, ru, n_unseen, hit[t])
        every = policy == _TWO_AND_DUMP or policy == _FIGHT_WEAK  # they read the full hands too
        for h in range(3):
            if not (every or legal[i, h]):
                continue  # best-gain and conceal compare the hands with room only
            k = _gather(flop, up, placed, own_down, i, seat, h, seat, buf)
            now[h] = _score(buf, k, to_come + 1, hit[1], su, n_unseen)
            if legal[i, h]:
                buf[k] = c
                after[h] = _score(buf, k + 1, to_come, hit[0], su, n_unseen)
        # best gain over the legal hands; ties: the lower hand
        best_h, best_g = first, -1e9
        for h in range(3):
            if legal[i, h] and after[h] - now[h] > best_g:
                best_h, best_g = h, after[h] - now[h]
        if both:
            best_out[i] = best_h
        if policy == _BEST_GAIN:
            out[i] = best_h
        elif policy == _TWO_AND_DUMP:
            dump = 2
            for h in range(1, -1, -1):
                if now[h] < now[dump]:
                    dump = h
            keep_h, keep_g = -1, -1e9
            for h in range(3):
                if h != dump and legal[i, h] and after[h] - now[h] > keep_g:
                    keep_h, keep_g = h, after[h] - now[h]
            if keep_h >= 0 and (keep_g >= DUMP_BELOW or not legal[i, dump]):
                out[i] = keep_h
            elif legal[i, dump]:
                out[i] = dump
            else:
                out[i] = best_h
        elif policy == _CONCEAL:
            h = best_h
            if placed[i, seat, h] == 3 and best_g < CONCEAL_MIN:
                alt, alt_g = -1, -1e9
                for x in range(3):
                    if placed[i, seat, x] < 3 and after[x] - now[x] > alt_g:
                        alt, alt_g = x, after[x] - now[x]
                if alt >= 0:
                    h = alt
            out[i] = h
        else:  # fight-weak
            for h in range(3):
                top = -1e9
                for q in range(P):
                    if q == seat:
                        continue
                    k = _gather(flop, up, placed, own_down, i, q, h, seat, buf)
                    # the opponent's cards to come: the rest of its rounds, plus its
                    # face-down card, which it has but no one else has seen
                    left = 12 - rnd - (1 if q < seat else 0) + (1 if placed[i, q, h] == 4 else 0)
                    s = _score(buf, k, left, hit[left - to_come], su, n_unseen)
                    if s > top:
                        top = s
                opp[h] = top
            best_v = -1.0
            for a in range(3):
                if not legal[i, a]:
                    continue
                p0 = _logistic((after[0] if a == 0 else now[0]) - opp[0])
                p1 = _logistic((after[1] if a == 1 else now[1]) - opp[1])
                p2 = _logistic((after[2] if a == 2 else now[2]) - opp[2])
                v = p0 * p1 + p0 * p2 + p1 * p2 - 2.0 * p0 * p1 * p2
                if v > best_v + 1e-12:
                    best_v = v
                    out[i] = a
    return out


@njit(cache=True, nogil=True)
def _simple(card, legal, by_rank):
    """first-open and by-rank: a kernel of their own, which reads two arrays only.

    ``legal`` is the (n, 3) mask flattened to (3n,) uint8. Branch-free int32
    arithmetic over flat arrays, which LLVM vectorises: which hands are full
    is a coin toss to the branch predictor late in a deal (measured 3x over
    the branchy loop on a 4-player block, and the flat int32 form 3x again
    over 2-D indexing in int64).
    """
    n = card.shape[0]
    out = np.empty(n, np.int64)
    for i in range(n):
        l0, l1 = np.int32(legal[3 * i]), np.int32(legal[3 * i + 1])
        first = (1 - l0) * (2 - l1)  # 0 if hand 1 has room, else 1 if hand 2, else 2
        if by_rank:
            c = np.int32(card[i])
            h1, h2 = np.int32(c < 36), np.int32(c < 20)  # rank < 9 (below J), rank < 5 (below 7)
            h = h1 + h2  # J-A: 0, 7-T: 1, 2-6: 2
            ok = (1 - h1) * l0 + (h1 - h2) * l1 + h2 * np.int32(legal[3 * i + 2])  # legal[i, h]
            out[i] = first + ok * (h - first)
        else:
            out[i] = first
    return out


def _flat_legal(legal):
    """The (n, 3) bool mask as (3n,) uint8, a view unless it is not contiguous."""
    return np.ascontiguousarray(legal).reshape(-1).view(np.uint8)


def _policy(code):
    if code in (_FIRST_OPEN, _BY_RANK):
        def simple(obs, rng):
            return _simple(obs["card"], _flat_legal(obs["legal"]), code == _BY_RANK)

        return simple

    def strategy(obs, rng):
        return _decide(obs["flop"], obs["up"], obs["placed"], obs["own_down"], obs["card"],
                       obs["legal"], int(obs["seat"]), int(obs["round"]), code, _NONE)

    return strategy


_NONE = np.empty(0, np.int64)


def _best_gain_and_conceal(obs):
    """``{best-gain: actions, conceal: actions}`` of ``obs``, from one pass of the scores.

    Both policies' ``joint_answers`` (:func:`simcore.abstraction.shared_answer`). A table's
    buckets order the hands by ``conceal``'s choice and the shipped tables fall back on
    ``best-gain``: in a solve's fit both were asked of every row, each scoring every hand."""
    best = np.empty(len(obs["card"]), np.int64)
    conceal = _decide(obs["flop"], obs["up"], obs["placed"], obs["own_down"], obs["card"], obs["legal"],
                      int(obs["seat"]), int(obs["round"]), _CONCEAL, best)
    return {_FUNCTIONS[_BEST_GAIN]: best, _FUNCTIONS[_CONCEAL]: conceal}


_POLICIES = (
    ("first-open", _FIRST_OPEN, "the lowest-numbered hand with room"),
    ("by-rank", _BY_RANK, "J-A to hand 1, 7-10 to hand 2, 2-6 to hand 3 when it has room, "
                          "else the lowest-numbered hand with room"),
    ("best-gain", _BEST_GAIN, "the hand whose score the card raises most (made strength plus "
                              "the chance of more from the unseen cards)"),
    ("two-and-dump", _TWO_AND_DUMP, "build the two strongest hands; a card that gains nothing "
                                    "on them goes to the weakest hand, the dump"),
    ("fight-weak", _FIGHT_WEAK, "read the opponents' visible cards per hand and place where the "
                                "chance of winning two hands is highest"),
    ("conceal", _CONCEAL, "best-gain, but the concealed fifth card of a hand must be a strong "
                          "one; weaker cards go to hands with open face-up slots"),
)

# first-open and by-rank declare their rule: the variant may apply it itself, in one
# kernel for the 12 rounds and the showdown (see simcore.variants.russian.PLACE_BY_RANK)
_RULES = {_FIRST_OPEN: PLACE_FIRST_OPEN, _BY_RANK: PLACE_BY_RANK}

# seat_view: every one but fight-weak reads only the seat's own hands, the card and the cards in
# sight (simcore.variants.russian.seat_view), row by row, drawing nothing
_FUNCTIONS = {}  # code: the registered function
for _name, _code, _text in _POLICIES:
    _traits = {"place_rule": _RULES[_code]} if _code in _RULES else {}
    if _code != _FIGHT_WEAK:
        _traits["seat_view"] = True
    _FUNCTIONS[_code] = register("russian", "place", _name, _text, default=_name == "first-open",
                                 **_traits)(_policy(_code))
# best-gain and conceal answer together where both are asked of one observation
_FUNCTIONS[_BEST_GAIN].joint_answers = _FUNCTIONS[_CONCEAL].joint_answers = _best_gain_and_conceal
