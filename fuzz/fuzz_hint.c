/*
 * fuzz/fuzz_hint.c - what a table directory tells the snapshot and tag
 * lookups: the LATEST / EARLIEST hint files (free text in theory, a number
 * in practice) and the names listed in snapshot/ and tag/
 * (meta/snapshot.h pm_snapshot_latest_id / _earliest_id / list_ids,
 * meta/tag.c pm_tag_list, pm_tag_validate_name). The files live in a small
 * in-memory FileIO defined here.
 *
 * Input: lines. Line 1 is the LATEST hint, line 2 the EARLIEST hint (byte
 * 0 of the input: bit 0 = LATEST exists, bit 1 = EARLIEST exists; the
 * byte is not part of line 1); every further line is a file name present
 * in both snapshot/ and tag/.
 * Invariants: a latest/earliest id found is the id of a listed
 * snapshot-<digits> file; no snapshot file -> nothing found; the tags
 * listed are exactly the tag-<x> names; after writing the LATEST
 * (EARLIEST) hint for the largest (smallest) listed id, the lookup returns
 * that id (write hint -> read hint round trip). Errors are fine.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/mem.h"
#include "core/strs.h"
#include "io/fileio.h"
#include "meta/snapshot.h"

#define MAXF 64
#define TABLE "/t"

typedef struct memfs {
	pm_fileio base;
	size_t n;
	char *path[MAXF];
	pm_buf data[MAXF];
} memfs;

static void fail(const char *what)
{
	fprintf(stderr, "invariant broken: %s\n", what);
	fprintf(stderr, "last error: %s\n", paimon_error_message());
	abort();
}

static long find(memfs *fs, const char *path)
{
	size_t i;
	for (i = 0; i < fs->n; i++)
		if (strcmp(fs->path[i], path) == 0)
			return (long)i;
	return -1;
}

static int m_read_all(pm_fileio *io, const char *path, pm_buf *out)
{
	memfs *fs = (memfs *)io;
	long i = find(fs, path);
	if (i < 0)
		return pm_err(PAIMON_ENOTFOUND, "%s: not found", path);
	return pm_buf_append(out, fs->data[i].data ? fs->data[i].data : "", fs->data[i].len);
}

static int m_exists(pm_fileio *io, const char *path, int *exists)
{
	*exists = find((memfs *)io, path) >= 0;
	return 0;
}

static int m_list(pm_fileio *io, const char *dir, pm_file_list *out)
{
	memfs *fs = (memfs *)io;
	size_t i, dl = strlen(dir);
	for (i = 0; i < fs->n; i++) {
		const char *p = fs->path[i];
		if (strncmp(p, dir, dl) != 0 || p[dl] != '/' || strchr(p + dl + 1, '/'))
			continue;
		if (out->len == out->cap) {
			size_t cap = out->cap ? out->cap * 2 : 8;
			pm_file_status *items = pm_realloc(out->items, cap * sizeof *items);
			if (!items)
				return PAIMON_ENOMEM;
			out->items = items;
			out->cap = cap;
		}
		memset(&out->items[out->len], 0, sizeof out->items[0]);
		if (!(out->items[out->len].name = pm_strdup(p + dl + 1)))
			return PAIMON_ENOMEM;
		out->items[out->len++].size = fs->data[i].len;
	}
	return 0;
}

static int add(memfs *fs, const char *path, const void *p, size_t n)
{
	long i = find(fs, path);
	if (i < 0) {
		if (fs->n == MAXF)
			return 0;
		i = (long)fs->n++;
		if (!(fs->path[i] = pm_strdup(path)))
			abort();
		memset(&fs->data[i], 0, sizeof fs->data[i]);
	}
	pm_buf_clear(&fs->data[i]);
	return pm_buf_append(&fs->data[i], p, n);
}

static int m_write_overwrite(pm_fileio *io, const char *path, const void *p, size_t n)
{
	return add((memfs *)io, path, p, n);
}

static int m_unsupported(void)
{
	return pm_err(PAIMON_EUNSUPPORTED, "memfs: operation not supported");
}
static int m_read_range(pm_fileio *io, const char *p, uint64_t o, size_t n, void *d) { return m_unsupported(); }
static int m_stat(pm_fileio *io, const char *p, pm_file_status *st) { return m_unsupported(); }
static int m_write_new(pm_fileio *io, const char *p, const void *d, size_t n) { return m_unsupported(); }
static int m_mkdirs(pm_fileio *io, const char *d) { return 0; }
static int m_remove(pm_fileio *io, const char *p) { return m_unsupported(); }
static int m_rename(pm_fileio *io, const char *a, const char *b) { return m_unsupported(); }
static void m_close(pm_fileio *io) { (void)io; }

static const pm_fileio_ops memfs_ops = {
	.read_all = m_read_all, .read_range = m_read_range, .stat = m_stat,
	.write_overwrite = m_write_overwrite, .write_new_atomic = m_write_new, .list = m_list,
	.exists = m_exists, .mkdirs = m_mkdirs, .remove = m_remove, .remove_all = m_remove,
	.rename_new = m_rename, .close = m_close, .open_write = NULL,
};

/* The id of "snapshot-<digits>" as the listing rules read it; -1 otherwise. */
static int64_t snapshot_id_of(const char *name)
{
	const char *d;
	int64_t x = 0;
	if (strncmp(name, "snapshot-", 9) != 0 || !name[9])
		return -1;
	for (d = name + 9; *d; d++) {
		if (*d < '0' || *d > '9' || x > (INT64_MAX - 9) / 10)
			return -1;
		x = x * 10 + (*d - '0');
	}
	return x;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	memfs fs;
	size_t pos = 1, line = 0, i, ntags = 0;
	int64_t id, lo = INT64_MAX, hi = -1;
	int found, nsnap = 0;
	pm_strlist tags = {0};
	if (size < 1)
		return 0;
	memset(&fs, 0, sizeof fs);
	fs.base.ops = &memfs_ops;
	while (pos <= size && fs.n < MAXF - 4) {
		const uint8_t *nl = pos < size ? memchr(data + pos, '\n', size - pos) : NULL;
		size_t len = nl ? (size_t)(nl - (data + pos)) : size - pos;
		char *s = pm_malloc(len + 32);
		if (!s)
			abort();
		if (line < 2) {
			if (data[0] & (1u << line))
				add(&fs, line == 0 ? TABLE "/snapshot/LATEST" : TABLE "/snapshot/EARLIEST", data + pos,
				    len);
		} else if (len && !memchr(data + pos, 0, len)) {
			char *name = pm_malloc(len + 1);
			int64_t sid;
			if (!name)
				abort();
			memcpy(name, data + pos, len);
			name[len] = 0;
			(void)pm_tag_validate_name(name);
			if (!strchr(name, '/') && find(&fs, (snprintf(s, len + 32, TABLE "/snapshot/%s", name), s)) < 0) {
				add(&fs, s, "{}", 2);
				snprintf(s, len + 32, TABLE "/tag/%s", name);
				add(&fs, s, "{}", 2);
				sid = snapshot_id_of(name);
				if (sid >= 0) {
					nsnap++;
					if (sid < lo)
						lo = sid;
					if (sid > hi)
						hi = sid;
				}
				if (strncmp(name, "tag-", 4) == 0 && name[4])
					ntags++;
			}
			pm_free(name);
		}
		pm_free(s);
		line++;
		if (!nl)
			break;
		pos += len + 1;
	}

	if (pm_snapshot_latest_id(&fs.base, TABLE, &id, &found) == 0) {
		if (found && (nsnap == 0 || id < lo || id > hi))
			fail("latest id is not a listed snapshot");
		if (!found && nsnap)
			fail("latest id not found although snapshots are listed");
	}
	if (pm_snapshot_earliest_id(&fs.base, TABLE, &id, &found) == 0) {
		if (found && (nsnap == 0 || id < lo || id > hi))
			fail("earliest id is not a listed snapshot");
		if (!found && nsnap)
			fail("earliest id not found although snapshots are listed");
	}
	if (pm_tag_list(&fs.base, TABLE, &tags) == 0 && tags.len != ntags)
		fail("tag listing does not match the tag files");
	for (i = 0; i < tags.len; i++)
		(void)pm_tag_validate_name(tags.items[i]);
	pm_strlist_dispose(&tags);
	if (nsnap) {
		if (pm_snapshot_write_hint(&fs.base, TABLE, "LATEST", hi) ||
		    pm_snapshot_latest_id(&fs.base, TABLE, &id, &found) || !found || id != hi)
			fail("LATEST hint written for the newest snapshot does not read back");
		if (pm_snapshot_write_hint(&fs.base, TABLE, "EARLIEST", lo) ||
		    pm_snapshot_earliest_id(&fs.base, TABLE, &id, &found) || !found || id != lo)
			fail("EARLIEST hint written for the oldest snapshot does not read back");
	}
	for (i = 0; i < fs.n; i++) {
		pm_free(fs.path[i]);
		pm_buf_dispose(&fs.data[i]);
	}
	return 0;
}
