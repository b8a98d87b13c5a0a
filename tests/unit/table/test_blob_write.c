/*
 * tests/unit/table/test_blob_write.c - writes of BLOB columns (.blob files
 * beside the data file, write/rolling.c) end to end: values of every size
 * (empty, null, rolled files) read back equal through the public API, the
 * file layout, and crash / I/O-fault safety of a BLOB write + commit at
 * every write step (old or new table, a retry commits once; every .blob
 * file left behind is found by orphan clean-up and removing them changes
 * nothing the table reads). The same matrix for a write of an ARRAY<BLOB>
 * column (nested payloads in the .blob files) and for an update by row id
 * of one VECTOR column of a dedicated vector store (one whole-group
 * .vector.parquet per touched group, no normal file).
 */
#include "test.h"
#include "crashfix.h"
#include "paimonc/paimonc.h"
#include "paimonc/table.h"
#include "api/handles.h"
#include "arrow/arrow_builder.h"
#include "commit/commit.h"
#include "core/mem.h"
#include "maint/orphan.h"
#include "write/update.h"
#include "write/write.h"

#include <dirent.h>
#include <sys/stat.h>

#define USER "blob-user"
#define IDENT 40

/* Value of row id: 0 .. ~9000 bytes derived from id; null every 7th, empty every 11th. */
static int value_of(int32_t id, uint8_t *buf, size_t *len)
{
	uint32_t x = (uint32_t)id * 2654435761u;
	size_t i;
	if (id % 7 == 3)
		return 0;
	*len = id % 11 == 5 ? 0 : (size_t)(x % 9000);
	for (i = 0; i < *len; i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (uint8_t)(x >> 16);
	}
	return 1;
}

static void make_batch(int32_t start, int32_t n, struct ArrowArray *a, struct ArrowSchema *s)
{
	pm_array_builder *ch[2], *st;
	static uint8_t buf[9000];
	int32_t k;
	ch[0] = pm_ab_new_fixed("i", 4);
	ch[1] = pm_ab_new_binary("Z", 1);
	pm_ab_set_name(ch[0], "id", 1);
	pm_ab_set_name(ch[1], "b", 1);
	for (k = 0; k < n; k++) {
		int32_t id = start + k;
		size_t len = 0;
		pm_ab_append_fixed(ch[0], &id, 1);
		if (value_of(id, buf, &len))
			pm_ab_append_binary(ch[1], len ? buf : (const uint8_t *)"", len);
		else
			pm_ab_append_nulls(ch[1], 1);
	}
	st = pm_ab_new_struct(ch, 2);
	pm_ab_append_valid(st, n);
	memset(a, 0, sizeof *a);
	CHECK_OK(pm_ab_schema(st, s));
	CHECK_OK(pm_ab_finish(st, a));
	pm_ab_free(st);
}

static paimon_table *open_table(const char *dir)
{
	paimon_options *o;
	paimon_catalog *c = NULL;
	paimon_table *t = NULL;
	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "warehouse", dir));
	CHECK_OK(paimon_catalog_open(&c, o));
	paimon_options_free(o);
	CHECK_OK(paimon_catalog_get_table(c, "db.t", &t));
	paimon_catalog_free(c);
	return t;
}

/* Writes ids [start, start + n) through io and commits them as (user, ident). */
static int write_commit(paimon_table *t, pm_fileio *io, int32_t start, int32_t n, const char *user, int64_t ident)
{
	pm_table_writer *w = NULL;
	pm_table_committer *c = NULL;
	pm_manifest_entry_list l = {0};
	pm_strmap o = {0};
	struct ArrowArray a;
	struct ArrowSchema s;
	int rc;
	make_batch(start, n, &a, &s);
	if ((rc = pm_table_writer_new(io, t->path, t->schema->schema, NULL, &w)) ||
	    (rc = pm_table_writer_write(w, &a, &s)) || (rc = pm_table_writer_prepare_commit(w, &l)))
		goto out;
	if ((rc = pm_strmap_set(&o, "commit.user", user)) || (rc = pm_strmap_set(&o, "commit.max-retries", "1")) ||
	    (rc = pm_table_committer_new(io, t->path, t->schema->schema, &o, &c)))
		goto out;
	rc = pm_table_committer_commit(c, l.items, l.len, ident, NULL);
out:
	if (a.release)
		a.release(&a);
	s.release(&s);
	pm_table_committer_free(c);
	pm_table_writer_free(w);
	pm_manifest_entry_list_dispose(&l);
	pm_strmap_dispose(&o);
	return rc;
}

