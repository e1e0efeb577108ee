#!/bin/sh
# Sviten candidate, last stage: one medium FP best response of 8M fitting deals (seat 0, one play
# of each deal), taken whole (--start-weight 0 --keep newest), from the shipped table's stage 2
# (results/solve/medium1m/sviten_6.npz, array for array the shipped strategies/solved_tables/sviten-6p.npz).
cd "$(dirname "$0")/../../.." || exit 1
T=results/solve/medium1m/sviten_6.npz
/usr/bin/time -f "%e s wall, %U s user" .venv/bin/pvsim solve sviten --players 6 --iterations 1 --deals 8388608 \
  --eval-deals 65536 --abstraction medium --fit one-play --start-weight 0 --keep newest --confidence 0.95 \
  --seed 1 --init "draw=table:$T,open=table:$T" --workers 2 --executor threads --no-progress \
  --out results/solve/med8m_sv/sviten_6.npz
