"""Transpose through T.handle + T.match_buffer parameters."""
import numpy as np

FUNC = "transpose"
INPUTS = {"A": ((96, 128), "float32")}


def reference(A):
    return {"B": np.ascontiguousarray(A.T)}
