"""Regressions found by the data-evolution benchmarks (bench/de, issue 11).

- Row-range reads: the Parquet reader now gathers the rows of many ranges
  into one batch (skipping the rows between them without disturbing what
  the batch already holds) instead of one batch per range. Checked against
  a full read for flat, nullable, dictionary / PLAIN, boolean and nested
  (list, struct, map) columns, many pages, small batches, single-row and
  long ranges, several files and row groups.
- IN / NOT IN with many literals (evaluated by binary search over sorted
  literals) against pyarrow's is_in, with nulls in the column.

Fixed seeds; the oracle is the same table read without ranges, or pyarrow.
"""

import random

import pytest

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")

import paimonc  # noqa: E402
from paimonc import Range  # noqa: E402

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true", "bucket": "-1"}

SCHEMA = pa.schema([
    ("id", pa.int64()),
    ("s", pa.string()),
    ("i", pa.int32()),
    ("d", pa.float64()),
    ("flag", pa.bool_()),
    ("lst", pa.list_(pa.int32())),
    ("st", pa.struct([("a", pa.int64()), ("b", pa.string())])),
    ("m", pa.map_(pa.string(), pa.int32())),
])


def gen(rng, start, n):
    def maybe(v):
        return None if rng.random() < 0.15 else v
    return pa.table({
        "id": list(range(start, start + n)),
        "s": [maybe("v%d" % rng.randrange(50)) for _ in range(n)],
        "i": [maybe(rng.randrange(-500, 500)) for _ in range(n)],
        "d": [maybe(rng.random()) for _ in range(n)],
        "flag": [maybe(rng.random() < 0.5) for _ in range(n)],
        "lst": [maybe([rng.randrange(100) for _ in range(rng.randrange(4))]) for _ in range(n)],
        "st": [maybe({"a": rng.randrange(10**9), "b": maybe("b%d" % rng.randrange(7))}) for _ in range(n)],
        "m": [maybe([("k%d" % j, rng.randrange(9)) for j in range(rng.randrange(3))]) for _ in range(n)],
    }, schema=SCHEMA)


@pytest.fixture(scope="module", params=["dict", "plain"])
def table(request, tmp_path_factory):
    wh = str(tmp_path_factory.mktemp("de_regress_" + request.param))
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    opts = dict(DE, **{"parquet.page.size": "2kb", "parquet.block.size": "64kb"})
    if request.param == "plain":
        opts["parquet.enable.dictionary"] = "false"
    cat.create_table("db.t", paimonc.Schema.from_pyarrow_schema(SCHEMA, options=opts), False)
    t = cat.get_table("db.t")
    rng = random.Random(5)
    start = 0
    for n in (6000, 3500):  # two commits: two files (and first_row_ids)
        wb = t.new_batch_write_builder()
        w = wb.new_write()
        w.write_arrow(gen(rng, start, n))
        c = wb.new_commit()
        c.commit(w.prepare_commit())
        c.close()
        w.close()
        start += n
    return cat.get_table("db.t"), start


def full(t):
    rb = t.new_read_builder().with_projection(list(SCHEMA.names) + ["_ROW_ID"])
    return rb.new_read().to_arrow(rb.new_scan().plan().splits()).sort_by("_ROW_ID")


def ranged(t, ranges, batch=None):
    if batch:
        t = t.copy({"read.batch-size": str(batch)})
    rb = t.new_read_builder().with_projection(list(SCHEMA.names) + ["_ROW_ID"])
    scan = rb.new_scan().with_row_ranges(ranges)
    return rb.new_read().to_arrow(scan.plan().splits())


def expect(all_rows, ranges):
    want = sorted({r for g in ranges for r in range(g.from_, g.to + 1) if r < all_rows.num_rows})
    return all_rows.take(pa.array(want, pa.int64()))


def check(t, n, ranges, batch=None):
    all_rows = full(t)
    assert all_rows.num_rows == n
    assert all_rows.column("_ROW_ID").to_pylist() == list(range(n))
    got = ranged(t, ranges, batch)
    want = expect(all_rows, ranges)
    assert got.num_rows == want.num_rows
    assert got.sort_by("_ROW_ID").equals(want), "row-range read differs from the full read"
    return got


def test_many_single_row_ranges_one_batch_per_row_group(table):
    t, n = table
    ids = sorted(random.Random(1).sample(range(n), 700))
    got = check(t, n, [Range(i, i) for i in ids])
    # rows of many ranges share batches (was: one batch per range)
    assert len(got.column(0).chunks) < 100


@pytest.mark.parametrize("batch", [1, 7, 100, 4096])
def test_mixed_ranges_small_batches(table, batch):
    t, n = table
    rng = random.Random(batch)
    ranges, pos = [], rng.randrange(5)
    while pos < n + 50:
        length = rng.choice([1, 1, 2, 3, 17, 250, 1500])
        ranges.append(Range(pos, pos + length - 1))
        pos += length + rng.choice([1, 2, 40, 700, 2500])
    check(t, n, ranges, batch)


def test_adjacent_and_boundary_ranges(table):
    t, n = table
    ranges = [Range(0, 0), Range(1, 1), Range(2, 5), Range(5999, 6000), Range(6001, 6001),
              Range(n - 2, n + 10)]
    check(t, n, ranges, 3)


