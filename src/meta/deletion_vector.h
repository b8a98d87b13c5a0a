/*
 * meta/deletion_vector.h - deletion vectors (DVs): the in-memory set of
 * deleted row positions of a data file (or, on data-evolution tables, of a
 * row-id group keyed by its anchor file), their two on-disk encodings, the
 * DELETION_VECTORS index file that holds them, the index-manifest view of a
 * snapshot's DVs and the "apply a delete" rule (spec ai-format §3.8, §6.7,
 * core-format §4.6; Java DeletionVector / BitmapDeletionVector /
 * Bitmap64DeletionVector / DeletionFileWriter / DeletionVectorsIndexFile;
 * pypaimon 2.1.0 deletionvectors/, write/table_delete.py).
 *
 * On-disk facts (checked against files pypaimon 2.1.0 writes and Java
 * Paimon 1.4.2's sources):
 *
 *   index file   = byte 0x01 (version), then one serialized DV per key,
 *                  back to back, in the writer's order.
 *   32-bit DV    = [int32 BE size][int32 BE magic 1581511376]
 *                  [RoaringBitmap32 portable serialization][int32 BE CRC32]
 *                  size = 4 + bitmap bytes; CRC32 (zlib) over magic+bitmap.
 *   64-bit DV    = [int32 BE size][int32 LITTLE-endian magic 1681511377]
 *                  [OptimizedRoaringBitmap64: uint64 LE count, then per key
 *                   0..count-1 (dense, empty bitmaps included, ascending):
 *                   uint32 LE key (high 32 bits), RoaringBitmap32 portable]
 *                  [int32 BE CRC32 over magic+bitmap]
 *   pm_dv_range  = f0 data file, f1 offset = file offset of the size field
 *                  (the first DV is at 1), f2 length = size for a 32-bit DV
 *                  but size + 8 (the whole DV, size and CRC fields included)
 *                  for a 64-bit DV (Java's serializeTo return values, which
 *                  DeletionFileWriter records; DeletionVector.read checks
 *                  them that way), _CARDINALITY = number of positions.
 *   manifest     = _INDEX_TYPE "DELETION_VECTORS", _FILE_NAME
 *                  "index-<uuid>-<n>" in <table>/index/ (unless
 *                  _EXTERNAL_PATH), _FILE_SIZE, _ROW_COUNT = number of DVs
 *                  (keys) in the file, _DELETIONS_VECTORS_RANGES; bucket 0
 *                  (BucketMode.UNAWARE_BUCKET) on append / DE tables.
 *   32 vs 64     = Java writes 64-bit iff the table option
 *                  deletion-vectors.bitmap64 is true (default false); a
 *                  32-bit DV rejects positions > 2147483647 ("too many
 *                  rows"). There is no automatic upgrade. pypaimon 2.1.0
 *                  writes and reads only the 32-bit form.
 *
 * Ownership: pm_dv objects are owned by whoever created them (pm_dv_free).
 * Lists (pm_dv_list, pm_dv_snapshot, pm_dv_delete_result) own everything they
 * hold; dispose with the matching *_dispose. Errors: PAIMON_EINVAL for bad
 * arguments, PAIMON_ECORRUPT naming the index file and the data file (key)
 * for bad bytes, PAIMON_ENOMEM, or the I/O error of the FileIO.
 * Not thread-safe for writes; a pm_dv may be read (contains, select, foreach)
 * from several threads at once.
 */
#ifndef PM_META_DELETION_VECTOR_H
#define PM_META_DELETION_VECTOR_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/strs.h"
#include "io/fileio.h"
#include "meta/manifest.h"

#define PM_DV_MAGIC32 1581511376
#define PM_DV_MAGIC64 1681511377
#define PM_DV_INDEX_VERSION 1
#define PM_DV_INDEX_TYPE "DELETION_VECTORS"
/* Largest position of a 32-bit DV (RoaringBitmap32.MAX_VALUE). */
#define PM_DV_MAX_POS32 ((int64_t)INT32_MAX)
/* Largest position of any DV (OptimizedRoaringBitmap64.MAX_VALUE:
 * key Integer.MAX_VALUE - 1, low 32 bits all ones). */
#define PM_DV_MAX_POS64 ((int64_t)(((uint64_t)(INT32_MAX - 1) << 32) | 0xFFFFFFFFu))

typedef enum pm_dv_format {
	PM_DV_BITMAP32 = 0,   /* BitmapDeletionVector (default) */
	PM_DV_BITMAP64 = 1    /* Bitmap64DeletionVector (deletion-vectors.bitmap64) */
} pm_dv_format;

