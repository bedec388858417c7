"""PyTorch's time for the networks of tests/onnx/export_models.py on the GPU
(eager, float32, TF32 off, batch 1): the reference for
bench/gpu/run_gpu_models.sh.  usage: torch_models.py [REPS]"""
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tests", "onnx"))
import export_models  # noqa: E402  (the same models and shapes)

reps = int(sys.argv[1]) if len(sys.argv) > 1 else 20
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
dev = torch.device("cuda")
for name in export_models.NAMES:
    model, shape = export_models.make(name)
    model = model.eval().to(dev)
    x = torch.randn(*shape, device=dev)
    with torch.no_grad():
        for _ in range(5):
            model(x)
        torch.cuda.synchronize()
        times = []
        for _ in range(reps):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            model(x)
            e.record()
            torch.cuda.synchronize()
            times.append(s.elapsed_time(e))
    print(f"{name}: PyTorch {torch.__version__} eager on {torch.cuda.get_device_name()}: "
          f"median {float(np.median(times)):.3f} ms over {reps} runs")
