/*
 * tests/unit/table/test_commit_de_crash.c - crash and I/O-fault safety of
 * commits with index-file changes and preset first_row_ids (data-evolution
 * updates and deletes).
 *
 * Workloads (each on a fresh table whose snapshot 2 holds two files and a
 * deletion-vector index file):
 *   - update: a preset-first_row_id file of column a + a new file (APPEND);
 *   - delete+update: the same plus replacing the DV index file (OVERWRITE).
 * A dry run through the fault-injecting FileIO lists the write operations
 * of the commit. For every one of them: (1) in process, the operation fails
 * (EIO), and (2) in a forked child the process dies before, after, or in the
 * middle of it. Then: the table is exactly the old state (snapshot 2: files,
 * index manifest) or exactly the new one (snapshot 3: files, row ids,
 * nextRowId, index manifest), and a retry with the same commit user and
 * identifier leaves exactly one snapshot carrying them, in the new state.
 */
#include "test.h"
#include "crashfix.h"
#include "paimonc/paimonc.h"
#include "paimonc/table.h"
#include "core/mem.h"
#include "io/fileio.h"
#include "meta/manifest.h"
#include "meta/snapshot.h"
#include "api/handles.h"
#include "commit/commit.h"

#include <sys/stat.h>
#include <unistd.h>

#define USER "crash-user"
#define IDENT 7

/* ------------------------------------------------------------ helpers */

static paimon_table *make_de_table(const char *dir, const char *const *kv)
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
	CHECK_OK(paimon_schema_spec_add_columns(s, "id INT, a STRING, b STRING"));
	CHECK_OK(paimon_schema_spec_set_option(s, "row-tracking.enabled", "true"));
	CHECK_OK(paimon_schema_spec_set_option(s, "data-evolution.enabled", "true"));
	CHECK_OK(paimon_schema_spec_set_option(s, "deletion-vectors.enabled", "true"));
	for (; kv && kv[0]; kv += 2)
		CHECK_OK(paimon_schema_spec_set_option(s, kv[0], kv[1]));
	CHECK_OK(paimon_catalog_create_table(c, "db.t", s, 0));
	CHECK_OK(paimon_catalog_get_table(c, "db.t", &t));
	paimon_schema_spec_free(s);
	paimon_catalog_free(c);
	return t;
}

static void touch(const char *dir, const char *name)
{
	char p[4400];
	FILE *f;
	mkdir(dir, 0755);
	snprintf(p, sizeof p, "%s/%s", dir, name);
	f = fopen(p, "wb");
	if (!f)
		abort();
	fputs("x", f);
	fclose(f);
}

/* An ADD entry of an unpartitioned table; first < 0: no first_row_id;
 * cols: comma-separated _WRITE_COLS or NULL. The file is created. */
static pm_manifest_entry mk(paimon_table *t, const char *name, int64_t rows, int64_t first, const char *cols)
{
	pm_manifest_entry e;
	char d[4200];
	memset(&e, 0, sizeof e);
	e.kind = PM_FILE_KIND_ADD;
	CHECK_OK(pm_bytes_set(&e.partition, pm_empty_binrow, 12));
	e.partition.n = 4 + 8; /* arity 0: arity prefix + null bits word */
	CHECK_OK(pm_data_file_meta_init_append(&e.file));
	e.file.file_name = pm_strdup(name);
	e.file.row_count = rows;
	e.file.file_size = 1;
	if (first >= 0) {
		e.file.has_first_row_id = 1;
		e.file.first_row_id = first;
	}
	if (cols) {
		char buf[256], *tok, *save = NULL;
		snprintf(buf, sizeof buf, "%s", cols);
		e.file.has_write_cols = 1;
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			CHECK_OK(pm_strlist_push(&e.file.write_cols, tok));
	}
	if (t) {
		snprintf(d, sizeof d, "%s/bucket-0", t->path);
		touch(d, name);
	}
	return e;
}

/* A DELETION_VECTORS index change naming data files (NULL-terminated). */
static pm_index_manifest_entry mkdv(paimon_table *t, int kind, const char *name, const char *const *files)
{
	pm_index_manifest_entry e;
	char d[4200];
	size_t n = 0, i;
	memset(&e, 0, sizeof e);
	e.kind = kind;
	CHECK_OK(pm_bytes_set(&e.partition, pm_empty_binrow, 12));
	e.bucket = 0;
	e.index_type = pm_strdup("DELETION_VECTORS");
	e.file_name = pm_strdup(name);
	e.file_size = 30;
	while (files[n])
		n++;
	e.row_count = (int64_t)n;
	e.has_dv_ranges = 1;
	e.dv_ranges = pm_calloc(n ? n : 1, sizeof *e.dv_ranges);
	e.n_dv_ranges = n;
	for (i = 0; i < n; i++) {
		e.dv_ranges[i].data_file = pm_strdup(files[i]);
		e.dv_ranges[i].offset = 1 + (int32_t)i * 20;
		e.dv_ranges[i].length = 12;
		e.dv_ranges[i].has_cardinality = 1;
		e.dv_ranges[i].cardinality = 1;
	}
	if (t && kind == PM_FILE_KIND_ADD) {
		snprintf(d, sizeof d, "%s/index", t->path);
		touch(d, name);
	}
	return e;
}

