/*
 * write/rolling.c - rolling file writers (see rolling.h).
 */
#include "write/rolling.h"

#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "core/uuid.h"
#include "format/blob/blob_descriptor.h"
#include "format/blob/blob_file.h"
#include "format/blob/blob_nested.h"

#define SLICE_ROWS 262144

/* A column subset of the batch as a struct view (no copy). */
typedef struct proj {
	struct ArrowArray arr;
	struct ArrowSchema sch;
	struct ArrowArray **ach;
	struct ArrowSchema **sch_ch;
} proj;

/* One file of the set: the data file (spec NULL) or a companion. */
typedef struct rfile {
	const pm_format *format;
	const pm_format_wopts *wopts;
	const pm_type *row;
	const size_t *columns;     /* NULL: all */
	size_t n_columns;
	const char *extension;
	int64_t target_size;       /* <= 0: none of its own */
	int64_t roll_rows;         /* > 0: rolls alone (pm_roll_companion) */
	pm_format_writer *fw;      /* open file or NULL */
	char *name;                /* of the open (or last) file */
	proj p;
	/* rolling alone: rows of the open file, closed files' metas */
	int64_t piece_rows;
	pm_data_file_meta *done;
	size_t n_done, cap_done;
} rfile;

/* The .blob stream of one BLOB column. */
typedef struct rblob {
	pm_blob_writer *bw;        /* open file or NULL */
	char *name;                /* of the open file */
	int64_t rows;              /* rows of the open file */
	pm_data_file_meta *done;   /* closed files of the current data file */
	size_t n_done, cap_done;
} rblob;

struct pm_roll_set {
	const pm_roll_config *cfg;
	void *ctx;
	char *dir;
	char uuid[PM_UUID_STR_LEN + 1];
	int64_t file_n;            /* next file counter */
	int64_t seq;               /* next sequence number */
	int64_t cur_rows;
	int64_t cur_min_seq;
	int open;                  /* files of the set are open */
	rfile *files;              /* [0] data, [1 + k] companion k */
	size_t n_files;
	rblob *blobs;              /* one per cfg->blobs */
};

static void view_release(struct ArrowArray *a)
{
	a->release = NULL;
}

int pm_roll_set_new(const pm_roll_config *cfg, const char *dir, void *ctx, pm_roll_set **out)
{
	pm_roll_set *rs;
	size_t i;
	int rc;
	*out = NULL;
	if (!(rs = pm_calloc(1, sizeof *rs)))
		return PAIMON_ENOMEM;
	rs->cfg = cfg;
	rs->ctx = ctx;
	rs->n_files = 1 + cfg->n_companions;
	if (!(rs->dir = pm_strdup(dir)) || !(rs->files = pm_calloc(rs->n_files, sizeof *rs->files)) ||
	    !(rs->blobs = pm_calloc(cfg->n_blobs + 1, sizeof *rs->blobs))) {
		pm_roll_set_free(rs);
		return PAIMON_ENOMEM;
	}
	if ((rc = pm_uuid_v4(rs->uuid))) {
		pm_roll_set_free(rs);
		return rc;
	}
	for (i = 0; i < rs->n_files; i++) {
		rfile *f = &rs->files[i];
		if (i == 0) {
			f->format = cfg->format;
			f->wopts = cfg->wopts;
			f->row = cfg->row;
			f->columns = cfg->columns;
			f->n_columns = cfg->n_columns;
			f->extension = cfg->extension;
		} else {
			const pm_roll_companion *c = &cfg->companions[i - 1];
			f->format = c->format;
			f->wopts = c->wopts;
			f->row = c->row;
			f->columns = c->columns;
			f->n_columns = c->n_columns;
			f->extension = c->extension;
			f->target_size = c->target_size;
			f->roll_rows = c->roll_rows;
		}
		if (f->columns && (!(f->p.ach = pm_calloc(f->n_columns ? f->n_columns : 1, sizeof *f->p.ach)) ||
				   !(f->p.sch_ch = pm_calloc(f->n_columns ? f->n_columns : 1, sizeof *f->p.sch_ch)))) {
			pm_roll_set_free(rs);
			return PAIMON_ENOMEM;
		}
	}
	*out = rs;
	return 0;
}

