"""An image-caption training-data pipeline on a local Paimon warehouse, with paimonc.

What a data team does with such a table, end to end:
  1. create `ml.image_captions` (image bytes, caption, a 64-d embedding as
     VECTOR, labels, size, capture time; partitioned by split and day);
  2. ingest two days of samples (one commit each), tag the first release;
  3. evolve the schema (a feature team adds an aesthetic score) and ingest a
     third day that carries it;
  4. feed training: stream `split = 'train' AND width >= 256` batches with
     a projection, as a data loader would;
  5. retrieval: brute-force cosine nearest neighbours of a query embedding
     over the validation split;
  6. time travel to the tagged release;
  7. read the same table with pypaimon (the reference Python
     implementation) and check that both see the same rows.
Images are stored in a BYTES column: BLOB columns (written to dedicated
.blob files) come with the multimodal issue.
"""
import sys
import time

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

import paimonc

warehouse = sys.argv[1] if len(sys.argv) > 1 else "warehouse"
ROWS_PER_DAY = int(sys.argv[2]) if len(sys.argv) > 2 else 50_000
DIM = 64
TABLE = "ml.image_captions"

catalog = paimonc.CatalogFactory.create({"warehouse": warehouse})
catalog.create_database("ml", True)
catalog.drop_table(TABLE, True)      # the demo starts from scratch each run

arrow_schema = pa.schema([
    pa.field("sample_id", pa.int64(), nullable=False),
    pa.field("source_url", pa.string()),
    pa.field("image", pa.binary()),
    pa.field("caption", pa.string()),
    pa.field("embedding", pa.list_(pa.float32(), DIM)),   # -> VECTOR<FLOAT, 64>
    pa.field("labels", pa.list_(pa.string())),
    pa.field("width", pa.int32()),
    pa.field("height", pa.int32()),
    pa.field("captured_at", pa.timestamp("us")),
    pa.field("split", pa.string(), nullable=False),
    pa.field("dt", pa.string(), nullable=False),
])
catalog.create_table(TABLE, paimonc.Schema.from_pyarrow_schema(
    arrow_schema, partition_keys=["split", "dt"],
    options={"bucket": "-1", "file.format": "parquet", "row-tracking.enabled": "true"},
    comment="image-caption pairs for contrastive pre-training"), False)

WORDS = ("a dog on a beach|a red bicycle|two cats asleep|city skyline at night|a bowl of ramen|"
         "mountain lake at dawn|a vintage car|children playing football|a lighthouse in fog|"
         "fresh bread on a table").split("|")
LABELS = ["animal", "vehicle", "food", "landscape", "people", "urban"]


