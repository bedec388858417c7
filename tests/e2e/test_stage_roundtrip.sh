#!/usr/bin/env bash
# test_stage_roundtrip.sh - every lowering stage (tvs show --dump-after all) of
# every corpus and example program parses back and runs on the interpreter with
# the original's results.  Structural equality: unit/test_stage_roundtrip.
# usage: test_stage_roundtrip.sh TVS WORKDIR   (env: TVS_SOURCE_DIR, PYTHON3)
set -u
TVS=$1
W=$2
PY=${PYTHON3:-/usr/bin/python3}
rm -rf "$W" && mkdir -p "$W"
export TVS_NUM_THREADS=2
exec "$PY" "${TVS_SOURCE_DIR:?}/tests/e2e/stage_roundtrip.py" "$TVS" "$W"
