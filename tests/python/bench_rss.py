#!/usr/bin/env python3
"""bench_rss.py [CYCLES] - the issue's leak check at full size: CYCLES (10,000)
build + call cycles of a small kernel from Python, printing the process's RSS
every tenth of the way; the RSS must stay flat after the warm-up.  Not a ctest
(minutes); tests/python/test_overhead.py runs a short version of it."""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))

import numpy as np  # noqa: E402

import tvs  # noqa: E402

TEXT = """@T.prim_func
def add(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("C"):
            vi = T.axis.spatial(8, i)
            C[vi] = A[vi] + B[vi]
"""


def rss_kb():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


def main():
    cycles = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    a, b, c = (np.ones(8, np.float32) for _ in range(3))
    t0 = time.time()
    marks = []
    for n in range(1, cycles + 1):
        mod = tvs.IRModule.from_text(TEXT)
        sch = tvs.tir.Schedule(mod)
        sch.vectorize(sch.get_loops(sch.get_block("C"))[0])
        tvs.build(sch.mod)["add"](a, b, c)
        if n % max(cycles // 10, 1) == 0:
            marks.append(rss_kb())
            print(f"{n:6d} cycles  RSS {marks[-1] / 1024:.1f} MiB  ({time.time() - t0:.0f} s)", flush=True)
    assert c[0] == 2
    growth = marks[-1] - marks[0]
    print(f"RSS growth from the first tenth to the end: {growth} KiB over {cycles - cycles // 10} cycles")
    return 0 if growth < 16 * 1024 else 1


if __name__ == "__main__":
    sys.exit(main())
