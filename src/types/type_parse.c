/*
 * types/type_parse.c - parser for the SQL string form of types, the form
 * Java prints with DataType.asSQLString() and reads with
 * DataTypeJsonParser.parseAtomicTypeSQLString().
 *
 * Java's parser only knows atomic types, VECTOR<..> and the suffix notation
 * "INT ARRAY"; this one also reads ARRAY<..>, MULTISET<..>, MAP<K, V> and
 * ROW<..> so that everything pm_type_to_string prints (and what users type
 * in `paimonc` commands) parses back. Keywords are case-insensitive.
 *
 * A hand-written recursive-descent parser over an on-demand tokenizer. The
 * recursion depth is bounded by PM_TYPE_MAX_DEPTH so hostile input cannot
 * exhaust the stack.
 */
#include "types/datatype.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/mem.h"
#include "types/type_internal.h"

typedef enum tok_kind {
	T_END,
	T_WORD,   /* identifier or keyword */
	T_INT,    /* unsigned decimal literal */
	T_STR,    /* 'text' with '' escapes */
	T_QID,    /* `name` with `` escapes */
	T_LT,
	T_GT,
	T_LP,
	T_RP,
	T_COMMA,
	T_DOT,
} tok_kind;

typedef struct tok {
	tok_kind kind;
	size_t start;
	size_t len;     /* whole token, quotes included */
	long long ival; /* T_INT; -1 if it does not fit in int32 */
} tok;

typedef struct parser {
	const char *s;
	size_t pos;     /* scan position after the last lexed token */
	tok la;         /* lookahead */
	int has_la;
	size_t last;    /* start of the last consumed token, for messages */
} parser;

/* Builds the EINVAL message: the text (shortened if huge), what is wrong
 * and where (0-based offset, as Java reports it). */
static int perr(parser *p, size_t at, const char *fmt, ...) PM_PRINTF(3, 4);
static int perr(parser *p, size_t at, const char *fmt, ...)
{
	char why[512];
	size_t n = strlen(p->s);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	if (n > 200) {
		size_t cut = 200;
		/* Do not split a UTF-8 sequence. */
		while (cut > 0 && ((unsigned char)p->s[cut] & 0xc0) == 0x80)
			cut--;
		return pm_err(PAIMON_EINVAL, "invalid type '%.*s...': %s (position %zu)", (int)cut, p->s, why, at);
	}
	return pm_err(PAIMON_EINVAL, "invalid type '%s': %s (position %zu)", p->s, why, at);
}

/* Java's isDelimiter: where an identifier ends. */
static int is_delim(char c)
{
	return c == '\0' || isspace((unsigned char)c) || strchr("<>(),.'`", c) != NULL;
}

static int lex(parser *p, tok *t)
{
	const char *s = p->s;
	size_t i = p->pos;
	while (isspace((unsigned char)s[i]))
		i++;
	memset(t, 0, sizeof *t);
	t->start = i;
	switch (s[i]) {
	case '\0': t->kind = T_END; break;
	case '<': t->kind = T_LT; i++; break;
	case '>': t->kind = T_GT; i++; break;
	case '(': t->kind = T_LP; i++; break;
	case ')': t->kind = T_RP; i++; break;
	case ',': t->kind = T_COMMA; i++; break;
	case '.': t->kind = T_DOT; i++; break;
	case '\'':
	case '`': {
		char q = s[i++];
		t->kind = q == '`' ? T_QID : T_STR;
		for (;;) {
			if (s[i] == '\0')
				return perr(p, t->start, "unterminated %s", q == '`' ? "quoted name" : "string literal");
			if (s[i] == q && s[i + 1] == q) {
				i += 2;
				continue;
			}
			if (s[i++] == q)
				break;
		}
		break;
	}
	default:
		if (isdigit((unsigned char)s[i])) {
			long long v = 0;
			t->kind = T_INT;
			for (; isdigit((unsigned char)s[i]); i++) {
				if (v >= 0)
					v = v * 10 + (s[i] - '0');
				if (v > PM_MAX_LENGTH)
					v = -1;
			}
			t->ival = v;
		} else {
			t->kind = T_WORD;
			while (!is_delim(s[i]))
				i++;
		}
		break;
	}
	t->len = i - t->start;
	p->pos = i;
	return 0;
}

