"""Random Paimon append tables and write plans for interop tests (fixed seeds).

A *plan* is plain data (JSON-serialisable) that every writer (pypaimon, Java, paimonc) can
execute step by step:

    {"table": "t_<seed>",
     "schema": {"fields": [{"id", "name", "type"}...], "partitionKeys": [...],
                "primaryKeys": [], "options": {...}, "comment": null},   # Paimon schema JSON
     "steps": [{"op": "write", "rows": [{col: canonical value}...],
                "overwrite": false | true, "partition": null | {col: canonical value}},
               {"op": "alter", "changes": [<harness alter change>...]}, ...]}

Values are in the canonical JSON encoding of java-interop.md §4.3 (the same one the Java
harness's table-write reads and table-read prints):

    BOOLEAN bool, TINYINT..BIGINT int, FLOAT/DOUBLE "0x<IEEE bits>" (8/16 hex digits),
    DECIMAL plain string with exactly s fraction digits, CHAR/VARCHAR/STRING str,
    BINARY/VARBINARY/BYTES standard base64, DATE "YYYY-MM-DD", TIME(p) int ms of day,
    TIMESTAMP(p) "YYYY-MM-DDTHH:MM:SS.fffffffff", TIMESTAMP_LTZ(p) the same + "Z" (UTC),
    ARRAY list, MAP [[k, v], ...], ROW {field: value}; null at every level.

`expected(plan)` computes the final table (list of canonical rows) in Python,
`to_arrow(rows, fields)` / `from_arrow(table, fields)` convert between canonical rows and
pyarrow tables shaped like pypaimon's Paimon->Arrow mapping, and `canonical_rows` sorts
rows for order-insensitive comparison.

Exclusions (value ranges chosen so every peer's conversions survive them):
* TIME only up to TIME(3): pypaimon maps every TIME(p) to time32('ms'); values are rounded to
  the declared precision.
* Timestamps: years 1700..2250 (pyarrow's ns unit is int64 nanos: 1677..2262), fractions
  rounded to the declared precision (Parquet stores TIMESTAMP(p<=3) as millis, p<=6 as micros).
* FLOAT/DOUBLE: no NaN (NaN payload bits are not guaranteed to survive every path); -0.0,
  +-inf and subnormals are generated.
* Partition keys: INT/STRING/DATE/BOOLEAN from a small domain (so partitions repeat), null
  included; STRING values include path-special characters (`/ = % : # ? space`, non-ASCII),
  which pypaimon 2.1.0 escapes exactly like Java (checked), and "" (stored in the directory
  of the default partition like null, but read back as "" by both peers).
* MAP keys: INT/BIGINT/STRING/DATE, unique per map, non-null (Paimon map keys are NOT NULL).
* No VARIANT/BLOB/VECTOR/MULTISET (BLOB/VECTOR need data-evolution tables; MULTISET has no
  pyarrow mapping in pypaimon).
* GEN_FLAGS lets a test switch off type families (see `GEN_FLAGS`).
"""
import base64
import copy
import datetime
import decimal
import json
import random
import struct

import pyarrow as pa

# ------------------------------------------------------------------------------------ types
#
# A type is a dict: {"k": kind, "null": bool, ...}. Kinds and extra keys:
#   BOOLEAN TINYINT SMALLINT INT BIGINT FLOAT DOUBLE STRING BYTES DATE
#   DECIMAL p s | CHAR n | VARCHAR n | BINARY n | VARBINARY n | TIME p | TIMESTAMP p | LTZ p
#   ARRAY elem | MAP key val | ROW fields=[(id, name, type)]

GEN_FLAGS = {
    "ts_high_precision": True,   # TIMESTAMP(7..9)/LTZ(7..9)
    "nested": True,              # ARRAY/MAP/ROW columns
    "decimal_wide": True,        # DECIMAL with p > 18
    "ltz": True,                 # TIMESTAMP_LTZ
    "char_types": True,          # CHAR(n)/VARCHAR(n)/BINARY(n)/VARBINARY(n) (else STRING/BYTES)
    "time": True,                # TIME(p)
    "partition_kinds": ("INT", "STRING", "DATE", "BOOLEAN"),
    "float_specials": True,      # -0.0, +-inf, subnormals
}

