/*
 * tests/unit/types/test_datum.c - canonical text of every comparable type
 * (text -> datum -> text round trips, bad text), ordering, and reading
 * values out of Arrow arrays of every accepted format, with offsets and
 * nulls.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "arrow/arrow_builder.h"
#include "core/buf.h"
#include "core/mem.h"
#include "types/datatype.h"
#include "types/datum.h"
#include "test.h"

static pm_type *ty(const char *sql)
{
	pm_type *t = NULL;
	if (pm_type_parse(sql, &t))
		abort();
	return t;
}

/* text -> datum -> text equals `want` (NULL: equals the input). */
static void rt(const char *sql, const char *text, const char *want)
{
	pm_type *t = ty(sql);
	pm_binrow_datum d;
	uint8_t *owned = NULL;
	pm_buf b = PM_BUF_INIT;
	int rc = pm_datum_from_text(t, text, strlen(text), &d, &owned);
	CHECK_OK(rc);
	if (!rc) {
		CHECK_OK(pm_datum_to_text(t, &d, &b));
		if (strcmp(pm_buf_cstr(&b), want ? want : text) != 0) {
			fprintf(stderr, "  type %s text '%s'\n", sql, text);
			CHECK_STR(pm_buf_cstr(&b), want ? want : text);
		}
		/* and the printed text parses back to an equal value */
		pm_binrow_datum d2;
		uint8_t *owned2 = NULL;
		CHECK_OK(pm_datum_from_text(t, b.data ? b.data : "", b.len, &d2, &owned2));
		CHECK(pm_datum_compare(t, &d, &d2) == 0);
		pm_free(owned2);
	}
	pm_free(owned);
	pm_buf_dispose(&b);
	pm_type_free(t);
}

static void bad(const char *sql, const char *text)
{
	pm_type *t = ty(sql);
	pm_binrow_datum d;
	uint8_t *owned = (uint8_t *)1;
	int rc = pm_datum_from_text(t, text, strlen(text), &d, &owned);
	if (rc != PAIMON_EINVAL)
		fprintf(stderr, "  type %s text '%s' accepted\n", sql, text);
	CHECK_RC(rc, PAIMON_EINVAL);
	CHECK(owned == NULL);
	if (rc == PAIMON_EINVAL)
		CHECK_MSG(sql[0] == 'S' ? "" : "literal");
	pm_type_free(t);
}

static pm_binrow_datum parse(const pm_type *t, const char *text, uint8_t **owned)
{
	pm_binrow_datum d;
	if (pm_datum_from_text(t, text, strlen(text), &d, owned))
		abort();
	return d;
}