static int peek(parser *p, tok **t)
{
	int rc;
	if (!p->has_la) {
		if ((rc = lex(p, &p->la)) < 0)
			return rc;
		p->has_la = 1;
	}
	*t = &p->la;
	return 0;
}

static int next(parser *p, tok *t)
{
	tok *la;
	int rc = peek(p, &la);
	if (rc)
		return rc;
	*t = *la;
	p->has_la = 0;
	p->last = t->start;
	return 0;
}

static int is_word(const parser *p, const tok *t, const char *w)
{
	return t->kind == T_WORD && strlen(w) == t->len && strncasecmp(p->s + t->start, w, t->len) == 0;
}

/* Consumes the next token if it is the word w. */
static int accept_word(parser *p, const char *w, int *got)
{
	tok *la, t;
	int rc = peek(p, &la);
	*got = 0;
	if (rc)
		return rc;
	if (!is_word(p, la, w))
		return 0;
	*got = 1;
	return next(p, &t);
}

static const char *tok_desc(const tok *t)
{
	switch (t->kind) {
	case T_END: return "end of text";
	case T_WORD: return "a word";
	case T_INT: return "a number";
	case T_STR: return "a string literal";
	case T_QID: return "a quoted name";
	case T_LT: return "'<'";
	case T_GT: return "'>'";
	case T_LP: return "'('";
	case T_RP: return "')'";
	case T_COMMA: return "','";
	default: return "'.'";
	}
}

static int expect(parser *p, tok_kind k, const char *what, tok *out)
{
	tok t;
	int rc = next(p, &t);
	if (rc)
		return rc;
	if (t.kind != k) {
		if (t.kind == T_WORD || t.kind == T_INT)
			return perr(p, t.start, "expected %s but found '%.*s'", what, (int)t.len, p->s + t.start);
		return perr(p, t.start, "expected %s but found %s", what, tok_desc(&t));
	}
	if (out)
		*out = t;
	return 0;
}

static int expect_word(parser *p, const char *w)
{
	tok t;
	int rc = next(p, &t);
	if (rc)
		return rc;
	if (!is_word(p, &t, w))
		return perr(p, t.start, "expected %s", w);
	return 0;
}

static int expect_int(parser *p, int32_t *out, size_t *at)
{
	tok t = { 0 };
	int rc;
	if (at)
		*at = 0; /* also on failure, so no caller reads an unset value */
	rc = expect(p, T_INT, "a number", &t);
	if (rc)
		return rc;
	if (t.ival < 0)
		return perr(p, t.start, "number %.*s is too large", (int)t.len, p->s + t.start);
	*out = (int32_t)t.ival;
	if (at)
		*at = t.start;
	return 0;
}

/* The text of a quoted token without its quotes, doubled quotes undone. */
static char *unquote(const parser *p, const tok *t)
{
	const char *s = p->s + t->start;
	char q = s[0], *out = pm_malloc(t->len), *o = out;
	size_t i;
	if (!out)
		return NULL;
	for (i = 1; i + 1 < t->len; i++) {
		*o++ = s[i];
		if (s[i] == q)
			i++; /* the second quote of an escaped pair */
	}
	*o = '\0';
	return out;
}

static int parse_type(parser *p, int depth, pm_type **out);

static int new_type(pm_type_root root, pm_type **out)
{
	return (*out = pm_type_new(root)) ? 0 : PAIMON_ENOMEM;
}

/* "(n)" after CHAR/VARCHAR/BINARY/VARBINARY; Java's default length is 1. */
static int parse_length(parser *p, pm_type *t)
{
	tok *la, lp;
	size_t at = 0;
	int rc = peek(p, &la);
	if (rc || la->kind != T_LP)
		return rc;
	if ((rc = next(p, &lp)) || (rc = expect_int(p, &t->length, &at)) ||
	    (rc = expect(p, T_RP, "')'", NULL)))
		return rc;
	if (t->length < 1)
		return perr(p, at, "length %d out of range 1..%d", (int)t->length, PM_MAX_LENGTH);
	return 0;
}

