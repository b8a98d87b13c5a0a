"""Tests of paimonc's pypaimon-shaped write / commit / read API (paimonc.write,
paimonc.read, paimonc.predicate over include/paimonc/table.h)."""

import datetime as dt
import decimal
import multiprocessing
import os
import pickle
import random
import threading
import time

import pytest

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")

import paimonc  # noqa: E402
from paimonc import (CatalogFactory, CommitMessage, InvalidArgumentError, NotFoundError, PaimonError,  # noqa: E402
                     Predicate, Schema, Split)

UTC = dt.timezone.utc

ALL_TYPES = pa.schema([
    pa.field("id", pa.int64(), nullable=False),
    pa.field("i8", pa.int8()),
    pa.field("i16", pa.int16()),
    pa.field("i32", pa.int32()),
    pa.field("f32", pa.float32()),
    pa.field("f64", pa.float64()),
    pa.field("b", pa.bool_()),
    pa.field("s", pa.string()),
    pa.field("bin", pa.binary()),
    pa.field("dec", pa.decimal128(10, 2)),
    pa.field("d", pa.date32()),
    pa.field("ts", pa.timestamp("us")),
    pa.field("ts_ltz", pa.timestamp("us", tz="UTC")),
    pa.field("ts_ms", pa.timestamp("ms")),
])


def make_rows(n, seed=7, start=0):
    """Deterministic rows for ALL_TYPES with ~10% nulls in every nullable column."""
    rnd = random.Random(seed)

    def maybe(v):
        return None if rnd.random() < 0.1 else v

    base = dt.datetime(2024, 5, 14, 1, 2, 3)
    cols = {f.name: [] for f in ALL_TYPES}
    for k in range(start, start + n):
        cols["id"].append(k)
        cols["i8"].append(maybe(rnd.randint(-128, 127)))
        cols["i16"].append(maybe(rnd.randint(-32768, 32767)))
        cols["i32"].append(maybe(rnd.randint(-2**31, 2**31 - 1)))
        cols["f32"].append(maybe(float(rnd.randint(-1000, 1000)) / 4))
        cols["f64"].append(maybe(rnd.uniform(-1e6, 1e6)))
        cols["b"].append(maybe(rnd.random() < 0.5))
        cols["s"].append(maybe(rnd.choice(["apple", "banana", "cherry", "", "äpfel", "band"]) + str(k % 7)))
        cols["bin"].append(maybe(bytes(rnd.randrange(256) for _ in range(rnd.randint(0, 6)))))
        cols["dec"].append(maybe(decimal.Decimal(rnd.randint(-10**8, 10**8)).scaleb(-2)))
        cols["d"].append(maybe(dt.date(2020, 1, 1) + dt.timedelta(days=rnd.randint(0, 2000))))
        cols["ts"].append(maybe(base + dt.timedelta(microseconds=rnd.randint(-10**12, 10**12))))
        cols["ts_ltz"].append(maybe((base + dt.timedelta(seconds=rnd.randint(0, 10**7))).replace(tzinfo=UTC)))
        cols["ts_ms"].append(maybe(base + dt.timedelta(milliseconds=rnd.randint(0, 10**9))))
    return pa.table(cols, schema=ALL_TYPES)


@pytest.fixture
def catalog(tmp_path):
    c = CatalogFactory.create({"warehouse": str(tmp_path / "wh")})
    c.create_database("db")
    return c


def create(catalog, name, schema, **kw):
    catalog.create_table("db." + name, Schema.from_pyarrow_schema(schema, **kw))
    return catalog.get_table("db." + name)


def write(table, data, overwrite=None):
    wb = table.new_batch_write_builder()
    if overwrite is not None:
        wb.overwrite(overwrite)
    with wb.new_write() as w, wb.new_commit() as c:
        if isinstance(data, (list, tuple)):
            for d in data:
                w.write_arrow(d)
        else:
            w.write_arrow(data)
        return c.commit(w.prepare_commit())


def read(table, predicate=None, projection=None, limit=None):
    rb = table.new_read_builder()
    if predicate is not None:
        rb = rb.with_filter(predicate)
    if projection is not None:
        rb = rb.with_projection(projection)
    if limit is not None:
        rb = rb.with_limit(limit)
    splits = rb.new_scan().plan().splits()
    return rb.new_read().to_arrow(splits)


def sort_by_id(t):
    return t.sort_by("id") if "id" in t.column_names else t


