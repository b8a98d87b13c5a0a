/*
 * tests/unit/table/test_commit.c - the commit protocol: snapshots and
 * counts, manifest lists, minor manifest merging, overwrite (table and
 * partition), truncate, empty commits, dedup, missing data files, missing
 * manifest lists, row tracking, abort.
 */
#include "test.h"
#include "paimonc/paimonc.h"
#include "paimonc/table.h"
#include "arrow/arrow_builder.h"
#include "core/mem.h"
#include "meta/manifest.h"
#include "meta/snapshot.h"
#include "table/catalog.h"
#include "table/commit.h"
#include "table/partition.h"
#include "table/write.h"

#include <dirent.h>
#include <unistd.h>

static paimon_table *make_table(const char *dir, const char *part, const char *const *kv)
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
	if (part)
		CHECK_OK(paimon_schema_spec_set_partition_keys(s, &part, 1));
	for (; kv && kv[0]; kv += 2)
		CHECK_OK(paimon_schema_spec_set_option(s, kv[0], kv[1]));
	CHECK_OK(paimon_catalog_create_table(c, "db.t", s, 0));
	CHECK_OK(paimon_catalog_get_table(c, "db.t", &t));
	paimon_schema_spec_free(s);
	paimon_catalog_free(c);
	return t;
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
	CHECK_OK(paimon_table_commit_commit(c, m ? &m : NULL, m ? 1 : 0, ident, &id));
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
	CHECK_RC(paimon_table_commit_commit(c, &m, 1, INT64_MAX, &id), PAIMON_ENOTFOUND);
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

static void overwrite(void)
{
	char *dir = test_tmpdir();
	paimon_table *t = make_table(dir, "dt", NULL);
	paimon_commit_message *m, *m2;
	paimon_table_commit *c = NULL;
	paimon_options *part;
	pm_snapshot *s;
	int64_t rows, id = 0;

	m = write_msg(t, 10, 0, "a");
	m2 = write_msg(t, 20, 100, "b");
	{
		paimon_commit_message *ms[2];
		ms[0] = m;
		ms[1] = m2;
		CHECK_OK(paimon_table_commit_new(&c, t, NULL));
		CHECK_OK(paimon_table_commit_commit(c, ms, 2, INT64_MAX, &id));
		CHECK(id == 1);
		paimon_table_commit_free(c);
	}
	paimon_commit_message_free(m);
	paimon_commit_message_free(m2);

	/* overwrite partition b only */
	m = write_msg(t, 7, 200, "b");
	CHECK_OK(paimon_options_new(&part));
	CHECK_OK(paimon_options_set(part, "dt", "b"));
	CHECK_OK(paimon_table_commit_new(&c, t, NULL));
	CHECK_OK(paimon_table_commit_set_overwrite(c, part));
	CHECK_OK(paimon_table_commit_commit(c, &m, 1, INT64_MAX, &id));
	CHECK(id == 2);
	paimon_commit_message_free(m);
	/* a file of another partition cannot go into a partition overwrite */
	m = write_msg(t, 1, 300, "a");
	CHECK_OK(paimon_table_commit_set_overwrite(c, part));
	CHECK_RC(paimon_table_commit_commit(c, &m, 1, INT64_MAX, &id), PAIMON_EINVAL);
	CHECK_OK(paimon_table_commit_abort(c, &m, 1));
	paimon_commit_message_free(m);
	paimon_table_commit_free(c);
	paimon_options_free(part);
	s = latest(t);
	if (s) {
		CHECK_STR(s->commit_kind, "OVERWRITE");
		CHECK(s->total_record_count == 17);
		CHECK(s->delta_record_count == 7 - 20);
		pm_snapshot_free(s);
	}
	CHECK(live_count(t, &rows) == 2);
	CHECK(rows == 17);

	/* whole table */
	m = write_msg(t, 4, 400, "c");
	CHECK_OK(paimon_table_commit_new(&c, t, NULL));
	CHECK_OK(paimon_table_commit_set_overwrite(c, NULL));
	CHECK_OK(paimon_table_commit_commit(c, &m, 1, INT64_MAX, &id));
	CHECK(id == 3);
	paimon_table_commit_free(c);
	paimon_commit_message_free(m);
	CHECK(live_count(t, &rows) == 1);
	CHECK(rows == 4);

	/* truncate: overwrite without files commits the deletions */
	CHECK_OK(paimon_table_commit_new(&c, t, NULL));
	CHECK_OK(paimon_table_commit_set_overwrite(c, NULL));
	CHECK_OK(paimon_table_commit_commit(c, NULL, 0, INT64_MAX, &id));
	CHECK(id == 4);
	/* the overwrite flag is consumed: an empty commit now does nothing */
	CHECK_OK(paimon_table_commit_commit(c, NULL, 0, INT64_MAX, &id));
	CHECK(id == -1);
	paimon_table_commit_free(c);
	CHECK(live_count(t, &rows) == 0);
	s = latest(t);
	if (s) {
		CHECK(s->id == 4 && s->total_record_count == 0 && s->delta_record_count == -4);
		pm_snapshot_free(s);
	}
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
	CHECK_RC(paimon_table_commit_commit(c, &m, 1, INT64_MAX, &id), PAIMON_ENOTFOUND);
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

TEST_MAIN(T(append_twice), T(empty_and_missing), T(overwrite), T(dedup), T(merging), T(missing_manifest_list),
	  T(row_tracking), T(abort_files))
