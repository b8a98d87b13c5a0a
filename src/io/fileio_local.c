/*
 * io/fileio_local.c - FileIO over POSIX calls.
 *
 * write_new_atomic writes ".<name>.<random>.tmp" in the target directory,
 * fsyncs it, then link(2)s it to the final name: link never replaces an
 * existing file, so of two racing writers exactly one wins and the loser gets
 * PAIMON_EEXISTS. (rename(2) would silently overwrite.) The temp name is then
 * unlinked. Where link is not supported (EPERM/ENOTSUP on some file systems)
 * renameat2(RENAME_NOREPLACE) is used instead.
 */
#include "io/fileio.h"
#include "core/mem.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

/* Durability switch (tests only turn it off, as SQLite's synchronous=OFF). */
static int g_sync = 1;

void pm_fileio_local_set_sync(int on)
{
	g_sync = on;
}

static int os_err(int errnum, const char *what, const char *path)
{
	return pm_err_os(pm_err_from_errno(errnum), errnum, "%s '%s'", what, path);
}

char *pm_path_join(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *p;
	while (la > 1 && a[la - 1] == '/')
		la--;
	p = pm_malloc(la + lb + 2);
	if (!p)
		return NULL;
	memcpy(p, a, la);
	p[la] = '/';
	memcpy(p + la + 1, b, lb + 1);
	return p;
}

const char *pm_path_basename(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

void pm_file_list_dispose(pm_file_list *l)
{
	size_t i;
	for (i = 0; i < l->len; i++)
		pm_free(l->items[i].name);
	pm_free(l->items);
	l->items = NULL;
	l->len = l->cap = 0;
}

int pm_fileio_list_optional(pm_fileio *io, const char *dir, pm_file_list *out)
{
	int rc = pm_fileio_list(io, dir, out);
	if (rc == PAIMON_ENOTFOUND) {
		paimon_error_clear();
		return 0;
	}
	return rc;
}

static int local_read_all(pm_fileio *io, const char *path, pm_buf *out)
{
	int fd, rc = 0;
	struct stat st;
	(void)io;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return os_err(errno, "cannot open", path);
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		return pm_err(PAIMON_EIO, "cannot read '%s': is a directory", path);
	}
	for (;;) {
		ssize_t n;
		if (pm_buf_reserve(out, 65536)) {
			rc = PAIMON_ENOMEM;
			break;
		}
		n = read(fd, out->data + out->len, out->cap - out->len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = os_err(errno, "cannot read", path);
			break;
		}
		if (n == 0)
			break;
		out->len += (size_t)n;
		out->data[out->len] = '\0';
	}
	close(fd);
	return rc;
}

/* Reads exactly len bytes at off from fd (pread: no shared offset, so
 * several threads may read one descriptor at once). */
static int pread_full(int fd, const char *path, uint64_t off, size_t len, void *dst)
{
	size_t done = 0;
	while (done < len) {
		ssize_t n = pread(fd, (char *)dst + done, len - done, (off_t)(off + done));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return os_err(errno, "cannot read", path);
		}
		if (n == 0)
			return pm_in_truncated(path, off, len, len - done);
		done += (size_t)n;
	}
	return 0;
}

static int local_read_range(pm_fileio *io, const char *path, uint64_t off, size_t len, void *dst)
{
	int fd, rc;
	(void)io;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return os_err(errno, "cannot open", path);
	rc = pread_full(fd, path, off, len, dst);
	close(fd);
	return rc;
}

/* An open input file: the descriptor and the length fstat gave at open. */
typedef struct local_in {
	pm_in_file base;
	int fd;
	uint64_t len;
	char *path;
} local_in;

static int local_in_read_at(pm_in_file *f, uint64_t off, size_t len, void *dst)
{
	local_in *l = (local_in *)f;
	return pread_full(l->fd, l->path, off, len, dst);
}

static uint64_t local_in_length(pm_in_file *f)
{
	return ((local_in *)f)->len;
}

static void local_in_close(pm_in_file *f)
{
	local_in *l = (local_in *)f;
	close(l->fd);
	pm_free(l->path);
	pm_free(l);
}

