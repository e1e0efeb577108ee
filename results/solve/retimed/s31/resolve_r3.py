"""Re-solve the shipped Russian 3 table whole from its record (thirty-first session): what
``python -m experiments.solved --full --games russian:3`` does, its three stages in turn, on the
2 cores, merged into resolved/resolved.json. The shipped table's first stage predates later fit
changes, so this re-solve is the table that replaces it (one a re-solve reproduces).

    .venv/bin/python results/solve/retimed/s31/resolve_r3.py
"""
import json

from experiments.solved import resolve_shipped

if __name__ == "__main__":
    print(json.dumps(resolve_shipped("russian", 3, workers=2, executor="processes"), indent=2))
