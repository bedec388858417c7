#!/usr/bin/env python3
"""bad_input.py - truncated and garbage inputs must give a clean error exit.

Feeds `tvs check` every corpus program truncated at several points, with
random byte flips, and pure garbage; each run must exit 0 or 1 (never a
signal, a sanitizer report or an internal error), and an exit 1 must come
with a `file:line:col: error:` diagnostic."""
import glob
import os
import random
import re
import subprocess
import sys

tvs, work, src = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(work, exist_ok=True)
rng = random.Random(1234)
programs = sorted(glob.glob(os.path.join(src, "tests", "corpus", "*.tvs")))
inputs = []
for p in programs:
    data = open(p, "rb").read()
    for cut in sorted(set(rng.randrange(1, len(data)) for _ in range(6))):
        inputs.append(("trunc", data[:cut]))
    flipped = bytearray(data)
    for _ in range(4):
        flipped[rng.randrange(len(flipped))] = rng.randrange(256)
    inputs.append(("flip", bytes(flipped)))
for n in (0, 1, 7, 64, 4096):
    inputs.append(("garbage", bytes(rng.randrange(256) for _ in range(n))))
inputs.append(("nul", b"@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n    A[0] = \x00\n"))
inputs.append(("deep", b"x = " + b"[" * 5000 + b"\n"))
inputs.append(("indent", b"".join(b" " * i + b"if x:\n" for i in range(0, 4000, 4))))

diag_re = re.compile(r"^[^:\n]+:\d+:\d+: error: ", re.M)
bad = 0
for i, (kind, data) in enumerate(inputs):
    path = os.path.join(work, f"in{i}.tvs")
    with open(path, "wb") as f:
        f.write(data)
    r = subprocess.run([tvs, "check", path], capture_output=True, timeout=60)
    err = r.stderr.decode("utf-8", "replace")
    ok = r.returncode in (0, 1)
    ok = ok and "Sanitizer" not in err and "runtime error" not in err and "internal compiler error" not in err
    if r.returncode == 1:
        ok = ok and bool(diag_re.search(err))
    if not ok:
        bad += 1
        print(f"FAIL ({kind}) {path}: exit {r.returncode}\n{err[-2000:]}")
print(f"{len(inputs) - bad} passed, {bad} failed")
sys.exit(1 if bad else 0)
