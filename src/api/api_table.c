/*
 * api/api_table.c - public table accessors, snapshots and tags over
 * meta/schema and meta/snapshot.
 */
#include "api/handles.h"
#include "maint/expire.h"
#include "core/error.h"
#include "core/mem.h"

#include <string.h>
#include <strings.h>

const char *paimon_table_identifier(const paimon_table *t) { return t->identifier; }
const char *paimon_table_path(const paimon_table *t) { return t->path; }
const paimon_schema *paimon_table_schema(const paimon_table *t) { return t->schema; }

int paimon_table_schema_ids(paimon_table *t, int64_t **ids, size_t *count)
{
	return pm_schema_list_ids(t->io, t->path, ids, count);
}

int paimon_table_load_schema(paimon_table *t, int64_t id, paimon_schema **out)
{
	pm_table_schema *s = NULL;
	int rc = pm_schema_load(t->io, t->path, id, &s);
	if (rc)
		return rc;
	if ((rc = pm_schema_handle_new(s, out)) != 0)
		pm_schema_free(s);
	return rc;
}

/* ------------------------------------------------------------ snapshots */

int pm_snapshot_handle_new(pm_snapshot *s, paimon_snapshot **out)
{
	paimon_snapshot *h = pm_calloc(1, sizeof *h);
	if (!h)
		return PAIMON_ENOMEM;
	h->snapshot = s;
	*out = h;
	return 0;
}

static int load_wrapped(paimon_table *t, int64_t id, paimon_snapshot **out)
{
	pm_snapshot *s = NULL;
	int rc = pm_snapshot_load(t->io, t->path, id, &s);
	if (rc)
		return rc;
	if ((rc = pm_snapshot_handle_new(s, out)) != 0)
		pm_snapshot_free(s);
	return rc;
}

int paimon_table_latest_snapshot(paimon_table *t, paimon_snapshot **out)
{
	int64_t id;
	int found = 0, rc;
	*out = NULL;
	if ((rc = pm_snapshot_latest_id(t->io, t->path, &id, &found)) != 0 || !found)
		return rc;
	return load_wrapped(t, id, out);
}

int paimon_table_earliest_snapshot(paimon_table *t, paimon_snapshot **out)
{
	int64_t id;
	int found = 0, rc;
	*out = NULL;
	if ((rc = pm_snapshot_earliest_id(t->io, t->path, &id, &found)) != 0 || !found)
		return rc;
	return load_wrapped(t, id, out);
}

int paimon_table_snapshot(paimon_table *t, int64_t id, paimon_snapshot **out)
{
	int64_t lo, hi;
	int f1 = 0, f2 = 0, rc;
	rc = load_wrapped(t, id, out);
	if (rc != PAIMON_ENOTFOUND)
		return rc;
	/* Name the valid range, as Java does. */
	if (pm_snapshot_earliest_id(t->io, t->path, &lo, &f1) == 0 &&
	    pm_snapshot_latest_id(t->io, t->path, &hi, &f2) == 0 && f1 && f2)
		return pm_err(PAIMON_ENOTFOUND, "table '%s': snapshot %lld does not exist (available: %lld..%lld)",
			      t->identifier, (long long)id, (long long)lo, (long long)hi);
	return pm_err(PAIMON_ENOTFOUND, "table '%s': snapshot %lld does not exist (the table has no snapshots)",
		      t->identifier, (long long)id);
}

int paimon_table_snapshot_ids(paimon_table *t, int64_t **ids, size_t *count)
{
	return pm_snapshot_list_ids(t->io, t->path, ids, count);
}

int64_t paimon_snapshot_id(const paimon_snapshot *s) { return s->snapshot->id; }
int64_t paimon_snapshot_schema_id(const paimon_snapshot *s) { return s->snapshot->schema_id; }
int64_t paimon_snapshot_time_millis(const paimon_snapshot *s) { return s->snapshot->time_millis; }
const char *paimon_snapshot_commit_kind(const paimon_snapshot *s) { return s->snapshot->commit_kind; }
const char *paimon_snapshot_commit_user(const paimon_snapshot *s) { return s->snapshot->commit_user; }
int64_t paimon_snapshot_commit_identifier(const paimon_snapshot *s) { return s->snapshot->commit_identifier; }
int64_t paimon_snapshot_total_record_count(const paimon_snapshot *s) { return s->snapshot->total_record_count; }
int64_t paimon_snapshot_delta_record_count(const paimon_snapshot *s) { return s->snapshot->delta_record_count; }
const char *paimon_snapshot_base_manifest_list(const paimon_snapshot *s) { return s->snapshot->base_manifest_list; }
const char *paimon_snapshot_delta_manifest_list(const paimon_snapshot *s) { return s->snapshot->delta_manifest_list; }