static void drop_blobs(pm_roll_set *rs)
{
	size_t i, j;
	for (i = 0; rs->blobs && i < rs->cfg->n_blobs; i++) {
		rblob *b = &rs->blobs[i];
		pm_blob_writer_abort(b->bw);
		b->bw = NULL;
		b->rows = 0;
		for (j = 0; j < b->n_done; j++)
			pm_data_file_meta_dispose(&b->done[j]);
		b->n_done = 0;
	}
}

/* Frees the set's open writers (their unfinished files are removed). */
static void drop_writers(pm_roll_set *rs)
{
	size_t i;
	for (i = 0; i < rs->n_files; i++) {
		rfile *f = &rs->files[i];
		size_t j;
		pm_format_writer_free(f->fw);
		f->fw = NULL;
		f->piece_rows = 0;
		for (j = 0; j < f->n_done; j++)
			pm_data_file_meta_dispose(&f->done[j]);
		f->n_done = 0;
	}
	drop_blobs(rs);
	rs->open = 0;
}

void pm_roll_set_free(pm_roll_set *rs)
{
	size_t i;
	if (!rs)
		return;
	for (i = 0; rs->files && i < rs->n_files; i++) {
		rfile *f = &rs->files[i];
		size_t j;
		pm_format_writer_free(f->fw);
		pm_free(f->name);
		pm_free(f->p.ach);
		pm_free(f->p.sch_ch);
		for (j = 0; j < f->n_done; j++)
			pm_data_file_meta_dispose(&f->done[j]);
		pm_free(f->done);
	}
	pm_free(rs->files);
	if (rs->blobs) {
		drop_blobs(rs);
		for (i = 0; i < rs->cfg->n_blobs; i++) {
			pm_free(rs->blobs[i].name);
			pm_free(rs->blobs[i].done);
		}
		pm_free(rs->blobs);
	}
	pm_free(rs->dir);
	pm_free(rs);
}

static int open_files(pm_roll_set *rs)
{
	const pm_roll_config *cfg = rs->cfg;
	size_t i;
	int rc;
	if (!rs->file_n && (rc = pm_fileio_mkdirs(cfg->io, rs->dir)))
		return rc;
	for (i = 0; i < rs->n_files; i++) {
		rfile *f = &rs->files[i];
		size_t n = strlen(cfg->prefix) + strlen(f->extension) + PM_UUID_STR_LEN + 24;
		char *path;
		if (f->roll_rows > 0)
			continue; /* opened with its first row (piece_open) */
		pm_free(f->name);
		if (!(f->name = pm_malloc(n))) {
			drop_writers(rs);
			return PAIMON_ENOMEM;
		}
		snprintf(f->name, n, "%s%s-%lld%s", cfg->prefix, rs->uuid, (long long)rs->file_n, f->extension);
		if (!(path = pm_path_join(rs->dir, f->name))) {
			drop_writers(rs);
			return PAIMON_ENOMEM;
		}
		rc = f->format->writer_open(cfg->io, path, f->row, f->wopts, &f->fw);
		pm_free(path);
		if (rc) {
			drop_writers(rs);
			return rc;
		}
	}
	rs->file_n++;
	rs->open = 1;
	rs->cur_rows = 0;
	rs->cur_min_seq = rs->seq;
	return 0;
}

/* The meta of file i's closed file f->name (rows rows from sequence
 * number min_seq on) into *out. */
