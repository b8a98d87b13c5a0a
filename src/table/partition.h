/*
 * table/partition.h - partition rows and directories (spec core-format §1.4)
 * and fixed-bucket assignment.
 *
 * A table's partition keys are a ROW of the partition columns (schema
 * order). Partition values travel as BinaryRows with the 4-byte BE arity
 * prefix (manifest _PARTITION form). Directories are computed from them:
 *   Java  (style PM_PART_JAVA): partition.legacy-name=true (default) uses
 *         the internal value's toString (DATE -> days since the epoch,
 *         TIMESTAMP -> LocalDateTime.toString...), =false the cast to
 *         STRING; escaping of `"#%'*\/:=?\{}[]^`, < 0x20 and 0x7F as %XX;
 *         null / empty / blank -> partition.default-name.
 *   pypaimon (style PM_PART_PYTHON): f"{key}={str(value)}" without
 *         escaping (DATE -> 2024-05-14, BOOLEAN -> True), null/blank ->
 *         default name. Used as a fallback when reading tables pypaimon laid out.
 */
#ifndef PM_TABLE_PARTITION_H
#define PM_TABLE_PARTITION_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/strs.h"
#include "meta/manifest.h"
#include "meta/schema.h"
#include "types/binrow.h"
#include "types/datatype.h"

#define PM_DEFAULT_PARTITION_NAME "__DEFAULT_PARTITION__"

typedef enum pm_part_style { PM_PART_JAVA = 0, PM_PART_PYTHON = 1 } pm_part_style;

typedef struct pm_partition_info {
	size_t n;                  /* number of partition keys (0 = unpartitioned) */
	int *field_index;          /* index of each key in schema->fields */
	pm_type *row_type;         /* owned ROW<keys...> with the schema's field ids */
	const pm_type **types;     /* borrowed from row_type's fields */
	char **names;              /* borrowed from row_type's fields */
	char *default_name;        /* partition.default-name */
	int legacy_name;           /* partition.legacy-name (default 1) */
} pm_partition_info;

/* From a table schema (keys + options). PAIMON_EINVAL for a bad option. */
int pm_partition_info_init(pm_partition_info *pi, const pm_table_schema *s);
/* From a ROW of the partition keys directly (tests, callers without a
 * schema): default_name NULL = PM_DEFAULT_PARTITION_NAME; field_index NULL. */
int pm_partition_info_init_row(pm_partition_info *pi, const pm_type *row, const char *default_name,
			       int legacy_name);
void pm_partition_info_dispose(pm_partition_info *pi);

/* Serializes values (pi->n datums) with arity prefix, appending to out. */
int pm_partition_encode(const pm_partition_info *pi, const pm_binrow_datum *vals, pm_buf *out);
/* Decodes a serialized partition (with prefix) into vals[pi->n]; bytes
 * point into p. PAIMON_ECORRUPT when it does not fit the keys. */
int pm_partition_decode(const pm_partition_info *pi, const uint8_t *p, size_t n, pm_binrow_datum *vals);

/* Appends "k1=v1/k2=v2/" (empty for unpartitioned) for a serialized
 * partition in the given style. */
int pm_partition_path(const pm_partition_info *pi, const uint8_t *p, size_t n, pm_part_style style,
		      pm_buf *out);

/* Builds a serialized partition from a spec of key -> canonical text
 * (types/datum.h; the default partition name means null). Every key of
 * the table must be given, no other (PAIMON_EINVAL naming the key). */
int pm_partition_from_spec(const pm_partition_info *pi, const pm_strmap *spec, pm_buf *out);

/* Readable form "k1=v1, k2=v2" (canonical text, null as null) for messages
 * and listings. */
int pm_partition_to_display(const pm_partition_info *pi, const uint8_t *p, size_t n, pm_buf *out);

/* What a snapshot's live files hold per partition (Java PartitionEntry). */
typedef struct pm_partition_agg {
	const pm_bytes *partition;   /* borrowed from the entries */
	int64_t rows;                /* rows of the data files (.blob / .vector.* files hold none of their own) */
	int64_t bytes, files;        /* every file */
	int64_t last_creation;       /* newest file creation time (local millis); INT64_MIN: none known */
} pm_partition_agg;

/* The ADD entries of live grouped by partition, partitions in order of
 * first appearance; *out (pm_free) borrows from live. */
int pm_partition_aggregate(const pm_manifest_entry_list *live, pm_partition_agg **out, size_t *n);

/* escapePathName / unescapePathName (Java PartitionPathUtils). */
int pm_partition_escape(const char *s, size_t n, pm_buf *out);
int pm_partition_unescape(const char *s, size_t n, pm_buf *out);

/* ---------------------------------------------------------------- buckets */

/* Java BinaryRow.hashCode: MurmurHashUtils.hashBytesByWords over the row
 * bytes (WITHOUT the arity prefix; length a multiple of 4). */
int32_t pm_binrow_hash(const uint8_t *row, size_t n);
/* Java KeyAndBucketExtractor.bucket: abs(hash % num_buckets). */
int32_t pm_bucket_of_hash(int32_t hash, int32_t num_buckets);

#endif
