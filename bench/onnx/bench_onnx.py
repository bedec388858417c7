"""bench_onnx.py - the four networks of the ONNX tests: TVS against ONNX Runtime and
PyTorch, batch 1, on 1 and 2 threads, measured in the same run.  Prints median
milliseconds per inference and the ratios TVS / ORT and TVS / PyTorch, and the
time `tvsc NET.onnx -o NET.so` takes.  Not a test: it never fails on a figure.

TVS runs the tvsc-compiled .so (`tvs run NET.so --time`, weights embedded) with
TVS_NUM_THREADS=N; ONNX Runtime with intra_op_num_threads=N (inter_op 1,
all graph optimizations); PyTorch eager with torch.set_num_threads(N), no_grad.
TVS untuned is the graph pipeline's default schedules (whatever they are at the
time of the run; see docs/onnx.md).  With --tune N, each network is also tuned
(`tvs tune NET.onnx --trials N --db NET.jsonl`, 1 thread: the tasks are its fused
kernels, each one's default schedule measured as its baseline) and compiled
with `tvsc --tuning-db`; the "tuned" column times that .so.  With
--convert-layout, each network is also compiled with `tvsc --convert-layout`
(conv2d chains in NCHW16c, docs/graph.md) and the "c-l ms" column times that
.so, so the stage is compared with the default build in the same run.

usage: .venv/bin/python bench/onnx/bench_onnx.py --tvs build/tvs --tvsc build/tvsc
           [--work DIR] [--repeat N] [--threads 1,2] [--tune TRIALS] [--convert-layout] [NET ...]"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "onnx"))
import export_models  # noqa: E402


def time_tvs(tvs, so, x, threads, repeat):
    env = dict(os.environ, TVS_NUM_THREADS=str(threads))
    r = subprocess.run([tvs, "run", so, "--input", "x=" + x, "--time", "--repeat", str(repeat)],
                       capture_output=True, text=True, env=env)
    m = re.search(r"median ([0-9.]+) ms", r.stdout + r.stderr)
    if r.returncode != 0 or not m:
        raise SystemExit("tvs run %s failed:\n%s%s" % (so, r.stdout, r.stderr))
    return float(m.group(1))


def time_calls(fn, repeat):
    fn()  # warm-up
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        ts.append((time.perf_counter() - t) * 1e3)
    return statistics.median(ts)


def time_ort(model, x, threads, repeat):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads, so.inter_op_num_threads = threads, 1
    sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
    return time_calls(lambda: sess.run(None, {"x": x}), repeat)


def time_torch(name, x, threads, repeat):
    import torch
    torch.set_num_threads(threads)
    model, _ = export_models.make(name)
    model.eval()
    xt = torch.from_numpy(x)
    with torch.no_grad():
        return time_calls(lambda: model(xt), repeat)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tvs", required=True)
    ap.add_argument("--tvsc", required=True)
    ap.add_argument("--work", default="/tmp/tvs-bench-onnx")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--tune", type=int, default=0, metavar="TRIALS",
                    help="also tune each network with this many trials and time the tuned build")
    ap.add_argument("--convert-layout", action="store_true",
                    help="also build each network with tvsc --convert-layout and time it")
    ap.add_argument("nets", nargs="*", default=export_models.NAMES)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    missing = [n for n in a.nets if not os.path.exists(os.path.join(a.work, n + ".onnx"))]
    if missing:
        subprocess.run([sys.executable, os.path.join(HERE, "..", "..", "tests", "onnx", "export_models.py"), a.work]
                       + missing, check=True)
    compile_s = {}
    tuned = {}
    converted = {}
    for n in a.nets:
        model = os.path.join(a.work, n + ".onnx")
        so = os.path.join(a.work, n + ".so")
        t = time.perf_counter()
        subprocess.run([a.tvsc, model, "-o", so], check=True)
        compile_s[n] = time.perf_counter() - t
        if a.tune:
            tuned[n] = tune(a, n, model)
        if a.convert_layout:
            converted[n] = os.path.join(a.work, n + "_cl.so")
            subprocess.run([a.tvsc, model, "--convert-layout", "-o", converted[n]], check=True)
    print("%-14s %3s %10s %10s %10s %10s %10s %8s %8s %8s" % ("network", "thr", "TVS ms", "tuned ms", "c-l ms",
                                                            "ORT ms", "torch ms", "TVS/ORT", "tun/ORT", "TVS/torch"))
    for n in a.nets:
        model, xp = os.path.join(a.work, n + ".onnx"), os.path.join(a.work, n + "_x.npy")
        so = os.path.join(a.work, n + ".so")
        x = np.load(xp)
        for th in [int(s) for s in a.threads.split(",")]:
            tv = time_tvs(a.tvs, so, xp, th, a.repeat)
            tu = time_tvs(a.tvs, tuned[n], xp, th, a.repeat) if n in tuned else float("nan")
            tc = time_tvs(a.tvs, converted[n], xp, th, a.repeat) if n in converted else float("nan")
            to = time_ort(model, x, th, a.repeat)
            tt = time_torch(n, x, th, a.repeat)
            print("%-14s %3d %10.2f %10.2f %10.2f %10.2f %10.2f %8.2f %8.2f %8.2f" % (n, th, tv, tu, tc, to, tt, tv / to,
                                                                                     tu / to, tv / tt), flush=True)
    for n, s in compile_s.items():
        print("tvsc %s.onnx -o %s.so: %.2f s" % (n, n, s))
    for n, (s, kept, total) in tune_s.items():
        print("tvs tune %s.onnx --trials %d: %.0f s; %d of %d tasks kept their default schedule" %
              (n, a.tune, s, kept, total))
    return 0


tune_s = {}


def tune(a, n, model):
    """Tunes model and builds it with the records; the .so's path."""
    db = os.path.join(a.work, n + ".jsonl")
    so = os.path.join(a.work, n + "_tuned.so")
    cmd = [a.tvs, "tune", model, "--trials", str(a.tune), "--db", db, "--seed", "1"]
    if os.path.exists(db):
        os.remove(db)  # a fresh search each run: its figures are this run's
    t = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("tvs tune %s failed:\n%s" % (model, r.stderr[-2000:]))
    secs = time.perf_counter() - t
    tasks = [ln for ln in r.stdout.splitlines() if ln.startswith("# task ")]
    tune_s[n] = (secs, sum(ln.endswith(": kept") for ln in tasks), len(tasks))
    sys.stdout.write("".join(ln + "\n" for ln in tasks if ln.endswith(": tuned")))
    subprocess.run([a.tvsc, model, "--tuning-db", db, "-o", so], check=True)
    return so


if __name__ == "__main__":
    sys.exit(main())
