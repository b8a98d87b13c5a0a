/*
 * serde/thrift/thrift.c - Thrift compact protocol reader and writer (see
 * thrift.h). Written from the protocol description: ULEB128 varints, zigzag
 * integers, delta-encoded field headers, nibble-packed list headers.
 */
#include "serde/thrift/thrift.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"

#define CORRUPT(r, ...) tc_corrupt((r), __VA_ARGS__)

static int tc_corrupt(const pm_tc_reader *r, const char *fmt, ...) PM_PRINTF(2, 3);

static int tc_corrupt(const pm_tc_reader *r, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return pm_err(PAIMON_ECORRUPT, "thrift: %s at offset %zu", msg, r->pos);
}

void pm_tc_reader_init(pm_tc_reader *r, const void *p, size_t len)
{
	r->p = p;
	r->len = p ? len : 0;
	r->pos = 0;
	r->depth = 0;
}

int pm_tc_read_byte(pm_tc_reader *r, uint8_t *v)
{
	if (r->pos >= r->len)
		return CORRUPT(r, "unexpected end of data (%zu bytes)", r->len);
	*v = r->p[r->pos++];
	return 0;
}

int pm_tc_read_varint(pm_tc_reader *r, uint64_t *v)
{
	uint64_t x = 0;
	unsigned shift = 0;
	size_t start = r->pos;
	*v = 0; /* also on failure, so no caller reads an unset value */
	if (start < r->len && !(r->p[start] & 0x80)) { /* one byte: most ids, counts, enums */
		*v = r->p[start];
		r->pos = start + 1;
		return 0;
	}
	for (;;) {
		uint8_t b = 0;
		if (r->pos >= r->len) {
			r->pos = start;
			return CORRUPT(r, "varint runs past the end of data (%zu bytes)", r->len);
		}
		b = r->p[r->pos++];
		if (shift == 63 && (b & 0x7e)) {
			r->pos = start;
			return CORRUPT(r, "varint overflows 64 bits");
		}
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
		shift += 7;
		if (shift > 63) {
			r->pos = start;
			return CORRUPT(r, "varint longer than 10 bytes");
		}
	}
	*v = x;
	return 0;
}

