/*
 * tests/unit/table/test_scan.c - scan planning: snapshots and time travel,
 * partition and statistics pruning, split packing (row-id groups kept
 * together) and serialization, corrupt / missing metadata errors.
 */
#include "scanfix.h"
#include "scan/scan.h"
#include "table/predicate.h"

#include <time.h>

static int64_t T0;

/* Three commits: ids 0..29 in dt=a, 100..129 in dt=b per commit (two
 * files each commit, one per partition; 10 rows per file... see below). */
static void build(fx *f)
{
	int c;
	CHECK_OK(fx_init(f, "id BIGINT, name STRING, dt STRING", "dt"));
	CHECK_OK(pm_scan_parse_local_timestamp("2024-01-01 00:00:00", &T0));
	for (c = 0; c < 3; c++) {
		CHECK_OK(fx_write_file(f, "a", c * 10, 10));
		CHECK_OK(fx_write_file(f, "b", 100 + c * 10, 10));
		CHECK_OK(fx_commit(f, T0 + (c + 1) * 1000));
	}
}

static int plan(fx *f, pm_strmap *opts, const char *filter, pm_scan_plan *p)
{
	pm_predicate *pred = NULL;
	int rc;
	memset(p, 0, sizeof *p);
	p->snapshot_id = -1;
	if (filter) {
		if ((rc = pm_pred_parse(filter, &pred)) != 0)
			return rc;
		if ((rc = pm_pred_bind(pred, f->schema)) != 0) {
			pm_pred_free(pred);
			return rc;
		}
	}
	rc = pm_scan_plan_run(f->io, f->table, f->schema, opts, pred, NULL, p);
	pm_pred_free(pred);
	return rc;
}

static int64_t plan_rows(const pm_scan_plan *p)
{
	int64_t n = 0;
	size_t i;
	for (i = 0; i < p->n_splits; i++)
		n += p->splits[i]->row_count;
	return n;
}

static void test_latest_and_splits(void)
{
	fx f;
	pm_scan_plan p;
	pm_strmap o = {0};
	build(&f);
	CHECK_OK(plan(&f, NULL, NULL, &p));
	CHECK(p.snapshot_id == 3);
	CHECK(p.files_total == 6 && p.files_selected == 6);
	CHECK(p.n_splits == 2); /* one per partition, all files packed */
	CHECK(plan_rows(&p) == 60);
	CHECK(p.n_splits == 2 && p.splits[0]->entries.len == 3);
	pm_scan_plan_dispose(&p);

	/* each file weighs open-file-cost (4 MiB) > target: one split per file */
	pm_strmap_set(&o, "source.split.target-size", "1mb");
	CHECK_OK(plan(&f, &o, NULL, &p));
	CHECK(p.n_splits == 6);
	pm_scan_plan_dispose(&p);
	/* 2 files per split */
	pm_strmap_set(&o, "source.split.target-size", "8 mb");
	CHECK_OK(plan(&f, &o, NULL, &p));
	CHECK(p.n_splits == 4);
	pm_scan_plan_dispose(&p);
	pm_strmap_set(&o, "source.split.target-size", "lots");
	CHECK_RC(plan(&f, &o, NULL, &p), PAIMON_EINVAL);
	CHECK_MSG("source.split.target-size");
	pm_strmap_dispose(&o);
	fx_dispose(&f);
}

