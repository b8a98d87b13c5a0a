/* Partition paths (Java and pypaimon styles), escaping, specs, bucket hashes.
 * Vectors in fixtures/partition_paths.tsv and fixtures/bucket_hashes.tsv come
 * from pypaimon 2.1.0 (fixtures/gen_partition_vectors.py). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/buf.h"
#include "core/mem.h"
#include "core/strs.h"
#include "meta/schema.h"
#include "table/partition.h"
#include "test.h"

static char *fixture_path(const char *name)
{
	const char *src = getenv("PAIMONC_SOURCE_DIR");
	char *p = malloc(4096);
	if (!p)
		abort();
	snprintf(p, 4096, "%s/tests/unit/table/fixtures/%s", src && *src ? src : ".", name);
	return p;
}

/* Splits line in place at tabs; returns the number of fields. */
static int split_tabs(char *line, char **f, int max)
{
	int n = 0;
	char *p = line, *nl = strchr(line, '\n');
	if (nl)
		*nl = 0;
	while (n < max) {
		char *t = strchr(p, '\t');
		f[n++] = p;
		if (!t)
			break;
		*t = 0;
		p = t + 1;
	}
	return n;
}

static size_t unhex(const char *h, uint8_t *out, size_t cap)
{
	size_t n = 0;
	while (h[0] && h[1] && n < cap) {
		unsigned v;
		sscanf(h, "%2x", &v);
		out[n++] = (uint8_t)v;
		h += 2;
	}
	return n;
}

/* ROW<`n1` t1, ...> from ';'-separated lists. */
static pm_type *row_of(const char *names, const char *types)
{
	pm_buf b = {0};
	pm_type *t = NULL;
	char nb[512], tb[512], *ns, *ts, *sn, *st;
	int first = 1;
	if (snprintf(nb, sizeof nb, "%s", names) >= (int)sizeof nb ||
	    snprintf(tb, sizeof tb, "%s", types) >= (int)sizeof tb)
		return NULL;
	pm_buf_puts(&b, "ROW<");
	for (ns = strtok_r(nb, ";", &sn), ts = strtok_r(tb, ";", &st); ns && ts;
	     ns = strtok_r(NULL, ";", &sn), ts = strtok_r(NULL, ";", &st)) {
		pm_buf_printf(&b, "%s`%s` %s", first ? "" : ", ", ns, ts);
		first = 0;
	}
	pm_buf_puts(&b, ">");
	if (pm_type_parse(pm_buf_cstr(&b), &t) != 0)
		t = NULL;
	pm_buf_dispose(&b);
	return t;
}

static int is_fp_type(const char *types)
{
	return strncmp(types, "FLOAT", 5) == 0 || strncmp(types, "DOUBLE", 6) == 0;
}

/* pypaimon's port prints Python's inf/nan where Java's Float/Double.toString
 * prints Infinity/NaN; compare against Java's spelling. */
static const char *java_fp_fix(const char *types, const char *want)
{
	if (!is_fp_type(types))
		return want;
	if (strcmp(want, "k=inf/") == 0)
		return "k=Infinity/";
	if (strcmp(want, "k=-inf/") == 0)
		return "k=-Infinity/";
	if (strcmp(want, "k=nan/") == 0)
		return "k=NaN/";
	return want;
}

