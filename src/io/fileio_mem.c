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

static int mem_range(const uint8_t *data, size_t n, const char *path, uint64_t off, size_t len, void *dst)
{
	if (off > n || len > n - off)
		return pm_err(PAIMON_ECORRUPT, "%s: read of %zu bytes at %llu past the end (%zu bytes)", path, len,
			      (unsigned long long)off, n);
	if (len)
		memcpy(dst, data + off, len);
	return 0;
}

static int mem_read_range(pm_fileio *io, const char *path, uint64_t off, size_t len, void *dst)
{
	mem_io *m = (mem_io *)io;
	return mem_range(m->data, m->len, path, off, len, dst);
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

/* A handle over the bytes (the FileIO's data outlive it as they outlive the
 * FileIO). */
typedef struct mem_in {
	pm_in_file base;
	const uint8_t *data;
	size_t len;
	char *path;
} mem_in;

static int mem_in_read_at(pm_in_file *f, uint64_t off, size_t len, void *dst)
{
	mem_in *m = (mem_in *)f;
	return mem_range(m->data, m->len, m->path, off, len, dst);
}

static uint64_t mem_in_length(pm_in_file *f)
{
	return ((mem_in *)f)->len;
}

static void mem_in_close(pm_in_file *f)
{
	mem_in *m = (mem_in *)f;
	pm_free(m->path);
	pm_free(m);
}

static int mem_open_read(pm_fileio *io, const char *path, pm_in_file **out)
{
	mem_io *m = (mem_io *)io;
	mem_in *h;
	*out = NULL;
	if (!(h = pm_calloc(1, sizeof *h)) || !(h->path = pm_strdup(path))) {
		pm_free(h);
		return PAIMON_ENOMEM;
	}
	h->data = m->data;
	h->len = m->len;
	h->base.read_at = mem_in_read_at;
	h->base.length = mem_in_length;
	h->base.close = mem_in_close;
	*out = &h->base;
	return 0;
}

static void mem_close(pm_fileio *io)
{
	pm_free(io);
}

static const pm_fileio_ops mem_ops = {
	mem_read_all, mem_read_range, mem_stat, mem_ro, mem_ro, mem_list, mem_exists,
	mem_path_ro, mem_path_ro, mem_path_ro, mem_rename, mem_close, NULL, NULL, mem_open_read,
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
