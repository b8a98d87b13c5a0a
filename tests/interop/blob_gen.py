"""Seeded reference BLOB / dedicated-VECTOR tables written by the real peers, with the values
every reader must return (sha256 + length per blob value), for interop tests (issue 12).
The facts behind each case are in docs/blob-layout.md.

    build_pypaimon(warehouse, seed=0, variant="test") -> {table: Case}
    build_java(warehouse, seed=0, variant="test")     -> {table: Case}   (Java Paimon 1.4.2)
    python tests/interop/blob_gen.py --selftest DIR [--seed N] [--no-java]

A Case is a plain dict:

    {"table": "db.<name>", "writer": "pypaimon" | "java",
     "columns": [names in table order],
     "blob_columns": [...], "kind": {col: "blob"|"array_blob"|"map_blob"|"vector"|"plain"},
     "expected": [row dict, sorted by _ROW_ID] -- the latest snapshot as Paimon's semantics
                 say it must read (blob values as {"len", "sha256"}; ARRAY<BLOB> a list of
                 those / None; MAP<K,BLOB> a list of [key, value]; vectors a list of floats;
                 plain columns their Python value; "_ROW_ID" and "_SEQUENCE_NUMBER" ints),
     "pypaimon_reads": only where pypaimon 2.1.0 is known to read something else (then the
                 rows it returns, pinned by the self-test so a fix is noticed),
     "java_reads": "ok" | "error: <text>"  what Java 1.4.2 does reading the table,
     "notes": "..."}

Cases (pypaimon 2.1.0 writer):
  blob_basic     id INT, b BLOB: sizes 0 B .. ~1.5 MB ("test") / 64 KB ("small"), nulls,
                 empties; one commit -> one .parquet + one .blob
  blob_rolled    two BLOB columns, blob.target-file-size 64kb, target-file-row-num 8: several
                 normal files, each tiled by several .blob files of b1 and one of b2; a second
                 append commit (a second row-id group)
  blob_part      partitioned (p INT): one normal file + blob files per partition
  blob_nested    ARRAY<BLOB> and MAP<INT, BLOB> (null, empty, null elements/values)
  blob_updated   update_by_row_id of a BLOB column (blob-only delta .blob files with
                 placeholders -2 and real nulls -1, rows up to the last updated one), then an
                 update of id + b (a normal file for the whole group + a delta .blob)
  blob_added     ALTER TABLE ADD COLUMN b BLOB on a table with two row-id groups, backfilled
                 by update_by_row_id (first backfill: whole-group .blob with nulls, no
                 placeholders; second: a short delta with placeholders)
  blob_replaced  an update of every row of a group: a whole-group delta .blob (Java-readable)
  blob_backfilled  ADD COLUMN + one backfill: a whole-group .blob with nulls (Java-readable)
  blob_descfield blob-descriptor-field d (descriptors of an external file, stored inline in
                 the .parquet) + raw BLOB b fed with descriptor bytes (pypaimon copies the
                 referenced range into the .blob file)
  vector_dedicated  vector.file.format=parquet: VECTOR<FLOAT,4> + VECTOR<FLOAT,2> in one
                 .vector.parquet (no null vectors: pypaimon cannot write them) + a BLOB
  blob_rolled_update  KNOWN pypaimon BUG: rolled .blob files keep writer sequence numbers
                 ([k, k+n-1] instead of the snapshot id), so a later blob update (max seq =
                 its snapshot id) loses against them and is not read back; Java refuses
                 the table. "expected" has the update, "pypaimon_reads" the old values.
Cases (Java 1.4.2 writer, build_java): jblob_basic, jblob_rolled (two BLOB columns, rolled),
  jblob_descfield, jblob_partial (an id-only partial append: b reads null), jvector_avro
  (vector.file.format=avro: a .vector.avro companion; pypaimon reads it).
"""
import base64
import glob
import hashlib
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HARNESS = ROOT / "tests" / "interop" / "java"
DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
ROW_ID, SEQ = "_ROW_ID", "_SEQUENCE_NUMBER"
DESC_MAGIC = 0x424C4F4244455343  # "BLOBDESC"


# ------------------------------------------------------------------------------ values

def digest(v):
    """Expected form of one blob value: None or {"len", "sha256"}."""
    if v is None:
        return None
    return {"len": len(v), "sha256": hashlib.sha256(v).hexdigest()}


def descriptor_bytes(uri, offset, length):
    """Serialized BlobDescriptor v2 (ai-format.md 4.6; checked against both peers)."""
    u = uri.encode("utf-8")
    return bytes([2]) + struct.pack("<q", DESC_MAGIC) + struct.pack("<i", len(u)) + u + struct.pack("<qq", offset, length)


def parse_descriptor(b):
    """-> (version, uri, offset, length) of a serialized v1/v2 BlobDescriptor."""
    ver = b[0]
    pos = 1
    if ver >= 2:
        (magic,) = struct.unpack_from("<q", b, 1)
        if magic != DESC_MAGIC:
            raise ValueError(f"bad descriptor magic {magic:#x}")
        pos = 9
    (n,) = struct.unpack_from("<i", b, pos)
    uri = b[pos + 4:pos + 4 + n].decode("utf-8")
    off, ln = struct.unpack_from("<qq", b, pos + 4 + n)
    if pos + 4 + n + 16 != len(b):
        raise ValueError("trailing bytes after descriptor")
    return ver, uri, off, ln


