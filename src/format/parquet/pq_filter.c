/*
 * format/parquet/pm_pq_filter.c - statistics-based pruning predicates (see
 * pm_pq_filter.h for the semantics).
 */
#include "format/parquet/pq_filter.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/mem.h"

#define T_ PM_PQF_T
#define F_ PM_PQF_F
#define N_ PM_PQF_N
#define ALL_ (T_ | F_ | N_)

/* Comparison kinds. */
enum { CK_NONE, CK_I64, CK_U64, CK_F64, CK_BYTES, CK_DEC };

#ifdef __SIZEOF_INT128__
typedef __int128 pm_pq_i128;
#define PQ_HAVE_I128 1
#else
typedef int64_t pm_pq_i128;
#define PQ_HAVE_I128 0
#endif

typedef struct flit {
	int64_t i;    /* CK_I64; CK_U64 as the same bits */
	double d;     /* CK_F64 */
	const uint8_t *p; /* CK_BYTES */
	size_t len;
	pm_pq_i128 dec;  /* CK_DEC */
} flit;

/* Parse results: 0 ok, 1 not representable exactly (the leaf never
 * prunes), -1 syntax (binding fails). */

/* A decimal literal before rescaling: |value| = mag * 10^-eff. */
typedef struct dnum {
	int8_t rc;    /* 1: more than 36 significant digits, -1: syntax */
	bool neg;
	bool big_ex;  /* exponent beyond +-100 */
	int eff;
	pm_pq_i128 mag;
} dnum;

/* A text literal read once, at construction, in every way a column may
 * want it (the text rules of pq_filter.h). */
typedef struct tlit {
	int8_t i_rc, u_rc, d_rc, b_rc;
	bool b;
	int64_t i;
	uint64_t u;
	double d;
	dnum dec;
} tlit;

/* One literal of a leaf: typed (v) or text (PQL_TEXT). Text and bytes
 * are owned in raw (NUL-terminated). A typed literal bound to a column
 * whose physical type it does not fit is read through its canonical
 * text: raw and t are then made on first need. */
#define PQL_TEXT (-1)
typedef struct plit {
	int kind;
	pm_pq_lit lit;
	uint8_t *raw;
	size_t len;
	tlit *t;
} plit;

struct paimon_parquet_filter {
	int op;
	char *column;
	plit *in;
	size_t n_lits;
	pm_pq_filter **kids;
	size_t n_kids;
	/* bound */
	int leaf;
	int ck;
	int ptype;
	bool unknown;     /* literal not usable: the leaf never prunes */
	bool optional;
	bool legacy_ok;   /* legacy min/max are in this column's order */
	flit *lits;
};

/* ------------------------------------------------------------ text rules */

/* Decimal text, the part that does not depend on the column's scale. */
static void parse_dnum(const char *s, dnum *o)
{
	pm_pq_i128 v = 0;
	int frac = 0, digits = 0;
	long ex = 0;
	bool dot = false;
	memset(o, 0, sizeof *o);
	if (*s == '-' || *s == '+')
		o->neg = *s++ == '-';
	for (; *s; s++) {
		if (*s == '.' && !dot) {
			dot = true;
			continue;
		}
		if (*s < '0' || *s > '9')
			break;
		if (digits || *s != '0')
			digits++;
		if (digits > 36) {
			o->rc = 1;
			return;
		}
		v = v * 10 + (*s - '0');
		if (dot)
			frac++;
	}
	if (*s == 'e' || *s == 'E') {
		char *end;
		errno = 0;
		ex = strtol(s + 1, &end, 10);
		if (errno || end == s + 1 || *end) {
			o->rc = -1;
			return;
		}
		s = end;
	}
	if (*s) {
		o->rc = -1;
		return;
	}
	o->big_ex = ex > 100 || ex < -100;
	o->eff = o->big_ex ? 0 : frac - (int)ex;
	o->mag = v;
}

/* The unscaled value of a decimal literal at scale. */
static int dnum_at(const dnum *n, int scale, pm_pq_i128 *out)
{
	const pm_pq_i128 lim = PQ_HAVE_I128 ? (pm_pq_i128)1000000000000000000LL * (pm_pq_i128)1000000000000000000LL : 0;
	pm_pq_i128 v = n->mag;
	int eff = n->eff;
	if (n->rc)
		return n->rc;
	if (n->big_ex || scale < 0 || scale > 76)
		return 1;
	for (; eff < scale; eff++) {
		if (v > lim)
			return 1;
		v *= 10;
	}
	for (; eff > scale; eff--) {
		if (v % 10)
			return 1;
		v /= 10;
	}
	*out = n->neg ? -v : v;
	return 0;
}

