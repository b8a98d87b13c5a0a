/*
 * api/api_update.c - public update-by-row-id API (include/paimonc/table.h)
 * over write/update.h.
 */
#include <string.h>

#include "api/handles.h"
#include "core/error.h"
#include "core/mem.h"
#include "paimonc/table.h"
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
