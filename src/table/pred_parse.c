/*
 * table/pred_parse.c - the SQL-like text form of predicates (see
 * predicate.h): precedence OR < AND < NOT < comparison; literals 'text'
 * ('' escapes a quote), X'hex' bytes, numbers, true/false, NULL; columns
 * plain identifiers or `quoted` (`` escapes a backquote); string functions
 * startsWith(col, 'x'), endsWith(col, 'x'), contains(col, 'x') and LIKE
 * 'x%' / '%x' / '%x%' / 'x' (no other wildcards).
 */
#include <stdio.h>
#include <string.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/strs.h"
#include "core/mem.h"
#include "table/pred_internal.h"
#include "table/predicate.h"

int pm_pred_is_keyword(const char *w, size_t n);

typedef struct ps {
	const char *text;
	const char *p;
	int depth;
} ps;

/* A literal being parsed: bytes in buf (owned), or NULL. */
typedef struct plit {
	pm_buf buf;
	int is_null;
} plit;

static int perr(ps *s, const char *what)
{
	size_t len = strlen(s->text);
	return pm_err(PAIMON_EINVAL, "predicate text '%.*s%s' at position %zu: %s", len > 200 ? 200 : (int)len, s->text,
		      len > 200 ? "..." : "", (size_t)(s->p - s->text), what);
}

