/*
 * api/api_update.c - public update-by-row-id API (include/paimonc/table.h)
 * over write/update.h, and deletes by row id / predicate over
 * write/delete.h.
 */
#include <string.h>

#include "api/handles.h"
#include "core/error.h"
#include "core/mem.h"
#include "paimonc/table.h"
#include "write/delete.h"
#include "write/update.h"

struct paimon_table_update {
	pm_row_id_update *u;
	const paimon_table *t;
	int prepared;
};

int paimon_table_update_new(paimon_table_update **out, paimon_table *t, const char *const *columns, size_t n,
			    const paimon_options *opts)
{
	paimon_table_update *h;
	pm_strlist cols = {0};
	size_t i;
	int rc = 0;
	if (!out || !t || (n && !columns))
		return pm_err(PAIMON_EINVAL, "paimon_table_update_new: NULL argument");
	*out = NULL;
	if ((rc = pm_api_refuse_system(t, "update")) || (rc = pm_api_check_dynamic_options(t, opts ? &opts->map : NULL)))
		return rc;
	for (i = 0; i < n && !rc; i++)
		rc = columns[i] ? pm_strlist_push(&cols, columns[i])
				: pm_err(PAIMON_EINVAL, "paimon_table_update_new: NULL column name");
	if (rc) {
		pm_strlist_dispose(&cols);
		return rc;
	}
	if (!(h = pm_calloc(1, sizeof *h))) {
		pm_strlist_dispose(&cols);
		return PAIMON_ENOMEM;
	}
	h->t = t;
	rc = pm_row_id_update_new(t->io, t->path, t->schema->schema, opts ? &opts->map : NULL, &cols, &h->u);
	pm_strlist_dispose(&cols);
	if (rc) {
		pm_free(h);
		return pm_err_wrap("cannot update table '%s'", t->identifier);
	}
	*out = h;
	return 0;
}

int paimon_table_update_write_arrow(paimon_table_update *u, struct ArrowArray *batch, const struct ArrowSchema *schema)
{
	if (!u || !batch || !schema) {
		if (batch && batch->release)
			batch->release(batch);
		return pm_err(PAIMON_EINVAL, "paimon_table_update_write_arrow: NULL argument");
	}
	return pm_row_id_update_add(u->u, batch, schema);
}

static int update_sink(void *ctx, struct ArrowArray *a, const struct ArrowSchema *s)
{
	return pm_row_id_update_add(ctx, a, s); /* moves a */
}

int paimon_table_update_write_arrow_stream(paimon_table_update *u, struct ArrowArrayStream *stream)
{
	if (!stream || !stream->release)
		return pm_err(PAIMON_EINVAL, "paimon_table_update_write_arrow_stream: NULL or released stream");
	if (!u) {
		stream->release(stream);
		stream->release = NULL;
		return pm_err(PAIMON_EINVAL, "paimon_table_update_write_arrow_stream: NULL update");
	}
	return pm_api_drain_stream(stream, update_sink, u->u);
}

int64_t paimon_table_update_base_snapshot(const paimon_table_update *u)
{
	return u ? pm_row_id_update_base_snapshot(u->u) : -1;
}

int paimon_table_update_prepare_commit(paimon_table_update *u, paimon_commit_message **out)
{
	pm_manifest_entry_list l = {0};
	int rc;
	if (!u || !out)
		return pm_err(PAIMON_EINVAL, "paimon_table_update_prepare_commit: NULL argument");
	*out = NULL;
	if ((rc = pm_row_id_update_finish(u->u, &l))) {
		pm_manifest_entry_list_dispose(&l);
		return pm_err_wrap("cannot update table '%s'", u->t->identifier);
	}
	rc = pm_commit_message_new(out, &l, NULL, pm_row_id_update_base_snapshot(u->u));
	pm_manifest_entry_list_dispose(&l);
	return rc;
}

void paimon_table_update_free(paimon_table_update *u)
{
	if (!u)
		return;
	pm_row_id_update_free(u->u);
	pm_free(u);
}

/* ------------------------------------------------------------- deletes */

int paimon_table_delete_by_row_id(paimon_table *t, const int64_t *row_ids, size_t n, const paimon_options *opts,
				  paimon_commit_message **out)
{
	return pm_api_delete_at(t, -1, row_ids, n, opts, out);
}

