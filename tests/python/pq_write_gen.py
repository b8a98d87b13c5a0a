"""Random Arrow schemas and data for the Parquet writer tests (shared by the
pyarrow round trip and the Java interop test).

The expected read-back of a value follows the Paimon type mapping the writer
applies (see expected_type/expected_value):
  * timestamp[s] -> TIMESTAMP(0) stored in MILLIS: read back as timestamp[ms], values * 1000
  * timestamp[ns] -> TIMESTAMP(9) stored as INT96: read back as timestamp[ns] without time zone
  * any time zone -> TIMESTAMP_LTZ (isAdjustedToUTC): read back with tz 'UTC'
  * time32[s] / time64[us] / time64[ns] -> TIME stored as INT32 millis: time32[ms], values
    scaled (floor division for finer units)
  * large_string -> string; large_binary, fixed_size_binary -> binary
  * large_list, fixed_size_list -> list (children named 'element')
"""
import decimal
import random
import struct

import pyarrow as pa

LEAF_KINDS = ["int8", "int16", "int32", "int64", "float32", "float64", "bool", "string",
              "large_string", "binary", "large_binary", "fixed_binary", "decimal", "date32",
              "time32ms", "time32s", "time64us", "time64ns", "ts", "ts_tz"]
NESTED_KINDS = ["list", "large_list", "map", "struct", "vector"]

