/*
 * read/split_reader.h - how the rows of one split are read: one
 * implementation per kind of split (scan/scan.h pm_split_kind), picked by
 * pm_split_reader_open.
 *
 * A split reader yields "work" batches: struct arrays whose children are
 * the work columns of the read (pm_read_ctx.work: projected columns, then
 * columns read only for the filter), each exactly of its read type
 * (pm_type_to_arrow of the read schema's field), whatever the files
 * stored. The stream (read.c) does what does not depend on the kind of
 * split: the exact filter, dropping filter-only columns, the limit.
 *
 * Kinds:
 *  - PM_SPLIT_APPEND (append_reader.c): the files one after another; each
 *    column taken from the file by field id (renamed, widened, ...) and
 *    all-null when the file predates the column. That "predates" rule is
 *    the append reader's alone.
 *  - PM_SPLIT_DATA_EVOLUTION (de_reader.c): row-id groups spread over
 *    several files, each holding some columns (write_cols). Per group the
 *    files are read in lockstep by position and each column is taken from
 *    the newest file (max sequence number) holding it; nulls only when no
 *    file of the group has it (ai-format §3.4).
 *
 * Row tracking (rowtrack.c): work columns may be the system fields
 * _ROW_ID / _SEQUENCE_NUMBER (scan/rowid.h ids); readers materialise them
 * (pm_rowtrack_column). A split's row ranges (pm_split.row_ranges) select
 * rows inside files through pm_format_read_options.row_ranges; positions
 * stay exact because a file reader given ranges returns exactly those rows
 * in order, and no pruning filter is pushed into a file whose positions
 * are needed.
 *
 * Deletion vectors (read_dv.c): when the split names an index manifest
 * (pm_split.index_manifest) and the read applies them (pm_read_ctx.dvs),
 * the DV of a file (append splits: keyed by the file name, positions in
 * the file) or of a data-evolution group (keyed by its anchor file,
 * pm_dv_anchor: positions relative to the group's first row id) drops its
 * deleted rows after the columns are assembled, before the batch is
 * returned. Positions come from the position cursor, which each reader
 * advances once per batch (pm_read_dv_select); no pruning filter is pushed
 * into a file that has a DV (skipped row groups would shift positions).
 *  - PM_SPLIT_PRIMARY_KEY (not implemented: PAIMON_EUNSUPPORTED): the LSM
 *    merge reader, sorted runs merged by key with the merge engine.
 *
 * Every data file is opened through the file-format interface
 * (format/format.h, by file extension); nothing here names a format.
 *
 * Ownership: the context is borrowed and must outlive the reader; the
 * split is borrowed too (the stream owns both). Readers are freed with
 * close.
 */
#ifndef PM_READ_SPLIT_READER_H
#define PM_READ_SPLIT_READER_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/strs.h"
#include "format/format.h"
#include "io/fileio.h"
#include "meta/schema.h"
#include "paimonc/arrow_c.h"
#include "scan/scan.h"
#include "table/partition.h"
#include "table/predicate.h"

/* What every split reader of one read shares (owned by the stream). */
typedef struct pm_read_ctx {
	pm_fileio *io;
	const char *table_path;
	const pm_table_schema *schema;   /* read (current) schema */
	const pm_strmap *options;        /* table options + read options */
	const pm_partition_info *pi;     /* partition of the read schema */
	pm_schema_cache *schemas;        /* schemas of older files, by id */
	const size_t *work;              /* field indexes of the work columns */
	size_t nwork;
	const struct ArrowSchema *work_schema; /* "+s" of the work columns */
	const pm_predicate *pred;        /* bound to schema, for pruning only; may be NULL */
	int64_t batch_rows;              /* > 0 */
	int threads;                     /* decoding threads per file */
	/* Rows the read still wants, when it knows (no predicate and a
	 * limit), else -1: a reader may read smaller batches. Updated by the
	 * stream between next calls. */
	int64_t want;
	/* 1 when a work column is _ROW_ID or _SEQUENCE_NUMBER. */
	int has_row_tracking;
	/* Deletion vectors of the read's splits (NULL: not applied, e.g. the
	 * updater reading current values). */
	struct pm_read_dvs *dvs;
} pm_read_ctx;

/* Position cursor over a file reader's row selection: ranges [start, end)
 * in file positions (NULL: all `rows` rows). */
typedef struct pm_pos_cursor {
	const int64_t *r;                /* borrowed */
	size_t n, i;
	int64_t pos, rows;
} pm_pos_cursor;

void pm_pos_cursor_init(pm_pos_cursor *c, const int64_t *ranges, size_t n, int64_t rows);
/* Consumes the positions of the next n rows; out (may be NULL) gets
 * base + position for each. PAIMON_ECORRUPT past the selection. */
