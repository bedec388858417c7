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
    Case("R.nn.conv2d(x, w, groups=4)", xw((1, 6, 8, 8), (4, 1, 3, 3)), error="groups=4 does not divide the 6",
         name="conv2d bad groups"),
    Case("R.nn.conv2d(x, w)", xw((1, 3, 8, 8), (4, 6, 3, 3)), error="data has 3 input channels",
         name="conv2d channel mismatch"),
    Case("R.nn.conv2d(x, w, padding=[1, 1])", xw((1, 3, 2, 2), (4, 3, 5, 5)), error="larger than the padded input",
         name="conv2d kernel too large"),
    Case("R.nn.conv2d(x, w)", xw((1, 3, 8), (4, 3, 3, 3)), error="data must be 4-D", name="conv2d bad rank"),
    Case("R.nn.conv2d(x, w, data_layout=\"NCHX\")", xw((1, 3, 8, 8), (4, 3, 3, 3)), error="data_layout",
         name="conv2d bad layout"),
]

if __name__ == "__main__":
    run_cases(CASES)
