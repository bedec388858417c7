"""test_basic.py - the vertical slice: script -> schedule -> build -> run on
NumPy arrays, and every kind of bad input raising a Python exception that
carries the diagnostic (file, line, message)."""
import inspect
import re

import numpy as np
import pytest

import tvs
from tvs.script import tir as T


def _inputs():
    rng = np.random.default_rng(0)
    a = rng.random((128, 128), dtype=np.float32)
    b = rng.random((128, 128), dtype=np.float32)
    return a, b, np.maximum(a @ b, 0)


def test_module_prints_and_lists(mm_relu):
    assert isinstance(mm_relu, tvs.IRModule)
    assert [g.name_hint for g in mm_relu.get_global_vars()] == ["mm_relu"]
    text = mm_relu.script()
    assert '@T.prim_func' in text and 'with T.block("Y"):' in text
    assert isinstance(mm_relu["mm_relu"], tvs.tir.PrimFunc)
    # The text parses back to an equal module.
    tvs.ir.assert_structural_equal(tvs.IRModule.from_text(text), mm_relu)


def test_build_and_run_numpy(mm_relu):
    a, b, want = _inputs()
    c = np.zeros((128, 128), np.float32)
    lib = tvs.build(mm_relu, target="llvm")
    lib["mm_relu"](a, b, c)  # zero-copy: c is written in place
    np.testing.assert_allclose(c, want, rtol=1e-5)


def test_schedule_split_reorder_vectorize_parallel(mm_relu):
    sch = tvs.tir.Schedule(mm_relu)
    blk = sch.get_block("Y", func_name="mm_relu")
    i, j, k = sch.get_loops(blk)
    assert isinstance(blk, tvs.tir.BlockRV) and isinstance(i, tvs.tir.LoopRV)
    j0, j1 = sch.split(j, factors=[None, 8])
    sch.reorder(j0, k, j1)
    sch.parallel(i)
    sch.vectorize(j1)
    text = sch.mod.script()
    assert "T.parallel(128)" in text and "T.vectorized(8)" in text
    assert "sch.vectorize(loop=" in str(sch.trace)
    a, b, want = _inputs()
    c = tvs.nd.empty((128, 128), "float32")
    tvs.build(sch.mod)["mm_relu"](tvs.nd.array(a), tvs.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), want, rtol=1e-5)


def test_parse_error_points_at_this_file():
    line = inspect.currentframe().f_lineno + 7
    with pytest.raises(tvs.ParseError) as e:
        @tvs.script.ir_module
        class Bad:
            @T.prim_func
            def f(A: T.Buffer((4,), "float32")):
                for i in T.serial(4):
                    A[i] = undefined_name + T.float32(1)  # noqa: F821
    msg = str(e.value)
    assert re.search(re.escape(__file__) + rf":{line}:\d+: error: .*undefined_name", msg), msg


def test_illegal_schedule_step_raises_with_diagnostic(mm_relu):
    sch = tvs.tir.Schedule(mm_relu)
    i, j, k = sch.get_loops(sch.get_block("Y"))
    line = inspect.currentframe().f_lineno + 2
    with pytest.raises(tvs.tir.ScheduleError) as e:
        sch.split(j, factors=[3, 5])
    msg = str(e.value)
    assert f"{__file__}:{line}:" in msg and "error:" in msg and "128" in msg, msg
    # The schedule is unchanged and still usable.
    assert len(sch.trace) == 2
    sch.split(j, factors=[None, 4])
    with pytest.raises(tvs.tir.ScheduleError, match="cannot find a block named .nope."):
        sch.get_block("nope")
    with pytest.raises(AttributeError, match="no attribute 'splitt'"):
        sch.splitt(j)


def test_bad_arrays_raise(mm_relu):
    f = tvs.build(mm_relu)["mm_relu"]
    a, b, _ = _inputs()
    c = np.zeros((128, 128), np.float32)
    with pytest.raises(tvs.RunError, match="float32"):
        f(a.astype(np.float64), b, c)
    with pytest.raises(tvs.RunError, match="shape|128"):
        f(a[:64].copy(), b, c)
    with pytest.raises(tvs.RunError, match="arguments|expected 3"):
        f(a, b)
    with pytest.raises(tvs.RunError, match="contiguous"):
        f(np.asfortranarray(a), b, c)
    with pytest.raises(TypeError, match="expected a tensor"):
        f("a", b, c)
    f(a, b, c)  # still callable


