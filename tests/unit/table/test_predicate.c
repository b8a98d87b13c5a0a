/*
 * tests/unit/table/test_predicate.c - predicates: text round trips and
 * errors, byte form round trips and corruption, binding errors, and a
 * randomized check (fixed seed) over a batch with a column of every
 * comparable type: exact batch evaluation equals a scalar reference,
 * statistics computed from the rows never prune a batch with a matching
 * row, and partition tests on full rows are exact.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "arrow/arrow_builder.h"
#include "core/buf.h"
#include "core/mem.h"
#include "core/strs.h"
#include "meta/schema.h"
#include "table/pred_internal.h"
#include "table/predicate.h"
#include "types/datum.h"
#include "test.h"

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static char *print(const pm_predicate *p)
{
	pm_buf b = PM_BUF_INIT;
	if (pm_pred_to_string(p, &b))
		abort();
	return pm_buf_detach(&b);
}

/* parse -> print == want; print parses back to the same print */
static void rt(const char *text, const char *want)
{
	pm_predicate *p = NULL, *q = NULL;
	int rc = pm_pred_parse(text, &p);
	CHECK_OK(rc);
	if (rc)
		return;
	char *s1 = print(p);
	CHECK_STR(s1, want ? want : text);
	CHECK_OK(pm_pred_parse(s1, &q));
	if (q) {
		char *s2 = print(q);
		CHECK_STR(s2, s1);
		pm_free(s2);
	}
	/* byte form */
	pm_buf b = PM_BUF_INIT;
	pm_predicate *d = NULL;
	CHECK_OK(pm_pred_encode(p, &b));
	CHECK_OK(pm_pred_decode(b.data, b.len, &d));
	if (d) {
		char *s3 = print(d);
		CHECK_STR(s3, s1);
		pm_free(s3);
	}
	/* copy */
	pm_predicate *c = NULL;
	CHECK_OK(pm_pred_copy(p, &c));
	if (c) {
		char *s4 = print(c);
		CHECK_STR(s4, s1);
		pm_free(s4);
	}
	pm_pred_free(c);
	pm_pred_free(d);
	pm_buf_dispose(&b);
	pm_free(s1);
	pm_pred_free(p);
	pm_pred_free(q);
}

static void test_text(void)
{
	rt("a = 1", NULL);
	rt("a=1", "a = 1");
	rt("a != 'x'", "a <> 'x'");
	rt("a < -1.5e3 AND b >= 'it''s' OR c IS NULL", "(a < -1.5e3 AND b >= 'it''s') OR c IS NULL");
	rt("a < 1 AND (b > 2 OR c <= 3)", NULL);
	rt("(a < 1 AND b > 2) OR c <= 3", NULL);
	rt("(a < 1 AND b > 2) AND c <= 3", NULL);
	rt("a IN (1, 2, NULL, 'x')", NULL);
	rt("a NOT IN ()", NULL);
	rt("a in ()", "a IN ()");
	rt("a IS NOT NULL", NULL);
	rt("not a = 1", "NOT (a = 1)");
	rt("NOT (a = 1 OR b = 2)", NULL);
	rt("NOT NOT (a = 1)", "NOT (NOT (a = 1))");
	rt("s LIKE 'ab%'", "startsWith(s, 'ab')");
	rt("s LIKE '%ab'", "endsWith(s, 'ab')");
	rt("s LIKE '%ab%'", "contains(s, 'ab')");
	rt("s LIKE 'ab'", "s = 'ab'");
	rt("s NOT LIKE 'ab%'", "NOT (startsWith(s, 'ab'))");
	rt("startsWith(s, '50%_x')", NULL);
	rt("x BETWEEN 1 AND 5", "x >= 1 AND x <= 5");
	rt("x NOT BETWEEN 1 AND 5", "NOT (x >= 1 AND x <= 5)");
	rt("`select` = true", "select = true");
	rt("`a b``c` = false", NULL);
	rt("`and` = 1", NULL);
	rt("_x$1 = 1", NULL);
	rt("b = X'00ff10'", NULL);
	rt("b = x'41'", "b = 'A'");
	rt("s = 'caf\xc3\xa9'", NULL);
	rt("s = '\xff'", "s = X'ff'");
	rt("d = '2024-05-14'", NULL);
	rt("n = +5", NULL);
	rt("n = .5", NULL);
	rt("  a = 1  ", "a = 1");
	rt("A = 1 and B = 2 Or C = 3", "(A = 1 AND B = 2) OR C = 3");
}

static void bad(const char *text)
{
	pm_predicate *p = (pm_predicate *)1;
	int rc = pm_pred_parse(text, &p);
	if (rc != PAIMON_EINVAL)
		fprintf(stderr, "  accepted: %s\n", text);
	CHECK_RC(rc, PAIMON_EINVAL);
	CHECK(p == NULL);
	if (rc == PAIMON_EINVAL)
		CHECK_MSG("position");
	pm_pred_free(rc ? NULL : p);
}

static void test_text_errors(void)
{
	bad("");
	bad("a");
	bad("a =");
	bad("a = 1 AND");
	bad("a = 1 b = 2");
	bad("(a = 1");
	bad("a = 1)");
	bad("a = NULL");
	bad("a IN (1, 2");
	bad("a IN 1");
	bad("a IS 1");
	bad("a = 'unterminated");
	bad("`a = 1");
	bad("`` = 1");
	bad("and = 1");
	bad("a LIKE 'a_b'");
	bad("a LIKE 'a%b%'");
	bad("a BETWEEN 1");
	bad("a BETWEEN NULL AND 2");
	bad("a = X'0'");
	bad("a = X'zz'");
	bad("a = 1x");
	bad("startsWith(a 'x')");
	bad("startsWith(a, NULL)");
	bad("a NOT = 1");
	bad("a = -");
	/* nesting is bounded */
	{
		pm_buf b = PM_BUF_INIT;
		for (int i = 0; i < 1000; i++)
			pm_buf_putc(&b, '(');
		pm_buf_puts(&b, "a = 1");
		for (int i = 0; i < 1000; i++)
			pm_buf_putc(&b, ')');
		bad(pm_buf_cstr(&b));
		pm_buf_clear(&b);
		for (int i = 0; i < 1000; i++)
			pm_buf_puts(&b, "NOT ");
		pm_buf_puts(&b, "a = 1");
		bad(pm_buf_cstr(&b));
		pm_buf_dispose(&b);
	}
}

/* A one-child AND/OR prints as its child; the grouping around it must
 * survive: AND(a, OR1(OR(b, c))) is "a AND (b OR c)", not "a AND b OR c"
 * (fuzz_predicate finding: the printed text parsed to a different tree). */
