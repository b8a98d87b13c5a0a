/*
 * format/blob/blob_nested.c - ARRAY<BLOB> / MAP<K, BLOB> record payloads
 * (see blob_nested.h).
 */
#include "format/blob/blob_nested.h"

#include <stdlib.h>
#include <string.h>

#include "core/endian.h"
#include "core/error.h"
#include "core/mem.h"
#include "format/blob/blob_descriptor.h"

int pm_blob_nested_type_ok(const pm_type *t)
{
	if (t->root == PM_ARRAY)
		return t->element->root == PM_BLOB;
	if (t->root != PM_MAP || t->value->root != PM_BLOB)
		return 0;
	switch (t->key->root) {
	case PM_TINYINT: case PM_SMALLINT: case PM_INT: case PM_BIGINT: case PM_BOOLEAN: case PM_DATE:
	case PM_TIME: case PM_CHAR: case PM_VARCHAR: case PM_BINARY: case PM_VARBINARY: case PM_DECIMAL:
		return 1;
	default:
		return 0;
	}
}

static int is_bin(const char *f)
{
	return !strcmp(f, "z") || !strcmp(f, "Z");
}

/* The Arrow formats a key of type t may come in. */
static int key_format_ok(const pm_type *t, const char *f)
{
	char d[32];
	switch (t->root) {
	case PM_TINYINT: return !strcmp(f, "c");
	case PM_SMALLINT: return !strcmp(f, "s");
	case PM_INT: return !strcmp(f, "i");
	case PM_BIGINT: return !strcmp(f, "l");
	case PM_BOOLEAN: return !strcmp(f, "b");
	case PM_DATE: return !strcmp(f, "tdD");
	case PM_TIME: return !strcmp(f, "ttm");
	case PM_CHAR: case PM_VARCHAR: return !strcmp(f, "u") || !strcmp(f, "U");
	case PM_BINARY: case PM_VARBINARY: return is_bin(f);
	case PM_DECIMAL:
		snprintf(d, sizeof d, "d:%d,%d", (int)t->precision, (int)t->scale);
		return !strcmp(f, d);
	default:
		return 0;
	}
}

int pm_blob_nested_check_arrow(const pm_type *t, const struct ArrowSchema *s, const char *col)
{
	const struct ArrowSchema *e;
	if (!pm_blob_nested_type_ok(t))
		return pm_err(PAIMON_EUNSUPPORTED, "column '%s': not an ARRAY<BLOB> or MAP<K, BLOB> with a supported "
			      "key type", col);
	if (t->root == PM_ARRAY) {
		if ((strcmp(s->format, "+l") && strcmp(s->format, "+L")) || s->n_children != 1 ||
		    !is_bin(s->children[0]->format))
			return pm_err(PAIMON_EINVAL, "ARRAY<BLOB> column '%s' must be an Arrow list of binary or "
				      "large binary, not '%s'", col, s->format);
		return 0;
	}
	if (strcmp(s->format, "+m") || s->n_children != 1 || strcmp((e = s->children[0])->format, "+s") ||
	    e->n_children != 2)
		return pm_err(PAIMON_EINVAL, "MAP<K, BLOB> column '%s' must be an Arrow map, not '%s'", col, s->format);
	if (!key_format_ok(t->key, e->children[0]->format))
		return pm_err(PAIMON_EINVAL, "MAP<K, BLOB> column '%s': Arrow key type '%s' does not fit the key type",
			      col, e->children[0]->format);
	if (!is_bin(e->children[1]->format))
		return pm_err(PAIMON_EINVAL, "MAP<K, BLOB> column '%s': values must be binary or large binary, not '%s'",
			      col, e->children[1]->format);
	return 0;
}

static int valid_at(const struct ArrowArray *a, int64_t k)
{
	const uint8_t *v = a->null_count == 0 || a->n_buffers < 1 ? NULL : a->buffers[0];
	return !v || (v[k >> 3] >> (k & 7) & 1);
}

/* [x, y) of variable-length entry k of a (offsets 32 or 64 bits). */
static void var_range(const struct ArrowArray *a, int large, int64_t k, int64_t *x, int64_t *y)
{
	if (large) {
		*x = ((const int64_t *)a->buffers[1])[k];
		*y = ((const int64_t *)a->buffers[1])[k + 1];
	} else {
		*x = ((const int32_t *)a->buffers[1])[k];
		*y = ((const int32_t *)a->buffers[1])[k + 1];
	}
}

