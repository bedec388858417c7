#!/usr/bin/env bash
# test_tune_cli.sh - `tvs tune` as a user drives it, on a 32x32x32 matmul with
# a few trials: the database, the printed and written best schedule, the
# SVG curve, --top, `tvs run --tuning-db` (same results as untuned), `tvsc
# --tuning-db` (the tuned loop nest, a .so that computes the same),
# a crashing, a hanging and a wrong candidate recorded and skipped, a tuning
# run killed mid-way leaving a database that loads and --resume finishing
# it, the analytic first candidate, a user's script as the design space,
# whole-model tuning of an MLP, usage errors, the offline replay of the
# cost model over the log (alone and with a history, make_history.sh's
# among them), and (when mpirun exists) an
# MPI run finding the same best as one process under injected times.
# usage: test_tune_cli.sh TVS WORKDIR
set -u
TVS=$(realpath "$1")
TVSC=${TVSC:-$(dirname "$TVS")/tvsc}
W=$2
rm -rf "$W" && mkdir -p "$W"
cd "$W" || exit 1
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
expect() { if eval "$1"; then ok; else bad "$1"; fi; }
# Two `tvs run` summaries that agree to 1e-4 relative: a tuned schedule may sum
# in another order (tiles, vector lanes, FMA), which moves the 6th digit.
same_numbers() {
  [ "$(sed 's/[-0-9.e+]*[0-9]//g' "$1")" = "$(sed 's/[-0-9.e+]*[0-9]//g' "$2")" ] &&
    paste <(grep -oE -- '-?[0-9][0-9.e+-]*' "$1") <(grep -oE -- '-?[0-9][0-9.e+-]*' "$2") |
    awk '{d = $1 - $2; if (d < 0) d = -d; m = ($1 < 0 ? -$1 : $1); if (m < 1) m = 1; if (d > 1e-4 * m) bad = 1}
         END {exit bad}'
}

# matmul M N K: a plain (M, K) x (K, N) fp32 matmul called mm, on stdout.
matmul() {
  cat <<TVS
@T.prim_func
def mm(A: T.Buffer(($1, $3), "float32"), B: T.Buffer(($3, $2), "float32"), C: T.Buffer(($1, $2), "float32")):
    T.func_attr({"global_symbol": "mm", "tir.noalias": True})
    for i, j, k in T.grid($1, $2, $3):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
TVS
}

matmul 32 32 32 > mm.tvs

# A real (timed) run: records, the script, the curve.
"$TVS" tune mm.tvs --trials 6 --batch 3 --seed 2 --budget-ms 5 --db log.jsonl --plot curve.svg -o best.sch.tvs \
  > out.txt 2> err.txt
