"""Sviten Special: one test per rule (RULES.md), the stub and its recycling, the
split pot, policies, information hiding and analysis.

The service rules are checked on hand-built deals, then against a plain-Python
transcription of the rule text over many random heavy-draw deals. Monte Carlo
checks use a fixed seed and a tolerance of 4 standard errors.
"""
import itertools
from math import comb

import numpy as np
import pytest
from phevaluator import evaluate_omaha_cards

from simcore.cards import format_cards, parse_cards
from simcore.evaluate import evaluate_hands, evaluate_omaha
from simcore.variants.sviten import (
    KEEP, REFUSE, Service, mask_cards, n_chance, showdown_values, split_pot, stub_start,
)


def deck(P, seats, flop, stub=""):
    """One deal's 52 slots: each seat's five cards, the flop, the given top of the
    stub, then every other card in ascending order."""
    given = [int(c) for c in parse_cards(" ".join(seats) + " " + flop + " " + stub)]
    assert len(given) == len(set(given)) and len(seats) == P
    rest = [c for c in range(52) if c not in given]
    return np.array(given + rest, np.int8)[None, :]


def mask_of(hand, cards):
    """The draw mask that throws ``cards`` (a string) out of ``hand`` (a string)."""
    h, t = list(parse_cards(hand)), list(parse_cards(cards))
    return sum(1 << h.index(c) for c in t)


def run(cards, P, masks, opens=None, chance=None, check=None):
    """Play the draw, the turn and the river on a block; ``opens[p]`` answers seat p."""
    n = cards.shape[0]
    chance = np.zeros((n, n_chance(P)), np.uint32) if chance is None else chance
    s = Service(cards, P, chance)
    for p in range(P):
        s.throw(p, np.broadcast_to(np.asarray(masks[p]), (n,)))
        if check:
            check(s)
    for p in range(P):
        s.serve(p)
        if check:
            check(s)
        a = KEEP if opens is None else opens[p]
        s.answer_open(p, np.broadcast_to(np.asarray(a), (n,)))
        if check:
            check(s)
    s.turn_and_river()
    if check:
        check(s)
    return s


def cards_of(arr):
    return set(int(c) for c in np.asarray(arr).ravel() if c >= 0)


# -- dealing and the draw --------------------------------------------------------------


def test_five_cards_each_then_the_flop_then_the_stub_in_order_with_no_burns():
    P = 3
    seats = ["As Ks Qs Js Ts", "2c 3c 4d 5h 7s", "9d 9c 9h 4c 4s"]
    cards = deck(P, seats, "8h 8d 6c", "2d 3d 5d 6d 7d Jc Qc")
    s = run(cards, P, [0, mask_of(seats[1], "2c 3c"), mask_of(seats[2], "9d 9c 9h")])
    assert stub_start(P) == 18
    assert format_cards(s.hands[0, 0]) == seats[0]
    # replacements fill the thrown slots in slot order, seat by seat, from the top
    assert format_cards(s.hands[0, 1]) == "2d 3d 4d 5h 7s"
    assert format_cards(s.hands[0, 2]) == "5d 6d 7d 4c 4s"
    assert format_cards(s.board[0]) == "8h 8d 6c Jc Qc"  # turn and river next, no burn
    assert (s.open_cards == -1).all() and s.reshuffles[0] == 0


def test_every_seat_names_its_draw_before_anyone_is_served():
    cards = deck(2, ["As Ks Qs Js Ts", "2c 3c 4d 5h 7s"], "8h 8d 6c")
    s = Service(cards, 2, np.zeros((1, 0), np.uint32))
    s.throw(0, np.array([3]))
    with pytest.raises(ValueError, match="before every seat named its draw"):
        s.serve(0)


def test_one_open_kept_card_takes_the_thrown_cards_place():
    seats = ["As Ks Qs Js 2d", "2c 3c 4d 5h 7s"]
    cards = deck(2, seats, "8h 8d 6c", "Ts 9h 9s")
    s = Service(cards, 2, np.zeros((1, 0), np.uint32))
    s.throw(0, np.array([mask_of(seats[0], "2d")]))
    s.throw(1, np.array([mask_of(seats[1], "2c 3c")]))
    assert s.serve(0).tolist() == [True]
    assert format_cards(s.open_cards[0, :1]) == "Ts"  # served face up
    assert (s.hands[0, 0] == -1).sum() == 1  # not in the hand until kept
    s.answer_open(0, np.array([KEEP]))
    assert format_cards(s.hands[0, 0]) == "As Ks Qs Js Ts" and not s.refused[0, 0]
    assert s.serve(1).tolist() == [False]  # two thrown: no open card
    assert s.open_cards[0, 1] == -1
    assert format_cards(s.hands[0, 1]) == "9h 9s 4d 5h 7s"


def test_one_open_refused_card_is_mucked_face_up_and_the_next_card_must_be_kept():
    seats = ["As Ks Qs Js 2d", "2c 3c 4d 5h 7s"]
    cards = deck(2, seats, "8h 8d 6c", "Ts 9h 9s 8s")
    s = Service(cards, 2, np.zeros((1, 0), np.uint32))
    s.throw(0, np.array([mask_of(seats[0], "2d")]))
    s.throw(1, np.array([mask_of(seats[1], "2c 3c")]))
    s.serve(0)
    s.answer_open(0, np.array([REFUSE]))
    assert s.refused[0, 0] and format_cards(s.open_cards[0, :1]) == "Ts"
    assert format_cards(s.hands[0, 0]) == "As Ks Qs Js 9h"  # the next card, face down
    assert cards_of(s.muck[0, :s.n_muck[0]]) == cards_of(parse_cards("2d Ts 2c 3c"))
    s.serve(1)
    assert format_cards(s.hands[0, 1]) == "9s 8s 4d 5h 7s"


