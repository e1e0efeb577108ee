"""Slovak Double Barrel: one test per rule (RULES.md), information, policies, analysis.

Monte Carlo checks use a fixed seed and a tolerance of 4 standard errors.
"""
import numpy as np
import pytest

import strategies  # noqa: F401  (registers the policies)
from simcore import analyze, compare, evaluate_hand, parse_cards, simulate
from simcore.engine.variant import Table
from simcore.evaluate import describe_hand
from simcore.variants import get_variant
from simcore.variants.slovak import exchange_legal
from strategies.registry import lineup, resolve
from strategies.slovak import in_sight_set

V = get_variant("slovak")
DECISIONS = ("exchange1", "exchange2")
OBS_KEYS = {"up", "mucked", "board", "history", "round1", "downs_left", "in_sight", "legal",
            "seat", "n_players", "decision", "variant", "round"}


def fixed_deal(P, seats, board):
    """One deal: ``seats`` lists per seat "up0 up1 down0 down1"; then the board."""
    text = " ".join(seats) + " " + board
    cards = parse_cards(text)
    assert cards.shape == (V.n_slots(P),)
    return cards[None, :]


def recorder(answer, log):
    """A strategy that stores copies of its observations and answers ``answer(obs)``."""

    def strategy(obs, rng):
        log.append({k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in obs.items()})
        return answer(obs)

    return strategy


def fixed(action):
    return lambda obs, rng=None: np.full(obs["legal"].shape[0], action, dtype=np.int64)


def play(cards, P, per_seat, forced=None, seed=0):
    """Play ``cards`` with per-seat {decision: strategy function}."""
    strats = [{d: (f"seat{q}-{d}", per_seat[q][d]) for d in DECISIONS} for q in range(P)]
    rngs = [np.random.default_rng(seed + q) for q in range(P)]
    return V.play(cards, P, Table(V, P, strats, rngs, forced or {}))


def everyone(P, fn):
    return [{d: fn for d in DECISIONS} for _ in range(P)]


# -- rules ---------------------------------------------------------------------------------


def test_player_limits_follow_the_deck():
    assert (V.min_players, V.max_players) == (2, 11)
    assert V.n_slots(11) == 4 * 11 + 5 <= 52
    simulate("slovak", 11, 500, seed=1, field="lower", progress=False)
    for bad in (1, 12):
        with pytest.raises(ValueError, match=f"2 to 11 players, got {bad}"):
            simulate("slovak", bad, 10, progress=False)


def test_declining_plays_the_face_up_cards_and_face_down_cards_are_dead():
    # Seat 0's face-down cards would make quads; declining twice leaves them dead.
    cards = fixed_deal(2, ["2c 7d Ah As", "Kc Qd 3h 4h"], "Ad Ac 9s 5d 8h")
    out = play(cards, 2, everyone(2, fixed(0)))
    assert out.categories[..., 0][0].tolist() == [1, 1]  # pairs of aces (board) only
    assert out.shares[0].tolist() == [0.0, 1.0]  # king-queen kickers win


def test_an_exchange_mucks_the_card_and_turns_the_next_face_down_card():
    log = []
    cards = fixed_deal(2, ["2c 7d Ah As", "Kc Qd 3h 4h"], "Ad Ac 9s 5d 8h")
    seats = [{"exchange1": fixed(1), "exchange2": fixed(2)},
             {d: recorder(fixed(0), log) for d in DECISIONS}]
    out = play(cards, 2, seats)
    first, second = log  # seat 1 at each exchange
    assert first["up"][0, 0].tolist() == parse_cards("Ah 7d").tolist()  # 2c mucked, Ah up
    assert first["mucked"][0, :1].tolist() == parse_cards("2c").tolist()
    assert first["downs_left"][0].tolist() == [1, 2]
    assert second["up"][0, 0].tolist() == parse_cards("Ah As").tolist()  # 7d mucked, As up
    assert second["mucked"][0, :2].tolist() == parse_cards("2c 7d").tolist()
    assert second["downs_left"][0].tolist() == [0, 2]
    assert out.categories[..., 0][0, 0] == 7 and out.shares[0].tolist() == [1.0, 0.0]  # four aces


