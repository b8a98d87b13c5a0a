/*
 * index/sidx_internal.h - shared pieces of the sorted global-index formats
 * (btree, bitmap): varints, KeySerializer decoding, the block trailer and
 * block compression, options. Internal to src/index/sidx_*.c.
 */
#ifndef PM_INDEX_SIDX_INTERNAL_H
#define PM_INDEX_SIDX_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "codec/codec.h"
#include "core/buf.h"
#include "core/strs.h"
#include "index/rb64.h"
#include "index/sorted_index.h"
#include "io/fileio.h"
#include "types/binrow.h"
#include "types/datatype.h"

/* Block compression ids of the 5-byte trailer (BlockCompressionType). */
enum { PM_SIDX_COMP_NONE = 0, PM_SIDX_COMP_ZSTD = 1, PM_SIDX_COMP_LZ4 = 2, PM_SIDX_COMP_LZO = 3 };
#define PM_SIDX_TRAILER 5

/* Unsigned LEB128, appended. */
int pm_sidx_put_varint(pm_buf *out, uint64_t v);
size_t pm_sidx_varint_size(uint64_t v);
/* Reads a varint at *pos of p[0..n); int form: <= INT32_MAX, long form:
 * <= INT64_MAX. Errors name `what`. */
int pm_sidx_get_varint(const uint8_t *p, size_t n, size_t *pos, int is_long, const char *what, uint64_t *v);

/* Decodes serialized key bytes into d (bytes point into p). */
int pm_sidx_key_decode(const pm_type *t, const uint8_t *p, size_t n, const char *what, pm_binrow_datum *d);
/* 1 for CHAR/VARCHAR. */
int pm_sidx_type_is_string(const pm_type *t);

/* Options of one index kind. */
typedef struct pm_sidx_opts {
	int64_t block_size;   /* btree block size / bitmap dictionary block size */
	int compression;      /* PM_SIDX_COMP_* */
	int level;
	int64_t fallback_max;
} pm_sidx_opts;
int pm_sidx_opts_read(pm_sidx_kind kind, const pm_strmap *opts, int for_write, pm_sidx_opts *o);

/* Stored block body: compresses body per o (keeping the compressed form only
 * when smaller than 7/8, as Java) and appends the stored bytes + trailer to
 * out; *stored_len = stored body length (no trailer). */
int pm_sidx_encode_block(pm_codec_ctx *ctx, const pm_sidx_opts *o, const uint8_t *body, size_t n, pm_buf *out,
			 size_t *stored_len);
/* Checks the trailer after p[0..n) (the trailer is p[n..n+5)) and
 * decompresses into out (cleared first). what/at name the block in errors. */
int pm_sidx_decode_block(pm_codec_ctx *ctx, const uint8_t *p, size_t n, const char *what, uint64_t at, pm_buf *out);

/* LZO1X decompression of src[0..n) into exactly want bytes at dst. */
int pm_sidx_lzo1x_decompress(const uint8_t *src, size_t n, uint8_t *dst, size_t want, const char *what);

/* SortedIndexFileMeta encoding. */
int pm_sidx_meta_encode(const uint8_t *first, size_t first_len, int has_first, const uint8_t *last, size_t last_len,
			int has_last, int has_nulls, pm_buf *out);

#endif
