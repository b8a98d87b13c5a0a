/* types/binrow.c - Paimon BinaryRow encode/decode (spec §5). */
#include <string.h>
#include "core/error.h"
#include "core/mem.h"
#include "paimonc/common.h"
#include "types/binrow.h"

size_t pm_binrow_null_bytes(size_t arity)
{
	return ((arity + 63 + 8) / 64) * 8;
}

static void put_le64(uint8_t *p, uint64_t v)
{
	int i;
	for (i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;
	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

typedef enum { K_FIXED, K_BYTES, K_DEC_BIG, K_TS_BIG, K_NESTED, K_BAD } slot_kind;

static slot_kind kind_of(const pm_type *t)
{
	switch (t->root) {
	case PM_BOOLEAN: case PM_TINYINT: case PM_SMALLINT: case PM_INT: case PM_BIGINT:
	case PM_FLOAT: case PM_DOUBLE: case PM_DATE: case PM_TIME:
		return K_FIXED;
	case PM_DECIMAL:
		return t->precision <= 18 ? K_FIXED : K_DEC_BIG;
	case PM_TIMESTAMP: case PM_TIMESTAMP_LTZ:
		return t->precision <= 3 ? K_FIXED : K_TS_BIG;
	case PM_CHAR: case PM_VARCHAR: case PM_BINARY: case PM_VARBINARY: case PM_BLOB:
	case PM_GEOMETRY: case PM_GEOGRAPHY:
		return K_BYTES;
	case PM_ARRAY: case PM_MULTISET: case PM_MAP: case PM_ROW: case PM_VARIANT: case PM_VECTOR:
		return K_NESTED;
	}
	return K_BAD;
}

/* Appends n bytes to the variable part, zero-padded to 8; returns the offset. */
static int var_append(pm_buf *out, size_t row_start, const void *p, size_t n, size_t reserve,
		      uint64_t *off)
{
	size_t padded = ((n > reserve ? n : reserve) + 7) & ~(size_t)7;
	size_t o = out->len - row_start;
	int rc;
	if (o > UINT32_MAX || n > UINT32_MAX)
		return pm_err(PAIMON_EINVAL, "binrow: row larger than 4 GiB");
	if ((rc = pm_buf_reserve(out, padded)))
		return rc;
	if (n)
		memcpy(out->data + out->len, p, n);
	memset(out->data + out->len + n, 0, padded - n);
	out->len += padded;
	*off = o;
	return 0;
}

/* Minimal big-endian two's complement of a BE input (strips redundant sign bytes). */
static void minimal_be(const uint8_t **p, size_t *n)
{
	while (*n > 1 && (((*p)[0] == 0x00 && !((*p)[1] & 0x80)) || ((*p)[0] == 0xff && ((*p)[1] & 0x80)))) {
		(*p)++;
		(*n)--;
	}
}

int pm_binrow_encode(const pm_type *const *types, const pm_binrow_datum *vals, size_t arity, int row_kind,
		     int with_arity, pm_buf *out)
{
	size_t w = pm_binrow_null_bytes(arity), fixed = w + 8 * arity, start, i;
	int rc;
	if (arity > INT32_MAX / 8)
		return pm_err(PAIMON_EINVAL, "binrow: arity %zu too large", arity);
	if (with_arity) {
		uint8_t be[4] = {(uint8_t)(arity >> 24), (uint8_t)(arity >> 16), (uint8_t)(arity >> 8),
				 (uint8_t)arity};
		if ((rc = pm_buf_append(out, be, 4)))
			return rc;
	}
	start = out->len;
	if ((rc = pm_buf_reserve(out, fixed)))
		return rc;
	memset(out->data + start, 0, fixed);
	out->len += fixed;
	out->data[start] = (char)row_kind;
	for (i = 0; i < arity; i++) {
		const pm_type *t = types[i];
		const pm_binrow_datum *v = &vals[i];
		size_t slot = start + w + 8 * i;
		uint64_t s = 0, off = 0;
		slot_kind k = kind_of(t);
		if (k == K_BAD)
			return pm_err(PAIMON_EUNSUPPORTED, "binrow: field %zu has an unsupported type", i);
		if (v->is_null) {
			out->data[start + (i + 8) / 8] |= (char)(1u << ((i + 8) % 8));
			continue;
		}
		switch (k) {
		case K_FIXED:
			switch (t->root) {
			case PM_BOOLEAN: s = v->i ? 1 : 0; break;
			case PM_TINYINT: s = (uint8_t)(int8_t)v->i; break;
			case PM_SMALLINT: s = (uint16_t)(int16_t)v->i; break;
			case PM_INT: case PM_DATE: case PM_TIME: s = (uint32_t)(int32_t)v->i; break;
			case PM_FLOAT: {
				uint32_t u;
				memcpy(&u, &v->f, 4);
				s = u;
				break;
			}
			case PM_DOUBLE: memcpy(&s, &v->d, 8); break;
			case PM_TIMESTAMP: case PM_TIMESTAMP_LTZ: s = (uint64_t)v->ts.millis; break;
			default: s = (uint64_t)v->i; break; /* BIGINT, compact DECIMAL */
			}
			break;
		case K_BYTES:
			if (v->bytes.n <= 7) {
				uint8_t tmp[8] = {0};
				if (v->bytes.n)
					memcpy(tmp, v->bytes.p, v->bytes.n);
				tmp[7] = (uint8_t)(0x80 | v->bytes.n);
				memcpy(out->data + slot, tmp, 8);
				continue;
			}
			/* fallthrough */
		case K_NESTED:
			if ((rc = var_append(out, start, v->bytes.p, v->bytes.n, 0, &off)))
				return rc;
			s = off << 32 | (uint64_t)v->bytes.n;
			break;
		case K_DEC_BIG: {
			const uint8_t *p = v->bytes.p;
			size_t n = v->bytes.n;
			minimal_be(&p, &n);
			if (n == 0 || n > 16)
				return pm_err(PAIMON_EINVAL, "binrow: field %zu decimal needs 1..16 bytes, got %zu", i, n);
			if ((rc = var_append(out, start, p, n, 16, &off)))
				return rc;
			s = off << 32 | (uint64_t)n;
			break;
		}
		case K_TS_BIG: {
			uint8_t le[8];
			if (v->ts.nano_of_milli < 0 || v->ts.nano_of_milli > 999999)
				return pm_err(PAIMON_EINVAL, "binrow: field %zu nanoOfMillisecond %d out of range", i,
					      (int)v->ts.nano_of_milli);
			put_le64(le, (uint64_t)v->ts.millis);
			if ((rc = var_append(out, start, le, 8, 8, &off)))
				return rc;
			s = off << 32 | (uint64_t)v->ts.nano_of_milli;
			break;
		}
		case K_BAD:
			break;
		}
		put_le64((uint8_t *)out->data + slot, s);
	}
	return 0;
}

int pm_binrow_arity(const uint8_t *p, size_t n, int32_t *arity)
{
	if (n < 4)
		return pm_err(PAIMON_ECORRUPT, "binrow: %zu bytes, shorter than the arity prefix", n);
	*arity = (int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]);
	return 0;
}

int pm_binrow_decode(const uint8_t *p, size_t n, const pm_type *const *types, size_t arity, int with_arity,
		     pm_binrow_datum *vals, int *row_kind)
{
	size_t w = pm_binrow_null_bytes(arity), fixed, i;
	if (with_arity) {
		int32_t a = 0;
		int rc = pm_binrow_arity(p, n, &a);
		if (rc)
			return rc;
		if (a < 0 || (size_t)a != arity)
			return pm_err(PAIMON_ECORRUPT, "binrow: arity prefix %d, expected %zu", (int)a, arity);
		p += 4;
		n -= 4;
	}
	if (arity > (SIZE_MAX - w) / 8)
		return pm_err(PAIMON_ECORRUPT, "binrow: arity %zu too large", arity);
	fixed = w + 8 * arity;
	if (n < fixed)
		return pm_err(PAIMON_ECORRUPT, "binrow: %zu bytes, row of arity %zu needs at least %zu", n, arity,
			      fixed);
	if (row_kind)
		*row_kind = p[0];
	for (i = 0; i < arity; i++) {
		const pm_type *t = types[i];
		pm_binrow_datum *v = &vals[i];
		const uint8_t *slot = p + w + 8 * i;
		uint64_t s = get_le64(slot), off, len;
		slot_kind k = kind_of(t);
		memset(v, 0, sizeof *v);
		if (k == K_BAD)
			return pm_err(PAIMON_EUNSUPPORTED, "binrow: field %zu has an unsupported type", i);
		if (p[(i + 8) / 8] & (1u << ((i + 8) % 8))) {
			v->is_null = 1;
			continue;
		}
		switch (k) {
		case K_FIXED:
			switch (t->root) {
			case PM_BOOLEAN: v->i = slot[0] != 0; break;
			case PM_TINYINT: v->i = (int8_t)slot[0]; break;
			case PM_SMALLINT: v->i = (int16_t)(uint16_t)s; break;
			case PM_INT: case PM_DATE: case PM_TIME: v->i = (int32_t)(uint32_t)s; break;
			case PM_FLOAT: {
				uint32_t u = (uint32_t)s;
				memcpy(&v->f, &u, 4);
				break;
			}
			case PM_DOUBLE: memcpy(&v->d, &s, 8); break;
			case PM_TIMESTAMP: case PM_TIMESTAMP_LTZ: v->ts.millis = (int64_t)s; break;
			default: v->i = (int64_t)s; break;
			}
			continue;
		case K_BYTES:
			if (s >> 63) {
				len = (s >> 56) & 0x7f;
				if (len > 7)
					return pm_err(PAIMON_ECORRUPT, "binrow: field %zu inline length %u > 7", i,
						      (unsigned)len);
				v->bytes.p = slot;
				v->bytes.n = (size_t)len;
				continue;
			}
			/* fallthrough */
		case K_NESTED:
		case K_DEC_BIG:
			off = s >> 32;
			len = s & 0xffffffffu;
			if (off > n || len > n - off)
				return pm_err(PAIMON_ECORRUPT,
					      "binrow: field %zu points at [%llu, +%llu) outside the %zu-byte row", i,
					      (unsigned long long)off, (unsigned long long)len, n);
			if (k == K_DEC_BIG && (len == 0 || len > 16))
				return pm_err(PAIMON_ECORRUPT, "binrow: field %zu decimal length %llu", i,
					      (unsigned long long)len);
			v->bytes.p = p + off;
			v->bytes.n = (size_t)len;
			continue;
		case K_TS_BIG:
			off = s >> 32;
			len = s & 0xffffffffu;
			if (off > n || n - off < 8)
				return pm_err(PAIMON_ECORRUPT, "binrow: field %zu timestamp offset %llu outside the row",
					      i, (unsigned long long)off);
			if (len > 999999)
				return pm_err(PAIMON_ECORRUPT, "binrow: field %zu nanoOfMillisecond %llu", i,
					      (unsigned long long)len);
			v->ts.millis = (int64_t)get_le64(p + off);
			v->ts.nano_of_milli = (int32_t)len;
			continue;
		case K_BAD:
			break;
		}
	}
	return 0;
}
