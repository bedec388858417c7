#!/usr/bin/env bash
# test_bounds_check.sh - --bounds-check (instrument-bound-checkers): native
# code with out-of-bounds loads and stores (constant, negative, data-dependent,
# symbolic, vector, in a parallel loop) and integer division by a run-time
# zero fails with the interpreter's message and exit 1, never a signal; it is
# on by default in `tvs run` with random inputs; a tvsc --bounds-check .so
# returns -1 with the message; in-bounds programs give identical results.
# usage: test_bounds_check.sh TVS WORKDIR   (env: TVSC, TVS_SOURCE_DIR, PYTHON3)
set -u
TVS=$1
W=$2
TVSC=${TVSC:?set TVSC to the tvsc binary}
SRC=${TVS_SOURCE_DIR:?}
PY=${PYTHON3:-/usr/bin/python3}
F=$SRC/tests/e2e/bounds/oob.tvs
rm -rf "$W" && mkdir -p "$W"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
# expect CODE "description" cmd... ; stdout+stderr saved in $W/out
expect() {
  local code=$1 desc=$2
  shift 2
  "$@" >"$W/out" 2>&1
  local rc=$?
  if [ "$rc" -eq "$code" ]; then ok; else bad "$desc: exit $rc, expected $code"; sed 's/^/    /' "$W/out" | head -20; fi
}
contains() { if grep -qF -- "$1" "$W/out"; then ok; else bad "output lacks: $1"; sed 's/^/    /' "$W/out" | head -20; fi; }
# npy FILE DTYPE(i4|f4) VALUES...: a 1-D .npy (no numpy needed)
npy() {
  "$PY" - "$@" <<'PYEOF'
import struct, sys
path, dt, vals = sys.argv[1], sys.argv[2], sys.argv[3:]
hdr = "{'descr': '<%s', 'fortran_order': False, 'shape': (%d,), }" % (dt, len(vals))
hdr += " " * (63 - (10 + len(hdr)) % 64) + "\n"
with open(path, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode())
    f.write(struct.pack("<%d%s" % (len(vals), "i" if dt == "i4" else "f"), *[(int if dt == "i4" else float)(v) for v in vals]))
PYEOF
}
npy "$W/I_oob.npy" i4 0 1 2 3 4 5 6 16
npy "$W/I_neg.npy" i4 0 1 2 -2 4 5 6 7
npy "$W/I_ok.npy" i4 7 6 5 4 3 2 1 0
npy "$W/A16.npy" f4 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15
npy "$W/A8.npy" f4 0 1 2 3 4 5 6 7
npy "$W/Ai.npy" i4 9 8 7 6 5 4 3 2
npy "$W/M0.npy" i4 3 0

# --- every kind of fault: exit 1 and the interpreter's words ------------------
run_fault() { # description, expected message, tvs run arguments...
  local desc=$1 msg=$2
  shift 2
  expect 1 "$desc" "$TVS" run "$F" --bounds-check "$@"
  contains "tvs run: error: $msg"
}
run_fault "constant index" "const_load: out-of-bounds load from buffer 'A': index [16] outside shape (16,)" --func const_load
run_fault "negative index" "neg_store: out-of-bounds store to buffer 'B': index [-1] outside shape (8,)" --func neg_store
run_fault "data-dependent load" "gather: out-of-bounds load from buffer 'A': index [16] outside shape (16,)" \
  --func gather --input A="$W/A16.npy" --input I="$W/I_oob.npy"
run_fault "data-dependent store" "scatter: out-of-bounds store to buffer 'B': index [-2] outside shape (16,)" \
  --func scatter --input A="$W/A8.npy" --input I="$W/I_neg.npy"
run_fault "symbolic size" "symbolic: out-of-bounds load from buffer 'A': index [37] outside shape (37,)" \
  --func symbolic --dim n=37
run_fault "vector (Ramp) index" "vector: out-of-bounds load from buffer 'A': index [66] outside shape (64,)" \
  --func vector --input k=3
