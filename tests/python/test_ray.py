"""paimonc.ray (issue 14) on a local Ray: read_paimon / to_ray, write_paimon /
write_ray, update_by_row_id, read_by_row_id, process_row_id_ranges,
merge_into, bucket_join and map_with_blobs, with pypaimon 2.1.0 reading what
paimonc.ray changed and paimonc.ray reading what pypaimon wrote. Random data
with fixed seeds, many types, nulls, partitions."""
import decimal
import datetime as dt
import logging
import random

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import ray  # scripts/deps.sh installs ray[data]; a missing ray fails, never skips
import pypaimon
import pypaimon.ray as pyray

import paimonc
from paimonc import ray as pr

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}

SCHEMA = pa.schema([
    ("id", pa.int64()), ("p", pa.string()), ("i8", pa.int8()), ("i16", pa.int16()), ("i32", pa.int32()),
    ("f32", pa.float32()), ("f64", pa.float64()), ("b", pa.bool_()), ("s", pa.string()), ("bin", pa.binary()),
    ("d", pa.date32()), ("ts", pa.timestamp("us")), ("dec", pa.decimal128(10, 2)), ("arr", pa.list_(pa.int32())),
])


def rand_table(seed, lo, n):
    rng = random.Random(seed)

    def maybe(v):
        return None if rng.random() < 0.15 else v
    cols = {
        "id": list(range(lo, lo + n)),
        "p": [rng.choice(["a", "b", "c"]) for _ in range(n)],
        "i8": [maybe(rng.randint(-128, 127)) for _ in range(n)],
        "i16": [maybe(rng.randint(-32768, 32767)) for _ in range(n)],
        "i32": [maybe(rng.randint(-2**31, 2**31 - 1)) for _ in range(n)],
        "f32": [maybe(float(np.float32(rng.uniform(-1e3, 1e3)))) for _ in range(n)],
        "f64": [maybe(rng.uniform(-1e9, 1e9)) for _ in range(n)],
        "b": [maybe(rng.random() < 0.5) for _ in range(n)],
        "s": [maybe("s%d-%s" % (rng.randint(0, 99), "x" * rng.randint(0, 20))) for _ in range(n)],
        "bin": [maybe(bytes(rng.randint(0, 255) for _ in range(rng.randint(0, 12)))) for _ in range(n)],
        "d": [maybe(dt.date(2000, 1, 1) + dt.timedelta(days=rng.randint(0, 9000))) for _ in range(n)],
        "ts": [maybe(dt.datetime(2020, 1, 1) + dt.timedelta(microseconds=rng.randint(0, 10**14)))
               for _ in range(n)],
        "dec": [maybe(decimal.Decimal(rng.randint(-10**9, 10**9)).scaleb(-2)) for _ in range(n)],
        "arr": [maybe([rng.randint(-5, 5) for _ in range(rng.randint(0, 4))]) for _ in range(n)],
    }
    return pa.table(cols, schema=SCHEMA)


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING,
             object_store_memory=512 * 1024 * 1024)
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    ctx.print_on_execution_start = False
    yield
    ray.shutdown()


def _catalog(tmp_path):
    wh = str(tmp_path / "wh")
    opts = {"warehouse": wh}
    cat = paimonc.CatalogFactory.create(opts)
    cat.create_database("db", True)
    return cat, opts


def _create(cat, name, schema=SCHEMA, partition=("p",), options=None):
    o = dict(DE)
    o.update(options or {})
    cat.create_table(name, paimonc.Schema.from_pyarrow_schema(schema, partition_keys=list(partition), options=o),
                     False)
    return cat.get_table(name)


def _append(t, data):
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    w.write_arrow(data)
    wb.new_commit().commit(w.prepare_commit())
    w.close()


def read_py(opts, ident, cols=None, snapshot=None):
    t = pypaimon.CatalogFactory.create(opts).get_table(ident)
    if snapshot is not None:
        t = t.copy({"scan.snapshot-id": str(snapshot)})
    rb = t.new_read_builder()
    if cols is not None:
        rb = rb.with_projection(cols)
    return rb.new_read().to_arrow(rb.new_scan().plan().splits())


