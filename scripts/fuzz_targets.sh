# fuzz_targets.sh - sourced by fuzz_smoke.sh and fuzz_campaign.sh: the libFuzzer
# targets and, for each, the directories of inputs it starts from.  The first
# directory of each list is the target's own seed directory (where a campaign's
# --merge-seeds adds the inputs that reach new code).
# shellcheck disable=SC2034
fuzz_targets=(fuzz_frontend fuzz_npy fuzz_sched fuzz_interp fuzz_lsp fuzz_onnx)
declare -A fuzz_seeds=(
  [fuzz_frontend]="tests/fuzz/seeds tests/corpus tests/lit/sched/Inputs"
  [fuzz_npy]="tests/fuzz/seeds_npy"
  [fuzz_sched]="tests/fuzz/seeds_sched tests/lit/sched/Inputs"
  [fuzz_interp]="tests/fuzz/seeds_interp tests/corpus"
  [fuzz_lsp]="tests/lsp/fuzz_seeds"
  [fuzz_onnx]="tests/fuzz/seeds_onnx"
)
# The options every run shares: leaks and UB are findings, a slow input is one too.
fuzz_env=(ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1)
fuzz_flags=(-timeout=10 -rss_limit_mb=2048 -max_len=16384)
