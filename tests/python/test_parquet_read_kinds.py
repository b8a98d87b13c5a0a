"""Every column kind the read-speed work touches, read by paimonc and by
pyarrow from the same pyarrow-written file: 0/5/50/95/100 % nulls, plain and
dictionary, page v1 and v2, zstd/snappy/none, pages and batches that end at
odd positions (fixed seed)."""
import numpy as np
import pyarrow as pa
import pyarrow.parquet as ppq
import pytest

import paimonc.parquet as pq

N = 20_011


def column(kind, pct, rng):
    mask = rng.random(N) < pct / 100.0 if pct else None
    if kind == "int8":
        return pa.array(rng.integers(-128, 128, N, dtype=np.int8), mask=mask)
    if kind == "int16":
        return pa.array(rng.integers(-2**15, 2**15, N, dtype=np.int16), mask=mask)
    if kind == "int32":
        return pa.array(rng.integers(-2**31, 2**31, N, dtype=np.int32), mask=mask)
    if kind == "int64":
        return pa.array(rng.integers(-2**62, 2**62, N), mask=mask)
    if kind == "float":
        return pa.array(rng.random(N).astype(np.float32), mask=mask)
    if kind == "double":
        return pa.array(rng.random(N), mask=mask)
    if kind == "timestamp":
        return pa.array(rng.integers(0, 2**50, N), pa.timestamp("us"), mask=mask)
    if kind == "decimal":
        return pa.array(rng.integers(-10**15, 10**15, N), mask=mask).cast(pa.decimal128(19, 0)) \
            .cast(pa.decimal128(18, 2), safe=False)
    if kind == "decimal12":   # 6-byte FIXED_LEN_BYTE_ARRAY, negative values too
        return pa.array(rng.integers(-10**8, 10**8, N).astype(np.int32), mask=mask).cast(pa.decimal128(10, 0)) \
            .cast(pa.decimal128(12, 2))
    if kind == "decimal38":
        return pa.array(rng.integers(-10**15, 10**15, N), mask=mask).cast(pa.decimal128(38, 3))
    if kind == "bool":
        return pa.array(rng.random(N) < 0.3, mask=mask)
    if kind in ("string", "large_string"):
        words = np.array(["w%d" % i for i in range(3000)] + [""], dtype=object)
        t = pa.string() if kind == "string" else pa.large_string()
        return pa.array(words[rng.integers(0, len(words), N)], t, mask=mask)
    if kind == "binary":
        lens = rng.integers(0, 30, N)
        return pa.array([bytes(rng.integers(0, 256, l, dtype=np.uint8)) for l in lens], pa.binary(), mask=mask)
    if kind == "fixed":
        return pa.array([bytes(rng.integers(0, 256, 5, dtype=np.uint8)) for _ in range(N)], pa.binary(5), mask=mask)
    if kind in ("list", "list_str", "list_list", "list_struct"):
        # lists of 0..5 elements, null lists (pct %), null and empty elements
        lens = rng.integers(0, 6, N)
        if mask is not None:
            lens[mask] = 0
        tot = int(lens.sum())
        emask = rng.random(tot) < 0.2
        if kind == "list":
            inner = pa.array(rng.integers(-2**62, 2**62, tot), mask=emask)
        elif kind == "list_str":
            words = np.array(["w%d" % i for i in range(500)] + [""], dtype=object)
            inner = pa.array(words[rng.integers(0, len(words), tot)], pa.string(), mask=emask)
        elif kind == "list_list":
            ilens = rng.integers(0, 4, tot)
            ilens[emask] = 0
            leaf = pa.array(rng.random(int(ilens.sum())).astype(np.float32))
            ioffs = np.concatenate([[0], np.cumsum(ilens)]).astype(np.int32)
            inner = pa.ListArray.from_arrays(pa.array(ioffs), leaf, mask=pa.array(emask))
        else:
            inner = pa.StructArray.from_arrays(
                [pa.array(rng.integers(0, 100, tot).astype(np.int32)), pa.array(rng.random(tot))],
                names=["a", "b"], mask=pa.array(emask))
        offs = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
        return pa.ListArray.from_arrays(pa.array(offs), inner, mask=pa.array(mask) if mask is not None else None)
    raise ValueError(kind)


KINDS = ["int8", "int16", "int32", "int64", "float", "double", "timestamp", "decimal", "decimal12", "decimal38", "bool",
         "string", "large_string", "binary", "fixed", "list", "list_str", "list_list", "list_struct"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("pct", [0, 5, 50, 95, 100])
def test_kind_nulls(tmp_path, kind, pct):
    rng = np.random.default_rng(hash((kind, pct)) & 0xffffffff)
    a = column(kind, pct, rng)
    for i, (dict_, version, codec) in enumerate([(True, "1.0", "zstd"), (False, "2.0", "snappy"),
                                                 (True, "2.0", "none")]):
        p = str(tmp_path / ("f%d.parquet" % i))
        ppq.write_table(pa.table({"c": a, "k": pa.array(np.arange(N))}), p, compression=codec,
                        use_dictionary=dict_, data_page_version=version, data_page_size=7000,
                        row_group_size=9000)
        want = ppq.read_table(p)
        for batch in (0, 1000, 4099):
            got = pa.table(pq.read_table(p, batch_rows=batch))
            got = got.cast(want.schema) if got.schema != want.schema else got
            assert got.equals(want), (kind, pct, dict_, version, codec, batch)
        got = pa.table(pq.read_table(p, columns=["c"]))
        assert got.column("c").to_pylist() == want.column("c").to_pylist()


@pytest.mark.parametrize("threads", [True, 2, 3])
def test_use_threads_same_values(tmp_path, threads):
    # columns shared out among threads: same table, same batches' order
    rng = np.random.default_rng(7)
    cols = {k: column(k, 5, rng) for k in ["int64", "double", "string", "list", "bool", "decimal"]}
    t = pa.table(cols)
    p = str(tmp_path / "t.parquet")
    ppq.write_table(t, p, row_group_size=6000, data_page_size=4096)
    got = pa.table(pq.read_table(p, use_threads=threads, batch_rows=1000))
    assert got.equals(t)
    got = pq.read_table(p, use_threads=threads, filters=[("int64", ">", 0)])
    assert got.equals(pa.table(pq.read_table(p, filters=[("int64", ">", 0)])))


@pytest.mark.parametrize("bad", [0, -1, 1025, "2", 1.5])
def test_use_threads_bad_value(tmp_path, bad):
    p = str(tmp_path / "t.parquet")
    ppq.write_table(pa.table({"a": [1, 2]}), p)
    with pytest.raises(ValueError, match="use_threads"):
        pq.read_table(p, use_threads=bad)