def test_no_face_down_card_left_means_decline_only():
    legal = exchange_legal(np.array([2, 1, 0]))
    assert legal.tolist() == [[True] * 3, [True] * 3, [True, False, False]]


def test_both_rounds_go_in_seat_order_and_show_earlier_actions():
    P = 4
    logs = [[] for _ in range(P)]
    acts = [1, 0, 2, 0]
    seats = [{d: recorder(fixed(acts[q]), logs[q]) for d in DECISIONS} for q in range(P)]
    cards = V.known_slots(P)
    from simcore.engine.deal import deal
    cards = deal(cards, 50, np.random.default_rng(3))
    play(cards, P, seats)
    for q in range(P):
        e1, e2 = logs[q]
        assert e1["decision"] == "exchange1" and e2["decision"] == "exchange2"
        expect1 = np.array(acts[:q] + [-1] * (P - q))
        assert (e1["history"] == expect1).all() and (e1["round1"] == -1).all()
        assert (e2["history"] == expect1).all() and (e2["round1"] == np.array(acts)).all()
        assert (e1["board"] == -1).all()
        assert (e2["board"] == cards[:, 4 * P: 4 * P + 3]).all()


def test_rule_text_example_kings_full_of_nines():
    # 9s 4d face up; muck the four, turn Ks; flop Kh 9d 2c; decline; turn 7s, river Kd.
    # Seat 0's unused face-down card Kc would make quads: it is dead. Seat 1 ends
    # with nines full of kings, which kings full of nines beat.
    log = []
    cards = fixed_deal(2, ["9s 4d Ks Kc", "9h 9c 3d 3s"], "Kh 9d 2c 7s Kd")
    seats = [{"exchange1": fixed(2), "exchange2": fixed(0)},
             {d: recorder(fixed(0), log) for d in DECISIONS}]
    out = play(cards, 2, seats)
    assert log[1]["up"][0, 0].tolist() == parse_cards("9s Ks").tolist()
    assert log[1]["mucked"][0, 0] == parse_cards("4d")[0]
    final = evaluate_hand("9s Ks Kh 9d 2c 7s Kd")
    assert describe_hand(final) == "kings full of nines"
    assert out.categories[..., 0][0].tolist() == [6, 6]
    assert out.shares[0].tolist() == [1.0, 0.0]


def test_showdown_matches_the_evaluator_on_seven_cards():
    # The fused showdown (board summed once per deal) against evaluate_hands.
    from simcore import evaluate_hands
    from simcore.engine.deal import deal
    from simcore.variants.slovak import _showdown_values

    P, n = 7, 5000
    cards = deal(V.known_slots(P), n, np.random.default_rng(12))
    up = cards[:, : 4 * P].reshape(n, P, 4)[:, :, 1:3].copy()
    values = np.empty((n, P), np.int32)
    _showdown_values(up, cards, values, np.ones(P, np.bool_))
    for p in range(P):
        seven = np.concatenate([up[:, p], cards[:, 4 * P:]], axis=1)
        assert (values[:, p] == evaluate_hands(seven, threads=1)).all()
    # only the seats asked for: the other columns are left as they are
    some = np.full((n, P), -7, np.int32)
    seats = np.arange(P) % 3 == 1
    _showdown_values(up, cards, some, seats)
    assert (some[:, seats] == values[:, seats]).all() and (some[:, ~seats] == -7).all()


def test_ties_split_the_pot():
    cards = fixed_deal(2, ["2c 3d Ah As", "2d 3c Kh Ks"], "Ad Kd Qs Jh Tc")
    out = play(cards, 2, everyone(2, fixed(0)))
    assert out.shares[0].tolist() == [0.5, 0.5]


# -- information ------------------------------------------------------------------------


def _hidden_at(cards, obs):
    """Cards still face down (n, 2P, -1 padded) when ``obs`` was taken."""
    n, P = obs["downs_left"].shape
    hidden = np.full((n, 2 * P), -1, np.int16)
    for q in range(P):
        for k in range(2):
            still = obs["downs_left"][:, q] > 1 - k  # down k hidden while more than 1-k left
            hidden[:, 2 * q + k] = np.where(still, cards[:, 4 * q + 2 + k], -1)
    return hidden


