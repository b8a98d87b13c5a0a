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

#ifndef TEXT_DIGEST
#define TEXT_DIGEST 0xe2fca5ea87ba0f25ULL /* recorded from the text-per-bind implementation */
#endif

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
	/* the one operator enum (the PAIMON_PQ_ names are its aliases) */
	CHECK(PAIMON_PQ_STARTS_WITH == PAIMON_PRED_STARTS_WITH && PAIMON_PQ_NE == PAIMON_PRED_NOT_EQUAL);
	CHECK_OK(paimon_parquet_filter_new_cmp(&a, "i", PAIMON_PRED_LESS_OR_EQUAL, "5"));
	paimon_parquet_filter_free(a);
	CHECK_RC(paimon_parquet_filter_new_cmp(&a, "s", PAIMON_PRED_ENDS_WITH, "x"), PAIMON_EINVAL);
}

/* ------------------------------------------------------------ typed vs text */

/*
 * Many random literals against a schema with every physical/logical kind:
 * (1) text leaves: bind result and outcomes on random statistics hash to a
 *     digest recorded from the implementation that parsed text per bind
 *     (the text rules must not change);
 * (2) typed leaves give exactly the bind result and outcomes of the text
 *     leaf of their canonical text, on every column (also columns whose
 *     physical type the kind does not fit).
 */
enum { W_B, W_I32, W_I8, W_U8, W_I64, W_U64, W_DATE, W_TS, W_F, W_D, W_D9, W_D18, W_D38, W_D20, W_S, W_BIN,
       W_FL4, W_I96, W_F16, NW };
static pm_pq_schema_element welems[NW + 1];
static pm_pq_schema *wschema;
static pm_pq_column_chunk wchunks[NW];
static pm_pq_row_group wrg;
static pm_pq_file_meta wfm;
static pm_pq_column_order worders[NW];

static uint64_t wr = 0x2545F4914F6CDD1DULL;
static uint64_t wrand(void)
{
	wr ^= wr << 13;
	wr ^= wr >> 7;
	wr ^= wr << 17;
	return wr;
}

static void wel(int i, const char *name, int type, int rep)
{
	memset(&welems[i], 0, sizeof welems[i]);
	welems[i].name = name;
	welems[i].has_type = true;
	welems[i].type = type;
	welems[i].has_repetition = true;
	welems[i].repetition = rep;
}

static void wdec(int i, int p, int s, int len)
{
	welems[i].logical.kind = PM_PQ_LT_DECIMAL;
	welems[i].logical.precision = p;
	welems[i].logical.scale = s;
	if (len) {
		welems[i].has_type_length = true;
		welems[i].type_length = len;
	}
}

static const char *WNAMES[NW] = {"b", "i32", "i8", "u8", "i64", "u64", "date", "ts", "f", "d", "d9", "d18", "d38",
				 "d20", "s", "bin", "fl4", "i96", "f16"};