def read_pc(t, cols=None):
    rb = t.new_read_builder()
    if cols is not None:
        rb = rb.with_projection(cols)
    return rb.new_read().to_arrow(rb.new_scan().plan().splits())


def rows(tbl, key="id"):
    return sorted(tbl.to_pylist(), key=lambda r: r[key])


def collect(ds):
    tables = [t for t in ray.get(ds.to_arrow_refs()) if t.num_rows]
    return pa.concat_tables(tables) if tables else None


# ------------------------------------------------------------------ write

def test_write_paimon_read_by_pypaimon(tmp_path):
    cat, opts = _catalog(tmp_path)
    _create(cat, "db.t")
    data = rand_table(1, 0, 3000)
    ds = ray.data.from_arrow(data).repartition(5)
    res = pr.write_paimon(ds, "db.t", opts)
    assert res.row_count == 3000 and res.snapshot_id == 1
    snaps = list(cat.get_table("db.t").snapshots()) if hasattr(cat.get_table("db.t"), "snapshots") else None
    got = read_py(opts, "db.t", SCHEMA.names)
    assert rows(got.cast(SCHEMA)) == rows(data)
    # one snapshot for all five write tasks
    assert pypaimon.CatalogFactory.create(opts).get_table("db.t").snapshot_manager().get_latest_snapshot().id == 1
    del snaps


def test_write_ray_overwrite_and_empty(tmp_path):
    cat, opts = _catalog(tmp_path)
    t = _create(cat, "db.t")
    _append(t, rand_table(2, 0, 500))
    new = rand_table(3, 10000, 200)
    res = t.new_batch_write_builder().overwrite().new_write().write_ray(ray.data.from_arrow(new).repartition(2))
    assert res.row_count == 200
    # dynamic partition overwrite: partitions absent from the new data keep their rows
    old = rand_table(2, 0, 500)
    kept = old.filter(pc.invert(pc.is_in(old["p"], value_set=pc.unique(new["p"]))))
    assert rows(read_py(opts, "db.t").cast(SCHEMA)) == rows(pa.concat_tables([kept, new]))
    assert pr.write_paimon(ray.data.from_arrow(new.slice(0, 0)), "db.t", opts) is None


def test_write_paimon_bad_input(tmp_path):
    cat, opts = _catalog(tmp_path)
    _create(cat, "db.t")
    with pytest.raises(paimonc.NotFoundError):
        pr.write_paimon(ray.data.from_arrow(rand_table(1, 0, 5)), "db.missing", opts)
    with pytest.raises(ValueError, match="hash_fixed_precluster"):
        pr.write_paimon(ray.data.from_arrow(rand_table(1, 0, 5)), "db.t", opts, hash_fixed_precluster="x")
    with pytest.raises(TypeError, match="ray.data.Dataset"):
        pr.write_paimon(rand_table(1, 0, 5), "db.t", opts)
    bad = pa.table({"id": ["not a number"]})
    with pytest.raises(Exception, match="id"):
        pr.write_paimon(ray.data.from_arrow(bad), "db.t", opts)
    assert read_py(opts, "db.t").num_rows == 0   # nothing was committed


def test_sink_commit_replayed_once(tmp_path):
    """A replayed on_write_complete (a driver retry) must not commit twice."""
    from paimonc.ray.datasink import _sink_class
    cat, opts = _catalog(tmp_path)
    t = _create(cat, "db.t")
    sink = _sink_class()(t, False, None)
    ret = sink.write([rand_table(4, 0, 100)], None)
    sink.on_write_complete([ret])
    first = sink.result.snapshot_id
    sink.on_write_complete([ret])
    assert sink.result.snapshot_id == first
    assert read_pc(cat.get_table("db.t")).num_rows == 100
    assert read_py(opts, "db.t").num_rows == 100


# ------------------------------------------------------------------- read

