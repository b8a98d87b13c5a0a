/*
 * api/api_catalog.c - the filesystem catalog.
 *
 * A database is a directory "<name>.db" under the warehouse; a table is a
 * directory inside it that holds schema/schema-<n> (Java's
 * tableExistsInFileSystem rule, stricter than pypaimon's plain listing).
 * Creating a table publishes schema-0 with no-overwrite, so of two
 * concurrent creators exactly one wins. ALTER publishes schema-(n+1) the
 * same way and, on losing a race, re-reads the latest schema and re-applies
 * the changes (as Java's SchemaManager does).
 */
#include "api/handles.h"
#include "api/api_system.h"
#include "core/error.h"
#include "core/mem.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define DB_SUFFIX ".db"
#define ALTER_RETRIES 16

/* ---------------------------------------------------------------- names */

int pm_catalog_validate_name(const char *kind, const char *name)
{
	const unsigned char *p;
	if (!name || !*name)
		return pm_err(PAIMON_EINVAL, "invalid %s name: it is empty", kind);
	if (strcmp(name, ".") == 0 || strstr(name, ".."))
		return pm_err(PAIMON_EINVAL, "invalid %s name '%s': it must not be '.' or contain '..'", kind, name);
	if (strchr(name, '/') || strchr(name, '\\'))
		return pm_err(PAIMON_EINVAL, "invalid %s name '%s': it must not contain a path separator", kind, name);
	for (p = (const unsigned char *)name; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return pm_err(PAIMON_EINVAL, "invalid %s name '%s': it contains a control character", kind, name);
	if (name[0] == '.' || name[0] == '_')
		return pm_err(PAIMON_EINVAL, "invalid %s name '%s': names starting with '.' or '_' are hidden", kind, name);
	if (strcmp(kind, "database") == 0) {
		size_t n = strlen(name);
		if (n >= strlen(DB_SUFFIX) && strcmp(name + n - strlen(DB_SUFFIX), DB_SUFFIX) == 0)
			return pm_err(PAIMON_EINVAL, "invalid database name '%s': it must not end in '%s'", name, DB_SUFFIX);
	}
	return 0;
}

int pm_catalog_parse_identifier(const char *identifier, char **db, char **table)
{
	const char *dot;
	char *d, *t;
	int rc;
	if (!identifier || !*identifier)
		return pm_err(PAIMON_EINVAL, "invalid table identifier: it is empty; expected 'database.table'");
	dot = strchr(identifier, '.');
	if (!dot || strchr(dot + 1, '.'))
		return pm_err(PAIMON_EINVAL, "invalid table identifier '%s': expected 'database.table'", identifier);
	d = pm_strndup(identifier, (size_t)(dot - identifier));
	t = pm_strdup(dot + 1);
	if (!d || !t) {
		pm_free(d);
		pm_free(t);
		return PAIMON_ENOMEM;
	}
	if ((rc = pm_catalog_validate_name("database", d)) || (rc = pm_catalog_validate_name("table", t))) {
		pm_free(d);
		pm_free(t);
		return rc;
	}
	if (strchr(t, '$')) {
		rc = pm_err(PAIMON_EUNSUPPORTED, "table '%s': system tables ('$') are not supported yet", identifier);
		pm_free(d);
		pm_free(t);
		return rc;
	}
	*db = d;
	*table = t;
	return 0;
}

/* -------------------------------------------------------------- options */

int paimon_options_new(paimon_options **out)
{
	paimon_options *o = pm_calloc(1, sizeof *o);
	if (!o)
		return PAIMON_ENOMEM;
	*out = o;
	return 0;
}

int paimon_options_set(paimon_options *o, const char *key, const char *value)
{
	if (!o || !key || !value)
		return pm_err(PAIMON_EINVAL, "option key and value must not be NULL");
	return pm_strmap_set(&o->map, key, value);
}

const char *paimon_options_get(const paimon_options *o, const char *key)
{
	return o && key ? pm_strmap_get(&o->map, key) : NULL;
}

size_t paimon_options_count(const paimon_options *o)
{
	return o ? o->map.len : 0;
}

const char *paimon_options_key(const paimon_options *o, size_t i)
{
	return o && i < o->map.len ? o->map.keys[i] : NULL;
}

const char *paimon_options_value(const paimon_options *o, size_t i)
{
	return o && i < o->map.len ? o->map.vals[i] : NULL;
}

void paimon_options_free(paimon_options *o)
{
	if (!o)
		return;
	pm_strmap_dispose(&o->map);
	pm_free(o);
}

void paimon_string_list_free(char **list, size_t count)
{
	size_t i;
	if (!list)
		return;
	for (i = 0; i < count; i++)
		pm_free(list[i]);
	pm_free(list);
}

/* Moves a strlist's storage into a (char **, count) pair for the API. */
static void strlist_release_to(pm_strlist *l, char ***names, size_t *count)
{
	*names = l->items;
	*count = l->len;
	l->items = NULL;
	l->len = l->cap = 0;
}

/* -------------------------------------------------------------- catalog */

static char *absolute_path(const char *p)
{
	char cwd[4096];
	size_t n;
	char *r;
	if (strncmp(p, "file://", 7) == 0)
		p += 7;
	else if (strncmp(p, "file:", 5) == 0)
		p += 5;
	if (p[0] == '/')
		r = pm_strdup(p);
	else {
		if (!getcwd(cwd, sizeof cwd)) {
			pm_err_os(PAIMON_EIO, 0, "cannot resolve warehouse '%s'", p);
			return NULL;
		}
		r = pm_path_join(cwd, p);
	}
	if (!r)
		return NULL;
	n = strlen(r);
	while (n > 1 && r[n - 1] == '/')
		r[--n] = '\0';
	return r;
}

int paimon_catalog_open(paimon_catalog **out, const paimon_options *opts)
{
	return pm_catalog_open(out, opts, NULL, NULL);
}

int pm_catalog_open(paimon_catalog **out, const paimon_options *opts, const paimon_fileio_methods *user_io,
		    void *user_ctx)
{
	const char *wh = opts ? paimon_options_get(opts, "warehouse") : NULL;
	const char *ms = opts ? paimon_options_get(opts, "metastore") : NULL;
	int uri = wh && strstr(wh, "://") && strncmp(wh, "file://", 7) != 0;
	paimon_catalog *c;
	int rc;
	if (!wh || !*wh)
		return pm_err(PAIMON_EINVAL, "catalog option 'warehouse' is required");
	if (ms && strcmp(ms, "filesystem") != 0)
		return pm_err(PAIMON_EUNSUPPORTED, "catalog option 'metastore' = '%s': only 'filesystem' is supported", ms);
	if (uri && !user_io)
		return pm_err(PAIMON_EUNSUPPORTED, "warehouse '%s': only local paths are supported so far", wh);
	c = pm_calloc(1, sizeof *c);
	if (!c)
		return PAIMON_ENOMEM;
	if ((rc = pm_catalog_set_fileio(c, user_io, user_ctx)) != 0 || (rc = pm_catalog_fileio_new(c, &c->io)) != 0)
		goto fail;
	/* A URI goes to the user's FileIO as written (less trailing slashes). */
	c->warehouse = uri ? pm_catalog_uri_warehouse(wh) : absolute_path(wh);
	if (!c->warehouse) {
		rc = pm_err_code() ? pm_err_code() : PAIMON_ENOMEM;
		goto fail;
	}
	if (pm_strmap_copy(&c->options, &opts->map)) {
		rc = PAIMON_ENOMEM;
		goto fail;
	}
	*out = c;
	return 0;
fail:
	paimon_catalog_free(c);
	return rc;
}

void paimon_catalog_free(paimon_catalog *c)
{
	if (!c)
		return;
	pm_fileio_close(c->io);
	pm_free(c->user_io);
	pm_free(c->warehouse);
	pm_strmap_dispose(&c->options);
	pm_free(c);
}

const char *paimon_catalog_warehouse(const paimon_catalog *c)
{
	return c ? c->warehouse : NULL;
}

static int require_warehouse(paimon_catalog *c)
{
	int ex, rc;
	if ((rc = pm_fileio_exists(c->io, c->warehouse, &ex)) != 0)
		return rc;
	if (!ex)
		return pm_err(PAIMON_ENOTFOUND, "warehouse '%s' does not exist", c->warehouse);
	return 0;
}

static char *db_path(paimon_catalog *c, const char *db)
{
	pm_buf b = PM_BUF_INIT;
	if (pm_buf_printf(&b, "%s/%s%s", c->warehouse, db, DB_SUFFIX))
		return NULL;
	return pm_buf_detach(&b);
}

static char *table_path(paimon_catalog *c, const char *db, const char *table)
{
	pm_buf b = PM_BUF_INIT;
	if (pm_buf_printf(&b, "%s/%s%s/%s", c->warehouse, db, DB_SUFFIX, table))
		return NULL;
	return pm_buf_detach(&b);
}

static int check_db_exists(paimon_catalog *c, const char *db, int *exists)
{
	char *p;
	int rc;
	pm_file_status st;
	if ((rc = require_warehouse(c)) != 0)
		return rc;
	if (!(p = db_path(c, db)))
		return PAIMON_ENOMEM;
	rc = pm_fileio_stat(c->io, p, &st);
	if (rc == PAIMON_ENOTFOUND) {
		*exists = 0;
		rc = 0;
	} else if (rc == 0) {
		*exists = st.is_dir;
	}
	pm_free(p);
	return rc;
}

static int need_db(paimon_catalog *c, const char *db)
{
	int ex, rc;
	if ((rc = check_db_exists(c, db, &ex)) != 0)
		return rc;
	if (!ex)
		return pm_err(PAIMON_ENOTFOUND, "database '%s' does not exist in warehouse '%s'", db, c->warehouse);
	return 0;
}

int paimon_catalog_database_exists(paimon_catalog *c, const char *name, int *exists)
{
	int rc;
	if ((rc = pm_catalog_validate_name("database", name)) != 0)
		return rc;
	return check_db_exists(c, name, exists);
}

int paimon_catalog_create_database(paimon_catalog *c, const char *name, int ignore_if_exists)
{
	int rc, ex;
	char *p;
	if ((rc = pm_catalog_validate_name("database", name)) != 0)
		return rc;
	if ((rc = pm_fileio_mkdirs(c->io, c->warehouse)) != 0)
		return rc;
	if ((rc = check_db_exists(c, name, &ex)) != 0)
		return rc;
	if (ex)
		return ignore_if_exists ? 0 : pm_err(PAIMON_EEXISTS, "database '%s' already exists", name);
	if (!(p = db_path(c, name)))
		return PAIMON_ENOMEM;
	rc = pm_fileio_mkdirs(c->io, p);
	pm_free(p);
	return rc;
}

/* Java's rule: a directory is a table if schema/ holds a schema-<n> file. */
static int is_table_dir(pm_fileio *io, const char *tpath, int *is_table)
{
	int64_t *ids = NULL;
	size_t n = 0;
	int rc = pm_schema_list_ids(io, tpath, &ids, &n);
	pm_free(ids);
	if (rc == PAIMON_ENOTFOUND)
		rc = 0, n = 0;
	*is_table = n > 0;
	return rc;
}

static int list_tables(paimon_catalog *c, const char *db, pm_strlist *out)
{
	pm_file_list l = {0};
	char *p;
	size_t i;
	int rc;
	if (!(p = db_path(c, db)))
		return PAIMON_ENOMEM;
	rc = pm_fileio_list(c->io, p, &l);
	for (i = 0; rc == 0 && i < l.len; i++) {
		char *tp;
		int is_table = 0;
		const char *n = l.items[i].name;
		if (!l.items[i].is_dir || n[0] == '.' || n[0] == '_')
			continue;
		if (!(tp = pm_path_join(p, n))) {
			rc = PAIMON_ENOMEM;
			break;
		}
		rc = is_table_dir(c->io, tp, &is_table);
		pm_free(tp);
		if (rc == 0 && is_table)
			rc = pm_strlist_push(out, n);
	}
	pm_file_list_dispose(&l);
	pm_free(p);
	return rc;
}

int paimon_catalog_drop_database(paimon_catalog *c, const char *name, int ignore_if_not_exists, int cascade)
{
	int rc, ex;
	char *p;
	pm_strlist tables = {0};
	if ((rc = pm_catalog_validate_name("database", name)) != 0)
		return rc;
	if ((rc = check_db_exists(c, name, &ex)) != 0) {
		if (rc == PAIMON_ENOTFOUND && ignore_if_not_exists)
			return 0;
		return rc;
	}
	if (!ex)
		return ignore_if_not_exists ? 0 : pm_err(PAIMON_ENOTFOUND, "database '%s' does not exist", name);
	if ((rc = list_tables(c, name, &tables)) != 0)
		return rc;
	if (tables.len > 0 && !cascade) {
		rc = pm_err(PAIMON_EINVAL, "database '%s' is not empty: it holds %zu table(s) (first: '%s'); drop with cascade",
			    name, tables.len, tables.items[0]);
		pm_strlist_dispose(&tables);
		return rc;
	}
	pm_strlist_dispose(&tables);
	if (!(p = db_path(c, name)))
		return PAIMON_ENOMEM;
	rc = pm_fileio_remove_all(c->io, p);
	pm_free(p);
	return rc;
}

int paimon_catalog_list_databases(paimon_catalog *c, char ***names, size_t *count)
{
	pm_file_list l = {0};
	pm_strlist out = {0};
	size_t i, sl = strlen(DB_SUFFIX);
	int rc;
	if ((rc = require_warehouse(c)) != 0)
		return rc;
	if ((rc = pm_fileio_list(c->io, c->warehouse, &l)) != 0)
		return rc;
	for (i = 0; i < l.len; i++) {
		const char *n = l.items[i].name;
		size_t len = strlen(n);
		if (!l.items[i].is_dir || n[0] == '.' || len <= sl || strcmp(n + len - sl, DB_SUFFIX) != 0)
			continue;
		if ((rc = pm_strlist_push_n(&out, n, len - sl)) != 0)
			break;
	}
	pm_file_list_dispose(&l);
	if (rc) {
		pm_strlist_dispose(&out);
		return rc;
	}
	pm_strlist_sort(&out);
	strlist_release_to(&out, names, count);
	return 0;
}

int paimon_catalog_list_tables(paimon_catalog *c, const char *database, char ***names, size_t *count)
{
	pm_strlist out = {0};
	int rc;
	if ((rc = pm_catalog_validate_name("database", database)) != 0 || (rc = need_db(c, database)) != 0)
		return rc;
	if ((rc = list_tables(c, database, &out)) != 0) {
		pm_strlist_dispose(&out);
		return rc;
	}
	pm_strlist_sort(&out);
	strlist_release_to(&out, names, count);
	return 0;
}

/* Resolves an identifier to parts + table path; checks the database exists. */
static int resolve(paimon_catalog *c, const char *identifier, char **db, char **name, char **path)
{
	int rc;
	*db = *name = *path = NULL;
	if ((rc = pm_catalog_parse_identifier(identifier, db, name)) != 0)
		return rc;
	if ((rc = need_db(c, *db)) != 0)
		goto fail;
	if (!(*path = table_path(c, *db, *name))) {
		rc = PAIMON_ENOMEM;
		goto fail;
	}
	return 0;
fail:
	pm_free(*db);
	pm_free(*name);
	*db = *name = NULL;
	return rc;
}

static int table_exists(paimon_catalog *c, const char *path, int *exists)
{
	return is_table_dir(c->io, path, exists);
}

int paimon_catalog_create_table(paimon_catalog *c, const char *identifier, const paimon_schema_spec *spec, int ignore_if_exists)
{
	char *db, *name, *path, *sdir = NULL;
	pm_table_schema *schema = NULL;
	int rc, ex;
	if (!spec)
		return pm_err(PAIMON_EINVAL, "create table '%s': schema is NULL", identifier ? identifier : "");
	if ((rc = resolve(c, identifier, &db, &name, &path)) != 0)
		return rc;
	if ((rc = table_exists(c, path, &ex)) != 0)
		goto out;
	if (ex) {
		rc = ignore_if_exists ? 0 : pm_err(PAIMON_EEXISTS, "table '%s' already exists", identifier);
		goto out;
	}
	if ((rc = pm_schema_from_spec(&spec->spec, &schema)) != 0) {
		pm_err_wrap("create table '%s'", identifier);
		goto out;
	}
	if (!(sdir = pm_path_join(path, "schema"))) {
		rc = PAIMON_ENOMEM;
		goto out;
	}
	if ((rc = pm_fileio_mkdirs(c->io, sdir)) != 0)
		goto out;
	rc = pm_schema_commit(c->io, path, schema);
	if (rc == PAIMON_EEXISTS)
		rc = ignore_if_exists ? 0 : pm_err(PAIMON_EEXISTS, "table '%s' already exists (created concurrently)", identifier);
out:
	pm_schema_free(schema);
	pm_free(sdir);
	pm_free(db);
	pm_free(name);
	pm_free(path);
	return rc;
}

static int need_table(paimon_catalog *c, const char *identifier, const char *path)
{
	int ex, rc;
	if ((rc = table_exists(c, path, &ex)) != 0)
		return rc;
	if (!ex)
		return pm_err(PAIMON_ENOTFOUND, "table '%s' does not exist", identifier);
	return 0;
}

int paimon_catalog_drop_table(paimon_catalog *c, const char *identifier, int ignore_if_not_exists)
{
	char *db, *name, *path;
	int rc = resolve(c, identifier, &db, &name, &path);
	if (rc)
		return (rc == PAIMON_ENOTFOUND && ignore_if_not_exists) ? 0 : rc;
	rc = need_table(c, identifier, path);
	if (rc == PAIMON_ENOTFOUND && ignore_if_not_exists)
		rc = 0;
	else if (rc == 0)
		rc = pm_fileio_remove_all(c->io, path);
	pm_free(db);
	pm_free(name);
	pm_free(path);
	return rc;
}

int paimon_catalog_rename_table(paimon_catalog *c, const char *from, const char *to)
{
	char *db1 = NULL, *n1 = NULL, *p1 = NULL, *db2 = NULL, *n2 = NULL, *p2 = NULL;
	int rc, ex;
	if ((rc = resolve(c, from, &db1, &n1, &p1)) != 0)
		return rc;
	if ((rc = resolve(c, to, &db2, &n2, &p2)) != 0)
		goto out;
	if ((rc = need_table(c, from, p1)) != 0)
		goto out;
	if ((rc = pm_fileio_exists(c->io, p2, &ex)) != 0)
		goto out;
	if (ex) {
		rc = pm_err(PAIMON_EEXISTS, "cannot rename '%s' to '%s': table '%s' already exists", from, to, to);
		goto out;
	}
	rc = pm_fileio_rename_new(c->io, p1, p2);
out:
	pm_free(db1); pm_free(n1); pm_free(p1);
	pm_free(db2); pm_free(n2); pm_free(p2);
	return rc;
}

/* ---------------------------------------------------------------- table */

int paimon_catalog_get_table(paimon_catalog *c, const char *identifier, paimon_table **out)
{
	paimon_table *t;
	pm_table_schema *s = NULL;
	char *base = NULL, *branch = NULL;
	const char *d, *rest;
	int rc;
	t = pm_calloc(1, sizeof *t);
	if (!t)
		return PAIMON_ENOMEM;
	/* "<db>.<table>[$branch_<name>][$<system table>]" (Java's identifier) */
	d = identifier ? strchr(identifier, '$') : NULL;
	rest = d ? d + 1 : NULL;
	if (d && !(base = pm_strndup(identifier, (size_t)(d - identifier)))) {
		rc = PAIMON_ENOMEM;
		goto fail;
	}
	if (rest && !strncmp(rest, "branch_", 7)) {
		const char *e = strchr(rest, '$');
		size_t n = e ? (size_t)(e - rest - 7) : strlen(rest + 7);
		if (!(branch = pm_strndup(rest + 7, n))) {
			rc = PAIMON_ENOMEM;
			goto fail;
		}
		if (!*branch) {
			rc = pm_err(PAIMON_EINVAL, "table '%s': empty branch name", identifier);
			goto fail;
		}
		rest = e ? e + 1 : NULL;
	}
	if (rest && !strcmp(rest, "row_tracking")) {
		/* the system table <table>$row_tracking (Java RowTrackingTable) */
		t->row_tracking_view = 1;
	} else if (rest && !(t->sys_kind = pm_api_system_kind(rest))) {
		/* a metadata system table <table>$snapshots, $files, ... */
		rc = pm_err(PAIMON_ENOTFOUND, "table '%s': unknown system table '$%s' (known: %s, and "
			    "branch_<name>)", identifier, rest, pm_api_system_names());
		goto fail;
	}
	rc = resolve(c, base ? base : identifier, &t->database, &t->name, &t->path);
	if (!rc)
		rc = need_table(c, base ? base : identifier, t->path);
	if (rc)
		goto fail;
	if (!(t->identifier = pm_strdup(identifier))) {
		rc = PAIMON_ENOMEM;
		goto fail;
	}
	if ((rc = pm_catalog_fileio_new(c, &t->io)) != 0)
		goto fail;
	if (branch && strcmp(branch, "main")) {
		/* Java's layout: the branch's metadata under <table>/branch/branch-<name> */
		char sub[1024];
		char *bdir;
		int ex = 0;
		snprintf(sub, sizeof sub, "branch/branch-%s", branch);
		if (!(bdir = pm_path_join(t->path, sub))) {
			rc = PAIMON_ENOMEM;
			goto fail;
		}
		rc = pm_fileio_exists(t->io, bdir, &ex);
		pm_free(bdir);
		if (!rc && !ex)
			rc = pm_err(PAIMON_ENOTFOUND, "table '%s': branch '%s' of '%s.%s' does not exist", identifier,
				    branch, t->database, t->name);
		if (rc)
			goto fail;
		if ((rc = pm_fileio_branch_new(t->io, t->path, branch, &t->io))) {
			t->io = NULL;
			goto fail;
		}
		t->branch = branch;
		branch = NULL;
	}
	if ((rc = pm_schema_load_latest(t->io, t->path, &s)) != 0) {
		pm_err_wrap("table '%s'", identifier);
		goto fail;
	}
	if (t->row_tracking_view) {
		const char *v = pm_strmap_get(&s->options, "row-tracking.enabled");
		if (!v || strcasecmp(v, "true")) {
			rc = pm_err(PAIMON_EINVAL, "table '%s': '%s.%s' has no row tracking ('row-tracking.enabled' is "
				    "not 'true')", identifier, t->database, t->name);
			pm_schema_free(s);
			goto fail;
		}
	}
	if (t->sys_kind) {
		/* the system table's own columns; the data table exists (checked) */
		pm_schema_free(s);
		s = NULL;
		if ((rc = pm_api_system_schema(t->sys_kind, &s)))
			goto fail;
	}
	if ((rc = pm_schema_handle_new(s, &t->schema)) != 0) {
		pm_schema_free(s);
		goto fail;
	}
	*out = t;
	pm_free(base);
	pm_free(branch);
	return 0;
fail:
	pm_free(base);
	pm_free(branch);
	paimon_table_free(t);
	return rc;
}

void paimon_table_free(paimon_table *t)
{
	if (!t)
		return;
	pm_free(t->branch);
	pm_fileio_close(t->io);
	pm_free(t->database);
	pm_free(t->name);
	pm_free(t->identifier);
	pm_free(t->path);
	paimon_schema_free(t->schema);
	pm_free(t);
}

int paimon_catalog_alter_table(paimon_catalog *c, const char *identifier, paimon_schema_change *const *changes,
			       size_t count, int ignore_if_not_exists)
{
	char *db, *name, *path;
	pm_schema_change *list = NULL;
	size_t i;
	int rc, attempt;
	rc = resolve(c, identifier, &db, &name, &path);
	if (rc)
		return (rc == PAIMON_ENOTFOUND && ignore_if_not_exists) ? 0 : rc;
	if ((rc = need_table(c, identifier, path)) != 0) {
		if (rc == PAIMON_ENOTFOUND && ignore_if_not_exists)
			rc = 0;
		goto out;
	}
	if (count > 0) {
		/* Shallow copies: pm_schema_apply only reads the changes. */
		list = pm_calloc(count, sizeof *list);
		if (!list) {
			rc = PAIMON_ENOMEM;
			goto out;
		}
		for (i = 0; i < count; i++) {
			if (!changes[i]) {
				rc = pm_err(PAIMON_EINVAL, "alter table '%s': change %zu is NULL", identifier, i);
				goto out;
			}
			list[i] = changes[i]->change;
		}
	}
	for (attempt = 0; attempt < ALTER_RETRIES; attempt++) {
		pm_table_schema *old = NULL, *next = NULL;
		int64_t latest_snapshot;
		int has_snapshot = 0;
		if ((rc = pm_schema_load_latest(c->io, path, &old)) != 0)
			break;
		if ((rc = pm_snapshot_latest_id(c->io, path, &latest_snapshot, &has_snapshot)) != 0) {
			pm_schema_free(old);
			break;
		}
		rc = pm_schema_apply(old, list, count, has_snapshot, &next);
		pm_schema_free(old);
		if (rc) {
			pm_err_wrap("alter table '%s'", identifier);
			break;
		}
		rc = pm_schema_commit(c->io, path, next);
		pm_schema_free(next);
		if (rc != PAIMON_EEXISTS)
			break;
		/* Lost the race for schema-(n+1): re-read and re-apply. */
	}
	if (rc == PAIMON_EEXISTS)
		rc = pm_err(PAIMON_ECONFLICT, "alter table '%s': gave up after %d concurrent schema changes", identifier, ALTER_RETRIES);
out:
	pm_free(list);
	pm_free(db);
	pm_free(name);
	pm_free(path);
	return rc;
}
