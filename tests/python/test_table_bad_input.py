"""Bad input on the table path gives clear errors naming the thing at fault
and never loses committed data (issue 4 "Bad input")."""
import glob
import json
import os

import pyarrow as pa
import pytest

import paimonc
from paimonc import CorruptFileError, InvalidArgumentError, NotFoundError, PaimonError


def _table(tmp_path, commits=2):
    wh = str(tmp_path / "w")
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    cat.create_table("db.t", paimonc.Schema.from_pyarrow_schema(
        pa.schema([("id", pa.int64()), ("s", pa.string()), ("p", pa.int32())]), partition_keys=["p"]), False)
    t = cat.get_table("db.t")
    for c in range(commits):
        wb = t.new_batch_write_builder()
        with wb.new_write() as w, wb.new_commit() as cm:
            w.write_arrow(pa.table({"id": pa.array(range(c * 10, c * 10 + 10), pa.int64()),
                                    "s": [f"v{i}" for i in range(10)],
                                    "p": pa.array([i % 2 for i in range(10)], pa.int32())}))
            cm.commit(w.prepare_commit())
    return cat, t, os.path.join(wh, "db.db", "t")


def _read(t):
    rb = t.new_read_builder()
    return rb.new_read().to_arrow(rb.new_scan().plan().splits())


def test_corrupt_manifest_names_the_file(tmp_path):
    cat, t, path = _table(tmp_path)
    manifests = [m for m in glob.glob(os.path.join(path, "manifest", "manifest-*"))
                 if not os.path.basename(m).startswith("manifest-list")]
    victim = sorted(manifests)[0]
    data = bytearray(open(victim, "rb").read())
    data[len(data) // 2:] = b"\xff" * (len(data) - len(data) // 2)
    open(victim, "wb").write(bytes(data))
    with pytest.raises(PaimonError) as e:
        _read(cat.get_table("db.t"))
    assert os.path.basename(victim) in str(e.value)


def test_missing_data_file_names_the_file(tmp_path):
    cat, t, path = _table(tmp_path)
    victim = sorted(glob.glob(os.path.join(path, "p=1", "bucket-0", "*.parquet")))[0]
    os.remove(victim)
    with pytest.raises(Exception) as e:
        _read(cat.get_table("db.t"))
    assert os.path.basename(victim) in str(e.value)
    # the other partition is still readable
    rb = cat.get_table("db.t").new_read_builder()
    rb = rb.with_filter(rb.new_predicate_builder().equal("p", 0))
    assert rb.new_read().to_arrow(rb.new_scan().plan().splits()).num_rows == 10


def test_snapshot_pointing_at_missing_manifest_list(tmp_path):
    cat, t, path = _table(tmp_path)
    snap = json.load(open(os.path.join(path, "snapshot", "snapshot-2")))
    os.remove(os.path.join(path, "manifest", snap["deltaManifestList"]))
    with pytest.raises(NotFoundError) as e:
        _read(cat.get_table("db.t"))
    assert snap["deltaManifestList"] in str(e.value)
    # time travel to the intact snapshot still works
    old = cat.get_table("db.t").copy({"scan.snapshot-id": "1"})
    assert _read(old).num_rows == 10


def test_commit_whose_files_vanished_commits_nothing(tmp_path):
    cat, t, path = _table(tmp_path, commits=1)
    before = set(glob.glob(os.path.join(path, "p=*", "bucket-0", "*.parquet")))
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    w.write_arrow(pa.table({"id": pa.array([100], pa.int64()), "s": ["x"], "p": pa.array([1], pa.int32())}))
    msgs = w.prepare_commit()
    new = set(glob.glob(os.path.join(path, "p=*", "bucket-0", "*.parquet"))) - before
    assert len(new) == 1
    os.remove(new.pop())
    with pytest.raises(NotFoundError) as e:
        wb.new_commit().commit(msgs)
    assert ".parquet" in str(e.value)
    t2 = cat.get_table("db.t")
    assert t2.latest_snapshot().id == 1
    assert _read(t2).num_rows == 10


def test_bad_predicate_and_bad_batch_name_the_column(tmp_path):
    cat, t, path = _table(tmp_path, commits=1)
    rb = t.new_read_builder()
    with pytest.raises(InvalidArgumentError) as e:
        rb.with_filter(rb.new_predicate_builder().equal("nope", 1)).new_scan().plan()
    assert "nope" in str(e.value)
    wb = t.new_batch_write_builder()
    with wb.new_write() as w:
        with pytest.raises(PaimonError) as e:
            w.write_arrow(pa.table({"id": pa.array(["not a number"]), "s": ["x"], "p": pa.array([1], pa.int32())}))
        assert "id" in str(e.value)
    with wb.new_write() as w:
        with pytest.raises(PaimonError) as e:
            w.write_arrow(pa.table({"id": pa.array([1], pa.int64()), "extra": [1], "p": pa.array([1], pa.int32())}))
        assert "extra" in str(e.value)
    assert _read(cat.get_table("db.t")).num_rows == 10


def test_missing_table_and_bad_time_travel(tmp_path):
    cat, t, path = _table(tmp_path, commits=1)
    with pytest.raises(NotFoundError):
        cat.get_table("db.missing")
    with pytest.raises(NotFoundError) as e:
        _read(t.copy({"scan.snapshot-id": "7"}))
    assert "7" in str(e.value)
    with pytest.raises(PaimonError) as e:
        _read(t.copy({"scan.tag-name": "no-such-tag"}))
    assert "no-such-tag" in str(e.value)


def test_blob_columns_need_data_evolution_and_nested_blobs_are_refused(tmp_path):
    """BLOB columns go to .blob files (tests/python/test_blob_api.py); without the
    data-evolution options, or nested in an ARRAY, the write is refused naming the
    column and nothing is committed."""
    from paimonc import InvalidArgumentError, UnsupportedError
    wh = str(tmp_path / "w")
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    cat.create_table("db.b", paimonc.Schema.from_pyarrow_schema(
        pa.schema([("id", pa.int64()), ("img", pa.large_binary())])), False)
    t = cat.get_table("db.b")
    assert str(t.fields[1].type) == "BLOB"
    with pytest.raises(InvalidArgumentError, match="BLOB columns.*data-evolution.enabled"):
        with t.new_batch_write_builder().new_write() as w:
            w.write_arrow(pa.table({"id": [1], "img": pa.array([b"x"], pa.large_binary())}))
    assert t.latest_snapshot() is None
    # ARRAY<BLOB> / MAP<K, BLOB> are written (test_blob_nested.py); a key type the payload
    # cannot encode is refused by name
    cat.create_table("db.n", paimonc.Schema(fields=[("id", "BIGINT"), ("imgs", "MAP<DOUBLE NOT NULL, BLOB>")],
                                            options={"row-tracking.enabled": "true",
                                                     "data-evolution.enabled": "true"}), False)
    t = cat.get_table("db.n")
    with pytest.raises(UnsupportedError, match="imgs.*nests BLOB"):
        with t.new_batch_write_builder().new_write() as w:
            w.write_arrow(pa.table({"id": [1], "imgs": pa.array([[(1.5, b"x")]],
                                                                pa.map_(pa.float64(), pa.large_binary()))}))
    assert t.latest_snapshot() is None
