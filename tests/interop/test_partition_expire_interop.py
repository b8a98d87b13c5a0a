"""Partition expiration against Java Paimon 1.4.2's PartitionExpire.

Tables partitioned by (dt STRING) or (dt INT, hour INT) get partitions with dates in the past,
the future, malformed values and nulls, over several commits. A copy is expired by paimonc
(Table.expire_partitions) and another by Java (store().newPartitionExpire(...).expire()) with
the same options: formatter / pattern / strategy / max-num. Both expire the same partitions
(in the same order), leave the same rows, and Java and pypaimon read paimonc's result. A commit
with partition.expiration-check-interval = 0 expires by itself, as Java's commit does.
"""
import os
import shutil
import sys
import time

import pytest

pa = pytest.importorskip("pyarrow")

sys.path.insert(0, os.path.dirname(__file__))
import java_harness as jh  # noqa: E402
import table_peers as tp  # noqa: E402

import paimonc  # noqa: E402

CASES = [
    # (name, schema, partition keys, rows (tuples), options)
    ("strdays", [("id", pa.int64()), ("dt", pa.string())], ["dt"],
     [(1, "20240101"), (2, "20240102"), (3, "20991231"), (4, "bad"), (5, None), (6, "20230615"), (7, "")],
     {"partition.expiration-time": "7d", "partition.timestamp-formatter": "yyyyMMdd"}),
    ("default_fmt", [("id", pa.int64()), ("dt", pa.string())], ["dt"],
     [(1, "2024-01-01"), (2, "2024-1-5"), (3, "2099-01-01"), (4, "2024-01-01 10:00:00"), (5, "2024-13-01"),
      (6, "2099-14-01"), (7, "2024-01-01 10:00")],
     {"partition.expiration-time": "1d"}),
    ("pattern", [("id", pa.int64()), ("dt", pa.string()), ("hour", pa.string())], ["dt", "hour"],
     [(1, "2024-01-01", "10"), (2, "2024-01-01", "11"), (3, "2099-01-01", "00"), (4, "2024-02-01", "x")],
     {"partition.expiration-time": "1h", "partition.timestamp-pattern": "$dt $hour:00:00"}),
    ("intdays_max", [("id", pa.int64()), ("d", pa.int32())], ["d"],
     [(1, 20240101), (2, 20240301), (3, 20240201), (4, 29991231)],
     {"partition.expiration-time": "30d", "partition.timestamp-formatter": "yyyyMMdd",
      "partition.expiration-max-num": "2"}),
    ("update_time", [("id", pa.int64()), ("p", pa.string())], ["p"],
     [(1, "a"), (2, "b")],
     {"partition.expiration-time": "1ms", "partition.expiration-strategy": "update-time"}),
]


def _build(wh, name, fields, pkeys, rows):
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    schema = pa.schema(fields)
    cat.create_table("db." + name, paimonc.Schema.from_pyarrow_schema(schema, partition_keys=pkeys))
    t = cat.get_table("db." + name)
    for i in range(0, len(rows), 2):
        chunk = rows[i:i + 2]
        data = pa.table({f[0]: [r[k] for r in chunk] for k, f in enumerate(fields)}, schema=schema)
        wb = t.new_batch_write_builder()
        with wb.new_write() as w, wb.new_commit() as c:
            w.write_arrow(data)
            c.commit(w.prepare_commit())
    return cat


def _ids(wh, ident):
    t = paimonc.CatalogFactory.create({"warehouse": wh}).get_table(ident)
    rb = t.new_read_builder()
    return sorted(rb.new_read().to_arrow(rb.new_scan().plan().splits()).column("id").to_pylist())


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    jh.build()
    base = tmp_path_factory.mktemp("pexpire")
    out = {}
    for name, fields, pkeys, rows, opts in CASES:
        wh = str(base / name)
        _build(wh, name, fields, pkeys, rows)
        time.sleep(0.01)
        shutil.copytree(wh, wh + "_j")
        ident = "db." + name
        t = paimonc.CatalogFactory.create({"warehouse": wh}).get_table(ident)
        dry = t.expire_partitions(options=opts, dry_run=True)
        got = t.expire_partitions(options=opts)
        # one JVM per case: option values hold spaces ("$dt $hour:00:00")
        p = jh.run("expire-partitions", wh + "_j", ident, *["%s=%s" % kv for kv in opts.items()], check=False)
        out[name] = dict(wh=wh, ident=ident, dry=dry, got=got, opts=opts, java=(p.returncode, p.stdout))
    return out


def test_same_partitions_and_rows_as_java(run):
    bad = []
    for name, o in run.items():
        rc, text = o["java"]
        if rc:
            bad.append("%s: Java failed: %s" % (name, text[-800:]))
            continue
        java = [line for line in text.split("\n") if line.strip()]
        if o["got"] != java:
            bad.append("%s: paimonc expired %s, Java %s" % (name, o["got"], java))
        if o["dry"] != o["got"]:
            bad.append("%s: the dry run said %s" % (name, o["dry"]))
        if _ids(o["wh"], o["ident"]) != _ids(o["wh"] + "_j", o["ident"]):
            bad.append("%s: rows %s vs Java's %s" % (name, _ids(o["wh"], o["ident"]), _ids(o["wh"] + "_j", o["ident"])))
        snap = paimonc.CatalogFactory.create({"warehouse": o["wh"]}).get_table(o["ident"]).latest_snapshot()
        if o["got"] and snap.commit_kind != "OVERWRITE":
            bad.append("%s: latest snapshot is %s" % (name, snap.commit_kind))
    assert not bad, "\n".join(bad)
    # the cases expire something (the test is not vacuous) and keep something
    assert sum(1 for o in run.values() if o["got"]) == len(CASES)


def test_peers_read_the_result(run):
    o = run["strdays"]
    rc, text = jh.run("table-read", o["wh"], o["ident"]).returncode, jh.run("table-read", o["wh"], o["ident"]).stdout
    assert rc == 0
    java_ids = sorted(r["id"] for r in tp.parse_java_rows(text))
    assert java_ids == _ids(o["wh"], o["ident"]) == [3, 4, 5, 7]
    pp = pytest.importorskip("pypaimon")
    pt = pp.CatalogFactory.create({"warehouse": o["wh"]}).get_table(o["ident"])
    rb = pt.new_read_builder()
    assert sorted(rb.new_read().to_arrow(rb.new_scan().plan().splits()).column("id").to_pylist()) == java_ids


def test_commits_expire_with_a_zero_check_interval(tmp_path):
    wh = str(tmp_path / "c")
    opts = {"partition.expiration-time": "7d", "partition.timestamp-formatter": "yyyyMMdd"}
    cat = _build(wh, "t", [("id", pa.int64()), ("dt", pa.string())], ["dt"], [(1, "20240101"), (2, "20991231")])
    assert _ids(wh, "db.t") == [1, 2]  # the default check interval (1 h): a fresh commit does not check
    t = cat.get_table("db.t").copy(dict(opts, **{"partition.expiration-check-interval": "0s"}))
    wb = t.new_batch_write_builder()
    with wb.new_write() as w, wb.new_commit() as c:
        w.write_arrow(pa.table({"id": [3], "dt": ["20991230"]}, schema=pa.schema([("id", pa.int64()), ("dt", pa.string())])))
        c.commit(w.prepare_commit())
    assert _ids(wh, "db.t") == [2, 3]
    with pytest.raises(paimonc.PaimonError, match="partition.expiration-time"):
        cat.get_table("db.t").expire_partitions()