LEAF_KINDS = ["BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL",
              "CHAR", "VARCHAR", "STRING", "BINARY", "VARBINARY", "BYTES", "DATE", "TIME",
              "TIMESTAMP", "LTZ"]


def sql(t):
    """Paimon SQL string of a type (DataType.toString() form)."""
    k = t["k"]
    if k == "DECIMAL":
        s = "DECIMAL(%d, %d)" % (t["p"], t["s"])
    elif k in ("CHAR", "VARCHAR", "BINARY", "VARBINARY"):
        s = "%s(%d)" % (k, t["n"])
    elif k == "TIME":
        s = "TIME(%d)" % t["p"]
    elif k == "TIMESTAMP":
        s = "TIMESTAMP(%d)" % t["p"]
    elif k == "LTZ":
        s = "TIMESTAMP(%d) WITH LOCAL TIME ZONE" % t["p"]
    elif k == "ARRAY":
        s = "ARRAY<%s>" % sql(t["elem"])
    elif k == "MAP":
        s = "MAP<%s, %s>" % (sql(t["key"]), sql(t["val"]))
    elif k == "ROW":
        s = "ROW<%s>" % ", ".join("`%s` %s" % (n, sql(ft)) for _, n, ft in t["fields"])
    else:
        s = k
    return s if t["null"] else s + " NOT NULL"


def type_json(t):
    """Type in Paimon's schema-file JSON (atomic: SQL string; nested: objects with ids)."""
    nn = "" if t["null"] else " NOT NULL"
    k = t["k"]
    if k == "ARRAY":
        return {"type": "ARRAY" + nn, "element": type_json(t["elem"])}
    if k == "MAP":
        return {"type": "MAP" + nn, "key": type_json(t["key"]), "value": type_json(t["val"])}
    if k == "ROW":
        return {"type": "ROW" + nn,
                "fields": [{"id": fid, "name": n, "type": type_json(ft)} for fid, n, ft in t["fields"]]}
    return sql(t)


def arrow_type(t):
    """pyarrow type as pypaimon's PyarrowFieldParser.from_paimon_type maps it."""
    k = t["k"]
    simple = {"BOOLEAN": pa.bool_(), "TINYINT": pa.int8(), "SMALLINT": pa.int16(), "INT": pa.int32(),
              "BIGINT": pa.int64(), "FLOAT": pa.float32(), "DOUBLE": pa.float64(), "STRING": pa.string(),
              "CHAR": pa.string(), "VARCHAR": pa.string(), "BYTES": pa.binary(), "BINARY": pa.binary(),
              "VARBINARY": pa.binary(), "DATE": pa.date32(), "TIME": pa.time32("ms")}
    if k in simple:
        return simple[k]
    if k == "DECIMAL":
        return pa.decimal128(t["p"], t["s"])
    if k in ("TIMESTAMP", "LTZ"):
        p = t["p"]
        unit = "s" if p == 0 else "ms" if p <= 3 else "us" if p <= 6 else "ns"
        return pa.timestamp(unit, tz="UTC" if k == "LTZ" else None)
    if k == "ARRAY":
        return pa.list_(pa.field("item", arrow_type(t["elem"]), nullable=t["elem"]["null"]))
    if k == "MAP":
        return pa.map_(pa.field("key", arrow_type(t["key"]), nullable=False),
                       pa.field("value", arrow_type(t["val"]), nullable=t["val"]["null"]))
    if k == "ROW":
        return pa.struct([pa.field(n, arrow_type(ft), nullable=ft["null"]) for _, n, ft in t["fields"]])
    raise AssertionError(k)


def arrow_schema(fields):
    """fields: [(id, name, type)] -> pyarrow schema."""
    return pa.schema([pa.field(n, arrow_type(t), nullable=t["null"]) for _, n, t in fields])


def schema_json(fields, partition_keys, options=None):
    return {"fields": [{"id": fid, "name": n, "type": type_json(t)} for fid, n, t in fields],
            "partitionKeys": list(partition_keys), "primaryKeys": [],
            "options": dict(options or {}), "comment": None}


