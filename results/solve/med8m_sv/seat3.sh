#!/bin/sh
# The candidate's seat-3 BR under the 4M judge's settings (the shipped table's is in results/solve/seats.json).
cd "$(dirname "$0")/../../.." || exit 1
/usr/bin/time -f "%e s wall" .venv/bin/pvsim exploit sviten -n 6 --field table:results/solve/med8m_sv/sviten_6.npz --seat 3 \
  --abstraction medium --deals 4194304 --eval-deals 262144 --passes 1 --rollout 0 --seed 2024 --workers 2 --no-progress --json \
  > results/solve/med8m_sv/seat3_4m.json 2> results/solve/med8m_sv/seat3_4m.err
