/*
 * maint/expire.c - snapshot expiration (see expire.h) and consumer files.
 *
 * Follows Java Paimon 1.4.2's ExpireSnapshotsImpl.expire/innerExpireUntil
 * step by step, with the same tolerance rules: a manifest list that cannot
 * be read counts as empty, a manifest that cannot be read cancels the data
 * deletion of that snapshot, a tag whose files cannot be read cancels the
 * data deletion of the snapshots it guards, a skipping set that cannot be
 * built cancels all manifest deletion. Files are never deleted on
 * uncertainty; what is left behind is an orphan (remove-orphan-files).
 */
#include "maint/expire.h"

#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "meta/manifest.h"
#include "meta/snapshot.h"
#include "read/read.h"
#include "serde/json/jsonr.h"
#include "table/partition.h"

/* ------------------------------------------------------------- config */

static int cfg_int(const pm_strmap *m, const char *key, int32_t lo, int32_t *v)
{
	const char *s = m ? pm_strmap_get(m, key) : NULL;
	long long x;
	if (!s)
		return 0;
	if (pm_parse_i64(s, &x) || x < lo || x > INT32_MAX)
		return pm_err(PAIMON_EINVAL, "option '%s': invalid value '%s' (an integer >= %d)", key, s, (int)lo);
	*v = (int32_t)x;
	return 0;
}

static int cfg_dur(const pm_strmap *m, const char *key, int64_t *v, int *present)
{
	const char *s = m ? pm_strmap_get(m, key) : NULL;
	if (present)
		*present = s != NULL;
	return s ? pm_parse_duration_ms(key, s, v) : 0;
}

static int cfg_bool(const pm_strmap *m, const char *key, int *v)
{
	const char *s = m ? pm_strmap_get(m, key) : NULL;
	if (s && pm_parse_bool(s, v))
		return pm_err(PAIMON_EINVAL, "option '%s': invalid value '%s' (true or false)", key, s);
	return 0;
}

int pm_expire_config_from_options(const pm_strmap *opts, pm_expire_config *out)
{
	int32_t cl_min = -1, cl_max = -1;
	int64_t cl_time = -1;
	int has_cl_time = 0, rc;
	memset(out, 0, sizeof *out);
	out->retain_min = 10;
	out->retain_max = INT32_MAX;
	out->time_retained_ms = 3600 * 1000;
	out->max_deletes = 50;
	if ((rc = cfg_int(opts, "snapshot.num-retained.min", 1, &out->retain_min)) ||
	    (rc = cfg_int(opts, "snapshot.num-retained.max", 1, &out->retain_max)) ||
	    (rc = cfg_dur(opts, "snapshot.time-retained", &out->time_retained_ms, NULL)) ||
	    (rc = cfg_int(opts, "snapshot.expire.limit", 1, &out->max_deletes)) ||
	    (rc = cfg_bool(opts, "snapshot.clean-empty-directories", &out->clean_empty_dirs)) ||
	    (rc = cfg_bool(opts, "consumer.changelog-only", &out->consumer_changelog_only)) ||
	    (rc = cfg_int(opts, "changelog.num-retained.min", 1, &cl_min)) ||
	    (rc = cfg_int(opts, "changelog.num-retained.max", 1, &cl_max)) ||
	    (rc = cfg_dur(opts, "changelog.time-retained", &cl_time, &has_cl_time)))
		return rc;
	if (out->retain_max < out->retain_min)
		return pm_err(PAIMON_EINVAL,
			      "option 'snapshot.num-retained.max' (%d) must not be less than "
			      "'snapshot.num-retained.min' (%d)",
			      (int)out->retain_max, (int)out->retain_min);
	/* Java CoreOptions.changelogRetain*: unset = the snapshot value */
	if ((cl_min >= 0 && cl_min > out->retain_min) || (cl_max >= 0 && cl_max > out->retain_max) ||
	    (has_cl_time && cl_time > out->time_retained_ms))
		return pm_err(PAIMON_EUNSUPPORTED,
			      "options 'changelog.num-retained.*' / 'changelog.time-retained' keep changelogs longer "
			      "than snapshots (a decoupled changelog lifecycle): not supported by paimonc's "
			      "snapshot expiration");
	return 0;
}

void pm_expire_result_dispose(pm_expire_result *r)
{
	pm_strlist_dispose(&r->deleted);
	memset(r, 0, sizeof *r);
}

/* ---------------------------------------------------------- expiration */

typedef struct snap_vec {
	pm_snapshot **items;
	size_t len, cap;
} snap_vec;

static int snap_vec_push(snap_vec *v, pm_snapshot *s)
{
	if (v->len == v->cap) {
		size_t ncap = v->cap ? v->cap * 2 : 16;
		pm_snapshot **p = pm_realloc(v->items, ncap * sizeof *p);
		if (!p)
			return PAIMON_ENOMEM;
		v->items = p;
		v->cap = ncap;
	}
	v->items[v->len++] = s;
	return 0;
}

static void snap_vec_dispose(snap_vec *v)
{
	size_t i;
	for (i = 0; i < v->len; i++)
		pm_snapshot_free(v->items[i]);
	pm_free(v->items);
	memset(v, 0, sizeof *v);
}

