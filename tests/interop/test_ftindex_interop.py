"""The full-text engine binding of paimonc (src/index/ftindex.c) against the paimon-ftindex
0.1.0 Python package (the same engine through its own ctypes binding), both ways:

  * paimon_ftindex's FullTextIndexWriter builds an index file; paimonc's reader (through our
    FileIO, our PFTIDX01 envelope check, a pm_rb64 filter) returns the same row ids and the
    same float32 scores as paimon_ftindex's FullTextIndexReader, for match, match_phrase,
    boolean queries, plain strings (paimonc turns them into {"match":{"query":...}} as
    pypaimon does) and filters;
  * paimonc's writer builds the index of the same documents; paimon_ftindex's reader searches
    it and returns what it returns on its own writer's index (and what paimonc returns).

There is no Python binding for the index layer yet: the test compiles the C driver
tests/interop/ftindex_driver.c against the static library of a build directory
($PAIMONC_BINARY_DIR, default <repo>/build) and passes it the engine library of the
installed paimon_ftindex package through PAIMONC_FTINDEX_LIB. Random documents, fixed seeds.
"""
import json
import os
import random
import shutil
import struct
import subprocess

import pytest

paimon_ftindex = pytest.importorskip("paimon_ftindex")
pyroaring = pytest.importorskip("pyroaring")

from paimon_ftindex import FullTextIndexReader, FullTextIndexWriter  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("PAIMONC_BINARY_DIR", os.path.join(ROOT, "build"))
LIB = os.path.join(os.path.dirname(paimon_ftindex.__file__), "libpaimon_ftindex_ffi.so")
VOCAB = ["Apache", "paimon", "lake", "storage", "stream", "batch", "table", "index", "query", "café",
         "naïve", "Zürich", "data", "file", "format", "row", "column", "vector", "search", "text"]


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    lib = os.path.join(BUILD, "libpaimonc.a")
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not os.path.exists(lib) or not cc or not shutil.which("pkg-config"):
        pytest.fail("needs a CMake build directory with libpaimonc.a and a C compiler")
    out = str(tmp_path_factory.mktemp("ft") / "ftindex_driver")
    libs = subprocess.run(["pkg-config", "--libs", "jansson", "libzstd", "liblz4", "zlib"],
                          check=True, capture_output=True, text=True).stdout.split()
    cmd = [cc, "-std=c11", "-D_GNU_SOURCE", "-I" + os.path.join(ROOT, "include"), "-I" + os.path.join(ROOT, "src"),
           os.path.join(ROOT, "tests/interop/ftindex_driver.c"), lib] + libs + ["-lsnappy", "-lroaring"]
    cache = os.path.join(BUILD, "CMakeCache.txt")
    cache_text = open(cache).read() if os.path.exists(cache) else ""
    if "LIBDEFLATE_FOUND:INTERNAL=1" in cache_text:
        cmd += ["-ldeflate"]
    cmd += ["-ldl", "-lpthread", "-o", out]
    if "PAIMONC_SANITIZE:BOOL=ON" in cache_text:
        cmd += ["-fsanitize=address,undefined"]
    subprocess.run(cmd, check=True)
    return out


def run(driver, *args, ok=True):
    env = dict(os.environ, PAIMONC_FTINDEX_LIB=os.environ.get("PAIMONC_FTINDEX_LIB", LIB))
    p = subprocess.run([driver] + [str(a) for a in args], capture_output=True, text=True, env=env)
    if ok:
        assert p.returncode == 0, p.stderr
    return p


def docs(seed, n=400):
    rnd = random.Random(seed)
    out = []
    for i in range(n):
        if rnd.random() < 0.08:
            out.append((i, None))
            continue
        words = [rnd.choice(VOCAB) for _ in range(rnd.randint(1, 25))]
        sep = rnd.choice([" ", "  ", ", ", ". ", "\n", "\t"])
        out.append((i, sep.join(words)))
    return out


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


class FileInput:
    def __init__(self, path):
        self._data = open(path, "rb").read()

    def pread(self, pos, length):
        return self._data[pos:pos + length]


def py_write(path, documents, options=None):
    with FullTextIndexWriter(options or {}) as w:
        for i, text in documents:
            if text is not None:
                w.add_document(i, text)
        with open(path, "wb") as f:
            w.write(f)


