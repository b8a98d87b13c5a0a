/*
 * io/fileio_branch.c - the FileIO of a table branch (Java Paimon's
 * layout, core-format §1.1): a branch keeps its own snapshot/, schema/,
 * tag/ and consumer/ directories under <table>/branch/branch-<name>/ and
 * shares the table's manifest/, index/, statistics/ and data directories.
 * This wrapper rewrites paths under <table>/{snapshot,schema,tag,consumer}
 * to the branch directory and passes everything else through, so every
 * module reads and writes a branch as it does the main table.
 */
#include "io/fileio.h"

#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "core/strs.h"

typedef struct branch_io {
	pm_fileio base;
	pm_fileio *inner;             /* owned unless borrowed */
	int borrowed;
	char *table;                  /* "<table>" without a trailing slash */
	size_t table_len;
	char *branch_dir;             /* "<table>/branch/branch-<name>" */
} branch_io;

static const char *const META_DIRS[] = {"snapshot", "schema", "tag", "consumer"};

/* The path to use for p: a fresh rewrite (*owned set, pm_free it) or p. */
static const char *map(branch_io *b, const char *p, char **owned)
{
	size_t i;
	*owned = NULL;
	if (!p || strncmp(p, b->table, b->table_len) || p[b->table_len] != '/')
		return p;
	for (i = 0; i < sizeof META_DIRS / sizeof META_DIRS[0]; i++) {
		size_t n = strlen(META_DIRS[i]);
		const char *rest = p + b->table_len + 1;
		if (!strncmp(rest, META_DIRS[i], n) && (rest[n] == '/' || !rest[n])) {
			size_t bl = strlen(b->branch_dir), rl = strlen(rest);
			char *q = pm_malloc(bl + 1 + rl + 1);
			if (!q)
				return NULL;
			memcpy(q, b->branch_dir, bl);
			q[bl] = '/';
			memcpy(q + bl + 1, rest, rl + 1);
			*owned = q;
			return q;
		}
	}
	return p;
}

#define MAPPED(path, expr)                                             \
	do {                                                           \
		char *own_;                                            \
		const char *mp_ = map(b, (path), &own_);               \
		int rc_;                                               \
		if (!mp_)                                              \
			return PAIMON_ENOMEM;                          \
		rc_ = (expr);                                          \
		pm_free(own_);                                         \
		return rc_;                                            \
	} while (0)

static int b_read_all(pm_fileio *io, const char *path, pm_buf *out)
{
	branch_io *b = (branch_io *)io;
	MAPPED(path, pm_fileio_read_all(b->inner, mp_, out));
}

static int b_read_range(pm_fileio *io, const char *path, uint64_t off, size_t len, void *dst)
{
	branch_io *b = (branch_io *)io;
	MAPPED(path, pm_fileio_read_range(b->inner, mp_, off, len, dst));
}

static int b_stat(pm_fileio *io, const char *path, pm_file_status *st)
{
	branch_io *b = (branch_io *)io;
	MAPPED(path, pm_fileio_stat(b->inner, mp_, st));
}

static int b_write_overwrite(pm_fileio *io, const char *path, const void *data, size_t len)
{
	branch_io *b = (branch_io *)io;
	MAPPED(path, pm_fileio_write_overwrite(b->inner, mp_, data, len));
}

static int b_write_new_atomic(pm_fileio *io, const char *path, const void *data, size_t len)
{
	branch_io *b = (branch_io *)io;
	MAPPED(path, pm_fileio_write_new_atomic(b->inner, mp_, data, len));
}

static int b_list(pm_fileio *io, const char *dir, pm_file_list *out)
{
	branch_io *b = (branch_io *)io;
	MAPPED(dir, pm_fileio_list(b->inner, mp_, out));
}

static int b_exists(pm_fileio *io, const char *path, int *exists)
{
	branch_io *b = (branch_io *)io;
	MAPPED(path, pm_fileio_exists(b->inner, mp_, exists));
}

static int b_mkdirs(pm_fileio *io, const char *dir)
{
	branch_io *b = (branch_io *)io;
	MAPPED(dir, pm_fileio_mkdirs(b->inner, mp_));
}

