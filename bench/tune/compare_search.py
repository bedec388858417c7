#!/usr/bin/env python3
"""compare_search.py - the cost-model search against random search on five kernels.

For each kernel (the 1024^3 matmul of bench/kernels, and the four of
bench/tune/kernels: a ResNet-18 conv2d layer, a batch matmul, a softmax, a
reduction with an epilogue) it runs `tvs tune --compare-random` (both searches,
the same budget, seed and measurer), reads the per-trial best from the progress
log, and prints how many trials the cost-model search needed to reach 90% of its
final best, how many random search needed to reach the same figure ("> N": not
within N trials; --random-extend F runs random search alone with F times the
budget when it never got there, to count what it needs), and whether the model
needed at most half of random's.  "random expected" is the trial at which
random search reaches the mark on average over the orders its measured
candidates could have come in: one seed's order can be lucky.
Not a test: it prints figures (and one SVG curve per kernel in OUT_DIR).

usage: bench/tune/compare_search.py BUILD_DIR [--trials N] [--seed S] [--out DIR]
                                    [--kernels NAME,...] [--from-logs DIR] [--transfer-from DIR]
                                    [--history DIR]
                                    [--random-extend F]

Both searches run without the analytic candidate (--no-analytic): this compares
the cost model's guidance with chance, not a rule with chance.

Each run leaves OUT_DIR/NAME.jsonl, the cost-model search's tuning log; a later
run with --transfer-from OUT_DIR trains each kernel's cost model first on the
other kernels' logs (AutoTVM's transfer learning, leave-one-out).
"""
import argparse
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
KERNELS = [
    ("matmul", os.path.join(SRC, "bench/kernels/mm_1024.tvs")),
    ("conv2d", os.path.join(HERE, "kernels/conv2d_resnet18_l2.tvs")),
    ("batch_matmul", os.path.join(HERE, "kernels/batch_matmul.tvs")),
    ("softmax", os.path.join(HERE, "kernels/softmax.tvs")),
    ("mean_bias_relu", os.path.join(HERE, "kernels/mean_bias_relu.tvs")),
]
LINE = re.compile(r"^\[(tune|random)\] [^:]+: trial (\d+)/\d+: .*best ([0-9.]+) GFLOP/s")
TRIAL = re.compile(r"^\[(tune|random)\] [^:]+: trial \d+/\d+: (?:([0-9.]+) GFLOP/s)?")


def curves(log):
    """Best-so-far per trial of each search, from tvs tune's progress lines."""
    out = {"tune": [], "random": []}
    for line in log.splitlines():
        m = LINE.match(line)
        if m:
            out[m.group(1)].append(float(m.group(3)))
    return out


def samples(log, search):
    """Each trial's own GFLOP/s (0 for a failed one) of one search, from the progress lines."""
    out = []
    for line in log.splitlines():
        m = TRIAL.match(line)
        if m and m.group(1) == search:
            out.append(float(m.group(2)) if m.group(2) else 0.0)
    return out


def expected_first(values, target):
    """The expected trial at which random search first reaches target, were its
    measured candidates drawn in a random order: (N + 1) / (K + 1) for K of N
    reaching it (None when none does).  One seed's order can be lucky or not;
    this is the figure that order scatters around."""
    k = sum(1 for v in values if v >= target)
    return (len(values) + 1) / (k + 1) if k else None


