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
