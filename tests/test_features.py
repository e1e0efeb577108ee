"""Tests for strategies.features, and a check that the policies built on it
choose exactly the actions they chose before it existed.

The straight-draw functions are checked against a slow reference written here
from the definition (a straight is five consecutive ranks, the ace high or
low; a draw is four of them), over every set of ranks.
"""
import hashlib
import itertools

import numpy as np
import pytest

import strategies  # noqa: F401  (registers the policies)
from slovak_situations import slovak_situations
from simcore.cards import parse_cards
from strategies.features import (
    FLUSH_DRAW, FLUSH_MADE, GUTSHOT, NO_FLUSH, NO_STRAIGHT_DRAW, OPEN_ENDED, STRAIGHT_MADE,
    argmax3, argmax_lowest_card, argmin_lowest_card, bit_count, count_ranks_suits, flush_status,
    highest_card, lower_of_two, lowest_card, lowest_card_rows, lowest_card_within, mark_cards, rank_mask,
    straight_draw, straight_outs, unseen_cards, unseen_mask,
)
from strategies.registry import policies

# -- straight draws against the definition ------------------------------------------------

# The ten straights as rank sets, 5-high (ace low) to ace-high.
STRAIGHTS = [frozenset({12, 0, 1, 2, 3})] + [frozenset(range(lo, lo + 5)) for lo in range(9)]


def reference_outs(ranks: set, rank: int):
    """(made, outs) from the definition: straights using ``rank`` (any if -1)."""
    made, outs = False, set()
    for s in STRAIGHTS:
        if rank >= 0 and rank not in s:
            continue
        missing = s - ranks
        if not missing:
            made = True
        elif len(missing) == 1:
            outs |= missing
    return made, outs


def ranks_of(mask: int) -> set:
    return {r for r in range(13) if mask >> r & 1}


def test_straight_outs_match_the_definition_for_every_rank_set():
    rng = np.random.default_rng(3)
    for mask in range(1 << 13):
        ranks = ranks_of(mask)
        # every rank of the set, one rank outside it, and no rank at all
        probes = sorted(ranks)[:3] + [int(rng.integers(13)), -1]
        for rank in probes:
            made, outs = straight_outs(mask, rank)
            ref_made, ref_outs = reference_outs(ranks, rank)
            assert (bool(made), ranks_of(int(outs))) == (ref_made, ref_outs), (sorted(ranks), rank)


def test_straight_draw_classes_every_rank_set_by_its_outs():
    for mask in range(1 << 13):
        made, outs = reference_outs(ranks_of(mask), -1)
        want = (STRAIGHT_MADE if made else OPEN_ENDED if len(outs) >= 2
                else GUTSHOT if outs else NO_STRAIGHT_DRAW)
        assert straight_draw(mask) == want, sorted(ranks_of(mask))


@pytest.mark.parametrize("cards, kind", [
    ("9s 8d 7c 6h 2c", OPEN_ENDED),
    ("Ts 9d 7c 6h 2c", GUTSHOT),
    ("As Kd Qc Jh 2c", GUTSHOT),  # only a ten makes it
    ("Ac 2d 3h 4s Kc", GUTSHOT),  # the wheel: only a five
    ("9c 7d 6h 5s 3c", OPEN_ENDED),  # a double gutshot: an eight or a four
    ("6c 5d 4h 3s 2c", STRAIGHT_MADE),
    ("Ac 2d 3h 4s 5c", STRAIGHT_MADE),
    ("Kc Ad 2h 3s 4c", GUTSHOT),  # K-A-2-3-4 wraps no straight; A-2-3-4 wants a five
    ("Kc Qd 9h 8s 2c", NO_STRAIGHT_DRAW),
])
def test_straight_draw_on_hand_built_cards(cards, kind):
    assert straight_draw(rank_mask(parse_cards(cards))) == kind


def test_straight_outs_restricted_to_a_card():
    # 9-8-7-6 with a deuce: the deuce plays in no draw, the six in both ends
    ranks = rank_mask(parse_cards("9s 8d 7c 6h 2c"))
    made, outs = straight_outs(ranks, 0)
    assert (made, outs) == (False, 0)
    made, outs = straight_outs(ranks, 4)
    assert not made and ranks_of(int(outs)) == {3, 8}  # a five or a ten


