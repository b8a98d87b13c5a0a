/*
 * tests/unit/table/test_expire.c - snapshot expiration (maint/expire.h,
 * paimon_table_expire_snapshots), tag deletion with clean-up, the
 * maintenance commits run, and Java-style durations.
 *
 * The table: 8 commits to a partitioned append table (snapshot 4 a
 * dynamic overwrite that deletes the files of partition p0 written so far),
 * tag t2 on snapshot 2. Expiring with retain min 2 removes snapshots 1-6.
 * Then: the rule Java applies (counts, EARLIEST), exactly the files no
 * retained snapshot or tag needs are deleted, a dry run reports the same
 * and touches nothing, and a fault or a crash at every write or delete
 * leaves snapshots 7, 8 and the tag readable while a rerun reaches exactly
 * the state of an undisturbed run.
 */
#include "test.h"
#include "paimonc/paimonc.h"
#include "paimonc/table.h"
#include "arrow/arrow_builder.h"
#include "core/mem.h"
#include "core/strs.h"
#include "io/fileio.h"
#include "io/fileio_fault.h"
#include "meta/snapshot.h"
#include "api/handles.h"
#include "maint/expire.h"
#include "maint/orphan.h"
#include "tablefix.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void sh(const char *fmt, const char *a, const char *b)
{
	char cmd[8192];
	snprintf(cmd, sizeof cmd, fmt, a, b);
	CHECK(system(cmd) == 0);
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The base warehouse: 8 snapshots, tag t2 on 2 (built once). */
static char *g_base;
static int64_t g_rows[9], g_sums[9], g_tag_rows, g_tag_sum;

static const char *base(void)
{
	paimon_table *t;
	int64_t i;
	if (g_base)
		return g_base;
	g_base = test_tmpdir();
	t = make_table(g_base);
	for (i = 1; i <= 8; i++) {
		write_commit(t, 5 + i, (int32_t)(i * 100), 2, i == 4);
		if (i == 2)
			CHECK_OK(paimon_table_create_tag(t, "t2", 2, 0));
	}
	for (i = 1; i <= 8; i++) {
		char v[8];
		snprintf(v, sizeof v, "%d", (int)i);
		read_sum(t, "scan.snapshot-id", v, &g_rows[i], &g_sums[i]);
	}
	read_sum(t, "scan.tag-name", "t2", &g_tag_rows, &g_tag_sum);
	CHECK(g_rows[8] > 0 && g_tag_rows == g_rows[2]);
	paimon_table_free(t);
	return g_base;
}

static void fresh(const char *dir)
{
	char cmd[8400];
	snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -a '%s' '%s'", dir, base(), dir);
	CHECK(system(cmd) == 0);
}

static pm_expire_config cfg_min2(void)
{
	pm_expire_config c;
	CHECK_OK(pm_expire_config_from_options(NULL, &c));
	c.retain_min = 2;
	c.retain_max = 5;
	c.time_retained_ms = 0;
	c.max_deletes = 100;
	return c;
}

/* Snapshots 7, 8 and the tag read as they did. */
static void check_retained(const char *wh, const char *what)
{
	paimon_table *t = open_as(wh, "db.t");
	int64_t rows, sum;
	read_sum(t, "scan.snapshot-id", "7", &rows, &sum);
	CHECK(rows == g_rows[7] && sum == g_sums[7]);
	read_sum(t, "scan.snapshot-id", "8", &rows, &sum);
	CHECK(rows == g_rows[8] && sum == g_sums[8]);
	read_sum(t, "scan.tag-name", "t2", &rows, &sum);
	if (rows != g_tag_rows || sum != g_tag_sum)
		fprintf(stderr, "  after %s: tag t2 reads %lld rows\n", what, (long long)rows);
	CHECK(rows == g_tag_rows && sum == g_tag_sum);
	paimon_table_free(t);
}

static int run_expire(pm_fileio *io, const char *wh, int dry_run, pm_expire_result *r)
{
	paimon_table *t = open_as(wh, "db.t");
	pm_expire_config c = cfg_min2();
	int rc;
	memset(r, 0, sizeof *r);
	rc = pm_table_expire_snapshots(io, t->path, t->path, t->schema->schema, &c, now_ms(), dry_run, r);
	paimon_table_free(t);
	return rc;
}

static void table_path(const char *wh, char *out, size_t n)
{
	snprintf(out, n, "%s/db.db/t", wh);
}

static void expires_as_java(void)
{
	char *dir = test_tmpdir(), wh[4096], tp[4200];
	pm_strlist before = {0}, after = {0}, missing = {0};
	pm_expire_result r;
	pm_fileio *io = NULL;
	paimon_table *t;
	int64_t e = 0;
	int found = 0;
	size_t i;
	snprintf(wh, sizeof wh, "%s/wh", dir);
	fresh(wh);
	table_path(wh, tp, sizeof tp);
	tree_files(tp, &before);
	CHECK_OK(pm_fileio_local_new(&io));
	CHECK_OK(run_expire(io, wh, 0, &r));
	CHECK(r.expired == 6 && r.earliest_before == 1 && r.earliest_after == 7 && r.latest == 8);
	CHECK_OK(pm_snapshot_earliest_id(io, tp, &e, &found));
	CHECK(found && e == 7);
	tree_files(tp, &after);
	/* deleted = before - after, and nothing was created but the hint */
	for (i = 0; i < r.deleted.len; i++)
		CHECK(pm_strlist_find(&after, r.deleted.items[i]) < 0 && pm_strlist_find(&before, r.deleted.items[i]) >= 0);
	for (i = 0; i < after.len; i++)
		CHECK(pm_strlist_find(&before, after.items[i]) >= 0 || strstr(after.items[i], "EARLIEST"));
	CHECK(before.len - r.deleted.len + 1 >= after.len);
	/* the overwritten p0 files of snapshots 1-3 are gone except those tag
	 * t2 (snapshot 2) holds; snapshot files 1-6 are gone */
	for (i = 1; i <= 8; i++) {
		char *p = pm_snapshot_path(tp, (int64_t)i);
		CHECK((pm_strlist_find(&after, p) >= 0) == (i >= 7));
		pm_free(p);
	}
	check_retained(wh, "expiration");
	t = open_as(wh, "db.t");
	CHECK_OK(pm_table_find_missing(t->io, t->path, &missing));
	CHECK(missing.len == 0);
	paimon_table_free(t);
	/* a second run has nothing left to do */
	pm_expire_result_dispose(&r);
	CHECK_OK(run_expire(io, wh, 0, &r));
	CHECK(r.expired == 0 && r.deleted.len == 0);
	pm_expire_result_dispose(&r);
	pm_fileio_close(io);
	pm_strlist_dispose(&before);
	pm_strlist_dispose(&after);
	pm_strlist_dispose(&missing);
	sh("rm -rf '%s'%s", dir, "");
	free(dir);
}

static void dry_run_touches_nothing(void)
{
	char *dir = test_tmpdir(), wh[4096], tp[4200];
	pm_strlist before = {0}, after = {0};
	pm_expire_result dry, real;
	pm_fileio *io = NULL;
	size_t i;
	snprintf(wh, sizeof wh, "%s/wh", dir);
	fresh(wh);
	table_path(wh, tp, sizeof tp);
	tree_files(tp, &before);
	CHECK_OK(pm_fileio_local_new(&io));
	CHECK_OK(run_expire(io, wh, 1, &dry));
	tree_files(tp, &after);
	CHECK(before.len == after.len);
	for (i = 0; i < before.len && i < after.len; i++)
		CHECK_STR(before.items[i], after.items[i]);
	CHECK_OK(run_expire(io, wh, 0, &real));
	CHECK(dry.expired == real.expired && dry.deleted.len == real.deleted.len && dry.bytes == real.bytes);
	for (i = 0; i < dry.deleted.len && i < real.deleted.len; i++)
		CHECK_STR(dry.deleted.items[i], real.deleted.items[i]);
	pm_expire_result_dispose(&dry);
	pm_expire_result_dispose(&real);
	pm_fileio_close(io);
	pm_strlist_dispose(&before);
	pm_strlist_dispose(&after);
	sh("rm -rf '%s'%s", dir, "");
	free(dir);
}

/* A fault, or the process dying, at each write/delete of an expiration:
 * the retained snapshots and the tag stay readable; a rerun ends exactly
 * where an undisturbed run does. */
static void crash_at_every_step(void)
{
	static const pm_fault_action crash_modes[] = {PM_FAULT_CRASH_BEFORE, PM_FAULT_CRASH_AFTER, PM_FAULT_CRASH_TORN};
	char *dir = test_tmpdir(), wh[4096], tp[4200];
	pm_strlist want = {0};
	pm_fault_plan plan;
	pm_fault_ctl *ctl = NULL;
	pm_fileio *inner = NULL, *fio = NULL, *io = NULL;
	pm_expire_result r;
	uint64_t n, i;
	int m, runs = 0;
	snprintf(wh, sizeof wh, "%s/wh", dir);
	table_path(wh, tp, sizeof tp);
	CHECK_OK(pm_fileio_local_new(&io));

	/* the undisturbed run, counting its write operations */
	fresh(wh);
	memset(&plan, 0, sizeof plan);
	plan.ops_mask = PM_FOP_WRITES;
	CHECK_OK(pm_fault_ctl_new(&plan, &ctl));
	CHECK_OK(pm_fileio_local_new(&inner));
	CHECK_OK(pm_fileio_fault_new(ctl, inner, &fio));
	CHECK_OK(run_expire(fio, wh, 0, &r));
	pm_expire_result_dispose(&r);
	n = pm_fault_ctl_count(ctl);
	CHECK(n >= 10);
	pm_fileio_close(fio);
	pm_fault_ctl_free(ctl);
	tree_files(tp, &want);

	for (i = 1; i <= n; i++) {
		for (m = -1; m < 3; m++) {
			pm_strlist got = {0};
			size_t k;
			fresh(wh);
			memset(&plan, 0, sizeof plan);
			plan.at = i;
			plan.ops_mask = PM_FOP_WRITES;
			if (m < 0) {
				plan.action = PM_FAULT_FAIL;
				plan.err = EIO;
				CHECK_OK(pm_fault_ctl_new(&plan, &ctl));
				CHECK_OK(pm_fileio_local_new(&inner));
				CHECK_OK(pm_fileio_fault_new(ctl, inner, &fio));
				CHECK(run_expire(fio, wh, 0, &r) != 0);
				paimon_error_clear();
				pm_expire_result_dispose(&r);
				pm_fileio_close(fio);
				pm_fault_ctl_free(ctl);
			} else {
				pid_t pid;
				int status = 0;
				fflush(NULL);
				pid = fork();
				if (pid == 0) {
					plan.action = crash_modes[m];
					if (pm_fault_ctl_new(&plan, &ctl) || pm_fileio_local_new(&inner) ||
					    pm_fileio_fault_new(ctl, inner, &fio))
						_exit(3);
					(void)run_expire(fio, wh, 0, &r);
					_exit(0);
				}
				CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
				CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 86);
			}
			check_retained(wh, "a fault");
			/* the rerun finishes the job */
			CHECK_OK(run_expire(io, wh, 0, &r));
			pm_expire_result_dispose(&r);
			tree_files(tp, &got);
			CHECK(got.len == want.len);
			for (k = 0; k < got.len && k < want.len; k++)
				if (strcmp(got.items[k], want.items[k]) != 0) {
					fprintf(stderr, "  op %llu mode %d: %s vs %s\n", (unsigned long long)i, m,
						got.items[k], want.items[k]);
					CHECK(0);
					break;
				}
			pm_strlist_dispose(&got);
			runs++;
		}
	}
	printf("expire crash matrix: %llu write operations, %d runs\n", (unsigned long long)n, runs);
	pm_fileio_close(io);
	pm_strlist_dispose(&want);
	sh("rm -rf '%s'%s", dir, "");
	free(dir);
}

