/*
 * tests/unit/table/crashfix.h - the crash / I/O-fault matrix the
 * data-evolution commit tests share (test_commit_de_crash, test_delete).
 *
 * A workload is set up on a fresh table, then run through the
 * fault-injecting FileIO: a dry run counts its write operations; for each
 * of them (1) in process, the operation fails with EIO, and (2) in a forked
 * child the process dies before, after or in the middle of it. After each:
 * the table is exactly the old or exactly the new state, and a retry with
 * the same commit user and identifier leaves exactly one commit of them, in
 * the new state.
 */
#ifndef PM_TESTS_CRASHFIX_H
#define PM_TESTS_CRASHFIX_H

#include "test.h"
#include "paimonc/paimonc.h"
#include "api/handles.h"
#include "io/fileio.h"
#include "io/fileio_fault.h"
#include "meta/snapshot.h"

#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

static void crashfix_rm_rf(const char *dir)
{
	char cmd[4300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

/* Latest snapshot id, 0 when none. */
static int64_t crashfix_latest(paimon_table *t)
{
	int64_t id = 0;
	int found = 0;
	CHECK_OK(pm_snapshot_latest_id(t->io, t->path, &id, &found));
	return found ? id : 0;
}

/* Snapshots committed by (user, ident). */
static int crashfix_commits_of(paimon_table *t, const char *user, int64_t ident)
{
	int64_t id, last = crashfix_latest(t);
	int n = 0;
	for (id = 1; id <= last; id++) {
		pm_snapshot *s = NULL;
		if (pm_snapshot_load(t->io, t->path, id, &s) == 0) {
			n += s->commit_user && !strcmp(s->commit_user, user) && s->commit_identifier == ident;
			pm_snapshot_free(s);
		} else {
			paimon_error_clear();
		}
	}
	return n;
}

typedef struct crash_workload {
	const char *name;
	const char *user;                                  /* commit user of run */
	int64_t ident;                                     /* its commit identifier */
	uint64_t min_ops;                                  /* the dry run has at least these */
	paimon_table *(*setup)(char **dir);                /* a fresh table (dir malloc'd) */
	int (*run)(paimon_table *t, pm_fileio *io);        /* the workload through io */
	int (*state)(paimon_table *t);                     /* 0 old, 1 new, -1 neither (reported) */
} crash_workload;

static void crashfix_verify(const crash_workload *w, paimon_table *t, int *olds, int *news, const char *what,
			    uint64_t at)
{
	pm_fileio *io = NULL;
	int st = w->state(t);
	if (st < 0)
		fprintf(stderr, "  %s: after %s at write op %llu\n", w->name, what, (unsigned long long)at);
	CHECK(st >= 0);
	*olds += st == 0;
	*news += st == 1;
	CHECK_OK(pm_fileio_local_new(&io));
	CHECK_OK(w->run(t, io)); /* the retry */
	pm_fileio_close(io);
	CHECK(w->state(t) == 1);
	CHECK(crashfix_commits_of(t, w->user, w->ident) == 1);
}

static void crash_matrix(const crash_workload *w)
{
	static const pm_fault_action modes[] = {PM_FAULT_CRASH_BEFORE, PM_FAULT_CRASH_AFTER, PM_FAULT_CRASH_TORN};
	pm_fault_plan plan;
	pm_fault_ctl *ctl = NULL;
	pm_fileio *inner = NULL, *fio = NULL;
	uint64_t n, i;
	char *dir;
	paimon_table *t;
	int olds = 0, news = 0, runs = 0, m;

	/* dry run: the write operations of the workload */
	t = w->setup(&dir);
	memset(&plan, 0, sizeof plan);
	plan.ops_mask = PM_FOP_WRITES;
	CHECK_OK(pm_fault_ctl_new(&plan, &ctl));
	CHECK_OK(pm_fileio_local_new(&inner));
	CHECK_OK(pm_fileio_fault_new(ctl, inner, &fio));
	CHECK_OK(w->run(t, fio));
	n = pm_fault_ctl_count(ctl);
	CHECK(w->state(t) == 1);
	CHECK(n >= w->min_ops);
	pm_fileio_close(fio);
	pm_fault_ctl_free(ctl);
	paimon_table_free(t);
	crashfix_rm_rf(dir);
	free(dir);

	for (i = 1; i <= n; i++) {
		/* an I/O error in process */
		t = w->setup(&dir);
		memset(&plan, 0, sizeof plan);
		plan.at = i;
		plan.ops_mask = PM_FOP_WRITES;
		plan.action = PM_FAULT_FAIL;
		plan.err = EIO;
		CHECK_OK(pm_fault_ctl_new(&plan, &ctl));
		CHECK_OK(pm_fileio_local_new(&inner));
		CHECK_OK(pm_fileio_fault_new(ctl, inner, &fio));
		(void)w->run(t, fio);
		paimon_error_clear();
		pm_fileio_close(fio);
		pm_fault_ctl_free(ctl);
		crashfix_verify(w, t, &olds, &news, "EIO", i);
		runs++;
		paimon_table_free(t);
		crashfix_rm_rf(dir);
		free(dir);

		/* the process dies at the operation */
		for (m = 0; m < 3; m++) {
			pid_t pid;
			int status = 0;
			t = w->setup(&dir);
			fflush(NULL);
			pid = fork();
			if (pid == 0) {
				memset(&plan, 0, sizeof plan);
				plan.at = i;
				plan.ops_mask = PM_FOP_WRITES;
				plan.action = modes[m];
				if (pm_fault_ctl_new(&plan, &ctl) || pm_fileio_local_new(&inner) ||
				    pm_fileio_fault_new(ctl, inner, &fio))
					_exit(2);
				(void)w->run(t, fio);
				_exit(0);
			}
			CHECK(pid > 0);
			waitpid(pid, &status, 0);
			CHECK(WIFEXITED(status) && (WEXITSTATUS(status) == 86 || WEXITSTATUS(status) == 0));
			crashfix_verify(w, t, &olds, &news,
					m == 0 ? "crash before" : m == 1 ? "crash after" : "torn write", i);
			runs++;
			paimon_table_free(t);
			crashfix_rm_rf(dir);
			free(dir);
		}
	}
	printf("  %s: %llu write ops, %d runs: %d left the old state, %d the new one; every retry committed once\n",
	       w->name, (unsigned long long)n, runs, olds, news);
	CHECK(olds > 0 && news > 0);
}

#endif
