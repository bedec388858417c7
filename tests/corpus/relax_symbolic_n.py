"""(x * s) summed over the last axis, x of symbolic shape (n, 4) with n = 11."""
import numpy as np

FUNC = "main"
INPUTS = {"x": ((11, 4), "float32"), "s": ((4,), "float32")}


def reference(x, s):
    return {"output": (x.astype(np.float64) * s).sum(axis=1).astype(np.float32)}
