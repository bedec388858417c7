"""GELU with erf."""
import math

import numpy as np

FUNC = "gelu"
INPUTS = {"X": ((8, 64), "float32")}
RANGE = {"X": (-4.0, 4.0)}


def reference(X):
    x = X.astype(np.float64)
    erf = np.vectorize(math.erf)
    return {"Y": (0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))).astype(np.float32)}
