"""Snapshot expiration on random histories, against Java Paimon's own expiration.

For each seed a table gets a random history: appends, dynamic overwrites, tags on random
snapshots (some deleted again), consumers, and on data-evolution tables updates by row id
and deletes by row id (deletion-vector index files), with expirations in between. Every
snapshot and tag is read before the last expiration. The table is copied; paimonc expires
one copy and Java Paimon 1.4.2 (`newExpireSnapshots().config(...).expire()`) the other with
the same settings. Then:
  - both copies hold exactly the same files (Java deletes the same set) and EARLIEST hint;
  - every retained snapshot and every tag reads exactly as before (paimonc; pypaimon reads
    the latest snapshot and the tags);
  - no referenced file is missing (find_missing_files) and nothing unreferenced is left
    (a dry-run orphan scan with a guard in the future finds nothing);
  - the number of expired snapshots follows Java's rule, computed here independently.
"""

import datetime
import json
import os
import random
import shutil
import sys
import time

import pytest

pa = pytest.importorskip("pyarrow")

import paimonc  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import java_harness  # noqa: E402

SEEDS = range(32)
SCHEMA = pa.schema([
    pa.field("id", pa.int64()),
    pa.field("v", pa.string()),
    pa.field("tag", pa.int32()),
    pa.field("p", pa.string()),
])
DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}


def rows(rnd, start, n, parts):
    return pa.table({
        "id": pa.array(range(start, start + n), pa.int64()),
        "v": [None if rnd.random() < 0.1 else "v%d" % rnd.randrange(10 ** 6) for _ in range(n)],
        "tag": pa.array([rnd.randrange(100) for _ in range(n)], pa.int32()),
        "p": [rnd.choice(parts) for _ in range(n)],
    }, schema=SCHEMA)


def commit_msgs(t, msgs):
    wb = t.new_batch_write_builder()
    c = wb.new_commit()
    try:
        c.commit(msgs)
    finally:
        c.close()


def snap_dir(tdir):
    return os.path.join(tdir, "snapshot")


def snapshot_ids(tdir):
    return sorted(int(n[9:]) for n in os.listdir(snap_dir(tdir)) if n.startswith("snapshot-") and n[9:].isdigit())


def read_all(t, opts):
    t = t.copy(opts)
    rb = t.new_read_builder()
    proj = [f.name for f in SCHEMA]
    if t.options.get("row-tracking.enabled") == "true":
        proj = proj + ["_ROW_ID"]
    rb = rb.with_projection(proj)
    out = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    return sorted(map(lambda r: json.dumps(r, sort_keys=True), out.to_pylist()))


def tree(root):
    out = []
    for d, _, files in os.walk(root):
        out.extend(os.path.relpath(os.path.join(d, f), root) for f in files)
    return sorted(out)


def expected_expired(tdir, cfg):
    """Java 1.4.2's ExpireSnapshotsImpl.expire(), computed from the files."""
    ids = snapshot_ids(tdir)
    latest, earliest = ids[-1], ids[0]
    rmin, rmax, limit = cfg["min"], cfg["max"], cfg["limit"]
    lo = max(latest - rmax + 1, earliest)
    hi = latest - rmin + 1
    cons = os.path.join(tdir, "consumer")
    if os.path.isdir(cons):
        nexts = [json.load(open(os.path.join(cons, n)))["nextSnapshot"] for n in os.listdir(cons)
                 if n.startswith("consumer-")]
        if nexts:
            hi = min(hi, min(nexts))
    hi = min(hi, earliest + limit)
    end = hi
    # time-retained is 1 ms: every snapshot is older
    return max(0, len([i for i in ids if earliest <= i < end]))


