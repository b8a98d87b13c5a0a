/*
 * test_cli_textio.c - the paimonc CLI's text <-> Arrow converters
 * (src/cli/textio.c, compiled into this test).
 */
#include "test.h"

#include <math.h>

#include "cli/textio.c"
#include "paimonc/catalog.h"

static void test_dates(void)
{
	static const char *ok[] = {"1970-01-01", "2024-02-29", "1900-03-01", "0001-01-01", "9999-12-31", "1969-12-31",
				   "2000-02-29", "-0044-03-15"};
	static const char *bad[] = {"2023-02-29", "1900-02-29", "2024-13-01", "2024-00-10", "2024-1-01", "24-01-01",
				    "2024-01-01x", "", "2024/01/01", "2024-04-31"};
	size_t i;
	int32_t d = 0;
	char buf[32];
	CHECK(tio_parse_date("1970-01-01", 10, &d) == 0 && d == 0);
	CHECK(tio_parse_date("2024-05-14", 10, &d) == 0 && d == 19857);
	CHECK(tio_parse_date("1969-12-31", 10, &d) == 0 && d == -1);
	for (i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		CHECK(tio_parse_date(ok[i], strlen(ok[i]), &d) == 0);
		tio_format_date(buf, sizeof buf, d);
		CHECK_STR(buf, ok[i]);
	}
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		CHECK(tio_parse_date(bad[i], strlen(bad[i]), &d) < 0);
	/* every day of 1999..2001 round-trips and is consecutive */
	{
		int32_t prev = 0, cur = 0;
		CHECK(tio_parse_date("1999-01-01", 10, &prev) == 0);
		for (i = 1; i < 3 * 366; i++) {
			tio_format_date(buf, sizeof buf, prev + 1);
			CHECK(tio_parse_date(buf, strlen(buf), &cur) == 0 && cur == prev + 1);
			prev = cur;
		}
	}
}

static void test_times(void)
{
	int64_t v;
	char buf[64];
	CHECK(tio_parse_time("01:02:03.5", 10, 1000, &v) == 0 && v == 3723500);
	CHECK(tio_parse_time("01:02", 5, 1000, &v) == 0 && v == 3720000);
	CHECK(tio_parse_time("23:59:59.999", 12, 1000, &v) == 0 && v == 86399999);
	CHECK(tio_parse_time("24:00:00", 8, 1000, &v) < 0);
	CHECK(tio_parse_time("01:02:03.1234", 13, 1000, &v) == -2);
	CHECK(tio_parse_time("01:02:03.1230", 13, 1000, &v) == 0 && v == 3723123);
	tio_format_time(buf, sizeof buf, 3723500, 1000);
	CHECK_STR(buf, "01:02:03.500");

	CHECK(tio_parse_timestamp("2024-05-14 01:02:03.123456", 26, 1000000, &v) == 0 &&
	      v == 19857LL * 86400000000LL + 3723123456LL);
	tio_format_timestamp(buf, sizeof buf, v, 1000000);
	CHECK_STR(buf, "2024-05-14 01:02:03.123456");
	CHECK(tio_parse_timestamp("2024-05-14T01:02:03.1Z", 22, 1000, &v) == 0 && v == 19857LL * 86400000 + 3723100);
	CHECK(tio_parse_timestamp("2024-05-14", 10, 1, &v) == 0 && v == 19857LL * 86400);
	CHECK(tio_parse_timestamp("2024-05-14 01:02:03.1234", 24, 1000, &v) == -2);
	CHECK(tio_parse_timestamp("2024-05-14 01:02:03.", 20, 1000, &v) < 0);
	CHECK(tio_parse_timestamp("2024-05-14  01:02:03", 20, 1000, &v) < 0);
	/* before the epoch */
	CHECK(tio_parse_timestamp("1969-12-31 23:59:59.999999999", 29, 1000000000, &v) == 0 && v == -1);
	tio_format_timestamp(buf, sizeof buf, -1, 1000000000);
	CHECK_STR(buf, "1969-12-31 23:59:59.999999999");
	tio_format_timestamp(buf, sizeof buf, 0, 1);
	CHECK_STR(buf, "1970-01-01 00:00:00");
}