def assert_same(actual, expected):
    actual = sort_by_id(actual)
    expected = sort_by_id(expected)
    assert actual.column_names == expected.column_names
    for name in expected.column_names:
        a = actual.column(name).to_pylist()
        e = expected.column(name).cast(actual.schema.field(name).type).to_pylist()
        assert a == e, name


# ------------------------------------------------------------ round trips

@pytest.fixture
def all_types_table(catalog):
    t = create(catalog, "all", ALL_TYPES)
    data = make_rows(500)
    write(t, data)
    return t, data


def test_roundtrip_every_type_with_nulls(all_types_table):
    t, data = all_types_table
    out = read(t)
    assert out.num_rows == 500
    assert out.column_names == ALL_TYPES.names
    assert_same(out, data)
    assert out.column("s").null_count == data.column("s").null_count


def test_read_type_and_schema(all_types_table):
    t, _ = all_types_table
    with pytest.raises(paimonc.InvalidArgumentError, match="'nope' does not exist"):
        t.new_read_builder().with_projection(["s", "id", "nope"])
    rb = t.new_read_builder().with_projection(["s", "id"])
    assert [f.name for f in rb.read_type()] == ["s", "id"]
    assert rb.read_arrow_schema().names == ["s", "id"]


def test_empty_table_reads_empty(catalog):
    t = create(catalog, "empty", ALL_TYPES)
    plan = t.new_read_builder().new_scan().plan()
    assert plan.splits() == [] and plan.snapshot_id is None
    out = t.new_read_builder().new_read().to_arrow([])
    assert out.num_rows == 0


def test_batches_pandas_and_capsule_inputs(catalog):
    t = create(catalog, "inputs", pa.schema([pa.field("id", pa.int64(), nullable=False), ("s", pa.string())]))
    data = pa.table({"id": list(range(30)), "s": [str(i) for i in range(30)]}, schema=t.to_arrow_schema())
    wb = t.new_batch_write_builder()
    with wb.new_write() as w, wb.new_commit() as c:
        w.write_arrow_batch(data.slice(0, 10).to_batches()[0])       # RecordBatch
        w.write_pandas(data.slice(10, 10).to_pandas())                 # pandas

        class OnlyStream:                                              # PyCapsule stream interface
            def __arrow_c_stream__(self, requested_schema=None):
                return data.slice(20, 5).__arrow_c_stream__()

        class OnlyArray:                                               # PyCapsule array interface
            def __arrow_c_array__(self, requested_schema=None):
                return data.slice(25, 5).to_batches()[0].__arrow_c_array__()

        w.write_arrow(OnlyStream())
        w.write_arrow(OnlyArray())
        assert w.row_count == 30
        msgs = w.prepare_commit()
        assert sum(m.row_count for m in msgs) == 30
        sid = c.commit(msgs)
    assert sid == 1
    assert_same(read(t), data)
    df = t.new_read_builder().new_read().to_pandas(t.new_read_builder().new_scan().plan().splits())
    assert sorted(df["id"].tolist()) == list(range(30))


def test_partitioned_roundtrip_and_pruning(catalog):
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), ("v", pa.float64()),
                        pa.field("dt", pa.string(), nullable=False), pa.field("h", pa.int32(), nullable=False)])
    t = create(catalog, "parts", schema, partition_keys=["dt", "h"])
    rows = {"id": list(range(90)), "v": [i * 0.5 for i in range(90)],
            "dt": ["2024-01-0%d" % (1 + i % 3) for i in range(90)], "h": [i % 2 for i in range(90)]}
    data = pa.table(rows, schema=schema)
    write(t, data)
    assert_same(read(t), data)
    pb = t.new_read_builder().new_predicate_builder()
    rb = t.new_read_builder().with_filter(pb.and_predicates([pb.equal("dt", "2024-01-02"), pb.equal("h", 1)]))
    plan = rb.new_scan().plan()
    assert plan.files_selected < plan.files_total
    out = rb.new_read().to_arrow(plan.splits())
    exp = data.filter(pc.and_(pc.equal(data["dt"], "2024-01-02"), pc.equal(data["h"], 1)))
    assert_same(out, exp)


# -------------------------------------------------- snapshots, overwrite

