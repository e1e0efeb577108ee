"""The simulation engine: dealing, seeds, the variant contract, blocks, scheduling, runs, statistics.

It takes variant objects and resolved strategies; :mod:`simcore.api` resolves names.
"""
from .alternatives import AlternativesTask, map_alternatives, merge_parts
from .match import MatchChances, PayoffRows, match_chances, match_probabilities
from .blocks import Job, deal_block, play_block, play_tables, seat_streams
from .runner import run_analysis, run_comparison, run_simulation
from .schedule import map_blocks
from .variant import (
    Decision, Field, NoRollout, Option, Outcome, SharedState, StrategyError, Table, Variant, place_points, pot_shares,
)
from .variant import (  # a game as data: its slots, situations, observations, policy traits
    REST, MissingHook, Obs, Situation, SlotLayout, Slots, is_pure, policy_traits, private, public, with_traits,
)

__all__ = ["run_simulation", "run_comparison", "run_analysis", "map_blocks", "map_alternatives", "AlternativesTask",
           "merge_parts", "play_block", "play_tables", "deal_block",
           "seat_streams", "Job", "Variant", "Decision", "Option", "Field", "Outcome", "Table", "SharedState",
           "StrategyError", "NoRollout", "pot_shares", "place_points", "PayoffRows", "MatchChances", "match_chances",
           "match_probabilities", "Situation", "SlotLayout", "Slots", "private", "public", "REST", "Obs",
           "MissingHook", "is_pure", "policy_traits", "with_traits"]
