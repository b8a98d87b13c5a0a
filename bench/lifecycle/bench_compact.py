#!/usr/bin/env python3
"""Compaction (issue 15): merge N small files (default 10,000) of an append
table, paimonc against Java Paimon 1.4.2's own compaction, in one run.

The table (id BIGINT, v STRING, x DOUBLE, p STRING partition of 4 values) is
written by paimonc in N / 100 commits of 100 * R rows, each rolled at R rows
per file (--rows-per-file, default 50; target-file-row-num on the write
only): 100 files of ~1-2 KB per commit at R = 50, N files in all. The table directory is copied; each copy is compacted
once with the table's defaults (target-file-size 256 MiB, open cost 4 MiB,
min file num 5: groups of 128 files per partition, as Java plans them):

  paimonc    Table.compact() (one process, timed around the call), with 1
             thread and with 2 (compaction.threads)
  java       AppendCompactCoordinator(table, false).run(), each task's
             doCompact, one commit: what Spark's compact procedure runs for an
             unaware-bucket table, in one JVM thread (timed inside the JVM;
             JVM start and table load are reported separately as wall time)

Both must plan the same number of groups, and each copy must read the same
row count and sums after compaction as before.

    .venv/bin/python bench/lifecycle/bench_compact.py                  # 10,000 files
    .venv/bin/python bench/lifecycle/bench_compact.py --rows-per-file 1000    # 10M rows
    .venv/bin/python bench/lifecycle/bench_compact.py --files 2000 --keep /tmp/cmp
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import pyarrow as pa
import pyarrow.compute as pc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "tests", "interop"))
import paimonc  # noqa: E402
import java_harness  # noqa: E402

SCHEMA = pa.schema([pa.field("id", pa.int64()), pa.field("v", pa.string()), pa.field("x", pa.float64()),
                    pa.field("p", pa.string())])


def build(wh, nfiles, per_file):
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    cat.create_table("db.t", paimonc.Schema.from_pyarrow_schema(SCHEMA, partition_keys=["p"]))
    t = cat.get_table("db.t").copy({"target-file-row-num": str(per_file)})
    n = per_file * 100
    for i in range(nfiles // 100):
        ids = pa.array(range(i * n, i * n + n), pa.int64())
        data = pa.table({"id": ids, "v": pc.cast(ids, pa.string()), "x": pc.multiply(pc.cast(ids, pa.float64()), 0.5),
                         "p": pa.array(["p%d" % (k % 4) for k in range(n)])}, schema=SCHEMA)
        data = data.sort_by("p")
        wb = t.new_batch_write_builder()
        w = wb.new_write()
        w.write_arrow(data)
        c = wb.new_commit()
        c.commit(w.prepare_commit())
        c.close()
        w.close()


def summary(wh):
    t = paimonc.CatalogFactory.create({"warehouse": wh}).get_table("db.t")
    rb = t.new_read_builder()
    splits = rb.new_scan().plan().splits()
    a = rb.new_read().to_arrow(splits)
    return a.num_rows, pc.sum(a["id"]).as_py(), sum(s.file_count for s in splits)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=10000)
    ap.add_argument("--rows-per-file", type=int, default=50)
    ap.add_argument("--keep", help="build the table here once and reuse it")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="bench-compact-")
    src = a.keep or os.path.join(work, "src")
    if not os.path.exists(os.path.join(src, "db.db", "t")):
        t0 = time.time()
        build(src, a.files, a.rows_per_file)
        print("built %d files in %.1f s" % (a.files, time.time() - t0), file=sys.stderr)
    rows0, sum0, files0 = summary(src)
    copies = {k: os.path.join(work, k) for k in ("ours1", "ours2", "java")}
    for d in copies.values():
        shutil.copytree(src, d)
    os.sync()

    res, secs = {}, {}
    for k, threads in (("ours1", 1), ("ours2", 2)):
        t = paimonc.CatalogFactory.create({"warehouse": copies[k]}).get_table("db.t")
        t0 = time.perf_counter()
        res[k] = t.compact(threads=threads)
        secs[k] = time.perf_counter() - t0

    java_harness.build()
    t0 = time.perf_counter()
    p = subprocess.run([os.path.join(ROOT, "tests", "interop", "java", "run.sh"), "compact", copies["java"], "db.t"],
                       capture_output=True, text=True)
    jwall = time.perf_counter() - t0
    if p.returncode:
        sys.exit("java failed:\n" + p.stderr[-3000:])
    j = json.loads(p.stdout.strip().splitlines()[-1])
    after = {k: summary(d) for k, d in copies.items()}
    r = res["ours1"]
    print("compaction: %d files (%d rows, %.1f MB) in 4 partitions" % (files0, rows0, r.bytes_before / 1e6))
    print("  paimonc 1 thread   %7.2f s   (%d groups -> %d files)" % (secs["ours1"], r.tasks, r.files_after))
    print("  paimonc 2 threads  %7.2f s" % secs["ours2"])
    print("  java               %7.2f s   (%d groups -> %d files; JVM start + load + run: %.2f s)"
          % (j["millis"] / 1000, j["tasks"], j["filesAfter"], jwall))
    print("  ratio              %7.1fx  (java / paimonc 1 thread), %.1fx (java / paimonc 2 threads)"
          % (j["millis"] / 1000 / secs["ours1"], j["millis"] / 1000 / secs["ours2"]))
    ok = r.tasks == j["tasks"] and all(v[:2] == (rows0, sum0) for v in after.values()) and \
        after["ours1"][2] == after["java"][2]
    print("  same groups: %s, same rows and sums: %s, files after: %s"
          % (r.tasks == j["tasks"], all(v[:2] == (rows0, sum0) for v in after.values()),
             {k: v[2] for k, v in after.items()}))
    if not a.keep:
        shutil.rmtree(work)
    if not ok:
        sys.exit(1)


if __name__ == "__main__":
    main()