/* Rows read: count, and 1 if every (id, b) equals value_of(id). */
static int read_check(paimon_table *t, int64_t *rows)
{
	const char *proj[] = {"id", "b"};
	paimon_read_builder *rb = NULL;
	paimon_plan *p = NULL;
	const paimon_split *sp[64];
	struct ArrowArrayStream st;
	static uint8_t buf[9000];
	size_t i, ns;
	int ok = 1;
	*rows = 0;
	memset(&st, 0, sizeof st);
	if (paimon_read_builder_new(&rb, t) || paimon_read_builder_with_projection(rb, proj, 2) ||
	    paimon_read_builder_plan(rb, &p)) {
		ok = 0;
		goto out;
	}
	ns = paimon_plan_split_count(p);
	for (i = 0; i < ns && i < 64; i++)
		sp[i] = paimon_plan_split(p, i);
	if (ns > 64 || paimon_read_builder_read(rb, sp, ns, &st)) {
		ok = 0;
		goto out;
	}
	for (;;) {
		struct ArrowArray a;
		int64_t k;
		if (st.get_next(&st, &a)) {
			ok = 0;
			break;
		}
		if (!a.release)
			break;
		for (k = 0; k < a.length; k++) {
			const struct ArrowArray *ic = a.children[0], *bc = a.children[1];
			int32_t id = ((const int32_t *)ic->buffers[1])[ic->offset + k];
			int64_t j = bc->offset + k;
			const uint8_t *valid = bc->null_count ? bc->buffers[0] : NULL;
			int isnull = valid && !(valid[j >> 3] >> (j & 7) & 1);
			size_t len = 0;
			int has = value_of(id, buf, &len);
			if (has == isnull)
				ok = 0;
			if (has && !isnull) {
				int64_t x = ((const int64_t *)bc->buffers[1])[j], y = ((const int64_t *)bc->buffers[1])[j + 1];
				if ((size_t)(y - x) != len || (len && memcmp((const uint8_t *)bc->buffers[2] + x, buf, len)))
					ok = 0;
			}
		}
		*rows += a.length;
		a.release(&a);
	}
out:
	if (st.release)
		st.release(&st);
	paimon_plan_free(p);
	paimon_read_builder_free(rb);
	return ok;
}

static int count_blob_files(const char *dir)
{
	char p[4200];
	DIR *d;
	struct dirent *e;
	int n = 0;
	snprintf(p, sizeof p, "%s/db.db/t/bucket-0", dir);
	if (!(d = opendir(p)))
		return 0;
	while ((e = readdir(d)))
		n += strlen(e->d_name) > 5 && !strcmp(e->d_name + strlen(e->d_name) - 5, ".blob");
	closedir(d);
	return n;
}

static char *make(void)
{
	char *dir = test_tmpdir();
	paimon_options *o;
	paimon_catalog *c = NULL;
	paimon_schema_spec *s = NULL;
	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "warehouse", dir));
	CHECK_OK(paimon_catalog_open(&c, o));
	paimon_options_free(o);
	CHECK_OK(paimon_catalog_create_database(c, "db", 1));
	CHECK_OK(paimon_schema_spec_new(&s));
	CHECK_OK(paimon_schema_spec_add_columns(s, "id INT, b BLOB"));
	CHECK_OK(paimon_schema_spec_set_option(s, "row-tracking.enabled", "true"));
	CHECK_OK(paimon_schema_spec_set_option(s, "data-evolution.enabled", "true"));
	CHECK_OK(paimon_schema_spec_set_option(s, "blob.target-file-size", "20kb"));
	CHECK_OK(paimon_catalog_create_table(c, "db.t", s, 0));
	paimon_schema_spec_free(s);
	paimon_catalog_free(c);
	return dir;
}

