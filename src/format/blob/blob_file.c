/*
 * format/blob/blob_file.c - the `.blob` file writer and reader (see
 * blob_file.h for the layout and the rules).
 */
#include "format/blob/blob_file.h"

#include <inttypes.h>
#include <string.h>

#include "core/crc32.h"
#include "core/endian.h"
#include "core/error.h"
#include "core/mem.h"

#define WBUF_SIZE ((size_t)64 << 10)
#define COPY_CHUNK ((size_t)1 << 20)

/* ---------------------------------------------------------------- DeltaVarint */

static int put_varint(pm_buf *out, int64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;
	uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v < 0 ? -1 : 0); /* ZigZag */
	while (z >= 0x80) {
		tmp[n++] = (uint8_t)(z | 0x80);
		z >>= 7;
	}
	tmp[n++] = (uint8_t)z;
	return pm_buf_append(out, tmp, n);
}

int pm_blob_delta_varint_encode(const int64_t *v, size_t n, pm_buf *out)
{
	size_t i;
	int rc;
	for (i = 0; i < n; i++)
		if ((rc = put_varint(out, i == 0 ? v[0] : (int64_t)((uint64_t)v[i] - (uint64_t)v[i - 1]))))
			return rc;
	return 0;
}

/* Decodes one varint at *p; 0, or 1 when malformed (*why set). */
static int get_varint(const uint8_t **p, const uint8_t *end, int64_t *v, const char **why)
{
	uint64_t z = 0;
	int shift = 0;
	for (;;) {
		uint8_t b;
		if (*p == end) {
			*why = "a varint is cut short";
			return 1;
		}
		b = *(*p)++;
		if (shift == 63 && (b & 0x7e)) {
			*why = "a varint overflows 64 bits";
			return 1;
		}
		z |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
		shift += 7;
		if (shift > 63) {
			*why = "a varint is longer than 10 bytes";
			return 1;
		}
	}
	*v = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
	return 0;
}

int pm_blob_delta_varint_decode(const void *data, size_t len, size_t max_values, const char *what,
				int64_t **out, size_t *n)
{
	const uint8_t *p = data, *end;
	int64_t *v = NULL;
	size_t cnt = 0, cap = 0, i;
	uint64_t prev = 0;
	*out = NULL;
	*n = 0;
	if (len == 0)
		return 0;
	end = p + len;
	/* Every varint takes at least one byte: count them first, so the array
	 * is sized exactly and a limit is checked before allocating. */
	for (i = 0; i < len; i++)
		if (!(p[i] & 0x80))
			cap++;
	if (max_values && cap > max_values)
		return pm_err(PAIMON_ECORRUPT, "%s: more than %zu values", what, max_values);
	if (cap && !(v = pm_malloc(cap * sizeof *v)))
		return PAIMON_ENOMEM;
	while (p < end) {
		int64_t d;
		const char *why = NULL;
		if (get_varint(&p, end, &d, &why) || cnt == cap) {
			pm_free(v);
			return pm_err(PAIMON_ECORRUPT, "%s: %s at byte %zu", what, why ? why : "bad varint",
				      (size_t)(p - (const uint8_t *)data));
		}
		prev = cnt == 0 ? (uint64_t)d : prev + (uint64_t)d;
		v[cnt++] = (int64_t)prev;
	}
	*out = v;
	*n = cnt;
	return 0;
}

/* ---------------------------------------------------------------- writer */

struct pm_blob_writer {
	pm_out_stream *out;
	char *path;
	uint8_t *wbuf;
	size_t wlen;
	uint64_t pos;       /* bytes written (buffered included) */
	int64_t rows;
	int64_t prev_entry; /* last index entry (DeltaVarint base) */
	pm_buf index;
	int failed;         /* first error code, sticky */
	int in_value;       /* between begin and end */
	uint64_t rec_start;
	uint32_t crc;
};

static int w_fail(pm_blob_writer *w, int rc)
{
	if (!w->failed)
		w->failed = rc ? rc : PAIMON_ERROR;
	return rc;
}

static int w_flush(pm_blob_writer *w)
{
	int rc;
	if (!w->wlen)
		return 0;
	if ((rc = pm_out_append(w->out, w->wbuf, w->wlen)))
		return w_fail(w, pm_err_wrap("blob file '%s'", w->path));
	w->wlen = 0;
	return 0;
}

