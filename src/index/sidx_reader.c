/*
 * index/sidx_reader.c - readers of btree and bitmap global index files over
 * all the files of one row range (sorted_index.h): SortedFileMetaSelector
 * pruning by each file's _INDEX_META, the fallback-scan budget, and the
 * per-file predicate evaluation of Java's BTreeIndexReader /
 * BitmapIndexReader (results are unioned over the selected files).
 *
 * Every offset and length read from a file is checked against the file
 * size before it is read; malformed content is PAIMON_ECORRUPT naming the
 * file and the offset.
 */
#include <string.h>

#include "core/crc32.h"
#include "core/endian.h"
#include "core/error.h"
#include "core/mem.h"
#include "index/sidx_internal.h"
#include "types/datum.h"

#define BT_FOOTER 52
#define BM_FOOTER 48

/* A decoded SST block (data or index). */
typedef struct bt_blk {
	pm_buf data;
	size_t body;   /* bytes of entries */
	size_t count;
	int aligned;
	uint32_t esz;
	uint64_t at;   /* file offset, for errors */
} bt_blk;

typedef struct dmeta {
	const uint8_t *key;
	size_t klen;
	uint64_t off;
	uint32_t len;
} dmeta;

typedef dmeta dentry;

typedef struct dblock {
	int loaded;
	pm_buf data;
	dentry *e;
	size_t n;
} dblock;

typedef struct sfile {
	char *path;
	int64_t size;
	pm_sidx_meta meta;
	pm_binrow_datum first, last;
	int only_nulls;
	int opened;
	pm_in_file *in;
	uint64_t data_end;   /* size - footer */
	/* btree */
	uint64_t nb_off;
	uint32_t nb_len;
	bt_blk index;
	/* bitmap */
	uint64_t bn_off, bnn_off, bi_off;
	uint32_t bn_len, bnn_len, bi_len;
	pm_buf dindex;
	dmeta *dict;
	size_t ndict;
	int dict_order;      /* 0 typed ascending, 1 byte ascending, 2 neither */
	dblock *dblocks;
} sfile;

struct pm_sidx_reader {
	pm_sidx_kind kind;
	pm_fileio *io;
	pm_type *type;
	int64_t total_rows;
	pm_sidx_opts o;
	pm_codec_ctx *cctx;
	sfile *f;
	size_t n;
	pm_buf raw;   /* scratch for raw reads */
	pm_buf kb;    /* scratch for serialized literals */
};

/* --------------------------------------------------------------- helpers */

static int corrupt(const sfile *f, uint64_t at, const char *msg)
{
	return pm_err(PAIMON_ECORRUPT, "%s: %s (offset %llu)", f->path, msg, (unsigned long long)at);
}

static int f_open(pm_sidx_reader *r, sfile *f);

/* Reads n bytes at off into r->raw, checking they lie in [0, limit). */
static int f_read(pm_sidx_reader *r, sfile *f, uint64_t off, uint64_t n, uint64_t limit, const char *what)
{
	int rc;
	if (off > limit || n > limit - off)
		return pm_err(PAIMON_ECORRUPT, "%s: %s at offset %llu, %llu bytes, lies past the end (%llu)", f->path,
			      what, (unsigned long long)off, (unsigned long long)n, (unsigned long long)limit);
	if (n > (1u << 30))
		return pm_err(PAIMON_ECORRUPT, "%s: %s at offset %llu claims %llu bytes", f->path, what,
			      (unsigned long long)off, (unsigned long long)n);
	pm_buf_clear(&r->raw);
	if ((rc = pm_buf_reserve(&r->raw, (size_t)n + 1)))
		return rc;
	if (n && (rc = pm_in_pread(f->in, off, (size_t)n, r->raw.data)))
		return rc;
	r->raw.len = (size_t)n;
	r->raw.data[n] = 0;
	return 0;
}

/* Reads a stored block + trailer at off (stored length n) and decodes it into out. */
static int f_block(pm_sidx_reader *r, sfile *f, uint64_t off, uint64_t n, pm_buf *out)
{
	int rc;
	if (n > UINT64_MAX - PM_SIDX_TRAILER)
		return corrupt(f, off, "block length out of range");
	if ((rc = f_read(r, f, off, n + PM_SIDX_TRAILER, f->data_end, "block")))
		return rc;
	return pm_sidx_decode_block(r->cctx, (const uint8_t *)r->raw.data, (size_t)n, f->path, off, out);
}

static int f_bitmap(pm_sidx_reader *r, sfile *f, uint64_t off, uint64_t n, pm_rb64 **out)
{
	size_t used = 0;
	int rc;
	*out = NULL;
	if ((rc = f_read(r, f, off, n, f->data_end, "bitmap")))
		return rc;
	if ((rc = pm_rb64_deserialize(r->raw.data, r->raw.len, f->path, out, &used)))
		return pm_err_wrap("bitmap at offset %llu", (unsigned long long)off);
	return 0;
}

