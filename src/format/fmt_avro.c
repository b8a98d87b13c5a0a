/*
 * format/fmt_avro.c - Avro data files behind the file-format interface.
 *
 * Reading: the columns, row ranges and the Paimon fields of the file's
 * schema go to pm_avro_data_reader (the filter is ignored: Avro files
 * have no statistics to prune by; the caller filters exactly anyway).
 */
#include "format/fmt_avro.h"

#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "format/avro/avro_data.h"

typedef struct avro_fmt_reader {
	pm_format_reader base;
	pm_avro_data_reader *r;
} avro_fmt_reader;

static int rd_schema(pm_format_reader *r, struct ArrowSchema *out)
{
	return pm_avro_data_reader_schema(((avro_fmt_reader *)r)->r, out);
}

static int rd_next(pm_format_reader *r, struct ArrowArray *out, int *eof)
{
	return pm_avro_data_reader_next(((avro_fmt_reader *)r)->r, out, eof);
}

static int64_t rd_num_rows(const pm_format_reader *r)
{
	return pm_avro_data_reader_num_rows(((const avro_fmt_reader *)r)->r);
}

static void rd_free(pm_format_reader *r)
{
	if (!r)
		return;
	pm_avro_data_reader_free(((avro_fmt_reader *)r)->r);
	pm_free(r);
}

static int reader_open(pm_fileio *io, const char *path, const pm_format_read_options *opt,
		       pm_format_reader **out)
{
	pm_avro_data_options o;
	avro_fmt_reader *fr;
	int rc;

	*out = NULL;
	memset(&o, 0, sizeof o);
	if (opt) {
		o.columns = opt->columns;
		o.n_columns = opt->n_columns;
		o.batch_rows = opt->batch_rows;
		o.row_ranges = opt->row_ranges;
		o.n_row_ranges = opt->n_row_ranges;
		o.fields = opt->fields;
		o.n_fields = opt->n_fields;
	}
	if (!(fr = pm_calloc(1, sizeof *fr)))
		return PAIMON_ENOMEM;
	if ((rc = pm_avro_data_reader_open(io, path, &o, &fr->r)) != 0) {
		pm_free(fr);
		return rc;
	}
	fr->base.format = &pm_format_avro;
	fr->base.schema = rd_schema;
	fr->base.next = rd_next;
	fr->base.num_rows = rd_num_rows;
	fr->base.free = rd_free;
	*out = &fr->base;
	return 0;
}

static int write_options(const pm_strmap *table_options, pm_format_wopts **out)
{
	(void)table_options;
	*out = NULL;
	return pm_err(PAIMON_EUNSUPPORTED, "file format 'avro': paimonc reads Avro data files but does not write them yet");
}

static void write_options_free(pm_format_wopts *o)
{
	pm_free(o);
}

static int writer_open(pm_fileio *io, const char *path, const pm_type *row, const pm_format_wopts *opt,
		       pm_format_writer **out)
{
	(void)io;
	(void)row;
	(void)opt;
	*out = NULL;
	return pm_err(PAIMON_EUNSUPPORTED, "file format 'avro': cannot write %s (Avro data files are read only)", path);
}

const pm_format pm_format_avro = {
	.name = "avro",
	.extension = ".avro",
	.reader_open = reader_open,
	.write_options = write_options,
	.write_options_free = write_options_free,
	.write_options_target = NULL,
	.writer_open = writer_open,
};
