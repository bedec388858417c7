"""conformance.py - ONNX's backend node tests through `tvs run MODEL.onnx`.

Each test directory holds model.onnx and test_data_set_*/{input,output}_*.pb
(Debian's libonnx-testdata).  Every test is imported and run on the cpu target
with its inputs; the outputs are compared with the expected ones (rtol 1e-3,
atol 1e-5, as ONNX's own backend runner).  A test is
  passed       every output matches
  frozen       passed once the runner made the integer, 0-d and (after the
               first) 1-D inputs initializers (the importer needs shapes, axes, pads... at import
               time; TVM's ONNX tests freeze such inputs the same way)
  unsupported  the importer names an op, opset or attribute it does not support
  failed       anything else (wrong values, an error) -- crash: killed by a signal
               or a sanitizer report (the ASan build)
The table gives the counts per op type and the total; the exit status is 1 when
fewer than --min-pass tests pass or any test crashes.

usage: python3 conformance.py --tvs build/tvs [--data DIR] [--min-pass N]
           [--sample N] [--quick-sample N --quick-min-pass N] [--jobs N] [--filter SUBSTR] [-v]"""
import argparse
import collections
import concurrent.futures
import glob
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

DEFAULT_DATA = "/usr/share/libonnx-testdata/data/node"


def read_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def op_of(model_path):
    """The op a test exercises: the model's single op type, or the last node's for expanded tests."""
    m = onnx.load(model_path, load_external_data=False)
    ops = [n.op_type for n in m.graph.node]
    inputs = [i.name for i in m.graph.input if i.name not in {t.name for t in m.graph.initializer}]
    return (ops[0] if len(set(ops)) == 1 else "(composite)") if ops else "(empty)", inputs


def freeze(model, inputs, ins, path):
    """A copy of the model whose integer, 0-d and (after the first) 1-D inputs are initializers."""
    m = onnx.load(model, load_external_data=False)
    keep = []
    for name, p in zip(inputs, ins):
        a = read_pb(p)
        if a.dtype.kind in "iub" or a.ndim == 0 or (a.ndim == 1 and name != inputs[0]):
            m.graph.initializer.append(numpy_helper.from_array(a, name))
            for i, vi in enumerate(m.graph.input):
                if vi.name == name:
                    del m.graph.input[i]
                    break
        else:
            keep.append(name)
    onnx.save(m, path)
    return keep


def run_one(tvs, test_dir, timeout):
    op, kind, why = run_model(tvs, test_dir, timeout, False)
    if kind == "failed" and "known at import time" in why:
        op, kind, why = run_model(tvs, test_dir, timeout, True)
        if kind == "passed":
            kind = "frozen"
    return op, kind, why


