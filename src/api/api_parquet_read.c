/*
 * api/api_parquet_read.c - public Parquet reading API over
 * format/parquet/reader.h, on the local file system.
 */
#include "paimonc/parquet.h"

#include <string.h>

#include "arrow/arrow_builder.h"
#include "core/error.h"
#include "core/mem.h"
#include "format/parquet/reader.h"

struct paimon_parquet_reader {
	pm_fileio *io;
	pm_pq_reader *r;
};

int paimon_parquet_reader_open_opts(paimon_parquet_reader **out, const char *path,
				    const paimon_parquet_read_options *o)
{
	paimon_parquet_reader *h;
	pm_pq_read_options opt;
	int rc;
	if (!out || !path)
		return pm_err(PAIMON_EINVAL, "paimon_parquet_reader_open: NULL argument");
	*out = NULL;
	memset(&opt, 0, sizeof opt);
	if (o) {
		opt.columns = o->columns;
		opt.n_columns = o->n_columns;
		opt.batch_rows = o->batch_rows;
		opt.row_groups = o->row_groups;
		opt.n_row_groups = o->n_row_groups;
		opt.row_ranges = o->row_ranges;
		opt.n_row_ranges = o->n_row_ranges;
		opt.verify_crc = o->verify_crc;
		opt.filter = o->filter;
		if (o->threads < 0 || o->threads > 1024)
			return pm_err(PAIMON_EINVAL, "paimon_parquet_reader_open: threads %d out of range (0..1024)",
				      o->threads);
		opt.threads = o->threads;
	}
	if (!(h = pm_calloc(1, sizeof *h)))
		return PAIMON_ENOMEM;
	if ((rc = pm_fileio_default_new(&h->io)) || (rc = pm_pq_reader_open(h->io, path, &opt, &h->r))) {
		paimon_parquet_reader_free(h);
		return rc;
	}
	*out = h;
	return 0;
}

int paimon_parquet_reader_open(paimon_parquet_reader **out, const char *path, const char *const *columns,
			       size_t ncolumns, int64_t batch_rows)
{
	paimon_parquet_read_options o;
	memset(&o, 0, sizeof o);
	o.columns = columns;
	o.n_columns = ncolumns;
	o.batch_rows = batch_rows;
	return paimon_parquet_reader_open_opts(out, path, &o);
}

int paimon_parquet_reader_schema(paimon_parquet_reader *r, struct ArrowSchema *out)
{
	if (!r || !out)
		return pm_err(PAIMON_EINVAL, "paimon_parquet_reader_schema: NULL argument");
	return pm_pq_reader_schema(r->r, out);
}

int paimon_parquet_reader_next(paimon_parquet_reader *r, struct ArrowArray *out, int *eof)
{
	if (!r || !out || !eof)
		return pm_err(PAIMON_EINVAL, "paimon_parquet_reader_next: NULL argument");
	return pm_pq_reader_next(r->r, out, eof);
}

int64_t paimon_parquet_reader_num_rows(const paimon_parquet_reader *r)
{
	return r ? pm_pq_reader_num_rows(r->r) : 0;
}

int paimon_parquet_reader_num_row_groups(const paimon_parquet_reader *r)
{
	return r ? (int)pm_pq_reader_meta(r->r)->n_row_groups : 0;
}

void paimon_parquet_reader_free(paimon_parquet_reader *r)
{
	if (!r)
		return;
	pm_pq_reader_free(r->r);
	pm_fileio_close(r->io);
	pm_free(r);
}

static int st_schema(void *st, struct ArrowSchema *out)
{
	return paimon_parquet_reader_schema(st, out);
}

static int st_next(void *st, struct ArrowArray *out)
{
	int eof = 0;
	int rc = paimon_parquet_reader_next(st, out, &eof);
	if (!rc && eof)
		memset(out, 0, sizeof *out);
	return rc;
}

static void st_free(void *st)
{
	paimon_parquet_reader_free(st);
}

int paimon_parquet_reader_stream(paimon_parquet_reader *r, struct ArrowArrayStream *out)
{
	int rc;
	if (!r || !out) {
		paimon_parquet_reader_free(r);
		return pm_err(PAIMON_EINVAL, "paimon_parquet_reader_stream: NULL argument");
	}
	/* pm_astream_init frees the state itself when it fails. */
	rc = pm_astream_init(out, st_schema, st_next, st_free, r);
	return rc;
}

