"""_dlpack.py - a writable NumPy view of any object with __dlpack__ (NumPy
1.24's own from_dlpack returns read-only arrays): the capsule's DLTensor is
read through ctypes, the producer's deleter runs when the view is freed."""
import ctypes

import numpy as np


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(_DLManagedTensor))
_DLManagedTensor._fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _DELETER)]

_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype, _get_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
_set_name = ctypes.pythonapi.PyCapsule_SetName
_set_name.restype, _set_name.argtypes = ctypes.c_int, [ctypes.py_object, ctypes.c_char_p]

_CODES = {0: "int", 1: "uint", 2: "float", 6: "bool"}


class _Owner:
    """Holds the producer's tensor until the last NumPy view goes."""

    def __init__(self, ptr, managed):
        self._ptr, self._managed = ptr, managed

    def __del__(self):
        if self._managed.deleter:
            self._managed.deleter(ctypes.cast(self._ptr, ctypes.POINTER(_DLManagedTensor)))


def to_numpy(x):
    """A writable NumPy array over x's memory (CPU tensors only)."""
    if isinstance(x, np.ndarray):
        return x
    dev = x.__dlpack_device__()[0] if hasattr(x, "__dlpack_device__") else 1
    if dev not in (1, 3):  # kDLCPU, kDLCUDAHost
        raise NotImplementedError(f"tvs: DLPack device type {dev} is not implemented (TVS runs on the CPU)")
    cap = x.__dlpack__()
    ptr = _get_pointer(cap, b"dltensor")
    _set_name(cap, b"used_dltensor")  # ours now: the capsule will not call the deleter
    managed = _DLManagedTensor.from_address(ptr)
    owner = _Owner(ptr, managed)
    t = managed.dl_tensor
    kind = _CODES.get(t.dtype.code)
    if kind is None or t.dtype.lanes != 1:
        raise NotImplementedError(f"tvs: DLPack dtype code {t.dtype.code} x{t.dtype.lanes} is not implemented")
    dtype = np.dtype("bool" if kind == "bool" else f"{kind}{t.dtype.bits}")
    shape = tuple(t.shape[i] for i in range(t.ndim))
    item = dtype.itemsize
    if t.strides:
        strides = tuple(t.strides[i] * item for i in range(t.ndim))
    else:
        strides, acc = [], item
        for d in reversed(shape):
            strides.insert(0, acc)
            acc *= max(d, 1)
        strides = tuple(strides)
    if 0 in shape or not t.data:
        return np.zeros(shape, dtype)
    span = item + sum((d - 1) * abs(s) for d, s in zip(shape, strides))
    raw = (ctypes.c_char * span).from_address(t.data + t.byte_offset)
    base = np.frombuffer(raw, dtype=np.uint8)
    base_holder = np.ndarray(shape, dtype=dtype, buffer=base, strides=strides)
    raw._tvs_owner = owner  # the view -> the ctypes buffer -> the owner (deleter on last use)
    return base_holder
