#!/bin/sh
# The candidate's BR at each seat named (default 1 2 4 5) under the 4M judge's settings, as seat3.sh
# for seat 3 (the shipped table's rows are in results/solve/seats.json).
cd "$(dirname "$0")/../../.." || exit 1
for K in ${*:-1 2 4 5}; do
  /usr/bin/time -f "%e s wall" .venv/bin/pvsim exploit sviten -n 6 --field table:results/solve/med8m_sv/sviten_6.npz \
    --seat "$K" --abstraction medium --deals 4194304 --eval-deals 262144 --passes 1 --rollout 0 --seed 2024 --workers 2 \
    --no-progress --json > "results/solve/med8m_sv/seat${K}_4m.json" 2> "results/solve/med8m_sv/seat${K}_4m.err"
done