typedef struct xp {
	pm_fileio *io;
	const char *table;              /* data root */
	const char *meta;               /* snapshot/tag/consumer root */
	const pm_table_schema *schema;
	const pm_expire_config *cfg;
	pm_partition_info pi;
	int dry_run;
	pm_expire_result *out;
	pm_strset done;                 /* paths already deleted (reported) */
	pm_strset dirs;                 /* bucket directories touched (clean-empty-directories) */
	/* data-file skipper cache: the live files of one tag */
	int64_t cached_tag;             /* 0: none */
	pm_strset tag_files;            /* "<partition hex>/<bucket>/<name>" */
	/* branches (main only): what their snapshots and tags use is kept */
	pm_strset branch_files;         /* keys as tag_files */
	snap_vec branch_snaps;
	pm_buf path, alt, key;
} xp;

static void xp_dispose(xp *x)
{
	pm_strset_dispose(&x->done);
	pm_strset_dispose(&x->dirs);
	pm_strset_dispose(&x->tag_files);
	pm_strset_dispose(&x->branch_files);
	snap_vec_dispose(&x->branch_snaps);
	pm_buf_dispose(&x->path);
	pm_buf_dispose(&x->alt);
	pm_buf_dispose(&x->key);
	pm_partition_info_dispose(&x->pi);
}

static int64_t snap_id(const pm_snapshot *s)
{
	return s->id;
}

/* Deletes (or, in a dry run, reports) path; a missing file is skipped
 * (deleted by an earlier, interrupted run or by another process). */
static int xp_delete(xp *x, const char *path)
{
	pm_file_status st;
	int rc, added;
	if (pm_strset_has(&x->done, path))
		return 0;
	memset(&st, 0, sizeof st);
	rc = pm_fileio_stat(x->io, path, &st);
	if (rc == PAIMON_ENOTFOUND) {
		paimon_error_clear();
		return 0;
	}
	if (rc)
		return rc;
	if (st.is_dir)
		return 0;
	if ((rc = pm_strset_add(&x->done, path, &added)))
		return rc;
	if (!x->dry_run && (rc = pm_fileio_remove(x->io, path)))
		return rc;
	x->out->bytes += st.size;
	return pm_strlist_push(&x->out->deleted, path);
}

static int xp_delete_in(xp *x, const char *dir, const char *name)
{
	int rc;
	pm_buf_clear(&x->path);
	if ((rc = pm_buf_printf(&x->path, "%s/%s/%s", x->table, dir, name)))
		return rc;
	return xp_delete(x, pm_buf_cstr(&x->path));
}

/* The data file's path into x->path, with pypaimon's partition directory
 * when only that one holds the file (as reads do). */
static int xp_data_path(xp *x, const pm_manifest_entry *e)
{
	int rc = pm_read_data_file_path(x->table, &x->schema->options, &x->pi, e, 0, &x->path);
	if (!rc && x->pi.n && !e->file.external_path) {
		rc = pm_read_data_file_path(x->table, &x->schema->options, &x->pi, e, 1, &x->alt);
		if (!rc && strcmp(pm_buf_cstr(&x->alt), pm_buf_cstr(&x->path)) != 0) {
			int ej = 0, ep = 0;
			rc = pm_fileio_exists(x->io, pm_buf_cstr(&x->path), &ej);
			if (!rc && !ej)
				rc = pm_fileio_exists(x->io, pm_buf_cstr(&x->alt), &ep);
			if (!rc && !ej && ep) {
				pm_buf tmp = x->path;
				x->path = x->alt;
				x->alt = tmp;
			}
		}
	}
	return rc;
}

static int xp_entry_key(xp *x, const pm_manifest_entry *e)
{
	size_t i;
	int rc = 0;
	pm_buf_clear(&x->key);
	for (i = 0; i < e->partition.n && !rc; i++)
		rc = pm_buf_printf(&x->key, "%02x", e->partition.p[i]);
	if (!rc)
		rc = pm_buf_printf(&x->key, "/%d/%s", (int)e->bucket, e->file.file_name);
	return rc;
}

/* Deletes the file of entry e and its extra files (which live next to it). */
static int xp_delete_data_file(xp *x, const pm_manifest_entry *e, int with_extra)
{
	size_t j, dirlen;
	char *dir;
	int rc;
	if ((rc = xp_data_path(x, e)))
		return rc;
	{
		const char *p = pm_buf_cstr(&x->path), *slash = strrchr(p, '/');
		dirlen = slash ? (size_t)(slash - p) : 0;
		if (!(dir = pm_malloc(dirlen + 1)))
			return PAIMON_ENOMEM;
		memcpy(dir, p, dirlen);
		dir[dirlen] = '\0';
	}
	if (x->cfg->clean_empty_dirs && !e->file.external_path && (rc = pm_strset_add(&x->dirs, dir, NULL)))
		goto out;
	if ((rc = xp_delete(x, pm_buf_cstr(&x->path))))
		goto out;
	for (j = 0; with_extra && j < e->file.extra_files.len && !rc; j++) {
		pm_buf_clear(&x->path);
		if (!(rc = pm_buf_printf(&x->path, "%s/%s", dir, e->file.extra_files.items[j])))
			rc = xp_delete(x, pm_buf_cstr(&x->path));
	}
out:
	pm_free(dir);
	return rc;
}

/* Java tryReadManifestList: an unreadable list counts as empty. */
static void xp_try_read_list(xp *x, const char *name, pm_manifest_file_meta_list *l)
{
	memset(l, 0, sizeof *l);
	if (name && *name && pm_manifest_list_read(x->io, x->table, name, l)) {
		pm_manifest_file_meta_list_dispose(l);
		paimon_error_clear();
	}
}

