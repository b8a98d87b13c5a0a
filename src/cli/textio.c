/*
 * textio.c - text <-> Arrow conversion for `paimonc write` / `paimonc read`
 * (conventions in textio.h).
 */
#include "textio.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static int verr(tio_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int verr(tio_err *e, const char *fmt, ...)
{
	va_list ap;
	if (e) {
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof e->msg, fmt, ap);
		va_end(ap);
	}
	return TIO_EVALUE;
}

/* ================================================================ scalars */

static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era;
	unsigned yoe, doy, doe;
	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	int64_t era;
	unsigned doe, yoe, doy, mp;
	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = (unsigned)(z - era * 146097);
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	*y = (int64_t)yoe + era * 400;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y += *m <= 2;
}

static int is_leap(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* Reads exactly `count` digits at *p. */
static int digits(const char **p, const char *end, int count, int64_t *out)
{
	int64_t v = 0;
	int i;
	for (i = 0; i < count; i++) {
		if (*p >= end || (unsigned)(**p - '0') > 9)
			return -1;
		v = v * 10 + (**p - '0');
		(*p)++;
	}
	*out = v;
	return 0;
}

/* "[-]YYYY-MM-DD" at *p. */
static int parse_date_at(const char **p, const char *end, int64_t *days)
{
	int neg = 0;
	int64_t y, m, d;
	const char *q;
	unsigned mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	if (*p < end && (**p == '-' || **p == '+')) {
		neg = **p == '-';
		(*p)++;
	}
	/* 4 to 6 year digits */
	q = *p;
	while (q < end && (unsigned)(*q - '0') <= 9)
		q++;
	if (q - *p < 4 || q - *p > 6 || digits(p, end, (int)(q - *p), &y) < 0)
		return -1;
	if (neg)
		y = -y;
	if (*p >= end || **p != '-' || (++*p, digits(p, end, 2, &m)) < 0 || *p >= end || **p != '-' ||
	    (++*p, digits(p, end, 2, &d)) < 0)
		return -1;
	if (m < 1 || m > 12 || d < 1)
		return -1;
	if (d > (int64_t)mdays[m - 1] + (m == 2 && is_leap(y)))
		return -1;
	*days = days_from_civil(y, (unsigned)m, (unsigned)d);
	return 0;
}

int tio_parse_date(const char *s, size_t n, int32_t *days)
{
	const char *p = s, *end = s + n;
	int64_t d;
	if (parse_date_at(&p, end, &d) < 0 || p != end || d < INT32_MIN || d > INT32_MAX)
		return -1;
	*days = (int32_t)d;
	return 0;
}

/* "HH:MM[:SS[.f+]]" at *p -> value in units of 1/per_sec. */
static int parse_time_at(const char **p, const char *end, int64_t per_sec, int64_t *out)
{
	int64_t h, m, sec = 0, frac = 0, scale = per_sec;
	if (digits(p, end, 2, &h) < 0 || *p >= end || **p != ':' || (++*p, digits(p, end, 2, &m)) < 0)
		return -1;
	if (*p < end && **p == ':') {
		++*p;
		if (digits(p, end, 2, &sec) < 0)
			return -1;
		if (*p < end && **p == '.') {
			int nd = 0;
			++*p;
			while (*p < end && (unsigned)(**p - '0') <= 9) {
				int dg = **p - '0';
				if (scale > 1) {
					scale /= 10;
					frac += dg * scale;
				} else if (dg != 0) {
					return -2; /* more precision than the unit holds */
				}
				nd++;
				++*p;
			}
			if (nd == 0 || nd > 9)
				return -1;
		}
	}
	if (h > 23 || m > 59 || sec > 59)
		return -1;
	*out = ((h * 60 + m) * 60 + sec) * per_sec + frac;
	return 0;
}

int tio_parse_time(const char *s, size_t n, int64_t per_sec, int64_t *out)
{
	const char *p = s, *end = s + n;
	int rc = parse_time_at(&p, end, per_sec, out);
	if (rc < 0)
		return rc;
	return p == end ? 0 : -1;
}

int tio_parse_timestamp(const char *s, size_t n, int64_t per_sec, int64_t *out)
{
	const char *p = s, *end = s + n;
	int64_t days, tod = 0;
	int rc;
	if (n > 0 && s[n - 1] == 'Z')
		end--;
	if (parse_date_at(&p, end, &days) < 0)
		return -1;
	if (p < end) {
		if (*p != ' ' && *p != 'T')
			return -1;
		p++;
		if ((rc = parse_time_at(&p, end, per_sec, &tod)) < 0)
			return rc;
	}
	if (p != end)
		return -1;
	/* overflow: days * 86400 * per_sec */
	if (days > INT64_MAX / 86400 / per_sec || days < INT64_MIN / 86400 / per_sec + 1)
		return -1;
	*out = days * 86400 * per_sec + tod;
	return 0;
}

/* v * 10 + 9 still fits an __int128 (past it the value has more than 38
 * digits: more than any DECIMAL precision). */
static int mul10_fits(__int128 v)
{
	const __int128 max = (__int128)(((unsigned __int128)1 << 127) - 1);
	return v <= (max - 9) / 10;
}

int tio_parse_decimal(const char *s, size_t n, int precision, int scale, __int128 *out)
{
	const char *p = s, *end = s + n;
	int neg = 0, nint = 0, nfrac = 0, sig = 0, any = 0;
	__int128 v = 0;
	if (p < end && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	while (p < end && (unsigned)(*p - '0') <= 9) {
		if (v != 0 || *p != '0')
			sig++;
		if (sig > 38)
			return -1;
		v = v * 10 + (*p - '0');
		nint++;
		any = 1;
		p++;
	}
	if (p < end && *p == '.') {
		p++;
		while (p < end && (unsigned)(*p - '0') <= 9) {
			any = 1;
			if (nfrac < scale) {
				if (sig > 38)
					return -1;
				if (!mul10_fits(v))
					return -3;
				v = v * 10 + (*p - '0');
				nfrac++;
			} else if (*p != '0') {
				return -2; /* more fraction digits than the scale */
			}
			p++;
		}
	}
	if (!any || p != end)
		return -1;
	(void)nint;
	while (nfrac < scale) {
		if (!mul10_fits(v))
			return -3; /* beyond 38 digits: over every precision */
		v *= 10;
		nfrac++;
	}
	/* precision check: |v| < 10^precision */
	{
		__int128 lim = 1;
		int i;
		for (i = 0; i < precision && i < 38; i++)
			lim *= 10;
		if (v >= lim)
			return -3;
	}
	*out = neg ? -v : v;
	return 0;
}

static int b64_val(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+' || c == '-')
		return 62;
	if (c == '/' || c == '_')
		return 63;
	return -1;
}

int tio_base64_decode(const char *s, size_t n, uint8_t **out, size_t *outlen)
{
	uint8_t *o;
	size_t i, k = 0, nbits = 0;
	uint32_t acc = 0;
	while (n > 0 && s[n - 1] == '=')
		n--;
	if (n % 4 == 1)
		return -1;
	o = malloc(n / 4 * 3 + 3);
	if (!o)
		return TIO_ENOMEM;
	for (i = 0; i < n; i++) {
		int v = b64_val(s[i]);
		if (v < 0) {
			free(o);
			return -1;
		}
		acc = (acc << 6) | (uint32_t)v;
		nbits += 6;
		if (nbits >= 8) {
			nbits -= 8;
			o[k++] = (uint8_t)(acc >> nbits);
		}
	}
	*out = o;
	*outlen = k;
	return 0;
}

static int base64_encode(tio_str *out, const uint8_t *p, size_t n);

int tio_base64_encode(tio_str *out, const uint8_t *p, size_t n)
{
	return base64_encode(out, p, n);
}

static int base64_encode(tio_str *out, const uint8_t *p, size_t n)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i;
	char q[4];
	for (i = 0; i + 3 <= n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
		q[0] = tab[v >> 18];
		q[1] = tab[(v >> 12) & 63];
		q[2] = tab[(v >> 6) & 63];
		q[3] = tab[v & 63];
		if (tio_str_put(out, q, 4) < 0)
			return TIO_ENOMEM;
	}
	if (i < n) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0);
		q[0] = tab[v >> 18];
		q[1] = tab[(v >> 12) & 63];
		q[2] = i + 1 < n ? tab[(v >> 6) & 63] : '=';
		q[3] = '=';
		if (tio_str_put(out, q, 4) < 0)
			return TIO_ENOMEM;
	}
	return 0;
}

