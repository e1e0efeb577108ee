"""Russian Hold'em: one test per rule (RULES.md), information hiding, policies, analysis.

Monte Carlo checks use a fixed seed and a tolerance of 4 standard errors.
"""
import numpy as np
import pytest

import strategies  # noqa: F401  (registers the policies)
from simcore.cards import parse_cards
from simcore.evaluate import evaluate_hands
from simcore.variants import russian as R
from strategies.registry import policies
from strategies.russian import hand_score


def hands_of(*seats):
    """(up (1, P, 3, 3), down (1, P, 3)) from per seat three strings of four placed cards."""
    P = len(seats)
    up = np.full((1, P, 3, 3), -1, np.int8)
    down = np.full((1, P, 3), -1, np.int8)
    for p, hands in enumerate(seats):
        assert len(hands) == 3
        for h, text in enumerate(hands):
            c = parse_cards(text)
            assert len(c) == 4
            up[0, p, h] = c[:3]
            down[0, p, h] = c[3]
    return up, down


def showdown_of(flop, *seats):
    up, down = hands_of(*seats)
    return R.showdown(parse_cards(flop)[None], up, down)


def policy(name):
    return policies("russian", "place")[name].function


# -- layout and placing ---------------------------------------------------------------------


def test_four_players_use_the_whole_deck():
    # burn + flop + 12 rounds of 4 cards
    assert 1 + R.n_slots(4) == 52
    slots = [R.card_slot(4, r, p) for r in range(12) for p in range(4)]
    assert sorted(slots) == list(range(3, 51))


def test_slots_go_round_by_round_in_seat_order():
    assert [R.card_slot(3, 0, p) for p in range(3)] == [3, 4, 5]
    assert R.card_slot(3, 1, 0) == 6
    with pytest.raises(ValueError, match="round 12"):
        R.card_slot(3, 12, 0)
    with pytest.raises(ValueError, match="seat 3"):
        R.card_slot(3, 0, 3)


def test_split_deal_reads_the_layout():
    P = 2
    cards = np.arange(R.n_slots(P), dtype=np.int8)[None]
    flop, dealt = R.split_deal(cards, P)
    assert flop.tolist() == [[0, 1, 2]]
    assert dealt[0, 0].tolist() == [3, 4] and dealt[0, 11].tolist() == [25, 26]
    with pytest.raises(ValueError, match="shape"):
        R.split_deal(cards[:, :-1], P)


def test_fourth_placed_card_lies_face_down():
    up, placed, down = R.new_state(1, 2)
    for c in parse_cards("2c 3c 4c 5c"):
        R.apply_placements(np.array([c], np.int8), 1, np.array([2]), up, placed, down)
    assert up[0, 1, 2].tolist() == parse_cards("2c 3c 4c").tolist()
    assert down[0, 1, 2] == parse_cards("5c")[0]
    assert placed[0, 1].tolist() == [0, 0, 4]
    assert (down[0, 0] == -1).all() and (up[0, 0] == -1).all()


def test_a_hand_with_four_placed_cards_takes_no_more():
    up, placed, down = R.new_state(2, 2)
    placed[1, 0] = [4, 1, 0]
    assert R.place_legal(placed, 0).tolist() == [[True, True, True], [False, True, True]]
    before = (up.copy(), placed.copy(), down.copy())
    with pytest.raises(ValueError, match=r"hand 1 of seat 0 already holds four placed cards \(deal 1\)"):
        R.apply_placements(np.array([5, 6], np.int8), 0, np.array([1, 0]), up, placed, down)
    # nothing changed, not even the rows before the bad one
    for a, b in zip(before, (up, placed, down)):
        assert (a == b).all()
    with pytest.raises(ValueError, match="hand 3 is not"):
        R.apply_placements(np.array([5, 6], np.int8), 0, np.array([1, 3]), up, placed, down)


# -- showdown ---------------------------------------------------------------------------------


def test_hand_k_meets_only_hand_k():
    # Seat 0's hand 1 (quad aces) is better than anything seat 1 holds, but
    # seat 1 wins hands 2 and 3, each against seat 0's hand of the same number.
    r = showdown_of("Ac 2c 3d",
                    ("Ad Ah As 4c", "5d 7h 9s Jc", "4d 6h 8s Tc"),
                    ("2d 2h 5c 9d", "2s 3h 4h 6d", "3s 3c 7c Kd"))
    assert r["categories"][0].tolist() == [[7, 0, 0], [1, 1, 3]]
    assert r["hands_won"].tolist() == [[1, 2]]
    assert r["payoffs"].tolist() == [[0.0, 1.0]]
    assert r["wins"].tolist() == [[False, True]] and not r["ties"].any()


