/*
 * format/parquet/encoding.h - Parquet value and level encodings.
 *
 * Decoders read a bounded input slice and are stateful, so a page reader can
 * pull values in batches that follow the definition-level runs (N non-nulls:
 * one call for N values). Every read is bounded by the input slice, every
 * write by the count the caller asks for; malformed input yields
 * PAIMON_ECORRUPT with a message naming the encoding, the position and the
 * limit. Nothing allocates more than the caller's value limit or the input
 * size justifies.
 *
 * Byte-array outputs go straight into Arrow binary builders (utf8/binary
 * with int32 offsets, or large with int64 offsets); fixed-width outputs go
 * into caller arrays (or pm_ab_values_grow of a fixed builder).
 *
 * Encoders (for the writer) append to a pm_buf.
 */
#ifndef PM_PARQUET_ENCODING_H
#define PM_PARQUET_ENCODING_H

#include <stddef.h>
#include <stdint.h>

#include "arrow/arrow_builder.h"
#include "core/buf.h"

/* ------------------------------------------------------------ bit packing */

/* Unpacks n values of `width` bits (0..32), LSB-first, from in (which must
 * hold at least ceil(n*width/8) bytes; in_len bounds every read). Blocks of
 * 32 go through one unrolled kernel per width. Returns 0 or ECORRUPT when
 * in_len is too short. */
int pm_pq_unpack32(const uint8_t *in, size_t in_len, int width, uint32_t *out, size_t n);
/* Same for 64-bit outputs, width 0..64 (DELTA_BINARY_PACKED). */
int pm_pq_unpack64(const uint8_t *in, size_t in_len, int width, uint64_t *out, size_t n);
/* Packs n values LSB-first at `width` bits into ceil(n*width/8) bytes at out. */
void pm_pq_pack32(uint8_t *out, const uint32_t *in, size_t n, int width);
void pm_pq_pack64(uint8_t *out, const uint64_t *in, size_t n, int width);
/* Naive reference unpackers (one value at a time), for tests and benchmarks. */
void pm_pq_unpack32_naive(const uint8_t *in, int width, uint32_t *out, size_t n);
/* Name of the active kernel set ("scalar" or "avx2"). */
const char *pm_pq_unpack_impl(void);
/* Forces the scalar kernels (1) or re-enables auto-detection (0); for tests and benchmarks. */
void pm_pq_unpack_force_scalar(int on);

/* Bits needed for values up to max_value (0 for 0). */
int pm_pq_bit_width(uint64_t max_value);

/* ------------------------------------------------------ RLE/bit-packed hybrid */

typedef struct pm_pq_rle_dec {
	const uint8_t *start, *p, *end;
	const char *what;     /* "definition levels", "dictionary indices"... */
	int width;
	int byte_width;
	uint32_t rle_left;    /* values left in the current RLE run */
	uint32_t rle_value;
	uint64_t bp_left;     /* literal values left that are backed by input */
	const uint8_t *bp_p;  /* next literal bits */
	uint32_t buf_pos, buf_n;
	int64_t produced;     /* values returned so far, for messages */
	uint32_t buf[32];
} pm_pq_rle_dec;

/* One run handed to the caller: count values equal to value (values == NULL),
 * or count literal values in values[]. */
typedef struct pm_pq_run {
	uint32_t count;
	uint32_t value;
	const uint32_t *values;
} pm_pq_run;

/* Without length prefix (v2 levels, dictionary indices after the width byte). */
int pm_pq_rle_init(pm_pq_rle_dec *d, const uint8_t *data, size_t len, int bit_width, const char *what);
/* With the 4-byte LE length prefix (v1 levels, RLE booleans); *consumed =
 * 4 + length, the offset of whatever follows. */
int pm_pq_rle_init_prefixed(pm_pq_rle_dec *d, const uint8_t *data, size_t len, int bit_width, const char *what,
	size_t *consumed);
/* Exactly n values, or ECORRUPT if the runs end first. */
int pm_pq_rle_get(pm_pq_rle_dec *d, uint32_t *out, int64_t n);
/* n levels as int16, each checked <= max_level. */
int pm_pq_rle_get_levels(pm_pq_rle_dec *d, int16_t *out, int64_t n, uint32_t max_level);
/* Skips n values. */
int pm_pq_rle_skip(pm_pq_rle_dec *d, int64_t n);
/* The next run piece of at most max_n (>0) values; literal values are
 * unpacked into scratch (max_n entries). ECORRUPT at the end of input. */
