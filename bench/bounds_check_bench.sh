#!/usr/bin/env bash
# bounds_check_bench.sh - the cost of --bounds-check: `tvs run --time` of
# 512^3 fp32 matmuls with and without the checks: mm_512 unscheduled and
# under bench_sched_matmul's schedule (tiled, packed, vectorized, parallel),
# whose checks the analyzer proves away, and mm_gather_512, whose A index
# comes from an index buffer, so every A access keeps its check.  Each
# configuration runs ROUNDS times, alternating checked and unchecked; the
# figure is the median of the runs' medians, and the ratio.
# usage: bench/bounds_check_bench.sh BUILD_DIR [ROUNDS (default 5)]
set -eu
TVS=$1/tvs
ROUNDS=${2:-5}
K=$(cd "$(dirname "$0")/kernels" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# P = 511, 510, ..., 0 as a .npy
python3 - "$T/P.npy" <<'PYEOF'
import struct, sys
hdr = "{'descr': '<i4', 'fortran_order': False, 'shape': (512,), }"
hdr += " " * (63 - (10 + len(hdr)) % 64) + "\n"
with open(sys.argv[1], "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode() + struct.pack("<512i", *range(511, -1, -1)))
PYEOF
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}'; }
one() { # args... -> the median ms `tvs run --time` prints
  "$TVS" run --time "$@" | sed -n 's/.*median \([0-9.]*\) ms.*/\1/p'
}
bench() { # label, tvs run arguments...
  local label=$1 on off
  shift
  : >"$T/on"
  : >"$T/off"
  for _ in $(seq "$ROUNDS"); do
    one "$@" --no-bounds-check >>"$T/off"
    one "$@" --bounds-check >>"$T/on"
  done
  off=$(median <"$T/off")
  on=$(median <"$T/on")
  printf '%-26s unchecked %9.3f ms  checked %9.3f ms  checked/unchecked %.2f\n' "$label" "$off" "$on" \
    "$(echo "$on / $off" | bc -l)"
}
bench "mm_512" "$K/mm_512.tvs"
bench "mm_512 scheduled" "$K/mm_512.tvs" --schedule "$K/mm_512.sched.tvs"
bench "mm_gather_512" "$K/mm_gather_512.tvs" --input P="$T/P.npy"
