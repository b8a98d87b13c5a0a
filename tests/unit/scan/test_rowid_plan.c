/*
 * tests/unit/scan/test_rowid_plan.c - row-id group planning (scan/rowid_plan):
 * grouping of overlapping row-id ranges as pypaimon's RangeHelper does
 * (overlap merges, touching does not, transitive chains, scan order inside
 * a group), files without row ids, the batch accumulation rule of
 * process_row_id_ranges (the notes' example: 8 over [0,9],[10,15]), a
 * randomized comparison with a brute-force grouping, and the public API on
 * real tables (paimon_table_plan_row_id_ranges / paimon_table_list_data_files).
 */
#include "test.h"
#include "paimonc/paimonc.h"
#include "arrow/arrow_builder.h"
#include "core/mem.h"
#include "scan/rowid_plan.h"

#include <stdlib.h>
#include <string.h>

/* files: n (first_row_id, row_count) pairs; first_row_id < 0: none. */
static void make_files(pm_manifest_entry_list *l, const int64_t *spec, size_t n)
{
	size_t i;
	memset(l, 0, sizeof *l);
	for (i = 0; i < n; i++) {
		pm_manifest_entry *e = pm_manifest_entry_list_push(l);
		char name[32];
		CHECK(e != NULL);
		snprintf(name, sizeof name, "f%zu", i);
		e->file.file_name = pm_strdup(name);
		e->file.row_count = spec[2 * i + 1];
		if (spec[2 * i] >= 0) {
			e->file.has_first_row_id = 1;
			e->file.first_row_id = spec[2 * i];
		}
	}
}

static int file_no(const pm_rowid_plan *p, size_t i)
{
	return atoi(p->files.items[i].file.file_name + 1);
}

static void test_grouping(void)
{
	/* f0 [10,19]  f1 [0,9]  f2 [0,9] (partial-column file of f1's rows)
	 * f3 [20,24] touches f0 only  f4 [22,30] overlaps f3  f5 [31,31]
	 * f6 no row id  f7 [5,12] bridges f1/f2 and f0 */
	static const int64_t spec[] = {10, 10, 0, 10, 0, 10, 20, 5, 22, 9, 31, 1, -1, 3, 5, 8};
	pm_manifest_entry_list l;
	pm_rowid_plan p;
	make_files(&l, spec, 8);
	CHECK_OK(pm_rowid_plan_from_files(&l, 7, 0, &p));
	CHECK(l.len == 0 && l.items == NULL);
	CHECK(p.snapshot_id == 7);
	CHECK(p.n_groups == 3);
	CHECK(p.groups[0].from == 0 && p.groups[0].to == 19 && p.groups[0].first_file == 0 && p.groups[0].n_files == 4);
	CHECK(p.groups[1].from == 20 && p.groups[1].to == 30 && p.groups[1].first_file == 4 && p.groups[1].n_files == 2);
	CHECK(p.groups[2].from == 31 && p.groups[2].to == 31 && p.groups[2].n_files == 1);
	CHECK(p.n_grouped == 7 && p.files.len == 8);
	/* scan order inside a group: f0 f1 f2 f7 */
	CHECK(file_no(&p, 0) == 0 && file_no(&p, 1) == 1 && file_no(&p, 2) == 2 && file_no(&p, 3) == 7);
	CHECK(file_no(&p, 4) == 3 && file_no(&p, 5) == 4 && file_no(&p, 6) == 5 && file_no(&p, 7) == 6);
	pm_rowid_plan_dispose(&p);
}

