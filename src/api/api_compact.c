/*
 * api/api_compact.c - paimon_table_compact: the public face of
 * maint/compact.h, with the maintenance a commit runs afterwards.
 */
#include <stdint.h>
#include <string.h>

#include "api/api_expire.h"
#include "api/api_gindex.h"
#include "api/handles.h"
#include "core/error.h"
#include "maint/compact.h"

static int selected(void *ctx, const uint8_t *p, size_t n)
{
	pm_bytes b;
	b.p = (uint8_t *)p;
	b.n = n;
	return pm_api_part_sel_match(ctx, &b);
}

static int compact(paimon_table *t, const paimon_predicate *partition_filter, const paimon_options *opts,
		   int dry_run, paimon_progress_fn progress, void *progress_ctx, paimon_compact_result *out,
		   pm_compact_result *plan)
{
	pm_compact_opts o;
	pm_compact_result r;
	pm_strmap wopts;
	part_sel ps;
	const char *v;
	size_t i;
	int rc;
	if (out) {
		memset(out, 0, sizeof *out);
		out->snapshot_id = -1;
		out->base_snapshot = -1;
	}
	if (!t)
		return pm_err(PAIMON_EINVAL, "compact: no table");
	if ((rc = pm_api_refuse_system(t, "compact")))
		return rc;
	memset(&o, 0, sizeof o);
	memset(&wopts, 0, sizeof wopts);
	o.threads = 1;
	for (i = 0; opts && i < opts->map.len; i++) {
		if (!strcmp(opts->map.keys[i], "compaction.threads")) {
			long long x;
			v = opts->map.vals[i];
			if (pm_parse_i64(v, &x) || x < 1 || x > 64)
				return pm_err(PAIMON_EINVAL, "compact: option 'compaction.threads': expected 1..64, "
					      "got '%s'", v);
			o.threads = (int)x;
			continue;
		}
		if ((rc = pm_strmap_set(&wopts, opts->map.keys[i], opts->map.vals[i]))) {
			pm_strmap_dispose(&wopts);
			return rc;
		}
	}
	if ((rc = pm_api_part_sel_init(&ps, t, partition_filter, "compact"))) {
		pm_strmap_dispose(&wopts);
		return rc;
	}
	o.options = &wopts;
	o.dry_run = dry_run;
	o.want_plan = plan != NULL;
	o.progress = progress;
	o.progress_ctx = progress_ctx;
	if (partition_filter) {
		o.partition_selected = selected;
		o.partition_ctx = &ps;
	}
	rc = pm_table_compact(t->io, t->path, t->schema->schema, &o, &r);
	if (rc) {
		pm_err_wrap("compact '%s'", t->identifier);
	} else {
		if (out) {
			out->snapshot_id = r.snapshot_id;
			out->base_snapshot = r.base_snapshot;
			out->tasks = r.tasks;
			out->files_before = r.files_before;
			out->files_after = r.files_after;
			out->bytes_before = r.bytes_before;
			out->bytes_after = r.bytes_after;
			out->rows = r.rows;
		}
		/* as after every commit (Java TableCommitImpl.maintain); a failure
		 * there does not undo the compaction */
		if (r.snapshot_id >= 0) {
			pm_table_schema *ms = NULL;
			if (!pm_schema_copy_with(t->schema->schema, &wopts, &ms))
				pm_api_maintain(t->io, t->path, ms, INT64_MAX);
			pm_schema_free(ms);
		}
	}
	if (!rc && plan)
		*plan = r;
	else if (!rc)
		pm_compact_result_dispose(&r);
	pm_api_part_sel_dispose(&ps);
	pm_strmap_dispose(&wopts);
	return rc;
}

int paimon_table_compact(paimon_table *t, const paimon_predicate *partition_filter, const paimon_options *opts,
			 int dry_run, paimon_progress_fn progress, void *progress_ctx, paimon_compact_result *out)
{
	return compact(t, partition_filter, opts, dry_run, progress, progress_ctx, out, NULL);
}

int paimon_table_compact_plan(paimon_table *t, const paimon_predicate *partition_filter, const paimon_options *opts,
			      char ***files, int64_t **tasks, size_t *n)
{
	pm_compact_result r;
	int rc;
	*files = NULL;
	*tasks = NULL;
	*n = 0;
	memset(&r, 0, sizeof r);
	if ((rc = compact(t, partition_filter, opts, 1, NULL, NULL, NULL, &r)))
		return rc;
	if (r.plan_files.len) {
		*n = r.plan_files.len;
		*files = r.plan_files.items;
		*tasks = r.plan_tasks;
		r.plan_files.items = NULL;
		r.plan_files.len = r.plan_files.cap = 0;
		r.plan_tasks = NULL;
	}
	pm_compact_result_dispose(&r);
	return 0;
}
