/*
 * table/stats.c - value statistics of data files as Java Paimon 1.4.2
 * computes them for Parquet files:
 *   StatsCollectorFactories.createStatsFactories (modes per column),
 *   ParquetUtil.extractColumnStats (chunk statistics merged over row groups,
 *     keyed by the dotted column path: nested columns never match a
 *     top-level field name, so they get no stats at all, i.e. NONE),
 *   ParquetSimpleStatsExtractor.toFieldStats (which types get min/max),
 *   parquet-java's footer reading (min_value/max_value preferred, legacy
 *     min/max only for signed-order types, NaN float bounds dropped, -0.0/+0.0
 *     widened),
 *   Truncate/Counts/Full/NoneSimpleColStatsCollector.convert,
 *   SimpleStatsConverter (dense store).
 */
#include "table/stats.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "types/datum.h"

/* ------------------------------------------------------------ modes */

int pm_stats_mode_parse(const char *text, pm_stats_mode *out)
{
	size_t n = text ? strlen(text) : 0;
	memset(out, 0, sizeof *out);
	if (!text)
		return pm_err(PAIMON_EINVAL, "stats mode: missing value");
	if (strcasecmp(text, "none") == 0) {
		out->kind = PM_STATS_NONE;
		return 0;
	}
	if (strcasecmp(text, "counts") == 0) {
		out->kind = PM_STATS_COUNTS;
		return 0;
	}
	if (strcasecmp(text, "full") == 0) {
		out->kind = PM_STATS_FULL;
		return 0;
	}
	if (n > 10 && strncasecmp(text, "truncate(", 9) == 0 && text[n - 1] == ')') {
		size_t i;
		long long v = 0;
		for (i = 9; i < n - 1; i++) {
			if (!isdigit((unsigned char)text[i]))
				break;
			v = v * 10 + (text[i] - '0');
			if (v > 2147483647LL)
				return pm_err(PAIMON_EINVAL, "stats mode '%s': length out of range", text);
		}
		if (i == n - 1) {
			if (v <= 0)
				return pm_err(PAIMON_EINVAL,
					      "stats mode '%s': truncate length should be larger than zero", text);
			out->kind = PM_STATS_TRUNCATE;
			out->truncate_len = (int)v;
			return 0;
		}
	}
	return pm_err(PAIMON_EINVAL, "unexpected stats mode '%s' (none, counts, full or truncate(N))", text);
}

static int is_system_field(const char *name)
{
	return strncmp(name, "_KEY_", 5) == 0 || strcmp(name, "_SEQUENCE_NUMBER") == 0 ||
	       strcmp(name, "_VALUE_KIND") == 0;
}

int pm_stats_modes(const pm_table_schema *s, pm_stats_mode **modes, int *dense)
{
	const char *def = pm_strmap_get(&s->options, "metadata.stats-mode");
	const char *keep_s = pm_strmap_get(&s->options, "metadata.stats-keep-first-n-columns");
	const char *dense_s = pm_strmap_get(&s->options, "metadata.stats-dense-store");
	pm_stats_mode dm, *m;
	long long keep = -1;
	long count = 0;
	size_t i;
	int rc;

	*modes = NULL;
	rc = pm_stats_mode_parse(def ? def : "truncate(16)", &dm);
	if (rc)
		return pm_err_wrap("option 'metadata.stats-mode'");
	if (keep_s && (pm_parse_i64(keep_s, &keep) != 0 || keep < -2147483648LL || keep > 2147483647LL))
		return pm_err(PAIMON_EINVAL, "option 'metadata.stats-keep-first-n-columns': '%s' is not an int",
			      keep_s);
	*dense = 1;
	if (dense_s && pm_parse_bool(dense_s, dense) != 0)
		return pm_err(PAIMON_EINVAL, "option 'metadata.stats-dense-store': '%s' is not a boolean",
			      dense_s);
	m = pm_calloc(s->nfields ? s->nfields : 1, sizeof *m);
	if (!m)
		return PAIMON_ENOMEM;
	for (i = 0; i < s->nfields; i++) {
		const char *name = s->fields[i].name;
		char key[1024];
		const char *fm;
		snprintf(key, sizeof key, "fields.%s.stats-mode", name);
		fm = pm_strmap_get(&s->options, key);
		if (fm) {
			if (pm_stats_mode_parse(fm, &m[i]) != 0) {
				pm_free(m);
				return pm_err_wrap("option '%s'", key);
			}
			count++;
		} else if (is_system_field(name)) {
			m[i].kind = PM_STATS_TRUNCATE;
			m[i].truncate_len = 128;
		} else {
			if (keep >= 0 && count >= keep)
				m[i].kind = PM_STATS_NONE;
			else
				m[i] = dm;
			count++;
		}
	}
	*modes = m;
	return 0;
}

