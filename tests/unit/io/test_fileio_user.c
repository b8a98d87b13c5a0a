/*
 * tests/unit/io/test_fileio_user.c - the public FileIO extension
 * (paimonc/sys/fileio.h, paimon_catalog_open_with_fileio): a storage
 * implemented here over plain POSIX calls, under a made-up "posix://"
 * scheme so that any file the library touched behind the callbacks' back
 * would fail. A catalog opened with it creates a table, writes, commits and
 * reads the rows back through the public API; every callback kind is
 * counted and must have been used; reading the table's Parquet files does
 * no stat (the length comes from open_read). Versions 0 and 99 and a
 * missing required callback are refused with PAIMON_EINVAL.
 */
#include "test.h"
#include "paimonc/paimonc.h"
#include "paimonc/table.h"
#include "paimonc/sys/fileio.h"
#include "arrow/arrow_builder.h"
#include "io/fileio_user.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

#define SCHEME "posix://"
#define ROWS 1000

enum {
	C_OPEN_READ, C_READ_AT, C_CLOSE_READ, C_OPEN_WRITE, C_APPEND, C_CLOSE_WRITE, C_ABORT_WRITE,
	C_WRITE_NEW_ATOMIC, C_RENAME_NEW, C_STAT, C_LIST, C_MKDIRS, C_REMOVE, C_REMOVE_ALL,
	C_STAT_PARQUET, C_OPEN_READ_PARQUET, C_OPENED, C_N
};
static const char *const cnames[C_N] = {"open_read", "read_at", "close_read", "open_write", "append",
	"close_write", "abort_write", "write_new_atomic", "rename_new", "stat", "list", "mkdirs", "remove",
	"remove_all", "stat(.parquet)", "open_read(.parquet)", "open_read (succeeded)"};

typedef struct posix_fs {
	atomic_long count[C_N];
	int bad_paths; /* paths without the scheme */
} posix_fs;

/* The local path behind a "posix://" one. */
static const char *lp(posix_fs *fs, const char *path)
{
	if (strncmp(path, SCHEME, strlen(SCHEME)) != 0) {
		fs->bad_paths++;
		return "/nonexistent-unschemed";
	}
	return path + strlen(SCHEME);
}

static int ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && !strcmp(s + a - b, suf);
}

static int fail_errno(int e, const char *what, const char *path)
{
	int code = e == ENOENT || e == ENOTDIR ? PAIMON_ENOTFOUND : e == EEXIST ? PAIMON_EEXISTS : PAIMON_EIO;
	return paimon_fileio_error(code, "posix test fs: %s '%s': %s", what, path, strerror(e));
}

#define FS ((posix_fs *)ctx)
#define COUNT(c) atomic_fetch_add(&FS->count[c], 1)

typedef struct in_file {
	int fd;
} in_file;

static int t_open_read(void *ctx, const char *path, void **file, uint64_t *length)
{
	const char *p = lp(FS, path);
	struct stat st;
	in_file *f;
	int fd;
	COUNT(C_OPEN_READ);
	if (ends_with(path, ".parquet"))
		COUNT(C_OPEN_READ_PARQUET);
	if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
		return fail_errno(errno, "open", path);
	if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
		close(fd);
		return paimon_fileio_error(PAIMON_EIO, "posix test fs: '%s' is not a file", path);
	}
	if (!(f = malloc(sizeof *f))) {
		close(fd);
		return PAIMON_ENOMEM;
	}
	f->fd = fd;
	*file = f;
	COUNT(C_OPENED);
	*length = (uint64_t)st.st_size;
	return 0;
}