static void test_time_travel(void)
{
	fx f;
	pm_scan_plan p;
	pm_strmap o = {0};
	pm_snapshot *s1 = NULL;
	char buf[64];
	build(&f);

	pm_strmap_set(&o, "scan.snapshot-id", "2");
	CHECK_OK(plan(&f, &o, NULL, &p));
	CHECK(p.snapshot_id == 2 && p.files_selected == 4 && plan_rows(&p) == 40);
	pm_scan_plan_dispose(&p);

	pm_strmap_set(&o, "scan.snapshot-id", "9");
	CHECK_RC(plan(&f, &o, NULL, &p), PAIMON_ENOTFOUND);
	CHECK_MSG("1..3");
	pm_strmap_remove(&o, "scan.snapshot-id");

	CHECK_OK(pm_snapshot_load(f.io, f.table, 1, &s1));
	CHECK_OK(pm_tag_create(f.io, f.table, "v1", s1, 0));
	pm_snapshot_free(s1);
	pm_strmap_set(&o, "scan.tag-name", "v1");
	CHECK_OK(plan(&f, &o, NULL, &p));
	CHECK(p.snapshot_id == 1 && p.files_selected == 2);
	pm_scan_plan_dispose(&p);
	pm_strmap_set(&o, "scan.tag-name", "nope");
	CHECK_RC(plan(&f, &o, NULL, &p), PAIMON_ENOTFOUND);
	CHECK_MSG("nope");
	pm_strmap_remove(&o, "scan.tag-name");

	snprintf(buf, sizeof buf, "%lld", (long long)(T0 + 2500));
	pm_strmap_set(&o, "scan.timestamp-millis", buf);
	CHECK_OK(plan(&f, &o, NULL, &p));
	CHECK(p.snapshot_id == 2);
	pm_scan_plan_dispose(&p);
	snprintf(buf, sizeof buf, "%lld", (long long)(T0 + 3000));
	pm_strmap_set(&o, "scan.timestamp-millis", buf);
	CHECK_OK(plan(&f, &o, NULL, &p));
	CHECK(p.snapshot_id == 3);
	pm_scan_plan_dispose(&p);
	snprintf(buf, sizeof buf, "%lld", (long long)(T0 + 10));
	pm_strmap_set(&o, "scan.timestamp-millis", buf);
	CHECK_RC(plan(&f, &o, NULL, &p), PAIMON_ENOTFOUND);
	CHECK_MSG("scan.timestamp-millis");

	/* both set */
	pm_strmap_set(&o, "scan.snapshot-id", "1");
	CHECK_RC(plan(&f, &o, NULL, &p), PAIMON_EINVAL);
	CHECK_MSG("at most one");
	pm_strmap_dispose(&o);
	memset(&o, 0, sizeof o);

	pm_strmap_set(&o, "scan.timestamp", "2024-01-01 00:00:01.500");
	CHECK_OK(plan(&f, &o, NULL, &p));
	CHECK(p.snapshot_id == 1);
	pm_scan_plan_dispose(&p);
	pm_strmap_set(&o, "scan.timestamp", "2024-01-01 00:00:02");
	CHECK_OK(plan(&f, &o, NULL, &p));
	CHECK(p.snapshot_id == 2);
	pm_scan_plan_dispose(&p);
	pm_strmap_set(&o, "scan.timestamp", "yesterday");
	CHECK_RC(plan(&f, &o, NULL, &p), PAIMON_EINVAL);
	CHECK_MSG("yesterday");
	pm_strmap_dispose(&o);
	fx_dispose(&f);
}

static void test_pruning(void)
{
	fx f;
	pm_scan_plan p;
	build(&f);
	CHECK_OK(plan(&f, NULL, "dt = 'a'", &p));
	CHECK(p.files_total == 6);
	CHECK(p.files_selected == 3);
	CHECK(p.n_splits == 1 && plan_rows(&p) == 30);
	pm_scan_plan_dispose(&p);

	/* stats: ids 0..9 / 10..19 / 20..29 in a, 100.. in b */
	CHECK_OK(plan(&f, NULL, "id >= 12 AND id < 15", &p));
	CHECK(p.files_total == 6);
	CHECK(p.files_selected == 1);
	pm_scan_plan_dispose(&p);
	CHECK_OK(plan(&f, NULL, "id = 105 OR dt = 'zz'", &p));
	CHECK(p.files_selected == 1);
	pm_scan_plan_dispose(&p);
	CHECK_OK(plan(&f, NULL, "id > 1000", &p));
	CHECK(p.files_selected == 0 && p.n_splits == 0);
	pm_scan_plan_dispose(&p);
	/* a column with no usable stats never prunes */
	CHECK_OK(plan(&f, NULL, "name IS NULL OR id = 3", &p));
	CHECK(p.files_selected >= 1);
	pm_scan_plan_dispose(&p);
	fx_dispose(&f);
}

