/*
 * table/predicate.c - predicate trees: construction, copy, column list,
 * binding to a table schema, the text form's printer and the byte form.
 * Parsing is in pred_parse.c, evaluation in pred_eval.c.
 */
#include "table/predicate.h"

#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "table/pred_internal.h"
#include "types/datum.h"

static const char *op_name(pm_pred_op op)
{
	switch (op) {
	case PM_PRED_EQ: return "=";
	case PM_PRED_NE: return "<>";
	case PM_PRED_LT: return "<";
	case PM_PRED_LE: return "<=";
	case PM_PRED_GT: return ">";
	case PM_PRED_GE: return ">=";
	case PM_PRED_IN: return "IN";
	case PM_PRED_NOT_IN: return "NOT IN";
	case PM_PRED_IS_NULL: return "IS NULL";
	case PM_PRED_IS_NOT_NULL: return "IS NOT NULL";
	case PM_PRED_STARTS_WITH: return "startsWith";
	case PM_PRED_ENDS_WITH: return "endsWith";
	case PM_PRED_CONTAINS: return "contains";
	case PM_PRED_AND: return "AND";
	case PM_PRED_OR: return "OR";
	case PM_PRED_NOT: return "NOT";
	}
	return "?";
}

static int valid_op(int op)
{
	return (op >= PM_PRED_EQ && op <= PM_PRED_CONTAINS) || op == PM_PRED_AND || op == PM_PRED_OR ||
	       op == PM_PRED_NOT;
}

void pm_pred_unbind(pm_predicate *p)
{
	if (!p || !p->bound)
		return;
	for (size_t i = 0; i < p->nlits; i++)
		pm_free(p->owned ? p->owned[i] : NULL);
	pm_free(p->owned);
	pm_free(p->vals);
	pm_type_free(p->type);
	p->owned = NULL;
	p->vals = NULL;
	p->type = NULL;
	p->bound = 0;
}

void pm_pred_free(pm_predicate *p)
{
	if (!p)
		return;
	pm_pred_unbind(p);
	for (size_t i = 0; i < p->nkids; i++)
		pm_pred_free(p->kids[i]);
	pm_free(p->kids);
	for (size_t i = 0; i < p->nlits; i++)
		pm_free(p->lits[i].p);
	pm_free(p->lits);
	pm_free(p->column);
	pm_free(p);
}

int pm_pred_leaf(pm_predicate **out, const char *column, pm_pred_op op, const char *const *literals,
		 const size_t *lens, size_t n)
{
	*out = NULL;
	if (!column || !*column)
		return pm_err(PAIMON_EINVAL, "predicate leaf needs a column name");
	if (!valid_op((int)op) || !pm_pred_is_leaf(op))
		return pm_err(PAIMON_EINVAL, "predicate on column '%s': %d is not a leaf operator", column, (int)op);
	int ar = pm_pred_op_arity(op);
	if (ar >= 0 && (size_t)ar != n)
		return pm_err(PAIMON_EINVAL, "predicate %s on column '%s' takes %d literal%s, got %zu", op_name(op), column,
			      ar, ar == 1 ? "" : "s", n);
	if (n && !literals)
		return pm_err(PAIMON_EINVAL, "predicate on column '%s': literals missing", column);
	if (ar == 1 && !literals[0])
		return pm_err(PAIMON_EINVAL, "predicate %s on column '%s': the literal must not be NULL (use IS NULL)",
			      op_name(op), column);
	pm_predicate *p = pm_calloc(1, sizeof *p);
	if (!p)
		return PAIMON_ENOMEM;
	p->op = op;
	if (!(p->column = pm_strdup(column)))
		goto nomem;
	if (n && !(p->lits = pm_calloc(n, sizeof *p->lits)))
		goto nomem;
	for (size_t i = 0; i < n; i++, p->nlits++) {
		if (!literals[i]) {
			p->lits[i].is_null = 1;
			continue;
		}
		size_t len = lens ? lens[i] : strlen(literals[i]);
		if (!(p->lits[i].p = pm_malloc(len + 1)))
			goto nomem;
		memcpy(p->lits[i].p, literals[i], len);
		p->lits[i].p[len] = 0;
		p->lits[i].n = len;
	}
	*out = p;
	return 0;
nomem:
	pm_pred_free(p);
	return PAIMON_ENOMEM;
}

