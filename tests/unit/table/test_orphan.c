/*
 * tests/unit/table/test_orphan.c - orphan-file clean-up (table/orphan.h and
 * paimon_table_remove_orphan_files).
 *
 * A partitioned append table written through the public API: three
 * commits, a tag on snapshot 2, a dynamic overwrite of partition p0 (its
 * old files leave the live set but stay referenced by snapshots 1-3 and the
 * tag). Stray files are planted in data directories (an existing bucket, a
 * new partition), manifest/, snapshot/ (a hidden temporary), index/,
 * statistics/ and the table root, next to files that must never be touched
 * (schema, hints, tag, branch/, consumer/). Then: exactly the strays are
 * found, the age guard holds, referenced files survive and the table reads
 * the same at every snapshot and the tag; unreadable metadata stops
 * everything with an error naming the file.
 */
#include "test.h"
#include "paimonc/paimonc.h"
#include "paimonc/table.h"
#include "arrow/arrow_builder.h"
#include "core/mem.h"
#include "core/uuid.h"
#include "io/fileio.h"
#include "meta/manifest.h"
#include "meta/snapshot.h"
#include "api/handles.h"
#include "maint/orphan.h"
#include "tablefix.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#define DAY_MS (24LL * 3600 * 1000)

/* ------------------------------------------------------------ helpers */

typedef struct reads {
	int64_t rows[5], sums[5];
} reads;

static void read_all(paimon_table *t, reads *r)
{
	read_sum(t, NULL, NULL, &r->rows[0], &r->sums[0]);
	read_sum(t, "scan.snapshot-id", "1", &r->rows[1], &r->sums[1]);
	read_sum(t, "scan.snapshot-id", "2", &r->rows[2], &r->sums[2]);
	read_sum(t, "scan.snapshot-id", "3", &r->rows[3], &r->sums[3]);
	read_sum(t, "scan.tag-name", "t2", &r->rows[4], &r->sums[4]);
}

static void set_mtime(const char *path, int64_t ms)
{
	struct timeval tv[2];
	tv[0].tv_sec = tv[1].tv_sec = (time_t)(ms / 1000);
	tv[0].tv_usec = tv[1].tv_usec = (suseconds_t)((ms % 1000) * 1000);
	CHECK(utimes(path, tv) == 0);
}

/* Ages every file and directory under dir by setting its mtime to ms. */
static void age_tree(const char *dir, int64_t ms)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		char p[4096];
		struct stat st;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
		if (stat(p, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode))
			age_tree(p, ms);
		set_mtime(p, ms);
	}
	closedir(d);
}

static void mkdirs(const char *path)
{
	char p[4096], *s;
	snprintf(p, sizeof p, "%s", path);
	for (s = p + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			mkdir(p, 0755);
			*s = '/';
		}
	mkdir(p, 0755);
}

/* Creates <table>/<rel> (parents too) with some bytes; pushes its path. */
static void plant(const char *table, const char *rel, size_t size, pm_strlist *planted)
{
	char p[4096], *slash;
	FILE *f;
	size_t i;
	snprintf(p, sizeof p, "%s/%s", table, rel);
	slash = strrchr(p, '/');
	*slash = 0;
	mkdirs(p);
	*slash = '/';
	f = fopen(p, "wb");
	CHECK(f != NULL);
	if (!f)
		return;
	for (i = 0; i < size; i++)
		fputc((int)('a' + i % 26), f);
	fclose(f);
	if (planted)
		CHECK_OK(pm_strlist_push(planted, p));
}

static int exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0;
}

static void check_same_list(const pm_strlist *got, const pm_strlist *want, const char *what)
{
	size_t i;
	int same = got->len == want->len;
	for (i = 0; same && i < got->len; i++)
		same = strcmp(got->items[i], want->items[i]) == 0;
	CHECK(same);
	if (!same) {
		fprintf(stderr, "  %s: got %zu paths:\n", what, got->len);
		for (i = 0; i < got->len; i++)
			fprintf(stderr, "    %s\n", got->items[i]);
		fprintf(stderr, "  want %zu:\n", want->len);
		for (i = 0; i < want->len; i++)
			fprintf(stderr, "    %s\n", want->items[i]);
	}
}

