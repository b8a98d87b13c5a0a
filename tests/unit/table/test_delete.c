/*
 * tests/unit/table/test_delete.c - deletes by row id / predicate with
 * deletion vectors (write/delete.c, api_update.c) and their application on
 * read (read/read_dv.c), end to end through the public API on real tables:
 * the rows read, the index files and commit kinds, errors, conflicts, time
 * travel, the 64-bit encoding, the anchor of an updated group, and crash /
 * I/O-fault safety of the whole delete (index file + commit): after a
 * failure at any write step the table reads exactly the old or the new
 * rows, and a retry (same commit user and identifier) commits once.
 */
#include "test.h"
#include "crashfix.h"
#include "paimonc/paimonc.h"
#include "paimonc/table.h"
#include "api/handles.h"
#include "arrow/arrow_builder.h"
#include "commit/commit.h"
#include "core/mem.h"
#include "io/fileio.h"
#include "meta/deletion_vector.h"
#include "meta/snapshot.h"
#include "write/delete.h"


#define USER "delete-user"
#define IDENT 100

#define rm_rf crashfix_rm_rf

static paimon_table *open_table(const char *dir, const char *name)
{
	paimon_options *o;
	paimon_catalog *c = NULL;
	paimon_table *t = NULL;
	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "warehouse", dir));
	CHECK_OK(paimon_catalog_open(&c, o));
	paimon_options_free(o);
	CHECK_OK(paimon_catalog_get_table(c, name, &t));
	paimon_catalog_free(c);
	return t;
}

/* db.<name> with id INT, v STRING and the given options (NULL-ended pairs). */
static paimon_table *make_table(const char *dir, const char *name, const char *const *kv)
{
	paimon_options *o;
	paimon_catalog *c = NULL;
	paimon_schema_spec *s = NULL;
	char ident[64];
	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "warehouse", dir));
	CHECK_OK(paimon_catalog_open(&c, o));
	paimon_options_free(o);
	CHECK_OK(paimon_catalog_create_database(c, "db", 1));
	CHECK_OK(paimon_schema_spec_new(&s));
	CHECK_OK(paimon_schema_spec_add_columns(s, "id INT, v STRING"));
	CHECK_OK(paimon_schema_spec_set_option(s, "bucket", "-1"));
	for (; kv && kv[0]; kv += 2)
		CHECK_OK(paimon_schema_spec_set_option(s, kv[0], kv[1]));
	snprintf(ident, sizeof ident, "db.%s", name);
	CHECK_OK(paimon_catalog_create_table(c, ident, s, 0));
	paimon_schema_spec_free(s);
	paimon_catalog_free(c);
	return open_table(dir, ident);
}

static const char *const DE_DV[] = {"row-tracking.enabled", "true", "data-evolution.enabled", "true",
				    "deletion-vectors.enabled", "true", NULL};

static int commit_msgs(paimon_table *t, paimon_commit_message **m, size_t n, int64_t ident, int64_t *snap)
{
	paimon_options *o = NULL;
	paimon_table_commit *c = NULL;
	int rc;
	if ((rc = paimon_options_new(&o)) || (rc = paimon_options_set(o, "commit.user", USER)) ||
	    (rc = paimon_table_commit_new(&c, t, o)))
		goto done;
	rc = paimon_table_commit_apply(c, m, n, ident, snap);
done:
	paimon_table_commit_free(c);
	paimon_options_free(o);
	return rc;
}