static void test_vectors(void)
{
	char *path = fixture_path("partition_paths.tsv");
	FILE *f = fopen(path, "r");
	char line[4096];
	int lines = 0;
	CHECK(f != NULL);
	if (!f) {
		free(path);
		return;
	}
	setenv("TZ", "UTC", 1);
	tzset();
	while (fgets(line, sizeof line, f)) {
		char *fl[6] = {0};
		uint8_t row[1024];
		size_t rn;
		pm_type *rt;
		pm_partition_info leg, non;
		pm_buf out = {0};
		const char *want[3];
		int s;
		if (line[0] == '#')
			continue;
		CHECK(split_tabs(line, fl, 6) == 6);
		rt = row_of(fl[0], fl[1]);
		CHECK(rt != NULL);
		if (!rt)
			continue;
		rn = unhex(fl[2], row, sizeof row);
		CHECK_OK(pm_partition_info_init_row(&leg, rt, NULL, 1));
		CHECK_OK(pm_partition_info_init_row(&non, rt, NULL, 0));
		want[0] = java_fp_fix(fl[1], fl[3]);
		want[1] = java_fp_fix(fl[1], fl[4]);
		want[2] = fl[5];
		for (s = 0; s < 3; s++) {
			const pm_partition_info *pi = s == 1 ? &non : &leg;
			int rc;
			pm_buf_clear(&out);
			rc = pm_partition_path(pi, row, rn, s == 2 ? PM_PART_PYTHON : PM_PART_JAVA, &out);
			if (strcmp(want[s], "-") == 0) {
				CHECK(rc != 0);
				continue;
			}
			CHECK_OK(rc);
			if (rc == 0 && strcmp(pm_buf_cstr(&out), want[s]) != 0) {
				test_failures++;
				fprintf(stderr, "%s [%s] style %d: got '%s' want '%s'\n", fl[1], fl[2], s,
					pm_buf_cstr(&out), want[s]);
			}
		}
		lines++;
		pm_buf_dispose(&out);
		pm_partition_info_dispose(&leg);
		pm_partition_info_dispose(&non);
		pm_type_free(rt);
	}
	fclose(f);
	free(path);
	CHECK(lines >= 100);
}

static void test_bucket_vectors(void)
{
	char *path = fixture_path("bucket_hashes.tsv");
	FILE *f = fopen(path, "r");
	char line[4096];
	int buckets[16], nb = 0, lines = 0;
	CHECK(f != NULL);
	if (!f) {
		free(path);
		return;
	}
	while (fgets(line, sizeof line, f)) {
		char *fl[16] = {0};
		uint8_t row[1024];
		size_t rn;
		int n, i;
		int32_t h;
		if (strncmp(line, "# buckets:", 10) == 0) {
			char *p = line + 10, *e;
			for (;;) {
				long v = strtol(p, &e, 10);
				if (e == p)
					break;
				buckets[nb++] = (int)v;
				p = e;
			}
			continue;
		}
		if (line[0] == '#')
			continue;
		n = split_tabs(line, fl, 16);
		CHECK(n == 3 + nb);
		rn = unhex(fl[1], row, sizeof row);
		CHECK(rn >= 12 && (rn - 4) % 8 == 0);
		h = pm_binrow_hash(row + 4, rn - 4);
		if (h != (int32_t)strtol(fl[2], NULL, 10)) {
			test_failures++;
			fprintf(stderr, "hash of %s: got %d want %s\n", fl[1], h, fl[2]);
		}
		for (i = 0; i < nb && 3 + i < n; i++)
			CHECK(pm_bucket_of_hash(h, buckets[i]) == atoi(fl[3 + i]));
		lines++;
	}
	fclose(f);
	free(path);
	CHECK(nb >= 5);
	CHECK(lines >= 100);
	/* abs(hash % n) with a negative hash */
	CHECK(pm_bucket_of_hash(-7, 3) == 1);
	CHECK(pm_bucket_of_hash(INT32_MIN, 7) == 2);
	CHECK(pm_bucket_of_hash(INT32_MIN, 1) == 0);
}

static void check_escape(const char *in, const char *want)
{
	pm_buf b = {0}, u = {0};
	CHECK_OK(pm_partition_escape(in, strlen(in), &b));
	CHECK_STR(pm_buf_cstr(&b), want);
	CHECK_OK(pm_partition_unescape(b.data ? b.data : "", b.len, &u));
	CHECK_STR(u.len ? pm_buf_cstr(&u) : "", in);
	pm_buf_dispose(&b);
	pm_buf_dispose(&u);
}

static void check_unescape(const char *in, const char *want)
{
	pm_buf u = {0};
	CHECK_OK(pm_partition_unescape(in, strlen(in), &u));
	CHECK_STR(u.len ? pm_buf_cstr(&u) : "", want);
	pm_buf_dispose(&u);
}