/* ------------------------------------------------------------ parquet */

typedef struct col_acc {
	int found;           /* a column chunk with this top-level name exists */
	int64_t null_count;  /* -1 unknown */
	int has_minmax;
	pm_binrow_datum min, max;
	uint8_t *min_buf, *max_buf; /* owned copies for byte values */
} col_acc;

static int64_t le_i32(const uint8_t *p)
{
	return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

static int64_t le_i64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;
	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return (int64_t)v;
}

static int64_t floor_div64(int64_t a, int64_t b)
{
	int64_t q = a / b;
	if ((a % b != 0) && ((a < 0) != (b < 0)))
		q--;
	return q;
}

/* Which types get min/max (ParquetSimpleStatsExtractor.toFieldStats). */
static int minmax_type(const pm_type *t)
{
	switch (t->root) {
	case PM_BOOLEAN: case PM_TINYINT: case PM_SMALLINT: case PM_INT: case PM_BIGINT:
	case PM_FLOAT: case PM_DOUBLE: case PM_DECIMAL: case PM_CHAR: case PM_VARCHAR:
	case PM_DATE: case PM_TIME:
		return 1;
	case PM_TIMESTAMP: case PM_TIMESTAMP_LTZ:
		return t->precision <= 6;
	default:
		return 0;
	}
}

/* Converts one Parquet statistics bound (PLAIN bytes of physical type ptype)
 * to a datum of t. Returns 0 ok, 1 "no value" (unsupported physical form),
 * PAIMON_ECORRUPT for a bound of the wrong size. */
