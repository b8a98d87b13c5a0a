"""Interop of our vector indexes (src/index/vindex*.c) with paimon-vindex 0.5.0.

Files paimon_vindex builds (its Python API over libpaimon_vindex_ffi.so) are
searched by our reader (tests/interop/vindex_driver.c, built against the
CMake build's libpaimonc.a), and files our writer builds are opened and
searched by paimon_vindex's reader; the top-k ids must agree exactly for
IVF-FLAT with every list probed, and closely for IVF-SQ / IVF-PQ (the two
implementations round scores differently, so near-ties may swap).
"""
import json
import os
import shutil
import subprocess

import numpy as np
import pytest

pv = pytest.importorskip("paimon_vindex")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("PAIMONC_BINARY_DIR", os.path.join(ROOT, "build"))
LIB = os.path.join(os.path.dirname(pv.__file__), "libpaimon_vindex_ffi.so")
METRICS = ["l2", "inner_product", "cosine"]


def build_driver(out):
    lib = os.path.join(BUILD, "libpaimonc.a")
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not os.path.exists(lib) or not cc or not shutil.which("pkg-config"):
        pytest.fail("needs a CMake build directory with libpaimonc.a and a C compiler")
    libs = subprocess.run(["pkg-config", "--libs", "jansson", "libzstd", "liblz4", "zlib"],
                          check=True, capture_output=True, text=True).stdout.split()
    cmd = [cc, "-std=c11", "-O2", "-D_GNU_SOURCE", "-I" + os.path.join(ROOT, "include"),
           "-I" + os.path.join(ROOT, "src"), os.path.join(ROOT, "tests/interop/vindex_driver.c"), lib]
    cmd += libs + ["-lsnappy", "-lroaring"]
    cache = os.path.join(BUILD, "CMakeCache.txt")
    cache_text = open(cache).read() if os.path.exists(cache) else ""
    if "LIBDEFLATE_FOUND:INTERNAL=1" in cache_text:
        cmd += ["-ldeflate"]
    cmd += ["-ldl", "-lm", "-lpthread"]
    if "PAIMONC_SANITIZE:BOOL=ON" in cache_text:
        cmd += ["-fsanitize=address,undefined"]
    cmd += ["-o", out]
    subprocess.run(cmd, check=True)
    return out


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    return build_driver(str(tmp_path_factory.mktemp("vindex") / "vindex_driver"))


def run(driver, *args, ok=True):
    p = subprocess.run([driver, "lib=" + LIB] + [str(a) for a in args], capture_output=True, text=True)
    if ok:
        assert p.returncode == 0, p.stderr
        return json.loads(p.stdout)
    return p


def clustered(n, d, centres, seed):
    rng = np.random.default_rng(seed)
    c = rng.uniform(-10, 10, size=(centres, d)).astype(np.float32)
    lab = rng.integers(0, centres, size=n)
    return (c[lab] + rng.standard_normal((n, d)).astype(np.float32)).astype(np.float32)


class _Input:
    def __init__(self, data):
        self.data = data

    def pread_many(self, ranges):
        return [self.data[o:o + n] for o, n in ranges]


class _Output:
    def __init__(self):
        self.parts = []

    def write(self, b):
        self.parts.append(bytes(b))
        return len(b)

    def flush(self):
        pass


def vindex_build(kind, metric, x, ids, **opts):
    """Builds with paimon_vindex's Python API; returns the file bytes."""
    options = {"index.type": kind.replace("-", "_"), "dimension": str(x.shape[1]), "metric": metric}
    options.update({k: str(v) for k, v in opts.items()})
    training = pv.VectorIndexTrainer.train(options, x)
    w = pv.VectorIndexWriter(training)
    for i in range(0, len(x), 10000):
        w.add_vectors(ids[i:i + 10000], x[i:i + 10000])
    out = _Output()
    w.write(out)
    w.close()
    return b"".join(out.parts)


def vindex_search(data, queries, k, nprobe, filter_bytes=None):
    r = pv.VectorIndexReader(_Input(data))
    params = pv.SearchParams.ivf(k, nprobe) if nprobe else pv.SearchParams.automatic(k)
    ids, dists = r.search_batch(queries, params, filter_bytes)
    meta = r.metadata()
    r.close()
    return ids, dists, meta