static void test_decimals(void)
{
	__int128 v;
	char buf[64];
	CHECK(tio_parse_decimal("-12.34", 6, 10, 2, &v) == 0 && v == -1234);
	CHECK(tio_parse_decimal("12.3", 4, 10, 2, &v) == 0 && v == 1230);
	CHECK(tio_parse_decimal("12", 2, 10, 2, &v) == 0 && v == 1200);
	CHECK(tio_parse_decimal(".5", 2, 10, 2, &v) == 0 && v == 50);
	CHECK(tio_parse_decimal("12.345", 6, 10, 2, &v) == -2);
	CHECK(tio_parse_decimal("12.340", 6, 10, 2, &v) == 0 && v == 1234);
	CHECK(tio_parse_decimal("123456789.1", 11, 10, 2, &v) == -3);
	CHECK(tio_parse_decimal("12a", 3, 10, 2, &v) == -1);
	CHECK(tio_parse_decimal("-", 1, 10, 2, &v) == -1);
	/* 38 integer digits scaled past 38 digits: a precision error, not an
	 * __int128 overflow (found by fuzz_textio) */
	CHECK(tio_parse_decimal("77777777777777777777777777775808297985", 38, 38, 5, &v) == -3);
	CHECK(tio_parse_decimal("77777777777777777777777777775808297985.1", 40, 38, 5, &v) == -3);
	CHECK(tio_parse_decimal("99999999999999999999999999999999999999", 38, 38, 0, &v) == 0);
	tio_format_decimal(buf, sizeof buf, v, 0);
	CHECK_STR(buf, "99999999999999999999999999999999999999");
	tio_format_decimal(buf, sizeof buf, -1234, 2);
	CHECK_STR(buf, "-12.34");
	tio_format_decimal(buf, sizeof buf, 5, 3);
	CHECK_STR(buf, "0.005");
	tio_format_decimal(buf, sizeof buf, -5, 3);
	CHECK_STR(buf, "-0.005");
	tio_format_decimal(buf, sizeof buf, 0, 0);
	CHECK_STR(buf, "0");
}