int pm_pred_combine(pm_predicate **out, pm_pred_op op, pm_predicate **kids, size_t n)
{
	size_t i;
	*out = NULL;
	if ((op != PM_PRED_AND && op != PM_PRED_OR) || n == 0 || !kids) {
		for (i = 0; kids && i < n; i++)
			pm_pred_free(kids[i]);
		return pm_err(PAIMON_EINVAL, "predicate AND/OR needs an AND or OR operator and at least one child");
	}
	for (i = 0; i < n; i++)
		if (!kids[i]) {
			for (size_t j = 0; j < n; j++)
				pm_pred_free(kids[j]);
			return pm_err(PAIMON_EINVAL, "predicate %s: child %zu is NULL", op_name(op), i);
		}
	pm_predicate *p = pm_calloc(1, sizeof *p);
	pm_predicate **k = p ? pm_malloc(n * sizeof *k) : NULL;
	if (!k) {
		pm_free(p);
		for (i = 0; i < n; i++)
			pm_pred_free(kids[i]);
		return PAIMON_ENOMEM;
	}
	memcpy(k, kids, n * sizeof *k);
	p->op = op;
	p->kids = k;
	p->nkids = n;
	*out = p;
	return 0;
}

int pm_pred_not(pm_predicate **out, pm_predicate *a)
{
	*out = NULL;
	if (!a)
		return pm_err(PAIMON_EINVAL, "predicate NOT of nothing");
	pm_predicate *p = pm_calloc(1, sizeof *p);
	pm_predicate **k = p ? pm_malloc(sizeof *k) : NULL;
	if (!k) {
		pm_free(p);
		pm_pred_free(a);
		return PAIMON_ENOMEM;
	}
	k[0] = a;
	p->op = PM_PRED_NOT;
	p->kids = k;
	p->nkids = 1;
	*out = p;
	return 0;
}

static int copy_rec(const pm_predicate *p, pm_predicate **out, int depth)
{
	*out = NULL;
	if (depth > PM_PRED_MAX_DEPTH)
		return pm_err(PAIMON_EINVAL, "predicate nested deeper than %d", PM_PRED_MAX_DEPTH);
	if (pm_pred_is_leaf(p->op)) {
		const char **lits = p->nlits ? pm_calloc(p->nlits, sizeof *lits) : NULL;
		size_t *lens = p->nlits ? pm_calloc(p->nlits, sizeof *lens) : NULL;
		if (p->nlits && (!lits || !lens)) {
			pm_free(lits);
			pm_free(lens);
			return PAIMON_ENOMEM;
		}
		for (size_t i = 0; i < p->nlits; i++) {
			lits[i] = p->lits[i].is_null ? NULL : (const char *)p->lits[i].p;
			lens[i] = p->lits[i].n;
		}
		int rc = pm_pred_leaf(out, p->column, p->op, lits, lens, p->nlits);
		pm_free(lits);
		pm_free(lens);
		return rc;
	}
	pm_predicate **k = pm_calloc(p->nkids, sizeof *k);
	if (!k)
		return PAIMON_ENOMEM;
	int rc = 0;
	for (size_t i = 0; i < p->nkids && !rc; i++)
		rc = copy_rec(p->kids[i], &k[i], depth + 1);
	if (rc) {
		for (size_t i = 0; i < p->nkids; i++)
			pm_pred_free(k[i]);
		pm_free(k);
		return rc;
	}
	if (p->op == PM_PRED_NOT)
		rc = pm_pred_not(out, k[0]);
	else
		rc = pm_pred_combine(out, p->op, k, p->nkids);
	pm_free(k);
	return rc;
}

int pm_pred_copy(const pm_predicate *p, pm_predicate **out)
{
	return copy_rec(p, out, 0);
}

static int columns_rec(const pm_predicate *p, pm_strlist *out)
{
	if (pm_pred_is_leaf(p->op))
		return pm_strlist_find(out, p->column) >= 0 ? 0 : pm_strlist_push(out, p->column);
	for (size_t i = 0; i < p->nkids; i++) {
		int rc = columns_rec(p->kids[i], out);
		if (rc)
			return rc;
	}
	return 0;
}

int pm_pred_columns(const pm_predicate *p, pm_strlist *out)
{
	return columns_rec(p, out);
}

/* ------------------------------------------------------------------ bind */

static int is_string_type(const pm_type *t)
{
	return t->root == PM_CHAR || t->root == PM_VARCHAR;
}

