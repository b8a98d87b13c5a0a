/*
 * tests/unit/table/test_branch.c - branches (api_branch.c, io/fileio_branch.c):
 * the path mapping, create from a tag / a snapshot / empty, writes to the
 * branch leave main alone and the other way round, the table's expiration
 * and orphan scan keep what a branch uses, fast-forward, and bad names or
 * missing branches failing with errors that name them.
 */
#include "test.h"
#include "paimonc/paimonc.h"
#include "paimonc/table.h"
#include "core/mem.h"
#include "io/fileio.h"
#include "maint/orphan.h"
#include "tablefix.h"

#include <sys/stat.h>
#include <unistd.h>

static int exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0;
}

static void path_mapping(void)
{
	pm_fileio *local = NULL, *b = NULL;
	char *dir = test_tmpdir(), p[4200], q[4200];
	int ex = 0;
	CHECK_OK(pm_fileio_local_new(&local));
	CHECK_OK(pm_fileio_branch_new(local, dir, "dev", &b));
	CHECK(pm_fileio_is_branch(b) && !pm_fileio_is_branch(NULL));
	snprintf(p, sizeof p, "%s/snapshot/snapshot-1", dir);
	CHECK_OK(pm_fileio_mkdirs(b, p));
	snprintf(q, sizeof q, "%s/branch/branch-dev/snapshot/snapshot-1", dir);
	CHECK(exists(q));
	/* shared directories pass through; a prefix that is not a directory too */
	snprintf(p, sizeof p, "%s/manifest", dir);
	CHECK_OK(pm_fileio_mkdirs(b, p));
	snprintf(p, sizeof p, "%s/manifest/m-1", dir);
	CHECK_OK(pm_fileio_write_new_atomic(b, p, "x", 1));
	CHECK(exists(p));
	snprintf(p, sizeof p, "%s/snapshots-not/x", dir);
	CHECK_OK(pm_fileio_mkdirs(b, p));
	CHECK(exists(p));
	snprintf(p, sizeof p, "%s/tag", dir);
	CHECK_OK(pm_fileio_mkdirs(b, p));
	snprintf(q, sizeof q, "%s/branch/branch-dev/tag", dir);
	CHECK(exists(q));
	snprintf(p, sizeof p, "%s/schema/schema-0", dir);
	CHECK_OK(pm_fileio_exists(b, p, &ex));
	CHECK(!ex);
	pm_fileio_close(b);
	free(dir);
}

