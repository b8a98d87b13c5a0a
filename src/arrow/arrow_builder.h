/*
 * arrow/arrow_builder.h - builders for Arrow C Data Interface arrays.
 *
 * Buffers are 64-byte aligned and padded to a multiple of 64 bytes, grown
 * geometrically. A builder is a tree (list, fixed_size_list, struct and map
 * nodes own their children); pm_ab_finish moves every buffer into a
 * struct ArrowArray whose release callback frees the whole tree (and skips
 * children a consumer moved out, i.e. whose release is NULL), and leaves the
 * builder empty and reusable.
 *
 * The length of a node is the length of its validity builder: every
 * append_* call appends validity, value-level helpers (pm_ab_values_grow,
 * pm_ab_offsets_grow) touch only the value buffers, so decoders can write
 * straight into builder memory and account for validity separately.
 *
 * Every function returns 0, PAIMON_ENOMEM or PAIMON_EINVAL (misuse, or int32
 * offset overflow for utf8/binary/list).
 */
#ifndef PM_ARROW_BUILDER_H
#define PM_ARROW_BUILDER_H

#include <stddef.h>
#include <stdint.h>

#include "paimonc/arrow_c.h"

#define PM_ARROW_ALIGN 64

/* ------------------------------------------------------------ raw buffers */

/* A growable 64-byte aligned buffer. Zero-initialise before use. */
typedef struct pm_abuf {
	uint8_t *data; /* aligned; NULL until the first reserve */
	size_t len;
	size_t cap;    /* usable bytes at data, multiple of 64 */
	void *raw;     /* what pm_malloc returned */
} pm_abuf;

int pm_abuf_reserve(pm_abuf *b, size_t extra);
int pm_abuf_append(pm_abuf *b, const void *p, size_t n);
/* Grows len by n bytes (uninitialised) and returns a pointer to them, or NULL (ENOMEM). */
void *pm_abuf_grow(pm_abuf *b, size_t n);
void pm_abuf_dispose(pm_abuf *b);
/* The raw blocks behind pm_abuf (large ones are recycled through a small
 * process-wide cache); release with pm_abuf_raw_free only. */
void *pm_abuf_raw_alloc(size_t n);
void pm_abuf_raw_free(void *raw);

/* --------------------------------------------------------- validity bitmap */

/* Validity bitmap, LSB first. Materialised lazily: while no null has been
 * appended, no memory is used and the finished array has no bitmap. */
typedef struct pm_bitmap_builder {
	pm_abuf buf;
	int64_t length;
	int64_t null_count;
} pm_bitmap_builder;

/* Appends n entries, all valid (valid != 0) or all null. */
int pm_bitmap_append_run(pm_bitmap_builder *bb, int valid, int64_t n);
/* Appends n entries from one byte per entry (non-zero = valid). */
int pm_bitmap_append_bytes(pm_bitmap_builder *bb, const uint8_t *valid, int64_t n);
/* Appends n entries from a bitmap starting at bit src_off. */
int pm_bitmap_append_bits(pm_bitmap_builder *bb, const uint8_t *src, int64_t src_off, int64_t n);
/* 1 if entry i is valid. */
/* Removes the last n entries, which must all be valid (a decoder appended
 * them and the caller replaces them with its own validity). */
void pm_bitmap_drop_valid(pm_bitmap_builder *bb, int64_t n);
int pm_bitmap_get(const pm_bitmap_builder *bb, int64_t i);
void pm_bitmap_dispose(pm_bitmap_builder *bb);

/* Bit helpers on plain memory (LSB-first bitmaps). */
void pm_bits_set_range(uint8_t *bits, int64_t off, int64_t n, int value);
void pm_bits_copy(uint8_t *dst, int64_t dst_off, const uint8_t *src, int64_t src_off, int64_t n);
int64_t pm_bits_count(const uint8_t *bits, int64_t off, int64_t n);

/* ----------------------------------------------------------- array builders */

typedef enum pm_ab_kind {
	PM_AB_FIXED,        /* primitive of 1/2/4/8/16 bytes or fixed_size_binary ("w:N") */
	PM_AB_BOOL,         /* "b": bit-packed values */
	PM_AB_BINARY,       /* "z"/"u": int32 offsets */
	PM_AB_LARGE_BINARY, /* "Z"/"U": int64 offsets */
	PM_AB_LIST,         /* "+l": int32 offsets, 1 child */
	PM_AB_LARGE_LIST,   /* "+L": int64 offsets, 1 child */
	PM_AB_FIXED_LIST,   /* "+w:N": 1 child, N child entries per entry */
	PM_AB_STRUCT,       /* "+s": n children */
	PM_AB_MAP,          /* "+m": int32 offsets, 1 child: struct<key, value> "entries" */
} pm_ab_kind;

typedef struct pm_array_builder {
	pm_ab_kind kind;
	char *format;   /* Arrow format string */
	char *name;     /* field name (for pm_ab_schema); may be NULL */
	int nullable;
	int32_t width;  /* FIXED: bytes per value; FIXED_LIST: list size */
	pm_bitmap_builder validity;
	pm_abuf values;  /* FIXED values, BOOL bits, BINARY bytes */
	int64_t nbits;   /* BOOL: number of bits in values */
	pm_abuf offsets; /* BINARY/LIST/MAP: int32 or int64, length + 1 entries */
	int64_t n_children;
	struct pm_array_builder **children;
} pm_array_builder;