def test_read_paimon_of_pypaimon_table(tmp_path):
    cat, opts = _catalog(tmp_path)
    _create(cat, "db.t")
    pt = pypaimon.CatalogFactory.create(opts).get_table("db.t")
    for k in range(4):
        wb = pt.new_batch_write_builder()
        w = wb.new_write()
        w.write_arrow(rand_table(10 + k, 1000 * k, 700))
        wb.new_commit().commit(w.prepare_commit())
        w.close()
    want = read_py(opts, "db.t")
    ds = pr.read_paimon("db.t", opts)
    assert ds.count() == want.num_rows
    assert rows(collect(ds)) == rows(want)
    # the same through pypaimon.ray's reader
    assert rows(pa.Table.from_pandas(pyray.read_paimon("db.t", opts).to_pandas(), preserve_index=False)
                .select(["id", "s"])) == rows(want.select(["id", "s"]))


def test_read_paimon_projection_filter_limit_time_travel(tmp_path):
    cat, opts = _catalog(tmp_path)
    t = _create(cat, "db.t")
    a, b = rand_table(5, 0, 800), rand_table(6, 800, 800)
    _append(t, a)
    t.create_tag("v1")
    _append(t, b)
    pb = cat.get_table("db.t").new_read_builder().new_predicate_builder()
    flt = pb.and_predicates([pb.equal("p", "b"), pb.greater_or_equal("i32", 0)])
    got = collect(pr.read_paimon("db.t", opts, filter=flt, projection=["id", "i32", "_ROW_ID"]))
    both = pa.concat_tables([a, b])
    want = both.filter(pc.and_(pc.equal(both["p"], "b"), pc.greater_equal(both["i32"], 0)))
    assert got.column_names == ["id", "i32", "_ROW_ID"]
    assert sorted(got["id"].to_pylist()) == sorted(want["id"].to_pylist())
    full = {r["id"]: r["_ROW_ID"] for r in read_pc(cat.get_table("db.t"), ["id", "_ROW_ID"]).to_pylist()}
    assert all(full[r["id"]] == r["_ROW_ID"] for r in got.to_pylist())
    assert pr.read_paimon("db.t", opts, limit=37).count() == 37
    assert sorted(collect(pr.read_paimon("db.t", opts, tag_name="v1", projection=["id"]))["id"].to_pylist()) == \
        list(range(800))
    assert pr.read_paimon("db.t", opts, snapshot_id=1).count() == 800
    with pytest.raises(ValueError, match="cannot be set at the same time"):
        pr.read_paimon("db.t", opts, snapshot_id=1, tag_name="v1")
    with pytest.raises(paimonc.InvalidArgumentError, match="nope"):
        pr.read_paimon("db.t", opts, projection=["nope"])


def test_read_paimon_empty_keeps_schema_and_to_ray_row_ranges(tmp_path):
    cat, opts = _catalog(tmp_path)
    t = _create(cat, "db.t")
    ds = pr.read_paimon("db.t", opts, projection=["id", "s"])
    assert ds.count() == 0 and ds.schema().names == ["id", "s"]
    _append(t, rand_table(7, 0, 1000))
    t = cat.get_table("db.t")
    rb = t.new_read_builder().with_projection(["_ROW_ID", "id"])
    splits = rb.new_scan().with_row_ranges([paimonc.Range(100, 199), paimonc.Range(900, 949)]).plan().splits()
    got = collect(rb.new_read().to_ray(splits, override_num_blocks=3))
    assert sorted(got["_ROW_ID"].to_pylist()) == list(range(100, 200)) + list(range(900, 950))
    full = {r["_ROW_ID"]: r["id"] for r in read_pc(t, ["_ROW_ID", "id"]).to_pylist()}
    assert all(full[r["_ROW_ID"]] == r["id"] for r in got.to_pylist())


# ------------------------------------------------------------ update by id

