"""TableRead.to_torch (issue 14) against real torch: map-style and streaming
datasets, DataLoader workers and DDP ranks reading disjoint shards that
cover every row, batch formats and sizes, zero-copy VECTOR tensors, BLOB
bytes, a reproducible seeded shuffle with set_epoch, a pinned snapshot,
pickling, and pypaimon's argument rules."""
import pickle

import numpy as np
import pyarrow as pa
import pytest

import torch  # noqa: E402  (scripts/deps.sh installs it; a missing torch fails, never skips)
from torch.utils.data import DataLoader  # noqa: E402

import paimonc  # noqa: E402

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
DIM = 4


def _data(lo, n, seed):
    rng = np.random.default_rng(seed)
    ids = np.arange(lo, lo + n, dtype=np.int64)
    emb = pa.FixedSizeListArray.from_arrays(pa.array(rng.random(n * DIM, dtype=np.float32)), DIM)
    return pa.table({"id": ids, "x": rng.random(n), "label": pa.array(ids % 3, pa.int32()),
                     "emb": emb, "img": pa.array([b"img-%d" % i for i in ids], pa.large_binary()),
                     "name": pa.array(["n%d" % i for i in ids])})


@pytest.fixture
def table(tmp_path):
    wh = str(tmp_path / "w")
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("d", True)
    cat.create_table("d.t", paimonc.Schema(fields=[("id", "BIGINT"), ("x", "DOUBLE"), ("label", "INT"),
                                                   ("emb", "VECTOR<FLOAT, %d>" % DIM), ("img", "BLOB"),
                                                   ("name", "STRING")], options=DE), False)
    t = cat.get_table("d.t")
    for k in range(7):  # 7 commits -> 7 splits of uneven sizes
        n = 40 + 13 * k
        lo = sum(40 + 13 * j for j in range(k))
        wb = t.new_batch_write_builder()
        w = wb.new_write()
        w.write_arrow(_data(lo, n, k))
        wb.new_commit().commit(w.prepare_commit())
    return t


TOTAL = sum(40 + 13 * j for j in range(7))  # rows the fixture writes


def _read(t):
    rb = t.new_read_builder()
    splits = rb.new_scan().plan().splits()
    return rb.new_read(), splits


def test_map_style_rows_and_dataloader(table):
    read, splits = _read(table)
    ds = read.to_torch(splits)
    assert len(ds) == TOTAL
    want = read.to_arrow(splits)
    row = ds[5]
    assert row == want.slice(5, 1).to_pylist()[0]
    assert ds[-1] == want.slice(want.num_rows - 1, 1).to_pylist()[0]
    with pytest.raises(IndexError):
        ds[len(ds)]
    dl = DataLoader(ds, batch_size=32, num_workers=2)
    ids = torch.cat([b["id"] for b in dl]).tolist()
    assert sorted(ids) == list(range(TOTAL))


@pytest.mark.parametrize("workers", [0, 2, 3])
def test_streaming_workers_cover_each_row_once(table, workers):
    read, splits = _read(table)
    ds = read.to_torch(splits, streaming=True, batch_format="torch", batch_size=16)
    for epoch in range(2):
        ds.set_epoch(epoch)
        ids = []
        for b in DataLoader(ds, batch_size=None, num_workers=workers):
            assert b["id"].shape[0] <= 16
            ids += b["id"].tolist()
        assert sorted(ids) == list(range(TOTAL))


def test_ranks_times_workers_partition_the_rows(table):
    read, splits = _read(table)
    seen = []
    for rank in range(2):
        ds = read.to_torch(splits, streaming=True, sharding_rank=rank, sharding_world_size=2)
        for w in range(2):
            part = ds.worker_splits(w, 2)
            seen += [r["id"] for r in read.to_torch(part, streaming=True)]
    assert sorted(seen) == list(range(TOTAL))
    with pytest.raises(ValueError, match="distributed sharding requires streaming=True"):
        read.to_torch(splits, sharding_rank=0, sharding_world_size=2)
    with pytest.raises(ValueError, match="rank must satisfy"):
        read.to_torch(splits, streaming=True, sharding_rank=2, sharding_world_size=2)
    with pytest.raises(ValueError, match="set together"):
        read.to_torch(splits, streaming=True, sharding_rank=0)


