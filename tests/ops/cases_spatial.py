"""Spatial operators (convolution, pooling, resize) against torch.

Each case runs on the interpreter, the cpu target (legalized through the
stdlib/ templates) and a tvsc .so.  torch (/usr/bin/python3) is the
reference; NHWC cases transpose around it.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from op_harness import Case, run_cases  # noqa: E402

import torch  # noqa: E402
import torch.nn.functional as TF  # noqa: E402

F = "float32"


def T(a):
    return torch.from_numpy(np.ascontiguousarray(a))


def nhwc(f):
    """f on NCHW tensors, applied to NHWC data (and HWIO weights when given)."""
    def g(x, *w):
        xs = x.transpose(0, 3, 1, 2)
        ws = [wi.transpose(3, 2, 0, 1) for wi in w]  # HWIO -> OIHW
        return f(xs, *ws).transpose(0, 2, 3, 1)
    return g


def conv(stride=1, padding=0, dilation=1, groups=1):
    def f(x, w):
        p = padding
        if isinstance(p, tuple) and len(p) == 4:  # top, left, bottom, right
            x = np.pad(x, ((0, 0), (0, 0), (p[0], p[2]), (p[1], p[3])))
            p = 0
        return TF.conv2d(T(x), T(w), stride=stride, padding=p, dilation=dilation, groups=groups).numpy()
    return f


def convt(stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return lambda x, w: TF.conv_transpose2d(T(x), T(w), stride=stride, padding=padding,
                                            output_padding=output_padding, groups=groups,
                                            dilation=dilation).numpy()


def maxp(k, s=None, p=0, d=1, ceil=False):
    return lambda x: TF.max_pool2d(T(x), k, stride=s or k, padding=p, dilation=d, ceil_mode=ceil).numpy()


def avgp(k, s=None, p=0, ceil=False, cip=False):
    return lambda x: TF.avg_pool2d(T(x), k, stride=s or k, padding=p, ceil_mode=ceil,
                                   count_include_pad=cip).numpy()


def blk(a, b):
    """NCHW -> NCHW[b]c."""
    n, c, h, w = a.shape
    return a.reshape(n, c // b, b, h, w).transpose(0, 1, 3, 4, 2)


def unblk(a):
    """NCHW[b]c -> NCHW."""
    n, cb, h, w, b = a.shape
    return a.transpose(0, 1, 4, 2, 3).reshape(n, cb * b, h, w)


def kunblk(w):
    """OIHW[i]i[o]o -> OIHW."""
    ob, ib, kh, kw, i, o = w.shape
    return w.transpose(0, 5, 1, 4, 2, 3).reshape(ob * o, ib * i, kh, kw)


def blocked(f, b):
    """f on NCHW/OIHW tensors, applied to blocked data (and weights) with an output block of b."""
    return lambda x, *w: blk(f(unblk(x), *[kunblk(wi) for wi in w]), b)


def x4(n, c, h, w):
    return {"x": ((n, c, h, w), F)}


def xw(xs, ws):
    return {"x": (xs, F), "w": (ws, F)}


CASES = [
    # --- conv2d
    Case("R.nn.conv2d(x, w)", xw((1, 3, 8, 8), (4, 3, 3, 3)), ref=conv(), name="conv2d basic"),
    Case("R.nn.conv2d(x, w, strides=[2, 2], padding=[1, 1])", xw((2, 3, 9, 9), (5, 3, 3, 3)),
         ref=conv(2, 1), name="conv2d stride 2 pad 1"),
    Case("R.nn.conv2d(x, w, padding=[1, 2, 0, 3])", xw((1, 2, 7, 5), (3, 2, 3, 2)),
         ref=conv(padding=(1, 2, 0, 3)), name="conv2d asymmetric padding"),
    Case("R.nn.conv2d(x, w, strides=[1, 2], padding=[2, 1], dilation=[2, 1])", xw((1, 2, 11, 7), (3, 2, 3, 3)),
         ref=lambda x, w: TF.conv2d(T(x), T(w), stride=(1, 2), padding=(2, 1), dilation=(2, 1)).numpy(),
         name="conv2d dilation"),
    Case("R.nn.conv2d(x, w, groups=2)", xw((1, 4, 6, 6), (6, 2, 3, 3)), ref=conv(groups=2), name="conv2d groups 2"),
    Case("R.nn.conv2d(x, w, padding=[1, 1], groups=4)", xw((2, 4, 5, 5), (4, 1, 3, 3)),
         ref=conv(padding=1, groups=4), name="conv2d depthwise"),
    Case("R.nn.conv2d(x, w)", xw((1, 5, 7, 7), (3, 5, 1, 1)), ref=conv(), name="conv2d 1x1 prime sizes"),
    Case("R.nn.conv2d(x, w, padding=[1, 1])", {"x": (("n", 3, 6, 6), F), "w": ((4, 3, 3, 3), F)},
         dims={"n": 3}, ref=conv(padding=1), name="conv2d symbolic batch"),
    Case("R.nn.conv2d(x, w, padding=[1, 1], data_layout=\"NHWC\", kernel_layout=\"HWIO\")",
         xw((1, 6, 6, 3), (3, 3, 3, 4)), ref=nhwc(conv(padding=1)), name="conv2d NHWC HWIO"),
    Case("R.nn.conv2d(x, w, strides=[2, 2], data_layout=\"NHWC\", kernel_layout=\"HWIO\", groups=2)",
         xw((1, 7, 7, 4), (3, 3, 2, 6)), ref=nhwc(conv(stride=2, groups=2)), name="conv2d NHWC groups"),
    Case("R.nn.conv2d(x, w, data_layout=\"NHWC\")", xw((1, 5, 5, 2), (3, 2, 2, 2)),
         ref=lambda x, w: conv()(x.transpose(0, 3, 1, 2), w).transpose(0, 2, 3, 1), name="conv2d NHWC OIHW"),
    Case("R.nn.conv2d(x, w, data_layout=\"NHWC\", out_layout=\"NCHW\")", xw((1, 5, 5, 2), (3, 2, 2, 2)),
         ref=lambda x, w: conv()(x.transpose(0, 3, 1, 2), w), modes=("interp",), name="conv2d out_layout NCHW"),
    Case("R.nn.conv2d(x, w, padding=[1, 1], data_layout=\"NCHW16c\", kernel_layout=\"OIHW16i16o\", "
         "out_layout=\"NCHW16c\")", xw((1, 2, 6, 7, 16), (3, 2, 3, 3, 16, 16)), ref=blocked(conv(padding=1), 16),
         name="conv2d NCHW16c"),
    Case("R.nn.conv2d(x, w, strides=[2, 2], data_layout=\"NCHW4c\", kernel_layout=\"OIHW4i8o\", "
         "out_layout=\"NCHW8c\")", xw((1, 2, 7, 5, 4), (2, 2, 1, 1, 4, 8)), ref=blocked(conv(2), 8),
         name="conv2d NCHW4c 1x1 stride 2"),
    Case("R.nn.conv2d(x, w, data_layout=\"NCHW16c\", kernel_layout=\"OIHW16i8o\", out_layout=\"NCHW16c\")",
         xw((1, 1, 5, 5, 16), (3, 1, 3, 3, 16, 8)), error="the block of 16 does not divide the 24 output channels",
         name="conv2d blocked bad out_layout"),
    Case("R.nn.conv2d(x, w, data_layout=\"NCHW16c\", kernel_layout=\"OIHW16i16o\", out_layout=\"NCHW8c\")",
         xw((1, 1, 5, 5, 16), (1, 1, 3, 3, 16, 16)), ref=blocked(conv(), 8), modes=("interp",),
         name="conv2d blocked out block other than the kernel's (interpreter)"),
    Case("R.layout_transform(x, index_map=lambda n, c, h, w: (n, c // 8, h, w, c % 8))", x4(2, 16, 3, 5),
         ref=lambda x: blk(x, 8), name="layout_transform NCHW to NCHW8c"),
    Case("R.layout_transform(x, index_map=T.index_map(lambda n, c, h, w, cb: (n, c * 4 + cb, h, w)))",
         {"x": ((1, 3, 2, 7, 4), F)}, ref=unblk, name="layout_transform NCHW4c to NCHW"),
    Case("R.layout_transform(x, index_map=lambda a, b: (b, a))", {"x": ((3, 5), F)}, ref=lambda x: x.T,
         name="layout_transform transpose"),
    Case("R.layout_transform(x, index_map=lambda n, c, h, w: (n, c // 16, h, w, c % 16))", x4(1, 24, 2, 2),
         error="does not divide axis 1", name="layout_transform factor does not divide"),
    Case("R.layout_transform(x, index_map=lambda n, c, h, w: (n, c // 4, h, w))", x4(1, 8, 2, 2),
         error="must appear once", name="layout_transform not bijective"),
    Case("R.nn.max_pool2d(x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1], layout=\"NCHW16c\")",
         {"x": ((1, 2, 9, 8, 16), F)}, ref=lambda x: blk(maxp(3, 2, 1)(unblk(x)), 16), name="max_pool2d NCHW16c"),
    Case("R.nn.avg_pool2d(x, pool_size=[2, 2], strides=[2, 2], ceil_mode=True, layout=\"NCHW8c\")",
         {"x": ((1, 1, 5, 5, 8), F)}, ref=lambda x: blk(avgp(2, 2, ceil=True)(unblk(x)), 8),
         name="avg_pool2d NCHW8c ceil"),
    Case("R.nn.conv2d(x, w, groups=4)", xw((1, 6, 8, 8), (4, 1, 3, 3)), error="groups=4 does not divide the 6",
         name="conv2d bad groups"),
    Case("R.nn.conv2d(x, w)", xw((1, 3, 8, 8), (4, 6, 3, 3)), error="data has 3 input channels",
         name="conv2d channel mismatch"),
    Case("R.nn.conv2d(x, w, padding=[1, 1])", xw((1, 3, 2, 2), (4, 3, 5, 5)), error="larger than the padded input",
         name="conv2d kernel too large"),
    Case("R.nn.conv2d(x, w)", xw((1, 3, 8), (4, 3, 3, 3)), error="data must be 4-D", name="conv2d bad rank"),
    Case("R.nn.conv2d(x, w, data_layout=\"NCHX\")", xw((1, 3, 8, 8), (4, 3, 3, 3)), error="data_layout",
         name="conv2d bad layout"),
    # --- max_pool2d / avg_pool2d
    Case("R.nn.max_pool2d(x, pool_size=[2, 2], strides=[2, 2])", x4(1, 3, 8, 8), ref=maxp(2), name="max_pool2d 2x2"),
    Case("R.nn.max_pool2d(x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1])", x4(2, 2, 7, 9),
         ref=maxp(3, 2, 1), name="max_pool2d pad prime"),
    Case("R.nn.max_pool2d(x, pool_size=[3, 3], strides=[1, 1], dilation=[2, 2])", x4(1, 2, 9, 9),
         ref=maxp(3, 1, 0, 2), name="max_pool2d dilation"),
    Case("R.nn.max_pool2d(x, pool_size=[3, 3], strides=[2, 2], ceil_mode=True)", x4(1, 2, 8, 8),
         ref=maxp(3, 2, 0, 1, True), name="max_pool2d ceil_mode"),
    Case("R.nn.max_pool2d(x, pool_size=[3, 3], strides=[3, 3], padding=[1, 1], ceil_mode=True)", x4(1, 2, 11, 10),
         ref=maxp(3, 3, 1, 1, True), name="max_pool2d ceil_mode pad"),
    Case("R.nn.max_pool2d(x, pool_size=[2, 2], strides=[2, 2], layout=\"NHWC\")", {"x": ((1, 6, 6, 3), F)},
         ref=nhwc(maxp(2)), name="max_pool2d NHWC"),
    Case("R.nn.max_pool2d(x, pool_size=[2, 2], strides=[2, 2])", {"x": (("n", 2, 6, 6), F)}, dims={"n": 2},
         ref=maxp(2), name="max_pool2d symbolic batch"),
    Case("R.nn.avg_pool2d(x, pool_size=[2, 2], strides=[2, 2])", x4(1, 3, 8, 8), ref=avgp(2), name="avg_pool2d 2x2"),
    Case("R.nn.avg_pool2d(x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1])", x4(1, 2, 7, 7),
         ref=avgp(3, 2, 1), name="avg_pool2d pad exclude"),
    Case("R.nn.avg_pool2d(x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1], count_include_pad=True)",
         x4(1, 2, 7, 7), ref=avgp(3, 2, 1, cip=True), name="avg_pool2d pad include"),
    Case("R.nn.avg_pool2d(x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1], ceil_mode=True)", x4(1, 2, 8, 8),
         ref=avgp(3, 2, 1, ceil=True), name="avg_pool2d ceil_mode"),
    Case("R.nn.avg_pool2d(x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1], ceil_mode=True, "
         "count_include_pad=True)", x4(1, 2, 8, 8), ref=avgp(3, 2, 1, ceil=True, cip=True),
         name="avg_pool2d ceil_mode include"),
    Case("R.nn.avg_pool2d(x, pool_size=[3, 3], strides=[1, 1], padding=[1, 1], layout=\"NHWC\")",
         {"x": ((2, 5, 5, 3), F)}, ref=nhwc(avgp(3, 1, 1)), name="avg_pool2d NHWC"),
    Case("R.nn.max_pool2d(x, pool_size=[5, 5])", x4(1, 2, 3, 3), error="larger than the padded input",
         name="max_pool2d window too large"),
    Case("R.nn.max_pool2d(x, pool_size=[2, 2], strides=[0, 1])", x4(1, 2, 4, 4), error="strides must be positive",
         name="max_pool2d bad strides"),
    # --- adaptive_avg_pool2d
    Case("R.nn.adaptive_avg_pool2d(x, [1, 1])", x4(2, 3, 7, 7),
         ref=lambda x: TF.adaptive_avg_pool2d(T(x), 1).numpy(), name="adaptive global"),
    Case("R.nn.adaptive_avg_pool2d(x, [2, 3])", x4(1, 2, 8, 9),
         ref=lambda x: TF.adaptive_avg_pool2d(T(x), (2, 3)).numpy(), name="adaptive even"),
    Case("R.nn.adaptive_avg_pool2d(x, [3, 2])", x4(1, 2, 7, 5),
         ref=lambda x: TF.adaptive_avg_pool2d(T(x), (3, 2)).numpy(), name="adaptive uneven"),
    Case("R.nn.adaptive_avg_pool2d(x)", x4(1, 2, 4, 4), ref=lambda x: x, name="adaptive identity"),
    Case("R.nn.adaptive_avg_pool2d(x, [2, 2], layout=\"NHWC\")", {"x": ((1, 5, 6, 3), F)},
         ref=nhwc(lambda x: TF.adaptive_avg_pool2d(T(x), 2).numpy()), name="adaptive NHWC uneven"),
    Case("R.nn.adaptive_avg_pool2d(x, [1, 1])", {"x": (("n", 3, 4, 4), F)}, dims={"n": 2},
         ref=lambda x: TF.adaptive_avg_pool2d(T(x), 1).numpy(), name="adaptive symbolic batch"),
    # --- conv2d_transpose (kernel IOHW)
    Case("R.nn.conv2d_transpose(x, w)", xw((1, 3, 5, 5), (3, 4, 3, 3)), ref=convt(), name="conv2d_transpose basic"),
    Case("R.nn.conv2d_transpose(x, w, strides=[2, 2], padding=[1, 1], output_padding=[1, 1])",
         xw((2, 2, 4, 5), (2, 3, 3, 3)), ref=convt(2, 1, 1), name="conv2d_transpose stride pad outpad"),
    Case("R.nn.conv2d_transpose(x, w, strides=[2, 3], padding=[0, 1])", xw((1, 2, 3, 4), (2, 2, 2, 3)),
         ref=convt((2, 3), (0, 1)), name="conv2d_transpose uneven strides"),
    Case("R.nn.conv2d_transpose(x, w, strides=[2, 2], groups=2)", xw((1, 4, 3, 3), (4, 3, 3, 3)),
         ref=convt(2, groups=2), name="conv2d_transpose groups"),
    Case("R.nn.conv2d_transpose(x, w, dilation=[2, 2])", xw((1, 2, 4, 4), (2, 2, 3, 3)),
         ref=convt(dilation=2), modes=("interp",), name="conv2d_transpose dilation (interp)"),
    Case("R.nn.conv2d_transpose(x, w, strides=[2, 2])", {"x": (("n", 2, 3, 3), F), "w": ((2, 3, 3, 3), F)},
         dims={"n": 2}, ref=convt(2), name="conv2d_transpose symbolic batch"),
    Case("R.nn.conv2d_transpose(x, w)", xw((1, 3, 5, 5), (4, 4, 3, 3)), error="data has 3 input channels",
         name="conv2d_transpose channel mismatch"),
    Case("R.nn.conv2d_transpose(x, w, strides=[2, 2], output_padding=[2, 2])", xw((1, 3, 5, 5), (3, 4, 3, 3)),
         error="output_padding", name="conv2d_transpose bad output_padding"),
    # --- image.resize2d
    Case("R.image.resize2d(x, (8, 10), method=\"nearest_neighbor\", coordinate_transformation_mode=\"asymmetric\", "
         "rounding_method=\"floor\")", x4(1, 2, 4, 5),
         ref=lambda x: TF.interpolate(T(x), size=(8, 10), mode="nearest").numpy(), name="resize nearest up"),
    Case("R.image.resize2d(x, (3, 4), method=\"nearest_neighbor\", coordinate_transformation_mode=\"asymmetric\", "
         "rounding_method=\"floor\")", x4(1, 2, 7, 9),
         ref=lambda x: TF.interpolate(T(x), size=(3, 4), mode="nearest").numpy(), name="resize nearest down"),
    Case("R.image.resize2d(x, (7, 9))", x4(2, 2, 4, 5),
         ref=lambda x: TF.interpolate(T(x), size=(7, 9), mode="bilinear", align_corners=False).numpy(),
         name="resize linear half_pixel"),
    Case("R.image.resize2d(x, (3, 5))", x4(1, 2, 8, 7),
         ref=lambda x: TF.interpolate(T(x), size=(3, 5), mode="bilinear", align_corners=False).numpy(),
         name="resize linear down"),
    Case("R.image.resize2d(x, (7, 6), coordinate_transformation_mode=\"align_corners\")", x4(1, 1, 4, 3),
         ref=lambda x: TF.interpolate(T(x), size=(7, 6), mode="bilinear", align_corners=True).numpy(),
         name="resize linear align_corners"),
    Case("R.image.resize2d(x, (6, 8), layout=\"NHWC\")", {"x": ((1, 3, 4, 2), F)},
         ref=nhwc(lambda x: TF.interpolate(T(x), size=(6, 8), mode="bilinear", align_corners=False).numpy()),
         name="resize NHWC"),
    Case("R.image.resize2d(x, (6, 6))", {"x": (("n", 2, 3, 3), F)}, dims={"n": 2},
         ref=lambda x: TF.interpolate(T(x), size=(6, 6), mode="bilinear", align_corners=False).numpy(),
         name="resize symbolic batch"),
    Case("R.image.resize2d(x, (6, 6), method=\"bicubic\")", x4(1, 1, 3, 3), error="unknown method",
         name="resize bad method"),
    Case("R.image.resize2d(x, (0, 4))", x4(1, 1, 3, 3), error="size must be positive", name="resize bad size"),
    # --- other float dtypes: the float32 templates retyped
    Case("R.nn.conv2d(x, w, padding=[1, 1])", {"x": ((1, 2, 5, 5), "float64"), "w": ((3, 2, 3, 3), "float64")},
         ref=conv(padding=1), name="conv2d float64"),
    Case("R.nn.avg_pool2d(x, pool_size=[3, 3], padding=[1, 1])", {"x": ((1, 2, 5, 5), "float64")},
         ref=avgp(3, 1, 1), name="avg_pool2d float64"),
    Case("R.nn.max_pool2d(x, pool_size=[2, 2], strides=[2, 2], padding=[1, 1])", {"x": ((1, 2, 5, 5), "float16")},
         ref=lambda x: maxp(2, 2, 1)(x.astype(np.float32)).astype(np.float16), name="max_pool2d float16"),
    Case("R.nn.conv2d(x, w, padding=[1, 1], out_dtype=\"int32\")", {"x": ((1, 2, 5, 5), "int8"), "w": ((3, 2, 3, 3), "int8")},
         ref=lambda x, w: conv(padding=1)(x.astype(np.float64), w.astype(np.float64)).astype(np.int32),
         out=((1, 3, 5, 5), "int32"), name="conv2d int8 out_dtype int32"),
    Case("R.nn.conv2d(x, w, out_dtype=\"float16\")", xw((1, 2, 5, 5), (2, 2, 3, 3)),
         ref=lambda x, w: conv()(x, w).astype(np.float16), out=((1, 2, 3, 3), "float16"), rtol=2e-2, atol=2e-2,
         name="conv2d out_dtype float16"),
    Case("R.nn.max_pool2d(x, pool_size=[2, 2], strides=[1, 1], padding=[1, 1])", {"x": ((1, 2, 4, 4), "int32")},
         ref=lambda x: maxp(2, 1, 1)(x.astype(np.float64)).astype(np.int32), name="max_pool2d int32"),
]

if __name__ == "__main__":
    run_cases(CASES)
