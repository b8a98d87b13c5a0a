/* Value statistics from Parquet footers (Java's ParquetSimpleStatsExtractor
 * + stats collectors), stats modes, dense store, decode and merge. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/arrow_builder.h"
#include "core/mem.h"
#include "format/parquet/writer.h"
#include "io/fileio.h"
#include "meta/schema.h"
#include "table/stats.h"
#include "types/datum.h"
#include "test.h"

#define NROWS 5
#define NCOLS 20

static const char *ROW_TYPE =
	"ROW<id INT, name STRING, hi STRING, mb STRING, b BOOLEAN, ti TINYINT, si SMALLINT, bi BIGINT, "
	"f FLOAT, d DOUBLE, dec DECIMAL(10, 2), big DECIMAL(25, 3), dt DATE, tm TIME, ts3 TIMESTAMP(3), "
	"ts6 TIMESTAMP(6), ts9 TIMESTAMP(9), bin BYTES, arr ARRAY<INT>, nul INT>";

static char long_z[64], maxcp[128], jp[128];

static void init_strings(void)
{
	int i;
	char *p;
	strcpy(long_z, "zebra");
	for (i = 0; i < 20; i++)
		strcat(long_z, "\xc3\xa9"); /* U+00E9 */
	p = maxcp;
	for (i = 0; i < 20; i++) {
		memcpy(p, "\xf4\x8f\xbf\xbf", 4); /* U+10FFFF */
		p += 4;
	}
	*p = 0;
	p = jp;
	for (i = 0; i < 20; i++) {
		memcpy(p, "\xe6\x97\xa5", 3); /* U+65E5 */
		p += 3;
	}
	*p = 0;
}

static pm_type *parse_row(const char *s)
{
	pm_type *t = NULL;
	int32_t hi;
	size_t i;
	if (pm_type_parse(s, &t))
		return NULL;
	for (i = 0; i < t->nfields; i++)
		t->fields[i].id = (int32_t)i;
	hi = (int32_t)t->nfields - 1;
	pm_type_assign_ids(t, &hi);
	return t;
}

