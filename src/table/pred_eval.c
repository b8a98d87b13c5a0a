/*
 * table/pred_eval.c - answering bound predicates: statistics and partition
 * tests, the Parquet pushdown filter, and exact evaluation over Arrow
 * batches.
 *
 * Semantics (one row): a leaf is TRUE, FALSE or NULL. Comparisons with a
 * null column value are NULL; IN / NOT IN ignore NULL literals; FLOAT /
 * DOUBLE compare as IEEE 754 (as pyarrow compute, which pypaimon filters
 * with): NaN is unequal to everything, -0.0 = 0.0; other types use the
 * datum ordering (types/datum.h); string functions compare bytes.
 * AND/OR/NOT are SQL's three-valued logic; a row matches when TRUE.
 *
 * Statistics and partitions are tested with sets of possible outcomes
 * (T|F|N bits, as pm_pq_filter does): every leaf reports a superset of the
 * outcomes its rows may have, the connectives combine sets soundly, and
 * NEVER is answered only when TRUE is impossible. NOT therefore needs no
 * rewriting. Bounds are used only as bounds (truncated string statistics
 * stay valid), equalities that rely on min == max are not trusted for
 * strings, binaries and floats (NaN rows are not in float statistics).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "paimonc/arrow_c.h"
#include "table/pred_internal.h"
#include "table/predicate.h"
#include "types/datum.h"

#define ST 1u
#define SF 2u
#define SN 4u
#define SALL 7u

static unsigned set_and(unsigned a, unsigned b)
{
	unsigned r = 0;
	if ((a & ST) && (b & ST))
		r |= ST;
	if ((a & SF) || (b & SF))
		r |= SF;
	if (((a & SN) && (b & (ST | SN))) || ((b & SN) && (a & (ST | SN))))
		r |= SN;
	return r;
}

static unsigned set_or(unsigned a, unsigned b)
{
	unsigned r = 0;
	if ((a & ST) || (b & ST))
		r |= ST;
	if ((a & SF) && (b & SF))
		r |= SF;
	if (((a & SN) && (b & (SF | SN))) || ((b & SN) && (a & (SF | SN))))
		r |= SN;
	return r;
}

static unsigned set_not(unsigned a)
{
	return (a & SN) | ((a & ST) ? SF : 0) | ((a & SF) ? ST : 0);
}

static int is_float(const pm_type *t)
{
	return t->root == PM_FLOAT || t->root == PM_DOUBLE;
}

static int is_bytes(const pm_type *t)
{
	return t->root == PM_CHAR || t->root == PM_VARCHAR || t->root == PM_BINARY || t->root == PM_VARBINARY;
}

static double fval(const pm_type *t, const pm_binrow_datum *d)
{
	return t->root == PM_FLOAT ? (double)d->f : d->d;
}

/* Outcomes when every value is null. */
static unsigned all_null_set(pm_pred_op op)
{
	return op == PM_PRED_IS_NULL ? ST : op == PM_PRED_IS_NOT_NULL ? SF : SN;
}

static int has_prefix(const pm_binrow_datum *v, const pm_binrow_datum *pre)
{
	return v->bytes.n >= pre->bytes.n && (pre->bytes.n == 0 || !memcmp(v->bytes.p, pre->bytes.p, pre->bytes.n));
}

static int has_suffix(const pm_binrow_datum *v, const pm_binrow_datum *suf)
{
	return v->bytes.n >= suf->bytes.n &&
	       (suf->bytes.n == 0 || !memcmp(v->bytes.p + v->bytes.n - suf->bytes.n, suf->bytes.p, suf->bytes.n));
}

static int has_infix(const pm_binrow_datum *v, const pm_binrow_datum *inf)
{
	if (inf->bytes.n == 0)
		return 1;
	if (v->bytes.n < inf->bytes.n)
		return 0;
	return memmem(v->bytes.p, v->bytes.n, inf->bytes.p, inf->bytes.n) != NULL;
}

/* Three-way comparison with IEEE semantics for floats: 2 when unordered (NaN). */
static int cmp_value(const pm_type *t, const pm_binrow_datum *a, const pm_binrow_datum *b)
{
	if (is_float(t)) {
		double x = fval(t, a), y = fval(t, b);
		if (isnan(x) || isnan(y))
			return 2;
		return x < y ? -1 : x > y;
	}
	return pm_datum_compare(t, a, b);
}

/* Exact outcome of a leaf for one value (T, F or N). */
static unsigned leaf_value(const pm_predicate *p, const pm_binrow_datum *v)
{
	const pm_type *t = p->type;
	if (p->op == PM_PRED_IS_NULL)
		return v->is_null ? ST : SF;
	if (p->op == PM_PRED_IS_NOT_NULL)
		return v->is_null ? SF : ST;
	if (v->is_null)
		return SN;
	int c;
	switch (p->op) {
	case PM_PRED_EQ: c = cmp_value(t, v, &p->vals[0]); return c == 0 ? ST : SF;
	case PM_PRED_NE: c = cmp_value(t, v, &p->vals[0]); return c != 0 ? ST : SF;
	case PM_PRED_LT: c = cmp_value(t, v, &p->vals[0]); return c == -1 ? ST : SF;
	case PM_PRED_LE: c = cmp_value(t, v, &p->vals[0]); return c == -1 || c == 0 ? ST : SF;
	case PM_PRED_GT: c = cmp_value(t, v, &p->vals[0]); return c == 1 ? ST : SF;
	case PM_PRED_GE: c = cmp_value(t, v, &p->vals[0]); return c == 1 || c == 0 ? ST : SF;
	case PM_PRED_IN:
	case PM_PRED_NOT_IN: {
		int found = 0;
		for (size_t i = 0; i < p->nlits && !found; i++)
			if (!p->vals[i].is_null && cmp_value(t, v, &p->vals[i]) == 0)
				found = 1;
		return (found == (p->op == PM_PRED_IN)) ? ST : SF;
	}
	case PM_PRED_STARTS_WITH: return has_prefix(v, &p->vals[0]) ? ST : SF;
	case PM_PRED_ENDS_WITH: return has_suffix(v, &p->vals[0]) ? ST : SF;
	case PM_PRED_CONTAINS: return has_infix(v, &p->vals[0]) ? ST : SF;
	default: return SALL;
	}
}

