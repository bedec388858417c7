"""clip(x, 0, 6)."""
import numpy as np

FUNC = "relu6"
INPUTS = {"X": ((4, 8, 16), "float32")}
RANGE = {"X": (-10.0, 10.0)}


def reference(X):
    return {"Y": np.clip(X, 0, 6).astype(np.float32)}
