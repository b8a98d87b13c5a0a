/*
 * read/de_reader.c - the split reader of PM_SPLIT_DATA_EVOLUTION splits
 * (see split_reader.h; ai-format §3.4, Java DataEvolutionSplitRead).
 *
 * The split's files are grouped by overlapping row-id ranges. Per group:
 *  - normal files (not .blob, not .vector.) must all cover the same
 *    [first_row_id, row_count] (else PAIMON_ECORRUPT naming them); they are
 *    ordered by max sequence number, newest first (stable);
 *  - the columns a file holds are its _WRITE_COLS resolved through its own
 *    schema (or all of that schema's fields), so renames and added columns
 *    follow the file's schema id;
 *  - each work column comes from the first (newest) file holding it, cast
 *    to its read type (evolve.c); a column no file holds is null; BLOB
 *    columns come from their .blob files; companions of unrequested
 *    columns are never opened;
 *  - vector-store files (.vector.<fmt>) form vector sets: the files of one
 *    version (sequence number), schema and column list, which must tile
 *    the group's rows exactly (pypaimon rolls them at
 *    vector.target-file-size; overlaps and gaps are PAIMON_ECORRUPT naming
 *    the files); a set gives its columns like a normal file, after the
 *    normal files, newest first, its files read one after the other (each
 *    with its part of the row selection);
 *  - _ROW_ID = first_row_id + position, _SEQUENCE_NUMBER = max sequence
 *    number of the newest normal file (physical copies of that file win);
 *  - the files that give columns are read in lockstep by position: each
 *    output batch is as long as the shortest remaining piece of the
 *    current batches; a batch is sliced (copied) only when boundaries
 *    differ, moved otherwise. A group whose columns come from no file
 *    (only system / absent columns) opens no file at all.
 * No pruning filter is pushed into the files of a group of several normal
 * files (alignment), nor where positions are needed.
 */
#include "read/split_reader.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arrow/arrow_builder.h"
#include "arrow/arrow_filter.h"
#include "core/endian.h"
#include "core/error.h"
#include "core/mem.h"
#include "format/blob/blob_descriptor.h"
#include "format/blob/blob_file.h"
#include "meta/deletion_vector.h"
#include "read/read.h"
#include "scan/rowid.h"

typedef struct de_src {
	const pm_manifest_entry *e;
	const pm_table_schema *fs;
	pm_format_reader *r;
	pm_buf path;
	struct ArrowSchema fschema;
	struct ArrowArray cur;           /* current batch (release NULL: none) */
	int64_t off;                     /* rows of cur consumed */
	const char **cols;               /* names read (borrowed from fs / constants) */
	size_t ncols;
	/* a vector set (vector-store files of one version, possibly rolled
	 * over several files that tile the group's rows): its files in row-id
	 * order, read one after the other; chain NULL for a normal file */
	const pm_manifest_entry **chain;
	size_t nchain, ci;               /* chain[ci] is open (ci == nchain: none left) */
	int64_t fexp, fgot;              /* selected rows of chain[ci], rows it gave */
	int64_t *franges;                /* chain[ci]'s selection in its own positions */
	pm_format_read_options o;        /* options template for chain files */
} de_src;

/* A vector set (see de_src.chain): files sorted by first row id. */
typedef struct de_vset {
	const pm_manifest_entry **f;
	size_t n;
	int64_t seq;                     /* its version */
	int32_t *ids;                    /* field ids it holds (its first file's) */
	size_t nids;
} de_vset;

/* A .blob file of a BLOB column of the current group. */
typedef struct de_blob_file {
	const pm_manifest_entry *e;
	int64_t start, end;              /* group positions [start, end) it covers */
	int64_t seq;                     /* its version (see open_companions) */
	pm_blob_reader *r;               /* opened on first use */
	pm_buf path;
} de_blob_file;

/* A BLOB column of the group: its .blob files, newest first (max sequence
 * number; files of one sequence tile their rows). */
typedef struct de_blob_col {
	de_blob_file *f;
	size_t n;
} de_blob_col;

/* Where one row's value of a blob column is: file -1 = null. */
typedef struct de_blob_pick {
	int32_t file;
	int64_t row;                     /* row within the file */
	pm_blob_entry e;
} de_blob_pick;

/* Bytes of BLOB payload one batch may hold (at least one row is given). */
#define DE_BLOB_BATCH_BYTES ((uint64_t)64 << 20)

typedef struct de_reader {
	pm_split_reader base;
	const pm_read_ctx *ctx;
	const pm_split *split;
	size_t *order;                   /* entry indexes, group after group */
	size_t *gstart;                  /* ngroups + 1 starts in order */
	size_t ngroups, gi;
	/* current group */
	int open;
	de_src *src;
	size_t nsrc;
	int *col_src;                    /* per work column: source, -1 none */
	int *col_child;                  /* child of the source batch */
	const pm_manifest_entry *anchor; /* newest normal file */
	pm_dv *dv;                       /* the group's deletion vector or NULL */
	int64_t *local;                  /* selection in group positions or NULL */
	size_t nlocal;
	int64_t remaining;               /* rows of the group still to give */
	pm_pos_cursor cur;
	struct ArrowArray *kids;
	struct ArrowArray *slices;       /* per source */
	uint8_t *sel;
	size_t sel_cap;
	pm_buf names;                    /* source() text */
	/* BLOB columns (ai-format §4, docs/blob-layout.md §3.1) */
	de_blob_col *bcols;
	size_t nbcols;
	int *col_blob;                   /* per work column: its blob column or -1 */
	int as_descriptor;               /* blob-as-descriptor: descriptors, not bytes */
	int64_t *bpos;                   /* positions of the batch's rows */
	size_t bpos_cap;
	de_blob_pick *picks;             /* nbcols x batch rows */
	size_t picks_cap;
	pm_buf scratch;
} de_reader;

static int ent_cmp_ctx_less(const pm_manifest_entry *a, const pm_manifest_entry *b)
{
	int64_t x = a->file.has_first_row_id ? a->file.first_row_id : -1;
	int64_t y = b->file.has_first_row_id ? b->file.first_row_id : -1;
	return x < y;
}

static void close_group(de_reader *d)
{
	size_t i;
	for (i = 0; i < d->nsrc; i++) {
		de_src *s = &d->src[i];
		if (s->cur.release)
			s->cur.release(&s->cur);
		if (s->fschema.release)
			s->fschema.release(&s->fschema);
		pm_format_reader_free(s->r);
		pm_buf_dispose(&s->path);
		pm_free(s->cols);
		pm_free(s->chain);
		pm_free(s->franges);
	}
	pm_free(d->src);
	d->src = NULL;
	d->nsrc = 0;
	for (i = 0; i < d->nbcols; i++) {
		size_t j;
		for (j = 0; j < d->bcols[i].n; j++) {
			pm_blob_reader_close(d->bcols[i].f[j].r);
			pm_buf_dispose(&d->bcols[i].f[j].path);
		}
		pm_free(d->bcols[i].f);
	}
	pm_free(d->bcols);
	d->bcols = NULL;
	d->nbcols = 0;
	pm_free(d->local);
	d->local = NULL;
	d->nlocal = 0;
	d->open = 0;
	d->anchor = NULL;
	pm_dv_free(d->dv);
	d->dv = NULL;
}

/* Groups the split's entries by overlapping row-id ranges (stable by
 * first row id; files without one are groups of their own). */