/* Writes bytes (buffered; big pieces go straight through). */
static int w_write(pm_blob_writer *w, const void *data, size_t len)
{
	int rc;
	if (len == 0)
		return 0;
	if (w->wlen + len <= WBUF_SIZE) {
		memcpy(w->wbuf + w->wlen, data, len);
		w->wlen += len;
	} else {
		if ((rc = w_flush(w)))
			return rc;
		if (len < WBUF_SIZE) {
			memcpy(w->wbuf, data, len);
			w->wlen = len;
		} else if ((rc = pm_out_append(w->out, data, len))) {
			return w_fail(w, pm_err_wrap("blob file '%s'", w->path));
		}
	}
	w->pos += len;
	return 0;
}

static int w_write_crc(pm_blob_writer *w, const void *data, size_t len)
{
	w->crc = pm_crc32(w->crc, data, len);
	return w_write(w, data, len);
}

static int w_entry(pm_blob_writer *w, int64_t e)
{
	int rc = put_varint(&w->index, w->rows == 0 ? e : (int64_t)((uint64_t)e - (uint64_t)w->prev_entry));
	if (rc)
		return w_fail(w, rc);
	w->prev_entry = e;
	w->rows++;
	return 0;
}

static int w_check(pm_blob_writer *w, int want_in_value)
{
	if (w->failed)
		return pm_err(w->failed, "blob file '%s': the writer failed earlier", w->path);
	if (w->in_value != want_in_value)
		return pm_err(PAIMON_EINVAL, "blob file '%s': %s", w->path,
			      want_in_value ? "no value begun (pm_blob_writer_begin)"
					    : "a value is being streamed (pm_blob_writer_end first)");
	return 0;
}

int pm_blob_writer_open(pm_fileio *io, const char *path, pm_blob_writer **out)
{
	pm_blob_writer *w;
	int rc;
	*out = NULL;
	if (!(w = pm_calloc(1, sizeof *w)))
		return PAIMON_ENOMEM;
	if (!(w->path = pm_strdup(path)) || !(w->wbuf = pm_malloc(WBUF_SIZE))) {
		pm_free(w->path);
		pm_free(w);
		return PAIMON_ENOMEM;
	}
	if ((rc = pm_fileio_open_write(io, path, &w->out))) {
		pm_free(w->wbuf);
		pm_free(w->path);
		pm_free(w);
		return rc;
	}
	*out = w;
	return 0;
}

int pm_blob_writer_begin(pm_blob_writer *w)
{
	uint8_t m[4];
	int rc;
	if ((rc = w_check(w, 0)))
		return rc;
	w->rec_start = w->pos;
	w->crc = 0;
	pm_le32_put(m, PM_BLOB_MAGIC);
	if ((rc = w_write_crc(w, m, 4)))
		return rc;
	w->in_value = 1;
	return 0;
}

int pm_blob_writer_append(pm_blob_writer *w, const void *data, size_t len)
{
	int rc;
	if ((rc = w_check(w, 1)))
		return rc;
	return w_write_crc(w, data, len);
}

int pm_blob_writer_end(pm_blob_writer *w, pm_blob_pos *pos)
{
	uint8_t t[12];
	uint64_t reclen;
	int rc;
	if ((rc = w_check(w, 1)))
		return rc;
	reclen = w->pos - w->rec_start + 12;
	if (reclen > (uint64_t)INT64_MAX)
		return w_fail(w, pm_err(PAIMON_EINVAL, "blob file '%s': value too large", w->path));
	pm_le64_put(t, reclen);
	w->crc = pm_crc32(w->crc, t, 8); /* Java's form: the length is checksummed */
	pm_le32_put(t + 8, w->crc);
	if ((rc = w_write(w, t, 12)))
		return rc;
	w->in_value = 0;
	if ((rc = w_entry(w, (int64_t)reclen)))
		return rc;
	if (pos) {
		pos->offset = w->rec_start + 4;
		pos->length = reclen - PM_BLOB_RECORD_OVERHEAD;
	}
	return 0;
}

int pm_blob_writer_add(pm_blob_writer *w, const void *data, size_t len, pm_blob_pos *pos)
{
	int rc;
	if ((rc = pm_blob_writer_begin(w)) || (rc = pm_blob_writer_append(w, data, len)))
		return rc;
	return pm_blob_writer_end(w, pos);
}

int pm_blob_writer_add_null(pm_blob_writer *w)
{
	int rc;
	if ((rc = w_check(w, 0)))
		return rc;
	return w_entry(w, PM_BLOB_NULL_LEN);
}

