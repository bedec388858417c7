#!/usr/bin/env bash
# test_cli.sh - the `tvs` command line as a user meets it: help, version,
# misuse (exit 2 with a message), bad files and bad .npy inputs (exit 1 with a
# message), never a crash or a half-written output.
# usage: test_cli.sh TVS WORKDIR
set -u
TVS=$1
W=$2
SRC=${TVS_SOURCE_DIR:?}
PY=${PYTHON3:-/usr/bin/python3}
rm -rf "$W" && mkdir -p "$W"
pass=0 fail=0

# expect CODE "description" cmd... ; stdout+stderr saved in $W/out
expect() {
  local code=$1 desc=$2
  shift 2
  "$@" >"$W/out" 2>&1
  local rc=$?
  if [ "$rc" -eq "$code" ]; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: $desc: exit $rc, expected $code"; cat "$W/out"; fi
}
# contains "text" : the last command's output contains text
contains() {
  if grep -qF -- "$1" "$W/out"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: output lacks: $1"; cat "$W/out"; fi
}

expect 0 "help" "$TVS" --help;                        contains "usage: tvs <command>"
expect 0 "version" "$TVS" --version;                  contains "tvs 0."
expect 2 "no args" "$TVS"
expect 2 "unknown command" "$TVS" frobnicate;         contains "unknown command 'frobnicate'"
expect 2 "run without file" "$TVS" run;               contains "no input file"
expect 2 "run unknown option" "$TVS" run x.tvs --bogus; contains "unknown option '--bogus'"
expect 2 "run bad input syntax" "$TVS" run x.tvs --input A;  contains "expects NAME=VALUE"
expect 2 "run bad seed" "$TVS" run x.tvs --seed abc;  contains "--seed expects an integer"
expect 2 "run unknown target" "$TVS" run "$SRC/examples/mm_relu.tvs" --target gpu9; contains "unknown target 'gpu9'"
expect 1 "missing file" "$TVS" run "$W/nope.tvs";     contains "cannot open"
expect 2 "show unknown stage" "$TVS" show "$SRC/examples/mm_relu.tvs" --stage bogus; contains "unknown stage 'bogus'"
expect 0 "list stages" "$TVS" show --list-stages;     contains "tir"
expect 2 "equal one file" "$TVS" equal a.tvs;          contains "expected exactly two files"
expect 2 "bad diag format" "$TVS" check x.tvs --diagnostics-format=xml; contains "unknown diagnostics format"

# The bundled example runs with random inputs and prints a summary of C.
expect 0 "run example" "$TVS" run "$SRC/examples/mm_relu.tvs"; contains "C: float32 (128, 128)"
expect 1 "unknown --func" "$TVS" run "$SRC/examples/mm_relu.tvs" --func nope; contains "module has no function 'nope'"

# Native run with timing: median time and GFLOP/s counted from the IR
# (2*128^3 multiply-adds + 128^2 max = 4.21e+06 FLOP).
expect 0 "time cpu" "$TVS" run "$SRC/examples/mm_relu.tvs" --time --repeat 3; contains "mm_relu on cpu: median"
contains "4.21e+06 FLOP"
contains "GFLOP/s"
expect 0 "time interp" "$TVS" run "$SRC/examples/mm_relu.tvs" --target interp --time --repeat 1; contains "mm_relu on interp: median"
expect 2 "bad repeat" "$TVS" run "$SRC/examples/mm_relu.tvs" --time --repeat 0; contains "--repeat expects a positive integer"