def test_the_open_answer_only_matters_for_one_card_throwers():
    seats = ["As Ks Qs Js 2d", "2c 3c 4d 5h 7s"]
    cards = deck(2, seats, "8h 8d 6c", "Ts 9h 9s 8s")
    a = run(cards, 2, [0, mask_of(seats[1], "2c 3c")], opens=[REFUSE, REFUSE])
    b = run(cards, 2, [0, mask_of(seats[1], "2c 3c")], opens=[KEEP, KEEP])
    assert (a.hands == b.hands).all() and not a.refused.any()


# -- recycling ---------------------------------------------------------------------------

NINE = ["2c 2d 2h 2s 3c", "3d 3h 3s 4c 4d", "4h 4s 5c 5d 5h", "5s 6c 6d 6h 6s",
        "7c 7d 7h 7s 8c", "8d 8h 8s 9c 9d", "9h 9s Tc Td Th", "Ts Jc Jd Jh Js",
        "Qc Qd Qh Qs Kc"]
NINE_FLOP = "Kd Kh Ks"  # the stub is then Ac Ad Ah As, four cards


def test_recycling_takes_the_muck_of_players_already_served_only():
    masks = [0] * 9
    masks[0] = 0b00111  # 2c 2d 2h: served the first three stub cards
    masks[1] = 0b00111  # 3d 3h 3s: one stub card, then the stub is out
    masks[2] = 0b00011  # 4h 4s
    s = run(deck(9, NINE, NINE_FLOP), 9, masks, chance=np.full((1, n_chance(9)), 7 << 29, np.uint32))
    assert format_cards(s.hands[0, 0, :3]) == "Ac Ad Ah"
    assert format_cards(s.hands[0, 1, :1]) == "As"
    seat0 = cards_of(parse_cards("2c 2d 2h"))
    # seat 1's own thrown cards, and seat 2's (not yet served), stay out
    assert cards_of(s.hands[0, 1, 1:3]) <= seat0
    assert s.reshuffle_seat[0, :1].tolist() == [1] and s.reshuffle_size[0, 0] == 3
    # seat 2 takes the last recycled card, then seat 1's muck is recycled for it
    assert len(cards_of(s.hands[0, 2, :2]) & seat0) == 1
    assert len(cards_of(s.hands[0, 2, :2]) & cards_of(parse_cards("3d 3h 3s"))) == 1
    assert s.reshuffle_seat[0, :2].tolist() == [1, 2] and s.reshuffle_size[0, 1] == 3
    assert s.reshuffles[0] == 2


def test_the_current_players_own_muck_goes_in_only_when_nothing_else_is_left():
    masks = [0] * 9
    masks[1] = 0b11111  # seat 0 threw nothing: after the stub only seat 1's own cards are left
    s = run(deck(9, NINE, NINE_FLOP), 9, masks)
    assert format_cards(s.hands[0, 1, :4]) == "Ac Ad Ah As"
    assert cards_of(s.hands[0, 1, 4:]) <= cards_of(parse_cards(NINE[1]))
    assert s.reshuffle_seat[0, 0] == 1 and s.reshuffle_size[0, 0] == 5 and s.reshuffle_own[0, 0]
    # with a served player's muck available, the own muck stays out
    masks[0] = 0b00001  # seat 0 threw 2c: keeps Ac
    s = run(deck(9, NINE, NINE_FLOP), 9, masks, opens=[KEEP] * 9)
    assert format_cards(s.hands[0, 1, :4]) == "Ad Ah As 2c"
    assert s.reshuffle_size[0, 0] == 1 and not s.reshuffle_own[0, 0]


def test_a_refused_open_card_is_recycled_for_later_players_but_not_its_owner():
    masks = [0] * 9
    masks[0] = 0b00111  # 2c 2d 2h for Ac Ad Ah
    masks[1] = 0b00001  # 3d thrown; As served face up and refused; the stub is out
    masks[2] = 0b00001  # 4h thrown; its open card comes from a recycled stub
    opens = [KEEP, REFUSE, KEEP] + [KEEP] * 6
    s = run(deck(9, NINE, NINE_FLOP), 9, masks, opens=opens)
    assert format_cards(s.open_cards[0, 1:2]) == "As" and s.refused[0, 1]
    seat0 = cards_of(parse_cards("2c 2d 2h"))
    assert cards_of(s.hands[0, 1, :1]) <= seat0  # not 3d, not As
    assert s.reshuffle_seat[0, 0] == 1 and s.reshuffle_size[0, 0] == 3
    assert int(s.open_cards[0, 2]) in seat0  # served from the recycled stub


def test_turn_and_river_recycle_the_whole_muck():
    masks = [0] * 9
    masks[8] = 0b01111  # the last seat takes the whole stub
    s = run(deck(9, NINE, NINE_FLOP), 9, masks)
    assert format_cards(s.hands[0, 8, :4]) == "Ac Ad Ah As"
    assert cards_of(s.board[0, 3:]) <= cards_of(parse_cards("Qc Qd Qh Qs"))
    assert s.reshuffle_seat[0, 0] == 9 and s.reshuffle_size[0, 0] == 4