static void parse_text(const uint8_t *raw, size_t len, tlit *t)
{
	const char *s = (const char *)raw;
	char *end;
	memset(t, 0, sizeof *t);
	if (strlen(s) != len || !*s) {
		t->i_rc = t->u_rc = t->d_rc = t->b_rc = t->dec.rc = -1;
		return;
	}
	if (!strcmp(s, "true") || !strcmp(s, "1") || !strcmp(s, "True"))
		t->b = true;
	else if (!(!strcmp(s, "false") || !strcmp(s, "0") || !strcmp(s, "False")))
		t->b_rc = -1;
	errno = 0;
	t->i = strtoll(s, &end, 10);
	t->i_rc = errno == ERANGE ? 1 : *end ? -1 : 0;
	errno = 0;
	if (*s == '-') {
		t->u_rc = strtoll(s, &end, 10) < 0 && !*end ? 1 : -1;
	} else {
		t->u = strtoull(s, &end, 10);
		t->u_rc = errno == ERANGE ? 1 : *end ? -1 : 0;
	}
	t->d = strtod(s, &end);
	t->d_rc = *end ? -1 : isnan(t->d) ? 1 : 0;
	parse_dnum(s, &t->dec);
}

/* ------------------------------------------------------------ building */

static void free_lits(plit *in, size_t n)
{
	size_t i;
	for (i = 0; in && i < n; i++) {
		pm_free(in[i].raw);
		pm_free(in[i].t);
	}
	pm_free(in);
}

void pm_pq_filter_free(pm_pq_filter *f)
{
	size_t i;
	if (!f)
		return;
	free_lits(f->in, f->n_lits);
	for (i = 0; i < f->n_kids; i++)
		pm_pq_filter_free(f->kids[i]);
	pm_free(f->kids);
	pm_free(f->column);
	pm_free(f->lits);
	pm_free(f);
}

static uint8_t *copy_bytes(const void *p, size_t n)
{
	uint8_t *r = pm_malloc(n + 1);
	if (!r)
		return NULL;
	if (n)
		memcpy(r, p, n);
	r[n] = 0;
	return r;
}

/* A leaf without literals yet: checks the column, operator and count. */
static int new_leaf(pm_pq_filter **out, const char *column, int op, size_t n)
{
	pm_pq_filter *f;
	size_t need;
	*out = NULL;
	if (!column)
		return pm_err(PAIMON_EINVAL, "filter: NULL column name");
	if (op < PM_PQF_EQ || op > PM_PQF_STARTS_WITH)
		return pm_err(PAIMON_EINVAL, "filter: unknown operator %d", op);
	need = op == PM_PQF_IS_NULL || op == PM_PQF_IS_NOT_NULL ? 0 : op == PM_PQF_IN || op == PM_PQF_NOT_IN ? n : 1;
	if (n != need)
		return pm_err(PAIMON_EINVAL, "filter on '%s': operator %d takes %zu value(s), got %zu", column, op,
			      need, n);
	if (!(f = pm_calloc(1, sizeof *f)))
		return PAIMON_ENOMEM;
	f->op = op;
	f->leaf = -1;
	if (!(f->column = pm_strdup(column)) || !(f->in = pm_calloc(n + 1, sizeof *f->in))) {
		pm_pq_filter_free(f);
		return PAIMON_ENOMEM;
	}
	*out = f;
	return 0;
}

int pm_pq_filter_leaf(pm_pq_filter **out, const char *column, int op, const void *const *vals,
		      const size_t *lens, size_t n)
{
	pm_pq_filter *f;
	size_t i;
	int rc = new_leaf(&f, column, op, n);
	*out = NULL;
	if (rc)
		return rc;
	if (n && (!vals || !lens)) {
		pm_pq_filter_free(f);
		return pm_err(PAIMON_EINVAL, "filter on '%s': NULL values", column);
	}
	for (i = 0; i < n; i++) {
		plit *l = &f->in[i];
		if (!vals[i] && lens[i]) {
			pm_pq_filter_free(f);
			return pm_err(PAIMON_EINVAL, "filter on '%s': NULL value", column);
		}
		l->kind = PQL_TEXT;
		if (!(l->raw = copy_bytes(vals[i], lens[i])) || !(l->t = pm_malloc(sizeof *l->t))) {
			f->n_lits = i + 1;
			pm_pq_filter_free(f);
			return PAIMON_ENOMEM;
		}
		l->len = lens[i];
		parse_text(l->raw, l->len, l->t);
		f->n_lits = i + 1;
	}
	*out = f;
	return 0;
}

int pm_pq_filter_leaf_typed(pm_pq_filter **out, const char *column, int op, const pm_pq_lit *vals, size_t n)
{
	pm_pq_filter *f;
	size_t i;
	int rc = new_leaf(&f, column, op, n);
	*out = NULL;
	if (rc)
		return rc;
	if (n && !vals) {
		pm_pq_filter_free(f);
		return pm_err(PAIMON_EINVAL, "filter on '%s': NULL values", column);
	}
	for (i = 0; i < n; i++) {
		plit *l = &f->in[i];
		if (vals[i].kind < PM_PQL_BOOL || vals[i].kind > PM_PQL_BYTES ||
		    (vals[i].kind == PM_PQL_BYTES && !vals[i].v.bytes.p && vals[i].v.bytes.len) ||
		    (vals[i].kind == PM_PQL_DECIMAL && (vals[i].scale < 0 || vals[i].scale > 76))) {
			pm_pq_filter_free(f);
			return pm_err(PAIMON_EINVAL, "filter on '%s': bad typed value", column);
		}
		l->kind = vals[i].kind;
		l->lit = vals[i];
		f->n_lits = i + 1;
		if (l->kind == PM_PQL_BYTES) {
			if (!(l->raw = copy_bytes(vals[i].v.bytes.p, vals[i].v.bytes.len))) {
				pm_pq_filter_free(f);
				return PAIMON_ENOMEM;
			}
			l->len = vals[i].v.bytes.len;
			l->lit.v.bytes.p = l->raw;
		}
	}
	*out = f;
	return 0;
}

