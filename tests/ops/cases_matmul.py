"""R.matmul (N-d, batch broadcasting, 1-d operands, out_dtype) and R.linear."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from op_harness import Case, run_cases  # noqa: E402

F = "float32"


def mm32(a, b):
    return np.matmul(a.astype(np.int32), b.astype(np.int32))


def linear(x, w, b=None):
    r = np.matmul(x, w.T)
    return r if b is None else r + b


CASES = [
    Case("R.matmul(a, b)", {"a": ((3, 5), F), "b": ((5, 2), F)}, ref=np.matmul),
    Case("R.matmul(a, b)", {"a": ((1, 1), F), "b": ((1, 1), F)}, ref=np.matmul, name="matmul 1x1"),
    Case("R.matmul(a, b)", {"a": ((7, 13), F), "b": ((13, 11), F)}, ref=np.matmul, name="matmul primes"),
    Case("R.matmul(a, b)", {"a": ((2, 3, 4), F), "b": ((4, 5), F)}, ref=np.matmul, name="matmul 3d x 2d"),
    Case("R.matmul(a, b)", {"a": ((4,), F), "b": ((2, 4, 3), F)}, ref=np.matmul, name="matmul 1d x 3d"),
    Case("R.matmul(a, b)", {"a": ((2, 3, 4), F), "b": ((4,), F)}, ref=np.matmul, name="matmul 3d x 1d"),
    Case("R.matmul(a, b)", {"a": ((5,), F), "b": ((5,), F)}, ref=np.matmul, name="matmul 1d x 1d"),
    Case("R.matmul(a, b)", {"a": ((2, 1, 3, 4), F), "b": ((5, 4, 2), F)}, ref=np.matmul,
         name="matmul batch broadcast"),
    Case("R.matmul(a, b)", {"a": ((6, 1, 3, 4, 5), F), "b": ((2, 3, 5, 7), F)}, ref=np.matmul,
         name="matmul 5d x 4d"),
    Case("R.matmul(a, b)", {"a": (("n", 4), F), "b": ((4, "m"), F)}, dims={"n": 3, "m": 5}, ref=np.matmul,
         name="matmul symbolic n m"),
    Case("R.matmul(a, b)", {"a": (("bt", 3, "k"), F), "b": (("bt", "k", 2), F)}, dims={"bt": 2, "k": 7},
         ref=np.matmul, name="matmul symbolic batch and k"),
    Case("R.matmul(a, b, out_dtype=\"int32\")", {"a": ((4, 6), "int8"), "b": ((6, 3), "int8")}, ref=mm32,
         out=((4, 3), "int32"), name="matmul int8 -> int32",
         gen=lambda n, s, d, rng: rng.integers(-128, 128, size=s)),
    Case("R.matmul(a, b, \"int32\")", {"a": ((2, 4, 6), "int8"), "b": ((6, 3), "int8")}, ref=mm32,
         out=((2, 4, 3), "int32"), name="matmul int8 -> int32 positional out_dtype",
         gen=lambda n, s, d, rng: rng.integers(-128, 128, size=s)),
    Case("R.matmul(a, b)", {"a": ((3, 4), "int32"), "b": ((4, 2), "int32")}, ref=np.matmul, name="matmul int32"),
    Case("R.matmul(a, b, out_dtype=\"float32\")", {"a": ((3, 4), "float16"), "b": ((4, 2), "float16")},
         ref=lambda a, b: np.matmul(a.astype(np.float32), b.astype(np.float32)), out=((3, 2), F), rtol=1e-3,
         atol=1e-3, name="matmul f16 -> f32"),
    Case("R.matmul(a, b)", {"a": ((3, 5), F), "b": ((4, 2), F)},
         error="R.matmul: x1 has 5 columns but x2 has 4 rows (shapes (3, 5) and (4, 2))", name="matmul bad k"),
    Case("R.matmul(a, b)", {"a": ((2, 3, 4), F), "b": ((3, 4, 5), F)}, error="cannot be broadcast",
         name="matmul bad batch"),
    Case("R.matmul(a, b)", {"a": ((3, 4), F), "b": ((4, 5), "float64")}, error="dtype mismatch",
         name="matmul dtype mismatch"),
    Case("R.matmul(a, b)", {"a": ((), F), "b": ((4, 5), F)}, error="0-d", name="matmul 0-d"),
    Case("R.linear(x, w)", {"x": ((3, 5), F), "w": ((4, 5), F)}, ref=linear),
    Case("R.linear(x, w, b)", {"x": ((2, 3, 5), F), "w": ((4, 5), F), "b": ((4,), F)}, ref=linear,
         name="linear bias"),
    Case("R.linear(x, w, b)", {"x": (("n", 5), F), "w": ((4, 5), F), "b": ((4,), F)}, dims={"n": 7}, ref=linear,
         name="linear symbolic"),
    Case("R.linear(x, w)", {"x": ((3, 5), F), "w": ((5,), F)}, ref=lambda x, w: np.matmul(x, w),
         name="linear 1-d weight"),
    Case("R.linear(x, w, b, \"int32\")", {"x": ((2, 6), "int8"), "w": ((3, 6), "int8"), "b": ((3,), "int32")},
         ref=lambda x, w, b: np.matmul(x.astype(np.int32), w.T.astype(np.int32)) + b, out=((2, 3), "int32"),
         name="linear int8 -> int32"),
    Case("R.linear(x, w, b)", {"x": ((3, 5), F), "w": ((4, 6), F), "b": ((4,), F)}, error="columns",
         name="linear bad k"),
]

if __name__ == "__main__":
    run_cases(CASES)