def test_no_recycling_while_the_stub_lasts():
    masks = [0] * 9
    masks[0] = 0b00011
    masks[5] = 0b00001  # four cards in all (with the open card), and no refusal
    s = run(deck(9, NINE, NINE_FLOP), 9, masks)
    assert s.reshuffles[0] == 1 and s.reshuffle_seat[0, 0] == 9  # only for the turn
    masks[5] = 0
    s = run(deck(9, NINE, NINE_FLOP), 9, masks)
    assert s.reshuffles[0] == 0 and format_cards(s.board[0, 3:]) == "Ah As"


def test_chance_draws_suffice_in_the_worst_case():
    # Every seat throwing five serves the most cards: 5P for the draw, 2 for the board.
    rng = np.random.default_rng(5)
    for P in range(2, 10):
        cards = np.argsort(rng.random((50, 52)), axis=1).astype(np.int8)
        chance = rng.integers(0, 2**32, (50, n_chance(P)), dtype=np.uint32)
        s = run(cards, P, [31] * P, chance=chance)
        assert (s.chance_used == n_chance(P)).all(), P


def test_a_recycled_stub_serves_each_of_its_cards_equally_often():
    n = 24000
    masks = [0] * 9
    masks[0] = 0b00111  # 2c 2d 2h go to the muck; seat 1 draws As and then a recycled card
    masks[1] = 0b00011
    rng = np.random.default_rng(11)
    cards = np.repeat(deck(9, NINE, NINE_FLOP), n, axis=0)
    chance = rng.integers(0, 2**32, (n, n_chance(9)), dtype=np.uint32)
    s = run(cards, 9, masks, chance=chance)
    got = s.hands[:, 1, 1]
    for c in parse_cards("2c 2d 2h"):
        freq = (got == c).mean()
        se = np.sqrt(1 / 3 * 2 / 3 / n)
        assert abs(freq - 1 / 3) < 4 * se  # 4 standard errors, fixed seed


# -- properties over random heavy-draw deals -----------------------------------------------


def reference_service(cards, P, masks, opens, chance):
    """The rule text, transcribed with Python lists, for one deal.

    Returns (hands, board, recycles) where recycles lists (seat served, cards
    recycled, whether they were the seat's own muck). A recycled stub serves
    the card at ``floor(u * size / 2**32)`` and moves its last card into the gap.
    """
    cards = [int(c) for c in cards]
    hands = [cards[5 * p:5 * p + 5] for p in range(P)]
    board = cards[5 * P:5 * P + 3]
    stub = cards[5 * P + 3:]
    pool, muck, recycles, used = [], [], [], [0]
    for p in range(P):
        for j in mask_cards(masks[p]):
            muck.append((hands[p][j], p))
            hands[p][j] = None

    def serve(seat):
        nonlocal pool, muck
        if stub:
            return stub.pop(0)
        if not pool:
            served = [c for c, o in muck if o < seat]
            own = not served
            pool = served or [c for c, o in muck if o == seat]
            muck = [(c, o) for c, o in muck if not (o < seat or (own and o == seat))]
            recycles.append((seat, len(pool), own))
        u = int(chance[used[0]])
        used[0] += 1
        j = (u * len(pool)) >> 32
        c = pool[j]
        pool[j] = pool[-1]
        pool.pop()
        return c

    for p in range(P):
        holes = [j for j in range(5) if hands[p][j] is None]
        if len(holes) == 1:
            c = serve(p)
            if opens[p] == REFUSE:
                muck.append((c, p))
                c = serve(p)
            hands[p][holes[0]] = c
        else:
            for j in holes:
                hands[p][j] = serve(p)
    board += [serve(P), serve(P)]
    return hands, board, recycles


def random_block(rng, n, P, throw_p):
    cards = np.argsort(rng.random((n, 52)), axis=1).astype(np.int8)
    chance = rng.integers(0, 2**32, (n, n_chance(P)), dtype=np.uint32)
    masks = [((rng.random((n, 5)) < throw_p) * (1 << np.arange(5))).sum(axis=1) for _ in range(P)]
    # one-card throws are the interesting case for One Open: make them common
    for m in masks:
        one = rng.random(n) < 0.3
        m[one] = 1 << rng.integers(0, 5, one.sum())
    opens = [rng.integers(0, 2, n) for _ in range(P)]
    return cards, chance, masks, opens


def test_service_matches_a_transcription_of_the_rules():
    rng = np.random.default_rng(2)
    for P in (5, 6, 7, 8, 9):
        n = 300
        cards, chance, masks, opens = random_block(rng, n, P, 0.6)
        s = run(cards, P, masks, opens, chance)
        recycled = 0
        for i in range(n):
            hands, board, recycles = reference_service(
                cards[i], P, [m[i] for m in masks], [o[i] for o in opens], chance[i])
            assert s.hands[i].tolist() == hands, (P, i)
            assert s.board[i].tolist() == board, (P, i)
            r = s.reshuffles[i]
            got = [(int(a), int(b), bool(c)) for a, b, c in
                   zip(s.reshuffle_seat[i, :r], s.reshuffle_size[i, :r], s.reshuffle_own[i, :r])]
            assert got == recycles, (P, i)
            recycled += len(recycles)
        if P >= 8:
            assert recycled > n  # the case is exercised


def check_places(s):
    """Every card in exactly one place, and the muck accounted for."""
    where = s.places()
    assert ((where >= 0) & (where <= 5)).all()
    counts = (
        (s.hands >= 0).sum(axis=(1, 2)) + (s.board >= 0).sum(axis=1) + s.n_muck + s.n_pool
        + (52 - s.pos) + (where == 5).sum(axis=1)
    )
    assert (counts == 52).all()


