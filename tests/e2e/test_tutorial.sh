#!/usr/bin/env bash
# test_tutorial.sh - docs/tutorial.md stays true: its ```tvs-repl blocks are
# typed into `tvs repl` (script mode) and the output must match the page,
# timings aside; the trace the tutorial saves must replay to the module it
# writes.
# usage: test_tutorial.sh TVS WORKDIR
set -u
TVS=$1
W=$2
SRC=${TVS_SOURCE_DIR:?}
PY=${PYTHON3:-/usr/bin/python3}
DOC=$SRC/docs/tutorial.md
rm -rf "$W" && mkdir -p "$W/examples"
cp "$SRC/examples/mm_relu.tvs" "$W/examples/"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }

"$PY" "$SRC/tests/e2e/tutorial_blocks.py" inputs "$DOC" >"$W/in.txt" && ok || ko "extracting the blocks"
[ -s "$W/in.txt" ] && ok || ko "the tutorial has no tvs-repl block"
# The tutorial shows two failing steps on purpose: --keep-going, exit 1.
(cd "$W" && "$TVS" repl examples/mm_relu.tvs --keep-going <in.txt >out.txt 2>&1)
[ $? -eq 1 ] && ok || ko "tvs repl should report the tutorial's two errors (exit 1)"
if "$PY" "$SRC/tests/e2e/tutorial_blocks.py" check "$DOC" "$W/out.txt"; then ok; else
  ko "docs/tutorial.md differs from what tvs repl prints (above; regenerate with tutorial_blocks.py fill)"; fi
(cd "$W" && "$TVS" show examples/mm_relu.tvs --schedule mm_relu_schedule.py --stage tir >replayed.tvs) && ok ||
  ko "replaying the saved trace"
(cd "$W" && "$TVS" equal replayed.tvs mm_relu_scheduled.tvs) && ok || ko "the replayed trace gives another module"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
