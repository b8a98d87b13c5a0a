"""vector.file.format=vortex: .vector.vortex vector-store files, both ways with pypaimon
2.1.0 + vortex-data 0.70.0 (fixed-seed random data, several VECTOR columns, several
commits, partitions, rolled files):
  - pypaimon writes -> paimonc reads equal (all columns, and subsets of the vector columns);
  - paimonc writes (with null vectors, which pypaimon cannot write) -> pypaimon reads
    equal, paimonc reads equal, and vortex-data opens each file directly;
  - a projection without vector columns opens no .vector.vortex file;
  - lance is refused by name.
Skips when vortex-data or paimonc's vortex shim is missing, unless
PAIMONC_REQUIRE_VORTEX=1 (CI), which turns a missing piece into a failure."""
import os
import random
import sys

import pytest

pa = pytest.importorskip("pyarrow")
pypaimon = pytest.importorskip("pypaimon")

sys.path.insert(0, os.path.dirname(__file__))
import blob_gen as bg  # noqa: E402

import paimonc  # noqa: E402

REQUIRE = os.environ.get("PAIMONC_REQUIRE_VORTEX") == "1"
DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true", "vector.file.format": "vortex"}
FIELDS = [("id", "INT"), ("p", "STRING"), ("v", ("FLOAT", 8)), ("s", "STRING"), ("w", ("DOUBLE", 3)),
          ("q", ("INT", 2))]
ARROW = pa.schema([("id", pa.int32()), ("p", pa.string()), ("v", pa.list_(pa.float32(), 8)), ("s", pa.string()),
                   ("w", pa.list_(pa.float64(), 3)), ("q", pa.list_(pa.int32(), 2))])
VECTORS = ["v", "w", "q"]


def _missing(what):
    if REQUIRE:
        pytest.fail("PAIMONC_REQUIRE_VORTEX=1 but %s" % what)
    pytest.skip(what)


@pytest.fixture(scope="module", autouse=True)
def _vortex_present(tmp_path_factory):
    try:
        import vortex  # noqa: F401
    except ImportError:
        _missing("vortex-data is not installed (pip install vortex-data==0.70.0)")
    wh = str(tmp_path_factory.mktemp("probe"))
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    cat.create_table("db.t", paimonc.Schema(fields=[("id", "INT"), ("v", "VECTOR<FLOAT, 2>")], options=DE), False)
    try:
        _pc_write(cat, "t", pa.table({"id": pa.array([1], pa.int32()),
                                      "v": pa.array([[1.0, 2.0]], pa.list_(pa.float32(), 2))}))
    except paimonc.PaimonError as e:
        if "vortex support is not installed" in str(e):
            _missing("paimonc's vortex shim is not installed: %s" % e)
        raise


def _pc_write(cat, name, data):
    t = cat.get_table("db." + name)
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    w.write_arrow(data)
    wb.new_commit().commit(w.prepare_commit())


def _pp_create(cat, name, options, partitioned):
    from pypaimon import Schema
    from pypaimon.schema.data_types import DataField
    fs = []
    for i, (n, t) in enumerate(FIELDS):
        typ = {"type": "VECTOR", "element": t[0], "length": t[1]} if isinstance(t, tuple) else t
        fs.append(DataField.from_dict({"id": i, "name": n, "type": typ}))
    cat.create_table("db." + name, Schema(fields=fs, partition_keys=["p"] if partitioned else [],
                                          options=dict(DE, **options)), False)


def _pc_create(cat, name, options, partitioned):
    fields = [(n, "VECTOR<%s, %d>" % t if isinstance(t, tuple) else t) for n, t in FIELDS]
    cat.create_table("db." + name, paimonc.Schema(fields=fields, partition_keys=["p"] if partitioned else [],
                                                  options=dict(DE, **options)), False)


def _rows(rnd, start, n, nulls):
    out = []
    for i in range(n):
        def vec(k, f, null_rate):
            return None if nulls and rnd.random() < null_rate else [f() for _ in range(k)]
        out.append({
            "id": start + i, "p": rnd.choice(["a", "b"]),
            # float32-exact values so that pyarrow's float conversion is exact
            "v": vec(8, lambda: float(rnd.randint(-2 ** 20, 2 ** 20)) / 1024.0, 0.2),
            "s": None if rnd.random() < 0.1 else "s%d" % rnd.randint(0, 10 ** 6),
            "w": vec(3, lambda: rnd.uniform(-1e6, 1e6), 0.3),
            "q": vec(2, lambda: rnd.randint(-2 ** 31, 2 ** 31 - 1), 0.1),
        })
    return out


def _read(t, cols):
    rb = t.new_read_builder().with_projection(cols + ["_ROW_ID"])
    rows = rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist()
    return sorted(rows, key=lambda r: r["_ROW_ID"])


def _files(wh, name):
    return bg.table_files(wh, {"table": "db." + name})


def _vortex_paths(wh, name):
    out = []
    for root, _, fs in os.walk(os.path.join(wh, "db.db", name)):
        out += [os.path.join(root, f) for f in fs if f.endswith(".vector.vortex")]
    return sorted(out)


ALL = ["id", "p", "v", "s", "w", "q"]


def _want(rows, cols):
    return [dict({c: r[c] for c in cols}, _ROW_ID=i) for i, r in enumerate(rows)]


