"""BLOB / dedicated VECTOR tables written by pypaimon 2.1.0 and Java Paimon 1.4.2
(tests/interop/blob_gen.py, facts in docs/blob-layout.md) read by paimonc: every value by
sha256, _ROW_ID and _SEQUENCE_NUMBER; projections without the BLOB columns never open a
.blob file; blob-as-descriptor returns BlobDescriptor v2 bytes that resolve to the values;
blob-descriptor-field columns resolve; descriptors outside the warehouse are refused; a
corrupt .blob file is an error naming it."""
import hashlib
import os
import shutil
import sys

import pytest

pa = pytest.importorskip("pyarrow")
pytest.importorskip("pypaimon")

sys.path.insert(0, os.path.dirname(__file__))
import blob_gen as bg  # noqa: E402

import paimonc  # noqa: E402

ROW_ID, SEQ = "_ROW_ID", "_SEQUENCE_NUMBER"


@pytest.fixture(scope="module")
def pp(tmp_path_factory):
    wh = tmp_path_factory.mktemp("blob_pp")
    return str(wh), bg.build_pypaimon(str(wh), seed=3, variant="test")


@pytest.fixture(scope="module")
def java(tmp_path_factory):
    ok, err = bg.java_available()
    if not ok:
        pytest.fail("the Java harness does not build: " + err)
    wh = tmp_path_factory.mktemp("blob_java")
    return str(wh), bg.build_java(str(wh), seed=3, variant="test")


def read_pc(wh, case, projection=None, options=None):
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    t = cat.get_table(case["table"])
    if options:
        t = t.copy(options)
    cols = projection or case["columns"]
    rb = t.new_read_builder().with_projection(list(cols) + [ROW_ID, SEQ])
    rows = rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist()
    out = [{k: (bg._normalize(v, case["kind"].get(k, "plain")) if k not in (ROW_ID, SEQ) else v)
            for k, v in r.items()} for r in rows]
    return sorted(out, key=lambda r: r[ROW_ID])


PP_CASES = ["blob_basic", "blob_rolled", "blob_part", "blob_nested", "blob_updated", "blob_added",
            "blob_replaced", "blob_backfilled", "blob_descfield", "vector_dedicated",
            "blob_rolled_update"]
J_CASES = ["jblob_basic", "jblob_rolled", "jblob_descfield", "jblob_partial", "jvector_avro"]


def _case(cases, name):
    for c in cases.values():
        if c["table"].endswith("." + name) or c["table"] == name:
            return c
    raise KeyError(name)


@pytest.mark.parametrize("name", PP_CASES)
def test_pypaimon_blob_tables_read_equal(pp, name):
    wh, cases = pp
    case = _case(cases, name)
    # blob_rolled_update: pypaimon loses the update (its rolled .blob files keep writer
    # sequence numbers); paimonc reads what was written last, as "expected" says
    assert read_pc(wh, case) == case["expected"]


@pytest.mark.parametrize("name", J_CASES)
def test_java_blob_tables_read_equal(java, name):
    wh, cases = java
    case = _case(cases, name)
    assert read_pc(wh, case) == case["expected"]


def _poison_blob_files(wh):
    n = 0
    for root, _, files in os.walk(wh):
        for f in files:
            if f.endswith(".blob"):
                with open(os.path.join(root, f), "wb") as fh:
                    fh.write(b"garbage")
                n += 1
    return n


def test_projection_without_blob_columns_opens_no_blob_file(tmp_path, pp):
    wh, cases = pp
    copy = str(tmp_path / "wh")
    shutil.copytree(wh, copy)
    assert _poison_blob_files(copy) > 5
    for name in ("blob_basic", "blob_rolled", "blob_updated"):
        case = _case(cases, name)
        plain = [c for c in case["columns"] if case["kind"].get(c, "plain") == "plain"]
        exp = [{k: r[k] for k in plain + [ROW_ID, SEQ]} for r in case["expected"]]
        assert read_pc(copy, case, projection=plain) == exp
        blob = case["blob_columns"][0]
        with pytest.raises((paimonc.PaimonError, pa.ArrowException, OSError), match=r"\.blob"):
            read_pc(copy, case, projection=[blob])


