#!/bin/sh
# Profiles only the timed part of write_bench:
#   bench/table/perf_write.sh /tmp/write_bench WAREHOUSE ROWS|FILE.parquet [args...]
# then: perf report -i perf.data --no-children
set -e
bin=$1; shift
fifo=$(mktemp -u /tmp/perfctl.XXXXXX)
mkfifo "$fifo"
rm -rf "$1"
PERF_CTL_FIFO=$fifo perf record -g -D -1 --control "fifo:$fifo" -o "${PERF_OUT:-perf.data}" "$bin" "$@"
rm -f "$fifo"