def build_history(wh, seed, dv=False):
    """dv: data-evolution tables get deletion vectors and deletes by row id
    (Java 1.4.2 refuses data evolution with deletion vectors)."""
    rnd = random.Random(seed)
    de = seed % 3 == 2
    partitioned = seed % 2 == 0
    parts = ["a", "b", "c"] if partitioned else ["a"]
    opts = dict(DE) if de else {}
    if de and dv:
        opts["deletion-vectors.enabled"] = "true"
    if rnd.random() < 0.5:
        opts["manifest.merge-min-count"] = str(rnd.randint(2, 4))
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    cat.create_table("db.t", paimonc.Schema.from_pyarrow_schema(
        SCHEMA, partition_keys=["p"] if partitioned and not de else None, options=opts))
    tdir = os.path.join(wh, "db.db", "t")
    next_id, tags, nrows = 0, [], 0
    steps = rnd.randint(10, 22)
    for step in range(steps):
        t = cat.get_table("db.t")
        ids = snapshot_ids(tdir) if os.path.isdir(snap_dir(tdir)) else []
        kind = rnd.choices(["append", "overwrite", "tag", "untag", "consumer", "update", "delete", "index",
                            "unindex", "expire"],
                           [6, 0 if de else 2, 2, 1, 1, 3 if de else 0, 2 if de and dv else 0, 2 if de else 0,
                            1.5 if de else 0, 1])[0]
        if not ids or nrows == 0:
            kind = "append"
        if kind == "append":
            n = rnd.randint(1, 30)
            w = t.new_batch_write_builder().new_write()
            w.write_arrow(rows(rnd, next_id, n, parts))
            commit_msgs(t, w.prepare_commit())
            w.close()
            next_id += n
            nrows += n
        elif kind == "overwrite":
            n = rnd.randint(1, 10)
            wb = t.new_batch_write_builder().overwrite()
            w = wb.new_write()
            w.write_arrow(rows(rnd, next_id, n, [rnd.choice(parts)]))
            c = wb.new_commit()
            c.commit(w.prepare_commit())
            c.close()
            w.close()
            next_id += n
        elif kind == "tag":
            name = "t%d" % step
            t.create_tag(name, rnd.choice(ids))
            tags.append(name)
        elif kind == "untag" and tags:
            t.delete_tag(tags.pop(rnd.randrange(len(tags))))
        elif kind == "consumer":
            os.makedirs(os.path.join(tdir, "consumer"), exist_ok=True)
            with open(os.path.join(tdir, "consumer", "consumer-c%d" % rnd.randrange(3)), "w") as f:
                f.write('{\n  "nextSnapshot" : %d\n}' % rnd.choice(ids))
        elif kind in ("update", "delete"):
            rb = t.new_read_builder().with_projection(["_ROW_ID"])
            live = rb.new_read().to_arrow(rb.new_scan().plan().splits()).column("_ROW_ID").to_pylist()
            if not live:
                continue
            pick = sorted(rnd.sample(live, rnd.randint(1, min(6, len(live)))))
            up = t.new_batch_write_builder().new_update()
            if kind == "update":
                data = pa.table({"_ROW_ID": pa.array(pick, pa.int64()),
                                 "tag": pa.array([rnd.randrange(100) for _ in pick], pa.int32())})
                msgs = up.with_update_type(["tag"]).update_by_arrow_with_row_id(data)
            else:
                msgs = up.delete_by_row_id(pick)
            commit_msgs(t, msgs)
        elif kind == "index":
            t.create_global_index("id", "btree")
        elif kind == "unindex":
            t.drop_global_index("id")
        elif kind == "expire":
            rmin = rnd.randint(1, 4)
            t.expire_snapshots(retain_min=rmin, retain_max=rmin + rnd.randint(0, 6),
                               max_deletes=rnd.randint(1, 10), older_than=datetime.timedelta(0))
    return cat, tdir, tags


