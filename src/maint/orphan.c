/*
 * orphan/orphan.c - orphan-file clean-up (see orphan.h).
 *
 * Like Java's OrphanFilesClean the reference set holds file NAMES (the last
 * path component): every data, manifest, index and statistics file name
 * carries a random UUID, so a name identifies the file wherever it lives.
 * The whole reference set is built before anything is listed or deleted;
 * any failure while building it aborts the clean-up.
 */
#include "maint/orphan.h"

#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "meta/manifest.h"
#include "meta/snapshot.h"

/* Directory levels below the table root walked at most (partition keys,
 * bucket dirs, data-file.path-directory; guards against symlink loops). */
#define ORPHAN_MAX_DEPTH 64

/* ------------------------------------------------------- reference set */

typedef struct refs {
	pm_fileio *io;
	const char *table;
	pm_strset used;       /* referenced file names */
	pm_strset lists_read; /* manifest lists already expanded */
	pm_strset manifests_read;
	pm_strset index_manifests_read;
	int live_only; /* data files: only the live ones of each snapshot (merged) */
} refs;

/* Adds the last path component of p (a name or a path). */
static int add_used(refs *r, const char *p)
{
	if (!p || !*p)
		return 0;
	return pm_strset_add(&r->used, pm_path_basename(p), NULL);
}

static int add_manifest(refs *r, const char *name)
{
	pm_manifest_entry_list l = {0};
	size_t i, j;
	int added, rc;
	if ((rc = pm_strset_add(&r->manifests_read, name, &added)) != 0 || !added)
		return rc;
	if ((rc = add_used(r, name)) != 0)
		return rc;
	if ((rc = pm_manifest_read(r->io, r->table, name, &l)) != 0)
		return rc;
	/* ADD and DELETE entries alike: a DELETE names a file an older
	 * manifest added, so it is referenced anyway. */
	for (i = 0; i < l.len && rc == 0; i++) {
		const pm_data_file_meta *f = &l.items[i].file;
		rc = add_used(r, f->file_name);
		for (j = 0; j < f->extra_files.len && rc == 0; j++)
			rc = add_used(r, f->extra_files.items[j]);
		if (rc == 0 && f->external_path)
			rc = add_used(r, f->external_path);
	}
	pm_manifest_entry_list_dispose(&l);
	return rc;
}

static int add_manifest_list(refs *r, const char *name)
{
	pm_manifest_file_meta_list l = {0};
	size_t i;
	int added, rc;
	if (!name || !*name)
		return 0;
	if ((rc = pm_strset_add(&r->lists_read, name, &added)) != 0 || !added)
		return rc;
	if ((rc = add_used(r, name)) != 0)
		return rc;
	if ((rc = pm_manifest_list_read(r->io, r->table, name, &l)) != 0)
		return rc;
	for (i = 0; i < l.len && rc == 0; i++)
		rc = add_manifest(r, l.items[i].file_name);
	pm_manifest_file_meta_list_dispose(&l);
	return rc;
}

static int add_index_manifest(refs *r, const char *name)
{
	pm_index_manifest_entry_list l = {0};
	size_t i;
	int added, rc;
	if (!name || !*name)
		return 0;
	if ((rc = pm_strset_add(&r->index_manifests_read, name, &added)) != 0 || !added)
		return rc;
	if ((rc = add_used(r, name)) != 0)
		return rc;
	if ((rc = pm_index_manifest_read(r->io, r->table, name, &l)) != 0)
		return rc;
	for (i = 0; i < l.len && rc == 0; i++) {
		rc = add_used(r, l.items[i].file_name);
		if (rc == 0 && l.items[i].external_path)
			rc = add_used(r, l.items[i].external_path);
	}
	pm_index_manifest_entry_list_dispose(&l);
	return rc;
}

/* The manifest lists and manifests of a snapshot's data, and the files
 * live in it (base and delta merged), with their extra files. */
