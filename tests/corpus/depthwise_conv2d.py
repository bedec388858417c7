"""Depthwise 3x3 conv, stride 2, pad 1, plus per-channel bias."""
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

FUNC = "depthwise_conv2d"
INPUTS = {"I": ((1, 8, 16, 16), "float32"), "W": ((8, 1, 3, 3), "float32"), "bias": ((8,), "float32")}


def reference(I, W, bias):
    x = np.pad(I.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    win = sliding_window_view(x, (3, 3), axis=(2, 3))[:, :, ::2, ::2]   # (1, 8, 8, 8, 3, 3)
    out = np.einsum("nchwij,cij->nchw", win, W[:, 0].astype(np.float64))
    return {"O": (out + bias[None, :, None, None]).astype(np.float32)}
