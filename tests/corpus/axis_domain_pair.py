"""B[i] = A[i] - A[i-8] for i >= 8 (iter domain given as a pair)."""
import numpy as np

FUNC = "diff8"
INPUTS = {"A": ((128,), "float32")}


def reference(A):
    B = np.zeros(128, np.float32)
    B[8:] = A[8:] - A[:-8]
    return {"B": B}
