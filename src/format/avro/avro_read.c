/* format/avro/avro_read.c - varints, datum decoding, object container reader. */
#include <string.h>
#include "core/crc32.h"
#include "codec/codec.h"
#include "core/error.h"
#include "core/mem.h"
#include "format/avro/avro.h"
#include "paimonc/common.h"

#define BLOCK_LIMIT ((size_t)256 << 20) /* decompressed block guard */
#define ARENA_LIMIT ((size_t)512 << 20)

int pm_avro_put_long(pm_buf *out, int64_t v)
{
	uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
	uint8_t tmp[10];
	size_t n = 0;
	while (z >= 0x80) {
		tmp[n++] = (uint8_t)(z | 0x80);
		z >>= 7;
	}
	tmp[n++] = (uint8_t)z;
	return pm_buf_append(out, tmp, n);
}

int pm_avro_get_long(const uint8_t **pp, const uint8_t *end, int64_t *v)
{
	const uint8_t *p = *pp;
	uint64_t z = 0;
	int shift = 0;
	*v = 0; /* also on failure, so no caller reads an unset value */
	for (;;) {
		uint8_t b;
		if (p >= end)
			return PAIMON_ECORRUPT;
		b = *p++;
		if (shift == 63 && (b & 0x7e))
			return PAIMON_ECORRUPT; /* more than 64 bits */
		z |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
		shift += 7;
		if (shift > 63)
			return PAIMON_ECORRUPT;
	}
	*v = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
	*pp = p;
	return 0;
}

/* ---------------------------------------------------------------- arena */
typedef struct chunk {
	struct chunk *next;
	size_t cap, used;
	_Alignas(16) unsigned char data[];
} chunk;

typedef struct arena {
	chunk *head;  /* current chunk; earlier ones follow via next */
	size_t total;
} arena;

static void arena_reset(arena *a)
{
	/* Keep the largest (first allocated big) chunk, free the rest. */
	chunk *c = a->head, *keep = NULL;
	while (c) {
		chunk *nx = c->next;
		if (!keep || c->cap > keep->cap) {
			if (keep)
				pm_free(keep);
			keep = c;
		} else
			pm_free(c);
		c = nx;
	}
	if (keep) {
		keep->next = NULL;
		keep->used = 0;
		a->total = keep->cap;
	} else
		a->total = 0;
	a->head = keep;
}

static void arena_free(arena *a)
{
	chunk *c = a->head;
	while (c) {
		chunk *nx = c->next;
		pm_free(c);
		c = nx;
	}
	a->head = NULL;
	a->total = 0;
}

static void *arena_alloc(arena *a, size_t n)
{
	chunk *c = a->head;
	n = (n + 15) & ~(size_t)15;
	if (!c || c->cap - c->used < n) {
		size_t cap = c ? c->cap * 2 : 4096;
		if (cap < n)
			cap = n;
		if (a->total + cap > ARENA_LIMIT) {
			pm_err(PAIMON_ECORRUPT, "avro: record needs more than %zu bytes of memory", ARENA_LIMIT);
			return NULL;
		}
		c = pm_malloc(sizeof *c + cap);
		if (!c)
			return NULL;
		c->cap = cap;
		c->used = 0;
		c->next = a->head;
		a->head = c;
		a->total += cap;
	}
	c->used += n;
	return c->data + c->used - n;
}

/* ---------------------------------------------------------------- decode */
typedef struct dec {
	const uint8_t *p, *end;
	arena *ar;
} dec;

#define BAD(what) pm_err(PAIMON_ECORRUPT, "%s", what)

static int get_len(dec *d, size_t *n, const char *what)
{
	int64_t v;
	*n = 0; /* also on failure, so no caller reads an unset value */
	if (pm_avro_get_long(&d->p, d->end, &v))
		return pm_err(PAIMON_ECORRUPT, "bad varint in %s", what);
	if (v < 0 || (uint64_t)v > (uint64_t)(d->end - d->p))
		return pm_err(PAIMON_ECORRUPT, "%s length %lld exceeds the %zu bytes left", what, (long long)v,
			      (size_t)(d->end - d->p));
	*n = (size_t)v;
	return 0;
}