def test_standalone_prim_func_and_export(tmp_path):
    @T.prim_func
    def add_one(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        for i in range(16):
            with T.block("B"):
                vi = T.axis.spatial(16, i)
                B[vi] = A[vi] + T.float32(1)

    assert isinstance(add_one, tvs.tir.PrimFunc)
    lib = tvs.build(add_one)
    x = np.arange(16, dtype=np.float32)
    y = np.zeros(16, np.float32)
    lib["add_one"](x, y)
    np.testing.assert_array_equal(y, x + 1)
    so = tmp_path / "add_one.so"
    lib.export_library(str(so))
    loaded = tvs.runtime.load_module(str(so))
    y[:] = 0
    loaded["add_one"](x, y)
    np.testing.assert_array_equal(y, x + 1)
    assert loaded["add_one"].params()[0] == ("A", "tensor", "float32", (16,))


def test_time_evaluator(mm_relu):
    a, b, _ = _inputs()
    c = np.zeros((128, 128), np.float32)
    res = tvs.build(mm_relu).time_evaluator("mm_relu", tvs.cpu(), number=3, repeat=2)(a, b, c)
    assert len(res.results) == 2 and 0 < res.mean < 1


def test_unsupported_features_say_so():
    with pytest.raises(NotImplementedError, match="tvs.meta_schedule"):
        tvs.meta_schedule.tune_tir(None)
    with pytest.raises(NotImplementedError, match="relax.foo"):
        tvs.relax.foo()
    with pytest.raises(Exception, match="cuda"):
        tvs.build(tvs.IRModule.from_text("@T.prim_func\ndef f(A: T.Buffer((4,), 'float32')):\n    A[0] = T.float32(1)\n"),
                  target="cuda")


def test_stages(mm_relu):
    assert "lower-init-block" in tvs.ir.list_stages()
    low = mm_relu.stage("lower-init-block")
    assert "T.init" not in low
    assert "define" in mm_relu.stage("llvm")
    with pytest.raises(tvs.TVMError, match="unknown stage"):
        mm_relu.stage("nope")


def test_class_inside_a_function_with_graph_function():
    from tvs.script import relax as R

    @tvs.script.ir_module
    class Local:
        @T.prim_func
        def relu0(x: T.Buffer((1, 8), "float32"), y: T.Buffer((1, 8), "float32")):
            for i, j in T.grid(1, 8):
                with T.block("Y"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    y[vi, vj] = T.max(x[vi, vj], T.float32(0))

        @R.function
        def main(x: R.Tensor((1, 8), "float32")):
            with R.dataflow():
                lv0 = R.call_tir(Local.relu0, (x,), R.Tensor((1, 8), dtype="float32"))
                R.output(lv0)
            return lv0

    assert [g.name_hint for g in Local.get_global_vars()] == ["relu0", "main"]
    vm = tvs.relax.VirtualMachine(tvs.relax.build(Local), tvs.cpu())
    x = np.linspace(-1, 1, 8, dtype=np.float32).reshape(1, 8)
    np.testing.assert_array_equal(vm["main"](x).numpy(), np.maximum(x, 0))


def test_lower_and_from_source(mm_relu):
    low = tvs.lower(mm_relu)
    text = low.script()
    assert "T.block" not in text and "Y = T.decl_buffer((16384,))" in text, text[:500]
    again = tvs.script.from_source(mm_relu.script())
    tvs.ir.assert_structural_equal(again, mm_relu)
    # The lowered module still runs.
    a, b, want = _inputs()
    c = np.zeros((128, 128), np.float32)
    tvs.build(low)["mm_relu"](a, b, c)
    np.testing.assert_allclose(c, want, rtol=1e-5)


def test_graph_module_export_and_load(tmp_path, root):
    import os
    mod = tvs.IRModule.from_file(os.path.join(root, "examples", "mlp.tvs"))
    so = tmp_path / "mlp.so"
    tvs.relax.build(mod).export_library(str(so))
    vm = tvs.relax.VirtualMachine(tvs.runtime.load_module(str(so)), tvs.cpu())
    rng = np.random.default_rng(1)
    x, w0, b0 = (rng.random(s, dtype=np.float32) for s in ((1, 784), (784, 128), (128,)))
    w1, b1 = rng.random((128, 10), dtype=np.float32), rng.random(10, dtype=np.float32)
    out = vm["main"](x, w0, b0, w1, b1).numpy()
    np.testing.assert_allclose(out, np.maximum(x @ w0 + b0, 0) @ w1 + b1, rtol=1e-4)


def test_bind_params_as_the_course_does(root):
    """MLC's end-to-end chapter: relax.transform.BindParams("main", nd_params)(mod),
    then relax.build; the weights become constants, main takes x alone."""
    import os
    mod = tvs.IRModule.from_file(os.path.join(root, "examples", "mlp.tvs"))
    rng = np.random.default_rng(2)
    x = rng.random((1, 784), dtype=np.float32)
    w0 = rng.random((784, 128), dtype=np.float32)
    params = {"w0": tvs.nd.array(w0), "b0": rng.random(128, dtype=np.float32),
              "w1": np.asfortranarray(rng.random((128, 10), dtype=np.float32)),  # copied compact
              "b1": rng.random(10, dtype=np.float32)}
    bound = tvs.relax.transform.BindParams("main", params)(mod)
    assert "w0" not in bound["main"].script().split("->")[0] and "R.const" in bound["main"].script()
    assert "w0" in mod["main"].script()  # the pass returns a new module
    vm = tvs.relax.VirtualMachine(tvs.relax.build(bound), tvs.cpu())
    w0[:] = 0  # the module holds a copy
    want = np.maximum(x @ params["w0"].numpy() + params["b0"], 0) @ params["w1"] + params["b1"]
    np.testing.assert_allclose(vm["main"](x).numpy(), want, rtol=1e-4)
    with pytest.raises(tvs.TVMError, match=r"parameter 'b1' has shape \(10,\) but the value has \(11,\)"):
        tvs.relax.transform.BindParams("main", {"b1": np.zeros(11, np.float32)})(mod)
    with pytest.raises(tvs.TVMError, match="'nope' is not a parameter of 'main'"):
        tvs.relax.transform.BindParams("main", {"nope": np.zeros(1, np.float32)})(mod)
    with pytest.raises(tvs.TVMError, match="has dtype float32 but the value has float64"):
        tvs.relax.transform.BindParams("main", {"b1": np.zeros(10)})(mod)
    with pytest.raises(NotImplementedError, match="BindParams"):
        tvs.relax.build(mod, params=params)


def test_calls_from_several_threads(mm_relu):
    import threading
    lib = tvs.build(mm_relu)
    a, b, want = _inputs()
    errors = []

    def work():
        try:
            c = np.zeros((128, 128), np.float32)
            f = lib["mm_relu"]  # this thread's own function object
            for _ in range(20):
                f(a, b, c)
                np.testing.assert_allclose(c, want, rtol=1e-5)
            with pytest.raises(tvs.RunError):
                f(a, b, c[:64].copy())
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
