"""tvs.script.relax (R): the graph namespace of TVMScript; R.function parses
the decorated function, other R.* names are accepted in annotations."""
from ._builder import Anything, function_decorator

function = function_decorator("function", "@R.function")


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return Anything("R." + name)