def test_no_card_is_ever_in_two_places_over_heavy_nine_player_draws():
    rng = np.random.default_rng(3)
    total = 0
    for P, throw_p in ((9, 0.8), (9, 0.5), (8, 0.9), (7, 1.0)):
        cards, chance, masks, opens = random_block(rng, 2000, P, throw_p)
        s = run(cards, P, masks, opens, chance, check=check_places)
        total += int(s.reshuffles.sum())
        # the final hands, board and what is left are the deck exactly
        final = np.concatenate([s.hands.reshape(len(s.hands), -1), s.board], axis=1)
        assert (np.sort(final, axis=1)[:, 1:] != np.sort(final, axis=1)[:, :-1]).all()
    assert total > 10000  # recycling is common here


# -- the showdown ---------------------------------------------------------------------------


def test_own_five_half_uses_the_five_cards_alone():
    # Seat 0 holds a pair of aces; seat 1 two pair; the board gives seat 0 the Omaha half.
    hands = parse_cards("As Ad 7c 5h 2s Kc Kd 3c 3h 9s").reshape(1, 2, 5)
    board = parse_cards("Ah Ac 7d 6s 4d")[None]
    o5, om = showdown_values(hands, board)
    assert (o5[0] >> 12).tolist() == [1, 2]
    assert (om[0] >> 12).tolist() == [7, 2]  # quad aces with As Ad; kings up for seat 1
    s = split_pot(o5, om)
    assert s["payoff"][0].tolist() == [0.5, 0.5]
    assert s["share_own5"][0].tolist() == [0.0, 1.0] and s["share_omaha"][0].tolist() == [1.0, 0.0]
    assert not s["win"].any() and s["tie"].all()  # a split pot: each gets part of it


def test_omaha_takes_exactly_two_own_cards_and_three_board_cards():
    # Four spades in the hand and three on the board make no royal flush: only two may play.
    hands = parse_cards("As Ks Qs Js 2d").reshape(1, 1, 5)
    board = parse_cards("Ts 9h 8h 3c 4d")[None]
    assert describe(showdown_values(hands, board)[1][0, 0]) == "queen-high straight"
    # One heart in the hand does not make a flush with four on the board.
    hands = parse_cards("Ah 2c 7d 9s Kc").reshape(1, 1, 5)
    board = parse_cards("Qh Jh 8h 3h 4d")[None]
    assert showdown_values(hands, board)[1][0, 0] >> 12 == 0


def describe(v):
    from simcore.evaluate import describe_hand

    return describe_hand(int(v))


def test_a_scoop_wins_both_halves_and_ties_split_each_half():
    hands = parse_cards("Ac Ad Ah Kc Kd 2c 3d 4h 6s 8c 2d 3h 4s 6c 8d").reshape(1, 3, 5)
    board = parse_cards("As Ks 9h 9d Tc")[None]
    s = split_pot(*showdown_values(hands, board))
    assert s["payoff"][0].tolist() == [1.0, 0.0, 0.0]
    assert s["win"][0].tolist() == [True, False, False] and not s["tie"].any()
    # Seats 1 and 2 hold the same ranks: they split the own-five half; seat 0 the Omaha one.
    hands = parse_cards("Ac 9s 7d 6h 3c Qc Qd 4h 4s 2c Qh Qs 4c 4d 2d").reshape(1, 3, 5)
    board = parse_cards("As Ad Kh Kd Tc")[None]
    s = split_pot(*showdown_values(hands, board))
    assert s["share_own5"][0].tolist() == [0.0, 0.5, 0.5]
    assert s["share_omaha"][0].tolist() == [1.0, 0.0, 0.0]
    assert s["payoff"][0].tolist() == [0.5, 0.25, 0.25]
    assert s["tie"][0].tolist() == [True, True, True] and not s["win"].any()
    assert s["payoff"].sum() == 1.0


def test_omaha_half_matches_brute_force_and_phevaluator():
    rng = np.random.default_rng(4)
    n = 1500
    d = np.argsort(rng.random((n, 52)), axis=1)[:, :10].astype(np.int8)
    hands, board = d[:, None, :5], d[:, 5:]
    om = showdown_values(hands, board)[1][:, 0]
    # brute force: every 2 of the five with every 3 of the board
    brute = np.zeros(n, np.int64)
    for a in itertools.combinations(range(5), 2):
        for b in itertools.combinations(range(5), 3):
            five = np.concatenate([d[:, list(a)], board[:, list(b)]], axis=1)
            brute = np.maximum(brute, evaluate_hands(five))
    assert (om == brute).all()
    # phevaluator (four hole cards): the best over the five four-card subsets
    names = [[format_cards([c]) for c in row] for row in d]
    ph = np.array([min(evaluate_omaha_cards(*r[5:], *[r[j] for j in range(5) if j != k])
                       for k in range(5)) for r in names])
    # the same order: a higher value exactly where phevaluator's rank is lower
    order = np.argsort(om, kind="stable")
    assert (np.diff(ph[order]) <= 0).all()
    assert len(np.unique(om)) == len(np.unique(ph))
    # and the four-card case agrees with the library's own Omaha evaluator
    assert (evaluate_omaha(d[:, :4], board) <= om).all()