def c_search(driver, tmp_path, index_path, queries, k, nprobe, filt=None, mode="batch", threads=2):
    qp, ip, dp = tmp_path / "q.f32", tmp_path / "ids.i64", tmp_path / "d.f32"
    queries.astype(np.float32).tofile(qp)
    args = ["search", index_path, qp, k, nprobe, threads, mode, ip, dp]
    if filt is not None:
        fp = tmp_path / "filter.i64"
        np.asarray(filt, dtype=np.int64).tofile(fp)
        args.append(fp)
    run(driver, *args)
    return (np.fromfile(ip, dtype=np.int64).reshape(len(queries), k),
            np.fromfile(dp, dtype=np.float32).reshape(len(queries), k))


def c_build(driver, tmp_path, kind, metric, x, ids, out, **opts):
    vp, ip = tmp_path / "v.f32", tmp_path / "i.i64"
    x.astype(np.float32).tofile(vp)
    np.asarray(ids, dtype=np.int64).tofile(ip)
    return run(driver, "build", kind, metric, x.shape[1], vp, ip, out, *[f"{k}={v}" for k, v in opts.items()])


def overlap(a, b):
    """mean fraction of b's valid ids found in the same row of a"""
    tot = hit = 0
    for ra, rb in zip(a, b):
        sa = set(int(v) for v in ra if v >= 0)
        for v in rb:
            if v >= 0:
                tot += 1
                hit += int(v) in sa
    return hit / max(tot, 1)


def treemap_bytes(values):
    """RoaringTreemap (portable 64-bit Roaring) bytes of small ids: one
    bucket (high 0), array containers, no runs."""
    values = sorted(set(int(v) for v in values))
    assert values and values[-1] < 2 ** 32
    conts = {}
    for v in values:
        conts.setdefault(v >> 16, []).append(v & 0xFFFF)
    keys = sorted(conts)
    body = bytearray()
    body += (12346).to_bytes(4, "little") + len(keys).to_bytes(4, "little")
    for key in keys:
        body += key.to_bytes(2, "little") + (len(conts[key]) - 1).to_bytes(2, "little")
    off = len(body) + 4 * len(keys)
    payload = bytearray()
    for key in keys:
        c = conts[key]
        assert len(c) <= 4096
        body += (off + len(payload)).to_bytes(4, "little")
        payload += b"".join(v.to_bytes(2, "little") for v in c)
    return (1).to_bytes(8, "little") + (0).to_bytes(4, "little") + bytes(body) + bytes(payload)


N, D, NQ, K = 6000, 32, 40, 10


@pytest.fixture(scope="module")
def data():
    x = clustered(N + NQ, D, 30, 42)
    ids = (np.arange(N, dtype=np.int64) * 7 + 3)
    return x[:N], ids, x[N:]


@pytest.mark.parametrize("metric", METRICS)
def test_flat_vindex_files_same_topk(driver, tmp_path, data, metric):
    x, ids, q = data
    blob = vindex_build("ivf-flat", metric, x, ids)
    path = tmp_path / "flat.index"
    path.write_bytes(blob)
    info = run(driver, "info", path)
    assert info["type"] == "ivf-flat" and info["count"] == N and info["dim"] == D and info["metric"] == metric
    nl = info["nlist"]
    want, wd, meta = vindex_search(blob, q, K, nl)
    assert meta.nlist == nl
    got, gd = c_search(driver, tmp_path, path, q, K, nl)
    assert np.array_equal(got, want)
    assert np.allclose(gd, wd, rtol=1e-4, atol=1e-4)
    # automatic nprobe: vindex's rule, so the same lists and the same ids
    want, wd, _ = vindex_search(blob, q, K, 0)
    got, gd = c_search(driver, tmp_path, path, q, K, 0, mode="single")
    assert np.array_equal(got, want)


