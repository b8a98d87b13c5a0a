/*
 * format/parquet/pm_pq_read.c - the Parquet reader: row groups -> column
 * chunks -> pages -> Arrow batches.
 *
 * Each selected leaf column has a pm_pq_col that walks its chunk page by page
 * through a bounded I/O window. Top-level flat columns decode their
 * definition levels run by run straight into the validity bitmap (a run of
 * max_def = one bulk value decode; required columns have no levels at all).
 * Nested leaves decode each page's levels into int16 arrays, fill the leaf
 * array in level order (runs of defined values decoded in bulk) and keep
 * the batch's levels, from which struct / list / map parents are then
 * assembled (each parent from its first leaf, as Arrow does).
 */
#include "format/parquet/pq_read_int.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "codec/codec.h"
#include "core/crc32.h"
#include "core/error.h"
#include "core/mem.h"
#include "format/parquet/encoding.h"

#define LIT_CHUNK 4096
#define FLAT_CHUNK 65536

typedef struct pm_pq_col {
	struct pm_pq_reader *r;
	pm_pq_anode *node;       /* the leaf node */
	const pm_pq_schema_node *pn;
	char *pathstr;
	int leaf;
	int ptype;
	int pw;               /* physical bytes per value (fixed types) */
	int16_t max_def, max_rep;
	bool nested;          /* keeps batch levels for its parents */
	pm_array_builder *ab;

	/* chunk */
	int rg;
	int codec;
	uint64_t cstart, cend, pos;
	int64_t page_no;
	int64_t chunk_values, values_seen;
	bool seen_data;
	pm_pq_offset_index *oi;
	size_t oi_j;          /* page location the next skip looks at first */

	/* I/O window [io_off, io_off + io_len) of the file */
	uint8_t *io;
	size_t io_cap, io_len;
	uint64_t io_off;
	bool io_valid;
	/* decompressed page */
	uint8_t *dbuf;
	size_t dbuf_cap;

	/* dictionary */
	bool has_dict;
	int64_t n_dict;
	uint8_t *dict_fixed;
	size_t dict_fixed_cap;
	pm_array_builder *dict_bin;
	pm_pq_bytes dict_bytes;

	/* current data page */
	int64_t page_n, page_pos;
	int enc;
	const uint8_t *vals;
	size_t vals_len;
	pm_pq_rle_dec defd, repd;
	int16_t *ldef, *lrep;
	size_t lcap;
	pm_pq_plain_dec plain;
	pm_pq_dict_dec *dd;
	pm_pq_rle_dec boolrle;
	pm_pq_dbp_dec dbp;
	pm_pq_dlba_dec dlba;
	pm_pq_dba_dec dba;
	bool dlba_live, dba_live;
	pm_pq_bss_dec bss;

	/* scratch */
	uint8_t *scr;
	size_t scr_cap;
	uint32_t *u32;
	uint8_t *vbytes;
	size_t vbytes_cap;
	pm_array_builder *tmpbin;

	/* batch levels (nested) */
	int16_t *bdef, *brep;
	int64_t bn, bcap;

	/* Per column so that columns can be decoded on different threads. */
	pm_codec_ctx *cctx;
	int64_t pages_read, pages_skipped;
	int64_t bytes_read;   /* column chunk bytes fetched from the file */
	int64_t cost;         /* decode cost estimate of the current chunk (scheduling) */
	int rc;               /* result of the last parallel decode */
	pm_err_state *err;    /* its error (allocated on failure) */
} pm_pq_col;

struct pm_pq_reader {
	pm_in_file *f;        /* the open file: footer, indexes and chunk windows */
	char *path;
	pm_pq_file_meta *fm;
	pm_pq_schema *s;
	pm_pq_build b;
	pm_pq_anode **tops;
	int n_tops;
	pm_array_builder *root;
	pm_pq_col *cols;
	int n_cols;
	int *leaf_col;        /* file leaf -> index in cols or -1 */
	int64_t batch;
	size_t max_page;
	int verify_crc;
	int *rgs;
	size_t n_rgs, rg_i;
	int64_t *rg_first;    /* first file row of each row group */
	int64_t *ranges;
	size_t n_ranges;
	size_t range_i;       /* first range not yet passed (rows only move forward) */
	bool rg_open;
	int64_t rg_rows, rg_row;
	int64_t total_rows;
	pm_pq_read_metrics m;
	uint8_t *vscratch;    /* validity bytes for list assembly */
	size_t vscratch_cap;

	/* Parallel column decoding: workers plus the calling thread take the
	 * columns of a batch (largest chunks first) from a shared cursor. */
	int threads;          /* requested (<= 1: serial) */
	int64_t par_min;      /* smallest batch (estimated bytes) decoded in parallel */
	int *order;           /* column indexes by decreasing cost */
	int64_t batch_cost;   /* estimated bytes of the current row group */
	pthread_t *th;
	int n_th;             /* workers started */
	bool pool_init, pool_failed;
	pthread_mutex_t mu;
	pthread_cond_t go, done;
	uint64_t gen;         /* job generation, bumped per batch */
	bool stop;
	int64_t job_rows;
	int64_t job_skip;     /* rows each column skips before job_rows */
	int next_col, pending;
};

/* ------------------------------------------------------------ helpers */

static int grow(void **p, size_t *cap, size_t need)
{
	void *q;
	size_t nc;
	if (need <= *cap)
		return 0;
	if (!*p && need >= PM_MEM_CACHE_MIN && (q = pm_mem_cache_take(need, &nc))) {
		*p = q;
		*cap = nc;
		return 0;
	}
	nc = *cap ? *cap : 64;
	while (nc < need)
		nc = nc > SIZE_MAX / 2 ? need : nc * 2;
	if (!(q = pm_realloc(*p, nc)))
		return PAIMON_ENOMEM;
	*p = q;
	*cap = nc;
	return 0;
}

static const char *type_name(int t)
{
	static const char *const n[] = {"BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE", "BYTE_ARRAY",
					"FIXED_LEN_BYTE_ARRAY"};
	return t >= 0 && t < 8 ? n[t] : "?";
}


/* ------------------------------------------------------------ I/O window */

/* Makes [off, off + need) available in the window, reading up to `want`
 * bytes (bounded by the chunk end) when it has to read. */
static int io_ensure(pm_pq_col *c, uint64_t off, size_t need, size_t want)
{
	struct pm_pq_reader *r = c->r;
	size_t n;
	int rc;
	if (c->io_valid && off >= c->io_off && off - c->io_off <= c->io_len &&
	    need <= c->io_len - (size_t)(off - c->io_off))
		return 0;
	if (off > c->cend || need > c->cend - off)
		return pm_err(PAIMON_ECORRUPT, "read of %zu bytes at %llu runs past the column chunk end %llu", need,
			      (unsigned long long)off, (unsigned long long)c->cend);
	n = want > need ? want : need;
	if (n > c->cend - off)
		n = (size_t)(c->cend - off);
	if ((rc = grow((void **)&c->io, &c->io_cap, n ? n : 1)))
		return rc;
	c->io_valid = false;
	if (n && (rc = pm_in_pread(r->f, off, n, c->io)))
		return rc;
	c->bytes_read += (int64_t)n;
	c->io_off = off;
	c->io_len = n;
	c->io_valid = true;
	return 0;
}

/* How many bytes to read ahead at pos: PM_PQ_IO_WINDOW, except in a
 * selective read (row ranges) of a chunk with an OffsetIndex, where the
 * window stops after the run of pages that hold selected rows, so a point
 * lookup reads one page and not a megabyte of pages it then skips. A
 * position before the first indexed page (the dictionary page) reads up to
 * that page. */
static size_t io_want(pm_pq_col *c, uint64_t pos)
{
	struct pm_pq_reader *r = c->r;
	const pm_pq_offset_index *oi = c->oi;
	size_t j, want = 0;
	int64_t rg0;
	if (!oi || !r->ranges || !oi->n_page_locations || !r->rg_open)
		return PM_PQ_IO_WINDOW;
	if (pos < (uint64_t)oi->page_locations[0].offset)
		return (size_t)((uint64_t)oi->page_locations[0].offset - pos);
	for (j = c->oi_j; j < oi->n_page_locations && (uint64_t)oi->page_locations[j].offset < pos; j++)
		;
	if (j >= oi->n_page_locations || (uint64_t)oi->page_locations[j].offset != pos)
		return PM_PQ_IO_WINDOW;
	rg0 = r->rg_first[r->rgs[r->rg_i]];
	for (; j < oi->n_page_locations; j++) {
		const pm_pq_page_location *l = &oi->page_locations[j];
		int64_t a = rg0 + l->first_row_index;
		int64_t b = rg0 + (j + 1 < oi->n_page_locations ? l[1].first_row_index : r->rg_rows);
		size_t i;
		bool hit = false;
		if (l->compressed_page_size <= 0 || (uint64_t)l->offset != pos + want)
			break;
		for (i = r->range_i; i < r->n_ranges && r->ranges[2 * i] < b; i++)
			if (r->ranges[2 * i + 1] > a) {
				hit = true;
				break;
			}
		if (!hit && want)
			break;
		if (want + (size_t)l->compressed_page_size > PM_PQ_IO_WINDOW && want)
			break;
		want += (size_t)l->compressed_page_size;
	}
	return want ? want : PM_PQ_IO_WINDOW;
}

static const uint8_t *io_ptr(pm_pq_col *c, uint64_t off)
{
	return c->io + (off - c->io_off);
}

/* ------------------------------------------------------------ pages */

static int read_header(pm_pq_col *c, pm_pq_page_header *h, size_t *hlen)
{
	uint64_t rem = c->cend - c->pos;
	size_t avail, tryn = rem < 16384 ? (size_t)rem : 16384, want = io_want(c, c->pos);
	int rc;
	/* a known page size bounds the first try (a header longer than its
	 * page is corrupt, and the retry below reads more to say so) */
	if (want < tryn)
		tryn = want;
	for (;;) {
		if ((rc = io_ensure(c, c->pos, tryn, want)))
			return rc;
		avail = c->io_len - (size_t)(c->pos - c->io_off);
		if (avail > rem)
			avail = (size_t)rem;
		rc = pm_pq_page_header_decode(io_ptr(c, c->pos), avail, h, hlen);
		if (rc == 0)
			return 0;
		if (rc != PAIMON_ECORRUPT || avail >= rem || avail >= ((size_t)1 << 26))
			return rc;
		tryn = avail * 4 < rem ? avail * 4 : (size_t)rem;
	}
}

static int decompress(pm_pq_col *c, const uint8_t *src, size_t n, size_t want, const uint8_t **out)
{
	size_t bound;
	int rc;
	if (c->codec == PM_CODEC_UNCOMPRESSED) {
		if (n != want)
			return pm_err(PAIMON_ECORRUPT, "uncompressed page holds %zu bytes, header says %zu", n, want);
		*out = src;
		return 0;
	}
	if (want > c->r->max_page)
		return pm_err(PAIMON_ECORRUPT, "page decompresses to %zu bytes, over the %zu-byte limit", want,
			      c->r->max_page);
	if (want > (bound = pm_codec_max_decompressed_len(c->codec, n)))
		return pm_err(PAIMON_ECORRUPT, "page of %zu %s-compressed bytes claims %zu uncompressed bytes, "
			      "more than that codec can expand to (at most %zu)", n, pm_codec_name(c->codec), want,
			      bound);
	if ((rc = grow((void **)&c->dbuf, &c->dbuf_cap, want + 8)))
		return rc;
	if (n == 0 && want == 0) {
		*out = c->dbuf;
		return 0;
	}
	if (!c->cctx && (rc = pm_codec_ctx_new(&c->cctx)))
		return rc;
	if ((rc = pm_codec_decompress_exact(c->cctx, c->codec, src, n, c->dbuf, want)))
		return rc;
	*out = c->dbuf;
	return 0;
}

