"""Schema interop with real Java Paimon (jars from Maven Central).

- Java creates (and alters) tables; paimonc describes them identically.
- paimonc creates (and alters) tables; Java loads them and describes them
  identically, and Java's own rendering of our schema file equals our bytes.
- For the same schema, paimonc's schema-0 file is byte-identical to Java's
  (timeMillis aside).

Random schemas come from fixed seeds and cover every type, NOT NULL at every
level, descriptions, partition and primary keys, options and comments.
"""
import json
import random
import re
from pathlib import Path

import pytest

import paimonc
import java_harness as jh

CASES = jh.HARNESS / "cases"
SEEDS = range(40)


@pytest.fixture(scope="module", autouse=True)
def harness():
    jh.build()


def rand_atomic(r):
    p = r.randint(1, 38)
    return r.choice([
        "BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE",
        f"DECIMAL({p}, {r.randint(0, p)})", f"CHAR({r.randint(1, 255)})",
        f"VARCHAR({r.randint(1, 65535)})", "STRING", f"BINARY({r.randint(1, 64)})",
        f"VARBINARY({r.randint(1, 1024)})", "BYTES", "DATE", f"TIME({r.randint(0, 3)})",
        f"TIMESTAMP({r.randint(0, 9)})", f"TIMESTAMP({r.randint(0, 9)}) WITH LOCAL TIME ZONE",
        "VARIANT",
    ])


def nn(r, t):
    return t + (" NOT NULL" if r.random() < 0.25 else "")


def rand_type(r, depth):
    k = r.random()
    if depth >= 3 or k < 0.55:
        return nn(r, rand_atomic(r))
    if k < 0.67:
        return nn(r, f"ARRAY<{rand_type(r, depth + 1)}>")
    if k < 0.75:
        return nn(r, f"MULTISET<{rand_type(r, depth + 1)}>")
    if k < 0.87:
        key = nn(r, rand_atomic(r).replace("VARIANT", "STRING"))
        return nn(r, f"MAP<{key}, {rand_type(r, depth + 1)}>")
    fields = []
    for i in range(r.randint(1, 3)):
        f = f"`n{depth}_{i}` {rand_type(r, depth + 1)}"
        if r.random() < 0.3:
            f += f" COMMENT 'nested {i}'"
        fields.append(f)
    return nn(r, "ROW<" + ", ".join(fields) + ">")


def rand_schema(seed):
    """Returns (columns [(name, type, description)], partition_keys, primary_keys, options, comment)."""
    r = random.Random(seed)
    cols = []
    for i in range(r.randint(1, 12)):
        desc = r.choice([None, None, f"column {i}", "ünïcødé \"quoted\" 'single'"])
        cols.append([f"c{i}", rand_type(r, 0), desc])
    options = {"bucket": "-1"}
    if r.random() < 0.3:  # AI columns need row tracking + data evolution
        options.update({"row-tracking.enabled": "true", "data-evolution.enabled": "true"})
        cols.append(["blob_col", "BLOB", "image bytes"])
        if r.random() < 0.5:
            options["vector.file.format"] = "avro"
            cols.append(["emb", f"VECTOR<FLOAT, {r.randint(1, 1024)}>", None])
    parts, pks = [], []
    if r.random() < 0.6:
        for name, typ in (("dt", "STRING NOT NULL"), ("hr", "INT NOT NULL"), ("flag", "BOOLEAN NOT NULL"), ("d", "DATE NOT NULL")):
            if r.random() < 0.5:
                cols.append([name, typ, None])
                parts.append(name)
    if "row-tracking.enabled" not in options and r.random() < 0.4:
        cols.insert(0, ["pk", "BIGINT NOT NULL", "primary key"])
        pks = ["pk"] + parts
        options["bucket"] = str(r.randint(1, 8))
    if r.random() < 0.5:
        options[f"custom.k{seed}"] = f"v{seed}"
    comment = r.choice([None, f"table {seed}", "multi\nline"])
    return cols, parts, pks, options, comment


def java_schema_json(cols, parts, pks, options, comment):
    """Java Schema JSON for the harness's `create` (ids assigned as Java's Schema.Builder does)."""
    return json.dumps({"fields": [{"name": n, "type": t, "description": d} for n, t, d in cols],
                       "partitionKeys": parts, "primaryKeys": pks, "options": options, "comment": comment})


def paimonc_schema(cols, parts, pks, options, comment):
    return paimonc.Schema([(n, t, d) for n, t, d in cols], partition_keys=parts, primary_keys=pks,
                          options=options, comment=comment)


def drop_time(text):
    return re.sub(r'"timeMillis" : \d+', '"timeMillis" : 0', text)


def test_java_all_types_table_described_identically(tmp_path):
    wh = tmp_path / "wh"
    results, err = jh.batch([
        ["create", wh, "interop.all_types", CASES / "all_types_schema.json"],
        ["describe", wh, "interop.all_types"],
        ["alter", wh, "interop.all_types", CASES / "all_types_alter.json"],
        ["describe", wh, "interop.all_types"],
    ])
    assert [rc for rc, _ in results] == [0, 0, 0, 0], err
    cat = paimonc.CatalogFactory.create({"warehouse": str(wh)})
    t0 = cat.get_table("interop.all_types")
    # schema-1 is the latest now; compare both versions.
    assert jh.describe_paimonc(t0) == json.loads(results[3][1])
    s0 = t0.schema(0)
    assert jh.describe_paimonc(s0) == json.loads(results[1][1])


