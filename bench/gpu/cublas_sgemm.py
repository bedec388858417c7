"""cuBLAS's sgemm through PyTorch (TF32 off: true fp32 FMAs), the reference
for bench/gpu/sgemm.tvs.  Also checks TVS's product C.npy against A @ B.
usage: cublas_sgemm.py N REPS [DIR with A.npy B.npy C.npy]"""
import sys

import numpy as np
import torch

n, reps = int(sys.argv[1]), int(sys.argv[2])
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
dev = torch.device("cuda")
if len(sys.argv) > 3:
    d = sys.argv[3]
    a, b, c = (np.load(f"{d}/{x}.npy") for x in "ABC")
    ref = (torch.from_numpy(a).double().to(dev) @ torch.from_numpy(b).double().to(dev)).cpu().numpy()
    err = np.abs(c - ref).max() / max(1e-30, np.abs(ref).max())
    print(f"tvs sgemm {n}^3 vs float64 product: max relative error {err:.3g}")
    assert err < 1e-4, err
a = torch.randn(n, n, device=dev)
b = torch.randn(n, n, device=dev)
for _ in range(3):
    a @ b
torch.cuda.synchronize()
times = []
for _ in range(reps):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    a @ b
    e.record()
    torch.cuda.synchronize()
    times.append(s.elapsed_time(e))
ms = float(np.median(times))
print(f"cuBLAS sgemm {n}^3 on {torch.cuda.get_device_name()}: median {ms:.4f} ms over {reps} runs, "
      f"{2 * n ** 3 / (ms * 1e6):.2f} GFLOP/s")