static int key_cmp(pm_sidx_reader *r, const sfile *f, const uint8_t *k, size_t kl, const pm_binrow_datum *lit, int *res)
{
	pm_binrow_datum d;
	int rc = pm_sidx_key_decode(r->type, k, kl, f->path, &d);
	if (rc)
		return rc;
	*res = pm_datum_compare(r->type, &d, lit);
	return 0;
}

/* ----------------------------------------------------------- SST blocks */

static int blk_parse(const sfile *f, bt_blk *b)
{
	size_t len = b->data.len;
	const uint8_t *p = (const uint8_t *)b->data.data;
	if (len < 5)
		return corrupt(f, b->at, "btree block shorter than its 5-byte tail");
	if (p[len - 1] == 0) {
		b->aligned = 1;
		b->esz = pm_le32_get(p + len - 5);
		b->body = len - 5;
		if (b->esz == 0) {
			if (b->body)
				return corrupt(f, b->at, "btree block: aligned entry size 0");
			b->count = 0;
		} else {
			if (b->body % b->esz)
				return corrupt(f, b->at, "btree block: body not a multiple of the aligned entry size");
			b->count = b->body / b->esz;
		}
	} else if (p[len - 1] == 1) {
		uint32_t c = pm_le32_get(p + len - 5);
		b->aligned = 0;
		if ((uint64_t)c * 4 > len - 5)
			return corrupt(f, b->at, "btree block: entry count exceeds the block");
		b->count = c;
		b->body = len - 5 - (size_t)c * 4;
	} else {
		return corrupt(f, b->at, "btree block: bad alignment byte");
	}
	return 0;
}

static int blk_entry(const sfile *f, const bt_blk *b, size_t i, const uint8_t **k, size_t *kl, const uint8_t **v,
		     size_t *vl)
{
	const uint8_t *p = (const uint8_t *)b->data.data;
	size_t off = b->aligned ? i * b->esz : pm_le32_get(p + b->body + 4 * i), pos;
	uint64_t x;
	int rc;
	*k = *v = NULL;
	*kl = *vl = 0;
	if (off >= b->body)
		return corrupt(f, b->at, "btree block: entry offset past the entries");
	pos = off;
	if ((rc = pm_sidx_get_varint(p, b->body, &pos, 0, f->path, &x)))
		return rc;
	if (x > b->body - pos)
		return corrupt(f, b->at, "btree block: key runs past the entries");
	*k = p + pos;
	*kl = (size_t)x;
	pos += (size_t)x;
	if ((rc = pm_sidx_get_varint(p, b->body, &pos, 0, f->path, &x)))
		return rc;
	if (x > b->body - pos)
		return corrupt(f, b->at, "btree block: value runs past the entries");
	*v = p + pos;
	*vl = (size_t)x;
	return 0;
}

static int blk_load(pm_sidx_reader *r, sfile *f, uint64_t off, uint64_t n, bt_blk *b)
{
	int rc;
	b->at = off;
	if ((rc = f_block(r, f, off, n, &b->data)))
		return rc;
	return blk_parse(f, b);
}

/* First entry index with key >= lit (count when none). */
static int blk_seek(pm_sidx_reader *r, const sfile *f, const bt_blk *b, const pm_binrow_datum *lit, size_t *out)
{
	size_t lo = 0, hi = b->count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2, kl, vl;
		const uint8_t *k, *v;
		int c, rc;
		if ((rc = blk_entry(f, b, mid, &k, &kl, &v, &vl)) || (rc = key_cmp(r, f, k, kl, lit, &c)))
			return rc;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*out = lo;
	return 0;
}

static int posting_add(const sfile *f, uint64_t at, const uint8_t *v, size_t vl, pm_rb64 *res)
{
	size_t pos = 0;
	uint64_t cnt, i, x;
	int rc;
	if ((rc = pm_sidx_get_varint(v, vl, &pos, 0, f->path, &cnt)))
		return rc;
	if (cnt == 0)
		return corrupt(f, at, "btree posting list is empty");
	for (i = 0; i < cnt; i++) {
		if ((rc = pm_sidx_get_varint(v, vl, &pos, 1, f->path, &x)))
			return rc;
		if ((rc = pm_rb64_add(res, x)))
			return rc;
	}
	return 0;
}

/* ------------------------------------------------------------- opening */

static uint64_t be64g(const uint8_t *p)
{
	uint64_t v = 0;
	int i;
	for (i = 0; i < 8; i++)
		v = (v << 8) | p[i];
	return v;
}