class Values:
    """Deterministic blob payloads (random.Random(seed).randbytes)."""

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def blob(self, n):
        return self.rng.randbytes(n)


def _sizes(variant):
    big = 1_500_000 if variant == "test" else 64 * 1024
    return [0, 1, 5, 17, 1000, 4096, 65536 + 3, big]


# ------------------------------------------------------------------------------ pypaimon

def _pp():
    import pypaimon
    return pypaimon


def _catalog(warehouse):
    pp = _pp()
    cat = pp.CatalogFactory.create({"warehouse": str(warehouse)})
    cat.create_database("db", True)
    return cat


def _create(cat, name, fields, options=None, partition_keys=()):
    from pypaimon import Schema
    from pypaimon.schema.data_types import DataField
    opts = dict(DE)
    opts.update(options or {})
    fs = [DataField.from_dict({"id": i, "name": n, "type": t}) for i, (n, t) in enumerate(fields)]
    cat.create_table("db." + name, Schema(fields=fs, partition_keys=list(partition_keys), options=opts), False)
    return cat.get_table("db." + name)


def _write(cat, name, data, cols=None):
    t = cat.get_table("db." + name)
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    if cols:
        w.with_write_type(cols)
    w.write_arrow(data)
    msgs = w.prepare_commit()
    c = wb.new_commit()
    c.commit(msgs)
    for x in (w, c):
        if hasattr(x, "close"):
            x.close()


def _update(cat, name, cols, row_ids, arrays):
    import pyarrow as pa
    t = cat.get_table("db." + name)
    wb = t.new_batch_write_builder()
    d = {ROW_ID: pa.array(row_ids, pa.int64())}
    d.update(arrays)
    msgs = wb.new_update().with_update_type(cols).update_by_arrow_with_row_id(pa.table(d))
    c = wb.new_commit()
    c.commit(msgs)


def _case(name, writer, columns, kind, expected, notes="", **extra):
    c = {"table": "db." + name, "writer": writer, "columns": columns,
         "blob_columns": [k for k in columns if kind.get(k, "plain") in ("blob", "array_blob", "map_blob")],
         "kind": {k: kind.get(k, "plain") for k in columns},
         "expected": sorted(expected, key=lambda r: r[ROW_ID]), "notes": notes}
    c.update(extra)
    return c


