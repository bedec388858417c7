"""op_harness.py - checks graph operators three ways against a reference.

A case is one R.* call on inputs of given shapes and dtypes.  The harness
writes a .tvs module whose `main` applies the call, draws the inputs with
numpy, and compares against the reference (numpy or torch):
  1. `tvs run FILE --target interp`   the reference interpreter (the oracle),
  2. `tvs run FILE`                   the cpu target (legalized prim_funcs),
  3. `tvsc FILE -o F.so; tvs run F.so` the whole graph compiled natively,
and the interpreter and native results must agree with each other too.

Use from a case file (tests/ops/cases_*.py):

    from op_harness import Case, run_cases
    CASES = [
        Case("R.add(a, b)", {"a": ((2, 3), "float32"), "b": ((3,), "float32")},
             ref=lambda a, b: a + b),
        Case("R.nn.conv2d(x, w, strides=[2, 2], padding=[1, 1])", {...},
             ref=lambda x, w: ..., out=((1, 8, 4, 4), "float32")),
        Case("R.sum(x, axis=[1])", {"x": (("n", 5), "float32")}, dims={"n": 3}, ref=...),
        Case("R.nn.conv2d(x, w, groups=3)", {...}, error="groups"),   # must be rejected
    ]
    if __name__ == "__main__":
        run_cases(CASES)

A dim written as a string is a symbolic size var; `dims` gives its value for
the run.  `out` is the expected struct info of the result (default: checked
against the reference's shape and dtype).  `gen` may give a function
(name, shape, dtype, rng) -> array for inputs that need a domain (log of
positives, indices in range).  `error` names a substring of the expected
error message: the case must fail to compile with a file:line:col: error.
`modes` limits the paths (e.g. ("interp", "cpu", "so")).
Run: python3 cases_x.py --tvs BUILD/tvs --tvsc BUILD/tvsc --work DIR [-k FILTER] [-v]
"""
import argparse
import os
import re
import subprocess
import sys

import numpy as np

NP_DTYPES = {"float32": np.float32, "float64": np.float64, "float16": np.float16,
             "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
             "uint8": np.uint8, "bool": np.bool_}


class Case:
    def __init__(self, call, inputs, ref=None, out=None, dims=None, gen=None, error=None,
                 rtol=1e-4, atol=1e-5, modes=("interp", "cpu", "so"), name=None, consts=None):
        self.call, self.inputs, self.ref, self.out = call, inputs, ref, out
        self.dims, self.gen, self.error = dims or {}, gen, error
        self.rtol, self.atol, self.modes = rtol, atol, modes
        self.name = name or call
        self.consts = consts or {}


def _dim_text(d):
    return d if isinstance(d, str) else str(d)


def _shape_text(shape):
    if len(shape) == 1:
        return "(%s,)" % _dim_text(shape[0])
    return "(%s)" % ", ".join(_dim_text(d) for d in shape)


def _sym_vars(case):
    seen = []
    for shape, _ in case.inputs.values():
        for d in shape:
            if isinstance(d, str) and d not in seen:
                seen.append(d)
    return seen


def module_text(case):
    """The .tvs program of a case: main(inputs) -> the call's result."""
    params = []
    for i, (name, (shape, dtype)) in enumerate(case.inputs.items()):
        # a string dim is declared by its first (quoted) use, then bare
        params.append('%s: R.Tensor(%s, "%s")' % (name, _shape_text(
            [('"%s"' % d if isinstance(d, str) else d) for d in shape]), dtype))
    lines = ["from tvm.script import relax as R", "from tvm.script import tir as T", "", "",
             "@R.function", "def main(%s):" % ", ".join(params)]
    syms = _sym_vars(case)
    if syms:
        lines.append("    %s = %s" % (", ".join(syms), ", ".join("T.int64()" for _ in syms)))
    lines += ["    with R.dataflow():", "        out = %s" % case.call,
              "        R.output(out)", "    return out", ""]
    return "\n".join(lines)


def _concrete(shape, dims):
    return tuple(dims[d] if isinstance(d, str) else d for d in shape)


def make_inputs(case, rng):
    arrays = {}
    for name, (shape, dtype) in case.inputs.items():
        shp = _concrete(shape, case.dims)
        if case.gen:
            a = case.gen(name, shp, dtype, rng)
            if a is not None:
                arrays[name] = np.array(a.astype(NP_DTYPES[dtype]), order="C")
                continue
        if dtype == "bool":
            a = rng.random(shp) < 0.5
        elif dtype.startswith("int") or dtype.startswith("uint"):
            a = rng.integers(-5 if dtype.startswith("int") else 0, 6, size=shp)
        else:
            a = rng.standard_normal(shp)
        arrays[name] = np.array(np.asarray(a).astype(NP_DTYPES[dtype]), order="C")  # (ascontiguousarray makes 0-d 1-d)
    return arrays


def _run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout + p.stderr


