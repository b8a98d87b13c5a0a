/* table/pred_internal.h - the predicate tree shared by predicate.c,
 * pred_parse.c and pred_eval.c (not part of any contract). */
#ifndef PM_TABLE_PRED_INTERNAL_H
#define PM_TABLE_PRED_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "table/predicate.h"
#include "types/binrow.h"
#include "types/datatype.h"

#define PM_PRED_MAX_DEPTH 200

typedef struct pm_pred_lit {
	uint8_t *p;   /* owned; NULL for SQL NULL (is_null) */
	size_t n;
	int is_null;
} pm_pred_lit;

struct paimon_predicate {
	pm_pred_op op;
	/* leaf */
	char *column;
	pm_pred_lit *lits;
	size_t nlits;
	/* AND / OR / NOT */
	pm_predicate **kids;
	size_t nkids;
	/* bound (leaf) */
	int bound;
	int32_t field_id;
	long field_index;
	pm_type *type;           /* owned copy of the column's type */
	pm_binrow_datum *vals;   /* nlits parsed literals (is_null for NULL) */
	uint8_t **owned;         /* nlits owned byte buffers */
};

static inline int pm_pred_is_leaf(pm_pred_op op)
{
	return op < PM_PRED_AND;
}

/* Number of literals an op takes: -1 any (IN lists). */
static inline int pm_pred_op_arity(pm_pred_op op)
{
	switch (op) {
	case PM_PRED_IS_NULL: case PM_PRED_IS_NOT_NULL: return 0;
	case PM_PRED_IN: case PM_PRED_NOT_IN: return -1;
	default: return 1;
	}
}

void pm_pred_unbind(pm_predicate *p);

#endif
