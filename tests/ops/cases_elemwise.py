"""Element-wise family: unary math, clip, astype, comparisons, logical ops, power,
floor_mod, where (interpreter, cpu target and tvsc .so against numpy / math.erf).
Activations, dropout, softmax and the creation ops are cases_activation.py."""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from op_harness import Case, run_cases  # noqa: E402

F, I, B = "float32", "int32", "bool"
erf = np.vectorize(math.erf, otypes=[np.float64])


def positive(name, shape, dtype, rng):
    return rng.uniform(0.1, 4.0, size=shape)


def nonzero_int(name, shape, dtype, rng):
    if name == "b":
        v = rng.integers(1, 6, size=shape)
        return np.where(rng.random(shape) < 0.5, -v, v)
    return rng.integers(-20, 21, size=shape)


def halves(name, shape, dtype, rng):
    # values near .5 boundaries exercise round-half-to-even
    return rng.integers(-8, 9, size=shape) / 2.0 + rng.choice([0.0, 0.25], size=shape)


def softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def log_softmax(x, axis):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def sigmoid(x):
    return 1 / (1 + np.exp(-x.astype(np.float64)))


UNARY = [  # op, numpy reference, input generator
    ("abs", np.abs, None), ("negative", np.negative, None), ("exp", np.exp, None),
    ("log", np.log, positive), ("sqrt", np.sqrt, positive), ("rsqrt", lambda x: 1 / np.sqrt(x), positive),
    ("tanh", np.tanh, None), ("sigmoid", sigmoid, None), ("erf", erf, None),
    ("round", np.round, halves), ("floor", np.floor, halves), ("ceil", np.ceil, halves),
    ("sin", np.sin, None), ("cos", np.cos, None), ("square", np.square, None),
]
SHAPES = [((2, 3), {}), ((7,), {}), (("n", 5), {"n": 3}), ((1,), {}), ((13, 1, 3), {})]

CASES = []
for k, (op, ref, gen) in enumerate(UNARY):
    for shape, dims in (SHAPES[k % 5], SHAPES[(k + 2) % 5]):
        CASES.append(Case("R.%s(x)" % op, {"x": (shape, F)}, dims=dims, gen=gen, ref=ref,
                          name="%s %s" % (op, shape)))

CASES += [
    # integer operands where TVM allows them
    Case("R.abs(x)", {"x": ((3, 4), I)}, ref=np.abs, name="abs int32"),
    Case("R.negative(x)", {"x": ((5,), "int64")}, ref=np.negative, name="negative int64"),
    Case("R.square(x)", {"x": ((2, 2), I)}, ref=np.square, name="square int32"),
    Case("R.floor(x)", {"x": ((4,), I)}, ref=lambda x: x, name="floor int32 is identity"),
    Case("R.exp(x)", {"x": ((2,), I)}, error="requires a float tensor", name="exp int error"),
    Case("R.sigmoid(x)", {"x": ((2,), "int8")}, error="float", name="sigmoid int error"),
    Case("R.logical_not(x)", {"x": ((3, 5), B)}, ref=np.logical_not),
    Case("R.logical_not(x)", {"x": ((3,), F)}, error="requires bool", name="logical_not float error"),
    Case("R.exp(x, y)", {"x": ((3,), F), "y": ((3,), F)}, error="takes 1 argument", name="exp arity error"),
    # clip: numbers become PrimValues, cast to the operand's dtype
    Case("R.clip(x, 0, 6)", {"x": ((4, 5), F)}, gen=lambda n, s, d, r: r.uniform(-3, 9, s),
         ref=lambda x: np.clip(x, 0, 6)),
    Case("R.clip(x, -1.5, 0.5)", {"x": (("n",), F)}, dims={"n": 11}, ref=lambda x: np.clip(x, -1.5, 0.5)),
    Case("R.clip(x, -2, 3)", {"x": ((2, 7), I)}, ref=lambda x: np.clip(x, -2, 3), name="clip int32"),
    Case("R.clip(x, y, 3)", {"x": ((2,), F), "y": ((2,), F)}, error="PrimValue", name="clip tensor bound error"),
    # astype
    Case('R.astype(x, "int32")', {"x": ((3, 4), F)}, gen=lambda n, s, d, r: r.uniform(-9, 9, s),
         ref=lambda x: np.trunc(x).astype(np.int32), out=((3, 4), I)),
    Case('R.astype(x, "float32")', {"x": (("n", 2), I)}, dims={"n": 5}, ref=lambda x: x.astype(np.float32),
         out=(("n", 2), F)),
    Case('R.astype(x, "float32")', {"x": ((6,), B)}, ref=lambda x: x.astype(np.float32), out=((6,), F),
         name="astype bool to float"),
    Case('R.astype(x, dtype="float64")', {"x": ((2, 2), F)}, ref=lambda x: x.astype(np.float64),
         out=((2, 2), "float64")),
]

