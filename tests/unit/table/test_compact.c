/*
 * tests/unit/table/test_compact.c - append-table compaction
 * (maint/compact.h, paimon_table_compact): Java's plan rules, the COMPACT
 * snapshot and what it reads, dry runs, options and refusals, partition
 * filters, a concurrent append (kept) and a concurrent overwrite (a
 * conflict: nothing committed, the new files removed), and a fault or a
 * crash at every write of a compaction: the table keeps reading the same
 * rows and a rerun finishes the job.
 *
 * The table: db.t (id INT, name STRING, dt STRING) partitioned by dt,
 * 12 commits of a few rows each over partitions p0 and p1: 24 small files.
 */
#include "test.h"
#include "paimonc/paimonc.h"
#include "paimonc/table.h"
#include "arrow/arrow_builder.h"
#include "core/mem.h"
#include "core/strs.h"
#include "io/fileio.h"
#include "io/fileio_fault.h"
#include "meta/schema.h"
#include "meta/snapshot.h"
#include "maint/compact.h"
#include "maint/orphan.h"
#include "tablefix.h"

#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

static void sh(const char *fmt, const char *a, const char *b)
{
	char cmd[8400];
	snprintf(cmd, sizeof cmd, fmt, a, b);
	CHECK(system(cmd) == 0);
}

static void table_path(const char *wh, char *out, size_t n)
{
	snprintf(out, n, "%s/db.db/t", wh);
}

/* The base tables: [0] plain append, [1] data evolution (row tracking):
 * the same 12 commits. g_de picks the one fresh() copies. */
static char *g_base[2];
static int g_de;
static int64_t g_rows, g_sum;

static paimon_table *make_de_table(const char *dir)
{
	static const char *const de[] = {"row-tracking.enabled", "true", "data-evolution.enabled", "true"};
	return make_table_with(dir, de, 2);
}

static const char *base(void)
{
	paimon_table *t;
	int i;
	if (g_base[g_de])
		return g_base[g_de];
	g_base[g_de] = test_tmpdir();
	t = g_de ? make_de_table(g_base[g_de]) : make_table(g_base[g_de]);
	/* data evolution: one partition, as row ids are table-wide and Java
	 * 1.4.2 only merges groups whose row-id ranges touch */
	for (i = 0; i < 12; i++)
		write_commit(t, 2 + i % 3, 1000 * i, g_de ? 1 : 2, 0);
	read_sum(t, NULL, NULL, &g_rows, &g_sum);
	CHECK(g_rows > 24);
	paimon_table_free(t);
	return g_base[g_de];
}

static void fresh(const char *wh)
{
	char cmd[8400];
	snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -a '%s' '%s'", wh, base(), wh);
	CHECK(system(cmd) == 0);
}

static int64_t live_files(paimon_table *t)
{
	paimon_read_builder *rb = NULL;
	paimon_plan *p = NULL;
	int64_t n = 0;
	size_t i;
	CHECK_OK(paimon_read_builder_new(&rb, t));
	CHECK_OK(paimon_read_builder_plan(rb, &p));
	for (i = 0; p && i < paimon_plan_split_count(p); i++)
		n += (int64_t)paimon_split_file_count(paimon_plan_split(p, i));
	paimon_plan_free(p);
	paimon_read_builder_free(rb);
	return n;
}

static char *latest_kind(paimon_table *t)
{
	paimon_snapshot *s = NULL;
	char *k;
	CHECK_OK(paimon_table_latest_snapshot(t, &s));
	k = strdup(s ? paimon_snapshot_commit_kind(s) : "");
	paimon_snapshot_free(s);
	return k;
}

static paimon_options *opts_of(const char *k1, const char *v1, const char *k2, const char *v2)
{
	paimon_options *o;
	CHECK_OK(paimon_options_new(&o));
	if (k1)
		CHECK_OK(paimon_options_set(o, k1, v1));
	if (k2)
		CHECK_OK(paimon_options_set(o, k2, v2));
	return o;
}

