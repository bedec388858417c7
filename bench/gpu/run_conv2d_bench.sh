#!/usr/bin/env bash
# run_conv2d_bench.sh - the GPU default schedule's direct conv2d rule
# (sched/gpu_conv2d_rule.c) on the conv2d layers of ResNet-18, batch 1, each
# a graph function conv2d + bias + relu (what FuseOps makes of a layer):
# the layer's outputs on the GPU target against the CPU target's, then the
# kernel alone timed (its scheduled prim_func, `tvs run --func ... --time`:
# kernels only, median), optionally the same with a second tvs binary (e.g.
# one without the rule: every conv2d on the fallback, one thread per output),
# and with CUDA, cuDNN's time for the same layer through PyTorch
# (bench/gpu/cudnn_conv2d.py).
# usage: run_conv2d_bench.sh TVS OUTDIR [TARGET] [PYTHON] [BASELINE_TVS]
#        (from the repository root; TARGET cuda (default) or opencl)
set -u
TVS=$1 W=$2 TARGET=${3:-cuda} PY=${4:-python3} BASE=${5:-}
mkdir -p "$W"
# name  C  H  F  K  stride  pad   (input 1 x C x H x H, weights F x C x K x K)
LAYERS="conv1_7x7s2 3 224 64 7 2 3
layer1_3x3 64 56 64 3 1 1
layer2_3x3s2 64 56 128 3 2 1
layer2_down_1x1s2 64 56 128 1 2 0
layer2_3x3 128 28 128 3 1 1
layer3_3x3 256 14 256 3 1 1
layer4_3x3 512 7 512 3 1 1"
fail=0
layer_tvs() { # layer_tvs C H F K S P: the graph function of one layer
  cat <<EOF
@R.function
def main(x: R.Tensor((1, $1, $2, $2), "float32"), w: R.Tensor(($3, $1, $4, $4), "float32"), b: R.Tensor((1, $3, 1, 1), "float32")):
    with R.dataflow():
        y = R.nn.relu(R.add(R.nn.conv2d(x, w, strides=[$5, $5], padding=[$6, $6]), b))
        R.output(y)
    return y
EOF
}
kernel_time() { # kernel_time TVS NAME: the scheduled conv2d prim_func timed alone
  "$1" show "$W/$2.tvs" --target "$TARGET" --stage lower-cross-thread-reduction >"$W/$2.sched.tvs" 2>"$W/$2.err" &&
    "$1" run "$W/$2.sched.tvs" --func fused_conv2d_add_relu --target "$TARGET" --time --repeat 50 2>&1 | head -1
}
while read -r n C H F K S P; do
  layer_tvs "$C" "$H" "$F" "$K" "$S" "$P" >"$W/$n.tvs"
  r=""
  if "$TVS" run "$W/$n.tvs" --target "$TARGET" -o "$W/$n.gpu" >"$W/$n.log" 2>&1 && "$TVS" run "$W/$n.tvs" -o "$W/$n.cpu" >/dev/null 2>&1 &&
     r=$("$PY" -c "
import sys, numpy as np
a, b = np.load(sys.argv[1] + '/output.npy'), np.load(sys.argv[2] + '/output.npy')
err = float(np.abs(a - b).max() / max(1e-30, float(np.abs(b).max())))
print('max relative difference %.2g' % err); sys.exit(0 if a.shape == b.shape and err < 1e-4 else 1)" "$W/$n.gpu" "$W/$n.cpu"); then
    echo "ok   $n ($C->$F ${K}x$K/$S, ${H}x$H) on $TARGET vs cpu: $r"
  else
    fail=$((fail + 1)); echo "FAIL $n on $TARGET: $r"; tail -3 "$W/$n.log"; continue
  fi
  echo "  rule:     $(kernel_time "$TVS" "$n")"
  [ -n "$BASE" ] && echo "  baseline: $(kernel_time "$BASE" "$n")"
  [ "$TARGET" = cuda ] && "$PY" bench/gpu/cudnn_conv2d.py "$C" "$H" "$F" "$K" "$S" "$P" 50 | sed 's/^/  /'
done <<<"$LAYERS"
[ $fail -eq 0 ]