def test_auto_detect_rank_from_environment(table, monkeypatch):
    read, splits = _read(table)
    monkeypatch.setenv("RANK", "1")
    monkeypatch.setenv("WORLD_SIZE", "3")
    ds = read.to_torch(splits, streaming=True, auto_detect_rank=True)
    assert (ds.rank, ds.world_size) == (1, 3)
    assert [s.row_count for s in ds.worker_splits(0, 1)] == [s.row_count for s in splits[3:5]]


def test_torch_batches_zero_copy_vectors_and_blobs(table):
    read, splits = _read(table)
    want = read.to_arrow(splits)
    got = list(read.to_torch(splits, streaming=True, batch_format="torch", batch_size=50))
    assert [len(b["id"]) for b in got[:-1]] == [50] * (len(got) - 1)
    emb = torch.cat([b["emb"] for b in got])
    assert emb.dtype == torch.float32 and emb.shape == (want.num_rows, DIM)
    assert np.array_equal(emb.numpy(), np.array(want.column("emb").to_pylist(), dtype=np.float32))
    assert sum((b["img"] for b in got), []) == want.column("img").to_pylist()
    assert sum((b["name"] for b in got), []) == want.column("name").to_pylist()
    assert got[0]["label"].dtype == torch.int32
    # a batch inside one reader batch shares the Arrow buffer (no copy)
    rb = next(iter(read.to_arrow_batch_reader(splits[-1:])))
    from paimonc.torch_dataset import to_tensors
    t = to_tensors(rb.slice(0, 10))
    assert t["emb"].data_ptr() == rb.column("emb").values.buffers()[1].address
    assert t["x"].data_ptr() == rb.column("x").buffers()[1].address


def test_pyarrow_batches_and_custom_converter(table):
    read, splits = _read(table)
    got = list(read.to_torch(splits, streaming=True, batch_format="pyarrow", batch_size=64))
    assert all(isinstance(b, pa.RecordBatch) for b in got)
    assert pa.Table.from_batches(got).equals(read.to_arrow(splits))
    conv = list(read.to_torch(splits, streaming=True, batch_format="torch", batch_size=64,
                              to_tensor_fn=lambda b: b.num_rows))
    assert conv == [b.num_rows for b in got]


def test_nulls_in_tensor_column_name_the_column(tmp_path):
    cat = paimonc.CatalogFactory.create({"warehouse": str(tmp_path)})
    cat.create_database("d", True)
    cat.create_table("d.t", paimonc.Schema(fields=[("id", "BIGINT"), ("v", "DOUBLE")]), False)
    t = cat.get_table("d.t")
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    w.write_arrow(pa.table({"id": pa.array([1, 2], pa.int64()), "v": pa.array([1.0, None])}))
    wb.new_commit().commit(w.prepare_commit())
    read, splits = _read(t)
    with pytest.raises(ValueError, match="column 'v' has 1 null"):
        list(read.to_torch(splits, streaming=True, batch_format="torch"))
    assert [r["v"] for r in read.to_torch(splits)] == [1.0, None]


def test_shuffle_is_seeded_reproducible_and_complete(table):
    read, splits = _read(table)

    def order(seed, epoch, workers=0):
        ds = read.to_torch(splits, streaming=True, shuffle=True, seed=seed, buffer_size=100,
                           max_buffer_input_splits=3, batch_format="torch", batch_size=32)
        ds.set_epoch(epoch)
        return sum((b["id"].tolist() for b in DataLoader(ds, batch_size=None, num_workers=workers)), [])
    a, b = order(7, 0), order(7, 0)
    assert a == b
    assert sorted(a) == list(range(TOTAL))
    assert a != sorted(a)
    assert order(7, 1) != a and sorted(order(7, 1)) == sorted(a)
    assert order(8, 0) != a
    w1, w2 = order(7, 0, 2), order(7, 0, 2)
    assert w1 == w2 and sorted(w1) == sorted(a)
    rows = [r["id"] for r in read.to_torch(splits, streaming=True, shuffle=True, seed=3)]
    assert sorted(rows) == list(range(TOTAL)) and rows != sorted(rows)


