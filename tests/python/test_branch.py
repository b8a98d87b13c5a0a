"""Branches from Python: pypaimon's catalog names (create_branch, drop_branch, rename_branch,
fast_forward, list_branches), Table methods, 'db.t$branch_b' tables written and read, the
$branches system table, and errors that name the branch."""

import pytest

pa = pytest.importorskip("pyarrow")

import paimonc  # noqa: E402
from paimonc import PaimonError  # noqa: E402

SCHEMA = pa.schema([pa.field("id", pa.int64()), pa.field("p", pa.string())])


def write(t, ids):
    wb = t.new_batch_write_builder()
    with wb.new_write() as w, wb.new_commit() as c:
        w.write_arrow(pa.table({"id": ids, "p": ["a"] * len(ids)}, schema=SCHEMA))
        c.commit(w.prepare_commit())


def ids(t):
    rb = t.new_read_builder()
    return sorted(rb.new_read().to_arrow(rb.new_scan().plan().splits()).column("id").to_pylist())


def test_branch_lifecycle(tmp_path):
    cat = paimonc.CatalogFactory.create({"warehouse": str(tmp_path / "wh")})
    cat.create_database("db", True)
    cat.create_table("db.t", paimonc.Schema.from_pyarrow_schema(SCHEMA, partition_keys=["p"]))
    t = cat.get_table("db.t")
    write(t, [1, 2])
    write(t, [3])
    t.create_tag("v1", 1)
    cat.create_branch("db.t", "b", "v1")
    cat.get_table("db.t").create_branch("s", snapshot_id=2)
    cat.create_branch("db.t", "b", ignore_if_exists=True)
    assert cat.list_branches("db.t") == ["b", "s"]
    assert ids(cat.get_table("db.t$branch_b")) == [1, 2]
    assert ids(cat.get_table("db.t$branch_s")) == [1, 2, 3]
    write(cat.get_table("db.t$branch_b"), [7])
    assert ids(cat.get_table("db.t$branch_b")) == [1, 2, 7]
    assert ids(cat.get_table("db.t")) == [1, 2, 3]
    rb = cat.get_table("db.t$branches").new_read_builder()
    assert rb.new_read().to_arrow(rb.new_scan().plan().splits()).column("branch_name").to_pylist() == ["b", "s"]
    cat.rename_branch("db.t", "s", "s2")
    cat.drop_branch("db.t", "s2")
    cat.fast_forward("db.t", "b")
    assert ids(cat.get_table("db.t")) == [1, 2, 7]
    with pytest.raises(PaimonError, match="already exists"):
        cat.create_branch("db.t", "b")
    with pytest.raises(PaimonError, match="doesn't exist"):
        cat.drop_branch("db.t", "nope")
    with pytest.raises(PaimonError, match="branch 'nope'"):
        cat.get_table("db.t$branch_nope")
    with pytest.raises(PaimonError, match="pure numeric"):
        cat.create_branch("db.t", "007")
    with pytest.raises(PaimonError, match="is not the main table"):
        cat.get_table("db.t$branch_b").create_branch("x")
