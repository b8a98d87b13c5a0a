/*
 * scan/scan.h - scan planning for append tables (spec core-format §6.8,
 * §8.1): resolve the snapshot (latest or time travel), read its manifests
 * with pruning (manifests by _PARTITION_STATS, entries by exact partition
 * values and by value statistics), and group the live files into splits
 * per (partition, bucket), bin-packed as pypaimon/Java pack append files
 * (weight = max(file size, source.split.open-file-cost), a new split when
 * adding a file would exceed source.split.target-size).
 *
 * Files with a first row id (row-tracking / data-evolution tables) whose
 * row-id ranges [first_row_id, first_row_id + row_count) overlap,
 * transitively, form one unit that bin-packing never cuts: in a
 * data-evolution table such files hold different columns of the same rows
 * and only their merge gives the row. Files without a first row id pack
 * one by one as before.
 *
 * Ownership: plans own their splits; pm_split values returned through
 * out-parameters belong to the caller (pm_split_free).
 */
#ifndef PM_TABLE_SCAN_H
#define PM_TABLE_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/strs.h"
#include "io/fileio.h"
#include "meta/manifest.h"
#include "meta/schema.h"
#include "meta/snapshot.h"
#include "table/predicate.h"

#define PM_SPLIT_MAGIC "PMSP"
/* Newest split byte version read and written; version 1 (no kind, always
 * PM_SPLIT_APPEND) is still read, and still written for append splits;
 * version 2 (a kind) for other splits; version 3 (kind + row ranges) only
 * for splits with row ranges; version 4 (kind, row ranges or none, the
 * deletion-vector index manifest) only for splits with deletion vectors. */
#define PM_SPLIT_VERSION 4
/* Longest index manifest name a split's bytes may carry. */
#define PM_SPLIT_MAX_NAME 4096
/* Most row ranges a split's bytes may carry (a guard for decoding). */
#define PM_SPLIT_MAX_ROW_RANGES ((size_t)1 << 26)
#define PM_SPLIT_DEFAULT_TARGET_SIZE ((int64_t)128 << 20)
#define PM_SPLIT_DEFAULT_OPEN_FILE_COST ((int64_t)4 << 20)

/*
 * How the files of a split make rows (read/split_reader.h picks the reader
 * by it). The values are part of the split bytes: never renumber.
 */
typedef enum pm_split_kind {
	/* Independent append files: the rows of each file, one file after
	 * another. A column a file lacks was added after it was written and
	 * reads as nulls. */
	PM_SPLIT_APPEND = 0,
	/* Data-evolution table, some row-id range spread over several files
	 * (each with some of the columns, see DataFileMeta.write_cols): a row
	 * is merged by row id, per column from the newest file of its group
	 * that has the column. A column missing from one file lives in a
	 * sibling, so it must NOT read as nulls. Not read yet. */
	PM_SPLIT_DATA_EVOLUTION = 1,
	/* Primary-key table: LSM sorted runs merged by key (merge engine,
	 * sequence number). Reserved; scan does not plan these yet. */
	PM_SPLIT_PRIMARY_KEY = 2,
} pm_split_kind;
#define PM_SPLIT_KIND_MAX PM_SPLIT_PRIMARY_KEY

/* Name of a kind for messages ("append", "data-evolution", "primary-key"). */
const char *pm_split_kind_name(int kind);

/* One unit of reading: files of one (partition, bucket) of one snapshot. */
typedef struct pm_split {
	int64_t snapshot_id;
	int kind;                        /* pm_split_kind */
	pm_bytes partition;              /* serialized partition, arity prefix */
	int32_t bucket;
	int64_t row_count;               /* sum of the files' row counts */
	pm_manifest_entry_list entries;  /* ADD entries, all with this partition/bucket */
	/* Row-id selection (explicit ranges and _ROW_ID predicates): only
	 * these rows are read. Inclusive [from, to] pairs, sorted, disjoint,
	 * non-adjacent, all meeting some file of the split. has_row_ranges = 0:
	 * every row. n_row_ranges may be 0 only when has_row_ranges is 0. */
	int has_row_ranges;
	int64_t *row_ranges;             /* 2 * n_row_ranges values, owned */
	size_t n_row_ranges;
	/* Deletion vectors (deletion-vectors.enabled): the snapshot's index
	 * manifest file name, whose DELETION_VECTORS entries of this
	 * (partition, bucket) give the deleted rows; NULL: nothing deleted.
	 * Owned. */
	char *index_manifest;
} pm_split;