static int bound_to_datum(const pm_type *t, int ptype, const pm_pq_bin *b, pm_binrow_datum *d,
			  uint8_t *scratch)
{
	const uint8_t *p = b->p;
	size_t n = b->len;
	memset(d, 0, sizeof *d);
	switch (t->root) {
	case PM_BOOLEAN:
		if (ptype != PM_PQ_BOOLEAN || n < 1)
			return 1;
		d->i = p[0] != 0;
		return 0;
	case PM_TINYINT: case PM_SMALLINT: case PM_INT: case PM_DATE: case PM_TIME:
		if (ptype != PM_PQ_INT32)
			return 1;
		if (n != 4)
			return PAIMON_ECORRUPT;
		d->i = le_i32(p);
		if (t->root == PM_TINYINT)
			d->i = (int8_t)d->i;
		else if (t->root == PM_SMALLINT)
			d->i = (int16_t)d->i;
		return 0;
	case PM_BIGINT:
		if (ptype != PM_PQ_INT64)
			return 1;
		if (n != 8)
			return PAIMON_ECORRUPT;
		d->i = le_i64(p);
		return 0;
	case PM_FLOAT: {
		uint32_t bits;
		if (ptype != PM_PQ_FLOAT)
			return 1;
		if (n != 4)
			return PAIMON_ECORRUPT;
		bits = (uint32_t)le_i32(p);
		memcpy(&d->f, &bits, 4);
		return 0;
	}
	case PM_DOUBLE: {
		uint64_t bits;
		if (ptype != PM_PQ_DOUBLE)
			return 1;
		if (n != 8)
			return PAIMON_ECORRUPT;
		bits = (uint64_t)le_i64(p);
		memcpy(&d->d, &bits, 8);
		return 0;
	}
	case PM_CHAR: case PM_VARCHAR:
		if (ptype != PM_PQ_BYTE_ARRAY && ptype != PM_PQ_FIXED_LEN_BYTE_ARRAY)
			return 1;
		d->bytes.p = p;
		d->bytes.n = n;
		return 0;
	case PM_DECIMAL:
		if (ptype == PM_PQ_INT32 || ptype == PM_PQ_INT64) {
			int64_t v;
			if (n != (ptype == PM_PQ_INT32 ? 4u : 8u))
				return PAIMON_ECORRUPT;
			v = ptype == PM_PQ_INT32 ? le_i32(p) : le_i64(p);
			if (t->precision <= 18) {
				d->i = v;
			} else { /* minimal big-endian bytes */
				int k;
				for (k = 0; k < 8; k++)
					scratch[k] = (uint8_t)((uint64_t)v >> (56 - 8 * k));
				p = scratch;
				n = 8;
				goto minimal;
			}
			return 0;
		}
		if (ptype != PM_PQ_BYTE_ARRAY && ptype != PM_PQ_FIXED_LEN_BYTE_ARRAY)
			return 1;
		if (n == 0)
			return 1;
		if (t->precision <= 18) {
			uint64_t v = (p[0] & 0x80) ? ~(uint64_t)0 : 0;
			size_t k;
			if (n > 8) { /* must be sign extension */
				for (k = 0; k < n - 8; k++)
					if (p[k] != ((p[0] & 0x80) ? 0xFF : 0))
						return 1;
			}
			for (k = n > 8 ? n - 8 : 0; k < n; k++)
				v = v << 8 | p[k];
			d->i = (int64_t)v;
			return 0;
		}
	minimal:
		while (n > 1 && ((p[0] == 0 && !(p[1] & 0x80)) || (p[0] == 0xFF && (p[1] & 0x80)))) {
			p++;
			n--;
		}
		if (n > 16)
			return 1;
		d->bytes.p = p;
		d->bytes.n = n;
		return 0;
	case PM_TIMESTAMP: case PM_TIMESTAMP_LTZ: {
		int64_t v;
		if (ptype != PM_PQ_INT64 || t->precision > 6)
			return 1;
		if (n != 8)
			return PAIMON_ECORRUPT;
		v = le_i64(p);
		if (t->precision <= 3) {
			d->ts.millis = v;
		} else {
			d->ts.millis = floor_div64(v, 1000);
			d->ts.nano_of_milli = (int32_t)((v - d->ts.millis * 1000) * 1000);
		}
		return 0;
	}
	default:
		return 1;
	}
}

static int keep_bytes(const pm_type *t, pm_binrow_datum *d, uint8_t **buf)
{
	int bytes = t->root == PM_CHAR || t->root == PM_VARCHAR || (t->root == PM_DECIMAL && t->precision > 18);
	pm_free(*buf);
	*buf = NULL;
	if (!bytes)
		return 0;
	*buf = pm_malloc(d->bytes.n ? d->bytes.n : 1);
	if (!*buf)
		return PAIMON_ENOMEM;
	if (d->bytes.n)
		memcpy(*buf, d->bytes.p, d->bytes.n);
	d->bytes.p = *buf;
	return 0;
}