/* Appends ids [start, start + n) (v = "v<id>") as one commit. */
static void append_rows(paimon_table *t, int32_t start, int32_t n)
{
	pm_array_builder *ch[2], *st;
	struct ArrowSchema s;
	struct ArrowArray a;
	paimon_table_write *w = NULL;
	paimon_commit_message *m = NULL;
	char v[32];
	int32_t k;
	ch[0] = pm_ab_new_fixed("i", 4);
	ch[1] = pm_ab_new_binary("u", 0);
	pm_ab_set_name(ch[0], "id", 1);
	pm_ab_set_name(ch[1], "v", 1);
	for (k = 0; k < n; k++) {
		int32_t id = start + k;
		snprintf(v, sizeof v, "v%d", (int)id);
		pm_ab_append_fixed(ch[0], &id, 1);
		pm_ab_append_binary(ch[1], v, strlen(v));
	}
	st = pm_ab_new_struct(ch, 2);
	pm_ab_append_valid(st, n);
	memset(&a, 0, sizeof a);
	CHECK_OK(pm_ab_schema(st, &s));
	CHECK_OK(pm_ab_finish(st, &a));
	pm_ab_free(st);
	CHECK_OK(paimon_table_write_new(&w, t, NULL));
	CHECK_OK(paimon_table_write_arrow(w, &a, &s));
	if (a.release)
		a.release(&a);
	s.release(&s);
	CHECK_OK(paimon_table_write_prepare_commit(w, &m));
	paimon_table_write_free(w);
	CHECK_OK(commit_msgs(t, &m, 1, 1 + start, NULL));
	paimon_commit_message_free(m);
}

/* The ids (and, with with_v, "id=v") read at the latest snapshot (or
 * snapshot `snap` >= 0), ascending, comma-separated, into out. */
static int read_ids(paimon_table *t, int64_t snap, const char *col, char *out, size_t cap)
{
	const char *proj[1];
	paimon_read_builder *rb = NULL;
	paimon_plan *p = NULL;
	const paimon_split **sp = NULL;
	struct ArrowArrayStream st;
	int32_t seen[4096];
	size_t n = 0, i, ns, len = 0;
	int rc;
	char sid[32];
	proj[0] = col;
	memset(&st, 0, sizeof st);
	out[0] = 0;
	if ((rc = paimon_read_builder_new(&rb, t)) || (rc = paimon_read_builder_with_projection(rb, proj, 1)))
		goto out;
	if (snap >= 0) {
		snprintf(sid, sizeof sid, "%lld", (long long)snap);
		if ((rc = paimon_read_builder_with_option(rb, "scan.snapshot-id", sid)))
			goto out;
	}
	if ((rc = paimon_read_builder_plan(rb, &p)))
		goto out;
	ns = paimon_plan_split_count(p);
	sp = calloc(ns + 1, sizeof *sp);
	for (i = 0; i < ns; i++)
		sp[i] = paimon_plan_split(p, i);
	if ((rc = paimon_read_builder_read(rb, sp, ns, &st)))
		goto out;
	for (;;) {
		struct ArrowArray a;
		int64_t k;
		if ((rc = st.get_next(&st, &a)) != 0)
			goto out;
		if (!a.release)
			break;
		for (k = 0; k < a.length && n < 4096; k++) {
			const struct ArrowArray *c = a.children[0];
			if (c->n_buffers == 2 && !strcmp(col, "_ROW_ID"))
				seen[n++] = (int32_t)((const int64_t *)c->buffers[1])[c->offset + k];
			else
				seen[n++] = ((const int32_t *)c->buffers[1])[c->offset + k];
		}
		a.release(&a);
	}
	/* ascending (insertion sort: small) */
	for (i = 1; i < n; i++) {
		int32_t x = seen[i];
		size_t j = i;
		while (j > 0 && seen[j - 1] > x) {
			seen[j] = seen[j - 1];
			j--;
		}
		seen[j] = x;
	}
	for (i = 0; i < n && len + 16 < cap; i++)
		len += (size_t)snprintf(out + len, cap - len, i ? ",%d" : "%d", (int)seen[i]);
out:
	if (st.release)
		st.release(&st);
	free(sp);
	paimon_plan_free(p);
	paimon_read_builder_free(rb);
	return rc;
}

#define latest crashfix_latest