/* ------------------------------------------------------------- statistics */

/* Possible outcomes of a comparison leaf over non-null values in [min, max]. */
static unsigned range_set(const pm_predicate *p, const pm_col_stats *cs)
{
	const pm_type *t = p->type;
	if (!cs->has_min || !cs->has_max || cs->min.is_null || cs->max.is_null)
		return ST | SF;
	const pm_binrow_datum *mn = &cs->min, *mx = &cs->max;
	int flt = is_float(t);
	if (flt && (isnan(fval(t, mn)) || isnan(fval(t, mx))))
		return ST | SF;
	/* "all values equal" may be trusted only for exact, NaN-free types */
	int exact_eq = !flt && !is_bytes(t) && cmp_value(t, mn, mx) == 0;
	const pm_binrow_datum *l = p->nlits ? &p->vals[0] : NULL;
	if (l && !l->is_null && flt && isnan(fval(t, l)))
		return ST | SF;
	unsigned r = 0;
	int cmin, cmax;
	switch (p->op) {
	case PM_PRED_EQ:
	case PM_PRED_NE: {
		cmin = cmp_value(t, mn, l);
		cmax = cmp_value(t, mx, l);
		int in_range = cmin <= 0 && cmax >= 0;
		int all_eq = exact_eq && cmin == 0;
		unsigned eq_set = (in_range ? ST : 0) | (all_eq ? 0 : SF);
		return p->op == PM_PRED_EQ ? eq_set : set_not(eq_set);
	}
	case PM_PRED_LT:
		if (cmp_value(t, mn, l) < 0) r |= ST;
		if (flt || !(cmp_value(t, mx, l) < 0)) r |= SF;
		return r;
	case PM_PRED_LE:
		if (cmp_value(t, mn, l) <= 0) r |= ST;
		if (flt || !(cmp_value(t, mx, l) <= 0)) r |= SF;
		return r;
	case PM_PRED_GT:
		cmax = cmp_value(t, mx, l);
		if (cmax == 1) r |= ST;
		cmin = cmp_value(t, mn, l);
		if (flt || cmin != 1) r |= SF;
		return r;
	case PM_PRED_GE:
		cmax = cmp_value(t, mx, l);
		if (cmax == 1 || cmax == 0) r |= ST;
		cmin = cmp_value(t, mn, l);
		if (flt || !(cmin == 1 || cmin == 0)) r |= SF;
		return r;
	case PM_PRED_IN:
	case PM_PRED_NOT_IN: {
		int any_in = 0, all_eq = 0;
		for (size_t i = 0; i < p->nlits; i++) {
			const pm_binrow_datum *li = &p->vals[i];
			if (li->is_null)
				continue;
			if (flt && isnan(fval(t, li)))
				continue; /* never equal */
			cmin = cmp_value(t, mn, li);
			cmax = cmp_value(t, mx, li);
			if (cmin <= 0 && cmax >= 0)
				any_in = 1;
			if (exact_eq && cmin == 0)
				all_eq = 1;
		}
		unsigned in_set = (any_in ? ST : 0) | (all_eq ? 0 : SF);
		return p->op == PM_PRED_IN ? in_set : set_not(in_set);
	}
	case PM_PRED_STARTS_WITH:
		/* values with the prefix lie in [prefix, prefix + 0xff...] */
		if (pm_datum_compare(t, mx, l) >= 0 && !(pm_datum_compare(t, mn, l) > 0 && !has_prefix(mn, l)))
			r |= ST;
		return r | SF;
	default:
		return ST | SF;
	}
}

static unsigned stats_leaf(const pm_predicate *p, int64_t row_count, pm_pred_stats_lookup lookup, void *ctx)
{
	if (!p->bound)
		return SALL;
	const pm_col_stats *cs = lookup(ctx, p->field_id);
	if (!cs)
		return all_null_set(p->op);
	int nulls_possible = cs->null_count != 0;
	if (row_count >= 0 && cs->null_count >= 0 && cs->null_count >= row_count)
		return all_null_set(p->op);
	if (p->op == PM_PRED_IS_NULL)
		return (nulls_possible ? ST : 0) | SF;
	if (p->op == PM_PRED_IS_NOT_NULL)
		return ST | (nulls_possible ? SF : 0);
	return range_set(p, cs) | (nulls_possible ? SN : 0);
}

static unsigned stats_rec(const pm_predicate *p, int64_t rc, pm_pred_stats_lookup lookup, void *ctx)
{
	if (pm_pred_is_leaf(p->op))
		return stats_leaf(p, rc, lookup, ctx);
	if (p->op == PM_PRED_NOT)
		return set_not(stats_rec(p->kids[0], rc, lookup, ctx));
	unsigned r = stats_rec(p->kids[0], rc, lookup, ctx);
	for (size_t i = 1; i < p->nkids; i++) {
		unsigned k = stats_rec(p->kids[i], rc, lookup, ctx);
		r = p->op == PM_PRED_AND ? set_and(r, k) : set_or(r, k);
	}
	return r;
}

int pm_pred_test_stats(const pm_predicate *p, int64_t row_count, pm_pred_stats_lookup lookup, void *ctx)
{
	if (!p)
		return PM_PRED_MAYBE;
	if (row_count == 0)
		return PM_PRED_NEVER;
	return (stats_rec(p, row_count, lookup, ctx) & ST) ? PM_PRED_MAYBE : PM_PRED_NEVER;
}

/* ------------------------------------------------------------- partitions */

