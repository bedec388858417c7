"""Transpose of a symbolic (m, n) = (7, 12) input, band 0 <= i - j < 3 scaled by 10."""
import numpy as np

FUNC = "transpose_band"
INPUTS = {"A": ((7, 12), "float32")}


def reference(A):
    B = A.T.copy()
    i = np.arange(12).reshape(12, 1)
    j = np.arange(7).reshape(1, 7)
    band = (0 <= i - j) & (i - j < 3)
    return {"B": np.where(band, B * np.float32(10), B).astype(np.float32)}