int pm_pq_filter_combine(pm_pq_filter **out, int op, pm_pq_filter **kids, size_t n)
{
	pm_pq_filter *f;
	size_t i;
	*out = NULL;
	if ((op != PM_PQF_AND && op != PM_PQF_OR) || (n && !kids)) {
		for (i = 0; kids && i < n; i++)
			pm_pq_filter_free(kids[i]);
		return pm_err(PAIMON_EINVAL, "filter: bad AND/OR node");
	}
	for (i = 0; i < n; i++)
		if (!kids[i]) {
			size_t j;
			for (j = 0; j < n; j++)
				pm_pq_filter_free(kids[j]);
			return pm_err(PAIMON_EINVAL, "filter: NULL operand of AND/OR");
		}
	if (!(f = pm_calloc(1, sizeof *f)) || !(f->kids = pm_calloc(n + 1, sizeof *f->kids))) {
		pm_free(f);
		for (i = 0; i < n; i++)
			pm_pq_filter_free(kids[i]);
		return PAIMON_ENOMEM;
	}
	f->op = op;
	f->leaf = -1;
	for (i = 0; i < n; i++)
		f->kids[i] = kids[i];
	f->n_kids = n;
	*out = f;
	return 0;
}

int pm_pq_filter_not(pm_pq_filter **out, pm_pq_filter *a)
{
	int rc = pm_pq_filter_combine(out, PM_PQF_AND, &a, 1);
	if (!rc)
		(*out)->op = PM_PQF_NOT;
	return rc;
}

/* ------------------------------------------------------------ binding */

static bool is_decimal(const pm_pq_schema_element *e)
{
	return e->logical.kind == PM_PQ_LT_DECIMAL || (e->has_converted_type && e->converted_type == PM_PQ_CT_DECIMAL);
}

static int decimal_scale(const pm_pq_schema_element *e)
{
	if (e->logical.kind == PM_PQ_LT_DECIMAL)
		return e->logical.scale;
	return e->has_scale ? e->scale : 0;
}

/* A literal read by the text rules (pq_filter.h) for the bound column. */
static int from_text(const pm_pq_filter *f, const pm_pq_schema_element *e, const plit *l, flit *o)
{
	const tlit *t = l->t;
	pm_pq_i128 v;
	int rc;
	switch (f->ck) {
	case CK_BYTES:
		o->p = l->raw;
		o->len = l->len;
		return 0;
	case CK_I64:
		if (e->type == PM_PQ_BOOLEAN) {
			o->i = t->b;
			return t->b_rc;
		}
		if (is_decimal(e)) {
			if ((rc = dnum_at(&t->dec, decimal_scale(e), &v)))
				return rc;
			if (v > INT64_MAX || v < INT64_MIN)
				return 1;
			o->i = (int64_t)v;
			return 0;
		}
		o->i = t->i;
		return t->i_rc;
	case CK_U64:
		o->i = (int64_t)t->u;
		return t->u_rc;
	case CK_F64:
		o->d = t->d;
		return t->d_rc;
	case CK_DEC:
		return dnum_at(&t->dec, decimal_scale(e), &o->dec);
	default:
		return 1;
	}
}

/* A typed integer or decimal as the text rules' decimal form. */
static void typed_dnum(const pm_pq_lit *x, dnum *o)
{
	unsigned __int128 u;
	memset(o, 0, sizeof *o);
	if (x->kind == PM_PQL_INT) {
		o->neg = x->v.i < 0;
		o->mag = o->neg ? -(pm_pq_i128)x->v.i : (pm_pq_i128)x->v.i;
		return;
	}
	u = (unsigned __int128)x->v.dec.hi << 64 | x->v.dec.lo;
	o->neg = (x->v.dec.hi < 0);
	if (o->neg)
		u = (unsigned __int128)0 - u;
	/* the text rules read at most 36 significant digits */
	if (u >= (unsigned __int128)1000000000000000000ULL * (unsigned __int128)1000000000000000000ULL) {
		o->rc = 1;
		return;
	}
	o->mag = (pm_pq_i128)u;
	o->eff = x->scale;
}

/* Canonical text of a typed literal (what the text rules read back as
 * the same value), for a column its kind does not fit. */