static int delete_ids(paimon_table *t, const int64_t *ids, size_t n, int64_t *snap)
{
	paimon_commit_message *m = NULL;
	int rc = paimon_table_delete_by_row_id(t, ids, n, NULL, &m);
	if (!rc)
		rc = commit_msgs(t, &m, 1, IDENT, snap);
	paimon_commit_message_free(m);
	return rc;
}

static paimon_table *two_groups(char **dir, const char *const *kv)
{
	paimon_table *t;
	*dir = test_tmpdir();
	t = make_table(*dir, "t", kv ? kv : DE_DV);
	append_rows(t, 0, 10);
	append_rows(t, 10, 10);
	return t;
}

/* ------------------------------------------------------------- tests */

static void delete_by_row_id(void)
{
	char *dir, got[512];
	paimon_table *t = two_groups(&dir, NULL);
	static const int64_t ids[] = {15, 3, 15, 19, 0};
	paimon_commit_message *m = NULL;
	pm_snapshot *s = NULL;
	int64_t snap = -1;
	CHECK_OK(paimon_table_delete_by_row_id(t, ids, 5, NULL, &m));
	CHECK(paimon_commit_message_file_count(m) == 0);
	CHECK(paimon_commit_message_index_count(m) == 1); /* one bucket, no old DV file */
	CHECK_OK(commit_msgs(t, &m, 1, IDENT, &snap));
	paimon_commit_message_free(m);
	CHECK(snap == 3);
	CHECK_OK(read_ids(t, -1, "id", got, sizeof got));
	CHECK_STR(got, "1,2,4,5,6,7,8,9,10,11,12,13,14,16,17,18");
	CHECK_OK(read_ids(t, -1, "_ROW_ID", got, sizeof got));
	CHECK_STR(got, "1,2,4,5,6,7,8,9,10,11,12,13,14,16,17,18");
	/* time travel: before the delete every row is there */
	CHECK_OK(read_ids(t, 2, "id", got, sizeof got));
	CHECK_STR(got, "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19");
	CHECK_OK(pm_snapshot_load(t->io, t->path, 3, &s));
	CHECK_STR(s->commit_kind, "OVERWRITE");
	CHECK(s->index_manifest != NULL);
	CHECK(s->delta_record_count == 0);
	pm_snapshot_free(s);
	/* deleting deleted rows again: nothing to commit */
	CHECK_OK(paimon_table_delete_by_row_id(t, ids, 2, NULL, &m));
	CHECK(paimon_commit_message_index_count(m) == 0);
	paimon_commit_message_free(m);
	/* a second delete replaces the bucket's index file (old DVs carried over) */
	{
		static const int64_t more[] = {9};
		CHECK_OK(paimon_table_delete_by_row_id(t, more, 1, NULL, &m));
		CHECK(paimon_commit_message_index_count(m) == 2); /* ADD new, DELETE old */
		CHECK_OK(commit_msgs(t, &m, 1, IDENT + 1, NULL));
		paimon_commit_message_free(m);
	}
	CHECK_OK(read_ids(t, -1, "id", got, sizeof got));
	CHECK_STR(got, "1,2,4,5,6,7,8,10,11,12,13,14,16,17,18");
	paimon_table_free(t);
	rm_rf(dir);
	free(dir);
}

static void delete_by_predicate(void)
{
	char *dir, got[512];
	paimon_table *t = two_groups(&dir, NULL);
	paimon_predicate *p = NULL;
	paimon_commit_message *m = NULL;
	const char *lit = "14";
	size_t len = 2;
	CHECK_OK(paimon_predicate_leaf(&p, "id", PAIMON_PRED_GREATER_THAN, &lit, &len, 1));
	CHECK_OK(paimon_table_delete_by_predicate(t, p, NULL, &m));
	CHECK_OK(commit_msgs(t, &m, 1, IDENT, NULL));
	paimon_commit_message_free(m);
	CHECK_OK(read_ids(t, -1, "id", got, sizeof got));
	CHECK_STR(got, "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14");
	/* nothing matches any more: an empty message */
	CHECK_OK(paimon_table_delete_by_predicate(t, p, NULL, &m));
	CHECK(paimon_commit_message_index_count(m) == 0);
	paimon_commit_message_free(m);
	/* NULL: every row */
	CHECK_OK(paimon_table_delete_by_predicate(t, NULL, NULL, &m));
	CHECK_OK(commit_msgs(t, &m, 1, IDENT + 1, NULL));
	paimon_commit_message_free(m);
	CHECK_OK(read_ids(t, -1, "id", got, sizeof got));
	CHECK_STR(got, "");
	paimon_predicate_free(p);
	paimon_table_free(t);
	rm_rf(dir);
	free(dir);
}

