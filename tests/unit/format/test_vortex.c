/*
 * tests/unit/format/test_vortex.c - Vortex files through the format
 * interface (format/fmt_vortex.h) and the shim (ext/vortex): round trips of
 * several batches with null vectors of FLOAT / DOUBLE / TINYINT / INT
 * elements, column projection, row ranges, and errors (not crashes) for
 * corrupt, truncated and empty files.
 *
 * The shim is found as the library finds it; when PAIMONC_VORTEX_LIB is
 * unset the test points it at ext/vortex/target/release (cargo's output).
 * Without the shim the test skips, unless PAIMONC_REQUIRE_VORTEX=1 (CI),
 * when a missing shim is a failure.
 */
#include "test.h"

#include <sys/stat.h>
#include <unistd.h>

#include "format/fmt_vortex.h"
#include "format/format.h"
#include "format/vortex/vx.h"
#include "arrow/arrow_builder.h"
#include "io/fileio.h"
#include "types/datatype.h"

static pm_fileio *g_io;
static char *g_dir;
static int g_have;

/* xorshift, fixed seed: the data is random but the same every run */
static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
	g_rng ^= g_rng << 13;
	g_rng ^= g_rng >> 7;
	g_rng ^= g_rng << 17;
	return g_rng;
}

#define NROWS_MAX 4096
/* the expected table: id INT, f VECTOR<FLOAT,4>, d VECTOR<DOUBLE,3>,
 * b VECTOR<TINYINT,8>, n VECTOR<INT,2> NOT NULL */
static int32_t e_id[NROWS_MAX];
static float e_f[NROWS_MAX][4];
static double e_d[NROWS_MAX][3];
static int8_t e_b[NROWS_MAX][8];
static int32_t e_n[NROWS_MAX][2];
static uint8_t e_fv[NROWS_MAX], e_dv[NROWS_MAX], e_bv[NROWS_MAX];
static int64_t e_rows;

static const char *ROW_TYPE = "ROW<`id` INT, `f` VECTOR<FLOAT, 4>, `d` VECTOR<DOUBLE, 3>, "
			      "`b` VECTOR<TINYINT, 8>, `n` VECTOR<INT, 2> NOT NULL>";

static pm_array_builder *vec_builder(const char *fmt, int32_t width, int32_t n, const char *name, int nullable)
{
	pm_array_builder *c = pm_ab_new_fixed(fmt, width), *l;
	if (!c)
		return NULL;
	pm_ab_set_name(c, "element", 1);
	l = pm_ab_new_fixed_list(c, n);
	if (l)
		pm_ab_set_name(l, name, nullable);
	return l;
}

/* One batch of rows [e_rows, e_rows + n) with random values, remembered. */
static int make_batch(int64_t n, struct ArrowArray *out, struct ArrowSchema *schema)
{
	pm_array_builder *ch[5], *st;
	int64_t i;
	int rc = 0, j;
	ch[0] = pm_ab_new_fixed("i", 4);
	pm_ab_set_name(ch[0], "id", 1);
	ch[1] = vec_builder("f", 4, 4, "f", 1);
	ch[2] = vec_builder("g", 8, 3, "d", 1);
	ch[3] = vec_builder("c", 1, 8, "b", 1);
	ch[4] = vec_builder("i", 4, 2, "n", 0);
	if (!(st = pm_ab_new_struct(ch, 5)))
		return PAIMON_ENOMEM;
	for (i = 0; i < n && !rc; i++) {
		int64_t r = e_rows + i;
		e_id[r] = (int32_t)r;
		rc |= pm_ab_append_fixed(ch[0], &e_id[r], 1);
		e_fv[r] = rnd() % 5 != 0;
		e_dv[r] = rnd() % 4 != 0;
		e_bv[r] = rnd() % 7 != 0;
		for (j = 0; j < 4; j++)
			e_f[r][j] = e_fv[r] ? (float)((double)(rnd() % 2000001) / 1000.0 - 1000.0) : 0.0f;
		for (j = 0; j < 3; j++)
			e_d[r][j] = e_dv[r] ? (double)(int64_t)rnd() / 1e9 : 0.0;
		for (j = 0; j < 8; j++)
			e_b[r][j] = e_bv[r] ? (int8_t)rnd() : 0;
		for (j = 0; j < 2; j++)
			e_n[r][j] = (int32_t)rnd();
		if (e_fv[r])
			rc |= pm_ab_append_valid(ch[1], 1) | pm_ab_append_fixed(ch[1]->children[0], e_f[r], 4);
		else
			rc |= pm_ab_append_nulls(ch[1], 1);
		if (e_dv[r])
			rc |= pm_ab_append_valid(ch[2], 1) | pm_ab_append_fixed(ch[2]->children[0], e_d[r], 3);
		else
			rc |= pm_ab_append_nulls(ch[2], 1);
		if (e_bv[r])
			rc |= pm_ab_append_valid(ch[3], 1) | pm_ab_append_fixed(ch[3]->children[0], e_b[r], 8);
		else
			rc |= pm_ab_append_nulls(ch[3], 1);
		rc |= pm_ab_append_valid(ch[4], 1) | pm_ab_append_fixed(ch[4]->children[0], e_n[r], 2);
		rc |= pm_ab_append_valid(st, 1);
	}
	if (!rc)
		rc = pm_ab_schema(st, schema);
	if (!rc)
		rc = pm_ab_finish(st, out);
	pm_ab_free(st);
	e_rows += n;
	return rc;
}

