"""uint16/uint32/uint64/int64/int16 arithmetic with wraparound."""
import numpy as np

FUNC = "small_ints"
INPUTS = {"U16": ((32,), "uint16"), "U32": ((32,), "uint32"), "U64": ((32,), "uint64"),
          "I64": ((32,), "int64"), "I16": ((32,), "int16")}
RANGE = {"U16": (0, 65535), "U32": (0, 4000000000), "U64": (0, 10 ** 18),
         "I64": (-10 ** 12, 10 ** 12), "I16": (-32768, 32767)}


def reference(U16, U32, U64, I64, I16):
    u32 = U32.astype(np.uint64)
    return {
        "OU16": ((U16.astype(np.int64) + 40000) % 65536).astype(np.uint16),
        "OU32": np.stack([u32 // 7 + u32 % 7, u32 >> np.uint64(3)]).astype(np.uint32),
        "OU64": U64 * np.uint64(20),          # numpy uint64 multiply wraps mod 2^64
        "OI64": np.stack([I64 // 1000, I64 % 1000]),
        "OI16": ((I16.astype(np.int64) - 1000 + 32768) % 65536 - 32768).astype(np.int16),
    }
