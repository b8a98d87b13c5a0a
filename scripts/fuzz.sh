#!/usr/bin/env bash
# Runs every libFuzzer target in a fuzz build directory for a bounded time,
# starting from the committed seeds in fuzz/corpus/<target>/. New inputs go to
# a scratch corpus (not committed); a crash fails the run and leaves the input
# in fuzz/findings/<target>/.
# Usage: scripts/fuzz.sh BUILD_DIR SECONDS_PER_TARGET
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bdir=${1:?build dir}
secs=${2:-20}
status=0
for bin in "$bdir"/fuzz_*; do
  [ -x "$bin" ] || continue
  name=$(basename "$bin")
  seeds="$root/fuzz/corpus/$name"
  work=$(mktemp -d)
  mkdir -p "$root/fuzz/findings/$name"
  log="$work/log"
  if ASAN_OPTIONS=detect_leaks=1 "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
       -artifact_prefix="$root/fuzz/findings/$name/" "$work" "$seeds" >"$log" 2>&1; then
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || true)
    # "Done N runs in S second(s)" (the recommended-dictionary lines after
    # the last status line may contain "#<digits>" too)
    [ -n "$execs" ] || execs=$(grep -Eo '^Done [0-9]+ runs' "$log" | tail -1 | grep -Eo '[0-9]+' || true)
    [ -n "$execs" ] || execs=$(grep -Eo '^#[0-9]+' "$log" | tail -1 | tr -d '#')
    echo "fuzz $name: ok, ${execs:-?} executions in ${secs}s"
  else
    echo "fuzz $name: FAILED" >&2
    tail -40 "$log" >&2
    status=1
  fi
  rm -rf "$work"
done
exit $status
