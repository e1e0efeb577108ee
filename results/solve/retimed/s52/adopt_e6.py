"""Make the fifty-first session's whole re-solve of Estonian's 128M candidate (results/solve/med128m_resolved/,
2,317.5 s on a host x1.54 slow) the shipped table's re-solve now that the candidate ships: its stage files
copied into results/solve/resolved/ with their paths rewritten, and its row in resolved.json compared with
the shipped table again (experiments.solved.adopt_resolved).

    .venv/bin/python results/solve/retimed/s52/adopt_e6.py
"""
import json

from experiments.solved import adopt_resolved

if __name__ == "__main__":
    row = adopt_resolved("estonian", 6, "results/solve/med128m_resolved")
    print(json.dumps({k: row[k] for k in ("table", "wall_s", "compared_with", "identical_to_shipped", "same_play")},
                     indent=2))