def build_pypaimon(warehouse, seed=0, variant="test"):
    """Creates every pypaimon case in `warehouse` (must not hold them yet); returns {name: Case}."""
    import pyarrow as pa
    V = Values(seed)
    cat = _catalog(warehouse)
    cases = {}
    B = pa.large_binary()

    # -- blob_basic: one commit
    sizes = _sizes(variant)
    vals = []
    for s in sizes:
        vals += [V.blob(s), None]
    vals += [b""]
    n = len(vals)
    _create(cat, "blob_basic", [("id", "INT"), ("b", "BLOB")])
    _write(cat, "blob_basic", pa.table({"id": pa.array(range(n), pa.int32()), "b": pa.array(vals, B)}))
    cases["blob_basic"] = _case("blob_basic", "pypaimon", ["id", "b"], {"b": "blob"},
                                [{"id": i, "b": digest(v), ROW_ID: i, SEQ: 1} for i, v in enumerate(vals)],
                                "one .parquet (_WRITE_COLS [id]) + one .blob (_WRITE_COLS [b])",
                                java_reads="ok")

    # -- blob_rolled: blob files roll at 64kb, normal files at 8 rows; two commits
    n1, n2 = 20, 5
    b1 = [None if i % 6 == 5 else V.blob(V.rng.randint(10_000, 30_000)) for i in range(n1 + n2)]
    b2 = [V.blob(i % 4) for i in range(n1 + n2)]
    _create(cat, "blob_rolled", [("id", "INT"), ("b1", "BLOB"), ("b2", "BLOB")],
            {"blob.target-file-size": "64kb", "target-file-row-num": "8"})
    _write(cat, "blob_rolled", pa.table({"id": pa.array(range(n1), pa.int32()), "b1": pa.array(b1[:n1], B),
                                         "b2": pa.array(b2[:n1], B)}))
    _write(cat, "blob_rolled", pa.table({"id": pa.array(range(n1, n1 + n2), pa.int32()),
                                         "b1": pa.array(b1[n1:], B), "b2": pa.array(b2[n1:], B)}))
    cases["blob_rolled"] = _case(
        "blob_rolled", "pypaimon", ["id", "b1", "b2"], {"b1": "blob", "b2": "blob"},
        [{"id": i, "b1": digest(b1[i]), "b2": digest(b2[i]), ROW_ID: i, SEQ: 1 if i < n1 else 2}
         for i in range(n1 + n2)],
        "commit 1: normal files of 8/8/4 rows; b1 .blob files roll at 64kb inside each normal file "
        "(rolled ones keep writer sequence numbers, e.g. [4, 7]); b2 one .blob per normal file",
        java_reads="ok")

    # -- blob_part: partitioned
    rows = [(p, i, V.blob(3000 + i)) for i, p in enumerate([1, 2, 1, 2, 1, 2, 1])]
    _create(cat, "blob_part", [("p", "INT"), ("id", "INT"), ("b", "BLOB")], partition_keys=["p"])
    _write(cat, "blob_part", pa.table({"p": pa.array([r[0] for r in rows], pa.int32()),
                                       "id": pa.array([r[1] for r in rows], pa.int32()),
                                       "b": pa.array([r[2] for r in rows], B)}))
    order = [r for r in rows if r[0] == 1] + [r for r in rows if r[0] == 2]  # partitions by first appearance
    cases["blob_part"] = _case("blob_part", "pypaimon", ["p", "id", "b"], {"b": "blob"},
                               [{"p": r[0], "id": r[1], "b": digest(r[2]), ROW_ID: k, SEQ: 1}
                                for k, r in enumerate(order)],
                               "row ids: partition p=1 first (first appearance), then p=2",
                               java_reads="ok")

    # -- blob_nested: ARRAY<BLOB>, MAP<INT, BLOB>
    arrs = [[V.blob(2), None, b""], None, [], [V.blob(100)], [V.blob(70000)]]
    maps = [[(1, V.blob(3)), (2, None)], None, [], [(7, b"")], [(-1, V.blob(5000)), (3, V.blob(1))]]
    _create(cat, "blob_nested", [("id", "INT"), ("a", {"type": "ARRAY", "element": "BLOB"}),
                                 ("m", {"type": "MAP", "key": "INT NOT NULL", "value": "BLOB"})])
    _write(cat, "blob_nested", pa.table({"id": pa.array(range(len(arrs)), pa.int32()),
                                         "a": pa.array(arrs, pa.list_(B)),
                                         "m": pa.array(maps, pa.map_(pa.int32(), B))}))
    cases["blob_nested"] = _case(
        "blob_nested", "pypaimon", ["id", "a", "m"], {"a": "array_blob", "m": "map_blob"},
        [{"id": i, "a": None if a is None else [digest(x) for x in a],
          "m": None if m is None else [[k, digest(x)] for k, x in m], ROW_ID: i, SEQ: 1}
         for i, (a, m) in enumerate(zip(arrs, maps))],
        "one .blob per nested column; Java 1.4.2 cannot read (no ARRAY/MAP<BLOB> support)",
        java_reads="error: IllegalStateException: Read type of a blob format does not contain any blob field.")

    # -- blob_updated: blob-only deltas with placeholders, then id + b
    n = 8
    b = [V.blob(50 + i) for i in range(n)]
    c = [V.blob(10 + i) for i in range(n)]
    ids = list(range(n))
    _create(cat, "blob_updated", [("id", "INT"), ("b", "BLOB"), ("c", "BLOB")])
    _write(cat, "blob_updated", pa.table({"id": pa.array(ids, pa.int32()), "b": pa.array(b, B), "c": pa.array(c, B)}))
    u1 = {1: V.blob(40), 3: None, 4: b""}      # snapshot 2: delta .blob rows 0..4 = [-2, r, -2, -1, r]
    _update(cat, "blob_updated", ["b"], list(u1), {"b": pa.array(list(u1.values()), B)})
    b = [u1[i] if i in u1 else x for i, x in enumerate(b)]
    u2 = {0: V.blob(9)}                          # snapshot 3: delta .blob of 1 row
    _update(cat, "blob_updated", ["b"], list(u2), {"b": pa.array(list(u2.values()), B)})
    b[0] = u2[0]
    v600 = V.blob(600)
    _update(cat, "blob_updated", ["id", "b"], [6], {"id": pa.array([600], pa.int32()),
                                                      "b": pa.array([v600], B)})  # snapshot 4
    ids[6] = 600
    b[6] = v600
    cases["blob_updated"] = _case(
        "blob_updated", "pypaimon", ["id", "b", "c"], {"b": "blob", "c": "blob"},
        [{"id": ids[i], "b": digest(b[i]), "c": digest(c[i]), ROW_ID: i, SEQ: 4} for i in range(n)],
        "snapshot 2/3: blob-only updates write only a delta .blob (first_row_id 0, rows up to the last "
        "updated row, -2 placeholders, -1 for an update to null) and do not change _SEQUENCE_NUMBER; "
        "snapshot 4 (id + b) writes a whole-group .parquet [id] + a delta .blob of 7 rows",
        java_reads="error: IllegalArgumentException: All files in a field merge split should have the same row count. "
                   "(Java 1.4.2 has no blob fallback reader; a delta spanning the whole group fails with "
                   "NegativeArraySizeException: -18, the -2 placeholder read as a length)")

    # -- blob_added: ADD COLUMN b BLOB + backfill across two row-id groups
    from pypaimon.schema.data_types import AtomicType
    from pypaimon.schema.schema_change import SchemaChange
    _create(cat, "blob_added", [("id", "INT"), ("s", "STRING")])
    _write(cat, "blob_added", pa.table({"id": pa.array(range(5), pa.int32()), "s": pa.array(list("abcde"))}))
    _write(cat, "blob_added", pa.table({"id": pa.array(range(5, 8), pa.int32()), "s": pa.array(list("fgh"))}))
    cat.alter_table("db.blob_added", [SchemaChange.add_column("b", AtomicType("BLOB"))], False)
    added = [None] * 8
    f1 = {1: V.blob(100), 3: V.blob(2000), 6: b"", 7: V.blob(7)}  # snapshot 3: both groups
    _update(cat, "blob_added", ["b"], list(f1), {"b": pa.array(list(f1.values()), B)})
    for k, v in f1.items():
        added[k] = v
    f2 = {0: V.blob(33)}                                           # snapshot 4: placeholders
    _update(cat, "blob_added", ["b"], list(f2), {"b": pa.array(list(f2.values()), B)})
    added[0] = f2[0]
    cases["blob_added"] = _case(
        "blob_added", "pypaimon", ["id", "s", "b"], {"b": "blob"},
        [{"id": i, "s": "abcdefgh"[i], "b": digest(added[i]), ROW_ID: i, SEQ: 1 if i < 5 else 2}
         for i in range(8)],
        "first backfill: per group a .blob over the whole group (schema id 1, real nulls -1, no "
        "placeholders: no baseline); second: a 1-row delta .blob of group 0",
        java_reads="error: IllegalArgumentException: All files in a field merge split should have the same row count.")

    # -- blob_replaced: an update of every row of a group -> a whole-group .blob (no -2);
    #    Java 1.4.2 can read this one (same first_row_id, higher sequence wins)
    n = 6
    old = [V.blob(30 + i) for i in range(n)]
    new = [V.blob(300 + i) if i % 3 else (None if i == 0 else b"") for i in range(n)]
    _create(cat, "blob_replaced", [("id", "INT"), ("b", "BLOB")])
    _write(cat, "blob_replaced", pa.table({"id": pa.array(range(n), pa.int32()), "b": pa.array(old, B)}))
    _update(cat, "blob_replaced", ["b"], list(range(n)), {"b": pa.array(new, B)})
    cases["blob_replaced"] = _case(
        "blob_replaced", "pypaimon", ["id", "b"], {"b": "blob"},
        [{"id": i, "b": digest(new[i]), ROW_ID: i, SEQ: 1} for i in range(n)],
        "the delta .blob covers the whole group (first_row_id 0, 6 rows, seq [2,2]) and replaces the "
        "seq-1 file", java_reads="ok")

    # -- blob_backfilled: ADD COLUMN + one backfill (whole-group .blob, nulls): Java-readable
    _create(cat, "blob_backfilled", [("id", "INT"), ("s", "STRING")])
    _write(cat, "blob_backfilled", pa.table({"id": pa.array(range(4), pa.int32()), "s": pa.array(list("wxyz"))}))
    cat.alter_table("db.blob_backfilled", [SchemaChange.add_column("b", AtomicType("BLOB"))], False)
    bf = {0: V.blob(5), 2: V.blob(2222)}
    _update(cat, "blob_backfilled", ["b"], list(bf), {"b": pa.array(list(bf.values()), B)})
    cases["blob_backfilled"] = _case(
        "blob_backfilled", "pypaimon", ["id", "s", "b"], {"b": "blob"},
        [{"id": i, "s": "wxyz"[i], "b": digest(bf.get(i)), ROW_ID: i, SEQ: 1} for i in range(4)],
        "one .blob of the whole group (schema id 1), -1 for rows not backfilled", java_reads="ok")

    # -- blob_descfield
    ext_dir = Path(warehouse) / "external"
    ext_dir.mkdir(parents=True, exist_ok=True)
    ext = ext_dir / "ext.bin"
    ext_data = V.blob(5000)
    ext.write_bytes(ext_data)
    refs = [(str(ext), 10, 20), None, ("file://" + str(ext), 100, 4900), (str(ext), 0, 0)]
    dvals = [None if r is None else descriptor_bytes(*r) for r in refs]
    bvals = [dvals[0], None, b"raw bytes", descriptor_bytes(str(ext), 4000, 1000)]
    _create(cat, "blob_descfield", [("id", "INT"), ("d", "BLOB"), ("b", "BLOB")], {"blob-descriptor-field": "d"})
    _write(cat, "blob_descfield", pa.table({"id": pa.array(range(4), pa.int32()), "d": pa.array(dvals, B),
                                            "b": pa.array(bvals, B)}))

    def sl(r):
        return None if r is None else ext_data[r[1]:r[1] + r[2]]
    bexp = [sl(refs[0]), None, b"raw bytes", ext_data[4000:5000]]
    cases["blob_descfield"] = _case(
        "blob_descfield", "pypaimon", ["id", "d", "b"], {"d": "blob", "b": "blob"},
        [{"id": i, "d": digest(sl(refs[i])), "b": digest(bexp[i]), ROW_ID: i, SEQ: 1} for i in range(4)],
        "d: the serialized descriptors are stored verbatim in the .parquet (_WRITE_COLS [id, d]) "
        "and resolved at read; b: descriptor input is copied into the .blob file",
        external_file=str(ext), stored_descriptors=[None if x is None else x.hex() for x in dvals],
        java_reads="ok")

    # -- vector_dedicated
    n = 30
    v4 = [[float(i), i + 0.5, -1.0, 2.25] for i in range(n)]
    v2 = [[float(-i), 0.125] for i in range(n)]
    bb = [V.blob(200) if i % 3 else None for i in range(n)]
    _create(cat, "vector_dedicated", [("id", "INT"), ("v", {"type": "VECTOR", "element": "FLOAT", "length": 4}),
                                      ("w", {"type": "VECTOR", "element": "FLOAT", "length": 2}), ("b", "BLOB")],
            {"vector.file.format": "parquet", "blob.target-file-size": "2kb"})
    _write(cat, "vector_dedicated", pa.table({
        "id": pa.array(range(n), pa.int32()), "v": pa.array(v4, pa.list_(pa.float32(), 4)),
        "w": pa.array(v2, pa.list_(pa.float32(), 2)), "b": pa.array(bb, B)}))
    cases["vector_dedicated"] = _case(
        "vector_dedicated", "pypaimon", ["id", "v", "w", "b"], {"v": "vector", "w": "vector", "b": "blob"},
        [{"id": i, "v": v4[i], "w": v2[i], "b": digest(bb[i]), ROW_ID: i, SEQ: 1} for i in range(n)],
        "one .vector.parquet holding v and w (_WRITE_COLS [v, w]); .blob files of b roll at 2kb",
        java_reads="error: UnsupportedOperationException: Unsupported type: VECTOR<FLOAT, 4> (1.4.2 Parquet)")

    # -- blob_rolled_update: the known pypaimon sequence-number bug
    n = 9
    orig = [V.blob(4000) for _ in range(n)]
    _create(cat, "blob_rolled_update", [("id", "INT"), ("b", "BLOB")], {"blob.target-file-size": "10kb"})
    _write(cat, "blob_rolled_update", pa.table({"id": pa.array(range(n), pa.int32()), "b": pa.array(orig, B)}))
    up = {1: V.blob(11), 5: V.blob(55)}
    _update(cat, "blob_rolled_update", ["b"], list(up), {"b": pa.array(list(up.values()), B)})
    cases["blob_rolled_update"] = _case(
        "blob_rolled_update", "pypaimon", ["id", "b"], {"b": "blob"},
        [{"id": i, "b": digest(up.get(i, orig[i])), ROW_ID: i, SEQ: 1} for i in range(n)],
        "KNOWN pypaimon 2.1.0 bug: rolled .blob files 2.. keep writer sequence numbers ([3,5], [6,8]) "
        "> the update's 2, so pypaimon reads the old value where the update falls into them",
        pypaimon_reads=[{"id": i, "b": digest(up[i] if i in up and i < 3 else orig[i]), ROW_ID: i, SEQ: 1}
                        for i in range(n)],
        java_reads="error: IllegalArgumentException: Blob/vector-store file with overlapping row id should "
                   "have decreasing sequence number.")
    return cases


