"""Sorted global index (btree, bitmap) and 64-bit Roaring interop with pypaimon 2.1.

A C driver (tests/unit/index/sidx_driver.c, linked against the CMake build's
libpaimonc.a) writes and queries index files; pypaimon's own writer and
reader classes (pypaimon.globalindex.btree / .bitmap) work on the same files
directly, with no table involved. Keys cross the process boundary as hex of
pypaimon's KeySerializer bytes.

* pypaimon writes -> paimonc answers the same row-id sets as pypaimon's reader
  (and as brute force) for many predicates;
* paimonc writes -> pypaimon's reader answers as brute force;
* btree files of both writers are byte-identical for the same input
  (bitmap files legitimately differ: see test_bitmap_layouts_differ).
"""
import functools
import os
import random
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import pytest

pyroaring = pytest.importorskip("pyroaring")
pytest.importorskip("pypaimon")

from pypaimon.filesystem.local_file_io import LocalFileIO  # noqa: E402
from pypaimon.globalindex.bitmap.bitmap_index_writer import BitmapIndexWriter  # noqa: E402
from pypaimon.globalindex.bitmap.lazy_filtered_bitmap_reader import LazyFilteredBitmapReader  # noqa: E402
from pypaimon.globalindex.btree.btree_index_writer import BTreeIndexWriter  # noqa: E402
from pypaimon.globalindex.btree.lazy_filtered_btree_reader import LazyFilteredBTreeReader  # noqa: E402
from pypaimon.globalindex.global_index_meta import GlobalIndexIOMeta  # noqa: E402
from pypaimon.globalindex.global_index_reader import FieldRef  # noqa: E402
from pypaimon.globalindex.key_serializer import create_serializer  # noqa: E402
from pypaimon.schema.data_types import AtomicType  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("PAIMONC_BINARY_DIR", os.path.join(ROOT, "build"))

# pm_sidx_op numbers
EQ, NE, LT, LE, GT, GE, IN, NOT_IN, IS_NULL, IS_NOT_NULL, STARTS_WITH, ENDS_WITH, CONTAINS = range(13)


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    lib = os.path.join(BUILD, "libpaimonc.a")
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not os.path.exists(lib) or not cc or not shutil.which("pkg-config"):
        pytest.fail("needs a CMake build directory with libpaimonc.a and a C compiler")
    out = str(tmp_path_factory.mktemp("sidx") / "sidx_driver")
    libs = subprocess.run(["pkg-config", "--libs", "jansson", "libzstd", "liblz4", "zlib"],
                          check=True, capture_output=True, text=True).stdout.split()
    cmd = [cc, "-std=c11", "-D_GNU_SOURCE", "-I" + os.path.join(ROOT, "include"), "-I" + os.path.join(ROOT, "src"),
           os.path.join(ROOT, "tests/unit/index/sidx_driver.c"), lib] + libs + ["-lsnappy", "-lroaring", "-ldl"]
    cache = os.path.join(BUILD, "CMakeCache.txt")
    text = open(cache).read() if os.path.exists(cache) else ""
    if "LIBDEFLATE_FOUND:INTERNAL=1" in text:
        cmd += ["-ldeflate"]
    if "PAIMONC_SANITIZE:BOOL=ON" in text:
        cmd += ["-fsanitize=address,undefined"]
    subprocess.run(cmd + ["-lm", "-o", out], check=True)
    return out


# ----------------------------------------------------------------- rb64

def _random_set(rng):
    vals = set()
    for base in (0, 1 << 32, (7 << 32) + 5, (1 << 45), (1 << 63) + 17):
        if rng.random() < 0.7:
            for _ in range(rng.randint(0, 3000)):
                vals.add(base + rng.randint(0, 200000))
            if rng.random() < 0.5:
                lo = base + rng.randint(0, 100000)
                vals.update(range(lo, lo + rng.randint(1, 70000)))
    return vals


def test_rb64_bytes_both_ways(driver, tmp_path):
    rng = random.Random(7)
    for i in range(25):
        vals = _random_set(rng)
        bm = pyroaring.BitMap64(vals)
        bm.run_optimize()
        src = tmp_path / f"py{i}.bin"
        src.write_bytes(bm.serialize())
        ours = tmp_path / f"c{i}.bin"
        out = subprocess.run([driver, "rb64", str(src), str(ours)], check=True, capture_output=True,
                             text=True).stdout.split()
        assert int(out[0]) == src.stat().st_size
        assert [int(x) for x in out[1:]] == sorted(vals)
        # our serialization (run-optimized, as Java's RoaringNavigableMap64) is pyroaring's byte for byte
        assert ours.read_bytes() == bm.serialize()
        # and the other direction: our writer, pyroaring's reader
        lst = tmp_path / f"v{i}.txt"
        lst.write_text(" ".join(str(v) for v in vals))
        w = tmp_path / f"w{i}.bin"
        subprocess.run([driver, "rb64w", str(lst), str(w)], check=True)
        assert set(pyroaring.BitMap64.deserialize(w.read_bytes())) == vals


