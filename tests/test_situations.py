"""Situations as values, slot layouts, input checks in the base class, registering games.

A variant instance holds nothing after ``configure``: ``setup`` returns a
Situation and every analysis hook reads what it needs from it, so one shared
instance serves concurrent analyses.
"""
from __future__ import annotations

import threading

import numpy as np
import pytest

from simcore import analyze, get_variant, register_variant, unregister_variant
from simcore.engine import REST, MissingHook, Situation, SlotLayout, Variant, private, public
from simcore.variants import russian as R
from simcore.variants import sviten as S
from simcore.variants import tapiola as T
from simcore.variants import variant_classes

# (variant, players, situation) triples that differ in what the hooks must read from the
# situation: the hero's placed counts (Russian), the player count (Tapiola's labels),
# the round (Tapiola), the passed card (Estonian), the open card (Sviten).
SITUATIONS = {
    "russian": [
        (2, dict(hand="Ad", board="Ah Ac 5d", extra={"hand1": "2s", "hand2": "3s", "hand3": "Jc 4c"})),
        (2, dict(hand="Ad", board="Ah Ac 5d", extra={"hand1": "2s 3d 4h", "hand2": "3s 5h", "hand3": "Jc 4c 6c 8c"})),
        (3, dict(hand="9d", board="Ah 2c 7d", extra={"hand1": "Kh 4c 5s 2h", "hand2": "9s"})),
        (2, dict(hand="Ad", board="Ah Ac 5d")),
    ],
    "tapiola": [
        (4, dict(hand="As Ad 7c 4h", board="2s 9d Th 4c 5c")),
        (3, dict(hand="As Ad 7c", board="2s 9d Th 4c 5c 6h 8h", extra={"discarded": "Kc Qc"})),
        (6, dict(hand="Kd 7d Ks", board="Kh Kc 5h 2d 8h 3d Jc")),
        (2, dict(hand="As Ad 7c 4h 2c")),
    ],
    "estonian": [
        (3, dict(hand="As Ks 7d", board="Qs Js 4h")),
        (4, dict(hand="As Ks 9c", board="Qs Js 4h", extra={"passed": "7d"})),
    ],
    "sviten": [
        (3, dict(hand="Qs Qd 9c 5h 2s", board="Qh 8d 3d", extra={"open": "Qc", "threw": "9c"})),
        (3, dict(hand="As Ad 7c 5h 2s", board="Ah Kd 7d")),
    ],
}


def _run(name, P, kw):
    r = analyze(name, P, n_deals=1024, block_size=512, stop_early=False, seed=4, progress=False,
                workers=1, executor="threads", **kw)
    d = r.to_dict()
    d.pop("seconds")
    return d


@pytest.mark.parametrize("name", sorted(SITUATIONS))
def test_concurrent_analyses_on_one_instance_give_the_sequential_results(name):
    v = get_variant(name)
    jobs = SITUATIONS[name] * 2
    alone = [_run(name, P, kw) for P, kw in jobs]
    together, errors = [None] * len(jobs), []
    start = threading.Barrier(len(jobs))

    def work(i):
        try:
            start.wait()
            together[i] = _run(name, *jobs[i])
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert together == alone
    assert get_variant(name) is v and vars(v) == {"opts": dict(v.opts)} | (
        {"lowball": v.lowball, "scoring": v.scoring, "h": v.h, "max_players": v.max_players,
         "decisions": v.decisions, "hand_kinds": v.hand_kinds, "payoff_unit": v.payoff_unit,
         "payoff_total": v.payoff_total, "match_target": v.match_target, "layout": v.layout}
        if name == "tapiola" else {})


def test_russian_tries_the_hands_with_room_whatever_was_set_up_before():
    v = get_variant("russian")
    full = v.setup(2, hand="Ad", board="Ah Ac 5d", hand1="2s", hand2="3s", hand3="Jc 4c 6c 8c")
    for _ in range(300):  # more set-ups than the old 256-entry cache held
        v.setup(2, hand="Ad", board="Ah Ac 5d", hand1="2s")
    assert v.analysis_actions("place", full) == [0, 1]
    # slots given directly (no setup): nothing says a hand is full, so all three
    assert v.analysis_actions("place", v.situation_of(2, full.known, 0)) == [0, 1, 2]


def test_tapiola_labels_read_the_player_count_from_the_situation():
    v = get_variant("tapiola")
    for P in (2, 5, 9):
        sit = v.setup(P, hand="As Ad 7c 4h", board="2s 9d Th 4c 5c", seat=P - 1)
        assert sit.n_players == P and sit.seat == P - 1
        assert [v.analysis_label("discard", a, sit) for a in range(4)] == [
            "discard As", "discard Ad", "discard 7c", "discard 4h"]


def test_a_situation_is_a_read_only_value():
    sit = get_variant("estonian").setup(3, "As Ks 9c", "Qs Js 4h", passed="7d")
    assert isinstance(sit, Situation) and sit.get("passed") == "7d" and sit.board == "Qs Js 4h"
    with pytest.raises(ValueError):
        sit.known[0] = 3
    with pytest.raises(TypeError):
        sit.presets[(0, "pass")] = 1
    with pytest.raises(AttributeError):
        sit.seat = 2


# -- slot layouts ---------------------------------------------------------------------------


