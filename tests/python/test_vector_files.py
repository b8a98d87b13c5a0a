"""Dedicated vector-store files (vector.file.format=parquet): paimonc writes the VECTOR
columns into one .vector.parquet companion per data file (write_cols = the vector
columns, the data file's rows and row ids), read back by paimonc and pypaimon 2.1.0;
null vectors (pypaimon cannot write them) round-trip through paimonc; formats not
written are refused by name."""
import os
import random
import sys

import pytest

pa = pytest.importorskip("pyarrow")
pypaimon = pytest.importorskip("pypaimon")

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "interop"))
import blob_gen as bg  # noqa: E402

import paimonc  # noqa: E402

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true", "vector.file.format": "parquet"}


def _make(tmp_path, options=None):
    wh = str(tmp_path / "wh")
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    cat.create_table("db.t", paimonc.Schema(
        fields=[("id", "INT"), ("v", "VECTOR<FLOAT, 4>"), ("s", "STRING"), ("w", "VECTOR<DOUBLE, 2>")],
        options=dict(DE, **(options or {}))), False)
    return wh, cat


def _write(cat, rows):
    t = cat.get_table("db.t")
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    w.write_arrow(pa.Table.from_pylist(rows, schema=pa.schema([
        ("id", pa.int32()), ("v", pa.list_(pa.float32(), 4)), ("s", pa.string()), ("w", pa.list_(pa.float64(), 2))])))
    wb.new_commit().commit(w.prepare_commit())


def _read(t):
    rb = t.new_read_builder().with_projection(["id", "v", "s", "w", "_ROW_ID"])
    return sorted(rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist(), key=lambda r: r["_ROW_ID"])


def test_vector_files_read_by_both(tmp_path):
    rnd = random.Random(3)
    wh, cat = _make(tmp_path)
    want = []
    for _ in range(3):
        n = rnd.randint(3, 40)
        rows = [{"id": len(want) + i, "v": [float(rnd.randint(-9, 9)) for _ in range(4)], "s": "s%d" % i,
                 "w": [rnd.random(), rnd.random()]} for i in range(n)]
        _write(cat, rows)
        want += [dict(r, _ROW_ID=len(want) + i) for i, r in enumerate(rows)]
    assert _read(cat.get_table("db.t")) == want
    assert _read(pypaimon.CatalogFactory.create({"warehouse": wh}).get_table("db.t")) == want
    files = bg.table_files(wh, {"table": "db.t"})
    vec = [f for f in files if ".vector." in f["name"]]
    normal = [f for f in files if ".vector." not in f["name"]]
    assert len(vec) == len(normal) == 3
    assert all(f["write_cols"] == ["v", "w"] for f in vec)
    assert all(f["write_cols"] == ["id", "s"] for f in normal)
    assert sorted((f["first_row_id"], f["rows"]) for f in vec) == sorted((f["first_row_id"], f["rows"]) for f in normal)


def test_null_vectors_round_trip(tmp_path):
    wh, cat = _make(tmp_path)
    rows = [{"id": i, "v": None if i % 3 == 0 else [1.0, 2.0, 3.0, float(i)], "s": None, "w": None if i % 2 else [0.5, 1.5]}
            for i in range(10)]
    _write(cat, rows)
    assert _read(cat.get_table("db.t")) == [dict(r, _ROW_ID=i) for i, r in enumerate(rows)]


@pytest.mark.parametrize("fmt", ["lance"])
def test_unwritten_vector_formats_refused(tmp_path, fmt):
    wh, cat = _make(tmp_path, {"vector.file.format": fmt})
    with pytest.raises(paimonc.PaimonError, match="vector.file.format.*%s" % fmt):
        _write(cat, [{"id": 1, "v": [1.0, 2.0, 3.0, 4.0], "s": "a", "w": [1.0, 2.0]}])


def test_update_of_id_and_vectors_keeps_unchanged_vectors(tmp_path):
    """An update of a data column and the vector columns rewrites the whole group (a
    normal file [id, s] and a .vector.parquet [v, w], as pypaimon 2.1.0 writes it); the
    rows not updated keep their vectors (they were read back as null before the fix)."""
    rnd = random.Random(7)
    wh, cat = _make(tmp_path)
    rows = [{"id": i, "v": [float(rnd.randint(-9, 9)) for _ in range(4)], "s": "s%d" % i,
             "w": None if i == 3 else [rnd.random(), rnd.random()]} for i in range(8)]
    _write(cat, rows)
    t = cat.get_table("db.t")
    wb = t.new_batch_write_builder()
    wb.new_commit().commit(wb.new_update().with_update_type(["id", "s", "v", "w"]).update_by_arrow_with_row_id(
        pa.table({"_ROW_ID": pa.array([2, 5], pa.int64()), "id": pa.array([20, 50], pa.int32()),
                  "s": pa.array(["x", None]), "v": pa.array([[1.0, 2.0, 3.0, 4.0], None], pa.list_(pa.float32(), 4)),
                  "w": pa.array([[0.5, 0.25], [1.0, 2.0]], pa.list_(pa.float64(), 2))})))
    rows[2].update(id=20, s="x", v=[1.0, 2.0, 3.0, 4.0], w=[0.5, 0.25])
    rows[5].update(id=50, s=None, v=None, w=[1.0, 2.0])
    want = [dict(r, _ROW_ID=i) for i, r in enumerate(rows)]
    assert _read(cat.get_table("db.t")) == want
    assert _read(pypaimon.CatalogFactory.create({"warehouse": wh}).get_table("db.t")) == want