static int load_dictionary(pm_pq_col *c, const pm_pq_page_header *h, const uint8_t *body)
{
	const pm_pq_dictionary_page_header *dh = &h->dictionary_page_header;
	const uint8_t *p;
	size_t len = (size_t)h->uncompressed_page_size;
	int rc;
	if (!h->has_dictionary_page_header)
		return pm_err(PAIMON_ECORRUPT, "dictionary page without a dictionary_page_header");
	if (c->seen_data)
		return pm_err(PAIMON_ECORRUPT, "dictionary page after data pages");
	if (c->has_dict)
		return pm_err(PAIMON_ECORRUPT, "second dictionary page in one column chunk");
	if (dh->num_values < 0)
		return pm_err(PAIMON_ECORRUPT, "dictionary page with negative value count %d", (int)dh->num_values);
	if (dh->encoding != PM_PQ_ENC_PLAIN && dh->encoding != PM_PQ_ENC_PLAIN_DICTIONARY)
		return pm_err(PAIMON_EUNSUPPORTED, "dictionary page encoding %d", (int)dh->encoding);
	if ((rc = decompress(c, body, (size_t)h->compressed_page_size, len, &p)))
		return rc;
	if (c->ptype == PM_PQ_BOOLEAN)
		return pm_err(PAIMON_ECORRUPT, "dictionary page in a BOOLEAN column");
	if (c->ptype == PM_PQ_BYTE_ARRAY) {
		pm_pq_plain_dec d;
		struct ArrowArray tmp;
		if (!c->dict_bin && !(c->dict_bin = pm_ab_new_binary("z", 0)))
			return PAIMON_ENOMEM;
		if (pm_ab_length(c->dict_bin) && !pm_ab_finish(c->dict_bin, &tmp))
			tmp.release(&tmp);
		pm_pq_plain_init(&d, p, len, "BYTE_ARRAY");
		if ((uint64_t)dh->num_values > len / 4)
			return pm_err(PAIMON_ECORRUPT, "dictionary of %d values cannot fit in %zu bytes",
				      (int)dh->num_values, len);
		if ((rc = pm_pq_plain_get_binary(&d, c->dict_bin, dh->num_values)) ||
		    (rc = pm_pq_bytes_from_builder(c->dict_bin, &c->dict_bytes)))
			return rc;
	} else {
		size_t need = (size_t)dh->num_values * (size_t)c->pw;
		if ((uint64_t)dh->num_values > len / (size_t)c->pw)
			return pm_err(PAIMON_ECORRUPT, "dictionary of %d values of %d bytes cannot fit in %zu bytes",
				      (int)dh->num_values, c->pw, len);
		if ((rc = grow((void **)&c->dict_fixed, &c->dict_fixed_cap, need + 1)))
			return rc;
		memcpy(c->dict_fixed, p, need);
	}
	c->n_dict = dh->num_values;
	c->has_dict = true;
	return 0;
}

static int ensure_levels(pm_pq_col *c, int64_t n)
{
	size_t cap, cap2;
	int rc;
	if ((uint64_t)n <= c->lcap)
		return 0;
	/* the two may come back with different capacities (a cached block
	 * is taken whole): the smaller one counts */
	cap = cap2 = c->lcap * sizeof(int16_t);
	if ((rc = grow((void **)&c->ldef, &cap, (size_t)n * sizeof(int16_t))))
		return rc;
	if ((rc = grow((void **)&c->lrep, &cap2, (size_t)n * sizeof(int16_t))))
		return rc;
	c->lcap = (cap < cap2 ? cap : cap2) / sizeof(int16_t);
	return 0;
}

static int setup_values(pm_pq_col *c, int enc, int64_t n)
{
	size_t used;
	int rc;
	c->enc = enc;
	switch (enc) {
	case PM_PQ_ENC_PLAIN:
		pm_pq_plain_init(&c->plain, c->vals, c->vals_len, type_name(c->ptype));
		return 0;
	case PM_PQ_ENC_PLAIN_DICTIONARY:
	case PM_PQ_ENC_RLE_DICTIONARY:
		if (!c->has_dict)
			return pm_err(PAIMON_ECORRUPT, "dictionary-encoded data page but the chunk has no dictionary page");
		if (!c->dd && !(c->dd = pm_malloc(sizeof *c->dd)))
			return PAIMON_ENOMEM;
		if (n == 0 && c->vals_len == 0)
			return 0;
		return pm_pq_dictdec_init(c->dd, c->vals, c->vals_len, c->n_dict);
	case PM_PQ_ENC_RLE:
		if (c->ptype != PM_PQ_BOOLEAN)
			return pm_err(PAIMON_EUNSUPPORTED, "RLE value encoding for a %s column", type_name(c->ptype));
		if (c->vals_len == 0)
			return pm_pq_rle_init(&c->boolrle, c->vals, 0, 1, "RLE booleans");
		return pm_pq_rle_init_prefixed(&c->boolrle, c->vals, c->vals_len, 1, "RLE booleans", &used);
	case PM_PQ_ENC_DELTA_BINARY_PACKED:
		if (c->ptype != PM_PQ_INT32 && c->ptype != PM_PQ_INT64)
			return pm_err(PAIMON_ECORRUPT, "DELTA_BINARY_PACKED for a %s column", type_name(c->ptype));
		if (c->vals_len == 0)
			return pm_pq_dbp_init(&c->dbp, c->vals, 0, c->ptype == PM_PQ_INT32 ? 32 : 64, n) ? 0 : 0;
		return pm_pq_dbp_init(&c->dbp, c->vals, c->vals_len, c->ptype == PM_PQ_INT32 ? 32 : 64, n);
	case PM_PQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
		if (c->ptype != PM_PQ_BYTE_ARRAY)
			return pm_err(PAIMON_ECORRUPT, "DELTA_LENGTH_BYTE_ARRAY for a %s column", type_name(c->ptype));
		if (c->dlba_live)
			pm_pq_dlba_dispose(&c->dlba);
		c->dlba_live = false;
		if ((rc = pm_pq_dlba_init(&c->dlba, c->vals, c->vals_len, n)))
			return rc;
		c->dlba_live = true;
		return 0;
	case PM_PQ_ENC_DELTA_BYTE_ARRAY:
		if (c->ptype != PM_PQ_BYTE_ARRAY && c->ptype != PM_PQ_FIXED_LEN_BYTE_ARRAY)
			return pm_err(PAIMON_ECORRUPT, "DELTA_BYTE_ARRAY for a %s column", type_name(c->ptype));
		if (c->dba_live)
			pm_pq_dba_dispose(&c->dba);
		c->dba_live = false;
		if ((rc = pm_pq_dba_init(&c->dba, c->vals, c->vals_len, n)))
			return rc;
		c->dba_live = true;
		return 0;
	case PM_PQ_ENC_BYTE_STREAM_SPLIT:
		if (c->ptype == PM_PQ_BOOLEAN || c->ptype == PM_PQ_BYTE_ARRAY)
			return pm_err(PAIMON_ECORRUPT, "BYTE_STREAM_SPLIT for a %s column", type_name(c->ptype));
		return pm_pq_bss_init(&c->bss, c->vals, c->vals_len, c->pw, (int64_t)(c->vals_len / (size_t)c->pw));
	default:
		return pm_err(PAIMON_EUNSUPPORTED, "value encoding %d", enc);
	}
}

/* Reads pages until a data page is set up: 0, or 1 at the end of the chunk. */
static int next_data_page(pm_pq_col *c)
{
	pm_pq_page_header h;
	size_t hlen, csize;
	const uint8_t *body;
	int rc;
	for (;;) {
		if (c->pos >= c->cend || (c->seen_data && c->values_seen >= c->chunk_values))
			return 1;
		c->page_no++;
		if ((rc = read_header(c, &h, &hlen)))
			return rc;
		if (h.compressed_page_size < 0 || h.uncompressed_page_size < 0)
			return pm_err(PAIMON_ECORRUPT, "negative page size in page header");
		csize = (size_t)h.compressed_page_size;
		if (csize > c->cend - c->pos - hlen)
			return pm_err(PAIMON_ECORRUPT, "page of %zu bytes runs past the column chunk end", csize);
		c->pos += hlen;
		if (h.type != PM_PQ_DICTIONARY_PAGE && h.type != PM_PQ_DATA_PAGE && h.type != PM_PQ_DATA_PAGE_V2) {
			c->pos += csize;
			continue;
		}
		if ((rc = io_ensure(c, c->pos, csize, io_want(c, c->pos))))
			return rc;
		body = io_ptr(c, c->pos);
		c->pos += csize;
		if (c->r->verify_crc && h.has_crc) {
			uint32_t crc = pm_crc32(0, body, csize);
			if (crc != (uint32_t)h.crc)
				return pm_err(PAIMON_ECORRUPT, "page CRC mismatch (stored %08x, computed %08x)",
					      (unsigned)h.crc, (unsigned)crc);
		}
		if (h.type == PM_PQ_DICTIONARY_PAGE) {
			if ((rc = load_dictionary(c, &h, body)))
				return rc;
			continue;
		}
		c->seen_data = true;
		c->pages_read++;
		if (h.type == PM_PQ_DATA_PAGE) {
			const pm_pq_data_page_header *dp = &h.data_page_header;
			const uint8_t *p;
			size_t len = (size_t)h.uncompressed_page_size, used;
			if (!h.has_data_page_header)
				return pm_err(PAIMON_ECORRUPT, "data page without a data_page_header");
			if (dp->num_values < 0)
				return pm_err(PAIMON_ECORRUPT, "data page with negative value count %d", (int)dp->num_values);
			if ((rc = decompress(c, body, csize, len, &p)))
				return rc;
			c->page_n = dp->num_values;
			if (c->max_rep > 0) {
				if ((rc = pm_pq_rle_init_prefixed(&c->repd, p, len, pm_pq_bit_width((uint64_t)c->max_rep),
							       "repetition levels", &used)))
					return rc;
				p += used, len -= used;
			}
			if (c->max_def > 0) {
				if ((rc = pm_pq_rle_init_prefixed(&c->defd, p, len, pm_pq_bit_width((uint64_t)c->max_def),
							       "definition levels", &used)))
					return rc;
				p += used, len -= used;
			}
			c->vals = p;
			c->vals_len = len;
			rc = setup_values(c, dp->encoding, c->page_n);
		} else {
			const pm_pq_data_page_header_v2 *dp = &h.data_page_header_v2;
			size_t rl, dl;
			if (!h.has_data_page_header_v2)
				return pm_err(PAIMON_ECORRUPT, "data page v2 without a data_page_header_v2");
			if (dp->num_values < 0 || dp->repetition_levels_byte_length < 0 ||
			    dp->definition_levels_byte_length < 0 || dp->num_nulls < 0 || dp->num_rows < 0)
				return pm_err(PAIMON_ECORRUPT, "data page v2 with negative counts");
			rl = (size_t)dp->repetition_levels_byte_length;
			dl = (size_t)dp->definition_levels_byte_length;
			if (rl > csize || dl > csize - rl || rl + dl > (size_t)h.uncompressed_page_size)
				return pm_err(PAIMON_ECORRUPT, "data page v2 level lengths %zu + %zu exceed the page", rl, dl);
			c->page_n = dp->num_values;
			if (c->max_rep > 0 && (rc = pm_pq_rle_init(&c->repd, body, rl, pm_pq_bit_width((uint64_t)c->max_rep),
								 "repetition levels")))
				return rc;
			if (c->max_def > 0 && (rc = pm_pq_rle_init(&c->defd, body + rl, dl,
								 pm_pq_bit_width((uint64_t)c->max_def), "definition levels")))
				return rc;
			{
				const uint8_t *vp = body + rl + dl;
				size_t vn = csize - rl - dl, want = (size_t)h.uncompressed_page_size - rl - dl;
				if (dp->is_compressed && vn > 0 && c->codec != PM_CODEC_UNCOMPRESSED) {
					if ((rc = decompress(c, vp, vn, want, &c->vals)))
						return rc;
					c->vals_len = want;
				} else {
					c->vals = vp;
					c->vals_len = vn;
				}
			}
			rc = setup_values(c, dp->encoding, c->page_n);
		}
		if (rc)
			return rc;
		if ((uint64_t)c->page_n * 4 > c->r->max_page)
			return pm_err(PAIMON_ECORRUPT, "page claims %lld values, over the %zu-byte page limit",
				      (long long)c->page_n, c->r->max_page);
		c->values_seen += c->page_n;
		c->page_pos = 0;
		if (c->nested) {
			if ((rc = ensure_levels(c, c->page_n)))
				return rc;
			if (c->max_rep > 0) {
				if ((rc = pm_pq_rle_get_levels(&c->repd, c->lrep, c->page_n, (uint32_t)c->max_rep)))
					return rc;
			} else if (c->page_n) {
				memset(c->lrep, 0, (size_t)c->page_n * sizeof(int16_t));
			}
			if (c->max_def > 0) {
				if ((rc = pm_pq_rle_get_levels(&c->defd, c->ldef, c->page_n, (uint32_t)c->max_def)))
					return rc;
			} else if (c->page_n) {
				memset(c->ldef, 0, (size_t)c->page_n * sizeof(int16_t));
			}
		}
		return 0;
	}
}

/* ------------------------------------------------------------ values */

static int scratch(pm_pq_col *c, size_t n, uint8_t **out)
{
	int rc = grow((void **)&c->scr, &c->scr_cap, n + 16);
	*out = c->scr;
	return rc;
}