def test_blob_as_descriptor_resolves_to_the_values(pp):
    wh, cases = pp
    for name in ("blob_basic", "blob_rolled", "blob_updated", "blob_part"):
        case = _case(cases, name)
        col = case["blob_columns"][0]
        cat = paimonc.CatalogFactory.create({"warehouse": wh})
        t = cat.get_table(case["table"]).copy({"blob-as-descriptor": "true"})
        rb = t.new_read_builder().with_projection([col, ROW_ID])
        rows = sorted(rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist(), key=lambda r: r[ROW_ID])
        assert len(rows) == len(case["expected"])
        for r, e in zip(rows, case["expected"]):
            if e[col] is None:
                assert r[col] is None
                continue
            ver, uri, off, length = bg.parse_descriptor(r[col])
            assert ver == 2
            assert not uri.startswith("file:") and uri.endswith(".blob")
            with open(uri, "rb") as f:
                f.seek(off)
                data = f.read(length)
            assert {"len": len(data), "sha256": hashlib.sha256(data).hexdigest()} == e[col]


def test_descriptor_outside_the_warehouse_is_refused(tmp_path, pp):
    """blob_descfield's descriptors point into <warehouse>/external: read from a copy of the
    warehouse they point outside it and are refused, unless allowed by prefix."""
    wh, cases = pp
    case = _case(cases, "blob_descfield")
    copy = str(tmp_path / "wh")
    shutil.copytree(wh, copy)
    with pytest.raises((paimonc.PaimonError, pa.ArrowException, OSError), match="points outside the allowed places"):
        read_pc(copy, case, projection=["d"])
    got = read_pc(copy, case, projection=["d"], options={"blob-descriptor.allowed-prefixes": wh + "/external"})
    assert [r["d"] for r in got] == [r["d"] for r in case["expected"]]
    # the stored descriptors themselves are still readable
    got = read_pc(copy, case, projection=["d"], options={"blob-as-descriptor": "true"})
    assert all(r["d"] is None or r["d"]["len"] > 0 for r in got)


def test_corrupt_blob_file_names_it(tmp_path, pp):
    wh, cases = pp
    copy = str(tmp_path / "wh")
    shutil.copytree(wh, copy)
    case = _case(cases, "blob_basic")
    victim = None
    for root, _, files in os.walk(copy):
        for f in files:
            if f.endswith(".blob") and case["table"].split(".")[1] in root:
                victim = os.path.join(root, f)
    data = bytearray(open(victim, "rb").read())
    data[-1] = 9   # version byte
    open(victim, "wb").write(bytes(data))
    with pytest.raises((paimonc.PaimonError, pa.ArrowException, OSError), match=os.path.basename(victim)):
        read_pc(copy, case)


# ------------------------------------------------------------ paimonc writes

def _pc_write_cases(wh, seed):
    """Tables written by paimonc with BLOB columns; -> {name: case} in blob_gen's form."""
    import random
    rnd = random.Random(seed)
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    cases = {}

    def commit(t, data, cols=None):
        wb = t.new_batch_write_builder()
        w = wb.new_write()
        if cols:
            w.with_write_type(cols)
        w.write_arrow(data)
        wb.new_commit().commit(w.prepare_commit())

    def value(kind):
        r = rnd.random()
        if r < 0.1:
            return None
        if r < 0.2:
            return b""
        if kind == "big" and r > 0.9:
            return rnd.randbytes(rnd.randint(1 << 20, 3 << 19))
        return rnd.randbytes(rnd.randint(1, 6000))

    # 1: sizes 0 B .. 1.5 MB, nulls, empties, several commits, rolled .blob files
    cat.create_table("db.pc_basic", paimonc.Schema(fields=[("id", "INT"), ("b", "BLOB")], options=dict(
        bg.DE, **{"blob.target-file-size": "64kb"})), False)
    exp, rid = [], 0
    for _ in range(3):
        n = rnd.randint(5, 30)
        vals = [value("big") for _ in range(n)]
        commit(cat.get_table("db.pc_basic"), pa.table({"id": pa.array(range(rid, rid + n), pa.int32()),
                                                       "b": pa.array(vals, pa.large_binary())}))
        exp += [{"id": rid + i, "b": bg.digest(v), ROW_ID: rid + i} for i, v in enumerate(vals)]
        rid += n
    cases["pc_basic"] = {"table": "db.pc_basic", "columns": ["id", "b"], "kind": {"b": "blob"},
                         "blob_columns": ["b"], "expected": exp}
    # 2: two BLOB columns, partitioned, target-file-size small (data files roll too)
    cat.create_table("db.pc_part", paimonc.Schema(
        fields=[("p", "INT"), ("id", "INT"), ("b1", "BLOB"), ("s", "STRING"), ("b2", "BLOB")],
        partition_keys=["p"], options=dict(bg.DE, **{"blob.target-file-size": "16kb"})), False)
    n = 60
    rows = [{"p": rnd.randint(0, 2), "id": i, "b1": value(""), "s": "s%d" % i, "b2": value("")} for i in range(n)]
    order = list(dict.fromkeys(r["p"] for r in rows))
    rows = [r for p in order for r in rows if r["p"] == p]
    commit(cat.get_table("db.pc_part"), pa.Table.from_pylist(rows, schema=pa.schema(
        [("p", pa.int32()), ("id", pa.int32()), ("b1", pa.large_binary()), ("s", pa.string()),
         ("b2", pa.large_binary())])))
    cases["pc_part"] = {"table": "db.pc_part", "columns": ["p", "id", "b1", "s", "b2"],
                        "kind": {"b1": "blob", "b2": "blob"}, "blob_columns": ["b1", "b2"],
                        "expected": [dict(p=r["p"], id=r["id"], b1=bg.digest(r["b1"]), s=r["s"],
                                          b2=bg.digest(r["b2"]), **{ROW_ID: k}) for k, r in enumerate(rows)]}
    # 3: a partial append of the non-blob columns (b reads null)
    cat.create_table("db.pc_partial", paimonc.Schema(fields=[("id", "INT"), ("b", "BLOB")], options=dict(bg.DE)),
                     False)
    vals = [value("") for _ in range(5)]
    commit(cat.get_table("db.pc_partial"), pa.table({"id": pa.array(range(5), pa.int32()),
                                                     "b": pa.array(vals, pa.large_binary())}))
    commit(cat.get_table("db.pc_partial"), pa.table({"id": pa.array([5, 6], pa.int32())}), cols=["id"])
    cases["pc_partial"] = {"table": "db.pc_partial", "columns": ["id", "b"], "kind": {"b": "blob"},
                           "blob_columns": ["b"],
                           "expected": [{"id": i, "b": bg.digest(v), ROW_ID: i} for i, v in enumerate(vals)]
                           + [{"id": 5, "b": None, ROW_ID: 5}, {"id": 6, "b": None, ROW_ID: 6}]}
    return cases


