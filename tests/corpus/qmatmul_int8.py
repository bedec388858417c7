"""int8 x int8 -> int32 matmul, then requantise: clamp((C + 256) >> 9, -128, 127)."""
import numpy as np

FUNC = "qmatmul"
INPUTS = {"A": ((32, 64), "int8"), "B": ((64, 48), "int8")}
RANGE = {"A": (-128, 127), "B": (-128, 127)}


def reference(A, B):
    C = A.astype(np.int64) @ B.astype(np.int64)
    Q = np.clip((C + 256) >> 9, -128, 127)
    return {"C": C.astype(np.int32), "Q": Q.astype(np.int8)}