static int file_meta(pm_roll_set *rs, size_t i, int64_t rows, int64_t min_seq, pm_data_file_meta *out)
{
	const pm_roll_config *cfg = rs->cfg;
	rfile *f = &rs->files[i];
	pm_data_file_meta m;
	pm_strlist cols = {0};
	int has_cols = 0, rc;

	if ((rc = pm_data_file_meta_init_append(&m)))
		return rc;
	if (!(m.file_name = pm_strdup(f->name))) {
		pm_data_file_meta_dispose(&m);
		return PAIMON_ENOMEM;
	}
	m.file_size = (int64_t)f->fw->bytes_written(f->fw);
	m.row_count = rows;
	m.min_sequence_number = min_seq;
	m.max_sequence_number = min_seq + rows - 1;
	m.schema_id = cfg->schema->id;
	if (i == 0 && !cfg->no_value_stats) {
		pm_format_file_stats fs;
		memset(&fs, 0, sizeof fs);
		pm_simple_stats_dispose(&m.value_stats);
		if ((rc = f->fw->stats(f->fw, &fs)) ||
		    (rc = pm_stats_from_file(cfg->schema, cfg->modes, cfg->dense, &fs, &m.value_stats, &has_cols,
					     &cols))) {
			pm_strlist_dispose(&cols);
			pm_data_file_meta_dispose(&m);
			pm_err_wrap("statistics of data file '%s'", f->name);
			return rc;
		}
		pm_strlist_dispose(&m.value_stats_cols);
		m.has_value_stats_cols = has_cols;
		m.value_stats_cols = cols;
	}
	if (f->columns) {
		/* a column subset: the file says which columns it holds */
		size_t k;
		m.has_write_cols = 1;
		for (k = 0; k < f->n_columns; k++)
			if ((rc = pm_strlist_push(&m.write_cols, f->row->fields[k].name))) {
				pm_data_file_meta_dispose(&m);
				return rc;
			}
	}
	*out = m;
	return 0;
}

/* Hands out the finished file i (closed) of the set; a companion rolling
 * alone hands out all its files, in row order. */
static int emit_file(pm_roll_set *rs, size_t i)
{
	rfile *f = &rs->files[i];
	pm_data_file_meta m;
	size_t j;
	int rc;
	if (f->roll_rows > 0) {
		for (j = 0; j < f->n_done; j++) {
			m = f->done[j];
			memset(&f->done[j], 0, sizeof f->done[j]);
			if ((rc = rs->cfg->on_file(rs->ctx, (int)(i - 1), &m))) {
				size_t q;
				for (q = j + 1; q < f->n_done; q++)
					pm_data_file_meta_dispose(&f->done[q]);
				f->n_done = 0;
				return rc;
			}
		}
		f->n_done = 0;
		return 0;
	}
	if ((rc = file_meta(rs, i, rs->cur_rows, rs->cur_min_seq, &m)))
		return rc;
	return rs->cfg->on_file(rs->ctx, i == 0 ? -1 : (int)(i - 1), &m);
}

/* Opens the next file of companion i rolling alone. */
static int piece_open(pm_roll_set *rs, size_t i)
{
	const pm_roll_config *cfg = rs->cfg;
	rfile *f = &rs->files[i];
	size_t n = strlen(cfg->prefix) + strlen(f->extension) + PM_UUID_STR_LEN + 24;
	char *path;
	int rc;
	pm_free(f->name);
	if (!(f->name = pm_malloc(n)))
		return PAIMON_ENOMEM;
	snprintf(f->name, n, "%s%s-%lld%s", cfg->prefix, rs->uuid, (long long)rs->file_n++, f->extension);
	if (!(path = pm_path_join(rs->dir, f->name)))
		return PAIMON_ENOMEM;
	rc = f->format->writer_open(cfg->io, path, f->row, f->wopts, &f->fw);
	pm_free(path);
	f->piece_rows = 0;
	return rc;
}

/* Closes the open file of companion i rolling alone: listed for deletion,
 * its meta kept (sequence numbers 0.., stamped by the commit, as the
 * .blob files') until the data file is handed out. */