static int render(plit *l)
{
	char tmp[128];
	const pm_pq_lit *x = &l->lit;
	if (!l->raw) {
		if (x->kind == PM_PQL_BOOL) {
			snprintf(tmp, sizeof tmp, "%s", x->v.b ? "true" : "false");
		} else if (x->kind == PM_PQL_INT) {
			snprintf(tmp, sizeof tmp, "%lld", (long long)x->v.i);
		} else if (x->kind == PM_PQL_DOUBLE) {
			double d = x->v.d;
			int prec;
			if (isnan(d))
				snprintf(tmp, sizeof tmp, "nan");
			else if (isinf(d))
				snprintf(tmp, sizeof tmp, "%s", d < 0 ? "-inf" : "inf");
			else
				for (prec = 1; prec <= 17; prec++) {
					snprintf(tmp, sizeof tmp, "%.*g", prec, d);
					if (strtod(tmp, NULL) == d)
						break;
				}
		} else { /* DECIMAL */
			unsigned __int128 u = (unsigned __int128)x->v.dec.hi << 64 | x->v.dec.lo;
			char rev[96];
			int n = 0, k, m = 0;
			bool neg = x->v.dec.hi < 0;
			if (neg)
				u = (unsigned __int128)0 - u;
			do {
				rev[n++] = (char)('0' + (int)(u % 10));
				u /= 10;
			} while (u);
			while (n <= x->scale && n < (int)sizeof rev)
				rev[n++] = '0';
			if (neg)
				tmp[m++] = '-';
			for (k = n - 1; k >= 0; k--) {
				tmp[m++] = rev[k];
				if (k == x->scale && x->scale > 0)
					tmp[m++] = '.';
			}
			tmp[m] = 0;
		}
		if (!(l->raw = copy_bytes(tmp, strlen(tmp))))
			return PAIMON_ENOMEM;
		l->len = strlen(tmp);
	}
	if (!l->t) {
		if (!(l->t = pm_malloc(sizeof *l->t)))
			return PAIMON_ENOMEM;
		parse_text(l->raw, l->len, l->t);
	}
	return 0;
}

/* A literal for the bound column: typed values in the column's physical
 * domain directly, everything else by the text rules. */
static int conv_lit(const pm_pq_filter *f, const pm_pq_schema_element *e, plit *l, flit *o, int *rc)
{
	const pm_pq_lit *x = &l->lit;
	int k = l->kind;
	pm_pq_i128 v;
	dnum dn;
	*rc = 0;
	if (k == PQL_TEXT)
		return from_text(f, e, l, o);
	switch (f->ck) {
	case CK_BYTES:
		if (k == PM_PQL_BYTES) {
			o->p = l->raw;
			o->len = l->len;
			return 0;
		}
		break;
	case CK_I64:
		if (e->type == PM_PQ_BOOLEAN) {
			if (k == PM_PQL_BOOL || (k == PM_PQL_INT && (x->v.i == 0 || x->v.i == 1))) {
				o->i = k == PM_PQL_BOOL ? x->v.b : x->v.i;
				return 0;
			}
			break;
		}
		if (is_decimal(e)) {
			int r;
			if (k != PM_PQL_INT && k != PM_PQL_DECIMAL)
				break;
			typed_dnum(x, &dn);
			if ((r = dnum_at(&dn, decimal_scale(e), &v)))
				return r;
			if (v > INT64_MAX || v < INT64_MIN)
				return 1;
			o->i = (int64_t)v;
			return 0;
		}
		if (k == PM_PQL_INT) {
			o->i = x->v.i;
			return 0;
		}
		break;
	case CK_U64:
		if (k == PM_PQL_INT) {
			o->i = x->v.i;
			return x->v.i < 0 ? 1 : 0;
		}
		break;
	case CK_F64:
		if (k == PM_PQL_INT) {
			o->d = (double)x->v.i;
			return 0;
		}
		if (k == PM_PQL_DOUBLE) {
			o->d = x->v.d;
			return isnan(o->d) ? 1 : 0;
		}
		break;
	case CK_DEC:
		if (k == PM_PQL_INT || k == PM_PQL_DECIMAL) {
			typed_dnum(x, &dn);
			return dnum_at(&dn, decimal_scale(e), &o->dec);
		}
		break;
	default:
		return 1;
	}
	/* the physical type does not fit the kind: its canonical text */
	if ((*rc = render(l)))
		return 0;
	return from_text(f, e, l, o);
}

