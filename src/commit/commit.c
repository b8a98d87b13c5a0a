/*
 * commit/commit.c - commit protocol (see commit.h; spec core-format §6).
 */
#include "commit/commit.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/error.h"
#include "core/mem.h"
#include "core/uuid.h"
#include "meta/snapshot.h"
#include "table/partition.h"
#include "write/write.h"
#include "types/datum.h"

/* ---------------------------------------------------------- messages */

static const char msg_magic[4] = {'P', 'M', 'C', 'M'};

static int put_u32(pm_buf *b, uint32_t v)
{
	uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
	return pm_buf_append(b, x, 4);
}

static int put_u64(pm_buf *b, uint64_t v)
{
	int rc = put_u32(b, (uint32_t)v);
	return rc ? rc : put_u32(b, (uint32_t)(v >> 32));
}

static uint64_t get_u64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;
	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

int pm_commit_message_encode_batch(const pm_commit_batch *b, pm_buf *out)
{
	size_t start = out->len, at;
	int rc;
	if (b->check_from_snapshot < -1)
		return pm_err(PAIMON_EINVAL, "commit message: bad base snapshot %lld", (long long)b->check_from_snapshot);
	if (!b->n_index && b->check_from_snapshot < 0) {
		if ((rc = pm_buf_append(out, msg_magic, 4)) || (rc = put_u32(out, 1)) ||
		    (rc = pm_manifest_entries_encode(b->adds, b->n_adds, out)))
			goto fail;
		return 0;
	}
	if ((rc = pm_buf_append(out, msg_magic, 4)) || (rc = put_u32(out, PM_COMMIT_MESSAGE_VERSION)) ||
	    (rc = put_u64(out, (uint64_t)b->check_from_snapshot)))
		goto fail;
	at = out->len;
	if ((rc = put_u64(out, 0)) || (rc = pm_manifest_entries_encode(b->adds, b->n_adds, out)))
		goto fail;
	{
		uint64_t n = (uint64_t)(out->len - at - 8);
		size_t k;
		for (k = 0; k < 8; k++)
			((uint8_t *)out->data)[at + k] = (uint8_t)(n >> (8 * k));
	}
	at = out->len;
	if ((rc = put_u64(out, 0)) || (rc = pm_index_manifest_entries_encode(b->index, b->n_index, out)))
		goto fail;
	{
		uint64_t n = (uint64_t)(out->len - at - 8);
		size_t k;
		for (k = 0; k < 8; k++)
			((uint8_t *)out->data)[at + k] = (uint8_t)(n >> (8 * k));
	}
	return 0;
fail:
	out->len = start;
	return rc;
}

int pm_commit_message_encode(const pm_manifest_entry *entries, size_t n, pm_buf *out)
{
	pm_commit_batch b;
	memset(&b, 0, sizeof b);
	b.adds = entries;
	b.n_adds = n;
	b.check_from_snapshot = -1;
	return pm_commit_message_encode_batch(&b, out);
}

static int check_decoded(const pm_manifest_entry_list *adds, size_t a0, const pm_index_manifest_entry_list *idx,
			 size_t i0)
{
	size_t i;
	for (i = a0; i < adds->len; i++)
		if (adds->items[i].kind != PM_FILE_KIND_ADD || !adds->items[i].file.file_name)
			return pm_err(PAIMON_ECORRUPT, "commit message: entry %zu is not a new data file", i - a0);
	for (i = i0; idx && i < idx->len; i++)
		if ((idx->items[i].kind != PM_FILE_KIND_ADD && idx->items[i].kind != PM_FILE_KIND_DELETE) ||
		    !idx->items[i].file_name || !idx->items[i].index_type)
			return pm_err(PAIMON_ECORRUPT, "commit message: index entry %zu is not an index file change",
				      i - i0);
	return 0;
}

int pm_commit_message_decode_batch(const void *data, size_t len, pm_manifest_entry_list *adds,
				   pm_index_manifest_entry_list *index, int64_t *check_from)
{
	const uint8_t *p = data, *end;
	uint32_t ver;
	size_t a0 = adds->len, i0 = index ? index->len : 0;
	uint64_t n1, n2;
	int64_t cf;
	int rc;
	if (check_from)
		*check_from = -1;
	if (!p || len < 8 || memcmp(p, msg_magic, 4))
		return pm_err(PAIMON_ECORRUPT, "commit message: bad magic (not a paimonc commit message)");
	end = p + len;
	ver = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
	if (ver == 1) {
		if ((rc = pm_manifest_entries_decode("commit message", p + 8, len - 8, adds)))
			return rc;
		goto check;
	}
	if (ver != 2)
		return pm_err(PAIMON_ECORRUPT, "commit message: unsupported version %u", (unsigned)ver);
	p += 8;
	if (end - p < 16)
		return pm_err(PAIMON_ECORRUPT, "commit message: truncated (%zu bytes)", len);
	cf = (int64_t)get_u64(p);
	if (cf < -1)
		return pm_err(PAIMON_ECORRUPT, "commit message: bad base snapshot %lld", (long long)cf);
	n1 = get_u64(p + 8);
	p += 16;
	if (n1 > (uint64_t)(end - p) || (uint64_t)(end - p) - n1 < 8)
		return pm_err(PAIMON_ECORRUPT, "commit message: data file section of %llu bytes overruns the message",
			      (unsigned long long)n1);
	n2 = get_u64(p + n1);
	if (n2 != (uint64_t)(end - p) - n1 - 8)
		return pm_err(PAIMON_ECORRUPT, "commit message: index section of %llu bytes, %llu left",
			      (unsigned long long)n2, (unsigned long long)((uint64_t)(end - p) - n1 - 8));
	if (!index)
		return pm_err(PAIMON_ECORRUPT, "commit message: carries index changes or a base snapshot "
			      "(a data-evolution update or delete); decode it as a batch");
	if ((rc = pm_manifest_entries_decode("commit message", p, (size_t)n1, adds)))
		return rc;
	if ((rc = pm_index_manifest_entries_decode("commit message index changes", p + n1 + 8, (size_t)n2, index)))
		goto undo;
	if (check_from)
		*check_from = cf;
check:
	if ((rc = check_decoded(adds, a0, index, i0)))
		goto undo;
	return 0;
undo:
	while (adds->len > a0)
		pm_manifest_entry_dispose(&adds->items[--adds->len]);
	while (index && index->len > i0)
		pm_index_manifest_entry_dispose(&index->items[--index->len]);
	if (check_from)
		*check_from = -1;
	return rc;
}

int pm_commit_message_decode(const void *data, size_t len, pm_manifest_entry_list *out)
{
	return pm_commit_message_decode_batch(data, len, out, NULL, NULL);
}

/* ------------------------------------------------------- row tracking */

/* Stable regroup of l by partition bytes, partitions in first-appearance order. */
static int group_by_partition(pm_manifest_entry_list *l)
{
	pm_manifest_entry *out;
	unsigned char *done;
	size_t i, j, k = 0;
	if (l->len < 2)
		return 0;
	out = pm_malloc(l->len * sizeof *out);
	done = pm_calloc(l->len, 1);
	if (!out || !done) {
		pm_free(out);
		pm_free(done);
		return PAIMON_ENOMEM;
	}
	for (i = 0; i < l->len; i++) {
		const pm_bytes *p = &l->items[i].partition;
		if (done[i])
			continue;
		for (j = i; j < l->len; j++) {
			const pm_bytes *q = &l->items[j].partition;
			if (done[j] || q->n != p->n || (p->n && memcmp(p->p, q->p, p->n)))
				continue;
			done[j] = 1;
			out[k++] = l->items[j];
		}
	}
	memcpy(l->items, out, l->len * sizeof *out);
	pm_free(out);
	pm_free(done);
	return 0;
}

static int has_col(const pm_data_file_meta *f, const char *name)
{
	size_t i;
	if (!f->has_write_cols)
		return 0;
	for (i = 0; i < f->write_cols.len; i++)
		if (!strcmp(f->write_cols.items[i], name))
			return 1;
	return 0;
}

typedef struct blob_start {
	const char *field;   /* borrowed from an entry of the list */
	int64_t start;
} blob_start;

int pm_row_tracking_assign(pm_manifest_entry_list *l, int group, int64_t snapshot_id, int64_t first,
			   int64_t *next_row_id)
{
	blob_start *bs = NULL;
	size_t nbs = 0, i, k;
	int64_t start = first, blob_default = first, vector_start = first;
	int rc = 0;
	*next_row_id = first;
	if (group && (rc = group_by_partition(l)))
		return rc;
	for (i = 0; i < l->len; i++) {
		pm_data_file_meta *f = &l->items[i].file;
		if (f->min_sequence_number == 0) {
			f->min_sequence_number = snapshot_id;
			f->max_sequence_number = snapshot_id;
		} else if (f->max_sequence_number == 0) {
			f->max_sequence_number = snapshot_id;
		}
	}
	if (l->len && !(bs = pm_calloc(l->len, sizeof *bs)))
		return PAIMON_ENOMEM;
	for (i = 0; i < l->len && !rc; i++) {
		pm_data_file_meta *f = &l->items[i].file;
		const char *name = f->file_name ? f->file_name : "?";
		if (!f->has_file_source) {
			rc = pm_err(PAIMON_EINVAL, "commit: data file '%s' has no file source, which a row-tracking "
				    "table requires", name);
			break;
		}
		if (f->file_source != PM_FILE_SOURCE_APPEND || f->has_first_row_id || has_col(f, "_ROW_ID"))
			continue;
		if (pm_file_is_blob(name)) {
			const char *field;
			int64_t s;
			if (!f->has_write_cols || f->write_cols.len == 0) {
				rc = pm_err(PAIMON_EINVAL, "commit: blob file '%s' has no _WRITE_COLS naming its field",
					    name);
				break;
			}
			field = f->write_cols.items[0];
			s = blob_default;
			for (k = 0; k < nbs; k++)
				if (!strcmp(bs[k].field, field))
					break;
			if (k < nbs)
				s = bs[k].start;
			if (s >= start) {
				rc = pm_err(PAIMON_EINVAL, "commit: blob file '%s' (field '%s') would start at row id %lld, "
					    "which is not below %lld, the end of the normal file before it: a blob file "
					    "must follow the normal file it belongs to in the commit, and cover no more "
					    "rows", name, field, (long long)s, (long long)start);
				break;
			}
			f->has_first_row_id = 1;
			f->first_row_id = s;
			if (k == nbs) {
				bs[nbs].field = field;
				nbs++;
			}
			bs[k].start = s + f->row_count;
		} else if (pm_file_is_vector(name)) {
			if (vector_start >= start) {
				rc = pm_err(PAIMON_EINVAL, "commit: vector file '%s' would start at row id %lld, which is "
					    "not below %lld, the end of the normal files before it: a vector file must "
					    "follow the normal file it belongs to in the commit, and cover no more rows",
					    name, (long long)vector_start, (long long)start);
				break;
			}
			f->has_first_row_id = 1;
			f->first_row_id = vector_start;
			vector_start += f->row_count;
		} else {
			f->has_first_row_id = 1;
			f->first_row_id = start;
			blob_default = start;
			nbs = 0;
			start += f->row_count;
		}
	}
	pm_free(bs);
	if (!rc)
		*next_row_id = start;
	return rc;
}

/* ---------------------------------------------------------- committer */