static uint32_t be32g(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static int bm_load_dindex(pm_sidx_reader *r, sfile *f);
static int f_open_inner(pm_sidx_reader *r, sfile *f);

/* Drops what a failed open left behind, so a later query retries cleanly. */
static void f_unopen(sfile *f)
{
	size_t i;
	pm_in_close(f->in);
	f->in = NULL;
	if (f->dblocks) {
		for (i = 0; i < f->ndict; i++) {
			pm_buf_dispose(&f->dblocks[i].data);
			pm_free(f->dblocks[i].e);
		}
		pm_free(f->dblocks);
		f->dblocks = NULL;
	}
	pm_free(f->dict);
	f->dict = NULL;
	f->ndict = 0;
}

static int f_open(pm_sidx_reader *r, sfile *f)
{
	int rc;
	if (f->opened)
		return 0;
	if ((rc = f_open_inner(r, f)))
		f_unopen(f);
	return rc;
}

static int f_open_inner(pm_sidx_reader *r, sfile *f)
{
	const uint8_t *p;
	int rc;
	if ((rc = pm_fileio_open_read(r->io, f->path, &f->in)))
		return rc;
	if ((int64_t)pm_in_length(f->in) < f->size)
		return pm_err(PAIMON_ECORRUPT, "%s: file has %llu bytes, the index entry says %lld", f->path,
			      (unsigned long long)pm_in_length(f->in), (long long)f->size);
	if (r->kind == PM_SIDX_BTREE) {
		uint64_t idx_off;
		uint32_t idx_len;
		if (f->size < BT_FOOTER)
			return pm_err(PAIMON_ECORRUPT, "%s: %lld bytes is too short for a btree index file", f->path,
				      (long long)f->size);
		f->data_end = (uint64_t)f->size - BT_FOOTER;
		if ((rc = f_read(r, f, f->data_end, BT_FOOTER, (uint64_t)f->size, "footer")))
			return rc;
		p = (const uint8_t *)r->raw.data;
		if (pm_le32_get(p + 48) != 0x50425449u)
			return pm_err(PAIMON_ECORRUPT, "%s: not a btree index file (bad footer magic %08x)", f->path,
				      pm_le32_get(p + 48));
		if (pm_le32_get(p + 44) != 1)
			return pm_err(PAIMON_ECORRUPT, "%s: unsupported btree index version %u", f->path, pm_le32_get(p + 44));
		idx_off = pm_le64_get(p + 20);
		idx_len = pm_le32_get(p + 28);
		f->nb_off = pm_le64_get(p + 32);
		f->nb_len = pm_le32_get(p + 40);
		if ((rc = blk_load(r, f, idx_off, idx_len, &f->index)))
			return rc;
	} else {
		if (f->size < BM_FOOTER)
			return pm_err(PAIMON_ECORRUPT, "%s: %lld bytes is too short for a bitmap index file", f->path,
				      (long long)f->size);
		f->data_end = (uint64_t)f->size - BM_FOOTER;
		if ((rc = f_read(r, f, f->data_end, BM_FOOTER, (uint64_t)f->size, "footer")))
			return rc;
		p = (const uint8_t *)r->raw.data;
		if (be32g(p + 44) != 0x42474958u)
			return pm_err(PAIMON_ECORRUPT, "%s: not a bitmap index file (bad footer magic %08x)", f->path,
				      be32g(p + 44));
		if (be32g(p + 40) != 1)
			return pm_err(PAIMON_ECORRUPT, "%s: unsupported bitmap index version %u", f->path, be32g(p + 40));
		if ((int32_t)be32g(p + 36) < 0 || (int32_t)be32g(p + 8) < 0 || (int32_t)be32g(p + 20) < 0 ||
		    (int32_t)be32g(p + 32) < 0)
			return pm_err(PAIMON_ECORRUPT, "%s: negative length or count in the bitmap footer", f->path);
		f->bn_off = be64g(p);
		f->bn_len = be32g(p + 8);
		f->bnn_off = be64g(p + 12);
		f->bnn_len = be32g(p + 20);
		f->bi_off = be64g(p + 24);
		f->bi_len = be32g(p + 32);
		if ((rc = bm_load_dindex(r, f)))
			return rc;
	}
	f->opened = 1;
	return 0;
}

/* ------------------------------------------------------------ btree ops */

/*
 * Adds the row ids of keys in [from, to] (NULL bound = open; exclusive per
 * flag) to res; prefix != NULL: only keys starting with prefix (strings,
 * from = prefix).
 */
static int bt_scan(pm_sidx_reader *r, sfile *f, const pm_binrow_datum *from, int from_incl, const pm_binrow_datum *to,
		   int to_incl, const uint8_t *prefix, size_t plen, pm_rb64 *res)
{
	size_t i0 = 0, i, j;
	bt_blk db;
	int rc = 0;
	memset(&db, 0, sizeof db);
	if (from && (rc = blk_seek(r, f, &f->index, from, &i0)))
		return rc;
	for (i = i0; i < f->index.count; i++) {
		const uint8_t *k, *v;
		size_t kl, vl, pos = 0, j0 = 0;
		uint64_t off, len;
		if ((rc = blk_entry(f, &f->index, i, &k, &kl, &v, &vl)) ||
		    (rc = pm_sidx_get_varint(v, vl, &pos, 1, f->path, &off)) ||
		    (rc = pm_sidx_get_varint(v, vl, &pos, 0, f->path, &len)) || (rc = blk_load(r, f, off, len, &db)))
			goto done;
		if (from && i == i0 && (rc = blk_seek(r, f, &db, from, &j0)))
			goto done;
		for (j = j0; j < db.count; j++) {
			int c;
			if ((rc = blk_entry(f, &db, j, &k, &kl, &v, &vl)))
				goto done;
			if (from && !from_incl) {
				if ((rc = key_cmp(r, f, k, kl, from, &c)))
					goto done;
				if (c == 0)
					continue;
			}
			if (to) {
				if ((rc = key_cmp(r, f, k, kl, to, &c)))
					goto done;
				if (c > 0 || (!to_incl && c == 0))
					goto done;
			}
			if (prefix && (kl < plen || memcmp(k, prefix, plen) != 0))
				goto done;
			if ((rc = posting_add(f, db.at, v, vl, res)))
				goto done;
		}
	}
done:
	pm_buf_dispose(&db.data);
	return rc;
}

static int bt_nulls(pm_sidx_reader *r, sfile *f, pm_rb64 **out)
{
	int rc;
	size_t used = 0;
	uint32_t crc;
	*out = NULL;
	if (f->nb_off == 0 && f->nb_len == 0)
		return pm_rb64_new(out);
	if ((rc = f_read(r, f, f->nb_off, (uint64_t)f->nb_len + 4, f->data_end, "null bitmap")))
		return rc;
	crc = pm_crc32(0, r->raw.data, f->nb_len);
	if (crc != pm_le32_get((const uint8_t *)r->raw.data + f->nb_len))
		return corrupt(f, f->nb_off, "null bitmap CRC-32 mismatch");
	if ((rc = pm_rb64_deserialize(r->raw.data, f->nb_len, f->path, out, &used)))
		return pm_err_wrap("null bitmap at offset %llu", (unsigned long long)f->nb_off);
	return 0;
}

/* ----------------------------------------------------------- bitmap ops */

static int parse_dict_list(const sfile *f, uint64_t at, const uint8_t *p, size_t n, size_t *count, dmeta **out)
{
	size_t pos = 0, i;
	uint64_t c, x;
	dmeta *e;
	int rc;
	*out = NULL;
	*count = 0;
	if ((rc = pm_sidx_get_varint(p, n, &pos, 0, f->path, &c)))
		return rc;
	/* each entry takes at least 3 bytes */
	if (c > (n - pos) / 3)
		return corrupt(f, at, "bitmap dictionary: entry count exceeds the block");
	if (c && !(e = pm_calloc((size_t)c, sizeof *e)))
		return PAIMON_ENOMEM;
	if (!c)
		return 0;
	for (i = 0; i < c; i++) {
		if ((rc = pm_sidx_get_varint(p, n, &pos, 0, f->path, &x)))
			goto fail;
		if (x > n - pos) {
			rc = corrupt(f, at, "bitmap dictionary: key runs past the block");
			goto fail;
		}
		e[i].key = p + pos;
		e[i].klen = (size_t)x;
		pos += (size_t)x;
		if ((rc = pm_sidx_get_varint(p, n, &pos, 1, f->path, &e[i].off)) ||
		    (rc = pm_sidx_get_varint(p, n, &pos, 0, f->path, &x)))
			goto fail;
		e[i].len = (uint32_t)x;
	}
	*out = e;
	*count = (size_t)c;
	return 0;
fail:
	pm_free(e);
	return rc;
}

static int bytes_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
	size_t m = an < bn ? an : bn;
	int c = m ? memcmp(a, b, m) : 0;
	if (c)
		return c;
	return an < bn ? -1 : an > bn;
}

