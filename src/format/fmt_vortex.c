/*
 * format/fmt_vortex.c - Vortex behind the file-format interface (see
 * fmt_vortex.h; the work is format/vortex/vx.c and the shim).
 */
#include "format/fmt_vortex.h"

#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "format/vortex/vx.h"

typedef struct vx_fmt_reader {
	pm_format_reader base;
	pm_vx_reader *r;
} vx_fmt_reader;

typedef struct vx_fmt_writer {
	pm_format_writer base;
	pm_vx_writer *w;
	int64_t rows;         /* after a successful close, else -1 */
} vx_fmt_writer;

/* Vortex takes no writer options today; the struct exists so that callers
 * treat every format alike. */
struct pm_format_wopts {
	int unused;
};

static int rd_schema(pm_format_reader *r, struct ArrowSchema *out)
{
	return pm_vx_reader_schema(((vx_fmt_reader *)r)->r, out);
}

static int rd_next(pm_format_reader *r, struct ArrowArray *out, int *eof)
{
	return pm_vx_reader_next(((vx_fmt_reader *)r)->r, out, eof);
}

static int64_t rd_num_rows(const pm_format_reader *r)
{
	return pm_vx_reader_num_rows(((const vx_fmt_reader *)r)->r);
}

static void rd_free(pm_format_reader *r)
{
	if (!r)
		return;
	pm_vx_reader_free(((vx_fmt_reader *)r)->r);
	pm_free(r);
}

static int reader_open(pm_fileio *io, const char *path, const pm_format_read_options *opt,
		       pm_format_reader **out)
{
	vx_fmt_reader *fr;
	int rc;

	*out = NULL;
	if (!(fr = pm_calloc(1, sizeof *fr)))
		return PAIMON_ENOMEM;
	rc = pm_vx_reader_open(io, path, opt ? opt->columns : NULL, opt ? opt->n_columns : 0,
			       opt ? opt->row_ranges : NULL, opt ? opt->n_row_ranges : 0, &fr->r);
	if (rc) {
		pm_free(fr);
		return rc;
	}
	fr->base.format = &pm_format_vortex;
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
	if (!(*out = pm_calloc(1, sizeof **out)))
		return PAIMON_ENOMEM;
	return 0;
}

static void write_options_free(pm_format_wopts *o)
{
	pm_free(o);
}

static int wr_write(pm_format_writer *w, const struct ArrowArray *batch, const struct ArrowSchema *schema)
{
	(void)schema; /* the batch has the row type given at open */
	return pm_vx_writer_write(((vx_fmt_writer *)w)->w, batch);
}

static uint64_t wr_bytes(const pm_format_writer *w)
{
	return pm_vx_writer_bytes_written(((const vx_fmt_writer *)w)->w);
}

static int wr_close(pm_format_writer *w)
{
	vx_fmt_writer *fw = (vx_fmt_writer *)w;
	return pm_vx_writer_close(fw->w, &fw->rows);
}

static int wr_stats(const pm_format_writer *w, pm_format_file_stats *out)
{
	const vx_fmt_writer *fw = (const vx_fmt_writer *)w;
	if (fw->rows < 0)
		return pm_err(PAIMON_ERROR, "vortex writer: statistics asked before a successful close");
	memset(out, 0, sizeof *out);
	out->row_count = fw->rows;
	return 0;
}

static void wr_free(pm_format_writer *w)
{
	if (!w)
		return;
	pm_vx_writer_free(((vx_fmt_writer *)w)->w);
	pm_free(w);
}

static int writer_open(pm_fileio *io, const char *path, const pm_type *row, const pm_format_wopts *opt,
		       pm_format_writer **out)
{
	struct ArrowSchema s;
	vx_fmt_writer *fw;
	int rc;

	(void)opt;
	*out = NULL;
	if (!(fw = pm_calloc(1, sizeof *fw)))
		return PAIMON_ENOMEM;
	fw->rows = -1;
	memset(&s, 0, sizeof s);
	if ((rc = pm_type_to_arrow(row, "", &s))) {
		pm_free(fw);
		return rc;
	}
	rc = pm_vx_writer_open(io, path, &s, &fw->w);
	s.release(&s);
	if (rc) {
		pm_free(fw);
		return rc;
	}
	fw->base.format = &pm_format_vortex;
	fw->base.write = wr_write;
	fw->base.bytes_written = wr_bytes;
	fw->base.close = wr_close;
	fw->base.stats = wr_stats;
	fw->base.free = wr_free;
	*out = &fw->base;
	return 0;
}

const pm_format pm_format_vortex = {
	.name = "vortex",
	.extension = ".vortex",
	.reader_open = reader_open,
	.write_options = write_options,
	.write_options_free = write_options_free,
	.write_options_target = NULL,
	.writer_open = writer_open,
};
