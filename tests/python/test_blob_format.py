"""The .blob file and BlobDescriptor/BlobViewStruct codecs of paimonc
(src/format/blob) against pypaimon 2.1.0 and Java Paimon 1.4.2, byte for byte.

There is no Python binding for this layer: the test compiles the small C
driver tests/unit/format/blob_driver.c against the static library of a build
directory ($PAIMONC_BINARY_DIR, default <repo>/build) and talks to it through
files. Peers:
  * pypaimon's BlobFormatWriter, used directly, and a real BLOB table written
    (and updated: a blob delta file with placeholders) by pypaimon;
  * Java Paimon 1.4.2's BlobFormatWriter / BlobFileMeta / BlobDescriptor
    through a tiny Java program compiled here against the paimon-bundle jar
    of the Maven cache (.cache/m2); those tests fail, not skip, when java or
    the jars are missing.
"""
import glob
import json
import os
import random
import shutil
import subprocess

import pytest

pa = pytest.importorskip("pyarrow")
pypaimon = pytest.importorskip("pypaimon")

from pypaimon.common.delta_varint_compressor import DeltaVarintCompressor  # noqa: E402
from pypaimon.filesystem.local_file_io import LocalFileIO  # noqa: E402
from pypaimon.read.reader.format_blob_reader import FormatBlobReader  # noqa: E402
from pypaimon.schema.data_types import AtomicType, DataField  # noqa: E402
from pypaimon.table.row.blob import Blob, BlobDescriptor, BlobViewStruct  # noqa: E402
from pypaimon.table.row.generic_row import GenericRow  # noqa: E402
from pypaimon.table.row.row_kind import RowKind  # noqa: E402
from pypaimon.write.blob_format_writer import BlobFormatWriter  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("PAIMONC_BINARY_DIR", os.path.join(ROOT, "build"))
FIELDS = [DataField(0, "b", AtomicType("BLOB"))]
PLACEHOLDER = "placeholder"


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    lib = os.path.join(BUILD, "libpaimonc.a")
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not os.path.exists(lib) or not cc or not shutil.which("pkg-config"):
        pytest.fail("needs a CMake build directory with libpaimonc.a and a C compiler")
    out = str(tmp_path_factory.mktemp("blob") / "blob_driver")
    libs = subprocess.run(["pkg-config", "--libs", "jansson", "libzstd", "liblz4", "zlib"],
                          check=True, capture_output=True, text=True).stdout.split()
    cmd = [cc, "-std=c11", "-D_GNU_SOURCE", "-I" + os.path.join(ROOT, "include"), "-I" + os.path.join(ROOT, "src"),
           os.path.join(ROOT, "tests/unit/format/blob_driver.c"), lib] + libs + ["-lsnappy", "-o", out]
    cache = os.path.join(BUILD, "CMakeCache.txt")
    cache_text = open(cache).read() if os.path.exists(cache) else ""
    if "LIBDEFLATE_FOUND:INTERNAL=1" in cache_text:  # core/crc32.c took libdeflate
        cmd += ["-ldeflate"]
    cmd += ["-ldl"]  # format/vortex dlopens its optional shim
    if "PAIMONC_SANITIZE:BOOL=ON" in cache_text:
        cmd += ["-fsanitize=address,undefined"]
    subprocess.run(cmd, check=True)
    return out


def run(driver, *args, ok=True):
    p = subprocess.run([driver] + [str(a) for a in args], capture_output=True, text=True)
    if ok:
        assert p.returncode == 0, p.stderr
    return p


def c_dump(driver, path):
    out = run(driver, "dump", path).stdout
    return [json.loads(line) for line in out.splitlines()]


