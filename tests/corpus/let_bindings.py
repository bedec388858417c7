"""x = e and x: T.int32 = e let bindings."""
import numpy as np

FUNC = "lets"
INPUTS = {"A": ((64,), "float32"), "N": ((64,), "int32")}
RANGE = {"N": (-40, 40)}


def reference(A, N):
    x = A * np.float32(2)
    y = x + np.float32(1)
    k = N.astype(np.int64) * 3 + np.arange(64)
    m = k // 4
    return {"B": (x * y - A).astype(np.float32), "J": (m * m - k).astype(np.int32)}
