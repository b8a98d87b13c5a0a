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
	}
	if (!(h = pm_calloc(1, sizeof *h)))
		return PAIMON_ENOMEM;
	if ((rc = pm_fileio_local_new(&h->io)) || (rc = pm_pq_reader_open(h->io, path, &opt, &h->r))) {
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
	if ((rc = pm_fileio_local_new(&io)))
		return rc;
	rc = pm_pq_file_meta_json(io, path, with_pages, out);
	pm_fileio_close(io);
	return rc;
}
