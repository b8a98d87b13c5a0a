"""BLOB values streamed from file-like objects (paimonc.Blob.from_stream / BlobStream,
the C API's paimon_table_write_set_blob_stream): the native writer pulls each value in
chunks of at most 1 MiB while it writes, so a value never sits whole in memory. Checked
against the bytes (sha256), read back by paimonc and by pypaimon 2.1.0, with rolled .blob
files, nulls and empty streams mixed with bytes and descriptor values, a declared length
that does not match, a stream that raises, a stream written twice and a non-blocking
source."""
import gzip
import hashlib
import io
import random
import zipfile

import pytest

pa = pytest.importorskip("pyarrow")
pd = pytest.importorskip("pandas")
pypaimon = pytest.importorskip("pypaimon")

import paimonc  # noqa: E402
from paimonc import Blob, BlobStream  # noqa: E402

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}


class Trickle(io.RawIOBase):
    """A file-like object giving at most `step` bytes per call (like a socket)."""

    def __init__(self, data, step, fail_at=None):
        self._d = memoryview(data)
        self._pos = 0
        self._step = step
        self._fail_at = fail_at
        self.calls = 0
        self.max_request = 0

    def readable(self):
        return True

    def readinto(self, b):
        self.calls += 1
        self.max_request = max(self.max_request, len(b))
        if self._fail_at is not None and self._pos >= self._fail_at:
            raise ConnectionResetError("peer went away at byte %d" % self._pos)
        n = min(len(b), self._step, len(self._d) - self._pos)
        b[:n] = self._d[self._pos:self._pos + n]
        self._pos += n
        return n


class ReadOnly:
    """Only read(n), no readinto (e.g. some HTTP client bodies)."""

    def __init__(self, data):
        self._f = io.BytesIO(data)

    def read(self, n=-1):
        return self._f.read(n)


def _table(tmp_path, options=None):
    wh = str(tmp_path / "wh")
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    cat.create_table("db.t", paimonc.Schema(
        fields=[("id", "INT"), ("name", "STRING"), ("b", "BLOB")], options=dict(DE, **(options or {}))), False)
    return wh, cat


def _read_sha(t):
    rb = t.new_read_builder().with_projection(["id", "b"])
    rows = rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist()
    return {r["id"]: (None if r["b"] is None else hashlib.sha256(r["b"]).hexdigest()) for r in rows}


def _pp_read_sha(wh):
    from pypaimon import CatalogFactory
    t = CatalogFactory.create({"warehouse": wh}).get_table("db.t")
    rb = t.new_read_builder().with_projection(["id", "b"])
    rows = rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist()
    return {r["id"]: (None if r["b"] is None else hashlib.sha256(r["b"]).hexdigest()) for r in rows}


def _sha(b):
    return None if b is None else hashlib.sha256(b).hexdigest()


def _commit(t, fill):
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    fill(w)
    wb.new_commit().commit(w.prepare_commit())


def test_streams_in_arrow_and_pandas_read_by_both_peers(tmp_path):
    rnd = random.Random(20261202)
    wh, cat = _table(tmp_path, {"blob.target-file-size": "3mb"})
    t = cat.get_table("db.t")
    want = {}
    vals = []
    for i in range(40):
        kind = rnd.choice(["stream", "stream", "trickle", "readonly", "bytes", "null", "empty", "gzip"])
        n = rnd.choice([0, 1, 1000, 70_000, (1 << 20) - 1, 1 << 20, (1 << 20) + 1, 2_500_000])
        data = rnd.randbytes(n)
        if kind == "stream":
            v = Blob.from_stream(io.BytesIO(data), length=rnd.choice([-1, n])).serialize()
        elif kind == "trickle":
            v = BlobStream(Trickle(data, rnd.choice([1, 4096, 300_000]))).serialize()
        elif kind == "readonly":
            v = Blob.from_stream(ReadOnly(data)).serialize()
        elif kind == "gzip":  # a decompressing stream: the bytes exist nowhere whole
            v = Blob.from_stream(gzip.GzipFile(fileobj=io.BytesIO(gzip.compress(data, 1)))).serialize()
        elif kind == "bytes":
            v = data
        elif kind == "empty":
            data = b""
            v = Blob.from_stream(io.BytesIO(b"")).serialize()
        else:
            data = v = None
        want[i] = _sha(data)
        vals.append(v)
    _commit(t, lambda w: w.write_arrow(pa.table({
        "id": pa.array(range(40), pa.int32()), "name": pa.array(["r%d" % i for i in range(40)]),
        "b": pa.array(vals, pa.large_binary())})))
    # pandas: Blob objects and bare file-like objects as cells
    pdata = {40 + i: rnd.randbytes(rnd.choice([0, 5, 1 << 20, 1_300_000])) for i in range(6)}
    cells = [Blob.from_stream(io.BytesIO(pdata[40])), io.BytesIO(pdata[41]), Blob.from_data(pdata[42]),
             pdata[43], BlobStream(Trickle(pdata[44], 777)), None]
    pdata[45] = None
    _commit(t, lambda w: w.write_pandas(pd.DataFrame({
        "id": pd.array(list(pdata), dtype="int32"), "name": ["p"] * 6, "b": cells})))
    want.update({k: _sha(v) for k, v in pdata.items()})
    assert _read_sha(cat.get_table("db.t")) == want
    assert _pp_read_sha(wh) == want
    import os
    blobs = [f for d, _, fs in os.walk(wh) for f in fs if f.endswith(".blob")]
    assert len(blobs) > 3, blobs  # rolled at 3mb