/* Block counts: negative means |count| followed by a byte size. Bounded. */
static int get_count(dec *d, int64_t *count, const char *what)
{
	int64_t v, sz;
	if (pm_avro_get_long(&d->p, d->end, &v))
		return pm_err(PAIMON_ECORRUPT, "bad %s block count", what);
	if (v < 0) {
		if (v == INT64_MIN)
			return pm_err(PAIMON_ECORRUPT, "bad %s block count", what);
		v = -v;
		if (pm_avro_get_long(&d->p, d->end, &sz) || sz < 0)
			return pm_err(PAIMON_ECORRUPT, "bad %s block size", what);
	}
	if (v > (int64_t)(d->end - d->p) && v > 65536)
		return pm_err(PAIMON_ECORRUPT, "%s block count %lld exceeds the %zu bytes left", what,
			      (long long)v, (size_t)(d->end - d->p));
	*count = v;
	return 0;
}

static int decode(dec *d, const pm_avro_node *s, pm_avro_value *v, int depth);

static int decode_items(dec *d, const pm_avro_node *s, pm_avro_value *v, int depth, int is_map)
{
	size_t n = 0, cap = 0;
	pm_avro_value *items = NULL;
	pm_avro_bytes *keys = NULL;
	for (;;) {
		int64_t cnt, i;
		int rc;
		if ((rc = get_count(d, &cnt, is_map ? "map" : "array")))
			return rc;
		if (cnt == 0)
			break;
		if ((uint64_t)cnt > (uint64_t)(SIZE_MAX / sizeof *items) - n)
			return BAD("array too long");
		if (n + (size_t)cnt > cap) {
			size_t nc = n + (size_t)cnt;
			pm_avro_value *ni;
			if (nc < cap * 2)
				nc = cap * 2;
			ni = arena_alloc(d->ar, nc * sizeof *ni);
			if (!ni)
				return pm_err_code() ? pm_err_code() : PAIMON_ENOMEM;
			if (n)
				memcpy(ni, items, n * sizeof *ni);
			items = ni;
			if (is_map) {
				pm_avro_bytes *nk = arena_alloc(d->ar, nc * sizeof *nk);
				if (!nk)
					return pm_err_code() ? pm_err_code() : PAIMON_ENOMEM;
				if (n)
					memcpy(nk, keys, n * sizeof *nk);
				keys = nk;
			}
			cap = nc;
		}
		for (i = 0; i < cnt; i++) {
			if (is_map) {
				size_t kl;
				if ((rc = get_len(d, &kl, "map key")))
					return rc;
				keys[n].p = d->p;
				keys[n].n = kl;
				d->p += kl;
			}
			if ((rc = decode(d, s->items, &items[n], depth + 1)))
				return rc;
			n++;
		}
	}
	v->u.c.items = items;
	v->u.c.keys = keys;
	v->u.c.n = n;
	return 0;
}

