"""Random data-evolution (row tracking + DE) scenarios, an independent model of them, and a
driver that executes them with pypaimon or paimonc (issue 11 interop harness).

A *scenario* is plain JSON-serialisable data:

    {"table": "de_<seed>", "seed": seed, "dv": bool, "roll": N or None,
     "schema": Paimon schema JSON (table_gen.schema_json; options: row-tracking.enabled,
               data-evolution.enabled, bucket -1, [deletion-vectors.enabled], [target-file-row-num]),
     "ops": [
       {"op": "append", "writes": [[row...], [row...]]}     one commit; each inner list is one
                                                            TableWrite of full rows (several
                                                            writes per commit = several files)
       {"op": "append_cols", "cols": [...], "rows": [...]}  one commit of new rows holding only
                                                            `cols` (with_write_type); the other
                                                            columns read as null
       {"op": "update", "cols": [...], "row_ids": [...], "rows": [{col: v}...]}
                                                            one commit of new_update()
                                                            .with_update_type(cols)
                                                            .update_by_arrow_with_row_id(
                                                              _ROW_ID + cols)
       {"op": "delete", "row_ids": [...]}                   one commit of delete_by_row_id (DV)
       {"op": "alter", "changes": [<table_gen change>]}     alter_table; no snapshot
     ]}

Rows are in table_gen's canonical JSON encoding keyed by column name.

`Model` (used by the generator, so every scenario carries its expectation) keeps
_ROW_ID -> values by field id, the row-id group (file) of every row and the snapshot id of the
newest normal file of each group, and gives the expected table at every snapshot
(`expected_snapshots`) and at the latest state (`expected_latest`). It follows the spec
(ai-format.md §2.3, §3.4-3.8), not any implementation:

* row ids: per commit, files are ordered by partition (first appearance among the commit's
  messages; messages are per TableWrite in the order of the writes, per partition in order of
  first appearance in that write's input); each file gets the next `row_count` ids; rows of a
  partition keep their input order; `target-file-row-num` = N splits a write's partition rows
  into files of N rows (pypaimon 2.1.0 option);
* _SEQUENCE_NUMBER of a row = snapshot id of the newest normal file of its group: the append
  commit, then the latest update touching any row of the group (an update rewrites the updated
  columns of the whole group); a delete changes no sequence number;
* an update changes only the given rows/columns; deleted rows are gone (DV); ADD COLUMN reads
  null until an update supplies it; RENAME keeps the values; INT->BIGINT / FLOAT->DOUBLE widen;
* time travel to snapshot s reads s with the schema that was current when s was committed.

Generator constraints (things pypaimon 2.1.0 gets wrong or refuses, see test_de_interop.py):
* no RENAME of a column that is in any partial file's _WRITE_COLS (update or partial append):
  pypaimon maps _WRITE_COLS names through the current schema and then silently loses the
  update (test_known_pypaimon_loses_update_after_rename pins it);
* partition columns are never updated and are part of every partial append;
* updates never target deleted rows; every non-partition column is nullable.
"""
import copy
import json
import random

import table_gen as tg

DE_OPTIONS = {"row-tracking.enabled": "true", "data-evolution.enabled": "true", "bucket": "-1"}
ROW_ID, SEQ = "_ROW_ID", "_SEQUENCE_NUMBER"
SYS_T = {"k": "BIGINT", "null": False}

# generator switches (tests may change them, e.g. Java readers of pypaimon data)
DE_FLAGS = {
    "rename_after_update": False,   # see module doc
    "multi_partition_appends": True,  # False: one TableWrite (so one partition) per commit
    "roll": True,                   # target-file-row-num on some seeds
    "dv": True,                     # deletion-vectors.enabled on half of the seeds
    "updates": True,                # update / delete ops (Java 1.4.2 has neither API)
    "partial_partitioned": True,    # partial-column appends on partitioned tables (Java
                                    # 1.4.2's withWriteType breaks its partition extractor)
}