static void blob_roundtrip(void)
{
	char *dir = make();
	paimon_table *t = open_table(dir);
	pm_fileio *io = NULL;
	int64_t rows = 0;
	paimon_table_write *w = NULL;
	CHECK_OK(pm_fileio_local_new(&io));
	CHECK_OK(write_commit(t, io, 0, 50, "u", 1));
	CHECK_OK(write_commit(t, io, 50, 30, "u", 2));
	CHECK(read_check(t, &rows) && rows == 80);
	CHECK(count_blob_files(dir) > 4); /* rolled at 20 kb */
	/* the public write API takes BLOB columns now */
	CHECK_OK(paimon_table_write_new(&w, t, NULL));
	paimon_table_write_free(w);
	pm_fileio_close(io);
	paimon_table_free(t);
	crashfix_rm_rf(dir);
	free(dir);
}

/* ---------------------------------------------------------- crash matrix */

static paimon_table *crash_setup(char **dirp)
{
	char *dir = make();
	paimon_table *t = open_table(dir);
	pm_fileio *io = NULL;
	CHECK_OK(pm_fileio_local_new(&io));
	CHECK_OK(write_commit(t, io, 0, 20, "other", 1));
	pm_fileio_close(io);
	*dirp = dir;
	return t;
}

static int crash_run(paimon_table *t, pm_fileio *io)
{
	return write_commit(t, io, 20, 25, USER, IDENT);
}

static int crash_state(paimon_table *t)
{
	int64_t rows = 0;
	int ok = read_check(t, &rows), st = -1;
	paimon_error_clear();
	if (ok && rows == 20)
		st = 0;
	else if (ok && rows == 45)
		st = 1;
	if (st == 1) {
		/* orphan clean-up removes what failed attempts left; the table
		 * reads the same afterwards */
		pm_orphan_list l;
		memset(&l, 0, sizeof l);
		if (pm_table_remove_orphans(t->io, t->path, INT64_MAX, 0, &l) != 0 || !read_check(t, &rows) ||
		    rows != 45)
			st = -1;
		pm_orphan_list_dispose(&l);
	}
	if (st < 0)
		fprintf(stderr, "blob table reads %lld rows (ok %d)\n", (long long)rows, ok);
	return st;
}

static void blob_crash(void)
{
	static const crash_workload w = {"blob write", USER, IDENT, 6, crash_setup, crash_run, crash_state};
	crash_matrix(&w);
}

/* ------------------------------------------------- generic table helpers */

/* A data-evolution table db.t of `cols` in a fresh warehouse, options kv
 * (NULL-terminated pairs). */
static char *make_table(const char *cols, const char *const *kv)
{
	char *dir = test_tmpdir();
	paimon_options *o;
	paimon_catalog *c = NULL;
	paimon_schema_spec *s = NULL;
	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "warehouse", dir));
	CHECK_OK(paimon_catalog_open(&c, o));
	paimon_options_free(o);
	CHECK_OK(paimon_catalog_create_database(c, "db", 1));
	CHECK_OK(paimon_schema_spec_new(&s));
	CHECK_OK(paimon_schema_spec_add_columns(s, cols));
	CHECK_OK(paimon_schema_spec_set_option(s, "row-tracking.enabled", "true"));
	CHECK_OK(paimon_schema_spec_set_option(s, "data-evolution.enabled", "true"));
	for (; kv && kv[0]; kv += 2)
		CHECK_OK(paimon_schema_spec_set_option(s, kv[0], kv[1]));
	CHECK_OK(paimon_catalog_create_table(c, "db.t", s, 0));
	paimon_schema_spec_free(s);
	paimon_catalog_free(c);
	return dir;
}

