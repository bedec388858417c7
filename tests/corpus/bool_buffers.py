"""bool inputs/outputs, logical ops, bool -> int32 count."""
import numpy as np

FUNC = "bools"
INPUTS = {"A": ((64,), "float32"), "M": ((64,), "bool")}


def reference(A, M):
    i = np.arange(64)
    return {"O": ((A > 0) & ~M) | (i == 0),
            "F": np.where(M, A, np.float32(0)).astype(np.float32),
            "cnt": np.array(M.sum(), np.int32)}
