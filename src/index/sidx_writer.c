/*
 * index/sidx_writer.c - streaming writers of btree and bitmap global index
 * files (sorted_index.h; layouts in ../shared/spec/global-index.md §3, §4).
 *
 * btree: equal keys form one SST entry (key -> posting list of row ids);
 * entries fill data blocks closed once their estimated size exceeds the
 * block size; nulls go to a null bitmap (+ CRC-32); an index block maps each
 * data block's last key to its handle; 52-byte little-endian footer.
 * bitmap (Java's StreamingWriter order): per distinct key its Roaring64
 * bitmap, dictionary blocks interleaved as they fill, then the null and
 * non-null bitmaps, the dictionary index block and the 48-byte big-endian
 * footer.
 */
#include <string.h>

#include "core/crc32.h"
#include "core/endian.h"
#include "core/error.h"
#include "core/mem.h"
#include "index/sidx_internal.h"
#include "types/datum.h"

/* An SST block under construction (BlockWriter). */
typedef struct bwriter {
	pm_buf body;
	uint32_t *pos;
	size_t n, cap;
	int aligned;
	size_t asz;
} bwriter;

static int bw_add(bwriter *b, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl)
{
	size_t start = b->body.len, sz;
	if (b->n == b->cap) {
		size_t nc = b->cap ? b->cap * 2 : 64;
		uint32_t *np = pm_realloc(b->pos, nc * sizeof *np);
		if (!np)
			return PAIMON_ENOMEM;
		b->pos = np;
		b->cap = nc;
	}
	if (start > INT32_MAX)
		return pm_err(PAIMON_EINVAL, "btree index: block exceeds 2 GiB");
	if (pm_sidx_put_varint(&b->body, kl) || pm_buf_append(&b->body, k, kl) || pm_sidx_put_varint(&b->body, vl) ||
	    pm_buf_append(&b->body, v, vl))
		return PAIMON_ENOMEM;
	b->pos[b->n++] = (uint32_t)start;
	sz = b->body.len - start;
	if (b->n == 1) {
		b->aligned = 1;
		b->asz = sz;
	} else if (b->aligned && sz != b->asz) {
		b->aligned = 0;
	}
	return 0;
}

static size_t bw_memory(const bwriter *b)
{
	return b->body.len + 5 + (b->aligned ? 0 : b->n * 4);
}

/* Appends the block's tail (aligned or offsets) to body. */
static int bw_finish(bwriter *b)
{
	uint8_t t[5];
	size_t i;
	if (b->n == 0)
		b->aligned = 0;
	if (b->aligned) {
		pm_le32_put(t, (uint32_t)b->asz);
		t[4] = 0;
		return pm_buf_append(&b->body, t, 5);
	}
	for (i = 0; i < b->n; i++) {
		pm_le32_put(t, b->pos[i]);
		if (pm_buf_append(&b->body, t, 4))
			return PAIMON_ENOMEM;
	}
	pm_le32_put(t, (uint32_t)b->n);
	t[4] = 1;
	return pm_buf_append(&b->body, t, 5);
}

static void bw_reset(bwriter *b)
{
	pm_buf_clear(&b->body);
	b->n = 0;
	b->aligned = 1;
	b->asz = 0;
}

static void bw_dispose(bwriter *b)
{
	pm_buf_dispose(&b->body);
	pm_free(b->pos);
}

struct pm_sidx_writer {
	pm_sidx_kind kind;
	pm_type *type;
	pm_out_stream *out;
	char *path;
	pm_sidx_opts o;
	pm_codec_ctx *cctx;
	uint64_t pos;
	int64_t rows;
	int failed, finished;

	pm_buf cur;         /* serialized current key */
	int has_cur;
	int64_t cur_last_row;
	pm_buf first;
	pm_buf key, scratch, tmp;
	pm_rb64 *nulls;

	/* btree */
	pm_buf posting;
	uint64_t posting_n;
	bwriter data, index;
	pm_buf blk_last;

	/* bitmap */
	pm_rb64 *cur_bm, *nonnull;
	pm_buf dict;        /* entries of the current dictionary block */
	size_t dict_n;
	pm_buf dict_first;
	pm_buf dindex;      /* entries of the dictionary index */
	size_t dindex_n;
	int64_t values;
};

static int w_write(pm_sidx_writer *w, const void *p, size_t n)
{
	int rc;
	if (!n)
		return 0;
	if ((rc = pm_out_append(w->out, p, n)))
		return pm_err_wrap("%s", w->path);
	w->pos += n;
	return 0;
}