static void test_split_serde(void)
{
	fx f;
	pm_scan_plan p;
	pm_buf b = PM_BUF_INIT;
	pm_split *s = NULL;
	size_t i;
	build(&f);
	CHECK_OK(plan(&f, NULL, NULL, &p));
	CHECK(p.n_splits > 0);
	if (p.n_splits) {
		CHECK_OK(pm_split_serialize(p.splits[0], &b));
		CHECK_OK(pm_split_deserialize(b.data, b.len, &s));
		if (s) {
			CHECK(s->snapshot_id == 3 && s->bucket == 0 && s->row_count == p.splits[0]->row_count);
			CHECK(s->entries.len == p.splits[0]->entries.len);
			CHECK(s->partition.n == p.splits[0]->partition.n);
			for (i = 0; i < s->entries.len && i < p.splits[0]->entries.len; i++)
				CHECK_STR(s->entries.items[i].file.file_name, p.splits[0]->entries.items[i].file.file_name);
			pm_split_free(s);
			s = NULL;
		}
		/* every truncation fails cleanly */
		for (i = 0; i < b.len; i++) {
			int rc = pm_split_deserialize(b.data, i, &s);
			CHECK(rc != 0 && s == NULL);
		}
		/* wrong version */
		b.data[4] = 9;
		CHECK_RC(pm_split_deserialize(b.data, b.len, &s), PAIMON_ECORRUPT);
		CHECK_MSG("version");
	}
	pm_buf_dispose(&b);
	pm_scan_plan_dispose(&p);
	fx_dispose(&f);
}

static void test_errors(void)
{
	fx f;
	pm_scan_plan p;
	pm_snapshot *s = NULL;
	char path[8192];
	build(&f);
	/* snapshot pointing at a missing manifest list */
	CHECK_OK(pm_snapshot_load(f.io, f.table, 3, &s));
	if (s) {
		pm_free(s->delta_manifest_list);
		s->delta_manifest_list = pm_strdup("manifest-list-gone-0");
		s->id = 4;
		CHECK_OK(pm_snapshot_commit(f.io, f.table, s));
		pm_snapshot_free(s);
	}
	CHECK(plan(&f, NULL, NULL, &p) != 0);
	CHECK_MSG("manifest-list-gone-0");

	/* corrupt manifest */
	{
		pm_strmap o = {0};
		pm_strmap_set(&o, "scan.snapshot-id", "1");
		CHECK(f.all.len > 0);
		if (f.all.len) {
			snprintf(path, sizeof path, "%s/manifest/%s", f.table, f.all.items[0].file_name);
			CHECK_OK(pm_fileio_write_overwrite(f.io, path, "garbage!", 8));
			CHECK(plan(&f, &o, NULL, &p) != 0);
			CHECK_MSG(f.all.items[0].file_name);
		}
		pm_strmap_dispose(&o);
	}
	fx_dispose(&f);
}

static void test_empty_table(void)
{
	fx f;
	pm_scan_plan p;
	CHECK_OK(fx_init(&f, "id BIGINT", NULL));
	CHECK_OK(plan(&f, NULL, NULL, &p));
	CHECK(p.snapshot_id == -1 && p.n_splits == 0 && p.snapshot == NULL);
	pm_scan_plan_dispose(&p);
	fx_dispose(&f);
}

/* Queues a file of n rows (ids first..) with row ids [rid, rid + n), or
 * without a first row id when rid < 0. */
static void rid_file(fx *f, int64_t first, int64_t n, int64_t rid)
{
	pm_manifest_entry *e;
	CHECK_OK(fx_write_file(f, NULL, first, n));
	CHECK(f->pending.len > 0);
	if (!f->pending.len)
		return;
	e = &f->pending.items[f->pending.len - 1];
	e->file.has_first_row_id = rid >= 0;
	e->file.first_row_id = rid >= 0 ? rid : 0;
}