static int make_groups(de_reader *d)
{
	const pm_manifest_entry_list *l = &d->split->entries;
	size_t n = l->len, i, j, ng = 0;
	int64_t end = 0;
	d->order = pm_malloc((n + 1) * sizeof *d->order);
	d->gstart = pm_malloc((n + 1) * sizeof *d->gstart);
	if (!d->order || !d->gstart)
		return PAIMON_ENOMEM;
	for (i = 0; i < n; i++)
		d->order[i] = i;
	/* insertion sort: stable, and splits are nearly sorted already */
	for (i = 1; i < n; i++) {
		size_t v = d->order[i];
		for (j = i; j > 0 && ent_cmp_ctx_less(&l->items[v], &l->items[d->order[j - 1]]); j--)
			d->order[j] = d->order[j - 1];
		d->order[j] = v;
	}
	for (i = 0; i < n; i++) {
		const pm_data_file_meta *f = &l->items[d->order[i]].file;
		int64_t s = f->has_first_row_id ? f->first_row_id : -1;
		int64_t e = f->has_first_row_id && f->first_row_id <= INT64_MAX - f->row_count
				    ? f->first_row_id + f->row_count
				    : INT64_MAX;
		if (i == 0 || !f->has_first_row_id || s >= end ||
		    !l->items[d->order[i - 1]].file.has_first_row_id) {
			d->gstart[ng++] = i;
			end = e;
		} else if (e > end) {
			end = e;
		}
	}
	d->gstart[ng] = n;
	d->ngroups = ng;
	return 0;
}

static int has_id(const int32_t *ids, size_t n, int32_t id)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (ids[i] == id)
			return 1;
	return 0;
}

static const pm_field *field_by_id(const pm_table_schema *s, int32_t id)
{
	size_t i;
	for (i = 0; i < s->nfields; i++)
		if (s->fields[i].id == id)
			return &s->fields[i];
	return NULL;
}

/* Adds a column name to source s (once); returns its index. */
static size_t src_col(de_src *s, const char *name)
{
	size_t j;
	for (j = 0; j < s->ncols; j++)
		if (!strcmp(s->cols[j], name))
			return j;
	s->cols[s->ncols] = name;
	return s->ncols++;
}

/* BLOB, ARRAY<BLOB> or MAP<K, BLOB> with a key type the .blob map payload
 * encodes (ai-format §4.3.4). */
static int nested_blob_ok(const pm_type *t)
{
	if (t->root == PM_BLOB)
		return 1;
	if (t->root == PM_ARRAY)
		return t->element->root == PM_BLOB;
	if (t->root != PM_MAP || t->value->root != PM_BLOB)
		return 0;
	switch (t->key->root) {
	case PM_TINYINT: case PM_SMALLINT: case PM_INT: case PM_BIGINT: case PM_BOOLEAN: case PM_DATE:
	case PM_TIME: case PM_CHAR: case PM_VARCHAR: case PM_BINARY: case PM_VARBINARY: case PM_DECIMAL:
		return 1;
	default:
		return 0;
	}
}

/* One map key of type t (encoded as ai-format §4.3.4) appended to kb. */
static int map_key(const pm_type *t, const uint8_t *p, size_t len, pm_array_builder *kb, const char *what)
{
	size_t w = 0;
	switch (t->root) {
	case PM_TINYINT: w = 1; break;
	case PM_SMALLINT: w = 2; break;
	case PM_INT: case PM_DATE: case PM_TIME: w = 4; break;
	case PM_BIGINT: w = 8; break;
	case PM_BOOLEAN:
		if (len != 1 || p[0] > 1)
			return pm_err(PAIMON_ECORRUPT, "%s: bad BOOLEAN map key", what);
		return pm_ab_append_bools(kb, p, 1);
	case PM_CHAR: case PM_VARCHAR: case PM_BINARY: case PM_VARBINARY:
		return pm_ab_append_binary(kb, len ? (const void *)p : "", len);
	case PM_DECIMAL: {
		uint8_t v[16];
		size_t i;
		if (t->precision <= 18) {
			if (len != 8)
				return pm_err(PAIMON_ECORRUPT, "%s: DECIMAL map key of %zu bytes (expected 8)", what, len);
			memcpy(v, p, 8);
			memset(v + 8, (p[7] & 0x80) ? 0xff : 0, 8);
		} else {
			/* minimal big-endian two's complement -> 16-byte little endian */
			if (len == 0 || len > 16)
				return pm_err(PAIMON_ECORRUPT, "%s: DECIMAL map key of %zu bytes", what, len);
			memset(v, (p[0] & 0x80) ? 0xff : 0, 16);
			for (i = 0; i < len; i++)
				v[i] = p[len - 1 - i];
		}
		return pm_ab_append_fixed(kb, v, 1);
	}
	default:
		return pm_err(PAIMON_EUNSUPPORTED, "%s: map key type not supported", what);
	}
	if (len != w)
		return pm_err(PAIMON_ECORRUPT, "%s: map key of %zu bytes (expected %zu)", what, len, w);
	return pm_ab_append_fixed(kb, p, 1);
}

/*
 * Appends one ARRAY<BLOB> (ai-format §4.3.3) or MAP<K, BLOB> (§4.3.4)
 * record payload to ab (a list of large binary, or a map of key, large
 * binary), validating it; what names the file and row in errors.
 */
static int nested_payload(const pm_type *t, const uint8_t *p, size_t len, pm_array_builder *ab, const char *what)
{
	int is_map = t->root == PM_MAP;
	uint32_t magic = is_map ? 1296188226u : 1094861634u;
	int64_t count, *li = NULL, *vi = NULL;
	size_t nli = 0, nvi = 0, hdr = 9, tail = is_map ? 8 : 4, kil = 0, vil, data, i, kpos, vpos;
	pm_array_builder *entries = is_map ? ab->children[0] : NULL;
	pm_array_builder *kb = is_map ? entries->children[0] : NULL;
	pm_array_builder *vb = is_map ? entries->children[1] : ab->children[0];
	int rc = 0;
	if (len < hdr + tail || pm_le32_get(p) != magic || p[4] != 1)
		return pm_err(PAIMON_ECORRUPT, "%s: not a %s payload (bad magic, version or size)", what,
			      is_map ? "MAP<K, BLOB>" : "ARRAY<BLOB>");
	count = (int32_t)pm_le32_get(p + 5);
	if (is_map) {
		kil = pm_le32_get(p + len - 8);
		vil = pm_le32_get(p + len - 4);
	} else {
		vil = pm_le32_get(p + len - 4);
	}
	if (count < 0 || kil > len - hdr - tail || vil > len - hdr - tail - kil)
		return pm_err(PAIMON_ECORRUPT, "%s: bad %s header (count %lld)", what, is_map ? "map" : "array",
			      (long long)count);
	data = len - hdr - tail - kil - vil;
	if ((rc = pm_blob_delta_varint_decode(p + hdr + data, is_map ? kil : vil, (size_t)count, what,
					      is_map ? &li : &vi, is_map ? &nli : &nvi)))
		return rc;
	if (is_map && (rc = pm_blob_delta_varint_decode(p + hdr + data + kil, vil, (size_t)count, what, &vi, &nvi)))
		goto out;
	if ((is_map && nli != (size_t)count) || nvi != (size_t)count) {
		rc = pm_err(PAIMON_ECORRUPT, "%s: %s index has %zu entries for %lld elements", what,
			    is_map ? "map" : "array", nvi, (long long)count);
		goto out;
	}
	/* data: keys then values (map), or elements (array) */
	{
		uint64_t ksum = 0, vsum = 0;
		for (i = 0; i < (size_t)count; i++) {
			if ((is_map && (li[i] < 0)) || vi[i] < -1 || (is_map && li[i] > (int64_t)data) || vi[i] > (int64_t)data) {
				rc = pm_err(PAIMON_ECORRUPT, "%s: bad element length at %zu", what, i);
				goto out;
			}
			if (is_map)
				ksum += (uint64_t)li[i];
			if (vi[i] > 0)
				vsum += (uint64_t)vi[i];
		}
		if (ksum + vsum != data) {
			rc = pm_err(PAIMON_ECORRUPT, "%s: element lengths (%llu) do not match the data (%zu bytes)", what,
				    (unsigned long long)(ksum + vsum), data);
			goto out;
		}
		kpos = hdr;
		vpos = hdr + (size_t)ksum;
	}
	for (i = 0; i < (size_t)count && !rc; i++) {
		if (is_map) {
			rc = map_key(t->key, p + kpos, (size_t)li[i], kb, what);
			kpos += (size_t)li[i];
		}
		if (rc)
			break;
		if (vi[i] < 0) {
			rc = pm_ab_append_nulls(vb, 1);
		} else {
			rc = pm_ab_append_binary(vb, vi[i] ? (const void *)(p + vpos) : "", (size_t)vi[i]);
			vpos += (size_t)vi[i];
		}
	}
	if (!rc && is_map)
		rc = pm_ab_append_valid(entries, count);
	if (!rc)
		rc = pm_ab_append_list(ab, count);
out:
	pm_free(li);
	pm_free(vi);
	return rc;
}