/* "(p)" after TIME/TIMESTAMP/TIMESTAMP_LTZ. */
static int parse_precision(parser *p, pm_type *t)
{
	tok *la, lp;
	size_t at;
	int rc = peek(p, &la);
	if (rc || la->kind != T_LP)
		return rc;
	if ((rc = next(p, &lp)) || (rc = expect_int(p, &t->precision, &at)) ||
	    (rc = expect(p, T_RP, "')'", NULL)))
		return rc;
	if (t->precision > 9)
		return perr(p, at, "precision %d out of range 0..9", (int)t->precision);
	return 0;
}

static int parse_decimal(parser *p, pm_type *t)
{
	tok *la, lp, sep;
	size_t pat = 0, sat = 0;
	int rc = peek(p, &la);
	if (rc || la->kind != T_LP)
		return rc;
	if ((rc = next(p, &lp)) || (rc = expect_int(p, &t->precision, &pat)) || (rc = peek(p, &la)))
		return rc;
	if (la->kind == T_COMMA &&
	    ((rc = next(p, &sep)) || (rc = expect_int(p, &t->scale, &sat))))
		return rc;
	if ((rc = expect(p, T_RP, "')'", NULL)))
		return rc;
	if (t->precision < 1 || t->precision > 38)
		return perr(p, pat, "precision %d out of range 1..38", (int)t->precision);
	if (t->scale > t->precision)
		return perr(p, sat, "scale %d out of range 0..%d", (int)t->scale, (int)t->precision);
	return 0;
}

/* "WITHOUT TIME ZONE" after TIME/TIMESTAMP; sets *ltz for TIMESTAMP's
 * "WITH LOCAL TIME ZONE" when allowed. */
static int parse_zone(parser *p, int allow_ltz, int *ltz)
{
	int got, rc;
	tok t;
	*ltz = 0;
	if ((rc = accept_word(p, "WITHOUT", &got)))
		return rc;
	if (got)
		return (rc = expect_word(p, "TIME")) ? rc : expect_word(p, "ZONE");
	if (!allow_ltz)
		return 0;
	if ((rc = accept_word(p, "WITH", &got)) || !got)
		return rc;
	if ((rc = next(p, &t)))
		return rc;
	if (!is_word(p, &t, "LOCAL"))
		return perr(p, t.start, "only TIMESTAMP WITH LOCAL TIME ZONE is supported");
	if ((rc = expect_word(p, "TIME")) || (rc = expect_word(p, "ZONE")))
		return rc;
	*ltz = 1;
	return 0;
}

/* A CRS or algorithm: an identifier, keyword or string literal (Java
 * parseGeospatialParameter). */
static int parse_geo_param(parser *p, char **out, size_t *at)
{
	tok t;
	int rc = next(p, &t);
	if (rc)
		return rc;
	*at = t.start;
	if (t.kind == T_WORD)
		*out = pm_strndup(p->s + t.start, t.len);
	else if (t.kind == T_STR || t.kind == T_QID)
		*out = unquote(p, &t);
	else
		return perr(p, t.start, "expected a CRS name but found %s", tok_desc(&t));
	return *out ? 0 : PAIMON_ENOMEM;
}

static int parse_geo(parser *p, pm_type *t)
{
	tok *la, x;
	char *alg = NULL;
	size_t at;
	int rc = peek(p, &la);
	if (rc)
		return rc;
	if (la->kind != T_LP) {
		t->crs = pm_strdup(PM_TYPE_DEFAULT_CRS);
		if (t->root == PM_GEOGRAPHY && t->crs)
			t->algorithm = pm_strdup(PM_TYPE_DEFAULT_ALGORITHM);
		return t->crs && (t->root != PM_GEOGRAPHY || t->algorithm) ? 0 : PAIMON_ENOMEM;
	}
	if ((rc = next(p, &x)) || (rc = parse_geo_param(p, &t->crs, &at)))
		return rc;
	if (!*t->crs)
		return perr(p, at, "empty CRS");
	if (t->root == PM_GEOGRAPHY) {
		const char *name = PM_TYPE_DEFAULT_ALGORITHM;
		if ((rc = peek(p, &la)))
			return rc;
		if (la->kind == T_COMMA) {
			if ((rc = next(p, &x)) || (rc = parse_geo_param(p, &alg, &at)))
				return rc;
			name = pm_type__edge_algorithm(alg, strlen(alg));
			if (!name) {
				rc = perr(p, at, "unknown edge algorithm '%s' (expected spherical, vincenty, "
					"thomas, andoyer or karney)", alg);
				pm_free(alg);
				return rc;
			}
			pm_free(alg);
		}
		if (!(t->algorithm = pm_strdup(name)))
			return PAIMON_ENOMEM;
	}
	return expect(p, T_RP, "')'", NULL);
}