static int bind_leaf(pm_pq_filter *f, const pm_pq_schema *s)
{
	size_t i, k;
	const pm_pq_schema_node *n = NULL;
	const pm_pq_schema_element *e;
	for (i = 0; i < s->n_nodes && !n; i++) {
		const pm_pq_schema_node *c = &s->nodes[i];
		const char *p = f->column;
		int d;
		if (!c->depth)
			continue;
		for (d = 0; d < c->depth; d++) {
			size_t l = strlen(c->path[d]);
			if (strncmp(p, c->path[d], l))
				break;
			p += l;
			if (d + 1 < c->depth) {
				if (*p != '.')
					break;
				p++;
			}
		}
		if (d == c->depth && !*p)
			n = c;
	}
	if (!n)
		return pm_err(PAIMON_EINVAL, "filter: no column '%s'", f->column);
	if (n->leaf_index < 0 || n->max_rep_level > 0)
		return pm_err(PAIMON_EINVAL, "filter: column '%s' is not a primitive, non-repeated column", f->column);
	e = n->elem;
	f->leaf = n->leaf_index;
	f->optional = n->max_def_level > 0;
	f->ptype = e->type;
	f->unknown = false;
	f->legacy_ok = false;
	switch (e->type) {
	case PM_PQ_BOOLEAN:
		f->ck = CK_I64;
		f->legacy_ok = true;
		break;
	case PM_PQ_INT32:
	case PM_PQ_INT64:
		if (!is_decimal(e) && ((e->logical.kind == PM_PQ_LT_INTEGER && !e->logical.is_signed) ||
				       (e->has_converted_type && e->converted_type >= PM_PQ_CT_UINT_8 &&
					e->converted_type <= PM_PQ_CT_UINT_64))) {
			f->ck = CK_U64;
		} else {
			f->ck = CK_I64;
			f->legacy_ok = true;
		}
		break;
	case PM_PQ_FLOAT:
	case PM_PQ_DOUBLE:
		f->ck = CK_F64;
		f->legacy_ok = true;
		break;
	case PM_PQ_BYTE_ARRAY:
	case PM_PQ_FIXED_LEN_BYTE_ARRAY:
		if (is_decimal(e))
			f->ck = PQ_HAVE_I128 ? CK_DEC : CK_NONE;
		else if (e->logical.kind == PM_PQ_LT_FLOAT16 ||
			 (e->has_converted_type && e->converted_type == PM_PQ_CT_INTERVAL))
			f->ck = CK_NONE;
		else
			f->ck = CK_BYTES;
		break;
	default: /* INT96: no usable order */
		f->ck = CK_NONE;
	}
	if (f->op == PM_PQF_STARTS_WITH && f->ck != CK_BYTES)
		f->ck = CK_NONE;
	if (f->ck == CK_NONE)
		f->unknown = true;
	pm_free(f->lits);
	if (!(f->lits = pm_calloc(f->n_lits + 1, sizeof *f->lits)))
		return PAIMON_ENOMEM;
	for (k = 0; k < f->n_lits && !f->unknown; k++) {
		int mrc, rc = conv_lit(f, e, &f->in[k], &f->lits[k], &mrc);
		if (mrc)
			return mrc;
		if (rc < 0)
			return pm_err(PAIMON_EINVAL, "filter on '%s': cannot parse '%s' as the column's type", f->column,
				      f->in[k].raw ? (const char *)f->in[k].raw : "?");
		if (rc > 0)
			f->unknown = true; /* not representable exactly: never prune on it */
	}
	return 0;
}

int pm_pq_filter_bind(pm_pq_filter *f, const pm_pq_schema *s)
{
	size_t i;
	int rc;
	if (f->op >= PM_PQF_AND) {
		for (i = 0; i < f->n_kids; i++)
			if ((rc = pm_pq_filter_bind(f->kids[i], s)))
				return rc;
		return 0;
	}
	return bind_leaf(f, s);
}

size_t pm_pq_filter_leaves(const pm_pq_filter *f, int *out, size_t cap)
{
	size_t i, n = 0;
	if (f->op < PM_PQF_AND) {
		if (cap)
			out[0] = f->leaf;
		return 1;
	}
	for (i = 0; i < f->n_kids; i++)
		n += pm_pq_filter_leaves(f->kids[i], out ? out + (n < cap ? n : cap) : NULL, out && n < cap ? cap - n : 0);
	return n;
}

/* ------------------------------------------------------------ evaluation */

static int cmp(int ck, const flit *a, const flit *b)
{
	switch (ck) {
	case CK_I64:
		return a->i < b->i ? -1 : a->i > b->i;
	case CK_U64:
		return (uint64_t)a->i < (uint64_t)b->i ? -1 : (uint64_t)a->i > (uint64_t)b->i;
	case CK_F64:
		return a->d < b->d ? -1 : a->d > b->d;
	case CK_DEC:
		return a->dec < b->dec ? -1 : a->dec > b->dec;
	default: {
		size_t m = a->len < b->len ? a->len : b->len;
		int c = m ? memcmp(a->p, b->p, m) : 0;
		if (c)
			return c < 0 ? -1 : 1;
		return a->len < b->len ? -1 : a->len > b->len;
	}
	}
}

/* A statistics value in the column's order; false when unusable. */
static bool decode_stat(const pm_pq_filter *f, const pm_pq_bin *b, flit *o)
{
	const uint8_t *p = b->p;
	memset(o, 0, sizeof *o);
	if (!b->set || (!p && b->len))
		return false;
	switch (f->ck) {
	case CK_I64:
	case CK_U64:
		if (f->ptype == PM_PQ_BOOLEAN && b->len == 1) {
			o->i = p[0] & 1;
		} else if (f->ptype == PM_PQ_INT32 && b->len == 4) {
			uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
			o->i = f->ck == CK_U64 ? (int64_t)u : (int64_t)(int32_t)u;
		} else if (f->ptype == PM_PQ_INT64 && b->len == 8) {
			uint64_t u = 0;
			int k;
			for (k = 7; k >= 0; k--)
				u = u << 8 | p[k];
			o->i = (int64_t)u;
		} else {
			return false;
		}
		return true;
	case CK_F64:
		if (f->ptype == PM_PQ_FLOAT && b->len == 4) {
			float x;
			memcpy(&x, p, 4);
			o->d = x;
		} else if (f->ptype == PM_PQ_DOUBLE && b->len == 8) {
			memcpy(&o->d, p, 8);
		} else {
			return false;
		}
		return !isnan(o->d);
	case CK_BYTES:
		o->p = p;
		o->len = b->len;
		return true;
	case CK_DEC: {
		size_t k;
		pm_pq_i128 v;
		if (!b->len || b->len > 16)
			return false;
		v = (p[0] & 0x80) ? -1 : 0;
		for (k = 0; k < b->len; k++)
			v = (pm_pq_i128)((unsigned __int128)v << 8 | p[k]);
		o->dec = v;
		return true;
	}
	default:
		return false;
	}
}

