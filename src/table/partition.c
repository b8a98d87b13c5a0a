/*
 * table/partition.c - partition rows, partition directory names (Java
 * Paimon 1.4.2 InternalRowPartitionComputer + PartitionPathUtils, and
 * pypaimon's unescaped str() layout) and fixed-bucket hashing.
 *
 * Java value strings (legacy-name = true) are the toString() of the
 * internal value: BinaryString text, Integer/Long/Short/Byte decimal,
 * Boolean true/false, Float/Double.toString, DATE days (Integer), TIME
 * millis (Integer), Timestamp -> LocalDateTime.toString (UTC fields for
 * LTZ too), Decimal -> BigDecimal.toPlainString. byte[] prints as
 * "[B@<identity hash>", which no one can reproduce: refused.
 * legacy-name = false casts to STRING (CastExecutors): DATE via
 * DateTimeUtils.formatDate, TIME via formatTimestampMillis(v, precision),
 * TIMESTAMP via formatTimestamp(ts, UTC, precision), TIMESTAMP_LTZ in the
 * process's local zone (Java: TimeZone.getDefault()), BINARY decoded as UTF-8.
 *
 * Float/Double.toString: the JDK 19+ algorithm (shortest decimal that
 * rounds back, at least 2 digits, closest of those), which pypaimon 2.1.0
 * also uses. JDK <= 18 (FloatingDecimal) prints more digits for some values
 * (e.g. 2.68873286E11 instead of 2.6887329E11 for a float).
 */
#include "table/partition.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/error.h"
#include "core/strs.h"
#include "core/mem.h"
#include "types/datum.h"

/* ------------------------------------------------------------ info */

static int info_fill(pm_partition_info *pi)
{
	size_t i;
	pi->n = pi->row_type->nfields;
	if (pi->n == 0)
		return 0;
	pi->types = pm_calloc(pi->n, sizeof *pi->types);
	pi->names = pm_calloc(pi->n, sizeof *pi->names);
	if (!pi->types || !pi->names)
		return PAIMON_ENOMEM;
	for (i = 0; i < pi->n; i++) {
		pi->types[i] = pi->row_type->fields[i].type;
		pi->names[i] = pi->row_type->fields[i].name;
	}
	return 0;
}

int pm_partition_info_init_row(pm_partition_info *pi, const pm_type *row, const char *default_name,
			       int legacy_name)
{
	int rc;
	memset(pi, 0, sizeof *pi);
	if (!row || row->root != PM_ROW)
		return pm_err(PAIMON_EINVAL, "partition type must be a ROW");
	pi->row_type = pm_type_copy(row);
	pi->default_name = pm_strdup(default_name ? default_name : PM_DEFAULT_PARTITION_NAME);
	pi->legacy_name = legacy_name;
	if (!pi->row_type || !pi->default_name) {
		pm_partition_info_dispose(pi);
		return PAIMON_ENOMEM;
	}
	rc = info_fill(pi);
	if (rc) {
		pm_partition_info_dispose(pi);
		return rc;
	}
	return 0;
}

int pm_partition_info_init(pm_partition_info *pi, const pm_table_schema *s)
{
	size_t i, n = s->partition_keys.len;
	const char *dn, *legacy;
	int rc;

	memset(pi, 0, sizeof *pi);
	dn = pm_strmap_get(&s->options, "partition.default-name");
	if (dn && !*dn)
		return pm_err(PAIMON_EINVAL, "option 'partition.default-name' must not be empty");
	legacy = pm_strmap_get(&s->options, "partition.legacy-name");
	pi->legacy_name = 1;
	if (legacy && pm_parse_bool(legacy, &pi->legacy_name) != 0)
		return pm_err(PAIMON_EINVAL, "option 'partition.legacy-name': '%s' is not a boolean", legacy);
	pi->default_name = pm_strdup(dn ? dn : PM_DEFAULT_PARTITION_NAME);
	pi->row_type = pm_type_new(PM_ROW);
	if (!pi->default_name || !pi->row_type)
		goto nomem;
	if (n) {
		pi->field_index = pm_calloc(n, sizeof *pi->field_index);
		pi->row_type->fields = pm_calloc(n, sizeof *pi->row_type->fields);
		if (!pi->field_index || !pi->row_type->fields)
			goto nomem;
	}
	for (i = 0; i < n; i++) {
		long idx = pm_schema_field_index(s, s->partition_keys.items[i]);
		if (idx < 0) {
			rc = pm_err(PAIMON_EINVAL, "partition key '%s' is not a column of the table",
				    s->partition_keys.items[i]);
			pm_partition_info_dispose(pi);
			return rc;
		}
		pi->field_index[i] = (int)idx;
		if (pm_field_copy(&pi->row_type->fields[i], &s->fields[idx]) != 0)
			goto nomem;
		pi->row_type->nfields = i + 1;
	}
	rc = info_fill(pi);
	if (rc) {
		pm_partition_info_dispose(pi);
		return rc;
	}
	return 0;
nomem:
	pm_partition_info_dispose(pi);
	return PAIMON_ENOMEM;
}

void pm_partition_info_dispose(pm_partition_info *pi)
{
	if (!pi)
		return;
	pm_free(pi->field_index);
	pm_type_free(pi->row_type);
	pm_free(pi->types);
	pm_free(pi->names);
	pm_free(pi->default_name);
	memset(pi, 0, sizeof *pi);
}

int pm_partition_encode(const pm_partition_info *pi, const pm_binrow_datum *vals, pm_buf *out)
{
	return pm_binrow_encode(pi->types, vals, pi->n, 0, 1, out);
}

