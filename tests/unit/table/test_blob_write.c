/*
 * tests/unit/table/test_blob_write.c - writes of BLOB columns (.blob files
 * beside the data file, write/rolling.c) end to end: values of every size
 * (empty, null, rolled files) read back equal through the public API, the
 * file layout, and crash / I/O-fault safety of a BLOB write + commit at
 * every write step (old or new table, a retry commits once; every .blob
 * file left behind is found by orphan clean-up and removing them changes
 * nothing the table reads).
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

TEST_MAIN(T(blob_roundtrip), T(blob_crash))
