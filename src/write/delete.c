/*
 * write/delete.c - deletes by row id with deletion vectors (see delete.h).
 */
#include "write/delete.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "meta/deletion_vector.h"
#include "write/update.h"

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* A touched group: its anchor and the new positions (into pos[]). */
typedef struct touched {
	const pm_rowid_group *g;
	const char *anchor;
	size_t first, n;                 /* positions pos[first, first + n) */
} touched;

static int cmp_bucket(const pm_manifest_entry *a, const pm_manifest_entry *b)
{
	if (a->partition.n != b->partition.n)
		return a->partition.n < b->partition.n ? -1 : 1;
	if (a->partition.n) {
		int c = memcmp(a->partition.p, b->partition.p, a->partition.n);
		if (c)
			return c;
	}
	return a->bucket < b->bucket ? -1 : a->bucket > b->bucket;
}

static int cmp_touched(const void *x, const void *y)
{
	const touched *a = x, *b = y;
	int c = cmp_bucket(&a->g->files.items[0], &b->g->files.items[0]);
	if (c)
		return c;
	return a->g->start < b->g->start ? -1 : a->g->start > b->g->start;
}

void pm_row_id_delete_dispose(pm_row_id_delete *d)
{
	if (!d)
		return;
	pm_index_manifest_entry_list_dispose(&d->index);
	pm_strlist_dispose(&d->written);
	memset(d, 0, sizeof *d);
	d->base_snapshot = -1;
}

/* Moves the entries of r into d. */
static int take_result(pm_row_id_delete *d, pm_dv_delete_result *r)
{
	size_t i;
	int rc = 0;
	for (i = 0; i < r->adds.len && !rc; i++)
		rc = pm_index_manifest_entry_list_append_copy(&d->index, &r->adds.items[i]);
	for (i = 0; i < r->deletes.len && !rc; i++)
		rc = pm_index_manifest_entry_list_append_copy(&d->index, &r->deletes.items[i]);
	return rc;
}

