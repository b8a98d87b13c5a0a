"""Property round trips: pyarrow writes random tables (fixed seeds), our
reader must return what pyarrow's reader returns.

Files are written with store_schema=False so that pyarrow's own read applies
the plain Parquet -> Arrow mapping (ours does not decode ARROW:schema).
"""
import decimal
import os
import random

import pyarrow as pa
import pyarrow.parquet as ppq
import pytest

import paimonc.parquet as pq

N_SCHEMAS = int(os.environ.get("PAIMONC_RT_SCHEMAS", "500"))
CODECS = ["none", "snappy", "gzip", "zstd", "lz4"]

PRIMS = [
    ("bool", pa.bool_()), ("i8", pa.int8()), ("i16", pa.int16()), ("i32", pa.int32()), ("i64", pa.int64()),
    ("u8", pa.uint8()), ("u16", pa.uint16()), ("u32", pa.uint32()), ("u64", pa.uint64()),
    ("f32", pa.float32()), ("f64", pa.float64()), ("str", pa.string()), ("bin", pa.binary()),
    ("date", pa.date32()), ("t32", pa.time32("ms")), ("t64", pa.time64("us")), ("t64n", pa.time64("ns")),
    ("tsms", pa.timestamp("ms")), ("tsus", pa.timestamp("us", tz="UTC")), ("tsns", pa.timestamp("ns")),
    ("dec5", pa.decimal128(5, 2)), ("dec18", pa.decimal128(18, 4)), ("dec38", pa.decimal128(38, 10)),
    ("fsb", pa.binary(7)), ("f16", pa.float16()),
]


def rand_value(rnd, t):
    if pa.types.is_boolean(t):
        return rnd.random() < 0.5
    if pa.types.is_integer(t):
        bits = t.bit_width
        lo, hi = (0, 2 ** bits - 1) if pa.types.is_unsigned_integer(t) else (-2 ** (bits - 1), 2 ** (bits - 1) - 1)
        r = rnd.random()
        if r < 0.1:
            return lo
        if r < 0.2:
            return hi
        if r < 0.6:
            return rnd.randint(max(lo, -5), min(hi, 5))
        return rnd.randint(lo, hi)
    if pa.types.is_float16(t):
        return None
    if pa.types.is_floating(t):
        return rnd.choice([0.0, -0.0, 1.5, -2.25, 1e300 if t.bit_width == 64 else 3e38, rnd.uniform(-1e6, 1e6)])
    if pa.types.is_string(t):
        return rnd.choice(["", "a", "hello", "ünïcødé", "x" * rnd.randint(0, 300), str(rnd.random())])
    if pa.types.is_fixed_size_binary(t):
        return bytes(rnd.randrange(256) for _ in range(t.byte_width))
    if pa.types.is_binary(t):
        return bytes(rnd.randrange(256) for _ in range(rnd.randint(0, 40)))
    if pa.types.is_date(t):
        return rnd.randint(-100000, 100000)
    if pa.types.is_time32(t):
        return rnd.randint(0, 86400 * 1000 - 1)
    if pa.types.is_time64(t):
        return rnd.randint(0, 86400 * 10 ** (6 if t.unit == "us" else 9) - 1)
    if pa.types.is_timestamp(t):
        lim = {"ms": 10 ** 14, "us": 10 ** 17, "ns": 9 * 10 ** 18}[t.unit]
        return rnd.randint(-lim, lim)
    if pa.types.is_decimal(t):
        digits = rnd.randint(0, t.precision)
        v = rnd.randint(-(10 ** digits - 1), 10 ** digits - 1)
        return decimal.Decimal(v).scaleb(-t.scale)
    raise AssertionError(t)


def rand_type(rnd, depth):
    r = rnd.random()
    if depth >= 3 or r < 0.55:
        return rnd.choice(PRIMS)[1]
    if r < 0.75:
        return pa.list_(pa.field("element", rand_type(rnd, depth + 1), nullable=rnd.random() < 0.7))
    if r < 0.87:
        n = rnd.randint(1, 3)
        return pa.struct([pa.field("f%d" % i, rand_type(rnd, depth + 1), nullable=rnd.random() < 0.7)
                          for i in range(n)])
    key = rnd.choice([pa.int32(), pa.string(), pa.int64()])
    return pa.map_(key, rand_type(rnd, depth + 1))


def has_list(t):
    if pa.types.is_list(t) or pa.types.is_map(t):
        return True
    if pa.types.is_struct(t):
        return any(has_list(f.type) for f in t)
    return False


