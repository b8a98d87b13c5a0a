#!/usr/bin/env bash
# Runs the multi-process stress test (tests/unit/table/test_stress.c) in a
# long configuration on the RelWithDebInfo build: writers x commits through
# the public API with random batch sizes and INSERT OVERWRITEs, concurrent
# readers checking every snapshot they read exactly, and writers killed with
# SIGKILL and restarted (re-committing their in-flight commit), once on an
# unpartitioned and once on a partitioned table.
# Prints one summary line; exit status 1 when any check failed.
#
# Usage: scripts/stress.sh [BUILD_DIR]   (default: build; configured and built if needed)
# Environment (defaults): PAIMONC_STRESS_WRITERS (8), PAIMONC_STRESS_COMMITS (100),
#   PAIMONC_STRESS_READERS (3), PAIMONC_STRESS_KILLS (10 per table),
#   PAIMONC_STRESS_MAX_ROWS (5000), PAIMONC_STRESS_SEED (20240514),
#   PAIMONC_STRESS_KEEP=1 keeps the tables and logs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bdir=${1:-$root/build}
export PAIMONC_STRESS_WRITERS=${PAIMONC_STRESS_WRITERS:-8}
export PAIMONC_STRESS_COMMITS=${PAIMONC_STRESS_COMMITS:-100}
export PAIMONC_STRESS_READERS=${PAIMONC_STRESS_READERS:-3}
export PAIMONC_STRESS_KILLS=${PAIMONC_STRESS_KILLS:-10}

if [ ! -f "$bdir/build.ninja" ]; then
  cmake -S "$root" -B "$bdir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
ninja -C "$bdir" test_stress >/dev/null

log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$(date +%s)
status=0
"$bdir/test_stress" >"$log" 2>&1 || status=1
secs=$(( $(date +%s) - start ))

# "stress <kind>: writers=.. commits=.. overwrites=.. snapshots=.. reads_checked=.. readers=.. kills=..
#  resumed_in_flight=.. landed_before_kill=.. data_files=.. multi_file_commits=.. final_rows=.. lost=.. dup=.. seconds=.."
summary=$(awk '
  /^stress (unpartitioned|partitioned): / {
    tables++
    for (i = 3; i <= NF; i++) { split($i, kv, "="); sum[kv[1]] += kv[2] }
  }
  END {
    if (!tables) exit 1
    printf "stress: %d tables, %d writers x %d commits, %d readers: commits=%d overwrites=%d snapshots=%d data_files=%d reads_checked=%d kills=%d resumed_in_flight=%d landed_before_kill=%d lost=%d dup=%d",
      tables, sum["writers"] / tables, sum["commits"] / sum["writers"], sum["readers"] / tables,
      sum["commits"], sum["overwrites"], sum["snapshots"], sum["data_files"], sum["reads_checked"], sum["kills"],
      sum["resumed_in_flight"], sum["landed_before_kill"], sum["lost"], sum["dup"]
  }' "$log") || { summary="stress: no summary (the test crashed)"; status=1; }
[ "$(grep -c '^ok ' "$log")" = 2 ] || status=1

if [ $status -ne 0 ]; then
  grep -v '^stress \(un\)\?partitioned: ' "$log" | head -60 >&2
  echo "$summary in ${secs}s: FAILED"
  exit 1
fi
echo "$summary in ${secs}s: ok"
