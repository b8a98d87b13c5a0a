"""Round trip of random Arrow tables through paimonc's Parquet writer and
pyarrow's reader, with checks of schema (Paimon type mapping, field ids),
values, chunk statistics and page indexes.

What changes on the way (the documented Paimon mapping, see pq_write_gen.py):
timestamp[s] -> timestamp[ms]; timestamp[ns] -> INT96 -> timestamp[ns] without tz;
tz-aware -> tz 'UTC'; time32[s]/time64 -> time32[ms]; large_string -> string;
large_binary/fixed_size_binary -> binary; large_list/fixed_size_list -> list.
"""
import decimal
import math
import os
import random
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

sys.path.insert(0, os.path.dirname(__file__))
import pq_write_gen as gen  # noqa: E402

try:
    from paimonc.parquet import write_table
except ImportError:  # the reader's module is not on this branch yet
    from paimonc.parquet_write import write_table

N_SEEDS = 500
CODECS = ["zstd", "snappy", "gzip", "lz4", "lz4_raw", "none"]


def rand_options(rng):
    opts = {"compression": rng.choice(CODECS)}
    if rng.random() < 0.3:
        opts["dictionary"] = False
    if rng.random() < 0.4:
        opts["page_size"] = rng.choice([64, 500, 4096])
    if rng.random() < 0.3:
        opts["page_row_limit"] = rng.choice([1, 7, 50])
    if rng.random() < 0.4:
        opts["row_group_size"] = rng.choice([1, 300, 5000])
    if rng.random() < 0.2:
        opts["dictionary_page_size"] = rng.choice([0, 16, 200])
    return opts


def leaves(t):
    """(leaf type, fn value -> list of level entries (None = null at some level))."""
    if pa.types.is_list(t):
        for lt, fn in leaves(t.value_type):
            yield lt, (lambda v, fn=fn: [None] if not v else [e for x in v for e in fn(x)])
    elif pa.types.is_map(t):
        for lt, fn in leaves(t.key_type):
            yield lt, (lambda v, fn=fn: [None] if not v else [e for k, _ in v for e in fn(k)])
        for lt, fn in leaves(t.item_type):
            yield lt, (lambda v, fn=fn: [None] if not v else [e for _, x in v for e in fn(x)])
    elif pa.types.is_struct(t):
        for f in t:
            for lt, fn in leaves(f.type):
                yield lt, (lambda v, fn=fn, n=f.name: [None] if v is None else fn(v[n]))
    else:
        yield t, (lambda v: [v])


def physical(v, t):
    if isinstance(v, decimal.Decimal):
        return int(decimal.Context(prec=80).scaleb(v, t.scale))
    if isinstance(v, str):
        return v.encode("utf-8")
    return v


def raw_to_value(raw, col, t):
    if pa.types.is_decimal(t) and isinstance(raw, bytes):
        return int.from_bytes(raw, "big", signed=True)
    if isinstance(raw, str):
        return raw.encode("utf-8")
    return raw


def check_stats(path, table_schema):
    pf = pq.ParquetFile(path)
    md = pf.metadata
    for rg in range(md.num_row_groups):
        assert md.row_group(rg).num_rows > 0
        t = pf.read_row_group(rg)
        iv = t.cast(pa.schema([pa.field(f.name, gen.int_view(f.type), f.nullable) for f in t.schema]))
        col = 0
        for fi, f in enumerate(iv.schema):
            vals = iv.column(fi).to_pylist()
            for lt, fn in leaves(f.type):
                entries = [e for v in vals for e in fn(v)]
                cm = md.row_group(rg).column(col)
                assert cm.has_offset_index, (path, col)
                st = cm.statistics
                if cm.physical_type == "INT96":  # pyarrow ignores INT96 statistics
                    assert st is None or not st.has_min_max
                    col += 1
                    continue
                assert st is not None
                nulls = sum(1 for e in entries if e is None)
                assert st.null_count == nulls, (cm.path_in_schema, st.null_count, nulls)
                assert cm.num_values == len(entries)
                present = [physical(e, lt) for e in entries
                           if e is not None and not (isinstance(e, float) and math.isnan(e))]
                int96 = cm.physical_type == "INT96"
                has_nan = any(isinstance(e, float) and math.isnan(e) for e in entries)
                if not int96 and not has_nan:
                    assert cm.has_column_index, (cm.path_in_schema,)
                if int96 or not present:
                    assert not st.has_min_max, (cm.path_in_schema,)
                elif isinstance(present[0], bytes) and len(min(present)) + len(max(present)) > 4096:
                    assert not st.has_min_max
                else:
                    assert st.has_min_max, (cm.path_in_schema,)
                    mn = raw_to_value(st.min_raw, cm, lt)
                    mx = raw_to_value(st.max_raw, cm, lt)
                    assert mn == min(present), (cm.path_in_schema, mn, min(present))
                    assert mx == max(present), (cm.path_in_schema, mx, max(present))
                    if isinstance(mn, float) and mn == 0:
                        assert math.copysign(1, mn) < 0
                    if isinstance(mx, float) and mx == 0:
                        assert math.copysign(1, mx) > 0
                col += 1
        assert col == md.num_columns


def roundtrip(seed, tmp_path):
    rng = random.Random(seed)
    schema = gen.rand_schema(rng)
    n = rng.choice([0, 1, 2, 17, 100, 100, 400, 1500])
    table = gen.make_table(rng, schema, n)
    opts = rand_options(rng)
    path = str(tmp_path / ("s%d.parquet" % seed))
    if rng.random() < 0.3 and n > 3:  # several batches, some sliced
        reader = pa.RecordBatchReader.from_batches(schema, table.to_batches(max_chunksize=rng.randint(1, n)))
        write_table(reader, path, **opts)
    elif rng.random() < 0.2 and n > 3:
        write_table(table.slice(1, n - 2), path, **opts)
        table = table.slice(1, n - 2)
    else:
        write_table(table, path, **opts)

    got = pq.read_table(path)
    assert got.num_rows == table.num_rows
    # schema: the Paimon mapping, nullability, field ids
    for f, g in zip(schema, got.schema):
        assert g.name == f.name
        assert g.nullable == f.nullable, (f, g)
        assert gen.type_shape(g.type) == gen.type_shape(gen.expected_type(f.type)), (f.type, g.type)
    assert [int(f.metadata[b"PARQUET:field_id"]) for f in got.schema] == list(range(len(schema)))
    # values
    want_iv = table.cast(pa.schema([pa.field(f.name, gen.int_view(f.type), f.nullable) for f in schema]))
    got_iv = got.cast(pa.schema([pa.field(f.name, gen.int_view(f.type), f.nullable) for f in got.schema]))
    for i, f in enumerate(schema):
        want = [gen.norm(gen.expected_value(v, f.type)) for v in want_iv.column(i).to_pylist()]
        have = [gen.norm(v) for v in got_iv.column(i).to_pylist()]
        assert have == want, (f, opts)
    check_stats(path, schema)
    md = pq.ParquetFile(path).metadata
    assert md.created_by.startswith("paimon-c version 0.1.0 (build ")
    assert md.format_version == "1.0"
    os.unlink(path)


@pytest.mark.parametrize("block", range(10))
def test_roundtrip_random(block, tmp_path):
    per = N_SEEDS // 10
    for seed in range(block * per, (block + 1) * per):
        try:
            roundtrip(seed, tmp_path)
        except Exception as e:
            raise AssertionError("seed %d: %r" % (seed, e)) from e
