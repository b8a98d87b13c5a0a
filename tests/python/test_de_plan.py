"""Row-id group planning (paimonc.plan_row_id_ranges / process_row_id_ranges,
issue 11) compared with pypaimon 2.1.0's own process_row_id_ranges (which
runs without Ray: it only plans and calls the processor), plus the
resumable backfill pattern: a processor that reads its ranges filtered on
`col IS NULL`, computes and commits an update, stopped part-way (an
exception, and a SIGKILLed process), then run again."""

import json
import os
import random
import subprocess
import sys

import pytest

pa = pytest.importorskip("pyarrow")
pypaimon = pytest.importorskip("pypaimon")
from pypaimon.ray.process_row_id_ranges import process_row_id_ranges as py_process  # noqa: E402

import paimonc  # noqa: E402
from paimonc import InvalidArgumentError, Range  # noqa: E402

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([pa.field("id", pa.int64()), pa.field("v", pa.float64()), pa.field("dt", pa.string())])


def commit(table, msgs):
    c = table.new_batch_write_builder().new_commit()
    try:
        return c.commit(msgs)
    finally:
        c.close()


def make(tmp_path, partitioned=False, options=DE, schema=SCHEMA, name="db.t"):
    wh = str(tmp_path / "wh")
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    cat.create_table(name, paimonc.Schema.from_pyarrow_schema(
        schema, partition_keys=["dt"] if partitioned else None, options=dict(options)), False)
    return wh, cat, cat.get_table(name)


def append(t, rows, schema=SCHEMA):
    w = t.new_batch_write_builder().new_write()
    w.write_arrow(pa.Table.from_pylist(rows, schema=schema))
    sid = commit(t, w.prepare_commit())
    w.close()
    return sid


def update(t, col, values):
    data = pa.table({"_ROW_ID": pa.array(list(values), pa.int64()),
                     col: pa.array(list(values.values()), pa.float64())})
    return commit(t, t.new_batch_write_builder().new_update().with_update_type([col])
                  .update_by_arrow_with_row_id(data))


def py_batches(wh, ident, rows_per_commit):
    got = []
    py_process(ident, {"warehouse": wh}, rows_per_commit=rows_per_commit,
               processor=lambda ranges: got.append([(r.from_, r.to) for r in ranges]))
    return got


def pc_batches(t, rows_per_commit, snapshot_id=None):
    out = paimonc.plan_row_id_ranges(t, rows_per_commit, snapshot_id)
    for b in out:
        assert all(isinstance(r, Range) for r in b)
    return [[(r.from_, r.to) for r in b] for b in out]


def test_notes_example_8_over_10_and_6(tmp_path):
    wh, cat, t = make(tmp_path)
    append(t, [{"id": i, "v": None, "dt": "a"} for i in range(10)])
    append(t, [{"id": i, "v": None, "dt": "a"} for i in range(10, 16)])
    t = cat.get_table("db.t")
    assert pc_batches(t, 8) == [[(0, 9)], [(10, 15)]]
    assert py_batches(wh, "db.t", 8) == pc_batches(t, 8)
    # 16 reaches the threshold exactly with both groups; 17 never does
    assert pc_batches(t, 16) == [[(0, 9), (10, 15)]] == py_batches(wh, "db.t", 16)
    assert pc_batches(t, 17) == [[(0, 9), (10, 15)]] == py_batches(wh, "db.t", 17)
    assert pc_batches(t, 1) == [[(0, 9)], [(10, 15)]]


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("partitioned", [False, True])
def test_groups_match_pypaimon(tmp_path, seed, partitioned):
    rnd = random.Random(seed * 7 + partitioned)
    wh, cat, t = make(tmp_path, partitioned)
    total = 0
    for _ in range(rnd.randrange(2, 7)):
        n = rnd.randrange(1, 40)
        append(t, [{"id": total + i, "v": None, "dt": rnd.choice("ab")} for i in range(n)])
        total += n
        if rnd.random() < 0.6:   # partial-column files inside existing groups
            ids = rnd.sample(range(total), rnd.randrange(1, min(total, 10) + 1))
            update(t, "v", {i: float(i) for i in ids})
    t = cat.get_table("db.t")
    for rows in (1, 3, 10, 25, 64, 10 ** 6):
        assert pc_batches(t, rows) == py_batches(wh, "db.t", rows), rows
    # every row id exactly once, groups disjoint and in order
    flat = [r for b in pc_batches(t, 1) for r in b]
    assert flat == sorted(flat)
    assert sum(b - a + 1 for a, b in flat) == total
    assert all(flat[i][1] < flat[i + 1][0] for i in range(len(flat) - 1))