def test_snapshot_pinned_while_table_grows(table):
    read, splits = _read(table)
    ds = read.to_torch(splits, streaming=True, batch_format="pyarrow")
    wb = table.new_batch_write_builder()
    w = wb.new_write()
    w.write_arrow(_data(10_000, 25, 99))
    wb.new_commit().commit(w.prepare_commit())
    assert sum(b.num_rows for b in ds) == TOTAL
    tagged = table.copy({"scan.snapshot-id": "3"})
    r2, s2 = _read(tagged)
    assert sum(b.num_rows for b in r2.to_torch(s2, streaming=True, batch_format="pyarrow")) == 40 + 53 + 66


def test_datasets_pickle(table):
    rb = table.new_read_builder().with_projection(["id", "emb"]).with_filter(
        table.new_read_builder().new_predicate_builder().less_than("id", 100))
    read = rb.new_read()
    splits = rb.new_scan().plan().splits()
    ds = read.to_torch(splits, streaming=True, batch_format="torch", batch_size=20)
    back = pickle.loads(pickle.dumps(ds))
    ids = sorted(sum((b["id"].tolist() for b in back), []))
    assert ids == list(range(100))
    assert set(next(iter(back)).keys()) == {"id", "emb"}
    m = pickle.loads(pickle.dumps(read.to_torch(splits)))
    assert len(m) == 100
    ctx = torch.multiprocessing.get_context("spawn")
    got = sorted(int(i) for b in DataLoader(ds, batch_size=None, num_workers=2, multiprocessing_context=ctx)
                 for i in b["id"])
    assert got == list(range(100))


def test_limit_rules(table):
    rb = table.new_read_builder().with_limit(10)
    read, splits = rb.new_read(), rb.new_scan().plan().splits()
    ids = [i for b in DataLoader(read.to_torch(splits, streaming=True, batch_format="torch"),
                                 batch_size=None, num_workers=2) for i in b["id"].tolist()]
    assert len(ids) >= 10 and len(set(ids)) == len(ids)
    with pytest.raises(ValueError, match="limit is not supported with distributed"):
        read.to_torch(splits, streaming=True, sharding_rank=0, sharding_world_size=2).worker_splits(0, 1)


@pytest.mark.parametrize("kw,msg", [
    (dict(batch_format="arrow"), "batch_format must be one of"),
    (dict(batch_format="torch"), "requires streaming=True"),
    (dict(streaming=True, batch_size=10), "batch_size requires batch_format"),
    (dict(streaming=True, batch_format="torch", batch_size=0), "batch_size must be a positive int"),
    (dict(streaming=True, to_tensor_fn=len), "to_tensor_fn requires batch_format='torch'"),
    (dict(streaming=True, batch_format="pyarrow", to_tensor_fn=len), "to_tensor_fn requires"),
    (dict(streaming=True, batch_format="torch", to_tensor_fn=3), "to_tensor_fn must be callable"),
    (dict(shuffle=True), "shuffle=True only supports streaming=True"),
    (dict(streaming=True, shuffle=True, prefetch_concurrency=2), "does not support prefetch_concurrency"),
    (dict(streaming=True, shuffle=True, buffer_size=0), "buffer_size must be a positive int"),
])
def test_argument_rules(table, kw, msg):
    read, splits = _read(table)
    with pytest.raises(ValueError, match=msg):
        read.to_torch(splits, **kw)


def test_same_rows_as_pypaimon_to_torch(table):
    import pypaimon
    pt = pypaimon.CatalogFactory.create({"warehouse": table._catalog_options["warehouse"]}).get_table("d.t")
    prb = pt.new_read_builder().with_projection(["id", "x", "label"])
    theirs = list(prb.new_read().to_torch(prb.new_scan().plan().splits()))
    rb = table.new_read_builder().with_projection(["id", "x", "label"])
    ours = list(rb.new_read().to_torch(rb.new_scan().plan().splits()))
    key = lambda r: r["id"]  # noqa: E731
    assert sorted(ours, key=key) == sorted(theirs, key=key)


