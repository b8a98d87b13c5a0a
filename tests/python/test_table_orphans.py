"""Orphan-file clean-up from Python: Table.remove_orphan_files(older_than=None, dry_run=False).

Tables are written in several commits (one an overwrite, so files leave the live set but
stay referenced by older snapshots) with a tag, by paimonc and by pypaimon 2.1.0. Stray
files are planted two days old in data directories, manifest/, snapshot/, index/ and
statistics/. Then: exactly the strays are found and deleted, the age guard holds for
every accepted older_than form, and both paimonc and pypaimon read every snapshot and the
tag identically afterwards. Every file pypaimon writes counts as referenced.
"""

import datetime as dt
import os
import time

import pytest

pa = pytest.importorskip("pyarrow")

import paimonc  # noqa: E402
from paimonc import InvalidArgumentError, PaimonError  # noqa: E402

IDENT = "db.t"
SCHEMA = pa.schema([
    pa.field("id", pa.int64()),
    pa.field("s", pa.string()),
    pa.field("p", pa.string()),
])
DAY = 24 * 3600


def batch(ids, part=None):
    ids = list(ids)
    return pa.table({
        "id": ids,
        "s": ["v%d" % i for i in ids],
        "p": [part if part is not None else ("a" if i % 2 else "b") for i in ids],
    }, schema=SCHEMA)


# ------------------------------------------------------------------ writers

def write_paimonc(wh):
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    cat.create_table(IDENT, paimonc.Schema.from_pyarrow_schema(SCHEMA, partition_keys=["p"]))

    def commit(data, overwrite=False):
        t = cat.get_table(IDENT)
        wb = t.new_batch_write_builder()
        if overwrite:
            wb = wb.overwrite()
        with wb.new_write() as w, wb.new_commit() as c:
            w.write_arrow(data)
            c.commit(w.prepare_commit())
    return cat, commit


def write_pypaimon(wh):
    pypaimon = pytest.importorskip("pypaimon")
    cat = pypaimon.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    cat.create_table(IDENT, pypaimon.Schema.from_pyarrow_schema(SCHEMA, partition_keys=["p"]), False)

    def commit(data, overwrite=False):
        t = cat.get_table(IDENT)
        wb = t.new_batch_write_builder()
        if overwrite:
            wb = wb.overwrite()
        w, c = wb.new_write(), wb.new_commit()
        w.write_arrow(data)
        c.commit(w.prepare_commit())
        w.close()
        c.close()
    return cat, commit


def build(wh, writer):
    """Snapshots 1-4: two appends, tag t2 on 2, an append, a dynamic overwrite of p=a."""
    _, commit = (write_paimonc if writer == "paimonc" else write_pypaimon)(wh)
    commit(batch(range(0, 20)))
    commit(batch(range(100, 110)))
    pc = paimonc.CatalogFactory.create({"warehouse": wh})
    pc.get_table(IDENT).create_tag("t2", 2)
    commit(batch(range(200, 206)))
    commit(batch(range(300, 303), part="a"), overwrite=True)
    return pc.get_table(IDENT)


# ------------------------------------------------------------------ readers

SCANS = [{}, {"scan.snapshot-id": "1"}, {"scan.snapshot-id": "2"}, {"scan.snapshot-id": "3"},
         {"scan.snapshot-id": "4"}, {"scan.tag-name": "t2"}]


def read_rows(table):
    rb = table.new_read_builder()
    t = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    return sorted(t.to_pylist(), key=lambda r: r["id"])


def read_everything(table):
    return [read_rows(table.copy(o) if o else table) for o in SCANS]


def pypaimon_read_everything(wh):
    pypaimon = pytest.importorskip("pypaimon")
    t = pypaimon.CatalogFactory.create({"warehouse": wh}).get_table(IDENT)
    return [read_rows(t.copy(o) if o else t) for o in SCANS]


# ------------------------------------------------------------------ helpers

def tree(root):
    out = []
    for d, _, files in os.walk(root):
        out.extend(os.path.join(d, f) for f in files)
    return sorted(out)


def age(path, seconds):
    t = time.time() - seconds
    os.utime(path, (t, t))


STRAYS = [
    "p=a/bucket-0/data-00000000-stray-0.parquet",
    "p=b/bucket-0/data-00000000-stray-1.parquet",
    "p=zz/bucket-0/data-00000000-stray-2.parquet",
    "manifest/manifest-00000000-stray-0",
    "manifest/manifest-list-00000000-stray-0",
    "snapshot/.snapshot-9.0badc0de.tmp",
    "index/index-00000000-stray-0",
    "statistics/stat-00000000-stray-0",
]