static int cmp_blob_file(const void *x, const void *y)
{
	const de_blob_file *a = x, *b = y;
	if (a->seq != b->seq)
		return a->seq > b->seq ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

/*
 * Work column k (field fid) is held by no normal file of group entries
 * [a, b) (first row id `first`, `rows` rows): its .blob files make it a
 * blob column (d->col_blob[k]); a vector companion holding it, or a
 * nested BLOB type, is PAIMON_EUNSUPPORTED. No companion: nothing (nulls).
 *
 * A file's version is its max sequence number, except for files whose
 * sequence numbers were never stamped by a commit (min != max: pypaimon
 * 2.1.0 keeps its writer's row counter in the second and later rolled
 * .blob files of one write, docs/blob-layout.md §2.5). Those were written
 * with the group's first normal file, so they rank as its version
 * (base_seq, the oldest normal file's): a later blob update then wins, as
 * it was meant to (pypaimon itself loses it; Java refuses such a table).
 */
static int open_companions(de_reader *d, size_t a, size_t b, size_t k, int32_t fid, int64_t first, int64_t rows,
			   int64_t base_seq)
{
	const pm_read_ctx *c = d->ctx;
	const pm_split *sp = d->split;
	const pm_field *field = &c->schema->fields[c->work[k]];
	de_blob_col col = {0};
	size_t i;
	int rc = 0;
	for (i = a; i < b; i++) {
		const pm_manifest_entry *e = &sp->entries.items[d->order[i]];
		const pm_table_schema *fs;
		int32_t *cid = NULL;
		size_t cn = 0;
		int held;
		if (!pm_file_is_blob(e->file.file_name) && !pm_file_is_vector(e->file.file_name))
			continue;
		if ((rc = pm_schema_cache_get(c->schemas, e->file.schema_id, &fs)) != 0 ||
		    (rc = pm_file_field_ids(fs, &e->file, &cid, &cn)) != 0)
			goto fail;
		held = has_id(cid, cn, fid);
		pm_free(cid);
		if (!held)
			continue;
		if (!pm_file_is_blob(e->file.file_name) || !nested_blob_ok(field->type)) {
			rc = pm_err(PAIMON_EUNSUPPORTED,
				    "column '%s' (%s) is stored in %s file '%s': reading it is not supported yet",
				    field->name, field->type->root == PM_BLOB ? "BLOB" : "nested BLOB or VECTOR",
				    pm_file_is_blob(e->file.file_name) ? "BLOB" : "VECTOR", e->file.file_name);
			goto fail;
		}
		if (!e->file.has_first_row_id || e->file.first_row_id < first || e->file.row_count < 0 ||
		    e->file.first_row_id - first > rows - e->file.row_count) {
			rc = pm_err(PAIMON_ECORRUPT,
				    "blob file '%s' (first row id %lld, %lld rows) lies outside its row-id group "
				    "[%lld, %lld] (snapshot %lld)",
				    e->file.file_name, (long long)e->file.first_row_id, (long long)e->file.row_count,
				    (long long)first, (long long)(first + rows - 1), (long long)sp->snapshot_id);
			goto fail;
		}
		if (!col.f && !(col.f = pm_calloc(b - a, sizeof *col.f))) {
			rc = PAIMON_ENOMEM;
			goto fail;
		}
		col.f[col.n].e = e;
		col.f[col.n].seq = e->file.min_sequence_number == e->file.max_sequence_number ? e->file.max_sequence_number
											     : base_seq;
		col.f[col.n].start = e->file.first_row_id - first;
		col.f[col.n].end = col.f[col.n].start + e->file.row_count;
		col.n++;
	}
	if (!col.n)
		return 0;
	qsort(col.f, col.n, sizeof *col.f, cmp_blob_file);
	/* files of one sequence number must not overlap (pypaimon's check) */
	for (i = 1; i < col.n; i++) {
		size_t j;
		for (j = 0; j < i; j++)
			if (col.f[j].seq == col.f[i].seq && col.f[j].start < col.f[i].end && col.f[i].start < col.f[j].end) {
				rc = pm_err(PAIMON_ECORRUPT,
					    "blob files '%s' and '%s' of column '%s' have the same sequence number %lld "
					    "and overlapping rows (snapshot %lld)",
					    col.f[j].e->file.file_name, col.f[i].e->file.file_name, field->name,
					    (long long)col.f[i].seq, (long long)sp->snapshot_id);
				goto fail;
			}
	}
	{
		de_blob_col *nb = pm_realloc(d->bcols, (d->nbcols + 1) * sizeof *nb);
		if (!nb) {
			rc = PAIMON_ENOMEM;
			goto fail;
		}
		d->bcols = nb;
		d->bcols[d->nbcols] = col;
		d->col_blob[k] = (int)d->nbcols++;
	}
	return 0;
fail:
	pm_free(col.f);
	return rc;
}

/* The .blob file j of blob column col, opened. */
static int blob_file_open(de_reader *d, de_blob_file *f)
{
	int rc;
	if (f->r)
		return 0;
	if ((rc = pm_read_data_file_path(d->ctx->table_path, d->ctx->options, d->ctx->pi, f->e, 0, &f->path)) != 0)
		return rc;
	rc = pm_blob_reader_open(d->ctx->io, pm_buf_cstr(&f->path), NULL, &f->r);
	if (rc == PAIMON_ENOTFOUND && d->ctx->pi->n && !f->e->file.external_path) {
		/* pypaimon's partition directory style */
		paimon_error_clear();
		if ((rc = pm_read_data_file_path(d->ctx->table_path, d->ctx->options, d->ctx->pi, f->e, 1, &f->path)) != 0)
			return rc;
		rc = pm_blob_reader_open(d->ctx->io, pm_buf_cstr(&f->path), NULL, &f->r);
	}
	if (rc == PAIMON_ENOTFOUND)
		return pm_err(PAIMON_ENOTFOUND, "blob file %s does not exist (listed in snapshot %lld)",
			      pm_buf_cstr(&f->path), (long long)d->split->snapshot_id);
	return rc;
}

/*
 * Resolves the blob columns of the next *n rows (positions from a copy of
 * the cursor): per row the newest file covering it whose entry is not a
 * placeholder (-1 is a null value; no such file: null). Cuts *n so that
 * the batch's payload stays within DE_BLOB_BATCH_BYTES (at least one row).
 */
static int blob_resolve(de_reader *d, int64_t *n)
{
	pm_pos_cursor t = d->cur;
	uint64_t total = 0;
	int64_t i, m = *n;
	size_t j;
	int rc;
	if ((size_t)m > d->bpos_cap) {
		int64_t *np = pm_realloc(d->bpos, (size_t)m * sizeof *np);
		if (!np)
			return PAIMON_ENOMEM;
		d->bpos = np;
		d->bpos_cap = (size_t)m;
	}
	if ((size_t)m * d->nbcols > d->picks_cap) {
		de_blob_pick *np = pm_realloc(d->picks, (size_t)m * d->nbcols * sizeof *np);
		if (!np)
			return PAIMON_ENOMEM;
		d->picks = np;
		d->picks_cap = (size_t)m * d->nbcols;
	}
	if ((rc = pm_pos_cursor_take(&t, m, 0, d->bpos)) != 0)
		return rc;
	for (i = 0; i < m; i++) {
		uint64_t row_bytes = 0;
		for (j = 0; j < d->nbcols; j++) {
			de_blob_col *col = &d->bcols[j];
			de_blob_pick *p = &d->picks[j * (size_t)m + (size_t)i];
			size_t f;
			p->file = -1;
			for (f = 0; f < col->n; f++) {
				de_blob_file *bf = &col->f[f];
				if (d->bpos[i] < bf->start || d->bpos[i] >= bf->end)
					continue;
				if ((rc = blob_file_open(d, bf)) != 0)
					return rc;
				if (pm_blob_reader_rows(bf->r) != bf->e->file.row_count)
					return pm_err(PAIMON_ECORRUPT, "blob file %s has %lld rows, its manifest entry %lld",
						      pm_buf_cstr(&bf->path), (long long)pm_blob_reader_rows(bf->r),
						      (long long)bf->e->file.row_count);
				p->row = d->bpos[i] - bf->start;
				if ((rc = pm_blob_reader_entry(bf->r, p->row, &p->e)) != 0)
					return rc;
				if (p->e.kind == PM_BLOB_PLACEHOLDER)
					continue; /* an older version gives it */
				if (p->e.kind == PM_BLOB_VALUE)
					p->file = (int32_t)f;
				break;
			}
			if (p->file >= 0 && !d->as_descriptor)
				row_bytes += p->e.length;
		}
		if (i > 0 && total + row_bytes > DE_BLOB_BATCH_BYTES) {
			/* keep the picks of rows [0, i) at stride m: callers index with it */
			*n = i;
			break;
		}
		total += row_bytes;
	}
	return 0;
}

/* The Arrow large-binary array of blob column j for the batch's n rows
 * (picks at stride m): payload bytes, or BlobDescriptor v2 bytes. */
static int blob_array(de_reader *d, size_t j, const pm_type *t, int64_t n, int64_t m, struct ArrowArray *out)
{
	de_blob_col *col = &d->bcols[j];
	pm_array_builder *ab;
	if (t->root == PM_ARRAY) {
		ab = pm_ab_new_list(pm_ab_new_binary("Z", 1), 0);
	} else if (t->root == PM_MAP) {
		struct ArrowSchema ks;
		pm_array_builder *kb = NULL;
		memset(&ks, 0, sizeof ks);
		pm_field kf;
		memset(&kf, 0, sizeof kf);
		kf.name = (char *)"key";
		kf.type = t->key;
		if (pm_field_to_arrow(&kf, &ks) == 0 && ks.format) {
			if (!strcmp(ks.format, "b"))
				kb = pm_ab_new_bool();
			else if (!strcmp(ks.format, "u") || !strcmp(ks.format, "z"))
				kb = pm_ab_new_binary(ks.format, 0);
			else
				kb = pm_ab_new_fixed(ks.format, t->key->root == PM_DECIMAL ? 16 : t->key->root == PM_TINYINT ? 1
							   : t->key->root == PM_SMALLINT ? 2 : t->key->root == PM_BIGINT ? 8 : 4);
		}
		if (ks.release)
			ks.release(&ks);
		ab = kb ? pm_ab_new_map(kb, pm_ab_new_binary("Z", 1), 0) : NULL;
	} else {
		ab = pm_ab_new_binary("Z", 1);
	}
	uint64_t bytes = 0;
	int64_t i;
	int rc = 0;
	memset(out, 0, sizeof *out);
	if (!ab)
		return PAIMON_ENOMEM;
	for (i = 0; i < n && !d->as_descriptor; i++) {
		const de_blob_pick *p = &d->picks[j * (size_t)m + (size_t)i];
		if (p->file >= 0)
			bytes += p->e.length;
	}
	if (bytes > SIZE_MAX / 2 || (rc = pm_ab_reserve(ab, n, (size_t)bytes)) != 0)
		goto out;
	for (i = 0; i < n && !rc; i++) {
		const de_blob_pick *p = &d->picks[j * (size_t)m + (size_t)i];
		de_blob_file *bf;
		if (p->file < 0) {
			rc = pm_ab_append_nulls(ab, 1);
			continue;
		}
		bf = &col->f[p->file];
		if (t->root != PM_BLOB) {
			char what[512];
			pm_buf_clear(&d->scratch);
			snprintf(what, sizeof what, "blob file %s row %lld", pm_buf_cstr(&bf->path), (long long)p->row);
			if (!(rc = pm_blob_reader_read(bf->r, p->row, &d->scratch)))
				rc = nested_payload(t, (const uint8_t *)d->scratch.data, d->scratch.len, ab, what);
		} else if (d->as_descriptor) {
			pm_buf_clear(&d->scratch);
			rc = pm_blob_descriptor_encode(pm_buf_cstr(&bf->path), bf->path.len, (int64_t)p->e.offset,
						       (int64_t)p->e.length, &d->scratch);
			if (!rc)
				rc = pm_ab_append_binary(ab, d->scratch.data ? d->scratch.data : "", d->scratch.len);
		} else {
			void *dst = p->e.length ? pm_ab_values_grow(ab, (size_t)p->e.length) : NULL;
			if (p->e.length && !dst)
				rc = PAIMON_ENOMEM;
			else if (p->e.length)
				rc = pm_blob_reader_read_range(bf->r, p->row, 0, (size_t)p->e.length, dst);
			/* the grown region is the value: close it with its offset */
			if (!rc)
				rc = pm_ab_append_binary(ab, "", 0);
		}
	}
	if (!rc)
		rc = pm_ab_finish(ab, out);
out:
	pm_ab_free(ab);
	return rc;
}

typedef struct de_vpart {
	const pm_manifest_entry *e;
	int64_t seq, start, end;
	int32_t *ids;
	size_t nids;
	size_t set;                      /* its set, once assigned */
} de_vpart;

static int cmp_vpart(const void *x, const void *y)
{
	const de_vpart *a = x, *b = y;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return strcmp(a->e->file.file_name, b->e->file.file_name);
}

/* Whether the group's row selection (d->local; NULL: all rows) misses
 * positions [x, y): the scan prunes files holding no selected row, so a
 * set may lack its parts there. */
static int unselected(const de_reader *d, int64_t x, int64_t y)
{
	size_t i;
	if (!d->local)
		return x >= y;
	for (i = 0; i < d->nlocal; i++)
		if (d->local[2 * i] < y && x < d->local[2 * i + 1])
			return 0;
	return 1;
}

static void vsets_free(de_vset *v, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++) {
		pm_free(v[i].f);
		pm_free(v[i].ids);
	}
	pm_free(v);
}

