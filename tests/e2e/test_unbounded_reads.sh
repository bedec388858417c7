#!/usr/bin/env bash
# test_unbounded_reads.sh - inputs that never end or lie about their size
# (/dev/zero as source or .npy, a pipe that goes on past its .npy data, a
# header declaring terabytes) are refused quickly; no read grows without bound.
# usage: test_unbounded_reads.sh TVS WORKDIR
set -u
TVS=$1
W=$2
PY=${PYTHON3:-/usr/bin/python3}
rm -rf "$W" && mkdir -p "$W"
. "$TVS_SOURCE_DIR/tests/e2e/expect_lib.sh"
# Cap memory (1.5 GB) where the sanitizer allows, and time everywhere: the old
# readers grew to gigabytes on /dev/zero.
cap() { if is_sanitized "$TVS"; then timeout 20 "$@"; else (ulimit -v 1500000; timeout 20 "$@"); fi; }

cat >"$W/add.tvs" <<'TVS'
@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        B[i] = A[i] + T.float32(1)
TVS
"$PY" - "$W" <<'PY'
import sys, numpy as np
w = sys.argv[1]
np.save(f"{w}/a.npy", np.arange(4, dtype="float32"))
d = open(f"{w}/a.npy", "rb").read()
open(f"{w}/huge.npy", "wb").write(d.replace(b"(4,), }", b"(999999999999,)}"))
open(f"{w}/longhdr.npy", "wb").write(b"\x93NUMPY\x02\x00" + (1 << 30).to_bytes(4, "little") + b"{")
PY

expect 1 "check /dev/zero" cap "$TVS" check /dev/zero;         contains "not a regular file"
expect 1 "show /dev/urandom" cap "$TVS" show /dev/urandom;     contains "not a regular file"
expect 1 "check a directory" cap "$TVS" check "$W";            contains "directory"
expect 1 "run --input /dev/zero" cap "$TVS" run "$W/add.tvs" --input A=/dev/zero; contains "not a regular file"
expect 1 "header declaring terabytes" cap "$TVS" run "$W/add.tvs" --input A="$W/huge.npy"; contains "truncated .npy data"
expect 1 "header length over the limit" cap "$TVS" run "$W/add.tvs" --input A="$W/longhdr.npy"; contains "header is too long"
# Pipes are fine when they end, and read no further than the header allows when they do not.
expect 0 "npy through a pipe" cap "$TVS" run "$W/add.tvs" --input A=<(cat "$W/a.npy"); contains "sum=10"
expect 1 "npy pipe that never ends" cap "$TVS" run "$W/add.tvs" --input A=<(cat "$W/a.npy" /dev/zero); contains "unexpected bytes"
expect 0 "source through a pipe" cap "$TVS" check <(cat "$W/add.tvs")
expect 1 "source pipe that never ends" cap "$TVS" check <(cat "$W/add.tvs"; yes '# comment'); contains "limited to 64 MiB"
finish
