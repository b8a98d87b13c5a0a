/*
 * tests/unit/arrow/test_arrow_filter.c - pm_arrow_filter / pm_arrow_head
 * over a struct batch with a column of every supported type (primitives,
 * temporal, decimals, (large) binary/utf8, fixed-size binary, (large) list,
 * fixed-size list, struct, map, null), random nulls, offsets on the batch
 * and on each column, random selections; every output cell is compared
 * with the input cell by an independent recursive reference.
 */
#include <stdint.h>
#include <string.h>

#include "arrow/arrow_builder.h"
#include "arrow/arrow_filter.h"
#include "core/error.h"
#include "core/mem.h"
#include "test.h"

static uint64_t rng = 88172645463325252ULL;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* ---------------------------------------------------------- reference */

static int bitv(const void *bits, int64_t i)
{
	return (((const uint8_t *)bits)[i >> 3] >> (i & 7)) & 1;
}

static int is_valid(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i)
{
	if (!strcmp(s->format, "n"))
		return 0;
	if (a->null_count == 0 || !a->buffers[0])
		return 1;
	return bitv(a->buffers[0], a->offset + i);
}

static int64_t off(const struct ArrowArray *a, int large, int64_t p)
{
	return large ? ((const int64_t *)a->buffers[1])[p] : ((const int32_t *)a->buffers[1])[p];
}

static int fixed_w(const char *f)
{
	if (!strcmp(f, "c") || !strcmp(f, "C")) return 1;
	if (!strcmp(f, "s") || !strcmp(f, "S") || !strcmp(f, "e")) return 2;
	if (!strcmp(f, "i") || !strcmp(f, "I") || !strcmp(f, "f") || !strcmp(f, "tdD") || !strcmp(f, "tts") ||
	    !strcmp(f, "ttm")) return 4;
	if (!strncmp(f, "d:", 2)) return strstr(f, ",256") ? 32 : 16;
	if (!strncmp(f, "w:", 2)) return atoi(f + 2);
	return 8;
}

static int cell_eq(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i, const struct ArrowArray *b,
		   int64_t j)
{
	int va = is_valid(s, a, i), vb = is_valid(s, b, j);
	const char *f = s->format;
	if (va != vb)
		return 0;
	if (!va)
		return 1;
	int64_t pa = a->offset + i, pb = b->offset + j;
	if (!strcmp(f, "b"))
		return bitv(a->buffers[1], pa) == bitv(b->buffers[1], pb);
	if (!strcmp(f, "u") || !strcmp(f, "z") || !strcmp(f, "U") || !strcmp(f, "Z")) {
		int large = f[0] == 'U' || f[0] == 'Z';
		int64_t la = off(a, large, pa + 1) - off(a, large, pa), lb = off(b, large, pb + 1) - off(b, large, pb);
		return la == lb && (la == 0 || !memcmp((const uint8_t *)a->buffers[2] + off(a, large, pa),
						       (const uint8_t *)b->buffers[2] + off(b, large, pb), (size_t)la));
	}
	if (!strcmp(f, "+l") || !strcmp(f, "+L") || !strcmp(f, "+m")) {
		int large = f[1] == 'L';
		int64_t a0 = off(a, large, pa), la = off(a, large, pa + 1) - a0;
		int64_t b0 = off(b, large, pb), lb = off(b, large, pb + 1) - b0;
		if (la != lb)
			return 0;
		for (int64_t k = 0; k < la; k++)
			if (!cell_eq(s->children[0], a->children[0], a0 + k, b->children[0], b0 + k))
				return 0;
		return 1;
	}
	if (!strncmp(f, "+w:", 3)) {
		int64_t n = atoi(f + 3);
		for (int64_t k = 0; k < n; k++)
			if (!cell_eq(s->children[0], a->children[0], pa * n + k, b->children[0], pb * n + k))
				return 0;
		return 1;
	}
	if (!strcmp(f, "+s")) {
		for (int64_t c = 0; c < s->n_children; c++)
			if (!cell_eq(s->children[c], a->children[c], pa, b->children[c], pb))
				return 0;
		return 1;
	}
	int w = fixed_w(f);
	return !memcmp((const uint8_t *)a->buffers[1] + pa * w, (const uint8_t *)b->buffers[1] + pb * w, (size_t)w);
}

