#!/usr/bin/env bash
# Runs every libFuzzer target in a fuzz build directory for a bounded time,
# starting from the committed seeds in fuzz/corpus/<target>/. New inputs go to
# a scratch corpus (not committed); a crash fails the run and leaves the input
# in fuzz/findings/<target>/. Prints a markdown table at the end.
#
# Usage: scripts/fuzz.sh [-j N] BUILD_DIR SECONDS_PER_TARGET [TARGET...]
#   -j N      run N targets at once (default 1; each target is one process)
#   TARGET    fuzz_<name> or <name>; default: every fuzz_* in BUILD_DIR
# CI:    scripts/fuzz.sh -j 2 build-fuzz 20 (scripts/test.sh: -j nproc)
# Long:  scripts/fuzz.sh -j 2 build-fuzz 300
# Seeds: scripts/fuzz_seeds.py regenerates fuzz/corpus/*/gen-*.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=1
while getopts "j:" opt; do
  case $opt in
    j) jobs=$OPTARG ;;
    *) echo "usage: $0 [-j N] BUILD_DIR SECONDS [TARGET...]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
bdir=${1:?build dir}
secs=${2:-20}
shift 2 || shift $#

# -malloc_limit_mb: a single allocation above 256 MB is a finding. Inputs are
# at most a few KB when mutated (libFuzzer's -max_len defaults to the largest
# seed, <= 64 KB here); the largest legitimate allocations are a decompressed
# Parquet page (the targets cap pages at 16 MB via max_page_bytes) and Arrow
# buffers for rows that exist in the input, so 256 MB is 16x the largest
# legitimate buffer while a corrupt length/count that is trusted (2^31 * 8...)
# lands far above it. -rss_limit_mb bounds the total (ASan shadow included).
malloc_limit_mb=256
rss_limit_mb=2048

targets=()
if [ $# -gt 0 ]; then
  for t in "$@"; do targets+=("$bdir/fuzz_${t#fuzz_}"); done
else
  for bin in "$bdir"/fuzz_*; do
    [ -x "$bin" ] && [ -f "$bin" ] && targets+=("$bin")
  done
fi
[ ${#targets[@]} -gt 0 ] || { echo "no fuzz targets in $bdir" >&2; exit 1; }

results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT

run_one() {
  local bin=$1 name work log execs corp rc=0
  name=$(basename "$bin")
  work=$(mktemp -d)
  mkdir -p "$root/fuzz/findings/$name"
  log="$work/log"
  mkdir -p "$work/corpus"
  local start=$SECONDS
  ASAN_OPTIONS=detect_leaks=1 "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=$rss_limit_mb \
      -malloc_limit_mb=$malloc_limit_mb -print_final_stats=1 \
      -artifact_prefix="$root/fuzz/findings/$name/" "$work/corpus" "$root/fuzz/corpus/$name" \
      >"$log" 2>&1 </dev/null || rc=$?
  # "Done N runs in S second(s)" (the recommended-dictionary lines after the
  # last status line may contain "#<digits>" too)
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)
  [ -n "$execs" ] || execs=$(grep -Eo '^Done [0-9]+ runs' "$log" | tail -1 | grep -Eo '[0-9]+' || true)
  [ -n "$execs" ] || execs=$(grep -Eo '^#[0-9]+' "$log" | tail -1 | tr -d '#' || true)
  corp=$(grep -Eo 'corp: [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+' || true)
  if [ $rc -eq 0 ]; then
    echo "fuzz $name: ok, ${execs:-?} executions in ${secs}s"
    echo "ok" >"$results/$name.result"
  else
    {
      echo "fuzz $name: FAILED (exit $rc)"
      grep -E 'ERROR|SUMMARY|invariant|Test unit written' "$log" | head -10
      tail -40 "$log"
    } >&2
    echo "FAILED" >"$results/$name.result"
  fi
  echo "| $name | $((SECONDS - start)) | ${execs:-?} | ${corp:-?} | $(cat "$results/$name.result") |" \
    >"$results/$name.row"
  rm -rf "$work"
}

for bin in "${targets[@]}"; do
  [ -x "$bin" ] || { echo "fuzz $(basename "$bin"): not built" >&2; echo "| $(basename "$bin") | 0 | 0 | 0 | NOT BUILT |" >"$results/$(basename "$bin").row"; continue; }
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  run_one "$bin" &
done
wait

status=0
echo
echo "| target | seconds | executions | corpus | result |"
echo "|---|---:|---:|---:|---|"
for bin in "${targets[@]}"; do
  name=$(basename "$bin")
  cat "$results/$name.row"
  grep -q '| ok |$' "$results/$name.row" || status=1
done
exit $status
