/*
 * serde/thrift/thrift.h - Thrift compact protocol: a bounded reader over a
 * byte slice and a writer into a pm_buf. Enough for Parquet's metadata
 * (FileMetaData, PageHeader, page index, bloom filter header).
 *
 * Reader rules: every read is bounded by the slice; list/set/map counts are
 * checked against the bytes remaining (each element needs at least one
 * byte, a double eight) before anyone allocates for them; nesting (structs
 * and containers) is limited to PM_TC_MAX_DEPTH; malformed input yields
 * PAIMON_ECORRUPT with a message "thrift: <what> at offset <n>" where n is
 * the offset in the slice. Nothing is allocated by the reader.
 *
 * Field headers: a bool struct field carries its value in the type nibble;
 * pm_tc_read_field normalises the type to PM_TC_BOOL and sets f->bool_value.
 * List elements of bool type are one byte each (1 = true, anything else
 * false), element type nibble 1 or 2 both mean bool (normalised to PM_TC_BOOL).
 *
 * Writer: sticky error (first failure kept, later calls do nothing);
 * pm_tcw_finish returns it. Field ids within a struct must increase
 * (PAIMON_EINVAL otherwise); short-form headers when the delta is 1..15,
 * long form otherwise. Bools are written as 1 (true) / 2 (false), both as
 * struct fields and as list elements.
 */
#ifndef PM_FORMAT_THRIFT_H
#define PM_FORMAT_THRIFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"

enum {
	PM_TC_STOP = 0,
	PM_TC_BOOL = 1,       /* BOOLEAN_TRUE on the wire; also the normalised bool type */
	PM_TC_BOOL_FALSE = 2, /* only on the wire */
	PM_TC_I8 = 3,
	PM_TC_I16 = 4,
	PM_TC_I32 = 5,
	PM_TC_I64 = 6,
	PM_TC_DOUBLE = 7,
	PM_TC_BINARY = 8,
	PM_TC_LIST = 9,
	PM_TC_SET = 10,
	PM_TC_MAP = 11,
	PM_TC_STRUCT = 12
};

#define PM_TC_MAX_DEPTH 64

typedef struct pm_tc_reader {
	const uint8_t *p;
	size_t len;
	size_t pos;
	int depth;
} pm_tc_reader;

typedef struct pm_tc_field {
	int16_t id;
	uint8_t type;      /* PM_TC_*; PM_TC_STOP at the end of a struct */
	bool bool_value;   /* when type == PM_TC_BOOL */
} pm_tc_field;

void pm_tc_reader_init(pm_tc_reader *r, const void *p, size_t len);
static inline size_t pm_tc_remaining(const pm_tc_reader *r) { return r->len - r->pos; }

int pm_tc_read_byte(pm_tc_reader *r, uint8_t *v);
int pm_tc_read_varint(pm_tc_reader *r, uint64_t *v);
int pm_tc_read_i8(pm_tc_reader *r, int8_t *v);
int pm_tc_read_i16(pm_tc_reader *r, int16_t *v);
static inline int pm_tc_read_i32(pm_tc_reader *r, int32_t *v);
static inline int pm_tc_read_i64(pm_tc_reader *r, int64_t *v);
int pm_tc_read_double(pm_tc_reader *r, double *v);
/* A binary/string: *p points into the slice (no copy). */
int pm_tc_read_binary(pm_tc_reader *r, const uint8_t **p, size_t *n);
/* A bool list element. */
int pm_tc_read_bool(pm_tc_reader *r, bool *v);

/* Enter/leave a struct (depth accounting); *last_id is the delta base. */
int pm_tc_struct_begin(pm_tc_reader *r, int16_t *last_id);
void pm_tc_struct_end(pm_tc_reader *r);
/* Next field header; f->type == PM_TC_STOP ends the struct. */
static inline int pm_tc_read_field(pm_tc_reader *r, int16_t *last_id, pm_tc_field *f);
/* List or set header; count is bounded by the remaining bytes. */
int pm_tc_read_list(pm_tc_reader *r, uint8_t *elem_type, uint32_t *count);
int pm_tc_read_map(pm_tc_reader *r, uint8_t *key_type, uint8_t *val_type, uint32_t *count);
/* Skips the value of field f (bools in the header take no bytes). */
int pm_tc_skip_field(pm_tc_reader *r, const pm_tc_field *f);
/* Skips one value of the given type as it appears in a container. */
int pm_tc_skip(pm_tc_reader *r, uint8_t type);