def c_write(driver, tmp_path, path, documents, options=None):
    spec = tmp_path / ("docs-%s.tsv" % os.path.basename(path))
    with open(spec, "w", encoding="utf-8") as f:
        for i, text in documents:
            if text is None:
                f.write("%d\t\\N\n" % i)
            else:
                f.write("%d\t%s\n" % (i, text.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t")))
    out = json.loads(run(driver, "write", path, spec, *["%s=%s" % kv for kv in (options or {}).items()]).stdout)
    assert out["size"] == os.path.getsize(path)


def py_search(path, query, limit, filt=None):
    with FullTextIndexReader(FileInput(path)) as r:
        ids, scores = r.search(query, limit=limit, filter_bytes=None if filt is None else filt.serialize())
    return ids, [f32(s) for s in scores]


def c_search(driver, tmp_path, path, query, limit, filt=None):
    q = tmp_path / "query.txt"
    q.write_text(query, encoding="utf-8")
    args = ["search", path, limit, q]
    if filt is not None:
        fb = tmp_path / "filter.bin"
        fb.write_bytes(filt.serialize())
        args.append(fb)
    out = json.loads(run(driver, *args).stdout)
    return out["ids"], [f32(s) for s in out["scores"]]


QUERIES = [
    '{"match":{"query":"paimon lake"}}',
    '{"match":{"terms":"storage stream","operator":"and"}}',
    '{"match":{"query":"cafe zurich"}}',
    '{"match":{"query":"café","column":"text"}}',
    '{"match_phrase":{"query":"lake storage"}}',
    '{"match_phrase":{"query":"table index","slop":2}}',
    '{"boolean":{"must":[{"match":{"query":"vector"}}],"should":[{"match":{"query":"search"}}],'
    '"must_not":[{"match":{"query":"batch"}}]}}',
    '{"match":{"query":"paimno","fuzziness":1}}',
]
PLAIN = ["paimon", "Vector SEARCH", "  naïve data", "nothing-matches-this"]


@pytest.fixture(scope="module")
def indexes(driver, tmp_path_factory):
    d = tmp_path_factory.mktemp("ftidx")
    documents = docs(20261202)
    py, c = str(d / "py.index"), str(d / "c.index")
    py_write(py, documents)
    c_write(driver, d, c, documents)
    return documents, py, c


def _same(a, b):
    assert a[0] == b[0]
    assert a[1] == b[1]


@pytest.mark.parametrize("query", QUERIES)
def test_python_index_read_by_paimonc(driver, indexes, tmp_path, query):
    _, py, _ = indexes
    for limit in (5, 400):
        want = py_search(py, query, limit)
        got = c_search(driver, tmp_path, py, query, limit)
        _same(got, want)
    assert want[0], query  # every query has hits


@pytest.mark.parametrize("text", PLAIN)
def test_plain_string_queries(driver, indexes, tmp_path, text):
    _, py, c = indexes
    want = py_search(py, json.dumps({"match": {"query": text}}, separators=(",", ":")), 50)
    _same(c_search(driver, tmp_path, py, text, 50), want)
    _same(c_search(driver, tmp_path, c, text, 50), want)
    if text != "nothing-matches-this":
        assert want[0]


def test_filters(driver, indexes, tmp_path):
    _, py, c = indexes
    rnd = random.Random(7)
    for query in QUERIES[:3] + ["paimon"]:
        filt = pyroaring.BitMap64(rnd.sample(range(400), 150))
        want = py_search(py, query if query.startswith("{") else '{"match":{"query":"%s"}}' % query, 20, filt)
        assert set(want[0]) <= set(filt)
        _same(c_search(driver, tmp_path, py, query, 20, filt), want)
        _same(c_search(driver, tmp_path, c, query, 20, filt), want)
    # row ids beyond 2^32 in the filter (a second bucket) change nothing
    filt = pyroaring.BitMap64([1, 2, 3, 5 << 32])
    _same(c_search(driver, tmp_path, py, "paimon", 10, filt), py_search(py, '{"match":{"query":"paimon"}}', 10, filt))


@pytest.mark.parametrize("query", QUERIES)
def test_paimonc_index_read_by_python(driver, indexes, tmp_path, query):
    _, py, c = indexes
    for limit in (7, 400):
        want = py_search(py, query, limit)
        _same(py_search(c, query, limit), want)
        _same(c_search(driver, tmp_path, c, query, limit), want)


def test_writer_options_both_ways(driver, tmp_path):
    documents = docs(99, 150)
    opts = {"tokenizer": "whitespace", "with-position": "false"}
    py, c = str(tmp_path / "py.index"), str(tmp_path / "c.index")
    py_write(py, documents, opts)
    c_write(driver, tmp_path, c, documents, opts)
    for q in ['{"match":{"query":"paimon"}}', '{"match":{"query":"Apache café,"}}']:
        want = py_search(py, q, 100)
        _same(py_search(c, q, 100), want)
        _same(c_search(driver, tmp_path, c, q, 100), want)
    # no positions: a phrase query is refused by the engine, through paimonc as EINVAL
    p = run(driver, "search", c, 10, _write(tmp_path, '{"match_phrase":{"query":"lake storage"}}'), ok=False)
    assert p.returncode == 1 and "error EINVAL" in p.stderr and "positions" in p.stderr


def _write(tmp_path, text):
    q = tmp_path / "q.txt"
    q.write_text(text)
    return q


def test_damaged_envelope_refused_by_paimonc(driver, indexes, tmp_path):
    _, py, _ = indexes
    data = bytearray(open(py, "rb").read())
    hlen = struct.unpack(">I", data[12:16])[0]
    header = json.loads(bytes(data[16:16 + hlen]))
    header["files"][1]["offset"] = header["files"][0]["offset"]
    header["files"][1]["length"] = max(1, header["files"][0]["length"])
    hb = json.dumps(header).encode()
    bad = tmp_path / "overlap.index"
    bad.write_bytes(bytes(data[:12]) + struct.pack(">I", len(hb)) + hb + bytes(data[16 + hlen:]))
    p = run(driver, "search", bad, 5, _write(tmp_path, "paimon"), ok=False)
    assert p.returncode == 1 and "error ECORRUPT" in p.stderr and "overlap" in p.stderr and str(bad) in p.stderr