static unsigned part_rec(const pm_predicate *p, const int32_t *ids, const pm_binrow_datum *vals, size_t n)
{
	if (pm_pred_is_leaf(p->op)) {
		if (!p->bound)
			return SALL;
		for (size_t i = 0; i < n; i++)
			if (ids[i] == p->field_id)
				return leaf_value(p, &vals[i]);
		return SALL;
	}
	if (p->op == PM_PRED_NOT)
		return set_not(part_rec(p->kids[0], ids, vals, n));
	unsigned r = part_rec(p->kids[0], ids, vals, n);
	for (size_t i = 1; i < p->nkids; i++) {
		unsigned k = part_rec(p->kids[i], ids, vals, n);
		r = p->op == PM_PRED_AND ? set_and(r, k) : set_or(r, k);
	}
	return r;
}

int pm_pred_test_partition(const pm_predicate *p, const int32_t *pk_field_ids, const pm_binrow_datum *vals,
			   size_t n)
{
	if (!p)
		return PM_PRED_MAYBE;
	return (part_rec(p, pk_field_ids, vals, n) & ST) ? PM_PRED_MAYBE : PM_PRED_NEVER;
}

int pm_pred_only_on(const pm_predicate *p, const int32_t *field_ids, size_t n)
{
	if (pm_pred_is_leaf(p->op)) {
		if (!p->bound)
			return 0;
		for (size_t i = 0; i < n; i++)
			if (field_ids[i] == p->field_id)
				return 1;
		return 0;
	}
	for (size_t i = 0; i < p->nkids; i++)
		if (!pm_pred_only_on(p->kids[i], field_ids, n))
			return 0;
	return 1;
}

/* ------------------------------------------------------------ pq filters */

static int negate_op(pm_pred_op op, const pm_type *t, pm_pred_op *out)
{
	switch (op) {
	case PM_PRED_EQ: *out = PM_PRED_NE; return 1;
	case PM_PRED_NE: *out = PM_PRED_EQ; return 1;
	case PM_PRED_IN: *out = PM_PRED_NOT_IN; return 1;
	case PM_PRED_NOT_IN: *out = PM_PRED_IN; return 1;
	case PM_PRED_IS_NULL: *out = PM_PRED_IS_NOT_NULL; return 1;
	case PM_PRED_IS_NOT_NULL: *out = PM_PRED_IS_NULL; return 1;
	/* NOT(x < c) is not x >= c when x is NaN */
	case PM_PRED_LT: *out = PM_PRED_GE; return !is_float(t);
	case PM_PRED_LE: *out = PM_PRED_GT; return !is_float(t);
	case PM_PRED_GT: *out = PM_PRED_LE; return !is_float(t);
	case PM_PRED_GE: *out = PM_PRED_LT; return !is_float(t);
	default: return 0;
	}
}

/* Timestamp unit of a file column as Paimon's Parquet writers store it
 * (ParquetSchemaConverter): <= 3 millis, <= 6 micros, else INT96 (0). */
static int64_t ts_unit_nanos(const pm_type *t)
{
	return t->precision <= 3 ? 1000000 : t->precision <= 6 ? 1000 : 0;
}

static __int128 dec_literal(const pm_type *t, const pm_binrow_datum *d);

/* The pm_pq_filter literal (the stored value, typed) for literal d of
 * bound type t in a file column of type ft; 1 = not representable (the
 * leaf is unknown). */
static int pq_literal(const pm_type *t, const pm_type *ft, const pm_binrow_datum *d, pm_pq_lit *o)
{
	memset(o, 0, sizeof *o);
	switch (t->root) {
	case PM_BOOLEAN:
		o->kind = PM_PQL_BOOL;
		o->v.b = d->i != 0;
		return 0;
	case PM_TINYINT: case PM_SMALLINT: case PM_INT: case PM_BIGINT: case PM_DATE: case PM_TIME:
		o->kind = PM_PQL_INT;
		o->v.i = d->i;
		return 0;
	case PM_FLOAT: case PM_DOUBLE: {
		double v = fval(t, d);
		if (isnan(v) || v == 0.0) /* NaN: unknown to pq; +-0 statistics are unreliable */
			return 1;
		o->kind = PM_PQL_DOUBLE; /* a FLOAT as its exact value */
		o->v.d = v;
		return 0;
	}
	case PM_DECIMAL: {
		__int128 v = dec_literal(t, d);
		o->kind = PM_PQL_DECIMAL;
		o->scale = t->scale;
		o->v.dec.lo = (uint64_t)(unsigned __int128)v;
		o->v.dec.hi = (int64_t)(v >> 64);
		return 0;
	}
	case PM_TIMESTAMP: case PM_TIMESTAMP_LTZ: {
		int64_t u = ts_unit_nanos(ft);
		if (!u)
			return 1;
		o->kind = PM_PQL_INT;
		if (u == 1000000) {
			if (d->ts.nano_of_milli != 0)
				return 1;
			o->v.i = d->ts.millis;
			return 0;
		}
		if (d->ts.nano_of_milli % 1000 || d->ts.millis > INT64_MAX / 1000 || d->ts.millis < INT64_MIN / 1000 + 1)
			return 1;
		o->v.i = d->ts.millis * 1000 + d->ts.nano_of_milli / 1000;
		return 0;
	}
	case PM_CHAR: case PM_VARCHAR: case PM_BINARY: case PM_VARBINARY:
		o->kind = PM_PQL_BYTES;
		o->v.bytes.p = d->bytes.p;
		o->v.bytes.len = d->bytes.n;
		return 0;
	default:
		return 1;
	}
}

