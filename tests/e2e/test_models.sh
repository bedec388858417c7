#!/usr/bin/env bash
# test_models.sh - the example networks of examples/ (the MLC MLP, the small
# CNN, the Transformer encoder block) run end to end with seeded weights from
# examples/models/make_weights.py and match PyTorch's outputs: on the
# interpreter, natively through `tvs run --params`, and as a standalone .so
# built by `tvsc --params` (weights embedded).  Their fusion and memory plans
# are checked too.
set -uo pipefail
TVS=$1
W=$2
SRC=${TVS_SOURCE_DIR:?}
TVSC=${TVSC:?}
PY=${PYTHON3:-/usr/bin/python3}
rm -rf "$W" && mkdir -p "$W"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

"$PY" "$SRC/examples/models/make_weights.py" "$W" > "$W/weights.log" 2>&1 || { cat "$W/weights.log"; echo "FAIL: make_weights.py"; exit 1; }
close() { # close OUT.npy REF.npy TOL
  "$PY" -c "import numpy as np, sys; a = np.load(sys.argv[1]); b = np.load(sys.argv[2]); e = float(np.abs(a - b).max()); print('max abs error %.3g' % e); sys.exit(0 if a.shape == b.shape and e <= float(sys.argv[3]) else 1)" "$@"
}
for m in mlp cnn transformer; do
  f="$SRC/examples/models/$m.tvs"
  [ "$m" = mlp ] && f="$SRC/examples/mlp.tvs"
  for target in cpu interp; do
    if "$TVS" run "$f" --params "$W/$m.npz" --input x="$W/${m}_x.npy" --target $target --output "$W/$m.$target" > "$W/$m.$target.log" 2>&1 &&
       close "$W/$m.$target/output.npy" "$W/${m}_ref.npy" 1e-4 >> "$W/$m.$target.log"; then ok
    else bad "$m on $target does not match PyTorch"; cat "$W/$m.$target.log"; fi
    grep -q "runs on the interpreter" "$W/$m.$target.log" && bad "$m on $target fell back to the interpreter"
  done
  if "$TVSC" "$f" --params "$W/$m.npz" -o "$W/$m.so" > "$W/$m.tvsc.log" 2>&1 &&
     "$TVS" run "$W/$m.so" --input x="$W/${m}_x.npy" --output "$W/$m.so.out" >> "$W/$m.tvsc.log" 2>&1 &&
     close "$W/$m.so.out/output.npy" "$W/${m}_ref.npy" 1e-4 >> "$W/$m.tvsc.log"; then ok
  else bad "$m as a standalone .so"; cat "$W/$m.tvsc.log"; fi
  # the memory plan never needs more than the tensors, and reuses storage in the CNN
  "$TVS" run "$f" --params "$W/$m.npz" --memory-plan > "$W/$m.plan" 2>&1
  peak=$(sed -n 's/^planned peak \([0-9]*\) bytes (unplanned total \([0-9]*\) bytes)$/\1 \2/p' "$W/$m.plan")
  if [ -n "$peak" ] && [ "${peak% *}" -le "${peak#* }" ]; then ok; else bad "$m memory plan: '$peak'"; cat "$W/$m.plan"; fi
done
grep -q "^planned peak 31360 bytes (unplanned total 47168 bytes)$" "$W/cnn.plan" && ok || bad "cnn: planned peak changed"
# fusion: conv2d + bias + relu become one kernel, as TVM's FuseOps does
"$TVS" show "$SRC/examples/models/cnn.tvs" --stage fuse-tir > "$W/cnn.fused" 2>&1
grep -q "def fused_conv2d_add_relu(" "$W/cnn.fused" && grep -q "def fused_conv2d1_add1_relu1(" "$W/cnn.fused" && ok ||
  bad "cnn: conv2d+add+relu not fused"
"$TVS" show "$SRC/examples/models/transformer.tvs" --stage fuse-tir > "$W/tr.fused" 2>&1
grep -q "def fused_" "$W/tr.fused" && ok || bad "transformer: nothing fused"
# a missing weight is a clear error
"$PY" -c "import numpy as np; d = dict(np.load('$W/cnn.npz')); d.pop('fc_b'); np.savez('$W/cnn_missing.npz', **d)"
if "$TVS" run "$SRC/examples/models/cnn.tvs" --params "$W/cnn_missing.npz" --input x="$W/cnn_x.npy" > "$W/miss.log" 2>&1; then
  bad "a missing weight was accepted"
else
  grep -q "fc_b" "$W/miss.log" && ok || { bad "the missing-weight error does not name fc_b"; cat "$W/miss.log"; }
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
