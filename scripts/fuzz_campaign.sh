#!/usr/bin/env bash
# fuzz_campaign.sh TARGET [SECONDS] - one long libFuzzer campaign: builds TARGET at
# -O1 with clang in build-fuzz-O1/, runs it for SECONDS (default 1800) at nice 19
# over a working corpus that persists between campaigns (build-fuzz-O1/corpus/TARGET,
# grown from the target's seeds), and reports executions, coverage and any finding.
#   --merge-seeds   afterwards, add to the target's seed directory the working-corpus
#                   inputs that reach code the seeds do not (libFuzzer's -merge=1)
#   --keep-grown    afterwards, store the working corpus as tests/fuzz/grown/TARGET.tar.xz
#                   (the grown corpus kept in the repository: a new working corpus
#                   starts from it; ctest's replay and the smoke run keep the small
#                   seed directories)
#   --seed N        libFuzzer's random seed (default 1), so a campaign can be repeated
#   --jobs N        N fuzzing processes (default 1: the second core is shared)
#   --fresh         start from the seeds alone (a new working corpus: a large one
#                   takes minutes to load before any new input is tried)
#   FUZZ_NICE       niceness of the run (default 19: it yields to other work)
# A finding is kept as build-fuzz-O1/findings/TARGET-crash-* (or leak-, timeout-,
# oom-) and the script exits 1; replay it with `build-fuzz-O1/tests/TARGET FILE`.
# Example: scripts/fuzz_campaign.sh fuzz_sched 1800 --merge-seeds
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/fuzz_targets.sh
usage() { echo "usage: scripts/fuzz_campaign.sh TARGET [SECONDS] [--fresh] [--merge-seeds] [--keep-grown] [--seed N] [--jobs N]" >&2
          echo "targets: ${fuzz_targets[*]}" >&2; exit 2; }
[ $# -ge 1 ] || usage
t=$1; shift
[ -n "${fuzz_seeds[$t]+x}" ] || { echo "fuzz_campaign: unknown target '$t'" >&2; usage; }
secs=1800 merge=0 seed=1 jobs=1 fresh=0 keep=0
if [ $# -ge 1 ] && [[ $1 =~ ^[0-9]+$ ]]; then secs=$1; shift; fi
while [ $# -gt 0 ]; do
  case $1 in
    --merge-seeds) merge=1 ;;
    --fresh) fresh=1 ;;
    --keep-grown) keep=1 ;;
    --seed) [[ ${2:-} =~ ^[0-9]+$ ]] || usage; seed=$2; shift ;;
    --jobs) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || usage; jobs=$2; shift ;;
    *) echo "fuzz_campaign: unknown option '$1'" >&2; usage ;;
  esac
  shift
done
cc=$(command -v clang-14 || command -v clang || true)
[ -n "$cc" ] || { echo "fuzz_campaign: needs clang (apt-get install clang-14)" >&2; exit 2; }
dir=build-fuzz-O1
CC=$cc CFLAGS=-O1 cmake -S . -B "$dir" -G Ninja -DTVS_FUZZ=ON -DCMAKE_BUILD_TYPE= >/dev/null
cmake --build "$dir" --target "$t" | tail -1
bin=$(find "$dir/" -name "$t" -type f -perm -u+x | head -1)
corpus=$dir/corpus/$t findings=$dir/findings
[ "$fresh" = 1 ] && rm -rf "$corpus"
mkdir -p "$corpus" "$findings"
grown=tests/fuzz/grown/$t.tar.xz
if [ "$fresh" = 0 ] && [ -z "$(ls -A "$corpus")" ] && [ -f "$grown" ]; then
  tar -C "$corpus" -xJf "$grown"
  echo "fuzz_campaign: working corpus from $grown ($(ls "$corpus" | wc -l) inputs)"
fi
log=$dir/$t-$(date +%Y%m%d-%H%M%S).log
echo "fuzz_campaign: $t for $secs s (seed $seed, $jobs job(s)); log $log"
# Progress: libFuzzer's status lines (every doubling of executions and each
# minute's pulse) go to the log; one line a minute is echoed here.
status=0
# shellcheck disable=SC2086
env "${fuzz_env[@]}" nice -n "${FUZZ_NICE:-19}" "$bin" -max_total_time="$secs" -seed="$seed" "${fuzz_flags[@]}" \
  -print_final_stats=1 -artifact_prefix="$findings/$t-" \
  $( [ "$jobs" -gt 1 ] && echo "-jobs=$jobs -workers=$jobs" ) \
  "$corpus" ${fuzz_seeds[$t]} >"$log" 2>&1 &
pid=$!
while kill -0 "$pid" 2>/dev/null; do
  for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
  line=$(grep -aE '#[0-9]+' "$log" | tail -1 || true)
  [ -n "$line" ] && echo "  $(date +%H:%M:%S) ${line}"
done
wait "$pid" || status=$?
execs=$(grep -ao 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)
cov=$(grep -aoE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1 || true)
if [ "$status" -ne 0 ]; then
  echo "fuzz_campaign: $t FOUND A PROBLEM after ${execs:-?} executions:"
  grep -aE 'ERROR|error:|statement at line|SUMMARY|Test unit written' "$log" | head -20
  exit 1
fi
echo "fuzz_campaign: $t clean: ${execs:-?} executions in $secs s, $cov, corpus $(ls "$corpus" | wc -l) inputs"
if [ "$keep" = 1 ]; then
  mkdir -p tests/fuzz/grown
  tar -C "$corpus" -cJf "$grown" .
  echo "fuzz_campaign: $grown: $(ls "$corpus" | wc -l) inputs (commit it)"
fi
if [ "$merge" = 1 ]; then
  seeddir=${fuzz_seeds[$t]%% *}
  before=$(ls "$seeddir" | wc -l)
  env "${fuzz_env[@]}" "$bin" -merge=1 "${fuzz_flags[@]}" "$seeddir" "$corpus" >>"$log" 2>&1
  echo "fuzz_campaign: $seeddir: $before -> $(ls "$seeddir" | wc -l) inputs (review and commit them)"
fi
