/* types/datum.c - ordering, canonical text and Arrow access for single
 * values (see datum.h). */
#include "types/datum.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "paimonc/arrow_c.h"
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

/* ------------------------------------------------------------ calendar */

#define MS_PER_DAY 86400000LL

static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;
	if ((a % b) && ((a < 0) != (b < 0)))
		q--;
	return q;
}

static int64_t floor_mod(int64_t a, int64_t b)
{
	return a - floor_div(a, b) * b;
}

/* Days since 1970-01-01 of a proleptic Gregorian date. */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = floor_div(y, 400);
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
	z += 719468;
	int64_t era = floor_div(z, 146097);
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

static int is_leap(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int month_days(int64_t y, int m)
{
	static const int md[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	return m == 2 && is_leap(y) ? 29 : md[m - 1];
}

/* ------------------------------------------------------------ text in */

typedef struct cursor {
	const char *p, *end;
} cursor;

static int cur_digits(cursor *c, int min, int max, int64_t *v)
{
	int n = 0;
	int64_t x = 0;
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9' && n < max) {
		x = x * 10 + (*c->p - '0');
		c->p++;
		n++;
	}
	if (n < min)
		return -1;
	*v = x;
	return n;
}

static int cur_eat(cursor *c, char ch)
{
	if (c->p < c->end && *c->p == ch) {
		c->p++;
		return 1;
	}
	return 0;
}

/* [+-]digits, whole text; 0 ok, -1 not an integer, -2 overflow. */
static int parse_int(const char *p, size_t n, int64_t *out)
{
	size_t i = 0;
	int neg = 0;
	uint64_t v = 0;
	if (i < n && (p[i] == '+' || p[i] == '-'))
		neg = p[i++] == '-';
	if (i >= n)
		return -1;
	for (; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return -1;
		uint64_t dgt = (uint64_t)(p[i] - '0');
		if (v > (UINT64_MAX - dgt) / 10)
			return -2;
		v = v * 10 + dgt;
	}
	if (neg) {
		if (v > (uint64_t)INT64_MAX + 1)
			return -2;
		*out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
	} else {
		if (v > (uint64_t)INT64_MAX)
			return -2;
		*out = (int64_t)v;
	}
	return 0;
}

/* [+-]Y{1,7}-MM-DD -> days: seven year digits so that every INT32 day count
 * (about +-5.8 million years) that put_date prints parses back. */
static int cur_date(cursor *c, int64_t *days)
{
	int neg = 0;
	int64_t y, m, d;
	if (c->p < c->end && (*c->p == '+' || *c->p == '-'))
		neg = *c->p++ == '-';
	if (cur_digits(c, 1, 7, &y) < 0 || !cur_eat(c, '-') || cur_digits(c, 1, 2, &m) < 0 || !cur_eat(c, '-') ||
	    cur_digits(c, 1, 2, &d) < 0)
		return -1;
	if (neg)
		y = -y;
	if (m < 1 || m > 12 || d < 1 || d > month_days(y, (int)m))
		return -1;
	*days = days_from_civil(y, (int)m, (int)d);
	return 0;
}

/* HH:MM[:SS[.f{1,9}]] -> nanos of the day. */
static int cur_time(cursor *c, int64_t *nanos)
{
	int64_t h, mi, s = 0, frac = 0;
	int nf = 0;
	if (cur_digits(c, 1, 2, &h) < 0 || !cur_eat(c, ':') || cur_digits(c, 2, 2, &mi) < 0)
		return -1;
	if (cur_eat(c, ':')) {
		if (cur_digits(c, 2, 2, &s) < 0)
			return -1;
		if (cur_eat(c, '.')) {
			if ((nf = cur_digits(c, 1, 9, &frac)) < 0)
				return -1;
			for (int k = nf; k < 9; k++)
				frac *= 10;
		}
	}
	if (h > 23 || mi > 59 || s > 59)
		return -1;
	*nanos = ((h * 60 + mi) * 60 + s) * 1000000000LL + frac;
	return 0;
}

/* Decimal text -> unscaled value at scale s with at most p digits. */
static int parse_decimal(const char *p, size_t n, int prec, int scale, __int128 *out)
{
	size_t i = 0;
	int neg = 0, int_digits = 0, frac_digits = 0, any = 0;
	__int128 v = 0;
	if (i < n && (p[i] == '+' || p[i] == '-'))
		neg = p[i++] == '-';
	for (; i < n && p[i] >= '0' && p[i] <= '9'; i++) {
		any = 1;
		if (v == 0 && p[i] == '0')
			continue; /* leading zeros */
		if (++int_digits > 38)
			return -1;
		v = v * 10 + (p[i] - '0');
	}
	if (i < n && p[i] == '.') {
		i++;
		for (; i < n && p[i] >= '0' && p[i] <= '9'; i++) {
			any = 1;
			if (frac_digits < scale) {
				if (int_digits + frac_digits >= 38)
					return -1; /* more digits than any DECIMAL holds */
				v = v * 10 + (p[i] - '0');
				frac_digits++;
			} else if (p[i] != '0') {
				return -1; /* not exact at this scale */
			}
		}
	}
	if (!any || i != n)
		return -1;
	if (int_digits > prec - scale)
		return -1;
	for (; frac_digits < scale; frac_digits++)
		v *= 10;
	*out = neg ? -v : v;
	return 0;
}

/* Minimal big-endian two's complement (Java BigInteger.toByteArray). */
static size_t i128_to_be(__int128 v, uint8_t out[16])
{
	uint8_t full[16];
	unsigned __int128 u = (unsigned __int128)v;
	for (int k = 15; k >= 0; k--) {
		full[k] = (uint8_t)(u & 0xff);
		u >>= 8;
	}
	size_t start = 0;
	while (start < 15) {
		if (full[start] == 0x00 && !(full[start + 1] & 0x80))
			start++;
		else if (full[start] == 0xff && (full[start + 1] & 0x80))
			start++;
		else
			break;
	}
	memcpy(out, full + start, 16 - start);
	return 16 - start;
}

static int be_to_i128(const uint8_t *p, size_t n, __int128 *out)
{
	if (n > 16)
		return -1;
	unsigned __int128 u = n && (p[0] & 0x80) ? ~(unsigned __int128)0 : 0;
	for (size_t k = 0; k < n; k++)
		u = (u << 8) | p[k];
	*out = (__int128)u;
	return 0;
}

static int bad_text(const pm_type *t, const char *text, size_t len, const char *why)
{
	pm_buf b = PM_BUF_INIT;
	if (pm_type_to_string(t, &b))
		pm_buf_clear(&b);
	int shown = len > 200 ? 200 : (int)len;
	int rc = pm_err(PAIMON_EINVAL, "invalid %s literal '%.*s'%s%s%s", b.len ? pm_buf_cstr(&b) : "value", shown,
			text, len > 200 ? "..." : "", why ? ": " : "", why ? why : "");
	pm_buf_dispose(&b);
	return rc;
}

static int ieq(const char *p, size_t n, const char *lit)
{
	size_t k;
	if (strlen(lit) != n)
		return 0;
	for (k = 0; k < n; k++) {
		char c = p[k];
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (c != lit[k])
			return 0;
	}
	return 1;
}

int pm_datum_from_text(const pm_type *t, const char *text, size_t len, pm_binrow_datum *out,
		       uint8_t **owned)
{
	int64_t v;
	int r;
	memset(out, 0, sizeof *out);
	*owned = NULL;
	if (!text)
		return bad_text(t, "", 0, "no text");
	switch (t->root) {
	case PM_BOOLEAN:
		if (ieq(text, len, "true") || (len == 1 && text[0] == '1'))
			out->i = 1;
		else if (ieq(text, len, "false") || (len == 1 && text[0] == '0'))
			out->i = 0;
		else
			return bad_text(t, text, len, "expected true or false");
		return 0;
	case PM_TINYINT: case PM_SMALLINT: case PM_INT: case PM_BIGINT: {
		int64_t lo = t->root == PM_TINYINT ? INT8_MIN : t->root == PM_SMALLINT ? INT16_MIN
			: t->root == PM_INT ? INT32_MIN : INT64_MIN;
		int64_t hi = t->root == PM_TINYINT ? INT8_MAX : t->root == PM_SMALLINT ? INT16_MAX
			: t->root == PM_INT ? INT32_MAX : INT64_MAX;
		r = parse_int(text, len, &v);
		if (r == -1)
			return bad_text(t, text, len, "not an integer");
		if (r == -2 || v < lo || v > hi)
			return bad_text(t, text, len, "out of range");
		out->i = v;
		return 0;
	}
	case PM_FLOAT: case PM_DOUBLE: {
		char tmp[128];
		char *end;
		if (len == 0 || len >= sizeof tmp || memchr(text, '\0', len))
			return bad_text(t, text, len, "not a number");
		memcpy(tmp, text, len);
		tmp[len] = 0;
		if (tmp[0] == ' ' || tmp[0] == '\t' || tmp[0] == '\n' || tmp[0] == '\r' || tmp[0] == '\f' ||
		    tmp[0] == '\v')
			return bad_text(t, text, len, "not a number");
		if (t->root == PM_FLOAT) {
			out->f = strtof(tmp, &end);
			out->d = out->f;
		} else {
			out->d = strtod(tmp, &end);
		}
		if (end != tmp + len)
			return bad_text(t, text, len, "not a number");
		return 0;
	}
	case PM_DECIMAL: {
		__int128 u;
		if (parse_decimal(text, len, t->precision, t->scale, &u))
			return bad_text(t, text, len, "not a decimal that fits the precision and scale exactly");
		if (t->precision <= 18) {
			out->i = (int64_t)u;
			return 0;
		}
		uint8_t *b = pm_malloc(16);
		if (!b)
			return PAIMON_ENOMEM;
		out->bytes.n = i128_to_be(u, b);
		out->bytes.p = b;
		*owned = b;
		return 0;
	}
	case PM_DATE: {
		cursor c = {text, text + len};
		if (parse_int(text, len, &v) == 0) {
			if (v < INT32_MIN || v > INT32_MAX)
				return bad_text(t, text, len, "out of range");
			out->i = v;
			return 0;
		}
		if (cur_date(&c, &v) || c.p != c.end)
			return bad_text(t, text, len, "expected YYYY-MM-DD");
		if (v < INT32_MIN || v > INT32_MAX)
			return bad_text(t, text, len, "out of range");
		out->i = v;
		return 0;
	}
	case PM_TIME: {
		cursor c = {text, text + len};
		if (parse_int(text, len, &v) == 0) {
			if (v < 0 || v >= MS_PER_DAY)
				return bad_text(t, text, len, "out of range");
			out->i = v;
			return 0;
		}
		if (cur_time(&c, &v) || c.p != c.end)
			return bad_text(t, text, len, "expected HH:MM:SS[.fff]");
		if (v % 1000000)
			return bad_text(t, text, len, "TIME keeps milliseconds only");
		out->i = v / 1000000;
		return 0;
	}
	case PM_TIMESTAMP: case PM_TIMESTAMP_LTZ: {
		cursor c = {text, text + len};
		int64_t days, nanos = 0;
		if (parse_int(text, len, &v) == 0) {
			out->ts.millis = v;
			out->ts.nano_of_milli = 0;
			return 0;
		}
		if (cur_date(&c, &days))
			return bad_text(t, text, len, "expected YYYY-MM-DD HH:MM:SS[.fffffffff]");
		if (c.p < c.end) {
			if (!cur_eat(&c, ' ') && !cur_eat(&c, 'T'))
				return bad_text(t, text, len, "expected YYYY-MM-DD HH:MM:SS[.fffffffff]");
			if (cur_time(&c, &nanos) || c.p != c.end)
				return bad_text(t, text, len, "expected YYYY-MM-DD HH:MM:SS[.fffffffff]");
		}
		out->ts.millis = days * MS_PER_DAY + nanos / 1000000;
		out->ts.nano_of_milli = (int32_t)(nanos % 1000000);
		return 0;
	}
	case PM_CHAR: case PM_VARCHAR: case PM_BINARY: case PM_VARBINARY:
		if (len == 0) {
			out->bytes.p = (const uint8_t *)"";
			out->bytes.n = 0;
			return 0;
		} else {
			uint8_t *b = pm_malloc(len);
			if (!b)
				return PAIMON_ENOMEM;
			memcpy(b, text, len);
			out->bytes.p = b;
			out->bytes.n = len;
			*owned = b;
			return 0;
		}
	default:
		return bad_text(t, text, len, "type has no literal form");
	}
}

/* ------------------------------------------------------------ text out */

static int put_shortest_double(pm_buf *out, double d, int is_float)
{
	char tmp[64];
	if (isnan(d))
		return pm_buf_puts(out, "nan");
	if (isinf(d))
		return pm_buf_puts(out, d < 0 ? "-inf" : "inf");
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(tmp, sizeof tmp, "%.*g", prec, d);
		if (is_float ? strtof(tmp, NULL) == (float)d : strtod(tmp, NULL) == d)
			break;
	}
	return pm_buf_puts(out, tmp);
}