/* Loads the live files of the newest tag older than snapshot id into the
 * cache; *have = 0 when there is no such tag; a read failure -> nonzero rc
 * (the caller skips the snapshot, as Java). */
static int xp_tag_skipper(xp *x, const snap_vec *tags, int64_t id, int *have)
{
	pm_manifest_entry_list live = {0};
	const pm_snapshot *tag = NULL;
	size_t i;
	int rc = 0;
	*have = 0;
	for (i = tags->len; i > 0; i--)
		if (snap_id(tags->items[i - 1]) < id) {
			tag = tags->items[i - 1];
			break;
		}
	if (!tag)
		return 0;
	*have = 1;
	if (x->cached_tag == tag->id)
		return 0;
	x->cached_tag = 0;
	pm_strset_dispose(&x->tag_files);
	pm_strset_dispose(&x->branch_files);
	snap_vec_dispose(&x->branch_snaps);
	if ((rc = pm_manifest_read_all(x->io, x->table, tag->base_manifest_list, tag->delta_manifest_list, NULL, &live)))
		goto out;
	for (i = 0; i < live.len && !rc; i++)
		if (live.items[i].kind == PM_FILE_KIND_ADD && !(rc = xp_entry_key(x, &live.items[i])))
			rc = pm_strset_add(&x->tag_files, pm_buf_cstr(&x->key), NULL);
	if (!rc)
		x->cached_tag = tag->id;
out:
	pm_manifest_entry_list_dispose(&live);
	return rc;
}

/* Step 1 for one snapshot: the files its delta deleted (Java
 * cleanUnusedDataFiles(deltaManifestList, skipper)). */
static int xp_clean_data_files(xp *x, const pm_snapshot *s, int have_skipper)
{
	pm_manifest_file_meta_list ml;
	pm_manifest_entry_list all = {0};
	pm_strset readded = {0};
	size_t i, k;
	int rc = 0;
	xp_try_read_list(x, s->delta_manifest_list, &ml);
	for (i = 0; i < ml.len; i++) {
		if (pm_manifest_read(x->io, x->table, ml.items[i].file_name, &all)) {
			/* cancel the deletion of this snapshot's files */
			paimon_error_clear();
			goto out;
		}
	}
	/* the last entry of a path wins: ADD after DELETE keeps the file, DELETE
	 * after ADD deletes it (Java getDataFileToDelete's map) */
	for (k = all.len; k > 0 && !rc; k--) {
		const pm_manifest_entry *e = &all.items[k - 1];
		int added = 0;
		if ((rc = xp_entry_key(x, e)) || (rc = pm_strset_add(&readded, pm_buf_cstr(&x->key), &added)))
			break;
		if (!added || e->kind != PM_FILE_KIND_DELETE)
			continue;
		if (have_skipper && pm_strset_has(&x->tag_files, pm_buf_cstr(&x->key)))
			continue;
		if (pm_strset_has(&x->branch_files, pm_buf_cstr(&x->key)))
			continue;
		rc = xp_delete_data_file(x, e, 1);
	}
out:
	pm_strset_dispose(&readded);
	pm_manifest_entry_list_dispose(&all);
	pm_manifest_file_meta_list_dispose(&ml);
	return rc;
}

/* Step 2: files ADDed by a changelog manifest list (no extra files, as Java). */
static int xp_clean_changelog(xp *x, const pm_snapshot *s)
{
	pm_manifest_file_meta_list ml;
	size_t i, k;
	int rc = 0;
	xp_try_read_list(x, s->changelog_manifest_list, &ml);
	for (i = 0; i < ml.len && !rc; i++) {
		pm_manifest_entry_list l = {0};
		if (pm_manifest_read(x->io, x->table, ml.items[i].file_name, &l)) {
			paimon_error_clear(); /* Java ignores unreadable changelog manifests */
			pm_manifest_entry_list_dispose(&l);
			continue;
		}
		for (k = 0; k < l.len && !rc; k++)
			if (l.items[k].kind == PM_FILE_KIND_ADD)
				rc = xp_delete_data_file(x, &l.items[k], 0);
		pm_manifest_entry_list_dispose(&l);
	}
	pm_manifest_file_meta_list_dispose(&ml);
	return rc;
}

/* Step 3: bucket directories, then partition directories, deepest first,
 * each removed only when empty. */
static int xp_clean_empty_dirs(xp *x)
{
	pm_strlist dirs = {0};
	const char *sub = pm_strmap_get(&x->schema->options, "data-file.path-directory");
	char *root = sub && *sub ? pm_path_join(x->table, sub) : pm_strdup(x->table);
	size_t i, tlen;
	int rc = 0;
	if (!root)
		return PAIMON_ENOMEM;
	tlen = strlen(root);
	for (i = 0; i < x->dirs.cap && !rc; i++)
		if (x->dirs.slots[i])
			rc = pm_strlist_push(&dirs, x->dirs.slots[i]);
	/* walk each directory up to (not including) the table root */
	for (i = 0; i < dirs.len && !rc; i++) {
		char *d = dirs.items[i], *slash;
		while (strlen(d) > tlen + 1 && !strncmp(d, root, tlen) && d[tlen] == '/') {
			pm_file_list l = {0};
			int r = pm_fileio_list(x->io, d, &l);
			size_t n = l.len;
			pm_file_list_dispose(&l);
			if (r) {
				paimon_error_clear();
				break;
			}
			if (n)
				break;
			if (!x->dry_run && pm_fileio_remove(x->io, d)) {
				paimon_error_clear();
				break;
			}
			if (!(slash = strrchr(d, '/')))
				break;
			*slash = '\0';
		}
	}
	pm_strlist_dispose(&dirs);
	pm_free(root);
	return rc;
}