def rand_data(rnd, t, n, null_p):
    if pa.types.is_float16(t):
        import numpy as np
        vals = np.array([rnd.uniform(-100, 100) for _ in range(n)], dtype=np.float16)
        mask = np.array([rnd.random() < null_p for _ in range(n)], dtype=bool)
        return pa.array(vals, type=t, mask=mask)
    if pa.types.is_list(t):
        nulls = [rnd.random() < null_p for _ in range(n)]
        lens = [0 if nulls[i] else rnd.choice([0, 0, 1, 2, 3, 5]) for i in range(n)]
        child = rand_data(rnd, t.value_type, sum(lens), null_p if t.value_field.nullable else 0)
        offs = [0]
        for x in lens:
            offs.append(offs[-1] + x)
        mask = pa.array(nulls, pa.bool_())
        return pa.ListArray.from_arrays(pa.array(offs, pa.int32()), child, type=t, mask=mask)
    if pa.types.is_struct(t):
        kids = [rand_data(rnd, f.type, n, null_p if f.nullable else 0) for f in t]
        # pyarrow cannot write a null struct over non-empty lists: no struct
        # nulls when a list or map sits below.
        sp = 0 if has_list(t) else null_p
        mask = pa.array([rnd.random() < sp for _ in range(n)], pa.bool_())
        return pa.StructArray.from_arrays(kids, fields=list(t), mask=mask)
    if pa.types.is_map(t):
        nulls = [rnd.random() < null_p for _ in range(n)]
        lens = [0 if nulls[i] else rnd.choice([0, 1, 2, 4]) for i in range(n)]
        tot = sum(lens)
        keys = pa.array(list(range(tot)) if not pa.types.is_string(t.key_type) else ["k%d" % i for i in range(tot)],
                        t.key_type)
        items = rand_data(rnd, t.item_type, tot, null_p)
        offs = [0]
        for x in lens:
            offs.append(offs[-1] + x)
        mask = pa.array(nulls, pa.bool_())
        return pa.MapArray.from_arrays(pa.array(offs, pa.int32()), keys, items, mask=mask)
    vals = [None if rnd.random() < null_p else rand_value(rnd, t) for _ in range(n)]
    return pa.array(vals, type=t)


def rand_table(seed):
    rnd = random.Random(seed)
    ncols = rnd.randint(1, 6)
    n = rnd.choice([0, 1, 2, 17, 100, 1000, 5000])
    fields, cols = [], []
    for i in range(ncols):
        t = rand_type(rnd, 0)
        nullable = rnd.random() < 0.75
        null_p = rnd.choice([0.0, 0.1, 0.5, 1.0]) if nullable else 0.0
        fields.append(pa.field("c%d" % i, t, nullable=nullable))
        cols.append(rand_data(rnd, t, n, null_p))
    opts = dict(
        compression=CODECS[seed % len(CODECS)],
        data_page_version=rnd.choice(["1.0", "2.0"]),
        use_dictionary=rnd.random() < 0.6,
        row_group_size=rnd.choice([None, 7, 100, 1000]),
        data_page_size=rnd.choice([None, 64, 4096]),
        write_batch_size=rnd.choice([None, 16]),
        store_schema=False,
    )
    if rnd.random() < 0.15 and not opts["use_dictionary"]:
        opts["column_encoding"] = {}
        for f in fields:
            if f.type in (pa.int32(), pa.int64()):
                opts["column_encoding"][f.name] = rnd.choice(["DELTA_BINARY_PACKED", "PLAIN"])
            elif f.type in (pa.float32(), pa.float64()):
                opts["column_encoding"][f.name] = "BYTE_STREAM_SPLIT"
            elif f.type in (pa.string(), pa.binary()):
                opts["column_encoding"][f.name] = rnd.choice(["DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY"])
        if not opts["column_encoding"]:
            del opts["column_encoding"]
    opts = {k: v for k, v in opts.items() if v is not None}
    return pa.Table.from_arrays(cols, schema=pa.schema(fields)), opts


@pytest.mark.parametrize("seed", range(N_SCHEMAS))
def test_roundtrip(seed, tmp_path):
    table, opts = rand_table(seed)
    path = str(tmp_path / "t.parquet")
    ppq.write_table(table, path, **opts)
    exp = ppq.read_table(path)
    got = pa.table(pq.read_table(path, batch_rows=random.Random(seed).choice([0, 1, 33, 4096])))
    assert got.schema.equals(exp.schema), "%s\n---\n%s" % (got.schema, exp.schema)
    assert got.num_rows == exp.num_rows
    if not got.equals(exp):
        for name in exp.column_names:
            a, b = got[name].to_pylist(), exp[name].to_pylist()
            assert repr(a) == repr(b), (name, opts)


@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("dictionary", [True, False])
def test_matrix_flat(version, codec, dictionary, tmp_path):
    rnd = random.Random(hash((version, codec, dictionary)) & 0xffff)
    n = 30000
    table = pa.table({
        "i": pa.array([None if i % 7 == 0 else i * 3 for i in range(n)], pa.int64()),
        "s": pa.array([None if i % 11 == 0 else "v%d" % (i % 500) for i in range(n)]),
        "d": pa.array([rnd.random() for _ in range(n)]),
        "b": pa.array([i % 3 == 0 for i in range(n)]),
        "l": pa.array([[j for j in range(i % 4)] if i % 5 else None for i in range(n)], pa.list_(pa.int32())),
    })
    path = str(tmp_path / "m.parquet")
    ppq.write_table(table, path, compression=codec, data_page_version=version, use_dictionary=dictionary,
                    row_group_size=12345, data_page_size=8192, store_schema=False)
    assert pa.table(pq.read_table(path)).equals(ppq.read_table(path))
