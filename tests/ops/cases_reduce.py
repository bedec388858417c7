"""Reductions: sum, mean, max, min, prod, variance, std, argmax, argmin."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from op_harness import Case, run_cases  # noqa: E402

F = "float32"


def red(fn, axis=None, keepdims=False):
    return lambda x: fn(x, axis=axis, keepdims=keepdims)


def arg(fn, axis=None, keepdims=False):
    def f(x):
        r = fn(x, axis=axis)
        if keepdims:
            r = np.expand_dims(r, tuple(range(x.ndim)) if axis is None else axis)
        return r.astype(np.int64)
    return f


def with_ties(name, shape, dtype, rng):
    return rng.integers(-2, 3, size=shape)


CASES = []
for op, fn in [("sum", np.sum), ("mean", np.mean), ("max", np.max), ("min", np.min), ("prod", np.prod),
               ("variance", np.var), ("std", np.std)]:
    CASES += [
        Case("R.%s(x)" % op, {"x": ((2, 3, 4), F)}, ref=red(fn), name="%s all" % op),
        Case("R.%s(x, axis=1)" % op, {"x": ((2, 3, 4), F)}, ref=red(fn, 1), name="%s axis 1" % op),
        Case("R.%s(x, axis=[0, -1], keepdims=True)" % op, {"x": ((3, 5, 7), F)}, ref=red(fn, (0, 2), True),
             name="%s neg axes keepdims" % op),
        Case("R.%s(x, [1], True)" % op, {"x": (("n", 13), F)}, dims={"n": 3}, ref=red(fn, 1, True),
             name="%s symbolic positional" % op),
        Case("R.%s(x, axis=0)" % op, {"x": (("n", 2), F)}, dims={"n": 5}, ref=red(fn, 0),
             name="%s reduce symbolic axis" % op),
    ]
CASES += [
    Case("R.sum(x, axis=0)", {"x": ((1,), F)}, ref=red(np.sum, 0), name="sum size 1"),
    Case("R.sum(x, axis=1)", {"x": ((4, 6), "int32")}, ref=red(np.sum, 1), name="sum int32"),
    Case("R.max(x, axis=-1)", {"x": ((4, 6), "int8")}, ref=red(np.max, -1), name="max int8"),
    Case("R.prod(x, axis=0)", {"x": ((3, 2), "int64")}, ref=red(np.prod, 0), name="prod int64"),
    Case("R.mean(x, axis=[0, 1])", {"x": ((4, 3, 2), "float64")}, ref=red(np.mean, (0, 1)), name="mean f64"),
    Case("R.argmax(x)", {"x": ((3, 4), F)}, ref=arg(np.argmax), name="argmax all"),
    Case("R.argmax(x, axis=1)", {"x": ((3, 7), F)}, ref=arg(np.argmax, 1), name="argmax axis"),
    Case("R.argmin(x, axis=-1, keepdims=True)", {"x": ((2, 3, 5), F)}, ref=arg(np.argmin, -1, True),
         name="argmin keepdims"),
    Case("R.argmin(x, 0)", {"x": (("n", 3), F)}, dims={"n": 4}, ref=arg(np.argmin, 0), name="argmin symbolic"),
    Case("R.argmax(x, axis=0)", {"x": ((9, 4), "int32")}, ref=arg(np.argmax, 0), gen=with_ties,
         name="argmax ties int32"),
    Case("R.argmin(x, axis=1)", {"x": ((4, 9), "int32")}, ref=arg(np.argmin, 1), gen=with_ties,
         name="argmin ties int32"),
    Case("R.sum(x, axis=2)", {"x": ((2, 3), F)}, error="axis 2 is out of range", name="sum bad axis"),
    Case("R.sum(x, axis=[1, -1])", {"x": ((2, 3), F)}, error="repeated", name="sum repeated axis"),
    Case("R.argmax(x, axis=-3)", {"x": ((2, 3), F)}, error="out of range", name="argmax bad axis"),
    Case("R.mean(x, axis=[0], bogus=1)", {"x": ((2, 3), F)}, error="bogus", name="mean bad keyword"),
]

if __name__ == "__main__":
    run_cases(CASES)
