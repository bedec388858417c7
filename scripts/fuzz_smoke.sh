#!/usr/bin/env bash
# fuzz_smoke.sh [BUILD_DIR] - builds every libFuzzer target (-DTVS_FUZZ=ON with
# clang-14, in a build directory of its own) and runs each for a short, fixed
# number of runs over its seed corpus, so that CI notices when a target stops
# compiling or an input the seeds reach crashes.  New inputs go to a scratch
# directory, never into the seed directories.  Skipped (exit 0) without clang.
#   FUZZ_RUNS   runs per target, the seeds included (default 1000)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-fuzz}
runs=${FUZZ_RUNS:-1000}
cc=$(command -v clang-14 || command -v clang || true)
if [ -z "$cc" ]; then
  echo "fuzz_smoke: no clang: the libFuzzer targets are not built"
  exit 0
fi
source scripts/fuzz_targets.sh
targets=("${fuzz_targets[@]}")
# No optimisation: clang compiles the instrumented sources ~7x faster than at -O2,
# and a thousand runs need no speed (campaigns: configure with CFLAGS=-O1).
CC=$cc cmake -S . -B "$dir" -G Ninja -DTVS_FUZZ=ON -DCMAKE_BUILD_TYPE= >/dev/null
cmake --build "$dir" -j "$(nproc)" --target "${targets[@]}"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
status=0
for t in "${targets[@]}"; do
  bin=$(find "$dir/" -name "$t" -type f -perm -u+x | head -1)
  mkdir -p "$scratch/$t"
  start=$(date +%s.%N)
  # shellcheck disable=SC2086
  if env "${fuzz_env[@]}" "$bin" -runs="$runs" -seed=1 "${fuzz_flags[@]}" \
       -artifact_prefix="$scratch/$t-" "$scratch/$t" ${fuzz_seeds[$t]} >"$scratch/$t.log" 2>&1; then
    printf 'fuzz_smoke: %-14s ok   %s  (%.1f s)\n' "$t" "$(grep -o 'DONE.*' "$scratch/$t.log" | tail -1)" \
      "$(echo "$(date +%s.%N) - $start" | bc)"
  else
    echo "fuzz_smoke: $t FAILED:"
    tail -40 "$scratch/$t.log"
    ls "$scratch/$t-"* 2>/dev/null && for a in "$scratch/$t-"*; do echo "--- $a"; od -c "$a" | head -20; done
    status=1
  fi
done
exit $status