static void test_base64_double(void)
{
	static const char *const cases[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
	static const char *const enc[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
	size_t i;
	char buf[64];
	double ds[] = {0.1, 1.0 / 3, 1e300, -2.5, 5e-324, 123456789.0};
	for (i = 0; i < 7; i++) {
		tio_str s = {0};
		uint8_t *d = NULL;
		size_t n = 0;
		CHECK(base64_encode(&s, (const uint8_t *)cases[i], strlen(cases[i])) == 0);
		CHECK_STR(s.p ? s.p : "", enc[i]);
		CHECK(tio_base64_decode(enc[i], strlen(enc[i]), &d, &n) == 0);
		CHECK(n == strlen(cases[i]) && (n == 0 || memcmp(d, cases[i], n) == 0));
		free(d);
		tio_str_dispose(&s);
	}
	{
		uint8_t *d = NULL;
		size_t n;
		CHECK(tio_base64_decode("Zm9v!", 5, &d, &n) < 0);
		CHECK(tio_base64_decode("Z", 1, &d, &n) < 0);
	}
	for (i = 0; i < sizeof ds / sizeof ds[0]; i++) {
		tio_format_double(buf, sizeof buf, ds[i], 0);
		CHECK(strtod(buf, NULL) == ds[i]);
	}
	tio_format_double(buf, sizeof buf, 0.1, 0);
	CHECK_STR(buf, "0.1");
	tio_format_double(buf, sizeof buf, (float)0.1f, 1);
	CHECK_STR(buf, "0.1");
	{
		static const double dv[] = {1000, 1e7, 0.001, 0.0001, -2.5, 123.456, 1e-300, 5e-324, 1.5e300, 9999999};
		static const char *const ds_txt[] = {"1000.0", "1.0E7", "0.001", "1.0E-4", "-2.5", "123.456", "1.0E-300",
						     "5.0E-324", "1.5E300", "9999999.0"};
		for (i = 0; i < sizeof dv / sizeof dv[0]; i++) {
			tio_format_double(buf, sizeof buf, dv[i], 0);
			CHECK_STR(buf, ds_txt[i]);
		}
		tio_format_double(buf, sizeof buf, 16777216.0f, 1);
		CHECK_STR(buf, "1.6777216E7");
		tio_format_double(buf, sizeof buf, 3.4028235e38f, 1);
		CHECK_STR(buf, "3.4028235E38");
	}
	tio_format_double(buf, sizeof buf, NAN, 0);
	CHECK_STR(buf, "NaN");
	tio_format_double(buf, sizeof buf, -INFINITY, 0);
	CHECK_STR(buf, "-Infinity");
}

/* The Arrow schema of a table created with these columns. */
static int table_schema(const char *columns, struct ArrowSchema *out)
{
	char *dir = test_tmpdir();
	paimon_options *o = NULL;
	paimon_catalog *c = NULL;
	paimon_schema_spec *sp = NULL;
	paimon_table *t = NULL;
	int rc = paimon_options_new(&o);
	if (!rc)
		rc = paimon_options_set(o, "warehouse", dir);
	if (!rc)
		rc = paimon_catalog_open(&c, o);
	if (!rc)
		rc = paimon_catalog_create_database(c, "db", 0);
	if (!rc)
		rc = paimon_schema_spec_new(&sp);
	if (!rc)
		rc = paimon_schema_spec_add_columns(sp, columns);
	if (!rc)
		rc = paimon_catalog_create_table(c, "db.t", sp, 0);
	if (!rc)
		rc = paimon_catalog_get_table(c, "db.t", &t);
	if (!rc)
		rc = paimon_schema_to_arrow(paimon_table_schema(t), out);
	if (t)
		paimon_table_free(t);
	paimon_schema_spec_free(sp);
	paimon_catalog_free(c);
	paimon_options_free(o);
	free(dir);
	return rc;
}

static const char *COLS = "b BOOLEAN, i8 TINYINT, i16 SMALLINT, i INT NOT NULL, l BIGINT, f FLOAT, d DOUBLE, "
			  "s STRING, bin BYTES, dt DATE, tm TIME, ts TIMESTAMP(6), ts3 TIMESTAMP(3), "
			  "ltz TIMESTAMP_LTZ(3), dec DECIMAL(10, 2), arr ARRAY<INT>, m MAP<STRING, INT>, "
			  "mk MAP<INT, ARRAY<STRING>>, r ROW<x INT, y STRING>, nested ARRAY<ROW<k STRING, v ARRAY<DOUBLE>>>";

/* JSON lines in the output convention (so they must round-trip exactly). */
static const char *const ROWS[] = {
	"{\"b\":true,\"i8\":-128,\"i16\":32767,\"i\":1,\"l\":-9223372036854775808,\"f\":0.1,\"d\":1.0E300,"
	"\"s\":\"h\xc3\xa9\\\"llo\\n\",\"bin\":\"AAEC/w==\",\"dt\":\"2024-05-14\",\"tm\":\"01:02:03.500\","
	"\"ts\":\"2024-05-14 01:02:03.123456\",\"ts3\":\"1969-12-31 23:59:59.999\",\"ltz\":\"2024-01-01 00:00:00.000\","
	"\"dec\":\"-12.34\",\"arr\":[1,null,3],\"m\":{\"a\":1,\"b\":null},\"mk\":{\"7\":[\"x\",null]},"
	"\"r\":{\"x\":5,\"y\":null},\"nested\":[{\"k\":\"q\",\"v\":[1.5,\"NaN\",\"-Infinity\"]},null]}",
	"{\"b\":null,\"i8\":null,\"i16\":null,\"i\":2,\"l\":null,\"f\":null,\"d\":null,\"s\":\"\",\"bin\":\"\","
	"\"dt\":null,\"tm\":null,\"ts\":null,\"ts3\":null,\"ltz\":null,\"dec\":null,\"arr\":[],\"m\":{},\"mk\":null,"
	"\"r\":null,\"nested\":[]}",
};

static void check_roundtrip(struct ArrowSchema *sch, tio_col **cols, size_t n)
{
	struct ArrowArray a;
	struct ArrowSchema bs;
	int64_t r;
	CHECK(tio_batch_finish(cols, n, &a, &bs) == 0);
	CHECK(a.length == 2);
	for (r = 0; r < a.length && r < 2; r++) {
		tio_str o = {0};
		CHECK(tio_value_json(&o, &bs, &a, r) == 0);
		CHECK_STR(o.p, ROWS[r]);
		tio_str_dispose(&o);
	}
	/* text cells: scalars plain, nested as JSON */
	{
		tio_str o = {0};
		int is_null;
		CHECK(tio_value_text(&o, bs.children[9], a.children[9], 0, &is_null) == 0 && !is_null);
		CHECK_STR(o.p, "2024-05-14");
		o.len = 0;
		CHECK(tio_value_text(&o, bs.children[15], a.children[15], 0, &is_null) == 0 && !is_null);
		CHECK_STR(o.p, "[1,null,3]");
		o.len = 0;
		CHECK(tio_value_text(&o, bs.children[0], a.children[0], 1, &is_null) == 0 && is_null);
		tio_str_dispose(&o);
	}
	a.release(&a);
	CHECK(a.release == NULL);
	bs.release(&bs);
	(void)sch;
}

static void test_builder_json(void)
{
	struct ArrowSchema sch;
	tio_col *cols[32] = {0};
	size_t n, i, k;
	tio_err e;
	if (table_schema(COLS, &sch) != 0) {
		CHECK(0);
		return;
	}
	n = (size_t)sch.n_children;
	for (i = 0; i < n; i++)
		CHECK(tio_col_new(sch.children[i], &cols[i], &e) == 0);
	/* twice: the builders are reusable after finish */
	for (k = 0; k < 2; k++) {
		for (i = 0; i < 2; i++) {
			json_error_t je;
			json_t *row = json_loads(ROWS[i], 0, &je);
			size_t c;
			CHECK(row != NULL);
			for (c = 0; c < n; c++) {
				int rc = tio_col_append_json(cols[c], json_object_get(row, sch.children[c]->name), &e);
				if (rc)
					fprintf(stderr, "column %zu: %s\n", c, e.msg);
				CHECK(rc == 0);
			}
			json_decref(row);
		}
		check_roundtrip(&sch, cols, n);
	}
	/* errors name the column and the value */
	CHECK(tio_col_append_text(cols[3], NULL, 0, &e) == TIO_EVALUE);
	CHECK(strstr(e.msg, "NOT NULL") && strstr(e.msg, "'i'"));
	CHECK(tio_col_append_text(cols[3], "abc", 3, &e) == TIO_EVALUE);
	CHECK(strstr(e.msg, "'abc'") && strstr(e.msg, "'i'"));
	CHECK(tio_col_append_text(cols[1], "200", 3, &e) == TIO_EVALUE);
	CHECK(tio_col_append_text(cols[14], "1.234", 5, &e) == TIO_EVALUE);
	CHECK(strstr(e.msg, "fraction digits") != NULL);
	CHECK(tio_col_append_text(cols[7], "\xff", 1, &e) == TIO_EVALUE);
	CHECK(tio_col_append_text(cols[15], "[1,", 3, &e) == TIO_EVALUE);
	CHECK(strstr(e.msg, "invalid JSON") != NULL);
	CHECK(tio_col_append_text(cols[18], "{\"zz\":1}", 8, &e) == TIO_EVALUE);
	CHECK(strstr(e.msg, "'zz'") != NULL);
	{
		json_t *v = json_integer(3);
		CHECK(tio_col_append_json(cols[9], v, &e) == TIO_EVALUE); /* DATE from a number */
		json_decref(v);
	}
	for (i = 0; i < n; i++)
		tio_col_free(cols[i]);
	sch.release(&sch);
}

static void test_builder_text(void)
{
	/* CSV-style cells: the same first row as text */
	static const char *const cells[] = {"true", "-128", "32767", "1", "-9223372036854775808", "0.1", "1e300",
					    "h\xc3\xa9\"llo\n", "AAEC/w==", "2024-05-14", "01:02:03.5",
					    "2024-05-14T01:02:03.123456Z", "1969-12-31 23:59:59.999",
					    "2024-01-01", "-12.340", "[1,null,3]", "{\"a\":1,\"b\":null}",
					    "[[7,[\"x\",null]]]", "{\"x\":5}",
					    "[{\"k\":\"q\",\"v\":[1.5,\"nan\",\"-inf\"]},null]"};
	struct ArrowSchema sch;
	tio_col *cols[32] = {0};
	size_t n, i;
	tio_err e;
	if (table_schema(COLS, &sch) != 0) {
		CHECK(0);
		return;
	}
	n = (size_t)sch.n_children;
	CHECK(n == sizeof cells / sizeof cells[0]);
	for (i = 0; i < n; i++) {
		int rc;
		CHECK(tio_col_new(sch.children[i], &cols[i], &e) == 0);
		rc = tio_col_append_text(cols[i], cells[i], strlen(cells[i]), &e);
		if (rc)
			fprintf(stderr, "column %zu: %s\n", i, e.msg);
		CHECK(rc == 0);
	}
	{
		json_error_t je;
		json_t *row = json_loads(ROWS[1], 0, &je);
		for (i = 0; i < n; i++)
			CHECK(tio_col_append_json(cols[i], json_object_get(row, sch.children[i]->name), &e) == 0);
		json_decref(row);
	}
	check_roundtrip(&sch, cols, n);
	for (i = 0; i < n; i++)
		tio_col_free(cols[i]);
	sch.release(&sch);
}

static void test_csv_reader(void)
{
	const char *text = "\xef\xbb\xbf" "a,b,c\r\n1,\"x,\"\"y\"\"\",\n\"multi\nline\",,\"\"\n\n4,5,6";
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	tio_csv r;
	tio_err e;
	tio_csv_init(&r, f, ',');
	CHECK(tio_csv_next(&r, &e) == 1 && r.nfields == 3 && r.line == 1);
	CHECK_STR(r.buf + r.starts[0], "a");
	CHECK(tio_csv_next(&r, &e) == 1 && r.nfields == 3 && r.line == 2);
	CHECK_STR(r.buf + r.starts[1], "x,\"y\"");
	CHECK(r.quoted[1] && !r.quoted[2] && r.lens[2] == 0);
	CHECK(tio_csv_next(&r, &e) == 1 && r.nfields == 3 && r.line == 3);
	CHECK_STR(r.buf + r.starts[0], "multi\nline");
	CHECK(r.quoted[2] && r.lens[2] == 0 && !r.quoted[1]);
	CHECK(tio_csv_next(&r, &e) == 1 && r.nfields == 1 && r.line == 5); /* blank line */
	CHECK(tio_csv_next(&r, &e) == 1 && r.nfields == 3 && r.line == 6);
	CHECK_STR(r.buf + r.starts[2], "6");
	CHECK(tio_csv_next(&r, &e) == 0);
	tio_csv_dispose(&r);
	fclose(f);

	text = "a\n\"open\n";
	f = fmemopen((void *)text, strlen(text), "r");
	tio_csv_init(&r, f, ',');
	CHECK(tio_csv_next(&r, &e) == 1);
	CHECK(tio_csv_next(&r, &e) == TIO_EVALUE && strstr(e.msg, "line 2") && strstr(e.msg, "unterminated"));
	tio_csv_dispose(&r);
	fclose(f);

	text = "a;b\nx\"y;z\n";
	f = fmemopen((void *)text, strlen(text), "r");
	tio_csv_init(&r, f, ';');
	CHECK(tio_csv_next(&r, &e) == 1 && r.nfields == 2);
	CHECK(tio_csv_next(&r, &e) == TIO_EVALUE && strstr(e.msg, "line 2"));
	tio_csv_dispose(&r);
	fclose(f);

	{
		tio_str o = {0};
		CHECK(tio_csv_quote(&o, "a,b", 3, ',') == 0 && tio_csv_quote(&o, "", 0, ',') == 0 &&
		      tio_csv_quote(&o, "q\"", 2, ',') == 0 && tio_csv_quote(&o, "plain", 5, ',') == 0);
		CHECK_STR(o.p, "\"a,b\"\"\"\"q\"\"\"plain");
		tio_str_dispose(&o);
	}
}

TEST_MAIN(T(test_dates), T(test_times), T(test_decimals), T(test_base64_double), T(test_builder_json),
	  T(test_builder_text), T(test_csv_reader))