int pm_sidx_writer_new(pm_sidx_kind kind, const pm_type *key_type, const pm_strmap *opts, pm_out_stream *out,
		       const char *path, pm_sidx_writer **wp)
{
	pm_sidx_writer *w;
	int rc;
	*wp = NULL;
	if (kind != PM_SIDX_BTREE && kind != PM_SIDX_BITMAP)
		return pm_err(PAIMON_EINVAL, "sorted global index: unknown index kind %d", (int)kind);
	if (!pm_sidx_type_supported(key_type)) {
		pm_buf d = PM_BUF_INIT;
		return pm_sidx_key_serialize(key_type, NULL, &d);
	}
	if (!(w = pm_calloc(1, sizeof *w)))
		return PAIMON_ENOMEM;
	w->kind = kind;
	w->out = out;
	w->data.aligned = w->index.aligned = 1;
	if ((rc = pm_sidx_opts_read(kind, opts, 1, &w->o)))
		goto fail;
	if (!(w->type = pm_type_copy(key_type)) || !(w->path = pm_strdup(path ? path : "(index file)")) ||
	    pm_rb64_new(&w->nulls)) {
		rc = PAIMON_ENOMEM;
		goto fail;
	}
	if (kind == PM_SIDX_BITMAP && (pm_rb64_new(&w->nonnull) || pm_rb64_new(&w->cur_bm))) {
		rc = PAIMON_ENOMEM;
		goto fail;
	}
	if (w->o.compression != PM_SIDX_COMP_NONE && (rc = pm_codec_ctx_new(&w->cctx)))
		goto fail;
	*wp = w;
	return 0;
fail:
	pm_sidx_writer_free(w);
	return rc;
}

void pm_sidx_writer_free(pm_sidx_writer *w)
{
	if (!w)
		return;
	pm_type_free(w->type);
	pm_free(w->path);
	pm_codec_ctx_free(w->cctx);
	pm_buf_dispose(&w->cur);
	pm_buf_dispose(&w->first);
	pm_buf_dispose(&w->scratch);
	pm_buf_dispose(&w->key);
	pm_buf_dispose(&w->tmp);
	pm_rb64_free(w->nulls);
	pm_buf_dispose(&w->posting);
	bw_dispose(&w->data);
	bw_dispose(&w->index);
	pm_buf_dispose(&w->blk_last);
	pm_rb64_free(w->cur_bm);
	pm_rb64_free(w->nonnull);
	pm_buf_dispose(&w->dict);
	pm_buf_dispose(&w->dict_first);
	pm_buf_dispose(&w->dindex);
	pm_free(w);
}

static int buf_set(pm_buf *dst, const pm_buf *src)
{
	pm_buf_clear(dst);
	return src->len ? pm_buf_append(dst, src->data, src->len) : pm_buf_reserve(dst, 1);
}

/* Writes body as a (maybe compressed) block + trailer; offset/stored length out. */
static int w_block(pm_sidx_writer *w, const pm_buf *body, uint64_t *off, size_t *len)
{
	int rc;
	pm_buf_clear(&w->tmp);
	if ((rc = pm_sidx_encode_block(w->cctx, &w->o, (const uint8_t *)body->data, body->len, &w->tmp, len)))
		return rc;
	*off = w->pos;
	return w_write(w, w->tmp.data, w->tmp.len);
}

/* ------------------------------------------------------------------ btree */

static int bt_flush_block(pm_sidx_writer *w)
{
	uint64_t off = 0;
	size_t len = 0;
	int rc;
	if (w->data.n == 0)
		return 0;
	if ((rc = bw_finish(&w->data)) || (rc = w_block(w, &w->data.body, &off, &len)))
		return rc;
	bw_reset(&w->data);
	pm_buf_clear(&w->scratch);
	if (pm_sidx_put_varint(&w->scratch, off) || pm_sidx_put_varint(&w->scratch, len))
		return PAIMON_ENOMEM;
	return bw_add(&w->index, (const uint8_t *)w->blk_last.data, w->blk_last.len, (const uint8_t *)w->scratch.data,
		      w->scratch.len);
}

static int bt_flush_key(pm_sidx_writer *w)
{
	int rc;
	if (!w->posting_n)
		return 0;
	pm_buf_clear(&w->tmp);
	if (pm_sidx_put_varint(&w->tmp, w->posting_n) || pm_buf_append(&w->tmp, w->posting.data, w->posting.len))
		return PAIMON_ENOMEM;
	if ((rc = bw_add(&w->data, (const uint8_t *)w->cur.data, w->cur.len, (const uint8_t *)w->tmp.data, w->tmp.len)))
		return rc;
	if ((rc = buf_set(&w->blk_last, &w->cur)))
		return rc;
	pm_buf_clear(&w->posting);
	w->posting_n = 0;
	if (bw_memory(&w->data) > (size_t)w->o.block_size)
		return bt_flush_block(w);
	return 0;
}

/* ----------------------------------------------------------------- bitmap */