def test_overlapping_files_form_one_group(tmp_path):
    """An update spanning groups writes one file per group: still separate
    groups; a group's partial-column files never split it."""
    wh, cat, t = make(tmp_path)
    append(t, [{"id": i, "v": None, "dt": "a"} for i in range(5)])
    append(t, [{"id": i, "v": None, "dt": "a"} for i in range(5, 12)])
    update(t, "v", {0: 1.0, 4: 2.0, 6: 3.0})
    update(t, "v", {3: 1.0})
    t = cat.get_table("db.t")
    assert pc_batches(t, 1) == [[(0, 4)], [(5, 11)]] == py_batches(wh, "db.t", 1)


def test_snapshot_id_and_empty(tmp_path):
    wh, cat, t = make(tmp_path)
    assert paimonc.plan_row_id_ranges(t, 5) == []
    s1 = append(t, [{"id": i, "v": None, "dt": "a"} for i in range(4)])
    append(t, [{"id": i, "v": None, "dt": "a"} for i in range(4, 9)])
    t = cat.get_table("db.t")
    assert pc_batches(t, 1, snapshot_id=s1) == [[(0, 3)]]
    assert pc_batches(t, 1) == [[(0, 3)], [(4, 8)]]
    with pytest.raises(paimonc.PaimonError, match="999"):
        paimonc.plan_row_id_ranges(t, 1, snapshot_id=999)


def test_bad_arguments(tmp_path):
    wh, cat, t = make(tmp_path)
    for bad in (0, -1, True, 2.5, "3"):
        with pytest.raises(ValueError, match="rows_per_commit"):
            paimonc.plan_row_id_ranges(t, bad)
    with pytest.raises(ValueError, match="processor"):
        paimonc.process_row_id_ranges(t, rows_per_commit=3, processor=None)
    cat.create_table("db.plain", paimonc.Schema.from_pyarrow_schema(SCHEMA), False)
    with pytest.raises(InvalidArgumentError, match=r"db\.plain.*row-tracking\.enabled"):
        paimonc.plan_row_id_ranges(cat.get_table("db.plain"), 3)


# --------------------------------------------------------- resumable backfill

def backfill_processor(cat, log_path, stop_after=None, kill_after=None):
    """Reads the batch's rows with v IS NULL, sets v = id * 2, commits, and
    logs the committed row ids. stop_after: raise after that many batches
    (logged); kill_after: SIGKILL the process right after that batch's
    commit, before it is logged."""
    state = {"n": 0}

    def processor(ranges):
        t = cat.get_table("db.t")
        rb = t.new_read_builder()
        rb = rb.with_filter(rb.new_predicate_builder().is_null("v")).with_projection(["id", "_ROW_ID"])
        scan = rb.new_scan().with_row_ranges(ranges)
        data = rb.new_read().to_arrow(scan.plan().splits())
        if data.num_rows:
            assert all(any(r.from_ <= x <= r.to for r in ranges) for x in data.column("_ROW_ID").to_pylist())
            upd = pa.table({"_ROW_ID": data.column("_ROW_ID"),
                            "v": pa.array([2.0 * i for i in data.column("id").to_pylist()], pa.float64())})
            commit(t, t.new_batch_write_builder().new_update().with_update_type(["v"])
                   .update_by_arrow_with_row_id(upd))
        state["n"] += 1
        if kill_after is not None and state["n"] == kill_after:
            os.kill(os.getpid(), 9)    # committed but not logged: the log must not matter
        with open(log_path, "a") as f:
            f.write(json.dumps(data.column("_ROW_ID").to_pylist()) + "\n")
        if stop_after is not None and state["n"] == stop_after:
            raise RuntimeError("stopped")

    return processor


