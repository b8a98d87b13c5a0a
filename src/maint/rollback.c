/*
 * maint/rollback.c - rolling a table back to a snapshot or a tag, as Java
 * Paimon 1.4.2 does (AbstractFileStoreTable.rollbackTo, RollbackHelper).
 */
#include "maint/rollback.h"

#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "meta/snapshot.h"

static int note(pm_strlist *out, const char *path)
{
	return out ? pm_strlist_push(out, path) : 0;
}

/* Deletes path (reported in out) unless dry_run; a missing file is skipped. */
static int drop(pm_fileio *io, const char *path, int dry_run, pm_strlist *out)
{
	int ex = 0, rc = pm_fileio_exists(io, path, &ex);
	if (rc || !ex)
		return rc;
	if (!dry_run && (rc = pm_fileio_remove(io, path)))
		return rc;
	return note(out, path);
}

/* RollbackHelper.cleanLargerThan: the LATEST hint first, then the snapshots
 * above id (newest first), then the long-lived changelogs and the tags above
 * id. A crash part-way leaves a table whose latest snapshot is still one of
 * those; a rerun goes on from there. */
static int clean_larger_than(pm_fileio *io, const char *meta, int64_t id, int dry_run, pm_strlist *out)
{
	int64_t earliest = 0, latest = 0, i, to;
	int found = 0, rc;
	pm_strlist tags = {0};
	size_t k;
	if ((rc = pm_snapshot_earliest_id(io, meta, &earliest, &found)))
		return rc;
	if (!found)
		return pm_err(PAIMON_ENOTFOUND, "rollback: table '%s' has no snapshot", meta);
	if ((rc = pm_snapshot_latest_id(io, meta, &latest, &found)))
		return rc;
	if (!dry_run && (rc = pm_snapshot_write_hint(io, meta, "LATEST", id)))
		return rc;
	to = earliest > id + 1 ? earliest : id + 1;
	for (i = latest; i >= to && !rc; i--) {
		char *p = pm_snapshot_path(meta, i);
		if (!p)
			return PAIMON_ENOMEM;
		rc = drop(io, p, dry_run, out);
		pm_free(p);
	}
	/* long-lived changelogs above id (changelog/changelog-<n>) */
	if (!rc) {
		char *dir = pm_path_join(meta, "changelog");
		pm_file_list l = {0};
		int64_t max_left = -1;
		int any = 0;
		if (!dir)
			return PAIMON_ENOMEM;
		rc = pm_fileio_list(io, dir, &l);
		if (rc == PAIMON_ENOTFOUND) {
			paimon_error_clear();
			rc = 0;
		}
		for (k = 0; k < l.len && !rc; k++) {
			long long n;
			char *p;
			if (strncmp(l.items[k].name, "changelog-", 10) || pm_parse_i64(l.items[k].name + 10, &n))
				continue;
			any = 1;
			if (n <= id) {
				if (n > max_left)
					max_left = n;
				continue;
			}
			if (!(p = pm_path_join(dir, l.items[k].name))) {
				rc = PAIMON_ENOMEM;
				break;
			}
			rc = drop(io, p, dry_run, out);
			pm_free(p);
		}
		if (!rc && any && !dry_run) {
			char buf[32];
			char *hint = pm_path_join(dir, "LATEST");
			int n = snprintf(buf, sizeof buf, "%lld", (long long)max_left);
			if (!hint)
				rc = PAIMON_ENOMEM;
			else
				rc = pm_fileio_write_overwrite(io, hint, buf, (size_t)n);
			pm_free(hint);
		}
		pm_file_list_dispose(&l);
		pm_free(dir);
	}
	/* tags of later snapshots */
	if (!rc)
		rc = pm_tag_list(io, meta, &tags);
	for (k = 0; k < tags.len && !rc; k++) {
		pm_snapshot *s = NULL;
		rc = pm_tag_load(io, meta, tags.items[k], &s);
		if (rc == PAIMON_ENOTFOUND) {
			paimon_error_clear();
			rc = 0;
			continue;
		}
		if (!rc && s->id > id) {
			size_t n = strlen(meta) + strlen(tags.items[k]) + 16;
			char *p = pm_malloc(n);
			if (!p)
				rc = PAIMON_ENOMEM;
			else {
				snprintf(p, n, "%s/tag/tag-%s", meta, tags.items[k]);
				rc = drop(io, p, dry_run, out);
				pm_free(p);
			}
		}
		pm_snapshot_free(s);
	}
	pm_strlist_dispose(&tags);
	return rc;
}

