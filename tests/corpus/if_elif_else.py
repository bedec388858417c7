"""if/elif/else chains in blocks and a bare if in a loop."""
import numpy as np

FUNC = "branches"
INPUTS = {"A": ((64,), "float32")}


def reference(A):
    B = np.where(A < -0.5, np.float32(-1), np.where(A < 0.5, A * np.float32(2), np.float32(1)))
    i = np.arange(64)
    C = np.where(i % 3 == 0, A + np.float32(10), np.float32(0))
    D = np.select([i % 4 == 0, i % 4 == 1, i % 4 == 2], [i, -i, i * i], 7)
    return {"B": B.astype(np.float32), "C": C.astype(np.float32), "D": D.astype(np.int32)}
