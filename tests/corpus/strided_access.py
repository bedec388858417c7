"""Even/odd split and pair swap with strided indices."""
import numpy as np

FUNC = "deinterleave"
INPUTS = {"A": ((128,), "float32")}


def reference(A):
    return {"E": A[0::2].copy(), "O": A[1::2].copy(),
            "Z": A.reshape(64, 2)[:, ::-1].reshape(128).copy()}
