"""The first iteration of recorded solve stages, re-run on this machine's 2 cores (2 threads or processes).

As run in the twenty-sixth session, from the repository root: ``PYTHONPATH=. python
results/solve/retimed/s26/iterations.py KEY ...`` (keys of the twenty-fifth session's
``stages16.py``: russian_4_stage1, russian_4_stage2, russian_4_stage3, ..., and slovak_6_stage2) adds each stage's
figures to ``iterations.json`` beside this file (``EXECUTOR=processes``: on 2 worker processes, under
the key with ``_processes`` added). Each re-run must give its record's first gain
(``same_gain``): the same play, only faster. slovak_6_stage2, a CFR stage, runs but cannot be
compared: its run measured every 6 iterations, so its record's first gain is not one iteration's.
"""
import importlib.util
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("stages16", os.path.join(HERE, "..", "s25", "stages16.py"))
stages16 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(stages16)
# and Slovak's CFR stage, which the 16-core run left out
STAGES = stages16.STAGES + [("slovak_6_stage2", "results/solve/short/refined/bench_slovak_6.json", "slovak", 6)]


EXECUTOR = os.environ.get("EXECUTOR", "threads")  # or "processes" (2 worker processes)


def main():
    path = os.path.join(HERE, "iterations.json")
    results = json.load(open(path)) if os.path.exists(path) else {}
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = bool(subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                                capture_output=True, text=True).stdout.strip())
    os.makedirs("/tmp/dev16", exist_ok=True)
    for key in sys.argv[1:]:
        _, bench, game, P = next(s for s in STAGES if s[0] == key)
        r = stages16.run(bench, game, P, EXECUTOR, 2, tag=key)
        r["code"] = commit + (" with uncommitted changes" if dirty else "")
        results[key if EXECUTOR == "threads" else f"{key}_{EXECUTOR}"] = r
        print(key, r, flush=True)
        with open(path, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
