/*
 * api/api_branch.c - table branches as Java Paimon 1.4.2's
 * FileSystemBranchManager keeps them: <table>/branch/branch-<name>/ holds
 * the branch's schema/, snapshot/ and tag/ files; manifests, index and
 * data files are shared with the table (the branch FileIO of
 * io/fileio.h maps the paths). Reads and writes of "db.t$branch_<name>"
 * go through paimon_catalog_get_table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/handles.h"
#include "core/error.h"
#include "core/mem.h"
#include "io/fileio.h"
#include "meta/schema.h"
#include "meta/snapshot.h"

static int branch_dir(const paimon_table *t, const char *name, char **out)
{
	char sub[1024];
	snprintf(sub, sizeof sub, "branch/branch-%s", name);
	return (*out = pm_path_join(t->path, sub)) ? 0 : PAIMON_ENOMEM;
}

/* Java BranchManager.validateBranch */
static int validate(const char *name)
{
	const char *p;
	int digits = 1;
	if (!name || !*name)
		return pm_err(PAIMON_EINVAL, "Branch name is blank.");
	for (p = name; *p; p++) {
		if (*p < '0' || *p > '9')
			digits = 0;
		if (*p == '/' || *p == '$' || *p == '\\')
			return pm_err(PAIMON_EINVAL, "Branch name '%s' must not contain '%c'.", name, *p);
	}
	if (!strcmp(name, "main"))
		return pm_err(PAIMON_EINVAL, "Branch name 'main' is the default branch and cannot be used.");
	if (digits)
		return pm_err(PAIMON_EINVAL, "Branch name cannot be pure numeric string but is '%s'.", name);
	{
		const char *q = name;
		while (*q == ' ' || *q == '\t')
			q++;
		if (!*q)
			return pm_err(PAIMON_EINVAL, "Branch name is blank.");
	}
	return 0;
}

static int on_main(const paimon_table *t, const char *what)
{
	if (!t)
		return pm_err(PAIMON_EINVAL, "%s: no table", what);
	if (t->branch || t->sys_kind || t->row_tracking_view)
		return pm_err(PAIMON_EINVAL, "%s: '%s' is not the main table (open '%s.%s')", what, t->identifier,
			      t->database, t->name);
	return 0;
}

static int exists_at(pm_fileio *io, const char *path, int *ex)
{
	return pm_fileio_exists(io, path, ex);
}

/* Copies file src to dst (overwriting). */
static int copy_file(pm_fileio *io, const char *src, const char *dst)
{
	pm_buf b = PM_BUF_INIT;
	const char *slash = strrchr(dst, '/');
	int rc = pm_fileio_read_all(io, src, &b);
	if (!rc && slash && slash != dst) {
		char *dir = pm_strndup(dst, (size_t)(slash - dst));
		rc = dir ? pm_fileio_mkdirs(io, dir) : PAIMON_ENOMEM;
		pm_free(dir);
	}
	if (!rc)
		rc = pm_fileio_write_overwrite(io, dst, b.data, b.len);
	pm_buf_dispose(&b);
	return rc;
}

/* schema-0 .. schema-<upto> that exist, into the branch. */
static int copy_schemas(const paimon_table *t, const char *bdir, int64_t upto)
{
	int64_t *ids = NULL;
	size_t n = 0, i;
	char *sd = pm_path_join(bdir, "schema");
	int rc;
	if (!sd)
		return PAIMON_ENOMEM;
	if ((rc = pm_fileio_mkdirs(t->io, sd)) || (rc = pm_schema_list_ids(t->io, t->path, &ids, &n)))
		goto out;
	for (i = 0; i < n && !rc; i++) {
		char name[64], *src, *dst;
		if (ids[i] > upto)
			continue;
		snprintf(name, sizeof name, "schema/schema-%lld", (long long)ids[i]);
		src = pm_path_join(t->path, name);
		dst = pm_path_join(bdir, name);
		rc = src && dst ? copy_file(t->io, src, dst) : PAIMON_ENOMEM;
		pm_free(src);
		pm_free(dst);
	}
out:
	pm_free(ids);
	pm_free(sd);
	return rc;
}

