"""BLOB values with pypaimon 2.1.0's names (pypaimon.table.row.blob): ``Blob``,
``BlobData``, ``BlobRef``, ``BlobDescriptor``, and a batch resolver.

Writing: a ``pa.large_binary()`` BLOB column takes bytes, or serialized
``BlobDescriptor``s whose referenced byte range libpaimonc copies into the
``.blob`` file in chunks (never loading the value whole)::

    desc = Blob.from_local("/data/video.mp4").to_descriptor().serialize()

A file-like object (anything with ``readinto`` or ``read``: an open file, a
socket file, a ``zipfile`` member, an HTTP response body) is streamed while
the write runs, one chunk of at most 1 MiB at a time::

    table_write.write_pandas(pd.DataFrame({"id": [1], "img": [Blob.from_stream(resp)]}))
    # or, in Arrow: pa.array([Blob.from_stream(f).serialize()], pa.large_binary())

Reading: with ``table.copy({"blob-as-descriptor": "true"})`` a BLOB column
gives descriptors; ``Blob.from_bytes(value)`` turns one into a lazy
``BlobRef`` (``to_data()``, ``read(offset, length)``, a seekable file-like
``open()`` / ``new_input_stream()``), and ``read_blobs(descriptors,
parallelism=16)`` resolves many at once with coalesced, concurrent ranged
reads (``os.pread``, the GIL released).
"""
import io
import itertools
import os
import struct
import threading
from concurrent.futures import ThreadPoolExecutor

__all__ = ["Blob", "BlobData", "BlobRef", "BlobStream", "BlobDescriptor", "read_blobs"]

_MAGIC = 0x424C4F4244455343  # "BLOBDESC"


def _local_path(uri):
    if uri.startswith("file://"):
        uri = uri[7:]
    elif uri.startswith("file:"):
        uri = uri[5:]
    if not uri.startswith("/"):
        raise ValueError("blob descriptor URI {!r} is not a local path".format(uri))
    return uri


def _pread_full(fd, n, off):
    """n bytes at off (fewer only at the end of the file). One pread normally; Linux moves
    at most 0x7ffff000 bytes per call, so a 2 GiB value takes more, joined here."""
    data = os.pread(fd, n, off)
    if len(data) == n or not data:
        return data
    parts, done = [data], len(data)
    while done < n:
        d = os.pread(fd, n - done, off + done)
        if not d:
            break
        parts.append(d)
        done += len(d)
    return b"".join(parts)


class BlobDescriptor:
    """Where a BLOB's bytes are: ``uri``, ``offset``, ``length`` (-1: to the end);
    serialized as Java's / pypaimon's BlobDescriptor v2."""

    CURRENT_VERSION = 2

    def __init__(self, uri, offset=0, length=-1, version=CURRENT_VERSION):
        if offset < 0 or length < -1:
            raise ValueError("bad blob descriptor range ({}, {})".format(offset, length))
        self.uri, self.offset, self.length, self.version = str(uri), int(offset), int(length), int(version)

    def serialize(self):
        u = self.uri.encode("utf-8")
        return (bytes([2]) + struct.pack("<q", _MAGIC) + struct.pack("<i", len(u)) + u
                + struct.pack("<qq", self.offset, self.length))

    @staticmethod
    def is_blob_descriptor(data):
        data = bytes(data[:9]) if data is not None else b""
        return len(data) >= 9 and data[0] == 2 and struct.unpack_from("<q", data, 1)[0] == _MAGIC

    @staticmethod
    def deserialize(data):
        data = bytes(data)
        if not data:
            raise ValueError("empty blob descriptor")
        ver, pos = data[0], 1
        if ver == 2:
            if len(data) < 9 or struct.unpack_from("<q", data, 1)[0] != _MAGIC:
                raise ValueError("bad blob descriptor magic")
            pos = 9
        elif ver != 1:
            raise ValueError("unsupported blob descriptor version {}".format(ver))
        if len(data) < pos + 4:
            raise ValueError("truncated blob descriptor")
        (n,) = struct.unpack_from("<i", data, pos)
        if n < 0 or len(data) < pos + 4 + n + 16:
            raise ValueError("truncated blob descriptor")
        uri = data[pos + 4:pos + 4 + n].decode("utf-8")
        off, ln = struct.unpack_from("<qq", data, pos + 4 + n)
        return BlobDescriptor(uri, off, ln, ver)

    def __eq__(self, o):
        return isinstance(o, BlobDescriptor) and (self.uri, self.offset, self.length) == (o.uri, o.offset, o.length)

    def __repr__(self):
        return "BlobDescriptor({!r}, offset={}, length={})".format(self.uri, self.offset, self.length)