def test_pat_own_five_half_matches_exact_enumeration():
    # Seat 0 holds Q Q 7 5 2 and stands pat; so does seat 1 with five random cards.
    # Its share of the own-five half is then exact over all C(47, 5) hands.
    mine = parse_cards("Qs Qd 7c 5h 2s")
    rest = np.array([c for c in range(52) if c not in mine], np.int8)
    combos = np.array(list(itertools.combinations(range(47), 5)), np.int32)
    assert len(combos) == comb(47, 5)
    v1 = evaluate_hands(rest[combos], check=False)
    v0 = int(evaluate_hands(mine)[0])
    exact = ((v1 < v0).sum() + 0.5 * (v1 == v0).sum()) / len(combos)
    rng = np.random.default_rng(6)
    n = 60000
    order = np.argsort(rng.random((n, 47)), axis=1)
    cards = np.concatenate([np.repeat(mine[None], n, axis=0), rest[order]], axis=1).astype(np.int8)
    s = run(cards, 2, [0, 0])
    got = split_pot(*s.showdown())["share_own5"][:, 0]
    se = got.std() / np.sqrt(n)
    assert abs(got.mean() - exact) < 4 * se  # 4 standard errors, fixed seed


def test_bad_input_is_refused_with_a_clear_error():
    with pytest.raises(ValueError, match="2 to 9 players, got 10"):
        Service(np.zeros((1, 52), np.int8), 10, np.zeros((1, 0), np.uint32))
    with pytest.raises(ValueError, match="52"):
        Service(np.zeros((1, 40), np.int8), 4, np.zeros((1, 0), np.uint32))
    s = Service(deck(2, ["As Ks Qs Js Ts", "2c 3c 4d 5h 7s"], "8h 8d 6c"), 2, np.zeros((1, 0), np.uint32))
    with pytest.raises(ValueError, match="0..31"):
        s.throw(0, np.array([32]))


# -- the variant through the engine -------------------------------------------------------

from simcore import analyze, simulate  # noqa: E402
from simcore.engine import NoRollout, play_block  # noqa: E402
from simcore.variants import get_variant  # noqa: E402
from strategies.registry import default_policy, lineup, resolve, spec_label  # noqa: E402

V = get_variant("sviten")


def recorder(answer, log):
    """A strategy that keeps copies of its observations and answers ``answer(obs)``."""

    def strategy(obs, rng):
        log.append({k: (x.copy() if isinstance(x, np.ndarray) else x) for k, x in obs.items()})
        return answer(obs)

    return strategy


def const(action):
    return lambda obs, rng=None: np.full(obs["legal"].shape[0], action, np.int64)


def engine_play(cards, P, draws, opens=None, chance=None, logs=None):
    """play_block with seat p throwing ``draws[p]`` and answering ``opens[p]``."""
    n = cards.shape[0]
    lu = []
    for p in range(P):
        d = const(draws[p])
        o = const(KEEP if opens is None else opens[p])
        if logs is not None:
            d, o = recorder(d, logs[p]["draw"]), recorder(o, logs[p]["open"])
        lu.append({"draw": ("d", d), "open": ("o", o)})
    chance = np.zeros((n, V.n_chance(P)), np.uint32) if chance is None else chance
    rngs = [np.random.default_rng(p) for p in range(P)]
    return play_block(V, cards, P, lu, rngs, None, chance, record=True)


def test_player_limits_and_exact_names_and_defaults():
    assert (V.min_players, V.max_players) == (2, 9) and V.hands == ("own five", "omaha")
    assert V.parts == ("share_own5", "share_omaha", "scoop_rate")
    assert (default_policy("sviten", "draw"), default_policy("sviten", "open")) == ("pat", "accept")
    assert spec_label(lineup("sviten", 3)[0]) == "draw=pat,open=accept"
    for bad in (1, 10):
        with pytest.raises(ValueError, match=f"2 to 9 players, got {bad}"):
            simulate("sviten", bad, 10, progress=False)


def test_a_hand_built_deal_through_the_engine_reports_both_halves():
    # Seat 0 draws to a spade flush and keeps the open 6s; seat 1 stands pat with two pair.
    seats = ["As Ks 9s 4s 2d", "Qc Qd 7c 7h 3d"]
    cards = deck(2, seats, "Jh Ts 5c", "6s 8d Kd")
    out = engine_play(cards, 2, [mask_of(seats[0], "2d"), 0], [KEEP, KEEP])
    # own five: the flush beats two pair; Omaha: kings (Ks + Kd) beat queens (Qc Qd)
    assert out.categories[0].tolist() == [[5, 1], [2, 1]]
    assert out.parts["share_own5"][0].tolist() == [1.0, 0.0]
    assert out.parts["share_omaha"][0].tolist() == [1.0, 0.0]
    assert out.payoffs[0].tolist() == [1.0, 0.0] and out.parts["scoop_rate"][0].tolist() == [1.0, 0.0]
    assert out.wins[0].tolist() == [True, False] and not out.ties.any()
    # refusing the 6s: the next card, 8d, comes face down; no flush, and seat 1 takes that half
    out = engine_play(cards, 2, [mask_of(seats[0], "2d"), 0], [REFUSE, KEEP])
    assert out.categories[0, 0, 0] == 0 and out.parts["share_own5"][0].tolist() == [0.0, 1.0]
    assert out.ties[0].tolist() == [True, True] and out.payoffs[0].tolist() == [0.5, 0.5]
    assert out.actions[(0, "open", 0)].tolist() == [REFUSE]
    assert out.winning[0].tolist() == out.categories[0].max(axis=0).tolist()


