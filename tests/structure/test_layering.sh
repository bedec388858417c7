#!/usr/bin/env bash
# test_layering.sh - the include check passes on the tree and fails on an
# include that points up (a fixture tree made here).
set -euo pipefail
src=${TVS_SOURCE_DIR:?}
py=${PYTHON3:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$py" "$src/tests/structure/check_layering.py" "$src" || fail "the tree has an upward include"

# ir/ reaching up into sched/: reported with file, line and both folders.
mkdir -p "$work/up/ir" "$work/up/sched"
printf '#include "ir/tir.h"\n#include "sched/schedule.h"\n' > "$work/up/ir/bad.c"
printf '#include "ir/tir.h"\n' > "$work/up/sched/ok.c"
if out=$("$py" "$src/tests/structure/check_layering.py" "$work/up"); then fail "upward include accepted"; fi
grep -qx 'ir/bad.c:2: error: ir/ may not include sched/ (allowed: base, runtime)' <<<"$out" \
  || fail "unexpected report: $out"
[ "$(grep -c error: <<<"$out")" = 1 ] || fail "the downward include was reported too: $out"

# runtime/ stands alone: even base/ is out of reach.
mkdir -p "$work/rt/runtime"
printf '#include "base/util.h"\n' > "$work/rt/runtime/x.c"
if "$py" "$src/tests/structure/check_layering.py" "$work/rt" >/dev/null; then
  fail "runtime/ including base/ accepted"
fi

# A new top-level folder must be placed in the table before it may hold code.
mkdir -p "$work/new/newlayer"
printf 'int x;\n' > "$work/new/newlayer/x.c"
if "$py" "$src/tests/structure/check_layering.py" "$work/new" >/dev/null; then
  fail "a folder missing from the table was accepted"
fi
echo "layering: 4 passed, 0 failed"