/* Commits entries l through io as (user, ident), base snapshot check_from. */
static int commit_entries(paimon_table *t, pm_fileio *io, pm_manifest_entry_list *l, const char *user, int64_t ident,
			  int64_t check_from)
{
	pm_table_committer *c = NULL;
	pm_strmap o = {0};
	pm_commit_batch b;
	int64_t id = -2;
	int rc;
	memset(&b, 0, sizeof b);
	b.adds = l->items;
	b.n_adds = l->len;
	b.check_from_snapshot = check_from;
	if ((rc = pm_strmap_set(&o, "commit.user", user)) || (rc = pm_strmap_set(&o, "commit.max-retries", "1")) ||
	    (rc = pm_table_committer_new(io, t->path, t->schema->schema, &o, &c)))
		goto out;
	rc = pm_table_committer_commit_batch(c, &b, ident, &id);
out:
	pm_table_committer_free(c);
	pm_strmap_dispose(&o);
	return rc;
}

/* Writes batch (a, s) through io (released here) and commits it. */
static int write_batch_commit(paimon_table *t, pm_fileio *io, struct ArrowArray *a, struct ArrowSchema *s,
			      const char *user, int64_t ident)
{
	pm_table_writer *w = NULL;
	pm_manifest_entry_list l = {0};
	int rc;
	if (!(rc = pm_table_writer_new(io, t->path, t->schema->schema, NULL, &w)) &&
	    !(rc = pm_table_writer_write(w, a, s)) && !(rc = pm_table_writer_prepare_commit(w, &l)))
		rc = commit_entries(t, io, &l, user, ident, -1);
	if (a->release)
		a->release(a);
	s->release(s);
	pm_table_writer_free(w);
	pm_manifest_entry_list_dispose(&l);
	return rc;
}

/* Reads projection proj (n columns) of every split; calls row_fn per batch.
 * Returns the rows read, or -1 on a read error. */
typedef int (*batch_fn)(const struct ArrowArray *a, void *ctx);
static int64_t read_all(paimon_table *t, const char *const *proj, size_t n, batch_fn fn, void *ctx, int *ok)
{
	paimon_read_builder *rb = NULL;
	paimon_plan *p = NULL;
	const paimon_split *sp[64];
	struct ArrowArrayStream st;
	size_t i, ns;
	int64_t rows = 0;
	memset(&st, 0, sizeof st);
	*ok = 1;
	if (paimon_read_builder_new(&rb, t) || paimon_read_builder_with_projection(rb, proj, n) ||
	    paimon_read_builder_plan(rb, &p)) {
		rows = -1;
		goto out;
	}
	ns = paimon_plan_split_count(p);
	for (i = 0; i < ns && i < 64; i++)
		sp[i] = paimon_plan_split(p, i);
	if (ns > 64 || paimon_read_builder_read(rb, sp, ns, &st)) {
		rows = -1;
		goto out;
	}
	for (;;) {
		struct ArrowArray a;
		if (st.get_next(&st, &a)) {
			rows = -1;
			break;
		}
		if (!a.release)
			break;
		if (!fn(&a, ctx))
			*ok = 0;
		rows += a.length;
		a.release(&a);
	}
out:
	if (st.release)
		st.release(&st);
	paimon_plan_free(p);
	paimon_read_builder_free(rb);
	paimon_error_clear();
	return rows;
}

static int is_valid(const struct ArrowArray *c, int64_t j)
{
	return !c->null_count || !c->buffers[0] || (((const uint8_t *)c->buffers[0])[j >> 3] >> (j & 7) & 1);
}

/* 0: the table reads the old state (count(t, 0) reads old_rows rows, all
 * as expected), 1: the new one (count(t, 1), new_rows; the same after the
 * orphan clean-up removed what failed attempts left), -1: neither. */
