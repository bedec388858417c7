"""LayerNorm over the last axis, eps = 1e-5."""
import numpy as np

FUNC = "layernorm"
INPUTS = {"X": ((8, 64), "float32"), "gamma": ((64,), "float32"), "beta": ((64,), "float32")}
RANGE = {"X": (-2.0, 3.0)}
RTOL = 1e-4
ATOL = 1e-4


def reference(X, gamma, beta):
    x = X.astype(np.float64)
    mean = x.mean(axis=1, keepdims=True)
    var = x.var(axis=1, keepdims=True)
    return {"Y": ((x - mean) / np.sqrt(var + 1e-5) * gamma + beta).astype(np.float32)}
