"""Row group / page pruning: paimonc.parquet.read_table(filters=...) must
return the same rows (as a multiset) as pyarrow.parquet.read_table(filters=
...) on random files (fixed seeds), and must decode fewer row groups for
selective predicates. Files come from pyarrow (with and without statistics
and page index, long strings whose page-index bounds are truncated, NaN,
nulls, sorted and unsorted columns) and from our own writer.
"""
import datetime
import decimal
import os
import random

import pyarrow as pa
import pyarrow.parquet as ppq

import paimonc.parquet as pq

N_FILES = int(os.environ.get("PAIMONC_FILTER_FILES", "120"))
N_PREDS = 8

ALPHA = "abcxyz"
LONG = "p" * 70  # longer than pyarrow's 64-byte column index truncation


def rand_table(rng, n):
    def maybe_null(vals, p):
        return [None if rng.random() < p else v for v in vals]

    pnull = rng.choice([0.0, 0.1, 0.5])
    start = rng.randint(-1000, 1000)
    srt = [start + 3 * i for i in range(n)]
    i64 = maybe_null([rng.randint(-50, 50) for _ in range(n)], pnull)
    i32 = [rng.randint(-(2 ** 31), 2 ** 31 - 1) for _ in range(n)]
    u32 = maybe_null([rng.choice([0, 1, 2 ** 31 + 5, 2 ** 32 - 1, rng.randint(0, 2 ** 32 - 1)])
                      for _ in range(n)], pnull)
    f = maybe_null([rng.choice([float("nan"), -0.0, 0.0, rng.uniform(-10, 10), rng.uniform(-10, 10)])
                    for _ in range(n)], pnull)
    if rng.random() < 0.2:
        f = [float("nan")] * n
    strs = []
    for _ in range(n):
        k = rng.random()
        s = "".join(rng.choice(ALPHA) for _ in range(rng.randint(0, 4)))
        strs.append(LONG + s if k < 0.3 else s)
    if rng.random() < 0.5:
        strs.sort()
    s = maybe_null(strs, pnull)
    b = maybe_null([rng.random() < 0.3 for _ in range(n)], pnull)
    dec = maybe_null([decimal.Decimal(rng.randint(-10000, 10000)).scaleb(-2) for _ in range(n)], pnull)
    d = maybe_null([datetime.date(2020, 1, 1) + datetime.timedelta(days=rng.randint(0, 60)) for _ in range(n)], pnull)
    allnull = [None] * n
    return pa.table({
        "srt": pa.array(srt, pa.int64()),
        "i": pa.array(i64, pa.int64()),
        "i32": pa.array(i32, pa.int32()),
        "u": pa.array(u32, pa.uint32()),
        "f": pa.array(f, pa.float64()),
        "s": pa.array(s, pa.string()),
        "b": pa.array(b, pa.bool_()),
        "dec": pa.array(dec, pa.decimal128(9, 2)),
        "d": pa.array(d, pa.date32()),
        "nul": pa.array(allnull, pa.int64()),
        "st": pa.StructArray.from_arrays([pa.array(i64, pa.int64())], names=["x"]),
    })


OPS = ["=", "!=", "<", "<=", ">", ">=", "in", "not in"]


def rand_value(rng, t, col):
    if col == "st.x":
        vals = [v["x"] for v in t.column("st").to_pylist() if v is not None and v["x"] is not None]
    else:
        vals = [v for v in t.column(col).to_pylist() if v is not None]
    if col == "f":
        vals = [v for v in vals if v == v]
    if not vals or rng.random() < 0.15:
        return {"srt": 5000, "i": 60, "i32": 0, "u": 7, "f": 1.5, "s": "m", "b": True,
                "dec": decimal.Decimal("1.25"), "d": datetime.date(2020, 1, 15), "nul": 3,
                "st.x": 1}[col]
    return rng.choice(vals)


def rand_leaf(rng, t):
    col = rng.choice([c for c in ["srt", "srt", "i", "i32", "u", "f", "s", "s", "b", "dec", "d", "nul", "st.x"]
                      if c.split(".")[0] in t.column_names])
    op = rng.choice(OPS)
    if col == "b" and op not in ("=", "!="):
        op = "="
    if op in ("in", "not in"):
        return (col, op, [rand_value(rng, t, col) for _ in range(rng.randint(1, 3))])
    return (col, op, rand_value(rng, t, col))


def rand_filter(rng, t):
    if rng.random() < 0.6:
        return [rand_leaf(rng, t) for _ in range(rng.randint(1, 2))]
    return [[rand_leaf(rng, t) for _ in range(rng.randint(1, 2))] for _ in range(rng.randint(1, 2))]


