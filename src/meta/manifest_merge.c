/*
 * meta/manifest_merge.c - FileEntry.mergeEntries (spec §4.7) over a hash
 * map keyed by the file identifier, and reading a snapshot's live files.
 *
 * The merger keeps entries in arrival order in one array (slots of removed
 * entries are disposed at once and skipped at the end) and an open-addressing
 * table (linear probing, backward-shift deletion) from identifier hash to
 * slot. Every operation is O(1) expected, so merging N entries is O(N).
 */
#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "meta/manifest.h"

/* Table cell: entry index + 1 (0 = empty) and the high hash bits, so most
 * probes are decided without touching the (large, cold) entry. */
typedef struct tent {
	uint32_t idx;
	uint32_t tag;
} tent;

/* A merge state over an entry array: ents[i] with hashes[i] and live[i]
 * (0: removed, its contents disposed). The merger owns its arrays;
 * pm_manifest_read_all runs one over the list it read, in place. */
typedef struct mstate {
	pm_manifest_entry *ents;
	uint64_t *hashes;
	uint8_t *live;
	size_t len;
	tent *table;
	size_t tcap;         /* power of two */
	size_t count;        /* live entries in the table */
	size_t deletes;      /* live DELETE entries */
} mstate;

struct pm_entry_merger {
	mstate s;
	size_t cap;          /* of ents/hashes/live */
};

/* ------------------------------------------------------------ identity */

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	h *= 0xff51afd7ed558ccdULL;
	return h ^ (h >> 32);
}

static uint64_t hash_bytes(uint64_t h, const void *data, size_t n)
{
	const uint8_t *p = data;
	uint64_t w;
	h = mix(h, n);
	while (n >= 8) {
		memcpy(&w, p, 8);
		h = mix(h, w);
		p += 8;
		n -= 8;
	}
	if (n) {
		w = 0;
		memcpy(&w, p, n);
		h = mix(h, w);
	}
	return h;
}

static uint64_t hash_str(uint64_t h, const char *s)
{
	return s ? hash_bytes(h, s, strlen(s)) : mix(h, 0x5bd1e995ULL);
}

static uint64_t identifier_hash(const pm_manifest_entry *e)
{
	const pm_data_file_meta *f = &e->file;
	uint64_t h = 0x243f6a8885a308d3ULL;
	size_t i;
	h = hash_bytes(h, e->partition.p, e->partition.n);
	h = mix(h, (uint64_t)(uint32_t)e->bucket << 32 | (uint32_t)f->level);
	h = hash_str(h, f->file_name);
	h = mix(h, f->extra_files.len);
	for (i = 0; i < f->extra_files.len; i++)
		h = hash_str(h, f->extra_files.items[i]);
	if (f->has_embedded_file_index)
		h = hash_bytes(h, f->embedded_file_index.p, f->embedded_file_index.n);
	else
		h = mix(h, 1);
	return hash_str(h, f->external_path);
}

static int str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static int bytes_eq(const pm_bytes *a, const pm_bytes *b)
{
	return a->n == b->n && (!a->n || !memcmp(a->p, b->p, a->n));
}

static int identifier_eq(const pm_manifest_entry *a, const pm_manifest_entry *b)
{
	const pm_data_file_meta *x = &a->file, *y = &b->file;
	size_t i;
	if (a->bucket != b->bucket || x->level != y->level || !str_eq(x->file_name, y->file_name) ||
	    !bytes_eq(&a->partition, &b->partition) || x->extra_files.len != y->extra_files.len ||
	    x->has_embedded_file_index != y->has_embedded_file_index || !str_eq(x->external_path, y->external_path))
		return 0;
	if (x->has_embedded_file_index && !bytes_eq(&x->embedded_file_index, &y->embedded_file_index))
		return 0;
	for (i = 0; i < x->extra_files.len; i++)
		if (!str_eq(x->extra_files.items[i], y->extra_files.items[i]))
			return 0;
	return 1;
}

/* -------------------------------------------------------------- table */

/* Grows the table to hold `want` live entries at load <= 1/2. */
static int table_reserve(mstate *m, size_t want)
{
	size_t nc = m->tcap ? m->tcap : 1024, i;
	tent *t;
	while (want * 2 > nc)
		nc *= 2;
	if (nc == m->tcap)
		return 0;
	if (!(t = pm_calloc(nc, sizeof *t)))
		return PAIMON_ENOMEM;
	for (i = 0; i < m->tcap; i++) {
		tent c = m->table[i];
		size_t j;
		if (!c.idx)
			continue;
		j = (size_t)m->hashes[c.idx - 1] & (nc - 1);
		while (t[j].idx)
			j = (j + 1) & (nc - 1);
		t[j] = c;
	}
	pm_free(m->table);
	m->table = t;
	m->tcap = nc;
	return 0;
}

/* Table position holding an entry with e's identifier, or -1. *empty gets
 * the first empty position of the probe sequence. */