int pm_blob_writer_add_placeholder(pm_blob_writer *w)
{
	int rc;
	if ((rc = w_check(w, 0)))
		return rc;
	return w_entry(w, PM_BLOB_PLACEHOLDER_LEN);
}

/* Opens [off, off + len) of src_path (len -1: to the end) and checks it
 * lies inside the file: *f and its byte count *n. */
static int open_range(pm_blob_writer *w, pm_fileio *src_io, const char *src_path, uint64_t off, int64_t len,
		      pm_in_file **f, uint64_t *n)
{
	uint64_t size;
	int rc;
	*f = NULL;
	if (len < -1)
		return pm_err(PAIMON_EINVAL, "blob file '%s': bad length %" PRId64 " of a range of '%s'",
			      w->path, len, src_path);
	if ((rc = pm_fileio_open_read(src_io, src_path, f)))
		return pm_err_wrap("blob file '%s': source", w->path);
	size = pm_in_length(*f);
	if (off > size || (len >= 0 && (uint64_t)len > size - off)) {
		rc = pm_err(PAIMON_EINVAL,
			    "blob file '%s': range [%" PRIu64 ", +%" PRId64 ") is past the end of '%s' (%" PRIu64 " bytes)",
			    w->path, off, len, src_path, size);
		pm_in_close(*f);
		*f = NULL;
		return rc;
	}
	*n = len < 0 ? size - off : (uint64_t)len;
	return 0;
}

/* Copies n bytes at off of f into the value being written, checksummed. */
static int copy_range(pm_blob_writer *w, pm_in_file *f, uint64_t off, uint64_t n)
{
	uint8_t *chunk = NULL;
	uint64_t done = 0;
	int rc = 0;
	if (n && !(chunk = pm_malloc(n < COPY_CHUNK ? (size_t)n : COPY_CHUNK)))
		return w_fail(w, PAIMON_ENOMEM);
	while (done < n && !rc) {
		size_t k = n - done < COPY_CHUNK ? (size_t)(n - done) : COPY_CHUNK;
		if ((rc = pm_in_pread(f, off + done, k, chunk)))
			rc = w_fail(w, pm_err_wrap("blob file '%s': copying", w->path));
		else
			rc = w_write_crc(w, chunk, k);
		done += k;
	}
	pm_free(chunk);
	return rc;
}

int pm_blob_writer_add_file_range(pm_blob_writer *w, pm_fileio *src_io, const char *src_path,
				  uint64_t off, int64_t len, pm_blob_pos *pos)
{
	pm_in_file *f = NULL;
	uint64_t n = 0;
	int rc;
	if ((rc = w_check(w, 0)))
		return rc;
	if ((rc = open_range(w, src_io, src_path, off, len, &f, &n)))
		return rc; /* nothing written: the writer stays usable */
	if (!(rc = pm_blob_writer_begin(w)) && !(rc = copy_range(w, f, off, n)))
		rc = pm_blob_writer_end(w, pos);
	pm_in_close(f);
	return rc;
}

int pm_blob_writer_append_file_range(pm_blob_writer *w, pm_fileio *src_io, const char *src_path, uint64_t off,
				     int64_t len, uint64_t *copied)
{
	pm_in_file *f = NULL;
	uint64_t n = 0;
	int rc;
	if (copied)
		*copied = 0;
	if ((rc = w_check(w, 1)))
		return rc;
	if ((rc = open_range(w, src_io, src_path, off, len, &f, &n)))
		return w_fail(w, rc); /* the value is half written */
	rc = copy_range(w, f, off, n);
	pm_in_close(f);
	if (!rc && copied)
		*copied = n;
	return rc;
}

int64_t pm_blob_writer_rows(const pm_blob_writer *w)
{
	return w->rows;
}

uint64_t pm_blob_writer_position(const pm_blob_writer *w)
{
	return w->pos;
}

static void w_free(pm_blob_writer *w)
{
	pm_buf_dispose(&w->index);
	pm_free(w->wbuf);
	pm_free(w->path);
	pm_free(w);
}

void pm_blob_writer_abort(pm_blob_writer *w)
{
	if (!w)
		return;
	pm_out_abort(w->out);
	w_free(w);
}

