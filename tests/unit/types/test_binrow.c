/* tests/unit/types/test_binrow.c - BinaryRow layout, spec §5.5 vectors as exact bytes. */
#include <stdint.h>
#include "core/buf.h"
#include "core/mem.h"
#include "types/binrow.h"
#include "types/datatype.h"
#include "test.h"

static pm_type *ty(pm_type_root r, int32_t precision, int32_t scale)
{
	pm_type *t = pm_type_new(r);
	if (!t)
		abort();
	t->precision = precision;
	t->scale = scale;
	return t;
}

/* Parses "00 01 ab ..." (also "00x8" meaning eight zero bytes) into bytes. */
static size_t hex(const char *s, uint8_t *out)
{
	size_t n = 0;
	while (*s) {
		unsigned v;
		int used;
		if (*s == ' ' || *s == '|' || *s == '\n') {
			s++;
			continue;
		}
		if (sscanf(s, "%2x%n", &v, &used) != 1)
			abort();
		s += used;
		if (*s == 'x') { /* repeat */
			unsigned rep;
			s++;
			if (sscanf(s, "%u%n", &rep, &used) != 1)
				abort();
			s += used;
			while (rep--)
				out[n++] = (uint8_t)v;
		} else
			out[n++] = (uint8_t)v;
	}
	return n;
}

static void check_encoding(const pm_type *const *types, const pm_binrow_datum *vals, size_t arity,
			   const char *want_hex)
{
	uint8_t want[1024];
	size_t wn = hex(want_hex, want);
	pm_buf b = PM_BUF_INIT;
	pm_binrow_datum back[16];
	size_t i;
	CHECK_OK(pm_binrow_encode(types, vals, arity, 0, 1, &b));
	CHECK(b.len == wn);
	if (b.len != wn || memcmp(b.data, want, wn) != 0) {
		test_failures++;
		fprintf(stderr, "[%s] encoding differs:\n got:", test_current);
		for (i = 0; i < b.len; i++)
			fprintf(stderr, " %02x", (uint8_t)b.data[i]);
		fprintf(stderr, "\nwant:");
		for (i = 0; i < wn; i++)
			fprintf(stderr, " %02x", want[i]);
		fprintf(stderr, "\n");
	}
	/* decode the expected bytes back to the same values */
	CHECK_OK(pm_binrow_decode(want, wn, types, arity, 1, back, NULL));
	for (i = 0; i < arity && i < 16; i++) {
		CHECK(back[i].is_null == vals[i].is_null);
		if (vals[i].is_null)
			continue;
		if (vals[i].bytes.p && types[i]->root != PM_DECIMAL)
			CHECK(back[i].bytes.n == vals[i].bytes.n &&
			      memcmp(back[i].bytes.p, vals[i].bytes.p, vals[i].bytes.n) == 0);
	}
	pm_buf_dispose(&b);
}

static pm_binrow_datum str(const char *s)
{
	pm_binrow_datum d;
	memset(&d, 0, sizeof d);
	d.bytes.p = (const uint8_t *)s;
	d.bytes.n = strlen(s);
	return d;
}

static pm_binrow_datum num(int64_t i)
{
	pm_binrow_datum d;
	memset(&d, 0, sizeof d);
	d.i = i;
	return d;
}

static void test_example_a(void)
{
	pm_type *t[4] = {ty(PM_INT, 0, 0), ty(PM_VARCHAR, 0, 0), ty(PM_VARCHAR, 0, 0), ty(PM_BIGINT, 0, 0)};
	pm_binrow_datum v[4];
	size_t i;
	v[0] = num(1);
	v[1] = str("20240514");
	v[2] = str("abc");
	v[3] = num(0);
	v[3].is_null = 1;
	check_encoding((const pm_type *const *)t, v, 4,
		       "00 00 00 04 00 08 00 00 00 00 00 00 01 00 00 00 00 00 00 00"
		       " 08 00 00 00 28 00 00 00 61 62 63 00 00 00 00 83 00x8"
		       " 32 30 32 34 30 35 31 34");
	{
		uint8_t row[64];
		size_t n = hex("00 00 00 04 00 08 00 00 00 00 00 00 01 00 00 00 00 00 00 00"
			       " 08 00 00 00 28 00 00 00 61 62 63 00 00 00 00 83 00x8"
			       " 32 30 32 34 30 35 31 34", row);
		pm_binrow_datum d[4];
		int kind = -1;
		CHECK(n == 52);
		CHECK_OK(pm_binrow_decode(row, n, (const pm_type *const *)t, 4, 1, d, &kind));
		CHECK(kind == 0 && d[0].i == 1 && d[1].bytes.n == 8 && d[2].bytes.n == 3 && d[3].is_null);
		CHECK(memcmp(d[1].bytes.p, "20240514", 8) == 0 && memcmp(d[2].bytes.p, "abc", 3) == 0);
		/* wrong arity, truncation, offsets outside the row */
		CHECK(pm_binrow_decode(row, n, (const pm_type *const *)t, 3, 1, d, NULL) == PAIMON_ECORRUPT);
		CHECK(pm_binrow_decode(row, 30, (const pm_type *const *)t, 4, 1, d, NULL) == PAIMON_ECORRUPT);
		CHECK(pm_binrow_decode(row, n - 1, (const pm_type *const *)t, 4, 1, d, NULL) == PAIMON_ECORRUPT);
		CHECK_MSG("field 1");
	}
	for (i = 0; i < 4; i++)
		pm_type_free(t[i]);
}

