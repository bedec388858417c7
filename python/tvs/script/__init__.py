"""tvs.script - TVMScript in Python: @ir_module classes and @T.prim_func /
@R.function definitions are handed, as source text, to TVS's C front end (the
same parser as `tvs show`), as TVM's own parser reads the text of the decorated
definition.  `from tvs.script import tir as T, relax as R, ir as I`."""
from . import ir, relax, tir  # noqa: F401
from .ir import ir_module  # noqa: F401



def from_source(text, name="<string>"):
    """tvm.script.from_source: an IRModule of TVMScript text."""
    from ..ir import IRModule
    return IRModule.from_text(text, name)


__all__ = ["ir_module", "tir", "relax", "ir", "from_source"]
