"""Real observations for the abstraction and table-policy tests: a block played with
random policies, every seat's observation at every decision kept (copies)."""
import numpy as np

from simcore.engine import deal_block, play_block
from simcore.variants import get_variant
from strategies.registry import resolve

# Which observation keys hold cards (and how): relabelling suits touches only these.
CARD_KEYS = {
    "estonian": ("hand", "flop", "passed"),
    "slovak": ("up", "mucked", "board"),
    "tapiola": ("hand", "centre", "towers"),
    "sviten": ("hand", "board", "open_card", "open_cards"),
    "russian": ("flop", "up", "own_down", "card"),
}
BITSET_KEYS = {"slovak": ("in_sight",)}

# the usual table sizes, and a second size
PLAYERS = {"estonian": (6, 3), "slovak": (6, 2), "tapiola": (6, 3), "sviten": (6, 3), "russian": (4, 3)}


def copy_obs(obs: dict) -> dict:
    """An observation with each array copied (free to change), the scalars as they are."""
    return {k: (np.array(x) if isinstance(x, np.ndarray) else x) for k, x in obs.items()}


def collect(variant, n_players, n=600, seed=0, policy="random"):
    """{decision: [obs, ...]}: each call's observation (copied, with the scalars)."""
    v = get_variant(variant) if isinstance(variant, str) else variant
    seen = {d.name: [] for d in v.decisions}

    def spy_for(decision):
        _, fn = resolve(v, decision, policy)

        def spy(obs, rng):
            seen[decision].append(copy_obs(obs))
            return fn(obs, rng)

        return spy

    lineup = [{d.name: ("spy", spy_for(d.name)) for d in v.decisions} for _ in range(n_players)]
    rng = np.random.default_rng(seed)
    known = np.full(v.n_slots(n_players), -1, np.int8)
    cards, chance = deal_block(v, known, n, n_players, rng)
    rngs = [np.random.default_rng(seed + 1 + p) for p in range(n_players)]
    play_block(v, cards, n_players, lineup, rngs, chance=chance)
    return seen


def relabel(game, obs, perm):
    """The observation with every card's suit s replaced by perm[s]."""
    out = dict(obs)
    for k in CARD_KEYS[game]:
        if k in obs:
            a = np.asarray(obs[k])
            out[k] = np.where(a >= 0, (a & ~3) | perm[a & 3], a).astype(a.dtype)
    for k in BITSET_KEYS.get(game, ()):
        if k in obs:
            bits = np.asarray(obs[k], dtype=np.uint64)
            new = np.zeros_like(bits)
            for c in range(52):
                has = (bits >> np.uint64(c)) & np.uint64(1)
                d = (c & ~3) | int(perm[c & 3])
                new |= has << np.uint64(d)
            out[k] = new
    return out


def assert_solved_plays_the_same(game, n_players, monkeypatch, module, flag, calls=4):
    """Every decision of the shipped ``solved`` chain plays the same actions on real observations
    (2,000 random deals, the first ``calls`` calls a decision) with ``module.flag`` True and False,
    and leaves the seat's random stream where it was left the other way."""
    seen = collect(game, n_players, n=2000, seed=7, policy="random")
    plays = {}
    for on in (True, False):
        monkeypatch.setattr(module, flag, on)
        for d, obs_list in seen.items():
            fn = resolve(game, d, "solved")[1]
            for i, obs in enumerate(obs_list[:calls]):
                rng = np.random.default_rng(i)
                got = (fn(obs, rng), rng.bit_generator.state)
                if on:
                    plays[(d, i)] = got
                else:
                    assert np.array_equal(got[0], plays[(d, i)][0]), (game, d, i)
                    assert got[1] == plays[(d, i)][1], (game, d, i, "the stream moved otherwise")
    assert plays