static int same_storage(const pm_type *t, const pm_type *ft)
{
	if (t->root != ft->root) {
		int ts = (t->root == PM_CHAR || t->root == PM_VARCHAR) && (ft->root == PM_CHAR || ft->root == PM_VARCHAR);
		int bs = (t->root == PM_BINARY || t->root == PM_VARBINARY) &&
			 (ft->root == PM_BINARY || ft->root == PM_VARBINARY);
		return ts || bs;
	}
	if (t->root == PM_DECIMAL)
		return t->precision == ft->precision && t->scale == ft->scale;
	if (t->root == PM_TIMESTAMP || t->root == PM_TIMESTAMP_LTZ)
		return ts_unit_nanos(t) == ts_unit_nanos(ft);
	return 1;
}

/* One pq leaf; *out NULL when not expressible. */
static int pm_pq_leaf(const pm_predicate *p, pm_pred_op op, const pm_field *ff, pm_pq_filter **out)
{
	static const int map[] = {PM_PQF_EQ, PM_PQF_NE, PM_PQF_LT, PM_PQF_LE, PM_PQF_GT, PM_PQF_GE,
				  PM_PQF_IN, PM_PQF_NOT_IN, PM_PQF_IS_NULL, PM_PQF_IS_NOT_NULL, PM_PQF_STARTS_WITH};
	pm_pq_lit one, *lits;
	size_t n = 0;
	int rc = 0;
	*out = NULL;
	if (op == PM_PRED_ENDS_WITH || op == PM_PRED_CONTAINS)
		return 0;
	if (op == PM_PRED_IS_NULL || op == PM_PRED_IS_NOT_NULL)
		return pm_pq_filter_leaf_typed(out, ff->name, map[op], NULL, 0);
	if (op == PM_PRED_NOT_IN) {
		/* AND of <> over the non-null literals (no literal: IS NOT NULL) */
		pm_pq_filter **kids = pm_calloc(p->nlits + 1, sizeof *kids);
		size_t nk = 0;
		if (!kids)
			return PAIMON_ENOMEM;
		for (size_t i = 0; i < p->nlits && !rc; i++) {
			if (p->vals[i].is_null || pq_literal(p->type, ff->type, &p->vals[i], &one))
				continue;
			rc = pm_pq_filter_leaf_typed(&kids[nk], ff->name, PM_PQF_NE, &one, 1);
			if (!rc)
				nk++;
		}
		if (!rc && nk == 0)
			rc = pm_pq_filter_leaf_typed(&kids[nk++], ff->name, PM_PQF_IS_NOT_NULL, NULL, 0);
		if (rc) {
			for (size_t i = 0; i < nk; i++)
				pm_pq_filter_free(kids[i]);
			pm_free(kids);
			return rc;
		}
		if (nk == 1) {
			*out = kids[0];
			pm_free(kids);
			return 0;
		}
		rc = pm_pq_filter_combine(out, PM_PQF_AND, kids, nk);
		pm_free(kids);
		return rc;
	}
	/* one literal, or IN over the non-null ones */
	lits = p->nlits <= 1 ? &one : pm_malloc(p->nlits * sizeof *lits);
	if (!lits)
		return PAIMON_ENOMEM;
	for (size_t i = 0; i < p->nlits; i++) {
		if (p->vals[i].is_null)
			continue;
		if (pq_literal(p->type, ff->type, &p->vals[i], &lits[n++])) {
			n = 0; /* one unusable IN literal: the whole leaf is unknown */
			break;
		}
	}
	if (n > 0)
		rc = pm_pq_filter_leaf_typed(out, ff->name, map[op], lits, n);
	if (lits != &one)
		pm_free(lits);
	return rc;
}

static int pm_pq_rec(const pm_predicate *p, int negate, const pm_table_schema *fs, pm_pq_filter **out, int depth)
{
	int rc = 0;
	*out = NULL;
	if (depth > PM_PRED_MAX_DEPTH)
		return 0;
	if (p->op == PM_PRED_NOT)
		return pm_pq_rec(p->kids[0], !negate, fs, out, depth + 1);
	if (!pm_pred_is_leaf(p->op)) {
		int conj = (p->op == PM_PRED_AND) != negate; /* AND, or a negated OR */
		pm_pq_filter **kids = pm_calloc(p->nkids, sizeof *kids);
		size_t nk = 0;
		if (!kids)
			return PAIMON_ENOMEM;
		for (size_t i = 0; i < p->nkids && !rc; i++) {
			pm_pq_filter *k = NULL;
			rc = pm_pq_rec(p->kids[i], negate, fs, &k, depth + 1);
			if (rc)
				break;
			if (k)
				kids[nk++] = k;
			else if (!conj) { /* OR with an unknown part: unknown */
				for (size_t j = 0; j < nk; j++)
					pm_pq_filter_free(kids[j]);
				pm_free(kids);
				return 0;
			}
		}
		if (rc || nk == 0) {
			for (size_t j = 0; j < nk; j++)
				pm_pq_filter_free(kids[j]);
			pm_free(kids);
			return rc;
		}
		if (nk == 1) {
			*out = kids[0];
			pm_free(kids);
			return 0;
		}
		rc = pm_pq_filter_combine(out, conj ? PM_PQF_AND : PM_PQF_OR, kids, nk);
		pm_free(kids);
		return rc;
	}
	if (!p->bound)
		return 0;
	pm_pred_op op = p->op;
	if (negate && !negate_op(p->op, p->type, &op))
		return 0;
	const pm_field *ff = NULL;
	for (size_t i = 0; i < fs->nfields; i++)
		if (fs->fields[i].id == p->field_id)
			ff = &fs->fields[i];
	if (!ff || strchr(ff->name, '.') || !pm_datum_type_comparable(ff->type) || !same_storage(p->type, ff->type))
		return 0;
	return pm_pq_leaf(p, op, ff, out);
}

int pm_pred_to_pq_filter(const pm_predicate *p, const pm_table_schema *file_schema, pm_pq_filter **out)
{
	*out = NULL;
	if (!p)
		return 0;
	return pm_pq_rec(p, 0, file_schema, out, 0);
}

/* ------------------------------------------------------------ batches */