static int put_date(pm_buf *out, int64_t days)
{
	int64_t y;
	int m, d;
	civil_from_days(days, &y, &m, &d);
	if (y > 9999)
		return pm_buf_printf(out, "+%lld-%02d-%02d", (long long)y, m, d);
	if (y < 0)
		return pm_buf_printf(out, "-%04lld-%02d-%02d", (long long)-y, m, d);
	return pm_buf_printf(out, "%04lld-%02d-%02d", (long long)y, m, d);
}

/* HH:MM:SS[.f] from nanos of the day, fraction without trailing zeros. */
static int put_time(pm_buf *out, int64_t nanos)
{
	int64_t secs = nanos / 1000000000LL, frac = nanos % 1000000000LL;
	int rc = pm_buf_printf(out, "%02d:%02d:%02d", (int)(secs / 3600), (int)(secs / 60 % 60), (int)(secs % 60));
	if (rc || !frac)
		return rc;
	char f[16];
	snprintf(f, sizeof f, "%09lld", (long long)frac);
	int n = 9;
	while (n > 0 && f[n - 1] == '0')
		n--;
	f[n] = 0;
	return pm_buf_printf(out, ".%s", f);
}

static int put_i128(pm_buf *out, __int128 v, int scale)
{
	char tmp[64];
	int n = 0, neg = v < 0;
	unsigned __int128 u = neg ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
	do {
		tmp[n++] = (char)('0' + (int)(u % 10));
		u /= 10;
	} while (u);
	while (n <= scale)
		tmp[n++] = '0';
	int rc = 0;
	if (neg)
		rc = pm_buf_putc(out, '-');
	for (int k = n - 1; !rc && k >= 0; k--) {
		rc = pm_buf_putc(out, tmp[k]);
		if (!rc && k == scale && scale > 0)
			rc = pm_buf_putc(out, '.');
	}
	return rc;
}

