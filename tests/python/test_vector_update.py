"""Updates by row id of VECTOR columns kept in a dedicated vector store
(vector.file.format=parquet, docs/blob-layout.md §9.3).

pypaimon 2.1.0 writes an update of vector columns alone as one whole-group
`.vector.parquet` per touched row-id group (first_row_id = the group's start, its
row count, _WRITE_COLS = the vector columns, seq = the snapshot id) and no normal
file. paimonc does the same, and for a subset (["v"] of a table with v and w)
rewrites every vector column of the group (the others' current values), so that
the group's vector bunch keeps one set of write columns and pypaimon can still read
the table (pypaimon's own subset update makes it unreadable). Fixed-seed random
data over several groups, null vectors included (pypaimon reads them; it cannot
write them), checked against a model with both peers."""
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
FIELDS = [("id", "INT"), ("v", "VECTOR<FLOAT, 4>"), ("s", "STRING"), ("w", "VECTOR<DOUBLE, 2>")]
ARROW = {"id": pa.int32(), "v": pa.list_(pa.float32(), 4), "s": pa.string(), "w": pa.list_(pa.float64(), 2),
         "b": pa.large_binary()}
VEC = ("v", "w")


def _catalog(wh):
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    return cat


def _pp(wh):
    return pypaimon.CatalogFactory.create({"warehouse": wh})


def _value(rnd, col, nulls=True):
    if col == "id":
        return rnd.randint(-1000, 1000)
    if col == "s":
        return "s%d" % rnd.randint(0, 99)
    if col == "b":
        return None if nulls and rnd.random() < 0.2 else rnd.randbytes(rnd.randint(0, 300))
    if nulls and rnd.random() < 0.25:
        return None
    # floats exact in float32 so the model compares equal
    return [rnd.randint(-64, 64) / 8.0 for _ in range(4 if col == "v" else 2)]


def _row(rnd, cols, nulls=True):
    return {c: _value(rnd, c, nulls) for c in cols}


def _write(t, rows, cols):
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    w.write_arrow(pa.Table.from_pylist(rows, schema=pa.schema([(c, ARROW[c]) for c in cols])))
    wb.new_commit().commit(w.prepare_commit())


def _read(t, cols):
    rb = t.new_read_builder().with_projection(list(cols) + ["_ROW_ID"])
    out = rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist()
    return sorted(({k: (bg.digest(v) if isinstance(v, bytes) else v) for k, v in r.items()} for r in out),
                  key=lambda r: r["_ROW_ID"])


def _want(model, cols):
    return [dict({c: (bg.digest(r[c]) if isinstance(r[c], bytes) else r[c]) for c in cols}, _ROW_ID=i)
            for i, r in enumerate(model)]


def _update_table(rnd, model, cols, groups, max_per_group=4):
    """Random new values of cols for a few rows of a random subset of the groups
    (rows shuffled); applied to the model. Returns (arrow table, touched group starts)."""
    touched = [g for g in groups if rnd.random() < 0.6] or [rnd.choice(groups)]
    rids = []
    for start, count in touched:
        rids += rnd.sample(range(start, start + count), rnd.randint(1, min(max_per_group, count)))
    rnd.shuffle(rids)
    vals = {c: [] for c in cols}
    for rid in rids:
        for c in cols:
            x = _value(rnd, c)
            vals[c].append(x)
            model[rid][c] = x
    order = list(cols)
    rnd.shuffle(order)  # the input's column order does not matter
    d = {"_ROW_ID": pa.array(rids, pa.int64())}
    for c in order:
        d[c] = pa.array(vals[c], ARROW[c])
    return pa.table(d), sorted(s for s, _ in touched)


def _commit_update(t, cols, data, api):
    if api == "stream":
        wb = t.new_stream_write_builder()
        wb.new_commit().commit(wb.new_update().with_update_type(cols).update_by_arrow_with_row_id(data, 1), 1)
        return
    wb = t.new_batch_write_builder()
    upd = wb.new_update().with_update_type(cols)
    if api == "batches":
        h = data.num_rows // 2
        msgs = upd.update_by_arrow_batches_with_row_id([data.slice(0, h), data.slice(h)])
    else:
        msgs = upd.update_by_arrow_with_row_id(data)
    wb.new_commit().commit(msgs)


def _latest(wh):
    with open(os.path.join(wh, "db.db", "t", "snapshot", "LATEST")) as f:
        return int(f.read())


