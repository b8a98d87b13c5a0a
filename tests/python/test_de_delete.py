"""Deletes of data-evolution tables with deletion vectors (delete_by_row_id,
delete_by_predicate) by paimonc and by pypaimon 2.1.0, interleaved with
appends and updates, checked against an independent model and read back by
both (full reads, filters, row ranges, limits, projections, time travel,
pickled splits); plus the bad inputs, each with a clear error."""

import pickle
import random

import pytest

pa = pytest.importorskip("pyarrow")
pypaimon = pytest.importorskip("pypaimon")

import paimonc  # noqa: E402
from paimonc import InvalidArgumentError, PaimonError  # noqa: E402

from test_de_update import SCHEMA, Model, append, commit, rand_rows, read_paimonc, read_pypaimon  # noqa: E402

DE_DV = {"row-tracking.enabled": "true", "data-evolution.enabled": "true", "deletion-vectors.enabled": "true"}
COLS = [f.name for f in SCHEMA]


class DvModel(Model):
    def __init__(self, cols):
        super().__init__(cols)
        self.deleted = set()

    def delete(self, ids):
        self.deleted |= set(ids)

    def live(self):
        return [r for r in sorted(self.rows) if r not in self.deleted]

    def expected(self, cols):
        return [r for r in super().expected(cols) if r["_ROW_ID"] not in self.deleted]


def make(tmp_path, partitioned, options=None):
    wh = str(tmp_path / "wh")
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    opts = dict(DE_DV)
    opts.update(options or {})
    cat.create_table("db.t", paimonc.Schema.from_pyarrow_schema(
        SCHEMA, partition_keys=["dt"] if partitioned else None, options=opts), False)
    return wh, cat


def add_rows(rnd, cat, model, partitioned, n):
    t = cat.get_table("db.t")
    rows = rand_rows(rnd, n, model.next)
    if partitioned:
        order = list(dict.fromkeys(r["dt"] for r in rows))
        rows = [r for p in order for r in rows if r["dt"] == p]
        sid = append(t, rows)
        for p in order:
            model.append([r for r in rows if r["dt"] == p], sid)
    else:
        sid = append(t, rows)
        model.append(rows, sid)
    return sid


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("partitioned", [False, True])
def test_deletes_by_both_read_by_both(tmp_path, seed, partitioned):
    rnd = random.Random(seed * 7 + partitioned)
    wh, cat = make(tmp_path, partitioned)
    model = DvModel(COLS)
    history = []
    for _ in range(rnd.randint(2, 3)):
        add_rows(rnd, cat, model, partitioned, rnd.randint(5, 40))
    for step in range(6):
        kind = rnd.choice(["pc_rowid", "pp_rowid", "pc_pred", "update", "append"])
        live = model.live()
        if not live:
            kind = "append"
        if kind == "append":
            sid = add_rows(rnd, cat, model, partitioned, rnd.randint(1, 10))
        elif kind == "update":
            t = cat.get_table("db.t")
            ids = rnd.sample(live, rnd.randint(1, len(live)))
            vals = {rid: {"tag": rnd.randrange(100)} for rid in ids}
            data = pa.table({"_ROW_ID": pa.array(ids, pa.int64()),
                             "tag": pa.array([vals[r]["tag"] for r in ids], pa.int32())})
            sid = commit(t, t.new_batch_write_builder().new_update().with_update_type(["tag"])
                         .update_by_arrow_with_row_id(data))
            model.update(vals, sid)
        elif kind == "pc_pred":
            t = cat.get_table("db.t")
            lim = rnd.uniform(-100, 100)
            pb = t.new_read_builder().new_predicate_builder()
            doomed = [r for r in live if model.rows[r]["score"] is not None and model.rows[r]["score"] > lim]
            msgs = t.new_batch_write_builder().new_update().delete_by_predicate(pb.greater_than("score", lim))
            assert bool(msgs) == bool(doomed)
            sid = commit(t, msgs) if msgs else None
            model.delete(doomed)
        else:
            ids = rnd.sample(live, rnd.randint(1, min(8, len(live))))
            if rnd.random() < 0.5:
                ids.append(ids[0])   # duplicates are fine
            if kind == "pc_rowid":
                t = cat.get_table("db.t")
                msgs = t.new_batch_write_builder().new_update().delete_by_row_id(ids)
                sid = commit(t, msgs)
            else:
                pt = pypaimon.CatalogFactory.create({"warehouse": wh}).get_table("db.t")
                wb = pt.new_batch_write_builder()
                msgs = wb.new_update().delete_by_row_id(ids)
                c = wb.new_commit()
                c.commit(msgs)
                c.close()
                sid = max(s for s in range(1, 100) if (tmp_path / "wh" / "db.db" / "t" / "snapshot" /
                                                       ("snapshot-%d" % s)).exists())
            model.delete(ids)
        if sid is not None:
            history.append((sid, model.expected(COLS)))
        exp = model.expected(COLS)
        assert read_paimonc(cat, "db.t", COLS) == exp, (step, kind)
        assert read_pypaimon(wh, "db.t", COLS) == exp, (step, kind)
    # time travel: every snapshot as it was
    for sid, exp in history:
        assert read_paimonc(cat, "db.t", COLS, snapshot=sid) == exp, sid
    # filters, row ranges, limits and projections over the deletes
    t = cat.get_table("db.t")
    exp = model.expected(COLS)
    pb = t.new_read_builder().new_predicate_builder()
    rb = t.new_read_builder().with_filter(pb.greater_than("id", 10)).with_projection(["id", "_ROW_ID"])
    got = rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist()
    assert sorted(r["_ROW_ID"] for r in got) == [r["_ROW_ID"] for r in exp if r["id"] > 10]
    rb = t.new_read_builder().with_filter(pb.greater_than("id", 10)).with_projection(["id"])
    got = rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist()
    assert sorted(r["id"] for r in got) == sorted(r["id"] for r in exp if r["id"] > 10)
    lo, hi = 3, max(model.rows)
    scan = t.new_read_builder().with_projection(["_ROW_ID", "name"]).new_scan().with_row_ranges(
        [paimonc.Range(lo, hi - 2)])
    got = t.new_read_builder().with_projection(["_ROW_ID", "name"]).new_read().to_arrow(scan.plan().splits())
    assert sorted(got.column("_ROW_ID").to_pylist()) == [r["_ROW_ID"] for r in exp if lo <= r["_ROW_ID"] <= hi - 2]
    rb = t.new_read_builder().with_limit(3)
    got = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    assert got.num_rows == min(3, len(exp))
    live_ids = {r["_ROW_ID"] for r in exp}
    rb = t.new_read_builder().with_projection(["tag", "_ROW_ID"])
    got = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    assert set(got.column("_ROW_ID").to_pylist()) == live_ids and got.num_rows == len(live_ids)
    # splits shipped to another process carry the deletion vectors
    splits = [pickle.loads(pickle.dumps(s)) for s in t.new_read_builder().new_scan().plan().splits()]
    got = t.new_read_builder().new_read().to_arrow(splits)
    assert got.num_rows == len(exp)