/* Key k of array a (type t, Arrow format f) encoded onto out. */
static int encode_key(const pm_type *t, const char *f, const struct ArrowArray *a, int64_t k, pm_buf *out)
{
	const uint8_t *d = a->buffers[1];
	switch (t->root) {
	case PM_TINYINT: return pm_buf_append(out, d + k, 1);
	case PM_SMALLINT: return pm_buf_append(out, d + 2 * k, 2);
	case PM_INT: case PM_DATE: case PM_TIME: return pm_buf_append(out, d + 4 * k, 4);
	case PM_BIGINT: return pm_buf_append(out, d + 8 * k, 8);
	case PM_BOOLEAN: {
		uint8_t b = (uint8_t)(d[k >> 3] >> (k & 7) & 1);
		return pm_buf_append(out, &b, 1);
	}
	case PM_DECIMAL: {
		const uint8_t *v = d + 16 * k; /* 128-bit little endian */
		size_t n = 16;
		uint8_t be[16];
		size_t i;
		if (t->precision <= 18)
			return pm_buf_append(out, v, 8);
		/* minimal big-endian two's complement: drop leading bytes that
		 * only repeat the sign of the next one */
		for (i = 0; i < 16; i++)
			be[i] = v[15 - i];
		i = 0;
		while (n - i > 1 && ((be[i] == 0 && !(be[i + 1] & 0x80)) || (be[i] == 0xff && (be[i + 1] & 0x80))))
			i++;
		return pm_buf_append(out, be + i, n - i);
	}
	default: {
		int64_t x, y;
		var_range(a, f[0] == 'U' || f[0] == 'Z', k, &x, &y);
		if (y < x)
			return PAIMON_EINVAL;
		return pm_buf_append(out, y > x ? (const uint8_t *)a->buffers[2] + x : (const uint8_t *)"", (size_t)(y - x));
	}
	}
}

typedef struct keyref {
	uint64_t hash;
	size_t off, len;
} keyref;

static int cmp_hash(const void *x, const void *y)
{
	const keyref *a = x, *b = y;
	return a->hash < b->hash ? -1 : a->hash > b->hash;
}

static uint64_t fnv1a(const uint8_t *p, size_t n)
{
	uint64_t h = UINT64_C(14695981039346656037);
	size_t i;
	for (i = 0; i < n; i++)
		h = (h ^ p[i]) * UINT64_C(1099511628211);
	return h ^ n;
}

/* 1 when two of the n encoded keys are equal (kr sorted in place). */
static int has_duplicate(keyref *kr, size_t n, const uint8_t *keys)
{
	size_t i, j, run;
	qsort(kr, n, sizeof *kr, cmp_hash);
	for (i = 0; i < n; i = run) {
		for (run = i + 1; run < n && kr[run].hash == kr[i].hash; run++)
			;
		for (j = i; j < run; j++) {
			size_t q;
			for (q = j + 1; q < run; q++)
				if (kr[j].len == kr[q].len && (!kr[j].len || !memcmp(keys + kr[j].off, keys + kr[q].off, kr[j].len)))
					return 1;
		}
	}
	return 0;
}

/* A descriptor element: the bytes it references, appended to the value. */
static int copy_descriptor(pm_blob_writer *bw, pm_fileio *io, const uint8_t *p, size_t len, const char *col,
			   int64_t row, uint64_t *copied)
{
	pm_blob_descriptor d;
	const char *path;
	int rc = pm_blob_descriptor_decode(p, len, 0, &d);
	if (rc)
		return pm_err_wrap("column '%s' input row %lld", col, (long long)row);
	path = pm_path_strip_file_scheme(d.uri);
	if (path[0] != '/' || !io)
		rc = pm_err(PAIMON_EUNSUPPORTED, "column '%s' input row %lld: descriptor URI '%s' is not a local path",
			    col, (long long)row, d.uri);
	else if ((rc = pm_blob_writer_append_file_range(bw, io, path, (uint64_t)d.offset, d.length, copied)))
		pm_err_wrap("column '%s' input row %lld (descriptor of '%s')", col, (long long)row, d.uri);
	pm_blob_descriptor_dispose(&d);
	return rc;
}

