#!/usr/bin/env bash
# test.sh - set up, then build twice (normal; ASan+UBSan) and run the whole suite on both;
# then build the libFuzzer targets (clang) and run each briefly over its seeds.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
jobs=$(nproc)
for variant in build build-asan; do
  extra=()
  quick=
  # Under the sanitizers the interpreter is ~15x slower: the oracle tests
  # check big kernels after the last lowering pass only (TVS_TEST_QUICK).
  if [ "$variant" = build-asan ]; then
    extra=(-DTVS_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug)
    quick=1
  fi
  echo "== configure $variant"
  cmake -S . -B "$variant" -G Ninja "${extra[@]}" >/dev/null
  echo "== build $variant"
  cmake --build "$variant" -j "$jobs"
  echo "== test $variant"
  (cd "$variant" && TVS_TEST_QUICK=$quick ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
     UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
     ctest --output-on-failure -j "$jobs")
done
echo "== fuzz targets (build-fuzz)"
bash scripts/fuzz_smoke.sh build-fuzz