int pm_datum_to_text(const pm_type *t, const pm_binrow_datum *d, pm_buf *out)
{
	switch (t->root) {
	case PM_BOOLEAN:
		return pm_buf_puts(out, d->i ? "true" : "false");
	case PM_TINYINT: case PM_SMALLINT: case PM_INT: case PM_BIGINT:
		return pm_buf_printf(out, "%lld", (long long)d->i);
	case PM_FLOAT:
		return put_shortest_double(out, (double)d->f, 1);
	case PM_DOUBLE:
		return put_shortest_double(out, d->d, 0);
	case PM_DECIMAL: {
		__int128 v;
		if (t->precision <= 18)
			v = d->i;
		else if (be_to_i128(d->bytes.p, d->bytes.n, &v))
			return pm_err(PAIMON_EINVAL, "DECIMAL(%d, %d) value of %zu bytes is too long", (int)t->precision,
				      (int)t->scale, d->bytes.n);
		return put_i128(out, v, t->scale);
	}
	case PM_DATE:
		return put_date(out, d->i);
	case PM_TIME:
		if (d->i < 0 || d->i >= MS_PER_DAY)
			return pm_buf_printf(out, "%lld", (long long)d->i);
		return put_time(out, d->i * 1000000LL);
	case PM_TIMESTAMP: case PM_TIMESTAMP_LTZ: {
		int64_t ms = d->ts.millis;
		int32_t nom = d->ts.nano_of_milli;
		if (nom < 0 || nom > 999999 || ms < -(INT64_C(1) << 53) * 1000 || ms > (INT64_C(1) << 53) * 1000)
			return pm_buf_printf(out, "%lld", (long long)ms); /* unprintable as a date */
		int64_t days = floor_div(ms, MS_PER_DAY), msod = floor_mod(ms, MS_PER_DAY);
		int64_t y;
		int m, dd;
		civil_from_days(days, &y, &m, &dd);
		if (y < -999999 || y > 999999)
			return pm_buf_printf(out, "%lld", (long long)ms);
		int rc = put_date(out, days);
		if (!rc)
			rc = pm_buf_putc(out, ' ');
		if (!rc)
			rc = put_time(out, msod * 1000000LL + nom);
		return rc;
	}
	case PM_CHAR: case PM_VARCHAR: case PM_BINARY: case PM_VARBINARY:
		return d->bytes.n ? pm_buf_append(out, d->bytes.p, d->bytes.n) : 0;
	default: {
		pm_buf b = PM_BUF_INIT;
		int rc = pm_type_to_string(t, &b);
		if (!rc)
			rc = pm_err(PAIMON_EUNSUPPORTED, "type %s has no literal form", pm_buf_cstr(&b));
		pm_buf_dispose(&b);
		return rc;
	}
	}
}

