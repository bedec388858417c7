#!/usr/bin/env bash
# test_examples.sh - every command of examples/README.md runs as written (from
# a scratch directory that sees the examples), and a few results are checked:
# the TE kernel equals the TensorIR one, the scheduled kernels compute what the
# unscheduled ones do, the exercise pair is equal.
set -uo pipefail
tvs=$1 work=$2
src=${TVS_SOURCE_DIR:?}
tvsc=${TVSC:?}
rm -rf "$work" && mkdir -p "$work/build" && cd "$work"
ln -s "$src/examples" examples
ln -s "$tvs" build/tvs
ln -s "$tvsc" build/tvsc
# `python3` in the README is Debian's (numpy, torch): the one the build found
mkdir -p bin && ln -s "${PYTHON3:-/usr/bin/python3}" bin/python3
export PATH="$PWD/bin:$PATH"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# Every "$ " line of the README's sh block, exactly as written.
n=0
while IFS= read -r cmd; do
  n=$((n + 1))
  if bash -c "$cmd" >"out$n.txt" 2>&1; then ok; else bad "examples/README.md: '$cmd'"; cat "out$n.txt"; fi
done < <(sed -n 's/^\$ //p' "$src/examples/README.md")
[ "$n" -ge 8 ] && ok || bad "only $n commands found in examples/README.md"

# Results, not just exit codes.
"$tvs" equal examples/te_mm_relu.tvs examples/mm_relu.tvs >/dev/null 2>&1 && ok || bad "te_mm_relu.tvs differs from mm_relu.tvs"
"$tvs" equal examples/student.tvs examples/expected.tvs >/dev/null 2>&1 && ok || bad "student and expected differ"
# (scheduled file : its unscheduled twin : schedule options), native vs interpreter
for triple in "mm_relu_scheduled.tvs:mm_relu.tvs:" "conv2d.tvs:conv2d.tvs:--schedule examples/conv2d_schedule.py"; do
  file=${triple%%:*} rest=${triple#*:}
  twin=${rest%%:*} sched=${rest#*:}
  plain=$("$tvs" run "examples/$twin" --target interp 2>&1 | tail -1)
  # shellcheck disable=SC2086  (products rounded as the interpreter rounds them: same summary)
  native=$("$tvs" run "examples/$file" $sched --fp-contract off 2>&1 | tail -1)
  [ -n "$plain" ] && [ "${plain%% sum=*}" = "${native%% sum=*}" ] && ok || bad "$file: '$native' vs '$plain'"
done
grep -q "GFLOP/s" out3.txt && ok || bad "mm_relu_scheduled --time printed no GFLOP/s"
grep -q "T.vectorized" out4.txt && ok || bad "the scheduled mm_relu is not vectorized"
grep -q "def matmul" out7.txt && grep -q "R.call_tir" out7.txt && ok || bad "mlp legalize shows no matmul prim_func"
grep -q "^fused_conv2d_add_relu " out9.txt && grep -q "^whole graph: median" out9.txt && ok || bad "cnn --profile shows no fused kernel"
grep -q "subgraph cluster_" cnn.dot && ok || bad "cnn.dot has no cluster for the fused kernels"
grep -q "whole graph, native\|median" out12.txt && ok || bad "block.so --time printed no time"
echo "examples: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
