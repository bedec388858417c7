"""_builder.py - what T.*, R.* and I.* are while Python executes a decorated
definition: annotations such as T.Buffer((128, 128), "float32") and decorator
arguments are evaluated by Python before TVS reads the text, so every name of
those namespaces must exist and accept anything.  Only the source text matters."""
import inspect


class Anything:
    """Stands for any T./R./I. expression Python evaluates (annotations)."""

    def __init__(self, name="T"):
        self._name = name

    def __call__(self, *args, **kwargs):
        return Anything(self._name + "(...)")

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Anything(self._name + "." + name)

    def __getitem__(self, key):
        return Anything(self._name + "[...]")

    def __repr__(self):
        return f"<TVMScript {self._name}>"


class Deferred:
    """A function defined inside an @ir_module class: the class decorator reads
    the whole class's text, so this only remembers the function."""

    def __init__(self, func, kind):
        self.func, self.kind = func, kind
        self.__code__ = func.__code__
        self.__name__ = func.__name__

    def __repr__(self):
        return f"<{self.kind} {self.__name__} (inside an ir_module class)>"


def function_decorator(kind, decorator_line):
    """The @T.prim_func / @R.function decorator, with or without arguments."""

    def apply(func):
        parts = func.__qualname__.split(".")
        if len(parts) >= 2 and parts[-2] != "<locals>":
            return Deferred(func, kind)  # inside a class body (the class decorator parses it)
        from ..ir import IRModule
        from ._source import replace_decorators, source_of
        text, fname, first = source_of(func)
        mod = IRModule.from_text(replace_decorators(text, decorator_line), fname, first)
        return mod[func.__name__]

    def decorator(*args, **kwargs):
        if len(args) == 1 and not kwargs and inspect.isfunction(args[0]):
            return apply(args[0])
        return apply  # @T.prim_func(private=True)

    return decorator