# ------------------------------------------------------------------------------ Java

def java_available():
    p = subprocess.run([str(HARNESS / "build.sh")], capture_output=True, text=True)
    return p.returncode == 0, p.stderr[-2000:]


def java_batch(commands):
    text = "\n".join(" ".join(str(a) for a in c) for c in commands) + "\n"
    p = subprocess.run([str(HARNESS / "run.sh"), "batch"], input=text, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"java batch failed: {p.stderr[-3000:]}")
    out, cur = [], []
    for line in p.stdout.split("\n"):
        if line.startswith("### "):
            out.append((int(line[4:]), "\n".join(cur)))
            cur = []
        else:
            cur.append(line)
    if len(out) != len(commands):
        raise RuntimeError(f"java batch: {len(out)} results for {len(commands)} commands: {p.stderr[-3000:]}")
    return out, p.stderr


def build_java(warehouse, seed=0, variant="test"):
    """Creates the Java 1.4.2 cases (blob-write, BlobCommands.java) in `warehouse`."""
    V = Values(seed + 1000)
    wh = Path(warehouse).resolve()
    work = wh / "_java_inputs"
    work.mkdir(parents=True, exist_ok=True)
    cmds, cases = [], {}

    def schema(name, fields, opts=None):
        sj = {"fields": [{"id": i, "name": n, "type": t} for i, (n, t) in enumerate(fields)],
              "partitionKeys": [], "primaryKeys": [], "options": dict(DE, **(opts or {})), "comment": None}
        p = work / f"{name}.schema.json"
        p.write_text(json.dumps(sj))
        cmds.append(["create", wh, f"db.{name}", p])

    def rows_file(name, rows):
        p = work / f"{name}.jsonl"
        p.write_text("".join(json.dumps(r) + "\n" for r in rows))
        return p

    def bval(v, key):
        if v is None:
            return None
        p = work / f"{key}.bin"
        p.write_bytes(v)
        return {"file": str(p)}

    # jblob_basic
    vals = []
    for s in _sizes(variant):
        vals += [V.blob(s), None]
    vals.append(b"")
    schema("jblob_basic", [("id", "INT"), ("b", "BLOB")])
    f = rows_file("jblob_basic", [{"id": i, "b": bval(v, f"basic{i}")} for i, v in enumerate(vals)])
    cmds.append(["blob-write", wh, "db.jblob_basic", f])
    cases["jblob_basic"] = _case("jblob_basic", "java", ["id", "b"], {"b": "blob"},
                                 [{"id": i, "b": digest(v), ROW_ID: i, SEQ: 1} for i, v in enumerate(vals)],
                                 "data-<u>-0.parquet + data-<u>-1.blob (same uuid)")
    # jblob_rolled
    n = 14
    b1 = [None if i == 4 else V.blob(V.rng.randint(3000, 5000)) for i in range(n)]
    b2 = [V.blob(i % 3) for i in range(n)]
    schema("jblob_rolled", [("id", "INT"), ("b1", "BLOB"), ("b2", "BLOB")], {"blob.target-file-size": "10kb"})
    f = rows_file("jblob_rolled", [{"id": i, "b1": bval(b1[i], f"r1_{i}"), "b2": bval(b2[i], f"r2_{i}")}
                                   for i in range(n)])
    cmds.append(["blob-write", wh, "db.jblob_rolled", f])
    cases["jblob_rolled"] = _case("jblob_rolled", "java", ["id", "b1", "b2"], {"b1": "blob", "b2": "blob"},
                                  [{"id": i, "b1": digest(b1[i]), "b2": digest(b2[i]), ROW_ID: i, SEQ: 1}
                                   for i in range(n)],
                                  "b1 rolled into several .blob files, all with sequence [1, 1]")
    # jblob_descfield
    ext = wh / "external" / "jext.bin"
    ext.parent.mkdir(parents=True, exist_ok=True)
    ext_data = V.blob(3000)
    ext.write_bytes(ext_data)
    schema("jblob_descfield", [("id", "INT"), ("d", "BLOB"), ("b", "BLOB")], {"blob-descriptor-field": "d"})
    refs = [(str(ext), 10, 20), None, ("file://" + str(ext), 1000, 2000)]
    rows = [{"id": i, "d": None if r is None else {"descriptor": {"uri": r[0], "offset": r[1], "length": r[2]}},
             "b": None if r is None else {"descriptor": {"uri": r[0], "offset": r[1], "length": r[2]}}}
            for i, r in enumerate(refs)]
    cmds.append(["blob-write", wh, "db.jblob_descfield", rows_file("jblob_descfield", rows)])
    exp = [None if r is None else ext_data[r[1]:r[1] + r[2]] for r in refs]
    cases["jblob_descfield"] = _case("jblob_descfield", "java", ["id", "d", "b"], {"d": "blob", "b": "blob"},
                                     [{"id": i, "d": digest(exp[i]), "b": digest(exp[i]), ROW_ID: i, SEQ: 1}
                                      for i in range(3)],
                                     "d: descriptor stored inline; b: Blob.fromDescriptor input copied into .blob")
    # jblob_partial: full append, then an id-only partial append (b reads null)
    schema("jblob_partial", [("id", "INT"), ("b", "BLOB")])
    pv = [V.blob(10), None]
    cmds.append(["blob-write", wh, "db.jblob_partial",
                 rows_file("jblob_partial1", [{"id": i, "b": bval(v, f"p{i}")} for i, v in enumerate(pv)])])
    cmds.append(["blob-write", wh, "db.jblob_partial", "--cols", "id",
                 rows_file("jblob_partial2", [{"id": 7}, {"id": 8}])])
    cases["jblob_partial"] = _case("jblob_partial", "java", ["id", "b"], {"b": "blob"},
                                   [{"id": 0, "b": digest(pv[0]), ROW_ID: 0, SEQ: 1},
                                    {"id": 1, "b": None, ROW_ID: 1, SEQ: 1},
                                    {"id": 7, "b": None, ROW_ID: 2, SEQ: 2},
                                    {"id": 8, "b": None, ROW_ID: 3, SEQ: 2}],
                                   "second commit: a .parquet with _WRITE_COLS [id] and no .blob")
    # jvector_avro: vector.file.format=avro (Java 1.4.2 Parquet has no VECTOR); write-demo values:
    # id i, v[j] = i + 0.5 j, b = bytes(i .. i+7)
    schema("jvector_avro", [("id", "INT"), ("v", "VECTOR<FLOAT, 4>"), ("b", "BLOB")], {"vector.file.format": "avro"})
    cmds.append(["write-demo", wh, "db.jvector_avro", 5])
    cases["jvector_avro"] = _case("jvector_avro", "java", ["id", "v", "b"], {"v": "vector", "b": "blob"},
                                  [{"id": i, "v": [i + 0.5 * j for j in range(4)], "b": digest(bytes(range(i, i + 8))),
                                    ROW_ID: i, SEQ: 1} for i in range(5)],
                                  "data-<u>-0.parquet [id], -1.blob [b], -2.vector.avro [v]")
    res, err = java_batch(cmds)
    bad = [(c, r) for c, r in zip(cmds, res) if r[0] != 0]
    if bad:
        raise RuntimeError(f"java commands failed: {bad}\n{err[-3000:]}")
    shutil.rmtree(work)
    return cases


