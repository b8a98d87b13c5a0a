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
 *  - PM_SPLIT_DATA_EVOLUTION (not implemented: PAIMON_EUNSUPPORTED): one
 *    row-id range spread over several files, each holding some columns
 *    (write_cols). The merge reader is to open every file of a group (the
 *    scan keeps a group in one split), and build each batch by row id:
 *    per column the newest file of the group (max sequence number) that
 *    has it; a column absent from one file lives in a sibling, so nulls
 *    only when no file of the group has it.
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
} pm_read_ctx;

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

static inline void pm_split_reader_close(pm_split_reader *r)
{
	if (r)
		r->close(r);
}

#endif
