"""Re-solve the shipped Russian 4 table whole from its record (twenty-eighth session): what
``python -m experiments.solved --full --games russian`` does for Russian 4 only (Russian 3 was
re-solved whole in the twenty-sixth session), on 2 threads, merged into resolved/resolved.json.

    .venv/bin/python results/solve/retimed/s28/resolve_r4.py
"""
import json
import os

from experiments.solved import ROOT, _merge_resolved, resolve, shipped

if __name__ == "__main__":
    out = ROOT / "results" / "solve" / "resolved"
    entry = next(e for e in shipped(["russian"]) if e["players"] == 4)
    r = resolve(entry, out, workers=2, executor="threads")
    r["loadavg_end"] = os.getloadavg()
    print(json.dumps(r, indent=2))
    path = out / "resolved.json"
    rows = _merge_resolved(path, [r], {("russian", 4)}, partial=True)
    path.write_text(json.dumps(rows, indent=2) + "\n")