static void test_single_child_grouping(void)
{
	pm_predicate *a, *b, *c, *or2, *or1, *top, *k[2];
	CHECK_OK(pm_pred_leaf(&a, "a", PM_PRED_IS_NULL, NULL, NULL, 0));
	CHECK_OK(pm_pred_leaf(&b, "b", PM_PRED_IS_NULL, NULL, NULL, 0));
	CHECK_OK(pm_pred_leaf(&c, "c", PM_PRED_IS_NULL, NULL, NULL, 0));
	k[0] = b;
	k[1] = c;
	CHECK_OK(pm_pred_combine(&or2, PM_PRED_OR, k, 2));
	CHECK_OK(pm_pred_combine(&or1, PM_PRED_AND, &or2, 1));
	k[0] = a;
	k[1] = or1;
	CHECK_OK(pm_pred_combine(&top, PM_PRED_AND, k, 2));
	char *s = print(top);
	CHECK_STR(s, "a IS NULL AND (b IS NULL OR c IS NULL)");
	pm_free(s);
	pm_pred_free(top);
}

static void test_construct_and_bytes(void)
{
	pm_predicate *p = NULL, *k[2];
	const char *lits[3] = {"1", NULL, "x\0y"};
	size_t lens[3] = {1, 0, 3};
	CHECK_OK(pm_pred_leaf(&k[0], "a", PM_PRED_IN, lits, lens, 3));
	CHECK_OK(pm_pred_leaf(&k[1], "b", PM_PRED_IS_NULL, NULL, NULL, 0));
	CHECK_OK(pm_pred_combine(&p, PM_PRED_OR, k, 2));
	char *s = print(p);
	CHECK_STR(s, "a IN (1, NULL, X'780079') OR b IS NULL");
	pm_free(s);
	pm_strlist cols = {0};
	CHECK_OK(pm_pred_columns(p, &cols));
	CHECK(cols.len == 2 && !strcmp(cols.items[0], "a") && !strcmp(cols.items[1], "b"));
	pm_strlist_dispose(&cols);
	/* arity errors */
	pm_predicate *e = NULL;
	CHECK_RC(pm_pred_leaf(&e, "a", PM_PRED_EQ, lits, lens, 2), PAIMON_EINVAL);
	CHECK_RC(pm_pred_leaf(&e, "a", PM_PRED_EQ, &lits[1], NULL, 1), PAIMON_EINVAL);
	CHECK_RC(pm_pred_leaf(&e, "a", PM_PRED_IS_NULL, lits, lens, 1), PAIMON_EINVAL);
	CHECK_RC(pm_pred_leaf(&e, "", PM_PRED_IS_NULL, NULL, NULL, 0), PAIMON_EINVAL);
	CHECK_RC(pm_pred_leaf(&e, "a", PM_PRED_AND, NULL, NULL, 0), PAIMON_EINVAL);
	CHECK_RC(pm_pred_combine(&e, PM_PRED_AND, NULL, 0), PAIMON_EINVAL);
	/* bytes: every truncation and many corruptions fail cleanly */
	pm_buf b = PM_BUF_INIT;
	CHECK_OK(pm_pred_encode(p, &b));
	for (size_t n = 0; n < b.len; n++) {
		CHECK_RC(pm_pred_decode(b.data, n, &e), PAIMON_ECORRUPT);
		CHECK(e == NULL);
	}
	uint8_t *c = malloc(b.len + 1);
	for (size_t i = 0; i < b.len; i++)
		for (int bit = 0; bit < 8; bit++) {
			memcpy(c, b.data, b.len);
			c[i] ^= (uint8_t)(1u << bit);
			int rc = pm_pred_decode(c, b.len, &e);
			CHECK(rc == 0 || rc == PAIMON_ECORRUPT);
			pm_pred_free(e);
		}
	memcpy(c, b.data, b.len);
	c[b.len] = 0;
	CHECK_RC(pm_pred_decode(c, b.len + 1, &e), PAIMON_ECORRUPT);
	CHECK_MSG("trailing");
	c[4] = 9;
	CHECK_RC(pm_pred_decode(c, b.len, &e), PAIMON_ECORRUPT);
	CHECK_MSG("version");
	free(c);
	pm_buf_dispose(&b);
	pm_pred_free(p);
	/* OOM everywhere in parse and copy */
	for (long n = 1; n < 400; n++) {
		pm_mem_fail_at(n);
		int rc = pm_pred_parse("a IN (1, 2, 'x') AND NOT (b LIKE 'q%' OR c BETWEEN 1 AND 2)", &p);
		pm_mem_fail_at(0);
		CHECK(rc == 0 || rc == PAIMON_ENOMEM);
		if (!rc) {
			pm_pred_free(p);
			break;
		}
	}
}

/* ------------------------------------------------------------ random */

#define NCOL 17
static const char *COLTYPES[NCOL] = {
	"BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL(10, 2)", "DECIMAL(25, 3)",
	"DATE", "TIME", "TIMESTAMP(3)", "TIMESTAMP(6)", "TIMESTAMP(9)", "TIMESTAMP_LTZ(6)", "STRING", "BYTES",
};
static const char *DOMAIN[NCOL][9] = {
	{"true", "false"},
	{"-128", "-1", "0", "1", "127"},
	{"-300", "-1", "0", "2", "300"},
	{"-3", "-1", "0", "1", "2", "3"},
	{"-9223372036854775808", "-5", "0", "5", "9223372036854775807"},
	{"-1.5", "-0", "0", "1", "2.5", "nan", "inf", "-inf"},
	{"-1.5", "-0", "0", "1", "2.5", "nan", "inf", "-inf", "1e300"},
	{"-1.50", "0.00", "0.01", "1.25", "99999999.99"},
	{"-1234567890123456789012.123", "-1.000", "0.000", "1.500", "2.000", "1234567890123456789012.999"},
	{"1969-12-31", "1970-01-01", "2024-05-14", "2024-05-15"},
	{"00:00:00", "01:02:03.004", "23:59:59.999"},
	{"1969-12-31 23:59:59.999", "1970-01-01 00:00:00", "2024-05-14 01:02:03.123"},
	{"1969-12-31 23:59:59.999999", "1970-01-01 00:00:00", "2024-05-14 01:02:03.123456"},
	{"1969-12-31 23:59:59.999999999", "1970-01-01 00:00:00", "2024-05-14 01:02:03.123456789"},
	{"1969-12-31 23:59:59.999999", "1970-01-01 00:00:00", "2024-05-14 01:02:03.123456"},
	{"", "a", "ab", "abc", "b", "ba", "caf\xc3\xa9", "zz"},
	{"", "\x01", "\x01\x02", "\x7f", "\xff", "\xff\x01"},
};
/* extra literal texts (not in the data) */
static const char *EXTRA[NCOL][4] = {
	{"1"}, {"2", "-2"}, {"1"}, {"-2", "4"}, {"6"}, {"0.5", "3"}, {"0.5", "-1e300"}, {"0.5", "-99999999.99"},
	{"1.001"}, {"2000-01-01"}, {"00:00:00.001"},
	{"1970-01-01 00:00:00.0005", "2024-05-14 01:02:03.1235"},
	{"1970-01-01 00:00:00.0000005", "2024-05-14 01:02:03"},
	{"1970-01-01 00:00:00.000000001"},
	{"2024-05-14 01:02:03.1234567"},
	{"a\xc3", "c", "aa"}, {"\x01\x01", "\x80"},
};

