"""Re-solve the Russian 3 candidate whole from its record (experiments.solved.resolve), timing all three
stages on the 2 cores, and compare the new table with the committed candidate: resolve's own comparison,
given the candidate as the entry's table."""
import os
from pathlib import Path

from experiments import solved
from experiments.outputs import write_json

CANDIDATE = "results/solve/r3_2m_s3/russian_3.npz"
entry = next(x for x in solved.shipped(["russian"]) if x["players"] == 3)
out = Path("results/solve/r3_2m_resolved")
start = os.getloadavg()
r = solved.resolve(dict(entry, path=CANDIDATE, spec=f"table:{CANDIDATE}"), out, workers=2, executor="threads",
                   bench="results/solve/r3_2m_chain.json")
write_json(out / "resolve_report.json", {**r, "compared_with": CANDIDATE, "loadavg_start": start,
                                         "loadavg_end": os.getloadavg()})