def test_commits_snapshots_and_time_travel(catalog):
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), ("s", pa.string())])
    t = create(catalog, "tt", schema)
    a = pa.table({"id": [1, 2], "s": ["a", "b"]}, schema=schema)
    b = pa.table({"id": [3], "s": ["c"]}, schema=schema)
    assert write(t, a) == 1
    assert write(t, b) == 2
    snap = t.latest_snapshot()
    assert snap.id == 2 and snap.commit_kind == "APPEND" and snap.total_record_count == 3
    assert snap.commit_identifier == paimonc.write.BATCH_COMMIT_IDENTIFIER
    assert read(t).num_rows == 3
    assert_same(read(t.copy({"scan.snapshot-id": "1"})), a)
    t.create_tag("first", 1)
    assert_same(read(t.copy({"scan.tag-name": "first"})), a)
    t1 = t.copy({"scan.snapshot-id": 1})
    assert t1.options["scan.snapshot-id"] == "1"
    assert "scan.snapshot-id" not in t1.copy({"scan.snapshot-id": None}).options
    assert read(t1.copy({"scan.snapshot-id": None})).num_rows == 3
    with pytest.raises(PaimonError):
        read(t.copy({"scan.snapshot-id": "99"}))
    with pytest.raises(InvalidArgumentError):
        t.copy({"bucket": "4"})


def test_empty_commit_makes_no_snapshot(catalog):
    t = create(catalog, "emptycommit", pa.schema([("id", pa.int64())]))
    wb = t.new_batch_write_builder()
    with wb.new_write() as w, wb.new_commit() as c:
        assert w.prepare_commit() == []
        assert c.commit([]) is None
    assert t.latest_snapshot() is None


OW_SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("dt", pa.string(), nullable=False),
                       pa.field("hr", pa.int32(), nullable=False)])


def _ow_rows(start, parts):
    """One row per (dt, hr) in parts, ids from start."""
    return pa.table({"id": list(range(start, start + len(parts))), "dt": [p[0] for p in parts],
                     "hr": [p[1] for p in parts]}, schema=OW_SCHEMA)


# (dynamic-partition-overwrite or None for the default, static partition or None for a plain
# append, rows or "truncate"); run on a paimonc table and a pypaimon twin
OW_STEPS = [
    (None, None, _ow_rows(0, [("a", 1), ("a", 2), ("b", 1), ("b", 2), ("c", 1), ("a", 1)])),
    (None, {}, _ow_rows(100, [("b", 1), ("b", 1)])),             # dynamic: only (b,1)
    (None, {"dt": "a"}, _ow_rows(200, [("c", 1), ("d", 7)])),    # dynamic: spec ignored
    (None, {}, _ow_rows(0, [])),                                 # dynamic, no data: no snapshot
    ("true", {"dt": "zz"}, _ow_rows(0, [])),
    ("false", {"dt": "a"}, _ow_rows(300, [("a", 5)])),           # static prefix: every hr of a
    ("false", {"dt": "b", "hr": 1}, _ow_rows(0, [])),            # static, no data: deletes (b,1)
    ("false", {"hr": 7}, _ow_rows(400, [("x", 7)])),             # non-prefix subset
    (None, None, _ow_rows(500, [("e", 3)])),
    ("false", {}, _ow_rows(600, [("f", 1), ("f", 2)])),          # static whole table
    (None, {}, "truncate"),
]


def _run_ow_step(table, dyn, spec, rows):
    if dyn is not None:
        table = table.copy({"dynamic-partition-overwrite": dyn})
    wb = table.new_batch_write_builder()
    if spec is not None:
        wb.overwrite(spec)
    if isinstance(rows, str):
        c = wb.new_commit()
        c.truncate_table()
        c.close()
        return
    w, c = wb.new_write(), wb.new_commit()
    if rows.num_rows:
        w.write_arrow(rows)
    c.commit(w.prepare_commit())
    w.close()
    c.close()


def _rows_of(table):
    rb = table.new_read_builder()
    out = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    if out is None:
        return []
    return sorted(zip(*[out.column(n).to_pylist() for n in OW_SCHEMA.names]))


def _latest_of(py_table):
    s = py_table.snapshot_manager().get_latest_snapshot()
    return (s.id, s.commit_kind) if s else None