static int add_live_data(refs *r, const pm_snapshot *s)
{
	const char *lists[2] = {s->base_manifest_list, s->delta_manifest_list};
	pm_manifest_entry_list live = {0};
	size_t i, j, k;
	int rc = 0;
	for (k = 0; k < 2 && rc == 0; k++) {
		pm_manifest_file_meta_list l = {0};
		if (!lists[k] || !*lists[k])
			continue;
		if ((rc = add_used(r, lists[k])) == 0 && (rc = pm_manifest_list_read(r->io, r->table, lists[k], &l)) == 0)
			for (i = 0; i < l.len && rc == 0; i++)
				rc = add_used(r, l.items[i].file_name);
		pm_manifest_file_meta_list_dispose(&l);
	}
	if (rc == 0)
		rc = pm_manifest_read_all(r->io, r->table, s->base_manifest_list, s->delta_manifest_list, NULL, &live);
	for (i = 0; i < live.len && rc == 0; i++) {
		const pm_data_file_meta *f = &live.items[i].file;
		rc = add_used(r, f->file_name);
		for (j = 0; j < f->extra_files.len && rc == 0; j++)
			rc = add_used(r, f->extra_files.items[j]);
		if (rc == 0 && f->external_path)
			rc = add_used(r, f->external_path);
	}
	pm_manifest_entry_list_dispose(&live);
	return rc;
}

static int add_snapshot_refs(refs *r, const pm_snapshot *s)
{
	int rc;
	if (r->live_only) {
		if ((rc = add_live_data(r, s)) != 0 || (rc = add_manifest_list(r, s->changelog_manifest_list)) != 0 ||
		    (rc = add_index_manifest(r, s->index_manifest)) != 0)
			return rc;
		return add_used(r, s->statistics);
	}
	if ((rc = add_manifest_list(r, s->base_manifest_list)) != 0 ||
	    (rc = add_manifest_list(r, s->delta_manifest_list)) != 0 ||
	    (rc = add_manifest_list(r, s->changelog_manifest_list)) != 0 ||
	    (rc = add_index_manifest(r, s->index_manifest)) != 0)
		return rc;
	return add_used(r, s->statistics);
}

/* Reads the snapshot-like JSON file at path and adds what it references.
 * A file that is gone (expired or deleted since it was listed) is skipped:
 * whatever it alone referenced is being deleted by whoever removed it. */
static int add_meta_file(refs *r, const char *path, const char *what)
{
	pm_buf b = PM_BUF_INIT;
	pm_snapshot *s = NULL;
	int rc = pm_fileio_read_all(r->io, path, &b);
	if (rc == PAIMON_ENOTFOUND) {
		paimon_error_clear();
		pm_buf_dispose(&b);
		return 0;
	}
	if (rc == 0)
		rc = pm_snapshot_from_json(path, b.data ? b.data : "", b.len, &s);
	pm_buf_dispose(&b);
	if (rc == 0) {
		rc = add_snapshot_refs(r, s);
		if (rc == PAIMON_ENOTFOUND) {
			/* A manifest vanished: fine if the whole file went away
			 * meanwhile (concurrent expiry), an error otherwise. */
			pm_err_state st;
			int ex = 1;
			pm_err_save(&st);
			if (pm_fileio_exists(r->io, path, &ex) == 0 && !ex) {
				paimon_error_clear();
				rc = 0;
			} else {
				pm_err_restore(&st);
			}
		}
		pm_snapshot_free(s);
	}
	if (rc)
		pm_err_wrap("orphan clean-up of '%s': cannot read %s", r->table, what);
	return rc;
}

