#!/usr/bin/env python3
"""Generates the fastavro-written fixtures read by tests/unit/avro/test_avro.c.

Run once with the project venv (fastavro, cramjam, zstandard):
    /work/main/.venv/bin/python tests/unit/avro/gen_fixtures.py
Record i's values are a function of i; test_avro.c recomputes them.
"""
import decimal
import os

import fastavro

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fixtures")

SCHEMA = {
    "type": "record", "name": "T", "namespace": "org.example",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "i32", "type": "int"},
        {"name": "b", "type": "boolean"},
        {"name": "f", "type": "float"},
        {"name": "d", "type": "double"},
        {"name": "s", "type": "string"},
        {"name": "by", "type": "bytes"},
        {"name": "e", "type": {"type": "enum", "name": "Color", "symbols": ["RED", "GREEN", "BLUE"]}},
        {"name": "fx", "type": {"type": "fixed", "name": "F4", "size": 4}},
        {"name": "arr", "type": {"type": "array", "items": "int"}},
        {"name": "m", "type": {"type": "map", "values": "long"}},
        {"name": "opt", "type": ["null", "string"], "default": None},
        {"name": "rev", "type": ["string", "null"]},
        {"name": "nested", "type": {"type": "record", "name": "Inner", "fields": [
            {"name": "x", "type": "int"},
            {"name": "tags", "type": {"type": "array", "items": "string"}}]}},
        {"name": "nested2", "type": "Inner"},
        {"name": "dt", "type": {"type": "int", "logicalType": "date"}},
        {"name": "tsm", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "tsu", "type": {"type": "long", "logicalType": "timestamp-micros"}},
        {"name": "dec", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
        {"name": "u3", "type": ["null", "long", "string"]},
    ],
}


def record(i):
    return {
        "id": i, "i32": i * 3 - 50, "b": i % 2 == 1, "f": i + 0.5, "d": i * 0.25,
        "s": "s%d" % i, "by": bytes([i % 256]) * (i % 5), "e": ["RED", "GREEN", "BLUE"][i % 3],
        "fx": i.to_bytes(4, "big"), "arr": list(range(i % 4)),
        "m": {"k%d" % j: j for j in range(i % 3)},
        "opt": None if i % 2 == 0 else "o%d" % i,
        "rev": None if i % 3 == 0 else "r%d" % i,
        "nested": {"x": i, "tags": ["t%d" % j for j in range(i % 3)]},
        "nested2": {"x": -i, "tags": []},
        "dt": i, "tsm": 1715648523456 + i, "tsu": 1715648523456789 + i,
        "dec": decimal.Decimal(i * 100 + 7).scaleb(-2),
        "u3": [None, i, "x%d" % i][i % 3],
    }


def main():
    os.makedirs(OUT, exist_ok=True)
    parsed = fastavro.parse_schema(SCHEMA)
    for codec in ["null", "deflate", "snappy", "zstandard"]:
        with open(os.path.join(OUT, "types_%s.avro" % codec), "wb") as f:
            fastavro.writer(f, parsed, [record(i) for i in range(100)], codec=codec)
    # Many small blocks.
    with open(os.path.join(OUT, "multiblock_zstandard.avro"), "wb") as f:
        fastavro.writer(f, parsed, [record(i) for i in range(3000)], codec="zstandard",
                        sync_interval=2000)
    # No records at all.
    with open(os.path.join(OUT, "empty.avro"), "wb") as f:
        fastavro.writer(f, parsed, [], codec="null")


def pypaimon_manifests():
    """Writes a tiny partitioned table with pypaimon and keeps its manifest
    and manifest-list files (pypaimon's zstandard Avro, BinaryRow partitions)."""
    import glob
    import shutil
    import tempfile

    import pyarrow as pa
    import pypaimon

    schema = pa.schema([pa.field("id", pa.int32()), pa.field("name", pa.string()),
                        pa.field("dt", pa.string()), pa.field("hr", pa.int32())])
    with tempfile.TemporaryDirectory() as wh:
        cat = pypaimon.CatalogFactory.create({"warehouse": wh})
        cat.create_database("db", False)
        cat.create_table("db.t", pypaimon.Schema.from_pyarrow_schema(schema, partition_keys=["dt", "hr"]), False)
        t = cat.get_table("db.t")
        wb = t.new_batch_write_builder()
        w = wb.new_write()
        cm = wb.new_commit()
        w.write_arrow(pa.table({"id": [1, 2, 3], "name": ["a", "cc", "b"],
                                "dt": ["2024-05-14"] * 3, "hr": [13] * 3}, schema=schema))
        cm.commit(w.prepare_commit())
        w.close()
        cm.close()
        mdir = os.path.join(wh, "db.db", "t", "manifest")
        manifests = sorted(glob.glob(os.path.join(mdir, "manifest-*")))
        entries = [m for m in manifests if not os.path.basename(m).startswith("manifest-list-")]
        lists = [m for m in manifests if os.path.basename(m).startswith("manifest-list-")]
        assert len(entries) == 1 and lists
        shutil.copy(entries[0], os.path.join(OUT, "pypaimon_manifest.avro"))
        # The delta list names the manifest; pick the non-empty one.
        best = max(lists, key=os.path.getsize)
        shutil.copy(best, os.path.join(OUT, "pypaimon_manifest_list.avro"))


if __name__ == "__main__":
    main()
    pypaimon_manifests()