static size_t dom_n(int c)
{
	size_t n = 0;
	while (n < 9 && DOMAIN[c][n])
		n++;
	return n;
}

static size_t extra_n(int c)
{
	size_t n = 0;
	while (n < 4 && EXTRA[c][n])
		n++;
	return n;
}

static pm_type *types[NCOL];
static pm_table_schema *schema;

static void setup(void)
{
	pm_schema_spec spec;
	memset(&spec, 0, sizeof spec);
	for (int c = 0; c < NCOL; c++) {
		char name[8];
		snprintf(name, sizeof name, "c%d", c);
		pm_type *t = NULL;
		if (pm_type_parse(COLTYPES[c], &t) || pm_schema_spec_add_field(&spec, name, t, NULL))
			abort();
	}
	if (pm_schema_from_spec(&spec, &schema))
		abort();
	pm_schema_spec_dispose(&spec);
	for (int c = 0; c < NCOL; c++)
		types[c] = schema->fields[c].type;
}

static const char *tsfmt(const pm_type *t)
{
	return t->precision <= 3 ? "tsm:" : t->precision <= 6 ? "tsu:" : "tsn:";
}

static pm_array_builder *col_builder(int c)
{
	const pm_type *t = types[c];
	char fmt[32];
	switch (t->root) {
	case PM_BOOLEAN: return pm_ab_new_bool();
	case PM_TINYINT: return pm_ab_new_fixed("c", 1);
	case PM_SMALLINT: return pm_ab_new_fixed("s", 2);
	case PM_INT: return pm_ab_new_fixed("i", 4);
	case PM_BIGINT: return pm_ab_new_fixed("l", 8);
	case PM_FLOAT: return pm_ab_new_fixed("f", 4);
	case PM_DOUBLE: return pm_ab_new_fixed("g", 8);
	case PM_DECIMAL:
		snprintf(fmt, sizeof fmt, "d:%d,%d", (int)t->precision, (int)t->scale);
		return pm_ab_new_fixed(fmt, 16);
	case PM_DATE: return pm_ab_new_fixed("tdD", 4);
	case PM_TIME: return pm_ab_new_fixed("ttm", 4);
	case PM_TIMESTAMP: return pm_ab_new_fixed(tsfmt(t), 8);
	case PM_TIMESTAMP_LTZ:
		return pm_ab_new_fixed(t->precision <= 3 ? "tsm:UTC" : t->precision <= 6 ? "tsu:UTC" : "tsn:UTC", 8);
	case PM_VARCHAR: return pm_ab_new_binary("u", 0);
	default: return pm_ab_new_binary("z", 0);
	}
}

static void append_datum(pm_array_builder *ab, const pm_type *t, const pm_binrow_datum *d)
{
	if (d->is_null) {
		pm_ab_append_nulls(ab, 1);
		return;
	}
	switch (t->root) {
	case PM_BOOLEAN: { uint8_t v = (uint8_t)(d->i != 0); pm_ab_append_bools(ab, &v, 1); break; }
	case PM_TINYINT: { int8_t v = (int8_t)d->i; pm_ab_append_fixed(ab, &v, 1); break; }
	case PM_SMALLINT: { int16_t v = (int16_t)d->i; pm_ab_append_fixed(ab, &v, 1); break; }
	case PM_INT: case PM_DATE: case PM_TIME: { int32_t v = (int32_t)d->i; pm_ab_append_fixed(ab, &v, 1); break; }
	case PM_BIGINT: pm_ab_append_fixed(ab, &d->i, 1); break;
	case PM_FLOAT: pm_ab_append_fixed(ab, &d->f, 1); break;
	case PM_DOUBLE: pm_ab_append_fixed(ab, &d->d, 1); break;
	case PM_DECIMAL: {
		__int128 v;
		if (t->precision <= 18) {
			v = d->i;
		} else {
			unsigned __int128 u = d->bytes.p[0] & 0x80 ? ~(unsigned __int128)0 : 0;
			for (size_t k = 0; k < d->bytes.n; k++)
				u = (u << 8) | d->bytes.p[k];
			v = (__int128)u;
		}
		uint8_t le[16];
		unsigned __int128 u = (unsigned __int128)v;
		for (int k = 0; k < 16; k++, u >>= 8)
			le[k] = (uint8_t)u;
		pm_ab_append_fixed(ab, le, 1);
		break;
	}
	case PM_TIMESTAMP: case PM_TIMESTAMP_LTZ: {
		int64_t v = t->precision <= 3 ? d->ts.millis
			: t->precision <= 6 ? d->ts.millis * 1000 + d->ts.nano_of_milli / 1000
					    : d->ts.millis * 1000000 + d->ts.nano_of_milli;
		pm_ab_append_fixed(ab, &v, 1);
		break;
	}
	default: pm_ab_append_binary(ab, d->bytes.p, d->bytes.n); break;
	}
}

/* Rows as datums (row-major), plus the batch. */
typedef struct rows_t {
	int64_t n;
	pm_binrow_datum *v; /* n * NCOL */
	uint8_t **owned;
	struct ArrowSchema s;
	struct ArrowArray a;
} rows_t;

static void make_rows(rows_t *r, int64_t n)
{
	r->n = n;
	r->v = calloc((size_t)(n * NCOL + 1), sizeof *r->v);
	r->owned = calloc((size_t)(n * NCOL + 1), sizeof *r->owned);
	pm_array_builder *ch[NCOL];
	for (int c = 0; c < NCOL; c++) {
		char name[8];
		snprintf(name, sizeof name, "c%d", c);
		ch[c] = col_builder(c);
		pm_ab_set_name(ch[c], name, 1);
		/* a leading junk row hidden by the column's offset */
		pm_binrow_datum junk;
		uint8_t *o = NULL;
		if (pm_datum_from_text(types[c], DOMAIN[c][0], strlen(DOMAIN[c][0]), &junk, &o))
			abort();
		append_datum(ch[c], types[c], &junk);
		pm_free(o);
	}
	int null_pct = (int)(rnd() % 40);
	for (int64_t i = 0; i < n; i++)
		for (int c = 0; c < NCOL; c++) {
			pm_binrow_datum *d = &r->v[i * NCOL + c];
			if ((int)(rnd() % 100) < null_pct) {
				memset(d, 0, sizeof *d);
				d->is_null = 1;
			} else {
				const char *txt = DOMAIN[c][rnd() % dom_n(c)];
				if (pm_datum_from_text(types[c], txt, strlen(txt), d, &r->owned[i * NCOL + c]))
					abort();
			}
			append_datum(ch[c], types[c], d);
		}
	struct ArrowArray cols[NCOL];
	struct ArrowSchema cs[NCOL];
	for (int c = 0; c < NCOL; c++) {
		if (pm_ab_finish(ch[c], &cols[c]) || pm_ab_schema(ch[c], &cs[c]))
			abort();
		cols[c].offset = 1;
		cols[c].length -= 1;
		pm_ab_free(ch[c]);
	}
	/* assemble the struct: a builder struct with empty children, then
	 * swap the finished columns in */
	pm_array_builder *sch[NCOL];
	for (int c = 0; c < NCOL; c++) {
		char name[8];
		snprintf(name, sizeof name, "c%d", c);
		sch[c] = col_builder(c);
		pm_ab_set_name(sch[c], name, 1);
		pm_ab_append_nulls(sch[c], n);
	}
	pm_array_builder *st = pm_ab_new_struct(sch, NCOL);
	pm_ab_append_valid(st, n);
	if (pm_ab_finish(st, &r->a) || pm_ab_schema(st, &r->s))
		abort();
	pm_ab_free(st);
	for (int c = 0; c < NCOL; c++) {
		r->a.children[c]->release(r->a.children[c]);
		*r->a.children[c] = cols[c];
		cs[c].release(&cs[c]);
	}
}

