"""Tests of the paimonc Python API (catalog, tables, schemas, errors)."""

import json
import os
import threading

import pytest

pa = pytest.importorskip("pyarrow")

import paimonc  # noqa: E402
from paimonc import (AlreadyExistsError, CatalogFactory, InvalidArgumentError, NotFoundError,  # noqa: E402
                     PaimonError, Schema, SchemaChange, UnsupportedError)


@pytest.fixture
def warehouse(tmp_path):
    return str(tmp_path / "wh")


@pytest.fixture
def catalog(warehouse):
    c = CatalogFactory.create({"warehouse": warehouse})
    c.create_database("db")
    return c


def simple_schema(**kw):
    return Schema.from_pyarrow_schema(
        pa.schema([
            pa.field("id", pa.int64(), nullable=False),
            pa.field("name", pa.string(), metadata={b"description": b"the name"}),
            pa.field("tags", pa.list_(pa.int32())),
            pa.field("dt", pa.string()),
        ]), **kw)


# ------------------------------------------------------------------ databases

def test_databases(catalog, warehouse):
    assert catalog.list_databases() == ["db"]
    catalog.create_database("db2", ignore_if_exists=False)
    catalog.create_database("db2", ignore_if_exists=True)
    assert catalog.list_databases() == ["db", "db2"]
    assert os.path.isdir(os.path.join(warehouse, "db2.db"))
    assert catalog.get_database("db2").name == "db2"
    with pytest.raises(AlreadyExistsError) as ei:
        catalog.create_database("db2")
    assert "db2" in str(ei.value)
    catalog.drop_database("db2")
    assert catalog.list_databases() == ["db"]
    with pytest.raises(NotFoundError) as ei:
        catalog.drop_database("db2")
    assert "db2" in str(ei.value)
    catalog.drop_database("db2", ignore_if_not_exists=True)
    with pytest.raises(NotFoundError):
        catalog.get_database("nope")


def test_database_location_property_rejected(catalog):
    with pytest.raises(InvalidArgumentError):
        catalog.create_database("x", properties={"location": "/tmp/elsewhere"})


def test_drop_database_cascade(catalog):
    catalog.create_table("db.t", simple_schema())
    with pytest.raises(PaimonError) as ei:
        catalog.drop_database("db")
    assert "db" in str(ei.value)
    assert catalog.list_tables("db") == ["t"]
    catalog.drop_database("db", cascade=True)
    assert catalog.list_databases() == []


def test_list_tables_of_missing_database(catalog):
    with pytest.raises(NotFoundError) as ei:
        catalog.list_tables("nodb")
    assert "nodb" in str(ei.value)


# --------------------------------------------------------------------- tables

def test_create_and_get_table(catalog):
    catalog.create_table("db.t", simple_schema(partition_keys=["dt"], primary_keys=["id", "dt"],
                                               options={"bucket": "2", "custom.k": "v"},
                                               comment="a table"))
    assert catalog.list_tables("db") == ["t"]
    t = catalog.get_table("db.t")
    assert t.identifier == "db.t"
    assert str(t.identifier) == "db.t"
    assert t.identifier.get_database_name() == "db" and t.identifier.get_table_name() == "t"
    assert t.schema_id == 0
    assert [f.id for f in t.fields] == [0, 1, 2, 3]
    assert [f.name for f in t.fields] == ["id", "name", "tags", "dt"]
    # primary-key columns become NOT NULL
    assert [str(f.type) for f in t.fields] == ["BIGINT NOT NULL", "STRING", "ARRAY<INT>", "STRING NOT NULL"]
    assert [f.type.nullable for f in t.fields] == [False, True, True, False]
    assert str(t.fields[2].type.element) == "INT"
    assert [f.description for f in t.fields] == [None, "the name", None, None]
    assert t.partition_keys == ["dt"]
    assert t.primary_keys == ["id", "dt"]
    assert t.options["bucket"] == "2" and t.options["custom.k"] == "v"
    assert t.comment == "a table"
    assert t.is_primary_key_table
    assert t.table_schema.highest_field_id == 3
    assert t.latest_snapshot() is None
    assert t.snapshots() == []
    assert t.list_tags() == []
    assert t.schema_ids() == [0]