def test_overwrite_semantics_match_pypaimon(catalog):
    pyp = _pypaimon()
    t = create(catalog, "ow", OW_SCHEMA, partition_keys=["dt", "hr"])
    pcat = pyp.CatalogFactory.create({"warehouse": catalog.warehouse})
    pcat.create_table("db.ow_py", pyp.Schema.from_pyarrow_schema(OW_SCHEMA, partition_keys=["dt", "hr"]), False)
    pt = pcat.get_table("db.ow_py")
    for i, (dyn, spec, rows) in enumerate(OW_STEPS):
        _run_ow_step(t, dyn, spec, rows)
        _run_ow_step(pt, dyn, spec, rows)
        mine = _rows_of(t)
        assert mine == _rows_of(pt), "step %d" % i
        # pypaimon reads paimonc's table the same way
        assert _rows_of(pcat.get_table("db.ow")) == mine, "step %d" % i
        # same snapshots (an empty dynamic overwrite makes none)
        s = t.latest_snapshot()
        assert (s.id, s.commit_kind) == _latest_of(pt), "step %d" % i
    assert _rows_of(t) == []
    # a few spot checks of the rules themselves
    t2 = create(catalog, "ow2", OW_SCHEMA, partition_keys=["dt", "hr"])
    _run_ow_step(t2, None, None, _ow_rows(0, [("a", 1), ("a", 2), ("b", 1)]))
    _run_ow_step(t2, None, {}, _ow_rows(10, [("a", 1)]))
    assert sorted(r[0] for r in _rows_of(t2)) == [1, 2, 10]
    _run_ow_step(t2, "false", {"dt": "a"}, _ow_rows(20, [("a", 3)]))
    assert sorted(r[0] for r in _rows_of(t2)) == [2, 20]


def test_overwrite_errors_and_unpartitioned(catalog):
    t = create(catalog, "owe", OW_SCHEMA, partition_keys=["dt", "hr"])
    _run_ow_step(t, None, None, _ow_rows(0, [("a", 1), ("b", 2)]))
    static = t.copy({"dynamic-partition-overwrite": "false"})
    # data outside the static partition: rejected, nothing committed
    with pytest.raises(PaimonError, match="does not belong"):
        _run_ow_step(static, None, {"dt": "a"}, _ow_rows(10, [("b", 2)]))
    # unknown partition key / bad value: rejected in both modes
    for tb in (t, static):
        with pytest.raises(PaimonError, match="not a partition key"):
            _run_ow_step(tb, None, {"nope": "x"}, _ow_rows(10, [("a", 1)]))
        with pytest.raises(PaimonError):
            _run_ow_step(tb, None, {"hr": "one"}, _ow_rows(10, [("a", 1)]))
    assert t.latest_snapshot().id == 1
    assert sorted(r[0] for r in _rows_of(t)) == [0, 1]
    # None means the null partition (matches nothing here)
    _run_ow_step(static, None, {"dt": None}, _ow_rows(0, []))
    assert t.latest_snapshot().commit_kind == "OVERWRITE"
    assert sorted(r[0] for r in _rows_of(t)) == [0, 1]
    # unpartitioned: always the whole table
    u = create(catalog, "owu", OW_SCHEMA)
    _run_ow_step(u, None, None, _ow_rows(0, [("a", 1), ("b", 2)]))
    _run_ow_step(u, None, {}, _ow_rows(5, [("c", 3)]))
    assert [r[0] for r in _rows_of(u)] == [5]
    with pytest.raises(PaimonError, match="not partitioned"):
        _run_ow_step(u, None, {"dt": "a"}, _ow_rows(6, [("a", 1)]))
    # truncate of an already empty table still commits (Java)
    _run_ow_step(u, None, {}, "truncate")
    sid = u.latest_snapshot().id
    _run_ow_step(u, None, {}, "truncate")
    assert u.latest_snapshot().id == sid + 1 and _rows_of(u) == []


def test_one_time_prepare_and_commit(catalog):
    t = create(catalog, "once", pa.schema([("id", pa.int64())]))
    wb = t.new_batch_write_builder()
    w, c = wb.new_write(), wb.new_commit()
    w.write_arrow(pa.table({"id": [1]}))
    msgs = w.prepare_commit()
    with pytest.raises(RuntimeError):
        w.prepare_commit()
    c.commit(msgs)
    with pytest.raises(RuntimeError):
        c.commit(msgs)
    w.close()
    c.close()
    w.close()  # idempotent
    with pytest.raises(RuntimeError):
        w.write_arrow(pa.table({"id": [1]}))


def test_abort_deletes_files(catalog):
    t = create(catalog, "abort", pa.schema([("id", pa.int64())]))
    wb = t.new_batch_write_builder()
    with wb.new_write() as w, wb.new_commit() as c:
        w.write_arrow(pa.table({"id": list(range(10))}))
        msgs = w.prepare_commit()
        files = [os.path.join(r, f) for r, _, fs in os.walk(t.table_path) for f in fs if f.startswith("data-")]
        assert files
        c.abort(msgs)
        assert not any(os.path.exists(f) for f in files)
    assert t.latest_snapshot() is None


