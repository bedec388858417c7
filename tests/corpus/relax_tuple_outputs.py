"""Row min and row max returned as a tuple (output_0, output_1)."""
import numpy as np

FUNC = "main"
INPUTS = {"x": ((8, 16), "float32")}


def reference(x):
    return {"output_0": x.min(axis=1), "output_1": x.max(axis=1)}
