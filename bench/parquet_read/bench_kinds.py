"""Parquet decode speed by column kind: paimonc against pyarrow, one thread each.

Every file holds one column of one kind; each is read alone, by pyarrow
(`pq.read_table(f, use_threads=False)`) and by paimonc
(`pa.table(paimonc.parquet.read_table(f))`), in interleaved rounds, and the
median of each side is reported with the ratio pyarrow / paimonc (> 1: we are
faster). Also the "issue file" of issue 19 (3M rows, 10 columns, zstd level 1,
dictionary on): each column alone and the whole file.

Matrix (--set):
  issue   the 10-column file of issue 19, columns alone and together
  kinds   int32/int64/float/double/timestamp/decimal/bool/string/binary/list
          x 0/5/50/95 % nulls x plain/dictionary; pyarrow writer, page v1, zstd
  pages   int64, double, string (5% nulls, plain and dictionary): page v2; snappy; none
  writers int64, double, string, list (5% nulls) written by paimonc and by DuckDB
  all     everything above (the default)

"issue whole file, threads" reads the whole file with use_threads=True on
every side (pyarrow read_table and ParquetFile.read, paimonc read_table).

    .venv/bin/python bench/parquet_read/bench_kinds.py [--rows 1000000] [--rounds 7]
        [--set all] [--dir /tmp/pqkinds] [--only SUBSTRING]

The files are cached in --dir (delete it after changing the generator).
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as ppq

import paimonc.parquet as pq

NULLS = (0, 5, 50, 95)
KINDS = ("int32", "int64", "float", "double", "timestamp", "decimal", "bool", "string", "binary", "list")


def _mask(rng, n, pct):
    if pct == 0:
        return None
    return rng.random(n) < pct / 100.0


def make_values(kind, n, pct, dict_friendly, seed):
    """One column of `kind` with pct % nulls. dict_friendly: few distinct
    values (the writer keeps the dictionary); else high cardinality (it falls
    back to PLAIN, or is written with the dictionary off)."""
    rng = np.random.default_rng(seed)
    mask = _mask(rng, n, pct)
    card = 1000 if dict_friendly else None
    if kind in ("int32", "int64"):
        dt = np.int32 if kind == "int32" else np.int64
        hi = card or (2**31 - 1 if kind == "int32" else 2**62)
        return pa.array(rng.integers(0, hi, n, dtype=dt), mask=mask)
    if kind in ("float", "double"):
        v = rng.random(n)
        if card:
            v = np.round(v * card) / card
        return pa.array(v.astype(np.float32 if kind == "float" else np.float64), mask=mask)
    if kind == "timestamp":
        hi = card or 2**50
        return pa.array(rng.integers(0, hi, n), pa.timestamp("us"), mask=mask)
    if kind == "decimal":
        hi = card or 10**15
        v = pa.array(rng.integers(0, hi, n), mask=mask)
        return v.cast(pa.decimal128(19, 0)).cast(pa.decimal128(18, 2), safe=False)
    if kind == "bool":
        return pa.array(rng.random(n) < 0.5, mask=mask)
    if kind in ("string", "binary"):
        if card:
            words = np.array(["value-%05d" % i for i in range(card)], dtype=object)
            v = words[rng.integers(0, card, n)]
        else:
            lens = rng.integers(4, 40, n)
            pool = "".join(chr(97 + i % 26) for i in range(128))
            starts = rng.integers(0, 64, n)
            v = np.array([pool[s:s + l] for s, l in zip(starts, lens)], dtype=object)
        a = pa.array(v, pa.string(), mask=mask)
        return a.cast(pa.binary()) if kind == "binary" else a
    if kind == "list":
        lens = rng.integers(0, 6, n)
        if mask is not None:
            lens[mask] = 0    # a null list has no elements
        tot = int(lens.sum())
        hi = card or 2**62
        inner = pa.array(rng.integers(0, hi, tot))
        offs = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
        return pa.ListArray.from_arrays(pa.array(offs), inner, mask=pa.array(mask) if mask is not None else None)
    raise ValueError(kind)


def write_pyarrow(t, path, dictionary, version="1.0", compression="zstd"):
    ppq.write_table(t, path, compression=compression, compression_level=1 if compression == "zstd" else None,
                    use_dictionary=dictionary, data_page_version=version)


def write_paimonc(t, path, dictionary):
    import paimonc.parquet_write as pw
    pw.write_table(t, path, compression="zstd", dictionary=dictionary)


def write_duckdb(t, path, dictionary):
    import duckdb
    con = duckdb.connect()
    con.register("t", t)
    # DuckDB picks dictionary encoding itself (by the ratio of distinct values)
    con.execute("COPY t TO '%s' (FORMAT parquet, COMPRESSION zstd)" % path.replace("'", "''"))
    con.close()


def issue_table(n):
    """Issue 19's file: 3M rows by default, pyarrow 19 defaults but zstd level 1."""
    rng = np.random.default_rng(19)
    labels = np.array(["label-%d" % i for i in range(50)], dtype=object)
    words = np.array(["w%d" % i for i in range(5000)], dtype=object)
    text = [" ".join(words[rng.integers(0, 5000, 1 + i % 6)]) for i in range(n)]
    return pa.table({
        "id": pa.array(np.arange(n, dtype=np.int64)),
        "user": pa.array(rng.integers(0, 100_000, n, dtype=np.int32)),
        "score": pa.array(rng.random(n)),
        "f32": pa.array(rng.random(n).astype(np.float32), mask=rng.random(n) < 0.05),
        "maybe": pa.array(rng.integers(-2**40, 2**40, n), mask=rng.random(n) < 0.5),
        "ts": pa.array(1_700_000_000_000_000 + rng.integers(0, 10**12, n), pa.timestamp("us")),
        "label": pa.array(labels[rng.integers(0, 50, n)], pa.string()),
        "text": pa.array(text, pa.string()),
        "flag": pa.array(rng.random(n) < 0.3),
        "price": pa.array(rng.integers(0, 10**8, n).astype(np.int32)).cast(pa.decimal128(10, 0)).cast(pa.decimal128(12, 2)),
    })