@pytest.mark.parametrize("seed", SEEDS)
def test_java_creates_paimonc_describes(tmp_path, seed):
    wh = tmp_path / "wh"
    spec = rand_schema(seed)
    f = tmp_path / "schema.json"
    f.write_text(java_schema_json(*spec))
    results, err = jh.batch([["create", wh, "db.t", f], ["describe", wh, "db.t"]])
    assert results[0][0] == 0, err
    cat = paimonc.CatalogFactory.create({"warehouse": str(wh)})
    assert jh.describe_paimonc(cat.get_table("db.t")) == json.loads(results[1][1])


def rand_changes(seed, cols, parts, pks, options):
    """A random ALTER as harness change objects (the harness's alter JSON)."""
    r = random.Random(1000 + seed)
    free = [c[0] for c in cols if c[0] not in parts and c[0] not in pks and c[1] != "BLOB"]
    changes = [{"op": "addColumn", "name": "added_a", "type": rand_type(r, 1).replace(" NOT NULL", ""),
                "comment": "added"},
               {"op": "setOption", "key": "snapshot.num-retained.max", "value": str(r.randint(10, 50))},
               {"op": "updateComment", "comment": f"altered {seed}"}]
    if free:
        victim = r.choice(free)
        changes.append({"op": "renameColumn", "name": victim, "newName": victim + "_renamed"})
        changes.append({"op": "updateColumnComment", "name": victim + "_renamed", "comment": "renamed column"})
        rest = [c for c in free if c != victim]
        if rest:
            changes.append({"op": "dropColumn", "name": rest[0]})
    if any(k.startswith("custom.") for k in options):
        changes.append({"op": "removeOption", "key": f"custom.k{seed}"})
    if r.random() < 0.5:
        changes.append({"op": "addColumn", "name": "added_first", "type": "INT", "first": True})
    return changes


def paimonc_changes(changes):
    SC = paimonc.SchemaChange
    out = []
    for c in changes:
        op = c["op"]
        if op == "addColumn":
            move = paimonc.Move.first(c["name"]) if c.get("first") else None
            out.append(SC.add_column(c["name"], c["type"], c.get("comment"), move))
        elif op == "renameColumn":
            out.append(SC.rename_column(c["name"], c["newName"]))
        elif op == "dropColumn":
            out.append(SC.drop_column(c["name"]))
        elif op == "updateColumnComment":
            out.append(SC.update_column_comment(c["name"], c["comment"]))
        elif op == "updateComment":
            out.append(SC.update_comment(c["comment"]))
        elif op == "setOption":
            out.append(SC.set_option(c["key"], c["value"]))
        elif op == "removeOption":
            out.append(SC.remove_option(c["key"]))
        else:
            raise AssertionError(op)
    return out


@pytest.mark.parametrize("seed", SEEDS)
def test_paimonc_creates_and_alters_java_loads(tmp_path, seed):
    """paimonc creates and alters; Java loads both versions and describes them as
    paimonc does. A twin table created and altered the same way by Java has the
    very same schema files (timeMillis aside)."""
    wh = tmp_path / "wh"
    cols, parts, pks, options, comment = rand_schema(seed)
    changes = rand_changes(seed, cols, parts, pks, options)
    cat = paimonc.CatalogFactory.create({"warehouse": str(wh)})
    cat.create_database("db", False)
    cat.create_table("db.t", paimonc_schema(cols, parts, pks, options, comment), False)
    cat.alter_table("db.t", paimonc_changes(changes))
    ours = cat.get_table("db.t")
    sf, cf = tmp_path / "schema.json", tmp_path / "changes.json"
    sf.write_text(java_schema_json(cols, parts, pks, options, comment))
    cf.write_text(json.dumps(changes))
    results, err = jh.batch([["describe", wh, "db.t", 0], ["describe", wh, "db.t"],
                             ["create", wh, "db.twin", sf], ["alter", wh, "db.twin", cf]])
    assert [rc for rc, _ in results] == [0, 0, 0, 0], err
    assert jh.describe_paimonc(ours.schema(0)) == json.loads(results[0][1])
    assert jh.describe_paimonc(ours) == json.loads(results[1][1])
    for n in (0, 1):
        java_text = (wh / "db.db" / "twin" / "schema" / f"schema-{n}").read_text()
        ours_text = (wh / "db.db" / "t" / "schema" / f"schema-{n}").read_text()
        assert drop_time(ours_text) == drop_time(java_text), f"schema-{n}"


@pytest.mark.parametrize("seed", SEEDS)
def test_schema_file_bytes_equal_java(tmp_path, seed):
    cols, parts, pks, options, comment = rand_schema(seed)
    # Java writes options in HashMap order; with one option the order is fixed.
    options = {"bucket": options["bucket"]} if not pks else {"bucket": options["bucket"]}
    if any(t in ("BLOB",) or t.startswith("VECTOR") for _, t, _ in cols):
        cols = [c for c in cols if c[1] != "BLOB" and not c[1].startswith("VECTOR")]
    wh = tmp_path / "wh"
    f = tmp_path / "schema.json"
    f.write_text(java_schema_json(cols, parts, pks, options, comment))
    results, err = jh.batch([["create", wh, "db.java", f]])
    assert results[0][0] == 0, err
    cat = paimonc.CatalogFactory.create({"warehouse": str(wh)})
    cat.create_table("db.ours", paimonc_schema(cols, parts, pks, options, comment), False)
    java_text = (wh / "db.db" / "java" / "schema" / "schema-0").read_text()
    ours_text = (wh / "db.db" / "ours" / "schema" / "schema-0").read_text()
    assert drop_time(ours_text) == drop_time(java_text)
