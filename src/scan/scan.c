/*
 * scan/scan.c - scan planning (see scan.h).
 *
 * Planning cost is linear in the number of manifest entries: manifests are
 * pruned by their partition statistics before they are read, entries by
 * their exact partition (memoized for runs of equal partitions) and only
 * then, when the predicate reads non-partition columns, by value stats
 * decoded lazily under the file's schema (schemas cached by id). Files are
 * grouped per (partition, bucket) with a hash table.
 */
#include "scan/scan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/error.h"
#include "core/hash.h"
#include "core/mem.h"
#include "meta/deletion_vector.h"
#include "scan/rowid.h"
#include "table/partition.h"
#include "table/stats.h"

/* ----------------------------------------------------------------- splits */

const char *pm_split_kind_name(int kind)
{
	switch (kind) {
	case PM_SPLIT_APPEND:
		return "append";
	case PM_SPLIT_DATA_EVOLUTION:
		return "data-evolution";
	case PM_SPLIT_PRIMARY_KEY:
		return "primary-key";
	default:
		return "unknown";
	}
}

void pm_split_free(pm_split *s)
{
	if (!s)
		return;
	pm_bytes_dispose(&s->partition);
	pm_manifest_entry_list_dispose(&s->entries);
	pm_free(s->row_ranges);
	pm_free(s->index_manifest);
	pm_free(s);
}

int pm_split_copy(const pm_split *src, pm_split **out)
{
	pm_split *s = pm_calloc(1, sizeof *s);
	size_t i;
	int rc;
	*out = NULL;
	if (!s)
		return PAIMON_ENOMEM;
	s->snapshot_id = src->snapshot_id;
	s->kind = src->kind;
	s->bucket = src->bucket;
	s->row_count = src->row_count;
	if ((rc = pm_bytes_set(&s->partition, src->partition.p, src->partition.n)) != 0)
		goto fail;
	if (src->has_row_ranges) {
		s->has_row_ranges = 1;
		if (!(s->row_ranges = pm_malloc(2 * (src->n_row_ranges + 1) * sizeof *s->row_ranges))) {
			rc = PAIMON_ENOMEM;
			goto fail;
		}
		if (src->n_row_ranges)
			memcpy(s->row_ranges, src->row_ranges, 2 * src->n_row_ranges * sizeof *s->row_ranges);
		s->n_row_ranges = src->n_row_ranges;
	}
	if (src->index_manifest && !(s->index_manifest = pm_strdup(src->index_manifest))) {
		rc = PAIMON_ENOMEM;
		goto fail;
	}
	for (i = 0; i < src->entries.len; i++)
		if ((rc = pm_manifest_entry_list_append_copy(&s->entries, &src->entries.items[i])) != 0)
			goto fail;
	*out = s;
	return 0;
fail:
	pm_split_free(s);
	return rc;
}

static void put_u32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}

static void put_u64(uint8_t *p, uint64_t v)
{
	put_u32(p, (uint32_t)v);
	put_u32(p + 4, (uint32_t)(v >> 32));
}