int pm_blob_writer_close(pm_blob_writer *w, uint64_t *file_size)
{
	uint8_t f[PM_BLOB_FOOTER_SIZE];
	int rc;
	pm_out_stream *out;
	if ((rc = w_check(w, 0))) {
		pm_err_state st;
		pm_err_save(&st);
		pm_blob_writer_abort(w);
		pm_err_restore(&st);
		return rc;
	}
	if (w->index.len > (size_t)INT32_MAX) {
		rc = pm_err(PAIMON_EINVAL, "blob file '%s': the index of %" PRId64 " rows exceeds 2 GiB",
			    w->path, w->rows);
		pm_blob_writer_abort(w);
		return rc;
	}
	pm_le32_put(f, (uint32_t)w->index.len);
	f[4] = PM_BLOB_VERSION;
	if ((rc = w_write(w, w->index.data, w->index.len)) || (rc = w_write(w, f, sizeof f)) ||
	    (rc = w_flush(w))) {
		pm_err_state st;
		pm_err_save(&st);
		pm_blob_writer_abort(w);
		pm_err_restore(&st);
		return rc;
	}
	if (file_size)
		*file_size = w->pos;
	out = w->out;
	w->out = NULL;
	rc = pm_out_close(out);
	if (rc)
		rc = pm_err_wrap("blob file '%s'", w->path);
	w_free(w);
	return rc;
}

/* ---------------------------------------------------------------- reader */

struct pm_blob_reader {
	pm_in_file *f;
	char *path;
	uint64_t size;
	int64_t rows;
	uint64_t *start; /* rows + 1 record starts: row i spans [start[i], start[i+1]) */
	uint8_t *kind;   /* pm_blob_kind per row */
};

int pm_blob_reader_open(pm_fileio *io, const char *path, const pm_blob_read_options *opt,
			pm_blob_reader **out)
{
	pm_blob_reader *r;
	uint8_t foot[PM_BLOB_FOOTER_SIZE];
	uint8_t *idx = NULL;
	int64_t *ent = NULL;
	size_t n = 0, i, max_index = opt && opt->max_index_bytes ? opt->max_index_bytes : PM_BLOB_DEFAULT_MAX_INDEX_BYTES;
	int64_t max_rows = opt && opt->max_rows > 0 ? opt->max_rows : PM_BLOB_DEFAULT_MAX_ROWS;
	uint64_t index_len, data_len, sum = 0;
	int rc;
	*out = NULL;
	if (!(r = pm_calloc(1, sizeof *r)))
		return PAIMON_ENOMEM;
	if (!(r->path = pm_strdup(path))) {
		rc = PAIMON_ENOMEM;
		goto fail;
	}
	if ((rc = pm_fileio_open_read(io, path, &r->f)))
		goto fail;
	r->size = pm_in_length(r->f);
	if (r->size < PM_BLOB_FOOTER_SIZE) {
		rc = pm_err(PAIMON_ECORRUPT, "blob file '%s': %" PRIu64 " bytes, shorter than the 5-byte footer",
			    path, r->size);
		goto fail;
	}
	if ((rc = pm_in_pread(r->f, r->size - PM_BLOB_FOOTER_SIZE, sizeof foot, foot)))
		goto fail;
	if (foot[4] != PM_BLOB_VERSION) {
		rc = pm_err(PAIMON_ECORRUPT, "blob file '%s': unsupported version %u (expected 1)", path, foot[4]);
		goto fail;
	}
	index_len = pm_le32_get(foot);
	if (index_len > r->size - PM_BLOB_FOOTER_SIZE) {
		rc = pm_err(PAIMON_ECORRUPT,
			    "blob file '%s': index length %" PRIu32 " exceeds the %" PRIu64 " bytes before the footer",
			    path, (uint32_t)index_len, r->size - PM_BLOB_FOOTER_SIZE);
		goto fail;
	}
	if (index_len > max_index) {
		rc = pm_err(PAIMON_ECORRUPT, "blob file '%s': index of %" PRIu64 " bytes exceeds the limit of %zu",
			    path, index_len, max_index);
		goto fail;
	}
	data_len = r->size - PM_BLOB_FOOTER_SIZE - index_len;
	if (index_len && !(idx = pm_malloc((size_t)index_len))) {
		rc = PAIMON_ENOMEM;
		goto fail;
	}
	if ((rc = pm_in_pread(r->f, data_len, (size_t)index_len, idx)))
		goto fail;
	if ((rc = pm_blob_delta_varint_decode(idx, (size_t)index_len, (size_t)max_rows, "index", &ent, &n))) {
		rc = pm_err_wrap("blob file '%s'", path);
		goto fail;
	}
	pm_free(idx);
	idx = NULL;
	r->rows = (int64_t)n;
	if (!(r->start = pm_malloc((n + 1) * sizeof *r->start)) || (n && !(r->kind = pm_malloc(n)))) {
		rc = PAIMON_ENOMEM;
		goto fail;
	}
	for (i = 0; i < n; i++) {
		int64_t e = ent[i];
		r->start[i] = sum;
		if (e == PM_BLOB_NULL_LEN) {
			r->kind[i] = PM_BLOB_NULL;
		} else if (e == PM_BLOB_PLACEHOLDER_LEN) {
			r->kind[i] = PM_BLOB_PLACEHOLDER;
		} else if (e < PM_BLOB_RECORD_OVERHEAD) {
			rc = pm_err(PAIMON_ECORRUPT, "blob file '%s': row %zu has record length %" PRId64
				    " (expected >= 16, -1 or -2)", path, i, e);
			goto fail;
		} else if ((uint64_t)e > data_len - sum) {
			rc = pm_err(PAIMON_ECORRUPT, "blob file '%s': row %zu: record of %" PRId64 " bytes at offset %"
				    PRIu64 " runs past the index at %" PRIu64, path, i, e, sum, data_len);
			goto fail;
		} else {
			r->kind[i] = PM_BLOB_VALUE;
			sum += (uint64_t)e;
		}
	}
	r->start[n] = sum;
	if (sum != data_len) {
		rc = pm_err(PAIMON_ECORRUPT, "blob file '%s': the %zu rows' records cover %" PRIu64
			    " bytes but the index starts at %" PRIu64, path, n, sum, data_len);
		goto fail;
	}
	pm_free(ent);
	*out = r;
	return 0;
fail:
	pm_free(idx);
	pm_free(ent);
	pm_blob_reader_close(r);
	return rc;
}