/* n physical fixed-width values into dst. */
static int vals_fixed_phys(pm_pq_col *c, void *dst, int64_t n)
{
	switch (c->enc) {
	case PM_PQ_ENC_PLAIN:
		return pm_pq_plain_get_fixed(&c->plain, c->pw, dst, n);
	case PM_PQ_ENC_PLAIN_DICTIONARY:
	case PM_PQ_ENC_RLE_DICTIONARY:
		return pm_pq_dictdec_fixed(c->dd, c->dict_fixed, c->pw, dst, n);
	case PM_PQ_ENC_DELTA_BINARY_PACKED:
		return c->ptype == PM_PQ_INT32 ? pm_pq_dbp_get32(&c->dbp, dst, n) : pm_pq_dbp_get64(&c->dbp, dst, n);
	case PM_PQ_ENC_BYTE_STREAM_SPLIT:
		return pm_pq_bss_get(&c->bss, dst, n);
	case PM_PQ_ENC_DELTA_BYTE_ARRAY:
		return pm_pq_dba_get_fixed(&c->dba, c->pw, dst, n);
	default:
		return pm_err(PAIMON_EUNSUPPORTED, "encoding %d for a %s column", c->enc, type_name(c->ptype));
	}
}

static int vals_binary(pm_pq_col *c, pm_array_builder *ab, int64_t n)
{
	switch (c->enc) {
	case PM_PQ_ENC_PLAIN:
		return pm_pq_plain_get_binary(&c->plain, ab, n);
	case PM_PQ_ENC_PLAIN_DICTIONARY:
	case PM_PQ_ENC_RLE_DICTIONARY:
		return pm_pq_dictdec_binary(c->dd, &c->dict_bytes, ab, n);
	case PM_PQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
		return pm_pq_dlba_get(&c->dlba, ab, n);
	case PM_PQ_ENC_DELTA_BYTE_ARRAY:
		return pm_pq_dba_get(&c->dba, ab, n);
	default:
		return pm_err(PAIMON_EUNSUPPORTED, "encoding %d for a BYTE_ARRAY column", c->enc);
	}
}

/* Appends n zero bits to a bool builder's values; returns the first bit. */
static int bool_grow(pm_array_builder *ab, int64_t n, int64_t *base)
{
	size_t need = (size_t)((ab->nbits + n + 7) >> 3);
	*base = ab->nbits;
	if (need > ab->values.len) {
		size_t old = ab->values.len;
		if (!pm_abuf_grow(&ab->values, need - old))
			return PAIMON_ENOMEM;
		memset(ab->values.data + old, 0, need - old);
	}
	pm_bits_set_range(ab->values.data, ab->nbits, n, 0);
	ab->nbits += n;
	return 0;
}

static void sign_extend_le(uint8_t *out, int w, int64_t v)
{
	uint8_t fill = v < 0 ? 0xff : 0;
	int k;
	for (k = 0; k < 8; k++)
		out[k] = (uint8_t)((uint64_t)v >> (8 * k));
	memset(out + 8, fill, (size_t)w - 8);
}

static int be_to_le(uint8_t *out, int w, const uint8_t *in, size_t n)
{
	size_t k, skip = 0;
	uint8_t fill;
	if (n == 0) {
		memset(out, 0, (size_t)w);
		return 0;
	}
	fill = (in[0] & 0x80) ? 0xff : 0;
	if (n > (size_t)w) {
		/* Leading bytes must be pure sign extension. */
		skip = n - (size_t)w;
		for (k = 0; k < skip; k++)
			if (in[k] != fill)
				return pm_err(PAIMON_ECORRUPT, "decimal value of %zu bytes does not fit %d bytes", n, w);
		in += skip;
		n -= skip;
	}
	for (k = 0; k < n; k++)
		out[k] = in[n - 1 - k];
	memset(out + n, fill, (size_t)w - n);
	return 0;
}

static int col_values_only(pm_pq_col *c, int64_t n);

/* Appends n valid values (validity + values) to the leaf builder. The
 * byte-array decoders append the validity themselves. */
static int col_values(pm_pq_col *c, int64_t n)
{
	int rc;
	if (n <= 0)
		return 0;
	if (c->node->type.kind == PQ_K_BINARY)
		return vals_binary(c, c->ab, n);
	if ((rc = pm_bitmap_append_run(&c->ab->validity, 1, n)))
		return rc;
	return col_values_only(c, n);
}

/* Appends n dense (non-null) values to the leaf builder's value buffers. */
static int col_values_only(pm_pq_col *c, int64_t n)
{
	pm_array_builder *ab = c->ab;
	const pm_pq_leaf_type *t = &c->node->type;
	uint8_t *dst, *src;
	int64_t i;
	int rc;
	if (n <= 0)
		return 0;
	if (t->kind == PQ_K_BOOL) {
		int64_t base;
		if ((rc = bool_grow(ab, n, &base)))
			return rc;
		if (c->enc == PM_PQ_ENC_PLAIN)
			return pm_pq_plain_get_bool_bits(&c->plain, ab->values.data, base, n);
		if (c->enc == PM_PQ_ENC_RLE) {
			while (n > 0) {
				int64_t m = n < LIT_CHUNK ? n : LIT_CHUNK;
				if ((rc = pm_pq_rle_get(&c->boolrle, c->u32, m)))
					return rc;
				for (i = 0; i < m; i++)
					if (c->u32[i])
						ab->values.data[(base + i) >> 3] |= (uint8_t)(1u << ((base + i) & 7));
				base += m;
				n -= m;
			}
			return 0;
		}
		return pm_err(PAIMON_EUNSUPPORTED, "encoding %d for a BOOLEAN column", c->enc);
	}
	if (t->kind == PQ_K_BINARY)
		return vals_binary(c, ab, n);
	if ((uint64_t)n > SIZE_MAX / 64)
		return pm_err_nomem(SIZE_MAX);
	if (t->conv == PQ_CV_DEC_BA) {
		struct ArrowArray tmp;
		const int32_t *off;
		if (!c->tmpbin && !(c->tmpbin = pm_ab_new_binary("z", 0)))
			return PAIMON_ENOMEM;
		if ((rc = vals_binary(c, c->tmpbin, n)))
			return rc;
		if (!(dst = pm_ab_values_grow(ab, (size_t)n * (size_t)t->width)))
			return PAIMON_ENOMEM;
		off = (const int32_t *)(const void *)c->tmpbin->offsets.data;
		for (i = 0; i < n; i++)
			if ((rc = be_to_le(dst + i * t->width, t->width, c->tmpbin->values.data + off[i],
					   (size_t)(off[i + 1] - off[i]))))
				return rc;
		/* reset the scratch builder */
		if (!pm_ab_finish(c->tmpbin, &tmp))
			tmp.release(&tmp);
		return 0;
	}
	if (t->conv == PQ_CV_COPY) {
		if (!(dst = pm_ab_values_grow(ab, (size_t)n * (size_t)t->width)))
			return PAIMON_ENOMEM;
		return vals_fixed_phys(c, dst, n);
	}
	if ((rc = scratch(c, (size_t)n * (size_t)c->pw, &src)))
		return rc;
	if ((rc = vals_fixed_phys(c, src, n)))
		return rc;
	if (!(dst = pm_ab_values_grow(ab, (size_t)n * (size_t)t->width)))
		return PAIMON_ENOMEM;
	switch (t->conv) {
	case PQ_CV_I32_I8:
		for (i = 0; i < n; i++) {
			int32_t v;
			memcpy(&v, src + 4 * i, 4);
			dst[i] = (uint8_t)v;
		}
		break;
	case PQ_CV_I32_I16:
		for (i = 0; i < n; i++) {
			int32_t v;
			int16_t s;
			memcpy(&v, src + 4 * i, 4);
			s = (int16_t)v;
			memcpy(dst + 2 * i, &s, 2);
		}
		break;
	case PQ_CV_INT96:
		for (i = 0; i < n; i++) {
			uint64_t nanos, ns;
			int32_t jd;
			memcpy(&nanos, src + 12 * i, 8);
			memcpy(&jd, src + 12 * i + 8, 4);
			ns = (uint64_t)((int64_t)jd - 2440588) * UINT64_C(86400000000000) + nanos;
			memcpy(dst + 8 * i, &ns, 8);
		}
		break;
	case PQ_CV_DEC_I32:
		if (t->width == 16) {
			for (i = 0; i < n; i++) {
				int32_t v;
				int64_t w2[2];
				memcpy(&v, src + 4 * i, 4);
				w2[0] = v;
				w2[1] = v < 0 ? -1 : 0;
				memcpy(dst + 16 * i, w2, 16);
			}
			break;
		}
		for (i = 0; i < n; i++) {
			int32_t v;
			memcpy(&v, src + 4 * i, 4);
			sign_extend_le(dst + i * t->width, t->width, v);
		}
		break;
	case PQ_CV_DEC_I64:
		if (t->width == 16) {
			for (i = 0; i < n; i++) {
				int64_t w2[2];
				memcpy(&w2[0], src + 8 * i, 8);
				w2[1] = w2[0] < 0 ? -1 : 0;
				memcpy(dst + 16 * i, w2, 16);
			}
			break;
		}
		for (i = 0; i < n; i++) {
			int64_t v;
			memcpy(&v, src + 8 * i, 8);
			sign_extend_le(dst + i * t->width, t->width, v);
		}
		break;
	case PQ_CV_DEC_FLBA:
		if (t->width == 16 && c->pw >= 1 && c->pw <= 8) {
			/* big-endian two's complement of pw <= 8 bytes: one
			 * byte swap and an arithmetic shift per value */
			int sh = 64 - 8 * c->pw;
			for (i = 0; i < n; i++) {
				uint64_t u = 0;
				int64_t w2[2];
				memcpy(&u, src + (size_t)i * (size_t)c->pw, (size_t)c->pw);
				u = __builtin_bswap64(u); /* the pw bytes now at the top */
				w2[0] = (int64_t)u >> sh;
				w2[1] = w2[0] < 0 ? -1 : 0;
				memcpy(dst + 16 * i, w2, 16);
			}
			break;
		}
		for (i = 0; i < n; i++)
			if ((rc = be_to_le(dst + i * t->width, t->width, src + (size_t)i * (size_t)c->pw, (size_t)c->pw)))
				return rc;
		break;
	default:
		return pm_err(PAIMON_EINVAL, "bad conversion %d", t->conv);
	}
	return 0;
}

/* Appends n null slots (value buffers only). */
static int col_null_slots(pm_pq_col *c, int64_t n)
{
	pm_array_builder *ab = c->ab;
	int64_t i, base;
	if (n <= 0)
		return 0;
	switch (ab->kind) {
	case PM_AB_BOOL:
		return bool_grow(ab, n, &base);
	case PM_AB_BINARY: {
		int32_t *o = pm_ab_offsets_grow(ab, n);
		if (!o)
			return PAIMON_ENOMEM;
		for (i = 0; i < n; i++)
			o[i] = o[-1];
		return 0;
	}
	default: {
		uint8_t *p;
		size_t sz = (size_t)n * (size_t)ab->width;
		if (!sz)
			return 0;
		if (!(p = pm_ab_values_grow(ab, sz)))
			return PAIMON_ENOMEM;
		memset(p, 0, sz);
		return 0;
	}
	}
}

/* Spreads the nv dense values at the front of q over ns slots, in place and
 * back to front: slot i takes the next value down when bit i of bits is set
 * and 0 otherwise. Whole 64-slot words of ones move with one memmove, words
 * of zeros are cleared, mixed words go slot by slot without branches (a
 * null slot reads a value it then masks out). */
#define SPREAD_T(NAME, T)                                                                         \
	static void NAME(T *q, const uint8_t *bits, int64_t ns, int64_t nv)                         \
	{                                                                                           \
		int64_t i = ns, vi = nv;                                                           \
		while (i > vi) {                                                                   \
			int64_t lo = (i - 1) & ~(int64_t)63, m = i - lo, b;                        \
			uint64_t w = 0, full = m == 64 ? ~UINT64_C(0) : (UINT64_C(1) << m) - 1;    \
			memcpy(&w, bits + (lo >> 3), (size_t)((m + 7) >> 3));                      \
			w &= full;                                                                 \
			if (w == full) {                                                           \
				memmove(q + lo, q + vi - m, (size_t)m * sizeof(T));                 \
				vi -= m;                                                           \
			} else if (w == 0) {                                                       \
				memset(q + lo, 0, (size_t)m * sizeof(T));                           \
			} else if (__builtin_popcountll(w) + 6 >= m) {                             \
				/* few nulls: move the runs between them */                  \
				uint64_t z = ~w & full;                                            \
				int64_t top = m;                                                   \
				while (z) {                                                        \
					int64_t zb = 63 - __builtin_clzll(z), run = top - zb - 1;  \
					memmove(q + lo + zb + 1, q + vi - run, (size_t)run * sizeof(T)); \
					vi -= run;                                                 \
					q[lo + zb] = 0;                                            \
					top = zb;                                                  \
					z &= ~(UINT64_C(1) << zb);                                 \
				}                                                                  \
				memmove(q + lo, q + vi - top, (size_t)top * sizeof(T));            \
				vi -= top;                                                         \
			} else {                                                                   \
				for (b = m - 1; b >= 0; b--) {                                     \
					uint64_t bit = (w >> b) & 1;                               \
					T x = q[vi - (vi > 0)];                                    \
					q[lo + b] = (T)(x & (T)(0 - (T)bit));                      \
					vi -= (int64_t)bit;                                        \
				}                                                                  \
			}                                                                          \
			i = lo;                                                                    \
		}                                                                                  \
	}