static void test_text_roundtrip(void)
{
	rt("BOOLEAN", "true", NULL);
	rt("BOOLEAN", "FALSE", "false");
	rt("BOOLEAN", "1", "true");
	rt("BOOLEAN", "0", "false");
	rt("TINYINT", "-128", NULL);
	rt("TINYINT", "127", NULL);
	rt("TINYINT", "+5", "5");
	rt("SMALLINT", "-32768", NULL);
	rt("INT", "2147483647", NULL);
	rt("INT", "-2147483648", NULL);
	rt("BIGINT", "-9223372036854775808", NULL);
	rt("BIGINT", "9223372036854775807", NULL);
	rt("BIGINT", "007", "7");
	rt("FLOAT", "1.5", NULL);
	rt("FLOAT", "0.1", NULL);
	rt("FLOAT", "-0", NULL);
	rt("FLOAT", "nan", NULL);
	rt("FLOAT", "-inf", NULL);
	rt("FLOAT", "3.4028235e+38", NULL);
	rt("DOUBLE", "0.1", NULL);
	rt("DOUBLE", "1e+300", NULL);
	rt("DOUBLE", "inf", NULL);
	rt("DOUBLE", "NaN", "nan");
	rt("DOUBLE", "2.5e-320", NULL); /* subnormal */
	rt("DOUBLE", "123456789.125", NULL);
	rt("DECIMAL(5, 2)", "-12.34", NULL);
	rt("DECIMAL(5, 2)", "12.3", "12.30");
	rt("DECIMAL(5, 2)", "12", "12.00");
	rt("DECIMAL(5, 2)", "0.5", "0.50");
	rt("DECIMAL(5, 2)", "-.5", "-0.50");
	rt("DECIMAL(5, 2)", "999.99", NULL);
	rt("DECIMAL(5, 2)", "1.230", "1.23");
	rt("DECIMAL(5, 0)", "-99999", NULL);
	rt("DECIMAL(18, 18)", "0.123456789012345678", NULL);
	rt("DECIMAL(38, 0)", "99999999999999999999999999999999999999", NULL);
	rt("DECIMAL(38, 0)", "-99999999999999999999999999999999999999", NULL);
	rt("DECIMAL(38, 10)", "-1234567890123456789.0123456789", NULL);
	rt("DECIMAL(20, 2)", "0.00", NULL);
	rt("DECIMAL(20, 2)", "-0.01", NULL);
	rt("DECIMAL(20, 2)", "1.28", NULL);
	rt("DECIMAL(20, 2)", "-1.28", NULL);
	rt("DATE", "2024-05-14", NULL);
	rt("DATE", "1970-01-01", NULL);
	rt("DATE", "1969-12-31", NULL);
	rt("DATE", "2000-02-29", NULL);
	rt("DATE", "0001-01-01", NULL);
	rt("DATE", "19857", "2024-05-14");
	rt("DATE", "-1", "1969-12-31");
	rt("DATE", "+12345-01-01", NULL);
	rt("DATE", "-0044-03-15", NULL);
	rt("DATE", "2024-5-4", "2024-05-04");
	rt("TIME", "01:02:03", NULL);
	rt("TIME", "23:59:59.999", NULL);
	rt("TIME", "00:00:00.5", NULL);
	rt("TIME", "00:00:00.500000", "00:00:00.5");
	rt("TIME", "12:30", "12:30:00");
	rt("TIME", "3723004", "01:02:03.004");
	rt("TIMESTAMP(3)", "2024-05-14 01:02:03", NULL);
	rt("TIMESTAMP(3)", "2024-05-14T01:02:03.123", "2024-05-14 01:02:03.123");
	rt("TIMESTAMP(9)", "2024-05-14 01:02:03.123456789", NULL);
	rt("TIMESTAMP(6)", "1969-12-31 23:59:59.999999", NULL);
	rt("TIMESTAMP(6)", "1900-01-01 00:00:00.000001", NULL);
	rt("TIMESTAMP(6)", "0", "1970-01-01 00:00:00");
	rt("TIMESTAMP(3)", "-1", "1969-12-31 23:59:59.999");
	rt("TIMESTAMP(3)", "2024-05-14", "2024-05-14 00:00:00");
	rt("TIMESTAMP_LTZ(3)", "2024-05-14 01:02:03.1", NULL);
	rt("TIMESTAMP(3)", "9223372036854775807", NULL); /* no calendar form: integer */
	rt("STRING", "hello", NULL);
	rt("STRING", "", NULL);
	rt("STRING", "caf\xc3\xa9 'x' , ()", NULL);
	rt("CHAR(3)", "abc", NULL);
	rt("VARCHAR(10)", "with space ", NULL);
	rt("BYTES", "\x01\xff", NULL);
	rt("BINARY(2)", "ab", NULL);

	/* DECIMAL p > 18 stores Java's minimal big-endian bytes */
	{
		pm_type *t = ty("DECIMAL(20, 2)");
		uint8_t *o = NULL;
		pm_binrow_datum d = parse(t, "1.28", &o); /* unscaled 128 = 00 80 */
		CHECK(d.bytes.n == 2 && d.bytes.p[0] == 0x00 && d.bytes.p[1] == 0x80);
		pm_free(o);
		d = parse(t, "-1.28", &o); /* -128 = 80 */
		CHECK(d.bytes.n == 1 && d.bytes.p[0] == 0x80);
		pm_free(o);
		d = parse(t, "0", &o);
		CHECK(d.bytes.n == 1 && d.bytes.p[0] == 0x00);
		pm_free(o);
		d = parse(t, "-0.01", &o);
		CHECK(d.bytes.n == 1 && d.bytes.p[0] == 0xff);
		pm_free(o);
		pm_type_free(t);
	}
	/* exact values */
	{
		pm_type *t = ty("TIMESTAMP(9)");
		uint8_t *o = NULL;
		pm_binrow_datum d = parse(t, "1970-01-01 00:00:01.002003004", &o);
		CHECK(d.ts.millis == 1002 && d.ts.nano_of_milli == 3004 && !o);
		d = parse(t, "1969-12-31 23:59:59.999999999", &o);
		CHECK(d.ts.millis == -1 && d.ts.nano_of_milli == 999999);
		pm_type_free(t);
		t = ty("DATE");
		d = parse(t, "2024-05-14", &o);
		CHECK(d.i == 19857);
		pm_type_free(t);
		t = ty("TIME");
		d = parse(t, "01:02:03.004", &o);
		CHECK(d.i == 3723004);
		pm_type_free(t);
		t = ty("DECIMAL(5, 2)");
		d = parse(t, "-12.3", &o);
		CHECK(d.i == -1230);
		pm_type_free(t);
	}
}

