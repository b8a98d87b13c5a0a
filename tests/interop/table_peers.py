"""Execute table_gen plans and read tables with the peers: pypaimon, Java Paimon (through the
harness's batch mode) and paimonc (its pypaimon-shaped Python API).

Every reader returns canonical rows (table_gen's encoding); compare them with
table_gen.canonical_rows(rows, fields).

Java is driven in bulk: `java_plan_commands(plan, w, dir)` gives the harness commands that
execute a plan; `java_read_command(...)` one read; run them all with `java_harness.batch`
and parse the read output with `parse_java_rows`.
"""
import json
import math
import os

import table_gen as tg

DB = "db"


def ident(plan):
    return "%s.%s" % (DB, plan["table"])


# ------------------------------------------------------------------------------------ pypaimon

def _pp():
    from pypaimon import CatalogFactory, Schema
    from pypaimon.schema.data_types import DataField, DataTypeParser
    from pypaimon.schema.schema_change import SchemaChange
    return CatalogFactory, Schema, DataField, DataTypeParser, SchemaChange


def pypaimon_catalog(warehouse):
    CatalogFactory = _pp()[0]
    return CatalogFactory.create({"warehouse": str(warehouse)})


def pypaimon_changes(changes):
    _, _, _, DataTypeParser, SchemaChange = _pp()
    out = []
    for ch in changes:
        op = ch["op"]
        if op == "addColumn":
            out.append(SchemaChange.add_column(ch["name"], DataTypeParser.parse_data_type(ch["type"])))
        elif op == "renameColumn":
            out.append(SchemaChange.rename_column(ch["name"], ch["newName"]))
        elif op == "dropColumn":
            out.append(SchemaChange.drop_column(ch["name"]))
        elif op == "updateColumnType":
            out.append(SchemaChange.update_column_type(
                ch["name"], DataTypeParser.parse_data_type(ch["type"]), ch.get("keepNullability", False)))
        else:
            raise ValueError("no pypaimon mapping for change %r" % ch)
    return out


def _partition_py(spec, fields):
    if spec is None:
        return None
    types = {n: t for _, n, t in fields}
    return {k: tg.literal(v, types[k]) for k, v in spec.items()}


def execute_pypaimon(plan, warehouse, upto=None):
    """Runs plan['steps'][:upto] with pypaimon (creating the table first)."""
    _, Schema, DataField, _, _ = _pp()
    cat = pypaimon_catalog(warehouse)
    cat.create_database(DB, True)
    sj = plan["schema"]
    schema = Schema(fields=[DataField.from_dict(f) for f in sj["fields"]],
                    partition_keys=sj["partitionKeys"], primary_keys=sj["primaryKeys"],
                    options=sj["options"], comment=sj.get("comment"))
    cat.create_table(ident(plan), schema, False)
    run_steps(plan, upto, lambda step, fields: _pypaimon_step(cat, plan, step, fields))


def run_steps(plan, upto, do):
    fields = tg.fields_from_schema_json(plan["schema"])
    next_id = tg.max_field_id(fields) + 1
    for step in plan["steps"][:upto]:
        do(step, fields)
        if step["op"] == "alter":
            for ch in step["changes"]:
                fields, next_id = tg.apply_change(fields, ch, next_id)


def _pypaimon_step(cat, plan, step, fields):
    if step["op"] == "alter":
        cat.alter_table(ident(plan), pypaimon_changes(step["changes"]), False)
        return
    table = cat.get_table(ident(plan))
    wb = table.new_batch_write_builder()
    if step["overwrite"]:
        wb = wb.overwrite(_partition_py(step["partition"], fields))
    w = wb.new_write()
    w.write_arrow(tg.to_arrow(step["rows"], fields))
    msgs = w.prepare_commit()
    c = wb.new_commit()
    c.commit(msgs)
    c.close()
    w.close()


