"""runtime.py - tvs.runtime: compiled modules (tvm.runtime.Module) and their
functions, called on tvs.nd arrays, NumPy arrays or anything with __dlpack__
(PyTorch tensors), zero-copy: the compiled code reads and writes their memory.

The call path is kept short (it is measured: a few microseconds per call):
one reusable DLTensor per parameter, the data pointer from the buffer
protocol, the shape copied in, a cached dtype."""
import threading

import numpy as np

from . import _ffi
from .base import RunError, TVMError, check
from .ndarray import NDArray

ffi, lib = _ffi.ffi, _ffi.lib

_kDLBool = 6
_DTYPES = {}  # numpy dtype -> (code, bits, lanes)
for _name, _code in (("int8", 0), ("int16", 0), ("int32", 0), ("int64", 0), ("uint8", 1), ("uint16", 1),
                     ("uint32", 1), ("uint64", 1), ("float16", 2), ("float32", 2), ("float64", 2)):
    _d = np.dtype(_name)
    _DTYPES[_d] = (_code, _d.itemsize * 8, 1)
_DTYPES[np.dtype("bool")] = (_kDLBool, 8, 1)
_NP_OF = {v: k for k, v in _DTYPES.items()}


def _dtype_str(dt):
    np_dt = _NP_OF.get((dt.code, dt.bits, dt.lanes))
    if np_dt is not None:
        return str(np_dt)
    return {(4, 16, 1): "bfloat16"}.get((dt.code, dt.bits, dt.lanes), f"dtype({dt.code},{dt.bits},{dt.lanes})")


_TORCH_DTYPES = None


def _is_torch(a):
    return type(a).__module__.startswith("torch") and hasattr(a, "data_ptr")


def _torch_dtypes():
    global _TORCH_DTYPES
    if _TORCH_DTYPES is None:
        import torch
        names = {"int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64", "uint8": "uint8",
                 "float16": "float16", "float32": "float32", "float64": "float64", "bool": "bool"}
        _TORCH_DTYPES = {getattr(torch, k): _DTYPES[np.dtype(v)] for k, v in names.items()}
    return _TORCH_DTYPES