def test_every_player_tied_for_best_on_a_hand_counts_a_win():
    # Hand 1: both hold the same straight (suits never break ties); seat 0 wins
    # hand 2 and hand 3, so it has 3 hands won against 1.
    r = showdown_of("5c 9c Kc",
                    ("6d 7d 8d 9h", "9d Th 2h 3h", "Kd Ks 2s 3s"),
                    ("6h 7h 8h 9s", "Td 2d 3d 4h", "Qd 4s 5s 6s"))
    assert r["hands_won"].tolist() == [[3, 1]]
    assert r["payoffs"].tolist() == [[1.0, 0.0]]


def test_rule_text_example_a_win_each_and_a_tie_split_the_pot():
    # The text: player 1 wins hand 1, player 2 wins hand 2, both hold a
    # 5-high straight in hand 3; the two split the pot.
    r = showdown_of("Qc Kd 5h",
                    ("Qd Qh Qs 9c", "2c 6c 7d 8d", "Ac 2d 3h 4c"),
                    ("Kc Ks 2h 3s", "Kh 9d 9h 9s", "Ad 2s 3c 4s"))
    assert r["categories"][0, :, 2].tolist() == [4, 4]
    assert r["hands_won"].tolist() == [[2, 2]]
    assert r["payoffs"].tolist() == [[0.5, 0.5]]
    assert r["ties"].all() and not r["wins"].any()


def test_rule_text_example_three_players_one_win_each_split_three_ways():
    # Four players: seats 0, 1, 2 win one hand each, seat 3 none.
    r = showdown_of("2c 7d Jh",
                    ("Ac Ad As 9h", "3c 4c 6h 8h", "3d 4d 6c 8c"),
                    ("3h 4h 6d 8d", "7s 7c Kd Kc", "3s 4s 5s 8s"),
                    ("5d 9c Td Qd", "5h 9d Th Qh", "Js Jd Jc 5c"),
                    ("6s 7h 9s Tc", "2d Ts Qc Kh", "2h 2s Qs Ks"))
    won = r["hands_won"][0].tolist()
    assert won == [1, 1, 1, 0]
    assert np.allclose(r["payoffs"][0], [1 / 3, 1 / 3, 1 / 3, 0])
    assert r["ties"][0].tolist() == [True, True, True, False]


def test_a_royal_flush_alone_does_not_take_the_pot():
    r = showdown_of("As 2c 3d",
                    ("Ks Qs Js Ts", "4h 6h 8c Tc", "5h 7h 9c Jc"),
                    ("Ah Ad Kc Kd", "2h 2d 3h 3s", "4c 4s 5c 5s"))
    assert r["categories"][0, 0].tolist() == [8, 0, 0]
    assert r["hands_won"].tolist() == [[1, 2]]
    assert r["payoffs"].tolist() == [[0.0, 1.0]]


def test_showdown_values_are_the_evaluators():
    rng = np.random.default_rng(5)
    n, P = 500, 4
    deck = np.argsort(rng.random((n, 52)), axis=1).astype(np.int8)
    flop = deck[:, :3]
    placed = deck[:, 3:51].reshape(n, P, 3, 4)
    r = R.showdown(flop, placed[..., :3], placed[..., 3])
    for p in range(P):
        for h in range(3):
            five = np.concatenate([flop[:, h:h + 1], placed[:, p, h]], axis=1)
            assert (r["values"][:, p, h] == evaluate_hands(five)).all()
    # per deal: the pot is shared out whole, to the seats with the most hands won
    assert np.allclose(r["payoffs"].sum(axis=1), 1.0)
    most = r["hands_won"].max(axis=1, keepdims=True)
    assert ((r["payoffs"] > 0) == (r["hands_won"] == most)).all()
    assert (r["hands_won"].sum(axis=1) >= 3).all()


def test_showdown_rejects_incomplete_hands():
    up, down = hands_of(("2c 3c 4c 5c", "2d 3d 4d 5d", "2h 3h 4h 5h"),
                        ("6c 7c 8c 9c", "6d 7d 8d 9d", "6h 7h 8h 9h"))
    down[0, 1, 2] = -1
    with pytest.raises(ValueError, match="card value -1"):
        R.showdown(parse_cards("Ts Js Qs")[None], up, down)


# -- policies on hand-built states ------------------------------------------------------------


def state_obs(flop, seat_hands, card, seat=0, rnd=0):
    """An observation for ``seat``: ``seat_hands`` per seat three strings of placed cards
    (a fourth card is the face-down one; only the seat's own reaches ``own_down``)."""
    P = len(seat_hands)
    up, placed, down = R.new_state(1, P)
    for p, hands in enumerate(seat_hands):
        for h, text in enumerate(hands):
            for c in parse_cards(text, allow_empty=True):
                R.apply_placements(np.array([c], np.int8), p, np.array([h]), up, placed, down)
    return {"flop": parse_cards(flop)[None], "up": up, "placed": placed,
            "n_down": (placed == 4).astype(np.int8), "own_down": down[:, seat].copy(),
            "card": parse_cards(card), "legal": R.place_legal(placed, seat),
            "seat": seat, "n_players": P, "round": rnd, "decision": "place", "variant": "russian"}


