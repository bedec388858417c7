"""test_sched_parity.py - every schedule script of the lit suite
(tests/lit/sched/Inputs/*.py, as the .test files pair them with a module)
run as Python through tvs.tir.Schedule gives what `tvs show --schedule` gives:
the same IR at the tir stage on success, the same error message on failure.
Under TVS_TEST_QUICK a fixed third of the pairs runs."""
import contextlib
import io
import os
import re
import subprocess

import pytest

import tvs
from tvs.script import tir as T

LIT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lit", "sched")
PAIR = re.compile(r"%tvs show %S/Inputs/(\S+\.tvs) --schedule %S/Inputs/(\S+\.py)")


def _pairs():
    seen = []
    for name in sorted(os.listdir(LIT)):
        if name.endswith(".test"):
            with open(os.path.join(LIT, name), encoding="utf-8") as f:
                for m in PAIR.finditer(f.read()):
                    if m.groups() not in seen:
                        seen.append(m.groups())
    if os.environ.get("TVS_TEST_QUICK"):
        seen = seen[::3]
    return seen


def _run_python(tvs_path, py_path):
    """(stdout, the final schedule's tir stage or None, the exception or None)."""
    mod = tvs.IRModule.from_file(tvs_path)
    sch = tvs.tir.Schedule(mod)
    env = {"sch": sch, "tvm": tvs, "tvs": tvs, "T": T, "Module": mod, mod.__class__.__name__: mod}
    env[tvs.ir.ffi.string(tvs.ir.lib.tvs_irmod_name(mod._h)).decode()] = mod
    out = io.StringIO()
    with open(py_path, encoding="utf-8") as f:
        code = compile(f.read(), py_path, "exec")
    for i in range(tvs.ir.lib.tvs_irmod_num_funcs(mod._h)):
        fname = tvs.ir.ffi.string(tvs.ir.lib.tvs_irmod_func_name(mod._h, i)).decode()
        env.setdefault(fname, mod[fname])  # T.TensorIntrin.register(name, desc, impl) names them
    try:
        with contextlib.redirect_stdout(out):
            exec(code, env)  # noqa: S102 - the suite's own schedule scripts
            # A trace file's apply_trace is applied when the file does not call it (as tvs does).
            if callable(env.get("apply_trace")) and len(env["sch"].trace) == 0:
                env["apply_trace"](env["sch"])
        return out.getvalue(), env["sch"].mod.stage("tir"), None
    except Exception as e:  # noqa: BLE001 - compared with tvs show's error below
        return out.getvalue(), None, e


def _has_inline_script(tvs_path):
    with open(tvs_path, encoding="utf-8") as f:
        return re.search(r"^sch\b|^\w+ = sch\.", f.read(), re.M) is not None


# Where Python itself differs: what it raises instead, and why.
PYTHON_DIFFERS = {
    # Python looks the function up (KeyError) before Schedule() sees it.
    "s_prim_func_missing.py": (KeyError, "'mm'"),
    # A misspelt prim_func is a Python name that does not exist.
    "tensorize_e_register_missing.py": (NameError, "'dot4_impll'"),
    # The registry is process-wide: this process registered more intrinsics before.
    "tensorize_e_unknown.py": (tvs.tir.ScheduleError, "no tensor intrinsic named 'axpy_8_f32' is registered"),
    # Python's handles know their schedule: the foreign one is refused before the call.
    "two_sched_e_handle.py": (tvs.tir.ScheduleError, "belongs to another schedule"),
}


def test_every_lit_schedule_script_matches_tvs_show(tvs_bin):
    pairs = _pairs()
    assert len(pairs) > 50
    failures, checked, errors_checked = [], 0, 0
    for mod_name, py_name in pairs:
        tvs_path, py_path = os.path.join(LIT, "Inputs", mod_name), os.path.join(LIT, "Inputs", py_name)
        if _has_inline_script(tvs_path):
            continue
        ref = subprocess.run([tvs_bin, "show", tvs_path, "--schedule", py_path, "--stage", "tir"],
                             capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"})
        out, stage, exc = _run_python(tvs_path, py_path)
        checked += 1
        what = f"{mod_name} + {py_name}"
        if ref.returncode == 0:
            if exc is not None:
                failures.append(f"{what}: tvs show succeeds, Python raised {type(exc).__name__}: {exc}")
            elif not ref.stdout.endswith(stage):
                failures.append(f"{what}: the IR differs from tvs show's")
        else:
            want = re.search(r"error: (.*)", ref.stderr)
            errors_checked += 1
            if exc is None:
                failures.append(f"{what}: tvs show fails ({want and want.group(1)}), Python did not raise")
            elif py_name in PYTHON_DIFFERS:
                kind, text = PYTHON_DIFFERS[py_name]
                if not isinstance(exc, kind) or text not in str(exc):
                    failures.append(f"{what}: expected {kind.__name__} naming {text}, got {exc!r}")
            elif want and want.group(1) not in str(exc):
                failures.append(f"{what}: tvs show says '{want.group(1)}', Python: {exc}")
    print(f"{checked} schedule scripts checked ({errors_checked} error cases), {len(failures)} differ")
    assert not failures, f"{len(failures)} of {checked} differ:\n" + "\n".join(failures)