int pm_partition_decode(const pm_partition_info *pi, const uint8_t *p, size_t n, pm_binrow_datum *vals)
{
	int rc = pm_binrow_decode(p, n, pi->types, pi->n, 1, vals, NULL);
	if (rc)
		return pm_err_wrap("partition row");
	return 0;
}

/* ------------------------------------------------------------ escaping */

static int needs_escape(unsigned char c)
{
	if (c < 0x20 || c == 0x7F)
		return 1;
	return c < 0x80 && strchr("\"#%'*/:=?\\{}[]^", c) != NULL && c != 0;
}

int pm_partition_escape(const char *s, size_t n, pm_buf *out)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t i;
	if (n == 0)
		return pm_err(PAIMON_EINVAL, "partition path name must not be empty");
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		int rc;
		if (needs_escape(c)) {
			char e[3] = {'%', hex[c >> 4], hex[c & 15]};
			rc = pm_buf_append(out, e, 3);
		} else {
			rc = pm_buf_putc(out, (char)c);
		}
		if (rc)
			return rc;
	}
	return 0;
}


/* Integer.parseInt(two chars, 16): optional sign then hex digits. */
static int parse_hex2(const char *p)
{
	int a = pm_hexval(p[0]), b = pm_hexval(p[1]);
	if (a >= 0 && b >= 0)
		return a * 16 + b;
	if (p[0] == '+' && b >= 0)
		return b;
	if (p[0] == '-' && b == 0)
		return 0; /* "-0" parses as 0 */
	return -1;
}

int pm_partition_unescape(const char *s, size_t n, pm_buf *out)
{
	size_t i;
	for (i = 0; i < n; i++) {
		int rc;
		if (s[i] == '%' && i + 2 < n) {
			int code = parse_hex2(s + i + 1);
			if (code >= 0) {
				/* Java appends (char)code: U+0000..U+00FF. */
				if (code < 0x80) {
					rc = pm_buf_putc(out, (char)code);
				} else {
					char u[2] = {(char)(0xC0 | (code >> 6)), (char)(0x80 | (code & 0x3F))};
					rc = pm_buf_append(out, u, 2);
				}
				if (rc)
					return rc;
				i += 2;
				continue;
			}
		}
		rc = pm_buf_putc(out, s[i]);
		if (rc)
			return rc;
	}
	return 0;
}

/* ------------------------------------------------------------ whitespace */

/* Next code point of valid-ish UTF-8; invalid bytes come back as themselves
 * (never whitespace in either language). */
static uint32_t next_cp(const uint8_t *p, size_t n, size_t *i)
{
	uint8_t c = p[*i];
	uint32_t cp;
	int len, k;
	if (c < 0x80) {
		(*i)++;
		return c;
	}
	if ((c & 0xE0) == 0xC0) {
		len = 2;
		cp = c & 0x1F;
	} else if ((c & 0xF0) == 0xE0) {
		len = 3;
		cp = c & 0x0F;
	} else if ((c & 0xF8) == 0xF0) {
		len = 4;
		cp = c & 0x07;
	} else {
		(*i)++;
		return 0xFFFD;
	}
	if (*i + (size_t)len > n) {
		(*i)++;
		return 0xFFFD;
	}
	for (k = 1; k < len; k++) {
		if ((p[*i + k] & 0xC0) != 0x80) {
			(*i)++;
			return 0xFFFD;
		}
		cp = (cp << 6) | (p[*i + k] & 0x3F);
	}
	*i += (size_t)len;
	return cp;
}

/* Java Character.isWhitespace. */
static int java_ws(uint32_t c)
{
	if (c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F))
		return 1;
	if (c == 0x1680 || (c >= 0x2000 && c <= 0x2006) || (c >= 0x2008 && c <= 0x200A) || c == 0x2028 ||
	    c == 0x2029 || c == 0x205F || c == 0x3000)
		return 1;
	return 0;
}

/* Python str.isspace. */
static int py_ws(uint32_t c)
{
	if (c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F) || c == 0x85 || c == 0xA0)
		return 1;
	if (c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
	    c == 0x205F || c == 0x3000)
		return 1;
	return 0;
}

static int blank(const char *s, size_t n, int python)
{
	size_t i = 0;
	while (i < n) {
		uint32_t c = next_cp((const uint8_t *)s, n, &i);
		if (!(python ? py_ws(c) : java_ws(c)))
			return 0;
	}
	return 1;
}

/* ------------------------------------------------------------ floating point */

static int roundtrips(const char *s, double v, int is_float)
{
	if (is_float)
		return strtof(s, NULL) == (float)v;
	return strtod(s, NULL) == v;
}

/* Splits "%.Ne" output "d.ddde+XX" into digits and exponent. */
static void split_e(const char *buf, char *dig, int *nd, int *e10)
{
	const char *p = buf;
	int n = 0;
	for (; *p && *p != 'e'; p++)
		if (*p >= '0' && *p <= '9')
			dig[n++] = *p;
	*nd = n;
	*e10 = *p == 'e' ? atoi(p + 1) : 0;
}

static void join_e(char *buf, size_t cap, const char *dig, int nd, int e10)
{
	size_t k = 0;
	int i;
	buf[k++] = dig[0];
	if (nd > 1) {
		buf[k++] = '.';
		for (i = 1; i < nd; i++)
			buf[k++] = dig[i];
	}
	snprintf(buf + k, cap - k, "e%d", e10);
}

