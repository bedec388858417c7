"""Element-wise family, continued: activations (relu, leakyrelu, gelu, gelu_tanh,
silu), dropout, softmax / log_softmax and the creation ops (zeros, ones, full and
their _like forms), on the interpreter, the cpu target and a tvsc .so."""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from op_harness import Case, run_cases  # noqa: E402
from cases_elemwise import erf, sigmoid, softmax, log_softmax  # noqa: E402

F, I = "float32", "int32"

CASES = [
    # activations
    Case("R.nn.relu(x)", {"x": ((3, 5), F)}, ref=lambda x: np.maximum(x, 0)),
    Case("R.nn.leakyrelu(x, alpha=0.2)", {"x": (("n", 4), F)}, dims={"n": 3},
         ref=lambda x: np.where(x > 0, x, 0.2 * x)),
    Case("R.nn.leakyrelu(x)", {"x": ((7,), F)}, ref=lambda x: np.where(x > 0, x, 0.01 * x),
         name="leakyrelu default alpha"),
    Case("R.nn.gelu(x)", {"x": ((4, 6), F)}, ref=lambda x: 0.5 * x * (1 + erf(x / math.sqrt(2)))),
    Case("R.nn.gelu(x)", {"x": (("n",), "float64")}, dims={"n": 13},
         ref=lambda x: 0.5 * x * (1 + erf(x / math.sqrt(2))), name="gelu float64"),
    Case("R.nn.gelu_tanh(x)", {"x": ((2, 3, 5), F)},
         ref=lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))),
    Case("R.nn.silu(x)", {"x": ((11,), F)}, ref=lambda x: x * sigmoid(x)),
    Case("R.nn.silu(x)", {"x": ((3,), I)}, error="float", name="silu int error"),
    Case("R.nn.dropout(x, 0.3)[0]", {"x": ((3, 4), F)}, ref=lambda x: x, name="dropout output"),
    Case("R.nn.dropout(x)[1]", {"x": (("n",), F)}, dims={"n": 5}, ref=lambda x: np.ones_like(x),
         name="dropout mask"),
    Case("R.nn.dropout(x, rate=1.5)", {"x": ((3,), F)}, error="rate", name="dropout rate error"),
    # softmax / log_softmax (max-subtracted: large inputs must not overflow)
    Case("R.nn.softmax(x)", {"x": ((3, 7), F)}, ref=lambda x: softmax(x, -1)),
    Case("R.nn.softmax(x, axis=0)", {"x": ((5, 2, 3), F)}, ref=lambda x: softmax(x, 0)),
    Case("R.nn.softmax(x, 1)", {"x": (("n", 4, 2), F)}, dims={"n": 3}, ref=lambda x: softmax(x, 1),
         name="softmax axis 1 symbolic"),
    Case("R.nn.softmax(x)", {"x": ((2, 5), F)}, gen=lambda n, s, d, r: r.uniform(80, 120, s),
         ref=lambda x: softmax(x.astype(np.float64), -1), name="softmax large inputs"),
    Case("R.nn.softmax(x)", {"x": ((1,), F)}, ref=lambda x: np.ones_like(x), name="softmax size 1"),
    Case("R.nn.log_softmax(x)", {"x": ((4, 13), F)}, ref=lambda x: log_softmax(x, -1)),
    Case("R.nn.log_softmax(x, axis=-2)", {"x": ((2, 3, 5), F)}, ref=lambda x: log_softmax(x, -2)),
    Case("R.nn.softmax(x, axis=2)", {"x": ((2, 3), F)}, error="out of range", name="softmax axis error"),
    Case("R.nn.softmax(x)", {"x": ((2, 3), I)}, error="float", name="softmax int error"),
    Case("R.nn.softmax(x, dim=1)", {"x": ((2, 3), F)}, error="dim", name="softmax bad keyword"),
    # creation
    Case('R.zeros(R.shape([2, 3]), "float32")', {}, ref=lambda: np.zeros((2, 3), np.float32),
         out=((2, 3), F)),
    Case('R.ones((4,), dtype="int32")', {}, ref=lambda: np.ones((4,), np.int32), out=((4,), I)),
    Case('R.full(R.shape([3, 1, 2]), R.const(2.5, "float32"))', {}, ref=lambda: np.full((3, 1, 2), 2.5, np.float32),
         out=((3, 1, 2), F)),
    Case('R.full((2, 2), R.const(7, "int32"), "float32")', {}, ref=lambda: np.full((2, 2), 7, np.float32),
         out=((2, 2), F), name="full dtype converts"),
    Case("R.zeros_like(x)", {"x": (("n", 3), F)}, dims={"n": 4}, ref=np.zeros_like),
    Case('R.ones_like(x, "int32")', {"x": ((5,), F)}, ref=lambda x: np.ones(x.shape, np.int32),
         out=((5,), I)),
    Case('R.full_like(x, R.const(-3, "int32"))', {"x": ((2, 7), I)}, ref=lambda x: np.full_like(x, -3)),
    Case('R.full_like(x, R.astype(R.const(3, "int32"), "float32"))', {"x": (("n",), F)}, dims={"n": 3},
         ref=lambda x: np.full_like(x, 3.0), name="full_like computed fill value"),
    Case("R.full_like(x, v)", {"x": (("n",), F), "v": ((), F)}, dims={"n": 3},
         ref=lambda x, v: np.full_like(x, v), name="full_like tensor fill value"),
    Case("R.full(R.shape([2, 3]), v, \"int32\")", {"v": ((), F)}, gen=lambda n, s, d, r: np.array(2.7),
         ref=lambda v: np.full((2, 3), 2, np.int32), out=((2, 3), I), name="full tensor fill value cast"),
    Case('R.astype(x)', {"x": ((2,), F)}, error="dtype", name="astype needs dtype"),
    Case('R.zeros(x, "float32")', {"x": ((2,), F)}, error="expects a shape", name="zeros tensor error"),
    Case("R.full((2,), x)", {"x": ((2,), F)}, error="scalar", name="full non-scalar error"),
    Case("R.zeros((2, 3))", {}, error="dtype", name="zeros needs dtype"),
]

if __name__ == "__main__":
    run_cases(CASES)
