#!/usr/bin/env bash
# test_json_utf8.sh - invalid UTF-8 in the input never makes invalid JSON
# (diagnostics, language server, tuning log): see json_utf8.py.
exec "${PYTHON3:-/usr/bin/python3}" "$TVS_SOURCE_DIR/tests/e2e/json_utf8.py" "$1" "$2"