/* Index of the split holding file `name`, -1 if none (and *pos its place). */
static long split_of(const pm_scan_plan *p, const char *name, size_t *pos)
{
	size_t i, j;
	if (pos)
		*pos = 0;
	for (i = 0; i < p->n_splits; i++)
		for (j = 0; j < p->splits[i]->entries.len; j++)
			if (!strcmp(p->splits[i]->entries.items[j].file.file_name, name)) {
				if (pos)
					*pos = j;
				return (long)i;
			}
	return -1;
}

static const char *fname(int k)
{
	static char b[8][64];
	snprintf(b[k], sizeof b[k], "data-fx-%d-0.parquet", k);
	return b[k];
}

/*
 * Manifest order B E D A F C G (files 0..6):
 *   B [20,30)  E none  D [30,40)  A [0,10)  F [50,60)  C [8,22)  G [50,60)
 * Units: {A, C, B} (C bridges A and B), {E}, {D} (touches B, no overlap),
 * {F, G} (same range).
 */
enum { B_, E_, D_, A_, F_, C_, G_ };

static void build_rid(fx *f)
{
	CHECK_OK(fx_init(f, "id BIGINT, name STRING", NULL));
	rid_file(f, 200, 10, 20);  /* B */
	rid_file(f, 900, 10, -1);  /* E */
	rid_file(f, 300, 10, 30);  /* D */
	rid_file(f, 0, 10, 0);     /* A */
	rid_file(f, 500, 10, 50);  /* F */
	rid_file(f, 80, 14, 8);    /* C */
	rid_file(f, 600, 10, 50);  /* G */
	CHECK_OK(fx_commit(f, 1000));
}

static void test_row_id_groups(void)
{
	static const char *targets[] = {"1", "1mb", "4mb", "6mb", "8mb", "12mb", "16mb", "20mb", "128mb"};
	fx f;
	pm_scan_plan p;
	pm_strmap o = {0};
	size_t t, i, pos;
	build_rid(&f);
	for (t = 0; t < sizeof targets / sizeof targets[0]; t++) {
		int de;
		for (de = 0; de < 2; de++) {
			size_t files = 0;
			pm_strmap_set(&o, "source.split.target-size", targets[t]);
			pm_strmap_set(&o, "data-evolution.enabled", de ? "true" : "false");
			CHECK_OK(plan(&f, &o, NULL, &p));
			for (i = 0; i < p.n_splits; i++) {
				int multi = split_of(&p, fname(A_), NULL) == (long)i ||
					    split_of(&p, fname(F_), NULL) == (long)i;
				files += p.splits[i]->entries.len;
				CHECK(p.splits[i]->kind == (de && multi ? PM_SPLIT_DATA_EVOLUTION : PM_SPLIT_APPEND));
			}
			CHECK(files == 7 && plan_rows(&p) == 74);
			/* units never cut, files of a unit by first row id */
			CHECK(split_of(&p, fname(A_), &pos) == split_of(&p, fname(C_), NULL));
			CHECK(split_of(&p, fname(B_), NULL) == split_of(&p, fname(C_), NULL));
			CHECK(split_of(&p, fname(F_), NULL) == split_of(&p, fname(G_), NULL));
			{
				const pm_split *s = p.splits[split_of(&p, fname(A_), &pos)];
				CHECK(pos + 2 < s->entries.len);
				if (pos + 2 < s->entries.len) {
					CHECK_STR(s->entries.items[pos + 1].file.file_name, fname(C_));
					CHECK_STR(s->entries.items[pos + 2].file.file_name, fname(B_));
				}
			}
			/* units in the manifest order of their first file */
			CHECK(split_of(&p, fname(A_), NULL) <= split_of(&p, fname(E_), NULL));
			CHECK(split_of(&p, fname(E_), NULL) <= split_of(&p, fname(D_), NULL));
			CHECK(split_of(&p, fname(D_), NULL) <= split_of(&p, fname(F_), NULL));
			if (!strcmp(targets[t], "1") || !strcmp(targets[t], "1mb")) {
				/* every unit alone: {A C B} {E} {D} {F G} */
				CHECK(p.n_splits == 4);
			} else if (!strcmp(targets[t], "8mb")) {
				/* {A C B} 12 MiB alone, then E + D, then F + G */
				CHECK(p.n_splits == 3);
				CHECK(split_of(&p, fname(E_), NULL) == split_of(&p, fname(D_), NULL));
			} else if (!strcmp(targets[t], "128mb")) {
				CHECK(p.n_splits == 1);
				if (p.n_splits == 1) {
					static const int want[] = {A_, C_, B_, E_, D_, F_, G_};
					for (i = 0; i < 7 && i < p.splits[0]->entries.len; i++)
						CHECK_STR(p.splits[0]->entries.items[i].file.file_name, fname(want[i]));
				}
			}
			pm_scan_plan_dispose(&p);
		}
	}
	pm_strmap_dispose(&o);
	fx_dispose(&f);
}