static int bm_load_dindex(pm_sidx_reader *r, sfile *f)
{
	size_t i;
	int rc, typed = 1, bytes = 1;
	if ((rc = f_block(r, f, f->bi_off, f->bi_len, &f->dindex)))
		return rc;
	if ((rc = parse_dict_list(f, f->bi_off, (const uint8_t *)f->dindex.data, f->dindex.len, &f->ndict, &f->dict)))
		return rc;
	if (f->ndict && !(f->dblocks = pm_calloc(f->ndict, sizeof *f->dblocks)))
		return PAIMON_ENOMEM;
	for (i = 1; i < f->ndict; i++) {
		pm_binrow_datum a, b;
		if ((rc = pm_sidx_key_decode(r->type, f->dict[i - 1].key, f->dict[i - 1].klen, f->path, &a)) ||
		    (rc = pm_sidx_key_decode(r->type, f->dict[i].key, f->dict[i].klen, f->path, &b)))
			return rc;
		if (pm_datum_compare(r->type, &a, &b) > 0)
			typed = 0;
		if (bytes_cmp(f->dict[i - 1].key, f->dict[i - 1].klen, f->dict[i].key, f->dict[i].klen) > 0)
			bytes = 0;
	}
	/*
	 * pypaimon 2.1's BitmapIndexWriter writes the null bitmap first (offset
	 * 0) and orders dictionary entries by serialized bytes; Java writes a
	 * value bitmap first and orders entries by the typed comparator. A file
	 * with values whose null bitmap sits at offset 0 is pypaimon's layout.
	 */
	if (f->ndict && f->bn_off == 0)
		f->dict_order = bytes ? 1 : 2;
	else
		f->dict_order = typed ? 0 : bytes ? 1 : 2;
	return 0;
}