PART_VALUES = {"INT": [-3, 0, 1, 7], "STRING": ["a", "b", "x/y", "中", "A:B"],
               "DATE": ["2024-05-14", "1970-01-01"], "BOOLEAN": [True, False]}


# ------------------------------------------------------------------------------------ model

class Model:
    """Expected contents of a DE table after each operation (independent of any reader)."""

    def __init__(self, sj):
        self.fields = tg.fields_from_schema_json(sj)
        self.pkeys = list(sj["partitionKeys"])
        self.roll = int(sj["options"].get("target-file-row-num", 0)) or None
        self.next_id = tg.max_field_id(self.fields) + 1
        self.rows = {}       # row id -> {field id: canonical value}
        self.group = {}      # row id -> first row id of its group
        self.group_seq = {}  # first row id -> snapshot id of the newest normal file
        self.groups = {}     # first row id -> row count
        self.deleted = set()
        self.next_row_id = 0
        self.snapshot_id = 0
        self.snapshots = []  # [{"id", "fields", "rows": {rid: (values, seq)}}]
        self.partial_ids = set()  # field ids that are in some partial file's _WRITE_COLS

    # -- helpers
    def by_name(self):
        return {n: fid for fid, n, _ in self.fields}

    def ftype(self, name):
        return tg._ftype(self.fields, name)

    def live_ids(self):
        return sorted(r for r in self.rows if r not in self.deleted)

    def _pkey(self, row):
        return json.dumps([row.get(k) for k in self.pkeys])

    def _commit(self):
        self.snapshot_id += 1
        self.snapshots.append({
            "id": self.snapshot_id, "fields": copy.deepcopy(self.fields),
            "rows": {rid: (dict(self.rows[rid]), self.group_seq[self.group[rid]])
                     for rid in self.rows if rid not in self.deleted}})

    def file_layout(self, writes):
        """Rows of an append commit in row-id order, as a list of files (lists of rows)."""
        msgs = []
        for rows in writes:
            parts = {}
            for r in rows:
                parts.setdefault(self._pkey(r), []).append(r)
            for key, rs in parts.items():
                step = self.roll or len(rs)
                for i in range(0, len(rs), step):
                    msgs.append((key, rs[i:i + step]))
        order = {}
        for key, rs in msgs:
            order.setdefault(key, []).append(rs)
        return [rs for key in order for rs in order[key]]

    # -- operations
    def append(self, writes, cols=None):
        by_name = self.by_name()
        seq = self.snapshot_id + 1
        for rs in self.file_layout(writes):
            first = self.next_row_id
            self.groups[first] = len(rs)
            self.group_seq[first] = seq
            for r in rs:
                rid = self.next_row_id
                self.next_row_id += 1
                vals = {fid: None for fid, _, _ in self.fields}
                vals.update({by_name[n]: v for n, v in r.items()})
                self.rows[rid] = vals
                self.group[rid] = first
        if cols is not None:
            self.partial_ids |= {by_name[c] for c in cols}
        self._commit()

    def update(self, cols, row_ids, rows):
        by_name = self.by_name()
        seq = self.snapshot_id + 1
        for rid, r in zip(row_ids, rows):
            assert rid in self.rows and rid not in self.deleted, rid
            for c in cols:
                self.rows[rid][by_name[c]] = r[c]
            self.group_seq[self.group[rid]] = seq
        self.partial_ids |= {by_name[c] for c in cols}
        self._commit()

    def delete(self, row_ids):
        self.deleted |= set(row_ids)
        self._commit()

    def alter(self, changes):
        for ch in changes:
            old = {fid: t for fid, _, t in self.fields}
            self.fields, self.next_id = tg.apply_change(self.fields, ch, self.next_id)
            new = {fid: t for fid, _, t in self.fields}
            for vals in self.rows.values():
                for fid in list(vals):
                    if fid not in new:
                        del vals[fid]
                    else:
                        vals[fid] = tg.widen_value(vals[fid], old[fid], new[fid])
                for fid in new:
                    vals.setdefault(fid, None)

    def apply(self, op):
        kind = op["op"]
        if kind == "append":
            self.append(op["writes"])
        elif kind == "append_cols":
            self.append([op["rows"]], cols=op["cols"])
        elif kind == "update":
            self.update(op["cols"], op["row_ids"], op["rows"])
        elif kind == "delete":
            self.delete(op["row_ids"])
        elif kind == "alter":
            self.alter(op["changes"])
        else:
            raise ValueError(kind)