int paimon_table_create_branch(paimon_table *t, const char *name, const char *tag, int64_t snapshot_id,
			       int ignore_if_exists)
{
	char *bdir = NULL;
	pm_snapshot *s = NULL;
	int ex = 0, rc;
	if ((rc = on_main(t, "create branch")) || (rc = validate(name)))
		return rc;
	if (tag && snapshot_id > 0)
		return pm_err(PAIMON_EINVAL, "create branch '%s': give a tag or a snapshot, not both", name);
	if ((rc = branch_dir(t, name, &bdir)))
		return rc;
	if ((rc = exists_at(t->io, bdir, &ex)))
		goto out;
	if (ex) {
		rc = ignore_if_exists ? 0 : pm_err(PAIMON_EEXISTS, "Branch name '%s' already exists.", name);
		goto out;
	}
	if (tag) {
		/* Java createBranch(branch, tag): the tag, its snapshot, the schemas */
		char *tp = NULL, *sp = NULL, *bt = NULL, *bs = NULL, sub[600];
		if ((rc = pm_tag_load(t->io, t->path, tag, &s))) {
			if (rc == PAIMON_ENOTFOUND)
				rc = pm_err(PAIMON_ENOTFOUND, "create branch '%s': tag '%s' doesn't exist", name, tag);
			goto out;
		}
		snprintf(sub, sizeof sub, "tag/tag-%s", tag);
		tp = pm_path_join(t->path, sub);
		bt = pm_path_join(bdir, sub);
		snprintf(sub, sizeof sub, "snapshot/snapshot-%lld", (long long)s->id);
		sp = pm_path_join(t->path, sub);
		bs = pm_path_join(bdir, sub);
		if (!tp || !bt || !sp || !bs)
			rc = PAIMON_ENOMEM;
		if (!rc)
			rc = pm_fileio_mkdirs(t->io, bdir);
		if (!rc)
			rc = copy_file(t->io, tp, bt);
		if (!rc) {
			/* the tag's snapshot: its file when main still has it, else the
			 * tag trimmed to a snapshot (Tag.trimToSnapshot) */
			int sx = 0;
			if (!(rc = exists_at(t->io, sp, &sx)) && sx) {
				rc = copy_file(t->io, sp, bs);
			} else if (!rc) {
				pm_buf b = PM_BUF_INIT;
				pm_free(s->tag_create_time_json);
				pm_free(s->tag_time_retained_json);
				s->tag_create_time_json = s->tag_time_retained_json = NULL;
				char *sd = pm_path_join(bdir, "snapshot");
				rc = sd ? pm_fileio_mkdirs(t->io, sd) : PAIMON_ENOMEM;
				pm_free(sd);
				if (!rc && !(rc = pm_snapshot_to_json(s, &b)))
					rc = pm_fileio_write_overwrite(t->io, bs, b.data, b.len);
				pm_buf_dispose(&b);
			}
		}
		if (!rc)
			rc = copy_schemas(t, bdir, s->schema_id);
		pm_free(tp);
		pm_free(sp);
		pm_free(bt);
		pm_free(bs);
	} else if (snapshot_id > 0) {
		/* from a snapshot: that snapshot and the schemas it needs */
		char sub[64], *sp, *bs;
		if ((rc = pm_snapshot_load(t->io, t->path, snapshot_id, &s)))
			goto out;
		snprintf(sub, sizeof sub, "snapshot/snapshot-%lld", (long long)snapshot_id);
		sp = pm_path_join(t->path, sub);
		bs = pm_path_join(bdir, sub);
		rc = sp && bs ? pm_fileio_mkdirs(t->io, bdir) : PAIMON_ENOMEM;
		if (!rc)
			rc = copy_file(t->io, sp, bs);
		if (!rc)
			rc = copy_schemas(t, bdir, s->schema_id);
		pm_free(sp);
		pm_free(bs);
	} else {
		/* Java createBranch(branch): the schemas only, no snapshot */
		rc = pm_fileio_mkdirs(t->io, bdir);
		if (!rc)
			rc = copy_schemas(t, bdir, t->schema->schema->id);
	}
	if (rc) {
		pm_err_state e;
		pm_err_save(&e);
		pm_fileio_remove_all(t->io, bdir);
		pm_err_restore(&e);
		pm_err_wrap("create branch '%s' of '%s'", name, t->identifier);
	}
out:
	pm_snapshot_free(s);
	pm_free(bdir);
	return rc;
}

