/*
 * maint/partition_expire.c - partition expiration (see partition_expire.h).
 */
#include "maint/partition_expire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commit/commit.h"
#include "core/error.h"
#include "core/mem.h"
#include "meta/manifest.h"
#include "meta/snapshot.h"
#include "table/partition.h"
#include "types/datum.h"

int pm_partition_expire_config_from_options(const pm_strmap *opts, pm_partition_expire_config *c)
{
	const char *v;
	long long x;
	memset(c, 0, sizeof *c);
	c->check_interval_ms = 3600 * 1000;
	c->max_num = 100;
	if (!opts)
		return 0;
	if ((v = pm_strmap_get(opts, "partition.expiration-time"))) {
		if (pm_parse_duration_ms("partition.expiration-time", v, &c->expiration_ms))
			return PAIMON_EINVAL;
		c->enabled = 1;
	}
	if ((v = pm_strmap_get(opts, "partition.expiration-check-interval")) &&
	    pm_parse_duration_ms("partition.expiration-check-interval", v, &c->check_interval_ms))
		return PAIMON_EINVAL;
	if ((v = pm_strmap_get(opts, "partition.expiration-strategy"))) {
		if (!strcmp(v, "update-time"))
			c->update_time = 1;
		else if (strcmp(v, "values-time"))
			return pm_err(PAIMON_EINVAL, "option 'partition.expiration-strategy': expected values-time or "
				      "update-time, got '%s'", v);
	}
	if ((v = pm_strmap_get(opts, "partition.expiration-max-num"))) {
		if (pm_parse_i64(v, &x) || x < 1 || x > INT32_MAX)
			return pm_err(PAIMON_EINVAL, "option 'partition.expiration-max-num': expected a positive "
				      "integer, got '%s'", v);
		c->max_num = (int32_t)x;
	}
	if ((v = pm_strmap_get(opts, "partition.expiration-batch-size"))) {
		if (pm_parse_i64(v, &x) || x < 1 || x > INT32_MAX)
			return pm_err(PAIMON_EINVAL, "option 'partition.expiration-batch-size': expected a positive "
				      "integer, got '%s'", v);
		c->batch_size = (int32_t)x;
	}
	if ((v = pm_strmap_get(opts, "end-input.check-partition-expire")) && pm_parse_bool(v, &c->end_input_check))
		return pm_err(PAIMON_EINVAL, "option 'end-input.check-partition-expire': expected true or false, got "
			      "'%s'", v);
	c->formatter = pm_strmap_get(opts, "partition.timestamp-formatter");
	c->pattern = pm_strmap_get(opts, "partition.timestamp-pattern");
	return 0;
}

/* ------------------------------------------------------------- times */

typedef struct dt {
	long long year;
	int month, day, hour, minute, second;
	long nanos;
	int has_date, has_time;
} dt;

static int digits(const char **p, int lo, int hi, long long *out)
{
	const char *s = *p;
	int n = 0;
	long long v = 0;
	while (n < hi && s[n] >= '0' && s[n] <= '9') {
		v = v * 10 + (s[n] - '0');
		n++;
	}
	if (n < lo)
		return -1;
	*p = s + n;
	*out = v;
	return 0;
}

