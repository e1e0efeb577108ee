#!/bin/bash
# Slovak in two stages, timed whole on the 2 cores (twenty-ninth session): the shipped record's
# first stage (coarse fictitious play from thoughtful, 60 x 1M), then one fine stage of one-play
# best responses, 6 x 64M, from its table (the shipped fifth stage's settings).
set -e
cd "$(dirname "$0")/../../.."
OUT=results/solve/oneplay_s6_two
date +%s > $OUT/t0
.venv/bin/python -m experiments.bench_solve --games slovak:6 --init thoughtful --confidence 0.95 --validate \
  --deals 1048576 --eval-deals 131072 --iterations 60 --dev-deals 0 --no-measure --seed 1 --out $OUT/stage1
date +%s > $OUT/t1
.venv/bin/python -m experiments.bench_solve --games slovak:6 --iterations 6 --abstraction fine --deals 67108864 \
  --eval-deals 65536 --seed 1 --init "exchange1=table:$OUT/stage1/slovak_6.npz,exchange2=table:$OUT/stage1/slovak_6.npz" \
  --confidence 0.95 --start-weight 0 --fit one-play --workers 2 --executor processes --no-measure --out $OUT
date +%s > $OUT/t2