int paimon_parquet_file_meta_json(const char *path, int with_pages, char **out)
{
	pm_fileio *io = NULL;
	int rc;
	if (!path || !out)
		return pm_err(PAIMON_EINVAL, "paimon_parquet_file_meta_json: NULL argument");
	*out = NULL;
	if ((rc = pm_fileio_default_new(&io)))
		return rc;
	rc = pm_pq_file_meta_json(io, path, with_pages, out);
	pm_fileio_close(io);
	return rc;
}

/* ------------------------------------------------------------ filters */

int paimon_parquet_filter_new(paimon_parquet_filter **out, const char *column, int op, const void *const *values,
			      const size_t *lens, size_t n)
{
	if (!out)
		return pm_err(PAIMON_EINVAL, "paimon_parquet_filter_new: NULL argument");
	return pm_pq_filter_leaf(out, column, op, values, lens, n);
}

int paimon_parquet_filter_new_cmp(paimon_parquet_filter **out, const char *column, int op, const char *value_text)
{
	const void *v[1];
	size_t l[1];
	if (!out)
		return pm_err(PAIMON_EINVAL, "paimon_parquet_filter_new_cmp: NULL argument");
	if (op == PAIMON_PQ_IS_NULL || op == PAIMON_PQ_IS_NOT_NULL)
		return pm_pq_filter_leaf(out, column, op, NULL, NULL, 0);
	if (!value_text) {
		*out = NULL;
		return pm_err(PAIMON_EINVAL, "paimon_parquet_filter_new_cmp: NULL value");
	}
	v[0] = value_text;
	l[0] = strlen(value_text);
	return pm_pq_filter_leaf(out, column, op, v, l, 1);
}

int paimon_parquet_filter_new_in(paimon_parquet_filter **out, const char *column, int negate,
				 const char *const *values, size_t n)
{
	size_t *lens, i;
	int rc;
	if (!out || (n && !values))
		return pm_err(PAIMON_EINVAL, "paimon_parquet_filter_new_in: NULL argument");
	*out = NULL;
	if (!(lens = pm_calloc(n + 1, sizeof *lens)))
		return PAIMON_ENOMEM;
	for (i = 0; i < n; i++) {
		if (!values[i]) {
			pm_free(lens);
			return pm_err(PAIMON_EINVAL, "paimon_parquet_filter_new_in: NULL value");
		}
		lens[i] = strlen(values[i]);
	}
	rc = pm_pq_filter_leaf(out, column, negate ? PM_PQF_NOT_IN : PM_PQF_IN,
			       (const void *const *)values, lens, n);
	pm_free(lens);
	return rc;
}

static int combine2(paimon_parquet_filter **out, int op, paimon_parquet_filter *a, paimon_parquet_filter *b)
{
	pm_pq_filter *k[2];
	if (!out) {
		pm_pq_filter_free(a);
		pm_pq_filter_free(b);
		return pm_err(PAIMON_EINVAL, "paimon_parquet_filter_and/or: NULL argument");
	}
	k[0] = a;
	k[1] = b;
	return pm_pq_filter_combine(out, op, k, 2);
}

int paimon_parquet_filter_and(paimon_parquet_filter **out, paimon_parquet_filter *a, paimon_parquet_filter *b)
{
	return combine2(out, PM_PQF_AND, a, b);
}

int paimon_parquet_filter_or(paimon_parquet_filter **out, paimon_parquet_filter *a, paimon_parquet_filter *b)
{
	return combine2(out, PM_PQF_OR, a, b);
}

int paimon_parquet_filter_not(paimon_parquet_filter **out, paimon_parquet_filter *a)
{
	if (!out || !a) {
		pm_pq_filter_free(a);
		return pm_err(PAIMON_EINVAL, "paimon_parquet_filter_not: NULL argument");
	}
	return pm_pq_filter_not(out, a);
}

void paimon_parquet_filter_free(paimon_parquet_filter *f)
{
	pm_pq_filter_free(f);
}

int paimon_parquet_reader_metrics(const paimon_parquet_reader *r, paimon_parquet_read_metrics *out)
{
	pm_pq_read_metrics m;
	if (!r || !out)
		return pm_err(PAIMON_EINVAL, "paimon_parquet_reader_metrics: NULL argument");
	pm_pq_reader_metrics(r->r, &m);
	out->row_groups_total = m.row_groups_total;
	out->row_groups_pruned = m.row_groups_pruned;
	out->row_groups_pruned_pages = m.row_groups_pruned_pages;
	out->row_groups_selected = m.row_groups_selected;
	out->row_groups_read = m.row_groups_read;
	out->rows_pruned_pages = m.rows_pruned_pages;
	out->pages_read = m.pages_read;
	out->pages_skipped = m.pages_skipped;
	return 0;
}
