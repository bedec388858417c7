#!/usr/bin/env bash
# test_readme_repl.sh - the README's REPL session runs as written: its typed lines
# are fed to `tvs repl` and the saved trace replays with --schedule.
set -euo pipefail
tvs=$1 work=$2
src=${TVS_SOURCE_DIR:?}
rm -rf "$work" && mkdir -p "$work" && cd "$work"
fail() { echo "FAIL: $*"; exit 1; }

# The block that starts with "$ ./build/tvs repl FILE": its ">>> " lines are the input.
"${PYTHON3:-python3}" - "$src/README.md" > session.txt <<'PY'
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"```text\n\$ \./build/tvs repl (\S+)\n(.*?)```", text, re.S)
if not m:
    sys.exit("README.md: no ```text block starting with '$ ./build/tvs repl'")
print(m.group(1))
for line in m.group(2).splitlines():
    if line.startswith(">>> "):
        print(line[4:])
PY
file=$(head -1 session.txt)
tail -n +2 session.txt > input.txt
[ "$(wc -l < input.txt)" -ge 4 ] || fail "the README session has too few lines"
"$tvs" repl "$src/$file" < input.txt > out.txt 2>&1 || { cat out.txt; fail "the README's REPL session failed"; }
grep -q "GFLOP/s" out.txt || fail ":time printed no GFLOP/s"
trace=$(grep -o ':trace save [^ ]*' input.txt | awk '{print $3}')
[ -n "$trace" ] || fail "the README session saves no trace"
[ -f "$trace" ] || fail "the trace file '$trace' was not written"
"$tvs" run "$src/$file" --schedule "$work/$trace" --target interp > run.txt 2>&1 || { cat run.txt; fail "the saved trace does not replay"; }
echo "readme repl: 4 passed, 0 failed"
