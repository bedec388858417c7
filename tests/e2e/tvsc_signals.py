"""tvsc_signals.py - SIGINT/SIGTERM/SIGHUP at many points of a tvsc build
(parsing, codegen, object emission, the link) leave no temporary file and no
partial output: the output directory afterwards holds either nothing or the
complete shared object, byte for byte the uninterrupted build's.
usage: tvsc_signals.py TVSC SOURCE WORKDIR"""
import os
import shutil
import signal
import subprocess
import sys
import time

tvsc, source, work = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)

ref_dir = os.path.join(work, "ref")
os.makedirs(ref_dir)
t0 = time.monotonic()
subprocess.run([tvsc, source, "-o", os.path.join(ref_dir, "k.so")], check=True)
span = time.monotonic() - t0
reference = open(os.path.join(ref_dir, "k.so"), "rb").read()

runs = 24 if os.environ.get("TVS_TEST_QUICK") else 48
sigs = [signal.SIGTERM, signal.SIGINT, signal.SIGHUP]
failures, interrupted = [], 0
for i in range(runs):
    d = os.path.join(work, f"run{i}")
    os.makedirs(d)
    out = os.path.join(d, "k.so")
    delay = span * 1.2 * i / runs  # spread over the whole build, past its end
    p = subprocess.Popen([tvsc, source, "-o", out], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(delay)
    p.send_signal(sigs[i % len(sigs)])
    rc = p.wait(timeout=60)
    interrupted += rc != 0
    time.sleep(0.05)  # anything the linker still writes would appear now
    left = sorted(os.listdir(d))
    if rc == 0 and left != ["k.so"]:
        failures.append(f"run {i}: finished but left {left}")
    elif rc != 0 and left not in ([], ["k.so"]):
        failures.append(f"run {i} ({sigs[i % len(sigs)].name} after {delay * 1000:.0f} ms): left {left}")
    if "k.so" in left and open(out, "rb").read() != reference:
        failures.append(f"run {i}: k.so differs from the uninterrupted build (partial output)")

for f in failures:
    print("FAIL:", f)
print(f"{runs} builds signalled over {span * 1000:.0f} ms, {interrupted} interrupted, {len(failures)} failures")
sys.exit(1 if failures or interrupted == 0 else 0)