static int bind_leaf(pm_predicate *p, const pm_table_schema *s)
{
	long idx = pm_schema_field_index(s, p->column);
	if (idx < 0)
		return pm_err(PAIMON_EINVAL, "predicate: no column '%s' in the table schema", p->column);
	const pm_field *f = &s->fields[idx];
	if (p->op != PM_PRED_IS_NULL && p->op != PM_PRED_IS_NOT_NULL) {
		if (!pm_datum_type_comparable(f->type)) {
			pm_buf b = PM_BUF_INIT;
			int rc = pm_type_to_string(f->type, &b);
			if (!rc)
				rc = pm_err(PAIMON_EINVAL, "predicate %s on column '%s': type %s cannot be compared",
					    op_name(p->op), p->column, pm_buf_cstr(&b));
			pm_buf_dispose(&b);
			return rc;
		}
		if ((p->op == PM_PRED_STARTS_WITH || p->op == PM_PRED_ENDS_WITH || p->op == PM_PRED_CONTAINS) &&
		    !is_string_type(f->type))
			return pm_err(PAIMON_EINVAL, "predicate %s on column '%s': only string columns", op_name(p->op),
				      p->column);
	}
	pm_type *t = pm_type_copy(f->type);
	pm_binrow_datum *vals = p->nlits ? pm_calloc(p->nlits, sizeof *vals) : NULL;
	uint8_t **owned = p->nlits ? pm_calloc(p->nlits, sizeof *owned) : NULL;
	int rc = 0;
	if (!t || (p->nlits && (!vals || !owned)))
		rc = PAIMON_ENOMEM;
	for (size_t i = 0; !rc && i < p->nlits; i++) {
		if (p->lits[i].is_null) {
			vals[i].is_null = 1;
			continue;
		}
		rc = pm_datum_from_text(t, (const char *)p->lits[i].p, p->lits[i].n, &vals[i], &owned[i]);
		if (rc)
			pm_err_wrap("predicate on column '%s'", p->column);
	}
	if (rc) {
		for (size_t i = 0; owned && i < p->nlits; i++)
			pm_free(owned[i]);
		pm_free(owned);
		pm_free(vals);
		pm_type_free(t);
		return rc;
	}
	pm_pred_unbind(p);
	p->type = t;
	p->vals = vals;
	p->owned = owned;
	p->field_id = f->id;
	p->field_index = idx;
	p->bound = 1;
	return 0;
}

static int bind_rec(pm_predicate *p, const pm_table_schema *s, int depth)
{
	if (depth > PM_PRED_MAX_DEPTH)
		return pm_err(PAIMON_EINVAL, "predicate nested deeper than %d", PM_PRED_MAX_DEPTH);
	if (pm_pred_is_leaf(p->op))
		return bind_leaf(p, s);
	for (size_t i = 0; i < p->nkids; i++) {
		int rc = bind_rec(p->kids[i], s, depth + 1);
		if (rc)
			return rc;
	}
	return 0;
}

int pm_pred_bind(pm_predicate *p, const pm_table_schema *s)
{
	return bind_rec(p, s, 0);
}

/* ------------------------------------------------------------- printing */

static int is_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_ident_char(char c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9') || c == '$';
}

/* Words the parser reads as keywords (case-insensitive). */
int pm_pred_is_keyword(const char *w, size_t n);
int pm_pred_is_keyword(const char *w, size_t n)
{
	static const char *kw[] = {"and", "or", "not", "in", "is", "null", "like", "between", "true", "false",
				   "startswith", "endswith", "contains"};
	for (size_t i = 0; i < sizeof kw / sizeof kw[0]; i++) {
		size_t k;
		if (strlen(kw[i]) != n)
			continue;
		for (k = 0; k < n; k++) {
			char c = w[k];
			if (c >= 'A' && c <= 'Z')
				c = (char)(c - 'A' + 'a');
			if (c != kw[i][k])
				break;
		}
		if (k == n)
			return 1;
	}
	return 0;
}

static int put_column(pm_buf *out, const char *c)
{
	size_t n = strlen(c), i;
	int plain = n > 0 && is_ident_start(c[0]) && !pm_pred_is_keyword(c, n);
	for (i = 0; plain && i < n; i++)
		plain = is_ident_char(c[i]);
	if (plain)
		return pm_buf_puts(out, c);
	int rc = pm_buf_putc(out, '`');
	for (i = 0; !rc && i < n; i++)
		rc = c[i] == '`' ? pm_buf_puts(out, "``") : pm_buf_putc(out, c[i]);
	return rc ? rc : pm_buf_putc(out, '`');
}

