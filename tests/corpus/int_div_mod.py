"""floordiv/floormod (Python semantics) vs truncdiv/truncmod (C semantics)."""
import numpy as np

FUNC = "int_div_mod"
INPUTS = {"A": ((64,), "int32"), "D": ((64,), "int32")}
RANGE = {"A": (-50, 50), "D": (1, 9)}


def _truncdiv(a, d):
    a = a.astype(np.int64)
    d = np.broadcast_to(np.asarray(d, np.int64), a.shape)
    q = np.abs(a) // np.abs(d)
    return np.where((a < 0) != (d < 0), -q, q)


def _truncmod(a, d):
    a64 = a.astype(np.int64)
    return a64 - _truncdiv(a, d) * np.asarray(d, np.int64)


def reference(A, D):
    a, d = A.astype(np.int64), D.astype(np.int64)
    v = np.arange(64, dtype=np.int64) - 32
    Q = np.stack([
        a // d, a % d,
        a // -d, a % -d,
        _truncdiv(a, d), _truncmod(a, d),
        _truncdiv(a, -d), _truncmod(a, -d),
        a // -3, a % -3,
        (a // 4) * 10 + a % 8,
        (v // 5) * 100 + v % 5,
    ])
    return {"Q": Q.astype(np.int32)}
