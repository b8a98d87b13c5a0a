/*
 * tests/unit/parquet/test_filter.c - statistics evaluation of pruning
 * predicates (format/parquet/pm_pq_filter.c): every conservative case.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "test.h"
#include "core/mem.h"
#include "paimonc/parquet.h"
#include "format/parquet/pq_filter.h"

enum { C_I, C_U, C_D, C_S, C_T, C_DEC, C_B, C_STX, NCOLS };

static pm_pq_schema_element elems[10];
static pm_pq_schema *schema;
static pm_pq_column_chunk chunks[NCOLS];
static pm_pq_row_group rg;
static pm_pq_file_meta fm;
static pm_pq_column_order orders[NCOLS];
static uint8_t sbuf[NCOLS][2][32];

static void el(int i, const char *name, int type, int rep, int nchild)
{
	memset(&elems[i], 0, sizeof elems[i]);
	elems[i].name = name;
	if (type >= 0) {
		elems[i].has_type = true;
		elems[i].type = type;
	}
	if (rep >= 0) {
		elems[i].has_repetition = true;
		elems[i].repetition = rep;
	}
	if (nchild >= 0) {
		elems[i].has_num_children = true;
		elems[i].num_children = nchild;
	}
}

static void setup(void)
{
	int i;
	el(0, "schema", -1, -1, 8);
	el(1, "i", PM_PQ_INT64, PM_PQ_OPTIONAL, -1);
	el(2, "u", PM_PQ_INT32, PM_PQ_OPTIONAL, -1);
	elems[2].has_converted_type = true;
	elems[2].converted_type = PM_PQ_CT_UINT_32;
	el(3, "d", PM_PQ_DOUBLE, PM_PQ_OPTIONAL, -1);
	el(4, "s", PM_PQ_BYTE_ARRAY, PM_PQ_OPTIONAL, -1);
	elems[4].logical.kind = PM_PQ_LT_STRING;
	el(5, "t", PM_PQ_INT96, PM_PQ_OPTIONAL, -1);
	el(6, "dec", PM_PQ_FIXED_LEN_BYTE_ARRAY, PM_PQ_OPTIONAL, -1);
	elems[6].has_type_length = true;
	elems[6].type_length = 16;
	elems[6].logical.kind = PM_PQ_LT_DECIMAL;
	elems[6].logical.precision = 30;
	elems[6].logical.scale = 2;
	el(7, "b", PM_PQ_BOOLEAN, PM_PQ_REQUIRED, -1);
	el(8, "st", -1, PM_PQ_OPTIONAL, 1);
	el(9, "x", PM_PQ_INT32, PM_PQ_OPTIONAL, -1);
	if (pm_pq_schema_build(elems, 10, &schema))
		abort();
	memset(&fm, 0, sizeof fm);
	memset(&rg, 0, sizeof rg);
	memset(chunks, 0, sizeof chunks);
	rg.columns = chunks;
	rg.n_columns = NCOLS;
	rg.num_rows = 100;
	fm.row_groups = &rg;
	fm.n_row_groups = 1;
	fm.num_rows = 100;
	for (i = 0; i < NCOLS; i++) {
		chunks[i].has_meta_data = true;
		chunks[i].meta_data.num_values = 100;
		orders[i].kind = PM_PQ_ORDER_TYPE_DEFINED;
	}
	fm.column_orders = orders;
	fm.n_column_orders = NCOLS;
}

static pm_pq_statistics *stats(int col)
{
	chunks[col].meta_data.has_statistics = true;
	return &chunks[col].meta_data.statistics;
}

static void clear(void)
{
	int i;
	for (i = 0; i < NCOLS; i++) {
		memset(&chunks[i].meta_data.statistics, 0, sizeof chunks[i].meta_data.statistics);
		chunks[i].meta_data.has_statistics = false;
		orders[i].kind = PM_PQ_ORDER_TYPE_DEFINED;
	}
}

static pm_pq_bin bin(int col, int which, const void *p, size_t n)
{
	pm_pq_bin b;
	memcpy(sbuf[col][which], p, n);
	b.p = sbuf[col][which];
	b.len = n;
	b.set = true;
	return b;
}

static void minmax_i64(int col, int64_t lo, int64_t hi, bool legacy)
{
	pm_pq_statistics *st = stats(col);
	uint8_t a[8], b[8];
	int k;
	for (k = 0; k < 8; k++) {
		a[k] = (uint8_t)((uint64_t)lo >> (8 * k));
		b[k] = (uint8_t)((uint64_t)hi >> (8 * k));
	}
	if (legacy) {
		st->min = bin(col, 0, a, 8);
		st->max = bin(col, 1, b, 8);
	} else {
		st->min_value = bin(col, 0, a, 8);
		st->max_value = bin(col, 1, b, 8);
	}
}

static void minmax_u32(int col, uint32_t lo, uint32_t hi, bool legacy)
{
	pm_pq_statistics *st = stats(col);
	uint8_t a[4], b[4];
	int k;
	for (k = 0; k < 4; k++) {
		a[k] = (uint8_t)(lo >> (8 * k));
		b[k] = (uint8_t)(hi >> (8 * k));
	}
	if (legacy) {
		st->min = bin(col, 0, a, 4);
		st->max = bin(col, 1, b, 4);
	} else {
		st->min_value = bin(col, 0, a, 4);
		st->max_value = bin(col, 1, b, 4);
	}
}

static void minmax_d(int col, double lo, double hi)
{
	pm_pq_statistics *st = stats(col);
	st->min_value = bin(col, 0, &lo, 8);
	st->max_value = bin(col, 1, &hi, 8);
}

static void minmax_s(int col, const char *lo, const char *hi, bool legacy)
{
	pm_pq_statistics *st = stats(col);
	if (legacy) {
		st->min = bin(col, 0, lo, strlen(lo));
		st->max = bin(col, 1, hi, strlen(hi));
	} else {
		st->min_value = bin(col, 0, lo, strlen(lo));
		st->max_value = bin(col, 1, hi, strlen(hi));
	}
}

static void nulls(int col, int64_t n)
{
	pm_pq_statistics *st = stats(col);
	st->has_null_count = true;
	st->null_count = n;
}

static pm_pq_filter *leaf(const char *col, int op, const char *v)
{
	pm_pq_filter *f = NULL;
	const void *vals[1];
	size_t lens[1];
	vals[0] = v;
	lens[0] = v ? strlen(v) : 0;
	CHECK_OK(pm_pq_filter_leaf(&f, col, op, vals, lens, v ? 1 : 0));
	return f;
}

/* Outcomes of a filter (consumed) on the row group. */
static unsigned ev(pm_pq_filter *f)
{
	unsigned m;
	if (!f)
		return 0xff;
	CHECK_OK(pm_pq_filter_bind(f, schema));
	m = pm_pq_filter_eval_rg(f, &fm, 0);
	pm_pq_filter_free(f);
	return m;
}