def test_table_schema_to_json_is_java_form(catalog):
    catalog.create_table("db.t", simple_schema())
    t = catalog.get_table("db.t")
    text = t.table_schema.to_json()
    assert '"version" : 3' in text  # Jackson style "key" : value
    d = json.loads(text)
    assert list(d)[:4] == ["version", "id", "fields", "highestFieldId"]
    assert "comment" not in d  # Java omits a null comment
    assert "nullable" not in json.dumps(d)  # pypaimon's extra key is not written
    assert d["fields"][2]["type"] == {"type": "ARRAY", "element": "INT"}
    on_disk = open(os.path.join(t.table_path, "schema", "schema-0"), encoding="utf-8").read()
    assert on_disk == text


def test_to_arrow_schema_roundtrip(catalog):
    s = pa.schema([
        pa.field("a", pa.int32(), nullable=False),
        pa.field("b", pa.list_(pa.field("item", pa.string(), nullable=True))),
        pa.field("c", pa.struct([pa.field("x", pa.float64()), pa.field("y", pa.date32())])),
        pa.field("d", pa.timestamp("us")),
        pa.field("e", pa.decimal128(12, 2)),
    ])
    catalog.create_table("db.t", Schema.from_pyarrow_schema(s))
    got = catalog.get_table("db.t").to_arrow_schema()
    assert isinstance(got, pa.Schema)
    assert got.names == s.names
    for gf, sf in zip(got, s):
        assert gf.type == sf.type, gf.name
        assert gf.nullable == sf.nullable, gf.name


def test_create_from_columns(catalog):
    catalog.create_table("db.c", Schema(fields=[
        ("id", "BIGINT NOT NULL"),
        ("v", pa.float32(), "value"),
        ("m", "MAP<STRING NOT NULL, ROW<`a b` INT, c STRING>>"),
    ], primary_keys=["id"]))
    t = catalog.get_table("db.c")
    # str() is pypaimon's form; to_type_string() Java's SQL form
    assert [str(f.type) for f in t.fields] == [
        "BIGINT NOT NULL", "FLOAT", "MAP<STRING NOT NULL, ROW<a b: INT, c: STRING>>"]
    from paimonc.types import to_type_string
    assert [to_type_string(f.type) for f in t.fields] == [
        "BIGINT NOT NULL", "FLOAT", "MAP<STRING NOT NULL, ROW<`a b` INT, `c` STRING>>"]
    assert t.fields[1].description == "value"
    # nested ROW fields get ids after the top-level ones, children first
    assert [f.id for f in t.fields] == [0, 1, 2]
    assert sorted(f.id for f in t.fields[2].type.value.fields) == [3, 4]
    assert t.table_schema.highest_field_id == 4


def test_existing_table(catalog):
    catalog.create_table("db.t", simple_schema())
    with pytest.raises(AlreadyExistsError) as ei:
        catalog.create_table("db.t", simple_schema())
    assert "db.t" in str(ei.value)
    catalog.create_table("db.t", simple_schema(), ignore_if_exists=True)


def test_missing_table(catalog):
    with pytest.raises(NotFoundError) as ei:
        catalog.get_table("db.missing")
    assert "db.missing" in str(ei.value)
    assert isinstance(ei.value, LookupError)
    assert ei.value.code_name == "ENOTFOUND"
    with pytest.raises(NotFoundError):
        catalog.get_table("nodb.t")
    with pytest.raises(NotFoundError):
        catalog.drop_table("db.missing")
    catalog.drop_table("db.missing", ignore_if_not_exists=True)


@pytest.mark.parametrize("ident", [
    "db.a/b", "db/x.t", "db..", "db.", ".t", "db.t\x00x", "a\x00b.t", "nodot", "db.t$snapshots",
    "../x.t", "x.db.t",
])
def test_bad_table_names(catalog, ident):
    # '$' names a system table: refused as unsupported rather than invalid
    with pytest.raises((InvalidArgumentError, NotFoundError, UnsupportedError)) as ei:
        catalog.create_table(ident, simple_schema())
    assert str(ei.value)
    # nothing was created outside the database directory
    assert catalog.list_tables("db") == []


@pytest.mark.parametrize("name", ["a/b", "..", ".", "", "x\x00y", "x.db"])
def test_bad_database_names(catalog, name):
    with pytest.raises(InvalidArgumentError) as ei:
        catalog.create_database(name)
    assert isinstance(ei.value, ValueError)
    assert str(ei.value)