typedef struct sinfo {
	bool may_null, may_nonnull, may_nan, bounds;
	flit lo, hi;
} sinfo;

static void stats_info(const pm_pq_filter *f, const pm_pq_file_meta *fm, const pm_pq_statistics *st, int64_t rows,
		       sinfo *si)
{
	memset(si, 0, sizeof *si);
	si->may_null = f->optional && rows > 0;
	si->may_nonnull = rows > 0;
	si->may_nan = f->ck == CK_F64;
	if (!st || rows <= 0)
		return;
	if (st->has_null_count && st->null_count >= 0 && st->null_count <= rows) {
		si->may_null = st->null_count > 0;
		si->may_nonnull = st->null_count < rows;
	}
	if (f->ck == CK_F64 && st->has_nan_count && st->nan_count == 0)
		si->may_nan = false;
	if (f->ck == CK_NONE)
		return;
	if (st->min_value.set && st->max_value.set) {
		/* Only the type-defined order gives these fields a meaning we know. */
		if (fm && f->leaf >= 0 && (size_t)f->leaf < fm->n_column_orders &&
		    fm->column_orders[f->leaf].kind != PM_PQ_ORDER_TYPE_DEFINED)
			return;
		si->bounds = decode_stat(f, &st->min_value, &si->lo) && decode_stat(f, &st->max_value, &si->hi);
	} else if (st->min.set && st->max.set && f->legacy_ok) {
		/* Legacy fields: signed order, which is this column's order. */
		si->bounds = decode_stat(f, &st->min, &si->lo) && decode_stat(f, &st->max, &si->hi);
	}
	if (si->bounds && cmp(f->ck, &si->lo, &si->hi) > 0)
		si->bounds = false; /* inconsistent: ignore */
}

static bool starts_with(const flit *v, const flit *p)
{
	return v->len >= p->len && (!p->len || !memcmp(v->p, p->p, p->len));
}

static unsigned leaf_eval(const pm_pq_filter *f, const sinfo *si)
{
	unsigned r;
	const flit *v = f->lits;
	bool t, fl, in_range, single;
	size_t k;
	if (f->op == PM_PQF_IS_NULL || f->op == PM_PQF_IS_NOT_NULL) {
		bool nulls = si->may_null, vals = si->may_nonnull;
		if (f->op == PM_PQF_IS_NOT_NULL) {
			bool x = nulls;
			nulls = vals;
			vals = x;
		}
		return (nulls ? T_ : 0u) | (vals ? F_ : 0u);
	}
	r = si->may_null ? N_ : 0u;
	if (!si->may_nonnull)
		return r;
	if (f->unknown || !si->bounds)
		return r | T_ | F_;
	if (si->may_nan) /* NaN compares false, except <> and NOT IN */
		r |= f->op == PM_PQF_NE || f->op == PM_PQF_NOT_IN ? T_ : F_;
	single = cmp(f->ck, &si->lo, &si->hi) == 0;
	switch (f->op) {
	case PM_PQF_EQ:
	case PM_PQF_NE:
		in_range = cmp(f->ck, &si->lo, v) <= 0 && cmp(f->ck, v, &si->hi) <= 0;
		t = in_range;
		fl = !(single && cmp(f->ck, &si->lo, v) == 0);
		break;
	case PM_PQF_LT:
		t = cmp(f->ck, &si->lo, v) < 0;
		fl = cmp(f->ck, &si->hi, v) >= 0;
		break;
	case PM_PQF_LE:
		t = cmp(f->ck, &si->lo, v) <= 0;
		fl = cmp(f->ck, &si->hi, v) > 0;
		break;
	case PM_PQF_GT:
		t = cmp(f->ck, &si->hi, v) > 0;
		fl = cmp(f->ck, &si->lo, v) <= 0;
		break;
	case PM_PQF_GE:
		t = cmp(f->ck, &si->hi, v) >= 0;
		fl = cmp(f->ck, &si->lo, v) < 0;
		break;
	case PM_PQF_IN:
	case PM_PQF_NOT_IN:
		t = false;
		fl = true;
		for (k = 0; k < f->n_lits; k++) {
			if (cmp(f->ck, &si->lo, &v[k]) <= 0 && cmp(f->ck, &v[k], &si->hi) <= 0)
				t = true;
			if (single && cmp(f->ck, &si->lo, &v[k]) == 0)
				fl = false;
		}
		break;
	case PM_PQF_STARTS_WITH: {
		/* Values with the prefix lie in [p, p + 0xff...]: none when max < p
		 * or min's first |p| bytes sort after p. */
		flit head = si->lo;
		if (head.len > v->len)
			head.len = v->len;
		t = cmp(CK_BYTES, &si->hi, v) >= 0 && cmp(CK_BYTES, &head, v) <= 0;
		fl = !(starts_with(&si->lo, v) && starts_with(&si->hi, v));
		break;
	}
	default:
		return ALL_;
	}
	if (f->op == PM_PQF_NE || f->op == PM_PQF_NOT_IN) {
		bool x = t;
		t = fl;
		fl = x;
	}
	return r | (t ? T_ : 0u) | (fl ? F_ : 0u);
}

