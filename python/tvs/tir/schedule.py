"""schedule.py - tvs.tir.Schedule: TVM's tir.Schedule over the C API.

Each method call becomes one schedule-script statement (the Python syntax of
TVM's schedule API, which sched/ evaluates): `_v3 = sch.split(_v1, factors=[None, 4])`.
The handles the user holds (BlockRV, LoopRV, ExprRV) are the script variables
that statement bound, so every primitive of sched/ is available under its TVM
name, with TVM's parameters, defaults and errors; an illegal step raises
ScheduleError carrying the diagnostic, pointing at the caller's line."""
import ast
import inspect
import json
import linecache
import sys
import textwrap

from .. import _ffi
from ..base import ScheduleError, TVMError, check
from ..ir import IRModule, _as_module

ffi, lib = _ffi.ffi, _ffi.lib


class _RV:
    def __init__(self, sch, expr):
        self._sch, self._expr = sch, expr

    def __repr__(self):
        return f"{type(self).__name__}({self._expr})"


class BlockRV(_RV):
    """A block handle (tvm.tir.schedule.BlockRV)."""


class LoopRV(_RV):
    """A loop handle (tvm.tir.schedule.LoopRV)."""


class ExprRV(_RV):
    """A sampled value (tvm.tir.schedule.ExprRV); sch.get(rv) gives its integer."""

    def __int__(self):
        return self._sch.get(self)

    def __index__(self):
        return self._sch.get(self)


SBlockRV = BlockRV


def _method_table():
    """{name: "one" | "list" | "none"} from the C API's method signatures."""
    table = {}
    i = 0
    while True:
        p = lib.tvs_sched_method_name(i)
        if p == ffi.NULL:
            break
        name = ffi.string(p).decode()
        out = ffi.new("char **")
        check(lib.tvs_sched_method_signature(name.encode(), out))
        sig = _ffi.take_string(out)
        table[name] = "list" if "-> list of handles" in sig else "one" if "-> handle" in sig else "none"
        table.setdefault(name + "#sig", sig)
        i += 1
    table["get_sblock"] = table.get("get_block", "one")
    return table


_METHODS = None


def _methods():
    global _METHODS
    if _METHODS is None:
        _METHODS = _method_table()
    return _METHODS


def _lambda_text(fn):
    """The source text of a lambda (an index map), found through its code."""
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        raise TVMError("tvs: cannot read the source of the index map; pass it as text "
                       "(\"lambda i, j: (i // 4, j, i % 4)\")") from None
    src = textwrap.dedent("".join(lines))
    try:
        tree = ast.parse(src)
    except SyntaxError:
        tree = ast.parse("(" + src.strip().rstrip(",") + ")")
        src = "(" + src.strip().rstrip(",") + ")"
    code = fn.__code__
    names = list(code.co_varnames[:code.co_argcount])
    found = [ast.get_source_segment(src, node) for node in ast.walk(tree)
             if isinstance(node, ast.Lambda) and [a.arg for a in node.args.args] == names]
    if len(found) > 1:  # several lambdas with these parameters on the line: compare the code
        found = [t for t in found if _same_code(t, code)] or found[:1]
    if not found:
        raise TVMError("tvs: cannot find the lambda of the index map in its source")
    return found[0]


def _same_code(text, code):
    try:
        lam = next(c for c in compile(text, "<lambda>", "eval").co_consts if hasattr(c, "co_code"))
    except (SyntaxError, StopIteration):
        return False
    return lam.co_code == code.co_code and lam.co_consts == code.co_consts