/*
 * The vector-store files of group entries [a, b) (first row id `first`,
 * `rows` rows) as vector sets, newest first (stable): files of one version
 * (sequence number, as open_companions ranks them), one schema and the
 * same columns form a set, in row-id order. pypaimon 2.1.0 rolls vector
 * files at vector.target-file-size, so a set may be several files each
 * covering a contiguous sub-range of the group; together they must tile
 * it exactly, else PAIMON_ECORRUPT naming the files (overlap, gap, or a
 * file outside the group; a gap holding no selected row is where the scan
 * pruned files). *out (vsets_free) and *nout.
 */
static int collect_vsets(de_reader *d, size_t a, size_t b, int64_t first, int64_t rows, int64_t base_seq,
			 de_vset **out, size_t *nout)
{
	const pm_read_ctx *c = d->ctx;
	const pm_split *sp = d->split;
	de_vpart *p = NULL;
	de_vset *v = NULL;
	size_t np = 0, nv = 0, i, j;
	int rc = 0;
	*out = NULL;
	*nout = 0;
	for (i = a; i < b; i++)
		if (pm_file_is_vector(sp->entries.items[d->order[i]].file.file_name))
			np++;
	if (!np)
		return 0;
	if (!(p = pm_calloc(np, sizeof *p)) || !(v = pm_calloc(np, sizeof *v))) {
		rc = PAIMON_ENOMEM;
		goto out;
	}
	np = 0;
	for (i = a; i < b; i++) {
		const pm_manifest_entry *e = &sp->entries.items[d->order[i]];
		const pm_table_schema *fs;
		de_vpart *q = &p[np];
		if (!pm_file_is_vector(e->file.file_name))
			continue;
		np++;
		q->e = e;
		if (!e->file.has_first_row_id || e->file.first_row_id < first || e->file.row_count <= 0 ||
		    e->file.first_row_id - first > rows - e->file.row_count) {
			rc = pm_err(PAIMON_ECORRUPT,
				    "vector file '%s' (first row id %lld, %lld rows) lies outside its row-id group "
				    "[%lld, %lld] (snapshot %lld)",
				    e->file.file_name, (long long)e->file.first_row_id, (long long)e->file.row_count,
				    (long long)first, (long long)(first + rows - 1), (long long)sp->snapshot_id);
			goto out;
		}
		q->start = e->file.first_row_id - first;
		q->end = q->start + e->file.row_count;
		/* a whole-group file ranks by its max sequence number (as before
		 * rolled files were read); rolled ones as blob files do */
		q->seq = (q->start == 0 && q->end == rows) ||
				 e->file.min_sequence_number == e->file.max_sequence_number
			 ? e->file.max_sequence_number
			 : base_seq;
		if ((rc = pm_schema_cache_get(c->schemas, e->file.schema_id, &fs)) != 0 ||
		    (rc = pm_file_field_ids(fs, &e->file, &q->ids, &q->nids)) != 0) {
			pm_err_wrap("vector file '%s'", e->file.file_name);
			goto out;
		}
	}
	/* partition into sets: same version, schema and columns */
	for (i = 0; i < np; i++) {
		for (j = 0; j < i; j++) {
			const de_vpart *r = &p[j];
			if (r->seq == p[i].seq && r->e->file.schema_id == p[i].e->file.schema_id && r->nids == p[i].nids &&
			    (!r->nids || !memcmp(r->ids, p[i].ids, r->nids * sizeof *r->ids)))
				break;
		}
		if (j < i) {
			p[i].set = p[j].set;
			continue;
		}
		p[i].set = nv;
		v[nv++].seq = p[i].seq;
	}
	qsort(p, np, sizeof *p, cmp_vpart);
	for (j = 0; j < nv; j++) {
		de_vset *s = &v[j];
		size_t cnt = 0;
		const de_vpart *prev = NULL;
		for (i = 0; i < np; i++)
			cnt += p[i].set == j;
		if (!(s->f = pm_calloc(cnt, sizeof *s->f))) {
			rc = PAIMON_ENOMEM;
			goto out;
		}
		for (i = 0; i < np; i++) {
			const de_vpart *q = &p[i];
			int64_t at = prev ? prev->end : 0;
			if (q->set != j)
				continue;
			if (!s->n) {
				/* the set owns its first file's ids */
				s->ids = q->ids;
				s->nids = q->nids;
				p[i].ids = NULL;
			}
			if (q->start < at)
				rc = pm_err(PAIMON_ECORRUPT,
					    "vector files '%s' (row ids [%lld, %lld]) and '%s' (row ids [%lld, %lld]) of one "
					    "version (sequence number %lld) overlap (snapshot %lld)",
					    prev->e->file.file_name, (long long)(first + prev->start), (long long)(first + prev->end - 1),
					    q->e->file.file_name, (long long)(first + q->start), (long long)(first + q->end - 1),
					    (long long)q->seq, (long long)sp->snapshot_id);
			else if (q->start > at && !unselected(d, at, q->start))
				rc = pm_err(PAIMON_ECORRUPT,
					    "vector files of one version (sequence number %lld) leave row ids [%lld, %lld] of "
					    "their row-id group [%lld, %lld] uncovered: %s%s%s'%s' starts at row id %lld "
					    "(snapshot %lld)",
					    (long long)q->seq, (long long)(first + at), (long long)(first + q->start - 1),
					    (long long)first, (long long)(first + rows - 1), prev ? "'" : "",
					    prev ? prev->e->file.file_name : "", prev ? "' ends there, " : "", q->e->file.file_name,
					    (long long)(first + q->start), (long long)sp->snapshot_id);
			if (rc)
				goto out;
			s->f[s->n++] = q->e;
			prev = q;
		}
		if (prev->end != rows && !unselected(d, prev->end, rows)) {
			rc = pm_err(PAIMON_ECORRUPT,
				    "vector files of one version (sequence number %lld) leave row ids [%lld, %lld] of their "
				    "row-id group [%lld, %lld] uncovered: the last one, '%s', ends at row id %lld (snapshot %lld)",
				    (long long)s->seq, (long long)(first + prev->end), (long long)(first + rows - 1),
				    (long long)first, (long long)(first + rows - 1), prev->e->file.file_name,
				    (long long)(first + prev->end - 1), (long long)sp->snapshot_id);
			goto out;
		}
	}
	/* newest first, stable */
	for (i = 1; i < nv; i++) {
		de_vset t = v[i];
		for (j = i; j > 0 && v[j - 1].seq < t.seq; j--)
			v[j] = v[j - 1];
		v[j] = t;
	}
	*out = v;
	*nout = nv;
	v = NULL;
out:
	if (p)
		for (i = 0; i < np; i++)
			pm_free(p[i].ids);
	pm_free(p);
	if (v)
		vsets_free(v, nv);
	return rc;
}