static int b_remove(pm_fileio *io, const char *path)
{
	branch_io *b = (branch_io *)io;
	MAPPED(path, pm_fileio_remove(b->inner, mp_));
}

static int b_remove_all(pm_fileio *io, const char *path)
{
	branch_io *b = (branch_io *)io;
	MAPPED(path, pm_fileio_remove_all(b->inner, mp_));
}

static int b_rename_new(pm_fileio *io, const char *src, const char *dst)
{
	branch_io *b = (branch_io *)io;
	char *o1, *o2;
	const char *s = map(b, src, &o1), *d = map(b, dst, &o2);
	int rc = s && d ? pm_fileio_rename_new(b->inner, s, d) : PAIMON_ENOMEM;
	pm_free(o1);
	pm_free(o2);
	return rc;
}

static int b_open_write(pm_fileio *io, const char *path, pm_out_stream **out)
{
	branch_io *b = (branch_io *)io;
	MAPPED(path, pm_fileio_open_write(b->inner, mp_, out));
}

static int b_sync(pm_fileio *io, const char *path)
{
	branch_io *b = (branch_io *)io;
	MAPPED(path, pm_fileio_sync(b->inner, mp_));
}

static int b_open_read(pm_fileio *io, const char *path, pm_in_file **out)
{
	branch_io *b = (branch_io *)io;
	MAPPED(path, pm_fileio_open_read(b->inner, mp_, out));
}

static void b_close(pm_fileio *io)
{
	branch_io *b = (branch_io *)io;
	if (!b->borrowed)
		pm_fileio_close(b->inner);
	pm_free(b->table);
	pm_free(b->branch_dir);
	pm_free(b);
}

static const pm_fileio_ops branch_ops = {
	b_read_all, b_read_range, b_stat, b_write_overwrite, b_write_new_atomic, b_list,
	b_exists, b_mkdirs, b_remove, b_remove_all, b_rename_new, b_close, b_open_write,
	b_sync, b_open_read,
};

static int branch_new(pm_fileio *inner, int borrowed, const char *table_path, const char *branch, pm_fileio **out)
{
	branch_io *b;
	size_t n;
	*out = NULL;
	if (!(b = pm_calloc(1, sizeof *b))) {
		if (!borrowed)
			pm_fileio_close(inner);
		return PAIMON_ENOMEM;
	}
	b->base.ops = &branch_ops;
	b->inner = inner;
	b->borrowed = borrowed;
	n = strlen(table_path);
	while (n > 1 && table_path[n - 1] == '/')
		n--;
	if (!(b->table = pm_strndup(table_path, n))) {
		b_close(&b->base);
		return PAIMON_ENOMEM;
	}
	b->table_len = n;
	if (!(b->branch_dir = pm_malloc(n + strlen(branch) + 16))) {
		b_close(&b->base);
		return PAIMON_ENOMEM;
	}
	snprintf(b->branch_dir, n + strlen(branch) + 16, "%s/branch/branch-%s", b->table, branch);
	*out = &b->base;
	return 0;
}

int pm_fileio_branch_new(pm_fileio *inner, const char *table_path, const char *branch, pm_fileio **out)
{
	return branch_new(inner, 0, table_path, branch, out);
}

int pm_fileio_branch_view(pm_fileio *inner, const char *table_path, const char *branch, pm_fileio **out)
{
	return branch_new(inner, 1, table_path, branch, out);
}

int pm_fileio_is_branch(const pm_fileio *io)
{
	return io && io->ops == &branch_ops;
}

int pm_list_branches(pm_fileio *io, const char *table_path, pm_strlist *out)
{
	pm_file_list l = {0};
	char *dir = pm_path_join(table_path, "branch");
	size_t i;
	int rc;
	if (!dir)
		return PAIMON_ENOMEM;
	rc = pm_fileio_list_optional(io, dir, &l);
	for (i = 0; i < l.len && !rc; i++)
		if (l.items[i].is_dir && !strncmp(l.items[i].name, "branch-", 7) && l.items[i].name[7])
			rc = pm_strlist_push(out, l.items[i].name + 7);
	pm_file_list_dispose(&l);
	pm_free(dir);
	return rc;
}