int pm_pq_rle_next_run(pm_pq_rle_dec *d, uint32_t max_n, uint32_t *scratch, pm_pq_run *run);
/* Flat optional columns: n definition levels straight into a validity bitmap
 * (level == max_def: valid, lower: null, higher: ECORRUPT); *n_valid counts
 * the valid entries. */
int pm_pq_rle_levels_to_validity(pm_pq_rle_dec *d, int64_t n, uint32_t max_def, pm_bitmap_builder *bb,
	int64_t *n_valid);
/* The same into bits[] from bit 0 (LSB first; ceil(n / 8) bytes, which need
 * not be initialised; bits past n in the last byte are left as they were). */
int pm_pq_rle_levels_to_bits(pm_pq_rle_dec *d, int64_t n, uint32_t max_def, uint8_t *bits, int64_t *n_valid);

/* Legacy BIT_PACKED levels (MSB-first, no header): n values of width bits from
 * data; *consumed = ceil(n*width/8). */
int pm_pq_bitpacked_legacy_decode(const uint8_t *data, size_t len, int width, uint32_t *out, int64_t n,
	size_t *consumed);

/* RLE/bit-packed encoder with parquet-java's run choice: runs of >= 8 equal
 * values aligned on a group boundary become RLE runs, everything else groups
 * of 8 bit-packed values (at most 63 groups per run). */
typedef struct pm_pq_rle_enc {
	pm_buf *out;
	int width;
	int nbuf;
	uint32_t prev;
	int64_t repeat;
	size_t bp_header;  /* offset of the open bit-packed run's header, or SIZE_MAX */
	int bp_groups;
	uint32_t vals[8];
} pm_pq_rle_enc;

void pm_pq_rle_enc_init(pm_pq_rle_enc *e, pm_buf *out, int bit_width);
int pm_pq_rle_enc_put(pm_pq_rle_enc *e, const uint32_t *v, int64_t n);
int pm_pq_rle_enc_put16(pm_pq_rle_enc *e, const int16_t *v, int64_t n);
int pm_pq_rle_enc_finish(pm_pq_rle_enc *e);
/* One-shot: optional 4-byte length prefix (v1 levels, RLE booleans). */
int pm_pq_rle_encode(pm_buf *out, const uint32_t *v, int64_t n, int bit_width, int length_prefix);

/* ------------------------------------------------------------------ PLAIN */

typedef struct pm_pq_plain_dec {
	const uint8_t *data;
	size_t len;
	size_t pos;      /* bytes consumed */
	int64_t bitpos;  /* BOOLEAN: bits consumed */
	const char *type; /* physical type name for messages */
} pm_pq_plain_dec;

void pm_pq_plain_init(pm_pq_plain_dec *d, const uint8_t *data, size_t len, const char *type_name);
/* n values of width bytes (INT32 4, INT64 8, INT96 12, FLOAT 4, DOUBLE 8, FLBA type_length). */
int pm_pq_plain_get_fixed(pm_pq_plain_dec *d, int width, void *out, int64_t n);
/* BOOLEAN into an LSB bitmap at bit out_off, or one byte per value. */
int pm_pq_plain_get_bool_bits(pm_pq_plain_dec *d, uint8_t *out, int64_t out_off, int64_t n);
int pm_pq_plain_get_bool_bytes(pm_pq_plain_dec *d, uint8_t *out, int64_t n);
/* BYTE_ARRAY: n valid values appended to a binary builder (one pass over the
 * lengths writing offsets, one copy pass). */
int pm_pq_plain_get_binary(pm_pq_plain_dec *d, pm_array_builder *ab, int64_t n);
/* Skips n values of a fixed width or BYTE_ARRAY (width 0). */
int pm_pq_plain_skip(pm_pq_plain_dec *d, int width, int64_t n);

int pm_pq_plain_encode_fixed(pm_buf *out, const void *vals, int64_t n, int width);
int pm_pq_plain_encode_bools(pm_buf *out, const uint8_t *vals, int64_t n); /* one byte per value */
int pm_pq_plain_encode_bool_bits(pm_buf *out, const uint8_t *bits, int64_t off, int64_t n);
/* BYTE_ARRAY from Arrow offsets (int32 or int64) + data. */
int pm_pq_plain_encode_binary(pm_buf *out, const int32_t *offsets, const uint8_t *data, int64_t n);
int pm_pq_plain_encode_large_binary(pm_buf *out, const int64_t *offsets, const uint8_t *data, int64_t n);
int pm_pq_plain_encode_bytes(pm_buf *out, const void *p, uint32_t len); /* one value */

/* ------------------------------------------------------------ dictionary */