def _canon(fields, rows):
    """{rid: (values by field id, seq)} -> canonical rows sorted by _ROW_ID."""
    out = []
    for rid in sorted(rows):
        vals, seq = rows[rid]
        r = {n: vals.get(fid) for fid, n, _ in fields}
        r[ROW_ID] = rid
        r[SEQ] = seq
        out.append(r)
    return out


def read_fields(fields):
    """Fields of a DE read: the table columns then _ROW_ID, _SEQUENCE_NUMBER."""
    return list(fields) + [(-1, ROW_ID, SYS_T), (-2, SEQ, SYS_T)]


def model_of(scen):
    m = Model(scen["schema"])
    for op in scen["ops"]:
        m.apply(op)
    return m


def expected_snapshots(scen):
    """[(snapshot id, fields of that snapshot, canonical rows sorted by _ROW_ID)]."""
    m = model_of(scen)
    return [(s["id"], s["fields"], _canon(s["fields"], s["rows"])) for s in m.snapshots]


def expected_latest(scen):
    """(fields, rows) of a read without time travel (latest snapshot, current schema)."""
    m = model_of(scen)
    live = {rid: (m.rows[rid], m.group_seq[m.group[rid]]) for rid in m.rows if rid not in m.deleted}
    return m.fields, _canon(m.fields, live)


def canon_sorted(rows, fields):
    """Canonical JSON strings sorted by _ROW_ID (MAP pairs sorted by key)."""
    rf = read_fields(fields)
    out = []
    for r in sorted(rows, key=lambda r: r[ROW_ID]):
        r = {n: tg._sort_maps(r.get(n), t) for _, n, t in rf}
        out.append(json.dumps(r, sort_keys=True, ensure_ascii=False))
    return out


def diff(got, want, limit=2):
    """Short description of the difference of two canon_sorted lists ('' if equal)."""
    if got == want:
        return ""
    g = {json.loads(x)[ROW_ID]: x for x in got}
    w = {json.loads(x)[ROW_ID]: x for x in want}
    missing = sorted(set(w) - set(g))
    extra = sorted(set(g) - set(w))
    bad = [r for r in sorted(set(g) & set(w)) if g[r] != w[r]]
    msg = "got %d rows, want %d" % (len(got), len(want))
    if missing:
        msg += "; missing _ROW_IDs %s" % missing[:10]
    if extra:
        msg += "; unexpected _ROW_IDs %s" % extra[:10]
    for r in bad[:limit]:
        gd, wd = json.loads(g[r]), json.loads(w[r])
        cols = [k for k in wd if gd.get(k) != wd.get(k)]
        msg += "; _ROW_ID %d differs in %s: got %s want %s" % (
            r, cols, {k: gd.get(k) for k in cols}, {k: wd.get(k) for k in cols})
    if len(bad) > limit:
        msg += "; %d rows differ in all" % len(bad)
    return msg


# ------------------------------------------------------------------------------------ generator

