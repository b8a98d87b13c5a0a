/*
 * tests/unit/table/smallfix.h - the small partitioned table the fault tests
 * (test_oom, test_power_loss) share: db.t (id BIGINT, s STRING, p INT)
 * partitioned by p, snapshot 1 holding ROWS rows with ids 0..ROWS-1.
 * The includer defines ROWS. Public API only, plus the snapshot reader for
 * the latest id.
 */
#ifndef PM_TESTS_SMALLFIX_H
#define PM_TESTS_SMALLFIX_H

#include "test.h"
#include "paimonc/paimonc.h"
#include "paimonc/table.h"
#include "arrow/arrow_builder.h"
#include "meta/snapshot.h"
#include "api/handles.h"

#ifndef ROWS
#error "define ROWS before including smallfix.h"
#endif

/* A batch of ROWS rows: id = base.., s = "row-<id>", p = row % 3. */
static int make_batch(int base, struct ArrowArray *a, struct ArrowSchema *s)
{
	pm_array_builder *ch[3], *st;
	int r, rc;
	ch[0] = pm_ab_new_fixed("l", 8);
	ch[1] = pm_ab_new_binary("u", 0);
	ch[2] = pm_ab_new_fixed("i", 4);
	if (!ch[0] || !ch[1] || !ch[2]) {
		pm_ab_free(ch[0]);
		pm_ab_free(ch[1]);
		pm_ab_free(ch[2]);
		return PAIMON_ENOMEM;
	}
	rc = pm_ab_set_name(ch[0], "id", 1) | pm_ab_set_name(ch[1], "s", 1) | pm_ab_set_name(ch[2], "p", 1);
	for (r = 0; r < ROWS && rc == 0; r++) {
		int64_t id = base + r;
		int32_t p = r % 3;
		char txt[32];
		snprintf(txt, sizeof txt, "row-%d", base + r);
		rc = pm_ab_append_fixed(ch[0], &id, 1) | pm_ab_append_binary(ch[1], txt, strlen(txt)) |
		     pm_ab_append_fixed(ch[2], &p, 1);
	}
	if (rc) {
		pm_ab_free(ch[0]);
		pm_ab_free(ch[1]);
		pm_ab_free(ch[2]);
		return PAIMON_ENOMEM;
	}
	st = pm_ab_new_struct(ch, 3);
	if (!st)
		return PAIMON_ENOMEM;
	rc = pm_ab_append_valid(st, ROWS);
	if (rc == 0)
		rc = pm_ab_schema(st, s);
	if (rc == 0 && (rc = pm_ab_finish(st, a)) != 0)
		s->release(s);
	pm_ab_free(st);
	return rc;
}

static int open_table(const char *dir, paimon_table **t)
{
	paimon_options *o = NULL;
	paimon_catalog *c = NULL;
	int rc;
	*t = NULL;
	if ((rc = paimon_options_new(&o)) == 0 && (rc = paimon_options_set(o, "warehouse", dir)) == 0 &&
	    (rc = paimon_catalog_open(&c, o)) == 0)
		rc = paimon_catalog_get_table(c, "db.t", t);
	paimon_options_free(o);
	paimon_catalog_free(c);
	return rc;
}

/* Sum of the "id" column over the whole table, and the row count. */
static int read_table(paimon_table *t, int64_t *rows, int64_t *idsum)
{
	paimon_read_builder *rb = NULL;
	paimon_plan *p = NULL;
	struct ArrowArrayStream st = {0};
	size_t i, n;
	int rc;
	*rows = 0;
	*idsum = 0;
	if ((rc = paimon_read_builder_new(&rb, t)) || (rc = paimon_read_builder_plan(rb, &p)))
		goto done;
	n = paimon_plan_split_count(p);
	for (i = 0; i < n && rc == 0; i++) {
		const paimon_split *sp = paimon_plan_split(p, i);
		if ((rc = paimon_read_builder_read(rb, &sp, 1, &st)))
			break;
		for (;;) {
			struct ArrowArray a;
			if ((rc = st.get_next(&st, &a)) != 0) {
				rc = pm_err(PAIMON_ERROR, "%s", st.get_last_error(&st));
				if (strstr(paimon_error_message(), "out of memory") ||
				    strstr(paimon_error_message(), "allocate"))
					rc = PAIMON_ENOMEM;
				break;
			}
			if (!a.release)
				break;
			{
				int64_t r;
				const int64_t *ids = (const int64_t *)a.children[0]->buffers[1];
				for (r = 0; r < a.length; r++)
					*idsum += ids[r + a.children[0]->offset];
				*rows += a.length;
			}
			a.release(&a);
		}
		st.release(&st);
		st.release = NULL;
	}
done:
	paimon_plan_free(p);
	paimon_read_builder_free(rb);
	return rc;
}

static void create(const char *dir)
{
	paimon_options *o;
	paimon_catalog *c = NULL;
	paimon_schema_spec *s = NULL;
	const char *pk[] = {"p"};
	int64_t rows, sum;
	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "warehouse", dir));
	CHECK_OK(paimon_catalog_open(&c, o));
	paimon_options_free(o);
	CHECK_OK(paimon_catalog_create_database(c, "db", 1));
	CHECK_OK(paimon_schema_spec_new(&s));
	CHECK_OK(paimon_schema_spec_add_columns(s, "id BIGINT, s STRING, p INT"));
	CHECK_OK(paimon_schema_spec_set_partition_keys(s, pk, 1));
	CHECK_OK(paimon_catalog_create_table(c, "db.t", s, 0));
	paimon_schema_spec_free(s);
	paimon_catalog_free(c);
	/* Old data: one committed snapshot by another user. */
	{
		paimon_table *t = NULL;
		paimon_table_write *w = NULL;
		paimon_table_commit *cm = NULL;
		paimon_commit_message *m = NULL;
		struct ArrowArray a;
		struct ArrowSchema sc;
		CHECK_OK(open_table(dir, &t));
		CHECK_OK(make_batch(0, &a, &sc));
		CHECK_OK(paimon_table_write_new(&w, t, NULL));
		CHECK_OK(paimon_table_write_arrow(w, &a, &sc));
		CHECK_OK(paimon_table_write_prepare_commit(w, &m));
		CHECK_OK(paimon_table_commit_new(&cm, t, NULL));
		CHECK_OK(paimon_table_commit_apply(cm, &m, 1, 1, NULL));
		CHECK_OK(read_table(t, &rows, &sum));
		CHECK(rows == ROWS);
		a.release(&a);
		sc.release(&sc);
		paimon_commit_message_free(m);
		paimon_table_commit_free(cm);
		paimon_table_write_free(w);
		paimon_table_free(t);
	}
}

static int64_t latest_snapshot(const char *dir)
{
	paimon_table *t = NULL;
	int64_t id = -1;
	int found = 0;
	if (open_table(dir, &t) == 0) {
		CHECK_OK(pm_snapshot_latest_id(t->io, t->path, &id, &found));
		paimon_table_free(t);
	}
	return found ? id : -1;
}

#endif
