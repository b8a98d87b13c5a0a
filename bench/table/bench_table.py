#!/usr/bin/env python3
"""Table benchmarks: paimonc vs pypaimon, side by side in one run.

Scenarios (issue 4):
  a  write + commit N rows (default 10M) into a new append table
  p  the same rows into a table partitioned by k (1000 partitions)
  b  full read of that table to one Arrow table
  c  planning a table with F data files written over S snapshots (10,000 / 500)
  d  a filtered read that touches 1% of the files (value-stats pruning on id)
  e  peak memory of a streaming read (to_arrow_batch_reader) of a table
     >= 10x larger than one batch, vs the table's in-memory size

Every measurement runs in a fresh subprocess (one peer at a time) so memory
numbers are per peer; times are the best of --repeat runs. Tables for b-e
are written once by paimonc (and read by both peers: that is also an
interoperability check: row counts and checksums must agree).

    .venv/bin/python bench/table/bench_table.py            # everything
    .venv/bin/python bench/table/bench_table.py --rows 1000000 --only a,b
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


# --------------------------------------------------------------------- child
def child(args):
    import resource
    import pyarrow as pa
    import pyarrow.parquet as pq

    peer, op = args.peer, args.op
    if peer == "paimonc":
        import paimonc as lib
    else:
        import pypaimon as lib
    out = {}
    catalog = lib.CatalogFactory.create({"warehouse": args.warehouse})

    def table_schema(t):
        opts = {"bucket": "-1"}
        opts.update(json.loads(args.opts or "{}"))
        parts = [c for c in (args.partition or "").split(",") if c]
        if parts:
            return lib.Schema.from_pyarrow_schema(t.schema, partition_keys=parts, options=opts)
        return lib.Schema.from_pyarrow_schema(t.schema, options=opts)

    if op == "write":
        data = pq.read_table(args.data)
        catalog.create_database("b", True)
        catalog.create_table(args.table or "b.t", table_schema(data), False)
        table = catalog.get_table(args.table or "b.t")
        t0 = time.perf_counter()
        wb = table.new_batch_write_builder()
        w = wb.new_write()
        w.write_arrow(data)
        msgs = w.prepare_commit()
        c = wb.new_commit()
        c.commit(msgs)
        w.close()
        c.close()
        out["seconds"] = time.perf_counter() - t0
        out["rows"] = data.num_rows
    elif op == "many":  # build the many-snapshot table (setup, paimonc only)
        rng_rows = args.files_per_commit * 10
        catalog.create_database("b", True)
        schema = pa.schema([("id", pa.int64()), ("v", pa.float64())])
        catalog.create_table("b.many", lib.Schema.from_pyarrow_schema(schema), False)
        table = catalog.get_table("b.many")
        nid = 0
        for s in range(args.snapshots):
            wb = table.new_batch_write_builder()
            msgs = []
            for f in range(args.files_per_commit):
                ids = pa.array(range(nid, nid + 10), pa.int64())
                nid += 10
                w = wb.new_write()  # a batch write commits once: one writer per file
                w.write_arrow(pa.table({"id": ids, "v": pa.array([0.5] * 10)}))
                msgs.extend(w.prepare_commit())
                w.close()
            wb.new_commit().commit(msgs)
        out["rows"] = nid
    elif op in ("read", "plan", "filter", "stream"):
        table = catalog.get_table(args.table)
        rb = table.new_read_builder()
        if op == "filter":
            pb = rb.new_predicate_builder()
            rb = rb.with_filter(pb.between("id", args.lo, args.hi))
        t0 = time.perf_counter()
        splits = rb.new_scan().plan().splits()
        t1 = time.perf_counter()
        out["plan_seconds"] = t1 - t0
        out["splits"] = len(splits)
        if op in ("read", "filter"):
            res = rb.new_read().to_arrow(splits)
            out["seconds"] = time.perf_counter() - t0
            out["rows"] = res.num_rows
            import pyarrow.compute as pc
            out["checksum"] = int(pc.sum(res.column("id")).as_py() or 0)
            out["bytes"] = res.nbytes
        elif op == "plan":
            out["seconds"] = t1 - t0
            out["files"] = sum(len(getattr(s, "files", []) or []) for s in splits) if peer == "pypaimon" else None
        else:
            reader = rb.new_read().to_arrow_batch_reader(splits)
            rows = 0
            biggest = 0
            for b in reader:
                rows += b.num_rows
                biggest = max(biggest, b.nbytes)
            out["seconds"] = time.perf_counter() - t0
            out["rows"] = rows
            out["max_batch_bytes"] = biggest
    # VmHWM: this process's peak RSS (ru_maxrss would include the parent's
    # peak, which Linux carries across fork + exec).
    with open("/proc/self/status") as f:
        hwm = [l for l in f if l.startswith("VmHWM:")]
    out["maxrss_mb"] = (int(hwm[0].split()[1]) / 1024.0 if hwm
                        else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0)
    print(json.dumps(out))


# -------------------------------------------------------------------- parent
def run_child(peer, op, warehouse, **kw):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", "--peer", peer, "--op", op,
           "--warehouse", warehouse]
    for k, v in kw.items():
        cmd += ["--" + k.replace("_", "-"), str(v)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{peer} {op} failed:\n{p.stderr[-3000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def best(peer, op, warehouse, repeat, key="seconds", **kw):
    runs = [run_child(peer, op, warehouse, **kw) for _ in range(repeat)]
    return min(runs, key=lambda r: r[key])


def make_data(path, rows):
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq
    rng = np.random.default_rng(42)
    words = np.array([f"item-{i:08d}-{'x' * (i % 7)}" for i in range(10000)], dtype=object)
    t = pa.table({
        "id": pa.array(np.arange(rows, dtype=np.int64)),
        "k": pa.array(rng.integers(0, 1000, rows, dtype=np.int32)),
        "v": pa.array(rng.random(rows)),
        "s": pa.array(words[rng.integers(0, len(words), rows)], pa.string()),
    })
    pq.write_table(t, path, compression="zstd")
    return t.nbytes


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--child", action="store_true")
    ap.add_argument("--peer")
    ap.add_argument("--op")
    ap.add_argument("--warehouse")
    ap.add_argument("--data")
    ap.add_argument("--table")
    ap.add_argument("--opts")
    ap.add_argument("--partition", help="child: partition key columns (comma-separated)")
    ap.add_argument("--lo", type=int, default=0)
    ap.add_argument("--hi", type=int, default=0)
    ap.add_argument("--snapshots", type=int, default=500)
    ap.add_argument("--files-per-commit", type=int, default=20)
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default="a,p,b,c,d,e")
    ap.add_argument("--workdir")
    args = ap.parse_args()
    if args.child:
        return child(args)

    only = set(args.only.split(","))
    work = args.workdir or tempfile.mkdtemp(prefix="pmbench-")
    os.makedirs(work, exist_ok=True)
    data = os.path.join(work, "data.parquet")
    print(f"workdir {work}; generating {args.rows:,} rows", flush=True)
    mem_bytes = make_data(data, args.rows)
    results = []

    def report(name, pc, py, key="seconds", unit="s", higher_is_better=False):
        ratio = (py[key] / pc[key]) if pc[key] else float("inf")
        results.append((name, pc[key], py[key], ratio))
        print(f"{name:52s} paimonc {pc[key]:9.3f}{unit}  pypaimon {py[key]:9.3f}{unit}  ratio {ratio:6.2f}x",
              flush=True)

    # a: write + commit (fresh warehouse per run)
    wh = {}
    if only & {"a", "b", "d", "e"}:
        runs = {"paimonc": [], "pypaimon": []}
        for i in range(args.repeat if "a" in only else 1):
            for peer in ("paimonc", "pypaimon"):
                w = os.path.join(work, f"wh-{peer}-{i}")
                shutil.rmtree(w, ignore_errors=True)
                runs[peer].append(run_child(peer, "write", w, data=data))
                wh[peer] = w
        if "a" in only:
            report(f"a. write+commit {args.rows:,} rows", min(runs["paimonc"], key=lambda r: r["seconds"]),
                   min(runs["pypaimon"], key=lambda r: r["seconds"]))
    if "p" in only:
        runs = {"paimonc": [], "pypaimon": []}
        for i in range(args.repeat):
            for peer in ("paimonc", "pypaimon"):
                w = os.path.join(work, f"whp-{peer}-{i}")
                shutil.rmtree(w, ignore_errors=True)
                runs[peer].append(run_child(peer, "write", w, data=data, partition="k"))
                shutil.rmtree(w, ignore_errors=True)
        report(f"p. write+commit {args.rows:,} rows, 1000 partitions", min(runs["paimonc"], key=lambda r: r["seconds"]),
               min(runs["pypaimon"], key=lambda r: r["seconds"]))
    table_wh = wh.get("paimonc")
    if "b" in only:
        pc = best("paimonc", "read", table_wh, args.repeat, table="b.t")
        py = best("pypaimon", "read", table_wh, args.repeat, table="b.t")
        assert pc["rows"] == py["rows"] == args.rows and pc["checksum"] == py["checksum"], (pc, py)
        report("b. full read to Arrow (paimonc-written table)", pc, py)
    if "d" in only:
        # a second table of the same rows rolled into 100 files (target-file-row-num)
        run_child("paimonc", "write", table_wh, data=data, table="b.d",
                  opts=json.dumps({"target-file-row-num": str(max(1, args.rows // 100))}))
        lo, hi = args.rows // 2, args.rows // 2 + args.rows // 100 - 1
        # 1% of the ids; files are written in id order so stats prune the rest
        # (only when the write rolled several files: see target-file-size)
        pc = best("paimonc", "filter", table_wh, args.repeat, table="b.d", lo=lo, hi=hi)
        py = best("pypaimon", "filter", table_wh, args.repeat, table="b.d", lo=lo, hi=hi)
        report("d. filtered read (id BETWEEN: 1% of rows)", pc, py)
        print(f"   rows returned: paimonc {pc['rows']:,}  pypaimon {py['rows']:,}")
    if "e" in only:
        pc = run_child("paimonc", "stream", table_wh, table="b.t")
        py = run_child("pypaimon", "stream", table_wh, table="b.t")
        print(f"e. streaming read peak RSS: paimonc {pc['maxrss_mb']:.0f} MB  pypaimon {py['maxrss_mb']:.0f} MB; "
              f"table in memory {mem_bytes / 2**20:.0f} MB; largest batch paimonc "
              f"{pc['max_batch_bytes'] / 2**20:.1f} MB, pypaimon {py['max_batch_bytes'] / 2**20:.1f} MB")
        results.append(("e. streaming read peak RSS MB", pc["maxrss_mb"], py["maxrss_mb"], py["maxrss_mb"] / pc["maxrss_mb"]))
    if "c" in only:
        w = os.path.join(work, "wh-many")
        if not os.path.exists(os.path.join(w, "b.db", "many")):
            t0 = time.perf_counter()
            run_child("paimonc", "many", w, snapshots=args.snapshots, files_per_commit=args.files_per_commit)
            print(f"   (built {args.snapshots} snapshots x {args.files_per_commit} files in "
                  f"{time.perf_counter() - t0:.1f}s)")
        pc = best("paimonc", "plan", w, args.repeat, table="b.many")
        py = best("pypaimon", "plan", w, args.repeat, table="b.many")
        report(f"c. plan {args.snapshots * args.files_per_commit:,} files / {args.snapshots} snapshots", pc, py)
    print(json.dumps({"results": results}))


if __name__ == "__main__":
    main()