static void test_require_row_ids(void)
{
	static const int64_t none[] = {0, 4, -1, 3};
	static const int64_t empty[] = {0, 4, 4, 0};
	pm_manifest_entry_list l;
	pm_rowid_plan p;
	make_files(&l, none, 2);
	CHECK_RC(pm_rowid_plan_from_files(&l, 1, 1, &p), PAIMON_EINVAL);
	CHECK_MSG("data file 'f1' has no first row id");
	CHECK(l.len == 0 && p.n_groups == 0 && p.files.len == 0);
	make_files(&l, empty, 2);
	CHECK_RC(pm_rowid_plan_from_files(&l, 1, 1, &p), PAIMON_EINVAL);
	CHECK_MSG("data file 'f1' (first row id 4) has no rows");
	/* listing: kept ungrouped */
	make_files(&l, empty, 2);
	CHECK_OK(pm_rowid_plan_from_files(&l, 1, 0, &p));
	CHECK(p.n_groups == 1 && p.n_grouped == 1 && p.files.len == 2);
	pm_rowid_plan_dispose(&p);
	/* overflow of first_row_id + row_count */
	{
		const int64_t big[] = {INT64_MAX - 1, 5};
		make_files(&l, big, 1);
		CHECK_RC(pm_rowid_plan_from_files(&l, 1, 1, &p), PAIMON_ECORRUPT);
		CHECK_MSG("overflows");
	}
	/* nothing */
	memset(&l, 0, sizeof l);
	CHECK_OK(pm_rowid_plan_from_files(&l, -1, 1, &p));
	CHECK(p.n_groups == 0 && p.files.len == 0);
	CHECK_OK(pm_rowid_plan_batches(&p, 3));
	CHECK(p.n_batches == 0);
	pm_rowid_plan_dispose(&p);
}

/* Batches of groups with these row counts (consecutive ranges). */
static void batches_of(const int64_t *rows, size_t n, int64_t per, const size_t *want_start, size_t want_n)
{
	pm_manifest_entry_list l;
	pm_rowid_plan p;
	int64_t *spec = calloc(2 * n + 1, sizeof *spec), at = 0;
	size_t i;
	CHECK(spec != NULL);
	for (i = 0; i < n; i++) {
		spec[2 * i] = at;
		spec[2 * i + 1] = rows[i];
		at += rows[i];
	}
	make_files(&l, spec, n);
	CHECK_OK(pm_rowid_plan_from_files(&l, 1, 1, &p));
	CHECK(p.n_groups == n);
	CHECK_OK(pm_rowid_plan_batches(&p, per));
	CHECK(p.n_batches == want_n);
	for (i = 0; i <= want_n && p.n_batches == want_n; i++)
		CHECK(p.batch_start[i] == want_start[i]);
	pm_rowid_plan_dispose(&p);
	free(spec);
}

static void test_batches(void)
{
	/* the notes: rows_per_commit=8 over [0,9] and [10,15] -> [(0,9)] then [(10,15)] */
	static const int64_t r1[] = {10, 6};
	static const size_t w1[] = {0, 1, 2}, w2[] = {0, 2}, w3[] = {0, 2};
	static const int64_t r2[] = {3, 3, 3, 3, 3};
	static const size_t w4[] = {0, 2, 4, 5}, w5[] = {0, 1, 2, 3, 4, 5}, w6[] = {0, 5};
	pm_rowid_plan p;
	batches_of(r1, 2, 8, w1, 2);
	batches_of(r1, 2, 16, w2, 1);  /* reaches 16 exactly with both */
	batches_of(r1, 2, 17, w3, 1);  /* never reaches: one last batch */
	batches_of(r2, 5, 5, w4, 3);   /* 3+3 >= 5, 3+3 >= 5, 3 */
	batches_of(r2, 5, 1, w5, 5);
	batches_of(r2, 5, 1000, w6, 1);
	memset(&p, 0, sizeof p);
	CHECK_RC(pm_rowid_plan_batches(&p, 0), PAIMON_EINVAL);
	CHECK_MSG("positive");
	CHECK_RC(pm_rowid_plan_batches(&p, -5), PAIMON_EINVAL);
}