@pytest.fixture(scope="module")
def pc(tmp_path_factory):
    wh = str(tmp_path_factory.mktemp("blob_pc"))
    return wh, _pc_write_cases(wh, seed=11)


def _strip_seq(rows):
    return [{k: v for k, v in r.items() if k != SEQ} for r in rows]


@pytest.mark.parametrize("name", ["pc_basic", "pc_part", "pc_partial"])
def test_paimonc_blob_tables_read_by_pypaimon_and_paimonc(pc, name):
    wh, cases = pc
    case = cases[name]
    assert _strip_seq(bg.read_pypaimon(wh, case)) == case["expected"]
    assert _strip_seq(read_pc(wh, case)) == case["expected"]


def test_paimonc_blob_tables_read_by_java(pc):
    wh, cases = pc
    ok, err = bg.java_available()
    assert ok, err
    names = ["pc_basic", "pc_part", "pc_partial"]
    res, stderr = bg.java_batch([["blob-read", wh, cases[n]["table"]] for n in names])
    import json
    for n, (rc, out) in zip(names, res):
        assert rc == 0, (n, stderr[-2000:])
        rows = sorted((json.loads(x) for x in out.splitlines() if x.strip()), key=lambda r: r[ROW_ID])
        assert _strip_seq(rows) == cases[n]["expected"], n


def test_paimonc_blob_layout_as_the_peers_write_it(pc):
    """Each data file is tiled by its column's .blob files (never crossing it), .blob files
    roll at blob.target-file-size, the data files hold only the non-blob columns, and the
    commit stamped every file with its snapshot id."""
    wh, cases = pc
    files = bg.table_files(wh, cases["pc_part"])
    normal = [f for f in files if not f["name"].endswith(".blob")]
    blobs = [f for f in files if f["name"].endswith(".blob")]
    assert all(f["write_cols"] == ["p", "id", "s"] for f in normal)
    for col in ("b1", "b2"):
        mine = sorted((f for f in blobs if f["write_cols"] == [col]), key=lambda f: f["first_row_id"])
        for nf in normal:
            inside = [f for f in mine if nf["first_row_id"] <= f["first_row_id"] < nf["first_row_id"] + nf["rows"]]
            assert sum(f["rows"] for f in inside) == nf["rows"]
            assert all(f["first_row_id"] + f["rows"] <= nf["first_row_id"] + nf["rows"] for f in inside)
        assert len(mine) > len(normal)          # rolled within data files
        assert all(f["size"] < 16 * 1024 + 7000 for f in mine)
    assert all(f["seq"][0] == f["seq"][1] == 1 for f in files)