typedef int64_t (*count_fn)(paimon_table *t, int updated, int *ok);
static int state_of(paimon_table *t, count_fn count, int64_t old_rows, int64_t new_rows)
{
	int ok = 0, st = -1, which;
	int64_t rows = -1;
	for (which = 0; which < 2 && st < 0; which++) {
		rows = count(t, which, &ok);
		if (ok && rows == (which ? new_rows : old_rows))
			st = which;
	}
	if (st == 1) {
		pm_orphan_list l;
		memset(&l, 0, sizeof l);
		if (pm_table_remove_orphans(t->io, t->path, INT64_MAX, 0, &l) != 0 || count(t, 1, &ok) != new_rows || !ok)
			st = -1;
		pm_orphan_list_dispose(&l);
	}
	paimon_error_clear();
	if (st < 0)
		fprintf(stderr, "table reads %lld rows (ok %d)\n", (long long)rows, ok);
	return st;
}

/* ------------------------------------------- ARRAY<BLOB> write crash matrix */

/* Element j of row id (NULL: a null element); *len its length. */
static const uint8_t *elem_of(int32_t id, int j, size_t *len)
{
	static uint8_t buf[9000];
	if ((id + j) % 6 == 1)
		return NULL;
	if (!value_of(id * 4 + j, buf, len))
		*len = 0;
	return buf;
}

static int elems_of(int32_t id)
{
	return id % 5 == 2 ? -1 : id % 4; /* -1: a null array */
}

static void make_nested(int32_t start, int32_t n, struct ArrowArray *a, struct ArrowSchema *s)
{
	pm_array_builder *ch[2], *st, *el;
	int32_t k;
	ch[0] = pm_ab_new_fixed("i", 4);
	el = pm_ab_new_binary("Z", 1);
	pm_ab_set_name(el, "item", 1);
	ch[1] = pm_ab_new_list(el, 0);
	pm_ab_set_name(ch[0], "id", 1);
	pm_ab_set_name(ch[1], "a", 1);
	for (k = 0; k < n; k++) {
		int32_t id = start + k;
		int m = elems_of(id), j;
		pm_ab_append_fixed(ch[0], &id, 1);
		if (m < 0) {
			pm_ab_append_nulls(ch[1], 1);
			continue;
		}
		for (j = 0; j < m; j++) {
			size_t len = 0;
			const uint8_t *p = elem_of(id, j, &len);
			if (p)
				pm_ab_append_binary(el, len ? p : (const uint8_t *)"", len);
			else
				pm_ab_append_nulls(el, 1);
		}
		pm_ab_append_list(ch[1], m);
	}
	st = pm_ab_new_struct(ch, 2);
	pm_ab_append_valid(st, n);
	memset(a, 0, sizeof *a);
	CHECK_OK(pm_ab_schema(st, s));
	CHECK_OK(pm_ab_finish(st, a));
	pm_ab_free(st);
}

static int nested_batch_ok(const struct ArrowArray *b, void *ctx)
{
	const struct ArrowArray *ic = b->children[0], *lc = b->children[1], *ec = lc->children[0];
	int64_t k;
	(void)ctx;
	for (k = 0; k < b->length; k++) {
		int32_t id = ((const int32_t *)ic->buffers[1])[ic->offset + b->offset + k];
		int64_t r = lc->offset + b->offset + k, x, y, e;
		int m = elems_of(id);
		if (!is_valid(lc, r)) {
			if (m >= 0)
				return 0;
			continue;
		}
		x = ((const int32_t *)lc->buffers[1])[r];
		y = ((const int32_t *)lc->buffers[1])[r + 1];
		if (m < 0 || y - x != m)
			return 0;
		for (e = x; e < y; e++) {
			size_t len = 0;
			const uint8_t *p = elem_of(id, (int)(e - x), &len);
			int64_t j = ec->offset + e, u, v;
			if (!p != !is_valid(ec, j))
				return 0;
			if (!p)
				continue;
			u = ((const int64_t *)ec->buffers[1])[j];
			v = ((const int64_t *)ec->buffers[1])[j + 1];
			if ((size_t)(v - u) != len || (len && memcmp((const uint8_t *)ec->buffers[2] + u, p, len)))
				return 0;
		}
	}
	return 1;
}

