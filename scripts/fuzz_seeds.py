#!/usr/bin/env python3
"""Regenerates the generated fuzz seeds in fuzz/corpus/<target>/gen-*.

Sources (all deterministic: sorted inputs, fixed data, caps on counts):
  * /work/shared/testdata parquet files (whole files <= 64 KB, their
    footers, their first page header) -> parquet_read, parquet_footer, thrift
  * a table written by pypaimon 2.1.0 and tables written by our own writer
    (the paimonc CLI): manifests, manifest lists, snapshots, schemas, tags,
    hints, data files, value stats, partition rows, type strings
  * small hand-written CSV / JSON Lines inputs for the CLI's text input
  * .blob files, BlobDescriptor and BlobViewStruct bytes pypaimon writes -> blob
Hand-made and crash seeds (any name not starting with "gen-") are kept.

Usage: scripts/fuzz_seeds.py [--paimonc PATH] [--testdata DIR]
  run with /work/main/.venv/bin/python (pyarrow, pypaimon, fastavro);
  PATH defaults to build/paimonc (ninja -C build paimonc).
"""
import argparse
import glob
import hashlib
import io
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "fuzz", "corpus")
MAX_SEED = 64 * 1024   # no seed larger than this
MAX_PER_SOURCE = 30    # seeds per target from one source kind

written = {}


def seed(target, name, data):
    """Writes fuzz/corpus/<target>/gen-<name> unless too big or a duplicate."""
    if not data or len(data) > MAX_SEED:
        return False
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    h = hashlib.sha1(data).hexdigest()
    seen = written.setdefault(target, set())
    if h in seen:
        return False
    seen.add(h)
    # file names of written tables carry random UUIDs: name by content instead
    name = re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", h[:12], name)
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:60]
    with open(os.path.join(d, "gen-" + safe), "wb") as f:
        f.write(data)
    return True


def clean_generated():
    for p in glob.glob(os.path.join(CORPUS, "*", "gen-*")):
        os.remove(p)


def parquet_footer(data):
    if len(data) < 12 or data[-4:] != b"PAR1":
        return None
    n = struct.unpack("<I", data[-8:-4])[0]
    if n + 8 > len(data):
        return None
    return data[-8 - n:-8]


def add_parquet(tag, name, data, counts):
    if len(data) <= MAX_SEED and counts["read"] < MAX_PER_SOURCE:
        counts["read"] += seed("fuzz_parquet_read", f"{tag}-{name}", data)
    foot = parquet_footer(data)
    if foot and counts["footer"] < MAX_PER_SOURCE:
        counts["footer"] += seed("fuzz_parquet_footer", f"{tag}-footer-{name}", foot)
        if counts["thrift"] < MAX_PER_SOURCE // 2:
            counts["thrift"] += seed("fuzz_thrift", f"{tag}-footer-{name}", foot[:8192])
    if data[:4] == b"PAR1" and counts["page"] < MAX_PER_SOURCE // 2:
        # the first page header (a struct) followed by some page bytes
        counts["page"] += seed("fuzz_parquet_footer", f"{tag}-page-{name}", data[4:260])
        seed("fuzz_thrift", f"{tag}-page-{name}", data[4:260])


def from_testdata(testdata):
    counts = dict(read=0, footer=0, thrift=0, page=0)
    files = sorted(glob.glob(os.path.join(testdata, "**", "*.parquet"), recursive=True))
    for p in files:
        with open(p, "rb") as f:
            data = f.read()
        add_parquet("td", os.path.basename(p), data, counts)
    csvs = sorted(glob.glob(os.path.join(testdata, "**", "*.csv"), recursive=True))
    for i, p in enumerate(csvs[:4]):
        with open(p, "rb") as f:
            seed("fuzz_textio", f"td-csv{i}", b"\x00" + f.read(4096))
    print(f"testdata: {len(files)} parquet files -> {counts}")


# ------------------------------------------------------------------ tables


def table_files(tdir):
    out = {}
    for dirpath, _, names in os.walk(tdir):
        for n in names:
            p = os.path.join(dirpath, n)
            out[os.path.relpath(p, tdir)] = p
    return dict(sorted(out.items()))


