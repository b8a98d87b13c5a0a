/*
 * tests/unit/table/test_crash.c - crash consistency of write and commit.
 *
 * For each workload a dry run through the fault-injecting FileIO lists its
 * storage-changing operations (data file open/append/close, manifests,
 * manifest lists, snapshot publish, LATEST hint, mkdirs, schema, tag). Then
 * for EVERY such operation i and each crash mode (before / after / torn) a
 * forked child runs the workload through the public API and dies (_exit) at
 * operation i. Before committing, the child stores its serialized commit
 * message in a side file with plain stdio (fsync'd, renamed into place), as
 * a distributed job would ship it to the committer. The parent then checks:
 *
 *   - the table opens; the latest snapshot is the old one or old+1 and every
 *     snapshot present is complete (every manifest list, manifest and data
 *     file it references exists and reads);
 *   - the rows read are exactly the old rows or exactly the new rows
 *     (sorted canonical text of every row, not only counts);
 *   - retry: with a complete side file the message is committed again with
 *     the same commit user and identifier; otherwise the whole write+commit
 *     is rerun. Afterwards exactly one snapshot carries (user, identifier)
 *     and the rows are exactly the new rows;
 *   - the files no snapshot or tag references (hidden temporaries, data
 *     files, manifests, manifest lists) are the only residue; orphan
 *     clean-up (or, without it, the test's own reference walk) removes them
 *     and the table reads the same afterwards;
 *   - the retry crashes too (at each of its write ops, from the state a torn
 *     first crash left), then a second retry still commits exactly once.
 *
 * Workloads: append to a partitioned table with data (files roll at a small
 * target-file-size, zstd with the Parquet compression thread), the first
 * commit to an empty table, dynamic and static INSERT OVERWRITE, a commit
 * that merges manifests (manifest.merge-min-count = 3), row tracking
 * (firstRowId ranges and nextRowId checked), ALTER TABLE + CREATE TAG.
 *
 * By default every point is crashed at except the middle appends to a data
 * file, of which every 8th (first and last of each file always): they all
 * leave the same kind of state, a partial data file. PAIMONC_CRASH_FULL=1
 * crashes at every point; PAIMONC_CRASH_VERBOSE=1 prints the points.
 * Prints per workload: points, runs, and how many runs left the old
 * snapshot / the new one before the retry.
 */
#include "test.h"
#include "paimonc/paimonc.h"
#include "paimonc/table.h"
#include "arrow/arrow_builder.h"
#include "core/mem.h"
#include "core/strs.h"
#include "core/uuid.h"
#include "io/fileio.h"
#include "io/fileio_fault.h"
#include "meta/manifest.h"
#include "meta/schema.h"
#include "meta/snapshot.h"
#include "api/handles.h"
#include "table/partition.h"
#include "write/write.h"

/* Orphan clean-up (table/orphan.h) is checked against the test's own
 * reference walk (0: the test deletes the strays itself). */
#ifndef CRASH_HAVE_ORPHAN
#define CRASH_HAVE_ORPHAN 1
#endif
#if CRASH_HAVE_ORPHAN
#include "maint/orphan.h"
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define CRASH_STATUS 86
#define USER "crash-user"
#define IDENT 7
#define CHUNK 40
#define APPEND_STEP 8

/* ------------------------------------------------------------ rows */

typedef struct batch {
	int32_t start, n;
	const char *dt;
} batch;

#define MAXB 8

/* A table state: its rows are the union of the batches. */
typedef struct rows {
	batch b[MAXB * 2];
	size_t n;
} rows;