/* Brute force: row r and r+1 are in one group iff some file holds both. */
static void test_random_against_brute_force(void)
{
	unsigned seed = 12345;
	int round;
	for (round = 0; round < 300; round++) {
		enum { N = 12, MAXR = 64 };
		int64_t spec[2 * N];
		int in[MAXR + 2] = {0}, link[MAXR + 2] = {0};
		size_t n = 1 + (size_t)(rand_r(&seed) % N), i, g;
		int64_t r, want_groups = 0;
		pm_manifest_entry_list l;
		pm_rowid_plan p;
		for (i = 0; i < n; i++) {
			int64_t from = rand_r(&seed) % 50, cnt = 1 + rand_r(&seed) % 12;
			spec[2 * i] = from;
			spec[2 * i + 1] = cnt;
			for (r = from; r < from + cnt; r++) {
				in[r] = 1;
				if (r + 1 < from + cnt)
					link[r] = 1;
			}
		}
		for (r = 0; r < MAXR; r++)
			if (in[r] && (r == 0 || !in[r - 1] || !link[r - 1]))
				want_groups++;
		make_files(&l, spec, n);
		CHECK_OK(pm_rowid_plan_from_files(&l, 1, 1, &p));
		CHECK((int64_t)p.n_groups == want_groups);
		for (g = 0; g < p.n_groups; g++) {
			const pm_rowid_group *G = &p.groups[g];
			CHECK(G->from == 0 || !in[G->from - 1] || !link[G->from - 1]);
			CHECK(!link[G->to]);
			for (r = G->from; r < G->to; r++)
				CHECK(in[r] && link[r]);
			for (i = G->first_file; i < G->first_file + G->n_files; i++) {
				const pm_data_file_meta *f = &p.files.items[i].file;
				CHECK(f->first_row_id >= G->from && f->first_row_id + f->row_count - 1 <= G->to);
				if (i > G->first_file)
					CHECK(file_no(&p, i - 1) < file_no(&p, i));
			}
			if (g)
				CHECK(p.groups[g - 1].to < G->from);
		}
		CHECK(p.n_grouped == n);
		pm_rowid_plan_dispose(&p);
	}
}

/* ------------------------------------------------------------ public API */

static paimon_table *make_table(const char *dir, int row_tracking)
{
	paimon_options *o = NULL;
	paimon_catalog *c = NULL;
	paimon_schema_spec *sp = NULL;
	paimon_table *t = NULL;
	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "warehouse", dir));
	CHECK_OK(paimon_catalog_open(&c, o));
	paimon_options_free(o);
	CHECK_OK(paimon_catalog_create_database(c, "db", 1));
	CHECK_OK(paimon_schema_spec_new(&sp));
	CHECK_OK(paimon_schema_spec_add_columns(sp, "id INT, dt STRING"));
	{
		const char *keys[] = {"dt"};
		CHECK_OK(paimon_schema_spec_set_partition_keys(sp, keys, 1));
	}
	if (row_tracking) {
		CHECK_OK(paimon_schema_spec_set_option(sp, "row-tracking.enabled", "true"));
		CHECK_OK(paimon_schema_spec_set_option(sp, "data-evolution.enabled", "true"));
	}
	CHECK_OK(paimon_catalog_create_table(c, "db.t", sp, 0));
	CHECK_OK(paimon_catalog_get_table(c, "db.t", &t));
	paimon_schema_spec_free(sp);
	paimon_catalog_free(c);
	return t;
}

/* Appends n rows (ids from `first`) in partition dt and commits. */
static void write_rows(paimon_table *t, int32_t first, int n, const char *dt)
{
	pm_array_builder *ch[2], *st;
	struct ArrowArray a;
	struct ArrowSchema s;
	paimon_table_write *w = NULL;
	paimon_table_commit *c = NULL;
	paimon_commit_message *m = NULL;
	int i;
	ch[0] = pm_ab_new_fixed("i", 4);
	ch[1] = pm_ab_new_binary("u", 0);
	CHECK(ch[0] && ch[1]);
	CHECK_OK(pm_ab_set_name(ch[0], "id", 1));
	CHECK_OK(pm_ab_set_name(ch[1], "dt", 1));
	for (i = 0; i < n; i++) {
		int32_t v = first + i;
		CHECK_OK(pm_ab_append_fixed(ch[0], &v, 1));
		CHECK_OK(pm_ab_append_binary(ch[1], dt, strlen(dt)));
	}
	st = pm_ab_new_struct(ch, 2);
	CHECK(st != NULL);
	CHECK_OK(pm_ab_append_valid(st, n));
	CHECK_OK(pm_ab_schema(st, &s));
	CHECK_OK(pm_ab_finish(st, &a));
	pm_ab_free(st);
	CHECK_OK(paimon_table_write_new(&w, t, NULL));
	CHECK_OK(paimon_table_write_arrow(w, &a, &s));
	a.release(&a);
	s.release(&s);
	CHECK_OK(paimon_table_write_prepare_commit(w, &m));
	CHECK_OK(paimon_table_commit_new(&c, t, NULL));
	CHECK_OK(paimon_table_commit_apply(c, &m, 1, INT64_MAX, NULL));
	paimon_commit_message_free(m);
	paimon_table_commit_free(c);
	paimon_table_write_free(w);
}

