"""Reading row-tracking / data-evolution tables written by pypaimon 2.1.0.

pypaimon writes data-evolution tables (appends, partial-column appends with
``with_write_type``, updates by row id over different ranges, ADD COLUMN,
RENAME COLUMN, partitions, nulls, several types); paimonc must read every
snapshot exactly as pypaimon does, including the system columns _ROW_ID
and _SEQUENCE_NUMBER, with projections, _ROW_ID filters and
``new_scan().with_row_ranges``. Fixed seeds.
"""

import pickle
import random

import pytest

pa = pytest.importorskip("pyarrow")
pypaimon = pytest.importorskip("pypaimon")

import paimonc  # noqa: E402
from paimonc import InvalidArgumentError, Range  # noqa: E402

from pypaimon import CatalogFactory, Schema  # noqa: E402
from pypaimon.schema.data_types import AtomicType  # noqa: E402
from pypaimon.schema.schema_change import SchemaChange  # noqa: E402
from pypaimon.utils.range import Range as PyRange  # noqa: E402

OPTS = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SYS = ["_ROW_ID", "_SEQUENCE_NUMBER"]

SCHEMA0 = pa.schema([
    ("id", pa.int64()), ("s", pa.string()), ("i", pa.int32()), ("d", pa.float64()),
    ("flag", pa.bool_()), ("p", pa.string()),
])


def rows(rng, ids, schema):
    cols = {}
    for f in schema:
        if f.name == "id":
            cols["id"] = list(ids)
        elif f.name == "p":
            cols["p"] = ["x" if i % 2 else "y" for i in ids]
        elif pa.types.is_string(f.type):
            cols[f.name] = [None if rng.random() < 0.2 else "v%d" % rng.randrange(1000) for _ in ids]
        elif pa.types.is_int32(f.type):
            cols[f.name] = [None if rng.random() < 0.2 else rng.randrange(-1000, 1000) for _ in ids]
        elif pa.types.is_int64(f.type):
            cols[f.name] = [None if rng.random() < 0.2 else rng.randrange(-10**12, 10**12) for _ in ids]
        elif pa.types.is_floating(f.type):
            cols[f.name] = [None if rng.random() < 0.2 else rng.random() * 100 for _ in ids]
        elif pa.types.is_boolean(f.type):
            cols[f.name] = [None if rng.random() < 0.2 else rng.random() < 0.5 for _ in ids]
        else:
            raise AssertionError(f)
    return pa.table(cols, schema=schema)


def py_commit(t, msgs):
    c = t.new_batch_write_builder().new_commit()
    c.commit(msgs)
    c.close()


def py_append(t, tb, cols=None):
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    if cols:
        w = w.with_write_type(cols)
    w.write_arrow(tb)
    msgs = w.prepare_commit()
    w.close()
    py_commit(t, msgs)


def py_update(t, cols, row_ids, rng, schema):
    wb = t.new_batch_write_builder()
    up = wb.new_update().with_update_type(cols)
    sub = pa.schema([schema.field(c) for c in cols])
    data = rows(rng, row_ids, sub)
    tb = pa.table([pa.array(row_ids, pa.int64())] + [data.column(c) for c in cols],
                  names=["_ROW_ID"] + cols)
    py_commit(t, up.update_by_arrow_with_row_id(tb))


def norm(tb):
    """Rows as comparable tuples, sorted (by _ROW_ID when present)."""
    names = tb.column_names
    out = [tuple(r[n] for n in names) for r in tb.to_pylist()]
    if "_ROW_ID" in names:
        k = names.index("_ROW_ID")
        return sorted(out, key=lambda r: r[k])
    return sorted(out, key=repr)


def read_py(t, projection=None, pred=None, ranges=None):
    rb = t.new_read_builder()
    if projection:
        rb = rb.with_projection(projection)
    if pred:
        rb = rb.with_filter(pred(rb.new_predicate_builder()))
    scan = rb.new_scan()
    if ranges is not None:
        scan = scan.with_row_ranges([PyRange(a, b) for a, b in ranges])
    return rb.new_read().to_arrow(scan.plan().splits())