static int piece_close(pm_roll_set *rs, size_t i)
{
	rfile *f = &rs->files[i];
	pm_data_file_meta m;
	char *path;
	int rc;
	if (!f->fw)
		return 0;
	if ((rc = f->fw->close(f->fw)))
		return rc;
	if (!(path = pm_path_join(rs->dir, f->name)))
		return PAIMON_ENOMEM;
	rc = rs->cfg->on_path(rs->ctx, path);
	pm_free(path);
	if (rc)
		return rc;
	if (f->n_done == f->cap_done) {
		size_t nc = f->cap_done ? f->cap_done * 2 : 4;
		pm_data_file_meta *nd = pm_realloc(f->done, nc * sizeof *nd);
		if (!nd)
			return PAIMON_ENOMEM;
		f->done = nd;
		f->cap_done = nc;
	}
	if ((rc = file_meta(rs, i, f->piece_rows, 0, &m)))
		return rc;
	f->done[f->n_done++] = m;
	pm_format_writer_free(f->fw);
	f->fw = NULL;
	f->piece_rows = 0;
	return 0;
}

/* Closes column i's open .blob file: listed for deletion, its meta kept
 * until the data file is handed out. */
static int blob_close(pm_roll_set *rs, size_t i)
{
	rblob *b = &rs->blobs[i];
	pm_data_file_meta m;
	uint64_t size = 0;
	char *path;
	int rc;
	if (!b->bw)
		return 0;
	rc = pm_blob_writer_close(b->bw, &size);
	b->bw = NULL;
	if (rc)
		return pm_err_wrap("blob file '%s'", b->name);
	if (!(path = pm_path_join(rs->dir, b->name)))
		return PAIMON_ENOMEM;
	rc = rs->cfg->on_path(rs->ctx, path);
	pm_free(path);
	if (rc)
		return rc;
	if (b->n_done == b->cap_done) {
		size_t nc = b->cap_done ? b->cap_done * 2 : 4;
		pm_data_file_meta *nd = pm_realloc(b->done, nc * sizeof *nd);
		if (!nd)
			return PAIMON_ENOMEM;
		b->done = nd;
		b->cap_done = nc;
	}
	if ((rc = pm_data_file_meta_init_append(&m)))
		return rc;
	m.file_size = (int64_t)size;
	m.row_count = b->rows;
	m.min_sequence_number = 0;
	m.max_sequence_number = b->rows > 0 ? b->rows - 1 : 0;
	m.schema_id = rs->cfg->schema->id;
	m.has_value_stats_cols = 1; /* Java: [] with empty stats rows */
	m.has_write_cols = 1;
	if (!(m.file_name = pm_strdup(b->name)) || (rc = pm_strlist_push(&m.write_cols, rs->cfg->blobs[i].name))) {
		pm_data_file_meta_dispose(&m);
		return rc ? rc : PAIMON_ENOMEM;
	}
	b->done[b->n_done++] = m;
	b->rows = 0;
	return 0;
}

static int blob_open(pm_roll_set *rs, size_t i)
{
	const pm_roll_config *cfg = rs->cfg;
	rblob *b = &rs->blobs[i];
	size_t n = strlen(cfg->prefix) + PM_UUID_STR_LEN + 32;
	char *path;
	int rc;
	pm_free(b->name);
	if (!(b->name = pm_malloc(n)))
		return PAIMON_ENOMEM;
	snprintf(b->name, n, "%s%s-%lld.blob", cfg->prefix, rs->uuid, (long long)rs->file_n++);
	if (!(path = pm_path_join(rs->dir, b->name)))
		return PAIMON_ENOMEM;
	rc = pm_blob_writer_open(cfg->io, path, &b->bw);
	pm_free(path);
	return rc;
}

/* A streamed value: d's bytes pulled from the config's stream callback in
 * chunks (exactly d->length of them when it is >= 0, else to its end). */
