#!/usr/bin/env bash
# run_gpu_models.sh - whole models on a GPU target: the ONNX networks of
# tests/onnx/export_models.py (in NETDIR: NAME.onnx, NAME_x.npy, NAME_ref.npy)
# against PyTorch's outputs, and the example graph models against the CPU
# target; then each network timed (--time: the graph stepped on the host,
# every kernel's tensors copied in and out).
# usage: run_gpu_models.sh TVS NETDIR OUTDIR [TARGET] [PYTHON]   (from the repository root)
set -u
TVS=$1 NETS=$2 W=$3 TARGET=${4:-cuda} PY=${5:-python3}
mkdir -p "$W"
pass=0 fail=0
cmp() { # cmp A.npy B.npy: max |a - b| relative to max |b|
  "$PY" -c "
import sys, numpy as np
a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
err = float(np.abs(a - b).max() / max(1e-30, float(np.abs(b).max())))
print('max relative difference %.3g, argmax %s / %s' % (err, a.argmax(), b.argmax()))
sys.exit(0 if a.shape == b.shape and err < 1e-3 else 1)" "$1" "$2"
}
for onnx in "$NETS"/*.onnx; do
  n=$(basename "$onnx" .onnx)
  [ -f "$NETS/${n}_x.npy" ] || continue
  r=""
  if "$TVS" run "$onnx" --target "$TARGET" --input x="$NETS/${n}_x.npy" -o "$W/$n" >"$W/$n.log" 2>&1 &&
     r=$(cmp "$W/$n/output.npy" "$NETS/${n}_ref.npy"); then
    pass=$((pass+1)); echo "ok   $n on $TARGET vs PyTorch: $r"
  else
    fail=$((fail+1)); echo "FAIL $n on $TARGET: ${r:-}"; tail -5 "$W/$n.log"
  fi
done
for m in examples/mlp.tvs examples/models/cnn.tvs examples/models/transformer.tvs; do
  n=$(basename "$m" .tvs)
  r=""
  if "$TVS" run "$m" --target "$TARGET" -o "$W/ex_$n" >"$W/ex_$n.log" 2>&1 && "$TVS" run "$m" -o "$W/ex_${n}_cpu" >/dev/null 2>&1 &&
     r=$(cmp "$W/ex_$n/output.npy" "$W/ex_${n}_cpu/output.npy"); then
    pass=$((pass+1)); echo "ok   $m on $TARGET vs cpu: $r"
  else
    fail=$((fail+1)); echo "FAIL $m on $TARGET: ${r:-}"; tail -5 "$W/ex_$n.log"
  fi
done
echo "models on $TARGET: $pass match, $fail fail"
for onnx in "$NETS"/*.onnx; do
  n=$(basename "$onnx" .onnx)
  [ -f "$NETS/${n}_x.npy" ] && printf "%s: " "$n" && "$TVS" run "$onnx" --target "$TARGET" --input x="$NETS/${n}_x.npy" --time --repeat 5 2>&1 | head -1
done
[ $fail -eq 0 ]