def read_c(t, projection=None, pred=None, ranges=None, pickle_splits=False):
    rb = t.new_read_builder()
    if projection:
        rb = rb.with_projection(projection)
    if pred:
        rb = rb.with_filter(pred(rb.new_predicate_builder()))
    scan = rb.new_scan()
    if ranges is not None:
        scan = scan.with_row_ranges([Range(a, b) for a, b in ranges])
    splits = scan.plan().splits()
    if pickle_splits:
        splits = [pickle.loads(pickle.dumps(s)) for s in splits]
    return rb.new_read().to_arrow(splits)


@pytest.fixture(scope="module")
def de_table(tmp_path_factory):
    """A pypaimon-written DE table; returns (warehouse, [snapshot ids])."""
    wh = str(tmp_path_factory.mktemp("de"))
    rng = random.Random(11)
    cat = CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    cat.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA0, partition_keys=["p"], options=OPTS), False)
    t = cat.get_table("db.t")
    py_append(t, rows(rng, range(0, 40), SCHEMA0))
    py_append(t, rows(rng, range(40, 70), SCHEMA0))
    t = cat.get_table("db.t")
    # updates over different ranges / columns (row ids of both partitions)
    py_update(t, ["i"], [1, 3, 5, 20, 41, 43], rng, SCHEMA0)
    t = cat.get_table("db.t")
    py_update(t, ["s", "d"], [0, 1, 2, 3, 44, 45], rng, SCHEMA0)
    t = cat.get_table("db.t")
    py_update(t, ["i"], [3, 7, 9, 60], rng, SCHEMA0)
    # schema evolution: add a column, rename one
    cat.alter_table("db.t", [SchemaChange.add_column("e", AtomicType("BIGINT"))], False)
    t = cat.get_table("db.t")
    schema1 = pa.schema(list(SCHEMA0) + [pa.field("e", pa.int64())])
    py_append(t, rows(rng, range(70, 90), schema1))
    t = cat.get_table("db.t")
    py_update(t, ["e"], [0, 2, 4, 71, 73], rng, schema1)
    # partial-column append: new rows whose other columns read as null
    t = cat.get_table("db.t")
    part = rows(rng, range(90, 95), pa.schema([("id", pa.int64()), ("s", pa.string()), ("p", pa.string())]))
    py_append(t, part, ["id", "s", "p"])
    cat.alter_table("db.t", [SchemaChange.rename_column("d", "d2")], False)
    t = cat.get_table("db.t")
    schema2 = pa.schema([f if f.name != "d" else pa.field("d2", pa.float64()) for f in schema1])
    py_update(t, ["d2", "i"], [5, 6, 80, 81], rng, schema2)
    snaps = list(range(1, cat.get_table("db.t").snapshot_manager().get_latest_snapshot().id + 1))
    return wh, snaps


def tables(wh, sid=None):
    pt = CatalogFactory.create({"warehouse": wh}).get_table("db.t")
    ct = paimonc.CatalogFactory.create({"warehouse": wh}).get_table("db.t")
    if sid is not None:
        pt = pt.copy({"scan.snapshot-id": str(sid)})
        ct = ct.copy({"scan.snapshot-id": str(sid)})
    return pt, ct


RENAMED_UPDATED = {5, 6, 80, 81}  # rows the update after the rename wrote


def test_every_snapshot_equal_to_pypaimon(de_table):
    wh, snaps = de_table
    assert len(snaps) == 9
    for sid in snaps[:-1]:
        pt, ct = tables(wh, sid)
        cols = [f.name for f in pt.fields] + SYS
        exp = read_py(pt, cols)
        got = read_c(ct, cols)
        assert got.schema == exp.schema, sid
        assert norm(got) == norm(exp), sid
        # no projection: the table's own columns only
        assert read_c(ct).column_names == [f.name for f in pt.fields]
        assert norm(read_c(ct)) == norm(read_py(pt)), sid


