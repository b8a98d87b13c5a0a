/*
 * meta/manifest.h - manifest files, manifest lists and index manifests
 * (spec core-format §4): the records, their Avro encoding exactly as Java
 * writes them (_VERSION field, null-first unions, 4-byte BE arity framing
 * of BinaryRows), reading Java's and pypaimon's files by field name, entry
 * merging (FileEntry.mergeEntries) and a compact byte form of entry lists
 * used for commit messages and splits.
 *
 * Ownership: every struct here owns its strings and byte arrays (pm_malloc'd);
 * dispose with the matching *_dispose. Lists are growable arrays of structs.
 * Errors name the file (and record number) at fault.
 */
#ifndef PM_META_MANIFEST_H
#define PM_META_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/strs.h"
#include "io/fileio.h"
#include "types/datatype.h"

#define PM_MANIFEST_VERSION 2        /* manifest entries and manifest-list records */
#define PM_INDEX_MANIFEST_VERSION 1

#define PM_FILE_KIND_ADD 0
#define PM_FILE_KIND_DELETE 1
#define PM_FILE_SOURCE_APPEND 0
#define PM_FILE_SOURCE_COMPACT 1

/* Owned bytes. */
typedef struct pm_bytes {
	uint8_t *p;
	size_t n;
} pm_bytes;

int pm_bytes_set(pm_bytes *b, const void *p, size_t n);   /* copies */
void pm_bytes_dispose(pm_bytes *b);

/* The serialized empty BinaryRow with arity prefix (12 bytes), as used for
 * _MIN_KEY/_MAX_KEY of append files and empty statistics. */
extern const uint8_t pm_empty_binrow[12];

/* SimpleStats (§4.5). min/max: serialized BinaryRows WITH the 4-byte arity
 * prefix. null_counts: n_null_counts values, -1 = unknown (Avro null);
 * has_null_counts = 0 means the whole array is null. */
typedef struct pm_simple_stats {
	pm_bytes min_values;
	pm_bytes max_values;
	int has_null_counts;
	int64_t *null_counts;
	size_t n_null_counts;
} pm_simple_stats;

/* Sets s to EMPTY_STATS (two empty rows, empty non-null array). */
int pm_simple_stats_empty(pm_simple_stats *s);
int pm_simple_stats_copy(pm_simple_stats *dst, const pm_simple_stats *src);
void pm_simple_stats_dispose(pm_simple_stats *s);

/* DataFileMeta (§4.4 _FILE). Optional Avro-nullable fields carry has_* flags
 * (or NULL pointers for strings). */
typedef struct pm_data_file_meta {
	char *file_name;
	int64_t file_size;
	int64_t row_count;
	pm_bytes min_key;                 /* with arity prefix */
	pm_bytes max_key;
	pm_simple_stats key_stats;
	pm_simple_stats value_stats;
	int64_t min_sequence_number;
	int64_t max_sequence_number;
	int64_t schema_id;
	int32_t level;
	pm_strlist extra_files;
	int has_creation_time;
	int64_t creation_time;            /* local wall-clock millis (§0 item 10) */
	int has_delete_row_count;
	int64_t delete_row_count;
	int has_embedded_file_index;
	pm_bytes embedded_file_index;
	int has_file_source;
	int32_t file_source;
	int has_value_stats_cols;         /* 0: stats cover all columns */
	pm_strlist value_stats_cols;
	char *external_path;              /* NULL when absent */
	int has_first_row_id;
	int64_t first_row_id;
	int has_write_cols;
	pm_strlist write_cols;
	int has_write_cols_sequences;
	int64_t *write_cols_sequences;
	size_t n_write_cols_sequences;
} pm_data_file_meta;

/* A fresh append file: everything empty/zero as §7.3 (empty keys and key
 * stats, EMPTY value stats, level 0, extra files [], delete count 0,
 * file source APPEND, creation time now). Caller fills name/size/rows/stats. */
