#!/bin/bash
# A real editor: headless Neovim opens a file with an error through the shipped
# configuration (editors/nvim) and checks diagnostics, a hover and a definition
# through its own LSP client (tests/lsp/nvim_check.lua).
set -euo pipefail
: "${TVS_BIN:?}" "${TVS_SOURCE_DIR:?}"
if ! command -v nvim >/dev/null; then
  echo "test_nvim: nvim is not installed (scripts/setup.sh installs it)" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$TVS_SOURCE_DIR/tests/lsp/Inputs/mm_error.tvs" "$work/"
cd "$work"
HOME="$work" XDG_STATE_HOME="$work" XDG_DATA_HOME="$work" timeout 60 nvim --clean --headless \
  --cmd "set rtp^=$TVS_SOURCE_DIR/editors/nvim" \
  -c "lua require('tvs').setup({ cmd = { os.getenv('TVS_BIN'), 'lsp' } })" \
  -c "luafile $TVS_SOURCE_DIR/tests/lsp/nvim_check.lua" \
  mm_error.tvs
