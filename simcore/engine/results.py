"""What a run reports: :class:`SimulationResult`, :class:`ComparisonResult` and
:class:`AnalysisResult`, their tables and their JSON (``to_dict``).

Every result's JSON opens with the same header (the variant, its options,
the player count) and closes with the same run facts (interrupted,
small_sample, the stopping rule where there is one, seconds); both are
written once, in :class:`RunResult`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .match import MatchChances
from .schedule import RunInfo
from .stats import MIN_INTERVAL_DEALS, PairedStats, SeatStats, Z95, interval, rates


def json_ready(x):
    """A result as plain JSON values: NaN and infinities as None (null), numpy scalars as
    Python ones, so that strict JSON parsers accept every ``to_dict()``."""
    if isinstance(x, dict):
        return {k: json_ready(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [json_ready(v) for v in x]
    if hasattr(x, "item") and not isinstance(x, (str, bytes)):
        x = x.item()
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


class RunResult:
    """What every result shares: ``small_sample`` and the JSON document's header and run facts.

    A subclass is a dataclass with at least ``variant``, ``n_players``,
    ``options``, ``stats`` (with ``.n``) and ``info`` (a :class:`RunInfo`);
    ``precision`` and ``precision_reached`` where it has a stopping rule.
    """

    @property
    def small_sample(self) -> bool:
        """Too few deals for the intervals to mean anything (see ``stats.MIN_INTERVAL_DEALS``)."""
        return self.stats.n < MIN_INTERVAL_DEALS

    def _document(self, body: dict, *, precision: bool, after: dict | None = None) -> dict:
        """The JSON document: header, ``body``, the run facts, then ``after``; JSON-ready."""
        out = {
            "variant": self.variant,
            **(self.options or {}),
            "variant_options": dict(self.options or {}),
            "players": self.n_players,
            **body,
            "interrupted": self.info.interrupted,
            "small_sample": self.small_sample,
        }
        if getattr(self.info, "interrupted_by", None):  # a strategy raised KeyboardInterrupt: which
            out["interrupted_by"] = self.info.interrupted_by
        if precision:
            out["precision"] = self.precision
            out["precision_reached"] = self.precision_reached
        out["seconds"] = round(self.info.seconds, 3)
        out.update(after or {})
        return json_ready(out)


@dataclass
class SimulationResult(RunResult):
    variant: str
    n_players: int
    seed: int
    strategies: list[str]
    stats: SeatStats
    info: RunInfo
    unit: str = "pot share"
    hands: tuple = ("hand",)
    options: dict = None
    part_groups: dict = None
    match: MatchChances | None = None
    precision: float | None = None  # the stopping rule's half-width, if one was given
    precision_reached: bool | None = None  # None without a stopping rule
    hand_kinds: tuple = ("high",)  # per hand: "high", or "low" (the category counts against it)

    @property
    def n_deals(self) -> int:
        return self.stats.n

    def table(self):
        """Tidy per-seat table: share (mean payoff) with its interval, win and tie
        rates, the variant's parts with theirs, and match chances when asked."""
        import pandas as pd

        s = self.stats
        mean, se = s.share()
        lo, hi = interval(mean, se)
        cols = {
            "seat": np.arange(self.n_players),
            "strategy": self.strategies,
            "n": s.n,
            "share": mean,
            "stderr": se,
            "ci_low": lo,
            "ci_high": hi,
            "win_rate": rates(s.wins, s.n),
            "tie_rate": rates(s.ties, s.n),
        }
        for name in s.part_names:
            m, e = s.part(name)
            pl, ph = interval(m, e)
            cols.update({name: m, f"{name}_stderr": e, f"{name}_ci_low": pl, f"{name}_ci_high": ph})
        if self.match is not None:
            cols.update({"match_win": self.match.win, "match_stderr": self.match.stderr,
                         "match_ci_low": self.match.ci_low, "match_ci_high": self.match.ci_high})
        return pd.DataFrame(cols)

    def categories(self):
        """Final hand categories per seat (and hand) and of the winning hand, as rates."""
        import pandas as pd
        from ..evaluate import CATEGORY_NAMES

        n = self.stats.n
        frames = []
        for h, hand in enumerate(self.hands):
            df = pd.DataFrame(rates(self.stats.categories[:, h], n), columns=CATEGORY_NAMES)
            df.insert(0, "seat", [str(i) for i in range(self.n_players)])
            win = pd.DataFrame([rates(self.stats.winning[h], n)], columns=CATEGORY_NAMES)
            win.insert(0, "seat", ["winner"])
            part = pd.concat([df, win], ignore_index=True)
            if len(self.hands) > 1:
                part.insert(0, "hand", hand)
            frames.append(part)
        return pd.concat(frames, ignore_index=True)

    def to_dict(self) -> dict:
        from ..evaluate import CATEGORY_NAMES

        rows = self.table().to_dict(orient="records")
        seats = [{k: v for k, v in r.items() if k != "n"} for r in rows]  # plain values: json_ready below
        n = self.stats.n
        multi = len(self.hands) > 1

        def rate(c):  # no deal, no rate: null, not 0.0
            return int(c) / n if n else None

        for p, seat in enumerate(seats):
            cats = [{name: rate(c) for name, c in zip(CATEGORY_NAMES, self.stats.categories[p, h])}
                    for h in range(len(self.hands))]
            seat["categories"] = dict(zip(self.hands, cats)) if multi else cats[0]
            for group, names in (self.part_groups or {}).items():
                seat[group] = {name: {"share": seat[name], "stderr": seat[f"{name}_stderr"],
                                      "ci_low": seat[f"{name}_ci_low"], "ci_high": seat[f"{name}_ci_high"]}
                               for name in names}
        winning = [{name: rate(c) for name, c in zip(CATEGORY_NAMES, self.stats.winning[h])}
                   for h in range(len(self.hands))]
        after = {"threads": self.info.threads}
        if self.match is not None:
            after["match"] = {"target": self.match.target, "mean_hands": self.match.mean_hands,
                              "mean_hands_stderr": self.match.mean_hands_stderr, "exact": self.match.exact}
        return self._document({
            "deals": int(self.stats.n),
            "seed": self.seed,
            "unit": self.unit,
            "seats": seats,
            "winning_categories": dict(zip(self.hands, winning)) if multi else winning[0],
            "hands": dict(zip(self.hands, self.hand_kinds)),
        }, precision=True, after=after)


