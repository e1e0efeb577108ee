"""Re-solve the Russian 4 candidate whole from its record (experiments.solved.resolve) and compare the
new table with the committed candidate, not the shipped table: resolve's own comparison, given the
candidate as the entry's table."""
import os
from pathlib import Path

from experiments import solved
from experiments.outputs import write_json

CANDIDATE = "results/solve/conf50x2m_r4_s3/russian_4.npz"
entry = next(x for x in solved.shipped(["russian"]) if x["players"] == 4)
out = Path("results/solve/conf50x2m_r4_resolved")
r = solved.resolve(dict(entry, path=CANDIDATE, spec=f"table:{CANDIDATE}"), out, workers=2, executor="threads",
                   bench="results/solve/conf50x2m_r4_chain.json")
write_json(out / "resolve_report.json", {**r, "compared_with": CANDIDATE, "loadavg_end": os.getloadavg()})