/* Every entry <table>/<dir>/<prefix><digits>. */
static int add_versioned_dir(refs *r, const char *dirname, const char *prefix, const char *kind)
{
	pm_file_list l = {0};
	char *dir = pm_path_join(r->table, dirname);
	size_t i, pl = strlen(prefix);
	int rc;
	if (!dir)
		return PAIMON_ENOMEM;
	rc = pm_fileio_list(r->io, dir, &l);
	if (rc == PAIMON_ENOTFOUND) {
		paimon_error_clear();
		rc = 0;
	} else if (rc) {
		pm_err_wrap("orphan clean-up of '%s'", r->table);
	}
	for (i = 0; i < l.len && rc == 0; i++) {
		const char *n = l.items[i].name, *d;
		char *path, what[96];
		if (l.items[i].is_dir || strncmp(n, prefix, pl) != 0 || n[pl] == '\0')
			continue;
		for (d = n + pl; *d >= '0' && *d <= '9'; d++)
			;
		if (*d != '\0' && strcmp(kind, "tag") != 0)
			continue;
		if (!(path = pm_path_join(dir, n))) {
			rc = PAIMON_ENOMEM;
			break;
		}
		snprintf(what, sizeof what, "%s %.64s", kind, n + pl);
		rc = add_meta_file(r, path, what);
		pm_free(path);
	}
	pm_file_list_dispose(&l);
	pm_free(dir);
	return rc;
}

static void refs_dispose(refs *r)
{
	pm_strset_dispose(&r->used);
	pm_strset_dispose(&r->lists_read);
	pm_strset_dispose(&r->manifests_read);
	pm_strset_dispose(&r->index_manifests_read);
}

static int build_refs(refs *r)
{
	pm_strlist branches = {0};
	pm_fileio *main_io = r->io;
	size_t i;
	int rc;
	if ((rc = add_versioned_dir(r, "snapshot", "snapshot-", "snapshot")) != 0 ||
	    (rc = add_versioned_dir(r, "changelog", "changelog-", "changelog")) != 0 ||
	    (rc = add_versioned_dir(r, "tag", "tag-", "tag")) != 0)
		return rc;
	/* branches share the manifest, index and data files: what their
	 * snapshots and tags reference is used too (Java RemoveOrphanFiles
	 * walks every branch) */
	if ((rc = pm_list_branches(main_io, r->table, &branches)))
		return rc;
	for (i = 0; i < branches.len && !rc; i++) {
		pm_fileio *view = NULL;
		if ((rc = pm_fileio_branch_view(main_io, r->table, branches.items[i], &view)))
			break;
		r->io = view;
		if (!(rc = add_versioned_dir(r, "snapshot", "snapshot-", "snapshot")) &&
		    !(rc = add_versioned_dir(r, "changelog", "changelog-", "changelog")))
			rc = add_versioned_dir(r, "tag", "tag-", "tag");
		r->io = main_io;
		pm_fileio_close(view);
		if (rc)
			pm_err_wrap("branch '%s'", branches.items[i]);
	}
	pm_strlist_dispose(&branches);
	return rc;
}

/* ----------------------------------------------------------- the walk */

typedef struct cand {
	char *path;
	uint64_t size;
	size_t dir; /* index into walk.dirs */
} cand;

typedef struct wdir {
	char *path;
	long parent; /* -1 for top-level ones */
	int removable; /* a data directory (partition / bucket) */
	int64_t mtime_ms;
	int touched;
} wdir;

typedef struct walk {
	pm_fileio *io;
	const pm_strset *used;
	int64_t older_than;
	cand *c;
	size_t nc, capc;
	wdir *d; /* pre-order: a parent precedes its children */
	size_t nd, capd;
} walk;

static void walk_dispose(walk *w)
{
	size_t i;
	for (i = 0; i < w->nc; i++)
		pm_free(w->c[i].path);
	for (i = 0; i < w->nd; i++)
		pm_free(w->d[i].path);
	pm_free(w->c);
	pm_free(w->d);
	w->c = NULL;
	w->d = NULL;
	w->nc = w->nd = w->capc = w->capd = 0;
}

static int is_digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

/* Top-level directories never walked. */
static int skipped_top_dir(const char *n)
{
	return strcmp(n, "branch") == 0 || strcmp(n, "consumer") == 0 || strcmp(n, "service") == 0;
}