static void free_entries(pm_manifest_entry *v, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		pm_manifest_entry_dispose(&v[i]);
}

static void free_index(pm_index_manifest_entry *v, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		pm_index_manifest_entry_dispose(&v[i]);
}

static pm_table_committer *committer(paimon_table *t, const char *user)
{
	pm_table_committer *c = NULL;
	pm_strmap o = {0};
	if (user)
		CHECK_OK(pm_strmap_set(&o, "commit.user", user));
	CHECK_OK(pm_strmap_set(&o, "commit.sync-data-files", "false"));
	CHECK_OK(pm_table_committer_new(t->io, t->path, t->schema->schema, &o, &c));
	pm_strmap_dispose(&o);
	return c;
}

static int batch(paimon_table *t, const pm_manifest_entry *adds, size_t n, const pm_index_manifest_entry *idx,
		 size_t ni, int64_t cf, int64_t *snap)
{
	pm_table_committer *c = committer(t, NULL);
	pm_commit_batch b = {0};
	int rc;
	b.adds = adds;
	b.n_adds = n;
	b.index = idx;
	b.n_index = ni;
	b.check_from_snapshot = cf;
	rc = pm_table_committer_commit_batch(c, &b, INT64_MAX, snap);
	pm_table_committer_free(c);
	return rc;
}

static pm_snapshot *snap_of(paimon_table *t, int64_t id)
{
	pm_snapshot *s = NULL;
	CHECK_OK(pm_snapshot_load(t->io, t->path, id, &s));
	return s;
}

#define latest_id crashfix_latest

/* The live entry named name in the latest snapshot (copied into out), 1 if found. */
static int live_entry(paimon_table *t, const char *name, pm_manifest_entry *out)
{
	pm_snapshot *s = snap_of(t, latest_id(t));
	pm_manifest_entry_list l = {0};
	size_t i;
	int found = 0;
	if (!s)
		return 0;
	CHECK_OK(pm_manifest_read_all(t->io, t->path, s->base_manifest_list, s->delta_manifest_list, NULL, &l));
	for (i = 0; i < l.len; i++)
		if (!strcmp(l.items[i].file.file_name, name)) {
			found = 1;
			if (out)
				CHECK_OK(pm_manifest_entry_copy(out, &l.items[i]));
		}
	pm_manifest_entry_list_dispose(&l);
	pm_snapshot_free(s);
	return found;
}

/* The index files of the latest snapshot, joined "a,b" in manifest order. */
static void index_names(paimon_table *t, char *out, size_t cap)
{
	pm_snapshot *s = snap_of(t, latest_id(t));
	pm_index_manifest_entry_list l = {0};
	size_t i, k = 0;
	out[0] = 0;
	if (s && s->index_manifest)
		CHECK_OK(pm_index_manifest_read(t->io, t->path, s->index_manifest, &l));
	for (i = 0; i < l.len; i++) {
		CHECK(l.items[i].kind == PM_FILE_KIND_ADD);
		k += (size_t)snprintf(out + k, cap - k, "%s%s", k ? "," : "", l.items[i].file_name);
	}
	pm_index_manifest_entry_list_dispose(&l);
	pm_snapshot_free(s);
}

/* Snapshot 1: two normal files f1 [0,9], f2 [10,19] (all columns). */
static paimon_table *base_table(char **dirp)
{
	char *dir = test_tmpdir();
	paimon_table *t = make_de_table(dir, NULL);
	pm_manifest_entry e[2];
	int64_t id = -2;
	e[0] = mk(t, "data-f1-0.parquet", 10, -1, NULL);
	e[1] = mk(t, "data-f2-0.parquet", 10, -1, NULL);
	CHECK_OK(batch(t, e, 2, NULL, 0, -1, &id));
	CHECK(id == 1);
	free_entries(e, 2);
	*dirp = dir;
	return t;
}

/* ----------------------------------------------------------- workload */

static const char *const F1[] = {"data-f1-0.parquet", NULL};
static const char *const F12[] = {"data-f1-0.parquet", "data-f2-0.parquet", NULL};

