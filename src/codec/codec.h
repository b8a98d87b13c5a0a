/*
 * codec/codec.h - block compression for Parquet pages (and Avro blocks).
 *
 * Codec numbers are Parquet's CompressionCodec enum; the extra codecs above
 * 100 exist for Avro and other callers (raw deflate, zlib-wrapped deflate).
 *
 *   PM_CODEC_LZ4      Parquet codec 5: Hadoop block framing, repeated
 *                     [u32 BE decompressed len][u32 BE compressed len][raw LZ4
 *                     block]. Decompression falls back to one raw LZ4 block
 *                     when the framing does not add up exactly (old
 *                     parquet-cpp files), as Arrow does. Compression writes
 *                     Hadoop frames of at most 128 KiB decompressed each.
 *   PM_CODEC_LZ4_RAW  Parquet codec 7: one raw LZ4 block.
 *   PM_CODEC_GZIP     gzip members (RFC 1952); decompression also accepts a
 *                     zlib header and keeps going over concatenated members.
 *   PM_CODEC_SNAPPY   raw snappy block (no framing, no CRC: Avro's 4-byte CRC
 *                     suffix is the Avro layer's business).
 *   PM_CODEC_DEFLATE  raw deflate (RFC 1951), Avro's "deflate".
 *   PM_CODEC_ZLIB     zlib-wrapped deflate (RFC 1950).
 *   LZO and BROTLI are recognised but PAIMON_EUNSUPPORTED.
 *
 * Contexts: a pm_codec_ctx caches the ZSTD_CCtx/ZSTD_DCtx and zlib streams
 * so hot loops do not re-create them. A context is not thread-safe: keep one
 * per thread or per reader/writer object. Every function taking a ctx also
 * accepts NULL, in which case a temporary context is used for that call.
 *
 * Errors: PAIMON_ECORRUPT naming the codec for malformed input or output of
 * the wrong size, PAIMON_EUNSUPPORTED for LZO/BROTLI/unknown numbers,
 * PAIMON_ENOMEM.
 *
 * Empty input: decompressing 0 bytes yields 0 bytes for every codec (no
 * library call is made), matching what Parquet readers do for empty v2 data
 * sections. Compressing 0 bytes produces the codec's encoding of nothing
 * (which does decompress back to 0 bytes).
 */
#ifndef PM_CODEC_CODEC_H
#define PM_CODEC_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"

typedef enum pm_codec {
	PM_CODEC_UNCOMPRESSED = 0,
	PM_CODEC_SNAPPY = 1,
	PM_CODEC_GZIP = 2,
	PM_CODEC_LZO = 3,
	PM_CODEC_BROTLI = 4,
	PM_CODEC_LZ4 = 5,
	PM_CODEC_ZSTD = 6,
	PM_CODEC_LZ4_RAW = 7,
	/* Not Parquet codecs. */
	PM_CODEC_DEFLATE = 100,
	PM_CODEC_ZLIB = 101
} pm_codec;

/* Pass as level to get each codec's default (ZSTD 1... see pm_codec_compress). */
#define PM_CODEC_LEVEL_DEFAULT (-1000)

typedef struct pm_codec_ctx pm_codec_ctx;

/* "UNCOMPRESSED", "SNAPPY", ..., "DEFLATE", "ZLIB"; "codec(<n>)" never: unknown -> "UNKNOWN". */
const char *pm_codec_name(int codec);

/* 1 if decompression (and compression) of codec is implemented. */
int pm_codec_supported(int codec);

int pm_codec_ctx_new(pm_codec_ctx **out);
void pm_codec_ctx_free(pm_codec_ctx *ctx);

/*
 * Decompresses all n bytes of src into dst (capacity dst_cap), setting
 * *out_len to the bytes produced. Output that would exceed dst_cap is an
 * error ("... decompresses to more than <dst_cap> bytes"). For Parquet pages
 * use pm_codec_decompress_exact, which also rejects short output.
 */
int pm_codec_decompress_ctx(pm_codec_ctx *ctx, int codec, const void *src, size_t n,
			    void *dst, size_t dst_cap, size_t *out_len);
int pm_codec_decompress(int codec, const void *src, size_t n, void *dst, size_t dst_cap,
			size_t *out_len);
/* As above, but the output must be exactly want bytes (the page's uncompressed size). */
int pm_codec_decompress_exact(pm_codec_ctx *ctx, int codec, const void *src, size_t n,
			      void *dst, size_t want);

/*
 * Decompresses src when the output size is not known in advance (Avro
 * blocks): appends to out, failing with PAIMON_ECORRUPT once the output
 * would exceed limit bytes (a memory guard; pass e.g. 1 GiB).
 */
int pm_codec_decompress_buf(pm_codec_ctx *ctx, int codec, const void *src, size_t n,
			    size_t limit, pm_buf *out);

/*
 * Compresses src, appending the result to out (out->len grows by the
 * compressed size). level: PM_CODEC_LEVEL_DEFAULT, or ZSTD 1..22 (and
 * negative fast levels), zlib-based 0..9; LZ4/LZ4_RAW/SNAPPY ignore it.
 */
int pm_codec_compress_ctx(pm_codec_ctx *ctx, int codec, int level, const void *src, size_t n,
			  pm_buf *out);
int pm_codec_compress(int codec, int level, const void *src, size_t n, pm_buf *out);

/*
 * Largest output n compressed bytes of codec can legitimately decode to, from
 * each format's most expansive construct (a guard against corrupt sizes):
 *   UNCOMPRESSED n;  SNAPPY 22n + 64 (a 3-byte copy yields at most 64 bytes);
 *   LZ4 / LZ4_RAW 255n + 64 (each match-length byte adds at most 255);
 *   GZIP / DEFLATE / ZLIB 1032n + 64 (a 258-byte match in 2 bits);
 *   ZSTD 32768n + 64 (a 4-byte RLE block yields at most 128 KiB).
 * SIZE_MAX for codecs without a known bound (LZO, BROTLI, unknown) and on
 * overflow.
 */
size_t pm_codec_max_decompressed_len(int codec, size_t n);

/* Worst-case compressed size of n bytes (0 if unknown/unsupported codec). */
size_t pm_codec_max_compressed_len(int codec, size_t n);

#endif