/* Folds one chunk's statistics into acc. */
static int fold_chunk(const pm_field *f, const pm_pq_column_meta *cm, col_acc *acc, int first)
{
	const pm_type *t = f->type;
	const pm_pq_statistics *st = &cm->statistics;
	const pm_pq_bin *lo = NULL, *hi = NULL;
	pm_binrow_datum mn, mx;
	uint8_t s1[8], s2[8];
	int rc1, rc2;

	if (!cm->has_statistics || !st->has_null_count)
		acc->null_count = -1;
	else if (first)
		acc->null_count = st->null_count;
	else if (acc->null_count >= 0)
		acc->null_count += st->null_count;
	if (!cm->has_statistics || !minmax_type(t))
		return 0;
	if (st->min_value.set && st->max_value.set) {
		lo = &st->min_value;
		hi = &st->max_value;
	} else if (st->min.set && st->max.set &&
		   ((cm->type != PM_PQ_BYTE_ARRAY && cm->type != PM_PQ_FIXED_LEN_BYTE_ARRAY) ||
		    (st->min.len == st->max.len && memcmp(st->min.p, st->max.p, st->min.len) == 0))) {
		lo = &st->min;
		hi = &st->max;
	}
	if (!lo)
		return 0;
	rc1 = bound_to_datum(t, cm->type, lo, &mn, s1);
	rc2 = bound_to_datum(t, cm->type, hi, &mx, s2);
	if (rc1 < 0 || rc2 < 0)
		return pm_err(PAIMON_ECORRUPT, "column '%s': statistics bound of the wrong size", f->name);
	if (rc1 || rc2)
		return 0;
	if (t->root == PM_FLOAT) {
		if (isnan(mn.f) || isnan(mx.f))
			return 0;
		if (mn.f == 0)
			mn.f = -0.0f;
		if (mx.f == 0)
			mx.f = 0.0f;
	} else if (t->root == PM_DOUBLE) {
		if (isnan(mn.d) || isnan(mx.d))
			return 0;
		if (mn.d == 0)
			mn.d = -0.0;
		if (mx.d == 0)
			mx.d = 0.0;
	}
	if (!acc->has_minmax || pm_datum_compare(t, &mn, &acc->min) < 0) {
		acc->min = mn;
		if (keep_bytes(t, &acc->min, &acc->min_buf))
			return PAIMON_ENOMEM;
	}
	if (!acc->has_minmax || pm_datum_compare(t, &mx, &acc->max) > 0) {
		acc->max = mx;
		if (keep_bytes(t, &acc->max, &acc->max_buf))
			return PAIMON_ENOMEM;
	}
	acc->has_minmax = 1;
	return 0;
}

/* UTF-8 helpers for truncation (code points as BinaryString counts them). */
static size_t utf8_len(uint8_t c)
{
	if (c < 0x80)
		return 1;
	if ((c & 0xE0) == 0xC0)
		return 2;
	if ((c & 0xF0) == 0xE0)
		return 3;
	if ((c & 0xF8) == 0xF0)
		return 4;
	return 1;
}

/* Byte length of the first n code points. */
static size_t prefix_bytes(const uint8_t *p, size_t len, size_t n)
{
	size_t i = 0, k;
	for (k = 0; k < n && i < len; k++) {
		i += utf8_len(p[i]);
		if (i > len)
			i = len;
	}
	return i;
}

static uint32_t decode_cp(const uint8_t *p, size_t n)
{
	uint32_t c = p[0];
	size_t k;
	if (n == 1)
		return c;
	c &= n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07;
	for (k = 1; k < n; k++)
		c = c << 6 | (p[k] & 0x3F);
	return c;
}

static size_t encode_cp(uint32_t c, uint8_t *o)
{
	if (c >= 0xD800 && c <= 0xDFFF) { /* lone surrogate: BinaryString.encodeUTF8 writes '?' */
		o[0] = '?';
		return 1;
	}
	if (c < 0x80) {
		o[0] = (uint8_t)c;
		return 1;
	}
	if (c < 0x800) {
		o[0] = (uint8_t)(0xC0 | c >> 6);
		o[1] = (uint8_t)(0x80 | (c & 0x3F));
		return 2;
	}
	if (c < 0x10000) {
		o[0] = (uint8_t)(0xE0 | c >> 12);
		o[1] = (uint8_t)(0x80 | (c >> 6 & 0x3F));
		o[2] = (uint8_t)(0x80 | (c & 0x3F));
		return 3;
	}
	o[0] = (uint8_t)(0xF0 | c >> 18);
	o[1] = (uint8_t)(0x80 | (c >> 12 & 0x3F));
	o[2] = (uint8_t)(0x80 | (c >> 6 & 0x3F));
	o[3] = (uint8_t)(0x80 | (c & 0x3F));
	return 4;
}