int pm_row_id_delete_run(pm_fileio *io, const char *table_path, const pm_table_schema *s, const pm_strmap *opts,
			 int64_t snapshot_id, const int64_t *row_ids, size_t n, pm_row_id_delete *out)
{
	pm_rowid_groups groups;
	pm_dv_snapshot dvs;
	pm_dv_namer namer;
	pm_dv_format fmt;
	int64_t *ids = NULL, *pos = NULL;
	touched *t = NULL;
	pm_dv_delete *dels = NULL;
	size_t m = 0, nt = 0, i, j;
	int rc = 0;

	memset(out, 0, sizeof *out);
	out->base_snapshot = -1;
	memset(&groups, 0, sizeof groups);
	memset(&dvs, 0, sizeof dvs);
	if (s->primary_keys.len)
		return pm_err(PAIMON_EINVAL, "delete by row id: table %s has a primary key", table_path);
	if (!pm_schema_option_true(s, opts, "data-evolution.enabled"))
		return pm_err(PAIMON_EINVAL, "delete requires 'data-evolution.enabled' = 'true' (table %s)", table_path);
	if (!pm_schema_option_true(s, opts, "row-tracking.enabled"))
		return pm_err(PAIMON_EINVAL, "delete requires 'row-tracking.enabled' = 'true' (table %s)", table_path);
	if (!pm_schema_option_true(s, opts, "deletion-vectors.enabled"))
		return pm_err(PAIMON_EINVAL, "delete requires 'deletion-vectors.enabled' = 'true' (table %s)",
			      table_path);
	if ((rc = pm_dv_format_from_options(opts, &fmt)) != 0 ||
	    (!(opts && pm_strmap_get(opts, "deletion-vectors.bitmap64")) &&
	     (rc = pm_dv_format_from_options(&s->options, &fmt)) != 0))
		return pm_err_wrap("table %s", table_path);
	if (n == 0)
		return 0;
	if (!row_ids)
		return pm_err(PAIMON_EINVAL, "delete: NULL row ids");
	/* sorted, deduplicated */
	if (!(ids = pm_malloc(n * sizeof *ids)) || !(pos = pm_malloc(n * sizeof *pos))) {
		rc = PAIMON_ENOMEM;
		goto out;
	}
	memcpy(ids, row_ids, n * sizeof *ids);
	qsort(ids, n, sizeof *ids, cmp_i64);
	for (i = 0; i < n; i++)
		if (!m || ids[i] != ids[m - 1])
			ids[m++] = ids[i];
	if ((rc = pm_rowid_groups_plan(io, table_path, s, snapshot_id, "delete", &groups)) != 0)
		goto out;
	out->base_snapshot = groups.snapshot_id;
	if (!(t = pm_calloc(m, sizeof *t))) {
		rc = PAIMON_ENOMEM;
		goto out;
	}
	/* route: ids ascend and groups ascend, so each group's ids are one run */
	for (i = 0; i < m; i++) {
		long gi = pm_rowid_groups_find(&groups, ids[i]);
		const pm_rowid_group *g;
		if (gi < 0) {
			rc = groups.snapshot_id < 0
				     ? pm_err(PAIMON_EINVAL, "delete: _ROW_ID %lld is not a row of table %s (it has no snapshot)",
					      (long long)ids[i], table_path)
				     : pm_err(PAIMON_EINVAL, "delete: _ROW_ID %lld is not a row of snapshot %lld of table %s",
					      (long long)ids[i], (long long)groups.snapshot_id, table_path);
			goto out;
		}
		g = &groups.items[gi];
		if (!nt || t[nt - 1].g != g) {
			const pm_data_file_meta **fm = pm_malloc(g->files.len * sizeof *fm);
			size_t ai, k;
			if (!fm) {
				rc = PAIMON_ENOMEM;
				goto out;
			}
			for (k = 0; k < g->files.len; k++)
				fm[k] = &g->files.items[k].file;
			rc = pm_dv_anchor_ptrs(fm, g->files.len, &ai);
			pm_free(fm);
			if (rc)
				goto out;
			t[nt].g = g;
			t[nt].anchor = g->files.items[ai].file.file_name;
			t[nt].first = i;
			t[nt].n = 0;
			nt++;
		}
		pos[i] = ids[i] - g->start;
		t[nt - 1].n++;
	}
	qsort(t, nt, sizeof *t, cmp_touched);
	if ((rc = pm_dv_snapshot_load(io, table_path, groups.index_manifest, &dvs)) != 0 ||
	    (rc = pm_dv_namer_init(&namer)) != 0)
		goto out;
	if (!(dels = pm_calloc(nt, sizeof *dels))) {
		rc = PAIMON_ENOMEM;
		goto out;
	}
	for (i = 0; i < nt; i = j) {
		const pm_manifest_entry *e0 = &t[i].g->files.items[0];
		const pm_dv_bucket *cur = pm_dv_snapshot_bucket(&dvs, e0->partition.p, e0->partition.n, e0->bucket);
		pm_dv_delete_result r;
		size_t k, nd = 0;
		for (j = i; j < nt && !cmp_bucket(&t[j].g->files.items[0], e0); j++) {
			const pm_dv_ref *ref = pm_dv_bucket_find(cur, t[j].anchor);
			pm_dv *old = NULL;
			dels[nd].data_file = t[j].anchor;
			dels[nd].positions = pos + t[j].first;
			dels[nd].n = t[j].n;
			nd++;
			/* rows not deleted before */
			if (ref && (rc = pm_dv_ref_load(io, ref, &old)) != 0)
				goto out;
			for (k = 0; k < t[j].n; k++)
				out->rows_deleted += !old || !pm_dv_contains(old, pos[t[j].first + k]);
			pm_dv_free(old);
		}
		memset(&r, 0, sizeof r);
		if ((rc = pm_dv_apply_delete(io, table_path, e0->partition.p, e0->partition.n, e0->bucket, cur, dels, nd,
					     fmt, &namer, &r)) != 0) {
			pm_dv_delete_result_dispose(&r);
			goto out;
		}
		if (r.changed) {
			if ((rc = pm_strlist_push(&out->written, r.written_path)) != 0 || (rc = take_result(out, &r)) != 0) {
				pm_fileio_remove(io, r.written_path);
				pm_dv_delete_result_dispose(&r);
				goto out;
			}
		}
		pm_dv_delete_result_dispose(&r);
	}
out:
	if (rc) {
		for (i = 0; i < out->written.len; i++)
			pm_fileio_remove(io, out->written.items[i]);
		pm_row_id_delete_dispose(out);
	}
	pm_free(ids);
	pm_free(pos);
	pm_free(t);
	pm_free(dels);
	pm_dv_snapshot_dispose(&dvs);
	pm_rowid_groups_dispose(&groups);
	return rc;
}
