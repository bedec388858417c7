"""tvs.tir: TensorIR schedules (tvm.tir.Schedule) and its handle types."""
from ..base import ScheduleError  # noqa: F401
from ..ir import PrimFunc  # noqa: F401
from ..te import const, if_then_else  # noqa: F401
from ..te import max as _te_max, min as _te_min
from .schedule import BlockRV, ExprRV, IndexMap, LoopRV, SBlockRV, Schedule, TensorIntrin, Trace  # noqa: F401

__all__ = ["Schedule", "TensorIntrin", "BlockRV", "LoopRV", "ExprRV", "SBlockRV", "IndexMap", "Trace", "ScheduleError",
           "PrimFunc"]


def max(a, b):  # noqa: A001 - tvm.tir.max
    return _te_max(a, b)


def min(a, b):  # noqa: A001 - tvm.tir.min
    return _te_min(a, b)
