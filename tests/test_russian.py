"""Russian Hold'em: one test per rule (RULES.md), information hiding, policies, analysis.

Monte Carlo checks use a fixed seed and a tolerance of 4 standard errors.
"""
import numpy as np
import pytest

import strategies  # noqa: F401  (registers the policies)
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit
from simcore import analyze, simulate
from simcore.cards import parse_cards
from simcore.engine import Table, deal_block, play_block, play_tables
from simcore.evaluate import evaluate_hands, hand_category
from simcore.variants import get_variant
from simcore.variants import russian as R
from strategies.registry import policies
from strategies.russian import RANK_WEIGHT, _made_of, _pattern, hand_score

V = get_variant("russian")


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


@njit
def _made_all(cards):
    out = np.empty(cards.shape[0])
    buf = np.zeros(5, np.int64)
    for i in range(cards.shape[0]):
        for j in range(5):
            buf[j] = cards[i, j]
        out[i] = _made_of(buf, 5, _pattern(buf, 5))
    return out


def test_made_score_of_every_five_card_hand_against_the_evaluator():
    """A complete hand scores its category (by the table evaluator) plus RANK_WEIGHT per rank of
    its top group (the highest rank of its largest group; the wheel is five-high): every one of
    the 2,598,960 hands, so the made score's own straight and flush test is the evaluator's."""
    from itertools import combinations

    cards = np.array(list(combinations(range(52), 5)), np.int64)
    ranks = np.sort(cards >> 2, axis=1)
    counts = np.stack([(ranks == r).sum(1) for r in range(13)], axis=1)
    largest = counts.max(1)
    top = 12 - np.argmax(counts[:, ::-1] == largest[:, None], axis=1)
    cat = hand_category(evaluate_hands(cards.astype(np.int8)))
    wheel = (cat == 4) & (ranks == [0, 1, 2, 3, 12]).all(1)  # the straight flush A-5 keeps the ace
    top = np.where(wheel, 3, top)
    assert np.array_equal(_made_all(cards), cat + RANK_WEIGHT * top)


# -- the game through the engine ------------------------------------------------------------


def full_deal(flop, *seats):
    """Slots (1, n_slots) dealing each seat its three strings of four cards in order,
    so that placing on the first hand with room builds exactly those hands."""
    P = len(seats)
    cards = np.full(R.n_slots(P), -1, np.int8)
    cards[:3] = parse_cards(flop)
    for p, hands in enumerate(seats):
        mine = parse_cards(" ".join(hands))
        assert len(mine) == 12
        for r in range(12):
            cards[R.card_slot(P, r, p)] = mine[r]
    return cards[None]


def play(cards, P, per_seat, forced=None, seed=0):
    """Play ``cards`` with per seat a strategy function (or a policy name)."""
    lu = [{"place": (f"seat{q}", policy(f) if isinstance(f, str) else f)} for q, f in enumerate(per_seat)]
    rngs = [np.random.default_rng(seed + q) for q in range(P)]
    return play_block(V, cards, P, lu, rngs, forced, record=True)


def recorder(fn, log):
    def strategy(obs, rng):
        log.append({k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in obs.items()})
        return fn(obs, rng)

    return strategy


def test_player_limits_and_the_decision():
    assert (V.min_players, V.max_players) == (2, 4)
    d = V.decision("place")
    assert (d.n_actions, d.actions, d.rounds) == (3, ("hand 1", "hand 2", "hand 3"), 12)
    assert V.hands == ("hand 1", "hand 2", "hand 3")
    with pytest.raises(ValueError, match="2 to 4 players"):
        simulate("russian", 5, 10)


def test_policy_names_and_the_default_are_exact():
    names = set(policies("russian", "place"))
    assert {"first-open", "random", "by-rank", "best-gain", "two-and-dump", "fight-weak", "conceal",
            "rollout"} <= names
    assert strategies.default_policy("russian", "place") == "first-open"


