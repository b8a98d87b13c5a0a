"""Schema interoperability between paimonc and pypaimon (filesystem catalog).

(a) pypaimon creates tables from random pyarrow schemas; paimonc loads them and
    must report the same fields (ids, names, types, descriptions), keys,
    options, comment and highestFieldId as pypaimon itself and as the raw
    schema file.
(b) paimonc creates the same kinds of tables and alters them; pypaimon loads
    them and must see the same schema as paimonc reports, and the same schema
    as a twin table that pypaimon itself created and altered identically.

Known differences between the forms pypaimon and Java write, and how they are
handled here (core-format spec §0 item 9, §2.3):

1. Atomic type text: pypaimon writes ``TIMESTAMP_LTZ(p)``; Java (and paimonc)
   write ``TIMESTAMP(p) WITH LOCAL TIME ZONE``. Same type; ``canon()`` maps the
   pypaimon alias to Java's text before comparing. Java's SQL form of ROW
   types (``ROW<`a` INT>``) is not what ``str()`` prints in pypaimon and in
   paimonc (``ROW<a: INT>``), so types are compared structurally through
   their JSON form, paimonc's type strings (``to_type_string``) are checked
   against a Java-style rendering of pypaimon's type, and ``str()`` against
   pypaimon's ``str()`` up to this alias (libpaimonc normalizes it on read).
2. pypaimon adds ``"nullable"`` to complex type objects; paimonc does not
   write it (Java ignores it; pypaimon falls back to the ``NOT NULL`` suffix
   of ``"type"``). Stripped before comparing raw files.
3. pypaimon writes ``"comment": null``; Java omits the key, and Java's
   parser would read a JSON null comment as the string "null". paimonc must
   read null as "no comment" and must omit the key when writing
   (test_paimonc_schema_file_is_java_form).
4. pypaimon < 2 wrote MAP as ``{"type": "MAP<K, V>", "nullable": b}`` and
   MULTISET as ``"MULTISET<E>"``; Java decides the nullability of such a map
   by searching the text for ``NOT NULL``, so ``MAP<INT NOT NULL, STRING>``
   written as nullable reads as a NOT NULL map in Java. paimonc follows the
   writer's ``"nullable"`` key for MAP objects; the legacy string form is
   is parsed too (test_legacy_pypaimon_map_form). pypaimon 2.1
   writes Java's MAP form.
5. pypaimon maps every Arrow time type to ``TIME(0)`` and ignores field
   metadata of nested struct fields (only top-level ``description`` becomes a
   comment); paimonc must map pyarrow schemas the same way, which (b) checks
   by comparing with pypaimon's own mapping of the same pyarrow schema.
6. Primary keys identical to the partition keys: Java refuses them at table
   creation ("this will result in only one record in a partition"), pypaimon
   accepts them. paimonc refuses to create such tables (as Java) but reads
   the ones pypaimon made (seeds 20 and 21 generate this case).
"""

import json
import os
import random
import re

import pytest

pa = pytest.importorskip("pyarrow")
pypaimon = pytest.importorskip("pypaimon")

import paimonc  # noqa: E402
from paimonc.types import parse_json_type, to_type_string  # noqa: E402
from pypaimon.schema.data_types import PyarrowFieldParser  # noqa: E402
from pypaimon.schema.schema_change import SchemaChange as PPSchemaChange  # noqa: E402

SEEDS = list(range(30))

NAMES = ["id", "name", "v", "score", "Ünïcødé", "with space", "back`tick", "quo'te", "dot.ted",
         "x", "y", "z", "payload", "emb", "k", "geo", "lvl", "n_1", "CamelCase", "长"]
COMMENTS = [None, None, "a comment", "it's quoted", "ünïcødé \u2603", 'dq "x"', "multi\nline"]
TABLE_COMMENTS = [None, "table comment", "表 comment", "it's"]

# --------------------------------------------------------------- generation