static int t_read_at(void *ctx, void *file, uint64_t off, size_t len, void *dst)
{
	in_file *f = file;
	size_t done = 0;
	COUNT(C_READ_AT);
	while (done < len) {
		ssize_t n = pread(f->fd, (char *)dst + done, len - done, (off_t)(off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail_errno(errno, "pread", "(handle)");
		if (n == 0)
			return PAIMON_ECORRUPT; /* no message: the library writes one */
		done += (size_t)n;
	}
	return 0;
}

static void t_close_read(void *ctx, void *file)
{
	in_file *f = file;
	COUNT(C_CLOSE_READ);
	close(f->fd);
	free(f);
}

typedef struct out_file {
	int fd;
	char path[4096];
} out_file;

static int t_open_write(void *ctx, const char *path, void **stream)
{
	out_file *o;
	COUNT(C_OPEN_WRITE);
	if (!(o = malloc(sizeof *o)))
		return PAIMON_ENOMEM;
	snprintf(o->path, sizeof o->path, "%s", lp(FS, path));
	if ((o->fd = open(o->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
		free(o);
		return fail_errno(errno, "create", path);
	}
	*stream = o;
	return 0;
}

static int write_all(int fd, const void *data, size_t len)
{
	size_t done = 0;
	while (done < len) {
		ssize_t n = write(fd, (const char *)data + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

static int t_append(void *ctx, void *stream, const void *data, size_t len)
{
	out_file *o = stream;
	COUNT(C_APPEND);
	return write_all(o->fd, data, len) ? fail_errno(errno, "write", o->path) : 0;
}

static int t_close_write(void *ctx, void *stream)
{
	out_file *o = stream;
	int rc = close(o->fd) ? fail_errno(errno, "close", o->path) : 0;
	COUNT(C_CLOSE_WRITE);
	free(o);
	return rc;
}

static void t_abort_write(void *ctx, void *stream)
{
	out_file *o = stream;
	COUNT(C_ABORT_WRITE);
	close(o->fd);
	unlink(o->path);
	free(o);
}

static int t_write_new_atomic(void *ctx, const char *path, const void *data, size_t len)
{
	char tmp[4200];
	const char *p = lp(FS, path);
	int fd, rc = 0;
	static atomic_int seq;
	COUNT(C_WRITE_NEW_ATOMIC);
	snprintf(tmp, sizeof tmp, "%s.%d.%d.tmp", p, (int)getpid(), atomic_fetch_add(&seq, 1));
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) < 0)
		return fail_errno(errno, "create", tmp);
	if (write_all(fd, data, len))
		rc = fail_errno(errno, "write", tmp);
	close(fd);
	if (!rc && link(tmp, p) != 0)
		rc = errno == EEXIST ? paimon_fileio_error(PAIMON_EEXISTS, "'%s' already exists", path)
				     : fail_errno(errno, "link", path);
	unlink(tmp);
	return rc;
}

static int t_rename_new(void *ctx, const char *src, const char *dst)
{
	COUNT(C_RENAME_NEW);
	if (syscall(SYS_renameat2, AT_FDCWD, lp(FS, src), AT_FDCWD, lp(FS, dst), RENAME_NOREPLACE) != 0)
		return fail_errno(errno, "rename", src);
	return 0;
}

static int t_stat(void *ctx, const char *path, paimon_file_info *info)
{
	struct stat st;
	COUNT(C_STAT);
	if (ends_with(path, ".parquet"))
		COUNT(C_STAT_PARQUET);
	if (stat(lp(FS, path), &st) != 0)
		return fail_errno(errno, "stat", path);
	info->is_dir = S_ISDIR(st.st_mode);
	info->size = (uint64_t)st.st_size;
	info->mtime_ms = (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
	return 0;
}

static int t_list(void *ctx, const char *dir, paimon_fileio_emit emit, void *sink)
{
	DIR *d;
	struct dirent *de;
	int rc = 0;
	COUNT(C_LIST);
	if (!(d = opendir(lp(FS, dir))))
		return fail_errno(errno, "list", dir);
	while (rc == 0 && (de = readdir(d)) != NULL) {
		struct stat st;
		paimon_file_info e;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") || fstatat(dirfd(d), de->d_name, &st, 0))
			continue;
		e.name = de->d_name;
		e.is_dir = S_ISDIR(st.st_mode);
		e.size = (uint64_t)st.st_size;
		e.mtime_ms = (int64_t)st.st_mtim.tv_sec * 1000;
		rc = emit(sink, &e);
	}
	closedir(d);
	return rc;
}

static int t_mkdirs(void *ctx, const char *dir)
{
	char p[4096];
	size_t i;
	COUNT(C_MKDIRS);
	snprintf(p, sizeof p, "%s", lp(FS, dir));
	for (i = 1;; i++) {
		if (p[i] == '/' || p[i] == '\0') {
			char c = p[i];
			p[i] = '\0';
			if (mkdir(p, 0755) != 0 && errno != EEXIST)
				return fail_errno(errno, "mkdir", dir);
			p[i] = c;
			if (!c)
				return 0;
		}
	}
}

static int t_remove(void *ctx, const char *path)
{
	const char *p = lp(FS, path);
	COUNT(C_REMOVE);
	if (unlink(p) == 0 || errno == ENOENT)
		return 0;
	if ((errno == EISDIR || errno == EPERM) && (rmdir(p) == 0 || errno == ENOENT))
		return 0;
	return fail_errno(errno, "remove", path);
}

static int rm_tree(const char *p)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	if (lstat(p, &st) != 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlink(p) == 0 || errno == ENOENT ? 0 : -1;
	if (!(d = opendir(p)))
		return -1;
	while ((de = readdir(d)) != NULL) {
		char c[4200];
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(c, sizeof c, "%s/%s", p, de->d_name);
		if (rm_tree(c)) {
			closedir(d);
			return -1;
		}
	}
	closedir(d);
	return rmdir(p) == 0 || errno == ENOENT ? 0 : -1;
}

static int t_remove_all(void *ctx, const char *path)
{
	COUNT(C_REMOVE_ALL);
	return rm_tree(lp(FS, path)) ? fail_errno(errno, "remove_all", path) : 0;
}

/* read_all, write_overwrite, exists, sync: NULL (the library's defaults). */
static const paimon_fileio_methods posix_methods = {
	.version = PAIMON_FILEIO_VERSION,
	.open_read = t_open_read,
	.read_at = t_read_at,
	.close_read = t_close_read,
	.open_write = t_open_write,
	.append = t_append,
	.close_write = t_close_write,
	.abort_write = t_abort_write,
	.write_new_atomic = t_write_new_atomic,
	.rename_new = t_rename_new,
	.stat = t_stat,
	.list = t_list,
	.mkdirs = t_mkdirs,
	.remove = t_remove,
	.remove_all = t_remove_all,
};

/* ------------------------------------------------------------ the table */

/* ROWS rows: id = base + r, s = "row-<id>". */
static int make_batch(int base, struct ArrowArray *a, struct ArrowSchema *s)
{
	pm_array_builder *ch[2], *st;
	int r, rc;
	ch[0] = pm_ab_new_fixed("l", 8);
	ch[1] = pm_ab_new_binary("u", 0);
	if (!ch[0] || !ch[1]) {
		pm_ab_free(ch[0]);
		pm_ab_free(ch[1]);
		return PAIMON_ENOMEM;
	}
	rc = pm_ab_set_name(ch[0], "id", 1) | pm_ab_set_name(ch[1], "s", 1);
	for (r = 0; r < ROWS && rc == 0; r++) {
		int64_t id = base + r;
		char txt[32];
		snprintf(txt, sizeof txt, "row-%d", base + r);
		rc = pm_ab_append_fixed(ch[0], &id, 1) | pm_ab_append_binary(ch[1], txt, strlen(txt));
	}
	if (rc || !(st = pm_ab_new_struct(ch, 2))) {
		pm_ab_free(ch[0]);
		pm_ab_free(ch[1]);
		return PAIMON_ENOMEM;
	}
	rc = pm_ab_append_valid(st, ROWS);
	if (rc == 0)
		rc = pm_ab_schema(st, s);
	if (rc == 0 && (rc = pm_ab_finish(st, a)) != 0)
		s->release(s);
	pm_ab_free(st);
	return rc;
}

/* Rows and the sum of "id" over the whole table. */
static int read_table(paimon_table *t, int64_t *rows, int64_t *idsum)
{
	paimon_read_builder *rb = NULL;
	paimon_plan *p = NULL;
	struct ArrowArrayStream st = {0};
	size_t i, n;
	int rc;
	*rows = *idsum = 0;
	if ((rc = paimon_read_builder_new(&rb, t)) || (rc = paimon_read_builder_plan(rb, &p)))
		goto done;
	n = paimon_plan_split_count(p);
	for (i = 0; i < n && rc == 0; i++) {
		const paimon_split *sp = paimon_plan_split(p, i);
		if ((rc = paimon_read_builder_read(rb, &sp, 1, &st)))
			break;
		for (;;) {
			struct ArrowArray a;
			int64_t r;
			if ((rc = st.get_next(&st, &a)) != 0) {
				fprintf(stderr, "read: %s\n", st.get_last_error(&st));
				break;
			}
			if (!a.release)
				break;
			for (r = 0; r < a.length; r++)
				*idsum += ((const int64_t *)a.children[0]->buffers[1])[r + a.children[0]->offset];
			*rows += a.length;
			a.release(&a);
		}
		st.release(&st);
		st.release = NULL;
	}
done:
	paimon_plan_free(p);
	paimon_read_builder_free(rb);
	return rc;
}

static void write_commit(paimon_table *t, int base)
{
	paimon_table_write *w = NULL;
	paimon_table_commit *cm = NULL;
	paimon_commit_message *m = NULL;
	struct ArrowArray a;
	struct ArrowSchema sc;
	CHECK_OK(make_batch(base, &a, &sc));
	CHECK_OK(paimon_table_write_new(&w, t, NULL));
	CHECK_OK(paimon_table_write_arrow(w, &a, &sc));
	CHECK_OK(paimon_table_write_prepare_commit(w, &m));
	CHECK_OK(paimon_table_commit_new(&cm, t, NULL));
	CHECK_OK(paimon_table_commit_apply(cm, &m, 1, 1, NULL));
	a.release(&a);
	sc.release(&sc);
	paimon_commit_message_free(m);
	paimon_table_commit_free(cm);
	paimon_table_write_free(w);
}

static void table_through_user_fileio(void)
{
	char *dir = test_tmpdir(), wh[4200];
	posix_fs fs;
	paimon_options *o;
	paimon_catalog *c = NULL;
	paimon_schema_spec *s = NULL;
	paimon_table *t = NULL;
	char **names = NULL;
	size_t nn = 0;
	int64_t rows, sum, want = 0;
	long stat_parquet_before, open_parquet_before, stats_before;
	int i, ex;
	memset(&fs, 0, sizeof fs);
	snprintf(wh, sizeof wh, SCHEME "%s/wh/", dir); /* a trailing slash is dropped */
	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "warehouse", wh));
	/* without the user's FileIO the scheme is refused */
	CHECK_RC(paimon_catalog_open(&c, o), PAIMON_EUNSUPPORTED);
	CHECK_OK(paimon_catalog_open_with_fileio(&c, o, &posix_methods, &fs));
	paimon_options_free(o);
	if (!c) {
		free(dir);
		return;
	}
	CHECK(strlen(paimon_catalog_warehouse(c)) == strlen(wh) - 1);
	CHECK(!strncmp(paimon_catalog_warehouse(c), wh, strlen(wh) - 1)); /* as written, no '/' at the end */
	CHECK_OK(paimon_catalog_create_database(c, "db", 0));
	CHECK_OK(paimon_catalog_database_exists(c, "db", &ex));
	CHECK(ex == 1);
	CHECK_OK(paimon_schema_spec_new(&s));
	CHECK_OK(paimon_schema_spec_add_columns(s, "id BIGINT, s STRING"));
	CHECK_OK(paimon_catalog_create_table(c, "db.t", s, 0));
	CHECK_RC(paimon_catalog_create_table(c, "db.t", s, 0), PAIMON_EEXISTS);
	paimon_schema_spec_free(s);
	CHECK_OK(paimon_catalog_list_tables(c, "db", &names, &nn));
	CHECK(nn == 1 && !strcmp(names[0], "t"));
	paimon_string_list_free(names, nn);
	CHECK_OK(paimon_catalog_get_table(c, "db.t", &t));
	/* the table keeps its own FileIO over the same callbacks: it outlives the catalog */
	paimon_catalog_free(c);
	c = NULL;
	for (i = 0; i < 3; i++) {
		write_commit(t, i * ROWS);
		want += (int64_t)(i * ROWS) * ROWS + (int64_t)ROWS * (ROWS - 1) / 2;
	}
	{ /* an aborted write removes its files through the callbacks */
		paimon_table_write *w = NULL;
		paimon_table_commit *cm = NULL;
		paimon_commit_message *m = NULL;
		struct ArrowArray a;
		struct ArrowSchema sc;
		long removes = atomic_load(&fs.count[C_REMOVE]);
		CHECK_OK(make_batch(0, &a, &sc));
		CHECK_OK(paimon_table_write_new(&w, t, NULL));
		CHECK_OK(paimon_table_write_arrow(w, &a, &sc));
		CHECK_OK(paimon_table_write_prepare_commit(w, &m));
		CHECK_OK(paimon_table_commit_new(&cm, t, NULL));
		CHECK_OK(paimon_table_commit_abort(cm, &m, 1));
		CHECK(atomic_load(&fs.count[C_REMOVE]) > removes);
		a.release(&a);
		sc.release(&sc);
		paimon_commit_message_free(m);
		paimon_table_commit_free(cm);
		paimon_table_write_free(w);
	}
	stat_parquet_before = atomic_load(&fs.count[C_STAT_PARQUET]);
	open_parquet_before = atomic_load(&fs.count[C_OPEN_READ_PARQUET]);
	stats_before = atomic_load(&fs.count[C_STAT]);
	CHECK_OK(read_table(t, &rows, &sum));
	CHECK(rows == 3 * ROWS);
	CHECK(sum == want);
	/* the Parquet files were opened through the callbacks, and not one stat */
	CHECK(atomic_load(&fs.count[C_OPEN_READ_PARQUET]) - open_parquet_before >= 3);
	CHECK(atomic_load(&fs.count[C_STAT_PARQUET]) == stat_parquet_before);
	(void)stats_before; /* other files may be stat'ed (e.g. by exists), Parquet files not */
	paimon_table_free(t);

	/* rename and drop go through the callbacks too */
	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "warehouse", wh));
	CHECK_OK(paimon_catalog_open_with_fileio(&c, o, &posix_methods, &fs));
	paimon_options_free(o);
	CHECK_OK(paimon_catalog_rename_table(c, "db.t", "db.u"));
	CHECK_OK(paimon_catalog_get_table(c, "db.u", &t));
	CHECK_OK(read_table(t, &rows, &sum));
	CHECK(rows == 3 * ROWS && sum == want);
	paimon_table_free(t);
	CHECK_RC(paimon_catalog_get_table(c, "db.t", &t), PAIMON_ENOTFOUND);
	CHECK_OK(paimon_catalog_drop_table(c, "db.u", 0));
	CHECK_OK(paimon_catalog_drop_database(c, "db", 0, 0));
	paimon_catalog_free(c);

	for (i = 0; i < C_N; i++) {
		long n = atomic_load(&fs.count[i]);
		int optional = i == C_ABORT_WRITE || i == C_STAT_PARQUET || i == C_STAT;
		if (!optional && n == 0) {
			test_failures++;
			fprintf(stderr, "[%s] callback %s never called\n", test_current, cnames[i]);
		}
	}
	if (atomic_load(&fs.count[C_OPENED]) != atomic_load(&fs.count[C_CLOSE_READ])) {
		test_failures++;
		fprintf(stderr, "[%s] %ld read handles opened, %ld closed\n", test_current,
			atomic_load(&fs.count[C_OPENED]), atomic_load(&fs.count[C_CLOSE_READ]));
	}
	CHECK(atomic_load(&fs.count[C_OPEN_WRITE]) ==
	      atomic_load(&fs.count[C_CLOSE_WRITE]) + atomic_load(&fs.count[C_ABORT_WRITE]));
	CHECK(fs.bad_paths == 0);
	rm_tree(dir);
	free(dir);
}

/* Unknown versions and missing callbacks are refused, naming them. */
static void bad_methods(void)
{
	paimon_fileio_methods m = posix_methods;
	paimon_options *o;
	paimon_catalog *c = (paimon_catalog *)1;
	posix_fs fs;
	memset(&fs, 0, sizeof fs);
	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "warehouse", SCHEME "/tmp/never-used"));
	m.version = 0;
	CHECK_RC(paimon_catalog_open_with_fileio(&c, o, &m, &fs), PAIMON_EINVAL);
	CHECK_MSG("version 0");
	CHECK(c == NULL);
	m.version = 99;
	CHECK_RC(paimon_catalog_open_with_fileio(&c, o, &m, &fs), PAIMON_EINVAL);
	CHECK_MSG("version 99");
	m.version = PAIMON_FILEIO_VERSION;
	m.write_new_atomic = NULL;
	CHECK_RC(paimon_catalog_open_with_fileio(&c, o, &m, &fs), PAIMON_EINVAL);
	CHECK_MSG("write_new_atomic");
	CHECK_RC(paimon_catalog_open_with_fileio(&c, o, NULL, &fs), PAIMON_EINVAL);
	paimon_options_free(o);
	CHECK(atomic_load(&fs.count[C_OPEN_READ]) == 0 && atomic_load(&fs.count[C_MKDIRS]) == 0);
}

