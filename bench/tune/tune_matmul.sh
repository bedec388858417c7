#!/usr/bin/env bash
# tune_matmul.sh - the auto-tuner on the plain 1024^3 fp32 matmul
# (bench/kernels/mm_1024.tvs, no schedule): `tvs tune` for 1 and 2 threads,
# then the tuned kernels, the untuned one and oneDNN / OpenBLAS timed in
# bench_matmul runs (medians).  Not a test: it prints figures.
# usage: bench/tune/tune_matmul.sh BUILD_DIR [TRIALS] [OUT_DIR]
#   BUILD_DIR needs the tvs and bench_matmul targets (a Release build).
set -eu
B=$(realpath "$1")
TRIALS=${2:-64}
OUT=${3:-$B/bench-tune}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
K=$SRC/bench/kernels/mm_1024.tvs
mkdir -p "$OUT"
unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
for t in 1 2; do
  db=$OUT/mm1024_t$t.jsonl
  rm -f "$db"
  start=$(date +%s.%N)
  # --fast-math: candidates compiled as bench_matmul compiles kernels (FMA).
  "$B/tvs" tune "$K" --trials "$TRIALS" --threads $t --fast-math --seed 1 --db "$db" \
    --plot "$OUT/mm1024_t$t.svg" -o "$OUT/mm1024_t$t.sch.tvs" > "$OUT/mm1024_t$t.txt" 2> "$OUT/mm1024_t$t.log"
  end=$(date +%s.%N)
  echo "tune, $t thread(s): $(head -1 "$OUT/mm1024_t$t.txt") [tuning wall time $(echo "$end - $start" | bc) s]"
  "$B/tvs" show "$K" --schedule "$OUT/mm1024_t$t.sch.tvs" > "$OUT/mm1024_tuned_t$t.tvs"
done
echo "== tuned for 1 thread, timed with 1 thread, vs oneDNN and OpenBLAS"
"$B/bench/bench_matmul" --kernel "$OUT/mm1024_tuned_t1.tvs" --threads 1 | tail -8
echo "== tuned for 2 threads, timed with 2 threads, vs oneDNN and OpenBLAS"
"$B/bench/bench_matmul" --kernel "$OUT/mm1024_tuned_t2.tvs" --threads 2 | tail -8
echo "== untuned (the plain loop nest)"
"$B/bench/bench_matmul" --kernel "$K" --threads 1,2 --tvs-only --reps 3 | tail -7
