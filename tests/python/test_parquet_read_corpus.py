"""paimonc.parquet.read_table against pyarrow.parquet.read_table on every
file of the parquet-testing corpus, plus malformed and damaged files.

Every corpus file is accounted for: equal to pyarrow, or listed below in
EXCEPTIONS / PYARROW_UNREADABLE with the reason and what is checked instead.
"""
import glob
import math
import os
import random

import pyarrow as pa
import pyarrow.parquet as ppq
import pytest

import paimonc
import paimonc.parquet as pq

ROOT = "/work/shared/testdata/parquet-testing"
DATA = os.path.join(ROOT, "data")


def corpus_files():
    files = sorted(glob.glob(os.path.join(DATA, "**", "*.parquet"), recursive=True))
    files += sorted(glob.glob(os.path.join(DATA, "*.encrypted")))
    return [os.path.relpath(f, DATA) for f in files]


def norm(v):
    """Python value with NaN made comparable."""
    if isinstance(v, float) and math.isnan(v):
        return "NaN"
    if isinstance(v, list):
        return [norm(x) for x in v]
    if isinstance(v, tuple):
        return tuple(norm(x) for x in v)
    if isinstance(v, dict):
        return {k: norm(x) for k, x in v.items()}
    return v


def assert_tables_equal(got, exp):
    assert got.schema.equals(exp.schema), "schema:\n%s\n--- expected ---\n%s" % (got.schema, exp.schema)
    assert got.num_rows == exp.num_rows
    if got.equals(exp):
        return
    # NaN != NaN in Table.equals: compare values with NaN normalised.
    for name in exp.column_names:
        if not got[name].equals(exp[name]):
            assert norm(got[name].to_pylist()) == norm(exp[name].to_pylist()), name


# Failures surface as paimonc errors when opening (footer, schema) and, once
# pyarrow pulls batches through the C stream, as the pyarrow exception for the
# stream's errno carrying paimonc's message.
ERRORS = (paimonc.PaimonError, OSError, pa.ArrowException)


def read_ours(path, **kw):
    return pa.table(pq.read_table(path, **kw))


# Files pyarrow reads where we deliberately differ; each entry: reason, check.
EXCEPTIONS = {
    "nation.dict-malformed.parquet":
        "malformed dictionary page header (README: arrow-rs and hyparquet reject it, 'prefer rejecting'); "
        "pyarrow happens to read it. We must fail cleanly.",
    "int96_from_spark.parquet":
        "row 5 is year 290000, outside timestamp[ns]; both overflow, with different wrapped numbers "
        "(we wrap days*86400e9+nanos linearly). Rows 0-4 must be equal.",
    "null_list.parquet":
        "element has the NULL logical type, which pyarrow maps to the null type; we read the physical INT32. "
        "The only row is an empty list: values must be equal.",
}

# Files pyarrow 19 cannot read: what the README says they hold.
PYARROW_UNREADABLE = {
    "datapage_v2_empty_datapage.snappy.parquet": ("one null FLOAT 'value'", 1),
    "incorrect_map_schema.parquet": ("map with an optional key; one row", 1),
    "unknown-logical-type.parquet": ("unknown LogicalType member read as binary", 3),
    "geospatial/crs-arbitrary-value.parquet": ("GEOMETRY (WKB binary)", None),
    "geospatial/crs-default.parquet": ("GEOMETRY (WKB binary)", 1),
    "geospatial/crs-geography.parquet": ("GEOGRAPHY (WKB binary)", 1),
    "geospatial/crs-projjson.parquet": ("GEOMETRY (WKB binary)", 1),
    "geospatial/crs-srid.parquet": ("GEOMETRY (WKB binary)", None),
    "geospatial/geography-lines.parquet": ("GEOGRAPHY (WKB binary)", None),
    "geospatial/geography-points.parquet": ("GEOGRAPHY (WKB binary)", None),
    "geospatial/geography-polygons.parquet": ("GEOGRAPHY (WKB binary)", None),
    "geospatial/geospatial-with-nan.parquet": ("GEOMETRY (WKB binary)", 3),
    "geospatial/geospatial.parquet": ("GEOMETRY (WKB binary), 31 row groups", 196),
}

# Files nobody (pyarrow nor paimonc) reads: the error we expect.
BOTH_FAIL = {
    "large_string_map.brotli.parquet": paimonc.UnsupportedError,   # BROTLI codec not built in (pyarrow:
    # decoded size over 2 GiB)
    "encrypt_columns_and_footer.parquet.encrypted": paimonc.UnsupportedError,
    "encrypt_columns_plaintext_footer.parquet.encrypted": paimonc.UnsupportedError,
}


def test_corpus_is_fully_classified():
    files = corpus_files()
    assert len(files) >= 70
    for special in list(EXCEPTIONS) + list(PYARROW_UNREADABLE) + list(BOTH_FAIL):
        assert special in files, special