def fields_from_schema_json(sj):
    """Inverse of schema_json (for plans loaded from JSON)."""
    return [(f["id"], f["name"], parse_type_json(f["type"])) for f in sj["fields"]]


def parse_type_json(j):
    if isinstance(j, dict):
        base = j["type"]
        null = not base.endswith("NOT NULL")
        k = base.split()[0]
        if k == "ARRAY":
            return {"k": "ARRAY", "null": null, "elem": parse_type_json(j["element"])}
        if k == "MAP":
            return {"k": "MAP", "null": null, "key": parse_type_json(j["key"]), "val": parse_type_json(j["value"])}
        return {"k": "ROW", "null": null,
                "fields": [(f["id"], f["name"], parse_type_json(f["type"])) for f in j["fields"]]}
    s = j
    null = True
    if s.endswith(" NOT NULL"):
        s, null = s[:-9], False
    if s.endswith(" WITH LOCAL TIME ZONE"):
        return {"k": "LTZ", "null": null, "p": int(s[s.index("(") + 1:s.index(")")])}
    if "(" in s:
        k = s[:s.index("(")]
        args = [int(x) for x in s[s.index("(") + 1:s.index(")")].split(",")]
        if k == "DECIMAL":
            return {"k": k, "null": null, "p": args[0], "s": args[1]}
        if k in ("TIME", "TIMESTAMP"):
            return {"k": k, "null": null, "p": args[0]}
        return {"k": k, "null": null, "n": args[0]}
    return {"k": s, "null": null}


# ------------------------------------------------------------------------------------ schema


class _Ids:
    def __init__(self, start=0):
        self.next = start

    def take(self):
        v = self.next
        self.next += 1
        return v


def rand_leaf(rng, kinds=None, null=True):
    kinds = kinds or LEAF_KINDS
    k = rng.choice(kinds)
    if k == "DECIMAL":
        pmax = 38 if GEN_FLAGS["decimal_wide"] else 18
        p = rng.choice([1, 5, 9, 10, 18, 19, 28, 38, rng.randint(1, pmax)])
        p = min(p, pmax)
        return {"k": k, "null": null, "p": p, "s": rng.randint(0, p)}
    if k in ("CHAR", "VARCHAR", "BINARY", "VARBINARY"):
        if not GEN_FLAGS["char_types"]:
            return {"k": "STRING" if k in ("CHAR", "VARCHAR") else "BYTES", "null": null}
        return {"k": k, "null": null, "n": rng.choice([1, 3, 10, 40])}
    if k == "TIME":
        if not GEN_FLAGS["time"]:
            return {"k": "INT", "null": null}
        return {"k": k, "null": null, "p": rng.randint(0, 3)}
    if k in ("TIMESTAMP", "LTZ"):
        if k == "LTZ" and not GEN_FLAGS["ltz"]:
            k = "TIMESTAMP"
        pmax = 9 if GEN_FLAGS["ts_high_precision"] else 6
        return {"k": k, "null": null, "p": rng.randint(0, pmax)}
    return {"k": k, "null": null}


def rand_type(rng, ids, depth=0):
    null = rng.random() < 0.8
    if GEN_FLAGS["nested"] and depth < 2 and rng.random() < (0.25 if depth == 0 else 0.15):
        k = rng.choice(["ARRAY", "MAP", "ROW"])
        if k == "ARRAY":
            return {"k": k, "null": null, "elem": rand_type(rng, ids, depth + 1)}
        if k == "MAP":
            key = rand_leaf(rng, ["INT", "BIGINT", "STRING", "DATE"], null=False)
            return {"k": k, "null": null, "key": key, "val": rand_type(rng, ids, depth + 1)}
        n = rng.randint(1, 3)
        fields = []
        for i in range(n):
            fid = ids.take()
            fields.append((fid, "f%d" % i, rand_type(rng, ids, depth + 1)))
        return {"k": "ROW", "null": null, "fields": fields}
    return rand_leaf(rng, null=null)