def test_packed_blobs_share_the_arrow_buffer(table):
    import functools
    from paimonc.torch_dataset import PackedBytes, to_tensors
    read, splits = _read(table)
    want = read.to_arrow(splits).column("img").to_pylist()
    conv = functools.partial(to_tensors, blobs="packed")
    ds = read.to_torch(splits, streaming=True, batch_format="torch", batch_size=37, to_tensor_fn=conv)
    got = []
    for b in DataLoader(ds, batch_size=None, num_workers=2):
        p = b["img"]
        assert isinstance(p, PackedBytes) and p.values.dtype == torch.uint8 and len(p) == len(b["id"])
        assert bytes(p.row(0).numpy()) == p.to_pylist()[0]
        got += p.to_pylist()
    assert sorted(got) == sorted(want)
    rb = next(iter(read.to_arrow_batch_reader(splits[-1:]))).slice(5, 10)
    p = conv(rb)["img"]
    assert p.to_pylist() == rb.column("img").to_pylist()
    assert p.offsets[0] == 0 and p.values.data_ptr() == rb.column("img").buffers()[2].address + \
        int(np.frombuffer(rb.column("img").buffers()[1], np.int64)[rb.column("img").offset])
    with pytest.raises(ValueError, match="blobs must be"):
        to_tensors(rb, blobs="mmap")


def test_lazy_blobs_read_on_demand(table):
    """blobs='lazy' over a blob-as-descriptor read: workers send BlobRefs
    (descriptors), the payload is read only by to_data()."""
    import functools
    from paimonc.torch_dataset import to_tensors
    read, splits = _read(table)
    want = {r["id"]: r["img"] for r in read.to_arrow(splits).select(["id", "img"]).to_pylist()}
    desc = table.copy({"blob-as-descriptor": "true"})
    rb = desc.new_read_builder().with_projection(["id", "img"])
    dsplits = rb.new_scan().plan().splits()
    ds = rb.new_read().to_torch(dsplits, streaming=True, batch_format="torch", batch_size=50,
                                to_tensor_fn=functools.partial(to_tensors, blobs="lazy"))
    seen = 0
    for b in DataLoader(ds, batch_size=None, num_workers=2):
        for i, ref in zip(b["id"].tolist(), b["img"]):
            assert isinstance(ref, paimonc.BlobRef)
            assert ref.to_data() == want[i] and len(ref) == len(want[i])
            seen += 1
    assert seen == TOTAL
    inline = to_tensors(next(iter(read.to_arrow_batch_reader(splits[:1]))).slice(0, 3), blobs="lazy")["img"]
    assert [type(x).__name__ for x in inline] == ["BlobData"] * 3


def test_batch_rows_equals_to_pylist():
    """The fast row conversion gives exactly RecordBatch.to_pylist()."""
    import datetime as dt
    from paimonc.torch_dataset import batch_rows
    rng = np.random.default_rng(4)
    n = 5000
    vec = pa.FixedSizeListArray.from_arrays(pa.array(rng.random(n * 3, dtype=np.float32)), 3)
    vec_null = pa.FixedSizeListArray.from_arrays(pa.array([None if i % 7 == 0 else float(i) for i in range(n * 2)],
                                                          pa.float64()), 2)
    batch = pa.RecordBatch.from_pydict({
        "i8": pa.array(rng.integers(-128, 127, n), pa.int8()), "u64": pa.array(rng.integers(0, 2**63, n), pa.uint64()),
        "f32": pa.array(rng.random(n, dtype=np.float32)), "b": pa.array(rng.random(n) < 0.5),
        "inull": pa.array([None if i % 3 == 0 else i for i in range(n)], pa.int32()),
        "ts": pa.array([dt.datetime(2020, 1, 1) + dt.timedelta(seconds=i) for i in range(n)], pa.timestamp("us")),
        "vec": vec, "vec_null": vec_null, "s": pa.array(["s%d" % i for i in range(n)]),
    }).slice(123, 4500)
    got = list(batch_rows(batch))
    assert got == batch.to_pylist()
    assert [type(v) for v in got[0].values()] == [type(v) for v in batch.to_pylist()[0].values()]
    assert list(batch_rows(pa.Table.from_batches([batch, batch]))) == batch.to_pylist() * 2