# --------------------------------------------------------------- sorted

def _gen(type_name, rng):
    """A random non-null key for type_name (small domains -> duplicates)."""
    t = type_name.upper()
    if t == "INT":
        return rng.randint(-40, 40) * 1000003
    if t == "BIGINT":
        return rng.randint(-40, 40) * 10 ** 12 + rng.randint(0, 2)
    if t == "TINYINT":
        return rng.randint(-42, 42) * 3
    if t == "TIME":
        return rng.randint(0, 86399) * 1000 if rng.random() < 0.5 else rng.randint(0, 50) * 1000
    if t == "SMALLINT":
        return rng.randint(-300, 300) * 7
    if t == "BOOLEAN":
        return rng.random() < 0.5
    if t == "DOUBLE":
        return rng.choice([float("inf"), float("-inf"), float("nan"), 1e300, -2.5]) if rng.random() < 0.1 \
            else rng.randint(-50, 50) / 8
    if t == "FLOAT":
        return rng.randint(-50, 50) / 4
    if t == "STRING":
        return rng.choice(["", "a", "ab", "abc", "abd", "b", "ba", "bab", "\u00e9t\u00e9", "zz", "zzz",
                           "m", "mm", "mno", "x1", "x10", "x2", "hello world", "\U0001F600", "a\u0000b"])
    if t == "DATE":
        return rng.randint(-400, 400) * 37
    if t.startswith("TIMESTAMP"):
        return rng.randint(-300, 300) * 86400001003
    if t.startswith("DECIMAL"):
        return Decimal(rng.randint(-10 ** 6, 10 ** 6)) * Decimal(10) ** 12 / Decimal(100) \
            if "30" in t else Decimal(rng.randint(-5000, 5000)) / Decimal(100)
    raise AssertionError(t)


TYPES = ["INT", "BIGINT", "TINYINT", "SMALLINT", "BOOLEAN", "TIME", "TIMESTAMP_LTZ(6)", "DOUBLE", "FLOAT", "STRING", "DATE", "TIMESTAMP(6)",
         "TIMESTAMP(3)", "DECIMAL(10, 2)", "DECIMAL(30, 2)"]


def _c_type(t):
    return "STRING" if t == "STRING" else t


class Data:
    def __init__(self, type_name, n, seed, null_ratio=0.15):
        rng = random.Random(seed)
        self.type_name = type_name
        self.ser = create_serializer(AtomicType(type_name))
        self.cmp = self.ser.create_comparator()
        self.rng = rng
        self.keys = [None if rng.random() < null_ratio else _gen(type_name, rng) for _ in range(n)]
        nonnull = [(k, i) for i, k in enumerate(self.keys) if k is not None]
        nonnull.sort(key=functools.cmp_to_key(
            lambda a, b: self.cmp(a[0], b[0]) or (a[1] > b[1]) - (a[1] < b[1])))
        nulls = [(None, i) for i, k in enumerate(self.keys) if k is None]
        # nulls anywhere in the stream (row ids of one key still ascend)
        seq = list(nonnull)
        for item in nulls:
            seq.insert(rng.randint(0, len(seq)), item)
        self.seq = seq

    def hexkey(self, k):
        if k is None:
            return "N"
        b = self.ser.serialize(k)
        return b.hex() if b else "E"

    def literal(self):
        return _gen(self.type_name, self.rng)

    def brute(self, op, lits):
        out = set()
        c = self.cmp
        for i, k in enumerate(self.keys):
            if op == IS_NULL:
                m = k is None
            elif k is None:
                m = False
            elif op == IS_NOT_NULL:
                m = True
            elif op in (IN, NOT_IN):
                hit = any(x is not None and c(k, x) == 0 for x in lits)
                m = hit if op == IN else (not hit and all(x is not None for x in lits))
            elif op == STARTS_WITH:
                m = k.encode().startswith(lits[0].encode())
            elif op == ENDS_WITH:
                m = k.encode().endswith(lits[0].encode())
            elif op == CONTAINS:
                m = lits[0].encode() in k.encode()
            else:
                d = c(k, lits[0])
                m = {EQ: d == 0, NE: d != 0, LT: d < 0, LE: d <= 0, GT: d > 0, GE: d >= 0}[op]
            if m:
                out.add(i)
        return out