static long table_find(const mstate *m, const pm_manifest_entry *e, uint64_t h, size_t *empty)
{
	size_t j = (size_t)h & (m->tcap - 1);
	uint32_t tag = (uint32_t)(h >> 32);
	for (;;) {
		tent c = m->table[j];
		if (!c.idx) {
			*empty = j;
			return -1;
		}
		if (c.tag == tag && m->hashes[c.idx - 1] == h && identifier_eq(&m->ents[c.idx - 1], e))
			return (long)j;
		j = (j + 1) & (m->tcap - 1);
	}
}

static void table_remove(mstate *m, size_t j)
{
	size_t mask = m->tcap - 1, k = j;
	m->table[j].idx = 0;
	/* Backward-shift the following cluster so probes stay unbroken. */
	for (;;) {
		size_t home;
		k = (k + 1) & mask;
		if (!m->table[k].idx)
			break;
		home = (size_t)m->hashes[m->table[k].idx - 1] & mask;
		/* Move k to j if home is not cyclically in (j, k]. */
		if ((j < k) ? (home <= j || home > k) : (home <= j && home > k)) {
			m->table[j] = m->table[k];
			m->table[k].idx = 0;
			j = k;
		}
	}
	m->count--;
}

/*
 * Applies ents[i] (already in place, owned by the state) to the merge:
 * ADD inserts, DELETE cancels a known identifier (both are disposed) or
 * stays as a pending DELETE. Table room must have been reserved.
 * On error ents[i] is left as it was (live[i] = 0, not disposed).
 */
static int apply(mstate *m, size_t i)
{
	pm_manifest_entry *e = &m->ents[i];
	uint64_t h = identifier_hash(e);
	size_t empty = 0;
	long j;
	m->hashes[i] = h;
	m->live[i] = 0;
	j = table_find(m, e, h, &empty);
	if (j >= 0) {
		size_t o = m->table[j].idx - 1;
		if (e->kind == PM_FILE_KIND_ADD)
			return pm_err(PAIMON_ECORRUPT,
				      "manifest entries: file %s (bucket %d, level %d) is added twice (already %s)",
				      e->file.file_name ? e->file.file_name : "?", (int)e->bucket, (int)e->file.level,
				      m->ents[o].kind == PM_FILE_KIND_ADD ? "added" : "deleted");
		/* Java removes whatever entry the map holds for the identifier. */
		if (m->ents[o].kind == PM_FILE_KIND_DELETE)
			m->deletes--;
		pm_manifest_entry_dispose(&m->ents[o]);
		m->live[o] = 0;
		table_remove(m, (size_t)j);
		pm_manifest_entry_dispose(e);
		return 0;
	}
	m->table[empty].idx = (uint32_t)(i + 1);
	m->table[empty].tag = (uint32_t)(h >> 32);
	m->count++;
	m->live[i] = 1;
	if (e->kind == PM_FILE_KIND_DELETE)
		m->deletes++;
	return 0;
}

/* Moves live entries of kind `kind` (or both when kind < 0) to out, in
 * array order; out must have room. */
static void take_live(mstate *m, int kind, pm_manifest_entry_list *out)
{
	size_t i;
	for (i = 0; i < m->len; i++)
		if (m->live[i] && (kind < 0 || m->ents[i].kind == kind)) {
			out->items[out->len++] = m->ents[i];
			m->live[i] = 0;
		}
}

static void mstate_clear(mstate *m, int own)
{
	size_t i;
	if (own)
		for (i = 0; i < m->len; i++)
			if (m->live[i])
				pm_manifest_entry_dispose(&m->ents[i]);
	m->len = 0;
	m->count = 0;
	m->deletes = 0;
	if (m->table)
		memset(m->table, 0, m->tcap * sizeof *m->table);
}

static int list_reserve(pm_manifest_entry_list *l, size_t extra)
{
	pm_manifest_entry *ni;
	if (l->len + extra <= l->cap)
		return 0;
	if (!(ni = pm_realloc(l->items, (l->len + extra) * sizeof *ni)))
		return PAIMON_ENOMEM;
	l->items = ni;
	l->cap = l->len + extra;
	return 0;
}

/* ------------------------------------------------------------- merger */

int pm_entry_merger_new(pm_entry_merger **out)
{
	*out = pm_calloc(1, sizeof **out);
	return *out ? 0 : PAIMON_ENOMEM;
}

static int merger_reserve(pm_entry_merger *m, size_t extra)
{
	mstate *s = &m->s;
	size_t nc = m->cap ? m->cap : 256;
	void *p;
	if (s->len + extra > UINT32_MAX - 1)
		return pm_err(PAIMON_ENOMEM, "manifest entries: too many entries to merge");
	if (s->len + extra > m->cap) {
		while (nc < s->len + extra)
			nc *= 2;
		if (!(p = pm_realloc(s->ents, nc * sizeof *s->ents)))
			return PAIMON_ENOMEM;
		s->ents = p;
		if (!(p = pm_realloc(s->hashes, nc * sizeof *s->hashes)))
			return PAIMON_ENOMEM;
		s->hashes = p;
		if (!(p = pm_realloc(s->live, nc)))
			return PAIMON_ENOMEM;
		s->live = p;
		m->cap = nc;
	}
	return table_reserve(s, s->count + extra);
}