expect '[ $? -eq 0 ]'
expect '[ "$(wc -l < log.jsonl)" -eq 6 ]'
expect 'grep -q "^# mm: best .* GFLOP/s .* after 6 trials" out.txt'
expect 'grep -q "sample_perfect_tile" best.sch.tvs'
expect 'grep -q "trial 6/6" err.txt'
expect 'grep -q "<polyline" curve.svg'
expect 'grep -q "\"status\": \"ok\"" log.jsonl'
"$TVS" tune --top 2 --db log.jsonl > top.txt
expect '[ "$(grep -c "^# [12]: mm" top.txt)" -eq 2 ]'
# The offline replay of the cost model (bench/tune/replay_model.c) reads the
# log back: one pool of 6 points; a missing log, one with nothing to replay
# and a bad option are errors.
REPLAY=${REPLAY:-$(dirname "$TVS")/bench/bench_tune_replay}
"$REPLAY" --seeds 3 --trials 6 --batch 3 log.jsonl > replay.txt 2>&1
expect '[ $? -eq 0 ] && grep -qE "^mm +6 " replay.txt'
"$REPLAY" missing.jsonl > replay_missing.txt 2>&1
expect '[ $? -eq 1 ] && grep -q "cannot read .missing.jsonl." replay_missing.txt'
"$REPLAY" log.jsonl missing.jsonl > replay_missing2.txt 2>&1  # after a log that loaded
expect '[ $? -eq 1 ] && grep -q "cannot read .missing.jsonl." replay_missing2.txt'
printf 'not a tuning log\n' > garbled_log.jsonl
"$REPLAY" garbled_log.jsonl > replay_garbled.txt 2>&1
expect '[ $? -eq 1 ] && grep -q "holds no record to replay (1 line did not parse)" replay_garbled.txt'
"$REPLAY" --seeds 0 log.jsonl > replay_bad.txt 2>&1
expect '[ $? -eq 2 ] && grep -q "bad option value" replay_bad.txt'
# The tuned schedule computes what the untuned function computes.
"$TVS" run mm.tvs > plain.txt && "$TVS" run mm.tvs --tuning-db log.jsonl > tuned.txt
expect 'same_numbers plain.txt tuned.txt'
"$TVS" run mm.tvs --schedule best.sch.tvs > script.txt
expect 'same_numbers plain.txt script.txt'
# tvsc applies the same records: the same lowered loop nest as `tvs show`, and a .so.
"$TVS" show mm.tvs --tuning-db log.jsonl --stage tir > show_tuned.tvs
"$TVSC" mm.tvs --tuning-db log.jsonl --emit tir > tvsc_tuned.tvs
expect 'cmp -s show_tuned.tvs tvsc_tuned.tvs'
expect '! cmp -s show_tuned.tvs <("$TVS" show mm.tvs --stage tir)'
expect '"$TVSC" mm.tvs --tuning-db log.jsonl -o mm_tuned.so'
"$TVS" run mm_tuned.so > so.txt
expect 'same_numbers plain.txt so.txt'
expect '! "$TVSC" mm.tvs --tuning-db /nonexistent/log.jsonl -o bad.so 2> bad_db.txt'
expect 'grep -q "nonexistent" bad_db.txt && [ ! -e bad.so ]'

# Transfer learning: another workload (a 32x64 by 64x32 matmul) tuned with the
# cost model first trained on log.jsonl's six records of mm; its own log holds
# mm's text, a log that does not exist is an error, and unreadable lines are
# counted.
sed -e 's/(32, 32), "float32"), B/(32, 64), "float32"), B/' -e 's/B: T.Buffer((32, 32)/B: T.Buffer((64, 32)/' \
  -e 's/T.grid(32, 32, 32)/T.grid(32, 32, 64)/' mm.tvs > mm64.tvs
