/*
 * read/blob_resolve.c - BLOB columns stored inline as serialized
 * BlobDescriptors (blob-descriptor-field, ai-format §4.6,
 * docs/blob-layout.md §6): a read returns the bytes each descriptor
 * references (unless blob-as-descriptor = true, when the stored
 * descriptors are returned as they are).
 *
 * A descriptor's URI must be a local path ("/abs/path", "file:/abs/path"
 * or "file:///abs/path") without "." or ".." components, inside the
 * table's warehouse or one of the comma-separated prefixes of the read
 * option blob-descriptor.allowed-prefixes; anything else is refused
 * naming the column, the row and the URI (no path traversal through
 * descriptors). Reads go through the FileIO, one ranged read per value.
 */
#include "read/read.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "arrow/arrow_builder.h"
#include "core/error.h"
#include "core/mem.h"
#include "format/blob/blob_descriptor.h"
#include "meta/schema.h"

/* "/abs" from the URI forms we accept, NULL otherwise (borrowed). */
static const char *local_path(const char *uri)
{
	uri = pm_path_strip_file_scheme(uri);
	return uri[0] == '/' ? uri : NULL;
}

static int has_dot_segment(const char *p)
{
	while (*p) {
		const char *e = strchr(p, '/');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if ((len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
			return 1;
		if (!e)
			break;
		p = e + 1;
	}
	return 0;
}

/* 1 if path lies under dir (a directory path, trailing slashes ignored). */
static int under(const char *path, const char *dir, size_t dlen)
{
	while (dlen > 1 && dir[dlen - 1] == '/')
		dlen--;
	return dlen && !strncmp(path, dir, dlen) && (path[dlen] == '/' || (dlen == 1 && dir[0] == '/'));
}

/* The warehouse of a table: <warehouse>/<db>.db/<table>, made absolute. */
static int warehouse_of(const char *table_path, pm_buf *out)
{
	const char *p = pm_path_strip_file_scheme(table_path);
	size_t len;
	int rc, cut = 0;
	pm_buf_clear(out);
	if (p[0] != '/') {
		char cwd[PATH_MAX];
		if (!getcwd(cwd, sizeof cwd))
			return pm_err(PAIMON_EIO, "cannot resolve the warehouse of %s", table_path);
		if ((rc = pm_buf_puts(out, cwd)) || (rc = pm_buf_putc(out, '/')))
			return rc;
	}
	if ((rc = pm_buf_puts(out, p)))
		return rc;
	len = out->len;
	while (len > 1 && out->data[len - 1] == '/')
		len--;
	/* drop the last two components */
	while (len > 1 && cut < 2) {
		while (len > 1 && out->data[len - 1] != '/')
			len--;
		while (len > 1 && out->data[len - 1] == '/')
			len--;
		cut++;
	}
	out->len = len;
	out->data[len] = 0;
	return 0;
}

static int allowed(const char *path, const char *warehouse, const pm_strmap *opts)
{
	const char *v = opts ? pm_strmap_get(opts, "blob-descriptor.allowed-prefixes") : NULL, *d;
	size_t len;
	if (under(path, warehouse, strlen(warehouse)))
		return 1;
	while (pm_csv_next(&v, &d, &len)) {
		if (len >= 7 && !strncmp(d, "file://", 7)) {
			d += 7;
			len -= 7;
		}
		if (len && d[0] == '/' && under(path, d, len))
			return 1;
	}
	return 0;
}

int pm_read_resolve_descriptors(pm_fileio *io, const char *table_path, const pm_strmap *opts, const char *column,
				const struct ArrowSchema *schema, struct ArrowArray *in, struct ArrowArray *out)
{
	pm_array_builder *ab = NULL;
	pm_buf wh = PM_BUF_INIT;
	int large = schema->format && !strcmp(schema->format, "Z");
	int64_t i;
	int rc = 0;
	memset(out, 0, sizeof *out);
	if (!large && !(schema->format && !strcmp(schema->format, "z"))) {
		rc = pm_err(PAIMON_ECORRUPT, "column '%s': blob descriptors in an Arrow '%s' column", column,
			    schema->format ? schema->format : "?");
		goto done;
	}
	if ((rc = warehouse_of(table_path, &wh)))
		goto done;
	if (!(ab = pm_ab_new_binary("Z", 1))) {
		rc = PAIMON_ENOMEM;
		goto done;
	}
	for (i = 0; i < in->length && !rc; i++) {
		int64_t k = in->offset + i;
		const uint8_t *valid = in->null_count == 0 ? NULL : in->buffers[0];
		int64_t a, b;
		pm_blob_descriptor d;
		const char *path;
		pm_file_status st;
		uint64_t len;
		void *dst;
		if (valid && !(valid[k >> 3] >> (k & 7) & 1)) {
			rc = pm_ab_append_nulls(ab, 1);
			continue;
		}
		if (large) {
			a = ((const int64_t *)in->buffers[1])[k];
			b = ((const int64_t *)in->buffers[1])[k + 1];
		} else {
			a = ((const int32_t *)in->buffers[1])[k];
			b = ((const int32_t *)in->buffers[1])[k + 1];
		}
		if (b < a) {
			rc = pm_err(PAIMON_ECORRUPT, "column '%s' row %lld: bad offsets", column, (long long)i);
			break;
		}
		if ((rc = pm_blob_descriptor_decode((const uint8_t *)in->buffers[2] + a, (size_t)(b - a), 1, &d))) {
			pm_err_wrap("column '%s' (blob-descriptor-field) row %lld", column, (long long)i);
			break;
		}
		path = local_path(d.uri);
		if (!path || has_dot_segment(path) || !allowed(path, pm_buf_cstr(&wh), opts)) {
			rc = pm_err(PAIMON_EINVAL,
				    "column '%s' row %lld: blob descriptor '%s' %s (allowed: the warehouse %s and the "
				    "option 'blob-descriptor.allowed-prefixes')",
				    column, (long long)i, d.uri,
				    !path ? "is not a local path" : "points outside the allowed places", pm_buf_cstr(&wh));
			pm_blob_descriptor_dispose(&d);
			break;
		}
		len = (uint64_t)d.length;
		if (d.length < 0) {
			memset(&st, 0, sizeof st);
			rc = pm_fileio_stat(io, path, &st);
			pm_free(st.name);
			if (rc) {
				pm_err_wrap("column '%s' row %lld: blob descriptor '%s'", column, (long long)i, d.uri);
				pm_blob_descriptor_dispose(&d);
				break;
			}
			len = st.size > (uint64_t)d.offset ? st.size - (uint64_t)d.offset : 0;
		}
		if (len > SIZE_MAX / 2) {
			rc = pm_err(PAIMON_EINVAL, "column '%s' row %lld: blob of %llu bytes is too large", column,
				    (long long)i, (unsigned long long)len);
			pm_blob_descriptor_dispose(&d);
			break;
		}
		dst = len ? pm_ab_values_grow(ab, (size_t)len) : NULL;
		if (len && !dst)
			rc = PAIMON_ENOMEM;
		else if (len && (rc = pm_fileio_read_range(io, path, (uint64_t)d.offset, (size_t)len, dst)))
			pm_err_wrap("column '%s' row %lld: blob descriptor '%s' (offset %lld, length %lld)", column,
				    (long long)i, d.uri, (long long)d.offset, (long long)d.length);
		if (!rc)
			rc = pm_ab_append_binary(ab, "", 0);
		pm_blob_descriptor_dispose(&d);
	}
	if (!rc)
		rc = pm_ab_finish(ab, out);
done:
	pm_ab_free(ab);
	pm_buf_dispose(&wh);
	if (in->release)
		in->release(in);
	return rc;
}