static int blob_copy_stream(pm_roll_set *rs, rblob *b, const char *col, const pm_blob_descriptor *d, int64_t row)
{
	const pm_roll_config *cfg = rs->cfg;
	size_t cap = (size_t)1 << 20, got;
	uint64_t total = 0;
	uint8_t *buf;
	int rc;
	if (!cfg->blob_stream)
		return pm_err(PAIMON_EUNSUPPORTED, "BLOB column '%s' input row %lld: descriptor URI '%s' is a stream, but "
			      "this writer has no blob stream source (paimon_table_write_set_blob_stream)",
			      col, (long long)row, d->uri);
	if (d->offset != 0)
		return pm_err(PAIMON_EINVAL, "BLOB column '%s' input row %lld: stream '%s' with offset %lld (streams "
			      "start at 0)", col, (long long)row, d->uri, (long long)d->offset);
	if (!(buf = pm_malloc(cap)))
		return PAIMON_ENOMEM;
	if ((rc = pm_blob_writer_begin(b->bw)))
		goto out;
	for (;;) {
		size_t want = cap;
		if (d->length >= 0 && (uint64_t)d->length - total < want)
			want = (size_t)((uint64_t)d->length - total);
		got = 0;
		if (want == 0)
			break;
		if (cfg->blob_stream(cfg->blob_stream_ctx, d->uri, buf, want, &got)) {
			rc = pm_err(PAIMON_EIO, "BLOB column '%s' input row %lld: reading stream '%s' failed after %llu bytes",
				    col, (long long)row, d->uri, (unsigned long long)total);
			goto out;
		}
		if (got > want) {
			rc = pm_err(PAIMON_EINVAL, "BLOB column '%s' input row %lld: stream '%s' returned %zu bytes for a "
				    "read of %zu", col, (long long)row, d->uri, got, want);
			goto out;
		}
		if (got == 0)
			break;
		if ((rc = pm_blob_writer_append(b->bw, buf, got)))
			goto out;
		total += got;
	}
	if (d->length >= 0 && total != (uint64_t)d->length)
		rc = pm_err(PAIMON_EIO, "BLOB column '%s' input row %lld: stream '%s' ended after %llu of %lld bytes",
			    col, (long long)row, d->uri, (unsigned long long)total, (long long)d->length);
	else
		rc = pm_blob_writer_end(b->bw, NULL);
out:
	pm_free(buf);
	return rc;
}

/* A descriptor value (input row `row`): its range of a local file, or a
 * stream (PM_BLOB_STREAM_SCHEME). */
static int blob_copy_descriptor(pm_roll_set *rs, rblob *b, const char *col, const uint8_t *p, size_t len, int64_t row)
{
	pm_blob_descriptor d;
	const char *path;
	int rc = pm_blob_descriptor_decode(p, len, 0, &d);
	if (rc)
		return pm_err_wrap("BLOB column '%s' input row %lld", col, (long long)row);
	path = pm_path_strip_file_scheme(d.uri);
	if (!strncmp(d.uri, PM_BLOB_STREAM_SCHEME, strlen(PM_BLOB_STREAM_SCHEME))) {
		rc = blob_copy_stream(rs, b, col, &d, row);
	} else if (path[0] != '/') {
		rc = pm_err(PAIMON_EUNSUPPORTED, "BLOB column '%s' input row %lld: descriptor URI '%s' is not a local path",
			    col, (long long)row, d.uri);
	} else {
		rc = pm_blob_writer_add_file_range(b->bw, rs->cfg->io, path, (uint64_t)d.offset, d.length, NULL);
		if (rc)
			pm_err_wrap("BLOB column '%s' input row %lld (descriptor of '%s')", col, (long long)row, d.uri);
	}
	pm_blob_descriptor_dispose(&d);
	return rc;
}

