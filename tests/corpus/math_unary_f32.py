"""exp log sqrt rsqrt tanh sigmoid erf floor ceil round trunc fabs exp2 log2 sin cos abs."""
import math

import numpy as np

FUNC = "math_unary"
INPUTS = {"X": ((64,), "float32")}
RANGE = {"X": (-2.0, 2.0)}
RTOL = 1e-5
ATOL = 1e-6


def reference(X):
    x = X.astype(np.float64)
    p = np.abs(X) + np.float32(0.5)          # float32 sum, as in the program
    p64 = p.astype(np.float64)
    x3 = (X * np.float32(3)).astype(np.float64)  # float32 product
    halves = (np.arange(64) - 32).astype(np.float32) * np.float32(0.5)
    erf = np.vectorize(math.erf)
    Y = np.stack([
        np.exp(x),
        np.log(p64),
        np.sqrt(p64),
        1.0 / np.sqrt(p64),
        np.tanh(x),
        1.0 / (1.0 + np.exp(-x)),
        erf(x),
        np.floor(x3),
        np.ceil(x3),
        np.rint(x3),                       # round half to even
        np.rint(halves.astype(np.float64)),
        np.trunc(x3),
        np.abs(x),
        np.exp2(x),
        np.log2(p64),
        np.sin(x3),
        np.cos(x3),
        -np.abs(x),
    ])
    return {"Y": Y.astype(np.float32)}