static int bm_block(pm_sidx_reader *r, sfile *f, size_t i, dblock **out)
{
	dblock *d = &f->dblocks[i];
	int rc;
	if (!d->loaded) {
		pm_free(d->e);
		d->e = NULL;
		if ((rc = f_block(r, f, f->dict[i].off, f->dict[i].len, &d->data)) ||
		    (rc = parse_dict_list(f, f->dict[i].off, (const uint8_t *)d->data.data, d->data.len, &d->n,
					  &d->e)))
			return rc;
		d->loaded = 1;
	}
	*out = d;
	return 0;
}

static int bm_or_bitmap(pm_sidx_reader *r, sfile *f, uint64_t off, uint32_t len, pm_rb64 *res)
{
	pm_rb64 *b = NULL;
	int rc = f_bitmap(r, f, off, len, &b);
	if (!rc)
		rc = pm_rb64_or(res, b);
	pm_rb64_free(b);
	return rc;
}

/* ORs the bitmap of the key equal to lit (serialized kb) into res. */
static int bm_eq(pm_sidx_reader *r, sfile *f, const pm_binrow_datum *lit, const uint8_t *kb, size_t kl, pm_rb64 *res)
{
	size_t lo = 0, hi, i, j, first, last;
	int rc;
	if (!f->ndict)
		return 0;
	if (f->dict_order == 2) {
		first = 0;
		last = f->ndict - 1;
	} else {
		/* last block whose first key <= the literal */
		hi = f->ndict;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			int c;
			if (f->dict_order == 0) {
				if ((rc = key_cmp(r, f, f->dict[mid].key, f->dict[mid].klen, lit, &c)))
					return rc;
			} else {
				c = bytes_cmp(f->dict[mid].key, f->dict[mid].klen, kb, kl);
			}
			if (c <= 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == 0)
			return 0;
		first = last = lo - 1;
	}
	for (i = first; i <= last; i++) {
		dblock *d;
		if ((rc = bm_block(r, f, i, &d)))
			return rc;
		for (j = 0; j < d->n; j++)
			if (d->e[j].klen == kl && (kl == 0 || memcmp(d->e[j].key, kb, kl) == 0))
				return bm_or_bitmap(r, f, d->e[j].off, d->e[j].len, res);
	}
	return 0;
}

typedef struct scan_pred {
	pm_sidx_op op;
	const pm_binrow_datum *lit;
	const uint8_t *kb;
	size_t kl;
} scan_pred;

static int memmem_ok(const uint8_t *h, size_t hn, const uint8_t *n, size_t nn)
{
	size_t i;
	if (nn == 0)
		return 1;
	for (i = 0; i + nn <= hn; i++)
		if (h[i] == n[0] && memcmp(h + i, n, nn) == 0)
			return 1;
	return 0;
}

static int bm_scan(pm_sidx_reader *r, sfile *f, const scan_pred *sp, pm_rb64 *res)
{
	size_t i, j;
	int rc;
	for (i = 0; i < f->ndict; i++) {
		dblock *d;
		if ((rc = bm_block(r, f, i, &d)))
			return rc;
		for (j = 0; j < d->n; j++) {
			const dentry *e = &d->e[j];
			int c = 0, hit;
			switch (sp->op) {
			case PM_SIDX_STARTS_WITH:
				hit = e->klen >= sp->kl && memcmp(e->key, sp->kb, sp->kl) == 0;
				break;
			case PM_SIDX_ENDS_WITH:
				hit = e->klen >= sp->kl && memcmp(e->key + e->klen - sp->kl, sp->kb, sp->kl) == 0;
				break;
			case PM_SIDX_CONTAINS:
				hit = memmem_ok(e->key, e->klen, sp->kb, sp->kl);
				break;
			default:
				if ((rc = key_cmp(r, f, e->key, e->klen, sp->lit, &c)))
					return rc;
				hit = sp->op == PM_SIDX_LT ? c < 0 : sp->op == PM_SIDX_LE ? c <= 0 : sp->op == PM_SIDX_GT ? c > 0 : c >= 0;
			}
			if (hit && (rc = bm_or_bitmap(r, f, e->off, e->len, res)))
				return rc;
		}
	}
	return 0;
}

/* ------------------------------------------------------------- per file */

static int lit_bytes(pm_sidx_reader *r, const pm_binrow_datum *lit, pm_buf *out)
{
	int rc;
	pm_buf_clear(out);
	if ((rc = pm_sidx_key_serialize(r->type, lit, out)))
		return rc;
	return pm_buf_reserve(out, 1);
}