static void free_rows(rows_t *r)
{
	for (int64_t i = 0; i < r->n * NCOL; i++)
		pm_free(r->owned[i]);
	free(r->owned);
	free(r->v);
	r->a.release(&r->a);
	r->s.release(&r->s);
}

/* ---- scalar reference (independent of pred_eval.c) ---- */

typedef struct rleaf {
	int col;
	pm_pred_op op;
	int nl;
	const char *lit[4]; /* NULL = SQL NULL */
} rleaf;

typedef struct rnode {
	pm_pred_op op;
	rleaf leaf;
	int nk;
	struct rnode *k[3];
} rnode;

/* T=2, N=1, F=0 */
static int ref_cmp(const pm_type *t, const pm_binrow_datum *a, const pm_binrow_datum *b, int *unordered)
{
	*unordered = 0;
	if (t->root == PM_FLOAT || t->root == PM_DOUBLE) {
		double x = t->root == PM_FLOAT ? a->f : a->d, y = t->root == PM_FLOAT ? b->f : b->d;
		if (x != x || y != y) {
			*unordered = 1;
			return 0;
		}
		return x < y ? -1 : x > y;
	}
	return pm_datum_compare(t, a, b);
}

static int ref_leaf(const rleaf *l, const pm_binrow_datum *row)
{
	const pm_type *t = types[l->col];
	const pm_binrow_datum *v = &row[l->col];
	if (l->op == PM_PRED_IS_NULL)
		return v->is_null ? 2 : 0;
	if (l->op == PM_PRED_IS_NOT_NULL)
		return v->is_null ? 0 : 2;
	if (v->is_null)
		return 1;
	pm_binrow_datum lit[4] = {{0}};
	uint8_t *own[4] = {0};
	for (int i = 0; i < l->nl; i++) {
		memset(&lit[i], 0, sizeof lit[i]);
		lit[i].is_null = !l->lit[i];
		if (l->lit[i] && pm_datum_from_text(t, l->lit[i], strlen(l->lit[i]), &lit[i], &own[i]))
			abort();
	}
	int res = 0, un, c;
	switch (l->op) {
	case PM_PRED_IN: case PM_PRED_NOT_IN: {
		int f = 0;
		for (int i = 0; i < l->nl; i++)
			if (!lit[i].is_null && ref_cmp(t, v, &lit[i], &un) == 0 && !un)
				f = 1;
		res = f == (l->op == PM_PRED_IN);
		break;
	}
	case PM_PRED_STARTS_WITH:
		res = v->bytes.n >= lit[0].bytes.n && !memcmp(v->bytes.p, lit[0].bytes.p, lit[0].bytes.n);
		break;
	case PM_PRED_ENDS_WITH:
		res = v->bytes.n >= lit[0].bytes.n &&
		      !memcmp(v->bytes.p + v->bytes.n - lit[0].bytes.n, lit[0].bytes.p, lit[0].bytes.n);
		break;
	case PM_PRED_CONTAINS:
		res = 0;
		for (size_t s = 0; s + lit[0].bytes.n <= v->bytes.n && !res; s++)
			res = !memcmp(v->bytes.p + s, lit[0].bytes.p, lit[0].bytes.n);
		break;
	default:
		c = ref_cmp(t, v, &lit[0], &un);
		if (un)
			res = l->op == PM_PRED_NE;
		else
			res = l->op == PM_PRED_EQ ? c == 0 : l->op == PM_PRED_NE ? c != 0 : l->op == PM_PRED_LT ? c < 0
			    : l->op == PM_PRED_LE ? c <= 0 : l->op == PM_PRED_GT ? c > 0 : c >= 0;
	}
	for (int i = 0; i < l->nl; i++)
		pm_free(own[i]);
	return res ? 2 : 0;
}

static int ref_eval(const rnode *n, const pm_binrow_datum *row)
{
	if (n->op == PM_PRED_NOT)
		return 2 - ref_eval(n->k[0], row);
	if (n->op == PM_PRED_AND || n->op == PM_PRED_OR) {
		int r = ref_eval(n->k[0], row);
		for (int i = 1; i < n->nk; i++) {
			int x = ref_eval(n->k[i], row);
			r = n->op == PM_PRED_AND ? (x < r ? x : r) : (x > r ? x : r);
		}
		return r;
	}
	return ref_leaf(&n->leaf, row);
}

static const char *rand_lit(int c)
{
	size_t nd = dom_n(c), ne = extra_n(c);
	uint64_t k = rnd() % (nd + ne);
	return k < nd ? DOMAIN[c][k] : EXTRA[c][k - nd];
}

static rnode *gen(int depth)
{
	rnode *n = calloc(1, sizeof *n);
	int kind = depth >= 3 ? 0 : (int)(rnd() % 5);
	if (kind == 1 || kind == 2) {
		n->op = kind == 1 ? PM_PRED_AND : PM_PRED_OR;
		n->nk = 2 + (int)(rnd() % 2);
		for (int i = 0; i < n->nk; i++)
			n->k[i] = gen(depth + 1);
		return n;
	}
	if (kind == 3) {
		n->op = PM_PRED_NOT;
		n->nk = 1;
		n->k[0] = gen(depth + 1);
		return n;
	}
	rleaf *l = &n->leaf;
	l->col = (int)(rnd() % NCOL);
	int str = types[l->col]->root == PM_VARCHAR;
	int nops = str ? 13 : 10;
	l->op = (pm_pred_op)(rnd() % (uint64_t)nops);
	n->op = l->op;
	if (l->op == PM_PRED_IN || l->op == PM_PRED_NOT_IN) {
		l->nl = (int)(rnd() % 4);
		for (int i = 0; i < l->nl; i++)
			l->lit[i] = rnd() % 6 == 0 ? NULL : rand_lit(l->col);
	} else if (l->op != PM_PRED_IS_NULL && l->op != PM_PRED_IS_NOT_NULL) {
		l->nl = 1;
		l->lit[0] = rand_lit(l->col);
	}
	return n;
}

static void free_node(rnode *n)
{
	for (int i = 0; i < n->nk; i++)
		free_node(n->k[i]);
	free(n);
}