def test_stream_write_commit(catalog):
    t = create(catalog, "stream", pa.schema([("id", pa.int64())]))
    wb = t.new_stream_write_builder()
    with wb.new_write() as w, wb.new_commit() as c:
        for ident in (1, 2):
            w.write_arrow(pa.table({"id": [ident]}))
            c.commit(w.prepare_commit(ident), ident)
    assert t.latest_snapshot().id == 2
    assert t.latest_snapshot().commit_identifier == 2
    assert sorted(read(t).column("id").to_pylist()) == [1, 2]


# ---------------------------------------------------------------- filters

def _filter_cases(pb, data):
    """(predicate, expected pyarrow mask) pairs covering every operator."""
    c = data.column
    d0 = dt.date(2022, 6, 1)
    ts0 = dt.datetime(2024, 5, 14, 1, 2, 3)
    return [
        (pb.equal("i32", c("i32")[3].as_py()), pc.equal(c("i32"), c("i32")[3])),
        (pb.not_equal("b", True), pc.not_equal(c("b"), True)),
        (pb.less_than("f64", 0.0), pc.less(c("f64"), 0.0)),
        (pb.less_or_equal("i8", -5), pc.less_equal(c("i8"), -5)),
        (pb.greater_than("dec", decimal.Decimal("1234.5")), pc.greater(c("dec"), pa.scalar(decimal.Decimal("1234.50"), pa.decimal128(10, 2)))),
        (pb.greater_or_equal("d", d0), pc.greater_equal(c("d"), pa.scalar(d0))),
        (pb.less_than("ts", ts0), pc.less(c("ts"), pa.scalar(ts0, pa.timestamp("us")))),
        (pb.greater_than("ts_ltz", dt.datetime(2024, 6, 1, tzinfo=UTC)),
         pc.greater(c("ts_ltz"), pa.scalar(dt.datetime(2024, 6, 1, tzinfo=UTC), pa.timestamp("us", tz="UTC")))),
        (pb.is_null("s"), pc.is_null(c("s"))),
        (pb.is_not_null("dec"), pc.is_valid(c("dec"))),
        (pb.is_in("s", ["apple1", "band3", "cherry0"]), pc.is_in(c("s"), pa.array(["apple1", "band3", "cherry0"]))),
        (pb.is_not_in("i16", [c("i16")[0].as_py(), c("i16")[1].as_py()]),
         pc.and_(pc.is_valid(c("i16")), pc.invert(pc.is_in(c("i16"), pa.array([c("i16")[0].as_py(), c("i16")[1].as_py()], pa.int16()))))),
        (pb.startswith("s", "ban"), pc.starts_with(c("s"), "ban")),
        (pb.endswith("s", "3"), pc.ends_with(c("s"), "3")),
        (pb.contains("s", "an"), pc.match_substring(c("s"), "an")),
        (pb.between("id", 100, 200), pc.and_(pc.greater_equal(c("id"), 100), pc.less_equal(c("id"), 200))),
        (pb.equal("bin", c("bin")[5].as_py() or b"x"), pc.equal(c("bin"), pa.scalar(c("bin")[5].as_py() or b"x", pa.binary()))),
        (pb.greater_than("f32", 100.5), pc.greater(c("f32"), 100.5)),
        (pb.equal("ts_ms", c("ts_ms")[2].as_py() or ts0), pc.equal(c("ts_ms"), pa.scalar(c("ts_ms")[2].as_py() or ts0, pa.timestamp("ms")))),
        (pb.and_predicates([pb.greater_than("id", 50), pb.or_predicates([pb.is_null("b"), pb.equal("b", False)])]),
         pc.and_(pc.greater(c("id"), 50), pc.or_kleene(pc.is_null(c("b")), pc.equal(c("b"), False)))),
        (pb.like("s", "app%"), pc.starts_with(c("s"), "app")),
    ]


def test_filters_every_operator(all_types_table):
    t, data = all_types_table
    pb = t.new_read_builder().new_predicate_builder()
    for pred, mask in _filter_cases(pb, data):
        expected = data.filter(pc.fill_null(mask, False))
        out = read(t, predicate=pred)
        assert out.num_rows == expected.num_rows, repr(pred)
        assert_same(out, expected)


