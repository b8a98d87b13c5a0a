/*
 * tests/unit/table/test_commit.c - the commit protocol: snapshots and
 * counts, manifest lists, minor manifest merging, overwrite (dynamic,
 * static, partial specs, option, no data), truncate, empty commits, dedup, missing data files, missing
 * manifest lists, row tracking, abort.
 */
#include "test.h"
#include "paimonc/paimonc.h"
#include "paimonc/table.h"
#include "arrow/arrow_builder.h"
#include "core/mem.h"
#include "meta/manifest.h"
#include "meta/snapshot.h"
#include "api/handles.h"
#include "commit/commit.h"
#include "table/partition.h"
#include "write/write.h"

#include <dirent.h>
#include <unistd.h>

static paimon_table *make_table_n(const char *dir, const char *const *parts, size_t nparts, const char *const *kv)
{
	paimon_options *o;
	paimon_catalog *c = NULL;
	paimon_schema_spec *s = NULL;
	paimon_table *t = NULL;
	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "warehouse", dir));
	CHECK_OK(paimon_catalog_open(&c, o));
	paimon_options_free(o);
	CHECK_OK(paimon_catalog_create_database(c, "db", 1));
	CHECK_OK(paimon_schema_spec_new(&s));
	CHECK_OK(paimon_schema_spec_add_columns(s, "id INT, dt STRING"));
	if (nparts)
		CHECK_OK(paimon_schema_spec_set_partition_keys(s, parts, nparts));
	for (; kv && kv[0]; kv += 2)
		CHECK_OK(paimon_schema_spec_set_option(s, kv[0], kv[1]));
	CHECK_OK(paimon_catalog_create_table(c, "db.t", s, 0));
	CHECK_OK(paimon_catalog_get_table(c, "db.t", &t));
	paimon_schema_spec_free(s);
	paimon_catalog_free(c);
	return t;
}

static paimon_table *make_table(const char *dir, const char *part, const char *const *kv)
{
	return make_table_n(dir, &part, part ? 1 : 0, kv);
}

/* n rows id = start.., dt = the given partition */
static paimon_commit_message *write_msg(paimon_table *t, int64_t n, int32_t start, const char *dt)
{
	pm_array_builder *ch[2], *st;
	struct ArrowArray a;
	struct ArrowSchema s;
	paimon_table_write *w = NULL;
	paimon_commit_message *m = NULL;
	int64_t i;
	ch[0] = pm_ab_new_fixed("i", 4);
	ch[1] = pm_ab_new_binary("u", 0);
	pm_ab_set_name(ch[0], "id", 1);
	pm_ab_set_name(ch[1], "dt", 1);
	for (i = 0; i < n; i++) {
		int32_t id = start + (int32_t)i;
		pm_ab_append_fixed(ch[0], &id, 1);
		pm_ab_append_binary(ch[1], dt, strlen(dt));
	}
	st = pm_ab_new_struct(ch, 2);
	pm_ab_append_valid(st, n);
	CHECK_OK(pm_ab_schema(st, &s));
	CHECK_OK(pm_ab_finish(st, &a));
	pm_ab_free(st);
	CHECK_OK(paimon_table_write_new(&w, t, NULL));
	CHECK_OK(paimon_table_write_arrow(w, &a, &s));
	CHECK_OK(paimon_table_write_prepare_commit(w, &m));
	paimon_table_write_free(w);
	a.release(&a);
	s.release(&s);
	return m;
}

static int64_t commit1(paimon_table *t, paimon_commit_message *m, const paimon_options *opts, int64_t ident)
{
	paimon_table_commit *c = NULL;
	int64_t id = -2;
	CHECK_OK(paimon_table_commit_new(&c, t, opts));
	CHECK_OK(paimon_table_commit_apply(c, m ? &m : NULL, m ? 1 : 0, ident, &id));
	paimon_table_commit_free(c);
	return id;
}

static pm_snapshot *latest(paimon_table *t)
{
	int64_t id;
	int found = 0;
	pm_snapshot *s = NULL;
	CHECK_OK(pm_snapshot_latest_id(t->io, t->path, &id, &found));
	if (found)
		CHECK_OK(pm_snapshot_load(t->io, t->path, id, &s));
	return s;
}

