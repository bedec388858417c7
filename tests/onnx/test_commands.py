"""test_commands.py - the ONNX commands and the importer's bad-input errors.

Builds small models with onnx.helper (no test data needed) and checks:
  * `tvs import` writes readable .tvs + .npz that run to the same result as
    `tvs run m.onnx`, with one binding per node named after it (+ a comment);
  * `tvs show m.onnx --stage ...`, `tvsc m.onnx`, REPL `:load m.onnx`;
  * external data beside the model loads;
  * bad input -- truncated and corrupted files, a cycle, a dangling input, a
    missing external-data file, an unsupported op / attribute, an input .npy
    of the wrong shape -- is a clear error and exit status 1, never a crash,
    and leaves no output file behind.
usage: python3 test_commands.py --tvs T --tvsc C --work DIR"""
import argparse
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

FAILS = []


def expect(cond, what):
    print("%s %s" % ("ok  " if cond else "FAIL", what))
    if not cond:
        FAILS.append(what)


def tvs(a, *args, stdin=None):
    return subprocess.run([a.tvs] + list(args), capture_output=True, text=True, input=stdin)


def small_cnn(path, external=None):
    """Conv + bias + Relu + MaxPool + Flatten + Gemm, with named nodes."""
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "conv.weight")
    b = numpy_helper.from_array(rng.standard_normal((4,)).astype(np.float32), "conv.bias")
    fw = numpy_helper.from_array(rng.standard_normal((5, 64)).astype(np.float32), "fc.weight")
    fb = numpy_helper.from_array(rng.standard_normal((5,)).astype(np.float32), "fc.bias")
    nodes = [
        helper.make_node("Conv", ["x", "conv.weight", "conv.bias"], ["c"], name="/conv/Conv", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"], name="/relu/Relu"),
        helper.make_node("MaxPool", ["r"], ["p"], name="/pool/MaxPool", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["p"], ["f"], name="/flatten/Flatten"),
        helper.make_node("Gemm", ["f", "fc.weight", "fc.bias"], ["y"], name="/fc/Gemm", transB=1),
    ]
    g = helper.make_graph(nodes, "cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5])], [w, b, fw, fb])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    if external:
        onnx.save_model(m, path, save_as_external_data=True, all_tensors_to_one_file=True, location=external,
                        size_threshold=0)
    else:
        onnx.save(m, path)
    return m


def graph_model(path, nodes, inputs, outputs, opset=13, inits=()):
    g = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)]), path)


def bad(a, what, path, needle, *extra):
    r = tvs(a, "run", path, *extra)
    msg = r.stderr.strip().replace("\n", " | ")
    expect(r.returncode == 1 and needle in r.stderr, "%s: exit %d, %s" % (what, r.returncode, msg[:200]))


def commands(a, w):
    model = os.path.join(w, "cnn.onnx")
    small_cnn(model)
    x = os.path.join(w, "x.npy")
    np.save(x, np.random.default_rng(1).standard_normal((1, 3, 8, 8)).astype(np.float32))
    r = tvs(a, "run", model, "--input", "x=" + x, "--output", os.path.join(w, "o1"))
    expect(r.returncode == 0, "tvs run cnn.onnx")
    r = tvs(a, "import", model, "-o", os.path.join(w, "cnn.tvs"))
    text = open(os.path.join(w, "cnn.tvs")).read() if r.returncode == 0 else ""
    expect(r.returncode == 0 and os.path.exists(os.path.join(w, "cnn.npz")), "tvs import writes cnn.tvs + cnn.npz")
    expect("relu_Relu = R.nn.relu(conv_Conv)  # /relu/Relu" in text, "one binding per node, named after it")
    r = tvs(a, "run", os.path.join(w, "cnn.tvs"), "--params", os.path.join(w, "cnn.npz"), "--input", "x=" + x,
            "--output", os.path.join(w, "o2"))
    same = r.returncode == 0 and np.array_equal(np.load(os.path.join(w, "o1", "output.npy")),
                                                np.load(os.path.join(w, "o2", "output.npy")))
    expect(same, "the imported .tvs + .npz give tvs run m.onnx's result")
    r = tvs(a, "show", model, "--stage", "fuse-tir")
    expect(r.returncode == 0 and "fused_" in r.stdout, "tvs show cnn.onnx --stage fuse-tir")
    so = os.path.join(w, "cnn.so")
    r = subprocess.run([a.tvsc, model, "-o", so], capture_output=True, text=True)
    expect(r.returncode == 0 and os.path.exists(so), "tvsc cnn.onnx -o cnn.so")
    r = tvs(a, "repl", "--script", "/dev/stdin", stdin=":load %s\n:run --input x=%s\n" % (model, x))
    expect(r.returncode == 0, "REPL :load cnn.onnx then :run (%s)" % r.stderr.strip()[-200:])
    ext = os.path.join(w, "ext")
    os.makedirs(ext, exist_ok=True)
    small_cnn(os.path.join(ext, "cnn.onnx"), external="cnn.weights")
    r = tvs(a, "run", os.path.join(ext, "cnn.onnx"), "--input", "x=" + x, "--output", os.path.join(w, "o3"))
    expect(r.returncode == 0 and np.array_equal(np.load(os.path.join(w, "o1", "output.npy")),
                                                np.load(os.path.join(w, "o3", "output.npy"))),
           "a model with external data gives the same result")
    dyn = os.path.join(w, "dyn.onnx")  # a named batch dimension becomes a symbolic size
    m = small_cnn(dyn)
    for vi in (m.graph.input[0], m.graph.output[0]):
        vi.type.tensor_type.shape.dim[0].dim_param = "N"
    onnx.save(m, dyn)
    xs = np.random.default_rng(3).standard_normal((2, 3, 8, 8)).astype(np.float32)
    for i, part in enumerate([xs, xs[:1], xs[1:]]):
        np.save(os.path.join(w, "xs%d.npy" % i), part)
    outs = []
    for i, mdl in enumerate([dyn, model, model]):
        r = tvs(a, "run", mdl, "--input", "x=%s" % os.path.join(w, "xs%d.npy" % i), "--output", os.path.join(w, "d%d" % i))
        outs.append(np.load(os.path.join(w, "d%d" % i, "output.npy")) if r.returncode == 0 else None)
    r = tvs(a, "show", dyn, "--stage", "graph")
    expect(all(o is not None for o in outs) and '("N", 3, 8, 8)' in r.stdout and
           np.array_equal(outs[0], np.concatenate(outs[1:])), "a dim_param batch: symbolic N, batch 2 = two batch-1 runs")
    os.remove(os.path.join(ext, "cnn.weights"))
    bad(a, "missing external data", os.path.join(ext, "cnn.onnx"), "cannot open external data")
    return model, x