static void wsetup(void)
{
	int i;
	memset(&welems[0], 0, sizeof welems[0]);
	welems[0].name = "schema";
	welems[0].has_num_children = true;
	welems[0].num_children = NW;
	wel(1 + W_B, WNAMES[W_B], PM_PQ_BOOLEAN, PM_PQ_REQUIRED);
	wel(1 + W_I32, WNAMES[W_I32], PM_PQ_INT32, PM_PQ_OPTIONAL);
	wel(1 + W_I8, WNAMES[W_I8], PM_PQ_INT32, PM_PQ_OPTIONAL);
	welems[1 + W_I8].logical.kind = PM_PQ_LT_INTEGER;
	welems[1 + W_I8].logical.bit_width = 8;
	welems[1 + W_I8].logical.is_signed = true;
	wel(1 + W_U8, WNAMES[W_U8], PM_PQ_INT32, PM_PQ_OPTIONAL);
	welems[1 + W_U8].has_converted_type = true;
	welems[1 + W_U8].converted_type = PM_PQ_CT_UINT_8;
	wel(1 + W_I64, WNAMES[W_I64], PM_PQ_INT64, PM_PQ_OPTIONAL);
	wel(1 + W_U64, WNAMES[W_U64], PM_PQ_INT64, PM_PQ_OPTIONAL);
	welems[1 + W_U64].logical.kind = PM_PQ_LT_INTEGER;
	welems[1 + W_U64].logical.bit_width = 64;
	welems[1 + W_U64].logical.is_signed = false;
	wel(1 + W_DATE, WNAMES[W_DATE], PM_PQ_INT32, PM_PQ_OPTIONAL);
	welems[1 + W_DATE].logical.kind = PM_PQ_LT_DATE;
	wel(1 + W_TS, WNAMES[W_TS], PM_PQ_INT64, PM_PQ_OPTIONAL);
	welems[1 + W_TS].logical.kind = PM_PQ_LT_TIMESTAMP;
	welems[1 + W_TS].logical.unit = PM_PQ_MICROS;
	wel(1 + W_F, WNAMES[W_F], PM_PQ_FLOAT, PM_PQ_OPTIONAL);
	wel(1 + W_D, WNAMES[W_D], PM_PQ_DOUBLE, PM_PQ_OPTIONAL);
	wel(1 + W_D9, WNAMES[W_D9], PM_PQ_INT32, PM_PQ_OPTIONAL);
	wdec(1 + W_D9, 9, 2, 0);
	wel(1 + W_D18, WNAMES[W_D18], PM_PQ_INT64, PM_PQ_OPTIONAL);
	wdec(1 + W_D18, 18, 4, 0);
	wel(1 + W_D38, WNAMES[W_D38], PM_PQ_FIXED_LEN_BYTE_ARRAY, PM_PQ_OPTIONAL);
	wdec(1 + W_D38, 38, 10, 16);
	wel(1 + W_D20, WNAMES[W_D20], PM_PQ_BYTE_ARRAY, PM_PQ_OPTIONAL);
	welems[1 + W_D20].has_converted_type = true;
	welems[1 + W_D20].converted_type = PM_PQ_CT_DECIMAL;
	welems[1 + W_D20].has_scale = true;
	welems[1 + W_D20].scale = 0;
	wel(1 + W_S, WNAMES[W_S], PM_PQ_BYTE_ARRAY, PM_PQ_OPTIONAL);
	welems[1 + W_S].logical.kind = PM_PQ_LT_STRING;
	wel(1 + W_BIN, WNAMES[W_BIN], PM_PQ_BYTE_ARRAY, PM_PQ_OPTIONAL);
	wel(1 + W_FL4, WNAMES[W_FL4], PM_PQ_FIXED_LEN_BYTE_ARRAY, PM_PQ_OPTIONAL);
	welems[1 + W_FL4].has_type_length = true;
	welems[1 + W_FL4].type_length = 4;
	wel(1 + W_I96, WNAMES[W_I96], PM_PQ_INT96, PM_PQ_OPTIONAL);
	wel(1 + W_F16, WNAMES[W_F16], PM_PQ_FIXED_LEN_BYTE_ARRAY, PM_PQ_OPTIONAL);
	welems[1 + W_F16].has_type_length = true;
	welems[1 + W_F16].type_length = 2;
	welems[1 + W_F16].logical.kind = PM_PQ_LT_FLOAT16;
	if (pm_pq_schema_build(welems, NW + 1, &wschema))
		abort();
	memset(&wfm, 0, sizeof wfm);
	memset(&wrg, 0, sizeof wrg);
	memset(wchunks, 0, sizeof wchunks);
	wrg.columns = wchunks;
	wrg.n_columns = NW;
	wrg.num_rows = 100;
	wfm.row_groups = &wrg;
	wfm.n_row_groups = 1;
	wfm.num_rows = 100;
	for (i = 0; i < NW; i++) {
		wchunks[i].has_meta_data = true;
		wchunks[i].meta_data.num_values = 100;
		worders[i].kind = PM_PQ_ORDER_TYPE_DEFINED;
	}
	wfm.column_orders = worders;
	wfm.n_column_orders = NW;
}

