/* api/api_parquet_write.c - public Parquet writer API over format/parquet/writer.h. */
#include "paimonc/parquet_writer.h"
#include "paimonc/options.h"

#include <string.h>

#include "arrow/arrow_builder.h"
#include "core/error.h"
#include "core/mem.h"
#include "format/parquet/writer.h"
#include "io/fileio.h"

struct paimon_parquet_writer {
	pm_fileio *io;
	pm_pq_writer *w;
	struct ArrowSchema schema; /* deep copy */
};

static int copy_schema(const struct ArrowSchema *src, struct ArrowSchema *dst, int depth)
{
	int64_t i;
	int rc;
	if (!src || !src->format || !src->release)
		return pm_err(PAIMON_EINVAL, "invalid or released ArrowSchema");
	if (depth > 128)
		return pm_err(PAIMON_EINVAL, "ArrowSchema nested too deeply");
	if (src->dictionary)
		return pm_err(PAIMON_EUNSUPPORTED, "Parquet writer: dictionary-encoded Arrow field '%s' is not supported",
			src->name ? src->name : "");
	if ((rc = pm_aschema_init(dst, src->format, src->name, src->flags, src->n_children)))
		return rc;
	for (i = 0; i < src->n_children; i++)
		if ((rc = copy_schema(src->children[i], dst->children[i], depth + 1)))
			return rc;
	return 0;
}

static int opts_from(const paimon_options *opts, pm_pq_writer_opts *o)
{
	size_t i, n = paimon_options_count(opts);
	int rc;
	pm_pq_writer_opts_default(o);
	for (i = 0; i < n; i++)
		if ((rc = pm_pq_writer_opts_set(o, paimon_options_key(opts, i), paimon_options_value(opts, i))))
			return rc;
	return 0;
}

PAIMON_EXTERN(int) paimon_parquet_writer_open(paimon_parquet_writer **out, const char *path,
	const struct ArrowSchema *schema, const paimon_options *opts)
{
	paimon_parquet_writer *pw;
	pm_pq_writer_opts o;
	int rc;
	if (!out)
		return pm_err(PAIMON_EINVAL, "paimon_parquet_writer_open: out is NULL");
	*out = NULL;
	if (!path || !schema)
		return pm_err(PAIMON_EINVAL, "paimon_parquet_writer_open: path and schema are required");
	if ((rc = opts_from(opts, &o)))
		return rc;
	if (!(pw = pm_calloc(1, sizeof *pw)))
		return PAIMON_ENOMEM;
	if ((rc = copy_schema(schema, &pw->schema, 0)) || (rc = pm_fileio_default_new(&pw->io)) ||
	    (rc = pm_pq_writer_open_arrow(pw->io, path, &pw->schema, &o, &pw->w))) {
		paimon_parquet_writer_free(pw);
		return rc;
	}
	*out = pw;
	return 0;
}

PAIMON_EXTERN(int) paimon_parquet_writer_write(paimon_parquet_writer *w, const struct ArrowArray *batch)
{
	if (!w || !batch)
		return pm_err(PAIMON_EINVAL, "paimon_parquet_writer_write: NULL argument");
	return pm_pq_writer_write(w->w, batch, &w->schema);
}

PAIMON_EXTERN(int) paimon_parquet_writer_close(paimon_parquet_writer *w)
{
	if (!w)
		return pm_err(PAIMON_EINVAL, "paimon_parquet_writer_close: NULL writer");
	return pm_pq_writer_close(w->w);
}

PAIMON_EXTERN(void) paimon_parquet_writer_free(paimon_parquet_writer *w)
{
	if (!w)
		return;
	pm_pq_writer_free(w->w);
	if (w->schema.release)
		w->schema.release(&w->schema);
	pm_fileio_close(w->io);
	pm_free(w);
}

/* The stream is consumed (released) on every path, see parquet_writer.h. */
static int write_stream(const char *path, struct ArrowArrayStream *stream, const paimon_options *opts)
{
	struct ArrowSchema s;
	paimon_parquet_writer *w = NULL;
	int rc, e;
	memset(&s, 0, sizeof s);
	if ((e = stream->get_schema(stream, &s)) != 0) {
		const char *m = stream->get_last_error ? stream->get_last_error(stream) : NULL;
		return pm_err(PAIMON_EINVAL, "Arrow stream get_schema failed (errno %d): %s", e, m ? m : "");
	}
	rc = paimon_parquet_writer_open(&w, path, &s, opts);
	if (s.release)
		s.release(&s);
	if (rc)
		return rc;
	for (;;) {
		struct ArrowArray a;
		memset(&a, 0, sizeof a);
		if ((e = stream->get_next(stream, &a)) != 0) {
			const char *m = stream->get_last_error ? stream->get_last_error(stream) : NULL;
			rc = pm_err(PAIMON_EINVAL, "Arrow stream get_next failed (errno %d): %s", e, m ? m : "");
			break;
		}
		if (!a.release)
			break;
		rc = paimon_parquet_writer_write(w, &a);
		a.release(&a);
		if (rc)
			break;
	}
	if (!rc)
		rc = paimon_parquet_writer_close(w);
	paimon_parquet_writer_free(w);
	return rc;
}

PAIMON_EXTERN(int) paimon_parquet_write_stream(const char *path, struct ArrowArrayStream *stream,
	const paimon_options *opts)
{
	int rc;
	if (!stream || !stream->release)
		return pm_err(PAIMON_EINVAL, "paimon_parquet_write_stream: NULL or released stream");
	rc = write_stream(path, stream, opts);
	stream->release(stream);
	stream->release = NULL;
	return rc;
}
