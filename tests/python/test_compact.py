"""Table.compact / compact_plan from Python: the result, the plan, dry runs, partitions,
threads, the progress callback, reads unchanged, and bad arguments named in errors."""

import os

import pytest

pa = pytest.importorskip("pyarrow")

import paimonc  # noqa: E402
from paimonc import PaimonError  # noqa: E402

SCHEMA = pa.schema([pa.field("id", pa.int64()), pa.field("p", pa.string())])


def make(tmp_path, n, options=None):
    cat = paimonc.CatalogFactory.create({"warehouse": str(tmp_path / "wh")})
    cat.create_database("db", True)
    cat.create_table("db.t", paimonc.Schema.from_pyarrow_schema(SCHEMA, partition_keys=["p"], options=options))
    t = cat.get_table("db.t")
    for i in range(n):
        wb = t.new_batch_write_builder()
        with wb.new_write() as w, wb.new_commit() as c:
            w.write_arrow(pa.table({"id": [i * 10, i * 10 + 1], "p": ["a", "b"]}, schema=SCHEMA))
            c.commit(w.prepare_commit())
    return cat


def ids(t):
    rb = t.new_read_builder()
    return sorted(rb.new_read().to_arrow(rb.new_scan().plan().splits()).column("id").to_pylist())


def nfiles(t):
    return sum(s.file_count for s in t.new_read_builder().new_scan().plan().splits())


def test_compact_plan_and_result(tmp_path):
    cat = make(tmp_path, 6)
    t = cat.get_table("db.t")
    want = ids(t)
    plan = t.compact_plan()
    assert sorted(len(g) for g in plan) == [6, 6]
    assert all(n.endswith(".parquet") for g in plan for n in g)
    dry = t.compact(dry_run=True)
    assert dry.snapshot_id is None and dry.tasks == 2 and dry.files_before == 12 and dry.files_after == 0
    assert nfiles(t) == 12
    seen = []
    r = t.compact(threads=2, progress=lambda done, total: seen.append((done, total)))
    assert r.snapshot_id == 7 and r.base_snapshot == 6 and r.tasks == 2 and r.files_after == 2 and r.rows == 12
    assert r.bytes_after < r.bytes_before
    assert seen[-1] == (12, 12)
    t = cat.get_table("db.t")
    assert t.latest_snapshot().commit_kind == "COMPACT"
    assert ids(t) == want and nfiles(t) == 2
    assert ids(t.copy({"scan.snapshot-id": "6"})) == want
    # nothing left to merge
    again = t.compact()
    assert again.tasks == 0 and again.snapshot_id is None


def test_partitions_and_options(tmp_path):
    cat = make(tmp_path, 4)
    t = cat.get_table("db.t")
    assert t.compact_plan() == []  # 4 files per partition < compaction.min.file-num 5
    assert len(t.compact_plan(options={"compaction.min.file-num": 4})) == 2
    r = t.compact(partitions={"p": "a"}, options={"compaction.min.file-num": "2"})
    assert r.tasks == 1 and r.files_before == 4
    assert nfiles(cat.get_table("db.t")) == 5
    # the table's own option decides too
    cat2 = make(tmp_path / "o", 3, options={"compaction.min.file-num": "3"})
    assert cat2.get_table("db.t").compact().tasks == 2


def test_bad_arguments(tmp_path):
    cat = make(tmp_path, 2)
    t = cat.get_table("db.t")
    with pytest.raises(PaimonError, match="compaction.min.file-num"):
        t.compact(options={"compaction.min.file-num": "none"})
    with pytest.raises(PaimonError, match="compaction.threads"):
        t.compact(threads=0)
    with pytest.raises(PaimonError, match="partition key"):
        t.compact(partition_filter=t.new_read_builder().new_predicate_builder().equal("id", 1))
    cat.create_table("db.r", paimonc.Schema.from_pyarrow_schema(SCHEMA, options={"row-tracking.enabled": "true"}))
    with pytest.raises(PaimonError, match="row-tracking.enabled"):
        cat.get_table("db.r").compact()
    assert os.path.isdir(str(tmp_path / "wh"))