/* Output invariants: offset 0, null_count matches the bitmap, recursively. */
static int well_formed(const struct ArrowSchema *s, const struct ArrowArray *a)
{
	if (a->offset != 0 || !a->release)
		return 0;
	if (!strcmp(s->format, "n"))
		return a->null_count == a->length && a->n_buffers == 0;
	int64_t nulls = 0;
	if (a->buffers[0])
		for (int64_t i = 0; i < a->length; i++)
			nulls += !bitv(a->buffers[0], i);
	if (nulls != a->null_count)
		return 0;
	for (int64_t c = 0; c < a->n_children; c++) {
		const struct ArrowSchema *cs = s->children[c];
		if (!strcmp(s->format, "+s") && a->children[c]->length != a->length)
			return 0;
		if (!well_formed(cs, a->children[c]))
			return 0;
	}
	return 1;
}

/* ---------------------------------------------------------- generators */

typedef struct col {
	const char *fmt;
	pm_array_builder *(*make)(const char *fmt);
	void (*add)(pm_array_builder *ab); /* one random valid value */
} col;

static pm_array_builder *mk_fixed(const char *fmt)
{
	return pm_ab_new_fixed(fmt, fixed_w(fmt));
}
static void add_fixed(pm_array_builder *ab)
{
	uint8_t v[32];
	for (int k = 0; k < 32; k++)
		v[k] = (uint8_t)rnd();
	pm_ab_append_fixed(ab, v, 1);
}
static pm_array_builder *mk_bool(const char *fmt)
{
	(void)fmt;
	return pm_ab_new_bool();
}
static void add_bool(pm_array_builder *ab)
{
	uint8_t v = (uint8_t)(rnd() & 1);
	pm_ab_append_bools(ab, &v, 1);
}
static pm_array_builder *mk_bin(const char *fmt)
{
	return pm_ab_new_binary(fmt, fmt[0] == 'U' || fmt[0] == 'Z');
}
static void add_bin(pm_array_builder *ab)
{
	char v[16];
	size_t n = rnd() % 12;
	for (size_t k = 0; k < n; k++)
		v[k] = (char)('a' + rnd() % 26);
	pm_ab_append_binary(ab, v, n);
}
static void add_maybe_null(pm_array_builder *ab, void (*add)(pm_array_builder *))
{
	if (rnd() % 5 == 0)
		pm_ab_append_nulls(ab, 1);
	else
		add(ab);
}
static pm_array_builder *mk_list_i(const char *fmt)
{
	return pm_ab_new_list(pm_ab_new_fixed("i", 4), fmt[1] == 'L');
}
static void add_list_i(pm_array_builder *ab)
{
	int64_t n = (int64_t)(rnd() % 4);
	for (int64_t k = 0; k < n; k++)
		add_maybe_null(ab->children[0], add_fixed);
	pm_ab_append_list(ab, n);
}
static pm_array_builder *mk_list_u(const char *fmt)
{
	return pm_ab_new_list(pm_ab_new_binary("u", 0), fmt[1] == 'L');
}
static void add_list_u(pm_array_builder *ab)
{
	int64_t n = (int64_t)(rnd() % 4);
	for (int64_t k = 0; k < n; k++)
		add_maybe_null(ab->children[0], add_bin);
	pm_ab_append_list(ab, n);
}
static pm_array_builder *mk_fsl(const char *fmt)
{
	(void)fmt;
	return pm_ab_new_fixed_list(pm_ab_new_fixed("s", 2), 3);
}
static void add_fsl(pm_array_builder *ab)
{
	for (int k = 0; k < 3; k++)
		add_maybe_null(ab->children[0], add_fixed);
	pm_ab_append_valid(ab, 1);
}
static pm_array_builder *mk_struct(const char *fmt)
{
	(void)fmt;
	pm_array_builder *ch[3] = {pm_ab_new_fixed("i", 4), pm_ab_new_binary("u", 0), pm_ab_new_bool()};
	return pm_ab_new_struct(ch, 3);
}
static void add_struct(pm_array_builder *ab)
{
	add_maybe_null(ab->children[0], add_fixed);
	add_maybe_null(ab->children[1], add_bin);
	add_maybe_null(ab->children[2], add_bool);
	pm_ab_append_valid(ab, 1);
}
static pm_array_builder *mk_map(const char *fmt)
{
	(void)fmt;
	return pm_ab_new_map(pm_ab_new_binary("u", 0), pm_ab_new_fixed("l", 8), 0);
}
static void add_map(pm_array_builder *ab)
{
	int64_t n = (int64_t)(rnd() % 3);
	pm_array_builder *e = ab->children[0];
	for (int64_t k = 0; k < n; k++) {
		add_bin(e->children[0]);
		add_maybe_null(e->children[1], add_fixed);
		pm_ab_append_valid(e, 1);
	}
	pm_ab_append_list(ab, n);
}
static pm_array_builder *mk_list_list(const char *fmt)
{
	(void)fmt;
	return pm_ab_new_list(pm_ab_new_list(pm_ab_new_fixed("l", 8), 0), 0);
}
static void add_list_list(pm_array_builder *ab)
{
	int64_t n = (int64_t)(rnd() % 3);
	for (int64_t k = 0; k < n; k++)
		add_maybe_null(ab->children[0], add_list_i);
	pm_ab_append_list(ab, n);
}

