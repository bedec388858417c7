"""Cast semantics: trunc toward zero, wraparound, bool, fp16 rounding."""
import numpy as np

FUNC = "casts"
INPUTS = {"F": ((64,), "float32"), "N": ((64,), "int32")}
RANGE = {"F": (-300.0, 300.0), "N": (-1000, 1000)}


def _wrap(x, dtype):
    # two's-complement truncation, as a C cast to a narrower int type
    return np.asarray(x, np.int64).astype(dtype)


def reference(F, N):
    t = np.trunc(F.astype(np.float64)).astype(np.int64)
    return {
        "Oi32": t.astype(np.int32),
        "Oi8": np.stack([_wrap(N, np.int8), _wrap(t, np.int8),
                         np.trunc((F * np.float32(0.4)).astype(np.float64)).astype(np.int8)]),
        "Ou8": np.stack([_wrap(N, np.uint8),
                         np.trunc((np.abs(F) * np.float32(0.8)).astype(np.float64)).astype(np.uint8)]),
        "Of32": (N.astype(np.float32) * np.float32(0.5)).astype(np.float32),
        "Oi64": N.astype(np.int64) * np.int64(3000000000),
        "Of16": (F / np.float32(7)).astype(np.float16),
        "Ob": (N % 3) != 0,
    }
