"""Snapshots and tags: pypaimon writes data, paimonc reads the snapshots and
creates/deletes tags that pypaimon sees (and the other way round).

Difference noted: pypaimon's snapshot files have no "nextRowId" (Java always
writes it, 0 without row tracking); paimonc reads them regardless.
"""

import json
import os

import pytest

pa = pytest.importorskip("pyarrow")
pypaimon = pytest.importorskip("pypaimon")

import paimonc  # noqa: E402

SCHEMA = pa.schema([pa.field("id", pa.int64()), pa.field("v", pa.string())])


@pytest.fixture
def tables(tmp_path):
    wh = str(tmp_path / "wh")
    pp = pypaimon.CatalogFactory.create({"warehouse": wh})
    pp.create_database("db", False)
    pp.create_table("db.t", pypaimon.Schema.from_pyarrow_schema(SCHEMA), False)
    t = pp.get_table("db.t")
    for n in (3, 4):
        wb = t.new_batch_write_builder()
        w = wb.new_write()
        cm = wb.new_commit()
        w.write_arrow(pa.table({"id": list(range(n)), "v": ["x"] * n}, schema=SCHEMA))
        cm.commit(w.prepare_commit())
        w.close()
        cm.close()
    pc = paimonc.CatalogFactory.create({"warehouse": wh})
    return pp, pc, wh


def test_read_pypaimon_snapshots(tables):
    pp, pc, wh = tables
    t = pc.get_table("db.t")
    latest = t.latest_snapshot()
    assert latest is not None
    assert (latest.id, latest.schema_id, latest.commit_kind) == (2, 0, "APPEND")
    assert (latest.total_record_count, latest.delta_record_count) == (7, 4)
    assert t.earliest_snapshot().id == 1
    assert t.snapshot_ids() == [1, 2]
    assert [s.id for s in t.snapshots()] == [1, 2]
    raw = json.load(open(os.path.join(wh, "db.db", "t", "snapshot", "snapshot-2"), encoding="utf-8"))
    assert latest.commit_user == raw["commitUser"]
    assert latest.commit_identifier == raw["commitIdentifier"]
    assert latest.time_millis == raw["timeMillis"]
    assert latest.base_manifest_list == raw["baseManifestList"]
    assert latest.delta_manifest_list == raw["deltaManifestList"]
    mine = json.loads(latest.to_json())
    for k in ("id", "schemaId", "baseManifestList", "deltaManifestList", "totalRecordCount",
              "deltaRecordCount", "commitUser", "commitIdentifier", "commitKind", "timeMillis"):
        assert mine[k] == raw[k], k
    pp_latest = pp.get_table("db.t").snapshot_manager().get_latest_snapshot()
    assert pp_latest.id == latest.id and pp_latest.total_record_count == latest.total_record_count
    with pytest.raises(paimonc.NotFoundError) as ei:
        t.snapshot(99)
    assert "99" in str(ei.value)


def test_tags_both_ways(tables):
    pp, pc, wh = tables
    t = pc.get_table("db.t")
    t.create_tag("from_c")                     # latest snapshot
    t.create_tag("from_c_1", snapshot_id=1)
    with pytest.raises(paimonc.AlreadyExistsError):
        t.create_tag("from_c")
    t.create_tag("from_c", ignore_if_exists=True)
    with pytest.raises(paimonc.NotFoundError):
        t.create_tag("bad", snapshot_id=42)
    assert t.list_tags() == ["from_c", "from_c_1"]
    assert t.tag_snapshot("from_c").id == 2
    assert t.tag_snapshot("from_c_1").id == 1

    ppt = pp.get_table("db.t")
    assert sorted(ppt.list_tags()) == ["from_c", "from_c_1"]
    assert ppt.tag_manager().get("from_c_1").id == 1
    ppt.create_tag("from_py", 2)
    assert "from_py" in t.list_tags()
    assert t.tag_snapshot("from_py").id == 2

    assert t.delete_tag("from_c") is True
    assert t.delete_tag("from_c") is False
    assert sorted(pp.get_table("db.t").list_tags()) == ["from_c_1", "from_py"]


def test_tag_on_empty_table(tmp_path):
    pc = paimonc.CatalogFactory.create({"warehouse": str(tmp_path)})
    pc.create_database("db")
    pc.create_table("db.e", paimonc.Schema.from_pyarrow_schema(SCHEMA))
    t = pc.get_table("db.e")
    assert t.latest_snapshot() is None
    with pytest.raises(paimonc.NotFoundError):
        t.create_tag("x")
    assert t.list_tags() == []