/* TruncateSimpleColStatsCollector.convert for strings. Returns 1 when no
 * upper bound exists (min/max both dropped). */
static int truncate_string(col_acc *acc, int len)
{
	size_t mb = prefix_bytes(acc->min.bytes.p, acc->min.bytes.n, (size_t)len);
	size_t xb = prefix_bytes(acc->max.bytes.p, acc->max.bytes.n, (size_t)len);
	const uint8_t *x = acc->max.bytes.p;
	size_t starts[64], *st = starts, ncp = 0, i;
	acc->min.bytes.n = mb;
	if (xb == acc->max.bytes.n)
		return 0;
	if ((size_t)len > sizeof starts / sizeof starts[0]) {
		st = pm_malloc((size_t)len * sizeof *st);
		if (!st)
			return PAIMON_ENOMEM;
	}
	for (i = 0; i < xb; i += utf8_len(x[i]))
		st[ncp++] = i;
	for (i = ncp; i-- > 0;) {
		size_t cl = (i + 1 < ncp ? st[i + 1] : xb) - st[i];
		uint32_t next = decode_cp(x + st[i], cl) + 1;
		if (next <= 0x10FFFF) {
			/* acc->max_buf owns x; rewrite it in place (the new code point
			 * needs at most 4 bytes, the buffer holds the full original). */
			uint8_t enc[4];
			size_t el = encode_cp(next, enc);
			if (st[i] + el > acc->max.bytes.n) {
				uint8_t *nb = pm_realloc(acc->max_buf, st[i] + el);
				if (!nb) {
					if (st != starts)
						pm_free(st);
					return PAIMON_ENOMEM;
				}
				acc->max_buf = nb;
			}
			memcpy(acc->max_buf + st[i], enc, el);
			acc->max.bytes.p = acc->max_buf;
			acc->max.bytes.n = st[i] + el;
			if (st != starts)
				pm_free(st);
			return 0;
		}
	}
	if (st != starts)
		pm_free(st);
	return 1;
}

static const pm_pq_column_meta *find_chunk(const pm_pq_row_group *rg, const char *name)
{
	size_t j;
	for (j = 0; j < rg->n_columns; j++) {
		const pm_pq_column_chunk *cc = &rg->columns[j];
		if (cc->has_meta_data && cc->meta_data.n_path == 1 &&
		    strcmp(cc->meta_data.path_in_schema[0], name) == 0)
			return &cc->meta_data;
	}
	return NULL;
}

