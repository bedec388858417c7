#!/usr/bin/env bash
# test_deep_programs.sh - long legal programs (100,000-term sums, elif chains,
# bindings in a row) run; deeper ones give "program too deeply nested".
# Under TVS_TEST_QUICK (the sanitizer build) the programs have 20,000 terms.
N=100000
[ -n "${TVS_TEST_QUICK:-}" ] && N=20000
exec "${PYTHON3:-/usr/bin/python3}" "$TVS_SOURCE_DIR/tests/e2e/deep_programs.py" "$1" "$2" "$N"