@pytest.mark.parametrize("P", [2, 5, 11])
def test_face_down_cards_never_reach_a_strategy(P):
    # Random legal actions for every seat, many deals: no card still face down,
    # and no turn or river card, appears in any card array a strategy is shown.
    from simcore.engine.deal import deal

    n = 3000
    cards = deal(V.known_slots(P), n, np.random.default_rng(P))
    logs = []

    def rand(obs):
        keys = np.random.default_rng(len(logs)).random(obs["legal"].shape) + obs["legal"]
        return np.argmax(keys, axis=1)

    play(cards, P, everyone(P, recorder(rand, logs)))
    assert len(logs) == 2 * P
    later = cards[:, 4 * P + 3: 4 * P + 5]
    for obs in logs:
        assert set(obs) == OBS_KEYS
        hidden = np.concatenate([_hidden_at(cards, obs), later], axis=1)
        for key in ("up", "mucked", "board"):
            shown = obs[key].reshape(n, -1).astype(np.int16)
            clash = (shown[:, :, None] == hidden[:, None, :]) & (shown[:, :, None] >= 0)
            assert not clash.any(), key
        # in_sight is exactly the face-up and mucked cards, as a set
        public = np.concatenate([obs["up"].reshape(n, -1), obs["mucked"]], axis=1)
        bits = np.where(public >= 0, np.uint64(1) << np.maximum(public, 0).astype(np.uint64), np.uint64(0))
        assert obs["in_sight"].dtype == np.uint64
        assert np.array_equal(obs["in_sight"], np.bitwise_or.reduce(bits, axis=1))
        assert np.array_equal(obs["in_sight"], in_sight_set(obs["up"], obs["mucked"]))
    assert any((obs["downs_left"] < 2).any() for obs in logs)  # exchanges happened


def test_observations_do_not_depend_on_face_down_cards():
    # Same public cards, different face-down cards: with everyone declining the
    # observations are identical; with first-exchange mucks only the down1 cards
    # can change and the observations are still identical.
    from simcore.engine.deal import deal

    P, n = 6, 2000
    cards = deal(V.known_slots(P), n, np.random.default_rng(9))
    rng = np.random.default_rng(10)
    for policy, slots in (("never", (2, 3)), ("first-only", (3,))):
        other = cards.copy()
        for i in range(n):  # test-only loop: swap face-down cards with unused cards
            unused = np.setdiff1d(np.arange(52), cards[i])
            pick = rng.choice(unused, size=len(slots) * P, replace=False)
            other[i, [4 * q + s for q in range(P) for s in slots]] = pick
        logs = [[], []]
        for c, log in zip((cards, other), logs):
            if policy == "never":
                fns = everyone(P, recorder(fixed(0), log))
            else:
                fns = [{"exchange1": recorder(fixed(1 + q % 2), log),
                        "exchange2": recorder(fixed(0), log)} for q in range(P)]
            play(c, P, fns)
        for a, b in zip(*logs):
            for key in OBS_KEYS:
                assert np.array_equal(a[key], b[key]), (policy, key)


def test_a_strategy_sees_face_up_cards_mucks_and_earlier_actions():
    log = []
    cards = fixed_deal(3, ["As Kd 2c 3c", "7h 7s 4c 5c", "Qd Jd 6c 8c"], "2d 3d 4d 5d 6d")
    seats = [{"exchange1": fixed(2), "exchange2": fixed(0)},
             {"exchange1": fixed(0), "exchange2": fixed(0)},
             {d: recorder(fixed(0), log) for d in DECISIONS}]
    play(cards, 3, seats)
    obs = log[0]
    assert obs["seat"] == 2 and obs["n_players"] == 3
    assert obs["up"][0].tolist() == [parse_cards("As 2c").tolist(), parse_cards("7h 7s").tolist(),
                                     parse_cards("Qd Jd").tolist()]
    assert obs["mucked"][0].tolist() == [parse_cards("Kd")[0]] + [-1] * 5
    assert obs["history"][0].tolist() == [2, 0, -1]
    assert obs["downs_left"][0].tolist() == [1, 2, 2]


