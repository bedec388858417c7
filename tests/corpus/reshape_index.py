"""Row-major reshapes."""
import numpy as np

FUNC = "reshapes"
INPUTS = {"A": ((8, 32), "float32")}


def reference(A):
    return {"B": A.reshape(16, 16).copy(), "C": A.reshape(2, 4, 32).copy()}
