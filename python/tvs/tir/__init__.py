"""tvs.tir: TensorIR schedules (tvm.tir.Schedule) and its handle types."""
from ..base import ScheduleError  # noqa: F401
from ..ir import PrimFunc  # noqa: F401
from .schedule import BlockRV, ExprRV, IndexMap, LoopRV, SBlockRV, Schedule, TensorIntrin, Trace  # noqa: F401

__all__ = ["Schedule", "TensorIntrin", "BlockRV", "LoopRV", "ExprRV", "SBlockRV", "IndexMap", "Trace", "ScheduleError",
           "PrimFunc"]