def test_draw_sees_own_cards_the_flop_and_how_many_earlier_seats_threw():
    logs = [{"draw": [], "open": []} for _ in range(3)]
    seats = ["As Ks 9s 4s 2d", "Qc Qd 7c 7h 3d", "2c 3c 4d 5h 7s"]
    cards = deck(3, seats, "Jh Ts 5c", "6s 8d Kd 2h")
    engine_play(cards, 3, [0b00011, 0b00100, 0b11111], [KEEP] * 3, logs=logs)
    obs = logs[2]["draw"][0]
    assert format_cards(obs["hand"][0]) == seats[2] and format_cards(obs["board"][0]) == "Jh Ts 5c"
    assert obs["thrown"][0].tolist() == [2, 1, -1]
    assert logs[0]["draw"][0]["thrown"][0].tolist() == [-1, -1, -1]
    assert obs["legal"].all() and obs["legal"].shape == (1, 32)
    assert set(obs) == {"hand", "board", "thrown", "legal", "seat", "n_players", "decision",
                        "variant", "round"}


def test_an_open_card_is_public_to_later_decisions_but_thrown_cards_are_not():
    # Seat 0 throws one card and refuses its open card; seat 1 (one card too) sees that
    # open card and the refusal, whichever card seat 0 threw and whatever it holds.
    logs_a = [{"draw": [], "open": []} for _ in range(2)]
    logs_b = [{"draw": [], "open": []} for _ in range(2)]
    seat1 = "Qc Qd 7c 7h 3d"
    a = deck(2, ["As Ks 9s 4s 2d", seat1], "Jh Ts 5c", "6s 8d Kd")
    b = deck(2, ["2c 3c 4d 5h 8s", seat1], "Jh Ts 5c", "6s 8d Kd")
    engine_play(a, 2, [0b00001, 0b10000], [REFUSE, KEEP], logs=logs_a)
    engine_play(b, 2, [0b01000, 0b10000], [REFUSE, KEEP], logs=logs_b)
    oa, ob = logs_a[1]["open"][0], logs_b[1]["open"][0]
    for k in ("hand", "mask", "open_card", "board", "thrown", "open_cards", "refused", "legal"):
        assert np.array_equal(oa[k], ob[k]), k
    assert format_cards(oa["open_cards"][0]) == "6s Kd"  # seat 0's refused card, then seat 1's
    assert oa["refused"][0].tolist() == [True, False]
    assert int(oa["open_card"][0]) == parse_cards("Kd")[0] and oa["mask"][0] == 0b10000
    assert format_cards(oa["hand"][0]) == seat1  # the five held before the throw
    assert logs_a[1]["draw"][0]["thrown"][0].tolist() == [1, -1]


def test_the_open_decision_is_asked_only_where_a_seat_threw_one():
    logs = [{"draw": [], "open": []} for _ in range(2)]
    cards = deck(2, ["As Ks 9s 4s 2d", "Qc Qd 7c 7h 3d"], "Jh Ts 5c")
    engine_play(cards, 2, [0b00011, 0], logs=logs)
    assert logs[0]["open"] == [] and logs[1]["open"] == []
    two = np.repeat(cards, 2, axis=0)
    lu = [{"draw": ("d", lambda obs, rng: np.array([1, 3])), "open": ("o", recorder(const(KEEP), logs[0]["open"]))},
          {"draw": ("d", const(0)), "open": ("o", const(KEEP))}]
    play_block(V, two, 2, lu, [np.random.default_rng(0)] * 2, None, np.zeros((2, 0), np.uint32))
    legal = logs[0]["open"][0]["legal"]
    assert legal.tolist() == [[True, True], [True, False]]  # refusing needs an open card
    assert logs[0]["open"][0]["open_card"][1] == -1


# -- policies ---------------------------------------------------------------------------------


def policy(decision, name):
    return resolve("sviten", decision, name)[1]


def draw_obs(hands, flops):
    hand = np.array([parse_cards(h) for h in hands], np.int8)
    board = np.array([parse_cards(f) for f in flops], np.int8)
    return {"hand": hand, "board": board, "thrown": np.full((len(hands), 2), -1, np.int8),
            "legal": np.ones((len(hands), 32), bool), "seat": 0, "n_players": 2, "decision": "draw",
            "variant": "sviten", "round": 0}


def thrown_cards(obs, actions):
    return [format_cards([c for j, c in enumerate(h) if (a >> j) & 1]) for h, a in zip(obs["hand"], actions)]


def test_one_lowest_throws_the_lowest_rank_then_the_lowest_suit():
    obs = draw_obs(["Ks 2h 9d 2c Ac", "As Ah Ad Kc Kd"], ["3s 4s 5s", "3s 4s 5s"])
    got = thrown_cards(obs, policy("draw", "one-lowest")(obs, None))
    assert got == ["2c", "Kc"]
    assert policy("draw", "pat")(obs, None).tolist() == [0, 0]


def test_random_draw_is_uniform_over_the_32_subsets():
    n = 64000
    obs = draw_obs(["Ks 2h 9d 2c Ac"] * n, ["3s 4s 5s"] * n)
    counts = np.bincount(policy("draw", "random")(obs, np.random.default_rng(8)), minlength=32)
    se = np.sqrt(n * (1 / 32) * (31 / 32))
    assert (np.abs(counts - n / 32) < 4 * se).all()  # 4 standard errors, fixed seed


def test_draw_poker_follows_five_card_draw_practice():
    hands = ["Ts 9s 8d 7c 6h", "7s 7d 7c Kh 2s", "Qs Qd 5c 5h 2s", "As 9s 6s 2s Kd",
             "7s 7d Kc 4h 2s", "9s 8d 7c 6h 2c", "As Jd 8c 5h 2d", "Ks Kd Kh Kc 2s"]
    obs = draw_obs(hands, ["3c 3d Jh"] * len(hands))
    got = thrown_cards(obs, policy("draw", "draw-poker")(obs, None))
    assert got == ["", "Kh 2s", "2s", "Kd", "Kc 4h 2s", "2c", "Jd 8c 5h 2d", ""]


