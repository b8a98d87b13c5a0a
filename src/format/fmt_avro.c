/*
 * format/fmt_avro.c - Avro data files behind the file-format interface.
 *
 * Reading: the columns, row ranges and the Paimon fields of the file's
 * schema go to pm_avro_data_reader (the filter is ignored: Avro files
 * have no statistics to prune by; the caller filters exactly anyway).
 * Writing: Java's schema and encoding (avro_data.h), the codec from the
 * table options as Java picks it, no value statistics.
 */
#include "format/fmt_avro.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "codec/codec.h"
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

struct pm_format_wopts {
	char codec[16];
	int level;
};

typedef struct avro_fmt_writer {
	pm_format_writer base;
	pm_fileio *io;
	char *path;
	pm_avro_data_writer *w;
	int closed;
	uint64_t size;
} avro_fmt_writer;

/* Java (AvroFileFormat.createCodecFactory): `avro.codec` when set, else
 * `file.compression` (default zstd) with `file.compression.zstd-level`. */
static int write_options(const pm_strmap *table_options, pm_format_wopts **out)
{
	const char *codec = table_options ? pm_strmap_get(table_options, "avro.codec") : NULL;
	const char *comp = table_options ? pm_strmap_get(table_options, "file.compression") : NULL;
	const char *lvl = table_options ? pm_strmap_get(table_options, "file.compression.zstd-level") : NULL;
	const char *key = codec ? "avro.codec" : "file.compression", *v = codec ? codec : comp ? comp : "zstd";
	pm_format_wopts *o;

	*out = NULL;
	if (!(o = pm_calloc(1, sizeof *o)))
		return PAIMON_ENOMEM;
	o->level = PM_CODEC_LEVEL_DEFAULT;
	if (!strcasecmp(v, "zstd") || !strcasecmp(v, "zstandard"))
		strcpy(o->codec, "zstandard");
	else if (!strcasecmp(v, "snappy"))
		strcpy(o->codec, "snappy");
	else if (!strcasecmp(v, "deflate"))
		strcpy(o->codec, "deflate");
	else if (!strcasecmp(v, "null") || !strcasecmp(v, "none") || !strcasecmp(v, "uncompressed"))
		strcpy(o->codec, "null");
	else {
		pm_free(o);
		return pm_err(PAIMON_EINVAL, "option '%s': Avro data files take zstd, snappy, deflate or none, not '%s'", key,
			      v);
	}
	if (lvl && !strcmp(o->codec, "zstandard")) {
		char *end;
		long l = strtol(lvl, &end, 10);
		if (!*lvl || *end || l < 1 || l > 22) {
			pm_free(o);
			return pm_err(PAIMON_EINVAL, "option 'file.compression.zstd-level': '%s' is not 1..22", lvl);
		}
		o->level = (int)l;
	} else if (!strcmp(o->codec, "zstandard")) {
		o->level = 1; /* Paimon's default zstd level */
	}
	*out = o;
	return 0;
}

static void write_options_free(pm_format_wopts *o)
{
	pm_free(o);
}

static int wr_write(pm_format_writer *w, const struct ArrowArray *batch, const struct ArrowSchema *schema)
{
	avro_fmt_writer *fw = (avro_fmt_writer *)w;
	int rc = pm_avro_data_writer_write(fw->w, batch, schema);
	return rc ? pm_err_wrap("data file %s", fw->path) : 0;
}

static uint64_t wr_bytes(const pm_format_writer *w)
{
	const avro_fmt_writer *fw = (const avro_fmt_writer *)w;
	return fw->closed ? fw->size : pm_avro_data_writer_size(fw->w);
}

static int wr_close(pm_format_writer *w)
{
	avro_fmt_writer *fw = (avro_fmt_writer *)w;
	int rc;
	if (fw->closed)
		return 0;
	if ((rc = pm_avro_data_writer_finish_to(fw->w, fw->io, fw->path)))
		return pm_err_wrap("data file %s", fw->path);
	fw->size = pm_avro_data_writer_size(fw->w);
	fw->closed = 1;
	return 0;
}

/* Avro files carry no statistics (Java's AvroSimpleStatsExtractor records
 * none either): no footer, so the table layer leaves value stats empty. */
static int wr_stats(const pm_format_writer *w, pm_format_file_stats *out)
{
	const avro_fmt_writer *fw = (const avro_fmt_writer *)w;
	if (!fw->closed)
		return pm_err(PAIMON_ERROR, "avro writer: statistics asked before a successful close");
	memset(out, 0, sizeof *out);
	out->row_count = pm_avro_data_writer_rows(fw->w);
	return 0;
}

static void wr_free(pm_format_writer *w)
{
	avro_fmt_writer *fw = (avro_fmt_writer *)w;
	if (!w)
		return;
	/* nothing reaches the file system before close */
	pm_avro_data_writer_free(fw->w);
	pm_free(fw->path);
	pm_free(fw);
}

static int writer_open(pm_fileio *io, const char *path, const pm_type *row, const pm_format_wopts *opt,
		       pm_format_writer **out)
{
	avro_fmt_writer *fw;
	int rc;

	*out = NULL;
	if (!(fw = pm_calloc(1, sizeof *fw)) || !(fw->path = pm_strdup(path))) {
		pm_free(fw);
		return PAIMON_ENOMEM;
	}
	fw->io = io;
	if ((rc = pm_avro_data_writer_new(row, opt ? opt->codec : "zstandard", opt ? opt->level : 1, &fw->w))) {
		rc = pm_err_wrap("data file %s", path);
		wr_free(&fw->base);
		return rc;
	}
	fw->base.format = &pm_format_avro;
	fw->base.write = wr_write;
	fw->base.bytes_written = wr_bytes;
	fw->base.close = wr_close;
	fw->base.stats = wr_stats;
	fw->base.free = wr_free;
	*out = &fw->base;
	return 0;
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