/* Top-level directories where only the hidden temporaries of a crashed
 * no-overwrite publish (".schema-3.<random>.tmp", ".tag-t.<random>.tmp")
 * can be orphans: every other file there is live metadata. */
static int temp_only_top_dir(const char *n)
{
	return n && (strcmp(n, "schema") == 0 || strcmp(n, "tag") == 0);
}

static int hidden_temp(const char *n)
{
	size_t len = strlen(n);
	return n[0] == '.' && len > 5 && strcmp(n + len - 4, ".tmp") == 0;
}

/* Top-level directories holding metadata (walked, never removed). */
static int meta_top_dir(const char *n)
{
	return strcmp(n, "snapshot") == 0 || strcmp(n, "changelog") == 0 || strcmp(n, "manifest") == 0 ||
	       strcmp(n, "index") == 0 || strcmp(n, "statistics") == 0 || temp_only_top_dir(n);
}

/* Files that are never orphans wherever they are referenced from. */
static int protected_file(const char *top, const char *n)
{
	if (!top)
		return 0;
	if (strcmp(top, "snapshot") == 0)
		return (strncmp(n, "snapshot-", 9) == 0 && is_digits(n + 9)) || strcmp(n, "EARLIEST") == 0 ||
		       strcmp(n, "LATEST") == 0;
	if (strcmp(top, "changelog") == 0)
		return (strncmp(n, "changelog-", 10) == 0 && is_digits(n + 10)) || strcmp(n, "EARLIEST") == 0 ||
		       strcmp(n, "LATEST") == 0;
	return 0;
}

/* Walks dir (depth 0 = table root); top: name of the top-level directory
 * being walked (NULL at the root); appends dir to w->d before its children. */
static int walk_dir(walk *w, const char *dir, const char *top, int depth, long parent, int64_t mtime,
		    long *self)
{
	pm_file_list l = {0};
	size_t i;
	long me;
	int rc;
	if (depth > ORPHAN_MAX_DEPTH)
		return pm_err(PAIMON_EUNSUPPORTED, "orphan clean-up: directory '%s' is nested too deeply", dir);
	rc = pm_fileio_list(w->io, dir, &l);
	if (rc == PAIMON_ENOTFOUND && depth > 0) { /* vanished meanwhile */
		paimon_error_clear();
		*self = -1;
		return 0;
	}
	if (rc)
		return rc;
	if (w->nd == w->capd) {
		size_t ncap = w->capd ? w->capd * 2 : 16;
		wdir *n = pm_realloc(w->d, ncap * sizeof *n);
		if (!n) {
			pm_file_list_dispose(&l);
			return PAIMON_ENOMEM;
		}
		w->d = n;
		w->capd = ncap;
	}
	me = (long)w->nd;
	memset(&w->d[me], 0, sizeof w->d[me]);
	w->d[me].path = pm_strdup(dir);
	w->d[me].parent = parent;
	w->d[me].removable = depth > 0 && !(depth == 1 && meta_top_dir(top));
	w->d[me].mtime_ms = mtime;
	w->nd++;
	if (!w->d[me].path) {
		pm_file_list_dispose(&l);
		return PAIMON_ENOMEM;
	}
	*self = me;
	for (i = 0; i < l.len && rc == 0; i++) {
		const pm_file_status *st = &l.items[i];
		char *p;
		if (depth == 0 && st->is_dir && skipped_top_dir(st->name))
			continue;
		if (temp_only_top_dir(top) && (st->is_dir || !hidden_temp(st->name)))
			continue;
		if (!st->is_dir &&
		    (protected_file(top, st->name) || pm_strset_has(w->used, st->name) || st->mtime_ms >= w->older_than))
			continue;
		if (!(p = pm_path_join(dir, st->name))) {
			rc = PAIMON_ENOMEM;
			break;
		}
		if (st->is_dir) {
			long child;
			rc = walk_dir(w, p, depth == 0 ? st->name : top, depth + 1, me, st->mtime_ms, &child);
			pm_free(p);
			continue;
		}
		if (w->nc == w->capc) {
			size_t ncap = w->capc ? w->capc * 2 : 16;
			cand *n = pm_realloc(w->c, ncap * sizeof *n);
			if (!n) {
				pm_free(p);
				rc = PAIMON_ENOMEM;
				break;
			}
			w->c = n;
			w->capc = ncap;
		}
		w->c[w->nc].path = p;
		w->c[w->nc].size = st->size;
		w->c[w->nc].dir = (size_t)me;
		w->nc++;
	}
	pm_file_list_dispose(&l);
	return rc;
}