def test_bad_type_string(catalog):
    with pytest.raises(InvalidArgumentError) as ei:
        catalog.create_table("db.t", Schema(fields=[("a", "NOTATYPE(3")]))
    assert "NOTATYPE" in str(ei.value)
    with pytest.raises(InvalidArgumentError):
        catalog.create_table("db.t", Schema(fields=[("a", "DECIMAL(99, 2)")]))
    assert catalog.list_tables("db") == []


def test_bad_keys(catalog):
    with pytest.raises(InvalidArgumentError) as ei:
        catalog.create_table("db.t", simple_schema(primary_keys=["nope"]))
    assert "nope" in str(ei.value)
    with pytest.raises(InvalidArgumentError):
        catalog.create_table("db.t", simple_schema(partition_keys=["nope"]))


def test_missing_warehouse_option():
    with pytest.raises(InvalidArgumentError) as ei:
        CatalogFactory.create({})
    assert "warehouse" in str(ei.value)


def test_unsupported_metastore(tmp_path):
    with pytest.raises(UnsupportedError):
        CatalogFactory.create({"warehouse": str(tmp_path), "metastore": "rest"})


def test_missing_warehouse_directory(tmp_path):
    missing = str(tmp_path / "does-not-exist")
    c = CatalogFactory.create({"warehouse": missing})
    with pytest.raises(NotFoundError) as ei:
        c.get_table("db.t")
    assert str(ei.value)
    with pytest.raises(NotFoundError) as ei:
        c.list_databases()
    assert "does-not-exist" in str(ei.value)


def test_file_uri_warehouse(tmp_path):
    c = CatalogFactory.create({"warehouse": "file://" + str(tmp_path)})
    c.create_database("db")
    assert os.path.isdir(str(tmp_path / "db.db"))


def test_drop_and_rename(catalog):
    catalog.create_table("db.t", simple_schema())
    catalog.create_database("db2")
    catalog.rename_table("db.t", "db.u")
    assert catalog.list_tables("db") == ["u"]
    assert [f.name for f in catalog.get_table("db.u").fields] == ["id", "name", "tags", "dt"]
    catalog.create_table("db.t", simple_schema())
    with pytest.raises(AlreadyExistsError):
        catalog.rename_table("db.t", "db.u")
    with pytest.raises(NotFoundError):
        catalog.rename_table("db.zzz", "db.yyy")
    catalog.drop_table("db.u")
    assert catalog.list_tables("db") == ["t"]


def test_identifier_objects(catalog):
    from paimonc import Identifier
    catalog.create_table(Identifier("db", "t"), simple_schema())
    assert catalog.get_table(Identifier("db", "t")).identifier == Identifier("db", "t")


# -------------------------------------------------------------- alter table

def test_alter_table(catalog):
    catalog.create_table("db.t", simple_schema(partition_keys=["dt"], options={"a": "1"}))
    catalog.alter_table("db.t", [
        SchemaChange.add_column("score", "DOUBLE", comment="the score"),
        SchemaChange.rename_column("name", "full_name"),
        SchemaChange.update_column_comment("tags", "tag ids"),
        SchemaChange.set_option("b", "2"),
        SchemaChange.remove_option("a"),
        SchemaChange.update_comment("now with a comment"),
    ])
    t = catalog.get_table("db.t")
    assert t.schema_id == 1
    assert t.schema_ids() == [0, 1]
    assert [(f.id, f.name) for f in t.fields] == [(0, "id"), (1, "full_name"), (2, "tags"), (3, "dt"), (4, "score")]
    assert t.fields[4].description == "the score"
    assert t.fields[2].description == "tag ids"
    assert t.fields[1].description == "the name"
    assert t.options.get("b") == "2" and "a" not in t.options
    assert t.comment == "now with a comment"
    assert t.table_schema.highest_field_id == 4

    catalog.alter_table("db.t", [SchemaChange.drop_column("score")])
    catalog.alter_table("db.t", [SchemaChange.add_column("x", pa.int16())])
    t = catalog.get_table("db.t")
    assert [(f.id, f.name, str(f.type)) for f in t.fields][-1] == (5, "x", "SMALLINT")
    assert t.table_schema.highest_field_id == 5  # dropped id 4 is never reused
    assert t.schema(0).fields[1].name == "name"  # old versions stay readable
    assert len(t.schemas()) == 4  # create, alter, drop, add

    catalog.alter_table("db.t", [SchemaChange.update_comment(None)])
    assert catalog.get_table("db.t").comment is None