class Blob:
    """A BLOB value: ``to_data()`` bytes, ``to_descriptor()``, ``new_input_stream()``."""

    def to_data(self):
        raise NotImplementedError

    def to_descriptor(self):
        raise NotImplementedError

    def new_input_stream(self):
        return io.BytesIO(self.to_data())

    open = new_input_stream

    @staticmethod
    def from_data(data):
        return BlobData(data)

    @staticmethod
    def from_local(path):
        return BlobRef(BlobDescriptor(os.path.abspath(path), 0, os.path.getsize(path)))

    @staticmethod
    def from_file(path, offset=0, length=-1, file_io=None):
        return BlobRef(BlobDescriptor(os.path.abspath(path), offset, length))

    @staticmethod
    def from_descriptor(desc):
        return BlobRef(desc if isinstance(desc, BlobDescriptor) else BlobDescriptor.deserialize(desc))

    @staticmethod
    def from_stream(fileobj, length=-1):
        """A value read from a file-like object in chunks while a write runs (paimonc)."""
        return BlobStream(fileobj, length)

    from_input_stream = from_stream

    @staticmethod
    def from_bytes(data, file_io=None):
        """A descriptor (detected by its magic) becomes a lazy BlobRef, other bytes BlobData."""
        if BlobDescriptor.is_blob_descriptor(data):
            return Blob.from_descriptor(data)
        return BlobData(data)


class BlobData(Blob):
    def __init__(self, data):
        self._data = bytes(data)

    def to_data(self):
        return self._data

    def read(self, offset=0, length=-1):
        return self._data[offset:] if length < 0 else self._data[offset:offset + length]

    def to_descriptor(self):
        raise ValueError("an inline blob has no descriptor")

    def __len__(self):
        return len(self._data)


class _RangeFile(io.RawIOBase):
    """A seekable read-only view of bytes [start, start + size) of a file."""

    def __init__(self, path, start, size):
        self._fd = os.open(path, os.O_RDONLY)
        self._start, self._size, self._pos = start, size, 0

    def readable(self):
        return True

    def seekable(self):
        return True

    def seek(self, off, whence=io.SEEK_SET):
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: self._size}[whence]
        self._pos = max(0, base + off)
        return self._pos

    def tell(self):
        return self._pos

    def readinto(self, b):
        n = min(len(b), max(0, self._size - self._pos))
        if n == 0:
            return 0
        # straight into the caller's buffer (a pread would allocate and copy once more)
        with memoryview(b) as mv:
            got = os.preadv(self._fd, [mv.cast("B")[:n]], self._start + self._pos)
        self._pos += got
        return got

    def close(self):
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        super().close()


class BlobRef(Blob):
    """A lazy BLOB: nothing is read until asked for."""

    def __init__(self, descriptor):
        self.descriptor = descriptor

    def _range(self):
        d = self.descriptor
        path = _local_path(d.uri)
        length = d.length if d.length >= 0 else max(0, os.path.getsize(path) - d.offset)
        return path, d.offset, length

    def __len__(self):
        return self._range()[2]

    def to_descriptor(self):
        return self.descriptor

    def to_data(self):
        return self.read()

    def read(self, offset=0, length=-1):
        path, start, size = self._range()
        if offset < 0 or offset > size:
            raise ValueError("offset {} outside the blob ({} bytes)".format(offset, size))
        n = size - offset if length < 0 else min(length, size - offset)
        with open(path, "rb", buffering=0) as f:
            data = _pread_full(f.fileno(), n, start + offset)
        if len(data) != n:
            raise OSError("blob {!r}: {} of {} bytes read".format(self.descriptor.uri, len(data), n))
        return data

    def new_input_stream(self):
        path, start, size = self._range()
        return io.BufferedReader(_RangeFile(path, start, size))

    open = new_input_stream


# Streams waiting to be written: uri -> BlobStream. An entry leaves when its
# stream is read to the end (or closed), so each stream is written once.
_STREAMS = {}
_STREAMS_LOCK = threading.Lock()
_STREAM_IDS = itertools.count(1)
STREAM_SCHEME = "paimonc-stream:"


