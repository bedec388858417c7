# expect_lib.sh - helpers sourced by the e2e shell tests: expect an exit code,
# check the output, count passes and failures.  Needs W (work dir) set.
pass=0 fail=0
# expect CODE "description" cmd... ; stdout+stderr saved in $W/out
expect() {
  local code=$1 desc=$2
  shift 2
  "$@" >"$W/out" 2>&1
  local rc=$?
  if [ "$rc" -eq "$code" ]; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: $desc: exit $rc, expected $code"; head -c 2000 "$W/out"; fi
}
# contains "text" : the last command's output contains text
contains() {
  if grep -qF -- "$1" "$W/out"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: output lacks: $1"; head -c 2000 "$W/out"; fi
}
# check "description" cmd... : the command succeeds
check() {
  local desc=$1
  shift
  if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $desc"; fi
}
# finish: print the counts, exit non-zero on a failure
finish() {
  echo "$pass passed, $fail failed"
  [ "$fail" -eq 0 ]
}
# is_sanitized BINARY: built with AddressSanitizer (which reserves terabytes of
# address space, so `ulimit -v` cannot cap it)
is_sanitized() { ldd "$1" 2>/dev/null | grep -q asan || nm -D "$1" 2>/dev/null | grep -q __asan_init; }