static bool may(pm_pq_filter *f)
{
	return (ev(f) & PM_PQF_T) != 0;
}

static pm_pq_filter *not_(pm_pq_filter *a)
{
	pm_pq_filter *f = NULL;
	CHECK_OK(pm_pq_filter_not(&f, a));
	return f;
}

static pm_pq_filter *bin_op(int op, pm_pq_filter *a, pm_pq_filter *b)
{
	pm_pq_filter *f = NULL, *k[2];
	k[0] = a;
	k[1] = b;
	CHECK_OK(pm_pq_filter_combine(&f, op, k, 2));
	return f;
}

static void test_missing_stats(void)
{
	clear();
	CHECK(may(leaf("i", PM_PQF_EQ, "5")));
	CHECK(may(leaf("i", PM_PQF_IS_NULL, NULL)));     /* optional: nulls possible */
	CHECK(may(not_(leaf("i", PM_PQF_EQ, "5"))));
	CHECK(!may(leaf("b", PM_PQF_IS_NULL, NULL)));    /* required column */
	nulls(C_I, 0);                                   /* null_count only */
	CHECK(may(leaf("i", PM_PQF_GT, "5")));
	CHECK(!may(leaf("i", PM_PQF_IS_NULL, NULL)));
}

static void test_int_ranges(void)
{
	clear();
	minmax_i64(C_I, 10, 20, false);
	nulls(C_I, 0);
	CHECK(!may(leaf("i", PM_PQF_GT, "20")));
	CHECK(may(leaf("i", PM_PQF_GE, "20")));
	CHECK(!may(leaf("i", PM_PQF_LT, "10")));
	CHECK(may(leaf("i", PM_PQF_LE, "10")));
	CHECK(!may(leaf("i", PM_PQF_EQ, "5")));
	CHECK(may(leaf("i", PM_PQF_EQ, "15")));
	CHECK(may(leaf("i", PM_PQF_NE, "15")));
	CHECK(!may(bin_op(PM_PQF_OR, leaf("i", PM_PQF_GT, "100"), leaf("i", PM_PQF_LT, "5"))));
	CHECK(may(bin_op(PM_PQF_OR, leaf("i", PM_PQF_GT, "100"), leaf("i", PM_PQF_LT, "11"))));
	CHECK(!may(bin_op(PM_PQF_AND, leaf("i", PM_PQF_GT, "15"), leaf("i", PM_PQF_LT, "10"))));
	CHECK(!may(not_(leaf("i", PM_PQF_GE, "10"))));  /* all rows >= 10 */
	CHECK(may(not_(leaf("i", PM_PQF_GE, "11"))));
	{
		pm_pq_filter *f = NULL;
		const void *v[3] = {"1", "2", "30"};
		size_t l[3] = {1, 1, 2};
		CHECK_OK(pm_pq_filter_leaf(&f, "i", PM_PQF_IN, v, l, 3));
		CHECK(!may(f));
		v[1] = "12";
		l[1] = 2;
		CHECK_OK(pm_pq_filter_leaf(&f, "i", PM_PQF_IN, v, l, 3));
		CHECK(may(f));
		CHECK_OK(pm_pq_filter_leaf(&f, "i", PM_PQF_IN, v, l, 0));
		CHECK(!may(f));                              /* empty IN */
	}
	/* min == max: <> and NOT IN cannot hold, nulls or not */
	minmax_i64(C_I, 15, 15, false);
	CHECK(!may(leaf("i", PM_PQF_NE, "15")));
	CHECK(may(leaf("i", PM_PQF_NE, "16")));
	{
		pm_pq_filter *f = NULL;
		const void *v[1] = {"15"};
		size_t l[1] = {2};
		CHECK_OK(pm_pq_filter_leaf(&f, "i", PM_PQF_NOT_IN, v, l, 1));
		CHECK(!may(f));
	}
	nulls(C_I, 3);
	CHECK(ev(leaf("i", PM_PQF_NE, "15")) == (PM_PQF_F | PM_PQF_N));
	CHECK(!may(not_(leaf("i", PM_PQF_EQ, "15")))); /* NOT NULL is NULL */
	CHECK(may(leaf("i", PM_PQF_IS_NULL, NULL)));
	/* a literal beyond int64 never prunes */
	CHECK(may(leaf("i", PM_PQF_GT, "99999999999999999999")));
}