/*
 * Opens the first file of vector-set source s from chain[from] on that has
 * selected rows (d->local, group positions), reading just those (its own
 * positions); s->ci = nchain and *none = 1 when no file is left. A later
 * file must give the same columns as the one before it (PAIMON_ECORRUPT).
 */
static int chain_open(de_reader *d, de_src *s, size_t from, int *none)
{
	const pm_split *sp = d->split;
	size_t ci, k, nr, was = s->ci;
	int rc;
	*none = 0;
	for (ci = from; ci < s->nchain; ci++) {
		const pm_manifest_entry *e = s->chain[ci];
		int64_t beg = e->file.first_row_id - d->anchor->file.first_row_id, end = beg + e->file.row_count, exp = 0;
		pm_format_read_options o = s->o;
		struct ArrowSchema prev = s->fschema;
		if (d->local) {
			if (!s->franges && !(s->franges = pm_malloc((2 * d->nlocal + 1) * sizeof *s->franges)))
				return PAIMON_ENOMEM;
			for (k = nr = 0; k < d->nlocal; k++) {
				int64_t lo = d->local[2 * k] > beg ? d->local[2 * k] : beg;
				int64_t hi = d->local[2 * k + 1] < end ? d->local[2 * k + 1] : end;
				if (lo >= hi)
					continue;
				s->franges[2 * nr] = lo - beg;
				s->franges[2 * nr + 1] = hi - beg;
				exp += hi - lo;
				nr++;
			}
			if (!nr)
				continue;
			o.row_ranges = s->franges;
			o.n_row_ranges = nr;
		} else {
			exp = e->file.row_count;
			o.row_ranges = NULL;
			o.n_row_ranges = 0;
		}
		pm_format_reader_free(s->r);
		s->r = NULL;
		memset(&s->fschema, 0, sizeof s->fschema);
		s->e = e;
		s->ci = ci;
		s->fexp = exp;
		s->fgot = 0;
		rc = pm_read_open_data_file(d->ctx, sp, e, &o, &s->path, &s->r);
		if (!rc)
			rc = s->r->schema(s->r, &s->fschema);
		if (!rc && prev.release) {
			int64_t j;
			int same = prev.n_children == s->fschema.n_children;
			for (j = 0; same && j < prev.n_children; j++)
				same = !strcmp(prev.children[j]->name, s->fschema.children[j]->name) &&
				       !strcmp(prev.children[j]->format, s->fschema.children[j]->format);
			if (!same)
				rc = pm_err(PAIMON_ECORRUPT,
					    "vector file %s does not have the columns of '%s', the file before it in its "
					    "version's row-id order (snapshot %lld)",
					    pm_buf_cstr(&s->path), s->chain[was]->file.file_name,
					    (long long)sp->snapshot_id);
		}
		if (prev.release)
			prev.release(&prev);
		return rc;
	}
	s->ci = s->nchain;
	*none = 1;
	return 0;
}