static int local_open_read(pm_fileio *io, const char *path, pm_in_file **out)
{
	local_in *l;
	struct stat st;
	int fd, rc;
	(void)io;
	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return os_err(errno, "cannot open", path);
	if (fstat(fd, &st) != 0) {
		rc = os_err(errno, "cannot stat", path);
		close(fd);
		return rc;
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return pm_err(PAIMON_EIO, "cannot read '%s': is a directory", path);
	}
	if (!(l = pm_calloc(1, sizeof *l)) || !(l->path = pm_strdup(path))) {
		pm_free(l);
		close(fd);
		return PAIMON_ENOMEM;
	}
	l->fd = fd;
	l->len = (uint64_t)st.st_size;
	l->base.read_at = local_in_read_at;
	l->base.length = local_in_length;
	l->base.close = local_in_close;
	*out = &l->base;
	return 0;
}

static void fill_status(const struct stat *st, pm_file_status *out)
{
	out->is_dir = S_ISDIR(st->st_mode);
	out->size = (uint64_t)st->st_size;
	out->mtime_ms = (int64_t)st->st_mtim.tv_sec * 1000 + st->st_mtim.tv_nsec / 1000000;
}

static int local_stat(pm_fileio *io, const char *path, pm_file_status *out)
{
	struct stat st;
	(void)io;
	if (stat(path, &st) != 0)
		return os_err(errno, "cannot stat", path);
	fill_status(&st, out);
	return 0;
}

static int write_fd_all(int fd, const void *data, size_t len, const char *path)
{
	size_t done = 0;
	while (done < len) {
		ssize_t n = write(fd, (const char *)data + done, len - done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return os_err(errno, "cannot write", path);
		}
		done += (size_t)n;
	}
	return 0;
}

static int local_write_overwrite(pm_fileio *io, const char *path, const void *data, size_t len)
{
	int fd, rc;
	(void)io;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return os_err(errno, "cannot create", path);
	rc = write_fd_all(fd, data, len, path);
	if (close(fd) != 0 && rc == 0)
		rc = os_err(errno, "cannot close", path);
	return rc;
}

static void random_suffix(char *out, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char raw[16];
	size_t i;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	ssize_t got = fd >= 0 ? read(fd, raw, sizeof raw) : -1;
	if (fd >= 0)
		close(fd);
	if (got != (ssize_t)sizeof raw) {
		struct timespec ts;
		unsigned long long x;
		clock_gettime(CLOCK_REALTIME, &ts);
		x = (unsigned long long)ts.tv_nsec ^ ((unsigned long long)getpid() << 32) ^ (unsigned long long)ts.tv_sec;
		for (i = 0; i < sizeof raw; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			raw[i] = (unsigned char)(x >> 56);
		}
	}
	for (i = 0; i + 1 < n && i < 2 * sizeof raw; i++)
		out[i] = hex[(raw[i / 2] >> ((i & 1) ? 0 : 4)) & 15];
	out[i] = '\0';
}

/* Makes a new directory entry in dst's directory durable (best effort: a
 * failure here cannot undo the publish, and the file itself is synced). */
static void sync_parent_dir(const char *dst)
{
	const char *base = pm_path_basename(dst);
	char dir[4096];
	size_t n = (size_t)(base - dst);
	int fd;
	if (n == 0 || n >= sizeof dir)
		return;
	memcpy(dir, dst, n);
	dir[n] = '\0';
	if (!g_sync)
		return;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
}

/* Moves tmp to dst without ever replacing dst. */
static int publish_noreplace(const char *tmp, const char *dst)
{
	if (link(tmp, dst) == 0) {
		unlink(tmp);
		sync_parent_dir(dst);
		return 0;
	}
	if (errno == EEXIST) {
		unlink(tmp);
		return pm_err(PAIMON_EEXISTS, "cannot publish '%s': it already exists", dst);
	}
	if (errno == EPERM || errno == ENOTSUP || errno == EOPNOTSUPP || errno == EXDEV) {
		if (syscall(SYS_renameat2, AT_FDCWD, tmp, AT_FDCWD, dst, RENAME_NOREPLACE) == 0) {
			sync_parent_dir(dst);
			return 0;
		}
		if (errno == EEXIST) {
			unlink(tmp);
			return pm_err(PAIMON_EEXISTS, "cannot publish '%s': it already exists", dst);
		}
	}
	{
		int e = errno;
		unlink(tmp);
		return os_err(e, "cannot publish", dst);
	}
}