def test_alter_is_all_or_nothing(catalog):
    catalog.create_table("db.t", simple_schema())
    with pytest.raises(PaimonError):
        catalog.alter_table("db.t", [
            SchemaChange.add_column("ok", "INT"),
            SchemaChange.drop_column("no_such_column"),
        ])
    t = catalog.get_table("db.t")
    assert t.schema_ids() == [0]
    assert "ok" not in t.field_names


def test_alter_errors(catalog):
    catalog.create_table("db.t", simple_schema(primary_keys=["id"], partition_keys=["dt"]))
    with pytest.raises(NotFoundError):
        catalog.alter_table("db.nope", [SchemaChange.set_option("a", "b")])
    catalog.alter_table("db.nope", [SchemaChange.set_option("a", "b")], ignore_if_not_exists=True)
    with pytest.raises(PaimonError) as ei:
        catalog.alter_table("db.t", [SchemaChange.add_column("name", "INT")])
    assert "name" in str(ei.value)
    with pytest.raises(PaimonError):
        catalog.alter_table("db.t", [SchemaChange.drop_column("id")])  # primary key
    with pytest.raises(PaimonError):
        catalog.alter_table("db.t", [SchemaChange.drop_column("dt")])  # partition key
    with pytest.raises(InvalidArgumentError):
        catalog.alter_table("db.t", [SchemaChange.add_column("z", "NOT A TYPE")])
    with pytest.raises(PaimonError):
        catalog.alter_table("db.t", [SchemaChange.add_column("z", "INT NOT NULL")])
    with pytest.raises(UnsupportedError):
        SchemaChange.drop_column(["a", "b"])
    assert catalog.get_table("db.t").schema_ids() == [0]


def test_add_column_move(catalog):
    catalog.create_table("db.t", simple_schema())
    from paimonc import Move
    catalog.alter_table("db.t", [SchemaChange.add_column("first", "INT", move=Move.first("first"))])
    catalog.alter_table("db.t", [SchemaChange.add_column("after_id", "INT", move=Move.after("after_id", "id"))])
    catalog.alter_table("db.t", [SchemaChange.add_column("before_dt", "INT",
                                                         move=Move.before("before_dt", "dt"))])
    assert catalog.get_table("db.t").field_names == ["first", "id", "after_id", "name", "tags", "before_dt", "dt"]


def test_schema_change_type_inputs():
    from paimonc.types import AtomicType, ArrayType
    assert SchemaChange.add_column("a", "INT").args[2] == "INT"
    assert SchemaChange.add_column("a", pa.timestamp("ms", tz="UTC")).args[2] == \
        "TIMESTAMP(3) WITH LOCAL TIME ZONE"
    assert SchemaChange.add_column("a", pa.list_(pa.large_binary())).args[2] == "ARRAY<BLOB>"
    assert SchemaChange.add_column("a", pa.struct([("x y", pa.int8())])).args[2] == "ROW<`x y` TINYINT>"
    assert SchemaChange.add_column("a", ArrayType(True, AtomicType("INT", False))).args[2] == \
        "ARRAY<INT NOT NULL>"
    pdt = pytest.importorskip("pypaimon.schema.data_types")
    row = pdt.RowType(True, [pdt.DataField(0, "f", pdt.AtomicType("STRING"))])
    assert SchemaChange.add_column("a", row).args[2] == "ROW<`f` STRING>"
    assert SchemaChange.add_column("a", pdt.AtomicType("BIGINT")).args[2] == "BIGINT"


# ---------------------------------------------------------------- threads

def test_concurrent_calls_release_the_gil(catalog):
    for i in range(8):
        catalog.create_table("db.t%d" % i, simple_schema())
    errors = []

    def work(i):
        try:
            for _ in range(20):
                t = catalog.get_table("db.t%d" % i)
                assert t.field_names == ["id", "name", "tags", "dt"]
                assert t.list_tags() == []
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []


def test_version():
    assert paimonc.library_version().count(".") == 2
