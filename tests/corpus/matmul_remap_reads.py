"""C = A @ B.T with remap("SSR") and explicit reads/writes (varargs form)."""
import numpy as np

FUNC = "main"
INPUTS = {"A": ((64, 96), "float32"), "B": ((80, 96), "float32")}


def reference(A, B):
    return {"C": (A.astype(np.float64) @ B.astype(np.float64).T).astype(np.float32)}
