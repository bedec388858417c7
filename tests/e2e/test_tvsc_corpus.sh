#!/usr/bin/env bash
# test_tvsc_corpus.sh - every program of the corpus compiled by tvsc into a .so
# and called from C through both entries: the direct entry (a C harness linked
# against the .so, calling the prototype of the -H header) and the packed
# entry (tvs_module_load + tvs_func_call), plus `tvs run K.so`.  Graph
# functions (the relax_* programs) are compiled too: their outputs are passed
# by the caller, shaped from the metadata.
# Each result must match the numpy reference and the interpreter's
# (`tvs run FILE.tvs --target interp`).
# usage: test_tvsc_corpus.sh TVS WORKDIR   (env: TVSC, TVS_SOURCE_DIR, PYTHON3)
set -u
TVS=$1
W=$2
TVSC=${TVSC:?set TVSC to the tvsc binary}
SRC=${TVS_SOURCE_DIR:?}
PY=${PYTHON3:-/usr/bin/python3}
CC=${CC:-cc}
BUILD=$(dirname "$TVSC")
C=$SRC/tests/corpus
rm -rf "$W" && mkdir -p "$W"
W=$(cd "$W" && pwd)
JOBS=$(nproc 2>/dev/null || echo 4)
[ "$JOBS" -gt 8 ] && JOBS=8
export TVS_NUM_THREADS=2  # several programs at once: keep thread pools small
graphs=0

# Each program runs in a background job; its counts go to $W/NAME/count.
check() { # check NAME DESC cmd...
  local name=$1 desc=$2
  shift 2
  if "$@" >"$W/$name/log" 2>&1; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: $name: $desc"; sed 's/^/    /' "$W/$name/log" | head -20; return 1; fi
}

# Interpreter outputs as a reference directory compare.py can read.
as_ref() { mkdir -p "$2"; for f in "$1"/*.npy; do cp "$f" "$2/ref_$(basename "$f")"; done; }

run_one() { # run_one NAME FUNC
  local name=$1 func=$2 pass=0 fail=0
  local D=$W/$name args
  record() { echo "$pass $fail" >"$D/count"; }
  mkdir -p "$D/ref" "$D/interp" "$D/direct" "$D/packed" "$D/so"
  args=$("$PY" "$C/run_reference.py" "$name" "$D/ref") || { fail=$((fail + 1)); echo "FAIL: $name: reference"; { record; return; }; }
  inputs=()
  for a in $args; do inputs+=(--input "$a"); done
  check "$name" "tvsc" "$TVSC" "$C/$name.tvs" -o "$D/k.so" -H "$D/k.h" || { record; return; }
  check "$name" "interpreter" "$TVS" run "$C/$name.tvs" --target interp --func "$func" --output "$D/interp" "${inputs[@]}" || { record; return; }
  as_ref "$D/interp" "$D/iref"
  check "$name" "thunk from header" "$PY" "$SRC/tests/e2e/tvsc/gen_thunk.py" "$D/k.h" "$func" "$D/thunk.c" || { record; return; }
  check "$name" "build harness" "$CC" -std=c11 -Wall -Werror -I"$SRC" -I"$D" -o "$D/harness" \
    "$SRC/tests/e2e/tvsc/harness.c" "$D/thunk.c" "$D/k.so" -L"$BUILD" -ltvs_runtime -Wl,-rpath,"$BUILD" || { record; return; }
  check "$name" "direct entry" "$D/harness" direct "$D/k.so" "$func" "$D/direct" $args || { record; return; }
  check "$name" "packed entry" "$D/harness" packed "$D/k.so" "$func" "$D/packed" $args || { record; return; }
  check "$name" "tvs run k.so" "$TVS" run "$D/k.so" --func "$func" --output "$D/so" "${inputs[@]}" || { record; return; }
  for out in direct packed so; do
    check "$name" "$out vs numpy" "$PY" "$C/compare.py" "$D/ref" "$D/$out" "$name"
    check "$name" "$out vs interpreter" "$PY" "$C/compare.py" "$D/iref" "$D/$out" "$name"
  done
  record
}

for py in "$C"/*.py; do
  name=$(basename "$py" .py)
  [ -f "$C/$name.tvs" ] || continue
  func=$(sed -n 's/^FUNC = "\(.*\)"/\1/p' "$py")
  [ -n "$func" ] || continue
  grep -q "@R.function" "$C/$name.tvs" && graphs=$((graphs + 1))
  mkdir -p "$W/$name"
  run_one "$name" "$func" &
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
done
wait
pass=0 fail=0
for d in "$W"/*/; do
  if [ -f "$d/count" ]; then read -r p f <"$d/count"; pass=$((pass + p)); fail=$((fail + f));
  else fail=$((fail + 1)); echo "FAIL: $(basename "$d"): no result (crashed?)"; fi
done
echo "$(ls -d "$W"/*/ | wc -l) programs ($graphs with a graph function)"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
