"""Deletion-vector index files: paimon-c against pypaimon 2.1.0 (and Java, if present).

pypaimon creates a data-evolution table with deletion vectors, writes two commits and
deletes rows with ``new_update().delete_by_row_id``. The C side is the unit-test binary
test_deletion_vector, case t_interop (see its comment): it loads the snapshot's DVs
through the index manifest and prints them, and applies further deletes, writing a new
index file into <table>/index/ and printing the index-manifest entries it would commit.

Checks:
  * C reads pypaimon's index file: same keys, ranges and positions as pypaimon's own
    reader (DeletionVector.read) and as the rows pypaimon no longer returns;
  * pypaimon reads C's index file (its deletionvectors module) with the ranges C made,
    positions = old ∪ new; committing C's entries through pypaimon's own commit gives a
    table whose reads drop exactly those rows, and a later pypaimon delete merges them;
  * a 64-bit index file C writes is rejected by pypaimon 2.1.0 (it has no 64-bit
    reader: documented limitation) and read by Java Paimon 1.4.2's DeletionVector.read
    when javac and the interop harness jars are available.
The binary is looked up in $PAIMONC_BINARY_DIR, else ../build relative to tests/.
"""
import os
import shutil
import subprocess

import pytest

pa = pytest.importorskip("pyarrow")
pypaimon = pytest.importorskip("pypaimon")

from pypaimon import CatalogFactory, Schema  # noqa: E402
from pypaimon.deletionvectors.deletion_vector import DeletionVector  # noqa: E402
from pypaimon.index.deletion_vector_meta import DeletionVectorMeta  # noqa: E402
from pypaimon.index.index_file_meta import IndexFileMeta  # noqa: E402
from pypaimon.manifest.index_manifest_entry import IndexManifestEntry  # noqa: E402
from pypaimon.manifest.index_manifest_file import IndexManifestFile  # noqa: E402
from pypaimon.table.row.generic_row import GenericRow  # noqa: E402
from pypaimon.table.source.deletion_file import DeletionFile  # noqa: E402
from pypaimon.write.commit_message import CommitMessage  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string())])
OPTIONS = {"row-tracking.enabled": "true", "data-evolution.enabled": "true",
           "deletion-vectors.enabled": "true"}


def _binary():
    for d in (os.environ.get("PAIMONC_BINARY_DIR", ""), os.path.join(ROOT, "build")):
        p = os.path.join(d, "test_deletion_vector")
        if d and os.path.exists(p):
            return p
    pytest.skip("test_deletion_vector binary not built (set PAIMONC_BINARY_DIR)")


def _c(table_dir, index_manifest, deletes=None, fmt=None):
    env = dict(os.environ, PAIMONC_DV_TABLE=table_dir, PAIMONC_DV_IM=index_manifest or "")
    if deletes is not None:
        env["PAIMONC_DV_DELETES"] = ";".join(
            f"{f}:{','.join(str(p) for p in ps)}" for f, ps in deletes.items())
    if fmt:
        env["PAIMONC_DV_FMT"] = fmt
    res = subprocess.run([_binary(), "t_interop"], env=env, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
    dvs, adds, deletes_out, ranges = {}, [], [], {}
    last = None
    for line in res.stdout.splitlines():
        w = line.split()
        if not w:
            continue
        if w[0] == "DV":
            last = w[2]
            dvs[last] = {"index": w[3], "offset": int(w[4]), "length": int(w[5]), "card": int(w[6])}
        elif w[0] == "POS":
            dvs[last]["pos"] = [int(x) for x in w[1:]]
        elif w[0] in ("ADD", "DELETE"):
            (adds if w[0] == "ADD" else deletes_out).append(
                {"name": w[1], "size": int(w[2]), "rows": int(w[3])})
        elif w[0] == "RANGE":
            ranges.setdefault(w[1], {})[w[2]] = (int(w[3]), int(w[4]), int(w[5]))
    return dvs, adds, deletes_out, ranges


@pytest.fixture()
def table(tmp_path):
    cat = CatalogFactory.create({"warehouse": str(tmp_path / "wh")})
    cat.create_database("db", True)
    cat.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA, options=OPTIONS), False)
    t = cat.get_table("db.t")
    for k in range(2):
        wb = t.new_batch_write_builder()
        w, c = wb.new_write(), wb.new_commit()
        w.write_arrow(pa.table({"id": list(range(k * 10, k * 10 + 10)),
                                "v": [f"s{i}" for i in range(10)]}, schema=SCHEMA))
        c.commit(w.prepare_commit())
        w.close()
        c.close()
    return cat, str(tmp_path / "wh" / "db.db" / "t")