static int64_t unzigzag(uint64_t u)
{
	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

int pm_tc_read_i64_full(pm_tc_reader *r, int64_t *v)
{
	uint64_t u;
	int rc = pm_tc_read_varint(r, &u);
	if (rc)
		return rc;
	*v = unzigzag(u);
	return 0;
}

/* A zigzag varint whose encoding fits max (UINT32_MAX: i32, UINT16_MAX: i16). */
static int read_narrow(pm_tc_reader *r, uint64_t max, const char *what, int64_t *v)
{
	uint64_t u;
	size_t start = r->pos;
	int rc = pm_tc_read_varint(r, &u);
	if (rc)
		return rc;
	if (u > max) {
		r->pos = start;
		return CORRUPT(r, "%s value out of range (varint %llu)", what, (unsigned long long)u);
	}
	*v = unzigzag(u);
	return 0;
}

int pm_tc_read_i32_full(pm_tc_reader *r, int32_t *v)
{
	int64_t x = 0;
	int rc = read_narrow(r, UINT32_MAX, "i32", &x);
	if (!rc)
		*v = (int32_t)x;
	return rc;
}

int pm_tc_read_i16(pm_tc_reader *r, int16_t *v)
{
	int64_t x = 0;
	int rc = read_narrow(r, UINT16_MAX, "i16", &x);
	if (!rc)
		*v = (int16_t)x;
	return rc;
}

int pm_tc_read_i8(pm_tc_reader *r, int8_t *v)
{
	uint8_t b = 0;
	int rc = pm_tc_read_byte(r, &b);
	if (!rc)
		*v = (int8_t)b;
	return rc;
}

int pm_tc_read_double(pm_tc_reader *r, double *v)
{
	uint64_t u = 0;
	int i;
	if (r->len - r->pos < 8)
		return CORRUPT(r, "double needs 8 bytes, %zu remain", r->len - r->pos);
	for (i = 7; i >= 0; i--)
		u = u << 8 | r->p[r->pos + (size_t)i];
	r->pos += 8;
	memcpy(v, &u, sizeof *v);
	return 0;
}

int pm_tc_read_binary(pm_tc_reader *r, const uint8_t **p, size_t *n)
{
	uint64_t len;
	size_t start = r->pos;
	int rc = pm_tc_read_varint(r, &len);
	if (rc)
		return rc;
	if (len > r->len - r->pos) {
		uint64_t rem = r->len - r->pos;
		r->pos = start;
		return CORRUPT(r, "binary length %llu exceeds remaining %llu bytes",
			       (unsigned long long)len, (unsigned long long)rem);
	}
	*p = r->p + r->pos;
	*n = (size_t)len;
	r->pos += (size_t)len;
	return 0;
}

int pm_tc_read_bool(pm_tc_reader *r, bool *v)
{
	uint8_t b = 0;
	int rc = pm_tc_read_byte(r, &b);
	if (!rc)
		*v = b == 1;
	return rc;
}

int pm_tc_struct_begin(pm_tc_reader *r, int16_t *last_id)
{
	if (r->depth >= PM_TC_MAX_DEPTH)
		return CORRUPT(r, "nesting deeper than %d", PM_TC_MAX_DEPTH);
	r->depth++;
	*last_id = 0;
	return 0;
}

void pm_tc_struct_end(pm_tc_reader *r)
{
	if (r->depth > 0)
		r->depth--;
}

int pm_tc_read_field_full(pm_tc_reader *r, int16_t *last_id, pm_tc_field *f)
{
	uint8_t b = 0, type, delta;
	size_t start = r->pos;
	int rc;
	f->bool_value = false;
	if ((rc = pm_tc_read_byte(r, &b)) != 0)
		return rc;
	if (b == 0) {
		f->type = PM_TC_STOP;
		f->id = 0;
		return 0;
	}
	type = b & 0x0f;
	delta = b >> 4;
	if (type == PM_TC_STOP || type > PM_TC_STRUCT) {
		r->pos = start;
		return CORRUPT(r, "invalid field type %u", type);
	}
	if (delta) {
		if ((int)*last_id + delta > INT16_MAX) {
			r->pos = start;
			return CORRUPT(r, "field id overflows i16");
		}
		f->id = (int16_t)(*last_id + delta);
	} else if ((rc = pm_tc_read_i16(r, &f->id)) != 0) {
		return rc;
	}
	if (type == PM_TC_BOOL || type == PM_TC_BOOL_FALSE) {
		f->bool_value = type == PM_TC_BOOL;
		type = PM_TC_BOOL;
	}
	f->type = type;
	*last_id = f->id;
	return 0;
}

static size_t min_elem_size(uint8_t type)
{
	return type == PM_TC_DOUBLE ? 8 : 1;
}

static int elem_type(pm_tc_reader *r, uint8_t t, uint8_t *out)
{
	if (t == PM_TC_BOOL_FALSE)
		t = PM_TC_BOOL;
	if (t == PM_TC_STOP || t > PM_TC_STRUCT)
		return CORRUPT(r, "invalid element type %u", t);
	*out = t;
	return 0;
}

int pm_tc_read_list(pm_tc_reader *r, uint8_t *et, uint32_t *count)
{
	uint8_t b = 0;
	uint64_t n;
	size_t start = r->pos;
	int rc;
	if ((rc = pm_tc_read_byte(r, &b)) != 0)
		return rc;
	n = b >> 4;
	if (n == 15) {
		if ((rc = pm_tc_read_varint(r, &n)) != 0)
			return rc;
	}
	if ((rc = elem_type(r, b & 0x0f, et)) != 0) {
		r->pos = start;
		return CORRUPT(r, "invalid list element type %u", b & 0x0f);
	}
	if (n > UINT32_MAX || n > (r->len - r->pos) / min_elem_size(*et)) {
		size_t rem = r->len - r->pos;
		r->pos = start;
		return CORRUPT(r, "list size %llu exceeds remaining %zu bytes", (unsigned long long)n, rem);
	}
	*count = (uint32_t)n;
	return 0;
}

int pm_tc_read_map(pm_tc_reader *r, uint8_t *kt, uint8_t *vt, uint32_t *count)
{
	uint64_t n;
	uint8_t b = 0;
	size_t start = r->pos;
	int rc;
	if ((rc = pm_tc_read_varint(r, &n)) != 0)
		return rc;
	*kt = *vt = 0;
	if (n == 0) {
		*count = 0;
		return 0;
	}
	if ((rc = pm_tc_read_byte(r, &b)) != 0)
		return rc;
	if (elem_type(r, b >> 4, kt) != 0 || elem_type(r, b & 0x0f, vt) != 0) {
		r->pos = start;
		return CORRUPT(r, "invalid map key/value types 0x%02x", b);
	}
	if (n > UINT32_MAX || n > (r->len - r->pos) / (min_elem_size(*kt) + min_elem_size(*vt))) {
		size_t rem = r->len - r->pos;
		r->pos = start;
		return CORRUPT(r, "map size %llu exceeds remaining %zu bytes", (unsigned long long)n, rem);
	}
	*count = (uint32_t)n;
	return 0;
}

static int skip_value(pm_tc_reader *r, uint8_t type, int in_container)
{
	uint64_t u;
	const uint8_t *p;
	size_t n;
	uint32_t i, cnt;
	uint8_t a, b;
	int rc = 0;
	switch (type) {
	case PM_TC_BOOL:
	case PM_TC_BOOL_FALSE:
		if (!in_container)
			return 0;
		return pm_tc_read_byte(r, &a);
	case PM_TC_I8:
		return pm_tc_read_byte(r, &a);
	case PM_TC_I16:
	case PM_TC_I32:
	case PM_TC_I64:
		return pm_tc_read_varint(r, &u);
	case PM_TC_DOUBLE:
		if (r->len - r->pos < 8)
			return CORRUPT(r, "double needs 8 bytes, %zu remain", r->len - r->pos);
		r->pos += 8;
		return 0;
	case PM_TC_BINARY:
		return pm_tc_read_binary(r, &p, &n);
	case PM_TC_LIST:
	case PM_TC_SET:
	case PM_TC_MAP:
		if (r->depth >= PM_TC_MAX_DEPTH)
			return CORRUPT(r, "nesting deeper than %d", PM_TC_MAX_DEPTH);
		if (type == PM_TC_MAP) {
			if ((rc = pm_tc_read_map(r, &a, &b, &cnt)) != 0)
				return rc;
		} else {
			if ((rc = pm_tc_read_list(r, &a, &cnt)) != 0)
				return rc;
			b = 0;
		}
		r->depth++;
		for (i = 0; i < cnt && !rc; i++) {
			rc = skip_value(r, a, 1);
			if (!rc && b)
				rc = skip_value(r, b, 1);
		}
		r->depth--;
		return rc;
	case PM_TC_STRUCT: {
		int16_t last;
		pm_tc_field f;
		if ((rc = pm_tc_struct_begin(r, &last)) != 0)
			return rc;
		for (;;) {
			if ((rc = pm_tc_read_field(r, &last, &f)) != 0)
				break;
			if (f.type == PM_TC_STOP)
				break;
			if ((rc = skip_value(r, f.type, 0)) != 0)
				break;
		}
		pm_tc_struct_end(r);
		return rc;
	}
	default:
		return CORRUPT(r, "cannot skip value of invalid type %u", type);
	}
}

int pm_tc_skip_field(pm_tc_reader *r, const pm_tc_field *f)
{
	return skip_value(r, f->type, 0);
}

int pm_tc_skip(pm_tc_reader *r, uint8_t type)
{
	return skip_value(r, type, 1);
}

/* ------------------------------------------------------------ writer */

void pm_tcw_init(pm_tc_writer *w, pm_buf *out)
{
	memset(w, 0, sizeof *w);
	w->out = out;
}

int pm_tcw_finish(pm_tc_writer *w)
{
	if (!w->err && w->depth != 0)
		w->err = pm_err(PAIMON_EINVAL, "thrift writer: %d struct(s) left open", w->depth);
	return w->err;
}

static void put(pm_tc_writer *w, const void *p, size_t n)
{
	if (!w->err)
		w->err = pm_buf_append(w->out, p, n);
}

static void put_byte(pm_tc_writer *w, uint8_t b)
{
	put(w, &b, 1);
}

void pm_tcw_varint(pm_tc_writer *w, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;
	do {
		uint8_t b = v & 0x7f;
		v >>= 7;
		tmp[n++] = (uint8_t)(b | (v ? 0x80 : 0));
	} while (v);
	put(w, tmp, n);
}

static uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

void pm_tcw_struct_begin(pm_tc_writer *w)
{
	if (w->err)
		return;
	if (w->depth >= PM_TC_MAX_DEPTH) {
		w->err = pm_err(PAIMON_EINVAL, "thrift writer: nesting deeper than %d", PM_TC_MAX_DEPTH);
		return;
	}
	w->stack[w->depth++] = w->last;
	w->last = 0;
}

void pm_tcw_struct_end(pm_tc_writer *w)
{
	if (w->err)
		return;
	if (w->depth == 0) {
		w->err = pm_err(PAIMON_EINVAL, "thrift writer: struct_end without struct_begin");
		return;
	}
	put_byte(w, 0);
	w->last = w->stack[--w->depth];
}

void pm_tcw_field(pm_tc_writer *w, int16_t id, uint8_t type)
{
	if (w->err)
		return;
	if (id <= w->last) {
		w->err = pm_err(PAIMON_EINVAL, "thrift writer: field id %d not above previous %d", id,
				w->last);
		return;
	}
	if (id - w->last <= 15) {
		put_byte(w, (uint8_t)((id - w->last) << 4 | type));
	} else {
		put_byte(w, type);
		pm_tcw_varint(w, zigzag(id));
	}
	w->last = id;
}

void pm_tcw_field_bool(pm_tc_writer *w, int16_t id, bool v)
{
	pm_tcw_field(w, id, v ? PM_TC_BOOL : PM_TC_BOOL_FALSE);
}

void pm_tcw_field_i8(pm_tc_writer *w, int16_t id, int8_t v)
{
	pm_tcw_field(w, id, PM_TC_I8);
	pm_tcw_i8(w, v);
}

void pm_tcw_field_i16(pm_tc_writer *w, int16_t id, int16_t v)
{
	pm_tcw_field(w, id, PM_TC_I16);
	pm_tcw_i16(w, v);
}

void pm_tcw_field_i32(pm_tc_writer *w, int16_t id, int32_t v)
{
	pm_tcw_field(w, id, PM_TC_I32);
	pm_tcw_i32(w, v);
}

void pm_tcw_field_i64(pm_tc_writer *w, int16_t id, int64_t v)
{
	pm_tcw_field(w, id, PM_TC_I64);
	pm_tcw_i64(w, v);
}

void pm_tcw_field_double(pm_tc_writer *w, int16_t id, double v)
{
	pm_tcw_field(w, id, PM_TC_DOUBLE);
	pm_tcw_double(w, v);
}

void pm_tcw_field_binary(pm_tc_writer *w, int16_t id, const void *p, size_t n)
{
	pm_tcw_field(w, id, PM_TC_BINARY);
	pm_tcw_binary(w, p, n);
}

void pm_tcw_field_string(pm_tc_writer *w, int16_t id, const char *s)
{
	pm_tcw_field_binary(w, id, s, strlen(s));
}

void pm_tcw_field_empty_struct(pm_tc_writer *w, int16_t id)
{
	pm_tcw_field(w, id, PM_TC_STRUCT);
	pm_tcw_struct_begin(w);
	pm_tcw_struct_end(w);
}

void pm_tcw_list_begin(pm_tc_writer *w, uint8_t et, uint32_t count)
{
	if (count < 15) {
		put_byte(w, (uint8_t)(count << 4 | et));
	} else {
		put_byte(w, (uint8_t)(0xf0 | et));
		pm_tcw_varint(w, count);
	}
}

void pm_tcw_map_begin(pm_tc_writer *w, uint8_t kt, uint8_t vt, uint32_t count)
{
	pm_tcw_varint(w, count);
	if (count)
		put_byte(w, (uint8_t)(kt << 4 | vt));
}

void pm_tcw_bool(pm_tc_writer *w, bool v) { put_byte(w, v ? 1 : 2); }
void pm_tcw_i8(pm_tc_writer *w, int8_t v) { put_byte(w, (uint8_t)v); }
void pm_tcw_i16(pm_tc_writer *w, int16_t v) { pm_tcw_varint(w, zigzag(v)); }
void pm_tcw_i32(pm_tc_writer *w, int32_t v) { pm_tcw_varint(w, zigzag(v)); }
void pm_tcw_i64(pm_tc_writer *w, int64_t v) { pm_tcw_varint(w, zigzag(v)); }

void pm_tcw_double(pm_tc_writer *w, double v)
{
	uint64_t u;
	uint8_t b[8];
	int i;
	memcpy(&u, &v, sizeof u);
	for (i = 0; i < 8; i++)
		b[i] = (uint8_t)(u >> (8 * i));
	put(w, b, 8);
}

void pm_tcw_binary(pm_tc_writer *w, const void *p, size_t n)
{
	pm_tcw_varint(w, n);
	if (n)
		put(w, p, n);
}

void pm_tcw_string(pm_tc_writer *w, const char *s)
{
	pm_tcw_binary(w, s, strlen(s));
}
