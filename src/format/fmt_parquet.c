/*
 * format/fmt_parquet.c - Parquet behind the file-format interface.
 */
#include "format/fmt_parquet.h"

#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "core/error.h"
#include "core/mem.h"

typedef struct pq_fmt_reader {
	pm_format_reader base;
	pm_pq_reader *r;
	/* Read-ahead, when threads > 1 but the file has fewer leaf columns
	 * than threads (the column pool cannot use them): a thread decodes the
	 * next batch while the caller works on the current one, one batch in
	 * flight. Readers of several files consumed in turn (the files of a
	 * data-evolution row-id group: backfilled columns, one or a few per
	 * file) so decode in parallel. Files with more columns keep reading on
	 * the caller's thread with their column pool (reading ahead there too
	 * cost CPU and time: more live batch buffers). */
	bool ahead;           /* read ahead (mu and cv initialised) */
	bool started;         /* the thread runs or ran (joined by rd_free) */
	bool full;            /* slot holds the next result */
	bool busy;            /* the thread is decoding */
	bool stop;            /* rd_free asks the thread to end */
	bool term;            /* the caller took the end or an error */
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct ArrowArray slot;
	int slot_eof, slot_rc;
	pm_err_state err;     /* the thread's error for slot_rc */
} pq_fmt_reader;

typedef struct pq_fmt_writer {
	pm_format_writer base;
	pm_pq_writer *w;
} pq_fmt_writer;

struct pm_format_wopts {
	pm_pq_writer_opts pq;
};

/* The read-ahead thread: fills the slot whenever it is empty, until the
 * end, an error or rd_free. */
static void *ahead_main(void *arg)
{
	pq_fmt_reader *fr = arg;
	pthread_mutex_lock(&fr->mu);
	for (;;) {
		struct ArrowArray a;
		int eof = 0, rc;
		while (!fr->stop && fr->full)
			pthread_cond_wait(&fr->cv, &fr->mu);
		if (fr->stop)
			break;
		fr->busy = true;
		pthread_mutex_unlock(&fr->mu);
		rc = pm_pq_reader_next(fr->r, &a, &eof);
		if (rc)
			pm_err_save(&fr->err);
		pthread_mutex_lock(&fr->mu);
		fr->busy = false;
		fr->slot = a;
		fr->slot_rc = rc;
		fr->slot_eof = eof;
		fr->full = true;
		pthread_cond_broadcast(&fr->cv);
		if (rc || eof)
			break;
	}
	pthread_mutex_unlock(&fr->mu);
	return NULL;
}

static int rd_schema(pm_format_reader *r, struct ArrowSchema *out)
{
	pq_fmt_reader *fr = (pq_fmt_reader *)r;
	int rc;
	if (!fr->started)
		return pm_pq_reader_schema(fr->r, out);
	/* not while the thread decodes */
	pthread_mutex_lock(&fr->mu);
	while (fr->busy)
		pthread_cond_wait(&fr->cv, &fr->mu);
	rc = pm_pq_reader_schema(fr->r, out);
	pthread_mutex_unlock(&fr->mu);
	return rc;
}

static int rd_next(pm_format_reader *r, struct ArrowArray *out, int *eof)
{
	pq_fmt_reader *fr = (pq_fmt_reader *)r;
	int rc;
	if (!fr->ahead)
		return pm_pq_reader_next(fr->r, out, eof);
	memset(out, 0, sizeof *out);
	*eof = 0;
	if (fr->term) {
		if (fr->slot_rc) {
			pm_err_restore(&fr->err);
			return fr->slot_rc;
		}
		*eof = 1;
		return 0;
	}
	if (!fr->started) {
		if (pthread_create(&fr->th, NULL, ahead_main, fr) != 0)
			return pm_pq_reader_next(fr->r, out, eof); /* no thread: this one reads */
		fr->started = true;
	}
	pthread_mutex_lock(&fr->mu);
	while (!fr->full)
		pthread_cond_wait(&fr->cv, &fr->mu);
	*out = fr->slot;
	memset(&fr->slot, 0, sizeof fr->slot);
	fr->full = false;
	rc = fr->slot_rc;
	*eof = fr->slot_eof;
	if (rc || fr->slot_eof)
		fr->term = true;
	pthread_cond_broadcast(&fr->cv);
	pthread_mutex_unlock(&fr->mu);
	if (rc)
		pm_err_restore(&fr->err);
	return rc;
}

static int64_t rd_num_rows(const pm_format_reader *r)
{
	return pm_pq_reader_num_rows(((const pq_fmt_reader *)r)->r);
}

static void rd_free(pm_format_reader *r)
{
	pq_fmt_reader *fr = (pq_fmt_reader *)r;
	if (!r)
		return;
	if (fr->started) {
		pthread_mutex_lock(&fr->mu);
		fr->stop = true;
		pthread_cond_broadcast(&fr->cv);
		pthread_mutex_unlock(&fr->mu);
		pthread_join(fr->th, NULL);
		if (fr->full && fr->slot.release)
			fr->slot.release(&fr->slot);
	}
	if (fr->ahead) {
		pthread_cond_destroy(&fr->cv);
		pthread_mutex_destroy(&fr->mu);
	}
	pm_pq_reader_free(fr->r);
	pm_free(r);
}

