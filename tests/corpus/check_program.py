#!/usr/bin/env python3
"""check_program.py - one corpus program end to end, as a user would run it.

1. run_reference.py writes random inputs and the numpy reference outputs;
2. `tvs run NAME.tvs --func F --input ... --output OUT --target T` runs the
   program natively (T = cpu: LLVM JIT) and on the reference interpreter
   (T = interp);
3. compare.py checks every output of both runs against the reference;
4. round trip: print the module (tvs show --stage graph), parse the printed
   text again, print again: the two prints must be byte-identical and the
   printed module structurally equal to the original (tvs equal --strict).
"""
import argparse
import importlib.util
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        print("$ " + " ".join(cmd))
        print(r.stdout, r.stderr, sep="")
        sys.exit(f"FAIL: command exited with {r.returncode}")
    return r.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tvs", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("name")
    a = ap.parse_args()
    work = os.path.join(a.work, a.name)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    prog = os.path.join(HERE, a.name + ".tvs")
    spec = importlib.util.spec_from_file_location(a.name, os.path.join(HERE, a.name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)

    ref_dir = os.path.join(work, "ref")
    inputs = run([sys.executable, os.path.join(HERE, "run_reference.py"), a.name, ref_dir]).split()
    for target in ("cpu", "interp"):
        out_dir = os.path.join(work, "out-" + target)
        cmd = [a.tvs, "run", prog, "--func", mod.FUNC, "--output", out_dir, "--target", target]
        for arg in inputs:
            cmd += ["--input", arg]
        run(cmd)
        run([sys.executable, os.path.join(HERE, "compare.py"), ref_dir, out_dir, a.name])

    p1 = os.path.join(work, "print1.tvs")
    p2 = os.path.join(work, "print2.tvs")
    with open(p1, "w") as f:
        f.write(run([a.tvs, "show", prog, "--stage", "graph"]))
    with open(p2, "w") as f:
        f.write(run([a.tvs, "show", p1, "--stage", "graph"]))
    if open(p1).read() != open(p2).read():
        run(["diff", "-u", p1, p2])
        sys.exit("FAIL: print(parse(print(m))) differs from print(m)")
    run([a.tvs, "equal", "--strict", prog, p1])
    print(f"PASS {a.name}")


if __name__ == "__main__":
    main()