static int file_all_nonnull(pm_sidx_reader *r, sfile *f, pm_rb64 *res)
{
	if (r->kind == PM_SIDX_BTREE)
		return bt_scan(r, f, NULL, 1, NULL, 1, NULL, 0, res);
	return bm_or_bitmap(r, f, f->bnn_off, f->bnn_len, res);
}

static int file_eq(pm_sidx_reader *r, sfile *f, const pm_binrow_datum *lit, pm_rb64 *res)
{
	int rc;
	if (r->kind == PM_SIDX_BTREE)
		return bt_scan(r, f, lit, 1, lit, 1, NULL, 0, res);
	if ((rc = lit_bytes(r, lit, &r->kb)))
		return rc;
	return bm_eq(r, f, lit, (const uint8_t *)r->kb.data, r->kb.len, res);
}

static int file_query(pm_sidx_reader *r, sfile *f, pm_sidx_op op, const pm_binrow_datum *lits, size_t n, pm_rb64 *res)
{
	pm_rb64 *tmp = NULL;
	size_t i;
	int rc;
	if ((rc = f_open(r, f)))
		return rc;
	switch (op) {
	case PM_SIDX_EQ:
		return file_eq(r, f, &lits[0], res);
	case PM_SIDX_IN:
		for (i = 0; i < n; i++)
			if (!lits[i].is_null && (rc = file_eq(r, f, &lits[i], res)))
				return rc;
		return 0;
	case PM_SIDX_NE:
	case PM_SIDX_NOT_IN:
		if ((rc = pm_rb64_new(&tmp)) || (rc = file_all_nonnull(r, f, tmp)))
			goto out;
		{
			pm_rb64 *m = NULL;
			if ((rc = pm_rb64_new(&m)))
				goto out;
			for (i = 0; i < (op == PM_SIDX_NE ? 1 : n) && !rc; i++)
				if (!lits[i].is_null)
					rc = file_eq(r, f, &lits[i], m);
			if (!rc)
				rc = pm_rb64_andnot(tmp, m);
			pm_rb64_free(m);
		}
		if (!rc)
			rc = pm_rb64_or(res, tmp);
		goto out;
	case PM_SIDX_IS_NULL:
		if (r->kind == PM_SIDX_BTREE)
			rc = bt_nulls(r, f, &tmp);
		else
			rc = f_bitmap(r, f, f->bn_off, f->bn_len, &tmp);
		if (!rc)
			rc = pm_rb64_or(res, tmp);
		goto out;
	case PM_SIDX_IS_NOT_NULL:
		return file_all_nonnull(r, f, res);
	case PM_SIDX_LT:
	case PM_SIDX_LE:
	case PM_SIDX_GT:
	case PM_SIDX_GE:
		if (r->kind == PM_SIDX_BTREE) {
			if (op == PM_SIDX_LT || op == PM_SIDX_LE)
				return bt_scan(r, f, NULL, 1, &lits[0], op == PM_SIDX_LE, NULL, 0, res);
			return bt_scan(r, f, &lits[0], op == PM_SIDX_GE, NULL, 1, NULL, 0, res);
		} else {
			scan_pred sp = {op, &lits[0], NULL, 0};
			return bm_scan(r, f, &sp, res);
		}
	case PM_SIDX_STARTS_WITH:
	case PM_SIDX_ENDS_WITH:
	case PM_SIDX_CONTAINS:
		if ((rc = lit_bytes(r, &lits[0], &r->kb)))
			return rc;
		if (r->kb.len == 0 || (r->kind == PM_SIDX_BTREE && op != PM_SIDX_STARTS_WITH))
			return file_all_nonnull(r, f, res);   /* btree: superset, as Java */
		if (r->kind == PM_SIDX_BTREE) {
			pm_binrow_datum from = lits[0];
			pm_buf pb = PM_BUF_INIT;
			if ((rc = pm_buf_append(&pb, r->kb.data, r->kb.len)))
				return rc;
			rc = bt_scan(r, f, &from, 1, NULL, 1, (const uint8_t *)pb.data, pb.len, res);
			pm_buf_dispose(&pb);
			return rc;
		} else {
			pm_buf pb = PM_BUF_INIT;
			scan_pred sp = {op, &lits[0], NULL, 0};
			if ((rc = pm_buf_append(&pb, r->kb.data, r->kb.len)))
				return rc;
			sp.kb = (const uint8_t *)pb.data;
			sp.kl = pb.len;
			rc = bm_scan(r, f, &sp, res);
			pm_buf_dispose(&pb);
			return rc;
		}
	}
	return pm_err(PAIMON_EINVAL, "sorted global index: unknown operator %d", (int)op);
out:
	pm_rb64_free(tmp);
	return rc;
}

/* ------------------------------------------------------------- selector */

static int cmp_first(pm_sidx_reader *r, const sfile *f, const pm_binrow_datum *lit)
{
	return pm_datum_compare(r->type, &f->first, lit);
}