/* Default options: one group per partition (12 files each, their open
 * cost far from 2 * 256 MiB, but >= compaction.min.file-num 5). */
static void compacts_as_java_plans(void)
{
	char *dir = test_tmpdir(), wh[4096], tp[4200], *kind;
	paimon_compact_result r;
	paimon_table *t;
	pm_strlist missing = {0};
	pm_fileio *io = NULL;
	int64_t rows, sum, before;
	char **files = NULL, v[32];
	int64_t *tasks = NULL;
	size_t n = 0, i;
	snprintf(wh, sizeof wh, "%s/wh", dir);
	fresh(wh);
	table_path(wh, tp, sizeof tp);
	t = open_as(wh, "db.t");
	CHECK(live_files(t) == 24);
	CHECK_OK(paimon_table_compact_plan(t, NULL, NULL, &files, &tasks, &n));
	CHECK(n == 24);
	for (i = 0; i < n; i++)
		CHECK(tasks[i] == (i < 12 ? 0 : 1));
	paimon_string_list_free(files, n);
	paimon_free(tasks);

	CHECK_OK(paimon_table_compact(t, NULL, NULL, 0, NULL, NULL, &r));
	CHECK(r.tasks == 2 && r.files_before == 24 && r.files_after == 2 && r.rows == g_rows);
	CHECK(r.snapshot_id == 13 && r.base_snapshot == 12 && r.bytes_after > 0 && r.bytes_before > r.bytes_after);
	kind = latest_kind(t);
	CHECK_STR(kind, "COMPACT");
	free(kind);
	CHECK(live_files(t) == 2);
	read_sum(t, NULL, NULL, &rows, &sum);
	CHECK(rows == g_rows && sum == g_sum);
	before = r.base_snapshot;
	snprintf(v, sizeof v, "%lld", (long long)before);
	read_sum(t, "scan.snapshot-id", v, &rows, &sum);
	CHECK(rows == g_rows && sum == g_sum);
	/* two files left, fewer than compaction.min.file-num: nothing to do */
	CHECK_OK(paimon_table_compact(t, NULL, NULL, 0, NULL, NULL, &r));
	CHECK(r.tasks == 0 && r.snapshot_id == -1 && r.base_snapshot == 13);
	CHECK_OK(pm_fileio_local_new(&io));
	CHECK_OK(pm_table_find_missing(io, tp, &missing));
	CHECK(missing.len == 0);
	pm_strlist_dispose(&missing);
	pm_fileio_close(io);
	paimon_table_free(t);
	sh("rm -rf '%s'%s", dir, "");
	free(dir);
}

static void progress_counts(void *ctx, int64_t done, int64_t total)
{
	int64_t *last = ctx;
	CHECK(done > last[0] && done <= total);
	last[0] = done;
	last[1] = total;
}