static void test_all_null_chunk(void)
{
	clear();
	nulls(C_I, 100); /* no min/max: every value null */
	CHECK(!may(leaf("i", PM_PQF_EQ, "5")));
	CHECK(!may(leaf("i", PM_PQF_NE, "5")));
	CHECK(!may(not_(leaf("i", PM_PQF_EQ, "5"))));
	CHECK(may(leaf("i", PM_PQF_IS_NULL, NULL)));
	CHECK(!may(leaf("i", PM_PQF_IS_NOT_NULL, NULL)));
	CHECK(may(not_(leaf("i", PM_PQF_IS_NOT_NULL, NULL))));
	/* nested struct member */
	nulls(C_STX, 100);
	CHECK(!may(leaf("st.x", PM_PQF_GT, "1")));
	CHECK(may(leaf("st.x", PM_PQF_IS_NULL, NULL)));
}

static void test_legacy_and_orders(void)
{
	clear();
	minmax_i64(C_I, 10, 20, true); /* legacy fields, signed type: usable */
	nulls(C_I, 0);
	CHECK(!may(leaf("i", PM_PQF_GT, "20")));
	minmax_s(C_S, "b", "c", true); /* legacy on a byte array: not trusted */
	CHECK(may(leaf("s", PM_PQF_EQ, "z")));
	minmax_u32(C_U, 1, 2, true);   /* legacy on unsigned: signed order, not trusted */
	CHECK(may(leaf("u", PM_PQF_GT, "10")));
	/* unsigned order with min_value/max_value */
	clear();
	minmax_u32(C_U, 1, 0xFFFFFFF0u, false);
	CHECK(may(leaf("u", PM_PQF_GT, "100")));
	CHECK(may(leaf("u", PM_PQF_EQ, "4294967280")));
	CHECK(!may(leaf("u", PM_PQF_GT, "4294967280")));
	CHECK(!may(leaf("u", PM_PQF_LT, "1")));
	CHECK(may(leaf("u", PM_PQF_LT, "-5"))); /* not representable: the leaf is not used */
	/* an unknown column order disables min_value/max_value */
	clear();
	minmax_i64(C_I, 10, 20, false);
	orders[C_I].kind = 99;
	CHECK(may(leaf("i", PM_PQF_GT, "20")));
	/* inconsistent bounds (min > max) are ignored */
	clear();
	minmax_i64(C_I, 20, 10, false);
	CHECK(may(leaf("i", PM_PQF_GT, "30")));
	/* INT96: statistics never used */
	clear();
	{
		pm_pq_statistics *st = stats(C_T);
		uint8_t z[12] = {0};
		st->min_value = bin(C_T, 0, z, 12);
		st->max_value = bin(C_T, 1, z, 12);
		st->min = st->min_value;
		st->max = st->max_value;
	}
	CHECK(may(leaf("t", PM_PQF_GT, "5")));
	CHECK(may(leaf("t", PM_PQF_EQ, "0")));
	/* bool */
	clear();
	{
		pm_pq_statistics *st = stats(C_B);
		uint8_t f0 = 0;
		st->min_value = bin(C_B, 0, &f0, 1);
		st->max_value = bin(C_B, 1, &f0, 1);
	}
	CHECK(!may(leaf("b", PM_PQF_EQ, "true")));
	CHECK(may(leaf("b", PM_PQF_EQ, "false")));
}

