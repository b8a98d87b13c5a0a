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

#include "arrow/arrow_filter.h"
#include "core/error.h"
#include "core/mem.h"
#include "format/format.h"
#include "meta/deletion_vector.h"
#include "read/read.h"
#include "scan/rowid.h"

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
	const pm_manifest_entry *e;      /* current file's entry */
	int64_t *local;                  /* its row selection ([start, end) positions) or NULL */
	size_t nlocal;
	pm_pos_cursor cur;
	pm_dv *dv;                       /* its deletion vector or NULL */
	uint8_t *sel;                    /* kept rows of a batch */
	size_t sel_cap;
} append_reader;

static void close_file(append_reader *a)
{
	pm_format_reader_free(a->r);
	a->r = NULL;
	pm_free(a->local);
	a->local = NULL;
	a->nlocal = 0;
	pm_dv_free(a->dv);
	a->dv = NULL;
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
static int open_data_file(const pm_read_ctx *c, const pm_manifest_entry *e, const pm_format *fmt,
			  const pm_format_read_options *o, pm_buf *path, pm_format_reader **r)
{
	int rc = fmt->reader_open(c->io, pm_buf_cstr(path), o, r);
	if (rc == PAIMON_ENOTFOUND && c->pi->n && !e->file.external_path) {
		pm_buf alt = PM_BUF_INIT;
		int rc2 = pm_read_data_file_path(c->table_path, c->options, c->pi, e, 1, &alt);
		if (!rc2 && strcmp(pm_buf_cstr(&alt), pm_buf_cstr(path)) != 0) {
			rc2 = fmt->reader_open(c->io, pm_buf_cstr(&alt), o, r);
			if (rc2 != PAIMON_ENOTFOUND)
				rc = rc2;
			if (!rc) {
				pm_buf tmp = *path;
				*path = alt;
				alt = tmp;
			}
		}
		pm_buf_dispose(&alt);
	}
	return rc;
}

int pm_read_open_data_file(const pm_read_ctx *c, const pm_split *sp, const pm_manifest_entry *e,
			   const pm_format_read_options *o, pm_buf *path, pm_format_reader **out)
{
	const pm_format *fmt;
	const pm_table_schema *fs;
	pm_format_read_options ot;
	int rc;
	*out = NULL;
	if ((rc = pm_read_data_file_path(c->table_path, c->options, c->pi, e, 0, path)) != 0)
		return rc;
	if ((rc = pm_format_for_file(pm_buf_cstr(path), &fmt)) != 0)
		return rc;
	/* the file's Paimon fields, for formats that need them (Avro) */
	if (o && !o->fields && pm_schema_cache_get(c->schemas, e->file.schema_id, &fs) == 0) {
		ot = *o;
		ot.fields = fs->fields;
		ot.n_fields = fs->nfields;
		o = &ot;
	}
	rc = open_data_file(c, e, fmt, o, path, out);
	if (rc == PAIMON_ENOTFOUND)
		rc = pm_err(PAIMON_ENOTFOUND, "data file %s does not exist (listed in snapshot %lld)", pm_buf_cstr(path),
			    (long long)sp->snapshot_id);
	return rc;
}

static int has_id(const int32_t *ids, size_t n, int32_t id)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (ids[i] == id)
			return 1;
	return 0;
}

