"""tvs.script.tir (T): the TensorIR namespace of TVMScript.  T.prim_func
parses the decorated function; every other T.* name is accepted while Python
evaluates annotations (the text is what TVS reads)."""
from ._builder import Anything, function_decorator

prim_func = function_decorator("prim_func", "@T.prim_func")


def __getattr__(name):
    if name == "TensorIntrin":
        from ..tir import TensorIntrin
        return TensorIntrin
    if name == "index_map":
        from ..tir import IndexMap
        return IndexMap.from_func
    if name.startswith("__"):
        raise AttributeError(name)
    return Anything("T." + name)
