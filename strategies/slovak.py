"""Slovak Double Barrel exchange policies (decisions ``exchange1``, ``exchange2``).

Every policy answers both exchanges: 0 decline, 1 muck face-up card 0,
2 muck face-up card 1 (the next face-down card is turned up in its place).
A policy sees only the public table (see the decision's observation): all
face-up cards, the muck, the flop at the second exchange and the actions
taken so far; the face-down cards never reach it.

Policies (the heuristics are plain rules, not tuned optima; see
``experiments/slovak_exchange.py`` for how each fares):

never
    always decline (the default): the game is then Texas Hold'em with the
    face-up cards as hole cards.
lower
    muck the lower-ranked face-up card whenever a face-down card is left
    (equal ranks: the lower suit).
threshold
    keep a pair, and keep an unpaired hand whose two ranks (0..12 for 2..A)
    add up to at least what its gap needs (:data:`SUITED_NEEDS`,
    :data:`OFFSUIT_NEEDS`: suited connectors from 4-3, suited gappers when
    higher, big suited aces and kings, offsuit only J-T, Q-J, K-Q, A-K);
    otherwise muck the lower card. The second exchange applies the same rule
    to the face-up cards alone, ignoring the flop.
made-or-draw
    first exchange as ``threshold``; after the flop keep each card that
    works (pairs the board or the other face-up card, or is part of four or
    more to a flush or to a straight); muck a card that does not work, the
    lower one when neither does, and keep both when both work.
live-outs
    reads the cards in sight (other players' face-up cards, the muck): a
    card whose rank is showing elsewhere has fewer cards left to pair it,
    and a draw whose outs are showing is worth less. Before the flop the
    threshold rule is applied with each card's rank lowered by
    :data:`DEAD_RANK` per card of that rank in sight (the card worth less
    goes), and a suited hand counts as offsuit when fewer than
    :data:`MIN_LIVE_SUIT` cards of its suit are unseen; after the flop a card works if it
    makes a pair or better, or keeps a draw with at least
    :data:`MIN_LIVE_OUTS` live outs; of two idle cards it mucks the lower,
    unless only the higher one's rank is all in sight (nothing left to pair it).
thoughtful
    ``live-outs``, and after the flop it also reads the other players'
    made hands: a pocket pair without a set that another player's face-up
    cards already beat on this flop (a higher pair, two pair or trips) is
    broken up, one of its cards mucked for a fresh card.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from simcore.kernels import popcount
from simcore.variants.slovak import card_bit, rule_kernel

from .features import lower_of_two, straight_outs
from .registry import register

DECLINE, MUCK0, MUCK1 = 0, 1, 2

# Threshold rule (calibrated on the first-exchange chart, 6 players): keep a pair;
# keep an unpaired hand when the sum of its two ranks (0..12 for 2..A) reaches the
# sum needed for its gap (ranks missing between the two); else muck the lower card.
SUITED_NEEDS = np.array([3, 4, 7, 13, 14, 14, 13, 13, 14, 13, 13, 13])  # by gap
OFFSUIT_NEEDS = np.array([17] + [99] * 11)  # only offsuit J-T, Q-J, K-Q, A-K keep
MIN_LIVE_SUIT = 5  # live-outs: a suited hand counts as suited with this many unseen
DEAD_RANK = 3.0  # live-outs: rank points lost per card of that rank in sight
MIN_LIVE_OUTS = 1  # live-outs: a draw with every out in sight is idle

_NEVER, _LOWER, _THRESHOLD, _MADE_OR_DRAW, _LIVE_OUTS, _THOUGHTFUL = range(6)


# -- row helpers ---------------------------------------------------------------------
# A row's cards in sight are one 52-bit set, bit ``card`` (rank r's four suits
# are the nibble at 4r), so counts by rank or suit are popcounts of masked
# sets: no per-row histograms to clear and fill (measured: the histogram
# version spent most of its ~270 ns a row on them).

_SUIT_MASK = np.uint64(sum(1 << (4 * r) for r in range(13)))  # suit 0's bits; << s for suit s
_RANK_NIBBLE = np.uint64(0xF)
_CARDS = np.uint64((1 << 52) - 1)  # the 52 card bits of a card set


@njit(cache=True, nogil=True, inline="always")
def _spread(m):
    """Rank set ``m`` (13 bits) -> the same ranks' nibbles in a card set (52 bits).

    Shifts and masks put bit r at bit 4r, and times 0xF fills its nibble (the
    8192-entry table this replaces was 64 KB, more than the L1 cache).
    """
    x = np.uint64(m)
    x = (x | (x << np.uint64(24))) & np.uint64(0x000000FF000000FF)
    x = (x | (x << np.uint64(12))) & np.uint64(0x000F000F000F000F)
    x = (x | (x << np.uint64(6))) & np.uint64(0x0303030303030303)
    x = (x | (x << np.uint64(3))) & np.uint64(0x1111111111111111)
    return x * np.uint64(0xF)


@njit(cache=True, nogil=True, inline="always")
def _n_rank(cards, r):
    """Cards of rank ``r`` in the card set ``cards``."""
    return np.int64(popcount((cards >> np.uint64(4 * r)) & _RANK_NIBBLE))


@njit(cache=True, nogil=True, inline="always")
def _n_suit(cards, s):
    """Cards of suit ``s`` in the card set ``cards``."""
    return np.int64(popcount(cards & (_SUIT_MASK << np.uint64(s))))


@njit(cache=True, nogil=True, inline="always")
def _preflop(c0, c1, seen, live):
    """Threshold rule on two face-up cards; with ``live`` the cards in sight (a card set) count.

    Arithmetic on comparisons instead of branches: the branches depend on
    the cards and mispredict (the live rule took 2x as long with them).
    """
    r0, r1 = c0 >> 2, c1 >> 2
    lo = np.int64(lower_of_two(c0, c1))
    e0, e1 = float(r0), float(r1)
    suited = np.int64((c0 & 3) == (c1 & 3))
    if live:
        e0 -= DEAD_RANK * _n_rank(seen, r0)
        e1 -= DEAD_RANK * _n_rank(seen, r1)
        # too many of the suit in sight to count on a flush
        suited &= np.int64(11 - _n_suit(seen, c0 & 3) >= MIN_LIVE_SUIT)
        # the card worth less is the one to go (ties: the lower card)
        lo = np.int64(e1 < e0) + np.int64(e0 == e1) * lo
    gap = max(abs(r0 - r1) - 1, 0)  # a pair (gap -1) declines whatever it needs
    needs = OFFSUIT_NEEDS[gap] + suited * (SUITED_NEEDS[gap] - OFFSUIT_NEEDS[gap])
    keep = np.int64(r0 == r1) | np.int64(e0 + e1 >= needs)
    return (1 - keep) * (MUCK0 + lo)  # DECLINE is 0


@njit(cache=True, nogil=True, inline="always")
def _card_works(c, own, ranks, seen, live):
    """(works, live cards that pair it), both int64, for face-up card ``c`` after the flop.

    ``own`` is the card set of the two face-up cards and the flop, ``ranks``
    their 13-bit rank set, ``seen`` the card set in sight elsewhere. Written
    as arithmetic on comparisons, like :func:`_preflop`.
    """
    r, s = c >> 2, c & 3
    n_rank = _n_rank(own, r)
    n_suit = _n_suit(own, s)
    # straight: four or more ranks of a straight that uses this card; the
    # missing rank of each such straight completes it (4 cards a rank, less
    # those in sight)
    straight, complete = straight_outs(ranks, r)
    # made: pairs the board or the other face-up card, a flush, a straight
    made = np.int64(n_rank >= 2) | np.int64(n_suit >= 5) | np.int64(straight)
    # flush draw: exactly four of the suit with this card; 9 outs less those in sight
    flush_outs = max(9 - _n_suit(seen, s), 0) if live else 9
    draw_outs = np.int64(n_suit == 4) * flush_outs
    k = 4 * np.int64(popcount(np.uint64(complete)))
    if live:
        k -= np.int64(popcount(seen & _spread(complete)))
    draw_outs = max(draw_outs, k)
    outs = 3 - _n_rank(seen, r) - (n_rank - 1)  # live cards that pair it
    enough = np.int64(draw_outs >= MIN_LIVE_OUTS) if live else np.int64(1)
    works = made | (np.int64(draw_outs > 0) & enough)
    return works, outs


@njit(cache=True, nogil=True, inline="always")
def _postflop(c0, c1, b0, b1, b2, seen, live):
    """Second-exchange rule for face-up cards ``c0``, ``c1`` and the flop ``b0..b2``."""
    own = card_bit(c0) | card_bit(c1) | card_bit(b0) | card_bit(b1) | card_bit(b2)
    ranks = (1 << (c0 >> 2)) | (1 << (c1 >> 2)) | (1 << (b0 >> 2)) | (1 << (b1 >> 2)) | (1 << (b2 >> 2))
    w0, outs0 = _card_works(c0, own, ranks, seen, live)
    w1, outs1 = _card_works(c1, own, ranks, seen, live)
    lower = np.int64(lower_of_two(c0, c1))
    # neither works: muck the lower, or the one no live card can pair
    lo = lower
    if live:
        z0, z1 = np.int64(outs0 == 0), np.int64(outs1 == 0)
        lo = (z0 ^ z1) * (1 - z0) + (1 - (z0 ^ z1)) * lower
    # both work: decline (0); one works: muck the other; none: muck lo
    return w0 * (1 - w1) * MUCK1 + (1 - w0) * w1 * MUCK0 + (1 - w0) * (1 - w1) * (MUCK0 + lo)


@njit(cache=True, nogil=True, inline="always")
def _pair_beaten(up, board, i, seat):
    """Does another player's face-up pair, two pair or trips beat ``seat``'s pocket pair in row ``i``?

    Asked only for a pocket pair without a set. On 13-bit rank sets, without
    branches on the cards (they mispredict): seat q with face-up ranks a, b
    beats it with a card pairing the board above the pair, a card making
    trips with a paired board, both cards pairing the board, or a pocket pair
    above the pair or making a set.
    """
    mine = np.int64(up[i, seat, 0] >> 2)
    f0, f1, f2 = np.int64(board[i, 0] >> 2), np.int64(board[i, 1] >> 2), np.int64(board[i, 2] >> 2)
    flop = (1 << f0) | (1 << f1) | (1 << f2)  # the board's ranks
    paired = (np.int64(f0 == f1) << f0) | (np.int64(f1 == f2) << f1) | (np.int64(f0 == f2) << f2)
    above = -(2 << mine)  # ranks above the pair
    beaten = np.int64(0)
    for q in range(up.shape[1]):
        a, b = np.int64(up[i, q, 0] >> 2), np.int64(up[i, q, 1] >> 2)
        ra, rb = np.int64(1) << a, np.int64(1) << b
        two = ((ra & flop) != 0) & ((rb & flop) != 0) & (a != b)  # two pair
        beats = ((ra | rb) & ((flop & above) | paired)) | np.int64(two) \
            | (np.int64(a == b) & np.int64((ra & (flop | above)) != 0))
        beaten |= beats & -np.int64(q != seat)
    return beaten != 0


@njit(cache=True, nogil=True)
def in_sight_set(up, mucked):
    """The observation's ``in_sight`` (n,) uint64 from ``up`` and ``mucked``: every
    face-up and mucked card, bit c for card c (for observations built without it)."""
    n = up.shape[0]
    flat_up = up.reshape(n, up.shape[1] * up.shape[2])
    out = np.empty(n, np.uint64)
    for i in range(n):
        # -1 (no card) gives a bit outside _CARDS; branch-free over fixed counts
        s = np.uint64(0)
        for j in range(flat_up.shape[1]):
            s |= card_bit(flat_up[i, j])
        for j in range(mucked.shape[1]):
            s |= card_bit(mucked[i, j])
        out[i] = s & _CARDS
    return out


@njit(cache=True, nogil=True, inline="always")
def _rule_rows(c0s, c1s, b0s, b1s, b2s, ok, in_sight, out, post, live):
    """The rule on every row, ``post`` and ``live`` constants where it is inlined:
    branch-free over contiguous columns, so that LLVM vectorises it."""
    for i in range(c0s.shape[0]):
        c0, c1 = np.int64(c0s[i]), np.int64(c1s[i])
        # the cards in sight but this seat's own
        seen = in_sight[i] & ~(card_bit(c0) | card_bit(c1)) if live else np.uint64(0)
        if post:
            act = _postflop(c0, c1, np.int64(b0s[i]), np.int64(b1s[i]), np.int64(b2s[i]), seen, live)
        else:
            act = _preflop(c0, c1, seen, live)
        out[i] = act * np.int64(ok[i])


@njit(cache=True, nogil=True)
def _decide(up, board, in_sight, legal, seat, policy, second):
    """Actions (n,) of one policy for one seat over a batch: what every policy of this
    module answers, and the decision function the variant's rule kernel is compiled
    for (:data:`ruled_exchanges`).

    Three passes: the rows' own cards, flop and legality into contiguous
    columns; the rule itself over those columns and the cards in sight, in
    one loop for each of its four forms (flop or not, live cards or not), so
    that each is branch-free and vectorises (the second-exchange rule
    measured 7.7 ns a row so, 31 ns reading the strided observation row by
    row); then the thoughtful fix-up of the rows holding a pocket pair (about
    one in nine), listed branch-free in the first pass.
    """
    n = up.shape[0]
    if policy == _NEVER:
        return np.zeros(n, np.int64)
    out = np.empty(n, np.int64)
    if policy == _LOWER:
        for i in range(n):
            out[i] = np.int64(legal[i, 1]) * (MUCK0 + np.int64(lower_of_two(up[i, seat, 0], up[i, seat, 1])))
        return out
    live = policy == _LIVE_OUTS or policy == _THOUGHTFUL
    post = second and policy != _THRESHOLD
    thoughtful = post and policy == _THOUGHTFUL
    c0s = np.empty(n, np.int8)
    c1s = np.empty(n, np.int8)
    ok = np.empty(n, np.int8)
    m = n if post else 0
    b0s, b1s, b2s = np.empty(m, np.int8), np.empty(m, np.int8), np.empty(m, np.int8)
    pairs = np.empty(n if thoughtful else 0, np.int64)
    n_pairs = 0
    for i in range(n):
        c0, c1 = up[i, seat, 0], up[i, seat, 1]
        c0s[i], c1s[i] = c0, c1
        ok[i] = legal[i, 1]
        if thoughtful:
            # rows with a pocket pair and a face-down card left, listed branch-free
            pairs[n_pairs] = i
            n_pairs += np.int64(legal[i, 1]) & np.int64(c0 >> 2 == c1 >> 2)
        if post:
            b0s[i], b1s[i], b2s[i] = board[i, 0], board[i, 1], board[i, 2]
    if post and live:
        _rule_rows(c0s, c1s, b0s, b1s, b2s, ok, in_sight, out, True, True)
    elif post:
        _rule_rows(c0s, c1s, b0s, b1s, b2s, ok, in_sight, out, True, False)
    elif live:
        _rule_rows(c0s, c1s, b0s, b1s, b2s, ok, in_sight, out, False, True)
    else:
        _rule_rows(c0s, c1s, b0s, b1s, b2s, ok, in_sight, out, False, False)
    if thoughtful:
        # a beaten pocket pair without a set is broken up (the lower card goes)
        for k in range(n_pairs):
            i = pairs[k]
            c0, c1 = np.int64(c0s[i]), np.int64(c1s[i])
            r = c0 >> 2
            no_set = (b0s[i] >> 2 != r) & (b1s[i] >> 2 != r) & (b2s[i] >> 2 != r)
            if no_set and _pair_beaten(up, board, i, seat):
                out[i] = MUCK0 + np.int64(lower_of_two(c0, c1))
    return out


# The play applies these rules itself, every seat of a block in one kernel (the
# variant's rule_kernel, compiled for this module's _decide).
ruled_exchanges = rule_kernel(_decide, _LIVE_OUTS)


def _policy(code):
    def strategy(obs, rng):
        legal = obs["legal"]
        if code == _NEVER:
            return np.zeros(legal.shape[0], dtype=np.int64)
        in_sight = obs.get("in_sight")
        if in_sight is None:  # an observation built by hand
            in_sight = in_sight_set(obs["up"], obs["mucked"])
        return _decide(obs["up"], obs["board"], in_sight, legal, int(obs["seat"]), code,
                       obs["decision"] == "exchange2")

    return strategy


_POLICIES = (
    ("never", _NEVER, "always decline (the game is then Hold'em with the face-up cards)"),
    ("lower", _LOWER, "muck the lower face-up card whenever a face-down card is left"),
    ("threshold", _THRESHOLD, ("keep pairs, suited connectors, big suited and offsuit broadway "
                               "connectors (rank sum by gap), else muck the lower card; ignores the flop")),
    ("made-or-draw", _MADE_OR_DRAW, ("threshold before the flop; after it keep cards that pair "
                                     "or draw, muck an idle one")),
    ("live-outs", _LIVE_OUTS, ("as made-or-draw, counting only live cards: ranks and outs in "
                               "sight in other hands or the muck are gone")),
    ("thoughtful", _THOUGHTFUL, ("live-outs, and after the flop breaks up a pocket pair that a "
                                 "hand in sight already beats")),
)

# Each declares its rule: the play may apply it itself, in one kernel for every seat
# (see ruled_exchanges).
for _name, _code, _text in _POLICIES:
    for _decision in ("exchange1", "exchange2"):
        register("slovak", _decision, _name, _text, default=_name == "never",
                 exchange_rule=(_code, ruled_exchanges))(_policy(_code))