def test_ranges_past_every_row(table):
    t, n = table
    assert ranged(t, [Range(n + 5, n + 100)]).num_rows == 0


def test_rowid_in_predicate_matches_ranges(table):
    t, n = table
    ids = sorted(random.Random(3).sample(range(n), 3000))
    rb = t.new_read_builder().with_projection(["id", "s", "lst", "_ROW_ID"])
    rb = rb.with_filter(rb.new_predicate_builder().is_in("_ROW_ID", ids))
    got = rb.new_read().to_arrow(rb.new_scan().plan().splits()).sort_by("_ROW_ID")
    assert got.column("_ROW_ID").to_pylist() == ids
    want = full(t).take(pa.array(ids, pa.int64())).select(["id", "s", "lst", "_ROW_ID"])
    assert got.equals(want)


@pytest.mark.parametrize("op", ["is_in", "is_not_in"])
@pytest.mark.parametrize("nlits", [3, 17, 400])
def test_in_many_literals_with_nulls(table, op, nlits):
    t, n = table
    lits = random.Random(nlits).sample(range(-520, 520), nlits)
    rb = t.new_read_builder().with_projection(["id", "i"])
    rb = rb.with_filter(getattr(rb.new_predicate_builder(), op)("i", lits))
    got = rb.new_read().to_arrow(rb.new_scan().plan().splits()).sort_by("id")
    all_rows = full(t).select(["id", "i"])
    mask = pc.is_in(all_rows["i"], value_set=pa.array(lits, pa.int32()))
    mask = pc.and_(mask, pc.is_valid(all_rows["i"]))
    if op == "is_not_in":
        mask = pc.and_(pc.invert(mask), pc.is_valid(all_rows["i"]))
    want = all_rows.filter(mask)
    assert got.num_rows == want.num_rows
    assert got.equals(want)


# ---------------------------------------------------------------- read-ahead
# Files with fewer leaf columns than read.threads are decoded one batch
# ahead on a thread (fmt_parquet.c): results, errors and early closes must
# be those of the plain reader.

def _backfilled(tmp_path, n=20000):
    import numpy as np
    wh = str(tmp_path / "wh")
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    schema = pa.schema([("id", pa.int64()), ("a", pa.float64())])
    cat.create_table("db.t", paimonc.Schema.from_pyarrow_schema(
        schema, options=dict(DE, **{"read.batch-size": "1000"})), False)
    t = cat.get_table("db.t")
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    w.write_arrow(pa.table({"id": np.arange(n), "a": np.arange(n) * 0.5}, schema=schema))
    wb.new_commit().commit(w.prepare_commit())
    w.close()
    for k in range(3):
        cat.alter_table("db.t", [paimonc.SchemaChange.add_column("f%d" % k, "BIGINT")], False)
        t = cat.get_table("db.t")
        upd = t.new_batch_write_builder().new_update().with_update_type(["f%d" % k])
        msgs = upd.update_by_arrow_with_row_id(pa.table({
            "_ROW_ID": pa.array(np.arange(n), pa.int64()), "f%d" % k: pa.array(np.arange(n) * (k + 2))}))
        t.new_batch_write_builder().new_commit().commit(msgs)
    return cat, wh, n


@pytest.mark.parametrize("threads", ["1", "2", "4"])
def test_read_ahead_same_rows(tmp_path, threads):
    cat, _, n = _backfilled(tmp_path)
    t = cat.get_table("db.t").copy({"read.threads": threads})
    rb = t.new_read_builder()
    got = rb.new_read().to_arrow(rb.new_scan().plan().splits()).sort_by("id")
    assert got.num_rows == n
    for k in range(3):
        assert got.column("f%d" % k).to_pylist() == [i * (k + 2) for i in range(n)]
    # a stream closed early (limit) frees the read-ahead thread
    rb = t.new_read_builder().with_limit(1500)
    assert rb.new_read().to_arrow(rb.new_scan().plan().splits()).num_rows == 1500
    reader = t.new_read_builder().new_read().to_arrow_batch_reader(
        t.new_read_builder().new_scan().plan().splits())
    first = reader.read_next_batch()
    assert first.num_rows > 0
    reader.close()


@pytest.mark.parametrize("threads", ["1", "2"])
def test_read_ahead_error_names_the_file(tmp_path, threads):
    import glob
    import os
    cat, wh, _ = _backfilled(tmp_path)
    files = sorted(glob.glob(os.path.join(wh, "db.db", "t", "bucket-0", "*.parquet")), key=os.path.getmtime)
    victim = files[-1]  # the last backfill: one column (f2)
    data = bytearray(open(victim, "rb").read())
    for i in range(200, 4000):  # page bytes, not the footer
        data[i] ^= 0x5A
    open(victim, "wb").write(bytes(data))
    t = cat.get_table("db.t").copy({"read.threads": threads})
    rb = t.new_read_builder()
    with pytest.raises(Exception) as e:
        rb.new_read().to_arrow(rb.new_scan().plan().splits())
    assert os.path.basename(victim) in str(e.value)
