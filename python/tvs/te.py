"""te.py - tvs.te: TVM's tensor expressions (placeholder, compute,
reduce_axis, sum/max/min, create_prim_func) built in Python as expression
trees and handed to TVS as the `@te.prim_func` sugar of the language
(docs/language.md), which elaborates them into the prim_func TVM's
create_prim_func would produce."""
import inspect
import re


class Expr:
    """An expression of a te.compute formula, kept as TVMScript text."""

    def __init__(self, text, prec=100):
        self.text, self.prec = text, prec

    def _bin(self, op, other, prec, swap=False):
        a, b = (_expr(other), self) if swap else (self, _expr(other))
        left = a.text if a.prec >= prec else f"({a.text})"
        right = b.text if b.prec > prec else f"({b.text})"
        return Expr(f"{left} {op} {right}", prec)

    def __add__(self, o): return self._bin("+", o, 10)
    def __radd__(self, o): return self._bin("+", o, 10, True)
    def __sub__(self, o): return self._bin("-", o, 10)
    def __rsub__(self, o): return self._bin("-", o, 10, True)
    def __mul__(self, o): return self._bin("*", o, 20)
    def __rmul__(self, o): return self._bin("*", o, 20, True)
    def __truediv__(self, o): return self._bin("/", o, 20)
    def __rtruediv__(self, o): return self._bin("/", o, 20, True)
    def __floordiv__(self, o): return self._bin("//", o, 20)
    def __rfloordiv__(self, o): return self._bin("//", o, 20, True)
    def __mod__(self, o): return self._bin("%", o, 20)
    def __rmod__(self, o): return self._bin("%", o, 20, True)
    def __lt__(self, o): return self._bin("<", o, 5)
    def __le__(self, o): return self._bin("<=", o, 5)
    def __gt__(self, o): return self._bin(">", o, 5)
    def __ge__(self, o): return self._bin(">=", o, 5)
    def __neg__(self): return Expr(f"-{self.text if self.prec >= 30 else '(' + self.text + ')'}", 30)

    def equal(self, o):
        return self._bin("==", o, 5)

    def astype(self, dtype):
        return Expr(f"T.Cast({_q(dtype)}, {self.text})")

    def __bool__(self):
        raise TypeError("a te expression has no truth value (use te.if_then_else / tir.Select)")

    def __repr__(self):
        return self.text


def _q(s):
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _expr(x):
    if isinstance(x, Expr):
        return x
    if isinstance(x, bool):
        return Expr(f"T.bool({x})")
    if isinstance(x, int):
        return Expr(str(x)) if x >= 0 else Expr(f"({x})")
    if isinstance(x, float):
        return Expr(repr(x)) if x >= 0 else Expr(f"({x!r})")
    raise TypeError(f"tvs.te: cannot use a {type(x).__name__} in a tensor expression")


class Var(Expr):
    """An index variable of a compute's lambda."""

    def __init__(self, name):
        super().__init__(name)
        self.name = name


class IterVar(Var):
    """te.reduce_axis((lo, hi), name): a reduction axis."""

    def __init__(self, dom, name):
        super().__init__(name)
        self.text = _ref(self)  # in formulas: by reference, named by create_prim_func
        self.dom = dom
        self.var = self


class Tensor:
    """A placeholder or a computed tensor; t[i, j] reads it in a formula."""

    def __init__(self, name, shape, dtype, kind, body=None, params=(), axes=()):
        self.name, self.shape, self.dtype = name, tuple(shape), dtype
        self.kind, self.body, self.params, self.axes = kind, body, params, tuple(axes)
        self.inputs = []  # tensors the formula reads
        self.op = self

    @property
    def ndim(self):
        return len(self.shape)

    def __getitem__(self, idx):
        idx = idx if isinstance(idx, tuple) else (idx,)
        e = Expr(f"{_ref(self)}[{', '.join(_expr(i).text for i in idx)}]")
        e._reads = self
        _Recorder.read(self)
        return e

    def __repr__(self):
        return f"Tensor({self.name}, shape={self.shape}, {self.dtype})"

    def output(self, i):
        return self


class _Recorder:
    """Which tensors a formula reads (set while a compute's lambda runs)."""

    stack = []

    @staticmethod
    def read(t):
        if _Recorder.stack:
            _Recorder.stack[-1].add(t)


# Formulas name tensors and axes by reference; create_prim_func gives each its
# name, made unique within the function (TVM allows repeated names).
_OBJS = {}
_REF = re.compile("\x01(\\d+)\x01")


def _ref(obj):
    _OBJS[id(obj)] = obj
    return f"\x01{id(obj)}\x01"




def _shape_text(shape):
    items = [_expr(s).text for s in shape]
    return f"({', '.join(items)}{',' if len(items) == 1 else ''})"


def placeholder(shape, dtype="float32", name="placeholder"):
    shape = shape if isinstance(shape, (tuple, list)) else (shape,)
    return Tensor(name, shape, dtype, "placeholder")


