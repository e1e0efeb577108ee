#!/bin/sh
# (fifty-fourth session: stopped after the two seed-2024 rows, for the seat-3 check, seat3.sh; seed 7: judge7.sh)
# The candidate under the judges: medium 8M (twice the verdict's, results/solve/judge2x/) and
# medium 4M (the verdict's, results/solve/finer*.json), each under seeds 2024 and 7. The built-in
# rows are in those files already (bench_finer skips rows it has).
cd "$(dirname "$0")/../../.." || exit 1
C=sviten:6=results/solve/med8m_sv/sviten_6.npz
run() {  # deals seed out
  .venv/bin/python -m experiments.bench_finer --games sviten:6 --abstractions medium --deals "$1" --seed "$2" \
    --no-solved --candidate "$C" --out "$3"
}
run 8388608 2024 results/solve/judge2x/finer.json
run 4194304 2024 results/solve/finer.json
run 8388608 7 results/solve/judge2x/finer_seed7.json
run 4194304 7 results/solve/finer_seed7.json