/* ------------------------------------------------------------ Arrow */

static int bad_arrow(const pm_type *t, const struct ArrowSchema *s, const char *why)
{
	pm_buf b = PM_BUF_INIT;
	if (pm_type_to_string(t, &b))
		pm_buf_clear(&b);
	int rc = pm_err(PAIMON_EINVAL, "Arrow format '%s' of column '%s' does not fit %s%s%s", s->format ? s->format : "",
			s->name ? s->name : "", b.len ? pm_buf_cstr(&b) : "its type", why ? ": " : "", why ? why : "");
	pm_buf_dispose(&b);
	return rc;
}

static int64_t rd_i(const void *buf, int width, int64_t i)
{
	switch (width) {
	case 1: return ((const int8_t *)buf)[i];
	case 2: { int16_t v; memcpy(&v, (const uint8_t *)buf + 2 * i, 2); return v; }
	case 4: { int32_t v; memcpy(&v, (const uint8_t *)buf + 4 * i, 4); return v; }
	default: { int64_t v; memcpy(&v, (const uint8_t *)buf + 8 * i, 8); return v; }
	}
}

/* Parses "d:P,S[,BW]"; 0 ok. */
static int parse_dec_format(const char *f, int *p, int *s, int *bw)
{
	char *end;
	if (strncmp(f, "d:", 2) != 0)
		return -1;
	long pp = strtol(f + 2, &end, 10);
	if (*end != ',')
		return -1;
	long ss = strtol(end + 1, &end, 10);
	long w = 128;
	if (*end == ',')
		w = strtol(end + 1, &end, 10);
	if (*end || pp < 1 || pp > 76 || ss < -76 || ss > 76)
		return -1;
	*p = (int)pp;
	*s = (int)ss;
	*bw = (int)w;
	return 0;
}