def shape_arithmetic(a, w):
    """Slice ends computed from constants by Mod (fmod 0 and 1) and Reshape, as
    PyTorch 2.11's exporter writes a Transformer's attention: folded at import."""
    c = lambda name, v: helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.array(v, np.int64)))
    nodes = [c("a", [-7]), c("b", [4]), c("one", [1]), c("ax", [1]), c("st", [0]),
             helper.make_node("Mod", ["a", "b"], ["m0"]),             # floor mod: 1
             helper.make_node("Mod", ["a", "b"], ["m1"], fmod=1),     # C fmod: -3
             helper.make_node("Abs", ["m1"], ["m2"]),                  # 3
             helper.make_node("Add", ["m0", "m2"], ["e0"]),            # 4
             helper.make_node("Reshape", ["e0", "one"], ["ends"]),
             helper.make_node("Slice", ["x", "st", "ends", "ax"], ["y"])]
    p = os.path.join(w, "modslice.onnx")
    graph_model(p, nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 6])],
                [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])])
    x = os.path.join(w, "ms_x.npy")
    xv = np.arange(12, dtype=np.float32).reshape(2, 6)
    np.save(x, xv)
    r = tvs(a, "run", p, "--input", "x=" + x, "--output", os.path.join(w, "ms"))
    ok = r.returncode == 0 and np.array_equal(np.load(os.path.join(w, "ms", "output.npy")), xv[:, :4])
    expect(ok, "Slice ends from Mod/Reshape of constants are folded (%s)" % r.stderr.strip()[-200:])


def bad_inputs(a, w, model, x):
    data = open(model, "rb").read()
    p = os.path.join(w, "truncated.onnx")
    open(p, "wb").write(data[:len(data) // 2])
    bad(a, "truncated file", p, "truncated or corrupt")
    p = os.path.join(w, "corrupt.onnx")
    open(p, "wb").write(b"\xff\xff\xff\xff" + data[4:])
    bad(a, "corrupted file", p, "truncated or corrupt")
    p = os.path.join(w, "empty.onnx")
    open(p, "wb").write(b"")
    bad(a, "empty file", p, "no graph")
    vi = helper.make_tensor_value_info
    p = os.path.join(w, "cycle.onnx")
    graph_model(p, [helper.make_node("Add", ["x", "b"], ["a"], name="n1"), helper.make_node("Relu", ["a"], ["b"], name="n2")],
                [vi("x", TensorProto.FLOAT, [2])], [vi("b", TensorProto.FLOAT, [2])])
    bad(a, "a cycle", p, "cycle")
    p = os.path.join(w, "dangling.onnx")
    graph_model(p, [helper.make_node("Add", ["x", "nowhere"], ["y"], name="n1")],
                [vi("x", TensorProto.FLOAT, [2])], [vi("y", TensorProto.FLOAT, [2])])
    bad(a, "a dangling input", p, "input 'nowhere' is not defined")
    p = os.path.join(w, "unsupported_op.onnx")
    graph_model(p, [helper.make_node("Det", ["x"], ["y"], name="det")],
                [vi("x", TensorProto.FLOAT, [3, 3])], [vi("y", TensorProto.FLOAT, [])])
    bad(a, "an unsupported op", p, "node 'det' (Det, opset 13): op type 'Det' is not supported")
    p = os.path.join(w, "unsupported_attr.onnx")
    graph_model(p, [helper.make_node("MaxPool", ["x"], ["y"], name="mp", kernel_shape=[2, 2], storage_order=1)],
                [vi("x", TensorProto.FLOAT, [1, 1, 4, 4])], [vi("y", TensorProto.FLOAT, [1, 1, 3, 3])])
    bad(a, "an unsupported attribute", p, "node 'mp' (MaxPool, opset 13): attribute 'storage_order' = 1 is not supported")
    wrong = os.path.join(w, "wrong.npy")
    np.save(wrong, np.zeros((1, 3, 9, 9), np.float32))
    bad(a, "an input of the wrong shape", model, "shape", "--input", "x=" + wrong)
    out = os.path.join(w, "never.tvs")
    r = tvs(a, "import", os.path.join(w, "truncated.onnx"), "-o", out)
    expect(r.returncode == 1 and not os.path.exists(out) and not os.path.exists(out[:-4] + ".npz"),
           "a failed import leaves no output")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tvs", required=True)
    ap.add_argument("--tvsc", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    model, x = commands(a, a.work)
    shape_arithmetic(a, a.work)
    bad_inputs(a, a.work, model, x)
    print("%d checks failed" % len(FAILS) if FAILS else "all checks passed")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
