#!/usr/bin/env bash
# compile_bench.sh - compile time of a large graph: a generated graph function
# of N bindings (gen_chain.py) through every graph pass (legalize, fusion, ...),
# lowering and LLVM codegen to a shared object, untuned.  Prints the median of
# 5 runs for each N.  Goal (issue "Models, not just kernels"): 1,000 bindings
# in under 2 s.
# usage: bench/graph/compile_bench.sh [BUILD_DIR] [N ...]   (default: build 250 1000 4000)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
shift || true
sizes=${*:-250 1000 4000}
py=${PYTHON3:-/usr/bin/python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "cpu: $(lscpu | sed -n 's/^Model name: *//p')"
for n in $sizes; do
  "$py" "$here/gen_chain.py" "$n" > "$work/g$n.tvs"
  times=()
  for _ in 1 2 3 4 5; do
    s=$(date +%s.%N)
    "$build/tvsc" "$work/g$n.tvs" -o "$work/g$n.so"
    e=$(date +%s.%N)
    times+=("$(echo "$e - $s" | bc)")
  done
  med=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 3p)
  "$build/tvsc" "$work/g$n.tvs" --emit fuse-tir -o "$work/f$n.tvs"
  kernels=$(grep -c "R.call_tir" "$work/f$n.tvs" || true)
  printf '%6d bindings: median %.3f s (5 runs), %d fused kernel calls\n' "$n" "$med" "$kernels"
done