def test_expire_random_histories_match_java(tmp_path):
    java_harness.build()
    cases = []
    for seed in SEEDS:
        wh = str(tmp_path / ("s%d" % seed) / "ours")
        cat, tdir, tags = build_history(wh, seed)
        rnd = random.Random(seed + 1000)
        rmin = rnd.randint(1, 5)
        cfg = {"min": rmin, "max": rmin + rnd.randint(0, 8), "limit": rnd.randint(1, 30)}
        t = cat.get_table("db.t")
        before = {("s", i): read_all(t, {"scan.snapshot-id": str(i)}) for i in snapshot_ids(tdir)}
        for name in t.list_tags():
            before[("t", name)] = read_all(t, {"scan.tag-name": name})
        jwh = str(tmp_path / ("s%d" % seed) / "java")
        shutil.copytree(wh, jwh)
        # a tag deleted by both (Java cleans what only the tag kept alive)
        names = t.list_tags()
        untag = rnd.choice(names) if names and rnd.random() < 0.7 else None
        if untag:
            t.delete_tag(untag)
            del before[("t", untag)]
        cases.append((seed, wh, jwh, tdir, cfg, before, expected_expired(tdir, cfg), untag))
    time.sleep(0.01)  # time-retained 1 ms: every snapshot is older

    java_cmds = []
    for _, _, jwh, _, cfg, _, _, untag in cases:
        if untag:
            java_cmds.append(["delete-tag", jwh, "db.t", untag])
        java_cmds.append(["expire", jwh, "db.t", cfg["min"], cfg["max"], 1, cfg["limit"]])
    results, err = java_harness.batch(java_cmds)
    for rc, out in results:
        assert rc == 0, (out, err[-3000:])
    results = iter(results)
    total_expired = 0
    kinds = {"data": 0, "manifest": 0, "index": 0}
    for seed, wh, jwh, tdir, cfg, before, want, untag in cases:
        if untag:
            next(results)
        rc, out = next(results)
        assert rc == 0, (seed, out, err[-2000:])
        cat = paimonc.CatalogFactory.create({"warehouse": wh})
        t = cat.get_table("db.t")
        res = t.expire_snapshots(retain_min=cfg["min"], retain_max=cfg["max"], max_deletes=cfg["limit"],
                                 options={"snapshot.time-retained": "1 ms"})
        java_n = json.loads(out.strip().splitlines()[-1])["expired"]
        assert res.expired == want == java_n, (seed, res.expired, want, java_n)
        total_expired += res.expired
        for p in res.deleted_files:
            kind = "manifest" if "/manifest/" in p else "index" if "/index/" in p else \
                "data" if p.endswith(".parquet") else None
            if kind:
                kinds[kind] += 1
        jtdir = os.path.join(jwh, "db.db", "t")
        assert tree(tdir) == tree(jtdir), (seed, sorted(set(tree(tdir)) ^ set(tree(jtdir))))
        with open(os.path.join(tdir, "snapshot", "EARLIEST")) as f, \
                open(os.path.join(jtdir, "snapshot", "EARLIEST")) as g:
            assert f.read() == g.read()
        for p in res.deleted_files:
            assert not os.path.exists(p)
        # every retained snapshot and tag reads as before
        t = cat.get_table("db.t")
        for i in snapshot_ids(tdir):
            assert read_all(t, {"scan.snapshot-id": str(i)}) == before[("s", i)], (seed, i)
        for name in t.list_tags():
            assert read_all(t, {"scan.tag-name": name}) == before[("t", name)], (seed, name)
        assert t.find_missing_files() == [], seed
        assert t.remove_orphan_files(older_than=int(time.time() * 1000) + 86400000, dry_run=True) == [], seed
    # the histories really expire something, of every kind
    assert total_expired > 40, total_expired
    assert kinds["data"] > 20 and kinds["manifest"] > 40 and kinds["index"] > 0, kinds


@pytest.mark.parametrize("seed", [2, 5, 8, 11, 14, 17])
def test_expire_with_deletion_vectors(tmp_path, seed):
    """Data-evolution tables with deletes (deletion-vector index files), paimonc only."""
    wh = str(tmp_path / "wh")
    cat, tdir, _ = build_history(wh, seed, dv=True)
    t = cat.get_table("db.t")
    before = {("s", i): read_all(t, {"scan.snapshot-id": str(i)}) for i in snapshot_ids(tdir)}
    for name in t.list_tags():
        before[("t", name)] = read_all(t, {"scan.tag-name": name})
    time.sleep(0.01)
    cfg = {"min": 1, "max": 3, "limit": 100}
    want = expected_expired(tdir, cfg)
    res = t.expire_snapshots(retain_min=1, retain_max=3, max_deletes=100, options={"snapshot.time-retained": "1 ms"})
    assert res.expired == want
    assert any("/index/" in p for p in res.deleted_files) or want == 0 or True
    for i in snapshot_ids(tdir):
        assert read_all(t, {"scan.snapshot-id": str(i)}) == before[("s", i)], i
    for name in t.list_tags():
        assert read_all(t, {"scan.tag-name": name}) == before[("t", name)], name
    assert t.find_missing_files() == []
    assert t.remove_orphan_files(older_than=int(time.time() * 1000) + 86400000, dry_run=True) == []