/* The fixture: table written, the legit file set recorded, strays planted
 * (all aged two days, one young stray left fresh). */
typedef struct fix {
	char *dir;
	paimon_table *t;
	char table[1024];
	pm_strlist legit;    /* files before planting */
	pm_strlist strays;   /* old planted orphans, sorted */
	pm_strlist keep;     /* planted never-orphans */
	char young[4096];    /* a fresh stray */
	uint64_t stray_bytes;
	reads before;
} fix;

static void fix_init(fix *f)
{
	int64_t now = pm_now_millis();
	size_t i;
	memset(f, 0, sizeof *f);
	f->dir = test_tmpdir();
	f->t = make_table(f->dir);
	snprintf(f->table, sizeof f->table, "%s", paimon_table_path(f->t));
	write_commit(f->t, 40, 0, 2, 0);    /* snapshot 1: p0, p1 */
	write_commit(f->t, 30, 100, 2, 0);  /* snapshot 2 */
	CHECK_OK(paimon_table_create_tag(f->t, "t2", 2, 0));
	write_commit(f->t, 20, 1000, 3, 0); /* snapshot 3: p0, p1, p2 */
	write_commit(f->t, 10, 5000, 0, 1); /* snapshot 4: overwrite p0 */
	read_all(f->t, &f->before);
	CHECK(f->before.rows[1] == 40 && f->before.rows[2] == 70 && f->before.rows[3] == 90);
	CHECK(f->before.rows[4] == 70 && f->before.sums[4] == f->before.sums[2]);
	CHECK(f->before.rows[0] < 90); /* p0's rows were replaced */
	tree_files(f->table, &f->legit);
	CHECK(f->legit.len > 10);

	plant(f->table, "dt=p0/bucket-0/data-00000000-stray-0.parquet", 100, &f->strays);
	plant(f->table, "dt=p1/bucket-0/data-00000000-stray-1.parquet.index", 7, &f->strays);
	plant(f->table, "dt=zz/bucket-0/data-00000000-stray-2.parquet", 33, &f->strays);
	plant(f->table, "manifest/manifest-00000000-stray-0", 50, &f->strays);
	plant(f->table, "manifest/manifest-list-00000000-stray-0", 20, &f->strays);
	plant(f->table, "manifest/.manifest-00000000-stray-1.tmp", 20, &f->strays);
	plant(f->table, "snapshot/.snapshot-9.1234abcd.tmp", 10, &f->strays);
	plant(f->table, "index/index-00000000-stray-0", 12, &f->strays);
	plant(f->table, "statistics/stat-00000000-stray-0", 12, &f->strays);
	plant(f->table, "stray-at-root", 1, &f->strays);
	plant(f->table, "tag/.tag-x.1234abcd.tmp", 5, &f->strays);
	plant(f->table, "schema/.schema-5.1234abcd.tmp", 5, &f->strays);
	pm_strlist_sort(&f->strays);
	for (i = 0; i < f->strays.len; i++) {
		struct stat st;
		stat(f->strays.items[i], &st);
		f->stray_bytes += (uint64_t)st.st_size;
	}
	/* a branch from the latest snapshot (Java's layout): its snapshot file
	 * is main's (a branch's metadata is read: what it references is used) */
	{
		char dir[4200], cmd[16384], dst[4300];
		long n = 0;
		DIR *d;
		struct dirent *e;
		snprintf(dir, sizeof dir, "%s/snapshot", f->table);
		d = opendir(dir);
		CHECK(d != NULL);
		while (d && (e = readdir(d)))
			if (!strncmp(e->d_name, "snapshot-", 9) && atol(e->d_name + 9) > n)
				n = atol(e->d_name + 9);
		if (d)
			closedir(d);
		snprintf(dst, sizeof dst, "%s/branch/branch-b1/snapshot/snapshot-%ld", f->table, n);
		snprintf(cmd, sizeof cmd, "mkdir -p '%s/branch/branch-b1/snapshot' && cp '%s/snapshot-%ld' '%s'", f->table,
			 dir, n, dst);
		CHECK(n > 0 && system(cmd) == 0);
		CHECK_OK(pm_strlist_push(&f->keep, dst));
	}
	plant(f->table, "branch/branch-b1/stray", 5, &f->keep);
	plant(f->table, "consumer/consumer-c1", 5, &f->keep);
	plant(f->table, "service/whatever", 5, &f->keep);
	plant(f->table, "schema/notes.tmp", 5, &f->keep); /* only hidden temporaries are candidates there */
	age_tree(f->table, now - 2 * DAY_MS);
	plant(f->table, "dt=p1/bucket-0/data-00000000-young.parquet", 9, NULL);
	snprintf(f->young, sizeof f->young, "%s/dt=p1/bucket-0/data-00000000-young.parquet", f->table);
}

