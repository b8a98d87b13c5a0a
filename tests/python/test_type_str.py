"""str() and repr() of paimonc's data types and fields equal pypaimon's.

Every case builds the same type in both libraries - by parsing the same JSON
type (the form of schema files) with each library's parser, by converting the
same pyarrow type, or by loading the same table - and compares str() (and
repr(), which pypaimon derives from its dataclasses, and str()/repr() of the
DataFields of ROW types). to_type_string() must keep giving Java's SQL form,
the text libpaimonc parses, since that is what table creation and schema
changes send to the C library.

Known, deliberate difference (not generated here): pypaimon's parser turns a
type text without parentheses but with a space into its first word
(``TIMESTAMP WITH LOCAL TIME ZONE`` -> ``TIMESTAMP``, a different type);
paimonc keeps the type. Neither Java nor pypaimon writes that text.
"""

import json
import random
import re

import pytest

pa = pytest.importorskip("pyarrow")
pypaimon = pytest.importorskip("pypaimon")
pdt = pytest.importorskip("pypaimon.schema.data_types")

import paimonc  # noqa: E402
from paimonc import _native  # noqa: E402
from paimonc import types as T  # noqa: E402

# ------------------------------------------------------------------ atomic

ATOMIC = [
    "BOOLEAN", "TINYINT", "SMALLINT", "INT", "INTEGER", "BIGINT", "FLOAT", "DOUBLE", "DATE",
    "STRING", "BYTES", "BLOB", "VARIANT",
    "CHAR", "CHAR(1)", "CHAR(255)", "VARCHAR", "VARCHAR(10)", "VARCHAR(2147483647)",
    "BINARY", "BINARY(4)", "VARBINARY", "VARBINARY(9)", "VARBINARY(2147483647)",
    "DECIMAL", "DECIMAL(5)", "DECIMAL(10, 2)", "DECIMAL(38, 18)", "DECIMAL(10,2)", "DECIMAL(1, 0)",
    "NUMERIC(10, 2)", "DEC(3, 1)",
    "TIME", "TIMESTAMP", "TIMESTAMP_LTZ",
] + ["TIME(%d)" % p for p in range(10)] \
  + ["TIMESTAMP(%d)" % p for p in range(10)] \
  + ["TIMESTAMP(%d) WITH LOCAL TIME ZONE" % p for p in range(10)] \
  + ["TIMESTAMP_LTZ(%d)" % p for p in range(10)]

# Spellings neither writer produces but both parsers take.
ODD_ATOMIC = ["int", "Decimal(12, 3)", "timestamp(3) with local time zone", "timestamp_ltz(9)",
              "  BIGINT  ", "varchar(7)", "char(2)", "time(1)", "blob", "variant"]

NULLABILITY = ["", " NOT NULL", " NULL", " not null"]

VECTOR_ELEMENTS = ["BOOLEAN", "TINYINT", "SMALLINT", "INT", "INTEGER", "BIGINT", "FLOAT", "DOUBLE"]

NAMES = ["a", "b", "id", "x y", "`q`", "a`b", "k: v", "COMMENT", "ROW", "näme", "f_1", "a, b", "<x>", "c"]
DESCRIPTIONS = [None, None, None, "", "a comment", "it's 'quoted'", "ünïcødé", "a, b>", "COMMENT x"]


def _pp(json_type):
    return pdt.DataTypeParser.parse_data_type(json_type)


def _pc(json_type):
    return T.parse_json_type(json_type)


def _no_ids(j):
    """A type's JSON without field ids and empty descriptions (the SQL form
    has neither, as in Java)."""
    if isinstance(j, dict):
        return {k: _no_ids(v) for k, v in j.items() if k != "id" and not (k == "description" and v == "")}
    if isinstance(j, list):
        return [_no_ids(v) for v in j]
    return j


def _native_json(text):
    return _no_ids(json.loads(_native.type_to_json(text)))


def _check(json_type):
    """The same JSON type through both parsers: str/repr equal; to_type_string
    is still Java's SQL form (libpaimonc parses it back to the same type)."""
    pp, pc = _pp(json_type), _pc(json_type)
    assert str(pc) == str(pp), json_type
    assert repr(pc) == repr(pp), json_type
    assert pc.nullable == pp.nullable, json_type
    if isinstance(pp, pdt.RowType):
        for f_pc, f_pp in zip(pc.fields, pp.fields):
            assert str(f_pc) == str(f_pp) and repr(f_pc) == repr(f_pp), json_type
    sql = T.to_type_string(pc)
    assert _native_json(sql) == _native_json(json.dumps(pc.to_dict())), json_type
    assert T.to_type_string(pp) == sql, json_type
    return str(pc)


