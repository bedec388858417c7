"""test_te.py - tvs.te builds tensor expressions in Python; create_prim_func
gives the prim_func TVS's te sugar elaborates, equal to the hand-written
TensorIR, and MLC's TE chapter code (with_attr, IRModule({...})) runs."""
import os

import numpy as np
import pytest

import tvs as tvm
from tvs import te

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_te_mm_relu_equals_tensorir():
    A = te.placeholder((128, 128), "float32", name="A")
    B = te.placeholder((128, 128), "float32", name="B")
    k = te.reduce_axis((0, 128), "k")
    Y = te.compute((128, 128), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="Y")
    C = te.compute((128, 128), lambda i, j: te.max(Y[i, j], tvm.tir.const(0, "float32")), name="C")
    te_func = te.create_prim_func([A, B, C]).with_attr({"global_symbol": "mm_relu"})
    mod = tvm.IRModule({"mm_relu": te_func})
    tvm.ir.assert_structural_equal(mod, tvm.IRModule.from_file(os.path.join(ROOT, "examples", "mm_relu.tvs")))
    a, b = np.random.rand(128, 128).astype("float32"), np.random.rand(128, 128).astype("float32")
    c = np.zeros((128, 128), "float32")
    tvm.build(mod)["mm_relu"](a, b, c)
    np.testing.assert_allclose(c, np.maximum(a @ b, 0), rtol=1e-5)


def test_te_elementwise_and_schedule():
    n = 64
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0 + 1, name="B")
    Cc = te.compute((n,), lambda i: te.exp(B[i]) - B[i] / 3, name="C")
    mod = tvm.IRModule({"main": te.create_prim_func([A, Cc])})
    sch = tvm.tir.Schedule(mod)
    sch.compute_inline(sch.get_block("B"))
    (i,) = sch.get_loops(sch.get_block("C"))
    sch.vectorize(sch.split(i, factors=[None, 8])[1])
    a = np.random.rand(n).astype("float32")
    c = np.zeros(n, "float32")
    tvm.build(sch.mod)["main"](a, c)
    b = a * 2 + 1
    np.testing.assert_allclose(c, np.exp(b) - b / 3, rtol=1e-5)


def test_te_errors():
    A = te.placeholder((4,), name="A")
    with pytest.raises(ValueError, match="lambda takes 2 indices"):
        te.compute((4,), lambda i, j: A[i])
    B = te.compute((4,), lambda i: A[i] + 1, name="B")
    with pytest.raises(ValueError, match="not arguments"):
        te.create_prim_func([B])
    with pytest.raises(TypeError, match="truth value"):
        te.compute((4,), lambda i: A[i] if A[i] > 0 else A[i])