static void options_and_rules(void)
{
	pm_expire_config c;
	pm_strmap m = {0};
	int64_t ms = 0;
	CHECK_OK(pm_expire_config_from_options(NULL, &c));
	CHECK(c.retain_min == 10 && c.retain_max == INT32_MAX && c.time_retained_ms == 3600000 && c.max_deletes == 50);
	CHECK_OK(pm_strmap_set(&m, "snapshot.time-retained", "30 min"));
	CHECK_OK(pm_strmap_set(&m, "snapshot.num-retained.min", "3"));
	CHECK_OK(pm_strmap_set(&m, "snapshot.num-retained.max", "7"));
	CHECK_OK(pm_expire_config_from_options(&m, &c));
	CHECK(c.time_retained_ms == 1800000 && c.retain_min == 3 && c.retain_max == 7);
	CHECK_OK(pm_strmap_set(&m, "snapshot.num-retained.max", "2"));
	CHECK_RC(pm_expire_config_from_options(&m, &c), PAIMON_EINVAL);
	CHECK_MSG("must not be less than");
	CHECK_OK(pm_strmap_set(&m, "snapshot.num-retained.max", "9"));
	CHECK_OK(pm_strmap_set(&m, "snapshot.num-retained.min", "0"));
	CHECK_RC(pm_expire_config_from_options(&m, &c), PAIMON_EINVAL);
	CHECK_MSG("snapshot.num-retained.min");
	CHECK_OK(pm_strmap_set(&m, "snapshot.num-retained.min", "1"));
	CHECK_OK(pm_strmap_set(&m, "snapshot.time-retained", "1 fortnight"));
	CHECK_RC(pm_expire_config_from_options(&m, &c), PAIMON_EINVAL);
	CHECK_MSG("snapshot.time-retained");
	CHECK_OK(pm_strmap_set(&m, "snapshot.time-retained", "1h"));
	CHECK_OK(pm_strmap_set(&m, "changelog.num-retained.max", "100"));
	CHECK_RC(pm_expire_config_from_options(&m, &c), PAIMON_EUNSUPPORTED);
	CHECK_MSG("decoupled");
	pm_strmap_dispose(&m);
	/* durations as Java's TimeUtils */
	CHECK_OK(pm_parse_duration_ms("k", "500", &ms));
	CHECK(ms == 500);
	CHECK_OK(pm_parse_duration_ms("k", "2 h", &ms));
	CHECK(ms == 7200000);
	CHECK_OK(pm_parse_duration_ms("k", "3d", &ms));
	CHECK(ms == 259200000);
	CHECK_OK(pm_parse_duration_ms("k", "10 SECONDS", &ms));
	CHECK(ms == 10000);
	CHECK_OK(pm_parse_duration_ms("k", "1500 us", &ms));
	CHECK(ms == 1);
	CHECK_RC(pm_parse_duration_ms("k", "-1 s", &ms), PAIMON_EINVAL);
	CHECK_RC(pm_parse_duration_ms("k", "1.5 s", &ms), PAIMON_EINVAL);
	CHECK_RC(pm_parse_duration_ms("k", "", &ms), PAIMON_EINVAL);
	CHECK_RC(pm_parse_duration_ms("k", "99999999999999999999", &ms), PAIMON_EINVAL);
}