static void test_text_bad(void)
{
	bad("BOOLEAN", "yes");
	bad("BOOLEAN", "");
	bad("TINYINT", "128");
	bad("TINYINT", "-129");
	bad("SMALLINT", "40000");
	bad("INT", "2147483648");
	bad("INT", "1.0");
	bad("INT", "");
	bad("INT", "-");
	bad("INT", " 1");
	bad("INT", "1 ");
	bad("INT", "0x10");
	bad("BIGINT", "9223372036854775808");
	bad("BIGINT", "-9223372036854775809");
	bad("BIGINT", "99999999999999999999999");
	bad("FLOAT", "");
	bad("FLOAT", "abc");
	bad("DOUBLE", "1.5x");
	bad("DOUBLE", " 1.5");
	bad("DECIMAL(5, 2)", "1000.00");
	bad("DECIMAL(5, 2)", "1.234");
	bad("DECIMAL(5, 2)", "");
	bad("DECIMAL(5, 2)", ".");
	bad("DECIMAL(5, 2)", "1e3");
	bad("DECIMAL(5, 2)", "--1");
	bad("DECIMAL(38, 0)", "100000000000000000000000000000000000000");
	bad("DATE", "2024-13-01");
	bad("DATE", "2023-02-29");
	bad("DATE", "2024-05-14x");
	bad("DATE", "2024/05/14");
	bad("DATE", "99999999999");
	bad("DATE", "");
	bad("TIME", "24:00:00");
	bad("TIME", "01:02:03.0001");
	bad("TIME", "86400000");
	bad("TIME", "-1");
	bad("TIME", "1:2");
	bad("TIMESTAMP(3)", "2024-05-14 25:00:00");
	bad("TIMESTAMP(3)", "2024-05-14 01:02:03.1234567890");
	bad("TIMESTAMP(3)", "2024-05-14X01:02:03");
	bad("TIMESTAMP(3)", "2024-05-14 ");
	bad("TIMESTAMP(3)", "");
	/* a type without a literal form */
	{
		pm_type *t = ty("ARRAY<INT>");
		pm_binrow_datum d;
		uint8_t *o = NULL;
		CHECK_RC(pm_datum_from_text(t, "1", 1, &d, &o), PAIMON_EINVAL);
		CHECK_MSG("ARRAY<INT>");
		pm_type_free(t);
	}
	/* message names the type and the text */
	{
		pm_type *t = ty("INT");
		pm_binrow_datum d;
		uint8_t *o = NULL;
		CHECK_RC(pm_datum_from_text(t, "abc", 3, &d, &o), PAIMON_EINVAL);
		CHECK_MSG("INT");
		CHECK_MSG("'abc'");
		pm_type_free(t);
	}
	/* text need not be NUL-terminated */
	{
		pm_type *t = ty("INT");
		pm_binrow_datum d;
		uint8_t *o = NULL;
		CHECK_OK(pm_datum_from_text(t, "12345", 2, &d, &o));
		CHECK(d.i == 12);
		pm_type_free(t);
	}
}

static int sgn(int x) { return x < 0 ? -1 : x > 0; }

