/*
 * api/api_write.c - public write / commit-message / commit API
 * (include/paimonc/table.h) over table/write and table/commit.
 */
#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "paimonc/table.h"
#include "api/handles.h"
#include "commit/commit.h"
#include "write/write.h"

struct paimon_table_write {
	pm_table_writer *w;
};

struct paimon_commit_message {
	pm_manifest_entry_list entries;
};

struct paimon_table_commit {
	pm_table_committer *c;
};

/* ------------------------------------------------------------------ write */

/* BLOB values live in dedicated .blob files next to the data file (spec
 * ai-format); until that is implemented, writing them inline into Parquet
 * would make tables Java reads differently, so such writes are refused. */
static int has_blob(const pm_type *t)
{
	size_t i;
	if (!t)
		return 0;
	if (t->root == PM_BLOB)
		return 1;
	if (has_blob(t->element) || has_blob(t->key) || has_blob(t->value))
		return 1;
	for (i = 0; i < t->nfields; i++)
		if (has_blob(t->fields[i].type))
			return 1;
	return 0;
}

static int refuse_blob_columns(const paimon_table *t)
{
	const pm_table_schema *s = t->schema->schema;
	size_t i;
	for (i = 0; i < s->nfields; i++)
		if (has_blob(s->fields[i].type))
			return pm_err(PAIMON_EUNSUPPORTED,
				      "table '%s': column '%s' holds BLOB values, which are written to .blob files; "
				      "paimonc cannot write them yet", t->identifier, s->fields[i].name);
	return 0;
}

int paimon_table_write_new(paimon_table_write **out, paimon_table *t, const paimon_options *opts)
{
	paimon_table_write *h;
	int rc;
	if (!out || !t)
		return pm_err(PAIMON_EINVAL, "paimon_table_write_new: NULL argument");
	*out = NULL;
	if ((rc = refuse_blob_columns(t)))
		return rc;
	if (!(h = pm_calloc(1, sizeof *h)))
		return PAIMON_ENOMEM;
	if ((rc = pm_table_writer_new(t->io, t->path, t->schema->schema, opts ? &opts->map : NULL, &h->w))) {
		pm_free(h);
		return pm_err_wrap("cannot write table '%s'", t->identifier);
	}
	*out = h;
	return 0;
}

int paimon_table_write_arrow(paimon_table_write *w, const struct ArrowArray *batch, const struct ArrowSchema *schema)
{
	if (!w || !batch || !schema)
		return pm_err(PAIMON_EINVAL, "paimon_table_write_arrow: NULL argument");
	return pm_table_writer_write(w->w, batch, schema);
}

int paimon_table_write_arrow_stream(paimon_table_write *w, struct ArrowArrayStream *stream)
{
	struct ArrowSchema s;
	int rc;
	if (!stream || !stream->release)
		return pm_err(PAIMON_EINVAL, "paimon_table_write_arrow_stream: NULL or released stream");
	if (!w) {
		stream->release(stream); /* consumed on every path, see table.h */
		stream->release = NULL;
		return pm_err(PAIMON_EINVAL, "paimon_table_write_arrow_stream: NULL writer");
	}
	memset(&s, 0, sizeof s);
	if (stream->get_schema(stream, &s)) {
		const char *m = stream->get_last_error ? stream->get_last_error(stream) : NULL;
		rc = pm_err(PAIMON_EINVAL, "Arrow stream: cannot get the schema%s%s", m ? ": " : "", m ? m : "");
		stream->release(stream);
		stream->release = NULL;
		return rc;
	}
	for (;;) {
		struct ArrowArray a;
		memset(&a, 0, sizeof a);
		if (stream->get_next(stream, &a)) {
			const char *m = stream->get_last_error ? stream->get_last_error(stream) : NULL;
			rc = pm_err(PAIMON_EIO, "Arrow stream: cannot get the next batch%s%s", m ? ": " : "", m ? m : "");
			break;
		}
		if (!a.release) {
			rc = 0;
			break;
		}
		rc = pm_table_writer_write(w->w, &a, &s);
		a.release(&a);
		if (rc)
			break;
	}
	if (s.release)
		s.release(&s);
	stream->release(stream);
	stream->release = NULL;
	return rc;
}