static const col COLS[] = {
	{"b", mk_bool, add_bool},        {"c", mk_fixed, add_fixed},     {"C", mk_fixed, add_fixed},
	{"s", mk_fixed, add_fixed},      {"S", mk_fixed, add_fixed},     {"i", mk_fixed, add_fixed},
	{"I", mk_fixed, add_fixed},      {"l", mk_fixed, add_fixed},     {"L", mk_fixed, add_fixed},
	{"e", mk_fixed, add_fixed},      {"f", mk_fixed, add_fixed},     {"g", mk_fixed, add_fixed},
	{"tdD", mk_fixed, add_fixed},    {"tdm", mk_fixed, add_fixed},   {"tts", mk_fixed, add_fixed},
	{"ttm", mk_fixed, add_fixed},    {"ttu", mk_fixed, add_fixed},   {"ttn", mk_fixed, add_fixed},
	{"tss:", mk_fixed, add_fixed},   {"tsm:UTC", mk_fixed, add_fixed}, {"tsu:Asia/Tokyo", mk_fixed, add_fixed},
	{"tsn:", mk_fixed, add_fixed},   {"d:10,2", mk_fixed, add_fixed}, {"d:38,10", mk_fixed, add_fixed},
	{"d:60,3,256", mk_fixed, add_fixed}, {"w:5", mk_fixed, add_fixed}, {"u", mk_bin, add_bin},
	{"U", mk_bin, add_bin},          {"z", mk_bin, add_bin},         {"Z", mk_bin, add_bin},
	{"+l", mk_list_i, add_list_i},   {"+L", mk_list_u, add_list_u},  {"+w:3", mk_fsl, add_fsl},
	{"+s", mk_struct, add_struct},   {"+m", mk_map, add_map},        {"+l", mk_list_list, add_list_list},
};
#define NCOLS (sizeof COLS / sizeof COLS[0])

/* A hand-assembled struct batch: columns are independent arrays with their
 * own offsets, plus one null-type column. */
typedef struct batch {
	struct ArrowSchema schema;
	struct ArrowArray array;
	struct ArrowArray cols[NCOLS + 1];
	struct ArrowArray *col_ptrs[NCOLS + 1];
	const void *bufs[1];
	uint8_t validity[256];
} batch;

static void batch_release(struct ArrowArray *a)
{
	batch *b = a->private_data;
	for (size_t c = 0; c < NCOLS; c++)
		if (b->cols[c].release)
			b->cols[c].release(&b->cols[c]);
	a->release = NULL;
}

static void null_release(struct ArrowArray *a)
{
	a->release = NULL;
}

