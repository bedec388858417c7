"""Typed literal constants of every dtype."""
import numpy as np

FUNC = "literals"
INPUTS = {"A": ((16,), "int8"), "B": ((16,), "uint8"), "C": ((16,), "int64"),
          "D": ((16,), "bool"), "E": ((16,), "float32"), "F": ((16,), "float64"),
          "H": ((16,), "float16")}
RANGE = {"A": (0, 10), "C": (-1000000, 1000000)}


def reference(A, B, C, D, E, F, H):
    i = np.arange(16)
    return {
        "OA": (A.astype(np.int64) * 3 - 128).astype(np.int8),
        "OB": (255 - B.astype(np.int64)).astype(np.uint8),
        "OC": C * np.int64(3) + np.int64(10000000000),
        "OD": (~D) | (i == 3),
        "OE": (E * np.float32(0.5) + np.float32(0.001)).astype(np.float32),
        "OF": F * 0.1 + 1e-10,
        "OH": (H * np.float16(0.5) + np.float16(0.25)).astype(np.float16),
        "OS": (-300 + A.astype(np.int64) * 2).astype(np.int16),
        "OU": ((4000000000 + B.astype(np.uint64) * 65535) % (1 << 32)).astype(np.uint32),
    }