/* Values per column (index = row); valid[c][r] = 0 for null. */
static const int32_t v_id[] = {5, -7, 0, 100, 0};
static const char *v_name[5], *v_hi[5], *v_mb[5];
static const uint8_t v_b[] = {1, 0, 1, 1, 0};
static const int8_t v_ti[] = {-3, 4, 1, 2, 3};
static const int16_t v_si[] = {300, -2, 0, 5, 0};
static const int64_t v_bi[] = {1000000000000LL, -5, 0, 7, 8};
static const float v_f[] = {1.5f, -0.0f, 0.0f, 2.5f, -3.25f};
static const double v_d[] = {1, 2, 3, 4, 5};
static const int64_t v_dec[] = {1234, -5, 0, 99999, 0};
static const int64_t v_big[] = {-100, 7, -3, 123456789012LL, 1};
static const int32_t v_dt[] = {19857, 0, -1, 20000, 0};
static const int32_t v_tm[] = {3723000, 0, 86399000, 5, 0};
static const int64_t v_ts3[] = {1715648523456LL, 0, -1000, 5, 0};
static const int64_t v_ts6[] = {1715648523456789LL, -1, 0, 5, 0};
static const int64_t v_ts9[] = {1, 2, 3, 4, 0};
static const char *v_bin[] = {"\x01", "\xff", "a", "b", ""};
static const uint8_t valid[NCOLS][NROWS] = {
	{1, 1, 0, 1, 0}, {1, 1, 0, 1, 1}, {1, 1, 1, 1, 1}, {1, 1, 1, 0, 1}, {1, 1, 1, 1, 0},
	{1, 1, 1, 1, 1}, {1, 1, 1, 1, 0}, {1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, {1, 1, 1, 1, 1},
	{1, 1, 1, 1, 0}, {1, 1, 1, 1, 1}, {1, 1, 1, 1, 0}, {1, 1, 1, 1, 0}, {1, 1, 1, 1, 0},
	{1, 1, 1, 1, 0}, {1, 1, 1, 1, 0}, {1, 1, 1, 1, 1}, {1, 0, 1, 1, 1}, {0, 0, 0, 0, 0},
};

static void fixed(pm_array_builder *b, int c, const void *vals, size_t w, int r)
{
	if (valid[c][r])
		CHECK_OK(pm_ab_append_fixed(b, (const uint8_t *)vals + w * (size_t)r, 1));
	else
		CHECK_OK(pm_ab_append_nulls(b, 1));
}

static void str(pm_array_builder *b, int c, const char *const *vals, int r)
{
	if (valid[c][r])
		CHECK_OK(pm_ab_append_binary(b, vals[r], strlen(vals[r])));
	else
		CHECK_OK(pm_ab_append_nulls(b, 1));
}

/* Struct builder of rows [from, to). */
static pm_array_builder *build(const pm_type *row, int from, int to)
{
	pm_array_builder *ch[NCOLS], *elem, *root;
	int r, c;
	ch[0] = pm_ab_new_fixed("i", 4);
	ch[1] = pm_ab_new_binary("u", 0);
	ch[2] = pm_ab_new_binary("u", 0);
	ch[3] = pm_ab_new_binary("u", 0);
	ch[4] = pm_ab_new_bool();
	ch[5] = pm_ab_new_fixed("c", 1);
	ch[6] = pm_ab_new_fixed("s", 2);
	ch[7] = pm_ab_new_fixed("l", 8);
	ch[8] = pm_ab_new_fixed("f", 4);
	ch[9] = pm_ab_new_fixed("g", 8);
	ch[10] = pm_ab_new_fixed("d:10,2", 16);
	ch[11] = pm_ab_new_fixed("d:25,3", 16);
	ch[12] = pm_ab_new_fixed("tdD", 4);
	ch[13] = pm_ab_new_fixed("ttm", 4);
	ch[14] = pm_ab_new_fixed("tsm:", 8);
	ch[15] = pm_ab_new_fixed("tsu:", 8);
	ch[16] = pm_ab_new_fixed("tsn:", 8);
	ch[17] = pm_ab_new_binary("z", 0);
	elem = pm_ab_new_fixed("i", 4);
	ch[18] = pm_ab_new_list(elem, 0);
	ch[19] = pm_ab_new_fixed("i", 4);
	for (r = from; r < to; r++) {
		uint8_t d16[16];
		int64_t hi;
		fixed(ch[0], 0, v_id, 4, r);
		str(ch[1], 1, v_name, r);
		str(ch[2], 2, v_hi, r);
		str(ch[3], 3, v_mb, r);
		if (valid[4][r])
			CHECK_OK(pm_ab_append_bools(ch[4], &v_b[r], 1));
		else
			CHECK_OK(pm_ab_append_nulls(ch[4], 1));
		fixed(ch[5], 5, v_ti, 1, r);
		fixed(ch[6], 6, v_si, 2, r);
		fixed(ch[7], 7, v_bi, 8, r);
		fixed(ch[8], 8, v_f, 4, r);
		fixed(ch[9], 9, v_d, 8, r);
		hi = v_dec[r] < 0 ? -1 : 0;
		memcpy(d16, &v_dec[r], 8);
		memcpy(d16 + 8, &hi, 8);
		if (valid[10][r])
			CHECK_OK(pm_ab_append_fixed(ch[10], d16, 1));
		else
			CHECK_OK(pm_ab_append_nulls(ch[10], 1));
		hi = v_big[r] < 0 ? -1 : 0;
		memcpy(d16, &v_big[r], 8);
		memcpy(d16 + 8, &hi, 8);
		if (valid[11][r])
			CHECK_OK(pm_ab_append_fixed(ch[11], d16, 1));
		else
			CHECK_OK(pm_ab_append_nulls(ch[11], 1));
		fixed(ch[12], 12, v_dt, 4, r);
		fixed(ch[13], 13, v_tm, 4, r);
		fixed(ch[14], 14, v_ts3, 8, r);
		fixed(ch[15], 15, v_ts6, 8, r);
		fixed(ch[16], 16, v_ts9, 8, r);
		if (valid[17][r])
			CHECK_OK(pm_ab_append_binary(ch[17], v_bin[r], strlen(v_bin[r])));
		else
			CHECK_OK(pm_ab_append_nulls(ch[17], 1));
		if (valid[18][r]) {
			CHECK_OK(pm_ab_append_fixed(elem, &v_id[0], 1));
			CHECK_OK(pm_ab_append_list(ch[18], 1));
		} else {
			CHECK_OK(pm_ab_append_nulls(ch[18], 1));
		}
		fixed(ch[19], 19, v_id, 4, r);
	}
	for (c = 0; c < NCOLS; c++)
		CHECK_OK(pm_ab_set_name(ch[c], row->fields[c].name, 1));
	root = pm_ab_new_struct(ch, NCOLS);
	CHECK_OK(pm_ab_append_valid(root, to - from));
	return root;
}

static int write_batch(pm_pq_writer *w, pm_array_builder *root)
{
	struct ArrowArray a;
	struct ArrowSchema s;
	int rc;
	memset(&a, 0, sizeof a);
	memset(&s, 0, sizeof s);
	if (!(rc = pm_ab_schema(root, &s)) && !(rc = pm_ab_finish(root, &a)))
		rc = pm_pq_writer_write(w, &a, &s);
	pm_ab_free(root);
	if (a.release)
		a.release(&a);
	if (s.release)
		s.release(&s);
	return rc;
}

typedef struct fixture {
	char *dir;
	pm_fileio *io;
	pm_type *row;
	pm_pq_writer *w;
	pm_table_schema s;
	const pm_pq_file_meta *fm;
} fixture;

/* Two row groups: rows 0-2 and 3-4. */
static void fixture_open(fixture *fx)
{
	char path[4200];
	pm_pq_writer_opts o;
	memset(fx, 0, sizeof *fx);
	init_strings();
	v_name[0] = "apple"; v_name[1] = long_z; v_name[2] = ""; v_name[3] = "banana"; v_name[4] = "cherry";
	v_hi[0] = maxcp; v_hi[1] = "a"; v_hi[2] = "b"; v_hi[3] = "c"; v_hi[4] = "d";
	v_mb[0] = jp; v_mb[1] = "x"; v_mb[2] = "y"; v_mb[3] = ""; v_mb[4] = "z";
	fx->dir = test_tmpdir();
	snprintf(path, sizeof path, "%s/f.parquet", fx->dir);
	fx->row = parse_row(ROW_TYPE);
	CHECK(fx->row != NULL);
	CHECK_OK(pm_fileio_local_new(&fx->io));
	pm_pq_writer_opts_default(&o);
	o.row_group_size = 1;
	CHECK_OK(pm_pq_writer_open(fx->io, path, fx->row, &o, &fx->w));
	CHECK(pm_pq_writer_file_meta(fx->w) == NULL);
	CHECK_OK(write_batch(fx->w, build(fx->row, 0, 3)));
	CHECK_OK(write_batch(fx->w, build(fx->row, 3, 5)));
	CHECK_OK(pm_pq_writer_close(fx->w));
	fx->fm = pm_pq_writer_file_meta(fx->w);
	CHECK(fx->fm != NULL);
	CHECK(fx->fm && fx->fm->n_row_groups == 2);
	CHECK(fx->fm && fx->fm->file_size == pm_pq_writer_bytes_written(fx->w));
	fx->s.fields = fx->row->fields;
	fx->s.nfields = fx->row->nfields;
	pm_strmap_set(&fx->s.options, "fields.bi.stats-mode", "counts");
	pm_strmap_set(&fx->s.options, "fields.d.stats-mode", "none");
	pm_strmap_set(&fx->s.options, "fields.ti.stats-mode", "FULL");
}

static void fixture_close(fixture *fx)
{
	pm_pq_writer_free(fx->w);
	pm_fileio_close(fx->io);
	pm_type_free(fx->row);
	pm_strmap_dispose(&fx->s.options);
	free(fx->dir);
}

static void compute(fixture *fx, pm_simple_stats *st, int *has_cols, pm_strlist *cols, pm_data_file_meta *f)
{
	pm_stats_mode *modes = NULL;
	int dense = 0;
	CHECK_OK(pm_stats_modes(&fx->s, &modes, &dense));
	memset(st, 0, sizeof *st);
	CHECK_OK(pm_stats_from_parquet(&fx->s, modes, dense, fx->fm, st, has_cols, cols));
	pm_free(modes);
	memset(f, 0, sizeof *f);
	f->file_name = "f.parquet";
	f->value_stats = *st;
	f->has_value_stats_cols = *has_cols;
	f->value_stats_cols = *cols;
}

static void free_stats(pm_simple_stats *st, pm_strlist *cols)
{
	pm_free(st->min_values.p);
	pm_free(st->max_values.p);
	pm_free(st->null_counts);
	pm_strlist_dispose(cols);
}

static void check_bytes(const pm_binrow_datum *d, const void *p, size_t n)
{
	CHECK(d->bytes.n == n && memcmp(d->bytes.p, p, n) == 0);
}

static void test_from_parquet_dense(void)
{
	fixture fx;
	pm_simple_stats st;
	pm_strlist cols = {0};
	pm_data_file_meta f;
	pm_col_stats cs[NCOLS];
	int has_cols = 0;
	char want[128];
	fixture_open(&fx);
	if (!fx.fm) {
		fixture_close(&fx);
		return;
	}
	compute(&fx, &st, &has_cols, &cols, &f);
	/* d (mode none) and arr (nested: no top-level chunk) are left out */
	CHECK(has_cols == 1);
	CHECK(cols.len == NCOLS - 2);
	CHECK(pm_strlist_find(&cols, "d") < 0 && pm_strlist_find(&cols, "arr") < 0);
	CHECK(pm_strlist_find(&cols, "bi") == 7 && pm_strlist_find(&cols, "dec") == 9);
	CHECK(st.n_null_counts == NCOLS - 2);
	CHECK_OK(pm_stats_decode(&fx.s, &f, cs));

	CHECK(cs[0].has_min && cs[0].min.i == -7 && cs[0].has_max && cs[0].max.i == 100 && cs[0].null_count == 2);
	/* truncate(16): min cut to 16 code points, max cut then last code point + 1 */
	CHECK(cs[1].has_min && cs[1].null_count == 1);
	check_bytes(&cs[1].min, "apple", 5);
	strcpy(want, "zebra");
	{
		int i;
		for (i = 0; i < 10; i++)
			strcat(want, "\xc3\xa9");
		strcat(want, "\xc3\xaa"); /* U+00EA */
	}
	CHECK(cs[1].has_max);
	check_bytes(&cs[1].max, want, strlen(want));
	/* max of U+10FFFF x 20 cannot be incremented: no min/max, counts kept */
	CHECK(!cs[2].has_min && !cs[2].has_max && cs[2].null_count == 0);
	/* multibyte: 16 x U+65E5, the last one incremented to U+65E6 */
	CHECK(cs[3].has_min && cs[3].null_count == 1);
	check_bytes(&cs[3].min, "x", 1);
	memcpy(want, jp, 45);
	memcpy(want + 45, "\xe6\x97\xa6", 3);
	CHECK(cs[3].has_max);
	check_bytes(&cs[3].max, want, 48);
	CHECK(cs[4].has_min && cs[4].min.i == 0 && cs[4].max.i == 1 && cs[4].null_count == 1);
	CHECK(cs[5].has_min && cs[5].min.i == -3 && cs[5].max.i == 4 && cs[5].null_count == 0);
	CHECK(cs[6].has_min && cs[6].min.i == -2 && cs[6].max.i == 300 && cs[6].null_count == 1);
	CHECK(!cs[7].has_min && !cs[7].has_max && cs[7].null_count == 0); /* counts */
	CHECK(cs[8].has_min && cs[8].min.f == -3.25f && cs[8].max.f == 2.5f && cs[8].null_count == 0);
	CHECK(!cs[9].has_min && !cs[9].has_max && cs[9].null_count == -1); /* none */
	CHECK(cs[10].has_min && cs[10].min.i == -5 && cs[10].max.i == 99999 && cs[10].null_count == 1);
	CHECK(cs[11].has_min && cs[11].has_max && cs[11].null_count == 0);
	check_bytes(&cs[11].min, "\x9c", 1);
	check_bytes(&cs[11].max, "\x1c\xbe\x99\x1a\x14", 5);
	CHECK(cs[12].has_min && cs[12].min.i == -1 && cs[12].max.i == 20000 && cs[12].null_count == 1);
	CHECK(cs[13].has_min && cs[13].min.i == 0 && cs[13].max.i == 86399000);
	CHECK(cs[14].has_min && cs[14].min.ts.millis == -1000 && cs[14].max.ts.millis == 1715648523456LL);
	CHECK(cs[15].has_min && cs[15].min.ts.millis == -1 && cs[15].min.ts.nano_of_milli == 999000);
	CHECK(cs[15].has_max && cs[15].max.ts.millis == 1715648523456LL && cs[15].max.ts.nano_of_milli == 789000);
	CHECK(!cs[16].has_min && !cs[16].has_max && cs[16].null_count == 1); /* TIMESTAMP(9) */
	CHECK(!cs[17].has_min && !cs[17].has_max && cs[17].null_count == 0); /* BYTES */
	CHECK(!cs[18].has_min && cs[18].null_count == -1);                  /* ARRAY */
	CHECK(!cs[19].has_min && !cs[19].has_max && cs[19].null_count == 5); /* all null */

	/* merge: min of mins, max of maxes, null counts summed, unknown stays */
	{
		pm_col_stats a = cs[0], b = cs[0];
		b.min.i = -50;
		b.max.i = 10;
		pm_col_stats_merge(fx.row->fields[0].type, &a, &b);
		CHECK(a.has_min && a.min.i == -50 && a.max.i == 100 && a.null_count == 4);
		b.has_max = 0;
		b.null_count = -1;
		pm_col_stats_merge(fx.row->fields[0].type, &a, &b);
		CHECK(a.has_min && !a.has_max && a.null_count == -1);
	}
	/* decode with a stats-cols name the schema lacks -> corrupt */
	free(f.value_stats_cols.items[0]);
	f.value_stats_cols.items[0] = strdup("missing");
	CHECK_RC(pm_stats_decode(&fx.s, &f, cs), PAIMON_ECORRUPT);
	CHECK_MSG("f.parquet");
	free_stats(&st, &cols);
	fixture_close(&fx);
}

static void test_modes_variants(void)
{
	fixture fx;
	pm_simple_stats st;
	pm_strlist cols = {0};
	pm_data_file_meta f;
	pm_col_stats cs[NCOLS];
	int has_cols = 0;
	fixture_open(&fx);
	if (!fx.fm) {
		fixture_close(&fx);
		return;
	}
	/* not dense: every column positional, none/nested as nulls */
	pm_strmap_set(&fx.s.options, "metadata.stats-dense-store", "false");
	compute(&fx, &st, &has_cols, &cols, &f);
	CHECK(has_cols == 0 && cols.len == 0 && st.n_null_counts == NCOLS);
	CHECK_OK(pm_stats_decode(&fx.s, &f, cs));
	CHECK(cs[0].min.i == -7 && cs[8].max.f == 2.5f && cs[9].null_count == -1 && !cs[9].has_min);
	CHECK(cs[18].null_count == -1 && cs[19].null_count == 5);
	free_stats(&st, &cols);
	pm_strmap_remove(&fx.s.options, "metadata.stats-dense-store");

	/* full: strings not truncated */
	pm_strmap_set(&fx.s.options, "metadata.stats-mode", "full");
	compute(&fx, &st, &has_cols, &cols, &f);
	CHECK_OK(pm_stats_decode(&fx.s, &f, cs));
	check_bytes(&cs[1].max, long_z, strlen(long_z));
	check_bytes(&cs[2].max, maxcp, strlen(maxcp));
	free_stats(&st, &cols);

	/* truncate(3): "apple" -> "app", "zebra..." -> "zec" */
	pm_strmap_set(&fx.s.options, "metadata.stats-mode", "Truncate(3)");
	compute(&fx, &st, &has_cols, &cols, &f);
	CHECK_OK(pm_stats_decode(&fx.s, &f, cs));
	check_bytes(&cs[1].min, "app", 3);
	check_bytes(&cs[1].max, "zec", 3);
	free_stats(&st, &cols);

	/* keep-first-n: explicit field modes still count and are kept */
	pm_strmap_remove(&fx.s.options, "metadata.stats-mode");
	pm_strmap_set(&fx.s.options, "metadata.stats-keep-first-n-columns", "2");
	compute(&fx, &st, &has_cols, &cols, &f);
	CHECK(has_cols == 1 && cols.len == 4);
	if (cols.len == 4) {
		CHECK_STR(cols.items[0], "id");
		CHECK_STR(cols.items[1], "name");
		CHECK_STR(cols.items[2], "ti");
		CHECK_STR(cols.items[3], "bi");
	}
	CHECK_OK(pm_stats_decode(&fx.s, &f, cs));
	CHECK(cs[0].has_min && cs[5].has_min && !cs[6].has_min && cs[6].null_count == -1);
	free_stats(&st, &cols);

	/* no stats at all: EMPTY, stats cols [] */
	pm_strmap_remove(&fx.s.options, "metadata.stats-keep-first-n-columns");
	pm_strmap_remove(&fx.s.options, "fields.bi.stats-mode");
	pm_strmap_remove(&fx.s.options, "fields.ti.stats-mode");
	pm_strmap_set(&fx.s.options, "metadata.stats-mode", "none");
	compute(&fx, &st, &has_cols, &cols, &f);
	CHECK(has_cols == 1 && cols.len == 0);
	CHECK(st.min_values.n == 12 && st.max_values.n == 12 && st.has_null_counts && st.n_null_counts == 0);
	CHECK_OK(pm_stats_decode(&fx.s, &f, cs));
	CHECK(!cs[0].has_min && cs[0].null_count == -1);
	free_stats(&st, &cols);

	/* bad options */
	{
		pm_stats_mode *m = NULL;
		int dense;
		pm_strmap_set(&fx.s.options, "metadata.stats-mode", "truncate(0)");
		CHECK_RC(pm_stats_modes(&fx.s, &m, &dense), PAIMON_EINVAL);
		CHECK_MSG("metadata.stats-mode");
		pm_strmap_set(&fx.s.options, "metadata.stats-mode", "full");
		pm_strmap_set(&fx.s.options, "fields.id.stats-mode", "some");
		CHECK_RC(pm_stats_modes(&fx.s, &m, &dense), PAIMON_EINVAL);
		CHECK_MSG("fields.id.stats-mode");
		pm_strmap_remove(&fx.s.options, "fields.id.stats-mode");
		pm_strmap_set(&fx.s.options, "metadata.stats-dense-store", "perhaps");
		CHECK_RC(pm_stats_modes(&fx.s, &m, &dense), PAIMON_EINVAL);
		CHECK(m == NULL);
	}
	fixture_close(&fx);
}

static void test_mode_parse(void)
{
	pm_stats_mode m;
	CHECK_OK(pm_stats_mode_parse("NONE", &m));
	CHECK(m.kind == PM_STATS_NONE);
	CHECK_OK(pm_stats_mode_parse("Counts", &m));
	CHECK(m.kind == PM_STATS_COUNTS);
	CHECK_OK(pm_stats_mode_parse("full", &m));
	CHECK(m.kind == PM_STATS_FULL);
	CHECK_OK(pm_stats_mode_parse("truncate(16)", &m));
	CHECK(m.kind == PM_STATS_TRUNCATE && m.truncate_len == 16);
	CHECK_RC(pm_stats_mode_parse("truncate()", &m), PAIMON_EINVAL);
	CHECK_RC(pm_stats_mode_parse("truncate(-1)", &m), PAIMON_EINVAL);
	CHECK_RC(pm_stats_mode_parse("truncate(0)", &m), PAIMON_EINVAL);
	CHECK_RC(pm_stats_mode_parse("truncate(99999999999)", &m), PAIMON_EINVAL);
	CHECK_RC(pm_stats_mode_parse("truncate(1", &m), PAIMON_EINVAL);
	CHECK_RC(pm_stats_mode_parse("", &m), PAIMON_EINVAL);
	CHECK_MSG("stats mode");
}

TEST_MAIN(T(test_mode_parse), T(test_from_parquet_dense), T(test_modes_variants))