def test_flush_status_counts_four_as_a_draw():
    assert [flush_status(k) for k in range(8)] == [NO_FLUSH] * 4 + [FLUSH_DRAW] + [FLUSH_MADE] * 3


def test_rank_mask_and_counts_skip_missing_cards():
    cards = np.array(list(parse_cards("As Ad 7c")) + [-1], dtype=np.int8)
    assert ranks_of(int(rank_mask(cards))) == {12, 5}
    ranks, suits = np.zeros(13, np.int64), np.zeros(4, np.int64)
    count_ranks_suits(cards, ranks, suits)
    count_ranks_suits(cards[:1], ranks, suits)  # counts add up
    assert ranks[12] == 3 and ranks[5] == 1 and ranks.sum() == 4
    assert suits.tolist() == [1, 1, 0, 2]
    assert [bit_count(x) for x in (0, 1, 0b1011, (1 << 52) - 1)] == [0, 1, 3, 52]


# -- the unseen deck ------------------------------------------------------------------------


def test_unseen_deck_is_every_card_not_in_sight():
    rng = np.random.default_rng(4)
    seen = np.argsort(rng.random((50, 52)), axis=1)[:, :9].astype(np.int8)
    seen[::3, 4] = -1  # missing cards
    mask = unseen_mask(seen)
    for i in range(len(seen)):
        want = sorted(set(range(52)) - {int(c) for c in seen[i] if c >= 0})
        assert np.flatnonzero(mask[i]).tolist() == want
        used = np.zeros(52, np.bool_)
        mark_cards(seen[i], used)
        out = np.empty(52, np.int64)
        m = unseen_cards(used, out)
        assert out[:m].tolist() == want


def test_unseen_mask_rejects_bad_input():
    with pytest.raises(ValueError, match="card value 60"):
        unseen_mask(np.array([[3, 60]]))
    with pytest.raises(ValueError, match="shape"):
        unseen_mask(np.array([3, 4]))


# -- tie-break pickers ------------------------------------------------------------------------


def test_pickers_break_ties_by_the_lowest_card():
    cards = parse_cards("Kd 7s 7c")  # 7c is the lowest card, Kd the highest
    assert (lowest_card(cards), highest_card(cards)) == (2, 0)
    assert (lower_of_two(cards[1], cards[2]), lower_of_two(cards[2], cards[0])) == (1, 0)
    assert lowest_card_rows(np.stack([cards, cards[::-1]])).tolist() == [2, 0]
    assert lowest_card_rows(cards[None], highest=True).tolist() == [0]
    assert argmax_lowest_card(np.array([5, 9, 9]), cards) == 2
    assert argmax_lowest_card(np.array([9, 5, 5]), cards) == 0
    assert argmin_lowest_card(np.array([1.0, 1.0, 3.0]), cards) == 1
    assert argmin_lowest_card(np.array([1.0, 1.0, 1.0]), cards) == 2
    # within 0.1 of the best: actions 0 and 1; the lower of Kd, 7s is 7s
    assert lowest_card_within(np.array([0.95, 1.0, 0.5]), cards, 0.1) == 1
    assert lowest_card_within(np.array([0.95, 1.0, 0.5]), cards, 0.0) == 1
    assert lowest_card_within(np.array([0.95, 1.0, 0.95]), cards, 0.06) == 2


@pytest.mark.parametrize("scores", list(itertools.product(range(3), repeat=3)))
def test_argmax3_takes_the_first_of_the_best(scores):
    assert argmax3(*scores) == int(np.argmax(scores))


def test_lowest_card_rows_rejects_bad_shapes():
    with pytest.raises(ValueError, match="shape"):
        lowest_card_rows(np.zeros((3, 0), np.int8))


# -- the policies choose what they chose before the features module ---------------------------

