"""tvs.script.ir (I): I.ir_module, the class decorator that turns a class of
@T.prim_func / @R.function definitions into an IRModule by parsing its text."""
from ._builder import Anything, Deferred
from ._source import replace_decorators, source_of


def ir_module(cls=None, **kwargs):
    if cls is None:
        return lambda c: ir_module(c, **kwargs)
    from ..ir import IRModule
    members = [v for v in vars(cls).values() if isinstance(v, Deferred)]
    text, fname, first = source_of(cls, members)
    return IRModule.from_text(replace_decorators(text, "@I.ir_module"), fname, first)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return Anything("I." + name)
