"""ndarray.py - tvs.nd: host tensors (tvm.nd.NDArray) over NumPy memory,
with DLPack both ways (zero-copy), and the devices (tvm.cpu())."""
import numpy as np


class Device:
    """A device; TVS runs compiled functions on the CPU."""

    def __init__(self, kind="cpu", index=0):
        self.device_type, self.device_id = {"cpu": 1, "llvm": 1}.get(kind, kind), index
        if self.device_type != 1:
            raise NotImplementedError(f"tvs: device '{kind}' is not implemented (TVS's Python API runs on cpu)")

    def __repr__(self):
        return f"cpu({self.device_id})"

    def __eq__(self, other):
        return isinstance(other, Device) and other.device_id == self.device_id

    exist = True

    def sync(self):
        pass


def cpu(index=0):
    return Device("cpu", index)


def device(kind, index=0):
    return Device(kind, index)


class NDArray:
    """A tensor on the host.  Its memory is a C-contiguous NumPy array; numpy()
    gives that array itself (a view, not a copy, unlike TVM), and DLPack hands
    the same memory to PyTorch or NumPy."""

    def __init__(self, arr):
        self._np = arr

    @property
    def shape(self):
        return tuple(self._np.shape)

    @property
    def dtype(self):
        return str(self._np.dtype)

    @property
    def device(self):
        return cpu()

    def numpy(self):
        return self._np

    asnumpy = numpy

    def copyfrom(self, source):
        src = source.numpy() if isinstance(source, NDArray) else np.asarray(source)
        if src.shape != self._np.shape:
            raise ValueError(f"copyfrom: shape {src.shape} does not match {self._np.shape}")
        self._np[...] = src
        return self

    def copyto(self, target):
        if isinstance(target, NDArray):
            return target.copyfrom(self)
        return array(self._np.copy())

    def __dlpack__(self, stream=None):
        return self._np.__dlpack__()

    def __dlpack_device__(self):
        return self._np.__dlpack_device__()

    def __array__(self, dtype=None):
        return self._np if dtype is None else self._np.astype(dtype)

    def __repr__(self):
        return f"<tvs.nd.NDArray shape={self.shape}, {self.device}>\n{self._np!r}"


def array(arr, device=None, dtype=None):
    """A tensor holding a copy of arr (as tvm.nd.array does)."""
    if isinstance(arr, NDArray):
        arr = arr.numpy()
    a = np.array(arr, dtype=dtype, order="C", copy=True)
    return NDArray(a)


def empty(shape, dtype="float32", device=None):
    return NDArray(np.zeros(tuple(shape), dtype=dtype))


def from_dlpack(x):
    """Wraps anything with __dlpack__ (a PyTorch tensor) without copying;
    writes through the array are seen by x."""
    from ._dlpack import to_numpy
    return NDArray(to_numpy(x))