static unsigned and2(unsigned a, unsigned b)
{
	unsigned r = 0;
	if (!a || !b)
		return 0;
	if ((a & T_) && (b & T_))
		r |= T_;
	if ((a & F_) || (b & F_))
		r |= F_;
	if (((a & N_) && (b & (T_ | N_))) || ((b & N_) && (a & (T_ | N_))))
		r |= N_;
	return r;
}

static unsigned or2(unsigned a, unsigned b)
{
	unsigned r = 0;
	if (!a || !b)
		return 0;
	if ((a & T_) || (b & T_))
		r |= T_;
	if ((a & F_) && (b & F_))
		r |= F_;
	if (((a & N_) && (b & (F_ | N_))) || ((b & N_) && (a & (F_ | N_))))
		r |= N_;
	return r;
}

static unsigned not1(unsigned a)
{
	return (a & N_) | ((a & T_) ? F_ : 0u) | ((a & F_) ? T_ : 0u);
}

typedef struct ectx {
	const pm_pq_file_meta *fm;
	int rg;                     /* >= 0: chunk statistics of this row group */
	int leaf;                   /* rg < 0: statistics st for this leaf */
	const pm_pq_statistics *st;
	int64_t rows;
} ectx;

static unsigned eval(const pm_pq_filter *f, const ectx *x)
{
	size_t i;
	unsigned r;
	if (f->op == PM_PQF_NOT)
		return f->n_kids ? not1(eval(f->kids[0], x)) : ALL_;
	if (f->op == PM_PQF_AND || f->op == PM_PQF_OR) {
		/* Empty AND is TRUE, empty OR is FALSE. */
		r = f->op == PM_PQF_AND ? T_ : F_;
		for (i = 0; i < f->n_kids; i++)
			r = f->op == PM_PQF_AND ? and2(r, eval(f->kids[i], x)) : or2(r, eval(f->kids[i], x));
		return r;
	}
	if (f->leaf < 0)
		return ALL_;
	{
		sinfo si;
		const pm_pq_statistics *st = NULL;
		if (x->rg >= 0) {
			const pm_pq_row_group *g = &x->fm->row_groups[x->rg];
			const pm_pq_column_chunk *cc;
			if ((size_t)f->leaf >= g->n_columns)
				return ALL_;
			cc = &g->columns[f->leaf];
			if (cc->has_meta_data && cc->meta_data.has_statistics)
				st = &cc->meta_data.statistics;
		} else if (f->leaf == x->leaf) {
			st = x->st;
		} else {
			return x->rows > 0 ? ALL_ : 0u;
		}
		stats_info(f, x->fm, st, x->rows, &si);
		return leaf_eval(f, &si);
	}
}

unsigned pm_pq_filter_eval_rg(const pm_pq_filter *f, const pm_pq_file_meta *fm, int rg)
{
	ectx x;
	memset(&x, 0, sizeof x);
	x.fm = fm;
	x.rg = rg;
	x.leaf = -1;
	x.rows = fm->row_groups[rg].num_rows;
	return eval(f, &x);
}

unsigned pm_pq_filter_eval_stats(const pm_pq_filter *f, const pm_pq_file_meta *fm, int leaf,
				 const pm_pq_statistics *st, int64_t rows)
{
	ectx x;
	memset(&x, 0, sizeof x);
	x.fm = fm;
	x.rg = -1;
	x.leaf = leaf;
	x.st = st;
	x.rows = rows;
	return eval(f, &x);
}

/* ------------------------------------------------------------ pages */

typedef struct segs {
	pm_pq_fseg *v;
	size_t n, cap;
} segs;

static int seg_push(segs *s, int64_t a, int64_t b, unsigned m)
{
	if (b <= a)
		return 0;
	if (s->n && s->v[s->n - 1].mask == m && s->v[s->n - 1].end == a) {
		s->v[s->n - 1].end = b;
		return 0;
	}
	if (s->n == s->cap) {
		size_t nc = s->cap ? 2 * s->cap : 8;
		pm_pq_fseg *p = pm_realloc(s->v, nc * sizeof *p);
		if (!p)
			return PAIMON_ENOMEM;
		s->v = p;
		s->cap = nc;
	}
	s->v[s->n].start = a;
	s->v[s->n].end = b;
	s->v[s->n].mask = m;
	s->n++;
	return 0;
}

typedef struct pctx {
	const pm_pq_file_meta *fm;
	int rg;
	int64_t rows;
	const pm_pq_fpages *pages;
} pctx;

