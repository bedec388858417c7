#!/usr/bin/env bash
# test_repl_tmux.sh - `tvs repl` as a person at a terminal sees it: runs it
# in a tmux pane, types with send-keys (TAB completion of a block name, a
# method, a keyword and a command; the up arrow; Ctrl-R), and reads the
# screen with capture-pane.  Prints "[SKIP]" only when tmux is missing.
# usage: test_repl_tmux.sh TVS WORKDIR
set -u
TVS=$1
W=$2
if ! command -v tmux >/dev/null 2>&1; then
  echo "[SKIP] tmux is not installed (scripts/setup.sh installs it)"
  exit 0
fi
rm -rf "$W" && mkdir -p "$W/home"
pass=0 fail=0
SOCK="tvs-repl-test-$$"
T() { tmux -L "$SOCK" "$@"; }
cleanup() { T kill-server >/dev/null 2>&1; }
trap cleanup EXIT

# A kernel whose block names are worth completing.
cat >"$W/kernel.tvs" <<'EOF'
@I.ir_module
class Kernel:
    @T.prim_func
    def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"),
             C: T.Buffer((64, 64), "float32")):
        Y = T.alloc_buffer((64, 64), "float32")
        for i, j, k in T.grid(64, 64, 64):
            with T.block("matmul"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(64, 64):
            with T.block("relu_out"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = T.max(Y[vi, vj], T.float32(0))
EOF

screen() { T capture-pane -p -t repl; }
# wait_for TEXT: polls the screen (5 s) until it shows TEXT; 0 if it did.
wait_for() {
  for _ in $(seq 1 100); do
    screen | grep -qF -- "$1" && return 0
    sleep 0.05
  done
  return 1
}
# check "description" TEXT: the screen shows TEXT (waiting for it).
check() {
  if wait_for "$2"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: $1: the screen lacks: $2"; screen | sed 's/^/  | /'; fi
}
# the last non-empty line of the screen
last_line() { screen | sed '/^$/d' | tail -n 1; }
check_last() {
  local got
  for _ in $(seq 1 100); do
    got=$(last_line)
    [ "$got" = "$2" ] && break
    sleep 0.05
  done
  if [ "$got" = "$2" ]; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: $1: the line reads '$got', expected '$2'"; fi
}
keys() { T send-keys -t repl "$@"; }

T new-session -d -s repl -x 150 -y 50 \
  "cd '$W' && env HOME='$W/home' TERM=xterm-256color PAGER='sh -c \"cat; echo PAGED-END\"' '$TVS' repl kernel.tvs; echo '[repl exited]'; sleep 30"

check "banner" "tvs repl: schedule statements"
check "module loaded" "loaded kernel.tvs (module Kernel)"
check_last "prompt" ">>>"

# TAB completes a block name inside the string and closes the quote.
keys -l 'b = sch.get_block("mat'
keys Tab
check_last "block name completion" '>>> b = sch.get_block("matmul"'
keys ')' Enter
keys -l 'i, j, k = sch.get_loops(b)'
keys Enter
# TAB completes a method after `sch.`.
keys -l 'j0, j1 = sch.spl'
keys Tab
check_last "method completion" '>>> j0, j1 = sch.split'
# ... and a keyword argument inside its parentheses.
keys -l '(j, fac'
keys Tab
check_last "keyword completion" '>>> j0, j1 = sch.split(j, factors='
keys -l '[None, 8])'
keys Enter
# Several candidates are listed under the line.
keys -l 'sch.get_'
keys Tab
check "candidates listed" "get_consumers"
check "candidates listed (2)" "get_loops"
keys C-a C-k
# A command and a block-name argument.
keys -l ':loop'
keys Tab
check_last "command completion" '>>> :loops'
keys -l 'rel'
keys Tab
check_last "block name argument" '>>> :loops relu_out'
keys Enter
check "command output" "loops around block relu_out in main, outer to inner:"
keys -l ':loops matmul'
keys Enter
check "split applied" "j_1        range(8)"
# The up arrow recalls the last line; Enter runs it again.
keys Up
check_last "up arrow recalls" '>>> :loops matmul'
keys Enter
sleep 0.3
n=$(screen | grep -c "loops around block matmul")
if [ "$n" -ge 2 ]; then pass=$((pass + 1)); else
  fail=$((fail + 1)); echo "FAIL: the recalled line did not run again ($n outputs)"; fi
# An error keeps the state; the caret sits under the argument.
keys -l 'sch.vectorize(b)'
keys Enter
check "error message" "vectorize: argument 'loop' must be a LoopRV"
check "caret" "              ^"
# Ctrl-R searches the history.
keys C-l
keys C-r
keys -l 'get_lo'
check "reverse search finds" "i, j, k = sch.get_loops(b)"
keys C-g C-a C-k
# Multi-line input shows the continuation prompt.
keys -l 'x = sch.get_loops('
keys Enter
check_last "continuation prompt" '...'
keys -l 'b)'
keys Enter
keys -l 'x'
keys Enter
check "multi-line result" "[l"
# IR is coloured on a terminal.
keys -l ':show'
keys Enter
check "show" 'with T.block("matmul"):'
if T capture-pane -p -e -t repl | grep -q $'\033\\['; then pass=$((pass + 1)); else
  fail=$((fail + 1)); echo "FAIL: no colour in the IR on a terminal"; fi
# With :set pager on, a long output (the LLVM IR) goes through $PAGER ("cat"
# piped to a marker here, so the test does not depend on less).
keys -l ':set pager on'
keys Enter
check "pager setting" "pager on"
keys C-l
keys -l ':show llvm'
keys Enter
check "paged output" "PAGED-END"
keys -l ':quit'
keys Enter
check "quit" "[repl exited]"
# (sanitizer builds: nothing reported at exit)
if screen | grep -q "Sanitizer"; then
  fail=$((fail + 1)); echo "FAIL: sanitizer report:"; screen | grep -v '^$' | tail -30
else pass=$((pass + 1)); fi
if grep -qF 'sch.get_loops(b)' "$W/home/.tvs_history" 2>/dev/null; then pass=$((pass + 1)); else
  fail=$((fail + 1)); echo "FAIL: no history saved in \$HOME/.tvs_history"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