static void dry_run_options_and_filters(void)
{
	char *dir = test_tmpdir(), wh[4096], tp[4200];
	pm_strlist before = {0}, after = {0};
	paimon_compact_result r;
	paimon_options *o;
	paimon_predicate *p0 = NULL, *bad = NULL;
	paimon_table *t;
	int64_t rows, sum, prog[2] = {0, 0};
	const char *lit = "p0";
	size_t i;
	snprintf(wh, sizeof wh, "%s/wh", dir);
	fresh(wh);
	table_path(wh, tp, sizeof tp);
	t = open_as(wh, "db.t");
	tree_files(tp, &before);
	CHECK_OK(paimon_table_compact(t, NULL, NULL, 1, NULL, NULL, &r));
	CHECK(r.tasks == 2 && r.files_before == 24 && r.files_after == 0 && r.snapshot_id == -1);
	tree_files(tp, &after);
	CHECK(before.len == after.len);
	for (i = 0; i < before.len && i < after.len; i++)
		CHECK_STR(before.items[i], after.items[i]);
	pm_strlist_dispose(&after);

	/* a group needs compaction.min.file-num files */
	o = opts_of("compaction.min.file-num", "13", NULL, NULL);
	CHECK_OK(paimon_table_compact(t, NULL, o, 1, NULL, NULL, &r));
	CHECK(r.tasks == 0);
	paimon_options_free(o);
	/* a small target: bins close at 2 * target-file-size, each file
	 * counting its size + the open cost, so more, smaller groups */
	o = opts_of("target-file-size", "4kb", "source.split.open-file-cost", "1kb");
	CHECK_OK(paimon_table_compact(t, NULL, o, 1, NULL, NULL, &r));
	CHECK(r.tasks > 2);
	paimon_options_free(o);
	/* bad options name themselves */
	o = opts_of("compaction.min.file-num", "zero", NULL, NULL);
	CHECK_RC(paimon_table_compact(t, NULL, o, 1, NULL, NULL, &r), PAIMON_EINVAL);
	CHECK(strstr(paimon_error_message(), "compaction.min.file-num") != NULL);
	paimon_options_free(o);
	o = opts_of("compaction.threads", "0", NULL, NULL);
	CHECK_RC(paimon_table_compact(t, NULL, o, 1, NULL, NULL, &r), PAIMON_EINVAL);
	CHECK(strstr(paimon_error_message(), "compaction.threads") != NULL);
	paimon_options_free(o);
	o = opts_of("target-file-size", "-3", NULL, NULL);
	CHECK_RC(paimon_table_compact(t, NULL, o, 1, NULL, NULL, &r), PAIMON_EINVAL);
	paimon_options_free(o);
	/* a partition filter: only p0; one on another column is refused */
	CHECK_OK(paimon_predicate_leaf(&p0, "dt", PAIMON_PRED_EQUAL, &lit, NULL, 1));
	CHECK_OK(paimon_predicate_leaf(&bad, "name", PAIMON_PRED_EQUAL, &lit, NULL, 1));
	CHECK_RC(paimon_table_compact(t, bad, NULL, 1, NULL, NULL, &r), PAIMON_EINVAL);
	CHECK(strstr(paimon_error_message(), "partition key") != NULL);
	o = opts_of("compaction.threads", "2", NULL, NULL);
	CHECK_OK(paimon_table_compact(t, p0, o, 0, progress_counts, prog, &r));
	CHECK(r.tasks == 1 && r.files_before == 12 && r.files_after == 1 && r.snapshot_id == 13);
	CHECK(prog[0] == 12 && prog[1] == 12);
	paimon_options_free(o);
	CHECK(live_files(t) == 13);
	read_sum(t, NULL, NULL, &rows, &sum);
	CHECK(rows == g_rows && sum == g_sum);
	paimon_predicate_free(p0);
	paimon_predicate_free(bad);
	pm_strlist_dispose(&before);
	paimon_table_free(t);
	sh("rm -rf '%s'%s", dir, "");
	free(dir);
}

static void refuses_other_tables(void)
{
	static const char *const flags[] = {"row-tracking.enabled", "deletion-vectors.enabled"};
	char *dir = test_tmpdir(), wh[4096];
	paimon_compact_result r;
	paimon_table *t;
	size_t i;
	for (i = 0; i < 2; i++) {
		paimon_options *o = opts_of(flags[i], "true", NULL, NULL);
		snprintf(wh, sizeof wh, "%s/wh%zu", dir, i);
		fresh(wh);
		t = open_as(wh, "db.t");
		/* dynamic options decide as table options would */
		CHECK_RC(paimon_table_compact(t, NULL, o, 1, NULL, NULL, &r), PAIMON_EUNSUPPORTED);
		CHECK(strstr(paimon_error_message(), flags[i]) != NULL);
		paimon_options_free(o);
		paimon_table_free(t);
	}
	sh("rm -rf '%s'%s", dir, "");
	free(dir);
}

/* A commit lands while the compaction rewrites (from its progress hook):
 * an append is kept on top; an overwrite of the compacted partitions is a
 * conflict (nothing committed, the new files removed). */
typedef struct racer {
	const char *wh;
	int overwrite;
	int done;
} racer;

