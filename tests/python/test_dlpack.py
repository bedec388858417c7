"""test_dlpack.py - arrays cross into compiled code and back without copies:
NumPy and PyTorch through DLPack share memory with tvs.nd arrays (a write
through one view is seen through the other), and compiled functions write
into PyTorch tensors in place."""
import numpy as np
import pytest

import tvs
from tvs.script import tir as T

torch = pytest.importorskip("torch")


@T.prim_func
def scale2(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32")):
    for i, j in T.grid(4, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)


def test_numpy_shares_memory_with_nd():
    a = np.arange(32, dtype=np.float32).reshape(4, 8)
    nd = tvs.nd.from_dlpack(a)
    nd.numpy()[0, 0] = 42
    assert a[0, 0] == 42
    assert np.shares_memory(np.from_dlpack(nd), a)  # (NumPy 1.24 makes its import read-only)
    back = tvs.nd.from_dlpack(nd).numpy()
    back[1, 1] = -1
    assert a[1, 1] == -1 and nd.numpy()[1, 1] == -1


def test_torch_round_trip_shares_memory():
    t = torch.arange(32, dtype=torch.float32).reshape(4, 8)
    nd = tvs.nd.from_dlpack(t)
    nd.numpy()[2, 3] = 123.0
    assert t[2, 3].item() == 123.0
    t2 = torch.from_dlpack(nd)
    t2[0, 1] = -5.0
    assert nd.numpy()[0, 1] == -5.0 and t[0, 1].item() == -5.0


def test_compiled_function_writes_torch_tensor_in_place():
    f = tvs.build(scale2)["scale2"]
    a = torch.rand(4, 8)
    b = torch.zeros(4, 8)
    f(a, b)  # anything with __dlpack__
    assert torch.allclose(b, a * 2)
    with pytest.raises(tvs.RunError, match="float32"):
        f(a.double(), b)
    with pytest.raises(tvs.RunError, match="contiguous"):
        f(torch.rand(8, 4).t(), b)


def test_nd_array_copies_like_tvm():
    a = np.ones((4, 8), np.float32)
    nd = tvs.nd.array(a)
    nd.numpy()[0, 0] = 7
    assert a[0, 0] == 1  # tvm.nd.array copies its input
    assert nd.shape == (4, 8) and nd.dtype == "float32"
