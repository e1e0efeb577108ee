"""Relabel Estonian's judge rows once the 128M candidate ships (fifty-second session): the old `solved` rows by
their file, results/solve/med64m/estonian_6.npz; the candidate's rows, results/solve/med128m/estonian_6.npz, as `solved`.
Run once, then `python -m experiments.bench_finer --render --out FILE` for each file and `--annotate`."""
import json
OLD, NEW = "table:results/solve/med64m/estonian_6.npz", "table:results/solve/med128m/estonian_6.npz"
for f in ["results/solve/finer.json", "results/solve/finer_seed7.json", "results/solve/judge2x/finer.json",
          "results/solve/judge2x/finer_seed7.json"]:
    d = json.load(open(f))
    n = [0, 0]
    for r in d["rows"]:
        if r["game"] == "estonian" and r["players"] == 6:
            if r["field"] == "solved":
                r["field"] = OLD; n[0] += 1
            elif r["field"] == NEW:
                r["field"] = "solved"; n[1] += 1
    with open(f, "w") as fh:
        json.dump(d, fh, indent=2)
        fh.write("\n")
    print(f, n)