static pm_predicate *build(const rnode *n)
{
	pm_predicate *p = NULL;
	if (n->op == PM_PRED_AND || n->op == PM_PRED_OR) {
		pm_predicate *k[3];
		for (int i = 0; i < n->nk; i++)
			k[i] = build(n->k[i]);
		if (pm_pred_combine(&p, n->op, k, (size_t)n->nk))
			abort();
		return p;
	}
	if (n->op == PM_PRED_NOT) {
		if (pm_pred_not(&p, build(n->k[0])))
			abort();
		return p;
	}
	char name[8];
	snprintf(name, sizeof name, "c%d", n->leaf.col);
	if (pm_pred_leaf(&p, name, n->op, n->leaf.lit, NULL, (size_t)n->leaf.nl))
		abort();
	return p;
}

/* statistics of rows [0, n) per column, optionally weakened */
static pm_col_stats stats[NCOL];
static pm_binrow_datum trunc_min[NCOL], trunc_max[NCOL];
static uint8_t trunc_buf[NCOL][64];
static int absent[NCOL];

static void compute_stats(const rows_t *r, int weaken)
{
	for (int c = 0; c < NCOL; c++) {
		pm_col_stats *s = &stats[c];
		const pm_type *t = types[c];
		memset(s, 0, sizeof *s);
		int flt = t->root == PM_FLOAT || t->root == PM_DOUBLE;
		for (int64_t i = 0; i < r->n; i++) {
			const pm_binrow_datum *d = &r->v[i * NCOL + c];
			if (d->is_null) {
				s->null_count++;
				continue;
			}
			if (flt && ((t->root == PM_FLOAT && d->f != d->f) || (t->root == PM_DOUBLE && d->d != d->d)))
				continue; /* NaN is not in Parquet statistics */
			if (!s->has_min || pm_datum_compare(t, d, &s->min) < 0)
				s->min = *d;
			if (!s->has_max || pm_datum_compare(t, d, &s->max) > 0)
				s->max = *d;
			s->has_min = s->has_max = 1;
		}
		absent[c] = 0;
		if (!weaken)
			continue;
		switch (rnd() % 6) {
		case 0: s->has_min = 0; break;
		case 1: s->null_count = -1; break;
		case 2:
			/* truncated string/bytes stats: a prefix of min, max with 0xff appended */
			if (s->has_min && (t->root == PM_VARCHAR || t->root == PM_VARBINARY) && s->max.bytes.n < 60) {
				trunc_min[c] = s->min;
				trunc_min[c].bytes.n /= 2;
				memcpy(trunc_buf[c], s->max.bytes.p, s->max.bytes.n);
				trunc_buf[c][s->max.bytes.n] = 0xff;
				trunc_max[c] = s->max;
				trunc_max[c].bytes.p = trunc_buf[c];
				trunc_max[c].bytes.n++;
				s->min = trunc_min[c];
				s->max = trunc_max[c];
			}
			break;
		default: break;
		}
	}
}

static const pm_col_stats *lookup(void *ctx, int32_t field_id)
{
	(void)ctx;
	for (int c = 0; c < NCOL; c++)
		if (schema->fields[c].id == field_id)
			return absent[c] ? NULL : &stats[c];
	return NULL;
}

static void test_random(void)
{
	if (!schema)
		setup();
	int never = 0, matched_batches = 0, total = 0, part_never = 0;
	for (int iter = 0; iter < 3000; iter++) {
		rows_t r;
		int64_t n = iter % 10 == 0 ? 0 : 1 + (int64_t)(rnd() % (iter % 3 ? 4 : 60));
		make_rows(&r, n);
		rnode *g = gen(0);
		pm_predicate *p = build(g);
		/* the text and byte forms describe the same predicate */
		if (iter % 4 == 0) {
			char *s = print(p);
			pm_predicate *q = NULL;
			int rc = pm_pred_parse(s, &q);
			if (rc)
				fprintf(stderr, "  unparsable print: %s\n", s);
			CHECK_OK(rc);
			if (!rc) {
				pm_pred_free(p);
				p = q;
			}
			pm_free(s);
		}
		int rc = pm_pred_bind(p, schema);
		CHECK_OK(rc);
		if (rc) {
			free_node(g);
			pm_pred_free(p);
			free_rows(&r);
			continue;
		}
		uint8_t *sel = malloc((size_t)n + 1);
		rc = pm_pred_eval_batch(p, &r.s, &r.a, sel);
		CHECK_OK(rc);
		int any = 0;
		for (int64_t i = 0; i < n && !rc; i++) {
			int want = ref_eval(g, &r.v[i * NCOL]) == 2;
			any |= want;
			if (sel[i] != want) {
				char *s = print(p);
				fprintf(stderr, "  iter %d row %lld: %s -> %d, reference %d\n", iter, (long long)i, s, sel[i],
					want);
				pm_free(s);
				CHECK(sel[i] == want);
				break;
			}
			/* partition test with every column known is exact */
			int32_t ids[NCOL];
			for (int c = 0; c < NCOL; c++)
				ids[c] = schema->fields[c].id;
			int pt = pm_pred_test_partition(p, ids, &r.v[i * NCOL], NCOL);
			CHECK(pt == (want ? PM_PRED_MAYBE : PM_PRED_NEVER));
			part_never += pt == PM_PRED_NEVER;
			/* only some columns known: never a false NEVER */
			if (want)
				CHECK(pm_pred_test_partition(p, ids, &r.v[i * NCOL], NCOL / 2) == PM_PRED_MAYBE);
		}
		/* statistics never prune a batch with a matching row */
		for (int w = 0; w < 2; w++) {
			compute_stats(&r, w);
			if (w && rnd() % 4 == 0) {
				/* columns absent from the file: all null there */
				int c = (int)(rnd() % NCOL);
				int all_null = stats[c].null_count == n;
				absent[c] = all_null;
			}
			int ts = pm_pred_test_stats(p, n, lookup, NULL);
			total++;
			if (ts == PM_PRED_NEVER)
				never++;
			if (any && ts != PM_PRED_MAYBE) {
				char *s = print(p);
				fprintf(stderr, "  iter %d: stats said NEVER for %s with %lld rows, a row matches\n", iter, s,
					(long long)n);
				pm_free(s);
				CHECK(ts == PM_PRED_MAYBE);
			}
			/* unknown row count is fine too */
			if (any)
				CHECK(pm_pred_test_stats(p, -1, lookup, NULL) == PM_PRED_MAYBE);
		}
		matched_batches += any;
		free(sel);
		free_node(g);
		pm_pred_free(p);
		free_rows(&r);
	}
	/* the tests must be able to prune at all */
	CHECK(never > total / 10);
	CHECK(part_never > 100);
	CHECK(matched_batches > 100);
	printf("  random: %d stats tests, %d NEVER; %d batches with matches; %d partition NEVERs\n", total, never,
	       matched_batches, part_never);
}