int pm_data_file_meta_init_append(pm_data_file_meta *f);
int pm_data_file_meta_copy(pm_data_file_meta *dst, const pm_data_file_meta *src);
/* Companion files of data-evolution tables, by name (spec ai-format §1.6,
 * as Java classifies them): a BLOB file ends with ".blob", a vector-store
 * file contains ".vector."; every other data file is a normal file. */
int pm_file_is_blob(const char *file_name);
int pm_file_is_vector(const char *file_name);
void pm_data_file_meta_dispose(pm_data_file_meta *f);

typedef struct pm_manifest_entry {
	int kind;                  /* PM_FILE_KIND_ADD / _DELETE */
	pm_bytes partition;        /* serialized partition BinaryRow with arity prefix */
	int32_t bucket;
	int32_t total_buckets;
	pm_data_file_meta file;
} pm_manifest_entry;

int pm_manifest_entry_copy(pm_manifest_entry *dst, const pm_manifest_entry *src);
void pm_manifest_entry_dispose(pm_manifest_entry *e);

typedef struct pm_manifest_entry_list {
	pm_manifest_entry *items;
	size_t len, cap;
} pm_manifest_entry_list;

/* Appends a slot (zeroed) and returns it, NULL on OOM. */
pm_manifest_entry *pm_manifest_entry_list_push(pm_manifest_entry_list *l);
/* Appends a deep copy. */
int pm_manifest_entry_list_append_copy(pm_manifest_entry_list *l, const pm_manifest_entry *e);
void pm_manifest_entry_list_dispose(pm_manifest_entry_list *l);

/* ManifestFileMeta (§4.3), one record of a manifest list. */
typedef struct pm_manifest_file_meta {
	char *file_name;           /* relative to <table>/manifest/ */
	int64_t file_size;
	int64_t num_added_files;
	int64_t num_deleted_files;
	pm_simple_stats partition_stats;
	int64_t schema_id;
	int has_min_bucket, has_max_bucket, has_min_level, has_max_level;
	int32_t min_bucket, max_bucket, min_level, max_level;
	int has_min_row_id, has_max_row_id;
	int64_t min_row_id, max_row_id;
} pm_manifest_file_meta;

int pm_manifest_file_meta_copy(pm_manifest_file_meta *dst, const pm_manifest_file_meta *src);
void pm_manifest_file_meta_dispose(pm_manifest_file_meta *m);

typedef struct pm_manifest_file_meta_list {
	pm_manifest_file_meta *items;
	size_t len, cap;
} pm_manifest_file_meta_list;

pm_manifest_file_meta *pm_manifest_file_meta_list_push(pm_manifest_file_meta_list *l);
int pm_manifest_file_meta_list_append_copy(pm_manifest_file_meta_list *l, const pm_manifest_file_meta *m);
void pm_manifest_file_meta_list_dispose(pm_manifest_file_meta_list *l);

/* Index manifest entry (§4.6). */
typedef struct pm_dv_range {
	char *data_file;           /* f0 */
	int32_t offset;            /* f1 */
	int32_t length;            /* f2 */
	int has_cardinality;
	int64_t cardinality;
} pm_dv_range;

typedef struct pm_global_index_meta {
	int64_t row_range_start;
	int64_t row_range_end;
	int32_t index_field_id;
	int has_extra_field_ids;
	int32_t *extra_field_ids;
	size_t n_extra_field_ids;
	int has_index_meta;
	pm_bytes index_meta;
	int has_source_meta;
	pm_bytes source_meta;
} pm_global_index_meta;

typedef struct pm_index_manifest_entry {
	int kind;
	pm_bytes partition;        /* with arity prefix */
	int32_t bucket;
	char *index_type;          /* HASH, DELETION_VECTORS, ... */
	char *file_name;
	int64_t file_size;
	int64_t row_count;
	int has_dv_ranges;
	pm_dv_range *dv_ranges;
	size_t n_dv_ranges;
	char *external_path;       /* NULL when absent */
	int has_global_index;
	pm_global_index_meta global_index;
} pm_index_manifest_entry;

