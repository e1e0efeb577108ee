"""Re-solve the Russian 3 candidate whole from its record, timing all three stages on 2 threads, and
compare the new table with the committed candidate (experiments.solved.resolve_candidate, which this
script's body became in the fifty-first session; the run it made is the same)."""
from experiments import solved

solved.resolve_candidate("russian", 3, "results/solve/r3_2m_s3/russian_3.npz", "results/solve/r3_2m_chain.json",
                         "results/solve/r3_2m_resolved")