/* Step 4: the skipping set (Java manifestSkippingSet). */
static int xp_skipping_set(xp *x, pm_snapshot *const *snaps, size_t n, pm_strset *skip)
{
	size_t i, k;
	int rc = 0;
	for (i = 0; i < n && !rc; i++) {
		const pm_snapshot *s = snaps[i];
		pm_manifest_file_meta_list ml = {0};
		if (s->base_manifest_list && (rc = pm_strset_add(skip, s->base_manifest_list, NULL)))
			break;
		if (s->delta_manifest_list && (rc = pm_strset_add(skip, s->delta_manifest_list, NULL)))
			break;
		if (s->base_manifest_list && (rc = pm_manifest_list_read(x->io, x->table, s->base_manifest_list, &ml)))
			break;
		if (s->delta_manifest_list && (rc = pm_manifest_list_read(x->io, x->table, s->delta_manifest_list, &ml))) {
			pm_manifest_file_meta_list_dispose(&ml);
			break;
		}
		for (k = 0; k < ml.len && !rc; k++)
			rc = pm_strset_add(skip, ml.items[k].file_name, NULL);
		pm_manifest_file_meta_list_dispose(&ml);
		if (!rc && s->index_manifest) {
			pm_index_manifest_entry_list il = {0};
			if (!(rc = pm_strset_add(skip, s->index_manifest, NULL)) &&
			    !(rc = pm_index_manifest_read(x->io, x->table, s->index_manifest, &il)))
				for (k = 0; k < il.len && !rc; k++)
					rc = pm_strset_add(skip, il.items[k].file_name, NULL);
			pm_index_manifest_entry_list_dispose(&il);
		}
		if (!rc && s->statistics)
			rc = pm_strset_add(skip, s->statistics, NULL);
	}
	return rc;
}

/* Java cleanUnusedManifestList. */
static int xp_clean_manifest_list(xp *x, const char *name, pm_strset *skip)
{
	pm_manifest_file_meta_list ml;
	size_t i;
	int rc = 0;
	if (!name || !*name)
		return 0;
	xp_try_read_list(x, name, &ml);
	for (i = 0; i < ml.len && !rc; i++) {
		const char *m = ml.items[i].file_name;
		if (pm_strset_has(skip, m))
			continue;
		if (!(rc = xp_delete_in(x, "manifest", m)))
			rc = pm_strset_add(skip, m, NULL);
	}
	pm_manifest_file_meta_list_dispose(&ml);
	if (!rc && !pm_strset_has(skip, name))
		rc = xp_delete_in(x, "manifest", name);
	return rc;
}

/* Java cleanUnusedIndexManifests + cleanUnusedStatisticsManifests. */
static int xp_clean_index_and_stats(xp *x, const pm_snapshot *s, pm_strset *skip)
{
	int rc = 0;
	if (s->index_manifest) {
		pm_index_manifest_entry_list il = {0};
		size_t k;
		rc = pm_index_manifest_read(x->io, x->table, s->index_manifest, &il);
		if (rc == PAIMON_ENOTFOUND) {
			paimon_error_clear();
			rc = 0;
		} else if (!rc) {
			for (k = 0; k < il.len && !rc; k++) {
				const pm_index_manifest_entry *e = &il.items[k];
				if (pm_strset_has(skip, e->file_name))
					continue;
				if (e->external_path)
					rc = xp_delete(x, pm_path_strip_file_scheme(e->external_path));
				else
					rc = xp_delete_in(x, "index", e->file_name);
			}
			if (!rc && !pm_strset_has(skip, s->index_manifest))
				rc = xp_delete_in(x, "manifest", s->index_manifest);
		}
		pm_index_manifest_entry_list_dispose(&il);
	}
	if (!rc && s->statistics && !pm_strset_has(skip, s->statistics))
		rc = xp_delete_in(x, "statistics", s->statistics);
	return rc;
}

/* Loads snapshot id; *s = NULL when it does not exist. */
static int xp_try_snapshot(xp *x, int64_t id, pm_snapshot **s)
{
	int rc = pm_snapshot_load(x->io, x->meta, id, s);
	if (rc == PAIMON_ENOTFOUND) {
		paimon_error_clear();
		*s = NULL;
		return 0;
	}
	return rc;
}

static int cmp_snap(const void *a, const void *b)
{
	int64_t x = (*(pm_snapshot *const *)a)->id, y = (*(pm_snapshot *const *)b)->id;
	return x < y ? -1 : x > y;
}

/* Tagged snapshots, one per snapshot id, sorted (Java taggedSnapshots()). */
static int xp_tagged(xp *x, snap_vec *tags)
{
	pm_strlist names = {0};
	size_t i, j;
	int rc = pm_tag_list(x->io, x->meta, &names);
	for (i = 0; i < names.len && !rc; i++) {
		pm_snapshot *s = NULL;
		rc = pm_tag_load(x->io, x->meta, names.items[i], &s);
		if (rc == PAIMON_ENOTFOUND) {
			paimon_error_clear();
			rc = 0;
			continue;
		}
		if (!rc && (rc = snap_vec_push(tags, s)))
			pm_snapshot_free(s);
	}
	pm_strlist_dispose(&names);
	if (rc)
		return rc;
	if (tags->len)
		qsort(tags->items, tags->len, sizeof *tags->items, cmp_snap);
	for (i = j = 0; i < tags->len; i++) {
		if (j && tags->items[j - 1]->id == tags->items[i]->id)
			pm_snapshot_free(tags->items[i]);
		else
			tags->items[j++] = tags->items[i];
	}
	tags->len = j;
	return 0;
}

