"""tvs.nd: tvm.nd's names (array, empty, NDArray, from_dlpack)."""
from .ndarray import NDArray, array, cpu, empty, from_dlpack  # noqa: F401
