"""concatenate along axis 0 and axis 1."""
import numpy as np

FUNC = "concat"
INPUTS = {"A": ((4, 16), "float32"), "B": ((6, 16), "float32")}


def reference(A, B):
    return {"C": np.concatenate([A, B], axis=0), "D": np.concatenate([A, B[2:6]], axis=1)}