static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const uint8_t *p)
{
	return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

int pm_split_serialize(const pm_split *s, pm_buf *out)
{
	pm_buf ent = PM_BUF_INIT;
	uint8_t hdr[24];
	uint32_t ver;
	int rc;
	if (s->partition.n > UINT32_MAX)
		return pm_err(PAIMON_EINVAL, "split partition too large");
	if ((rc = pm_manifest_entries_encode(s->entries.items, s->entries.len, &ent)) != 0)
		return rc;
	if (ent.len > UINT32_MAX) {
		pm_buf_dispose(&ent);
		return pm_err(PAIMON_EINVAL, "split too large to serialize (%zu bytes)", ent.len);
	}
	if (s->kind < 0 || s->kind > PM_SPLIT_KIND_MAX) {
		pm_buf_dispose(&ent);
		return pm_err(PAIMON_EINVAL, "split of unknown kind %d", s->kind);
	}
	if (s->has_row_ranges && (s->n_row_ranges == 0 || s->n_row_ranges > PM_SPLIT_MAX_ROW_RANGES)) {
		pm_buf_dispose(&ent);
		return pm_err(PAIMON_EINVAL, "split with %zu row ranges cannot be serialized (expected 1 to %zu)",
			      s->n_row_ranges, PM_SPLIT_MAX_ROW_RANGES);
	}
	if (s->index_manifest && strlen(s->index_manifest) > PM_SPLIT_MAX_NAME) {
		pm_buf_dispose(&ent);
		return pm_err(PAIMON_EINVAL, "split index manifest name too long");
	}
	ver = s->index_manifest ? 4 : s->has_row_ranges ? 3 : s->kind == PM_SPLIT_APPEND ? 1 : 2;
	memcpy(hdr, PM_SPLIT_MAGIC, 4);
	put_u32(hdr + 4, ver);
	put_u64(hdr + 8, (uint64_t)s->snapshot_id);
	put_u32(hdr + 16, (uint32_t)s->bucket);
	put_u32(hdr + 20, (uint32_t)s->partition.n);
	if ((rc = pm_buf_append(out, hdr, sizeof hdr)) == 0 &&
	    (rc = pm_buf_append(out, s->partition.p, s->partition.n)) == 0) {
		uint8_t l[4];
		put_u32(l, (uint32_t)ent.len);
		if ((rc = pm_buf_append(out, l, 4)) == 0)
			rc = pm_buf_append(out, ent.data, ent.len);
		if (!rc && ver >= 2) {
			put_u32(l, (uint32_t)s->kind);
			rc = pm_buf_append(out, l, 4);
		}
		if (!rc && ver >= 3) {
			size_t i, nr = s->has_row_ranges ? s->n_row_ranges : 0;
			put_u32(l, (uint32_t)nr);
			rc = pm_buf_append(out, l, 4);
			for (i = 0; !rc && i < 2 * nr; i++) {
				uint8_t q[8];
				put_u64(q, (uint64_t)s->row_ranges[i]);
				rc = pm_buf_append(out, q, 8);
			}
		}
		if (!rc && ver >= 4) {
			size_t nl = strlen(s->index_manifest);
			put_u32(l, (uint32_t)nl);
			if ((rc = pm_buf_append(out, l, 4)) == 0)
				rc = pm_buf_append(out, s->index_manifest, nl);
		}
	}
	pm_buf_dispose(&ent);
	return rc;
}

int pm_split_deserialize(const void *data, size_t len, pm_split **out)
{
	const uint8_t *p = data;
	pm_split *s;
	size_t plen, elen, end, i, nr = 0, nl = 0, name_at = 0;
	uint32_t ver, kind = PM_SPLIT_APPEND;
	int rc;
	*out = NULL;
	if (!p || len < 24 || memcmp(p, PM_SPLIT_MAGIC, 4) != 0)
		return pm_err(PAIMON_ECORRUPT, "split bytes: bad header (%zu bytes, magic %s)", len,
			      len >= 4 && p && memcmp(p, PM_SPLIT_MAGIC, 4) == 0 ? "ok" : "missing");
	ver = get_u32(p + 4);
	if (ver < 1 || ver > PM_SPLIT_VERSION)
		return pm_err(PAIMON_ECORRUPT, "split bytes: unsupported version %u (expected 1 to %d)", ver,
			      PM_SPLIT_VERSION);
	plen = get_u32(p + 20);
	if (plen > len - 24 || len - 24 - plen < 4)
		return pm_err(PAIMON_ECORRUPT, "split bytes: partition length %zu exceeds the data", plen);
	elen = get_u32(p + 24 + plen);
	if (elen > len - 28 - plen)
		return pm_err(PAIMON_ECORRUPT, "split bytes: entries length %zu exceeds the data (%zu)", elen,
			      len - 28 - plen);
	end = 28 + plen + elen; /* what follows the entries */
	if (ver >= 2) {
		if (len - end < 4)
			return pm_err(PAIMON_ECORRUPT, "split bytes: the split kind is missing");
		kind = get_u32(p + end);
		if (kind > PM_SPLIT_KIND_MAX)
			return pm_err(PAIMON_ECORRUPT, "split bytes: unknown split kind %u", kind);
		end += 4;
	}
	if (ver >= 3) {
		if (len - end < 4)
			return pm_err(PAIMON_ECORRUPT, "split bytes: the row range count is missing");
		nr = get_u32(p + end);
		end += 4;
		if (ver == 3 && (nr == 0 || nr > PM_SPLIT_MAX_ROW_RANGES || (len - end) / 16 != nr || (len - end) % 16))
			return pm_err(PAIMON_ECORRUPT, "split bytes: %zu row ranges do not match the data (%zu bytes)", nr,
				      len - end);
		if (ver >= 4) {
			if (nr > PM_SPLIT_MAX_ROW_RANGES || (len - end) / 16 < nr || len - end - 16 * nr < 4)
				return pm_err(PAIMON_ECORRUPT, "split bytes: %zu row ranges do not match the data (%zu bytes)",
					      nr, len - end);
			name_at = end + 16 * nr;
			nl = get_u32(p + name_at);
			name_at += 4;
			if (nl == 0 || nl > PM_SPLIT_MAX_NAME || nl != len - name_at || memchr(p + name_at, 0, nl))
				return pm_err(PAIMON_ECORRUPT, "split bytes: index manifest name of %zu bytes does not match "
					      "the data (%zu bytes)", nl, len - name_at);
		}
	} else if (end != len) {
		return pm_err(PAIMON_ECORRUPT, "split bytes: entries length %zu does not match the data (%zu)", elen,
			      len - (end - elen));
	}
	s = pm_calloc(1, sizeof *s);
	if (!s)
		return PAIMON_ENOMEM;
	s->kind = (int)kind;
	s->snapshot_id = (int64_t)get_u64(p + 8);
	s->bucket = (int32_t)get_u32(p + 16);
	if (nl && !(s->index_manifest = pm_strndup((const char *)p + name_at, nl))) {
		rc = PAIMON_ENOMEM;
		goto fail;
	}
	if (ver >= 3 && nr > 0) {
		s->has_row_ranges = 1;
		if (!(s->row_ranges = pm_malloc(2 * nr * sizeof *s->row_ranges))) {
			rc = PAIMON_ENOMEM;
			goto fail;
		}
		for (i = 0; i < 2 * nr; i++)
			s->row_ranges[i] = (int64_t)get_u64(p + end + 8 * i);
		s->n_row_ranges = nr;
		for (i = 0; i < nr; i++) {
			int64_t a = s->row_ranges[2 * i], b = s->row_ranges[2 * i + 1];
			if (a < 0 || b < a || (i && a <= s->row_ranges[2 * i - 1])) {
				rc = pm_err(PAIMON_ECORRUPT, "split bytes: row range %zu [%lld, %lld] is invalid or out of order",
					    i, (long long)a, (long long)b);
				goto fail;
			}
		}
	}
	if ((rc = pm_bytes_set(&s->partition, p + 24, plen)) != 0)
		goto fail;
	if ((rc = pm_manifest_entries_decode("split", p + 28 + plen, elen, &s->entries)) != 0)
		goto fail;
	for (i = 0; i < s->entries.len; i++) {
		const pm_manifest_entry *e = &s->entries.items[i];
		if (e->kind != PM_FILE_KIND_ADD || e->bucket != s->bucket || e->partition.n != plen ||
		    (plen && memcmp(e->partition.p, s->partition.p, plen) != 0)) {
			rc = pm_err(PAIMON_ECORRUPT, "split bytes: file '%s' does not belong to the split",
				    e->file.file_name ? e->file.file_name : "");
			goto fail;
		}
		if (e->file.row_count < 0) {
			rc = pm_err(PAIMON_ECORRUPT, "split bytes: file '%s' has a negative row count",
				    e->file.file_name ? e->file.file_name : "");
			goto fail;
		}
		s->row_count += e->file.row_count;
	}
	*out = s;
	return 0;
fail:
	pm_split_free(s);
	return rc;
}

/* ----------------------------------------------------------- schema cache */

/* On failure c is left empty (nothing to dispose). */
int pm_schema_cache_init(pm_schema_cache *c, pm_fileio *io, const char *table_path,
			 const pm_table_schema *current)
{
	memset(c, 0, sizeof *c);
	c->io = io;
	if (!(c->table_path = pm_strdup(table_path)))
		return PAIMON_ENOMEM;
	if (current) {
		pm_table_schema *cp = NULL;
		int rc = pm_schema_copy(current, &cp);
		if (rc) {
			pm_schema_cache_dispose(c);
			return rc;
		}
		/* a read schema with the row-tracking fields appended: files of
		 * this id hold only the table's own columns */
		while (cp->nfields && pm_is_row_tracking_field_id(cp->fields[cp->nfields - 1].id)) {
			pm_field_dispose(&cp->fields[--cp->nfields]);
		}
		c->items = pm_malloc(4 * sizeof *c->items);
		if (!c->items) {
			pm_schema_free(cp);
			pm_schema_cache_dispose(c);
			return PAIMON_ENOMEM;
		}
		c->cap = 4;
		c->items[c->len++] = cp;
	}
	return 0;
}

int pm_schema_cache_get(pm_schema_cache *c, int64_t id, const pm_table_schema **out)
{
	pm_table_schema *s = NULL;
	size_t i;
	int rc;
	for (i = 0; i < c->len; i++)
		if (c->items[i]->id == id) {
			*out = c->items[i];
			return 0;
		}
	if (id < 0)
		return pm_err(PAIMON_ECORRUPT, "invalid schema id %lld", (long long)id);
	if ((rc = pm_schema_load(c->io, c->table_path, id, &s)) != 0)
		return rc;
	if (c->len == c->cap) {
		size_t nc = c->cap ? c->cap * 2 : 4;
		pm_table_schema **ni = pm_realloc(c->items, nc * sizeof *ni);
		if (!ni) {
			pm_schema_free(s);
			return PAIMON_ENOMEM;
		}
		c->items = ni;
		c->cap = nc;
	}
	c->items[c->len++] = s;
	*out = s;
	return 0;
}

void pm_schema_cache_dispose(pm_schema_cache *c)
{
	size_t i;
	for (i = 0; i < c->len; i++)
		pm_schema_free(c->items[i]);
	pm_free(c->items);
	pm_free(c->table_path);
	memset(c, 0, sizeof *c);
}

/* ---------------------------------------------------- snapshot resolution */

static const char *opt(const pm_strmap *o, const char *k)
{
	const char *v = o ? pm_strmap_get(o, k) : NULL;
	return v && *v ? v : NULL;
}

static int opt_i64(const pm_strmap *o, const char *k, int64_t def, int64_t min, int64_t *out)
{
	const char *v = opt(o, k);
	long long x;
	*out = def;
	if (!v)
		return 0;
	if (pm_parse_i64(v, &x) != 0 || x < min)
		return pm_err(PAIMON_EINVAL, "option '%s': invalid value '%s' (expected an integer >= %lld)", k, v,
			      (long long)min);
	*out = x;
	return 0;
}

/* Memory sizes as Java's MemorySize: "128 mb", "4MB", "1024", "64 kb". */
static int opt_size(const pm_strmap *o, const char *k, int64_t def, int64_t *out)
{
	const char *v = opt(o, k), *p;
	char *end;
	long long n;
	int64_t mult = 1;
	*out = def;
	if (!v)
		return 0;
	n = strtoll(v, &end, 10);
	if (end == v || n < 0)
		goto bad;
	p = end;
	while (*p == ' ')
		p++;
	if (!*p || !strcasecmp(p, "b") || !strcasecmp(p, "bytes"))
		mult = 1;
	else if (!strcasecmp(p, "k") || !strcasecmp(p, "kb") || !strcasecmp(p, "kibibytes"))
		mult = 1024;
	else if (!strcasecmp(p, "m") || !strcasecmp(p, "mb") || !strcasecmp(p, "mebibytes"))
		mult = 1024 * 1024;
	else if (!strcasecmp(p, "g") || !strcasecmp(p, "gb") || !strcasecmp(p, "gibibytes"))
		mult = (int64_t)1 << 30;
	else if (!strcasecmp(p, "t") || !strcasecmp(p, "tb") || !strcasecmp(p, "tebibytes"))
		mult = (int64_t)1 << 40;
	else
		goto bad;
	if (n > INT64_MAX / mult)
		goto bad;
	*out = n * mult;
	return 0;
bad:
	return pm_err(PAIMON_EINVAL, "option '%s': invalid memory size '%s'", k, v);
}

int pm_scan_parse_local_timestamp(const char *text, int64_t *millis)
{
	int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, n = 0, ms = 0, digits = 0;
	const char *p;
	struct tm tm;
	time_t t;
	if (!text || sscanf(text, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3 || n < 8)
		goto bad;
	p = text + n;
	if (*p == ' ' || *p == 'T') {
		int k = 0;
		if (sscanf(p + 1, "%2d:%2d%n", &h, &mi, &k) != 2)
			goto bad;
		p += 1 + k;
		if (*p == ':') {
			if (sscanf(p + 1, "%2d%n", &s, &k) != 1)
				goto bad;
			p += 1 + k;
			if (*p == '.') {
				p++;
				while (*p >= '0' && *p <= '9') {
					if (digits < 3)
						ms = ms * 10 + (*p - '0');
					digits++;
					p++;
				}
				if (!digits)
					goto bad;
				while (digits < 3) {
					ms *= 10;
					digits++;
				}
			}
		}
	}
	if (*p || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59 || h < 0 || mi < 0 || s < 0)
		goto bad;
	memset(&tm, 0, sizeof tm);
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = s;
	tm.tm_isdst = -1;
	t = mktime(&tm);
	if (t == (time_t)-1 && !(y == 1969 && mo == 12 && d == 31))
		goto bad;
	*millis = (int64_t)t * 1000 + ms;
	return 0;
bad:
	return pm_err(PAIMON_EINVAL, "option 'scan.timestamp': cannot parse '%s' (expected 'yyyy-MM-dd HH:mm:ss[.SSS]')",
		      text ? text : "");
}

static int range_error(pm_fileio *io, const char *table_path, int64_t id)
{
	int64_t lo = 0, hi = 0;
	int f1 = 0, f2 = 0;
	pm_err_state st;
	pm_err_save(&st);
	if (pm_snapshot_earliest_id(io, table_path, &lo, &f1) || pm_snapshot_latest_id(io, table_path, &hi, &f2))
		f1 = f2 = 0;
	pm_err_restore(&st);
	if (!f1 || !f2)
		return pm_err(PAIMON_ENOTFOUND, "option 'scan.snapshot-id': snapshot %lld does not exist (the table %s has no snapshots)",
			      (long long)id, table_path);
	return pm_err(PAIMON_ENOTFOUND,
		      "option 'scan.snapshot-id': snapshot %lld does not exist; available snapshots are %lld..%lld",
		      (long long)id, (long long)lo, (long long)hi);
}

static int snapshot_at_time(pm_fileio *io, const char *table_path, const char *what, int64_t t,
			    pm_snapshot **out)
{
	int64_t lo, hi;
	int f1 = 0, f2 = 0, rc;
	pm_snapshot *s = NULL, *best = NULL;
	if ((rc = pm_snapshot_earliest_id(io, table_path, &lo, &f1)) != 0 ||
	    (rc = pm_snapshot_latest_id(io, table_path, &hi, &f2)) != 0)
		return rc;
	if (!f1 || !f2)
		return pm_err(PAIMON_ENOTFOUND, "option '%s': the table %s has no snapshots", what, table_path);
	/* Invariant: snapshots < lo are either unknown or <= t (best), > hi are > t. */
	while (lo <= hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if ((rc = pm_snapshot_load(io, table_path, mid, &s)) != 0) {
			pm_snapshot_free(best);
			return rc;
		}
		if (s->time_millis <= t) {
			pm_snapshot_free(best);
			best = s;
			lo = mid + 1;
		} else {
			pm_snapshot_free(s);
			hi = mid - 1;
		}
		s = NULL;
	}
	if (!best)
		return pm_err(PAIMON_ENOTFOUND, "option '%s': no snapshot of %s was committed at or before %lld ms",
			      what, table_path, (long long)t);
	*out = best;
	return 0;
}

int pm_scan_resolve_snapshot(pm_fileio *io, const char *table_path, const pm_strmap *opts,
			     pm_snapshot **out)
{
	static const char *keys[] = {"scan.snapshot-id", "scan.tag-name", "scan.timestamp-millis",
				     "scan.timestamp"};
	const char *set[4];
	size_t i, nset = 0;
	int rc;
	*out = NULL;
	for (i = 0; i < 4; i++)
		if (opt(opts, keys[i]))
			set[nset++] = keys[i];
	if (nset > 1)
		return pm_err(PAIMON_EINVAL, "options '%s' and '%s' cannot both be set (at most one time-travel option)",
			      set[0], set[1]);
	if (opt(opts, "scan.snapshot-id")) {
		int64_t id;
		if ((rc = opt_i64(opts, "scan.snapshot-id", 0, 1, &id)) != 0)
			return rc;
		rc = pm_snapshot_load(io, table_path, id, out);
		if (rc == PAIMON_ENOTFOUND)
			return range_error(io, table_path, id);
		return rc;
	}
	if (opt(opts, "scan.tag-name")) {
		const char *tag = opt(opts, "scan.tag-name");
		int exists = 0;
		if ((rc = pm_tag_exists(io, table_path, tag, &exists)) != 0)
			return rc;
		if (!exists)
			return pm_err(PAIMON_ENOTFOUND, "option 'scan.tag-name': tag '%s' does not exist in %s", tag,
				      table_path);
		return pm_tag_load(io, table_path, tag, out);
	}
	if (opt(opts, "scan.timestamp-millis")) {
		int64_t t;
		if ((rc = opt_i64(opts, "scan.timestamp-millis", 0, INT64_MIN, &t)) != 0)
			return rc;
		return snapshot_at_time(io, table_path, "scan.timestamp-millis", t, out);
	}
	if (opt(opts, "scan.timestamp")) {
		int64_t t;
		if ((rc = pm_scan_parse_local_timestamp(opt(opts, "scan.timestamp"), &t)) != 0)
			return rc;
		return snapshot_at_time(io, table_path, "scan.timestamp", t, out);
	}
	{
		int64_t id;
		int found = 0;
		if ((rc = pm_snapshot_latest_id(io, table_path, &id, &found)) != 0 || !found)
			return rc;
		return pm_snapshot_load(io, table_path, id, out);
	}
}

/* --------------------------------------------------------------- pruning */

typedef struct scan_ctx {
	const pm_table_schema *schema;
	const pm_predicate *pred;
	pm_partition_info pi;
	int32_t *pk_ids;                 /* partition key field ids */
	pm_binrow_datum *pvals;
	int need_stats;                  /* predicate reads non-partition columns */
	pm_schema_cache *schemas;
	const pm_scan_extra *x;          /* row ranges (NULL: none) */
	int data_evolution;              /* data-evolution.enabled */
	/* memo of the last partition test */
	pm_bytes last_part;
	int last_part_result;
	int has_last_part;
	/* statistics lookup */
	const pm_table_schema *cur_file_schema;
	pm_col_stats *cols;
	size_t cols_cap;
	pm_col_stats *part_cols;
	int64_t files_total;
	int64_t manifests_total, manifests_pruned;
	int64_t groups_pruned;           /* data-evolution groups ruled out by merged stats */
	int rc;                          /* first error inside a callback */
} scan_ctx;

static const pm_col_stats unknown_stats = {0, 0, {0}, {0}, -1};

static const pm_col_stats *manifest_lookup(void *vctx, int32_t field_id)
{
	scan_ctx *c = vctx;
	size_t i;
	for (i = 0; i < c->pi.n; i++)
		if (c->pk_ids[i] == field_id)
			return &c->part_cols[i];
	return &unknown_stats;
}

static int keep_manifest(void *vctx, const pm_manifest_file_meta *m)
{
	scan_ctx *c = vctx;
	pm_data_file_meta fake;
	pm_table_schema ps;
	int r;
	c->manifests_total++;
	c->files_total += m->num_added_files - m->num_deleted_files;
	if (!c->rc && c->x && c->x->has_row_ranges && m->has_min_row_id && m->has_max_row_id &&
	    m->min_row_id <= m->max_row_id &&
	    !pm_row_ranges_overlap(c->x->row_ranges, c->x->n_row_ranges, m->min_row_id, m->max_row_id)) {
		c->manifests_pruned++;
		return 0;
	}
	if (c->rc || !c->pred || c->pi.n == 0)
		return !c->rc;
	/* Decode the partition stats as if they were a file's value stats
	 * under a schema made of the partition columns. */
	memset(&fake, 0, sizeof fake);
	fake.file_name = m->file_name;
	fake.value_stats = m->partition_stats;
	fake.row_count = -1;
	memset(&ps, 0, sizeof ps);
	ps.id = c->schema->id;
	ps.fields = c->pi.row_type->fields;
	ps.nfields = c->pi.n;
	if (m->partition_stats.min_values.n <= sizeof pm_empty_binrow)
		return 1; /* no usable stats (arity-0 rows) */
	if (pm_stats_decode(&ps, &fake, c->part_cols) != 0) {
		/* Unreadable partition stats cannot prune; the entries decide. */
		return 1;
	}
	r = pm_pred_test_stats(c->pred, -1, manifest_lookup, c);
	if (r == PM_PRED_NEVER) {
		c->manifests_pruned++;
		return 0;
	}
	return 1;
}

static const pm_col_stats *file_lookup(void *vctx, int32_t field_id)
{
	scan_ctx *c = vctx;
	const pm_table_schema *fs = c->cur_file_schema;
	size_t i, j;
	if (pm_is_row_tracking_field_id(field_id))
		return &unknown_stats; /* derived from positions, or stale physical copies (§2.6) */
	for (i = 0; i < fs->nfields; i++)
		if (fs->fields[i].id == field_id) {
			/* A column whose type changed since: its stats are in the old
			 * type, which the bound predicate cannot compare. */
			for (j = 0; j < c->schema->nfields; j++)
				if (c->schema->fields[j].id == field_id) {
					const pm_type *a = c->schema->fields[j].type, *b = fs->fields[i].type;
					if (a->root != b->root ||
					    (a->root == PM_DECIMAL && (a->precision != b->precision || a->scale != b->scale)))
						return &unknown_stats;
					break;
				}
			return &c->cols[i];
		}
	return NULL; /* added after the file was written: all null */
}

static int test_partition(scan_ctx *c, const pm_manifest_entry *e)
{
	int r;
	if (c->has_last_part && c->last_part.n == e->partition.n &&
	    (e->partition.n == 0 || memcmp(c->last_part.p, e->partition.p, e->partition.n) == 0))
		return c->last_part_result;
	if ((c->rc = pm_partition_decode(&c->pi, e->partition.p, e->partition.n, c->pvals)) != 0)
		return -1;
	r = pm_pred_test_partition(c->pred, c->pk_ids, c->pvals, c->pi.n);
	pm_bytes_dispose(&c->last_part);
	if ((c->rc = pm_bytes_set(&c->last_part, e->partition.p, e->partition.n)) != 0)
		return -1;
	c->has_last_part = 1;
	c->last_part_result = r;
	return r;
}

static int keep_entry(void *vctx, const pm_manifest_entry *e)
{
	scan_ctx *c = vctx;
	const pm_table_schema *fs;
	int r;
	if (c->rc)
		return 0;
	if (c->x && c->x->has_row_ranges) {
		/* no row id, or none in the ranges: no row of the file is wanted */
		if (!e->file.has_first_row_id || e->file.row_count <= 0 ||
		    e->file.first_row_id > INT64_MAX - e->file.row_count ||
		    !pm_row_ranges_overlap(c->x->row_ranges, c->x->n_row_ranges, e->file.first_row_id,
					   e->file.first_row_id + e->file.row_count - 1))
			return 0;
	}
	if (!c->pred)
		return 1;
	if (c->pi.n) {
		r = test_partition(c, e);
		if (r < 0)
			return 0;
		if (r == PM_PRED_NEVER)
			return 0;
	}
	/* data-evolution: a file's columns may live in siblings of its row-id
	 * group, so one file's stats cannot prune; whole groups are pruned by
	 * their merged stats when the splits are made (de_unit_stats_keep) */
	if (!c->need_stats || (c->data_evolution && e->file.has_first_row_id))
		return 1;
	if ((c->rc = pm_schema_cache_get(c->schemas, e->file.schema_id, &fs)) != 0) {
		pm_err_wrap("data file '%s'", e->file.file_name);
		return 0;
	}
	if (fs->nfields > c->cols_cap) {
		pm_col_stats *nc = pm_realloc(c->cols, fs->nfields * sizeof *nc);
		if (!nc) {
			c->rc = PAIMON_ENOMEM;
			return 0;
		}
		c->cols = nc;
		c->cols_cap = fs->nfields;
	}
	if ((c->rc = pm_stats_decode(fs, &e->file, c->cols)) != 0)
		return 0;
	c->cur_file_schema = fs;
	r = pm_pred_test_stats(c->pred, e->file.row_count, file_lookup, c);
	return r != PM_PRED_NEVER;
}

/* --------------------------------------------------------------- grouping */

typedef struct group {
	const pm_bytes *partition;
	int32_t bucket;
	uint64_t hash;
	size_t *idx;
	size_t n, cap;
} group;

static uint64_t hash_key(const pm_bytes *p, int32_t bucket)
{
	uint64_t h = pm_fnv1a(p->p, p->n, PM_FNV1A_INIT);
	h ^= (uint32_t)bucket;
	h *= 0x100000001b3ULL;
	return h ^ (h >> 29);
}

static int group_push(group *g, size_t i)
{
	if (g->n == g->cap) {
		size_t nc = g->cap ? g->cap * 2 : 8;
		size_t *ni = pm_realloc(g->idx, nc * sizeof *ni);
		if (!ni)
			return PAIMON_ENOMEM;
		g->idx = ni;
		g->cap = nc;
	}
	g->idx[g->n++] = i;
	return 0;
}

static int plan_push_split(pm_scan_plan *p, pm_split *s, size_t *cap)
{
	if (p->n_splits == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		pm_split **ns = pm_realloc(p->splits, nc * sizeof *ns);
		if (!ns)
			return PAIMON_ENOMEM;
		p->splits = ns;
		*cap = nc;
	}
	p->splits[p->n_splits++] = s;
	return 0;
}

/* A file with a row-id range, for grouping. */
typedef struct rid_item {
	int64_t start, end;              /* [first_row_id, first_row_id + row_count) */
	size_t pos;                      /* position in the group */
} rid_item;

static int rid_cmp(const void *a, const void *b)
{
	const rid_item *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/*
 * The packing units of a group: files whose row-id ranges overlap
 * (sorted by first row id, transitively) form one unit; every other file
 * is a unit of its own. *order (pm_free) gets the group positions unit
 * after unit, *ustart (pm_free) the start of each unit in *order plus the
 * end; units come in the group's (manifest) order of their first file,
 * the files of a unit by first row id. When no file has a row-id range
 * both stay NULL: every file is its own unit, in group order.
 */
static int group_units(const pm_manifest_entry_list *live, const group *g, size_t **order, size_t **ustart,
		       size_t *nunits)
{
	size_t n = g->n, nr = 0, nu = 0, no = 0, i, k;
	rid_item *it = NULL;
	size_t *unit_of = NULL, *run = NULL, *ord = NULL, *us = NULL;
	uint8_t *done = NULL;
	int64_t cur_end = 0;

	*order = *ustart = NULL;
	*nunits = n;
	for (i = 0; i < n; i++) {
		const pm_data_file_meta *f = &live->items[g->idx[i]].file;
		if (f->has_first_row_id && f->row_count > 0)
			nr++;
	}
	if (nr == 0)
		return 0;
	it = pm_malloc(nr * sizeof *it);
	unit_of = pm_malloc(n * sizeof *unit_of);
	run = pm_malloc((nr + 1) * sizeof *run);
	done = pm_calloc(nr, 1);
	ord = pm_malloc(n * sizeof *ord);
	us = pm_malloc((n + 1) * sizeof *us);
	if (!it || !unit_of || !run || !done || !ord || !us) {
		pm_free(it);
		pm_free(unit_of);
		pm_free(run);
		pm_free(done);
		pm_free(ord);
		pm_free(us);
		return PAIMON_ENOMEM;
	}
	for (i = 0, k = 0; i < n; i++) {
		const pm_data_file_meta *f = &live->items[g->idx[i]].file;
		unit_of[i] = SIZE_MAX;
		if (!(f->has_first_row_id && f->row_count > 0))
			continue;
		it[k].start = f->first_row_id;
		it[k].end = f->first_row_id > INT64_MAX - f->row_count ? INT64_MAX : f->first_row_id + f->row_count;
		it[k].pos = i;
		k++;
	}
	qsort(it, nr, sizeof *it, rid_cmp);
	for (k = 0; k < nr; k++) {
		if (k == 0 || it[k].start >= cur_end) {
			run[nu++] = k;
			cur_end = it[k].end;
		} else if (it[k].end > cur_end) {
			cur_end = it[k].end;
		}
		unit_of[it[k].pos] = nu - 1;
	}
	run[nu] = nr;
	nu = 0;
	for (i = 0; i < n; i++) {
		size_t u = unit_of[i];
		if (u == SIZE_MAX) {
			us[nu++] = no;
			ord[no++] = i;
			continue;
		}
		if (done[u])
			continue;
		done[u] = 1;
		us[nu++] = no;
		for (k = run[u]; k < run[u + 1]; k++)
			ord[no++] = it[k].pos;
	}
	us[nu] = no;
	pm_free(it);
	pm_free(unit_of);
	pm_free(run);
	pm_free(done);
	*order = ord;
	*ustart = us;
	*nunits = nu;
	return 0;
}

/* Moves the entries of `live` into splits. data_evolution: the table has
 * data-evolution.enabled (a split with a unit of several files is then
 * PM_SPLIT_DATA_EVOLUTION). */
/* Data-evolution pruning by read type (ai-format §3.4 planning step 4):
 * keep[k - a] = 0 for the files of unit [a, b) holding none of the read
 * fields; one file (the unit's first) is kept when none would be. When
 * _SEQUENCE_NUMBER is read, the newest normal file is kept too (its max
 * sequence number is the rows' _SEQUENCE_NUMBER, as pypaimon gives it
 * whatever the projection; Java would take the newest file left after
 * pruning). */
static int de_prune_unit(pm_manifest_entry_list *live, const group *g, const size_t *order, size_t a, size_t b,
			 const pm_scan_extra *x, pm_schema_cache *schemas, int dv, uint8_t *keep)
{
	size_t k, i, j, nkept = 0;
	for (k = a; k < b; k++) {
		const pm_manifest_entry *e = &live->items[g->idx[order ? order[k] : k]];
		const pm_table_schema *fs;
		int32_t *ids = NULL;
		size_t n = 0;
		int rc, hit = 0;
		if ((rc = pm_schema_cache_get(schemas, e->file.schema_id, &fs)) != 0)
			return pm_err_wrap("data file '%s'", e->file.file_name);
		if ((rc = pm_file_field_ids(fs, &e->file, &ids, &n)) != 0)
			return rc;
		for (i = 0; i < n && !hit; i++)
			for (j = 0; j < x->n_read_field_ids && !hit; j++)
				hit = ids[i] == x->read_field_ids[j] && !pm_is_row_tracking_field_id(ids[i]);
		pm_free(ids);
		keep[k - a] = (uint8_t)hit;
		nkept += (size_t)hit;
	}
	/* _SEQUENCE_NUMBER is the newest normal file's (as pypaimon, whatever
	 * the projection): keep that file when it is read */
	for (j = 0; j < x->n_read_field_ids; j++)
		if (x->read_field_ids[j] == PM_SEQUENCE_NUMBER_FIELD_ID) {
			size_t best = SIZE_MAX;
			int64_t seq = 0;
			for (k = a; k < b; k++) {
				const pm_data_file_meta *f = &live->items[g->idx[order ? order[k] : k]].file;
				if (pm_file_is_blob(f->file_name) || pm_file_is_vector(f->file_name))
					continue;
				if (best == SIZE_MAX || f->max_sequence_number > seq) {
					best = k;
					seq = f->max_sequence_number;
				}
			}
			if (best != SIZE_MAX && !keep[best - a]) {
				keep[best - a] = 1;
				nkept++;
			}
			break;
		}
	/* with deletion vectors the group's DV is keyed by its anchor file:
	 * keep it (it is not opened unless it gives a column) */
	if (dv) {
		const pm_data_file_meta **fs = pm_malloc((b - a) * sizeof *fs);
		size_t *at = pm_malloc((b - a) * sizeof *at), nf = 0, ai;
		int rc = 0;
		if (!fs || !at) {
			pm_free(fs);
			pm_free(at);
			return PAIMON_ENOMEM;
		}
		for (k = a; k < b; k++) {
			const pm_data_file_meta *f = &live->items[g->idx[order ? order[k] : k]].file;
			if (pm_file_is_blob(f->file_name) || pm_file_is_vector(f->file_name))
				continue;
			at[nf] = k;
			fs[nf++] = f;
		}
		if (nf && (rc = pm_dv_anchor_ptrs(fs, nf, &ai)) == 0 && !keep[at[ai] - a]) {
			keep[at[ai] - a] = 1;
			nkept++;
		}
		pm_free(fs);
		pm_free(at);
		if (rc)
			return rc;
	}
	/* positions, the row count and the row ids come from a normal file:
	 * keep the newest when only companions (.blob, .vector.) were kept */
	{
		size_t best = SIZE_MAX;
		int have_normal = 0;
		for (k = a; k < b; k++) {
			const pm_data_file_meta *f = &live->items[g->idx[order ? order[k] : k]].file;
			if (pm_file_is_blob(f->file_name) || pm_file_is_vector(f->file_name))
				continue;
			have_normal |= keep[k - a];
			if (best == SIZE_MAX ||
			    f->max_sequence_number > live->items[g->idx[order ? order[best] : best]].file.max_sequence_number)
				best = k;
		}
		if (!have_normal && best != SIZE_MAX) {
			keep[best - a] = 1;
			nkept++;
		}
	}
	if (!nkept)
		keep[0] = 1;
	return 0;
}

/* The split's row ranges: x's ranges meeting its files. */
static int split_ranges(pm_split *s, const pm_scan_extra *x)
{
	int64_t *fr = pm_malloc(2 * (s->entries.len + 1) * sizeof *fr);
	size_t i, n = 0, nf = 0;
	int rc;
	if (!fr)
		return PAIMON_ENOMEM;
	for (i = 0; i < s->entries.len; i++) {
		const pm_data_file_meta *f = &s->entries.items[i].file;
		if (!f->has_first_row_id || f->row_count <= 0 || f->first_row_id > INT64_MAX - f->row_count)
			continue;
		fr[2 * nf] = f->first_row_id;
		fr[2 * nf + 1] = f->first_row_id + f->row_count - 1;
		nf++;
	}
	if ((rc = pm_row_ranges_normalize(fr, nf, &nf)) == 0)
		rc = pm_row_ranges_intersect(x->row_ranges, x->n_row_ranges, fr, nf, &s->row_ranges, &n);
	pm_free(fr);
	if (rc)
		return rc;
	s->has_row_ranges = 1;
	s->n_row_ranges = n;
	return 0;
}

/* ------------------------------------------- data-evolution group stats */

/*
 * Value-statistics pruning of a data-evolution row-id group (Java's
 * evolution stats, DataEvolutionFileStoreScan): each column's statistics
 * come from the file the read takes the column from, the newest normal
 * file holding it (max sequence number, first in manifest order on ties:
 * the de_reader rule); a column no file of the group holds is all null, one
 * only a BLOB / vector companion holds is unknown.
 */
typedef struct unit_stats {
	scan_ctx *c;
	const pm_manifest_entry **normal;   /* newest first */
	const pm_table_schema **fs;
	int32_t **ids;
	size_t *nids;
	pm_col_stats **cols;                /* decoded on first use */
	size_t nn;
	int companion_cols;                 /* a companion holds some column */
	const pm_manifest_entry **comp;
	size_t ncomp;
} unit_stats;

static const pm_col_stats *unit_lookup(void *vctx, int32_t field_id)
{
	unit_stats *u = vctx;
	size_t w, i, j, k;
	if (pm_is_row_tracking_field_id(field_id))
		return &unknown_stats;
	for (w = 0; w < u->nn; w++) {
		for (k = 0; k < u->nids[w]; k++)
			if (u->ids[w][k] == field_id)
				break;
		if (k == u->nids[w])
			continue;
		if (!u->cols[w]) {
			if (!(u->cols[w] = pm_calloc(u->fs[w]->nfields + 1, sizeof *u->cols[w]))) {
				u->c->rc = PAIMON_ENOMEM;
				return &unknown_stats;
			}
			if ((u->c->rc = pm_stats_decode(u->fs[w], &u->normal[w]->file, u->cols[w])) != 0)
				return &unknown_stats;
		}
		for (i = 0; i < u->fs[w]->nfields; i++)
			if (u->fs[w]->fields[i].id == field_id) {
				for (j = 0; j < u->c->schema->nfields; j++)
					if (u->c->schema->fields[j].id == field_id) {
						const pm_type *a = u->c->schema->fields[j].type, *b = u->fs[w]->fields[i].type;
						if (a->root != b->root || (a->root == PM_DECIMAL && (a->precision != b->precision ||
												     a->scale != b->scale)))
							return &unknown_stats;
						break;
					}
				return &u->cols[w][i];
			}
		return &unknown_stats;
	}
	/* held only by a companion (BLOB / vector file): unknown */
	for (w = 0; w < u->ncomp; w++) {
		const pm_table_schema *cfs;
		int32_t *cid = NULL;
		size_t cn = 0, q;
		int held = 0;
		if ((u->c->rc = pm_schema_cache_get(u->c->schemas, u->comp[w]->file.schema_id, &cfs)) != 0 ||
		    (u->c->rc = pm_file_field_ids(cfs, &u->comp[w]->file, &cid, &cn)) != 0)
			return &unknown_stats;
		for (q = 0; q < cn; q++)
			held |= cid[q] == field_id;
		pm_free(cid);
		if (held)
			return &unknown_stats;
	}
	return NULL; /* no file of the group holds it: all null */
}

/* *keep = 0 when the unit [a, b) of g cannot match c->pred by its merged
 * statistics. Files without a first row id are not data-evolution groups. */
static int de_unit_stats_keep(scan_ctx *c, const pm_manifest_entry_list *live, const group *g, const size_t *order,
			      size_t a, size_t b, int *keep)
{
	unit_stats u;
	size_t k, i;
	int rc = 0, r;
	*keep = 1;
	memset(&u, 0, sizeof u);
	u.c = c;
	u.normal = pm_calloc(b - a, sizeof *u.normal);
	u.comp = pm_calloc(b - a, sizeof *u.comp);
	u.fs = pm_calloc(b - a, sizeof *u.fs);
	u.ids = pm_calloc(b - a, sizeof *u.ids);
	u.nids = pm_calloc(b - a, sizeof *u.nids);
	u.cols = pm_calloc(b - a, sizeof *u.cols);
	if (!u.normal || !u.comp || !u.fs || !u.ids || !u.nids || !u.cols) {
		rc = PAIMON_ENOMEM;
		goto out;
	}
	for (k = a; k < b; k++) {
		const pm_manifest_entry *e = &live->items[g->idx[order ? order[k] : k]];
		if (!e->file.has_first_row_id)
			goto out; /* not a row-id group: keep */
		if (pm_file_is_blob(e->file.file_name) || pm_file_is_vector(e->file.file_name))
			u.comp[u.ncomp++] = e;
		else
			u.normal[u.nn++] = e;
	}
	if (!u.nn)
		goto out;
	/* newest first, stable (manifest order on ties, as the reader) */
	for (k = 1; k < u.nn; k++) {
		const pm_manifest_entry *v = u.normal[k];
		for (i = k; i > 0 && u.normal[i - 1]->file.max_sequence_number < v->file.max_sequence_number; i--)
			u.normal[i] = u.normal[i - 1];
		u.normal[i] = v;
	}
	for (k = 0; k < u.nn; k++) {
		if ((rc = pm_schema_cache_get(c->schemas, u.normal[k]->file.schema_id, &u.fs[k])) != 0) {
			pm_err_wrap("data file '%s'", u.normal[k]->file.file_name);
			goto out;
		}
		if ((rc = pm_file_field_ids(u.fs[k], &u.normal[k]->file, &u.ids[k], &u.nids[k])) != 0)
			goto out;
	}
	c->rc = 0;
	r = pm_pred_test_stats(c->pred, u.normal[0]->file.row_count, unit_lookup, &u);
	if ((rc = c->rc) != 0)
		goto out;
	*keep = r != PM_PRED_NEVER;
out:
	if (u.ids)
		for (k = 0; k < b - a; k++)
			pm_free(u.ids[k]);
	if (u.cols)
		for (k = 0; k < b - a; k++)
			pm_free(u.cols[k]);
	pm_free(u.normal);
	pm_free(u.comp);
	pm_free(u.fs);
	pm_free(u.ids);
	pm_free(u.nids);
	pm_free(u.cols);
	return rc;
}

static int make_splits(pm_manifest_entry_list *live, int64_t snapshot_id, int64_t target, int64_t open_cost,
		       int data_evolution, int dv, const pm_scan_extra *x, pm_schema_cache *schemas, scan_ctx *sc,
		       pm_scan_plan *p)
{
	uint8_t *keep = NULL;
	group *groups = NULL;
	size_t ngroups = 0, gcap = 0, tcap, *table = NULL, i, split_cap = 0;
	size_t *order = NULL, *ustart = NULL;
	int rc = 0;

	tcap = 16;
	while (tcap < live->len * 2)
		tcap <<= 1;
	table = pm_malloc(tcap * sizeof *table);
	if (!table)
		return PAIMON_ENOMEM;
	for (i = 0; i < tcap; i++)
		table[i] = SIZE_MAX;
	for (i = 0; i < live->len; i++) {
		const pm_manifest_entry *e = &live->items[i];
		uint64_t h = hash_key(&e->partition, e->bucket);
		size_t slot = (size_t)h & (tcap - 1);
		group *g = NULL;
		if (e->kind != PM_FILE_KIND_ADD)
			continue;
		while (table[slot] != SIZE_MAX) {
			group *cand = &groups[table[slot]];
			if (cand->hash == h && cand->bucket == e->bucket && cand->partition->n == e->partition.n &&
			    (e->partition.n == 0 || memcmp(cand->partition->p, e->partition.p, e->partition.n) == 0)) {
				g = cand;
				break;
			}
			slot = (slot + 1) & (tcap - 1);
		}
		if (!g) {
			if (ngroups == gcap) {
				size_t nc = gcap ? gcap * 2 : 16;
				group *ng = pm_realloc(groups, nc * sizeof *ng);
				if (!ng) {
					rc = PAIMON_ENOMEM;
					goto out;
				}
				groups = ng;
				gcap = nc;
			}
			g = &groups[ngroups];
			memset(g, 0, sizeof *g);
			g->partition = &e->partition;
			g->bucket = e->bucket;
			g->hash = h;
			table[slot] = ngroups++;
		}
		if ((rc = group_push(g, i)) != 0)
			goto out;
	}
	for (i = 0; i < ngroups; i++) {
		group *g = &groups[i];
		pm_split *s = NULL;
		int64_t w = 0;
		size_t nunits, u, k;
		if ((rc = group_units(live, g, &order, &ustart, &nunits)) != 0)
			goto out;
		for (u = 0; u < nunits; u++) {
			size_t a = order ? ustart[u] : u, b = order ? ustart[u + 1] : u + 1;
			int64_t uw = 0;
			if (sc) {
				/* a data-evolution group its merged statistics rule out */
				int keep_unit = 1;
				if ((rc = de_unit_stats_keep(sc, live, g, order, a, b, &keep_unit)) != 0)
					goto out;
				if (!keep_unit) {
					sc->groups_pruned++;
					continue;
				}
			}
			for (k = a; k < b; k++) {
				const pm_manifest_entry *e = &live->items[g->idx[order ? order[k] : k]];
				int64_t fw = e->file.file_size > open_cost ? e->file.file_size : open_cost;
				uw = uw > INT64_MAX - fw ? INT64_MAX : uw + fw;
			}
			if (s && w > target - uw && s->entries.len > 0) {
				if ((rc = plan_push_split(p, s, &split_cap)) != 0) {
					pm_split_free(s);
					goto out;
				}
				s = NULL;
			}
			if (!s) {
				s = pm_calloc(1, sizeof *s);
				if (!s || pm_bytes_set(&s->partition, g->partition->p, g->partition->n)) {
					pm_split_free(s);
					rc = PAIMON_ENOMEM;
					goto out;
				}
				s->snapshot_id = snapshot_id;
				s->kind = PM_SPLIT_APPEND;
				s->bucket = g->bucket;
				w = 0;
			}
			if (data_evolution && b - a > 1) {
				s->kind = PM_SPLIT_DATA_EVOLUTION;
				if (x && x->read_field_ids) {
					uint8_t *nk = pm_realloc(keep, b - a);
					if (!nk) {
						pm_split_free(s);
						rc = PAIMON_ENOMEM;
						goto out;
					}
					keep = nk;
					if ((rc = de_prune_unit(live, g, order, a, b, x, schemas, dv, keep)) != 0) {
						pm_split_free(s);
						goto out;
					}
				}
			}
			for (k = a; k < b; k++) {
				size_t pos = order ? order[k] : k;
				pm_manifest_entry *e = &live->items[g->idx[pos]];
				pm_manifest_entry *slot;
				if (s->kind == PM_SPLIT_DATA_EVOLUTION && b - a > 1 && x && x->read_field_ids &&
				    !keep[k - a]) {
					/* pruned: stays in `live` (so the group's partition
					 * pointer, if it refers to it, stays valid) */
					continue;
				}
				if (!(slot = pm_manifest_entry_list_push(&s->entries))) {
					pm_split_free(s);
					rc = PAIMON_ENOMEM;
					goto out;
				}
				/* Move (the live list's slot is left zeroed). The group's
				 * partition pointer refers to its first entry: the split
				 * has copied it already; re-point it at that copy. */
				*slot = *e;
				memset(e, 0, sizeof *e);
				if (pos == 0)
					g->partition = &s->partition;
				s->row_count += slot->file.row_count;
			}
			w = w > INT64_MAX - uw ? INT64_MAX : w + uw;
		}
		pm_free(order);
		pm_free(ustart);
		order = ustart = NULL;
		if (s) {
			if ((rc = plan_push_split(p, s, &split_cap)) != 0) {
				pm_split_free(s);
				goto out;
			}
		}
	}
	if (x && x->has_row_ranges)
		for (i = 0; i < p->n_splits && !rc; i++)
			rc = split_ranges(p->splits[i], x);
out:
	pm_free(keep);
	pm_free(order);
	pm_free(ustart);
	for (i = 0; i < ngroups; i++)
		pm_free(groups[i].idx);
	pm_free(groups);
	pm_free(table);
	return rc;
}

/* ------------------------------------------------------------------ plan */

/* data-evolution.enabled: from the read options, else the table's. */
static int data_evolution_enabled(const pm_table_schema *schema, const pm_strmap *opts)
{
	return pm_schema_option_true(schema, opts, "data-evolution.enabled");
}

void pm_scan_plan_dispose(pm_scan_plan *p)
{
	size_t i;
	if (!p)
		return;
	for (i = 0; i < p->n_splits; i++)
		pm_split_free(p->splits[i]);
	pm_free(p->splits);
	pm_snapshot_free(p->snapshot);
	memset(p, 0, sizeof *p);
	p->snapshot_id = -1;
}

int pm_scan_plan_run(pm_fileio *io, const char *table_path, const pm_table_schema *schema,
		     const pm_strmap *opts, const pm_predicate *pred, pm_schema_cache *schemas,
		     pm_scan_plan *out)
{
	return pm_scan_plan_run_ex(io, table_path, schema, opts, pred, schemas, NULL, out);
}

int pm_scan_plan_run_ex(pm_fileio *io, const char *table_path, const pm_table_schema *schema,
			const pm_strmap *opts, const pm_predicate *pred, pm_schema_cache *schemas,
			const pm_scan_extra *x, pm_scan_plan *out)
{
	scan_ctx c;
	pm_schema_cache own;
	pm_manifest_filter filt;
	pm_manifest_entry_list live = {0};
	int64_t target, open_cost;
	size_t i;
	int rc, own_cache = 0, dv;

	memset(out, 0, sizeof *out);
	out->snapshot_id = -1;
	memset(&c, 0, sizeof c);
	memset(&own, 0, sizeof own);
	if ((rc = opt_size(opts, "source.split.target-size", PM_SPLIT_DEFAULT_TARGET_SIZE, &target)) != 0 ||
	    (rc = opt_size(opts, "source.split.open-file-cost", PM_SPLIT_DEFAULT_OPEN_FILE_COST, &open_cost)) != 0)
		return rc;
	if ((rc = pm_scan_resolve_snapshot(io, table_path, opts, &out->snapshot)) != 0)
		return rc;
	if (!out->snapshot)
		return 0;
	out->snapshot_id = out->snapshot->id;

	c.schema = schema;
	c.pred = pred;
	c.x = x;
	c.data_evolution = data_evolution_enabled(schema, opts);
	if ((rc = pm_partition_info_init(&c.pi, schema)) != 0)
		goto fail;
	if (c.pi.n) {
		c.pk_ids = pm_calloc(c.pi.n, sizeof *c.pk_ids);
		c.pvals = pm_calloc(c.pi.n, sizeof *c.pvals);
		c.part_cols = pm_calloc(c.pi.n, sizeof *c.part_cols);
		if (!c.pk_ids || !c.pvals || !c.part_cols) {
			rc = PAIMON_ENOMEM;
			goto fail;
		}
		for (i = 0; i < c.pi.n; i++)
			c.pk_ids[i] = schema->fields[c.pi.field_index[i]].id;
	}
	if (pred)
		c.need_stats = !pm_pred_only_on(pred, c.pk_ids, c.pi.n);
	if (!schemas) {
		if ((rc = pm_schema_cache_init(&own, io, table_path, schema)) != 0)
			goto fail;
		own_cache = 1;
		schemas = &own;
	}
	c.schemas = schemas;
	filt.keep_manifest = keep_manifest;
	filt.keep_entry = keep_entry;
	filt.ctx = &c;
	rc = pm_manifest_read_all(io, table_path, out->snapshot->base_manifest_list,
				  out->snapshot->delta_manifest_list, &filt, &live);
	if (c.rc)
		rc = c.rc;
	if (rc) {
		pm_err_wrap("snapshot %lld of %s", (long long)out->snapshot_id, table_path);
		goto fail;
	}
	out->files_total = c.files_total;
	out->manifests_total = c.manifests_total;
	out->manifests_pruned = c.manifests_pruned;
	for (i = 0; i < live.len; i++)
		if (live.items[i].kind == PM_FILE_KIND_ADD)
			out->files_selected++;
	if (!pred && !(x && x->has_row_ranges))
		out->files_total = out->files_selected;
	dv = pm_schema_option_true(schema, opts, "deletion-vectors.enabled") && out->snapshot->index_manifest;
	if ((rc = make_splits(&live, out->snapshot_id, target, open_cost, data_evolution_enabled(schema, opts), dv, x,
			      schemas, c.data_evolution && pred && c.need_stats ? &c : NULL, out)) != 0)
		goto fail;
	for (i = 0; dv && i < out->n_splits; i++)
		if (!(out->splits[i]->index_manifest = pm_strdup(out->snapshot->index_manifest))) {
			rc = PAIMON_ENOMEM;
			goto fail;
		}
	out->files_selected = 0; /* after the data-evolution pruning by read type */
	for (i = 0; i < out->n_splits; i++)
		out->files_selected += (int64_t)out->splits[i]->entries.len;
	goto done;
fail:
	pm_scan_plan_dispose(out);
done:
	pm_manifest_entry_list_dispose(&live);
	if (own_cache)
		pm_schema_cache_dispose(&own);
	pm_partition_info_dispose(&c.pi);
	pm_free(c.pk_ids);
	pm_free(c.pvals);
	pm_free(c.part_cols);
	pm_free(c.cols);
	pm_bytes_dispose(&c.last_part);
	return rc;
}