static int cmp_cand(const void *a, const void *b)
{
	return strcmp(((const cand *)a)->path, ((const cand *)b)->path);
}

/* Builds the reference set, then walks the table. */
static int find(pm_fileio *io, const char *table_path, int64_t older_than_ms, walk *w)
{
	refs r;
	pm_file_status st;
	long root;
	int rc;
	memset(&r, 0, sizeof r);
	memset(w, 0, sizeof *w);
	memset(&st, 0, sizeof st);
	if (!io || !table_path || !*table_path)
		return pm_err(PAIMON_EINVAL, "orphan clean-up: no table path");
	if ((rc = pm_fileio_stat(io, table_path, &st)) != 0)
		return pm_err_wrap("orphan clean-up: cannot open table '%s'", table_path);
	pm_free(st.name);
	if (!st.is_dir)
		return pm_err(PAIMON_EINVAL, "orphan clean-up: '%s' is not a table directory", table_path);
	r.io = io;
	r.table = table_path;
	rc = build_refs(&r);
	if (rc == 0) {
		w->io = io;
		w->used = &r.used;
		w->older_than = older_than_ms;
		rc = walk_dir(w, table_path, NULL, 0, -1, st.mtime_ms, &root);
		if (rc)
			pm_err_wrap("orphan clean-up of '%s'", table_path);
	}
	w->used = NULL;
	refs_dispose(&r);
	if (rc)
		walk_dispose(w);
	else if (w->nc > 1)
		qsort(w->c, w->nc, sizeof *w->c, cmp_cand);
	return rc;
}

static int list_push(pm_orphan_list *out, const cand *c)
{
	int rc = pm_strlist_push(&out->paths, c->path);
	if (rc == 0)
		out->bytes += c->size;
	return rc;
}

void pm_orphan_list_dispose(pm_orphan_list *l)
{
	if (!l)
		return;
	pm_strlist_dispose(&l->paths);
	l->bytes = 0;
}

int pm_table_find_orphans(pm_fileio *io, const char *table_path, int64_t older_than_ms, pm_orphan_list *out)
{
	walk w;
	size_t i;
	int rc = find(io, table_path, older_than_ms, &w);
	for (i = 0; rc == 0 && i < w.nc; i++)
		rc = list_push(out, &w.c[i]);
	walk_dispose(&w);
	return rc;
}

/* Removes data directories that the deletion left empty, deepest first,
 * when they were not modified within the guard (a writer may be about to
 * put its first file into a fresh one). A directory is removed with the
 * non-recursive remove, so a file a writer puts there meanwhile makes the
 * removal fail instead of being deleted; such a directory is skipped. I/O
 * errors are reported naming the directory (the orphan files are gone by
 * then). */
