"""Read results into DuckDB, polars, pandas and pyarrow (issue 14): the
Arrow PyCapsule stream of a batch reader and of a table, to_duckdb and
to_pandas, with the values checked against the written data and the
buffers shared (no copy) where the consumer allows it."""
import duckdb
import numpy as np
import pyarrow as pa
import polars as pl

import paimonc


def _table(tmp_path, n=5000):
    cat = paimonc.CatalogFactory.create({"warehouse": str(tmp_path)})
    cat.create_database("d", True)
    cat.create_table("d.t", paimonc.Schema(fields=[("id", "BIGINT"), ("x", "DOUBLE"), ("g", "STRING"),
                                                   ("dt", "STRING")], partition_keys=["dt"]), False)
    t = cat.get_table("d.t")
    rng = np.random.default_rng(5)
    data = pa.table({"id": np.arange(n, dtype=np.int64), "x": rng.random(n),
                     "g": pa.array(["g%d" % (i % 7) if i % 11 else None for i in range(n)]),
                     "dt": pa.array(["2026-12-0%d" % (1 + i % 3) for i in range(n)])})
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    w.write_arrow(data)
    wb.new_commit().commit(w.prepare_commit())
    rb = t.new_read_builder()
    return t, rb.new_read(), rb.new_scan().plan().splits(), data


def test_duckdb_sql_over_results(tmp_path):
    t, read, splits, data = _table(tmp_path)
    result = read.to_arrow(splits)
    got = duckdb.sql("select g, count(*) c, sum(x) s from result group by g order by g nulls last").fetchall()
    want = duckdb.sql("select g, count(*) c, sum(x) s from data group by g order by g nulls last").fetchall()
    assert [r[:2] for r in got] == [r[:2] for r in want]
    assert all(abs(a[2] - b[2]) < 1e-9 for a, b in zip(got, want))
    stream = read.to_arrow_batch_reader(splits)  # a RecordBatchReader: DuckDB pulls it batch by batch
    assert duckdb.sql("select count(*), max(id) from stream").fetchall() == [(5000, 4999)]
    con = read.to_duckdb(splits, "paimon_t")
    assert con.execute("select count(distinct dt) from paimon_t").fetchone() == (3,)
    con2 = duckdb.connect()
    assert read.to_duckdb(splits, "x", connection=con2) is con2


def test_polars_pandas_pyarrow(tmp_path):
    t, read, splits, data = _table(tmp_path)
    result = read.to_arrow(splits).sort_by("id")
    df = pl.from_arrow(result)
    assert df.height == 5000 and df["x"].to_list() == data.column("x").to_pylist()
    assert df["g"].null_count() == data.column("g").null_count
    # the capsule path: pyarrow imports the native stream without copying
    via = pa.table(read.to_arrow_batch_reader(splits))
    assert via.num_rows == 5000
    tbl = read.to_arrow(splits)
    col = tbl.column("x").chunk(0)
    np_view = col.to_numpy(zero_copy_only=True)
    assert np_view.ctypes.data == col.buffers()[1].address
    pdf = read.to_pandas(splits).sort_values("id")
    assert pdf["id"].tolist() == list(range(5000))
    assert pdf["g"].isna().sum() == data.column("g").null_count
