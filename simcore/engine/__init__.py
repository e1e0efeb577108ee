"""The simulation engine: dealing, seeds, the variant contract, play_block, runs, statistics.

It takes variant objects and resolved strategies; :mod:`simcore.api` resolves names.
"""
from .match import MatchChances, PayoffRows, match_chances, match_probabilities
from .runner import (
    Job, deal_block, map_blocks, play_block, play_tables, run_analysis, run_comparison, run_simulation, seat_streams,
)
from .variant import (
    Decision, Field, NoRollout, Option, Outcome, SharedState, StrategyError, Table, Variant, place_points, pot_shares,
)

__all__ = ["run_simulation", "run_comparison", "run_analysis", "map_blocks", "play_block", "play_tables", "deal_block",
           "seat_streams", "Job", "Variant", "Decision", "Option", "Field", "Outcome", "Table", "SharedState",
           "StrategyError", "NoRollout", "pot_shares", "place_points", "PayoffRows", "MatchChances", "match_chances",
           "match_probabilities"]
