#!/usr/bin/env bash
# setup.sh - install the Debian 12 packages TVS needs (run as root).
# Installs only what is missing, so it is fast on a prepared machine.
set -euo pipefail
PKGS=(
  build-essential cmake ninja-build      # the build
  re2c lemon                             # lexer and parser generators
  llvm-14-dev llvm-14-tools              # LLVM C API; lit + FileCheck for tests
  clang-14 libclang-rt-14-dev            # libFuzzer target
  libdlpack-dev                          # DLPack tensors
  libedit-dev libcjson-dev               # REPL line editing; JSON
  zlib1g-dev                             # .npz parameter files (deflate, CRC-32)
  python3 python3-numpy python3-torch    # test references (operators against numpy / PyTorch)
  graphviz                               # dot: tvs show --format dot pictures, checked in tests
  tmux                                   # interactive REPL tests
  libdnnl-dev libopenblas-dev            # reference libraries of bench/matmul_bench.c
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
