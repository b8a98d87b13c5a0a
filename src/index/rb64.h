/*
 * index/rb64.h - 64-bit Roaring bitmaps (sets of uint64 row ids) and their
 * "portable" serialization, byte-compatible with Java's
 * Roaring64NavigableMap.serializePortable (RoaringNavigableMap64), pyroaring's
 * BitMap64 and the Rust roaring crate's RoaringTreemap:
 *   u64 LE number of 32-bit buckets; per bucket, ascending high key:
 *   u32 LE high 32 bits, then a standard portable 32-bit Roaring bitmap.
 * Built on CRoaring's 32-bit roaring_bitmap_t (Debian 12's libroaring has no
 * 64-bit C API). Global-index results, null bitmaps, bitmap-index postings
 * and search filters all use it.
 *
 * Ownership: every pm_rb64 is owned by whoever created it (pm_rb64_new,
 * _copy, _deserialize, _shifted) and freed with pm_rb64_free (NULL ok).
 * In-place operations (_or, _and, _andnot) modify dst only. All functions
 * returning int give 0 or a PAIMON_E* code with the error message set.
 */
#ifndef PM_INDEX_RB64_H
#define PM_INDEX_RB64_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"

typedef struct pm_rb64 pm_rb64;

int pm_rb64_new(pm_rb64 **out);
void pm_rb64_free(pm_rb64 *b);
int pm_rb64_copy(const pm_rb64 *src, pm_rb64 **out);

int pm_rb64_add(pm_rb64 *b, uint64_t v);
/* Adds [lo, hi) (hi exclusive); lo >= hi adds nothing. */
int pm_rb64_add_range(pm_rb64 *b, uint64_t lo, uint64_t hi);
int pm_rb64_contains(const pm_rb64 *b, uint64_t v);
uint64_t pm_rb64_cardinality(const pm_rb64 *b);
int pm_rb64_is_empty(const pm_rb64 *b);
/* Smallest / largest value; 0 when empty (check pm_rb64_is_empty first). */
uint64_t pm_rb64_min(const pm_rb64 *b);
uint64_t pm_rb64_max(const pm_rb64 *b);

int pm_rb64_or(pm_rb64 *dst, const pm_rb64 *src);
int pm_rb64_and(pm_rb64 *dst, const pm_rb64 *src);
int pm_rb64_andnot(pm_rb64 *dst, const pm_rb64 *src);
/* Keeps only values in [lo, hi) (hi exclusive). */
int pm_rb64_clip(pm_rb64 *b, uint64_t lo, uint64_t hi);
/* A new bitmap holding v + delta for every v in src (delta may be negative;
 * a value that would leave [0, 2^64) is PAIMON_EINVAL). */
int pm_rb64_shifted(const pm_rb64 *src, int64_t delta, pm_rb64 **out);

/* Values ascending into a new array (*vals owned by the caller, pm_free;
 * NULL with *n = 0 when empty). */
int pm_rb64_to_array(const pm_rb64 *b, uint64_t **vals, size_t *n);
/* Calls fn for each value ascending; a non-zero return stops and is returned. */
int pm_rb64_foreach(const pm_rb64 *b, int (*fn)(void *ctx, uint64_t v), void *ctx);
/* Maximal runs of consecutive values as inclusive [lo, hi] pairs:
 * *ranges = {lo0, hi0, lo1, hi1, ...}, *n pairs (owned by the caller). */
int pm_rb64_ranges(const pm_rb64 *b, int64_t **ranges, size_t *n);

/* Appends the portable form (after run-optimizing, as Java does). */
int pm_rb64_serialize(pm_rb64 *b, pm_buf *out);
/* Parses one portable bitmap from p[0..n) without reading past n; *consumed
 * (may be NULL) receives its length. Malformed bytes -> PAIMON_ECORRUPT
 * naming `what` (e.g. the file path). Buckets must be ascending. */
int pm_rb64_deserialize(const void *p, size_t n, const char *what, pm_rb64 **out, size_t *consumed);

#endif