static _Thread_local uint8_t tl_dec_scratch[16];

int pm_datum_from_arrow_scratch(const pm_type *t, const struct ArrowSchema *s, const struct ArrowArray *a,
				int64_t row, pm_binrow_datum *out, uint8_t scratch[16])
{
	const char *f = s->format ? s->format : "";
	memset(out, 0, sizeof *out);
	if (row < 0 || row >= a->length)
		return pm_err(PAIMON_EINVAL, "row %lld outside the Arrow array of column '%s' (length %lld)",
			      (long long)row, s->name ? s->name : "", (long long)a->length);
	int64_t i = a->offset + row;
	if (a->n_buffers >= 1 && a->buffers && a->buffers[0] && a->null_count != 0) {
		const uint8_t *bits = a->buffers[0];
		if (!((bits[i >> 3] >> (i & 7)) & 1)) {
			out->is_null = 1;
			return 0;
		}
	}
	if (strcmp(f, "n") == 0) {
		out->is_null = 1;
		return 0;
	}
	if (a->n_buffers < 2 || !a->buffers)
		return bad_arrow(t, s, "missing buffers");
	const void *vals = a->buffers[1];
	switch (t->root) {
	case PM_BOOLEAN:
		if (strcmp(f, "b"))
			return bad_arrow(t, s, NULL);
		out->i = (((const uint8_t *)vals)[i >> 3] >> (i & 7)) & 1;
		return 0;
	case PM_TINYINT: case PM_SMALLINT: case PM_INT: case PM_BIGINT: {
		static const char fm[] = {'c', 's', 'i', 'l'};
		static const int w[] = {1, 2, 4, 8};
		int k = t->root - PM_TINYINT;
		if (f[0] != fm[k] || f[1])
			return bad_arrow(t, s, NULL);
		out->i = rd_i(vals, w[k], i);
		return 0;
	}
	case PM_FLOAT:
		if (strcmp(f, "f"))
			return bad_arrow(t, s, NULL);
		memcpy(&out->f, (const uint8_t *)vals + 4 * i, 4);
		out->d = out->f;
		return 0;
	case PM_DOUBLE:
		if (strcmp(f, "g"))
			return bad_arrow(t, s, NULL);
		memcpy(&out->d, (const uint8_t *)vals + 8 * i, 8);
		return 0;
	case PM_DECIMAL: {
		int p, sc, bw;
		if (parse_dec_format(f, &p, &sc, &bw) || bw != 128)
			return bad_arrow(t, s, NULL);
		if (sc != t->scale)
			return bad_arrow(t, s, "different scale");
		const uint8_t *le = (const uint8_t *)vals + 16 * i;
		unsigned __int128 u = 0;
		for (int k = 15; k >= 0; k--)
			u = (u << 8) | le[k];
		__int128 v = (__int128)u;
		if (t->precision <= 18) {
			if (v < INT64_MIN || v > INT64_MAX)
				return bad_arrow(t, s, "value out of range");
			out->i = (int64_t)v;
			return 0;
		}
		out->bytes.n = i128_to_be(v, scratch);
		out->bytes.p = scratch;
		return 0;
	}
	case PM_DATE:
		if (strcmp(f, "tdD") == 0) {
			out->i = rd_i(vals, 4, i);
			return 0;
		}
		if (strcmp(f, "tdm") == 0) {
			out->i = floor_div(rd_i(vals, 8, i), MS_PER_DAY);
			return 0;
		}
		return bad_arrow(t, s, NULL);
	case PM_TIME:
		if (strcmp(f, "tts") == 0)
			out->i = rd_i(vals, 4, i) * 1000;
		else if (strcmp(f, "ttm") == 0)
			out->i = rd_i(vals, 4, i);
		else if (strcmp(f, "ttu") == 0)
			out->i = floor_div(rd_i(vals, 8, i), 1000);
		else if (strcmp(f, "ttn") == 0)
			out->i = floor_div(rd_i(vals, 8, i), 1000000);
		else
			return bad_arrow(t, s, NULL);
		return 0;
	case PM_TIMESTAMP: case PM_TIMESTAMP_LTZ: {
		if (strncmp(f, "ts", 2) != 0 || !f[2] || f[3] != ':')
			return bad_arrow(t, s, NULL);
		int64_t v = rd_i(vals, 8, i);
		switch (f[2]) {
		case 's': out->ts.millis = v * 1000; break;
		case 'm': out->ts.millis = v; break;
		case 'u':
			out->ts.millis = floor_div(v, 1000);
			out->ts.nano_of_milli = (int32_t)(floor_mod(v, 1000) * 1000);
			break;
		case 'n':
			out->ts.millis = floor_div(v, 1000000);
			out->ts.nano_of_milli = (int32_t)floor_mod(v, 1000000);
			break;
		default:
			return bad_arrow(t, s, NULL);
		}
		return 0;
	}
	case PM_CHAR: case PM_VARCHAR: case PM_BINARY: case PM_VARBINARY:
		/* utf8/binary (32-bit offsets), large_utf8/large_binary (64-bit) */
		if ((f[0] == 'u' || f[0] == 'z' || f[0] == 'U' || f[0] == 'Z') && !f[1]) {
			int ow = f[0] == 'U' || f[0] == 'Z' ? 8 : 4;
			if (a->n_buffers < 3)
				return bad_arrow(t, s, "missing buffers");
			int64_t o0 = rd_i(vals, ow, i), o1 = rd_i(vals, ow, i + 1);
			if (o1 < o0)
				return bad_arrow(t, s, "decreasing offsets");
			out->bytes.p = o1 > o0 ? (const uint8_t *)a->buffers[2] + o0 : (const uint8_t *)"";
			out->bytes.n = (size_t)(o1 - o0);
			return 0;
		}
		if (f[0] == 'w' && f[1] == ':') {
			char *end;
			long w = strtol(f + 2, &end, 10);
			if (*end || w < 0)
				return bad_arrow(t, s, NULL);
			out->bytes.p = w ? (const uint8_t *)vals + (size_t)w * (size_t)i : (const uint8_t *)"";
			out->bytes.n = (size_t)w;
			return 0;
		}
		return bad_arrow(t, s, NULL);
	default:
		return bad_arrow(t, s, "type has no single-value form");
	}
}

int pm_datum_from_arrow(const pm_type *t, const struct ArrowSchema *s, const struct ArrowArray *a,
			int64_t row, pm_binrow_datum *out)
{
	return pm_datum_from_arrow_scratch(t, s, a, row, out, tl_dec_scratch);
}
