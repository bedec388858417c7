"""make_weights.py - seeded weights and reference outputs for the example models.

For each model (mlp, cnn, transformer) it writes, into the output directory:
  NAME.npz        the weights, one array per graph-function parameter
                  (tvs run ... --params NAME.npz; tvsc ... --params NAME.npz)
  NAME_x.npy      an input
  NAME_ref.npy    PyTorch's output for that input (the same network in torch)
usage: python3 make_weights.py [OUTDIR]   (default: the current directory)"""
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F


def mlp(rng):
    w = {"w0": rng.standard_normal((784, 128)) * 0.05, "b0": rng.standard_normal((128,)) * 0.1,
         "w1": rng.standard_normal((128, 10)) * 0.1, "b1": rng.standard_normal((10,)) * 0.1}
    x = rng.standard_normal((1, 784))
    t = {k: torch.tensor(v, dtype=torch.float32) for k, v in w.items()}
    xt = torch.tensor(x, dtype=torch.float32)
    ref = torch.relu(xt @ t["w0"] + t["b0"]) @ t["w1"] + t["b1"]
    return w, x, ref


def cnn(rng):
    w = {"conv1_w": rng.standard_normal((8, 1, 3, 3)) * 0.3, "conv1_b": rng.standard_normal((1, 8, 1, 1)) * 0.1,
         "conv2_w": rng.standard_normal((16, 8, 3, 3)) * 0.1, "conv2_b": rng.standard_normal((1, 16, 1, 1)) * 0.1,
         "fc_w": rng.standard_normal((10, 16)) * 0.2, "fc_b": rng.standard_normal((10,)) * 0.1}
    x = rng.standard_normal((1, 1, 28, 28))
    t = {k: torch.tensor(v, dtype=torch.float32) for k, v in w.items()}
    h = torch.tensor(x, dtype=torch.float32)
    h = F.max_pool2d(torch.relu(F.conv2d(h, t["conv1_w"], padding=1) + t["conv1_b"]), 2)
    h = F.max_pool2d(torch.relu(F.conv2d(h, t["conv2_w"], padding=1) + t["conv2_b"]), 2)
    h = F.adaptive_avg_pool2d(h, 1).reshape(1, 16)
    return w, x, F.linear(h, t["fc_w"], t["fc_b"])


def transformer(rng):
    d, ff = 64, 256
    w = {"ln1_g": 1 + 0.1 * rng.standard_normal((d,)), "ln1_b": 0.1 * rng.standard_normal((d,))}
    for n in ("q", "k", "v", "o"):
        w["w" + n] = rng.standard_normal((d, d)) / np.sqrt(d)
        w["b" + n] = 0.1 * rng.standard_normal((d,))
    w.update({"ln2_g": 1 + 0.1 * rng.standard_normal((d,)), "ln2_b": 0.1 * rng.standard_normal((d,)),
              "w1": rng.standard_normal((ff, d)) / np.sqrt(d), "b1": 0.1 * rng.standard_normal((ff,)),
              "w2": rng.standard_normal((d, ff)) / np.sqrt(ff), "b2": 0.1 * rng.standard_normal((d,))})
    # the .tvs file orders the parameters; keep the npz in that order too
    order = ["ln1_g", "ln1_b", "wq", "bq", "wk", "bk", "wv", "bv", "wo", "bo", "ln2_g", "ln2_b",
             "w1", "b1", "w2", "b2"]
    w = {k: w[k] for k in order}
    x = rng.standard_normal((16, d))
    t = {k: torch.tensor(v, dtype=torch.float32) for k, v in w.items()}
    xt = torch.tensor(x, dtype=torch.float32)
    ln1 = F.layer_norm(xt, (d,), t["ln1_g"], t["ln1_b"], eps=1e-5)
    heads = lambda m: m.reshape(16, 4, 16).permute(1, 0, 2)  # noqa: E731
    q, k, v = (heads(F.linear(ln1, t["w" + n], t["b" + n])) for n in "qkv")
    p = torch.softmax((q @ k.transpose(1, 2)) * 0.25, dim=-1)
    o = (p @ v).permute(1, 0, 2).reshape(16, d)
    h = xt + F.linear(o, t["wo"], t["bo"])
    ln2 = F.layer_norm(h, (d,), t["ln2_g"], t["ln2_b"], eps=1e-5)
    out = h + F.linear(F.gelu(F.linear(ln2, t["w1"], t["b1"])), t["w2"], t["b2"])
    return w, x, out


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(outdir, exist_ok=True)
    for seed, (name, fn) in enumerate((("mlp", mlp), ("cnn", cnn), ("transformer", transformer))):
        w, x, ref = fn(np.random.default_rng(seed))
        np.savez(os.path.join(outdir, name + ".npz"), **{k: v.astype(np.float32) for k, v in w.items()})
        np.save(os.path.join(outdir, name + "_x.npy"), x.astype(np.float32))
        np.save(os.path.join(outdir, name + "_ref.npy"), ref.detach().numpy().astype(np.float32))
        print("%s: %d weights (%d floats) -> %s.npz" % (name, len(w), sum(v.size for v in w.values()), name))


if __name__ == "__main__":
    main()