/* The p-digit decimal next to dig (up = +1 ulp of the last digit, or -1). */
static void neighbour(const char *dig, int nd, int e10, int up, char *out, int *e_out)
{
	int i;
	memcpy(out, dig, (size_t)nd);
	*e_out = e10;
	if (up) {
		for (i = nd - 1; i >= 0; i--) {
			if (out[i] == '9') {
				out[i] = '0';
			} else {
				out[i]++;
				return;
			}
		}
		out[0] = '1'; /* 999 -> 1000: 1.00 x 10^(e+1) */
		for (i = 1; i < nd; i++)
			out[i] = '0';
		(*e_out)++;
	} else {
		for (i = 1; i < nd && out[i] == '0'; i++)
			;
		if (out[0] == '1' && i == nd) { /* 1.00 x 10^e -> 9.99 x 10^(e-1) */
			for (i = 0; i < nd; i++)
				out[i] = '9';
			(*e_out)--;
			return;
		}
		for (i = nd - 1; i >= 0; i--) {
			if (out[i] == '0') {
				out[i] = '9';
			} else {
				out[i]--;
				return;
			}
		}
	}
}

/* Shortest decimal (at least min_p digits) that rounds back to v > 0 (finite),
 * the closest one among those of that length. dig gets the digits without
 * trailing zeros, *e10 the exponent of the first digit. */
static void shortest(double v, int is_float, int min_p, char *dig, int *nd, int *e10)
{
	int maxp = is_float ? 9 : 17, p;
	char buf[64], d2[32], cand[64];
	for (p = min_p; p <= maxp; p++) {
		int n, e, e2, up, found = 0;
		snprintf(buf, sizeof buf, "%.*e", p - 1, v);
		if (roundtrips(buf, v, is_float)) {
			split_e(buf, dig, nd, e10);
			found = 1;
		} else {
			split_e(buf, d2, &n, &e);
			for (up = 1; up >= 0 && !found; up--) {
				neighbour(d2, n, e, up, dig, &e2);
				join_e(cand, sizeof cand, dig, n, e2);
				if (roundtrips(cand, v, is_float)) {
					*nd = n;
					*e10 = e2;
					found = 1;
				}
			}
		}
		if (found)
			break;
	}
	if (p > maxp) {
		snprintf(buf, sizeof buf, "%.*e", maxp - 1, v);
		split_e(buf, dig, nd, e10);
	}
	while (*nd > 1 && dig[*nd - 1] == '0')
		(*nd)--;
}

/* NaN, infinities and zeros as a language spells them: returns 1 with *rc
 * set when v was one of them (written whole); else 0 after writing the sign
 * of a negative v (*rc records a failed append). */
static int fp_special(pm_buf *out, double v, const char *nan, const char *inf, int *rc)
{
	if (isnan(v)) {
		*rc = pm_buf_puts(out, nan);
		return 1;
	}
	if (isinf(v)) {
		*rc = (v < 0 ? pm_buf_putc(out, '-') : 0) | pm_buf_puts(out, inf);
		return 1;
	}
	if (v == 0) {
		*rc = pm_buf_puts(out, signbit(v) ? "-0.0" : "0.0");
		return 1;
	}
	if (v < 0)
		*rc |= pm_buf_putc(out, '-');
	return 0;
}

/* Java Float/Double.toString (JDK 19+). */
static int java_fp(pm_buf *out, double v, int is_float)
{
	char dig[32];
	int nd = 0, e = 0, i, rc = 0; /* set by shortest(); initialised for gcc -O3 -Wmaybe-uninitialized */
	if (fp_special(out, v, "NaN", "Infinity", &rc))
		return rc;
	shortest(fabs(v), is_float, 2, dig, &nd, &e);
	if (e >= -3 && e < 7) {
		if (e >= 0) {
			for (i = 0; i <= e; i++)
				rc |= pm_buf_putc(out, i < nd ? dig[i] : '0');
			rc |= pm_buf_putc(out, '.');
			if (nd > e + 1)
				rc |= pm_buf_append(out, dig + e + 1, (size_t)(nd - e - 1));
			else
				rc |= pm_buf_putc(out, '0');
		} else {
			rc |= pm_buf_puts(out, "0.");
			for (i = 0; i < -e - 1; i++)
				rc |= pm_buf_putc(out, '0');
			rc |= pm_buf_append(out, dig, (size_t)nd);
		}
	} else {
		rc |= pm_buf_putc(out, dig[0]);
		rc |= pm_buf_putc(out, '.');
		if (nd > 1)
			rc |= pm_buf_append(out, dig + 1, (size_t)(nd - 1));
		else
			rc |= pm_buf_putc(out, '0');
		rc |= pm_buf_printf(out, "E%d", e);
	}
	return rc ? PAIMON_ENOMEM : 0;
}