/* Consumers hold the snapshots they have not read; the API call takes the
 * table's options with overrides. */
static void consumers_hold_snapshots(void)
{
	char *dir = test_tmpdir(), wh[4096], tp[4200];
	paimon_table *t;
	paimon_options *o;
	pm_fileio *io = NULL;
	int64_t expired = -1, next = 0;
	int found = 0;
	snprintf(wh, sizeof wh, "%s/wh", dir);
	fresh(wh);
	table_path(wh, tp, sizeof tp);
	CHECK_OK(pm_fileio_local_new(&io));
	CHECK_OK(pm_consumer_write(io, tp, "job-a", 4));
	CHECK_OK(pm_consumer_write(io, tp, "job-b", 6));
	CHECK_OK(pm_consumer_min_next_snapshot(io, tp, &next, &found));
	CHECK(found && next == 4);
	t = open_as(wh, "db.t");
	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "snapshot.num-retained.min", "1"));
	CHECK_OK(paimon_options_set(o, "snapshot.time-retained", "0 ms"));
	CHECK_OK(paimon_table_expire_snapshots(t, o, 0, &expired, NULL, NULL, NULL));
	CHECK(expired == 3); /* 1-3: job-a still needs 4 */
	CHECK_OK(pm_consumer_expire(io, tp, now_ms() + 1000));
	CHECK_OK(pm_consumer_min_next_snapshot(io, tp, &next, &found));
	CHECK(!found);
	CHECK_OK(paimon_options_set(o, "snapshot.expire.limit", "2"));
	CHECK_OK(paimon_table_expire_snapshots(t, o, 0, &expired, NULL, NULL, NULL));
	CHECK(expired == 2); /* 4-5: the limit */
	CHECK_OK(paimon_options_set(o, "snapshot.num-retained.min", "nope"));
	CHECK_RC(paimon_table_expire_snapshots(t, o, 0, &expired, NULL, NULL, NULL), PAIMON_EINVAL);
	CHECK_MSG("snapshot.num-retained.min");
	paimon_options_free(o);
	paimon_table_free(t);
	pm_fileio_close(io);
	sh("rm -rf '%s'%s", dir, "");
	free(dir);
}