/* Failures of callbacks: a missing file is PAIMON_ENOTFOUND, with the
 * callback's own message, or one the library writes naming the path. */
static void callback_errors(void)
{
	char *dir = test_tmpdir(), wh[4200];
	posix_fs fs;
	paimon_options *o;
	paimon_catalog *c = NULL;
	paimon_table *t = NULL;
	int ex = -1;
	memset(&fs, 0, sizeof fs);
	snprintf(wh, sizeof wh, SCHEME "%s/wh", dir);
	CHECK_OK(paimon_options_new(&o));
	CHECK_OK(paimon_options_set(o, "warehouse", wh));
	CHECK_OK(paimon_catalog_open_with_fileio(&c, o, &posix_methods, &fs));
	paimon_options_free(o);
	CHECK_RC(paimon_catalog_get_table(c, "db.nope", &t), PAIMON_ENOTFOUND);
	CHECK_RC(paimon_catalog_database_exists(c, "db", &ex), PAIMON_ENOTFOUND); /* no warehouse yet */
	CHECK_MSG(wh);
	CHECK_OK(paimon_catalog_create_database(c, "other", 0));
	CHECK_OK(paimon_catalog_database_exists(c, "db", &ex)); /* exists -> stat, not found = 0 */
	CHECK(ex == 0);
	CHECK(atomic_load(&fs.count[C_STAT]) > 0);
	paimon_catalog_free(c);
	{ /* the adapter itself: the callback's message, or one naming the callback and path */
		pm_fileio *io = NULL;
		pm_in_file *f = NULL;
		char p[4300], missing[4300];
		uint8_t b[8];
		snprintf(p, sizeof p, "%s/f", wh);
		snprintf(missing, sizeof missing, "%s/missing", wh);
		CHECK_OK(pm_fileio_user_new(&posix_methods, &fs, &io));
		CHECK_OK(pm_fileio_write_overwrite(io, p, "0123", 4)); /* default: a stream */
		CHECK_OK(pm_fileio_open_read(io, p, &f));
		CHECK(f && pm_in_length(f) == 4);
		CHECK_RC(pm_in_pread(f, 2, 4, b), PAIMON_ECORRUPT);
		CHECK_MSG("fileio read_at");
		CHECK_MSG(p);
		pm_in_close(f);
		CHECK_RC(pm_fileio_open_read(io, missing, &f), PAIMON_ENOTFOUND);
		CHECK_MSG("posix test fs: open");
		CHECK_MSG(missing);
		CHECK(f == NULL);
		{
			pm_buf bb = PM_BUF_INIT;
			CHECK_OK(pm_fileio_read_all(io, p, &bb)); /* default: over a handle */
			CHECK(bb.len == 4 && !memcmp(bb.data, "0123", 4));
			pm_buf_dispose(&bb);
		}
		CHECK_RC(pm_fileio_write_new_atomic(io, p, "x", 1), PAIMON_EEXISTS);
		CHECK_OK(pm_fileio_exists(io, missing, &ex));
		CHECK(ex == 0);
		pm_fileio_close(io);
	}
	rm_tree(dir);
	free(dir);
}

TEST_MAIN(T(table_through_user_fileio), T(bad_methods), T(callback_errors))