/* Opens group d->gi (or skips it when the selection misses it: *skip). */
static int open_group(de_reader *d, int *skip)
{
	const pm_read_ctx *c = d->ctx;
	const pm_split *sp = d->split;
	size_t a = d->gstart[d->gi], b = d->gstart[d->gi + 1], i, k, nn = 0, ncand;
	const pm_manifest_entry **normal = NULL;
	int32_t **ids = NULL;
	size_t *nids = NULL;
	int *src_of = NULL; /* per normal file: its source index or -1 */
	de_vset *vs = NULL;
	size_t nvs = 0;
	int rc = 0, full = 1;
	int64_t first, rows;

	*skip = 0;
	normal = pm_calloc(b - a + 1, sizeof *normal);
	ids = pm_calloc(b - a + 1, sizeof *ids);
	nids = pm_calloc(b - a + 1, sizeof *nids);
	src_of = pm_calloc(b - a + 1, sizeof *src_of);
	d->src = pm_calloc(b - a + 1, sizeof *d->src);
	if (!normal || !ids || !nids || !src_of || !d->src) {
		rc = PAIMON_ENOMEM;
		goto out;
	}
	for (i = a; i < b; i++) {
		const pm_manifest_entry *e = &sp->entries.items[d->order[i]];
		if (!pm_file_is_blob(e->file.file_name) && !pm_file_is_vector(e->file.file_name))
			normal[nn++] = e;
	}
	if (nn == 0) {
		rc = pm_err(PAIMON_ECORRUPT, "data-evolution group of '%s' (snapshot %lld) has no normal data file",
			    sp->entries.items[d->order[a]].file.file_name, (long long)sp->snapshot_id);
		goto out;
	}
	for (i = 1; i < nn; i++) {
		const pm_data_file_meta *x = &normal[0]->file, *y = &normal[i]->file;
		if (x->has_first_row_id != y->has_first_row_id || x->first_row_id != y->first_row_id ||
		    x->row_count != y->row_count) {
			rc = pm_err(PAIMON_ECORRUPT,
				    "data-evolution files '%s' (first row id %lld, %lld rows) and '%s' (first row id "
				    "%lld, %lld rows) overlap but cover different row ranges (snapshot %lld)",
				    x->file_name, (long long)x->first_row_id, (long long)x->row_count, y->file_name,
				    (long long)y->first_row_id, (long long)y->row_count, (long long)sp->snapshot_id);
			goto out;
		}
	}
	/* newest first, stable */
	for (i = 1; i < nn; i++) {
		const pm_manifest_entry *v = normal[i];
		size_t j;
		for (j = i; j > 0 && normal[j - 1]->file.max_sequence_number < v->file.max_sequence_number; j--)
			normal[j] = normal[j - 1];
		normal[j] = v;
	}
	d->anchor = normal[0];
	if (c->dvs && sp->index_manifest) {
		/* the group's DV is keyed by its anchor (pm_dv_anchor: the oldest
		 * normal file), positions relative to the group's first row id */
		const pm_data_file_meta **fm = pm_malloc(nn * sizeof *fm);
		size_t ai;
		if (!fm) {
			rc = PAIMON_ENOMEM;
			goto out;
		}
		for (i = 0; i < nn; i++)
			fm[i] = &normal[i]->file;
		rc = pm_dv_anchor_ptrs(fm, nn, &ai);
		if (!rc)
			rc = pm_read_dv_get(c->dvs, sp, fm[ai]->file_name, &d->dv);
		pm_free(fm);
		if (rc)
			goto out;
	}
	first = normal[0]->file.has_first_row_id ? normal[0]->file.first_row_id : 0;
	rows = normal[0]->file.row_count;
	if (rows <= 0) {
		*skip = 1;
		goto out;
	}
	if (sp->has_row_ranges) {
		if (!normal[0]->file.has_first_row_id || first > INT64_MAX - rows) {
			*skip = 1;
			goto out;
		}
		if ((rc = pm_row_ranges_local(sp->row_ranges, sp->n_row_ranges, first, first + rows - 1, &d->local,
					      &d->nlocal, &full)) != 0)
			goto out;
		if (!full && d->nlocal == 0) {
			*skip = 1;
			goto out;
		}
	}
	if (full) {
		d->remaining = rows;
	} else {
		d->remaining = 0;
		for (i = 0; i < d->nlocal; i++)
			d->remaining += d->local[2 * i + 1] - d->local[2 * i];
	}
	pm_pos_cursor_init(&d->cur, d->local, d->nlocal, rows);
	/* vector sets (vector-store files of one version, rolled or whole)
	 * give their columns like normal files, after them, newest first */
	if ((rc = collect_vsets(d, a, b, first, rows, normal[nn - 1]->file.max_sequence_number, &vs, &nvs)) != 0)
		goto out;
	for (i = 0; i < nvs; i++) {
		normal[nn + i] = vs[i].f[0];
		ids[nn + i] = vs[i].ids;
		nids[nn + i] = vs[i].nids;
		vs[i].ids = NULL;
	}
	ncand = nn + nvs;
	for (i = 0; i < ncand; i++) {
		const pm_table_schema *fs;
		src_of[i] = -1;
		if (i >= nn)
			continue; /* a vector set's ids are its first file's */
		if ((rc = pm_schema_cache_get(c->schemas, normal[i]->file.schema_id, &fs)) != 0) {
			pm_err_wrap("data file '%s'", normal[i]->file.file_name);
			goto out;
		}
		if ((rc = pm_file_field_ids(fs, &normal[i]->file, &ids[i], &nids[i])) != 0)
			goto out;
	}
	/* assign the work columns */
	for (k = 0; k < c->nwork; k++) {
		int32_t fid = c->schema->fields[c->work[k]].id;
		size_t w;
		d->col_src[k] = -1;
		d->col_blob[k] = -1;
		if (pm_is_row_tracking_field_id(fid)) {
			/* from the newest file: its physical copy, else derived */
			if (!has_id(ids[0], nids[0], fid))
				continue;
			w = 0;
		} else {
			for (w = 0; w < ncand; w++)
				if (has_id(ids[w], nids[w], fid))
					break;
			if (w == ncand) {
				/* held by BLOB / VECTOR companions? */
				d->col_blob[k] = -1;
				if ((rc = open_companions(d, a, b, k, fid, first, rows,
							  normal[nn - 1]->file.max_sequence_number)) != 0)
					goto out;
				continue; /* a blob column, or no file holds it: nulls */
			}
		}
		if (src_of[w] < 0) {
			de_src *s = &d->src[d->nsrc];
			src_of[w] = (int)d->nsrc++;
			s->e = normal[w];
			if (w >= nn) {
				s->chain = vs[w - nn].f;
				s->nchain = vs[w - nn].n;
				vs[w - nn].f = NULL;
			}
			if ((rc = pm_schema_cache_get(c->schemas, normal[w]->file.schema_id, &s->fs)) != 0)
				goto out;
			if (!(s->cols = pm_calloc(c->nwork + 1, sizeof *s->cols))) {
				rc = PAIMON_ENOMEM;
				goto out;
			}
		}
		d->col_src[k] = src_of[w];
		{
			de_src *s = &d->src[src_of[w]];
			const char *name;
			if (pm_is_row_tracking_field_id(fid)) {
				name = fid == PM_ROW_ID_FIELD_ID ? PM_ROW_ID_NAME : PM_SEQUENCE_NUMBER_NAME;
			} else {
				const pm_field *f = field_by_id(s->fs, fid);
				if (!f) {
					rc = pm_err(PAIMON_ECORRUPT, "data file '%s' lists a column of field id %d its schema %lld lacks",
						    s->e->file.file_name, (int)fid, (long long)s->fs->id);
					goto out;
				}
				name = f->name;
			}
			d->col_child[k] = (int)src_col(s, name);
		}
	}
	/* open the sources */
	for (i = 0; i < d->nsrc; i++) {
		de_src *s = &d->src[i];
		pm_format_read_options o;
		pm_pq_filter *pf = NULL;
		int64_t j;
		size_t q;
		if (d->nsrc == 1 && c->pred && !c->has_row_tracking && !d->dv && !s->e->file.has_write_cols && !s->chain &&
		    (rc = pm_pred_to_pq_filter(c->pred, s->fs, &pf)) != 0) {
			pm_err_wrap("data file '%s'", s->e->file.file_name);
			goto out;
		}
		memset(&o, 0, sizeof o);
		o.columns = s->cols;
		o.n_columns = s->ncols;
		o.batch_rows = c->batch_rows;
		if (c->want >= 0 && c->want < o.batch_rows)
			o.batch_rows = c->want > 0 ? c->want : 1;
		o.row_ranges = full ? NULL : d->local;
		o.n_row_ranges = full ? 0 : d->nlocal;
		o.filter = pf;
		o.threads = c->threads;
		if (s->chain) {
			int none;
			s->o = o;
			if ((rc = chain_open(d, s, 0, &none)) != 0)
				goto out;
			if (none) {
				rc = pm_err(PAIMON_ECORRUPT, "vector file '%s': no file of its version holds the selected rows",
					    s->chain[0]->file.file_name);
				goto out;
			}
		} else {
			rc = pm_read_open_data_file(c, sp, s->e, &o, &s->path, &s->r);
			pm_pq_filter_free(pf);
			if (rc)
				goto out;
			if ((rc = s->r->schema(s->r, &s->fschema)) != 0)
				goto out;
		}
		/* map the names to the children of the file's batches */
		for (k = 0; k < c->nwork; k++) {
			if (d->col_src[k] != (int)i)
				continue;
			q = (size_t)d->col_child[k];
			for (j = 0; j < s->fschema.n_children; j++)
				if (!strcmp(s->fschema.children[j]->name, s->cols[q]))
					break;
			if (j == s->fschema.n_children) {
				rc = pm_err(PAIMON_ECORRUPT, "data file %s has no column '%s' (its _WRITE_COLS / schema %lld list it)",
					    pm_buf_cstr(&s->path), s->cols[q], (long long)s->fs->id);
				goto out;
			}
			d->col_child[k] = (int)j;
		}
	}
	d->open = 1;
out:
	if (ids)
		for (i = 0; i < b - a; i++)
			pm_free(ids[i]);
	pm_free(ids);
	pm_free(nids);
	pm_free(normal);
	pm_free(src_of);
	vsets_free(vs, nvs);
	if (rc || *skip)
		close_group(d);
	return rc;
}

