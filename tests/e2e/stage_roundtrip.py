"""Every lowering stage of every corpus and example prim_func program prints
as .tvs text that `tvs run --target interp` runs (same --seed) with the
original program's results.  (Structural equality of the reparsed module
with the in-memory one is tests/unit/test_stage_roundtrip.c's check.)

usage: stage_roundtrip.py TVS WORKDIR [NAME ...]   (env: TVS_SOURCE_DIR)
Prints one FAIL line per failing (program, stage) pair and a summary; exit 1
on any failure.
"""
import glob
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

TVS, WORK = sys.argv[1], os.path.abspath(sys.argv[2])
SRC = os.environ.get("TVS_SOURCE_DIR", ".")
ONLY = set(sys.argv[3:])


def sh(*args):
    r = subprocess.run(args, capture_output=True, text=True, timeout=300)
    return r.returncode, r.stdout, r.stderr


def stages():
    rc, out, _ = sh(TVS, "show", "--list-stages")
    names = [l.split()[0] for l in out.splitlines() if l.strip()]
    lo = names.index("canonicalize-loop")
    hi = names.index("make-packed-api")
    return names[lo:hi + 1]


def programs():
    progs = []
    for f in sorted(glob.glob(os.path.join(SRC, "tests/corpus/*.tvs"))):
        name = os.path.basename(f)[:-4]
        func = None
        py = f[:-4] + ".py"
        if os.path.exists(py):
            for line in open(py):
                if line.startswith("FUNC"):
                    func = line.split("=", 1)[1].strip().strip("\"'")
        progs.append((name, f, func))
    for f in sorted(glob.glob(os.path.join(SRC, "examples/*.tvs"))):
        progs.append(("examples_" + os.path.basename(f)[:-4], f, None))
    return [p for p in progs if not ONLY or p[0] in ONLY]


def run(path, func, outdir):
    args = [TVS, "run", path, "--target", "interp", "--seed", "0", "--output", outdir]
    if func:
        args += ["--func", func]
    return sh(*args)


def by_param(d):
    """Output files keyed by parameter name; the printer may rename a param
    that would shadow a namespace (R -> R_1), so a _N suffix is dropped."""
    return {re.sub(r"_\d+$", "", f[:-4]): os.path.join(d, f) for f in os.listdir(d)}


def same_outputs(a, b):
    ma, mb = by_param(a), by_param(b)
    if sorted(ma) != sorted(mb) or not ma:
        return "different output files: %s vs %s" % (sorted(os.listdir(a)), sorted(os.listdir(b)))
    for f in sorted(ma):
        x, y = np.load(ma[f]), np.load(mb[f])
        if x.shape != y.shape or x.dtype != y.dtype:
            return "%s: %s %s vs %s %s" % (f, x.shape, x.dtype, y.shape, y.dtype)
        if x.dtype.kind == "f":
            ok = np.allclose(x, y, rtol=1e-5, atol=1e-6, equal_nan=True)
        else:
            ok = np.array_equal(x, y)
        if not ok:
            return "%s: values differ (max |d| %s)" % (f, np.max(np.abs(x.astype(np.float64) - y)))
    return None


def dump_stages(path):
    """{stage: printed module} from one `tvs show --dump-after all`."""
    rc, out, err = sh(TVS, "show", path, "--dump-after", "all")
    if rc != 0:
        return None, err
    stages, cur, lines = {}, None, []
    for line in out.splitlines(keepends=True):
        m = re.match(r"# after ([a-z0-9-]+)( \(unchanged\))?$", line.rstrip("\n"))
        if m:
            if cur:
                stages[cur] = "".join(lines)
            cur, lines = m.group(1), []
        else:
            lines.append(line)
    if cur:
        stages[cur] = "".join(lines)
    return stages, None


def check(prog, stage_list):
    name, path, func = prog
    d = os.path.join(WORK, name)
    os.makedirs(d, exist_ok=True)
    ref = os.path.join(d, "ref")
    t0 = time.time()
    rc, _, err = run(path, func, ref)
    can_run = rc == 0 and os.path.isdir(ref) and os.listdir(ref)
    # a program the interpreter needs seconds for (examples/conv2d) runs
    # reparsed at the last stage only, which has every lowering in it
    heavy = time.time() - t0 > 2.0 or QUICK
    dumped, err = dump_stages(path)
    if dumped is None:
        return [(name, st, "show --dump-after all failed: " + err.strip()[:300]) for st in stage_list]
    results, checked = [], {}
    for st in stage_list:
        out = dumped.get(st)
        if out is None:
            results.append((name, st, "stage missing from --dump-after all"))
            continue
        if "@T.prim_func" not in out:
            continue  # a graph-only program: no prim_funcs to lower
        if out in checked:  # the pass changed nothing: same text, same verdict
            results.append((name, st, checked[out]))
            continue
        printed = os.path.join(d, st + ".tvs")
        open(printed, "w").write(out)
        why = None
        # a graph program's stages print its prim_funcs only: nothing to run
        graph = "@R.function" in open(path).read() and "@R.function" not in out
        if can_run and not graph and (not heavy or st == stage_list[-1]):
            od = os.path.join(d, "out-" + st)
            rc, _, err = run(printed, func, od)
            if rc != 0:
                why = "run of the printed stage failed: " + err.strip()[:300]
            else:
                diff = same_outputs(ref, od)
                if diff:
                    why = "results differ: " + diff
        else:
            rc, _, err = sh(TVS, "show", printed, "--stage", "tir")
            if rc != 0:
                why = "reparse failed: " + err.strip()[:300]
        checked[out] = why
        results.append((name, st, why))
    return results


# Under the sanitizers (TVS_TEST_QUICK=1, scripts/test.sh) a fixed third of
# the programs is checked, each run reparsed at the last stage only; every
# stage of every program still round-trips in unit/test_stage_roundtrip.
QUICK = os.environ.get("TVS_TEST_QUICK") == "1"


def main():
    st = stages()
    progs = programs()
    if QUICK:
        progs = progs[::3]
    jobs = min(8, os.cpu_count() or 2)
    with ThreadPoolExecutor(jobs) as ex:
        allres = [r for rs in ex.map(lambda p: check(p, st), progs) for r in rs]
    fails = [r for r in allres if r[2]]
    for name, s, why in fails:
        print("FAIL: %s @ %s: %s" % (name, s, why))
    print("%d of %d (program, stage) pairs round-trip (%d programs, %d stages)"
          % (len(allres) - len(fails), len(allres), len(progs), len(st)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
