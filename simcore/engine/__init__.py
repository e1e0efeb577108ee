"""The simulation engine: dealing, seeds, the variant contract, runs, statistics."""
from .runner import analyze, compare, simulate
from .variant import Decision, Outcome, StrategyError, Table, Variant, pot_shares

__all__ = ["simulate", "compare", "analyze", "Variant", "Decision", "Outcome", "Table",
           "StrategyError", "pot_shares"]
