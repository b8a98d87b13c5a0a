"""Snapshots, hints and tags shared with real Java Paimon.

Java writes data (several commits, each a snapshot) and tags; paimonc reads
every snapshot field as Java reports it, rewrites each snapshot file to the
same bytes, and creates tags that Java then lists and reads from.
"""
import json

import pytest

import paimonc
import java_harness as jh


@pytest.fixture(scope="module", autouse=True)
def harness():
    jh.build()


SCHEMA = {"fields": [{"name": "id", "type": "INT NOT NULL"}, {"name": "v", "type": "BIGINT"},
                     {"name": "s", "type": "STRING"}, {"name": "d", "type": "DOUBLE"},
                     {"name": "b", "type": "BOOLEAN"}, {"name": "dt", "type": "STRING NOT NULL"}],
          "partitionKeys": ["dt"], "primaryKeys": [], "options": {"bucket": "-1"}, "comment": "snap"}


@pytest.mark.parametrize("commits", [1, 3, 7])
def test_java_snapshots_read_by_paimonc(tmp_path, commits):
    wh = tmp_path / "wh"
    sf = tmp_path / "schema.json"
    sf.write_text(json.dumps(SCHEMA))
    cmds = [["create", wh, "db.t", sf]]
    cmds += [["write-demo", wh, "db.t", 5 + i] for i in range(commits)]
    cmds += [["tag", wh, "db.t", "first", 1], ["tag", wh, "db.t", "last"], ["snapshots", wh, "db.t"]]
    results, err = jh.batch(cmds)
    assert all(rc == 0 for rc, _ in results), err
    java = [json.loads(l) for l in results[-1][1].splitlines() if l.strip()]
    assert [s["id"] for s in java] == list(range(1, commits + 1))

    t = paimonc.CatalogFactory.create({"warehouse": str(wh)}).get_table("db.t")
    ours = t.snapshots()
    assert [(s.id, s.schema_id, s.commit_kind, s.total_record_count, s.delta_record_count) for s in ours] == \
        [(s["id"], s["schemaId"], s["commitKind"], s["totalRecordCount"], s["deltaRecordCount"]) for s in java]
    assert t.latest_snapshot().id == commits
    assert t.earliest_snapshot().id == 1
    # Our writer reproduces Java's snapshot files byte for byte.
    for s in ours:
        assert s.to_json() == (wh / "db.db" / "t" / "snapshot" / f"snapshot-{s.id}").read_text()
        raw = json.loads(s.to_json())
        assert s.next_row_id == raw.get("nextRowId") and s.commit_user == raw["commitUser"]
    assert t.list_tags() == ["first", "last"]
    assert t.tag_snapshot("first").id == 1 and t.tag_snapshot("last").id == commits


def test_paimonc_tags_read_by_java(tmp_path):
    wh = tmp_path / "wh"
    sf = tmp_path / "schema.json"
    sf.write_text(json.dumps(SCHEMA))
    results, err = jh.batch([["create", wh, "db.t", sf]] + [["write-demo", wh, "db.t", 3]] * 3)
    assert all(rc == 0 for rc, _ in results), err
    t = paimonc.CatalogFactory.create({"warehouse": str(wh)}).get_table("db.t")
    t.create_tag("v1", 1)
    t.create_tag("v2", 2)
    t.create_tag("head")
    results, err = jh.batch([["tags", wh, "db.t"]])
    assert results[0][0] == 0, err
    java = [json.loads(l) for l in results[0][1].splitlines() if l.strip()]
    assert java == [{"name": "head", "snapshotId": 3}, {"name": "v1", "snapshotId": 1},
                    {"name": "v2", "snapshotId": 2}]
    # Java keeps committing on top of our tags, and still lists them.
    t.delete_tag("v2")
    results, err = jh.batch([["write-demo", wh, "db.t", 2], ["tags", wh, "db.t"]])
    assert [rc for rc, _ in results] == [0, 0], err
    assert [json.loads(l)["name"] for l in results[1][1].splitlines() if l.strip()] == ["head", "v1"]


def test_stale_and_missing_hints(tmp_path):
    wh = tmp_path / "wh"
    sf = tmp_path / "schema.json"
    sf.write_text(json.dumps(SCHEMA))
    results, err = jh.batch([["create", wh, "db.t", sf]] + [["write-demo", wh, "db.t", 2]] * 4)
    assert all(rc == 0 for rc, _ in results), err
    snap_dir = wh / "db.db" / "t" / "snapshot"
    cat = paimonc.CatalogFactory.create({"warehouse": str(wh)})
    (snap_dir / "LATEST").write_text("2")          # stale: snapshot-3 exists
    assert cat.get_table("db.t").latest_snapshot().id == 4
    (snap_dir / "LATEST").unlink()                  # missing
    assert cat.get_table("db.t").latest_snapshot().id == 4
    (snap_dir / "LATEST").write_text("garbage")     # unreadable
    assert cat.get_table("db.t").latest_snapshot().id == 4
    (snap_dir / "EARLIEST").write_text("9")         # points past the end
    assert cat.get_table("db.t").earliest_snapshot().id == 1