@pytest.mark.parametrize("metric", METRICS)
def test_flat_our_files_vindex_searches(driver, tmp_path, data, metric):
    x, ids, q = data
    path = tmp_path / "ours.index"
    c_build(driver, tmp_path, "ivf-flat", metric, x, ids, path)
    blob = path.read_bytes()
    info = run(driver, "info", path)
    for nprobe in (info["nlist"], 4, 0):
        want, wd, meta = vindex_search(blob, q, K, nprobe)
        assert meta.index_type == "ivf_flat" and meta.total_vectors == N and meta.nlist == info["nlist"]
        got, gd = c_search(driver, tmp_path, path, q, K, nprobe)
        assert np.array_equal(got, want), nprobe
        assert np.allclose(gd, wd, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("kind,floor", [("ivf-sq", 0.97), ("ivf-pq", 0.90)])
@pytest.mark.parametrize("metric", METRICS)
def test_quantized_vindex_files(driver, tmp_path, data, kind, floor, metric):
    x, ids, q = data
    blob = vindex_build(kind, metric, x, ids)
    path = tmp_path / "q.index"
    path.write_bytes(blob)
    info = run(driver, "info", path)
    assert info["type"] == kind and info["count"] == N
    want, wd, _ = vindex_search(blob, q, K, info["nlist"])
    got, gd = c_search(driver, tmp_path, path, q, K, info["nlist"])
    assert overlap(got, want) >= floor
    # the same scores for the same ids
    for r in range(len(q)):
        common = {int(v): i for i, v in enumerate(want[r])}
        for j, v in enumerate(got[r]):
            if int(v) in common:
                assert abs(gd[r, j] - wd[r, common[int(v)]]) <= 1e-3 * (1 + abs(wd[r, common[int(v)]]))


@pytest.mark.parametrize("kind,floor", [("ivf-sq", 0.97), ("ivf-pq", 0.90)])
@pytest.mark.parametrize("metric", METRICS)
def test_quantized_our_files(driver, tmp_path, data, kind, floor, metric):
    x, ids, q = data
    path = tmp_path / "ours.index"
    c_build(driver, tmp_path, kind, metric, x, ids, path)
    blob = path.read_bytes()
    info = run(driver, "info", path)
    want, wd, meta = vindex_search(blob, q, K, info["nlist"])
    assert meta.index_type == kind.replace("-", "_") and meta.total_vectors == N
    got, gd = c_search(driver, tmp_path, path, q, K, info["nlist"])
    assert overlap(got, want) >= floor


def test_filter_matches_vindex(driver, tmp_path, data):
    x, ids, q = data
    blob = vindex_build("ivf-flat", "l2", x, ids)
    path = tmp_path / "flat.index"
    path.write_bytes(blob)
    allow = [int(v) for v in ids if v % 3 == 0]
    nl = run(driver, "info", path)["nlist"]
    want, _, _ = vindex_search(blob, q, K, nl, treemap_bytes(allow))
    assert all(int(v) % 3 == 0 for v in want.ravel() if v >= 0)
    qp = tmp_path / "q.f32"
    q.tofile(qp)
    fp = tmp_path / "f.i64"
    np.asarray(allow, dtype=np.int64).tofile(fp)
    p = subprocess.run([str(a) for a in (driver, "search", path, qp, K, nl, 1, "batch", tmp_path / "a",
                                         tmp_path / "b", fp)], capture_output=True, text=True)
    if p.returncode != 0 and "rb64" in p.stderr:
        pytest.skip("rb64 is not linked in yet")
    got, _ = c_search(driver, tmp_path, path, q, K, nl, filt=allow)
    assert np.array_equal(got, want)
    # a sparse filter with the automatic width: both widen nprobe until k hits
    sparse = [int(v) for v in ids[::397]]
    want, _, _ = vindex_search(blob, q, K, 0, treemap_bytes(sparse))
    got, _ = c_search(driver, tmp_path, path, q, K, 0, filt=sparse)
    assert (want >= 0).all()
    assert np.array_equal(got, want)
    # our filtered search on our own file agrees with vindex's on it
    ours = tmp_path / "ours.index"
    c_build(driver, tmp_path, "ivf-sq", "cosine", x, ids, ours)
    want, _, _ = vindex_search(ours.read_bytes(), q, K, 0, treemap_bytes(allow))
    got, _ = c_search(driver, tmp_path, ours, q, K, 0, filt=allow)
    assert overlap(got, want) >= 0.97


def test_library_types_through_ffi(driver, tmp_path, data):
    x, ids, q = data
    for kind in ("ivf-rq", "diskann"):
        blob = vindex_build(kind, "l2", x, ids)
        path = tmp_path / (kind + ".index")
        path.write_bytes(blob)
        info = run(driver, "info", path)
        assert info["type"] == kind and info["count"] == N
        want, _, _ = vindex_search(blob, q, K, 0)
        got, _ = c_search(driver, tmp_path, path, q, K, 0)
        assert np.array_equal(got, want)
    # without the library: refused by name with the install hint
    path = tmp_path / "diskann.index"
    p = subprocess.run([driver, "lib=/nonexistent/libpaimon_vindex_ffi.so", "info", str(path)], capture_output=True,
                       text=True, env={k: v for k, v in os.environ.items() if k != "PAIMONC_VINDEX_LIB"})
    assert p.returncode != 0
    assert "diskann" in p.stderr and "pip install paimon-vindex==0.5.0" in p.stderr