/* A plain number the parser reads back as the same text. */
static int is_number_text(const uint8_t *p, size_t n)
{
	size_t i = 0, digits = 0;
	if (i < n && (p[i] == '-' || p[i] == '+'))
		i++;
	for (; i < n && p[i] >= '0' && p[i] <= '9'; i++)
		digits++;
	if (i < n && p[i] == '.') {
		i++;
		for (; i < n && p[i] >= '0' && p[i] <= '9'; i++)
			digits++;
	}
	if (!digits)
		return 0;
	if (i < n && (p[i] == 'e' || p[i] == 'E')) {
		size_t ed = 0;
		i++;
		if (i < n && (p[i] == '-' || p[i] == '+'))
			i++;
		for (; i < n && p[i] >= '0' && p[i] <= '9'; i++)
			ed++;
		if (!ed)
			return 0;
	}
	return i == n;
}

/* 1 if bytes are valid UTF-8 without control characters. */
static int printable_utf8(const uint8_t *p, size_t n)
{
	size_t i = 0;
	while (i < n) {
		uint8_t c = p[i];
		if (c < 0x20 || c == 0x7f)
			return 0;
		if (c < 0x80) {
			i++;
			continue;
		}
		size_t len = (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
		if (!len || i + len > n || c == 0xc0 || c == 0xc1 || c > 0xf4)
			return 0;
		for (size_t k = 1; k < len; k++)
			if ((p[i + k] & 0xc0) != 0x80)
				return 0;
		i += len;
	}
	return 1;
}

static int put_literal(pm_buf *out, const pm_pred_lit *l)
{
	int rc = 0;
	if (l->is_null)
		return pm_buf_puts(out, "NULL");
	if (is_number_text(l->p, l->n) || (l->n == 4 && !memcmp(l->p, "true", 4)) ||
	    (l->n == 5 && !memcmp(l->p, "false", 5)))
		return pm_buf_append(out, l->p, l->n);
	if (!printable_utf8(l->p, l->n)) {
		rc = pm_buf_puts(out, "X'");
		for (size_t i = 0; !rc && i < l->n; i++)
			rc = pm_buf_printf(out, "%02x", l->p[i]);
		return rc ? rc : pm_buf_putc(out, '\'');
	}
	rc = pm_buf_putc(out, '\'');
	for (size_t i = 0; !rc && i < l->n; i++)
		rc = l->p[i] == '\'' ? pm_buf_puts(out, "''") : pm_buf_putc(out, (char)l->p[i]);
	return rc ? rc : pm_buf_putc(out, '\'');
}

/* What a node prints as: an AND/OR with one child prints as that child. */
static const pm_predicate *print_form(const pm_predicate *k)
{
	while ((k->op == PM_PRED_AND || k->op == PM_PRED_OR) && k->nkids == 1)
		k = k->kids[0];
	return k;
}

static int print_rec(const pm_predicate *p, pm_buf *out, int depth)
{
	int rc = 0;
	if (depth > PM_PRED_MAX_DEPTH)
		return pm_err(PAIMON_EINVAL, "predicate nested deeper than %d", PM_PRED_MAX_DEPTH);
	switch (p->op) {
	case PM_PRED_AND:
	case PM_PRED_OR:
		if (p->nkids == 1) /* prints as its only child */
			return print_rec(p->kids[0], out, depth + 1);
		for (size_t i = 0; !rc && i < p->nkids; i++) {
			const pm_predicate *k = p->kids[i], *f = print_form(k);
			int paren = f->op == PM_PRED_AND || f->op == PM_PRED_OR;
			if (i)
				rc = pm_buf_puts(out, p->op == PM_PRED_AND ? " AND " : " OR ");
			if (!rc && paren)
				rc = pm_buf_putc(out, '(');
			if (!rc)
				rc = print_rec(k, out, depth + 1);
			if (!rc && paren)
				rc = pm_buf_putc(out, ')');
		}
		return rc;
	case PM_PRED_NOT:
		rc = pm_buf_puts(out, "NOT (");
		if (!rc)
			rc = print_rec(p->kids[0], out, depth + 1);
		return rc ? rc : pm_buf_putc(out, ')');
	case PM_PRED_STARTS_WITH:
	case PM_PRED_ENDS_WITH:
	case PM_PRED_CONTAINS:
		rc = pm_buf_printf(out, "%s(", op_name(p->op));
		if (!rc)
			rc = put_column(out, p->column);
		if (!rc)
			rc = pm_buf_puts(out, ", ");
		if (!rc)
			rc = put_literal(out, &p->lits[0]);
		return rc ? rc : pm_buf_putc(out, ')');
	default:
		rc = put_column(out, p->column);
		if (!rc)
			rc = pm_buf_printf(out, " %s", op_name(p->op));
		if (rc || p->op == PM_PRED_IS_NULL || p->op == PM_PRED_IS_NOT_NULL)
			return rc;
		if (p->op == PM_PRED_IN || p->op == PM_PRED_NOT_IN) {
			rc = pm_buf_puts(out, " (");
			for (size_t i = 0; !rc && i < p->nlits; i++) {
				if (i)
					rc = pm_buf_puts(out, ", ");
				if (!rc)
					rc = put_literal(out, &p->lits[i]);
			}
			return rc ? rc : pm_buf_putc(out, ')');
		}
		rc = pm_buf_putc(out, ' ');
		return rc ? rc : put_literal(out, &p->lits[0]);
	}
}

int pm_pred_to_string(const pm_predicate *p, pm_buf *out)
{
	return print_rec(p, out, 0);
}

/* ------------------------------------------------------------ byte form */

/* "PMPR", version 1, then the tree depth-first:
 *   node := u8 op, leaf: varint len + column bytes, varint nlits,
 *           nlits * (u8 is_null, [varint len + bytes]);
 *           AND/OR: varint nkids, kids; NOT: one kid. */
#define PRED_MAGIC "PMPR"
#define PRED_VERSION 1

static int put_varint(pm_buf *out, uint64_t v)
{
	uint8_t b[10];
	int n = 0;
	do {
		b[n] = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v)
			b[n] |= 0x80;
		n++;
	} while (v);
	return pm_buf_append(out, b, (size_t)n);
}