/* Row-tracking files that do not overlap (what our writer commits) pack
 * exactly as files without row ids: same splits, same order. */
static void test_row_ids_disjoint_pack_as_before(void)
{
	static const char *targets[] = {"1mb", "8mb", "12mb", "128mb"};
	fx f, g;
	pm_scan_plan p, q;
	pm_strmap o = {0};
	size_t t, i, j;
	int k;
	CHECK_OK(fx_init(&f, "id BIGINT", NULL));
	CHECK_OK(fx_init(&g, "id BIGINT", NULL));
	/* ids in manifest order not sorted by row id */
	for (k = 0; k < 7; k++) {
		int64_t rid = (int64_t)((k * 5) % 7) * 10;
		rid_file(&f, k * 10, 10, rid);
		rid_file(&g, k * 10, 10, -1);
	}
	CHECK_OK(fx_commit(&f, 1000));
	CHECK_OK(fx_commit(&g, 1000));
	for (t = 0; t < sizeof targets / sizeof targets[0]; t++) {
		pm_strmap_set(&o, "source.split.target-size", targets[t]);
		pm_strmap_set(&o, "data-evolution.enabled", "true");
		CHECK_OK(plan(&f, &o, NULL, &p));
		CHECK_OK(plan(&g, &o, NULL, &q));
		CHECK(p.n_splits == q.n_splits);
		for (i = 0; i < p.n_splits && i < q.n_splits; i++) {
			CHECK(p.splits[i]->kind == PM_SPLIT_APPEND);
			CHECK(p.splits[i]->entries.len == q.splits[i]->entries.len);
			for (j = 0; j < p.splits[i]->entries.len && j < q.splits[i]->entries.len; j++)
				CHECK_STR(p.splits[i]->entries.items[j].file.file_name,
					  q.splits[i]->entries.items[j].file.file_name);
		}
		pm_scan_plan_dispose(&p);
		pm_scan_plan_dispose(&q);
	}
	pm_strmap_dispose(&o);
	fx_dispose(&f);
	fx_dispose(&g);
}

/* Split bytes: append splits stay version 1 (older readers and the
 * committed seeds), other kinds are version 2 and keep their kind. */
