#!/usr/bin/env python3
"""metaschedule_mm.py - TVM's MetaSchedule on the plain 1024^3 fp32 matmul, for the
side-by-side with `tvs tune` (bench/README.md, "MetaSchedule side by side").

Runs in a benchmark venv, not the project's (PyPI apache-tvm 0.27 needs
apache-tvm-ffi==0.1.14.post0):
    python3 -m venv /tmp/msvenv
    /tmp/msvenv/bin/pip install "apache-tvm==0.27.*" "apache-tvm-ffi==0.1.14.post0" cloudpickle xgboost psutil
    TVM_NUM_THREADS=1 /tmp/msvenv/bin/python bench/tune/metaschedule_mm.py --trials 64 --threads 1
Prints the tuning wall time and the tuned kernel's GFLOP/s (median of 15 runs).
The target is a dict with an explicit mcpu (LLVM's host CPU): "native" silently
falls back to generic code.
"""
import argparse
import os
import tempfile
import time

import numpy as np
import tvm
from tvm import te
from tvm.s_tir import meta_schedule as ms


def matmul(n):
    a = te.placeholder((n, n), "float32", name="A")
    b = te.placeholder((n, n), "float32", name="B")
    k = te.reduce_axis((0, n), name="k")
    c = te.compute((n, n), lambda i, j: te.sum(a[i, k] * b[k, j], axis=k), name="C")
    return te.create_prim_func([a, b, c]).with_attr("global_symbol", "mm")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=64)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--n", type=int, default=1024)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if os.environ.get("TVM_NUM_THREADS") != str(a.threads):
        raise SystemExit(f"set TVM_NUM_THREADS={a.threads} (MetaSchedule's runner and the timing read it)")
    mcpu = tvm.target.codegen.llvm_get_system_cpu()
    target = tvm.target.Target({"kind": "llvm", "mcpu": mcpu, "num-cores": a.threads})
    mod = tvm.IRModule({"mm": matmul(a.n)})
    with tempfile.TemporaryDirectory() as work:
        t0 = time.time()
        db = ms.tune_tir(mod, target, work, max_trials_global=a.trials, num_tuning_cores=1, seed=a.seed)
        tune_s = time.time() - t0
        sch = ms.tir_integration.compile_tir(db, mod, target)
    lib = tvm.compile(sch.mod, target=target).jit()
    dev = tvm.cpu()
    x = tvm.runtime.tensor(np.random.rand(a.n, a.n).astype("float32"), dev)
    y = tvm.runtime.tensor(np.random.rand(a.n, a.n).astype("float32"), dev)
    z = tvm.runtime.tensor(np.zeros((a.n, a.n), "float32"), dev)
    lib["mm"](x, y, z)
    np.testing.assert_allclose(z.numpy(), x.numpy() @ y.numpy(), rtol=1e-3, atol=1e-2)
    ev = lib.time_evaluator("mm", dev, number=1, repeat=15, min_repeat_ms=0)
    ms_med = float(np.median(ev(x, y, z).results)) * 1e3
    gf = 2.0 * a.n ** 3 / (ms_med * 1e6)
    print(f"MetaSchedule (TVM {tvm.__version__}, mcpu {mcpu}): {a.trials} trials, {a.threads} thread(s): "
          f"tuning {tune_s:.0f} s, {ms_med:.3f} ms median, {gf:.1f} GFLOP/s")


if __name__ == "__main__":
    main()
