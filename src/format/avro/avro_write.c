/* format/avro/avro_write.c - datum encoding and object container writer. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "core/crc32.h"
#include "codec/codec.h"
#include "core/error.h"
#include "core/mem.h"
#include "format/avro/avro.h"
#include "paimonc/common.h"

static int enc(const pm_avro_node *s, const pm_avro_value *v, pm_buf *out, int depth);

static int mismatch(const pm_avro_node *s, const pm_avro_value *v)
{
	return pm_err(PAIMON_EINVAL, "avro write: %s value for a %s schema%s%s", pm_avro_kind_name(v->kind),
		      pm_avro_kind_name(s->kind), s->name ? " " : "", s->name ? s->name : "");
}

static int enc_items(const pm_avro_node *s, const pm_avro_value *v, pm_buf *out, int depth, int is_map)
{
	size_t i;
	int rc;
	if (v->u.c.n) {
		if ((rc = pm_avro_put_long(out, (int64_t)v->u.c.n)))
			return rc;
		for (i = 0; i < v->u.c.n; i++) {
			if (is_map) {
				if ((rc = pm_avro_put_long(out, (int64_t)v->u.c.keys[i].n)) ||
				    (rc = pm_buf_append(out, v->u.c.keys[i].p, v->u.c.keys[i].n)))
					return rc;
			}
			if ((rc = enc(s->items, &v->u.c.items[i], out, depth + 1)))
				return rc;
		}
	}
	return pm_avro_put_long(out, 0);
}

static int enc(const pm_avro_node *s, const pm_avro_value *v, pm_buf *out, int depth)
{
	int rc;
	if (depth > PM_AVRO_MAX_DEPTH)
		return pm_err(PAIMON_EINVAL, "avro write: value nested deeper than %d", PM_AVRO_MAX_DEPTH);
	if (s->kind == PM_AVRO_UNION) {
		size_t b;
		if (v->branch >= 0 && (size_t)v->branch < s->n && s->children[v->branch]->kind == v->kind)
			b = (size_t)v->branch;
		else {
			for (b = 0; b < s->n; b++)
				if (s->children[b]->kind == v->kind)
					break;
			/* int fits long, float fits double (Avro promotion) */
			if (b == s->n)
				for (b = 0; b < s->n; b++)
					if ((v->kind == PM_AVRO_INT && s->children[b]->kind == PM_AVRO_LONG) ||
					    (v->kind == PM_AVRO_STRING && s->children[b]->kind == PM_AVRO_BYTES))
						break;
			if (b == s->n)
				return pm_err(PAIMON_EINVAL, "avro write: no union branch for a %s value",
					      pm_avro_kind_name(v->kind));
		}
		if ((rc = pm_avro_put_long(out, (int64_t)b)))
			return rc;
		return enc(s->children[b], v, out, depth + 1);
	}
	if (v->kind != s->kind && !(s->kind == PM_AVRO_LONG && v->kind == PM_AVRO_INT) &&
	    !(s->kind == PM_AVRO_DOUBLE && v->kind == PM_AVRO_FLOAT) &&
	    !((s->kind == PM_AVRO_BYTES || s->kind == PM_AVRO_STRING) &&
	      (v->kind == PM_AVRO_BYTES || v->kind == PM_AVRO_STRING)))
		return mismatch(s, v);
	switch (s->kind) {
	case PM_AVRO_NULL:
		return 0;
	case PM_AVRO_BOOLEAN:
		return pm_buf_putc(out, v->u.boolean ? 1 : 0);
	case PM_AVRO_INT:
	case PM_AVRO_ENUM:
		if (s->kind == PM_AVRO_ENUM && (v->u.i < 0 || (size_t)v->u.i >= s->n))
			return pm_err(PAIMON_EINVAL, "avro write: enum index %d out of range", (int)v->u.i);
		return pm_avro_put_long(out, v->u.i);
	case PM_AVRO_LONG:
		return pm_avro_put_long(out, v->kind == PM_AVRO_INT ? v->u.i : v->u.l);
	case PM_AVRO_FLOAT:
		return pm_buf_append(out, &v->u.f, 4);
	case PM_AVRO_DOUBLE: {
		double d = v->kind == PM_AVRO_FLOAT ? (double)v->u.f : v->u.d;
		return pm_buf_append(out, &d, 8);
	}
	case PM_AVRO_BYTES:
	case PM_AVRO_STRING:
		if ((rc = pm_avro_put_long(out, (int64_t)v->u.bytes.n)))
			return rc;
		return pm_buf_append(out, v->u.bytes.p, v->u.bytes.n);
	case PM_AVRO_FIXED:
		if (v->u.bytes.n != s->fixed_size)
			return pm_err(PAIMON_EINVAL, "avro write: fixed %s needs %zu bytes, got %zu", s->name,
				      s->fixed_size, v->u.bytes.n);
		return pm_buf_append(out, v->u.bytes.p, v->u.bytes.n);
	case PM_AVRO_RECORD: {
		size_t i;
		if (v->u.c.n != s->n)
			return pm_err(PAIMON_EINVAL, "avro write: record %s has %zu fields, value has %zu", s->name,
				      s->n, v->u.c.n);
		for (i = 0; i < s->n; i++)
			if ((rc = enc(s->children[i], &v->u.c.items[i], out, depth + 1)))
				return pm_err_wrap("field %s", s->names[i]);
		return 0;
	}
	case PM_AVRO_ARRAY:
		return enc_items(s, v, out, depth, 0);
	case PM_AVRO_MAP:
		return enc_items(s, v, out, depth, 1);
	case PM_AVRO_UNION:
		break;
	}
	return pm_err(PAIMON_EINVAL, "avro write: bad schema");
}

