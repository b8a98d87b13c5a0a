/* types/datum.c - ordering, canonical text and Arrow access for single
 * values (see datum.h). */
#include "types/datum.h"

#include <math.h>
#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "paimonc/common.h"

int pm_datum_type_comparable(const pm_type *t)
{
	switch (t->root) {
	case PM_BOOLEAN: case PM_TINYINT: case PM_SMALLINT: case PM_INT: case PM_BIGINT:
	case PM_FLOAT: case PM_DOUBLE: case PM_DECIMAL: case PM_CHAR: case PM_VARCHAR:
	case PM_BINARY: case PM_VARBINARY: case PM_DATE: case PM_TIME: case PM_TIMESTAMP:
	case PM_TIMESTAMP_LTZ:
		return 1;
	default:
		return 0;
	}
}

static int cmp_i64(int64_t a, int64_t b) { return a < b ? -1 : a > b; }

/* Java Double.compare: -0.0 < 0.0, NaN equal to itself and above +inf. */
static int cmp_double(double a, double b)
{
	if (a < b)
		return -1;
	if (a > b)
		return 1;
	int an = isnan(a), bn = isnan(b);
	if (an || bn)
		return an - bn;
	int as = signbit(a) != 0, bs = signbit(b) != 0;
	return bs - as; /* equal magnitude: negative zero first */
}

static int cmp_bytes(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
	size_t n = an < bn ? an : bn;
	int c = n ? memcmp(a, b, n) : 0;
	if (c)
		return c < 0 ? -1 : 1;
	return an < bn ? -1 : an > bn;
}

/* Big-endian two's-complement integers of up to 16 bytes. */
static int cmp_be_signed(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
	uint8_t x[16], y[16];
	if (an > 16 || bn > 16)
		return cmp_bytes(a, an, b, bn);
	uint8_t xf = an && (a[0] & 0x80) ? 0xff : 0, yf = bn && (b[0] & 0x80) ? 0xff : 0;
	memset(x, xf, 16);
	memset(y, yf, 16);
	if (an)
		memcpy(x + 16 - an, a, an);
	if (bn)
		memcpy(y + 16 - bn, b, bn);
	if (xf != yf)
		return xf ? -1 : 1;
	int c = memcmp(x, y, 16);
	return c < 0 ? -1 : c > 0;
}

int pm_datum_compare(const pm_type *t, const pm_binrow_datum *a, const pm_binrow_datum *b)
{
	switch (t->root) {
	case PM_BOOLEAN:
		return cmp_i64(a->i != 0, b->i != 0);
	case PM_TINYINT: case PM_SMALLINT: case PM_INT: case PM_BIGINT:
	case PM_DATE: case PM_TIME:
		return cmp_i64(a->i, b->i);
	case PM_FLOAT:
		return cmp_double((double)a->f, (double)b->f);
	case PM_DOUBLE:
		return cmp_double(a->d, b->d);
	case PM_DECIMAL:
		if (t->precision <= 18)
			return cmp_i64(a->i, b->i);
		return cmp_be_signed(a->bytes.p, a->bytes.n, b->bytes.p, b->bytes.n);
	case PM_TIMESTAMP: case PM_TIMESTAMP_LTZ: {
		int c = cmp_i64(a->ts.millis, b->ts.millis);
		return c ? c : cmp_i64(a->ts.nano_of_milli, b->ts.nano_of_milli);
	}
	default:
		return cmp_bytes(a->bytes.p, a->bytes.n, b->bytes.p, b->bytes.n);
	}
}

int pm_datum_equal(const pm_type *t, const pm_binrow_datum *a, const pm_binrow_datum *b)
{
	if (a->is_null || b->is_null)
		return a->is_null && b->is_null;
	if (!pm_datum_type_comparable(t))
		return a->bytes.n == b->bytes.n && (a->bytes.n == 0 || memcmp(a->bytes.p, b->bytes.p, a->bytes.n) == 0);
	return pm_datum_compare(t, a, b) == 0;
}