static void test_compare(void)
{
	struct { const char *type, *a, *b; int want; } cases[] = {
		{"BOOLEAN", "false", "true", -1},
		{"INT", "-5", "3", -1},
		{"BIGINT", "9223372036854775807", "-9223372036854775808", 1},
		{"DOUBLE", "-0", "0", -1},
		{"DOUBLE", "nan", "inf", 1},
		{"DOUBLE", "nan", "nan", 0},
		{"FLOAT", "1.5", "1.25", 1},
		{"DECIMAL(5, 2)", "-1.5", "1.25", -1},
		{"DECIMAL(38, 2)", "-1.5", "1.25", -1},
		{"DECIMAL(38, 2)", "-1000000000000000000000.00", "-1.28", -1},
		{"DECIMAL(38, 2)", "1000000000000000000000.00", "1.28", 1},
		{"DECIMAL(38, 2)", "1.27", "1.28", -1},
		{"DATE", "2024-01-01", "2023-12-31", 1},
		{"TIMESTAMP(9)", "2024-01-01 00:00:00.000000001", "2024-01-01 00:00:00", 1},
		{"STRING", "ab", "abc", -1},
		{"STRING", "\xc3\xa9", "z", 1},
		{"STRING", "", "a", -1},
		{"BYTES", "\x80", "\x7f", 1},
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		pm_type *t = ty(cases[k].type);
		uint8_t *oa = NULL, *ob = NULL;
		pm_binrow_datum a = parse(t, cases[k].a, &oa), b = parse(t, cases[k].b, &ob);
		if (sgn(pm_datum_compare(t, &a, &b)) != cases[k].want || sgn(pm_datum_compare(t, &b, &a)) != -cases[k].want)
			fprintf(stderr, "  compare %s '%s' '%s'\n", cases[k].type, cases[k].a, cases[k].b);
		CHECK(sgn(pm_datum_compare(t, &a, &b)) == cases[k].want);
		CHECK(sgn(pm_datum_compare(t, &b, &a)) == -cases[k].want);
		CHECK(pm_datum_equal(t, &a, &b) == (cases[k].want == 0));
		pm_free(oa);
		pm_free(ob);
		pm_type_free(t);
	}
}

/* ---------------------------------------------------------- Arrow access */

/* Finishes a builder into an array and sets offset (the builder has `skip`
 * leading entries that the offset hides). */
static void finish(pm_array_builder *ab, struct ArrowArray *a, struct ArrowSchema *s, int64_t off)
{
	if (pm_ab_finish(ab, a) || pm_ab_schema(ab, s))
		abort();
	a->offset = off;
	a->length -= off;
	a->null_count = -1;
	pm_ab_free(ab);
}

static void release(struct ArrowArray *a, struct ArrowSchema *s)
{
	a->release(a);
	s->release(s);
}

static void expect_text(const char *sql, struct ArrowSchema *s, struct ArrowArray *a, int64_t row, const char *want)
{
	pm_type *t = ty(sql);
	pm_binrow_datum d;
	pm_buf b = PM_BUF_INIT;
	int rc = pm_datum_from_arrow(t, s, a, row, &d);
	CHECK_OK(rc);
	if (!rc) {
		if (!want) {
			CHECK(d.is_null);
		} else {
			CHECK(!d.is_null);
			CHECK_OK(pm_datum_to_text(t, &d, &b));
			if (strcmp(pm_buf_cstr(&b), want))
				fprintf(stderr, "  %s (%s) row %lld\n", sql, s->format, (long long)row);
			CHECK_STR(pm_buf_cstr(&b), want);
		}
	}
	pm_buf_dispose(&b);
	pm_type_free(t);
}