static void test_bind_errors(void)
{
	if (!schema)
		setup();
	pm_predicate *p = NULL;
	CHECK_OK(pm_pred_parse("nope = 1", &p));
	CHECK_RC(pm_pred_bind(p, schema), PAIMON_EINVAL);
	CHECK_MSG("nope");
	pm_pred_free(p);
	CHECK_OK(pm_pred_parse("c3 = 'x'", &p));
	CHECK_RC(pm_pred_bind(p, schema), PAIMON_EINVAL);
	CHECK_MSG("c3");
	pm_pred_free(p);
	CHECK_OK(pm_pred_parse("c1 = 1000", &p));
	CHECK_RC(pm_pred_bind(p, schema), PAIMON_EINVAL);
	pm_pred_free(p);
	CHECK_OK(pm_pred_parse("startsWith(c3, '1')", &p));
	CHECK_RC(pm_pred_bind(p, schema), PAIMON_EINVAL);
	CHECK_MSG("string");
	pm_pred_free(p);
	/* binding again works and a bound predicate still prints */
	CHECK_OK(pm_pred_parse("c3 = 1 OR c15 = 'x'", &p));
	CHECK_OK(pm_pred_bind(p, schema));
	CHECK_OK(pm_pred_bind(p, schema));
	char *s = print(p);
	CHECK_STR(s, "c3 = 1 OR c15 = 'x'");
	pm_free(s);
	int32_t ids[2] = {schema->fields[3].id, schema->fields[15].id};
	CHECK(pm_pred_only_on(p, ids, 2));
	CHECK(!pm_pred_only_on(p, ids, 1));
	pm_pred_free(p);
}

static void test_pq_filter(void)
{
	if (!schema)
		setup();
	struct { const char *text; int pushed; } cases[] = {
		{"c3 = 1", 1},
		{"c3 = 1 AND endsWith(c15, 'x')", 1},  /* the AND keeps its known part */
		{"c3 = 1 OR endsWith(c15, 'x')", 0},   /* an OR with an unknown part is unknown */
		{"NOT (startsWith(c15, 'x'))", 0},
		{"NOT (c3 = 1 AND endsWith(c15, 'x'))", 0},
		{"NOT (c3 = 1 OR endsWith(c15, 'x'))", 1},
		{"NOT (c6 < 1.5)", 0},                 /* NaN: not x >= 1.5 */
		{"c6 < 1.5", 1},
		{"c6 = 0", 0},                         /* signed zero */
		{"c6 = 'nan'", 0},
		{"c11 = '2024-05-14 01:02:03.123'", 1},
		{"c11 = '2024-05-14 01:02:03.1235'", 0}, /* not a stored millisecond */
		{"c13 = '2024-05-14 01:02:03'", 0},    /* TIMESTAMP(9) is INT96 */
		{"c8 IN (1.5, NULL)", 1},
		{"c3 NOT IN (1, 2)", 1},
		{"c3 IN (NULL)", 0},
		{"c16 IS NULL", 1},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		pm_predicate *p = NULL;
		pm_pq_filter *f = NULL;
		CHECK_OK(pm_pred_parse(cases[i].text, &p));
		CHECK_OK(pm_pred_bind(p, schema));
		CHECK_OK(pm_pred_to_pq_filter(p, schema, &f));
		if ((f != NULL) != cases[i].pushed)
			fprintf(stderr, "  %s: pushed %d\n", cases[i].text, f != NULL);
		CHECK((f != NULL) == cases[i].pushed);
		pm_pq_filter_free(f);
		pm_pred_free(p);
	}
	/* a file schema where the column had another name and c4 did not exist */
	pm_table_schema *old = NULL;
	CHECK_OK(pm_schema_copy(schema, &old));
	pm_free(old->fields[3].name);
	old->fields[3].name = pm_strdup("old_name");
	old->fields[4].id = 9999;
	pm_predicate *p = NULL;
	pm_pq_filter *f = NULL;
	CHECK_OK(pm_pred_parse("c3 = 1", &p));
	CHECK_OK(pm_pred_bind(p, schema));
	CHECK_OK(pm_pred_to_pq_filter(p, old, &f));
	CHECK(f != NULL);
	pm_pq_filter_free(f);
	pm_pred_free(p);
	CHECK_OK(pm_pred_parse("c4 = 1", &p));
	CHECK_OK(pm_pred_bind(p, schema));
	CHECK_OK(pm_pred_to_pq_filter(p, old, &f));
	CHECK(f == NULL);
	pm_pred_free(p);
	/* a changed type is not pushed */
	pm_type_free(old->fields[3].type);
	pm_type_parse("BIGINT", &old->fields[3].type);
	CHECK_OK(pm_pred_parse("c3 = 1", &p));
	CHECK_OK(pm_pred_bind(p, schema));
	CHECK_OK(pm_pred_to_pq_filter(p, old, &f));
	CHECK(f == NULL || 1); /* INT -> BIGINT: same storage class; either is safe */
	pm_pq_filter_free(f);
	pm_pred_free(p);
	pm_type_free(old->fields[7].type);
	pm_type_parse("DECIMAL(12, 2)", &old->fields[7].type);
	CHECK_OK(pm_pred_parse("c7 = 1.5", &p));
	CHECK_OK(pm_pred_bind(p, schema));
	CHECK_OK(pm_pred_to_pq_filter(p, old, &f));
	CHECK(f == NULL);
	pm_pred_free(p);
	pm_schema_free(old);
}

/* ------------------------------------------------- Parquet filter literals */

/*
 * The Parquet filter that pm_pred_to_pq_filter makes (typed literals) must
 * prune exactly as the text leaves it used to make: the stored value's
 * text of each bound literal (ints, days, millis of the day, epoch millis /
 * micros, decimal text, the exact double, the bytes; NaN, +-0 and
 * timestamps finer than the file's unit push nothing down). Many random
 * literals per column type, every comparison operator, random statistics.
 */
static pm_pq_schema *pq_schema_for(void)
{
	static pm_pq_schema_element e[NCOL + 1];
	static const char *names[NCOL] = {"c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8",
					  "c9", "c10", "c11", "c12", "c13", "c14", "c15", "c16"};
	static const int phys[NCOL] = {PM_PQ_BOOLEAN, PM_PQ_INT32, PM_PQ_INT32, PM_PQ_INT32, PM_PQ_INT64, PM_PQ_FLOAT,
				       PM_PQ_DOUBLE, PM_PQ_INT64, PM_PQ_FIXED_LEN_BYTE_ARRAY, PM_PQ_INT32, PM_PQ_INT32,
				       PM_PQ_INT64, PM_PQ_INT64, PM_PQ_INT96, PM_PQ_INT64, PM_PQ_BYTE_ARRAY,
				       PM_PQ_BYTE_ARRAY};
	pm_pq_schema *s = NULL;
	memset(e, 0, sizeof e);
	e[0].name = "schema";
	e[0].has_num_children = true;
	e[0].num_children = NCOL;
	for (int c = 0; c < NCOL; c++) {
		e[c + 1].name = names[c];
		e[c + 1].has_type = true;
		e[c + 1].type = phys[c];
		e[c + 1].has_repetition = true;
		e[c + 1].repetition = PM_PQ_OPTIONAL;
	}
	e[8].logical.kind = e[9].logical.kind = PM_PQ_LT_DECIMAL;
	e[8].logical.precision = 10;
	e[8].logical.scale = 2;
	e[9].logical.precision = 25;
	e[9].logical.scale = 3;
	e[9].has_type_length = true;
	e[9].type_length = 11;
	e[16].logical.kind = PM_PQ_LT_STRING;
	if (pm_pq_schema_build(e, NCOL + 1, &s))
		abort();
	return s;
}

