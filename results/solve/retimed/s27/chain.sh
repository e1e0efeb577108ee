#!/bin/bash
# wait for the stage-3 experiment to finish, then a whole one-play Russian 4: stage 2 and stage 3 (stage 1 as recorded)
while pgrep -f stage3.py >/dev/null; do sleep 5; done
cd /work/main
date +%s > /work/scratch/s27/chain.start
.venv/bin/python -m experiments.bench_solve --games russian:4 --method fp --abstraction fine \
  --init table:results/solve/russian_4.npz --confidence 0.95 --start-weight 0 --deals 262144 --eval-deals 65536 \
  --iterations 9 --no-measure --dev-deals 0 --fit one-play --out results/solve/oneplay_r4_s2 > /work/scratch/s27/s2.log 2>&1
date +%s > /work/scratch/s27/chain.s2
.venv/bin/python -m experiments.bench_solve --games russian:4 --method fp --abstraction fine \
  --init table:results/solve/oneplay_r4_s2/russian_4.npz --confidence 0.95 --start-weight 0 --deals 1048576 \
  --eval-deals 65536 --iterations 11 --no-measure --dev-deals 0 --fit one-play --out results/solve/oneplay_r4_s3 > /work/scratch/s27/s3.log 2>&1
date +%s > /work/scratch/s27/chain.s3
