#!/usr/bin/env bash
# test_write_errors.sh - a write that fails (a full disk: /dev/full) is an
# error with a non-zero exit on every output path: stdout of tvs and tvsc, -o,
# the REPL's :write and :trace save, .npy outputs; no temporary file is left
# behind, a device is written in place (never renamed over), and new files
# follow the umask.
# usage: test_write_errors.sh TVS WORKDIR
set -u
TVS=$1
W=$2
TVSC=${TVSC:?}
rm -rf "$W" && mkdir -p "$W"
. "$TVS_SOURCE_DIR/tests/e2e/expect_lib.sh"
# A link to /dev/full in the work dir: an old rename-over-the-output would
# replace the link, never the device itself.
ln -s /dev/full "$W/full"
ln -s /dev/null "$W/null"
cat >"$W/add.tvs" <<'TVS'
@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        B[i] = A[i] + T.float32(1)
TVS
nospace="No space left on device"
expect 1 "tvs show > full" sh -c '"$0" show "$1" >"$2"' "$TVS" "$W/add.tvs" "$W/full";  contains "$nospace"
expect 1 "tvs run > full" sh -c '"$0" run "$1" >"$2"' "$TVS" "$W/add.tvs" "$W/full";    contains "$nospace"
expect 1 "tvs --help > full" sh -c '"$0" --help >"$1"' "$TVS" "$W/full";                 contains "cannot write to standard output"
expect 1 "tvsc --emit tir > full" sh -c '"$0" "$1" --emit tir >"$2"' "$TVSC" "$W/add.tvs" "$W/full"; contains "$nospace"
expect 1 "tvsc --emit tir -o full" "$TVSC" "$W/add.tvs" --emit tir -o "$W/full";        contains "$nospace"
expect 1 "tvsc --help > full" sh -c '"$0" --help >"$1"' "$TVSC" "$W/full";               contains "$nospace"
expect 1 "repl :write full" sh -c 'printf ":write %s\n" "$2" | "$0" repl "$1"' "$TVS" "$W/add.tvs" "$W/full"
contains "$nospace"
if grep -q "wrote the module" "$W/out"; then fail=$((fail + 1)); echo "FAIL: the REPL says it wrote"; fi
expect 1 "repl :trace save full" sh -c 'printf ":trace save %s\n" "$2" | "$0" repl "$1"' "$TVS" "$W/add.tvs" "$W/full"
contains "$nospace"
expect 1 "repl :show > full" sh -c 'printf ":show\n" | "$0" repl "$1" >"$2"' "$TVS" "$W/add.tvs" "$W/full"
contains "cannot write to standard output"
# .npy outputs (tvs run --output DIR writes DIR/B.npy: here a link to /dev/full).
mkdir "$W/outdir" && ln -s /dev/full "$W/outdir/B.npy"
expect 1 "tvs run --output (B.npy -> /dev/full)" "$TVS" run "$W/add.tvs" --output "$W/outdir"; contains "$nospace"
# Tuning outputs: the log (--db), the best script (-o) and the plot.
cat >"$W/tune.tvs" <<'TVS'
@T.prim_func
def f(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32")):
    for i, j in T.grid(64, 64):
        with T.block("b"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + T.float32(1)
TVS
expect 1 "tvs tune --db full" "$TVS" tune "$W/tune.tvs" --trials 2 --db "$W/full"; contains "$nospace"
expect 1 "tvs tune -o full" "$TVS" tune "$W/tune.tvs" --trials 2 -o "$W/full"; contains "$nospace"
check "the link to /dev/full is still a link" test -L "$W/full"
check "B.npy is still a link" test -L "$W/outdir/B.npy"
check "no temporary file left" test -z "$(ls "$W" | grep -v -e '^add.tvs$' -e '^full$' -e '^null$' -e '^out$' -e '^outdir$' -e '^tune.tvs$')"
# Writing into /dev/null (through a link, so an old build renames over the
# link, not the device) works in place and exits 0.
expect 0 "tvsc --emit tir -o null" "$TVSC" "$W/add.tvs" --emit tir -o "$W/null"
check "the link to /dev/null is still a link" test -L "$W/null"
# New files follow the umask (the REPL made 0600 files).
for m in 022 077 002; do
  rm -f "$W/m.tvs"
  (umask $m; printf ":write %s\n" "$W/m.tvs" | "$TVS" repl "$W/add.tvs" >/dev/null 2>&1)
  want=$(printf '%o' $((0666 & ~0$m)))
  got=$(stat -c %a "$W/m.tvs" 2>/dev/null)
  check "umask $m: :write made $got, expected $want" test "$got" = "$want"
done
finish