static void test_arrow_fixed(void)
{
	struct { const char *fmt; int width; const char *sql; } fx[] = {
		{"c", 1, "TINYINT"}, {"s", 2, "SMALLINT"}, {"i", 4, "INT"}, {"l", 8, "BIGINT"},
	};
	for (size_t k = 0; k < 4; k++) {
		pm_array_builder *ab = pm_ab_new_fixed(fx[k].fmt, fx[k].width);
		struct ArrowArray a;
		struct ArrowSchema s;
		int64_t vals[4] = {-1, 100, -100, 7};
		uint8_t raw[8];
		for (int r = 0; r < 4; r++) {
			if (r == 2) {
				pm_ab_append_nulls(ab, 1);
				continue;
			}
			int8_t v8 = (int8_t)vals[r];
			int16_t v16 = (int16_t)vals[r];
			int32_t v32 = (int32_t)vals[r];
			if (fx[k].width == 1) memcpy(raw, &v8, 1);
			if (fx[k].width == 2) memcpy(raw, &v16, 2);
			if (fx[k].width == 4) memcpy(raw, &v32, 4);
			if (fx[k].width == 8) memcpy(raw, &vals[r], 8);
			pm_ab_append_fixed(ab, raw, 1);
		}
		finish(ab, &a, &s, 1);
		expect_text(fx[k].sql, &s, &a, 0, "100");
		expect_text(fx[k].sql, &s, &a, 1, NULL);
		expect_text(fx[k].sql, &s, &a, 2, "7");
		/* row outside the (offset) array */
		{
			pm_type *t = ty(fx[k].sql);
			pm_binrow_datum d;
			CHECK_RC(pm_datum_from_arrow(t, &s, &a, 3, &d), PAIMON_EINVAL);
			CHECK_RC(pm_datum_from_arrow(t, &s, &a, -1, &d), PAIMON_EINVAL);
			pm_type_free(t);
		}
		/* wrong type for the format */
		{
			pm_type *t = ty(k == 3 ? "INT" : "BIGINT");
			pm_binrow_datum d;
			CHECK_RC(pm_datum_from_arrow(t, &s, &a, 0, &d), PAIMON_EINVAL);
			CHECK_MSG(fx[k].fmt);
			pm_type_free(t);
		}
		release(&a, &s);
	}
	/* float / double */
	{
		pm_array_builder *f = pm_ab_new_fixed("f", 4), *g = pm_ab_new_fixed("g", 8);
		float fv[3] = {1.5f, -0.0f, NAN};
		double gv[3] = {0.1, -INFINITY, 2.5};
		struct ArrowArray a;
		struct ArrowSchema s;
		pm_ab_append_fixed(f, fv, 3);
		pm_ab_append_nulls(f, 1);
		finish(f, &a, &s, 0);
		expect_text("FLOAT", &s, &a, 0, "1.5");
		expect_text("FLOAT", &s, &a, 1, "-0");
		expect_text("FLOAT", &s, &a, 2, "nan");
		expect_text("FLOAT", &s, &a, 3, NULL);
		release(&a, &s);
		pm_ab_append_nulls(g, 1);
		pm_ab_append_fixed(g, gv, 3);
		finish(g, &a, &s, 2);
		expect_text("DOUBLE", &s, &a, 0, "-inf");
		expect_text("DOUBLE", &s, &a, 1, "2.5");
		release(&a, &s);
	}
	/* boolean with an offset that is not a multiple of 8 */
	{
		pm_array_builder *ab = pm_ab_new_bool();
		uint8_t v[12] = {1, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 1};
		struct ArrowArray a;
		struct ArrowSchema s;
		pm_ab_append_bools(ab, v, 12);
		pm_ab_append_nulls(ab, 1);
		pm_ab_append_bools(ab, v, 1);
		finish(ab, &a, &s, 5);
		for (int r = 0; r < 7; r++)
			expect_text("BOOLEAN", &s, &a, r, v[5 + r] ? "true" : "false");
		expect_text("BOOLEAN", &s, &a, 7, NULL);
		expect_text("BOOLEAN", &s, &a, 8, "true");
		release(&a, &s);
	}
}

