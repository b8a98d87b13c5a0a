/*
 * api/api_write.c - public write / commit-message / commit API
 * (include/paimonc/table.h) over table/write and table/commit.
 */
#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "paimonc/table.h"
#include "api/handles.h"
#include "api/api_expire.h"
#include "commit/commit.h"
#include "write/write.h"

struct paimon_table_write {
	pm_table_writer *w;
};

struct paimon_table_commit {
	pm_table_committer *c;
	pm_fileio *io;     /* the table's (the committer uses it too) */
	char *path;        /* the table's path */
	char *maint_err;   /* what the last commit's maintenance reported, or NULL */
};

/* After a commit call: when it published a new snapshot, runs the
 * maintenance (api_expire.h). Its failure is kept for
 * paimon_table_commit_maintenance_error and never fails the commit. */
static void after_commit(paimon_table_commit *c, int rc, int64_t snapshot_id, int64_t identifier)
{
	pm_commit_stats st;
	pm_free(c->maint_err);
	c->maint_err = NULL;
	if (rc || snapshot_id < 0)
		return;
	pm_table_committer_last_stats(c->c, &st);
	if (st.deduplicated)
		return;
	if (pm_api_maintain(c->io, c->path, pm_table_committer_schema(c->c), identifier)) {
		c->maint_err = pm_strdup(paimon_error_message());
		paimon_error_clear();
	}
}

const char *paimon_table_commit_maintenance_error(const paimon_table_commit *c)
{
	return c ? c->maint_err : NULL;
}

/* ------------------------------------------------------------------ write */

/* BLOB values live in dedicated .blob files next to the data file (spec
 * ai-format §4, write/rolling.h), ARRAY<BLOB> and MAP<K, BLOB> ones as
 * nested payloads (the table writer refuses other nestings). A BLOB
 * column also needs the data-evolution options, as both peers demand. */
static int refuse_blob_columns(const paimon_table *t)
{
	const pm_table_schema *s = t->schema->schema;
	size_t i;
	int any = 0;
	for (i = 0; i < s->nfields; i++)
		if (pm_type_has_blob(s->fields[i].type))
			any = 1;
	if (any && (!pm_schema_option_true(s, NULL, "row-tracking.enabled") ||
		    !pm_schema_option_true(s, NULL, "data-evolution.enabled")))
		return pm_err(PAIMON_EINVAL,
			      "table '%s' has BLOB columns: it needs 'row-tracking.enabled' = 'true' and "
			      "'data-evolution.enabled' = 'true'", t->identifier);
	return 0;
}

int paimon_table_write_new(paimon_table_write **out, paimon_table *t, const paimon_options *opts)
{
	paimon_table_write *h;
	int rc;
	if (!out || !t)
		return pm_err(PAIMON_EINVAL, "paimon_table_write_new: NULL argument");
	*out = NULL;
	if ((rc = pm_api_refuse_system(t, "write")) || (rc = pm_api_check_dynamic_options(t, opts ? &opts->map : NULL)))
		return rc;
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

int pm_api_drain_stream(struct ArrowArrayStream *stream, pm_api_batch_sink sink, void *ctx)
{
	struct ArrowSchema s;
	int rc;
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
		if ((rc = sink(ctx, &a, &s)))
			break;
	}
	if (s.release)
		s.release(&s);
	stream->release(stream);
	stream->release = NULL;
	return rc;
}

static int write_sink(void *ctx, struct ArrowArray *a, const struct ArrowSchema *s)
{
	int rc = pm_table_writer_write(ctx, a, s);
	a->release(a);
	return rc;
}