def rand_schema(rng):
    """-> (fields [(id, name, type)], partition_keys, next_field_id)."""
    ids = _Ids(0)
    fields = []
    ncols = rng.randint(1, 8)
    for i in range(ncols):
        fid = ids.take()
        fields.append((fid, "c%d" % i, rand_type(rng, ids)))
    # partition keys: dedicated columns of the allowed kinds
    nparts = rng.choice([0, 0, 1, 1, 2])
    pkeys = []
    for j in range(nparts):
        k = rng.choice(list(GEN_FLAGS["partition_kinds"]))
        fid = ids.take()
        name = "p%d" % j
        fields.insert(rng.randint(0, len(fields)), (fid, name, {"k": k, "null": rng.random() < 0.5}))
        pkeys.append(name)
    return fields, pkeys, ids.next


# ------------------------------------------------------------------------------------ values

EPOCH_DATE = datetime.date(1970, 1, 1)
EPOCH_DT = datetime.datetime(1970, 1, 1)
TS_MIN = datetime.datetime(1700, 1, 1)
TS_MAX = datetime.datetime(2250, 12, 31)
_ALNUM = "abcdefghijklmnopqrstuvwxyz0123456789"
_CHARS = _ALNUM + "ABC _-./:=%\"'\\\n\té中文ß€😀𝄞"


def f32_bits(x):
    return "0x%08x" % struct.unpack("<I", struct.pack("<f", x))[0]


def f64_bits(x):
    return "0x%016x" % struct.unpack("<Q", struct.pack("<d", x))[0]


def bits_f32(s):
    return struct.unpack("<f", struct.pack("<I", int(s, 16)))[0]


def bits_f64(s):
    return struct.unpack("<d", struct.pack("<Q", int(s, 16)))[0]


def rand_str(rng, n, alphabet=_CHARS):
    return "".join(rng.choice(alphabet) for _ in range(n))


def rand_value(rng, t, part=False):
    """A canonical value of type t (None with some probability when nullable)."""
    if part:
        return _part_value(rng, t)
    if t["null"] and rng.random() < 0.15:
        return None
    k = t["k"]
    if k == "BOOLEAN":
        return rng.random() < 0.5
    if k in ("TINYINT", "SMALLINT", "INT", "BIGINT"):
        bits = {"TINYINT": 8, "SMALLINT": 16, "INT": 32, "BIGINT": 64}[k]
        lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        r = rng.random()
        if r < 0.1:
            return rng.choice([lo, hi, 0, -1, 1])
        if r < 0.5:
            return rng.randint(max(lo, -1000), min(hi, 1000))
        return rng.randint(lo, hi)
    if k in ("FLOAT", "DOUBLE"):
        r = rng.random()
        if GEN_FLAGS["float_specials"] and r < 0.1:
            x = rng.choice([0.0, -0.0, float("inf"), float("-inf"), 1e-310 if k == "DOUBLE" else 1e-40])
        elif r < 0.5:
            x = rng.randint(-10000, 10000) / 4.0
        else:
            x = rng.uniform(-1, 1) * 10 ** rng.randint(-20, 30)
        return f32_bits(x) if k == "FLOAT" else f64_bits(x)
    if k == "DECIMAL":
        p, s = t["p"], t["s"]
        digits = rng.randint(1, p)
        unscaled = rng.randint(0, 10 ** digits - 1)
        # tuple form: no rounding to the decimal context's 28 digits
        d = decimal.Decimal((rng.randint(0, 1) if unscaled else 0, tuple(int(c) for c in str(unscaled)), -s))
        return format(d, "f")
    if k == "CHAR":
        return rand_str(rng, t["n"])
    if k == "VARCHAR":
        return rand_str(rng, rng.randint(0, t["n"]))
    if k == "STRING":
        return rand_str(rng, rng.choice([0, 1, 5, 20, 100]))
    if k in ("BINARY", "VARBINARY", "BYTES"):
        n = t["n"] if k == "BINARY" else rng.randint(0, t["n"]) if k == "VARBINARY" else rng.choice([0, 1, 7, 64])
        return base64.b64encode(bytes(rng.randrange(256) for _ in range(n))).decode()
    if k == "DATE":
        lo, hi = datetime.date(1, 1, 1).toordinal(), datetime.date(9999, 12, 31).toordinal()
        if rng.random() < 0.7:
            lo, hi = datetime.date(1900, 1, 1).toordinal(), datetime.date(2100, 1, 1).toordinal()
        return datetime.date.fromordinal(rng.randint(lo, hi)).isoformat()
    if k == "TIME":
        step = 10 ** (3 - t["p"])
        return rng.randrange(0, 86_400_000, step)
    if k in ("TIMESTAMP", "LTZ"):
        span = int((TS_MAX - TS_MIN).total_seconds())
        sec = rng.randint(0, span)
        step = 10 ** (9 - t["p"])
        nanos = rng.randrange(0, 10 ** 9, step) if rng.random() < 0.8 else 0
        d = TS_MIN + datetime.timedelta(seconds=sec)
        return d.strftime("%Y-%m-%dT%H:%M:%S") + ".%09d" % nanos + ("Z" if k == "LTZ" else "")
    if k == "ARRAY":
        return [rand_value(rng, t["elem"]) for _ in range(rng.choice([0, 1, 2, 3, 5]))]
    if k == "MAP":
        keys, out = set(), []
        for _ in range(rng.choice([0, 1, 2, 4])):
            kv = rand_value(rng, t["key"])
            if kv in keys:
                continue
            keys.add(kv)
            out.append([kv, rand_value(rng, t["val"])])
        return out
    if k == "ROW":
        return {n: rand_value(rng, ft) for _, n, ft in t["fields"]}
    raise AssertionError(k)


