/*
 * index/ftenvelope.h - validation of the PFTIDX01 envelope of a full-text
 * index file (paimon-full-text docs/storage-format.md, version 1), done by
 * paimonc before any byte reaches the engine (index/ftindex.h):
 *
 *   bytes 0..8    magic "PFTIDX01"
 *   bytes 8..12   u32 big-endian version, 1
 *   bytes 12..16  u32 big-endian header length H, at most 16 MiB, and
 *                 16 + H within the file
 *   bytes 16..16+H  UTF-8 JSON object: {"metadata": {...}, "files":
 *                 [{"name", "offset", "length"}, ...]}; offsets are
 *                 relative to the body (byte 16 + H on)
 *   body          the concatenated Tantivy files
 *
 * The file table must be a non-empty array of objects whose names are
 * non-empty plain file names (no '/', not "." or ".."), unique, and whose
 * [offset, offset + length) ranges are non-negative integers inside the
 * body and do not overlap. Every violation is PAIMON_ECORRUPT naming the
 * file (path) and what is wrong. Nothing here allocates more than the
 * parsed JSON.
 */
#ifndef PM_INDEX_FTENVELOPE_H
#define PM_INDEX_FTENVELOPE_H

#include <stddef.h>
#include <stdint.h>

#define PM_FT_MAGIC "PFTIDX01"
#define PM_FT_VERSION 1u
#define PM_FT_PREFIX_LEN 16u
#define PM_FT_MAX_HEADER ((uint32_t)16 << 20)

/* Checks the 16-byte prefix of a file of file_size bytes; *header_len gets
 * H. A file shorter than 16 bytes is PAIMON_ECORRUPT too. */
int pm_ft_envelope_prefix(const uint8_t *prefix, uint64_t file_size, const char *path, uint32_t *header_len);

/* Checks the JSON header (len bytes, not NUL-terminated) of a file whose
 * body has body_size bytes ("metadata", when present, must be an object;
 * its content is the engine's to judge). */
int pm_ft_envelope_header(const char *json, size_t len, uint64_t body_size, const char *path);

/* Both checks over a whole file held in memory (data, n bytes). */
int pm_ft_envelope_check(const void *data, size_t n, const char *path);

#endif