/* DEFAULT's value is an expression Java prints verbatim; take the raw text
 * up to the next ',' or '>' outside brackets and quotes. */
static int parse_default(parser *p, pm_field *f)
{
	const char *s = p->s;
	size_t i = p->pos, b, e;
	int nest = 0;
	while (isspace((unsigned char)s[i]))
		i++;
	b = i;
	for (; s[i]; i++) {
		char c = s[i];
		if (c == '\'' || c == '`') {
			size_t j = i + 1;
			for (;;) {
				if (!s[j])
					return perr(p, i, "unterminated quote in DEFAULT value");
				if (s[j] == c && s[j + 1] == c)
					j += 2;
				else if (s[j] == c)
					break;
				else
					j++;
			}
			i = j; /* the closing quote */
		} else if (c == '(' || c == '<') {
			nest++;
		} else if (c == ')' || (c == '>' && nest > 0)) {
			if (--nest < 0)
				return perr(p, i, "unbalanced ')' in DEFAULT value");
		} else if (nest == 0 && (c == ',' || c == '>')) {
			break;
		}
	}
	e = i;
	while (e > b && isspace((unsigned char)s[e - 1]))
		e--;
	if (e == b)
		return perr(p, b, "DEFAULT without a value");
	p->pos = i;
	return (f->default_value = pm_strndup(s + b, e - b)) ? 0 : PAIMON_ENOMEM;
}

static int parse_field(parser *p, int depth, pm_field *f)
{
	tok t, *la;
	int rc, got;
	f->id = -1;
	if ((rc = next(p, &t)))
		return rc;
	if (t.kind == T_QID)
		f->name = unquote(p, &t);
	else if (t.kind == T_WORD)
		f->name = pm_strndup(p->s + t.start, t.len);
	else
		return perr(p, t.start, "expected a field name but found %s", tok_desc(&t));
	if (!f->name)
		return PAIMON_ENOMEM;
	if ((rc = parse_type(p, depth, &f->type)))
		return rc;
	/* Java prints COMMENT 'x'; Flink's bare 'x' is accepted too. */
	if ((rc = accept_word(p, "COMMENT", &got)) || (rc = peek(p, &la)))
		return rc;
	if (got && la->kind != T_STR)
		return perr(p, la->start, "expected a string literal after COMMENT");
	if (la->kind == T_STR) {
		if ((rc = next(p, &t)))
			return rc;
		if (t.len > 2 && !(f->description = unquote(p, &t)))
			return PAIMON_ENOMEM;
		/* An empty comment stays NULL: Java does not print one, so this
		 * keeps parse -> print -> parse stable. */
	}
	if ((rc = accept_word(p, "DEFAULT", &got)))
		return rc;
	return got ? parse_default(p, f) : 0;
}

static int parse_row(parser *p, int depth, pm_type *t)
{
	tok *la, x;
	size_t cap = 0, at;
	int rc = expect(p, T_LT, "'<' after ROW", NULL);
	const char *bad;
	int dup;
	if (rc || (rc = peek(p, &la)))
		return rc;
	if (la->kind == T_GT)
		return next(p, &x);
	for (;;) {
		if (t->nfields == cap) {
			size_t ncap = cap ? cap * 2 : 4;
			pm_field *nf = pm_realloc(t->fields, ncap * sizeof *nf);
			if (!nf)
				return PAIMON_ENOMEM;
			t->fields = nf;
			cap = ncap;
		}
		memset(&t->fields[t->nfields], 0, sizeof t->fields[0]);
		if ((rc = peek(p, &la)))
			return rc;
		at = la->start;
		t->nfields++;
		if ((rc = parse_field(p, depth, &t->fields[t->nfields - 1])))
			return rc;
		if ((rc = next(p, &x)))
			return rc;
		if (x.kind == T_GT)
			break;
		if (x.kind != T_COMMA)
			return perr(p, x.start, "expected ',' or '>' in ROW but found %s", tok_desc(&x));
	}
	if ((bad = pm_type__bad_field_name(t->fields, t->nfields, &dup)))
		return perr(p, at, dup ? "duplicate field name '%s'" : "blank field name '%s'", bad);
	return 0;
}