def first_reaching(curve, target):
    for i, v in enumerate(curve):
        if v >= target:
            return i + 1
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--trials", type=int, default=64)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=None)
    ap.add_argument("--kernels", default=None, help="comma-separated subset of " + ",".join(k for k, _ in KERNELS))
    ap.add_argument("--from-logs", default=None, help="re-read the logs an earlier run left in DIR (no tuning)")
    ap.add_argument("--transfer-from", default=None,
                    help="train each kernel's cost model first on the tuning logs an earlier run left in DIR, "
                         "of the other four kernels only (tvs tune --transfer)")
    ap.add_argument("--history", default=None, metavar="DIR",
                    help="train every kernel's cost model first on all the tuning logs in DIR (tvs tune --transfer), "
                         "e.g. the random-search logs of other kernels that make_history.sh measures; "
                         "a log named after one of the five kernels is left out")
    ap.add_argument("--random-extend", type=int, default=0, metavar="F",
                    help="when random search never reaches the target within the budget, run it alone with "
                         "F times the trials (same seed: the same candidates first) to count what it needs")
    a = ap.parse_args()
    if a.history and a.transfer_from:
        ap.error("--history and --transfer-from each give the cost model its history: one of them")
    if a.history and not os.path.isdir(a.history):
        ap.error(f"--history {a.history}: not a directory (bench/tune/make_history.sh measures one)")
    tvs = os.path.join(os.path.abspath(a.build), "tvs")
    out = a.out or os.path.join(os.path.abspath(a.build), "bench-compare-search")
    os.makedirs(out, exist_ok=True)
    want = set(a.kernels.split(",")) if a.kernels else None
    env = dict(os.environ)
    for v in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        env.pop(v, None)
    rows = []
    for name, path in KERNELS:
        if want and name not in want:
            continue
        t0 = time.time()
        if a.from_logs:
            with open(os.path.join(a.from_logs, name + ".log")) as f:
                log = f.read()
        else:
            db = os.path.join(out, name + ".jsonl")
            if os.path.exists(db):
                os.remove(db)
            cmd = [tvs, "tune", path, "--trials", str(a.trials), "--seed", str(a.seed), "--threads", "1",
                   "--fast-math", "--compare-random", "--plot", os.path.join(out, name + ".svg"), "--db", db,
                   "--no-analytic"]  # the search alone: BLIS's rule would answer for the model on matmuls
            # the logs the cost model first learns from, concatenated into one --transfer log
            if a.transfer_from:  # leave-one-out: the logs of the other kernels, never this one's
                kind = "transfer"
                sources = [os.path.join(a.transfer_from, other + ".jsonl") for other, _ in KERNELS if other != name]
            else:  # --history: every log in the directory but those named after the five
                kind = "history"
                names = {k for k, _ in KERNELS}
                sources = [os.path.join(a.history, n) for n in sorted(os.listdir(a.history))
                           if n.endswith(".jsonl") and n[:-len(".jsonl")] not in names] if a.history else []
            if a.transfer_from or a.history:
                hist = os.path.join(out, f"{name}.{kind}.jsonl")
                with open(hist, "w") as h:
                    for src in sources:
                        if os.path.exists(src):
                            with open(src) as f:
                                h.write(f.read())
                cmd += ["--transfer", hist]
            r = subprocess.run(cmd, env=env, capture_output=True, text=True)
            with open(os.path.join(out, name + ".log"), "w") as f:
                f.write(r.stderr)
            if r.returncode != 0:
                print(f"{name}: tvs tune failed ({r.returncode}): {r.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
                continue
            log = r.stderr
        c = curves(log)
        cm, rnd = c["tune"], c["random"]
        target = 0.9 * (cm[-1] if cm else 0)
        t_cm, t_rnd = first_reaching(cm, target), first_reaching(rnd, target)
        budget = a.trials
        rnd_values = samples(log, "random")
        if t_rnd is None and a.random_extend > 1:
            # the same seed draws the same random candidates first, so this run
            # continues random search's curve beyond the shared budget
            budget = a.trials * a.random_extend
            ext_log = os.path.join(out, name + ".random-extended.log")
            if a.from_logs and os.path.exists(os.path.join(a.from_logs, name + ".random-extended.log")):
                with open(os.path.join(a.from_logs, name + ".random-extended.log")) as f:
                    elog = f.read()
            else:
                cmd = [tvs, "tune", path, "--trials", str(budget), "--seed", str(a.seed), "--threads", "1",
                       "--fast-math", "--search", "random"]
                elog = subprocess.run(cmd, env=env, capture_output=True, text=True).stderr
            with open(ext_log, "w") as f:
                f.write(elog)
            t_rnd = first_reaching(curves(elog)["tune"], target)
            rnd_values = samples(elog, "tune")
        # random never reaching the target within the budget counts as the budget + 1
        ok = t_cm is not None and t_cm <= ((t_rnd if t_rnd is not None else budget + 1) / 2)
        e_rnd = expected_first(rnd_values, target)
        rows.append((name, cm[-1] if cm else 0, rnd[-1] if rnd else 0, t_cm, t_rnd, ok, budget, e_rnd,
                     len(rnd_values)))
        print(f"{name}: done in {time.time() - t0:.0f} s", file=sys.stderr, flush=True)
    print(f"cost-model vs random search, {a.trials} trials each, seed {a.seed}, 1 thread "
          f"(GFLOP/s over the worker's CPU time); target: 90% of the cost model's final best"
          + (f"; cost model first trained on the other kernels' logs in {a.transfer_from}" if a.transfer_from else "")
          + (f"; cost model first trained on the history in {a.history}" if a.history else ""))
    print(f"{'kernel':<16}{'model best':>11}{'random best':>12}{'target':>8}{'model trials':>13}{'random trials':>14}"
          f"{'  <= half?':>10}{'random expected':>17}")
    for name, b_cm, b_rnd, t_cm, t_rnd, ok, budget, e_rnd, n_rnd in rows:
        fmt = lambda t: str(t) if t is not None else f"> {budget}"
        exp = f"{e_rnd:.1f}" if e_rnd is not None else f"> {n_rnd}"
        print(f"{name:<16}{b_cm:>11.2f}{b_rnd:>12.2f}{0.9 * b_cm:>8.2f}{fmt(t_cm):>13}{fmt(t_rnd):>14}"
              f"{'yes' if ok else 'no':>10}{exp:>17}")
    n_ok = sum(1 for r in rows if r[5])
    print(f"cost model within half of random's trials on {n_ok} of {len(rows)} kernels (goal: 4 of 5)")
    print("random expected: the trial at which random search reaches the target on average over the orders "
          "its measured candidates could have come in, (N + 1) / (K + 1) for K of its N candidates reaching it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
