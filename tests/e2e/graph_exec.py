"""graph_exec.py - numpy side of test_graph_exec.sh.

  make DIR      the MLP's weights (w.npz, compressed wz.npz), an input x.npy,
                the numpy reference ref.npy and bad weight files
  compare A B   exit 0 when A.npy matches B.npy (float32 tolerance)
  profile FILE  checks the --profile table: its columns, one row per kernel
                with a shape, ms and GFLOP/s, and percentages summing to ~100
  plan FILE     checks the --memory-plan table and its totals line
"""
import re
import sys

import numpy as np


def make(d):
    r = np.random.RandomState(7)
    w = {"w0": (r.rand(784, 128) - 0.5).astype("float32"), "b0": r.rand(128).astype("float32"),
         "w1": (r.rand(128, 10) - 0.5).astype("float32"), "b1": r.rand(10).astype("float32")}
    x = r.rand(1, 784).astype("float32")
    np.savez(f"{d}/w.npz", **w)
    np.savez_compressed(f"{d}/wz.npz", **w)
    np.save(f"{d}/x.npy", x)
    ref = np.maximum(x @ w["w0"] + w["b0"], 0) @ w["w1"] + w["b1"]
    np.save(f"{d}/ref.npy", ref.astype("float32"))
    np.savez(f"{d}/w_shape.npz", **dict(w, w0=w["w0"].T.copy()))
    np.savez(f"{d}/w_dtype.npz", **dict(w, b1=w["b1"].astype("float64")))
    np.savez(f"{d}/w_missing.npz", **{k: v for k, v in w.items() if k != "w1"})
    np.savez(f"{d}/w_extra.npz", **dict(w, w2=w["b1"]))
    np.savez(f"{d}/w_x.npz", **dict(w, x=x))
    with open(f"{d}/not.npz", "w") as f:
        f.write("not a zip archive\n")


def compare(a, b):
    x, y = np.load(a), np.load(b)
    if x.shape != y.shape or x.dtype != y.dtype:
        sys.exit(f"{a}: {x.dtype}{x.shape} vs {y.dtype}{y.shape}")
    err = float(np.max(np.abs(x - y))) if x.size else 0.0
    if not np.allclose(x, y, rtol=1e-4, atol=1e-4):
        sys.exit(f"{a} differs from {b}: max abs error {err}")
    print(f"{a}: max abs error {err:.3g}")


def profile(path):
    lines = open(path).read().splitlines()
    head = [i for i, l in enumerate(lines) if l.split()[:5] == ["kernel", "shape", "ms", "%", "GFLOP/s"]]
    if len(head) != 1:
        sys.exit("no profile header (kernel shape ms % GFLOP/s)")
    rows, total = [], None
    for l in lines[head[0] + 1:]:
        if l.startswith("sum of kernels"):
            total = float(l.split()[3])
            break
        m = re.match(r"(\S+)\s+(\(.*?\))\s+([\d.]+)\s+([\d.]+)\s+(\S+)$", l)
        if not m:
            sys.exit(f"bad profile row: {l!r}")
        rows.append((m.group(1), m.group(2), float(m.group(3)), float(m.group(4)), m.group(5)))
    names = [r[0] for r in rows]
    if names != ["fused_matmul_add_relu", "fused_matmul1_add1"]:  # after FuseOps + FuseTIR
        sys.exit(f"kernels {names}")
    if [r[1] for r in rows] != ["(1, 128)", "(1, 10)"]:
        sys.exit(f"shapes {[r[1] for r in rows]}")
    pct = sum(r[3] for r in rows)
    if abs(pct - 100) > 1:
        sys.exit(f"percentages sum to {pct}")
    if total is None or abs(total - sum(r[2] for r in rows)) > 1e-3 + 0.01 * total:
        sys.exit("the sum line does not add the kernels up")
    if not any(l.startswith("whole graph: median ") for l in lines):
        sys.exit("no whole-graph line")
    float(rows[0][4])  # matmul has a FLOP count
    print(f"{len(rows)} kernels, percentages sum to {pct:.1f}")


def plan(path):
    text = open(path).read()
    m = re.search(r"planned peak (\d+) bytes \(unplanned total (\d+) bytes\)", text)
    if not m:
        sys.exit("no totals line")
    peak, total = int(m.group(1)), int(m.group(2))
    if not (0 < peak <= total):
        sys.exit(f"peak {peak}, total {total}: the plan needs more than the tensors")
    rows = re.findall(r"^(\w+)\s+\((?:\d+, )*\d+,?\)\s+(\d+)\s+(\d+|output \d+|malloc)\s+\[(\d+), (\d+)\]$", text, re.M)
    planned = [r for r in rows if r[2].isdigit()]
    if not planned:
        sys.exit("no planned intermediate row")
    if not any(r[2].startswith("output") for r in rows):
        sys.exit("the returned tensor is not an output")
    # after FuseOps the MLP keeps one intermediate (fused_matmul_add_relu's result)
    print(f"planned peak {peak}, unplanned total {total}")


if __name__ == "__main__":
    cmd = sys.argv[1]
    {"make": make, "compare": compare, "profile": profile, "plan": plan}[cmd](*sys.argv[2:])