PART_STRINGS = ["a", "b", "x1", "", "a b", "x/y", "a=b", "p%q", "中", "A:B", "#?"]


def _part_value(rng, t):
    """Partition values: a small domain so partitions repeat; null (the default partition)
    when nullable."""
    if t["null"] and rng.random() < 0.15:
        return None
    k = t["k"]
    if k == "INT":
        return rng.choice([-3, 0, 1, 7, 2024])
    if k == "STRING":
        return rng.choice(PART_STRINGS)
    if k == "DATE":
        return rng.choice(["2024-05-14", "1970-01-01", "1999-12-31"])
    if k == "BOOLEAN":
        return rng.random() < 0.5
    raise AssertionError(k)


def rand_rows(rng, fields, pkeys, n, fixed=None):
    rows = []
    for _ in range(n):
        row = {}
        for _, name, t in fields:
            if fixed and name in fixed:
                row[name] = fixed[name]
            else:
                row[name] = rand_value(rng, t, part=name in pkeys)
        rows.append(row)
    return rows


# ------------------------------------------------------------------------------------ plans

def rand_plan(seed, allow_changes=True):
    rng = random.Random(seed)
    fields, pkeys, next_id = rand_schema(rng)
    plan = {"table": "t_%d" % seed, "seed": seed,
            "schema": schema_json(fields, pkeys, {"bucket": "-1"}), "steps": []}
    cur = copy.deepcopy(fields)
    nwrites = rng.randint(2, 5)
    overwrite_at = rng.randint(1, nwrites - 1)
    for w in range(nwrites):
        if w > 0 and allow_changes and rng.random() < 0.6:
            change, cur, next_id = _rand_change(rng, cur, pkeys, next_id)
            if change:
                plan["steps"].append({"op": "alter", "changes": [change]})
        step = {"op": "write", "overwrite": False, "partition": None}
        if w == overwrite_at:
            step["overwrite"] = True
            n = rng.randint(1, 20)
            fixed = None
            if pkeys and rng.random() < 0.6:
                fixed = {k: _part_value(rng, dict(_ftype(cur, k))) for k in pkeys}
                step["partition"] = fixed
            step["rows"] = rand_rows(rng, cur, pkeys, n, fixed)
        else:
            step["rows"] = rand_rows(rng, cur, pkeys, rng.choice([1, 3, 10, 40, 100]))
        plan["steps"].append(step)
    return plan


def _ftype(fields, name):
    for _, n, t in fields:
        if n == name:
            return t
    raise KeyError(name)