static int enc_rec(const pm_predicate *p, pm_buf *out, int depth)
{
	int rc;
	if (depth > PM_PRED_MAX_DEPTH)
		return pm_err(PAIMON_EINVAL, "predicate nested deeper than %d", PM_PRED_MAX_DEPTH);
	uint8_t op = (uint8_t)p->op;
	if ((rc = pm_buf_append(out, &op, 1)))
		return rc;
	if (pm_pred_is_leaf(p->op)) {
		size_t cl = strlen(p->column);
		if ((rc = put_varint(out, cl)) || (rc = pm_buf_append(out, p->column, cl)) ||
		    (rc = put_varint(out, p->nlits)))
			return rc;
		for (size_t i = 0; i < p->nlits; i++) {
			uint8_t isn = (uint8_t)(p->lits[i].is_null != 0);
			if ((rc = pm_buf_append(out, &isn, 1)))
				return rc;
			if (!isn && ((rc = put_varint(out, p->lits[i].n)) || (rc = pm_buf_append(out, p->lits[i].p, p->lits[i].n))))
				return rc;
		}
		return 0;
	}
	if (p->op != PM_PRED_NOT && (rc = put_varint(out, p->nkids)))
		return rc;
	for (size_t i = 0; i < p->nkids; i++)
		if ((rc = enc_rec(p->kids[i], out, depth + 1)))
			return rc;
	return 0;
}

int pm_pred_encode(const pm_predicate *p, pm_buf *out)
{
	int rc = pm_buf_append(out, PRED_MAGIC, 4);
	uint8_t v = PRED_VERSION;
	if (!rc)
		rc = pm_buf_append(out, &v, 1);
	return rc ? rc : enc_rec(p, out, 0);
}

typedef struct rd {
	const uint8_t *p, *end;
} rd;

static int bad_bytes(const char *why)
{
	return pm_err(PAIMON_ECORRUPT, "serialized predicate is malformed: %s", why);
}

