/*
 * read/read.h - reading splits into Arrow batches (spec core-format §4.7,
 * §6.8): each split through the reader of its kind (split_reader.h; append
 * splits: one data file open at a time, columns mapped from the file's
 * schema to the read schema by field id: renamed, added, dropped and
 * widened columns), predicate pushed down to the file format's reader and
 * then applied exactly, projection and limit.
 *
 * Output types are exactly pm_type_to_arrow of the current schema's
 * fields (pypaimon's mapping), whatever the file stored.
 */
#ifndef PM_TABLE_READ_H
#define PM_TABLE_READ_H

#include <stddef.h>
#include <stdint.h>

#include "core/strs.h"
#include "io/fileio.h"
#include "meta/schema.h"
#include "paimonc/arrow_c.h"
#include "table/predicate.h"
#include "scan/scan.h"

typedef struct pm_read_spec {
	pm_fileio *io;                   /* borrowed; must outlive the stream */
	const char *table_path;
	const pm_table_schema *schema;   /* read (current) schema */
	const pm_strlist *projection;    /* column names; NULL or empty: all */
	const pm_predicate *pred;        /* may be NULL; copied and bound */
	int64_t limit;                   /* < 0: none */
	int64_t batch_rows;              /* <= 0: 65536 */
	const pm_strmap *options;        /* may be NULL (data-file.path-directory, partition.*) */
	/* 1: rows deleted by deletion vectors are read too (the updater reads
	 * every position of a group); 0 (default): they are dropped. */
	int ignore_deletion_vectors;
} pm_read_spec;

/* Validates the projection against the schema; *idx (pm_free) gets the
 * field indexes (all fields when none). PAIMON_EINVAL naming an unknown
 * or repeated column. */
int pm_read_projection(const pm_table_schema *s, const pm_strlist *projection, size_t **idx, size_t *n);

/* Arrow struct schema of fields idx[0..n) of s (pm_field_to_arrow each). */
int pm_read_fields_schema(const pm_table_schema *s, const size_t *idx, size_t n, struct ArrowSchema *out);

/* Arrow struct schema of what a read produces. */
int pm_read_output_schema(const pm_table_schema *s, const pm_strlist *projection, struct ArrowSchema *out);

/*
 * A stream over the splits (copied). PAIMON_EUNSUPPORTED at once for a
 * split of a kind no reader reads yet (data-evolution, primary-key).
 * Errors of get_next name the file.
 */
int pm_read_stream(const pm_read_spec *spec, const pm_split *const *splits, size_t n,
		   struct ArrowArrayStream *out);

/* Path of a data file of a split entry: external path, else
 * <table>/[<data-file.path-directory>/]<partition path>/bucket-N/<file>
 * in the given partition style (0 Java, 1 pypaimon). */
struct pm_partition_info;
int pm_read_data_file_path(const char *table_path, const pm_strmap *options,
			   const struct pm_partition_info *pi, const pm_manifest_entry *e, int style,
			   pm_buf *out);

/* ------------------------------------------- blob_resolve.c (internal) */

/* Column `column` (Arrow binary / large binary of serialized
 * BlobDescriptors, consumed) -> *out, large binary of the bytes each
 * references (nulls kept). See blob_resolve.c for the allowed places. */
int pm_read_resolve_descriptors(pm_fileio *io, const char *table_path, const pm_strmap *opts, const char *column,
				const struct ArrowSchema *schema, struct ArrowArray *in, struct ArrowArray *out);

/* ------------------------------------------------ evolve.c (internal) */

/* 1 if two Arrow schemas have the same layout (formats, recursively). */
int pm_evolve_same_layout(const struct ArrowSchema *a, const struct ArrowSchema *b);
/*
 * Converts column `in` (schema from) to schema `to`: moved when the layout
 * is equal, else cast (integer and float widening, integer to float,
 * utf8 <-> large_utf8, binary <-> large_binary, timestamp units, decimal
 * precision / scale increase). Consumes *in (released or moved) in every
 * case. PAIMON_EUNSUPPORTED naming `column` for other changes.
 */
int pm_evolve_cast(const char *column, const struct ArrowSchema *from, struct ArrowArray *in,
		   const struct ArrowSchema *to, struct ArrowArray *out);
/* An all-null array of `length` entries of type s. */
int pm_evolve_null_array(const struct ArrowSchema *s, int64_t length, struct ArrowArray *out);
/* A struct array of n children (moved from kids; kids zeroed), length rows. */
int pm_evolve_struct(struct ArrowArray *kids, int64_t n, int64_t length, struct ArrowArray *out);

#endif