static const int64_t IPOOL[] = {INT64_MIN, INT64_MIN + 1, -2147483649LL, -2147483648LL, -129, -128, -100, -5, -1, 0,
				1, 2, 5, 100, 127, 128, 255, 256, 2147483647LL, 2147483648LL, 4294967295LL,
				4294967296LL, 1000000000000000000LL, INT64_MAX - 1, INT64_MAX};
#define NIP (sizeof IPOOL / sizeof IPOOL[0])

static int64_t rand_int(void)
{
	uint64_t r = wrand();
	switch (r % 4) {
	case 0: return IPOOL[(r >> 8) % NIP];
	case 1: return (int64_t)((r >> 8) % 2001) - 1000;
	case 2: return (int32_t)(uint32_t)(r >> 16);
	default: return (int64_t)wrand();
	}
}

static double rand_double(void)
{
	static const double pool[] = {-INFINITY, -1e300, -1.5, -0.0, 0.0, 1e-300, 0.1, 0.5, 1.5, 2.5, 3.0, 100.0,
				      1e300, INFINITY, NAN};
	uint64_t r = wrand();
	double d;
	switch (r % 5) {
	case 0: return pool[(r >> 8) % (sizeof pool / sizeof pool[0])];
	case 1: return (double)(float)pool[(r >> 8) % (sizeof pool / sizeof pool[0])];
	case 2: return (double)((int64_t)((r >> 8) % 2001) - 1000) / 8.0;
	case 3: return (double)(float)((double)((int64_t)((r >> 8) % 20001) - 10000) / 100.0);
	default: {
		uint64_t u = wrand();
		memcpy(&d, &u, 8);
		return d;
	}
	}
}

/* A random decimal: unscaled value with up to 38 digits, scale 0..12. */
static __int128 rand_dec(int *scale)
{
	uint64_t r = wrand();
	int digits = 1 + (int)(r % 38), k;
	__int128 v = 0;
	*scale = (int)((r >> 8) % 13);
	if ((r >> 16) % 3 == 0)
		digits = 1 + (int)((r >> 20) % 6);
	for (k = 0; k < digits; k++)
		v = v * 10 + (int)(wrand() % 10);
	if ((r >> 24) & 1)
		v = -v;
	return v;
}

static const char *BPOOL[] = {"", "a", "ab", "abc", "b", "ba", "\xff", "\xff\x01", "1", "-5", "5", "true", "0.5",
			      "12abc", "2.50", "1e3", "nan", "caf\xc3\xa9", "zz", "0"};
#define NBP (sizeof BPOOL / sizeof BPOOL[0])

static void put_dec_text(char *o, __int128 v, int scale)
{
	char rev[64];
	int n = 0, m = 0, k, neg = v < 0;
	unsigned __int128 u = neg ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
	do {
		rev[n++] = (char)('0' + (int)(u % 10));
		u /= 10;
	} while (u);
	while (n <= scale)
		rev[n++] = '0';
	if (neg)
		o[m++] = '-';
	for (k = n - 1; k >= 0; k--) {
		o[m++] = rev[k];
		if (k == scale && scale > 0)
			o[m++] = '.';
	}
	o[m] = 0;
}

static void put_double_text(char *o, double d)
{
	int prec;
	if (isnan(d)) {
		strcpy(o, "nan");
		return;
	}
	if (isinf(d)) {
		strcpy(o, d < 0 ? "-inf" : "inf");
		return;
	}
	for (prec = 1; prec <= 17; prec++) {
		snprintf(o, 64, "%.*g", prec, d);
		if (strtod(o, NULL) == d)
			break;
	}
}