def harvest_table(tag, tdir, counts, stats_columns=None, part_selectors=()):
    """Seeds from every file of one table directory."""
    import fastavro

    files = table_files(tdir)
    names = {"snapshot": [], "tag": []}
    hints = {}
    for rel, p in files.items():
        with open(p, "rb") as f:
            data = f.read()
        base = os.path.basename(rel)
        top = rel.split(os.sep)[0]
        if top == "manifest":
            seed("fuzz_manifest", f"{tag}-{base}", data)
            seed("fuzz_avro", f"{tag}-{base}", data)
            try:
                recs = list(fastavro.reader(io.BytesIO(data)))
            except Exception:
                recs = []
            for r in recs:
                fm = r.get("_FILE")
                if not isinstance(fm, dict):
                    continue
                part = r.get("_PARTITION")
                for sel in part_selectors:
                    if part:
                        seed("fuzz_partition", f"{tag}-part{sel}-{hashlib.sha1(part).hexdigest()[:10]}",
                             bytes([sel]) + part)
                vs = fm.get("_VALUE_STATS")
                if stats_columns and vs:
                    cols = fm.get("_VALUE_STATS_COLS")
                    nc = vs.get("_NULL_COUNTS")
                    flags = (1 if cols is not None else 0) | (2 if nc is not None else 0)
                    b = bytes([flags])
                    if cols is not None:
                        idx = [stats_columns.index(c) if c in stats_columns else len(stats_columns)
                               for c in cols]
                        b += bytes([len(idx)]) + bytes(idx)
                    mn, mx = vs["_MIN_VALUES"], vs["_MAX_VALUES"]
                    b += struct.pack("<H", len(mn)) + mn + mx
                    seed("fuzz_stats", f"{tag}-{hashlib.sha1(b).hexdigest()[:12]}", b)
        elif top == "snapshot":
            if base.startswith("snapshot-"):
                seed("fuzz_snapshot_json", f"{tag}-{base}", data)
            elif base in ("LATEST", "EARLIEST"):
                hints[base] = data
            names["snapshot"].append(base)
        elif top == "tag":
            seed("fuzz_snapshot_json", f"{tag}-{base}", data)
            names["tag"].append(base)
        elif top == "schema":
            seed("fuzz_schema_json", f"{tag}-{base}", data)
            try:
                for fld in json.loads(data).get("fields", []):
                    t = fld.get("type")
                    enc = t.encode() if isinstance(t, str) else json.dumps(t).encode()
                    seed("fuzz_type_parse", f"{tag}-{hashlib.sha1(enc).hexdigest()[:12]}", enc)
            except Exception:
                pass
        elif base.endswith(".parquet"):
            add_parquet(tag, base, data, counts)
    listing = "\n".join(names["snapshot"] + names["tag"]).encode()
    hint = bytes([(1 if "LATEST" in hints else 0) | (2 if "EARLIEST" in hints else 0)])
    hint += hints.get("LATEST", b"") + b"\n" + hints.get("EARLIEST", b"") + b"\n" + listing
    seed("fuzz_hint", f"{tag}-hints", hint)


def pypaimon_table(wh, counts):
    import pyarrow as pa
    from pypaimon import CatalogFactory, Schema

    catalog = CatalogFactory.create({"warehouse": wh})
    catalog.create_database("db", False)
    schema = pa.schema([
        ("dt", pa.string()), ("id", pa.int64()), ("name", pa.string()), ("price", pa.float64()),
        ("qty", pa.int32()), ("ok", pa.bool_()), ("day", pa.date32()),
        ("ts", pa.timestamp("us")), ("amount", pa.decimal128(10, 2)), ("raw", pa.binary()),
    ])
    specs = [("pk", ["dt"], ["dt", "id"], {"bucket": "2"}), ("append", ["dt"], None, {}),
             ("plain", None, None, {"file.format": "parquet"})]
    import datetime
    import decimal
    for name, parts, pks, opts in specs:
        catalog.create_table(f"db.{name}", Schema.from_pyarrow_schema(schema, partition_keys=parts,
                                                                      primary_keys=pks, options=opts), False)
        table = catalog.get_table(f"db.{name}")
        for batch in range(2):
            n = 5
            data = pa.table({
                "dt": ["2024-05-1%d" % (i % 2) for i in range(n)],
                "id": [batch * 10 + i for i in range(n)],
                "name": [None if i == 2 else "n%d" % i for i in range(n)],
                "price": [i * 1.25 for i in range(n)],
                "qty": [i - 2 for i in range(n)],
                "ok": [i % 2 == 0 for i in range(n)],
                "day": [datetime.date(2024, 1, 1 + i) for i in range(n)],
                "ts": [datetime.datetime(2024, 1, 1, 1, 2, 3, 456789 + i) for i in range(n)],
                "amount": [decimal.Decimal("%d.%02d" % (i, i)) for i in range(n)],
                "raw": [bytes([i, 255 - i]) for i in range(n)],
            }, schema=schema)
            wb = table.new_batch_write_builder()
            w, c = wb.new_write(), wb.new_commit()
            w.write_arrow(data)
            c.commit(w.prepare_commit())
            w.close()
            c.close()
        harvest_table(f"py-{name}", os.path.join(wh, "db.db", name), counts)