/* Snapshot 1: f1 [0,9], f2 [10,19]; snapshot 2: a DV of f1 (index-a-1). */
static paimon_table *setup(char **dirp)
{
	char *dir;
	paimon_table *t = base_table(&dir);
	pm_index_manifest_entry ix = mkdv(t, PM_FILE_KIND_ADD, "index-a-1", F1);
	pm_manifest_entry e[2];
	int64_t id = -2;
	CHECK_OK(batch(t, NULL, 0, &ix, 1, 1, &id));
	CHECK(id == 2);
	pm_index_manifest_entry_dispose(&ix);
	/* the workload's files exist before its commit */
	e[0] = mk(t, "data-u-0.parquet", 10, 0, "a");
	e[1] = mk(t, "data-n-0.parquet", 10, -1, NULL);
	free_entries(e, 2);
	ix = mkdv(t, PM_FILE_KIND_ADD, "index-b-1", F12);
	pm_index_manifest_entry_dispose(&ix);
	*dirp = dir;
	return t;
}

/* The workload's commit through io (the fault wrapper or a plain one). */
static int run_commit(paimon_table *t, pm_fileio *io, int with_delete)
{
	pm_table_committer *c = NULL;
	pm_strmap o = {0};
	pm_manifest_entry e[2];
	pm_index_manifest_entry ix[2];
	pm_commit_batch b = {0};
	int64_t id = -2;
	int rc;
	e[0] = mk(NULL, "data-u-0.parquet", 10, 0, "a");
	e[1] = mk(NULL, "data-n-0.parquet", 10, -1, NULL);
	ix[0] = mkdv(NULL, PM_FILE_KIND_DELETE, "index-a-1", F1);
	ix[1] = mkdv(NULL, PM_FILE_KIND_ADD, "index-b-1", F12);
	b.adds = e;
	b.n_adds = 2;
	b.index = ix;
	b.n_index = with_delete ? 2 : 0;
	b.check_from_snapshot = 2;
	if ((rc = pm_strmap_set(&o, "commit.user", USER)) || (rc = pm_strmap_set(&o, "commit.max-retries", "1")) ||
	    (rc = pm_table_committer_new(io, t->path, t->schema->schema, &o, &c)))
		goto out;
	rc = pm_table_committer_commit_batch(c, &b, IDENT, &id);
out:
	pm_table_committer_free(c);
	pm_strmap_dispose(&o);
	free_entries(e, 2);
	free_index(ix, 2);
	return rc;
}

/* 1: new state, 0: old state, -1: neither (reported). */
static int state(paimon_table *t, int with_delete)
{
	char names[256];
	int64_t id = latest_id(t);
	pm_manifest_entry got;
	pm_snapshot *s;
	int isnew = id == 3, ok = 1;
	if (id != 2 && id != 3) {
		fprintf(stderr, "latest snapshot %lld\n", (long long)id);
		return -1;
	}
	memset(&got, 0, sizeof got);
	ok &= live_entry(t, "data-f1-0.parquet", NULL) && live_entry(t, "data-f2-0.parquet", NULL);
	ok &= live_entry(t, "data-u-0.parquet", isnew ? &got : NULL) == isnew;
	if (isnew)
		ok &= got.file.first_row_id == 0 && got.file.min_sequence_number == 3;
	pm_manifest_entry_dispose(&got);
	ok &= live_entry(t, "data-n-0.parquet", isnew ? &got : NULL) == isnew;
	if (isnew)
		ok &= got.file.first_row_id == 20;
	pm_manifest_entry_dispose(&got);
	index_names(t, names, sizeof names);
	ok &= !strcmp(names, isnew && with_delete ? "index-b-1" : "index-a-1");
	s = snap_of(t, id);
	if (s) {
		ok &= s->next_row_id == (isnew ? 30 : 20);
		ok &= s->total_record_count == (isnew ? 40 : 20);
		if (isnew)
			ok &= !strcmp(s->commit_kind, with_delete ? "OVERWRITE" : "APPEND") &&
			      s->commit_identifier == IDENT && !strcmp(s->commit_user, USER);
		pm_snapshot_free(s);
	} else {
		ok = 0;
	}
	if (!ok)
		fprintf(stderr, "snapshot %lld is not a complete %s state (index: %s)\n", (long long)id,
			isnew ? "new" : "old", names);
	return ok ? isnew : -1;
}

static int run_update(paimon_table *t, pm_fileio *io)
{
	return run_commit(t, io, 0);
}

static int run_delete_update(paimon_table *t, pm_fileio *io)
{
	return run_commit(t, io, 1);
}

static int state_update(paimon_table *t)
{
	return state(t, 0);
}

static int state_delete_update(paimon_table *t)
{
	return state(t, 1);
}

/* sync, manifest, 2 lists, (index manifest), snapshot, hint */
static void crash_update(void)
{
	static const crash_workload w = {"update", USER, IDENT, 6, setup, run_update, state_update};
	crash_matrix(&w);
}

static void crash_delete_update(void)
{
	static const crash_workload w = {"delete+update", USER, IDENT, 6, setup, run_delete_update,
					 state_delete_update};
	crash_matrix(&w);
}

TEST_MAIN(T(crash_update), T(crash_delete_update))
