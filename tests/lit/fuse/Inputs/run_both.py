"""run_both.py - a fused module computes what its input computes.

usage: run_both.py TVS TVSC ORIGINAL FUSED WORKDIR NAME=DIMS ...

DIMS is like 1x784 (a float32 tensor).  The inputs are drawn once with numpy
(seed 0) and saved as .npy files; then `tvs run` runs ORIGINAL (the graph
interpreter, high-level operators by their reference semantics) and FUSED (the
`tvs show --stage fuse-tir` text: fused prim_funcs through R.call_tir), and,
when TVSC is not '-', `tvsc ORIGINAL -o m.so` (the whole graph pipeline,
fusion included, through the native graph codegen) runs with `tvs run m.so`.
Exits 1 unless every output matches ORIGINAL's (numpy allclose)."""
import os
import subprocess
import sys

import numpy as np


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("command failed: %s\n%s%s" % (" ".join(cmd), r.stdout, r.stderr))


def main():
    tvs, tvsc, orig, fused, work = sys.argv[1:6]
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(0)
    args = []
    for spec in sys.argv[6:]:
        name, dims = spec.split("=")
        shape = tuple(int(d) for d in dims.split("x"))
        path = os.path.join(work, name + ".npy")
        np.save(path, rng.standard_normal(shape).astype("float32"))
        args += ["--input", "%s=%s" % (name, path)]
    outs = {}
    runs = [("original", [tvs, "run", orig]), ("fused", [tvs, "run", fused])]
    if tvsc != "-":
        so = os.path.join(work, "m.so")
        run([tvsc, orig, "-o", so])
        runs.append(("tvsc", [tvs, "run", so]))
    for label, cmd in runs:
        d = os.path.join(work, label)
        run(cmd + args + ["-o", d])
        outs[label] = sorted(f for f in os.listdir(d) if f.endswith(".npy"))
        outs[label] = [np.load(os.path.join(d, f)) for f in outs[label]]
    ref = outs["original"]
    for label, got in outs.items():
        if len(got) != len(ref):
            sys.exit("%s: %d outputs, original %d" % (label, len(got), len(ref)))
        for i, (a, b) in enumerate(zip(ref, got)):
            if a.shape != b.shape or not np.allclose(a, b, rtol=1e-4, atol=1e-4):
                sys.exit("%s: output %d differs from the original's (max |diff| %s)"
                         % (label, i, np.abs(a - b).max() if a.shape == b.shape else "shape"))
    print("same outputs: %s" % ", ".join("%s %d values" % (k, sum(a.size for a in v)) for k, v in outs.items()))


if __name__ == "__main__":
    main()
