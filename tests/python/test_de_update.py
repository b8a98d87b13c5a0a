"""Updates of data-evolution tables by paimonc (update_by_arrow_with_row_id,
with_write_type partial appends, update_by_predicate), checked against an
independent model and read back by pypaimon 2.1.0 and by paimonc; plus the
bad inputs of issue 11, each with a clear error naming the thing at fault."""

import random

import pytest

pa = pytest.importorskip("pyarrow")
pypaimon = pytest.importorskip("pypaimon")

import paimonc  # noqa: E402
from paimonc import InvalidArgumentError, PaimonError, UnsupportedError  # noqa: E402

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}

SCHEMA = pa.schema([
    pa.field("id", pa.int64()),
    pa.field("name", pa.string()),
    pa.field("score", pa.float64()),
    pa.field("tag", pa.int32()),
    pa.field("dt", pa.string()),
])


def commit(table, msgs):
    wb = table.new_batch_write_builder()
    c = wb.new_commit()
    try:
        return c.commit(msgs)
    finally:
        c.close()


def append(table, rows, schema=SCHEMA, write_cols=None):
    w = table.new_batch_write_builder().new_write()
    if write_cols:
        w.with_write_type(write_cols)
    w.write_arrow(pa.Table.from_pylist(rows, schema=schema))
    sid = commit(table, w.prepare_commit())
    w.close()
    return sid


def read_pypaimon(wh, ident, cols, snapshot=None):
    t = pypaimon.CatalogFactory.create({"warehouse": wh}).get_table(ident)
    if snapshot is not None:
        t = t.copy({"scan.snapshot-id": str(snapshot)})
    rb = t.new_read_builder().with_projection(cols + ["_ROW_ID", "_SEQUENCE_NUMBER"])
    out = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    return sorted(out.to_pylist(), key=lambda r: r["_ROW_ID"])


def read_paimonc(cat, ident, cols, snapshot=None):
    t = cat.get_table(ident)
    if snapshot is not None:
        t = t.copy({"scan.snapshot-id": str(snapshot)})
    rb = t.new_read_builder().with_projection(cols + ["_ROW_ID", "_SEQUENCE_NUMBER"])
    out = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    return sorted(out.to_pylist(), key=lambda r: r["_ROW_ID"])


class Model:
    """Expected rows by _ROW_ID, with _SEQUENCE_NUMBER = the snapshot that
    wrote the newest file of the row's group (spec ai-format §3.4)."""

    def __init__(self, cols):
        self.cols = list(cols)
        self.rows = {}
        self.group_of = {}
        self.groups = {}      # start -> [count, seq]
        self.next = 0

    def append(self, rows, sid, write_cols=None):
        start = self.next
        for k, r in enumerate(rows):
            full = {c: (r.get(c) if (write_cols is None or c in write_cols) else None) for c in self.cols}
            self.rows[start + k] = full
            self.group_of[start + k] = start
        self.groups[start] = [len(rows), sid]
        self.next += len(rows)

    def update(self, updates, sid):
        touched = set()
        for rid, vals in updates.items():
            self.rows[rid].update(vals)
            touched.add(self.group_of[rid])
        for g in touched:
            self.groups[g][1] = sid

    def expected(self, cols):
        out = []
        for rid in sorted(self.rows):
            r = {c: self.rows[rid][c] for c in cols}
            r["_ROW_ID"] = rid
            r["_SEQUENCE_NUMBER"] = self.groups[self.group_of[rid]][1]
            out.append(r)
        return out


def rand_rows(rnd, n, start):
    return [{"id": start + i,
             "name": None if rnd.random() < 0.1 else "n%d" % rnd.randrange(1000),
             "score": None if rnd.random() < 0.1 else rnd.uniform(-100, 100),
             "tag": None if rnd.random() < 0.1 else rnd.randrange(-50, 50),
             "dt": rnd.choice(["a", "b"])} for i in range(n)]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("partitioned", [False, True])