/* Row outcomes in batch evaluation: ordered so AND = min, OR = max. */
#define RF 0
#define RN 1
#define RT 2
#define CHUNK 1024

typedef struct colv {
	const struct ArrowSchema *s;
	const struct ArrowArray *a;
	int64_t base; /* physical index of row 0 */
} colv;

static int bad_col(const pm_predicate *p, const struct ArrowSchema *s, const char *why)
{
	return pm_err(PAIMON_EINVAL, "predicate on column '%s': Arrow column of format '%s' %s", p->column,
		      s->format ? s->format : "", why);
}

static inline int bitget(const uint8_t *b, int64_t i)
{
	return (b[i >> 3] >> (i & 7)) & 1;
}

/* A literal on an integer scale: value L with floor fl; exact when L == fl;
 * below/above when L is outside int64. */
typedef struct ilit {
	int64_t fl;
	int exact, below, above;
} ilit;

static ilit ilit_from_i128(__int128 num, int64_t unit)
{
	ilit r = {0, 1, 0, 0};
	__int128 q = num / unit;
	if ((num % unit) && num < 0)
		q--;
	r.exact = num % unit == 0;
	if (q > INT64_MAX) {
		r.above = 1;
		r.fl = INT64_MAX;
	} else if (q < INT64_MIN) {
		r.below = 1;
		r.fl = INT64_MIN;
	} else {
		r.fl = (int64_t)q;
	}
	return r;
}

/* Integer-like Arrow encodings: width of the stored integer and the
 * literal on that scale. Returns 0 if the column is not integer-like. */
static int int_layout(const pm_predicate *p, const char *f, int *width, int64_t *unit_ns)
{
	const pm_type *t = p->type;
	*unit_ns = 1;
	switch (t->root) {
	case PM_BOOLEAN:
		return 0;
	case PM_TINYINT: case PM_SMALLINT: case PM_INT: case PM_BIGINT:
		if (!f[1] && (f[0] == 'c' || f[0] == 's' || f[0] == 'i' || f[0] == 'l')) {
			*width = f[0] == 'c' ? 1 : f[0] == 's' ? 2 : f[0] == 'i' ? 4 : 8;
			return 1;
		}
		return -1;
	case PM_DATE:
		if (!strcmp(f, "tdD")) { *width = 4; return 1; }
		if (!strcmp(f, "tdm")) { *width = 8; *unit_ns = 1; return 2; } /* ms; literal days * 86400000 */
		return -1;
	case PM_TIME:
		if (!strcmp(f, "tts")) { *width = 4; *unit_ns = 1000000000; return 3; }
		if (!strcmp(f, "ttm")) { *width = 4; *unit_ns = 1000000; return 3; }
		if (!strcmp(f, "ttu")) { *width = 8; *unit_ns = 1000; return 3; }
		if (!strcmp(f, "ttn")) { *width = 8; *unit_ns = 1; return 3; }
		return -1;
	case PM_TIMESTAMP: case PM_TIMESTAMP_LTZ:
		if (f[0] == 't' && f[1] == 's' && f[2] && f[3] == ':') {
			*width = 8;
			switch (f[2]) {
			case 's': *unit_ns = 1000000000; return 3;
			case 'm': *unit_ns = 1000000; return 3;
			case 'u': *unit_ns = 1000; return 3;
			case 'n': *unit_ns = 1; return 3;
			}
		}
		return -1;
	default:
		return 0;
	}
}

static ilit int_literal(const pm_predicate *p, const pm_binrow_datum *d, int kind, int64_t unit)
{
	__int128 ns;
	switch (kind) {
	case 1: return ilit_from_i128(d->i, 1);
	case 2: return ilit_from_i128((__int128)d->i * 86400000, 1);
	default:
		if (p->type->root == PM_TIME)
			ns = (__int128)d->i * 1000000;
		else
			ns = (__int128)d->ts.millis * 1000000 + d->ts.nano_of_milli;
		return ilit_from_i128(ns, unit);
	}
}

/* Loads n values (signed, width w) starting at physical row `start` into x. */
static void widen(const void *buf, int w, int64_t start, int64_t n, int64_t *x)
{
	switch (w) {
	case 1: { const int8_t *s = (const int8_t *)buf + start; for (int64_t i = 0; i < n; i++) x[i] = s[i]; break; }
	case 2: { const int16_t *s = (const int16_t *)buf + start; for (int64_t i = 0; i < n; i++) x[i] = s[i]; break; }
	case 4: { const int32_t *s = (const int32_t *)buf + start; for (int64_t i = 0; i < n; i++) x[i] = s[i]; break; }
	default: memcpy(x, (const int64_t *)buf + start, (size_t)n * 8); break;
	}
}