void pm_blob_reader_close(pm_blob_reader *r)
{
	if (!r)
		return;
	pm_in_close(r->f);
	pm_free(r->start);
	pm_free(r->kind);
	pm_free(r->path);
	pm_free(r);
}

int64_t pm_blob_reader_rows(const pm_blob_reader *r)
{
	return r->rows;
}

uint64_t pm_blob_reader_file_size(const pm_blob_reader *r)
{
	return r->size;
}

const char *pm_blob_reader_path(const pm_blob_reader *r)
{
	return r->path;
}

int pm_blob_reader_entry(const pm_blob_reader *r, int64_t row, pm_blob_entry *e)
{
	memset(e, 0, sizeof *e);
	if (row < 0 || row >= r->rows)
		return pm_err(PAIMON_EINVAL, "blob file '%s': row %" PRId64 " out of range (%" PRId64 " rows)",
			      r->path, row, r->rows);
	e->kind = (pm_blob_kind)r->kind[row];
	if (e->kind == PM_BLOB_VALUE) {
		e->offset = r->start[row] + 4;
		e->length = r->start[row + 1] - r->start[row] - PM_BLOB_RECORD_OVERHEAD;
	}
	return 0;
}

static int value_entry(const pm_blob_reader *r, int64_t row, pm_blob_entry *e)
{
	int rc = pm_blob_reader_entry(r, row, e);
	if (rc)
		return rc;
	if (e->kind != PM_BLOB_VALUE)
		return pm_err(PAIMON_EINVAL, "blob file '%s': row %" PRId64 " is %s, not a value", r->path, row,
			      e->kind == PM_BLOB_NULL ? "null" : "a placeholder");
	return 0;
}

/* Checks a record's head (magic) and tail (recordLen, crc) against the
 * index entry; crc_payload is the CRC of magic || payload. */
static int check_record(const pm_blob_reader *r, int64_t row, const pm_blob_entry *e, const uint8_t *magic,
			uint32_t crc_payload, const uint8_t *tail)
{
	uint64_t reclen = e->length + PM_BLOB_RECORD_OVERHEAD, stored_len = pm_le64_get(tail);
	uint32_t stored_crc = pm_le32_get(tail + 8), crc_java;
	if (pm_le32_get(magic) != PM_BLOB_MAGIC)
		return pm_err(PAIMON_ECORRUPT, "blob file '%s': row %" PRId64 ": bad record magic 0x%08" PRIx32
			      " at offset %" PRIu64, r->path, row, pm_le32_get(magic), e->offset - 4);
	if (stored_len != reclen)
		return pm_err(PAIMON_ECORRUPT, "blob file '%s': row %" PRId64 ": record length field %" PRIu64
			      " differs from the index (%" PRIu64 ")", r->path, row, stored_len, reclen);
	crc_java = pm_crc32(crc_payload, tail, 8);
	/* Java and pypaimon 2.1.0 checksum the length too; older pypaimon
	 * releases did not: accept both. */
	if (stored_crc != crc_java && stored_crc != crc_payload)
		return pm_err(PAIMON_ECORRUPT, "blob file '%s': row %" PRId64 ": CRC mismatch (stored 0x%08" PRIx32
			      ", computed 0x%08" PRIx32 ")", r->path, row, stored_crc, crc_java);
	return 0;
}

