"""Shape and indexing operators: reshape, permute_dims, squeeze, expand_dims, flatten,
concat, split, strided_slice, take, broadcast_to, tile, repeat."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from op_harness import Case, run_cases  # noqa: E402

F = "float32"
# an output size that is an expression of size vars (n * 3) cannot be allocated by `tvs run F.so` (its
# metadata names bare size vars only): those cases check the interpreter and the cpu target
NO_SO = ("interp", "cpu")


def idx(hi):
    return lambda name, shape, dtype, rng: rng.integers(0, hi, size=shape) if name == "i" else None


def slice_ref(axes, begin, end, strides=None):
    def f(x):
        sl = [slice(None)] * x.ndim
        for k, a in enumerate(axes):
            sl[a] = slice(begin[k], end[k], strides[k] if strides else 1)
        return x[tuple(sl)]
    return f


CASES = [
    # reshape
    Case("R.reshape(x, (6, 4))", {"x": ((2, 3, 4), F)}, ref=lambda x: x.reshape(6, 4)),
    Case("R.reshape(x, (-1, 2))", {"x": ((3, 4), F)}, ref=lambda x: x.reshape(-1, 2), name="reshape -1"),
    Case("R.reshape(x, R.shape([7]))", {"x": ((7, 1), F)}, ref=lambda x: x.reshape(7), name="reshape R.shape"),
    Case("R.reshape(x, (n, 2, 3))", {"x": (("n", 6), F)}, dims={"n": 5}, ref=lambda x: x.reshape(5, 2, 3),
         name="reshape symbolic"),
    Case("R.reshape(x, (-1,))", {"x": (("n", 3), "int32")}, dims={"n": 4}, ref=lambda x: x.reshape(-1),
         name="reshape symbolic -1", modes=NO_SO),
    Case("R.reshape(x, (4, 2))", {"x": ((2, 3), F)}, error="cannot reshape (2, 3) (6 elements) to (4, 2)",
         name="reshape bad count"),
    Case("R.reshape(x, (-1, 4))", {"x": ((2, 3), F)}, error="cannot reshape", name="reshape bad -1"),
    # permute_dims
    Case("R.permute_dims(x)", {"x": ((2, 3, 4), F)}, ref=lambda x: x.transpose()),
    Case("R.permute_dims(x, axes=[1, -1, 0])", {"x": ((2, 3, 5), F)}, ref=lambda x: x.transpose(1, 2, 0),
         name="permute neg axis"),
    Case("R.permute_dims(x, [1, 0])", {"x": (("n", 3), F)}, dims={"n": 7}, ref=lambda x: x.T,
         name="permute symbolic"),
    Case("R.permute_dims(x, axes=[0, 0])", {"x": ((2, 3), F)}, error="repeated", name="permute repeated"),
    Case("R.permute_dims(x, axes=[0])", {"x": ((2, 3), F)}, error="axes has 1 entries", name="permute short"),
    # squeeze / expand_dims / flatten
    Case("R.squeeze(x)", {"x": ((1, 3, 1, 2), F)}, ref=np.squeeze),
    Case("R.squeeze(x, axis=[-2])", {"x": ((1, 3, 1, 2), F)}, ref=lambda x: np.squeeze(x, -2),
         name="squeeze neg axis"),
    Case("R.squeeze(x, 1)", {"x": (("n", 1), F)}, dims={"n": 3}, ref=lambda x: np.squeeze(x, 1),
         name="squeeze symbolic"),
    Case("R.squeeze(x, axis=[1])", {"x": ((2, 3), F)}, error="not 1", name="squeeze not 1"),
    Case("R.expand_dims(x, axis=0)", {"x": ((2, 3), F)}, ref=lambda x: np.expand_dims(x, 0)),
    Case("R.expand_dims(x, [1, -1])", {"x": ((2, 3), F)}, ref=lambda x: np.expand_dims(x, (1, 3)),
         name="expand_dims list neg"),
    Case("R.expand_dims(x, axis=[0])", {"x": (("n",), F)}, dims={"n": 5}, ref=lambda x: x[None],
         name="expand_dims symbolic"),
    Case("R.expand_dims(x, axis=4)", {"x": ((2, 3), F)}, error="out of range", name="expand_dims bad"),
    Case("R.flatten(x)", {"x": ((2, 3, 5), F)}, ref=lambda x: x.reshape(-1)),
    Case("R.flatten(x)", {"x": (("n", 3), "int8")}, dims={"n": 2}, ref=lambda x: x.reshape(-1),
         name="flatten symbolic", modes=NO_SO),
    # concat
    Case("R.concat((a, b))", {"a": ((2, 3), F), "b": ((5, 3), F)}, ref=lambda a, b: np.concatenate([a, b])),
    Case("R.concat((a, b, c), axis=-1)", {"a": ((2, 1), F), "b": ((2, 3), F), "c": ((2, 7), F)},
         ref=lambda a, b, c: np.concatenate([a, b, c], -1), name="concat three neg axis"),
    Case("R.concat((a, b), axis=0)", {"a": (("n", 3), F), "b": (("m", 3), F)}, dims={"n": 2, "m": 3},
         ref=lambda a, b: np.concatenate([a, b]), name="concat symbolic", modes=NO_SO),
    Case("R.concat((a, b), 1)", {"a": ((2, 3), "int32"), "b": ((2, 2), "int32")},
         ref=lambda a, b: np.concatenate([a, b], 1), name="concat int positional"),
    Case("R.concat((a, b))", {"a": ((2, 3), F), "b": ((2, 4), F)}, error="differ in dimension 1",
         name="concat bad shape"),
    Case("R.concat((a, b))", {"a": ((2, 3), F), "b": ((2, 3), "int32")}, error="dtype", name="concat bad dtype"),
    Case("R.concat((a, b), axis=2)", {"a": ((2, 3), F), "b": ((2, 3), F)}, error="out of range",
         name="concat bad axis"),
    # split
    Case("R.split(x, 2)", {"x": ((4, 3), F)}, ref=lambda x: tuple(np.split(x, 2))),
    Case("R.split(x, 3, axis=-1)", {"x": ((2, 9), F)}, ref=lambda x: tuple(np.split(x, 3, -1)),
         name="split sections neg axis"),
    Case("R.split(x, [2, 5], axis=1)", {"x": ((2, 7), F)}, ref=lambda x: tuple(np.split(x, [2, 5], 1)),
         name="split indices"),
    Case("R.split(x, indices_or_sections=[3, 1])", {"x": ((5, 2), F)}, ref=lambda x: tuple(np.split(x, [3, 1])),
         name="split decreasing indices"),
    Case("R.split(x, 1)", {"x": ((3, 2), F)}, ref=lambda x: tuple(np.split(x, 1)), name="split one"),
    Case("R.split(x, 2, axis=1)", {"x": (("n", 4), F)}, dims={"n": 3}, ref=lambda x: tuple(np.split(x, 2, 1)),
         name="split symbolic"),
    Case("R.split(x, 3, axis=1)", {"x": ((2, 7), F)}, error="do not divide", name="split not dividing"),
    Case("R.split(x, 2, axis=2)", {"x": ((2, 4), F)}, error="out of range", name="split bad axis"),
    # strided_slice
    Case("R.strided_slice(x, axes=[0, 1, 3], begin=[1, 0, 8], end=[8, 9, 0], strides=[2, 1, -3])",
         {"x": ((8, 9, 10, 10), F)}, ref=slice_ref([0, 1, 3], [1, 0, 8], [8, 9, 0], [2, 1, -3]),
         name="strided_slice tvm"),
    Case("R.strided_slice(x, [1], [-3], [100])", {"x": ((2, 7), F)}, ref=slice_ref([1], [-3], [100]),
         name="strided_slice clamp neg"),
    Case("R.strided_slice(x, axes=[-1], begin=[5], end=[-100], strides=[-2])", {"x": ((3, 6), F)},
         ref=slice_ref([1], [5], [-100], [-2]), name="strided_slice negative stride"),
    Case("R.strided_slice(x, axes=[0], begin=[1], end=[3])", {"x": ((4, "n"), F)}, dims={"n": 3},
         ref=slice_ref([0], [1], [3]), name="strided_slice symbolic other dim"),
    Case("R.strided_slice(x, axes=[1], begin=[1], end=[100], strides=[2])", {"x": ((2, "n"), F)}, dims={"n": 7},
         ref=slice_ref([1], [1], [100], [2]), name="strided_slice symbolic sliced axis", modes=NO_SO),
    Case("R.strided_slice(x, axes=[0], begin=[-2], end=[8])", {"x": (("n", 3), F)}, dims={"n": 5},
         ref=slice_ref([0], [-2], [8]), name="strided_slice symbolic negative begin", modes=NO_SO),
    Case("R.strided_slice(x, axes=[0], begin=[1], end=[3], strides=[0])", {"x": ((4, 2), F)}, error="stride",
         name="strided_slice zero stride"),
    Case("R.strided_slice(x, axes=[0, 1], begin=[1], end=[3])", {"x": ((4, 2), F)}, error="same length",
         name="strided_slice lengths"),
    # take
    Case("R.take(x, i, axis=1)", {"x": ((2, 5, 3), F), "i": ((4,), "int64")}, gen=idx(5),
         ref=lambda x, i: np.take(x, i, 1)),
    Case("R.take(x, i)", {"x": ((7,), F), "i": ((2, 3), "int32")}, gen=idx(7), ref=np.take, name="take axis None"),
    Case("R.take(x, i, -2)", {"x": ((6, 2), F), "i": (("n",), "int32")}, dims={"n": 3}, gen=idx(6),
         ref=lambda x, i: np.take(x, i, 0), name="take symbolic indices"),
    Case("R.take(x, i, axis=0, mode=\"clip\")", {"x": ((4, 2), F), "i": ((5,), "int64")},
         gen=lambda n, s, d, rng: rng.integers(-3, 8, size=s) if n == "i" else None,
         ref=lambda x, i: np.take(x, i, 0, mode="clip"), name="take clip"),
    Case("R.take(x, i, axis=0, mode=\"wrap\")", {"x": ((4, 2), F), "i": ((5,), "int64")},
         gen=lambda n, s, d, rng: rng.integers(-9, 9, size=s) if n == "i" else None,
         ref=lambda x, i: np.take(x, i, 0, mode="wrap"), name="take wrap"),
    Case("R.take(x, i, axis=0)", {"x": ((4, 2), F), "i": ((5,), F)}, error="integers", name="take float idx"),
    Case("R.take(x, i)", {"x": ((4, 2), F), "i": ((5,), "int32")}, error="1-d", name="take None 2-d"),
    # broadcast_to
    Case("R.broadcast_to(x, (2, 3, 4))", {"x": ((3, 1), F)}, ref=lambda x: np.broadcast_to(x, (2, 3, 4))),
    Case("R.broadcast_to(x, (n, 5))", {"x": ((1, 5), F), "y": (("n",), F)}, dims={"n": 3},
         ref=lambda x, y: np.broadcast_to(x, (3, 5)), name="broadcast_to symbolic"),
    Case("R.broadcast_to(x, (2, 4))", {"x": ((3,), F)}, error="cannot be broadcast", name="broadcast_to bad"),
    # tile / repeat
    Case("R.tile(x, [2, 3])", {"x": ((2, 3), F)}, ref=lambda x: np.tile(x, (2, 3))),
    Case("R.tile(x, 2)", {"x": ((2, 3), F)}, ref=lambda x: np.tile(x, 2), name="tile int"),
    Case("R.tile(x, repeats=[2, 1, 3])", {"x": (("n", 3), F)}, dims={"n": 2}, ref=lambda x: np.tile(x, (2, 1, 3)),
         name="tile more dims symbolic"),
    Case("R.repeat(x, 2, axis=1)", {"x": ((2, 3), F)}, ref=lambda x: np.repeat(x, 2, 1)),
    Case("R.repeat(x, 3)", {"x": ((2, 3), F)}, ref=lambda x: np.repeat(x, 3), name="repeat axis None"),
    Case("R.repeat(x, repeats=2, axis=-2)", {"x": (("n", 3), "int32")}, dims={"n": 5},
         ref=lambda x: np.repeat(x, 2, 0), name="repeat symbolic neg axis", modes=NO_SO),
    Case("R.repeat(x, 2, axis=3)", {"x": ((2, 3), F)}, error="out of range", name="repeat bad axis"),
]

if __name__ == "__main__":
    run_cases(CASES)