# ------------------------------------------------------------------------------ reading / checks

def _normalize(v, kind):
    if v is None:
        return None
    if kind == "blob":
        return digest(v)
    if kind == "array_blob":
        return [digest(x) for x in v]
    if kind == "map_blob":
        return [[k, digest(x)] for k, x in v]
    if kind == "vector":
        return [float(x) for x in v]
    return v


def read_pypaimon(warehouse, case, projection=None, options=None):
    """Rows (sorted by _ROW_ID) as pypaimon reads them, blob values digested."""
    cat = _pp().CatalogFactory.create({"warehouse": str(warehouse)})
    t = cat.get_table(case["table"])
    if options:
        t = t.copy(options)
    cols = projection or case["columns"]
    rb = t.new_read_builder().with_projection(list(cols) + [ROW_ID, SEQ])
    rows = rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist()
    out = [{k: (_normalize(v, case["kind"].get(k, "plain")) if k not in (ROW_ID, SEQ) else v)
            for k, v in r.items()} for r in rows]
    return sorted(out, key=lambda r: r[ROW_ID])


def table_files(warehouse, case):
    """Manifest view of the latest snapshot: [{name, rows, first_row_id, write_cols, seq, schema_id}]."""
    import fastavro
    db, name = case["table"].split(".")
    tdir = Path(warehouse) / f"{db}.db" / name
    sid = int((tdir / "snapshot" / "LATEST").read_text())
    snap = json.loads((tdir / "snapshot" / f"snapshot-{sid}").read_text())
    files = {}
    for key in ("baseManifestList", "deltaManifestList"):
        if not snap.get(key):
            continue
        with open(tdir / "manifest" / snap[key], "rb") as f:
            for m in fastavro.reader(f):
                with open(tdir / "manifest" / m["_FILE_NAME"], "rb") as g:
                    for e in fastavro.reader(g):
                        fm = e["_FILE"]
                        k = fm["_FILE_NAME"]
                        if e["_KIND"] == 1:
                            files.pop(k, None)
                        else:
                            files[k] = {"name": k, "rows": fm["_ROW_COUNT"], "first_row_id": fm.get("_FIRST_ROW_ID"),
                                        "write_cols": fm.get("_WRITE_COLS"), "schema_id": fm["_SCHEMA_ID"],
                                        "seq": [fm["_MIN_SEQUENCE_NUMBER"], fm["_MAX_SEQUENCE_NUMBER"]],
                                        "size": fm["_FILE_SIZE"]}
    return sorted(files.values(), key=lambda x: (x["first_row_id"] if x["first_row_id"] is not None else -1, x["name"]))


