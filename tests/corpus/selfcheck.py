#!/usr/bin/python3
"""Self-test of the corpus harness; needs only numpy (no compiler).

usage: selfcheck.py [NAME ...]          (default: every NAME.tvs in this folder)

For every program: NAME.py exists and defines FUNC / INPUTS / reference,
run_reference.py succeeds and prints one well-formed `key=value` line per
input, the reference outputs pass compare.py against themselves, and a
perturbed copy of them fails it.  Ends with "N passed, N failed".
"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def run(args):
    return subprocess.run([sys.executable] + args, capture_output=True, text=True)


def perturb(arr):
    flat = arr.reshape(-1).copy()
    if arr.dtype == np.bool_:
        flat[0] = not flat[0]
    elif arr.dtype.kind in "iu":
        flat[0] = flat[0] ^ 1
    else:
        flat[0] = flat[0] + (abs(float(flat[0])) + 1.0)
    return flat.reshape(arr.shape)


def check(name):
    if not os.path.isfile(os.path.join(HERE, name + ".py")):
        return "missing %s.py" % name
    work = tempfile.mkdtemp(prefix="tvs_corpus_")
    try:
        refdir = os.path.join(work, "ref")
        res = run([os.path.join(HERE, "run_reference.py"), name, refdir])
        if res.returncode != 0:
            return "run_reference failed: " + res.stderr.strip()[-500:]
        for line in res.stdout.splitlines():
            key, sep, value = line.partition("=")
            if not sep or not key.isidentifier() or not value:
                return "bad --input line %r" % line
            if value.endswith(".npy") and not os.path.isfile(value):
                return "input file %s missing" % value
        refs = sorted(glob.glob(os.path.join(refdir, "ref_*.npy")))
        if not refs:
            return "no ref_*.npy written"
        good = os.path.join(work, "good")
        bad = os.path.join(work, "bad")
        os.makedirs(good)
        os.makedirs(bad)
        for i, path in enumerate(refs):
            key = os.path.basename(path)[4:]
            arr = np.load(path)
            np.save(os.path.join(good, key), arr)
            np.save(os.path.join(bad, key), perturb(arr) if i == 0 and arr.size else arr)
        res = run([os.path.join(HERE, "compare.py"), refdir, good, name])
        if res.returncode != 0:
            return "compare.py rejects the reference itself: " + res.stdout.strip()
        res = run([os.path.join(HERE, "compare.py"), refdir, bad, name])
        if res.returncode != 1:
            return "compare.py accepted a perturbed output"
        return None
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv):
    names = [os.path.basename(a).rsplit(".", 1)[0] if a.endswith((".py", ".tvs")) else a
             for a in argv[1:]]
    if not names:
        names = sorted(os.path.basename(p)[:-4] for p in glob.glob(os.path.join(HERE, "*.tvs")))
    failed = 0
    for name in names:
        err = check(name)
        print("%s %s%s" % ("PASS" if err is None else "FAIL", name, "" if err is None else ": " + err))
        failed += err is not None
    print("%d passed, %d failed" % (len(names) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