int paimon_table_write_arrow_stream(paimon_table_write *w, struct ArrowArrayStream *stream)
{
	if (!stream || !stream->release)
		return pm_err(PAIMON_EINVAL, "paimon_table_write_arrow_stream: NULL or released stream");
	if (!w) {
		stream->release(stream); /* consumed on every path, see table.h */
		stream->release = NULL;
		return pm_err(PAIMON_EINVAL, "paimon_table_write_arrow_stream: NULL writer");
	}
	return pm_api_drain_stream(stream, write_sink, w->w);
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

int paimon_table_write_set_blob_stream(paimon_table_write *w, paimon_blob_stream_fn fn, void *ctx)
{
	if (!w)
		return pm_err(PAIMON_EINVAL, "paimon_table_write_set_blob_stream: NULL writer");
	pm_table_writer_set_blob_stream(w->w, fn, ctx);
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
	m->check_from_snapshot = -1;
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

int pm_commit_message_new(paimon_commit_message **out, pm_manifest_entry_list *entries,
			  pm_index_manifest_entry_list *index, int64_t check_from_snapshot)
{
	paimon_commit_message *m;
	size_t i;
	*out = NULL;
	if (check_from_snapshot < -1)
		return pm_err(PAIMON_EINVAL, "commit message: bad base snapshot %lld", (long long)check_from_snapshot);
	for (i = 0; entries && i < entries->len; i++)
		if (entries->items[i].kind != PM_FILE_KIND_ADD || !entries->items[i].file.file_name)
			return pm_err(PAIMON_EINVAL, "commit message: entry %zu is not a new data file", i);
	for (i = 0; index && i < index->len; i++)
		if ((index->items[i].kind != PM_FILE_KIND_ADD && index->items[i].kind != PM_FILE_KIND_DELETE) ||
		    !index->items[i].file_name || !index->items[i].index_type)
			return pm_err(PAIMON_EINVAL, "commit message: index entry %zu is not an index file change", i);
	if (!(m = pm_calloc(1, sizeof *m)))
		return PAIMON_ENOMEM;
	if (entries) {
		m->entries = *entries;
		memset(entries, 0, sizeof *entries);
	}
	if (index) {
		m->index = *index;
		memset(index, 0, sizeof *index);
	}
	m->check_from_snapshot = check_from_snapshot;
	*out = m;
	return 0;
}

size_t paimon_commit_message_file_count(const paimon_commit_message *m)
{
	return m ? m->entries.len : 0;
}

size_t paimon_commit_message_index_count(const paimon_commit_message *m)
{
	return m ? m->index.len : 0;
}

int64_t paimon_commit_message_row_count(const paimon_commit_message *m)
{
	int64_t n = 0;
	size_t i;
	if (!m)
		return 0;
	/* rows, not records: .blob and vector-store companions hold the same
	 * rows again (the snapshot's record counts include them, as Java's) */
	for (i = 0; i < m->entries.len; i++)
		if (!pm_file_is_blob(m->entries.items[i].file.file_name) &&
		    !pm_file_is_vector(m->entries.items[i].file.file_name))
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
	{
		pm_commit_batch cb = {0};
		cb.adds = m->entries.items;
		cb.n_adds = m->entries.len;
		cb.index = m->index.items;
		cb.n_index = m->index.len;
		cb.check_from_snapshot = m->check_from_snapshot;
		rc = pm_commit_message_encode_batch(&cb, &b);
	}
	if (rc) {
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
	if ((rc = pm_commit_message_decode_batch(bytes, len, &m->entries, &m->index, &m->check_from_snapshot))) {
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
	pm_index_manifest_entry_list_dispose(&m->index);
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
	if ((rc = pm_api_refuse_system(t, "commit")) || (rc = pm_api_check_dynamic_options(t, opts ? &opts->map : NULL)))
		return rc;
	if (!(h = pm_calloc(1, sizeof *h)))
		return PAIMON_ENOMEM;
	if ((rc = pm_table_committer_new(t->io, t->path, t->schema->schema, opts ? &opts->map : NULL, &h->c))) {
		pm_free(h);
		return pm_err_wrap("cannot commit to table '%s'", t->identifier);
	}
	h->io = t->io;
	if (!(h->path = pm_strdup(t->path))) {
		pm_table_committer_free(h->c);
		pm_free(h);
		return PAIMON_ENOMEM;
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
	int64_t sid = -1;
	int rc;
	if (snapshot_id)
		*snapshot_id = -1;
	if (!c)
		return pm_err(PAIMON_EINVAL, "paimon_table_commit_truncate: NULL committer");
	rc = pm_table_committer_truncate(c->c, PM_COMMIT_BATCH_IDENTIFIER, &sid);
	after_commit(c, rc, sid, PM_COMMIT_BATCH_IDENTIFIER);
	if (snapshot_id)
		*snapshot_id = sid;
	return rc;
}

/*
 * The messages as one batch of shallow copies (*adds, *index: pm_free
 * only). The base snapshot is the earliest of the messages' (pypaimon
 * _row_id_check_from_messages); a message with preset row ids but no base
 * snapshot next to one with a base -> PAIMON_EINVAL.
 */
static int gather(paimon_commit_message *const *msgs, size_t n, pm_commit_batch *b, pm_manifest_entry **adds,
		  pm_index_manifest_entry **index)
{
	size_t i, j, total = 0, ntotal = 0, k = 0, ki = 0;
	int64_t cf = -1;
	memset(b, 0, sizeof *b);
	b->check_from_snapshot = -1;
	*adds = NULL;
	*index = NULL;
	if (n && !msgs)
		return pm_err(PAIMON_EINVAL, "commit: NULL message array");
	for (i = 0; i < n; i++) {
		if (!msgs[i])
			return pm_err(PAIMON_EINVAL, "commit: message %zu is NULL", i);
		total += msgs[i]->entries.len;
		ntotal += msgs[i]->index.len;
		if (msgs[i]->check_from_snapshot >= 0 && (cf < 0 || msgs[i]->check_from_snapshot < cf))
			cf = msgs[i]->check_from_snapshot;
	}
	if (cf >= 0)
		for (i = 0; i < n; i++) {
			if (msgs[i]->check_from_snapshot >= 0)
				continue;
			for (j = 0; j < msgs[i]->entries.len; j++)
				if (msgs[i]->entries.items[j].file.has_first_row_id)
					return pm_err(PAIMON_EINVAL, "commit: message %zu has a data file with a preset row "
						      "id ('%s') but no base snapshot, next to messages with one", i,
						      msgs[i]->entries.items[j].file.file_name);
		}
	if (total && !(*adds = pm_malloc(total * sizeof **adds)))
		return PAIMON_ENOMEM;
	if (ntotal && !(*index = pm_malloc(ntotal * sizeof **index))) {
		pm_free(*adds);
		*adds = NULL;
		return PAIMON_ENOMEM;
	}
	for (i = 0; i < n; i++) {
		if (msgs[i]->entries.len)
			memcpy(*adds + k, msgs[i]->entries.items, msgs[i]->entries.len * sizeof **adds);
		k += msgs[i]->entries.len;
		if (msgs[i]->index.len)
			memcpy(*index + ki, msgs[i]->index.items, msgs[i]->index.len * sizeof **index);
		ki += msgs[i]->index.len;
	}
	b->adds = *adds;
	b->n_adds = total;
	b->index = *index;
	b->n_index = ntotal;
	b->check_from_snapshot = cf;
	return 0;
}

int paimon_table_commit_apply(paimon_table_commit *c, paimon_commit_message *const *msgs, size_t n,
			      int64_t commit_identifier, int64_t *snapshot_id)
{
	pm_commit_batch b = {0};
	pm_manifest_entry *adds;
	pm_index_manifest_entry *index;
	int64_t sid = -1;
	int rc;
	if (snapshot_id)
		*snapshot_id = -1;
	if (!c)
		return pm_err(PAIMON_EINVAL, "paimon_table_commit_apply: NULL committer");
	if ((rc = gather(msgs, n, &b, &adds, &index)))
		return rc;
	rc = pm_table_committer_commit_batch(c->c, &b, commit_identifier, &sid);
	pm_free(adds);
	pm_free(index);
	after_commit(c, rc, sid, commit_identifier);
	if (snapshot_id)
		*snapshot_id = sid;
	return rc;
}

int paimon_table_commit_abort(paimon_table_commit *c, paimon_commit_message *const *msgs, size_t n)
{
	pm_commit_batch b = {0};
	pm_manifest_entry *adds;
	pm_index_manifest_entry *index;
	int rc;
	if (!c)
		return pm_err(PAIMON_EINVAL, "paimon_table_commit_abort: NULL committer");
	if ((rc = gather(msgs, n, &b, &adds, &index)))
		return rc;
	rc = pm_table_committer_abort_batch(c->c, &b);
	pm_free(adds);
	pm_free(index);
	return rc;
}

void paimon_table_commit_free(paimon_table_commit *c)
{
	if (!c)
		return;
	pm_table_committer_free(c->c);
	pm_free(c->path);
	pm_free(c->maint_err);
	pm_free(c);
}