int pm_pos_cursor_take(pm_pos_cursor *c, int64_t n, int64_t base, int64_t *out);
/* The same walk by contiguous runs: fn (may be NULL) gets, per run, the
 * index k of its first row among the n, its first position and its length
 * m; a non-zero return of fn stops the walk and is returned. */
int pm_pos_cursor_runs(pm_pos_cursor *c, int64_t n, int (*fn)(void *ctx, int64_t k, int64_t pos, int64_t m),
		       void *ctx);

/*
 * The system column field_id (_ROW_ID or _SEQUENCE_NUMBER) for the next n
 * rows of file f (path for messages): the derived values (first_row_id +
 * position from cur, which it advances for _ROW_ID only; seq for
 * _SEQUENCE_NUMBER), overridden by the non-null values of the physical
 * column phys (schema phys_schema; may be NULL; consumed). *out: non-null
 * int64.
 */
int pm_rowtrack_column(int32_t field_id, const pm_data_file_meta *f, const char *path, pm_pos_cursor *cur,
		       int64_t n, int64_t seq, const struct ArrowSchema *phys_schema, struct ArrowArray *phys,
		       struct ArrowArray *out);

/* ------------------------------------------- deletion vectors (read_dv.c) */

struct pm_dv;

/* The index manifest last loaded (a read usually has one snapshot). */
typedef struct pm_read_dvs {
	pm_fileio *io;                   /* borrowed */
	const char *table_path;          /* borrowed */
	char *index_manifest;            /* name of the loaded one, NULL: none yet */
	void *snap;                      /* pm_dv_snapshot of it */
} pm_read_dvs;

/*
 * The DV of data file key_file (an append split's file, or a data-evolution
 * group's anchor) of split sp: *out owned by the caller (pm_dv_free), NULL
 * when it has none (or sp names no index manifest, or d is NULL). Errors
 * name the index file and the data file.
 */
int pm_read_dv_get(pm_read_dvs *d, const pm_split *sp, const char *key_file, struct pm_dv **out);
void pm_read_dvs_dispose(pm_read_dvs *d);

/*
 * Advances cursor c past the next n rows of a batch. With a DV (may be
 * NULL), sel[0..n) gets 1 for each row kept, 0 for each deleted one, and
 * *kept their count (without one, sel is untouched and *kept = n).
 * PAIMON_ECORRUPT past the selection.
 */
int pm_read_dv_select(const struct pm_dv *dv, pm_pos_cursor *c, int64_t n, uint8_t *sel, int64_t *kept);

typedef struct pm_split_reader pm_split_reader;

struct pm_split_reader {
	/* Next work batch (may have 0 rows); at the end *eof = 1 and
	 * out->release is NULL. Errors name the data file. */
	int (*next)(pm_split_reader *r, struct ArrowArray *out, int *eof);
	/* The work schema (a copy; *out owned by the caller). */
	int (*schema)(pm_split_reader *r, struct ArrowSchema *out);
	/* What the last batch came from, for messages (a data file path);
	 * valid until the next call. */
	const char *(*source)(const pm_split_reader *r);
	/* Frees the reader and closes its files. NULL is a no-op. */
	void (*close)(pm_split_reader *r);
};

/*
 * A reader of `split` by its kind. PAIMON_EUNSUPPORTED for kinds not read
 * yet ("data-evolution splits are not supported yet"), PAIMON_ECORRUPT for
 * unknown kinds. *out owned by the caller (close).
 */
int pm_split_reader_open(const pm_read_ctx *ctx, const pm_split *split, pm_split_reader **out);

/* 0 when pm_split_reader_open can read splits of this kind, else the
 * error it would give (set). */
int pm_split_reader_check(const pm_split *split);

/* The append reader (append_reader.c). */
int pm_append_reader_open(const pm_read_ctx *ctx, const pm_split *split, pm_split_reader **out);
/* The data-evolution merge reader (de_reader.c). */
int pm_de_reader_open(const pm_read_ctx *ctx, const pm_split *split, pm_split_reader **out);

/* Opens data file e of split sp with format options o: its path, then
 * pypaimon's partition directory style on ENOTFOUND; *path gets the path
 * that opened. ENOTFOUND names the file and the snapshot. */
int pm_read_open_data_file(const pm_read_ctx *c, const pm_split *sp, const pm_manifest_entry *e,
			   const pm_format_read_options *o, pm_buf *path, pm_format_reader **out);

static inline void pm_split_reader_close(pm_split_reader *r)
{
	if (r)
		r->close(r);
}

#endif
