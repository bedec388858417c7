"""Selects with and/or/not and a chained comparison."""
import numpy as np

FUNC = "select_logic"
INPUTS = {"A": ((64,), "float32"), "B": ((64,), "float32")}


def reference(A, B):
    i = np.arange(64)
    f = np.float32
    S = np.stack([
        np.where((A > 0) & (B > 0), A + B, f(0)),
        np.where((A < B) | (i % 2 == 0), A, B),
        np.where(~(A >= 0), -A, A * f(2)),
        np.where((0 <= i - 16) & (i - 16 < 32), A, B),
        np.where((i != 5) & ((A <= B) | (i == 7)), f(1), f(-1)),
    ])
    return {"S": S.astype(np.float32)}