def atomic_types(rng):
    return rng.choice([
        pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.float32(), pa.float64(), pa.bool_(),
        pa.string(), pa.large_string(), pa.binary(), pa.binary(rng.randint(1, 32)),
        pa.decimal128(rng.randint(1, 38), 0), pa.decimal128(38, 18), pa.decimal128(10, 2),
        pa.date32(), pa.time32("ms"),
        pa.timestamp(rng.choice("s ms us ns".split())),
        pa.timestamp(rng.choice("s ms us ns".split()), tz="UTC"),
    ])


def gen_type(rng, depth):
    """A pyarrow type nested at most `depth` levels."""
    r = rng.random()
    if depth <= 0 or r < 0.55:
        return atomic_types(rng)
    kind = rng.choice(["list", "map", "struct", "struct"])
    if kind == "list":
        return pa.list_(pa.field("item", gen_type(rng, depth - 1), nullable=rng.random() < 0.8))
    if kind == "map":
        key = rng.choice([pa.string(), pa.int32(), pa.int64(), pa.date32()])
        return pa.map_(key, pa.field("value", gen_type(rng, depth - 1), nullable=rng.random() < 0.8))
    names = rng.sample(NAMES, rng.randint(1, 3))
    fields = []
    for n in names:
        md = None
        if rng.random() < 0.2:  # pypaimon ignores nested descriptions; so must paimonc
            md = {b"description": b"nested comment"}
        fields.append(pa.field(n, gen_type(rng, depth - 1), nullable=rng.random() < 0.8, metadata=md))
    return pa.struct(fields)


def gen_table(seed):
    """(pyarrow schema, partition_keys, primary_keys, options, comment) for a seed."""
    rng = random.Random(seed)
    n = rng.randint(2, 9)
    names = rng.sample(NAMES, n)
    fields = []
    atomic_names = []
    for name in names:
        t = gen_type(rng, 3)
        nullable = rng.random() < 0.75
        md = None
        c = rng.choice(COMMENTS)
        if c is not None:
            md = {b"description": c.encode("utf-8")}
        fields.append(pa.field(name, t, nullable=nullable, metadata=md))
        if not (pa.types.is_nested(t) or pa.types.is_floating(t)):
            atomic_names.append(name)
    options = {}
    with_blob = seed % 5 == 3
    with_vector = seed % 4 == 1
    if with_vector:
        fields.append(pa.field("vec", pa.list_(pa.float32(), rng.randint(1, 16)), nullable=rng.random() < 0.5))
    primary_keys = []
    partition_keys = []
    if atomic_names and rng.random() < 0.5:
        partition_keys = rng.sample(atomic_names, rng.randint(1, min(2, len(atomic_names))))
    if with_blob:
        fields.append(pa.field("blob", pa.large_binary()))
        options["row-tracking.enabled"] = "true"
        options["data-evolution.enabled"] = "true"
    elif atomic_names and rng.random() < 0.6:
        primary_keys = rng.sample(atomic_names, rng.randint(1, min(3, len(atomic_names))))
        options["bucket"] = rng.choice(["-1", "1", "4"])
    for k, v in [("file.format", rng.choice(["parquet", "orc", "avro"])),
                 ("custom.key", "value with spaces"), ("snapshot.num-retained.max", "7"),
                 ("ünï.option", "ü")]:
        if rng.random() < 0.4:
            options[k] = v
    return pa.schema(fields), partition_keys, primary_keys, options, rng.choice(TABLE_COMMENTS)


# ----------------------------------------------------------- normalization

_LTZ = re.compile(r"^TIMESTAMP_LTZ\((\d+)\)$")


def canon(j):
    """Java JSON form of a type given in Java's or pypaimon's JSON form."""
    t = parse_json_type(j)
    return _canon_type(t).to_dict()


