#!/usr/bin/env bash
# Graphviz accepts what `tvs show --format dot` draws, at every graph stage,
# for every example with a graph function.
set -euo pipefail
TVS=$1
WORK=$2
SRC=${TVS_SOURCE_DIR:?}
mkdir -p "$WORK"
command -v dot >/dev/null || { echo "FAIL: graphviz 'dot' not installed (scripts/setup.sh installs it)"; exit 1; }
stages=$("$TVS" show --list-stages | awk '{print $1}' | sed -n '/^graph$/,/^tir$/p' | grep -v '^tir$')
n=0
for f in "$SRC"/examples/*.tvs; do
  grep -q '@R.function' "$f" || continue
  for s in $stages; do
    out="$WORK/$(basename "$f" .tvs).$s"
    "$TVS" show "$f" --stage "$s" --format dot > "$out.dot"
    dot -Tsvg "$out.dot" -o "$out.svg" 2> "$out.err" || { echo "FAIL: dot rejected $out.dot:"; cat "$out.err"; exit 1; }
    grep -q '<svg' "$out.svg" || { echo "FAIL: no svg for $out.dot"; exit 1; }
    n=$((n + 1))
  done
done
[ "$n" -ge 2 ] || { echo "FAIL: only $n graphs drawn"; exit 1; }
echo "PASS: $n graphs drawn by Graphviz"