static size_t live_count(paimon_table *t, int64_t *rows)
{
	pm_snapshot *s = latest(t);
	pm_manifest_entry_list l = {0};
	size_t n, i;
	*rows = 0;
	if (!s)
		return 0;
	CHECK_OK(pm_manifest_read_all(t->io, t->path, s->base_manifest_list, s->delta_manifest_list, NULL, &l));
	n = l.len;
	for (i = 0; i < l.len; i++) {
		CHECK(l.items[i].kind == PM_FILE_KIND_ADD);
		*rows += l.items[i].file.row_count;
	}
	pm_manifest_entry_list_dispose(&l);
	pm_snapshot_free(s);
	return n;
}

static size_t list_len(paimon_table *t, const char *name)
{
	pm_manifest_file_meta_list l = {0};
	size_t n;
	CHECK_OK(pm_manifest_list_read(t->io, t->path, name, &l));
	n = l.len;
	pm_manifest_file_meta_list_dispose(&l);
	return n;
}

static int count_names(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, prefix, strlen(prefix)))
			n++;
	closedir(d);
	return n;
}

static void append_twice(void)
{
	char *dir = test_tmpdir(), d[4200];
	paimon_table *t = make_table(dir, NULL, NULL);
	paimon_commit_message *m;
	pm_snapshot *s;
	int64_t rows;

	m = write_msg(t, 10, 0, "a");
	CHECK(commit1(t, m, NULL, INT64_MAX) == 1);
	paimon_commit_message_free(m);
	m = write_msg(t, 5, 10, "a");
	CHECK(commit1(t, m, NULL, INT64_MAX) == 2);
	paimon_commit_message_free(m);
	s = latest(t);
	CHECK(s != NULL);
	if (s) {
		CHECK(s->id == 2);
		CHECK_STR(s->commit_kind, "APPEND");
		CHECK(s->commit_identifier == INT64_MAX);
		CHECK(s->total_record_count == 15);
		CHECK(s->delta_record_count == 5);
		CHECK(s->schema_id == 0);
		CHECK(s->has_base_manifest_list_size && s->has_delta_manifest_list_size);
		CHECK(s->has_next_row_id && s->next_row_id == 0);
		CHECK(s->uuid != NULL && s->writer_version != NULL);
		CHECK(list_len(t, s->base_manifest_list) == 1);
		CHECK(list_len(t, s->delta_manifest_list) == 1);
		pm_snapshot_free(s);
	}
	CHECK(live_count(t, &rows) == 2);
	CHECK(rows == 15);
	snprintf(d, sizeof d, "%s/db.db/t/snapshot", dir);
	CHECK(count_names(d, ".") == 2); /* only . and .. : no temp files */
	paimon_table_free(t);
	free(dir);
}

static void empty_and_missing(void)
{
	char *dir = test_tmpdir(), d[4200];
	paimon_table *t = make_table(dir, NULL, NULL);
	paimon_commit_message *m;
	paimon_table_commit *c = NULL;
	pm_snapshot *s;
	int64_t id = 0;

	/* empty: nothing committed */
	CHECK(commit1(t, NULL, NULL, INT64_MAX) == -1);
	m = write_msg(t, 0, 0, "a");
	CHECK(paimon_commit_message_file_count(m) == 0);
	CHECK(commit1(t, m, NULL, INT64_MAX) == -1);
	paimon_commit_message_free(m);
	s = latest(t);
	CHECK(s == NULL);
	pm_snapshot_free(s);

	/* vanished data file */
	m = write_msg(t, 3, 0, "a");
	snprintf(d, sizeof d, "%s/db.db/t/bucket-0", dir);
	{
		DIR *dd = opendir(d);
		struct dirent *e;
		char p[8400];
		while (dd && (e = readdir(dd)))
			if (strstr(e->d_name, ".parquet")) {
				snprintf(p, sizeof p, "%s/%s", d, e->d_name);
				unlink(p);
			}
		if (dd)
			closedir(dd);
	}
	CHECK_OK(paimon_table_commit_new(&c, t, NULL));
	CHECK_RC(paimon_table_commit_apply(c, &m, 1, INT64_MAX, &id), PAIMON_ENOTFOUND);
	CHECK_MSG("data-");
	CHECK_MSG("does not exist");
	CHECK(id == -1);
	paimon_table_commit_free(c);
	paimon_commit_message_free(m);
	s = latest(t);
	CHECK(s == NULL);
	pm_snapshot_free(s);
	snprintf(d, sizeof d, "%s/db.db/t/manifest", dir);
	CHECK(count_names(d, "manifest") == 0);
	paimon_table_free(t);
	free(dir);
}