static int cmp_last(pm_sidx_reader *r, const sfile *f, const pm_binrow_datum *lit)
{
	return pm_datum_compare(r->type, &f->last, lit);
}

static int overlaps(pm_sidx_reader *r, const sfile *f, const pm_binrow_datum *lo, const pm_binrow_datum *hi)
{
	return cmp_last(r, f, lo) >= 0 && cmp_first(r, f, hi) <= 0;
}

/* SortedFileMetaSelector: 1 when file f may hold matches. */
static int select_file(pm_sidx_reader *r, const sfile *f, pm_sidx_op op, const pm_binrow_datum *lits, size_t n)
{
	size_t i;
	switch (op) {
	case PM_SIDX_IS_NULL:
		return f->meta.has_nulls;
	case PM_SIDX_IS_NOT_NULL:
	case PM_SIDX_NE:
	case PM_SIDX_NOT_IN:
	case PM_SIDX_ENDS_WITH:
	case PM_SIDX_CONTAINS:
		return !f->only_nulls;
	case PM_SIDX_EQ:
		return !f->only_nulls && overlaps(r, f, &lits[0], &lits[0]);
	case PM_SIDX_IN:
		if (f->only_nulls)
			return 0;
		for (i = 0; i < n; i++)
			if (!lits[i].is_null && overlaps(r, f, &lits[i], &lits[i]))
				return 1;
		return 0;
	case PM_SIDX_LT:
		return !f->only_nulls && cmp_first(r, f, &lits[0]) < 0;
	case PM_SIDX_LE:
		return !f->only_nulls && cmp_first(r, f, &lits[0]) <= 0;
	case PM_SIDX_GT:
		return !f->only_nulls && cmp_last(r, f, &lits[0]) > 0;
	case PM_SIDX_GE:
		return !f->only_nulls && cmp_last(r, f, &lits[0]) >= 0;
	case PM_SIDX_STARTS_WITH: {
		/* [prefix, upper bound of prefix) overlaps [first, last] (byte order = string order) */
		const uint8_t *pp = lits[0].bytes.p;
		size_t pl = lits[0].bytes.n, k;
		if (f->only_nulls)
			return 0;
		if (pl == 0)
			return 1;
		if (bytes_cmp(f->meta.last, f->meta.last_len, pp, pl) < 0)
			return 0;
		for (k = pl; k-- > 0;)
			if (pp[k] != 0xFF)
				break;
		if (k == (size_t)-1)
			return 1; /* no upper bound */
		if (k + 1 > 256)
			return 1; /* conservative for very long prefixes */
		{
			uint8_t ub[256];
			memcpy(ub, pp, k + 1);
			ub[k] = (uint8_t)(ub[k] + 1);
			return bytes_cmp(f->meta.first, f->meta.first_len, ub, k + 1) < 0;
		}
	}
	}
	return 0;
}

/* --------------------------------------------------------------- public */

static void f_dispose(sfile *f)
{
	size_t i;
	pm_free(f->path);
	pm_sidx_meta_dispose(&f->meta);
	pm_in_close(f->in);
	pm_buf_dispose(&f->index.data);
	pm_buf_dispose(&f->dindex);
	pm_free(f->dict);
	if (f->dblocks) {
		for (i = 0; i < f->ndict; i++) {
			pm_buf_dispose(&f->dblocks[i].data);
			pm_free(f->dblocks[i].e);
		}
		pm_free(f->dblocks);
	}
}

void pm_sidx_reader_free(pm_sidx_reader *r)
{
	size_t i;
	if (!r)
		return;
	for (i = 0; i < r->n; i++)
		f_dispose(&r->f[i]);
	pm_free(r->f);
	pm_type_free(r->type);
	pm_codec_ctx_free(r->cctx);
	pm_buf_dispose(&r->raw);
	pm_buf_dispose(&r->kb);
	pm_free(r);
}

