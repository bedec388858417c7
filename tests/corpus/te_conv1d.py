"""TE conv1d: Y[n, f, x] = sum_{c, r} pad(X)[n, c, x + r] * W[f, c, r], padding 2."""
import numpy as np

FUNC = "conv1d"
INPUTS = {"X": ((2, 3, 32), "float32"), "W": ((4, 3, 5), "float32")}


def reference(X, W):
    p = np.pad(X.astype(np.float64), ((0, 0), (0, 0), (2, 2)))
    w = W.astype(np.float64)
    y = np.zeros((2, 4, 32))
    for r in range(5):
        y += np.einsum("ncx,fc->nfx", p[:, :, r:r + 32], w[:, :, r])
    return {"Y": y.astype(np.float32)}