int pm_index_manifest_entry_copy(pm_index_manifest_entry *dst, const pm_index_manifest_entry *src);
void pm_index_manifest_entry_dispose(pm_index_manifest_entry *e);

typedef struct pm_index_manifest_entry_list {
	pm_index_manifest_entry *items;
	size_t len, cap;
} pm_index_manifest_entry_list;

pm_index_manifest_entry *pm_index_manifest_entry_list_push(pm_index_manifest_entry_list *l);
/* Appends a deep copy. */
int pm_index_manifest_entry_list_append_copy(pm_index_manifest_entry_list *l, const pm_index_manifest_entry *e);
void pm_index_manifest_entry_list_dispose(pm_index_manifest_entry_list *l);

/* ---------------------------------------------------------------- options */

/* How manifests are written (from table options). */
typedef struct pm_manifest_options {
	char codec[16];            /* Avro codec: "zstandard" (default), "null", "deflate", "snappy" */
	int level;                 /* codec level (file.compression.zstd-level, default 1) */
	int64_t target_file_size;  /* manifest.target-file-size, default 8 MiB */
	int merge_min_count;       /* manifest.merge-min-count, default 30 */
	int64_t full_compaction_threshold; /* manifest.full-compaction-threshold-size, 16 MiB */
} pm_manifest_options;

/* Defaults, then the table options (manifest.compression: zstd|none|
 * deflate|snappy; avro.codec overrides). PAIMON_EINVAL names a bad option. */
int pm_manifest_options_from(pm_manifest_options *o, const pm_strmap *table_options);

/* ------------------------------------------------------------- file names */

/*
 * Names files of one commit as Java's FileStorePathFactory does: one random
 * UUID per factory, counters per kind: "manifest-<U>-<n>",
 * "manifest-list-<U>-<n>", "index-manifest-<U>-<n>".
 */
typedef struct pm_manifest_namer {
	char uuid[40];
	int64_t manifest_n, list_n, index_n;
} pm_manifest_namer;

int pm_manifest_namer_init(pm_manifest_namer *n);
/* Next name of each kind into out (cleared first). */
int pm_manifest_namer_next(pm_manifest_namer *n, const char *kind /* "manifest", "manifest-list", "index-manifest" */, pm_buf *out);

/* <table>/manifest (pm_free). */
char *pm_manifest_dir(const char *table_path);

/* ---------------------------------------------------------------- reading */

/* Reads manifest <table>/manifest/<file_name>, appending its entries to out.
 * _VERSION must be 2 (1: "recreate the table" error). */
int pm_manifest_read(pm_fileio *io, const char *table_path, const char *file_name,
		     pm_manifest_entry_list *out);
/* Same, from bytes in memory (fuzzing, tests); `what` names them. */
int pm_manifest_read_mem(const char *what, const void *data, size_t len, pm_manifest_entry_list *out);

int pm_manifest_list_read(pm_fileio *io, const char *table_path, const char *file_name,
			  pm_manifest_file_meta_list *out);
int pm_manifest_list_read_mem(const char *what, const void *data, size_t len,
			      pm_manifest_file_meta_list *out);

int pm_index_manifest_read(pm_fileio *io, const char *table_path, const char *file_name,
			   pm_index_manifest_entry_list *out);
int pm_index_manifest_read_mem(const char *what, const void *data, size_t len,
			       pm_index_manifest_entry_list *out);

/* ---------------------------------------------------------------- writing */

/*
 * Writes entries into one or more new manifest files (rolled at
 * o->target_file_size, Avro schema as Java writes it), named by namer, each
 * published with no-overwrite. Appends one pm_manifest_file_meta per file to
 * out, with partition stats computed over partition_type (a ROW of the
 * partition fields; arity 0 for unpartitioned tables), min/max bucket and
 * level, min/max row id and schema id as Java computes them.
 * On failure the files written by this call are removed.
 */
