"""A multimodal training-data table on a local Paimon warehouse, with paimonc.

Creates database `ml` and table `ml.training_samples` (images as BLOB,
CLIP-style embeddings as VECTOR, labels, captions; partitioned by split and
day), evolves the schema the way a feature team would, prints the result, and
opens the same table with pypaimon to show that both read one format.
"""
import sys

import pyarrow as pa

import paimonc

warehouse = sys.argv[1] if len(sys.argv) > 1 else "warehouse"
catalog = paimonc.CatalogFactory.create({"warehouse": warehouse})
catalog.create_database("ml", True)

arrow_schema = pa.schema([
    pa.field("sample_id", pa.int64(), nullable=False),
    pa.field("source_uri", pa.string()),
    pa.field("image", pa.large_binary()),                 # -> BLOB
    pa.field("caption", pa.string()),
    pa.field("embedding", pa.list_(pa.float32(), 512)),  # -> VECTOR<FLOAT, 512>
    pa.field("labels", pa.list_(pa.string())),
    pa.field("width", pa.int32()),
    pa.field("height", pa.int32()),
    pa.field("captured_at", pa.timestamp("us")),
    pa.field("split", pa.string(), nullable=False),
    pa.field("dt", pa.string(), nullable=False),
])
schema = paimonc.Schema.from_pyarrow_schema(
    arrow_schema,
    partition_keys=["split", "dt"],
    options={
        "bucket": "-1",
        "file.format": "parquet",
        "row-tracking.enabled": "true",
        "data-evolution.enabled": "true",
    },
    comment="image-caption pairs for contrastive pre-training",
)
catalog.create_table("ml.training_samples", schema, True)

# A feature team backfills an aesthetic score and renames a column.
table = catalog.get_table("ml.training_samples")
if not any(f.name == "aesthetic_score" for f in table.fields):
    catalog.alter_table("ml.training_samples", [
        paimonc.SchemaChange.add_column("aesthetic_score", "FLOAT", "LAION aesthetic predictor v2"),
        paimonc.SchemaChange.rename_column("source_uri", "source_url"),
        paimonc.SchemaChange.set_option("snapshot.num-retained.max", "100"),
    ])
table = catalog.get_table("ml.training_samples")

print(f"warehouse : {warehouse}")
print(f"databases : {catalog.list_databases()}")
print(f"tables(ml): {catalog.list_tables('ml')}")
print(f"table     : ml.training_samples (schema {table.schema_id}) -- {table.comment}")
for f in table.fields:
    desc = f"  -- {f.description}" if f.description else ""
    print(f"  {f.id:>3}  {f.name:<16} {str(f.type)}{desc}")
print(f"partition : {table.partition_keys}")
print(f"options   : {dict(sorted(table.options.items()))}")

try:
    import pypaimon
    pt = pypaimon.CatalogFactory.create({"warehouse": warehouse}).get_table("ml.training_samples")
    names = [f.name for f in pt.table_schema.fields]
    print(f"pypaimon sees the same columns: {names == [f.name for f in table.fields]} ({len(names)} columns)")
except ImportError:
    pass
