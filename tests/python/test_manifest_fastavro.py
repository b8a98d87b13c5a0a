"""fastavro reads the manifests, manifest lists and index manifests paimon-c writes.

The C side is the unit-test binary test_manifest: with PAIMONC_MANIFEST_OUT=<dir> its
t_write_for_fastavro case writes <dir>/manifest/{manifest-*, manifest-list-*,
index-manifest-*} holding every field (all optional ones set in the first entry, none in
the second). The binary is looked up in $PAIMONC_BINARY_DIR, else ../build relative to tests/.
"""
import os
import subprocess

import pytest

fastavro = pytest.importorskip("fastavro")

HERE = os.path.dirname(os.path.abspath(__file__))


def _binary():
    cands = [os.environ.get("PAIMONC_BINARY_DIR", ""), os.path.join(HERE, "..", "..", "build")]
    for d in cands:
        p = os.path.join(d, "test_manifest")
        if d and os.path.exists(p):
            return p
    pytest.skip("test_manifest binary not built (set PAIMONC_BINARY_DIR)")


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    out = tmp_path_factory.mktemp("manifests")
    env = dict(os.environ, PAIMONC_MANIFEST_OUT=str(out))
    res = subprocess.run([_binary(), "t_write_for_fastavro"], env=env, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    names = dict(line.split(" ", 1) for line in res.stdout.splitlines()
                 if line.split(" ", 1)[0] in ("MANIFEST", "LIST", "INDEX"))
    return out / "manifest", names


def _read(path):
    with open(path, "rb") as f:
        r = fastavro.reader(f)
        return r.codec, r.writer_schema, list(r)


def test_manifest(written):
    d, names = written
    codec, schema, recs = _read(d / names["MANIFEST"])
    assert codec == "zstandard"
    assert schema["name"] == "org.apache.paimon.avro.generated.record"
    assert [f["name"] for f in schema["fields"]] == [
        "_VERSION", "_KIND", "_PARTITION", "_BUCKET", "_TOTAL_BUCKETS", "_FILE"]
    assert len(recs) == 2
    full, bare = recs
    assert full["_VERSION"] == 2 and full["_KIND"] == 1 and full["_BUCKET"] == 3
    assert full["_TOTAL_BUCKETS"] == 4
    f = full["_FILE"]
    assert f["_FILE_NAME"] == "data-full.parquet"
    assert f["_FILE_SIZE"] == 1 << 40 and f["_ROW_COUNT"] == 123456789012
    assert f["_EXTRA_FILES"] == ["data-full.parquet.index", "x\u00e9.row"]
    assert f["_KEY_STATS"]["_NULL_COUNTS"] == [3, None]
    assert f["_VALUE_STATS"]["_NULL_COUNTS"] is None
    assert int(f["_CREATION_TIME"].timestamp() * 1000) == 1715648523456
    assert f["_DELETE_ROW_COUNT"] == 42
    assert f["_EMBEDDED_FILE_INDEX"] == b"\x00\x01\x02\xff"
    assert f["_FILE_SOURCE"] == 1
    assert f["_VALUE_STATS_COLS"] == ["id", "name"]
    assert f["_EXTERNAL_PATH"] == "s3://bucket/x/data-full.parquet"
    assert f["_FIRST_ROW_ID"] == 99
    assert f["_WRITE_COLS"] == ["id"]
    assert f["_WRITE_COLS_SEQUENCES"] == [-1, 999, 1999]
    b = bare["_FILE"]
    for k in ("_CREATION_TIME", "_DELETE_ROW_COUNT", "_EMBEDDED_FILE_INDEX", "_FILE_SOURCE",
              "_VALUE_STATS_COLS", "_EXTERNAL_PATH", "_FIRST_ROW_ID", "_WRITE_COLS",
              "_WRITE_COLS_SEQUENCES"):
        assert b[k] is None, k
    assert b["_VALUE_STATS"]["_NULL_COUNTS"] == []
    assert b["_MIN_KEY"] == bytes(12)


def test_manifest_list(written):
    d, names = written
    _, schema, recs = _read(d / names["LIST"])
    assert len(recs) == 1
    r = recs[0]
    assert r["_VERSION"] == 2 and r["_FILE_NAME"] == names["MANIFEST"]
    assert r["_FILE_SIZE"] == os.path.getsize(d / names["MANIFEST"])
    assert r["_NUM_ADDED_FILES"] == 1 and r["_NUM_DELETED_FILES"] == 1
    assert r["_PARTITION_STATS"]["_NULL_COUNTS"] == [0, 0]
    assert (r["_MIN_BUCKET"], r["_MAX_BUCKET"], r["_MIN_LEVEL"], r["_MAX_LEVEL"]) == (0, 3, 0, 5)
    assert r["_MIN_ROW_ID"] is None and r["_SCHEMA_ID"] == 7


def test_index_manifest(written):
    d, names = written
    _, schema, recs = _read(d / names["INDEX"])
    assert len(recs) == 1
    r = recs[0]
    assert r["_VERSION"] == 1 and r["_INDEX_TYPE"] == "DELETION_VECTORS"
    assert r["_DELETIONS_VECTORS_RANGES"] == [
        {"f0": "data-1.parquet", "f1": 0, "f2": 0, "_CARDINALITY": 3}]
    assert r["_GLOBAL_INDEX"] is None and r["_EXTERNAL_PATH"] is None