int pm_manifest_write(pm_fileio *io, const char *table_path, const pm_manifest_options *o,
		      pm_manifest_namer *namer, const pm_type *partition_type,
		      const pm_manifest_entry *entries, size_t n, pm_manifest_file_meta_list *out);

/* Writes a manifest list with the given records; *name_out (pm_free) gets
 * its name, *size_out its size in bytes. */
int pm_manifest_list_write(pm_fileio *io, const char *table_path, const pm_manifest_options *o,
			   pm_manifest_namer *namer, const pm_manifest_file_meta *metas, size_t n,
			   char **name_out, int64_t *size_out);

int pm_index_manifest_write(pm_fileio *io, const char *table_path, const pm_manifest_options *o,
			    pm_manifest_namer *namer, const pm_index_manifest_entry *entries, size_t n,
			    char **name_out);

/* --------------------------------------------------------------- semantics */

/*
 * FileEntry.mergeEntries (§4.7): applies entries in order to `live`
 * (which may already hold entries from earlier manifests): ADD inserts (an
 * identifier already live -> PAIMON_ECORRUPT "file ... added twice"),
 * DELETE removes a live entry or, when absent, is kept as a DELETE entry
 * (its ADD may come later in a bigger merge). Identifier = partition bytes,
 * bucket, level, file name, extra files, embedded index, external path.
 */
typedef struct pm_entry_merger pm_entry_merger;
int pm_entry_merger_new(pm_entry_merger **out);
int pm_entry_merger_add(pm_entry_merger *m, const pm_manifest_entry *entries, size_t n);
/* Same, taking ownership of entries[0..n) (each is moved or disposed and
 * left zeroed, also on failure; the caller frees only the array). */
int pm_entry_merger_add_move(pm_entry_merger *m, pm_manifest_entry *entries, size_t n);
/* Moves the result (live ADDs, then unmatched DELETEs, in first-seen order)
 * into out and resets the merger. */
int pm_entry_merger_finish(pm_entry_merger *m, pm_manifest_entry_list *out);
/* Number of unmatched DELETE entries currently held. */
size_t pm_entry_merger_pending_deletes(const pm_entry_merger *m);
void pm_entry_merger_free(pm_entry_merger *m);

/*
 * Reads all manifests of a snapshot's data (base then delta list) and
 * merges them. filter (may be NULL) is called per manifest-list record and
 * per entry; returning 0 skips it (pruning). Result: live ADD entries.
 */
typedef struct pm_manifest_filter {
	int (*keep_manifest)(void *ctx, const pm_manifest_file_meta *m);
	int (*keep_entry)(void *ctx, const pm_manifest_entry *e);
	void *ctx;
} pm_manifest_filter;

int pm_manifest_read_all(pm_fileio *io, const char *table_path, const char *base_list,
			 const char *delta_list, const pm_manifest_filter *filter,
			 pm_manifest_entry_list *out);

/* ---------------------------------------------------- compact byte form */

/*
 * A versioned binary form of an entry list (magic "PMEL", version, count,
 * then each entry Avro-encoded with the manifest entry schema), used for
 * commit messages and splits. Decoding validates everything
 * (PAIMON_ECORRUPT naming `what`).
 */
int pm_manifest_entries_encode(const pm_manifest_entry *entries, size_t n, pm_buf *out);
int pm_manifest_entries_decode(const char *what, const void *data, size_t len,
			       pm_manifest_entry_list *out);
/* The same for index manifest entries (magic "PMIL", the index manifest
 * entry schema); used by commit messages carrying index-file changes. */
int pm_index_manifest_entries_encode(const pm_index_manifest_entry *entries, size_t n, pm_buf *out);
int pm_index_manifest_entries_decode(const char *what, const void *data, size_t len,
				     pm_index_manifest_entry_list *out);

#endif