def test_rename_follows_file_schema(de_table):
    """After RENAME d -> d2, update files written before it list 'd' in
    _WRITE_COLS: paimonc resolves them through the file's own schema (as
    Java); pypaimon 2.1.0 resolves through the current schema and loses
    them (ai-format §3.4 divergence). Expected: pypaimon's values except d2
    of rows not rewritten after the rename, which keep d of the snapshot
    before."""
    wh, snaps = de_table
    pt8, _ = tables(wh, snaps[-2])
    before = {r["_ROW_ID"]: r["d"] for r in read_py(pt8, ["_ROW_ID", "d"]).to_pylist()}
    pt, ct = tables(wh, snaps[-1])
    cols = [f.name for f in pt.fields] + SYS
    # row-id groups the last update rewrote (its files copy whole groups)
    rewritten = []
    for sp in pt.new_read_builder().new_scan().plan().splits():
        for f in sp.files:
            if f.first_row_id is not None and any(
                    f.first_row_id <= r < f.first_row_id + f.row_count for r in RENAMED_UPDATED):
                rewritten.append((f.first_row_id, f.first_row_id + f.row_count))
    exp = read_py(pt, cols).to_pylist()
    for r in exp:
        rid = r["_ROW_ID"]
        if not any(a <= rid < b for a, b in rewritten) and rid in before:
            r["d2"] = before[rid]
    got = read_c(ct, cols)
    assert norm(got) == norm(pa.Table.from_pylist(exp, schema=got.schema))
    # and the other columns equal pypaimon's
    other = [c for c in cols if c != "d2"]
    assert norm(read_c(ct, other)) == norm(read_py(pt, other))


def test_system_column_types(de_table):
    wh, _ = de_table
    _, ct = tables(wh)
    sch = ct.new_read_builder().with_projection(["_ROW_ID", "id", "_SEQUENCE_NUMBER"]).read_arrow_schema()
    assert sch.field("_ROW_ID").type == pa.int64() and not sch.field("_ROW_ID").nullable
    assert sch.field("_SEQUENCE_NUMBER").type == pa.int64() and not sch.field("_SEQUENCE_NUMBER").nullable


def test_projections(de_table):
    wh, snaps = de_table
    rng = random.Random(5)
    for sid in (snaps[2], snaps[5], snaps[-1]):
        pt, ct = tables(wh, sid)
        names = [f.name for f in pt.fields if f.name != "d2"] + SYS
        for _ in range(6):
            proj = rng.sample(names, rng.randint(1, len(names)))
            exp, got = read_py(pt, proj), read_c(ct, proj)
            assert got.column_names == proj
            assert norm(got) == norm(exp), (sid, proj)


def test_row_id_filters(de_table):
    wh, snaps = de_table
    pt, ct = tables(wh)
    cols = [f.name for f in pt.fields if f.name != "d2"] + SYS
    preds = [
        lambda pb: pb.equal("_ROW_ID", 3),
        lambda pb: pb.is_in("_ROW_ID", [0, 5, 44, 71, 93, 1000]),
        lambda pb: pb.less_than("_ROW_ID", 10),
        lambda pb: pb.greater_or_equal("_ROW_ID", 85),
        lambda pb: pb.between("_ROW_ID", 38, 42),
        lambda pb: pb.and_predicates([pb.greater_than("_ROW_ID", 2), pb.less_or_equal("_ROW_ID", 6)]),
        lambda pb: pb.or_predicates([pb.equal("_ROW_ID", 1), pb.between("_ROW_ID", 60, 62)]),
        lambda pb: pb.and_predicates([pb.between("_ROW_ID", 0, 50), pb.equal("p", "x")]),
        lambda pb: pb.is_not_null("e"),
    ]
    for i, p in enumerate(preds):
        exp, got = read_py(pt, cols, p), read_c(ct, cols, p)
        assert norm(got) == norm(exp), i
    # only the needed files are planned
    rb = ct.new_read_builder().with_filter(ct.new_read_builder().new_predicate_builder().equal("_ROW_ID", 3))
    plan = rb.new_scan().plan()
    assert plan.files_selected < plan.files_total