def plant(root, rels, seconds_old=2 * DAY):
    paths = []
    for rel in rels:
        p = os.path.join(root, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(b"stray " + rel.encode())
        age(p, seconds_old)
        paths.append(p)
    for rel in rels:  # the directories holding them too (deepest first)
        d = os.path.dirname(rel)
        while d:
            age(os.path.join(root, d), seconds_old)
            d = os.path.dirname(d)
    return sorted(paths)


@pytest.fixture(params=["paimonc", "pypaimon"])
def written(request, tmp_path):
    wh = str(tmp_path / "wh")
    t = build(wh, request.param)
    return request.param, wh, t


# -------------------------------------------------------------------- tests

def test_nothing_is_orphan_right_after_writing(written):
    """Every file the writer (paimonc or pypaimon) left is referenced: even with the age
    guard in the future nothing is listed."""
    _, _, t = written
    future = dt.datetime.now() + dt.timedelta(minutes=1)
    assert t.remove_orphan_files(older_than=future, dry_run=True) == []
    assert t.remove_orphan_files(older_than=future) == []


def test_exactly_the_strays_are_removed_and_reads_are_unchanged(written):
    writer, wh, t = written
    root = t.table_path
    before = read_everything(t)
    pp_before = pypaimon_read_everything(wh) if writer == "pypaimon" else None
    assert [len(r) for r in before] == [21, 20, 30, 36, 21, 30]
    legit = tree(root)
    strays = plant(root, STRAYS)
    young = plant(root, ["p=b/bucket-0/data-00000000-young.parquet"], seconds_old=0)[0]

    assert t.remove_orphan_files(dry_run=True) == strays
    assert t.remove_orphan_files(older_than=dt.timedelta(days=3), dry_run=True) == []
    assert t.remove_orphan_files(older_than=dt.timedelta(hours=36), dry_run=True) == strays
    now_ms = int(time.time() * 1000)
    assert t.remove_orphan_files(older_than=now_ms + 60000, dry_run=True) == sorted(strays + [young])
    assert all(os.path.exists(p) for p in strays)

    assert t.remove_orphan_files() == strays
    assert tree(root) == sorted(legit + [young])
    assert not os.path.exists(os.path.join(root, "p=zz"))
    assert read_everything(t) == before
    if writer == "pypaimon":
        assert pypaimon_read_everything(wh) == pp_before
    else:
        assert pypaimon_read_everything(wh) == before
    assert t.remove_orphan_files() == []


def test_unreadable_manifest_deletes_nothing(written):
    _, _, t = written
    root = t.table_path
    strays = plant(root, STRAYS)
    lists = sorted(f for f in os.listdir(os.path.join(root, "manifest")) if f.startswith("manifest-list-")
                   and "stray" not in f)
    manifests = sorted(f for f in os.listdir(os.path.join(root, "manifest"))
                       if f.startswith("manifest-") and not f.startswith("manifest-list-") and "stray" not in f)
    for name in (manifests[0], lists[0]):
        p = os.path.join(root, "manifest", name)
        with open(p, "rb") as f:
            saved = f.read()
        with open(p, "wb") as f:
            f.write(b"not avro at all")
        files = tree(root)
        with pytest.raises(PaimonError) as e:
            t.remove_orphan_files()
        assert name in str(e.value)
        assert tree(root) == files
        os.remove(p)
        with pytest.raises(PaimonError) as e:
            t.remove_orphan_files(dry_run=True)
        assert name in str(e.value)
        with open(p, "wb") as f:
            f.write(saved)
    assert t.remove_orphan_files() == strays


def test_older_than_forms(tmp_path):
    t = build(str(tmp_path / "wh"), "paimonc")
    root = t.table_path
    strays = plant(root, ["manifest/manifest-stray-x"], seconds_old=2 * DAY)
    then = time.time() - DAY
    assert t.remove_orphan_files(older_than=int(then * 1000), dry_run=True) == strays
    assert t.remove_orphan_files(older_than=dt.datetime.fromtimestamp(then), dry_run=True) == strays
    aware = dt.datetime.fromtimestamp(then, tz=dt.timezone.utc)
    assert t.remove_orphan_files(older_than=aware, dry_run=True) == strays
    assert t.remove_orphan_files(older_than=dt.timedelta(days=1), dry_run=True) == strays
    assert t.remove_orphan_files(older_than=dt.timedelta(days=2, hours=1), dry_run=True) == []
    for bad in ("1d", 1.5, True, [1]):
        with pytest.raises(InvalidArgumentError):
            t.remove_orphan_files(older_than=bad)
    assert all(os.path.exists(p) for p in strays)
