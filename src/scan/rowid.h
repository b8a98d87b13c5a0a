/*
 * scan/rowid.h - row tracking facts shared by scan and read (spec
 * ai-format §2): the system columns _ROW_ID and _SEQUENCE_NUMBER, and
 * sorted inclusive row-id ranges (Java RowIdPredicateVisitor, pypaimon
 * Range) used to prune files and to select rows inside files.
 *
 * Ranges are arrays of inclusive [from, to] pairs (2 * n int64 values),
 * "normalized" when sorted by from, non-overlapping and non-adjacent.
 * Ownership: functions returning arrays hand them to the caller (pm_free).
 */
#ifndef PM_SCAN_ROWID_H
#define PM_SCAN_ROWID_H

#include <stddef.h>
#include <stdint.h>

#include "meta/manifest.h"
#include "meta/schema.h"

#define PM_ROW_ID_FIELD_ID 2147483642
#define PM_SEQUENCE_NUMBER_FIELD_ID 2147483646
#define PM_ROW_ID_NAME "_ROW_ID"
#define PM_SEQUENCE_NUMBER_NAME "_SEQUENCE_NUMBER"

/* 1 for the ids of _ROW_ID / _SEQUENCE_NUMBER (the ones a read materialises). */
static inline int pm_is_row_tracking_field_id(int32_t id)
{
	return id == PM_ROW_ID_FIELD_ID || id == PM_SEQUENCE_NUMBER_FIELD_ID;
}

/* 1 when the schema's options have row-tracking.enabled=true. */
int pm_row_tracking_enabled(const pm_table_schema *s);

/*
 * A copy of s with _ROW_ID and _SEQUENCE_NUMBER (BIGINT NOT NULL, ids
 * above) appended, when row tracking is enabled; *out = NULL otherwise.
 * PAIMON_EINVAL when a user column already has one of those names.
 */
int pm_schema_with_row_tracking(const pm_table_schema *s, pm_table_schema **out);

/* Sorts the n pairs by from and merges overlapping and adjacent ones in
 * place; *nout gets the new count. PAIMON_EINVAL when a pair has
 * from > to or from < 0 (naming it). */
int pm_row_ranges_normalize(int64_t *pairs, size_t n, size_t *nout);

/* Intersection of two normalized range lists into *out (pm_free; may be
 * NULL when *nout is 0). */
int pm_row_ranges_intersect(const int64_t *a, size_t na, const int64_t *b, size_t nb, int64_t **out,
			    size_t *nout);

/* 1 when a normalized list has a range meeting [from, to]. */
int pm_row_ranges_overlap(const int64_t *r, size_t n, int64_t from, int64_t to);

/*
 * The ranges of r inside [from, to], shifted by -from and turned into
 * [start, end) file positions (the format reader's form), into *out
 * (pm_free); *nout 0 when none meets. *full = 1 when they cover all of
 * [from, to] (no selection needed; *out NULL).
 */
int pm_row_ranges_local(const int64_t *r, size_t n, int64_t from, int64_t to, int64_t **out, size_t *nout,
			int *full);

/* BLOB / VECTOR companion files: pm_file_is_blob / pm_file_is_vector (meta/manifest.h). */

/*
 * The field ids a data file holds (ai-format §3.4 step 5): its
 * _WRITE_COLS resolved by name through its own schema fs (_ROW_ID and
 * _SEQUENCE_NUMBER by their system ids; names fs lacks are ignored), or
 * every field of fs when write_cols is null. *ids (pm_free) may be NULL
 * when *n is 0.
 */
int pm_file_field_ids(const pm_table_schema *fs, const pm_data_file_meta *f, int32_t **ids, size_t *n);

#endif