static void race(void *ctx, int64_t done, int64_t total)
{
	racer *rc = ctx;
	paimon_table *t;
	(void)done;
	(void)total;
	if (rc->done++)
		return;
	t = open_as(rc->wh, "db.t");
	write_commit(t, 3, 900000, 2, rc->overwrite);
	paimon_table_free(t);
}

static void concurrent_commits(void)
{
	char *dir = test_tmpdir(), wh[4096], tp[4200], *kind;
	paimon_compact_result r;
	paimon_table *t;
	pm_orphan_list orph = {0};
	pm_fileio *io = NULL;
	int64_t rows, sum, want_rows, want_sum;
	racer rc;
	snprintf(wh, sizeof wh, "%s/wh", dir);
	table_path(wh, tp, sizeof tp);
	CHECK_OK(pm_fileio_local_new(&io));

	fresh(wh);
	t = open_as(wh, "db.t");
	rc.wh = wh;
	rc.overwrite = 0;
	rc.done = 0;
	CHECK_OK(paimon_table_compact(t, NULL, NULL, 0, race, &rc, &r));
	CHECK(r.snapshot_id == 14 && r.base_snapshot == 12);
	read_sum(t, NULL, NULL, &rows, &sum);
	CHECK(rows == g_rows + 3 && sum == g_sum + 3 * 900000 + 3);
	CHECK(live_files(t) == 2 + 2);
	paimon_table_free(t);

	fresh(wh);
	t = open_as(wh, "db.t");
	rc.overwrite = 1;
	rc.done = 0;
	CHECK_RC(paimon_table_compact(t, NULL, NULL, 0, race, &rc, &r), PAIMON_ECONFLICT);
	CHECK(strstr(paimon_error_message(), "File deletion conflicts detected") != NULL);
	CHECK(r.snapshot_id == -1);
	kind = latest_kind(t);
	CHECK_STR(kind, "OVERWRITE");
	free(kind);
	read_sum(t, "scan.snapshot-id", "13", &want_rows, &want_sum);
	read_sum(t, NULL, NULL, &rows, &sum);
	CHECK(rows == want_rows && sum == want_sum && rows == 3);
	/* the compaction's files are gone: only the overwritten ones and the
	 * older snapshots' files are unreferenced by the latest snapshot, and
	 * every file is referenced by some snapshot */
	CHECK_OK(pm_table_find_orphans(io, tp, INT64_MAX, &orph));
	CHECK(orph.paths.len == 0);
	pm_orphan_list_dispose(&orph);
	paimon_table_free(t);
	pm_fileio_close(io);
	sh("rm -rf '%s'%s", dir, "");
	free(dir);
}

/* ------------------------------------------------------------- crashes */

static int run_compact(pm_fileio *io, const char *wh)
{
	char tp[4200];
	pm_table_schema *s = NULL;
	pm_compact_opts o;
	pm_compact_result r;
	int rc;
	table_path(wh, tp, sizeof tp);
	if ((rc = pm_schema_load_latest(io, tp, &s)))
		return rc;
	memset(&o, 0, sizeof o);
	rc = pm_table_compact(io, tp, s, &o, &r);
	pm_compact_result_dispose(&r);
	pm_schema_free(s);
	return rc;
}

static void check_reads(const char *wh)
{
	paimon_table *t = open_as(wh, "db.t");
	int64_t rows, sum;
	read_sum(t, NULL, NULL, &rows, &sum);
	CHECK(rows == g_rows && sum == g_sum);
	read_sum(t, "scan.snapshot-id", "12", &rows, &sum);
	CHECK(rows == g_rows && sum == g_sum);
	paimon_table_free(t);
}