static void test_example_b_empty(void)
{
	pm_buf b = PM_BUF_INIT;
	static const uint8_t want[12] = {0};
	CHECK_OK(pm_binrow_encode(NULL, NULL, 0, 0, 1, &b));
	CHECK(b.len == 12 && memcmp(b.data, want, 12) == 0);
	CHECK_OK(pm_binrow_decode(want, 12, NULL, 0, 1, NULL, NULL));
	pm_buf_dispose(&b);
}

static void test_example_c_partition(void)
{
	pm_type *t[2] = {ty(PM_VARCHAR, 0, 0), ty(PM_INT, 0, 0)};
	pm_binrow_datum v[2];
	v[0] = str("2024-05-14");
	v[1] = num(13);
	check_encoding((const pm_type *const *)t, v, 2,
		       "00 00 00 02 | 00x8 | 0a 00 00 00 18 00 00 00 | 0d 00 00 00 00 00 00 00 |"
		       " 32 30 32 34 2d 30 35 2d 31 34 00 00 00 00 00 00");
	pm_type_free(t[0]);
	pm_type_free(t[1]);
}

static void test_example_d_fixed(void)
{
	pm_type *t[8] = {ty(PM_BOOLEAN, 0, 0), ty(PM_TINYINT, 0, 0), ty(PM_SMALLINT, 0, 0), ty(PM_FLOAT, 0, 0),
			 ty(PM_DOUBLE, 0, 0), ty(PM_DATE, 0, 0), ty(PM_TIMESTAMP, 3, 0), ty(PM_DECIMAL, 10, 2)};
	pm_binrow_datum v[8], back[8];
	size_t i;
	uint8_t row[256];
	size_t n;
	memset(v, 0, sizeof v);
	v[0].i = 1;
	v[1].i = -1;
	v[2].i = 300;
	v[3].f = 1.5f;
	v[4].d = 2.5;
	v[5].i = 19857;
	v[6].ts.millis = 1715648523456LL;
	v[7].i = 1234;
	check_encoding((const pm_type *const *)t, v, 8,
		       "00 00 00 08 | 00x8 | 01 00x7 | ff 00x7 | 2c 01 00x6 | 00 00 c0 3f 00x4 |"
		       " 00 00 00 00 00 00 04 40 | 91 4d 00 00 00 00 00 00 | c0 ec 9e 74 8f 01 00 00 |"
		       " d2 04 00 00 00 00 00 00");
	n = hex("00 00 00 08 | 00x8 | 01 00x7 | ff 00x7 | 2c 01 00x6 | 00 00 c0 3f 00x4 |"
		" 00 00 00 00 00 00 04 40 | 91 4d 00 00 00 00 00 00 | c0 ec 9e 74 8f 01 00 00 |"
		" d2 04 00 00 00 00 00 00", row);
	CHECK_OK(pm_binrow_decode(row, n, (const pm_type *const *)t, 8, 1, back, NULL));
	CHECK(back[0].i == 1 && back[1].i == -1 && back[2].i == 300 && back[3].f == 1.5f && back[4].d == 2.5);
	CHECK(back[5].i == 19857 && back[6].ts.millis == 1715648523456LL && back[7].i == 1234);
	for (i = 0; i < 8; i++)
		pm_type_free(t[i]);
}

static void test_example_e_noncompact(void)
{
	pm_type *t[2] = {ty(PM_DECIMAL, 20, 2), ty(PM_TIMESTAMP, 6, 0)};
	pm_binrow_datum v[2], back[2];
	static const uint8_t py_bytes[2] = {0xff, 0x80}; /* Python's non-minimal form */
	uint8_t row[128];
	size_t n;
	memset(v, 0, sizeof v);
	v[0].bytes.p = py_bytes;
	v[0].bytes.n = 2;
	v[1].ts.millis = 1715648523456LL;
	v[1].ts.nano_of_milli = 789000;
	/* Java layout: minimal byte 80, 16 reserved bytes at 24; timestamp at 40. */
	check_encoding((const pm_type *const *)t, v, 2,
		       "00 00 00 02 | 00x8 | 01 00 00 00 18 00 00 00 | 08 0a 0c 00 28 00 00 00 |"
		       " 80 00x15 | c0 ec 9e 74 8f 01 00 00");
	n = hex("00 00 00 02 | 00x8 | 01 00 00 00 18 00 00 00 | 08 0a 0c 00 28 00 00 00 |"
		" 80 00x15 | c0 ec 9e 74 8f 01 00 00", row);
	CHECK_OK(pm_binrow_decode(row, n, (const pm_type *const *)t, 2, 1, back, NULL));
	CHECK(back[0].bytes.n == 1 && back[0].bytes.p[0] == 0x80);
	CHECK(back[1].ts.millis == 1715648523456LL && back[1].ts.nano_of_milli == 789000);
	/* Python's row (length 2, ff 80) decodes too. */
	n = hex("00 00 00 02 | 00x8 | 02 00 00 00 18 00 00 00 | 08 0a 0c 00 28 00 00 00 |"
		" ff 80 00x14 | c0 ec 9e 74 8f 01 00 00", row);
	CHECK_OK(pm_binrow_decode(row, n, (const pm_type *const *)t, 2, 1, back, NULL));
	CHECK(back[0].bytes.n == 2 && back[0].bytes.p[0] == 0xff && back[0].bytes.p[1] == 0x80);
	/* Null non-compact fields: null bit, zero slot (Python's form). */
	v[0].is_null = v[1].is_null = 1;
	check_encoding((const pm_type *const *)t, v, 2, "00 00 00 02 | 00 03 00x6 | 00x16");
	pm_type_free(t[0]);
	pm_type_free(t[1]);
}