static int64_t nested_count(paimon_table *t, int updated, int *ok)
{
	static const char *const proj[] = {"id", "a"};
	(void)updated; /* rows are appended, none changes */
	return read_all(t, proj, 2, nested_batch_ok, NULL, ok);
}

static paimon_table *nested_setup(char **dirp)
{
	static const char *const kv[] = {"blob.target-file-size", "16kb", NULL};
	char *dir = make_table("id INT, a ARRAY<BLOB>", kv);
	paimon_table *t = open_table(dir);
	pm_fileio *io = NULL;
	struct ArrowArray a;
	struct ArrowSchema s;
	CHECK_OK(pm_fileio_local_new(&io));
	make_nested(0, 20, &a, &s);
	CHECK_OK(write_batch_commit(t, io, &a, &s, "other", 1));
	pm_fileio_close(io);
	*dirp = dir;
	return t;
}

static int nested_run(paimon_table *t, pm_fileio *io)
{
	struct ArrowArray a;
	struct ArrowSchema s;
	make_nested(20, 25, &a, &s);
	return write_batch_commit(t, io, &a, &s, USER, IDENT);
}

static int nested_state(paimon_table *t)
{
	return state_of(t, nested_count, 20, 45);
}

static void nested_blob_crash(void)
{
	static const crash_workload w = {"ARRAY<BLOB> write", USER, IDENT, 6, nested_setup, nested_run, nested_state};
	char *dir = NULL;
	paimon_table *t = nested_setup(&dir);
	int ok = 0;
	/* the setup itself reads back, with rolled .blob files */
	CHECK(nested_count(t, 0, &ok) == 20 && ok);
	CHECK(count_blob_files(dir) > 1);
	paimon_table_free(t);
	crashfix_rm_rf(dir);
	free(dir);
	crash_matrix(&w);
}

/* ------------------------------------------- VECTOR update crash matrix */

#define VROWS 20
#define VGROUP0 12 /* rows of the first group (commit), the rest the second */

/* Updated rows of the workload and their new v (NULL: a null vector). */
static const int64_t VUPD[] = {3, 15, 19};
static const float VNEW[][2] = {{-1.0f, -2.0f}, {0, 0}, {7.5f, 8.5f}};

/* Component k of vector column col ('v' 2 wide, 'w' 3 wide) of row id;
 * 0 for a null vector. */
static int vec_of(int32_t id, char col, int updated, int k, float *out)
{
	size_t i;
	if (col == 'v' && updated)
		for (i = 0; i < sizeof VUPD / sizeof *VUPD; i++)
			if (VUPD[i] == id) {
				if (i == 1)
					return 0;
				*out = VNEW[i][k];
				return 1;
			}
	if (col == 'v' ? id % 7 == 4 : id % 5 == 1)
		return 0;
	*out = (float)(id * 10 + k) + (col == 'w' ? 0.5f : 0.0f);
	return 1;
}

