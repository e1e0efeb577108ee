#!/bin/sh
# The candidate under the second judge seed (7): medium 8M (results/solve/judge2x/finer_seed7.json) and
# medium 4M (results/solve/finer_seed7.json); the built-in rows are in those files already.
cd "$(dirname "$0")/../../.." || exit 1
C=sviten:6=results/solve/med8m_sv/sviten_6.npz
for a in "8388608 results/solve/judge2x/finer_seed7.json" "4194304 results/solve/finer_seed7.json"; do
  set -- $a
  .venv/bin/python -m experiments.bench_finer --games sviten:6 --abstractions medium --deals "$1" --seed 7 \
    --no-solved --candidate "$C" --out "$2"
done