SPREAD_T(spread_u8, uint8_t)
SPREAD_T(spread_u16, uint16_t)
SPREAD_T(spread_u32, uint32_t)
SPREAD_T(spread_u64, uint64_t)

/* 16-byte values (decimal128) as pairs of words, without branches. */
static void spread_u128(uint64_t *q, const uint8_t *bits, int64_t ns, int64_t nv)
{
	int64_t i, vi = nv;
	for (i = ns - 1; i >= 0 && vi < i + 1; i--) {
		uint64_t bit = (uint64_t)(bits[i >> 3] >> (i & 7)) & 1, m = 0 - bit;
		int64_t src = vi - (vi > 0);
		uint64_t a = q[2 * src], b = q[2 * src + 1];
		q[2 * i] = a & m;
		q[2 * i + 1] = b & m;
		vi -= (int64_t)bit;
	}
}

static void spread_any(uint8_t *d, size_t w, const uint8_t *bits, int64_t ns, int64_t nv)
{
	int64_t i, vi = nv;
	for (i = ns - 1; i >= 0 && vi < i + 1; i--) {
		if ((bits[i >> 3] >> (i & 7)) & 1)
			memmove(d + (size_t)i * w, d + (size_t)(--vi) * w, w);
		else
			memset(d + (size_t)i * w, 0, w);
	}
}

/* Fixed-width leaves with scattered nulls: decodes the nvals defined values
 * densely in one call, spreads them in place over the nslots slots whose
 * validity is bits[] (LSB first, from bit 0), and appends that validity in
 * one go. */
static int spread_fixed(pm_pq_col *c, const uint8_t *bits, int64_t nslots, int64_t nvals)
{
	pm_array_builder *ab = c->ab;
	size_t w = (size_t)ab->width, base;
	uint8_t *d;
	int rc;
	if (nslots <= 0)
		return 0;
	if (nslots == nvals) /* all valid: no spreading, one validity run */
		return (rc = col_values_only(c, nvals)) ? rc : pm_bitmap_append_run(&ab->validity, 1, nslots);
	if (nvals == 0)
		return (rc = col_null_slots(c, nslots)) ? rc : pm_bitmap_append_run(&ab->validity, 0, nslots);
	base = ab->values.len;
	if ((rc = col_values_only(c, nvals)))
		return rc;
	if (nslots > nvals && !pm_ab_values_grow(ab, (size_t)(nslots - nvals) * w))
		return PAIMON_ENOMEM;
	d = ab->values.data + base;
	switch (w) {
	case 1:
		spread_u8(d, bits, nslots, nvals);
		break;
	case 2:
		spread_u16((uint16_t *)(void *)d, bits, nslots, nvals);
		break;
	case 4:
		spread_u32((uint32_t *)(void *)d, bits, nslots, nvals);
		break;
	case 8:
		spread_u64((uint64_t *)(void *)d, bits, nslots, nvals);
		break;
	case 16:
		spread_u128((uint64_t *)(void *)d, bits, nslots, nvals);
		break;
	default:
		spread_any(d, w, bits, nslots, nvals);
		break;
	}
	return pm_bitmap_append_bits(&ab->validity, bits, 0, nslots);
}

/* Booleans with scattered nulls: the nvals dense bits, then each valid slot
 * takes the next one. */
static int spread_bool(pm_pq_col *c, const uint8_t *bits, int64_t nslots, int64_t nvals)
{
	pm_array_builder *ab = c->ab;
	int64_t base0 = ab->nbits, base, k, j = 0;
	uint8_t *src, *vals;
	int rc;
	if ((rc = col_values_only(c, nvals)) || (rc = scratch(c, (size_t)(nvals / 8 + 8), &src)))
		return rc;
	pm_bits_copy(src, 0, ab->values.data, base0, nvals);
	ab->nbits = base0;
	if ((rc = bool_grow(ab, nslots, &base)))
		return rc;
	vals = ab->values.data;
	for (k = 0; k < nslots; k += 64) {
		int64_t m = nslots - k < 64 ? nslots - k : 64;
		uint64_t w = 0;
		memcpy(&w, bits + (k >> 3), (size_t)((m + 7) >> 3));
		if (m < 64)
			w &= (UINT64_C(1) << m) - 1;
		while (w) {
			int64_t o = base + k + __builtin_ctzll(w);
			vals[o >> 3] |= (uint8_t)(((src[j >> 3] >> (j & 7)) & 1) << (o & 7));
			j++;
			w &= w - 1;
		}
	}
	return pm_bitmap_append_bits(&ab->validity, bits, 0, nslots);
}

/* Byte arrays with scattered nulls: the nvals values are appended densely,
 * then their end offsets are spread in place, back to front (a null slot
 * repeats the offset before it). */
#define SPREAD_OFFSETS(T)                                                            \
	do {                                                                            \
		T *o;                                                                   \
		int64_t s_, vi = nvals;                                                 \
		if (!pm_ab_offsets_grow(ab, nslots - nvals))                            \
			return pm_err_code();                                           \
		o = (T *)(void *)ab->offsets.data + (ab->offsets.len / sizeof(T) - 1 - (size_t)nslots); \
		for (s_ = nslots - 1; s_ >= 0 && vi < s_ + 1; s_--) {                   \
			int64_t bit = (bits[s_ >> 3] >> (s_ & 7)) & 1;                  \
			o[1 + s_] = o[vi];                                              \
			vi -= bit;                                                      \
		}                                                                       \
	} while (0)

static int spread_binary(pm_pq_col *c, const uint8_t *bits, int64_t nslots, int64_t nvals)
{
	pm_array_builder *ab = c->ab;
	int rc;
	if ((rc = vals_binary(c, ab, nvals)))
		return rc;
	pm_bitmap_drop_valid(&ab->validity, nvals);
	if (ab->kind == PM_AB_LARGE_BINARY)
		SPREAD_OFFSETS(int64_t);
	else
		SPREAD_OFFSETS(int32_t);
	return pm_bitmap_append_bits(&ab->validity, bits, 0, nslots);
}

/* nslots slots of a leaf whose validity is bits[] and nvals of which hold a
 * value. */
static int spread_rows(pm_pq_col *c, const uint8_t *bits, int64_t nslots, int64_t nvals)
{
	int rc;
	if (nslots <= 0)
		return 0;
	if (nslots == nvals)
		return col_values(c, nvals);
	if (nvals == 0)
		return (rc = col_null_slots(c, nslots)) ? rc : pm_bitmap_append_run(&c->ab->validity, 0, nslots);
	switch (c->ab->kind) {
	case PM_AB_FIXED:
		return spread_fixed(c, bits, nslots, nvals);
	case PM_AB_BOOL:
		return spread_bool(c, bits, nslots, nvals);
	default:
		return spread_binary(c, bits, nslots, nvals);
	}
}

/* ------------------------------------------------------------ reading rows */

static int flat_rows(pm_pq_col *c, int64_t k)
{
	pm_bitmap_builder *bb = &c->ab->validity;
	uint32_t md = (uint32_t)c->max_def;
	int rc;
	if (c->max_def == 0) {
		return col_values(c, k);
	}
	if (c->ab->kind == PM_AB_FIXED || c->ab->kind == PM_AB_BOOL || c->ab->kind == PM_AB_BINARY ||
	    c->ab->kind == PM_AB_LARGE_BINARY) {
		/* levels straight to validity bits, values decoded densely and
		 * spread, FLAT_CHUNK slots at a time */
		while (k > 0) {
			int64_t m = k < FLAT_CHUNK ? k : FLAT_CHUNK, nv;
			if ((rc = grow((void **)&c->vbytes, &c->vbytes_cap, (size_t)(FLAT_CHUNK / 8 + 8))) ||
			    (rc = pm_pq_rle_levels_to_bits(&c->defd, m, md, c->vbytes, &nv)) ||
			    (rc = spread_rows(c, c->vbytes, m, nv)))
				return rc;
			k -= m;
		}
		return 0;
	}
	while (k > 0) {
		pm_pq_run run;
		uint32_t max_n = k < LIT_CHUNK ? (uint32_t)k : LIT_CHUNK;
		if ((rc = pm_pq_rle_next_run(&c->defd, max_n, c->u32, &run)))
			return rc;
		if (run.count == 0)
			return pm_err(PAIMON_ECORRUPT, "definition levels: empty run");
		if (!run.values) {
			if (run.value == md) {
				if ((rc = col_values(c, run.count)))
					return rc;
			} else if (run.value < md) {
				if ((rc = pm_bitmap_append_run(bb, 0, run.count)) || (rc = col_null_slots(c, run.count)))
					return rc;
			} else {
				return pm_err(PAIMON_ECORRUPT, "definition level %u above the maximum %u", run.value, md);
			}
		} else {
			uint32_t i = 0, j;
			while (i < run.count) {
				uint32_t v = run.values[i];
				if (v > md)
					return pm_err(PAIMON_ECORRUPT, "definition level %u above the maximum %u", v, md);
				j = i + 1;
				if (v == md) {
					while (j < run.count && run.values[j] == md)
						j++;
					if ((rc = col_values(c, j - i)))
						return rc;
				} else {
					while (j < run.count && run.values[j] < md)
						j++;
					if ((rc = pm_bitmap_append_run(bb, 0, j - i)) || (rc = col_null_slots(c, j - i)))
						return rc;
				}
				i = j;
			}
		}
		k -= run.count;
	}
	return 0;
}

static int read_flat(pm_pq_col *c, int64_t n)
{
	int rc;
	while (n > 0) {
		int64_t k;
		if (c->page_pos == c->page_n) {
			rc = next_data_page(c);
			if (rc == 1)
				return pm_err(PAIMON_ECORRUPT, "column chunk ends %lld rows early", (long long)n);
			if (rc)
				return rc;
			continue;
		}
		k = c->page_n - c->page_pos;
		if (k > n)
			k = n;
		if ((rc = flat_rows(c, k)))
			return rc;
		c->page_pos += k;
		n -= k;
	}
	return 0;
}

/* Levels [a, e) of the current page into the leaf and the batch levels. */
static int nested_levels(pm_pq_col *c, int64_t a, int64_t e)
{
	pm_bitmap_builder *bb = &c->ab->validity;
	const int16_t *d = c->ldef;
	int16_t md = c->max_def, rad = c->node->rad;
	int64_t i, j, n = e - a;
	int rc;
	if (n <= 0)
		return 0;
	if (c->bn + n > c->bcap) {
		size_t cap = (size_t)c->bcap * sizeof(int16_t), cap2 = cap;
		int64_t want = c->bn + n;
		if ((rc = grow((void **)&c->bdef, &cap, (size_t)want * sizeof(int16_t))))
			return rc;
		if ((rc = grow((void **)&c->brep, &cap2, (size_t)want * sizeof(int16_t))))
			return rc;
		c->bcap = (int64_t)((cap < cap2 ? cap : cap2) / sizeof(int16_t));
	}
	memcpy(c->bdef + c->bn, d + a, (size_t)n * sizeof(int16_t));
	memcpy(c->brep + c->bn, c->lrep + a, (size_t)n * sizeof(int16_t));
	c->bn += n;
	if (c->ab->kind == PM_AB_FIXED) {
		int64_t ns = 0, nv = 0;
		uint8_t *vb;
		if ((rc = grow((void **)&c->vbytes, &c->vbytes_cap, (size_t)(n / 8 + 8))))
			return rc;
		vb = c->vbytes;
		/* branchless: a level below rad (an empty or null ancestor) ORs
		 * a 0 bit without advancing (it is never == md); bits gather in a
		 * register, stored a word at a time */
		{
			uint64_t acc = 0;
			unsigned nb = 0;
			uint8_t *w = vb;
			for (i = a; i < e; i++) {
				unsigned v = d[i] == md;
				acc |= (uint64_t)v << nb;
				nb += d[i] >= rad;
				nv += v;
				if (nb == 64) {
					memcpy(w, &acc, 8);
					w += 8;
					acc = 0;
					nb = 0;
				}
			}
			ns = (int64_t)(w - vb) * 8 + nb;
			memcpy(w, &acc, 8);
		}
		return spread_fixed(c, vb, ns, nv);
	}
	i = a;
	while (i < e) {
		int16_t v = d[i];
		j = i + 1;
		if (v == md) {
			while (j < e && d[j] == md)
				j++;
			if ((rc = col_values(c, j - i)))
				return rc;
		} else if (v >= rad) {
			while (j < e && d[j] >= rad && d[j] < md)
				j++;
			if ((rc = pm_bitmap_append_run(bb, 0, j - i)) || (rc = col_null_slots(c, j - i)))
				return rc;
		} else {
			while (j < e && d[j] < rad)
				j++;
		}
		i = j;
	}
	return 0;
}