static void make_vectors(int32_t start, int32_t n, struct ArrowArray *a, struct ArrowSchema *s)
{
	pm_array_builder *ch[3], *st, *ve, *we;
	int32_t k;
	int j;
	ch[0] = pm_ab_new_fixed("i", 4);
	ve = pm_ab_new_fixed("f", 4);
	we = pm_ab_new_fixed("f", 4);
	pm_ab_set_name(ve, "item", 1);
	pm_ab_set_name(we, "item", 1);
	ch[1] = pm_ab_new_fixed_list(ve, 2);
	ch[2] = pm_ab_new_fixed_list(we, 3);
	pm_ab_set_name(ch[0], "id", 1);
	pm_ab_set_name(ch[1], "v", 1);
	pm_ab_set_name(ch[2], "w", 1);
	for (k = 0; k < n; k++) {
		int32_t id = start + k;
		float x;
		pm_ab_append_fixed(ch[0], &id, 1);
		if (vec_of(id, 'v', 0, 0, &x)) {
			for (j = 0; j < 2; j++) {
				vec_of(id, 'v', 0, j, &x);
				pm_ab_append_fixed(ve, &x, 1);
			}
			pm_ab_append_valid(ch[1], 1);
		} else {
			pm_ab_append_nulls(ch[1], 1);
		}
		if (vec_of(id, 'w', 0, 0, &x)) {
			for (j = 0; j < 3; j++) {
				vec_of(id, 'w', 0, j, &x);
				pm_ab_append_fixed(we, &x, 1);
			}
			pm_ab_append_valid(ch[2], 1);
		} else {
			pm_ab_append_nulls(ch[2], 1);
		}
	}
	st = pm_ab_new_struct(ch, 3);
	pm_ab_append_valid(st, n);
	memset(a, 0, sizeof *a);
	CHECK_OK(pm_ab_schema(st, s));
	CHECK_OK(pm_ab_finish(st, a));
	pm_ab_free(st);
}

/* ctx: int *, 1: compare with the updated values */
static int vec_batch_ok(const struct ArrowArray *b, void *ctx)
{
	const int *updated = ctx;
	const struct ArrowArray *ic = b->children[0];
	int64_t r;
	int c, k;
	for (r = 0; r < b->length; r++) {
		int32_t id = ((const int32_t *)ic->buffers[1])[ic->offset + b->offset + r];
		for (c = 0; c < 2; c++) {
			const struct ArrowArray *lc = b->children[1 + c], *ec = lc->children[0];
			int n = c ? 3 : 2;
			int64_t j = lc->offset + b->offset + r;
			float want;
			int has = vec_of(id, c ? 'w' : 'v', *updated, 0, &want);
			if (has != is_valid(lc, j))
				return 0;
			for (k = 0; has && k < n; k++) {
				vec_of(id, c ? 'w' : 'v', *updated, k, &want);
				if (((const float *)ec->buffers[1])[ec->offset + j * n + k] != want)
					return 0;
			}
		}
	}
	return 1;
}

static int64_t vec_count(paimon_table *t, int updated, int *ok)
{
	static const char *const proj[] = {"id", "v", "w"};
	return read_all(t, proj, 3, vec_batch_ok, &updated, ok);
}

static paimon_table *vec_setup(char **dirp)
{
	static const char *const kv[] = {"vector.file.format", "parquet", NULL};
	char *dir = make_table("id INT, v VECTOR<FLOAT, 2>, w VECTOR<FLOAT, 3>", kv);
	paimon_table *t = open_table(dir);
	pm_fileio *io = NULL;
	struct ArrowArray a;
	struct ArrowSchema s;
	CHECK_OK(pm_fileio_local_new(&io));
	make_vectors(0, VGROUP0, &a, &s);
	CHECK_OK(write_batch_commit(t, io, &a, &s, "other", 1));
	make_vectors(VGROUP0, VROWS - VGROUP0, &a, &s);
	CHECK_OK(write_batch_commit(t, io, &a, &s, "other", 2));
	pm_fileio_close(io);
	*dirp = dir;
	return t;
}

