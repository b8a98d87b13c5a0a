/*
 * table/predicate.h - row predicates on table columns (pypaimon's
 * PredicateBuilder set): =, <>, <, <=, >, >=, IN, NOT IN, IS NULL,
 * IS NOT NULL, startsWith, endsWith, contains, AND, OR, NOT.
 *
 * Literals are canonical text (types/datum.h) until the predicate is bound
 * to a schema, which resolves column names (top-level fields) to field ids
 * and types and parses the literals. A bound predicate then answers:
 *   - may a partition / a file / a manifest match, from exact partition
 *     values or min/max/null-count statistics (never a false "no": unknown
 *     statistics answer "maybe");
 *   - the Parquet row-group/page filter for a file written under an older
 *     schema (columns found by field id, renamed columns followed);
 *   - exactly which rows of an Arrow batch match (SQL three-valued logic:
 *     NULL rows do not match, NOT(NULL) is NULL).
 * Semantics follow Java/pypaimon: comparisons with a null column value
 * are not true; IN with a null literal ignores it; startsWith on strings
 * only (bytes prefix).
 */
#ifndef PM_TABLE_PREDICATE_H
#define PM_TABLE_PREDICATE_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "format/parquet/pq_filter.h"
#include "meta/schema.h"
#include "table/stats.h"
#include "types/binrow.h"

struct ArrowSchema;
struct ArrowArray;

typedef enum pm_pred_op {
	PM_PRED_EQ = 0, PM_PRED_NE, PM_PRED_LT, PM_PRED_LE, PM_PRED_GT, PM_PRED_GE,
	PM_PRED_IN, PM_PRED_NOT_IN, PM_PRED_IS_NULL, PM_PRED_IS_NOT_NULL,
	PM_PRED_STARTS_WITH, PM_PRED_ENDS_WITH, PM_PRED_CONTAINS,
	PM_PRED_AND = 100, PM_PRED_OR, PM_PRED_NOT
} pm_pred_op;

/* The same type as the public paimon_predicate (include/paimonc/table.h):
 * a paimon_predicate* is a pm_predicate*. */
typedef struct paimon_predicate pm_predicate;

/* Leaf on a top-level column: one literal for comparisons and string ops,
 * none for IS (NOT) NULL, n >= 0 for IN / NOT IN. A NULL literal pointer
 * means SQL NULL (allowed in IN lists only). */
int pm_pred_leaf(pm_predicate **out, const char *column, pm_pred_op op,
		 const char *const *literals, const size_t *lens, size_t n);
/* AND / OR of n >= 1 children; takes ownership of kids (also on failure). */
int pm_pred_combine(pm_predicate **out, pm_pred_op op, pm_predicate **kids, size_t n);
/* NOT; takes ownership of a (also on failure). */
int pm_pred_not(pm_predicate **out, pm_predicate *a);
int pm_pred_copy(const pm_predicate *p, pm_predicate **out);   /* unbound copy */
void pm_pred_free(pm_predicate *p);

/*
 * SQL-like text: comparisons `col op literal` (op = != <> < <= > >=),
 * `col IN (..)`, `col NOT IN (..)`, `col IS [NOT] NULL`,
 * `col LIKE 'abc%'` (prefix only -> startsWith), `col BETWEEN a AND b`,
 * AND / OR / NOT, parentheses. Literals: 'quoted text' ('' escapes a quote),
 * numbers, true/false, NULL; columns plain or `quoted`. PAIMON_EINVAL
 * quoting the text and position.
 */
int pm_pred_parse(const char *text, pm_predicate **out);
/* Prints the same syntax (parses back to an equal predicate). */
int pm_pred_to_string(const pm_predicate *p, pm_buf *out);
/* Stable byte form for pickling (versioned; decode validates). */
int pm_pred_encode(const pm_predicate *p, pm_buf *out);
int pm_pred_decode(const void *data, size_t len, pm_predicate **out);

/* Column names the predicate reads (unique, first-seen order), appended. */
int pm_pred_columns(const pm_predicate *p, pm_strlist *out);

/*
 * Binds to the table schema (names -> field ids/types, literals parsed).
 * PAIMON_EINVAL naming an unknown column, an unsupported type (nested
 * columns) or a literal that does not parse. Binding again rebinds.
 */
int pm_pred_bind(pm_predicate *p, const pm_table_schema *s);

/* Three-valued partial evaluation results. */
#define PM_PRED_MAYBE 1
#define PM_PRED_NEVER 0

/*
 * Statistics test: lookup(ctx, field_id) returns the column's stats in the
 * data being tested (NULL: column absent there -> all values are null,
 * e.g. a column added after the file was written). row_count: rows
 * covered (-1 unknown). Returns PM_PRED_MAYBE or PM_PRED_NEVER.
 */
typedef const pm_col_stats *(*pm_pred_stats_lookup)(void *ctx, int32_t field_id);
int pm_pred_test_stats(const pm_predicate *p, int64_t row_count, pm_pred_stats_lookup lookup,
		       void *ctx);

/*
 * Exact partition test: vals are the partition values of the table's
 * partition keys pk_field_ids[0..n). Leaves on other columns are unknown.
 * Returns PM_PRED_MAYBE or PM_PRED_NEVER.
 */
int pm_pred_test_partition(const pm_predicate *p, const int32_t *pk_field_ids,
			   const pm_binrow_datum *vals, size_t n);

/* 1 if every leaf is on a column in field_ids[0..n) (e.g. partition-only). */
int pm_pred_only_on(const pm_predicate *p, const int32_t *field_ids, size_t n);

/*
 * The part of the predicate that a Parquet file written under file_schema
 * can prune with (columns by field id, their names in that schema; leaves
 * on missing columns or with a changed type become "unknown"). *out = NULL
 * when nothing can be pushed down.
 */
int pm_pred_to_pq_filter(const pm_predicate *p, const pm_table_schema *file_schema,
			 pm_pq_filter **out);

/*
 * Exact evaluation over a batch (struct array) whose children are named by
 * the bound schema's column names (any subset/order that includes every
 * column the predicate reads). sel[i] = 1 when row i matches, else 0.
 */
int pm_pred_eval_batch(const pm_predicate *p, const struct ArrowSchema *s,
		       const struct ArrowArray *a, uint8_t *sel);

/*
 * The row-id ranges a bound predicate implies for the column with field id
 * field_id (Java RowIdPredicateVisitor): leaves =, IN, <, <=, >, >= on it
 * give ranges (row ids are >= 0); AND intersects the children that give
 * ranges (others only narrow further); OR unites them and is unknown when
 * one child is; NOT and other leaves are unknown. *known = 1 with sorted,
 * merged inclusive pairs in *ranges (pm_free; *n may be 0: no row
 * matches), or 0 when the predicate does not bound row ids.
 */
int pm_pred_row_ranges(const pm_predicate *p, int32_t field_id, int64_t **ranges, size_t *n, int *known);

#endif