static void skip_ws(ps *s)
{
	while (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r')
		s->p++;
}

static int id_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int id_char(char c)
{
	return id_start(c) || (c >= '0' && c <= '9') || c == '$';
}

/* Case-insensitive keyword at the cursor (followed by a non-identifier char). */
static int kw(ps *s, const char *word)
{
	size_t n = strlen(word);
	skip_ws(s);
	for (size_t i = 0; i < n; i++) {
		char c = s->p[i];
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (c != word[i])
			return 0;
	}
	if (id_char(s->p[n]))
		return 0;
	s->p += n;
	return 1;
}

static int punct(ps *s, const char *tok)
{
	size_t n = strlen(tok);
	skip_ws(s);
	if (strncmp(s->p, tok, n) != 0)
		return 0;
	s->p += n;
	return 1;
}

/* Column name into *out (pm_free). */
static int column(ps *s, char **out)
{
	skip_ws(s);
	*out = NULL;
	if (*s->p == '`') {
		pm_buf b = PM_BUF_INIT;
		int rc = 0;
		s->p++;
		for (;;) {
			if (!*s->p) {
				pm_buf_dispose(&b);
				return perr(s, "unterminated `quoted` column name");
			}
			if (*s->p == '`') {
				if (s->p[1] == '`') {
					rc = pm_buf_putc(&b, '`');
					s->p += 2;
				} else {
					s->p++;
					break;
				}
			} else {
				rc = pm_buf_putc(&b, *s->p++);
			}
			if (rc) {
				pm_buf_dispose(&b);
				return rc;
			}
		}
		if (!b.len) {
			pm_buf_dispose(&b);
			return perr(s, "empty column name");
		}
		*out = pm_buf_detach(&b);
		return 0;
	}
	if (!id_start(*s->p))
		return perr(s, "expected a column name");
	const char *st = s->p;
	while (id_char(*s->p))
		s->p++;
	if (pm_pred_is_keyword(st, (size_t)(s->p - st))) {
		s->p = st;
		return perr(s, "expected a column name, found a keyword (quote it with `...`)");
	}
	*out = pm_strndup(st, (size_t)(s->p - st));
	return *out ? 0 : PAIMON_ENOMEM;
}


static int literal(ps *s, plit *l)
{
	int rc = 0;
	memset(l, 0, sizeof *l);
	skip_ws(s);
	if ((s->p[0] == 'X' || s->p[0] == 'x') && s->p[1] == '\'') {
		s->p += 2;
		while (*s->p != '\'') {
			int hi = pm_hexval(s->p[0]), lo = hi < 0 ? -1 : pm_hexval(s->p[1]);
			if (hi < 0 || lo < 0) {
				pm_buf_dispose(&l->buf);
				return perr(s, "bad X'..' hex literal");
			}
			if ((rc = pm_buf_putc(&l->buf, (char)(hi * 16 + lo)))) {
				pm_buf_dispose(&l->buf);
				return rc;
			}
			s->p += 2;
		}
		s->p++;
		return 0;
	}
	if (*s->p == '\'') {
		s->p++;
		for (;;) {
			if (!*s->p) {
				pm_buf_dispose(&l->buf);
				return perr(s, "unterminated string literal");
			}
			if (*s->p == '\'') {
				if (s->p[1] != '\'') {
					s->p++;
					break;
				}
				s->p++;
			}
			if ((rc = pm_buf_putc(&l->buf, *s->p++))) {
				pm_buf_dispose(&l->buf);
				return rc;
			}
		}
		return 0;
	}
	if (kw(s, "null")) {
		l->is_null = 1;
		return 0;
	}
	if (kw(s, "true"))
		return pm_buf_puts(&l->buf, "true");
	if (kw(s, "false"))
		return pm_buf_puts(&l->buf, "false");
	/* number: sign, digits, fraction, exponent */
	const char *st = s->p, *q = s->p;
	int digits = 0;
	if (*q == '-' || *q == '+')
		q++;
	while (*q >= '0' && *q <= '9')
		q++, digits++;
	if (*q == '.') {
		q++;
		while (*q >= '0' && *q <= '9')
			q++, digits++;
	}
	if (digits && (*q == 'e' || *q == 'E')) {
		const char *e = q + 1;
		int ed = 0;
		if (*e == '-' || *e == '+')
			e++;
		while (*e >= '0' && *e <= '9')
			e++, ed++;
		if (ed)
			q = e;
	}
	if (!digits || id_char(*q))
		return perr(s, "expected a literal ('text', a number, true, false or NULL)");
	s->p = q;
	return pm_buf_append(&l->buf, st, (size_t)(q - st));
}

static int make_leaf(pm_predicate **out, const char *col, pm_pred_op op, plit *lits, size_t n)
{
	const char *ps_[64] = {0};
	size_t ls_[64] = {0};
	const char **pp = n <= 64 ? ps_ : pm_calloc(n, sizeof *pp);
	size_t *ll = n <= 64 ? ls_ : pm_calloc(n, sizeof *ll);
	int rc;
	if (!pp || !ll) {
		if (pp != ps_)
			pm_free(pp);
		if (ll != ls_)
			pm_free(ll);
		return PAIMON_ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		pp[i] = lits[i].is_null ? NULL : lits[i].buf.data ? lits[i].buf.data : "";
		ll[i] = lits[i].buf.len;
	}
	rc = pm_pred_leaf(out, col, op, pp, ll, n);
	if (pp != ps_)
		pm_free(pp);
	if (ll != ls_)
		pm_free(ll);
	return rc;
}

static void free_lits(plit *l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		pm_buf_dispose(&l[i].buf);
}

static int parse_or(ps *s, pm_predicate **out);

static int string_fn(ps *s, pm_pred_op op, pm_predicate **out)
{
	char *col = NULL;
	plit l;
	int rc;
	if (!punct(s, "("))
		return perr(s, "expected '('");
	if ((rc = column(s, &col)))
		return rc;
	if (!punct(s, ",")) {
		pm_free(col);
		return perr(s, "expected ','");
	}
	if ((rc = literal(s, &l))) {
		pm_free(col);
		return rc;
	}
	if (l.is_null)
		rc = perr(s, "string function literal must not be NULL");
	else if (!punct(s, ")"))
		rc = perr(s, "expected ')'");
	if (!rc)
		rc = make_leaf(out, col, op, &l, 1);
	free_lits(&l, 1);
	pm_free(col);
	return rc;
}

/* LIKE pattern -> op + literal (in place). */
static int like(ps *s, const char *col, plit *l, pm_predicate **out)
{
	const char *p = l->buf.data ? l->buf.data : "";
	size_t n = l->buf.len;
	int lead = n > 0 && p[0] == '%', trail = n > (size_t)lead && p[n - 1] == '%';
	const char *body = p + lead;
	size_t bn = n - (size_t)lead - (size_t)trail;
	pm_pred_op op = lead && trail ? PM_PRED_CONTAINS : lead ? PM_PRED_ENDS_WITH : trail ? PM_PRED_STARTS_WITH
										     : PM_PRED_EQ;
	if (n == 1 && lead)
		op = PM_PRED_STARTS_WITH, bn = 0; /* '%' */
	if (memchr(body, '%', bn) || memchr(body, '_', bn) || memchr(body, '\\', bn))
		return perr(s, "LIKE supports only 'x%', '%x', '%x%' or 'x' (no '_', inner '%' or escapes)");
	plit b;
	memset(&b, 0, sizeof b);
	int rc = pm_buf_append(&b.buf, body, bn);
	if (!rc)
		rc = make_leaf(out, col, op, &b, 1);
	free_lits(&b, 1);
	return rc;
}

static int wrap_not(pm_predicate **out, int negate)
{
	if (!negate || !*out)
		return 0;
	pm_predicate *in = *out;
	return pm_pred_not(out, in);
}

static int comparison(ps *s, pm_predicate **out)
{
	char *col = NULL;
	int rc;
	static const struct { const char *tok; pm_pred_op op; } ops[] = {
		{"<=", PM_PRED_LE}, {">=", PM_PRED_GE}, {"<>", PM_PRED_NE}, {"!=", PM_PRED_NE},
		{"=", PM_PRED_EQ}, {"<", PM_PRED_LT}, {">", PM_PRED_GT},
	};
	skip_ws(s);
	const char *save = s->p;
	if (kw(s, "startswith"))
		return string_fn(s, PM_PRED_STARTS_WITH, out);
	if (kw(s, "endswith"))
		return string_fn(s, PM_PRED_ENDS_WITH, out);
	if (kw(s, "contains"))
		return string_fn(s, PM_PRED_CONTAINS, out);
	s->p = save;
	if ((rc = column(s, &col)))
		return rc;
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
		if (punct(s, ops[i].tok)) {
			plit l;
			if ((rc = literal(s, &l)))
				goto done;
			if (l.is_null)
				rc = perr(s, "comparison with NULL is never true (use IS NULL / IS NOT NULL)");
			else
				rc = make_leaf(out, col, ops[i].op, &l, 1);
			free_lits(&l, 1);
			goto done;
		}
	}
	if (kw(s, "is")) {
		int neg = kw(s, "not");
		if (!kw(s, "null")) {
			rc = perr(s, "expected NULL after IS");
			goto done;
		}
		rc = make_leaf(out, col, neg ? PM_PRED_IS_NOT_NULL : PM_PRED_IS_NULL, NULL, 0);
		goto done;
	}
	int neg = kw(s, "not");
	if (kw(s, "in")) {
		plit *lits = NULL;
		size_t n = 0, cap = 0;
		if (!punct(s, "(")) {
			rc = perr(s, "expected '(' after IN");
			goto done;
		}
		if (!punct(s, ")")) {
			for (;;) {
				if (n == cap) {
					size_t nc = cap ? cap * 2 : 8;
					plit *nl = pm_realloc(lits, nc * sizeof *nl);
					if (!nl) {
						rc = PAIMON_ENOMEM;
						break;
					}
					lits = nl;
					cap = nc;
				}
				if ((rc = literal(s, &lits[n])))
					break;
				n++;
				if (punct(s, ")"))
					break;
				if (!punct(s, ",")) {
					rc = perr(s, "expected ',' or ')' in the IN list");
					break;
				}
			}
		}
		if (!rc)
			rc = make_leaf(out, col, neg ? PM_PRED_NOT_IN : PM_PRED_IN, lits, n);
		free_lits(lits, n);
		pm_free(lits);
		goto done;
	}
	if (kw(s, "like")) {
		plit l;
		if ((rc = literal(s, &l)))
			goto done;
		if (l.is_null)
			rc = perr(s, "LIKE NULL is never true");
		else
			rc = like(s, col, &l, out);
		free_lits(&l, 1);
		if (!rc)
			rc = wrap_not(out, neg);
		goto done;
	}
	if (kw(s, "between")) {
		plit lo, hi;
		pm_predicate *k[2] = {NULL, NULL};
		if ((rc = literal(s, &lo)))
			goto done;
		if (!kw(s, "and")) {
			free_lits(&lo, 1);
			rc = perr(s, "expected AND in BETWEEN");
			goto done;
		}
		if ((rc = literal(s, &hi))) {
			free_lits(&lo, 1);
			goto done;
		}
		if (lo.is_null || hi.is_null)
			rc = perr(s, "BETWEEN bounds must not be NULL");
		if (!rc)
			rc = make_leaf(&k[0], col, PM_PRED_GE, &lo, 1);
		if (!rc)
			rc = make_leaf(&k[1], col, PM_PRED_LE, &hi, 1);
		free_lits(&lo, 1);
		free_lits(&hi, 1);
		if (rc) {
			pm_pred_free(k[0]);
			pm_pred_free(k[1]);
			goto done;
		}
		rc = pm_pred_combine(out, PM_PRED_AND, k, 2);
		if (!rc)
			rc = wrap_not(out, neg);
		goto done;
	}
	rc = perr(s, neg ? "expected IN, LIKE or BETWEEN after NOT" : "expected an operator");
done:
	pm_free(col);
	if (rc) {
		pm_pred_free(*out);
		*out = NULL;
	}
	return rc;
}