/* Opens the next data file of the split; a->r stays NULL when there is none. */
static int open_next(append_reader *a)
{
	const pm_read_ctx *c = a->ctx;
	const pm_split *sp = a->split;
	for (;;) {
		const pm_manifest_entry *e;
		const pm_table_schema *fs;
		const char **cols = NULL;
		int32_t *ids = NULL;
		size_t ncols = 0, nids = 0, k;
		pm_pq_filter *pf = NULL;
		pm_format_read_options o;
		int rc, full = 1;

		if (a->fi >= sp->entries.len)
			return 0;
		e = &sp->entries.items[a->fi++];
		if (e->file.row_count == 0)
			continue;
		if (sp->has_row_ranges) {
			/* the rows of the file the split selects */
			if (!e->file.has_first_row_id || e->file.first_row_id > INT64_MAX - e->file.row_count)
				continue;
			if ((rc = pm_row_ranges_local(sp->row_ranges, sp->n_row_ranges, e->file.first_row_id,
						      e->file.first_row_id + e->file.row_count - 1, &a->local, &a->nlocal,
						      &full)) != 0)
				return rc;
			if (!full && a->nlocal == 0)
				continue;
		}
		if ((rc = pm_schema_cache_get(c->schemas, e->file.schema_id, &fs)) != 0) {
			close_file(a);
			return pm_err_wrap("data file '%s'", e->file.file_name);
		}
		if ((rc = pm_file_field_ids(fs, &e->file, &ids, &nids)) != 0) {
			close_file(a);
			return rc;
		}
		cols = pm_calloc(c->nwork + 2, sizeof *cols);
		if (!cols) {
			pm_free(ids);
			close_file(a);
			return PAIMON_ENOMEM;
		}
		/* the names to read: per work column its name in the file's schema
		 * when the file holds it (system columns: physical copies only) */
		for (k = 0; k < c->nwork; k++) {
			int32_t fid = c->schema->fields[c->work[k]].id;
			const pm_field *f = pm_is_row_tracking_field_id(fid) ? NULL : field_by_id(fs, fid);
			const char *name = f ? f->name : NULL;
			size_t j;
			a->map[k] = -1;
			if (pm_is_row_tracking_field_id(fid))
				name = fid == PM_ROW_ID_FIELD_ID ? PM_ROW_ID_NAME : PM_SEQUENCE_NUMBER_NAME;
			if (!name || !has_id(ids, nids, fid))
				continue;
			for (j = 0; j < ncols; j++)
				if (!strcmp(cols[j], name))
					break;
			if (j == ncols)
				cols[ncols++] = name;
		}
		if (ncols == 0) {
			/* only for the row count: a column the file holds */
			for (k = 0; k < fs->nfields && !ncols; k++)
				if (has_id(ids, nids, fs->fields[k].id))
					cols[ncols++] = fs->fields[k].name;
		}
		if ((rc = pm_read_dv_get(c->dvs, sp, e->file.file_name, &a->dv)) != 0) {
			pm_free(cols);
			pm_free(ids);
			close_file(a);
			return rc;
		}
		/* no pruning filter when positions are needed (row groups skipped
		 * by statistics would shift them), nor into a file holding only
		 * some columns (_WRITE_COLS: the filter may name one it lacks) */
		if (c->pred && !c->has_row_tracking && !a->dv && !e->file.has_write_cols &&
		    (rc = pm_pred_to_pq_filter(c->pred, fs, &pf)) != 0) {
			pm_free(cols);
			pm_free(ids);
			close_file(a);
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
		o.row_ranges = full ? NULL : a->local;
		o.n_row_ranges = full ? 0 : a->nlocal;
		if (full) {
			pm_free(a->local);
			a->local = NULL;
			a->nlocal = 0;
		}
		a->e = e;
		pm_pos_cursor_init(&a->cur, a->local, a->nlocal, e->file.row_count);
		if ((rc = pm_read_open_data_file(c, sp, e, &o, &a->path, &a->r)) != 0)
			goto fail;
		if ((rc = a->r->schema(a->r, &a->file_schema)) != 0)
			goto fail;
		for (k = 0; k < c->nwork; k++) {
			int32_t fid = c->schema->fields[c->work[k]].id;
			const pm_field *f = pm_is_row_tracking_field_id(fid) ? NULL : field_by_id(fs, fid);
			const char *name = f ? f->name : NULL;
			int64_t j;
			if (pm_is_row_tracking_field_id(fid))
				name = fid == PM_ROW_ID_FIELD_ID ? PM_ROW_ID_NAME : PM_SEQUENCE_NUMBER_NAME;
			if (!name || !has_id(ids, nids, fid))
				continue;
			for (j = 0; j < a->file_schema.n_children; j++)
				if (!strcmp(a->file_schema.children[j]->name, name))
					break;
			if (j == a->file_schema.n_children) {
				rc = pm_err(PAIMON_ECORRUPT, "data file %s has no column '%s' (schema %lld lists it)",
					    pm_buf_cstr(&a->path), name, (long long)fs->id);
				goto fail;
			}
			a->map[k] = (int)j;
		}
		pm_free(cols);
		pm_free(ids);
		pm_pq_filter_free(pf);
		return 0;
fail:
		pm_free(cols);
		pm_free(ids);
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
		struct ArrowArray b, whole;
		pm_pos_cursor start;
		int feof = 0, rc;
		int64_t n, k, kept;

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
		start = a->cur;
		for (k = 0; k < (int64_t)c->nwork; k++) {
			int j = a->map[k];
			int32_t fid = c->schema->fields[c->work[k]].id;
			if (pm_is_row_tracking_field_id(fid)) {
				struct ArrowArray moved, *mp = NULL;
				if (j >= 0 && j < b.n_children) {
					moved = *b.children[j];
					b.children[j]->release = NULL;
					mp = &moved;
				}
				pm_pos_cursor t = start;
				rc = pm_rowtrack_column(fid, &a->e->file, pm_buf_cstr(&a->path), &t, n,
							a->e->file.max_sequence_number,
							mp ? a->file_schema.children[j] : NULL, mp, &a->kids[k]);
			} else if (j >= 0 && j < b.n_children) {
				struct ArrowArray moved = *b.children[j];
				b.children[j]->release = NULL;
				rc = pm_evolve_cast(c->schema->fields[c->work[k]].name, a->file_schema.children[j],
						    &moved, c->work_schema->children[k], &a->kids[k]);
			} else {
				/* the file predates the column, or holds only some
				 * columns (_WRITE_COLS) */
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
		if (a->dv && (size_t)n > a->sel_cap) {
			uint8_t *ns = pm_realloc(a->sel, (size_t)n);
			if (!ns) {
				for (k = 0; k < (int64_t)c->nwork; k++)
					a->kids[k].release(&a->kids[k]);
				return PAIMON_ENOMEM;
			}
			a->sel = ns;
			a->sel_cap = (size_t)n;
		}
		if ((rc = pm_read_dv_select(a->dv, &a->cur, n, a->sel, &kept)) != 0) {
			for (k = 0; k < (int64_t)c->nwork; k++)
				a->kids[k].release(&a->kids[k]);
			return pm_err_wrap("data file %s", pm_buf_cstr(&a->path));
		}
		if ((rc = pm_evolve_struct(a->kids, (int64_t)c->nwork, n, kept == n ? out : &whole)) != 0 || kept == n)
			return rc;
		/* rows deleted by the deletion vector */
		if (kept == 0) {
			whole.release(&whole);
			continue;
		}
		rc = pm_arrow_filter(c->work_schema, &whole, a->sel, out);
		whole.release(&whole);
		return rc;
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
	pm_free(a->sel);
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