def _rand_change(rng, fields, pkeys, next_id):
    """One schema change on top-level columns -> (change or None, new fields, next id)."""
    fields = copy.deepcopy(fields)
    others = [f for f in fields if f[1] not in pkeys]
    ops = ["addColumn", "renameColumn"]
    if len(others) > 1:
        ops.append("dropColumn")
    widen = [f for f in others if f[2]["k"] in ("INT", "FLOAT")]
    if widen:
        ops += ["updateColumnType"] * 2
    op = rng.choice(ops)
    if op == "addColumn":
        ids = _Ids(next_id)
        fid = ids.take()
        name = "a%d" % fid
        t = rand_type(rng, ids)
        t["null"] = True  # Paimon only adds nullable columns
        fields.append((fid, name, t))
        return {"op": op, "name": name, "type": type_json(t)}, fields, ids.next
    if op == "renameColumn":
        if not others:
            return None, fields, next_id
        f = rng.choice(others)
        new = f[1] + "_r"
        fields[fields.index(f)] = (f[0], new, f[2])
        return {"op": op, "name": f[1], "newName": new}, fields, next_id
    if op == "dropColumn":
        f = rng.choice(others)
        fields.remove(f)
        return {"op": op, "name": f[1]}, fields, next_id
    f = rng.choice(widen)
    nt = dict(f[2])
    nt["k"] = "BIGINT" if f[2]["k"] == "INT" else "DOUBLE"
    fields[fields.index(f)] = (f[0], f[1], nt)
    # the type string carries the nullability, so keepNullability is not needed (paimonc
    # does not support keep_nullability=True)
    return {"op": op, "name": f[1], "type": sql(nt), "keepNullability": False}, fields, next_id


def plan_fields(plan, upto=None):
    """Fields (id, name, type) after the steps [0, upto)."""
    fields = fields_from_schema_json(plan["schema"])
    next_id = max_field_id(fields) + 1
    for step in plan["steps"][:upto]:
        if step["op"] == "alter":
            for ch in step["changes"]:
                fields, next_id = apply_change(fields, ch, next_id)
    return fields


def max_field_id(fields):
    m = -1
    for fid, _, t in fields:
        m = max(m, fid, _max_nested_id(t))
    return m


def _max_nested_id(t):
    m = -1
    if t["k"] == "ROW":
        for fid, _, ft in t["fields"]:
            m = max(m, fid, _max_nested_id(ft))
    elif t["k"] == "ARRAY":
        m = _max_nested_id(t["elem"])
    elif t["k"] == "MAP":
        m = max(_max_nested_id(t["key"]), _max_nested_id(t["val"]))
    return m


def apply_change(fields, ch, next_id):
    fields = list(fields)
    op = ch["op"]
    if op == "addColumn":
        t = parse_type_json(ch["type"])
        fields.append((next_id, ch["name"], t))
        return fields, max(next_id + 1, _max_nested_id(t) + 1)
    for i, (fid, n, t) in enumerate(fields):
        if n == ch["name"]:
            if op == "renameColumn":
                fields[i] = (fid, ch["newName"], t)
            elif op == "dropColumn":
                del fields[i]
            elif op == "updateColumnType":
                nt = parse_type_json(ch["type"])
                nt["null"] = t["null"]
                fields[i] = (fid, n, nt)
            return fields, next_id
    raise KeyError(ch)


def widen_value(v, old, new):
    if v is None or old["k"] == new["k"]:
        return v
    if old["k"] == "FLOAT" and new["k"] == "DOUBLE":
        return f64_bits(bits_f32(v))
    return v


