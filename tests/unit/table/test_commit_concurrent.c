/*
 * tests/unit/table/test_commit_concurrent.c - 4 processes commit 50 times
 * each to one table at the same time. Afterwards: snapshot ids 1..200
 * without gaps, every (commitUser, commitIdentifier) exactly once, the
 * record counts add up, every file live once, no temporary files left.
 */
#include "test.h"
#include "paimonc/paimonc.h"
#include "paimonc/table.h"
#include "arrow/arrow_builder.h"
#include "core/mem.h"
#include "meta/manifest.h"
#include "meta/snapshot.h"
#include "api/handles.h"

#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROCS 4
#define COMMITS 50
#define ROWS 3

static paimon_table *open_table(const char *dir)
{
	paimon_options *o;
	paimon_catalog *c = NULL;
	paimon_table *t = NULL;
	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "warehouse", dir));
	CHECK_OK(paimon_catalog_open(&c, o));
	paimon_options_free(o);
	CHECK_OK(paimon_catalog_get_table(c, "db.t", &t));
	paimon_catalog_free(c);
	return t;
}

static int worker(const char *dir, int k)
{
	paimon_table *t = open_table(dir);
	paimon_options *o;
	paimon_table_commit *c = NULL;
	char user[32];
	int i, fails = 0;
	if (!t)
		return 1;
	snprintf(user, sizeof user, "proc-%d", k);
	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "commit.user", user));
	CHECK_OK(paimon_options_set(o, "commit.max-retries", "1000"));
	CHECK_OK(paimon_options_set(o, "commit.max-retry-wait", "200"));
	CHECK_OK(paimon_table_commit_new(&c, t, o));
	paimon_options_free(o);
	for (i = 1; i <= COMMITS && c; i++) {
		pm_array_builder *ch[2], *st;
		struct ArrowArray a;
		struct ArrowSchema s;
		paimon_table_write *w = NULL;
		paimon_commit_message *m = NULL;
		int64_t id = -1, r;
		ch[0] = pm_ab_new_fixed("i", 4);
		ch[1] = pm_ab_new_binary("u", 0);
		pm_ab_set_name(ch[0], "id", 1);
		pm_ab_set_name(ch[1], "who", 1);
		for (r = 0; r < ROWS; r++) {
			int32_t v = k * 1000 + i;
			pm_ab_append_fixed(ch[0], &v, 1);
			pm_ab_append_binary(ch[1], user, strlen(user));
		}
		st = pm_ab_new_struct(ch, 2);
		pm_ab_append_valid(st, ROWS);
		CHECK_OK(pm_ab_schema(st, &s));
		CHECK_OK(pm_ab_finish(st, &a));
		pm_ab_free(st);
		CHECK_OK(paimon_table_write_new(&w, t, NULL));
		CHECK_OK(paimon_table_write_arrow(w, &a, &s));
		CHECK_OK(paimon_table_write_prepare_commit(w, &m));
		a.release(&a);
		s.release(&s);
		if (paimon_table_commit_apply(c, &m, 1, i, &id) != 0 || id <= 0) {
			fprintf(stderr, "proc %d commit %d failed: %s\n", k, i, paimon_error_message());
			fails++;
		}
		paimon_commit_message_free(m);
		paimon_table_write_free(w);
	}
	paimon_table_commit_free(c);
	paimon_table_free(t);
	return fails || test_failures ? 1 : 0;
}

static int count_tmp(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (strstr(e->d_name, ".tmp"))
			n++;
	closedir(d);
	return n;
}

static void concurrent(void)
{
	char *dir = test_tmpdir(), d[4200];
	paimon_options *o;
	paimon_catalog *c = NULL;
	paimon_schema_spec *s = NULL;
	paimon_table *t;
	pid_t pids[PROCS];
	int k, seen[PROCS][COMMITS + 1];
	int64_t *ids = NULL;
	size_t n = 0, i;
	pm_snapshot *last = NULL;
	pm_manifest_entry_list live = {0};

	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "warehouse", dir));
	CHECK_OK(paimon_catalog_open(&c, o));
	paimon_options_free(o);
	CHECK_OK(paimon_catalog_create_database(c, "db", 0));
	CHECK_OK(paimon_schema_spec_new(&s));
	CHECK_OK(paimon_schema_spec_add_columns(s, "id INT, who STRING"));
	CHECK_OK(paimon_catalog_create_table(c, "db.t", s, 0));
	paimon_schema_spec_free(s);
	paimon_catalog_free(c);

	fflush(NULL);
	for (k = 0; k < PROCS; k++) {
		pids[k] = fork();
		if (pids[k] == 0)
			_exit(worker(dir, k));
		CHECK(pids[k] > 0);
	}
	for (k = 0; k < PROCS; k++) {
		int st = 0;
		if (pids[k] > 0) {
			waitpid(pids[k], &st, 0);
			CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		}
	}

	t = open_table(dir);
	if (!t) {
		free(dir);
		return;
	}
	memset(seen, 0, sizeof seen);
	CHECK_OK(pm_snapshot_list_ids(t->io, t->path, &ids, &n));
	CHECK(n == PROCS * COMMITS);
	for (i = 0; i < n; i++) {
		pm_snapshot *sn = NULL;
		CHECK(ids[i] == (int64_t)i + 1);
		CHECK_OK(pm_snapshot_load(t->io, t->path, ids[i], &sn));
		if (!sn)
			continue;
		if (sn->commit_user && !strncmp(sn->commit_user, "proc-", 5)) {
			int p = atoi(sn->commit_user + 5);
			if (p >= 0 && p < PROCS && sn->commit_identifier >= 1 && sn->commit_identifier <= COMMITS)
				seen[p][sn->commit_identifier]++;
			else
				CHECK(0);
		} else {
			CHECK(0);
		}
		CHECK(sn->total_record_count == (int64_t)(i + 1) * ROWS);
		CHECK(sn->delta_record_count == ROWS);
		if (i + 1 == n)
			last = sn;
		else
			pm_snapshot_free(sn);
	}
	for (k = 0; k < PROCS; k++) {
		int j;
		for (j = 1; j <= COMMITS; j++)
			CHECK(seen[k][j] == 1);
	}
	if (last) {
		int64_t rows = 0;
		CHECK_OK(pm_manifest_read_all(t->io, t->path, last->base_manifest_list, last->delta_manifest_list, NULL,
					      &live));
		CHECK(live.len == PROCS * COMMITS);
		for (i = 0; i < live.len; i++)
			rows += live.items[i].file.row_count;
		CHECK(rows == PROCS * COMMITS * ROWS);
	}
	snprintf(d, sizeof d, "%s/db.db/t/snapshot", dir);
	CHECK(count_tmp(d) == 0);
	snprintf(d, sizeof d, "%s/db.db/t/manifest", dir);
	CHECK(count_tmp(d) == 0);
	snprintf(d, sizeof d, "%s/db.db/t/bucket-0", dir);
	CHECK(count_tmp(d) == 0);
	pm_manifest_entry_list_dispose(&live);
	pm_snapshot_free(last);
	pm_free(ids);
	paimon_table_free(t);
	free(dir);
}

TEST_MAIN(T(concurrent))