def test_filter_with_projection_and_limit(all_types_table):
    t, data = all_types_table
    pb = t.new_read_builder().new_predicate_builder()
    out = read(t, predicate=pb.greater_than("id", 400), projection=["s", "id"])
    assert out.column_names == ["s", "id"]
    exp = data.filter(pc.greater(data["id"], 400)).select(["s", "id"])
    assert_same(out, exp)
    out = read(t, limit=7)
    assert out.num_rows == 7
    out = read(t, predicate=pb.less_than("id", 100), limit=10, projection=["id"])
    assert out.num_rows == 10 and all(v < 100 for v in out.column("id").to_pylist())


def test_predicate_text_and_pickle():
    pb = paimonc.PredicateBuilder([type("F", (), {"name": n}) for n in ("a", "s", "d")])
    p = pb.and_predicates([pb.greater_than("a", 3), pb.is_in("s", ["x", None]), pb.between("d", dt.date(2024, 1, 1),
                                                                                          dt.date(2024, 2, 1))])
    text = p.to_string()
    assert "a" in text and "3" in text and "2024-01-01" in text
    q = pickle.loads(pickle.dumps(p))
    assert q == p and q.to_string() == text and q.method == "and"
    r = Predicate.from_string(text)
    assert r.to_string() == text
    assert pickle.loads(pickle.dumps(r)).to_string() == text


# ------------------------------------------------------ pickling / processes

def _worker_write(args):
    warehouse, rows = args
    import pyarrow as pa_
    from paimonc import CatalogFactory as CF
    t = CF.create({"warehouse": warehouse}).get_table("db.dist")
    w = t.new_batch_write_builder().new_write()
    w.write_arrow(pa_.table({"id": rows}, schema=t.to_arrow_schema()))
    msgs = w.prepare_commit()
    data = pickle.dumps(msgs)
    w.close()  # must not delete prepared files
    return data


def _worker_read(args):
    warehouse, split_bytes, pred_bytes = args
    from paimonc import CatalogFactory as CF
    t = CF.create({"warehouse": warehouse}).get_table("db.dist")
    splits = pickle.loads(split_bytes)
    rb = t.new_read_builder().with_filter(pickle.loads(pred_bytes))
    return sorted(rb.new_read().to_arrow(splits).column("id").to_pylist())


def test_distributed_write_and_read_with_pickles(catalog):
    t = create(catalog, "dist", pa.schema([pa.field("id", pa.int64(), nullable=False)]),
               options={"source.split.target-size": "1"})
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(2) as pool:
        parts = pool.map(_worker_write, [(catalog.warehouse, list(range(k * 100, k * 100 + 100))) for k in range(4)])
        msgs = [m for p in parts for m in pickle.loads(p)]
        assert all(isinstance(m, CommitMessage) for m in msgs) and sum(m.row_count for m in msgs) == 400
        wb = t.new_batch_write_builder()
        with wb.new_commit() as c:
            c.commit(msgs)
        rb = t.new_read_builder()
        splits = rb.new_scan().plan().splits()
        assert len(splits) >= 2 and sum(s.row_count for s in splits) == 400
        pred = rb.new_predicate_builder().greater_or_equal("id", 150)
        got = pool.map(_worker_read, [(catalog.warehouse, pickle.dumps([s]), pickle.dumps(pred)) for s in splits])
    assert sorted(v for g in got for v in g) == list(range(150, 400))
    s2 = pickle.loads(pickle.dumps(splits[0]))
    assert isinstance(s2, Split) and s2.row_count == splits[0].row_count


# -------------------------------------------------------------------- GIL

def test_gil_released_during_read(catalog):
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), ("s", pa.string()), ("f", pa.float64())])
    t = create(catalog, "big", schema)
    n = 1_000_000
    write(t, pa.table({"id": pa.array(range(n), pa.int64()), "s": pa.array([str(i % 977) for i in range(n)]),
                       "f": pa.array([i * 0.25 for i in range(n)])}, schema=schema))
    pb = t.new_read_builder().new_predicate_builder()
    rb = t.new_read_builder().with_filter(pb.contains("s", "9"))
    splits = rb.new_scan().plan().splits()
    ticks = [0]
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            ticks[0] += 1
            time.sleep(0.0005)

    th = threading.Thread(target=spin)
    th.start()
    before = ticks[0]
    t0 = time.perf_counter()
    out = rb.new_read().to_arrow(splits)
    elapsed = time.perf_counter() - t0
    during = ticks[0] - before
    stop.set()
    th.join()
    assert out.num_rows > 0
    # a thread blocked on the GIL for the whole read would get ~0 ticks
    assert during >= max(3, int(elapsed / 0.0005 * 0.1)), (during, elapsed)