static void delete_errors(void)
{
	char *dir = test_tmpdir();
	static const char *const NO_DV[] = {"row-tracking.enabled", "true", "data-evolution.enabled", "true", NULL};
	static const int64_t bad[] = {4, 20};
	static const int64_t neg[] = {-1};
	paimon_table *t = make_table(dir, "nodv", NO_DV), *e = make_table(dir, "empty", DE_DV);
	paimon_commit_message *m = NULL;
	char got[512];
	CHECK_RC(paimon_table_delete_by_row_id(t, bad, 1, NULL, &m), PAIMON_EINVAL);
	CHECK_MSG("deletion-vectors.enabled");
	CHECK_MSG("db.nodv");
	CHECK(m == NULL);
	paimon_table_free(t);
	t = make_table(dir, "t", DE_DV);
	append_rows(t, 0, 10);
	append_rows(t, 10, 10);
	CHECK_RC(paimon_table_delete_by_row_id(t, bad, 2, NULL, &m), PAIMON_EINVAL);
	CHECK_MSG("_ROW_ID 20 is not a row of snapshot 2");
	CHECK_RC(paimon_table_delete_by_row_id(t, neg, 1, NULL, &m), PAIMON_EINVAL);
	CHECK_MSG("_ROW_ID -1");
	CHECK_RC(paimon_table_delete_by_row_id(e, bad, 1, NULL, &m), PAIMON_EINVAL);
	CHECK_MSG("has no snapshot");
	CHECK_RC(paimon_table_delete_by_row_id(t, NULL, 1, NULL, &m), PAIMON_EINVAL);
	/* nothing was written or committed by the refused deletes */
	CHECK(latest(t) == 2);
	CHECK_OK(read_ids(t, -1, "id", got, sizeof got));
	CHECK_STR(got, "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19");
	paimon_table_free(t);
	paimon_table_free(e);
	rm_rf(dir);
	free(dir);
}

/* Two deletes planned on the same snapshot: the second is refused. */
static void delete_conflict(void)
{
	char *dir, got[512];
	paimon_table *t = two_groups(&dir, NULL);
	static const int64_t a[] = {1}, b[] = {2};
	paimon_commit_message *ma = NULL, *mb = NULL;
	CHECK_OK(paimon_table_delete_by_row_id(t, a, 1, NULL, &ma));
	CHECK_OK(paimon_table_delete_by_row_id(t, b, 1, NULL, &mb));
	CHECK_OK(commit_msgs(t, &ma, 1, IDENT, NULL));
	CHECK_RC(commit_msgs(t, &mb, 1, IDENT + 1, NULL), PAIMON_ECONFLICT);
	CHECK_OK(read_ids(t, -1, "id", got, sizeof got));
	CHECK_STR(got, "0,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19");
	paimon_commit_message_free(ma);
	paimon_commit_message_free(mb);
	paimon_table_free(t);
	rm_rf(dir);
	free(dir);
}

