"""The first iteration of recorded solve stages, re-run on this machine's 2 cores (2 threads).

As run in the twenty-sixth session, from the repository root: ``PYTHONPATH=. python
results/solve/retimed/s26/iterations.py KEY ...`` (keys of the twenty-fifth session's
``stages16.py``: russian_4_stage1, russian_4_stage2, russian_4_stage3, ...) adds each stage's
figures to ``iterations.json`` beside this file. Each re-run must give its record's first gain
(``same_gain``): the same play, only faster.
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


def main():
    path = os.path.join(HERE, "iterations.json")
    results = json.load(open(path)) if os.path.exists(path) else {}
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = bool(subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                                capture_output=True, text=True).stdout.strip())
    os.makedirs("/tmp/dev16", exist_ok=True)
    for key in sys.argv[1:]:
        _, bench, game, P = next(s for s in stages16.STAGES if s[0] == key)
        r = stages16.run(bench, game, P, "threads", 2, tag=key)
        r["code"] = commit + (" with uncommitted changes" if dirty else "")
        results[key] = r
        print(key, r, flush=True)
        with open(path, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