class BlobStream(Blob):
    """A BLOB input from a file-like object, streamed into the ``.blob`` file
    in chunks by the native writer (never held whole in memory).

    Written wherever a BLOB value goes: as ``serialize()`` bytes (a
    descriptor with a ``paimonc-stream:`` URI) in an Arrow BLOB column, or as
    the object itself in ``write_pandas``. ``length`` (>= 0) makes the write
    check that exactly that many bytes came; -1 reads to the end. A stream is
    written once: its entry is dropped at its end (``close()`` drops it
    unwritten). The file-like object is not closed."""

    def __init__(self, fileobj, length=-1):
        if not (hasattr(fileobj, "readinto") or hasattr(fileobj, "read")):
            raise TypeError("Blob.from_stream expects a file-like object with readinto() or read(), not {}".format(
                type(fileobj).__name__))
        if length is None:
            length = -1
        if length < -1:
            raise ValueError("blob stream length must be >= 0 or -1, not {}".format(length))
        self._f = fileobj
        self._length = int(length)
        self._done = False
        self.uri = "{}{}-{}".format(STREAM_SCHEME, os.getpid(), next(_STREAM_IDS))
        with _STREAMS_LOCK:
            _STREAMS[self.uri] = self

    def to_descriptor(self):
        return BlobDescriptor(self.uri, 0, self._length)

    def serialize(self):
        return self.to_descriptor().serialize()

    def to_data(self):
        """Reads the rest of the stream into bytes (it is then consumed)."""
        self.close()
        data = self._f.read()
        return data if self._length < 0 else data[:self._length]

    def new_input_stream(self):
        self.close()
        return self._f

    open = new_input_stream

    def close(self):
        with _STREAMS_LOCK:
            _STREAMS.pop(self.uri, None)
        self._done = True

    def _readinto(self, mv):
        f = self._f
        readinto = getattr(f, "readinto", None)
        if readinto is not None:
            n = readinto(mv)
            if n is None:
                raise BlockingIOError("blob stream {}: the file-like object has no data ready "
                                      "(non-blocking); give a blocking one".format(self.uri))
        else:
            data = f.read(len(mv))
            if not isinstance(data, (bytes, bytearray, memoryview)):
                raise TypeError("blob stream {}: read() returned {}, not bytes".format(
                    self.uri, type(data).__name__))
            n = len(data)
            if n > len(mv):
                raise ValueError("blob stream {}: read({}) returned {} bytes".format(self.uri, len(mv), n))
            mv[:n] = data
        if n == 0:
            self.close()
        return n

    def __repr__(self):
        return "BlobStream({}, length={})".format(self.uri, self._length)


def _stream_read(uri, mv):
    """The native writer's source of streamed values (TableWrite.set_blob_stream)."""
    with _STREAMS_LOCK:
        s = _STREAMS.get(uri)
    if s is None:
        raise ValueError("blob stream {} is unknown or was already written (a stream is written once; "
                         "make a new Blob.from_stream for each value)".format(uri))
    return s._readinto(mv)


def _to_blob_cell(v):
    """A write_pandas cell of a BLOB column: bytes stay, Blob objects and
    file-like objects become the bytes or descriptor the writer takes."""
    if v is None or isinstance(v, (bytes, bytearray, memoryview)):
        return v
    if isinstance(v, BlobData):
        return v.to_data()
    if isinstance(v, BlobStream):
        return v.serialize()
    if isinstance(v, BlobRef):
        return v.descriptor.serialize()
    if isinstance(v, BlobDescriptor):
        return v.serialize()
    if hasattr(v, "readinto") or hasattr(v, "read"):
        return BlobStream(v).serialize()
    return v


def read_blobs(descriptors, parallelism=16, gap=64 << 10, max_read=8 << 20):
    """Resolves many descriptors (BlobDescriptor, serialized bytes or None) to bytes, in order:
    small ranges (each under ``gap`` bytes) of one file closer than ``gap`` bytes are read
    with one ``pread`` (up to ``max_read`` bytes) and sliced; bigger ones get a ``pread``
    of their own, whose result is returned as is (coalescing them would only add a copy:
    bench/blob, issue 12). The reads run on ``parallelism`` threads."""
    descs = [None if d is None else (d if isinstance(d, BlobDescriptor) else BlobDescriptor.deserialize(d))
             for d in descriptors]
    out = [None] * len(descs)
    by_file = {}
    for i, d in enumerate(descs):
        if d is None:
            continue
        path = _local_path(d.uri)
        length = d.length if d.length >= 0 else max(0, os.path.getsize(path) - d.offset)
        by_file.setdefault(path, []).append((d.offset, length, i))
    jobs = []
    for path, items in by_file.items():
        items.sort()
        cur = None
        for off, ln, i in items:
            if cur and ln < gap and cur[3][-1][1] < gap and off - cur[2] <= gap \
                    and off + ln - cur[1] <= max_read:
                cur[2] = max(cur[2], off + ln)
                cur[3].append((off, ln, i))
            else:
                cur = [path, off, off + ln, [(off, ln, i)]]
                jobs.append(cur)

    def run(job):
        path, start, end, parts = job
        fd = os.open(path, os.O_RDONLY)
        try:
            buf = _pread_full(fd, end - start, start)
        finally:
            os.close(fd)
        if len(buf) != end - start:
            raise OSError("{}: {} of {} bytes read at {}".format(path, len(buf), end - start, start))
        if len(parts) == 1 and parts[0][1] == len(buf):
            out[parts[0][2]] = buf
            return
        mv = memoryview(buf)
        for off, ln, i in parts:
            out[i] = bytes(mv[off - start:off - start + ln])

    if len(jobs) <= 1 or parallelism <= 1:
        for j in jobs:
            run(j)
    else:
        with ThreadPoolExecutor(max_workers=min(parallelism, len(jobs))) as ex:
            list(ex.map(run, jobs))
    return out
