"""-2 * (0.5 * x + 1) + 0.25 with R.const arguments."""
import numpy as np

FUNC = "main"
INPUTS = {"x": ((4, 4), "float32")}


def reference(x):
    f = np.float32
    lv = x * f(0.5) + f(1.0)
    return {"output": (lv * f(-2.0) + f(0.25)).astype(np.float32)}
