"""Row sum of squares (S/R iters, +=) and column max (reduce loop outermost)."""
import numpy as np

FUNC = "reductions"
INPUTS = {"A": ((32, 64), "float32")}


def reference(A):
    a = A.astype(np.float64)
    return {"S": (a * a).sum(axis=1).astype(np.float32), "M": A.max(axis=0)}