static bool pages_usable(const pm_pq_fpages *p, int64_t rows)
{
	size_t i;
	if (!p->ci || !p->oi || !p->oi->n_page_locations || p->ci->n_pages != p->oi->n_page_locations ||
	    p->oi->page_locations[0].first_row_index != 0)
		return false;
	if (p->ci->null_counts && p->ci->n_null_counts != p->ci->n_pages)
		return false;
	for (i = 0; i < p->oi->n_page_locations; i++) {
		int64_t a = p->oi->page_locations[i].first_row_index;
		int64_t b = i + 1 < p->oi->n_page_locations ? p->oi->page_locations[i + 1].first_row_index : rows;
		if (a < 0 || b <= a || b > rows)
			return false;
	}
	return true;
}

static int seg_leaf(const pm_pq_filter *f, const pctx *x, segs *out)
{
	const pm_pq_fpages *p = f->leaf >= 0 ? &x->pages[f->leaf] : NULL;
	size_t i;
	int rc;
	if (!p || !pages_usable(p, x->rows)) {
		ectx e;
		memset(&e, 0, sizeof e);
		e.fm = x->fm;
		e.rg = x->rg;
		e.leaf = -1;
		e.rows = x->rows;
		return seg_push(out, 0, x->rows, eval(f, &e));
	}
	for (i = 0; i < p->ci->n_pages; i++) {
		int64_t a = p->oi->page_locations[i].first_row_index;
		int64_t b = i + 1 < p->ci->n_pages ? p->oi->page_locations[i + 1].first_row_index : x->rows;
		pm_pq_statistics st;
		sinfo si;
		memset(&st, 0, sizeof st);
		if (p->ci->null_pages[i]) {
			st.has_null_count = true;
			st.null_count = b - a;
		} else {
			st.min_value = p->ci->min_values[i];
			st.max_value = p->ci->max_values[i];
			if (p->ci->null_counts) {
				st.has_null_count = true;
				st.null_count = p->ci->null_counts[i];
				if (st.null_count >= b - a)
					st.has_null_count = false; /* a non-null page must hold a value */
			}
		}
		/* Page row counts are rows of this (non-repeated) leaf: values. */
		stats_info(f, x->fm, &st, b - a, &si);
		if (!p->ci->null_pages[i] && !si.may_nonnull)
			si.may_nonnull = true;
		if ((rc = seg_push(out, a, b, leaf_eval(f, &si))))
			return rc;
	}
	return 0;
}

static int seg_eval(const pm_pq_filter *f, const pctx *x, segs *out)
{
	size_t i, k;
	int rc;
	if (f->op < PM_PQF_AND)
		return seg_leaf(f, x, out);
	if (f->op == PM_PQF_NOT) {
		if (!f->n_kids)
			return seg_push(out, 0, x->rows, ALL_);
		if ((rc = seg_eval(f->kids[0], x, out)))
			return rc;
		for (i = 0; i < out->n; i++)
			out->v[i].mask = not1(out->v[i].mask);
		return 0;
	}
	if ((rc = seg_push(out, 0, x->rows, f->op == PM_PQF_AND ? T_ : F_)))
		return rc;
	for (k = 0; k < f->n_kids; k++) {
		segs b = {0}, m = {0};
		size_t ia = 0, ib = 0;
		int64_t pos = 0;
		if ((rc = seg_eval(f->kids[k], x, &b))) {
			pm_free(b.v);
			return rc;
		}
		while (pos < x->rows && ia < out->n && ib < b.n) {
			int64_t end = out->v[ia].end < b.v[ib].end ? out->v[ia].end : b.v[ib].end;
			unsigned mk = f->op == PM_PQF_AND ? and2(out->v[ia].mask, b.v[ib].mask)
							  : or2(out->v[ia].mask, b.v[ib].mask);
			if ((rc = seg_push(&m, pos, end, mk))) {
				pm_free(b.v);
				pm_free(m.v);
				return rc;
			}
			pos = end;
			if (out->v[ia].end == end)
				ia++;
			if (b.v[ib].end == end)
				ib++;
		}
		pm_free(b.v);
		pm_free(out->v);
		*out = m;
	}
	return 0;
}

int pm_pq_filter_eval_pages(const pm_pq_filter *f, const pm_pq_file_meta *fm, int rg,
			    const pm_pq_fpages *pages, int64_t **ranges, size_t *n)
{
	pctx x;
	segs s = {0};
	size_t i, k = 0;
	int rc;
	*ranges = NULL;
	*n = 0;
	x.fm = fm;
	x.rg = rg;
	x.rows = fm->row_groups[rg].num_rows;
	x.pages = pages;
	if (x.rows <= 0)
		return 0;
	if ((rc = seg_eval(f, &x, &s))) {
		pm_free(s.v);
		return rc;
	}
	if (!(*ranges = pm_malloc((2 * s.n + 1) * sizeof **ranges))) {
		pm_free(s.v);
		return PAIMON_ENOMEM;
	}
	for (i = 0; i < s.n; i++) {
		if (!(s.v[i].mask & T_))
			continue;
		if (k && (*ranges)[2 * k - 1] == s.v[i].start) {
			(*ranges)[2 * k - 1] = s.v[i].end;
			continue;
		}
		(*ranges)[2 * k] = s.v[i].start;
		(*ranges)[2 * k + 1] = s.v[i].end;
		k++;
	}
	*n = k;
	pm_free(s.v);
	return 0;
}
