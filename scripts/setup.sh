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
  python3-venv                           # .venv for the pinned PyPI packages
  protobuf-c-compiler libprotobuf-c-dev  # the ONNX importer's reader (protoc-c)
  libonnx-dev libonnx-testdata           # onnx.proto; ONNX's backend conformance data
  python3-onnx python3-torchvision       # reference models exported at test set-up
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd   # OpenCL target, run on the CPU
  libxgboost-dev                         # the tuner's cost model
  libopenmpi-dev openmpi-bin             # tuning scale-out
  neovim                                 # the editor end of the LSP test
  nodejs                                 # runs the VS Code extension's code in its test
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

# PyPI packages, pinned, in a virtual environment over Debian's python3 (its numpy and
# torch stay visible). Re-created when scripts/requirements.txt changes.
venv="$(cd "$(dirname "$0")/.." && pwd)/.venv"
req="$(dirname "$0")/requirements.txt"
if [ ! -x "$venv/bin/python" ] || ! cmp -s "$req" "$venv/requirements.txt"; then
  echo "setup: creating $venv"
  rm -rf "$venv"
  /usr/bin/python3 -m venv --system-site-packages "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$req"
  cp "$req" "$venv/requirements.txt"
fi