static int local_write_new_atomic(pm_fileio *io, const char *path, const void *data, size_t len)
{
	const char *base = pm_path_basename(path);
	size_t dirlen = (size_t)(base - path);
	char rnd[33];
	pm_buf tmp = PM_BUF_INIT;
	int fd, rc;
	(void)io;
	random_suffix(rnd, sizeof rnd);
	if (pm_buf_append(&tmp, path, dirlen) || pm_buf_printf(&tmp, ".%s.%s.tmp", base, rnd)) {
		pm_buf_dispose(&tmp);
		return PAIMON_ENOMEM;
	}
	fd = open(tmp.data, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = os_err(errno, "cannot create temporary file for", path);
		pm_buf_dispose(&tmp);
		return rc;
	}
	rc = write_fd_all(fd, data, len, tmp.data);
	if (rc == 0 && g_sync && fsync(fd) != 0)
		rc = os_err(errno, "cannot sync", tmp.data);
	if (close(fd) != 0 && rc == 0)
		rc = os_err(errno, "cannot close", tmp.data);
	if (rc == 0)
		rc = publish_noreplace(tmp.data, path);
	else
		unlink(tmp.data);
	pm_buf_dispose(&tmp);
	return rc;
}

static int cmp_status(const void *a, const void *b)
{
	return strcmp(((const pm_file_status *)a)->name, ((const pm_file_status *)b)->name);
}

static int local_list(pm_fileio *io, const char *dir, pm_file_list *out)
{
	DIR *d;
	struct dirent *de;
	int rc = 0;
	(void)io;
	d = opendir(dir);
	if (!d)
		return os_err(errno, "cannot list directory", dir);
	while ((de = readdir(d)) != NULL) {
		struct stat st;
		pm_file_status *fs;
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (out->len == out->cap) {
			size_t ncap = out->cap ? out->cap * 2 : 16;
			pm_file_status *n = pm_realloc(out->items, ncap * sizeof *n);
			if (!n) {
				rc = PAIMON_ENOMEM;
				break;
			}
			out->items = n;
			out->cap = ncap;
		}
		fs = &out->items[out->len];
		memset(fs, 0, sizeof *fs);
		if (fstatat(dirfd(d), de->d_name, &st, 0) != 0)
			continue; /* vanished between readdir and stat */
		fill_status(&st, fs);
		fs->name = pm_strdup(de->d_name);
		if (!fs->name) {
			rc = PAIMON_ENOMEM;
			break;
		}
		out->len++;
	}
	closedir(d);
	if (rc) {
		pm_file_list_dispose(out);
		return rc;
	}
	if (out->len > 1)
		qsort(out->items, out->len, sizeof *out->items, cmp_status);
	return 0;
}

static int local_exists(pm_fileio *io, const char *path, int *exists)
{
	struct stat st;
	(void)io;
	if (stat(path, &st) == 0) {
		*exists = 1;
		return 0;
	}
	if (errno == ENOENT || errno == ENOTDIR) {
		*exists = 0;
		return 0;
	}
	return os_err(errno, "cannot stat", path);
}

static int local_mkdirs(pm_fileio *io, const char *dir)
{
	char *p = pm_strdup(dir), *s;
	int rc = 0;
	(void)io;
	if (!p)
		return PAIMON_ENOMEM;
	for (s = p + 1;; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;
			struct stat st;
			*s = '\0';
			if (mkdir(p, 0755) != 0 && errno != EEXIST) {
				rc = os_err(errno, "cannot create directory", p);
				break;
			}
			if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode)) {
				rc = pm_err(PAIMON_EIO, "cannot create directory '%s': a file is in the way", p);
				break;
			}
			*s = c;
			if (c == '\0')
				break;
		}
	}
	pm_free(p);
	return rc;
}

static int local_remove(pm_fileio *io, const char *path)
{
	(void)io;
	if (unlink(path) == 0 || errno == ENOENT)
		return 0;
	if (errno == EISDIR || errno == EPERM) {
		/* a directory: only an empty one goes (rmdir never recurses) */
		if (rmdir(path) == 0 || errno == ENOENT)
			return 0;
		return os_err(errno, "cannot delete directory", path);
	}
	return os_err(errno, "cannot delete", path);
}

static int remove_tree(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	int rc = 0;
	if (lstat(path, &st) != 0)
		return errno == ENOENT ? 0 : os_err(errno, "cannot stat", path);
	if (!S_ISDIR(st.st_mode)) {
		if (unlink(path) != 0 && errno != ENOENT)
			return os_err(errno, "cannot delete", path);
		return 0;
	}
	d = opendir(path);
	if (!d)
		return os_err(errno, "cannot list directory", path);
	while (rc == 0 && (de = readdir(d)) != NULL) {
		char *child;
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		child = pm_path_join(path, de->d_name);
		if (!child) {
			rc = PAIMON_ENOMEM;
			break;
		}
		rc = remove_tree(child);
		pm_free(child);
	}
	closedir(d);
	if (rc == 0 && rmdir(path) != 0 && errno != ENOENT)
		rc = os_err(errno, "cannot delete directory", path);
	return rc;
}

