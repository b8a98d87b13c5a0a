"""paimonc.blob (pypaimon's Blob / BlobRef / BlobDescriptor names) and BLOB writes from
descriptors: values given as serialized BlobDescriptors of local files are copied into
.blob files without loading them whole; reads as descriptors give lazy BlobRefs
(to_data, read(offset, length), a seekable open()), and read_blobs resolves many with
coalesced ranged reads. Everything checked against the bytes, and read back by pypaimon."""
import hashlib
import os
import random

import pytest

pa = pytest.importorskip("pyarrow")
pypaimon = pytest.importorskip("pypaimon")

import paimonc  # noqa: E402
from paimonc import Blob, BlobDescriptor, BlobRef, read_blobs  # noqa: E402

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}


def _table(tmp_path, options=None):
    wh = str(tmp_path / "wh")
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    cat.create_table("db.t", paimonc.Schema(fields=[("id", "INT"), ("b", "BLOB")], options=dict(DE, **(options or {}))),
                     False)
    return wh, cat


def _write(cat, ids, values):
    t = cat.get_table("db.t")
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    w.write_arrow(pa.table({"id": pa.array(ids, pa.int32()), "b": pa.array(values, pa.large_binary())}))
    wb.new_commit().commit(w.prepare_commit())


def _read(t, cols=("id", "b")):
    rb = t.new_read_builder().with_projection(list(cols))
    return sorted(rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist(), key=lambda r: r["id"])


def test_descriptor_roundtrip_and_detection():
    d = BlobDescriptor("/x/y.bin", 5, 10)
    b = d.serialize()
    assert BlobDescriptor.is_blob_descriptor(b) and not BlobDescriptor.is_blob_descriptor(b"hello")
    assert BlobDescriptor.deserialize(b) == d
    assert isinstance(Blob.from_bytes(b), BlobRef) and Blob.from_bytes(b"raw").to_data() == b"raw"
    with pytest.raises(ValueError):
        BlobDescriptor.deserialize(b[:-3])
    with pytest.raises(ValueError):
        BlobDescriptor("/a", -1, 3)


def test_write_from_local_files_and_ranges(tmp_path):
    rnd = random.Random(5)
    src = tmp_path / "src"
    src.mkdir()
    files = []
    for i in range(6):
        p = src / ("f%d.bin" % i)
        p.write_bytes(rnd.randbytes(rnd.randint(0, 200000)))
        files.append(p)
    whole = [Blob.from_local(str(p)).to_descriptor().serialize() for p in files]
    part = BlobDescriptor(str(files[3]), 100, 5000).serialize() if files[3].stat().st_size >= 5100 else None
    big = tmp_path / "big.bin"
    big.write_bytes(os.urandom(24 << 20))   # copied in chunks
    values = whole + [part, None, b"inline bytes", Blob.from_local(str(big)).to_descriptor().serialize()]
    wh, cat = _table(tmp_path, {"blob.target-file-size": "1mb"})
    _write(cat, list(range(len(values))), values)
    want = [p.read_bytes() for p in files] + [
        files[3].read_bytes()[100:5100] if part else None, None, b"inline bytes", big.read_bytes()]
    got = _read(cat.get_table("db.t"))
    assert [r["b"] for r in got] == want
    pt = pypaimon.CatalogFactory.create({"warehouse": wh}).get_table("db.t")
    assert [r["b"] for r in _read(pt)] == want


def test_lazy_reads_and_batch_resolver(tmp_path):
    rnd = random.Random(9)
    values = [None if i % 9 == 4 else rnd.randbytes(rnd.randint(0, 40000)) for i in range(80)]
    wh, cat = _table(tmp_path, {"blob.target-file-size": "200kb"})
    _write(cat, list(range(80)), values)
    t = cat.get_table("db.t").copy({"blob-as-descriptor": "true"})
    rows = _read(t)
    descs = [r["b"] for r in rows]
    assert [d is None for d in descs] == [v is None for v in values]
    for d, v in zip(descs, values):
        if d is None:
            continue
        ref = Blob.from_bytes(d)
        assert isinstance(ref, BlobRef) and len(ref) == len(v)
        assert ref.to_data() == v
        if len(v) > 10:
            assert ref.read(3, 7) == v[3:10]
            f = ref.open()
            f.seek(len(v) - 5)
            assert f.read() == v[-5:]
            f.seek(2)
            assert f.read(4) == v[2:6]
            f.close()
    got = read_blobs(descs, parallelism=4)
    assert got == values
    # single-threaded and without coalescing: the same
    assert read_blobs(descs, parallelism=1, gap=0) == values
    assert hashlib.sha256(b"".join(x for x in got if x)).digest() == hashlib.sha256(
        b"".join(x for x in values if x)).digest()


def test_descriptor_input_errors(tmp_path):
    wh, cat = _table(tmp_path)
    t = cat.get_table("db.t")
    w = t.new_batch_write_builder().new_write()
    missing = BlobDescriptor(str(tmp_path / "nope.bin"), 0, 10).serialize()
    with pytest.raises(paimonc.PaimonError, match="nope.bin"):
        w.write_arrow(pa.table({"id": pa.array([1], pa.int32()), "b": pa.array([missing], pa.large_binary())}))
        w.prepare_commit()
    w = t.new_batch_write_builder().new_write()
    remote = BlobDescriptor("s3://bucket/x", 0, 10).serialize()
    with pytest.raises(paimonc.PaimonError, match="not a local path"):
        w.write_arrow(pa.table({"id": pa.array([1], pa.int32()), "b": pa.array([remote], pa.large_binary())}))
        w.prepare_commit()