static void test_arrow_temporal(void)
{
	struct ArrowArray a;
	struct ArrowSchema s;
	/* date32 / date64 (floor to days) */
	{
		pm_array_builder *ab = pm_ab_new_fixed("tdD", 4);
		int32_t v[3] = {0, 19857, -1};
		pm_ab_append_fixed(ab, v, 3);
		finish(ab, &a, &s, 1);
		expect_text("DATE", &s, &a, 0, "2024-05-14");
		expect_text("DATE", &s, &a, 1, "1969-12-31");
		release(&a, &s);
		ab = pm_ab_new_fixed("tdm", 8);
		int64_t m[2] = {19857LL * 86400000, -1};
		pm_ab_append_fixed(ab, m, 2);
		finish(ab, &a, &s, 0);
		expect_text("DATE", &s, &a, 0, "2024-05-14");
		expect_text("DATE", &s, &a, 1, "1969-12-31");
		release(&a, &s);
	}
	/* time in every unit */
	{
		struct { const char *fmt; int w; int64_t v; const char *want; } tc[] = {
			{"tts", 4, 3723, "01:02:03"},
			{"ttm", 4, 3723004, "01:02:03.004"},
			{"ttu", 8, 3723004999LL, "01:02:03.004"},
			{"ttn", 8, 3723004000001LL, "01:02:03.004"},
		};
		for (size_t k = 0; k < 4; k++) {
			pm_array_builder *ab = pm_ab_new_fixed(tc[k].fmt, tc[k].w);
			int32_t v32 = (int32_t)tc[k].v;
			pm_ab_append_nulls(ab, 1);
			pm_ab_append_fixed(ab, tc[k].w == 4 ? (const void *)&v32 : (const void *)&tc[k].v, 1);
			finish(ab, &a, &s, 0);
			expect_text("TIME", &s, &a, 0, NULL);
			expect_text("TIME", &s, &a, 1, tc[k].want);
			release(&a, &s);
		}
	}
	/* timestamps in every unit, with and without a time zone */
	{
		struct { const char *fmt; int64_t v; const char *sql, *want; } tc[] = {
			{"tss:", 1715648523LL, "TIMESTAMP(0)", "2024-05-14 01:02:03"},
			{"tsm:", 1715648523123LL, "TIMESTAMP(3)", "2024-05-14 01:02:03.123"},
			{"tsu:", 1715648523123456LL, "TIMESTAMP(6)", "2024-05-14 01:02:03.123456"},
			{"tsn:", 1715648523123456789LL, "TIMESTAMP(9)", "2024-05-14 01:02:03.123456789"},
			{"tsu:UTC", -1LL, "TIMESTAMP_LTZ(6)", "1969-12-31 23:59:59.999999"},
			{"tsn:Europe/Paris", -1LL, "TIMESTAMP_LTZ(9)", "1969-12-31 23:59:59.999999999"},
			{"tsm:", 5LL, "TIMESTAMP(9)", "1970-01-01 00:00:00.005"}, /* any unit for any precision */
		};
		for (size_t k = 0; k < sizeof tc / sizeof tc[0]; k++) {
			pm_array_builder *ab = pm_ab_new_fixed(tc[k].fmt, 8);
			pm_ab_append_fixed(ab, &tc[k].v, 1);
			pm_ab_append_nulls(ab, 1);
			finish(ab, &a, &s, 0);
			expect_text(tc[k].sql, &s, &a, 0, tc[k].want);
			expect_text(tc[k].sql, &s, &a, 1, NULL);
			release(&a, &s);
		}
	}
}