static int parse_base(parser *p, int depth, pm_type **out)
{
	tok t;
	pm_type *ty = NULL;
	int rc, ltz;
	size_t at;

	if ((rc = next(p, &t)))
		return rc;
	if (t.kind != T_WORD) {
		if (t.kind == T_INT)
			return perr(p, t.start, "expected a type name but found '%.*s'", (int)t.len, p->s + t.start);
		return perr(p, t.start, "expected a type name but found %s", tok_desc(&t));
	}
#define IS(w) is_word(p, &t, w)
	if (IS("BOOLEAN")) rc = new_type(PM_BOOLEAN, &ty);
	else if (IS("TINYINT")) rc = new_type(PM_TINYINT, &ty);
	else if (IS("SMALLINT")) rc = new_type(PM_SMALLINT, &ty);
	else if (IS("INT") || IS("INTEGER")) rc = new_type(PM_INT, &ty);
	else if (IS("BIGINT")) rc = new_type(PM_BIGINT, &ty);
	else if (IS("FLOAT")) rc = new_type(PM_FLOAT, &ty);
	else if (IS("DATE")) rc = new_type(PM_DATE, &ty);
	else if (IS("VARIANT")) rc = new_type(PM_VARIANT, &ty);
	else if (IS("BLOB")) rc = new_type(PM_BLOB, &ty);
	else if (IS("DOUBLE")) {
		int got;
		if (!(rc = new_type(PM_DOUBLE, &ty)))
			rc = accept_word(p, "PRECISION", &got);
	} else if (IS("STRING") || IS("BYTES")) {
		if (!(rc = new_type(IS("STRING") ? PM_VARCHAR : PM_VARBINARY, &ty)))
			ty->length = PM_MAX_LENGTH;
	} else if (IS("CHAR") || IS("VARCHAR") || IS("BINARY") || IS("VARBINARY")) {
		pm_type_root r = IS("CHAR") ? PM_CHAR : IS("VARCHAR") ? PM_VARCHAR
			: IS("BINARY") ? PM_BINARY : PM_VARBINARY;
		if (!(rc = new_type(r, &ty)))
			rc = parse_length(p, ty);
	} else if (IS("DECIMAL") || IS("NUMERIC") || IS("DEC")) {
		if (!(rc = new_type(PM_DECIMAL, &ty)))
			rc = parse_decimal(p, ty);
	} else if (IS("TIME")) {
		if (!(rc = new_type(PM_TIME, &ty)) && !(rc = parse_precision(p, ty)))
			rc = parse_zone(p, 0, &ltz);
	} else if (IS("TIMESTAMP")) {
		if (!(rc = new_type(PM_TIMESTAMP, &ty)) && !(rc = parse_precision(p, ty)) &&
		    !(rc = parse_zone(p, 1, &ltz)) && ltz)
			ty->root = PM_TIMESTAMP_LTZ;
	} else if (IS("TIMESTAMP_LTZ")) {
		if (!(rc = new_type(PM_TIMESTAMP_LTZ, &ty)))
			rc = parse_precision(p, ty);
	} else if (IS("GEOMETRY") || IS("GEOGRAPHY")) {
		if (!(rc = new_type(IS("GEOMETRY") ? PM_GEOMETRY : PM_GEOGRAPHY, &ty)))
			rc = parse_geo(p, ty);
	} else if (IS("ARRAY") || IS("MULTISET")) {
		if (!(rc = new_type(IS("ARRAY") ? PM_ARRAY : PM_MULTISET, &ty)) &&
		    !(rc = expect(p, T_LT, "'<'", NULL)) && !(rc = parse_type(p, depth + 1, &ty->element)))
			rc = expect(p, T_GT, "'>'", NULL);
	} else if (IS("MAP")) {
		if (!(rc = new_type(PM_MAP, &ty)) && !(rc = expect(p, T_LT, "'<' after MAP", NULL)) &&
		    !(rc = parse_type(p, depth + 1, &ty->key)) && !(rc = expect(p, T_COMMA, "','", NULL)) &&
		    !(rc = parse_type(p, depth + 1, &ty->value)))
			rc = expect(p, T_GT, "'>'", NULL);
	} else if (IS("ROW")) {
		if (!(rc = new_type(PM_ROW, &ty)))
			rc = parse_row(p, depth + 1, ty);
	} else if (IS("VECTOR")) {
		tok *la;
		if (!(rc = new_type(PM_VECTOR, &ty)) && !(rc = expect(p, T_LT, "'<' after VECTOR", NULL)) &&
		    !(rc = peek(p, &la))) {
			at = la->start;
			if (!(rc = parse_type(p, depth + 1, &ty->element)) &&
			    !pm_type__vector_element_ok(ty->element->root))
				rc = perr(p, at, "invalid VECTOR element type (expected BOOLEAN, TINYINT, "
					"SMALLINT, INT, BIGINT, FLOAT or DOUBLE)");
			if (!rc && !(rc = expect(p, T_COMMA, "','", NULL)) &&
			    !(rc = expect_int(p, &ty->length, &at)) && !(rc = expect(p, T_GT, "'>'", NULL)) &&
			    ty->length < 1)
				rc = perr(p, at, "VECTOR length %d out of range 1..%d", (int)ty->length,
					PM_MAX_LENGTH);
		}
	} else {
		return perr(p, t.start, "unknown type '%.*s'", (int)t.len, p->s + t.start);
	}
#undef IS
	if (rc) {
		pm_type_free(ty);
		return rc;
	}
	*out = ty;
	return 0;
}