void tio_format_date(char *buf, size_t size, int32_t days)
{
	int64_t y;
	unsigned m, d;
	civil_from_days(days, &y, &m, &d);
	if (y < 0)
		snprintf(buf, size, "-%04" PRId64 "-%02u-%02u", -y, m, d);
	else
		snprintf(buf, size, "%04" PRId64 "-%02u-%02u", y, m, d);
}

static int frac_digits(int64_t per_sec)
{
	return per_sec == 1 ? 0 : per_sec == 1000 ? 3 : per_sec == 1000000 ? 6 : 9;
}

static void format_tod(char *buf, size_t size, int64_t tod, int64_t per_sec)
{
	int64_t secs = tod / per_sec, frac = tod % per_sec;
	int nd = frac_digits(per_sec);
	if (nd)
		snprintf(buf, size, "%02d:%02d:%02d.%0*" PRId64, (int)(secs / 3600), (int)(secs / 60 % 60),
			 (int)(secs % 60), nd, frac);
	else
		snprintf(buf, size, "%02d:%02d:%02d", (int)(secs / 3600), (int)(secs / 60 % 60), (int)(secs % 60));
}

void tio_format_time(char *buf, size_t size, int64_t v, int64_t per_sec)
{
	if (v < 0 || v >= 86400 * per_sec) {
		snprintf(buf, size, "%" PRId64, v);
		return;
	}
	format_tod(buf, size, v, per_sec);
}

void tio_format_timestamp(char *buf, size_t size, int64_t v, int64_t per_sec)
{
	int64_t per_day = 86400 * per_sec, days = v / per_day, tod = v % per_day;
	size_t k;
	if (tod < 0) {
		tod += per_day;
		days--;
	}
	tio_format_date(buf, size, (int32_t)days);
	k = strlen(buf);
	if (k + 1 < size) {
		buf[k++] = ' ';
		format_tod(buf + k, size - k, tod, per_sec);
	}
}

void tio_format_decimal(char *buf, size_t size, __int128 v, int scale)
{
	char dg[64];
	int nd = 0, neg = v < 0, i;
	size_t o = 0;
	unsigned __int128 u = neg ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
	do {
		dg[nd++] = (char)('0' + (int)(u % 10));
		u /= 10;
	} while (u && nd < 60);
	while (nd <= scale && nd < 60)
		dg[nd++] = '0';
	if (size < 2)
		return;
	if (neg && o + 1 < size)
		buf[o++] = '-';
	for (i = nd - 1; i >= 0 && o + 1 < size; i--) {
		buf[o++] = dg[i];
		if (i == scale && scale > 0 && o + 1 < size)
			buf[o++] = '.';
	}
	buf[o] = 0;
}

void tio_format_double(char *buf, size_t size, double v, int is_float)
{
	char e[40], dg[24];
	int p, exp10, nd = 0, neg, k;
	size_t o = 0;
	const char *q;
	if (isnan(v)) {
		snprintf(buf, size, "NaN");
		return;
	}
	if (isinf(v)) {
		snprintf(buf, size, v < 0 ? "-Infinity" : "Infinity");
		return;
	}
	if (v == 0) {
		snprintf(buf, size, signbit(v) ? "-0.0" : "0.0");
		return;
	}
	/* Shortest digits that read back to the same value. A decimal of at
	 * most DBL_DIG (FLT_DIG) digits survives the round trip through the
	 * binary value, so when 15 (6) digits read back, their zero-stripped
	 * form is the shortest; otherwise 16 or 17 (7..9) are needed. */
	p = is_float ? (fabs(v) < FLT_MIN ? 1 : 6) : (fabs(v) < DBL_MIN ? 1 : 15); /* subnormals: fewer digits */
	for (; p <= 17; p++) {
		snprintf(e, sizeof e, "%.*e", p - 1, v);
		if (is_float ? (float)strtod(e, NULL) == (float)v : strtod(e, NULL) == v)
			break;
	}
	/* e = "[-]d[.ddd]e[+-]xx" -> digits and exponent */
	neg = e[0] == '-';
	for (q = e + neg; *q && *q != 'e'; q++)
		if (*q != '.')
			dg[nd++] = *q;
	exp10 = atoi(q + 1);
	while (nd > 1 && dg[nd - 1] == '0')
		nd--;
	dg[nd] = 0;
#define PUT(ch) do { if (o + 1 < size) buf[o++] = (ch); } while (0)
	if (neg)
		PUT('-');
	if (exp10 >= -3 && exp10 < 7) { /* as Java's Double.toString */
		/* plain: digits with the point after exp10 + 1 of them */
		if (exp10 < 0) {
			PUT('0');
			PUT('.');
			for (k = -1; k > exp10; k--)
				PUT('0');
			for (k = 0; k < nd; k++)
				PUT(dg[k]);
		} else {
			for (k = 0; k <= exp10 || k < nd; k++) {
				if (k == exp10 + 1)
					PUT('.');
				PUT(k < nd ? dg[k] : '0');
			}
			if (nd <= exp10 + 1) {
				PUT('.');
				PUT('0');
			}
		}
	} else {
		PUT(dg[0]);
		PUT('.');
		for (k = 1; k < nd; k++)
			PUT(dg[k]);
		if (nd == 1)
			PUT('0');
		o += (size_t)snprintf(buf + o, size > o ? size - o : 0, "E%d", exp10);
		if (o >= size)
			o = size - 1;
	}
#undef PUT
	buf[o] = 0;
}

/* ================================================================ strings */

int tio_str_put(tio_str *s, const char *p, size_t n)
{
	if (s->len + n + 1 > s->cap) {
		size_t nc = s->cap ? s->cap : 64;
		char *q;
		while (nc < s->len + n + 1)
			nc *= 2;
		q = realloc(s->p, nc);
		if (!q)
			return TIO_ENOMEM;
		s->p = q;
		s->cap = nc;
	}
	if (n)
		memcpy(s->p + s->len, p, n);
	s->len += n;
	s->p[s->len] = 0;
	return 0;
}

int tio_str_puts(tio_str *s, const char *p)
{
	return tio_str_put(s, p, strlen(p));
}

void tio_str_dispose(tio_str *s)
{
	free(s->p);
	s->p = NULL;
	s->len = s->cap = 0;
}