I64_LIM = 1 << 62
# |timestamp| bound per unit (the Java test narrows it to years 1653..2286)
TS_LIMITS = {"s": I64_LIM // 1000, "ms": I64_LIM, "us": I64_LIM, "ns": I64_LIM}


def rand_leaf(rng):
    k = rng.choice(LEAF_KINDS)
    if k in ("int8", "int16", "int32", "int64"):
        return getattr(pa, k)()
    if k == "float32":
        return pa.float32()
    if k == "float64":
        return pa.float64()
    if k == "bool":
        return pa.bool_()
    if k == "string":
        return pa.string()
    if k == "large_string":
        return pa.large_string()
    if k == "binary":
        return pa.binary()
    if k == "large_binary":
        return pa.large_binary()
    if k == "fixed_binary":
        return pa.binary(rng.choice([1, 3, 16]))
    if k == "decimal":
        p = rng.choice([1, 2, 5, 9, 10, 15, 18, 19, 25, 30, 38])
        return pa.decimal128(p, rng.randint(0, p))
    if k == "date32":
        return pa.date32()
    if k == "time32ms":
        return pa.time32("ms")
    if k == "time32s":
        return pa.time32("s")
    if k == "time64us":
        return pa.time64("us")
    if k == "time64ns":
        return pa.time64("ns")
    unit = rng.choice(["s", "ms", "us", "ns"])
    if k == "ts":
        return pa.timestamp(unit)
    return pa.timestamp(unit, tz=rng.choice(["UTC", "Asia/Tokyo"]))


def rand_type(rng, depth, names):
    if depth >= 3 or rng.random() < 0.55:
        return rand_leaf(rng)
    k = rng.choice(NESTED_KINDS)
    if k in ("list", "large_list"):
        f = pa.field("item", rand_type(rng, depth + 1, names), nullable=rng.random() < 0.7)
        return pa.list_(f) if k == "list" else pa.large_list(f)
    if k == "vector":
        return pa.list_(pa.field("item", pa.float32()), rng.choice([1, 2, 3]))
    if k == "map":
        key = rand_leaf(rng)
        while pa.types.is_floating(key):
            key = rand_leaf(rng)
        val = pa.field("value", rand_type(rng, depth + 1, names), nullable=rng.random() < 0.7)
        return pa.map_(pa.field("key", key, nullable=False), val)
    n = rng.randint(1, 3)
    fields = [pa.field("f%d" % next(names), rand_type(rng, depth + 1, names), nullable=rng.random() < 0.7)
              for _ in range(n)]
    return pa.struct(fields)


def rand_schema(rng):
    counter = iter(range(10 ** 6))
    n = rng.randint(1, 6)
    return pa.schema([pa.field("c%d" % i, rand_type(rng, 0, counter), nullable=rng.random() < 0.7)
                      for i in range(n)])


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def rand_value(rng, t, pool):
    """A random non-null Python value for Arrow type t (pool: earlier values, for repeats)."""
    if pool and rng.random() < 0.3:
        return rng.choice(pool)
    v = _rand_value(rng, t)
    if len(pool) < 8:
        pool.append(v)
    return v


def _rand_value(rng, t):
    if pa.types.is_integer(t):
        bits = t.bit_width
        lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        return rng.choice([lo, hi, 0, -1, 1, rng.randint(lo, hi), rng.randint(-100, 100)])
    if pa.types.is_floating(t):
        v = rng.choice([float("nan"), float("inf"), float("-inf"), -0.0, 0.0, 1e-30, -1.5,
                        rng.uniform(-1e6, 1e6), rng.uniform(-1, 1)])
        return f32(v) if t == pa.float32() else v
    if pa.types.is_boolean(t):
        return rng.random() < 0.5
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        r = rng.random()
        if r < 0.15:
            return ""
        if r < 0.25:
            return "\u00e9\u4e2d\U0001F600" * rng.randint(1, 30)
        if r < 0.3:
            return "z" * rng.randint(60, 200)
        return "".join(rng.choice("abcxyz") for _ in range(rng.randint(1, 10)))
    if pa.types.is_fixed_size_binary(t):
        return rng.choice([b"\xff" * t.byte_width, b"\x00" * t.byte_width,
                           bytes(rng.randrange(256) for _ in range(t.byte_width))])
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        r = rng.random()
        if r < 0.15:
            return b""
        if r < 0.25:
            return b"\xff" * rng.randint(60, 80)
        return bytes(rng.randrange(256) for _ in range(rng.randint(1, 12)))
    if pa.types.is_decimal(t):
        lim = 10 ** t.precision - 1
        u = rng.choice([lim, -lim, 0, 1, -1, rng.randint(-lim, lim)])
        return decimal.Context(prec=80).scaleb(decimal.Decimal(u), -t.scale)
    if pa.types.is_date32(t):
        return rng.choice([0, -1, 2932896, -719162, rng.randint(-100000, 100000)])
    if pa.types.is_time32(t) or pa.types.is_time64(t):
        per = {"s": 1, "ms": 1000, "us": 10 ** 6, "ns": 10 ** 9}[t.unit]
        return rng.choice([0, 86400 * per - 1, rng.randrange(86400 * per)])
    if pa.types.is_timestamp(t):
        lim = TS_LIMITS[t.unit]
        small = min(lim, 10 ** 12)
        return rng.choice([0, -1, 1, lim, -lim, rng.randint(-lim, lim), rng.randint(-small, small)])
    raise AssertionError(t)


def rand_data(rng, t, n, nullable, pools):
    """n random Python values (None for null) for type t."""
    out = []
    pnull = rng.choice([0.0, 0.1, 0.5, 1.0]) if nullable else 0.0
    key = str(t)
    pool = pools.setdefault(key, [])
    for _ in range(n):
        if nullable and rng.random() < pnull:
            out.append(None)
            continue
        out.append(_nested_value(rng, t, pools, pool))
    return out


def _nested_value(rng, t, pools, pool):
    if pa.types.is_fixed_size_list(t):
        return rand_data(rng, t.value_type, t.list_size, t.value_field.nullable, pools)
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        n = rng.choice([0, 0, 1, 2, 3, 5])
        return rand_data(rng, t.value_type, n, t.value_field.nullable, pools)
    if pa.types.is_map(t):
        n = rng.choice([0, 1, 2, 3])
        keys = rand_data(rng, t.key_type, n, False, pools)
        vals = rand_data(rng, t.item_type, n, t.item_field.nullable, pools)
        return list(zip(keys, vals))
    if pa.types.is_struct(t):
        return {f.name: rand_data(rng, f.type, 1, f.nullable, pools)[0] for f in t}
    return rand_value(rng, t, pool)


def make_table(rng, schema, n):
    pools = {}
    cols = []
    for f in schema:
        vals = rand_data(rng, f.type, n, f.nullable, pools)
        cols.append(pa.array(_to_arrow_input(vals, f.type), type=f.type))
    return pa.Table.from_arrays(cols, schema=schema)


def _to_arrow_input(vals, t):
    return vals


# ---------------------------------------------------------------- expectations

def expected_type(t):
    if pa.types.is_timestamp(t):
        unit = {"s": "ms"}.get(t.unit, t.unit)
        if t.unit == "ns":
            return pa.timestamp("ns")
        return pa.timestamp(unit, tz="UTC" if t.tz else None)
    if pa.types.is_time32(t) or pa.types.is_time64(t):
        return pa.time32("ms")
    if pa.types.is_large_string(t):
        return pa.string()
    if pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return pa.binary()
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return pa.list_(pa.field("element", expected_type(t.value_type), nullable=t.value_field.nullable))
    if pa.types.is_map(t):
        return pa.map_(pa.field("key", expected_type(t.key_type), nullable=False),
                       pa.field("value", expected_type(t.item_type), nullable=t.item_field.nullable))
    if pa.types.is_struct(t):
        return pa.struct([pa.field(f.name, expected_type(f.type), nullable=f.nullable) for f in t])
    return t


def int_view(t):
    """Same structure with temporal types as integers (for exact comparison)."""
    if pa.types.is_timestamp(t) or pa.types.is_time64(t) or pa.types.is_date64(t):
        return pa.int64()
    if pa.types.is_time32(t) or pa.types.is_date32(t):
        return pa.int32()
    if pa.types.is_list(t):
        return pa.list_(pa.field(t.value_field.name, int_view(t.value_type), nullable=t.value_field.nullable))
    if pa.types.is_large_list(t):
        return pa.large_list(pa.field(t.value_field.name, int_view(t.value_type), nullable=t.value_field.nullable))
    if pa.types.is_fixed_size_list(t):
        return pa.list_(pa.field(t.value_field.name, int_view(t.value_type), nullable=t.value_field.nullable),
                        t.list_size)
    if pa.types.is_map(t):
        return pa.map_(pa.field("key", int_view(t.key_type), nullable=False),
                       pa.field("value", int_view(t.item_type), nullable=t.item_field.nullable))
    if pa.types.is_struct(t):
        return pa.struct([pa.field(f.name, int_view(f.type), nullable=f.nullable) for f in t])
    return t


def expected_value(v, t):
    """Input value (from the int view) -> expected read-back value (int view)."""
    if v is None:
        return None
    if pa.types.is_timestamp(t) and t.unit == "s":
        return v * 1000
    if pa.types.is_time32(t) and t.unit == "s":
        return v * 1000
    if pa.types.is_time64(t):
        return v // (1000 if t.unit == "us" else 10 ** 6)
    if pa.types.is_fixed_size_list(t) or pa.types.is_list(t) or pa.types.is_large_list(t):
        return [expected_value(x, t.value_type) for x in v]
    if pa.types.is_map(t):
        return [(expected_value(k, t.key_type), expected_value(x, t.item_type)) for k, x in v]
    if pa.types.is_struct(t):
        return {f.name: expected_value(v[f.name], f.type) for f in t}
    return v


def norm(v):
    """Comparable form: floats as bit patterns, tuples as lists."""
    if isinstance(v, float):
        return ("f", struct.pack("<d", v))
    if isinstance(v, dict):
        return {k: norm(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [norm(x) for x in v]
    return v


def type_shape(t):
    """Type structure ignoring child field names (list items, map entries)."""
    if pa.types.is_list(t):
        return ("list", type_shape(t.value_type), t.value_field.nullable)
    if pa.types.is_map(t):
        return ("map", type_shape(t.key_type), type_shape(t.item_type), t.item_field.nullable)
    if pa.types.is_struct(t):
        return ("struct", tuple((f.name, type_shape(f.type), f.nullable) for f in t))
    return str(t)
