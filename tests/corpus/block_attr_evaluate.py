"""B = A*A + A.T with annotated blocks and T.evaluate(0)."""
import numpy as np

FUNC = "annotated"
INPUTS = {"A": ((64, 64), "float32")}


def reference(A):
    return {"B": (A * A + A.T).astype(np.float32)}
