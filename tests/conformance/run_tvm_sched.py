#!/usr/bin/env python3
"""Score TVS against TVM v0.23's own schedule tests and TIR programs.

The corpora are extracted from TVM's test files by /work/shared/conformance/make_tvm_cases.sh
(never committed: they are TVM's code). This runner only drives the tvs binary over them:

  run_tvm_sched.py TVS CORPUS [--only sched|errors|roundtrip] [-j N] [-v] [--log FILE]

  sched:     case_*/before.tvs + steps.sch -> `tvs show --stage tir --schedule`, then
             `tvs equal` against TVM's expected.tvs
  errors:    errors/*/steps.sch: the last step must be refused (non-zero exit, a
             diagnostic naming a schedule error), every earlier step accepted
  roundtrip: programs/roundtrip/prog_*.tvs: parse, print, parse back, `tvs equal`

Prints one count line per corpus and, with -v, every failing case grouped by reason.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile

TIMEOUT = 20


def run(cmd, **kw):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, **kw)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return 124, "", "timeout"


def first_error(text):
    for line in text.splitlines():
        if "error:" in line:
            msg = line.split("error:", 1)[1].strip()
            return re.sub(r"'[^']*'|\"[^\"]*\"|\b\d+\b", "_", msg)[:90]
    return (text.strip().splitlines() or ["(no message)"])[-1][:90]


def sched_case(tvs, d, tmp):
    meta = json.load(open(os.path.join(d, "meta.json")))
    prim = meta.get("primary", "?")
    out = os.path.join(tmp, os.path.basename(d) + ".tvs")
    rc, so, se = run([tvs, "check", os.path.join(d, "before.tvs")])
    if rc:
        return prim, "before-parse", first_error(se)
    rc, so, se = run([tvs, "show", os.path.join(d, "before.tvs"), "--stage", "tir",
                      "--schedule", os.path.join(d, "steps.sch")])
    if rc:
        return prim, "refused", first_error(se)
    open(out, "w").write(so)
    rc, _, se = run([tvs, "check", os.path.join(d, "expected.tvs")])
    if rc:
        return prim, "expected-parse", first_error(se)
    rc, so2, se = run([tvs, "equal", out, os.path.join(d, "expected.tvs")])
    if rc:
        return prim, "differs", first_error(so2 + se)
    return prim, "ok", ""


def error_case(tvs, d, tmp):
    meta = json.load(open(os.path.join(d, "meta.json")))
    prim = meta.get("failing_primitive", "?")
    before = os.path.join(d, "before.tvs")
    rc, _, se = run([tvs, "check", before])
    if rc:
        return prim, "before-parse", first_error(se)
    steps = open(os.path.join(d, "steps.sch")).read().rstrip("\n").split("\n")
    prefix = os.path.join(tmp, os.path.basename(d) + ".prefix.sch")
    open(prefix, "w").write("\n".join(steps[:-1]) + "\n")
    rc, _, se = run([tvs, "show", before, "--stage", "tir", "--schedule", prefix])
    if rc:
        return prim, "prefix-refused", first_error(se)
    rc, _, se = run([tvs, "show", before, "--stage", "tir", "--schedule",
                     os.path.join(d, "steps.sch")])
    if rc == 0:
        return prim, "accepted", ""
    if rc >= 124 or "error:" not in se:
        return prim, "crashed", first_error(se)
    return prim, "ok", first_error(se)


def roundtrip_case(tvs, f, tmp):
    out = os.path.join(tmp, os.path.basename(f))
    rc, so, se = run([tvs, "show", f, "--stage", "tir"])
    if rc:
        return "program", "parse", first_error(se)
    open(out, "w").write(so)
    rc, so2, se = run([tvs, "equal", f, out])
    if rc:
        return "program", "roundtrip", first_error(so2 + se)
    return "program", "ok", ""


def score(name, fn, tvs, items, jobs, verbose, log):
    with tempfile.TemporaryDirectory() as tmp:
        with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
            res = list(ex.map(lambda d: (d,) + fn(tvs, d, tmp), items))
    status = collections.Counter(r[2] for r in res)
    n = len(res)
    parts = ", ".join(f"{k} {v}" for k, v in sorted(status.items()) if k != "ok")
    print(f"{name}: ok {status['ok']}/{n} ({100.0 * status['ok'] / max(n, 1):.1f}%)"
          + (f"; {parts}" if parts else ""))
    if log:
        for d, prim, st, why in res:
            log.write(f"{name}\t{st}\t{prim}\t{os.path.basename(d)}\t{why}\n")
    if verbose:
        groups = collections.Counter((r[2], r[1], r[3]) for r in res if r[2] != "ok")
        for (st, prim, why), c in groups.most_common():
            print(f"  {c:4d} {st:14s} {prim:24s} {why}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tvs")
    ap.add_argument("corpus")
    ap.add_argument("--only", choices=["sched", "errors", "roundtrip"])
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("-v", action="store_true")
    ap.add_argument("--log")
    a = ap.parse_args()
    tvs = os.path.abspath(a.tvs)
    sc = os.path.join(a.corpus, "sched_cases")
    log = open(a.log, "w") if a.log else None
    if not os.path.isdir(sc):
        sys.exit(f"run_tvm_sched.py: error: no {sc}: run make_tvm_cases.sh first")
    ls = lambda p, pre: sorted(os.path.join(p, x) for x in os.listdir(p) if x.startswith(pre))
    if a.only in (None, "sched"):
        score("schedule cases equal to TVM", sched_case, tvs, ls(sc, "case_"), a.j, a.v, log)
    if a.only in (None, "errors"):
        score("expected-error cases refused", error_case, tvs,
              ls(os.path.join(sc, "errors"), "err_"), a.j, a.v, log)
    if a.only in (None, "roundtrip"):
        rt = os.path.join(a.corpus, "programs", "roundtrip")
        progs = [f for f in ls(rt, "prog_") if f.endswith(".tvs") and not f.endswith(".out.tvs")]
        score("TIR programs round-trip", roundtrip_case, tvs, progs, a.j, a.v, log)


if __name__ == "__main__":
    main()