def file_path(warehouse, case, name):
    """Absolute path of a data file of the case's table (any partition / bucket)."""
    db, t = case["table"].split(".")
    hits = glob.glob(str(Path(warehouse) / f"{db}.db" / t / "**" / name), recursive=True)
    if len(hits) != 1:
        raise FileNotFoundError(f"{name} in {case['table']}: {hits}")
    return hits[0]


def blob_index(path):
    """The per-row entry lengths of a .blob file (-1 null, -2 placeholder)."""
    b = Path(path).read_bytes()
    if b[-1] != 1:
        raise ValueError(f"{path}: version {b[-1]}")
    (il,) = struct.unpack_from("<i", b, len(b) - 5)
    idx = b[len(b) - 5 - il:len(b) - 5]
    vals, prev, cur, shift = [], 0, 0, 0
    for x in idx:
        cur |= (x & 0x7F) << shift
        shift += 7
        if not x & 0x80:
            d = (cur >> 1) ^ -(cur & 1)
            prev = d if not vals else prev + d
            vals.append(prev)
            cur, shift = 0, 0
    return vals


def _java_read_checks(d, cases, jcases):
    """Java 1.4.2 reads every case (blob-read; and --descriptor): rows equal `expected` where
    java_reads is "ok" (all Java-written cases), else the documented error. -> (passed, failed)."""
    items = [(d / "pypaimon", c) for c in cases.values()] + [(d / "java", c) for c in jcases.values()]
    cmds = []
    for wh, c in items:
        cmds.append(["blob-read", Path(wh).resolve(), c["table"]])
        cmds.append(["blob-read", Path(wh).resolve(), c["table"], "--descriptor"])
    res, err = java_batch(cmds)
    passed = failed = 0
    for k, (wh, c) in enumerate(items):
        want = c.get("java_reads", "ok")
        (rc, out), (rc2, out2) = res[2 * k], res[2 * k + 1]
        name = c["table"]
        if want == "ok":
            rows = sorted((json.loads(x) for x in out.splitlines() if x.strip()), key=lambda r: r[ROW_ID])
            ok = rc == 0 and rows == c["expected"]
            drows = sorted((json.loads(x) for x in out2.splitlines() if x.strip()), key=lambda r: r[ROW_ID])
            ok2 = rc2 == 0 and len(drows) == len(c["expected"])
            for r in drows if ok2 else []:
                for col in c["blob_columns"]:
                    v = r[col]
                    if v is None:
                        continue
                    ver, uri, off, ln = parse_descriptor(bytes.fromhex(v["descriptor"]))
                    path = uri[len("file://"):] if uri.startswith("file://") else uri
                    with open(path, "rb") as fh:
                        fh.seek(off)
                        data = fh.read(ln)
                    ok2 = ok2 and ver == 2 and (uri, off, ln) == (v["uri"], v["offset"], v["length"]) \
                        and digest(data) == {"len": v["len"], "sha256": v["sha256"]}
        else:
            msg = want[len("error: "):]
            ok = rc != 0 and msg.split(" (")[0] in err
            ok2 = rc2 != 0
        for good, what in ((ok, "read"), (ok2, "descriptor read")):
            if good:
                passed += 1
            else:
                failed += 1
                print(f"FAIL: java {what} of {wh.name}/{name}: rc {rc}/{rc2}, want {want}\n{out[:600]}")
    return passed, failed


