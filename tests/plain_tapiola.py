"""Tapiola Hold'em as plain Python with eval7 for the hands: an independent implementation of
the high game with every seat discarding its lowest card, that tests/test_tapiola.py compares
pvsim against deal by deal and ``python -m experiments.bench_tapiola`` times beside pvsim."""


def python_final(cards7, three, towers):
    """Best eval7 value of three cards plus one card of each tower (deal order A1 B1 A2 B2 A3 B3)."""
    import eval7

    base = [cards7[c] for c in three]
    return max(eval7.evaluate(base + [cards7[a], cards7[b]]) for a in towers[0::2] for b in towers[1::2])


def python_deal(d, n_players, last_best, cards7):
    """Pot shares of one high-game deal ``d`` (slot order of :mod:`simcore.variants.tapiola`),
    every seat discarding its lowest card, and at round 3 keeping three
    (``last_best`` False) or taking the strongest final hand (keep three on a tie)."""
    P = n_players
    centre = d[0]
    hands = [list(d[1 + 5 * p: 6 + 5 * p]) for p in range(P)]
    towers = list(d[1 + 5 * P: 7 + 5 * P])
    for _round in range(2):
        for held in hands:
            held.remove(min(held))
    values = []
    for held in hands:
        best = python_final(cards7, held, towers)
        if last_best:
            for j in range(3):
                v = python_final(cards7, [c for q, c in enumerate(held) if q != j] + [centre], towers)
                if v > best:
                    best = v
        values.append(best)
    top = max(values)
    k = values.count(top)
    return [1.0 / k if v == top else 0.0 for v in values]