/* Rows [off, off + n) of BLOB column i (child `a`, schema `s`). */
static int blob_write(pm_roll_set *rs, size_t i, const struct ArrowArray *a, const struct ArrowSchema *s,
		      int64_t off, int64_t n)
{
	const pm_roll_blob *cb = &rs->cfg->blobs[i];
	rblob *b = &rs->blobs[i];
	int large = !strcmp(s->format, "Z");
	const uint8_t *valid = a->null_count == 0 ? NULL : a->buffers[0];
	const uint8_t *data = a->n_buffers > 2 ? a->buffers[2] : NULL;
	int nested = cb->type && cb->type->root != PM_BLOB;
	int64_t r;
	int rc;
	if (nested) {
		if ((rc = pm_blob_nested_check_arrow(cb->type, s, cb->name)))
			return rc;
	} else if (!large && strcmp(s->format, "z"))
		return pm_err(PAIMON_EINVAL, "BLOB column '%s' must be binary or large binary, not Arrow '%s'", cb->name,
			      s->format);
	for (r = 0; r < n; r++) {
		int64_t k = a->offset + off + r, x, y;
		if (!b->bw && (rc = blob_open(rs, i)))
			return rc;
		if (valid && !(valid[k >> 3] >> (k & 7) & 1)) {
			rc = pm_blob_writer_add_null(b->bw);
		} else if (nested) {
			rc = pm_blob_nested_write(b->bw, cb->type, s, a, k, rs->cfg->io, cb->name, off + r - a->offset,
						  NULL);
		} else {
			if (large) {
				x = ((const int64_t *)a->buffers[1])[k];
				y = ((const int64_t *)a->buffers[1])[k + 1];
			} else {
				x = ((const int32_t *)a->buffers[1])[k];
				y = ((const int32_t *)a->buffers[1])[k + 1];
			}
			if (y < x)
				return pm_err(PAIMON_EINVAL, "BLOB column '%s': bad offsets", cb->name);
			if (pm_blob_descriptor_is(data + x, (size_t)(y - x)))
				/* a BlobDescriptor: the bytes it references are copied
				 * in chunks, never loaded whole (pypaimon 2.1.0) */
				rc = blob_copy_descriptor(rs, b, cb->name, data + x, (size_t)(y - x), off + r - a->offset);
			else
				rc = pm_blob_writer_add(b->bw, y > x ? data + x : (const uint8_t *)"", (size_t)(y - x),
							NULL);
		}
		if (rc)
			return pm_err_wrap("blob file '%s'", b->name);
		b->rows++;
		/* rolled after the record that reaches the target (Java, pypaimon) */
		if ((int64_t)pm_blob_writer_position(b->bw) >= cb->target_size && (rc = blob_close(rs, i)))
			return rc;
	}
	return 0;
}

int pm_roll_set_close_file(pm_roll_set *rs)
{
	size_t i;
	int rc;
	if (!rs->open)
		return 0;
	/* every file complete first (each listed for deletion as it is), then
	 * the metas: a failure leaves no half-listed set behind */
	for (i = 0; i < rs->cfg->n_blobs; i++)
		if ((rc = blob_close(rs, i)))
			return rc;
	for (i = 0; i < rs->n_files; i++) {
		rfile *f = &rs->files[i];
		char *path;
		if (f->roll_rows > 0) {
			if ((rc = piece_close(rs, i)))
				return rc;
			continue;
		}
		if ((rc = f->fw->close(f->fw)))
			return rc;
		if (!(path = pm_path_join(rs->dir, f->name)))
			return PAIMON_ENOMEM;
		rc = rs->cfg->on_path(rs->ctx, path);
		pm_free(path);
		if (rc)
			return rc;
	}
	for (i = 0; i < rs->n_files; i++)
		if ((rc = emit_file(rs, i)))
			return rc;
	/* then the .blob files, column by column, in row order */
	for (i = 0; i < rs->cfg->n_blobs; i++) {
		rblob *b = &rs->blobs[i];
		size_t j;
		for (j = 0; j < b->n_done; j++) {
			pm_data_file_meta m = b->done[j];
			memset(&b->done[j], 0, sizeof b->done[j]);
			if ((rc = rs->cfg->on_file(rs->ctx, (int)(rs->cfg->n_companions + i), &m))) {
				size_t q;
				for (q = j + 1; q < b->n_done; q++)
					pm_data_file_meta_dispose(&b->done[q]);
				b->n_done = 0;
				return rc;
			}
		}
		b->n_done = 0;
	}
	drop_writers(rs);
	return 0;
}