/* out[i] = RT/RF of (x[i] op L). */
static void int_cmp(pm_pred_op op, const ilit *L, const int64_t *x, int64_t n, uint8_t *out)
{
	int64_t fl = L->fl;
	int64_t i;
	if (L->below || L->above) {
		/* every x is above (below) the literal */
		int gt = L->below;
		uint8_t v;
		switch (op) {
		case PM_PRED_EQ: v = RF; break;
		case PM_PRED_NE: v = RT; break;
		case PM_PRED_LT: case PM_PRED_LE: v = gt ? RF : RT; break;
		default: v = gt ? RT : RF; break;
		}
		memset(out, v, (size_t)n);
		return;
	}
	switch (op) {
	case PM_PRED_EQ:
		if (!L->exact) { memset(out, RF, (size_t)n); return; }
		for (i = 0; i < n; i++) out[i] = (uint8_t)((x[i] == fl) << 1);
		return;
	case PM_PRED_NE:
		if (!L->exact) { memset(out, RT, (size_t)n); return; }
		for (i = 0; i < n; i++) out[i] = (uint8_t)((x[i] != fl) << 1);
		return;
	case PM_PRED_LT:
		if (L->exact) { for (i = 0; i < n; i++) out[i] = (uint8_t)((x[i] < fl) << 1); }
		else { for (i = 0; i < n; i++) out[i] = (uint8_t)((x[i] <= fl) << 1); }
		return;
	case PM_PRED_LE:
		for (i = 0; i < n; i++) out[i] = (uint8_t)((x[i] <= fl) << 1);
		return;
	case PM_PRED_GT:
		for (i = 0; i < n; i++) out[i] = (uint8_t)((x[i] > fl) << 1);
		return;
	case PM_PRED_GE:
		if (L->exact) { for (i = 0; i < n; i++) out[i] = (uint8_t)((x[i] >= fl) << 1); }
		else { for (i = 0; i < n; i++) out[i] = (uint8_t)((x[i] > fl) << 1); }
		return;
	default:
		return;
	}
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* IN / NOT IN with many literals over a long batch: the exact literal
 * values sorted once, each row found by binary search (n log L instead of
 * n * L compares). */
static void in_sorted(const ilit *lits, size_t nlits, int64_t *set, const int64_t *x, int64_t m, uint8_t hit,
		      uint8_t *out, size_t *nset)
{
	if (*nset == (size_t)-1) {
		size_t k, ns = 0;
		for (k = 0; k < nlits; k++)
			if (lits[k].exact && !lits[k].below && !lits[k].above)
				set[ns++] = lits[k].fl;
		qsort(set, ns, sizeof *set, cmp_i64);
		*nset = ns;
	}
	for (int64_t i = 0; i < m; i++) {
		size_t lo = 0, hi = *nset;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (set[mid] < x[i])
				lo = mid + 1;
			else
				hi = mid;
		}
		out[i] = lo < *nset && set[lo] == x[i] ? hit : (uint8_t)(hit == RT ? RF : RT);
	}
}

static int eval_int(const pm_predicate *p, const colv *c, int kind, int w, int64_t unit, int64_t n, uint8_t *out)
{
	const void *buf = c->a->buffers[1];
	int64_t x[CHUNK];
	ilit lits_small[16];
	ilit *lits = p->nlits <= 16 ? lits_small : pm_malloc(p->nlits * sizeof *lits);
	int is_in = p->op == PM_PRED_IN || p->op == PM_PRED_NOT_IN;
	int64_t *set = NULL;
	size_t nset = (size_t)-1;
	if (!lits)
		return PAIMON_ENOMEM;
	for (size_t k = 0; k < p->nlits; k++) {
		if (!p->vals[k].is_null)
			lits[k] = int_literal(p, &p->vals[k], kind, unit);
		else
			lits[k].exact = 0;
	}
	if (is_in && p->nlits > 16 && n > 16 && !(set = pm_malloc(p->nlits * sizeof *set))) {
		pm_free(lits);
		return PAIMON_ENOMEM;
	}
	for (int64_t s = 0; s < n; s += CHUNK) {
		int64_t m = n - s < CHUNK ? n - s : CHUNK;
		widen(buf, w, c->base + s, m, x);
		if (is_in && set) {
			in_sorted(lits, p->nlits, set, x, m, p->op == PM_PRED_IN ? RT : RF, out + s, &nset);
		} else if (is_in) {
			uint8_t hit = p->op == PM_PRED_IN ? RT : RF;
			memset(out + s, hit == RT ? RF : RT, (size_t)m);
			for (size_t k = 0; k < p->nlits; k++) {
				if (p->vals[k].is_null || !lits[k].exact || lits[k].below || lits[k].above)
					continue;
				int64_t fl = lits[k].fl;
				for (int64_t i = 0; i < m; i++)
					if (x[i] == fl)
						out[s + i] = hit;
			}
		} else {
			int_cmp(p->op, &lits[0], x, m, out + s);
		}
	}
	pm_free(set);
	if (lits != lits_small)
		pm_free(lits);
	return 0;
}

static int eval_bool(const pm_predicate *p, const colv *c, int64_t n, uint8_t *out)
{
	const uint8_t *bits = c->a->buffers[1];
	int64_t x[CHUNK];
	for (int64_t s = 0; s < n; s += CHUNK) {
		int64_t m = n - s < CHUNK ? n - s : CHUNK;
		for (int64_t i = 0; i < m; i++)
			x[i] = bitget(bits, c->base + s + i);
		if (p->op == PM_PRED_IN || p->op == PM_PRED_NOT_IN) {
			uint8_t hit = p->op == PM_PRED_IN ? RT : RF;
			memset(out + s, hit == RT ? RF : RT, (size_t)m);
			for (size_t k = 0; k < p->nlits; k++) {
				if (p->vals[k].is_null)
					continue;
				int64_t v = p->vals[k].i != 0;
				for (int64_t i = 0; i < m; i++)
					if (x[i] == v)
						out[s + i] = hit;
			}
		} else {
			ilit L = {p->vals[0].i != 0, 1, 0, 0};
			int_cmp(p->op, &L, x, m, out + s);
		}
	}
	return 0;
}