/* deletion-vectors.bitmap64: the 64-bit encoding, read back. */
static void delete_bitmap64(void)
{
	static const char *const KV[] = {"row-tracking.enabled", "true", "data-evolution.enabled", "true",
					 "deletion-vectors.enabled", "true", "deletion-vectors.bitmap64", "true", NULL};
	char *dir, got[512];
	paimon_table *t = two_groups(&dir, KV);
	static const int64_t ids[] = {0, 11};
	pm_snapshot *s = NULL;
	pm_dv_snapshot dvs;
	pm_dv_list all = {0};
	CHECK_OK(delete_ids(t, ids, 2, NULL));
	CHECK_OK(read_ids(t, -1, "id", got, sizeof got));
	CHECK_STR(got, "1,2,3,4,5,6,7,8,9,10,12,13,14,15,16,17,18,19");
	CHECK_OK(pm_snapshot_load(t->io, t->path, 3, &s));
	memset(&dvs, 0, sizeof dvs);
	CHECK_OK(pm_dv_snapshot_load(t->io, t->path, s->index_manifest, &dvs));
	CHECK(dvs.len == 1);
	if (dvs.len == 1) {
		CHECK(dvs.buckets[0].n_refs == 2);
		/* 64-bit ranges record the whole DV: size + 8 */
		CHECK(dvs.buckets[0].refs[0].range->length > 12);
		CHECK_OK(pm_dv_bucket_load_all(t->io, &dvs.buckets[0], &all));
		CHECK(all.len == 2);
	}
	pm_dv_list_dispose(&all);
	pm_dv_snapshot_dispose(&dvs);
	pm_snapshot_free(s);
	paimon_table_free(t);
	rm_rf(dir);
	free(dir);
}

/* Sets v of row rid to val (an update by row id, committed). */
static void update_v(paimon_table *t, int64_t rid, const char *val, int64_t ident)
{
	const char *cols[] = {"v"};
	paimon_table_update *u = NULL;
	paimon_commit_message *m = NULL;
	pm_array_builder *ch[2], *st;
	struct ArrowSchema s;
	struct ArrowArray a;
	ch[0] = pm_ab_new_fixed("l", 8);
	ch[1] = pm_ab_new_binary("u", 0);
	pm_ab_set_name(ch[0], "_ROW_ID", 0);
	pm_ab_set_name(ch[1], "v", 1);
	pm_ab_append_fixed(ch[0], &rid, 1);
	pm_ab_append_binary(ch[1], val, strlen(val));
	st = pm_ab_new_struct(ch, 2);
	pm_ab_append_valid(st, 1);
	memset(&a, 0, sizeof a);
	CHECK_OK(pm_ab_schema(st, &s));
	CHECK_OK(pm_ab_finish(st, &a));
	pm_ab_free(st);
	CHECK_OK(paimon_table_update_new(&u, t, cols, 1, NULL));
	CHECK_OK(paimon_table_update_write_arrow(u, &a, &s));
	s.release(&s);
	CHECK_OK(paimon_table_update_prepare_commit(u, &m));
	paimon_table_update_free(u);
	CHECK_OK(commit_msgs(t, &m, 1, ident, NULL));
	paimon_commit_message_free(m);
}

/* An updated group: its DV is keyed by the anchor (the oldest normal
 * file); a projection of the updated column alone still drops the rows. */
