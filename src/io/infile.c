/*
 * io/infile.c - pm_fileio_open_read, with a fallback handle for FileIO
 * implementations without open_read (stat once at open, then read_range for
 * every read), and read_all / read_range helpers over a handle.
 */
#include "io/fileio.h"
#include "core/error.h"
#include "core/mem.h"

#include <string.h>

int pm_in_truncated(const char *path, uint64_t off, size_t len, size_t missing)
{
	return pm_err(PAIMON_ECORRUPT, "'%s' is truncated: wanted %zu bytes at offset %llu, file ends %zu bytes early",
		      path, len, (unsigned long long)off, missing);
}

typedef struct range_in {
	pm_in_file base;
	pm_fileio *io;
	uint64_t len;
	char *path;
} range_in;

static int range_read_at(pm_in_file *f, uint64_t off, size_t len, void *dst)
{
	range_in *r = (range_in *)f;
	if (!len)
		return 0;
	return pm_fileio_read_range(r->io, r->path, off, len, dst);
}

static uint64_t range_length(pm_in_file *f)
{
	return ((range_in *)f)->len;
}

static void range_close(pm_in_file *f)
{
	range_in *r = (range_in *)f;
	pm_free(r->path);
	pm_free(r);
}

int pm_fileio_open_read(pm_fileio *io, const char *path, pm_in_file **out)
{
	pm_file_status st;
	range_in *r;
	int rc;
	*out = NULL;
	if (io->ops->open_read)
		return io->ops->open_read(io, path, out);
	memset(&st, 0, sizeof st);
	if ((rc = pm_fileio_stat(io, path, &st)))
		return rc;
	if (st.is_dir)
		return pm_err(PAIMON_EIO, "cannot read '%s': is a directory", path);
	if (!(r = pm_calloc(1, sizeof *r)))
		return PAIMON_ENOMEM;
	if (!(r->path = pm_strdup(path))) {
		pm_free(r);
		return PAIMON_ENOMEM;
	}
	r->io = io;
	r->len = st.size;
	r->base.read_at = range_read_at;
	r->base.length = range_length;
	r->base.close = range_close;
	*out = &r->base;
	return 0;
}

int pm_fileio_read_all_via_open(pm_fileio *io, const char *path, pm_buf *out)
{
	pm_in_file *f;
	uint64_t n;
	int rc;
	if ((rc = pm_fileio_open_read(io, path, &f)))
		return rc;
	n = pm_in_length(f);
	if (n >= SIZE_MAX) {
		pm_in_close(f);
		return pm_err(PAIMON_ENOMEM, "cannot read '%s': %llu bytes do not fit in memory", path,
			      (unsigned long long)n);
	}
	if (!(rc = pm_buf_reserve(out, (size_t)n)) && !(rc = pm_in_pread(f, 0, (size_t)n, out->data + out->len))) {
		out->len += (size_t)n;
		out->data[out->len] = '\0';
	}
	pm_in_close(f);
	return rc;
}

int pm_fileio_read_range_via_open(pm_fileio *io, const char *path, uint64_t off, size_t len, void *dst)
{
	pm_in_file *f;
	int rc;
	if ((rc = pm_fileio_open_read(io, path, &f)))
		return rc;
	rc = pm_in_pread(f, off, len, dst);
	pm_in_close(f);
	return rc;
}