@pytest.mark.parametrize("base", ATOMIC + ODD_ATOMIC)
@pytest.mark.parametrize("null", NULLABILITY)
def test_atomic(base, null):
    s = _check(base + null)
    assert s.endswith(" NOT NULL") == ("NOT NULL" in null.upper())
    # the dict form of an atomic type, as some writers nest it
    _check({"type": base + null})


# ------------------------------------------------------------------ nested, by hand

def f(i, name, t, desc=None):
    d = {"id": i, "name": name, "type": t}
    if desc is not None:
        d["description"] = desc
    return d


NESTED = [
    ({"type": "ROW", "fields": [f(0, "x", "INT"), f(1, "y", "STRING")]},
     "ROW<x: INT, y: STRING>"),
    ({"type": "ROW NOT NULL", "fields": [f(0, "x", "INT NOT NULL", "the x"), f(1, "y", "STRING", "")]},
     "ROW<x: INT NOT NULL COMMENT the x, y: STRING> NOT NULL"),
    ({"type": "ROW", "fields": []}, "ROW<>"),
    ({"type": "ARRAY", "element": "INT NOT NULL"}, "ARRAY<INT NOT NULL>"),
    ({"type": "ARRAY NOT NULL", "element": "STRING NOT NULL"}, "ARRAY<STRING NOT NULL> NOT NULL"),
    ({"type": "MULTISET", "element": "STRING"}, "MULTISET<STRING>"),
    ({"type": "MULTISET NOT NULL", "element": "DECIMAL(10, 2) NOT NULL"},
     "MULTISET<DECIMAL(10, 2) NOT NULL> NOT NULL"),
    ({"type": "MAP", "key": "STRING NOT NULL", "value": "BIGINT"}, "MAP<STRING NOT NULL, BIGINT>"),
    ({"type": "MAP NOT NULL", "key": "INT NOT NULL", "value": {"type": "ARRAY", "element": "DOUBLE"}},
     "MAP<INT NOT NULL, ARRAY<DOUBLE>> NOT NULL"),
    ({"type": "VECTOR", "element": "FLOAT", "length": 4}, "VECTOR<FLOAT, 4>"),
    ({"type": "VECTOR NOT NULL", "element": "BIGINT NOT NULL", "length": 1},
     "VECTOR<BIGINT NOT NULL, 1> NOT NULL"),
    ({"type": "ROW", "fields": [f(0, "a b", {"type": "ROW", "fields": [f(1, "`z`", "TIMESTAMP(6)")]}, "o'k")]},
     "ROW<a b: ROW<`z`: TIMESTAMP(6)> COMMENT o'k>"),
    ({"type": "ROW NOT NULL", "fields": [
        f(0, "x", "BIGINT NOT NULL"),
        f(1, "y", {"type": "ROW", "fields": [f(2, "z", "TIMESTAMP(6)")]})]},
     "ROW<x: BIGINT NOT NULL, y: ROW<z: TIMESTAMP(6)>> NOT NULL"),
    ({"type": "MAP", "key": "STRING NOT NULL", "value": {"type": "ROW", "fields": [
        f(3, "a b", "INT"), f(4, "c", "STRING")]}},
     "MAP<STRING NOT NULL, ROW<a b: INT, c: STRING>>"),
    ({"type": "ARRAY", "element": {"type": "MAP", "key": {"type": "ARRAY NOT NULL", "element": "INT"},
                                   "value": {"type": "MULTISET", "element": {
                                       "type": "VECTOR", "element": "DOUBLE", "length": 3}}}},
     "ARRAY<MAP<ARRAY<INT> NOT NULL, MULTISET<VECTOR<DOUBLE, 3>>>>"),
    ({"type": "ROW", "fields": [f(0, "ltz", "TIMESTAMP(3) WITH LOCAL TIME ZONE"),
                                f(1, "ltz2", "TIMESTAMP_LTZ(9) NOT NULL"),
                                f(2, "blob", "BLOB"), f(3, "v", "VARIANT", "semi-structured")]},
     "ROW<ltz: TIMESTAMP(3) WITH LOCAL TIME ZONE, ltz2: TIMESTAMP_LTZ(9) NOT NULL, blob: BLOB, "
     "v: VARIANT COMMENT semi-structured>"),
    # pypaimon's JSON form: complex types carry a "nullable" key too
    ({"type": "ARRAY NOT NULL", "element": "INT", "nullable": False}, "ARRAY<INT> NOT NULL"),
    ({"type": "MAP", "key": "INT NOT NULL", "value": "STRING", "nullable": True}, "MAP<INT NOT NULL, STRING>"),
    ({"type": "ROW", "nullable": True, "fields": [f(0, "x", "TIMESTAMP_LTZ(6)")]},
     "ROW<x: TIMESTAMP_LTZ(6)>"),
] + [({"type": "VECTOR", "element": e + n, "length": 8}, "VECTOR<{}{}, 8>".format(e, n))
     for e in VECTOR_ELEMENTS for n in ("", " NOT NULL")]