struct pm_table_committer {
	pm_fileio *io;
	char *table_path;
	pm_table_schema *schema;   /* options merged with overrides */
	pm_partition_info pi;
	int has_pi;
	pm_manifest_options mo;
	char *user;
	int user_explicit;
	int max_retries;
	int64_t timeout_ms;        /* <0: unlimited */
	int64_t min_wait_ms, max_wait_ms;
	int row_tracking;
	int rt_group;              /* row-tracking.partition-group-on-commit (default true) */
	int data_evolution;        /* data-evolution.enabled */
	int deletion_vectors;      /* deletion-vectors.enabled */
	int bucket_unaware;        /* option bucket = -1 (the default of append tables) */
	const char *path_dir;      /* borrowed from schema options */

	int dynamic_overwrite;     /* option dynamic-partition-overwrite (default true) */
	int sync_data;             /* option commit.sync-data-files (paimonc; default true) */
	int overwrite;             /* the next commit is an OVERWRITE */
	int truncate;              /* ... of the whole table, whatever the mode */
	pm_strmap overwrite_spec;  /* static partition spec (possibly partial; empty = none) */
	const pm_bytes *drop;      /* drop_partitions: the exact partitions replaced (borrowed) */
	size_t n_drop;

	pm_commit_stats stats;
};

static int opt_long(const pm_strmap *m, const char *key, long long lo, long long *v)
{
	const char *s = pm_strmap_get(m, key);
	long long x;
	if (!s)
		return 0;
	if (pm_parse_i64(s, &x) || x < lo)
		return pm_err(PAIMON_EINVAL, "option '%s': invalid value '%s'", key, s);
	*v = x;
	return 0;
}

/* Booleans: *v = dflt when the option is absent. */
static int opt_bool(const pm_strmap *m, const char *key, int dflt, int *v)
{
	const char *s = pm_strmap_get(m, key);
	*v = dflt;
	if (s && pm_parse_bool(s, v))
		return pm_err(PAIMON_EINVAL, "option '%s': invalid value '%s'", key, s);
	return 0;
}

/* Durations as Java's TimeUtils.parseDuration (plain millis, or with a unit). */
static int opt_duration(const pm_strmap *m, const char *key, int64_t *v)
{
	const char *s = pm_strmap_get(m, key);
	return s ? pm_parse_duration_ms(key, s, v) : 0;
}

int pm_table_committer_new(pm_fileio *io, const char *table_path, const pm_table_schema *s,
			   const pm_strmap *opts, pm_table_committer **out)
{
	pm_table_committer *c;
	long long x;
	const char *v;
	int rc;
	*out = NULL;
	if (s->primary_keys.len)
		return pm_err(PAIMON_EUNSUPPORTED, "committing to primary-key tables is not supported");
	if (!(c = pm_calloc(1, sizeof *c)))
		return PAIMON_ENOMEM;
	c->io = io;
	c->max_retries = 10;
	c->timeout_ms = -1;
	c->min_wait_ms = 10;
	c->max_wait_ms = 10000;
	if (!(c->table_path = pm_strdup(table_path))) {
		rc = PAIMON_ENOMEM;
		goto fail;
	}
	if ((rc = pm_schema_copy_with(s, opts, &c->schema)))
		goto fail;
	if ((rc = pm_partition_info_init(&c->pi, c->schema)))
		goto fail;
	c->has_pi = 1;
	if ((rc = pm_manifest_options_from(&c->mo, &c->schema->options)))
		goto fail;
	x = c->max_retries;
	if ((rc = opt_long(&c->schema->options, "commit.max-retries", 0, &x)))
		goto fail;
	c->max_retries = x > 1000000 ? 1000000 : (int)x;
	if ((rc = opt_duration(&c->schema->options, "commit.timeout", &c->timeout_ms)) ||
	    (rc = opt_duration(&c->schema->options, "commit.min-retry-wait", &c->min_wait_ms)) ||
	    (rc = opt_duration(&c->schema->options, "commit.max-retry-wait", &c->max_wait_ms)))
		goto fail;
	if ((rc = opt_bool(&c->schema->options, "row-tracking.enabled", 0, &c->row_tracking)) ||
	    (rc = opt_bool(&c->schema->options, "dynamic-partition-overwrite", 1, &c->dynamic_overwrite)) ||
	    (rc = opt_bool(&c->schema->options, "commit.sync-data-files", 1, &c->sync_data)) ||
	    (rc = opt_bool(&c->schema->options, "row-tracking.partition-group-on-commit", 1, &c->rt_group)) ||
	    (rc = opt_bool(&c->schema->options, "data-evolution.enabled", 0, &c->data_evolution)) ||
	    (rc = opt_bool(&c->schema->options, "deletion-vectors.enabled", 0, &c->deletion_vectors)))
		goto fail;
	v = pm_strmap_get(&c->schema->options, "bucket");
	c->bucket_unaware = !v || !strcmp(v, "-1");
	c->path_dir = pm_strmap_get(&c->schema->options, "data-file.path-directory");
	if ((v = pm_strmap_get(&c->schema->options, "commit.user")) && *v) {
		c->user_explicit = 1;
		c->user = pm_strdup(v);
	} else {
		char u[PM_UUID_STR_LEN + 1];
		const char *prefix = pm_strmap_get(&c->schema->options, "commit.user-prefix");
		if ((rc = pm_uuid_v4(u)))
			goto fail;
		if (prefix && *prefix) {
			pm_buf b = PM_BUF_INIT;
			if (pm_buf_printf(&b, "%s_%s", prefix, u)) {
				rc = PAIMON_ENOMEM;
				goto fail;
			}
			c->user = pm_buf_detach(&b);
		} else {
			c->user = pm_strdup(u);
		}
	}
	if (!c->user) {
		rc = PAIMON_ENOMEM;
		goto fail;
	}
	*out = c;
	return 0;
fail:
	pm_table_committer_free(c);
	return rc;
}

const pm_table_schema *pm_table_committer_schema(const pm_table_committer *c)
{
	return c->schema;
}

const char *pm_table_committer_user(const pm_table_committer *c)
{
	return c->user;
}

void pm_table_committer_last_stats(const pm_table_committer *c, pm_commit_stats *out)
{
	*out = c->stats;
}

static void clear_overwrite(pm_table_committer *c)
{
	c->overwrite = 0;
	c->truncate = 0;
	pm_strmap_dispose(&c->overwrite_spec);
}

/*
 * The static partition filter of a spec (key -> canonical text, the
 * default partition name for null), possibly naming only some keys.
 * Unknown keys and unparsable values -> PAIMON_EINVAL.
 */
typedef struct part_filter {
	int all;                   /* matches every partition (whole table) */
	size_t nparts;             /* partitions to match (any of them) */
	pm_binrow_datum *vals;     /* nparts * pi.n values, pointing into bytes */
	pm_bytes *bytes;           /* nparts encoded partitions (kept for vals) */
	int *constrained;          /* static spec: pi.n flags; NULL = every key */
	pm_binrow_datum *scratch;  /* pi.n */
	const pm_partition_info *pi;
	int rc;                    /* first error met while matching */
} part_filter;

static void part_filter_dispose(part_filter *f)
{
	size_t i;
	for (i = 0; i < f->nparts; i++)
		pm_bytes_dispose(&f->bytes[i]);
	pm_free(f->bytes);
	pm_free(f->vals);
	pm_free(f->constrained);
	pm_free(f->scratch);
	memset(f, 0, sizeof *f);
}

static int part_filter_init(part_filter *f, const pm_partition_info *pi, size_t nparts)
{
	memset(f, 0, sizeof *f);
	f->pi = pi;
	if (!(f->scratch = pm_calloc(pi->n ? pi->n : 1, sizeof *f->scratch)))
		return PAIMON_ENOMEM;
	if (nparts) {
		f->bytes = pm_calloc(nparts, sizeof *f->bytes);
		f->vals = pm_calloc(nparts * (pi->n ? pi->n : 1), sizeof *f->vals);
		if (!f->bytes || !f->vals)
			return PAIMON_ENOMEM;
	}
	return 0;
}

/* Adds an encoded partition (copied) to the filter unless already there. */
static int part_filter_add(part_filter *f, const uint8_t *p, size_t n)
{
	size_t i;
	int rc;
	for (i = 0; i < f->nparts; i++)
		if (f->bytes[i].n == n && (n == 0 || !memcmp(f->bytes[i].p, p, n)))
			return 0;
	if ((rc = pm_bytes_set(&f->bytes[f->nparts], p, n)))
		return rc;
	if ((rc = pm_partition_decode(f->pi, f->bytes[f->nparts].p, n, f->vals + f->nparts * f->pi->n))) {
		pm_bytes_dispose(&f->bytes[f->nparts]);
		return rc;
	}
	f->nparts++;
	return 0;
}

static int build_static_filter(const pm_partition_info *pi, const pm_strmap *spec, part_filter *f)
{
	pm_binrow_datum *vals = NULL;
	uint8_t **owned = NULL;
	pm_buf b = PM_BUF_INIT;
	size_t i, j;
	int rc;

	if ((rc = part_filter_init(f, pi, 1)))
		return rc;
	if (!spec || spec->len == 0) {
		f->all = 1;
		return 0;
	}
	for (j = 0; j < spec->len; j++) {
		for (i = 0; i < pi->n; i++)
			if (!strcmp(pi->names[i], spec->keys[j]))
				break;
		if (i == pi->n)
			return pm_err(PAIMON_EINVAL, "overwrite partition: '%s' is not a partition key of the table%s",
				      spec->keys[j], pi->n ? "" : " (the table is not partitioned)");
	}
	vals = pm_calloc(pi->n, sizeof *vals);
	owned = pm_calloc(pi->n, sizeof *owned);
	f->constrained = pm_calloc(pi->n, sizeof *f->constrained);
	if (!vals || !owned || !f->constrained) {
		rc = PAIMON_ENOMEM;
		goto done;
	}
	for (i = 0; i < pi->n; i++) {
		const char *text = pm_strmap_get(spec, pi->names[i]);
		vals[i].is_null = 1;
		if (!text)
			continue;
		f->constrained[i] = 1;
		if (!strcmp(text, pi->default_name))
			continue;
		vals[i].is_null = 0;
		if ((rc = pm_datum_from_text(pi->types[i], text, strlen(text), &vals[i], &owned[i]))) {
			rc = pm_err_wrap("overwrite partition key '%s'", pi->names[i]);
			goto done;
		}
	}
	if ((rc = pm_partition_encode(pi, vals, &b)) || (rc = part_filter_add(f, (const uint8_t *)b.data, b.len)))
		goto done;
done:
	if (owned)
		for (i = 0; i < pi->n; i++)
			pm_free(owned[i]);
	pm_free(owned);
	pm_free(vals);
	pm_buf_dispose(&b);
	return rc;
}

/* 1 if the encoded partition p matches the filter, 0 if not, <0 on error. */
static int part_filter_match(part_filter *f, const uint8_t *p, size_t n)
{
	const pm_partition_info *pi = f->pi;
	size_t k, i;
	int rc;
	if (f->all)
		return 1;
	for (k = 0; k < f->nparts; k++) /* identical bytes: the common case */
		if (f->bytes[k].n == n && (n == 0 || !memcmp(f->bytes[k].p, p, n)) && !f->constrained)
			return 1;
	if ((rc = pm_partition_decode(pi, p, n, f->scratch)))
		return rc;
	for (k = 0; k < f->nparts; k++) {
		const pm_binrow_datum *want = f->vals + k * pi->n;
		for (i = 0; i < pi->n; i++) {
			if (f->constrained && !f->constrained[i])
				continue;
			if (!pm_datum_equal(pi->types[i], &want[i], &f->scratch[i]))
				break;
		}
		if (i == pi->n)
			return 1;
	}
	return 0;
}