static void test_nan(void)
{
	clear();
	minmax_d(C_D, 1.0, 2.0);
	nulls(C_D, 0);
	CHECK(!may(leaf("d", PM_PQF_GT, "5")));
	CHECK(may(leaf("d", PM_PQF_NE, "1.5")));
	/* NaN values are outside min/max: NOT (d < 3) holds for them */
	CHECK(may(not_(leaf("d", PM_PQF_LT, "3"))));
	CHECK(may(leaf("d", PM_PQF_NE, "1.0")));
	stats(C_D)->has_nan_count = true;
	stats(C_D)->nan_count = 0;
	CHECK(!may(not_(leaf("d", PM_PQF_LT, "3"))));
	/* NaN bounds are unusable */
	clear();
	minmax_d(C_D, NAN, 2.0);
	CHECK(may(leaf("d", PM_PQF_GT, "5")));
	/* a NaN literal never prunes */
	clear();
	minmax_d(C_D, 1.0, 2.0);
	CHECK(may(leaf("d", PM_PQF_EQ, "nan")));
	/* -0.0 == +0.0 */
	minmax_d(C_D, -0.0, 0.0);
	CHECK(may(leaf("d", PM_PQF_EQ, "0")));
	CHECK(may(leaf("d", PM_PQF_GE, "0.0")));
}

static void test_strings_truncated(void)
{
	clear();
	/* truncated bounds: "ab" <= true min, "ac" >= true max (rounded up) */
	minmax_s(C_S, "ab", "ac", false);
	stats(C_S)->has_is_max_value_exact = true;
	stats(C_S)->is_max_value_exact = false;
	stats(C_S)->has_is_min_value_exact = true;
	stats(C_S)->is_min_value_exact = false;
	nulls(C_S, 0);
	CHECK(may(leaf("s", PM_PQF_EQ, "abzzzz")));
	CHECK(may(leaf("s", PM_PQF_EQ, "ab")));
	CHECK(!may(leaf("s", PM_PQF_EQ, "ad")));
	CHECK(!may(leaf("s", PM_PQF_GT, "ac")));
	CHECK(may(leaf("s", PM_PQF_GE, "ac")));
	CHECK(!may(leaf("s", PM_PQF_LT, "ab")));
	CHECK(!may(leaf("s", PM_PQF_LT, "a")));
	CHECK(may(leaf("s", PM_PQF_STARTS_WITH, "ab")));
	CHECK(may(leaf("s", PM_PQF_STARTS_WITH, "a")));
	CHECK(!may(leaf("s", PM_PQF_STARTS_WITH, "b")));
	CHECK(!may(leaf("s", PM_PQF_STARTS_WITH, "aa")));
	CHECK(may(leaf("s", PM_PQF_STARTS_WITH, "")));
	CHECK(!may(not_(leaf("s", PM_PQF_STARTS_WITH, "a")))); /* both bounds start with "a" */
	CHECK(may(not_(leaf("s", PM_PQF_STARTS_WITH, "ab"))));
	/* bytes compare unsigned */
	minmax_s(C_S, "a", "\xc3\xa9", false);
	CHECK(may(leaf("s", PM_PQF_GT, "z")));
	/* a min == max that is a truncated bound is still a bound */
	minmax_s(C_S, "ab", "ab", false);
	CHECK(!may(leaf("s", PM_PQF_EQ, "abc")));
}

