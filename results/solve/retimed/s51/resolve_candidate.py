"""Re-solve the Estonian candidate (its last stage one medium FP BR of 128M fitting deals taken whole)
whole from its chain record, timing all three stages on 2 threads, and compare the new table with the
candidate's file (experiments.solved.resolve_candidate)."""
from experiments import solved

solved.resolve_candidate("estonian", 6, "results/solve/med128m/estonian_6.npz", "results/solve/med128m_e6_chain.json",
                         "results/solve/med128m_resolved")