int pm_avro_encode(const pm_avro_node *schema, const pm_avro_value *v, pm_buf *out)
{
	return enc(schema, v, out, 0);
}

/* ---------------------------------------------------------------- writer */
struct pm_avro_writer {
	pm_avro_schema *schema;
	char *schema_json;
	int codec; /* PM_CODEC_UNCOMPRESSED / DEFLATE / SNAPPY / ZSTD */
	const char *codec_name;
	int level;
	size_t sync_interval;
	uint8_t sync[16];
	pm_buf meta;   /* extra metadata entries, encoded (key, value) pairs */
	size_t nmeta;
	pm_buf file;   /* header + flushed blocks */
	pm_buf block;  /* encoded records of the open block */
	pm_buf comp;
	int64_t count;
	int header_done;
	pm_codec_ctx *cctx;
};

static void random_sync(uint8_t out[16])
{
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	size_t got = 0;
	if (fd >= 0) {
		while (got < 16) {
			ssize_t n = read(fd, out + got, 16 - got);
			if (n <= 0)
				break;
			got += (size_t)n;
		}
		close(fd);
	}
	if (got < 16) { /* fall back to a clock-seeded mix */
		uint64_t x = (uint64_t)time(NULL) ^ (uint64_t)(uintptr_t)out ^ 0x9e3779b97f4a7c15ull;
		size_t i;
		for (i = 0; i < 16; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			out[i] = (uint8_t)x;
		}
	}
}

int pm_avro_writer_new(const char *schema_json, const char *codec, int level, pm_avro_writer **out)
{
	pm_avro_writer *w;
	int rc;
	*out = NULL;
	w = pm_calloc(1, sizeof *w);
	if (!w)
		return PAIMON_ENOMEM;
	if (!codec || strcmp(codec, "null") == 0) {
		w->codec = PM_CODEC_UNCOMPRESSED;
		w->codec_name = "null";
	} else if (strcmp(codec, "deflate") == 0) {
		w->codec = PM_CODEC_DEFLATE;
		w->codec_name = "deflate";
	} else if (strcmp(codec, "snappy") == 0) {
		w->codec = PM_CODEC_SNAPPY;
		w->codec_name = "snappy";
	} else if (strcmp(codec, "zstandard") == 0 || strcmp(codec, "zstd") == 0) {
		w->codec = PM_CODEC_ZSTD;
		w->codec_name = "zstandard";
	} else {
		pm_free(w);
		return pm_err(PAIMON_EUNSUPPORTED, "avro write: unsupported codec \"%s\"", codec);
	}
	w->level = level;
	w->sync_interval = PM_AVRO_SYNC_INTERVAL;
	random_sync(w->sync);
	if ((rc = pm_avro_schema_parse_cached(schema_json, strlen(schema_json), &w->schema))) {
		pm_free(w);
		return rc;
	}
	if (!(w->schema_json = pm_strdup(schema_json))) {
		pm_avro_writer_free(w);
		return PAIMON_ENOMEM;
	}
	*out = w;
	return 0;
}

void pm_avro_writer_set_sync_interval(pm_avro_writer *w, size_t bytes)
{
	w->sync_interval = bytes ? bytes : 1;
}

void pm_avro_writer_set_sync_marker(pm_avro_writer *w, const uint8_t marker[16])
{
	memcpy(w->sync, marker, 16);
}

static int put_bytes(pm_buf *b, const void *p, size_t n)
{
	int rc = pm_avro_put_long(b, (int64_t)n);
	return rc ? rc : pm_buf_append(b, p, n);
}