int paimon_table_write_with_write_type(paimon_table_write *w, const char *const *columns, size_t n)
{
	pm_strlist cols = {0};
	size_t i;
	int rc = 0;
	if (!w || (n && !columns))
		return pm_err(PAIMON_EINVAL, "paimon_table_write_with_write_type: NULL argument");
	for (i = 0; i < n && !rc; i++)
		rc = columns[i] ? pm_strlist_push(&cols, columns[i])
				: pm_err(PAIMON_EINVAL, "paimon_table_write_with_write_type: NULL column name");
	if (!rc)
		rc = pm_table_writer_set_write_cols(w->w, n ? &cols : NULL);
	pm_strlist_dispose(&cols);
	return rc;
}

int pm_api_commit_message_new(pm_manifest_entry_list *entries, int64_t check_from_snapshot,
			      paimon_commit_message **out)
{
	paimon_commit_message *m = pm_calloc(1, sizeof *m);
	(void)check_from_snapshot;
	*out = NULL;
	if (!m)
		return PAIMON_ENOMEM;
	m->entries = *entries;
	memset(entries, 0, sizeof *entries);
	*out = m;
	return 0;
}

int64_t paimon_table_write_row_count(const paimon_table_write *w)
{
	return w ? pm_table_writer_row_count(w->w) : 0;
}

int paimon_table_write_prepare_commit(paimon_table_write *w, paimon_commit_message **out)
{
	paimon_commit_message *m;
	int rc;
	if (!w || !out)
		return pm_err(PAIMON_EINVAL, "paimon_table_write_prepare_commit: NULL argument");
	*out = NULL;
	if (!(m = pm_calloc(1, sizeof *m)))
		return PAIMON_ENOMEM;
	if ((rc = pm_table_writer_prepare_commit(w->w, &m->entries))) {
		paimon_commit_message_free(m);
		return rc;
	}
	*out = m;
	return 0;
}

void paimon_table_write_free(paimon_table_write *w)
{
	if (!w)
		return;
	pm_table_writer_free(w->w);
	pm_free(w);
}

/* --------------------------------------------------------- commit message */

size_t paimon_commit_message_file_count(const paimon_commit_message *m)
{
	return m ? m->entries.len : 0;
}

int64_t paimon_commit_message_row_count(const paimon_commit_message *m)
{
	int64_t n = 0;
	size_t i;
	if (!m)
		return 0;
	for (i = 0; i < m->entries.len; i++)
		n += m->entries.items[i].file.row_count;
	return n;
}

int paimon_commit_message_serialize(const paimon_commit_message *m, void **bytes, size_t *len)
{
	pm_buf b = PM_BUF_INIT;
	int rc;
	if (!m || !bytes || !len)
		return pm_err(PAIMON_EINVAL, "paimon_commit_message_serialize: NULL argument");
	*bytes = NULL;
	*len = 0;
	if ((rc = pm_commit_message_encode(m->entries.items, m->entries.len, &b))) {
		pm_buf_dispose(&b);
		return rc;
	}
	*len = b.len;
	*bytes = pm_buf_detach(&b);
	if (!*bytes) /* empty buffer cannot happen (header), but be safe */
		return pm_err(PAIMON_ENOMEM, "out of memory");
	return 0;
}

int paimon_commit_message_deserialize(paimon_commit_message **out, const void *bytes, size_t len)
{
	paimon_commit_message *m;
	int rc;
	if (!out)
		return pm_err(PAIMON_EINVAL, "paimon_commit_message_deserialize: NULL argument");
	*out = NULL;
	if (!(m = pm_calloc(1, sizeof *m)))
		return PAIMON_ENOMEM;
	if ((rc = pm_commit_message_decode(bytes, len, &m->entries))) {
		paimon_commit_message_free(m);
		return rc;
	}
	*out = m;
	return 0;
}

