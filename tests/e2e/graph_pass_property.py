#!/usr/bin/env python3
"""graph_pass_property.py - every graph stage keeps every graph program's results.

For each graph program (examples/, tests/ and the small networks with
constants in tests/e2e/graph_nets/) and each of its graph functions that the
interpreter can run: run it with `tvs run` on seeded random inputs, then print
the module at every graph stage (`tvs show --stage S`, the stages between
`graph` and `tir` in `tvs show --list-stages`), save that text as a .tvs file,
run it on the same inputs, and compare the outputs with np.allclose.  A stage
whose printed IR does not parse, or that fails to run, fails the test too, and
so does a pass that reports "(unchanged)" under --dump-after all while --diff
shows it changed the module.

usage: graph_pass_property.py --tvs TVS --src SOURCE_DIR --work DIR
"""
import argparse
import os
import re
import subprocess
import sys

import numpy as np

# Arguments some programs need to run (symbolic sizes).
EXTRA_ARGS = {"relax_symbolic_n.tvs": ["--dim", "n=3"], "graph_llvm.tvs": ["--dim", "n=5"]}
# Files that are not meant to elaborate (diagnostic inputs), and one that
# reads out of bounds on purpose (its native runs read garbage).
SKIP_DIRS = ("lit/diag",)
SKIP_FILES = ("fold_oob.tvs",)


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


def graph_stages(tvs):
    rc, out = run([tvs, "show", "--list-stages"])
    names = [line.split()[0] for line in out.splitlines() if line.strip()]
    return names[names.index("graph") + 1:names.index("tir")]


def programs(src):
    found = []
    for top in ("examples", "tests"):
        for root, _, files in os.walk(os.path.join(src, top)):
            if any(d in root for d in SKIP_DIRS):
                continue
            for f in sorted(files):
                path = os.path.join(root, f)
                if f in SKIP_FILES:
                    continue
                if f.endswith(".tvs") and "@R.function" in open(path, errors="replace").read():
                    found.append(path)
    return sorted(found)


def graph_functions(module_text):
    """Names of the public graph functions in printed module text (a private
    one may rightly be gone after dead-code-elimination)."""
    found = re.findall(r"@R\.function([^\n]*)\n\s*def (\w+)\(", module_text)
    return [name for deco, name in found if "private=True" not in deco]


def outputs(tvs, path, func, extra, outdir):
    rc, log = run([tvs, "run", path, "--func", func, "--seed", "7", "--output", outdir] + extra)
    if rc != 0:
        return None, log
    res = {}
    for f in sorted(os.listdir(outdir)):
        if f.endswith(".npy"):
            res[f] = np.load(os.path.join(outdir, f))
    return res, log


def same(a, b):
    if a.keys() != b.keys():
        return False
    for k in a:
        x, y = a[k], b[k]
        if x.shape != y.shape or x.dtype != y.dtype:
            return False
        if x.dtype.kind == "f":
            if not np.allclose(x, y, rtol=1e-5, atol=1e-5, equal_nan=True):
                return False
        elif not np.array_equal(x, y):
            return False
    return True


def check_unchanged_flags(tvs, path, stages):
    """A graph pass that says it changed nothing (--dump-after's "(unchanged)",
    from the pass's own flag) must leave the printed module as it was (--diff,
    from the text)."""
    rc1, flags = run([tvs, "show", path, "--dump-after", "all"])
    rc2, diffs = run([tvs, "show", path, "--dump-after", "all", "--diff"])
    if rc1 or rc2:
        return [f"{path}: --dump-after all failed:\n{flags}\n{diffs}"]
    bad = []
    for s in stages:
        if f"# after {s} (unchanged)" in flags and f"# {s} changed nothing" not in diffs:
            bad.append(f"{path}: {s} says it changed nothing, but the module differs")
    return bad


def check_program(tvs, path, stages, work, counts):
    name = os.path.basename(path)
    extra = EXTRA_ARGS.get(name, [])
    rc, text = run([tvs, "show", path, "--stage", "graph"])
    if rc != 0 or name.startswith("bad_"):  # bad_*.tvs: inputs of error tests, meant to fail
        counts["skipped_files"] += 1
        return []
    failures = check_unchanged_flags(tvs, path, stages)
    stage_files = {}
    for s in stages:
        # convert-layout is off unless asked for: check it switched on
        flag = ["--convert-layout"] if s == "convert-layout" else []
        rc, out = run([tvs, "show", path, "--stage", s] + flag)
        if rc != 0:
            failures.append(f"{path}: stage {s} failed:\n{out}")
            continue
        f = os.path.join(work, f"{name}.{s}.tvs")
        with open(f, "w") as fh:
            fh.write(out)
        stage_files[s] = f
    for func in graph_functions(text):
        ref, log = outputs(tvs, path, func, extra, os.path.join(work, f"{name}.{func}.ref"))
        if ref is None:  # not runnable (R.print, operators the interpreter lacks)
            counts["skipped_funcs"] += 1
            print(f"skipped: {path}: {func}: {log.strip().splitlines()[0] if log.strip() else '?'}")
            continue
        counts["funcs"] += 1
        for s, f in stage_files.items():
            got, log = outputs(tvs, f, func, extra, os.path.join(work, f"{name}.{func}.{s}"))
            counts["checks"] += 1
            if got is None:
                failures.append(f"{path}: {func} after stage {s} does not run:\n{log}")
            elif not same(ref, got):
                failures.append(f"{path}: {func} after stage {s} computes something else")
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tvs", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    stages = graph_stages(a.tvs)
    counts = {"funcs": 0, "checks": 0, "skipped_funcs": 0, "skipped_files": 0}
    failures = []
    progs = programs(a.src)
    for p in progs:
        failures += check_program(a.tvs, p, stages, a.work, counts)
    for f in failures:
        print("FAIL:", f)
    print(f"{len(progs)} programs, {counts['funcs']} graph functions, {len(stages)} graph stages: "
          f"{counts['checks']} checks, {len(failures)} failures "
          f"({counts['skipped_funcs']} functions the interpreter cannot run, "
          f"{counts['skipped_files']} files that do not elaborate, skipped)")
    # The test must have something to check: the example MLP and the networks here.
    if counts["funcs"] < 10 or not stages:
        print("FAIL: too few graph functions were checked")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