def test_data_evolution_folds_groups_and_keeps_blobs(tmp_path):
    """A data-evolution table with a BLOB column: six appends and an update of a column over
    two groups fold into one data file (row ids kept, the update's values win); the .blob
    files are not rewritten; paimonc and pypaimon read the same rows before and after."""
    de = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
    schema = pa.schema([pa.field("id", pa.int64()), pa.field("s", pa.string()), pa.field("b", pa.large_binary())])
    wh = str(tmp_path / "de")
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    cat.create_table("db.t", paimonc.Schema.from_pyarrow_schema(
        schema, options=dict(de, **{"blob-field": "b"})))
    t = cat.get_table("db.t")
    for i in range(6):
        wb = t.new_batch_write_builder()
        with wb.new_write() as w, wb.new_commit() as c:
            w.write_arrow(pa.table({"id": [i * 10 + k for k in range(10)], "s": ["s%d" % k for k in range(10)],
                                    "b": [bytes([i, k]) * 50 for k in range(10)]}, schema=schema))
            c.commit(w.prepare_commit())
    wb = t.new_batch_write_builder()
    wb.new_commit().commit(wb.new_update().with_update_type(["s"]).update_by_arrow_with_row_id(
        pa.table({"_ROW_ID": pa.array(range(20), pa.int64()), "s": ["new%d" % k for k in range(20)]})))

    def rows(t):
        rb = t.new_read_builder().with_projection(["id", "s", "b", "_ROW_ID"])
        return sorted(rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist(), key=lambda r: r["_ROW_ID"])

    t = cat.get_table("db.t")
    want = rows(t)
    blobs = sorted(f for d, _, fs in os.walk(wh) for f in fs if f.endswith(".blob"))
    assert len(blobs) == 6
    r = t.compact()
    assert r.tasks == 1 and r.files_before == 8 and r.files_after == 1 and r.rows == 60
    t = cat.get_table("db.t")
    assert t.latest_snapshot().commit_kind == "COMPACT"
    assert rows(t) == want and want[0]["s"] == "new0" and want[25]["s"] == "s5"
    assert sorted(f for d, _, fs in os.walk(wh) for f in fs if f.endswith(".blob")) == blobs
    pp = pytest.importorskip("pypaimon")
    pt = pp.CatalogFactory.create({"warehouse": wh}).get_table("db.t")
    rb = pt.new_read_builder().with_projection(["id", "s", "b", "_ROW_ID"])
    got = sorted(rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist(), key=lambda r: r["_ROW_ID"])
    assert got == want


def _de_table(tmp_path, n):
    de = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
    cat = paimonc.CatalogFactory.create({"warehouse": str(tmp_path / "dec")})
    cat.create_database("db", True)
    cat.create_table("db.t", paimonc.Schema.from_pyarrow_schema(SCHEMA, options=de))
    t = cat.get_table("db.t")
    for i in range(n):
        wb = t.new_batch_write_builder()
        with wb.new_write() as w, wb.new_commit() as c:
            w.write_arrow(pa.table({"id": [i * 10, i * 10 + 1], "p": ["a", "a"]}, schema=SCHEMA))
            c.commit(w.prepare_commit())
    return cat


def _update_p(t, row_ids, value):
    wb = t.new_batch_write_builder()
    upd = wb.new_update().with_update_type(["p"])
    return wb, upd.update_by_arrow_with_row_id(
        pa.table({"_ROW_ID": pa.array(row_ids, pa.int64()), "p": [value] * len(row_ids)}))


def test_data_evolution_compaction_against_concurrent_updates(tmp_path):
    """Java's rules: an update landing while a compaction rewrites its groups makes the
    compaction fail (nothing committed, the update kept); an update planned before a
    compaction that committed first fails instead (its row-id range is gone)."""
    from paimonc import ConflictError
    cat = _de_table(tmp_path, 6)
    t = cat.get_table("db.t")

    def race(done, total):
        wb, msgs = _update_p(cat.get_table("db.t"), [2, 3], "upd")
        wb.new_commit().commit(msgs)

    with pytest.raises(ConflictError, match="MERGE INTO' and 'COMPACT'"):
        t.compact(progress=race)
    t = cat.get_table("db.t")
    assert t.latest_snapshot().commit_kind == "APPEND"
    rb = t.new_read_builder().with_projection(["p", "_ROW_ID"])
    rows = sorted(rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist(), key=lambda r: r["_ROW_ID"])
    assert [r["p"] for r in rows[:4]] == ["a", "a", "upd", "upd"]

    # the other order: plan an update, compact, then commit the update
    wb, msgs = _update_p(t, [4], "late")
    assert t.compact().tasks == 1
    with pytest.raises(ConflictError):
        wb.new_commit().commit(msgs)
    t = cat.get_table("db.t")
    assert t.latest_snapshot().commit_kind == "COMPACT"
    rb = t.new_read_builder().with_projection(["p", "_ROW_ID"])
    rows = sorted(rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist(), key=lambda r: r["_ROW_ID"])
    assert [r["p"] for r in rows[:5]] == ["a", "a", "upd", "upd", "a"] and len(rows) == 12