def test_flop_card_k_starts_every_players_hand_k():
    # The rule text's flop: 4d, 8h, Jc. Each seat's quads need the flop card of
    # that hand number: seat 0's fours on hand 1, seat 1's eights on hand 2, jacks on hand 3.
    cards = full_deal("4d 8h Jc",
                      ("4c 4h 4s 2c", "3c 5d 7s 9d", "2d 6c Tc Qd"),
                      ("3d 5c 7c 9c", "8c 8d 8s 2h", "Jd Jh Js 2s"))
    out = play(cards, 2, ["first-open", "first-open"])
    assert out.categories[0].tolist() == [[7, 0, 0], [0, 7, 7]]
    assert out.winning[0].tolist() == [7, 7, 7]
    assert out.payoffs[0].tolist() == [0.0, 1.0] and out.wins[0].tolist() == [False, True]
    assert out.parts["hands_won_2"][0].tolist() == [0.0, 1.0]
    assert out.parts["hands_won_1"][0].tolist() == [1.0, 0.0]


def test_seats_place_in_order_and_see_earlier_placements_of_the_round():
    cards = full_deal("4d 8h Jc",
                      ("4c 4h 4s 2c", "3c 5d 7s 9d", "2d 6c Tc Qd"),
                      ("3d 5c 7c 9c", "8c 8d 8s 2h", "Jd Jh Js 2s"),
                      ("Ac Ad Ah As", "Kc Kd Kh Ks", "Qc Qh Qs Td"))
    logs = [[], [], []]
    out = play(cards, 3, [recorder(policy("first-open"), logs[q]) for q in range(3)])
    assert [len(x) for x in logs] == [12, 12, 12]
    # round 0: seat 1 sees seat 0's card on its hand 1, nothing of seat 2's
    first = logs[1][0]
    assert first["round"] == 0 and first["card"][0] == parse_cards("3d")[0]
    assert first["up"][0, 0, 0, 0] == parse_cards("4c")[0]
    assert (first["up"][0, 2] == -1).all() and first["placed"][0].tolist() == [[1, 0, 0], [0, 0, 0], [0, 0, 0]]
    assert first["history"][0, 0].tolist() == [0, -1, -1]
    # the recorded actions are the seats' own, round by round
    assert all(out.actions[(q, "place", r)][0] == r // 4 for q in range(3) for r in range(12))
    assert out.payoffs[0].tolist() == [0.0, 0.0, 1.0]


def test_fourth_placed_card_is_face_down_to_the_others_only():
    cards = full_deal("4d 8h Jc",
                      ("4c 4h 4s 2c", "3c 5d 7s 9d", "2d 6c Tc Qd"),
                      ("3d 5c 7c 9c", "8c 8d 8s 2h", "Jd Jh Js 2s"))
    logs = [[], []]
    play(cards, 2, [recorder(policy("first-open"), logs[q]) for q in range(2)])
    # seat 1 in round 4 (index 3): seat 0 has just put 2c face down on its hand 1
    seen = logs[1][3]
    assert seen["n_down"][0, 0].tolist() == [1, 0, 0] and seen["placed"][0, 0].tolist() == [4, 0, 0]
    assert parse_cards("2c")[0] not in seen["up"][0] and parse_cards("2c")[0] not in seen["own_down"][0]
    # its own face-down card (2h on hand 2, placed in round 7) it sees
    assert logs[1][8]["own_down"][0].tolist() == [parse_cards("9c")[0], parse_cards("2h")[0], -1]
    assert logs[0][4]["own_down"][0].tolist() == [parse_cards("2c")[0], -1, -1]


def test_opponents_face_down_cards_never_reach_a_strategy():
    # Replace the cards seat 1 places face down (first-open: rounds 4, 8, 12) by
    # other unseen cards: every observation of seat 0, which reads the
    # opponents' hands, and all its decisions stay exactly the same.
    P, n = 2, 300
    rng = np.random.default_rng(3)
    cards, _ = deal_block(V, np.full(R.n_slots(P), -1, np.int8), n, P, rng)
    hidden = V.hidden_slots(P, 0)
    assert sorted(hidden) == sorted(R.card_slot(P, r, 1) for r in (3, 7, 11))
    unused = np.array([np.setdiff1d(np.arange(52), row)[:3] for row in cards], np.int8)
    other = cards.copy()
    other[:, hidden] = unused
    runs = []
    for deal in (cards, other):
        log = []
        out = play(deal, P, [recorder(policy("fight-weak"), log), "first-open"])
        runs.append((log, out))
    (log_a, out_a), (log_b, out_b) = runs
    for a, b in zip(log_a, log_b):
        for k, x in a.items():
            assert np.array_equal(x, b[k]) if isinstance(x, np.ndarray) else x == b[k], k
    for r in range(12):
        assert np.array_equal(out_a.actions[(0, "place", r)], out_b.actions[(0, "place", r)])
    assert not np.array_equal(out_a.payoffs, out_b.payoffs)  # the showdown did change


@settings(max_examples=12)
@given(st.integers(2, 4), st.integers(0, 2**31), st.sampled_from(
    ["random", "first-open", "by-rank", "best-gain", "two-and-dump", "fight-weak", "conceal"]))
def test_every_player_ends_with_three_five_card_hands(P, seed, name):
    rng = np.random.default_rng(seed)
    n = 64
    cards, _ = deal_block(V, np.full(R.n_slots(P), -1, np.int8), n, P, rng)
    fn = strategies.resolve("russian", "place", name)[1]
    out = play(cards, P, [fn] * P, seed=seed)
    # no card dealt twice; with four players the burn plus the deal is the whole deck
    assert all(len(set(row)) == R.n_slots(P) for row in cards.tolist())
    if P == 4:
        assert (np.sort(cards, axis=1)[:, :] >= 0).all() and cards.shape[1] + 1 == 52
    # every seat put exactly four cards on each hand: three five-card hands
    up, placed, down = R.new_state(n, P)
    for r in range(12):
        for q in range(P):
            a = out.actions[(q, "place", r)]
            R.apply_placements(cards[:, R.card_slot(P, r, q)], q, a, up, placed, down)
    assert (placed == 4).all() and (up >= 0).all() and (down >= 0).all()
    flop = cards[:, :3]
    res = R.showdown(flop, up, down)
    assert np.array_equal(res["payoffs"], out.payoffs) and np.array_equal(res["categories"], out.categories)
    hands = np.concatenate([np.repeat(flop[:, None, :, None], P, axis=1), up, down[..., None]], axis=3)
    assert all(len(set(row)) == 3 + 12 * P for row in
               np.concatenate([flop, up.reshape(n, -1), down.reshape(n, -1)], axis=1).tolist())
    assert hands.shape == (n, P, 3, 5)
    assert np.allclose(out.payoffs.sum(axis=1), 1.0)
    won = sum(k * out.parts[f"hands_won_{k}"] for k in range(4))
    assert np.array_equal(won, res["hands_won"])
    assert np.array_equal(out.winning, res["winning"])
    # the final state an experiment asks for (Table(keep_state=True)) holds these hands
    lu = [{"place": (f"seat{q}", fn)} for q in range(P)]
    rngs = [np.random.default_rng(seed + q) for q in range(P)]
    kept = play_tables(V, cards, [Table(V, P, lu, rngs, {}, keep_state=True)])[0]
    assert all(np.array_equal(kept.state[k], x) for k, x in (("flop", flop), ("up", up), ("down", down)))
    again = R.showdown(**kept.state)
    assert all(np.array_equal(again[k], res[k]) for k in ("values", "won", "payoffs", "wins", "ties"))
    assert np.array_equal(again["won"].sum(axis=2), res["hands_won"])
    assert out.state is None  # kept only when asked


def test_symmetric_policies_share_the_pot_equally():
    # Policies that ignore the table: every seat's share is 1/P (4 standard errors, seed 2).
    r = simulate("russian", 3, 30000, seed=2, hero="place=by-rank", field="place=by-rank",
                 threads=2, progress=False)
    t = r.table()
    assert (abs(t.share - 1 / 3) < 4 * t.stderr).all()
    assert np.allclose(t[[f"hands_won_{k}" for k in range(4)]].sum(axis=1), 1.0)
    d = r.to_dict()
    dist = d["seats"][1]["hands_won_dist"]
    assert list(dist) == ["hands_won_0", "hands_won_1", "hands_won_2", "hands_won_3"]
    assert dist["hands_won_2"]["ci_low"] < dist["hands_won_2"]["share"] < dist["hands_won_2"]["ci_high"]
    assert list(d["seats"][0]["categories"]) == ["hand 1", "hand 2", "hand 3"]


def test_a_thoughtful_policy_beats_by_rank():
    # best-gain against two by-rank seats: its share is well above 1/3
    # (about 0.44 measured; asserted above 1/3 by more than 4 standard errors, seed 4).
    r = simulate("russian", 3, 6000, seed=4, hero="place=best-gain", field="place=by-rank",
                 threads=2, progress=False)
    t = r.table()
    assert t.share[0] - 1 / 3 > 4 * t.stderr[0]


# -- analysis -------------------------------------------------------------------------------


def test_setup_deals_the_situation_and_infers_the_round():
    sit = V.setup(2, hand="Ad", board="Ah Ac 5d", hand1="2s", hand2="3s", hand3="Jc 4c",
                  visible="Kc Kd Ks / 9h / ")
    known, presets = sit.known, sit.presets
    assert known[:3].tolist() == parse_cards("Ah Ac 5d").tolist()
    assert known[R.card_slot(2, 4, 0)] == parse_cards("Ad")[0]
    assert presets[(0, "place", 3)] == 2 and presets[(1, "place", 3)] == 1
    assert V.analysis_round("place", sit) == 4
    assert V.analysis_actions("place", sit) == [0, 1, 2]
    assert V.analysis_label("place", 1, sit) == "hand 2"
    # a full hand is not tried, whatever this one instance analysed before (no hidden cache)
    full = V.setup(2, hand="Ad", board="Ah Ac 5d", hand1="2s", hand2="3s", hand3="Jc 4c 6c 8c")
    assert V.analysis_actions("place", full) == [0, 1]
    assert vars(V) == {"opts": {}}


@pytest.mark.parametrize("fields,match", [
    (dict(hand1="2s 3s 4s 5s 6s"), "at most four"),
    (dict(hand1="2s", visible="Kc Kd / / "), "seat 1 has placed 1"),
    (dict(hand1="2s", visible="Kc / 9h"), "three hands"),
    (dict(hand1="2s", visible="Kc xx / / "), "'xx'"),
    (dict(hand1="2s", hand2="2s"), "duplicate"),
])
def test_bad_situations_are_named(fields, match):
    with pytest.raises(ValueError, match=match):
        V.setup(2, hand="Ad", board="Ah Ac 5d", **fields)


def test_analysis_ranks_the_hands_from_any_seat():
    # The ace pairs the flop ace on hand 1 or hand 2; seat 1 shows trip kings on
    # hand 1, so hand 2 is the place, by far.
    r = analyze("russian", 2, hand="Ad", board="Ah Ac 5d", n_deals=40000, threads=2, progress=False,
                extra=dict(hand1="2s", hand2="3s", hand3="Jc", visible="Kc Kd Ks / / "),
                field="place=by-rank", hero="place=best-gain")
    t = r.table()
    assert r.round == 3 and t.action[0] == "hand 2" and r.separated
    assert set(t.action) == {"hand 1", "hand 2", "hand 3"}
    # a later seat; its hand 3 is full, so it is not tried
    r = analyze("russian", 3, hand="Ad", board="Ah Ac 5d", hero_seat=2, n_deals=40000, threads=2,
                progress=False, extra=dict(hand1="2s", hand2="3s", hand3="Jc 4c 5c 6c",
                                           visible="Kc Kd Ks xx / 4h 8c / 7d; 2c 3c 4d / 9s 9d / Tc Th"),
                field="place=by-rank", hero="place=best-gain")
    assert r.round == 6 and sorted(r.table().action) == ["hand 1", "hand 2"]


def test_rollout_finds_the_flush():
    # Round 10 (two cards to place, hand 2 full): the 9d makes a flush on hand 3
    # and nothing on hand 1. first-open and by-rank (its base) both put it on
    # hand 1; rollout:16 over by-rank continuations finds hand 3.
    sit = V.setup(2, hand="9d", board="Ah 2c 7d", hand1="Kh 4c 5s", hand2="9s 9c Ts Td", hand3="Kd Qd Jd")
    known, presets = sit.known, sit.presets
    n = 40
    cards, _ = deal_block(V, known, n, 2, np.random.default_rng(1))
    forced = {k: np.full(n, a, np.int64) for k, a in presets.items()}
    base = play(cards, 2, ["by-rank", "by-rank"], forced=forced)
    assert (base.actions[(0, "place", 10)] == 0).all()
    rollout = strategies.resolve("russian", "place", "rollout:16:place=by-rank")[1]
    out = play(cards, 2, [rollout, "by-rank"], forced=forced)
    assert (out.actions[(0, "place", 10)] == 2).mean() > 0.9


def test_the_policies_chance_tables_hold_exactly_the_computed_chances():
    """HIT_TABLE and TAIL_TABLE replace powers in the thoughtful policies' inner loop: every
    entry must be the very float the direct computation gives, so actions stay the same."""
    from strategies.russian import HIT_TABLE, TAIL_TABLE, _hit_chance, _tail

    for t in range(14):
        for a in range(5):
            for m in range(53):
                assert HIT_TABLE[t, a, m] == _hit_chance(t, a, m)
        for a in range(14):
            for m in range(1, 53):
                for need in range(5):
                    assert TAIL_TABLE[t, a, m, need] == _tail(t, a / m, need)


def test_straight_windows_are_the_windows_that_hold_every_rank():
    # the look-up _score uses, against its definition: window w (0: A-5 .. 9: T-A)
    # holds every one of the distinct ranks (the ace high or low)
    from strategies.russian import STRAIGHT_WINDOWS

    for mask in range(1 << 13):
        ranks = [r for r in range(13) if mask >> r & 1]
        expected = 0
        for w in range(10):
            window = {(12 if b == 0 else b - 1) for b in range(w, w + 5)}
            if set(ranks) <= window:
                expected |= 1 << w
        assert STRAIGHT_WINDOWS[mask] == expected, ranks


def test_the_cards_in_sight_and_the_unseen_counts_on_a_hand_built_deal():
    """Seat 0 of 2 sees the flop, every face-up card, its own face-down card and the card to
    place; never the other seat's face-down card. The built-ins count the unseen cards from it."""
    from strategies.russian import _unseen

    def ints(text):
        return [int(c) for c in parse_cards(text)]

    up = np.full((1, 2, 3, 3), -1, np.int8)
    up[0, 0, 0] = ints("3h 8h 9h")  # seat 0's hand 1: three face up, and its face-down 4th (Th)
    up[0, 1, 1, :2] = ints("4s 5s")
    up[0, 1, 2] = ints("6c 6d 6h")  # seat 1's hand 3 holds four: its face-down 4th is not in sight
    placed = np.array([[[4, 0, 0], [0, 2, 4]]], np.int8)
    own_down = np.array([[int(parse_cards("Th")[0]), -1, -1]], np.int8)
    flop = np.array([ints("As Kd 2c")], np.int8)
    card = np.array(ints("7d"), np.int8)
    seen = ints("As Kd 2c 3h 8h 9h Th 4s 5s 6c 6d 6h 7d")
    want = sum(1 << c for c in seen)
    assert R.cards_in_sight(flop, up, placed, own_down, card, 0) == want
    obs = {"flop": flop, "up": up, "placed": placed, "own_down": own_down, "card": card, "seat": 0}
    assert R.seat_view(obs)[0, 0] == want
    ru, su = np.zeros(13, np.int64), np.zeros(4, np.int64)
    assert _unseen(flop, up, placed, own_down, card, 0, ru, su) == 52 - len(seen)
    for r in range(13):
        assert ru[r] == 4 - sum(c >> 2 == r for c in seen), r
    for s in range(4):
        assert su[s] == 13 - sum(c & 3 == s for c in seen), s