def _rand_schema(rng, all_kinds):
    ids = tg._Ids(0)
    fields = []
    if all_kinds:
        kinds = list(tg.LEAF_KINDS)
        rng.shuffle(kinds)
        for i, k in enumerate(kinds):
            fields.append((ids.take(), "c%d" % i, tg.rand_leaf(rng, [k])))
        if tg.GEN_FLAGS["nested"]:
            for _ in range(2):
                t = tg.rand_type(rng, ids)
                fields.append((ids.take(), "c%d" % len(fields), t))
    else:
        for i in range(rng.randint(2, 6)):
            fid = ids.take()
            fields.append((fid, "c%d" % i, tg.rand_type(rng, ids)))
    for _, _, t in fields:
        _nullable(t)
    pkeys = []
    for j in range(rng.choice([0, 1, 1, 2])):
        k = rng.choice([k for k in tg.GEN_FLAGS["partition_kinds"] if k in PART_VALUES])
        name = "p%d" % j
        fields.insert(rng.randint(0, len(fields)), (ids.take(), name, {"k": k, "null": rng.random() < 0.5}))
        pkeys.append(name)
    return fields, pkeys


def _nullable(t):
    """Makes a column and every ROW field in it nullable. pypaimon 2.1.0 cannot update a ROW
    column with a NOT NULL field where the struct is null (a partial-append row, or a column
    added later): its update writer fails with ArrowInvalid "Column 'f0' is declared
    non-nullable but contains nulls"."""
    t["null"] = True
    if t["k"] == "ROW":
        for _, _, ft in t["fields"]:
            _nullable(ft)
    elif t["k"] == "ARRAY":
        _nullable(t["elem"])
    elif t["k"] == "MAP":
        _nullable(t["val"])
    return t


def _part_value(rng, t):
    if t["null"] and rng.random() < 0.15:
        return None
    return rng.choice(PART_VALUES[t["k"]])


def _rows(rng, m, names, n, part=None):
    out = []
    for _ in range(n):
        r = {}
        for name in names:
            t = m.ftype(name)
            if name in m.pkeys:
                r[name] = part[name] if part else _part_value(rng, t)
            else:
                r[name] = tg.rand_value(rng, t)
        out.append(r)
    return out


def _fixed_part(rng, m):
    if not m.pkeys:
        return None
    return {k: _part_value(rng, m.ftype(k)) for k in m.pkeys}


def _gen_append(rng, m):
    """One commit of 1..3 TableWrites, each of ONE partition (the order of partitions inside
    one write_arrow is not specified: pypaimon groups with Arrow's hash group_by, Java uses a
    HashMap), so row ids are determined by the write order; several writes of different
    partitions in one commit are ordered by first appearance (pypaimon's regrouping)."""
    names = [n for _, n, _ in m.fields]
    nwrites = rng.choice([1, 1, 2, 3]) if DE_FLAGS["multi_partition_appends"] else 1
    writes = [_rows(rng, m, names, rng.choice([3, 8, 15, 30]), _fixed_part(rng, m))
              for _ in range(nwrites)]
    return {"op": "append", "writes": writes}


def _gen_append_cols(rng, m):
    others = [n for _, n, _ in m.fields if n not in m.pkeys]
    k = rng.randint(1, max(1, len(others) - 1))
    cols = sorted(rng.sample(others, k), key=[n for _, n, _ in m.fields].index) + list(m.pkeys)
    rng.shuffle(cols)
    return {"op": "append_cols", "cols": cols,
            "rows": _rows(rng, m, cols, rng.choice([2, 5, 12]), _fixed_part(rng, m))}


def _gen_update(rng, m, prev_cols, prefer=None):
    live = m.live_ids()
    if not live:
        return None
    others = [n for _, n, _ in m.fields if n not in m.pkeys]
    fresh = [n for n in others if n not in prev_cols] or others
    ncols = rng.choice([1, 1, 2])
    cols = rng.sample(fresh, min(ncols, len(fresh)))
    if prefer and prefer in others and prefer not in cols:
        cols[0] = prefer
    start = rng.randrange(len(live))
    window = live[start:start + rng.choice([1, 4, 10, 25, 60])]
    keep = rng.choice([1.0, 0.7, 0.4])
    ids = [r for r in window if rng.random() < keep] or window[:1]
    rng.shuffle(ids)  # input order is not row-id order
    rows = [{c: tg.rand_value(rng, m.ftype(c)) for c in cols} for _ in ids]
    return {"op": "update", "cols": cols, "row_ids": ids, "rows": rows}


