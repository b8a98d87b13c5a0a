"""Table.expire_snapshots and find_missing_files from Python: Java's rules for which
snapshots expire (retain_min / retain_max / older_than / max_deletes, consumers), the
dry run, every retained snapshot and tag reading as before, commits expiring by the
table's options (and not with write-only), tag deletion cleaning up after an expired
snapshot, and bad arguments failing with errors that name them."""

import datetime as dt
import os
import time

import pytest

pa = pytest.importorskip("pyarrow")

import paimonc  # noqa: E402
from paimonc import InvalidArgumentError, PaimonError  # noqa: E402

SCHEMA = pa.schema([pa.field("id", pa.int64()), pa.field("p", pa.string())])


def make(tmp_path, n, options=None, overwrite_at=()):
    wh = str(tmp_path / "wh")
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    cat.create_table("db.t", paimonc.Schema.from_pyarrow_schema(SCHEMA, partition_keys=["p"], options=options))
    for i in range(n):
        t = cat.get_table("db.t")
        wb = t.new_batch_write_builder()
        if i + 1 in overwrite_at:
            wb = wb.overwrite()
        with wb.new_write() as w, wb.new_commit() as c:
            w.write_arrow(pa.table({"id": [i * 10 + k for k in range(3)], "p": ["a", "b", "a"]}, schema=SCHEMA))
            c.commit(w.prepare_commit())
    return wh, cat, os.path.join(wh, "db.db", "t")


def ids(tdir):
    return sorted(int(n[9:]) for n in os.listdir(os.path.join(tdir, "snapshot")) if n[9:].isdigit())


def read(t, **opts):
    keys = {"scan_snapshot_id": "scan.snapshot-id", "scan_tag_name": "scan.tag-name"}
    t = t.copy({keys[k]: str(v) for k, v in opts.items()}) if opts else t
    rb = t.new_read_builder()
    return sorted(rb.new_read().to_arrow(rb.new_scan().plan().splits()).column("id").to_pylist())


def test_rules_dry_run_and_reads(tmp_path):
    wh, cat, tdir = make(tmp_path, 8, overwrite_at={5})
    t = cat.get_table("db.t")
    t.create_tag("t3", 3)
    want = {i: read(t, scan_snapshot_id=i) for i in range(1, 9)}
    want_tag = read(t, scan_tag_name="t3")
    # the defaults keep everything (min 10, 1 h)
    assert t.expire_snapshots().expired == 0
    # nothing is older than an hour ago
    assert t.expire_snapshots(retain_min=1, older_than=dt.timedelta(hours=1)).expired == 0
    files = sorted(os.path.join(d, f) for d, _, fs in os.walk(tdir) for f in fs)
    dry = t.expire_snapshots(retain_min=3, older_than=dt.timedelta(0), dry_run=True)
    assert dry.expired == 5 and dry.deleted_files and dry.bytes > 0
    assert sorted(os.path.join(d, f) for d, _, fs in os.walk(tdir) for f in fs) == files
    res = t.expire_snapshots(retain_min=3, older_than=dt.timedelta(0))
    assert res == dry
    assert ids(tdir) == [6, 7, 8]
    assert open(os.path.join(tdir, "snapshot", "EARLIEST")).read() == "6"
    assert not any(os.path.exists(p) for p in res.deleted_files)
    t = cat.get_table("db.t")
    for i in (6, 7, 8):
        assert read(t, scan_snapshot_id=i) == want[i]
    assert read(t, scan_tag_name="t3") == want_tag
    assert t.find_missing_files() == []
    with pytest.raises(PaimonError, match="snapshot 2 does not exist"):
        read(t, scan_snapshot_id=2)
    # max_deletes and an epoch-millis older_than
    assert t.expire_snapshots(retain_min=1, older_than=int(time.time() * 1000) + 1000, max_deletes=1).expired == 1
    assert ids(tdir) == [7, 8]