class Schedule:
    """tvm.tir.Schedule(mod): primitives by TVM's names (sch.split, sch.reorder,
    sch.compute_at, ...), sch.mod, sch.trace, sch.show()."""

    def __init__(self, mod, *, seed=None, debug_mask="none", error_render_level="detail",
                 enable_check=True):
        self._input = _as_module(mod)
        out = ffi.new("TvsSchedule **")
        check(lib.tvs_sched_create(self._input._h, out))
        self._h = ffi.gc(out[0], lib.tvs_sched_release)
        self._n = 0
        opts = []
        if seed is not None and int(seed) != -1:
            opts.append(f"seed={int(seed)}")
        if debug_mask not in ("none", 0, None):
            opts.append(f"debug_mask={self._arg(debug_mask)}")
        if opts:  # the script's Schedule() takes them (sched/script.c), and checks the function
            self._exec(f"sch = tvm.tir.Schedule(Module, {', '.join(opts)})", 1)

    # -- statements
    def _exec(self, text, depth):
        """Runs one statement; errors name the caller's file and line."""
        frame = sys._getframe(depth + 1)
        while frame is not None and frame.f_globals.get("__name__", "").startswith("tvs."):
            frame = frame.f_back
        if frame is not None:
            name, line = frame.f_code.co_filename, frame.f_lineno
        else:
            name, line = "<schedule>", 1
        out = ffi.new("char **")
        rc = lib.tvs_sched_exec_named(self._h, ("\n" * (line - 1) + text).encode(), name.encode(), out)
        if rc < 0:
            msg = _ffi.last_error()
            user = linecache.getline(name, line).strip() if frame is not None else ""
            if user:  # the diagnostic quotes the generated statement; name the user's too
                msg += f"\nnote: in the call: {user}"
            raise ScheduleError(msg)
        return _ffi.take_string(out)

    def _fresh(self):
        self._n += 1
        return f"_v{self._n}"

    def _arg(self, x):
        if isinstance(x, _RV):
            if x._sch is not self:
                raise ScheduleError(f"{x!r} belongs to another schedule")
            return x._expr
        if isinstance(x, bool) or x is None:
            return repr(x)
        if isinstance(x, str):
            return json.dumps(x)
        if isinstance(x, (int, float)):
            return repr(x)
        if hasattr(x, "__index__"):
            return repr(int(x))
        if isinstance(x, (list, tuple)):
            items = ", ".join(self._arg(v) for v in x)
            return f"[{items}]" if isinstance(x, list) else f"({items}{',' if len(x) == 1 else ''})"
        if callable(x) and getattr(x, "__name__", "") == "<lambda>":
            return _lambda_text(x)
        if isinstance(x, IndexMap):
            return x.text
        raise TypeError(f"tvs.tir.Schedule: cannot pass a {type(x).__name__} to a schedule method")

    def _wrap(self, var):
        kind = lib.tvs_sched_var_kind(self._h, var.encode())
        if kind == 0:
            return BlockRV(self, var)
        if kind == 1:
            return LoopRV(self, var)
        return ExprRV(self, var)

    def _list(self, var):
        text = self._exec(f"print({var})", 2).strip()
        n = 0 if text in ("[]", "") else text.count(",") + 1
        names = [f"{var}_{i}" for i in range(n)]
        for i, nm in enumerate(names):
            self._exec(f"{nm} = {var}[{i}]", 2)
        return [self._wrap(nm) for nm in names]

    def _call(self, method, args, kwargs):
        out_kind = _methods().get(method)
        parts = [self._arg(a) for a in args]
        parts += [f"{k}={self._arg(v)}" for k, v in kwargs.items()]
        call = f"sch.{method}({', '.join(parts)})"
        if out_kind in ("one", "list"):
            var = self._fresh()
            self._exec(f"{var} = {call}", 2)
            return self._list(var) if out_kind == "list" else self._wrap(var)
        self._exec(call, 2)
        return None

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        if name not in _methods():
            try:  # the evaluator's own message, with its suggestion
                self._exec(f"sch.{name}()", 1)
                msg = f"schedule has no method '{name}'"
            except ScheduleError as e:
                msg = str(e).split("error: ", 1)[-1].split("\n", 1)[0]
            raise AttributeError(f"'Schedule' object has no attribute '{name}': {msg}")

        def method(*args, **kwargs):
            return self._call(name, args, kwargs)

        method.__name__ = name
        method.__doc__ = _methods().get(name + "#sig")
        return method

    def __dir__(self):
        return sorted(set(super().__dir__()) | {k for k in _methods() if "#" not in k})

    # -- methods that are not primitives
    def get(self, rv):
        """The integer a sampled ExprRV holds, or a block/loop's text."""
        text = self._exec(f"print(sch.get({self._arg(rv)}))", 1).rstrip("\n")
        try:
            return int(text)
        except ValueError:
            return text

    @property
    def mod(self):
        out = ffi.new("TvsIRModule **")
        check(lib.tvs_sched_module(self._h, out))
        return IRModule(out[0])

    @property
    def trace(self):
        return Trace(self)

    def show(self, *args, **kwargs):
        self.mod.show()

    def work_on(self, func_name):
        check(lib.tvs_sched_work_on(self._h, func_name.encode()))

    def undo(self):
        check(lib.tvs_sched_undo(self._h))

    def copy(self):
        """A new schedule with this one's trace replayed onto the input."""
        other = Schedule(self._input)
        text = self.trace.as_statements()
        if text.strip():
            other._exec(text, 1)
        return other


class Trace:
    """sch.trace: prints as TVM does (a def apply_trace(sch) function)."""

    def __init__(self, sch):
        self._sch = sch

    def _text(self, as_function):
        out = ffi.new("char **")
        check(lib.tvs_sched_trace(self._sch._h, 1 if as_function else 0, out))
        return _ffi.take_string(out)

    def as_python(self):
        return self._text(True)

    def as_statements(self):
        return self._text(False)

    def show(self, *args, **kwargs):
        print(self._text(True), end="")

    def __len__(self):
        return lib.tvs_sched_trace_len(self._sch._h)

    def __str__(self):
        return self._text(True).rstrip("\n")

    def _repr_pretty_(self, p, cycle):
        p.text(str(self))


class IndexMap:
    """tvm.tir.IndexMap.from_func(lambda i, j: ...): kept as its text."""

    def __init__(self, text):
        self.text = text

    @staticmethod
    def from_func(fn, *args, **kwargs):
        return IndexMap(fn if isinstance(fn, str) else _lambda_text(fn))


class TensorIntrin:
    """tvm.tir.TensorIntrin.register(name, desc, impl): desc and impl are
    prim_funcs of one module (their text is what TVS registers, process-wide)."""

    _keep = []  # the modules of registered intrinsics (the registry points into them)

    @staticmethod
    def register(name, desc, impl, override=False):
        from ..ir import BaseFunc
        if not isinstance(desc, BaseFunc) or not isinstance(impl, BaseFunc):
            raise TypeError("TensorIntrin.register takes two prim_funcs (desc, impl)")
        if desc.mod is not impl.mod and impl.name not in desc.mod:
            raise TVMError("tvs: TensorIntrin.register needs desc and impl in one module")
        sch = Schedule(desc.mod)
        sch._exec(f"T.TensorIntrin.register({json.dumps(name)}, {desc.name}, {impl.name}, "
                  f"override={bool(override)})", 1)
        TensorIntrin._keep.append(desc.mod)