expect 'grep -q "def mm(" log.jsonl && grep -q "\"prim_func\": \"" log.jsonl'
TVS_TUNE_FAKE_TIME=1 "$TVS" tune mm64.tvs --trials 4 --batch 2 --transfer log.jsonl > transfer.txt 2> transfer_err.txt
expect '[ $? -eq 0 ] && grep -q "the cost model starts from 6 records of other workloads in .log.jsonl." transfer_err.txt'
TVS_TUNE_FAKE_TIME=1 "$TVS" tune mm.tvs --trials 2 --transfer log.jsonl 2> self_err.txt > /dev/null
expect '[ $? -eq 0 ] && grep -q "starts from 0 records" self_err.txt'
"$TVS" tune mm64.tvs --trials 2 --transfer /nonexistent/old.jsonl > /dev/null 2> no_transfer.txt
expect '[ $? -eq 1 ] && grep -q "cannot read the transfer log ./nonexistent/old.jsonl." no_transfer.txt'
printf 'not json\n{"workload": "torn\n' > garbled.jsonl
TVS_TUNE_FAKE_TIME=1 "$TVS" tune mm64.tvs --trials 2 --transfer garbled.jsonl > /dev/null 2> garbled_err.txt
expect '[ $? -eq 0 ] && grep -q "starts from 0 records of other workloads in .garbled.jsonl. (2 unreadable lines skipped)" garbled_err.txt'
# The replay with a history: log.jsonl's mm 32^3 trains the prior and is not
# replayed itself; only the 64^3 workload's 4 points are.  A history that is
# all there is to replay is an error.
TVS_TUNE_FAKE_TIME=1 "$TVS" tune mm64.tvs --trials 4 --batch 2 --db log64.jsonl > /dev/null 2>&1
"$REPLAY" --seeds 2 --trials 4 --batch 2 --history log.jsonl log64.jsonl > replay_hist.txt 2>&1
expect '[ $? -eq 0 ] && grep -qE "^mm +4 " replay_hist.txt && ! grep -qE "^mm +6 " replay_hist.txt'
"$REPLAY" --history log.jsonl log.jsonl > replay_self.txt 2>&1
expect '[ $? -eq 1 ] && grep -q "no workload to replay apart from the history" replay_self.txt'
# bench/tune/make_history.sh measures the history of eight other kernels
# (here 2 trials each, times faked); the replay and --transfer read it.
TVS_TUNE_FAKE_TIME=1 bash "$TVS_SOURCE_DIR/bench/tune/make_history.sh" "$(dirname "$TVS")" hist 2 > hist.txt 2>&1
expect '[ $? -eq 0 ] && [ "$(ls hist/*.jsonl | wc -l)" -eq 8 ] && [ "$(cat hist/*.jsonl | wc -l)" -eq 16 ]'
"$REPLAY" --seeds 2 --trials 4 --batch 2 $(printf -- '--history %s ' hist/*.jsonl) log64.jsonl > replay_hist8.txt 2>&1
expect '[ $? -eq 0 ] && grep -qE "^mm +4 " replay_hist8.txt'
cat hist/*.jsonl > hist_all.jsonl
TVS_TUNE_FAKE_TIME=1 "$TVS" tune mm64.tvs --trials 2 --batch 2 --transfer hist_all.jsonl > /dev/null 2> hist_transfer.txt
expect '[ $? -eq 0 ] && grep -q "starts from 16 records of other workloads" hist_transfer.txt'
bash "$TVS_SOURCE_DIR/bench/tune/make_history.sh" > hist_usage.txt 2>&1
expect '[ $? -ne 0 ] && grep -q "usage: make_history.sh" hist_usage.txt'
bash "$TVS_SOURCE_DIR/bench/tune/make_history.sh" /nonexistent hist_bad > hist_nobuild.txt 2>&1
expect '[ $? -eq 1 ] && grep -q "no tvs in ./nonexistent." hist_nobuild.txt'
bash "$TVS_SOURCE_DIR/bench/tune/make_history.sh" "$(dirname "$TVS")" hist_bad 0 > hist_fail.txt 2>&1
expect '[ $? -eq 1 ] && grep -q "tuning add_relu failed" hist_fail.txt && grep -q "needs an integer" hist_fail.txt'
"$REPLAY" --history missing_hist.jsonl log64.jsonl > replay_nohist.txt 2>&1
expect '[ $? -eq 1 ] && grep -q "cannot read .missing_hist.jsonl." replay_nohist.txt'

# A user's design space: a schedule script whose sample_* calls are the knobs.
cat > space.sch.tvs <<'SCH'
b = sch.get_block("C")
i, j, k = sch.get_loops(b)
i0, i1 = sch.split(i, factors=sch.sample_perfect_tile(i, n=2, max_innermost_factor=8))
j0, j1 = sch.split(j, factors=sch.sample_perfect_tile(j, n=2))
sch.reorder(i0, j0, k, i1, j1)
SCH
TVS_TUNE_FAKE_TIME=1 "$TVS" tune mm.tvs --space space.sch.tvs --trials 4 --batch 2 > space.txt 2> /dev/null
expect '[ $? -eq 0 ] && grep -q "sch.reorder(l" space.txt && grep -q "max_innermost_factor=8" space.txt'
echo 'sch.nope()' > bad.sch.tvs
"$TVS" tune mm.tvs --space bad.sch.tvs --trials 2 > /dev/null 2> bad.txt
expect '[ $? -eq 1 ] && grep -q "design-space script, line 1: schedule has no method .nope." bad.txt'

# A GPU target: the design space of bench/gpu/ (thread bindings, shared tiles,
# virtual threads), candidates run on OpenCL (PoCL) and checked against the
# untuned function on the CPU.  Without --space a matmul-like function gets the
# generated GPU space, any other the GPU fallback's space with sampled threads
# per block (AutoBind); a loop nest the fallback cannot bind is refused, saying why.
cat > imperfect.tvs <<'TVS'
@T.prim_func
def two(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.block("X"):
            vi = T.axis.spatial(16, i)
            B[vi] = A[vi]
        with T.block("Y"):
            vi = T.axis.spatial(16, i)
            B[vi] = B[vi] + T.float32(1)
TVS
"$TVS" tune imperfect.tvs --target cuda --trials 2 > /dev/null 2> nospace.txt
expect '[ $? -eq 1 ] && grep -q "no GPU design space is generated (.two. has a loop nest the GPU fallback does not bind" nospace.txt'
if "$TVS" run "${TVS_SOURCE_DIR:-/nonexistent}/tests/gpu/ewise.tvs" --target opencl > /dev/null 2>&1; then
  "$TVS" tune mm.tvs --target opencl --space "$TVS_SOURCE_DIR/bench/gpu/matmul_gpu_space.sch.tvs" --trials 3 \
    --batch 3 --seed 3 --db gpu.jsonl > gpu.txt 2> gpu_err.txt
  expect '[ $? -eq 0 ] && grep -q "^# mm: best .* GFLOP/s .* after 3 trials" gpu.txt && grep -q "thread_axis=\"vthread.y\"" gpu.txt'
  expect 'grep -q "\"status\": \"ok\"" gpu.jsonl && grep -q "\"target\": \"opencl\"" gpu.jsonl'
  # No measured candidate runs more than 8 virtual threads (vthread.y x
  # vthread.x, the second factors of the row and column tiles); those the
  # sampler drew are dropped before measuring, and a space of nothing else
  # is an error that says why.
  expect '! grep -oE "\"decisions\": \[\[[0-9]+, [0-9]+, [0-9]+, [0-9]+\], \[[0-9]+, [0-9]+" gpu.jsonl |
    awk -F"[][, ]+" "{ if (\$3 * \$7 > 8) bad = 1 } END { exit !bad }"'
  cat > vt.sch.tvs <<'SCH'
b = sch.get_block("C")
i, j, k = sch.get_loops(b)
t = sch.sample_categorical(candidates=[1, 2], probs=[0.5, 0.5])
by, vy, ty = sch.split(i, factors=[1, 16, 2])
bx, vx, tx = sch.split(j, factors=[1, 16, 2])
sch.reorder(by, bx, vy, vx, ty, tx, k)
sch.bind(by, "blockIdx.y")
sch.bind(bx, "blockIdx.x")
sch.bind(vy, "vthread.y")
sch.bind(vx, "vthread.x")
sch.bind(ty, "threadIdx.y")
sch.bind(tx, "threadIdx.x")
SCH
  "$TVS" tune mm.tvs --target opencl --space vt.sch.tvs --trials 2 > vt.txt 2> vt_err.txt
  expect '[ $? -eq 1 ] && grep -q "every sampled candidate of .mm. was dropped before measuring: 256 virtual threads per thread (vthread.y 16 x vthread.x 16): at most 8" vt_err.txt'
  "$TVS" tune mm.tvs --target opencl --trials 3 --batch 3 --seed 3 --db gpu_gen.jsonl > gpu_gen.txt 2> gpu_gen_err.txt
  expect '[ $? -eq 0 ] && grep -q "^# mm: best .* after 3 trials (0 failed)" gpu_gen.txt && grep -q "thread_axis=\"threadIdx.x\"" gpu_gen.txt'
  "$TVS" tune "$TVS_SOURCE_DIR/examples/mm_relu.tvs" --target opencl --trials 3 --batch 3 > bind.txt 2> /dev/null
  expect '[ $? -eq 0 ] && grep -q "after 3 trials (0 failed)" bind.txt && grep -q "sample_categorical(candidates=\[32, 64, 128, 256, 512, 1024\]" bind.txt'
  # Whole-model tuning on the GPU: each task in its GPU space, the GPU default
  # schedule as the baseline; the tuned model runs the same on OpenCL.
  "$TVS" tune "$TVS_SOURCE_DIR/examples/mlp.tvs" --population 32 --target opencl --trials 4 --batch 2 --db mlp_gpu.jsonl > mlp_gpu.txt 2> /dev/null
  expect '[ $? -eq 0 ] && [ "$(grep -c "^# task fused_.*default schedule" mlp_gpu.txt)" -eq 2 ] && grep -q "\"target\": \"opencl\"" mlp_gpu.jsonl'
  "$TVS" run "$TVS_SOURCE_DIR/examples/mlp.tvs" --target opencl > mlp_gpu_plain.txt
  "$TVS" run "$TVS_SOURCE_DIR/examples/mlp.tvs" --target opencl --tuning-db mlp_gpu.jsonl > mlp_gpu_run.txt
  expect 'same_numbers mlp_gpu_plain.txt mlp_gpu_run.txt'
  # The tuned task is not the module's first function (the softmax is): its
  # GPU space works on its own function (a space once ran on the first).
  cat > sm_mm.tvs <<'TVS'
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((16, 64), "float32"), w: R.Tensor((64, 64), "float32")) -> R.Tensor((16, 64), "float32"):
        s = R.nn.softmax(x, axis=-1)
        y = R.matmul(s, w)
        return y
TVS
  "$TVS" tune sm_mm.tvs --population 32 --target opencl --trials 2 --batch 2 --db sm_mm.jsonl > sm_mm.txt 2> sm_mm_err.txt
  expect '[ $? -eq 0 ] && [ "$(grep -c "\"func\": \"matmul\", \"target\": \"opencl\", \"threads\": 1, \"status\": \"ok\"" sm_mm.jsonl)" -ge 1 ]'
  "$TVS" run sm_mm.tvs --target opencl > sm_mm_plain.txt
  "$TVS" run sm_mm.tvs --target opencl --tuning-db sm_mm.jsonl > sm_mm_run.txt
  expect 'cmp -s sm_mm_plain.txt sm_mm_run.txt'
else
  echo "[SKIP] OpenCL: GPU tuning"
fi

# Faults: a crash, a hang (killed after --timeout 8) and a wrong result.
TVS_TUNE_FAKE_TIME=1 TVS_TUNE_FAULT=crash=0,hang=1,wrong=2 "$TVS" tune mm.tvs --trials 5 --batch 5 --timeout 8 \
  --db faults.jsonl > fout.txt 2> ferr.txt
expect '[ $? -eq 0 ]'
expect 'grep -q "\"status\": \"crash\"" faults.jsonl'
expect 'grep -q "\"status\": \"timeout\"" faults.jsonl'
expect 'grep -q "\"status\": \"wrong_result\"" faults.jsonl'
expect 'grep -q "\"error\": \"worker died: Segmentation fault\"" faults.jsonl'
expect 'grep -q "after 5 trials ([345] failed)" fout.txt'
expect 'grep -q "trial 1/5: crash: worker died" ferr.txt'

# Killed mid-way: the database loads, --resume finishes the budget.
TVS_TUNE_FAKE_TIME=1 TVS_TUNE_FAULT=hang=3 "$TVS" tune mm.tvs --population 32 --trials 8 --batch 1 --timeout 30 --db kill.jsonl \
  > /dev/null 2>&1 &
pid=$!
for _ in $(seq 1 600); do [ -s kill.jsonl ] && [ "$(wc -l < kill.jsonl)" -ge 3 ] && break; sleep 0.1; done
sleep 0.3
kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
pkill -9 -P $pid 2>/dev/null
n=$(wc -l < kill.jsonl)
expect '[ "$n" -ge 3 ] && [ "$n" -lt 8 ]'
expect '"$TVS" tune --top 1 --db kill.jsonl > /dev/null'
TVS_TUNE_FAKE_TIME=1 "$TVS" tune mm.tvs --population 32 --trials 8 --batch 2 --db kill.jsonl --resume > /dev/null 2>&1
expect '[ $? -eq 0 ] && [ "$(wc -l < kill.jsonl)" -eq 8 ]'

# Whole-model tuning: the fused kernels of a graph function are the tasks;
# -o writes the fused module with the best schedules, which runs the same.
TVS_TUNE_FAKE_TIME=1 "$TVS" tune "$TVS_SOURCE_DIR/examples/mlp.tvs" --population 32 --trials 6 --batch 2 -o mlp_tuned.tvs \
  > mlp.txt 2> /dev/null
expect '[ $? -eq 0 ] && [ "$(grep -c "^# task fused_" mlp.txt)" -eq 2 ]'
expect 'grep -q "sample_perfect_tile\|T.parallel\|T.vectorized" mlp_tuned.tvs'
"$TVS" run "$TVS_SOURCE_DIR/examples/mlp.tvs" > mlp_plain.txt && "$TVS" run mlp_tuned.tvs > mlp_run.txt
expect 'same_numbers mlp_plain.txt mlp_run.txt'

# Each task's default schedule is measured first and kept as a "baseline"
# record; a function whose baseline beats its best record keeps the default
# schedule when the database is applied (tuning never slows a kernel down).
TVS_TUNE_FAKE_TIME=1 "$TVS" tune "$TVS_SOURCE_DIR/examples/mlp.tvs" --population 32 --trials 4 --batch 2 --db mlp.jsonl \
  > mlp2.txt 2> /dev/null
expect '[ "$(grep -c "\"status\": \"baseline\"" mlp.jsonl)" -eq 2 ]'
expect '[ "$(grep -c "default schedule [0-9.]* ms: \(tuned\|kept\)$" mlp2.txt)" -eq 2 ]'
# (the database applies to the fused module, which the graph passes then see
# again: its kernels carry the fusion pass's "op_pattern" note, ignored here)
"$TVS" show "$TVS_SOURCE_DIR/examples/mlp.tvs" --stage default-schedule > mlp_default.txt
sed 's/"status": "baseline", "median_ms": [0-9.e+-]*/"status": "baseline", "median_ms": 1e-09/' mlp.jsonl > mlp_fastbase.jsonl
"$TVS" show "$TVS_SOURCE_DIR/examples/mlp.tvs" --tuning-db mlp_fastbase.jsonl --stage default-schedule \
  | sed 's/"op_pattern": [0-9]*, //' > mlp_kept.txt
expect 'cmp -s mlp_default.txt mlp_kept.txt'
grep -v '"baseline"' mlp.jsonl > mlp_nobase.jsonl
"$TVS" show "$TVS_SOURCE_DIR/examples/mlp.tvs" --tuning-db mlp_nobase.jsonl --stage default-schedule > mlp_tuned2.txt
expect '! cmp -s mlp_default.txt mlp_tuned2.txt'

# The REPL: :tune applies the best schedule as a step (:diff shows it, :undo takes it back).
printf ':tune --trials 3 --seed 2\n:diff\n:undo\n:tune nope\n' | TVS_TUNE_FAKE_TIME=1 "$TVS" repl mm.tvs --keep-going \
  > repl.txt 2>&1
expect 'grep -q "^tuned mm: best .* after 3 trials" repl.txt && grep -q "^+.*T.parallel" repl.txt'
expect 'grep -q "^undid: v0 = sch.sample_categorical" repl.txt && grep -q "nope" repl.txt'

# The generated space on a matmul of 256 rows: row padding (pad_einsum to a
# multiple of 48: 288 rows) and B packed in panels ((j // t, k, j % t)) are
# sampled, and candidates with them compute the right result (every first run
# is checked against the interpreter: a wrong one is recorded wrong_result).
matmul 256 64 32 > mmp.tvs
TVS_TUNE_FAKE_TIME=1 "$TVS" tune mmp.tvs --trials 24 --batch 8 --seed 1 --db pad.jsonl > pad.txt 2> pad_err.txt
expect '[ $? -eq 0 ] && [ "$(wc -l < pad.jsonl)" -eq 24 ]'
expect '[ "$(grep "\"status\": \"ok\"" pad.jsonl | grep -c "pad_einsum(block=b[0-9]*, padding=\[48, 1, 1\])")" -ge 1 ]'
expect '[ "$(grep "\"status\": \"ok\"" pad.jsonl | grep -c "index_map=lambda v0, v1: (v1 // [0-9]*, v0, v1 % [0-9]*)")" -ge 1 ]'
expect '! grep -q "wrong_result" pad.jsonl'
# The analytic candidate (BLIS's model of this machine) is the first trial: a
# register tile of 6 or 12 rows needs the padded 288 rows; it computes the
# right result; --no-analytic leaves it out.
expect 'grep -q "the first batch holds the analytic candidate (register tile [0-9]* x [0-9]*" pad_err.txt'
expect 'head -1 pad.jsonl | grep "\"status\": \"ok\"" | grep -q "pad_einsum(block=b[0-9]*, padding=\[48, 1, 1\])"'
TVS_TUNE_FAKE_TIME=1 "$TVS" tune mmp.tvs --trials 2 --seed 1 --no-analytic > noan.txt 2> noan_err.txt
expect '[ $? -eq 0 ] && ! grep -q "analytic" noan_err.txt'
# a padded record applied: the same numbers as the plain function
grep "pad_einsum" pad.jsonl | grep "\"status\": \"ok\"" | head -1 > pad1.jsonl
"$TVS" run mmp.tvs > mmp_plain.txt
"$TVS" run mmp.tvs --tuning-db pad1.jsonl > mmp_pad.txt
expect 'same_numbers mmp_plain.txt mmp_pad.txt'
"$TVS" show mmp.tvs --tuning-db pad1.jsonl > mmp_pad.tvs
expect 'grep -q "A_pad = T.alloc_buffer((288, 32))" mmp_pad.tvs'

# Usage errors.
"$TVS" tune > /dev/null 2> e1.txt; expect '[ $? -eq 2 ] && grep -q "no input file" e1.txt'
"$TVS" tune mm.tvs --trials 0 > /dev/null 2> e2.txt; expect '[ $? -eq 2 ] && grep -q "trials" e2.txt'
"$TVS" tune missing.tvs > /dev/null 2> e3.txt; expect '[ $? -ne 0 ] && grep -q "missing.tvs" e3.txt'
"$TVS" tune mm.tvs --func nope > /dev/null 2> e4.txt; expect '[ $? -ne 0 ] && grep -q "no prim_func .nope." e4.txt'
"$TVS" tune --top 3 > /dev/null 2> e5.txt; expect '[ $? -eq 2 ] && grep -q "needs --db" e5.txt'
"$TVS" tune mm.tvs --epsilon 1.5 > /dev/null 2> e6.txt; expect '[ $? -eq 2 ] && grep -q "epsilon needs a number from 0 to 1" e6.txt'
"$TVS" tune mm.tvs --population 1 > /dev/null 2> e7.txt; expect '[ $? -eq 2 ] && grep -q "population needs an integer >= 2" e7.txt'

# MPI: rank 0 searches, ranks 1-2 measure; same best as one process.
if command -v mpirun > /dev/null && [ -z "${TVS_TEST_QUICK:-}" ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_warn_on_fork=0
  TVS_TUNE_FAKE_TIME=1 timeout 120 mpirun --oversubscribe -n 3 "$TVS" tune mm.tvs --population 32 --trials 8 --batch 4 --seed 5 \
    --db mpi.jsonl > mpi.txt 2> mpi_err.txt
  expect '[ $? -eq 0 ] && [ "$(wc -l < mpi.jsonl)" -eq 8 ]'
  TVS_TUNE_FAKE_TIME=1 "$TVS" tune mm.tvs --population 32 --trials 8 --batch 4 --seed 5 > single.txt 2> /dev/null
  expect 'cmp -s mpi.txt single.txt'
else
  echo "[SKIP] mpirun"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