/* Commits expire by the table's options, unless write-only. */
static void commits_expire(void)
{
	char *dir = test_tmpdir();
	paimon_table *t = make_table(dir);
	paimon_options *o;
	int64_t *ids = NULL;
	size_t n = 0, i;
	int64_t rows, sum;
	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "snapshot.num-retained.min", "2"));
	CHECK_OK(paimon_options_set(o, "snapshot.num-retained.max", "3"));
	CHECK_OK(paimon_options_set(o, "snapshot.time-retained", "0 s"));
	CHECK_OK(paimon_options_set(o, "write-only", "true"));
	g_copts = o;
	for (i = 0; i < 4; i++)
		write_commit(t, 3, (int32_t)(i * 10), 2, 0);
	CHECK_OK(pm_snapshot_list_ids(t->io, t->path, &ids, &n));
	CHECK(n == 4); /* write-only: nothing expires */
	pm_free(ids);
	CHECK_OK(paimon_options_set(o, "write-only", "false"));
	write_commit(t, 3, 100, 2, 0);
	CHECK_OK(pm_snapshot_list_ids(t->io, t->path, &ids, &n));
	CHECK(n == 2 && ids[0] == 4 && ids[1] == 5);
	pm_free(ids);
	read_sum(t, NULL, NULL, &rows, &sum);
	CHECK(rows == 15);
	g_copts = NULL;
	paimon_options_free(o);
	paimon_table_free(t);
	sh("rm -rf '%s'%s", dir, "");
	free(dir);
}