static void crash_matrix(void)
{
	static const pm_fault_action crash_modes[] = {PM_FAULT_CRASH_BEFORE, PM_FAULT_CRASH_AFTER, PM_FAULT_CRASH_TORN};
	char *dir = test_tmpdir(), wh[4096], tp[4200];
	pm_fault_plan plan;
	pm_fault_ctl *ctl = NULL;
	pm_fileio *inner = NULL, *fio = NULL, *io = NULL;
	uint64_t n, i;
	int m, runs = 0;
	snprintf(wh, sizeof wh, "%s/wh", dir);
	table_path(wh, tp, sizeof tp);
	CHECK_OK(pm_fileio_local_new(&io));

	fresh(wh);
	memset(&plan, 0, sizeof plan);
	plan.ops_mask = PM_FOP_WRITES;
	CHECK_OK(pm_fault_ctl_new(&plan, &ctl));
	CHECK_OK(pm_fileio_local_new(&inner));
	CHECK_OK(pm_fileio_fault_new(ctl, inner, &fio));
	CHECK_OK(run_compact(fio, wh));
	n = pm_fault_ctl_count(ctl);
	CHECK(n >= 6);
	pm_fileio_close(fio);
	pm_fault_ctl_free(ctl);

	for (i = 1; i <= n; i++) {
		for (m = -1; m < 3; m++) {
			pm_strlist missing = {0};
			paimon_table *t;
			char *kind;
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
				(void)run_compact(fio, wh); /* may succeed: a failed sync is retried by no one */
				paimon_error_clear();
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
					(void)run_compact(fio, wh);
					_exit(0);
				}
				CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
				CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 86);
			}
			check_reads(wh);
			/* a rerun finishes the job (or finds it done) */
			CHECK_OK(run_compact(io, wh));
			check_reads(wh);
			t = open_as(wh, "db.t");
			kind = latest_kind(t);
			CHECK_STR(kind, "COMPACT");
			free(kind);
			CHECK(live_files(t) == (g_de ? 1 : 2));
			paimon_table_free(t);
			CHECK_OK(pm_table_find_missing(io, tp, &missing));
			CHECK(missing.len == 0);
			pm_strlist_dispose(&missing);
			runs++;
		}
	}
	printf("compact crash matrix (%s): %llu write operations, %d runs\n", g_de ? "data evolution" : "append",
	       (unsigned long long)n, runs);
	pm_fileio_close(io);
	sh("rm -rf '%s'%s", dir, "");
	free(dir);
}

static void crash_at_every_step(void)
{
	g_de = 0;
	crash_matrix();
	g_de = 1;
	crash_matrix();
	g_de = 0;
}

/* Data evolution: the 12 one-file groups of a partition fold into one
 * file keeping their row ids (Java's DataEvolutionCompactCoordinator);
 * groups whose ranges do not touch are never merged. */
static void data_evolution(void)
{
	char *dir = test_tmpdir(), wh[4096];
	paimon_compact_result r;
	paimon_table *t;
	int64_t rows, sum;
	g_de = 1;
	snprintf(wh, sizeof wh, "%s/wh", dir);
	fresh(wh);
	t = open_as(wh, "db.t");
	CHECK_OK(paimon_table_compact(t, NULL, NULL, 0, NULL, NULL, &r));
	CHECK(r.tasks == 1 && r.files_before == 12 && r.files_after == 1 && r.rows == g_rows);
	read_sum(t, NULL, NULL, &rows, &sum);
	CHECK(rows == g_rows && sum == g_sum);
	CHECK(live_files(t) == 1);
	paimon_table_free(t);
	/* interleaved partitions: p0's groups are separated by p1's row ids */
	sh("rm -rf '%s'%s", wh, "");
	t = make_de_table(wh);
	for (rows = 0; rows < 8; rows++)
		write_commit(t, 3, (int32_t)(1000 * rows), 2, 0);
	CHECK_OK(paimon_table_compact(t, NULL, NULL, 0, NULL, NULL, &r));
	CHECK(r.tasks == 0 && r.snapshot_id == -1);
	paimon_table_free(t);
	g_de = 0;
	sh("rm -rf '%s'%s", dir, "");
	free(dir);
}

TEST_MAIN(T(compacts_as_java_plans), T(data_evolution), T(dry_run_options_and_filters), T(refuses_other_tables),
	  T(concurrent_commits), T(crash_at_every_step))