# ----------------------------------------------------------------- errors

def test_errors(catalog, all_types_table):
    t, _ = all_types_table
    with pytest.raises(NotFoundError) as ei:
        catalog.get_table("db.nope")
    assert "nope" in str(ei.value)
    # a writer that failed stays failed, so each bad input gets a fresh one
    with t.new_batch_write_builder().new_write() as w:
        with pytest.raises(InvalidArgumentError) as ei:
            w.write_arrow(pa.table({"id": pa.array([1], pa.int64()), "s": pa.array([1.5])}))
        assert "'s'" in str(ei.value) or " s " in str(ei.value), str(ei.value)
        with pytest.raises(InvalidArgumentError):
            w.write_arrow(pa.table({"id": pa.array([2], pa.int64())}))
    with t.new_batch_write_builder().new_write() as w:
        with pytest.raises(InvalidArgumentError) as ei:
            w.write_arrow(pa.table({"id": [1], "zzz": [1]}))
        assert "zzz" in str(ei.value)
    with t.new_batch_write_builder().new_write() as w:
        with pytest.raises(TypeError):
            w.write_arrow([1, 2, 3])
    pb = t.new_read_builder().new_predicate_builder()
    with pytest.raises(InvalidArgumentError) as ei:
        pb.equal("no_such_col", 1)
    assert "no_such_col" in str(ei.value)
    with pytest.raises(InvalidArgumentError):
        pb.equal("i32", object())
    with pytest.raises(PaimonError) as ei:
        read(t, predicate=Predicate.from_string("no_such_col > 3"))
    assert "no_such_col" in str(ei.value)
    with pytest.raises(PaimonError) as ei:
        read(t, predicate=pb.equal("i32", "not a number"))
    assert "i32" in str(ei.value) or "not a number" in str(ei.value)
    with pytest.raises(PaimonError):
        Split.deserialize(b"garbage")
    with pytest.raises(PaimonError):
        CommitMessage.deserialize(b"\x00\x01")


# --------------------------------------------------------- pypaimon interop

def _pypaimon():
    return pytest.importorskip("pypaimon")


INTEROP = pa.schema([pa.field("id", pa.int64(), nullable=False), ("s", pa.string()), ("f", pa.float64()),
                     ("d", pa.date32()), ("dec", pa.decimal128(12, 3)), pa.field("dt", pa.string(), nullable=False)])


def _interop_data(seed):
    rnd = random.Random(seed)
    n = 60
    return pa.table({
        "id": list(range(n)),
        "s": [None if rnd.random() < 0.1 else "s%d" % rnd.randint(0, 99) for _ in range(n)],
        "f": [rnd.uniform(-5, 5) for _ in range(n)],
        "d": [dt.date(2024, 1, 1) + dt.timedelta(days=rnd.randint(0, 300)) for _ in range(n)],
        "dec": [decimal.Decimal(rnd.randint(-10**6, 10**6)).scaleb(-3) for _ in range(n)],
        "dt": ["p%d" % (i % 3) for i in range(n)],
    }, schema=INTEROP)


def test_pypaimon_reads_paimonc_table(catalog):
    pyp = _pypaimon()
    t = create(catalog, "to_py", INTEROP, partition_keys=["dt"])
    data = _interop_data(1)
    write(t, data.slice(0, 30))
    write(t, data.slice(30))
    pc_ = pyp.CatalogFactory.create({"warehouse": catalog.warehouse})
    pt = pc_.get_table("db.to_py")
    rb = pt.new_read_builder()
    out = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    assert_same(out.select(INTEROP.names), data)


def test_paimonc_reads_pypaimon_table(catalog):
    pyp = _pypaimon()
    data = _interop_data(2)
    pcat = pyp.CatalogFactory.create({"warehouse": catalog.warehouse})
    pcat.create_table("db.from_py", pyp.Schema.from_pyarrow_schema(INTEROP, partition_keys=["dt"]), False)
    pt = pcat.get_table("db.from_py")
    for part in (data.slice(0, 25), data.slice(25)):
        wb = pt.new_batch_write_builder()
        w, c = wb.new_write(), wb.new_commit()
        w.write_arrow(part)
        c.commit(w.prepare_commit())
        w.close()
        c.close()
    t = catalog.get_table("db.from_py")
    assert_same(read(t), data)
    pb = t.new_read_builder().new_predicate_builder()
    out = read(t, predicate=pb.and_predicates([pb.equal("dt", "p1"), pb.greater_than("f", 0.0)]))
    exp = data.filter(pc.and_(pc.equal(data["dt"], "p1"), pc.greater(data["f"], 0.0)))
    assert_same(out, exp)