static int bm_flush_dict(pm_sidx_writer *w)
{
	uint64_t off = 0;
	size_t len = 0;
	int rc;
	if (!w->dict_n)
		return 0;
	pm_buf_clear(&w->scratch);
	if (pm_sidx_put_varint(&w->scratch, w->dict_n) || pm_buf_append(&w->scratch, w->dict.data, w->dict.len))
		return PAIMON_ENOMEM;
	if ((rc = w_block(w, &w->scratch, &off, &len)))
		return rc;
	if (pm_sidx_put_varint(&w->dindex, w->dict_first.len) ||
	    pm_buf_append(&w->dindex, w->dict_first.data, w->dict_first.len) || pm_sidx_put_varint(&w->dindex, off) ||
	    pm_sidx_put_varint(&w->dindex, len))
		return PAIMON_ENOMEM;
	w->dindex_n++;
	w->dict_n = 0;
	pm_buf_clear(&w->dict);
	return 0;
}

static int w_bitmap(pm_sidx_writer *w, pm_rb64 *b, uint64_t *off, size_t *len)
{
	int rc;
	pm_buf_clear(&w->tmp);
	if ((rc = pm_rb64_serialize(b, &w->tmp)))
		return rc;
	if (w->tmp.len > INT32_MAX)
		return pm_err(PAIMON_EINVAL, "%s: bitmap exceeds 2 GiB", w->path);
	*off = w->pos;
	*len = w->tmp.len;
	return w_write(w, w->tmp.data, w->tmp.len);
}

static int bm_emit_key(pm_sidx_writer *w)
{
	uint64_t off = 0;
	size_t len = 0, esz;
	int rc;
	if (!w->has_cur || pm_rb64_is_empty(w->cur_bm))
		return 0;
	if ((rc = w_bitmap(w, w->cur_bm, &off, &len)))
		return rc;
	esz = pm_sidx_varint_size(w->cur.len) + w->cur.len + pm_sidx_varint_size(off) + pm_sidx_varint_size(len);
	if (w->dict_n && pm_sidx_varint_size(w->dict_n + 1) + w->dict.len + esz > (size_t)w->o.block_size &&
	    (rc = bm_flush_dict(w)))
		return rc;
	if (!w->dict_n && (rc = buf_set(&w->dict_first, &w->cur)))
		return rc;
	if (pm_sidx_put_varint(&w->dict, w->cur.len) || pm_buf_append(&w->dict, w->cur.data, w->cur.len) ||
	    pm_sidx_put_varint(&w->dict, off) || pm_sidx_put_varint(&w->dict, len))
		return PAIMON_ENOMEM;
	w->dict_n++;
	w->values++;
	pm_rb64_free(w->cur_bm);
	w->cur_bm = NULL;
	return pm_rb64_new(&w->cur_bm);
}

/* ------------------------------------------------------------------- add */

int pm_sidx_writer_add(pm_sidx_writer *w, const pm_binrow_datum *key, int64_t row)
{
	int rc, c = 1;
	if (w->failed || w->finished)
		return pm_err(PAIMON_EINVAL, "%s: index writer used after %s", w->path,
			      w->finished ? "finish" : "an error");
	if (row < 0)
		return pm_err(PAIMON_EINVAL, "%s: negative relative row id %lld", w->path, (long long)row);
	if (!key || key->is_null) {
		if ((rc = pm_rb64_add(w->nulls, (uint64_t)row)))
			goto fail;
		w->rows++;
		return 0;
	}
	pm_buf_clear(&w->key);
	if ((rc = pm_sidx_key_serialize(w->type, key, &w->key)))
		return rc;
	if (w->has_cur) {
		pm_binrow_datum a;
		if ((rc = pm_sidx_key_decode(w->type, (const uint8_t *)w->cur.data, w->cur.len, w->path, &a)))
			goto fail;
		c = pm_datum_compare(w->type, key, &a);
		if (c < 0)
			return pm_err(PAIMON_EINVAL, "%s: keys must be added in non-decreasing order (row %lld)", w->path,
				      (long long)row);
		if (c == 0 && row <= w->cur_last_row)
			return pm_err(PAIMON_EINVAL, "%s: row ids of one key must ascend (%lld after %lld)", w->path,
				      (long long)row, (long long)w->cur_last_row);
	}
	if (c != 0) {
		if (w->kind == PM_SIDX_BTREE)
			rc = bt_flush_key(w);
		else
			rc = bm_emit_key(w);
		if (rc)
			goto fail;
		if (!w->has_cur && (rc = buf_set(&w->first, &w->key)))
			goto fail;
		if ((rc = buf_set(&w->cur, &w->key)))
			goto fail;
		w->has_cur = 1;
	}
	w->cur_last_row = row;
	if (w->kind == PM_SIDX_BTREE) {
		if ((rc = pm_sidx_put_varint(&w->posting, (uint64_t)row)))
			goto fail;
		w->posting_n++;
	} else if ((rc = pm_rb64_add(w->cur_bm, (uint64_t)row)) || (rc = pm_rb64_add(w->nonnull, (uint64_t)row))) {
		goto fail;
	}
	w->rows++;
	return 0;
fail:
	w->failed = 1;
	return rc;
}

