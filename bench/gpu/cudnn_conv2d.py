"""cuDNN's time for one conv2d + bias + relu layer, NCHW float32, batch 1,
TF32 off (PyTorch eager, CUDA events, median): the reference for
bench/gpu/run_conv2d_bench.sh.
usage: cudnn_conv2d.py C H F K STRIDE PAD [REPS]"""
import sys

import numpy as np
import torch

C, H, F, K, S, P = (int(a) for a in sys.argv[1:7])
reps = int(sys.argv[7]) if len(sys.argv) > 7 else 50
torch.backends.cudnn.allow_tf32 = False
torch.backends.cudnn.benchmark = True
dev = torch.device("cuda")
x = torch.randn(1, C, H, H, device=dev)
w = torch.randn(F, C, K, K, device=dev)
b = torch.randn(F, device=dev)


def layer():
    return torch.relu(torch.nn.functional.conv2d(x, w, b, stride=S, padding=P))


with torch.no_grad():
    for _ in range(10):
        y = layer()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        layer()
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e))
ms = float(np.median(times))
flop = 2.0 * F * y.shape[2] * y.shape[3] * C * K * K
print(f"cuDNN (PyTorch {torch.__version__}, {torch.cuda.get_device_name()}): median {ms:.4f} ms "
      f"over {reps} runs, {flop / ms / 1e6:.1f} GFLOP/s (conv2d + bias + relu, two kernels or one)")