@pytest.mark.parametrize("P", [2, 3, 4])
def test_each_games_layout_is_its_slot_functions(P):
    assert get_variant("russian").layout.slots("cards", P, P - 1) == [R.card_slot(P, r, P - 1) for r in range(12)]
    for lowball in (False, True):
        v = get_variant("tapiola", lowball=lowball)
        assert v.n_slots(P) == T.n_slots(P, lowball)
        assert v.layout.slots("hand", P, 1) == T.hand_slots(P, 1, lowball)
        assert v.layout.slots("towers", P) == T.tower_slots(P, lowball)
    v = get_variant("sviten")
    assert v.n_slots(P) == S.DECK and v.layout.slots("first stub card", P) == [S.stub_start(P)]
    assert get_variant("slovak").hidden_slots(P, 0) == [4 * q + j for q in range(1, P) for j in (2, 3)] + [
        4 * P + 3, 4 * P + 4]


def test_a_layout_gives_slots_setup_and_hidden_slots():
    class Cards(Variant):
        name, title = "layout-example", "Layout example"
        layout = SlotLayout(public("up", 1, fills="board"), private("hole", 2, fills="hand"),
                            private("down", 1, seen="none"), public("board", 3, fills="board"),
                            public("rest", REST, seen="none"))

    v = Cards()
    assert v.n_slots(2) == 52
    assert v.layout.slots("hole", 2, 1) == [4, 5] and v.layout.slots("down", 2, 0) == [3]
    # owner-only cards of the other seat, every seat's "none" cards, and the rest of the deck
    assert v.hidden_slots(2, 0) == [3, 4, 5, 6] + list(range(10, 52))
    sit = v.setup(2, hand="As Kd", board="2c 3c 4c", seat=1)
    assert sit.known[[4, 5, 0, 7, 8]].tolist() == [51, 45, 0, 4, 8]
    with pytest.raises(ValueError, match="hand: at most 2 cards, got 3"):
        v.setup(2, hand="As Kd Qh")
    with pytest.raises(ValueError, match="duplicate"):
        v.setup(2, hand="As Kd", board="As")
    with pytest.raises(ValueError, match="at most one slot group"):
        SlotLayout(public("a", REST), public("b", REST))
    with pytest.raises(ValueError, match="only a per-seat group has an owner"):
        public("x", 2, seen="owner")


# -- input checks in the base class -----------------------------------------------------------


@pytest.mark.parametrize("name", ["holdem", "estonian", "slovak", "tapiola", "sviten", "russian"])
def test_setup_checks_seat_players_and_fields_once_for_every_game(name):
    v = get_variant(name)
    P = v.min_players
    with pytest.raises(ValueError, match=r"seat 7 is not at a"):
        v.setup(P, seat=7)
    with pytest.raises(ValueError, match="seat True"):
        v.setup(P, seat=True)
    with pytest.raises(ValueError, match="no situation field 'colour'"):
        v.setup(P, colour="red")
    with pytest.raises(ValueError, match="takes"):
        v.setup(v.max_players + 1)
    assert v.setup(P, seat=np.int64(P - 1)).seat == P - 1


def test_a_game_without_layout_or_known_slots_gets_a_helpful_error():
    class Bare(Variant):
        name, title = "bare", "Bare"

    with pytest.raises(MissingHook, match="declares no slot layout.*override known_slots"):
        Bare().setup(2)
    with pytest.raises(NotImplementedError, match="n_slots"):  # MissingHook is one
        Bare().n_slots(2)


# -- registering games --------------------------------------------------------------------------


def test_register_variant_names_conflicts_and_forgets_cleanly():
    class Other(Variant):
        name, title = "holdem", "Another Hold'em"

    with pytest.raises(ValueError, match="variant name 'holdem' is taken by simcore.variants.holdem"):
        register_variant(Other)
    with pytest.raises(TypeError, match="subclass of simcore.engine.Variant"):
        register_variant(object)

    class Mine(Variant):
        name, title = "mine", "Mine"
        layout = SlotLayout(private("hole", 2, fills="hand"))

    assert register_variant(Mine) is Mine and register_variant(Mine) is Mine
    try:
        assert get_variant("mine").setup(2, hand="As").known[0] == 51
    finally:
        unregister_variant("mine")
    assert "mine" not in variant_classes()
    with pytest.raises(ValueError, match="unknown variant 'mine'"):
        get_variant("mine")


# -- Outcome.state --------------------------------------------------------------------------


@pytest.mark.parametrize("name,spec", [("russian", "place=by-rank"), ("russian", "random"), ("sviten", None)])
def test_an_outcome_carries_the_final_state_when_asked(name, spec):
    import strategies
    from simcore.engine import deal_block, play_block

    v, P, n = get_variant(name), 3, 300
    cards, chance = deal_block(v, np.full(v.n_slots(P), -1, np.int8), n, P, np.random.default_rng(5))
    lu = strategies.lineup(v, P, spec, spec)

    def play(keep):
        rngs = [np.random.default_rng(20 + p) for p in range(P)]
        return play_block(v, cards, P, lu, rngs, None, chance, record=True, keep_state=keep)

    plain, kept = play(False), play(True)
    assert plain.state is None and kept.state is not None
    assert np.array_equal(plain.payoffs, kept.payoffs)  # asking changes nothing played
    assert all(np.array_equal(plain.actions[k], kept.actions[k]) for k in plain.actions)
    if name == "russian":  # the final hands: the showdown of the state is the outcome
        assert np.array_equal(R.showdown(**kept.state)["payoffs"], kept.payoffs)
    else:  # the Service: every seat's final five cards and the board, all distinct
        hands = kept.state.hands
        assert hands.shape == (n, P, 5) and (hands >= 0).all()
        flat = np.concatenate([hands.reshape(n, -1), kept.state.board], axis=1)
        assert (np.sort(flat, axis=1)[:, 1:] != np.sort(flat, axis=1)[:, :-1]).all()