def _check_new_files(wh, before, cols, touched, groups, snap):
    """The files the update added: per touched group one whole-group .vector.parquet
    [v, w] with seq [snap, snap]; a normal file only for non-vector columns; no .blob
    unless a BLOB column was updated."""
    files = bg.table_files(wh, {"table": "db.t"})
    new = [f for f in files if f["name"] not in before]
    vec = [f for f in new if ".vector." in f["name"]]
    blob = [f for f in new if f["name"].endswith(".blob")]
    normal = [f for f in new if f not in vec and f not in blob]
    size = dict(groups)
    assert sorted(f["first_row_id"] for f in vec) == touched
    for f in vec:
        assert f["write_cols"] == ["v", "w"]
        assert f["rows"] == size[f["first_row_id"]]
        assert f["seq"] == [snap, snap]
        assert f["name"].endswith("-0.vector.parquet")
    data_cols = [c for c in cols if c not in VEC and c != "b"]
    if data_cols:
        assert sorted(f["first_row_id"] for f in normal) == touched
        assert all(f["write_cols"] == data_cols and f["rows"] == size[f["first_row_id"]] for f in normal)
    else:
        assert normal == []
    assert bool(blob) == ("b" in cols)
    return files


@pytest.mark.parametrize("seed", range(3))
def test_vector_updates_random(tmp_path, seed):
    rnd = random.Random(seed)
    wh = str(tmp_path / "wh")
    cat = _catalog(wh)
    cat.create_table("db.t", paimonc.Schema(fields=FIELDS, options=DE), False)
    cols = [c for c, _ in FIELDS]
    model, groups = [], []
    for _ in range(rnd.randint(3, 5)):
        rows = [_row(rnd, cols) for _ in range(rnd.randint(1, 30))]
        _write(cat.get_table("db.t"), rows, cols)
        groups.append((len(model), len(rows)))
        model += rows
    rounds = [(["v"], "batch"), (["v", "w"], "stream"), (["id", "v"], "batches"), (["w"], "batch"),
              (["s", "w", "v"], "batch"), (["v"], "stream")]
    for ucols, api in rounds:
        before = {f["name"] for f in bg.table_files(wh, {"table": "db.t"})}
        data, touched = _update_table(rnd, model, ucols, groups)
        _commit_update(cat.get_table("db.t"), ucols, data, api)
        _check_new_files(wh, before, ucols, touched, groups, _latest(wh))
        want = _want(model, cols)
        assert _read(cat.get_table("db.t"), cols) == want, (ucols, api)
        assert _read(_pp(wh).get_table("db.t"), cols) == want, (ucols, api)
        # projections of one vector column read the same
        assert _read(cat.get_table("db.t"), ["w"]) == _want(model, ["w"])


def test_whole_group_vector_update_reads_nothing(tmp_path):
    """Every row of a group updated (all vector columns): written from the input alone;
    a group whose vector file has only nulls still reads as such."""
    wh = str(tmp_path / "wh")
    cat = _catalog(wh)
    cat.create_table("db.t", paimonc.Schema(fields=FIELDS, options=DE), False)
    rnd = random.Random(11)
    cols = [c for c, _ in FIELDS]
    model = [_row(rnd, cols) for _ in range(6)]
    _write(cat.get_table("db.t"), model, cols)
    data = pa.table({"_ROW_ID": pa.array(range(6), pa.int64()), "v": pa.array([None] * 6, ARROW["v"]),
                     "w": pa.array([[float(i), 1.0] for i in range(6)], ARROW["w"])})
    for r, i in zip(model, range(6)):
        r.update(v=None, w=[float(i), 1.0])
    _commit_update(cat.get_table("db.t"), ["v", "w"], data, "batch")
    assert _read(cat.get_table("db.t"), cols) == _want(model, cols)
    assert _read(_pp(wh).get_table("db.t"), cols) == _want(model, cols)


