#!/usr/bin/env bash
# test_readme_quickstart.sh - the README's quick-start block runs as written
# (all but its first line, the set-up the suite has already done), from a
# scratch directory that sees examples/ and build/.
set -uo pipefail
tvs=$1 work=$2
src=${TVS_SOURCE_DIR:?}
rm -rf "$work" && mkdir -p "$work/build" && cd "$work"
ln -s "$src/examples" examples
ln -s "$tvs" build/tvs
export PATH=/usr/bin:$PATH  # Debian's python3, which has numpy (scripts/setup.sh)
awk '/^## Quick start/{q=1} q&&/^```sh$/{b=1;next} b&&/^```$/{exit} b' "$src/README.md" > block.sh
grep -q "scripts/demo.sh" block.sh || { echo "FAIL: no quick-start block found"; exit 1; }
pass=0 fail=0 n=0
while IFS= read -r cmd; do
  case "$cmd" in ""|"bash scripts/demo.sh"*) continue ;; esac
  n=$((n + 1))
  if bash -c "$cmd" >"out$n.txt" 2>&1; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: README quick start: '$cmd'"; cat "out$n.txt"; fi
done < block.sh
[ -f out/C.npy ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: no out/C.npy"; }
[ "$n" -ge 6 ] || { fail=$((fail + 1)); echo "FAIL: only $n commands"; }
echo "readme quick start: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