def selftest(d, seed=0, java=True):
    d = Path(d)
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    t0 = time.time()
    passed, failed, notes = 0, 0, []

    def check(ok, what):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            print("FAIL:", what)

    cases = build_pypaimon(d / "pypaimon", seed)
    (d / "pypaimon" / "cases.json").write_text(json.dumps(cases, indent=1))
    jcases = {}
    if java:
        ok, err = java_available()
        if ok:
            jcases = build_java(d / "java", seed)
            (d / "java" / "cases.json").write_text(json.dumps(jcases, indent=1))
        else:
            notes.append("Java harness not available (not counted): " + err[-300:])
    for wh, cs in ((d / "pypaimon", cases), (d / "java", jcases)):
        for name, case in cs.items():
            got = read_pypaimon(wh, case)
            want = case.get("pypaimon_reads", case["expected"])
            check(got == want, f"{name}: pypaimon read differs\n got  {got[:3]}\n want {want[:3]}")
            # projections without the blob columns never need the .blob files
            plain = [c for c in case["columns"] if case["kind"][c] == "plain"]
            got = read_pypaimon(wh, case, projection=plain)
            check(got == [{k: r[k] for k in plain + [ROW_ID, SEQ]} for r in want], f"{name}: projection {plain}")
            # descriptors of raw blob columns point into the table's .blob files
            scal = [c for c in case["blob_columns"] if case["kind"][c] == "blob"]
            if scal and "pypaimon_reads" not in case:
                rows = read_pypaimon(wh, case, projection=scal, options={"blob-as-descriptor": "true"})
                # read_pypaimon digested the descriptor bytes; read again raw
                cat = _pp().CatalogFactory.create({"warehouse": str(wh)})
                t = cat.get_table(case["table"]).copy({"blob-as-descriptor": "true"})
                rb = t.new_read_builder().with_projection(scal + [ROW_ID])
                raw = sorted(rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist(), key=lambda r: r[ROW_ID])
                ok = len(raw) == len(case["expected"]) == len(rows)
                for r, e in zip(raw, case["expected"]):
                    for c in scal:
                        if (r[c] is None) != (e[c] is None):
                            ok = False
                        elif r[c] is not None:
                            ver, uri, off, ln = parse_descriptor(r[c])
                            path = uri[len("file://"):] if uri.startswith("file://") else uri
                            with open(path, "rb") as fh:
                                fh.seek(off)
                                data = fh.read(ln)
                            ok = ok and ver == 2 and digest(data) == e[c]
                check(ok, f"{name}: blob-as-descriptor descriptors resolve to the expected bytes")
            # layout invariants: blob files of a field lie inside a normal file's range
            files = table_files(wh, case)
            normal = [f for f in files if not f["name"].endswith(".blob") and ".vector." not in f["name"]]
            blobs = [f for f in files if f["name"].endswith(".blob")]
            ok = all(len(f["write_cols"]) == 1 for f in blobs)
            for f in blobs:
                ok = ok and any(n["first_row_id"] <= f["first_row_id"] and
                                f["first_row_id"] + f["rows"] <= n["first_row_id"] + n["rows"] for n in normal)
                idx = blob_index(file_path(wh, case, f["name"]))
                ok = ok and len(idx) == f["rows"]
            check(ok, f"{name}: .blob files single-column, inside a normal file's row range, index length = row_count")
    if java and (jcases or java_available()[0]):
        jp, jf = _java_read_checks(d, cases, jcases)
        passed += jp
        failed += jf
    # specific layout facts
    fs = table_files(d / "pypaimon", cases["blob_rolled"])
    b1 = [f for f in fs if f["write_cols"] == ["b1"]]
    check(len(b1) > 3 and any(f["seq"][0] > 1 for f in b1), "blob_rolled: b1 rolled, rolled files keep writer seqs")
    fs = table_files(d / "pypaimon", cases["blob_updated"])
    deltas = [f for f in fs if f["write_cols"] == ["b"] and f["seq"][1] > 1]
    idx = {f["seq"][1]: blob_index(file_path(d / "pypaimon", cases["blob_updated"], f["name"])) for f in deltas}
    check(idx.get(2) == [-2, idx[2][1], -2, -1, idx[2][4]] and idx[2][1] > 0 and idx[2][4] == 16
          and len(idx.get(3, [])) == 1 and len(idx.get(4, [])) == 7 and idx[4][:6] == [-2] * 6,
          f"blob_updated: delta indexes {idx}")
    fs = table_files(d / "pypaimon", cases["blob_added"])
    first = [f for f in fs if f["write_cols"] == ["b"] and f["seq"][1] == 3]
    check(sorted((f["first_row_id"], f["rows"], f["schema_id"]) for f in first) == [(0, 5, 1), (5, 3, 1)],
          f"blob_added: first backfill files {first}")
    dt = time.time() - t0
    size = sum(p.stat().st_size for p in d.rglob("*") if p.is_file())
    for n in notes:
        print("note:", n)
    print(f"blob_gen selftest: {len(cases)} pypaimon + {len(jcases)} java tables, {size / 1e6:.1f} MB, {dt:.1f} s")
    print(f"{passed} passed, {failed} failed")
    return failed == 0


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--selftest", metavar="DIR", required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-java", action="store_true")
    a = ap.parse_args()
    sys.exit(0 if selftest(a.selftest, a.seed, java=not a.no_java) else 1)
