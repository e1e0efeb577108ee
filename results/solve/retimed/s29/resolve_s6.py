"""Re-solve the shipped Slovak table whole from its record (twenty-ninth session): what
``python -m experiments.solved --full --games slovak`` does, on 2 worker processes, merged into
resolved/resolved.json.

    .venv/bin/python results/solve/retimed/s29/resolve_s6.py
"""
import json
import os

from experiments.solved import ROOT, _merge_resolved, resolve, shipped

if __name__ == "__main__":
    out = ROOT / "results" / "solve" / "resolved"
    entry = next(e for e in shipped(["slovak"]) if e["players"] == 6)
    r = resolve(entry, out, workers=2, executor="processes")
    r["loadavg_end"] = os.getloadavg()
    print(json.dumps(r, indent=2))
    path = out / "resolved.json"
    rows = _merge_resolved(path, [r], {("slovak", 6)}, partial=True)
    path.write_text(json.dumps(rows, indent=2) + "\n")
