/*
 * meta/tag.c - tags: <table>/tag/tag-<name> holding a snapshot's JSON
 * (spec core-format §3.3, §8.2). Deleting a tag removes only the tag file.
 */
#include "meta/snapshot.h"
#include "meta/meta_internal.h"
#include "core/error.h"
#include "core/mem.h"

#include <ctype.h>
#include <string.h>

int pm_tag_validate_name(const char *name)
{
	const char *p;
	int blank = 1;
	if (!name)
		return pm_err(PAIMON_EINVAL, "Tag name shouldn't be blank.");
	for (p = name; *p; p++)
		if (!isspace((unsigned char)*p))
			blank = 0;
	if (blank)
		return pm_err(PAIMON_EINVAL, "Tag name shouldn't be blank.");
	if (strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return pm_err(PAIMON_EINVAL, "invalid tag name '%s': must not contain '/' or be '.' or '..'", name);
	return 0;
}

static char *tag_dir(const char *table_path)
{
	return pm_path_join(table_path, "tag");
}

static char *tag_path(const char *table_path, const char *name)
{
	char *dir = tag_dir(table_path), *p = NULL;
	size_t n = strlen(name);
	char *file = pm_malloc(n + 5);
	if (dir && file) {
		memcpy(file, "tag-", 4);
		memcpy(file + 4, name, n + 1);
		p = pm_path_join(dir, file);
	}
	pm_free(dir);
	pm_free(file);
	return p;
}

int pm_tag_exists(pm_fileio *io, const char *table_path, const char *name, int *exists)
{
	char *p;
	int rc;
	if ((rc = pm_tag_validate_name(name)))
		return rc;
	if (!(p = tag_path(table_path, name)))
		return PAIMON_ENOMEM;
	rc = pm_fileio_exists(io, p, exists);
	pm_free(p);
	return rc;
}

int pm_tag_create(pm_fileio *io, const char *table_path, const char *name, const pm_snapshot *s, int ignore_if_exists)
{
	pm_buf b = PM_BUF_INIT;
	char *dir = NULL, *path = NULL;
	int rc, ex = 0;
	if ((rc = pm_tag_exists(io, table_path, name, &ex)))
		return rc;
	if (ex)
		return ignore_if_exists ? 0 : pm_err(PAIMON_EEXISTS, "Tag '%s' already exists.", name);
	dir = tag_dir(table_path);
	path = tag_path(table_path, name);
	rc = PAIMON_ENOMEM;
	if (!dir || !path)
		goto done;
	if ((rc = pm_snapshot_to_json(s, &b)) || (rc = pm_fileio_mkdirs(io, dir)))
		goto done;
	/* Java overwrites; we publish atomically so a reader never sees half a tag. */
	rc = pm_fileio_write_new_atomic(io, path, b.data, b.len);
	if (rc == PAIMON_EEXISTS) {
		if (ignore_if_exists) {
			paimon_error_clear();
			rc = 0;
		} else {
			rc = pm_err(PAIMON_EEXISTS, "Tag '%s' already exists.", name);
		}
	}
done:
	pm_buf_dispose(&b);
	pm_free(dir);
	pm_free(path);
	return rc;
}

int pm_tag_delete(pm_fileio *io, const char *table_path, const char *name, int ignore_if_not_exists)
{
	char *path;
	int rc, ex = 0;
	if ((rc = pm_tag_exists(io, table_path, name, &ex)))
		return rc;
	if (!ex)
		return ignore_if_not_exists ? 0 : pm_err(PAIMON_ENOTFOUND, "Tag '%s' doesn't exist.", name);
	if (!(path = tag_path(table_path, name)))
		return PAIMON_ENOMEM;
	rc = pm_fileio_remove(io, path);
	pm_free(path);
	return rc;
}

int pm_tag_list(pm_fileio *io, const char *table_path, pm_strlist *names)
{
	pm_file_list l = {0};
	char *dir = tag_dir(table_path);
	size_t i;
	int rc;
	if (!dir)
		return PAIMON_ENOMEM;
	rc = pm_fileio_list_optional(io, dir, &l);
	pm_free(dir);
	if (rc)
		return rc;
	for (i = 0; i < l.len && rc == 0; i++) {
		const char *n = l.items[i].name;
		if (l.items[i].is_dir || strncmp(n, "tag-", 4) != 0 || n[4] == '\0')
			continue;
		rc = pm_strlist_push(names, n + 4);
	}
	pm_file_list_dispose(&l);
	if (rc == 0)
		pm_strlist_sort(names);
	return rc;
}

int pm_tag_load(pm_fileio *io, const char *table_path, const char *name, pm_snapshot **out)
{
	pm_buf b = PM_BUF_INIT;
	char *path;
	int rc;
	if ((rc = pm_tag_validate_name(name)))
		return rc;
	if (!(path = tag_path(table_path, name)))
		return PAIMON_ENOMEM;
	rc = pm_fileio_read_all(io, path, &b);
	if (rc == PAIMON_ENOTFOUND)
		rc = pm_err(PAIMON_ENOTFOUND, "Tag '%s' doesn't exist (%s).", name, path);
	if (rc == 0)
		rc = pm_snapshot_from_json(path, b.data ? b.data : "", b.len, out);
	pm_buf_dispose(&b);
	pm_free(path);
	return rc;
}
