"""The simulation engine: dealing, seeds, the variant contract, runs, statistics."""
from .runner import Job, analyze, compare, map_blocks, simulate
from .variant import Decision, Outcome, StrategyError, Table, Variant, pot_shares

__all__ = ["simulate", "compare", "analyze", "map_blocks", "Job", "Variant", "Decision", "Outcome", "Table",
           "StrategyError", "pot_shares"]
