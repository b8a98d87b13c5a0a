#!/usr/bin/env python3
"""Snapshot expiration (issue 15): expire N snapshots (default 10,000) of one
table, paimonc against Java Paimon 1.4.2's own expiration, in one run.

The table (id BIGINT, v STRING, p STRING partition of 4 values) is written by
paimonc in N + 10 commits of 20 rows each; every 50th commit is a dynamic
overwrite of one partition (so expiration has data files to delete, not only
metadata). The table directory is copied; each copy is expired once with
retain min = max = 10, time-retained 1 ms, expire limit N:

  paimonc   Table.expire_snapshots (one process, timed around the call)
  java      table.newExpireSnapshots().config(...).expire() in the interop
            harness (timed around the call inside the JVM; the JVM start and
            table load are reported separately as wall time)

Both must expire the same number of snapshots and leave the same files.

    .venv/bin/python bench/lifecycle/bench_expire.py                 # 10,000
    .venv/bin/python bench/lifecycle/bench_expire.py --snapshots 2000 --keep /tmp/exp
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

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "tests", "interop"))
import paimonc  # noqa: E402
import java_harness  # noqa: E402

SCHEMA = pa.schema([pa.field("id", pa.int64()), pa.field("v", pa.string()), pa.field("p", pa.string())])


def build(wh, n):
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    cat.create_table("db.t", paimonc.Schema.from_pyarrow_schema(SCHEMA, partition_keys=["p"]))
    t = cat.get_table("db.t")
    for i in range(n):
        ids = list(range(i * 20, i * 20 + 20))
        part = "p%d" % (i % 4)
        data = pa.table({"id": ids, "v": ["v%d" % x for x in ids],
                         "p": [part if i % 50 == 0 else "p%d" % (x % 4) for x in ids]}, schema=SCHEMA)
        wb = t.new_batch_write_builder()
        if i % 50 == 0 and i:
            wb = wb.overwrite()
        w = wb.new_write()
        w.write_arrow(data)
        c = wb.new_commit()
        c.commit(w.prepare_commit())
        c.close()
        w.close()
        if (i + 1) % 1000 == 0:
            print("  %d commits" % (i + 1), file=sys.stderr, flush=True)


def tree(root):
    return sorted(os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--snapshots", type=int, default=10000)
    ap.add_argument("--keep", help="build the table here once and reuse it")
    a = ap.parse_args()
    n = a.snapshots
    work = tempfile.mkdtemp(prefix="bench-expire-")
    src = a.keep or os.path.join(work, "src")
    if not os.path.exists(os.path.join(src, "db.db", "t")):
        t0 = time.time()
        build(src, n + 10)
        print("built %d snapshots in %.1f s" % (n + 10, time.time() - t0), file=sys.stderr)
    ours, java = os.path.join(work, "ours"), os.path.join(work, "java")
    shutil.copytree(src, ours)
    shutil.copytree(src, java)
    os.sync()
    files0 = len(tree(os.path.join(ours, "db.db", "t")))

    t = paimonc.CatalogFactory.create({"warehouse": ours}).get_table("db.t")
    t0 = time.perf_counter()
    res = t.expire_snapshots(retain_min=10, retain_max=10, max_deletes=n + 10,
                             options={"snapshot.time-retained": "1 ms"})
    pc = time.perf_counter() - t0

    java_harness.build()
    t0 = time.perf_counter()
    p = subprocess.run([os.path.join(ROOT, "tests", "interop", "java", "run.sh"), "expire", java, "db.t",
                        "10", "10", "1", str(n + 10)], capture_output=True, text=True)
    jwall = time.perf_counter() - t0
    if p.returncode:
        sys.exit("java failed:\n" + p.stderr[-3000:])
    j = json.loads(p.stdout.strip().splitlines()[-1])
    same = tree(os.path.join(ours, "db.db", "t")) == tree(os.path.join(java, "db.db", "t"))
    print("snapshot expiration: %d snapshots (%d files before), retain 10" % (res.expired, files0))
    print("  paimonc   %8.2f s   (%d files deleted, %.1f MB)" % (pc, len(res.deleted_files), res.bytes / 1e6))
    print("  java      %8.2f s   (expire() call; JVM start + load + call: %.2f s)" % (j["millis"] / 1000, jwall))
    print("  ratio     %8.1fx  (java / paimonc, the call alone)" % (j["millis"] / 1000 / pc))
    print("  same expired count: %s, same files left: %s" % (res.expired == j["expired"], same))
    if not a.keep:
        shutil.rmtree(work)
    if res.expired != j["expired"] or not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