/* Updates v of VUPD (one of them to null) through io and commits. */
static int vec_run(paimon_table *t, pm_fileio *io)
{
	pm_row_id_update *u = NULL;
	pm_manifest_entry_list l = {0};
	pm_strlist cols = {0};
	pm_array_builder *ch[2], *st, *ve;
	struct ArrowArray a;
	struct ArrowSchema s;
	size_t i;
	int rc;
	ch[0] = pm_ab_new_fixed("l", 8);
	ve = pm_ab_new_fixed("f", 4);
	pm_ab_set_name(ve, "item", 1);
	ch[1] = pm_ab_new_fixed_list(ve, 2);
	pm_ab_set_name(ch[0], "_ROW_ID", 0);
	pm_ab_set_name(ch[1], "v", 1);
	for (i = 0; i < sizeof VUPD / sizeof *VUPD; i++) {
		pm_ab_append_fixed(ch[0], &VUPD[i], 1);
		if (i == 1) {
			pm_ab_append_nulls(ch[1], 1);
		} else {
			pm_ab_append_fixed(ve, VNEW[i], 2);
			pm_ab_append_valid(ch[1], 1);
		}
	}
	st = pm_ab_new_struct(ch, 2);
	pm_ab_append_valid(st, (int64_t)(sizeof VUPD / sizeof *VUPD));
	memset(&a, 0, sizeof a);
	CHECK_OK(pm_ab_schema(st, &s));
	CHECK_OK(pm_ab_finish(st, &a));
	pm_ab_free(st);
	CHECK_OK(pm_strlist_push(&cols, "v"));
	rc = pm_row_id_update_new(io, t->path, t->schema->schema, NULL, &cols, &u);
	if (!rc)
		rc = pm_row_id_update_add(u, &a, &s);
	else
		a.release(&a);
	if (!rc && !(rc = pm_row_id_update_finish(u, &l)))
		rc = commit_entries(t, io, &l, USER, IDENT, pm_row_id_update_base_snapshot(u));
	s.release(&s);
	pm_row_id_update_free(u);
	pm_manifest_entry_list_dispose(&l);
	pm_strlist_dispose(&cols);
	return rc;
}

static int vec_state(paimon_table *t)
{
	return state_of(t, vec_count, VROWS, VROWS);
}

static void vector_update_layout(void)
{
	char *dir = NULL;
	paimon_table *t = vec_setup(&dir);
	pm_fileio *io = NULL;
	pm_rowid_groups g;
	size_t i, k, nvec = 0;
	int ok = 0;
	CHECK(vec_count(t, 0, &ok) == VROWS && ok);
	CHECK(vec_count(t, 1, &ok) == VROWS && !ok);
	CHECK_OK(pm_fileio_local_new(&io));
	CHECK_OK(vec_run(t, io));
	CHECK(vec_count(t, 1, &ok) == VROWS && ok);
	/* per touched group one whole-group .vector.parquet [v, w], seq = the
	 * snapshot (3); the normal files untouched */
	CHECK_OK(pm_rowid_groups_plan(io, t->path, t->schema->schema, -1, "test", &g));
	CHECK(g.len == 2 && g.snapshot_id == 3);
	for (i = 0; i < g.len; i++) {
		CHECK(g.items[i].files.len == 1 && g.items[i].files.items[0].file.max_sequence_number < 3);
		for (k = 0; k < g.items[i].companions.len; k++) {
			const pm_data_file_meta *f = &g.items[i].companions.items[k].file;
			if (f->min_sequence_number != 3)
				continue;
			nvec++;
			CHECK(pm_file_is_vector(f->file_name) && f->max_sequence_number == 3);
			CHECK(f->first_row_id == g.items[i].start && f->row_count == g.items[i].count);
			CHECK(f->has_write_cols && f->write_cols.len == 2 && !strcmp(f->write_cols.items[0], "v") &&
			      !strcmp(f->write_cols.items[1], "w"));
			CHECK(!f->has_value_stats_cols);
		}
	}
	CHECK(nvec == 2);
	pm_rowid_groups_dispose(&g);
	pm_fileio_close(io);
	paimon_table_free(t);
	crashfix_rm_rf(dir);
	free(dir);
}

static void vector_update_crash(void)
{
	static const crash_workload w = {"VECTOR update", USER, IDENT, 6, vec_setup, vec_run, vec_state};
	crash_matrix(&w);
}

TEST_MAIN(T(blob_roundtrip), T(blob_crash), T(nested_blob_crash), T(vector_update_layout), T(vector_update_crash))