def _get(cat):
    return cat.get_table("db.t")


def _delete(cat, row_ids):
    t = _get(cat)
    wb = t.new_batch_write_builder()
    msgs = wb.new_update().delete_by_row_id(row_ids)
    c = wb.new_commit()
    c.commit(msgs)
    c.close()


def _ids(cat):
    t = _get(cat)
    rb = t.new_read_builder()
    return sorted(rb.new_read().to_arrow(rb.new_scan().plan().splits()).column("id").to_pylist())


def _snapshot(cat):
    return _get(cat).snapshot_manager().get_latest_snapshot()


def _py_dvs(cat, table_dir):
    """pypaimon's own view: index manifest entries and DeletionVector.read of each range."""
    t = _get(cat)
    snap = _snapshot(cat)
    entries = [e for e in IndexManifestFile(t).read(snap.index_manifest) if e.kind == 0]
    out = {}
    for e in entries:
        for name, m in e.index_file.dv_ranges.items():
            path = os.path.join(table_dir, "index", e.index_file.file_name)
            dv = DeletionVector.read(t.file_io, DeletionFile(path, m.offset, m.length, m.cardinality))
            out[name] = {"index": e.index_file.file_name, "offset": m.offset, "length": m.length,
                         "card": m.cardinality, "pos": sorted(dv.bit_map())}
    return entries, out


def _first_row_ids(cat):
    t = _get(cat)
    files = {}
    for split in t.new_read_builder().new_scan().plan().splits():
        for f in split.files:
            files[f.file_name] = f.first_row_id
    return files


def test_c_reads_pypaimon_dvs(table):
    cat, tdir = table
    _delete(cat, [1, 3, 12])
    _delete(cat, [4])
    assert _ids(cat) == [i for i in range(20) if i not in (1, 3, 4, 12)]
    entries, want = _py_dvs(cat, tdir)
    assert len(entries) == 1 and entries[0].index_file.row_count == 2
    got, _, _, _ = _c(tdir, _snapshot(cat).index_manifest)
    assert got == want
    # positions are relative to each anchor's first_row_id
    first = _first_row_ids(cat)
    deleted = sorted(first[name] + p for name, dv in got.items() for p in dv["pos"])
    assert deleted == [1, 3, 4, 12]
    # the index file is what the spec says: version byte, ranges at the size field
    e = entries[0].index_file
    with open(os.path.join(tdir, "index", e.file_name), "rb") as f:
        data = f.read()
    assert data[0] == 1 and len(data) == e.file_size
    for m in e.dv_ranges.values():
        assert int.from_bytes(data[m.offset:m.offset + 4], "big") == m.length
        assert int.from_bytes(data[m.offset + 4:m.offset + 8], "big") == 1581511376


