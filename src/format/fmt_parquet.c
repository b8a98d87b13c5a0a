/*
 * format/fmt_parquet.c - Parquet behind the file-format interface.
 */
#include "format/fmt_parquet.h"

#include "core/error.h"
#include "core/mem.h"

typedef struct pq_fmt_reader {
	pm_format_reader base;
	pm_pq_reader *r;
} pq_fmt_reader;

typedef struct pq_fmt_writer {
	pm_format_writer base;
	pm_pq_writer *w;
} pq_fmt_writer;

struct pm_format_wopts {
	pm_pq_writer_opts pq;
};

static int rd_schema(pm_format_reader *r, struct ArrowSchema *out)
{
	return pm_pq_reader_schema(((pq_fmt_reader *)r)->r, out);
}

static int rd_next(pm_format_reader *r, struct ArrowArray *out, int *eof)
{
	return pm_pq_reader_next(((pq_fmt_reader *)r)->r, out, eof);
}

static int64_t rd_num_rows(const pm_format_reader *r)
{
	return pm_pq_reader_num_rows(((const pq_fmt_reader *)r)->r);
}

static void rd_free(pm_format_reader *r)
{
	if (!r)
		return;
	pm_pq_reader_free(((pq_fmt_reader *)r)->r);
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
