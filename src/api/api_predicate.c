/*
 * api/api_predicate.c - the predicate part of include/paimonc/table.h over
 * table/predicate.h. A paimon_predicate is a pm_predicate (same struct).
 */
#include "paimonc/table.h"

#include <string.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/mem.h"
#include "table/predicate.h"

/* paimon_predicate_op and pm_pred_op share their values. */
_Static_assert((int)PAIMON_PRED_EQUAL == (int)PM_PRED_EQ && (int)PAIMON_PRED_IN == (int)PM_PRED_IN &&
		       (int)PAIMON_PRED_IS_NOT_NULL == (int)PM_PRED_IS_NOT_NULL &&
		       (int)PAIMON_PRED_CONTAINS == (int)PM_PRED_CONTAINS,
	       "predicate operator values differ");
/* The Parquet filters (api_parquet_read.c) pass paimon_predicate_op values
 * on to pm_pq_filter unchanged. */
_Static_assert((int)PAIMON_PRED_EQUAL == (int)PM_PQF_EQ && (int)PAIMON_PRED_NOT_EQUAL == (int)PM_PQF_NE &&
		       (int)PAIMON_PRED_GREATER_OR_EQUAL == (int)PM_PQF_GE && (int)PAIMON_PRED_IN == (int)PM_PQF_IN &&
		       (int)PAIMON_PRED_NOT_IN == (int)PM_PQF_NOT_IN && (int)PAIMON_PRED_IS_NULL == (int)PM_PQF_IS_NULL &&
		       (int)PAIMON_PRED_IS_NOT_NULL == (int)PM_PQF_IS_NOT_NULL &&
		       (int)PAIMON_PRED_STARTS_WITH == (int)PM_PQF_STARTS_WITH,
	       "Parquet filter operator values differ");

PAIMON_EXTERN(int) paimon_predicate_leaf(paimon_predicate **out, const char *column, paimon_predicate_op op,
					 const char *const *literals, const size_t *lens, size_t n)
{
	if (!out)
		return pm_err(PAIMON_EINVAL, "paimon_predicate_leaf: out is NULL");
	if ((int)op < (int)PAIMON_PRED_EQUAL || (int)op > (int)PAIMON_PRED_CONTAINS) {
		*out = NULL;
		return pm_err(PAIMON_EINVAL, "paimon_predicate_leaf: unknown operator %d", (int)op);
	}
	return pm_pred_leaf(out, column, (pm_pred_op)op, literals, lens, n);
}

static int combine(paimon_predicate **out, pm_pred_op op, paimon_predicate **kids, size_t n)
{
	if (!out) {
		for (size_t i = 0; kids && i < n; i++)
			pm_pred_free(kids[i]);
		return pm_err(PAIMON_EINVAL, "predicate AND/OR: out is NULL");
	}
	return pm_pred_combine(out, op, kids, n);
}

PAIMON_EXTERN(int) paimon_predicate_and(paimon_predicate **out, paimon_predicate **kids, size_t n)
{
	return combine(out, PM_PRED_AND, kids, n);
}

PAIMON_EXTERN(int) paimon_predicate_or(paimon_predicate **out, paimon_predicate **kids, size_t n)
{
	return combine(out, PM_PRED_OR, kids, n);
}

PAIMON_EXTERN(int) paimon_predicate_not(paimon_predicate **out, paimon_predicate *p)
{
	if (!out) {
		pm_pred_free(p);
		return pm_err(PAIMON_EINVAL, "paimon_predicate_not: out is NULL");
	}
	return pm_pred_not(out, p);
}

PAIMON_EXTERN(int) paimon_predicate_parse(paimon_predicate **out, const char *text)
{
	if (!out)
		return pm_err(PAIMON_EINVAL, "paimon_predicate_parse: out is NULL");
	return pm_pred_parse(text, out);
}

PAIMON_EXTERN(int) paimon_predicate_to_string(const paimon_predicate *p, char **out)
{
	pm_buf b = PM_BUF_INIT;
	int rc;
	if (!p || !out)
		return pm_err(PAIMON_EINVAL, "paimon_predicate_to_string: NULL argument");
	*out = NULL;
	if ((rc = pm_pred_to_string(p, &b)) || (rc = pm_buf_reserve(&b, 1))) {
		pm_buf_dispose(&b);
		return rc;
	}
	*out = pm_buf_detach(&b);
	return *out ? 0 : PAIMON_ENOMEM;
}

PAIMON_EXTERN(int) paimon_predicate_serialize(const paimon_predicate *p, void **bytes, size_t *len)
{
	pm_buf b = PM_BUF_INIT;
	int rc;
	if (!p || !bytes || !len)
		return pm_err(PAIMON_EINVAL, "paimon_predicate_serialize: NULL argument");
	*bytes = NULL;
	*len = 0;
	if ((rc = pm_pred_encode(p, &b))) {
		pm_buf_dispose(&b);
		return rc;
	}
	*len = b.len;
	*bytes = pm_buf_detach(&b);
	return *bytes ? 0 : PAIMON_ENOMEM;
}

PAIMON_EXTERN(int) paimon_predicate_deserialize(paimon_predicate **out, const void *bytes, size_t len)
{
	if (!out)
		return pm_err(PAIMON_EINVAL, "paimon_predicate_deserialize: out is NULL");
	return pm_pred_decode(bytes, len, out);
}

PAIMON_EXTERN(void) paimon_predicate_free(paimon_predicate *p)
{
	pm_pred_free(p);
}
