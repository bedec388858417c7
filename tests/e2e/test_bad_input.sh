#!/usr/bin/env bash
# test_bad_input.sh - truncated and garbage .tvs inputs give a clean error exit.
exec "${PYTHON3:-/usr/bin/python3}" "$TVS_SOURCE_DIR/tests/e2e/bad_input.py" "$1" "$2" "$TVS_SOURCE_DIR"
