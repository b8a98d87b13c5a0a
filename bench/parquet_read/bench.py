"""Parquet read benchmark: pyarrow.parquet.read_table(f, use_threads=False)
vs pyarrow.table(paimonc.parquet.read_table(f)), single thread, best of N.

    /work/main/.venv/bin/python bench/parquet_read/bench.py [--rows 10000000] [--repeat 3] [--dir /tmp/pqbench]
"""
import argparse
import os
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as ppq

import paimonc.parquet as pq


def make_files(d, rows):
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(42)
    files = {}
    p = os.path.join(d, "a_mixed_zstd_%d.parquet" % rows)
    if not os.path.exists(p):
        n = rows
        t = pa.table({
            "i32": pa.array(rng.integers(0, 1000, n, dtype=np.int32)),
            "i64": pa.array(rng.integers(-2**40, 2**40, n)),
            "f64": pa.array(rng.random(n)),
            "f32": pa.array(rng.random(n).astype(np.float32)),
            "opt_i64": pa.array(rng.integers(0, 10**6, n), mask=rng.random(n) < 0.1),
            "bool": pa.array(rng.random(n) < 0.5),
            "str_dict": pa.array(np.array(["cat%d" % i for i in range(100)])[rng.integers(0, 100, n)]),
            "ts": pa.array(rng.integers(0, 2**50, n), pa.timestamp("us")),
            "date": pa.array(rng.integers(0, 20000, n, dtype=np.int32), pa.date32()),
            "dec": pa.array(rng.integers(0, 10**9, n, dtype=np.int32)).cast(pa.decimal128(10, 0)).cast(pa.decimal128(18, 2)),
        })
        ppq.write_table(t, p, compression="zstd")
    files["a %dM x 10 mixed zstd" % (rows // 1000000)] = (p, None)
    p = os.path.join(d, "b_long_strings_%d.parquet" % rows)
    if not os.path.exists(p):
        n = max(rows // 20, 1000)
        base = "".join(chr(97 + i % 26) for i in range(2000))
        vals = [base[(i * 7) % 1000:(i * 7) % 1000 + 200 + i % 800] for i in range(n)]
        ppq.write_table(pa.table({"s": vals}), p, compression="snappy", use_dictionary=False)
    files["b long strings"] = (p, None)
    p = os.path.join(d, "c_wide20_%d.parquet" % rows)
    if not os.path.exists(p):
        n = rows // 4
        t = pa.table({"c%d" % i: pa.array(rng.integers(0, 10**9, n)) for i in range(20)})
        ppq.write_table(t, p, compression="zstd")
    files["c 1 of 20 columns"] = (p, ["c7"])
    p = os.path.join(d, "d_nested_lists_%d.parquet" % rows)
    if not os.path.exists(p):
        n = rows // 10
        lens = rng.integers(0, 6, n)
        tot = int(lens.sum())
        vals = pa.array(rng.integers(0, 1000, tot), mask=rng.random(tot) < 0.1)
        nulls = rng.random(n) < 0.1
        lens[nulls] = 0
        offs = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
        vals = vals.slice(0, int(offs[-1]))
        lst = pa.ListArray.from_arrays(pa.array(offs), vals, mask=pa.array(nulls))
        ppq.write_table(pa.table({"l": lst}), p, compression="zstd")
    files["d nullable lists"] = (p, None)
    return files


def best(fn, repeat):
    b, r = None, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = fn()
        dt = time.perf_counter() - t0
        b = dt if b is None or dt < b else b
    return b, r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--dir", default="/tmp/pqbench")
    a = ap.parse_args()
    files = make_files(a.dir, a.rows)
    print("%-26s %10s %10s %8s" % ("case", "pyarrow s", "paimonc s", "ratio"))
    for name, (path, cols) in files.items():
        tp, e = best(lambda: ppq.read_table(path, columns=cols, use_threads=False), a.repeat)
        to, g = best(lambda: pa.table(pq.read_table(path, columns=cols)), a.repeat)
        assert g.num_rows == e.num_rows and g.column(0).equals(e.column(0)), name
        print("%-26s %10.3f %10.3f %8.2f" % (name, tp, to, to / tp), flush=True)


if __name__ == "__main__":
    main()
