"""Updates by row id of BLOB columns (pypaimon 2.1.0's layout, docs/blob-layout.md §4): a
delta .blob file per touched group with first_row_id = the group's start, placeholders (-2)
for rows not updated, ending at the last updated row; a whole-group file with nulls when
no file of the group holds the column yet (ADD COLUMN + backfill); mixed updates of a
BLOB and other columns. Read back by paimonc and by pypaimon, against a model."""
import random
import sys
import os

import pytest

pa = pytest.importorskip("pyarrow")
pypaimon = pytest.importorskip("pypaimon")

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "interop"))
import blob_gen as bg  # noqa: E402

import paimonc  # noqa: E402

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}


def _commit(t, msgs):
    t.new_batch_write_builder().new_commit().commit(msgs)


def _update(cat, cols, data):
    t = cat.get_table("db.t")
    _commit(t, t.new_batch_write_builder().new_update().with_update_type(cols).update_by_arrow_with_row_id(data))


def _rows(t, cols):
    rb = t.new_read_builder().with_projection(cols + ["_ROW_ID"])
    out = rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist()
    return sorted(({k: (bg.digest(v) if isinstance(v, bytes) else v) for k, v in r.items()} for r in out),
                  key=lambda r: r["_ROW_ID"])


def _both(wh, cat, cols):
    a = _rows(cat.get_table("db.t"), cols)
    b = _rows(pypaimon.CatalogFactory.create({"warehouse": wh}).get_table("db.t"), cols)
    return a, b


@pytest.mark.parametrize("seed", range(4))
def test_blob_updates_read_by_both(tmp_path, seed):
    rnd = random.Random(seed)
    wh = str(tmp_path / "wh")
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    cat.create_table("db.t", paimonc.Schema(fields=[("id", "INT"), ("b", "BLOB")], options=dict(
        DE, **{"blob.target-file-size": "8kb"})), False)
    model = {}
    for _ in range(2):
        t = cat.get_table("db.t")
        n = rnd.randint(5, 20)
        start = len(model)
        vals = [None if rnd.random() < 0.15 else rnd.randbytes(rnd.randint(0, 3000)) for _ in range(n)]
        w = t.new_batch_write_builder().new_write()
        w.write_arrow(pa.table({"id": pa.array(range(start, start + n), pa.int32()), "b": pa.array(vals, pa.large_binary())}))
        _commit(t, w.prepare_commit())
        for i, v in enumerate(vals):
            model[start + i] = {"id": start + i, "b": v}
    for step in range(3):
        ids = rnd.sample(sorted(model), rnd.randint(1, len(model)))
        new = [None if rnd.random() < 0.2 else rnd.randbytes(rnd.randint(0, 2000)) for _ in ids]
        cols = ["b"] if step != 2 else ["id", "b"]
        data = {"_ROW_ID": pa.array(ids, pa.int64()), "b": pa.array(new, pa.large_binary())}
        if "id" in cols:
            data["id"] = pa.array([model[r]["id"] + 1000 for r in ids], pa.int32())
        _update(cat, cols, pa.table(data))
        for r, v in zip(ids, new):
            model[r]["b"] = v
            if "id" in cols:
                model[r]["id"] += 1000
        want = [{"id": model[r]["id"], "b": bg.digest(model[r]["b"]), "_ROW_ID": r} for r in sorted(model)]
        a, b = _both(wh, cat, ["id", "b"])
        assert a == want, step
        assert b == want, step


