"""Sequential cumulative sum (float32 accumulation), n = 100."""
import numpy as np

FUNC = "cumsum"
INPUTS = {"A": ((100,), "float32")}


def reference(A):
    out = np.empty_like(A)
    acc = np.float32(0)
    for i in range(A.shape[0]):          # sequential float32 accumulation
        acc = np.float32(acc + A[i])
        out[i] = acc
    return {"B": out}
