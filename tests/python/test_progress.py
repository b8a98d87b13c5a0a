"""Progress reporting (paimonc.progress) of reads, writes, row-id back-fills
and index builds: callables get increasing counts that end at the total;
progress=True draws tqdm's bar, or our own without tqdm; the default draws
nothing unless PAIMONC_PROGRESS=1 on a terminal."""
import sys

import numpy as np
import pyarrow as pa
import pytest

import paimonc

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}


@pytest.fixture
def table(tmp_path):
    cat = paimonc.CatalogFactory.create({"warehouse": str(tmp_path / "w")})
    cat.create_database("d", True)
    cat.create_table("d.t", paimonc.Schema(fields=[("id", "BIGINT"), ("x", "DOUBLE")], options=DE), False)
    return cat.get_table("d.t")


def _data(n, lo=0):
    return pa.table({"id": np.arange(lo, lo + n, dtype=np.int64), "x": np.random.default_rng(n).random(n)})


def _write(t, data, progress=None):
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    w.write_arrow(data, progress=progress)
    wb.new_commit().commit(w.prepare_commit())
    w.close()


def test_write_and_read_report_rows(table):
    seen = []
    _write(table, _data(200_000), progress=lambda d, t: seen.append((d, t)))
    assert len(seen) >= 3 and seen[-1] == (200_000, 200_000)
    assert all(a[0] < b[0] for a, b in zip(seen, seen[1:]))
    rb = table.new_read_builder()
    splits = rb.new_scan().plan().splits()
    got = []
    out = rb.new_read().to_arrow(splits, progress=lambda d, t: got.append((d, t)))
    assert out.num_rows == 200_000 and got[-1] == (200_000, 200_000)
    assert out.equals(rb.new_read().to_arrow(splits))
    # a reader and a stream report too, with an unknown total
    seen.clear()
    _write(table, pa.RecordBatchReader.from_batches(_data(10).schema, _data(70_000, 10**6).to_batches(10_000)),
           progress=lambda d, t: seen.append((d, t)))
    assert seen[-1] == (70_000, None)


def test_process_row_id_ranges_and_index_build_report(table):
    for k in range(4):
        _write(table, _data(1000, 1000 * k))
    seen = []
    n = paimonc.process_row_id_ranges(table, rows_per_commit=1500, processor=lambda rs: None,
                                      progress=lambda d, t: seen.append((d, t)))
    assert n == 2 and seen == [(2000, 4000), (4000, 4000)]
    calls = []
    table.create_global_index("id", "btree", progress=lambda d, t: calls.append((d, t)))
    assert calls and calls[-1][0] == calls[-1][1] == 4000


def test_bars_on_stderr(table, capsys, monkeypatch):
    _write(table, _data(5000), progress=True)   # tqdm's bar
    err = capsys.readouterr().err
    assert "writing" in err and "5.00k/5.00k" in err
    monkeypatch.setitem(sys.modules, "tqdm", None)   # tqdm missing: our own bar
    rb = table.new_read_builder()
    rb.new_read().to_arrow(rb.new_scan().plan().splits(), progress=True)
    err = capsys.readouterr().err
    assert "reading [" in err and "5000/5000 rows" in err and err.endswith("\n")
    monkeypatch.setenv("PAIMONC_PROGRESS", "1")   # not a terminal under pytest: nothing
    rb.new_read().to_arrow(rb.new_scan().plan().splits())
    assert capsys.readouterr().err == ""
    with pytest.raises(TypeError, match="progress"):
        rb.new_read().to_arrow(rb.new_scan().plan().splits(), progress="yes")