def _canon_type(t):
    from paimonc import types as T
    if isinstance(t, T.AtomicType):
        text = t.type.upper()
        m = _LTZ.match(text)
        if m:
            text = "TIMESTAMP({}) WITH LOCAL TIME ZONE".format(m.group(1))
        if text == "INTEGER":
            text = "INT"
        return T.AtomicType(text, t.nullable)
    if isinstance(t, T.ArrayType):
        return T.ArrayType(t.nullable, _canon_type(t.element))
    if isinstance(t, T.MultisetType):
        return T.MultisetType(t.nullable, _canon_type(t.element))
    if isinstance(t, T.VectorType):
        return T.VectorType(t.nullable, _canon_type(t.element), t.length)
    if isinstance(t, T.MapType):
        return T.MapType(t.nullable, _canon_type(t.key), _canon_type(t.value))
    if isinstance(t, T.RowType):
        return T.RowType(t.nullable, [T.DataField(f.id, f.name, _canon_type(f.type), f.description,
                                                  f.default_value) for f in t.fields])
    raise AssertionError(t)


def java_string(pp_type):
    """Java's SQL string of a pypaimon DataType."""
    return to_type_string(_canon_type(parse_json_type(pp_type.to_dict())))


def canon_field(d):
    out = {"id": d["id"], "name": d["name"], "type": canon(d["type"])}
    if d.get("description") is not None:
        out["description"] = d["description"]
    if d.get("defaultValue") is not None:
        out["defaultValue"] = d["defaultValue"]
    return out


def canon_schema_file(d):
    """Comparable form of a schema file (Java's or pypaimon's)."""
    return {
        "version": d.get("version", 1),
        "id": d["id"],
        "fields": [canon_field(f) for f in d["fields"]],
        "highestFieldId": d["highestFieldId"],
        "partitionKeys": d["partitionKeys"],
        "primaryKeys": d["primaryKeys"],
        "options": d["options"],
        "comment": d.get("comment"),  # pypaimon: null; Java: absent
    }


def pp_view(table):
    """What pypaimon sees, in comparable form."""
    ts = table.table_schema
    return {
        "id": ts.id,
        "fields": [canon_field(f.to_dict()) for f in ts.fields],
        "highestFieldId": ts.highest_field_id,
        "partitionKeys": list(ts.partition_keys),
        "primaryKeys": list(ts.primary_keys),
        "options": dict(ts.options),
        "comment": ts.comment,
    }


def pc_view(table):
    """What paimonc sees, in comparable form."""
    ts = table.table_schema
    return {
        "id": ts.id,
        "fields": [canon_field(f.to_dict()) for f in table.fields],
        "highestFieldId": ts.highest_field_id,
        "partitionKeys": list(table.partition_keys),
        "primaryKeys": list(table.primary_keys),
        "options": dict(table.options),
        "comment": table.comment,
    }


def read_schema_file(table_path, schema_id):
    with open(os.path.join(table_path, "schema", "schema-%d" % schema_id), encoding="utf-8") as f:
        return json.load(f)


# -------------------------------------------------------------------- tests

@pytest.fixture
def warehouse(tmp_path):
    return str(tmp_path / "wh")


@pytest.fixture
def pp_catalog(warehouse):
    c = pypaimon.CatalogFactory.create({"warehouse": warehouse})
    c.create_database("db", True)
    return c


@pytest.fixture
def pc_catalog(warehouse, pp_catalog):
    return paimonc.CatalogFactory.create({"warehouse": warehouse})