@pytest.mark.parametrize("json_type,expected", NESTED)
def test_nested(json_type, expected):
    assert _check(json_type) == expected


def test_row_str_fails_on_java_form():
    """The old str() (Java's ``ROW<`x` INT>``) is what to_type_string gives."""
    t = _pc({"type": "ROW", "fields": [f(0, "x", "INT"), f(1, "y", "STRING", "c'")]})
    assert str(t) == "ROW<x: INT, y: STRING COMMENT c'>"
    assert T.to_type_string(t) == "ROW<`x` INT, `y` STRING COMMENT 'c'''>"


def test_data_field_str_repr():
    j = f(7, "r", {"type": "ROW NOT NULL", "fields": [f(8, "x", "INT NOT NULL", "d")]}, "desc")
    j["defaultValue"] = "1"
    pp, pc = pdt.DataTypeParser.parse_data_field(j), T.parse_json_field(j)
    assert str(pc) == str(pp) and repr(pc) == repr(pp)
    assert repr(pc) == ("DataField(id=7, name='r', type=RowType(fields=[DataField(id=8, name='x', "
                        "type=AtomicType(type='INT'), description='d', default_value=None)]), "
                        "description='desc', default_value='1')")
    # constructed directly, not parsed
    pp = pdt.DataField(1, "m", pdt.MapType(False, pdt.AtomicType("int", False), pdt.AtomicType("STRING")))
    pc = T.DataField(1, "m", T.MapType(False, T.AtomicType("int", False), T.AtomicType("STRING")))
    assert str(pc.type) == str(pp.type) == "MAP<int NOT NULL, STRING> NOT NULL"
    assert repr(pc) == repr(pp)


# ------------------------------------------------------------------ random, from JSON

N_RANDOM = 600


def _nn(r):
    return " NOT NULL" if r.random() < 0.3 else ""


class _Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.next_id = 0

    def field(self, name, depth):
        self.next_id += 1
        return f(self.next_id, name, self.type(depth + 1), self.r.choice(DESCRIPTIONS))

    def type(self, depth=0):
        r = self.r
        if depth >= 4 or (depth > 0 and r.random() < 0.4):  # the top is always nested
            base = r.choice(ATOMIC if r.random() < 0.9 else ODD_ATOMIC)
            t = base + r.choice(NULLABILITY)
            return t if r.random() < 0.9 else {"type": t}
        kind = r.choice(["ARRAY", "MULTISET", "MAP", "ROW", "ROW", "VECTOR"])
        nn = _nn(r)
        if kind in ("ARRAY", "MULTISET"):
            d = {"type": kind + nn, "element": self.type(depth + 1)}
        elif kind == "MAP":
            key = self.type(depth + 1)
            d = {"type": kind + nn, "key": key, "value": self.type(depth + 1)}
        elif kind == "VECTOR":
            d = {"type": kind + nn, "element": r.choice(VECTOR_ELEMENTS) + _nn(r), "length": r.randint(1, 2048)}
        else:
            d = {"type": kind + nn, "fields": [self.field(n, depth) for n in r.sample(NAMES, r.randint(0, 4))]}
        if r.random() < 0.3:  # pypaimon's form
            d["nullable"] = not nn
        return d


def _random_types():
    g = _Gen(20240514)
    return [g.type() for _ in range(N_RANDOM)]


def test_random_nested_from_json():
    types = _random_types()
    assert len(types) == N_RANDOM
    for t in types:
        assert "<" in _check(t)


# ------------------------------------------------------------------ random, from pyarrow