@pytest.mark.parametrize("keep", ["obs", "views", "nothing"])
def test_observations_are_read_only_snapshots(keep):
    # Whatever a strategy keeps of an observation (the arrays, or views cut
    # from them) must still show the state at its decision after the deal is
    # played out, although the engine only copies state that was kept.
    from simcore.engine.deal import deal

    P, n = 4, 500
    cards = deal(V.known_slots(P), n, np.random.default_rng(4))
    kept, copies = [], []

    def strategy(obs, rng):
        arrays = {k: v for k, v in obs.items() if isinstance(v, np.ndarray)}
        for k, v in arrays.items():
            assert not v.flags.writeable, k
            with pytest.raises(ValueError, match="read-only"):
                v[...] = 0
        copies.append({k: v.copy() for k, v in arrays.items()})
        if keep == "obs":
            kept.append(obs)
        elif keep == "views":
            kept.append({"up": obs["up"][:, :, 0], "mucked": obs["mucked"][::2],
                         "downs_left": obs["downs_left"].T, "history": obs["history"].reshape(-1)})
        keys = np.random.default_rng(len(copies)).random(obs["legal"].shape) + obs["legal"]
        return np.argmax(keys, axis=1)

    play(cards, P, everyone(P, strategy))
    assert len(copies) == 2 * P
    if keep == "nothing":
        return
    for k_obs, c_obs in zip(kept, copies):
        for k, v in k_obs.items():
            if not isinstance(v, np.ndarray):
                continue
            want = {"up": lambda a: a[:, :, 0], "mucked": lambda a: a[::2],
                    "downs_left": lambda a: a.T, "history": lambda a: a.reshape(-1)}[k] \
                if keep == "views" else (lambda a: a)
            assert np.array_equal(v, want(c_obs[k])), k
    # the state did change between decisions (else the check proves nothing)
    assert not np.array_equal(copies[0]["up"], copies[-1]["up"])


def test_situation_rebuilds_the_public_state_for_a_rollout():
    # Record seat 3's observations, rebuild (known, forced), deal the rest at random,
    # replay: the seat sees exactly the same public state.
    from simcore.engine.deal import deal

    P, n = 5, 400
    cards = deal(V.known_slots(P), n, np.random.default_rng(21))

    def rand(obs):
        keys = np.random.default_rng(obs["seat"] + 7).random(obs["legal"].shape) + obs["legal"]
        return np.argmax(keys, axis=1)

    for seat in (0, 3):
        log = []
        fns = everyone(P, recorder(rand, []))
        fns[seat] = {d: recorder(rand, log) for d in DECISIONS}
        play(cards, P, fns)
        for obs in log:
            known, forced = V.situation(obs["decision"], obs, P)
            redealt = deal(known, n, np.random.default_rng(5))
            again = []
            fns2 = everyone(P, recorder(fixed(0), []))
            fns2[seat] = {d: recorder(rand, again) for d in DECISIONS}
            play(redealt, P, fns2, forced=forced)
            # a fully forced decision skips the strategy: pick the replayed decision's record
            seen = next(o for o in again if o["decision"] == obs["decision"])
            for key in ("up", "mucked", "board", "history", "round1", "downs_left", "legal"):
                assert np.array_equal(seen[key], obs[key]), (seat, obs["decision"], key)


# -- Hold'em with everyone declining ----------------------------------------------------------


def test_never_exchanging_is_texas_holdem_with_the_face_up_cards():
    # A-A against one player: 0.852037 exact (REFERENCE_VALUES.md); fixed seeds, 4 standard errors.
    exact = 893604787 / 1048786200
    s = simulate("slovak", 2, 600_000, seed=31, hand="Ah Ad", progress=False).table()
    h = simulate("holdem", 2, 600_000, seed=32, hand="Ah Ad", progress=False).table()
    assert s.strategy[0] == "exchange1=never,exchange2=never"
    assert abs(s.share[0] - exact) < 4 * s.stderr[0]
    assert abs(s.share[0] - h.share[0]) < 4 * np.hypot(s.stderr[0], h.stderr[0])