int pm_sidx_reader_open(pm_sidx_kind kind, pm_fileio *io, const pm_sidx_file *files, size_t n, const pm_type *key_type,
			int64_t total_rows, const pm_strmap *opts, pm_sidx_reader **out)
{
	pm_sidx_reader *r;
	size_t i;
	int rc;
	*out = NULL;
	if (kind != PM_SIDX_BTREE && kind != PM_SIDX_BITMAP)
		return pm_err(PAIMON_EINVAL, "sorted global index: unknown index kind %d", (int)kind);
	if (!pm_sidx_type_supported(key_type)) {
		pm_buf d = PM_BUF_INIT;
		return pm_sidx_key_serialize(key_type, NULL, &d);
	}
	if (!(r = pm_calloc(1, sizeof *r)))
		return PAIMON_ENOMEM;
	r->kind = kind;
	r->io = io;
	r->total_rows = total_rows;
	if ((rc = pm_sidx_opts_read(kind, opts, 0, &r->o)))
		goto fail;
	if (!(r->type = pm_type_copy(key_type)) || (n && !(r->f = pm_calloc(n, sizeof *r->f)))) {
		rc = PAIMON_ENOMEM;
		goto fail;
	}
	if ((rc = pm_codec_ctx_new(&r->cctx)))
		goto fail;
	for (i = 0; i < n; i++) {
		sfile *f = &r->f[i];
		r->n = i + 1;
		if (!(f->path = pm_strdup(files[i].path ? files[i].path : ""))) {
			rc = PAIMON_ENOMEM;
			goto fail;
		}
		f->size = files[i].size;
		if ((rc = pm_sidx_meta_decode(files[i].meta, files[i].meta_len, f->path, &f->meta)))
			goto fail;
		f->only_nulls = !f->meta.has_first && !f->meta.has_last;
		if (!f->only_nulls && (!f->meta.has_first || !f->meta.has_last)) {
			rc = pm_err(PAIMON_ECORRUPT, "%s: index meta has only one of first/last key", f->path);
			goto fail;
		}
		if (!f->only_nulls &&
		    ((rc = pm_sidx_key_decode(r->type, f->meta.first, f->meta.first_len, f->path, &f->first)) ||
		     (rc = pm_sidx_key_decode(r->type, f->meta.last, f->meta.last_len, f->path, &f->last))))
			goto fail;
	}
	*out = r;
	return 0;
fail:
	pm_sidx_reader_free(r);
	return rc;
}

int pm_sidx_query(pm_sidx_reader *r, pm_sidx_op op, const pm_binrow_datum *lits, size_t n, pm_rb64 **out)
{
	pm_rb64 *res = NULL;
	unsigned char *sel = NULL;
	size_t i, nsel = 0;
	int rc = 0, fallback = 0, null_lit;
	*out = NULL;
	switch (op) {
	case PM_SIDX_IS_NULL:
	case PM_SIDX_IS_NOT_NULL:
	case PM_SIDX_IN:
	case PM_SIDX_NOT_IN:
		break;
	case PM_SIDX_EQ:
	case PM_SIDX_NE:
	case PM_SIDX_LT:
	case PM_SIDX_LE:
	case PM_SIDX_GT:
	case PM_SIDX_GE:
	case PM_SIDX_STARTS_WITH:
	case PM_SIDX_ENDS_WITH:
	case PM_SIDX_CONTAINS:
		if (n < 1 || !lits)
			return pm_err(PAIMON_EINVAL, "sorted global index: operator %d needs a literal", (int)op);
		break;
	default:
		return pm_err(PAIMON_EINVAL, "sorted global index: unknown operator %d", (int)op);
	}
	if (n && !lits)
		return pm_err(PAIMON_EINVAL, "sorted global index: literals missing");
	null_lit = n && lits[0].is_null;
	switch (op) {
	case PM_SIDX_LT:
	case PM_SIDX_LE:
	case PM_SIDX_GT:
	case PM_SIDX_GE:
		if (null_lit || r->o.fallback_max <= 0)
			return 0;   /* cannot answer */
		fallback = 1;
		break;
	case PM_SIDX_ENDS_WITH:
	case PM_SIDX_CONTAINS:
		if (null_lit || r->o.fallback_max <= 0 || !pm_sidx_type_is_string(r->type))
			return 0;
		fallback = 1;
		break;
	case PM_SIDX_STARTS_WITH:
		if (null_lit || !pm_sidx_type_is_string(r->type))
			return 0;
		break;
	case PM_SIDX_EQ:
	case PM_SIDX_NE:
		if (null_lit)
			return pm_rb64_new(out);
		break;
	case PM_SIDX_NOT_IN:
		for (i = 0; i < n; i++)
			if (lits[i].is_null)
				return pm_rb64_new(out);
		break;
	default:
		break;
	}
	if (r->n && !(sel = pm_calloc(r->n, 1)))
		return PAIMON_ENOMEM;
	for (i = 0; i < r->n; i++)
		if ((sel[i] = (unsigned char)select_file(r, &r->f[i], op, lits, n)))
			nsel++;
	if (fallback && nsel) {
		int64_t total = 0;
		for (i = 0; i < r->n; i++) {
			if (!sel[i])
				continue;
			if (r->f[i].size > INT64_MAX - total || (total += r->f[i].size) > r->o.fallback_max) {
				pm_free(sel);
				return 0;   /* over the fallback-scan budget: cannot answer */
			}
		}
	}
	if ((rc = pm_rb64_new(&res)))
		goto done;
	for (i = 0; i < r->n && !rc; i++)
		if (sel[i])
			rc = file_query(r, &r->f[i], op, lits, n, res);
	/* Row ids are relative to the range: drop any a damaged file puts outside it. */
	if (!rc && r->total_rows > 0)
		rc = pm_rb64_clip(res, 0, (uint64_t)r->total_rows);
	if (!rc) {
		*out = res;
		res = NULL;
	}
done:
	pm_rb64_free(res);
	pm_free(sel);
	return rc;
}