static void test_escape(void)
{
	pm_buf b = {0};
	check_escape("plain", "plain");
	check_escape("a b", "a b");
	check_escape("a/b:c=d", "a%2Fb%3Ac%3Dd");
	check_escape("\"#%'*?\\{}[]^", "%22%23%25%27%2A%3F%5C%7B%7D%5B%5D%5E");
	check_escape("\x01\x1f\x7f", "%01%1F%7F");
	check_escape("caf\xc3\xa9 \xe6\x97\xa5", "caf\xc3\xa9 \xe6\x97\xa5");
	check_escape("~!@$&()+,;<>|`", "~!@$&()+,;<>|`");
	CHECK_RC(pm_partition_escape("", 0, &b), PAIMON_EINVAL);
	/* unescape quirks of Java's unescapePathName */
	check_unescape("%41%4a%4A", "AJJ");
	check_unescape("%", "%");
	check_unescape("a%4", "a%4");
	check_unescape("%41", "A");
	check_unescape("%zz%4", "%zz%4");
	check_unescape("%+5", "\x05");
	check_unescape("%-1", "%-1");
	check_unescape("%E9", "\xc3\xa9"); /* (char)0xE9 -> U+00E9 */
	pm_buf_dispose(&b);
}

static pm_type *parse(const char *s)
{
	pm_type *t = NULL;
	CHECK_OK(pm_type_parse(s, &t));
	return t;
}

static void path_of(const pm_partition_info *pi, const pm_binrow_datum *v, pm_part_style st, const char *want)
{
	pm_buf row = {0}, out = {0};
	CHECK_OK(pm_partition_encode(pi, v, &row));
	CHECK_OK(pm_partition_path(pi, (const uint8_t *)row.data, row.len, st, &out));
	CHECK_STR(out.len ? pm_buf_cstr(&out) : "", want);
	pm_buf_dispose(&row);
	pm_buf_dispose(&out);
}

