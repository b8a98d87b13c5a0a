/*
 * index/sorted_index.h - the sorted global-index file formats `btree` and
 * `bitmap` (../shared/spec/global-index.md §2-§4), byte-compatible with Java
 * Paimon's BTreeIndexWriter / BitmapGlobalIndexWriter and pypaimon's
 * globalindex/btree, globalindex/bitmap: blocks with 5-byte trailers
 * (compression id + CRC-32), KeySerializer keys, SortedIndexFileMeta
 * (_INDEX_META), 64-bit Roaring null/row bitmaps.
 *
 * Row ids in these files are RELATIVE to the index entry's row range start
 * (0 = first row of the range); the caller (gindex) adds the offset back.
 *
 * Key types: everything pm_datum_type_comparable accepts except BINARY and
 * VARBINARY (KeySerializer refuses them: PAIMON_EUNSUPPORTED naming the type).
 *
 * Options read from `opts` (the table options merged with the index options;
 * NULL = defaults):
 *   btree-index.block-size (64 KiB), btree-index.compression (none|zstd|lz4|lzo,
 *   writers: none|zstd|lz4), btree-index.compression-level (1),
 *   btree-index.fallback-scan-max-size (256 MB);
 *   bitmap-index.dictionary-block-size (16 KiB), bitmap-index.compression,
 *   bitmap-index.compression-level, bitmap-index.fallback-scan-max-size.
 * A bad value is PAIMON_EINVAL naming the option.
 */
#ifndef PM_INDEX_SORTED_INDEX_H
#define PM_INDEX_SORTED_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/strs.h"
#include "index/rb64.h"
#include "io/fileio.h"
#include "types/binrow.h"
#include "types/datatype.h"

typedef enum pm_sidx_kind { PM_SIDX_BTREE = 0, PM_SIDX_BITMAP = 1 } pm_sidx_kind;

/* "btree" -> PM_SIDX_BTREE, "bitmap" -> PM_SIDX_BITMAP; -1 otherwise. */
int pm_sidx_kind_from_name(const char *index_type);
/* 1 when the index type can index a column of type t (sets no error). */
int pm_sidx_type_supported(const pm_type *t);

/* ------------------------------------------------------------- writing */

typedef struct pm_sidx_writer pm_sidx_writer;

/*
 * A writer streaming one index file into out (borrowed: the writer appends,
 * the caller closes or aborts it after _finish). path names the file in
 * errors. Keys must be added in non-decreasing pm_datum_compare order, and
 * row ids ascending within one key (nulls in any position, ascending);
 * a decreasing key is PAIMON_EINVAL.
 */
int pm_sidx_writer_new(pm_sidx_kind kind, const pm_type *key_type, const pm_strmap *opts,
		       pm_out_stream *out, const char *path, pm_sidx_writer **w);
/* key NULL or key->is_null = a null row. Bytes of key are copied as needed. */
int pm_sidx_writer_add(pm_sidx_writer *w, const pm_binrow_datum *key, int64_t rel_row_id);
/*
 * Writes the remaining blocks, bitmaps and footer. index_meta receives the
 * SortedIndexFileMeta bytes (appended), row_count the number of _add calls,
 * file_size the bytes written. A btree writer with no row is PAIMON_EINVAL.
 */
int pm_sidx_writer_finish(pm_sidx_writer *w, pm_buf *index_meta, int64_t *row_count, int64_t *file_size);
void pm_sidx_writer_free(pm_sidx_writer *w);

/* -------------------------------------------------- SortedIndexFileMeta */

typedef struct pm_sidx_meta {
	int has_first, has_last;   /* 0 when that key is null (only nulls) */
	uint8_t *first, *last;     /* serialized keys, owned */
	size_t first_len, last_len;
	int has_nulls;
} pm_sidx_meta;

int pm_sidx_meta_decode(const void *p, size_t n, const char *what, pm_sidx_meta *out);
void pm_sidx_meta_dispose(pm_sidx_meta *m);
/* Serialized key of a datum (KeySerializer), appended to out. */
int pm_sidx_key_serialize(const pm_type *key_type, const pm_binrow_datum *d, pm_buf *out);