/* A random text literal (bytes in o, returns the length). */
static size_t rand_text(char *o)
{
	static const char *junk[] = {" 5", "+5", "5 ", "1e3", "1.5e-2", "0x10", "nan", "NaN", "inf", "-inf",
				     "infinity", "True", "TRUE", "False", "", "-", ".", "1.", ".5", "--1",
				     "18446744073709551615", "18446744073709551616", "-9223372036854775809",
				     "9223372036854775808", "10000000000000000000000000000000000000000",
				     "0.0000000000000000000000000000000000000001", "1e101", "1e-101", "1e100", "5e-3",
				     "1.2e+2", "-0", "-0.0", "00012", "1.5.5", "1e", "1e+"};
	uint64_t r = wrand();
	int s;
	__int128 v;
	switch (r % 7) {
	case 0:
		strcpy(o, junk[(r >> 8) % (sizeof junk / sizeof junk[0])]);
		return strlen(o);
	case 1:
		snprintf(o, 64, "%lld", (long long)rand_int());
		return strlen(o);
	case 2:
		put_double_text(o, rand_double());
		return strlen(o);
	case 3:
		snprintf(o, 64, "%.17g", rand_double());
		return strlen(o);
	case 4:
		v = rand_dec(&s);
		put_dec_text(o, v, s);
		return strlen(o);
	case 5:
		strcpy(o, BPOOL[(r >> 8) % NBP]);
		return strlen(o);
	default:
		memcpy(o, "1\0002", 3); /* embedded NUL */
		return 1 + (r >> 8) % 3;
	}
}

static int is_dec_col(int c)
{
	return c == W_D9 || c == W_D18 || c == W_D38 || c == W_D20;
}

static void put_le(uint8_t *o, uint64_t v, int n)
{
	int k;
	for (k = 0; k < n; k++)
		o[k] = (uint8_t)(v >> (8 * k));
}

/* Random statistics value in column c's physical encoding. */
static size_t rand_stat(int c, uint8_t *o)
{
	const pm_pq_schema_element *e = &welems[1 + c];
	__int128 v;
	int s;
	switch (e->type) {
	case PM_PQ_BOOLEAN:
		o[0] = (uint8_t)(wrand() & 1);
		return 1;
	case PM_PQ_INT32:
		put_le(o, (uint64_t)(c == W_D9 ? (wrand() % 3 ? (int64_t)rand_dec(&s) : rand_int()) : rand_int()), 4);
		return 4;
	case PM_PQ_INT64:
		put_le(o, (uint64_t)(c == W_D18 ? (wrand() % 3 ? (int64_t)rand_dec(&s) : rand_int()) : rand_int()), 8);
		return 8;
	case PM_PQ_FLOAT: {
		float f = (float)rand_double();
		memcpy(o, &f, 4);
		return 4;
	}
	case PM_PQ_DOUBLE: {
		double d = rand_double();
		memcpy(o, &d, 8);
		return 8;
	}
	case PM_PQ_INT96:
		put_le(o, wrand(), 8);
		put_le(o + 8, wrand(), 4);
		return 12;
	default:
		if (is_dec_col(c)) {
			size_t n = c == W_D38 ? 16 : 1 + wrand() % 16, k;
			v = wrand() % 2 ? rand_dec(&s) : (__int128)rand_int();
			for (k = 0; k < n; k++)
				o[k] = (uint8_t)((unsigned __int128)v >> (8 * (n - 1 - k)));
			return n;
		}
		if (e->has_type_length) {
			size_t k;
			for (k = 0; k < (size_t)e->type_length; k++)
				o[k] = (uint8_t)"ab1\xff"[wrand() % 4];
			return (size_t)e->type_length;
		}
		strcpy((char *)o, BPOOL[wrand() % NBP]);
		return strlen((char *)o);
	}
}

#define NSTATS 6
static uint8_t wsb[NSTATS][2][32];
static pm_pq_statistics wst[NSTATS];

static void rand_stats(int c)
{
	int k;
	for (k = 0; k < NSTATS; k++) {
		pm_pq_statistics *st = &wst[k];
		size_t a, b;
		memset(st, 0, sizeof *st);
		if (k == 0)
			continue; /* none */
		a = rand_stat(c, wsb[k][0]);
		b = rand_stat(c, wsb[k][1]);
		st->min_value.p = wsb[k][0];
		st->min_value.len = a;
		st->min_value.set = true;
		st->max_value.p = wsb[k][1];
		st->max_value.len = b;
		st->max_value.set = true;
		if (k == NSTATS - 1) { /* the same value: single-valued */
			memcpy(wsb[k][1], wsb[k][0], a);
			st->max_value.len = a;
		}
		st->has_null_count = true;
		st->null_count = k % 3 == 0 ? 0 : k % 3 == 1 ? 7 : 100;
		if (k % 2) {
			st->has_nan_count = true;
			st->nan_count = 0;
		}
	}
}

