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
    raise ValueError(kind)


KINDS = ["int8", "int16", "int32", "int64", "float", "double", "timestamp", "decimal", "decimal12", "decimal38", "bool",
         "string", "large_string", "binary", "fixed"]


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
