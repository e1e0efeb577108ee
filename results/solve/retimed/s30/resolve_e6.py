"""Re-solve the shipped Estonian table whole from its record (thirtieth session): what
``python -m experiments.solved --full --games estonian`` does, its three stages in turn, on the
2 cores, merged into resolved/resolved.json (whose Estonian row was its first stage alone).

    .venv/bin/python results/solve/retimed/s30/resolve_e6.py
"""
import json

from experiments.solved import resolve_shipped

if __name__ == "__main__":
    print(json.dumps(resolve_shipped("estonian", 6, workers=2, executor="processes"), indent=2))
