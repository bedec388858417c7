"""float16 arithmetic with per-operation rounding (numpy float16 ops round each result)."""
import numpy as np

FUNC = "fp16_chain"
INPUTS = {"A": ((16, 16), "float16"), "B": ((16, 16), "float16"), "C": ((16, 16), "float16")}
RANGE = {"A": (-4.0, 4.0), "B": (-4.0, 4.0), "C": (-4.0, 4.0)}
RTOL = 0.0
ATOL = 0.0


def reference(A, B, C):
    h = np.float16
    D = (A * B + C) * h(0.333) - A / (np.abs(B) + h(1))
    S = np.zeros(16, np.float16)
    for k in range(16):                   # sequential fp16 accumulation
        S = S + A[:, k] * h(8.5)
    return {"D": D.astype(np.float16), "S": S.astype(np.float16)}