COMPARE = [("equal", np.equal), ("not_equal", np.not_equal), ("less", np.less),
           ("less_equal", np.less_equal), ("greater", np.greater), ("greater_equal", np.greater_equal)]
PAIRS = [(((2, 3), F), ((3,), F), {}), (((4, 1, 5), I), ((3, 1), I), {}),
         ((("n", 1), F), ((1, 7), F), {"n": 2})]
for k, (op, ref) in enumerate(COMPARE):
    for a, b, dims in (PAIRS[k % 3], PAIRS[(k + 1) % 3]):
        # small integers so that equal values occur
        gen = (lambda n, s, d, r: r.integers(-2, 3, size=s))
        CASES.append(Case("R.%s(a, b)" % op, {"a": a, "b": b}, dims=dims, gen=gen, ref=ref,
                          out=None, name="%s %s %s" % (op, a[0], b[0])))

CASES += [
    Case("R.less(a, b)", {"a": ((2, 3), F), "b": ((2, 3), I)}, error="dtype mismatch", name="less dtype error"),
    Case("R.equal(a, b)", {"a": ((2, 3), F), "b": ((4,), F)}, error="cannot be broadcast",
         name="equal broadcast error"),
    Case("R.logical_and(a, b)", {"a": ((3, 4), B), "b": ((4,), B)}, ref=np.logical_and),
    Case("R.logical_or(a, b)", {"a": (("n", 1), B), "b": ((1, 5), B)}, dims={"n": 3}, ref=np.logical_or),
    Case("R.logical_and(a, b)", {"a": ((3,), I), "b": ((3,), I)}, error="requires bool",
         name="logical_and int error"),
    Case("R.power(a, b)", {"a": ((2, 3), F), "b": ((3,), F)}, gen=positive, ref=np.power),
    Case("R.power(a, b)", {"a": (("n", 4), "float64"), "b": ((1,), "float64")}, dims={"n": 5}, gen=positive,
         ref=np.power, name="power float64 symbolic"),
    Case("R.power(a, R.const(2.0, \"float32\"))", {"a": ((5,), F)}, ref=lambda a: a * a,
         name="power scalar const"),
    Case("R.floor_mod(a, b)", {"a": ((3, 4), I), "b": ((4,), I)}, gen=nonzero_int, ref=np.mod),
    Case("R.floor_mod(a, b)", {"a": ((5,), F), "b": ((5,), F)}, gen=positive, ref=np.mod, name="floor_mod float"),
    Case("R.floor_divide(a, b)", {"a": ((2, 5), I), "b": ((5,), I)}, gen=nonzero_int, ref=np.floor_divide),
    Case("R.divide(a, b)", {"a": ((7,), I), "b": ((7,), I)}, gen=nonzero_int,
         ref=lambda a, b: np.trunc(a / b).astype(np.int32), name="divide int truncates"),
    Case("R.maximum(a, R.const(0.5, \"float32\"))", {"a": ((3, 3), F)}, ref=lambda a: np.maximum(a, 0.5),
         name="maximum scalar const"),
    Case("R.subtract(R.const(1, \"int32\"), a)", {"a": ((4,), I)}, ref=lambda a: 1 - a,
         name="subtract const lhs"),
    # where: three-way broadcasting
    Case("R.where(c, a, b)", {"c": ((2, 1, 4), B), "a": ((3, 1), F), "b": ((4,), F)},
         ref=lambda c, a, b: np.where(c, a, b)),
    Case("R.where(c, a, b)", {"c": (("n", 3), B), "a": (("n", 3), I), "b": ((1,), I)}, dims={"n": 5},
         ref=lambda c, a, b: np.where(c, a, b), name="where symbolic int"),
    Case("R.where(c, a, b)", {"c": ((3,), F), "a": ((3,), F), "b": ((3,), F)}, error="bool condition",
         name="where float cond error"),
    Case("R.where(c, a, b)", {"c": ((3,), B), "a": ((3,), F), "b": ((3,), I)}, error="dtype mismatch",
         name="where dtype error"),
    Case("R.where(c, a, b)", {"c": ((2,), B), "a": ((3,), F), "b": ((3,), F)}, error="cannot be broadcast",
         name="where broadcast error"),
]

if __name__ == "__main__":
    run_cases(CASES)