@dataclass
class ComparisonResult(RunResult):
    variant: str
    n_players: int
    seed: int
    a: str
    b: str
    field: str
    stats: PairedStats
    info: RunInfo
    seat: int = 0
    unit: str = "pot share"
    options: dict = None
    precision: float | None = None  # the stopping rule's half-width (of a - b), if one was given
    precision_reached: bool | None = None  # None without a stopping rule

    def to_dict(self) -> dict:
        mean, se = self.stats.share()
        d, dse = self.stats.diff(0, 1)
        return self._document({
            "deals": int(self.stats.n),
            "seed": self.seed,
            "seat": self.seat,
            "unit": self.unit,
            "a": self.a,
            "b": self.b,
            "field": self.field,
            "share_a": float(mean[0]),
            "stderr_a": float(se[0]),
            "ci_low_a": float(mean[0] - Z95 * se[0]),
            "ci_high_a": float(mean[0] + Z95 * se[0]),
            "share_b": float(mean[1]),
            "stderr_b": float(se[1]),
            "ci_low_b": float(mean[1] - Z95 * se[1]),
            "ci_high_b": float(mean[1] + Z95 * se[1]),
            "diff": float(d),
            "diff_stderr": float(dse),
            "diff_ci_low": float(d - Z95 * dse),
            "diff_ci_high": float(d + Z95 * dse),
        }, precision=True)

    def table(self):
        import pandas as pd

        mean, se = self.stats.share()
        lo, hi = interval(mean, se)
        d, dse = self.stats.diff(0, 1)
        return pd.DataFrame(
            {
                "policy": ["a: " + self.a, "b: " + self.b, "a - b"],
                "share": [mean[0], mean[1], d],
                "stderr": [se[0], se[1], dse],
                "ci_low": [lo[0], lo[1], d - Z95 * dse],
                "ci_high": [hi[0], hi[1], d + Z95 * dse],
            }
        )


@dataclass
class AnalysisResult(RunResult):
    variant: str
    n_players: int
    seed: int
    decision: str | None
    labels: list[str]
    stats: PairedStats
    info: RunInfo
    separated: bool
    seat: int = 0
    round: int | None = None
    unit: str = "pot share"
    options: dict = None
    conditions: tuple = ()  # what the numbers are conditioned on beyond hand and board (the header says)

    def table(self):
        """Actions sorted by share, with intervals and the paired gap to the best."""
        import pandas as pd

        mean, se = self.stats.share()
        best = int(np.argmax(mean))
        rows = []
        for a, label in enumerate(self.labels):
            d, dse = self.stats.diff(a, best)
            rows.append({
                "action": label,
                "share": mean[a],
                "stderr": se[a],
                "ci_low": mean[a] - Z95 * se[a],
                "ci_high": mean[a] + Z95 * se[a],
                "diff_vs_best": d,
                "diff_ci_low": d - Z95 * dse,
                "diff_ci_high": d + Z95 * dse,
                "win_rate": rates(self.stats.wins[a], self.stats.n)[()],
                "tie_rate": rates(self.stats.ties[a], self.stats.n)[()],
            })
        return pd.DataFrame(rows).sort_values("share", ascending=False, kind="stable").reset_index(drop=True)

    def to_dict(self) -> dict:
        options = self.table().to_dict(orient="records")  # plain values: json_ready below
        return self._document({
            "seat": self.seat,
            "decision": self.decision,
            "round": self.round,
            "unit": self.unit,
            "deals": int(self.stats.n),
            "seed": self.seed,
            "separated": bool(self.separated),
            "best": options[0]["action"] if self.stats.n else None,  # no deal, no best
            "actions_tried": len(self.labels),
            "options": options,
        }, precision=False)
