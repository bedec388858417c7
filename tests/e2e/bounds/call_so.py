"""Calls the direct entry of a tvsc --bounds-check .so with an out-of-bounds
index and prints its return code and the runtime's last error, then again
with the index in bounds.  usage: call_so.py KERNEL.so LIBTVS_RUNTIME.so"""
import ctypes
import sys

lib = ctypes.CDLL(sys.argv[1])
rt = ctypes.CDLL(sys.argv[2])
rt.tvs_get_last_error.restype = ctypes.c_char_p
a = (ctypes.c_float * 16)(*range(16))
idx = (ctypes.c_int32 * 8)(0, 1, 2, 3, 4, 5, 6, 99)
b = (ctypes.c_float * 8)()
print("rc", lib.gather(a, idx, b))
print("error", rt.tvs_get_last_error().decode())
idx[7] = 7
print("rc", lib.gather(a, idx, b), "b", " ".join(str(int(v)) for v in b))