static int eval_float(const pm_predicate *p, const colv *c, int is_f32, int64_t n, uint8_t *out)
{
	double x[CHUNK];
	const void *buf = c->a->buffers[1];
	for (int64_t s = 0; s < n; s += CHUNK) {
		int64_t m = n - s < CHUNK ? n - s : CHUNK, i;
		if (is_f32) {
			const float *f = (const float *)buf + c->base + s;
			for (i = 0; i < m; i++)
				x[i] = f[i];
		} else {
			memcpy(x, (const double *)buf + c->base + s, (size_t)m * 8);
		}
		uint8_t *o = out + s;
		if (p->op == PM_PRED_IN || p->op == PM_PRED_NOT_IN) {
			uint8_t hit = p->op == PM_PRED_IN ? RT : RF;
			memset(o, hit == RT ? RF : RT, (size_t)m);
			for (size_t k = 0; k < p->nlits; k++) {
				if (p->vals[k].is_null)
					continue;
				double v = fval(p->type, &p->vals[k]);
				for (i = 0; i < m; i++)
					if (x[i] == v)
						o[i] = hit;
			}
			continue;
		}
		double v = fval(p->type, &p->vals[0]);
		switch (p->op) {
		case PM_PRED_EQ: for (i = 0; i < m; i++) o[i] = (uint8_t)((x[i] == v) << 1); break;
		case PM_PRED_NE: for (i = 0; i < m; i++) o[i] = (uint8_t)((x[i] != v) << 1); break;
		case PM_PRED_LT: for (i = 0; i < m; i++) o[i] = (uint8_t)((x[i] < v) << 1); break;
		case PM_PRED_LE: for (i = 0; i < m; i++) o[i] = (uint8_t)((x[i] <= v) << 1); break;
		case PM_PRED_GT: for (i = 0; i < m; i++) o[i] = (uint8_t)((x[i] > v) << 1); break;
		case PM_PRED_GE: for (i = 0; i < m; i++) o[i] = (uint8_t)((x[i] >= v) << 1); break;
		default: break;
		}
	}
	return 0;
}

static __int128 dec_literal(const pm_type *t, const pm_binrow_datum *d)
{
	if (t->precision <= 18)
		return d->i;
	unsigned __int128 u = d->bytes.n && (d->bytes.p[0] & 0x80) ? ~(unsigned __int128)0 : 0;
	for (size_t k = 0; k < d->bytes.n && k < 16; k++)
		u = (u << 8) | d->bytes.p[k];
	return (__int128)u;
}

static inline int op_from_cmp(pm_pred_op op, int c)
{
	switch (op) {
	case PM_PRED_EQ: return c == 0;
	case PM_PRED_NE: return c != 0;
	case PM_PRED_LT: return c < 0;
	case PM_PRED_LE: return c <= 0;
	case PM_PRED_GT: return c > 0;
	case PM_PRED_GE: return c >= 0;
	default: return 0;
	}
}

static int eval_decimal(const pm_predicate *p, const colv *c, int64_t n, uint8_t *out)
{
	const uint8_t *buf = c->a->buffers[1];
	for (int64_t i = 0; i < n; i++) {
		const uint8_t *le = buf + 16 * (c->base + i);
		unsigned __int128 u = 0;
		for (int k = 15; k >= 0; k--)
			u = (u << 8) | le[k];
		__int128 x = (__int128)u;
		if (p->op == PM_PRED_IN || p->op == PM_PRED_NOT_IN) {
			int found = 0;
			for (size_t k = 0; k < p->nlits && !found; k++)
				found = !p->vals[k].is_null && dec_literal(p->type, &p->vals[k]) == x;
			out[i] = (uint8_t)((found == (p->op == PM_PRED_IN)) << 1);
		} else {
			__int128 v = dec_literal(p->type, &p->vals[0]);
			out[i] = (uint8_t)(op_from_cmp(p->op, x < v ? -1 : x > v) << 1);
		}
	}
	return 0;
}

static int cmp_bytes(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
	size_t m = an < bn ? an : bn;
	int r = m ? memcmp(a, b, m) : 0;
	if (r)
		return r;
	return an < bn ? -1 : an > bn;
}

static int eval_bytes(const pm_predicate *p, const colv *c, int64_t n, uint8_t *out)
{
	const char *f = c->s->format;
	const uint8_t *data;
	int large = 0, fixed = 0;
	int64_t w = 0;
	if ((f[0] == 'u' || f[0] == 'z') && !f[1]) {
		data = c->a->buffers[2];
	} else if ((f[0] == 'U' || f[0] == 'Z') && !f[1]) {
		data = c->a->buffers[2];
		large = 1;
	} else if (f[0] == 'w' && f[1] == ':') {
		w = strtol(f + 2, NULL, 10);
		data = c->a->buffers[1];
		fixed = 1;
	} else {
		return bad_col(p, c->s, "does not hold strings or bytes");
	}
	if (!fixed && c->a->n_buffers < 3)
		return bad_col(p, c->s, "lacks buffers");
	const void *offs = c->a->buffers[1];
	for (int64_t i = 0; i < n; i++) {
		int64_t r = c->base + i, o0, o1;
		if (fixed) {
			o0 = r * w;
			o1 = o0 + w;
		} else if (large) {
			memcpy(&o0, (const int64_t *)offs + r, 8);
			memcpy(&o1, (const int64_t *)offs + r + 1, 8);
		} else {
			int32_t a0, a1;
			memcpy(&a0, (const int32_t *)offs + r, 4);
			memcpy(&a1, (const int32_t *)offs + r + 1, 4);
			o0 = a0;
			o1 = a1;
		}
		pm_binrow_datum v;
		v.bytes.p = data ? data + o0 : (const uint8_t *)"";
		v.bytes.n = o1 > o0 ? (size_t)(o1 - o0) : 0;
		int res;
		switch (p->op) {
		case PM_PRED_STARTS_WITH: res = has_prefix(&v, &p->vals[0]); break;
		case PM_PRED_ENDS_WITH: res = has_suffix(&v, &p->vals[0]); break;
		case PM_PRED_CONTAINS: res = has_infix(&v, &p->vals[0]); break;
		case PM_PRED_IN:
		case PM_PRED_NOT_IN: {
			int found = 0;
			for (size_t k = 0; k < p->nlits && !found; k++)
				found = !p->vals[k].is_null && v.bytes.n == p->vals[k].bytes.n &&
					(v.bytes.n == 0 || !memcmp(v.bytes.p, p->vals[k].bytes.p, v.bytes.n));
			res = found == (p->op == PM_PRED_IN);
			break;
		}
		default:
			res = op_from_cmp(p->op, cmp_bytes(v.bytes.p, v.bytes.n, p->vals[0].bytes.p, p->vals[0].bytes.n));
		}
		out[i] = (uint8_t)(res << 1);
	}
	return 0;
}