# Bad .npy inputs: clear message, exit 1, no output file written.
printf 'garbage' >"$W/bad.npy"
expect 1 "garbage npy" "$TVS" run "$SRC/examples/mm_relu.tvs" --input A="$W/bad.npy" --output "$W/o1"
contains "input 'A'"
[ ! -e "$W/o1/C.npy" ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: C.npy written after an error"; }
"$PY" -c "import numpy as np; np.save('$W/a64.npy', np.zeros((64, 128), 'float32')); np.save('$W/ai.npy', np.zeros((128, 128), 'int32')); np.save('$W/b.npy', np.zeros((128, 128), 'float32'))"
expect 1 "wrong shape" "$TVS" run "$SRC/examples/mm_relu.tvs" --input A="$W/a64.npy" --input B="$W/b.npy"
contains "A"
expect 1 "wrong dtype" "$TVS" run "$SRC/examples/mm_relu.tvs" --input A="$W/ai.npy" --input B="$W/b.npy"
contains "A"
expect 1 "unknown param" "$TVS" run "$SRC/examples/mm_relu.tvs" --input Z="$W/b.npy"; contains "has no parameter 'Z'"

: >"$W/empty.tvs"
expect 1 "empty file" "$TVS" run "$W/empty.tvs"; contains "defines no function to run"

# The interpreter checks every buffer access: an out-of-bounds store is an
# error naming the buffer and the index, with the statement's location.
printf '@T.prim_func\ndef f(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):\n    for i in range(9):\n        B[i] = A[i - 1]\n' >"$W/oob.tvs"
expect 1 "out of bounds" "$TVS" run "$W/oob.tvs" --target interp
contains "out-of-bounds"
contains "oob.tvs:4:"

# Syntax errors: file:line:col, caret, exit 1; JSON form for editors.
printf 'from tvm.script import tir as T\n@T.prim_func\ndef f(A: T.Buffer((4,), "float32")):\n    for i in T.grid(4)\n        A[i] = 1.0\n' >"$W/syntax.tvs"
expect 1 "syntax error" "$TVS" check "$W/syntax.tvs";  contains "syntax.tvs:4:"
contains "^"
expect 1 "json diagnostics" "$TVS" check "$W/syntax.tvs" --diagnostics-format=json; contains '"severity":"error"'
contains '"line":4'

# One stage registry: tvs show lists every stage, tvsc --emit the same ones
# without the source stages (tokens, ast), in the same order.
TVSC=$(dirname "$TVS")/tvsc
expect 0 "show stages" "$TVS" show --list-stages; contains "tokens"; contains "legalize"; contains "asm"
awk '$1 != "tokens" && $1 != "ast" {print $1}' "$W/out" >"$W/show_stages"
if [ -x "$TVSC" ]; then
  expect 0 "tvsc stages" "$TVSC" --list-stages
  awk '{print $1}' "$W/out" >"$W/emit_stages"
  if cmp -s "$W/show_stages" "$W/emit_stages"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: tvs show and tvsc list different stages"; diff "$W/show_stages" "$W/emit_stages"; fi
fi

# Output shapes are expressions of size vars bound by --dim (n * 2, n // 2 + 1).
printf '@T.prim_func\ndef f(a: T.handle, c: T.handle, d: T.handle):\n    n = T.int32()\n    A = T.match_buffer(a, (n,), "float32")\n    C = T.match_buffer(c, (n * 2,), "float32")\n    D = T.match_buffer(d, (n // 2 + 1,), "float32")\n    for i in range(n * 2):\n        with T.block("C"):\n            vi = T.axis.spatial(n * 2, i)\n            C[vi] = A[vi // 2]\n    for i in range(n // 2 + 1):\n        with T.block("D"):\n            vi = T.axis.spatial(n // 2 + 1, i)\n            D[vi] = A[vi]\n' >"$W/symdim.tvs"
expect 0 "symbolic output shapes" "$TVS" run "$W/symdim.tvs" --dim n=7 --target interp
contains "C: float32 (14,)"; contains "D: float32 (4,)"
expect 1 "unbound size var" "$TVS" run "$W/symdim.tvs" --target interp; contains "dimension 0 is symbolic"

# Nothing silently ignored: --output creates missing parents (mkdir -p) and refuses a
# path through a file; --input without --output still shows the results; a .so
# refuses options that cannot apply to compiled code.
expect 0 "output creates parents" "$TVS" run "$SRC/examples/mm_relu.tvs" --output "$W/o/p/q"
if [ -f "$W/o/p/q/C.npy" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: no $W/o/p/q/C.npy"; fi
: >"$W/plainfile"
expect 2 "output through a file" "$TVS" run "$SRC/examples/mm_relu.tvs" --output "$W/plainfile/x"
contains "cannot create output directory '$W/plainfile/x': Not a directory"
"$PY" -c "import numpy as np; np.save('$W/a.npy', np.ones((128, 128), 'float32'))"
expect 0 "inputs without --output" "$TVS" run "$SRC/examples/mm_relu.tvs" --input A="$W/a.npy" --input B="$W/a.npy"
contains "C: float32 (128, 128) min=128 max=128 mean=128"
if [ -x "$TVSC" ] && "$TVSC" "$SRC/examples/mm_relu.tvs" -o "$W/k.so" >/dev/null 2>&1; then
  expect 0 "so timing" "$TVS" run "$W/k.so" --time --repeat 3
  contains "mm_relu in $W/k.so: median"; contains "4.21e+06 FLOP"; contains "GFLOP/s"
  expect 2 "so with interp" "$TVS" run "$W/k.so" --target interp
  contains "--target interp cannot run '$W/k.so': a .so holds native code"
  printf 'b = sch.get_block("Y")\n' >"$W/s.py"
  expect 2 "so with schedule" "$TVS" run "$W/k.so" --schedule "$W/s.py"
  contains "--schedule cannot apply to '$W/k.so': it is compiled already"
else
  fail=$((fail + 1)); echo "FAIL: tvsc could not build k.so"
fi

# --dump-after with --stage: dumps up to a pass stage, all passes before code, refused
# for stages before lowering and for a pass after the stage; a bad pass lists the names.
F="$SRC/examples/mm_relu.tvs"
expect 0 "dump up to a pass" "$TVS" show "$F" --dump-after lower-init-block --stage simplify
contains "# after lower-init-block"
expect 0 "dump before code" "$TVS" show "$F" --dump-after simplify --stage llvm
contains "# after simplify"; contains "define "
expect 2 "dump with tir" "$TVS" show "$F" --dump-after simplify --stage tir
contains "stage 'tir' comes before them"
expect 2 "dump after the stage" "$TVS" show "$F" --dump-after remove-no-op --stage simplify
contains "--dump-after remove-no-op: that pass runs after stage 'simplify'"
expect 2 "dump unknown pass" "$TVS" show "$F" --dump-after bogus
contains "available passes: all canonicalize-loop lower-init-block"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
