"""C = A * scale[c] + B^T(h, w) on NCHW tensors."""
import numpy as np

FUNC = "scale_add_4d"
INPUTS = {"A": ((2, 3, 8, 8), "float32"), "scale": ((3,), "float32"), "B": ((2, 3, 8, 8), "float32")}


def reference(A, scale, B):
    return {"C": (A * scale[None, :, None, None] + B.transpose(0, 1, 3, 2)).astype(np.float32)}