def cases(args):
    """(name, path, columns, make) for the selected sets; make() writes path."""
    d = args.dir
    n = args.rows
    out = []
    sets = {"issue", "kinds", "pages", "writers"} if args.set == "all" else set(args.set.split(","))
    if "issue" in sets:
        p = os.path.join(d, "issue_%d.parquet" % args.issue_rows)

        def mk(p=p):
            t = issue_table(args.issue_rows)
            ppq.write_table(t, p, compression="zstd", compression_level=1)
        names = ["id", "user", "score", "f32", "maybe", "ts", "label", "text", "flag", "price"]
        for c in names:
            out.append(("issue %s" % c, p, [c], mk))
        out.append(("issue whole file", p, None, mk))
        out.append(("issue whole file, threads", p, "threads", mk))
    if "kinds" in sets:
        for kind in KINDS:
            for pct in NULLS:
                for enc in ("plain", "dict"):
                    if kind == "bool" and enc == "dict":
                        continue
                    p = os.path.join(d, "k_%s_%d_%s_%d.parquet" % (kind, pct, enc, n))

                    def mk(p=p, kind=kind, pct=pct, enc=enc):
                        a = make_values(kind, n, pct, enc == "dict", hash((kind, pct)) & 0xffff)
                        write_pyarrow(pa.table({"c": a}), p, enc == "dict")
                    out.append(("%-9s %2d%% %-5s" % (kind, pct, enc), p, None, mk))
    if "pages" in sets:
        for kind in ("int64", "double", "string"):
            for enc in ("plain", "dict"):
                for var in ("v2", "snappy", "none"):
                    p = os.path.join(d, "p_%s_%s_%s_%d.parquet" % (kind, enc, var, n))

                    def mk(p=p, kind=kind, enc=enc, var=var):
                        a = make_values(kind, n, 5, enc == "dict", 7)
                        write_pyarrow(pa.table({"c": a}), p, enc == "dict",
                                      version="2.0" if var == "v2" else "1.0",
                                      compression={"v2": "zstd", "snappy": "snappy", "none": "none"}[var])
                    out.append(("%-9s  5%% %-5s %s" % (kind, enc, var), p, None, mk))
    if "writers" in sets:
        for w in ("paimonc", "duckdb"):
            for kind in ("int64", "double", "string", "list"):
                for enc in ("plain", "dict"):
                    p = os.path.join(d, "w_%s_%s_%s_%d.parquet" % (w, kind, enc, n))

                    def mk(p=p, w=w, kind=kind, enc=enc):
                        a = make_values(kind, n, 5, enc == "dict", 11)
                        (write_paimonc if w == "paimonc" else write_duckdb)(pa.table({"c": a}), p, enc == "dict")
                    out.append(("%-9s  5%% %-5s by %s" % (kind, enc, w), p, None, mk))
    if args.only:
        out = [c for c in out if args.only in c[0]]
    return out


