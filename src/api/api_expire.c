/*
 * api/api_expire.c - snapshot expiration (maint/expire) in the public API,
 * and the maintenance a commit runs after it publishes a snapshot (Java
 * TableCommitImpl.maintain).
 */
#include "paimonc/table.h"
#include "api/handles.h"
#include "api/api_expire.h"
#include "core/error.h"
#include "core/mem.h"
#include "maint/expire.h"
#include "maint/partition_expire.h"
#include "maint/rollback.h"
#include "meta/snapshot.h"

#include <string.h>
#include <time.h>

static int64_t now_millis(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Java LocalDateTime.now() as wall-clock millis. */
static int64_t local_now_millis(void)
{
	int64_t ms = now_millis();
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	if (!localtime_r(&t, &tm))
		return ms;
	return ms + (int64_t)tm.tm_gmtoff * 1000;
}

int paimon_table_expire_partitions(paimon_table *t, const paimon_options *opts, int dry_run, char ***partitions,
				   size_t *count)
{
	pm_partition_expire_config cfg;
	pm_strmap merged;
	pm_strlist out = {0};
	size_t i;
	int rc;
	if (partitions)
		*partitions = NULL;
	if (count)
		*count = 0;
	if (!t)
		return pm_err(PAIMON_EINVAL, "expire partitions: no table");
	if ((rc = pm_api_refuse_system(t, "expire partitions")))
		return rc;
	memset(&merged, 0, sizeof merged);
	if ((rc = pm_strmap_copy(&merged, &t->schema->schema->options)))
		return rc;
	for (i = 0; opts && i < opts->map.len && !rc; i++)
		rc = pm_strmap_set(&merged, opts->map.keys[i], opts->map.vals[i]);
	if (!rc && !(rc = pm_partition_expire_config_from_options(&merged, &cfg)) && !cfg.enabled)
		rc = pm_err(PAIMON_EINVAL, "expire partitions of '%s': no expiration time (option "
			    "'partition.expiration-time')", t->identifier);
	if (!rc)
		rc = pm_table_expire_partitions(t->io, t->path, t->schema->schema, opts ? &opts->map : NULL, &cfg,
						local_now_millis(), dry_run, &out, NULL);
	pm_strmap_dispose(&merged);
	if (rc) {
		pm_strlist_dispose(&out);
		return rc;
	}
	if (count)
		*count = out.len;
	if (partitions && out.len) {
		*partitions = out.items;
		out.items = NULL;
		out.len = out.cap = 0;
	}
	pm_strlist_dispose(&out);
	return 0;
}

int pm_api_maintain(pm_fileio *io, const char *table_path, const pm_table_schema *s, int64_t identifier)
{
	pm_partition_expire_config pcfg;
	pm_expire_config cfg;
	pm_expire_result r;
	const char *v;
	int write_only = 0, rc;
	int64_t now = now_millis(), ttl;
	if ((v = pm_strmap_get(&s->options, "write-only")) && pm_parse_bool(v, &write_only))
		return pm_err(PAIMON_EINVAL, "option 'write-only': invalid value '%s'", v);
	if (write_only)
		return 0;
	/* a branch shares data files with main and other branches: its commits
	 * do not expire anything (what expiration on main keeps for branches
	 * is in maint/expire.h) */
	if (pm_fileio_is_branch(io))
		return 0;
	/* partitions (Java: after tags, before consumers and snapshots) */
	if ((rc = pm_partition_expire_config_from_options(&s->options, &pcfg)))
		return rc;
	if (pcfg.enabled && (pcfg.check_interval_ms == 0 || (pcfg.end_input_check && identifier == INT64_MAX)) &&
	    (rc = pm_table_expire_partitions(io, table_path, s, NULL, &pcfg, local_now_millis(), 0, NULL, NULL)))
		return rc;
	/* consumers first, so that an expired consumer no longer holds snapshots */
	if ((v = pm_strmap_get(&s->options, "consumer.expiration-time"))) {
		if ((rc = pm_parse_duration_ms("consumer.expiration-time", v, &ttl)) ||
		    (rc = pm_consumer_expire(io, table_path, now - ttl)))
			return rc;
	}
	if ((rc = pm_expire_config_from_options(&s->options, &cfg)))
		return rc;
	memset(&r, 0, sizeof r);
	rc = pm_table_expire_snapshots(io, table_path, table_path, s, &cfg, now, 0, &r);
	pm_expire_result_dispose(&r);
	return rc;
}

int paimon_table_expire_snapshots(paimon_table *t, const paimon_options *opts, int dry_run, int64_t *expired,
				  char ***paths, size_t *count, uint64_t *bytes)
{
	pm_expire_config cfg;
	pm_expire_result r;
	pm_strmap merged;
	const pm_table_schema *s;
	size_t i;
	int rc;
	if (expired)
		*expired = 0;
	if (paths)
		*paths = NULL;
	if (count)
		*count = 0;
	if (bytes)
		*bytes = 0;
	if (!t)
		return pm_err(PAIMON_EINVAL, "expire snapshots: no table");
	if ((rc = pm_api_refuse_system(t, "expire snapshots")))
		return rc;
	if (t->branch)
		return pm_err(PAIMON_EUNSUPPORTED, "expire snapshots: '%s' is a branch; expiring a branch could delete "
			      "data files the main branch or other branches share, so it is not supported yet",
			      t->identifier);
	s = t->schema->schema;
	memset(&merged, 0, sizeof merged);
	if ((rc = pm_strmap_copy(&merged, &s->options)))
		return rc;
	for (i = 0; opts && i < opts->map.len && !rc; i++)
		rc = pm_strmap_set(&merged, opts->map.keys[i], opts->map.vals[i]);
	if (!rc)
		rc = pm_expire_config_from_options(&merged, &cfg);
	pm_strmap_dispose(&merged);
	if (rc)
		return pm_err_wrap("cannot expire snapshots of '%s'", t->identifier);
	memset(&r, 0, sizeof r);
	if ((rc = pm_table_expire_snapshots(t->io, t->path, t->path, s, &cfg, now_millis(), dry_run, &r))) {
		pm_expire_result_dispose(&r);
		return rc;
	}
	if (expired)
		*expired = r.expired;
	if (bytes)
		*bytes = r.bytes;
	if (count)
		*count = r.deleted.len;
	if (paths && r.deleted.len) {
		*paths = r.deleted.items;
		r.deleted.items = NULL;
		r.deleted.len = r.deleted.cap = 0;
	}
	pm_expire_result_dispose(&r);
	return 0;
}

int paimon_table_rollback_to(paimon_table *t, int64_t snapshot_id, const char *tag, int dry_run, char ***paths,
			     size_t *count)
{
	pm_strlist l = {0};
	int rc;
	if (paths)
		*paths = NULL;
	if (count)
		*count = 0;
	if (!t)
		return pm_err(PAIMON_EINVAL, "rollback: no table");
	if ((rc = pm_api_refuse_system(t, "rollback")))
		return rc;
	if (tag && (rc = pm_tag_validate_name(tag)))
		return rc;
	if ((rc = pm_table_rollback(t->io, t->path, snapshot_id, tag, dry_run, &l))) {
		pm_strlist_dispose(&l);
		return rc;
	}
	if (count)
		*count = l.len;
	if (paths && l.len) {
		*paths = l.items;
		l.items = NULL;
		l.len = l.cap = 0;
	}
	pm_strlist_dispose(&l);
	return 0;
}