def _py_write(kind, data, index_dir, block_size, nfiles):
    io = LocalFileIO()
    metas = []
    seq = data.seq
    for f in range(nfiles):
        part = seq[len(seq) * f // nfiles: len(seq) * (f + 1) // nfiles]
        if kind == "btree":
            w = BTreeIndexWriter(io, index_dir, data.ser, block_size=block_size)
        else:
            w = BitmapIndexWriter(io, index_dir, data.ser, dictionary_block_size=block_size)
        for k, row in part:
            w.write(k, row)
        entries = w.finish()
        for e in entries:
            path = os.path.join(index_dir, e.file_name)
            metas.append(GlobalIndexIOMeta(e.file_name, os.path.getsize(path), e.meta))
    return metas


def _c_write(driver, kind, data, index_dir, opts, nfiles, tmp_path, tag):
    metas = []
    seq = data.seq
    optf = tmp_path / f"opts-{tag}.txt"
    optf.write_text("".join(f"{k}={v}\n" for k, v in opts.items()))
    for f in range(nfiles):
        part = seq[len(seq) * f // nfiles: len(seq) * (f + 1) // nfiles]
        rows = tmp_path / f"rows-{tag}-{f}.txt"
        rows.write_text("".join(f"{row} {data.hexkey(k)}\n" for k, row in part))
        name = f"c-{tag}-{f}.index"
        out = subprocess.run([driver, "write", kind, _c_type(data.type_name), str(optf), str(rows),
                              os.path.join(index_dir, name)], check=True, capture_output=True, text=True).stdout
        meta_hex, count, size = out.split()
        assert int(count) == len(part)
        assert int(size) == os.path.getsize(os.path.join(index_dir, name))
        metas.append(GlobalIndexIOMeta(name, int(size), bytes.fromhex(meta_hex) if meta_hex != "E" else b""))
    return metas


def _c_query(driver, kind, data, index_dir, metas, queries, tmp_path, tag, opts=None):
    spec = []
    for m in metas:
        spec.append(f"F {os.path.join(index_dir, m.file_name)} {m.file_size} {m.metadata.hex() or 'E'}")
    for op, lits in queries:
        spec.append("Q %d %s" % (op, " ".join(data.hexkey(x) for x in lits)))
    sp = tmp_path / f"spec-{tag}.txt"
    sp.write_text("\n".join(spec) + "\n")
    optf = "-"
    if opts:
        o = tmp_path / f"qopts-{tag}.txt"
        o.write_text("".join(f"{k}={v}\n" for k, v in opts.items()))
        optf = str(o)
    out = subprocess.run([driver, "query", kind, _c_type(data.type_name), str(len(data.keys)), optf, str(sp)],
                         check=True, capture_output=True, text=True).stdout.splitlines()
    res = []
    for line in out:
        if line == "NULL":
            res.append(None)
        elif line.startswith("R"):
            res.append(set(int(x) for x in line.split()[1:]))
        else:
            raise AssertionError(line)
    return res


def _py_reader(kind, data, index_dir, metas, fallback=256 << 20):
    cls = LazyFilteredBTreeReader if kind == "btree" else LazyFilteredBitmapReader
    return cls(data.ser, LocalFileIO(), index_dir, metas, ThreadPoolExecutor(2), fallback)


def _py_query(reader, data, op, lits):
    ref = FieldRef(0, "k", data.type_name)
    fn = {
        EQ: lambda: reader.visit_equal(ref, lits[0]),
        NE: lambda: reader.visit_not_equal(ref, lits[0]),
        LT: lambda: reader.visit_less_than(ref, lits[0]),
        LE: lambda: reader.visit_less_or_equal(ref, lits[0]),
        GT: lambda: reader.visit_greater_than(ref, lits[0]),
        GE: lambda: reader.visit_greater_or_equal(ref, lits[0]),
        IN: lambda: reader.visit_in(ref, lits),
        NOT_IN: lambda: reader.visit_not_in(ref, lits),
        IS_NULL: lambda: reader.visit_is_null(ref),
        IS_NOT_NULL: lambda: reader.visit_is_not_null(ref),
        STARTS_WITH: lambda: reader.visit_starts_with(ref, lits[0]),
        ENDS_WITH: lambda: reader.visit_ends_with(ref, lits[0]),
        CONTAINS: lambda: reader.visit_contains(ref, lits[0]),
    }[op]
    r = fn().result()
    return None if r is None else set(r.results())


def _queries(data, count):
    ops = [EQ, NE, LT, LE, GT, GE, IN, NOT_IN, IS_NULL, IS_NOT_NULL]
    if data.type_name == "STRING":
        ops += [STARTS_WITH, ENDS_WITH, CONTAINS]
    qs = []
    for i in range(count):
        op = ops[i % len(ops)]
        if op in (IS_NULL, IS_NOT_NULL):
            lits = []
        elif op in (IN, NOT_IN):
            lits = [data.literal() for _ in range(data.rng.randint(0, 4))]
        elif op in (STARTS_WITH, ENDS_WITH, CONTAINS):
            lits = [data.literal()[: data.rng.randint(0, 2)]]
        else:
            lits = [data.literal()]
        qs.append((op, lits))
    return qs


def _expected_superset(kind, op):
    """Ops where the reader legitimately answers all non-null rows (btree)."""
    return kind == "btree" and op in (ENDS_WITH, CONTAINS)


@pytest.mark.parametrize("kind", ["btree", "bitmap"])
@pytest.mark.parametrize("type_name", TYPES)
def test_pypaimon_writes_paimonc_reads(driver, tmp_path, kind, type_name):
    data = Data(type_name, 1500, seed=hash((kind, type_name)) & 0xFFFF)
    index_dir = str(tmp_path / "index")
    os.makedirs(index_dir)
    block = 256 if kind == "btree" else 128
    metas = _py_write(kind, data, index_dir, block, nfiles=3)
    queries = _queries(data, 90)
    ours = _c_query(driver, kind, data, index_dir, metas, queries, tmp_path, "q")
    reader = _py_reader(kind, data, index_dir, metas)
    for (op, lits), got in zip(queries, ours):
        assert got is not None, (op, lits)
        brute = data.brute(op, lits)
        nonnull = data.brute(IS_NOT_NULL, [])
        if _expected_superset(kind, op):
            assert got == nonnull
        else:
            assert got == brute, (op, lits)
        theirs = _py_query(reader, data, op, lits)
        if kind == "btree" and op == STARTS_WITH:
            # pypaimon's BTreeIndexReader answers startsWith with all non-null
            # rows; ours scans [prefix, next prefix) exactly.
            assert theirs is not None and got <= theirs
        else:
            # (pypaimon orders its own bitmap dictionaries by serialized bytes
            # and looks keys up the same way, so it is right on its own files;
            # paimonc recognises that layout, see sidx_reader.c)
            assert theirs == got, (op, lits)


# every type uncompressed; zstd and lz4 blocks on a few
WRITE_CASES = [(k, t, "none") for k in ("btree", "bitmap") for t in TYPES] + \
    [(k, t, c) for k in ("btree", "bitmap") for t in ("INT", "STRING", "TIMESTAMP(6)") for c in ("zstd", "lz4")]


@pytest.mark.parametrize("kind,type_name,compression", WRITE_CASES)
def test_paimonc_writes_pypaimon_reads(driver, tmp_path, kind, type_name, compression):
    data = Data(type_name, 1500, seed=(hash((kind, type_name)) & 0xFFFF) + 1)
    index_dir = str(tmp_path / "index")
    os.makedirs(index_dir)
    if kind == "btree":
        opts = {"btree-index.block-size": "256", "btree-index.compression": compression}
    else:
        opts = {"bitmap-index.dictionary-block-size": "128", "bitmap-index.compression": compression}
    # pypaimon 2.1's BitmapIndexReader looks keys up by serialized-byte order
    # (binary search over block first keys, early exit inside a block), which
    # only matches the typed order Java (and paimonc) write for strings and
    # booleans: its EQ/NE/IN/NOT_IN miss keys of Java-layout files of other
    # types. Those answers are not compared with pypaimon's (ours still are
    # checked against brute force).
    byte_lookup_broken = kind == "bitmap" and type_name not in ("STRING", "BOOLEAN")
    metas = _c_write(driver, kind, data, index_dir, opts, 3, tmp_path, "w")
    reader = _py_reader(kind, data, index_dir, metas)
    queries = _queries(data, 90)
    ours = _c_query(driver, kind, data, index_dir, metas, queries, tmp_path, "q")
    for (op, lits), got in zip(queries, ours):
        theirs = _py_query(reader, data, op, lits)
        brute = data.brute(op, lits)
        nonnull = data.brute(IS_NOT_NULL, [])
        if kind == "btree" and op == STARTS_WITH:
            # pypaimon: all non-null rows of the files the selector keeps
            assert brute <= theirs <= nonnull
        elif _expected_superset(kind, op):
            assert theirs == nonnull
        elif not (byte_lookup_broken and op in (EQ, NE, IN, NOT_IN)):
            assert theirs == brute, (op, lits)
        assert got == (nonnull if _expected_superset(kind, op) else brute), (op, lits)


@pytest.mark.parametrize("type_name", TYPES)
def test_btree_bytes_equal_pypaimon(driver, tmp_path, type_name):
    data = Data(type_name, 2000, seed=99)
    d1, d2 = tmp_path / "py", tmp_path / "c"
    d1.mkdir()
    d2.mkdir()
    py = _py_write("btree", data, str(d1), 512, nfiles=1)
    c = _c_write(driver, "btree", data, str(d2), {"btree-index.block-size": "512"}, 1, tmp_path, "b")
    assert (d1 / py[0].file_name).read_bytes() == (d2 / c[0].file_name).read_bytes()
    assert py[0].metadata == c[0].metadata


def test_bitmap_layouts_differ_but_agree(driver, tmp_path):
    """Bitmap files legitimately differ from pypaimon's: Java's StreamingWriter
    (which paimonc follows) writes the value bitmaps and dictionary blocks
    first, then the null and non-null bitmaps; pypaimon writes those two
    first (offset 0) and orders keys by serialized bytes. Java also
    run-optimizes every bitmap before serializing (RoaringNavigableMap64),
    pypaimon does not. Same metadata, same answers."""
    import struct
    data = Data("STRING", 800, seed=5)
    d1, d2 = tmp_path / "py", tmp_path / "c"
    d1.mkdir()
    d2.mkdir()
    py = _py_write("bitmap", data, str(d1), 16384, nfiles=1)
    c = _c_write(driver, "bitmap", data, str(d2), {}, 1, tmp_path, "b")
    pb, cb = (d1 / py[0].file_name).read_bytes(), (d2 / c[0].file_name).read_bytes()
    pf = struct.unpack(">q i q i q i i i i", pb[-48:])
    cf = struct.unpack(">q i q i q i i i i", cb[-48:])
    assert pf[0] == 0 and cf[0] > 0          # null bitmap first vs after the dictionary
    assert pf[6:] == cf[6:]                  # value count, version, magic
    assert py[0].metadata == c[0].metadata
    queries = _queries(data, 60)
    a1 = _c_query(driver, "bitmap", data, str(d1), py, queries, tmp_path, "p")
    a2 = _c_query(driver, "bitmap", data, str(d2), c, queries, tmp_path, "c")
    assert a1 == a2


def test_fallback_budget(driver, tmp_path):
    data = Data("INT", 1500, seed=3)
    index_dir = str(tmp_path / "index")
    os.makedirs(index_dir)
    metas = _py_write("btree", data, index_dir, 256, nfiles=2)
    lit = data.literal()
    queries = [(GE, [lit]), (LT, [lit]), (EQ, [lit]), (NE, [lit])]
    small = {"btree-index.fallback-scan-max-size": "100 b"}
    ours = _c_query(driver, "btree", data, index_dir, metas, queries, tmp_path, "f", small)
    reader = _py_reader("btree", data, index_dir, metas, fallback=100)
    for (op, lits), got in zip(queries, ours):
        theirs = _py_query(reader, data, op, lits)
        assert (got is None) == (theirs is None), op
        if got is not None:
            assert got == theirs
    assert ours[0] is None and ours[2] is not None


def test_btree_with_bloom_filter(driver, tmp_path):
    """pypaimon (and Java) may put a bloom filter between the null bitmap and
    the index block; paimonc reads such files, ignoring the filter."""
    data = Data("STRING", 1200, seed=21)
    index_dir = str(tmp_path / "index")
    os.makedirs(index_dir)
    io = LocalFileIO()
    w = BTreeIndexWriter(io, index_dir, data.ser, block_size=256, bloom_filter_enabled=True)
    for k, row in data.seq:
        w.write(k, row)
    e = w.finish()[0]
    path = os.path.join(index_dir, e.file_name)
    metas = [GlobalIndexIOMeta(e.file_name, os.path.getsize(path), e.meta)]
    with open(path, "rb") as f:
        f.seek(-52, 2)
        assert struct_unpack_bloom(f.read(52)) != (0, 0, 0)
    queries = _queries(data, 60)
    ours = _c_query(driver, "btree", data, index_dir, metas, queries, tmp_path, "bf")
    for (op, lits), got in zip(queries, ours):
        want = data.brute(IS_NOT_NULL, []) if _expected_superset("btree", op) else data.brute(op, lits)
        assert got == want, (op, lits)


def struct_unpack_bloom(footer):
    import struct
    return struct.unpack("<QIQ", footer[:20])