int pm_blob_nested_write(pm_blob_writer *bw, const pm_type *t, const struct ArrowSchema *s,
			 const struct ArrowArray *a, int64_t k, pm_fileio *src_io, const char *col, int64_t row,
			 pm_blob_pos *pos)
{
	int is_map = t->root == PM_MAP;
	const struct ArrowArray *ent = a->children[0];
	const struct ArrowArray *ka = is_map ? ent->children[0] : NULL;
	const struct ArrowArray *va = is_map ? ent->children[1] : ent;
	const struct ArrowSchema *vs = is_map ? s->children[0]->children[1] : s->children[0];
	const char *kf = is_map ? s->children[0]->children[0]->format : NULL;
	int vlarge = vs->format[0] == 'Z';
	int value_nullable = is_map ? t->value->nullable : t->element->nullable;
	pm_buf keys = PM_BUF_INIT, idx = PM_BUF_INIT;
	int64_t x, y, n, i, *klen = NULL, *vlen = NULL;
	keyref *kr = NULL;
	uint8_t hdr[9], tail[8];
	size_t kil = 0;
	int rc = 0;

	var_range(a, s->format[1] == 'L', k, &x, &y);
	if (y < x || y - x > INT32_MAX)
		return pm_err(PAIMON_EINVAL, "column '%s' input row %lld: bad %s offsets", col, (long long)row,
			      is_map ? "map" : "list");
	n = y - x;
	/* the element range in the child's own index space */
	x += ent->offset;
	if (n && (!(vlen = pm_malloc((size_t)n * sizeof *vlen)) ||
		  (is_map && (!(klen = pm_malloc((size_t)n * sizeof *klen)) ||
			      !(kr = pm_malloc((size_t)n * sizeof *kr)))))) {
		rc = PAIMON_ENOMEM;
		goto out;
	}
	/* checks and key encodings first: nothing is written for a bad row */
	for (i = 0; i < n; i++) {
		int64_t e = x + i, vk = e + (is_map ? va->offset : 0), p0, p1;
		if (valid_at(va, vk)) {
			var_range(va, vlarge, vk, &p0, &p1);
			if (p1 < p0) {
				rc = pm_err(PAIMON_EINVAL, "column '%s' input row %lld: bad element offsets", col,
					    (long long)row);
				goto out;
			}
		} else if (!value_nullable) {
			rc = pm_err(PAIMON_EINVAL, "%s '%s' does not allow null %s (input row %lld)",
				    is_map ? "MAP<X, BLOB> field" : "ARRAY<BLOB> field", col, is_map ? "values" : "elements",
				    (long long)row);
			goto out;
		}
		if (is_map) {
			int64_t kk = e + ka->offset;
			size_t before = keys.len;
			if (!valid_at(ka, kk)) {
				rc = pm_err(PAIMON_EINVAL, "MAP<X, BLOB> column '%s' input row %lld: a null key", col,
					    (long long)row);
				goto out;
			}
			if ((rc = encode_key(t->key, kf, ka, kk, &keys))) {
				if (rc == PAIMON_EINVAL)
					rc = pm_err(rc, "MAP<X, BLOB> column '%s' input row %lld: bad key offsets", col,
						    (long long)row);
				goto out;
			}
			klen[i] = (int64_t)(keys.len - before);
			kr[i].off = before;
			kr[i].len = keys.len - before;
		}
	}
	if (is_map && n > 1) {
		for (i = 0; i < n; i++)
			kr[i].hash = fnv1a((const uint8_t *)keys.data + kr[i].off, kr[i].len);
		if (has_duplicate(kr, (size_t)n, (const uint8_t *)keys.data)) {
			rc = pm_err(PAIMON_EINVAL, "MAP<X, BLOB> column '%s' input row %lld: keys must be unique", col,
				    (long long)row);
			goto out;
		}
	}
	if ((rc = pm_blob_writer_begin(bw)))
		goto out;
	pm_le32_put(hdr, is_map ? PM_BLOB_MAP_MAGIC : PM_BLOB_ARRAY_MAGIC);
	hdr[4] = PM_BLOB_NESTED_VERSION;
	pm_le32_put(hdr + 5, (uint32_t)n);
	if ((rc = pm_blob_writer_append(bw, hdr, 9)) || (keys.len && (rc = pm_blob_writer_append(bw, keys.data, keys.len))))
		goto out;
	for (i = 0; i < n; i++) {
		int64_t vk = x + i + (is_map ? va->offset : 0), p0, p1;
		const uint8_t *d;
		if (!valid_at(va, vk)) {
			vlen[i] = -1;
			continue;
		}
		var_range(va, vlarge, vk, &p0, &p1);
		d = p1 > p0 ? (const uint8_t *)va->buffers[2] + p0 : (const uint8_t *)"";
		if (pm_blob_descriptor_is(d, (size_t)(p1 - p0))) {
			uint64_t c = 0;
			if ((rc = copy_descriptor(bw, src_io, d, (size_t)(p1 - p0), col, row, &c)))
				goto out;
			vlen[i] = (int64_t)c;
		} else {
			if ((rc = pm_blob_writer_append(bw, d, (size_t)(p1 - p0))))
				goto out;
			vlen[i] = p1 - p0;
		}
	}
	if (is_map) {
		if ((rc = pm_blob_delta_varint_encode(klen, (size_t)n, &idx)))
			goto out;
		kil = idx.len;
	}
	if ((rc = pm_blob_delta_varint_encode(vlen, (size_t)n, &idx)))
		goto out;
	if ((rc = pm_blob_writer_append(bw, idx.data ? idx.data : (const void *)"", idx.len)))
		goto out;
	if (is_map) {
		pm_le32_put(tail, (uint32_t)kil);
		pm_le32_put(tail + 4, (uint32_t)(idx.len - kil));
	} else {
		pm_le32_put(tail, (uint32_t)idx.len);
	}
	if ((rc = pm_blob_writer_append(bw, tail, is_map ? 8 : 4)))
		goto out;
	rc = pm_blob_writer_end(bw, pos);
out:
	pm_free(klen);
	pm_free(vlen);
	pm_free(kr);
	pm_buf_dispose(&keys);
	pm_buf_dispose(&idx);
	return rc;
}