static int read_nested(pm_pq_col *c, int64_t nrec)
{
	int64_t done = 0;
	int rc;
	for (;;) {
		int64_t i, e;
		if (c->page_pos == c->page_n) {
			if (done == nrec && c->max_rep == 0)
				return 0;
			rc = next_data_page(c);
			if (rc == 1) {
				if (done == nrec)
					return 0;
				return pm_err(PAIMON_ECORRUPT, "column chunk ends %lld rows early", (long long)(nrec - done));
			}
			if (rc)
				return rc;
			if (c->max_rep > 0 && c->page_n > 0) {
				if (done == nrec && c->lrep[0] == 0)
					return 0;
				if (done == 0 && c->lrep[0] != 0)
					return pm_err(PAIMON_ECORRUPT, "first repetition level of a record is %d, not 0",
						      c->lrep[0]);
			}
			continue;
		}
		i = c->page_pos;
		e = i;
		if (c->max_rep == 0) {
			int64_t take = c->page_n - i;
			if (take > nrec - done)
				take = nrec - done;
			e = i + take;
			done += take;
		} else {
			/* up to the (nrec - done + 1)-th record start. Record
			 * starts are unpredictable: blocks of levels that fit whole
			 * are counted without exits, the last one level by level */
			const int16_t *rp = c->lrep;
			int64_t left = nrec - done, pn = c->page_n;
			while (e < pn && left >= 0) {
				int64_t q, z = 0, be = e + 512 < pn ? e + 512 : pn;
				for (q = e; q < be; q++)
					z += rp[q] == 0;
				if (z <= left) {
					e = be;
					left -= z;
					continue;
				}
				while (e < be) {
					left -= rp[e] == 0;
					if (left < 0)
						break;
					e++;
				}
			}
			done = nrec - (left < 0 ? 0 : left);
		}
		if ((rc = nested_levels(c, i, e)))
			return rc;
		c->page_pos = e;
		if (e < c->page_n)
			return 0;
		if (c->max_rep == 0 && done == nrec)
			return 0;
	}
}

static int col_read(pm_pq_col *c, int64_t n)
{
	return c->nested ? read_nested(c, n) : read_flat(c, n);
}

/* ------------------------------------------------------------ pre-sizing */

/* Cap of one pre-sized buffer: estimates come from file metadata, which a
 * corrupt file can inflate (untouched reserved pages cost no memory). */
#define PRESIZE_CAP ((size_t)256 << 20)

/* Estimated Arrow bytes per value of a BYTE_ARRAY leaf in the current
 * chunk: the dictionary's mean entry when the current page is dictionary
 * encoded, else the chunk's uncompressed size per value (less the PLAIN
 * length prefixes). 0 when unknown. */
static size_t binary_bytes_per_value(const pm_pq_col *c, const pm_pq_column_meta *m, bool page_live)
{
	if (page_live && c->has_dict && (c->enc == PM_PQ_ENC_PLAIN_DICTIONARY || c->enc == PM_PQ_ENC_RLE_DICTIONARY)) {
		const pm_pq_bytes *d = &c->dict_bytes;
		if (d->n <= 0 || !d->offsets)
			return 0;
		return (size_t)(d->offsets[d->n] - d->offsets[0]) / (size_t)d->n + 1;
	}
	if (m->num_values <= 0 || m->total_uncompressed_size <= 0)
		return 0;
	if ((!page_live || c->enc == PM_PQ_ENC_PLAIN) && m->total_uncompressed_size > 4 * m->num_values)
		return (size_t)((m->total_uncompressed_size - 4 * m->num_values) / m->num_values) + 1;
	return (size_t)(m->total_uncompressed_size / m->num_values) + 1;
}

/* Reserves the batch's leaf buffers (and nested levels) at their expected
 * final size from the chunk metadata, so that decoding n rows appends into
 * place instead of regrowing (each regrowth copied and page-faulted the
 * buffer again). Estimates only: a low one just means a regrowth. */
static int col_presize(pm_pq_col *c, int64_t n)
{
	struct pm_pq_reader *r = c->r;
	const pm_pq_column_meta *m = &r->fm->row_groups[c->rg].columns[c->leaf].meta_data;
	int64_t nv = n;
	bool live;
	int rc;
	if (n <= 0)
		return 0;
	if (c->nested) {
		/* levels of the batch: the chunk's level count pro rata, plus slack */
		if (r->rg_rows > 0 && m->num_values > 0) {
			double f = (double)m->num_values / (double)r->rg_rows * (double)n;
			f = f * 1.03 + 64;
			nv = f > (double)(PRESIZE_CAP / 8) ? (int64_t)(PRESIZE_CAP / 8) : (int64_t)f;
		}
		if (c->bn + nv > c->bcap) {
			size_t cap = (size_t)c->bcap * sizeof(int16_t), cap2 = cap;
			if ((rc = grow((void **)&c->bdef, &cap, (size_t)(c->bn + nv) * sizeof(int16_t))) ||
			    (rc = grow((void **)&c->brep, &cap2, (size_t)(c->bn + nv) * sizeof(int16_t))))
				return rc;
			c->bcap = (int64_t)((cap < cap2 ? cap : cap2) / sizeof(int16_t));
		}
	}
	switch (c->node->type.kind) {
	case PQ_K_FIXED:
		if ((size_t)nv > PRESIZE_CAP / (size_t)c->node->type.width)
			nv = (int64_t)(PRESIZE_CAP / (size_t)c->node->type.width);
		return pm_ab_reserve(c->ab, nv, 0);
	case PQ_K_BINARY: {
		size_t bpv, bytes;
		live = c->page_pos < c->page_n;
		if (!live && !c->nested) {
			/* Set up the first page now (read_flat would do it next) so
			 * that a dictionary's sizes are known. */
			if ((rc = next_data_page(c)) < 0)
				return rc;
			live = rc == 0 && c->page_pos < c->page_n;
		}
		bpv = binary_bytes_per_value(c, m, live);
		bytes = bpv && (size_t)nv > PRESIZE_CAP / bpv ? PRESIZE_CAP : bpv * (size_t)nv;
		if (bytes > PRESIZE_CAP)
			bytes = PRESIZE_CAP;
		return pm_ab_reserve(c->ab, nv > (int64_t)(PRESIZE_CAP / 8) ? (int64_t)(PRESIZE_CAP / 8) : nv, bytes);
	}
	default:
		return 0;
	}
}

static void reset_ab(pm_array_builder *ab);

/* Skips k (<= the rows left in the current page) rows of a flat column
 * whose page is PLAIN and not BOOLEAN without decoding them: the definition
 * levels are counted, the value cursor advanced. 1 when the page does not
 * qualify (nothing consumed), else 0 or an error. */
static int flat_skip_plain(pm_pq_col *c, int64_t k)
{
	int64_t nv = 0, left = k;
	uint32_t md = (uint32_t)c->max_def;
	int rc;
	if (c->nested || c->enc != PM_PQ_ENC_PLAIN || c->ptype == PM_PQ_BOOLEAN)
		return 1;
	if (c->max_def == 0) {
		nv = k;
	} else {
		while (left > 0) {
			pm_pq_run run;
			uint32_t i, max_n = left < LIT_CHUNK ? (uint32_t)left : LIT_CHUNK;
			if ((rc = pm_pq_rle_next_run(&c->defd, max_n, c->u32, &run)))
				return rc;
			if (run.count == 0)
				return pm_err(PAIMON_ECORRUPT, "definition levels: empty run");
			if (!run.values) {
				if (run.value > md)
					return pm_err(PAIMON_ECORRUPT, "definition level %u above the maximum %u", run.value,
						      md);
				if (run.value == md)
					nv += run.count;
			} else {
				for (i = 0; i < run.count; i++) {
					if (run.values[i] > md)
						return pm_err(PAIMON_ECORRUPT, "definition level %u above the maximum %u",
							      run.values[i], md);
					nv += run.values[i] == md;
				}
			}
			left -= run.count;
		}
	}
	if ((rc = pm_pq_plain_skip(&c->plain, c->ptype == PM_PQ_BYTE_ARRAY ? 0 : c->pw, nv)))
		return rc;
	c->page_pos += k;
	return 0;
}

/* Skips k rows of c. Whole pages the offset index locates are passed over
 * unread, rows of PLAIN pages are stepped over, others are decoded into
 * a scratch copy of the leaf builder and dropped: what the column's
 * builders (and batch levels) already hold is kept, so a batch can gather
 * rows of several row ranges. */
static int col_skip(pm_pq_col *c, int64_t k)
{
	struct pm_pq_reader *r = c->r;
	pm_array_builder *keep = c->ab, tmp;
	int64_t keep_bn = c->bn;
	int rc = 0;
	tmp = *keep;
	memset(&tmp.validity, 0, sizeof tmp.validity);
	memset(&tmp.values, 0, sizeof tmp.values);
	memset(&tmp.offsets, 0, sizeof tmp.offsets);
	tmp.nbits = 0;
	tmp.n_children = 0;
	tmp.children = NULL;
	while (k > 0) {
		int64_t m;
		if (c->page_pos == c->page_n && c->oi && c->pos < c->cend) {
			size_t j = c->oi_j;
			bool skipped = false;
			/* pages are passed in file order: resume where the last skip stopped */
			while (j < c->oi->n_page_locations && (uint64_t)c->oi->page_locations[j].offset < c->pos)
				j++;
			c->oi_j = j;
			if (j < c->oi->n_page_locations && (uint64_t)c->oi->page_locations[j].offset == c->pos) {
				const pm_pq_page_location *l = &c->oi->page_locations[j];
				int64_t end = j + 1 < c->oi->n_page_locations ? l[1].first_row_index : r->rg_rows;
				int64_t rows = end - l->first_row_index;
				if (rows > 0 && rows <= k && l->compressed_page_size > 0 &&
				    (uint64_t)l->compressed_page_size <= c->cend - c->pos) {
					c->pages_skipped++;
					c->pos += (uint64_t)l->compressed_page_size;
					c->seen_data = true;
					k -= rows;
					skipped = true;
				}
			}
			if (skipped)
				continue;
		}
		if (!c->nested) {
			if (c->page_pos == c->page_n) {
				rc = next_data_page(c);
				if (rc == 1) {
					rc = pm_err(PAIMON_ECORRUPT, "column chunk ends %lld rows early", (long long)k);
					break;
				}
				if (rc)
					break;
				continue;
			}
			m = c->page_n - c->page_pos;
			if (m > k)
				m = k;
			rc = flat_skip_plain(c, m);
			if (rc == 0) {
				k -= m;
				continue;
			}
			if (rc != 1)
				break;
			rc = 0;
		}
		m = k < r->batch ? k : r->batch;
		c->ab = &tmp;
		rc = col_read(c, m);
		c->ab = keep;
		reset_ab(&tmp);
		c->bn = keep_bn;
		if (rc)
			break;
		k -= m;
	}
	c->ab = keep;
	reset_ab(&tmp);
	c->bn = keep_bn;
	return rc;
}

/* ------------------------------------------------------------ assembly */

#define REP(c, i) ((c)->max_rep ? (c)->brep[i] : 0)

static int assemble(struct pm_pq_reader *r, pm_pq_anode *a);

static int validity_run(pm_bitmap_builder *bb, int *cur, int64_t *cnt, int v)
{
	int rc = 0;
	if (*cnt && *cur != v) {
		rc = pm_bitmap_append_run(bb, *cur, *cnt);
		*cnt = 0;
	}
	*cur = v;
	(*cnt)++;
	return rc;
}

static int assemble_struct(struct pm_pq_reader *r, pm_pq_anode *a)
{
	int leaf = pm_pq_first_leaf(a), rc, cur = 1, i;
	pm_pq_col *c;
	int64_t k, cnt = 0;
	if (leaf < 0 || r->leaf_col[leaf] < 0)
		return pm_err(PAIMON_EINVAL, "struct without a selected leaf");
	c = &r->cols[r->leaf_col[leaf]];
	for (k = 0; k < c->bn; k++) {
		if (REP(c, k) > a->rep || c->bdef[k] < a->rad)
			continue;
		if ((rc = validity_run(&a->ab->validity, &cur, &cnt, !a->nullable || c->bdef[k] >= a->def)))
			return rc;
	}
	if (cnt && (rc = pm_bitmap_append_run(&a->ab->validity, cur, cnt)))
		return rc;
	for (i = 0; i < a->n_children; i++)
		if ((rc = assemble(r, a->children[i])))
			return rc;
	return 0;
}

