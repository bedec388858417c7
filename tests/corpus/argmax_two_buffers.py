"""Row argmax with its value."""
import numpy as np

FUNC = "argmax"
INPUTS = {"A": ((16, 32), "float32")}


def reference(A):
    return {"idx": A.argmax(axis=1).astype(np.int32), "val": A.max(axis=1)}
