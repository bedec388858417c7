"""tvs.relax: building graph (Relax) functions and running them like TVM's
relax.VirtualMachine: vm["main"](x, w) allocates the outputs and returns them."""
from .driver import build as _build
from .runtime import Module


def build(mod, target="llvm", params=None, **kwargs):
    """relax.build: the graph passes (legalize, fusion), lowering, the JIT."""
    if params:
        raise NotImplementedError("tvs: relax.build(params=...) is not implemented; bind weights with "
                                  "tvsc --params or pass them as arguments")
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