def _pa_type(r, depth=0):
    if depth >= 3 or r.random() < 0.45:
        return r.choice([
            pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.float32(), pa.float64(), pa.bool_(),
            pa.string(), pa.large_string(), pa.binary(), pa.large_binary(), pa.binary(r.randint(1, 20)),
            pa.decimal128(r.randint(1, 38), 0), pa.decimal128(38, 18), pa.date32(),
            pa.time32("ms"), pa.time64("us"),
            pa.timestamp(r.choice("s ms us ns".split())),
            pa.timestamp(r.choice("s ms us ns".split()), tz="UTC"),
        ])
    kind = r.choice(["list", "large_list", "map", "struct", "struct", "vector"])
    if kind == "list":
        return pa.list_(pa.field("item", _pa_type(r, depth + 1), r.random() < 0.7))
    if kind == "large_list":
        return pa.large_list(pa.field("item", _pa_type(r, depth + 1), r.random() < 0.7))
    if kind == "vector":
        return pa.list_(r.choice([pa.float32(), pa.float64(), pa.int8(), pa.int32(), pa.int64(), pa.bool_()]),
                        r.randint(1, 64))
    if kind == "map":
        key = r.choice([pa.string(), pa.int32(), pa.int64(), pa.date32()])
        return pa.map_(key, pa.field("value", _pa_type(r, depth + 1), r.random() < 0.7))
    names = r.sample(NAMES, r.randint(1, 4))
    return pa.struct([pa.field(n, _pa_type(r, depth + 1), r.random() < 0.7) for n in names])


_LTZ = re.compile(r"TIMESTAMP_LTZ\((\d)\)")


def test_random_from_pyarrow():
    r = random.Random(7)
    for _ in range(300):
        pa_type, nullable = _pa_type(r), r.random() < 0.7
        pp = pdt.PyarrowFieldParser.to_paimon_type(pa_type, nullable)
        # pypaimon's mapping, read by paimonc's parser: the same text
        pc = T.parse_json_type(pp.to_dict())
        assert str(pc) == str(pp) and repr(pc) == repr(pp), pa_type
        # libpaimonc's own mapping of the same pyarrow type: the same type,
        # but with Java's spelling of TIMESTAMP_LTZ(p), as a table paimonc
        # creates from this pyarrow type stores it
        own = T.parse_json_type(json.loads(_native.type_to_json(T._pyarrow_type_string(pa_type, nullable))))
        assert str(own) == _LTZ.sub(r"TIMESTAMP(\1) WITH LOCAL TIME ZONE", str(pp)), pa_type


# ------------------------------------------------------------------ through tables

def _read_both(warehouse, name):
    pp = pypaimon.CatalogFactory.create({"warehouse": warehouse}).get_table("db." + name)
    pc = paimonc.CatalogFactory.create({"warehouse": warehouse}).get_table("db." + name)
    return pp, pc


def _assert_same_fields(pp, pc):
    assert [str(x.type) for x in pc.fields] == [str(x.type) for x in pp.fields]
    assert [str(x) for x in pc.fields] == [str(x) for x in pp.fields]
    assert [repr(x) for x in pc.fields] == [repr(x) for x in pp.fields]


def test_tables_created_by_pypaimon(tmp_path):
    """pypaimon creates tables from random pyarrow schemas (without
    TIMESTAMP_LTZ, whose pypaimon spelling libpaimonc normalizes on read);
    paimonc prints the loaded fields and schema as pypaimon does."""
    wh = str(tmp_path / "wh")
    cat = pypaimon.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    r = random.Random(11)
    n = 0
    while n < 12:
        fields = [pa.field("f%d" % i, _pa_type(r), r.random() < 0.7,
                           metadata={b"description": b"c%d" % i} if r.random() < 0.3 else None)
                  for i in range(r.randint(1, 6))]
        schema = pa.schema(fields)
        if "TIMESTAMP_LTZ" in str(pdt.PyarrowFieldParser.to_paimon_schema(schema)):
            continue
        cat.create_table("db.t%d" % n, pypaimon.Schema.from_pyarrow_schema(schema, comment="x"), False)
        pp, pc = _read_both(wh, "t%d" % n)
        _assert_same_fields(pp, pc)
        assert repr(pc.table_schema) == repr(pp.table_schema)
        n += 1


def test_tables_created_by_paimonc(tmp_path):
    """paimonc creates tables from random JSON types (through to_type_string,
    Java's SQL form); pypaimon and paimonc print the loaded fields alike."""
    wh = str(tmp_path / "wh")
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    g = _Gen(99)
    for n in range(12):
        cols = []
        for i in range(g.r.randint(1, 6)):
            cols.append(("c%d" % i, T.parse_json_type(g.type(1)), g.r.choice(DESCRIPTIONS)))
        cat.create_table("db.t%d" % n, paimonc.Schema(fields=cols), False)
        pp, pc = _read_both(wh, "t%d" % n)
        _assert_same_fields(pp, pc)
        # the stored types are libpaimonc's normalization of what was asked
        for (name, t, _), x in zip(cols, pc.fields):
            assert T.to_type_string(x.type) == _native.type_to_sql(T.to_type_string(t))
