#!/usr/bin/env bash
# test_tvsc_signals.sh - an interrupted tvsc leaves no temporary file and no
# partial output (see tvsc_signals.py).
exec "${PYTHON3:-/usr/bin/python3}" "$TVS_SOURCE_DIR/tests/e2e/tvsc_signals.py" "$TVSC" \
  "$TVS_SOURCE_DIR/examples/mm_relu.tvs" "$2"