@pytest.mark.parametrize("name", corpus_files())
def test_corpus_file(name):
    path = os.path.join(DATA, name)
    if name in BOTH_FAIL:
        with pytest.raises(Exception):
            ppq.read_table(path)
        with pytest.raises(ERRORS) as ei:
            read_ours(path)
        assert name.split("/")[-1] in str(ei.value)
        return
    if name in PYARROW_UNREADABLE:
        what, rows = PYARROW_UNREADABLE[name]
        with pytest.raises(Exception):
            ppq.read_table(path)
        got = read_ours(path)
        if rows is not None:
            assert got.num_rows == rows, what
        if name == "unknown-logical-type.parquet":
            col = got.column(1)
            assert col.type == pa.binary()
            assert col.to_pylist() == [b"unknown string 1", b"unknown string 2", b"unknown string 3"]
        if name == "incorrect_map_schema.parquet":
            vals = [v for v in got.column(0).to_pylist()[0]]
            assert dict(vals) == {"name": "report", "parent": "another"}
        if name == "datapage_v2_empty_datapage.snappy.parquet":
            assert got.column("value").to_pylist() == [None]
        return
    exp = ppq.read_table(path)
    if name == "nation.dict-malformed.parquet":
        with pytest.raises(ERRORS):
            read_ours(path)
        return
    got = read_ours(path)
    if name == "int96_from_spark.parquet":
        assert got.schema.equals(exp.schema)
        assert got.slice(0, 5).equals(exp.slice(0, 5))
        return
    if name == "null_list.parquet":
        assert got.num_rows == exp.num_rows
        assert got.to_pylist() == exp.to_pylist()
        return
    assert_tables_equal(got, exp)


@pytest.mark.parametrize("name", ["alltypes_plain.parquet", "alltypes_tiny_pages.parquet",
                                  "nested_maps.snappy.parquet", "nullable.impala.parquet",
                                  "delta_byte_array.parquet", "nested_lists.snappy.parquet"])
@pytest.mark.parametrize("batch_rows", [1, 3, 1000])
def test_batch_sizes(name, batch_rows):
    path = os.path.join(DATA, name)
    assert_tables_equal(read_ours(path, batch_rows=batch_rows), ppq.read_table(path))


def test_projection():
    path = os.path.join(DATA, "alltypes_plain.parquet")
    got = read_ours(path, columns=["id", "string_col"])
    exp = ppq.read_table(path, columns=["id", "string_col"])
    assert_tables_equal(got, exp)
    path = os.path.join(DATA, "nested_maps.snappy.parquet")
    assert_tables_equal(read_ours(path, columns=["b"]), ppq.read_table(path, columns=["b"]))
    with pytest.raises(paimonc.InvalidArgumentError):
        pq.read_table(path, columns=["no_such_column"])


@pytest.mark.parametrize("name", ["delta_binary_packed", "delta_byte_array", "delta_encoding_optional_column",
                                  "delta_encoding_required_column"])
def test_expect_csv(name):
    """The *_expect.csv files hold the values independently of pyarrow's reader."""
    import pyarrow.csv as pcsv
    got = read_ours(os.path.join(DATA, name + ".parquet"))
    exp = pcsv.read_csv(os.path.join(DATA, name + "_expect.csv"),
                        convert_options=pcsv.ConvertOptions(strings_can_be_null=True))
    assert got.num_rows == exp.num_rows
    for i, col in enumerate(exp.column_names):
        e = exp.column(col)
        g = got.column(i)
        if pa.types.is_string(g.type) and not pa.types.is_string(e.type):
            e = e.cast(pa.string())
        if not pa.types.is_string(g.type):
            e = e.cast(g.type)
        assert g.to_pylist() == e.to_pylist(), col


# ---------------------------------------------------------------- bad input

BAD = sorted(glob.glob(os.path.join(ROOT, "bad_data", "*.parquet")))
# ARROW-GH-43605: dictionary index bit width 0 with a 1-entry dictionary is valid.
BAD_BUT_VALID = {"ARROW-GH-43605.parquet"}


@pytest.mark.parametrize("path", BAD, ids=os.path.basename)
def test_bad_data(path):
    if os.path.basename(path) in BAD_BUT_VALID:
        assert_tables_equal(read_ours(path), ppq.read_table(path))
        return
    with pytest.raises(ERRORS) as ei:
        read_ours(path)
    assert os.path.basename(path) in str(ei.value)


def damaged_variants(data, seed):
    rnd = random.Random(seed)
    n = len(data)
    yield "trunc-half", data[: n // 2]
    yield "trunc-tail", data[: max(0, n - 9)]
    yield "no-head", data[4:]
    for k in range(12):
        b = bytearray(data)
        for _ in range(1 + k % 3):
            i = rnd.randrange(n)
            b[i] ^= 1 << rnd.randrange(8)
        yield "flip%d" % k, bytes(b)
    for k in range(4):
        b = bytearray(data)
        i = rnd.randrange(max(1, n - 16))
        b[i:i + 8] = bytes(rnd.randrange(256) for _ in range(8))
        yield "smash%d" % k, bytes(b)


DAMAGE_SEEDS = ["alltypes_plain.parquet", "alltypes_dictionary.parquet", "datapage_v2.snappy.parquet",
                "nested_lists.snappy.parquet", "nested_maps.snappy.parquet", "nullable.impala.parquet",
                "delta_byte_array.parquet", "delta_length_byte_array.parquet", "rle_boolean_encoding.parquet",
                "byte_stream_split.zstd.parquet", "list_columns.parquet", "fixed_length_decimal.parquet",
                "int32_with_null_pages.parquet", "repeated_no_annotation.parquet", "old_list_structure.parquet",
                "lz4_raw_compressed.parquet", "hadoop_lz4_compressed.parquet", "concatenated_gzip_members.parquet"]


@pytest.mark.parametrize("name", DAMAGE_SEEDS)
def test_damaged_files_never_crash(name, tmp_path):
    with open(os.path.join(DATA, name), "rb") as f:
        data = f.read()
    failures = 0
    for tag, blob in damaged_variants(data, name):
        p = tmp_path / ("%s-%s.parquet" % (tag, name))
        p.write_bytes(blob)
        try:
            read_ours(str(p))
        except ERRORS as e:
            failures += 1
            assert str(e)
    # truncations always fail
    assert failures >= 3