static void test_split_kind_bytes(void)
{
	fx f;
	pm_scan_plan p;
	pm_strmap o = {0};
	pm_buf b = PM_BUF_INIT;
	pm_split *s = NULL;
	size_t i;
	build_rid(&f);
	pm_strmap_set(&o, "source.split.target-size", "1mb");
	pm_strmap_set(&o, "data-evolution.enabled", "true");
	CHECK_OK(plan(&f, &o, NULL, &p));
	for (i = 0; i < p.n_splits; i++) {
		pm_buf_clear(&b);
		CHECK_OK(pm_split_serialize(p.splits[i], &b));
		CHECK(b.len > 8 && b.data[4] == (p.splits[i]->kind == PM_SPLIT_APPEND ? 1 : 2));
		CHECK_OK(pm_split_deserialize(b.data, b.len, &s));
		if (s) {
			size_t j;
			CHECK(s->kind == p.splits[i]->kind && s->entries.len == p.splits[i]->entries.len);
			CHECK(s->row_count == p.splits[i]->row_count);
			for (j = 0; j < s->entries.len; j++) {
				CHECK_STR(s->entries.items[j].file.file_name, p.splits[i]->entries.items[j].file.file_name);
				CHECK(s->entries.items[j].file.has_first_row_id ==
				      p.splits[i]->entries.items[j].file.has_first_row_id);
				CHECK(s->entries.items[j].file.first_row_id == p.splits[i]->entries.items[j].file.first_row_id);
			}
			pm_split_free(s);
			s = NULL;
		}
		if (p.splits[i]->kind != PM_SPLIT_APPEND) {
			size_t k;
			/* every truncation fails cleanly */
			for (k = 0; k < b.len; k++) {
				int rc = pm_split_deserialize(b.data, k, &s);
				CHECK(rc != 0 && s == NULL);
			}
			/* unknown kind */
			b.data[b.len - 4] = 7;
			CHECK_RC(pm_split_deserialize(b.data, b.len, &s), PAIMON_ECORRUPT);
			CHECK_MSG("unknown split kind 7");
			/* version 1 bytes with a kind appended: the lengths no longer match */
			b.data[b.len - 4] = 1;
			b.data[4] = 1;
			CHECK_RC(pm_split_deserialize(b.data, b.len, &s), PAIMON_ECORRUPT);
			CHECK_MSG("entries length");
			/* version 2 with kind append reads back as append */
			b.data[4] = 2;
			b.data[b.len - 4] = 0;
			CHECK_OK(pm_split_deserialize(b.data, b.len, &s));
			CHECK(s && s->kind == PM_SPLIT_APPEND);
			pm_split_free(s);
			s = NULL;
		}
	}
	/* a split of unknown kind does not serialize */
	if (p.n_splits) {
		int k = p.splits[0]->kind;
		p.splits[0]->kind = 9;
		pm_buf_clear(&b);
		CHECK_RC(pm_split_serialize(p.splits[0], &b), PAIMON_EINVAL);
		p.splits[0]->kind = k;
	}
	pm_buf_dispose(&b);
	pm_scan_plan_dispose(&p);
	pm_strmap_dispose(&o);
	fx_dispose(&f);
}

/* Planning cost: F files over S snapshots (one manifest per commit). */
static void test_plan_speed(void)
{
	fx f;
	pm_scan_plan p;
	int S = 100, per = 10, c, k;
	struct timespec a, b;
	const char *env = getenv("SCAN_BENCH_SNAPSHOTS");
	if (env)
		S = atoi(env);
	if ((env = getenv("SCAN_BENCH_PER")) != NULL)
		per = atoi(env);
	CHECK_OK(fx_init(&f, "id BIGINT, name STRING, dt STRING", "dt"));
	for (c = 0; c < S; c++) {
		for (k = 0; k < per; k++) {
			char part[16];
			snprintf(part, sizeof part, "p%d", k % 5);
			CHECK_OK(fx_write_file(&f, part, (int64_t)(c * per + k) * 2, 2));
		}
		CHECK_OK(fx_commit(&f, 1000 + c));
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	CHECK_OK(plan(&f, NULL, NULL, &p));
	clock_gettime(CLOCK_MONOTONIC, &b);
	CHECK(p.files_selected == S * per);
	printf("plan: %d files / %d snapshots: %.2f ms, %zu splits\n", S * per, S,
	       (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6, p.n_splits);
	pm_scan_plan_dispose(&p);
	clock_gettime(CLOCK_MONOTONIC, &a);
	CHECK_OK(plan(&f, NULL, "id = 7", &p));
	clock_gettime(CLOCK_MONOTONIC, &b);
	CHECK(p.files_selected == 1);
	printf("plan with stats filter: %.2f ms\n",
	       (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6);
	pm_scan_plan_dispose(&p);
	fx_dispose(&f);
}

TEST_MAIN(T(test_latest_and_splits), T(test_time_travel), T(test_pruning), T(test_split_serde), T(test_errors),
	  T(test_empty_table), T(test_row_id_groups), T(test_row_ids_disjoint_pack_as_before),
	  T(test_split_kind_bytes), T(test_plan_speed))
