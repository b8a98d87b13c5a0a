/*
 * tests/unit/table/tablefix.h - a small partitioned append table driven
 * through the public API, shared by the maintenance tests (test_orphan,
 * test_expire): make_table creates db.t (id INT, name STRING, dt STRING,
 * partitioned by dt) under a warehouse dir, write_commit writes and commits
 * rows, read_sum reads rows and the sum of ids at a scan option, tree_files
 * lists every file under a directory.
 */
#ifndef PM_TESTS_TABLEFIX_H
#define PM_TESTS_TABLEFIX_H

#include "test.h"
#include "paimonc/paimonc.h"
#include "paimonc/table.h"
#include "arrow/arrow_builder.h"
#include "core/strs.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* make_table with table options kv[0..2n) (key, value pairs). */
static inline paimon_table *make_table_with(const char *dir, const char *const *kv, size_t n)
{
	paimon_options *o;
	paimon_catalog *c = NULL;
	paimon_schema_spec *s = NULL;
	paimon_table *t = NULL;
	const char *part = "dt";
	size_t i;
	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "warehouse", dir));
	CHECK_OK(paimon_catalog_open(&c, o));
	paimon_options_free(o);
	CHECK_OK(paimon_catalog_create_database(c, "db", 1));
	CHECK_OK(paimon_schema_spec_new(&s));
	CHECK_OK(paimon_schema_spec_add_columns(s, "id INT, name STRING, dt STRING"));
	CHECK_OK(paimon_schema_spec_set_partition_keys(s, &part, 1));
	for (i = 0; i < n; i++)
		CHECK_OK(paimon_schema_spec_set_option(s, kv[2 * i], kv[2 * i + 1]));
	CHECK_OK(paimon_catalog_create_table(c, "db.t", s, 0));
	CHECK_OK(paimon_catalog_get_table(c, "db.t", &t));
	paimon_schema_spec_free(s);
	paimon_catalog_free(c);
	return t;
}

static inline paimon_table *make_table(const char *dir)
{
	return make_table_with(dir, NULL, 0);
}

/* paimon_catalog_get_table(ident) in the warehouse dir: its code; *out
 * the table (NULL on failure). */
static inline int get_table_rc(const char *dir, const char *ident, paimon_table **out)
{
	paimon_options *o;
	paimon_catalog *c = NULL;
	int rc;
	*out = NULL;
	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "warehouse", dir));
	CHECK_OK(paimon_catalog_open(&c, o));
	paimon_options_free(o);
	rc = paimon_catalog_get_table(c, ident, out);
	paimon_catalog_free(c);
	return rc;
}

/* The table ident (e.g. "db.t", "db.t$branch_b") of the warehouse dir. */
static inline paimon_table *open_as(const char *dir, const char *ident)
{
	paimon_table *t = NULL;
	CHECK_OK(get_table_rc(dir, ident, &t));
	return t;
}

/* n rows, id = start + i, dt = "p<id % nparts>" (nparts 0: all "p0"). */
/* Commit options of write_commit (NULL: none). */
static const paimon_options *g_copts;

static inline void write_commit(paimon_table *t, int64_t n, int32_t start, int nparts, int overwrite)
{
	pm_array_builder *ch[3], *st;
	paimon_table_write *w = NULL;
	paimon_commit_message *m = NULL;
	paimon_table_commit *c = NULL;
	struct ArrowArray a;
	struct ArrowSchema s;
	int64_t i, sid = -2;
	char buf[64];
	ch[0] = pm_ab_new_fixed("i", 4);
	ch[1] = pm_ab_new_binary("u", 0);
	ch[2] = pm_ab_new_binary("u", 0);
	pm_ab_set_name(ch[0], "id", 1);
	pm_ab_set_name(ch[1], "name", 1);
	pm_ab_set_name(ch[2], "dt", 1);
	for (i = 0; i < n; i++) {
		int32_t id = start + (int32_t)i;
		CHECK_OK(pm_ab_append_fixed(ch[0], &id, 1));
		snprintf(buf, sizeof buf, "name-%d", id);
		CHECK_OK(pm_ab_append_binary(ch[1], buf, strlen(buf)));
		snprintf(buf, sizeof buf, "p%d", nparts ? (int)(id % nparts) : 0);
		CHECK_OK(pm_ab_append_binary(ch[2], buf, strlen(buf)));
	}
	st = pm_ab_new_struct(ch, 3);
	CHECK_OK(pm_ab_append_valid(st, n));
	CHECK_OK(pm_ab_schema(st, &s));
	CHECK_OK(pm_ab_finish(st, &a));
	pm_ab_free(st);
	CHECK_OK(paimon_table_write_new(&w, t, NULL));
	CHECK_OK(paimon_table_write_arrow(w, &a, &s));
	a.release(&a);
	s.release(&s);
	CHECK_OK(paimon_table_write_prepare_commit(w, &m));
	CHECK_OK(paimon_table_commit_new(&c, t, g_copts));
	CHECK(paimon_table_commit_maintenance_error(c) == NULL);
	if (overwrite)
		CHECK_OK(paimon_table_commit_set_overwrite(c, NULL));
	CHECK_OK(paimon_table_commit_apply(c, &m, 1, INT64_MAX, &sid));
	CHECK(sid > 0);
	CHECK(paimon_table_commit_maintenance_error(c) == NULL);
	paimon_table_commit_free(c);
	paimon_commit_message_free(m);
	paimon_table_write_free(w);
}

/* Rows and sum of ids read at a scan option (key NULL: latest). */
static inline void read_sum(paimon_table *t, const char *key, const char *val, int64_t *rows, int64_t *sum)
{
	paimon_read_builder *rb = NULL;
	paimon_plan *p = NULL;
	struct ArrowArrayStream st;
	const paimon_split **v;
	size_t i, n;
	*rows = *sum = -1;
	CHECK_OK(paimon_read_builder_new(&rb, t));
	if (key)
		CHECK_OK(paimon_read_builder_with_option(rb, key, val));
	CHECK_OK(paimon_read_builder_plan(rb, &p));
	if (!p) {
		paimon_read_builder_free(rb);
		return;
	}
	n = paimon_plan_split_count(p);
	v = calloc(n + 1, sizeof *v);
	for (i = 0; i < n; i++)
		v[i] = paimon_plan_split(p, i);
	memset(&st, 0, sizeof st);
	CHECK_OK(paimon_read_builder_read(rb, v, n, &st));
	free(v);
	if (st.release) {
		*rows = *sum = 0;
		for (;;) {
			struct ArrowArray a;
			int64_t k;
			memset(&a, 0, sizeof a);
			CHECK_OK(st.get_next(&st, &a));
			if (!a.release)
				break;
			*rows += a.length;
			for (k = 0; k < a.length; k++)
				*sum += ((const int32_t *)a.children[0]->buffers[1])[a.children[0]->offset + k];
			a.release(&a);
		}
		st.release(&st);
	}
	paimon_plan_free(p);
	paimon_read_builder_free(rb);
}

/* Every regular file under dir (recursive, absolute paths, sorted). */
static inline void tree_files(const char *dir, pm_strlist *out)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		char p[4096];
		struct stat st;
		int n;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		n = snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
		CHECK(n > 0 && (size_t)n < sizeof p);
		if (n <= 0 || (size_t)n >= sizeof p || stat(p, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode))
			tree_files(p, out);
		else
			CHECK_OK(pm_strlist_push(out, p));
	}
	closedir(d);
	pm_strlist_sort(out);
}

#endif