def test_literal_canonical_text():
    from paimonc.predicate import literal_text as lt
    assert lt(None) is None
    assert lt(True) == b"true" and lt(False) == b"false"
    assert lt(-12) == b"-12" and lt(2**63 - 1) == b"9223372036854775807"
    assert lt(0.1) == b"0.1" and lt(float("inf")) == b"inf" and lt(-2.5e-300) == b"-2.5e-300"
    assert lt(decimal.Decimal("-12.340")) == b"-12.340" and lt(decimal.Decimal("1E+3")) == b"1000"
    assert lt(dt.date(999, 1, 2)) == b"0999-01-02"
    assert lt(dt.datetime(2024, 5, 14, 1, 2, 3, 123456)) == b"2024-05-14 01:02:03.123456"
    assert lt(dt.datetime(2024, 5, 14, 1, 2, 3)) == b"2024-05-14 01:02:03"
    assert lt(dt.datetime(2024, 5, 14, 3, 2, 3, 500000, tzinfo=dt.timezone(dt.timedelta(hours=2)))) == \
        b"2024-05-14 01:02:03.5"
    assert lt(dt.time(1, 2, 3, 500000)) == b"01:02:03.5"
    assert lt("äb") == "äb".encode() and lt(b"\x00\xff") == b"\x00\xff"
    with pytest.raises(InvalidArgumentError):
        lt(decimal.Decimal("NaN"))
    with pytest.raises(InvalidArgumentError):
        lt([1])
    pd = pytest.importorskip("pandas")
    assert lt(pd.Timestamp("2024-05-14 01:02:03.123456789")) == b"2024-05-14 01:02:03.123456789"
    import numpy as np
    assert lt(np.int16(-7)) == b"-7" and lt(np.float32(0.5)) == b"0.5"


def test_like_translation_and_unsupported():
    pb = paimonc.PredicateBuilder([type("F", (), {"name": "s"})])
    assert pb.like("s", "ab%")._tree() == ("leaf", "s", 10, [b"ab"])
    assert pb.like("s", "%ab")._tree() == ("leaf", "s", 11, [b"ab"])
    assert pb.like("s", "%ab%")._tree() == ("leaf", "s", 12, [b"ab"])
    assert pb.like("s", "ab")._tree() == ("leaf", "s", 0, [b"ab"])
    with pytest.raises(paimonc.UnsupportedError):
        pb.like("s", "a_b%")
    with pytest.raises(InvalidArgumentError):
        pb.equal("s", None)
    assert pb.and_predicates([]) is None and pb.or_predicates([pb.is_null("s")]).method == "isNull"


def test_parquet_page_row_count_limit_option(tmp_path):
    """parquet.page.row.count.limit (parquet-java's key) caps the rows of
    each data page, so an index point lookup decodes less; pypaimon reads
    the table."""
    import glob
    import numpy as np
    import pypaimon
    from paimonc.parquet import read_metadata
    wh = str(tmp_path / "w")
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("d", True)
    cat.create_table("d.t", paimonc.Schema(fields=[("id", "BIGINT"), ("x", "DOUBLE")],
                                           options={"parquet.page.row.count.limit": "700"}), False)
    t = cat.get_table("d.t")
    data = pa.table({"id": np.arange(10_000), "x": np.random.default_rng(1).random(10_000)})
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    w.write_arrow(data)
    wb.new_commit().commit(w.prepare_commit())
    (f,) = glob.glob(wh + "/d.db/t/bucket-0/*.parquet")
    for col in read_metadata(f, pages=True)["row_groups"][0]["columns"]:
        sizes = [p["num_values"] for p in col["pages"] if p["type"] == "DATA_PAGE"]
        assert sum(sizes) == 10_000 and max(sizes) == 700 and len(sizes) == 15
    pt = pypaimon.CatalogFactory.create({"warehouse": wh}).get_table("d.t")
    rb = pt.new_read_builder()
    assert rb.new_read().to_arrow(rb.new_scan().plan().splits()).sort_by("id").equals(data)
    with pytest.raises(paimonc.InvalidArgumentError, match="parquet.page.row.count.limit"):
        t2 = t.copy({"parquet.page.row.count.limit": "0"})
        w = t2.new_batch_write_builder().new_write()
        w.write_arrow(data)
        w.prepare_commit()
