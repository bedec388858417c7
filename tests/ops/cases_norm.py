"""Normalization operators: nn.layer_norm, nn.group_norm, nn.batch_norm (interpreter,
cpu target and tvsc .so against numpy formulas in float64)."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from op_harness import Case, run_cases  # noqa: E402

F = "float32"


def layer_norm(x, g, b, axes, eps=1e-5, center=True, scale=True):
    x = x.astype(np.float64)
    axes = tuple(a % x.ndim for a in axes)
    m = x.mean(axis=axes, keepdims=True)
    v = x.var(axis=axes, keepdims=True)
    y = (x - m) / np.sqrt(v + eps)
    # gamma/beta are shaped like the normalized axes, in their order
    shape = [1] * x.ndim
    for i, a in enumerate(axes):
        shape[a] = g.shape[i]
    order = sorted(range(len(axes)), key=lambda i: axes[i])
    if scale:
        y = y * np.transpose(g, order).reshape(shape)
    if center:
        y = y + np.transpose(b, order).reshape(shape)
    return y


def group_norm(x, g, b, groups, ch, axes, eps=1e-5):
    x = x.astype(np.float64)
    xm = np.moveaxis(x, ch, 0)
    c = xm.shape[0]
    xg = xm.reshape((groups, c // groups) + xm.shape[1:])
    # reduce over the channels of the group and the axes (moved by one for the group dim)
    # (in xg: the group at 0, the channel within it at 1, then the other dims in order)
    red = [1] + [(a % x.ndim) + (2 if (a % x.ndim) < ch else 1) for a in axes]
    red = tuple(sorted(set(red)))
    m = xg.mean(axis=red, keepdims=True)
    v = xg.var(axis=red, keepdims=True)
    y = ((xg - m) / np.sqrt(v + eps)).reshape(xm.shape)
    shape = [c] + [1] * (x.ndim - 1)
    y = y * g.reshape(shape) + b.reshape(shape)
    return np.moveaxis(y, 0, ch)


def batch_norm_infer(x, g, b, mm, mv, axis=1, eps=1e-5):
    shape = [1] * x.ndim
    shape[axis] = -1
    r = lambda t: t.astype(np.float64).reshape(shape)  # noqa: E731
    return (x - r(mm)) / np.sqrt(r(mv) + eps) * r(g) + r(b)


def batch_norm_train(x, g, b, mm, mv, axis=1, eps=1e-5, mom=0.1, which=0):
    red = tuple(d for d in range(x.ndim) if d != axis)
    x64 = x.astype(np.float64)
    m, v = x64.mean(axis=red), x64.var(axis=red)
    shape = [1] * x.ndim
    shape[axis] = -1
    out = (x64 - m.reshape(shape)) / np.sqrt(v.reshape(shape) + eps) * g.reshape(shape) + b.reshape(shape)
    return [out, (1 - mom) * mm + mom * m, (1 - mom) * mv + mom * v][which]


def positive(name, shape, dtype, rng):
    if name in ("mv",):
        return rng.uniform(0.5, 2.0, size=shape)
    return None


LN = "R.nn.layer_norm(x, g, b, axes=%s%s)"
CASES = [
    Case(LN % ("[-1]", ""), {"x": ((2, 3, 8), F), "g": ((8,), F), "b": ((8,), F)},
         ref=lambda x, g, b: layer_norm(x, g, b, [-1]), rtol=1e-3, atol=1e-4),
    Case(LN % ("[-2, -1]", ""), {"x": ((2, 3, 4, 5), F), "g": ((4, 5), F), "b": ((4, 5), F)},
         ref=lambda x, g, b: layer_norm(x, g, b, [-2, -1]), rtol=1e-3, atol=1e-4),
    Case(LN % ("[1]", ", epsilon=0.01"), {"x": ((3, 7, 2), F), "g": ((7,), F), "b": ((7,), F)},
         ref=lambda x, g, b: layer_norm(x, g, b, [1], eps=0.01), rtol=1e-3, atol=1e-4,
         name="layer_norm middle axis"),
    Case(LN % ("-1", ""), {"x": (("n", 13), F), "g": ((13,), F), "b": ((13,), F)}, dims={"n": 3},
         ref=lambda x, g, b: layer_norm(x, g, b, [-1]), rtol=1e-3, atol=1e-4, name="layer_norm symbolic rows"),
    Case(LN % ("[1]", ", center=False, scale=False"), {"x": ((4, 6), F), "g": ((6,), F), "b": ((6,), F)},
         ref=lambda x, g, b: layer_norm(x, g, b, [1], center=False, scale=False), rtol=1e-3, atol=1e-4,
         name="layer_norm no center no scale"),
    Case("R.nn.layer_norm(x, g, b, [-1], 1e-3)", {"x": ((5, 1), F), "g": ((1,), F), "b": ((1,), F)},
         ref=lambda x, g, b: layer_norm(x, g, b, [-1], eps=1e-3), rtol=1e-3, atol=1e-4,
         name="layer_norm size-1 axis positional attrs"),
    Case(LN % ("[-1]", ""), {"x": ((2, 8), "float64"), "g": ((8,), "float64"), "b": ((8,), "float64")},
         ref=lambda x, g, b: layer_norm(x, g, b, [-1]), rtol=1e-6, atol=1e-8, name="layer_norm float64"),
    Case(LN % ("[-1]", ""), {"x": ((2, 8), F), "g": ((7,), F), "b": ((8,), F)}, error="gamma must have shape (8,)",
         name="layer_norm gamma mismatch"),
    Case(LN % ("[2]", ""), {"x": ((2, 8), F), "g": ((8,), F), "b": ((8,), F)}, error="out of range",
         name="layer_norm axis error"),
    Case(LN % ("[-1]", ""), {"x": ((2, 8), "int32"), "g": ((8,), "int32"), "b": ((8,), "int32")},
         error="float", name="layer_norm int error"),
    Case(LN % ("[-1]", ""), {"x": ((2, 8), F), "g": ((8,), "float64"), "b": ((8,), F)}, error="dtype",
         name="layer_norm dtype error"),
    Case("R.nn.layer_norm(x, g, b)", {"x": ((2, 8), F), "g": ((8,), F), "b": ((8,), F)}, error="axes",
         name="layer_norm axes required"),
    # group_norm
    Case("R.nn.group_norm(x, g, b, num_groups=2, channel_axis=1, axes=[2, 3])",
         {"x": ((2, 4, 3, 3), F), "g": ((4,), F), "b": ((4,), F)},
         ref=lambda x, g, b: group_norm(x, g, b, 2, 1, [2, 3]), rtol=1e-3, atol=1e-4),
    Case("R.nn.group_norm(x, g, b, 3, 1, [2])", {"x": (("n", 6, 5), F), "g": ((6,), F), "b": ((6,), F)},
         dims={"n": 2}, ref=lambda x, g, b: group_norm(x, g, b, 3, 1, [2]), rtol=1e-3, atol=1e-4,
         name="group_norm positional symbolic"),
    Case("R.nn.group_norm(x, g, b, num_groups=1, channel_axis=-1, axes=[1])",
         {"x": ((2, 7, 4), F), "g": ((4,), F), "b": ((4,), F)},
         ref=lambda x, g, b: group_norm(x, g, b, 1, 2, [1]), rtol=1e-3, atol=1e-4, name="group_norm channels last"),
    Case("R.nn.group_norm(x, g, b, num_groups=3, channel_axis=1, axes=[2])",
         {"x": ((2, 4, 3), F), "g": ((4,), F), "b": ((4,), F)}, error="does not divide",
         name="group_norm groups error"),
    Case("R.nn.group_norm(x, g, b, num_groups=2, channel_axis=1, axes=[1])",
         {"x": ((2, 4, 3), F), "g": ((4,), F), "b": ((4,), F)}, error="must not be one of the axes",
         name="group_norm channel in axes error"),
    Case("R.nn.group_norm(x, g, b, num_groups=2, channel_axis=1, axes=[2])",
         {"x": ((2, 4, 3), F), "g": ((3,), F), "b": ((4,), F)}, error="gamma must have shape",
         name="group_norm gamma error"),
    # batch_norm: inference from the moving stats, training from the batch
    Case("R.nn.batch_norm(x, g, b, mm, mv, axis=1, training=False)[0]",
         {"x": ((2, 3, 4), F), "g": ((3,), F), "b": ((3,), F), "mm": ((3,), F), "mv": ((3,), F)}, gen=positive,
         ref=batch_norm_infer, rtol=1e-3, atol=1e-4, name="batch_norm inference out"),
    Case("R.nn.batch_norm(x, g, b, mm, mv, axis=-1, epsilon=1e-3, training=False)[0]",
         {"x": (("n", 5), F), "g": ((5,), F), "b": ((5,), F), "mm": ((5,), F), "mv": ((5,), F)},
         dims={"n": 3}, gen=positive, ref=lambda *a: batch_norm_infer(*a, axis=1, eps=1e-3), rtol=1e-3,
         atol=1e-4, name="batch_norm inference last axis symbolic"),
    Case("R.nn.batch_norm(x, g, b, mm, mv, 1, training=False)[2]",
         {"x": ((2, 3), F), "g": ((3,), F), "b": ((3,), F), "mm": ((3,), F), "mv": ((3,), F)}, gen=positive,
         ref=lambda x, g, b, mm, mv: mv, name="batch_norm inference keeps moving var"),
    Case("R.nn.batch_norm(x, g, b, mm, mv, axis=1)[0]",
         {"x": ((4, 3, 5), F), "g": ((3,), F), "b": ((3,), F), "mm": ((3,), F), "mv": ((3,), F)}, gen=positive,
         ref=lambda *a: batch_norm_train(*a, which=0), rtol=1e-3, atol=1e-4, name="batch_norm training out"),
    Case("R.nn.batch_norm(x, g, b, mm, mv, axis=1, momentum=0.25)[1]",
         {"x": ((4, 3, 5), F), "g": ((3,), F), "b": ((3,), F), "mm": ((3,), F), "mv": ((3,), F)}, gen=positive,
         ref=lambda *a: batch_norm_train(*a, mom=0.25, which=1), rtol=1e-3, atol=1e-4,
         name="batch_norm training mean"),
    Case("R.nn.batch_norm(x, g, b, mm, mv, axis=1)[2]",
         {"x": ((4, 3, 5), F), "g": ((3,), F), "b": ((3,), F), "mm": ((3,), F), "mv": ((3,), F)}, gen=positive,
         ref=lambda *a: batch_norm_train(*a, which=2), rtol=1e-3, atol=1e-4, name="batch_norm training var"),
    Case("R.nn.batch_norm(x, g, b, mm, mv, axis=1)",
         {"x": ((2, 3), F), "g": ((2,), F), "b": ((3,), F), "mm": ((3,), F), "mv": ((3,), F)},
         error="gamma must have shape", name="batch_norm gamma error"),
    Case("R.nn.batch_norm(x, g, b, mm, mv, axis=2)",
         {"x": ((2, 3), F), "g": ((3,), F), "b": ((3,), F), "mm": ((3,), F), "mv": ((3,), F)},
         error="out of range", name="batch_norm axis error"),
]

if __name__ == "__main__":
    run_cases(CASES)