static int decode(dec *d, const pm_avro_node *s, pm_avro_value *v, int depth)
{
	int rc;
	size_t n;
	if (depth > PM_AVRO_MAX_DEPTH)
		return pm_err(PAIMON_ECORRUPT, "datum nested deeper than %d", PM_AVRO_MAX_DEPTH);
	v->kind = s->kind;
	v->schema = s;
	v->branch = -1;
	switch (s->kind) {
	case PM_AVRO_NULL:
		return 0;
	case PM_AVRO_BOOLEAN:
		if (d->p >= d->end)
			return BAD("truncated boolean");
		if (*d->p > 1)
			return pm_err(PAIMON_ECORRUPT, "bad boolean byte 0x%02x", *d->p);
		v->u.boolean = *d->p++;
		return 0;
	case PM_AVRO_INT:
	case PM_AVRO_ENUM: {
		int64_t l;
		if (pm_avro_get_long(&d->p, d->end, &l) || l < INT32_MIN || l > INT32_MAX)
			return BAD(s->kind == PM_AVRO_INT ? "bad int" : "bad enum index");
		if (s->kind == PM_AVRO_ENUM && (l < 0 || (size_t)l >= s->n))
			return pm_err(PAIMON_ECORRUPT, "enum index %lld out of range", (long long)l);
		v->u.i = (int32_t)l;
		return 0;
	}
	case PM_AVRO_LONG:
		if (pm_avro_get_long(&d->p, d->end, &v->u.l))
			return BAD("bad long");
		return 0;
	case PM_AVRO_FLOAT:
		if (d->end - d->p < 4)
			return BAD("truncated float");
		memcpy(&v->u.f, d->p, 4); /* little-endian hosts */
		d->p += 4;
		return 0;
	case PM_AVRO_DOUBLE:
		if (d->end - d->p < 8)
			return BAD("truncated double");
		memcpy(&v->u.d, d->p, 8);
		d->p += 8;
		return 0;
	case PM_AVRO_BYTES:
	case PM_AVRO_STRING:
		if ((rc = get_len(d, &n, s->kind == PM_AVRO_STRING ? "string" : "bytes")))
			return rc;
		v->u.bytes.p = d->p;
		v->u.bytes.n = n;
		d->p += n;
		return 0;
	case PM_AVRO_FIXED:
		if ((size_t)(d->end - d->p) < s->fixed_size)
			return BAD("truncated fixed");
		v->u.bytes.p = d->p;
		v->u.bytes.n = s->fixed_size;
		d->p += s->fixed_size;
		return 0;
	case PM_AVRO_RECORD: {
		size_t i;
		pm_avro_value *f = NULL;
		if (s->n) {
			f = arena_alloc(d->ar, s->n * sizeof *f);
			if (!f)
				return pm_err_code() ? pm_err_code() : PAIMON_ENOMEM;
		}
		for (i = 0; i < s->n; i++)
			if ((rc = decode(d, s->children[i], &f[i], depth + 1)))
				return rc;
		v->u.c.items = f;
		v->u.c.keys = NULL;
		v->u.c.n = s->n;
		return 0;
	}
	case PM_AVRO_ARRAY:
		return decode_items(d, s, v, depth, 0);
	case PM_AVRO_MAP:
		return decode_items(d, s, v, depth, 1);
	case PM_AVRO_UNION: {
		int64_t b;
		if (pm_avro_get_long(&d->p, d->end, &b))
			return BAD("bad union branch");
		if (b < 0 || (uint64_t)b >= s->n)
			return pm_err(PAIMON_ECORRUPT, "union branch %lld out of range (%zu branches)", (long long)b,
				      s->n);
		if ((rc = decode(d, s->children[b], v, depth + 1)))
			return rc;
		v->branch = (int32_t)b;
		return 0;
	}
	}
	return BAD("unknown schema kind");
}

/* ---------------------------------------------------------------- reader */
enum { C_NULL, C_DEFLATE, C_SNAPPY, C_ZSTD };

struct pm_avro_reader {
	const uint8_t *data;
	size_t len;
	pm_buf owned;
	pm_avro_schema *schema;
	int codec;
	char codec_name[16];
	pm_avro_bytes *meta_keys, *meta_vals;
	size_t nmeta;
	uint8_t sync[16];
	size_t pos;          /* file offset of the next block */
	size_t block_no;     /* 0-based number of the current block */
	size_t block_off;    /* file offset of the current block */
	int64_t left;        /* records left in the current block */
	dec d;
	pm_buf block;        /* decompressed block */
	pm_codec_ctx *cctx;
	arena ar;
	pm_avro_value rec;
	int failed;
	int have_block;
	int64_t rec_no;
};

static int hdr_err(size_t off, const char *what)
{
	return pm_err(PAIMON_ECORRUPT, "avro header at offset %zu: %s", off, what);
}

