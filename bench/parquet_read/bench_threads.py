"""Table read scaling with read.threads: one append table (issue 19's 10-column
data, written by paimonc in several files), read whole through
`table.new_read_builder()...to_arrow()` with read.threads=1 and =2 in
interleaved rounds; prints the medians and the speed-up.

    .venv/bin/python bench/parquet_read/bench_threads.py [--rows 3000000] [--files 6]
        [--rounds 7] [--dir /tmp/pqthreads]
"""
import argparse
import os
import shutil
import statistics
import sys
import time

import pyarrow as pa

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_kinds import issue_table  # noqa: E402

import paimonc  # noqa: E402


def build(wh, rows, files):
    if os.path.exists(wh):
        shutil.rmtree(wh)
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("b", True)
    t = issue_table(rows)
    schema = paimonc.Schema.from_pyarrow_schema(t.schema)
    cat.create_table("b.t", schema, False)
    table = cat.get_table("b.t")
    step = (rows + files - 1) // files
    for i in range(files):
        wb = table.new_batch_write_builder()
        w = wb.new_write()
        w.write_arrow(t.slice(i * step, step))
        wb.new_commit().commit(w.prepare_commit())
        w.close()
    return table


def read(table, threads):
    tb = table.copy({"read.threads": str(threads)})
    rb = tb.new_read_builder()
    return rb.new_read().to_arrow(rb.new_scan().plan().splits())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=3_000_000)
    ap.add_argument("--files", type=int, default=6)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--dir", default="/tmp/pqthreads")
    args = ap.parse_args()
    wh = os.path.join(args.dir, "wh_%d_%d" % (args.rows, args.files))
    if os.path.exists(os.path.join(wh, "b.db", "t")):
        table = paimonc.CatalogFactory.create({"warehouse": wh}).get_table("b.t")
    else:
        table = build(wh, args.rows, args.files)
    n = read(table, 1).num_rows
    assert n == args.rows, n
    read(table, 2)
    times = {1: [], 2: []}
    for r in range(args.rounds):
        for th in ((1, 2) if r % 2 == 0 else (2, 1)):
            t0 = time.perf_counter()
            x = read(table, th)
            times[th].append(time.perf_counter() - t0)
            del x
    m1, m2 = statistics.median(times[1]), statistics.median(times[2])
    print("table of %d rows x 10 columns in %d files, %d rounds interleaved, median" % (args.rows, args.files,
                                                                                       args.rounds))
    print("read.threads=1 %.1f ms, read.threads=2 %.1f ms, speed-up %.2fx (cores: %d)" % (
        m1 * 1e3, m2 * 1e3, m1 / m2, os.cpu_count()))


if __name__ == "__main__":
    main()