static int assemble_list(struct pm_pq_reader *r, pm_pq_anode *a)
{
	int leaf = pm_pq_first_leaf(a), rc, i;
	pm_pq_col *c;
	int64_t k, total, elems = 0, s, bn;
	int32_t *off;
	uint8_t *vb;
	const int16_t *bd, *br;
	int16_t arep, erep, edef, rad, ldef;
	bool nullable = a->nullable;
	if (leaf < 0 || r->leaf_col[leaf] < 0)
		return pm_err(PAIMON_EINVAL, "list without a selected leaf");
	c = &r->cols[r->leaf_col[leaf]];
	bn = c->bn;
	if ((rc = grow((void **)&r->vscratch, &r->vscratch_cap, (size_t)bn + 2)))
		return rc;
	vb = r->vscratch;
	/* one offset per slot; at most bn slots, trimmed below */
	if (!(off = pm_ab_offsets_grow(a->ab, bn)))
		return PAIMON_ENOMEM;
	total = off[-1];
	s = -1;
	bd = c->bdef;
	br = c->max_rep ? c->brep : NULL;
	arep = a->rep, erep = a->elem_rep, edef = a->elem_def, rad = a->rad, ldef = a->def;
	/* Branchless (list lengths and nulls are unpredictable). Per level:
	 * a new slot when it does not continue a list at this depth (rp <=
	 * arep) and its ancestors are present (d >= rad); an element when it
	 * is at this list's depth (rp <= erep) and defined through it (d >=
	 * edef; implies d >= rad). off[s] = total every level leaves, at a new
	 * slot, the end of the previous one (a continuation's write is
	 * overwritten later); vb[s + 1] is the validity of slot s. */
	{
		unsigned bad = 0, nn = !nullable;
		for (k = 0; k < bn; k++) {
			int16_t rp = br ? br[k] : 0, d = bd[k];
			unsigned slot = (rp <= arep) & (d >= rad);
			unsigned elem = (rp <= erep) & (d >= edef);
			bad |= (rp > arep) & (rp <= erep) & (s < 0);
			off[s] = (int32_t)total;
			s += slot;
			/* a plain store (no read-modify-write chain through one
			 * byte): a non-slot level writes the spare byte vb[bn + 1] */
			vb[slot ? s + 1 : bn + 1] = (uint8_t)(nn | (d >= ldef));
			total += elem;
			elems += elem;
		}
		if (bad)
			return pm_err(PAIMON_ECORRUPT, "a repetition level continues a list that never started");
	}
	if (total > INT32_MAX)
		return pm_err(PAIMON_EUNSUPPORTED, "list column has more than 2^31 elements in one batch");
	if (s >= 0)
		off[s] = (int32_t)total;
	a->ab->offsets.len -= (size_t)(bn - (s + 1)) * sizeof(int32_t);
	if ((rc = pm_bitmap_append_bytes(&a->ab->validity, vb + 1, s + 1)))
		return rc;
	if (a->kind == PQ_A_MAP && (rc = pm_bitmap_append_run(&a->ab->children[0]->validity, 1, elems)))
		return rc;
	for (i = 0; i < a->n_children; i++)
		if ((rc = assemble(r, a->children[i])))
			return rc;
	return 0;
}

static int assemble(struct pm_pq_reader *r, pm_pq_anode *a)
{
	switch (a->kind) {
	case PQ_A_LEAF:
		return 0;
	case PQ_A_STRUCT:
		return assemble_struct(r, a);
	default:
		return assemble_list(r, a);
	}
}

/* ------------------------------------------------------------ row groups */

static void col_reset_chunk(pm_pq_col *c)
{
	if (c->dlba_live)
		pm_pq_dlba_dispose(&c->dlba);
	if (c->dba_live)
		pm_pq_dba_dispose(&c->dba);
	c->dlba_live = c->dba_live = false;
	pm_pq_offset_index_free(c->oi);
	c->oi = NULL;
	c->oi_j = 0;
	c->has_dict = false;
	c->n_dict = 0;
	c->page_n = c->page_pos = 0;
	c->page_no = 0;
	c->values_seen = 0;
	c->seen_data = false;
	c->io_valid = false;
}

static int open_chunk(struct pm_pq_reader *r, pm_pq_col *c, int rg)
{
	const pm_pq_column_chunk *cc = &r->fm->row_groups[rg].columns[c->leaf];
	const pm_pq_column_meta *m = &cc->meta_data;
	uint64_t start, limit = r->fm->footer_offset ? r->fm->footer_offset : r->fm->file_size;
	int rc;
	col_reset_chunk(c);
	c->rg = rg;
	if (cc->file_path)
		return pm_err(PAIMON_EUNSUPPORTED, "column chunk stored in another file (%s)", cc->file_path);
	if (!pm_codec_supported(m->codec))
		return pm_err(PAIMON_EUNSUPPORTED, "compression codec %s (%d)", pm_codec_name(m->codec), (int)m->codec);
	c->codec = m->codec;
	start = (uint64_t)m->data_page_offset;
	if (m->has_dictionary_page_offset && m->dictionary_page_offset > 0 &&
	    m->dictionary_page_offset < m->data_page_offset)
		start = (uint64_t)m->dictionary_page_offset;
	if (m->data_page_offset < 0 || m->total_compressed_size < 0 || start > limit ||
	    (uint64_t)m->total_compressed_size > limit - start)
		return pm_err(PAIMON_ECORRUPT, "column chunk [%lld, +%lld) lies outside the file's data (%llu bytes)",
			      (long long)start, (long long)m->total_compressed_size, (unsigned long long)limit);
	c->cstart = c->pos = start;
	c->cend = start + (uint64_t)m->total_compressed_size;
	c->chunk_values = m->num_values;
	if (r->ranges && cc->has_offset_index_offset && cc->has_offset_index_length && cc->offset_index_length > 0 &&
	    cc->offset_index_offset >= 0 && (uint64_t)cc->offset_index_offset < limit &&
	    (uint64_t)cc->offset_index_length <= limit - (uint64_t)cc->offset_index_offset) {
		uint8_t *buf = pm_malloc((size_t)cc->offset_index_length);
		if (!buf)
			return PAIMON_ENOMEM;
		rc = pm_in_pread(r->f, (uint64_t)cc->offset_index_offset, (size_t)cc->offset_index_length, buf);
		if (!rc && pm_pq_offset_index_decode(buf, (size_t)cc->offset_index_length, &c->oi))
			c->oi = NULL; /* an unreadable index only disables page skipping */
		pm_free(buf);
		if (rc)
			return rc;
		if (c->oi && c->oi->n_page_locations && (uint64_t)c->oi->page_locations[0].offset != c->pos) {
			/* Read the dictionary page now so pages can be skipped by offset. */
			if ((rc = next_data_page(c)) < 0)
				return rc;
			if (rc == 0) {
				c->values_seen -= c->page_n;
				c->page_n = c->page_pos = 0;
				c->pos = (uint64_t)c->oi->page_locations[0].offset;
				c->seen_data = false;
			}
		}
	}
	return 0;
}

static int wrap_col(struct pm_pq_reader *r, pm_pq_col *c, int rc)
{
	if (c->page_no > 0)
		pm_err_wrap("%s: column '%s' (%s), row group %d, page %lld", r->path, c->pathstr, type_name(c->ptype),
			    c->rg, (long long)c->page_no - 1);
	else
		pm_err_wrap("%s: column '%s' (%s), row group %d", r->path, c->pathstr, type_name(c->ptype), c->rg);
	return rc;
}

/* ------------------------------------------------------------ parallel decode */

/* Decodes n rows of column c into its builders; on failure keeps the
 * (wrapped) error in c->err for the calling thread. */
/* One column's share of a batch: skip rows, then decode n into its
 * builders (serially or on a worker). */
static int col_job(pm_pq_col *c, int64_t skip, int64_t n)
{
	int rc = skip > 0 ? col_skip(c, skip) : 0;
	c->bn = 0;
	if (!rc)
		rc = col_presize(c, n);
	if (!rc)
		rc = col_read(c, n);
	return rc;
}

static void col_decode(pm_pq_col *c, int64_t skip, int64_t n)
{
	int rc = col_job(c, skip, n);
	if (rc) {
		wrap_col(c->r, c, rc);
		if (c->err)
			pm_err_save(c->err);
	}
	c->rc = rc;
}

/* Takes columns from the shared cursor until none is left. Called with
 * r->mu held; returns with it held. */
static void pool_drain(struct pm_pq_reader *r)
{
	while (r->next_col < r->n_cols) {
		pm_pq_col *c = &r->cols[r->order[r->next_col++]];
		int64_t n = r->job_rows, skip = r->job_skip;
		pthread_mutex_unlock(&r->mu);
		col_decode(c, skip, n);
		pthread_mutex_lock(&r->mu);
		if (--r->pending == 0)
			pthread_cond_broadcast(&r->done);
	}
}