int pm_avro_writer_set_meta(pm_avro_writer *w, const char *key, const void *v, size_t n)
{
	int rc;
	if (w->header_done)
		return pm_err(PAIMON_EINVAL, "avro write: metadata after the header was written");
	if (strncmp(key, "avro.", 5) == 0)
		return pm_err(PAIMON_EINVAL, "avro write: metadata key %s is reserved", key);
	if ((rc = put_bytes(&w->meta, key, strlen(key))) || (rc = put_bytes(&w->meta, v, n)))
		return rc;
	w->nmeta++;
	return 0;
}

static int write_header(pm_avro_writer *w)
{
	int rc;
	if (w->header_done)
		return 0;
	if ((rc = pm_buf_append(&w->file, "Obj\x01", 4)) ||
	    (rc = pm_avro_put_long(&w->file, (int64_t)(2 + w->nmeta))) ||
	    (rc = put_bytes(&w->file, "avro.schema", 11)) ||
	    (rc = put_bytes(&w->file, w->schema_json, strlen(w->schema_json))) ||
	    (rc = put_bytes(&w->file, "avro.codec", 10)) ||
	    (rc = put_bytes(&w->file, w->codec_name, strlen(w->codec_name))) ||
	    (w->meta.len && (rc = pm_buf_append(&w->file, w->meta.data, w->meta.len))) ||
	    (rc = pm_avro_put_long(&w->file, 0)) || (rc = pm_buf_append(&w->file, w->sync, 16)))
		return rc;
	w->header_done = 1;
	return 0;
}

static int flush_block(pm_avro_writer *w)
{
	int rc;
	const void *payload = w->block.data;
	size_t n = w->block.len;
	if (w->count == 0)
		return 0;
	if (w->codec != PM_CODEC_UNCOMPRESSED) {
		pm_buf_clear(&w->comp);
		if (!w->cctx && (rc = pm_codec_ctx_new(&w->cctx)))
			return rc;
		if ((rc = pm_codec_compress_ctx(w->cctx, w->codec, w->level, w->block.data, w->block.len,
						&w->comp)))
			return rc;
		if (w->codec == PM_CODEC_SNAPPY) {
			uint32_t crc = pm_crc32(0, w->block.data, w->block.len);
			uint8_t be[4] = {(uint8_t)(crc >> 24), (uint8_t)(crc >> 16), (uint8_t)(crc >> 8),
					 (uint8_t)crc};
			if ((rc = pm_buf_append(&w->comp, be, 4)))
				return rc;
		}
		payload = w->comp.data;
		n = w->comp.len;
	}
	if ((rc = pm_avro_put_long(&w->file, w->count)) || (rc = pm_avro_put_long(&w->file, (int64_t)n)) ||
	    (n && (rc = pm_buf_append(&w->file, payload, n))) || (rc = pm_buf_append(&w->file, w->sync, 16)))
		return rc;
	pm_buf_clear(&w->block);
	w->count = 0;
	return 0;
}

int pm_avro_writer_append(pm_avro_writer *w, const pm_avro_value *rec)
{
	size_t before = w->block.len;
	int rc;
	if ((rc = write_header(w)))
		return rc;
	if ((rc = enc(pm_avro_schema_root(w->schema), rec, &w->block, 0))) {
		w->block.len = before; /* drop the partial record */
		return rc;
	}
	w->count++;
	if (w->block.len >= w->sync_interval)
		return flush_block(w);
	return 0;
}

size_t pm_avro_writer_size(const pm_avro_writer *w)
{
	return w->file.len + w->block.len;
}

int pm_avro_writer_finish(pm_avro_writer *w, pm_buf *out)
{
	int rc;
	if ((rc = write_header(w)) || (rc = flush_block(w)))
		return rc;
	return pm_buf_append(out, w->file.data, w->file.len);
}

int pm_avro_writer_finish_to(pm_avro_writer *w, pm_fileio *io, const char *path)
{
	int rc;
	if ((rc = write_header(w)) || (rc = flush_block(w)))
		return rc;
	return pm_fileio_write_new_atomic(io, path, w->file.data, w->file.len);
}

void pm_avro_writer_free(pm_avro_writer *w)
{
	if (!w)
		return;
	pm_avro_schema_free(w->schema);
	pm_free(w->schema_json);
	pm_buf_dispose(&w->meta);
	pm_buf_dispose(&w->file);
	pm_buf_dispose(&w->block);
	pm_buf_dispose(&w->comp);
	pm_codec_ctx_free(w->cctx);
	pm_free(w);
}