# sha256 (first 16 hex digits) of each policy's actions on the batches below,
# recorded at commit 6715b02, before the policies used strategies.features.
ACTION_DIGESTS = {
    ("estonian", "discard", "best-made"): "0415ae511c38c48b",
    ("estonian", "discard", "best-potential"): "9fa6169cd78da04e",
    ("estonian", "discard", "lowest"): "d9522853dca269b6",
    ("estonian", "discard", "received"): "07f7da60fecd1444",
    ("estonian", "pass", "highest"): "3a83df18c03f25b4",
    ("estonian", "pass", "keep-best"): "4703c0c79c3b7ba2",
    ("estonian", "pass", "keep-potential"): "864c0afe6fd04ed9",
    ("estonian", "pass", "least-helpful"): "eadaf554a7cf3dad",
    ("estonian", "pass", "lowest"): "eefcd27c74a4b9e3",
    ("estonian", "pass", "thoughtful"): "131bdee0ef616f89",
    ("slovak", "exchange1", "live-outs"): "eb26dd24f42b61fc",
    ("slovak", "exchange1", "lower"): "cfb6c8501f28e63b",
    ("slovak", "exchange1", "made-or-draw"): "5a9d1ea167b7970e",
    ("slovak", "exchange1", "never"): "1a00dc8851b7f1fa",
    ("slovak", "exchange1", "thoughtful"): "eb26dd24f42b61fc",
    ("slovak", "exchange1", "threshold"): "5a9d1ea167b7970e",
    ("slovak", "exchange2", "live-outs"): "c594be22b005e478",
    ("slovak", "exchange2", "lower"): "859aa9c7213de8cd",
    ("slovak", "exchange2", "made-or-draw"): "fcca136c22d08872",
    ("slovak", "exchange2", "never"): "1a00dc8851b7f1fa",
    ("slovak", "exchange2", "thoughtful"): "e1df33e1ed3d0f35",
    ("slovak", "exchange2", "threshold"): "422970a9a2b3d43a",
}


def _deals(rng, n, k):
    return np.argsort(rng.random((n, 52)), axis=1)[:, :k].astype(np.int8)


def _estonian_batches():
    """(P, decision, obs): 600 random pass and discard situations at 2, 6 and 11 players."""
    for P in (2, 6, 11):
        rng = np.random.default_rng(1000 + P)
        d = _deals(rng, 600, 8)
        base = {"legal": np.ones((600, 3), bool), "seat": 0, "n_players": P, "variant": "estonian",
                "round": 0}
        yield P, "pass", {**base, "hand": d[:, :3], "flop": d[:, 3:6], "decision": "pass"}
        yield P, "discard", {**base, "hand": np.ascontiguousarray(d[:, [0, 1, 6]]), "flop": d[:, 3:6],
                             "passed": d[:, 2].copy(), "decision": "discard"}


def _slovak_batches():
    """(P, decision, seat, obs) over both exchanges of 800 deals at 2, 6 and 11 players
    (every seat taking random legal actions: see slovak_situations)."""
    for P in (2, 6, 11):
        for decision, p, obs in slovak_situations(P, 800, 2000 + P):
            yield P, decision, p, obs


def _policy_actions():
    """{(variant, decision, policy): [actions (n,) per batch, in batch order]}."""
    out = {}
    batches = [("estonian", d, obs) for _, d, obs in _estonian_batches()]
    batches += [("slovak", d, obs) for _, d, _, obs in _slovak_batches()]
    for variant, decision, obs in batches:
        for name in sorted(k[2] for k in ACTION_DIGESTS if k[:2] == (variant, decision)):
            fn = policies(variant, decision)[name].function
            acts = np.asarray(fn(obs, np.random.default_rng(0)), dtype=np.int64)
            assert obs["legal"][np.arange(len(acts)), acts].all()
            out.setdefault((variant, decision, name), []).append(acts)
    return out


def test_policies_choose_the_same_actions_as_before_the_features_module():
    got = {}
    for key, runs in _policy_actions().items():
        h = hashlib.sha256()
        for acts in runs:
            h.update(acts.astype("<i8").tobytes())
        got[key] = h.hexdigest()[:16]
    changed = sorted(k for k in ACTION_DIGESTS if got.get(k) != ACTION_DIGESTS[k])
    assert not changed, f"policies whose actions changed: {changed}"


def test_the_digest_batches_tell_the_policies_apart():
    # The digests would prove little if every policy did the same on these batches.
    acts = {k: np.concatenate(v) for k, v in _policy_actions().items()}
    e2 = {name: acts[("slovak", "exchange2", name)]
          for name in ("threshold", "made-or-draw", "live-outs", "thoughtful")}
    for a, b in itertools.combinations(e2, 2):
        assert (e2[a] != e2[b]).sum() >= 100, (a, b)
    passes = [acts[("estonian", "pass", name)] for name in
              ("lowest", "keep-best", "least-helpful", "keep-potential", "thoughtful")]
    for a, b in itertools.combinations(range(len(passes)), 2):
        assert (passes[a] != passes[b]).sum() >= 30, (a, b)
