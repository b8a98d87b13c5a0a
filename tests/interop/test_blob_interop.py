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
    if name == "jvector_avro":
        pytest.xfail("paimonc reads no .vector.avro companion yet (no Avro data-file reader)")
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
