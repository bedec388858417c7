"""TE mm_relu: C = relu(A @ B), 128x128 float32 (Y is an intermediate)."""
import numpy as np

FUNC = "mm_relu"
INPUTS = {"A": ((128, 128), "float32"), "B": ((128, 128), "float32")}


def reference(A, B):
    y = A.astype(np.float64) @ B.astype(np.float64)
    return {"C": np.maximum(y, 0.0).astype(np.float32)}