static int primary(ps *s, pm_predicate **out)
{
	int rc;
	*out = NULL;
	/* A tree level costs the parser at most two levels (NOT + its
	 * parenthesis), so text that prints from any valid tree parses back;
	 * the tree's own depth is checked after parsing. */
	if (++s->depth > 2 * PM_PRED_MAX_DEPTH + 2)
		return perr(s, "nested too deep");
	if (kw(s, "not")) {
		pm_predicate *a;
		if ((rc = primary(s, &a)))
			return rc;
		s->depth--;
		return pm_pred_not(out, a);
	}
	if (punct(s, "(")) {
		if ((rc = parse_or(s, out)))
			return rc;
		if (!punct(s, ")")) {
			pm_pred_free(*out);
			*out = NULL;
			return perr(s, "expected ')'");
		}
		s->depth--;
		return 0;
	}
	rc = comparison(s, out);
	s->depth--;
	return rc;
}

static int chain(ps *s, pm_predicate **out, pm_pred_op op)
{
	pm_predicate **kids = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	for (;;) {
		pm_predicate *k = NULL;
		rc = op == PM_PRED_OR ? chain(s, &k, PM_PRED_AND) : primary(s, &k);
		if (rc)
			break;
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 4;
			pm_predicate **nk = pm_realloc(kids, nc * sizeof *nk);
			if (!nk) {
				pm_pred_free(k);
				rc = PAIMON_ENOMEM;
				break;
			}
			kids = nk;
			cap = nc;
		}
		kids[n++] = k;
		if (!kw(s, op == PM_PRED_OR ? "or" : "and"))
			break;
	}
	if (rc) {
		for (size_t i = 0; i < n; i++)
			pm_pred_free(kids[i]);
		pm_free(kids);
		return rc;
	}
	if (n == 1) {
		*out = kids[0];
		pm_free(kids);
		return 0;
	}
	rc = pm_pred_combine(out, op, kids, n);
	pm_free(kids);
	return rc;
}

static int parse_or(ps *s, pm_predicate **out)
{
	return chain(s, out, PM_PRED_OR);
}

/* Depth of a parsed tree (bounded by the parser's own limit). */
static int tree_depth(const pm_predicate *p)
{
	int d = 0;
	for (size_t i = 0; i < p->nkids; i++) {
		int k = tree_depth(p->kids[i]);
		if (k > d)
			d = k;
	}
	return d + 1;
}

int pm_pred_parse(const char *text, pm_predicate **out)
{
	*out = NULL;
	if (!text)
		return pm_err(PAIMON_EINVAL, "predicate text is NULL");
	ps s = {text, text, 0};
	pm_predicate *p = NULL;
	int rc = parse_or(&s, &p);
	if (rc)
		return rc;
	skip_ws(&s);
	if (*s.p) {
		pm_pred_free(p);
		return perr(&s, "unexpected text after the predicate");
	}
	if (tree_depth(p) > PM_PRED_MAX_DEPTH + 1) {
		pm_pred_free(p);
		return pm_err(PAIMON_EINVAL, "predicate text nests deeper than %d levels", PM_PRED_MAX_DEPTH);
	}
	*out = p;
	return 0;
}