@pytest.mark.parametrize("card,hand", [("Jd", 0), ("Ac", 0), ("Ts", 1), ("7h", 1), ("6c", 2), ("2s", 2)])
def test_by_rank_sends_ranks_to_their_hands(card, hand):
    obs = state_obs("3c 4c 5c", [("", "", ""), ("", "", "")], card)
    assert policy("by-rank")(obs, None).tolist() == [hand]


def test_by_rank_falls_back_to_the_lowest_hand_with_room():
    obs = state_obs("3c 4c 5c", [("Ah Ad Ks Kd", "7c", "2d 3d 4d 5d"), ("", "", "")], "Qh", rnd=9)
    assert policy("by-rank")(obs, None).tolist() == [1]
    obs = state_obs("3c 4c 5c", [("Ah", "7c 8c 9c Tc", "2d 3d 4d 5d"), ("", "", "")], "9h", rnd=9)
    assert policy("by-rank")(obs, None).tolist() == [0]


def test_first_open_takes_the_lowest_hand_with_room():
    obs = state_obs("3c 4c 5c", [("Ah Ad Ks Kd", "", ""), ("", "", "")], "2h", rnd=4)
    assert policy("first-open")(obs, None).tolist() == [1]
    obs = state_obs("3c 4c 5c", [("", "", ""), ("", "", "")], "2h")
    assert policy("first-open")(obs, None).tolist() == [0]


def test_best_gain_completes_a_flush_and_pairs_a_high_card():
    obs = state_obs("Ah 2c 7d", [("Kh Qh Jh", "Ts 9s", "8c"), ("", "", "")], "3h", rnd=6)
    assert policy("best-gain")(obs, None).tolist() == [0]
    obs = state_obs("Ah 2c 7d", [("", "", ""), ("", "", "")], "As")
    assert policy("best-gain")(obs, None).tolist() == [0]


def test_two_and_dump_dumps_a_card_that_helps_no_kept_hand():
    # Hands 1 and 2 are strong; hand 3 is the weakest, so a loose deuce goes there.
    obs = state_obs("As Kd 3c", [("Ad", "Kc", "8h"), ("", "", "")], "2d", rnd=3)
    assert policy("two-and-dump")(obs, None).tolist() == [2]


def test_fight_weak_fights_where_the_opponent_shows_little():
    # The ace pairs the ace on hand 1 or on hand 2 alike. The opponent shows
    # trip kings on hand 1, so fight-weak pairs it on hand 2; best-gain, which
    # does not read the opponents, takes the lower hand.
    obs = state_obs("Ah Ac 5d", [("2s", "3s", "Jc"), ("Kc Kd Ks", "4h", "7d")], "Ad", rnd=3)
    assert policy("fight-weak")(obs, None).tolist() == [1]
    assert policy("best-gain")(obs, None).tolist() == [0]
    # the trip kings on hand 2 instead: hand 1 it is
    obs = state_obs("Ah Ac 5d", [("2s", "3s", "Jc"), ("4c", "Kc Kd Ks", "7d")], "Ad", rnd=3)
    assert policy("fight-weak")(obs, None).tolist() == [0]


def test_conceal_keeps_the_face_down_slot_for_a_strong_card():
    # best-gain puts a jack-high nothing on hand 1 as its concealed fifth
    # card; conceal keeps that slot and uses hand 3, which has face-up room.
    obs = state_obs("Qh 2s 7h", [("Jc 4h 5h", "8s Qs", "7d"), ("", "", "")], "4c", rnd=6)
    assert policy("best-gain")(obs, None).tolist() == [0]
    assert policy("conceal")(obs, None).tolist() == [2]
    # a card that makes a pair of queens there goes face down all the same
    obs = state_obs("Qh 2s 7h", [("Jc 4h 5h", "8s Qs", "7d"), ("", "", "")], "Qd", rnd=6)
    assert policy("conceal")(obs, None).tolist() == [0]


def test_hand_score_orders_made_hands():
    assert hand_score("As Ad Kc 7h 2d") > hand_score("Ks Kd Qc 7h 2d") > hand_score("As Kd Qc 7h 2d")
    assert hand_score("2s 3s 4s 5s 6s") > hand_score("As Ad Ac Kh Kd")  # straight flush
    # a four-flush with cards to come is worth more than the same cards mixed
    assert hand_score("2s 5s 9s Js", to_come=6) > hand_score("2s 5s 9s Jd", to_come=6)
    with pytest.raises(ValueError, match="1 to 5 cards"):
        hand_score("2s 3s 4s 5s 6s 7s")
