"""System tables against Java Paimon 1.4.2's own: $snapshots, $schemas, $options, $tags,
$consumers, $manifests, $files, $partitions, $table_indexes, $branches.

For each seed a random table (table_gen.rand_plan: every type, nulls, partitions, schema
changes, an overwrite) is written by paimonc, then gets tags, a consumer file, and on odd
seeds a compaction. paimonc reads every system table (Python API) and Java's harness reads
the same ones through its catalog (`db.t$files` ...): both give the same rows, column by
column, with Java's names and types. Known, documented differences are left out and pinned:
statistics text of FLOAT/DOUBLE/DECIMAL/TIMESTAMP/BYTES columns ($files *_value_stats) uses
our canonical spelling.
Also: a filter, a projection and a limit on a system table, and time travel on $files.
"""
import datetime
import json
import os
import random
import sys

import pytest

pa = pytest.importorskip("pyarrow")

sys.path.insert(0, os.path.dirname(__file__))
import java_harness as jh  # noqa: E402
import table_gen as tg  # noqa: E402
import table_peers as tp  # noqa: E402

SEEDS = range(int(os.environ.get("PAIMONC_SYSTEM_TABLE_SEEDS", "20")))
TABLES = ["snapshots", "schemas", "options", "tags", "consumers", "manifests", "files", "partitions",
          "table_indexes", "branches"]
# stats text of these types is spelled differently (Java's toString of its internal values)
LOOSE_STATS = ("FLOAT", "DOUBLE", "DECIMAL", "TIMESTAMP", "LTZ", "BYTES", "BINARY", "VARBINARY",
               "ARRAY", "MAP", "ROW")


def _plan(seed):
    plan = tg.rand_plan(90_000 + seed)
    plan["schema"]["options"]["snapshot.num-retained.min"] = "100"
    return plan


def _norm(v):
    if isinstance(v, datetime.datetime):
        return v.strftime("%Y-%m-%dT%H:%M:%S.") + "%09d" % (v.microsecond * 1000)
    return v


def _ours(wh, ident, name, opts=None):
    t = tp.paimonc_catalog(wh).get_table("%s$%s" % (ident, name))
    if opts:
        t = t.copy(opts)
    rb = t.new_read_builder()
    a = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    return a.schema.names, [{k: _norm(v) for k, v in r.items()} for r in a.to_pylist()]


def _loose_columns(plan):
    """Names of loose-typed columns in any schema version (time travel shows old names)."""
    out = set()
    for upto in range(len(plan["steps"]) + 1):
        out |= {n for _, n, t in tg.plan_fields(plan, upto) if t["k"] in LOOSE_STATS}
    return out


def _strip_loose(text, loose):
    """'{a=1, b=x}' without the entries of loose columns."""
    if not loose or not text or not text.startswith("{"):
        return text
    parts, depth, cur = [], 0, ""
    for ch in text[1:-1]:
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    keep = [p for p in parts if p.split("=", 1)[0] not in loose]
    return "{" + ", ".join(keep) + "}"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    jh.build()
    base = tmp_path_factory.mktemp("systables")
    out = {}
    cmds = []
    for s in SEEDS:
        plan = _plan(s)
        wh = str(base / ("s%d" % s))
        tp.execute_paimonc(plan, wh)
        ident = tp.ident(plan)
        cat = tp.paimonc_catalog(wh)
        t = cat.get_table(ident)
        ids = t.snapshot_ids()
        rng = random.Random(s)
        t.create_tag("first", ids[0])
        t.create_tag("t%d" % rng.randint(0, 99), ids[-1])
        tdir = os.path.join(wh, ident.split(".")[0] + ".db", ident.split(".")[1])
        os.makedirs(os.path.join(tdir, "consumer"), exist_ok=True)
        with open(os.path.join(tdir, "consumer", "consumer-c%d" % s), "w") as f:
            f.write('{\n  "nextSnapshot" : %d\n}' % ids[-1])
        if s % 2:
            cat.get_table(ident).compact(options={"compaction.min.file-num": "2"})
        o = dict(plan=plan, wh=wh, ident=ident, first=ids[0], ours={}, slot={})
        for name in TABLES:
            o["ours"][name] = _ours(wh, ident, name)
            o["slot"][name] = len(cmds)
            cmds.append(["table-read", wh, "%s$%s" % (ident, name)])
        o["ours"]["files@first"] = _ours(wh, ident, "files", {"scan.snapshot-id": str(ids[0])})
        o["slot"]["files@first"] = len(cmds)
        cmds.append(["table-read", wh, "%s$files" % ident, "--snapshot", str(ids[0])])
        out[s] = o
    res, err = jh.batch(cmds)
    for o in out.values():
        o["java"] = {k: res[i] for k, i in o["slot"].items()}
    return dict(out=out, stderr=err)


def test_same_rows_as_java(run):
    bad, seen = [], {k: 0 for k in TABLES}
    for s, o in run["out"].items():
        loose = _loose_columns(o["plan"])
        for name, (cols, rows) in o["ours"].items():
            rc, text = o["java"][name]
            if rc:
                bad.append("seed %d $%s: Java failed: %s" % (s, name, text[-800:]))
                continue
            jrows = tp.parse_java_rows(text)
            if jrows and list(jrows[0].keys()) != cols:
                bad.append("seed %d $%s: columns %s, Java's %s" % (s, name, cols, list(jrows[0].keys())))
                continue
            mine = rows
            if name.startswith("files"):
                mine = [dict(r, **{k: _strip_loose(r[k], loose) for k in
                                   ("null_value_counts", "min_value_stats", "max_value_stats")}) for r in rows]
                jrows = [dict(r, **{k: _strip_loose(r[k], loose) for k in
                                    ("null_value_counts", "min_value_stats", "max_value_stats")}) for r in jrows]
            a = sorted(json.dumps(r, sort_keys=True, default=str) for r in mine)
            b = sorted(json.dumps(r, sort_keys=True, default=str) for r in jrows)
            if a != b:
                diff = [x for x in a if x not in b][:2] + ["--- Java:"] + [x for x in b if x not in a][:2]
                bad.append("seed %d $%s differs:\n    %s" % (s, name, "\n    ".join(diff)))
            if name in seen and rows:
                seen[name] += 1
    assert not bad, "\n".join(x[:3000] for x in bad)
    # the histories make these non-empty on every seed
    for name in ("snapshots", "schemas", "tags", "consumers", "manifests", "files", "partitions"):
        assert seen[name] == len(run["out"]), (name, seen[name])


def test_filter_projection_limit(run):
    o = run["out"][0]
    t = tp.paimonc_catalog(o["wh"]).get_table(o["ident"] + "$snapshots")
    rb = t.new_read_builder()
    pb = rb.new_predicate_builder()
    rb = rb.with_filter(pb.greater_than("snapshot_id", 1)).with_projection(["commit_kind", "snapshot_id"]).with_limit(2)
    got = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    assert got.schema.names == ["commit_kind", "snapshot_id"]
    assert got.column("snapshot_id").to_pylist() == [2, 3]
    with pytest.raises(Exception, match="read-only system table"):
        wb = t.new_batch_write_builder()
        w = wb.new_write()
        w.write_arrow(pa.table({"snapshot_id": [1]}))
        wb.new_commit().commit(w.prepare_commit())
    with pytest.raises(Exception, match="unknown system table"):
        tp.paimonc_catalog(o["wh"]).get_table(o["ident"] + "$nope")