static int get_varint(rd *r, uint64_t *v)
{
	uint64_t x = 0;
	*v = 0; /* also on failure, so no caller reads an unset value */
	for (int shift = 0; shift < 64; shift += 7) {
		if (r->p >= r->end)
			return bad_bytes("truncated");
		uint8_t b = *r->p++;
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return bad_bytes("varint too long");
}

static int dec_rec(rd *r, pm_predicate **out, int depth)
{
	uint64_t n;
	int rc;
	*out = NULL;
	if (depth > PM_PRED_MAX_DEPTH)
		return bad_bytes("nested too deep");
	if (r->p >= r->end)
		return bad_bytes("truncated");
	int op = *r->p++;
	if (!valid_op(op))
		return bad_bytes("unknown operator");
	if (pm_pred_is_leaf((pm_pred_op)op)) {
		if ((rc = get_varint(r, &n)))
			return rc;
		if (n == 0 || n > (uint64_t)(r->end - r->p))
			return bad_bytes("bad column name length");
		const uint8_t *col = r->p;
		size_t cl = (size_t)n;
		if (memchr(col, 0, cl))
			return bad_bytes("NUL in a column name");
		r->p += cl;
		uint64_t nl;
		if ((rc = get_varint(r, &nl)))
			return rc;
		if (nl > (uint64_t)(r->end - r->p))
			return bad_bytes("too many literals");
		char *cname = pm_malloc(cl + 1);
		const char **lits = nl ? pm_calloc((size_t)nl, sizeof *lits) : NULL;
		size_t *lens = nl ? pm_calloc((size_t)nl, sizeof *lens) : NULL;
		if (!cname || (nl && (!lits || !lens))) {
			rc = PAIMON_ENOMEM;
			goto leaf_done;
		}
		memcpy(cname, col, cl);
		cname[cl] = 0;
		for (uint64_t i = 0; i < nl; i++) {
			if (r->p >= r->end) {
				rc = bad_bytes("truncated literal");
				goto leaf_done;
			}
			uint8_t isn = *r->p++;
			if (isn > 1) {
				rc = bad_bytes("bad literal flag");
				goto leaf_done;
			}
			if (isn)
				continue;
			uint64_t ln;
			if ((rc = get_varint(r, &ln)))
				goto leaf_done;
			if (ln > (uint64_t)(r->end - r->p)) {
				rc = bad_bytes("literal beyond the end");
				goto leaf_done;
			}
			lits[i] = (const char *)r->p;
			lens[i] = (size_t)ln;
			r->p += ln;
		}
		rc = pm_pred_leaf(out, cname, (pm_pred_op)op, lits, lens, (size_t)nl);
		if (rc && rc != PAIMON_ENOMEM) {
			char why[512];
			snprintf(why, sizeof why, "%s", paimon_error_message());
			rc = bad_bytes(why);
		}
	leaf_done:
		pm_free(cname);
		pm_free(lits);
		pm_free(lens);
		return rc;
	}
	if (op == PM_PRED_NOT) {
		pm_predicate *k;
		if ((rc = dec_rec(r, &k, depth + 1)))
			return rc;
		return pm_pred_not(out, k);
	}
	if ((rc = get_varint(r, &n)))
		return rc;
	if (n == 0 || n > (uint64_t)(r->end - r->p))
		return bad_bytes("bad child count");
	pm_predicate **kids = pm_calloc((size_t)n, sizeof *kids);
	if (!kids)
		return PAIMON_ENOMEM;
	for (uint64_t i = 0; i < n; i++) {
		if ((rc = dec_rec(r, &kids[i], depth + 1))) {
			for (uint64_t j = 0; j < i; j++)
				pm_pred_free(kids[j]);
			pm_free(kids);
			return rc;
		}
	}
	rc = pm_pred_combine(out, (pm_pred_op)op, kids, (size_t)n);
	pm_free(kids);
	return rc;
}

int pm_pred_decode(const void *data, size_t len, pm_predicate **out)
{
	*out = NULL;
	if (!data || len < 5 || memcmp(data, PRED_MAGIC, 4) != 0)
		return bad_bytes("missing header");
	if (((const uint8_t *)data)[4] != PRED_VERSION)
		return pm_err(PAIMON_ECORRUPT, "serialized predicate has unsupported version %d",
			      ((const uint8_t *)data)[4]);
	rd r = {(const uint8_t *)data + 5, (const uint8_t *)data + len};
	pm_predicate *p;
	int rc = dec_rec(&r, &p, 0);
	if (rc)
		return rc;
	if (r.p != r.end) {
		pm_pred_free(p);
		return bad_bytes("trailing bytes");
	}
	*out = p;
	return 0;
}