static int rollback_to_tag(pm_fileio *io, const char *meta, const char *tag, int dry_run, pm_strlist *out)
{
	pm_snapshot *s = NULL;
	int rc, ex = 0;
	char *p = NULL;
	if ((rc = pm_tag_load(io, meta, tag, &s)))
		return rc;
	if ((rc = clean_larger_than(io, meta, s->id, dry_run, out)))
		goto out;
	/* createSnapshotFileIfNeeded: the tagged snapshot expired, it becomes
	 * the only snapshot (the tag file trimmed to a snapshot) */
	if (!(p = pm_snapshot_path(meta, s->id))) {
		rc = PAIMON_ENOMEM;
		goto out;
	}
	if ((rc = pm_fileio_exists(io, p, &ex)) || ex || dry_run)
		goto out;
	pm_free(s->tag_create_time_json);
	pm_free(s->tag_time_retained_json);
	s->tag_create_time_json = s->tag_time_retained_json = NULL;
	{
		pm_buf b = PM_BUF_INIT;
		if (!(rc = pm_snapshot_to_json(s, &b)))
			rc = pm_fileio_write_new_atomic(io, p, b.data, b.len);
		pm_buf_dispose(&b);
	}
	if (!rc)
		rc = pm_snapshot_write_hint(io, meta, "EARLIEST", s->id);
out:
	pm_free(p);
	pm_snapshot_free(s);
	return rc;
}

int pm_table_rollback(pm_fileio *io, const char *meta_path, int64_t snapshot_id, const char *tag, int dry_run,
		      pm_strlist *deleted)
{
	pm_strlist tags = {0};
	char *p;
	size_t k;
	int ex = 0, rc;
	if (tag)
		rc = rollback_to_tag(io, meta_path, tag, dry_run, deleted);
	else if (snapshot_id <= 0)
		rc = pm_err(PAIMON_EINVAL, "rollback: snapshot id %lld is not valid", (long long)snapshot_id);
	else {
		if (!(p = pm_snapshot_path(meta_path, snapshot_id)))
			return PAIMON_ENOMEM;
		rc = pm_fileio_exists(io, p, &ex);
		pm_free(p);
		if (!rc && ex)
			rc = clean_larger_than(io, meta_path, snapshot_id, dry_run, deleted);
		else if (!rc) {
			/* expired: a tag of that snapshot still has it */
			const char *hit = NULL;
			if ((rc = pm_tag_list(io, meta_path, &tags)))
				return rc;
			for (k = 0; k < tags.len && !rc && !hit; k++) {
				pm_snapshot *s = NULL;
				rc = pm_tag_load(io, meta_path, tags.items[k], &s);
				if (rc == PAIMON_ENOTFOUND) {
					paimon_error_clear();
					rc = 0;
				} else if (!rc && s->id == snapshot_id) {
					hit = tags.items[k];
				}
				pm_snapshot_free(s);
			}
			if (!rc && hit)
				rc = rollback_to_tag(io, meta_path, hit, dry_run, deleted);
			else if (!rc)
				rc = pm_err(PAIMON_ENOTFOUND, "Rollback snapshot '%lld' doesn't exist.",
					    (long long)snapshot_id);
		}
	}
	pm_strlist_dispose(&tags);
	if (rc)
		pm_err_wrap("cannot roll back '%s'", meta_path);
	return rc;
}