def c_write(driver, tmp_path, values, out, chunked=False):
    """values: bytes | None | PLACEHOLDER | ("file", path, off, len)."""
    spec = tmp_path / "spec.jsonl"
    with open(spec, "w") as f:
        for v in values:
            if v is None:
                f.write("null\n")
            elif v is PLACEHOLDER:
                f.write('"placeholder"\n')
            elif isinstance(v, tuple):
                f.write(json.dumps({"file": v[1], "offset": v[2], "length": v[3]}) + "\n")
            elif chunked and len(v) > 3:
                cuts = sorted({0, len(v)} | {len(v) * k // 5 for k in range(1, 5)})
                f.write(json.dumps({"chunks": [v[a:b].hex() for a, b in zip(cuts, cuts[1:])]}) + "\n")
            else:
                f.write(json.dumps({"hex": v.hex()}) + "\n")
    return json.loads(run(driver, "write", spec, out).stdout)


def py_write(values, out):
    """pypaimon's BlobFormatWriter over the same values; returns the
    descriptors its consumer saw (offset, length) per value, None for nulls."""
    seen = []
    file_io = LocalFileIO()

    def consumer(_name, desc):
        seen.append(None if desc is None else (desc.offset, desc.length))
        return False

    with open(out, "wb") as f:
        w = BlobFormatWriter(f, blob_consumer=consumer, file_path=str(out))
        for v in values:
            if isinstance(v, tuple):
                w.add_element(GenericRow([Blob.from_file(file_io, v[1], v[2], v[3])], FIELDS, RowKind.INSERT))
            elif v is PLACEHOLDER:
                w.write_value(Blob.PLACE_HOLDER, FIELDS)
                seen.append("placeholder")
            else:
                w.write_value(v, FIELDS)
                if v is None:  # write_value does not call the consumer for nulls
                    seen.append(None)
        w.close()
    return seen


def expected_rows(values, source_bytes=None):
    rows = []
    for v in values:
        if v is None:
            rows.append({"kind": "null"})
        elif v is PLACEHOLDER:
            rows.append({"kind": "placeholder"})
        else:
            if isinstance(v, tuple):
                data = source_bytes[v[2]:] if v[3] == -1 else source_bytes[v[2]:v[2] + v[3]]
            else:
                data = v
            rows.append({"kind": "value", "hex": data.hex()})
    return rows


def value_sets(tmp_path):
    rng = random.Random(12)
    src = rng.randbytes(300_000)
    spath = tmp_path / "source.bin"
    spath.write_bytes(src)
    sets = {
        "example": [b"hello", None, b"", PLACEHOLDER],
        "empty_file": [],
        "only_nulls": [None, None, None],
        "only_empty": [b"", b"", b""],
        "one": [b"\x00"],
        "delta": [PLACEHOLDER, PLACEHOLDER, b"new!"],
        "random": [None if rng.random() < 0.2 else rng.randbytes(rng.randrange(0, 3000))
                   for _ in range(200)],
        "big": [rng.randbytes(9000) * 300, None, b"tail"],
        "file_ranges": [("file", str(spath), 0, 1000), ("file", str(spath), 7, -1), b"x",
                        ("file", str(spath), len(src), -1)],
        "descriptor_like": [BlobDescriptor("/x", 1, 2).serialize()[:8] + b"no"],
    }
    return sets, src


def test_writer_bytes_equal_pypaimon(driver, tmp_path):
    sets, src = value_sets(tmp_path)
    for name, values in sets.items():
        for chunked in (False, True):
            ours, theirs = tmp_path / f"{name}-c.blob", tmp_path / f"{name}-py.blob"
            res = c_write(driver, tmp_path, values, ours, chunked=chunked)
            seen = py_write(values, theirs)
            a, b = ours.read_bytes(), theirs.read_bytes()
            assert a == b, (name, chunked, len(a), len(b))
            assert res["size"] == len(b)
            # the positions we report are the descriptors pypaimon hands out
            want = [s for s in seen if s != "placeholder"]
            got = [None if p is None else tuple(p) for v, p in zip(values, res["pos"]) if v is not PLACEHOLDER]
            assert got == want, name


def test_reader_reads_pypaimon_files(driver, tmp_path):
    sets, src = value_sets(tmp_path)
    for name, values in sets.items():
        path = tmp_path / f"{name}.blob"
        py_write(values, path)
        rows = c_dump(driver, path)
        assert [{k: r[k] for k in r if k in ("kind", "hex")} for r in rows] == expected_rows(values, src), name
        # offsets/lengths: those of pypaimon's own index decoding
        data = path.read_bytes()
        ilen = int.from_bytes(data[-5:-1], "little")
        lengths = DeltaVarintCompressor.decompress(data[len(data) - 5 - ilen:len(data) - 5])
        assert len(lengths) == len(rows)
        off = 0
        for n, r in zip(lengths, rows):
            if n >= 0:
                assert (r["offset"], r["length"]) == (off + 4, n - 16)
                off += n


def test_pypaimon_reads_our_files(driver, tmp_path):
    rng = random.Random(5)
    values = [None if rng.random() < 0.25 else rng.randbytes(rng.randrange(0, 5000))
              for _ in range(100)] + [b"", None]
    path = tmp_path / "ours.blob"
    c_write(driver, tmp_path, values, path, chunked=True)
    r = FormatBlobReader(LocalFileIO(), str(path), ["b"], FIELDS, None, False, batch_size=1000)
    got = []
    while True:
        batch = r.read_arrow_batch()
        if batch is None:
            break
        got.extend(batch.column(0).to_pylist())
    r.close()
    assert got == values


def test_sub_range(driver, tmp_path):
    data = bytes(range(256)) * 40
    path = tmp_path / "r.blob"
    py_write([None, data], path)
    assert run(driver, "range", path, 1, 1000, 77).stdout.strip() == data[1000:1077].hex()
    p = run(driver, "range", path, 1, len(data) - 1, 2, ok=False)
    assert p.returncode == 1 and "past the value's 10240 bytes" in p.stderr
    p = run(driver, "range", path, 0, 0, 1, ok=False)
    assert p.returncode == 1 and "row 0 is null" in p.stderr


def test_corrupted_pypaimon_file_is_refused(driver, tmp_path):
    path = tmp_path / "c.blob"
    py_write([b"hello world", b"second"], path)
    data = bytearray(path.read_bytes())
    data[6] ^= 0xFF  # inside the first payload
    path.write_bytes(bytes(data))
    p = run(driver, "dump", path, ok=False)
    assert p.returncode == 1 and "row 0: CRC mismatch" in p.stderr and str(path) in p.stderr
    path.write_bytes(bytes(data[:-1]) + b"\x02")
    p = run(driver, "dump", path, ok=False)
    assert p.returncode == 1 and "unsupported version 2" in p.stderr


def test_pypaimon_blob_table(driver, tmp_path):
    """A real BLOB table: the .blob files pypaimon writes for an append and an
    update (a delta file with placeholders), read by our reader and compared
    with pypaimon's own reads, descriptors included."""
    wh = str(tmp_path / "wh")
    cat = pypaimon.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    de = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
    cat.create_table("db.t", pypaimon.Schema.from_pyarrow_schema(
        pa.schema([("id", pa.int64()), ("img", pa.large_binary())]), options=de), False)
    t = cat.get_table("db.t")
    imgs = [b"hello", None, b"", bytes(range(256)) * 4000, b"five"]
    wb = t.new_batch_write_builder()
    w, c = wb.new_write(), wb.new_commit()
    w.write_arrow(pa.table({"id": pa.array(range(len(imgs)), pa.int64()), "img": pa.array(imgs, pa.large_binary())}))
    c.commit(w.prepare_commit())
    w.close()
    c.close()
    files = glob.glob(os.path.join(wh, "db.db", "t", "bucket-0", "*.blob"))
    assert len(files) == 1
    base = files[0]
    rows = c_dump(driver, base)
    assert [{k: r[k] for k in r if k in ("kind", "hex")} for r in rows] == expected_rows(imgs)

    # descriptors pypaimon hands out for the same rows point where we say
    rd = t.copy({"blob-as-descriptor": "true"}).new_read_builder()
    got = rd.new_read().to_arrow(rd.new_scan().plan().splits()).sort_by("id").column("img").to_pylist()
    for r, d in zip(rows, got):
        if r["kind"] == "null":
            assert d is None
            continue
        desc = BlobDescriptor.deserialize(d)
        assert desc.uri.endswith(os.path.basename(base))
        assert (desc.offset, desc.length) == (r["offset"], r["length"])
        assert run(driver, "desc-decode", d.hex()).stdout.strip() == json.dumps(
            {"version": 2, "uri": desc.uri, "offset": desc.offset, "length": desc.length, "is": 1},
            separators=(",", ":"))

    # an update of row 2 only: a delta file [-2, -2, value]
    msgs = t.new_batch_write_builder().new_update().with_update_type(["img"]).update_by_arrow_with_row_id(
        pa.table({"_ROW_ID": pa.array([2], pa.int64()), "img": pa.array([b"new!"], pa.large_binary())}))
    c = t.new_batch_write_builder().new_commit()
    c.commit(msgs)
    c.close()
    delta = [f for f in glob.glob(os.path.join(wh, "db.db", "t", "bucket-0", "*.blob")) if f != base]
    assert len(delta) == 1
    assert [{k: r[k] for k in r if k in ("kind", "hex")} for r in c_dump(driver, delta[0])] == \
        expected_rows([PLACEHOLDER, PLACEHOLDER, b"new!"])
    # and our writer makes the same delta file byte for byte
    ours = tmp_path / "delta-c.blob"
    c_write(driver, tmp_path, [PLACEHOLDER, PLACEHOLDER, b"new!"], ours)
    assert ours.read_bytes() == open(delta[0], "rb").read()


def test_descriptor_bytes(driver):
    for uri, off, n in [("/test/path", 100, 200), ("", 0, -1), ("oss://b/ü/日本.blob", 2**40, 2**33),
                        ("file:///w/db.db/t/bucket-0/data-1.blob", 4, 0)]:
        theirs = BlobDescriptor(uri, off, n).serialize()
        assert run(driver, "desc-encode", uri, off, n).stdout.strip() == theirs.hex()
        assert json.loads(run(driver, "desc-decode", theirs.hex()).stdout) == \
            {"version": 2, "uri": uri, "offset": off, "length": n, "is": 1}
        # v1 (no magic): pypaimon reads it; so do we
        v1 = bytes([1]) + theirs[9:]
        d = BlobDescriptor.deserialize(v1)
        assert (d.uri, d.offset, d.length, d.version) == (uri, off, n, 1)
        assert json.loads(run(driver, "desc-decode", v1.hex()).stdout) == \
            {"version": 1, "uri": uri, "offset": off, "length": n, "is": 0}
        # both refuse a version 3
        bad = bytes([3]) + theirs[1:]
        with pytest.raises(ValueError):
            BlobDescriptor.deserialize(bad)
        p = run(driver, "desc-decode", bad.hex(), ok=False)
        assert p.returncode == 1 and "unsupported version 3" in p.stderr


def test_view_struct_bytes(driver):
    for ident, fid, row in [("db.t", 3, 0), ("my_db.tbl$x", -1, 2**62), ("d.ü", 2**31 - 1, -5)]:
        theirs = BlobViewStruct(ident, fid, row).serialize()
        assert run(driver, "view-encode", ident, fid, row).stdout.strip() == theirs.hex()
        assert json.loads(run(driver, "view-decode", theirs.hex()).stdout) == \
            {"identifier": ident, "field_id": fid, "row_id": row, "is": 1}
        with pytest.raises(ValueError):
            BlobViewStruct.deserialize(theirs + b"\0")
        p = run(driver, "view-decode", (theirs + b"\0").hex(), ok=False)
        assert p.returncode == 1 and "trailing bytes" in p.stderr


# ------------------------------------------------------------------ Java 1.4.2

JAVA_SRC = r"""
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import org.apache.paimon.data.Blob;
import org.apache.paimon.data.BlobConsumer;
import org.apache.paimon.data.BlobDescriptor;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.format.blob.BlobFileMeta;
import org.apache.paimon.format.blob.BlobFormatWriter;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.PositionOutputStream;
import org.apache.paimon.fs.SeekableInputStream;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

public class BlobJ {
    static byte[] unhex(String s) {
        byte[] b = new byte[s.length() / 2];
        for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        return b;
    }
    static String hex(byte[] b) {
        StringBuilder sb = new StringBuilder();
        for (byte x : b) sb.append(String.format("%02x", x & 0xff));
        return sb.toString();
    }
    public static void main(String[] a) throws Exception {
        LocalFileIO io = LocalFileIO.create();
        if (a[0].equals("write")) {            // write SPEC OUT: lines "N" or "H <hex>"
            PositionOutputStream out = io.newOutputStream(new Path(a[2]), true);
            List<String> pos = new ArrayList<>();
            BlobConsumer cons = (f, d) -> { pos.add(d == null ? "null" : d.offset() + "," + d.length()); return false; };
            BlobFormatWriter w = new BlobFormatWriter(out, cons, RowType.of(DataTypes.BLOB()));
            w.setFile(new Path(a[2]));
            for (String line : Files.readAllLines(Paths.get(a[1]))) {
                if (line.equals("N")) w.addElement(GenericRow.of((Object) null));
                else w.addElement(GenericRow.of(Blob.fromData(unhex(line.substring(2)))));
            }
            w.close();
            out.close();
            System.out.println(String.join(" ", pos));
        } else if (a[0].equals("read")) {      // read FILE: one line per row, "N" or the hex
            Path p = new Path(a[1]);
            long size = io.getFileSize(p);
            try (SeekableInputStream in = io.newInputStream(p)) {
                BlobFileMeta m = new BlobFileMeta(in, size, null);
                for (int i = 0; i < m.recordNumber(); i++) {
                    if (m.isNull(i)) { System.out.println("N"); continue; }
                    byte[] b = new byte[(int) (m.blobLength(i) - 16)];
                    in.seek(m.blobOffset(i) + 4);
                    int done = 0;
                    while (done < b.length) done += in.read(b, done, b.length - done);
                    System.out.println("H " + hex(b));
                }
            }
        } else if (a[0].equals("desc")) {
            System.out.println(hex(new BlobDescriptor(a[1], Long.parseLong(a[2]), Long.parseLong(a[3])).serialize()));
        } else if (a[0].equals("undesc")) {
            byte[] b = unhex(a[1]);
            BlobDescriptor d = BlobDescriptor.deserialize(b);
            System.out.println(d.uri() + " " + d.offset() + " " + d.length() + " "
                + BlobDescriptor.isBlobDescriptor(b) + " " + hex(d.serialize()));
        }
    }
}
"""


def _jars():
    cands = [os.path.join(ROOT, ".cache", "m2"), "/work/main/.cache/m2"]
    bundle = slf = None
    for base in cands:
        if not os.path.isdir(base):
            continue
        bundle = bundle or next(iter(glob.glob(os.path.join(
            base, "org/apache/paimon/paimon-bundle/1.4.2/paimon-bundle-1.4.2.jar"))), None)
        slf = slf or next(iter(sorted(glob.glob(os.path.join(base, "org/slf4j/slf4j-api/*/slf4j-api-*.jar")))), None)
    return bundle, slf


@pytest.fixture(scope="module")
def java(tmp_path_factory):
    bundle, slf = _jars()
    if not (shutil.which("javac") and shutil.which("java") and bundle and slf):
        pytest.fail("needs javac/java and paimon-bundle-1.4.2 + slf4j-api in .cache/m2 (tests/interop/java/build.sh)")
    d = tmp_path_factory.mktemp("java")
    (d / "BlobJ.java").write_text(JAVA_SRC)
    cp = f"{bundle}:{slf}"
    subprocess.run(["javac", "-nowarn", "-cp", cp, "-d", str(d), str(d / "BlobJ.java")], check=True,
                   capture_output=True)

    def call(*args):
        p = subprocess.run(["java", "-cp", f"{cp}:{d}", "BlobJ"] + [str(a) for a in args],
                           capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        return p.stdout.strip()
    return call


def test_java_writer_bytes_and_reader(driver, java, tmp_path):
    rng = random.Random(9)
    values = [b"hello", None, b""] + [None if rng.random() < 0.2 else
                                      rng.randbytes(rng.randrange(0, 2000))
                                      for _ in range(60)] + [rng.randbytes(100_000)]
    spec = tmp_path / "j.spec"
    spec.write_text("".join("N\n" if v is None else f"H {v.hex()}\n" for v in values))
    jpath, cpath = tmp_path / "java.blob", tmp_path / "c.blob"
    jpos = java("write", spec, jpath).split(" ")
    res = c_write(driver, tmp_path, values, cpath, chunked=True)
    assert cpath.read_bytes() == jpath.read_bytes()
    assert ["null" if p is None else f"{p[0]},{p[1]}" for p in res["pos"]] == jpos
    # Java's BlobFileMeta reads our file
    got = [line.rstrip() for line in java("read", cpath).splitlines()]
    assert got == ["N" if v is None else f"H {v.hex()}".rstrip() for v in values]
    assert [{k: r[k] for k in r if k in ("kind", "hex")} for r in c_dump(driver, jpath)] == expected_rows(values)


def test_java_descriptor_bytes(driver, java):
    for uri, off, n in [("/test/path", 100, 200), ("oss://b/ü.blob", 2**40, -1)]:
        jhex = java("desc", uri, off, n)
        assert run(driver, "desc-encode", uri, off, n).stdout.strip() == jhex
        parts = java("undesc", jhex).rsplit(" ", 4)
        assert parts[:4] == [uri, str(off), str(n), "true"]
    # Java 1.4.2 keeps a v1 descriptor's version but always writes the magic:
    # its re-serialization of v1 is "01 <magic> ...", which no reader
    # (Java's own included) takes as v1. Ours writes v2 (as pypaimon does).
    v1 = "01" + "0a000000" + b"/test/path".hex() + "6400000000000000" + "c800000000000000"
    parts = java("undesc", v1).split(" ")
    assert parts[:4] == ["/test/path", "100", "200", "false"]
    assert parts[4].startswith("01" + "43534544424f4c42")
    assert json.loads(run(driver, "desc-decode", v1).stdout)["version"] == 1
    p = run(driver, "desc-decode", parts[4], ok=False)
    assert p.returncode == 1