static void pad_of(int32_t id, char *out, size_t cap)
{
	uint32_t h = (uint32_t)id * 2654435761u;
	snprintf(out, cap, "pad-%07d-%08x%08x%08x", (int)id, (unsigned)h, (unsigned)(h ^ 0x5bd1e995u) * 40503u,
		 (unsigned)(h * 69069u + 1u));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted rows joined by '\n' (malloc'd). */
static char *join_sorted(pm_strlist *l)
{
	size_t i, len = 1;
	char *out, *p;
	if (l->len)
		qsort(l->items, l->len, sizeof *l->items, cmp_str);
	for (i = 0; i < l->len; i++)
		len += strlen(l->items[i]) + 1;
	out = malloc(len);
	if (!out)
		abort();
	p = out;
	for (i = 0; i < l->len; i++) {
		size_t k = strlen(l->items[i]);
		memcpy(p, l->items[i], k);
		p += k;
		*p++ = '\n';
	}
	*p = 0;
	return out;
}

static char *rows_text(const rows *r)
{
	pm_strlist l = {0};
	size_t i;
	int32_t k;
	char line[160], pad[96];
	char *out;
	for (i = 0; i < r->n; i++)
		for (k = 0; k < r->b[i].n; k++) {
			int32_t id = r->b[i].start + k;
			pad_of(id, pad, sizeof pad);
			snprintf(line, sizeof line, "%s|%d|%s", r->b[i].dt, (int)id, pad);
			if (pm_strlist_push(&l, line))
				abort();
		}
	out = join_sorted(&l);
	pm_strlist_dispose(&l);
	return out;
}

static int64_t rows_count(const rows *r)
{
	int64_t n = 0;
	size_t i;
	for (i = 0; i < r->n; i++)
		n += r->b[i].n;
	return n;
}

static struct ArrowArray make_batch(const batch *b, struct ArrowSchema *s)
{
	pm_array_builder *ch[3], *st;
	struct ArrowArray a;
	int32_t k;
	char pad[96];
	ch[0] = pm_ab_new_fixed("i", 4);
	ch[1] = pm_ab_new_binary("u", 0);
	ch[2] = pm_ab_new_binary("u", 0);
	pm_ab_set_name(ch[0], "id", 1);
	pm_ab_set_name(ch[1], "dt", 1);
	pm_ab_set_name(ch[2], "pad", 1);
	for (k = 0; k < b->n; k++) {
		int32_t id = b->start + k;
		pm_ab_append_fixed(ch[0], &id, 1);
		pm_ab_append_binary(ch[1], b->dt, strlen(b->dt));
		pad_of(id, pad, sizeof pad);
		pm_ab_append_binary(ch[2], pad, strlen(pad));
	}
	st = pm_ab_new_struct(ch, 3);
	pm_ab_append_valid(st, b->n);
	memset(&a, 0, sizeof a);
	if (pm_ab_schema(st, s) || pm_ab_finish(st, &a))
		abort();
	pm_ab_free(st);
	return a;
}

static int valid_at(const struct ArrowArray *a, int64_t i)
{
	const uint8_t *v = a->buffers[0];
	int64_t k = a->offset + i;
	return !v || (v[k / 8] >> (k % 8)) & 1;
}

static void cell_text(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i, pm_buf *out)
{
	int64_t k = a->offset + i;
	if (!valid_at(a, i)) {
		pm_buf_puts(out, "null");
		return;
	}
	if (!strcmp(s->format, "i")) {
		pm_buf_printf(out, "%d", (int)((const int32_t *)a->buffers[1])[k]);
	} else if (!strcmp(s->format, "l")) {
		pm_buf_printf(out, "%lld", (long long)((const int64_t *)a->buffers[1])[k]);
	} else if (!strcmp(s->format, "u")) {
		const int32_t *o = a->buffers[1];
		pm_buf_append(out, (const char *)a->buffers[2] + o[k], (size_t)(o[k + 1] - o[k]));
	} else if (!strcmp(s->format, "U")) {
		const int64_t *o = a->buffers[1];
		pm_buf_append(out, (const char *)a->buffers[2] + o[k], (size_t)(o[k + 1] - o[k]));
	} else {
		pm_buf_printf(out, "?%s", s->format);
	}
}

/* Reads the table (columns dt, id, pad) into sorted canonical text; NULL
 * and a message in err on failure. *snap: the snapshot read. */
static char *read_rows(paimon_table *t, int64_t *snap, char *err, size_t errcap)
{
	static const char *const cols[] = {"dt", "id", "pad"};
	paimon_read_builder *rb = NULL;
	paimon_plan *p = NULL;
	struct ArrowArrayStream st;
	struct ArrowSchema s;
	const paimon_split **v = NULL;
	pm_strlist l = {0};
	pm_buf line = PM_BUF_INIT;
	char *out = NULL;
	size_t i, n;
	int rc;
	*err = 0;
	memset(&s, 0, sizeof s);
	if ((rc = paimon_read_builder_new(&rb, t)) || (rc = paimon_read_builder_with_projection(rb, cols, 3)) ||
	    (rc = paimon_read_builder_plan(rb, &p))) {
		snprintf(err, errcap, "plan: %s", paimon_error_message());
		goto done;
	}
	*snap = paimon_plan_snapshot_id(p);
	n = paimon_plan_split_count(p);
	v = calloc(n + 1, sizeof *v);
	for (i = 0; i < n; i++)
		v[i] = paimon_plan_split(p, i);
	if ((rc = paimon_read_builder_read(rb, v, n, &st))) {
		snprintf(err, errcap, "read: %s", paimon_error_message());
		goto done;
	}
	if ((rc = st.get_schema(&st, &s))) {
		snprintf(err, errcap, "get_schema: %d", rc);
		st.release(&st);
		goto done;
	}
	for (;;) {
		struct ArrowArray a;
		int64_t r, c;
		memset(&a, 0, sizeof a);
		if ((rc = st.get_next(&st, &a))) {
			const char *m = st.get_last_error(&st);
			snprintf(err, errcap, "get_next: %s", m ? m : "?");
			break;
		}
		if (!a.release)
			break;
		for (r = 0; r < a.length; r++) {
			pm_buf_clear(&line);
			for (c = 0; c < a.n_children; c++) {
				if (c)
					pm_buf_putc(&line, '|');
				cell_text(s.children[c], a.children[c], r, &line);
			}
			if (pm_strlist_push(&l, pm_buf_cstr(&line)))
				abort();
		}
		a.release(&a);
	}
	s.release(&s);
	st.release(&st);
	if (!*err)
		out = join_sorted(&l);
done:
	free(v);
	paimon_plan_free(p);
	paimon_read_builder_free(rb);
	pm_strlist_dispose(&l);
	pm_buf_dispose(&line);
	return out;
}

/* ------------------------------------------------------------ files */

static void rm_tree(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	char p[4096];
	if (!d) {
		unlink(path);
		return;
	}
	while ((e = readdir(d))) {
		struct stat st;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof p, "%s/%s", path, e->d_name);
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			rm_tree(p);
		else
			unlink(p);
	}
	closedir(d);
	rmdir(path);
}

static void copy_tree(const char *from, const char *to)
{
	DIR *d = opendir(from);
	struct dirent *e;
	char a[4096], b[4096], buf[65536];
	if (!d || mkdir(to, 0755))
		abort();
	while ((e = readdir(d))) {
		struct stat st;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(a, sizeof a, "%s/%s", from, e->d_name);
		snprintf(b, sizeof b, "%s/%s", to, e->d_name);
		if (lstat(a, &st))
			abort();
		if (S_ISDIR(st.st_mode)) {
			copy_tree(a, b);
		} else {
			int in = open(a, O_RDONLY), out = open(b, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			ssize_t k;
			if (in < 0 || out < 0)
				abort();
			while ((k = read(in, buf, sizeof buf)) > 0)
				if (write(out, buf, (size_t)k) != k)
					abort();
			close(in);
			close(out);
		}
	}
	closedir(d);
}

/* Regular files under root, as paths relative to it, sorted. */
static void list_files(const char *root, const char *rel, pm_strlist *out)
{
	char p[4096], r[4096];
	DIR *d;
	struct dirent *e;
	snprintf(p, sizeof p, "%s%s%s", root, *rel ? "/" : "", rel);
	if (!(d = opendir(p)))
		return;
	while ((e = readdir(d))) {
		struct stat st;
		char full[8192];
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(r, sizeof r, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
		snprintf(full, sizeof full, "%s/%s", root, r);
		if (lstat(full, &st))
			continue;
		if (S_ISDIR(st.st_mode))
			list_files(root, r, out);
		else if (pm_strlist_push(out, r))
			abort();
	}
	closedir(d);
	if (!*rel && out->len)
		qsort(out->items, out->len, sizeof *out->items, cmp_str);
}

static int has(const pm_strlist *l, const char *s)
{
	size_t i;
	for (i = 0; i < l->len; i++)
		if (!strcmp(l->items[i], s))
			return 1;
	return 0;
}

static int add_unique(pm_strlist *l, const char *s)
{
	return has(l, s) ? 0 : pm_strlist_push(l, s);
}

static int starts(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

static int ends(const char *s, const char *x)
{
	size_t a = strlen(s), b = strlen(x);
	return a >= b && !strcmp(s + a - b, x);
}

/* ------------------------------------------------------------ table access */

static paimon_catalog *open_catalog(const char *wh)
{
	paimon_options *o = NULL;
	paimon_catalog *c = NULL;
	if (paimon_options_new(&o) || paimon_options_set(o, "warehouse", wh) || paimon_catalog_open(&c, o))
		c = NULL;
	paimon_options_free(o);
	return c;
}

static paimon_table *open_table(const char *wh)
{
	paimon_catalog *c = open_catalog(wh);
	paimon_table *t = NULL;
	if (!c)
		return NULL;
	if (paimon_catalog_get_table(c, "db.t", &t))
		t = NULL;
	paimon_catalog_free(c);
	return t;
}

/*
 * Walks every snapshot and tag: checks that everything they reference
 * exists and reads, and collects the referenced paths (relative to the
 * table directory). Returns the number of problems (described in err).
 */
static int walk_refs(paimon_table *t, pm_strlist *refs, char *err, size_t errcap)
{
	pm_fileio *io = t->io;
	const char *tp = t->path;
	int64_t *ids = NULL;
	size_t nids = 0, i, j, k, ntags;
	pm_strlist tags = {0};
	pm_partition_info pi;
	pm_buf dir = PM_BUF_INIT;
	int bad = 0, has_pi = 0;
	char rel[4096];
	size_t tplen = strlen(tp);

	*err = 0;
#define PROBLEM(...)                                                     \
	do {                                                             \
		if (!bad++)                                              \
			snprintf(err, errcap, __VA_ARGS__);              \
	} while (0)
	if (pm_partition_info_init(&pi, t->schema->schema)) {
		PROBLEM("partition info: %s", paimon_error_message());
		return bad;
	}
	has_pi = 1;
	if (pm_snapshot_list_ids(io, tp, &ids, &nids))
		PROBLEM("list snapshots: %s", paimon_error_message());
	if (pm_tag_list(io, tp, &tags))
		PROBLEM("list tags: %s", paimon_error_message());
	ntags = tags.len;
	for (i = 0; i < nids + ntags; i++) {
		pm_snapshot *s = NULL;
		const char *lists[3];
		int rc = i < nids ? pm_snapshot_load(io, tp, ids[i], &s) : pm_tag_load(io, tp, tags.items[i - nids], &s);
		if (rc) {
			PROBLEM("load snapshot/tag #%zu: %s", i, paimon_error_message());
			continue;
		}
		lists[0] = s->base_manifest_list;
		lists[1] = s->delta_manifest_list;
		lists[2] = s->changelog_manifest_list;
		if (s->index_manifest) {
			snprintf(rel, sizeof rel, "manifest/%s", s->index_manifest);
			add_unique(refs, rel);
		}
		for (j = 0; j < 3; j++) {
			pm_manifest_file_meta_list ml = {0};
			if (!lists[j])
				continue;
			snprintf(rel, sizeof rel, "manifest/%s", lists[j]);
			add_unique(refs, rel);
			if (pm_manifest_list_read(io, tp, lists[j], &ml)) {
				PROBLEM("snapshot %lld: manifest list %s: %s", (long long)s->id, lists[j],
					paimon_error_message());
				continue;
			}
			for (k = 0; k < ml.len; k++) {
				pm_manifest_entry_list el = {0};
				size_t e;
				snprintf(rel, sizeof rel, "manifest/%s", ml.items[k].file_name);
				add_unique(refs, rel);
				if (pm_manifest_read(io, tp, ml.items[k].file_name, &el)) {
					PROBLEM("snapshot %lld: manifest %s: %s", (long long)s->id, ml.items[k].file_name,
						paimon_error_message());
					continue;
				}
				for (e = 0; e < el.len; e++) {
					const pm_manifest_entry *en = &el.items[e];
					size_t x;
					int ex = 0;
					if (pm_table_data_dir(tp, NULL, &pi, en->partition.p, en->partition.n, en->bucket,
							      &dir)) {
						PROBLEM("data dir: %s", paimon_error_message());
						continue;
					}
					if (strncmp(pm_buf_cstr(&dir), tp, tplen) || pm_buf_cstr(&dir)[tplen] != '/') {
						PROBLEM("data dir %s outside the table", pm_buf_cstr(&dir));
						continue;
					}
					snprintf(rel, sizeof rel, "%s/%s", pm_buf_cstr(&dir) + tplen + 1, en->file.file_name);
					add_unique(refs, rel);
					for (x = 0; x < en->file.extra_files.len; x++) {
						snprintf(rel, sizeof rel, "%s/%s", pm_buf_cstr(&dir) + tplen + 1,
							 en->file.extra_files.items[x]);
						add_unique(refs, rel);
					}
					/* live data files must exist (deleted ones of older snapshots too:
					 * nothing here expires snapshots) */
					pm_buf_putc(&dir, '/');
					pm_buf_puts(&dir, en->file.file_name);
					if (pm_fileio_exists(io, pm_buf_cstr(&dir), &ex) || !ex)
						PROBLEM("snapshot %lld: data file %s missing", (long long)s->id,
							pm_buf_cstr(&dir));
				}
				pm_manifest_entry_list_dispose(&el);
			}
			pm_manifest_file_meta_list_dispose(&ml);
		}
		pm_snapshot_free(s);
	}
#undef PROBLEM
	if (has_pi)
		pm_partition_info_dispose(&pi);
	pm_buf_dispose(&dir);
	pm_strlist_dispose(&tags);
	pm_free(ids);
	return bad;
}

static int protected_file(const char *rel)
{
	const char *base = strrchr(rel, '/');
	base = base ? base + 1 : rel;
	if (base[0] == '.')
		return 0; /* hidden temporaries never are */
	return (starts(rel, "schema/schema-") || starts(rel, "snapshot/snapshot-") || !strcmp(rel, "snapshot/LATEST") ||
		!strcmp(rel, "snapshot/EARLIEST") || starts(rel, "tag/tag-"));
}

/* The kinds of residue a crash may leave. */
static int stray_kind_ok(const char *rel)
{
	const char *base = strrchr(rel, '/');
	base = base ? base + 1 : rel;
	if (base[0] == '.' && ends(base, ".tmp"))
		return 1;
	if (starts(rel, "manifest/manifest-"))
		return 1;
	if (starts(base, "data-") && ends(base, ".parquet") && strstr(rel, "/bucket-"))
		return 1;
	return 0;
}

/* Stray files (relative paths, sorted) of the table; problems counted. */
static int find_strays(paimon_table *t, pm_strlist *strays, char *err, size_t errcap)
{
	pm_strlist refs = {0}, files = {0};
	size_t i;
	int bad = walk_refs(t, &refs, err, errcap);
	list_files(t->path, "", &files);
	for (i = 0; i < files.len; i++)
		if (!protected_file(files.items[i]) && !has(&refs, files.items[i]))
			if (pm_strlist_push(strays, files.items[i]))
				abort();
	pm_strlist_dispose(&refs);
	pm_strlist_dispose(&files);
	return bad;
}

/* ------------------------------------------------------------ workloads */

typedef enum { W_COMMIT, W_META } wkind;

typedef struct workload {
	const char *name;
	wkind kind;
	const char *const *table_opts;   /* key, value, ..., NULL */
	batch setup[MAXB];               /* setup commits: batches with the same non-zero group commit together */
	int setup_group[MAXB];
	size_t nsetup;
	batch add[MAXB];                 /* the workload's rows (one write) */
	size_t nadd;
	int overwrite;                   /* INSERT OVERWRITE: 1 dynamic, 2 static (whole table) */
	int row_tracking;
	int expect_merge;                /* the dry run must write a merged manifest */
	int min_files;                   /* data files the workload must write (rolling) */
	int double_crash;                /* crash the retries too (always with PAIMONC_CRASH_FULL) */
} workload;

static void expected_states(const workload *w, rows *old_r, rows *new_r)
{
	size_t i, j;
	memset(old_r, 0, sizeof *old_r);
	memset(new_r, 0, sizeof *new_r);
	for (i = 0; i < w->nsetup; i++)
		old_r->b[old_r->n++] = w->setup[i];
	if (w->kind == W_META) {
		*new_r = *old_r;
		return;
	}
	for (i = 0; i < old_r->n; i++) {
		int replaced = 0;
		if (w->overwrite == 2)
			replaced = 1; /* static overwrite of the whole table */
		else if (w->overwrite)
			for (j = 0; j < w->nadd; j++)
				if (!strcmp(w->add[j].dt, old_r->b[i].dt))
					replaced = 1;
		if (!replaced)
			new_r->b[new_r->n++] = old_r->b[i];
	}
	for (j = 0; j < w->nadd; j++)
		new_r->b[new_r->n++] = w->add[j];
}

static int write_batches(paimon_table *t, const batch *b, size_t n, paimon_commit_message **msg)
{
	paimon_table_write *w = NULL;
	size_t i;
	int rc;
	*msg = NULL;
	if ((rc = paimon_table_write_new(&w, t, NULL)))
		return rc;
	/* chunks of CHUNK rows: the writer checks the file size after each, so
	 * files roll at the small target-file-size */
	for (i = 0; i < n && !rc; i++) {
		int32_t k;
		for (k = 0; k < b[i].n && !rc; k += CHUNK) {
			batch part = {b[i].start + k, b[i].n - k < CHUNK ? b[i].n - k : CHUNK, b[i].dt};
			struct ArrowSchema s;
			struct ArrowArray a = make_batch(&part, &s);
			rc = paimon_table_write_arrow(w, &a, &s);
			a.release(&a);
			s.release(&s);
		}
	}
	if (!rc)
		rc = paimon_table_write_prepare_commit(w, msg);
	paimon_table_write_free(w);
	return rc;
}

static int commit_msg(paimon_table *t, const char *user, int overwrite, paimon_commit_message *m, int64_t ident,
		      int64_t *snap)
{
	paimon_options *o = NULL;
	paimon_table_commit *c = NULL;
	int rc;
	if ((rc = paimon_options_new(&o)) || (rc = paimon_options_set(o, "commit.user", user)) ||
	    (rc = paimon_table_commit_new(&c, t, o)))
		goto done;
	if (overwrite && (rc = paimon_table_commit_set_overwrite(c, NULL)))
		goto done;
	rc = paimon_table_commit_apply(c, &m, 1, ident, snap);
done:
	paimon_table_commit_free(c);
	paimon_options_free(o);
	return rc;
}

/* The side file: "PMSIDE <len>\n" + message bytes + "\nEND\n", written to a
 * temporary, fsync'd, renamed into place, directory fsync'd. */
static int side_write(const char *side, const paimon_commit_message *m)
{
	void *bytes = NULL;
	size_t len = 0;
	char tmp[4200], *slash, dir[4200];
	FILE *f;
	int fd, rc;
	if ((rc = paimon_commit_message_serialize(m, &bytes, &len)))
		return rc;
	snprintf(tmp, sizeof tmp, "%s.part", side);
	if (!(f = fopen(tmp, "wb"))) {
		paimon_free(bytes);
		return -1;
	}
	fprintf(f, "PMSIDE %zu\n", len);
	fwrite(bytes, 1, len, f);
	fputs("\nEND\n", f);
	paimon_free(bytes);
	if (fflush(f) || fsync(fileno(f))) {
		fclose(f);
		return -1;
	}
	fclose(f);
	if (rename(tmp, side))
		return -1;
	snprintf(dir, sizeof dir, "%s", side);
	if ((slash = strrchr(dir, '/')))
		*slash = 0;
	if ((fd = open(dir, O_RDONLY)) >= 0) {
		fsync(fd);
		close(fd);
	}
	return 0;
}

/* The message from a complete side file, NULL if absent or incomplete. */
static paimon_commit_message *side_read(const char *side)
{
	FILE *f = fopen(side, "rb");
	size_t len = 0;
	char *bytes, tail[6] = {0};
	paimon_commit_message *m = NULL;
	if (!f)
		return NULL;
	if (fscanf(f, "PMSIDE %zu", &len) != 1 || fgetc(f) != '\n' || len > (1u << 26)) {
		fclose(f);
		return NULL;
	}
	bytes = malloc(len + 1);
	if (bytes && fread(bytes, 1, len, f) == len && fread(tail, 1, 5, f) == 5 && !memcmp(tail, "\nEND\n", 5))
		if (paimon_commit_message_deserialize(&m, bytes, len))
			m = NULL;
	free(bytes);
	fclose(f);
	return m;
}

static void make_changes(size_t *n, paimon_schema_change **v)
{
	*n = 2;
	if (paimon_schema_change_add_column(&v[0], "extra", "STRING", NULL, PAIMON_MOVE_NONE, NULL) ||
	    paimon_schema_change_set_option(&v[1], "crash.test", "yes"))
		abort();
}

/* The workload as the child runs it (and the parent for dry runs and
 * reruns): 0 when it completed. */
static int run_workload(const workload *w, const char *wh, const char *side)
{
	paimon_catalog *c = NULL;
	paimon_table *t = NULL;
	paimon_commit_message *m = NULL;
	int64_t snap = -1;
	int rc = -1;
	if (!(c = open_catalog(wh)) || paimon_catalog_get_table(c, "db.t", &t))
		goto done;
	if (w->kind == W_META) {
		paimon_schema_change *ch[2];
		size_t n, i;
		make_changes(&n, ch);
		rc = paimon_catalog_alter_table(c, "db.t", ch, n, 0);
		for (i = 0; i < n; i++)
			paimon_schema_change_free(ch[i]);
		if (!rc)
			rc = paimon_table_create_tag(t, "t1", 0, 0);
		goto done;
	}
	if ((rc = write_batches(t, w->add, w->nadd, &m)))
		goto done;
	if (side && (rc = side_write(side, m)))
		goto done;
	rc = commit_msg(t, USER, w->overwrite, m, IDENT, &snap);
done:
	paimon_commit_message_free(m);
	paimon_table_free(t);
	paimon_catalog_free(c);
	return rc;
}

static const char *const opts_zstd[] = {"target-file-size", "2 kb", NULL};
static const char *const opts_base[] = {"target-file-size", "4 kb", "file.compression", "none", NULL};
static const char *const opts_static[] = {"target-file-size", "4 kb", "file.compression", "none",
					   "dynamic-partition-overwrite", "false", NULL};
static const char *const opts_merge[] = {"target-file-size", "4 kb", "file.compression", "none",
					  "manifest.merge-min-count", "3", NULL};
static const char *const opts_rt[] = {"target-file-size", "4 kb", "file.compression", "none",
				       "row-tracking.enabled", "true", NULL};

/* Builds the table with its setup commits at wh. */
static void setup_table(const workload *w, const char *wh)
{
	paimon_catalog *c = open_catalog(wh);
	paimon_schema_spec *s = NULL;
	paimon_table *t = NULL;
	const char *part = "dt";
	const char *const *kv;
	size_t i = 0;
	int64_t ident = 1;
	CHECK(c != NULL);
	if (!c)
		return;
	CHECK_OK(paimon_catalog_create_database(c, "db", 1));
	CHECK_OK(paimon_schema_spec_new(&s));
	CHECK_OK(paimon_schema_spec_add_columns(s, "id INT, dt STRING, pad STRING"));
	CHECK_OK(paimon_schema_spec_set_partition_keys(s, &part, 1));
	for (kv = w->table_opts; kv && kv[0]; kv += 2)
		CHECK_OK(paimon_schema_spec_set_option(s, kv[0], kv[1]));
	CHECK_OK(paimon_catalog_create_table(c, "db.t", s, 0));
	paimon_schema_spec_free(s);
	CHECK_OK(paimon_catalog_get_table(c, "db.t", &t));
	while (t && i < w->nsetup) {
		size_t j = i + 1;
		paimon_commit_message *m = NULL;
		int64_t snap = -1;
		while (j < w->nsetup && w->setup_group[j] && w->setup_group[j] == w->setup_group[i])
			j++;
		CHECK_OK(write_batches(t, &w->setup[i], j - i, &m));
		CHECK_OK(commit_msg(t, "setup", 0, m, ident++, &snap));
		CHECK(snap > 0);
		paimon_commit_message_free(m);
		i = j;
	}
	paimon_table_free(t);
	paimon_catalog_free(c);
}

/* ------------------------------------------------------------ checks */

typedef struct ctx {
	const workload *w;
	char *old_text, *new_text;
	int64_t old_snap;
	int64_t old_rows_total, new_rows_total; /* rows ever added (row tracking) */
	int64_t old_count, new_count;           /* rows live */
	char where[200];
	/* counters */
	int runs, saw_old, saw_mid, saw_new, retried_msg, reran, strays_total, strays_meta, orphans_found;
	int double_runs, full;
	pm_fault_action mode;
} ctx;

#define FAILF(cx, ...)                                                                             \
	do {                                                                                     \
		test_failures++;                                                                 \
		fprintf(stderr, "%s:%d: [%s] %s: ", __FILE__, __LINE__, test_current, (cx)->where); \
		fprintf(stderr, __VA_ARGS__);                                                    \
		fputc('\n', stderr);                                                             \
	} while (0)

/* Row tracking: the live files of the latest snapshot have disjoint row id
 * ranges inside [0, next_row_id) and next_row_id counts every row added. */
static void check_row_tracking(ctx *cx, paimon_table *t, int64_t rows_ever)
{
	int64_t id;
	int found = 0;
	pm_snapshot *s = NULL;
	pm_manifest_entry_list l = {0};
	size_t i, j;
	if (pm_snapshot_latest_id(t->io, t->path, &id, &found) || !found || pm_snapshot_load(t->io, t->path, id, &s)) {
		FAILF(cx, "row tracking: no latest snapshot: %s", paimon_error_message());
		return;
	}
	if (!s->has_next_row_id || s->next_row_id != rows_ever)
		FAILF(cx, "row tracking: snapshot %lld nextRowId %lld, want %lld", (long long)id,
		      (long long)s->next_row_id, (long long)rows_ever);
	if (pm_manifest_read_all(t->io, t->path, s->base_manifest_list, s->delta_manifest_list, NULL, &l))
		FAILF(cx, "row tracking: %s", paimon_error_message());
	for (i = 0; i < l.len; i++) {
		const pm_data_file_meta *a = &l.items[i].file;
		if (!a->has_first_row_id || a->first_row_id < 0 || a->first_row_id + a->row_count > s->next_row_id) {
			FAILF(cx, "row tracking: file %s has no valid firstRowId", a->file_name);
			continue;
		}
		for (j = 0; j < i; j++) {
			const pm_data_file_meta *b = &l.items[j].file;
			if (b->has_first_row_id && a->first_row_id < b->first_row_id + b->row_count &&
			    b->first_row_id < a->first_row_id + a->row_count)
				FAILF(cx, "row tracking: files %s and %s overlap in row ids", a->file_name, b->file_name);
		}
	}
	pm_manifest_entry_list_dispose(&l);
	pm_snapshot_free(s);
}

/* Snapshots carrying (USER, IDENT). */
static int count_commits(paimon_table *t)
{
	int64_t *ids = NULL;
	size_t n = 0, i;
	int k = 0;
	if (paimon_table_snapshot_ids(t, &ids, &n))
		return -1;
	for (i = 0; i < n; i++) {
		paimon_snapshot *s = NULL;
		if (paimon_table_snapshot(t, ids[i], &s))
			return -1;
		if (paimon_snapshot_commit_user(s) && !strcmp(paimon_snapshot_commit_user(s), USER) &&
		    paimon_snapshot_commit_identifier(s) == IDENT)
			k++;
		paimon_snapshot_free(s);
	}
	paimon_free(ids);
	return k;
}

/* totalRecordCount of the latest snapshot (0: none, -1: error). */
static int64_t latest_total(paimon_table *t)
{
	paimon_snapshot *s = NULL;
	int64_t n;
	if (paimon_table_latest_snapshot(t, &s))
		return -1;
	if (!s)
		return 0;
	n = paimon_snapshot_total_record_count(s);
	paimon_snapshot_free(s);
	return n;
}

static int64_t latest_id(paimon_table *t)
{
	paimon_snapshot *s = NULL;
	int64_t id;
	if (paimon_table_latest_snapshot(t, &s))
		return -2;
	id = s ? paimon_snapshot_id(s) : 0;
	paimon_snapshot_free(s);
	return id;
}

static int schema_count(paimon_table *t)
{
	int64_t *ids = NULL;
	size_t n = 0;
	if (paimon_table_schema_ids(t, &ids, &n))
		return -1;
	paimon_free(ids);
	return (int)n;
}

static int tag_state(paimon_table *t, int64_t want_snap)
{
	char **names = NULL;
	size_t n = 0;
	int r = 0;
	if (paimon_table_list_tags(t, &names, &n))
		return -1;
	if (n == 1 && !strcmp(names[0], "t1")) {
		paimon_snapshot *s = NULL;
		r = paimon_table_tag_snapshot(t, "t1", &s) || paimon_snapshot_id(s) != want_snap ? -1 : 1;
		paimon_snapshot_free(s);
	} else if (n != 0) {
		r = -1;
	}
	paimon_string_list_free(names, n);
	return r;
}

/* Reads the rows and compares them with want (text). */
static void expect_rows(ctx *cx, paimon_table *t, const char *want, const char *what)
{
	char err[1024];
	int64_t snap = -1;
	char *got = read_rows(t, &snap, err, sizeof err);
	if (!got)
		FAILF(cx, "%s: reading failed: %s", what, err);
	else if (strcmp(got, want))
		FAILF(cx, "%s: rows differ from the expected ones (got %zu bytes, want %zu)", what, strlen(got),
		      strlen(want));
	free(got);
}

/* The state a crash left: the table opens, the latest snapshot is the old
 * one or old+1, every snapshot is complete, the rows are exactly the old or
 * the new ones. count: add to the outcome counters. Returns the latest id. */
static int64_t check_crash_state(ctx *cx, const char *wh, int count)
{
	const workload *w = cx->w;
	paimon_table *t = open_table(wh);
	pm_strlist strays = {0};
	char err[1024], *got;
	int64_t lat, snap = -1;
	int bad;

	if (!t) {
		FAILF(cx, "table does not open: %s", paimon_error_message());
		return -1;
	}
	/* 1. latest snapshot: old or old+1, all snapshots complete */
	lat = latest_id(t);
	if (w->kind == W_META ? lat != cx->old_snap : (lat != cx->old_snap && lat != cx->old_snap + 1))
		FAILF(cx, "latest snapshot %lld (old %lld)", (long long)lat, (long long)cx->old_snap);
	if ((bad = find_strays(t, &strays, err, sizeof err)))
		FAILF(cx, "%d problem(s) with referenced files: %s", bad, err);
	/* 2. rows: exactly old or exactly new */
	got = read_rows(t, &snap, err, sizeof err);
	if (!got) {
		FAILF(cx, "reading failed: %s", err);
	} else if ((snap < 0 ? 0 : snap) != lat) {
		FAILF(cx, "read snapshot %lld, latest %lld", (long long)snap, (long long)lat);
	} else if (latest_total(t) != (lat == cx->old_snap ? cx->old_count : cx->new_count)) {
		FAILF(cx, "snapshot %lld: totalRecordCount %lld", (long long)lat, (long long)latest_total(t));
	} else if (lat == cx->old_snap) {
		if (w->kind == W_COMMIT)
			cx->saw_old += count;
		if (strcmp(got, cx->old_text))
			FAILF(cx, "old snapshot but rows differ from the old rows");
	} else {
		cx->saw_new += count;
		if (strcmp(got, cx->new_text))
			FAILF(cx, "new snapshot but rows differ from the new rows");
	}
	free(got);
	if (w->kind == W_META) {
		int sc = schema_count(t), tg = tag_state(t, cx->old_snap);
		if (sc != 1 && sc != 2)
			FAILF(cx, "%d schemas", sc);
		if (sc == 2) {
			paimon_schema *s = NULL;
			if (paimon_table_load_schema(t, 1, &s) || paimon_schema_field_count(s) != 4 ||
			    !paimon_schema_option(s, "crash.test"))
				FAILF(cx, "schema 1 incomplete: %s", paimon_error_message());
			paimon_schema_free(s);
		}
		if (tg < 0 || (tg == 1 && sc != 2))
			FAILF(cx, "tag state %d with %d schemas", tg, sc);
		if (sc == 1)
			cx->saw_old += count;
		else if (tg == 1)
			cx->saw_new += count;
		else
			cx->saw_mid += count;
	}
	if (w->row_tracking)
		check_row_tracking(cx, t, lat == cx->old_snap ? cx->old_rows_total : cx->new_rows_total);
	paimon_table_free(t);

	pm_strlist_dispose(&strays);
	return lat;
}

/* After the retry: committed exactly once, the new rows. */
static void check_retried(ctx *cx, paimon_table *t)
{
	const workload *w = cx->w;
	if (w->kind == W_META) {
		if (schema_count(t) != 2 || tag_state(t, cx->old_snap) != 1)
			FAILF(cx, "after retry: %d schemas, tag state %d", schema_count(t), tag_state(t, cx->old_snap));
	} else {
		int k = count_commits(t);
		if (k != 1)
			FAILF(cx, "after retry: %d snapshots carry (%s, %d)", k, USER, IDENT);
		if (latest_id(t) != cx->old_snap + 1)
			FAILF(cx, "after retry: latest snapshot %lld, want %lld", (long long)latest_id(t),
			      (long long)cx->old_snap + 1);
	}
	expect_rows(cx, t, cx->new_text, "after retry");
	if (latest_total(t) != cx->new_count)
		FAILF(cx, "after retry: totalRecordCount %lld, want %lld", (long long)latest_total(t),
		      (long long)cx->new_count);
	if (w->row_tracking)
		check_row_tracking(cx, t, cx->new_rows_total);

}

/* Commits the side file's message again (same user and identifier). */
static int retry_from_side(ctx *cx, const char *wh, const char *side)
{
	paimon_commit_message *m = side_read(side);
	paimon_table *t;
	int64_t snap = -1;
	int rc = -1;
	if (!m)
		return -1;
	if ((t = open_table(wh)) != NULL)
		rc = commit_msg(t, USER, cx->w->overwrite, m, IDENT, &snap);
	paimon_table_free(t);
	paimon_commit_message_free(m);
	return rc;
}

/*
 * The retry crashes too: for every write op j of the retry (and the crash
 * modes picked), from the state the first crash left: crash the retry at j,
 * check the state, retry again without faults, check it committed once.
 * Ends when the retry has no op j any more (the child then exits 0).
 */
static void double_crash(ctx *cx, const char *wh, const char *side)
{
	static const pm_fault_action modes[3] = {PM_FAULT_CRASH_BEFORE, PM_FAULT_CRASH_AFTER, PM_FAULT_CRASH_TORN};
	char mid[4300], where[100];
	uint64_t j;
	int m, finished = 0;
	snprintf(mid, sizeof mid, "%s.mid", wh);
	snprintf(where, sizeof where, "%.99s", cx->where);
	rm_tree(mid);
	copy_tree(wh, mid);
	for (j = 1; !finished && j < 1000; j++) {
		for (m = 0; m < 3 && !finished; m++) {
			pm_fault_plan plan;
			pid_t pid;
			int status = 0;
			paimon_table *t;
			if (!cx->full && m != (int)(j % 3))
				continue; /* default: one mode per op, rotating */
			memset(&plan, 0, sizeof plan);
			plan.at = j;
			plan.ops_mask = PM_FOP_WRITES;
			plan.action = modes[m];
			plan.crash_status = CRASH_STATUS;
			snprintf(cx->where, sizeof cx->where, "%s, retry crash %s op %llu", where,
				 m == 0 ? "before" : m == 1 ? "after" : "torn", (unsigned long long)j);
			rm_tree(wh);
			copy_tree(mid, wh);
			fflush(NULL);
			pid = fork();
			if (pid < 0) {
				FAILF(cx, "fork: %s", strerror(errno));
				finished = 1;
				break;
			}
			if (pid == 0) {
				pm_fault_ctl *c = NULL;
				if (pm_fault_ctl_new(&plan, &c))
					_exit(2);
				pm_fault_ctl_set_logging(c, 0);
				pm_fault_install(c);
				_exit(retry_from_side(cx, wh, side) ? 1 : 0);
			}
			if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
				FAILF(cx, "retry child: status 0x%x", status);
				finished = 1;
				break;
			}
			if (WEXITSTATUS(status) == 0) { /* no op j: the retry ran to the end */
				finished = 1;
				break;
			}
			if (WEXITSTATUS(status) != CRASH_STATUS) {
				FAILF(cx, "retry child failed (status %d)", WEXITSTATUS(status));
				continue;
			}
			cx->double_runs++;
			check_crash_state(cx, wh, 0);
			if (retry_from_side(cx, wh, side))
				FAILF(cx, "second retry: %s", paimon_error_message());
			if ((t = open_table(wh)) == NULL) {
				FAILF(cx, "table does not open after the second retry: %s", paimon_error_message());
				continue;
			}
			check_retried(cx, t);
			paimon_table_free(t);
		}
	}
	snprintf(cx->where, sizeof cx->where, "%s", where);
	rm_tree(wh);
	copy_tree(mid, wh);
	rm_tree(mid);
}

/* After the crash (child gone): state, retry, strays. */
static void verify_after_crash(ctx *cx, const char *wh, const char *side)
{
	const workload *w = cx->w;
	paimon_table *t;
	paimon_commit_message *m = NULL;
	pm_strlist strays = {0};
	char err[1024];
	int64_t lat, snap = -1;
	size_t i;
	int bad;

	lat = check_crash_state(cx, wh, 1);
	if (lat < 0)
		return;

	/* 3. retry */
	if (w->kind == W_META) {
		paimon_catalog *c = open_catalog(wh);
		t = open_table(wh);
		if (!c || !t) {
			FAILF(cx, "reopen: %s", paimon_error_message());
		} else {
			if (schema_count(t) == 1) {
				paimon_schema_change *ch[2];
				size_t n;
				make_changes(&n, ch);
				if (paimon_catalog_alter_table(c, "db.t", ch, n, 0))
					FAILF(cx, "alter retry: %s", paimon_error_message());
				for (i = 0; i < n; i++)
					paimon_schema_change_free(ch[i]);
			}
			if (paimon_table_create_tag(t, "t1", 0, 1))
				FAILF(cx, "tag retry: %s", paimon_error_message());
		}
		paimon_table_free(t);
		paimon_catalog_free(c);
	} else if ((m = side_read(side)) != NULL) {
		cx->retried_msg++;
		if (cx->w->kind == W_COMMIT && (cx->full || (cx->w->double_crash && cx->mode == PM_FAULT_CRASH_TORN)))
			double_crash(cx, wh, side);
		t = open_table(wh);
		if (!t || commit_msg(t, USER, w->overwrite, m, IDENT, &snap))
			FAILF(cx, "retry commit: %s", paimon_error_message());
		paimon_table_free(t);
		paimon_commit_message_free(m);
	} else {
		cx->reran++;
		if (lat != cx->old_snap)
			FAILF(cx, "a snapshot landed before the message existed");
		if (run_workload(w, wh, NULL))
			FAILF(cx, "rerun: %s", paimon_error_message());
	}

	/* 4. after the retry: committed exactly once, new rows */
	t = open_table(wh);
	if (!t) {
		FAILF(cx, "table does not open after retry: %s", paimon_error_message());
		return;
	}
	check_retried(cx, t);

	/* 5. strays: only unreferenced files of the kinds a crash leaves */
	pm_strlist_dispose(&strays);
	if ((bad = find_strays(t, &strays, err, sizeof err)))
		FAILF(cx, "after retry: %d problem(s) with referenced files: %s", bad, err);
	for (i = 0; i < strays.len; i++)
		if (!stray_kind_ok(strays.items[i]))
			FAILF(cx, "unexpected residue %s", strays.items[i]);
	cx->strays_total += (int)strays.len;
	/* Strays under schema/ and tag/ are the hidden temporaries of a torn
	 * schema or tag publish: orphan clean-up must find them like the rest. */
	for (i = 0; i < strays.len; i++)
		if (starts(strays.items[i], "schema/") || starts(strays.items[i], "tag/"))
			cx->strays_meta++;
#if CRASH_HAVE_ORPHAN
	{
		pm_orphan_list ol;
		int64_t later = pm_now_millis() + 86400000LL;
		size_t plen = strlen(t->path);
		memset(&ol, 0, sizeof ol);
		if (pm_table_find_orphans(t->io, t->path, later, &ol)) {
			FAILF(cx, "find_orphans: %s", paimon_error_message());
		} else {
			int same = ol.paths.len == strays.len;
			for (i = 0; same && i < ol.paths.len; i++)
				same = !strncmp(ol.paths.items[i], t->path, plen) && ol.paths.items[i][plen] == '/' &&
				       has(&strays, ol.paths.items[i] + plen + 1);
			if (!same) {
				FAILF(cx, "find_orphans lists %zu file(s), the strays are %zu", ol.paths.len, strays.len);
				for (i = 0; i < ol.paths.len; i++)
					fprintf(stderr, "  orphan %s\n", ol.paths.items[i]);
				for (i = 0; i < strays.len; i++)
					fprintf(stderr, "  stray  %s\n", strays.items[i]);
			}
			cx->orphans_found += (int)ol.paths.len;
		}
		pm_orphan_list_dispose(&ol);
		if (pm_table_remove_orphans(t->io, t->path, later, 0, NULL))
			FAILF(cx, "remove_orphans: %s", paimon_error_message());
	}
#else
	for (i = 0; i < strays.len; i++) {
		char p[8192];
		snprintf(p, sizeof p, "%s/%s", t->path, strays.items[i]);
		if (unlink(p))
			FAILF(cx, "cannot remove %s", p);
	}
#endif
	pm_strlist_dispose(&strays);
	paimon_table_free(t);

	/* 6. after the clean-up: reads the same, nothing stray left */
	t = open_table(wh);
	if (!t) {
		FAILF(cx, "table does not open after clean-up: %s", paimon_error_message());
		return;
	}
	expect_rows(cx, t, cx->new_text, "after clean-up");
	if ((bad = find_strays(t, &strays, err, sizeof err)))
		FAILF(cx, "after clean-up: %d problem(s): %s", bad, err);
	if (strays.len)
		FAILF(cx, "after clean-up: %zu stray file(s) left, e.g. %s", strays.len, strays.items[0]);
	pm_strlist_dispose(&strays);
	paimon_table_free(t);
}

/* The runs only kill processes (no power loss): a RAM file system keeps
 * the fsyncs cheap. PAIMONC_CRASH_DIR or TMPDIR override it. */
static char *crash_tmpdir(void)
{
	const char *d = getenv("PAIMONC_CRASH_DIR");
	struct stat st;
	char *p;
	if (!(d && *d) && !getenv("TMPDIR") && stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) &&
	    access("/dev/shm", W_OK) == 0)
		d = "/dev/shm";
	if (!(d && *d))
		return test_tmpdir();
	if (!(p = malloc(4096)))
		abort();
	snprintf(p, 4096, "%s/paimonc-crash-XXXXXX", d);
	if (!mkdtemp(p))
		abort();
	return p;
}

static int env_int(const char *name, int dflt)
{
	const char *v = getenv(name);
	return v && *v ? atoi(v) : dflt;
}

static void run_one(const workload *w)
{
	static const pm_fault_action modes[3] = {PM_FAULT_CRASH_BEFORE, PM_FAULT_CRASH_AFTER, PM_FAULT_CRASH_TORN};
	static const char *const mode_names[3] = {"before", "after", "torn"};
	char *base = crash_tmpdir();
	char tpl[4200], wh[4200], side[4200];
	rows old_r, new_r;
	ctx cx;
	pm_fault_ctl *ctl = NULL;
	const pm_fault_event *ev;
	size_t nev, i;
	uint64_t npoints;
	int full = env_int("PAIMONC_CRASH_FULL", 0), verbose = env_int("PAIMONC_CRASH_VERBOSE", 0);
	unsigned char *pick = NULL; /* pick[at]: crash at this point */
	uint64_t npicked = 0;
	int ops_by_kind[PM_FOP_COUNT_] = {0}, manifests_written = 0, m;
	paimon_table *t;

	memset(&cx, 0, sizeof cx);
	cx.w = w;
	cx.full = full;
	snprintf(cx.where, sizeof cx.where, "%s setup", w->name);
	snprintf(tpl, sizeof tpl, "%s/template", base);
	snprintf(wh, sizeof wh, "%s/run", base);
	snprintf(side, sizeof side, "%s/side.msg", base);
	expected_states(w, &old_r, &new_r);
	cx.old_text = rows_text(&old_r);
	cx.new_text = rows_text(&new_r);
	/* rows ever added (the row-tracking workload overwrites nothing) */
	cx.old_rows_total = rows_count(&old_r);
	cx.new_rows_total = rows_count(&new_r);
	cx.old_count = rows_count(&old_r);
	cx.new_count = rows_count(&new_r);

	setup_table(w, tpl);
	t = open_table(tpl);
	CHECK(t != NULL);
	if (!t)
		goto out;
	cx.old_snap = latest_id(t);
	expect_rows(&cx, t, cx.old_text, "setup");
	paimon_table_free(t);

	/* dry run: the injection points */
	copy_tree(tpl, wh);
	CHECK_OK(pm_fault_ctl_new(NULL, &ctl));
	{
		pm_fault_plan plan;
		memset(&plan, 0, sizeof plan);
		plan.ops_mask = PM_FOP_WRITES;
		CHECK_OK(pm_fault_ctl_reset(ctl, &plan));
	}
	pm_fault_install(ctl);
	CHECK_OK(run_workload(w, wh, side));
	pm_fault_install(NULL);
	npoints = pm_fault_ctl_count(ctl);
	nev = pm_fault_ctl_events(ctl, &ev);
	/* Every point, or (default) every point except the middle appends to a
	 * data file: of those only every APPEND_STEP-th (the first and last
	 * append of each stream are always in). */
	pick = calloc(npoints + 2, 1);
	for (i = 0; i < nev; i++) {
		size_t j, before = 0, after = 0;
		if (!ev[i].index || ev[i].index > npoints)
			continue;
		if (ev[i].op == PM_FOP_APPEND && !full) {
			for (j = 0; j < nev; j++)
				if (j != i && ev[j].op == PM_FOP_APPEND && !strcmp(ev[j].path, ev[i].path))
					(j < i ? before++ : after++);
			if (before && after && before % APPEND_STEP)
				continue;
		}
		pick[ev[i].index] = 1;
		npicked++;
	}
	for (i = 0; i < nev; i++) {
		if (!ev[i].index)
			continue;
		ops_by_kind[ev[i].op]++;
		if ((ev[i].op == PM_FOP_WRITE_NEW_ATOMIC) && strstr(ev[i].path, "/manifest/manifest-") &&
		    !strstr(ev[i].path, "/manifest/manifest-list-"))
			manifests_written++;
		if (verbose)
			printf("  %s op %llu: %s %s (%llu bytes)\n", w->name, (unsigned long long)ev[i].index,
			       pm_fault_op_name(ev[i].op), ev[i].path, (unsigned long long)ev[i].bytes);
	}
	pm_fault_ctl_free(ctl);
	ctl = NULL;
	/* the dry run itself must produce the new state */
	snprintf(cx.where, sizeof cx.where, "%s dry run", w->name);
	t = open_table(wh);
	CHECK(t != NULL);
	if (t) {
		if (w->kind == W_COMMIT) {
			CHECK(latest_id(t) == cx.old_snap + 1);
			CHECK(count_commits(t) == 1);
		}
		expect_rows(&cx, t, cx.new_text, "dry run");
		if (w->row_tracking)
			check_row_tracking(&cx, t, cx.new_rows_total);
		paimon_table_free(t);
	}
	if (w->kind == W_COMMIT) {
		/* the workload shape the test claims to cover */
		CHECK(ops_by_kind[PM_FOP_OPEN_WRITE] >= w->min_files);
		CHECK(ops_by_kind[PM_FOP_CLOSE_STREAM] == ops_by_kind[PM_FOP_OPEN_WRITE]);
		CHECK(ops_by_kind[PM_FOP_WRITE_NEW_ATOMIC] >= 4); /* manifest, 2 lists, snapshot */
		CHECK(ops_by_kind[PM_FOP_WRITE_OVERWRITE] >= 1); /* LATEST */
	}
	if (w->expect_merge)
		CHECK(manifests_written >= 2);
	rm_tree(wh);
	unlink(side);

	/* one crash per point and mode */
	for (m = 0; m < 3; m++) {
		uint64_t at;
		for (at = 1; at <= npoints; at++) {
			pm_fault_plan plan;
			pid_t pid;
			int status = 0;
			if (!pick[at])
				continue;
			memset(&plan, 0, sizeof plan);
			plan.at = at;
			plan.ops_mask = PM_FOP_WRITES;
			plan.action = modes[m];
			cx.mode = modes[m];
			plan.crash_status = CRASH_STATUS;
			snprintf(cx.where, sizeof cx.where, "%s crash %s op %llu/%llu", w->name, mode_names[m],
				 (unsigned long long)at, (unsigned long long)npoints);
			copy_tree(tpl, wh);
			unlink(side);
			fflush(NULL);
			pid = fork();
			if (pid < 0) {
				FAILF(&cx, "fork: %s", strerror(errno));
				continue;
			}
			if (pid == 0) {
				pm_fault_ctl *c = NULL;
				if (pm_fault_ctl_new(&plan, &c))
					_exit(2);
				pm_fault_ctl_set_logging(c, 0);
				pm_fault_install(c);
				if (run_workload(w, wh, side)) {
					fprintf(stderr, "child: %s\n", paimon_error_message());
					_exit(1);
				}
				_exit(0);
			}
			if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
			    WEXITSTATUS(status) != CRASH_STATUS) {
				FAILF(&cx, "child did not crash as planned (status 0x%x)", status);
				rm_tree(wh);
				continue;
			}
			cx.runs++;
			if (verbose)
				printf("  %s\n", cx.where);
			verify_after_crash(&cx, wh, side);
			rm_tree(wh);
		}
	}
	unlink(side);
	printf("crash %-10s: %llu injection points, %llu crashed at%s x 3 modes = %d crash runs; before retry: old snapshot %d, new "
	       "snapshot %d (meta: schema only %d); retried from message %d, rerun %d; strays cleaned %d\n",
	       w->name, (unsigned long long)npoints, (unsigned long long)npicked, full ? " (full)" : "", cx.runs, cx.saw_old, cx.saw_new, cx.saw_mid, cx.retried_msg, cx.reran,
	       cx.strays_total);
	printf("  retry crashed too: %d runs (%s)\n", cx.double_runs,
	       full ? "every retry op x 3 modes after every first crash with a message" :
		      (w->double_crash ? "every retry op, one mode each, after the torn first crashes with a message"
				       : "off by default for this workload"));
	printf("  strays: %d, of them %d in schema/ or tag/; found by "
	       "pm_table_find_orphans: %d%s\n",
	       cx.strays_total, cx.strays_meta, cx.orphans_found, CRASH_HAVE_ORPHAN ? "" : " (orphan check off)");
	printf("  ops: open_write %d, append %d, close_stream %d, write_new_atomic %d, write_overwrite %d, mkdirs %d, "
	       "remove %d, rename %d\n",
	       ops_by_kind[PM_FOP_OPEN_WRITE], ops_by_kind[PM_FOP_APPEND], ops_by_kind[PM_FOP_CLOSE_STREAM],
	       ops_by_kind[PM_FOP_WRITE_NEW_ATOMIC], ops_by_kind[PM_FOP_WRITE_OVERWRITE], ops_by_kind[PM_FOP_MKDIRS],
	       ops_by_kind[PM_FOP_REMOVE], ops_by_kind[PM_FOP_RENAME_NEW]);
	fflush(stdout);
	CHECK(cx.runs == (int)(3 * npicked));
out:
	free(pick);
	rm_tree(base);
	free(base);
	free(cx.old_text);
	free(cx.new_text);
}

/* ------------------------------------------------------------ the workloads */

static void crash_append(void)
{
	static const workload w = {
		"append", W_COMMIT, opts_zstd,
		{{0, 100, "a"}, {100, 100, "b"}, {200, 100, "a"}}, {1, 1, 0}, 3,
		{{1000, 150, "a"}, {2000, 150, "b"}}, 2, 0, 0, 0, 4, 1};
	run_one(&w);
}

/* The first commit to an empty table (no previous snapshot). */
static void crash_first_commit(void)
{
	static const workload w = {
		"first", W_COMMIT, opts_base,
		{{0, 0, "a"}}, {0}, 0,
		{{8000, 60, "a"}, {8100, 20, "b"}}, 2, 0, 0, 0, 2, 0};
	run_one(&w);
}

static void crash_overwrite(void)
{
	static const workload w = {
		"overwrite", W_COMMIT, opts_base,
		{{0, 100, "a"}, {100, 100, "b"}, {200, 100, "c"}, {300, 50, "a"}}, {1, 1, 1, 0}, 4,
		{{3000, 150, "a"}}, 1, 1, 0, 0, 1, 1};
	run_one(&w);
}

static void crash_overwrite_static(void)
{
	static const workload w = {
		"overwrite-static", W_COMMIT, opts_static,
		{{0, 100, "a"}, {100, 100, "b"}, {200, 50, "a"}}, {1, 1, 0}, 3,
		{{7000, 100, "b"}, {7500, 30, "c"}}, 2, 2, 0, 0, 2, 0};
	run_one(&w);
}

static void crash_merge(void)
{
	static const workload w = {
		"merge", W_COMMIT, opts_merge,
		{{0, 40, "a"}, {100, 40, "b"}, {200, 40, "c"}}, {0, 0, 0}, 3,
		{{4000, 100, "a"}}, 1, 0, 0, 1, 1, 0};
	run_one(&w);
}

static void crash_row_tracking(void)
{
	static const workload w = {
		"rowtrack", W_COMMIT, opts_rt,
		{{0, 100, "a"}, {100, 60, "b"}}, {0, 0}, 2,
		{{5000, 150, "a"}, {6000, 40, "b"}}, 2, 0, 1, 0, 2, 0};
	run_one(&w);
}

static void crash_alter_tag(void)
{
	static const workload w = {
		"alter+tag", W_META, opts_base,
		{{0, 50, "a"}, {100, 50, "b"}}, {1, 1}, 2,
		{{0, 0, "a"}}, 0, 0, 0, 0, 0, 0};
	run_one(&w);
}

TEST_MAIN(T(crash_append), T(crash_first_commit), T(crash_overwrite), T(crash_overwrite_static), T(crash_merge), T(crash_row_tracking), T(crash_alter_tag))