static int xp_earliest_hint_missing(xp *x, int *missing)
{
	char *p = pm_path_join(x->meta, "snapshot/EARLIEST");
	int ex = 0, rc;
	if (!p)
		return PAIMON_ENOMEM;
	rc = pm_fileio_exists(x->io, p, &ex);
	pm_free(p);
	*missing = !ex;
	return rc;
}

/* The snapshots and tags of every branch, and the data files they use
 * (only when expiring the main branch: meta == table). Java 1.4.2 does not
 * look at branches (a tag on the branch point protects them); files a
 * branch uses are never deleted here. */
static int xp_load_branches(xp *x)
{
	pm_strlist names = {0};
	size_t i, k;
	int rc;
	if (strcmp(x->meta, x->table))
		return 0;
	if ((rc = pm_list_branches(x->io, x->table, &names)))
		return rc;
	for (i = 0; i < names.len && !rc; i++) {
		char *bdir = NULL, sub[512];
		int64_t *ids = NULL;
		size_t n = 0;
		pm_strlist tags = {0};
		snprintf(sub, sizeof sub, "branch/branch-%s", names.items[i]);
		if (!(bdir = pm_path_join(x->table, sub))) {
			rc = PAIMON_ENOMEM;
			break;
		}
		if (!(rc = pm_snapshot_list_ids(x->io, bdir, &ids, &n)))
			for (k = 0; k < n && !rc; k++) {
				pm_snapshot *s = NULL;
				if (!(rc = pm_snapshot_load(x->io, bdir, ids[k], &s)) && (rc = snap_vec_push(&x->branch_snaps, s)))
					pm_snapshot_free(s);
			}
		if (!rc && !(rc = pm_tag_list(x->io, bdir, &tags)))
			for (k = 0; k < tags.len && !rc; k++) {
				pm_snapshot *s = NULL;
				if (!(rc = pm_tag_load(x->io, bdir, tags.items[k], &s)) && (rc = snap_vec_push(&x->branch_snaps, s)))
					pm_snapshot_free(s);
			}
		if (rc)
			pm_err_wrap("branch '%s'", names.items[i]);
		pm_strlist_dispose(&tags);
		pm_free(ids);
		pm_free(bdir);
	}
	pm_strlist_dispose(&names);
	for (i = 0; i < x->branch_snaps.len && !rc; i++) {
		pm_manifest_entry_list live = {0};
		const pm_snapshot *s = x->branch_snaps.items[i];
		rc = pm_manifest_read_all(x->io, x->table, s->base_manifest_list, s->delta_manifest_list, NULL, &live);
		for (k = 0; k < live.len && !rc; k++)
			if (!(rc = xp_entry_key(x, &live.items[k])))
				rc = pm_strset_add(&x->branch_files, pm_buf_cstr(&x->key), NULL);
		pm_manifest_entry_list_dispose(&live);
	}
	return rc;
}