int pm_stats_from_parquet(const pm_table_schema *s, const pm_stats_mode *modes, int dense,
			  const pm_pq_file_meta *fm, pm_simple_stats *out, int *has_cols,
			  pm_strlist *out_cols)
{
	size_t nf = s->nfields, i, r, k = 0;
	col_acc *acc = NULL;
	int *keep = NULL;
	const pm_type **types = NULL;
	pm_binrow_datum *mins = NULL, *maxs = NULL;
	pm_buf bmin = {0}, bmax = {0};
	int rc = 0;

	memset(out, 0, sizeof *out);
	*has_cols = 0;
	acc = pm_calloc(nf + 1, sizeof *acc);
	keep = pm_calloc(nf + 1, sizeof *keep);
	types = pm_calloc(nf + 1, sizeof *types);
	mins = pm_calloc(nf + 1, sizeof *mins);
	maxs = pm_calloc(nf + 1, sizeof *maxs);
	out->null_counts = pm_calloc(nf + 1, sizeof *out->null_counts);
	if (!acc || !keep || !types || !mins || !maxs || !out->null_counts) {
		rc = PAIMON_ENOMEM;
		goto done;
	}
	for (i = 0; i < nf; i++) {
		const pm_field *f = &s->fields[i];
		col_acc *a = &acc[i];
		int none = modes[i].kind == PM_STATS_NONE;
		a->null_count = -1;
		for (r = 0; !none && r < fm->n_row_groups; r++) {
			const pm_pq_column_meta *cm = find_chunk(&fm->row_groups[r], f->name);
			if (!cm)
				continue;
			rc = fold_chunk(f, cm, a, !a->found);
			if (rc)
				goto done;
			a->found = 1;
		}
		/* stats == null (nested columns, no chunk) and mode none: NONE */
		keep[i] = !none && a->found;
		mins[i].is_null = maxs[i].is_null = 1;
		if (!keep[i])
			continue;
		switch (modes[i].kind) {
		case PM_STATS_COUNTS:
			a->has_minmax = 0;
			break;
		case PM_STATS_TRUNCATE:
			if (a->has_minmax && (f->type->root == PM_CHAR || f->type->root == PM_VARCHAR)) {
				int t = truncate_string(a, modes[i].truncate_len);
				if (t < 0) {
					rc = t;
					goto done;
				}
				if (t)
					a->has_minmax = 0;
			}
			break;
		default:
			break;
		}
		if (a->has_minmax) {
			mins[i] = a->min;
			maxs[i] = a->max;
		}
	}
	/* rows */
	if (dense) {
		size_t j = 0;
		pm_binrow_datum *cm = mins, *cx = maxs;
		for (i = 0; i < nf; i++) {
			if (!keep[i])
				continue;
			types[j] = s->fields[i].type;
			cm[j] = mins[i];
			cx[j] = maxs[i];
			out->null_counts[j] = acc[i].null_count;
			j++;
		}
		k = j;
		if (k != nf) {
			*has_cols = 1;
			for (i = 0; i < nf; i++)
				if (keep[i] && pm_strlist_push(out_cols, s->fields[i].name) != 0) {
					rc = PAIMON_ENOMEM;
					goto done;
				}
		}
	} else {
		k = nf;
		for (i = 0; i < nf; i++) {
			types[i] = s->fields[i].type;
			out->null_counts[i] = keep[i] ? acc[i].null_count : -1;
		}
	}
	out->has_null_counts = 1;
	out->n_null_counts = k;
	rc = pm_binrow_encode(types, mins, k, 0, 1, &bmin);
	if (!rc)
		rc = pm_binrow_encode(types, maxs, k, 0, 1, &bmax);
	if (rc)
		goto done;
	out->min_values.n = bmin.len;
	out->min_values.p = (uint8_t *)pm_buf_detach(&bmin);
	out->max_values.n = bmax.len;
	out->max_values.p = (uint8_t *)pm_buf_detach(&bmax);
	if (!out->min_values.p || !out->max_values.p)
		rc = PAIMON_ENOMEM;
done:
	if (acc)
		for (i = 0; i < nf; i++) {
			pm_free(acc[i].min_buf);
			pm_free(acc[i].max_buf);
		}
	pm_free(acc);
	pm_free(keep);
	pm_free(types);
	pm_free(mins);
	pm_free(maxs);
	pm_buf_dispose(&bmin);
	pm_buf_dispose(&bmax);
	if (rc) {
		pm_free(out->min_values.p);
		pm_free(out->max_values.p);
		pm_free(out->null_counts);
		memset(out, 0, sizeof *out);
		pm_strlist_dispose(out_cols);
		*has_cols = 0;
	}
	return rc;
}

/* ------------------------------------------------------------ decode */