/* Makes sure source s has unread rows; PAIMON_ECORRUPT when it ends early. */
static int src_fill(de_reader *d, de_src *s)
{
	while (!s->cur.release || s->off >= s->cur.length) {
		int eof = 0, rc;
		if (s->cur.release)
			s->cur.release(&s->cur);
		memset(&s->cur, 0, sizeof s->cur);
		s->off = 0;
		if ((rc = s->r->next(s->r, &s->cur, &eof)) != 0)
			return pm_err_wrap("reading data file %s", pm_buf_cstr(&s->path));
		if (s->chain && !eof && (s->fgot += s->cur.length) > s->fexp)
			return pm_err(PAIMON_ECORRUPT,
				      "vector file %s gives more than the %lld rows its manifest entry (%lld rows) selects "
				      "(snapshot %lld)",
				      pm_buf_cstr(&s->path), (long long)s->fexp, (long long)s->e->file.row_count,
				      (long long)d->split->snapshot_id);
		if (s->chain && eof) {
			int none;
			if (s->fgot < s->fexp)
				return pm_err(PAIMON_ECORRUPT,
					      "vector file %s ended after %lld of the %lld rows selected from it (its manifest "
					      "entry: %lld rows, snapshot %lld)",
					      pm_buf_cstr(&s->path), (long long)s->fgot, (long long)s->fexp,
					      (long long)s->e->file.row_count, (long long)d->split->snapshot_id);
			if ((rc = chain_open(d, s, s->ci + 1, &none)) != 0)
				return rc;
			if (!none)
				continue;
		}
		if (eof)
			return pm_err(PAIMON_ECORRUPT,
				      "data file %s ended before the other files of its row-id group (%lld rows still "
				      "expected, snapshot %lld)",
				      pm_buf_cstr(&s->path), (long long)d->remaining, (long long)d->split->snapshot_id);
	}
	return 0;
}