/* Python repr(float). */
static int py_fp(pm_buf *out, double v)
{
	char dig[32];
	int nd, e, decpt, i, rc = 0;
	if (fp_special(out, v, "nan", "inf", &rc))
		return rc;
	shortest(fabs(v), 0, 1, dig, &nd, &e);
	decpt = e + 1;
	if (decpt <= -4 || decpt > 16) {
		rc |= pm_buf_putc(out, dig[0]);
		if (nd > 1) {
			rc |= pm_buf_putc(out, '.');
			rc |= pm_buf_append(out, dig + 1, (size_t)(nd - 1));
		}
		rc |= pm_buf_printf(out, "e%c%02d", e < 0 ? '-' : '+', abs(e));
	} else if (decpt <= 0) {
		rc |= pm_buf_puts(out, "0.");
		for (i = 0; i < -decpt; i++)
			rc |= pm_buf_putc(out, '0');
		rc |= pm_buf_append(out, dig, (size_t)nd);
	} else if (decpt >= nd) {
		rc |= pm_buf_append(out, dig, (size_t)nd);
		for (i = nd; i < decpt; i++)
			rc |= pm_buf_putc(out, '0');
		rc |= pm_buf_puts(out, ".0");
	} else {
		rc |= pm_buf_append(out, dig, (size_t)decpt);
		rc |= pm_buf_putc(out, '.');
		rc |= pm_buf_append(out, dig + decpt, (size_t)(nd - decpt));
	}
	return rc ? PAIMON_ENOMEM : 0;
}

/* ------------------------------------------------------------ decimals */

/* Magnitude digits of an unscaled value; *neg set. digits: NUL-terminated. */
static void decimal_digits(const pm_type *t, const pm_binrow_datum *d, char *digits, int *neg)
{
	if (t->precision <= 18) {
		int64_t v = d->i;
		uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
		*neg = v < 0;
		snprintf(digits, 48, "%llu", (unsigned long long)m);
		return;
	}
	{
		/* big-endian two's complement, at most 16 bytes -> base 1e9 limbs */
		uint8_t mag[16];
		uint32_t w[4] = {0, 0, 0, 0};
		size_t n = d->bytes.n > 16 ? 16 : d->bytes.n, i;
		int k;
		char tmp[64];
		int tn = 0;
		*neg = n > 0 && (d->bytes.p[0] & 0x80);
		memset(mag, *neg ? 0xFF : 0, sizeof mag);
		if (n)
			memcpy(mag + 16 - n, d->bytes.p + (d->bytes.n - n), n);
		if (*neg) { /* negate */
			int carry = 1;
			for (k = 15; k >= 0; k--) {
				int x = (uint8_t)~mag[k] + carry;
				mag[k] = (uint8_t)x;
				carry = x >> 8;
			}
		}
		for (i = 0; i < 4; i++)
			w[i] = (uint32_t)mag[i * 4] << 24 | (uint32_t)mag[i * 4 + 1] << 16 |
			       (uint32_t)mag[i * 4 + 2] << 8 | mag[i * 4 + 3];
		while (w[0] | w[1] | w[2] | w[3]) {
			uint64_t rem = 0;
			for (i = 0; i < 4; i++) {
				uint64_t cur = (rem << 32) | w[i];
				w[i] = (uint32_t)(cur / 10);
				rem = cur % 10;
			}
			tmp[tn++] = (char)('0' + rem);
		}
		if (tn == 0)
			tmp[tn++] = '0';
		for (k = 0; k < tn; k++)
			digits[k] = tmp[tn - 1 - k];
		digits[tn] = 0;
	}
}

/* digits with the decimal point `scale` places from the right. */
static int plain_digits(pm_buf *out, const char *dig, int nd, int scale)
{
	int i, rc = 0;
	if (scale == 0)
		return pm_buf_puts(out, dig);
	if (nd > scale) {
		rc |= pm_buf_append(out, dig, (size_t)(nd - scale));
		rc |= pm_buf_putc(out, '.');
		rc |= pm_buf_puts(out, dig + nd - scale);
	} else {
		rc |= pm_buf_puts(out, "0.");
		for (i = 0; i < scale - nd; i++)
			rc |= pm_buf_putc(out, '0');
		rc |= pm_buf_puts(out, dig);
	}
	return rc ? PAIMON_ENOMEM : 0;
}

/* BigDecimal.toPlainString of unscaled/scale. */
static int decimal_plain(pm_buf *out, const pm_type *t, const pm_binrow_datum *d)
{
	char dig[64];
	int neg;
	decimal_digits(t, d, dig, &neg);
	if (neg && pm_buf_putc(out, '-'))
		return PAIMON_ENOMEM;
	return plain_digits(out, dig, (int)strlen(dig), t->scale);
}

/* Python str(Decimal((sign, digits, -scale))). */
static int decimal_py(pm_buf *out, const pm_type *t, const pm_binrow_datum *d)
{
	char dig[64];
	int neg, nd, exp, adj, rc = 0;
	decimal_digits(t, d, dig, &neg);
	nd = (int)strlen(dig);
	exp = -t->scale;
	adj = exp + nd - 1;
	if (neg)
		rc |= pm_buf_putc(out, '-');
	if (exp <= 0 && adj >= -6)
		return rc | plain_digits(out, dig, nd, t->scale);
	rc |= pm_buf_putc(out, dig[0]);
	if (nd > 1) {
		rc |= pm_buf_putc(out, '.');
		rc |= pm_buf_puts(out, dig + 1);
	}
	rc |= pm_buf_printf(out, "E%c%d", adj < 0 ? '-' : '+', abs(adj));
	return rc ? PAIMON_ENOMEM : 0;
}

/* ------------------------------------------------------------ dates and times */

#define MILLIS_PER_DAY 86400000LL

static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;
	if ((a % b != 0) && ((a < 0) != (b < 0)))
		q--;
	return q;
}