static int read_header(pm_avro_reader *r)
{
	dec d;
	pm_avro_bytes schema = {NULL, 0};
	size_t cap = 0;
	int rc;
	if (r->len < 4 || memcmp(r->data, "Obj\x01", 4) != 0)
		return pm_err(PAIMON_ECORRUPT, "avro: not an Avro object container file (bad magic)");
	d.p = r->data + 4;
	d.end = r->data + r->len;
	d.ar = NULL;
	for (;;) {
		int64_t cnt, i;
		if ((rc = get_count(&d, &cnt, "metadata map")))
			return hdr_err((size_t)(d.p - r->data), "bad metadata map block");
		if (cnt == 0)
			break;
		for (i = 0; i < cnt; i++) {
			size_t kl, vl;
			const uint8_t *k;
			if (get_len(&d, &kl, "metadata key"))
				return hdr_err((size_t)(d.p - r->data), "truncated metadata key");
			k = d.p;
			d.p += kl;
			if (get_len(&d, &vl, "metadata value"))
				return hdr_err((size_t)(d.p - r->data), "truncated metadata value");
			if (r->nmeta == cap) {
				size_t nc = cap ? cap * 2 : 8;
				pm_avro_bytes *a = pm_realloc(r->meta_keys, nc * sizeof *a);
				if (!a)
					return PAIMON_ENOMEM;
				r->meta_keys = a;
				a = pm_realloc(r->meta_vals, nc * sizeof *a);
				if (!a)
					return PAIMON_ENOMEM;
				r->meta_vals = a;
				cap = nc;
			}
			r->meta_keys[r->nmeta].p = k;
			r->meta_keys[r->nmeta].n = kl;
			r->meta_vals[r->nmeta].p = d.p;
			r->meta_vals[r->nmeta].n = vl;
			r->nmeta++;
			d.p += vl;
		}
	}
	if ((size_t)(d.end - d.p) < 16)
		return hdr_err((size_t)(d.p - r->data), "truncated sync marker");
	memcpy(r->sync, d.p, 16);
	d.p += 16;
	r->pos = (size_t)(d.p - r->data);
	if (pm_avro_reader_meta(r, "avro.schema", &schema))
		return pm_err(PAIMON_ECORRUPT, "avro: header has no avro.schema");
	if ((rc = pm_avro_schema_parse_cached((const char *)schema.p, schema.n, &r->schema)))
		return pm_err_wrap("avro header");
	{
		pm_avro_bytes c;
		r->codec = C_NULL;
		strcpy(r->codec_name, "null");
		if (pm_avro_reader_meta(r, "avro.codec", &c) == 0) {
			char name[16];
			size_t l = c.n < sizeof name - 1 ? c.n : sizeof name - 1;
			memcpy(name, c.p, l);
			name[l] = 0;
			if (c.n >= sizeof name)
				return pm_err(PAIMON_EUNSUPPORTED, "avro: unsupported codec");
			if (strcmp(name, "null") == 0 || l == 0)
				r->codec = C_NULL;
			else if (strcmp(name, "deflate") == 0)
				r->codec = C_DEFLATE;
			else if (strcmp(name, "snappy") == 0)
				r->codec = C_SNAPPY;
			else if (strcmp(name, "zstandard") == 0)
				r->codec = C_ZSTD;
			else
				return pm_err(PAIMON_EUNSUPPORTED, "avro: unsupported codec \"%s\"", name);
			if (l)
				strcpy(r->codec_name, name);
		}
	}
	return 0;
}

int pm_avro_reader_meta(const pm_avro_reader *r, const char *key, pm_avro_bytes *out)
{
	size_t i, kl = strlen(key);
	for (i = 0; i < r->nmeta; i++)
		if (r->meta_keys[i].n == kl && memcmp(r->meta_keys[i].p, key, kl) == 0) {
			*out = r->meta_vals[i];
			return 0;
		}
	return PAIMON_ENOTFOUND;
}

const pm_avro_schema *pm_avro_reader_schema(const pm_avro_reader *r)
{
	return r->schema;
}

const char *pm_avro_reader_codec(const pm_avro_reader *r)
{
	return r->codec_name;
}