def _gen_delete(rng, m):
    live = m.live_ids()
    if len(live) < 2:
        return None
    start = rng.randrange(len(live))
    window = live[start:start + rng.choice([1, 3, 10])]
    ids = [r for r in window if rng.random() < 0.6] or window[:1]
    return {"op": "delete", "row_ids": ids}


def _gen_add(rng, m):
    ids = tg._Ids(m.next_id)
    fid = ids.take()
    t = _nullable(tg.rand_type(rng, ids))
    return {"op": "alter", "changes": [{"op": "addColumn", "name": "a%d" % fid, "type": tg.type_json(t)}]}


def _gen_rename_or_widen(rng, m):
    others = [(fid, n, t) for fid, n, t in m.fields if n not in m.pkeys]
    widen = [f for f in others if f[2]["k"] in ("INT", "FLOAT")]
    renamable = [f for f in others if DE_FLAGS["rename_after_update"] or f[0] not in m.partial_ids]
    choices = (["widen"] if widen else []) + (["rename"] if renamable else [])
    if not choices:
        return _gen_add(rng, m)
    if rng.choice(choices) == "widen":
        f = rng.choice(widen)
        nt = dict(f[2])
        nt["k"] = "BIGINT" if f[2]["k"] == "INT" else "DOUBLE"
        return {"op": "alter", "changes": [{"op": "updateColumnType", "name": f[1], "type": tg.sql(nt),
                                            "keepNullability": False}]}
    f = rng.choice(renamable)
    return {"op": "alter", "changes": [{"op": "renameColumn", "name": f[1], "newName": f[1] + "_r"}]}


def rand_scenario(seed):
    """A random DE scenario (see the module doc). Deterministic in the seed."""
    rng = random.Random(seed)
    fields, pkeys = _rand_schema(rng, all_kinds=(seed % 3 == 0))
    opts = dict(DE_OPTIONS)
    dv = rng.random() < 0.5 and DE_FLAGS["dv"]
    if dv:
        opts["deletion-vectors.enabled"] = "true"
    roll = rng.choice([None, None, 3, 7]) if DE_FLAGS["roll"] else None
    if roll:
        opts["target-file-row-num"] = str(roll)
    sj = tg.schema_json(fields, pkeys, opts)
    scen = {"table": "de_%d" % seed, "seed": seed, "dv": dv, "roll": roll, "schema": sj, "ops": []}
    m = Model(sj)

    def emit(op):
        if op is not None:
            scen["ops"].append(op)
            m.apply(op)
        return op

    # plan: append, [mixed part 1], update, schema change, update, [mixed part 2], update
    pool = ["append"] * rng.randint(1, 2) + ["append_cols", "update"] + ["alter_add"]
    if rng.random() < 0.6:
        pool.append("rename_widen")
    if dv:
        pool += ["delete"] * rng.randint(1, 2)
    rng.shuffle(pool)
    cut = rng.randint(0, len(pool))
    plan = ["append"] + pool[:cut] + ["update", "alter_mid", "update"] + pool[cut:] + ["update"]
    if dv and "delete" not in plan:
        plan.insert(len(plan) - 1, "delete")
    prev_cols, added = [], None
    if not DE_FLAGS["updates"]:
        plan = [s for s in plan if s not in ("update", "delete")]
    if pkeys and not DE_FLAGS["partial_partitioned"]:
        plan = [s for s in plan if s != "append_cols"]
    for step in plan:
        if step == "append":
            emit(_gen_append(rng, m))
        elif step == "append_cols":
            emit(_gen_append_cols(rng, m))
        elif step == "update":
            op = emit(_gen_update(rng, m, prev_cols, prefer=added))
            if op:
                prev_cols, added = op["cols"], None
        elif step == "delete":
            emit(_gen_delete(rng, m))
        elif step in ("alter_add", "alter_mid"):
            op = _gen_add(rng, m) if step == "alter_add" or rng.random() < 0.6 else _gen_rename_or_widen(rng, m)
            emit(op)
            ch = op["changes"][0]
            if ch["op"] == "addColumn":
                added = ch["name"]
        elif step == "rename_widen":
            emit(_gen_rename_or_widen(rng, m))
    return scen