static int xp_expire_until(xp *x, int64_t earliest, int64_t end)
{
	snap_vec snaps = {0}, tags = {0};
	pm_snapshot **skips = NULL;
	pm_strset skip = {0};
	size_t i, nskip = 0, nexcl;
	int64_t id, begin;
	int rc = 0;

	if (end <= earliest) {
		int missing = 0;
		if ((rc = xp_earliest_hint_missing(x, &missing)) == 0 && missing && !x->dry_run)
			rc = pm_snapshot_write_hint(x->io, x->meta, "EARLIEST", earliest);
		return rc;
	}
	for (id = earliest; id <= end && !rc; id++) {
		pm_snapshot *s = NULL;
		if (!(rc = xp_try_snapshot(x, id, &s)) && s && (rc = snap_vec_push(&snaps, s)))
			pm_snapshot_free(s);
	}
	if (rc || !snaps.len)
		goto out;
	nexcl = snaps.items[snaps.len - 1]->id == end ? snaps.len - 1 : snaps.len;
	begin = snaps.items[0]->id;
	if ((rc = xp_tagged(x, &tags)))
		goto out;

	/* 1. data files deleted by the deltas of (begin, end] */
	for (i = 0; i < snaps.len && !rc; i++) {
		int have = 0;
		if (snaps.items[i]->id == begin)
			continue;
		if (xp_tag_skipper(x, &tags, snaps.items[i]->id, &have)) {
			paimon_error_clear(); /* cannot tell what the tag holds: keep the files */
			continue;
		}
		rc = xp_clean_data_files(x, snaps.items[i], have);
	}
	/* 2. changelog files of the expiring snapshots */
	for (i = 0; i < nexcl && !rc; i++)
		if (snaps.items[i]->changelog_manifest_list)
			rc = xp_clean_changelog(x, snaps.items[i]);
	/* 3. empty directories */
	if (!rc && x->cfg->clean_empty_dirs)
		rc = xp_clean_empty_dirs(x);
	if (rc)
		goto out;
	/* snapshot end is gone: stop (Java returns here) */
	if (snaps.items[snaps.len - 1]->id != end)
		goto out;

	/* 4. manifests, index files, statistics; skipping set from the tags in
	 * [previous-or-equal(begin), previous(end)] and snapshot end */
	if (!(skips = pm_calloc(tags.len + 1 + x->branch_snaps.len, sizeof *skips))) {
		rc = PAIMON_ENOMEM;
		goto out;
	}
	{
		long right = -1, left = -1;
		for (i = tags.len; i > 0; i--)
			if (tags.items[i - 1]->id < end) {
				right = (long)i - 1;
				break;
			}
		for (i = tags.len; i > 0; i--)
			if (tags.items[i - 1]->id <= begin) {
				left = (long)i - 1;
				break;
			}
		if (left < 0)
			left = 0;
		if (right >= 0)
			for (i = (size_t)left; (long)i <= right; i++)
				skips[nskip++] = tags.items[i];
	}
	skips[nskip++] = snaps.items[snaps.len - 1];
	/* the branches' snapshots and tags reference shared manifests too */
	for (i = 0; i < x->branch_snaps.len; i++)
		skips[nskip++] = x->branch_snaps.items[i];
	if (xp_skipping_set(x, skips, nskip, &skip)) {
		paimon_error_clear(); /* Java: skip cleaning manifests */
	} else {
		for (i = 0; i < nexcl && !rc; i++) {
			const pm_snapshot *s = snaps.items[i];
			if (!(rc = xp_clean_manifest_list(x, s->base_manifest_list, &skip)) &&
			    !(rc = xp_clean_manifest_list(x, s->delta_manifest_list, &skip)) &&
			    !(rc = xp_clean_manifest_list(x, s->changelog_manifest_list, &skip)))
				rc = xp_clean_index_and_stats(x, s, &skip);
		}
	}
	/* 5. the snapshot files, 6. the EARLIEST hint */
	for (i = 0; i < nexcl && !rc; i++) {
		char *p = pm_snapshot_path(x->meta, snaps.items[i]->id);
		if (!p) {
			rc = PAIMON_ENOMEM;
			break;
		}
		rc = xp_delete(x, p);
		pm_free(p);
	}
	if (!rc) {
		x->out->expired = (int64_t)nexcl;
		x->out->earliest_after = end;
		if (!x->dry_run)
			rc = pm_snapshot_write_hint(x->io, x->meta, "EARLIEST", end);
	}
out:
	pm_free(skips);
	pm_strset_dispose(&skip);
	snap_vec_dispose(&snaps);
	snap_vec_dispose(&tags);
	return rc;
}

int pm_table_expire_snapshots(pm_fileio *io, const char *table_path, const char *meta_path,
			      const pm_table_schema *schema, const pm_expire_config *cfg, int64_t now_ms, int dry_run,
			      pm_expire_result *out)
{
	xp x;
	int64_t latest = 0, earliest = 0, minid, max_excl, older_than, id, end, next = 0;
	int found = 0, rc;
	memset(&x, 0, sizeof x);
	out->latest = out->earliest_before = out->earliest_after = -1;
	if (cfg->retain_min < 1 || cfg->retain_max < cfg->retain_min || cfg->max_deletes < 1)
		return pm_err(PAIMON_EINVAL,
			      "expire snapshots: retain max (%d) must not be less than retain min (%d), which must "
			      "be >= 1, and the expire limit (%d) must be >= 1",
			      (int)cfg->retain_max, (int)cfg->retain_min, (int)cfg->max_deletes);
	if ((rc = pm_snapshot_latest_id(io, meta_path, &latest, &found)) || !found)
		return rc;
	if ((rc = pm_snapshot_earliest_id(io, meta_path, &earliest, &found)) || !found)
		return rc;
	out->latest = latest;
	out->earliest_before = out->earliest_after = earliest;
	x.io = io;
	x.table = table_path;
	x.meta = meta_path;
	x.schema = schema;
	x.cfg = cfg;
	x.dry_run = dry_run;
	x.out = out;
	if ((rc = pm_partition_info_init(&x.pi, schema)))
		return rc;

	minid = latest - cfg->retain_max + 1;
	if (minid < earliest)
		minid = earliest;
	max_excl = latest - cfg->retain_min + 1;
	if (!cfg->consumer_changelog_only) {
		if ((rc = pm_consumer_min_next_snapshot(io, meta_path, &next, &found)))
			goto done;
		if (found && next < max_excl)
			max_excl = next;
	}
	if (earliest + cfg->max_deletes < max_excl)
		max_excl = earliest + cfg->max_deletes;
	older_than = now_ms - cfg->time_retained_ms;
	end = max_excl;
	for (id = minid; id < max_excl; id++) {
		pm_snapshot *s = NULL;
		if ((rc = xp_try_snapshot(&x, id, &s)))
			goto done;
		if (!s)
			continue;
		if (older_than <= s->time_millis) {
			pm_snapshot_free(s);
			end = id;
			break;
		}
		pm_snapshot_free(s);
	}
	if (end > earliest && (rc = xp_load_branches(&x)))
		goto done;
	rc = xp_expire_until(&x, earliest, end);
done:
	if (rc)
		pm_err_wrap("cannot expire snapshots of '%s'", meta_path);
	xp_dispose(&x);
	return rc;
}

/* -------------------------------------------------------- tag deletion */