static int eval_leaf(const pm_predicate *p, const struct ArrowSchema *s, const struct ArrowArray *a, uint8_t *out)
{
	int64_t n = a->length;
	if (!p->bound)
		return pm_err(PAIMON_EINVAL, "predicate on column '%s' is not bound to a schema", p->column);
	const struct ArrowSchema *cs = NULL;
	const struct ArrowArray *ca = NULL;
	for (int64_t i = 0; i < s->n_children; i++)
		if (s->children[i]->name && !strcmp(s->children[i]->name, p->column)) {
			cs = s->children[i];
			ca = i < a->n_children ? a->children[i] : NULL;
			break;
		}
	if (!cs || !ca)
		return pm_err(PAIMON_EINVAL, "predicate column '%s' is not in the batch", p->column);
	if (ca->length < a->offset + n)
		return bad_col(p, cs, "is shorter than the batch");
	colv c = {cs, ca, ca->offset + a->offset};
	const char *f = cs->format ? cs->format : "";
	const uint8_t *valid = ca->null_count != 0 && ca->n_buffers > 0 && ca->buffers[0] ? ca->buffers[0] : NULL;
	int is_null_type = !strcmp(f, "n");
	int rc = 0;
	if (p->op == PM_PRED_IS_NULL || p->op == PM_PRED_IS_NOT_NULL) {
		uint8_t isnull_v = p->op == PM_PRED_IS_NULL ? RT : RF;
		if (is_null_type) {
			memset(out, isnull_v, (size_t)n);
			return 0;
		}
		for (int64_t i = 0; i < n; i++)
			out[i] = valid && !bitget(valid, c.base + i) ? isnull_v : (uint8_t)(RT - isnull_v);
		return 0;
	}
	if (is_null_type) {
		memset(out, RN, (size_t)n);
		return 0;
	}
	if (ca->n_buffers < 2 || !ca->buffers || (!ca->buffers[1] && n))
		return bad_col(p, cs, "lacks buffers");
	if (n == 0)
		return 0;
	const pm_type *t = p->type;
	int w, kind;
	int64_t unit;
	if ((kind = int_layout(p, f, &w, &unit)) > 0) {
		rc = eval_int(p, &c, kind, w, unit, n, out);
	} else if (kind < 0) {
		return bad_col(p, cs, "does not fit the column type");
	} else if (t->root == PM_BOOLEAN) {
		if (strcmp(f, "b"))
			return bad_col(p, cs, "does not fit BOOLEAN");
		rc = eval_bool(p, &c, n, out);
	} else if (t->root == PM_FLOAT || t->root == PM_DOUBLE) {
		if (strcmp(f, "f") && strcmp(f, "g"))
			return bad_col(p, cs, "does not fit FLOAT/DOUBLE");
		rc = eval_float(p, &c, f[0] == 'f', n, out);
	} else if (t->root == PM_DECIMAL) {
		const char *c1 = strchr(f, ',');
		if (strncmp(f, "d:", 2) || !c1 || strtol(c1 + 1, NULL, 10) != t->scale ||
		    (strchr(c1 + 1, ',') && strtol(strchr(c1 + 1, ',') + 1, NULL, 10) != 128))
			return bad_col(p, cs, "does not fit the DECIMAL column (decimal128 of the same scale expected)");
		rc = eval_decimal(p, &c, n, out);
	} else if (is_bytes(t)) {
		rc = eval_bytes(p, &c, n, out);
	} else {
		return bad_col(p, cs, "cannot be compared");
	}
	if (rc)
		return rc;
	if (valid)
		for (int64_t i = 0; i < n; i++)
			if (!bitget(valid, c.base + i))
				out[i] = RN;
	return 0;
}

static int eval_rec(const pm_predicate *p, const struct ArrowSchema *s, const struct ArrowArray *a, uint8_t *out,
		    int depth)
{
	int64_t n = a->length;
	int rc;
	if (depth > PM_PRED_MAX_DEPTH)
		return pm_err(PAIMON_EINVAL, "predicate nested deeper than %d", PM_PRED_MAX_DEPTH);
	if (pm_pred_is_leaf(p->op))
		return eval_leaf(p, s, a, out);
	if ((rc = eval_rec(p->kids[0], s, a, out, depth + 1)))
		return rc;
	if (p->op == PM_PRED_NOT) {
		for (int64_t i = 0; i < n; i++)
			out[i] = (uint8_t)(RT - out[i]);
		return 0;
	}
	if (p->nkids == 1)
		return 0;
	uint8_t *tmp = pm_malloc(n ? (size_t)n : 1);
	if (!tmp)
		return PAIMON_ENOMEM;
	for (size_t k = 1; k < p->nkids && !rc; k++) {
		if ((rc = eval_rec(p->kids[k], s, a, tmp, depth + 1)))
			break;
		if (p->op == PM_PRED_AND)
			for (int64_t i = 0; i < n; i++)
				out[i] = tmp[i] < out[i] ? tmp[i] : out[i];
		else
			for (int64_t i = 0; i < n; i++)
				out[i] = tmp[i] > out[i] ? tmp[i] : out[i];
	}
	pm_free(tmp);
	return rc;
}

int pm_pred_eval_batch(const pm_predicate *p, const struct ArrowSchema *s, const struct ArrowArray *a, uint8_t *sel)
{
	if (!s || !a || !s->format || strcmp(s->format, "+s"))
		return pm_err(PAIMON_EINVAL, "predicate evaluation needs a struct batch");
	if (!p) {
		memset(sel, 1, (size_t)a->length);
		return 0;
	}
	int rc = eval_rec(p, s, a, sel, 0);
	if (rc)
		return rc;
	for (int64_t i = 0; i < a->length; i++)
		sel[i] = sel[i] == RT;
	return 0;
}