run_fault "parallel loop" "par: out-of-bounds load from buffer 'A': index [1024] outside shape (1024,)" --func par
run_fault "division by zero" "divide: division by zero" --func divide --input d=0
run_fault "remainder by zero" "modulo: division by zero" --func modulo --input A="$W/Ai.npy" --input M="$W/M0.npy"
expect 1 "compiled graph" "$TVS" run "$SRC/tests/e2e/bounds/bad_graph_oob.tvs"
contains "tvs run: error: shift: out-of-bounds load from buffer 'A': index [8] outside shape (8,)"
# MIN / -1 does not trap: the interpreter's wrapped result
npy "$W/Amin.npy" i4 -2147483648 7 -7 0 5 -5 1 -1
expect 0 "MIN / -1 checked" "$TVS" run "$F" --func divide --bounds-check --input A="$W/Amin.npy" --input d=-1 --output "$W/mn1"
expect 0 "MIN / -1 interpreted" "$TVS" run "$F" --func divide --target interp --input A="$W/Amin.npy" --input d=-1 --output "$W/mn2"
if cmp -s "$W/mn1/B.npy" "$W/mn2/B.npy"; then ok; else bad "MIN / -1: native and interpreter differ"; fi
# the interpreter says the same about the same fault
expect 1 "interpreter" "$TVS" run "$F" --target interp --func gather --input A="$W/A16.npy" --input I="$W/I_oob.npy"
contains "error: out-of-bounds load from buffer 'A': index [16] outside shape (16,)"

# --- defaults ----------------------------------------------------------------
expect 1 "on by default with random inputs" "$TVS" run "$F" --func const_load
contains "const_load: out-of-bounds load from buffer 'A'"
expect 0 "in bounds with the flag" "$TVS" run "$F" --func gather --bounds-check --input A="$W/A16.npy" --input I="$W/I_ok.npy" --output "$W/g"
expect 0 "help" "$TVS" run --help; contains "--no-bounds-check"

# --- the stage, tvsc, the REPL -------------------------------------------------
expect 0 "show" "$TVS" show "$F" --bounds-check --stage instrument-bound-checkers
contains 'T.call_extern("handle", "tvs_out_of_bounds_message", "load from", "A"'
expect 0 "emit" "$TVSC" "$F" --func divide --bounds-check --emit instrument-bound-checkers
contains 'assert d != 0, T.call_extern("handle", "tvs_division_by_zero_message")'
expect 0 "tvsc .so" "$TVSC" "$F" --func gather --bounds-check -o "$W/g.so"
RT=$(dirname "$TVSC")/libtvs_runtime.so
expect 0 "call the .so" "$PY" "$SRC/tests/e2e/bounds/call_so.py" "$W/g.so" "$RT"
contains "rc -1"; contains "error gather: out-of-bounds load from buffer 'A': index [99] outside shape (16,)"
contains "rc 0 b 0 1 2 3 4 5 6 7"
expect 1 "tvs run of the .so" "$TVS" run "$W/g.so" --input A="$W/A16.npy" --input I="$W/I_oob.npy"
contains "gather: out-of-bounds load from buffer 'A': index [16] outside shape (16,)"
printf ':load %s\n:set bounds-check on\n:run divide --input d=0\n' "$F" >"$W/repl.txt"
expect 1 "repl" "$TVS" repl <"$W/repl.txt"; contains "bounds-check on"; contains "divide: division by zero"

# --- in-bounds programs: the same bytes with and without the checks ------------
same() { # file, extra args...
  local f=$1 name
  name=$(basename "$f" .tvs)
  shift
  expect 0 "$name checked" "$TVS" run "$f" --seed 3 --bounds-check --output "$W/on-$name" "$@"
  expect 0 "$name unchecked" "$TVS" run "$f" --seed 3 --no-bounds-check --output "$W/off-$name" "$@"
  if diff -r "$W/on-$name" "$W/off-$name" >/dev/null; then ok; else bad "$name: results differ with --bounds-check"; fi
}
same "$SRC/examples/mm_relu.tvs"
if [ -z "${TVS_TEST_QUICK:-}" ]; then # the sanitizer build: one program is enough
  same "$SRC/examples/mm_relu_scheduled.tvs"
  same "$SRC/examples/conv2d.tvs"
  same "$SRC/examples/mlp.tvs"
  same "$SRC/tests/lit/lower/mm_relu_vectorized.tvs"
fi

echo "test_bounds_check: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