def expected(plan):
    """Final contents: canonical rows keyed by the final column names.

    Overwrite follows Paimon's default `dynamic-partition-overwrite=true` (Java and pypaimon
    alike): on a partitioned table an overwrite replaces only the partitions it writes to;
    on an unpartitioned one it replaces everything."""
    fields = fields_from_schema_json(plan["schema"])
    pkeys = plan["schema"]["partitionKeys"]
    next_id = max_field_id(fields) + 1
    rows = []  # each row: {field id: value}
    for step in plan["steps"]:
        if step["op"] == "alter":
            for ch in step["changes"]:
                old = {fid: t for fid, _, t in fields}
                fields, next_id = apply_change(fields, ch, next_id)
                new = {fid: t for fid, _, t in fields}
                for r in rows:
                    for fid in list(r):
                        if fid not in new:
                            del r[fid]
                        else:
                            r[fid] = widen_value(r[fid], old[fid], new[fid])
            continue
        by_name = {n: fid for fid, n, _ in fields}
        new_rows = [{by_name[n]: v for n, v in row.items()} for row in step["rows"]]
        if step["overwrite"]:
            pids = [by_name[k] for k in pkeys]
            if not pids:
                rows = []
            else:
                hit = {tuple(r.get(p) for p in pids) for r in new_rows}
                rows = [r for r in rows if tuple(r.get(p) for p in pids) not in hit]
        rows.extend(new_rows)
    return [{n: r.get(fid) for fid, n, _ in fields} for r in rows]


# ------------------------------------------------------------------------------------ arrow

def literal(v, t):
    """Canonical value -> the Python object pypaimon-style predicate builders take."""
    if v is None:
        return None
    k = t["k"]
    if k == "DATE":
        return datetime.date.fromisoformat(v)
    if k in ("TIMESTAMP", "LTZ"):
        s = v.rstrip("Z")
        d = datetime.datetime.strptime(s[:19], "%Y-%m-%dT%H:%M:%S").replace(microsecond=int(s[20:26]))
        return d.replace(tzinfo=datetime.timezone.utc) if k == "LTZ" else d
    return _to_py(v, t)


def _to_py(v, t):
    """Canonical value -> python object pyarrow accepts for _int_view(arrow_type(t))."""
    if v is None:
        return None
    k = t["k"]
    if k == "FLOAT":
        return bits_f32(v)
    if k == "DOUBLE":
        return bits_f64(v)
    if k == "DECIMAL":
        return decimal.Decimal(v)
    if k in ("BINARY", "VARBINARY", "BYTES"):
        return base64.b64decode(v)
    if k == "DATE":
        return (datetime.date.fromisoformat(v) - EPOCH_DATE).days
    if k == "TIME":
        return v  # time32('ms') from int
    if k in ("TIMESTAMP", "LTZ"):
        return _ts_int(v, t["p"])
    if k == "ARRAY":
        return [_to_py(x, t["elem"]) for x in v]
    if k == "MAP":
        return [(_to_py(a, t["key"]), _to_py(b, t["val"])) for a, b in v]
    if k == "ROW":
        return {n: _to_py(v.get(n), ft) for _, n, ft in t["fields"]}
    return v


def _ts_int(s, p):
    """'YYYY-MM-DDTHH:MM:SS.fffffffff[Z]' -> integer in the arrow unit for precision p."""
    s = s.rstrip("Z")
    d = datetime.datetime.strptime(s[:19], "%Y-%m-%dT%H:%M:%S")
    nanos = int(s[20:29]) if len(s) > 19 else 0
    secs = (d - EPOCH_DT) // datetime.timedelta(seconds=1)
    unit = 1 if p == 0 else 10 ** 3 if p <= 3 else 10 ** 6 if p <= 6 else 10 ** 9
    return secs * unit + nanos // (10 ** 9 // unit)


def _int_view(at):
    """Arrow type with temporal leaves replaced by their integer storage (for to_pylist).
    Every child is nullable: a reader may leave nulls in a NOT NULL child under a null parent,
    and a cast to a non-nullable child refuses that."""
    if pa.types.is_timestamp(at):
        return pa.int64()
    if pa.types.is_date32(at) or pa.types.is_time32(at):
        return pa.int32()
    if pa.types.is_time64(at):
        return pa.int64()
    if pa.types.is_list(at) or pa.types.is_large_list(at):
        return pa.list_(pa.field("item", _int_view(at.value_type)))
    if pa.types.is_map(at):
        return pa.map_(pa.field("key", _int_view(at.key_type), nullable=False),
                       pa.field("value", _int_view(at.item_type)))
    if pa.types.is_struct(at):
        return pa.struct([pa.field(f.name, _int_view(f.type)) for f in at])
    return at