@pytest.mark.parametrize("partitioned", [False, True])
def test_pypaimon_writes_paimonc_reads(tmp_path, partitioned):
    rnd = random.Random(11 + partitioned)
    wh = str(tmp_path / "wh")
    pcat = pypaimon.CatalogFactory.create({"warehouse": wh})
    pcat.create_database("db", True)
    # no small target-file-size: pypaimon then rolls its vector files inside a row-id group, and
    # paimonc reads no vector-store file covering part of a group yet (de_reader, either format)
    _pp_create(pcat, "t", {}, partitioned)
    rows = []
    for _ in range(3):
        batch = _rows(rnd, len(rows), rnd.randint(200, 900), nulls=False)  # pypaimon writes no null vectors
        bg._write(pcat, "t", pa.Table.from_pylist(batch, schema=ARROW))
        rows += batch
    files = _files(wh, "t")
    vec = [f for f in files if f["name"].endswith(".vector.vortex")]
    assert len(vec) >= 3 and all(f["write_cols"] == VECTORS for f in vec)
    ccat = paimonc.CatalogFactory.create({"warehouse": wh})
    t = ccat.get_table("db.t")
    # pypaimon assigns row ids per partition write order: compare by id
    got = sorted(_read(t, ALL), key=lambda r: r["id"])
    assert [{c: r[c] for c in ALL} for r in got] == rows
    # subsets of the vector columns (the reader projects the vortex file)
    for cols in (["id", "w"], ["q", "v"], ["s", "p"]):
        got = sorted(_read(t, cols + ["id"] if "id" not in cols else cols), key=lambda r: r["id"])
        assert [{c: r[c] for c in cols} for r in got] == [{c: r[c] for c in cols} for r in rows]
    # and pypaimon reads its own table equal (the reference)
    ref = sorted(_read(pcat.get_table("db.t"), ALL), key=lambda r: r["id"])
    assert [{c: r[c] for c in ALL} for r in ref] == rows


@pytest.mark.parametrize("partitioned", [False, True])
def test_paimonc_writes_pypaimon_reads(tmp_path, partitioned):
    import vortex
    rnd = random.Random(23 + partitioned)
    wh = str(tmp_path / "wh")
    ccat = paimonc.CatalogFactory.create({"warehouse": wh})
    ccat.create_database("db", True)
    _pc_create(ccat, "t", {"target-file-size": "16kb"}, partitioned)
    rows = []
    for _ in range(3):
        batch = _rows(rnd, len(rows), rnd.randint(200, 900), nulls=True)
        _pc_write(ccat, "t", pa.Table.from_pylist(batch, schema=ARROW))
        rows += batch
    assert any(r["v"] is None for r in rows) and any(r["w"] is None for r in rows)
    files = _files(wh, "t")
    vec = [f for f in files if f["name"].endswith(".vector.vortex")]
    normal = [f for f in files if ".vector." not in f["name"]]
    assert len(vec) == len(normal) >= 3
    assert all(f["write_cols"] == VECTORS for f in vec)
    assert sorted((f["first_row_id"], f["rows"]) for f in vec) == sorted((f["first_row_id"], f["rows"]) for f in normal)
    by_id = lambda rs: sorted(rs, key=lambda r: r["id"])  # noqa: E731
    pp = by_id(_read(pypaimon.CatalogFactory.create({"warehouse": wh}).get_table("db.t"), ALL))
    assert [{c: r[c] for c in ALL} for r in pp] == rows
    pc = by_id(_read(ccat.get_table("db.t"), ALL))
    assert [{c: r[c] for c in ALL} for r in pc] == rows
    assert [r["_ROW_ID"] for r in pc] == [r["_ROW_ID"] for r in pp]
    # vortex-data opens our files directly: the vector columns of the rows they cover
    by_row_id = {r["_ROW_ID"]: r for r in pc}
    total = 0
    for path in _vortex_paths(wh, "t"):
        f = next(x for x in vec if path.endswith("/" + x["name"]))
        got = vortex.open(path).scan().to_arrow().read_all().to_pylist()
        assert not got or list(got[0]) == VECTORS
        want = [{c: by_row_id[f["first_row_id"] + i][c] for c in VECTORS} for i in range(f["rows"])]
        assert got == want
        total += len(got)
    assert total == len(rows)


def test_projection_without_vectors_opens_no_vortex_file(tmp_path):
    rnd = random.Random(5)
    wh = str(tmp_path / "wh")
    ccat = paimonc.CatalogFactory.create({"warehouse": wh})
    ccat.create_database("db", True)
    _pc_create(ccat, "t", {}, False)
    rows = _rows(rnd, 0, 50, nulls=True)
    _pc_write(ccat, "t", pa.Table.from_pylist(rows, schema=ARROW))
    paths = _vortex_paths(wh, "t")
    assert paths
    for p in paths:
        with open(p, "wb") as f:
            f.write(b"not a vortex file")
    t = ccat.get_table("db.t")
    assert [{c: r[c] for c in ("id", "s")} for r in _read(t, ["id", "s"])] == [{c: r[c] for c in ("id", "s")}
                                                                              for r in rows]
    # the corrupt file is named (ECORRUPT comes out of the Arrow reader as OSError)
    with pytest.raises((paimonc.PaimonError, OSError), match=r"\.vector\.vortex.*not a readable vortex file") as ei:
        _read(t, ["id", "v"])
    assert "Backtrace" not in str(ei.value)


def test_lance_refused(tmp_path):
    wh = str(tmp_path / "wh")
    ccat = paimonc.CatalogFactory.create({"warehouse": wh})
    ccat.create_database("db", True)
    _pc_create(ccat, "t", {"vector.file.format": "lance"}, False)
    with pytest.raises(paimonc.PaimonError, match="vector.file.format.*lance"):
        _pc_write(ccat, "t", pa.Table.from_pylist(_rows(random.Random(1), 0, 3, False), schema=ARROW))