def test_update_by_row_id_dataset_and_table_sources(tmp_path):
    cat, opts = _catalog(tmp_path)
    t = _create(cat, "db.t", options={"target-file-size": "64kb"})
    for k in range(5):
        _append(t, rand_table(20 + k, 1000 * k, 1000))
    base = read_pc(cat.get_table("db.t"), ["_ROW_ID", "id", "s", "f64"])
    rng = np.random.default_rng(3)
    pick = np.sort(rng.choice(base.num_rows, 1500, replace=False))
    ids = base["_ROW_ID"].take(pa.array(pick))
    new_s = pa.array(["u%d" % i if i % 7 else None for i in range(len(pick))])
    new_f = pa.array(rng.random(len(pick)))
    src = pa.table({"_ROW_ID": ids, "s": new_s, "f64": new_f, "extra": pa.array(range(len(pick)))})
    r = pr.update_by_row_id("db.t", ray.data.from_arrow(src).repartition(4), opts, update_cols=["s", "f64"],
                            num_partitions=3)
    assert r == {"num_updated": 1500}
    want = {rid: (s, f) for rid, s, f in zip(ids.to_pylist(), new_s.to_pylist(), new_f.to_pylist())}
    got = read_py(opts, "db.t", ["_ROW_ID", "id", "s", "f64"])
    for row in got.to_pylist():
        if row["_ROW_ID"] in want:
            assert (row["s"], row["f64"]) == want[row["_ROW_ID"]]
    old = {r["_ROW_ID"]: (r["s"], r["f64"]) for r in base.to_pylist()}
    assert all((r["s"], r["f64"]) == old[r["_ROW_ID"]] for r in got.to_pylist() if r["_ROW_ID"] not in want)
    assert got.num_rows == 5000
    # a pandas source, one partition, routed on the driver
    df = pa.table({"_ROW_ID": pa.array([0, 4999], pa.int64()), "i16": pa.array([7, None], pa.int16())}).to_pandas()
    assert pr.update_by_row_id("db.t", df, opts, update_cols=["i16"]) == {"num_updated": 2}
    py = {r["_ROW_ID"]: r["i16"] for r in read_py(opts, "db.t", ["_ROW_ID", "i16"]).to_pylist()}
    assert py[0] == 7 and py[4999] is None


def test_update_by_row_id_rejects_bad_input(tmp_path):
    cat, opts = _catalog(tmp_path)
    t = _create(cat, "db.t")
    src = pa.table({"_ROW_ID": pa.array([1], pa.int64()), "s": ["x"]})
    with pytest.raises(paimonc.InvalidArgumentError, match="no rows"):
        pr.update_by_row_id("db.t", src, opts, update_cols=["s"])
    _append(t, rand_table(8, 0, 100))
    before = read_py(opts, "db.t")
    with pytest.raises(ValueError, match="does not belong"):
        pr.update_by_row_id("db.t", pa.table({"_ROW_ID": pa.array([5, 100], pa.int64()), "s": ["x", "y"]}), opts,
                            update_cols=["s"])
    with pytest.raises(Exception, match="does not belong"):  # the same, found inside a Ray task
        pr.update_by_row_id("db.t", ray.data.from_arrow(pa.table({"_ROW_ID": pa.array([5, 1000], pa.int64()),
                                                                  "s": ["x", "y"]})), opts, update_cols=["s"])
    with pytest.raises(Exception, match="duplicate _ROW_ID"):
        pr.update_by_row_id("db.t", pa.table({"_ROW_ID": pa.array([5, 5], pa.int64()), "s": ["x", "y"]}), opts,
                            update_cols=["s"])
    with pytest.raises(paimonc.InvalidArgumentError, match="partition column 'p'"):
        pr.update_by_row_id("db.t", pa.table({"_ROW_ID": pa.array([5], pa.int64()), "p": ["x"]}), opts,
                            update_cols=["p"])
    with pytest.raises(paimonc.InvalidArgumentError, match="'nope'"):
        pr.update_by_row_id("db.t", src, opts, update_cols=["nope"])
    with pytest.raises(paimonc.InvalidArgumentError, match="lacks column"):
        pr.update_by_row_id("db.t", src, opts, update_cols=["i32"])
    with pytest.raises(paimonc.InvalidArgumentError, match="table-name source"):
        pr.update_by_row_id("db.t", "db.t", opts, update_cols=["s"])
    with pytest.raises(ValueError, match="update_cols"):
        pr.update_by_row_id("db.t", src, opts, update_cols=[])
    with pytest.raises(ValueError, match="num_partitions"):
        pr.update_by_row_id("db.t", src, opts, update_cols=["s"], num_partitions=0)
    assert rows(read_py(opts, "db.t")) == rows(before)   # nothing committed