def run_model(tvs, test_dir, timeout, frozen):
    model = os.path.join(test_dir, "model.onnx")
    try:
        op, inputs = op_of(model)
    except Exception as e:  # the python reader itself fails: not a test we can judge
        return "(unreadable)", "failed", "python onnx: %s" % e
    sets = sorted(glob.glob(os.path.join(test_dir, "test_data_set_*")))
    if not sets:
        return op, "failed", "no test data"
    with tempfile.TemporaryDirectory(prefix="tvs-onnx-") as tmp:
        for ds in sets[:1]:
            ins = sorted(glob.glob(os.path.join(ds, "input_*.pb")), key=lambda p: int(p.rsplit("_", 1)[1][:-3]))
            outs = sorted(glob.glob(os.path.join(ds, "output_*.pb")), key=lambda p: int(p.rsplit("_", 1)[1][:-3]))
            args = [tvs, "run", model, "--output", tmp]
            pairs = list(zip(inputs, ins))
            if frozen:
                args[2] = os.path.join(tmp, "frozen.onnx")
                keep = freeze(model, inputs, ins, args[2])
                pairs = [(n, p) for n, p in pairs if n in keep]
            try:
                for name, p in pairs:
                    a = read_pb(p)
                    f = os.path.join(tmp, "in_%d.npy" % len(args))
                    np.save(f, a)
                    args += ["--input", "%s=%s" % (name, f)]
            except Exception as e:
                return op, "unsupported", "input: %s" % e
            try:
                r = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
            except subprocess.TimeoutExpired:
                return op, "failed", "timeout"
            if r.returncode < 0 or "Sanitizer" in r.stderr:  # a signal, or ASan/UBSan/LSan's report
                return op, "crash", "signal %d: %s" % (-r.returncode, r.stderr[-400:])
            if r.returncode != 0:
                kind = "unsupported" if "is not supported" in r.stderr or "not supported" in r.stderr else "failed"
                return op, kind, r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "exit %d" % r.returncode
            for i, p in enumerate(outs):
                exp = read_pb(p)
                f = os.path.join(tmp, "output.npy" if len(outs) == 1 else "output_%d.npy" % i)
                if not os.path.exists(f):
                    return op, "failed", "no output %d" % i
                got = np.load(f)
                if got.shape != exp.shape:
                    return op, "failed", "output %d: shape %s, expected %s" % (i, got.shape, exp.shape)
                if exp.dtype.kind in "fc":
                    ok = np.allclose(got.astype(np.float64), exp.astype(np.float64), rtol=1e-3, atol=1e-5,
                                     equal_nan=True)
                else:
                    ok = np.array_equal(got, exp)
                if not ok:
                    return op, "failed", "output %d differs (max abs diff %s)" % (
                        i, np.max(np.abs(got.astype(np.float64) - exp.astype(np.float64))) if got.size else 0)
    return op, "passed", ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tvs", required=True)
    ap.add_argument("--data", default=DEFAULT_DATA)
    ap.add_argument("--min-pass", type=int, default=0)
    ap.add_argument("--sample", type=int, default=0, help="run every Nth test only (fixed sample)")
    ap.add_argument("--quick-sample", type=int, default=0, help="--sample under TVS_TEST_QUICK=1")
    ap.add_argument("--quick-min-pass", type=int, default=0, help="--min-pass under TVS_TEST_QUICK=1")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--filter", default="")
    ap.add_argument("-v", action="store_true", help="print each test's result and reason")
    a = ap.parse_args()
    if os.environ.get("TVS_TEST_QUICK") == "1" and a.quick_sample:
        a.sample, a.min_pass = a.quick_sample, a.quick_min_pass
    tests = sorted(d for d in glob.glob(os.path.join(a.data, "test_*")) if a.filter in os.path.basename(d))
    if a.sample:
        tests = tests[::a.sample]
    if not tests:
        print("conformance: no tests under %s" % a.data)
        return 1
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        futs = {ex.submit(run_one, a.tvs, t, a.timeout): t for t in tests}
        for f in concurrent.futures.as_completed(futs):
            results[futs[f]] = f.result()
    table = collections.defaultdict(collections.Counter)
    for t, (op, kind, why) in sorted(results.items()):
        table[op][kind] += 1
        if a.v:
            print("%-60s %-12s %-12s %s" % (os.path.basename(t), op, kind, why))
    print("%-24s %7s %7s %7s %12s %7s" % ("op", "passed", "frozen", "failed", "unsupported", "crash"))
    tot = collections.Counter()
    for op in sorted(table):
        c = table[op]
        tot.update(c)
        print("%-24s %7d %7d %7d %12d %7d" % (op, c["passed"], c["frozen"], c["failed"], c["unsupported"], c["crash"]))
    print("%-24s %7d %7d %7d %12d %7d   (%d tests)" % ("total", tot["passed"], tot["frozen"], tot["failed"],
                                                      tot["unsupported"], tot["crash"], len(tests)))
    if tot["crash"]:
        print("conformance: FAIL: %d tests crashed" % tot["crash"])
        return 1
    if tot["passed"] + tot["frozen"] < a.min_pass:
        print("conformance: FAIL: %d passed (%d of them frozen), the floor is %d" % (
            tot["passed"] + tot["frozen"], tot["frozen"], a.min_pass))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