def read_pypaimon(warehouse, table_ident, fields, projection=None, predicate_fn=None, snapshot=None):
    """Reads with pypaimon -> canonical rows. predicate_fn(pb) builds a pypaimon predicate."""
    cat = pypaimon_catalog(warehouse)
    table = cat.get_table(table_ident)
    if snapshot is not None:
        table = table.copy({"scan.snapshot-id": str(snapshot)})
    rb = table.new_read_builder()
    if projection:
        rb = rb.with_projection(list(projection))
    if predicate_fn:
        rb = rb.with_filter(predicate_fn(rb.new_predicate_builder()))
    splits = rb.new_scan().plan().splits()
    t = rb.new_read().to_arrow(splits)
    return tg.from_arrow(t, fields, projection)


# ------------------------------------------------------------------------------------ Java

def java_plan_commands(plan, warehouse, workdir, upto=None):
    """Harness commands executing the plan (create + one command per step)."""
    os.makedirs(workdir, exist_ok=True)
    sf = os.path.join(workdir, "schema.json")
    with open(sf, "w") as f:
        json.dump(plan["schema"], f)
    cmds = [["create", warehouse, ident(plan), sf]]
    for i, step in enumerate(plan["steps"][:upto]):
        if step["op"] == "alter":
            cf = os.path.join(workdir, "changes_%d.json" % i)
            with open(cf, "w") as f:
                json.dump(step["changes"], f)
            cmds.append(["alter", warehouse, ident(plan), cf])
            continue
        rf = os.path.join(workdir, "rows_%d.jsonl" % i)
        with open(rf, "w", encoding="utf-8") as f:
            for r in step["rows"]:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        cmd = ["table-write", warehouse, ident(plan), rf]
        if step["overwrite"]:
            cmd.append("--overwrite")
            if step["partition"] is not None:
                pf = os.path.join(workdir, "partition_%d.json" % i)
                with open(pf, "w") as f:
                    json.dump(step["partition"], f)
                cmd += ["--partition", "@" + pf]
        cmds.append(cmd)
    return cmds


def java_read_command(warehouse, table_ident, workdir=None, filter_json=None, exact=False,
                      snapshot=None, projection=None, tag="r"):
    cmd = ["table-read", warehouse, table_ident]
    if filter_json is not None:
        ff = os.path.join(workdir, "filter_%s.json" % tag)
        with open(ff, "w") as f:
            json.dump(filter_json, f)
        cmd += ["--filter", "@" + ff]
    if exact:
        cmd.append("--exact")
    if snapshot is not None:
        cmd += ["--snapshot", str(snapshot)]
    if projection:
        cmd += ["--projection", ",".join(projection)]
    return cmd


def parse_java_rows(out):
    return [json.loads(line) for line in out.split("\n") if line.strip()]


# ------------------------------------------------------------------------------------ paimonc

def paimonc_catalog(warehouse):
    import paimonc
    return paimonc.CatalogFactory.create({"warehouse": str(warehouse)})


def execute_paimonc(plan, warehouse, upto=None):
    """Runs the plan with paimonc's pypaimon-shaped API."""
    cat = paimonc_catalog(warehouse)
    cat.create_database(DB, True)
    cat.create_table_from_json(ident(plan), json.dumps(plan["schema"]), False)
    run_steps(plan, upto, lambda step, fields: _paimonc_step(cat, plan, step, fields))


def _paimonc_step(cat, plan, step, fields):
    if step["op"] == "alter":
        cat.alter_table(ident(plan), paimonc_changes(step["changes"]), False)
        return
    table = cat.get_table(ident(plan))
    wb = table.new_batch_write_builder()
    if step["overwrite"]:
        wb = wb.overwrite(_partition_py(step["partition"], fields))
    w = wb.new_write()
    w.write_arrow(tg.to_arrow(step["rows"], fields))
    msgs = w.prepare_commit()
    c = wb.new_commit()
    c.commit(msgs)
    for x in (c, w):
        if hasattr(x, "close"):
            x.close()


def paimonc_changes(changes):
    """Harness change dicts -> paimonc.SchemaChange objects (types as SQL strings)."""
    from paimonc import SchemaChange
    out = []
    for ch in changes:
        op = ch["op"]
        if op == "addColumn":
            out.append(SchemaChange.add_column(ch["name"], tg.sql(tg.parse_type_json(ch["type"]))))
        elif op == "renameColumn":
            out.append(SchemaChange.rename_column(ch["name"], ch["newName"]))
        elif op == "dropColumn":
            out.append(SchemaChange.drop_column(ch["name"]))
        elif op == "updateColumnType":
            out.append(SchemaChange.update_column_type(ch["name"], ch["type"], ch.get("keepNullability", False)))
        else:
            raise ValueError("no paimonc mapping for change %r" % ch)
    return out