def make_day(day, first_id, n, with_score=False, seed=0):
    rng = np.random.default_rng(seed)
    ids = np.arange(first_id, first_id + n, dtype=np.int64)
    emb = rng.standard_normal((n, DIM), dtype=np.float32)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    header = b"\x89PNG\r\n\x1a\n"
    images = [header + rng.bytes(int(s)) for s in rng.integers(200, 2000, n)]
    cols = {
        "sample_id": ids,
        "source_url": [f"s3://raw-images/{day}/{i}.png" for i in ids],
        "image": pa.array(images, pa.binary()),
        "caption": [WORDS[(i * 7919 // 10) % len(WORDS)] for i in ids],
        "embedding": pa.FixedSizeListArray.from_arrays(pa.array(emb.reshape(-1)), DIM),
        "labels": [[LABELS[i % 6], LABELS[(i * 7) % 6]] for i in ids],
        "width": pa.array(rng.choice([128, 256, 512, 1024], n).astype(np.int32)),
        "height": pa.array(rng.choice([128, 256, 512], n).astype(np.int32)),
        "captured_at": pa.array(np.datetime64(f"{day}T00:00:00") + rng.integers(0, 86_400_000_000, n)
                                .astype("timedelta64[us]")),
        "split": ["train" if i % 10 < 8 else "val" for i in ids],
        "dt": [day] * n,
    }
    if with_score:
        cols["aesthetic_score"] = pa.array(rng.uniform(3, 8, n).astype(np.float32))
    return pa.table(cols)


def ingest(table, data):
    t0 = time.perf_counter()
    wb = table.new_batch_write_builder()
    with wb.new_write() as w, wb.new_commit() as c:
        w.write_arrow(data)
        c.commit(w.prepare_commit())
    dt = time.perf_counter() - t0
    snap = table.latest_snapshot()
    print(f"  snapshot {snap.id}: +{data.num_rows:,} rows ({data.nbytes / 2**20:.0f} MB) in {dt:.2f}s "
          f"-> {snap.total_record_count:,} rows in the table")


print(f"warehouse {warehouse}, table {TABLE}")
print("1-2. ingest")
table = catalog.get_table(TABLE)
ingest(table, make_day("2024-05-14", 0, ROWS_PER_DAY, seed=1))
table.create_tag("release-1")
ingest(table, make_day("2024-05-15", ROWS_PER_DAY, ROWS_PER_DAY, seed=2))

print("3. schema evolution: add aesthetic_score, ingest a day that has it")
catalog.alter_table(TABLE, [paimonc.SchemaChange.add_column("aesthetic_score", "FLOAT",
                                                            "LAION aesthetic predictor v2")])
table = catalog.get_table(TABLE)
ingest(table, make_day("2024-05-16", 2 * ROWS_PER_DAY, ROWS_PER_DAY, with_score=True, seed=3))
for f in table.fields:
    print(f"   {f.id:>3} {f.name:<16} {f.type}")

print("4. training feed: split = 'train' AND width >= 256, streamed")
rb = table.new_read_builder()
pb = rb.new_predicate_builder()
train_filter = pb.and_predicates([pb.equal("split", "train"), pb.greater_or_equal("width", 256)])
rb = rb.with_filter(train_filter).with_projection(["sample_id", "image", "caption", "embedding", "aesthetic_score"])
t0 = time.perf_counter()
plan = rb.new_scan().plan()
batches = rows = image_bytes = 0
norm_sum = 0.0
for batch in rb.new_read().to_arrow_batch_reader(plan.splits()):
    batches += 1
    rows += batch.num_rows
    image_bytes += pc.sum(pc.binary_length(batch.column("image"))).as_py() or 0
    emb = batch.column("embedding").flatten().to_numpy(zero_copy_only=False).reshape(-1, DIM)
    norm_sum += float(np.linalg.norm(emb, axis=1).sum())   # stand-in for a training step
dt = time.perf_counter() - t0
print(f"   {rows:,} training rows in {batches} batches, {image_bytes / 2**20:.0f} MB of images, "
      f"{rows / dt / 1e6:.2f} M rows/s; files read {plan.files_selected} of {plan.files_total}; "
      f"mean |embedding| {norm_sum / max(rows, 1):.3f}")

print("5. retrieval: top-5 validation captions for a query embedding")
rb = table.new_read_builder()
pb = rb.new_predicate_builder()
val = rb.with_filter(pb.equal("split", "val")).with_projection(["sample_id", "caption", "embedding"])
val_t = val.new_read().to_arrow(val.new_scan().plan().splits())
emb = val_t.column("embedding").combine_chunks().flatten().to_numpy().reshape(-1, DIM)
query = emb[42] + 0.05 * np.random.default_rng(7).standard_normal(DIM).astype(np.float32)
scores = emb @ (query / np.linalg.norm(query))
for i in np.argsort(-scores)[:5]:
    print(f"   {scores[i]:.3f}  #{val_t.column('sample_id')[int(i)].as_py():>7}  {val_t.column('caption')[int(i)].as_py()}")

print("6. time travel to tag release-1")
old = table.copy({"scan.tag-name": "release-1"})
orb = old.new_read_builder()
old_rows = orb.new_read().to_arrow(orb.new_scan().plan().splits())
print(f"   release-1 has {old_rows.num_rows:,} rows and columns {old_rows.column_names[-3:]}")

print("7. the same table through pypaimon")
try:
    import pypaimon
except ImportError:
    print("   pypaimon not installed: skipped")
    sys.exit(0)
pt = pypaimon.CatalogFactory.create({"warehouse": warehouse}).get_table(TABLE)
prb = pt.new_read_builder()
ppb = prb.new_predicate_builder()
prb = prb.with_filter(ppb.and_predicates([ppb.equal("split", "train"), ppb.greater_or_equal("width", 256)]))
t0 = time.perf_counter()
theirs = prb.new_read().to_arrow(prb.new_scan().plan().splits())
py_dt = time.perf_counter() - t0
rb = table.new_read_builder().with_filter(train_filter)
t0 = time.perf_counter()
ours = rb.new_read().to_arrow(rb.new_scan().plan().splits())
pc_dt = time.perf_counter() - t0
same = (ours.num_rows == theirs.num_rows and
        ours.sort_by("sample_id").select(["sample_id", "caption", "width"]).equals(
            theirs.sort_by("sample_id").select(["sample_id", "caption", "width"])))
print(f"   pypaimon reads {theirs.num_rows:,} training rows, paimonc {ours.num_rows:,}: "
      f"{'identical' if same else 'DIFFERENT'}; full filtered read paimonc {pc_dt:.2f}s, pypaimon {py_dt:.2f}s")
if not same:
    sys.exit(1)