int paimon_snapshot_to_json(const paimon_snapshot *s, char **out)
{
	pm_buf b = PM_BUF_INIT;
	return pm_api_buf_out(pm_snapshot_to_json(s->snapshot, &b), &b, out);
}

void paimon_snapshot_free(paimon_snapshot *s)
{
	if (!s)
		return;
	pm_snapshot_free(s->snapshot);
	pm_free(s);
}

/* ----------------------------------------------------------------- tags */

int paimon_table_create_tag(paimon_table *t, const char *name, int64_t snapshot_id, int ignore_if_exists)
{
	pm_snapshot *s = NULL;
	int64_t id = snapshot_id;
	int found = 1, rc;
	if ((rc = pm_tag_validate_name(name)) != 0)
		return rc;
	if (id <= 0) {
		if ((rc = pm_snapshot_latest_id(t->io, t->path, &id, &found)) != 0)
			return rc;
		if (!found)
			return pm_err(PAIMON_ENOTFOUND, "cannot create tag '%s' on table '%s': the table has no snapshot",
				      name, t->identifier);
	}
	if ((rc = pm_snapshot_load(t->io, t->path, id, &s)) != 0) {
		pm_err_wrap("cannot create tag '%s' on table '%s'", name, t->identifier);
		return rc;
	}
	rc = pm_tag_create(t->io, t->path, name, s, ignore_if_exists);
	pm_snapshot_free(s);
	return rc;
}

int paimon_table_delete_tag(paimon_table *t, const char *name, int ignore_if_not_exists)
{
	pm_expire_result r;
	int rc = pm_tag_validate_name(name);
	if (rc)
		return rc;
	memset(&r, 0, sizeof r);
	rc = pm_table_delete_tag(t->io, t->path, t->path, t->schema->schema, name, ignore_if_not_exists, &r);
	pm_expire_result_dispose(&r);
	return rc;
}

int paimon_table_list_tags(paimon_table *t, char ***names, size_t *count)
{
	pm_strlist l = {0};
	int rc = pm_tag_list(t->io, t->path, &l);
	if (rc) {
		pm_strlist_dispose(&l);
		return rc;
	}
	*names = l.items;
	*count = l.len;
	return 0;
}

int paimon_table_tag_snapshot(paimon_table *t, const char *name, paimon_snapshot **out)
{
	pm_snapshot *s = NULL;
	int rc = pm_tag_validate_name(name);
	if (rc)
		return rc;
	if ((rc = pm_tag_load(t->io, t->path, name, &s)) != 0)
		return rc;
	if ((rc = pm_snapshot_handle_new(s, out)) != 0)
		pm_snapshot_free(s);
	return rc;
}

/* ------------------------------------------------ dynamic options */

int pm_api_check_dynamic_option(const paimon_table *t, const char *key, const char *value)
{
	const char *old;
	if (!key || !value || !pm_schema_option_is_immutable(key))
		return 0;
	old = pm_strmap_get(&t->schema->schema->options, key);
	if (old ? !strcmp(old, value) : !strcasecmp(value, "false"))
		return 0;
	return pm_err(PAIMON_EINVAL, "option '%s' of table '%s' cannot be changed ('%s' -> '%s'): it is immutable",
		      key, t->identifier, old ? old : "(unset)", value);
}

int pm_api_check_dynamic_options(const paimon_table *t, const pm_strmap *opts)
{
	size_t i;
	int rc;
	for (i = 0; opts && i < opts->len; i++)
		if ((rc = pm_api_check_dynamic_option(t, opts->keys[i], opts->vals[i])) != 0)
			return rc;
	return 0;
}

int paimon_table_check_dynamic_options(const paimon_table *t, const paimon_options *opts)
{
	if (!t)
		return pm_err(PAIMON_EINVAL, "paimon_table_check_dynamic_options: NULL table");
	return pm_api_check_dynamic_options(t, opts ? &opts->map : NULL);
}