static int valid_at(const struct ArrowArray *a, int64_t i)
{
	const uint8_t *v = a->n_buffers > 0 ? a->buffers[0] : NULL;
	int64_t k = a->offset + i;
	return !v || ((v[k >> 3] >> (k & 7)) & 1);
}

/* Checks one read batch: rows[0..len) of the file are e_* rows at map[]. */
static void check_batch(const struct ArrowSchema *s, const struct ArrowArray *a, const int64_t *map)
{
	int64_t c, i;
	int j;
	CHECK(!strcmp(s->format, "+s") && s->n_children == a->n_children);
	for (c = 0; c < a->n_children && c < s->n_children; c++) {
		const char *name = s->children[c]->name;
		const struct ArrowArray *col = a->children[c];
		for (i = 0; i < a->length; i++) {
			int64_t r = map[i];
			if (!strcmp(name, "id")) {
				const int32_t *v = col->buffers[1];
				CHECK(valid_at(col, i) && v[col->offset + i] == e_id[r]);
				continue;
			}
			{
				const struct ArrowArray *el = col->children[0];
				int64_t base = (col->offset + i) * (!strcmp(name, "f") ? 4 : !strcmp(name, "d") ? 3
								   : !strcmp(name, "b") ? 8 : 2) + el->offset;
				int ok = 1;
				if (!strcmp(name, "f")) {
					CHECK(!strcmp(s->children[c]->format, "+w:4"));
					ok = valid_at(col, i) == e_fv[r];
					for (j = 0; ok && e_fv[r] && j < 4; j++)
						ok = ((const float *)el->buffers[1])[base + j] == e_f[r][j];
				} else if (!strcmp(name, "d")) {
					ok = valid_at(col, i) == e_dv[r];
					for (j = 0; ok && e_dv[r] && j < 3; j++)
						ok = ((const double *)el->buffers[1])[base + j] == e_d[r][j];
				} else if (!strcmp(name, "b")) {
					ok = valid_at(col, i) == e_bv[r];
					for (j = 0; ok && e_bv[r] && j < 8; j++)
						ok = ((const int8_t *)el->buffers[1])[base + j] == e_b[r][j];
				} else if (!strcmp(name, "n")) {
					ok = valid_at(col, i);
					for (j = 0; ok && j < 2; j++)
						ok = ((const int32_t *)el->buffers[1])[base + j] == e_n[r][j];
				} else {
					ok = 0;
				}
				if (!ok) {
					CHECK(!"value differs");
					fprintf(stderr, "  column %s row %lld\n", name, (long long)r);
					return;
				}
			}
		}
	}
}

static char *path_of(const char *name)
{
	char *p = malloc(4096);
	if (p)
		snprintf(p, 4096, "%s/%s", g_dir, name);
	return p;
}

/* Writes `batches` batches of sizes[i] rows to name. */
static void write_file(const char *name, const int64_t *sizes, int batches)
{
	pm_type *row = NULL;
	pm_format_writer *w = NULL;
	pm_format_file_stats st;
	char *p = path_of(name);
	int i;
	e_rows = 0;
	g_rng = 0x9E3779B97F4A7C15ull;
	CHECK_OK(pm_type_parse(ROW_TYPE, &row));
	if (!row)
		goto out;
	CHECK_OK(pm_format_vortex.writer_open(g_io, p, row, NULL, &w));
	if (!w)
		goto out;
	for (i = 0; i < batches; i++) {
		struct ArrowArray a;
		struct ArrowSchema s;
		CHECK_OK(make_batch(sizes[i], &a, &s));
		CHECK_OK(w->write(w, &a, &s));
		a.release(&a);
		s.release(&s);
	}
	CHECK_OK(w->close(w));
	CHECK(w->bytes_written(w) > 0);
	CHECK_OK(w->stats(w, &st));
	CHECK(st.row_count == e_rows && st.parquet_meta == NULL);
out:
	pm_format_writer_free(w);
	pm_type_free(row);
	free(p);
}