/* Deleting a tag whose snapshot has expired removes what only it used. */
static void tag_deletion_cleans(void)
{
	char *dir = test_tmpdir(), wh[4096], tp[4200];
	pm_strlist missing = {0}, orph_before = {0};
	pm_orphan_list orph = {0};
	pm_expire_result r;
	pm_fileio *io = NULL;
	paimon_table *t;
	snprintf(wh, sizeof wh, "%s/wh", dir);
	fresh(wh);
	table_path(wh, tp, sizeof tp);
	CHECK_OK(pm_fileio_local_new(&io));
	CHECK_OK(run_expire(io, wh, 0, &r));
	pm_expire_result_dispose(&r);
	t = open_as(wh, "db.t");
	CHECK_OK(paimon_table_delete_tag(t, "t2", 0));
	CHECK_RC(paimon_table_delete_tag(t, "t2", 0), PAIMON_ENOTFOUND);
	CHECK_OK(paimon_table_delete_tag(t, "t2", 1));
	/* nothing unreferenced is left, nothing referenced is missing */
	CHECK_OK(pm_table_find_orphans(io, tp, now_ms() + 86400000LL, &orph));
	CHECK(orph.paths.len == 0);
	CHECK_OK(pm_table_find_missing(io, tp, &missing));
	CHECK(missing.len == 0);
	{
		int64_t rows, sum;
		read_sum(t, "scan.snapshot-id", "8", &rows, &sum);
		CHECK(rows == g_rows[8] && sum == g_sums[8]);
	}
	pm_orphan_list_dispose(&orph);
	pm_strlist_dispose(&missing);
	pm_strlist_dispose(&orph_before);
	paimon_table_free(t);
	pm_fileio_close(io);
	sh("rm -rf '%s'%s", dir, "");
	free(dir);
}

TEST_MAIN(T(options_and_rules), T(expires_as_java), T(dry_run_touches_nothing), T(consumers_hold_snapshots),
	  T(commits_expire), T(tag_deletion_cleans), T(crash_at_every_step))
