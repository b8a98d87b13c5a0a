/*
 * tests/unit/table/test_oom.c - out-of-memory at every allocation of a table
 * workload (SQLite's malloc-failure loop): open catalog and table, write a
 * partitioned batch, commit it, read the table back. For each allocation
 * index N of the calling thread, the Nth allocation fails; the workload must
 * fail cleanly with PAIMON_ENOMEM (no crash, no leak under ASan, no other
 * error code masking the cause) or succeed, and afterwards the table holds
 * exactly the old rows or old + new rows, and a retry with the same commit
 * identifier commits at most once.
 *
 * PAIMONC_OOM_STRIDE=k tests every k-th allocation (default: all of them;
 * every 3rd in sanitizer builds, which run ~6x slower).
 */
#include "test.h"
#include "paimonc/paimonc.h"
#include "paimonc/table.h"
#include "arrow/arrow_builder.h"
#include "core/mem.h"
#include "io/fileio.h"
#include "meta/snapshot.h"
#include "api/handles.h"

#include <stdlib.h>

#define ROWS 40

#if defined(__SANITIZE_ADDRESS__)
#define DEFAULT_STRIDE 3
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DEFAULT_STRIDE 3
#endif
#endif
#ifndef DEFAULT_STRIDE
#define DEFAULT_STRIDE 1
#endif

#include "smallfix.h"

/* The workload: write ROWS new rows (ids base..base+ROWS-1), commit as
 * (user "oom", identifier 7), read back. */
static int workload(const char *dir, int base, int64_t *rows, int64_t *idsum)
{
	paimon_table *t = NULL;
	paimon_table_write *w = NULL;
	paimon_table_commit *c = NULL;
	paimon_commit_message *m = NULL;
	paimon_options *o = NULL;
	struct ArrowArray a = {0};
	struct ArrowSchema s = {0};
	int64_t id;
	int rc;
	if ((rc = open_table(dir, &t)))
		goto done;
	if ((rc = make_batch(base, &a, &s)))
		goto done;
	if ((rc = paimon_table_write_new(&w, t, NULL)) || (rc = paimon_table_write_arrow(w, &a, &s)) ||
	    (rc = paimon_table_write_prepare_commit(w, &m)))
		goto done;
	if ((rc = paimon_options_new(&o)) || (rc = paimon_options_set(o, "commit.user", "oom")) ||
	    (rc = paimon_table_commit_new(&c, t, o)))
		goto done;
	if ((rc = paimon_table_commit_apply(c, &m, 1, 7, &id)))
		goto done;
	rc = read_table(t, rows, idsum);
done:
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

static void oom_every_allocation(void)
{
	char *root = test_tmpdir();
	char dir[4200];
	const char *env = getenv("PAIMONC_OOM_STRIDE");
	long stride = env ? atol(env) : DEFAULT_STRIDE, total, n, runs = 0, failed = 0, committed_anyway = 0;
	int64_t rows, sum;
	const int64_t old_sum = (int64_t)ROWS * (ROWS - 1) / 2;
	const int64_t new_sum = old_sum + (int64_t)ROWS * 1000 + (int64_t)ROWS * (ROWS - 1) / 2;
	if (stride < 1)
		stride = 1;
	pm_fileio_local_set_sync(0); /* logic, not durability, is under test here */

	/* Dry run: count the allocations of the calling thread. */
	snprintf(dir, sizeof dir, "%s/dry", root);
	create(dir);
	pm_mem_fail_at(0);
	pm_mem_fail_at(0);
	CHECK_OK(workload(dir, 1000, &rows, &sum));
	total = pm_mem_count();
	CHECK(rows == 2 * ROWS && sum == new_sum);
	CHECK(total > 100);

	for (n = 1; n <= total + 5; n += stride) {
		int rc;
		int64_t snap;
		snprintf(dir, sizeof dir, "%s/n%ld", root, n);
		create(dir);
		pm_mem_fail_at(n);
		rc = workload(dir, 1000, &rows, &sum);
		pm_mem_fail_at(0);
		runs++;
		if (rc != 0) {
			failed++;
			if (rc != PAIMON_ENOMEM) {
				fprintf(stderr, "allocation %ld: error %s instead of ENOMEM: %s\n", n,
					paimon_error_name(rc), paimon_error_message());
				CHECK(rc == PAIMON_ENOMEM);
			}
		} else {
			CHECK(rows == 2 * ROWS && sum == new_sum);
		}
		/* The table holds the old or the new state, never anything else. */
		snap = latest_snapshot(dir);
		CHECK(snap == 1 || snap == 2);
		if (rc != 0 && snap == 2)
			committed_anyway++;
		{
			paimon_table *t = NULL;
			CHECK_OK(open_table(dir, &t));
			if (t) {
				CHECK_OK(read_table(t, &rows, &sum));
				if (snap == 1)
					CHECK(rows == ROWS && sum == old_sum);
				else
					CHECK(rows == 2 * ROWS && sum == new_sum);
				paimon_table_free(t);
			}
		}
		/* Retry with the same identifier: at most one commit lands. */
		CHECK_OK(workload(dir, 1000, &rows, &sum));
		CHECK(rows == 2 * ROWS && sum == new_sum);
		CHECK(latest_snapshot(dir) == 2);
		if (test_failures) {
			fprintf(stderr, "first failure at allocation %ld\n", n);
			break;
		}
	}
	printf("oom: %ld allocations in the workload, %ld runs (stride %ld), %ld failed cleanly with ENOMEM, "
	       "%ld of them after the snapshot was published\n",
	       total, runs, stride, failed, committed_anyway);
	free(root);
}

TEST_MAIN(T(oom_every_allocation))