/* rows = struct length after struct offset soff; null_pct: % of null values. */
static void make_batch(batch *b, int64_t rows, int64_t soff, int null_pct, int struct_nulls)
{
	int64_t total = rows + soff;
	memset(b, 0, sizeof *b);
	if (pm_aschema_init(&b->schema, "+s", "", 0, (int64_t)NCOLS + 1))
		abort();
	for (size_t c = 0; c < NCOLS; c++) {
		pm_array_builder *ab = COLS[c].make(COLS[c].fmt);
		struct ArrowSchema cs;
		int64_t lead = (int64_t)(rnd() % 5);
		for (int64_t r = 0; r < lead + total; r++) {
			if ((int)(rnd() % 100) < null_pct)
				pm_ab_append_nulls(ab, 1);
			else
				COLS[c].add(ab);
		}
		char nm[16];
		snprintf(nm, sizeof nm, "c%zu", c);
		if (pm_ab_set_name(ab, nm, 1) || pm_ab_finish(ab, &b->cols[c]) || pm_ab_schema(ab, &cs))
			abort();
		b->cols[c].offset = lead;
		b->cols[c].length -= lead;
		if (rnd() % 2)
			b->cols[c].null_count = -1; /* unknown: the bitmap decides */
		/* move the schema node into the struct's child */
		*b->schema.children[c] = cs;
		pm_ab_free(ab);
		b->col_ptrs[c] = &b->cols[c];
	}
	/* null column */
	if (pm_aschema_init(b->schema.children[NCOLS], "n", "nul", ARROW_FLAG_NULLABLE, 0))
		abort();
	b->cols[NCOLS].length = total;
	b->cols[NCOLS].null_count = total;
	b->cols[NCOLS].release = null_release;
	b->col_ptrs[NCOLS] = &b->cols[NCOLS];

	for (int64_t r = 0; r < total && r < 2048; r++)
		if (!struct_nulls || rnd() % 7)
			b->validity[r >> 3] |= (uint8_t)(1u << (r & 7));
	b->bufs[0] = struct_nulls ? b->validity : NULL;
	b->array.length = rows;
	b->array.offset = soff;
	b->array.null_count = struct_nulls ? -1 : 0;
	b->array.n_buffers = 1;
	b->array.buffers = b->bufs;
	b->array.n_children = (int64_t)NCOLS + 1;
	b->array.children = b->col_ptrs;
	b->array.release = batch_release;
	b->array.private_data = b;
}

static void batch_free(batch *b)
{
	b->array.release(&b->array);
	b->schema.release(&b->schema);
}

static void check_filtered(const batch *b, const uint8_t *sel, const struct ArrowArray *out)
{
	int64_t m = 0;
	CHECK(out->length == pm_arrow_sel_count(sel, b->array.length));
	CHECK(out->n_children == b->array.n_children);
	CHECK(well_formed(&b->schema, out));
	for (int64_t i = 0; i < b->array.length; i++) {
		if (!sel[i])
			continue;
		if (m >= out->length)
			break;
		/* the struct's own validity */
		CHECK(is_valid(&b->schema, &b->array, i) == is_valid(&b->schema, out, m));
		for (int64_t c = 0; c < out->n_children; c++) {
			int ok = cell_eq(b->schema.children[c], b->array.children[c], b->array.offset + i, out->children[c],
					 out->offset + m);
			if (!ok) {
				fprintf(stderr, "  column %s (%s) input row %lld output row %lld differs\n",
					b->schema.children[c]->name, b->schema.children[c]->format, (long long)i,
					(long long)m);
				CHECK(ok);
				return;
			}
		}
		m++;
	}
	CHECK(m == out->length);
}

static void test_filter_random(void)
{
	for (int iter = 0; iter < 60; iter++) {
		batch b;
		int64_t rows = (int64_t)(rnd() % 300);
		int null_pct = iter % 3 == 0 ? 0 : (int)(rnd() % 60);
		make_batch(&b, rows, (int64_t)(rnd() % 11), null_pct, iter % 2);
		uint8_t *sel = malloc((size_t)rows + 1);
		int mode = iter % 4; /* random, none, all, sparse */
		for (int64_t i = 0; i < rows; i++)
			sel[i] = (uint8_t)(mode == 0 ? rnd() % 2 : mode == 1 ? 0 : mode == 2 ? 1 : rnd() % 17 == 0);
		struct ArrowArray out;
		int rc = pm_arrow_filter(&b.schema, &b.array, sel, &out);
		CHECK_OK(rc);
		if (!rc) {
			check_filtered(&b, sel, &out);
			out.release(&out);
			CHECK(out.release == NULL);
		}
		/* head */
		int64_t n = rows ? (int64_t)(rnd() % (uint64_t)(rows + 1)) : 0;
		rc = pm_arrow_head(&b.schema, &b.array, n, &out);
		CHECK_OK(rc);
		if (!rc) {
			for (int64_t i = 0; i < rows; i++)
				sel[i] = i < n;
			check_filtered(&b, sel, &out);
			out.release(&out);
		}
		free(sel);
		batch_free(&b);
	}
}

