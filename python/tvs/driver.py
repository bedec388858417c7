"""driver.py - tvs.build: compile a module (or one function of it) for the CPU."""
from . import _ffi
from .base import check
from .ir import _as_module
from .runtime import Module

ffi, lib = _ffi.ffi, _ffi.lib


def _target_str(target):
    if target is None:
        return "llvm"
    if isinstance(target, dict):
        raise NotImplementedError("tvs: dict targets are not implemented; use \"llvm\"")
    return str(getattr(target, "text", target))


def build(mod, target="llvm", name=None, *, opt_level=None, **kwargs):
    """tvm.build: JIT-compiles mod for target ("llvm", "llvm -mcpu=NAME") and
    returns a runtime Module whose functions run on the host."""
    if "target_host" in kwargs and kwargs["target_host"] not in (None, "llvm"):
        raise NotImplementedError("tvs: target_host other than llvm is not implemented")
    m = _as_module(mod)
    opt = ffi.new("TvsBuildOptions *")
    if opt_level is not None:
        opt.opt_level, opt.set_opt_level = int(opt_level), 1
    out = ffi.new("TvsExecutable **")
    check(lib.tvs_build(m._h, _target_str(target).encode(), opt, out))
    return Module(out[0], m)


class Target:
    """tvm.target.Target("llvm -mcpu=..."): kept as its text."""

    def __init__(self, text, host=None):
        self.text = str(text)
        kind = self.text.split()[0] if self.text.split() else ""
        if kind not in ("llvm", "cpu", "c"):
            raise NotImplementedError(f"tvs: target '{kind}' is not implemented (TVS builds for llvm)")
        self.kind = kind

    def __str__(self):
        return self.text


def lower(mod, args=None, name="main", simple_mode=False):
    """tvm.lower: the module after every lowering pass (the stage before
    llvm-unopt), parsed back (TVS prints lowered IR as text that parses)."""
    from .ir import IRModule, list_stages
    if args is not None:
        raise NotImplementedError("tvs.lower(te schedule, args) is not implemented; pass an IRModule or PrimFunc")
    names = [line.split()[0] for line in list_stages().splitlines() if line.strip()]
    last = names[names.index("llvm-unopt") - 1]
    m = _as_module(mod)
    return IRModule.from_text(m.stage(last), f"<lowered: {last}>")