/* The struct view of f's columns of batch b (rows as b's). */
static const struct ArrowArray *project(rfile *f, const struct ArrowArray *b, const struct ArrowSchema *s,
					const struct ArrowSchema **ps)
{
	size_t k;
	if (!f->columns) {
		*ps = s;
		return b;
	}
	for (k = 0; k < f->n_columns; k++) {
		f->p.ach[k] = b->children[f->columns[k]];
		f->p.sch_ch[k] = s->children[f->columns[k]];
	}
	memset(&f->p.arr, 0, sizeof f->p.arr);
	f->p.arr.length = b->length;
	f->p.arr.offset = b->offset;
	f->p.arr.n_buffers = 1;
	{
		static const void *nobuf[1] = { NULL };
		f->p.arr.buffers = nobuf;
	}
	f->p.arr.n_children = (int64_t)f->n_columns;
	f->p.arr.children = f->p.ach;
	f->p.arr.release = view_release;
	memset(&f->p.sch, 0, sizeof f->p.sch);
	f->p.sch.format = "+s";
	f->p.sch.name = "";
	f->p.sch.n_children = (int64_t)f->n_columns;
	f->p.sch.children = f->p.sch_ch;
	*ps = &f->p.sch;
	return &f->p.arr;
}

static int roll_due(const pm_roll_set *rs)
{
	size_t i;
	const rfile *d = &rs->files[0];
	if (rs->cur_rows >= rs->cfg->target_rows || (int64_t)d->fw->bytes_written(d->fw) >= rs->cfg->target_size)
		return 1;
	for (i = 1; i < rs->n_files; i++) {
		const rfile *f = &rs->files[i];
		if (f->roll_rows <= 0 && f->target_size > 0 && (int64_t)f->fw->bytes_written(f->fw) >= f->target_size)
			return 1;
	}
	return 0;
}

int pm_roll_set_write(pm_roll_set *rs, const struct ArrowArray *b, const struct ArrowSchema *s)
{
	const pm_roll_config *cfg = rs->cfg;
	int64_t r = 0;
	size_t i;
	int rc;
	while (r < b->length) {
		struct ArrowArray slice;
		int64_t n = b->length - r;
		if (!rs->open && (rc = open_files(rs)))
			return rc;
		if (n > SLICE_ROWS)
			n = SLICE_ROWS;
		if (n > cfg->target_rows - rs->cur_rows)
			n = cfg->target_rows - rs->cur_rows;
		slice = *b;
		slice.offset = b->offset + r;
		slice.length = n;
		slice.release = view_release;
		for (i = 0; i < rs->n_files; i++) {
			rfile *f = &rs->files[i];
			const struct ArrowSchema *ps;
			const struct ArrowArray *pa;
			int64_t off = 0;
			if (f->roll_rows <= 0) {
				pa = project(f, &slice, s, &ps);
				if ((rc = f->fw->write(f->fw, pa, ps)))
					return rc;
				continue;
			}
			/* rolling alone: the slice cut at its files' boundaries */
			while (off < n) {
				struct ArrowArray part = slice;
				int64_t m;
				if (!f->fw && (rc = piece_open(rs, i)))
					return rc;
				m = f->roll_rows - f->piece_rows;
				if (m > n - off)
					m = n - off;
				part.offset = slice.offset + off;
				part.length = m;
				pa = project(f, &part, s, &ps);
				if ((rc = f->fw->write(f->fw, pa, ps)))
					return rc;
				f->piece_rows += m;
				off += m;
				if (f->piece_rows >= f->roll_rows && (rc = piece_close(rs, i)))
					return rc;
			}
		}
		for (i = 0; i < cfg->n_blobs; i++) {
			size_t col = cfg->blobs[i].column;
			if ((rc = blob_write(rs, i, b->children[col], s->children[col], b->offset + r, n)))
				return rc;
		}
		rs->cur_rows += n;
		rs->seq += n;
		r += n;
		if (roll_due(rs) && (rc = pm_roll_set_close_file(rs)))
			return rc;
	}
	return 0;
}