static void test_arrow_decimal(void)
{
	struct ArrowArray a;
	struct ArrowSchema s;
	pm_array_builder *ab = pm_ab_new_fixed("d:20,2", 16);
	uint8_t le[16];
	/* -1.28 (unscaled -128), 12345678901234567890.12 */
	memset(le, 0xff, 16);
	le[0] = 0x80;
	pm_ab_append_nulls(ab, 1);
	pm_ab_append_fixed(ab, le, 1);
	{
		unsigned __int128 u = (unsigned __int128)1234567890123456789ULL * 1000 + 12; /* 1234567890123456789012 */
		for (int k = 0; k < 16; k++, u >>= 8)
			le[k] = (uint8_t)u;
		pm_ab_append_fixed(ab, le, 1);
	}
	pm_ab_append_nulls(ab, 1);
	finish(ab, &a, &s, 1);
	expect_text("DECIMAL(20, 2)", &s, &a, 0, "-1.28");
	expect_text("DECIMAL(22, 2)", &s, &a, 1, "12345678901234567890.12");
	expect_text("DECIMAL(22, 2)", &s, &a, 2, NULL);
	expect_text("DECIMAL(5, 2)", &s, &a, 0, "-1.28"); /* p <= 18 as int64 */
	{
		pm_type *t = ty("DECIMAL(20, 3)");
		pm_binrow_datum d;
		CHECK_RC(pm_datum_from_arrow(t, &s, &a, 0, &d), PAIMON_EINVAL);
		CHECK_MSG("scale");
		pm_type_free(t);
		/* the bytes are Java's minimal big-endian form; two values held at once */
		t = ty("DECIMAL(22, 2)");
		pm_binrow_datum d1, d2;
		uint8_t s1[16], s2[16];
		CHECK_OK(pm_datum_from_arrow_scratch(t, &s, &a, 0, &d1, s1));
		CHECK_OK(pm_datum_from_arrow_scratch(t, &s, &a, 1, &d2, s2));
		CHECK(d1.bytes.n == 1 && d1.bytes.p[0] == 0x80);
		CHECK(pm_datum_compare(t, &d1, &d2) < 0);
		uint8_t *o = NULL;
		pm_binrow_datum d3 = parse(t, "12345678901234567890.12", &o);
		CHECK(pm_datum_compare(t, &d3, &d2) == 0);
		pm_free(o);
		pm_type_free(t);
		/* p <= 18 type but a value that does not fit int64 */
		t = ty("DECIMAL(18, 2)");
		CHECK_RC(pm_datum_from_arrow(t, &s, &a, 1, &d), PAIMON_EINVAL);
		pm_type_free(t);
	}
	release(&a, &s);
}

static void test_arrow_binary(void)
{
	const char *fmts[] = {"u", "U", "z", "Z"};
	for (int k = 0; k < 4; k++) {
		pm_array_builder *ab = pm_ab_new_binary(fmts[k], k & 1);
		struct ArrowArray a;
		struct ArrowSchema s;
		pm_ab_append_binary(ab, "skip", 4);
		pm_ab_append_binary(ab, "hello", 5);
		pm_ab_append_nulls(ab, 1);
		pm_ab_append_binary(ab, "", 0);
		pm_ab_append_binary(ab, "w\xc3\xb6rld", 6);
		finish(ab, &a, &s, 1);
		const char *sql = k < 2 ? "STRING" : "BYTES";
		expect_text(sql, &s, &a, 0, "hello");
		expect_text(sql, &s, &a, 1, NULL);
		expect_text(sql, &s, &a, 2, "");
		expect_text(sql, &s, &a, 3, "w\xc3\xb6rld");
		expect_text(k < 2 ? "BYTES" : "CHAR(5)", &s, &a, 0, "hello"); /* either way round */
		{
			pm_type *t = ty("INT");
			pm_binrow_datum d;
			CHECK_RC(pm_datum_from_arrow(t, &s, &a, 0, &d), PAIMON_EINVAL);
			pm_type_free(t);
		}
		release(&a, &s);
	}
	/* fixed-size binary */
	{
		pm_array_builder *ab = pm_ab_new_fixed("w:3", 3);
		struct ArrowArray a;
		struct ArrowSchema s;
		pm_ab_append_fixed(ab, "abcdef", 2);
		pm_ab_append_nulls(ab, 1);
		finish(ab, &a, &s, 1);
		expect_text("BINARY(3)", &s, &a, 0, "def");
		expect_text("STRING", &s, &a, 1, NULL);
		release(&a, &s);
	}
	/* null type */
	{
		struct ArrowSchema s;
		struct ArrowArray a;
		const void *bufs[1] = {NULL};
		memset(&a, 0, sizeof a);
		a.length = 3;
		a.null_count = 3;
		a.buffers = bufs;
		CHECK_OK(pm_aschema_init(&s, "n", "x", ARROW_FLAG_NULLABLE, 0));
		expect_text("INT", &s, &a, 2, NULL);
		s.release(&s);
	}
}

TEST_MAIN(T(test_text_roundtrip), T(test_text_bad), T(test_compare), T(test_arrow_fixed), T(test_arrow_temporal),
	  T(test_arrow_decimal), T(test_arrow_binary))