static void delete_after_update(void)
{
	char *dir, got[512];
	paimon_table *t = two_groups(&dir, NULL);
	static const int64_t ids[] = {2, 12};
	update_v(t, 5, "new", 50);
	CHECK_OK(delete_ids(t, ids, 2, NULL));
	CHECK_OK(read_ids(t, -1, "id", got, sizeof got));
	CHECK_STR(got, "0,1,3,4,5,6,7,8,9,10,11,13,14,15,16,17,18,19");
	/* _ROW_ID only (no file opened) and v only (the update file alone
	 * gives the column): the anchor is kept in the split for the DV */
	CHECK_OK(read_ids(t, -1, "_ROW_ID", got, sizeof got));
	CHECK_STR(got, "0,1,3,4,5,6,7,8,9,10,11,13,14,15,16,17,18,19");
	{
		const char *proj[] = {"v"};
		paimon_read_builder *rb = NULL;
		paimon_plan *p = NULL;
		struct ArrowArrayStream rs;
		int64_t rows = 0;
		size_t i, ns;
		const paimon_split *sp[16];
		CHECK_OK(paimon_read_builder_new(&rb, t));
		CHECK_OK(paimon_read_builder_with_projection(rb, proj, 1));
		CHECK_OK(paimon_read_builder_plan(rb, &p));
		ns = paimon_plan_split_count(p);
		CHECK(ns <= 16);
		for (i = 0; i < ns && i < 16; i++)
			sp[i] = paimon_plan_split(p, i);
		CHECK_OK(paimon_read_builder_read(rb, sp, ns, &rs));
		for (;;) {
			struct ArrowArray b;
			CHECK_OK(rs.get_next(&rs, &b));
			if (!b.release)
				break;
			rows += b.length;
			b.release(&b);
		}
		rs.release(&rs);
		CHECK(rows == 18);
		paimon_plan_free(p);
		paimon_read_builder_free(rb);
	}
	/* an update after the delete writes every position of the group (read
	 * without the DV) and the deleted rows stay deleted */
	update_v(t, 4, "four", 200);
	CHECK_OK(read_ids(t, -1, "id", got, sizeof got));
	CHECK_STR(got, "0,1,3,4,5,6,7,8,9,10,11,13,14,15,16,17,18,19");
	paimon_table_free(t);
	rm_rf(dir);
	free(dir);
}

/* ------------------------------------------------- crash and I/O faults */

/* The whole delete of row ids {3, 12} through io: plan, index file, commit. */
static int run_delete(paimon_table *t, pm_fileio *io)
{
	static const int64_t ids[] = {3, 12};
	pm_row_id_delete d;
	pm_table_committer *c = NULL;
	pm_strmap o = {0};
	pm_commit_batch b = {0};
	int rc;
	if ((rc = pm_row_id_delete_run(io, t->path, t->schema->schema, NULL, -1, ids, 2, &d)))
		return rc;
	memset(&b, 0, sizeof b);
	b.index = d.index.items;
	b.n_index = d.index.len;
	b.check_from_snapshot = d.index.len ? d.base_snapshot : -1;
	if (!(rc = pm_strmap_set(&o, "commit.user", USER)) && !(rc = pm_strmap_set(&o, "commit.max-retries", "1")) &&
	    !(rc = pm_table_committer_new(io, t->path, t->schema->schema, &o, &c)))
		rc = pm_table_committer_commit_batch(c, &b, IDENT, NULL);
	pm_table_committer_free(c);
	pm_strmap_dispose(&o);
	pm_row_id_delete_dispose(&d);
	return rc;
}

#define ALL_ROWS "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19"
#define NEW_ROWS "0,1,2,4,5,6,7,8,9,10,11,13,14,15,16,17,18,19"

/* 0 old, 1 new, -1 neither (reported). */
static int state(paimon_table *t)
{
	char got[512];
	int64_t id = latest(t);
	if (read_ids(t, -1, "id", got, sizeof got) != 0) {
		fprintf(stderr, "read failed: %s\n", paimon_error_message());
		return -1;
	}
	if (id == 2 && !strcmp(got, ALL_ROWS))
		return 0;
	if (id == 3 && !strcmp(got, NEW_ROWS))
		return 1;
	fprintf(stderr, "snapshot %lld reads %s\n", (long long)id, got);
	return -1;
}

static paimon_table *crash_setup(char **dir)
{
	return two_groups(dir, NULL);
}

static void delete_crash(void)
{
	static const crash_workload w = {"delete", USER, IDENT, 6, crash_setup, run_delete, state};
	crash_matrix(&w);
}

TEST_MAIN(T(delete_by_row_id), T(delete_by_predicate), T(delete_errors), T(delete_conflict), T(delete_bitmap64),
	  T(delete_after_update), T(delete_crash))