static void test_types_direct(void)
{
	pm_type *rt = parse("ROW<`f` FLOAT, `d` DOUBLE, `b` BYTES, `s` STRING>");
	pm_partition_info pi, nl;
	pm_binrow_datum v[4];
	pm_buf row = {0}, out = {0};
	memset(v, 0, sizeof v);
	CHECK_OK(pm_partition_info_init_row(&pi, rt, "DEF", 1));
	CHECK_OK(pm_partition_info_init_row(&nl, rt, "DEF", 0));
	v[0].f = 2.68873286e11f; /* JDK 19+ prints 2.6887329E11 */
	v[1].d = 1.0 / 3;
	v[2].bytes.p = (const uint8_t *)"a'b";
	v[2].bytes.n = 3;
	v[3].bytes.p = (const uint8_t *)"\xe2\x80\x83"; /* EM SPACE: blank in Java and Python */
	v[3].bytes.n = 3;
	/* legacy Java refuses BINARY keys (byte[].toString()) */
	CHECK_OK(pm_partition_encode(&pi, v, &row));
	CHECK_RC(pm_partition_path(&pi, (const uint8_t *)row.data, row.len, PM_PART_JAVA, &out), PAIMON_EUNSUPPORTED);
	CHECK_MSG("'b'");
	path_of(&nl, v, PM_PART_JAVA, "f=2.6887329E11/d=0.3333333333333333/b=a%27b/s=DEF/");
	path_of(&pi, v, PM_PART_PYTHON, "f=268873285632.0/d=0.3333333333333333/b=b\"a'b\"/s=DEF/");
	v[3].bytes.p = (const uint8_t *)"\xc2\xa0"; /* NBSP: not whitespace in Java, is in Python */
	v[3].bytes.n = 2;
	v[0].f = 1e-5f;
	v[1].d = 1e16;
	path_of(&nl, v, PM_PART_JAVA, "f=1.0E-5/d=1.0E16/b=a%27b/s=\xc2\xa0/");
	path_of(&pi, v, PM_PART_PYTHON, "f=9.999999747378752e-06/d=1e+16/b=b\"a'b\"/s=DEF/");
	v[2].bytes.p = (const uint8_t *)"\xff";
	v[2].bytes.n = 1;
	pm_buf_clear(&row);
	CHECK_OK(pm_partition_encode(&nl, v, &row));
	pm_buf_clear(&out);
	CHECK_RC(pm_partition_path(&nl, (const uint8_t *)row.data, row.len, PM_PART_JAVA, &out), PAIMON_EUNSUPPORTED);
	pm_partition_info_dispose(&pi);
	pm_partition_info_dispose(&nl);
	pm_type_free(rt);
	pm_buf_dispose(&row);
	pm_buf_dispose(&out);

	/* TIMESTAMP_LTZ with legacy-name=false uses the local zone (Java's default). */
	rt = parse("ROW<`t` TIMESTAMP_LTZ(3), `u` TIMESTAMP(3)>");
	CHECK_OK(pm_partition_info_init_row(&nl, rt, NULL, 0));
	CHECK_OK(pm_partition_info_init_row(&pi, rt, NULL, 1));
	memset(v, 0, sizeof v);
	v[0].ts.millis = 1715648523456LL; /* 2024-05-14 01:02:03.456 UTC */
	v[1].ts.millis = 1715648523456LL;
	setenv("TZ", "Asia/Shanghai", 1);
	tzset();
	path_of(&nl, v, PM_PART_JAVA, "t=2024-05-14 09%3A02%3A03.456/u=2024-05-14 01%3A02%3A03.456/");
	path_of(&pi, v, PM_PART_JAVA, "t=2024-05-14T01%3A02%3A03.456/u=2024-05-14T01%3A02%3A03.456/");
	setenv("TZ", "UTC", 1);
	tzset();
	path_of(&nl, v, PM_PART_JAVA, "t=2024-05-14 01%3A02%3A03.456/u=2024-05-14 01%3A02%3A03.456/");
	/* far dates: LocalDate.toString prints +YYYYY and -YYYY */
	v[1].ts.millis = 253402300800000LL; /* 10000-01-01T00:00 */
	v[0].ts.millis = -62198755200000LL; /* -0001-01-01T00:00 */
	path_of(&pi, v, PM_PART_JAVA, "t=-0001-01-01T00%3A00/u=+10000-01-01T00%3A00/");
	pm_partition_info_dispose(&pi);
	pm_partition_info_dispose(&nl);
	pm_type_free(rt);
}