static int utf8_valid(const uint8_t *p, size_t n)
{
	size_t i = 0;
	while (i < n) {
		uint8_t c = p[i];
		size_t k;
		uint32_t cp;
		if (c < 0x80) {
			i++;
			continue;
		}
		if ((c >> 5) == 6)
			k = 1, cp = c & 0x1f;
		else if ((c >> 4) == 14)
			k = 2, cp = c & 0x0f;
		else if ((c >> 3) == 30)
			k = 3, cp = c & 0x07;
		else
			return 0;
		if (i + k >= n)
			return 0;
		{
			size_t j;
			for (j = 1; j <= k; j++) {
				if ((p[i + j] & 0xc0) != 0x80)
					return 0;
				cp = (cp << 6) | (p[i + j] & 0x3f);
			}
		}
		if ((k == 1 && cp < 0x80) || (k == 2 && cp < 0x800) || (k == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		i += k + 1;
	}
	return 1;
}

/* ================================================================ builder */

typedef struct gbuf {
	uint8_t *p;
	size_t len, cap;
} gbuf;

static int gbuf_reserve(gbuf *b, size_t extra)
{
	if (b->len + extra > b->cap) {
		size_t nc = b->cap ? b->cap : 64;
		uint8_t *q;
		while (nc < b->len + extra)
			nc *= 2;
		q = realloc(b->p, nc);
		if (!q)
			return TIO_ENOMEM;
		b->p = q;
		b->cap = nc;
	}
	return 0;
}

static int gbuf_put(gbuf *b, const void *p, size_t n)
{
	if (gbuf_reserve(b, n) < 0)
		return TIO_ENOMEM;
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

enum kind {
	K_BOOL, K_I8, K_I16, K_I32, K_I64, K_F32, K_F64, K_STR, K_LSTR, K_BIN, K_LBIN, K_FBIN,
	K_DATE, K_TIME32, K_TIME64, K_TS, K_DEC, K_STRUCT, K_LIST, K_MAP, K_FLIST
};

struct tio_col {
	const struct ArrowSchema *field;
	enum kind kind;
	int64_t per_sec;  /* time / timestamp unit */
	int precision, scale;
	int width;        /* fixed binary bytes / fixed list size */
	int nullable;
	gbuf valid, data, offs;
	int64_t length, null_count;
	tio_col **kids;
	size_t nkids;
};

static int64_t unit_of(char c)
{
	return c == 's' ? 1 : c == 'm' ? 1000 : c == 'u' ? 1000000 : 1000000000;
}

static const char *fname(const tio_col *c)
{
	return c->field->name ? c->field->name : "";
}

static int push_offset0(tio_col *c)
{
	if (c->kind == K_LSTR || c->kind == K_LBIN) {
		int64_t z = 0;
		return gbuf_put(&c->offs, &z, sizeof z);
	}
	if (c->kind == K_STR || c->kind == K_BIN || c->kind == K_LIST || c->kind == K_MAP) {
		int32_t z = 0;
		return gbuf_put(&c->offs, &z, sizeof z);
	}
	return 0;
}

int tio_col_new(const struct ArrowSchema *field, tio_col **out, tio_err *err)
{
	const char *f = field->format;
	tio_col *c = calloc(1, sizeof *c);
	int64_t i;
	int rc;

	*out = NULL;
	if (!c)
		return TIO_ENOMEM;
	c->field = field;
	c->nullable = (field->flags & ARROW_FLAG_NULLABLE) != 0;
	if (!strcmp(f, "b"))
		c->kind = K_BOOL;
	else if (!strcmp(f, "c"))
		c->kind = K_I8;
	else if (!strcmp(f, "s"))
		c->kind = K_I16;
	else if (!strcmp(f, "i"))
		c->kind = K_I32;
	else if (!strcmp(f, "l"))
		c->kind = K_I64;
	else if (!strcmp(f, "f"))
		c->kind = K_F32;
	else if (!strcmp(f, "g"))
		c->kind = K_F64;
	else if (!strcmp(f, "u"))
		c->kind = K_STR;
	else if (!strcmp(f, "U"))
		c->kind = K_LSTR;
	else if (!strcmp(f, "z"))
		c->kind = K_BIN;
	else if (!strcmp(f, "Z"))
		c->kind = K_LBIN;
	else if (!strncmp(f, "w:", 2) && (c->width = atoi(f + 2)) > 0)
		c->kind = K_FBIN;
	else if (!strcmp(f, "tdD"))
		c->kind = K_DATE;
	else if ((!strcmp(f, "tts") || !strcmp(f, "ttm")) && (c->per_sec = unit_of(f[2])))
		c->kind = K_TIME32;
	else if ((!strcmp(f, "ttu") || !strcmp(f, "ttn")) && (c->per_sec = unit_of(f[2])))
		c->kind = K_TIME64;
	else if (!strncmp(f, "ts", 2) && f[2] && strchr("smun", f[2]) && f[3] == ':')
		c->kind = K_TS, c->per_sec = unit_of(f[2]);
	else if (!strncmp(f, "d:", 2)) {
		int bits = 128;
		if (sscanf(f, "d:%d,%d,%d", &c->precision, &c->scale, &bits) < 2 || bits != 128 || c->precision < 1 ||
		    c->precision > 38 || c->scale < 0 || c->scale > c->precision) {
			free(c);
			return verr(err, "column '%s': unsupported decimal type '%s'", field->name ? field->name : "", f);
		}
		c->kind = K_DEC;
	} else if (!strcmp(f, "+s"))
		c->kind = K_STRUCT;
	else if (!strcmp(f, "+l") && field->n_children == 1)
		c->kind = K_LIST;
	else if (!strcmp(f, "+m") && field->n_children == 1 && field->children[0]->n_children == 2)
		c->kind = K_MAP;
	else if (!strncmp(f, "+w:", 3) && field->n_children == 1 && (c->width = atoi(f + 3)) > 0)
		c->kind = K_FLIST;
	else {
		free(c);
		return verr(err, "column '%s': Arrow type '%s' is not supported by text input", field->name ? field->name : "",
			    f);
	}
	if (c->kind == K_STRUCT || c->kind == K_LIST || c->kind == K_FLIST || c->kind == K_MAP) {
		const struct ArrowSchema *const *kids = (const struct ArrowSchema *const *)field->children;
		size_t nk = (size_t)field->n_children;
		if (c->kind == K_MAP) {
			kids = (const struct ArrowSchema *const *)field->children[0]->children;
			nk = 2;
		}
		c->kids = calloc(nk ? nk : 1, sizeof *c->kids);
		if (!c->kids) {
			free(c);
			return TIO_ENOMEM;
		}
		c->nkids = nk;
		for (i = 0; i < (int64_t)nk; i++) {
			if ((rc = tio_col_new(kids[i], &c->kids[i], err)) < 0) {
				tio_col_free(c);
				return rc;
			}
		}
	}
	if (push_offset0(c) < 0) {
		tio_col_free(c);
		return TIO_ENOMEM;
	}
	*out = c;
	return TIO_OK;
}

void tio_col_free(tio_col *c)
{
	size_t i;
	if (!c)
		return;
	for (i = 0; i < c->nkids; i++)
		tio_col_free(c->kids[i]);
	free(c->kids);
	free(c->valid.p);
	free(c->data.p);
	free(c->offs.p);
	free(c);
}

int64_t tio_col_length(const tio_col *c)
{
	return c->length;
}

size_t tio_col_bytes(const tio_col *c)
{
	size_t n = c->valid.len + c->data.len + c->offs.len, i;
	for (i = 0; i < c->nkids; i++)
		n += tio_col_bytes(c->kids[i]);
	return n;
}

static int push_valid(tio_col *c, int valid)
{
	int64_t i = c->length;
	if ((size_t)(i >> 3) >= c->valid.len) {
		uint8_t z = 0;
		if (gbuf_put(&c->valid, &z, 1) < 0)
			return TIO_ENOMEM;
	}
	if (valid)
		c->valid.p[i >> 3] |= (uint8_t)(1u << (i & 7));
	else
		c->null_count++;
	c->length++;
	return 0;
}

static int push_bool(gbuf *b, int64_t i, int v)
{
	if ((size_t)(i >> 3) >= b->len) {
		uint8_t z = 0;
		if (gbuf_put(b, &z, 1) < 0)
			return TIO_ENOMEM;
	}
	if (v)
		b->p[i >> 3] |= (uint8_t)(1u << (i & 7));
	return 0;
}

/* The current end offset of a variable-size column (child length for lists). */
static int64_t cur_end(const tio_col *c)
{
	switch (c->kind) {
	case K_STR:
	case K_BIN:
		return (int64_t)c->data.len;
	case K_LSTR:
	case K_LBIN:
		return (int64_t)c->data.len;
	case K_LIST:
	case K_MAP:
		return c->kids[0]->length;
	default:
		return 0;
	}
}

static int push_end_offset(tio_col *c, tio_err *err)
{
	int64_t e = cur_end(c);
	if (c->kind != K_STR && c->kind != K_BIN && c->kind != K_LSTR && c->kind != K_LBIN && c->kind != K_LIST &&
	    c->kind != K_MAP)
		return 0;
	if (c->kind == K_LSTR || c->kind == K_LBIN)
		return gbuf_put(&c->offs, &e, sizeof e);
	if (e > INT32_MAX)
		return verr(err, "column '%s': more than 2 GiB of data in one batch", fname(c));
	{
		int32_t e32 = (int32_t)e;
		return gbuf_put(&c->offs, &e32, sizeof e32);
	}
}

static size_t value_size(const tio_col *c)
{
	switch (c->kind) {
	case K_I8: return 1;
	case K_I16: return 2;
	case K_I32: case K_F32: case K_DATE: case K_TIME32: return 4;
	case K_I64: case K_F64: case K_TIME64: case K_TS: return 8;
	case K_DEC: return 16;
	case K_FBIN: return (size_t)c->width;
	default: return 0;
	}
}

/* Appends a null without the NOT NULL check (under a null parent too). */
static int append_null_raw(tio_col *c, tio_err *err)
{
	size_t i, vs = value_size(c);
	int rc;
	if (c->kind == K_BOOL) {
		if (push_bool(&c->data, c->length, 0) < 0)
			return TIO_ENOMEM;
	} else if (vs) {
		if (gbuf_reserve(&c->data, vs) < 0)
			return TIO_ENOMEM;
		memset(c->data.p + c->data.len, 0, vs);
		c->data.len += vs;
	} else if (c->kind == K_STRUCT) {
		for (i = 0; i < c->nkids; i++)
			if ((rc = append_null_raw(c->kids[i], err)) < 0)
				return rc;
	} else if (c->kind == K_FLIST) {
		int k;
		for (k = 0; k < c->width; k++)
			if ((rc = append_null_raw(c->kids[0], err)) < 0)
				return rc;
	}
	if ((rc = push_end_offset(c, err)) < 0)
		return rc;
	return push_valid(c, 0);
}

int tio_col_append_null(tio_col *c, tio_err *err)
{
	if (!c->nullable)
		return verr(err, "null in NOT NULL column '%s'", fname(c));
	return append_null_raw(c, err);
}

static int append_fixed(tio_col *c, const void *v, size_t n)
{
	if (gbuf_put(&c->data, v, n) < 0)
		return TIO_ENOMEM;
	return push_valid(c, 1);
}

static int append_bytes(tio_col *c, const void *p, size_t n, tio_err *err)
{
	int rc;
	if (c->kind == K_FBIN) {
		if (n != (size_t)c->width)
			return verr(err, "%zu bytes for fixed-size binary column '%s' of %d bytes", n, fname(c), c->width);
		return append_fixed(c, p, n);
	}
	if (gbuf_put(&c->data, p, n) < 0)
		return TIO_ENOMEM;
	if ((rc = push_end_offset(c, err)) < 0)
		return rc;
	return push_valid(c, 1);
}

static const char *type_name(const tio_col *c)
{
	switch (c->kind) {
	case K_BOOL: return "BOOLEAN";
	case K_I8: return "TINYINT";
	case K_I16: return "SMALLINT";
	case K_I32: return "INT";
	case K_I64: return "BIGINT";
	case K_F32: return "FLOAT";
	case K_F64: return "DOUBLE";
	case K_STR: case K_LSTR: return "STRING";
	case K_BIN: case K_LBIN: case K_FBIN: return "BINARY (base64)";
	case K_DATE: return "DATE";
	case K_TIME32: case K_TIME64: return "TIME";
	case K_TS: return "TIMESTAMP";
	case K_DEC: return "DECIMAL";
	case K_STRUCT: return "ROW";
	case K_LIST: return "ARRAY";
	case K_MAP: return "MAP";
	case K_FLIST: return "VECTOR";
	}
	return "?";
}

static int bad_value(const tio_col *c, const char *s, size_t n, const char *why, tio_err *err)
{
	if (n > 60)
		return verr(err, "invalid %s value '%.60s...' for column '%s'%s%s", type_name(c), s, fname(c),
			    why ? ": " : "", why ? why : "");
	return verr(err, "invalid %s value '%.*s' for column '%s'%s%s", type_name(c), (int)n, s, fname(c),
		    why ? ": " : "", why ? why : "");
}

static int parse_int(const char *s, size_t n, int64_t lo, int64_t hi, int64_t *out)
{
	char buf[32], *end;
	long long v;
	if (n == 0 || n >= sizeof buf)
		return -1;
	memcpy(buf, s, n);
	buf[n] = 0;
	if (buf[0] == ' ' || buf[0] == '\t')
		return -1;
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (*end || end == buf)
		return -1;
	if (errno || v < lo || v > hi)
		return -2;
	*out = v;
	return 0;
}

static int ieq(const char *s, size_t n, const char *lit)
{
	return strlen(lit) == n && strncasecmp(s, lit, n) == 0;
}

static int parse_double(const char *s, size_t n, double *out)
{
	char buf[128], *end;
	if (ieq(s, n, "nan")) {
		*out = NAN;
		return 0;
	}
	if (ieq(s, n, "infinity") || ieq(s, n, "inf") || ieq(s, n, "+infinity") || ieq(s, n, "+inf")) {
		*out = INFINITY;
		return 0;
	}
	if (ieq(s, n, "-infinity") || ieq(s, n, "-inf")) {
		*out = -INFINITY;
		return 0;
	}
	if (n == 0 || n >= sizeof buf || s[0] == ' ' || s[0] == '\t')
		return -1;
	memcpy(buf, s, n);
	buf[n] = 0;
	errno = 0;
	*out = strtod(buf, &end);
	if (*end || end == buf)
		return -1;
	if (errno == ERANGE && isinf(*out))
		return -1;
	return 0;
}

static int append_json_nested(tio_col *c, const json_t *v, tio_err *err);

/* A scalar from text. */
static int append_scalar_text(tio_col *c, const char *s, size_t n, tio_err *err)
{
	int64_t iv;
	int rc;
	switch (c->kind) {
	case K_BOOL:
		if (ieq(s, n, "true") || ieq(s, n, "1"))
			iv = 1;
		else if (ieq(s, n, "false") || ieq(s, n, "0"))
			iv = 0;
		else
			return bad_value(c, s, n, "expected true or false", err);
		if (push_bool(&c->data, c->length, (int)iv) < 0)
			return TIO_ENOMEM;
		return push_valid(c, 1);
	case K_I8:
	case K_I16:
	case K_I32:
	case K_I64: {
		static const int64_t lo[] = {INT8_MIN, INT16_MIN, INT32_MIN, INT64_MIN};
		static const int64_t hi[] = {INT8_MAX, INT16_MAX, INT32_MAX, INT64_MAX};
		int k = c->kind - K_I8, pr = parse_int(s, n, lo[k], hi[k], &iv);
		char why[64];
		if (pr < 0) {
			if (pr == -2)
				snprintf(why, sizeof why, "out of range [%" PRId64 ", %" PRId64 "]", lo[k], hi[k]);
			return bad_value(c, s, n, pr == -2 ? why : "not an integer", err);
		}
		switch (c->kind) {
		case K_I8: { int8_t x = (int8_t)iv; return append_fixed(c, &x, 1); }
		case K_I16: { int16_t x = (int16_t)iv; return append_fixed(c, &x, 2); }
		case K_I32: { int32_t x = (int32_t)iv; return append_fixed(c, &x, 4); }
		default: return append_fixed(c, &iv, 8);
		}
	}
	case K_F32:
	case K_F64: {
		double d;
		if (parse_double(s, n, &d) < 0)
			return bad_value(c, s, n, "not a number", err);
		if (c->kind == K_F32) {
			float x = (float)d;
			return append_fixed(c, &x, 4);
		}
		return append_fixed(c, &d, 8);
	}
	case K_STR:
	case K_LSTR:
		if (!utf8_valid((const uint8_t *)s, n))
			return verr(err, "invalid UTF-8 in column '%s'", fname(c));
		return append_bytes(c, s, n, err);
	case K_BIN:
	case K_LBIN:
	case K_FBIN: {
		uint8_t *b = NULL;
		size_t bl = 0;
		rc = tio_base64_decode(s, n, &b, &bl);
		if (rc == TIO_ENOMEM)
			return rc;
		if (rc < 0)
			return bad_value(c, s, n, "not base64", err);
		rc = append_bytes(c, b, bl, err);
		free(b);
		return rc;
	}
	case K_DATE: {
		int32_t d;
		if (tio_parse_date(s, n, &d) < 0)
			return bad_value(c, s, n, "expected YYYY-MM-DD", err);
		return append_fixed(c, &d, 4);
	}
	case K_TIME32:
	case K_TIME64:
		if ((rc = tio_parse_time(s, n, c->per_sec, &iv)) < 0)
			return bad_value(c, s, n, rc == -2 ? "more fraction digits than the type holds" : "expected HH:MM:SS[.fff]",
					 err);
		if (c->kind == K_TIME32) {
			int32_t x = (int32_t)iv;
			return append_fixed(c, &x, 4);
		}
		return append_fixed(c, &iv, 8);
	case K_TS:
		if ((rc = tio_parse_timestamp(s, n, c->per_sec, &iv)) < 0)
			return bad_value(c, s, n,
					 rc == -2 ? "more fraction digits than the type holds"
						  : "expected YYYY-MM-DD[ HH:MM:SS[.ffffff]]",
					 err);
		return append_fixed(c, &iv, 8);
	case K_DEC: {
		__int128 d;
		char why[64];
		if ((rc = tio_parse_decimal(s, n, c->precision, c->scale, &d)) < 0) {
			if (rc == -2)
				snprintf(why, sizeof why, "more than %d fraction digits", c->scale);
			else if (rc == -3)
				snprintf(why, sizeof why, "does not fit DECIMAL(%d, %d)", c->precision, c->scale);
			else
				snprintf(why, sizeof why, "expected a decimal number");
			return bad_value(c, s, n, why, err);
		}
		return append_fixed(c, &d, 16);
	}
	default:
		break;
	}
	return verr(err, "column '%s': internal: not a scalar", fname(c));
}

static int is_nested(const tio_col *c)
{
	return c->kind == K_STRUCT || c->kind == K_LIST || c->kind == K_MAP || c->kind == K_FLIST;
}

int tio_col_append_text(tio_col *c, const char *s, size_t n, tio_err *err)
{
	if (!s)
		return tio_col_append_null(c, err);
	if (is_nested(c)) {
		json_error_t je;
		json_t *v = json_loadb(s, n, JSON_DECODE_ANY, &je);
		int rc;
		if (!v)
			return verr(err, "invalid JSON for %s column '%s': %s", type_name(c), fname(c), je.text);
		rc = tio_col_append_json(c, v, err);
		json_decref(v);
		return rc;
	}
	return append_scalar_text(c, s, n, err);
}

/* Key text of a JSON map object entry -> key column. */
static int append_map_key(tio_col *k, const char *key, tio_err *err)
{
	if (is_nested(k))
		return verr(err, "map column key '%s': object form needs a scalar key type", key);
	return append_scalar_text(k, key, strlen(key), err);
}

static int append_json_nested(tio_col *c, const json_t *v, tio_err *err)
{
	size_t i;
	int rc;
	switch (c->kind) {
	case K_STRUCT: {
		const char *key;
		json_t *val;
		if (!json_is_object(v))
			return verr(err, "column '%s': expected a JSON object for a ROW value", fname(c));
		json_object_foreach((json_t *)v, key, val) {
			for (i = 0; i < c->nkids; i++)
				if (!strcmp(fname(c->kids[i]), key))
					break;
			if (i == c->nkids)
				return verr(err, "column '%s': ROW has no field '%s'", fname(c), key);
		}
		for (i = 0; i < c->nkids; i++)
			if ((rc = tio_col_append_json(c->kids[i], json_object_get(v, fname(c->kids[i])), err)) < 0)
				return rc;
		return push_valid(c, 1);
	}
	case K_LIST:
	case K_FLIST:
		if (!json_is_array(v))
			return verr(err, "column '%s': expected a JSON array", fname(c));
		if (c->kind == K_FLIST && json_array_size(v) != (size_t)c->width)
			return verr(err, "column '%s': expected %d elements, got %zu", fname(c), c->width,
				    json_array_size(v));
		for (i = 0; i < json_array_size(v); i++)
			if ((rc = tio_col_append_json(c->kids[0], json_array_get(v, i), err)) < 0)
				return rc;
		if (c->kind == K_LIST && (rc = push_end_offset(c, err)) < 0)
			return rc;
		return push_valid(c, 1);
	case K_MAP: {
		/* entries struct: kids[0] key, kids[1] value; the entries node
		 * itself is materialized at finish (no nulls). */
		tio_col *kc = c->kids[0], *vc = c->kids[1];
		if (json_is_object(v)) {
			const char *key;
			json_t *val;
			json_object_foreach((json_t *)v, key, val) {
				if ((rc = append_map_key(kc, key, err)) < 0 || (rc = tio_col_append_json(vc, val, err)) < 0)
					return rc;
			}
		} else if (json_is_array(v)) {
			for (i = 0; i < json_array_size(v); i++) {
				json_t *e = json_array_get(v, i), *kv, *vv;
				if (json_is_object(e) && json_object_size(e) <= 2 && (kv = json_object_get(e, "key"))) {
					vv = json_object_get(e, "value");
				} else if (json_is_array(e) && json_array_size(e) == 2) {
					kv = json_array_get(e, 0);
					vv = json_array_get(e, 1);
				} else {
					return verr(err, "column '%s': map entries must be {\"key\": k, \"value\": v} or [k, v]",
						    fname(c));
				}
				if (json_is_null(kv))
					return verr(err, "column '%s': null map key", fname(c));
				if ((rc = tio_col_append_json(kc, kv, err)) < 0 || (rc = tio_col_append_json(vc, vv, err)) < 0)
					return rc;
			}
		} else {
			return verr(err, "column '%s': expected a JSON object or array for a MAP value", fname(c));
		}
		if ((rc = push_end_offset(c, err)) < 0)
			return rc;
		return push_valid(c, 1);
	}
	default:
		break;
	}
	return verr(err, "column '%s': internal: not nested", fname(c));
}

int tio_col_append_json(tio_col *c, const json_t *v, tio_err *err)
{
	char buf[64];
	if (!v || json_is_null(v))
		return tio_col_append_null(c, err);
	if (is_nested(c))
		return append_json_nested(c, v, err);
	if (json_is_string(v))
		return append_scalar_text(c, json_string_value(v), json_string_length(v), err);
	if (json_is_boolean(v)) {
		if (c->kind != K_BOOL)
			return verr(err, "column '%s': a JSON boolean for a %s column", fname(c), type_name(c));
		return append_scalar_text(c, json_is_true(v) ? "true" : "false", json_is_true(v) ? 4 : 5, err);
	}
	if (json_is_integer(v)) {
		if (c->kind == K_BOOL || c->kind == K_STR || c->kind == K_LSTR || c->kind == K_BIN || c->kind == K_LBIN ||
		    c->kind == K_FBIN || c->kind == K_DATE || c->kind == K_TS || c->kind == K_TIME32 || c->kind == K_TIME64)
			return verr(err, "column '%s': a JSON number for a %s column (use a string)", fname(c), type_name(c));
		snprintf(buf, sizeof buf, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return append_scalar_text(c, buf, strlen(buf), err);
	}
	if (json_is_real(v)) {
		if (c->kind != K_F32 && c->kind != K_F64 && c->kind != K_DEC)
			return verr(err, "column '%s': a JSON real number for a %s column", fname(c), type_name(c));
		tio_format_double(buf, sizeof buf, json_real_value(v), 0);
		if (c->kind == K_DEC && strpbrk(buf, "eE")) {
			/* plain notation for the decimal parser */
			snprintf(buf, sizeof buf, "%.*f", c->scale, json_real_value(v));
		}
		return append_scalar_text(c, buf, strlen(buf), err);
	}
	return verr(err, "column '%s': expected a scalar JSON value for a %s column", fname(c), type_name(c));
}

/* ================================================================ export */

typedef struct exp_priv {
	void *bufs[3];
	const void *cbufs[3];
	struct ArrowArray **kids;
	int64_t nkids;
} exp_priv;

static void exp_release(struct ArrowArray *a)
{
	exp_priv *p = a->private_data;
	int64_t k;
	int i;
	if (!a->release)
		return;
	if (p) {
		for (k = 0; k < p->nkids; k++) {
			if (p->kids[k]) {
				if (p->kids[k]->release)
					p->kids[k]->release(p->kids[k]);
				free(p->kids[k]);
			}
		}
		free(p->kids);
		for (i = 0; i < 3; i++)
			free(p->bufs[i]);
		free(p);
	}
	a->release = NULL;
	a->private_data = NULL;
}

/* A buffer's bytes handed over (never NULL: a zero-length buffer gets 8 bytes). */
static void *take(gbuf *b)
{
	void *p = b->p;
	if (!p)
		p = calloc(1, 8);
	b->p = NULL;
	b->len = b->cap = 0;
	return p;
}

static int exp_init(struct ArrowArray *a, int64_t length, int64_t null_count, int nbufs, int64_t nkids)
{
	exp_priv *p = calloc(1, sizeof *p);
	memset(a, 0, sizeof *a);
	if (!p)
		return TIO_ENOMEM;
	if (nkids) {
		int64_t k;
		p->kids = calloc((size_t)nkids, sizeof *p->kids);
		if (!p->kids) {
			free(p);
			return TIO_ENOMEM;
		}
		p->nkids = nkids;
		for (k = 0; k < nkids; k++)
			if (!(p->kids[k] = calloc(1, sizeof **p->kids))) {
				a->private_data = p;
				a->release = exp_release;
				exp_release(a);
				return TIO_ENOMEM;
			}
	}
	a->length = length;
	a->null_count = null_count;
	a->n_buffers = nbufs;
	a->buffers = p->cbufs;
	a->n_children = nkids;
	a->children = p->kids;
	a->private_data = p;
	a->release = exp_release;
	return 0;
}

static void reset(tio_col *c)
{
	free(c->valid.p);
	free(c->data.p);
	free(c->offs.p);
	memset(&c->valid, 0, sizeof c->valid);
	memset(&c->data, 0, sizeof c->data);
	memset(&c->offs, 0, sizeof c->offs);
	c->length = c->null_count = 0;
}

int tio_col_finish(tio_col *c, struct ArrowArray *out)
{
	exp_priv *p;
	int nb, rc;
	int64_t nk = 0, k;
	switch (c->kind) {
	case K_STR: case K_LSTR: case K_BIN: case K_LBIN: nb = 3; break;
	case K_STRUCT: case K_FLIST: nb = 1; nk = (int64_t)c->nkids; break;
	case K_LIST: case K_MAP: nb = 2; nk = 1; break;
	default: nb = 2; break;
	}
	if ((rc = exp_init(out, c->length, c->null_count, nb, nk)) < 0)
		return rc;
	p = out->private_data;
	p->bufs[0] = take(&c->valid);
	if (!p->bufs[0])
		goto oom;
	if (nb >= 2) {
		p->bufs[1] = take((c->kind == K_LIST || c->kind == K_MAP || nb == 3) ? &c->offs : &c->data);
		if (!p->bufs[1])
			goto oom;
	}
	if (nb == 3 && !(p->bufs[2] = take(&c->data)))
		goto oom;
	for (k = 0; k < 3; k++)
		p->cbufs[k] = p->bufs[k];
	if (c->kind == K_MAP) {
		/* the entries struct: no nulls, children key and value */
		struct ArrowArray *e = p->kids[0];
		exp_priv *ep;
		int64_t n = c->kids[0]->length;
		if ((rc = exp_init(e, n, 0, 1, 2)) < 0)
			goto fail;
		ep = e->private_data;
		for (k = 0; k < 2; k++)
			if ((rc = tio_col_finish(c->kids[k], ep->kids[k])) < 0)
				goto fail;
	} else {
		for (k = 0; k < nk; k++)
			if ((rc = tio_col_finish(c->kids[k], p->kids[k])) < 0)
				goto fail;
	}
	reset(c);
	if (push_offset0(c) < 0) {
		rc = TIO_ENOMEM;
		goto fail;
	}
	return 0;
oom:
	rc = TIO_ENOMEM;
fail:
	out->release(out);
	reset(c);
	push_offset0(c);
	return rc;
}

static void batch_schema_release(struct ArrowSchema *s)
{
	if (!s->release)
		return;
	free(s->children);
	s->children = NULL;
	s->release = NULL;
}

int tio_batch_finish(tio_col *const *cols, size_t n, struct ArrowArray *out, struct ArrowSchema *schema)
{
	exp_priv *p;
	int64_t len = n ? cols[0]->length : 0;
	size_t i;
	int rc;

	memset(schema, 0, sizeof *schema);
	if ((rc = exp_init(out, len, 0, 1, (int64_t)n)) < 0)
		return rc;
	p = out->private_data;
	for (i = 0; i < n; i++) {
		if (cols[i]->length != len) {
			out->release(out);
			return TIO_EVALUE;
		}
		if ((rc = tio_col_finish(cols[i], p->kids[i])) < 0) {
			out->release(out);
			return rc;
		}
	}
	schema->children = calloc(n ? n : 1, sizeof *schema->children);
	if (!schema->children) {
		out->release(out);
		return TIO_ENOMEM;
	}
	for (i = 0; i < n; i++)
		schema->children[i] = (struct ArrowSchema *)cols[i]->field;
	schema->format = "+s";
	schema->name = "";
	schema->n_children = (int64_t)n;
	schema->release = batch_schema_release;
	return 0;
}

/* ================================================================ output */

static int valid_at(const struct ArrowArray *a, int64_t i)
{
	const uint8_t *v = a->n_buffers > 0 ? a->buffers[0] : NULL;
	int64_t k = a->offset + i;
	if (!v || a->null_count == 0)
		return 1;
	return (v[k >> 3] >> (k & 7)) & 1;
}

int tio_is_numeric(const struct ArrowSchema *s)
{
	const char *f = s->format;
	return strchr("csilCSILfge", f[0]) && f[1] == 0 ? 1 : f[0] == 'd' && f[1] == ':';
}

/* The bytes of a utf8/binary value. */
static void var_value(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t k, const uint8_t **p, size_t *n)
{
	if (s->format[0] == 'U' || s->format[0] == 'Z') {
		const int64_t *off = a->buffers[1];
		*p = (const uint8_t *)a->buffers[2] + off[k];
		*n = (size_t)(off[k + 1] - off[k]);
	} else {
		const int32_t *off = a->buffers[1];
		*p = (const uint8_t *)a->buffers[2] + off[k];
		*n = (size_t)(off[k + 1] - off[k]);
	}
}

static int json_string_out(tio_str *o, const char *p, size_t n);
static tio_blob_printer blob_printer;
static void *blob_printer_ud;

void tio_set_blob_printer(tio_blob_printer fn, void *ud)
{
	blob_printer = fn;
	blob_printer_ud = ud;
}

int tio_json_string(tio_str *o, const char *p, size_t n)
{
	return json_string_out(o, p, n);
}

static int json_string_out(tio_str *o, const char *p, size_t n)
{
	size_t i, run = 0;
	char esc[8];
	if (tio_str_put(o, "\"", 1) < 0)
		return TIO_ENOMEM;
	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)p[i];
		const char *e = NULL;
		if (ch == '"')
			e = "\\\"";
		else if (ch == '\\')
			e = "\\\\";
		else if (ch == '\n')
			e = "\\n";
		else if (ch == '\r')
			e = "\\r";
		else if (ch == '\t')
			e = "\\t";
		else if (ch < 0x20) {
			snprintf(esc, sizeof esc, "\\u%04x", ch);
			e = esc;
		}
		if (e) {
			if (tio_str_put(o, p + i - run, run) < 0 || tio_str_puts(o, e) < 0)
				return TIO_ENOMEM;
			run = 0;
		} else {
			run++;
		}
	}
	if (tio_str_put(o, p + n - run, run) < 0 || tio_str_put(o, "\"", 1) < 0)
		return TIO_ENOMEM;
	return 0;
}

/* Scalar text into buf (small values) or directly into o (strings/binary).
 * *is_str: whether the JSON form is a string. */
static int scalar_text(tio_str *o, const struct ArrowSchema *s, const struct ArrowArray *a, int64_t k, int json)
{
	const char *f = s->format;
	const void *d = a->n_buffers > 1 ? a->buffers[1] : NULL;
	char buf[96];
	int quote = 0;
	buf[0] = 0;
	switch (f[0]) {
	case 'b':
		snprintf(buf, sizeof buf, "%s", ((((const uint8_t *)d)[k >> 3] >> (k & 7)) & 1) ? "true" : "false");
		break;
	case 'c': snprintf(buf, sizeof buf, "%d", ((const int8_t *)d)[k]); break;
	case 'C': snprintf(buf, sizeof buf, "%u", ((const uint8_t *)d)[k]); break;
	case 's': snprintf(buf, sizeof buf, "%d", ((const int16_t *)d)[k]); break;
	case 'S': snprintf(buf, sizeof buf, "%u", ((const uint16_t *)d)[k]); break;
	case 'i': snprintf(buf, sizeof buf, "%" PRId32, ((const int32_t *)d)[k]); break;
	case 'I': snprintf(buf, sizeof buf, "%" PRIu32, ((const uint32_t *)d)[k]); break;
	case 'l': snprintf(buf, sizeof buf, "%" PRId64, ((const int64_t *)d)[k]); break;
	case 'L': snprintf(buf, sizeof buf, "%" PRIu64, ((const uint64_t *)d)[k]); break;
	case 'f':
	case 'g': {
		double v = f[0] == 'f' ? ((const float *)d)[k] : ((const double *)d)[k];
		tio_format_double(buf, sizeof buf, v, f[0] == 'f');
		quote = !isfinite(v);
		break;
	}
	case 'u':
	case 'U': {
		const uint8_t *p;
		size_t n;
		var_value(s, a, k, &p, &n);
		return json ? json_string_out(o, (const char *)p, n) : tio_str_put(o, (const char *)p, n);
	}
	case 'z':
	case 'Z':
	case 'w': {
		const uint8_t *p;
		size_t n;
		int rc;
		if (f[0] == 'Z' && blob_printer) {
			var_value(s, a, k, &p, &n);
			return blob_printer(blob_printer_ud, o, p, n, json);
		}
		if (f[0] == 'w') {
			n = (size_t)atoi(f + 2);
			p = (const uint8_t *)d + (size_t)k * n;
		} else {
			var_value(s, a, k, &p, &n);
		}
		if (json && tio_str_put(o, "\"", 1) < 0)
			return TIO_ENOMEM;
		if ((rc = base64_encode(o, p, n)) < 0)
			return rc;
		return json ? tio_str_put(o, "\"", 1) : 0;
	}
	case 'd': {
		int p = 0, sc = 0, bits = 128;
		__int128 v;
		sscanf(f, "d:%d,%d,%d", &p, &sc, &bits);
		if (bits != 128) {
			snprintf(buf, sizeof buf, "<%s>", f);
		} else {
			memcpy(&v, (const uint8_t *)d + (size_t)k * 16, 16);
			tio_format_decimal(buf, sizeof buf, v, sc);
		}
		quote = 1;
		break;
	}
	case 't':
		quote = 1;
		if (!strcmp(f, "tdD"))
			tio_format_date(buf, sizeof buf, ((const int32_t *)d)[k]);
		else if (!strcmp(f, "tdm"))
			tio_format_date(buf, sizeof buf, (int32_t)(((const int64_t *)d)[k] / 86400000));
		else if (f[1] == 't' && (f[2] == 's' || f[2] == 'm'))
			tio_format_time(buf, sizeof buf, ((const int32_t *)d)[k], unit_of(f[2]));
		else if (f[1] == 't')
			tio_format_time(buf, sizeof buf, ((const int64_t *)d)[k], unit_of(f[2]));
		else if (f[1] == 's')
			tio_format_timestamp(buf, sizeof buf, ((const int64_t *)d)[k], unit_of(f[2]));
		else
			snprintf(buf, sizeof buf, "<%s>", f);
		break;
	default:
		snprintf(buf, sizeof buf, "<%s>", f);
		quote = 1;
		break;
	}
	if (json && quote)
		return json_string_out(o, buf, strlen(buf));
	return tio_str_puts(o, buf);
}

static int is_scalar_format(const char *f)
{
	return f[0] != '+';
}

int tio_value_json(tio_str *o, const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i)
{
	const char *f = s->format;
	int64_t k = a->offset + i, j;
	int rc;
	if (!valid_at(a, i))
		return tio_str_put(o, "null", 4);
	if (!strcmp(f, "+s")) {
		if (tio_str_put(o, "{", 1) < 0)
			return TIO_ENOMEM;
		for (j = 0; j < s->n_children; j++) {
			const char *nm = s->children[j]->name ? s->children[j]->name : "";
			if ((j && tio_str_put(o, ",", 1) < 0) || json_string_out(o, nm, strlen(nm)) < 0 ||
			    tio_str_put(o, ":", 1) < 0)
				return TIO_ENOMEM;
			if ((rc = tio_value_json(o, s->children[j], a->children[j], k)) < 0)
				return rc;
		}
		return tio_str_put(o, "}", 1);
	}
	if (!strcmp(f, "+l") || !strcmp(f, "+L") || !strncmp(f, "+w:", 3)) {
		int64_t b, e;
		if (f[1] == 'w') {
			int64_t w = atoi(f + 3);
			b = k * w;
			e = b + w;
		} else if (f[1] == 'L') {
			b = ((const int64_t *)a->buffers[1])[k];
			e = ((const int64_t *)a->buffers[1])[k + 1];
		} else {
			b = ((const int32_t *)a->buffers[1])[k];
			e = ((const int32_t *)a->buffers[1])[k + 1];
		}
		if (tio_str_put(o, "[", 1) < 0)
			return TIO_ENOMEM;
		for (j = b; j < e; j++) {
			if (j > b && tio_str_put(o, ",", 1) < 0)
				return TIO_ENOMEM;
			if ((rc = tio_value_json(o, s->children[0], a->children[0], j)) < 0)
				return rc;
		}
		return tio_str_put(o, "]", 1);
	}
	if (!strcmp(f, "+m")) {
		const struct ArrowSchema *es = s->children[0], *ks = es->children[0], *vs = es->children[1];
		const struct ArrowArray *ea = a->children[0], *ka = ea->children[0], *va = ea->children[1];
		int64_t b = ((const int32_t *)a->buffers[1])[k], e = ((const int32_t *)a->buffers[1])[k + 1];
		int obj = is_scalar_format(ks->format);
		if (tio_str_put(o, obj ? "{" : "[", 1) < 0)
			return TIO_ENOMEM;
		for (j = b; j < e; j++) {
			int64_t kk = ea->offset + j; /* index in the key/value arrays' logical space */
			if (j > b && tio_str_put(o, ",", 1) < 0)
				return TIO_ENOMEM;
			if (obj) {
				tio_str t = {0};
				int isnull = 0;
				if ((rc = tio_value_text(&t, ks, ka, kk, &isnull)) < 0) {
					tio_str_dispose(&t);
					return rc;
				}
				rc = json_string_out(o, t.p ? t.p : "", t.len);
				tio_str_dispose(&t);
				if (rc < 0 || tio_str_put(o, ":", 1) < 0)
					return TIO_ENOMEM;
			} else {
				if (tio_str_puts(o, "{\"key\":") < 0 || (rc = tio_value_json(o, ks, ka, kk)) < 0 ||
				    tio_str_puts(o, ",\"value\":") < 0)
					return TIO_ENOMEM;
			}
			if ((rc = tio_value_json(o, vs, va, kk)) < 0)
				return rc;
			if (!obj && tio_str_put(o, "}", 1) < 0)
				return TIO_ENOMEM;
		}
		return tio_str_put(o, obj ? "}" : "]", 1);
	}
	return scalar_text(o, s, a, k, 1);
}

int tio_value_text(tio_str *o, const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i, int *is_null)
{
	*is_null = 0;
	if (!valid_at(a, i)) {
		*is_null = 1;
		return 0;
	}
	if (!is_scalar_format(s->format))
		return tio_value_json(o, s, a, i);
	return scalar_text(o, s, a, a->offset + i, 0);
}

int tio_csv_quote(tio_str *o, const char *p, size_t n, char delim)
{
	size_t i;
	int need = n == 0;
	for (i = 0; i < n && !need; i++)
		if (p[i] == delim || p[i] == '"' || p[i] == '\n' || p[i] == '\r')
			need = 1;
	if (!need)
		return tio_str_put(o, p, n);
	if (tio_str_put(o, "\"", 1) < 0)
		return TIO_ENOMEM;
	for (i = 0; i < n; i++) {
		if (p[i] == '"' && tio_str_put(o, "\"", 1) < 0)
			return TIO_ENOMEM;
		if (tio_str_put(o, p + i, 1) < 0)
			return TIO_ENOMEM;
	}
	return tio_str_put(o, "\"", 1);
}

/* ================================================================ CSV input */

void tio_csv_init(tio_csv *r, FILE *f, char delim)
{
	memset(r, 0, sizeof *r);
	r->f = f;
	r->delim = delim;
	r->next_line = 1;
	r->at_start = 1;
}

void tio_csv_dispose(tio_csv *r)
{
	free(r->buf);
	free(r->starts);
	free(r->lens);
	free(r->quoted);
	memset(r, 0, sizeof *r);
}

static int csv_putc(tio_csv *r, char ch)
{
	if (r->buf_len + 1 >= r->buf_cap) {
		size_t nc = r->buf_cap ? r->buf_cap * 2 : 256;
		char *q = realloc(r->buf, nc);
		if (!q)
			return TIO_ENOMEM;
		r->buf = q;
		r->buf_cap = nc;
	}
	r->buf[r->buf_len++] = ch;
	return 0;
}

static int csv_end_field(tio_csv *r, size_t start, int quoted)
{
	if (r->nfields == r->fields_cap) {
		size_t nc = r->fields_cap ? r->fields_cap * 2 : 16;
		size_t *s = realloc(r->starts, nc * sizeof *s), *l;
		unsigned char *q;
		if (!s)
			return TIO_ENOMEM;
		r->starts = s;
		if (!(l = realloc(r->lens, nc * sizeof *l)))
			return TIO_ENOMEM;
		r->lens = l;
		if (!(q = realloc(r->quoted, nc)))
			return TIO_ENOMEM;
		r->quoted = q;
		r->fields_cap = nc;
	}
	r->starts[r->nfields] = start;
	r->lens[r->nfields] = r->buf_len - start;
	r->quoted[r->nfields] = (unsigned char)quoted;
	r->nfields++;
	return csv_putc(r, 0);
}

int tio_csv_next(tio_csv *r, tio_err *err)
{
	int ch, quoted = 0, in_quotes = 0, after_quote = 0;
	size_t start = 0;
	r->buf_len = 0;
	r->nfields = 0;
	r->line = r->next_line;
	ch = getc(r->f);
	if (r->at_start) {
		r->at_start = 0;
		if (ch == 0xEF) { /* UTF-8 byte order mark */
			int c2 = getc(r->f), c3 = getc(r->f);
			if (c2 != 0xBB || c3 != 0xBF)
				return verr(err, "line 1: unexpected bytes at the start of the input");
			r->bytes += 3;
			ch = getc(r->f);
		}
	}
	if (ch == EOF) {
		if (ferror(r->f))
			return verr(err, "read error: %s", strerror(errno));
		return 0;
	}
	for (;; ch = getc(r->f)) {
		if (ch == EOF) {
			if (ferror(r->f))
				return verr(err, "read error: %s", strerror(errno));
			if (in_quotes)
				return verr(err, "line %" PRId64 ": unterminated quoted field", r->line);
			return csv_end_field(r, start, quoted) < 0 ? TIO_ENOMEM : 1;
		}
		r->bytes++;
		if (in_quotes) {
			if (ch == '"') {
				int nx = getc(r->f);
				if (nx == '"') {
					r->bytes++;
					if (csv_putc(r, '"') < 0)
						return TIO_ENOMEM;
					continue;
				}
				if (nx != EOF)
					ungetc(nx, r->f);
				in_quotes = 0;
				after_quote = 1;
				continue;
			}
			if (ch == '\n')
				r->next_line++;
			if (csv_putc(r, (char)ch) < 0)
				return TIO_ENOMEM;
			continue;
		}
		if (ch == r->delim) {
			if (csv_end_field(r, start, quoted) < 0)
				return TIO_ENOMEM;
			start = r->buf_len;
			quoted = after_quote = 0;
			continue;
		}
		if (ch == '\n' || ch == '\r') {
			if (ch == '\r') {
				int nx = getc(r->f);
				if (nx == '\n')
					r->bytes++;
				else if (nx != EOF)
					ungetc(nx, r->f);
			}
			r->next_line++;
			return csv_end_field(r, start, quoted) < 0 ? TIO_ENOMEM : 1;
		}
		if (after_quote)
			return verr(err, "line %" PRId64 ", field %zu: text after a closing quote", r->line, r->nfields + 1);
		if (ch == '"') {
			if (r->buf_len != start)
				return verr(err, "line %" PRId64 ", field %zu: quote inside an unquoted field", r->line,
					    r->nfields + 1);
			in_quotes = quoted = 1;
			continue;
		}
		if (csv_putc(r, (char)ch) < 0)
			return TIO_ENOMEM;
	}
}
