#!/usr/bin/env bash
# bounds_check_bench.sh - the cost of --bounds-check: `tvs run --time` of a
# 512^3 fp32 matmul, unscheduled and under bench_sched_matmul's schedule
# (tiled, packed, vectorized, parallel), with and without the checks.  Each
# configuration runs ROUNDS times, alternating; the figure is the median of
# the runs' medians and the ratio checked / unchecked.
# usage: bench/bounds_check_bench.sh BUILD_DIR [ROUNDS (default 5)]
set -eu
TVS=$1/tvs
ROUNDS=${2:-5}
K=$(cd "$(dirname "$0")/kernels" && pwd)
median_ms() { sort -g | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}'; }
one() { # args... -> the median ms `tvs run --time` prints
  "$TVS" run "$K/mm_512.tvs" --time "$@" | sed -n 's/.*median \([0-9.]*\) ms.*/\1/p'
}
for sched in none mm_512.sched.tvs; do
  extra=()
  [ "$sched" != none ] && extra=(--schedule "$K/$sched")
  : >/tmp/bcb.$$.on
  : >/tmp/bcb.$$.off
  for _ in $(seq "$ROUNDS"); do
    one --no-bounds-check "${extra[@]}" >>/tmp/bcb.$$.off
    one --bounds-check "${extra[@]}" >>/tmp/bcb.$$.on
  done
  off=$(median_ms </tmp/bcb.$$.off)
  on=$(median_ms </tmp/bcb.$$.on)
  printf 'mm_512 schedule=%-18s unchecked %8.2f ms  checked %8.2f ms  slowdown x%.2f\n' "$sched" "$off" "$on" \
    "$(echo "$on / $off" | bc -l)"
done
rm -f /tmp/bcb.$$.on /tmp/bcb.$$.off
