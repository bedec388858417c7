#!/usr/bin/env bash
# test_gpu.sh - the GPU targets without a GPU: every GPU-scheduled kernel of
# tests/gpu/ runs on OpenCL (PoCL on the CPU) and matches the interpreter;
# its OpenCL C has the expected shape; --target cuda without a driver says
# so in one line and exits non-zero; the race detector finds no race once
# thread-storage-sync and lower-thread-allreduce have put their barriers in;
# every kernel's PTX passes ptxas.
# usage: test_gpu.sh TVS WORKDIR   (env: TVS_SOURCE_DIR, PYTHON3)
set -u
TVS=$1
W=$2
SRC=${TVS_SOURCE_DIR:?}
PY=${PYTHON3:-/usr/bin/python3}
rm -rf "$W" && mkdir -p "$W"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

PTXAS=$(command -v ptxas || ls /usr/local/cuda/bin/ptxas 2>/dev/null || true)
[ -n "$PTXAS" ] || echo "[SKIP] ptxas: no CUDA toolkit"
opencl=1
"$TVS" run "$SRC/tests/gpu/ewise.tvs" --target opencl >"$W/probe" 2>&1 || opencl=0
if [ $opencl = 0 ]; then echo "[SKIP] OpenCL runs: $(head -1 "$W/probe")"; fi

for f in "$SRC"/tests/gpu/*.tvs; do
  n=$(basename "$f" .tvs)
  case $n in bad_*) continue ;; esac
  if ! "$TVS" run "$f" --target interp -o "$W/$n.interp" >"$W/out" 2>&1; then bad "$n: interp"; cat "$W/out"; continue; fi
  if ! "$TVS" show "$f" --target opencl --stage opencl >"$W/$n.cl" 2>&1; then bad "$n: opencl source"; head "$W/$n.cl"; continue; fi
  grep -q "__kernel void ${n}_kernel" "$W/$n.cl" && ok || bad "$n: no __kernel ${n}_kernel"
  # the CUDA form: PTX from LLVM's NVPTX backend, checked by ptxas when the toolkit is here
  if ! "$TVS" show "$f" --target cuda --stage ptx >"$W/$n.ptx" 2>&1; then bad "$n: ptx"; head "$W/$n.ptx"; continue; fi
  if [ -n "$PTXAS" ]; then
    "$PTXAS" -arch=sm_80 "$W/$n.ptx" -o "$W/$n.cubin" >"$W/out" 2>&1 && ok || { bad "$n: ptxas rejects the PTX"; head "$W/out"; }
  fi
  # the race detector: no read of another thread's shared write without a barrier
  "$TVS" run "$f" --target interp --check-races lower-thread-allreduce >"$W/out" 2>&1 && grep -q "no data race" "$W/out" && ok ||
    { bad "$n: race check"; cat "$W/out"; }
  [ $opencl = 1 ] || continue
  if ! "$TVS" run "$f" --target opencl -o "$W/$n.ocl" >"$W/out" 2>&1; then bad "$n: opencl run"; cat "$W/out"; continue; fi
  if "$PY" - "$W/$n.interp" "$W/$n.ocl" <<'PYEOF'; then ok; else bad "$n: opencl differs from the interpreter"; fi
import sys, os, numpy as np
a, b = sys.argv[1], sys.argv[2]
names = sorted(os.listdir(a))
assert names and names == sorted(os.listdir(b)), (names, os.listdir(b))
for nm in names:
    x, y = np.load(os.path.join(a, nm)), np.load(os.path.join(b, nm))
    assert x.shape == y.shape and np.allclose(x, y, rtol=1e-4, atol=1e-4), (nm, np.abs(x - y).max())
PYEOF
done

# Graph functions on a GPU target: default GPU schedules (dlight's fallback),
# the graph stepped on the host, every kernel on the device; the CNN's
# outputs equal the CPU target's, its PTX (all kernels) passes ptxas.
for m in mlp models/cnn; do
  n=$(basename $m)
  "$TVS" run "$SRC/examples/$m.tvs" -o "$W/g_$n.cpu" >/dev/null 2>&1 || bad "graph $n: cpu run"
  "$TVS" show "$SRC/examples/$m.tvs" --target cuda --stage ptx >"$W/g_$n.ptx" 2>"$W/out" &&
    [ "$(grep -c '^.visible .entry' "$W/g_$n.ptx")" -ge 2 ] && ok || { bad "graph $n: ptx"; head "$W/out"; }
  if [ -n "$PTXAS" ]; then
    "$PTXAS" -arch=sm_80 "$W/g_$n.ptx" -o "$W/g_$n.cubin" >"$W/out" 2>&1 && ok || { bad "graph $n: ptxas"; head "$W/out"; }
  fi
  [ $opencl = 1 ] || continue
  if "$TVS" run "$SRC/examples/$m.tvs" --target opencl -o "$W/g_$n.ocl" >"$W/out" 2>&1 &&
     "$PY" -c "
import sys, numpy as np
a, b = np.load(sys.argv[1] + '/output.npy'), np.load(sys.argv[2] + '/output.npy')
assert a.shape == b.shape and np.allclose(a, b, rtol=1e-4, atol=1e-4), float(np.abs(a - b).max())" "$W/g_$n.ocl" "$W/g_$n.cpu"
  then ok; else bad "graph $n: opencl differs from cpu"; cat "$W/out"; fi
done

# CUDA without a driver: one clear line, non-zero exit (with one: it runs).
if [ ! -e /dev/nvidiactl ]; then
  "$TVS" run "$SRC/tests/gpu/ewise.tvs" --target cuda >"$W/out" 2>&1
  rc=$?
  [ $rc -ne 0 ] && grep -q "^tvs run: error: no CUDA driver" "$W/out" && [ "$(wc -l <"$W/out")" -eq 1 ] && ok ||
    { bad "cuda without a driver: rc=$rc"; cat "$W/out"; }
fi

echo "gpu: $pass passed, $fail failed"
[ $fail -eq 0 ]
