/*
 * io/outstream.c - pm_fileio_open_write, with an in-memory fallback for
 * FileIO implementations without streaming output: the bytes are collected
 * and written with write_overwrite when the stream is closed.
 */
#include "io/fileio.h"
#include "core/mem.h"

typedef struct mem_out {
	pm_out_stream base;
	pm_fileio *io;
	char *path;
	pm_buf buf;
} mem_out;

static int mem_out_append(pm_out_stream *s, const void *data, size_t len)
{
	mem_out *o = (mem_out *)s;
	return pm_buf_append(&o->buf, data, len);
}

static void mem_out_free(mem_out *o)
{
	pm_buf_dispose(&o->buf);
	pm_free(o->path);
	pm_free(o);
}

static int mem_out_close(pm_out_stream *s)
{
	mem_out *o = (mem_out *)s;
	int rc = pm_fileio_write_overwrite(o->io, o->path, o->buf.data ? o->buf.data : "", o->buf.len);
	mem_out_free(o);
	return rc;
}

static void mem_out_abort(pm_out_stream *s)
{
	mem_out_free((mem_out *)s);
}

static int buf_out_append(pm_out_stream *s, const void *data, size_t len)
{
	return pm_buf_append(((pm_buf_out *)s)->dst, data, len);
}

static int buf_out_close(pm_out_stream *s)
{
	(void)s;
	return 0;
}

static void buf_out_abort(pm_out_stream *s)
{
	(void)s;
}

void pm_buf_out_init(pm_buf_out *o, pm_buf *dst)
{
	o->base.append = buf_out_append;
	o->base.close = buf_out_close;
	o->base.abort = buf_out_abort;
	o->dst = dst;
}

int pm_fileio_open_write(pm_fileio *io, const char *path, pm_out_stream **out)
{
	mem_out *o;
	*out = NULL;
	if (io->ops->open_write)
		return io->ops->open_write(io, path, out);
	if (!(o = pm_calloc(1, sizeof *o)))
		return PAIMON_ENOMEM;
	if (!(o->path = pm_strdup(path))) {
		pm_free(o);
		return PAIMON_ENOMEM;
	}
	o->io = io;
	o->base.append = mem_out_append;
	o->base.close = mem_out_close;
	o->base.abort = mem_out_abort;
	*out = &o->base;
	return 0;
}