static void test_public_api(void)
{
	char *dir = test_tmpdir();
	paimon_table *t = make_table(dir, 1);
	paimon_row_id_plan *p = NULL;
	paimon_data_file_info fi;
	const int64_t *pairs;
	int64_t from, to;
	size_t first, nf;

	CHECK_OK(paimon_table_plan_row_id_ranges(t, -1, 8, &p));
	CHECK(paimon_row_id_plan_snapshot_id(p) == -1 && paimon_row_id_plan_group_count(p) == 0);
	CHECK(paimon_row_id_plan_batch_count(p) == 0);
	paimon_row_id_plan_free(p);

	write_rows(t, 0, 10, "a");
	write_rows(t, 10, 6, "b");
	CHECK_OK(paimon_table_plan_row_id_ranges(t, -1, 8, &p));
	CHECK(paimon_row_id_plan_snapshot_id(p) == 2);
	CHECK(paimon_row_id_plan_group_count(p) == 2);
	CHECK_OK(paimon_row_id_plan_group(p, 1, &from, &to, &first, &nf));
	CHECK(from == 10 && to == 15 && first == 1 && nf == 1);
	CHECK_RC(paimon_row_id_plan_group(p, 2, NULL, NULL, NULL, NULL), PAIMON_EINVAL);
	CHECK_MSG("out of range");
	CHECK(paimon_row_id_plan_batch_count(p) == 2);
	CHECK(paimon_row_id_plan_batch(p, 0, &pairs) == 1 && pairs[0] == 0 && pairs[1] == 9);
	CHECK(paimon_row_id_plan_batch(p, 1, &pairs) == 1 && pairs[0] == 10 && pairs[1] == 15);
	CHECK(paimon_row_id_plan_batch(p, 2, &pairs) == 0 && pairs == NULL);
	CHECK(paimon_row_id_plan_file_count(p) == 2);
	CHECK_OK(paimon_row_id_plan_file(p, 1, &fi));
	CHECK(fi.group == 1 && fi.first_row_id == 10 && fi.row_count == 6 && fi.schema_id == 0);
	CHECK(fi.file_size > 0 && !fi.has_write_cols && fi.name && strstr(fi.name, ".parquet"));
	CHECK_STR(fi.partition, "dt=b");
	CHECK_RC(paimon_row_id_plan_file(p, 2, &fi), PAIMON_EINVAL);
	paimon_row_id_plan_free(p);

	CHECK_OK(paimon_table_plan_row_id_ranges(t, 1, 8, &p)); /* time travel */
	CHECK(paimon_row_id_plan_snapshot_id(p) == 1 && paimon_row_id_plan_group_count(p) == 1);
	paimon_row_id_plan_free(p);
	CHECK_OK(paimon_table_plan_row_id_ranges(t, -1, 16, &p));
	CHECK(paimon_row_id_plan_batch_count(p) == 1 && paimon_row_id_plan_batch(p, 0, &pairs) == 2);
	paimon_row_id_plan_free(p);

	CHECK(paimon_table_plan_row_id_ranges(t, 99, 8, &p) < 0);
	CHECK_MSG("99");
	CHECK_RC(paimon_table_plan_row_id_ranges(t, -1, 0, &p), PAIMON_EINVAL);
	CHECK_MSG("db.t");
	CHECK_RC(paimon_table_plan_row_id_ranges(NULL, -1, 1, &p), PAIMON_EINVAL);
	paimon_table_free(t);
	free(dir);

	dir = test_tmpdir();
	t = make_table(dir, 0);
	CHECK_RC(paimon_table_plan_row_id_ranges(t, -1, 8, &p), PAIMON_EINVAL);
	CHECK_MSG("'row-tracking.enabled' = 'true'");
	write_rows(t, 0, 3, "a");
	CHECK_OK(paimon_table_list_data_files(t, -1, &p));
	CHECK(paimon_row_id_plan_group_count(p) == 0 && paimon_row_id_plan_file_count(p) == 1);
	CHECK_OK(paimon_row_id_plan_file(p, 0, &fi));
	CHECK(fi.group == -1 && fi.first_row_id == -1 && fi.row_count == 3);
	CHECK_STR(fi.partition, "dt=a");
	paimon_row_id_plan_free(p);
	paimon_row_id_plan_free(NULL);
	paimon_table_free(t);
	free(dir);
}

TEST_MAIN(T(test_grouping), T(test_require_row_ids), T(test_batches), T(test_random_against_brute_force),
	  T(test_public_api))
