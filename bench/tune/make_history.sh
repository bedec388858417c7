#!/bin/bash
# make_history.sh - measures the tuning history a cost model can start from:
# random-search logs of the kernels in bench/tune/history/, none of which is
# one of compare_search.py's five.  Each log is a random sample of its
# kernel's generated space, so the model learns how features rank times,
# not what one earlier search liked.
#   bash bench/tune/make_history.sh BUILD_DIR OUT_DIR [TRIALS]
# then: compare_search.py BUILD_DIR --transfer-from OUT_DIR ...
# About 2 minutes per kernel at 128 trials on one thread.
set -euo pipefail
build=${1:?usage: make_history.sh BUILD_DIR OUT_DIR [TRIALS]}
out=${2:?usage: make_history.sh BUILD_DIR OUT_DIR [TRIALS]}
trials=${3:-128}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
for k in "$here"/history/*.tvs; do
  name=$(basename "$k" .tvs)
  echo "history: $name ($trials random trials)"
  rm -f "$out/$name.jsonl"
  "$build/tvs" tune "$k" --search random --trials "$trials" --seed 11 --threads 1 --fast-math \
    --db "$out/$name.jsonl" >"$out/$name.log" 2>&1
done