/* One committer: [set_overwrite(spec)] + commit of the messages. spec_kv:
 * NULL-terminated key/value list, or NULL for set_overwrite(NULL); opts:
 * committer options as a key/value list (may be NULL). Returns the rc of
 * the commit; *id the snapshot. */
static int overwrite_commit(paimon_table *t, const char *const *opts_kv, const char *const *spec_kv,
			    paimon_commit_message **ms, size_t n, int64_t *id, pm_commit_stats *stats)
{
	paimon_options *opts = NULL, *spec = NULL;
	paimon_table_commit *c = NULL;
	int rc;
	CHECK_OK(paimon_options_new(&opts));
	for (; opts_kv && opts_kv[0]; opts_kv += 2)
		CHECK_OK(paimon_options_set(opts, opts_kv[0], opts_kv[1]));
	if (spec_kv) {
		CHECK_OK(paimon_options_new(&spec));
		for (; spec_kv[0]; spec_kv += 2)
			CHECK_OK(paimon_options_set(spec, spec_kv[0], spec_kv[1]));
	}
	CHECK_OK(paimon_table_commit_new(&c, t, opts));
	*id = -2;
	rc = paimon_table_commit_set_overwrite(c, spec);
	if (rc == 0)
		rc = paimon_table_commit_apply(c, ms, n, INT64_MAX, id);
	if (rc != 0)
		CHECK_OK(paimon_table_commit_abort(c, ms, n));
	if (stats)
		pm_table_committer_last_stats(*(pm_table_committer **)c, stats); /* first member (api_write.c) */
	paimon_table_commit_free(c);
	paimon_options_free(opts);
	paimon_options_free(spec);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Live contents as "k=v,...:rows;..." sorted by partition (rows summed);
 * caller frees. */
static char *contents(paimon_table *t)
{
	pm_snapshot *s = latest(t);
	pm_manifest_entry_list l = {0};
	pm_partition_info pi;
	pm_buf out = PM_BUF_INIT, b = PM_BUF_INIT;
	char **keys;
	int64_t *rows;
	size_t n = 0, i, j;
	CHECK_OK(pm_partition_info_init(&pi, t->schema->schema));
	if (s)
		CHECK_OK(pm_manifest_read_all(t->io, t->path, s->base_manifest_list, s->delta_manifest_list, NULL,
					      &l));
	keys = calloc(l.len + 1, sizeof *keys);
	rows = calloc(l.len + 1, sizeof *rows);
	for (i = 0; i < l.len; i++) {
		pm_buf_clear(&b);
		CHECK_OK(pm_partition_to_display(&pi, l.items[i].partition.p, l.items[i].partition.n, &b));
		for (j = 0; j < n; j++)
			if (!strcmp(keys[j], pm_buf_cstr(&b)))
				break;
		if (j == n)
			keys[n++] = strdup(pm_buf_cstr(&b));
		rows[j] += l.items[i].file.row_count;
	}
	/* sort keys with their counts: selection by name */
	{
		char **sorted = calloc(n + 1, sizeof *sorted);
		for (i = 0; i < n; i++)
			sorted[i] = keys[i];
		qsort(sorted, n, sizeof *sorted, cmp_str);
		for (i = 0; i < n; i++) {
			for (j = 0; j < n; j++)
				if (keys[j] == sorted[i])
					break;
			pm_buf_printf(&out, "%s%s:%lld", i ? ";" : "", sorted[i], (long long)rows[j]);
		}
		free(sorted);
	}
	for (i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
	free(rows);
	pm_buf_dispose(&b);
	pm_manifest_entry_list_dispose(&l);
	pm_snapshot_free(s);
	pm_partition_info_dispose(&pi);
	{
		char *r = strdup(pm_buf_cstr(&out));
		pm_buf_dispose(&out);
		return r;
	}
}

#define CHECK_CONTENTS(t, want) do { char *got_ = contents(t); CHECK_STR(got_, want); free(got_); } while (0)

static int64_t latest_id(paimon_table *t)
{
	pm_snapshot *s = latest(t);
	int64_t id = s ? s->id : 0;
	pm_snapshot_free(s);
	return id;
}

/* dt=a:10, dt=b:20, dt=c:5 in snapshot 1 */
static paimon_table *three_partitions(const char *dir, const char *const *kv)
{
	paimon_table *t = make_table(dir, "dt", kv);
	paimon_commit_message *ms[3];
	paimon_table_commit *c = NULL;
	int64_t id = 0;
	size_t i;
	ms[0] = write_msg(t, 10, 0, "a");
	ms[1] = write_msg(t, 20, 100, "b");
	ms[2] = write_msg(t, 5, 200, "c");
	CHECK_OK(paimon_table_commit_new(&c, t, NULL));
	CHECK_OK(paimon_table_commit_apply(c, ms, 3, INT64_MAX, &id));
	CHECK(id == 1);
	paimon_table_commit_free(c);
	for (i = 0; i < 3; i++)
		paimon_commit_message_free(ms[i]);
	CHECK_CONTENTS(t, "dt=a:10;dt=b:20;dt=c:5");
	return t;
}

/* Default (dynamic-partition-overwrite=true): only the partitions written
 * to are replaced; the static spec is ignored; no data -> no snapshot. */
static void overwrite_dynamic(void)
{
	char *dir = test_tmpdir();
	paimon_table *t = three_partitions(dir, NULL);
	paimon_commit_message *ms[2];
	const char *spec_a[] = {"dt", "a", NULL};
	pm_commit_stats st;
	pm_snapshot *s;
	int64_t id;

	/* set_overwrite(NULL) + data in b: a and c stay */
	ms[0] = write_msg(t, 7, 300, "b");
	CHECK_OK(overwrite_commit(t, NULL, NULL, ms, 1, &id, &st));
	CHECK(id == 2);
	CHECK(st.files_deleted == 1 && !st.overwrite_skipped);
	CHECK_CONTENTS(t, "dt=a:10;dt=b:7;dt=c:5");
	s = latest(t);
	if (s) {
		CHECK_STR(s->commit_kind, "OVERWRITE");
		CHECK(s->total_record_count == 22);
		CHECK(s->delta_record_count == 7 - 20);
		pm_snapshot_free(s);
	}
	paimon_commit_message_free(ms[0]);

	/* two partitions written (one of them new), another spec given: the
	 * spec is ignored (Java), the written partitions are replaced */
	ms[0] = write_msg(t, 3, 400, "c");
	ms[1] = write_msg(t, 2, 500, "d");
	CHECK_OK(overwrite_commit(t, NULL, spec_a, ms, 2, &id, &st));
	CHECK(id == 3);
	CHECK(st.files_deleted == 1);
	CHECK_CONTENTS(t, "dt=a:10;dt=b:7;dt=c:3;dt=d:2");
	paimon_commit_message_free(ms[0]);
	paimon_commit_message_free(ms[1]);

	/* no data: nothing is deleted, no snapshot */
	CHECK_OK(overwrite_commit(t, NULL, NULL, NULL, 0, &id, &st));
	CHECK(id == -1 && st.overwrite_skipped);
	CHECK_OK(overwrite_commit(t, NULL, spec_a, NULL, 0, &id, &st));
	CHECK(id == -1);
	CHECK(latest_id(t) == 3);
	CHECK_CONTENTS(t, "dt=a:10;dt=b:7;dt=c:3;dt=d:2");

	paimon_table_free(t);
	free(dir);
}

/* dynamic-partition-overwrite=false: static overwrite of the spec (none =
 * whole table), data outside it rejected, commits even without data. */
static void overwrite_static(void)
{
	const char *opt_false[] = {"dynamic-partition-overwrite", "false", NULL};
	const char *spec_b[] = {"dt", "b", NULL};
	const char *spec_c[] = {"dt", "c", NULL};
	char *dir = test_tmpdir();
	paimon_table *t = three_partitions(dir, NULL);
	paimon_commit_message *ms[1];
	pm_commit_stats st;
	int64_t id;

	/* static partition b */
	ms[0] = write_msg(t, 7, 300, "b");
	CHECK_OK(overwrite_commit(t, opt_false, spec_b, ms, 1, &id, &st));
	CHECK(id == 2 && st.files_deleted == 1);
	CHECK_CONTENTS(t, "dt=a:10;dt=b:7;dt=c:5");
	paimon_commit_message_free(ms[0]);

	/* data outside the static partition: rejected, nothing committed */
	ms[0] = write_msg(t, 1, 400, "a");
	CHECK_RC(overwrite_commit(t, opt_false, spec_b, ms, 1, &id, NULL), PAIMON_EINVAL);
	CHECK_MSG("does not belong");
	CHECK_MSG("dt=a");
	CHECK(latest_id(t) == 2);
	paimon_commit_message_free(ms[0]);

	/* static partition without data: the partition is deleted (a snapshot) */
	CHECK_OK(overwrite_commit(t, opt_false, spec_c, NULL, 0, &id, &st));
	CHECK(id == 3 && st.files_deleted == 1);
	CHECK_CONTENTS(t, "dt=a:10;dt=b:7");

	/* a spec naming a partition with no files still commits (as Java) */
	CHECK_OK(overwrite_commit(t, opt_false, spec_c, NULL, 0, &id, &st));
	CHECK(id == 4 && st.files_deleted == 0);

	/* no spec: the whole table */
	ms[0] = write_msg(t, 4, 500, "e");
	CHECK_OK(overwrite_commit(t, opt_false, NULL, ms, 1, &id, &st));
	CHECK(id == 5 && st.files_deleted == 2);
	CHECK_CONTENTS(t, "dt=e:4");
	paimon_commit_message_free(ms[0]);

	/* the same through the table option */
	paimon_table_free(t);
	free(dir);
	dir = test_tmpdir();
	t = three_partitions(dir, opt_false);
	CHECK_OK(overwrite_commit(t, NULL, NULL, NULL, 0, &id, &st));
	CHECK(id == 2 && st.files_deleted == 3);
	CHECK_CONTENTS(t, "");
	/* ... and a committer option overrides the table option */
	{
		const char *opt_true[] = {"dynamic-partition-overwrite", "true", NULL};
		ms[0] = write_msg(t, 2, 0, "a");
		CHECK(commit1(t, ms[0], NULL, INT64_MAX) == 3);
		paimon_commit_message_free(ms[0]);
		CHECK_OK(overwrite_commit(t, opt_true, NULL, NULL, 0, &id, &st));
		CHECK(id == -1);
		CHECK_CONTENTS(t, "dt=a:2");
	}
	/* an invalid option value */
	{
		const char *bad[] = {"dynamic-partition-overwrite", "maybe", NULL};
		paimon_options *o = NULL;
		paimon_table_commit *c = NULL;
		CHECK_OK(paimon_options_new(&o));
		CHECK_OK(paimon_options_set(o, bad[0], bad[1]));
		CHECK_RC(paimon_table_commit_new(&c, t, o), PAIMON_EINVAL);
		CHECK_MSG("dynamic-partition-overwrite");
		CHECK(c == NULL);
		paimon_options_free(o);
	}
	paimon_table_free(t);
	free(dir);
}

/* Two partition keys (dt, id): a static spec may name a subset. */
static void overwrite_partial_spec(void)
{
	const char *parts[] = {"dt", "id"};
	const char *opt_false[] = {"dynamic-partition-overwrite", "false", NULL};
	const char *spec_a[] = {"dt", "a", NULL};
	const char *spec_id11[] = {"id", "11", NULL};
	const char *spec_bad_key[] = {"nope", "x", NULL};
	const char *spec_bad_val[] = {"id", "eleven", NULL};
	char *dir = test_tmpdir();
	paimon_table *t = make_table_n(dir, parts, 2, NULL);
	paimon_commit_message *ms[2];
	pm_commit_stats st;
	int64_t id;

	ms[0] = write_msg(t, 3, 0, "a");   /* (a,0) (a,1) (a,2) */
	ms[1] = write_msg(t, 2, 10, "b");  /* (b,10) (b,11) */
	{
		paimon_table_commit *c = NULL;
		CHECK_OK(paimon_table_commit_new(&c, t, NULL));
		CHECK_OK(paimon_table_commit_apply(c, ms, 2, INT64_MAX, &id));
		paimon_table_commit_free(c);
	}
	paimon_commit_message_free(ms[0]);
	paimon_commit_message_free(ms[1]);
	CHECK_CONTENTS(t, "dt=a, id=0:1;dt=a, id=1:1;dt=a, id=2:1;dt=b, id=10:1;dt=b, id=11:1");

	/* dynamic (default): spec dt=a ignored, only (a,1) and the new (a,50) */
	ms[0] = write_msg(t, 1, 1, "a");
	ms[1] = write_msg(t, 1, 50, "a");
	CHECK_OK(overwrite_commit(t, NULL, spec_a, ms, 2, &id, &st));
	CHECK(id == 2 && st.files_deleted == 1);
	CHECK_CONTENTS(t, "dt=a, id=0:1;dt=a, id=1:1;dt=a, id=2:1;dt=a, id=50:1;dt=b, id=10:1;dt=b, id=11:1");
	paimon_commit_message_free(ms[0]);
	paimon_commit_message_free(ms[1]);

	/* static prefix dt=a: every id of a goes */
	ms[0] = write_msg(t, 2, 60, "a");
	CHECK_OK(overwrite_commit(t, opt_false, spec_a, ms, 1, &id, &st));
	CHECK(id == 3 && st.files_deleted == 4);
	CHECK_CONTENTS(t, "dt=a, id=60:1;dt=a, id=61:1;dt=b, id=10:1;dt=b, id=11:1");
	paimon_commit_message_free(ms[0]);
	/* data in b is outside dt=a */
	ms[0] = write_msg(t, 1, 70, "b");
	CHECK_RC(overwrite_commit(t, opt_false, spec_a, ms, 1, &id, NULL), PAIMON_EINVAL);
	paimon_commit_message_free(ms[0]);

	/* a non-prefix subset (id=11) also works (Java builds a predicate) */
	CHECK_OK(overwrite_commit(t, opt_false, spec_id11, NULL, 0, &id, &st));
	CHECK(id == 4 && st.files_deleted == 1);
	CHECK_CONTENTS(t, "dt=a, id=60:1;dt=a, id=61:1;dt=b, id=10:1");

	/* the default partition name means null: matches nothing here */
	{
		const char *spec_null[] = {"dt", "__DEFAULT_PARTITION__", NULL};
		CHECK_OK(overwrite_commit(t, opt_false, spec_null, NULL, 0, &id, &st));
		CHECK(id == 5 && st.files_deleted == 0);
	}

	/* bad specs are rejected in both modes */
	CHECK_RC(overwrite_commit(t, NULL, spec_bad_key, NULL, 0, &id, NULL), PAIMON_EINVAL);
	CHECK_MSG("'nope' is not a partition key");
	CHECK_RC(overwrite_commit(t, opt_false, spec_bad_val, NULL, 0, &id, NULL), PAIMON_EINVAL);
	CHECK_MSG("id");
	CHECK(latest_id(t) == 5);
	paimon_table_free(t);
	free(dir);
}

/* Unpartitioned: overwrite always replaces the whole table. */
static void overwrite_unpartitioned(void)
{
	const char *spec[] = {"dt", "a", NULL};
	char *dir = test_tmpdir();
	paimon_table *t = make_table(dir, NULL, NULL);
	paimon_commit_message *m;
	pm_commit_stats st;
	int64_t id;

	m = write_msg(t, 10, 0, "a");
	CHECK(commit1(t, m, NULL, INT64_MAX) == 1);
	paimon_commit_message_free(m);
	m = write_msg(t, 3, 0, "b");
	CHECK_OK(overwrite_commit(t, NULL, NULL, &m, 1, &id, &st));
	CHECK(id == 2 && st.files_deleted == 1);
	CHECK_CONTENTS(t, ":3");
	paimon_commit_message_free(m);
	/* no data: an OVERWRITE snapshot emptying the table */
	CHECK_OK(overwrite_commit(t, NULL, NULL, NULL, 0, &id, &st));
	CHECK(id == 3);
	CHECK_CONTENTS(t, "");
	/* a spec on an unpartitioned table */
	CHECK_RC(overwrite_commit(t, NULL, spec, NULL, 0, &id, NULL), PAIMON_EINVAL);
	CHECK_MSG("not partitioned");
	paimon_table_free(t);
	free(dir);
}

/* truncate: everything goes, whatever the mode; the overwrite setting is
 * consumed by a commit. */
static void truncate_table(void)
{
	char *dir = test_tmpdir();
	paimon_table *t = three_partitions(dir, NULL);
	paimon_table_commit *c = NULL;
	pm_snapshot *s;
	int64_t id = 0;

	CHECK_OK(paimon_table_commit_new(&c, t, NULL));
	CHECK_OK(paimon_table_commit_truncate(c, &id));
	CHECK(id == 2);
	/* the overwrite flag is consumed: an empty commit now does nothing */
	CHECK_OK(paimon_table_commit_apply(c, NULL, 0, INT64_MAX, &id));
	CHECK(id == -1);
	/* set_overwrite then truncate: truncate wins, the setting is gone */
	CHECK_OK(paimon_table_commit_set_overwrite(c, NULL));
	CHECK_OK(paimon_table_commit_truncate(c, &id));
	CHECK(id == 3); /* Java commits a truncate of an empty table too */
	CHECK_OK(paimon_table_commit_apply(c, NULL, 0, INT64_MAX, &id));
	CHECK(id == -1);
	CHECK_RC(paimon_table_commit_truncate(NULL, &id), PAIMON_EINVAL);
	paimon_table_commit_free(c);
	CHECK_CONTENTS(t, "");
	s = latest(t);
	if (s) {
		CHECK(s->id == 3 && s->total_record_count == 0);
		CHECK_STR(s->commit_kind, "OVERWRITE");
		pm_snapshot_free(s);
	}
	/* fresh table */
	paimon_table_free(t);
	free(dir);
	dir = test_tmpdir();
	t = make_table(dir, "dt", NULL);
	CHECK_OK(paimon_table_commit_new(&c, t, NULL));
	CHECK_OK(paimon_table_commit_truncate(c, &id));
	CHECK(id == 1);
	paimon_table_commit_free(c);
	paimon_table_free(t);
	free(dir);
}

static void dedup(void)
{
	char *dir = test_tmpdir();
	paimon_table *t = make_table(dir, NULL, NULL);
	paimon_commit_message *m;
	paimon_options *o;
	pm_snapshot *s;
	int64_t rows;

	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "commit.user", "job-1"));
	m = write_msg(t, 3, 0, "a");
	CHECK(commit1(t, m, o, 5) == 1);
	/* the same (user, identifier) again: already committed */
	CHECK(commit1(t, m, o, 5) == 1);
	CHECK(commit1(t, m, o, 4) == -1);
	paimon_commit_message_free(m);
	m = write_msg(t, 2, 3, "a");
	CHECK(commit1(t, m, o, 6) == 2);
	paimon_commit_message_free(m);
	/* another user may use the same identifier */
	CHECK_OK(paimon_options_set(o, "commit.user", "job-2"));
	m = write_msg(t, 1, 5, "a");
	CHECK(commit1(t, m, o, 5) == 3);
	paimon_commit_message_free(m);
	paimon_options_free(o);
	s = latest(t);
	if (s) {
		CHECK(s->id == 3 && s->total_record_count == 6);
		CHECK_STR(s->commit_user, "job-2");
		CHECK(s->commit_identifier == 5);
		pm_snapshot_free(s);
	}
	CHECK(live_count(t, &rows) == 3);
	paimon_table_free(t);
	free(dir);
}