/* ---------------------------------------------------------------- finish */

static int bt_finish(pm_sidx_writer *w)
{
	uint8_t f[52];
	uint64_t nb_off = 0, idx_off = 0;
	size_t nb_len = 0, idx_len = 0;
	int rc;
	if ((rc = bt_flush_key(w)) || (rc = bt_flush_block(w)))
		return rc;
	if (!pm_rb64_is_empty(w->nulls)) {
		uint8_t crc[4];
		pm_buf_clear(&w->tmp);
		if ((rc = pm_rb64_serialize(w->nulls, &w->tmp)))
			return rc;
		if (w->tmp.len > INT32_MAX)
			return pm_err(PAIMON_EINVAL, "%s: null bitmap exceeds 2 GiB", w->path);
		nb_off = w->pos;
		nb_len = w->tmp.len;
		pm_le32_put(crc, pm_crc32(0, w->tmp.data, w->tmp.len));
		if ((rc = w_write(w, w->tmp.data, w->tmp.len)) || (rc = w_write(w, crc, 4)))
			return rc;
	}
	if ((rc = bw_finish(&w->index)) || (rc = w_block(w, &w->index.body, &idx_off, &idx_len)))
		return rc;
	memset(f, 0, sizeof f);
	pm_le64_put(f + 20, idx_off);
	pm_le32_put(f + 28, (uint32_t)idx_len);
	pm_le64_put(f + 32, nb_off);
	pm_le32_put(f + 40, (uint32_t)nb_len);
	pm_le32_put(f + 44, 1);
	pm_le32_put(f + 48, 0x50425449u);
	return w_write(w, f, sizeof f);
}

static void be64(uint8_t *p, uint64_t v)
{
	int i;
	for (i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (56 - 8 * i));
}

static void be32(uint8_t *p, uint32_t v)
{
	int i;
	for (i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (24 - 8 * i));
}

static int bm_finish(pm_sidx_writer *w)
{
	uint8_t f[48];
	uint64_t n_off = 0, nn_off = 0, idx_off = 0;
	size_t n_len = 0, nn_len = 0, idx_len = 0;
	int rc;
	if ((rc = bm_emit_key(w)) || (rc = bm_flush_dict(w)))
		return rc;
	if ((rc = w_bitmap(w, w->nulls, &n_off, &n_len)) || (rc = w_bitmap(w, w->nonnull, &nn_off, &nn_len)))
		return rc;
	pm_buf_clear(&w->scratch);
	if (pm_sidx_put_varint(&w->scratch, w->dindex_n) ||
	    (w->dindex.len && pm_buf_append(&w->scratch, w->dindex.data, w->dindex.len)))
		return PAIMON_ENOMEM;
	if ((rc = w_block(w, &w->scratch, &idx_off, &idx_len)))
		return rc;
	if (w->values > INT32_MAX)
		return pm_err(PAIMON_EINVAL, "%s: more than 2^31 distinct keys", w->path);
	be64(f, n_off);
	be32(f + 8, (uint32_t)n_len);
	be64(f + 12, nn_off);
	be32(f + 20, (uint32_t)nn_len);
	be64(f + 24, idx_off);
	be32(f + 32, (uint32_t)idx_len);
	be32(f + 36, (uint32_t)w->values);
	be32(f + 40, 1);
	be32(f + 44, 0x42474958u);
	return w_write(w, f, sizeof f);
}

int pm_sidx_writer_finish(pm_sidx_writer *w, pm_buf *index_meta, int64_t *row_count, int64_t *file_size)
{
	int rc;
	if (w->failed || w->finished)
		return pm_err(PAIMON_EINVAL, "%s: index writer used after %s", w->path,
			      w->finished ? "finish" : "an error");
	if (w->kind == PM_SIDX_BTREE && w->rows == 0)
		return pm_err(PAIMON_EINVAL, "%s: a btree index file needs at least one row", w->path);
	w->finished = 1;
	rc = w->kind == PM_SIDX_BTREE ? bt_finish(w) : bm_finish(w);
	if (rc)
		return rc;
	if (index_meta &&
	    (rc = pm_sidx_meta_encode((const uint8_t *)w->first.data, w->first.len, w->has_cur,
				      (const uint8_t *)w->cur.data, w->cur.len, w->has_cur, !pm_rb64_is_empty(w->nulls),
				      index_meta)))
		return rc;
	if (row_count)
		*row_count = w->rows;
	if (file_size)
		*file_size = (int64_t)w->pos;
	return 0;
}