def blob_seeds(wh):
    """fuzz_blob: .blob files pypaimon 2.1.0 writes (its BlobFormatWriter
    directly, and a BLOB table's append and update-delta files), one in the
    older CRC form, BlobDescriptor v1/v2 and BlobViewStruct bytes."""
    import random
    import pyarrow as pa
    from pypaimon import CatalogFactory, Schema
    from pypaimon.common.delta_varint_compressor import DeltaVarintCompressor
    from pypaimon.schema.data_types import AtomicType, DataField
    from pypaimon.table.row.blob import Blob, BlobDescriptor, BlobViewStruct
    from pypaimon.write.blob_format_writer import BlobFormatWriter

    fields = [DataField(0, "b", AtomicType("BLOB"))]
    rng = random.Random(7)
    sets = {
        "example": [b"hello", None, b"", Blob.PLACE_HOLDER],
        "empty": [],
        "nulls": [None, None],
        "delta": [Blob.PLACE_HOLDER, Blob.PLACE_HOLDER, b"new!"],
        "random": [None if rng.random() < 0.2 else rng.randbytes(rng.randrange(0, 40)) for _ in range(40)],
        "big-record": [rng.randbytes(3000)],
    }
    for name, values in sets.items():
        out = io.BytesIO()
        out.close = lambda: None
        w = BlobFormatWriter(out)
        for v in values:
            w.write_value(v, fields)
        w.close()
        data = out.getvalue()
        seed("fuzz_blob", "py-" + name, data)
        if name == "example":
            # the same file with the CRC of magic||payload only (older pypaimon)
            import zlib
            old = bytearray(data)
            for start, n in ((0, 5), (21, 0)):
                crc = zlib.crc32(bytes(old[start:start + 4 + n]))
                old[start + 4 + n + 8:start + 4 + n + 12] = struct.pack("<I", crc)
            seed("fuzz_blob", "py-example-oldcrc", bytes(old))
    for vals in ([21, -1, 16, -2], [2**62, -2**63, 0], [16] * 10):
        seed("fuzz_blob", "varint-%d" % len(vals), DeltaVarintCompressor.compress(vals))
    d = BlobDescriptor("/w/db.db/t/bucket-0/data-0.blob", 4, 123).serialize()
    seed("fuzz_blob", "desc-v2", d)
    seed("fuzz_blob", "desc-v1", bytes([1]) + d[9:])
    seed("fuzz_blob", "desc-v2-unicode", BlobDescriptor("oss://b/\u00fc", 0, -1).serialize())
    seed("fuzz_blob", "view", BlobViewStruct("db.t", 3, 42).serialize())

    catalog = CatalogFactory.create({"warehouse": wh})
    catalog.create_database("db", True)
    de = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
    catalog.create_table("db.blob", Schema.from_pyarrow_schema(
        pa.schema([("id", pa.int64()), ("img", pa.large_binary())]), options=de), False)
    t = catalog.get_table("db.blob")
    wb = t.new_batch_write_builder()
    w, c = wb.new_write(), wb.new_commit()
    w.write_arrow(pa.table({"id": pa.array(range(5), pa.int64()),
                            "img": pa.array([b"a" * 100, None, b"", b"xyz", None], pa.large_binary())}))
    c.commit(w.prepare_commit())
    w.close()
    c.close()
    msgs = t.new_batch_write_builder().new_update().with_update_type(["img"]).update_by_arrow_with_row_id(
        pa.table({"_ROW_ID": pa.array([3], pa.int64()), "img": pa.array([b"upd"], pa.large_binary())}))
    c = t.new_batch_write_builder().new_commit()
    c.commit(msgs)
    c.close()
    for p in sorted(glob.glob(os.path.join(wh, "db.db", "blob", "bucket-0", "*.blob"))):
        with open(p, "rb") as f:
            seed("fuzz_blob", "table-" + os.path.basename(p), f.read())