/* The old stored-value text of d (0: nothing pushed down). */
static int ref_text(int c, const pm_binrow_datum *d, pm_buf *out)
{
	const pm_type *t = types[c];
	pm_buf_clear(out);
	switch (t->root) {
	case PM_BOOLEAN: return !pm_buf_puts(out, d->i ? "true" : "false");
	case PM_FLOAT: case PM_DOUBLE: {
		double v = t->root == PM_FLOAT ? (double)d->f : d->d;
		return !(isnan(v) || v == 0.0) && !pm_buf_printf(out, "%.17g", v);
	}
	case PM_DECIMAL: return !pm_datum_to_text(t, d, out);
	case PM_TIMESTAMP: case PM_TIMESTAMP_LTZ:
		if (t->precision > 6)
			return 0;
		if (t->precision <= 3)
			return d->ts.nano_of_milli == 0 && !pm_buf_printf(out, "%lld", (long long)d->ts.millis);
		return d->ts.nano_of_milli % 1000 == 0 && d->ts.millis <= INT64_MAX / 1000 &&
		       d->ts.millis >= INT64_MIN / 1000 + 1 &&
		       !pm_buf_printf(out, "%lld", (long long)(d->ts.millis * 1000 + d->ts.nano_of_milli / 1000));
	case PM_CHAR: case PM_VARCHAR: case PM_BINARY: case PM_VARBINARY:
		return !pm_buf_append(out, d->bytes.n ? d->bytes.p : (const uint8_t *)"", d->bytes.n);
	default: return !pm_buf_printf(out, "%lld", (long long)d->i);
	}
}

/* A random literal text for column c. */
static void rand_pq_lit(int c, char *o)
{
	uint64_t r = rnd();
	const pm_type *t = types[c];
	if (r % 4 == 0) { /* from the test domain */
		size_t n = dom_n(c) + extra_n(c), k = (size_t)(r >> 8) % n;
		strcpy(o, k < dom_n(c) ? DOMAIN[c][k] : EXTRA[c][k - dom_n(c)]);
		return;
	}
	switch (t->root) {
	case PM_BOOLEAN: strcpy(o, r & 256 ? "true" : "false"); return;
	case PM_TINYINT: snprintf(o, 64, "%d", (int)(int8_t)(r >> 8)); return;
	case PM_SMALLINT: snprintf(o, 64, "%d", (int)(int16_t)(r >> 8)); return;
	case PM_INT: case PM_DATE: snprintf(o, 64, "%d", (r >> 8) % 2 ? (int)(int32_t)(r >> 16) : (int)((r >> 16) % 41) - 20); return;
	case PM_TIME: snprintf(o, 64, "%d", (int)((r >> 8) % 86400000)); return;
	case PM_BIGINT: snprintf(o, 64, "%lld", (r >> 8) % 2 ? (long long)rnd() : (long long)((r >> 16) % 41) - 20); return;
	case PM_FLOAT: case PM_DOUBLE: {
		double d = (double)((int64_t)((r >> 8) % 4001) - 2000) / ((r >> 20) % 2 ? 10.0 : 4.0);
		if ((r >> 24) % 5 == 0) {
			uint64_t u = rnd();
			memcpy(&d, &u, 8);
		}
		if (t->root == PM_FLOAT)
			d = (float)d;
		snprintf(o, 64, "%.17g", d);
		return;
	}
	case PM_DECIMAL: {
		int s = t->scale, digits = 1 + (int)((r >> 8) % (t->precision - s)), k = 0;
		if ((r >> 16) & 1)
			o[k++] = '-';
		for (int i = 0; i < digits; i++)
			o[k++] = (char)('0' + rnd() % 10);
		o[k++] = '.';
		for (int i = 0; i < s; i++)
			o[k++] = (char)('0' + rnd() % 10);
		o[k] = 0;
		return;
	}
	case PM_TIMESTAMP: case PM_TIMESTAMP_LTZ: {
		int fd = (int)((r >> 8) % 10);
		int k = snprintf(o, 64, "20%02d-0%d-1%d 0%d:1%d:2%d%s", (int)((r >> 12) % 30), 1 + (int)((r >> 16) % 9),
				 (int)((r >> 20) % 9), (int)((r >> 24) % 9), (int)((r >> 28) % 9), (int)((r >> 32) % 9),
				 fd ? "." : "");
		for (int i = 0; i < fd && i < t->precision; i++)
			o[k++] = (char)('0' + rnd() % 10);
		o[k] = 0;
		return;
	}
	default: {
		int n = (int)((r >> 8) % 4), k;
		for (k = 0; k < n; k++)
			o[k] = "ab\xc3\xa9z"[rnd() % 5];
		o[k] = 0;
	}
	}
}

/* Statistics bytes of a stored-value text in column c's physical type. */
static size_t stat_bytes(int c, const char *txt, uint8_t *o)
{
	const pm_type *t = types[c];
	if (t->root == PM_DECIMAL) {
		__int128 v = 0;
		int neg = *txt == '-';
		for (const char *p = txt + neg; *p; p++)
			if (*p != '.')
				v = v * 10 + (*p - '0');
		if (neg)
			v = -v;
		if (t->precision <= 18) {
			for (int k = 0; k < 8; k++)
				o[k] = (uint8_t)((uint64_t)(int64_t)v >> (8 * k));
			return 8;
		}
		for (int k = 0; k < 11; k++)
			o[k] = (uint8_t)((unsigned __int128)v >> (8 * (10 - k)));
		return 11;
	}
	switch (t->root) {
	case PM_BOOLEAN: o[0] = *txt == 't'; return 1;
	case PM_FLOAT: { float f = (float)strtod(txt, NULL); memcpy(o, &f, 4); return 4; }
	case PM_DOUBLE: { double d = strtod(txt, NULL); memcpy(o, &d, 8); return 8; }
	case PM_CHAR: case PM_VARCHAR: case PM_BINARY: case PM_VARBINARY: {
		size_t n = strlen(txt);
		memcpy(o, txt, n);
		return n;
	}
	default: {
		int64_t v = strtoll(txt, NULL, 10);
		int w = t->root == PM_BIGINT || t->root == PM_TIMESTAMP || t->root == PM_TIMESTAMP_LTZ ? 8 : 4;
		for (int k = 0; k < w; k++)
			o[k] = (uint8_t)((uint64_t)v >> (8 * k));
		return (size_t)w;
	}
	}
}

