"""parallel/vectorized/serial(start, stop)/unroll/range/serial loops."""
import numpy as np

FUNC = "loop_kinds"
INPUTS = {"A": ((16, 32), "float32")}


def reference(A):
    B = A * np.float32(2) + np.float32(1)
    C = np.zeros(64, np.float32)
    C[16:48] = A.reshape(-1)[16:48] - np.float32(0.5)
    D = A[0::2, 0::4] + A[1::2, 3::4]
    return {"B": B.astype(np.float32), "C": C, "D": D.astype(np.float32)}