def committed_ids(log_path):
    out = []
    if os.path.exists(log_path):
        with open(log_path) as f:
            for line in f:
                out.extend(json.loads(line))
    return out


def final_rows(cat):
    t = cat.get_table("db.t")
    rb = t.new_read_builder().with_projection(["id", "v", "_ROW_ID", "_SEQUENCE_NUMBER"])
    return sorted(rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist(), key=lambda r: r["_ROW_ID"])


def test_backfill_resumes_after_stop(tmp_path):
    wh, cat, t = make(tmp_path)
    for k in range(6):
        append(t, [{"id": 10 * k + i, "v": None, "dt": "a"} for i in range(10)])
    log = str(tmp_path / "log")
    with pytest.raises(RuntimeError, match="stopped"):
        paimonc.process_row_id_ranges(cat.get_table("db.t"), rows_per_commit=15,
                                      processor=backfill_processor(cat, log, stop_after=2))
    first = committed_ids(log)
    assert sorted(first) == list(range(40))            # 2 batches of 2 groups
    rows = final_rows(cat)
    assert [r["v"] for r in rows] == [2.0 * r["id"] if r["id"] < 40 else None for r in rows]
    n = paimonc.process_row_id_ranges(cat.get_table("db.t"), rows_per_commit=15,
                                      processor=backfill_processor(cat, log))
    assert n == 3
    ids = committed_ids(log)
    assert sorted(ids) == list(range(60))               # each row computed once
    assert len(ids) == len(set(ids))
    rows = final_rows(cat)
    assert [r["v"] for r in rows] == [2.0 * r["id"] for r in rows]
    # pypaimon reads the same result
    pt = pypaimon.CatalogFactory.create({"warehouse": wh}).get_table("db.t")
    rb = pt.new_read_builder().with_projection(["id", "v"])
    got = sorted(rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist(), key=lambda r: r["id"])
    assert [r["v"] for r in got] == [2.0 * r["id"] for r in got]


KILL_SCRIPT = r"""
import sys
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[2])
import paimonc
import test_de_plan as m
cat = paimonc.CatalogFactory.create({"warehouse": sys.argv[3]})
kill = int(sys.argv[5]) if sys.argv[5] != "-" else None
paimonc.process_row_id_ranges(cat.get_table("db.t"), rows_per_commit=10,
                              processor=m.backfill_processor(cat, sys.argv[4], kill_after=kill))
"""


def test_backfill_resumes_after_kill(tmp_path):
    wh, cat, t = make(tmp_path)
    for k in range(5):
        append(t, [{"id": 10 * k + i, "v": None, "dt": "a"} for i in range(10)])
    log = str(tmp_path / "log")
    here = os.path.dirname(os.path.abspath(__file__))
    pkg = os.path.dirname(paimonc.__file__ if hasattr(paimonc, "__file__") else ".")
    args = [sys.executable, "-c", KILL_SCRIPT, os.path.dirname(pkg), here, wh, log]
    r = subprocess.run(args + ["3"], capture_output=True, text=True)
    assert r.returncode == -9, r.stderr
    # the third batch committed but was never logged: the rerun skips it
    assert sorted(committed_ids(log)) == list(range(20))
    r = subprocess.run(args + ["-"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    batches = [json.loads(x) for x in open(log).read().split("\n") if x]
    assert batches[2] == []                 # rows 20..29 already computed
    ids = committed_ids(log)
    assert sorted(ids) == [i for i in range(50) if not 20 <= i < 30]
    assert len(ids) == len(set(ids))
    rows = final_rows(cat)
    assert [r["v"] for r in rows] == [2.0 * r["id"] for r in rows]
    # every row was written exactly once: one update file per group at most
    t = cat.get_table("db.t")
    assert sum(s.file_count() for s in [sp._s for sp in t.new_read_builder().new_scan().plan().splits()]) == 10