/* The live files of the snapshots in snaps (Java TagDeletion.dataFileSkipper)
 * into x->tag_files. */
static int xp_live_files_of(xp *x, pm_snapshot *const *snaps, size_t n)
{
	size_t i, k;
	int rc = 0;
	pm_strset_dispose(&x->tag_files);
	pm_strset_dispose(&x->branch_files);
	snap_vec_dispose(&x->branch_snaps);
	x->cached_tag = 0;
	for (i = 0; i < n && !rc; i++) {
		pm_manifest_entry_list live = {0};
		rc = pm_manifest_read_all(x->io, x->table, snaps[i]->base_manifest_list, snaps[i]->delta_manifest_list,
					  NULL, &live);
		for (k = 0; k < live.len && !rc; k++)
			if (!(rc = xp_entry_key(x, &live.items[k])))
				rc = pm_strset_add(&x->tag_files, pm_buf_cstr(&x->key), NULL);
		pm_manifest_entry_list_dispose(&live);
	}
	return rc;
}

int pm_table_delete_tag(pm_fileio *io, const char *table_path, const char *meta_path, const pm_table_schema *schema,
			const char *name, int ignore_if_not_exists, pm_expire_result *out)
{
	xp x;
	snap_vec tags = {0};
	pm_snapshot *tag = NULL, *earliest_snap = NULL, *skips[2];
	pm_strset skip = {0};
	pm_strlist names = {0};
	size_t i, nskip = 0, same = 0, idx = 0;
	int64_t earliest = 0;
	int exists = 0, found = 0, rc;
	char *p;
	memset(&x, 0, sizeof x);
	if ((rc = pm_tag_validate_name(name)))
		return rc;
	rc = pm_tag_load(io, meta_path, name, &tag);
	if (rc == PAIMON_ENOTFOUND && ignore_if_not_exists) {
		paimon_error_clear();
		return 0;
	}
	if (rc)
		return rc;
	x.io = io;
	x.table = table_path;
	x.meta = meta_path;
	x.schema = schema;
	x.out = out;
	{
		static const pm_expire_config no_dirs = {1, 1, 0, 1, 0, 0};
		x.cfg = &no_dirs;
	}
	if ((rc = pm_partition_info_init(&x.pi, schema)))
		goto done;
	/* the tagged snapshot still exists: it keeps its files, only the tag goes */
	if (!(p = pm_snapshot_path(meta_path, tag->id))) {
		rc = PAIMON_ENOMEM;
		goto done;
	}
	rc = pm_fileio_exists(io, p, &exists);
	pm_free(p);
	if (rc)
		goto done;
	/* every tag, read before the tag file goes (Java reads them first) */
	if (!exists && (rc = xp_tagged(&x, &tags)))
		goto done;
	if (!exists) {
		if ((rc = pm_tag_list(io, meta_path, &names)))
			goto done;
		for (i = 0; i < names.len && !rc; i++) {
			pm_snapshot *o = NULL;
			rc = pm_tag_load(io, meta_path, names.items[i], &o);
			if (rc == PAIMON_ENOTFOUND) {
				paimon_error_clear();
				rc = 0;
				continue;
			}
			if (!rc)
				same += o->id == tag->id;
			pm_snapshot_free(o);
		}
		if (rc)
			goto done;
	}
	if ((rc = pm_tag_delete(io, meta_path, name, 0)))
		goto done;
	if (exists || same > 1)
		goto done;
	if ((rc = xp_load_branches(&x)))
		goto done;

	/* Java TagManager.doClean: keep what the left neighbour tag and the
	 * nearer of (the earliest snapshot, the right neighbour tag) use */
	for (i = 0; i < tags.len; i++)
		if (tags.items[i]->id == tag->id)
			idx = i;
	if (idx > 0)
		skips[nskip++] = tags.items[idx - 1];
	if ((rc = pm_snapshot_earliest_id(io, meta_path, &earliest, &found)))
		goto done;
	if (found && (rc = xp_try_snapshot(&x, earliest, &earliest_snap)))
		goto done;
	if (idx + 1 < tags.len && (!earliest_snap || earliest_snap->id >= tags.items[idx + 1]->id))
		skips[nskip++] = tags.items[idx + 1];
	else if (earliest_snap)
		skips[nskip++] = earliest_snap;

	if (xp_live_files_of(&x, skips, nskip) == 0) {
		pm_manifest_entry_list live = {0};
		if (pm_manifest_read_all(io, table_path, tag->base_manifest_list, tag->delta_manifest_list, NULL, &live) == 0) {
			for (i = 0; i < live.len && !rc; i++) {
				if ((rc = xp_entry_key(&x, &live.items[i])))
					break;
				if (!pm_strset_has(&x.tag_files, pm_buf_cstr(&x.key)) &&
				    !pm_strset_has(&x.branch_files, pm_buf_cstr(&x.key)))
					rc = xp_delete_data_file(&x, &live.items[i], 1);
			}
		} else {
			paimon_error_clear();
		}
		pm_manifest_entry_list_dispose(&live);
	} else {
		paimon_error_clear(); /* cannot tell what the neighbours use: keep the data */
	}
	if (rc)
		goto done;
	if (xp_skipping_set(&x, skips, nskip, &skip) ||
	    (x.branch_snaps.len && xp_skipping_set(&x, x.branch_snaps.items, x.branch_snaps.len, &skip))) {
		paimon_error_clear();
	} else if (!(rc = xp_clean_manifest_list(&x, tag->base_manifest_list, &skip)) &&
		   !(rc = xp_clean_manifest_list(&x, tag->delta_manifest_list, &skip))) {
		rc = xp_clean_index_and_stats(&x, tag, &skip);
	}
done:
	if (rc)
		pm_err_wrap("cannot delete tag '%s'", name);
	pm_snapshot_free(tag);
	pm_snapshot_free(earliest_snap);
	snap_vec_dispose(&tags);
	pm_strlist_dispose(&names);
	pm_strset_dispose(&skip);
	xp_dispose(&x);
	return rc;
}