/* Reads name with opt; checks every batch against the expected rows of
 * `want` (file row positions, n_want of them) and the column names. */
static void read_check(const char *name, const pm_format_read_options *opt, const int64_t *want, int64_t n_want,
		       const char *cols)
{
	pm_format_reader *r = NULL;
	struct ArrowSchema s;
	char *p = path_of(name);
	int64_t got = 0;
	char names[64] = "";
	int64_t c;
	CHECK_OK(pm_format_vortex.reader_open(g_io, p, opt, &r));
	if (!r)
		goto out;
	CHECK(r->num_rows(r) == n_want);
	CHECK_OK(r->schema(r, &s));
	for (c = 0; c < s.n_children; c++) {
		strcat(names, c ? "," : "");
		strcat(names, s.children[c]->name);
	}
	CHECK_STR(names, cols);
	for (;;) {
		struct ArrowArray a;
		int eof = 0;
		int rc = r->next(r, &a, &eof);
		CHECK_OK(rc);
		if (rc || eof)
			break;
		CHECK(got + a.length <= n_want);
		if (got + a.length <= n_want)
			check_batch(&s, &a, want + got);
		got += a.length;
		a.release(&a);
	}
	CHECK(got == n_want);
	s.release(&s);
out:
	pm_format_reader_free(r);
	free(p);
}

static int64_t g_all[NROWS_MAX];

static void test_round_trip(void)
{
	static const int64_t sizes[] = { 1, 700, 0, 1500, 33 };
	pm_format_read_options o = { 0 };
	static const char *const proj[] = { "b", "id", "nope" };
	static const char *const proj2[] = { "d" };
	int64_t ranges[] = { 0, 3, 690, 1200, 2200, 2234 }, want[NROWS_MAX], nw = 0, i, k;
	if (!g_have)
		return;
	write_file("t1.vortex", sizes, 5);
	for (i = 0; i < e_rows; i++)
		g_all[i] = i;
	read_check("t1.vortex", NULL, g_all, e_rows, "id,f,d,b,n");
	/* projection: file order, unknown names left out */
	o.columns = proj;
	o.n_columns = 3;
	read_check("t1.vortex", &o, g_all, e_rows, "id,b");
	o.columns = proj2;
	o.n_columns = 1;
	read_check("t1.vortex", &o, g_all, e_rows, "d");
	/* row ranges */
	for (k = 0; k < 3; k++)
		for (i = ranges[2 * k]; i < ranges[2 * k + 1]; i++)
			want[nw++] = i;
	o.columns = NULL;
	o.n_columns = 0;
	o.row_ranges = ranges;
	o.n_row_ranges = 3;
	read_check("t1.vortex", &o, want, nw, "id,f,d,b,n");
}

static void test_registry(void)
{
	const pm_format *f = NULL;
	CHECK_OK(pm_format_by_name("vortex", &f));
	CHECK(f == &pm_format_vortex);
	CHECK_OK(pm_format_for_file("data-1f2e-0.vector.vortex", &f));
	CHECK(f == &pm_format_vortex);
	CHECK_RC(pm_format_for_file("data-1f2e-0.vector.lance", &f), PAIMON_EUNSUPPORTED);
	CHECK_MSG("lance");
	CHECK_RC(pm_format_by_name("lance", &f), PAIMON_EUNSUPPORTED);
}

/* A file of the given bytes; reading it must fail with an error. */
static void expect_bad(const char *name, const void *data, size_t n)
{
	pm_format_reader *r = NULL;
	char *p = path_of(name);
	int rc;
	CHECK_OK(pm_fileio_write_overwrite(g_io, p, data, n));
	rc = pm_format_vortex.reader_open(g_io, p, NULL, &r);
	if (rc == 0 && r) {
		/* the footer parsed: decoding must fail then */
		int eof = 0;
		do {
			struct ArrowArray a;
			rc = r->next(r, &a, &eof);
			if (!rc && !eof)
				a.release(&a);
		} while (!rc && !eof);
	}
	CHECK(rc != 0);
	if (rc)
		CHECK_MSG(name);
	pm_format_reader_free(r);
	free(p);
}