static int parse_nullability(parser *p, int *nullable)
{
	int got, rc = accept_word(p, "NOT", &got);
	if (rc)
		return rc;
	if (got) {
		if ((rc = expect_word(p, "NULL")))
			return rc;
		*nullable = 0;
		return 0;
	}
	if ((rc = accept_word(p, "NULL", &got)))
		return rc;
	if (got)
		*nullable = 1;
	return 0;
}

static int parse_type(parser *p, int depth, pm_type **out)
{
	pm_type *t = NULL, *w;
	pm_type_root suffix = PM_ARRAY;
	tok *la;
	int rc, got;
	*out = NULL;
	if ((rc = peek(p, &la)))
		return rc;
	if (depth > PM_TYPE_MAX_DEPTH)
		return perr(p, la->start, "types nested deeper than %d levels", PM_TYPE_MAX_DEPTH);
	if ((rc = parse_base(p, depth, &t)) || (rc = parse_nullability(p, &t->nullable)))
		goto fail;
	/* Java's suffix notation: "INT ARRAY", "STRING NOT NULL MULTISET". */
	if ((rc = accept_word(p, "ARRAY", &got)))
		goto fail;
	if (got)
		suffix = PM_ARRAY;
	else if ((rc = accept_word(p, "MULTISET", &got)))
		goto fail;
	else if (got)
		suffix = PM_MULTISET;
	if (got) {
		if (depth + 1 > PM_TYPE_MAX_DEPTH) {
			rc = perr(p, p->last, "types nested deeper than %d levels", PM_TYPE_MAX_DEPTH);
			goto fail;
		}
		if (!(w = pm_type_new(suffix))) {
			rc = PAIMON_ENOMEM;
			goto fail;
		}
		w->element = t;
		t = w;
		if ((rc = parse_nullability(p, &t->nullable)))
			goto fail;
	}
	*out = t;
	return 0;
fail:
	pm_type_free(t);
	return rc;
}

int pm_type__parse_at(const char *text, int depth, pm_type **out)
{
	parser p;
	tok t;
	int rc;
	*out = NULL;
	if (!text)
		return pm_err(PAIMON_EINVAL, "invalid type: NULL text");
	memset(&p, 0, sizeof p);
	p.s = text;
	{
		size_t n = strlen(text), bad = pm_type__utf8_prefix(text, n);
		if (bad != n)
			return pm_err(PAIMON_EINVAL, "invalid type: not valid UTF-8 at position %zu", bad);
	}
	if ((rc = parse_type(&p, depth, out)))
		return rc;
	if ((rc = next(&p, &t)) == 0 && t.kind != T_END)
		rc = perr(&p, t.start, "unexpected %s after the type", tok_desc(&t));
	if (rc) {
		pm_type_free(*out);
		*out = NULL;
	}
	return rc;
}

int pm_type_parse(const char *text, pm_type **out)
{
	return pm_type__parse_at(text, 1, out);
}