def test_pypaimon_update_read_by_paimonc_ray(tmp_path):
    """The other way: pypaimon updates, paimonc.ray reads and updates on top."""
    cat, opts = _catalog(tmp_path)
    t = _create(cat, "db.t")
    _append(t, rand_table(9, 0, 600))
    pt = pypaimon.CatalogFactory.create(opts).get_table("db.t")
    wb = pt.new_batch_write_builder()
    upd = wb.new_update().with_update_type(["s"])
    wb.new_commit().commit(upd.update_by_arrow_with_row_id(
        pa.table({"_ROW_ID": pa.array([1, 2, 599], pa.int64()), "s": ["p1", "p2", "p599"]})))
    got = {r["_ROW_ID"]: r["s"] for r in collect(pr.read_paimon("db.t", opts, projection=["_ROW_ID", "s"]))
           .to_pylist()}
    assert (got[1], got[2], got[599]) == ("p1", "p2", "p599")
    pr.update_by_row_id("db.t", pa.table({"_ROW_ID": pa.array([2], pa.int64()), "s": ["c2"]}), opts,
                        update_cols=["s"])
    py = {r["_ROW_ID"]: r["s"] for r in read_py(opts, "db.t", ["_ROW_ID", "s"]).to_pylist()}
    assert (py[1], py[2], py[599]) == ("p1", "c2", "p599")


# -------------------------------------------------------------- read by id

def test_read_by_row_id(tmp_path):
    cat, opts = _catalog(tmp_path)
    t = _create(cat, "db.t", options={"target-file-size": "32kb"})
    for k in range(3):
        _append(t, rand_table(30 + k, 1000 * k, 1000))
    full = {r["_ROW_ID"]: r for r in read_pc(cat.get_table("db.t"), ["_ROW_ID", "id", "s", "arr"]).to_pylist()}
    ids = [5, 5, 17, 999, 1000, 2999, 1500, 17]
    got = collect(pr.read_by_row_id("db.t", pa.table({"_ROW_ID": pa.array(ids, pa.int64())}), opts,
                                    projection=["id", "s", "arr"], num_partitions=4))
    assert got.column_names == ["id", "s", "arr", "_ROW_ID"]
    assert sorted(got.to_pylist(), key=lambda r: r["_ROW_ID"]) == [full[i] for i in sorted(set(ids))]
    # row_id_col, a Dataset source, a tag
    t.create_tag("before")
    pr.update_by_row_id("db.t", pa.table({"_ROW_ID": pa.array([17], pa.int64()), "s": ["new"]}), opts,
                        update_cols=["s"])
    src = ray.data.from_arrow(pa.table({"rid": pa.array([17, 18], pa.int64()), "other": [1, 2]}))
    now = collect(pr.read_by_row_id("db.t", src, opts, projection=["s"], row_id_col="rid"))
    assert {r["_ROW_ID"]: r["s"] for r in now.to_pylist()}[17] == "new"
    then = collect(pr.read_by_row_id("db.t", src, opts, projection=["s"], row_id_col="rid",
                                     dynamic_options={"scan.tag-name": "before"}))
    assert {r["_ROW_ID"]: r["s"] for r in then.to_pylist()} == {17: full[17]["s"], 18: full[18]["s"]}
    empty = pr.read_by_row_id("db.t", pa.table({"_ROW_ID": pa.array([], pa.int64())}), opts, projection=["id"])
    assert empty.count() == 0 and empty.schema().names == ["id", "_ROW_ID"]
    with pytest.raises(ValueError, match="does not belong"):
        pr.read_by_row_id("db.t", [3, 10**9], opts, projection=["id"])
    with pytest.raises(ValueError, match="invariants"):
        pr.read_by_row_id("db.t", [3], opts, projection=["id"], dynamic_options={"row-tracking.enabled": "false"})
    with pytest.raises(ValueError, match="'zzz'"):
        pr.read_by_row_id("db.t", [3], opts, projection=["zzz"])


