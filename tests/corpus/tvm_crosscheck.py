"""Optional: check corpus programs against a real Apache TVM installation.

usage: python tvm_crosscheck.py [--parse-only] [NAME ...]     (default: every *.tvs here)

Not needed by TVS or its CI.  It is how the corpus itself was validated: each
program is parsed by TVM's own TVMScript parser, compiled for the `llvm` target,
run on the inputs from run_reference.py, and its outputs are checked with
compare.py against the numpy reference, so both the program text and the
reference are confirmed by an independent implementation.

The corpus is written in the TVM v0.23 spelling.  PyPI only carries TVM
>= 0.25 (where `tir` became `tirx` and `T.block` became `T.sblock`), so the
text is mechanically respelled before parsing:
  from tvm.script import tir as T  ->  from tvm.script import tirx as T
  T.block( / T.alloc_buffer( / T.block_attr(  ->  T.sblock( / T.sblock_alloc_buffer( / T.sblock_attr(
  @T.prim_func  ->  @T.prim_func(s_tir=True)   (keeps TensorIR block semantics)
With TVM <= 0.23 installed nothing is respelled.  For execution on a CPU,
`T.thread_binding(...)` loops are also rewritten to serial loops (a parse of the
original text is done first).  Needs: tvm (>= 0.25 with apache-tvm-ffi, or
<= 0.23), numpy, and /usr/bin/python3 for run_reference.py / compare.py.
"""
import glob
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import traceback

import numpy as np
import tvm

HERE = os.path.dirname(os.path.abspath(__file__))
REF_PYTHON = os.environ.get("TVS_REF_PYTHON", "/usr/bin/python3")


def _new_spelling():
    try:
        from tvm.script import tir  # noqa: F401  pylint: disable=unused-import
        return False
    except ImportError:
        return True


NEW = _new_spelling()
_tensor = getattr(tvm.runtime, "tensor", None) or tvm.nd.array  # pylint: disable=no-member


def respell(text, serial_threads):
    if NEW:
        text = re.sub(r"^\s*from tvm\.script import tir as T\s*$", "", text, flags=re.M)
        text = re.sub(r"\bT\.block\(", "T.sblock(", text)
        text = re.sub(r"\bT\.alloc_buffer\(", "T.sblock_alloc_buffer(", text)
        text = re.sub(r"\bT\.block_attr\(", "T.sblock_attr(", text)
        text = re.sub(r"@T\.prim_func\(private=True\)", "@T.prim_func(private=True, s_tir=True)", text)
        text = re.sub(r"@T\.prim_func\s*$", "@T.prim_func(s_tir=True)", text, flags=re.M)
        # TIRx (>= 0.25) turned "x = expr" and "x: T.int32 = expr" into mutable local
        # scalars; v0.23 made them let bindings, which TIRx spells with T.let.
        # Only inside prim_funcs (Relax bindings are left alone).
        out, in_tir = [], False
        for line in text.split("\n"):
            if re.match(r"\s*@T\.prim_func", line):
                in_tir = True
            elif re.match(r"\s*@R\.function", line):
                in_tir = False
            if in_tir:
                line = re.sub(r"^(\s+)([A-Za-z_]\w*): (T\.\w+) = ", r"\1\2: T.let[\3] = ", line)
                line = re.sub(r"^(\s+)([A-Za-z_]\w*) = (?!T\.(?:match_buffer|alloc_buffer|"
                              r"sblock_alloc_buffer|axis|int32\(\)|int64\(\)|decl_buffer))",
                              r"\1\2: T.let = ", line)
            out.append(line)
        text = "\n".join(out)
    if serial_threads:
        text = re.sub(r"T\.thread_binding\(([^()]*?),\s*thread=\"[^\"]*\"\)", r"T.serial(\1)", text)
    header = ["import tvm", "from tvm import relax",
              "from tvm.script import ir as I", "from tvm.script import relax as R",
              "from tvm.script import tirx as T" if NEW else "from tvm.script import tir as T"]
    return "\n".join(header) + "\n" + text


def load_module(name, serial_threads):
    with open(os.path.join(HERE, name + ".tvs")) as f:
        text = respell(f.read(), serial_threads)
    tmpdir = tempfile.mkdtemp(prefix="tvs_xc_")
    path = os.path.join(tmpdir, "prog_%s.py" % name)
    with open(path, "w") as f:
        f.write(text)
    modname = "prog_%s_%d" % (name, int(serial_threads))
    spec = importlib.util.spec_from_file_location(modname, path)
    pymod = importlib.util.module_from_spec(spec)
    sys.modules[modname] = pymod  # TVMScript's decorators read the source via the module
    spec.loader.exec_module(pymod)
    mods = [v for v in vars(pymod).values() if isinstance(v, tvm.IRModule)]
    funcs = {k: v for k, v in vars(pymod).items() if isinstance(v, tvm.tirx.PrimFunc if NEW
                                                                   else tvm.tir.PrimFunc)}
    if len(mods) == 1 and not funcs:
        return mods[0]
    if not mods and funcs:
        return tvm.IRModule({k: f.with_attr("global_symbol", k) for k, f in funcs.items()})
    raise RuntimeError("expected one ir_module or bare prim_funcs, got %d modules" % len(mods))