/* A byte-array dictionary: n values, value i = data[offsets[i] .. offsets[i+1]). */
typedef struct pm_pq_bytes {
	const int32_t *offsets;
	const uint8_t *data;
	int64_t n;
} pm_pq_bytes;

/* View of a finished-or-not utf8/binary builder (int32 offsets) as a dictionary. */
int pm_pq_bytes_from_builder(const pm_array_builder *ab, pm_pq_bytes *out);

#define PQ_DICT_BATCH 1024

typedef struct pm_pq_dict_dec {
	pm_pq_rle_dec rle;
	int64_t n_dict;
	uint32_t idx[PQ_DICT_BATCH];
} pm_pq_dict_dec;

/* data = [bit width byte][hybrid runs] (PLAIN_DICTIONARY / RLE_DICTIONARY data page). */
int pm_pq_dictdec_init(pm_pq_dict_dec *d, const uint8_t *data, size_t len, int64_t n_dict);
/* n indices, each checked < n_dict. */
int pm_pq_dictdec_indices(pm_pq_dict_dec *d, uint32_t *out, int64_t n);
/* n values gathered from a fixed-width dictionary (width 4, 8, 12 or any FLBA). */
int pm_pq_dictdec_fixed(pm_pq_dict_dec *d, const void *dict, int width, void *out, int64_t n);
/* n values gathered from a byte-array dictionary into a binary builder. */
int pm_pq_dictdec_binary(pm_pq_dict_dec *d, const pm_pq_bytes *dict, pm_array_builder *ab, int64_t n);

/* Dictionary builder for the writer: open addressing (power-of-two table,
 * load factor <= 1/2, linear probing) on the values (bit patterns for
 * FLOAT/DOUBLE). 4- and 8-byte values live in their slots; for other widths
 * and byte arrays a slot holds the entry number and each entry its hash,
 * offset and length, so a probe compares hashes before values and growth
 * never rehashes the values. Batches hash a block of values first and
 * prefetch their slots. A one-entry cache of the previous value's index
 * catches runs. width > 0: fixed-width values (INT32/FLOAT 4, INT64/DOUBLE
 * 8, INT96 12, FLBA); width 0: BYTE_ARRAY. Values are limited to 4 GiB. */
typedef struct pm_pq_dict_ent {
	uint32_t h, off, len;
} pm_pq_dict_ent;

typedef struct pm_pq_dict_builder {
	int width;
	uint32_t n;
	uint32_t cap;        /* slots, power of two */
	void *slots;         /* width 4/8: value + entry; else entry + 1 (0 empty) */
	pm_pq_dict_ent *ents;   /* width not 4/8: per entry */
	uint32_t cap_ents;
	pm_buf values;       /* fixed: n * width bytes; binary: concatenated bytes */
	size_t plain_size;   /* bytes of the PLAIN dictionary page */
	uint32_t last_e;     /* previous value's entry + 1 (0: none) */
	uint64_t last_v;     /* width 4/8: previous value */
} pm_pq_dict_builder;

int pm_pq_dictbuild_init(pm_pq_dict_builder *b, int width);
void pm_pq_dictbuild_dispose(pm_pq_dict_builder *b);
/* Adds n fixed-width values; idx_out[i] receives each value's dictionary index. */
int pm_pq_dictbuild_put_fixed(pm_pq_dict_builder *b, const void *vals, int64_t n, uint32_t *idx_out);
/* Adds one byte-array value. */
int pm_pq_dictbuild_put_bytes(pm_pq_dict_builder *b, const void *p, size_t len, uint32_t *idx_out);
/* Adds n byte-array values from Arrow int32 offsets + data. */
int pm_pq_dictbuild_put_binary(pm_pq_dict_builder *b, const int32_t *offsets, const uint8_t *data, int64_t n,
	uint32_t *idx_out);
/* Like pm_pq_dictbuild_put_binary, but stops right after the value that makes
 * the PLAIN dictionary size exceed max_size; *done = values added (n when
 * the size stayed within max_size). */
int pm_pq_dictbuild_put_binary_upto(pm_pq_dict_builder *b, const int32_t *offsets, const uint8_t *data, int64_t n,
	uint32_t *idx_out, size_t max_size, int64_t *done);
/* Entry i's value (width bytes for fixed-width dictionaries). */
static inline const uint8_t *pm_pq_dictbuild_value(const pm_pq_dict_builder *b, uint32_t i, uint32_t *len)
{
	if (b->width) {
		*len = (uint32_t)b->width;
		return (const uint8_t *)b->values.data + (size_t)i * (size_t)b->width;
	}
	*len = b->ents[i].len;
	return (const uint8_t *)b->values.data + b->ents[i].off;
}
/* Size the PLAIN dictionary page would take (writer falls back past 1 MiB). */
static inline size_t pm_pq_dictbuild_size(const pm_pq_dict_builder *b)
{
	return b->plain_size;
}
/* Bit width of the data pages' indices. */
int pm_pq_dictbuild_index_width(const pm_pq_dict_builder *b);
/* Appends the PLAIN dictionary page values. */
int pm_pq_dictbuild_write(const pm_pq_dict_builder *b, pm_buf *out);