# -------------------------------------------------------- row-id ranges

def test_process_row_id_ranges_matches_pypaimon_and_resumes(tmp_path):
    cat, opts = _catalog(tmp_path)
    t = _create(cat, "db.t", partition=())
    for k in range(5):
        _append(t, rand_table(40 + k, 100 * k, 100 + 10 * k))
    mine, theirs = [], []
    pr.process_row_id_ranges("db.t", opts, rows_per_commit=230, processor=lambda rs: mine.append(
        [(r.from_, r.to) for r in rs]))
    pyray.process_row_id_ranges("db.t", opts, rows_per_commit=230, processor=lambda rs: theirs.append(
        [(r.from_, r.to) for r in rs]))
    assert mine == theirs and len(mine) >= 2

    # a resumable back-fill: the processor fills f64 = id * 2 where it is null,
    # stops after the first batch; the rerun skips what is done
    cat.get_table("db.t")
    pr.update_by_row_id("db.t", pa.table({"_ROW_ID": pa.array(range(0, 600), pa.int64()),
                                          "f64": pa.nulls(600, pa.float64())}), opts, update_cols=["f64"])
    done = []

    def processor(ranges, stop_after=None):
        tb = cat.get_table("db.t")
        rb = tb.new_read_builder()
        rb = rb.with_filter(rb.new_predicate_builder().is_null("f64")).with_projection(["_ROW_ID", "id"])
        splits = rb.new_scan().with_row_ranges(ranges).plan().splits()
        todo = collect(rb.new_read().to_ray(splits))
        if todo is None:
            return
        done.append(todo.num_rows)
        pr.update_by_row_id("db.t", ray.data.from_arrow(
            pa.table({"_ROW_ID": todo["_ROW_ID"], "f64": pc.multiply(pc.cast(todo["id"], pa.float64()), 2.0)})),
            opts, update_cols=["f64"])
        if stop_after is not None and len(done) >= stop_after:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        pr.process_row_id_ranges("db.t", opts, rows_per_commit=230, processor=lambda rs: processor(rs, 1))
    first = done[0]
    pr.process_row_id_ranges("db.t", opts, rows_per_commit=230, processor=processor)
    assert sum(done) == 600 and first < 600     # the rerun did only the rest
    got = read_py(opts, "db.t", ["id", "f64"])
    assert all(r["f64"] == r["id"] * 2.0 for r in got.to_pylist())
    with pytest.raises(ValueError, match="rows_per_commit"):
        pr.process_row_id_ranges("db.t", opts, rows_per_commit=0, processor=print)


# -------------------------------------------------------------- merge into

def test_merge_into_update_insert_delete(tmp_path):
    cat, opts = _catalog(tmp_path)
    t = _create(cat, "db.t", options={"deletion-vectors.enabled": "true"})
    base = rand_table(50, 0, 2000)
    _append(t, base)
    rng = random.Random(5)
    keys = rng.sample(range(2000), 300) + list(range(5000, 5100))
    src = pa.table({"id": pa.array(keys, pa.int64()), "s": ["m%d" % k for k in keys],
                    "p": ["a"] * len(keys), "i32": pa.array([k % 2 for k in keys], pa.int32())})
    r = pr.merge_into("db.t", ray.data.from_arrow(src).repartition(3), opts, on=["id"],
                      when_matched=[pr.WhenMatched.delete(condition="s.i32 = 1"),
                                    pr.WhenMatched.update({"s": pr.source_col("s")})],
                      when_not_matched=[pr.WhenNotMatched(insert={"id": "s.id", "p": "s.p", "s": "s.s"})])
    deleted = {k for k in keys if k < 2000 and k % 2 == 1}
    updated = {k for k in keys if k < 2000 and k % 2 == 0}
    assert r == {"num_matched": 300, "num_inserted": 100, "num_unchanged": 0}
    want = {}
    for row in base.select(["id", "s"]).to_pylist():
        if row["id"] not in deleted:
            want[row["id"]] = "m%d" % row["id"] if row["id"] in updated else row["s"]
    for k in range(5000, 5100):
        want[k] = "m%d" % k
    assert {r["id"]: r["s"] for r in read_py(opts, "db.t", ["id", "s"]).to_pylist()} == want
    with pytest.raises(ValueError, match="At least one"):
        pr.merge_into("db.t", src, opts, on=["id"])