def test_row_ranges(de_table):
    wh, snaps = de_table
    for sid in (snaps[1], snaps[-1]):
        pt, ct = tables(wh, sid)
        cols = [f.name for f in pt.fields if f.name != "d2"] + SYS
        for ranges in ([(0, 0)], [(2, 5), (39, 41)], [(60, 200)], [(3, 3), (1, 2), (50, 52)], [(500, 600)]):
            exp = read_py(pt, cols, ranges=ranges)
            got = read_c(ct, cols, ranges=ranges)
            assert norm(got) == norm(exp), (sid, ranges)
            assert norm(read_c(ct, cols, ranges=ranges, pickle_splits=True)) == norm(exp)
            want = {r for a, b in ranges for r in range(a, b + 1)}
            assert set(got.column("_ROW_ID").to_pylist()) <= want
    # ranges and a _ROW_ID filter intersect
    pt, ct = tables(wh)
    got = read_c(ct, ["_ROW_ID", "id"], lambda pb: pb.less_than("_ROW_ID", 5), ranges=[(3, 10)])
    assert sorted(got.column("_ROW_ID").to_pylist()) == [3, 4]
    # any object with from_/to
    class R:
        def __init__(self, a, b):
            self.from_, self.to = a, b
    got = ct.new_read_builder().with_projection(["_ROW_ID"])
    splits = got.new_scan().with_row_ranges([R(7, 8)]).plan().splits()
    assert sorted(got.new_read().to_arrow(splits).column("_ROW_ID").to_pylist()) == [7, 8]


def test_errors(de_table, tmp_path):
    wh, _ = de_table
    _, ct = tables(wh)
    with pytest.raises(InvalidArgumentError, match="nope"):
        ct.new_read_builder().with_projection(["id", "nope"])
    with pytest.raises(ValueError):
        Range(5, 4)
    cat = paimonc.CatalogFactory.create({"warehouse": str(tmp_path)})
    cat.create_database("db", True)
    cat.create_table("db.plain", paimonc.Schema.from_pyarrow_schema(pa.schema([("a", pa.int64())])))
    plain = cat.get_table("db.plain")
    with pytest.raises(InvalidArgumentError, match="row-tracking.enabled"):
        plain.new_read_builder().with_projection(["a", "_ROW_ID"])
    with pytest.raises(InvalidArgumentError, match="row-tracking.enabled"):
        plain.new_read_builder().new_scan().with_row_ranges([Range(0, 1)])


def test_row_tracking_system_table(tmp_path):
    """<table>$row_tracking (Java's RowTrackingTable): the columns, then _ROW_ID and
    _SEQUENCE_NUMBER by default; read-only; refused on tables without row tracking."""
    import paimonc
    from paimonc import InvalidArgumentError
    wh = str(tmp_path / "wh")
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    schema = pa.schema([("id", pa.int64()), ("s", pa.string())])
    cat.create_table("db.t", paimonc.Schema.from_pyarrow_schema(
        schema, options={"row-tracking.enabled": "true", "data-evolution.enabled": "true"}), False)
    cat.create_table("db.plain", paimonc.Schema.from_pyarrow_schema(schema), False)
    for rows in ([5, 6], [7]):
        t = cat.get_table("db.t")
        wb = t.new_batch_write_builder()
        w = wb.new_write()
        w.write_arrow(pa.table({"id": rows, "s": [str(r) for r in rows]}))
        wb.new_commit().commit(w.prepare_commit())
    rt = cat.get_table("db.t$row_tracking")
    rb = rt.new_read_builder()
    got = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    assert got.column_names == ["id", "s", "_ROW_ID", "_SEQUENCE_NUMBER"]
    assert sorted(got.to_pylist(), key=lambda r: r["_ROW_ID"]) == [
        {"id": 5, "s": "5", "_ROW_ID": 0, "_SEQUENCE_NUMBER": 1},
        {"id": 6, "s": "6", "_ROW_ID": 1, "_SEQUENCE_NUMBER": 1},
        {"id": 7, "s": "7", "_ROW_ID": 2, "_SEQUENCE_NUMBER": 2}]
    rb = rt.new_read_builder().with_projection(["_ROW_ID"])
    assert rb.new_read().to_arrow(rb.new_scan().plan().splits()).column_names == ["_ROW_ID"]
    with pytest.raises(InvalidArgumentError, match="read-only system table"):
        rt.new_batch_write_builder().new_write().write_arrow(pa.table({"id": [1], "s": ["x"]}))
    with pytest.raises(InvalidArgumentError, match="db.plain.*has no row tracking"):
        cat.get_table("db.plain$row_tracking")


