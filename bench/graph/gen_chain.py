"""gen_chain.py - writes a graph function of N bindings for the compile-time
benchmark (bench/graph/compile_bench.sh): a residual MLP-like chain of
matmul / add / relu / multiply / tanh bindings on (8, 64) tensors, with a
fresh weight every 10 layers so that legalization, dedup, fusion and codegen
all see realistic repetition.
usage: python3 gen_chain.py N > chain.tvs"""
import sys


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    nw = max(1, n // 50)
    params = ["x: R.Tensor((8, 64), \"float32\")"]
    params += ["w%d: R.Tensor((64, 64), \"float32\")" % i for i in range(nw)]
    params += ["b%d: R.Tensor((64,), \"float32\")" % i for i in range(nw)]
    out = ["from tvm.script import relax as R", "", "", "@R.function",
           "def main(%s):" % ", ".join(params), "    with R.dataflow():"]
    cur = "x"
    k = 0
    ops = ["matmul", "add", "relu", "multiply", "tanh"]
    while k < n:
        op = ops[k % len(ops)]
        w = (k // 50) % nw
        v = "lv%d" % k
        if op == "matmul":
            out.append("        %s = R.matmul(%s, w%d)" % (v, cur, w))
        elif op == "add":
            out.append("        %s = R.add(%s, b%d)" % (v, cur, w))
        elif op == "relu":
            out.append("        %s = R.nn.relu(%s)" % (v, cur))
        elif op == "multiply":
            out.append("        %s = R.multiply(%s, %s)" % (v, cur, "x"))
        else:
            out.append("        %s = R.tanh(%s)" % (v, cur))
        cur = v
        k += 1
    out += ["        R.output(%s)" % cur, "    return %s" % cur, ""]
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    main()
