"""relu(X @ W.T + bias) through three blocks."""
import numpy as np

FUNC = "dense_bias_relu"
INPUTS = {"X": ((32, 64), "float32"), "W": ((48, 64), "float32"), "bias": ((48,), "float32")}


def reference(X, W, bias):
    y = X.astype(np.float64) @ W.astype(np.float64).T + bias.astype(np.float64)
    return {"Out": np.maximum(y, 0.0).astype(np.float32)}