def test_omaha_flop_keeps_the_two_that_play_best_with_the_flop():
    obs = draw_obs(["Ks Qs 7d 4c 2h", "8h 8c Ad 5s 2c", "Ac Kd 9h 6c 3d"],
                   ["Js Ts 3h", "8d 6s 5d", "9c 9d 2s"])
    got = thrown_cards(obs, policy("draw", "omaha-flop")(obs, None))
    # a royal-flush draw with Ks Qs; a set of eights (and the five pairs the flop);
    # Ac 9h make trips nines with an ace: the rest goes
    assert got == ["7d 4c 2h", "Ad 2c", "Kd 6c 3d"]


def test_balanced_plays_draw_poker_with_two_pair_and_keeps_both_halves_otherwise():
    obs = draw_obs(["Qs Qd 5c 5h 2s", "7s 7d Kc 4h 2s"], ["Js Ts 3h", "Ks Td 4d"])
    got = thrown_cards(obs, policy("draw", "balanced")(obs, None))
    # two pair: draw one; a pair of sevens plus K-4 that make two pair on the flop: draw one
    assert got == ["2s", "2s"]


def open_obs(hands, masks, opens, flops):
    n = len(hands)
    hand = np.array([parse_cards(h) for h in hands], np.int8)
    oc = np.array([parse_cards(o)[0] for o in opens], np.int8)
    open_cards = np.full((n, 2), -1, np.int8)
    open_cards[:, 0] = oc
    return {"hand": hand, "mask": np.array(masks, np.int8), "open_card": oc,
            "board": np.array([parse_cards(f) for f in flops], np.int8),
            "thrown": np.ones((n, 2), np.int8), "open_cards": open_cards,
            "refused": np.zeros((n, 2), bool), "legal": np.ones((n, 2), bool),
            "seat": 0, "n_players": 2, "decision": "open", "variant": "sviten", "round": 0}


def test_open_policies_accept_decline_and_improves():
    # Threw the 2s from a pair of queens; served 3h (worse), Qh (trips), 2d (the same hand).
    obs = open_obs(["Qs Qd 9c 5h 2s"] * 3, [0b10000] * 3, ["3h", "Qh", "2d"], ["Ac Kc 7d"] * 3)
    assert policy("open", "accept")(obs, None).tolist() == [KEEP] * 3
    assert policy("open", "decline")(obs, None).tolist() == [REFUSE] * 3
    assert policy("open", "improves")(obs, None).tolist() == [KEEP, KEEP, KEEP]
    obs = open_obs(["Qs Qd 9c 5h 7s"] * 2, [0b10000] * 2, ["3h", "8d"], ["Ac Kc 7d"] * 2)
    assert policy("open", "improves")(obs, None).tolist() == [REFUSE, KEEP]
    no_open = dict(obs, legal=np.array([[True, False]] * 2))
    for name in ("decline", "improves", "both-halves"):
        assert policy("open", name)(no_open, None).tolist() == [KEEP, KEEP]


def test_both_halves_weighs_the_omaha_hand_too():
    # Threw Qd from ace-queen high on a T-7-4 flop. Tc makes the own five worse (ace-ten
    # high) but pairs the flop for the Omaha half: kept, where improves refuses it. 3d
    # helps neither half; 9d pairs the nines for both.
    obs = open_obs(["Ah Qd 9c 6s 2c"] * 3, [0b00010] * 3, ["Tc", "3d", "9d"], ["Th 7h 4d"] * 3)
    assert policy("open", "both-halves")(obs, None).tolist() == [KEEP, REFUSE, KEEP]
    assert policy("open", "improves")(obs, None).tolist() == [REFUSE, REFUSE, KEEP]


def test_both_halves_mean_over_unseen_cards_is_the_plain_one():
    """_mean_both_halves values the six Omaha pairs without the open slot once per row; its mean
    is the plain one (every card's both-halves score, summed in order), exactly."""
    from strategies import sviten as S

    rng = np.random.default_rng(5)
    pct = S.strength_table()
    for _ in range(500):
        cards = rng.permutation(52)[:8]
        h, flop = cards[:5].astype(np.int64), cards[5:8].astype(np.int8)
        slot = int(rng.integers(5))
        unseen = np.sort(rng.permutation(np.setdiff1d(np.arange(52), cards))[: rng.integers(1, 45)])
        plain, total = h.copy(), 0.0
        for u in unseen:
            plain[slot] = u
            total += S._both_halves_score(plain, flop, pct)
        got = S._mean_both_halves(h.copy(), slot, flop, unseen.astype(np.int64), len(unseen), pct)
        assert got == total / len(unseen)


# -- analysis and rollouts ---------------------------------------------------------------------


def test_analysis_labels_name_the_cards():
    sit = V.setup(6, hand="As Ad 7c 5h 2s", board="Ah Kd 7d")
    assert sit.presets == {}
    assert V.analysis_label("draw", 0, sit) == "stand pat"
    assert V.analysis_label("draw", 0b11000, sit) == "throw 5h 2s"
    assert len(V.analysis_actions("draw", sit)) == 32
    sit = V.setup(6, hand="Qs Qd 9c 5h 2s", board="Qh 8d 3d", open="Qc", threw="9c")
    assert sit.presets == {(0, "draw"): 0b00100}
    assert sit.known[stub_start(6)] == parse_cards("Qc")[0]
    assert V.analysis_label("open", KEEP, sit) == "keep Qc"
    assert V.analysis_label("open", REFUSE, sit) == "refuse Qc"
    assert V.default_decision(sit) == "open"
    # without threw, the lowest card was thrown
    assert V.setup(6, hand="Qs Qd 9c 5h 2s", open="Qc").presets == {(0, "draw"): 0b10000}


