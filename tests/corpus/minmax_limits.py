"""pow, max/min, and dtype extremes."""
import numpy as np

FUNC = "minmax_limits"
INPUTS = {"X": ((64,), "float32"), "Z": ((64,), "float32"), "N": ((64,), "int32")}
RANGE = {"X": (-2.0, 2.0), "Z": (-3.0, 3.0), "N": (0, 10)}


def reference(X, Z, N):
    f32 = np.finfo(np.float32)
    base = (np.abs(X) + np.float32(0.5)).astype(np.float64)
    F = np.stack([
        np.power(base, Z.astype(np.float64)).astype(np.float32),
        np.maximum(X, Z),
        np.minimum(X, Z),
        np.full(64, f32.min, np.float32),
        np.full(64, f32.max, np.float32),
        np.minimum(np.maximum(X, f32.min), np.float32(0.25)),
    ]).astype(np.float32)
    n = N.astype(np.int64)
    I = np.stack([
        2147483647 - n,
        np.maximum(n - 2147483647, -2147483648),
        np.minimum(n * 3, 2147483647),
        np.maximum(np.minimum(n, 4), 2),
    ]).astype(np.int32)
    return {"F": F, "I": I}