class PackedFunc:
    """A compiled function: f(a, b, c) on tensors (and int/float scalars)."""

    def __init__(self, handle, name):
        # (no reference to the Python Module: the C function keeps the code alive,
        # and a cycle would hold compiled modules until the garbage collector runs)
        self._h = ffi.gc(handle, lib.tvs_function_release)
        self.name = name
        self._nparams = lib.tvs_function_num_params(self._h)
        self._nout = lib.tvs_function_num_outputs(self._h)
        cap = self._cap = max(self._nparams, 1)
        self._ldt = [None] * cap
        self.release_arguments()
        self._args = ffi.new("TvsArg[]", cap)
        self._tensors = ffi.new("DLTensor[]", cap)
        self._shapes = [ffi.new("int64_t[8]") for _ in range(cap)]
        for i in range(cap):
            t = self._tensors[i]
            t.device.device_type, t.shape = 1, self._shapes[i]
            self._args[i].tensor = ffi.addressof(self._tensors, i)

    # -- parameters
    def params(self):
        """[(name, kind, dtype, shape)] from the compiled metadata; symbolic dims by name."""
        res = []
        for i in range(max(self._nparams, 0)):
            name, typ, dt = ffi.new("char **"), ffi.new("int *"), ffi.new("DLDataType *")
            ndim, shape, syms = ffi.new("int *"), ffi.new("int64_t **"), ffi.new("char ***")
            check(lib.tvs_function_param(self._h, i, name, typ, dt, ndim, shape, syms))
            dims = []
            for d in range(ndim[0]):
                v = shape[0][d]
                if v < 0 and syms[0] != ffi.NULL and syms[0][d] != ffi.NULL:
                    dims.append(ffi.string(syms[0][d]).decode())
                else:
                    dims.append(int(v))
            kind = ("tensor", "int", "float")[typ[0]]
            res.append((ffi.string(name[0]).decode(), kind, _dtype_str(dt[0]), tuple(dims)))
        return res

    @property
    def num_outputs(self):
        return self._nout

    # -- calling
    # The arrays of the last call stay bound (the DLTensors point into them,
    # and the buffer exports keep NumPy from resizing them): calling again on
    # the same arrays re-checks only their shapes.
    def _set(self, i, a):
        arg = self._args[i]
        obj = a
        cacheable = True
        if type(a) is not np.ndarray:
            if isinstance(a, NDArray):
                a = a._np
            elif isinstance(a, (bool, int, np.integer)):
                arg.type, arg.i = 1, int(a)
                self._lobj[i] = None
                return
            elif isinstance(a, (float, np.floating)):
                arg.type, arg.f = 2, float(a)
                self._lobj[i] = None
                return
            elif _is_torch(a):
                self._set_torch(i, a)
                return
            elif hasattr(a, "__dlpack__"):
                a, cacheable = np.from_dlpack(a), False  # (it may be resized in place)
            else:
                raise TypeError(f"{self.name}: argument {i}: expected a tensor (tvs.nd.NDArray, numpy array or "
                                f"DLPack object) or a scalar, got {type(a).__name__}")
        dt = _DTYPES.get(a.dtype)
        if dt is None:
            raise RunError(f"{self.name}: argument {i}: dtype {a.dtype} is not supported by TVS")
        try:
            buf = ffi.from_buffer(a)  # (read-only arrays too: require_writable is False by default)
        except (BufferError, ValueError, TypeError):
            raise RunError(f"{self.name}: argument {i}: the array is not C-contiguous (pass "
                           f"numpy.ascontiguousarray(x))") from None
        t = self._tensors[i]
        t.data = buf
        shape = a.shape
        self._set_shape_dtype(i, t, shape, dt)
        arg.type = 0
        self._lbuf[i] = buf
        self._larr[i] = a
        self._lshape[i] = shape
        self._lobj[i] = obj if cacheable else None

    def _set_shape_dtype(self, i, t, shape, dt):
        if shape != self._tshape[i]:  # (writing the shape costs more than comparing it)
            n = len(shape)
            if n > 8:
                raise RunError(f"{self.name}: argument {i}: {n} dimensions (at most 8)")
            t.ndim = n
            self._shapes[i][0:n] = shape
            self._tshape[i] = shape
        if self._ldt[i] is not dt:
            t.dtype.code, t.dtype.bits, t.dtype.lanes = dt
            self._ldt[i] = dt

    def _set_torch(self, i, a):
        """A PyTorch tensor without going through a DLPack capsule (the call
        holds the tensor; it is not kept for the next call)."""
        if a.device.type != "cpu":
            raise RunError(f"{self.name}: argument {i}: a {a.device.type} tensor (TVS runs on the CPU)")
        if not a.is_contiguous():
            raise RunError(f"{self.name}: argument {i}: the tensor is not contiguous (pass x.contiguous())")
        dt = _torch_dtypes().get(a.dtype)
        if dt is None:
            raise RunError(f"{self.name}: argument {i}: dtype {a.dtype} is not supported by TVS")
        t = self._tensors[i]
        t.data = ffi.cast("void *", a.data_ptr())
        self._set_shape_dtype(i, t, tuple(a.shape), dt)
        self._args[i].type = 0
        self._lobj[i] = None

    def _prepare(self, args):
        n = len(args)
        if n > self._cap:
            raise RunError(f"{self.name}: expected {self._nparams} arguments, got {n}")
        lobj, larr, lshape = self._lobj, self._larr, self._lshape
        for i in range(n):
            a = args[i]
            if a is lobj[i] and a is not None and larr[i].shape == lshape[i]:
                continue
            self._set(i, a)

    def __call__(self, *args):
        outs = None
        if self._nout and len(args) == self._nparams - self._nout:
            outs = self._alloc_outputs(args)  # a graph function called with its inputs only
            args = args + tuple(outs)
        self._prepare(args)
        rc = lib.tvs_function_call(self._h, self._args, len(args))
        if rc:
            check(rc)
        if outs is not None:
            return outs[0] if len(outs) == 1 else tuple(outs)
        return None

    def release_arguments(self):
        """Drops the arrays of the last call (they are kept to make repeated calls cheap)."""
        n = self._cap
        self._lobj, self._larr, self._lshape, self._lbuf = [None] * n, [None] * n, [None] * n, [None] * n
        self._tshape = [None] * n  # the shape each DLTensor holds now

    def _alloc_outputs(self, inputs):
        params = self.params()
        env = {}
        for (name, kind, dtype, shape), a in zip(params, inputs):
            if kind == "tensor":
                arr_shape = np.shape(a.numpy() if isinstance(a, NDArray) else a)
                for d, s in zip(shape, arr_shape):
                    if isinstance(d, str):
                        env.setdefault(d, s)
        outs = []
        for name, kind, dtype, shape in params[len(inputs):]:
            dims = []
            for d in shape:
                if isinstance(d, str) and d not in env:
                    raise RunError(f"{self.name}: cannot size output '{name}': its dim '{d}' is not an input's")
                dims.append(env[d] if isinstance(d, str) else d)
            outs.append(NDArray(np.zeros(dims, dtype=dtype)))
        return outs

    def time(self, args, number=10, repeat=1, min_repeat_ms=0):
        self._prepare(args)
        res = ffi.new("double[]", repeat)
        check(lib.tvs_function_time(self._h, self._args, len(args), number, repeat, float(min_repeat_ms), res))
        return [res[i] for i in range(repeat)]


