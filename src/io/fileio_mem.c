/*
 * io/fileio_mem.c - a read-only FileIO over one in-memory file: every path
 * names the same bytes. Used to parse untrusted bytes (fuzzing) through the
 * same code paths as real files.
 */
#include "io/fileio.h"
#include "core/error.h"
#include "core/mem.h"

#include <stdint.h>
#include <string.h>


typedef struct mem_io {
	pm_fileio base;
	const uint8_t *data;
	size_t len;
} mem_io;

static int mem_read_all(pm_fileio *io, const char *path, pm_buf *out)
{
	mem_io *m = (mem_io *)io;
	return pm_buf_append(out, m->data, m->len);
}

static int mem_read_range(pm_fileio *io, const char *path, uint64_t off, size_t len, void *dst)
{
	mem_io *m = (mem_io *)io;
	if (off > m->len || len > m->len - off)
		return pm_err(PAIMON_ECORRUPT, "%s: read of %zu bytes at %llu past the end (%zu bytes)", path, len,
			      (unsigned long long)off, m->len);
	if (len)
		memcpy(dst, m->data + off, len);
	return 0;
}

static int mem_stat(pm_fileio *io, const char *path, pm_file_status *st)
{
	mem_io *m = (mem_io *)io;
	memset(st, 0, sizeof *st);
	st->size = m->len;
	return 0;
}

static int mem_ro(pm_fileio *io, const char *path, const void *d, size_t n)
{
	return pm_err(PAIMON_EUNSUPPORTED, "%s: memory fileio is read-only", path);
}

static int mem_list(pm_fileio *io, const char *dir, pm_file_list *out)
{
	return pm_err(PAIMON_EUNSUPPORTED, "%s: memory fileio cannot list", dir);
}

static int mem_exists(pm_fileio *io, const char *path, int *e)
{
	*e = 1;
	return 0;
}

static int mem_path_ro(pm_fileio *io, const char *path)
{
	return pm_err(PAIMON_EUNSUPPORTED, "%s: memory fileio is read-only", path);
}

static int mem_rename(pm_fileio *io, const char *s, const char *d)
{
	return pm_err(PAIMON_EUNSUPPORTED, "%s: memory fileio is read-only", s);
}

static void mem_close(pm_fileio *io)
{
	pm_free(io);
}

static const pm_fileio_ops mem_ops = {
	mem_read_all, mem_read_range, mem_stat, mem_ro, mem_ro, mem_list, mem_exists,
	mem_path_ro, mem_path_ro, mem_path_ro, mem_rename, mem_close, NULL, NULL,
};

int pm_fileio_mem_new(const void *data, size_t len, pm_fileio **out)
{
	mem_io *m = pm_calloc(1, sizeof *m);
	if (!m)
		return PAIMON_ENOMEM;
	m->base.ops = &mem_ops;
	m->data = data;
	m->len = len;
	*out = &m->base;
	return 0;
}