# -------------------------------------------------------------- bucket join

def test_bucket_join(tmp_path):
    cat, opts = _catalog(tmp_path)
    fixed = {"bucket": "4", "bucket-key": "id"}
    left = _create(cat, "db.l", pa.schema([("id", pa.int64()), ("x", pa.string())]), (), fixed)
    right = _create(cat, "db.r", pa.schema([("id", pa.int64()), ("y", pa.float64())]), (), fixed)
    _append(left, pa.table({"id": pa.array(range(0, 500), pa.int64()), "x": ["x%d" % i for i in range(500)]}))
    _append(right, pa.table({"id": pa.array(range(250, 800, 2), pa.int64()),
                             "y": [float(i) for i in range(250, 800, 2)]}))
    got = collect(pr.bucket_join("db.l", "db.r", opts, on="id"))
    want = read_pc(left).join(read_pc(right), keys="id", join_type="inner")
    assert rows(got) == rows(want) and got.num_rows == 125
    other = _create(cat, "db.o", pa.schema([("id", pa.int64()), ("z", pa.string())]), (),
                    {"bucket": "3", "bucket-key": "id"})
    with pytest.raises(ValueError, match="same bucket count"):
        pr.bucket_join("db.l", "db.o", opts, on="id")
    with pytest.raises(ValueError, match="bucket-key"):
        pr.bucket_join("db.l", "db.r", opts, on="x")
    with pytest.raises(ValueError, match="only join_type='inner'"):
        pr.bucket_join("db.l", "db.r", opts, on="id", join_type="left outer")
    del other


# ------------------------------------------------------------ map with blobs

def test_map_with_blobs_fetches_descriptor_payloads(tmp_path):
    cat, opts = _catalog(tmp_path)
    schema = pa.schema([("id", pa.int64()), ("img", pa.large_binary())])
    cat.create_table("db.b", paimonc.Schema(fields=[("id", "BIGINT"), ("img", "BLOB")], options=DE), False)
    t = cat.get_table("db.b")
    payloads = [None if i % 9 == 0 else bytes([i % 256]) * (i * 37 % 3000) for i in range(300)]
    _append(t, pa.table({"id": pa.array(range(300), pa.int64()), "img": pa.array(payloads, pa.large_binary())},
                        schema=schema))
    ds = pr.read_paimon("db.b", opts, dynamic_options={"blob-as-descriptor": "true"})
    first = collect(ds)
    assert any(v is not None and v != payloads[i] for i, v in enumerate(first["img"].to_pylist()))  # descriptors

    def fn(scalar, blobs):
        return pa.table({"id": scalar["id"], "n": [None if b is None else len(b) for b in blobs["img"]],
                         "ok": [b == payloads[i] for i, b in zip(scalar["id"].to_pylist(), blobs["img"])]})
    out = collect(pr.map_with_blobs(ds, "img", fn, batch_size=64))
    assert out.num_rows == 300 and all(out["ok"].to_pylist())
    with pytest.raises(ValueError, match="callable"):
        pr.map_with_blobs(ds, "img", 3)