int paimon_table_drop_branch(paimon_table *t, const char *name, int ignore_if_not_exists)
{
	char *bdir = NULL;
	int ex = 0, rc;
	if ((rc = on_main(t, "drop branch")))
		return rc;
	if (!name || !*name)
		return pm_err(PAIMON_EINVAL, "Branch name is blank.");
	if ((rc = branch_dir(t, name, &bdir)))
		return rc;
	if (!(rc = exists_at(t->io, bdir, &ex))) {
		if (!ex)
			rc = ignore_if_not_exists ? 0 : pm_err(PAIMON_ENOTFOUND, "Branch name '%s' doesn't exist.", name);
		else
			rc = pm_fileio_remove_all(t->io, bdir);
	}
	pm_free(bdir);
	return rc;
}

int paimon_table_list_branches(paimon_table *t, char ***names, size_t *count)
{
	pm_strlist l = {0};
	int rc;
	*names = NULL;
	*count = 0;
	if ((rc = on_main(t, "list branches")))
		return rc;
	if ((rc = pm_list_branches(t->io, t->path, &l))) {
		pm_strlist_dispose(&l);
		return rc;
	}
	*names = l.items;
	*count = l.len;
	return 0;
}

int paimon_table_rename_branch(paimon_table *t, const char *from, const char *to)
{
	char *a = NULL, *b = NULL;
	int ex = 0, rc;
	if ((rc = on_main(t, "rename branch")) || (rc = validate(to)))
		return rc;
	if (!from || !strcmp(from, "main"))
		return pm_err(PAIMON_EINVAL, "Cannot rename the main branch.");
	if ((rc = branch_dir(t, from, &a)) || (rc = branch_dir(t, to, &b)))
		goto out;
	if ((rc = exists_at(t->io, a, &ex)))
		goto out;
	if (!ex) {
		rc = pm_err(PAIMON_ENOTFOUND, "Branch name '%s' doesn't exist.", from);
		goto out;
	}
	if ((rc = exists_at(t->io, b, &ex)))
		goto out;
	if (ex) {
		rc = pm_err(PAIMON_EEXISTS, "Branch name '%s' already exists.", to);
		goto out;
	}
	rc = pm_fileio_rename_new(t->io, a, b);
out:
	pm_free(a);
	pm_free(b);
	return rc;
}

/* Deletes <dir>/<prefix><id> for the entries of dir whose id passes keep == 0. */
typedef int (*id_pred)(void *ctx, pm_fileio *io, const char *path, const char *name);

static int delete_matching(pm_fileio *io, const char *dir, const char *prefix, id_pred fn, void *ctx)
{
	pm_file_list l = {0};
	size_t i, pl = strlen(prefix);
	int rc, ex = 0;
	if ((rc = pm_fileio_exists(io, dir, &ex)) || !ex)
		return rc;
	if ((rc = pm_fileio_list(io, dir, &l)))
		return rc;
	for (i = 0; i < l.len && !rc; i++) {
		char *p;
		int del;
		if (l.items[i].is_dir || strncmp(l.items[i].name, prefix, pl) || !l.items[i].name[pl])
			continue;
		if (!(p = pm_path_join(dir, l.items[i].name))) {
			rc = PAIMON_ENOMEM;
			break;
		}
		if ((del = fn(ctx, io, p, l.items[i].name + pl)) < 0)
			rc = del;
		else if (del)
			rc = pm_fileio_remove(io, p);
		pm_free(p);
	}
	pm_file_list_dispose(&l);
	return rc;
}

static int id_at_least(void *ctx, pm_fileio *io, const char *path, const char *rest)
{
	long long v;
	(void)io;
	(void)path;
	if (pm_parse_i64(rest, &v))
		return 0;
	return v >= *(const int64_t *)ctx;
}

static int tag_at_least(void *ctx, pm_fileio *io, const char *path, const char *rest)
{
	pm_buf b = PM_BUF_INIT;
	pm_snapshot *s = NULL;
	int r;
	(void)rest;
	if ((r = pm_fileio_read_all(io, path, &b)))
		return r;
	r = pm_snapshot_from_json(path, b.data, b.len, &s);
	pm_buf_dispose(&b);
	if (r)
		return r;
	r = s->id >= *(const int64_t *)ctx;
	pm_snapshot_free(s);
	return r;
}