@pytest.mark.parametrize("seed", SEEDS)
def test_paimonc_reads_pypaimon_tables(seed, pp_catalog, pc_catalog):
    pa_schema, pkeys, prkeys, options, comment = gen_table(seed)
    pp_catalog.create_table("db.t", pypaimon.Schema.from_pyarrow_schema(
        pa_schema, partition_keys=pkeys, primary_keys=prkeys, options=options, comment=comment), False)
    pp_table = pp_catalog.get_table("db.t")
    pc_table = pc_catalog.get_table("db.t")

    # against pypaimon's own view
    assert pc_view(pc_table) == pp_view(pp_table)
    # against the raw file pypaimon wrote
    raw = canon_schema_file(read_schema_file(pp_table.table_path, 0))
    mine = canon_schema_file(json.loads(pc_table.table_schema.to_json()))
    assert mine == raw

    # type strings: paimonc's (from C) == Java rendering of pypaimon's type,
    # and the Python-side rendering of nested types agrees with C
    c_strings = pc_table.table_schema.field_type_strings()
    assert c_strings == [java_string(f.type) for f in pp_table.fields]
    assert c_strings == [to_type_string(f.type) for f in pc_table.fields]
    # str() is pypaimon's, except for the atomic text libpaimonc normalizes
    # on read (difference 1: TIMESTAMP_LTZ(p) is read as Java's spelling)
    assert [str(f.type) for f in pc_table.fields] == \
        [str(_canon_type(parse_json_type(f.type.to_dict()))) for f in pp_table.fields]
    assert [f.type.nullable for f in pc_table.fields] == [f.type.nullable for f in pp_table.fields]

    # Arrow schema: the same as pypaimon's conversion of its own fields
    expected = PyarrowFieldParser.from_paimon_schema(pp_table.fields)
    got = pc_table.to_arrow_schema()
    assert got.names == expected.names
    for g, e in zip(got, expected):
        assert g.type == e.type, g.name
        assert g.nullable == e.nullable, g.name


def _random_alters(rng, pa_schema, pkeys, prkeys, options):
    """The same changes for paimonc and pypaimon: list of (pc_change, pp_change)."""
    from pypaimon.schema.data_types import AtomicType as PPAtomic
    changes = []
    existing = list(pa_schema.names)
    protected = set(pkeys) | set(prkeys) | {"blob", "vec"}
    n = 0
    for _ in range(rng.randint(1, 4)):
        what = rng.choice(["add", "add", "rename", "drop", "col_comment", "set", "remove", "comment"])
        if what == "add":
            while "added_%d" % n in existing:
                n += 1
            name = "added_%d" % n
            n += 1
            t = gen_type(rng, 2)
            pp_type = PyarrowFieldParser.to_paimon_type(t, True)
            c = rng.choice(COMMENTS)
            changes.append((paimonc.SchemaChange.add_column(name, t, comment=c),
                            PPSchemaChange.add_column(name, pp_type, comment=c)))
            existing.append(name)
        elif what == "rename":
            cands = [x for x in existing if x not in protected]
            if not cands:
                continue
            old = rng.choice(cands)
            new = old + "_renamed"
            changes.append((paimonc.SchemaChange.rename_column(old, new), PPSchemaChange.rename_column(old, new)))
            existing[existing.index(old)] = new
        elif what == "drop":
            cands = [x for x in existing if x not in protected]
            if len(cands) < 2:
                continue
            old = rng.choice(cands)
            changes.append((paimonc.SchemaChange.drop_column(old), PPSchemaChange.drop_column(old)))
            existing.remove(old)
        elif what == "col_comment":
            col = rng.choice(existing)
            c = rng.choice([x for x in COMMENTS if x is not None])
            changes.append((paimonc.SchemaChange.update_column_comment(col, c),
                            PPSchemaChange.update_column_comment(col, c)))
        elif what == "set":
            changes.append((paimonc.SchemaChange.set_option("x.opt", "v%d" % n),
                            PPSchemaChange.set_option("x.opt", "v%d" % n)))
            n += 1
        elif what == "remove":
            if "custom.key" in options:
                changes.append((paimonc.SchemaChange.remove_option("custom.key"),
                                PPSchemaChange.remove_option("custom.key")))
        else:
            c = rng.choice(TABLE_COMMENTS)
            changes.append((paimonc.SchemaChange.update_comment(c), PPSchemaChange.update_comment(c)))
    assert PPAtomic  # imported to make sure the pypaimon type module is present
    return changes