def test_updates_read_by_both(tmp_path, seed, partitioned):
    rnd = random.Random(seed * 31 + partitioned)
    wh = str(tmp_path / "wh")
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    cat.create_table("db.t", paimonc.Schema.from_pyarrow_schema(
        SCHEMA, partition_keys=["dt"] if partitioned else None, options=dict(DE)), False)
    t = cat.get_table("db.t")
    cols = [f.name for f in SCHEMA]
    model = Model(cols)
    snaps = []
    for _ in range(rnd.randint(2, 4)):
        rows = rand_rows(rnd, rnd.randint(1, 40), model.next)
        if partitioned:
            # the commit assigns row ids partition by partition, in order of appearance
            order = list(dict.fromkeys(r["dt"] for r in rows))
            rows = [r for p in order for r in rows if r["dt"] == p]
            sid = append(t, rows)
            for p in order:
                model.append([r for r in rows if r["dt"] == p], sid)
        else:
            sid = append(t, rows)
            model.append(rows, sid)
        snaps.append(sid)
    if not partitioned:
        rows = [{"id": 1000 + i, "name": "w%d" % i} for i in range(rnd.randint(1, 5))]
        sid = append(t, rows, pa.schema([SCHEMA.field("id"), SCHEMA.field("name")]), ["id", "name"])
        model.append(rows, sid, write_cols=["id", "name"])
        snaps.append(sid)
    for col in rnd.sample(["name", "score", "tag"], 3):
        t = cat.get_table("db.t")
        ids = rnd.sample(sorted(model.rows), rnd.randint(1, len(model.rows)))
        field = SCHEMA.field(col)
        vals = {}
        for rid in ids:
            v = {"name": "u%d" % rnd.randrange(99), "score": rnd.uniform(0, 1),
                 "tag": rnd.randrange(100)}[col]
            vals[rid] = {col: None if rnd.random() < 0.1 else v}
        data = pa.table({"_ROW_ID": pa.array(ids, pa.int64()),
                         col: pa.array([vals[r][col] for r in ids], field.type)})
        msgs = t.new_batch_write_builder().new_update().with_update_type([col]).update_by_arrow_with_row_id(data)
        sid = commit(t, msgs)
        model.update(vals, sid)
        snaps.append(sid)
    assert read_pypaimon(wh, "db.t", cols) == model.expected(cols)
    assert read_paimonc(cat, "db.t", cols) == model.expected(cols)


def test_update_writes_only_changed_columns(tmp_path):
    wh = str(tmp_path / "wh")
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    cat.create_table("db.t", paimonc.Schema.from_pyarrow_schema(SCHEMA, options=dict(DE)), False)
    t = cat.get_table("db.t")
    append(t, rand_rows(random.Random(1), 50, 0))
    msgs = t.new_batch_write_builder().new_update().with_update_type(["tag"]).update_by_arrow_with_row_id(
        pa.table({"_ROW_ID": pa.array([3, 7], pa.int64()), "tag": pa.array([1, 2], pa.int32())}))
    commit(t, msgs)
    pt = pypaimon.CatalogFactory.create({"warehouse": wh}).get_table("db.t")
    files = [f for s in pt.new_read_builder().new_scan().plan().splits() for f in s.files]
    upd = [f for f in files if f.write_cols]
    assert len(files) == 2 and len(upd) == 1
    assert upd[0].write_cols == ["tag"] and upd[0].first_row_id == 0 and upd[0].row_count == 50
    import pyarrow.parquet as pq
    path = [p for p in (tmp_path / "wh").rglob(upd[0].file_name)][0]
    assert pq.read_schema(str(path)).names == ["tag"]


def _de_table(tmp_path, partitioned=False, options=None):
    wh = str(tmp_path / "wh")
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    opts = dict(DE)
    opts.update(options or {})
    cat.create_table("db.t", paimonc.Schema.from_pyarrow_schema(
        SCHEMA, partition_keys=["dt"] if partitioned else None, options=opts), False)
    t = cat.get_table("db.t")
    append(t, rand_rows(random.Random(2), 10, 0))
    return cat, cat.get_table("db.t")


def _upd(t, cols, data):
    return t.new_batch_write_builder().new_update().with_update_type(cols).update_by_arrow_with_row_id(data)


def test_bad_row_ids(tmp_path):
    cat, t = _de_table(tmp_path)
    with pytest.raises(InvalidArgumentError, match="_ROW_ID 10 is not a row of snapshot 1"):
        _upd(t, ["tag"], pa.table({"_ROW_ID": pa.array([1, 10], pa.int64()), "tag": pa.array([1, 2], pa.int32())}))
    with pytest.raises(InvalidArgumentError, match="_ROW_ID 4 appears more than once"):
        _upd(t, ["tag"], pa.table({"_ROW_ID": pa.array([4, 4], pa.int64()), "tag": pa.array([1, 2], pa.int32())}))
    with pytest.raises(InvalidArgumentError, match="_ROW_ID"):
        _upd(t, ["tag"], pa.table({"tag": pa.array([1], pa.int32())}))
    with pytest.raises(InvalidArgumentError, match="nulls"):
        _upd(t, ["tag"], pa.table({"_ROW_ID": pa.array([None], pa.int64()), "tag": pa.array([1], pa.int32())}))


