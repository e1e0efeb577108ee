"""Slovak exchange situations for the policy tests (test_features, test_policy_speed):
both exchanges of random deals, every seat taking a random legal action between
decisions, so that later seats see mucked cards and seats with fewer face-down
cards left. The exchanges are the variant's own rule step (``exchange_step``)."""
from __future__ import annotations

import numpy as np

from simcore.variants.slovak import exchange_step


def slovak_situations(P: int, n: int, seed: int):
    """(decision, seat, obs) over both exchanges of ``n`` deals at ``P`` players."""
    rng = np.random.default_rng(seed)
    cards = np.argsort(rng.random((n, 52)), axis=1)[:, :4 * P + 5].astype(np.int8)
    up = np.stack([cards[:, 4 * p:4 * p + 2] for p in range(P)], axis=1).copy()
    downs_left = np.full((n, P), 2, np.int8)
    mucked = np.full((n, 2 * P), -1, np.int8)
    n_mucked = np.zeros(n, np.int64)
    round1 = np.full((n, P), -1, np.int8)
    for r, decision in enumerate(("exchange1", "exchange2")):
        board = cards[:, 4 * P:4 * P + 3].copy() if r else np.full((n, 3), -1, np.int8)
        history = np.full((n, P), -1, np.int8)
        for p in range(P):
            left = downs_left[:, p].copy()
            legal = np.stack([np.ones(n, bool), left > 0, left > 0], axis=1)
            yield decision, p, {"up": up.copy(), "mucked": mucked.copy(), "downs_left": downs_left.copy(),
                                "board": board, "history": history.copy(), "round1": round1.copy(),
                                "legal": legal, "seat": p, "n_players": P, "decision": decision,
                                "variant": "slovak", "round": 0}
            drive = rng.integers(0, 3, n) * (left > 0)
            exchange_step(cards, p, drive, np.empty(0, np.int8), up, downs_left, np.empty(0, np.uint64), False,
                          np.empty(0, np.int64), False, mucked, n_mucked)
            history[:, p] = drive
        round1 = history