/* Proleptic Gregorian civil date of days since 1970-01-01. */
static void civil(int64_t days, int64_t *y, int *m, int *d)
{
	int64_t z = days + 719468;
	int64_t era = floor_div(z, 146097);
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

/* java.time.LocalDate.toString */
static int java_local_date(pm_buf *out, int64_t days)
{
	int64_t y;
	int m, d, rc = 0;
	civil(days, &y, &m, &d);
	if (y > -1000 && y < 1000) {
		if (y < 0)
			rc |= pm_buf_printf(out, "-%04lld", (long long)-y);
		else
			rc |= pm_buf_printf(out, "%04lld", (long long)y);
	} else {
		if (y > 9999)
			rc |= pm_buf_putc(out, '+');
		rc |= pm_buf_printf(out, "%lld", (long long)y);
	}
	rc |= pm_buf_printf(out, "-%02d-%02d", m, d);
	return rc ? PAIMON_ENOMEM : 0;
}

/* java.time.LocalTime.toString of a nano of day. */
static int java_local_time(pm_buf *out, int64_t nod)
{
	int h = (int)(nod / 3600000000000LL), mi = (int)(nod / 60000000000LL % 60);
	int s = (int)(nod / 1000000000LL % 60), nano = (int)(nod % 1000000000LL), rc;
	rc = pm_buf_printf(out, "%02d:%02d", h, mi);
	if (s > 0 || nano > 0) {
		rc |= pm_buf_printf(out, ":%02d", s);
		if (nano > 0) {
			if (nano % 1000000 == 0)
				rc |= pm_buf_printf(out, ".%03d", nano / 1000000);
			else if (nano % 1000 == 0)
				rc |= pm_buf_printf(out, ".%06d", nano / 1000);
			else
				rc |= pm_buf_printf(out, ".%09d", nano);
		}
	}
	return rc ? PAIMON_ENOMEM : 0;
}

/* Timestamp.toString = LocalDateTime.toString */
static int java_local_datetime(pm_buf *out, int64_t millis, int32_t nano_of_milli)
{
	int64_t days = floor_div(millis, MILLIS_PER_DAY);
	int64_t tod = millis % MILLIS_PER_DAY; /* not millis - days * ...: overflows near INT64_MIN */
	if (tod < 0)
		tod += MILLIS_PER_DAY;
	int rc = java_local_date(out, days);
	if (!rc)
		rc = pm_buf_putc(out, 'T');
	if (!rc)
		rc = java_local_time(out, tod * 1000000LL + nano_of_milli);
	return rc;
}

/* DateTimeUtils.int4/int2 (Calcite): digits by char arithmetic, as Java. */
static int dtu_int(pm_buf *out, int v, int width)
{
	int rc = 0;
	if (width == 4) {
		rc |= pm_buf_putc(out, (char)('0' + (v / 1000) % 10));
		rc |= pm_buf_putc(out, (char)('0' + (v / 100) % 10));
	}
	rc |= pm_buf_putc(out, (char)('0' + (v / 10) % 10));
	rc |= pm_buf_putc(out, (char)('0' + v % 10));
	return rc;
}

/* DateTimeUtils.formatDate (julianToString). */
static int dtu_format_date(pm_buf *out, int32_t date)
{
	/* Java int addition wraps; unsigned arithmetic gives the same bits
	 * without signed overflow for corrupt day counts near INT32_MAX */
	int julian = (int32_t)((uint32_t)date + 2440588u);
	int j = (int32_t)((uint32_t)julian + 32044u);
	int g = j / 146097, dg = j % 146097;
	int c = (dg / 36524 + 1) * 3 / 4;
	int dc = dg - c * 36524;
	int b = dc / 1461, db = dc % 1461;
	int a = (db / 365 + 1) * 3 / 4;
	int da = db - a * 365;
	int y = g * 400 + c * 100 + b * 4 + a;
	int m = (da * 5 + 308) / 153 - 2;
	int d = da - (m + 4) * 153 / 5 + 122;
	int year = y - 4800 + (m + 2) / 12, month = (m + 2) % 12 + 1, day = d + 1, rc;
	rc = dtu_int(out, year, 4);
	rc |= pm_buf_putc(out, '-');
	rc |= dtu_int(out, month, 2);
	rc |= pm_buf_putc(out, '-');
	rc |= dtu_int(out, day, 2);
	return rc ? PAIMON_ENOMEM : 0;
}

/* DateTimeUtils.formatTimestampMillis(int time, int precision). */
static int dtu_format_time(pm_buf *out, int32_t time, int precision)
{
	int64_t tm = time;
	int h, m, s, ms, rc;
	while (tm < 0)
		tm += MILLIS_PER_DAY;
	h = (int)(tm / 3600000);
	m = (int)(tm % 3600000 / 60000);
	s = (int)(tm % 60000 / 1000);
	ms = (int)(tm % 1000);
	rc = dtu_int(out, h, 2);
	rc |= pm_buf_putc(out, ':');
	rc |= dtu_int(out, m, 2);
	rc |= pm_buf_putc(out, ':');
	rc |= dtu_int(out, s, 2);
	if (precision > 0) {
		rc |= pm_buf_putc(out, '.');
		while (precision > 0) {
			rc |= pm_buf_putc(out, (char)('0' + ms / 100));
			ms = ms % 100 * 10;
			if (ms == 0)
				break;
			--precision;
		}
	}
	return rc ? PAIMON_ENOMEM : 0;
}

/* DateTimeUtils.formatTimestamp(ts, precision) of a zone-less timestamp. */
static int dtu_format_timestamp(pm_buf *out, int64_t millis, int32_t nano_of_milli, int precision)
{
	int64_t days = floor_div(millis, MILLIS_PER_DAY), y;
	int64_t tod = millis % MILLIS_PER_DAY; /* not millis - days * ...: overflows near INT64_MIN */
	if (tod < 0)
		tod += MILLIS_PER_DAY;
	int m, d, rc;
	char frac[16];
	int flen;
	civil(days, &y, &m, &d);
	rc = dtu_int(out, (int)y, 4);
	rc |= pm_buf_putc(out, '-');
	rc |= dtu_int(out, m, 2);
	rc |= pm_buf_putc(out, '-');
	rc |= dtu_int(out, d, 2);
	rc |= pm_buf_putc(out, ' ');
	rc |= dtu_int(out, (int)(tod / 3600000), 2);
	rc |= pm_buf_putc(out, ':');
	rc |= dtu_int(out, (int)(tod % 3600000 / 60000), 2);
	rc |= pm_buf_putc(out, ':');
	rc |= dtu_int(out, (int)(tod % 60000 / 1000), 2);
	snprintf(frac, sizeof frac, "%09lld", (long long)(tod % 1000 * 1000000 + nano_of_milli));
	flen = 9;
	while (flen > precision && frac[flen - 1] == '0')
		flen--;
	if (flen > 0) {
		rc |= pm_buf_putc(out, '.');
		rc |= pm_buf_append(out, frac, (size_t)flen);
	}
	return rc ? PAIMON_ENOMEM : 0;
}

/* Offset (millis) of the local zone at a UTC instant, as Java's default zone. */
static int64_t local_offset_millis(int64_t utc_millis)
{
	time_t secs = (time_t)floor_div(utc_millis, 1000);
	struct tm tmv;
	if (!localtime_r(&secs, &tmv))
		return 0;
	return (int64_t)tmv.tm_gmtoff * 1000;
}

/* Python str() of date / time / datetime. */
static int py_datetime(pm_buf *out, int64_t millis, int32_t nano_of_milli, int ltz)
{
	/* split before scaling: millis * 1000 overflows for corrupt rows */
	int64_t secs = floor_div(millis, 1000), us = millis % 1000;
	us = (us < 0 ? us + 1000 : us) * 1000 + nano_of_milli / 1000;
	int64_t days = floor_div(secs, 86400), sod = secs - days * 86400, y;
	int m, d, rc;
	civil(days, &y, &m, &d);
	rc = pm_buf_printf(out, "%04lld-%02d-%02d %02d:%02d:%02d", (long long)y, m, d, (int)(sod / 3600),
			   (int)(sod / 60 % 60), (int)(sod % 60));
	if (us)
		rc |= pm_buf_printf(out, ".%06lld", (long long)us);
	if (ltz)
		rc |= pm_buf_puts(out, "+00:00");
	return rc ? PAIMON_ENOMEM : 0;
}

/* Python repr of bytes (b'...'). */
static int py_bytes(pm_buf *out, const uint8_t *p, size_t n)
{
	size_t i;
	int sq = 0, dq = 0, rc = 0;
	char q;
	for (i = 0; i < n; i++) {
		sq |= p[i] == '\'';
		dq |= p[i] == '"';
	}
	q = sq && !dq ? '"' : '\'';
	rc |= pm_buf_putc(out, 'b');
	rc |= pm_buf_putc(out, q);
	for (i = 0; i < n; i++) {
		uint8_t c = p[i];
		if (c == (uint8_t)q || c == '\\')
			rc |= pm_buf_printf(out, "\\%c", c);
		else if (c == '\t')
			rc |= pm_buf_puts(out, "\\t");
		else if (c == '\n')
			rc |= pm_buf_puts(out, "\\n");
		else if (c == '\r')
			rc |= pm_buf_puts(out, "\\r");
		else if (c < 0x20 || c >= 0x7F)
			rc |= pm_buf_printf(out, "\\x%02x", c);
		else
			rc |= pm_buf_putc(out, (char)c);
	}
	rc |= pm_buf_putc(out, q);
	return rc ? PAIMON_ENOMEM : 0;
}

static int valid_utf8(const uint8_t *p, size_t n)
{
	size_t i = 0;
	while (i < n) {
		size_t before = i;
		uint32_t c = next_cp(p, n, &i);
		if (c == 0xFFFD && !(i - before == 3 && p[before] == 0xEF))
			return 0;
		if (c >= 0xD800 && c <= 0xDFFF)
			return 0;
	}
	return 1;
}

/* ------------------------------------------------------------ value strings */

/* Appends the value string of a non-null value in the given style. */
static int value_string(const pm_partition_info *pi, const char *name, const pm_type *t,
			const pm_binrow_datum *d, pm_part_style style, pm_buf *out)
{
	int legacy = pi->legacy_name, py = style == PM_PART_PYTHON;
	switch (t->root) {
	case PM_BOOLEAN:
		return pm_buf_puts(out, py ? (d->i ? "True" : "False") : (d->i ? "true" : "false"));
	case PM_TINYINT:
	case PM_SMALLINT:
	case PM_INT:
	case PM_BIGINT:
		return pm_buf_printf(out, "%lld", (long long)d->i);
	case PM_FLOAT:
		return py ? py_fp(out, (double)d->f) : java_fp(out, (double)d->f, 1);
	case PM_DOUBLE:
		return py ? py_fp(out, d->d) : java_fp(out, d->d, 0);
	case PM_DECIMAL:
		return py ? decimal_py(out, t, d) : decimal_plain(out, t, d);
	case PM_CHAR:
	case PM_VARCHAR:
		return pm_buf_append(out, d->bytes.p, d->bytes.n);
	case PM_DATE:
		if (py) {
			int64_t y;
			int m, dd;
			civil(d->i, &y, &m, &dd);
			return pm_buf_printf(out, "%04lld-%02d-%02d", (long long)y, m, dd);
		}
		return legacy ? pm_buf_printf(out, "%d", (int)d->i) : dtu_format_date(out, (int32_t)d->i);
	case PM_TIME:
		if (py) {
			int64_t ms = d->i;
			int rc = pm_buf_printf(out, "%02d:%02d:%02d", (int)(ms / 3600000), (int)(ms / 60000 % 60),
					       (int)(ms / 1000 % 60));
			if (!rc && ms % 1000)
				rc = pm_buf_printf(out, ".%06d", (int)(ms % 1000) * 1000);
			return rc;
		}
		return legacy ? pm_buf_printf(out, "%d", (int)d->i)
			      : dtu_format_time(out, (int32_t)d->i, t->precision);
	case PM_TIMESTAMP:
	case PM_TIMESTAMP_LTZ: {
		int32_t nano = t->precision > 3 ? d->ts.nano_of_milli : 0;
		if (py)
			return py_datetime(out, d->ts.millis, nano, t->root == PM_TIMESTAMP_LTZ);
		if (legacy)
			return java_local_datetime(out, d->ts.millis, nano);
		if (t->root == PM_TIMESTAMP_LTZ)
			return dtu_format_timestamp(out, d->ts.millis + local_offset_millis(d->ts.millis), nano,
						    t->precision);
		return dtu_format_timestamp(out, d->ts.millis, nano, t->precision);
	}
	case PM_BINARY:
	case PM_VARBINARY:
		if (py)
			return py_bytes(out, d->bytes.p, d->bytes.n);
		if (legacy)
			return pm_err(PAIMON_EUNSUPPORTED,
				      "partition key '%s': a %s value has no reproducible directory name with "
				      "partition.legacy-name=true (Java prints byte[].toString())",
				      name, t->root == PM_BINARY ? "BINARY" : "VARBINARY");
		if (!valid_utf8(d->bytes.p, d->bytes.n))
			return pm_err(PAIMON_EUNSUPPORTED,
				      "partition key '%s': binary value is not valid UTF-8", name);
		return pm_buf_append(out, d->bytes.p, d->bytes.n);
	default:
		return pm_err(PAIMON_EUNSUPPORTED, "partition key '%s' has a type that cannot be a partition key",
			      name);
	}
}

int pm_partition_path(const pm_partition_info *pi, const uint8_t *p, size_t n, pm_part_style style,
		      pm_buf *out)
{
	pm_binrow_datum *vals;
	pm_buf v = {0};
	size_t i;
	int rc = 0;
	if (pi->n == 0)
		return 0;
	vals = pm_calloc(pi->n, sizeof *vals);
	if (!vals)
		return PAIMON_ENOMEM;
	rc = pm_partition_decode(pi, p, n, vals);
	for (i = 0; !rc && i < pi->n; i++) {
		const char *s;
		size_t sl;
		pm_buf_clear(&v);
		if (!vals[i].is_null)
			rc = value_string(pi, pi->names[i], pi->types[i], &vals[i], style, &v);
		if (rc)
			break;
		s = v.len ? pm_buf_cstr(&v) : "";
		sl = v.len;
		if (vals[i].is_null || blank(s, sl, style == PM_PART_PYTHON)) {
			s = pi->default_name;
			sl = strlen(s);
		}
		if (style == PM_PART_PYTHON) {
			rc = pm_buf_puts(out, pi->names[i]);
			if (!rc)
				rc = pm_buf_putc(out, '=');
			if (!rc)
				rc = pm_buf_append(out, s, sl);
		} else {
			rc = pm_partition_escape(pi->names[i], strlen(pi->names[i]), out);
			if (!rc)
				rc = pm_buf_putc(out, '=');
			if (!rc)
				rc = pm_partition_escape(s, sl, out);
		}
		if (!rc)
			rc = pm_buf_putc(out, '/');
	}
	pm_buf_dispose(&v);
	pm_free(vals);
	return rc;
}

int pm_partition_from_spec(const pm_partition_info *pi, const pm_strmap *spec, pm_buf *out)
{
	pm_binrow_datum *vals = NULL;
	uint8_t **owned = NULL;
	size_t i, j;
	int rc = 0;

	for (j = 0; j < spec->len; j++) {
		for (i = 0; i < pi->n; i++)
			if (strcmp(pi->names[i], spec->keys[j]) == 0)
				break;
		if (i == pi->n)
			return pm_err(PAIMON_EINVAL, "partition spec key '%s' is not a partition key",
				      spec->keys[j]);
	}
	if (pi->n == 0)
		return pm_binrow_encode(NULL, NULL, 0, 0, 1, out);
	vals = pm_calloc(pi->n, sizeof *vals);
	owned = pm_calloc(pi->n, sizeof *owned);
	if (!vals || !owned) {
		rc = PAIMON_ENOMEM;
		goto done;
	}
	for (i = 0; i < pi->n; i++) {
		const char *text = pm_strmap_get(spec, pi->names[i]);
		if (!text) {
			rc = pm_err(PAIMON_EINVAL, "partition spec lacks partition key '%s'", pi->names[i]);
			goto done;
		}
		if (strcmp(text, pi->default_name) == 0) {
			vals[i].is_null = 1;
			continue;
		}
		rc = pm_datum_from_text(pi->types[i], text, strlen(text), &vals[i], &owned[i]);
		if (rc) {
			rc = pm_err_wrap("partition key '%s'", pi->names[i]);
			goto done;
		}
	}
	rc = pm_partition_encode(pi, vals, out);
done:
	if (owned)
		for (i = 0; i < pi->n; i++)
			pm_free(owned[i]);
	pm_free(owned);
	pm_free(vals);
	return rc;
}

int pm_partition_to_display(const pm_partition_info *pi, const uint8_t *p, size_t n, pm_buf *out)
{
	pm_binrow_datum *vals;
	size_t i;
	int rc;
	if (pi->n == 0)
		return 0;
	vals = pm_calloc(pi->n, sizeof *vals);
	if (!vals)
		return PAIMON_ENOMEM;
	rc = pm_partition_decode(pi, p, n, vals);
	for (i = 0; !rc && i < pi->n; i++) {
		rc = pm_buf_printf(out, "%s%s=", i ? ", " : "", pi->names[i]);
		if (rc)
			break;
		if (vals[i].is_null)
			rc = pm_buf_puts(out, "null");
		else
			rc = pm_datum_to_text(pi->types[i], &vals[i], out);
	}
	pm_free(vals);
	return rc;
}

/* ------------------------------------------------------------ buckets */

static uint32_t rotl32(uint32_t x, int r)
{
	return (x << r) | (x >> (32 - r));
}

int32_t pm_binrow_hash(const uint8_t *row, size_t n)
{
	uint32_t h1 = 42;
	size_t i, aligned = n - n % 4;
	for (i = 0; i < aligned; i += 4) {
		uint32_t k1 = (uint32_t)row[i] | (uint32_t)row[i + 1] << 8 | (uint32_t)row[i + 2] << 16 |
			      (uint32_t)row[i + 3] << 24;
		k1 *= 0xCC9E2D51u;
		k1 = rotl32(k1, 15);
		k1 *= 0x1B873593u;
		h1 ^= k1;
		h1 = rotl32(h1, 13);
		h1 = h1 * 5 + 0xE6546B64u;
	}
	h1 ^= (uint32_t)n;
	h1 ^= h1 >> 16;
	h1 *= 0x85EBCA6Bu;
	h1 ^= h1 >> 13;
	h1 *= 0xC2B2AE35u;
	h1 ^= h1 >> 16;
	return (int32_t)h1;
}

int32_t pm_bucket_of_hash(int32_t hash, int32_t num_buckets)
{
	int64_t r;
	if (num_buckets <= 0)
		return 0;
	r = (int64_t)hash % num_buckets;
	return (int32_t)(r < 0 ? -r : r);
}

typedef struct agg_ref {
	const pm_manifest_entry *e;
	size_t order;                /* entry index: groups keep their first one */
} agg_ref;

static int cmp_partition(const pm_bytes *a, const pm_bytes *b)
{
	size_t n = a->n < b->n ? a->n : b->n;
	int c = n ? memcmp(a->p, b->p, n) : 0;
	return c ? c : (a->n > b->n) - (a->n < b->n);
}

static int cmp_agg_ref(const void *x, const void *y)
{
	const agg_ref *a = x, *b = y;
	int c = cmp_partition(&a->e->partition, &b->e->partition);
	return c ? c : (a->order > b->order) - (a->order < b->order);
}

typedef struct agg_group {
	pm_partition_agg a;
	size_t first;                /* order of the partition's first entry */
} agg_group;

static int cmp_agg_group(const void *x, const void *y)
{
	const agg_group *a = x, *b = y;
	return (a->first > b->first) - (a->first < b->first);
}

int pm_partition_aggregate(const pm_manifest_entry_list *live, pm_partition_agg **out, size_t *n)
{
	agg_ref *v;
	agg_group *g = NULL;
	pm_partition_agg *res = NULL;
	size_t m = 0, ng = 0, i;
	*out = NULL;
	*n = 0;
	if (!(v = pm_malloc((live->len + 1) * sizeof *v)) || !(g = pm_calloc(live->len + 1, sizeof *g)) ||
	    !(res = pm_malloc((live->len + 1) * sizeof *res))) {
		pm_free(v);
		pm_free(g);
		return PAIMON_ENOMEM;
	}
	for (i = 0; i < live->len; i++)
		if (live->items[i].kind == PM_FILE_KIND_ADD) {
			v[m].e = &live->items[i];
			v[m].order = i;
			m++;
		}
	/* entries by partition, then order: a partition's first entry starts its group */
	qsort(v, m, sizeof *v, cmp_agg_ref);
	for (i = 0; i < m; i++) {
		const pm_data_file_meta *f = &v[i].e->file;
		pm_partition_agg *a;
		if (!i || cmp_partition(&v[i - 1].e->partition, &v[i].e->partition)) {
			g[ng].a.partition = &v[i].e->partition;
			g[ng].a.last_creation = INT64_MIN;
			g[ng].first = v[i].order;
			ng++;
		}
		a = &g[ng - 1].a;
		if (!pm_file_is_blob(f->file_name) && !pm_file_is_vector(f->file_name))
			a->rows += f->row_count;
		a->bytes += f->file_size;
		a->files++;
		if (f->has_creation_time && f->creation_time > a->last_creation)
			a->last_creation = f->creation_time;
	}
	/* partitions in order of first appearance */
	qsort(g, ng, sizeof *g, cmp_agg_group);
	for (i = 0; i < ng; i++)
		res[i] = g[i].a;
	pm_free(v);
	pm_free(g);
	*out = res;
	*n = ng;
	return 0;
}