/* Constructors; the result is freed with pm_ab_free. NULL on ENOMEM.
 * Nested constructors take ownership of the children passed in, even on
 * failure. format is copied; pass NULL for the kind's default. */
pm_array_builder *pm_ab_new_fixed(const char *format, int32_t width);
pm_array_builder *pm_ab_new_bool(void);
pm_array_builder *pm_ab_new_binary(const char *format, int large); /* "u"/"z"/"U"/"Z" */
pm_array_builder *pm_ab_new_list(pm_array_builder *child, int large);
pm_array_builder *pm_ab_new_fixed_list(pm_array_builder *child, int32_t size);
pm_array_builder *pm_ab_new_struct(pm_array_builder **children, int64_t n);
/* Map: the entries struct (named "entries") has non-nullable key and value. */
pm_array_builder *pm_ab_new_map(pm_array_builder *key, pm_array_builder *value, int keys_sorted);
void pm_ab_free(pm_array_builder *ab);
/* Field metadata used by pm_ab_schema; name copied. 0 or ENOMEM. */
int pm_ab_set_name(pm_array_builder *ab, const char *name, int nullable);

static inline int64_t pm_ab_length(const pm_array_builder *ab)
{
	return ab->validity.length;
}

/* Reserves room for n more entries (and nbytes of BINARY data). */
int pm_ab_reserve(pm_array_builder *ab, int64_t n, size_t nbytes);

/* n null entries (any kind). FIXED/BOOL get zero slots, BINARY/LIST/MAP repeat
 * the last offset, FIXED_LIST and STRUCT append n (resp. n*size) nulls to
 * their children. */
int pm_ab_append_nulls(pm_array_builder *ab, int64_t n);

/* FIXED: n values of `width` bytes each, all valid. */
int pm_ab_append_fixed(pm_array_builder *ab, const void *vals, int64_t n);
/* FIXED: n copies of one value, all valid. */
int pm_ab_append_fixed_repeat(pm_array_builder *ab, const void *val, int64_t n);
/* BOOL: n values, one byte each (non-zero = true), all valid. */
int pm_ab_append_bools(pm_array_builder *ab, const uint8_t *vals, int64_t n);
/* BOOL: n values from a bitmap at bit src_off, all valid. */
int pm_ab_append_bool_bits(pm_array_builder *ab, const uint8_t *bits, int64_t src_off, int64_t n);
/* BINARY/LARGE_BINARY: one valid value. */
int pm_ab_append_binary(pm_array_builder *ab, const void *p, size_t len);
/* LIST/LARGE_LIST/MAP: one valid entry spanning the next `count` child entries
 * (the caller appends them to the child). */
int pm_ab_append_list(pm_array_builder *ab, int64_t count);
/* FIXED_LIST/STRUCT: n valid entries (the caller appends to the children). */
int pm_ab_append_valid(pm_array_builder *ab, int64_t n);

/* Low level, for decoders writing into builder memory:
 * values: grows the values buffer by nbytes and returns the new region.
 * BINARY offsets: the current end of data (== last offset) is values.len. */
void *pm_ab_values_grow(pm_array_builder *ab, size_t nbytes);
/* BINARY/LIST: grows offsets by n entries (uninitialised) and returns them;
 * the previous last offset is at ((int32_t*)r)[-1] (or int64_t). */
void *pm_ab_offsets_grow(pm_array_builder *ab, int64_t n);

/* Checks the invariants (child lengths, last offsets). 0 or EINVAL. */
int pm_ab_validate(const pm_array_builder *ab);

/* Moves the contents into *out (release callback set) and resets the builder.
 * On error *out is zeroed (release NULL) and the builder is left as it was. */
int pm_ab_finish(pm_array_builder *ab, struct ArrowArray *out);

/* The schema describing the builder's arrays (format, name, nullability,
 * children; map flags). */
int pm_ab_schema(const pm_array_builder *ab, struct ArrowSchema *out);

/* ---------------------------------------------------------- ArrowSchema */

/* Initialises *out with copies of format/name, flags and n empty children
 * (each a zeroed struct to initialise with pm_aschema_init in turn).
 * release frees everything, skipping children moved out. On error *out
 * may hold partial state: call out->release if set. */
int pm_aschema_init(struct ArrowSchema *out, const char *format, const char *name, int64_t flags,
	int64_t n_children);
/* Sets the metadata (int32 count, then int32 length + bytes for each key and value). */
int pm_aschema_set_metadata(struct ArrowSchema *s, const char *const *keys, const char *const *values,
	int32_t n);
/* Looks up a key in encoded metadata: 1 found (val and val_len set), 0 not found,
 * PAIMON_EINVAL if the encoding is malformed. */
int pm_aschema_metadata_get(const char *metadata, const char *key, const char **val, int32_t *val_len);

/* ---------------------------------------------------------- ArrowArrayStream */

/* Pull callback: fill *out with the next batch (0), or leave out->release NULL
 * at the end of the stream (0); on failure return a paimon code with the error set. */
typedef int (*pm_astream_next_fn)(void *state, struct ArrowArray *out);
typedef int (*pm_astream_schema_fn)(void *state, struct ArrowSchema *out);

/* Wraps the callbacks into *out. state_free (may be NULL) runs on release. */
int pm_astream_init(struct ArrowArrayStream *out, pm_astream_schema_fn schema, pm_astream_next_fn next,
	void (*state_free)(void *state), void *state);

#endif