static int days_in(long long y, int m)
{
	static const int d[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	return m == 2 && leap ? 29 : d[m - 1];
}

static int valid(const dt *t)
{
	return t->month >= 1 && t->month <= 12 && t->day >= 1 && t->day <= days_in(t->year, t->month) &&
	       t->hour >= 0 && t->hour <= 23 && t->minute >= 0 && t->minute <= 59 && t->second >= 0 &&
	       t->second <= 59;
}

/* Java's default: "Y-M-D" or "Y-M-D H:m:s[.f]" (Y 1..10 digits). */
static int parse_default(const char *s, dt *t)
{
	long long v;
	memset(t, 0, sizeof *t);
	if (digits(&s, 1, 10, &t->year) || *s++ != '-' || digits(&s, 1, 2, &v))
		return -1;
	t->month = (int)v;
	if (*s++ != '-' || digits(&s, 1, 2, &v))
		return -1;
	t->day = (int)v;
	t->has_date = 1;
	if (!*s)
		return 0;
	if (*s++ != ' ' || digits(&s, 1, 2, &v))
		return -1;
	t->hour = (int)v;
	if (*s++ != ':' || digits(&s, 1, 2, &v))
		return -1;
	t->minute = (int)v;
	if (*s++ != ':' || digits(&s, 1, 2, &v))
		return -1;
	t->second = (int)v;
	if (*s == '.') {
		const char *f = ++s;
		long long fr;
		if (digits(&s, 1, 9, &fr))
			return -1;
		for (v = s - f; v < 9; v++)
			fr *= 10;
		t->nanos = (long)fr;
	}
	t->has_time = 1;
	return *s ? -1 : 0;
}

static int is_field(char c)
{
	return c == 'y' || c == 'u' || c == 'M' || c == 'd' || c == 'H' || c == 'm' || c == 's' || c == 'S';
}

/* A java.time pattern (subset: y u M d H m s S, literals, 'quoted'). */
static int parse_pattern(const char *pat, const char *s, dt *t)
{
	const char *p = pat;
	int seen_h = 0, seen_y = 0, seen_m = 0, seen_d = 0;
	memset(t, 0, sizeof *t);
	while (*p) {
		char c = *p;
		int n = 0, adjacent;
		long long v;
		if (c == '\'') {
			p++;
			if (*p == '\'') { /* '' is a quote */
				if (*s++ != '\'')
					return -1;
				p++;
				continue;
			}
			while (*p && *p != '\'') {
				if (*s++ != *p++)
					return -1;
			}
			if (*p == '\'')
				p++;
			continue;
		}
		if (!is_field(c)) {
			if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
				return -1; /* a field this subset does not know */
			if (*s++ != c)
				return -1;
			p++;
			continue;
		}
		while (p[n] == c)
			n++;
		adjacent = is_field(p[n]);
		p += n;
		switch (c) {
		case 'y':
		case 'u':
			if (n == 2) {
				if (digits(&s, 2, 2, &v))
					return -1;
				v += 2000;
			} else if (digits(&s, n, adjacent ? n : 10, &v)) {
				return -1;
			}
			t->year = v;
			seen_y = 1;
			break;
		case 'S': {
			long long k;
			if (digits(&s, n, n, &v))
				return -1;
			for (k = n; k < 9; k++)
				v *= 10;
			t->nanos = (long)v;
			break;
		}
		default:
			if (n > 2 || digits(&s, n, (n == 1 && !adjacent) ? 2 : n, &v))
				return -1;
			if (c == 'M') {
				t->month = (int)v;
				seen_m = 1;
			} else if (c == 'd') {
				t->day = (int)v;
				seen_d = 1;
			} else if (c == 'H') {
				t->hour = (int)v;
				seen_h = 1;
			} else if (c == 'm') {
				t->minute = (int)v;
			} else {
				t->second = (int)v;
			}
		}
	}
	if (*s)
		return -1;
	t->has_date = seen_y && seen_m && seen_d;
	t->has_time = seen_h;
	return t->has_date ? 0 : -1;
}

/* Years beyond this do not fit epoch millis in 64 bits: such partitions
 * are taken as not parsing (Java would place them in the far past or
 * future). */
#define MAX_ABS_YEAR 200000000LL

static int64_t to_ms(const dt *t)
{
	/* days from civil (proleptic Gregorian) */
	long long y = t->year - (t->month <= 2);
	long long era = (y >= 0 ? y : y - 399) / 400;
	long long yoe = y - era * 400;
	long long mp = (t->month + 9) % 12;
	long long doy = (153 * mp + 2) / 5 + t->day - 1;
	long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	long long days = era * 146097 + doe - 719468;
	return (int64_t)(((days * 24 + t->hour) * 60 + t->minute) * 60 + t->second) * 1000 + t->nanos / 1000000;
}

int pm_partition_time(const char *pattern, const char *formatter, const char *const *keys,
		      const char *const *values, size_t n, int64_t *local_ms)
{
	pm_buf b = PM_BUF_INIT;
	dt t;
	int rc = 1;
	size_t i;
	if (!n)
		return 1;
	if (!pattern) {
		if (!values[0])
			return 1;
		if (pm_buf_puts(&b, values[0]))
			return PAIMON_ENOMEM;
	} else {
		/* "$key" replaced key by key, in key order (Java replaceAll) */
		if (pm_buf_puts(&b, pattern))
			return PAIMON_ENOMEM;
		for (i = 0; i < n; i++) {
			pm_buf nb = PM_BUF_INIT;
			const char *cur = pm_buf_cstr(&b), *hit;
			size_t kl = strlen(keys[i]);
			int err = 0;
			while (!err && (hit = strchr(cur, '$'))) {
				err = pm_buf_append(&nb, cur, (size_t)(hit - cur));
				if (!err && !strncmp(hit + 1, keys[i], kl)) {
					if (!values[i]) {
						pm_buf_dispose(&nb);
						pm_buf_dispose(&b);
						return 1; /* a null value: Java's NullPointerException */
					}
					err = pm_buf_puts(&nb, values[i]);
					cur = hit + 1 + kl;
				} else if (!err) {
					err = pm_buf_putc(&nb, '$');
					cur = hit + 1;
				}
			}
			if (!err)
				err = pm_buf_puts(&nb, cur);
			pm_buf_dispose(&b);
			b = nb;
			if (err) {
				pm_buf_dispose(&b);
				return PAIMON_ENOMEM;
			}
		}
	}
	if ((formatter ? parse_pattern(formatter, pm_buf_cstr(&b), &t) : parse_default(pm_buf_cstr(&b), &t)) ||
	    t.year > MAX_ABS_YEAR || t.year < -MAX_ABS_YEAR) {
		/* does not parse */
	} else if (formatter) {
		/* DateTimeFormatter.ofPattern: ResolverStyle.SMART (a day past the
		 * month's end is its last day; other fields must be in range) */
		if (t.month >= 1 && t.month <= 12 && t.day >= 1 && t.day <= 31) {
			if (t.day > days_in(t.year, t.month))
				t.day = days_in(t.year, t.month);
			if (!t.has_time)
				t.hour = t.minute = t.second = 0, t.nanos = 0;
			if (valid(&t)) {
				*local_ms = to_ms(&t);
				rc = 0;
			}
		}
	} else {
		/* Java's default formatters are LENIENT: fields roll over
		 * (month 13 is January of the next year) */
		long long m0 = t.month - 1;
		t.year += m0 >= 0 ? m0 / 12 : (m0 - 11) / 12;
		m0 = ((m0 % 12) + 12) % 12;
		{
			dt first = t;
			first.month = (int)m0 + 1;
			first.day = 1;
			first.hour = first.minute = first.second = 0;
			first.nanos = 0;
			*local_ms = to_ms(&first) + (int64_t)(t.day - 1) * 86400000 + (int64_t)t.hour * 3600000 +
				    (int64_t)t.minute * 60000 + (int64_t)t.second * 1000 + t.nanos / 1000000;
		}
		rc = 0;
	}
	pm_buf_dispose(&b);
	return rc;
}

/* ------------------------------------------------------------ expire */

/* An expired partition. */
typedef struct part {
	const pm_bytes *p;
	char *sort_key;              /* values joined by \x01 */
	char *display;               /* k=v/k2=v2 */
} part;

static int cmp_part(const void *a, const void *b)
{
	return strcmp(((const part *)a)->sort_key, ((const part *)b)->sort_key);
}

int pm_table_expire_partitions(pm_fileio *io, const char *table_path, const pm_table_schema *s0,
			       const pm_strmap *commit_opts, const pm_partition_expire_config *cfg,
			       int64_t now_local_ms, int dry_run, pm_strlist *expired, int64_t *snapshot_id)
{
	pm_table_schema *s = NULL;
	pm_partition_info pi;
	pm_snapshot *snap = NULL;
	pm_manifest_entry_list live = {0};
	pm_binrow_datum *vals = NULL;
	pm_partition_agg *a = NULL;
	part *v = NULL;
	size_t np = 0, nexp = 0, i, k;
	pm_bytes *drop = NULL;
	pm_table_committer *cm = NULL;
	int64_t latest = 0, cutoff;
	int found = 0, rc, has_pi = 0;
	char **texts = NULL;

	if (snapshot_id)
		*snapshot_id = -1;
	if (!cfg->enabled)
		return 0;
	cutoff = now_local_ms - cfg->expiration_ms;
	if ((rc = pm_schema_copy_with(s0, commit_opts, &s)))
		return rc;
	if ((rc = pm_partition_info_init(&pi, s)))
		goto out;
	has_pi = 1;
	if (!pi.n)
		goto out; /* nothing to expire in an unpartitioned table */
	if ((rc = pm_snapshot_latest_id(io, table_path, &latest, &found)) || !found)
		goto out;
	if ((rc = pm_snapshot_load(io, table_path, latest, &snap)) ||
	    (rc = pm_manifest_read_all(io, table_path, snap->base_manifest_list, snap->delta_manifest_list, NULL,
				       &live)))
		goto out;
	if ((rc = pm_partition_aggregate(&live, &a, &np)))
		goto out;
	if (!(v = pm_calloc(np + 1, sizeof *v)) || !(vals = pm_calloc(pi.n, sizeof *vals)) ||
	    !(texts = pm_calloc(pi.n, sizeof *texts))) {
		rc = PAIMON_ENOMEM;
		goto out;
	}
	for (i = 0; i < np && !rc; i++) {
		pm_buf key = PM_BUF_INIT, disp = PM_BUF_INIT;
		int64_t t = 0;
		int is_exp = 0;
		if ((rc = pm_partition_decode(&pi, a[i].partition->p, a[i].partition->n, vals)))
			break;
		for (k = 0; k < pi.n && !rc; k++) {
			pm_buf one = PM_BUF_INIT;
			pm_free(texts[k]);
			texts[k] = NULL;
			if (!vals[k].is_null) {
				/* Java's internal object's toString: DATE as epoch days */
				rc = pi.types[k]->root == PM_DATE ? pm_buf_printf(&one, "%lld", (long long)vals[k].i)
								 : pm_datum_to_text(pi.types[k], &vals[k], &one);
				if (!rc && !(texts[k] = pm_strdup(pm_buf_cstr(&one))))
					rc = PAIMON_ENOMEM;
			}
			pm_buf_dispose(&one);
			if (!rc && k && ((rc = pm_buf_putc(&key, '\x01')) || (rc = pm_buf_putc(&disp, '/'))))
				break;
			if (!rc)
				rc = pm_buf_puts(&key, texts[k] ? texts[k] : pi.default_name);
			if (!rc)
				rc = pm_buf_printf(&disp, "%s=%s", pi.names[k], texts[k] ? texts[k] : pi.default_name);
		}
		if (!rc) {
			if (cfg->update_time) {
				is_exp = a[i].last_creation != INT64_MIN && a[i].last_creation < cutoff;
			} else {
				int r = pm_partition_time(cfg->pattern, cfg->formatter, (const char *const *)pi.names,
							  (const char *const *)texts, pi.n, &t);
				if (r < 0)
					rc = r;
				is_exp = r == 0 && t < cutoff;
			}
		}
		if (!rc && is_exp) {
			if (!(v[nexp].sort_key = pm_strdup(pm_buf_cstr(&key))) ||
			    !(v[nexp].display = pm_strdup(pm_buf_cstr(&disp))))
				rc = PAIMON_ENOMEM;
			v[nexp].p = a[i].partition;
			nexp++;
		}
		pm_buf_dispose(&key);
		pm_buf_dispose(&disp);
	}
	if (rc || !nexp)
		goto out;
	qsort(v, nexp, sizeof *v, cmp_part);
	if (nexp > (size_t)cfg->max_num)
		nexp = (size_t)cfg->max_num;
	for (i = 0; expired && i < nexp && !rc; i++)
		rc = pm_strlist_push(expired, v[i].display);
	if (rc || dry_run)
		goto out;
	if (!(drop = pm_calloc(nexp, sizeof *drop))) {
		rc = PAIMON_ENOMEM;
		goto out;
	}
	for (i = 0; i < nexp; i++)
		drop[i] = *v[i].p;
	if ((rc = pm_table_committer_new(io, table_path, s0, commit_opts, &cm)))
		goto out;
	{
		size_t batch = cfg->batch_size > 0 ? (size_t)cfg->batch_size : nexp, at;
		for (at = 0; at < nexp && !rc; at += batch) {
			size_t m = nexp - at < batch ? nexp - at : batch;
			int64_t sid = -1;
			rc = pm_table_committer_drop_partitions(cm, drop + at, m, PM_COMMIT_BATCH_IDENTIFIER, &sid);
			if (!rc && snapshot_id)
				*snapshot_id = sid;
		}
	}
out:
	for (i = 0; v && i < np; i++) {
		pm_free(v[i].sort_key);
		pm_free(v[i].display);
	}
	pm_free(a);
	for (k = 0; texts && has_pi && k < pi.n; k++)
		pm_free(texts[k]);
	pm_free(texts);
	pm_free(v);
	pm_free(vals);
	pm_free(drop);
	pm_table_committer_free(cm);
	pm_manifest_entry_list_dispose(&live);
	pm_snapshot_free(snap);
	if (has_pi)
		pm_partition_info_dispose(&pi);
	pm_schema_free(s);
	if (rc)
		pm_err_wrap("cannot expire partitions of '%s'", table_path);
	return rc;
}
