/*
 * commit/commit.c - commit protocol (see commit.h; spec core-format §6).
 */
#include "commit/commit.h"

#include <errno.h>
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

int pm_commit_message_encode(const pm_manifest_entry *entries, size_t n, pm_buf *out)
{
	uint8_t v[4] = {PM_COMMIT_MESSAGE_VERSION, 0, 0, 0};
	int rc;
	if ((rc = pm_buf_append(out, msg_magic, 4)) || (rc = pm_buf_append(out, v, 4)))
		return rc;
	return pm_manifest_entries_encode(entries, n, out);
}

int pm_commit_message_decode(const void *data, size_t len, pm_manifest_entry_list *out)
{
	const uint8_t *p = data;
	uint32_t ver;
	size_t i;
	if (!p || len < 8 || memcmp(p, msg_magic, 4))
		return pm_err(PAIMON_ECORRUPT, "commit message: bad magic (not a paimonc commit message)");
	ver = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
	if (ver != PM_COMMIT_MESSAGE_VERSION)
		return pm_err(PAIMON_ECORRUPT, "commit message: unsupported version %u", (unsigned)ver);
	{
		size_t before = out->len;
		int rc = pm_manifest_entries_decode("commit message", p + 8, len - 8, out);
		if (rc)
			return rc;
		for (i = before; i < out->len; i++)
			if (out->items[i].kind != PM_FILE_KIND_ADD || !out->items[i].file.file_name)
				return pm_err(PAIMON_ECORRUPT, "commit message: entry %zu is not a new data file",
					      i - before);
	}
	return 0;
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
	const char *path_dir;      /* borrowed from schema options */

	int dynamic_overwrite;     /* option dynamic-partition-overwrite (default true) */
	int sync_data;             /* option commit.sync-data-files (paimonc; default true) */
	int overwrite;             /* the next commit is an OVERWRITE */
	int truncate;              /* ... of the whole table, whatever the mode */
	pm_strmap overwrite_spec;  /* static partition spec (possibly partial; empty = none) */

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

/* Durations: plain millis, or with a unit (ms, s, min). */
static int opt_duration(const pm_strmap *m, const char *key, int64_t *v)
{
	const char *s = pm_strmap_get(m, key);
	char *end;
	long long x;
	if (!s)
		return 0;
	errno = 0;
	x = strtoll(s, &end, 10);
	if (end == s || x < 0 || errno)
		goto bad;
	while (*end == ' ')
		end++;
	if (!*end || !strcmp(end, "ms"))
		*v = x;
	else if (!strcmp(end, "s"))
		*v = x * 1000;
	else if (!strcmp(end, "min"))
		*v = x * 60000;
	else
		goto bad;
	return 0;
bad:
	return pm_err(PAIMON_EINVAL, "option '%s': invalid duration '%s'", key, s);
}

int pm_table_committer_new(pm_fileio *io, const char *table_path, const pm_table_schema *s,
			   const pm_strmap *opts, pm_table_committer **out)
{
	pm_table_committer *c;
	size_t i;
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
	if ((rc = pm_schema_copy(s, &c->schema)))
		goto fail;
	if (opts)
		for (i = 0; i < opts->len; i++)
			if ((rc = pm_strmap_set(&c->schema->options, opts->keys[i], opts->vals[i])))
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
	    (rc = opt_bool(&c->schema->options, "commit.sync-data-files", 1, &c->sync_data)))
		goto fail;
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
static int one_attempt(pm_table_committer *c, attempt_state *st, part_filter *ow, const pm_manifest_entry *adds,
		       size_t n, int64_t identifier, const pm_snapshot *latest, int *outcome, int64_t *new_id)
{
	const char *kind = c->overwrite ? "OVERWRITE" : "APPEND";
	pm_manifest_entry_list delta_entries = {0}, live = {0};
	pm_manifest_file_meta_list before = {0}, after = {0}, delta_local = {0};
	pm_manifest_file_meta_list *delta = &delta_local;
	written w = {{0}, {0}};
	pm_snapshot snap;
	char *base_name = NULL, *delta_name = NULL;
	int64_t base_size = 0, delta_size = 0, added = 0, deleted = 0, next_row_id = 0, schema_id;
	char uuid[PM_UUID_STR_LEN + 1];
	size_t i;
	int rc, reuse = !c->overwrite && !c->row_tracking;

	*outcome = A_LOST;
	memset(&snap, 0, sizeof snap);
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
	}
	for (i = 0; i < n; i++)
		added += adds[i].file.row_count;
	if (!reuse || !st->has_delta) {
		for (i = 0; i < n; i++) {
			pm_manifest_entry *e;
			if ((rc = pm_manifest_entry_list_append_copy(&delta_entries, &adds[i])))
				goto fail;
			e = &delta_entries.items[delta_entries.len - 1];
			if (c->row_tracking && !e->file.has_first_row_id) {
				e->file.has_first_row_id = 1;
				e->file.first_row_id = next_row_id;
				next_row_id += e->file.row_count;
			}
		}
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
	snap.index_manifest = latest ? latest->index_manifest : NULL;
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

int pm_table_committer_commit(pm_table_committer *c, const pm_manifest_entry *adds, size_t n,
			      int64_t identifier, int64_t *snapshot_id)
{
	attempt_state st;
	pm_snapshot *latest = NULL;
	int64_t start = pm_monotonic_millis(), prev_latest = 0, id = -1;
	const char *kind = c->overwrite ? "OVERWRITE" : "APPEND";
	part_filter ow, *static_check = NULL;
	int retry = 0, rc = 0, outcome;

	memset(&st, 0, sizeof st);
	memset(&ow, 0, sizeof ow);
	memset(&c->stats, 0, sizeof c->stats);
	if (snapshot_id)
		*snapshot_id = -1;
	if (n == 0 && !c->overwrite)
		return 0;
	if (c->overwrite) {
		/* Java FileStoreCommitImpl.overwritePartition: on a partitioned table
		 * in dynamic mode the static spec is ignored and exactly the
		 * partitions of the new files are replaced (no new files: nothing
		 * happens); otherwise the static spec (possibly partial; none = the
		 * whole table) is replaced and every new file must lie inside it. */
		if (!c->truncate && c->pi.n > 0 && c->dynamic_overwrite) {
			size_t i;
			if (n == 0) {
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
	if (n > 0 && c->sync_data && (rc = pm_fileio_sync(c->io, c->table_path))) {
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
		if ((rc = one_attempt(c, &st, c->overwrite ? &ow : NULL, adds, n, identifier, latest, &outcome, &id)))
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