/* ------------------------------------------------------ DELTA_BINARY_PACKED */

typedef struct pm_pq_dbp_dec {
	const uint8_t *start, *p, *end;
	const char *what;
	int bits;              /* 32 or 64 */
	uint64_t block_size, mb_count, mb_values;
	int64_t total;         /* values in the stream (header) */
	int64_t remaining;     /* values not yet returned */
	uint64_t last;
	uint64_t min_delta;
	int first_pending;
	const uint8_t *widths; /* of the current block */
	uint64_t mb_index;     /* next miniblock in the block */
	int width;             /* current miniblock */
	uint64_t mb_left;      /* values left in the current miniblock */
	const uint8_t *mb_p;   /* next packed bits of the current miniblock */
	const uint8_t *mb_end; /* end of the current miniblock (clamped to end) */
	uint32_t buf_pos, buf_n;
	uint64_t buf[32];      /* decoded values (not deltas) waiting */
} pm_pq_dbp_dec;

/* bits: 32 (INT32) or 64 (INT64). The header's total count must not exceed
 * max_values (the page's value count). */
int pm_pq_dbp_init(pm_pq_dbp_dec *d, const uint8_t *data, size_t len, int bits, int64_t max_values);
static inline int64_t pm_pq_dbp_total(const pm_pq_dbp_dec *d)
{
	return d->total;
}
int pm_pq_dbp_get32(pm_pq_dbp_dec *d, int32_t *out, int64_t n);
int pm_pq_dbp_get64(pm_pq_dbp_dec *d, int64_t *out, int64_t n);
/* After all values: bytes used by the stream (through the last miniblock holding values). */
int pm_pq_dbp_consumed(pm_pq_dbp_dec *d, size_t *consumed);

/* Encoder: block 128 values, 4 miniblocks of 32 (parquet-java's defaults). */
int pm_pq_dbp_encode32(pm_buf *out, const int32_t *v, int64_t n);
int pm_pq_dbp_encode64(pm_buf *out, const int64_t *v, int64_t n);

/* ------------------------------------------------- DELTA_LENGTH_BYTE_ARRAY */

typedef struct pm_pq_dlba_dec {
	int32_t *lens;
	int64_t n, pos;
	const uint8_t *data, *end; /* concatenated values */
} pm_pq_dlba_dec;

int pm_pq_dlba_init(pm_pq_dlba_dec *d, const uint8_t *data, size_t len, int64_t max_values);
int pm_pq_dlba_get(pm_pq_dlba_dec *d, pm_array_builder *ab, int64_t n);
void pm_pq_dlba_dispose(pm_pq_dlba_dec *d);

/* --------------------------------------------------------- DELTA_BYTE_ARRAY */

typedef struct pm_pq_dba_dec {
	int32_t *prefix, *suffix;
	int64_t n, pos;
	const uint8_t *data, *end; /* concatenated suffixes */
	uint8_t *last;
	size_t last_len, last_cap;
} pm_pq_dba_dec;

int pm_pq_dba_init(pm_pq_dba_dec *d, const uint8_t *data, size_t len, int64_t max_values);
int pm_pq_dba_get(pm_pq_dba_dec *d, pm_array_builder *ab, int64_t n);
/* FIXED_LEN_BYTE_ARRAY: every value must be width bytes. */
int pm_pq_dba_get_fixed(pm_pq_dba_dec *d, int width, uint8_t *out, int64_t n);
void pm_pq_dba_dispose(pm_pq_dba_dec *d);

/* -------------------------------------------------------- BYTE_STREAM_SPLIT */

typedef struct pm_pq_bss_dec {
	const uint8_t *data;
	int64_t n;     /* values in the page */
	int64_t pos;
	int width;
} pm_pq_bss_dec;

/* len must be a multiple of width; the streams hold len / width values
 * (the stride), which must be at least n_values. */
int pm_pq_bss_init(pm_pq_bss_dec *d, const uint8_t *data, size_t len, int width, int64_t n_values);
int pm_pq_bss_get(pm_pq_bss_dec *d, void *out, int64_t n);
int pm_pq_bss_encode(pm_buf *out, const void *vals, int64_t n, int width);

#endif