def load_program(name):
    spec = importlib.util.spec_from_file_location("tvs_corpus_" + name,
                                                  os.path.join(HERE, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def resolve_shape(shape, env):
    tirmod = tvm.tirx if NEW else tvm.tir
    ana = tvm.arith.Analyzer()
    out = []
    for dim in shape:
        dim = tirmod.stmt_functor.substitute(dim, env) if env else dim
        dim = ana.simplify(dim)
        out.append(int(dim))
    return tuple(out)


def run_primfunc(irmod, fname, prog, inputs, outdir):
    tirmod = tvm.tirx if NEW else tvm.tir
    func = irmod[fname]
    env = {}
    # bind symbolic dims from the input shapes and scalar params
    def pname_of(param):
        return func.buffer_map[param].name if param in func.buffer_map else param.name

    for param in func.params:
        pname = pname_of(param)
        if param in func.buffer_map:
            buf = func.buffer_map[param]
            if pname in inputs and not isinstance(inputs[pname], (int, float, bool)):
                for dim, val in zip(buf.shape, inputs[pname].shape):
                    if isinstance(dim, tirmod.Var):
                        env[dim] = tirmod.const(val, dim.dtype)
        elif pname in inputs:
            env[param] = tirmod.const(inputs[pname], param.dtype)
    args, outs = [], {}
    for param in func.params:
        pname = pname_of(param)
        if pname in inputs:
            val = inputs[pname]
            args.append(_tensor(val) if isinstance(val, np.ndarray) else val)
        else:
            buf = func.buffer_map[param]
            arr = np.zeros(resolve_shape(buf.shape, env), dtype=buf.dtype)
            t = _tensor(arr)
            outs[pname] = t
            args.append(t)
    # compile the function alone: TVM's pipeline rejects unused private functions
    ex = tvm.compile(tvm.IRModule({fname: func.with_attr("global_symbol", fname)}), target="llvm")
    ex[fname](*args)
    for k, t in outs.items():
        np.save(os.path.join(outdir, k + ".npy"), t.numpy())


def run_relax(irmod, fname, prog, inputs, outdir):
    from tvm import relax
    ex = tvm.compile(irmod, target="llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    args = [_tensor(inputs[p]) for p in prog.INPUTS]
    res = vm[fname](*args)
    if hasattr(res, "numpy"):
        np.save(os.path.join(outdir, "output.npy"), res.numpy())
    else:
        for i, r in enumerate(res):
            np.save(os.path.join(outdir, "output_%d.npy" % i), r.numpy())


def check(name, parse_only):
    load_module(name, serial_threads=False)  # the text as written (modulo spelling)
    if parse_only:
        return True, "parsed"
    irmod = load_module(name, serial_threads=True)
    prog = load_program(name)
    work = tempfile.mkdtemp(prefix="tvs_xc_run_")
    refdir, outdir = os.path.join(work, "ref"), os.path.join(work, "out")
    os.makedirs(outdir)
    lines = subprocess.run([REF_PYTHON, os.path.join(HERE, "run_reference.py"), name, refdir],
                           check=True, capture_output=True, text=True).stdout.split()
    inputs = {}
    for line in lines:
        k, v = line.split("=", 1)
        if v.endswith(".npy"):
            inputs[k] = np.load(v)
        else:
            spec = prog.INPUTS[k]
            inputs[k] = {"true": True, "false": False}.get(v, None)
            if inputs[k] is None:
                inputs[k] = float(v) if "float" in spec[1] else int(v)
    func = irmod[prog.FUNC]
    if isinstance(func, (tvm.tirx.PrimFunc if NEW else tvm.tir.PrimFunc)):
        run_primfunc(irmod, prog.FUNC, prog, inputs, outdir)
    else:
        run_relax(irmod, prog.FUNC, prog, inputs, outdir)
    cmp = subprocess.run([REF_PYTHON, os.path.join(HERE, "compare.py"), refdir, outdir, name],
                         capture_output=True, text=True)
    return cmp.returncode == 0, cmp.stdout.strip()


def main(argv):
    parse_only = "--parse-only" in argv
    names = [a for a in argv[1:] if not a.startswith("--")]
    if not names:
        names = sorted(os.path.basename(p)[:-4] for p in glob.glob(os.path.join(HERE, "*.tvs")))
    names = [os.path.basename(n).rsplit(".", 1)[0] if n.endswith((".tvs", ".py")) else n
             for n in names]
    failed = []
    for name in names:
        try:
            ok, msg = check(name, parse_only)
        except Exception:  # report and go on
            ok, msg = False, traceback.format_exc(limit=3)
        print("%-28s %s\n    %s" % (name, "PASS" if ok else "FAIL", msg.replace("\n", "\n    ")))
        if not ok:
            failed.append(name)
    print("%d passed, %d failed" % (len(names) - len(failed), len(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
