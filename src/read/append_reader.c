/*
 * read/append_reader.c - the split reader of PM_SPLIT_APPEND splits (see
 * split_reader.h): the data files one after another, one open at a time.
 *
 * Per batch: the file's reader (found by the file's extension through
 * format/format.h) yields the file's columns (old names, old types); each
 * work column is taken from the file by field id and cast to the read
 * type, or made all-null when the file predates the column (no field of
 * that id in the file's schema). Batches are produced on demand, so memory
 * is bounded by the batch size.
 */
#include "read/split_reader.h"

#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "format/format.h"
#include "read/read.h"

typedef struct append_reader {
	pm_split_reader base;
	const pm_read_ctx *ctx;          /* borrowed */
	const pm_split *split;           /* borrowed */
	size_t fi;                       /* next entry to open */
	/* current file */
	pm_format_reader *r;
	pm_buf path;
	int *map;                        /* per work column: child of the file batch, -1 absent */
	struct ArrowSchema file_schema;
	struct ArrowArray *kids;
} append_reader;

static void close_file(append_reader *a)
{
	pm_format_reader_free(a->r);
	a->r = NULL;
	if (a->file_schema.release)
		a->file_schema.release(&a->file_schema);
	memset(&a->file_schema, 0, sizeof a->file_schema);
}

static const pm_field *field_by_id(const pm_table_schema *s, int32_t id)
{
	size_t i;
	for (i = 0; i < s->nfields; i++)
		if (s->fields[i].id == id)
			return &s->fields[i];
	return NULL;
}

/* Opens path with fmt; on ENOTFOUND of a partitioned table's file, tries
 * pypaimon's partition directory style (and keeps the path that opened). */
static int open_data_file(append_reader *a, const pm_manifest_entry *e, const pm_format *fmt,
			  const pm_format_read_options *o)
{
	const pm_read_ctx *c = a->ctx;
	int rc = fmt->reader_open(c->io, pm_buf_cstr(&a->path), o, &a->r);
	if (rc == PAIMON_ENOTFOUND && c->pi->n && !e->file.external_path) {
		pm_buf alt = PM_BUF_INIT;
		int rc2 = pm_read_data_file_path(c->table_path, c->options, c->pi, e, 1, &alt);
		if (!rc2 && strcmp(pm_buf_cstr(&alt), pm_buf_cstr(&a->path)) != 0) {
			rc2 = fmt->reader_open(c->io, pm_buf_cstr(&alt), o, &a->r);
			if (rc2 != PAIMON_ENOTFOUND)
				rc = rc2;
			if (!rc) {
				pm_buf tmp = a->path;
				a->path = alt;
				alt = tmp;
			}
		}
		pm_buf_dispose(&alt);
	}
	return rc;
}

/* Opens the next data file of the split; a->r stays NULL when there is none. */
static int open_next(append_reader *a)
{
	const pm_read_ctx *c = a->ctx;
	const pm_split *sp = a->split;
	for (;;) {
		const pm_manifest_entry *e;
		const pm_table_schema *fs;
		const pm_format *fmt;
		const char **cols = NULL;
		size_t ncols = 0, k;
		pm_pq_filter *pf = NULL;
		pm_format_read_options o;
		int rc;

		if (a->fi >= sp->entries.len)
			return 0;
		e = &sp->entries.items[a->fi++];
		if (e->file.row_count == 0)
			continue;
		if ((rc = pm_schema_cache_get(c->schemas, e->file.schema_id, &fs)) != 0)
			return pm_err_wrap("data file '%s'", e->file.file_name);
		cols = pm_calloc(c->nwork + 1, sizeof *cols);
		if (!cols)
			return PAIMON_ENOMEM;
		for (k = 0; k < c->nwork; k++) {
			const pm_field *f = field_by_id(fs, c->schema->fields[c->work[k]].id);
			size_t j;
			a->map[k] = -1;
			if (!f)
				continue;
			for (j = 0; j < ncols; j++)
				if (!strcmp(cols[j], f->name))
					break;
			if (j == ncols)
				cols[ncols++] = f->name;
		}
		if (ncols == 0 && fs->nfields)
			cols[ncols++] = fs->fields[0].name; /* only for the row count */
		if (c->pred && (rc = pm_pred_to_pq_filter(c->pred, fs, &pf)) != 0) {
			pm_free(cols);
			return pm_err_wrap("data file '%s'", e->file.file_name);
		}
		memset(&o, 0, sizeof o);
		o.columns = cols;
		o.n_columns = ncols;
		o.batch_rows = c->batch_rows;
		if (c->want >= 0 && c->want < o.batch_rows)
			o.batch_rows = c->want > 0 ? c->want : 1;
		o.filter = pf;
		o.threads = c->threads;
		if ((rc = pm_read_data_file_path(c->table_path, c->options, c->pi, e, 0, &a->path)) != 0)
			goto fail;
		if ((rc = pm_format_for_file(pm_buf_cstr(&a->path), &fmt)) != 0)
			goto fail;
		rc = open_data_file(a, e, fmt, &o);
		if (rc == PAIMON_ENOTFOUND) {
			rc = pm_err(PAIMON_ENOTFOUND, "data file %s does not exist (listed in snapshot %lld)",
				    pm_buf_cstr(&a->path), (long long)sp->snapshot_id);
			goto fail;
		}
		if (rc)
			goto fail;
		if ((rc = a->r->schema(a->r, &a->file_schema)) != 0)
			goto fail;
		for (k = 0; k < c->nwork; k++) {
			const pm_field *f = field_by_id(fs, c->schema->fields[c->work[k]].id);
			int64_t j;
			if (!f)
				continue;
			for (j = 0; j < a->file_schema.n_children; j++)
				if (!strcmp(a->file_schema.children[j]->name, f->name))
					break;
			if (j == a->file_schema.n_children) {
				rc = pm_err(PAIMON_ECORRUPT, "data file %s has no column '%s' (schema %lld lists it)",
					    pm_buf_cstr(&a->path), f->name, (long long)fs->id);
				goto fail;
			}
			a->map[k] = (int)j;
		}
		pm_free(cols);
		pm_pq_filter_free(pf);
		return 0;
fail:
		pm_free(cols);
		pm_pq_filter_free(pf);
		close_file(a);
		return rc;
	}
}