static int remove_empty_dirs(walk *w)
{
	size_t k;
	for (k = w->nd; k-- > 0;) {
		/* w->d is in pre-order (a parent precedes its children), so
		 * walking it backwards visits children before their parent. */
		wdir *d = &w->d[k];
		pm_file_list l = {0};
		int rc;
		if (!d->touched || !d->removable || d->mtime_ms >= w->older_than)
			continue;
		if ((rc = pm_fileio_list(w->io, d->path, &l)) != 0) {
			if (rc == PAIMON_ENOTFOUND) { /* removed meanwhile */
				paimon_error_clear();
				continue;
			}
			return pm_err_wrap("orphan clean-up: cannot check whether directory '%s' is empty", d->path);
		}
		if (l.len == 0) {
			if ((rc = pm_fileio_remove(w->io, d->path)) != 0) {
				pm_file_list again = {0};
				pm_err_state first;
				pm_err_save(&first);
				/* a writer put a file there meanwhile: keep the directory */
				if (pm_fileio_list(w->io, d->path, &again) == 0 && again.len > 0) {
					pm_file_list_dispose(&again);
					paimon_error_clear();
					continue;
				}
				pm_file_list_dispose(&again);
				pm_err_restore(&first);
				return pm_err_wrap("orphan clean-up: cannot remove empty directory '%s'", d->path);
			}
			if (d->parent >= 0)
				w->d[d->parent].touched = 1;
		}
		pm_file_list_dispose(&l);
	}
	return 0;
}

int pm_table_remove_orphans(pm_fileio *io, const char *table_path, int64_t older_than_ms, int dry_run,
			    pm_orphan_list *out)
{
	walk w;
	size_t i;
	int rc = find(io, table_path, older_than_ms, &w);
	for (i = 0; rc == 0 && i < w.nc; i++) {
		if (!dry_run) {
			if ((rc = pm_fileio_remove(io, w.c[i].path)) != 0) {
				pm_err_wrap("orphan clean-up of '%s': cannot delete orphan file", table_path);
				break;
			}
			w.d[w.c[i].dir].touched = 1;
		}
		if (out)
			rc = list_push(out, &w.c[i]);
	}
	if (rc == 0 && !dry_run)
		rc = remove_empty_dirs(&w);
	walk_dispose(&w);
	return rc;
}

/* ------------------------------------------------- missing references */

/* Adds the names of every file under dir (not under branch/, consumer/,
 * service/ at the top) to names. */
static int collect_names(pm_fileio *io, const char *dir, int depth, pm_strset *names)
{
	pm_file_list l = {0};
	size_t i;
	int rc;
	if (depth > ORPHAN_MAX_DEPTH)
		return pm_err(PAIMON_EUNSUPPORTED, "directory '%s' is nested too deeply", dir);
	rc = pm_fileio_list(io, dir, &l);
	if (rc == PAIMON_ENOTFOUND && depth > 0) {
		paimon_error_clear();
		return 0;
	}
	for (i = 0; i < l.len && rc == 0; i++) {
		const pm_file_status *st = &l.items[i];
		if (st->is_dir) {
			char *p;
			if (depth == 0 && skipped_top_dir(st->name))
				continue;
			if (!(p = pm_path_join(dir, st->name))) {
				rc = PAIMON_ENOMEM;
				break;
			}
			rc = collect_names(io, p, depth + 1, names);
			pm_free(p);
		} else {
			rc = pm_strset_add(names, st->name, NULL);
		}
	}
	pm_file_list_dispose(&l);
	return rc;
}

int pm_table_find_missing(pm_fileio *io, const char *table_path, pm_strlist *missing)
{
	refs r;
	pm_strset have = {0};
	size_t i;
	int rc;
	memset(&r, 0, sizeof r);
	r.io = io;
	r.table = table_path;
	r.live_only = 1;
	if ((rc = build_refs(&r)) == 0 && (rc = collect_names(io, table_path, 0, &have)) == 0) {
		for (i = 0; i < r.used.cap && rc == 0; i++)
			if (r.used.slots[i] && !pm_strset_has(&have, r.used.slots[i]))
				rc = pm_strlist_push(missing, r.used.slots[i]);
		if (rc == 0)
			pm_strlist_sort(missing);
	}
	pm_strset_dispose(&have);
	refs_dispose(&r);
	return rc;
}
