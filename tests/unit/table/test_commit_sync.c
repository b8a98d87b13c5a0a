/*
 * tests/unit/table/test_commit_sync.c - option commit.sync-data-files: by
 * default a commit of new data files syncs storage once (FileIO sync, after
 * the data files are closed and before the snapshot is published); false
 * skips it; a bad value is refused naming the option.
 */
#include "test.h"
#include "paimonc/paimonc.h"
#include "paimonc/table.h"
#include "arrow/arrow_builder.h"
#include "io/fileio_fault.h"

static paimon_table *setup(const char *dir)
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
	CHECK_OK(paimon_schema_spec_add_columns(s, "id INT"));
	CHECK_OK(paimon_catalog_create_table(c, "db.t", s, 1));
	paimon_schema_spec_free(s);
	CHECK_OK(paimon_catalog_get_table(c, "db.t", &t));
	paimon_catalog_free(c);
	return t;
}

/* Writes 3 rows and commits with commit.sync-data-files = value (NULL: unset). */
static int write_commit(paimon_table *t, const char *value, int64_t ident)
{
	pm_array_builder *ch[1], *st;
	struct ArrowArray a;
	struct ArrowSchema s;
	paimon_table_write *w = NULL;
	paimon_table_commit *c = NULL;
	paimon_commit_message *m = NULL;
	paimon_options *o = NULL;
	int32_t v[3] = {1, 2, 3};
	int rc;
	ch[0] = pm_ab_new_fixed("i", 4);
	CHECK_OK(pm_ab_set_name(ch[0], "id", 1));
	CHECK_OK(pm_ab_append_fixed(ch[0], v, 3));
	st = pm_ab_new_struct(ch, 1);
	CHECK_OK(pm_ab_append_valid(st, 3));
	CHECK_OK(pm_ab_schema(st, &s));
	CHECK_OK(pm_ab_finish(st, &a));
	pm_ab_free(st);
	CHECK_OK(paimon_table_write_new(&w, t, NULL));
	CHECK_OK(paimon_table_write_arrow(w, &a, &s));
	CHECK_OK(paimon_table_write_prepare_commit(w, &m));
	CHECK_OK(paimon_options_new(&o));
	if (value)
		CHECK_OK(paimon_options_set(o, "commit.sync-data-files", value));
	rc = paimon_table_commit_new(&c, t, o);
	if (rc == 0)
		rc = paimon_table_commit_apply(c, &m, 1, ident, NULL);
	a.release(&a);
	s.release(&s);
	paimon_options_free(o);
	paimon_table_commit_free(c);
	paimon_commit_message_free(m);
	paimon_table_write_free(w);
	return rc;
}

static int syncs(pm_fault_ctl *ctl, int64_t *sync_pos, int64_t *publish_pos, int64_t *last_close)
{
	const pm_fault_event *ev;
	size_t n = pm_fault_ctl_events(ctl, &ev), i;
	int k = 0;
	*sync_pos = *publish_pos = *last_close = -1;
	for (i = 0; i < n; i++) {
		if (ev[i].op == PM_FOP_SYNC) {
			k++;
			*sync_pos = (int64_t)i;
		}
		if (ev[i].op == PM_FOP_CLOSE_STREAM)
			*last_close = (int64_t)i;
		if (ev[i].op == PM_FOP_WRITE_NEW_ATOMIC && strstr(ev[i].path, "/snapshot/snapshot-"))
			*publish_pos = (int64_t)i;
	}
	return k;
}

static void sync_option(void)
{
	char *dir = test_tmpdir();
	pm_fault_ctl *ctl = NULL;
	paimon_table *t;
	int64_t sp, pp, lc;
	CHECK_OK(pm_fault_ctl_new(NULL, &ctl));
	pm_fault_install(ctl);
	t = setup(dir);
	if (t) {
		CHECK_OK(pm_fault_ctl_reset(ctl, NULL));
		CHECK_OK(write_commit(t, NULL, 1));
		CHECK(syncs(ctl, &sp, &pp, &lc) == 1);
		CHECK(lc >= 0 && lc < sp && sp < pp); /* files closed, synced, then published */

		CHECK_OK(pm_fault_ctl_reset(ctl, NULL));
		CHECK_OK(write_commit(t, "false", 2));
		CHECK(syncs(ctl, &sp, &pp, &lc) == 0 && pp > 0);

		CHECK_OK(pm_fault_ctl_reset(ctl, NULL));
		CHECK_OK(write_commit(t, "true", 3));
		CHECK(syncs(ctl, &sp, &pp, &lc) == 1);

		CHECK_RC(write_commit(t, "sometimes", 4), PAIMON_EINVAL);
		CHECK_MSG("commit.sync-data-files");
		paimon_table_free(t);
	}
	pm_fault_install(NULL);
	pm_fault_ctl_free(ctl);
	free(dir);
}

TEST_MAIN(T(sync_option))