static int ar_next(pm_split_reader *base, struct ArrowArray *out, int *eof)
{
	append_reader *a = (append_reader *)base;
	const pm_read_ctx *c = a->ctx;
	memset(out, 0, sizeof *out);
	*eof = 0;
	for (;;) {
		struct ArrowArray b;
		int feof = 0, rc;
		int64_t n, k;

		if (!a->r) {
			if ((rc = open_next(a)) != 0)
				return rc;
			if (!a->r) {
				*eof = 1;
				return 0;
			}
		}
		memset(&b, 0, sizeof b);
		if ((rc = a->r->next(a->r, &b, &feof)) != 0) {
			rc = pm_err_wrap("reading data file %s", pm_buf_cstr(&a->path));
			close_file(a);
			return rc;
		}
		if (feof) {
			close_file(a);
			continue;
		}
		n = b.length;
		for (k = 0; k < (int64_t)c->nwork; k++) {
			int j = a->map[k];
			if (j >= 0 && j < b.n_children) {
				struct ArrowArray moved = *b.children[j];
				b.children[j]->release = NULL;
				rc = pm_evolve_cast(c->schema->fields[c->work[k]].name, a->file_schema.children[j],
						    &moved, c->work_schema->children[k], &a->kids[k]);
			} else {
				/* the file predates the column (append files only) */
				rc = pm_evolve_null_array(c->work_schema->children[k], n, &a->kids[k]);
			}
			if (rc) {
				while (k-- > 0)
					a->kids[k].release(&a->kids[k]);
				b.release(&b);
				return pm_err_wrap("data file %s", pm_buf_cstr(&a->path));
			}
		}
		b.release(&b);
		return pm_evolve_struct(a->kids, (int64_t)c->nwork, n, out);
	}
}

static int ar_schema(pm_split_reader *base, struct ArrowSchema *out)
{
	const pm_read_ctx *c = ((append_reader *)base)->ctx;
	return pm_read_fields_schema(c->schema, c->work, c->nwork, out);
}

static const char *ar_source(const pm_split_reader *base)
{
	return pm_buf_cstr(&((const append_reader *)base)->path);
}

static void ar_close(pm_split_reader *base)
{
	append_reader *a = (append_reader *)base;
	if (!a)
		return;
	close_file(a);
	pm_buf_dispose(&a->path);
	pm_free(a->map);
	pm_free(a->kids);
	pm_free(a);
}

int pm_append_reader_open(const pm_read_ctx *ctx, const pm_split *split, pm_split_reader **out)
{
	append_reader *a;
	*out = NULL;
	if (!(a = pm_calloc(1, sizeof *a)))
		return PAIMON_ENOMEM;
	a->ctx = ctx;
	a->split = split;
	a->map = pm_calloc(ctx->nwork + 1, sizeof *a->map);
	a->kids = pm_calloc(ctx->nwork + 1, sizeof *a->kids);
	if (!a->map || !a->kids) {
		ar_close(&a->base);
		return PAIMON_ENOMEM;
	}
	a->base.next = ar_next;
	a->base.schema = ar_schema;
	a->base.source = ar_source;
	a->base.close = ar_close;
	*out = &a->base;
	return 0;
}
