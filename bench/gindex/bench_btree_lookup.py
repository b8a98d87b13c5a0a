#!/usr/bin/env python3
"""BTree point lookups (issue 13): plan + read one row of an N-row table
(default 10M) by a key with a btree global index, side by side in one run:

  paimonc indexed     filter k = X, the btree prunes to one row range
  paimonc full scan   the same filter with global-index.enabled=false
                      (statistics pruning only; keys are a random
                      permutation, so min/max prune nothing)
  pypaimon indexed    pypaimon 2.1.0 on the same table and index (its scan
                      evaluates the btree through its own reader)

each with all 6 columns and with the projection [id] (the filter column k is
read either way).

The table (id BIGINT, k BIGINT = a seeded permutation of 0..N-1, 4 payload
columns) is written by paimonc in commits of 1M rows; the btree on k is built
by paimonc (pypaimon reads our index files). Every lookup's result is
checked (exactly one row, the right id). Times are the median of --lookups
random keys, each in the same process after one warm-up lookup.

    .venv/bin/python bench/gindex/bench_btree_lookup.py            # 10M rows
    .venv/bin/python bench/gindex/bench_btree_lookup.py --rows 1000000
    .venv/bin/python bench/gindex/bench_btree_lookup.py --keep /tmp/wh --rounds 3
"""
import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}


def build(wh, rows, seed, page_rows=None):
    import numpy as np
    import pyarrow as pa
    import paimonc
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    cat.create_table("db.t", paimonc.Schema(fields=[("id", "BIGINT"), ("k", "BIGINT"), ("a", "DOUBLE"),
                                                    ("b", "DOUBLE"), ("c", "BIGINT"), ("s", "STRING")],
                                            options=dict(DE, **({"parquet.page.row.count.limit": str(page_rows)}
                                                                    if page_rows else {}))), False)
    t = cat.get_table("db.t")
    perm = np.random.default_rng(seed).permutation(rows).astype("int64")
    step = 1 << 20
    t0 = time.perf_counter()
    for lo in range(0, rows, step):
        hi = min(rows, lo + step)
        n = hi - lo
        ids = np.arange(lo, hi, dtype="int64")
        batch = pa.table({"id": ids, "k": perm[lo:hi], "a": np.random.default_rng(lo).random(n),
                          "b": np.random.default_rng(lo + 1).random(n), "c": ids * 7,
                          "s": pa.array(["row-%d" % i for i in range(lo, hi)])})
        wb = t.new_batch_write_builder()
        w = wb.new_write()
        w.write_arrow(batch)
        wb.new_commit().commit(w.prepare_commit())
    write_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    files = t.create_global_index("k", "btree")
    index_s = time.perf_counter() - t0
    return perm, write_s, index_s, files


def lookups(peer, wh, keys, want, disable_index=False, projection=None):
    if peer == "paimonc":
        import paimonc as lib
    else:
        import pypaimon as lib
    cat = lib.CatalogFactory.create({"warehouse": wh})
    t = cat.get_table("db.t")
    if disable_index:
        t = t.copy({"global-index.enabled": "false"})
    times = []
    for i, k in enumerate([keys[0]] + list(keys)):
        t0 = time.perf_counter()
        rb = t.new_read_builder()
        pred = rb.new_predicate_builder().equal("k", int(k))
        if projection:
            rb = rb.with_projection(projection)
        rb = rb.with_filter(pred)
        splits = rb.new_scan().plan().splits()
        out = rb.new_read().to_arrow(splits)
        dt = time.perf_counter() - t0
        ids = out.column("id").to_pylist()
        if ids != [want[k]]:
            raise SystemExit("%s: lookup k=%d returned ids %r, want [%d]" % (peer, k, ids[:5], want[k]))
        if i:
            times.append(dt)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--lookups", type=int, default=20)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--keep", help="keep the warehouse here (reused when it already holds the table)")
    ap.add_argument("--rounds", type=int, default=1, help="repeat both projections (the host's load varies)")
    ap.add_argument("--page-rows", type=int, help="write the table with parquet.page.row.count.limit = N "
                    "(default: the writer's 20,000); both peers read the same table")
    ap.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        peer, wh, mode, proj = a.child
        import json
        import numpy as np
        perm = np.load(os.path.join(wh, "perm.npy"))
        inv = np.empty_like(perm)
        inv[perm] = np.arange(len(perm))
        rnd = random.Random(a.seed)
        keys = [rnd.randrange(len(perm)) for _ in range(a.lookups)]
        want = {k: int(inv[k]) for k in keys}
        print(json.dumps({"median_s": lookups(peer, wh, keys, want, mode == "noindex",
                                              None if proj == "all" else proj.split(","))}))
        return
    wh = a.keep or tempfile.mkdtemp(prefix="bench-btree-")
    try:
        import numpy as np
        if a.keep and os.path.exists(os.path.join(wh, "perm.npy")):
            print("reusing the table in %s (%d rows)" % (wh, len(np.load(os.path.join(wh, "perm.npy")))))
        else:
            perm, write_s, index_s, files = build(wh, a.rows, a.seed, a.page_rows)
            np.save(os.path.join(wh, "perm.npy"), perm)
            print("rows %d: paimonc write %.1f s, btree build %.1f s (%d files)%s" % (
                a.rows, write_s, index_s, files,
                ", parquet.page.row.count.limit %d" % a.page_rows if a.page_rows else ""))
        for proj in ("all", "id") * a.rounds:
            res = {}
            for name, peer, mode in (("paimonc indexed", "paimonc", "index"),
                                     ("paimonc full scan", "paimonc", "noindex"),
                                     ("pypaimon indexed", "pypaimon", "index")):
                p = subprocess.run([sys.executable, __file__, "--lookups", str(a.lookups), "--seed", str(a.seed),
                                    "--child", peer, wh, mode, proj], capture_output=True, text=True)
                if p.returncode:
                    print("%s failed:\n%s" % (name, p.stderr[-3000:] or p.stdout[-3000:]))
                    res[name] = None
                    continue
                import json
                res[name] = json.loads(p.stdout.strip().splitlines()[-1])["median_s"]
            base = res["paimonc indexed"]
            print("\nprojection: %s" % ("all 6 columns" if proj == "all" else proj))
            print("%-20s %12s %10s" % ("lookup (plan+read)", "median ms", "vs index"))
            for name, v in res.items():
                if v is None:
                    print("%-20s %12s" % (name, "failed"))
                else:
                    print("%-20s %12.2f %9.1fx" % (name, v * 1e3, v / base if base else float("nan")))
    finally:
        if not a.keep:
            shutil.rmtree(wh, ignore_errors=True)


if __name__ == "__main__":
    main()
