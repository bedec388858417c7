#!/usr/bin/python3
"""Compare a runner's outputs with the numpy reference of one corpus program.

usage: compare.py REFDIR OUTDIR NAME

For every REFDIR/ref_X.npy (written by run_reference.py) the runner must have
written OUTDIR/X.npy with the same shape and dtype.  Integers and bools must be
equal exactly; floats must satisfy |got - ref| <= ATOL + RTOL * |ref| (NaN equals
NaN, an infinity must match exactly).  RTOL/ATOL default to 1e-4/1e-5 and can
be set in NAME.py, either as numbers or as dicts keyed by output name.

Prints one line per output and, for a mismatch, the worst element.  Exits 0
when everything matches, 1 on any mismatch or missing file, 2 on bad usage.
"""
import importlib.util
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_RTOL = 1e-4
DEFAULT_ATOL = 1e-5


def program_name(arg):
    base = os.path.basename(arg)
    for ext in (".py", ".tvs"):
        if base.endswith(ext):
            base = base[: -len(ext)]
    return base


def load_program(name):
    path = os.path.join(HERE, name + ".py")
    if not os.path.isfile(path):
        return None
    spec = importlib.util.spec_from_file_location("tvs_corpus_" + name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def tolerance(mod, attr, default, key):
    value = getattr(mod, attr, default) if mod is not None else default
    if isinstance(value, dict):
        return float(value.get(key, default))
    return float(value)


def compare_one(key, ref, got, rtol, atol):
    """Returns (ok, message)."""
    if got.shape != ref.shape:
        return False, "shape %s, expected %s" % (got.shape, ref.shape)
    if got.dtype != ref.dtype:
        return False, "dtype %s, expected %s" % (got.dtype.name, ref.dtype.name)
    if ref.size == 0:
        return True, "empty"
    if ref.dtype.kind in "biu":
        bad = got != ref
        if not bad.any():
            return True, "exact"
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        return False, "%d of %d elements differ; first at %s: got %s, expected %s" % (
            int(bad.sum()), ref.size, idx, got[idx].item(), ref[idx].item())
    g = got.astype(np.float64)
    r = ref.astype(np.float64)
    nan_g, nan_r = np.isnan(g), np.isnan(r)
    inf_mismatch = (np.isinf(g) | np.isinf(r)) & (g != r) & ~(nan_g | nan_r)
    with np.errstate(invalid="ignore"):
        err = np.abs(g - r)
        finite = ~(nan_g | nan_r | np.isinf(g) | np.isinf(r))
        bound = atol + rtol * np.abs(r)
        excess = np.where(finite, err - bound, -np.inf)
    bad = (nan_g != nan_r) | inf_mismatch | (excess > 0)
    if not bad.any():
        worst = float(np.max(np.where(finite, err, 0.0)))
        return True, "max abs err %.3g" % worst
    # Worst: a NaN/inf mismatch first, else the largest excess over the bound.
    special = (nan_g != nan_r) | inf_mismatch
    if special.any():
        idx = tuple(int(i) for i in np.argwhere(special)[0])
    else:
        idx = np.unravel_index(int(np.argmax(excess)), ref.shape)
        idx = tuple(int(i) for i in idx)
    gv, rv = g[idx], r[idx]
    rel = abs(gv - rv) / abs(rv) if rv != 0 else float("inf")
    return False, ("%d of %d elements out of tolerance (rtol=%g, atol=%g); worst at %s: "
                   "got %r, expected %r, abs err %.6g, rel err %.6g"
                   % (int(bad.sum()), ref.size, rtol, atol, idx, gv, rv, abs(gv - rv), rel))


def main(argv):
    if len(argv) != 4:
        sys.stderr.write("usage: compare.py REFDIR OUTDIR NAME\n")
        return 2
    refdir, outdir, name = argv[1], argv[2], program_name(argv[3])
    mod = load_program(name)
    refs = sorted(f for f in os.listdir(refdir) if f.startswith("ref_") and f.endswith(".npy"))
    if not refs:
        print("%s: FAIL: no ref_*.npy in %s" % (name, refdir))
        return 1
    failed = 0
    for fname in refs:
        key = fname[len("ref_"):-len(".npy")]
        ref = np.load(os.path.join(refdir, fname))
        got_path = os.path.join(outdir, key + ".npy")
        if not os.path.isfile(got_path):
            print("%s: %s: FAIL: missing %s" % (name, key, got_path))
            failed += 1
            continue
        try:
            got = np.load(got_path)
        except Exception as exc:  # unreadable output is a failure, not a crash
            print("%s: %s: FAIL: cannot load %s: %s" % (name, key, got_path, exc))
            failed += 1
            continue
        rtol = tolerance(mod, "RTOL", DEFAULT_RTOL, key)
        atol = tolerance(mod, "ATOL", DEFAULT_ATOL, key)
        ok, msg = compare_one(key, ref, got, rtol, atol)
        print("%s: %s: %s: %s" % (name, key, "ok" if ok else "FAIL", msg))
        failed += 0 if ok else 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