def read_pa(path, cols):
    if cols == "threads":
        return ppq.read_table(path, use_threads=True)
    return ppq.read_table(path, columns=cols, use_threads=False)


def read_pa1(path, cols):
    # truly one thread: pq.read_table(use_threads=False) goes through the
    # dataset scanner, whose readahead still decodes on Arrow's I/O threads
    # (about 1.5 CPUs busy); ParquetFile.read(use_threads=False) does not
    if cols == "threads":
        return ppq.ParquetFile(path).read(use_threads=True)
    return ppq.ParquetFile(path).read(columns=cols, use_threads=False)


def read_pc(path, cols):
    if cols == "threads":
        return pa.table(pq.read_table(path, use_threads=True))
    return pa.table(pq.read_table(path, columns=cols))


def measure(path, cols, rounds):
    # one warm-up each (page cache, allocator), then interleaved rounds;
    # wall and CPU (process) time of every call
    a = read_pa(path, cols)
    b = read_pc(path, cols)
    if a.schema != b.schema:
        b = b.cast(a.schema)
    if not a.equals(b):
        raise SystemExit("%s: paimonc and pyarrow read different values" % path)
    del a, b
    read_pa1(path, cols)
    fns = (read_pa, read_pa1, read_pc)
    wall = {fn: [] for fn in fns}
    cpu = {fn: [] for fn in fns}
    for r in range(rounds):
        order = fns if r % 2 == 0 else fns[::-1]
        for fn in order:
            t0 = time.perf_counter()
            c0 = time.process_time()
            x = fn(path, cols)
            dt = time.perf_counter() - t0
            dc = time.process_time() - c0
            del x
            wall[fn].append(dt)
            cpu[fn].append(dc)
    med = statistics.median
    return (med(wall[read_pa]), med(cpu[read_pa]), med(wall[read_pa1]), med(wall[read_pc]), med(cpu[read_pc]))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=1_000_000, help="rows per single-column file")
    ap.add_argument("--issue-rows", type=int, default=3_000_000)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--set", default="all")
    ap.add_argument("--dir", default="/tmp/pqkinds")
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    print("pyarrow %s, %d rounds interleaved, medians in ms; paimonc runs on one thread (but in the threads row)"
          % (pa.__version__, args.rounds))
    print("  pa wall/cpu: pq.read_table(f, use_threads=False), wall and CPU time (its dataset readahead")
    print("               decodes on Arrow's I/O threads, so CPU > wall)")
    print("  pa1:         pq.ParquetFile(f).read(use_threads=False), truly one thread")
    print("  ratios:      wall = pa wall / pc wall, cpu = pa cpu / pc cpu, 1thr = pa1 / pc wall")
    print("%-34s %8s %8s %8s %8s %8s %6s %6s %6s" % ("case", "pa wall", "pa cpu", "pa1", "pc wall", "pc cpu",
                                                     "wall", "cpu", "1thr"))
    worst = None
    for name, path, cols, mk in cases(args):
        if not os.path.exists(path):
            mk()
        paw, pac, pa1, pcw, pcc = measure(path, cols, args.rounds)
        ratio = paw / pcw
        worst = ratio if worst is None or ratio < worst else worst
        print("%-34s %8.2f %8.2f %8.2f %8.2f %8.2f %6.2f %6.2f %6.2f" % (
            name, paw * 1e3, pac * 1e3, pa1 * 1e3, pcw * 1e3, pcc * 1e3, ratio, pac / pcc, pa1 / pcw))
        sys.stdout.flush()
    if worst is not None:
        print("lowest wall ratio %.2f" % worst)


if __name__ == "__main__":
    main()
