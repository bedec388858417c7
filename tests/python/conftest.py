"""conftest.py - the tvs package from the source tree (python/) over the
libtvs.so ctest names in TVS_LIBRARY; shared modules of the tests."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))

import pytest  # noqa: E402

import tvs  # noqa: E402
from tvs.script import tir as T  # noqa: E402


@tvs.script.ir_module
class MmRelu:
    @T.prim_func
    def mm_relu(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"),
                C: T.Buffer((128, 128), "float32")):
        T.func_attr({"global_symbol": "mm_relu", "tir.noalias": True})
        Y = T.alloc_buffer((128, 128), dtype="float32")
        for i, j, k in T.grid(128, 128, 128):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(128, 128):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = T.max(Y[vi, vj], T.float32(0))


@pytest.fixture
def mm_relu():
    return MmRelu


@pytest.fixture(scope="session")
def root():
    return ROOT


@pytest.fixture(scope="session")
def tvs_bin():
    return os.environ.get("TVS_BIN") or os.path.join(ROOT, "build", "tvs")