# -- policies ------------------------------------------------------------------------------------

POLICIES = ["never", "lower", "threshold", "made-or-draw", "live-outs", "thoughtful", "random"]


def make_obs(hand, board=None, others=(), mucked=(), decision=None, seat=0, downs=2):
    """One observation row for ``seat``: its face-up cards, others' in seat order."""
    ups = [parse_cards(h) for h in others]
    ups.insert(seat, parse_cards(hand))
    P = len(ups)
    mk = np.full((1, 2 * P), -1, np.int8)
    m = parse_cards(" ".join(mucked)) if mucked else []
    mk[0, : len(m)] = m
    decision = decision or ("exchange2" if board else "exchange1")
    downs_left = np.full((1, P), downs, np.int8)
    return {
        "up": np.array(ups, np.int8)[None], "mucked": mk,
        "board": (parse_cards(board) if board else np.full(3, -1, np.int8))[None].astype(np.int8),
        "history": np.full((1, P), -1, np.int8), "round1": np.full((1, P), -1, np.int8),
        "downs_left": downs_left, "legal": exchange_legal(downs_left[:, seat]),
        "seat": seat, "n_players": P, "decision": decision, "variant": "slovak",
    }


def act(policy, obs):
    return int(resolve("slovak", obs["decision"], policy)[1](obs, np.random.default_rng(0))[0])


@pytest.mark.parametrize("policy", POLICIES)
def test_every_policy_returns_legal_actions(policy):
    from simcore.engine.deal import deal

    P, n = 6, 3000
    cards = deal(V.known_slots(P), n, np.random.default_rng(4))
    fns = [{d: fn for d, (_, fn) in seat.items()} for seat in lineup(V, P, policy, policy)]
    out = play(cards, P, fns)  # Table.act raises on any illegal answer
    assert np.allclose(out.shares.sum(axis=1), 1.0)
    for d in DECISIONS:
        obs = make_obs("9s 4d", "Kh 9d 2c" if d == "exchange2" else None, ["Ac Ad"], downs=0,
                       decision=d)
        assert act(policy, obs) == 0  # nothing left to turn: decline only


def test_never_declines_and_lower_mucks_the_lower_card():
    obs = make_obs("9s 4d", others=["Ac Kd"])
    assert act("never", obs) == 0
    assert act("lower", obs) == 2
    assert act("lower", make_obs("4d Js")) == 1
    assert act("lower", make_obs("4s 4d")) == 2  # same rank: the lower suit (diamonds) goes
    assert act("lower", make_obs("4c 4h", "Kh 9d 2c")) == 1


@pytest.mark.parametrize("hand,expect", [
    ("7s 7d", 0),     # a pair is kept
    ("9h 8h", 0),     # suited connector kept
    ("Ah 7h", 0),     # suited ace with a fair kicker kept
    ("Ks 2s", 2),     # suited but a weak lower card: muck it
    ("As Kd", 0),     # offsuit A-K (a broadway connector) kept
    ("As Qd", 2),     # offsuit A-Q: the queen goes
    ("7c Td", 1),     # the lower card is face-up card 0
])
def test_threshold_keeps_strong_hands_and_mucks_the_weak_card(hand, expect):
    obs = make_obs(hand, others=["2c 2d"])
    for policy in ("threshold", "made-or-draw"):
        assert act(policy, obs) == expect, policy
    # The threshold rule ignores the flop at the second exchange.
    assert act("threshold", make_obs(hand, "2h 3c Qd", others=["2c 2d"])) == expect


@pytest.mark.parametrize("hand,board,expect", [
    ("9s 4d", "Kh 9d 2c", 2),   # the nine pairs the board, the four does nothing
    ("4d 9s", "Kh 9d 2c", 1),
    ("Ah 7h", "Kh 9h 2c", 0),   # flush draw with both cards
    ("Ah 7c", "Kh 9h 2h", 2),   # flush draw with the ace alone
    ("8c Tc", "9d Js 2h", 0),   # open-ended straight draw with both
    ("Qd Qh", "Kh 9d 2c", 0),   # a pocket pair works
    ("Ac 3d", "Kh 9d 8c", 2),   # nothing works: muck the lower
])
def test_made_or_draw_keeps_what_works(hand, board, expect):
    assert act("made-or-draw", make_obs(hand, board, others=["2s 2d"])) == expect


