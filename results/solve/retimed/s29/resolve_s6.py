"""Re-solve the shipped Slovak table whole from its record (twenty-ninth session): what
``python -m experiments.solved --full --games slovak`` does, on 2 worker processes, merged into
resolved/resolved.json.

    .venv/bin/python results/solve/retimed/s29/resolve_s6.py
"""
import json

from experiments.solved import resolve_shipped

if __name__ == "__main__":  # (written out in full when run; the same steps, now one helper)
    print(json.dumps(resolve_shipped("slovak", 6, workers=2, executor="processes"), indent=2))