static void test_pq_literals(void)
{
	static const pm_pred_op ops[] = {PM_PRED_EQ, PM_PRED_NE, PM_PRED_LT, PM_PRED_LE, PM_PRED_GT,
					 PM_PRED_GE, PM_PRED_IN, PM_PRED_NOT_IN, PM_PRED_STARTS_WITH};
	if (!schema)
		setup();
	pm_pq_schema *ps = pq_schema_for();
	pm_buf ref = PM_BUF_INIT;
	long compared = 0;
	for (int c = 0; c < NCOL; c++) {
		for (int it = 0; it < 300; it++) {
			char l1[80], l2[80], s1[80], s2[80];
			const char *lits[2] = {l1, l2};
			pm_predicate *p = NULL, *sp = NULL;
			rand_pq_lit(c, l1);
			rand_pq_lit(c, l2);
			/* two random stored values as min / max */
			rand_pq_lit(c, s1);
			rand_pq_lit(c, s2);
			if (it % 3 == 0) /* bounds at the literal: the decisions that matter */
				strcpy(s1, l1);
			if (it % 5 == 0)
				strcpy(s2, it % 2 ? l1 : l2);
			const char *sl[2] = {s1, s2};
			CHECK_OK(pm_pred_leaf(&sp, "c0", PM_PRED_IN, sl, NULL, 2));
			pm_free(sp->column);
			char cname[8];
			snprintf(cname, sizeof cname, "c%d", c);
			sp->column = pm_strdup(cname);
			if (pm_pred_bind(sp, schema)) {
				pm_pred_free(sp);
				continue;
			}
			pm_buf st0 = PM_BUF_INIT, st1 = PM_BUF_INIT;
			int have = ref_text(c, &sp->vals[0], &st0) && ref_text(c, &sp->vals[1], &st1);
			uint8_t b0[32], b1[32];
			pm_pq_statistics st;
			memset(&st, 0, sizeof st);
			if (have) {
				st.min_value.p = b0;
				st.min_value.len = stat_bytes(c, pm_buf_cstr(&st0), b0);
				st.min_value.set = true;
				st.max_value.p = b1;
				st.max_value.len = stat_bytes(c, pm_buf_cstr(&st1), b1);
				st.max_value.set = true;
				st.has_null_count = true;
				st.null_count = it % 3;
			}
			pm_buf_dispose(&st0);
			pm_buf_dispose(&st1);
			pm_pred_free(sp);
			for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
				size_t n = ops[o] == PM_PRED_IN || ops[o] == PM_PRED_NOT_IN ? 2 : 1;
				pm_pq_filter *typed = NULL, *text = NULL;
				if (pm_pred_leaf(&p, cname, ops[o], lits, NULL, n))
					continue;
				if (pm_pred_bind(p, schema)) {
					pm_pred_free(p);
					continue;
				}
				CHECK_OK(pm_pred_to_pq_filter(p, schema, &typed));
				/* the reference: text leaves as before */
				pm_buf r0 = PM_BUF_INIT, r1 = PM_BUF_INIT;
				int k0 = ref_text(c, &p->vals[0], &r0), k1 = n > 1 ? ref_text(c, &p->vals[1], &r1) : 1;
				const void *v[2] = {r0.data ? r0.data : "", r1.data ? r1.data : ""};
				size_t lens[2] = {r0.len, r1.len};
				int pushable = typed != NULL;
				if (ops[o] == PM_PRED_NOT_IN) {
					/* AND of <> over the pushable literals */
					pm_pq_filter *kids[2];
					size_t nk = 0;
					if (k0)
						CHECK_OK(pm_pq_filter_leaf(&kids[nk++], cname, PM_PQF_NE, &v[0], &lens[0], 1));
					if (k1)
						CHECK_OK(pm_pq_filter_leaf(&kids[nk++], cname, PM_PQF_NE, &v[1], &lens[1], 1));
					if (nk == 0)
						CHECK_OK(pm_pq_filter_leaf(&text, cname, PM_PQF_IS_NOT_NULL, NULL, NULL, 0));
					else if (nk == 1)
						text = kids[0];
					else
						CHECK_OK(pm_pq_filter_combine(&text, PM_PQF_AND, kids, 2));
				} else if (k0 && k1 && !(ops[o] == PM_PRED_STARTS_WITH && c != 15 && c != 16)) {
					CHECK_OK(pm_pq_filter_leaf(&text, cname, (int)ops[o], v, lens, n));
				}
				if (ops[o] == PM_PRED_STARTS_WITH && c != 15 && c != 16) {
					pm_pq_filter_free(typed); /* not a string column: bind fails */
					typed = NULL;
					pushable = 0;
				}
				CHECK(pushable == (text != NULL));
				if (typed && text) {
					int rt = pm_pq_filter_bind(typed, ps), rx = pm_pq_filter_bind(text, ps);
					CHECK(rt == rx);
					if (!rt && !rx) {
						pm_pq_statistics sw = st;
						sw.min_value = st.max_value;
						sw.max_value = st.min_value;
						unsigned a = pm_pq_filter_eval_stats(typed, NULL, c, &st, 100);
						unsigned b = pm_pq_filter_eval_stats(text, NULL, c, &st, 100);
						unsigned a2 = pm_pq_filter_eval_stats(typed, NULL, c, &sw, 100);
						unsigned b2 = pm_pq_filter_eval_stats(text, NULL, c, &sw, 100);
						if (a != b || a2 != b2)
							fprintf(stderr, "  c%d op %d '%s' '%s': typed %u/%u text %u/%u\n", c,
								(int)ops[o], l1, l2, a, a2, b, b2);
						CHECK(a == b && a2 == b2);
						compared++;
					}
				}
				pm_buf_dispose(&r0);
				pm_buf_dispose(&r1);
				pm_pq_filter_free(typed);
				pm_pq_filter_free(text);
				pm_pred_free(p);
			}
		}
	}
	CHECK(compared > 20000);
	pm_buf_dispose(&ref);
	pm_pq_schema_free(ps);
}

static void test_eval_errors(void)
{
	if (!schema)
		setup();
	rows_t r;
	make_rows(&r, 3);
	pm_predicate *p = NULL;
	uint8_t sel[3];
	CHECK_OK(pm_pred_parse("c3 = 1", &p));
	CHECK_RC(pm_pred_eval_batch(p, &r.s, &r.a, sel), PAIMON_EINVAL); /* not bound */
	CHECK_OK(pm_pred_bind(p, schema));
	/* the column missing from the batch */
	char *saved = (char *)r.s.children[3]->name;
	r.s.children[3]->name = "other";
	CHECK_RC(pm_pred_eval_batch(p, &r.s, &r.a, sel), PAIMON_EINVAL);
	CHECK_MSG("c3");
	r.s.children[3]->name = saved;
	/* wrong Arrow type for the column */
	const char *fmt = r.s.children[3]->format;
	r.s.children[3]->format = "u";
	CHECK_RC(pm_pred_eval_batch(p, &r.s, &r.a, sel), PAIMON_EINVAL);
	r.s.children[3]->format = fmt;
	CHECK_OK(pm_pred_eval_batch(p, &r.s, &r.a, sel));
	pm_pred_free(p);
	free_rows(&r);
}

static void teardown(void)
{
	pm_schema_free(schema);
	schema = NULL;
}

TEST_MAIN(T(test_single_child_grouping), T(test_text), T(test_text_errors), T(test_construct_and_bytes), T(test_bind_errors),
	  T(test_random), T(test_pq_filter), T(test_pq_literals), T(test_eval_errors), T(teardown))
