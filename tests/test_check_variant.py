"""simcore.testing.check_variant fails a game that breaks a promise, naming the promise.

Each game here is the toy game (tests/toy_variant.py) with one promise broken
on purpose: it shows a seat a card the seat never sees, pays out less than it
promises, ignores forced actions in a fast path, skips a decision, shows a key
it does not declare, or keeps state on the shared instance. The toy itself
passes (tests/test_contract.py).
"""
from __future__ import annotations

import numpy as np
import pytest

import strategies
from simcore.engine import Decision, Obs, Outcome, SlotLayout, place_points, private
from simcore.testing import CHECKS, ContractError, check_variant, variant_instances
from toy_variant import DISCARD, TrumpPoints, _apply, _scores, _take_round

POINTS = np.array([2.0, 1.0])


class Peeks(TrumpPoints):
    """Shows each seat the first card of its left neighbour, which hidden_slots says it never sees."""

    name = "toy-peeks"
    decisions = (Decision(DISCARD, 3, TrumpPoints.decisions[0].actions, "discard one", rounds=2,
                          obs=TrumpPoints.decisions[0].obs + (Obs("left", "int8", ("n",)),)),)

    def play(self, cards, n_players, table):
        return _play(self, cards, n_players, table, peek=True)


class PaysLess(TrumpPoints):
    """Second place gets half a point, but payoff_total still promises 3."""

    name = "toy-pays-less"

    def play(self, cards, n_players, table):
        return _play(self, cards, n_players, table, points=np.array([2.0, 0.5]))


def lowest_fast(obs, rng):
    """Discard the lowest card (the game may apply this rule itself)."""
    return np.argmin(obs["hand"], axis=1).astype(np.int64)


class IgnoresForced(TrumpPoints):
    """A fast path: a seat whose policy declares discard_rule='lowest' has the rule applied
    by the game, which forgets the forced actions."""

    name = "toy-ignores-forced"

    def play(self, cards, n_players, table):
        return _play(self, cards, n_players, table, fast=True)


class SkipsRound(TrumpPoints):
    """Never asks for round 2's discard (it throws the new card itself)."""

    name = "toy-skips"

    def play(self, cards, n_players, table):
        return _play(self, cards, n_players, table, skip_round=1)


class Undeclared(TrumpPoints):
    """Shows a key ('extra') its decision does not declare."""

    name = "toy-undeclared"

    def play(self, cards, n_players, table):
        return _play(self, cards, n_players, table, extra=True)


class OneBased(TrumpPoints):
    """Shows 'seen' with cards counted from 1 (a card 51 shows as 52)."""

    name = "toy-one-based"

    def play(self, cards, n_players, table):
        return _play(self, cards, n_players, table, one_based=True)


class Remembers(TrumpPoints):
    """Counts the blocks it played on the shared instance."""

    name = "toy-remembers"

    def play(self, cards, n_players, table):
        self.blocks = getattr(self, "blocks", 0) + 1
        return _play(self, cards, n_players, table)


class SharesTooMuch(TrumpPoints):
    """Plays alternatives once, as if every table were the first (a sharing bug)."""

    name = "toy-shares"

    def play_alternatives(self, cards, n_players, tables):
        out = self.play(cards, n_players, tables[0])
        return [out] * len(tables)


class NoLayout(TrumpPoints):
    """Declares no slot layout and does not say its hidden slots either."""

    name = "toy-no-layout"
    layout = None

    def n_slots(self, n_players):
        return 4 * n_players


