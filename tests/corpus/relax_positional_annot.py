"""x*x - y*y with positional out_sinfo and annotated bindings."""
import numpy as np

FUNC = "main"
INPUTS = {"x": ((4, 8), "float32"), "y": ((4, 8), "float32")}


def reference(x, y):
    return {"output": (x * x - y * y).astype(np.float32)}