def test_pypaimon_reads_c_dvs_and_commits_them(table):
    cat, tdir = table
    _delete(cat, [1, 3, 12])
    snap = _snapshot(cat)
    first = _first_row_ids(cat)
    by_first = {v: k for k, v in first.items()}
    fa, fb = by_first[0], by_first[10]
    # C: old ∪ new, a new key untouched before (fb) and an existing one (fa)
    _, adds, dels, ranges = _c(tdir, snap.index_manifest, {fa: [3, 5, 9], fb: [0, 7]})
    assert len(adds) == 1 and len(dels) == 1 and adds[0]["rows"] == 2
    new_name = adds[0]["name"]
    assert new_name.startswith("index-") and dels[0]["name"] != new_name
    path = os.path.join(tdir, "index", new_name)
    assert os.path.getsize(path) == adds[0]["size"]
    t = _get(cat)
    got = {}
    for key, (off, length, card) in ranges[new_name].items():
        dv = DeletionVector.read(t.file_io, DeletionFile(path, off, length, card))
        got[key] = sorted(dv.bit_map())
        assert dv.get_cardinality() == card
    assert got == {fa: [1, 3, 5, 9], fb: [0, 2, 7]}
    # C's keys are sorted and the first DV starts right after the version byte
    assert sorted(ranges[new_name]) == list(ranges[new_name]) and min(
        o for o, _, _ in ranges[new_name].values()) == 1

    # commit C's entries through pypaimon: its reads then drop exactly those rows
    old = [e for e in IndexManifestFile(t).read(snap.index_manifest) if e.kind == 0]
    part = GenericRow([], t.partition_keys_fields)
    meta = IndexFileMeta(
        index_type="DELETION_VECTORS", file_name=new_name, file_size=adds[0]["size"],
        row_count=adds[0]["rows"],
        dv_ranges={k: DeletionVectorMeta(data_file_name=k, offset=o, length=ln, cardinality=c)
                   for k, (o, ln, c) in ranges[new_name].items()})
    msg = CommitMessage(
        partition=(), bucket=0, new_files=[], check_from_snapshot=snap.id,
        index_adds=[IndexManifestEntry(kind=0, partition=part, bucket=0, index_file=meta)],
        index_deletes=[IndexManifestEntry(kind=1, partition=e.partition, bucket=e.bucket,
                                          index_file=e.index_file) for e in old])
    wb = t.new_batch_write_builder()
    c = wb.new_commit()
    c.commit([msg])
    c.close()
    assert _ids(cat) == [i for i in range(20) if i not in (1, 3, 5, 9, 10, 12, 17)]
    # pypaimon deletes on top of C's index file (it reads C's DVs and merges)
    _delete(cat, [2])
    assert _ids(cat) == [i for i in range(20) if i not in (1, 2, 3, 5, 9, 10, 12, 17)]
    # and C reads pypaimon's rewrite of them
    got, _, _, _ = _c(tdir, _snapshot(cat).index_manifest)
    assert {k: v["pos"] for k, v in got.items()} == {fa: [1, 2, 3, 5, 9], fb: [0, 2, 7]}


def test_no_change_writes_nothing(table):
    cat, tdir = table
    _delete(cat, [1])
    first = _first_row_ids(cat)
    fa = {v: k for k, v in first.items()}[0]
    before = sorted(os.listdir(os.path.join(tdir, "index")))
    _, adds, dels, _ = _c(tdir, _snapshot(cat).index_manifest, {fa: [1]})
    assert adds == [] and dels == []
    assert sorted(os.listdir(os.path.join(tdir, "index"))) == before


def _java_check(tmp_path, index_file, off, length, positions):
    javac = shutil.which("javac")
    lib = os.path.join(ROOT, "tests", "interop", "java", "target", "lib")
    src = os.path.join(ROOT, "tests", "unit", "meta", "fixtures", "dv", "GenDv.java")
    if not javac or not shutil.which("java") or not os.path.isdir(lib):
        pytest.skip("javac or the Java interop harness jars are missing")
    cp = os.path.join(lib, "*")
    out = tmp_path / "java"
    out.mkdir()
    subprocess.run([javac, "-d", str(out), "-cp", cp, src], check=True, capture_output=True)
    res = subprocess.run(["java", "-cp", f"{cp}:{out}", "GenDv", str(out), index_file, str(off), str(length)]
                         + [str(p) for p in positions], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return res.stdout.strip()


def test_64bit(table, tmp_path):
    cat, tdir = table
    _delete(cat, [1, 3, 12])
    snap = _snapshot(cat)
    fa = {v: k for k, v in _first_row_ids(cat).items()}[0]
    _, adds, _, ranges = _c(tdir, snap.index_manifest, {fa: [5, 5000000000]}, fmt="64")
    name = adds[0]["name"]
    path = os.path.join(tdir, "index", name)
    off, length, card = ranges[name][fa]
    assert card == 4
    with open(path, "rb") as f:
        data = f.read()
    # 64-bit: size field = length - 8, little-endian magic 1681511377
    assert int.from_bytes(data[off:off + 4], "big") == length - 8
    assert int.from_bytes(data[off + 4:off + 8], "little") == 1681511377
    # pypaimon 2.1.0 has no 64-bit reader
    with pytest.raises(RuntimeError, match="Invalid magic number"):
        DeletionVector.read(_get(cat).file_io, DeletionFile(path, off, length, card))
    # Java reads it with the recorded length
    out = _java_check(tmp_path, path, off, length, [1, 3, 5, 5000000000])
    assert out == "Bitmap64DeletionVector card=4 hits=4", out