def test_bad_situations_are_refused_with_a_clear_error():
    with pytest.raises(ValueError, match="at most 3 cards"):
        V.setup(6, hand="As Ad", board="Ah Kd 7d 2c")
    with pytest.raises(ValueError, match="threw: one card of the hand"):
        V.setup(6, hand="Qs Qd 9c 5h 2s", open="Qc", threw="Ac")
    with pytest.raises(ValueError, match="all five cards"):
        V.setup(6, hand="Qs Qd", open="Qc")
    with pytest.raises(ValueError, match="only for seat 0"):
        V.setup(6, hand="Qs Qd 9c 5h 2s", open="Qc", seat=2)
    with pytest.raises(ValueError, match="duplicate"):
        V.setup(6, hand="Qs Qd 9c 5h 2s", open="Qs")


def test_analyze_ranks_every_draw_and_the_open_answer():
    r = analyze("sviten", 4, hand="As Ad Ac Ks Kd", board="Qh 8d 3c", n_deals=4096, stop_early=False,
                progress=False)
    t = r.table()
    assert len(t) == 32 and t.action[0] == "stand pat"  # a full house stands pat
    r = analyze("sviten", 4, hand="Qs Qd 9c 5h 2s", board="Qh 8d 3d", extra={"open": "Qc", "threw": "2s"},
                n_deals=4096, stop_early=False, progress=False)
    assert r.decision == "open" and r.table().action[0] == "keep Qc"  # quad queens


def test_rollout_plays_the_draw_and_refuses_an_open_card_from_a_recycled_stub():
    out = simulate("sviten", 3, 64, seed=1, hero="draw=rollout:4", progress=False, block_size=64)
    assert out.table().n[0] == 64
    # seat 2 of 9: seats 0 and 1 threw five each, so its open card came from a recycled stub
    obs = {"hand": parse_cards("2c 3c 4d 5h 7s")[None], "board": parse_cards("Jh Ts 5c")[None],
           "thrown": np.array([[5, 5, 1, 0, 0, 0, 0, 0, 0]], np.int8), "mask": np.array([1], np.int8),
           "open_card": parse_cards("As"), "open_cards": np.array([[-1, -1, 51, -1, -1, -1, -1, -1, -1]], np.int8),
           "refused": np.zeros((1, 9), bool), "legal": np.ones((1, 2), bool), "seat": 2}
    with pytest.raises(NoRollout, match="open"):
        V.situation("open", obs, 9)
    # at 6 players the same draws leave it in the dealt stub: the open card's slot is known
    obs6 = dict(obs, thrown=obs["thrown"][:, :6], open_cards=obs["open_cards"][:, :6], refused=obs["refused"][:, :6])
    known, forced = V.situation("open", obs6, 6)
    assert known[0, stub_start(6) + 10] == 51 and forced[(0, "draw")].tolist() == [31]


from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=60)
@given(P=st.integers(2, 9), seed=st.integers(0, 2**32 - 1),
       masks=st.lists(st.integers(0, 31), min_size=9, max_size=9),
       opens=st.lists(st.integers(0, 1), min_size=9, max_size=9))
def test_property_every_card_in_one_place_at_every_step(P, seed, masks, opens):
    rng = np.random.default_rng(seed)
    cards = np.argsort(rng.random((1, 52)), axis=1).astype(np.int8)
    chance = rng.integers(0, 2**32, (1, n_chance(P)), dtype=np.uint32)
    # check_places runs after every throw, service, answer and the board
    s = run(cards, P, masks[:P], opens[:P], chance, check=check_places)
    assert (s.hands >= 0).all() and (s.board >= 0).all()
    assert int(s.chance_used[0]) <= n_chance(P)


def test_open_rollout_plays_where_no_open_card_was_recycled():
    # At 4 players the stub never runs out (no chance draws: nothing is recycled), so the
    # hero's open rollout can rebuild every situation: it is asked on every deal (the hero
    # throws one card each time), the deal plays its answers, and it keeps some open
    # cards and refuses others (seed 2, 48 deals).
    import strategies
    from simcore.engine import deal_block, play_block
    from simcore.variants import get_variant

    v, P, n = get_variant("sviten"), 4, 48
    assert n_chance(P) == 0
    cards, chance = deal_block(v, np.full(v.n_slots(P), -1, np.int8), n, P, np.random.default_rng(2))
    rollout, asked = strategies.resolve(v, "open", "rollout:4")[1], []

    def spy(obs, rng):
        a = rollout(obs, rng)
        asked.append((np.array(obs["mask"], copy=True), np.array(a, copy=True)))
        return a

    lu = strategies.lineup(v, P)
    lu[0] = {"draw": strategies.resolve(v, "draw", "one-lowest"), "open": ("rollout:4", spy)}
    out = play_block(v, cards, P, lu, [np.random.default_rng(10 + p) for p in range(P)], None, chance, record=True)
    assert len(asked) == 1
    mask, answers = asked[0]
    assert answers.shape == (n,) and np.isin(mask, [1, 2, 4, 8, 16]).all()  # one card thrown, every deal
    assert np.array_equal(out.actions[(0, "open", 0)], answers)
    assert set(answers.tolist()) == {KEEP, REFUSE}
