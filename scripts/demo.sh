#!/usr/bin/env bash
# demo.sh - set up, build, and run the main job on the bundled example:
# the MLC course's mm_relu, printed as TVMScript and run on random inputs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build >/dev/null
echo "== tvs show examples/mm_relu.tvs --stage tir"
./build/tvs show examples/mm_relu.tvs --stage tir
echo "== tvs run examples/mm_relu.tvs (random inputs, seed 0)"
./build/tvs run examples/mm_relu.tvs --output build/demo-out