static int reader_open(pm_fileio *io, const char *path, const pm_format_read_options *opt,
		       pm_format_reader **out)
{
	pm_pq_read_options o = { 0 };
	pq_fmt_reader *fr;
	int rc;

	*out = NULL;
	if (opt) {
		o.columns = opt->columns;
		o.n_columns = opt->n_columns;
		o.batch_rows = opt->batch_rows;
		o.row_ranges = opt->row_ranges;
		o.n_row_ranges = opt->n_row_ranges;
		o.filter = opt->filter;
		o.threads = opt->threads;
	}
	if (!(fr = pm_calloc(1, sizeof *fr)))
		return PAIMON_ENOMEM;
	if ((rc = pm_pq_reader_open(io, path, &o, &fr->r)) != 0) {
		pm_free(fr);
		return rc;
	}
	if (o.threads > 1 && pm_pq_reader_num_leaves(fr->r) < o.threads) {
		if (pthread_mutex_init(&fr->mu, NULL) == 0) {
			if (pthread_cond_init(&fr->cv, NULL) == 0)
				fr->ahead = true;
			else
				pthread_mutex_destroy(&fr->mu);
		}
	}
	fr->base.format = &pm_format_parquet;
	fr->base.schema = rd_schema;
	fr->base.next = rd_next;
	fr->base.num_rows = rd_num_rows;
	fr->base.free = rd_free;
	*out = &fr->base;
	return 0;
}

/* Table option -> Parquet writer option (format/parquet/writer.h). */
static const struct {
	const char *table_key, *pq_key, *dflt;
} wopt_map[] = {
	{ "file.compression", "compression", "zstd" },
	{ "file.compression.zstd-level", "compression.level", NULL },
	{ "parquet.page.size", "page.size", NULL },
	/* parquet-java's ParquetOutputFormat key (default 20,000): smaller pages
	 * make point lookups (row ranges from an index) decode less */
	{ "parquet.page.row.count.limit", "page.row-limit", NULL },
	{ "parquet.enable.dictionary", "dictionary", NULL },
};

static int write_options(const pm_strmap *table_options, pm_format_wopts **out)
{
	pm_format_wopts *o;
	size_t i;

	*out = NULL;
	if (!(o = pm_calloc(1, sizeof *o)))
		return PAIMON_ENOMEM;
	pm_pq_writer_opts_default(&o->pq);
	for (i = 0; i < sizeof wopt_map / sizeof wopt_map[0]; i++) {
		const char *v = table_options ? pm_strmap_get(table_options, wopt_map[i].table_key) : NULL;
		if (!v)
			v = wopt_map[i].dflt;
		if (v && pm_pq_writer_opts_set(&o->pq, wopt_map[i].pq_key, v) != 0) {
			pm_free(o);
			return pm_err_wrap("option '%s'", wopt_map[i].table_key);
		}
	}
	*out = o;
	return 0;
}

#define DEFAULT_ROW_GROUP_SIZE (128LL << 20)

static int write_options_target(pm_format_wopts *o, const pm_strmap *table_options, int64_t target_file_size)
{
	int64_t rg = DEFAULT_ROW_GROUP_SIZE;
	const char *v = table_options ? pm_strmap_get(table_options, "parquet.block.size") : NULL;
	int rc;
	if (v && (rc = pm_parse_memory_size("parquet.block.size", v, &rg)))
		return rc;
	if (rg > target_file_size)
		rg = target_file_size;
	if (rg < 1)
		rg = 1;
	o->pq.row_group_size = rg;
	return 0;
}

static void write_options_free(pm_format_wopts *o)
{
	pm_free(o);
}

static int wr_write(pm_format_writer *w, const struct ArrowArray *batch, const struct ArrowSchema *schema)
{
	return pm_pq_writer_write(((pq_fmt_writer *)w)->w, batch, schema);
}

static uint64_t wr_bytes(const pm_format_writer *w)
{
	return pm_pq_writer_bytes_written(((const pq_fmt_writer *)w)->w);
}

static int wr_close(pm_format_writer *w)
{
	return pm_pq_writer_close(((pq_fmt_writer *)w)->w);
}

static int wr_stats(const pm_format_writer *w, pm_format_file_stats *out)
{
	const pm_pq_file_meta *fm = pm_pq_writer_file_meta(((const pq_fmt_writer *)w)->w);
	if (!fm)
		return pm_err(PAIMON_ERROR, "parquet writer: statistics asked before a successful close");
	out->parquet_meta = fm;
	out->row_count = fm->num_rows;
	return 0;
}

static void wr_free(pm_format_writer *w)
{
	if (!w)
		return;
	pm_pq_writer_free(((pq_fmt_writer *)w)->w);
	pm_free(w);
}

static int writer_open(pm_fileio *io, const char *path, const pm_type *row, const pm_format_wopts *opt,
		       pm_format_writer **out)
{
	pq_fmt_writer *fw;
	int rc;

	*out = NULL;
	if (!(fw = pm_calloc(1, sizeof *fw)))
		return PAIMON_ENOMEM;
	if ((rc = pm_pq_writer_open(io, path, row, opt ? &opt->pq : NULL, &fw->w)) != 0) {
		pm_free(fw);
		return rc;
	}
	fw->base.format = &pm_format_parquet;
	fw->base.write = wr_write;
	fw->base.bytes_written = wr_bytes;
	fw->base.close = wr_close;
	fw->base.stats = wr_stats;
	fw->base.free = wr_free;
	*out = &fw->base;
	return 0;
}

const pm_format pm_format_parquet = {
	.name = "parquet",
	.extension = ".parquet",
	.reader_open = reader_open,
	.write_options = write_options,
	.write_options_free = write_options_free,
	.write_options_target = write_options_target,
	.writer_open = writer_open,
};
