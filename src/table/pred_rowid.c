/*
 * table/pred_rowid.c - the row-id ranges a bound predicate implies (as
 * Java's RowIdPredicateVisitor; see pm_pred_row_ranges in predicate.h).
 */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "table/pred_internal.h"
#include "table/predicate.h"

typedef struct rr {
	int64_t *v;                      /* inclusive pairs */
	size_t n, cap;
} rr;

static int rr_push(rr *r, int64_t lo, int64_t hi)
{
	if (lo > hi)
		return 0;
	if (r->n == r->cap) {
		size_t nc = r->cap ? r->cap * 2 : 8;
		int64_t *nv = pm_realloc(r->v, 2 * nc * sizeof *nv);
		if (!nv)
			return PAIMON_ENOMEM;
		r->v = nv;
		r->cap = nc;
	}
	r->v[2 * r->n] = lo;
	r->v[2 * r->n + 1] = hi;
	r->n++;
	return 0;
}

static int cmp_pair(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return (x[1] > y[1]) - (x[1] < y[1]);
}

/* Sorts and merges overlapping / adjacent pairs. */
static void rr_norm(rr *r)
{
	size_t i, k = 0;
	qsort(r->v, r->n, 2 * sizeof *r->v, cmp_pair);
	for (i = 0; i < r->n; i++) {
		if (k && r->v[2 * i] <= r->v[2 * k - 1] + 1) {
			if (r->v[2 * i + 1] > r->v[2 * k - 1])
				r->v[2 * k - 1] = r->v[2 * i + 1];
			continue;
		}
		r->v[2 * k] = r->v[2 * i];
		r->v[2 * k + 1] = r->v[2 * i + 1];
		k++;
	}
	r->n = k;
}

static int rr_intersect(rr *a, const rr *b)
{
	rr o = {0};
	size_t i = 0, j = 0;
	int rc = 0;
	while (!rc && i < a->n && j < b->n) {
		int64_t lo = a->v[2 * i] > b->v[2 * j] ? a->v[2 * i] : b->v[2 * j];
		int64_t hi = a->v[2 * i + 1] < b->v[2 * j + 1] ? a->v[2 * i + 1] : b->v[2 * j + 1];
		rc = rr_push(&o, lo, hi);
		if (a->v[2 * i + 1] < b->v[2 * j + 1])
			i++;
		else
			j++;
	}
	if (rc) {
		pm_free(o.v);
		return rc;
	}
	pm_free(a->v);
	*a = o;
	return 0;
}

/* *known = 0: the predicate says nothing about row ids. */
static int visit(const pm_predicate *p, int32_t fid, rr *out, int *known)
{
	size_t i;
	int rc;
	*known = 0;
	if (pm_pred_is_leaf(p->op)) {
		int64_t v;
		if (!p->bound || p->field_id != fid)
			return 0;
		if (p->op != PM_PRED_IN && (p->nlits < 1 || p->vals[0].is_null))
			return 0;
		v = p->nlits ? p->vals[0].i : 0;
		switch (p->op) {
		case PM_PRED_EQ:
			rc = rr_push(out, v, v);
			break;
		case PM_PRED_IN:
			rc = 0;
			for (i = 0; !rc && i < p->nlits; i++)
				if (!p->vals[i].is_null)
					rc = rr_push(out, p->vals[i].i, p->vals[i].i);
			break;
		case PM_PRED_LT:
			rc = v > 0 ? rr_push(out, 0, v - 1) : 0;
			break;
		case PM_PRED_LE:
			rc = v >= 0 ? rr_push(out, 0, v) : 0;
			break;
		case PM_PRED_GT:
			rc = v < INT64_MAX ? rr_push(out, v < 0 ? 0 : v + 1, INT64_MAX) : 0;
			break;
		case PM_PRED_GE:
			rc = rr_push(out, v < 0 ? 0 : v, INT64_MAX);
			break;
		default:
			return 0;
		}
		if (rc)
			return rc;
		rr_norm(out);
		*known = 1;
		return 0;
	}
	if (p->op == PM_PRED_AND) {
		int any = 0;
		for (i = 0; i < p->nkids; i++) {
			rr k = {0};
			int kk = 0;
			if ((rc = visit(p->kids[i], fid, &k, &kk)) != 0) {
				pm_free(k.v);
				return rc;
			}
			if (!kk) {
				pm_free(k.v);
				continue;
			}
			if (!any) {
				pm_free(out->v);
				*out = k;
				any = 1;
				continue;
			}
			rc = rr_intersect(out, &k);
			pm_free(k.v);
			if (rc)
				return rc;
		}
		*known = any;
		return 0;
	}
	if (p->op == PM_PRED_OR) {
		for (i = 0; i < p->nkids; i++) {
			rr k = {0};
			int kk = 0;
			size_t j;
			if ((rc = visit(p->kids[i], fid, &k, &kk)) != 0 || !kk) {
				pm_free(k.v);
				return rc; /* an unknown child: the OR is unknown */
			}
			for (j = 0; !rc && j < k.n; j++)
				rc = rr_push(out, k.v[2 * j], k.v[2 * j + 1]);
			pm_free(k.v);
			if (rc)
				return rc;
		}
		rr_norm(out);
		*known = p->nkids > 0;
		return 0;
	}
	return 0; /* NOT: unknown */
}

int pm_pred_row_ranges(const pm_predicate *p, int32_t field_id, int64_t **ranges, size_t *n, int *known)
{
	rr r = {0};
	int rc;
	*ranges = NULL;
	*n = 0;
	*known = 0;
	if (!p)
		return 0;
	if ((rc = visit(p, field_id, &r, known)) != 0 || !*known) {
		pm_free(r.v);
		*known = 0;
		return rc;
	}
	*ranges = r.v;
	*n = r.n;
	return 0;
}
