#!/bin/bash
# make_history.sh - measures the tuning history a cost model can start from:
# random-search logs of the kernels in bench/tune/history/, none of which is
# one of compare_search.py's five.  Each log is a random sample of its
# kernel's generated space, so the model learns how features rank times,
# not what one earlier search liked.
#   bash bench/tune/make_history.sh BUILD_DIR OUT_DIR [TRIALS]
# then: compare_search.py BUILD_DIR --history OUT_DIR ...
# About 5 minutes for the eight at 128 trials each on one thread.
set -euo pipefail
build=${1:?usage: make_history.sh BUILD_DIR OUT_DIR [TRIALS]}
out=${2:?usage: make_history.sh BUILD_DIR OUT_DIR [TRIALS]}
trials=${3:-128}
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -x "$build/tvs" ]; then
  echo "make_history.sh: no tvs in '$build' (build it first)" >&2
  exit 1
fi
mkdir -p "$out"
for k in "$here"/history/*.tvs; do
  name=$(basename "$k" .tvs)
  echo "history: $name ($trials random trials)"
  rm -f "$out/$name.jsonl"
  if ! "$build/tvs" tune "$k" --search random --trials "$trials" --seed 11 --threads 1 --fast-math \
    --db "$out/$name.jsonl" >"$out/$name.log" 2>&1; then
    echo "make_history.sh: tuning $name failed; the end of $out/$name.log:" >&2
    tail -n 3 "$out/$name.log" >&2
    exit 1
  fi
done