def test_retain_max_and_consumers(tmp_path):
    wh, cat, tdir = make(tmp_path, 6)
    t = cat.get_table("db.t")
    os.makedirs(os.path.join(tdir, "consumer"))
    with open(os.path.join(tdir, "consumer", "consumer-reader"), "w") as f:
        f.write('{\n  "nextSnapshot" : 3\n}')
    # retain_max bounds the retained snapshots even when they are young
    assert t.expire_snapshots(retain_min=1, retain_max=2).expired == 2  # the consumer holds 3
    assert ids(tdir) == [3, 4, 5, 6]
    os.remove(os.path.join(tdir, "consumer", "consumer-reader"))
    assert t.expire_snapshots(retain_min=1, retain_max=2).expired == 2
    assert ids(tdir) == [5, 6]


def test_commits_expire_unless_write_only(tmp_path):
    opts = {"snapshot.num-retained.min": "2", "snapshot.num-retained.max": "2", "snapshot.time-retained": "0 ms",
            "write-only": "true"}
    wh, cat, tdir = make(tmp_path, 5, options=opts)
    assert ids(tdir) == [1, 2, 3, 4, 5]
    t = cat.get_table("db.t").copy({"write-only": "false"})
    with t.new_batch_write_builder().new_write() as w, t.new_batch_write_builder().new_commit() as c:
        w.write_arrow(pa.table({"id": [99], "p": ["z"]}, schema=SCHEMA))
        c.commit(w.prepare_commit())
    assert ids(tdir) == [5, 6]
    assert len(read(cat.get_table("db.t"))) == 16


def test_tag_of_expired_snapshot_cleans_up(tmp_path):
    wh, cat, tdir = make(tmp_path, 6, overwrite_at={3, 5})
    t = cat.get_table("db.t")
    t.create_tag("old", 2)
    t.expire_snapshots(retain_min=1, older_than=dt.timedelta(0))
    assert ids(tdir) == [6]
    assert read(t, scan_tag_name="old") == [0, 1, 2, 10, 11, 12]
    t.delete_tag("old")
    future = int(time.time() * 1000) + 86400000
    assert t.remove_orphan_files(older_than=future, dry_run=True) == []
    assert t.find_missing_files() == []
    assert len(read(t)) > 0


def test_bad_arguments(tmp_path):
    wh, cat, tdir = make(tmp_path, 2)
    t = cat.get_table("db.t")
    with pytest.raises(InvalidArgumentError, match="must not be less than"):
        t.expire_snapshots(retain_min=5, retain_max=2)
    with pytest.raises(InvalidArgumentError, match="snapshot.num-retained.min"):
        t.expire_snapshots(retain_min=0)
    with pytest.raises(InvalidArgumentError, match="snapshot.expire.limit"):
        t.expire_snapshots(max_deletes=0)
    with pytest.raises(InvalidArgumentError, match="snapshot.time-retained"):
        t.expire_snapshots(options={"snapshot.time-retained": "soon"})
    with pytest.raises(InvalidArgumentError, match="older_than"):
        t.expire_snapshots(older_than="yesterday")
    with pytest.raises(PaimonError, match="decoupled"):
        t.expire_snapshots(options={"changelog.num-retained.min": "1000"})
    assert ids(tdir) == [1, 2]


def test_unreadable_manifest_keeps_files(tmp_path):
    """A delta manifest that cannot be read cancels the data deletion of its
    snapshot (as Java): the files stay; nothing retained breaks."""
    wh, cat, tdir = make(tmp_path, 5, overwrite_at={3})
    t = cat.get_table("db.t")
    want = read(t)
    snap3 = __import__("json").load(open(os.path.join(tdir, "snapshot", "snapshot-3")))
    lst = os.path.join(tdir, "manifest", snap3["deltaManifestList"])
    with open(lst, "wb") as f:
        f.write(b"garbage")
    res = t.expire_snapshots(retain_min=1, older_than=dt.timedelta(0))
    assert res.expired == 4
    assert not any(p.endswith(".parquet") for p in res.deleted_files)
    assert read(cat.get_table("db.t")) == want
    assert t.find_missing_files() == []
