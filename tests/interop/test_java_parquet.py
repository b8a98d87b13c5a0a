"""Parquet files written by paimonc, read by Java Paimon's own Parquet reader
(harness command `parquet-dump`, FileFormat "parquet" of paimon-bundle) and by
pyarrow; both readings are compared in the canonical JSON encoding
(java-interop.md §4.3).

Types: everything of the pyarrow round trip except large_binary (BLOB) and
fixed_size_list (VECTOR); timestamps limited to years 1653..2286 so both
sides can print them.
"""
import base64
import datetime
import json
import os
import random
import struct
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
import java_harness as jh  # noqa: E402
import pq_write_gen as gen  # noqa: E402

try:
    from paimonc.parquet import write_table
except ImportError:
    from paimonc.parquet_write import write_table

N_FILES = int(os.environ.get("PAIMONC_JAVA_PARQUET_FILES", "500"))
EPOCH = datetime.datetime(1970, 1, 1)


def paimon_sql(t, nullable=True):
    nn = "" if nullable else " NOT NULL"
    if pa.types.is_int8(t):
        s = "TINYINT"
    elif pa.types.is_int16(t):
        s = "SMALLINT"
    elif pa.types.is_int32(t):
        s = "INT"
    elif pa.types.is_int64(t):
        s = "BIGINT"
    elif t == pa.float32():
        s = "FLOAT"
    elif t == pa.float64():
        s = "DOUBLE"
    elif pa.types.is_boolean(t):
        s = "BOOLEAN"
    elif pa.types.is_string(t) or pa.types.is_large_string(t):
        s = "STRING"
    elif pa.types.is_fixed_size_binary(t):
        s = "BINARY(%d)" % t.byte_width
    elif pa.types.is_binary(t):
        s = "BYTES"
    elif pa.types.is_decimal(t):
        s = "DECIMAL(%d, %d)" % (t.precision, t.scale)
    elif pa.types.is_date32(t):
        s = "DATE"
    elif pa.types.is_time32(t) or pa.types.is_time64(t):
        s = "TIME(0)"
    elif pa.types.is_timestamp(t):
        p = {"s": 0, "ms": 3, "us": 6, "ns": 9}[t.unit]
        s = "TIMESTAMP(%d)" % p + (" WITH LOCAL TIME ZONE" if t.tz else "")
    elif pa.types.is_list(t) or pa.types.is_large_list(t):
        s = "ARRAY<%s>" % paimon_sql(t.value_type, t.value_field.nullable)
    elif pa.types.is_map(t):
        s = "MAP<%s, %s>" % (paimon_sql(t.key_type, False), paimon_sql(t.item_type, t.item_field.nullable))
    elif pa.types.is_struct(t):
        s = "ROW<%s>" % ", ".join("`%s` %s" % (f.name, paimon_sql(f.type, f.nullable)) for f in t)
    else:
        raise AssertionError(t)
    return s + nn


def canon(v, t, src=None):
    """Canonical JSON value of a pyarrow-read value (int view for temporal types).

    `src` is the type that was written (same shape as `t`). Whether a timestamp
    is local-time-zone (a trailing Z) comes from it: TIMESTAMP_LTZ(7..9) is
    stored as INT96, which carries no UTC flag, so pyarrow reads it back
    without a zone while Paimon (and Java) know it from the table schema."""
    src = t if src is None else src
    if v is None:
        return None
    if t == pa.float32():
        return "0x%08x" % struct.unpack("<I", struct.pack("<f", v))[0]
    if t == pa.float64():
        return "0x%016x" % struct.unpack("<Q", struct.pack("<d", v))[0]
    if pa.types.is_decimal(t):
        return format(v, "f")
    if pa.types.is_binary(t):
        return base64.b64encode(v).decode()
    if pa.types.is_date32(t):
        return (datetime.date(1970, 1, 1) + datetime.timedelta(days=v)).isoformat()
    if pa.types.is_timestamp(t):
        per = {"s": 1, "ms": 10 ** 3, "us": 10 ** 6, "ns": 10 ** 9}[t.unit]
        sec, frac = divmod(v, per)
        d = EPOCH + datetime.timedelta(seconds=sec)
        return d.strftime("%Y-%m-%dT%H:%M:%S") + ".%09d" % (frac * (10 ** 9 // per)) + ("Z" if src.tz else "")
    if pa.types.is_list(t):
        return [canon(x, t.value_type, src.value_type) for x in v]
    if pa.types.is_map(t):
        return [[canon(k, t.key_type, src.key_type), canon(x, t.item_type, src.item_type)] for k, x in v]
    if pa.types.is_struct(t):
        return {f.name: canon(v[f.name], f.type, src.field(f.name).type) for f in t}
    return v


def rows_pyarrow(path, written):
    t = pq.read_table(path)
    # temporal values as integers of their unit (to_pylist would give datetimes)
    cols = [(f, written.field(f.name).type, t.column(i).cast(gen.int_view(f.type)).to_pylist())
            for i, f in enumerate(t.schema)]
    return [{f.name: canon(vals[r], f.type, src) for f, src, vals in cols} for r in range(t.num_rows)]


@pytest.fixture(scope="module")
def harness():
    jh.build()


def test_java_reads_paimonc_parquet(harness, tmp_path, monkeypatch):
    monkeypatch.setattr(gen, "LEAF_KINDS", [k for k in gen.LEAF_KINDS if k != "large_binary"])
    monkeypatch.setattr(gen, "NESTED_KINDS", [k for k in gen.NESTED_KINDS if k != "vector"])
    monkeypatch.setattr(gen, "TS_LIMITS", {"s": 9 * 10 ** 9, "ms": 9 * 10 ** 12, "us": 9 * 10 ** 15, "ns": 9 * 10 ** 18})
    cmds, files = [], []
    for seed in range(N_FILES):
        rng = random.Random(1000 + seed)
        schema = gen.rand_schema(rng)
        n = rng.choice([1, 5, 50, 300])
        table = gen.make_table(rng, schema, n)
        opts = {"compression": rng.choice(["zstd", "snappy", "gzip", "lz4", "none"])}
        if rng.random() < 0.5:
            opts.update(page_size=rng.choice([64, 1000]), row_group_size=rng.choice([500, 5000]))
        path = tmp_path / ("j%d.parquet" % seed)
        write_table(table, path, **opts)
        row_sql = "ROW<%s>" % ", ".join("`%s` %s" % (f.name, paimon_sql(f.type, f.nullable)) for f in schema)
        tfile = tmp_path / ("j%d.type" % seed)
        tfile.write_text(row_sql)
        cmds.append(["parquet-dump", path, "@%s" % tfile])
        files.append((path, row_sql, schema))
    results, stderr = jh.batch(cmds)
    bad = []
    for (path, row_sql, schema), (rc, out) in zip(files, results):
        if rc != 0:
            bad.append("%s (%s): exit %d" % (path, row_sql, rc))
            continue
        java_rows = [json.loads(line) for line in out.split("\n") if line.strip()]
        py_rows = rows_pyarrow(path, schema)
        if java_rows != py_rows:
            for i, (a, b) in enumerate(zip(java_rows, py_rows)):
                if a != b:
                    bad.append("%s (%s) row %d:\n java:    %s\n pyarrow: %s" % (path, row_sql, i, a, b))
                    break
            else:
                bad.append("%s: %d java rows, %d pyarrow rows" % (path, len(java_rows), len(py_rows)))
    assert not bad, "\n".join(bad) + "\nstderr tail:\n" + stderr[-3000:]
