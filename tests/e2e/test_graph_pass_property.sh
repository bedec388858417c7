#!/usr/bin/env bash
# test_graph_pass_property.sh - every graph stage's printed module parses back
# and computes what the original program computes, for every graph program of
# the tree and the networks with constants in tests/e2e/graph_nets/
# (graph_pass_property.py does the work).
set -uo pipefail
tvs=$1 work=$2
src=${TVS_SOURCE_DIR:?}
py=${PYTHON3:-/usr/bin/python3}
rm -rf "$work" && mkdir -p "$work"
exec "$py" "$src/tests/e2e/graph_pass_property.py" --tvs "$tvs" --src "$src" --work "$work"
