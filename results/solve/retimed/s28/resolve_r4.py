"""Re-solve the shipped Russian 4 table whole from its record (twenty-eighth session): what
``python -m experiments.solved --full --games russian`` does for Russian 4 only (Russian 3 was
re-solved whole in the twenty-sixth session), on 2 threads, merged into resolved/resolved.json.

    .venv/bin/python results/solve/retimed/s28/resolve_r4.py
"""
import json

from experiments.solved import resolve_shipped

if __name__ == "__main__":  # (written out in full when run; the same steps, now one helper)
    print(json.dumps(resolve_shipped("russian", 4, workers=2, executor="threads"), indent=2))
