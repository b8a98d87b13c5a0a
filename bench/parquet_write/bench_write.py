"""Parquet write throughput: paimonc vs pyarrow.parquet.write_table.

10 mixed columns (ints, floats, bool, strings of low and high cardinality,
timestamp, decimal), ZSTD level 1, dictionary on, 1 MiB pages, single thread.
Prints seconds per writer and the ratio pyarrow_time / paimonc_time
(> 1 means paimonc is faster).

    /work/main/.venv/bin/python bench/parquet_write/bench_write.py [rows] [repeats]
"""
import os
import sys
import tempfile
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

try:
    from paimonc.parquet import write_table
except ImportError:
    from paimonc.parquet_write import write_table


def decimals(unscaled):
    """decimal128(18, 2) from int64 unscaled values (16-byte little-endian slots)."""
    raw = np.zeros((len(unscaled), 2), dtype=np.int64)
    raw[:, 0] = unscaled
    raw[:, 1] = np.where(unscaled < 0, -1, 0)
    return pa.Array.from_buffers(pa.decimal128(18, 2), len(unscaled), [None, pa.py_buffer(raw)])


def make_table(n, seed=42):
    rng = np.random.default_rng(seed)
    words = np.array(["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"] * 4, dtype=object)
    words = np.array([w + str(i) for i, w in enumerate(words)], dtype=object)
    ids = np.arange(n, dtype=np.int64)
    cols = {
        "id": pa.array(ids),
        "i32": pa.array(rng.integers(0, 1000, n, dtype=np.int32)),
        "i64": pa.array(rng.integers(-2**62, 2**62, n, dtype=np.int64)),
        "f64": pa.array(rng.standard_normal(n)),
        "f32": pa.array(rng.random(n, dtype=np.float32)),
        "flag": pa.array(rng.random(n) < 0.3),
        "cat": pa.array(words[rng.integers(0, len(words), n)], pa.string()),
        "name": pa.array(np.char.add("user-", (ids * 7919 % 1000003).astype(str)).astype(object), pa.string()),
        "ts": pa.array(1_700_000_000_000_000 + ids * 1000, pa.timestamp("us")),
        "qty": decimals(rng.integers(0, 10**12, n)),
    }
    t = pa.table(cols)
    # 10% nulls in two columns
    mask = pa.array(rng.random(n) < 0.1)
    t = t.set_column(3, "f64", pa.compute.if_else(mask, pa.scalar(None, pa.float64()), t["f64"]))
    t = t.set_column(6, "cat", pa.compute.if_else(mask, pa.scalar(None, pa.string()), t["cat"]))
    return t


def best(fn, repeats):
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return min(ts)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    pa.set_cpu_count(1)
    pa.set_io_thread_count(1)
    t = make_table(n)
    d = tempfile.mkdtemp(prefix="pqbench-")
    p1, p2 = os.path.join(d, "paimonc.parquet"), os.path.join(d, "pyarrow.parquet")
    tc = best(lambda: write_table(t, p1, compression="zstd", compression_level=1), repeats)
    tp = best(lambda: pq.write_table(t, p2, compression="zstd", compression_level=1, use_dictionary=True,
                                     data_page_size=1 << 20, write_statistics=True), repeats)
    s1, s2 = os.path.getsize(p1), os.path.getsize(p2)
    assert pq.read_table(p1).num_rows == n
    print("rows=%d cols=%d pyarrow=%s" % (n, t.num_columns, pa.__version__))
    print("paimonc : %.3f s  %.1f MB" % (tc, s1 / 1e6))
    print("pyarrow : %.3f s  %.1f MB" % (tp, s2 / 1e6))
    print("ratio (pyarrow time / paimonc time): %.2f" % (tp / tc))
    os.unlink(p1)
    os.unlink(p2)
    os.rmdir(d)


if __name__ == "__main__":
    main()