@pytest.mark.parametrize("seed", range(4))
def test_group_stats_pruning_keeps_every_match(tmp_path, seed):
    """Filters on data-evolution tables prune whole row-id groups by merged statistics
    (per column the newest file holding it, as the read takes it): the filtered read equals
    the full read filtered in Python, for updated groups, partial appends and a column added
    later (all null in old groups), and selective filters really prune groups."""
    import paimonc
    rnd = random.Random(seed)
    wh = str(tmp_path / "wh")
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    schema = pa.schema([("id", pa.int64()), ("a", pa.int64()), ("s", pa.string())])
    cat.create_table("db.t", paimonc.Schema.from_pyarrow_schema(
        schema, options={"row-tracking.enabled": "true", "data-evolution.enabled": "true"}), False)

    def commit(t, msgs):
        wb = t.new_batch_write_builder()
        wb.new_commit().commit(msgs)

    nid = 0
    for g in range(6):   # groups of disjoint id / a ranges
        t = cat.get_table("db.t")
        n = rnd.randint(5, 30)
        w = t.new_batch_write_builder().new_write()
        w.write_arrow(pa.table({"id": list(range(nid, nid + n)), "a": [g * 1000 + i for i in range(n)],
                                "s": ["g%d" % g] * n}, schema=schema))
        commit(t, w.prepare_commit())
        nid += n
    t = cat.get_table("db.t")
    w = t.new_batch_write_builder().new_write().with_write_type(["id", "s"])
    w.write_arrow(pa.table({"id": [9000, 9001], "s": ["p", "q"]}))
    commit(t, w.prepare_commit())
    # updates move some rows' a into other groups' ranges
    t = cat.get_table("db.t")
    ids = rnd.sample(range(nid), 5)
    commit(t, t.new_batch_write_builder().new_update().with_update_type(["a"]).update_by_arrow_with_row_id(
        pa.table({"_ROW_ID": pa.array(ids, pa.int64()), "a": pa.array([rnd.randrange(6000) for _ in ids],
                                                                       pa.int64())})))
    cat.alter_table("db.t", [paimonc.SchemaChange.add_column("b", paimonc.AtomicType("BIGINT"))], False)
    t = cat.get_table("db.t")
    full = t.new_read_builder().new_read().to_arrow(t.new_read_builder().new_scan().plan().splits()).to_pylist()
    pb = t.new_read_builder().new_predicate_builder()
    cases = [(pb.equal("a", 3005), lambda r: r["a"] == 3005),
             (pb.greater_than("a", 4500), lambda r: r["a"] is not None and r["a"] > 4500),
             (pb.between("a", 1000, 1999), lambda r: r["a"] is not None and 1000 <= r["a"] <= 1999),
             (pb.is_null("a"), lambda r: r["a"] is None),
             (pb.equal("s", "g2"), lambda r: r["s"] == "g2"),
             (pb.is_in("id", [3, 40, 9001]), lambda r: r["id"] in (3, 40, 9001))]
    if "b" in t.field_names:
        cases.append((pb.is_null("b"), lambda r: r["b"] is None))
        cases.append((pb.equal("b", 1), lambda r: r["b"] == 1))
    pruned = 0
    for pred, keep in cases:
        rb = t.new_read_builder().with_filter(pred)
        plan = rb.new_scan().plan()
        got = rb.new_read().to_arrow(plan.splits()).to_pylist()
        want = [r for r in full if keep(r)]
        key = lambda r: r["id"]  # noqa: E731
        assert sorted(got, key=key) == sorted(want, key=key), pred
        pruned += plan.files_selected < plan.files_total
    assert pruned >= 3
