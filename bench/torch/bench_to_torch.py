#!/usr/bin/env python3
"""to_torch for a training loop (issue 14): batches per second over a table
with a VECTOR and a BLOB column, paimonc and pypaimon 2.1.0 side by side in
one run, each peer in its own process on the same table (written by
paimonc in commits of 128k rows).

Both use to_torch(splits, streaming=True, batch_format='torch',
batch_size=B) with the same to_tensor_fn (paimonc.torch_dataset.to_tensors:
tensors for the numeric and VECTOR columns, a list of bytes for the BLOB;
pypaimon's default converter refuses BLOB columns), iterated by a
DataLoader with --workers workers; the "training step" touches every
tensor (a sum over the embeddings and the label). Mode "packed" passes
the BLOB as PackedBytes (two tensors) instead of a list of bytes. Rows format (pypaimon's
default, one dict per row) is timed on the first --row-rows rows.

Every mode runs with each DataLoader worker count of --workers (default
"0,2") for both peers; the summary compares each peer's best count.
paimonc reads natively on its own threads with the GIL released, so
num_workers=0 (no worker processes, no IPC of batches) is its fast
configuration; pypaimon reads in Python and needs worker processes.

    .venv/bin/python bench/torch/bench_to_torch.py                 # 1M rows
    .venv/bin/python bench/torch/bench_to_torch.py --rows 200000
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}


def build(wh, rows, dim, blob_bytes):
    import numpy as np
    import pyarrow as pa
    import paimonc
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    cat.create_table("db.t", paimonc.Schema(fields=[("id", "BIGINT"), ("label", "INT"),
                                                    ("emb", "VECTOR<FLOAT, %d>" % dim), ("img", "BLOB")],
                                            options=DE), False)
    t = cat.get_table("db.t")
    step = 1 << 17
    rng = np.random.default_rng(1)
    for lo in range(0, rows, step):
        n = min(rows, lo + step) - lo
        ids = np.arange(lo, lo + n, dtype=np.int64)
        emb = pa.FixedSizeListArray.from_arrays(pa.array(rng.random(n * dim, dtype=np.float32)), dim)
        payload = rng.integers(0, 256, blob_bytes, dtype=np.uint8).tobytes()
        img = pa.array([payload[: blob_bytes - (i % 16)] for i in range(n)], pa.large_binary())
        wb = t.new_batch_write_builder()
        w = wb.new_write()
        w.write_arrow(pa.table({"id": ids, "label": pa.array(ids % 10, pa.int32()), "emb": emb, "img": img}))
        wb.new_commit().commit(w.prepare_commit())


def child(peer, wh, mode, batch, workers, row_rows):
    import torch
    from torch.utils.data import DataLoader
    from paimonc.torch_dataset import to_tensors
    lib = __import__(peer)
    t = lib.CatalogFactory.create({"warehouse": wh}).get_table("db.t")
    rb = t.new_read_builder()
    if mode == "rows":
        rb = rb.with_limit(row_rows)
    splits = rb.new_scan().plan().splits()
    read = rb.new_read()
    t0 = time.perf_counter()
    nb = rows = 0
    acc = 0.0
    if mode == "rows":
        for r in read.to_torch(splits, streaming=True):
            acc += r["emb"][0] + r["label"]
            rows += 1
            if rows >= row_rows:
                break
        nb = rows
    else:
        import functools
        conv = functools.partial(to_tensors, blobs="packed") if mode == "packed" else to_tensors
        ds = read.to_torch(splits, streaming=True, batch_format="torch", batch_size=batch, to_tensor_fn=conv)
        for b in DataLoader(ds, batch_size=None, num_workers=workers):
            acc += float(b["emb"].sum()) + float(b["label"].sum()) + len(b["img"])
            nb += 1
            rows += len(b["id"])
    dt = time.perf_counter() - t0
    print(json.dumps({"seconds": dt, "batches": nb, "rows": rows}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--dim", type=int, default=128)
    ap.add_argument("--blob-bytes", type=int, default=512)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--workers", default="0,2", help="DataLoader worker counts to run, e.g. 0,2")
    ap.add_argument("--row-rows", type=int, default=50_000)
    ap.add_argument("--keep")
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        child(a.child[0], a.child[1], a.child[2], a.batch, int(a.workers), a.row_rows)
        return
    wh = a.keep or tempfile.mkdtemp(prefix="bench-torch-")
    try:
        if not os.path.exists(os.path.join(wh, "db.db")):
            t0 = time.perf_counter()
            build(wh, a.rows, a.dim, a.blob_bytes)
            print("rows %d (emb VECTOR<FLOAT,%d>, img BLOB ~%d B): written by paimonc in %.1f s"
                  % (a.rows, a.dim, a.blob_bytes, time.perf_counter() - t0))
        counts = [int(w) for w in str(a.workers).split(",")]
        print("%-9s %-9s %7s %12s %14s %10s" % ("mode", "peer", "workers", "seconds", "batches/s", "vs paimonc"))
        best_lines = []
        for mode in ("torch", "packed", "rows"):
            res = {}
            for w in counts:
                for peer in ("paimonc", "pypaimon"):
                    p = subprocess.run([sys.executable, __file__, "--batch", str(a.batch), "--workers", str(w),
                                        "--row-rows", str(a.row_rows), "--child", peer, wh, mode],
                                       capture_output=True, text=True)
                    if p.returncode:
                        print("%s %s workers=%d failed:\n%s" % (mode, peer, w, p.stderr[-2000:]))
                        continue
                    res[(peer, w)] = json.loads(p.stdout.strip().splitlines()[-1])
            rate = {k: r["batches"] / r["seconds"] for k, r in res.items()}
            for (peer, w), r in sorted(res.items(), key=lambda kv: (kv[0][1], kv[0][0] != "paimonc")):
                base = rate.get(("paimonc", w), rate[(peer, w)])
                print("%-9s %-9s %7d %12.2f %14.1f %9.1fx   (%d rows)" % (
                    mode if mode != "rows" else "rows*", peer, w, r["seconds"], rate[(peer, w)],
                    base / rate[(peer, w)], r["rows"]))
            best = {}
            for (peer, w), v in rate.items():
                if peer not in best or v > best[peer][1]:
                    best[peer] = (w, v)
            if len(best) == 2:
                best_lines.append("%-7s best: paimonc %.1f/s (workers=%d), pypaimon %.1f/s (workers=%d): %.1fx" % (
                    mode, best["paimonc"][1], best["paimonc"][0], best["pypaimon"][1], best["pypaimon"][0],
                    best["paimonc"][1] / best["pypaimon"][1]))
        for line in best_lines:
            print(line)
        print("torch/packed: batches of %d rows; rows*: rows/s over the first %d rows; vs paimonc = paimonc's "
              "rate / this rate at the same worker count" % (a.batch, a.row_rows))
    finally:
        if not a.keep:
            shutil.rmtree(wh, ignore_errors=True)


if __name__ == "__main__":
    main()