def to_arrow(rows, fields):
    """Canonical rows -> pyarrow table with arrow_schema(fields)."""
    schema = arrow_schema(fields)
    arrays = []
    for (_, name, t), f in zip(fields, schema):
        # pyarrow takes integers of the unit for date32/time32/timestamp directly
        arrays.append(pa.array([_to_py(r.get(name), t) for r in rows], type=f.type))
    return pa.Table.from_arrays(arrays, schema=schema)


def _from_py(v, t, at):
    """Value from to_pylist() of the int view -> canonical."""
    if v is None:
        return None
    k = t["k"]
    if k == "FLOAT":
        return f32_bits(v)
    if k == "DOUBLE":
        return f64_bits(v)
    if k == "DECIMAL":
        return format(v, "f")
    if k in ("BINARY", "VARBINARY", "BYTES"):
        return base64.b64encode(v).decode()
    if k == "DATE":
        return (EPOCH_DATE + datetime.timedelta(days=v)).isoformat()
    if k == "TIME":
        if pa.types.is_time64(at):
            return v // (1000 if at.unit == "us" else 10 ** 6)
        return v if at.unit == "ms" else v * 1000
    if k in ("TIMESTAMP", "LTZ"):
        per = {"s": 1, "ms": 10 ** 3, "us": 10 ** 6, "ns": 10 ** 9}[at.unit]
        sec, frac = divmod(v, per)
        d = EPOCH_DT + datetime.timedelta(seconds=sec)
        return d.strftime("%Y-%m-%dT%H:%M:%S") + ".%09d" % (frac * (10 ** 9 // per)) + ("Z" if k == "LTZ" else "")
    if k == "ARRAY":
        return [_from_py(x, t["elem"], at.value_type) for x in v]
    if k == "MAP":
        return [[_from_py(a, t["key"], at.key_type), _from_py(b, t["val"], at.item_type)] for a, b in v]
    if k == "ROW":
        return {n: _from_py(v[n], ft, at.field(n).type) for _, n, ft in t["fields"]}
    return v


def from_arrow(table, fields, columns=None):
    """pyarrow table read from a Paimon table -> canonical rows (dicts in `fields` order).
    Temporal units are taken from the table read, so any unit a reader picks converts."""
    names = columns or [n for _, n, _ in fields]
    types = {n: t for _, n, t in fields}
    cols = []
    for n in names:
        col = table.column(n)
        at = col.type
        cols.append((n, types[n], at, col.cast(_int_view(at)).to_pylist()))
    return [{n: _from_py(vals[i], t, at) for n, t, at, vals in cols} for i in range(table.num_rows)]


# ------------------------------------------------------------------------------------ compare

def canonical_rows(rows, fields=None):
    """Rows as sorted canonical JSON strings (order-insensitive equality). With `fields`,
    MAP values get their pairs sorted by encoded key."""
    out = []
    for r in rows:
        if fields is not None:
            r = {n: _sort_maps(r.get(n), t) for _, n, t in fields if n in r}
        out.append(json.dumps(r, sort_keys=True, ensure_ascii=False))
    return sorted(out)


def _sort_maps(v, t):
    if v is None:
        return None
    k = t["k"]
    if k == "ARRAY":
        return [_sort_maps(x, t["elem"]) for x in v]
    if k == "MAP":
        pairs = [[_sort_maps(a, t["key"]), _sort_maps(b, t["val"])] for a, b in v]
        return sorted(pairs, key=lambda p: json.dumps(p[0], sort_keys=True))
    if k == "ROW":
        return {n: _sort_maps(v.get(n), ft) for _, n, ft in t["fields"]}
    return v


def diff_rows(got, want, limit=3):
    """Short human-readable difference of two canonical_rows lists."""
    g, w = set(got), set(want)
    extra = sorted(g - w)[:limit]
    missing = sorted(w - g)[:limit]
    return "got %d rows, want %d; missing %s; unexpected %s" % (len(got), len(want), missing, extra)