/* ------------------------------------------------------------ consumers */

#define CONSUMER_PREFIX "consumer-"

static char *consumer_path(const char *meta, const char *id)
{
	size_t n = strlen(meta) + strlen(id) + sizeof "/consumer/" CONSUMER_PREFIX;
	char *p = pm_malloc(n);
	if (p)
		snprintf(p, n, "%s/consumer/" CONSUMER_PREFIX "%s", meta, id);
	return p;
}

int pm_consumer_read(pm_fileio *io, const char *meta_path, const char *consumer_id, int64_t *next, int *found)
{
	pm_buf b = PM_BUF_INIT;
	json_t *root = NULL;
	char *p;
	int rc;
	*found = 0;
	if (!consumer_id || !*consumer_id || strchr(consumer_id, '/'))
		return pm_err(PAIMON_EINVAL, "invalid consumer id '%s'", consumer_id ? consumer_id : "");
	if (!(p = consumer_path(meta_path, consumer_id)))
		return PAIMON_ENOMEM;
	rc = pm_fileio_read_all(io, p, &b);
	if (rc == PAIMON_ENOTFOUND) {
		paimon_error_clear();
		rc = 0;
		goto out;
	}
	if (rc || (rc = pm_json_parse(p, b.data ? b.data : "", b.len, &root)))
		goto out;
	if (!json_is_object(root)) {
		rc = pm_err(PAIMON_ECORRUPT, "'%s': a consumer file must be a JSON object", p);
		goto out;
	}
	if ((rc = pm_json_i64(p, root, "nextSnapshot", 1, next, NULL)) == 0)
		*found = 1;
out:
	if (root)
		json_decref(root);
	pm_buf_dispose(&b);
	pm_free(p);
	return rc;
}

int pm_consumer_write(pm_fileio *io, const char *meta_path, const char *consumer_id, int64_t next)
{
	char text[64], *p, *dir;
	int n, rc;
	if (!consumer_id || !*consumer_id || strchr(consumer_id, '/'))
		return pm_err(PAIMON_EINVAL, "invalid consumer id '%s'", consumer_id ? consumer_id : "");
	if (!(dir = pm_path_join(meta_path, "consumer")))
		return PAIMON_ENOMEM;
	rc = pm_fileio_mkdirs(io, dir);
	pm_free(dir);
	if (rc)
		return rc;
	if (!(p = consumer_path(meta_path, consumer_id)))
		return PAIMON_ENOMEM;
	n = snprintf(text, sizeof text, "{\n  \"nextSnapshot\" : %lld\n}", (long long)next);
	rc = pm_fileio_write_overwrite(io, p, text, (size_t)n);
	pm_free(p);
	return rc;
}

int pm_consumer_min_next_snapshot(pm_fileio *io, const char *meta_path, int64_t *next, int *found)
{
	pm_file_list l = {0};
	char *dir = pm_path_join(meta_path, "consumer");
	size_t i;
	int rc;
	*found = 0;
	if (!dir)
		return PAIMON_ENOMEM;
	rc = pm_fileio_list_optional(io, dir, &l);
	pm_free(dir);
	for (i = 0; i < l.len && !rc; i++) {
		const char *name = l.items[i].name;
		int64_t v = 0;
		int f = 0;
		if (l.items[i].is_dir || strncmp(name, CONSUMER_PREFIX, sizeof CONSUMER_PREFIX - 1) != 0 ||
		    !name[sizeof CONSUMER_PREFIX - 1])
			continue;
		if (!(rc = pm_consumer_read(io, meta_path, name + sizeof CONSUMER_PREFIX - 1, &v, &f)) && f &&
		    (!*found || v < *next)) {
			*next = v;
			*found = 1;
		}
	}
	pm_file_list_dispose(&l);
	return rc;
}

int pm_consumer_expire(pm_fileio *io, const char *meta_path, int64_t older_than_ms)
{
	pm_file_list l = {0};
	pm_buf p = PM_BUF_INIT;
	char *dir = pm_path_join(meta_path, "consumer");
	size_t i;
	int rc;
	if (!dir)
		return PAIMON_ENOMEM;
	rc = pm_fileio_list_optional(io, dir, &l);
	for (i = 0; i < l.len && !rc; i++) {
		if (l.items[i].is_dir || strncmp(l.items[i].name, CONSUMER_PREFIX, sizeof CONSUMER_PREFIX - 1) != 0 ||
		    l.items[i].mtime_ms >= older_than_ms)
			continue;
		pm_buf_clear(&p);
		if (!(rc = pm_buf_printf(&p, "%s/%s", dir, l.items[i].name)))
			rc = pm_fileio_remove(io, pm_buf_cstr(&p));
	}
	pm_buf_dispose(&p);
	pm_file_list_dispose(&l);
	pm_free(dir);
	return rc;
}