static void merging(void)
{
	char *dir = test_tmpdir();
	const char *kv[] = {"manifest.merge-min-count", "3", NULL};
	paimon_table *t = make_table(dir, NULL, kv);
	paimon_commit_message *m;
	pm_snapshot *s;
	int64_t rows;
	int i;
	size_t maxlen = 0;

	for (i = 0; i < 8; i++) {
		m = write_msg(t, 2, i * 2, "a");
		CHECK(commit1(t, m, NULL, INT64_MAX) == i + 1);
		paimon_commit_message_free(m);
		s = latest(t);
		if (s) {
			size_t n = list_len(t, s->base_manifest_list);
			if (n > maxlen)
				maxlen = n;
			pm_snapshot_free(s);
		}
		CHECK(live_count(t, &rows) == (size_t)i + 1);
		CHECK(rows == (i + 1) * 2);
	}
	CHECK(maxlen < 3);
	paimon_table_free(t);
	free(dir);
}

static void missing_manifest_list(void)
{
	char *dir = test_tmpdir(), p[8400];
	paimon_table *t = make_table(dir, NULL, NULL);
	paimon_commit_message *m;
	paimon_table_commit *c = NULL;
	pm_snapshot *s;
	pm_manifest_entry_list l = {0};
	int64_t id;

	m = write_msg(t, 2, 0, "a");
	CHECK(commit1(t, m, NULL, INT64_MAX) == 1);
	paimon_commit_message_free(m);
	s = latest(t);
	if (!s) {
		paimon_table_free(t);
		free(dir);
		return;
	}
	snprintf(p, sizeof p, "%s/db.db/t/manifest/%s", dir, s->delta_manifest_list);
	CHECK(unlink(p) == 0);
	CHECK_RC(pm_manifest_read_all(t->io, t->path, s->base_manifest_list, s->delta_manifest_list, NULL, &l),
		 PAIMON_ENOTFOUND);
	CHECK_MSG(s->delta_manifest_list);
	pm_manifest_entry_list_dispose(&l);
	m = write_msg(t, 2, 2, "a");
	CHECK_OK(paimon_table_commit_new(&c, t, NULL));
	CHECK_RC(paimon_table_commit_apply(c, &m, 1, INT64_MAX, &id), PAIMON_ENOTFOUND);
	CHECK_MSG(s->delta_manifest_list);
	paimon_table_commit_free(c);
	paimon_commit_message_free(m);
	pm_snapshot_free(s);
	s = latest(t);
	CHECK(s && s->id == 1);
	pm_snapshot_free(s);
	paimon_table_free(t);
	free(dir);
}