/* The format a table writes: deletion-vectors.bitmap64 (default false).
 * opts may be NULL. PAIMON_EINVAL names a bad boolean. */
int pm_dv_format_from_options(const pm_strmap *opts, pm_dv_format *out);

/* ------------------------------------------------------------ the set */

typedef struct pm_dv pm_dv;

/* An empty DV (*out owned by the caller, pm_dv_free). */
int pm_dv_new(pm_dv **out);
/* A deep copy of src. */
int pm_dv_copy(const pm_dv *src, pm_dv **out);
void pm_dv_free(pm_dv *dv);   /* NULL-safe */

/* Marks pos deleted. pos outside [0, PM_DV_MAX_POS64] -> PAIMON_EINVAL.
 * *added (may be NULL) = 1 if pos was not deleted before (checkedDelete). */
int pm_dv_add(pm_dv *dv, int64_t pos, int *added);
/* Marks [start, end) deleted (same bounds as pm_dv_add). */
int pm_dv_add_range(pm_dv *dv, int64_t start, int64_t end);
/* dst |= src. *changed (may be NULL) = 1 if dst grew. */
int pm_dv_or(pm_dv *dst, const pm_dv *src, int *changed);

/* 1 if pos is deleted (0 for any pos out of range). */
int pm_dv_contains(const pm_dv *dv, int64_t pos);
uint64_t pm_dv_cardinality(const pm_dv *dv);
/* Largest deleted position, -1 when empty. */
int64_t pm_dv_max(const pm_dv *dv);
int pm_dv_equals(const pm_dv *a, const pm_dv *b);
/* Number of deleted positions in [start, start + n). */
uint64_t pm_dv_count_range(const pm_dv *dv, int64_t start, uint64_t n);

/* All deleted positions, ascending, into *out (pm_malloc'd, caller
 * pm_frees; NULL when empty), *n their count. */
int pm_dv_to_array(const pm_dv *dv, int64_t **out, size_t *n);

/* Calls fn(ctx, pos) for each deleted pos in [start, end), ascending; a
 * non-zero return of fn stops the walk and is returned. */
int pm_dv_foreach(const pm_dv *dv, int64_t start, int64_t end, int (*fn)(void *ctx, int64_t pos), void *ctx);

/*
 * Selection mask of rows [start, start + n) for a reader's batch: bits
 * ((n + 7) / 8 bytes, LSB-first as Arrow booleans) get bit i = 1 when row
 * start + i is kept (not deleted), 0 when deleted; the unused high bits of
 * the last byte are 0. *n_deleted (may be NULL) = deleted rows in the range.
 * Cost: O(bytes + deleted rows in range). A negative start is EINVAL.
 */
int pm_dv_select_mask(const pm_dv *dv, int64_t start, size_t n, uint8_t *bits, size_t *n_deleted);

/* ------------------------------------------------------- serialization */

/*
 * Appends dv serialized as fmt (the whole [size][magic+bitmap][crc] block)
 * to out; *length_out (may be NULL) gets the value Java records as the
 * range length (32-bit: size; 64-bit: size + 8). Run-optimizes the bitmap
 * first as Java does (this does not change the set). A 32-bit DV with a
 * position > PM_DV_MAX_POS32 -> PAIMON_EINVAL; a DV that would not fit in
 * 2 GiB -> PAIMON_EINVAL.
 */
int pm_dv_serialize(pm_dv *dv, pm_dv_format fmt, pm_buf *out, int32_t *length_out);

/*
 * Parses one serialized DV starting at its size field. expected_length is
 * the recorded range length (-1: not checked). what names the source in
 * errors. *fmt_out and *consumed (may be NULL) get the format and the
 * bytes taken. Checks: size within data, magic, CRC, the bitmap consuming
 * exactly its bytes and being well-formed (sorted keys and values, valid
 * runs, container cardinalities). *out owned by the caller.
 */
int pm_dv_deserialize(const char *what, const void *data, size_t len, int32_t expected_length,
		      pm_dv **out, pm_dv_format *fmt_out, size_t *consumed);

/* The bare bitmaps (no size/magic/CRC): a RoaringBitmap32 portable
 * serialization, or an OptimizedRoaringBitmap64 one. The whole of data
 * must be consumed. */
int pm_dv_bitmap32_deserialize(const char *what, const void *data, size_t len, pm_dv **out);
int pm_dv_bitmap64_deserialize(const char *what, const void *data, size_t len, pm_dv **out);

