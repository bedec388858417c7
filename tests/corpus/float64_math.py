"""float64 math and a float64 matrix-vector product."""
import numpy as np

FUNC = "f64"
INPUTS = {"X": ((32, 32), "float64"), "W": ((32,), "float64")}
RANGE = {"X": (-3.0, 3.0)}
RTOL = 1e-12
ATOL = 1e-13


def reference(X, W):
    Y = np.exp(X * 0.1) + np.sqrt(np.abs(X)) - np.log(X * X + 1.0)
    return {"Y": Y, "Z": X @ W}
