"""test_networks.py - real networks through the importer, checked against PyTorch.

Each network is exported from torchvision / torch.nn at test set-up (fixed
seeds, random weights, no downloads: export_models.py), then run two ways and
compared with PyTorch's output (rtol 1e-4, atol 1e-4, and the output must not be
all near zero, so the tolerance is not vacuous):
  1. `tvs run NET.onnx --input x=NET_x.npy` (in-memory import, JIT)
  2. `tvsc NET.onnx -o NET.so` (weights embedded) called from C (run_model_so)
Which networks: squeezenet1_1 and transformer by default; all four with
TVS_TEST_ONNX_ALL=1; transformer only (tvs run only) with TVS_TEST_QUICK=1.
usage: python3 test_networks.py --tvs T --tvsc C --runner run_model_so --work DIR"""
import argparse
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def check(name, got_path, ref, how):
    got = np.load(got_path)
    if got.shape != ref.shape:
        print("FAIL %s (%s): shape %s, expected %s" % (name, how, got.shape, ref.shape))
        return False
    diff = np.max(np.abs(got - ref))
    ok = np.allclose(got, ref, rtol=1e-4, atol=1e-4) and np.max(np.abs(ref)) > 1e-2
    print("%s %s (%s): max abs diff %.3g (output max %.3g)" % ("ok  " if ok else "FAIL", name, how, diff,
                                                              np.max(np.abs(ref))))
    return ok


def run(cmd):
    t = time.time()
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        print("FAIL: %s\n%s%s" % (" ".join(cmd), r.stdout, r.stderr))
    return r.returncode == 0, time.time() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tvs", required=True)
    ap.add_argument("--tvsc", required=True)
    ap.add_argument("--runner", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("nets", nargs="*")
    a = ap.parse_args()
    quick = os.environ.get("TVS_TEST_QUICK") == "1"
    nets = a.nets or (["resnet18", "mobilenet_v2", "squeezenet1_1", "transformer"]
                      if os.environ.get("TVS_TEST_ONNX_ALL") == "1"
                      else ["transformer"] if quick else ["squeezenet1_1", "transformer"])
    os.makedirs(a.work, exist_ok=True)
    missing = [n for n in nets if not os.path.exists(os.path.join(a.work, n + "_ref.npy"))]
    if missing:
        r = subprocess.run([sys.executable, os.path.join(HERE, "export_models.py"), a.work] + missing,
                           capture_output=True, text=True)
        if r.returncode != 0:
            print("FAIL: exporting %s:\n%s" % (missing, r.stderr[-2000:]))
            return 1
    ok = True
    for n in nets:
        model, x = os.path.join(a.work, n + ".onnx"), os.path.join(a.work, n + "_x.npy")
        ref = np.load(os.path.join(a.work, n + "_ref.npy"))
        out = os.path.join(a.work, "out_" + n)
        good, t = run([a.tvs, "run", model, "--input", "x=" + x, "--output", out])
        ok &= good and check(n, os.path.join(out, "output.npy"), ref, "tvs run, %.1f s" % t)
        if quick:
            continue
        so = os.path.join(a.work, n + ".so")
        good, t = run([a.tvsc, model, "-o", so])
        if good:
            good, _ = run([a.runner, so, os.path.join(a.work, n + "_so.npy"), x])
        ok &= good and check(n, os.path.join(a.work, n + "_so.npy"), ref, "tvsc .so from C, compiled in %.1f s" % t)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
