"""export_models.py - the real networks of the ONNX tests and benchmark, exported
from PyTorch with fixed seeds (random weights, no downloads).

For each network NAME it writes into OUTDIR:
  NAME.onnx      the model (opset 17, batch 1)
  NAME_x.npy     an input
  NAME_ref.npy   PyTorch's output for that input
usage: python3 export_models.py OUTDIR [NAME ...]
  NAME: resnet18 mobilenet_v2 squeezenet1_1 transformer (default: all)"""
import os
import sys

import numpy as np
import torch


def make(name):
    import torchvision.models as tvm
    if name == "resnet18":
        return tvm.resnet18(weights=None), (1, 3, 224, 224)
    if name == "mobilenet_v2":
        return tvm.mobilenet_v2(weights=None), (1, 3, 224, 224)
    if name == "squeezenet1_1":
        return tvm.squeezenet1_1(weights=None), (1, 3, 224, 224)
    if name == "transformer":
        layer = torch.nn.TransformerEncoderLayer(d_model=256, nhead=4, dim_feedforward=1024,
                                                 dropout=0.0, batch_first=True)
        # enable_nested_tensor off: the exported graph is the plain math path
        return torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False), (1, 64, 256)
    raise SystemExit("export_models.py: unknown network '%s'" % name)


NAMES = ["resnet18", "mobilenet_v2", "squeezenet1_1", "transformer"]


def export(name, outdir):
    torch.manual_seed(0)
    model, shape = make(name)
    # batch-norm statistics and affine parameters away from their identity
    # initial values, so that folding them is exercised and outputs are O(1)
    g = torch.Generator().manual_seed(2)
    for mod in model.modules():
        if isinstance(mod, torch.nn.BatchNorm2d):
            c = mod.num_features
            mod.running_mean.copy_(0.1 * torch.randn(c, generator=g))
            mod.running_var.copy_(0.5 + torch.rand(c, generator=g))
            mod.weight.data.copy_(0.5 + torch.rand(c, generator=g))
            mod.bias.data.copy_(0.1 * torch.randn(c, generator=g))
    model.eval()
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        ref = model(x)
    # outside no_grad: the encoder's fused fast path (which has no ONNX export)
    # is only taken when no gradient is needed
    torch.onnx.export(model, (x,), os.path.join(outdir, name + ".onnx"), opset_version=17,
                      input_names=["x"], output_names=["y"])
    np.save(os.path.join(outdir, name + "_x.npy"), x.numpy())
    np.save(os.path.join(outdir, name + "_ref.npy"), ref.numpy())


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    for name in sys.argv[2:] or NAMES:
        export(name, outdir)


if __name__ == "__main__":
    main()