def test_delete_writes_one_index_file_per_bucket_and_no_data(tmp_path):
    wh, cat = make(tmp_path, True)
    t = cat.get_table("db.t")
    append(t, [{"id": i, "dt": "a" if i % 2 else "b"} for i in range(20)])
    t = cat.get_table("db.t")
    rows = read_paimonc(cat, "db.t", ["id", "dt"])
    ids = [r["_ROW_ID"] for r in rows if r["id"] in (1, 2, 3)]
    msgs = t.new_batch_write_builder().new_update().delete_by_row_id(ids)
    assert len(msgs) == 1 and msgs[0].file_count == 0 and msgs[0].index_count == 2   # a and b
    commit(t, msgs)
    idx = sorted(p.name for p in (tmp_path / "wh" / "db.db" / "t" / "index").iterdir())
    assert len(idx) == 2 and all(n.startswith("index-") for n in idx)
    pt = pypaimon.CatalogFactory.create({"warehouse": wh}).get_table("db.t")
    snap = pt.snapshot_manager().get_latest_snapshot() if hasattr(pt, "snapshot_manager") else None
    if snap is not None:
        assert snap.commit_kind == "OVERWRITE"
    assert sorted(r["id"] for r in read_pypaimon(wh, "db.t", ["id"])) == [i for i in range(20) if i not in (1, 2, 3)]


def test_bitmap64_reads_back(tmp_path):
    wh, cat = make(tmp_path, False, {"deletion-vectors.bitmap64": "true"})
    t = cat.get_table("db.t")
    append(t, rand_rows(random.Random(3), 30, 0))
    t = cat.get_table("db.t")
    commit(t, t.new_batch_write_builder().new_update().delete_by_row_id([0, 7, 29]))
    assert [r["_ROW_ID"] for r in read_paimonc(cat, "db.t", ["id"])] == [i for i in range(30) if i not in (0, 7, 29)]
    raw = next((tmp_path / "wh" / "db.db" / "t" / "index").iterdir()).read_bytes()
    assert raw[0] == 1 and int.from_bytes(raw[5:9], "little") == 1681511377   # 64-bit magic