static void test_corrupt(void)
{
	static const int64_t sizes[] = { 300 };
	pm_buf b = { 0 };
	char *p;
	size_t i;
	if (!g_have)
		return;
	write_file("good.vortex", sizes, 1);
	p = path_of("good.vortex");
	CHECK_OK(pm_fileio_read_all(g_io, p, &b));
	free(p);
	if (b.len < 64)
		return;
	expect_bad("empty.vortex", "", 0);
	expect_bad("garbage.vortex", "this is not a vortex file at all, not even close....", 52);
	expect_bad("half.vortex", b.data, b.len / 2);
	expect_bad("tail.vortex", b.data + b.len / 2, b.len - b.len / 2);
	expect_bad("cut8.vortex", b.data, b.len - 8);
	/* flipped bytes in the footer region: an error or equal data, never a crash */
	for (i = 1; i <= 16; i++) {
		pm_format_reader *r = NULL;
		uint8_t *d = (uint8_t *)b.data;
		char *q = path_of("flip.vortex");
		size_t at = b.len - 8 - i * 7;
		d[at] ^= 0x5a;
		CHECK_OK(pm_fileio_write_overwrite(g_io, q, b.data, b.len));
		if (pm_format_vortex.reader_open(g_io, q, NULL, &r) == 0) {
			int eof = 0, rc;
			do {
				struct ArrowArray a;
				rc = r->next(r, &a, &eof);
				if (!rc && !eof)
					a.release(&a);
			} while (!rc && !eof);
		}
		pm_format_reader_free(r);
		d[at] ^= 0x5a;
		free(q);
	}
	pm_buf_dispose(&b);
}

/* A failing writer (the batch does not match the schema) leaves no file. */
static void test_writer_failure(void)
{
	pm_type *row = NULL;
	pm_format_writer *w = NULL;
	struct ArrowArray a;
	struct ArrowSchema s;
	pm_array_builder *ch[1], *st;
	char *p = path_of("bad-write.vortex");
	int32_t v = 7;
	int ex = 1;
	if (!g_have)
		goto out;
	CHECK_OK(pm_type_parse(ROW_TYPE, &row));
	CHECK_OK(pm_format_vortex.writer_open(g_io, p, row, NULL, &w));
	if (!w)
		goto out;
	ch[0] = pm_ab_new_fixed("i", 4);
	pm_ab_set_name(ch[0], "id", 1);
	st = pm_ab_new_struct(ch, 1);
	CHECK_OK(pm_ab_append_fixed(ch[0], &v, 1));
	CHECK_OK(pm_ab_append_valid(st, 1));
	CHECK_OK(pm_ab_schema(st, &s));
	CHECK_OK(pm_ab_finish(st, &a));
	pm_ab_free(st);
	CHECK(w->write(w, &a, &s) != 0);
	CHECK_MSG("bad-write.vortex");
	CHECK(w->close(w) != 0);
	a.release(&a);
	s.release(&s);
	pm_format_writer_free(w);
	CHECK_OK(pm_fileio_exists(g_io, p, &ex));
	CHECK(!ex);
out:
	pm_type_free(row);
	free(p);
}

static void setup(void)
{
	const char *src = getenv("PAIMONC_SOURCE_DIR"), *req = getenv("PAIMONC_REQUIRE_VORTEX"), *ver = NULL;
	char lib[4096];
	struct stat stt;
	if (!getenv("PAIMONC_VORTEX_LIB") && src) {
		snprintf(lib, sizeof lib, "%s/ext/vortex/target/release/libpaimonc_vortex.so", src);
		if (stat(lib, &stt) == 0)
			setenv("PAIMONC_VORTEX_LIB", lib, 1);
	}
	g_have = pm_vx_available(&ver) == 0;
	if (!g_have) {
		CHECK_MSG("vortex support is not installed");
		CHECK_MSG("scripts/deps.sh vortex");
		if (req && !strcmp(req, "1"))
			CHECK(!"PAIMONC_REQUIRE_VORTEX=1 but the vortex shim is missing");
		else
			printf("skip: %s\n", paimon_error_message());
	} else {
		printf("using %s\n", ver);
	}
	if (pm_fileio_local_new(&g_io))
		abort();
	g_dir = test_tmpdir();
}

TEST_MAIN(T(setup), T(test_registry), T(test_round_trip), T(test_corrupt), T(test_writer_failure))
