"""Concurrent commits and readers on one table (issue 4 "Concurrency").

4 writer processes each commit 50 times (10 rows per commit, their own
commit user, identifiers 1..50) to one table at once, while a reader process
keeps planning and reading. Checked afterwards: snapshot ids are contiguous
1..200, every (commit user, identifier) is present exactly once, every row
is readable exactly once; and every read the reader made during the run
returned exactly the snapshot's totalRecordCount rows -- no reader ever saw
a partly published snapshot.
"""
import multiprocessing as mp
import os

import pyarrow as pa

import paimonc

WRITERS = 4
COMMITS = 50
ROWS = 10


def _writer(wh, w, ready):
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    table = cat.get_table("db.t").copy({"commit.max-retries": "1000", "commit.max-retry-wait": "200"})
    wb = table.new_batch_write_builder()
    wb.commit_user = f"writer-{w}"
    ready.wait()
    for i in range(1, COMMITS + 1):
        base = (w * COMMITS + i) * ROWS
        data = pa.table({"w": pa.array([w] * ROWS, pa.int32()),
                         "i": pa.array([i] * ROWS, pa.int32()),
                         "v": pa.array(range(base, base + ROWS), pa.int64())})
        with wb.new_write() as tw, wb.new_commit() as tc:
            tw.write_arrow(data)
            tc.commit(tw.prepare_commit(), commit_identifier=i)


def _reader(wh, ready, stop, out):
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    table = cat.get_table("db.t")
    ready.wait()
    reads = bad = 0
    while not stop.is_set():
        rb = table.new_read_builder()
        plan = rb.new_scan().plan()
        sid = plan.snapshot_id if hasattr(plan, "snapshot_id") else None
        n = rb.new_read().to_arrow(plan.splits()).num_rows
        if sid is None or sid < 0:
            continue
        snap = table.snapshot(sid)
        reads += 1
        if n != snap.total_record_count:
            bad += 1
    out.put((reads, bad))


def test_four_writers_fifty_commits_each_with_a_reader(tmp_path):
    wh = str(tmp_path / "w")
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    cat.create_table("db.t", paimonc.Schema.from_pyarrow_schema(
        pa.schema([("w", pa.int32()), ("i", pa.int32()), ("v", pa.int64())])), False)
    ctx = mp.get_context("spawn")
    ready, stop, out = ctx.Event(), ctx.Event(), ctx.Queue()
    writers = [ctx.Process(target=_writer, args=(wh, w, ready)) for w in range(WRITERS)]
    reader = ctx.Process(target=_reader, args=(wh, ready, stop, out))
    for p in writers + [reader]:
        p.start()
    ready.set()
    for p in writers:
        p.join(600)
        assert p.exitcode == 0, f"writer exited with {p.exitcode}"
    stop.set()
    reads, bad = out.get(timeout=120)
    reader.join(60)
    assert reader.exitcode == 0
    assert bad == 0, f"{bad} of {reads} concurrent reads did not match their snapshot's record count"
    print(f"concurrent reads checked: {reads}")
    assert reads > 0

    table = cat.get_table("db.t")
    ids = table.snapshot_ids() if hasattr(table, "snapshot_ids") else None
    latest = table.latest_snapshot()
    assert latest.id == WRITERS * COMMITS
    if ids is not None:
        assert list(ids) == list(range(1, WRITERS * COMMITS + 1))
    seen = {}
    for sid in range(1, latest.id + 1):
        s = table.snapshot(sid)
        key = (s.commit_user, s.commit_identifier)
        assert key not in seen, f"{key} committed twice (snapshots {seen[key]} and {sid})"
        seen[key] = sid
        assert s.total_record_count == sid * ROWS
    assert set(seen) == {(f"writer-{w}", i) for w in range(WRITERS) for i in range(1, COMMITS + 1)}

    rb = table.new_read_builder()
    got = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    assert got.num_rows == WRITERS * COMMITS * ROWS
    vals = sorted(got.column("v").to_pylist())
    want = sorted(v for w in range(WRITERS) for i in range(1, COMMITS + 1)
                  for v in range((w * COMMITS + i) * ROWS, (w * COMMITS + i) * ROWS + ROWS))
    assert vals == want