static void test_example_f_57_columns(void)
{
	pm_type *t[57];
	pm_binrow_datum v[57];
	pm_buf b = PM_BUF_INIT;
	size_t i;
	CHECK(pm_binrow_null_bytes(0) == 8 && pm_binrow_null_bytes(56) == 8 && pm_binrow_null_bytes(57) == 16 &&
	      pm_binrow_null_bytes(120) == 16 && pm_binrow_null_bytes(121) == 24);
	for (i = 0; i < 57; i++) {
		t[i] = ty(PM_BIGINT, 0, 0);
		v[i] = num((int64_t)i);
		v[i].is_null = i == 56;
	}
	CHECK_OK(pm_binrow_encode((const pm_type *const *)t, v, 57, 0, 1, &b));
	CHECK(b.len == 4 + 472);
	CHECK((uint8_t)b.data[4 + 8] == 0x01); /* field 56 -> bit 64 -> byte 8 bit 0 */
	{
		pm_binrow_datum back[57];
		CHECK_OK(pm_binrow_decode((const uint8_t *)b.data, b.len, (const pm_type *const *)t, 57, 1, back,
					  NULL));
		for (i = 0; i < 56; i++)
			CHECK(!back[i].is_null && back[i].i == (int64_t)i);
		CHECK(back[56].is_null);
	}
	for (i = 0; i < 57; i++)
		pm_type_free(t[i]);
	pm_buf_dispose(&b);
}

static void test_example_g_stats(void)
{
	pm_type *t[2] = {ty(PM_INT, 0, 0), ty(PM_VARCHAR, 0, 0)};
	pm_binrow_datum v[2];
	v[0] = num(1);
	v[1] = str("a");
	check_encoding((const pm_type *const *)t, v, 2,
		       "00 00 00 02 | 00x8 | 01 00 00 00 00 00 00 00 | 61 00 00 00 00 00 00 81");
	v[0] = num(3);
	v[1] = str("cc");
	check_encoding((const pm_type *const *)t, v, 2,
		       "00 00 00 02 | 00x8 | 03 00 00 00 00 00 00 00 | 63 63 00 00 00 00 00 82");
	pm_type_free(t[0]);
	pm_type_free(t[1]);
}

static void test_boundaries(void)
{
	/* 7-byte string inline, 8-byte in the var part; empty string inline; no arity prefix. */
	pm_type *t[3] = {ty(PM_VARCHAR, 0, 0), ty(PM_VARBINARY, 0, 0), ty(PM_VARCHAR, 0, 0)};
	pm_binrow_datum v[3], back[3];
	pm_buf b = PM_BUF_INIT;
	v[0] = str("1234567");
	v[1] = str("12345678");
	v[2] = str("");
	CHECK_OK(pm_binrow_encode((const pm_type *const *)t, v, 3, 2, 0, &b));
	CHECK(b.len == 8 + 24 + 8);
	CHECK((uint8_t)b.data[8 + 7] == 0x87 && (uint8_t)b.data[8 + 16 + 7] == 0x80);
	CHECK(b.data[0] == 2);
	{
		int kind;
		CHECK_OK(pm_binrow_decode((const uint8_t *)b.data, b.len, (const pm_type *const *)t, 3, 0, back,
					  &kind));
		CHECK(kind == 2 && back[0].bytes.n == 7 && back[1].bytes.n == 8 && back[2].bytes.n == 0);
	}
	/* corrupt inline length */
	b.data[8 + 7] = (char)0xff;
	CHECK(pm_binrow_decode((const uint8_t *)b.data, b.len, (const pm_type *const *)t, 3, 0, back, NULL) ==
	      PAIMON_ECORRUPT);
	pm_buf_dispose(&b);
	pm_type_free(t[0]);
	pm_type_free(t[1]);
	pm_type_free(t[2]);
}

TEST_MAIN(T(test_example_a), T(test_example_b_empty), T(test_example_c_partition), T(test_example_d_fixed),
	  T(test_example_e_noncompact), T(test_example_f_57_columns), T(test_example_g_stats),
	  T(test_boundaries))