static int local_remove_all(pm_fileio *io, const char *path)
{
	(void)io;
	return remove_tree(path);
}

static int local_rename_new(pm_fileio *io, const char *src, const char *dst)
{
	(void)io;
	if (syscall(SYS_renameat2, AT_FDCWD, src, AT_FDCWD, dst, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno == EEXIST)
		return pm_err(PAIMON_EEXISTS, "cannot rename '%s' to '%s': target exists", src, dst);
	if (errno == EINVAL || errno == ENOSYS) {
		/* No renameat2 on this file system: fall back to link + unlink for files. */
		if (link(src, dst) == 0) {
			unlink(src);
			return 0;
		}
		if (errno == EEXIST)
			return pm_err(PAIMON_EEXISTS, "cannot rename '%s' to '%s': target exists", src, dst);
	}
	return pm_err_os(pm_err_from_errno(errno), errno, "cannot rename '%s' to '%s'", src, dst);
}

static void local_close(pm_fileio *io)
{
	pm_free(io);
}

/* Streaming output: a file descriptor; appends go straight to write(2). */
typedef struct local_out {
	pm_out_stream base;
	int fd;
	char *path;
} local_out;

static int local_out_append(pm_out_stream *s, const void *data, size_t len)
{
	local_out *o = (local_out *)s;
	return write_fd_all(o->fd, data, len, o->path);
}

static int local_out_close(pm_out_stream *s)
{
	local_out *o = (local_out *)s;
	int rc = 0;
	/* Durability comes from the sync op (syncfs) the commit calls before
	 * publishing: one call for all data files instead of one each. */
	if (close(o->fd) != 0)
		rc = os_err(errno, "cannot close", o->path);
	pm_free(o->path);
	pm_free(o);
	return rc;
}

static void local_out_abort(pm_out_stream *s)
{
	local_out *o = (local_out *)s;
	close(o->fd);
	unlink(o->path);
	pm_free(o->path);
	pm_free(o);
}

static int local_open_write(pm_fileio *io, const char *path, pm_out_stream **out)
{
	local_out *o;
	(void)io;
	*out = NULL;
	if (!(o = pm_calloc(1, sizeof *o)))
		return PAIMON_ENOMEM;
	if (!(o->path = pm_strdup(path))) {
		pm_free(o);
		return PAIMON_ENOMEM;
	}
	o->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (o->fd < 0) {
		int rc = os_err(errno, "cannot create", path);
		pm_free(o->path);
		pm_free(o);
		return rc;
	}
	o->base.append = local_out_append;
	o->base.close = local_out_close;
	o->base.abort = local_out_abort;
	*out = &o->base;
	return 0;
}

static int local_sync(pm_fileio *io, const char *path)
{
	int fd;
	(void)io;
	if (!g_sync)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return os_err(errno, "cannot open for syncing", path);
	if (syncfs(fd) != 0) {
		int e = errno;
		close(fd);
		return os_err(e, "cannot sync the file system of", path);
	}
	close(fd);
	return 0;
}

static const pm_fileio_ops local_ops = {
	local_read_all, local_read_range, local_stat, local_write_overwrite,
	local_write_new_atomic, local_list, local_exists, local_mkdirs,
	local_remove, local_remove_all, local_rename_new, local_close,
	local_open_write, local_sync, local_open_read,
};

int pm_fileio_local_new(pm_fileio **out)
{
	pm_fileio *io = pm_calloc(1, sizeof *io);
	if (!io)
		return PAIMON_ENOMEM;
	io->ops = &local_ops;
	*out = io;
	return 0;
}

/* ------------------------------------------------------------ factory */

static int (*g_factory)(void *ctx, pm_fileio **out);
static void *g_factory_ctx;

void pm_fileio_set_factory(int (*fn)(void *ctx, pm_fileio **out), void *ctx)
{
	g_factory = fn;
	g_factory_ctx = ctx;
}

int pm_fileio_default_new(pm_fileio **out)
{
	if (g_factory)
		return g_factory(g_factory_ctx, out);
	return pm_fileio_local_new(out);
}