void paimon_commit_message_free(paimon_commit_message *m)
{
	if (!m)
		return;
	pm_manifest_entry_list_dispose(&m->entries);
	pm_free(m);
}

/* ----------------------------------------------------------------- commit */

int paimon_table_commit_new(paimon_table_commit **out, paimon_table *t, const paimon_options *opts)
{
	paimon_table_commit *h;
	int rc;
	if (!out || !t)
		return pm_err(PAIMON_EINVAL, "paimon_table_commit_new: NULL argument");
	*out = NULL;
	if (!(h = pm_calloc(1, sizeof *h)))
		return PAIMON_ENOMEM;
	if ((rc = pm_table_committer_new(t->io, t->path, t->schema->schema, opts ? &opts->map : NULL, &h->c))) {
		pm_free(h);
		return pm_err_wrap("cannot commit to table '%s'", t->identifier);
	}
	*out = h;
	return 0;
}

int paimon_table_commit_set_overwrite(paimon_table_commit *c, const paimon_options *partition)
{
	if (!c)
		return pm_err(PAIMON_EINVAL, "paimon_table_commit_set_overwrite: NULL committer");
	return pm_table_committer_set_overwrite(c->c, partition ? &partition->map : NULL);
}

int paimon_table_commit_truncate(paimon_table_commit *c, int64_t *snapshot_id)
{
	if (snapshot_id)
		*snapshot_id = -1;
	if (!c)
		return pm_err(PAIMON_EINVAL, "paimon_table_commit_truncate: NULL committer");
	return pm_table_committer_truncate(c->c, PM_COMMIT_BATCH_IDENTIFIER, snapshot_id);
}

/* All entries of the messages as one array of shallow copies (*out: pm_free only). */
static int gather(paimon_commit_message *const *msgs, size_t n, pm_manifest_entry **out, size_t *count)
{
	size_t i, total = 0, k = 0;
	pm_manifest_entry *all;
	*out = NULL;
	*count = 0;
	if (n && !msgs)
		return pm_err(PAIMON_EINVAL, "commit: NULL message array");
	for (i = 0; i < n; i++) {
		if (!msgs[i])
			return pm_err(PAIMON_EINVAL, "commit: message %zu is NULL", i);
		total += msgs[i]->entries.len;
	}
	if (!total)
		return 0;
	if (!(all = pm_malloc(total * sizeof *all)))
		return PAIMON_ENOMEM;
	for (i = 0; i < n; i++) {
		memcpy(all + k, msgs[i]->entries.items, msgs[i]->entries.len * sizeof *all);
		k += msgs[i]->entries.len;
	}
	*out = all;
	*count = total;
	return 0;
}

int paimon_table_commit_apply(paimon_table_commit *c, paimon_commit_message *const *msgs, size_t n,
			      int64_t commit_identifier, int64_t *snapshot_id)
{
	pm_manifest_entry *all;
	size_t count;
	int rc;
	if (snapshot_id)
		*snapshot_id = -1;
	if (!c)
		return pm_err(PAIMON_EINVAL, "paimon_table_commit_apply: NULL committer");
	if ((rc = gather(msgs, n, &all, &count)))
		return rc;
	rc = pm_table_committer_commit(c->c, all, count, commit_identifier, snapshot_id);
	pm_free(all);
	return rc;
}

int paimon_table_commit_abort(paimon_table_commit *c, paimon_commit_message *const *msgs, size_t n)
{
	pm_manifest_entry *all;
	size_t count;
	int rc;
	if (!c)
		return pm_err(PAIMON_EINVAL, "paimon_table_commit_abort: NULL committer");
	if ((rc = gather(msgs, n, &all, &count)))
		return rc;
	rc = pm_table_committer_abort(c->c, all, count);
	pm_free(all);
	return rc;
}

void paimon_table_commit_free(paimon_table_commit *c)
{
	if (!c)
		return;
	pm_table_committer_free(c->c);
	pm_free(c);
}
