"""One iteration of each recorded stage of the two long solves, on N worker processes (device run).

As run in the twenty-fifth session, from the repository root of a checkout (PYTHONPATH=.):
``OUT=DIR python results/solve/retimed/s25/stages16.py 16`` writes DIR/stages16.json after each stage
(ONLY=KEY,... runs those stages alone and skips the compiling warm-up; RES=NAME names the file).
Each stage's record gives its settings, its starting tables and its first gain, which the re-run
must match (``same_gain``). The figures are in ``sixteen_cores.json`` beside this file.
"""
import json, os, sys, time, platform
T0 = time.perf_counter()
out_dir = os.environ.get("OUT", "/tmp/out")
os.makedirs(out_dir, exist_ok=True)
res_path = os.path.join(out_dir, os.environ.get("RES", "stages16.json"))
results = {"host": {"cores": os.cpu_count(), "python": platform.python_version(), "machine": platform.machine()}}

def save():
    with open(res_path, "w") as f:
        json.dump(results, f, indent=1)

def log(*a):
    print(f"[{time.perf_counter() - T0:7.1f}s]", *a, flush=True)

import numpy, numba
results["host"].update(numpy=numpy.__version__, numba=numba.__version__)
if __name__ == "__main__": log(results["host"])
from simcore.solve import solve

STAGES = [  # (key, bench, game, P)
    ("russian_4_stage3", "results/solve/fine1m3_r4/bench_russian_4.json", "russian", 4),
    ("slovak_6_stage5", "results/solve/fine64m/bench_slovak_6.json", "slovak", 6),
    ("russian_4_stage2", "results/solve/fine256k_r4/bench_russian_4.json", "russian", 4),
    ("slovak_6_stage4", "results/solve/fine3/bench_slovak_6.json", "slovak", 6),
    ("slovak_6_stage3", "results/solve/short/fine2/bench_slovak_6.json", "slovak", 6),
    ("slovak_6_stage1", "results/solve/short/bench_slovak_6.json", "slovak", 6),
    ("russian_4_stage1", "results/solve/bench_russian_4.json", "russian", 4),
]

def run(bench, game, P, executor, workers, deals=None, eval_deals=None, tag="x"):
    s = json.load(open(bench))["solve"]
    t, c = time.perf_counter(), time.process_time()
    r = solve(game, P, iterations=1, abstraction=s["abstraction"],
              deals_per_iteration=deals or s["deals_per_iteration"], eval_deals=eval_deals or s["eval_deals"],
              seed=s["seed"], init=s["init"], passes=1, confidence=s["confidence"],
              validate=bool(s.get("validate")), method=s.get("method") or "fp",
              measure_every=s.get("measure_every"), start_weight=s.get("start_weight", 1),
              keep=s.get("keep", "measured"), executor=executor, workers=workers, out=f"/tmp/dev16/{tag}")
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    rec = s["log"][0]
    return {"bench": bench, "executor": executor, "workers": workers,
            "fitting_deals": deals or s["deals_per_iteration"], "gain": r.log[0]["gain"],
            "recorded_gain": rec["gain"], "same_gain": r.log[0]["gain"] == rec["gain"],
            "seconds": round(r.log[0]["seconds"], 1), "recorded_seconds_2_threads_as_run": round(rec["seconds"], 1),
            "wall_s": round(wall, 1), "caller_cpu_s": round(cpu, 1)}

def main():
    workers = int(sys.argv[1]) if len(sys.argv) > 1 else 16
    os.makedirs("/tmp/dev16", exist_ok=True)
    # Compile (numba cache=True) in this process, small, before the timed runs.
    for key, bench, game, P in ([] if os.environ.get("ONLY") else (STAGES[0], STAGES[1])):
        t = time.perf_counter()
        run(bench, game, P, "threads", 1, deals=1 << 12, eval_deals=1 << 12, tag="warm_" + key)
        results.setdefault("warmup_s", {})[game] = round(time.perf_counter() - t, 1)
        log("warm", game, results["warmup_s"][game]); save()
    for key, bench, game, P in [s for s in STAGES if s[0] in os.environ.get("ONLY", s[0]).split(",")]:
        try:
            r = run(bench, game, P, "processes", workers, tag=key)
        except Exception as e:  # keep what the earlier stages measured
            r = {"error": repr(e)}
        results[key] = r
        log(key, r); save()
    log("done")

if __name__ == '__main__':
    main()