def run_case(case, tool, work, idx, verbose=False):
    """Returns None on success, else a message."""
    safe = re.sub(r"[^A-Za-z0-9]+", "_", case.name)[:40].strip("_")
    d = os.path.join(work, "%03d_%s" % (idx, safe))
    os.makedirs(d, exist_ok=True)
    src = os.path.join(d, "case.tvs")
    with open(src, "w") as f:
        f.write(module_text(case))
    if case.error:
        rc, out = _run([tool.tvs, "show", src, "--stage", "legalize"])
        if rc == 0:
            return "expected an error mentioning %r, but it compiled" % case.error
        if case.error not in out or not re.search(r"case\.tvs:\d+:\d+: error:", out):
            return "expected a file:line:col error mentioning %r, got:\n%s" % (case.error, out)
        if "internal error" in out or rc > 2:
            return "bad failure (rc %d):\n%s" % (rc, out)
        return None
    rng = np.random.default_rng(idx + 1)
    arrays = make_inputs(case, rng)
    args = []
    for name, a in arrays.items():
        p = os.path.join(d, name + ".npy")
        np.save(p, a)
        args += ["--input", "%s=%s" % (name, p)]
    ref = case.ref(*arrays.values())
    if isinstance(ref, (tuple, list)):  # a tuple result (split): output_0.npy ...
        return _check_tuple(case, tool, d, src, args, [np.asarray(r) for r in ref])
    expect = np.asarray(ref)
    if case.out:
        oshape, odt = case.out
        oshape = _concrete(oshape, case.dims)
        if tuple(expect.shape) != tuple(oshape):
            return "reference shape %s != declared out %s" % (expect.shape, oshape)
        expect = expect.astype(NP_DTYPES[odt])
    results = {}
    for mode in case.modes:
        od = os.path.join(d, "out_" + mode)
        if mode == "so":
            so = os.path.join(d, "case.so")
            rc, out = _run([tool.tvsc, src, "-o", so])
            if rc != 0:
                return "[so] tvsc failed:\n" + out
            rc, out = _run([tool.tvs, "run", so] + args + ["--output", od])
        else:
            rc, out = _run([tool.tvs, "run", src, "--target", mode] + args + ["--output", od])
        if rc != 0:
            return "[%s] tvs run failed:\n%s" % (mode, out)
        got = np.load(os.path.join(od, "output.npy"))
        if got.shape != expect.shape:
            return "[%s] shape %s, expected %s" % (mode, got.shape, expect.shape)
        if case.out and got.dtype != expect.dtype:
            return "[%s] dtype %s, expected %s" % (mode, got.dtype, expect.dtype)
        if expect.dtype.kind in "fc":
            ok = np.allclose(got.astype(np.float64), expect.astype(np.float64), rtol=case.rtol,
                             atol=case.atol, equal_nan=True)
        else:
            ok = np.array_equal(got, expect)
        if not ok:
            diff = np.abs(got.astype(np.float64) - expect.astype(np.float64))
            return "[%s] wrong values: max abs diff %g\n got %s\n want %s" % (
                mode, np.nanmax(diff), got.ravel()[:8], expect.ravel()[:8])
        results[mode] = got
    return None


def _run_mode(case, tool, d, src, args, mode):
    """Runs one path; returns (output dir, None) or (None, message)."""
    od = os.path.join(d, "out_" + mode)
    if mode == "so":
        so = os.path.join(d, "case.so")
        rc, out = _run([tool.tvsc, src, "-o", so])
        if rc != 0:
            return None, "[so] tvsc failed:\n" + out
        rc, out = _run([tool.tvs, "run", so] + args + ["--output", od])
    else:
        rc, out = _run([tool.tvs, "run", src, "--target", mode] + args + ["--output", od])
    if rc != 0:
        return None, "[%s] tvs run failed:\n%s" % (mode, out)
    return od, None


def _check_tuple(case, tool, d, src, args, expects):
    for mode in case.modes:
        od, msg = _run_mode(case, tool, d, src, args, mode)
        if msg:
            return msg
        for i, expect in enumerate(expects):
            got = np.load(os.path.join(od, "output_%d.npy" % i if len(expects) > 1 else "output.npy"))
            if got.shape != expect.shape or not np.allclose(got, expect, rtol=case.rtol, atol=case.atol):
                return "[%s] field %d: got %s %s, want %s %s" % (mode, i, got.shape, got.ravel()[:8],
                                                                expect.shape, expect.ravel()[:8])
    return None


def run_cases(cases):
    ap = argparse.ArgumentParser()
    ap.add_argument("--tvs", required=True)
    ap.add_argument("--tvsc", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("-k", default=None, help="only cases whose call contains this text")
    ap.add_argument("-v", action="store_true")
    ns = ap.parse_args()
    os.makedirs(ns.work, exist_ok=True)
    failed = 0
    n = 0
    for i, c in enumerate(cases):
        if ns.k and ns.k not in c.name:
            continue
        n += 1
        msg = run_case(c, ns, ns.work, i, ns.v)
        if msg:
            failed += 1
            print("FAIL %s\n  %s" % (c.name, msg.replace("\n", "\n  ")))
        elif ns.v:
            print("ok   %s" % c.name)
    print("%d cases, %d failed" % (n, failed))
    sys.exit(1 if failed else 0)
