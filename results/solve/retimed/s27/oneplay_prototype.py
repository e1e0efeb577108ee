"""Prototype: every stage of the deviator fitted from one play of each deal (the deviator's other
stages play the field), against the backward stage-by-stage fit."""
import importlib
import time
from types import SimpleNamespace
from functools import partial

import numpy as np

X = importlib.import_module("simcore.exploit")
from simcore.engine import Job, Table, play_tables, policy_traits, seat_streams, map_blocks


class AllSpy:
    def __init__(self, abst, memo, rounds):
        self.abst, self.memo, self.rounds = abst, memo, rounds
        self.seen = {}

    def __call__(self, obs, rng):
        r = int(obs.get("round", 0))
        ans = self.memo(obs, rng)
        if r in self.rounds and r not in self.seen:
            b, canon = X._observe(self.abst, obs, r, *obs["legal"].shape)
            self.seen[r] = (b, canon, np.array(obs["legal"], dtype=np.bool_), ans.copy())
        return ans


class OneTask(X.FitTask):
    def __call__(self, b, n):
        job, plan = self.job, self.plan
        v, P, K = job.variant, job.n_players, plan.seat
        cards, chance, seeds = job.deal(b, n)
        brs = self._br()
        field = job.lineups[0][K]
        lineup = list(job.lineups[0])
        spies = {}
        dev = {}
        for d, (label, fn) in field.items():
            rounds = {s.round for s in plan.stages if s.decision == d}
            memo = X._Memo(fn, *X._row_view(v, d, fn, P))
            spies[d] = AllSpy(brs[d].abstraction, memo, rounds)
            dev[d] = (label, spies[d])
        lineup[K] = dev
        for s in range(P):
            if s != K:
                lineup[s] = {d: (label, fn) if set(policy_traits(fn)) - X._MEMO_TRAITS else
                             (label, X._Memo(fn, *X._row_view(v, d, fn, P)))
                             for d, (label, fn) in lineup[s].items()}
        streams = seat_streams(seeds, P)
        fresh = [X._stream_state(r) for r in streams]
        base = play_tables(v, cards, [Table(v, P, lineup, streams, {}, chance)])[0]
        moved = any(s != X._stream_state(r) for s, r in zip(fresh, streams))
        x_field = base.payoffs[:, K]
        rows = np.arange(n)
        parts = {}
        for st in plan.stages:
            A = st.n_actions
            bucket, canon, legal, f = spies[st.decision].seen[st.round]
            fc = canon[rows, f]
            alt = [(f + k) % A for k in range(1, A)]
            ok = [legal[rows, a] for a in alt]
            pay = self._alternatives(v, P, cards, chance, seeds, lineup, K, st, f, alt, ok,
                                     None if moved else fresh)
            p = parts.setdefault(st.decision, ([], [], [], [], []))
            p[0].append(bucket * A + fc); p[1].append(x_field); p[2].append(np.zeros(n))
            p[3].append(bucket); p[4].append(keys_f := bucket * A + fc)
            for a, good, x in zip(alt, ok, pay):
                if x is None:
                    continue
                p[0].append(bucket[good] * A + canon[rows[good], a[good]])
                p[1].append(x[good])
                p[2].append(x[good] - x_field[good])
        out = {}
        for d, (keys, vals, diffs, bks, fkeys) in parts.items():
            A = v.decision(d).n_actions
            nb = plan.tables[d].shape[0]
            u, cnt, tot, dif, dsq = X._sparse_sums(np.concatenate(keys), np.concatenate(vals),
                                                   np.concatenate(diffs), nb * A)
            xf = np.concatenate([x_field] * len(bks))
            ub, fcnt, ftot = X._sparse_sums(np.concatenate(bks), xf, n_keys=nb)
            ck, ccnt = X._sparse_sums(np.concatenate(fkeys), xf, n_keys=nb * A)[:2]
            out[d] = X.FitPart(nb, A, n, u, tot, dif, dsq, cnt, ub, ftot, fcnt, ck, ccnt)
        return out


def merge(acc, part):
    if acc is None or isinstance(next(iter(acc.values())), X.FitPart) and acc is part:
        pass
    if all(isinstance(x, X.FitPart) for x in acc.values()):
        acc = {d: X.FitStats(p.n_buckets, p.n_actions).add(p) for d, p in acc.items()}
    for d, p in part.items():
        acc[d].add(p)
    return acc


def fit_seat_one(v, n_players, lineup, seat, abstractions, abstraction_name, *, deals, seed, min_visits=4,
                 passes=1, confidence=0.95, start=None, block_size=1 << 14, run=None, progress=False,
                 checkpoint=None, resume=None, checkpoint_every=None, top=0, keep_stats=False, validate=False):
    P = n_players
    stages = X.play_order(v, P, lineup, seat)
    tables = {d: np.full(abstractions[d].n_buckets, -1, np.int64) for d in abstractions}
    plan = X.FitPlan(seat, stages[0], None if abstraction_name is not None else abstractions, abstraction_name,
                     tables, None, False)
    plan.stages = stages
    job = Job(v, P, [lineup], np.full(v.n_slots(P), -1, np.int8), X.derived_seed(seed, X.FIT, seat, 0, 0),
              block_size, [{}])
    t0 = time.perf_counter()
    acc, info = map_blocks(OneTask(job, plan), deals, block_size, merge, progress=progress, label="one-play",
                           seed=seed, **(run or {}))
    if all(isinstance(x, X.FitPart) for x in acc.values()):
        acc = {d: X.FitStats(p.n_buckets, p.n_actions).add(p) for d, p in acc.items()}
    print("one-play fit %.1f s" % (time.perf_counter() - t0), flush=True)
    reports = []
    for d, a in acc.items():
        chosen = X.choose(a, min_visits, confidence)
        visited = a.field_count > 0
        tables[d] = np.where(visited, chosen, tables[d])
        print(d, "visited", int(visited.sum()), "departing", int((chosen >= 0).sum()), flush=True)
        st0 = next(s for s in stages if s.decision == d)
        reports.append(SimpleNamespace(stage=st0, stats=a.counts(), departure_rate=0.0))
    return tables, reports


def install():
    X.fit_seat = fit_seat_one
