"""Prefix of runtime length n (scalar param) and a chained comparison."""
import numpy as np

FUNC = "prefix"
INPUTS = {"A": ((64,), "float32"), "n": ("scalar", "int32", 23)}


def reference(A, n):
    B = np.zeros(64, np.float32)
    B[:n] = A[:n] * np.float32(2)
    i = np.arange(64)
    C = np.where((0 < i) & (i < n), A, np.float32(-1)).astype(np.float32)
    return {"B": B, "C": C}
