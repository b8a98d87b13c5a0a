/*
 * format/parquet/pm_pq_filter.h - predicates for pruning Parquet row groups
 * and pages by statistics.
 *
 * A filter is a tree: leaves compare one column (a top-level or dotted
 * nested primitive column that is not repeated) with literals; inner nodes
 * are AND / OR / NOT. Literals are typed values (pm_pq_lit) or text; the
 * text is read once, when the leaf is made, and binding the filter to a
 * file schema (pm_pq_filter_bind) only checks that each literal fits the
 * column's physical and logical type. Text is read as the column's type:
 *
 *   ints, dates, times, timestamps  decimal integer text of the stored value
 *                                   (days, ms/us/ns since the epoch, ...)
 *   unsigned ints                   unsigned decimal text
 *   float / double                  strtod text ("nan" makes the leaf unknown)
 *   bool                            "true" / "false" / "1" / "0"
 *   decimal(p, s)                   "-12.345" (rescaled to s; a literal that
 *                                   is not exact at scale s makes the leaf
 *                                   unknown, i.e. never prunes)
 *   string / binary / FLBA          the raw bytes
 *
 * A literal that does not fit (out of the column's range, not exact at
 * its scale, NaN, more than 36 decimal digits) makes the leaf unknown; a
 * text that is no value of the column's type at all fails the bind.
 *
 * Evaluation is three-valued per row (TRUE / FALSE / NULL, as in SQL and
 * Arrow compute): for a row group (or a page range) it computes the set of
 * outcomes some row MIGHT have. A row group can be skipped only when TRUE
 * is not in that set. Every approximation adds outcomes, never removes them:
 * missing statistics, unusable min/max (INT96, legacy min/max of unsigned or
 * byte-array columns, NaN bounds, an unknown column order), possible NaN
 * values (float columns without nan_count == 0), and possible nulls all
 * widen the answer. Truncated bounds (is_min/max_value_exact = false) are
 * still valid bounds (a truncated min is <= the true min, a truncated max
 * >= the true max), and every decision uses bounds only, so they are safe.
 */
#ifndef PM_FORMAT_PARQUET_PQ_FILTER_H
#define PM_FORMAT_PARQUET_PQ_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/parquet/parquet_meta.h"

enum pm_pq_fop {
	PM_PQF_EQ = 0, PM_PQF_NE, PM_PQF_LT, PM_PQF_LE, PM_PQF_GT, PM_PQF_GE,
	PM_PQF_IN, PM_PQF_NOT_IN, PM_PQF_IS_NULL, PM_PQF_IS_NOT_NULL, PM_PQF_STARTS_WITH,
	PM_PQF_AND = 100, PM_PQF_OR, PM_PQF_NOT
};

/* Outcome bits. */
#define PM_PQF_T 1u
#define PM_PQF_F 2u
#define PM_PQF_N 4u

/* The same type as the public paimon_parquet_filter. */
typedef struct paimon_parquet_filter pm_pq_filter;

/* Leaf: one literal for the comparisons and STARTS_WITH, none for IS (NOT)
 * NULL, n (>= 0) for IN / NOT IN. vals[i] is text of lens[i] bytes (copied;
 * read once here by the text rules above). */
int pm_pq_filter_leaf(pm_pq_filter **out, const char *column, int op, const void *const *vals,
		      const size_t *lens, size_t n);

/*
 * A typed literal, in a column's physical domain:
 *   BOOL     b         BOOLEAN columns
 *   INT      i         INT32/INT64 (signed or unsigned: a negative value
 *                      in an unsigned column is unknown), dates, times,
 *                      timestamps in the column's unit; also decimals
 *                      (as scale 0), float / double and BOOLEAN (0 / 1)
 *   DOUBLE   d         FLOAT / DOUBLE columns, compared as doubles (a FLOAT
 *                      value as (double)f); NaN makes the leaf unknown
 *   DECIMAL  dec, scale  decimal columns of any physical type: the unscaled
 *                      two's complement value hi:lo, rescaled exactly to the
 *                      column's scale (not exact: unknown)
 *   BYTES    bytes     BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY (copied)
 * A literal bound to a column of another physical type is read by the text
 * rules from its canonical text ("true", "-12", shortest round-trip double
 * text, "-12.340", the bytes), so it fails or is unknown exactly as that
 * text leaf would be.
 */
enum pm_pq_lit_kind { PM_PQL_BOOL = 0, PM_PQL_INT, PM_PQL_DOUBLE, PM_PQL_DECIMAL, PM_PQL_BYTES };

typedef struct pm_pq_lit {
	int kind;   /* pm_pq_lit_kind */
	int scale;  /* DECIMAL: 0..76 */
	union {
		bool b;
		int64_t i;
		double d;
		struct {
			uint64_t lo;
			int64_t hi;
		} dec;
		struct {
			const void *p;
			size_t len;
		} bytes;
	} v;
} pm_pq_lit;

/* Leaf over n typed literals (same arity rules as pm_pq_filter_leaf). */
int pm_pq_filter_leaf_typed(pm_pq_filter **out, const char *column, int op, const pm_pq_lit *vals, size_t n);
/* AND / OR of n children (takes ownership of them, also on failure). */
int pm_pq_filter_combine(pm_pq_filter **out, int op, pm_pq_filter **kids, size_t n);
/* NOT (takes ownership of a, also on failure). */
int pm_pq_filter_not(pm_pq_filter **out, pm_pq_filter *a);
void pm_pq_filter_free(pm_pq_filter *f);

/* Binds the column names and checks the literals for a file schema.
 * PAIMON_EINVAL for an unknown, group or repeated column or a literal that
 * is no value of the column's type. Binding again (another file) replaces
 * the previous one. */
int pm_pq_filter_bind(pm_pq_filter *f, const pm_pq_schema *s);

/* Outcomes possible in row group rg (bound filter). */
unsigned pm_pq_filter_eval_rg(const pm_pq_filter *f, const pm_pq_file_meta *fm, int rg);

/* Same for one page's ColumnIndex entry; exposed for tests. Evaluates only
 * the leaves on column leaf; other leaves answer T|F|N. */
unsigned pm_pq_filter_eval_stats(const pm_pq_filter *f, const pm_pq_file_meta *fm, int leaf,
				 const pm_pq_statistics *st, int64_t rows);

/* Leaf columns the filter reads (bound filter); *n entries into out (cap). */
size_t pm_pq_filter_leaves(const pm_pq_filter *f, int *out, size_t cap);

/* Row segments [start, end) of a row group, each with its possible outcomes. */
typedef struct pm_pq_fseg {
	int64_t start, end;
	unsigned mask;
} pm_pq_fseg;

/* Per-leaf page information of a row group for pm_pq_filter_eval_pages. */
typedef struct pm_pq_fpages {
	pm_pq_column_index *ci;  /* NULL = no column index */
	pm_pq_offset_index *oi;  /* NULL = no offset index */
} pm_pq_fpages;

/* Rows of row group rg (num_rows rows) that may match, as ascending
 * disjoint ranges relative to the row group: *ranges (2 * *n values, free
 * with pm_free). pages[leaf] for every file leaf (entries without both
 * indexes use the chunk statistics). */
int pm_pq_filter_eval_pages(const pm_pq_filter *f, const pm_pq_file_meta *fm, int rg,
			    const pm_pq_fpages *pages, int64_t **ranges, size_t *n);

#endif
