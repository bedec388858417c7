"""tvs - TVS, a tensor compiler in C, from Python.

A pure-Python package over the public C API (include/tvs/, libtvs.so) with
TVM's names, so that TensorIR course code runs after `import tvs as tvm`:

    @tvm.script.ir_module class MyModule: ...      # tvs.script (TVMScript text)
    sch = tvm.tir.Schedule(MyModule)                # tvs.tir.Schedule
    rt = tvm.build(sch.mod, target="llvm")          # tvs.build
    rt["mm_relu"](a, b, c)                           # NumPy / tvs.nd / DLPack arrays

What TVS does not implement raises NotImplementedError naming the feature.
docs/python.md maps the API against TVM's."""
import importlib.util
import sys
import types

from . import _ffi, frontend, ir, nd, relax, runtime, script, te, testing, tir, viz  # noqa: F401
from .base import BuildError, ParseError, RunError, ScheduleError, TVMError  # noqa: F401
from .driver import Target, build, lower  # noqa: F401
from .ir import IRModule, assert_structural_equal, structural_equal  # noqa: F401
from .ndarray import cpu, device  # noqa: F401

__version__ = _ffi.ffi.string(_ffi.lib.tvs_version()).decode()

target = types.SimpleNamespace(Target=Target)


def __getattr__(name):
    if name in ("tune", "meta_schedule", "autotvm", "auto_scheduler", "rpc", "contrib", "topi"):
        raise NotImplementedError(f"tvs.{name} is not implemented by TVS's Python package (yet)")
    raise AttributeError(f"module 'tvs' has no attribute '{name}'")
transform = types.SimpleNamespace()


def _alias_as_tvm():
    """`import tvs as tvm` code also says `from tvm.script import tir as T`:
    when no real tvm is installed, the tvm.* module names refer to tvs's."""
    if "tvm" in sys.modules or importlib.util.find_spec("tvm") is not None:
        return
    me = sys.modules[__name__]
    sys.modules["tvm"] = me
    for sub in ("ir", "nd", "relax", "runtime", "script", "te", "testing", "tir"):
        sys.modules["tvm." + sub] = getattr(me, sub)
    for sub in ("ir", "relax", "tir"):
        sys.modules["tvm.script." + sub] = getattr(script, sub)
    sys.modules["tvm.ir.module"] = ir
    sys.modules["tvm.script.parser"] = script
    sys.modules["tvm.target"] = target


_alias_as_tvm()