static void create_write_read(void)
{
	char *dir = test_tmpdir(), p[4300];
	paimon_table *t = make_table(dir), *b;
	char **names = NULL;
	size_t n = 0;
	int64_t rows, sum, rows0, sum0, r2, s2;
	write_commit(t, 5, 0, 2, 0);
	write_commit(t, 3, 100, 2, 0);
	CHECK_OK(paimon_table_create_tag(t, "t1", 1, 0));
	read_sum(t, "scan.snapshot-id", "1", &rows0, &sum0);
	read_sum(t, NULL, NULL, &r2, &s2);

	CHECK_OK(paimon_table_create_branch(t, "dev", "t1", 0, 0));
	CHECK_OK(paimon_table_create_branch(t, "snap", NULL, 2, 0));
	CHECK_OK(paimon_table_create_branch(t, "empty", NULL, 0, 0));
	CHECK_RC(paimon_table_create_branch(t, "dev", NULL, 0, 0), PAIMON_EEXISTS);
	CHECK_OK(paimon_table_create_branch(t, "dev", NULL, 0, 1));
	CHECK_RC(paimon_table_create_branch(t, "main", NULL, 0, 0), PAIMON_EINVAL);
	CHECK_RC(paimon_table_create_branch(t, "42", NULL, 0, 0), PAIMON_EINVAL);
	CHECK_RC(paimon_table_create_branch(t, "x", "nope", 0, 0), PAIMON_ENOTFOUND);
	CHECK(strstr(paimon_error_message(), "nope") != NULL);
	CHECK_RC(paimon_table_create_branch(t, "x", "t1", 2, 0), PAIMON_EINVAL);
	snprintf(p, sizeof p, "%s/db.db/t/branch/branch-x", dir);
	CHECK(!exists(p));
	CHECK_OK(paimon_table_list_branches(t, &names, &n));
	CHECK(n == 3 && !strcmp(names[0], "dev") && !strcmp(names[1], "empty") && !strcmp(names[2], "snap"));
	paimon_string_list_free(names, n);
	snprintf(p, sizeof p, "%s/db.db/t/branch/branch-dev/tag/tag-t1", dir);
	CHECK(exists(p));

	b = open_as(dir, "db.t$branch_dev");
	read_sum(b, NULL, NULL, &rows, &sum);
	CHECK(rows == rows0 && sum == sum0);
	write_commit(b, 4, 1000, 2, 0);
	read_sum(b, NULL, NULL, &rows, &sum);
	CHECK(rows == rows0 + 4 && sum == sum0 + 1000 + 1001 + 1002 + 1003);
	CHECK_RC(paimon_table_create_branch(b, "y", NULL, 0, 0), PAIMON_EINVAL); /* branches of main only */
	paimon_table_free(b);
	read_sum(t, NULL, NULL, &rows, &sum);
	CHECK(rows == r2 && sum == s2);
	b = open_as(dir, "db.t$branch_snap");
	read_sum(b, NULL, NULL, &rows, &sum);
	CHECK(rows == r2 && sum == s2);
	paimon_table_free(b);
	b = open_as(dir, "db.t$branch_empty");
	read_sum(b, NULL, NULL, &rows, &sum);
	CHECK(rows <= 0); /* no snapshot */
	paimon_table_free(b);
	{
		paimon_table *none = NULL;
		CHECK_RC(get_table_rc(dir, "db.t$branch_nope", &none), PAIMON_ENOTFOUND);
		CHECK(none == NULL);
	}
	CHECK(strstr(paimon_error_message(), "branch 'nope'") != NULL);

	/* the main table overwrites everything and expires hard: the branch keeps reading */
	write_commit(t, 2, 5000, 2, 1);
	CHECK_OK(paimon_table_delete_tag(t, "t1", 0));
	{
		paimon_options *o;
		int64_t expired = 0;
		CHECK_OK(paimon_options_new(&o));
		CHECK_OK(paimon_options_set(o, "snapshot.num-retained.min", "1"));
		CHECK_OK(paimon_options_set(o, "snapshot.num-retained.max", "1"));
		CHECK_OK(paimon_options_set(o, "snapshot.time-retained", "1 ms"));
		usleep(2000);
		CHECK_OK(paimon_table_expire_snapshots(t, o, 0, &expired, NULL, NULL, NULL));
		CHECK(expired == 2);
		paimon_options_free(o);
	}
	b = open_as(dir, "db.t$branch_dev");
	read_sum(b, NULL, NULL, &rows, &sum);
	CHECK(rows == rows0 + 4);
	CHECK_RC(paimon_table_expire_snapshots(b, NULL, 1, NULL, NULL, NULL, NULL), PAIMON_EUNSUPPORTED);
	CHECK_RC(paimon_table_remove_orphan_files(b, 0, 1, NULL, NULL, NULL), PAIMON_EINVAL);
	paimon_table_free(b);
	{
		pm_fileio *io = NULL;
		pm_orphan_list l = {0};
		char tp[4200];
		snprintf(tp, sizeof tp, "%s/db.db/t", dir);
		CHECK_OK(pm_fileio_local_new(&io));
		CHECK_OK(pm_table_find_orphans(io, tp, INT64_MAX, &l));
		/* main's expired data files are orphans of nobody: the branch uses them */
		CHECK(l.paths.len == 0);
		pm_orphan_list_dispose(&l);
		pm_fileio_close(io);
	}

	/* fast-forward: the table becomes the branch */
	CHECK_RC(paimon_table_fast_forward(t, "empty"), PAIMON_EINVAL);
	CHECK_RC(paimon_table_fast_forward(t, "nope"), PAIMON_ENOTFOUND);
	CHECK_OK(paimon_table_fast_forward(t, "dev"));
	paimon_table_free(t);
	t = open_as(dir, "db.t");
	read_sum(t, NULL, NULL, &rows, &sum);
	CHECK(rows == rows0 + 4);
	CHECK_OK(paimon_table_rename_branch(t, "dev", "dev2"));
	CHECK_RC(paimon_table_rename_branch(t, "dev", "dev3"), PAIMON_ENOTFOUND);
	CHECK_OK(paimon_table_drop_branch(t, "dev2", 0));
	CHECK_RC(paimon_table_drop_branch(t, "dev2", 0), PAIMON_ENOTFOUND);
	CHECK_OK(paimon_table_drop_branch(t, "dev2", 1));
	paimon_table_free(t);
	free(dir);
}

TEST_MAIN(T(path_mapping), T(create_write_read))