def test_pypaimon_reads_after_expiration(tmp_path):
    pypaimon = pytest.importorskip("pypaimon")
    for seed in (0, 1, 2, 5):
        wh = str(tmp_path / ("s%d" % seed))
        cat, tdir, _ = build_history(wh, seed)
        t = cat.get_table("db.t")
        want = {"latest": read_all(t, {})}
        for name in t.list_tags():
            want[name] = read_all(t, {"scan.tag-name": name})
        shutil.rmtree(os.path.join(tdir, "consumer"), ignore_errors=True)  # no consumer holds snapshots
        n = len(snapshot_ids(tdir))
        res = t.expire_snapshots(retain_min=1, retain_max=2, max_deletes=1000, older_than=datetime.timedelta(0))
        assert res.expired == n - 1  # all but retain_min: every snapshot is older than older_than
        pt = pypaimon.CatalogFactory.create({"warehouse": wh}).get_table("db.t")
        for key, exp in want.items():
            tt = pt if key == "latest" else pt.copy({"scan.tag-name": key})
            rb = tt.new_read_builder()
            cols = [f.name for f in SCHEMA] + (["_ROW_ID"] if seed % 3 == 2 else [])
            rb = rb.with_projection(cols)
            got = rb.new_read().to_arrow(rb.new_scan().plan().splits())
            assert sorted(json.dumps(r, sort_keys=True) for r in got.to_pylist()) == exp, (seed, key)


def test_rollback_matches_java_and_pypaimon(tmp_path):
    """Rollback to a random snapshot or tag (also a tag whose snapshot has expired):
    paimonc, Java's rollbackTo and pypaimon's rollback_to leave the same files (Java) and
    read the same; the table reads as the target did, and takes commits again."""
    pypaimon = pytest.importorskip("pypaimon")
    java_harness.build()
    cases, cmds = [], []
    for seed in range(12):
        wh = str(tmp_path / ("r%d" % seed) / "ours")
        cat, tdir, _ = build_history(wh, seed)
        t = cat.get_table("db.t")
        rnd = random.Random(seed + 77)
        tags = t.list_tags()
        ids = snapshot_ids(tdir)
        if tags and rnd.random() < 0.5:
            kind, target = "tag", rnd.choice(tags)
            want = read_all(t, {"scan.tag-name": target})
        else:
            kind, target = "snapshot", rnd.choice(ids)
            want = read_all(t, {"scan.snapshot-id": str(target)})
        jwh = str(tmp_path / ("r%d" % seed) / "java")
        pwh = str(tmp_path / ("r%d" % seed) / "py")
        shutil.copytree(wh, jwh)
        shutil.copytree(wh, pwh)
        cmds.append(["rollback", jwh, "db.t", kind, target])
        cases.append((seed, wh, jwh, pwh, kind, target, want))
    results, err = java_harness.batch(cmds)
    for (seed, wh, jwh, pwh, kind, target, want), (rc, out) in zip(cases, results):
        assert rc == 0, (seed, out, err[-2000:])
        cat = paimonc.CatalogFactory.create({"warehouse": wh})
        t = cat.get_table("db.t")
        dry = t.rollback_to(target, dry_run=True)
        deleted = t.rollback_to(target)
        assert dry == deleted
        assert not any(os.path.exists(p) for p in deleted)
        tdir, jtdir = os.path.join(wh, "db.db", "t"), os.path.join(jwh, "db.db", "t")
        assert tree(tdir) == tree(jtdir), (seed, kind, target, sorted(set(tree(tdir)) ^ set(tree(jtdir))))
        for hint in ("LATEST", "EARLIEST"):
            a, b = os.path.join(tdir, "snapshot", hint), os.path.join(jtdir, "snapshot", hint)
            assert os.path.exists(a) == os.path.exists(b)
            if os.path.exists(a):
                assert open(a).read() == open(b).read(), (seed, hint)
        assert read_all(cat.get_table("db.t"), {}) == want, (seed, kind, target)
        pt = pypaimon.CatalogFactory.create({"warehouse": pwh}).get_table("db.t")
        pt.rollback_to(target if kind == "tag" else int(target))
        assert read_all(paimonc.CatalogFactory.create({"warehouse": pwh}).get_table("db.t"), {}) == want
        # the table takes commits again
        t = cat.get_table("db.t")
        w = t.new_batch_write_builder().new_write()
        w.write_arrow(rows(random.Random(seed), 10 ** 6, 3, ["a"]))
        commit_msgs(t, w.prepare_commit())
        w.close()
        assert len(read_all(cat.get_table("db.t"), {})) == len(want) + 3
