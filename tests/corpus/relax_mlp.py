"""MLP: linear(784->128) -> relu -> linear(128->10)."""
import numpy as np

FUNC = "main"
INPUTS = {"x": ((1, 784), "float32"), "w0": ((128, 784), "float32"), "b0": ((128,), "float32"),
          "w1": ((10, 128), "float32"), "b1": ((10,), "float32")}
RANGE = {"w0": (-0.1, 0.1), "w1": (-0.2, 0.2)}


def reference(x, w0, b0, w1, b1):
    d = np.float64
    h = np.maximum(x.astype(d) @ w0.astype(d).T + b0, 0.0)
    return {"output": (h @ w1.astype(d).T + b1).astype(np.float32)}
