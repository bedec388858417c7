#!/usr/bin/python3
"""Generate the inputs and the numpy reference outputs of one corpus program.

usage: run_reference.py NAME OUTDIR

NAME is a program of this folder (``NAME``, ``NAME.py`` or ``NAME.tvs``, with or
without a directory part).  The script imports ``NAME.py``, draws every input
listed in its ``INPUTS`` from ``np.random.default_rng(SEED)`` (SEED = 0, or the
environment variable ``TVS_CORPUS_SEED``), writes ``OUTDIR/in_X.npy`` for every
buffer input ``X`` and ``OUTDIR/ref_Y.npy`` for every expected output ``Y``, and
prints the runner's ``--input`` arguments on stdout, one per line:

    A=OUTDIR/in_A.npy
    n=7

Input generation (in the order of ``INPUTS``, one shared generator):
  * floats: uniform in [lo, hi), default [-1, 1);
  * signed ints: uniform integers in [lo, hi] (both ends included), default [-5, 5];
  * unsigned ints: default [0, 10];
  * bool: uniform True/False (RANGE is ignored).
``RANGE = {"X": (lo, hi)}`` in NAME.py overrides the bounds of input X.
Scalar parameters are given as ``"n": ("scalar", "int32", 7)``; they are passed
to ``reference`` as Python numbers and printed as ``n=7``.

Runs with Debian's /usr/bin/python3 and numpy 1.24; needs nothing else.
"""
import importlib.util
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

FLOAT_DTYPES = ("float16", "float32", "float64")
INT_DTYPES = ("int8", "int16", "int32", "int64")
UINT_DTYPES = ("uint8", "uint16", "uint32", "uint64")
ALL_DTYPES = FLOAT_DTYPES + INT_DTYPES + UINT_DTYPES + ("bool",)


def program_name(arg):
    base = os.path.basename(arg)
    for ext in (".py", ".tvs"):
        if base.endswith(ext):
            base = base[: -len(ext)]
    return base


def load_program(name):
    path = os.path.join(HERE, name + ".py")
    if not os.path.isfile(path):
        raise SystemExit("run_reference.py: no program module %s" % path)
    spec = importlib.util.spec_from_file_location("tvs_corpus_" + name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    for attr in ("FUNC", "INPUTS", "reference"):
        if not hasattr(mod, attr):
            raise SystemExit("run_reference.py: %s.py lacks %s" % (name, attr))
    return mod


def seed():
    return int(os.environ.get("TVS_CORPUS_SEED", "0"))


def draw(rng, shape, dtype, bounds):
    if dtype not in ALL_DTYPES:
        raise SystemExit("run_reference.py: unsupported dtype %r" % dtype)
    shape = tuple(shape)
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if dtype in FLOAT_DTYPES:
        lo, hi = bounds if bounds is not None else (-1.0, 1.0)
        return np.asarray(rng.uniform(lo, hi, size=shape)).astype(dtype)
    if bounds is None:
        bounds = (0, 10) if dtype in UINT_DTYPES else (-5, 5)
    lo, hi = bounds
    info = np.iinfo(dtype)
    if lo < info.min or hi > info.max:
        raise SystemExit("run_reference.py: RANGE %r does not fit %s" % (bounds, dtype))
    vals = rng.integers(int(lo), int(hi), size=shape, endpoint=True, dtype=np.int64
                        if dtype != "uint64" else np.uint64)
    return np.asarray(vals).astype(dtype)


def make_inputs(mod):
    rng = np.random.default_rng(seed())
    ranges = getattr(mod, "RANGE", {})
    inputs = {}
    for pname, spec in mod.INPUTS.items():
        if len(spec) == 3 and spec[0] == "scalar":
            _, dtype, value = spec
            if dtype == "bool":
                value = bool(value)
            elif dtype in FLOAT_DTYPES:
                value = float(value)
            else:
                value = int(value)
            inputs[pname] = value
        else:
            shape, dtype = spec
            inputs[pname] = draw(rng, shape, dtype, ranges.get(pname))
    return inputs


def scalar_text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: run_reference.py NAME OUTDIR\n")
        return 2
    name = program_name(argv[1])
    outdir = argv[2]
    mod = load_program(name)
    os.makedirs(outdir, exist_ok=True)
    inputs = make_inputs(mod)
    lines = []
    for pname, value in inputs.items():
        if isinstance(value, np.ndarray):
            path = os.path.join(outdir, "in_%s.npy" % pname)
            np.save(path, value)
            lines.append("%s=%s" % (pname, path))
        else:
            lines.append("%s=%s" % (pname, scalar_text(value)))
    copies = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}
    with np.errstate(all="ignore"):
        refs = mod.reference(**copies)
    if not isinstance(refs, dict) or not refs:
        raise SystemExit("run_reference.py: %s.reference() must return a non-empty dict" % name)
    for key, value in refs.items():
        arr = np.asarray(value)
        if arr.dtype.name not in ALL_DTYPES:
            raise SystemExit("run_reference.py: %s: output %s has dtype %s"
                             % (name, key, arr.dtype.name))
        np.save(os.path.join(outdir, "ref_%s.npy" % key), arr)
    sys.stdout.write("".join(line + "\n" for line in lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