static int merger_add(pm_entry_merger *m, pm_manifest_entry *entries, size_t n, int take)
{
	mstate *s = &m->s;
	size_t i;
	int rc = merger_reserve(m, n);
	for (i = 0; i < n; i++) {
		pm_manifest_entry *slot = &s->ents[s->len];
		if (rc) {
			if (take)
				pm_manifest_entry_dispose(&entries[i]);
			continue;
		}
		if (take) {
			*slot = entries[i];
			memset(&entries[i], 0, sizeof entries[i]);
		} else if ((rc = pm_manifest_entry_copy(slot, &entries[i])))
			continue;
		if ((rc = apply(s, s->len)))
			pm_manifest_entry_dispose(slot);
		else
			s->len++;
	}
	return rc;
}

int pm_entry_merger_add(pm_entry_merger *m, const pm_manifest_entry *entries, size_t n)
{
	return merger_add(m, (pm_manifest_entry *)entries, n, 0);
}

int pm_entry_merger_add_move(pm_entry_merger *m, pm_manifest_entry *entries, size_t n)
{
	return merger_add(m, entries, n, 1);
}

int pm_entry_merger_finish(pm_entry_merger *m, pm_manifest_entry_list *out)
{
	if (list_reserve(out, m->s.count))
		return PAIMON_ENOMEM;
	take_live(&m->s, PM_FILE_KIND_ADD, out);
	take_live(&m->s, PM_FILE_KIND_DELETE, out);
	mstate_clear(&m->s, 1);
	return 0;
}

size_t pm_entry_merger_pending_deletes(const pm_entry_merger *m)
{
	return m->s.deletes;
}

void pm_entry_merger_free(pm_entry_merger *m)
{
	if (!m)
		return;
	mstate_clear(&m->s, 1);
	pm_free(m->s.ents);
	pm_free(m->s.hashes);
	pm_free(m->s.live);
	pm_free(m->s.table);
	pm_free(m);
}

/* ------------------------------------------------------------ read_all */

/*
 * Every manifest is read straight into one list (pm_manifest_read appends
 * without copying), filtered in place, then merged in place over that list:
 * the decoded entries are never copied, only the survivors are moved once
 * into out.
 */
int pm_manifest_read_all(pm_fileio *io, const char *table_path, const char *base_list, const char *delta_list,
			 const pm_manifest_filter *filter, pm_manifest_entry_list *out)
{
	pm_manifest_file_meta_list metas = {0};
	pm_manifest_entry_list all = {0};
	mstate s;
	size_t i;
	int rc = 0, merging = 0;
	memset(&s, 0, sizeof s);
	if ((base_list && (rc = pm_manifest_list_read(io, table_path, base_list, &metas))) ||
	    (delta_list && (rc = pm_manifest_list_read(io, table_path, delta_list, &metas))))
		goto out;
	for (i = 0; i < metas.len; i++) {
		size_t k, kept, start = all.len;
		if (filter && filter->keep_manifest && !filter->keep_manifest(filter->ctx, &metas.items[i]))
			continue;
		if ((rc = pm_manifest_read(io, table_path, metas.items[i].file_name, &all)))
			goto out;
		if (filter && filter->keep_entry) {
			for (k = kept = start; k < all.len; k++) {
				if (filter->keep_entry(filter->ctx, &all.items[k])) {
					if (kept != k)
						all.items[kept] = all.items[k];
					kept++;
				} else
					pm_manifest_entry_dispose(&all.items[k]);
			}
			all.len = kept;
		}
	}
	if (all.len > UINT32_MAX - 1) {
		rc = pm_err(PAIMON_ENOMEM, "manifest entries: too many entries to merge");
		goto out;
	}
	s.ents = all.items;
	s.len = all.len;
	if (all.len && (!(s.hashes = pm_malloc(all.len * sizeof *s.hashes)) || !(s.live = pm_calloc(all.len, 1)))) {
		rc = PAIMON_ENOMEM;
		goto out;
	}
	if ((rc = table_reserve(&s, all.len)))
		goto out;
	/* From here on the merge state owns the entries. */
	merging = 1;
	for (i = 0; i < all.len; i++) {
		if ((rc = apply(&s, i))) {
			/* entries before i: live ones are disposed below; i and later: all */
			size_t k;
			for (k = i; k < all.len; k++)
				pm_manifest_entry_dispose(&all.items[k]);
			all.len = i;
			s.len = i;
			goto out;
		}
	}
	if ((rc = list_reserve(out, s.count - s.deletes)))
		goto out;
	take_live(&s, PM_FILE_KIND_ADD, out);
out:
	if (merging) {
		/* Whatever is still live (DELETEs, or everything on failure) */
		mstate_clear(&s, 1);
		all.len = 0;
	}
	pm_free(s.hashes);
	pm_free(s.live);
	pm_free(s.table);
	pm_manifest_entry_list_dispose(&all);
	pm_manifest_file_meta_list_dispose(&metas);
	return rc;
}