int pm_table_committer_set_overwrite(pm_table_committer *c, const pm_strmap *partition)
{
	part_filter f;
	int rc;
	clear_overwrite(c);
	if (partition && partition->len) {
		/* validate now (keys, values), even if dynamic mode will ignore it */
		rc = build_static_filter(&c->pi, partition, &f);
		part_filter_dispose(&f);
		if (rc)
			return rc;
		if ((rc = pm_strmap_copy(&c->overwrite_spec, partition)))
			return rc;
	}
	c->overwrite = 1;
	return 0;
}

int pm_table_committer_drop_partitions(pm_table_committer *c, const pm_bytes *parts, size_t n, int64_t identifier,
				       int64_t *snapshot_id)
{
	int rc;
	clear_overwrite(c);
	if (snapshot_id)
		*snapshot_id = -1;
	if (!n)
		return 0;
	c->overwrite = 1;
	c->drop = parts;
	c->n_drop = n;
	rc = pm_table_committer_commit(c, NULL, 0, identifier, snapshot_id);
	c->drop = NULL;
	c->n_drop = 0;
	clear_overwrite(c);
	return rc;
}

int pm_table_committer_truncate(pm_table_committer *c, int64_t identifier, int64_t *snapshot_id)
{
	clear_overwrite(c);
	c->overwrite = 1;
	c->truncate = 1;
	return pm_table_committer_commit(c, NULL, 0, identifier, snapshot_id);
}

static int data_file_path(const pm_table_committer *c, const pm_manifest_entry *e, pm_buf *out)
{
	int rc;
	if (e->file.external_path) {
		pm_buf_clear(out);
		return pm_buf_puts(out, e->file.external_path);
	}
	if ((rc = pm_table_data_dir(c->table_path, c->path_dir, &c->pi, e->partition.p, e->partition.n, e->bucket,
				    out)))
		return rc;
	if ((rc = pm_buf_putc(out, '/')))
		return rc;
	return pm_buf_puts(out, e->file.file_name);
}

int pm_table_committer_abort(pm_table_committer *c, const pm_manifest_entry *files, size_t n)
{
	pm_buf p = PM_BUF_INIT;
	size_t i;
	int rc = 0, r;
	for (i = 0; i < n; i++) {
		if ((r = data_file_path(c, &files[i], &p)) || (r = pm_fileio_remove(c->io, pm_buf_cstr(&p))))
			if (!rc)
				rc = r;
	}
	pm_buf_dispose(&p);
	return rc;
}

/* <table>/index/<name>, or the entry's external path (Java
 * FileStorePathFactory.indexPath; option index-file-in-data-file-dir is not
 * supported). */
static int index_file_path(const pm_table_committer *c, const pm_index_manifest_entry *e, pm_buf *out)
{
	int rc;
	pm_buf_clear(out);
	if (e->external_path)
		return pm_buf_puts(out, e->external_path);
	if ((rc = pm_buf_puts(out, c->table_path)) || (rc = pm_buf_puts(out, "/index/")))
		return rc;
	return pm_buf_puts(out, e->file_name);
}

int pm_table_committer_abort_batch(pm_table_committer *c, const pm_commit_batch *b)
{
	pm_buf p = PM_BUF_INIT;
	size_t i;
	int rc = pm_table_committer_abort(c, b->adds, b->n_adds), r;
	for (i = 0; i < b->n_index; i++) {
		if (b->index[i].kind != PM_FILE_KIND_ADD || !b->index[i].file_name)
			continue;
		if ((r = index_file_path(c, &b->index[i], &p)) || (r = pm_fileio_remove(c->io, pm_buf_cstr(&p))))
			if (!rc)
				rc = r;
	}
	pm_buf_dispose(&p);
	return rc;
}

/* ------------------------------------------------------------ attempt */

/* Names of metadata files written by one attempt (deleted if it loses). */
typedef struct written {
	pm_strlist manifests;      /* relative to manifest/ */
	pm_strlist lists;
} written;

static void written_remove(pm_table_committer *c, pm_strlist *l)
{
	char *dir = pm_manifest_dir(c->table_path);
	size_t i;
	pm_err_state st;
	if (!dir)
		return;
	pm_err_save(&st);
	for (i = 0; i < l->len; i++) {
		char *p = pm_path_join(dir, l->items[i]);
		if (p)
			pm_fileio_remove(c->io, p);
		pm_free(p);
	}
	pm_err_restore(&st);
	pm_free(dir);
	pm_strlist_dispose(l);
}

static int record_metas(written *w, const pm_manifest_file_meta_list *l, size_t from)
{
	size_t i;
	int rc;
	for (i = from; i < l->len; i++)
		if ((rc = pm_strlist_push(&w->manifests, l->items[i].file_name)))
			return rc;
	return 0;
}

static int keep_any_manifest(void *ctx, const pm_manifest_file_meta *m)
{
	(void)ctx;
	(void)m;
	return 1;
}

static int keep_filtered_entry(void *ctx, const pm_manifest_entry *e)
{
	part_filter *f = ctx;
	int r;
	if (f->rc)
		return 1;
	r = part_filter_match(f, e->partition.p, e->partition.n);
	if (r < 0) {
		f->rc = r;
		return 1;
	}
	return r;
}

/* Minor manifest merge (§6.6) of before into after. */
static int merge_group(pm_table_committer *c, pm_manifest_namer *namer, const pm_manifest_file_meta *g,
		       size_t n, pm_manifest_file_meta_list *after, written *w)
{
	pm_entry_merger *m = NULL;
	pm_manifest_entry_list ents = {0}, res = {0};
	size_t i, before;
	int rc;
	if (n == 1)
		return pm_manifest_file_meta_list_append_copy(after, &g[0]);
	if ((rc = pm_entry_merger_new(&m)))
		return rc;
	for (i = 0; i < n; i++) {
		pm_manifest_entry_list_dispose(&ents);
		if ((rc = pm_manifest_read(c->io, c->table_path, g[i].file_name, &ents)) ||
		    (rc = pm_entry_merger_add(m, ents.items, ents.len)))
			goto done;
	}
	if ((rc = pm_entry_merger_finish(m, &res)))
		goto done;
	before = after->len;
	if (res.len) {
		if ((rc = pm_manifest_write(c->io, c->table_path, &c->mo, namer, c->pi.row_type, res.items, res.len,
					    after)))
			goto done;
		if ((rc = record_metas(w, after, before)))
			goto done;
	}
	c->stats.manifests_merged += n;
done:
	pm_manifest_entry_list_dispose(&ents);
	pm_manifest_entry_list_dispose(&res);
	pm_entry_merger_free(m);
	return rc;
}

static int minor_merge(pm_table_committer *c, pm_manifest_namer *namer, const pm_manifest_file_meta_list *before,
		       pm_manifest_file_meta_list *after, written *w)
{
	size_t i, start = 0;
	int64_t size = 0;
	int rc;
	for (i = 0; i < before->len; i++) {
		size += before->items[i].file_size;
		if (size >= c->mo.target_file_size) {
			if ((rc = merge_group(c, namer, &before->items[start], i + 1 - start, after, w)))
				return rc;
			start = i + 1;
			size = 0;
		}
	}
	if (before->len - start >= (size_t)(c->mo.merge_min_count > 0 ? c->mo.merge_min_count : 1) &&
	    before->len > start) {
		return merge_group(c, namer, &before->items[start], before->len - start, after, w);
	}
	for (i = start; i < before->len; i++)
		if ((rc = pm_manifest_file_meta_list_append_copy(after, &before->items[i])))
			return rc;
	return 0;
}

/* ------------------------------------------------- index manifest changes */

#define DV_INDEX "DELETION_VECTORS"
#define HASH_INDEX "HASH"

static int bytes_eq(const pm_bytes *a, const pm_bytes *b)
{
	return a->n == b->n && (a->n == 0 || !memcmp(a->p, b->p, a->n));
}

/* Whether a set of data file names (borrowed) holds name. */
static int name_in(const char *const *v, size_t n, const char *name)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (v[i] && name && !strcmp(v[i], name))
			return 1;
	return 0;
}

/*
 * Java IndexManifestFileHandler.write: the previous index manifest's entries
 * (all ADDs) combined per index type with the changes: DELETION_VECTORS on
 * a bucket-unaware table by file name (an ADD of a present name, a DV for a
 * data file that already has one, a DELETE of an absent name -> error);
 * HASH and bucketed DVs by (partition, bucket, type), deletes first; other
 * types (global indexes) by file name, deletes first (a DELETE must name a
 * present file). Result (ADD entries only): survivors in previous order,
 * then the ADDs in order. Errors are PAIMON_ECONFLICT: the latest index
 * manifest no longer matches what the commit was planned on.
 */
