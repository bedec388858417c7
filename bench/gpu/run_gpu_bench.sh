#!/usr/bin/env bash
# run_gpu_bench.sh - on a machine with an NVIDIA GPU: every kernel of
# tests/gpu/ on --target cuda against the interpreter, then sgemm 4096^3
# (bench/gpu/sgemm.tvs, sgemm_vthread.tvs and sgemm_vec.tvs, kernels only,
# median) against cuBLAS's sgemm.
# usage: run_gpu_bench.sh TVS OUTDIR [PYTHON]   (from the repository root)
# KERNELS_ONLY=1: the kernels of tests/gpu/ only, no sgemm.
set -u
TVS=$1 W=$2 PY=${3:-python3}
mkdir -p "$W"
pass=0 fail=0
for f in tests/gpu/*.tvs; do
  n=$(basename "$f" .tvs)
  "$TVS" run "$f" --target interp -o "$W/$n.interp" >/dev/null 2>"$W/$n.err" || { echo "$n: interp failed"; cat "$W/$n.err"; fail=$((fail+1)); continue; }
  if ! "$TVS" run "$f" --target cuda -o "$W/$n.cuda" --time --repeat 5 >"$W/$n.out" 2>&1; then
    echo "FAIL $n: cuda run"; cat "$W/$n.out"; fail=$((fail+1)); continue
  fi
  if "$PY" - "$W/$n.interp" "$W/$n.cuda" <<'PYEOF'; then pass=$((pass+1)); echo "ok   $n: $(head -1 "$W/$n.out")"; else fail=$((fail+1)); echo "FAIL $n: differs"; fi
import sys, os, numpy as np
a, b = sys.argv[1], sys.argv[2]
for nm in sorted(os.listdir(a)):
    x, y = np.load(os.path.join(a, nm)), np.load(os.path.join(b, nm))
    assert x.shape == y.shape and np.allclose(x, y, rtol=1e-4, atol=1e-4), (nm, float(np.abs(x - y).max()))
PYEOF
done
echo "cuda vs interpreter: $pass kernels match, $fail fail"
[ -n "${KERNELS_ONLY:-}" ] && { [ $fail -eq 0 ]; exit; }
# sgemm 4096^3: inputs from numpy, the product checked, then timed
"$PY" -c "
import numpy as np; r = np.random.default_rng(0)
for x in 'AB': np.save('$W/%s.npy' % x, r.standard_normal((4096, 4096), dtype=np.float32))"
"$TVS" run bench/gpu/sgemm.tvs --target cuda --input A="$W/A.npy" --input B="$W/B.npy" -o "$W/sgemm" \
  --time --repeat 20 2>&1 | head -3
cp "$W/A.npy" "$W/B.npy" "$W/sgemm/" 2>/dev/null
"$PY" bench/gpu/cublas_sgemm.py 4096 20 "$W/sgemm"
# the same with virtual threads (TVM's schedule), checked the same way
"$TVS" run bench/gpu/sgemm_vthread.tvs --target cuda --input A="$W/A.npy" --input B="$W/B.npy" -o "$W/sgemm_vt" \
  --time --repeat 20 2>&1 | head -1
cp "$W/A.npy" "$W/B.npy" "$W/sgemm_vt/" 2>/dev/null
"$PY" bench/gpu/cublas_sgemm.py 4096 20 "$W/sgemm_vt" | grep "vs float64"
# the same with float4 loads and stores (bench/gpu/sgemm_vec.tvs)
"$TVS" run bench/gpu/sgemm_vec.tvs --target cuda --input A="$W/A.npy" --input B="$W/B.npy" -o "$W/sgemm_vec" \
  --time --repeat 20 2>&1 | head -1
cp "$W/A.npy" "$W/B.npy" "$W/sgemm_vec/" 2>/dev/null
"$PY" bench/gpu/cublas_sgemm.py 4096 20 "$W/sgemm_vec" | grep "vs float64"
[ $fail -eq 0 ]
