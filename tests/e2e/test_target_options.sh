#!/usr/bin/env bash
# test_target_options.sh - every command that takes --mcpu/--mattr (tvs show,
# tvsc) refuses an unknown CPU or feature, and a known feature LLVM cannot
# generate code with (-64bit-mode, --mcpu i386 on x86_64), with a clear error
# and exit 1 instead of aborting inside LLVM (exit 134); good settings work.
# usage: test_target_options.sh TVS WORKDIR   (env: TVSC, TVS_SOURCE_DIR)
set -u
TVS=$1
W=$2
TVSC=${TVSC:?set TVSC to the tvsc binary}
MM=${TVS_SOURCE_DIR:?}/examples/mm_relu.tvs
rm -rf "$W" && mkdir -p "$W"
pass=0 fail=0
bad() { fail=$((fail + 1)); echo "FAIL: $*"; sed 's/^/    /' "$W/out" | head -5; }
# expect CODE TEXT cmd... : exit code CODE and TEXT in the output
expect() {
  local code=$1 text=$2
  shift 2
  "$@" >"$W/out" 2>&1
  local rc=$?
  if [ "$rc" -ne "$code" ]; then bad "$*: exit $rc, expected $code"
  elif [ -n "$text" ] && ! grep -qF -- "$text" "$W/out"; then bad "$*: output lacks '$text'"
  else pass=$((pass + 1)); fi
}
case $(uname -m) in x86_64) x86=1 ;; *) x86=0 ;; esac
for opt in "--mcpu=nosuchcpu" "--mattr=+nosuchfeature"; do
  expect 1 "unknown --m" "$TVS" show "$MM" --stage llvm "$opt"
  expect 1 "unknown --m" "$TVS" show "$MM" --stage asm "$opt"
  expect 1 "unknown --m" "$TVSC" "$MM" "$opt" -o "$W/k.so"
done
if [ "$x86" = 1 ]; then
  for opt in "--mattr=-64bit-mode" "--mcpu=i386"; do
    expect 1 "LLVM cannot generate code" "$TVS" show "$MM" --stage asm "$opt"
    expect 1 "LLVM cannot generate code" "$TVS" show "$MM" --stage llvm-unopt "$opt"
    expect 1 "LLVM cannot generate code" "$TVSC" "$MM" "$opt" -o "$W/k.so"
    expect 1 "LLVM cannot generate code" "$TVSC" "$MM" "$opt" --emit asm
  done
  expect 0 "" "$TVS" show "$MM" --stage asm --mcpu=skylake --mattr=-avx2
  expect 0 "" "$TVSC" "$MM" --mcpu=x86-64 -o "$W/k.o"
fi
[ -e "$W/k.so" ] && { fail=$((fail + 1)); echo "FAIL: a refused tvsc left k.so"; }
echo "target options: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