static void be16(uint8_t *o, int64_t v)
{
	int k;
	for (k = 15; k >= 0; k--) {
		o[k] = (uint8_t)((uint64_t)v & 0xff);
		v >>= 8; /* arithmetic shift keeps the sign */
	}
}

static void test_decimal(void)
{
	uint8_t a[16], b[16];
	clear();
	be16(a, -500);
	be16(b, 1234);
	stats(C_DEC)->min_value = bin(C_DEC, 0, a, 16);
	stats(C_DEC)->max_value = bin(C_DEC, 1, b, 16);
	nulls(C_DEC, 0);
	CHECK(!may(leaf("dec", PM_PQF_GT, "12.34")));
	CHECK(may(leaf("dec", PM_PQF_GE, "12.34")));
	CHECK(may(leaf("dec", PM_PQF_GE, "1234E-2")));
	CHECK(!may(leaf("dec", PM_PQF_LT, "-5")));
	CHECK(may(leaf("dec", PM_PQF_LE, "-5.000")));
	CHECK(!may(leaf("dec", PM_PQF_GT, "12.3400")));
	CHECK(may(leaf("dec", PM_PQF_GT, "12.345"))); /* not exact at scale 2: never prunes */
	/* shorter big-endian bounds are sign-extended */
	stats(C_DEC)->min_value = bin(C_DEC, 0, "\xff", 1); /* -0.01 */
	CHECK(!may(leaf("dec", PM_PQF_LT, "-0.01")));
	CHECK(may(leaf("dec", PM_PQF_LE, "-0.01")));
}

static void test_bind_errors(void)
{
	pm_pq_filter *f;
	clear();
	f = leaf("nope", PM_PQF_EQ, "1");
	CHECK_RC(pm_pq_filter_bind(f, schema), PAIMON_EINVAL);
	pm_pq_filter_free(f);
	f = leaf("st", PM_PQF_EQ, "1");
	CHECK_RC(pm_pq_filter_bind(f, schema), PAIMON_EINVAL);
	pm_pq_filter_free(f);
	f = leaf("i", PM_PQF_EQ, "abc");
	CHECK_RC(pm_pq_filter_bind(f, schema), PAIMON_EINVAL);
	CHECK_MSG("cannot parse");
	pm_pq_filter_free(f);
	f = leaf("b", PM_PQF_EQ, "maybe");
	CHECK_RC(pm_pq_filter_bind(f, schema), PAIMON_EINVAL);
	pm_pq_filter_free(f);
	CHECK_RC(pm_pq_filter_leaf(&f, "i", PM_PQF_EQ, NULL, NULL, 0), PAIMON_EINVAL);
	CHECK_RC(pm_pq_filter_leaf(&f, "i", 55, NULL, NULL, 0), PAIMON_EINVAL);
}