def java_scenario(seed, writer):
    """A scenario Java Paimon 1.4.2 can take part in: as reader (no deletion vectors: 1.4.2
    refuses to load a DE table with deletion-vectors.enabled; no TIMESTAMP(7..9), which Java
    misreads in pypaimon files) and, with writer=True, as writer too (no updates/deletes, no
    target-file-row-num, one TableWrite per commit, partial-column appends only on
    unpartitioned tables)."""
    saved_de, saved_tg = dict(DE_FLAGS), dict(tg.GEN_FLAGS)
    try:
        DE_FLAGS["dv"] = False
        tg.GEN_FLAGS["ts_high_precision"] = False
        if writer:
            DE_FLAGS.update(updates=False, roll=False, multi_partition_appends=False,
                            partial_partitioned=False)
        return rand_scenario(seed)
    finally:
        DE_FLAGS.clear()
        DE_FLAGS.update(saved_de)
        tg.GEN_FLAGS.clear()
        tg.GEN_FLAGS.update(saved_tg)


def java_commands(scen, warehouse, workdir):
    """Java harness commands (tests/interop/java) that execute a writer scenario (create,
    de-write per append / partial append, alter)."""
    import os
    os.makedirs(workdir, exist_ok=True)
    ident = "db." + scen["table"]
    sf = os.path.join(workdir, "schema.json")
    with open(sf, "w") as f:
        json.dump(scen["schema"], f)
    cmds = [["create", warehouse, ident, sf]]

    def rows_file(name, rows):
        p = os.path.join(workdir, name)
        with open(p, "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        return p

    for i, op in enumerate(scen["ops"]):
        if op["op"] == "alter":
            cf = os.path.join(workdir, "changes_%d.json" % i)
            with open(cf, "w") as f:
                json.dump(op["changes"], f)
            cmds.append(["alter", warehouse, ident, cf])
        elif op["op"] == "append":
            cmds.append(["de-write", warehouse, ident] +
                        [rows_file("rows_%d_%d.jsonl" % (i, j), rs) for j, rs in enumerate(op["writes"])])
        elif op["op"] == "append_cols":
            cmds.append(["de-write", warehouse, ident, "--cols", ",".join(op["cols"]),
                         rows_file("rows_%d.jsonl" % i, op["rows"])])
        else:
            raise ValueError("Java 1.4.2 cannot execute %r" % op["op"])
    return cmds


def java_read_commands(scen, warehouse):
    """[(snapshot id or None, de-read command)] for every snapshot and the latest state."""
    ident = "db." + scen["table"]
    out = [(sid, ["de-read", warehouse, ident, "--snapshot", str(sid)]) for sid, _, _ in expected_snapshots(scen)]
    return out + [(None, ["de-read", warehouse, ident])]


def scenario_summary(scen):
    kinds = [op["op"] if op["op"] != "alter" else op["changes"][0]["op"] for op in scen["ops"]]
    return "%s dv=%s roll=%s parts=%s ops=%s" % (scen["table"], scen["dv"], scen["roll"],
                                                 scen["schema"]["partitionKeys"], kinds)


# ------------------------------------------------------------------------------------ driver

class Driver:
    """Executes scenarios with a pypaimon-shaped module ("pypaimon" or "paimonc") and reads
    tables back (canonical rows with _ROW_ID and _SEQUENCE_NUMBER).

    Everything where paimonc may differ from pypaimon's API is in the _adapt_* methods."""

    def __init__(self, kind):
        assert kind in ("pypaimon", "paimonc")
        self.kind = kind
        self.mod = __import__(kind)

    # -- adapter points
    def _adapt_create(self, cat, ident, sj):
        if self.kind == "pypaimon":
            from pypaimon.schema.data_types import DataField
            schema = self.mod.Schema(fields=[DataField.from_dict(f) for f in sj["fields"]],
                                     partition_keys=sj["partitionKeys"], primary_keys=sj["primaryKeys"],
                                     options=sj["options"], comment=sj.get("comment"))
            cat.create_table(ident, schema, False)
        else:
            # paimonc: Schema JSON keeps field ids and exact types (CHAR(n), TIME(p), ...)
            cat.create_table_from_json(ident, json.dumps(sj), False)

    def _adapt_changes(self, changes):
        import table_peers as tp
        return tp.pypaimon_changes(changes) if self.kind == "pypaimon" else tp.paimonc_changes(changes)

    @staticmethod
    def _close(*objs):
        for x in objs:
            if hasattr(x, "close"):
                x.close()

    # -- execution
    def catalog(self, warehouse):
        return self.mod.CatalogFactory.create({"warehouse": str(warehouse)})

    def execute(self, scen, warehouse, upto=None):
        """Creates the table and runs scen['ops'][:upto]."""
        cat = self.catalog(warehouse)
        cat.create_database("db", True)
        ident = "db." + scen["table"]
        self._adapt_create(cat, ident, scen["schema"])
        m = Model(scen["schema"])
        for op in scen["ops"][:upto]:
            self.run_op(cat, ident, m, op)
            m.apply(op)

    def _commit(self, wb, msgs):
        c = wb.new_commit()
        c.commit(msgs)
        self._close(c)

    def run_op(self, cat, ident, m, op):
        kind = op["op"]
        if kind == "alter":
            cat.alter_table(ident, self._adapt_changes(op["changes"]), False)
            return
        table = cat.get_table(ident)
        wb = table.new_batch_write_builder()
        if kind == "append":
            msgs = []
            for rows in op["writes"]:
                w = wb.new_write()
                w.write_arrow(tg.to_arrow(rows, m.fields))
                msgs += w.prepare_commit()
                self._close(w)
            self._commit(wb, msgs)
        elif kind == "append_cols":
            sub = [f for c in op["cols"] for f in m.fields if f[1] == c]
            w = wb.new_write()
            w.with_write_type(list(op["cols"]))
            w.write_arrow(tg.to_arrow(op["rows"], sub))
            msgs = w.prepare_commit()
            self._close(w)
            self._commit(wb, msgs)
        elif kind == "update":
            import pyarrow as pa
            sub = [f for c in op["cols"] for f in m.fields if f[1] == c]
            data = tg.to_arrow(op["rows"], sub)
            data = data.add_column(0, pa.field(ROW_ID, pa.int64(), nullable=False),
                                   pa.array(op["row_ids"], pa.int64()))
            u = wb.new_update().with_update_type(list(op["cols"]))
            self._commit(wb, u.update_by_arrow_with_row_id(data))
        elif kind == "delete":
            self._commit(wb, wb.new_update().delete_by_row_id(list(op["row_ids"])))
        else:
            raise ValueError(kind)

    def read(self, warehouse, table_ident, fields, snapshot=None):
        """Full read with _ROW_ID and _SEQUENCE_NUMBER -> canonical rows."""
        cat = self.catalog(warehouse)
        table = cat.get_table(table_ident)
        if snapshot is not None:
            table = table.copy({"scan.snapshot-id": str(snapshot)})
        names = [n for _, n, _ in fields]
        rb = table.new_read_builder().with_projection(names + [ROW_ID, SEQ])
        t = rb.new_read().to_arrow(rb.new_scan().plan().splits())
        return tg.from_arrow(t, read_fields(fields), names + [ROW_ID, SEQ])