/* ---------------------------------------------------------- index files */

typedef struct pm_dv_item {
	char *data_file;      /* key */
	pm_dv *dv;
} pm_dv_item;

typedef struct pm_dv_list {
	pm_dv_item *items;
	size_t len, cap;
} pm_dv_list;

/* Appends (copy of data_file, dv); takes ownership of dv, also on failure. */
int pm_dv_list_push(pm_dv_list *l, const char *data_file, pm_dv *dv);
/* Index of data_file, -1 if absent (linear). */
long pm_dv_list_find(const pm_dv_list *l, const char *data_file);
/* Sorts by data file name (byte order), as pypaimon writes them. */
void pm_dv_list_sort(pm_dv_list *l);
void pm_dv_list_dispose(pm_dv_list *l);

/*
 * Encodes an index file holding dvs (in list order) as fmt into out
 * (cleared first). ranges (caller-allocated, l->len slots) get one
 * pm_dv_range per DV (data_file pm_strdup'd: free each; on failure none is
 * left allocated). Runs pm_dv_serialize on each DV. A file over 2 GiB ->
 * PAIMON_EINVAL.
 */
int pm_dv_index_encode(pm_dv_list *l, pm_dv_format fmt, pm_buf *out, pm_dv_range *ranges);

/* Reads the DV of r from an index file held in memory (version byte
 * checked). index_file names the file in errors, r->data_file the key. */
int pm_dv_index_read_mem(const char *index_file, const void *file, size_t file_len,
			 const pm_dv_range *r, pm_dv **out);
/* Every range of the file, appended to out (on failure out is unchanged). */
int pm_dv_index_read_all_mem(const char *index_file, const void *file, size_t file_len,
			     const pm_dv_range *ranges, size_t n, pm_dv_list *out);
/* Same from storage: reads only the version byte and the DV's bytes. */
int pm_dv_index_read(pm_fileio *io, const char *path, const pm_dv_range *r, pm_dv **out);
int pm_dv_index_read_all(pm_fileio *io, const char *path, const pm_dv_range *ranges, size_t n,
			 pm_dv_list *out);

/* Path of an index file: e->external_path if set, else
 * <table>/index/<file name> (index-file-in-data-file-dir is not
 * supported). pm_free; NULL on OOM. */
char *pm_dv_index_path(const char *table_path, const pm_index_manifest_entry *e);

/* Index file names "index-<uuid>-<n>" (Java: one UUID per path factory,
 * n counting from 0; pypaimon: a fresh UUID per file and n = 1). */
typedef struct pm_dv_namer {
	char uuid[40];
	int64_t n;
} pm_dv_namer;
int pm_dv_namer_init(pm_dv_namer *nm);
int pm_dv_namer_next(pm_dv_namer *nm, pm_buf *out);

/* Deep copies of index manifest entries: pm_index_manifest_entry_copy (meta/manifest.h). */

/* --------------------------------------------------- a snapshot's DVs */

typedef struct pm_dv_ref {
	const char *data_file;                 /* borrowed from entry */
	const pm_index_manifest_entry *entry;  /* the index file holding it */
	const pm_dv_range *range;
	const char *index_path;                /* resolved path of entry's file */
} pm_dv_ref;

typedef struct pm_dv_bucket {
	pm_bytes partition;                    /* with arity prefix */
	int32_t bucket;
	pm_index_manifest_entry_list entries;  /* its live DELETION_VECTORS entries */
	char **paths;                          /* entries.len resolved paths */
	pm_dv_ref *refs;                       /* sorted by data_file */
	size_t n_refs;
} pm_dv_bucket;

typedef struct pm_dv_snapshot {
	pm_dv_bucket *buckets;
	size_t len, cap;
} pm_dv_snapshot;

/*
 * Reads index manifest <table>/manifest/<index_manifest> (NULL: no index,
 * *out is empty) and groups its ADD entries of type DELETION_VECTORS by
 * (partition bytes, bucket). Other types and DELETE entries are skipped
 * (as pypaimon does). A data file covered twice in one bucket ->
 * PAIMON_ECORRUPT naming both index files. out must be zeroed.
 */
int pm_dv_snapshot_load(pm_fileio *io, const char *table_path, const char *index_manifest,
			pm_dv_snapshot *out);
/* The bucket's DVs, NULL when it has none (borrowed). */
const pm_dv_bucket *pm_dv_snapshot_bucket(const pm_dv_snapshot *s, const void *partition,
					  size_t partition_len, int32_t bucket);