@pytest.mark.parametrize("seed", SEEDS)
def test_pypaimon_reads_paimonc_tables(seed, pp_catalog, pc_catalog):
    pa_schema, pkeys, prkeys, options, comment = gen_table(seed)
    spec = paimonc.Schema.from_pyarrow_schema(
        pa_schema, partition_keys=pkeys, primary_keys=prkeys, options=options, comment=comment)
    if prkeys and set(prkeys) == set(pkeys):
        # Difference 6: Java refuses primary keys equal to the partition keys
        # ("only one record in a partition"); pypaimon accepts them. paimonc
        # follows Java when creating, and still reads such pypaimon tables
        # (covered by test_paimonc_reads_pypaimon_tables for the same seed).
        with pytest.raises(paimonc.InvalidArgumentError) as ei:
            pc_catalog.create_table("db.c", spec)
        assert "partition" in str(ei.value)
        return
    pc_catalog.create_table("db.c", spec)
    # the twin, created by pypaimon from the same pyarrow schema
    pp_catalog.create_table("db.p", pypaimon.Schema.from_pyarrow_schema(
        pa_schema, partition_keys=pkeys, primary_keys=prkeys, options=options, comment=comment), False)

    def compare(stage):
        pc_c = pc_catalog.get_table("db.c")
        pp_c = pp_catalog.get_table("db.c")
        pp_p = pp_catalog.get_table("db.p")
        # pypaimon reads paimonc's table exactly as paimonc reports it
        assert pp_view(pp_c) == pc_view(pc_c), stage
        # and paimonc built the same schema pypaimon builds itself
        assert pp_view(pp_c) == pp_view(pp_p), stage
        return pc_c

    t = compare("create")
    raw = read_schema_file(t.table_path, 0)
    assert "nullable" not in json.dumps(raw), "paimonc must write Java's type JSON"

    rng = random.Random(1000 + seed)
    for round_ in range(2):
        changes = _random_alters(rng, pa.schema([pa.field(f.name, pa.null()) for f in t.fields]),
                                 pkeys, prkeys, dict(t.options))
        if not changes:
            continue
        pc_catalog.alter_table("db.c", [c for c, _ in changes])
        pp_catalog.alter_table("db.p", [p for _, p in changes], False)
        t = compare("alter round %d: %r" % (round_, [c for c, _ in changes]))


def test_paimonc_schema_file_is_java_form(pc_catalog, pp_catalog, warehouse):
    s = pa.schema([pa.field("id", pa.int64(), nullable=False),
                   pa.field("m", pa.map_(pa.string(), pa.int32()), nullable=False),
                   pa.field("ts", pa.timestamp("ms", tz="UTC"))])
    pc_catalog.create_table("db.j", paimonc.Schema.from_pyarrow_schema(s))
    text = open(os.path.join(warehouse, "db.db", "j", "schema", "schema-0"), encoding="utf-8").read()
    d = json.loads(text)
    assert "comment" not in d                          # difference 3
    assert d["fields"][1]["type"] == {"type": "MAP NOT NULL", "key": "STRING NOT NULL", "value": "INT"}
    assert d["fields"][2]["type"] == "TIMESTAMP(3) WITH LOCAL TIME ZONE"  # difference 1
    assert '"version" : 3' in text and not text.endswith("\n")
    # pypaimon reads the Java forms
    pt = pp_catalog.get_table("db.j")
    assert pt.table_schema.comment is None
    assert pt.fields[1].type.nullable is False
    assert PyarrowFieldParser.from_paimon_type(pt.fields[2].type) == pa.timestamp("ms", tz="UTC")


def _write_raw_table(warehouse, name, schema_json):
    path = os.path.join(warehouse, "db.db", name, "schema")
    os.makedirs(path)
    with open(os.path.join(path, "schema-0"), "w", encoding="utf-8") as f:
        json.dump(schema_json, f, indent=2)


