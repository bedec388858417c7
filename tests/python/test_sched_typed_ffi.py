"""test_sched_typed_ffi.py - the typed schedule calls of include/tvs/schedule.h
through the cffi declarations of tvs._ffi (handles passed by value), sharing
names and the trace with schedule statements."""
from tvs import _ffi

ffi, lib = _ffi.ffi, _ffi.lib

SRC = b'''@T.prim_func
def f(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi] * T.float32(2)
'''


def _trace(s):
    t = ffi.new("char **")
    assert lib.tvs_sched_trace(s, 0, t) == 0
    return _ffi.take_string(t)


def test_typed_calls_share_names_and_trace():
    m, s = ffi.new("TvsIRModule **"), ffi.new("TvsSchedule **")
    assert lib.tvs_irmod_parse(SRC, b"f.tvs", 1, m) == 0
    assert lib.tvs_sched_create(m[0], s) == 0
    try:
        b = ffi.new("TvsBlockRV *")
        assert lib.tvs_sched_get_block(s[0], b"B", ffi.NULL, b) == 0
        loops, n = ffi.new("TvsLoopRV **"), ffi.new("int *")
        assert lib.tvs_sched_get_loops(s[0], b[0], loops, n) == 0 and n[0] == 1
        out = ffi.new("TvsLoopRV[2]")
        assert lib.tvs_sched_split(s[0], loops[0][0], ffi.new("int64_t[]", [-1, 4]), 2, 1, 0, out) == 0
        lib.tvs_handles_free(loops[0])
        inner = ffi.new("TvsRV *", [out[1].id])[0]
        assert lib.tvs_sched_bind_name(s[0], b"inner", inner) == 0
        assert lib.tvs_sched_exec(s[0], b"sch.vectorize(inner)", ffi.NULL) == 0
        assert ffi.string(lib.tvs_sched_rv_name(s[0], inner)) == b"l3"
        assert _trace(s[0]).splitlines()[2:] == [
            "l2, l3 = sch.split(loop=l1, factors=[None, 4], preserve_unit_iters=True, disable_predication=False)",
            "sch.vectorize(loop=l3)"]
        # An illegal step: the primitive's message, nothing recorded.
        assert lib.tvs_sched_split(s[0], out[0], ffi.new("int64_t[]", [1, 1]), 2, 1, 0, out) == _ffi.ERR_SCHEDULE
        assert "error: split: factors [1, 1] multiply to 1" in _ffi.last_error()
        assert lib.tvs_sched_trace_len(s[0]) == 4
    finally:
        lib.tvs_sched_release(s[0])
        lib.tvs_irmod_release(m[0])