/* Filtering a single column (not a struct), with an offset that is not a
 * multiple of 8 and a validity bitmap, and filtering a filtered result. */
static void test_filter_plain_columns(void)
{
	for (size_t c = 0; c < NCOLS; c++) {
		pm_array_builder *ab = COLS[c].make(COLS[c].fmt);
		struct ArrowArray a, out, out2;
		struct ArrowSchema s;
		for (int r = 0; r < 77; r++)
			add_maybe_null(ab, COLS[c].add);
		CHECK_OK(pm_ab_finish(ab, &a));
		CHECK_OK(pm_ab_schema(ab, &s));
		pm_ab_free(ab);
		a.offset = 5;
		a.length -= 5;
		uint8_t sel[80];
		for (int r = 0; r < 72; r++)
			sel[r] = (uint8_t)(r % 3 != 1);
		CHECK_OK(pm_arrow_filter(&s, &a, sel, &out));
		CHECK(out.length == pm_arrow_sel_count(sel, 72));
		CHECK(well_formed(&s, &out));
		for (int r = 0, m = 0; r < 72; r++)
			if (sel[r]) {
				if (!cell_eq(&s, &a, r, &out, m))
					fprintf(stderr, "  format %s row %d\n", COLS[c].fmt, r);
				CHECK(cell_eq(&s, &a, r, &out, m));
				m++;
			}
		for (int r = 0; r < out.length; r++)
			sel[r] = (uint8_t)(r % 2);
		CHECK_OK(pm_arrow_filter(&s, &out, sel, &out2));
		for (int r = 1, m = 0; r < out.length; r += 2, m++)
			CHECK(cell_eq(&s, &out, r, &out2, m));
		out2.release(&out2);
		out.release(&out);
		a.release(&a);
		s.release(&s);
	}
}

static void test_filter_errors(void)
{
	struct ArrowSchema s;
	struct ArrowArray a, out;
	pm_array_builder *ab = pm_ab_new_fixed("i", 4);
	int32_t v[3] = {1, 2, 3};
	uint8_t sel[3] = {1, 0, 1};
	pm_ab_append_fixed(ab, v, 3);
	CHECK_OK(pm_ab_finish(ab, &a));
	pm_ab_free(ab);
	/* dictionary-encoded */
	CHECK_OK(pm_aschema_init(&s, "i", "d", 0, 0));
	struct ArrowSchema dict;
	CHECK_OK(pm_aschema_init(&dict, "u", "", 0, 0));
	s.dictionary = &dict;
	CHECK_RC(pm_arrow_filter(&s, &a, sel, &out), PAIMON_EUNSUPPORTED);
	CHECK_MSG("dictionary");
	CHECK(out.release == NULL);
	s.dictionary = NULL;
	dict.release(&dict);
	s.release(&s);
	/* a union */
	CHECK_OK(pm_aschema_init(&s, "+us:0", "un", 0, 0));
	CHECK_RC(pm_arrow_filter(&s, &a, sel, &out), PAIMON_EUNSUPPORTED);
	CHECK_MSG("+us:0");
	s.release(&s);
	/* head beyond the end */
	CHECK_OK(pm_aschema_init(&s, "i", "x", 0, 0));
	CHECK_RC(pm_arrow_head(&s, &a, 4, &out), PAIMON_EINVAL);
	CHECK_OK(pm_arrow_head(&s, &a, 0, &out));
	CHECK(out.length == 0 && out.release);
	out.release(&out);
	s.release(&s);
	a.release(&a);
	/* OOM at every allocation leaks nothing and reports ENOMEM */
	{
		batch b;
		make_batch(&b, 40, 3, 30, 1);
		uint8_t bsel[40];
		for (int i = 0; i < 40; i++)
			bsel[i] = (uint8_t)(i % 3 == 0);
		for (long k = 1;; k++) {
			pm_mem_fail_at(k);
			int rc = pm_arrow_filter(&b.schema, &b.array, bsel, &out);
			pm_mem_fail_at(0);
			if (rc == 0) {
				check_filtered(&b, bsel, &out);
				out.release(&out);
				break;
			}
			CHECK_RC(rc, PAIMON_ENOMEM);
			if (rc != PAIMON_ENOMEM || k > 100000)
				break;
		}
		batch_free(&b);
	}
}

TEST_MAIN(T(test_filter_random), T(test_filter_plain_columns), T(test_filter_errors))
