"""Batched matmul C[b] = A[b] @ B[b]."""
import numpy as np

FUNC = "batch_matmul"
INPUTS = {"A": ((4, 32, 48), "float32"), "B": ((4, 48, 40), "float32")}


def reference(A, B):
    return {"C": np.matmul(A.astype(np.float64), B.astype(np.float64)).astype(np.float32)}