Function = PackedFunc


class BenchmarkResult:
    """What time_evaluator's function returns: seconds per call."""

    def __init__(self, results):
        self.results = tuple(results)
        self.mean = float(np.mean(results))
        self.median = float(np.median(results))
        self.min, self.max = float(np.min(results)), float(np.max(results))
        self.std = float(np.std(results))

    def __repr__(self):
        return (f"BenchmarkResult(min={self.min:.6g}, mean={self.mean:.6g}, median={self.median:.6g}, "
                f"max={self.max:.6g}, std={self.std:.6g})")

    __str__ = __repr__


class Module:
    """A compiled module (tvm.runtime.Module): m["f"], m.f, time_evaluator, export_library."""

    def __init__(self, handle, ir=None):
        self._h = ffi.gc(handle, lib.tvs_executable_release)
        self._ir = ir  # the IRModule built (for export_library)
        self._local = threading.local()  # function objects per thread (each has its own argument scratch)

    @property
    def type_key(self):
        return "llvm"

    def function_names(self):
        return [ffi.string(lib.tvs_executable_func_name(self._h, i)).decode()
                for i in range(lib.tvs_executable_num_funcs(self._h))]

    def get_function(self, name, query_imports=False):
        funcs = getattr(self._local, "funcs", None)
        if funcs is None:
            funcs = self._local.funcs = {}
        f = funcs.get(name)
        if f is None:
            out = ffi.new("TvsFunction **")
            check(lib.tvs_executable_get_function(self._h, name.encode(), out))
            f = funcs[name] = PackedFunc(out[0], name)
        return f

    def __getitem__(self, name):
        return self.get_function(name)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        if name in self.function_names():
            return self.get_function(name)
        raise AttributeError(f"module has no function '{name}'")

    def __contains__(self, name):
        return name in self.function_names()

    @property
    def entry_name(self):
        names = self.function_names()
        return "main" if "main" in names else names[0]

    def __call__(self, *args):
        return self.get_function(self.entry_name)(*args)

    def time_evaluator(self, func_name, dev=None, number=10, repeat=1, min_repeat_ms=0, **_ignored):
        f = self.get_function(func_name)

        def evaluator(*args):
            return BenchmarkResult(f.time(args, number, repeat, min_repeat_ms))

        return evaluator

    def export_library(self, path, *args, **kwargs):
        if self._ir is None:
            raise TVMError("export_library: this module was loaded from a file, not built")
        from .driver import _target_str
        check(lib.tvs_export_library(self._ir._h, _target_str(kwargs.get("target")).encode(), str(path).encode()))

    def get_source(self, fmt="ll"):
        if self._ir is None:
            raise TVMError("get_source: this module was loaded from a file")
        return self._ir.stage({"ll": "llvm", "llvm": "llvm", "asm": "asm", "s": "asm"}.get(fmt, fmt))


def load_module(path):
    out = ffi.new("TvsExecutable **")
    check(lib.tvs_executable_load(str(path).encode(), out))
    return Module(out[0])


def set_num_threads(n):
    check(lib.tvs_set_num_threads(int(n)))


__all__ = ["Module", "PackedFunc", "NDArray", "load_module", "BenchmarkResult", "set_num_threads"]
