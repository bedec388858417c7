"""ir.py - tvs.ir: IRModule (an immutable module of prim_funcs and graph
functions, printed as TVMScript), function views, structural equality."""
from . import _ffi
from .base import TVMError, check

ffi, lib = _ffi.ffi, _ffi.lib


class IRModule:
    """A module as the C API holds it.  Built by tvs.script.ir_module, by
    IRModule.from_text / from_file, or as a schedule's sch.mod."""

    def __init__(self, handle=None):
        if handle is None or isinstance(handle, dict):
            handle = _compose(handle or {})
        self._h = ffi.gc(handle, lib.tvs_irmod_release)

    @staticmethod
    def from_text(text, name="<string>", first_line=1):
        out = ffi.new("TvsIRModule **")
        check(lib.tvs_irmod_parse(text.encode(), name.encode(), first_line, out))
        return IRModule(out[0])

    @staticmethod
    def from_file(path):
        out = ffi.new("TvsIRModule **")
        check(lib.tvs_irmod_parse_file(str(path).encode(), out))
        return IRModule(out[0])

    # -- functions
    def _names(self):
        return [ffi.string(lib.tvs_irmod_func_name(self._h, i)).decode()
                for i in range(lib.tvs_irmod_num_funcs(self._h))]

    def get_global_vars(self):
        return [GlobalVar(n) for n in self._names()]

    @property
    def functions(self):
        return {GlobalVar(n): self[n] for n in self._names()}

    def __contains__(self, name):
        return _name_of(name) in self._names()

    def __iter__(self):
        return iter(self.get_global_vars())

    def __len__(self):
        return lib.tvs_irmod_num_funcs(self._h)

    def __getitem__(self, name):
        name = _name_of(name)
        names = self._names()
        if name not in names:
            raise KeyError(f"the module has no function '{name}' (it has {', '.join(names) or 'none'})")
        kind = lib.tvs_irmod_func_kind(self._h, names.index(name))
        return (PrimFunc if kind == 0 else Function)(self, name)

    def select(self, *names):
        """A module of the named functions (and what they call)."""
        arr = [ffi.new("char[]", _name_of(n).encode()) for n in names]
        out = ffi.new("TvsIRModule **")
        check(lib.tvs_irmod_select(self._h, ffi.new("char *[]", arr), len(arr), out))
        return IRModule(out[0])

    # -- printing
    def script(self, **_ignored):
        out = ffi.new("char **")
        check(lib.tvs_irmod_script(self._h, out))
        return _ffi.take_string(out)

    astext = script

    def show(self, **_ignored):
        print(self.script(), end="")

    def __str__(self):
        return self.script()

    def _repr_pretty_(self, p, cycle):  # IPython shows a module as its script
        p.text(self.script())

    def stage(self, name):
        """The module at a pipeline stage, as `tvs show --stage NAME` prints it."""
        out = ffi.new("char **")
        check(lib.tvs_irmod_show_stage(self._h, name.encode(), out))
        return _ffi.take_string(out)


def list_stages():
    out = ffi.new("char **")
    check(lib.tvs_stage_list(out))
    return _ffi.take_string(out)


def _compose(funcs):
    """A module handle of {name: function} (tvm.IRModule({"main": f})): each
    function's text under its new name, parsed as one class."""
    import re
    body = []
    for name, f in funcs.items():
        name = _name_of(name)
        if not isinstance(f, BaseFunc):
            raise TypeError(f"IRModule: '{name}' maps to a {type(f).__name__}, not a function")
        text = "\n".join(l for l in f.script().split("\n") if not l.startswith("# from tvm"))
        text = re.sub(r"^def " + re.escape(f.name) + r"\(", f"def {name}(", text.strip("\n"), count=1, flags=re.M)
        body.append("\n".join("    " + l if l else l for l in text.split("\n")))
    text = "@I.ir_module\nclass Module:\n" + ("\n\n".join(body) if body else "    pass") + "\n"
    out = ffi.new("TvsIRModule **")
    check(lib.tvs_irmod_parse(text.encode(), b"<IRModule>", 1, out))
    return out[0]


class GlobalVar:
    def __init__(self, name):
        self.name_hint = name

    def __eq__(self, other):
        return isinstance(other, GlobalVar) and other.name_hint == self.name_hint

    def __hash__(self):
        return hash(self.name_hint)

    def __repr__(self):
        return f'I.GlobalVar("{self.name_hint}")'


def _name_of(x):
    return x.name_hint if isinstance(x, GlobalVar) else str(x)


class BaseFunc:
    """One function of a module (a view: the module keeps it alive)."""

    def __init__(self, mod, name):
        self.mod, self.name = mod, name

    @property
    def attrs(self):
        return {"global_symbol": self.name}

    def script(self, **_ignored):
        out = ffi.new("char **")
        check(lib.tvs_irmod_func_script(self.mod._h, self.name.encode(), out))
        return _ffi.take_string(out)

    def show(self, **_ignored):
        print(self.script(), end="")

    def __str__(self):
        return self.script()

    def _repr_pretty_(self, p, cycle):
        p.text(self.script())

    def as_module(self):
        return self.mod.select(self.name)

    def with_attr(self, key, value=None):
        """with_attr("global_symbol", name) (or a dict) renames the function;
        "tir.noalias" is already what TVS assumes; other attributes belong in
        the script (T.func_attr)."""
        attrs = key if isinstance(key, dict) else {key: value}
        f = self
        for k, v in attrs.items():
            if k == "global_symbol":
                f = IRModule({str(v): f})[str(v)]
            elif k != "tir.noalias":
                raise NotImplementedError(f"tvs: with_attr({k!r}) is not implemented; write T.func_attr "
                                          "in the script")
        return f


class PrimFunc(BaseFunc):
    """A TensorIR prim_func of a module (tvm.tir.PrimFunc)."""


class Function(BaseFunc):
    """A graph (Relax) function of a module (tvm.relax.Function)."""


def _as_module(x):
    if isinstance(x, IRModule):
        return x
    if isinstance(x, BaseFunc):
        return x.as_module()
    raise TypeError(f"expected an IRModule or a function of one, got {type(x).__name__}")


def structural_equal(a, b, map_free_vars=False):
    return lib.tvs_irmod_equal(_as_module(a)._h, _as_module(b)._h, ffi.NULL) == 1


def assert_structural_equal(a, b, map_free_vars=False):
    why = ffi.new("char **")
    rc = lib.tvs_irmod_equal(_as_module(a)._h, _as_module(b)._h, why)
    text = _ffi.take_string(why)
    check(rc)
    if rc != 1:
        raise ValueError(f"StructuralEqual check failed: {text}")


__all__ = ["IRModule", "PrimFunc", "Function", "GlobalVar", "structural_equal", "assert_structural_equal",
           "list_stages", "TVMError"]