void pm_split_free(pm_split *s);
int pm_split_copy(const pm_split *src, pm_split **out);
/*
 * Versioned bytes: "PMSP", u32 version, i64 snapshot id, i32 bucket,
 * u32 partition length + bytes, u32 entries length + the
 * pm_manifest_entries_encode form, then from version 2 a u32 kind, then in
 * version 3 a u32 range count n >= 1 and n (i64 from, i64 to) pairs (all
 * little-endian); version 4 has after the kind a u32 range count n >= 0
 * (0: every row), n pairs, then a u32 name length and the index manifest
 * name. Splits with an index manifest are written as version 4, other
 * splits with row ranges as version 3, other append splits as version 1
 * (the bytes of older releases), other kinds as version 2. Deserializing validates every length, the kind, the ranges
 * (sorted, disjoint, 0 <= from <= to) and that each entry belongs to the
 * split's partition and bucket (PAIMON_ECORRUPT otherwise).
 */
int pm_split_serialize(const pm_split *s, pm_buf *out);
int pm_split_deserialize(const void *data, size_t len, pm_split **out);

/* Schemas by id, loaded once (the table's current schema is seeded). */
typedef struct pm_schema_cache {
	pm_fileio *io;                   /* borrowed */
	char *table_path;
	pm_table_schema **items;         /* owned */
	size_t len, cap;
} pm_schema_cache;

int pm_schema_cache_init(pm_schema_cache *c, pm_fileio *io, const char *table_path,
			 const pm_table_schema *current);
/* Borrowed schema with that id (loaded on first use). */
int pm_schema_cache_get(pm_schema_cache *c, int64_t id, const pm_table_schema **out);
void pm_schema_cache_dispose(pm_schema_cache *c);

/*
 * Resolves the snapshot to read from options (scan.snapshot-id,
 * scan.tag-name, scan.timestamp-millis, scan.timestamp; at most one):
 * without them the latest. *out = NULL when the table has no snapshot and
 * no time travel was asked for. Errors name the option and the valid range.
 */
int pm_scan_resolve_snapshot(pm_fileio *io, const char *table_path, const pm_strmap *opts,
			     pm_snapshot **out);

/* Parses 'yyyy-MM-dd[ HH:mm[:ss[.fff]]]' (or with 'T') as local time into
 * epoch millis. PAIMON_EINVAL quoting the text. */
int pm_scan_parse_local_timestamp(const char *text, int64_t *millis);

typedef struct pm_scan_plan {
	pm_snapshot *snapshot;           /* NULL: empty table */
	int64_t snapshot_id;             /* -1 when none */
	pm_split **splits;
	size_t n_splits;
	int64_t files_total;             /* live files of the snapshot */
	int64_t files_selected;          /* after pruning */
	int64_t manifests_total;
	int64_t manifests_pruned;
} pm_scan_plan;

/*
 * Plans a scan of the table at table_path with current schema `schema`.
 * opts: merged table + read options (may be NULL). pred: bound to schema
 * (may be NULL). schemas: cache used to decode statistics of files written
 * under older schema ids (may be NULL: a private one is used).
 */
int pm_scan_plan_run(pm_fileio *io, const char *table_path, const pm_table_schema *schema,
		     const pm_strmap *opts, const pm_predicate *pred, pm_schema_cache *schemas,
		     pm_scan_plan *out);
void pm_scan_plan_dispose(pm_scan_plan *p);

/* What else a scan may be told (all optional; zeroed = nothing). */
typedef struct pm_scan_extra {
	/* Row-id selection: inclusive pairs, normalized (scan/rowid.h), n may
	 * be 0 (no row). Manifests are pruned by _MIN/_MAX_ROW_ID, files by
	 * overlap (files without a first row id are dropped), and each split
	 * carries the ranges meeting its files. */
	int has_row_ranges;
	const int64_t *row_ranges;
	size_t n_row_ranges;
	/* Field ids the read needs (projection + filter columns), for the
	 * data-evolution per-group pruning (ai-format §3.4 planning step 4):
	 * a file of a multi-file row-id group holding none of them is dropped
	 * (one file is kept for the row count). NULL: no such pruning. */
	const int32_t *read_field_ids;
	size_t n_read_field_ids;
} pm_scan_extra;

/* pm_scan_plan_run with row ranges / read fields (x may be NULL). The
 * schema may carry the row-tracking system fields (rowid.h); filter
 * leaves on them never prune by statistics. */
int pm_scan_plan_run_ex(pm_fileio *io, const char *table_path, const pm_table_schema *schema,
			const pm_strmap *opts, const pm_predicate *pred, pm_schema_cache *schemas,
			const pm_scan_extra *x, pm_scan_plan *out);

#endif