def _play(v, cards, n_players, table, peek=False, points=POINTS, fast=False, skip_round=None, extra=False,
          one_based=False):
    """The toy's play, with one promise broken as asked."""
    n, P = cards.shape[0], n_players
    kept = np.empty((n, P, 2), np.int8)
    kept[:, :, 0], kept[:, :, 1] = cards[:, 0::4], cards[:, 1::4]
    thrown = np.full((P, n, 2), -1, np.int64)
    legal = np.ones((n, 3), np.bool_)
    for r in range(2):
        hands = np.empty((P, n, 3), np.int8)
        for p in range(P):
            _take_round(cards, kept, p, r, hands[p])
        for p in range(P):
            if r == skip_round:
                thrown[p, :, r] = 2
                continue
            seen = np.full((n, 4), -1, np.int8)
            seen[:, : 3 + r] = cards[:, 4 * p: 4 * p + 3 + r]
            obs = {"hand": hands[p], "seen": seen, "thrown": thrown[p].copy(), "legal": legal}
            if peek:
                obs["left"] = cards[:, 4 * ((p + 1) % P)].copy()
            if extra:
                obs["extra"] = np.zeros(n, np.int8)
            if one_based:
                obs["seen"] = np.where(seen >= 0, seen + 1, -1).astype(np.int8)
            if fast and table.trait(p, DISCARD, "discard_rule") == "lowest":
                a = np.argmin(hands[p], axis=1).astype(np.int64)
                if table.record:
                    table.actions[(p, DISCARD, r)] = a
            else:
                a = table.act(p, DISCARD, obs, round=r)
            thrown[p, :, r] = a
        for p in range(P):
            _apply(hands[p], thrown[p, :, r], kept, p)
    trump = (table.chance[:, 0] % np.uint32(4)).astype(np.int64)
    values = _scores(kept, trump, v.opts["bonus"])
    top = values == values.max(axis=1, keepdims=True)
    alone = top.sum(axis=1, keepdims=True) == 1
    return Outcome(place_points(values, points), top & alone, top & ~alone, np.full((n, P, 1), -1, np.int8))


@pytest.fixture
def fast_policy():
    strategies.register(IgnoresForced.name, DISCARD, "lowest-fast", discard_rule="lowest")(lowest_fast)
    yield
    strategies.unregister(IgnoresForced.name, DISCARD, "lowest-fast")


def _fails(cls, check, *words, **kw):
    with pytest.raises(ContractError) as e:
        check_variant(cls(), **kw)
    assert e.value.check == check, str(e.value)
    for w in words:
        assert w in str(e.value), str(e.value)
    return str(e.value)


def test_a_game_that_shows_a_hidden_card_fails_naming_the_slot():
    text = _fails(Peeks, "hiding", "a hidden card reaches an observation", "'left'", "'cards' card 1")
    assert "toy-peeks" in text


def test_a_game_that_pays_out_less_than_it_promises_fails_naming_the_deal():
    _fails(PaysLess, "play", "payoff_total promises 3.0", "which sum to")


def test_a_fast_path_that_ignores_forced_actions_fails(fast_policy):
    _fails(IgnoresForced, "forced", "forced action ignored", "lineup lowest-fast")


def test_a_decision_never_taken_fails():
    _fails(SkipsRound, "play", "never took decision 'discard' in round 1")


def test_an_undeclared_observation_key_fails():
    _fails(Undeclared, "observations", "undeclared: ['extra']")


def test_a_card_field_holding_no_card_fails_naming_the_value():
    _fails(OneBased, "observations", "observation 'seen' holds 52", "which is no card", "cards=False")


def test_alternatives_played_other_than_alone_fail():
    _fails(SharesTooMuch, "alternatives", "play_alternatives", "than playing it alone")


def test_state_kept_on_the_instance_fails():
    _fails(Remembers, "stateless", "attribute 'blocks' changed")


def test_a_game_without_a_layout_or_hidden_slots_gets_a_helpful_error():
    text = _fails(NoLayout, "declaration", "declares no slot layout", "hidden_slots")
    assert "NotImplementedError" not in text.split(":")[1]  # our MissingHook, named, not a bare one


