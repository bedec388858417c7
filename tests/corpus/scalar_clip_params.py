"""B = clip(A, lo, hi) * k with scalar params between buffer params."""
import numpy as np

FUNC = "clip_scale"
INPUTS = {"A": ((8, 32), "float32"), "lo": ("scalar", "float32", -0.25),
          "hi": ("scalar", "float32", 0.5), "k": ("scalar", "int32", 3)}
RANGE = {"A": (-1.0, 1.0)}


def reference(A, lo, hi, k):
    return {"B": (np.clip(A, np.float32(lo), np.float32(hi)) * np.float32(k)).astype(np.float32)}