/* ------------------------------------------------------------- reading */

/* One index file of a row range: path, size and its _INDEX_META bytes. */
typedef struct pm_sidx_file {
	const char *path;
	int64_t size;
	const uint8_t *meta;
	size_t meta_len;
} pm_sidx_file;

typedef struct pm_sidx_reader pm_sidx_reader;

/*
 * A reader over ALL the files of one (index type, row range): their key
 * ranges partition the key space (files may share a boundary key).
 * total_rows = range end - range start + 1 (for complements). Files are
 * opened lazily; metas are used to skip files (SortedFileMetaSelector).
 * Borrowed: io, files (copied), key_type (copied), opts (read now).
 */
int pm_sidx_reader_open(pm_sidx_kind kind, pm_fileio *io, const pm_sidx_file *files, size_t n,
			const pm_type *key_type, int64_t total_rows, const pm_strmap *opts,
			pm_sidx_reader **out);
void pm_sidx_reader_free(pm_sidx_reader *r);

/* Leaf operators; the values match table/predicate.h's pm_pred_op. */
typedef enum pm_sidx_op {
	PM_SIDX_EQ = 0, PM_SIDX_NE, PM_SIDX_LT, PM_SIDX_LE, PM_SIDX_GT, PM_SIDX_GE,
	PM_SIDX_IN, PM_SIDX_NOT_IN, PM_SIDX_IS_NULL, PM_SIDX_IS_NOT_NULL,
	PM_SIDX_STARTS_WITH, PM_SIDX_ENDS_WITH, PM_SIDX_CONTAINS
} pm_sidx_op;

/*
 * Evaluates `column op lits` over the range: *out = a new bitmap of the
 * RELATIVE row ids that may match (exact for the ops the peers answer
 * exactly; a superset where Java's reader returns one, e.g. btree
 * ENDS_WITH/CONTAINS), or *out = NULL when the index cannot answer (Java's
 * empty Optional: e.g. a range scan over the fallback-scan budget): the
 * caller must then scan. lits are of the key type; a null literal in
 * EQ/NE/...: empty result as Java. Corrupt files: PAIMON_ECORRUPT naming the
 * file and the block or offset.
 */
int pm_sidx_query(pm_sidx_reader *r, pm_sidx_op op, const pm_binrow_datum *lits, size_t n, pm_rb64 **out);
/*
 * Details of pm_sidx_query, as Java's SortedFileGlobalIndexReader and the
 * per-file BTreeIndexReader / BitmapIndexReader (and pypaimon 2.1) do:
 *  - Files are pruned by their metas first; the result is the union of the
 *    per-file answers. NE / NOT_IN / IS_NOT_NULL are "non-null rows of the
 *    file minus the matches" per file, i.e. the complement against
 *    [0, total_rows) minus the nulls whenever the files cover the range.
 *    Results are clipped to [0, total_rows) when total_rows > 0.
 *  - Cannot answer (*out NULL): LT/LE/GT/GE/ENDS_WITH/CONTAINS with a null
 *    literal, with a fallback-scan-max-size <= 0, or when the selected files
 *    exceed that budget; STARTS_WITH/ENDS_WITH/CONTAINS on non-string keys
 *    or with a null literal. EQ/NE/NOT_IN with a null literal: empty; IN
 *    ignores null literals. No file selected: empty.
 *  - btree STARTS_WITH is exact ([prefix, next prefix) scan, as Java HEAD;
 *    pypaimon answers all non-null rows); btree ENDS_WITH/CONTAINS answer
 *    all non-null rows (superset, as Java). bitmap STARTS/ENDS_WITH and
 *    CONTAINS match serialized key bytes exactly; an empty pattern = all
 *    non-null rows.
 *  - Compressed blocks: none, zstd, lz4 and lzo (LZO1X) are read.
 * A bitmap writer with no row writes a valid empty index file (pypaimon and
 * Java write none: the caller should not commit it; row_count is 0).
 */

#endif