/* fnv-1a */
static uint64_t dig = 14695981039346656037ULL;
static void mix(uint64_t v)
{
	int k;
	for (k = 0; k < 8; k++) {
		dig ^= (v >> (8 * k)) & 0xff;
		dig *= 1099511628211ULL;
	}
}

/* Bind result and outcomes (with and without swapped bounds) of f. */
static void outcomes(pm_pq_filter *f, int c, int *rc, unsigned *m)
{
	int k;
	*rc = pm_pq_filter_bind(f, wschema);
	for (k = 0; k < NSTATS; k++) {
		pm_pq_statistics sw = wst[k];
		if (*rc) {
			m[2 * k] = m[2 * k + 1] = 0xff;
			continue;
		}
		m[2 * k] = pm_pq_filter_eval_stats(f, &wfm, c, k ? &wst[k] : NULL, 100);
		sw.min_value = wst[k].max_value;
		sw.max_value = wst[k].min_value;
		m[2 * k + 1] = pm_pq_filter_eval_stats(f, &wfm, c, k ? &sw : NULL, 100);
	}
}

static const int WOPS[] = {PM_PQF_EQ, PM_PQF_NE, PM_PQF_LT, PM_PQF_LE, PM_PQF_GT, PM_PQF_GE, PM_PQF_STARTS_WITH,
			   PM_PQF_IN, PM_PQF_NOT_IN};
#define NWOPS (sizeof WOPS / sizeof WOPS[0])

static void test_text_digest(void)
{
	char t1[64], t2[64];
	int c, i, rc;
	size_t o;
	unsigned m[2 * NSTATS];
	dig = 14695981039346656037ULL;
	wr = 0x2545F4914F6CDD1DULL;
	for (c = 0; c < NW; c++) {
		for (i = 0; i < 300; i++) {
			const void *v[2];
			size_t l[2];
			if (i % 50 == 0)
				rand_stats(c);
			l[0] = rand_text(t1);
			l[1] = rand_text(t2);
			v[0] = t1;
			v[1] = t2;
			for (o = 0; o < NWOPS; o++) {
				pm_pq_filter *f = NULL;
				size_t n = WOPS[o] == PM_PQF_IN || WOPS[o] == PM_PQF_NOT_IN ? 2 : 1;
				CHECK_OK(pm_pq_filter_leaf(&f, WNAMES[c], WOPS[o], v, l, n));
				if (!f)
					continue;
				outcomes(f, c, &rc, m);
				mix((uint64_t)(int64_t)rc);
				for (size_t k = 0; k < 2 * NSTATS; k++)
					mix(m[k]);
				pm_pq_filter_free(f);
			}
		}
	}
	printf("text digest %016llx\n", (unsigned long long)dig);
#ifndef PQ_FILTER_BASELINE
	CHECK(dig == TEXT_DIGEST);
#endif
}

#ifndef PQ_FILTER_BASELINE
/* A random typed literal and its canonical text (t, *tl bytes). */
static void rand_typed(pm_pq_lit *x, char *t, size_t *tl, char *bytes)
{
	uint64_t r = wrand();
	memset(x, 0, sizeof *x);
	x->kind = (int)(r % 5);
	switch (x->kind) {
	case PM_PQL_BOOL:
		x->v.b = (r >> 8) & 1;
		strcpy(t, x->v.b ? "true" : "false");
		break;
	case PM_PQL_INT:
		x->v.i = rand_int();
		snprintf(t, 64, "%lld", (long long)x->v.i);
		break;
	case PM_PQL_DOUBLE:
		x->v.d = rand_double();
		put_double_text(t, x->v.d);
		break;
	case PM_PQL_DECIMAL: {
		int s;
		__int128 v = rand_dec(&s);
		x->scale = s;
		x->v.dec.lo = (uint64_t)(unsigned __int128)v;
		x->v.dec.hi = (int64_t)(v >> 64);
		put_dec_text(t, v, s);
		break;
	}
	default:
		strcpy(bytes, BPOOL[(r >> 8) % NBP]);
		x->v.bytes.p = bytes;
		x->v.bytes.len = strlen(bytes);
		strcpy(t, bytes);
	}
	*tl = strlen(t);
}

