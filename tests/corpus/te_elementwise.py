"""TE elementwise: C = A * B + 1 (B broadcast over rows), D = float16(min(exp(C), 4))."""
import numpy as np

FUNC = "elementwise"
INPUTS = {"A": ((16, 8), "float32"), "B": ((8,), "float32")}


def reference(A, B):
    c = (A * B + np.float32(1)).astype(np.float32)
    d = np.minimum(np.exp(c.astype(np.float64)), 4.0).astype(np.float32).astype(np.float16)
    return {"C": c, "D": d}
RTOL = 1e-3
ATOL = 1e-3