def read_paimonc(warehouse, table_ident, fields, projection=None, predicate_fn=None, limit=None,
                 snapshot=None):
    cat = paimonc_catalog(warehouse)
    table = cat.get_table(table_ident)
    if snapshot is not None:
        table = table.copy({"scan.snapshot-id": str(snapshot)})
    rb = table.new_read_builder()
    if projection:
        rb = rb.with_projection(list(projection))
    if predicate_fn:
        rb = rb.with_filter(predicate_fn(rb.new_predicate_builder()))
    if limit is not None:
        rb = rb.with_limit(limit)
    splits = rb.new_scan().plan().splits()
    t = rb.new_read().to_arrow(splits)
    return tg.from_arrow(t, fields, projection)


# ------------------------------------------------------------------------------------ filters

def rand_filter(rng, fields, rows, skip=None):
    """A random predicate over a top-level leaf column, as (filter JSON for the Java harness,
    a function pb -> pypaimon-style predicate, a Python matcher on canonical rows).
    Values come from the rows so the filter selects something. skip(type) excludes columns."""
    leafs = [(n, t) for _, n, t in fields
             if t["k"] in ("BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "DOUBLE", "FLOAT",
                           "STRING", "VARCHAR", "CHAR", "DATE", "DECIMAL")
             and not (skip and skip(t))]
    if not leafs or not rows:
        return None
    name, t = rng.choice(leafs)
    vals = [r.get(name) for r in rows if r.get(name) is not None]
    op = rng.choice(["eq", "lt", "le", "gt", "ge", "ne", "isnull", "notnull", "in"])
    if not vals and op not in ("isnull", "notnull"):
        op = "isnull"
    if op in ("isnull", "notnull"):
        fj = {"op": op, "col": name}
    elif op == "in":
        fj = {"op": op, "col": name, "values": rng.sample(vals, min(3, len(vals)))}
    else:
        fj = {"op": op, "col": name, "value": rng.choice(vals)}
    return fj, _pred_fn(fj, t), _matcher(fj, t)


def _key(v, t):
    k = t["k"]
    if k in ("FLOAT", "DOUBLE"):
        # Java Paimon's predicates compare floats like Float.compare/Double.compare: -0.0 is
        # less than 0.0 (so eq(-0.0) does not match 0.0); NaN is not generated.
        x = tg.bits_f32(v) if k == "FLOAT" else tg.bits_f64(v)
        return (x, -1 if x == 0 and math.copysign(1, x) < 0 else 0)
    if k == "DECIMAL":
        import decimal
        return decimal.Decimal(v)
    if k in ("STRING", "VARCHAR", "CHAR"):
        return v.encode("utf-8")  # Paimon compares strings by UTF-8 bytes
    return v


def _matcher(fj, t):
    op, name = fj["op"], fj["col"]

    def m(row):
        v = row.get(name)
        if op == "isnull":
            return v is None
        if op == "notnull":
            return v is not None
        if v is None:
            return False
        x = _key(v, t)
        if op == "in":
            return any(x == _key(c, t) for c in fj["values"])
        y = _key(fj["value"], t)
        return {"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y}[op]
    return m


def _pred_fn(fj, t):
    op, name = fj["op"], fj["col"]

    def lit(v):
        return tg.literal(v, t)

    def f(pb):
        if op == "isnull":
            return pb.is_null(name)
        if op == "notnull":
            return pb.is_not_null(name)
        if op == "in":
            return pb.is_in(name, [lit(v) for v in fj["values"]])
        meth = {"eq": "equal", "ne": "not_equal", "lt": "less_than", "le": "less_or_equal",
                "gt": "greater_than", "ge": "greater_or_equal"}[op]
        return getattr(pb, meth)(name, lit(fj["value"]))
    return f