def test_live_outs_counts_the_cards_in_sight():
    # Ah 7c on Kh 9h 2h: a one-card flush draw, nine hearts unseen -> keep the ace.
    assert act("live-outs", make_obs("Ah 7c", "Kh 9h 2h", others=["2s 3d"])) == 2
    # Every other heart in sight: the draw is dead, both cards are idle, and the
    # ace (the other three aces in sight: nothing left to pair it) goes, not the seven.
    obs = make_obs("Ah 7c", "Kh 9h 2h", others=["Qh Jh", "Th 8h", "Ad As"],
                   mucked=["3h", "4h", "5h", "6h", "7h", "Ac"])
    assert act("made-or-draw", obs) == 2
    assert act("live-outs", obs) == 1
    # Before the flop: K5 offsuit with the other three kings in sight -> the king goes.
    obs = make_obs("Ks 5d", others=["Kh Kc", "Kd 2c"])
    assert act("threshold", obs) == 2 and act("live-outs", obs) == 1


def test_thoughtful_breaks_up_a_pocket_pair_that_is_beaten_in_sight():
    mine = "6s 6d"
    safe = make_obs(mine, "Kh 9d 2c", others=["3c 4c"])
    beaten = make_obs(mine, "Kh 9d 2c", others=["Kc 4c"])  # a pair of kings in sight
    assert act("thoughtful", safe) == 0 and act("live-outs", beaten) == 0
    assert act("thoughtful", beaten) == 2


def test_exchanging_well_beats_never_on_the_same_deals():
    # Paired on the same deals; the gain is several points, far outside 4 standard errors.
    d = compare("slovak", 6, 30_000, seed=8, a="made-or-draw", b="never", field="never",
                progress=False).to_dict()
    assert d["diff"] - 4 * d["diff_stderr"] > 0.03


# -- rollout and analysis ------------------------------------------------------------------------------


def test_analyze_separates_an_obvious_exchange():
    r = analyze("slovak", 4, "9s 4d", "Kh 9d 2c", decision="exchange2", n_deals=200_000,
                seed=3, progress=False)
    t = r.table()
    assert r.separated and t.action[0] == "muck 4d"
    assert set(t.action) == {"decline", "muck 4d", "muck 9s"}
    assert t.action.iloc[-1] == "muck 9s"  # throwing away the pair is worst


def test_analysis_situations_fix_cards_and_earlier_exchanges():
    sit = V.setup(3, hand="9s 4d", seen="Ac Kd 7h 7c")
    known, presets = sit.known, sit.presets
    assert known[[0, 1, 4, 5, 8, 9]].tolist() == parse_cards("9s 4d Ac Kd 7h 7c").tolist()
    assert presets == {}
    sit = V.setup(3, hand="9s Ks", board="Kh 9d 2c", seen="Ac Kd", mucked="4d")
    known, presets = sit.known, sit.presets
    assert known[:3].tolist() == parse_cards("9s 4d Ks").tolist()
    assert known[12:15].tolist() == parse_cards("Kh 9d 2c").tolist()
    assert presets == {(0, "exchange1"): 2, (1, "exchange1"): 0}
    assert [V.analysis_label("exchange2", a, sit) for a in range(3)] == ["decline", "muck 9s", "muck Ks"]
    with pytest.raises(ValueError, match="passed"):
        V.setup(3, hand="9s 4d", passed="2c")


def test_analysis_with_the_flop_asks_about_the_second_exchange():
    # The rule text's spot: 4d mucked, Ks turned up, flop Kh 9d 2c: two pair, so keep both.
    r = analyze("slovak", 4, "9s Ks", "Kh 9d 2c", extra={"mucked": "4d"},
                        n_deals=100_000, seed=3, progress=False)
    assert r.decision == "exchange2"
    assert r.table().action[0] == "decline"
    r1 = analyze("slovak", 4, "9s 4d", n_deals=100_000, seed=3, progress=False)
    assert r1.decision == "exchange1"