static void row_tracking(void)
{
	char *dir = test_tmpdir();
	const char *kv[] = {"row-tracking.enabled", "true", NULL};
	paimon_table *t = make_table(dir, NULL, kv);
	paimon_commit_message *m;
	pm_snapshot *s;
	pm_manifest_entry_list l = {0};
	size_t i;
	int64_t seen = 0;

	m = write_msg(t, 10, 0, "a");
	CHECK(commit1(t, m, NULL, INT64_MAX) == 1);
	paimon_commit_message_free(m);
	m = write_msg(t, 5, 10, "a");
	CHECK(commit1(t, m, NULL, INT64_MAX) == 2);
	paimon_commit_message_free(m);
	s = latest(t);
	if (s) {
		CHECK(s->has_next_row_id && s->next_row_id == 15);
		CHECK_OK(pm_manifest_read_all(t->io, t->path, s->base_manifest_list, s->delta_manifest_list, NULL, &l));
		CHECK(l.len == 2);
		for (i = 0; i < l.len; i++) {
			CHECK(l.items[i].file.has_first_row_id);
			seen |= (int64_t)1 << (l.items[i].file.first_row_id == 0 ? 0 : l.items[i].file.first_row_id == 10 ? 1 : 2);
		}
		CHECK(seen == 3);
		pm_manifest_entry_list_dispose(&l);
		pm_snapshot_free(s);
	}
	paimon_table_free(t);
	free(dir);
}

static void abort_files(void)
{
	char *dir = test_tmpdir(), d[4200];
	paimon_table *t = make_table(dir, "dt", NULL);
	paimon_commit_message *m;
	paimon_table_commit *c = NULL;
	DIR *dd;
	struct dirent *e;
	int n = 0;
	m = write_msg(t, 2, 0, "x");
	CHECK_OK(paimon_table_commit_new(&c, t, NULL));
	CHECK_OK(paimon_table_commit_abort(c, &m, 1));
	paimon_table_commit_free(c);
	paimon_commit_message_free(m);
	snprintf(d, sizeof d, "%s/db.db/t/dt=x/bucket-0", dir);
	dd = opendir(d);
	while (dd && (e = readdir(dd)))
		n += strstr(e->d_name, ".parquet") != NULL;
	if (dd)
		closedir(dd);
	CHECK(n == 0);
	paimon_table_free(t);
	free(dir);
}

TEST_MAIN(T(append_twice), T(empty_and_missing), T(overwrite_dynamic), T(overwrite_static), T(overwrite_partial_spec),
	  T(overwrite_unpartitioned), T(truncate_table), T(dedup), T(merging), T(missing_manifest_list),
	  T(row_tracking), T(abort_files))