def test_bad_columns(tmp_path):
    cat, t = _de_table(tmp_path, partitioned=True)
    data = pa.table({"_ROW_ID": pa.array([0], pa.int64()), "dt": ["x"]})
    with pytest.raises(InvalidArgumentError, match="partition column"):
        _upd(t, ["dt"], data)
    with pytest.raises(InvalidArgumentError, match="nope"):
        t.new_batch_write_builder().new_update().with_update_type(["nope"])
    with pytest.raises(InvalidArgumentError, match="lacks update column 'tag'"):
        _upd(t, ["tag"], pa.table({"_ROW_ID": pa.array([0], pa.int64())}))
    with pytest.raises(InvalidArgumentError, match="with_write_type.*partition column 'dt'"):
        w = t.new_batch_write_builder().new_write()
        w.with_write_type(["id"])
    with pytest.raises(InvalidArgumentError, match="not in the write type"):
        w = t.new_batch_write_builder().new_write()
        w.with_write_type(["id", "dt"])
        w.write_arrow(pa.table({"id": pa.array([1], pa.int64()), "dt": ["a"], "tag": pa.array([1], pa.int32())}))


def test_not_data_evolution(tmp_path):
    wh = str(tmp_path / "wh")
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    cat.create_table("db.t", paimonc.Schema.from_pyarrow_schema(SCHEMA), False)
    t = cat.get_table("db.t")
    append(t, rand_rows(random.Random(3), 5, 0))
    with pytest.raises(InvalidArgumentError, match="data-evolution.enabled"):
        _upd(t, ["tag"], pa.table({"_ROW_ID": pa.array([0], pa.int64()), "tag": pa.array([1], pa.int32())}))


def test_nested_blob_column_refused(tmp_path):
    """Scalar and ARRAY<BLOB> / MAP<K, BLOB> updates write .blob deltas
    (tests/python/test_blob_update.py, test_blob_nested.py); an ARRAY<BLOB> named as a
    blob-descriptor-field (pypaimon refuses it too) is refused and says so."""
    wh = str(tmp_path / "wh")
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    cat.create_table("db.t", paimonc.Schema(fields=[("id", "BIGINT"), ("imgs", "ARRAY<BLOB>")],
                                            options=dict(DE, **{"blob-descriptor-field": "imgs"})), False)
    t = cat.get_table("db.t")
    with pytest.raises(PaimonError, match="column 'imgs'.*nests BLOB"):
        _upd(t, ["imgs"], pa.table({"_ROW_ID": pa.array([0], pa.int64()),
                                    "imgs": pa.array([[b"x"]], pa.list_(pa.large_binary()))}))


def test_update_by_predicate(tmp_path):
    wh = str(tmp_path / "wh")
    cat, t = _de_table(tmp_path)
    rows = rand_rows(random.Random(2), 10, 0)
    pb = t.new_read_builder().new_predicate_builder()
    msgs = t.new_batch_write_builder().new_update().update_by_predicate(pb.greater_or_equal("id", 6), {"tag": 7})
    commit(t, msgs)
    got = read_paimonc(cat, "db.t", ["id", "tag"])
    assert [r["tag"] for r in got] == [rows[i]["tag"] if i < 6 else 7 for i in range(10)]
    assert [r["tag"] for r in read_pypaimon(wh, "db.t", ["id", "tag"])] == [r["tag"] for r in got]


def test_data_evolution_option_flipped_on_a_copy(tmp_path):
    """Immutable options (row-tracking.enabled, data-evolution.enabled) cannot change on a
    copy (Java checkImmutability); other dynamic options still can."""
    cat, t = _de_table(tmp_path)
    for key, val in (("data-evolution.enabled", "false"), ("row-tracking.enabled", "false")):
        with pytest.raises(InvalidArgumentError, match="option '%s' of table 'db.t' cannot be changed" % key):
            t.copy({key: val})
    assert t.copy({"data-evolution.enabled": "true", "read.batch-size": "7"}).options["read.batch-size"] == "7"
    cat.create_table("db.plain", paimonc.Schema.from_pyarrow_schema(SCHEMA), False)
    with pytest.raises(InvalidArgumentError, match="row-tracking.enabled.*'\\(unset\\)' -> 'true'"):
        cat.get_table("db.plain").copy({"row-tracking.enabled": "true"})
    cat.get_table("db.plain").copy({"row-tracking.enabled": "false"})
