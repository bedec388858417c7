"""Sum into a 0-d buffer, then scale by a 0-d input."""
import numpy as np

FUNC = "zero_d"
INPUTS = {"A": ((8, 16), "float32"), "alpha": ((), "float32")}


def reference(A, alpha):
    s = A.astype(np.float64).sum()
    return {"S": np.array(s, np.float32), "M": np.array(s * float(alpha) / 128.0, np.float32)}