def reduce_axis(dom, name="rv"):
    lo, hi = dom
    return IterVar((lo, hi), name)


def compute(shape, fcompute, name="compute", tag="", attrs=None):
    shape = shape if isinstance(shape, (tuple, list)) else (shape,)
    params = list(inspect.signature(fcompute).parameters)
    if len(params) != len(shape):
        raise ValueError(f"te.compute: the lambda takes {len(params)} indices, the shape has {len(shape)} dims")
    reads = set()
    _Recorder.stack.append(reads)
    try:
        body = _expr(fcompute(*[Var(p) for p in params]))
    finally:
        _Recorder.stack.pop()
    dtype = getattr(body, "_dtype", None) or next((t.dtype for t in reads), "float32")
    t = Tensor(name, shape, dtype, "compute", body, params, getattr(body, "_axes", ()))
    t.inputs = sorted(reads, key=lambda x: x.name)
    return t


def _reducer(fname):
    def reduce(expr, axis=None, where=None, init=None):
        if axis is None or not isinstance(axis, (IterVar, list, tuple)):
            if fname == "sum":
                raise TypeError("te.sum needs axis=")
            return Expr(f"T.{fname}({_expr(expr).text}, {_expr(axis).text})")  # element-wise max/min
        axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
        ax = _ref(axes[0]) if len(axes) == 1 else "[" + ", ".join(_ref(a) for a in axes) + "]"
        extra = "" if where is None else f", where={_expr(where).text}"
        e = Expr(f"te.{fname}({_expr(expr).text}, axis={ax}{extra})")
        e._axes = axes
        return e

    reduce.__name__ = fname
    return reduce


sum = _reducer("sum")  # noqa: A001 - TVM's name
max = _reducer("max")  # noqa: A001
min = _reducer("min")  # noqa: A001


def if_then_else(cond, t, f):
    return Expr(f"T.if_then_else({_expr(cond).text}, {_expr(t).text}, {_expr(f).text})")


def const(value, dtype="float32"):
    return Expr(f"T.{dtype}({value!r})")


def _math(fn):
    return lambda x: Expr(f"T.{fn}({_expr(x).text})")


exp, log, sqrt, tanh, sigmoid, abs = (_math(f) for f in ("exp", "log", "sqrt", "tanh", "sigmoid", "abs"))  # noqa: A001


def _order(outputs):
    """Every computed tensor the outputs need, producers first; the placeholders."""
    seen, order, holders = set(), [], []

    def visit(t):
        if id(t) in seen:
            return
        seen.add(id(t))
        for i in t.inputs:
            visit(i)
        (holders if t.kind == "placeholder" else order).append(t)

    for t in outputs:
        visit(t)
    return order, holders


def script(args, name="main"):
    """The @te.prim_func text of create_prim_func(args)."""
    outs = [t for t in args if t.kind == "compute"]
    ins = [t for t in args if t.kind == "placeholder"]
    if not outs:
        raise ValueError("create_prim_func: no computed tensor among the arguments")
    order, holders = _order(outs)
    missing = [h.name for h in holders if h not in ins]
    if missing:
        raise ValueError(f"create_prim_func: the placeholders {', '.join(missing)} are not arguments")
    names, used = {}, set()

    def name_of(obj, base):
        if id(obj) not in names:
            n, k = base, 0
            while n in used:
                k += 1
                n = f"{base}_{k}"
            used.add(n)
            names[id(obj)] = n
        return names[id(obj)]

    for t in ins + order:
        name_of(t, t.name)
    for t in order:
        for a in t.axes:
            name_of(a, a.name)

    def sub(text):
        return _REF.sub(lambda m: names.get(int(m.group(1)), _OBJS[int(m.group(1))].name), text)

    params = ", ".join(f"{names[id(p)]}: te.placeholder({_shape_text(p.shape)}, {_q(p.dtype)})" for p in ins)
    lines = ["@te.prim_func", f"def {name}({params}):"]
    axes_done = set()
    for t in order:
        for a in t.axes:
            if id(a) not in axes_done:
                axes_done.add(id(a))
                lines.append(f"    {names[id(a)]} = te.reduce_axis(({sub(_expr(a.dom[0]).text)}, "
                             f"{sub(_expr(a.dom[1]).text)}), name={_q(names[id(a)])})")
        lines.append(f"    {names[id(t)]} = te.compute({sub(_shape_text(t.shape))}, lambda {', '.join(t.params)}: "
                     f"{sub(t.body.text)}, name={_q(names[id(t)])})")
    lines.append(f"    return {', '.join(names[id(t)] for t in outs)}")
    return "\n".join(lines) + "\n"


def create_prim_func(args, index_dtype_override=None):
    """tvm.te.create_prim_func: the prim_func "main" computing args' outputs."""
    from .ir import IRModule
    text = script(list(args))
    mod = IRModule.from_text(text, "<te.create_prim_func>")
    mod["main"]._te_text = text
    return mod["main"]