def test_the_checks_can_be_chosen_and_the_toy_passes_them():
    assert check_variant(TrumpPoints(), checks=("declaration", "play", "forced"), deals=200) == ["toy"]
    with pytest.raises(ValueError, match="unknown check 'speed'"):
        check_variant(TrumpPoints(), checks=("speed",))
    with pytest.raises(TypeError, match="Variant subclass"):
        check_variant(42)
    assert set(CHECKS) >= {"play", "hiding", "forced", "observations", "stateless"}


def test_a_class_is_checked_with_each_option_value():
    assert [v.opts for v in variant_instances(TrumpPoints)] == [{"bonus": 13}]  # an int option has no choices
    from simcore.variants.tapiola import TapiolaHoldem

    labels = [v.label for v in variant_instances(TapiolaHoldem)]
    assert labels == ["tapiola", "tapiola(scoring=points)", "tapiola(scoring=straight-up-or-die)",
                      "tapiola(lowball=True)", "tapiola(burn=True)"]


# -- the seat view ------------------------------------------------------------------------------


class Viewed(TrumpPoints):
    """Declares a seat view: the three cards in hand (what 'lowest-in-view' reads)."""

    name = "toy-viewed"

    def seat_view(self, decision, obs):
        return np.asarray(obs["hand"], dtype=np.int64)


class ViewOfTheBlock(Viewed):
    """A seat view that reads the other rows too (each card less the block's lowest)."""

    name = "toy-view-of-the-block"

    def seat_view(self, decision, obs):
        hand = np.asarray(obs["hand"], dtype=np.int64)
        return hand - hand.min(axis=0)


class ViewOfTheFirstCard(Viewed):
    """A seat view that leaves out two of the three cards 'lowest-in-view' reads."""

    name = "toy-view-of-the-first-card"

    def seat_view(self, decision, obs):
        return np.asarray(obs["hand"][:, :1], dtype=np.int64)


def _lowest(obs, rng):
    """Discard the lowest card in hand."""
    return np.argmin(obs["hand"], axis=1).astype(np.int64)


def _lowest_and_draws(obs, rng):
    """The lowest card, after a draw it does not use."""
    rng.random(len(obs["hand"]))
    return _lowest(obs, rng)


def _by_position(obs, rng):
    """Discard by the row's place in the block."""
    return (np.arange(len(obs["hand"])) % 3).astype(np.int64)


@pytest.fixture
def in_view():
    """'lowest-in-view' (trait seat_view) for each toy with a view; ``in_view(game, name, fn)`` adds one."""
    made = []

    def add(game, name, fn):
        strategies.register(game, DISCARD, name, seat_view=True)(fn)
        made.append((game, name))

    for game in (Viewed, ViewOfTheBlock, ViewOfTheFirstCard):
        add(game.name, "lowest-in-view", _lowest)
    yield add
    for game, name in made:
        strategies.unregister(game, DISCARD, name)


def test_a_declared_seat_view_and_its_policies_pass(in_view):
    assert check_variant(Viewed(), checks=("seat_view",)) == ["toy-viewed"]


def test_a_seat_view_that_reads_other_rows_fails(in_view):
    _fails(ViewOfTheBlock, "seat_view", "not those rows of its view", checks=("seat_view",))


def test_a_seat_view_policy_that_draws_fails(in_view):
    in_view(Viewed.name, "draws", _lowest_and_draws)
    _fails(Viewed, "seat_view", "policy 'draws'", "draws from its stream", checks=("seat_view",))


def test_a_seat_view_policy_that_reads_other_rows_fails(in_view):
    in_view(Viewed.name, "by-position", _by_position)
    _fails(Viewed, "seat_view", "policy 'by-position'", "otherwise asked with some rows", checks=("seat_view",))


def test_a_policy_that_reads_what_the_seat_view_leaves_out_fails(in_view):
    _fails(ViewOfTheFirstCard, "seat_view", "policy 'lowest-in-view'", "the same seat view",
           "reads something the view leaves out", checks=("seat_view",))