# The schemas the C fuzz targets use (fuzz_stats.c COLUMNS; fuzz_partition.c
# small key row), written by our CLI so the stats and partition bytes fit.
STATS_COLUMNS = ("a INT, b STRING, c DOUBLE, d DECIMAL(30, 2), e TIMESTAMP(6), f DATE, g BOOLEAN, h BYTES, "
                 "i ARRAY<INT>, j DECIMAL(5, 2), k FLOAT, l TIMESTAMP(3), m TINYINT, n SMALLINT, o BIGINT, "
                 "p TIME, q CHAR(4), r TIMESTAMP_LTZ(9), s BINARY(3)")
STATS_NAMES = [c.strip().split(" ")[0] for c in STATS_COLUMNS.split(", ")
               if c.strip().split(" ")[0].isalpha() and len(c.strip().split(" ")[0]) == 1]
STATS_CSV = [
    "a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q,r,s",
    '1,abc,1.5,12.34,2024-05-14 01:02:03.123456,2024-05-14,true,YWJj,"[1,2]",1.25,0.5,'
    "2024-05-14 01:02:03.123,7,300,-5,01:02:03.500,ab,2024-05-14 01:02:03.123456789,AAEC",
    ',,,,,,,,,,,,,,,,,,',
    '-7,"x, y",-0.0,-99.99,1970-01-01 00:00:00,1970-01-01,false,,[],-1.00,NaN,'
    "1969-12-31 23:59:59.999,-128,-32768,9223372036854775807,00:00:00,,1970-01-01 00:00:00,////",
]
STATS_CSV2 = [STATS_CSV[0],
              '42,zz,Infinity,0.01,2100-01-01 00:00:00.5,2100-01-01,true,,"[null]",999.99,-Infinity,'
              "2100-01-01 00:00:00.001,127,32767,-9223372036854775808,23:59:59.999,abcd,,AA=="]