/*
 * The field header and i32/i64 readers sit in every metadata decoding loop:
 * inline fast paths for the common forms (a short-form header of a non-bool
 * type or the stop byte; a one-byte varint), the *_full functions for the
 * rest, with all the checks and messages.
 */
int pm_tc_read_field_full(pm_tc_reader *r, int16_t *last_id, pm_tc_field *f);
int pm_tc_read_i32_full(pm_tc_reader *r, int32_t *v);
int pm_tc_read_i64_full(pm_tc_reader *r, int64_t *v);

static inline int pm_tc_read_field(pm_tc_reader *r, int16_t *last_id, pm_tc_field *f)
{
	if (r->pos < r->len) {
		uint8_t b = r->p[r->pos], type = b & 0x0f, delta = b >> 4;
		if (b == 0) {
			r->pos++;
			f->id = 0;
			f->type = PM_TC_STOP;
			f->bool_value = false;
			return 0;
		}
		if (delta && type > PM_TC_BOOL_FALSE && type <= PM_TC_STRUCT &&
		    (int)*last_id + delta <= INT16_MAX) {
			r->pos++;
			f->id = (int16_t)(*last_id + delta);
			f->type = type;
			f->bool_value = false;
			*last_id = f->id;
			return 0;
		}
	}
	return pm_tc_read_field_full(r, last_id, f);
}

static inline int pm_tc_read_i32(pm_tc_reader *r, int32_t *v)
{
	if (r->pos < r->len && !(r->p[r->pos] & 0x80)) {
		uint8_t u = r->p[r->pos++];
		*v = (int32_t)(u >> 1) ^ -(int32_t)(u & 1);
		return 0;
	}
	return pm_tc_read_i32_full(r, v);
}

static inline int pm_tc_read_i64(pm_tc_reader *r, int64_t *v)
{
	if (r->pos < r->len && !(r->p[r->pos] & 0x80)) {
		uint8_t u = r->p[r->pos++];
		*v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
		return 0;
	}
	return pm_tc_read_i64_full(r, v);
}

/* ------------------------------------------------------------ writer */

typedef struct pm_tc_writer {
	pm_buf *out;
	int16_t stack[PM_TC_MAX_DEPTH];
	int depth;
	int16_t last;
	int err;
} pm_tc_writer;

void pm_tcw_init(pm_tc_writer *w, pm_buf *out);
/* 0, or the first error (also when structs are left open). */
int pm_tcw_finish(pm_tc_writer *w);

void pm_tcw_struct_begin(pm_tc_writer *w);
void pm_tcw_struct_end(pm_tc_writer *w);  /* writes the stop byte */
void pm_tcw_field(pm_tc_writer *w, int16_t id, uint8_t type); /* header only */
void pm_tcw_field_bool(pm_tc_writer *w, int16_t id, bool v);
void pm_tcw_field_i8(pm_tc_writer *w, int16_t id, int8_t v);
void pm_tcw_field_i16(pm_tc_writer *w, int16_t id, int16_t v);
void pm_tcw_field_i32(pm_tc_writer *w, int16_t id, int32_t v);
void pm_tcw_field_i64(pm_tc_writer *w, int16_t id, int64_t v);
void pm_tcw_field_double(pm_tc_writer *w, int16_t id, double v);
void pm_tcw_field_binary(pm_tc_writer *w, int16_t id, const void *p, size_t n);
void pm_tcw_field_string(pm_tc_writer *w, int16_t id, const char *s);
/* Field header + empty struct (for union members such as StringType). */
void pm_tcw_field_empty_struct(pm_tc_writer *w, int16_t id);

void pm_tcw_list_begin(pm_tc_writer *w, uint8_t elem_type, uint32_t count);
void pm_tcw_map_begin(pm_tc_writer *w, uint8_t key_type, uint8_t val_type, uint32_t count);
/* Bare values (list/map elements). */
void pm_tcw_bool(pm_tc_writer *w, bool v);
void pm_tcw_i8(pm_tc_writer *w, int8_t v);
void pm_tcw_i16(pm_tc_writer *w, int16_t v);
void pm_tcw_i32(pm_tc_writer *w, int32_t v);
void pm_tcw_i64(pm_tc_writer *w, int64_t v);
void pm_tcw_double(pm_tc_writer *w, double v);
void pm_tcw_binary(pm_tc_writer *w, const void *p, size_t n);
void pm_tcw_string(pm_tc_writer *w, const char *s);
void pm_tcw_varint(pm_tc_writer *w, uint64_t v);

#endif