int pm_avro_reader_open_mem(const void *data, size_t len, pm_avro_reader **out)
{
	pm_avro_reader *r = pm_calloc(1, sizeof *r);
	int rc;
	*out = NULL;
	if (!r)
		return PAIMON_ENOMEM;
	r->data = data;
	r->len = len;
	if ((rc = read_header(r))) {
		pm_avro_reader_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

int pm_avro_reader_open(pm_fileio *io, const char *path, pm_avro_reader **out)
{
	pm_buf b = PM_BUF_INIT;
	int rc = pm_fileio_read_all(io, path, &b);
	pm_avro_reader *r;
	*out = NULL;
	if (rc) {
		pm_buf_dispose(&b);
		return rc;
	}
	if ((rc = pm_avro_reader_open_mem(b.data ? b.data : "", b.len, &r))) {
		pm_buf_dispose(&b);
		return pm_err_wrap("%s", path);
	}
	r->owned = b;
	*out = r;
	return 0;
}

void pm_avro_reader_free(pm_avro_reader *r)
{
	if (!r)
		return;
	pm_avro_schema_free(r->schema);
	pm_free(r->meta_keys);
	pm_free(r->meta_vals);
	pm_buf_dispose(&r->block);
	pm_buf_dispose(&r->owned);
	pm_codec_ctx_free(r->cctx);
	arena_free(&r->ar);
	pm_free(r);
}

static int blk_err(pm_avro_reader *r, const char *fmt, const char *detail)
{
	r->failed = 1;
	return pm_err(PAIMON_ECORRUPT, "avro block %zu at offset %zu: %s%s", r->block_no, r->block_off, fmt,
		      detail ? detail : "");
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Opens the next block; 1 if one was opened, 0 at end of file. */
static int next_block(pm_avro_reader *r)
{
	const uint8_t *p = r->data + r->pos, *end = r->data + r->len;
	int64_t cnt, size;
	const uint8_t *payload;
	int rc;
	if (p == end)
		return 0;
	r->block_off = r->pos;
	if (pm_avro_get_long(&p, end, &cnt) || cnt < 0)
		return blk_err(r, "bad record count", NULL);
	if (pm_avro_get_long(&p, end, &size) || size < 0)
		return blk_err(r, "bad block size", NULL);
	if ((uint64_t)size > (uint64_t)(end - p) || (uint64_t)(end - p) - (uint64_t)size < 16)
		return blk_err(r, "block size exceeds the file (truncated?)", NULL);
	payload = p;
	p += size;
	if (memcmp(p, r->sync, 16) != 0)
		return blk_err(r, "sync marker mismatch", NULL);
	p += 16;
	r->pos = (size_t)(p - r->data);
	pm_buf_clear(&r->block);
	switch (r->codec) {
	case C_NULL:
		r->d.p = payload;
		r->d.end = payload + size;
		break;
	case C_DEFLATE:
	case C_ZSTD:
	case C_SNAPPY: {
		size_t n = (size_t)size, limit;
		int codec = r->codec == C_DEFLATE ? PM_CODEC_DEFLATE
			    : r->codec == C_ZSTD  ? PM_CODEC_ZSTD
						  : PM_CODEC_SNAPPY;
		if (r->codec == C_SNAPPY) {
			if (n < 4)
				return blk_err(r, "snappy block shorter than its CRC", NULL);
			n -= 4;
		}
		if (!r->cctx && (rc = pm_codec_ctx_new(&r->cctx)))
			return rc;
		/* Writers flush at ~64 KB (Java) / 16 KB (fastavro) uncompressed, so a
		 * block inflating past max(16 MiB, 4096 x its size) is corrupt. */
		limit = n > BLOCK_LIMIT / 4096 ? BLOCK_LIMIT : n * 4096;
		if (limit < ((size_t)16 << 20))
			limit = (size_t)16 << 20;
		if ((rc = pm_codec_decompress_buf(r->cctx, codec, payload, n, limit, &r->block))) {
			r->failed = 1;
			return pm_err_wrap("avro block %zu at offset %zu", r->block_no, r->block_off);
		}
		if (r->codec == C_SNAPPY) {
			if (pm_crc32(0, r->block.data, r->block.len) != be32(payload + n))
				return blk_err(r, "snappy CRC32 mismatch", NULL);
		}
		if (r->block.data) {
			r->d.p = (const uint8_t *)r->block.data;
			r->d.end = r->d.p + r->block.len;
		} else {
			r->d.p = r->d.end = payload; /* empty: no pointer arithmetic on NULL */
		}
		break;
	}
	}
	if (cnt > (int64_t)(r->d.end - r->d.p) && cnt > (1 << 20))
		return blk_err(r, "record count exceeds the block size", NULL);
	r->left = cnt;
	return 1;
}

int pm_avro_reader_next(pm_avro_reader *r, const pm_avro_value **rec)
{
	int rc;
	*rec = NULL;
	if (r->failed)
		return pm_err(PAIMON_ECORRUPT, "avro: reader already failed");
	while (r->left == 0) {
		/* Leftover bytes in a finished block mean a corrupt block or wrong schema. */
		if (r->have_block && r->d.p != r->d.end)
			return blk_err(r, "bytes left over after the block's records", NULL);
		if (r->have_block)
			r->block_no++;
		rc = next_block(r);
		if (rc <= 0)
			return rc;
		r->have_block = 1;
		r->rec_no = 0;
	}
	arena_reset(&r->ar);
	r->d.ar = &r->ar;
	if ((rc = decode(&r->d, pm_avro_schema_root(r->schema), &r->rec, 0))) {
		r->failed = 1;
		return pm_err_wrap("avro block %zu at offset %zu, record %lld", r->block_no, r->block_off,
				   (long long)r->rec_no);
	}
	r->rec_no++;
	r->left--;
	*rec = &r->rec;
	return 1;
}

/* Parses the block header at file offset pos: record count, payload size,
 * and the offset after its sync marker. 0 or PAIMON_ECORRUPT (not set as
 * the error: callers word it). */
static int peek_block(const pm_avro_reader *r, size_t pos, int64_t *cnt, size_t *after, const char **why)
{
	const uint8_t *p = r->data + pos, *end = r->data + r->len;
	int64_t size;
	if (pm_avro_get_long(&p, end, cnt) || *cnt < 0) {
		*why = "bad record count";
		return PAIMON_ECORRUPT;
	}
	if (pm_avro_get_long(&p, end, &size) || size < 0) {
		*why = "bad block size";
		return PAIMON_ECORRUPT;
	}
	if ((uint64_t)size > (uint64_t)(end - p) || (uint64_t)(end - p) - (uint64_t)size < 16) {
		*why = "block size exceeds the file (truncated?)";
		return PAIMON_ECORRUPT;
	}
	p += size;
	if (memcmp(p, r->sync, 16) != 0) {
		*why = "sync marker mismatch";
		return PAIMON_ECORRUPT;
	}
	*after = (size_t)(p + 16 - r->data);
	return 0;
}

int pm_avro_reader_count(const pm_avro_reader *r, int64_t *out)
{
	size_t pos = r->pos, after, no = r->block_no + (r->have_block ? 1 : 0);
	int64_t total = r->left, cnt;
	const char *why;
	*out = 0;
	while (pos < r->len) {
		if (peek_block(r, pos, &cnt, &after, &why))
			return pm_err(PAIMON_ECORRUPT, "avro block %zu at offset %zu: %s", no, pos, why);
		if (cnt > INT64_MAX - total)
			return pm_err(PAIMON_ECORRUPT, "avro block %zu at offset %zu: record count overflows", no, pos);
		total += cnt;
		pos = after;
		no++;
	}
	*out = total;
	return 0;
}

int pm_avro_reader_skip(pm_avro_reader *r, int64_t n, int64_t *skipped)
{
	int64_t done = 0;
	int rc = 0;
	if (r->failed)
		return pm_err(PAIMON_ECORRUPT, "avro: reader already failed");
	while (done < n) {
		if (r->left == 0) {
			int64_t cnt;
			size_t after;
			const char *why;
			if (r->have_block) {
				if (r->d.p != r->d.end) {
					rc = blk_err(r, "bytes left over after the block's records", NULL);
					break;
				}
				r->block_no++;
				r->have_block = 0;
			}
			if (r->pos >= r->len)
				break;
			if (peek_block(r, r->pos, &cnt, &after, &why)) {
				r->block_off = r->pos;
				rc = blk_err(r, why, NULL);
				break;
			}
			if (cnt <= n - done) {
				/* the whole block: not decompressed */
				done += cnt;
				r->pos = after;
				r->block_no++;
				continue;
			}
			if ((rc = next_block(r)) <= 0)
				break;
			rc = 0;
			r->have_block = 1;
			r->rec_no = 0;
		}
		arena_reset(&r->ar);
		r->d.ar = &r->ar;
		if ((rc = decode(&r->d, pm_avro_schema_root(r->schema), &r->rec, 0))) {
			r->failed = 1;
			rc = pm_err_wrap("avro block %zu at offset %zu, record %lld", r->block_no, r->block_off,
					 (long long)r->rec_no);
			break;
		}
		r->rec_no++;
		r->left--;
		done++;
	}
	if (skipped)
		*skipped = done;
	return rc;
}
