/*
 * tests/unit/table/test_power_loss.c - a power cut at every write step of a
 * commit (io/fileio_fault.h PM_FAULT_POWER_LOSS: the process dies and every
 * file written since the last FileIO sync loses its data, as ext4 with
 * delayed allocation can leave it). With the default
 * commit.sync-data-files = true the table afterwards is exactly the old or
 * the new state at every point; with false (what Java and pypaimon do on a
 * local disk) some points leave a published snapshot whose data files are
 * empty - the test requires that too, so it shows what the option trades
 * and that it can detect the loss.
 */
#include "test.h"
#include "paimonc/paimonc.h"
#include "paimonc/table.h"
#include "arrow/arrow_builder.h"
#include "core/mem.h"
#include "io/fileio.h"
#include "io/fileio_fault.h"
#include "meta/snapshot.h"
#include "api/handles.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define ROWS 40

#include "smallfix.h"

/* Child: write ROWS rows (3 partitions -> 3 data files) and commit them. */
static int child_commit(const char *dir, const char *sync_data)
{
	paimon_table *t = NULL;
	paimon_table_write *w = NULL;
	paimon_table_commit *c = NULL;
	paimon_commit_message *m = NULL;
	paimon_options *o = NULL;
	struct ArrowArray a = {0};
	struct ArrowSchema s = {0};
	int rc;
	if ((rc = open_table(dir, &t)) == 0 && (rc = make_batch(1000, &a, &s)) == 0 &&
	    (rc = paimon_table_write_new(&w, t, NULL)) == 0 && (rc = paimon_table_write_arrow(w, &a, &s)) == 0 &&
	    (rc = paimon_table_write_prepare_commit(w, &m)) == 0 && (rc = paimon_options_new(&o)) == 0 &&
	    (rc = paimon_options_set(o, "commit.user", "pl")) == 0 &&
	    (rc = paimon_options_set(o, "commit.sync-data-files", sync_data)) == 0 &&
	    (rc = paimon_table_commit_new(&c, t, o)) == 0)
		rc = paimon_table_commit_apply(c, &m, 1, 7, NULL);
	if (a.release)
		a.release(&a);
	if (s.release)
		s.release(&s);
	paimon_options_free(o);
	paimon_table_commit_free(c);
	paimon_commit_message_free(m);
	paimon_table_write_free(w);
	paimon_table_free(t);
	return rc;
}

/* Runs the power cut at every write op; returns how many points left a
 * table that is neither exactly old nor exactly new. */
static int run(const char *root, const char *sync_data, int *points, int *old_n, int *new_n)
{
	char dir[4200];
	pm_fault_ctl *ctl = NULL;
	pm_fault_plan plan;
	const int64_t old_sum = (int64_t)ROWS * (ROWS - 1) / 2;
	const int64_t new_sum = old_sum + (int64_t)ROWS * 1000 + (int64_t)ROWS * (ROWS - 1) / 2;
	uint64_t total, i;
	int broken = 0;
	*old_n = *new_n = 0;
	/* dry run: the write ops */
	snprintf(dir, sizeof dir, "%s/%s-dry", root, sync_data);
	create(dir);
	memset(&plan, 0, sizeof plan);
	plan.ops_mask = PM_FOP_WRITES;
	CHECK_OK(pm_fault_ctl_new(&plan, &ctl));
	pm_fault_install(ctl);
	CHECK_OK(child_commit(dir, sync_data));
	pm_fault_install(NULL);
	total = pm_fault_ctl_count(ctl);
	CHECK(total > 10);
	*points = (int)total;
	for (i = 1; i <= total; i++) {
		pid_t pid;
		int st = 0;
		snprintf(dir, sizeof dir, "%s/%s-%llu", root, sync_data, (unsigned long long)i);
		create(dir);
		plan.at = i;
		plan.action = PM_FAULT_POWER_LOSS;
		CHECK_OK(pm_fault_ctl_reset(ctl, &plan));
		fflush(NULL);
		pid = fork();
		if (pid == 0) {
			pm_fault_install(ctl);
			child_commit(dir, sync_data);
			_exit(0);
		}
		waitpid(pid, &st, 0);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 86);
		{
			paimon_table *t = NULL;
			int64_t rows = -1, sum = -1, snap = latest_snapshot(dir);
			int rc = open_table(dir, &t);
			if (rc == 0)
				rc = read_table(t, &rows, &sum);
			paimon_table_free(t);
			if (rc == 0 && snap == 1 && rows == ROWS && sum == old_sum)
				(*old_n)++;
			else if (rc == 0 && snap == 2 && rows == 2 * ROWS && sum == new_sum)
				(*new_n)++;
			else {
				broken++;
				if (getenv("PAIMONC_POWER_VERBOSE"))
					fprintf(stderr, "sync-data-files=%s, power cut at write op %llu: snapshot %lld, rows %lld, %s\n",
						sync_data, (unsigned long long)i, (long long)snap, (long long)rows,
						rc ? paimon_error_message() : "wrong content");
			}
		}
	}
	pm_fault_ctl_free(ctl);
	return broken;
}

static void power_loss(void)
{
	char *root = test_tmpdir();
	int points, o, n, broken;
	pm_fileio_local_set_sync(0); /* the wrapper models durability; the disk need not */
	broken = run(root, "true", &points, &o, &n);
	printf("power cut, commit.sync-data-files=true : %d write ops, old state %d, new state %d, broken %d\n", points, o,
	       n, broken);
	CHECK(broken == 0);
	CHECK(o > 0 && n > 0);
	broken = run(root, "false", &points, &o, &n);
	printf("power cut, commit.sync-data-files=false: %d write ops, old state %d, new state %d, broken %d "
	       "(published snapshots whose data files lost their bytes)\n",
	       points, o, n, broken);
	CHECK(broken > 0);
	free(root);
}

TEST_MAIN(T(power_loss))