static void test_typed_vs_text(void)
{
	char t[2][64], b[2][64];
	int c, i;
	size_t o, k;
	long cases = 0;
	wr = 0x9E3779B97F4A7C15ULL;
	for (c = 0; c < NW; c++) {
		for (i = 0; i < 400; i++) {
			pm_pq_lit x[2];
			const void *v[2] = {t[0], t[1]};
			size_t l[2];
			if (i % 50 == 0)
				rand_stats(c);
			rand_typed(&x[0], t[0], &l[0], b[0]);
			rand_typed(&x[1], t[1], &l[1], b[1]);
			for (o = 0; o < NWOPS; o++) {
				pm_pq_filter *ft = NULL, *fx = NULL;
				size_t n = WOPS[o] == PM_PQF_IN || WOPS[o] == PM_PQF_NOT_IN ? 2 : 1;
				unsigned mt[2 * NSTATS], mx[2 * NSTATS];
				int rt, rx;
				CHECK_OK(pm_pq_filter_leaf(&ft, WNAMES[c], WOPS[o], v, l, n));
				CHECK_OK(pm_pq_filter_leaf_typed(&fx, WNAMES[c], WOPS[o], x, n));
				if (!ft || !fx) {
					pm_pq_filter_free(ft);
					pm_pq_filter_free(fx);
					continue;
				}
				/* a FLOAT/DOUBLE column compares a double literal as its
				 * exact value, which its shortest text also is */
				outcomes(ft, c, &rt, mt);
				outcomes(fx, c, &rx, mx);
				cases++;
				if (rt != rx || memcmp(mt, mx, sizeof mt)) {
					fprintf(stderr, "  column %s op %d kind %d/%d literal '%s' / '%s': rc %d vs %d\n",
						WNAMES[c], WOPS[o], x[0].kind, x[1].kind, t[0], t[1], rt, rx);
					for (k = 0; k < 2 * NSTATS; k++)
						if (mt[k] != mx[k])
							fprintf(stderr, "    stats %zu: text %u typed %u\n", k, mt[k], mx[k]);
					CHECK(0);
				}
				pm_pq_filter_free(ft);
				pm_pq_filter_free(fx);
			}
		}
	}
	CHECK(cases > 50000);
	/* bad typed values */
	{
		pm_pq_filter *f = NULL;
		pm_pq_lit x;
		memset(&x, 0, sizeof x);
		x.kind = 17;
		CHECK_RC(pm_pq_filter_leaf_typed(&f, "i", PM_PQF_EQ, &x, 1), PAIMON_EINVAL);
		x.kind = PM_PQL_DECIMAL;
		x.scale = 77;
		CHECK_RC(pm_pq_filter_leaf_typed(&f, "i", PM_PQF_EQ, &x, 1), PAIMON_EINVAL);
		x.kind = PM_PQL_BYTES;
		x.v.bytes.len = 3;
		CHECK_RC(pm_pq_filter_leaf_typed(&f, "i", PM_PQF_EQ, &x, 1), PAIMON_EINVAL);
		CHECK_RC(pm_pq_filter_leaf_typed(&f, "i", PM_PQF_EQ, NULL, 1), PAIMON_EINVAL);
		CHECK_RC(pm_pq_filter_leaf_typed(&f, "i", PM_PQF_EQ, &x, 2), PAIMON_EINVAL);
		CHECK(f == NULL);
	}
}
#endif

static void test_wide(void)
{
	wsetup();
	test_text_digest();
#ifndef PQ_FILTER_BASELINE
	test_typed_vs_text();
#endif
	pm_pq_schema_free(wschema);
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

TEST_MAIN(T(t_all), T(test_wide))