int pm_stats_decode(const pm_table_schema *file_schema, const pm_data_file_meta *f, pm_col_stats *cols)
{
	const pm_simple_stats *vs = &f->value_stats;
	size_t nf = file_schema->nfields, n, k;
	const pm_strlist *names = NULL;
	const pm_type **types = NULL;
	long *idx = NULL;
	pm_binrow_datum *mn = NULL, *mx = NULL;
	int32_t arity;
	int rc = 0;
	const char *fname = f->file_name ? f->file_name : "?";

	for (k = 0; k < nf; k++) {
		memset(&cols[k], 0, sizeof cols[k]);
		cols[k].null_count = -1;
	}
	if (f->has_value_stats_cols)
		names = &f->value_stats_cols;
	else if (f->has_write_cols)
		names = &f->write_cols;
	n = names ? names->len : nf;
	if (n == 0)
		return 0;
	if (vs->min_values.n < 4 || vs->max_values.n < 4 || pm_binrow_arity(vs->min_values.p, vs->min_values.n, &arity))
		return pm_err(PAIMON_ECORRUPT, "data file %s: value stats rows are truncated", fname);
	if (arity == 0)
		return 0; /* no stats written (EMPTY_STATS) */
	if ((size_t)arity != n)
		return pm_err(PAIMON_ECORRUPT, "data file %s: value stats have %d columns, expected %zu", fname,
			      (int)arity, n);
	types = pm_calloc(n, sizeof *types);
	idx = pm_calloc(n, sizeof *idx);
	mn = pm_calloc(n, sizeof *mn);
	mx = pm_calloc(n, sizeof *mx);
	if (!types || !idx || !mn || !mx) {
		rc = PAIMON_ENOMEM;
		goto done;
	}
	for (k = 0; k < n; k++) {
		idx[k] = names ? pm_schema_field_index(file_schema, names->items[k]) : (long)k;
		if (idx[k] < 0) {
			rc = pm_err(PAIMON_ECORRUPT, "data file %s: stats column '%s' is not in schema %lld", fname,
				    names->items[k], (long long)file_schema->id);
			goto done;
		}
		types[k] = file_schema->fields[idx[k]].type;
	}
	if (pm_binrow_decode(vs->min_values.p, vs->min_values.n, types, n, 1, mn, NULL) != 0 ||
	    pm_binrow_decode(vs->max_values.p, vs->max_values.n, types, n, 1, mx, NULL) != 0) {
		rc = pm_err_wrap("data file %s: value stats", fname);
		rc = PAIMON_ECORRUPT;
		goto done;
	}
	for (k = 0; k < n; k++) {
		pm_col_stats *c = &cols[idx[k]];
		int cmp = pm_datum_type_comparable(types[k]);
		c->has_min = cmp && !mn[k].is_null;
		c->has_max = cmp && !mx[k].is_null;
		if (c->has_min)
			c->min = mn[k];
		if (c->has_max)
			c->max = mx[k];
		if (vs->has_null_counts && vs->n_null_counts == n && vs->null_counts[k] >= 0)
			c->null_count = vs->null_counts[k];
	}
done:
	pm_free(types);
	pm_free(idx);
	pm_free(mn);
	pm_free(mx);
	return rc;
}

void pm_col_stats_merge(const pm_type *t, pm_col_stats *a, const pm_col_stats *b)
{
	if (a->has_min && b->has_min) {
		if (pm_datum_compare(t, &b->min, &a->min) < 0)
			a->min = b->min;
	} else {
		a->has_min = 0;
	}
	if (a->has_max && b->has_max) {
		if (pm_datum_compare(t, &b->max, &a->max) > 0)
			a->max = b->max;
	} else {
		a->has_max = 0;
	}
	if (a->null_count < 0 || b->null_count < 0)
		a->null_count = -1;
	else
		a->null_count += b->null_count;
}

int pm_stats_from_file(const pm_table_schema *s, const pm_stats_mode *modes, int dense,
		       const pm_format_file_stats *fs, pm_simple_stats *out, int *has_cols,
		       pm_strlist *out_cols)
{
	static const pm_pq_file_meta no_footer; /* no row groups: no column has stats */
	return pm_stats_from_parquet(s, modes, dense, fs && fs->parquet_meta ? fs->parquet_meta : &no_footer,
				     out, has_cols, out_cols);
}