/* Rows [s->off, s->off + n) of s's batch into *out (moved when whole). */
static int src_take(de_reader *d, de_src *s, int64_t n, struct ArrowArray *out)
{
	int rc;
	if (s->off == 0 && n == s->cur.length) {
		*out = s->cur;
		memset(&s->cur, 0, sizeof s->cur);
		s->off = 0;
		return 0;
	}
	if ((size_t)s->cur.length > d->sel_cap) {
		uint8_t *ns = pm_realloc(d->sel, (size_t)s->cur.length);
		if (!ns)
			return PAIMON_ENOMEM;
		d->sel = ns;
		d->sel_cap = (size_t)s->cur.length;
	}
	memset(d->sel, 0, (size_t)s->cur.length);
	memset(d->sel + s->off, 1, (size_t)n);
	rc = pm_arrow_filter(&s->fschema, &s->cur, d->sel, out);
	if (!rc)
		s->off += n;
	return rc;
}

static int de_next(pm_split_reader *base, struct ArrowArray *out, int *eof)
{
	de_reader *d = (de_reader *)base;
	const pm_read_ctx *c = d->ctx;
	memset(out, 0, sizeof *out);
	*eof = 0;
	for (;;) {
		int64_t n, kept, stride;
		size_t i, k;
		int rc, skip = 0;
		pm_pos_cursor start;
		struct ArrowArray whole;
		if (!d->open) {
			if (d->gi >= d->ngroups) {
				*eof = 1;
				return 0;
			}
			rc = open_group(d, &skip);
			if (rc)
				return rc;
			if (skip) {
				d->gi++;
				continue;
			}
		}
		if (d->remaining <= 0) {
			close_group(d);
			d->gi++;
			continue;
		}
		n = d->remaining < c->batch_rows ? d->remaining : c->batch_rows;
		for (i = 0; i < d->nsrc; i++) {
			de_src *s = &d->src[i];
			if ((rc = src_fill(d, s)) != 0)
				return rc;
			if (s->cur.length - s->off < n)
				n = s->cur.length - s->off;
		}
		stride = n;
		if (d->nbcols && (rc = blob_resolve(d, &n)) != 0)
			return pm_err_wrap("data-evolution group of data file %s", d->anchor->file.file_name);
		for (i = 0; i < d->nsrc; i++)
			if ((rc = src_take(d, &d->src[i], n, &d->slices[i])) != 0) {
				while (i-- > 0)
					d->slices[i].release(&d->slices[i]);
				return pm_err_wrap("data file %s", pm_buf_cstr(&d->src[i].path));
			}
		rc = 0;
		start = d->cur;
		for (k = 0; k < c->nwork && !rc; k++) {
			int si = d->col_src[k];
			int32_t fid = c->schema->fields[c->work[k]].id;
			struct ArrowArray moved, *mp = NULL;
			const struct ArrowSchema *ms = NULL;
			if (si >= 0) {
				struct ArrowArray *sl = &d->slices[si];
				int j = d->col_child[k];
				moved = *sl->children[j];
				sl->children[j]->release = NULL;
				mp = &moved;
				ms = d->src[si].fschema.children[j];
			}
			if (d->col_blob[k] >= 0) {
				if (mp)
					mp->release(mp);
				rc = blob_array(d, (size_t)d->col_blob[k], c->schema->fields[c->work[k]].type, n, stride,
						&d->kids[k]);
			} else if (pm_is_row_tracking_field_id(fid)) {
				pm_pos_cursor t = start;
				rc = pm_rowtrack_column(fid, &d->anchor->file, d->anchor->file.file_name, &t, n,
							d->anchor->file.max_sequence_number, ms, mp, &d->kids[k]);
			} else if (mp)
				rc = pm_evolve_cast(c->schema->fields[c->work[k]].name, ms, mp, c->work_schema->children[k],
						    &d->kids[k]);
			else
				rc = pm_evolve_null_array(c->work_schema->children[k], n, &d->kids[k]);
			if (rc) {
				while (k-- > 0)
					d->kids[k].release(&d->kids[k]);
			}
		}
		for (i = 0; i < d->nsrc; i++)
			d->slices[i].release(&d->slices[i]);
		if (rc)
			return pm_err_wrap("data-evolution group of data file %s", d->anchor->file.file_name);
		if (d->dv && (size_t)n > d->sel_cap) {
			uint8_t *ns = pm_realloc(d->sel, (size_t)n);
			if (!ns)
				rc = PAIMON_ENOMEM;
			else {
				d->sel = ns;
				d->sel_cap = (size_t)n;
			}
		}
		/* positions advance once per batch; deleted rows are cleared */
		if (rc || (rc = pm_read_dv_select(d->dv, &d->cur, n, d->sel, &kept)) != 0) {
			for (k = 0; k < c->nwork; k++)
				d->kids[k].release(&d->kids[k]);
			return rc;
		}
		d->remaining -= n;
		if ((rc = pm_evolve_struct(d->kids, (int64_t)c->nwork, n, kept == n ? out : &whole)) != 0 || kept == n)
			return rc;
		if (kept == 0) {
			whole.release(&whole);
			continue;
		}
		rc = pm_arrow_filter(c->work_schema, &whole, d->sel, out);
		whole.release(&whole);
		return rc;
	}
}

static int de_schema(pm_split_reader *base, struct ArrowSchema *out)
{
	const pm_read_ctx *c = ((de_reader *)base)->ctx;
	return pm_read_fields_schema(c->schema, c->work, c->nwork, out);
}

static const char *de_source(const pm_split_reader *base)
{
	const de_reader *d = (const de_reader *)base;
	if (d->nsrc)
		return pm_buf_cstr(&d->src[0].path);
	return d->anchor ? d->anchor->file.file_name : "";
}

static void de_close(pm_split_reader *base)
{
	de_reader *d = (de_reader *)base;
	if (!d)
		return;
	close_group(d);
	pm_free(d->order);
	pm_free(d->gstart);
	pm_free(d->col_src);
	pm_free(d->col_child);
	pm_free(d->kids);
	pm_free(d->slices);
	pm_free(d->sel);
	pm_buf_dispose(&d->names);
	pm_free(d->col_blob);
	pm_free(d->bpos);
	pm_free(d->picks);
	pm_buf_dispose(&d->scratch);
	pm_free(d);
}

int pm_de_reader_open(const pm_read_ctx *ctx, const pm_split *split, pm_split_reader **out)
{
	de_reader *d;
	int rc;
	*out = NULL;
	if (!(d = pm_calloc(1, sizeof *d)))
		return PAIMON_ENOMEM;
	d->ctx = ctx;
	d->split = split;
	d->base.next = de_next;
	d->base.schema = de_schema;
	d->base.source = de_source;
	d->base.close = de_close;
	d->col_src = pm_calloc(ctx->nwork + 1, sizeof *d->col_src);
	d->col_child = pm_calloc(ctx->nwork + 1, sizeof *d->col_child);
	d->kids = pm_calloc(ctx->nwork + 1, sizeof *d->kids);
	d->slices = pm_calloc(split->entries.len + 1, sizeof *d->slices);
	d->col_blob = pm_calloc(ctx->nwork + 1, sizeof *d->col_blob);
	d->as_descriptor = ctx->options && pm_strmap_get(ctx->options, "blob-as-descriptor") &&
			   !strcasecmp(pm_strmap_get(ctx->options, "blob-as-descriptor"), "true");
	if (!d->col_src || !d->col_child || !d->kids || !d->slices || !d->col_blob) {
		de_close(&d->base);
		return PAIMON_ENOMEM;
	}
	if ((rc = make_groups(d)) != 0) {
		de_close(&d->base);
		return rc;
	}
	*out = &d->base;
	return 0;
}