static void test_pages(void)
{
	pm_pq_column_index ci;
	pm_pq_offset_index oi;
	pm_pq_page_location loc[4];
	bool np[4] = {false, false, true, false};
	pm_pq_bin mins[4], maxs[4];
	int64_t nc[4] = {0, 0, 25, 1}, *rr = NULL;
	uint8_t v[8][8];
	int64_t lo[4] = {0, 10, 0, 30}, hi[4] = {9, 19, 0, 39};
	pm_pq_fpages pages[NCOLS];
	size_t n = 0, k;
	pm_pq_filter *f;
	int j;
	clear();
	minmax_i64(C_I, 0, 39, false);
	memset(&ci, 0, sizeof ci);
	memset(&oi, 0, sizeof oi);
	memset(pages, 0, sizeof pages);
	for (k = 0; k < 4; k++) {
		for (j = 0; j < 8; j++) {
			v[2 * k][j] = (uint8_t)((uint64_t)lo[k] >> (8 * j));
			v[2 * k + 1][j] = (uint8_t)((uint64_t)hi[k] >> (8 * j));
		}
		mins[k].p = v[2 * k];
		maxs[k].p = v[2 * k + 1];
		mins[k].len = maxs[k].len = np[k] ? 0 : 8;
		mins[k].set = maxs[k].set = true;
		loc[k].first_row_index = (int64_t)k * 25;
		loc[k].offset = 100 + (int64_t)k * 10;
		loc[k].compressed_page_size = 10;
	}
	ci.null_pages = np;
	ci.n_pages = 4;
	ci.min_values = mins;
	ci.max_values = maxs;
	ci.null_counts = nc;
	ci.n_null_counts = 4;
	oi.page_locations = loc;
	oi.n_page_locations = 4;
	pages[C_I].ci = &ci;
	pages[C_I].oi = &oi;
	f = leaf("i", PM_PQF_GE, "15");
	CHECK_OK(pm_pq_filter_bind(f, schema));
	CHECK_OK(pm_pq_filter_eval_pages(f, &fm, 0, pages, &rr, &n));
	CHECK(n == 2 && rr[0] == 25 && rr[1] == 50 && rr[2] == 75 && rr[3] == 100);
	pm_free(rr);
	pm_pq_filter_free(f);
	/* IS NULL: the null page and the page with one null */
	f = leaf("i", PM_PQF_IS_NULL, NULL);
	CHECK_OK(pm_pq_filter_bind(f, schema));
	CHECK_OK(pm_pq_filter_eval_pages(f, &fm, 0, pages, &rr, &n));
	CHECK(n == 1 && rr[0] == 50 && rr[1] == 100);
	pm_free(rr);
	pm_pq_filter_free(f);
	/* OR with a column without index: chunk statistics apply to all rows */
	minmax_s(C_S, "m", "n", false);
	f = bin_op(PM_PQF_OR, leaf("i", PM_PQF_LT, "5"), leaf("s", PM_PQF_EQ, "a"));
	CHECK_OK(pm_pq_filter_bind(f, schema));
	CHECK_OK(pm_pq_filter_eval_pages(f, &fm, 0, pages, &rr, &n));
	CHECK(n == 1 && rr[0] == 0 && rr[1] == 25);
	pm_free(rr);
	pm_pq_filter_free(f);
	f = bin_op(PM_PQF_OR, leaf("i", PM_PQF_LT, "5"), leaf("s", PM_PQF_EQ, "m"));
	CHECK_OK(pm_pq_filter_bind(f, schema));
	CHECK_OK(pm_pq_filter_eval_pages(f, &fm, 0, pages, &rr, &n));
	CHECK(n == 1 && rr[0] == 0 && rr[1] == 100);
	pm_free(rr);
	pm_pq_filter_free(f);
	/* page rows that do not add up: the index is ignored */
	loc[1].first_row_index = 200;
	f = leaf("i", PM_PQF_GE, "15");
	CHECK_OK(pm_pq_filter_bind(f, schema));
	CHECK_OK(pm_pq_filter_eval_pages(f, &fm, 0, pages, &rr, &n));
	CHECK(n == 1 && rr[0] == 0 && rr[1] == 100);
	pm_free(rr);
	pm_pq_filter_free(f);
}

static void test_public_api(void)
{
	paimon_parquet_filter *a = NULL, *b = NULL, *c = NULL, *d = NULL;
	const char *vals[2] = {"1", "2"};
	CHECK_OK(paimon_parquet_filter_new_cmp(&a, "i", PAIMON_PQ_GT, "5"));
	CHECK_OK(paimon_parquet_filter_new_in(&b, "i", 1, vals, 2));
	CHECK_OK(paimon_parquet_filter_or(&c, a, b));
	CHECK_OK(paimon_parquet_filter_not(&d, c));
	CHECK_OK(paimon_parquet_filter_new_cmp(&a, "i", PAIMON_PQ_IS_NULL, NULL));
	CHECK_OK(paimon_parquet_filter_and(&b, d, a));
	CHECK_RC(paimon_parquet_filter_new_cmp(&a, "i", PAIMON_PQ_EQ, NULL), PAIMON_EINVAL);
	paimon_parquet_filter_free(b);
}

static void teardown(void)
{
	pm_pq_schema_free(schema);
}

static void t_all(void)
{
	setup();
	test_missing_stats();
	test_int_ranges();
	test_all_null_chunk();
	test_legacy_and_orders();
	test_nan();
	test_strings_truncated();
	test_decimal();
	test_bind_errors();
	test_pages();
	test_public_api();
	teardown();
}

TEST_MAIN(T(t_all))