def test_pypaimon_vector_updates_read_by_paimonc(tmp_path):
    """pypaimon writes and updates ["v", "w"] (its shape: whole-group vector files, no
    normal file); paimonc reads it equal, then updates ["v"] (with null vectors), and
    both read the result."""
    rnd = random.Random(5)
    wh = str(tmp_path / "wh")
    pcat = bg._catalog(wh)
    bg._create(pcat, "t", [("id", "INT"), ("v", {"type": "VECTOR", "element": "FLOAT", "length": 4}), ("s", "STRING"),
                           ("w", {"type": "VECTOR", "element": "DOUBLE", "length": 2})],
               {"vector.file.format": "parquet"})
    cols = [c for c, _ in FIELDS]
    model, groups = [], []
    for _ in range(3):
        rows = [_row(rnd, cols, nulls=False) for _ in range(rnd.randint(2, 20))]
        _write(pcat.get_table("db.t"), rows, cols)
        groups.append((len(model), len(rows)))
        model += rows
    for ucols in (["v", "w"], ["id", "v", "w"]):
        before = {f["name"] for f in bg.table_files(wh, {"table": "db.t"})}
        rids = sorted(rnd.sample(range(len(model)), 5))
        vals = {c: [_value(rnd, c, nulls=False) for _ in rids] for c in ucols}
        for k, rid in enumerate(rids):
            for c in ucols:
                model[rid][c] = vals[c][k]
        bg._update(pcat, "t", ucols, rids, {c: pa.array(vals[c], ARROW[c]) for c in ucols})
        touched = sorted({s for s, n in groups for r in rids if s <= r < s + n})
        _check_new_files(wh, before, ucols, touched, groups, _latest(wh))
        assert _read(_catalog(wh).get_table("db.t"), cols) == _want(model, cols)
    cat = _catalog(wh)
    before = {f["name"] for f in bg.table_files(wh, {"table": "db.t"})}
    data, touched = _update_table(rnd, model, ["v"], groups)
    _commit_update(cat.get_table("db.t"), ["v"], data, "batch")
    _check_new_files(wh, before, ["v"], touched, groups, _latest(wh))
    assert _read(cat.get_table("db.t"), cols) == _want(model, cols)
    assert _read(_pp(wh).get_table("db.t"), cols) == _want(model, cols)


def test_blob_and_vector_update(tmp_path):
    """A table with a BLOB and vector columns: updates of ["b", "v"] give a .blob delta
    and a whole-group .vector.parquet [v, w]; ["id", "b", "w"] a normal file too."""
    rnd = random.Random(9)
    wh = str(tmp_path / "wh")
    cat = _catalog(wh)
    fields = FIELDS + [("b", "BLOB")]
    cat.create_table("db.t", paimonc.Schema(fields=fields, options=dict(DE, **{"blob-field": "b"})), False)
    cols = [c for c, _ in fields]
    model, groups = [], []
    for _ in range(3):
        rows = [_row(rnd, cols) for _ in range(rnd.randint(2, 15))]
        _write(cat.get_table("db.t"), rows, cols)
        groups.append((len(model), len(rows)))
        model += rows
    for ucols in (["b", "v"], ["id", "b", "w"], ["w"]):
        before = {f["name"] for f in bg.table_files(wh, {"table": "db.t"})}
        data, touched = _update_table(rnd, model, ucols, groups)
        _commit_update(cat.get_table("db.t"), ucols, data, "batch")
        _check_new_files(wh, before, ucols, touched, groups, _latest(wh))
        want = _want(model, cols)
        assert _read(cat.get_table("db.t"), cols) == want, ucols
        assert _read(_pp(wh).get_table("db.t"), cols) == want, ucols


def test_vector_update_refusals(tmp_path):
    """Without a dedicated vector store, vector updates stay in the normal file (no
    companion); a bad input is refused naming the column."""
    wh = str(tmp_path / "wh")
    cat = _catalog(wh)
    cat.create_table("db.t", paimonc.Schema(fields=FIELDS, options={k: v for k, v in DE.items()
                                                                    if k != "vector.file.format"}), False)
    rnd = random.Random(2)
    cols = [c for c, _ in FIELDS]
    model = [_row(rnd, cols, nulls=False) for _ in range(8)]
    _write(cat.get_table("db.t"), model, cols)
    data, _ = _update_table(rnd, model, ["v"], [(0, 8)])
    _commit_update(cat.get_table("db.t"), ["v"], data, "batch")
    files = bg.table_files(wh, {"table": "db.t"})
    assert not any(".vector." in f["name"] for f in files)
    assert [f["write_cols"] for f in files if f["write_cols"]] == [["v"]]
    assert _read(cat.get_table("db.t"), cols) == _want(model, cols)
    t = cat.get_table("db.t")
    with pytest.raises(paimonc.PaimonError, match="cannot cast"):
        t.new_batch_write_builder().new_update().with_update_type(["v"]).update_by_arrow_with_row_id(
            pa.table({"_ROW_ID": pa.array([0], pa.int64()), "v": pa.array([[1.0, 2.0]], pa.list_(pa.float32(), 2))}))
