"""Bitwise and/or/xor/not and shifts on int32 and uint8."""
import numpy as np

FUNC = "bitwise"
INPUTS = {"A": ((64,), "int32"), "S": ((64,), "int32"), "U": ((64,), "uint8")}
RANGE = {"A": (-100000, 100000), "S": (0, 7), "U": (0, 255)}


def reference(A, S, U):
    a, s = A.astype(np.int64), S.astype(np.int64)
    R = np.stack([
        a & 255, a | s, a ^ 90,
        a << s, a >> s,          # |a| < 2^17 and s <= 7: no int32 overflow
        a << 3, a >> s,
        (a & 12) | (s ^ 5),
        ~a,
    ]).astype(np.int32)
    u = U.astype(np.int64)
    RU = np.stack([u >> 2, 255 - u, (u << 1) & 255, u ^ 170]).astype(np.uint8)
    return {"R": R, "RU": RU}