def test_pypaimon_null_comment_and_ltz_alias(pc_catalog, warehouse):
    """Differences 1 and 3 in a hand-written pypaimon-style file."""
    _write_raw_table(warehouse, "nullcomment", {
        "version": 3, "id": 0,
        "fields": [
            {"id": 0, "name": "r", "type": {"type": "ROW", "nullable": True, "fields": [
                {"id": 1, "name": "x", "type": "TIMESTAMP_LTZ(6)"}]}},
            {"id": 2, "name": "m", "type": {"type": "MAP NOT NULL", "key": "INT NOT NULL", "value": "STRING",
                                            "nullable": False}},
        ],
        "highestFieldId": 2, "partitionKeys": [], "primaryKeys": [], "options": {},
        "comment": None, "timeMillis": 1,
    })
    t = pc_catalog.get_table("db.nullcomment")
    assert [str(f.type) for f in t.fields] == [
        "ROW<x: TIMESTAMP(6) WITH LOCAL TIME ZONE>", "MAP<INT NOT NULL, STRING> NOT NULL"]
    assert t.comment is None                   # null is no comment, not "null"
    assert "comment" not in json.loads(t.table_schema.to_json())


def test_legacy_pypaimon_map_form(pc_catalog, pp_catalog, warehouse):
    """Difference 4: the MAP/MULTISET string forms of pypaimon < 2, "comment": null."""
    _write_raw_table(warehouse, "legacy", {
        "version": 3, "id": 0,
        "fields": [
            {"id": 0, "name": "m", "type": {"type": "MAP<INT NOT NULL, STRING>", "nullable": True}},
            {"id": 1, "name": "n", "type": {"type": "MAP<STRING NOT NULL, ARRAY<INT>> NOT NULL",
                                            "nullable": False}},
            {"id": 2, "name": "s", "type": {"type": "MULTISET<INT> NOT NULL", "nullable": False}},
            {"id": 3, "name": "r", "type": {"type": "ROW", "nullable": True, "fields": [
                {"id": 4, "name": "x", "type": "TIMESTAMP_LTZ(6)"}]}},
        ],
        "highestFieldId": 4, "partitionKeys": [], "primaryKeys": [], "options": {},
        "comment": None, "timeMillis": 1,
    })
    t = pc_catalog.get_table("db.legacy")
    assert [str(f.type) for f in t.fields] == [
        "MAP<INT NOT NULL, STRING>",            # nullable as its writer said (Java: NOT NULL)
        "MAP<STRING NOT NULL, ARRAY<INT>> NOT NULL",
        "MULTISET<INT> NOT NULL",
        "ROW<x: TIMESTAMP(6) WITH LOCAL TIME ZONE>",
    ]
    assert t.comment is None                   # difference 3: null is no comment, not "null"
    assert "comment" not in json.loads(t.table_schema.to_json())


def test_java_form_null_comment_and_old_versions(pc_catalog, warehouse):
    """Version 1 schemas get bucket=1 and version <= 2 get file.format=orc (both implementations)."""
    _write_raw_table(warehouse, "v1", {
        "id": 0, "fields": [{"id": 0, "name": "a", "type": "INT"}], "highestFieldId": 0,
        "partitionKeys": [], "primaryKeys": [], "options": {}})
    t = pc_catalog.get_table("db.v1")
    assert t.options == {"bucket": "1", "file.format": "orc"}


def test_pypaimon_alter_of_paimonc_table(pc_catalog, pp_catalog):
    """A table paimonc created can be altered by pypaimon and read back by paimonc."""
    s = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("r", pa.struct([("a", pa.int32())]))])
    pc_catalog.create_table("db.x", paimonc.Schema.from_pyarrow_schema(s, primary_keys=["id"]))
    from pypaimon.schema.data_types import AtomicType
    pp_catalog.alter_table("db.x", [PPSchemaChange.add_column("c", AtomicType("STRING"), "cc"),
                                    PPSchemaChange.set_option("k", "v")], False)
    t = pc_catalog.get_table("db.x")
    assert t.schema_id == 1
    assert [(f.id, f.name, str(f.type), f.description) for f in t.fields] == [
        (0, "id", "BIGINT NOT NULL", None), (1, "r", "ROW<a: INT>", None), (3, "c", "STRING", "cc")]
    assert t.table_schema.highest_field_id == 3
    assert t.options["k"] == "v"