static void *pool_worker(void *arg)
{
	struct pm_pq_reader *r = arg;
	uint64_t seen = 0;
	pthread_mutex_lock(&r->mu);
	for (;;) {
		while (!r->stop && r->gen == seen)
			pthread_cond_wait(&r->go, &r->mu);
		if (r->stop)
			break;
		seen = r->gen;
		pool_drain(r);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

/* Starts the workers once; false (serial decoding) if that is not possible. */
static bool pool_start(struct pm_pq_reader *r)
{
	int want, i;
	pm_err_state st;
	if (r->pool_failed)
		return false;
	if (r->pool_init)
		return r->n_th > 0;
	pm_err_save(&st);
	want = (r->threads < r->n_cols ? r->threads : r->n_cols) - 1;
	if (want <= 0)
		goto fail;
	for (i = 0; i < r->n_cols; i++)
		if (!r->cols[i].err && !(r->cols[i].err = pm_malloc(sizeof *r->cols[i].err)))
			goto fail;
	if (!(r->th = pm_calloc((size_t)want, sizeof *r->th)))
		goto fail;
	if (pthread_mutex_init(&r->mu, NULL))
		goto fail;
	if (pthread_cond_init(&r->go, NULL)) {
		pthread_mutex_destroy(&r->mu);
		goto fail;
	}
	if (pthread_cond_init(&r->done, NULL)) {
		pthread_cond_destroy(&r->go);
		pthread_mutex_destroy(&r->mu);
		goto fail;
	}
	r->pool_init = true;
	for (i = 0; i < want; i++) {
		if (pthread_create(&r->th[i], NULL, pool_worker, r))
			break;
		r->n_th++;
	}
	return r->n_th > 0;
fail:
	pm_err_restore(&st); /* a failed start only means serial decoding */
	r->pool_failed = true;
	return false;
}

static void pool_stop(struct pm_pq_reader *r)
{
	int i;
	if (!r->pool_init)
		return;
	pthread_mutex_lock(&r->mu);
	r->stop = true;
	pthread_cond_broadcast(&r->go);
	pthread_mutex_unlock(&r->mu);
	for (i = 0; i < r->n_th; i++)
		pthread_join(r->th[i], NULL);
	pthread_cond_destroy(&r->go);
	pthread_cond_destroy(&r->done);
	pthread_mutex_destroy(&r->mu);
	r->pool_init = false;
}

/* Orders the columns of the freshly opened row group by decreasing
 * uncompressed chunk size (largest first keeps the threads balanced). */
static void order_columns(struct pm_pq_reader *r, int rg)
{
	int i, j;
	r->batch_cost = 0;
	for (i = 0; i < r->n_cols; i++) {
		const pm_pq_column_meta *m = &r->fm->row_groups[rg].columns[r->cols[i].leaf].meta_data;
		pm_pq_col *c = &r->cols[i];
		c->cost = m->total_uncompressed_size > 0 ? m->total_uncompressed_size : 0;
		if (r->batch_cost < INT64_MAX - c->cost)
			r->batch_cost += c->cost;
		r->order[i] = i;
	}
	for (i = 1; i < r->n_cols; i++) { /* insertion sort: few columns */
		int x = r->order[i];
		for (j = i; j > 0 && r->cols[r->order[j - 1]].cost < r->cols[x].cost; j--)
			r->order[j] = r->order[j - 1];
		r->order[j] = x;
	}
}

/* Default smallest batch (estimated bytes) worth waking the workers for. */
#define PARALLEL_MIN_BYTES ((int64_t)256 * 1024)

/* Estimated bytes to decode for skipping `skip` rows and reading n: the
 * rows' share of the row group, plus, in a selective read, one page per
 * column (a skip into a page decompresses the whole page). */
static double decode_cost(const struct pm_pq_reader *r, int64_t skip, int64_t n)
{
	double cost = (double)r->batch_cost * (double)n / (double)r->rg_rows;
	int i;
	if (skip > 0)
		for (i = 0; i < r->n_cols; i++) {
			const pm_pq_col *c = &r->cols[i];
			size_t pages = c->oi && c->oi->n_page_locations ? c->oi->n_page_locations : 1;
			cost += (double)c->cost / (double)pages;
		}
	return cost;
}

/* Skips `skip` rows, then decodes n rows of every column: on the pool when
 * there is one and the work is big enough, else in order on this thread.
 * 0 or the first failing column's error (by column order). */
static int decode_columns(struct pm_pq_reader *r, int64_t skip, int64_t n)
{
	int i;
	bool par = r->threads > 1 && r->n_cols > 1 && r->rg_rows > 0 &&
		   decode_cost(r, skip, n) >= (double)r->par_min;
	if (par && pool_start(r)) {
		pthread_mutex_lock(&r->mu);
		r->job_rows = n;
		r->job_skip = skip;
		r->next_col = 0;
		r->pending = r->n_cols;
		r->gen++;
		pthread_cond_broadcast(&r->go);
		pool_drain(r);
		while (r->pending > 0)
			pthread_cond_wait(&r->done, &r->mu);
		pthread_mutex_unlock(&r->mu);
		for (i = 0; i < r->n_cols; i++)
			if (r->cols[i].rc) {
				if (r->cols[i].err)
					pm_err_restore(r->cols[i].err);
				return r->cols[i].rc;
			}
		return 0;
	}
	for (i = 0; i < r->n_cols; i++) {
		int rc = col_job(&r->cols[i], skip, n);
		if (rc)
			return wrap_col(r, &r->cols[i], rc);
	}
	return 0;
}

/* ------------------------------------------------------------ open */

static int select_path(pm_pq_reader *r, const char *col, uint8_t *sel)
{
	const pm_pq_schema_node *n = &r->s->nodes[0];
	const char *p = col;
	int i;
	/* whole top-level name first (names may contain dots) */
	for (i = 0; i < n->n_children; i++)
		if (strcmp(n->children[i]->elem->name, col) == 0) {
			n = n->children[i];
			goto found;
		}
	while (*p) {
		const char *dot = strchr(p, '.');
		size_t len = dot ? (size_t)(dot - p) : strlen(p);
		const pm_pq_schema_node *nx = NULL;
		for (i = 0; i < n->n_children; i++)
			if (strlen(n->children[i]->elem->name) == len && memcmp(n->children[i]->elem->name, p, len) == 0) {
				nx = n->children[i];
				break;
			}
		if (!nx)
			return pm_err(PAIMON_EINVAL, "%s: no column '%s' in the file", r->path, col);
		n = nx;
		p = dot ? dot + 1 : p + len;
	}
	if (n == &r->s->nodes[0])
		return pm_err(PAIMON_EINVAL, "%s: empty column name", r->path);
found:;
	{
		/* mark leaves below n */
		size_t k;
		for (k = 0; k < r->s->n_leaves; k++) {
			const pm_pq_schema_node *x = r->s->leaves[k];
			while (x && x != n)
				x = x->parent;
			if (x)
				sel[k] = 1;
		}
	}
	return 0;
}

static void collect_leaves(pm_pq_anode *a, pm_pq_anode **by_leaf)
{
	int i;
	if (a->kind == PQ_A_LEAF) {
		by_leaf[a->leaf] = a;
		return;
	}
	for (i = 0; i < a->n_children; i++)
		collect_leaves(a->children[i], by_leaf);
}

static char *join_path(const pm_pq_schema_node *n)
{
	pm_buf b = {0};
	int i;
	for (i = 0; i < n->depth; i++) {
		if ((i && pm_buf_putc(&b, '.')) || pm_buf_puts(&b, n->path[i])) {
			pm_buf_dispose(&b);
			return NULL;
		}
	}
	if (!b.len && pm_buf_puts(&b, "")) {
		pm_buf_dispose(&b);
		return NULL;
	}
	return pm_buf_detach(&b);
}

/* ------------------------------------------------------------ pruning */

/* Reads and decodes a page index structure; *out = NULL when absent or
 * unreadable (only disables page pruning). */
static int read_index(pm_pq_reader *r, bool has_off, int64_t off, bool has_len, int32_t len, bool column_index,
		      void **out)
{
	uint64_t limit = r->fm->footer_offset ? r->fm->footer_offset : r->fm->file_size;
	uint8_t *buf;
	int rc;
	pm_err_state st;
	*out = NULL;
	if (!has_off || !has_len || len <= 0 || off < 0 || (uint64_t)off >= limit ||
	    (uint64_t)len > limit - (uint64_t)off)
		return 0;
	if (!(buf = pm_malloc((size_t)len)))
		return PAIMON_ENOMEM;
	if ((rc = pm_in_pread(r->f, (uint64_t)off, (size_t)len, buf))) {
		pm_free(buf);
		return rc;
	}
	pm_err_save(&st);
	if (column_index) {
		pm_pq_column_index *ci;
		if (pm_pq_column_index_decode(buf, (size_t)len, &ci) == 0)
			*out = ci;
	} else {
		pm_pq_offset_index *oi;
		if (pm_pq_offset_index_decode(buf, (size_t)len, &oi) == 0)
			*out = oi;
	}
	pm_err_restore(&st);
	pm_free(buf);
	return 0;
}

static int push_range(int64_t **v, size_t *n, size_t *cap, int64_t a, int64_t b)
{
	if (b <= a)
		return 0;
	if (*n && (*v)[2 * *n - 1] == a) {
		(*v)[2 * *n - 1] = b;
		return 0;
	}
	if (*n == *cap) {
		size_t nc = *cap ? 2 * *cap : 16;
		int64_t *p = pm_realloc(*v, 2 * nc * sizeof *p);
		if (!p)
			return PAIMON_ENOMEM;
		*v = p;
		*cap = nc;
	}
	(*v)[2 * *n] = a;
	(*v)[2 * *n + 1] = b;
	(*n)++;
	return 0;
}

/* Drops row groups by chunk statistics, then narrows the rows of the rest
 * by column indexes (feeding the row-range / offset-index page skipping). */
static int prune(pm_pq_reader *r, const pm_pq_filter *f)
{
	size_t nl = pm_pq_filter_leaves(f, NULL, 0), i, j, k = 0, nfr = 0, cfr = 0;
	int *leaves = NULL;
	pm_pq_fpages *pages = NULL;
	int64_t *fr = NULL;
	bool partial = false;
	int rc = PAIMON_ENOMEM;
	if (!(leaves = pm_calloc(nl + 1, sizeof *leaves)) ||
	    !(pages = pm_calloc(r->s->n_leaves + 1, sizeof *pages)))
		goto out;
	pm_pq_filter_leaves(f, leaves, nl);
	for (i = 0; i < r->n_rgs; i++) {
		int rg = r->rgs[i];
		int64_t first = r->rg_first[rg], nrows = r->fm->row_groups[rg].num_rows;
		int64_t *rr = NULL, kept = 0;
		size_t nrr = 0, q;
		if (!(pm_pq_filter_eval_rg(f, r->fm, rg) & PM_PQF_T)) {
			r->m.row_groups_pruned++;
			continue;
		}
		rc = 0;
		for (j = 0; j < nl && !rc; j++) {
			const pm_pq_column_chunk *cc = &r->fm->row_groups[rg].columns[leaves[j]];
			pm_pq_fpages *p = &pages[leaves[j]];
			if (p->ci || p->oi)
				continue;
			rc = read_index(r, cc->has_column_index_offset, cc->column_index_offset,
					cc->has_column_index_length, cc->column_index_length, true, (void **)&p->ci);
			if (!rc && p->ci)
				rc = read_index(r, cc->has_offset_index_offset, cc->offset_index_offset,
						cc->has_offset_index_length, cc->offset_index_length, false,
						(void **)&p->oi);
		}
		if (!rc)
			rc = pm_pq_filter_eval_pages(f, r->fm, rg, pages, &rr, &nrr);
		for (j = 0; j < nl; j++) {
			pm_pq_column_index_free(pages[leaves[j]].ci);
			pm_pq_offset_index_free(pages[leaves[j]].oi);
			pages[leaves[j]].ci = NULL;
			pages[leaves[j]].oi = NULL;
		}
		for (q = 0; !rc && q < nrr; q++) {
			kept += rr[2 * q + 1] - rr[2 * q];
			rc = push_range(&fr, &nfr, &cfr, first + rr[2 * q], first + rr[2 * q + 1]);
		}
		pm_free(rr);
		if (rc)
			goto out;
		if (!kept) {
			r->m.row_groups_pruned_pages++;
			continue;
		}
		if (kept < nrows) {
			partial = true;
			r->m.rows_pruned_pages += nrows - kept;
		}
		r->rgs[k++] = rg;
	}
	r->n_rgs = k;
	rc = 0;
	if (partial) {
		if (r->ranges) { /* intersect with the caller's ranges */
			int64_t *v = NULL;
			size_t n = 0, cap = 0, a = 0, b = 0;
			while (!rc && a < r->n_ranges && b < nfr) {
				int64_t lo = r->ranges[2 * a] > fr[2 * b] ? r->ranges[2 * a] : fr[2 * b];
				int64_t hi = r->ranges[2 * a + 1] < fr[2 * b + 1] ? r->ranges[2 * a + 1] : fr[2 * b + 1];
				rc = push_range(&v, &n, &cap, lo, hi);
				if (r->ranges[2 * a + 1] < fr[2 * b + 1])
					a++;
				else
					b++;
			}
			if (rc) {
				pm_free(v);
				goto out;
			}
			pm_free(fr);
			fr = v;
			nfr = n;
			pm_free(r->ranges);
		}
		if (!fr && !(fr = pm_malloc(2 * sizeof *fr))) {
			rc = PAIMON_ENOMEM;
			goto out;
		}
		r->ranges = fr;
		r->n_ranges = nfr;
		fr = NULL;
	}
out:
	pm_free(fr);
	pm_free(leaves);
	pm_free(pages);
	return rc;
}

void pm_pq_reader_metrics(const pm_pq_reader *r, pm_pq_read_metrics *out)
{
	int i;
	*out = r->m;
	for (i = 0; i < r->n_cols; i++) {
		out->pages_read += r->cols[i].pages_read;
		out->pages_skipped += r->cols[i].pages_skipped;
		out->bytes_read += r->cols[i].bytes_read;
	}
}


int pm_pq_reader_open(pm_fileio *io, const char *path, const pm_pq_read_options *opt, pm_pq_reader **out)
{
	pm_pq_read_options dflt;
	pm_pq_reader *r;
	pm_pq_anode **by_leaf = NULL;
	pm_array_builder **kids = NULL;
	size_t i;
	int rc;
	int64_t row;

	*out = NULL;
	if (!opt) {
		memset(&dflt, 0, sizeof dflt);
		opt = &dflt;
	}
	if (!(r = pm_calloc(1, sizeof *r)))
		return PAIMON_ENOMEM;
	if (!(r->path = pm_strdup(path ? path : ""))) {
		pm_free(r);
		return PAIMON_ENOMEM;
	}
	r->batch = opt->batch_rows > 0 ? opt->batch_rows : PM_PQ_DEFAULT_BATCH_ROWS;
	r->max_page = opt->max_page_bytes ? opt->max_page_bytes : PM_PQ_DEFAULT_MAX_PAGE_BYTES;
	r->verify_crc = opt->verify_crc;
	r->threads = opt->threads;
	r->par_min = opt->parallel_min_bytes > 0 ? opt->parallel_min_bytes : PARALLEL_MIN_BYTES;
	if ((rc = pm_fileio_open_read(io, r->path, &r->f)) || (rc = pm_pq_read_footer_file(r->f, r->path, &r->fm)))
		goto fail;
	if ((rc = pm_pq_schema_build(r->fm->schema, r->fm->n_schema, &r->s)) ||
	    (rc = pm_pq_file_meta_check(r->fm, r->s))) {
		pm_err_wrap("%s", path);
		goto fail;
	}
	rc = PAIMON_ENOMEM;
	if (!(r->b.sel = pm_calloc(r->s->n_leaves + 1, 1)))
		goto fail;
	if (opt->columns && opt->n_columns) {
		for (i = 0; i < opt->n_columns; i++)
			if ((rc = select_path(r, opt->columns[i] ? opt->columns[i] : "", r->b.sel)))
				goto fail;
	} else {
		memset(r->b.sel, 1, r->s->n_leaves);
	}
	if ((rc = pm_pq_build_tree(&r->b, r->s, &r->tops, &r->n_tops))) {
		pm_err_wrap("%s", path);
		goto fail;
	}
	rc = PAIMON_ENOMEM;
	if (!(kids = pm_calloc((size_t)r->n_tops + 1, sizeof *kids)))
		goto fail;
	for (i = 0; i < (size_t)r->n_tops; i++)
		kids[i] = r->tops[i]->ab;
	r->root = pm_ab_new_struct(kids, r->n_tops);
	pm_free(kids);
	for (i = 0; i < (size_t)r->n_tops; i++)
		r->tops[i]->owned = true; /* by the root, even when its creation failed */
	if (!r->root)
		goto fail;
	/* columns */
	if (!(by_leaf = pm_calloc(r->s->n_leaves + 1, sizeof *by_leaf)) ||
	    !(r->leaf_col = pm_malloc((r->s->n_leaves + 1) * sizeof *r->leaf_col)))
		goto fail;
	for (i = 0; i < (size_t)r->n_tops; i++)
		collect_leaves(r->tops[i], by_leaf);
	for (i = 0; i < r->s->n_leaves; i++)
		if (by_leaf[i])
			r->n_cols++;
	if (!(r->cols = pm_calloc((size_t)r->n_cols + 1, sizeof *r->cols)) ||
	    !(r->order = pm_calloc((size_t)r->n_cols + 1, sizeof *r->order)))
		goto fail;
	r->n_cols = 0;
	for (i = 0; i < r->s->n_leaves; i++) {
		pm_pq_col *c;
		const pm_pq_schema_element *e;
		r->leaf_col[i] = -1;
		if (!by_leaf[i])
			continue;
		r->leaf_col[i] = r->n_cols;
		c = &r->cols[r->n_cols++];
		c->r = r;
		c->node = by_leaf[i];
		c->pn = r->s->leaves[i];
		c->leaf = (int)i;
		c->ab = c->node->ab;
		e = c->pn->elem;
		c->ptype = e->type;
		c->pw = e->type == PM_PQ_INT32 || e->type == PM_PQ_FLOAT ? 4
			: e->type == PM_PQ_INT64 || e->type == PM_PQ_DOUBLE ? 8
			: e->type == PM_PQ_INT96 ? 12
			: e->type == PM_PQ_FIXED_LEN_BYTE_ARRAY ? e->type_length : 0;
		c->max_def = c->pn->max_def_level;
		c->max_rep = c->pn->max_rep_level;
		c->nested = c->pn->depth > 1 || c->max_rep > 0;
		if (!(c->pathstr = join_path(c->pn)) || !(c->u32 = pm_malloc(LIT_CHUNK * sizeof(uint32_t))))
			goto fail;
	}
	/* row groups */
	if (!(r->rg_first = pm_calloc(r->fm->n_row_groups + 1, sizeof *r->rg_first)))
		goto fail;
	for (row = 0, i = 0; i < r->fm->n_row_groups; i++) {
		if (r->fm->row_groups[i].num_rows < 0) {
			rc = pm_err(PAIMON_ECORRUPT, "%s: row group %zu has a negative row count", path, i);
			goto fail;
		}
		r->rg_first[i] = row;
		row += r->fm->row_groups[i].num_rows;
	}
	if (!(r->rgs = pm_calloc(r->fm->n_row_groups + 1, sizeof *r->rgs)))
		goto fail;
	if (opt->row_groups) {
		for (i = 0; i < opt->n_row_groups; i++) {
			if (opt->row_groups[i] < 0 || (size_t)opt->row_groups[i] >= r->fm->n_row_groups ||
			    (i && opt->row_groups[i] <= opt->row_groups[i - 1])) {
				rc = pm_err(PAIMON_EINVAL, "%s: bad row group selection (index %d of %zu row groups)", path,
					    opt->row_groups[i], r->fm->n_row_groups);
				goto fail;
			}
			r->rgs[r->n_rgs++] = opt->row_groups[i];
		}
	} else {
		for (i = 0; i < r->fm->n_row_groups; i++)
			r->rgs[r->n_rgs++] = (int)i;
	}
	if (opt->row_ranges && opt->n_row_ranges) {
		if (!(r->ranges = pm_malloc(2 * opt->n_row_ranges * sizeof *r->ranges)))
			goto fail;
		for (i = 0; i < opt->n_row_ranges; i++) {
			int64_t a = opt->row_ranges[2 * i], b = opt->row_ranges[2 * i + 1];
			if (a < 0 || b < a || (i && a < opt->row_ranges[2 * i - 1])) {
				rc = pm_err(PAIMON_EINVAL, "%s: row ranges must be ascending, non-overlapping [start, end)",
					    path);
				goto fail;
			}
			r->ranges[2 * i] = a;
			r->ranges[2 * i + 1] = b;
		}
		r->n_ranges = opt->n_row_ranges;
	}
	r->m.row_groups_total = (int64_t)r->n_rgs;
	if (opt->filter && ((rc = pm_pq_filter_bind(opt->filter, r->s)) || (rc = prune(r, opt->filter)))) {
		pm_err_wrap("%s", path);
		goto fail;
	}
	r->m.row_groups_selected = (int64_t)r->n_rgs;
	for (i = 0; i < r->n_rgs; i++) {
		int64_t a = r->rg_first[r->rgs[i]], b = a + r->fm->row_groups[r->rgs[i]].num_rows;
		if (!r->ranges) {
			r->total_rows += b - a;
		} else {
			size_t k;
			for (k = 0; k < r->n_ranges; k++) {
				int64_t lo = r->ranges[2 * k] > a ? r->ranges[2 * k] : a;
				int64_t hi = r->ranges[2 * k + 1] < b ? r->ranges[2 * k + 1] : b;
				if (hi > lo)
					r->total_rows += hi - lo;
			}
		}
	}
	pm_free(by_leaf);
	*out = r;
	return 0;
fail:
	pm_free(by_leaf);
	pm_pq_reader_free(r);
	return rc ? rc : PAIMON_ENOMEM;
}

int pm_pq_reader_schema(pm_pq_reader *r, struct ArrowSchema *out)
{
	return pm_ab_schema(r->root, out);
}

int64_t pm_pq_reader_num_rows(const pm_pq_reader *r)
{
	return r->total_rows;
}

int pm_pq_reader_num_leaves(const pm_pq_reader *r)
{
	return r->n_cols;
}

const pm_pq_file_meta *pm_pq_reader_meta(const pm_pq_reader *r)
{
	return r->fm;
}

const pm_pq_schema *pm_pq_reader_pq_schema(const pm_pq_reader *r)
{
	return r->s;
}

static void reset_ab(pm_array_builder *ab)
{
	int64_t i;
	pm_bitmap_dispose(&ab->validity);
	memset(&ab->validity, 0, sizeof ab->validity);
	pm_abuf_dispose(&ab->values);
	memset(&ab->values, 0, sizeof ab->values);
	pm_abuf_dispose(&ab->offsets);
	memset(&ab->offsets, 0, sizeof ab->offsets);
	ab->nbits = 0;
	for (i = 0; i < ab->n_children; i++)
		reset_ab(ab->children[i]);
}

static void reset_builders(pm_pq_reader *r)
{
	int i;
	reset_ab(r->root);
	for (i = 0; i < r->n_cols; i++)
		r->cols[i].bn = 0;
}

/* Decodes n rows of every column and assembles their parents into the
 * builders (appending to what they hold). */
static int batch_part(pm_pq_reader *r, int64_t skip, int64_t n)
{
	int rc, i;
	if ((rc = decode_columns(r, skip, n)))
		return rc;
	for (i = 0; i < r->n_tops; i++)
		if ((rc = assemble(r, r->tops[i]))) {
			pm_err_wrap("%s: row group %d, column '%s'", r->path, r->rgs[r->rg_i],
				    r->tops[i]->pnode->elem->name);
			return rc;
		}
	return 0;
}

/* With row ranges: the next rows of the open row group that the ranges
 * select, up to want (rows of several ranges gather into one batch; the
 * rows between them are skipped). *got = 0 when the row group has no more
 * selected rows. */
static int ranged_part(pm_pq_reader *r, int64_t want, int64_t *got)
{
	int64_t total = 0;
	int rc;
	*got = 0;
	while (total < want && r->rg_row < r->rg_rows) {
		int64_t cur = r->rg_first[r->rgs[r->rg_i]] + r->rg_row, gap, n;
		while (r->range_i < r->n_ranges && r->ranges[2 * r->range_i + 1] <= cur)
			r->range_i++;
		if (r->range_i >= r->n_ranges)
			break;
		gap = r->ranges[2 * r->range_i] > cur ? r->ranges[2 * r->range_i] - cur : 0;
		if (gap >= r->rg_rows - r->rg_row)
			break;
		/* the skip runs with the decode (in parallel per column: skipping
		 * into a page decompresses it) */
		n = r->ranges[2 * r->range_i + 1] - (cur + gap);
		if (n > r->rg_rows - r->rg_row - gap)
			n = r->rg_rows - r->rg_row - gap;
		if (n > want - total)
			n = want - total;
		if ((rc = batch_part(r, gap, n)))
			return rc;
		r->rg_row += gap + n;
		total += n;
	}
	*got = total;
	return 0;
}

/* Opens the next row group that has rows to read: 0 (r->rg_open), or 0
 * with r->rg_i == r->n_rgs at the end. */
static int open_next_rg(pm_pq_reader *r)
{
	int rc, i;
	while (r->rg_i < r->n_rgs) {
		int rg = r->rgs[r->rg_i];
		r->rg_rows = r->fm->row_groups[rg].num_rows;
		r->rg_row = 0;
		if (r->ranges) {
			/* a row group the ranges miss is never opened */
			int64_t a = r->rg_first[rg], b = a + r->rg_rows;
			while (r->range_i < r->n_ranges && r->ranges[2 * r->range_i + 1] <= a)
				r->range_i++;
			if (r->range_i >= r->n_ranges || r->ranges[2 * r->range_i] >= b) {
				r->rg_i++;
				continue;
			}
		}
		if (r->rg_rows <= 0) {
			r->rg_i++;
			continue;
		}
		for (i = 0; i < r->n_cols; i++)
			if ((rc = open_chunk(r, &r->cols[i], rg)))
				return wrap_col(r, &r->cols[i], rc);
		order_columns(r, rg);
		r->rg_open = true;
		r->m.row_groups_read++;
		return 0;
	}
	return 0;
}

/* A batch holds up to r->batch rows and continues across row groups, so
 * that every batch but the last is full: readers of files with the same
 * rows and batch size (the files of a data-evolution row-id group) then
 * see the same batch boundaries whatever the files' row groups. */
int pm_pq_reader_next(pm_pq_reader *r, struct ArrowArray *out, int *eof)
{
	int64_t total = 0;
	int rc, last_rg = -1;
	memset(out, 0, sizeof *out);
	*eof = 0;
	while (total < r->batch) {
		int64_t n;
		if (!r->rg_open) {
			if ((rc = open_next_rg(r))) {
				reset_builders(r);
				return rc;
			}
			if (!r->rg_open)
				break;
		}
		last_rg = r->rgs[r->rg_i];
		if (r->rg_row >= r->rg_rows) {
			r->rg_open = false;
			r->rg_i++;
			continue;
		}
		if (r->ranges) {
			if ((rc = ranged_part(r, r->batch - total, &n))) {
				reset_builders(r);
				return rc;
			}
			if (n == 0) {
				r->rg_open = false;
				r->rg_i++;
				continue;
			}
		} else {
			n = r->rg_rows - r->rg_row;
			if (n > r->batch - total)
				n = r->batch - total;
			if ((rc = batch_part(r, 0, n))) {
				reset_builders(r);
				return rc;
			}
			r->rg_row += n;
		}
		total += n;
	}
	if (total == 0) {
		*eof = 1;
		return 0;
	}
	if ((rc = pm_ab_append_valid(r->root, total)) || (rc = pm_ab_validate(r->root))) {
		pm_err_state st;
		pm_err_save(&st);
		pm_err(PAIMON_ECORRUPT, "%s: row group %d: columns disagree on the row/entry count (%s)", r->path,
		       last_rg, st.msg);
		reset_builders(r);
		return PAIMON_ECORRUPT;
	}
	return pm_ab_finish(r->root, out);
}

void pm_pq_reader_free(pm_pq_reader *r)
{
	int i;
	pm_pq_anode *a, *nx;
	if (!r)
		return;
	pool_stop(r);
	pm_free(r->th);
	pm_free(r->order);
	for (i = 0; r->cols && i < r->n_cols; i++) {
		pm_pq_col *c = &r->cols[i];
		col_reset_chunk(c);
		pm_free(c->pathstr);
		pm_mem_cache_give(c->io, c->io_cap);
		pm_mem_cache_give(c->dbuf, c->dbuf_cap);
		pm_free(c->dict_fixed);
		pm_ab_free(c->dict_bin);
		pm_ab_free(c->tmpbin);
		/* large scratch goes back to the block cache: the next reader
		 * (the next file of a scan) takes it without page faults */
		pm_mem_cache_give(c->ldef, c->lcap * sizeof(int16_t));
		pm_mem_cache_give(c->lrep, c->lcap * sizeof(int16_t));
		pm_free(c->dd);
		pm_mem_cache_give(c->scr, c->scr_cap);
		pm_free(c->u32);
		pm_mem_cache_give(c->vbytes, c->vbytes_cap);
		pm_mem_cache_give(c->bdef, (size_t)c->bcap * sizeof(int16_t));
		pm_mem_cache_give(c->brep, (size_t)c->bcap * sizeof(int16_t));
		pm_codec_ctx_free(c->cctx);
		pm_free(c->err);
	}
	pm_free(r->cols);
	pm_ab_free(r->root);
	for (a = r->b.all; a; a = nx) {
		nx = a->next_all;
		if (!a->owned)
			pm_ab_free(a->ab);
		pm_free(a->children);
		pm_free(a);
	}
	pm_free(r->b.sel);
	pm_free(r->tops);
	pm_free(r->leaf_col);
	pm_free(r->rg_first);
	pm_free(r->rgs);
	pm_free(r->ranges);
	pm_free(r->vscratch);
	pm_pq_schema_free(r->s);
	pm_pq_file_meta_free(r->fm);
	pm_in_close(r->f);
	pm_free(r->path);
	pm_free(r);
}
