"""Float + - * /, unary minus and literal typing."""
import numpy as np

FUNC = "arith"
INPUTS = {"A": ((32, 32), "float32"), "B": ((32, 32), "float32")}


def reference(A, B):
    f = np.float32
    i = np.arange(32).reshape(32, 1)
    j = np.arange(32).reshape(1, 32)
    C = np.stack([
        A + B * f(2) - f(0.5),
        A / (np.abs(B) + f(1)),
        -A * (f(1) - B),
        A / f(4) + (i - j).astype(f) / f(8),
    ])
    return {"C": C.astype(np.float32)}