int pm_api_delete_at(paimon_table *t, int64_t snapshot_id, const int64_t *row_ids, size_t n,
		     const paimon_options *opts, paimon_commit_message **out)
{
	pm_row_id_delete d;
	int rc;
	if (!t || !out || (n && !row_ids))
		return pm_err(PAIMON_EINVAL, "paimon_table_delete_by_row_id: NULL argument");
	*out = NULL;
	if ((rc = pm_api_refuse_system(t, "delete")) || (rc = pm_api_check_dynamic_options(t, opts ? &opts->map : NULL)))
		return rc;
	if ((rc = pm_row_id_delete_run(t->io, t->path, t->schema->schema, opts ? &opts->map : NULL, snapshot_id, row_ids,
				       n, &d)) != 0)
		return pm_err_wrap("cannot delete from table '%s'", t->identifier);
	rc = pm_commit_message_new(out, NULL, &d.index, d.index.len ? d.base_snapshot : -1);
	if (rc) {
		size_t i;
		for (i = 0; i < d.written.len; i++)
			pm_fileio_remove(t->io, d.written.items[i]);
	}
	pm_row_id_delete_dispose(&d);
	return rc;
}

/* The _ROW_ID values of the rows of t matching pred at its latest
 * snapshot (*snapshot_id, -1: none). *ids pm_malloc'd. */
static int matched_row_ids(paimon_table *t, const paimon_predicate *pred, int64_t **ids, size_t *n,
			   int64_t *snapshot_id)
{
	static const char *const proj[] = {"_ROW_ID"};
	paimon_read_builder *rb = NULL;
	paimon_plan *plan = NULL;
	const paimon_split **splits = NULL;
	struct ArrowArrayStream st;
	size_t i, ns, cap = 0;
	int rc;
	memset(&st, 0, sizeof st);
	*ids = NULL;
	*n = 0;
	*snapshot_id = -1;
	if ((rc = paimon_read_builder_new(&rb, t)) || (rc = paimon_read_builder_with_projection(rb, proj, 1)) ||
	    (pred && (rc = paimon_read_builder_with_filter(rb, pred))) || (rc = paimon_read_builder_plan(rb, &plan)))
		goto out;
	*snapshot_id = paimon_plan_snapshot_id(plan);
	ns = paimon_plan_split_count(plan);
	if (!ns)
		goto out;
	if (!(splits = pm_calloc(ns, sizeof *splits))) {
		rc = PAIMON_ENOMEM;
		goto out;
	}
	for (i = 0; i < ns; i++)
		splits[i] = paimon_plan_split(plan, i);
	if ((rc = paimon_read_builder_read(rb, splits, ns, &st)))
		goto out;
	for (;;) {
		struct ArrowArray a;
		const struct ArrowArray *c;
		const int64_t *v;
		memset(&a, 0, sizeof a);
		if ((rc = st.get_next(&st, &a)) != 0) {
			const char *m = st.get_last_error ? st.get_last_error(&st) : NULL;
			rc = pm_err(rc > 0 ? PAIMON_EIO : rc, "reading _ROW_ID: %s", m ? m : "stream error");
			goto out;
		}
		if (!a.release)
			break;
		if (a.n_children != 1 || !(c = a.children[0]) || c->n_buffers < 2 || c->null_count) {
			a.release(&a);
			rc = pm_err(PAIMON_ECORRUPT, "reading _ROW_ID of table %s: unexpected batch layout", t->identifier);
			goto out;
		}
		if (*n + (size_t)a.length > cap) {
			size_t nc = cap ? cap : 1024;
			int64_t *nv;
			while (nc < *n + (size_t)a.length)
				nc *= 2;
			if (!(nv = pm_realloc(*ids, nc * sizeof *nv))) {
				a.release(&a);
				rc = PAIMON_ENOMEM;
				goto out;
			}
			*ids = nv;
			cap = nc;
		}
		v = (const int64_t *)c->buffers[1] + c->offset + a.offset;
		if (a.length)
			memcpy(*ids + *n, v, (size_t)a.length * sizeof *v);
		*n += (size_t)a.length;
		a.release(&a);
	}
out:
	if (st.release)
		st.release(&st);
	pm_free(splits);
	paimon_plan_free(plan);
	paimon_read_builder_free(rb);
	if (rc) {
		pm_free(*ids);
		*ids = NULL;
		*n = 0;
	}
	return rc;
}

int paimon_table_delete_by_predicate(paimon_table *t, const paimon_predicate *pred, const paimon_options *opts,
				     paimon_commit_message **out)
{
	int64_t *ids = NULL, snap;
	size_t n;
	int rc;
	if (!t || !out)
		return pm_err(PAIMON_EINVAL, "paimon_table_delete_by_predicate: NULL argument");
	*out = NULL;
	/* the same checks as a delete by row id, before anything is read */
	if ((rc = pm_api_delete_at(t, -1, NULL, 0, opts, out)) != 0)
		return rc;
	paimon_commit_message_free(*out);
	*out = NULL;
	if ((rc = matched_row_ids(t, pred, &ids, &n, &snap)) != 0)
		return pm_err_wrap("cannot delete from table '%s'", t->identifier);
	rc = pm_api_delete_at(t, snap, ids, n, opts, out);
	pm_free(ids);
	return rc;
}