static void test_schema_info_and_spec(void)
{
	pm_table_schema s;
	pm_partition_info pi;
	pm_strmap spec = {0};
	pm_buf row = {0}, out = {0};
	pm_binrow_datum v[2];
	memset(&s, 0, sizeof s);
	s.nfields = 3;
	s.fields = calloc(3, sizeof *s.fields);
	s.fields[0].id = 0;
	s.fields[0].name = "id";
	s.fields[0].type = parse("BIGINT");
	s.fields[1].id = 1;
	s.fields[1].name = "dt";
	s.fields[1].type = parse("DATE");
	s.fields[2].id = 2;
	s.fields[2].name = "hr";
	s.fields[2].type = parse("INT");
	pm_strlist_push(&s.partition_keys, "dt");
	pm_strlist_push(&s.partition_keys, "hr");
	pm_strmap_set(&s.options, "partition.default-name", "NULLPART");
	CHECK_OK(pm_partition_info_init(&pi, &s));
	CHECK(pi.n == 2);
	CHECK(pi.field_index[0] == 1 && pi.field_index[1] == 2);
	CHECK(pi.legacy_name == 1);
	CHECK(pi.row_type->fields[1].id == 2);
	CHECK_STR(pi.names[0], "dt");

	pm_strmap_set(&spec, "dt", "2024-05-14");
	pm_strmap_set(&spec, "hr", "NULLPART");
	CHECK_OK(pm_partition_from_spec(&pi, &spec, &row));
	CHECK_OK(pm_partition_path(&pi, (const uint8_t *)row.data, row.len, PM_PART_JAVA, &out));
	CHECK_STR(pm_buf_cstr(&out), "dt=19857/hr=NULLPART/");
	pm_buf_clear(&out);
	CHECK_OK(pm_partition_path(&pi, (const uint8_t *)row.data, row.len, PM_PART_PYTHON, &out));
	CHECK_STR(pm_buf_cstr(&out), "dt=2024-05-14/hr=NULLPART/");
	pm_buf_clear(&out);
	CHECK_OK(pm_partition_to_display(&pi, (const uint8_t *)row.data, row.len, &out));
	CHECK_STR(pm_buf_cstr(&out), "dt=2024-05-14, hr=null");
	CHECK_OK(pm_partition_decode(&pi, (const uint8_t *)row.data, row.len, v));
	CHECK(!v[0].is_null && v[0].i == 19857 && v[1].is_null);
	CHECK_RC(pm_partition_decode(&pi, (const uint8_t *)row.data, row.len - 8, v), PAIMON_ECORRUPT);

	/* errors: missing key, unknown key, bad value */
	pm_strmap_remove(&spec, "hr");
	pm_buf_clear(&row);
	CHECK_RC(pm_partition_from_spec(&pi, &spec, &row), PAIMON_EINVAL);
	CHECK_MSG("hr");
	pm_strmap_set(&spec, "hr", "7");
	pm_strmap_set(&spec, "zz", "1");
	CHECK_RC(pm_partition_from_spec(&pi, &spec, &row), PAIMON_EINVAL);
	CHECK_MSG("zz");
	pm_strmap_remove(&spec, "zz");
	pm_strmap_set(&spec, "hr", "x7");
	CHECK_RC(pm_partition_from_spec(&pi, &spec, &row), PAIMON_EINVAL);
	CHECK_MSG("hr");
	pm_partition_info_dispose(&pi);

	/* legacy-name=false, bad option, unknown key */
	pm_strmap_set(&s.options, "partition.legacy-name", "false");
	CHECK_OK(pm_partition_info_init(&pi, &s));
	pm_strmap_set(&spec, "hr", "7");
	pm_buf_clear(&row);
	pm_buf_clear(&out);
	CHECK_OK(pm_partition_from_spec(&pi, &spec, &row));
	CHECK_OK(pm_partition_path(&pi, (const uint8_t *)row.data, row.len, PM_PART_JAVA, &out));
	CHECK_STR(pm_buf_cstr(&out), "dt=2024-05-14/hr=7/");
	pm_partition_info_dispose(&pi);
	pm_strmap_set(&s.options, "partition.legacy-name", "maybe");
	CHECK_RC(pm_partition_info_init(&pi, &s), PAIMON_EINVAL);
	CHECK_MSG("partition.legacy-name");
	pm_strmap_remove(&s.options, "partition.legacy-name");
	free(s.partition_keys.items[1]);
	s.partition_keys.items[1] = strdup("nope");
	CHECK_RC(pm_partition_info_init(&pi, &s), PAIMON_EINVAL);
	CHECK_MSG("nope");

	/* unpartitioned */
	s.partition_keys.len = 0;
	CHECK_OK(pm_partition_info_init(&pi, &s));
	CHECK(pi.n == 0);
	pm_buf_clear(&row);
	pm_buf_clear(&out);
	pm_strmap_dispose(&spec);
	CHECK_OK(pm_partition_from_spec(&pi, &spec, &row));
	CHECK(row.len == 12);
	CHECK_OK(pm_partition_path(&pi, (const uint8_t *)row.data, row.len, PM_PART_JAVA, &out));
	CHECK(out.len == 0);
	pm_partition_info_dispose(&pi);
	s.partition_keys.len = 2;

	pm_strlist_dispose(&s.partition_keys);
	pm_strmap_dispose(&s.options);
	pm_type_free(s.fields[0].type);
	pm_type_free(s.fields[1].type);
	pm_type_free(s.fields[2].type);
	free(s.fields);
	pm_buf_dispose(&row);
	pm_buf_dispose(&out);
}

TEST_MAIN(T(test_vectors), T(test_bucket_vectors), T(test_escape), T(test_types_direct),
	  T(test_schema_info_and_spec))