def test_merge_into_distributed_matches_single_process(tmp_path):
    """The Ray merge (hash partitions, routed updates) gives the rows the
    single-process merge gives, for Dataset, pandas and table-name sources,
    with conditions, several SET columns, a null key and a second run that
    changes nothing; pypaimon reads the result."""
    from paimonc import merge as M
    cat, opts = _catalog(tmp_path)
    base = rand_table(60, 0, 3000)
    rng = random.Random(9)
    keys = rng.sample(range(3000), 400) + list(range(7000, 7150))
    src = pa.table({"id": pa.array(keys + [None], pa.int64()), "p": ["b"] * (len(keys) + 1),
                    "s": ["n%d" % k for k in keys] + ["null-key"],
                    "i32": pa.array([k % 5 for k in keys] + [1], pa.int32()),
                    "f64": pa.array([float(k) for k in keys] + [None])})
    s_t = _create(cat, "db.src", src.schema, ())
    _append(s_t, src)
    clauses = dict(on=["id"],
                   when_matched=[pr.WhenMatched.update({"s": "s.s", "f64": "s.f64"}, condition="s.i32 > 1"),
                                 pr.WhenMatched.update({"i32": pr.lit(-1)})],
                   when_not_matched=[pr.WhenNotMatched(insert={"id": "s.id", "p": "s.p", "s": "s.s"},
                                                       condition="s.i32 <> 3")])
    cols = ["id", "p", "s", "i32", "f64", "_ROW_ID"]
    results = {}
    for name, make in (("single", None), ("dataset", lambda: ray.data.from_arrow(src).repartition(3)),
                       ("pandas", lambda: src.to_pandas()), ("table", lambda: "db.src")):
        t = _create(cat, "db." + name, options={"target-file-size": "64kb"})
        _append(t, base)
        if name == "single":
            wb = t.new_batch_write_builder()
            stats = {}
            wb.new_commit().commit(M.merge_into(wb.new_update(), src, stats=stats, **clauses))
            r = {"num_matched": stats["num_matched"], "num_inserted": stats["num_inserted"], "num_unchanged": 0}
        else:
            r = pr.merge_into("db." + name, make(), opts, num_partitions=3, **clauses)
        results[name] = (r, rows_sorted(read_py(opts, "db." + name, cols)))
    want = results["single"]
    assert want[0]["num_matched"] == 400 and want[0]["num_inserted"] > 100   # the null key is inserted too
    for name in ("dataset", "pandas", "table"):
        assert results[name][0] == want[0], name
        assert results[name][1] == want[1], name
    # a second run (matching the inserted rows too) agrees with the single-process one; a third
    # changes no value, so it writes and commits nothing
    again = dict(on=["id"], when_matched=clauses["when_matched"])
    wb = cat.get_table("db.single").new_batch_write_builder()
    wb.new_commit().commit(M.merge_into(wb.new_update(), src, **again))
    pr.merge_into("db.dataset", ray.data.from_arrow(src), opts, **again)
    assert rows_sorted(read_py(opts, "db.dataset", cols)) == rows_sorted(read_py(opts, "db.single", cols))
    assert cat.get_table("db.dataset").latest_snapshot().id == 3   # append, first merge, second merge
    r = pr.merge_into("db.dataset", ray.data.from_arrow(src), opts, **again)
    inserted = sum(1 for k in range(7000, 7150) if k % 5 != 3)     # the null-key row never matches
    assert r == {"num_matched": 400 + inserted, "num_inserted": 0, "num_unchanged": 0}
    assert cat.get_table("db.dataset").latest_snapshot().id == 3


def rows_sorted(tbl, first_new=3000):
    """Rows by _ROW_ID; inserted rows (ids from first_new on, assigned in
    whatever order the writers committed) by key, without their _ROW_ID."""
    old = sorted((r for r in tbl.to_pylist() if r["_ROW_ID"] < first_new), key=lambda r: r["_ROW_ID"])
    new = [dict(r, _ROW_ID=None) for r in tbl.to_pylist() if r["_ROW_ID"] >= first_new]
    return old + sorted(new, key=lambda r: (r["id"] is None, r["id"] or 0))