/* Copies every file of src_dir into dst_dir (overwriting). */
static int copy_dir(pm_fileio *io, const char *src_dir, const char *dst_dir)
{
	pm_file_list l = {0};
	size_t i;
	int rc, ex = 0;
	if ((rc = pm_fileio_exists(io, src_dir, &ex)) || !ex)
		return rc;
	if ((rc = pm_fileio_mkdirs(io, dst_dir)) || (rc = pm_fileio_list(io, src_dir, &l)))
		return rc;
	for (i = 0; i < l.len && !rc; i++) {
		char *a, *b;
		if (l.items[i].is_dir || l.items[i].name[0] == '.')
			continue;
		a = pm_path_join(src_dir, l.items[i].name);
		b = pm_path_join(dst_dir, l.items[i].name);
		rc = a && b ? copy_file(io, a, b) : PAIMON_ENOMEM;
		pm_free(a);
		pm_free(b);
	}
	pm_file_list_dispose(&l);
	return rc;
}

int paimon_table_fast_forward(paimon_table *t, const char *name)
{
	char *bdir = NULL, *d = NULL, *e = NULL, *hint = NULL;
	pm_snapshot *first = NULL;
	int64_t earliest = 0, schema_id;
	int ex = 0, found = 0, rc;
	static const char *const dirs[] = {"snapshot", "schema", "tag"};
	size_t i;
	if ((rc = on_main(t, "fast forward")))
		return rc;
	if (!name || !*name)
		return pm_err(PAIMON_EINVAL, "Branch name is blank.");
	if (!strcmp(name, "main"))
		return pm_err(PAIMON_EINVAL, "Branch name 'main' do not use in fast-forward.");
	if ((rc = branch_dir(t, name, &bdir)))
		return rc;
	if ((rc = exists_at(t->io, bdir, &ex)))
		goto out;
	if (!ex) {
		rc = pm_err(PAIMON_ENOTFOUND, "Branch name '%s' doesn't exist.", name);
		goto out;
	}
	if ((rc = pm_snapshot_earliest_id(t->io, bdir, &earliest, &found)))
		goto out;
	if (!found) {
		rc = pm_err(PAIMON_EINVAL, "Cannot fast forward branch %s, because it does not have snapshot.", name);
		goto out;
	}
	if ((rc = pm_snapshot_load(t->io, bdir, earliest, &first)))
		goto out;
	schema_id = first->schema_id;
	/* Java FileSystemBranchManager.fastForward: drop main's snapshots,
	 * schemas and tags from the branch point on, the LATEST hint, then
	 * copy the branch's snapshot, schema and tag files over */
	if (!(d = pm_path_join(t->path, "snapshot")) || !(hint = pm_path_join(d, "LATEST"))) {
		rc = PAIMON_ENOMEM;
		goto out;
	}
	if ((rc = delete_matching(t->io, d, "snapshot-", id_at_least, &earliest)))
		goto out;
	pm_free(d);
	if (!(d = pm_path_join(t->path, "schema"))) {
		rc = PAIMON_ENOMEM;
		goto out;
	}
	if ((rc = delete_matching(t->io, d, "schema-", id_at_least, &schema_id)))
		goto out;
	pm_free(d);
	if (!(d = pm_path_join(t->path, "tag"))) {
		rc = PAIMON_ENOMEM;
		goto out;
	}
	if ((rc = delete_matching(t->io, d, "tag-", tag_at_least, &earliest)) || (rc = pm_fileio_remove(t->io, hint)))
		goto out;
	pm_free(d);
	d = NULL;
	for (i = 0; i < sizeof dirs / sizeof dirs[0] && !rc; i++) {
		d = pm_path_join(bdir, dirs[i]);
		e = pm_path_join(t->path, dirs[i]);
		rc = d && e ? copy_dir(t->io, d, e) : PAIMON_ENOMEM;
		pm_free(d);
		pm_free(e);
		d = e = NULL;
	}
out:
	if (rc)
		pm_err_wrap("fast forward '%s' to branch '%s'", t->identifier, name ? name : "");
	pm_snapshot_free(first);
	pm_free(bdir);
	pm_free(d);
	pm_free(hint);
	return rc;
}