/* The DV of data_file in b (b may be NULL), NULL when it has none. */
const pm_dv_ref *pm_dv_bucket_find(const pm_dv_bucket *b, const char *data_file);
/* Loads the bitmap of one data file. */
int pm_dv_ref_load(pm_fileio *io, const pm_dv_ref *ref, pm_dv **out);
/* Loads every DV of a bucket (b may be NULL: nothing) into out. */
int pm_dv_bucket_load_all(pm_fileio *io, const pm_dv_bucket *b, pm_dv_list *out);
void pm_dv_snapshot_dispose(pm_dv_snapshot *s);

/* ------------------------------------------------------ anchor rule */

/* 1 for a normal data file: not a blob file (".blob", or ".video" as
 * pypaimon also says) and not a vector-store file (contains ".vector."). */
int pm_dv_is_normal_file(const char *file_name);
/*
 * The anchor of a DE row-id group (DataEvolutionUtils.retrieveAnchorFile):
 * among the normal files, the minimum of (max_sequence_number, file_name)
 * (names by byte order). *idx gets its index. No normal file ->
 * PAIMON_ECORRUPT ("... should have a normal anchor file ...").
 * The _ptrs form takes an array of pointers.
 */
int pm_dv_anchor(const pm_data_file_meta *files, size_t n, size_t *idx);
int pm_dv_anchor_ptrs(const pm_data_file_meta *const *files, size_t n, size_t *idx);
/* Bit position of row_id in the group DV: row_id - anchor->first_row_id.
 * The anchor must have a first_row_id and row_id must lie in
 * [first_row_id, first_row_id + row_count), else PAIMON_EINVAL. */
int pm_dv_anchor_position(const pm_data_file_meta *anchor, int64_t row_id, int64_t *pos);

/* ------------------------------------------------------ apply a delete */

/* New deleted positions (relative to the anchor) of one anchor file. */
typedef struct pm_dv_delete {
	const char *data_file;
	const int64_t *positions;
	size_t n;
} pm_dv_delete;

/*
 * The merge step (pure apart from reading the current DVs through io):
 * loads every DV of cur (may be NULL), adds the new positions and returns
 * the bucket's full DV map, sorted by data file name, in *merged (zeroed by
 * the caller). *changed = 0 when every position was already deleted.
 */
int pm_dv_merge_deletes(pm_fileio *io, const pm_dv_bucket *cur, const pm_dv_delete *dels, size_t n,
			pm_dv_list *merged, int *changed);

typedef struct pm_dv_delete_result {
	int changed;                          /* 0: nothing to commit, nothing written */
	pm_index_manifest_entry_list adds;    /* ADD of the new index file */
	pm_index_manifest_entry_list deletes; /* DELETE of every old DV entry of the bucket */
	char *written_path;                   /* the file written (remove it if the commit fails) */
} pm_dv_delete_result;

/*
 * Applies a delete to one (partition, bucket) as pypaimon 2.1.0
 * TableDeleteByRowId does:
 *   - the bucket's current DVs (cur, from pm_dv_snapshot_bucket; NULL when
 *     it has none) are read and the new positions added (old ∪ new);
 *   - if nothing changed, no file is written and no entry made;
 *   - else ONE new index file <table>/index/<namer name> holds every DV of
 *     the bucket (old untouched ones re-serialized too), keys sorted by
 *     name, each written as fmt; one ADD entry (bucket, partition,
 *     DELETION_VECTORS, file size, row count = number of DVs, ranges) and a
 *     DELETE entry for each of cur's entries (copies with kind DELETE).
 * Java's AppendDeleteFileMaintainer differs (and is also valid for its
 * readers): it rewrites only the index files it touched, rolling new files
 * at deletion-vector.index-file.target-size, and keeps untouched files.
 * partition: the serialized BinaryRow with arity prefix. The file is
 * published with no-overwrite; on failure nothing is left written.
 * out must be zeroed; dispose with pm_dv_delete_result_dispose.
 */
int pm_dv_apply_delete(pm_fileio *io, const char *table_path, const void *partition, size_t partition_len,
		       int32_t bucket, const pm_dv_bucket *cur, const pm_dv_delete *dels, size_t n,
		       pm_dv_format fmt, pm_dv_namer *namer, pm_dv_delete_result *out);
void pm_dv_delete_result_dispose(pm_dv_delete_result *r);

#endif
