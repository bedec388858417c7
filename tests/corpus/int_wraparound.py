"""Two's-complement wraparound in int8 / uint8 / int16."""
import numpy as np

FUNC = "wraparound"
INPUTS = {"A": ((128,), "int8"), "B": ((128,), "int8"), "X": ((128,), "uint8"),
          "Y": ((128,), "uint8"), "H": ((128,), "int16")}
RANGE = {"A": (-128, 127), "B": (-128, 127), "X": (0, 255), "Y": (0, 255), "H": (-2000, 2000)}


def reference(A, B, X, Y, H):
    a, b = A.astype(np.int64), B.astype(np.int64)
    x, y = X.astype(np.int64), Y.astype(np.int64)
    return {
        "S8": np.stack([a + b, a * b, a + 100]).astype(np.int8),
        "U8": np.stack([(x + y) % 256, (x - y) % 256]).astype(np.uint8),
        "S16": (H.astype(np.int64) * 40).astype(np.int16),
    }
