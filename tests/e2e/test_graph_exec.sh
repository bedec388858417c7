#!/usr/bin/env bash
# test_graph_exec.sh - graph functions run natively with weights: `tvs run
# --params w.npz` against numpy, `tvsc --params` embedding the weights (the
# .so then takes only x), bad weight files (clear error, exit 1), the
# interpreter fallback note, --profile's table and --memory-plan's totals.
# usage: test_graph_exec.sh TVS WORKDIR   (env: TVSC, TVS_SOURCE_DIR, PYTHON3)
set -u
TVS=$1
W=$2
TVSC=${TVSC:?set TVSC to the tvsc binary}
SRC=${TVS_SOURCE_DIR:?}
PY=${PYTHON3:-/usr/bin/python3}
H="$PY $SRC/tests/e2e/graph_exec.py"
MLP=$SRC/examples/mlp.tvs
rm -rf "$W" && mkdir -p "$W"
W=$(cd "$W" && pwd)
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
lacks() { if grep -qF -- "$1" "$W/out"; then bad "output has: $1"; sed 's/^/    /' "$W/out" | head -20; else ok; fi; }

$H make "$W" || { echo "FAIL: cannot build the weights with numpy"; exit 1; }

# --- tvs run --params: native, compressed, interpreter --------------------------
expect 0 "run --params" "$TVS" run "$MLP" --params "$W/w.npz" --input x="$W/x.npy" -o "$W/native"
lacks "note:"   # the whole graph compiles: no fallback
expect 0 "native vs numpy" $H compare "$W/native/output.npy" "$W/ref.npy"
expect 0 "run --params (deflated npz)" "$TVS" run "$MLP" --params "$W/wz.npz" --input x="$W/x.npy" -o "$W/z"
expect 0 "deflated vs numpy" $H compare "$W/z/output.npy" "$W/ref.npy"
expect 0 "run --input w.npz" "$TVS" run "$MLP" --input "$W/w.npz" --input x="$W/x.npy" -o "$W/alias"
expect 0 "--input w.npz vs numpy" $H compare "$W/alias/output.npy" "$W/ref.npy"
expect 0 "run --target interp" "$TVS" run "$MLP" --params "$W/w.npz" --input x="$W/x.npy" --target interp -o "$W/interp"
expect 0 "interp vs numpy" $H compare "$W/interp/output.npy" "$W/ref.npy"

# --- tvsc --params: weights embedded, the .so takes x only ----------------------
expect 0 "tvsc --params" "$TVSC" "$MLP" --params "$W/w.npz" -o "$W/mlp.so" -H "$W/mlp.h"
cp "$W/mlp.h" "$W/out"
contains "float *x, /* tensor param 0: float32[1, 784] */"
contains "float *output); /* tensor param 1: float32[1, 10], output */"
lacks "float *w0"
expect 0 "run the .so with x only" "$TVS" run "$W/mlp.so" --input x="$W/x.npy" -o "$W/so"
expect 0 ".so vs numpy" $H compare "$W/so/output.npy" "$W/ref.npy"
expect 1 ".so has no w0 param" "$TVS" run "$W/mlp.so" --input x="$W/x.npy" --input w0="$W/x.npy"
contains "has no parameter 'w0'"
"$TVSC" "$MLP" --params "$W/w.npz" --emit llvm-unopt >"$W/out" 2>&1
contains "private constant [401408 x i8]"
contains "align 64"
# a .so built without weights takes them at run time from --params
expect 0 "tvsc without --params" "$TVSC" "$MLP" -o "$W/plain.so"
expect 0 "run .so --params" "$TVS" run "$W/plain.so" --params "$W/w.npz" --input x="$W/x.npy" -o "$W/plain"
expect 0 "plain .so vs numpy" $H compare "$W/plain/output.npy" "$W/ref.npy"

# --- bad weight files --------------------------------------------------------------
expect 1 "wrong shape" "$TVS" run "$MLP" --params "$W/w_shape.npz" --input x="$W/x.npy"
contains "tvs run: error: --params $W/w_shape.npz: parameter 'w0' has shape (784, 128) but the file has (128, 784)"
expect 1 "wrong dtype" "$TVS" run "$MLP" --params "$W/w_dtype.npz" --input x="$W/x.npy"
contains "parameter 'b1' has dtype float32 but the file has float64"
expect 1 "missing weight" "$TVS" run "$MLP" --params "$W/w_missing.npz" --input x="$W/x.npy"
contains "missing --input for parameter 'w1' (--params $W/w_missing.npz has no 'w1')"
expect 1 "extra weight" "$TVS" run "$MLP" --params "$W/w_extra.npz" --input x="$W/x.npy"
contains "'w2' is not a parameter of 'main'"
expect 1 "weight also an input" "$TVS" run "$MLP" --params "$W/w_x.npz" --input x="$W/x.npy"
contains "parameter 'x' is given both by --input and by --params"
expect 1 "not an npz" "$TVS" run "$MLP" --params "$W/not.npz" --input x="$W/x.npy"
contains "tvs run: error: --params $W/not.npz: not a .npz file"
expect 1 "no such file" "$TVS" run "$MLP" --params "$W/none.npz" --input x="$W/x.npy"
contains "--params $W/none.npz: cannot open"
expect 1 "tvsc wrong shape" "$TVSC" "$MLP" --params "$W/w_shape.npz" -o "$W/bad.so"
contains "tvsc: error: --params $W/w_shape.npz: parameter 'w0' has shape (784, 128) but the file has (128, 784)"
if [ -e "$W/bad.so" ]; then bad "bad.so written"; else ok; fi
expect 1 "tvsc not an npz" "$TVSC" "$MLP" --params "$W/not.npz" -o "$W/bad.so"
contains "not a .npz file"
expect 1 "--params on a prim_func" "$TVS" run "$SRC/examples/mm_relu.tvs" --params "$W/w.npz"
contains "is a prim_func"

# --- --profile and --memory-plan ---------------------------------------------------
expect 0 "--profile" "$TVS" run "$MLP" --params "$W/w.npz" --input x="$W/x.npy" --profile --repeat 5
cp "$W/out" "$W/profile.txt"
expect 0 "profile table" $H profile "$W/profile.txt"
expect 0 "--memory-plan" "$TVS" run "$MLP" --memory-plan
contains "planned peak 512 bytes (unplanned total 512 bytes)"
cp "$W/out" "$W/plan.txt"
expect 0 "memory plan table" $H plan "$W/plan.txt"
expect 2 "--profile on a .so" "$TVS" run "$W/mlp.so" --profile
contains "--profile needs the graph itself"
expect 1 "--profile on a prim_func" "$TVS" run "$SRC/examples/mm_relu.tvs" --profile
contains "applies to graph functions"

# --- a graph the compiler does not take: the interpreter, with a note ---------------
cat >"$W/mc.tvs" <<'TVS'
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4), "float32")) -> R.Tensor(ndim=2, dtype="float32"):
        n = T.int64()
        with R.dataflow():
            y = R.match_cast(x, R.Tensor((n, 4), "float32"))
            z = R.nn.relu(y)
            R.output(z)
        return z
TVS
expect 0 "fallback" "$TVS" run "$W/mc.tvs"
contains "tvs run: note: 'main' runs on the interpreter, its prim_funcs natively: R.match_cast is not compiled"
contains "output: float32 (2, 4)"
expect 1 "--profile needs the compiled graph" "$TVS" run "$W/mc.tvs" --profile
contains "does not compile"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