static void fix_dispose(fix *f)
{
	paimon_table_free(f->t);
	pm_strlist_dispose(&f->legit);
	pm_strlist_dispose(&f->strays);
	pm_strlist_dispose(&f->keep);
	free(f->dir);
}

/* ------------------------------------------------------------- tests */

static void finds_exactly_the_strays(void)
{
	fix f;
	pm_fileio *io = NULL;
	pm_orphan_list l;
	pm_strlist with_young = {0};
	int64_t now = pm_now_millis();
	size_t i;
	fix_init(&f);
	CHECK_OK(pm_fileio_local_new(&io));

	/* default guard: the young stray is protected */
	memset(&l, 0, sizeof l);
	CHECK_OK(pm_table_find_orphans(io, f.table, now - DAY_MS, &l));
	check_same_list(&l.paths, &f.strays, "now - 1 day");
	CHECK(l.bytes == f.stray_bytes);
	pm_orphan_list_dispose(&l);

	/* a guard in the future: every unreferenced file, the young one too;
	 * referenced and protected files are still never listed */
	CHECK_OK(pm_strlist_copy(&with_young, &f.strays));
	CHECK_OK(pm_strlist_push(&with_young, f.young));
	pm_strlist_sort(&with_young);
	memset(&l, 0, sizeof l);
	CHECK_OK(pm_table_find_orphans(io, f.table, now + 60000, &l));
	check_same_list(&l.paths, &with_young, "now + 1 min");
	pm_orphan_list_dispose(&l);

	/* a guard older than the strays: nothing */
	memset(&l, 0, sizeof l);
	CHECK_OK(pm_table_find_orphans(io, f.table, now - 3 * DAY_MS, &l));
	CHECK(l.paths.len == 0 && l.bytes == 0);
	pm_orphan_list_dispose(&l);

	/* exactly at a stray's mtime: not strictly older */
	memset(&l, 0, sizeof l);
	{
		struct stat st;
		stat(f.strays.items[0], &st);
		int64_t m = (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
		CHECK_OK(pm_table_find_orphans(io, f.table, m, &l));
		CHECK(l.paths.len == 0);
		pm_orphan_list_dispose(&l);
		memset(&l, 0, sizeof l);
		CHECK_OK(pm_table_find_orphans(io, f.table, m + 1, &l));
		check_same_list(&l.paths, &f.strays, "mtime + 1 ms");
	}
	pm_orphan_list_dispose(&l);

	for (i = 0; i < f.legit.len; i++)
		CHECK(exists(f.legit.items[i]));
	pm_strlist_dispose(&with_young);
	pm_fileio_close(io);
	fix_dispose(&f);
}

static void removes_only_the_strays(void)
{
	fix f;
	char **paths = NULL;
	size_t n = 0, i;
	uint64_t bytes = 0;
	pm_strlist got = {0}, after = {0}, want_after = {0};
	reads r;
	int64_t now = pm_now_millis();
	char p[4096];
	fix_init(&f);

	/* dry run: reported, nothing deleted */
	CHECK_OK(paimon_table_remove_orphan_files(f.t, now - DAY_MS, 1, &paths, &n, &bytes));
	for (i = 0; i < n; i++)
		CHECK_OK(pm_strlist_push(&got, paths[i]));
	check_same_list(&got, &f.strays, "dry run");
	CHECK(bytes == f.stray_bytes);
	paimon_string_list_free(paths, n);
	pm_strlist_dispose(&got);
	for (i = 0; i < f.strays.len; i++)
		CHECK(exists(f.strays.items[i]));

	/* the real thing */
	paths = NULL;
	CHECK_OK(paimon_table_remove_orphan_files(f.t, now - DAY_MS, 0, &paths, &n, &bytes));
	for (i = 0; i < n; i++)
		CHECK_OK(pm_strlist_push(&got, paths[i]));
	check_same_list(&got, &f.strays, "remove");
	CHECK(bytes == f.stray_bytes);
	paimon_string_list_free(paths, n);
	pm_strlist_dispose(&got);
	for (i = 0; i < f.strays.len; i++)
		CHECK(!exists(f.strays.items[i]));

	/* what is left: the legit files, the protected plants, the young stray */
	tree_files(f.table, &after);
	CHECK_OK(pm_strlist_copy(&want_after, &f.legit));
	for (i = 0; i < f.keep.len; i++)
		CHECK_OK(pm_strlist_push(&want_after, f.keep.items[i]));
	CHECK_OK(pm_strlist_push(&want_after, f.young));
	pm_strlist_sort(&want_after);
	check_same_list(&after, &want_after, "files after removal");

	/* the new partition's directories went with its only file; metadata
	 * directories stay even when emptied */
	snprintf(p, sizeof p, "%s/dt=zz", f.table);
	CHECK(!exists(p));
	snprintf(p, sizeof p, "%s/statistics", f.table);
	CHECK(exists(p));
	snprintf(p, sizeof p, "%s/index", f.table);
	CHECK(exists(p));

	read_all(f.t, &r);
	CHECK(memcmp(&r, &f.before, sizeof r) == 0);

	/* nothing more to do; all out-parameters optional */
	CHECK_OK(paimon_table_remove_orphan_files(f.t, now - DAY_MS, 0, &paths, &n, &bytes));
	CHECK(n == 0 && paths == NULL && bytes == 0);
	CHECK_OK(paimon_table_remove_orphan_files(f.t, now - DAY_MS, 0, NULL, NULL, NULL));
	pm_strlist_dispose(&after);
	pm_strlist_dispose(&want_after);
	fix_dispose(&f);
}

/* Name of the first manifest of snapshot 1's delta list (and that list). */
static void snapshot1_manifest(fix *f, pm_fileio *io, char *out, size_t cap, char *list_out, size_t lcap)
{
	pm_snapshot *s = NULL;
	pm_manifest_file_meta_list l = {0};
	out[0] = 0;
	CHECK_OK(pm_snapshot_load(io, f->table, 1, &s));
	if (!s)
		return;
	snprintf(list_out, lcap, "%s", s->delta_manifest_list);
	CHECK_OK(pm_manifest_list_read(io, f->table, s->delta_manifest_list, &l));
	CHECK(l.len >= 1);
	if (l.len)
		snprintf(out, cap, "%s", l.items[0].file_name);
	pm_manifest_file_meta_list_dispose(&l);
	pm_snapshot_free(s);
}

static void write_file(const char *p, const char *text)
{
	FILE *fp = fopen(p, "wb");
	CHECK(fp != NULL);
	if (!fp)
		return;
	fputs(text, fp);
	fclose(fp);
}

/* Reads a file whole (malloc'd, *len set). */
static char *slurp(const char *p, size_t *len)
{
	FILE *fp = fopen(p, "rb");
	char *b;
	long n;
	if (!fp)
		return NULL;
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	b = malloc((size_t)n + 1);
	*len = fread(b, 1, (size_t)n, fp);
	fclose(fp);
	return b;
}

static void restore(const char *p, const char *data, size_t len)
{
	FILE *fp = fopen(p, "wb");
	CHECK(fp != NULL);
	if (!fp)
		return;
	fwrite(data, 1, len, fp);
	fclose(fp);
}

/* Breaks path (corrupt, then missing), expecting both find and remove to
 * fail naming `name`, with every stray still there. */
static void expect_refusal(fix *f, const char *path, const char *name, const char *what)
{
	size_t len = 0, i;
	char *saved = slurp(path, &len);
	char **paths = (char **)1;
	size_t n = 99;
	int64_t now = pm_now_millis();
	int round;
	CHECK(saved != NULL);
	fprintf(stderr, "  breaking %s\n", what);
	for (round = 0; round < 2; round++) {
		pm_orphan_list l;
		pm_fileio *io = NULL;
		int rc;
		if (round == 0)
			write_file(path, "\x01garbage, not metadata");
		else
			CHECK(unlink(path) == 0);
		CHECK_OK(pm_fileio_local_new(&io));
		memset(&l, 0, sizeof l);
		rc = pm_table_find_orphans(io, f->table, now - DAY_MS, &l);
		CHECK(rc != 0);
		CHECK_MSG(name);
		CHECK(l.paths.len == 0);
		pm_orphan_list_dispose(&l);
		rc = paimon_table_remove_orphan_files(f->t, now - DAY_MS, 0, &paths, &n, NULL);
		CHECK(rc != 0);
		CHECK_MSG(name);
		CHECK(paths == NULL && n == 0);
		for (i = 0; i < f->strays.len; i++)
			CHECK(exists(f->strays.items[i]));
		for (i = 0; i < f->legit.len; i++)
			CHECK(exists(f->legit.items[i]) || strcmp(f->legit.items[i], path) == 0);
		pm_fileio_close(io);
	}
	restore(path, saved, len);
	free(saved);
}

static void unreadable_metadata_deletes_nothing(void)
{
	fix f;
	pm_fileio *io = NULL;
	char man[512], list[512], p[4096];
	size_t i;
	fix_init(&f);
	CHECK_OK(pm_fileio_local_new(&io));
	snapshot1_manifest(&f, io, man, sizeof man, list, sizeof list);

	snprintf(p, sizeof p, "%s/manifest/%s", f.table, man);
	expect_refusal(&f, p, man, "a manifest of snapshot 1");
	snprintf(p, sizeof p, "%s/manifest/%s", f.table, list);
	expect_refusal(&f, p, list, "snapshot 1's delta manifest list");

	/* a corrupt snapshot or tag file is an error too; a vanished one is
	 * treated as expired / dropped */
	for (i = 0; i < 2; i++) {
		const char *rel = i == 0 ? "snapshot/snapshot-1" : "tag/tag-t2";
		size_t len = 0;
		char *saved;
		pm_orphan_list l;
		snprintf(p, sizeof p, "%s/%s", f.table, rel);
		saved = slurp(p, &len);
		write_file(p, "{ not json");
		memset(&l, 0, sizeof l);
		CHECK(pm_table_find_orphans(io, f.table, pm_now_millis() - DAY_MS, &l) != 0);
		CHECK_MSG(pm_path_basename(rel));
		CHECK(l.paths.len == 0);
		pm_orphan_list_dispose(&l);
		restore(p, saved, len);
		free(saved);
	}

	/* everything restored: exactly the strays again, then gone */
	{
		pm_orphan_list l;
		memset(&l, 0, sizeof l);
		CHECK_OK(pm_table_remove_orphans(io, f.table, pm_now_millis() - DAY_MS, 0, &l));
		check_same_list(&l.paths, &f.strays, "after restoring");
		pm_orphan_list_dispose(&l);
	}
	pm_fileio_close(io);
	fix_dispose(&f);
}

/* Expiring snapshot 1 by hand (deleting snapshot-1 only) makes the files
 * only it referenced orphans once the tag is gone too. */
static void expired_snapshot_files_become_orphans(void)
{
	fix f;
	pm_fileio *io = NULL;
	pm_orphan_list l;
	char man[512], list[512], p[4096];
	size_t i;
	int found_list = 0, found_man = 0;
	fix_init(&f);
	CHECK_OK(pm_fileio_local_new(&io));
	snapshot1_manifest(&f, io, man, sizeof man, list, sizeof list);
	snprintf(p, sizeof p, "%s/snapshot/snapshot-1", f.table);
	CHECK(unlink(p) == 0);
	memset(&l, 0, sizeof l);
	CHECK_OK(pm_table_find_orphans(io, f.table, pm_now_millis() - DAY_MS, &l));
	/* snapshot 1's delta list is only its own; its manifest is still in
	 * snapshot 2's base list, and its data files are still live */
	for (i = 0; i < l.paths.len; i++) {
		if (!strcmp(pm_path_basename(l.paths.items[i]), list))
			found_list = 1;
		if (!strcmp(pm_path_basename(l.paths.items[i]), man))
			found_man = 1;
		CHECK(pm_strlist_find(&f.strays, l.paths.items[i]) >= 0 ||
		      strstr(l.paths.items[i], "/manifest/manifest-list-") != NULL);
	}
	CHECK(found_list && !found_man);
	CHECK(l.paths.len == f.strays.len + 2); /* + snapshot 1's base and delta lists */
	pm_orphan_list_dispose(&l);
	pm_fileio_close(io);
	fix_dispose(&f);
}

/* Index manifests, index files, statistics, changelog lists, extra files
 * and external paths count as references: a synthetic snapshot 5 names
 * them. */
static void index_statistics_extra_files(void)
{
	fix f;
	pm_fileio *io = NULL;
	pm_snapshot *s = NULL;
	pm_manifest_options mo;
	pm_manifest_namer nm;
	pm_index_manifest_entry ie;
	pm_manifest_entry e;
	pm_manifest_file_meta_list metas = {0};
	pm_type *pt = pm_type_new(PM_ROW);
	pm_orphan_list l;
	pm_strmap no_opts = {0};
	char *imname = NULL, *clname = NULL, p[4096];
	int64_t clsize = 0, now;
	size_t i;
	fix_init(&f);
	CHECK_OK(pm_fileio_local_new(&io));
	CHECK_OK(pm_manifest_options_from(&mo, &no_opts));
	CHECK_OK(pm_manifest_namer_init(&nm));

	memset(&ie, 0, sizeof ie);
	ie.kind = PM_FILE_KIND_ADD;
	CHECK_OK(pm_bytes_set(&ie.partition, pm_empty_binrow, sizeof pm_empty_binrow));
	ie.index_type = pm_strdup("HASH");
	ie.file_name = pm_strdup("index-ref-0");
	ie.file_size = 3;
	ie.row_count = 1;
	CHECK_OK(pm_index_manifest_write(io, f.table, &mo, &nm, &ie, 1, &imname));
	pm_index_manifest_entry_dispose(&ie);

	memset(&e, 0, sizeof e);
	e.kind = PM_FILE_KIND_ADD;
	CHECK_OK(pm_bytes_set(&e.partition, pm_empty_binrow, sizeof pm_empty_binrow));
	e.total_buckets = 1;
	CHECK_OK(pm_data_file_meta_init_append(&e.file));
	e.file.file_name = pm_strdup("changelog-ref-0.parquet");
	e.file.file_size = 3;
	e.file.row_count = 1;
	CHECK_OK(pm_strlist_push(&e.file.extra_files, "changelog-ref-0.parquet.index"));
	snprintf(p, sizeof p, "%s/elsewhere/data-external-0.parquet", f.dir);
	e.file.external_path = pm_strdup(p);
	CHECK(pt != NULL);
	CHECK_OK(pm_manifest_write(io, f.table, &mo, &nm, pt, &e, 1, &metas));
	CHECK_OK(pm_manifest_list_write(io, f.table, &mo, &nm, metas.items, metas.len, &clname, &clsize));
	pm_manifest_entry_dispose(&e);
	pm_manifest_file_meta_list_dispose(&metas);
	pm_type_free(pt);

	CHECK_OK(pm_snapshot_load(io, f.table, 4, &s));
	if (s) {
		s->id = 5;
		s->index_manifest = imname;
		imname = NULL;
		s->changelog_manifest_list = clname;
		s->has_changelog_manifest_list_size = 1;
		s->changelog_manifest_list_size = clsize;
		clname = NULL;
		s->statistics = pm_strdup("stat-ref-0");
		CHECK_OK(pm_snapshot_commit(io, f.table, s));
		pm_snapshot_free(s);
	}
	plant(f.table, "index/index-ref-0", 3, NULL);
	plant(f.table, "statistics/stat-ref-0", 3, NULL);
	plant(f.table, "dt=p0/bucket-0/changelog-ref-0.parquet", 3, NULL);
	plant(f.table, "dt=p0/bucket-0/changelog-ref-0.parquet.index", 3, NULL);
	plant(f.table, "dt=p0/bucket-0/data-external-0.parquet", 3, NULL); /* same name as the external file */
	age_tree(f.table, pm_now_millis() - 2 * DAY_MS);

	now = pm_now_millis();
	memset(&l, 0, sizeof l);
	CHECK_OK(pm_table_find_orphans(io, f.table, now + 60000, &l));
	for (i = 0; i < l.paths.len; i++) {
		const char *b = pm_path_basename(l.paths.items[i]);
		CHECK(strstr(b, "-ref-") == NULL && strstr(b, "external") == NULL);
		CHECK(pm_strlist_find(&f.strays, l.paths.items[i]) >= 0 || strcmp(l.paths.items[i], f.young) == 0);
	}
	CHECK(l.paths.len == f.strays.len + 1);
	pm_orphan_list_dispose(&l);
	pm_free(imname);
	pm_free(clname);
	pm_fileio_close(io);
	fix_dispose(&f);
}

static void bad_arguments(void)
{
	pm_fileio *io = NULL;
	pm_orphan_list l;
	char *dir = test_tmpdir(), p[4096];
	memset(&l, 0, sizeof l);
	CHECK_OK(pm_fileio_local_new(&io));
	snprintf(p, sizeof p, "%s/no-such-table", dir);
	CHECK(pm_table_find_orphans(io, p, 0, &l) != 0);
	CHECK_MSG("no-such-table");
	CHECK(pm_table_find_orphans(io, "", 0, &l) == PAIMON_EINVAL);
	CHECK(paimon_table_remove_orphan_files(NULL, 0, 1, NULL, NULL, NULL) == PAIMON_EINVAL);
	/* an empty directory (no snapshots yet) has nothing to clean */
	CHECK_OK(pm_table_find_orphans(io, dir, pm_now_millis() + 60000, &l));
	CHECK(l.paths.len == 0);
	pm_orphan_list_dispose(&l);
	pm_fileio_close(io);
	free(dir);
}

TEST_MAIN(T(finds_exactly_the_strays), T(removes_only_the_strays), T(unreadable_metadata_deletes_nothing),
	  T(expired_snapshot_files_become_orphans), T(index_statistics_extra_files), T(bad_arguments))