def cli_tables(paimonc, wh, counts):
    tmp = os.path.join(wh, "_in")
    os.makedirs(tmp)

    def run(*args, stdin=None):
        r = subprocess.run([paimonc, "-w", wh] + list(args), capture_output=True, text=True, input=stdin)
        if r.returncode:
            raise RuntimeError(f"paimonc {' '.join(args)}: {r.stderr.strip()}")
        return r.stdout

    def csv(name, lines):
        p = os.path.join(tmp, name)
        with open(p, "w") as f:
            f.write("\n".join(lines) + "\n")
        return p

    run("db", "create", "db")
    # stats: with dense stats store off and on (value_stats_cols present)
    run("table", "create", "db.s", "--columns", STATS_COLUMNS)
    run("table", "create", "db.sd", "--columns", STATS_COLUMNS, "-o", "metadata.stats-mode=none",
        "-o", "fields.a.stats-mode=full", "-o", "fields.b.stats-mode=truncate(2)", "-o", "fields.o.stats-mode=counts")
    for t in ("s", "sd"):
        run("write", f"db.{t}", csv("s1.csv", STATS_CSV))
        run("write", f"db.{t}", csv("s2.csv", STATS_CSV2))
    run("tag", "create", "db.s", "v1")
    # partitions: the small key row of fuzz_partition (info[2]/info[3])
    run("table", "create", "db.p", "--columns", "dt STRING, d DATE, ts TIMESTAMP(6), v INT",
        "--partition-keys", "dt,d,ts")
    run("write", "db.p", csv("p1.csv", ["dt,d,ts,v", "2024-05-14,2024-05-14,2024-05-14 01:02:03.123456,1",
                                        ",,,2", "a/b=c%,1970-01-01,1970-01-01 00:00:00,3"]))
    tables = os.path.join(wh, "db.db")
    harvest_table("c-s", os.path.join(tables, "s"), counts, stats_columns=STATS_NAMES)
    harvest_table("c-sd", os.path.join(tables, "sd"), counts, stats_columns=STATS_NAMES)
    harvest_table("c-p", os.path.join(tables, "p"), counts, part_selectors=(5, 7))
    # the partition spec text forms of the same rows
    for sel in (4, 6):
        seed("fuzz_partition", f"spec{sel}-a",
             bytes([sel]) + b"dt=2024-05-14/d=2024-05-14/ts=2024-05-14 01%3A02%3A03.123456")
        seed("fuzz_partition", f"spec{sel}-null",
             bytes([sel]) + b"dt=__DEFAULT_PARTITION__/d=__HIVE_DEFAULT__/ts=1970-01-01 00:00:00")
    seed("fuzz_partition", "spec0-all", b"\x00dt=x/h=1/d=2024-01-01/b=true/ts=2024-01-01 00:00:00.5/"
         b"dec=1.25/big=-123456789012345678.125/x=7/f=1.5/t=01:02:03/bin=AAE=")
    seed("fuzz_partition", "spec2-all", b"\x02dt=x%2Fy/h=-1/d=1970-01-01/b=false/ts=1970-01-01 00:00:00/"
         b"dec=0.00/big=0.000/x=-9223372036854775808/f=NaN/t=00:00:00/bin=")


def textio_seeds():
    csv0 = (b"1,abc,1.5,12.34,2024-05-14 01:02:03.123456,2024-05-14,true,YWJj\n"
            b',"q ""x"", y",-0.0,,2024-05-14T01:02:03Z,1970-01-01,0,\n'
            b"-2147483648,,NaN,-99999999.99,2024-05-14,2024-02-29,FALSE,AA==\n")
    json0 = (b'{"a": 1, "b": "abc", "c": 1.5, "d": "12.34", "e": "2024-05-14 01:02:03.123456", '
             b'"f": "2024-05-14", "g": true, "h": "YWJj"}\n{"a": null, "c": "Infinity", "d": 3}\n')
    csv1 = (b'7,01:02:03.5,2024-05-14 01:02:03.123456789,-1.00001,0.1,"[1,null,3]","{""k"": 1}",'
            b'"{""x"": 1, ""y"": ""s""}"\n')
    json1 = (b'{"a": 9, "t": "23:59:59", "l": "1970-01-01 00:00:00", "d": "12345678901234567890.12345", '
             b'"f": -1.5, "ar": [1, 2], "m": {"a": 1, "b": null}, "r": {"x": null, "y": "z"}}\n'
             b'{"a": 1, "m": [{"key": "k", "value": 2}]}\n')
    csv2 = (b'"[{""key"": [1], ""value"": ""v""}]",2024-05-14 01:02:03,-32768,127,abc,hello,AAE=,'
            b'2024-05-14 01:02:03.123,"[{""k"": ""1"", ""z"": [1.5, ""NaN""]}]"\n')
    json2 = (b'{"m": [{"key": [1, 2], "value": "x"}], "ts": "2024-05-14", "s": 1, "t": -1, "c": "ab", '
             b'"v": "abcde", "bi": "AAE=", "ms": "2024-05-14 01:02:03.1", "nested": [{"k": "12", "z": []}]}\n')
    for name, sel, text in (("csv0", 0, csv0), ("json0", 1, json0), ("csv1", 2, csv1), ("json1", 3, json1),
                            ("csv2", 4, csv2), ("json2", 5, json2)):
        seed("fuzz_textio", name, bytes([sel]) + text)