def test_delete_errors(tmp_path):
    wh = str(tmp_path / "wh")
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    cat.create_table("db.nodv", paimonc.Schema.from_pyarrow_schema(
        SCHEMA, options={"row-tracking.enabled": "true", "data-evolution.enabled": "true"}), False)
    t = cat.get_table("db.nodv")
    append(t, rand_rows(random.Random(4), 5, 0))
    t = cat.get_table("db.nodv")
    with pytest.raises(InvalidArgumentError, match="deletion-vectors.enabled.*db.nodv|db.nodv.*deletion-vectors"):
        t.new_batch_write_builder().new_update().delete_by_row_id([1])
    wh2, cat2 = make(tmp_path / "x", False)
    t = cat2.get_table("db.t")
    with pytest.raises(InvalidArgumentError, match="no snapshot"):
        t.new_batch_write_builder().new_update().delete_by_row_id([0])
    append(t, rand_rows(random.Random(4), 5, 0))
    t = cat2.get_table("db.t")
    u = t.new_batch_write_builder().new_update()
    with pytest.raises(InvalidArgumentError, match="_ROW_ID 5 is not a row of snapshot 1"):
        u.delete_by_row_id([1, 5])
    with pytest.raises(InvalidArgumentError, match="must not be null"):
        u.delete_by_row_id([1, None])
    with pytest.raises(InvalidArgumentError, match="must not be null"):
        u.delete_by_row_id(pa.array([1, None], pa.int64()))
    with pytest.raises(TypeError):
        u.delete_by_predicate("id > 3")
    with pytest.raises(PaimonError, match="nope"):
        u.delete_by_predicate(t.new_read_builder().new_predicate_builder().equal("nope", 1))
    assert u.delete_by_row_id([]) == []
    # nothing was committed by the refused deletes
    assert len(read_paimonc(cat2, "db.t", ["id"])) == 5


def test_concurrent_deletes_conflict(tmp_path):
    wh, cat = make(tmp_path, False)
    t = cat.get_table("db.t")
    append(t, rand_rows(random.Random(5), 10, 0))
    t = cat.get_table("db.t")
    a = t.new_batch_write_builder().new_update().delete_by_row_id([1])
    b = t.new_batch_write_builder().new_update().delete_by_row_id([2])
    commit(t, a)
    with pytest.raises(PaimonError, match="onflict"):
        commit(t, b)
    assert [r["_ROW_ID"] for r in read_paimonc(cat, "db.t", ["id"])] == [0] + list(range(2, 10))


def test_pypaimon_update_after_paimonc_delete(tmp_path):
    """pypaimon updates a group paimonc deleted rows of: the rows stay deleted for both."""
    wh, cat = make(tmp_path, False)
    t = cat.get_table("db.t")
    append(t, rand_rows(random.Random(6), 10, 0))
    t = cat.get_table("db.t")
    commit(t, t.new_batch_write_builder().new_update().delete_by_row_id([2, 3]))
    pt = pypaimon.CatalogFactory.create({"warehouse": wh}).get_table("db.t")
    wb = pt.new_batch_write_builder()
    msgs = wb.new_update().with_update_type(["tag"]).update_by_arrow_with_row_id(
        pa.table({"_ROW_ID": pa.array([4], pa.int64()), "tag": pa.array([77], pa.int32())}))
    c = wb.new_commit()
    c.commit(msgs)
    c.close()
    for rows in (read_paimonc(cat, "db.t", ["tag"]), read_pypaimon(wh, "db.t", ["tag"])):
        assert [r["_ROW_ID"] for r in rows] == [0, 1, 4, 5, 6, 7, 8, 9]
        assert [r["tag"] for r in rows if r["_ROW_ID"] == 4] == [77]


def test_races_between_updates_deletes_and_overwrites(tmp_path):
    """Commits planned on the same snapshot: an update and a delete of the same group both
    land (different things), two updates of the same column of one group conflict, an
    update whose group was overwritten is refused; nothing is lost or duplicated."""
    wh, cat = make(tmp_path, False)
    t = cat.get_table("db.t")
    append(t, [{"id": i, "tag": 0} for i in range(10)])

    def upd(t, rid, v):
        return t.new_batch_write_builder().new_update().with_update_type(["tag"]).update_by_arrow_with_row_id(
            pa.table({"_ROW_ID": pa.array([rid], pa.int64()), "tag": pa.array([v], pa.int32())}))

    def state():
        return {r["_ROW_ID"]: r["tag"] for r in read_paimonc(cat, "db.t", ["tag"])}

    t = cat.get_table("db.t")
    u, d = upd(t, 1, 7), t.new_batch_write_builder().new_update().delete_by_row_id([3])
    commit(t, d)
    commit(t, u)                      # the update after the delete lands
    t = cat.get_table("db.t")
    d, u = t.new_batch_write_builder().new_update().delete_by_row_id([5]), upd(t, 6, 9)
    commit(t, u)
    commit(t, d)                      # the delete after the update lands
    assert state() == {0: 0, 1: 7, 2: 0, 4: 0, 6: 9, 7: 0, 8: 0, 9: 0}
    assert state() == {r["_ROW_ID"]: r["tag"] for r in read_pypaimon(wh, "db.t", ["tag"])}
    t = cat.get_table("db.t")
    u1, u2 = upd(t, 0, 1), upd(t, 8, 2)
    commit(t, u1)
    with pytest.raises(PaimonError, match="conflicts with snapshot .*writes columns this commit writes"):
        commit(t, u2)
    t = cat.get_table("db.t")
    u = upd(t, 0, 5)
    wb = t.new_batch_write_builder().overwrite()
    w = wb.new_write()
    w.write_arrow(pa.Table.from_pylist([{"id": 100, "tag": 100}], schema=SCHEMA))
    wb.new_commit().commit(w.prepare_commit())
    with pytest.raises(PaimonError, match="Row ID existence conflict"):
        commit(t, u)
    assert state() == {10: 100}
