"""Re-solve the Russian 4 candidate whole from its record and compare with the committed candidate table."""
import json, time, os
from pathlib import Path
import numpy as np
from experiments import solved
from strategies.table import load_table

entry = dict([x for x in solved.shipped(["russian"]) if x["players"] == 4][0])
out = Path("results/solve/conf50x2m_r4_resolved")
t0 = time.perf_counter()
r = solved.resolve(entry, out, workers=2, executor="threads", bench="results/solve/conf50x2m_r4_chain.json")
wall = time.perf_counter() - t0
with np.load(out / "russian_4.npz") as fa, np.load("results/solve/conf50x2m_r4_s3/russian_4.npz") as fb:
    keys = sorted(set(fa.files) | set(fb.files))
    same = {k: bool(k in fa.files and k in fb.files and np.array_equal(fa[k], fb[k])) for k in keys if k != "header"}
rep = {"wall_s": round(wall, 1), "settings": r["settings"], "last_gain": r["last_gain"], "last_stderr": r["last_stderr"],
       "same_arrays_as_candidate": same, "loadavg_end": os.getloadavg()}
print(json.dumps(rep, indent=1, default=str))
(out / "resolve_report.json").write_text(json.dumps(rep, indent=1, default=str))