def table_bytes_seeds(wh):
    """Commit messages, splits and predicates as our Python package serializes
    them (the byte forms a distributed job ships): fuzz_table_bytes selector
    byte 0 / 1 / 2 + the bytes."""
    import datetime
    import decimal
    import pyarrow as pa
    import paimonc
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    arrow_schema = pa.schema([
        ("id", pa.int64()), ("s", pa.string()), ("d", pa.date32()), ("x", pa.float64()),
        ("m", pa.decimal128(12, 3)), ("ts", pa.timestamp("us")), ("b", pa.bool_()), ("p", pa.int32())])
    schema = paimonc.Schema.from_pyarrow_schema(arrow_schema, partition_keys=["p"])
    cat.create_table("db.t", schema, True)
    t = cat.get_table("db.t")
    n = 0
    for k in range(2):
        rows = 20 + 10 * k
        data = pa.table({
            "id": list(range(n, n + rows)),
            "s": [None if i % 7 == 0 else f"s{i}" for i in range(rows)],
            "d": [datetime.date(2024, 1, 1) + datetime.timedelta(days=i) for i in range(rows)],
            "x": [i / 3 for i in range(rows)],
            "m": [decimal.Decimal(i) / 8 for i in range(rows)],
            "ts": [datetime.datetime(2024, 5, 14, 1, 2, 3) + datetime.timedelta(seconds=i) for i in range(rows)],
            "b": [i % 2 == 0 for i in range(rows)],
            "p": [i % 3 for i in range(rows)]}, schema=arrow_schema)
        n += rows
        wb = t.new_batch_write_builder()
        with wb.new_write() as w, wb.new_commit() as c:
            w.write_arrow(data)
            msgs = w.prepare_commit()
            for j, m in enumerate(msgs):
                seed("fuzz_table_bytes", f"message-{k}-{j}", bytes([0]) + m.serialize())
            c.commit(msgs)
    rb = t.new_read_builder()
    pb = rb.new_predicate_builder()
    preds = [pb.equal("p", 1), pb.and_predicates([pb.greater_than("id", 5), pb.is_null("s")]),
             pb.or_predicates([pb.is_in("s", ["s1", "s2"]), pb.startswith("s", "s1")]),
             pb.between("d", datetime.date(2024, 1, 3), datetime.date(2024, 1, 9))]
    for j, pr in enumerate(preds):
        seed("fuzz_table_bytes", f"predicate-{j}", bytes([2]) + pr.serialize())
    for j, sp in enumerate(rb.with_filter(preds[0]).new_scan().plan().splits()):
        seed("fuzz_table_bytes", f"split-{j}", bytes([1]) + sp.serialize())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--paimonc", default=os.path.join(ROOT, "build", "paimonc"))
    ap.add_argument("--testdata", default="/work/shared/testdata")
    args = ap.parse_args()
    clean_generated()
    from_testdata(args.testdata)
    textio_seeds()
    counts = dict(read=0, footer=0, thrift=0, page=0)
    wh = tempfile.mkdtemp(prefix="fuzz-seeds-")
    try:
        try:
            pypaimon_table(os.path.join(wh, "py"), counts)
        except Exception as e:  # keep going: the other sources still help
            print(f"pypaimon tables failed: {e!r}", file=sys.stderr)
        try:
            blob_seeds(os.path.join(wh, "blob"))
        except Exception as e:
            print(f"blob seeds failed: {e!r}", file=sys.stderr)
        try:
            table_bytes_seeds(os.path.join(wh, "bytes"))
        except Exception as e:
            print(f"table bytes seeds failed: {e!r}", file=sys.stderr)
        if os.access(args.paimonc, os.X_OK):
            try:
                cli_tables(args.paimonc, os.path.join(wh, "c"), counts)
            except Exception as e:
                print(f"paimonc tables failed: {e}", file=sys.stderr)
        else:
            print(f"{args.paimonc} not built: no seeds from our writer", file=sys.stderr)
    finally:
        shutil.rmtree(wh, ignore_errors=True)
    total = 0
    for t in sorted(os.listdir(CORPUS)):
        fs = glob.glob(os.path.join(CORPUS, t, "*"))
        size = sum(os.path.getsize(f) for f in fs)
        total += size
        print(f"{t:24s} {len(fs):4d} seeds {size / 1024:8.1f} KB")
    print(f"{'total':24s}      {total / 1024:8.1f} KB")


if __name__ == "__main__":
    main()