def test_chunks_are_bounded(tmp_path):
    _, cat = _table(tmp_path)
    t = cat.get_table("db.t")
    data = random.Random(3).randbytes(5 * (1 << 20) + 17)
    src = Trickle(data, 1 << 30)
    _commit(t, lambda w: w.write_arrow(pa.table({
        "id": pa.array([1], pa.int32()), "name": ["x"], "b": pa.array([BlobStream(src).serialize()],
                                                                       pa.large_binary())})))
    assert src.max_request <= 1 << 20 and src.calls >= 6
    assert _read_sha(cat.get_table("db.t")) == {1: _sha(data)}


def test_zip_member_stream(tmp_path):
    _, cat = _table(tmp_path)
    t = cat.get_table("db.t")
    buf = io.BytesIO()
    members = {"a.bin": random.Random(1).randbytes(300_000), "b.txt": b"hello" * 1000}
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for k, v in members.items():
            z.writestr(k, v)
    z = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    _commit(t, lambda w: w.write_pandas(pd.DataFrame({
        "id": pd.array([0, 1], dtype="int32"), "name": list(members),
        "b": [z.open(n) for n in members]})))
    assert _read_sha(cat.get_table("db.t")) == {i: _sha(v) for i, v in enumerate(members.values())}


def _write_one(cat, value):
    t = cat.get_table("db.t")
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    try:
        w.write_arrow(pa.table({"id": pa.array([7], pa.int32()), "name": ["e"],
                                "b": pa.array([value], pa.large_binary())}))
        wb.new_commit().commit(w.prepare_commit())
    finally:
        w.close()


def test_errors_name_the_stream_and_commit_nothing(tmp_path):
    wh, cat = _table(tmp_path)
    data = b"x" * 100_000
    # declared length longer than the stream
    s = Blob.from_stream(io.BytesIO(data), length=len(data) + 1)
    with pytest.raises(paimonc.PaimonError) as e:
        _write_one(cat, s.serialize())
    assert "ended after 100000 of 100001 bytes" in str(e.value) and s.uri in str(e.value)
    # the source raises: its exception is the cause
    s = BlobStream(Trickle(data, 4096, fail_at=50_000))
    with pytest.raises(paimonc.PaimonError) as e:
        _write_one(cat, s.serialize())
    assert "column 'b' input row 0" in str(e.value) and s.uri in str(e.value)
    assert isinstance(e.value.__cause__, ConnectionResetError)
    # a stream is written once
    s = Blob.from_stream(io.BytesIO(b"abc"))
    _write_one(cat, s.serialize())
    with pytest.raises(paimonc.PaimonError) as e:
        _write_one(cat, s.serialize())
    assert "already written" in str(e.value.__cause__)
    # an unknown stream URI, and a non-blocking source
    with pytest.raises(paimonc.PaimonError):
        _write_one(cat, paimonc.BlobDescriptor("paimonc-stream:nope", 0, -1).serialize())

    class NonBlocking(io.RawIOBase):
        def readable(self):
            return True

        def readinto(self, b):
            return None
    with pytest.raises(paimonc.PaimonError) as e:
        _write_one(cat, BlobStream(NonBlocking()).serialize())
    assert isinstance(e.value.__cause__, BlockingIOError)
    # a stream with an offset is refused
    with pytest.raises(paimonc.PaimonError) as e:
        _write_one(cat, paimonc.BlobDescriptor(BlobStream(io.BytesIO(b"q")).uri, 3, -1).serialize())
    assert "offset 3" in str(e.value)
    with pytest.raises(TypeError):
        Blob.from_stream(42)
    # only the one good write is in the table
    assert _read_sha(cat.get_table("db.t")) == {7: _sha(b"abc")}


def test_stream_blob_object_api():
    s = Blob.from_stream(io.BytesIO(b"0123456789"), length=4)
    d = s.to_descriptor()
    assert d.uri.startswith("paimonc-stream:") and d.offset == 0 and d.length == 4
    assert paimonc.BlobDescriptor.deserialize(s.serialize()) == d
    assert s.to_data() == b"0123"
    assert "BlobStream(paimonc-stream:" in repr(s)