def norm(v):
    if isinstance(v, float) and v != v:
        return "nan"
    if isinstance(v, dict):
        return {k: norm(x) for k, x in v.items()}
    return v


def rows(t):
    return sorted(repr([norm(v) for v in r.values()]) for r in t.to_pylist())


def check_file(path, rng, t, tally):
    expect_t = ppq.read_table(path)
    for _ in range(N_PREDS):
        flt = rand_filter(rng, t)
        m = {}
        got = pq.read_table(path, filters=flt, metrics=m)
        if "st.x" in repr(flt):  # pyarrow's DNF has no nested names
            exp = ppq.read_table(path).filter(pq._expression(pq._normalize_dnf(flt)))
        else:
            exp = ppq.read_table(path, filters=flt)
        assert got.schema == expect_t.schema
        assert rows(got) == rows(exp), (path, flt)
        tally["total"] += m["row_groups_total"]
        tally["read"] += m["row_groups_read"]
        tally["rows_pages"] += m["rows_pruned_pages"]
    # a point predicate on the sorted column reads one row group when
    # statistics exist
    v = t.column("srt")[rng.randrange(t.num_rows)].as_py()
    m = {}
    got = pq.read_table(path, columns=["i"], filters=[("srt", "=", v)], metrics=m)
    assert got.num_rows == 1
    return m


def test_filters_pyarrow_files(tmp_path):
    tally = {"total": 0, "read": 0, "rows_pages": 0, "point_total": 0, "point_read": 0}
    d = str(tmp_path)
    for seed in range(N_FILES):
        rng = random.Random(seed)
        n = rng.randint(30, 400)
        t = rand_table(rng, n)
        path = os.path.join(d, "f%d.parquet" % seed)
        stats = rng.random() < 0.85
        ppq.write_table(t, path, row_group_size=rng.randint(7, 90), data_page_size=rng.choice([64, 256, 1 << 20]),
                        write_batch_size=rng.choice([3, 10, 50]), write_statistics=stats,
                        write_page_index=rng.random() < 0.6, store_schema=False,
                        use_dictionary=rng.random() < 0.5, compression=rng.choice(["none", "zstd"]),
                        store_decimal_as_integer=rng.random() < 0.5)
        m = check_file(path, rng, t, tally)
        if stats:
            tally["point_total"] += m["row_groups_total"]
            tally["point_read"] += m["row_groups_read"]
            assert m["row_groups_read"] == 1, (seed, m)
    print(tally)
    assert tally["read"] < tally["total"]
    assert tally["rows_pages"] > 0
    assert tally["point_read"] * 3 < tally["point_total"]


def test_filters_own_writer_files(tmp_path):
    tally = {"total": 0, "read": 0, "rows_pages": 0}
    d = str(tmp_path)
    for seed in range(20):
        rng = random.Random(1000 + seed)
        t = rand_table(rng, rng.randint(200, 3000)).drop_columns(["u"])  # no unsigned in Paimon
        path = os.path.join(d, "w%d.parquet" % seed)
        pq.write_table(t, path, row_group_size=rng.choice([2048, 8192]), page_row_limit=rng.choice([20, 100]),
                       page_index=True, statistics=True)
        m = check_file(path, rng, t, tally)
        if ppq.ParquetFile(path).metadata.num_row_groups > 2:
            assert m["row_groups_read"] == 1, (seed, m)
    print(tally)
    assert tally["read"] < tally["total"]
    assert tally["rows_pages"] > 0


def test_filters_columns_and_errors(tmp_path):
    t = pa.table({"a": list(range(100)), "s": [str(i) for i in range(100)]})
    path = str(tmp_path / "small.parquet")
    ppq.write_table(t, path, row_group_size=10)
    m = {}
    got = pq.read_table(path, columns=["s"], filters=[("a", ">=", 95)], metrics=m)
    assert got.column_names == ["s"] and got.column("s").to_pylist() == ["95", "96", "97", "98", "99"]
    assert m["row_groups_read"] == 1 and m["row_groups_pruned"] == 9
    # a float literal on an int column is not pushed down but still filters
    got = pq.read_table(path, filters=[("a", ">", 97.5)])
    assert got.column("a").to_pylist() == [98, 99]
    got = pq.read_table(path, filters=[("s", "in", ["3", "77"])], metrics=m)
    assert sorted(got.column("a").to_pylist()) == [3, 77]