int pm_blob_reader_read(pm_blob_reader *r, int64_t row, pm_buf *out)
{
	pm_blob_entry e;
	uint64_t reclen;
	uint8_t *rec;
	size_t base = out->len;
	int rc;
	if ((rc = value_entry(r, row, &e)))
		return rc;
	reclen = e.length + PM_BLOB_RECORD_OVERHEAD;
	if (reclen > SIZE_MAX - base - 1)
		return pm_err(PAIMON_ENOMEM, "blob file '%s': row %" PRId64 ": %" PRIu64 " bytes do not fit in memory",
			      r->path, row, e.length);
	if ((rc = pm_buf_reserve(out, (size_t)reclen)))
		return rc;
	rec = (uint8_t *)out->data + base;
	if ((rc = pm_in_pread(r->f, e.offset - 4, (size_t)reclen, rec)))
		return pm_err_wrap("blob file row %" PRId64, row);
	if ((rc = check_record(r, row, &e, rec, pm_crc32(0, rec, (size_t)e.length + 4), rec + 4 + e.length)))
		return rc;
	memmove(rec, rec + 4, (size_t)e.length);
	out->len = base + (size_t)e.length;
	out->data[out->len] = '\0';
	return 0;
}

int pm_blob_reader_read_range(pm_blob_reader *r, int64_t row, uint64_t off, size_t len, void *dst)
{
	pm_blob_entry e;
	int rc;
	if ((rc = value_entry(r, row, &e)))
		return rc;
	if (off > e.length || len > e.length - off)
		return pm_err(PAIMON_EINVAL, "blob file '%s': row %" PRId64 ": range [%" PRIu64 ", +%zu) is past the"
			      " value's %" PRIu64 " bytes", r->path, row, off, len, e.length);
	if ((rc = pm_in_pread(r->f, e.offset + off, len, dst)))
		return pm_err_wrap("blob file row %" PRId64, row);
	return 0;
}

int pm_blob_reader_stream(pm_blob_reader *r, int64_t row, size_t chunk,
			  int (*sink)(void *ctx, const void *data, size_t len), void *ctx)
{
	pm_blob_entry e;
	uint8_t head[4], tail[12], *buf = NULL;
	uint64_t done = 0;
	uint32_t crc;
	int rc;
	if ((rc = value_entry(r, row, &e)))
		return rc;
	if (!chunk)
		chunk = COPY_CHUNK;
	if ((rc = pm_in_pread(r->f, e.offset - 4, 4, head)))
		return pm_err_wrap("blob file row %" PRId64, row);
	crc = pm_crc32(0, head, 4);
	if (e.length && !(buf = pm_malloc(e.length < chunk ? (size_t)e.length : chunk)))
		return PAIMON_ENOMEM;
	while (done < e.length) {
		size_t k = e.length - done < chunk ? (size_t)(e.length - done) : chunk;
		if ((rc = pm_in_pread(r->f, e.offset + done, k, buf))) {
			rc = pm_err_wrap("blob file row %" PRId64, row);
			goto out;
		}
		crc = pm_crc32(crc, buf, k);
		if (sink && (rc = sink(ctx, buf, k)))
			goto out;
		done += k;
	}
	if ((rc = pm_in_pread(r->f, e.offset + e.length, sizeof tail, tail))) {
		rc = pm_err_wrap("blob file row %" PRId64, row);
		goto out;
	}
	rc = check_record(r, row, &e, head, crc, tail);
out:
	pm_free(buf);
	return rc;
}

int pm_blob_reader_verify(pm_blob_reader *r, int64_t row)
{
	pm_blob_entry e;
	int rc = pm_blob_reader_entry(r, row, &e);
	if (rc || e.kind != PM_BLOB_VALUE)
		return rc;
	return pm_blob_reader_stream(r, row, 0, NULL, NULL);
}
