"""tvs.relax: building graph (Relax) functions and running them like TVM's
relax.VirtualMachine: vm["main"](x, w) allocates the outputs and returns them."""
import types

import numpy as np

from . import _ffi
from .base import check
from .driver import build as _build
from .ir import IRModule, _as_module
from .runtime import _DTYPES, Module

ffi, lib = _ffi.ffi, _ffi.lib


def build(mod, target="llvm", params=None, **kwargs):
    """relax.build: the graph passes (legalize, fusion), lowering, the JIT."""
    if params:  # (TVM: constants the module names in its attributes, which TVS modules never have)
        raise NotImplementedError("tvs: relax.build(params=...) is not implemented; bind weights to "
                                  "parameters with relax.transform.BindParams(\"main\", params)(mod)")
    return _build(mod, target)


class VirtualMachine:
    """relax.VirtualMachine(ex, dev): calls the compiled graph functions."""

    def __init__(self, ex, device=None, **kwargs):
        if not isinstance(ex, Module):
            raise TypeError("VirtualMachine takes what relax.build returned")
        self._ex = ex

    def __getitem__(self, name):
        return self._ex.get_function(name)

    def time_evaluator(self, func_name, dev=None, number=10, repeat=1, min_repeat_ms=0, **kwargs):
        f = self._ex.get_function(func_name)
        from .runtime import BenchmarkResult

        def evaluator(*args):
            if f.num_outputs and len(args) == f._nparams - f.num_outputs:
                args = tuple(args) + tuple(f._alloc_outputs(args))
            return BenchmarkResult(f.time(args, number, repeat, min_repeat_ms))

        return evaluator


def __getattr__(name):
    if name == "frontend":
        import types
        from . import frontend
        return types.SimpleNamespace(from_onnx=frontend.from_onnx, onnx=types.SimpleNamespace(
            from_onnx=frontend.from_onnx))
    raise NotImplementedError(f"tvs.relax.{name} is not implemented by TVS's Python package "
                              "(write the graph in TVMScript: @R.function)")


def _host_array(name, v):
    """A parameter's value as a C-contiguous NumPy array (NumPy, tvs.nd, or
    anything with __dlpack__ / numpy())."""
    if hasattr(v, "_np"):
        v = v._np
    elif hasattr(v, "numpy") and not isinstance(v, np.ndarray):
        v = v.numpy()
    elif hasattr(v, "__dlpack__") and not isinstance(v, np.ndarray):
        v = np.from_dlpack(v)
    if not isinstance(v, np.ndarray):
        raise TypeError(f"BindParams: the value of '{name}' is a {type(v).__name__}, not an array")
    if v.dtype not in _DTYPES:
        raise TypeError(f"BindParams: the value of '{name}' has dtype {v.dtype}, which TVS does not support")
    return np.ascontiguousarray(v)


def _bind_params(mod, func_name, params):
    mod = _as_module(mod)
    names, arrays = [], []
    for k, v in params.items():
        if not isinstance(k, str):
            raise NotImplementedError("tvs: BindParams keys must be parameter names (str), not relax.Var")
        names.append(k)
        arrays.append(_host_array(k, v))
    n = len(names)
    cnames = [ffi.new("char[]", k.encode()) for k in names]
    tensors = ffi.new("DLTensor[]", max(n, 1))
    shapes = [ffi.new("int64_t[]", list(a.shape) or [1]) for a in arrays]
    bufs = [ffi.from_buffer(a) for a in arrays]
    ptrs = ffi.new("DLTensor *[]", max(n, 1))
    for i, a in enumerate(arrays):
        t = tensors[i]
        t.data, t.device.device_type, t.ndim, t.shape = bufs[i], 1, a.ndim, shapes[i]
        t.dtype.code, t.dtype.bits, t.dtype.lanes = _DTYPES[a.dtype]
        ptrs[i] = ffi.addressof(tensors, i)
    out = ffi.new("TvsIRModule **")
    fn = func_name.encode() if func_name is not None else ffi.NULL
    check(lib.tvs_irmod_bind_params(mod._h, fn, ffi.new("char *[]", cnames), ptrs, n, out))
    return IRModule(out[0])


class BindParams:
    """relax.transform.BindParams(func_name, params): a pass whose call on a
    module returns it with func_name's parameters named in params replaced by
    constants (a copy of each array; the module passed in is unchanged)."""

    def __init__(self, func_name, params):
        self.func_name, self.params = func_name, dict(params)

    def __call__(self, mod):
        return _bind_params(mod, self.func_name, self.params)


transform = types.SimpleNamespace(BindParams=BindParams)