static int combine_index(const pm_table_committer *c, const pm_index_manifest_entry_list *prev,
			 const pm_index_manifest_entry *chg, size_t n, pm_index_manifest_entry_list *out)
{
	unsigned char *dead = NULL, *gone = NULL;
	const char **dv_files = NULL;
	size_t ndv = 0, cap = 0, i, j, k;
	int rc = 0;
	if (prev->len && !(dead = pm_calloc(prev->len, 1)))
		return PAIMON_ENOMEM;
	for (i = 0; i < prev->len; i++) {
		if (prev->items[i].kind != PM_FILE_KIND_ADD) {
			rc = pm_err(PAIMON_ECORRUPT, "index manifest: entry for '%s' is not an ADD",
				    prev->items[i].file_name);
			goto out;
		}
		cap += prev->items[i].n_dv_ranges;
	}
	for (i = 0; i < n; i++)
		cap += chg[i].n_dv_ranges;
	if (cap && (!(dv_files = pm_calloc(cap, sizeof *dv_files)) || !(gone = pm_calloc(cap, 1)))) {
		rc = PAIMON_ENOMEM;
		goto out;
	}
	/* data files that have a DV in the previous manifest (unaware DVs) */
	if (c->bucket_unaware)
		for (i = 0; i < prev->len; i++)
			if (!strcmp(prev->items[i].index_type, DV_INDEX))
				for (k = 0; k < prev->items[i].n_dv_ranges; k++)
					dv_files[ndv++] = prev->items[i].dv_ranges[k].data_file;
	/* deletes, then adds (the file-name combiners check as they go) */
	for (i = 0; i < n && !rc; i++) {
		const pm_index_manifest_entry *e = &chg[i];
		int dv_unaware = c->bucket_unaware && !strcmp(e->index_type, DV_INDEX);
		int bucketed = !strcmp(e->index_type, HASH_INDEX) || (!dv_unaware && !strcmp(e->index_type, DV_INDEX));
		int found = 0;
		if (e->kind != PM_FILE_KIND_DELETE)
			continue;
		for (j = 0; j < prev->len; j++) {
			const pm_index_manifest_entry *p = &prev->items[j];
			if (dead[j] || strcmp(p->index_type, e->index_type))
				continue;
			if (bucketed ? (p->bucket == e->bucket && bytes_eq(&p->partition, &e->partition))
				     : !strcmp(p->file_name, e->file_name)) {
				dead[j] = 1;
				found = 1;
				if (!bucketed)
					break;
			}
		}
		if (!found && !bucketed) {
			rc = pm_err(PAIMON_ECONFLICT, "commit to '%s': index file '%s' (%s) to delete is not in the latest "
				    "snapshot's index manifest: a concurrent commit replaced it", c->table_path,
				    e->file_name, e->index_type);
			break;
		}
		if (dv_unaware)
			for (k = 0; k < e->n_dv_ranges; k++) {
				for (j = 0; j < ndv; j++)
					if (!gone[j] && !strcmp(dv_files[j], e->dv_ranges[k].data_file))
						break;
				if (j == ndv) {
					rc = pm_err(PAIMON_ECONFLICT, "commit to '%s': index file '%s' deletes the deletion "
						    "vector of data file '%s', which has none", c->table_path, e->file_name,
						    e->dv_ranges[k].data_file);
					break;
				}
				gone[j] = 1;
			}
	}
	for (i = 0; i < n && !rc; i++) {
		const pm_index_manifest_entry *e = &chg[i];
		int dv_unaware = c->bucket_unaware && !strcmp(e->index_type, DV_INDEX);
		int bucketed = !strcmp(e->index_type, HASH_INDEX) || (!dv_unaware && !strcmp(e->index_type, DV_INDEX));
		int present = 0;
		if (e->kind != PM_FILE_KIND_ADD)
			continue;
		for (j = 0; j < prev->len; j++) {
			const pm_index_manifest_entry *p = &prev->items[j];
			if (dead[j])
				continue;
			if (bucketed && !strcmp(p->index_type, e->index_type) && p->bucket == e->bucket &&
			    bytes_eq(&p->partition, &e->partition))
				dead[j] = 1; /* replaced (BucketedCombiner) */
			else if (!strcmp(p->file_name, e->file_name))
				present = 1;
		}
		for (k = 0; k < i; k++)
			if (chg[k].kind == PM_FILE_KIND_ADD && !strcmp(chg[k].file_name, e->file_name))
				present = 1;
		/* GlobalIndexCombiner: a retained global index file of the same
		 * field with an intersecting row range refuses the ADD (one index
		 * per column and range; files of one commit may share a range) */
		for (j = 0; e->has_global_index && !rc && j < prev->len; j++) {
			const pm_index_manifest_entry *p = &prev->items[j];
			if (dead[j] || !p->has_global_index ||
			    p->global_index.index_field_id != e->global_index.index_field_id)
				continue;
			if (p->global_index.row_range_start <= e->global_index.row_range_end &&
			    e->global_index.row_range_start <= p->global_index.row_range_end)
				rc = pm_err(PAIMON_ECONFLICT, "commit to '%s': global index file '%s' (%s, field %d, rows "
					    "[%lld, %lld]) intersects index file '%s' (%s, rows [%lld, %lld]) of the same "
					    "field: a concurrent build committed it", c->table_path, e->file_name,
					    e->index_type, (int)e->global_index.index_field_id,
					    (long long)e->global_index.row_range_start,
					    (long long)e->global_index.row_range_end, p->file_name, p->index_type,
					    (long long)p->global_index.row_range_start,
					    (long long)p->global_index.row_range_end);
		}
		if (rc)
			break;
		if (present) {
			rc = pm_err(PAIMON_ECONFLICT, "commit to '%s': index file '%s' is already in the index manifest",
				    c->table_path, e->file_name);
			break;
		}
		if (dv_unaware)
			for (k = 0; k < e->n_dv_ranges; k++) {
				const char *df = e->dv_ranges[k].data_file;
				for (j = 0; j < ndv; j++)
					if (!gone[j] && !strcmp(dv_files[j], df))
						break;
				if (j < ndv) {
					rc = pm_err(PAIMON_ECONFLICT, "commit to '%s': data file '%s' already has a deletion "
						    "vector in the latest snapshot; index file '%s' would add another (a "
						    "concurrent delete changed it)", c->table_path, df, e->file_name);
					break;
				}
				dv_files[ndv++] = df;
			}
	}
	for (i = 0; i < prev->len && !rc; i++)
		if (!dead[i])
			rc = pm_index_manifest_entry_list_append_copy(out, &prev->items[i]);
	for (i = 0; i < n && !rc; i++)
		if (chg[i].kind == PM_FILE_KIND_ADD)
			rc = pm_index_manifest_entry_list_append_copy(out, &chg[i]);
out:
	pm_free(dead);
	pm_free(gone);
	pm_free(dv_files);
	return rc;
}

/* ------------------------------------------------------ conflict checks */

typedef struct rng {
	int64_t from, to; /* inclusive */
} rng;