def test_added_blob_column_backfill(tmp_path):
    wh = str(tmp_path / "wh")
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    cat.create_table("db.t", paimonc.Schema(fields=[("id", "INT"), ("s", "STRING")], options=dict(DE)), False)
    for start, n in ((0, 5), (5, 3)):
        t = cat.get_table("db.t")
        w = t.new_batch_write_builder().new_write()
        w.write_arrow(pa.table({"id": pa.array(range(start, start + n), pa.int32()),
                                "s": pa.array(["x%d" % i for i in range(start, start + n)])}))
        _commit(t, w.prepare_commit())
    cat.alter_table("db.t", [paimonc.SchemaChange.add_column("b", paimonc.AtomicType("BLOB"))], False)
    a, b = _both(wh, cat, ["id", "b"])
    assert [r["b"] for r in a] == [None] * 8 == [r["b"] for r in b]
    _update(cat, ["b"], pa.table({"_ROW_ID": pa.array([1, 3, 6, 7], pa.int64()),
                                  "b": pa.array([b"one", b"", b"six", None], pa.large_binary())}))
    _update(cat, ["b"], pa.table({"_ROW_ID": pa.array([0], pa.int64()), "b": pa.array([b"zero"], pa.large_binary())}))
    want = [bg.digest(v) for v in (b"zero", b"one", None, b"", None, None, b"six", None)]
    a, b = _both(wh, cat, ["id", "b"])
    assert [r["b"] for r in a] == want
    assert [r["b"] for r in b] == want
    # layout as pypaimon writes it: whole-group files first, then a short delta
    files = [f for f in bg.table_files(wh, {"table": "db.t"}) if f["name"].endswith(".blob")]
    shape = sorted((f["first_row_id"], f["rows"], f["seq"][0]) for f in files)
    assert shape == [(0, 1, 4), (0, 5, 3), (5, 3, 3)], shape


@pytest.mark.parametrize("updater", ["paimonc", "pypaimon"])
def test_descriptor_update_values_are_copied(tmp_path, updater):
    """An update value of a raw BLOB column that is a serialized BlobDescriptor (v2) is
    copied into the delta .blob (the referenced range of a local file), as appends do and
    as pypaimon 2.1.0's update does (BlobFileWriter._to_blob); plain bytes stay as they
    are. Both peers read the copied bytes, also after the external file is gone."""
    rnd = random.Random(21)
    wh = str(tmp_path / "wh")
    ext = tmp_path / "ext.bin"
    payload = rnd.randbytes(300_000)
    ext.write_bytes(payload)
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    cat.create_table("db.t", paimonc.Schema(fields=[("id", "INT"), ("b", "BLOB")], options=dict(
        DE, **{"blob.target-file-size": "64kb"})), False)
    vals = [rnd.randbytes(rnd.randint(0, 500)) for _ in range(12)]
    t = cat.get_table("db.t")
    w = t.new_batch_write_builder().new_write()
    w.write_arrow(pa.table({"id": pa.array(range(12), pa.int32()), "b": pa.array(vals, pa.large_binary())}))
    _commit(t, w.prepare_commit())
    ranges = {1: (0, 100_000, str(ext)), 4: (123_457, 150_000, "file://" + str(ext)), 6: (77, 0, str(ext)),
              9: (299_000, 1000, str(ext))}
    ids, new = [], []
    for r in sorted(ranges) + [2]:
        ids.append(r)
        if r in ranges:
            off, ln, uri = ranges[r]
            new.append(bg.descriptor_bytes(uri, off, ln))
            vals[r] = payload[off:off + ln]
        else:
            new.append(b"plain")
            vals[r] = b"plain"
    data = pa.table({"_ROW_ID": pa.array(ids, pa.int64()), "b": pa.array(new, pa.large_binary())})
    if updater == "paimonc":
        _update(cat, ["b"], data)
    else:
        pt = pypaimon.CatalogFactory.create({"warehouse": wh}).get_table("db.t")
        wb = pt.new_batch_write_builder()
        wb.new_commit().commit(wb.new_update().with_update_type(["b"]).update_by_arrow_with_row_id(data))
    want = [{"id": i, "b": bg.digest(v), "_ROW_ID": i} for i, v in enumerate(vals)]
    a, b = _both(wh, cat, ["id", "b"])
    assert a == want
    assert b == want
    ext.unlink()
    a, b = _both(wh, cat, ["id", "b"])
    assert a == want
    assert b == want