static int rng_cmp(const void *a, const void *b)
{
	const rng *x = a, *y = b;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

/* Sorts and merges overlapping (and, with adjacent, touching) ranges in
 * place (Java Range.sortAndMergeOverlap); returns the count. */
static size_t rng_merge(rng *r, size_t n, int adjacent)
{
	size_t i, k = 0;
	if (!n)
		return 0;
	qsort(r, n, sizeof *r, rng_cmp);
	for (i = 1; i < n; i++) {
		if (r[i].from <= r[k].to || (adjacent && r[i].from == r[k].to + 1)) {
			if (r[i].to > r[k].to)
				r[k].to = r[i].to;
		} else {
			r[++k] = r[i];
		}
	}
	return k + 1;
}

/* First merged range whose end is >= from (binary search). */
static size_t rng_lower(const rng *r, size_t n, int64_t from)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r[mid].to < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int rng_contains(const rng *r, size_t n, rng x)
{
	size_t i = rng_lower(r, n, x.from);
	return i < n && r[i].from <= x.from && r[i].to >= x.to;
}

static int rng_exact(const rng *r, size_t n, rng x)
{
	size_t i = rng_lower(r, n, x.from);
	return i < n && r[i].from == x.from && r[i].to == x.to;
}

static rng file_rng(const pm_data_file_meta *f)
{
	rng r;
	r.from = f->first_row_id;
	r.to = f->first_row_id + f->row_count - 1;
	return r;
}

static int dedicated(const char *name)
{
	return pm_file_is_blob(name) || pm_file_is_vector(name);
}

/* Java SpecialFields.isSystemField. */
static int system_field(const char *name)
{
	return !strncmp(name, "_KEY_", 5) || !strcmp(name, "_SEQUENCE_NUMBER") || !strcmp(name, "_VALUE_KIND") ||
	       !strcmp(name, "_LEVEL") || !strcmp(name, "rowkind") || !strcmp(name, "_ROW_ID");
}

typedef struct conflict_ctx {
	pm_table_committer *c;
	const pm_snapshot *latest;
	const pm_commit_batch *b;
	pm_table_schema **schemas;  /* loaded by id (cache) */
	size_t nschemas;
} conflict_ctx;

/* A conflict: PAIMON_ECONFLICT naming the table, the latest snapshot and its user. */
static int conflict(const conflict_ctx *x, const char *fmt, ...)
{
	pm_buf b = PM_BUF_INIT;
	va_list ap;
	int rc;
	va_start(ap, fmt);
	rc = pm_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	if (rc) {
		pm_buf_dispose(&b);
		return rc;
	}
	rc = pm_err(PAIMON_ECONFLICT, "commit to '%s' conflicts with snapshot %lld (commit user %s): %s; nothing was "
		    "committed", x->c->table_path, (long long)x->latest->id,
		    x->latest->commit_user ? x->latest->commit_user : "?", pm_buf_cstr(&b));
	pm_buf_dispose(&b);
	return rc;
}

static int schema_of(conflict_ctx *x, int64_t id, const pm_table_schema **out)
{
	size_t i;
	pm_table_schema *s = NULL, **n;
	int rc;
	for (i = 0; i < x->nschemas; i++)
		if (x->schemas[i]->id == id) {
			*out = x->schemas[i];
			return 0;
		}
	if ((rc = pm_schema_load(x->c->io, x->c->table_path, id, &s)))
		return pm_err_wrap("commit conflict check: schema %lld", (long long)id);
	if (!(n = pm_realloc(x->schemas, (x->nschemas + 1) * sizeof *n))) {
		pm_schema_free(s);
		return PAIMON_ENOMEM;
	}
	x->schemas = n;
	x->schemas[x->nschemas++] = s;
	*out = s;
	return 0;
}

/* Field id of a written column (-1 for a system field); unknown -> error. */
static int field_id(conflict_ctx *x, const pm_data_file_meta *f, const char *col, int32_t *id)
{
	const pm_table_schema *s;
	size_t i;
	int rc;
	*id = -1;
	if ((rc = schema_of(x, f->schema_id, &s)))
		return rc;
	for (i = 0; i < s->nfields; i++)
		if (!strcmp(s->fields[i].name, col)) {
			*id = s->fields[i].id;
			return 0;
		}
	if (system_field(col))
		return 0;
	return pm_err(PAIMON_ECORRUPT, "data file '%s': write column '%s' is not in schema %lld", f->file_name, col,
		      (long long)f->schema_id);
}

/* RowIdColumnConflictChecker: the delta's row-id files merged by
 * overlapping range, with the field ids each group writes. */
typedef struct write_range {
	rng r;
	int32_t *ids;
	size_t nids;
	int all;   /* a file of the group writes every column (_WRITE_COLS null) */
} write_range;

static void write_ranges_free(write_range *w, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		pm_free(w[i].ids);
	pm_free(w);
}

static int add_id(write_range *w, int32_t id)
{
	size_t i;
	int32_t *n;
	for (i = 0; i < w->nids; i++)
		if (w->ids[i] == id)
			return 0;
	if (!(n = pm_realloc(w->ids, (w->nids + 1) * sizeof *n)))
		return PAIMON_ENOMEM;
	w->ids = n;
	w->ids[w->nids++] = id;
	return 0;
}

static int add_file_ids(conflict_ctx *x, write_range *w, const pm_data_file_meta *f)
{
	size_t i;
	int rc;
	if (!f->has_write_cols) {
		const pm_table_schema *s;
		if ((rc = schema_of(x, f->schema_id, &s)))
			return rc;
		for (i = 0; i < s->nfields; i++)
			if ((rc = add_id(w, s->fields[i].id)))
				return rc;
		return 0;
	}
	for (i = 0; i < f->write_cols.len; i++) {
		int32_t id;
		if ((rc = field_id(x, f, f->write_cols.items[i], &id)))
			return rc;
		if (id >= 0 && (rc = add_id(w, id)))
			return rc;
	}
	return 0;
}

typedef struct idx_rng {
	rng r;
	size_t i;
} idx_rng;

static int idx_rng_cmp(const void *a, const void *b)
{
	int c = rng_cmp(&((const idx_rng *)a)->r, &((const idx_rng *)b)->r);
	if (c)
		return c;
	return ((const idx_rng *)a)->i < ((const idx_rng *)b)->i ? -1 : 1;
}

static int build_write_ranges(conflict_ctx *x, write_range **out, size_t *nout)
{
	const pm_commit_batch *b = x->b;
	idx_rng *v = NULL;
	write_range *w = NULL;
	size_t n = 0, nw = 0, i;
	int rc = 0;
	*out = NULL;
	*nout = 0;
	if (b->n_adds && (!(v = pm_calloc(b->n_adds, sizeof *v)) || !(w = pm_calloc(b->n_adds, sizeof *w)))) {
		pm_free(v);
		return PAIMON_ENOMEM;
	}
	for (i = 0; i < b->n_adds; i++)
		if (b->adds[i].file.has_first_row_id) {
			v[n].r = file_rng(&b->adds[i].file);
			v[n].i = i;
			n++;
		}
	if (n)
		qsort(v, n, sizeof *v, idx_rng_cmp);
	for (i = 0; i < n && !rc; i++) {
		if (!nw || v[i].r.from > w[nw - 1].r.to) {
			w[nw].r = v[i].r;
			nw++;
		} else if (v[i].r.to > w[nw - 1].r.to) {
			w[nw - 1].r.to = v[i].r.to;
		}
		rc = add_file_ids(x, &w[nw - 1], &b->adds[v[i].i].file);
	}
	pm_free(v);
	if (rc) {
		write_ranges_free(w, nw);
		return rc;
	}
	*out = w;
	*nout = nw;
	return 0;
}

/* 1: the committed file f writes rows and columns the delta writes too. */
static int conflicts_with(conflict_ctx *x, const write_range *w, size_t nw, const pm_data_file_meta *f, int *hit)
{
	rng r;
	size_t i, k, j;
	int rc;
	*hit = 0;
	if (!f->has_first_row_id)
		return 0;
	r = file_rng(f);
	for (i = 0; i < nw; i++) {
		if (w[i].r.to < r.from)
			continue;
		if (w[i].r.from > r.to)
			break;
		if (!f->has_write_cols) {
			*hit = 1;
			return 0;
		}
		for (k = 0; k < f->write_cols.len; k++) {
			int32_t id;
			if ((rc = field_id(x, f, f->write_cols.items[k], &id)))
				return rc;
			for (j = 0; id >= 0 && j < w[i].nids; j++)
				if (w[i].ids[j] == id) {
					*hit = 1;
					return 0;
				}
		}
	}
	return 0;
}

/* DataEvolutionConflictDetection.checkForRowIdFromSnapshot. */
static int check_since_base(conflict_ctx *x, part_filter *chg)
{
	pm_table_committer *c = x->c;
	write_range *w = NULL;
	size_t nw = 0, i;
	pm_snapshot *base = NULL;
	int64_t id, base_next;
	int rc;
	if ((rc = build_write_ranges(x, &w, &nw)) || !nw)
		goto out;
	if ((rc = pm_snapshot_load(c->io, c->table_path, x->b->check_from_snapshot, &base))) {
		if (rc == PAIMON_ENOTFOUND)
			rc = conflict(x, "snapshot %lld, which the update was planned on, no longer exists; plan it again",
				      (long long)x->b->check_from_snapshot);
		goto out;
	}
	if (!base->has_next_row_id) {
		rc = conflict(x, "next row id is null in snapshot %lld, which the update was planned on",
			      (long long)base->id);
		goto out;
	}
	base_next = base->next_row_id;
	for (id = x->b->check_from_snapshot + 1; id <= x->latest->id && !rc; id++) {
		pm_snapshot *s = NULL;
		pm_manifest_file_meta_list ml = {0};
		pm_manifest_entry_list ents = {0};
		if ((rc = pm_snapshot_load(c->io, c->table_path, id, &s))) {
			if (rc == PAIMON_ENOTFOUND)
				rc = conflict(x, "snapshot %lld, committed after the update's base snapshot %lld, no longer "
					      "exists, so the update cannot be checked; plan it again", (long long)id,
					      (long long)x->b->check_from_snapshot);
			break;
		}
		if (s->commit_kind && !strcmp(s->commit_kind, "COMPACT")) {
			pm_snapshot_free(s);
			continue;
		}
		if (!(rc = pm_manifest_list_read(c->io, c->table_path, s->delta_manifest_list, &ml)))
			for (i = 0; i < ml.len && !rc; i++)
				rc = pm_manifest_read(c->io, c->table_path, ml.items[i].file_name, &ents);
		for (i = 0; i < ents.len && !rc; i++) {
			const pm_manifest_entry *e = &ents.items[i];
			int hit = 0, m;
			if (!e->file.has_first_row_id || e->file.first_row_id >= base_next)
				continue;
			if ((m = part_filter_match(chg, e->partition.p, e->partition.n)) < 0) {
				rc = m;
				break;
			}
			if (!m)
				continue;
			if ((rc = conflicts_with(x, w, nw, &e->file, &hit)))
				break;
			if (hit)
				rc = conflict(x, "For Data Evolution table, multiple 'MERGE INTO' operations have encountered "
					      "conflicts, updating the same file, which can render some updates "
					      "ineffective: snapshot %lld (%s) %s file '%s' (row ids %lld..%lld), which "
					      "writes columns this commit writes for the same rows, after its base "
					      "snapshot %lld", (long long)id, s->commit_kind ? s->commit_kind : "?",
					      e->kind == PM_FILE_KIND_ADD ? "added" : "deleted", e->file.file_name,
					      (long long)e->file.first_row_id,
					      (long long)(e->file.first_row_id + e->file.row_count - 1),
					      (long long)x->b->check_from_snapshot);
		}
		pm_manifest_entry_list_dispose(&ents);
		pm_manifest_file_meta_list_dispose(&ml);
		pm_snapshot_free(s);
	}
out:
	pm_snapshot_free(base);
	write_ranges_free(w, nw);
	return rc;
}

/* checkNonCompactRowIdExistence: every ADD with a first row id below the
 * latest nextRowId targets rows that exist: a normal file exactly one live
 * merged normal range, a blob/vector file a range inside one. */
static int check_existence(conflict_ctx *x, const pm_manifest_entry_list *base)
{
	const pm_commit_batch *b = x->b;
	rng *r = NULL;
	size_t n = 0, i;
	int rc = 0;
	if (!x->latest->has_next_row_id)
		return 0;
	for (i = 0; i < b->n_adds; i++)
		if (b->adds[i].file.has_first_row_id && b->adds[i].file.first_row_id < x->latest->next_row_id)
			break;
	if (i == b->n_adds)
		return 0;
	if (base->len && !(r = pm_malloc(base->len * sizeof *r)))
		return PAIMON_ENOMEM;
	for (i = 0; i < base->len; i++)
		if (base->items[i].kind == PM_FILE_KIND_ADD && base->items[i].file.has_first_row_id &&
		    !dedicated(base->items[i].file.file_name))
			r[n++] = file_rng(&base->items[i].file);
	n = rng_merge(r, n, 0);
	for (i = 0; i < b->n_adds && !rc; i++) {
		const pm_manifest_entry *e = &b->adds[i];
		int ok;
		if (!e->file.has_first_row_id || e->file.first_row_id >= x->latest->next_row_id)
			continue;
		ok = dedicated(e->file.file_name) ? rng_contains(r, n, file_rng(&e->file))
						  : rng_exact(r, n, file_rng(&e->file));
		if (!ok)
			rc = conflict(x, "Row ID existence conflict: file '%s' references firstRowId=%lld, rowCount=%lld "
				      "in bucket %d, but no matching file exists in the current snapshot. The "
				      "referenced file may have been rewritten by a concurrent compaction or removed "
				      "by an overwrite", e->file.file_name, (long long)e->file.first_row_id,
				      (long long)e->file.row_count, (int)e->bucket);
	}
	pm_free(r);
	return rc;
}

static int describe_files(pm_buf *b, const pm_manifest_entry *const *v, size_t n)
{
	size_t i;
	int rc = 0;
	for (i = 0; i < n && !rc; i++)
		rc = pm_buf_printf(b, "%s%s(rowId=%lld, count=%lld)", i ? ", " : "", v[i]->file.file_name,
				   (long long)v[i]->file.first_row_id, (long long)v[i]->file.row_count);
	return rc;
}

typedef struct ent_rng {
	rng r;
	const pm_manifest_entry *e;
	size_t order;
} ent_rng;

static int ent_rng_cmp(const void *a, const void *b)
{
	const ent_rng *x = a, *y = b;
	int c = rng_cmp(&x->r, &y->r);
	return c ? c : (x->order < y->order ? -1 : 1);
}

/* checkRowIdRangeConflicts over the live files after the commit: the normal
 * files of one overlapping group share one range; a blob/vector file lies
 * inside one merged normal range. */
static int check_range_conflicts(conflict_ctx *x, const pm_manifest_entry_list *merged)
{
	ent_rng *v = NULL;
	rng *r = NULL;
	const pm_manifest_entry **grp = NULL;
	size_t n = 0, nr, i, j;
	int rc = 0;
	if (merged->len && (!(v = pm_calloc(merged->len, sizeof *v)) || !(r = pm_calloc(merged->len, sizeof *r)) ||
			    !(grp = pm_calloc(merged->len, sizeof *grp)))) {
		rc = PAIMON_ENOMEM;
		goto out;
	}
	for (i = 0; i < merged->len; i++) {
		const pm_manifest_entry *e = &merged->items[i];
		if (e->kind != PM_FILE_KIND_ADD || !e->file.has_first_row_id || dedicated(e->file.file_name))
			continue;
		v[n].r = file_rng(&e->file);
		v[n].e = e;
		v[n].order = i;
		r[n] = v[n].r;
		n++;
	}
	if (n)
		qsort(v, n, sizeof *v, ent_rng_cmp);
	for (i = 0; i < n && !rc; i = j) {
		int64_t end = v[i].r.to;
		int same = 1;
		for (j = i + 1; j < n && v[j].r.from <= end; j++) {
			if (v[j].r.to > end)
				end = v[j].r.to;
			if (v[j].r.from != v[i].r.from || v[j].r.to != v[i].r.to)
				same = 0;
		}
		if (!same) {
			pm_buf d = PM_BUF_INIT;
			size_t k;
			for (k = i; k < j; k++)
				grp[k - i] = v[k].e;
			if (!(rc = describe_files(&d, grp, j - i)))
				rc = conflict(x, "For Data Evolution table, multiple 'MERGE INTO' and 'COMPACT' operations "
					      "have encountered conflicts, data files: [%s]", pm_buf_cstr(&d));
			pm_buf_dispose(&d);
		}
	}
	nr = rng_merge(r, n, 0);
	for (i = 0; i < merged->len && !rc; i++) {
		const pm_manifest_entry *e = &merged->items[i];
		if (e->kind != PM_FILE_KIND_ADD || !e->file.has_first_row_id || !dedicated(e->file.file_name))
			continue;
		if (!rng_contains(r, nr, file_rng(&e->file)))
			rc = conflict(x, "For Data Evolution table, multiple 'MERGE INTO' and 'COMPACT' operations have "
				      "encountered conflicts, dedicated file %s(rowId=%lld, count=%lld) is not covered by "
				      "one data file range", e->file.file_name, (long long)e->file.first_row_id,
				      (long long)e->file.row_count);
	}
out:
	pm_free(v);
	pm_free(r);
	pm_free(grp);
	return rc;
}

/* checkGlobalIndexRowIdExistence: an added global index covers live rows. */
static int check_global_index(conflict_ctx *x, const pm_manifest_entry_list *base)
{
	const pm_commit_batch *b = x->b;
	rng *r = NULL;
	size_t i, j, n;
	int rc = 0;
	for (i = 0; i < b->n_index && !rc; i++) {
		const pm_index_manifest_entry *ie = &b->index[i];
		rng want;
		if (ie->kind != PM_FILE_KIND_ADD || !ie->has_global_index)
			continue;
		if (!r && base->len && !(r = pm_malloc(base->len * sizeof *r)))
			return PAIMON_ENOMEM;
		for (j = n = 0; j < base->len; j++) {
			const pm_manifest_entry *e = &base->items[j];
			if (e->kind == PM_FILE_KIND_ADD && e->file.has_first_row_id && e->bucket == ie->bucket &&
			    bytes_eq(&e->partition, &ie->partition))
				r[n++] = file_rng(&e->file);
		}
		n = rng_merge(r, n, 1);
		want.from = ie->global_index.row_range_start;
		want.to = ie->global_index.row_range_end;
		if (!rng_contains(r, n, want))
			rc = conflict(x, "Global index row ID existence conflict: index file '%s' references row range "
				      "[%lld, %lld], but this range is not fully covered by current data files. The "
				      "referenced row IDs may have been reassigned or removed by a concurrent commit",
				      ie->file_name, (long long)want.from, (long long)want.to);
	}
	pm_free(r);
	return rc;
}

/*
 * Deletion vectors of a bucket-unaware table (Java ConflictDetection
 * buildBaseEntriesWithDV / buildDeltaEntriesWithDV + mergeEntries): each
 * data file a changed DV names, other than the commit's own new files,
 * must be live, and the commit's DV changes for it must apply to the DV it
 * has in the latest snapshot: a DELETE names exactly that index file, and
 * a lone ADD (a first DV) requires that it had none. So two deletes that
 * changed the same anchor's DV since their base cannot both commit.
 */
static int check_dv(conflict_ctx *x, const pm_manifest_entry_list *base)
{
	pm_table_committer *c = x->c;
	const pm_commit_batch *b = x->b;
	pm_index_manifest_entry_list cur = {0};
	const char **cur_file = NULL, **cur_index = NULL; /* data file -> its DV index file in latest */
	size_t ncur = 0, cap = 0, i, j, k;
	int rc = 0;
	for (i = 0; i < b->n_index; i++)
		if (b->index[i].n_dv_ranges)
			break;
	if (i == b->n_index)
		return 0;
	if (x->latest->index_manifest &&
	    (rc = pm_index_manifest_read(c->io, c->table_path, x->latest->index_manifest, &cur)))
		return rc;
	for (i = 0; i < cur.len; i++)
		if (cur.items[i].kind == PM_FILE_KIND_ADD)
			cap += cur.items[i].n_dv_ranges;
	if (cap && (!(cur_file = pm_calloc(cap, sizeof *cur_file)) || !(cur_index = pm_calloc(cap, sizeof *cur_index)))) {
		rc = PAIMON_ENOMEM;
		goto out;
	}
	for (i = 0; i < cur.len && !rc; i++) {
		if (cur.items[i].kind != PM_FILE_KIND_ADD)
			continue;
		for (k = 0; k < cur.items[i].n_dv_ranges && !rc; k++) {
			const char *df = cur.items[i].dv_ranges[k].data_file;
			if (name_in(cur_file, ncur, df))
				rc = conflict(x, "data file '%s' has more than one deletion vector in the latest index "
					      "manifest", df);
			cur_file[ncur] = df;
			cur_index[ncur++] = cur.items[i].file_name;
		}
	}
	/* every data file the changes name, once */
	for (i = 0; i < b->n_index && !rc; i++) {
		for (k = 0; k < b->index[i].n_dv_ranges && !rc; k++) {
			const char *df = b->index[i].dv_ranges[k].data_file;
			const char *have = NULL, *set[64];
			size_t nset = 0, nchg = 0, ii, kk;
			int dup = 0, adds_only = 1, own = 0;
			/* first mention only */
			for (ii = 0; ii <= i && !dup; ii++)
				for (kk = 0; kk < b->index[ii].n_dv_ranges; kk++) {
					if (ii == i && kk == k)
						break;
					if (!strcmp(b->index[ii].dv_ranges[kk].data_file, df)) {
						dup = 1;
						break;
					}
				}
			if (dup)
				continue;
			for (j = 0; j < b->n_adds; j++)
				if (!strcmp(b->adds[j].file.file_name, df))
					own = 1;
			for (ii = 0; ii < b->n_index; ii++)
				for (kk = 0; kk < b->index[ii].n_dv_ranges; kk++)
					if (!strcmp(b->index[ii].dv_ranges[kk].data_file, df)) {
						nchg++;
						if (b->index[ii].kind != PM_FILE_KIND_ADD)
							adds_only = 0;
					}
			if (own) {
				if (nchg != 1)
					rc = pm_err(PAIMON_EINVAL, "commit: new data file '%s' has %zu deletion vector changes; "
						    "a new file can have only one", df, nchg);
				continue;
			}
			for (j = 0; j < base->len; j++)
				if (base->items[j].kind == PM_FILE_KIND_ADD && !strcmp(base->items[j].file.file_name, df))
					break;
			if (j == base->len) {
				rc = conflict(x, "Trying to create deletion vector on file %s which is not previously added "
					      "(a concurrent commit removed it)", df);
				break;
			}
			for (j = 0; j < ncur; j++)
				if (!strcmp(cur_file[j], df))
					have = cur_index[j];
			/* the DV identifiers of df: {have}, then the changes in order */
			set[nset++] = have;
			for (ii = 0; ii < b->n_index && !rc; ii++) {
				const pm_index_manifest_entry *e = &b->index[ii];
				int named = 0;
				for (kk = 0; kk < e->n_dv_ranges; kk++)
					if (!strcmp(e->dv_ranges[kk].data_file, df))
						named = 1;
				if (!named)
					continue;
				for (j = 0; j < nset; j++)
					if (set[j] && !strcmp(set[j], e->file_name))
						break;
				if (e->kind == PM_FILE_KIND_ADD) {
					if (j < nset || nset == sizeof set / sizeof *set)
						rc = conflict(x, "deletion vector index file '%s' for data file '%s' is "
							      "added twice", e->file_name, df);
					else
						set[nset++] = e->file_name;
				} else if (j == nset) {
					rc = conflict(x, "File deletion conflicts detected: the deletion vector of data "
						      "file '%s' is now %s%s%s, not '%s' as when this delete was planned (a "
						      "concurrent delete changed it)", df, have ? "in '" : "", have ? have : "none",
						      have ? "'" : "", e->file_name);
				} else {
					set[j] = set[--nset];
				}
			}
			if (!rc && nchg == 1 && adds_only) {
				/* a first DV: the file must have had none */
				for (j = 0; j < nset; j++)
					if (!set[j])
						break;
				if (j == nset)
					rc = conflict(x, "File deletion conflicts detected: data file '%s' got a deletion "
						      "vector ('%s') from a concurrent commit after this delete was planned",
						      df, have ? have : "?");
			}
		}
	}
out:
	pm_free(cur_file);
	pm_free(cur_index);
	pm_index_manifest_entry_list_dispose(&cur);
	return rc;
}

/*
 * The checks of Java ConflictDetection.checkConflicts (+ the data-evolution
 * ones) for batch b against latest: base = live files of the changed
 * partitions (those of the new files, and of DV and global index changes).
 */
static int check_conflicts(pm_table_committer *c, const pm_snapshot *latest, const pm_commit_batch *b)
{
	conflict_ctx x;
	part_filter chg;
	pm_manifest_filter f;
	pm_manifest_entry_list base = {0}, merged = {0};
	pm_entry_merger *m = NULL;
	size_t i;
	int rc;
	memset(&x, 0, sizeof x);
	x.c = c;
	x.latest = latest;
	x.b = b;
	if ((rc = part_filter_init(&chg, &c->pi, b->n_adds + b->n_index + b->n_deletes)))
		goto out;
	for (i = 0; i < b->n_adds && !rc; i++)
		rc = part_filter_add(&chg, b->adds[i].partition.p, b->adds[i].partition.n);
	for (i = 0; i < b->n_deletes && !rc; i++)
		rc = part_filter_add(&chg, b->deletes[i].partition.p, b->deletes[i].partition.n);
	for (i = 0; i < b->n_index && !rc; i++)
		if (!strcmp(b->index[i].index_type, DV_INDEX) || b->index[i].has_global_index)
			rc = part_filter_add(&chg, b->index[i].partition.p, b->index[i].partition.n);
	if (rc || !chg.nparts)
		goto out;
	f.keep_manifest = keep_any_manifest;
	f.keep_entry = keep_filtered_entry;
	f.ctx = &chg;
	chg.rc = 0;
	if ((rc = pm_manifest_read_all(c->io, c->table_path, latest->base_manifest_list, latest->delta_manifest_list,
				       &f, &base)) ||
	    (rc = chg.rc))
		goto out;
	/* a new file must not be live already (a replayed message) */
	if ((rc = pm_entry_merger_new(&m)) || (rc = pm_entry_merger_add(m, base.items, base.len)))
		goto out;
	if ((rc = pm_entry_merger_add(m, b->adds, b->n_adds))) {
		char msg[1024];
		snprintf(msg, sizeof msg, "%s", paimon_error_message());
		rc = conflict(&x, "File deletion conflicts detected! %s", msg);
		goto out;
	}
	/* a compaction's inputs must all be live still (Java
	 * ConflictDetection: a DELETE of a file no longer there) */
	for (i = 0; i < b->n_deletes && !rc; i++) {
		pm_manifest_entry d = b->deletes[i];
		d.kind = PM_FILE_KIND_DELETE;
		rc = pm_entry_merger_add(m, &d, 1);
	}
	if (rc)
		goto out;
	if (pm_entry_merger_pending_deletes(m)) {
		rc = conflict(&x, "File deletion conflicts detected! Give up committing. %zu file(s) this "
			      "compaction read were removed by a concurrent commit (overwrite, delete or another "
			      "compaction)", pm_entry_merger_pending_deletes(m));
		goto out;
	}
	if ((rc = pm_entry_merger_finish(m, &merged)))
		goto out;
	if (c->deletion_vectors && c->bucket_unaware && (rc = check_dv(&x, &base)))
		goto out;
	if (!c->data_evolution)
		goto out;
	/* a compaction's file spans the groups it replaces: no exact match */
	if (!b->compact && (rc = check_existence(&x, &base)))
		goto out;
	/* Java checkRowIdRangeConflicts: with a base snapshot, and for every
	 * COMPACT commit of a data-evolution table */
	if ((b->check_from_snapshot >= 0 || b->compact) && (rc = check_range_conflicts(&x, &merged)))
		goto out;
	if ((rc = check_global_index(&x, &base)))
		goto out;
	if (b->check_from_snapshot >= 0)
		rc = check_since_base(&x, &chg);
out:
	for (i = 0; i < x.nschemas; i++)
		pm_schema_free(x.schemas[i]);
	pm_free(x.schemas);
	pm_entry_merger_free(m);
	pm_manifest_entry_list_dispose(&base);
	pm_manifest_entry_list_dispose(&merged);
	part_filter_dispose(&chg);
	return rc;
}

static int latest_schema_id(pm_table_committer *c, int64_t *id)
{
	int64_t *ids = NULL;
	size_t n = 0;
	int rc = pm_schema_list_ids(c->io, c->table_path, &ids, &n);
	if (rc)
		return rc;
	*id = n ? ids[n - 1] : c->schema->id;
	pm_free(ids);
	return 0;
}

typedef struct attempt_state {
	/* delta manifests reusable across attempts (APPEND without row tracking) */
	int has_delta;
	int uncertain;             /* an attempt may have landed: never delete its files */
	pm_err_state uncertain_err; /* why the last uncertain attempt failed */
	pm_manifest_file_meta_list delta;
	pm_strlist delta_names;
	pm_manifest_namer namer;
} attempt_state;

/* Outcome of one attempt. */
enum { A_DONE, A_LOST, A_UNCERTAIN };

/* ow: the partitions an OVERWRITE replaces (NULL for an APPEND). */
static int one_attempt(pm_table_committer *c, attempt_state *st, part_filter *ow, const pm_commit_batch *b,
		       const char *kind, int detect, int64_t identifier, const pm_snapshot *latest, int *outcome,
		       int64_t *new_id)
{
	const pm_manifest_entry *adds = b->adds;
	size_t n = b->n_adds;
	pm_manifest_entry_list delta_entries = {0}, live = {0};
	pm_index_manifest_entry_list prev_index = {0}, new_index = {0}, ow_index = {0};
	char *index_name = NULL;
	pm_manifest_file_meta_list before = {0}, after = {0}, delta_local = {0};
	pm_manifest_file_meta_list *delta = &delta_local;
	written w = {{0}, {0}};
	pm_snapshot snap;
	char *base_name = NULL, *delta_name = NULL;
	int64_t base_size = 0, delta_size = 0, added = 0, deleted = 0, next_row_id = 0, schema_id;
	char uuid[PM_UUID_STR_LEN + 1];
	size_t i;
	int rc, reuse = !c->overwrite && !c->row_tracking && !b->n_deletes;

	*outcome = A_LOST;
	memset(&snap, 0, sizeof snap);
	/* conflicts are checked against this attempt's latest snapshot, before
	 * anything is written (Java tryCommitOnce) */
	if (detect && latest && (rc = check_conflicts(c, latest, b)))
		goto fail;
	if ((rc = latest_schema_id(c, &schema_id)))
		goto fail;
	if (latest && latest->has_next_row_id)
		next_row_id = latest->next_row_id;

	/* --- delta entries */
	c->stats.files_deleted = 0;
	if (c->overwrite && latest) {
		pm_manifest_filter f;
		f.keep_manifest = keep_any_manifest;
		f.keep_entry = keep_filtered_entry;
		f.ctx = ow;
		ow->rc = 0;
		if ((rc = pm_manifest_read_all(c->io, c->table_path, latest->base_manifest_list,
					       latest->delta_manifest_list, ow->all ? NULL : &f, &live)))
			goto fail;
		if ((rc = ow->rc))
			goto fail;
		for (i = 0; i < live.len; i++) {
			if (live.items[i].kind != PM_FILE_KIND_ADD)
				continue;
			if ((rc = pm_manifest_entry_list_append_copy(&delta_entries, &live.items[i])))
				goto fail;
			delta_entries.items[delta_entries.len - 1].kind = PM_FILE_KIND_DELETE;
			deleted += live.items[i].file.row_count;
			c->stats.files_deleted++;
		}
		/* ... and every index file of those partitions (Java OverwriteChangesProvider) */
		if (latest->index_manifest) {
			if ((rc = pm_index_manifest_read(c->io, c->table_path, latest->index_manifest, &prev_index)))
				goto fail;
			for (i = 0; i < prev_index.len; i++) {
				int m = 1;
				if (!ow->all && (m = part_filter_match(ow, prev_index.items[i].partition.p,
								       prev_index.items[i].partition.n)) < 0) {
					rc = m;
					goto fail;
				}
				if (!m || prev_index.items[i].kind != PM_FILE_KIND_ADD)
					continue;
				if ((rc = pm_index_manifest_entry_list_append_copy(&ow_index, &prev_index.items[i])))
					goto fail;
				ow_index.items[ow_index.len - 1].kind = PM_FILE_KIND_DELETE;
			}
		}
	}
	for (i = 0; i < b->n_index; i++)
		if ((rc = pm_index_manifest_entry_list_append_copy(&ow_index, &b->index[i])))
			goto fail;
	for (i = 0; i < n; i++)
		added += adds[i].file.row_count;
	/* a compaction: its inputs as DELETE entries, before the new files
	 * (Java's compactTableFiles order) */
	for (i = 0; i < b->n_deletes; i++) {
		if ((rc = pm_manifest_entry_list_append_copy(&delta_entries, &b->deletes[i])))
			goto fail;
		delta_entries.items[delta_entries.len - 1].kind = PM_FILE_KIND_DELETE;
		deleted += b->deletes[i].file.row_count;
	}
	if (!reuse || !st->has_delta) {
		pm_manifest_entry_list fresh = {0};
		for (i = 0; i < n; i++)
			if ((rc = pm_manifest_entry_list_append_copy(&fresh, &adds[i]))) {
				pm_manifest_entry_list_dispose(&fresh);
				goto fail;
			}
		/* sequence numbers and row ids (Java RowTrackingCommitUtils), of
		 * the new files only */
		if (c->row_tracking &&
		    (rc = pm_row_tracking_assign(&fresh, c->rt_group, latest ? latest->id + 1 : 1, next_row_id,
						 &next_row_id))) {
			pm_manifest_entry_list_dispose(&fresh);
			goto fail;
		}
		for (i = 0; i < fresh.len && !rc; i++)
			rc = pm_manifest_entry_list_append_copy(&delta_entries, &fresh.items[i]);
		pm_manifest_entry_list_dispose(&fresh);
		if (rc)
			goto fail;
		if (delta_entries.len) {
			if ((rc = pm_manifest_write(c->io, c->table_path, &c->mo, &st->namer, c->pi.row_type,
						    delta_entries.items, delta_entries.len, delta)))
				goto fail;
		}
		if (reuse) {
			st->delta = delta_local;
			memset(&delta_local, 0, sizeof delta_local);
			st->has_delta = 1;
			for (i = 0; i < st->delta.len; i++)
				if ((rc = pm_strlist_push(&st->delta_names, st->delta.items[i].file_name)))
					goto fail;
		} else if ((rc = record_metas(&w, delta, 0))) {
			goto fail;
		}
	}
	if (reuse)
		delta = &st->delta;

	/* --- delta list */
	if ((rc = pm_manifest_list_write(c->io, c->table_path, &c->mo, &st->namer, delta->items, delta->len,
					 &delta_name, &delta_size)) ||
	    (rc = pm_strlist_push(&w.lists, delta_name)))
		goto fail;

	/* --- base list: previous base + delta, merged */
	if (latest) {
		if ((rc = pm_manifest_list_read(c->io, c->table_path, latest->base_manifest_list, &before)) ||
		    (rc = pm_manifest_list_read(c->io, c->table_path, latest->delta_manifest_list, &before)))
			goto fail;
	}
	if ((rc = minor_merge(c, &st->namer, &before, &after, &w)))
		goto fail;
	if ((rc = pm_manifest_list_write(c->io, c->table_path, &c->mo, &st->namer, after.items, after.len, &base_name,
					 &base_size)) ||
	    (rc = pm_strlist_push(&w.lists, base_name)))
		goto fail;

	/* --- index manifest: the latest one combined with the changes */
	if (ow_index.len) {
		if (!prev_index.len && latest && latest->index_manifest &&
		    (rc = pm_index_manifest_read(c->io, c->table_path, latest->index_manifest, &prev_index)))
			goto fail;
		if ((rc = combine_index(c, &prev_index, ow_index.items, ow_index.len, &new_index)) ||
		    (rc = pm_index_manifest_write(c->io, c->table_path, &c->mo, &st->namer, new_index.items,
						  new_index.len, &index_name)) ||
		    (rc = pm_strlist_push(&w.manifests, index_name)))
			goto fail;
	}

	/* --- snapshot */
	if ((rc = pm_uuid_v4(uuid)))
		goto fail;
	snap.version = PM_SNAPSHOT_VERSION;
	snap.uuid = uuid;
	snap.id = latest ? latest->id + 1 : 1;
	snap.schema_id = schema_id;
	snap.base_manifest_list = base_name;
	snap.has_base_manifest_list_size = 1;
	snap.base_manifest_list_size = base_size;
	snap.delta_manifest_list = delta_name;
	snap.has_delta_manifest_list_size = 1;
	snap.delta_manifest_list_size = delta_size;
	snap.index_manifest = index_name ? index_name : latest ? latest->index_manifest : NULL;
	snap.commit_user = c->user;
	snap.writer_version = "paimonc-" PAIMONC_VERSION;
	snap.commit_identifier = identifier;
	snap.commit_kind = (char *)kind;
	snap.time_millis = pm_now_millis();
	snap.delta_record_count = added - deleted;
	snap.total_record_count = (latest ? latest->total_record_count : 0) + added - deleted;
	if (latest && latest->has_watermark) {
		snap.has_watermark = 1;
		snap.watermark = latest->watermark;
	}
	if (latest && latest->statistics && latest->schema_id == schema_id)
		snap.statistics = latest->statistics;
	snap.has_next_row_id = 1;
	snap.next_row_id = next_row_id;

	c->stats.attempts++;
	rc = pm_snapshot_commit(c->io, c->table_path, &snap);
	if (rc == 0) {
		*outcome = A_DONE;
		*new_id = snap.id;
		goto done;
	}
	if (rc != PAIMON_EEXISTS) {
		/* unknown whether the snapshot landed: keep the files; the error
		 * is reported if no retry succeeds */
		*outcome = A_UNCERTAIN;
		pm_err_save(&st->uncertain_err);
		pm_strlist_dispose(&w.manifests);
		pm_strlist_dispose(&w.lists);
		rc = 0;
		goto done;
	}
	rc = 0; /* lost the race */
fail:
	written_remove(c, &w.manifests);
	written_remove(c, &w.lists);
done:
	pm_strlist_dispose(&w.manifests);
	pm_strlist_dispose(&w.lists);
	pm_free(base_name);
	pm_free(delta_name);
	pm_free(index_name);
	pm_index_manifest_entry_list_dispose(&prev_index);
	pm_index_manifest_entry_list_dispose(&new_index);
	pm_index_manifest_entry_list_dispose(&ow_index);
	pm_manifest_entry_list_dispose(&delta_entries);
	pm_manifest_entry_list_dispose(&live);
	pm_manifest_file_meta_list_dispose(&before);
	pm_manifest_file_meta_list_dispose(&after);
	pm_manifest_file_meta_list_dispose(&delta_local);
	return rc;
}

static int load_latest(pm_table_committer *c, pm_snapshot **out)
{
	int64_t id;
	int found = 0, rc;
	*out = NULL;
	if ((rc = pm_snapshot_latest_id(c->io, c->table_path, &id, &found)) || !found)
		return rc;
	return pm_snapshot_load(c->io, c->table_path, id, out);
}

/* Looks for (user, identifier, kind) in snapshots (from, to]. */
static int find_committed(pm_table_committer *c, int64_t from, int64_t to, int64_t identifier, const char *kind,
			  int64_t *found_id)
{
	int64_t id;
	*found_id = -1;
	for (id = from + 1; id <= to; id++) {
		pm_snapshot *s = NULL;
		int rc = pm_snapshot_load(c->io, c->table_path, id, &s);
		if (rc == PAIMON_ENOTFOUND) {
			paimon_error_clear();
			continue; /* expired */
		}
		if (rc)
			return rc;
		if (s->commit_user && !strcmp(s->commit_user, c->user) && s->commit_identifier == identifier &&
		    s->commit_kind && !strcmp(s->commit_kind, kind)) {
			*found_id = id;
			pm_snapshot_free(s);
			return 0;
		}
		pm_snapshot_free(s);
	}
	return 0;
}

/* Java filterCommitted: latest snapshot of this user, scanning back. */
static int already_committed(pm_table_committer *c, const pm_snapshot *latest, int64_t identifier, int *done,
			     int64_t *snap_id)
{
	int64_t id, earliest = 1;
	int found = 0, rc;
	*done = 0;
	if (!latest)
		return 0;
	if ((rc = pm_snapshot_earliest_id(c->io, c->table_path, &earliest, &found)))
		return rc;
	if (!found)
		earliest = 1;
	for (id = latest->id; id >= earliest; id--) {
		pm_snapshot *s = NULL;
		rc = id == latest->id ? pm_snapshot_copy(latest, &s) : pm_snapshot_load(c->io, c->table_path, id, &s);
		if (rc == PAIMON_ENOTFOUND) {
			paimon_error_clear();
			break;
		}
		if (rc)
			return rc;
		if (s->commit_user && !strcmp(s->commit_user, c->user)) {
			if (s->commit_identifier >= identifier) {
				*done = 1;
				*snap_id = s->commit_identifier == identifier ? s->id : -1;
			}
			pm_snapshot_free(s);
			return 0;
		}
		pm_snapshot_free(s);
	}
	return 0;
}

static void sleep_ms(int64_t ms)
{
	struct timespec ts;
	if (ms <= 0)
		return;
	ts.tv_sec = (time_t)(ms / 1000);
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* static: the filter every new file of a static overwrite must match (or NULL). */
static int check_files(pm_table_committer *c, part_filter *stat, const pm_manifest_entry *adds, size_t n)
{
	pm_buf p = PM_BUF_INIT;
	size_t i;
	int rc = 0;
	for (i = 0; i < n && !rc; i++) {
		int ex = 0;
		if (adds[i].kind != PM_FILE_KIND_ADD) {
			rc = pm_err(PAIMON_EINVAL, "commit: entry for '%s' is not a new file", adds[i].file.file_name);
			break;
		}
		if (stat && !stat->all) {
			int m = part_filter_match(stat, adds[i].partition.p, adds[i].partition.n);
			if (m < 0) {
				rc = m;
				break;
			}
			if (!m) {
				pm_buf_clear(&p);
				if ((rc = pm_partition_to_display(&c->pi, adds[i].partition.p, adds[i].partition.n, &p)))
					break;
				rc = pm_err(PAIMON_EINVAL, "commit: trying to overwrite a static partition, but data file "
					    "'%s' is in partition (%s), which does not belong to it; nothing was "
					    "committed", adds[i].file.file_name, pm_buf_cstr(&p));
				break;
			}
		}
		if ((rc = data_file_path(c, &adds[i], &p)))
			break;
		if ((rc = pm_fileio_exists(c->io, pm_buf_cstr(&p), &ex)))
			break;
		if (!ex)
			rc = pm_err(PAIMON_ENOTFOUND, "commit: data file '%s' does not exist; nothing was committed",
				    pm_buf_cstr(&p));
	}
	pm_buf_dispose(&p);
	return rc;
}

/* Index changes: valid kinds, ADDed files exist. */
static int check_index_files(pm_table_committer *c, const pm_commit_batch *b)
{
	pm_buf p = PM_BUF_INIT;
	size_t i;
	int rc = 0;
	for (i = 0; i < b->n_index && !rc; i++) {
		const pm_index_manifest_entry *e = &b->index[i];
		int ex = 0;
		if ((e->kind != PM_FILE_KIND_ADD && e->kind != PM_FILE_KIND_DELETE) || !e->file_name || !e->index_type ||
		    e->partition.n < 4) {
			rc = pm_err(PAIMON_EINVAL, "commit: index change %zu is not an ADD or DELETE of a named index file "
				    "with a type and a partition", i);
			break;
		}
		if (e->kind != PM_FILE_KIND_ADD)
			continue;
		if ((rc = index_file_path(c, e, &p)) || (rc = pm_fileio_exists(c->io, pm_buf_cstr(&p), &ex)))
			break;
		if (!ex)
			rc = pm_err(PAIMON_ENOTFOUND, "commit: index file '%s' does not exist; nothing was committed",
				    pm_buf_cstr(&p));
	}
	pm_buf_dispose(&p);
	return rc;
}

int pm_table_committer_commit(pm_table_committer *c, const pm_manifest_entry *adds, size_t n,
			      int64_t identifier, int64_t *snapshot_id)
{
	pm_commit_batch b;
	memset(&b, 0, sizeof b);
	b.adds = adds;
	b.n_adds = n;
	b.check_from_snapshot = -1;
	return pm_table_committer_commit_batch(c, &b, identifier, snapshot_id);
}

int pm_table_committer_commit_batch(pm_table_committer *c, const pm_commit_batch *b, int64_t identifier,
				    int64_t *snapshot_id)
{
	attempt_state st;
	pm_snapshot *latest = NULL;
	int64_t start = pm_monotonic_millis(), prev_latest = 0, id = -1;
	const pm_manifest_entry *adds = b->adds;
	size_t n = b->n_adds, i;
	const char *kind = b->compact ? "COMPACT" : c->overwrite ? "OVERWRITE" : "APPEND";
	part_filter ow, *static_check = NULL;
	int retry = 0, rc = 0, outcome, detect = c->overwrite || b->check_from_snapshot >= 0 || b->compact;

	memset(&st, 0, sizeof st);
	memset(&ow, 0, sizeof ow);
	memset(&c->stats, 0, sizeof c->stats);
	if (snapshot_id)
		*snapshot_id = -1;
	if (b->check_from_snapshot < -1)
		return pm_err(PAIMON_EINVAL, "commit: bad base snapshot %lld", (long long)b->check_from_snapshot);
	if (b->n_deletes && !b->compact)
		return pm_err(PAIMON_EINVAL, "commit: file deletions outside a compaction");
	if (b->compact && c->overwrite)
		return pm_err(PAIMON_EINVAL, "commit: a compaction cannot be an overwrite");
	if (n == 0 && b->n_index == 0 && b->n_deletes == 0 && !c->overwrite)
		return 0;
	/* Java FileStoreCommitImpl.commit: a change of deletion vectors makes the
	 * commit an OVERWRITE (with conflict checks); global index additions are
	 * checked too */
	for (i = 0; i < b->n_index; i++) {
		if (b->index[i].index_type && !strcmp(b->index[i].index_type, DV_INDEX)) {
			if (!b->compact)
				kind = "OVERWRITE";
			detect = 1;
		}
		if (b->index[i].kind == PM_FILE_KIND_ADD && b->index[i].has_global_index)
			detect = 1;
	}
	if ((rc = check_index_files(c, b)))
		goto out;
	if (c->overwrite) {
		/* Java FileStoreCommitImpl.overwritePartition: on a partitioned table
		 * in dynamic mode the static spec is ignored and exactly the
		 * partitions of the new files are replaced (no new files: nothing
		 * happens); otherwise the static spec (possibly partial; none = the
		 * whole table) is replaced and every new file must lie inside it. */
		if (c->n_drop) {
			/* dropPartitions: exactly these partitions */
			if ((rc = part_filter_init(&ow, &c->pi, c->n_drop)))
				goto out;
			for (i = 0; i < c->n_drop && !rc; i++)
				rc = part_filter_add(&ow, c->drop[i].p, c->drop[i].n);
			if (rc)
				goto out;
			static_check = &ow;
		} else if (!c->truncate && c->pi.n > 0 && c->dynamic_overwrite) {
			if (n == 0 && b->n_index == 0) {
				c->stats.overwrite_skipped = 1;
				goto out;
			}
			if ((rc = part_filter_init(&ow, &c->pi, n)))
				goto out;
			for (i = 0; i < n; i++)
				if ((rc = part_filter_add(&ow, adds[i].partition.p, adds[i].partition.n))) {
					rc = pm_err_wrap("overwrite: partition of data file '%s'",
							 adds[i].file.file_name ? adds[i].file.file_name : "?");
					goto out;
				}
			static_check = NULL;
		} else {
			if ((rc = build_static_filter(&c->pi, c->truncate ? NULL : &c->overwrite_spec, &ow)))
				goto out;
			static_check = &ow;
		}
	}
	if ((rc = check_files(c, static_check, adds, n)))
		goto out;
	/* The new data files reach stable storage before any snapshot can
	 * reference them (one sync for all of them). */
	if ((n > 0 || b->n_index > 0) && c->sync_data && (rc = pm_fileio_sync(c->io, c->table_path))) {
		rc = pm_err_wrap("commit to '%s'", c->table_path);
		goto out;
	}
	if ((rc = pm_manifest_namer_init(&st.namer)))
		goto out;
	if ((rc = load_latest(c, &latest)))
		goto out;
	if (c->user_explicit && identifier != PM_COMMIT_BATCH_IDENTIFIER) {
		int done = 0;
		if ((rc = already_committed(c, latest, identifier, &done, &id)))
			goto out;
		if (done) {
			c->stats.deduplicated = 1;
			goto out;
		}
		id = -1;
	}
	for (;;) {
		prev_latest = latest ? latest->id : 0;
		if ((rc = one_attempt(c, &st, c->overwrite ? &ow : NULL, b, kind, detect, identifier, latest, &outcome,
				      &id)))
			goto out;
		if (outcome == A_DONE)
			break;
		if (outcome == A_UNCERTAIN)
			st.uncertain = 1;
		id = -1;
		if (retry >= c->max_retries ||
		    (c->timeout_ms >= 0 && pm_monotonic_millis() - start > c->timeout_ms)) {
			if (outcome == A_UNCERTAIN) {
				/* the last attempt failed on I/O, not on a race: report that */
				pm_err_restore(&st.uncertain_err);
				rc = pm_err_wrap("commit to '%s' failed after %d attempt(s)", c->table_path, retry + 1);
			} else {
				rc = pm_err(PAIMON_ECONFLICT,
					    "commit to '%s' failed after %d attempt(s): concurrent commits kept "
					    "winning (commit.max-retries = %d)",
					    c->table_path, retry + 1, c->max_retries);
			}
			break;
		}
		{
			int64_t wait = c->min_wait_ms;
			int k;
			for (k = 0; k < retry && wait < c->max_wait_ms; k++)
				wait *= 2;
			if (wait > c->max_wait_ms)
				wait = c->max_wait_ms;
			wait += (int64_t)(pm_random_u64() % (uint64_t)(wait / 5 + 1));
			sleep_ms(wait);
		}
		retry++;
		pm_snapshot_free(latest);
		latest = NULL;
		if ((rc = load_latest(c, &latest)))
			goto out;
		/* dedup: did one of our earlier attempts land after all? */
		if (latest) {
			int64_t found;
			if ((rc = find_committed(c, prev_latest, latest->id, identifier, kind, &found)))
				goto out;
			if (found > 0) {
				id = found;
				c->stats.deduplicated = 1;
				break;
			}
		}
	}
out:
	/* delta manifests of a commit that did not happen */
	if (id < 0 && st.has_delta && !st.uncertain)
		written_remove(c, &st.delta_names);
	pm_strlist_dispose(&st.delta_names);
	pm_manifest_file_meta_list_dispose(&st.delta);
	pm_snapshot_free(latest);
	part_filter_dispose(&ow);
	if (!rc || rc == PAIMON_ECONFLICT)
		clear_overwrite(c);
	if (!rc && snapshot_id)
		*snapshot_id = id;
	return rc;
}

void pm_table_committer_free(pm_table_committer *c)
{
	if (!c)
		return;
	if (c->has_pi)
		pm_partition_info_dispose(&c->pi);
	pm_strmap_dispose(&c->overwrite_spec);
	pm_schema_free(c->schema);
	pm_free(c->table_path);
	pm_free(c->user);
	pm_free(c);
}
