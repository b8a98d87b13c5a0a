/*
 * write/write.c - the append-table writer (see write.h).
 *
 * A batch is first normalized into a view in table column order: children
 * of the caller's batch are borrowed as they are when the format writer
 * (Parquet) takes their Arrow type, otherwise converted (narrower ints,
 * float32, date64) or made up (all-null columns). Rows are then routed to
 * their (partition, bucket) group: per row the partition BinaryRow is
 * encoded into one reused buffer (no per-row allocation) and looked up in
 * an open addressing table; a batch that falls into one group is written
 * without copying, otherwise it is split with pm_arrow_filter. Each group
 * writes through its rolling file set (write/rolling.h), which opens,
 * rolls and closes the files through format/format.h and hands every
 * finished file back here as an ADD entry (in the order files finish).
 */
#include "write/write.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arrow/arrow_builder.h"
#include "arrow/arrow_filter.h"
#include "core/error.h"
#include "core/hash.h"
#include "core/mem.h"
#include "format/format.h"
#include "format/blob/blob_nested.h"
#include "table/stats.h"
#include "types/datum.h"
#include "write/rolling.h"

/* Rows routed to many groups are gathered per batch and held (pending)
 * until this many bytes are buffered, then every group writes its pending
 * slices back to back: one partition's Parquet writer (dictionaries,
 * pages) stays hot in cache instead of being revisited for a few hundred
 * rows per batch. Option write-buffer-size overrides it. */
#define DEFAULT_WRITE_BUFFER (256LL << 20)

/* A gathered batch shared by the pending slices of many groups. */
typedef struct pbatch {
	struct ArrowArray arr;     /* owned ("+s", flat children) */
	struct ArrowSchema sch;    /* "+s"; children below, release NULL */
	struct ArrowSchema *kids;
	struct ArrowSchema **kidp;
	char **strs;               /* owned formats and names (2 per child) */
	size_t n;
	size_t refs;
	int64_t bytes;
} pbatch;

typedef struct pslice {
	pbatch *b;
	int64_t off, len;
} pslice;
#define DEFAULT_TARGET_FILE_SIZE (256LL << 20)

typedef struct wgroup {
	pm_bytes partition;        /* with arity prefix */
	int32_t bucket;
	uint64_t hash;
	pm_table_writer *w;        /* the writer it belongs to (roll sinks) */
	pm_roll_set *rs;           /* the group's files (write/rolling.h) */
	pslice *pend;              /* rows routed here, not yet written */
	size_t n_pend, cap_pend;
} wgroup;

struct pm_table_writer {
	pm_fileio *io;
	char *table_path;
	pm_table_schema *schema;   /* copy, options merged with the overrides */
	pm_partition_info pi;
	int has_pi;
	pm_type *row_type;         /* ROW of the table's fields (file schema) */
	const pm_format *fmt;      /* file.format */
	pm_format_wopts *wopts;    /* its writer options */
	pm_roll_config roll;       /* shared by every group's file set */
	pm_roll_config roll_one;   /* the same, never rolling (pm_table_writer_file) */
	int row_tracking;          /* row-tracking.enabled */
	int64_t target_size;
	int64_t target_rows;
	char *prefix;              /* data-file.prefix */
	char *ext;                 /* ".parquet" or ".zst.parquet" */
	char *path_dir;            /* data-file.path-directory or NULL */
	int32_t num_buckets;       /* -1 unaware, N fixed */
	int32_t total_buckets;     /* value written to manifests */
	size_t n_bkey;
	int *bkey_index;           /* schema field index of each bucket-key column */
	const pm_type **bkey_types;
	pm_stats_mode *modes;
	int dense;
	/* with_write_type: the schema field indexes the data files hold, in
	 * the caller's order (NULL: all fields, table order), and their ROW */
	size_t *wcols;
	size_t n_wcols;
	uint8_t *in_wcols;         /* per schema field: 1 when written */
	pm_type *wrow;
	/* BLOB columns in .blob files (write/rolling.h pm_roll_blob): the data
	 * files then hold the other written columns (dcols, drow) */
	pm_roll_blob *rblobs;
	size_t n_rblobs;
	size_t *dcols;
	pm_type *drow;
	/* VECTOR columns in dedicated vector-store files (vector.file.format):
	 * one companion holding all of them, rolled with the data file */
	pm_roll_companion vcomp;
	size_t *vcols;
	pm_type *vrow;
	const pm_format *vfmt;
	char *vext;
	int64_t blob_target;       /* blob.target-file-size, default target-file-size */
	int64_t vector_target;     /* vector.target-file-size; 0: not set */
	int unrouted;              /* set_write_cols_ex(routed = 0): pm_table_writer_file only */
	int fixed;                 /* set_target: every row goes to group `fixed_group` */
	size_t fixed_group;

	wgroup **groups;
	size_t n_groups, cap_groups;
	size_t *slots;             /* hash table: group index + 1, 0 = empty */
	size_t n_slots;

	int64_t buffer_limit;      /* write-buffer-size */
	int64_t pend_bytes;        /* bytes of live pending batches */

	pm_manifest_entry_list done; /* finished files not yet handed out */
	pm_strlist done_paths;
	int64_t rows;
	int failed;

	/* per-batch scratch */
	pm_buf kbuf, bbuf;
	uint32_t *gid;
	size_t gid_cap;
	uint8_t *sel;
	size_t sel_cap;
	pm_binrow_datum *vals;
};

/* ------------------------------------------------------------- options */

static const char *opt(const pm_table_writer *w, const char *key)
{
	return pm_strmap_get(&w->schema->options, key);
}

static int parse_long_opt(const char *key, const char *v, long long lo, long long *out)
{
	if (pm_parse_i64(v, out) || *out < lo)
		return pm_err(PAIMON_EINVAL, "option '%s': invalid value '%s'", key, v);
	return 0;
}

static int setup_options(pm_table_writer *w)
{
	const char *v;
	long long x;
	int rc;

	if (w->schema->primary_keys.len)
		return pm_err(PAIMON_EUNSUPPORTED, "writing primary-key tables is not supported (table '%s')",
			      w->table_path);
	v = opt(w, "file.format");
	if ((rc = pm_format_by_name(v ? v : "parquet", &w->fmt)))
		return rc;
	if ((rc = w->fmt->write_options(&w->schema->options, &w->wopts)))
		return rc;

	w->target_size = DEFAULT_TARGET_FILE_SIZE;
	if ((v = opt(w, "blob.target-file-size")) &&
	    (rc = pm_parse_memory_size("blob.target-file-size", v, &w->blob_target)))
		return rc;
	if ((v = opt(w, "target-file-size")) && (rc = pm_parse_memory_size("target-file-size", v, &w->target_size)))
		return rc;
	if ((v = opt(w, "vector.target-file-size")) &&
	    (rc = pm_parse_memory_size("vector.target-file-size", v, &w->vector_target)))
		return rc;
	if (w->target_size <= 0)
		w->target_size = 1;
	w->buffer_limit = DEFAULT_WRITE_BUFFER;
	if ((v = opt(w, "write-buffer-size")) && (rc = pm_parse_memory_size("write-buffer-size", v, &w->buffer_limit)))
		return rc;
	w->target_rows = INT64_MAX;
	if ((v = opt(w, "target-file-row-num"))) {
		if ((rc = parse_long_opt("target-file-row-num", v, 1, &x)))
			return rc;
		w->target_rows = x;
	}
	/* A format that buffers (Parquet row groups) keeps its buffer no
	 * larger than the target so rolling is accurate. */
	if (w->fmt->write_options_target &&
	    (rc = w->fmt->write_options_target(w->wopts, &w->schema->options, w->target_size)))
		return rc;

	v = opt(w, "data-file.prefix");
	if (!(w->prefix = pm_strdup(v ? v : "data-")))
		return PAIMON_ENOMEM;
	{
		int with_c = 0;
		const char *c = opt(w, "file.compression");
		const char *cext = "";
		if ((v = opt(w, "file.suffix.include.compression")) && pm_parse_bool(v, &with_c))
			return pm_err(PAIMON_EINVAL, "option 'file.suffix.include.compression': invalid value '%s'", v);
		if (!c)
			c = "zstd";
		if (!strcasecmp(c, "zstd"))
			cext = "zst";
		else if (!strcasecmp(c, "gzip"))
			cext = "gz";
		else if (!strcasecmp(c, "snappy"))
			cext = "snappy";
		else if (!strcasecmp(c, "lz4") || !strcasecmp(c, "lz4_raw"))
			cext = "lz4";
		if (with_c && *cext) {
			char buf[64];
			snprintf(buf, sizeof buf, ".%s%s", cext, w->fmt->extension);
			w->ext = pm_strdup(buf);
		} else {
			w->ext = pm_strdup(w->fmt->extension);
		}
		if (!w->ext)
			return PAIMON_ENOMEM;
	}
	if ((v = opt(w, "data-file.path-directory")) && *v && !(w->path_dir = pm_strdup(v)))
		return PAIMON_ENOMEM;

	w->num_buckets = -1;
	if ((v = opt(w, "bucket"))) {
		if (pm_parse_i64(v, &x) || x == 0 || x < -2 || x > INT32_MAX)
			return pm_err(PAIMON_EINVAL, "option 'bucket': invalid value '%s'", v);
		if (x == -2)
			return pm_err(PAIMON_EUNSUPPORTED, "writing tables with bucket = -2 (postpone) is not supported");
		w->num_buckets = (int32_t)x;
	}
	w->total_buckets = w->num_buckets;
	if (w->num_buckets > 0) {
		const char *bk = opt(w, "bucket-key");
		const char *p;
		if (!bk || !*bk)
			return pm_err(PAIMON_EINVAL, "table with bucket = %d needs the option 'bucket-key' (append tables)",
				      (int)w->num_buckets);
		for (p = bk; *p; p++)
			w->n_bkey += *p == ',';
		w->n_bkey++;
		if (!(w->bkey_index = pm_calloc(w->n_bkey, sizeof *w->bkey_index)) ||
		    !(w->bkey_types = pm_calloc(w->n_bkey, sizeof *w->bkey_types)))
			return PAIMON_ENOMEM;
		{
			size_t k = 0;
			p = bk;
			while (k < w->n_bkey) {
				const char *e = strchr(p, ',');
				size_t len = e ? (size_t)(e - p) : strlen(p);
				char name[512];
				long idx;
				while (len && *p == ' ')
					p++, len--;
				while (len && p[len - 1] == ' ')
					len--;
				if (len == 0 || len >= sizeof name)
					return pm_err(PAIMON_EINVAL, "option 'bucket-key': invalid value '%s'", bk);
				memcpy(name, p, len);
				name[len] = 0;
				if ((idx = pm_schema_field_index(w->schema, name)) < 0)
					return pm_err(PAIMON_EINVAL, "option 'bucket-key': column '%s' does not exist",
						      name);
				w->bkey_index[k] = (int)idx;
				w->bkey_types[k] = w->schema->fields[idx].type;
				k++;
				p = e ? e + 1 : p + len;
			}
		}
	}
	if ((rc = pm_stats_modes(w->schema, &w->modes, &w->dense)))
		return rc;
	if ((v = opt(w, "row-tracking.enabled")) && pm_parse_bool(v, &w->row_tracking))
		return pm_err(PAIMON_EINVAL, "option 'row-tracking.enabled': invalid value '%s'", v);
	return 0;
}

/* ---------------------------------------------------------- data paths */

int pm_table_data_dir(const char *table_path, const char *path_directory, const pm_partition_info *pi,
		      const uint8_t *partition, size_t partition_len, int32_t bucket, pm_buf *out)
{
	int rc;
	pm_buf_clear(out);
	if ((rc = pm_buf_puts(out, table_path)) || (rc = pm_buf_putc(out, '/')))
		return rc;
	if (path_directory && *path_directory &&
	    ((rc = pm_buf_puts(out, path_directory)) || (rc = pm_buf_putc(out, '/'))))
		return rc;
	if (pi->n && (rc = pm_partition_path(pi, partition, partition_len, PM_PART_JAVA, out)))
		return rc;
	if (bucket == -2)
		return pm_buf_puts(out, "bucket-postpone");
	return pm_buf_printf(out, "bucket-%d", (int)bucket);
}

/* ------------------------------------------------------------- groups */

static uint64_t group_hash(const uint8_t *part, size_t n, int32_t bucket)
{
	return pm_fnv1a(&bucket, sizeof bucket, pm_fnv1a(part, n, PM_FNV1A_INIT));
}

static int grow_slots(pm_table_writer *w)
{
	size_t ns = w->n_slots ? w->n_slots * 2 : 64, i;
	size_t *s = pm_calloc(ns, sizeof *s);
	if (!s)
		return PAIMON_ENOMEM;
	for (i = 0; i < w->n_groups; i++) {
		size_t j = (size_t)(w->groups[i]->hash & (ns - 1));
		while (s[j])
			j = (j + 1) & (ns - 1);
		s[j] = i + 1;
	}
	pm_free(w->slots);
	w->slots = s;
	w->n_slots = ns;
	return 0;
}

static void pbatch_unref(pm_table_writer *w, pbatch *b)
{
	size_t i;
	if (--b->refs)
		return;
	w->pend_bytes -= b->bytes;
	if (b->arr.release)
		b->arr.release(&b->arr);
	for (i = 0; b->strs && i < 2 * b->n; i++)
		pm_free(b->strs[i]);
	pm_free(b->strs);
	pm_free(b->kids);
	pm_free(b->kidp);
	pm_free(b);
}

static void group_drop_pending(pm_table_writer *w, wgroup *g)
{
	size_t i;
	for (i = 0; i < g->n_pend; i++)
		pbatch_unref(w, g->pend[i].b);
	g->n_pend = 0;
}

static void group_free(pm_table_writer *w, wgroup *g)
{
	if (!g)
		return;
	group_drop_pending(w, g);
	pm_free(g->pend);
	pm_roll_set_free(g->rs); /* removes unfinished files */
	pm_bytes_dispose(&g->partition);
	pm_free(g);
}

/* Finds or creates the group of (part, bucket); *idx its index. */
static int group_get(pm_table_writer *w, const uint8_t *part, size_t n, int32_t bucket, size_t *idx)
{
	uint64_t h = group_hash(part, n, bucket);
	size_t j;
	wgroup *g;
	pm_buf dir = PM_BUF_INIT;
	int rc;
	if (w->n_slots) {
		for (j = (size_t)(h & (w->n_slots - 1)); w->slots[j]; j = (j + 1) & (w->n_slots - 1)) {
			g = w->groups[w->slots[j] - 1];
			if (g->hash == h && g->bucket == bucket && g->partition.n == n &&
			    !memcmp(g->partition.p, part, n)) {
				*idx = w->slots[j] - 1;
				return 0;
			}
		}
	}
	if ((w->n_groups + 1) * 2 > w->n_slots && (rc = grow_slots(w)))
		return rc;
	if (w->n_groups == w->cap_groups) {
		size_t nc = w->cap_groups ? w->cap_groups * 2 : 8;
		wgroup **ng = pm_realloc(w->groups, nc * sizeof *ng);
		if (!ng)
			return PAIMON_ENOMEM;
		w->groups = ng;
		w->cap_groups = nc;
	}
	if (!(g = pm_calloc(1, sizeof *g)))
		return PAIMON_ENOMEM;
	g->bucket = bucket;
	g->hash = h;
	g->w = w;
	if ((rc = pm_bytes_set(&g->partition, part, n)) ||
	    (rc = pm_table_data_dir(w->table_path, w->path_dir, &w->pi, part, n, bucket, &dir)) ||
	    (rc = pm_roll_set_new(&w->roll, pm_buf_cstr(&dir), g, &g->rs))) {
		pm_buf_dispose(&dir);
		group_free(w, g);
		return rc;
	}
	pm_buf_dispose(&dir);
	w->groups[w->n_groups] = g;
	for (j = (size_t)(h & (w->n_slots - 1)); w->slots[j]; j = (j + 1) & (w->n_slots - 1))
		;
	w->slots[j] = w->n_groups + 1;
	*idx = w->n_groups++;
	return 0;
}

/* ------------------------------------------------------------ files */

/* Roll sinks (ctx: the group): a finished file is listed for deletion
 * until prepare_commit hands it out, and becomes an ADD entry. */
static int on_path(void *ctx, const char *path)
{
	wgroup *g = ctx;
	return pm_strlist_push(&g->w->done_paths, path);
}

static int on_file(void *ctx, int companion, pm_data_file_meta *meta)
{
	wgroup *g = ctx;
	pm_table_writer *w = g->w;
	pm_manifest_entry *e;
	int rc;
	(void)companion;
	if (!(e = pm_manifest_entry_list_push(&w->done))) {
		pm_data_file_meta_dispose(meta);
		return PAIMON_ENOMEM;
	}
	e->kind = PM_FILE_KIND_ADD;
	e->bucket = g->bucket;
	e->total_buckets = w->total_buckets;
	e->file = *meta;
	memset(meta, 0, sizeof *meta);
	if (w->row_tracking) {
		/* every new file counts its own sequence from 0 (Java's
		 * data-evolution writers): min 0 makes the commit stamp the
		 * snapshot id into both, also for rolled files */
		e->file.min_sequence_number = 0;
		e->file.max_sequence_number = e->file.row_count > 0 ? e->file.row_count - 1 : 0;
	}
	if ((rc = pm_bytes_set(&e->partition, g->partition.p, g->partition.n))) {
		/* drop the half-built entry; the file stays listed for deletion */
		pm_manifest_entry_dispose(e);
		w->done.len--;
		return rc;
	}
	return 0;
}

/* Dummy release for views (their memory is managed by the writer). */
static void view_release(struct ArrowArray *a)
{
	a->release = NULL;
}

/* Writes rows [0, b->length) of a normalized batch b to group g, rolling. */
static int group_write(pm_table_writer *w, wgroup *g, const struct ArrowArray *b, const struct ArrowSchema *s)
{
	(void)w;
	return pm_roll_set_write(g->rs, b, s);
}

static int close_file(pm_table_writer *w, wgroup *g)
{
	(void)w;
	return pm_roll_set_close_file(g->rs);
}

/* Writes g's pending slices (in routing order) and releases them. */
static int group_flush(pm_table_writer *w, wgroup *g)
{
	size_t i;
	int rc = 0;
	for (i = 0; i < g->n_pend && !rc; i++) {
		pslice *ps = &g->pend[i];
		struct ArrowArray slice = ps->b->arr;
		slice.offset = ps->off;
		slice.length = ps->len;
		slice.release = view_release;
		rc = group_write(w, g, &slice, &ps->b->sch);
	}
	group_drop_pending(w, g);
	return rc;
}

static int flush_all(pm_table_writer *w)
{
	size_t i;
	int rc;
	for (i = 0; i < w->n_groups; i++)
		if (w->groups[i]->n_pend && (rc = group_flush(w, w->groups[i])))
			return rc;
	return 0;
}

/* ----------------------------------------------------- normalization */

typedef struct owned_arr {
	struct ArrowArray a;
	struct ArrowSchema s;      /* set for made-up columns */
} owned_arr;

typedef struct view {
	struct ArrowArray arr;
	struct ArrowSchema sch;
	struct ArrowArray **ach;
	struct ArrowSchema **sch_ch;
	owned_arr *own;            /* one per column (zeroed when borrowed) */
	size_t n;
} view;

static void view_dispose(view *v)
{
	size_t i;
	if (v->own)
		for (i = 0; i < v->n; i++) {
			if (v->own[i].a.release)
				v->own[i].a.release(&v->own[i].a);
			if (v->own[i].s.release)
				v->own[i].s.release(&v->own[i].s);
		}
	pm_free(v->own);
	pm_free(v->ach);
	pm_free(v->sch_ch);
	memset(v, 0, sizeof *v);
}

/* Owned arrays: private_data = array of owned buffers + children. */
typedef struct null_priv {
	void *bufs[3];
	struct ArrowArray **kids;
	const void *bptr[3];
} null_priv;

static void owned_release(struct ArrowArray *a)
{
	null_priv *p = a->private_data;
	int64_t i;
	if (p) {
		for (i = 0; i < 3; i++)
			pm_free(p->bufs[i]);
		if (p->kids) {
			for (i = 0; i < a->n_children; i++)
				if (p->kids[i]) {
					if (p->kids[i]->release)
						p->kids[i]->release(p->kids[i]);
					pm_free(p->kids[i]);
				}
			pm_free(p->kids);
		}
		pm_free(p);
	}
	a->release = NULL;
}

static int fixed_width(const char *f)
{
	switch (f[0]) {
	case 'c': case 'C': return 1;
	case 's': case 'S': case 'e': return 2;
	case 'i': case 'I': case 'f': return 4;
	case 'l': case 'L': case 'g': return 8;
	case 'd': {
		const char *c = strrchr(f, ',');
		/* d:p,s[,bw] */
		if (c && strchr(f, ',') != c)
			return atoi(c + 1) / 8;
		return 16;
	}
	case 't':
		if (f[1] == 'd')
			return f[2] == 'D' ? 4 : 8;
		if (f[1] == 't')
			return (f[2] == 's' || f[2] == 'm') ? 4 : 8;
		return 8;
	case 'w':
		return atoi(f + 2);
	default:
		return 0;
	}
}

/* An all-null array of n rows shaped per schema s. */
static int make_null(const struct ArrowSchema *s, int64_t n, struct ArrowArray *out)
{
	null_priv *p = pm_calloc(1, sizeof *p);
	const char *f = s->format;
	int64_t nb = 0, i, child_n = 0;
	int rc;
	memset(out, 0, sizeof *out);
	if (!p)
		return PAIMON_ENOMEM;
	out->private_data = p;
	out->release = owned_release;
	out->length = n;
	out->null_count = n;
	out->buffers = p->bptr;
	if (!(p->bufs[0] = pm_calloc(1, (size_t)(n + 7) / 8 + 1)))
		return PAIMON_ENOMEM;
	p->bptr[0] = p->bufs[0];
	if (!strcmp(f, "n")) {
		out->n_buffers = 0;
		out->null_count = n;
		out->buffers = NULL;
		return 0;
	}
	if (!strcmp(f, "b")) {
		nb = 2;
		p->bufs[1] = pm_calloc(1, (size_t)(n + 7) / 8 + 1);
	} else if (!strcmp(f, "u") || !strcmp(f, "z") || !strcmp(f, "+l") || !strcmp(f, "+m")) {
		nb = (f[0] == '+') ? 2 : 3;
		p->bufs[1] = pm_calloc((size_t)n + 1, 4);
		if (nb == 3)
			p->bufs[2] = pm_calloc(1, 8);
	} else if (!strcmp(f, "U") || !strcmp(f, "Z") || !strcmp(f, "+L")) {
		nb = (f[0] == '+') ? 2 : 3;
		p->bufs[1] = pm_calloc((size_t)n + 1, 8);
		if (nb == 3)
			p->bufs[2] = pm_calloc(1, 8);
	} else if (!strncmp(f, "+w:", 3)) {
		nb = 1;
		child_n = n * atoi(f + 3);
	} else if (!strcmp(f, "+s")) {
		nb = 1;
		child_n = n;
	} else {
		int wd = fixed_width(f);
		if (wd <= 0)
			return pm_err(PAIMON_EUNSUPPORTED, "cannot make a null column of Arrow type '%s'", f);
		nb = 2;
		p->bufs[1] = pm_calloc((size_t)n + 1, (size_t)wd);
	}
	for (i = 1; i < nb; i++) {
		if (!p->bufs[i])
			return PAIMON_ENOMEM;
		p->bptr[i] = p->bufs[i];
	}
	out->n_buffers = nb;
	if (s->n_children > 0) {
		if (!(p->kids = pm_calloc((size_t)s->n_children, sizeof *p->kids)))
			return PAIMON_ENOMEM;
		out->n_children = s->n_children;
		out->children = p->kids;
		for (i = 0; i < s->n_children; i++) {
			if (!(p->kids[i] = pm_calloc(1, sizeof *p->kids[i])))
				return PAIMON_ENOMEM;
			if ((rc = make_null(s->children[i], child_n, p->kids[i])))
				return rc;
			/* children of lists/maps have no rows; struct children are null too */
		}
	}
	return 0;
}

/* Converts a primitive column to the Parquet writer's expected width.
 * Keeps src's offset/length and borrows its validity bitmap. */
static int convert(const pm_field *f, const struct ArrowSchema *s, const struct ArrowArray *a, struct ArrowArray *out)
{
	const char *sf = s->format;
	int64_t total = a->offset + a->length, i;
	null_priv *p;
	const pm_type *t = f->type;
	memset(out, 0, sizeof *out);
	if (a->n_buffers < 2 || !a->buffers)
		return pm_err(PAIMON_EINVAL, "column '%s': malformed Arrow array", f->name);
	if (!(p = pm_calloc(1, sizeof *p)))
		return PAIMON_ENOMEM;
	out->private_data = p;
	out->release = owned_release;
	out->length = a->length;
	out->offset = a->offset;
	out->null_count = a->null_count;
	out->n_buffers = 2;
	out->buffers = p->bptr;
	p->bptr[0] = a->buffers[0];
	if (t->root == PM_FLOAT || t->root == PM_DOUBLE) {
		double *d;
		float *fl;
		if (t->root == PM_FLOAT) {
			if (!(fl = pm_malloc((size_t)(total + 1) * 4)))
				return PAIMON_ENOMEM;
			p->bufs[1] = fl;
			d = NULL;
		} else {
			if (!(d = pm_malloc((size_t)(total + 1) * 8)))
				return PAIMON_ENOMEM;
			p->bufs[1] = d;
			fl = NULL;
		}
		for (i = a->offset; i < total; i++) {
			double x;
			switch (sf[0]) {
			case 'f': x = ((const float *)a->buffers[1])[i]; break;
			case 'e': x = 0; break;
			case 'c': x = ((const int8_t *)a->buffers[1])[i]; break;
			case 'C': x = ((const uint8_t *)a->buffers[1])[i]; break;
			case 's': x = ((const int16_t *)a->buffers[1])[i]; break;
			case 'S': x = ((const uint16_t *)a->buffers[1])[i]; break;
			case 'i': x = ((const int32_t *)a->buffers[1])[i]; break;
			case 'I': x = ((const uint32_t *)a->buffers[1])[i]; break;
			default: x = (double)((const int64_t *)a->buffers[1])[i]; break;
			}
			if (d)
				d[i] = x;
			else
				fl[i] = (float)x;
		}
	} else if (t->root == PM_DATE) {
		int32_t *d = pm_malloc((size_t)(total + 1) * 4);
		if (!(p->bufs[1] = d))
			return PAIMON_ENOMEM;
		for (i = a->offset; i < total; i++) {
			int64_t ms = ((const int64_t *)a->buffers[1])[i];
			int64_t days = ms / 86400000;
			if (ms % 86400000 < 0)
				days--;
			d[i] = (int32_t)days;
		}
	} else {
		/* integer widening */
		int wd = t->root == PM_SMALLINT ? 2 : t->root == PM_INT ? 4 : 8;
		uint8_t *dst = pm_malloc((size_t)(total + 1) * (size_t)wd);
		const uint8_t *valid = a->buffers[0];
		if (!(p->bufs[1] = dst))
			return PAIMON_ENOMEM;
		for (i = a->offset; i < total; i++) {
			int64_t x;
			switch (sf[0]) {
			case 'c': x = ((const int8_t *)a->buffers[1])[i]; break;
			case 'C': x = ((const uint8_t *)a->buffers[1])[i]; break;
			case 's': x = ((const int16_t *)a->buffers[1])[i]; break;
			case 'S': x = ((const uint16_t *)a->buffers[1])[i]; break;
			case 'i': x = ((const int32_t *)a->buffers[1])[i]; break;
			case 'I': x = ((const uint32_t *)a->buffers[1])[i]; break;
			case 'L': {
				uint64_t u = ((const uint64_t *)a->buffers[1])[i];
				if (u > INT64_MAX && (!valid || (valid[i >> 3] >> (i & 7)) & 1))
					return pm_err(PAIMON_EINVAL, "column '%s': value %llu out of range for BIGINT",
						      f->name, (unsigned long long)u);
				x = (int64_t)u;
				break;
			}
			default: x = ((const int64_t *)a->buffers[1])[i]; break;
			}
			if (wd == 2)
				((int16_t *)dst)[i] = (int16_t)x;
			else if (wd == 4)
				((int32_t *)dst)[i] = (int32_t)x;
			else
				((int64_t *)dst)[i] = x;
		}
	}
	p->bptr[1] = p->bufs[1];
	return 0;
}

/* 1 if an Arrow format needs conversion for column type t, 0 if taken as
 * is, -1 if it does not fit at all. */
static int needs_convert(const pm_type *t, const char *f)
{
	switch (t->root) {
	case PM_SMALLINT:
		return !strcmp(f, "s") ? 0 : (!strcmp(f, "c") || !strcmp(f, "C")) ? 1 : -1;
	case PM_INT:
		return !strcmp(f, "i") ? 0 : (strchr("cCsS", f[0]) && !f[1]) ? 1 : -1;
	case PM_BIGINT:
		return !strcmp(f, "l") ? 0 : (strchr("cCsSiIL", f[0]) && !f[1]) ? 1 : -1;
	case PM_FLOAT:
		return !strcmp(f, "f") ? 0 : (strchr("cCsS", f[0]) && !f[1]) ? 1 : -1;
	case PM_DOUBLE:
		return !strcmp(f, "g") ? 0 : (strchr("fcCsSiIl", f[0]) && !f[1]) ? 1 : -1;
	case PM_DATE:
		return !strcmp(f, "tdD") ? 0 : !strcmp(f, "tdm") ? 1 : -1;
	default:
		return 0; /* the Parquet writer checks (and names the column) */
	}
}

static int64_t count_nulls(const struct ArrowArray *a, int64_t off, int64_t n)
{
	const uint8_t *v;
	if (a->null_count == 0)
		return 0;
	if (a->n_buffers < 1 || !a->buffers || !(v = a->buffers[0]))
		return 0;
	return n - pm_bits_count(v, a->offset + off, n);
}

static int normalize(pm_table_writer *w, const struct ArrowArray *b, const struct ArrowSchema *s, view *v)
{
	size_t nf = w->schema->nfields, i;
	int64_t j;
	int rc;
	memset(v, 0, sizeof *v);
	if (!b || !b->release || !s || !s->format)
		return pm_err(PAIMON_EINVAL, "write: released or NULL Arrow batch");
	if (strcmp(s->format, "+s"))
		return pm_err(PAIMON_EINVAL, "write: the batch must be a struct array (Arrow format '+s'), got '%s'",
			      s->format);
	if (b->n_children != s->n_children || b->length < 0 || b->offset < 0)
		return pm_err(PAIMON_EINVAL, "write: the batch does not match its schema (%lld vs %lld children)",
			      (long long)b->n_children, (long long)s->n_children);
	if (b->null_count > 0 && count_nulls(b, b->offset, b->length) > 0)
		return pm_err(PAIMON_EINVAL, "write: the batch has null rows (top-level struct nulls)");
	for (j = 0; j < s->n_children; j++) {
		const char *name = s->children[j] ? s->children[j]->name : NULL;
		long fi = name ? pm_schema_field_index(w->schema, name) : -1;
		if (fi < 0)
			return pm_err(PAIMON_EINVAL, "write: column '%s' of the batch is not a column of the table",
				      name ? name : "?");
		if (w->in_wcols && !w->in_wcols[fi])
			return pm_err(PAIMON_EINVAL, "write: column '%s' of the batch is not in the write type "
				      "(with_write_type)", name);
	}
	v->n = nf;
	if (!(v->ach = pm_calloc(nf, sizeof *v->ach)) || !(v->sch_ch = pm_calloc(nf, sizeof *v->sch_ch)) ||
	    !(v->own = pm_calloc(nf, sizeof *v->own)))
		return PAIMON_ENOMEM;
	for (i = 0; i < nf; i++) {
		const pm_field *f = &w->schema->fields[i];
		const struct ArrowSchema *cs = NULL;
		const struct ArrowArray *ca = NULL;
		int nc;
		if (w->in_wcols && !w->in_wcols[i]) {
			/* not written: a placeholder of Arrow's null type (no
			 * buffers) keeps the view in table order for routing */
			if ((rc = pm_aschema_init(&v->own[i].s, "n", f->name, ARROW_FLAG_NULLABLE, 0)))
				return rc;
			if ((rc = make_null(&v->own[i].s, b->offset + b->length, &v->own[i].a)))
				return rc;
			v->sch_ch[i] = &v->own[i].s;
			v->ach[i] = &v->own[i].a;
			continue;
		}
		for (j = 0; j < s->n_children; j++)
			if (!strcmp(s->children[j]->name, f->name)) {
				if (cs)
					return pm_err(PAIMON_EINVAL, "write: column '%s' appears twice in the batch",
						      f->name);
				cs = s->children[j];
				ca = b->children[j];
			}
		if (cs && (!ca || ca->length < b->offset + b->length || !cs->format))
			return pm_err(PAIMON_EINVAL, "write: column '%s': child array shorter than the batch", f->name);
		if (!cs || !strcmp(cs->format, "n")) {
			if (!f->type->nullable) {
				if (!cs)
					return pm_err(PAIMON_EINVAL, "write: NOT NULL column '%s' is missing from the batch",
						      f->name);
				if (b->length > 0)
					return pm_err(PAIMON_EINVAL, "write: column '%s' is NOT NULL but the batch has "
						      "%lld null(s) in it", f->name, (long long)b->length);
			}
			if ((rc = pm_type_to_arrow(f->type, f->name, &v->own[i].s)))
				return pm_err_wrap("write: column '%s'", f->name);
			if ((rc = make_null(&v->own[i].s, b->offset + b->length, &v->own[i].a)))
				return rc;
			v->sch_ch[i] = &v->own[i].s;
			v->ach[i] = &v->own[i].a;
			continue;
		}
		if (!f->type->nullable) {
			int64_t nn = count_nulls(ca, b->offset, b->length);
			if (nn > 0)
				return pm_err(PAIMON_EINVAL, "write: column '%s' is NOT NULL but the batch has %lld null(s) in it",
					      f->name, (long long)nn);
		}
		nc = needs_convert(f->type, cs->format);
		if (nc < 0) {
			pm_buf tb = PM_BUF_INIT;
			rc = pm_type_to_string(f->type, &tb);
			if (!rc)
				rc = pm_err(PAIMON_EINVAL, "write: column '%s': Arrow type '%s' does not fit the column type %s",
					    f->name, cs->format, pm_buf_cstr(&tb));
			pm_buf_dispose(&tb);
			return rc;
		}
		v->sch_ch[i] = (struct ArrowSchema *)cs;
		if (nc == 0) {
			v->ach[i] = (struct ArrowArray *)ca;
			continue;
		}
		/* converted: borrow the schema node only for its name; give the
		 * writer a node with the target format */
		if ((rc = pm_type_to_arrow(f->type, f->name, &v->own[i].s)))
			return pm_err_wrap("write: column '%s'", f->name);
		v->sch_ch[i] = &v->own[i].s;
		if ((rc = convert(f, cs, ca, &v->own[i].a)))
			return rc;
		v->ach[i] = &v->own[i].a;
	}
	memset(&v->arr, 0, sizeof v->arr);
	v->arr.length = b->length;
	v->arr.offset = b->offset;
	v->arr.null_count = 0;
	v->arr.n_buffers = 1;
	{
		static const void *nobuf[1] = {NULL};
		v->arr.buffers = nobuf;
	}
	v->arr.n_children = (int64_t)nf;
	v->arr.children = v->ach;
	v->arr.release = view_release;
	memset(&v->sch, 0, sizeof v->sch);
	v->sch.format = "+s";
	v->sch.name = "";
	v->sch.n_children = (int64_t)nf;
	v->sch.children = v->sch_ch;
	v->sch.release = NULL;
	return 0;
}

/* ------------------------------------------------------------- public */

/* 1 for a column whose values go to .blob files: a scalar BLOB that is no
 * blob-descriptor-field (those are stored inline as descriptors), or an
 * ARRAY<BLOB> / MAP<K, BLOB> (nested payloads; pypaimon 2.1.0 refuses
 * them as descriptor fields, see check_nested_blobs). */
static int blob_file_column(const pm_table_writer *w, const pm_field *f)
{
	if (f->type->root != PM_BLOB)
		return pm_blob_nested_type_ok(f->type);
	return !pm_schema_is_descriptor_field(w->schema, f->name);
}

/* The nested BLOB columns a writer can take: ARRAY<BLOB> or MAP<K, BLOB>
 * of a supported key type, never a blob-descriptor-field (pypaimon 2.1.0:
 * "ARRAY<BLOB> and MAP<X, BLOB> are only supported by 'blob-field'"). */
static int check_nested_blobs(const pm_table_writer *w)
{
	size_t i;
	for (i = 0; i < w->schema->nfields; i++) {
		const pm_field *f = &w->schema->fields[i];
		if (f->type->root == PM_BLOB || !pm_type_has_blob(f->type))
			continue;
		if (!pm_blob_nested_type_ok(f->type))
			return pm_err(PAIMON_EUNSUPPORTED, "table '%s': column '%s' nests BLOB in a way that cannot be "
				      "written (only BLOB, ARRAY<BLOB> and MAP<K, BLOB> with a TINYINT, SMALLINT, INT, "
				      "BIGINT, BOOLEAN, DATE, TIME, DECIMAL, CHAR, VARCHAR, BINARY or VARBINARY key)",
				      w->table_path, f->name);
		if (pm_schema_is_descriptor_field(w->schema, f->name))
			return pm_err(PAIMON_EINVAL, "table '%s': ARRAY<BLOB> and MAP<X, BLOB> are only supported by "
				      "'blob-field'; column '%s' is a blob-descriptor-field", w->table_path, f->name);
	}
	return 0;
}

/*
 * Rows per vector file when vector.target-file-size is set (0: not set,
 * one vector file per data file). pypaimon 2.1.0 rolls its vector writer
 * when the Arrow size of the buffered vectors exceeds the target, cutting
 * where it is at most the target: the vectors' value bytes per row (no
 * nulls: pypaimon cannot write null vectors), so floor(target / row
 * bytes) rows, at least 1.
 */
static int64_t vector_roll_rows(const pm_type *vrow, int64_t target)
{
	int64_t row = 0;
	size_t i;
	if (target <= 0)
		return 0;
	for (i = 0; i < vrow->nfields; i++) {
		const pm_type *t = vrow->fields[i].type;
		int64_t e;
		switch (t->element ? t->element->root : PM_FLOAT) {
		case PM_BOOLEAN: case PM_TINYINT: e = 1; break;
		case PM_SMALLINT: e = 2; break;
		case PM_INT: case PM_FLOAT: e = 4; break;
		default: e = 8; break;
		}
		row += e * (t->length > 0 ? t->length : 1);
	}
	if (row <= 0)
		return 0;
	return target / row > 0 ? target / row : 1;
}

/*
 * After the written columns are known (all, or with_write_type's): BLOB
 * columns go to .blob streams and the data file takes the others (so its
 * write_cols name them, as both peers write, even for a full-row write).
 */
static int configure_blobs(pm_table_writer *w)
{
	size_t nf = w->schema->nfields, n = w->wcols ? w->n_wcols : nf, i, nd = 0, nv = 0;
	const char *vf = opt(w, "vector.file.format");
	pm_free(w->rblobs);
	pm_free(w->dcols);
	pm_type_free(w->drow);
	pm_free(w->vcols);
	pm_type_free(w->vrow);
	pm_free(w->vext);
	w->rblobs = NULL;
	w->dcols = NULL;
	w->drow = NULL;
	w->vcols = NULL;
	w->vrow = NULL;
	w->vext = NULL;
	w->n_rblobs = 0;
	w->roll.blobs = NULL;
	w->roll.n_blobs = 0;
	w->roll.companions = NULL;
	w->roll.n_companions = 0;
	w->roll.format = w->fmt;
	w->roll.extension = w->ext;
	w->roll.no_value_stats = 0;
	if (vf && !*vf)
		vf = NULL;
	for (i = 0; i < n; i++) {
		const pm_field *f = &w->schema->fields[w->wcols ? w->wcols[i] : i];
		if (blob_file_column(w, f))
			w->n_rblobs++;
		else if (vf && f->type->root == PM_VECTOR)
			nv++;
	}
	if (!w->n_rblobs && !nv)
		return 0;
	if (nv) {
		int rc;
		char ext[32];
		/* parquet, or vortex through the optional shim (format/vortex/vx.h) */
		if (strcasecmp(vf, "parquet") && strcasecmp(vf, "vortex"))
			return pm_err(PAIMON_EUNSUPPORTED, "option 'vector.file.format' = '%s' of table '%s': only "
				      "'parquet' and 'vortex' vector-store files are written (lance is not supported)",
				      vf, w->table_path);
		if ((rc = pm_format_by_name(vf, &w->vfmt)))
			return rc;
		snprintf(ext, sizeof ext, ".vector%s", w->vfmt->extension);
		if (!(w->vcols = pm_calloc(nv, sizeof *w->vcols)) || !(w->vrow = pm_type_new(PM_ROW)) ||
		    !(w->vrow->fields = pm_calloc(nv, sizeof(pm_field))) || !(w->vext = pm_strdup(ext)))
			return PAIMON_ENOMEM;
		w->vrow->nullable = 0;
	}
	if (!(w->rblobs = pm_calloc(w->n_rblobs + 1, sizeof *w->rblobs)) || !(w->dcols = pm_calloc(n + 1, sizeof *w->dcols)) ||
	    !(w->drow = pm_type_new(PM_ROW)) || !(w->drow->fields = pm_calloc(n + 1, sizeof(pm_field))))
		return PAIMON_ENOMEM;
	w->drow->nullable = 0;
	w->n_rblobs = 0;
	for (i = 0; i < n; i++) {
		size_t fi = w->wcols ? w->wcols[i] : i;
		const pm_field *f = &w->schema->fields[fi];
		int rc;
		if (blob_file_column(w, f)) {
			pm_roll_blob *b = &w->rblobs[w->n_rblobs++];
			b->column = fi;
			b->name = f->name;
			b->type = f->type;
			b->target_size = w->blob_target > 0 ? w->blob_target : w->target_size;
			continue;
		}
		if (w->vcols && f->type->root == PM_VECTOR) {
			size_t v = w->vrow->nfields;
			w->vcols[v] = fi;
			if ((rc = pm_field_copy(&w->vrow->fields[v], f)))
				return rc;
			w->vrow->nfields = v + 1;
			continue;
		}
		w->dcols[nd] = fi;
		if ((rc = pm_field_copy(&w->drow->fields[nd], f)))
			return rc;
		w->drow->nfields = ++nd;
	}
	if (!nd && w->vcols && !w->n_rblobs && w->unrouted) {
		/* vector columns alone (an update of them by row id): the
		 * .vector.* file is the only file, with a companion's meta (no
		 * value stats), as pypaimon 2.1.0 writes it */
		w->roll.format = w->vfmt;
		w->roll.extension = w->vext;
		w->roll.row = w->vrow;
		w->roll.columns = w->vcols;
		w->roll.n_columns = w->vrow->nfields;
		w->roll.no_value_stats = 1;
		return 0;
	}
	if (!nd)
		return pm_err(PAIMON_EINVAL, "write: only BLOB columns are written (table '%s'); a .blob file needs a "
			      "data file with some other column (the peers refuse this too)", w->table_path);
	w->roll.row = w->drow;
	w->roll.columns = w->dcols;
	w->roll.n_columns = nd;
	w->roll.blobs = w->rblobs;
	w->roll.n_blobs = w->n_rblobs;
	if (w->vcols) {
		memset(&w->vcomp, 0, sizeof w->vcomp);
		w->vcomp.format = w->vfmt;
		w->vcomp.wopts = w->vfmt == w->fmt ? w->wopts : NULL; /* another format: its defaults */
		w->vcomp.row = w->vrow;
		w->vcomp.columns = w->vcols;
		w->vcomp.n_columns = w->vrow->nfields;
		w->vcomp.extension = w->vext;
		w->vcomp.roll_rows = vector_roll_rows(w->vrow, w->vector_target);
		w->roll.companions = &w->vcomp;
		w->roll.n_companions = 1;
	}
	return 0;
}

int pm_table_writer_new(pm_fileio *io, const char *table_path, const pm_table_schema *s,
			const pm_strmap *opts, pm_table_writer **out)
{
	pm_table_writer *w;
	size_t i;
	int rc;
	*out = NULL;
	if (!(w = pm_calloc(1, sizeof *w)))
		return PAIMON_ENOMEM;
	w->io = io;
	if (!(w->table_path = pm_strdup(table_path))) {
		rc = PAIMON_ENOMEM;
		goto fail;
	}
	if ((rc = pm_schema_copy_with(s, opts, &w->schema)))
		goto fail;
	if ((rc = setup_options(w)))
		goto fail;
	if ((rc = pm_partition_info_init(&w->pi, w->schema)))
		goto fail;
	w->has_pi = 1;
	if (!(w->row_type = pm_type_new(PM_ROW)) ||
	    !(w->row_type->fields = pm_calloc(w->schema->nfields ? w->schema->nfields : 1, sizeof(pm_field)))) {
		rc = PAIMON_ENOMEM;
		goto fail;
	}
	w->row_type->nullable = 0;
	for (i = 0; i < w->schema->nfields; i++) {
		if ((rc = pm_field_copy(&w->row_type->fields[i], &w->schema->fields[i])))
			goto fail;
		w->row_type->nfields++;
	}
	w->roll.io = io;
	w->roll.format = w->fmt;
	w->roll.wopts = w->wopts;
	w->roll.row = w->row_type;
	w->roll.target_size = w->target_size;
	w->roll.target_rows = w->target_rows;
	w->roll.prefix = w->prefix;
	w->roll.extension = w->ext;
	w->roll.schema = w->schema;
	w->roll.modes = w->modes;
	w->roll.dense = w->dense;
	w->roll.on_path = on_path;
	w->roll.on_file = on_file;
	if ((rc = check_nested_blobs(w)) || (rc = configure_blobs(w)))
		goto fail;
	{
		size_t nv = w->pi.n > w->n_bkey ? w->pi.n : w->n_bkey;
		if (!(w->vals = pm_calloc(nv ? nv : 1, sizeof *w->vals))) {
			rc = PAIMON_ENOMEM;
			goto fail;
		}
	}
	*out = w;
	return 0;
fail:
	pm_table_writer_free(w);
	return rc;
}

/* ------------------------------------------------- single-file writes */

struct pm_table_writer_file {
	wgroup g;                  /* its own file set, outside the routing table */
	int64_t first_row_id;      /* < 0: none */
	size_t first_done;         /* w->done.len at open */
	int closed;
};

int pm_table_writer_file_open(pm_table_writer *w, const uint8_t *part, size_t plen, int32_t bucket,
			      int64_t first_row_id, pm_table_writer_file **out)
{
	pm_table_writer_file *f;
	pm_buf dir = PM_BUF_INIT;
	int rc;
	*out = NULL;
	if (w->failed)
		return pm_err(PAIMON_EINVAL, "write: the table writer failed earlier");
	if (!(f = pm_calloc(1, sizeof *f)))
		return PAIMON_ENOMEM;
	f->g.w = w;
	f->g.bucket = bucket;
	f->first_row_id = first_row_id;
	f->first_done = w->done.len;
	w->roll_one = w->roll;
	w->roll_one.target_size = INT64_MAX;
	w->roll_one.target_rows = INT64_MAX;
	if ((rc = pm_bytes_set(&f->g.partition, part, plen)) ||
	    (rc = pm_table_data_dir(w->table_path, w->path_dir, &w->pi, part, plen, bucket, &dir)) ||
	    (rc = pm_roll_set_new(&w->roll_one, pm_buf_cstr(&dir), &f->g, &f->g.rs))) {
		pm_buf_dispose(&dir);
		pm_table_writer_file_free(f);
		return rc;
	}
	pm_buf_dispose(&dir);
	*out = f;
	return 0;
}

int pm_table_writer_file_write(pm_table_writer_file *f, const struct ArrowArray *batch, const struct ArrowSchema *schema)
{
	pm_table_writer *w = f->g.w;
	view v;
	int rc;
	if (f->closed)
		return pm_err(PAIMON_EINVAL, "write: the file was already closed");
	if ((rc = normalize(w, batch, schema, &v))) {
		view_dispose(&v);
		return rc;
	}
	rc = v.arr.length ? pm_roll_set_write(f->g.rs, &v.arr, &v.sch) : 0;
	view_dispose(&v);
	if (!rc)
		w->rows += batch->length;
	return rc;
}

int pm_table_writer_file_close(pm_table_writer_file *f)
{
	pm_table_writer *w = f->g.w;
	size_t i;
	int rc;
	if (f->closed)
		return 0;
	if ((rc = pm_roll_set_close_file(f->g.rs)))
		return rc;
	f->closed = 1;
	for (i = f->first_done; i < w->done.len; i++) {
		pm_data_file_meta *m = &w->done.items[i].file;
		if (f->first_row_id >= 0) {
			m->has_first_row_id = 1;
			m->first_row_id = f->first_row_id;
		}
		/* a rewrite of existing rows: the commit stamps its snapshot */
		m->min_sequence_number = 0;
		m->max_sequence_number = 0;
	}
	return 0;
}

void pm_table_writer_file_free(pm_table_writer_file *f)
{
	if (!f)
		return;
	pm_roll_set_free(f->g.rs);
	pm_bytes_dispose(&f->g.partition);
	pm_free(f);
}

int pm_table_writer_is_dedicated(const pm_table_writer *w, size_t field)
{
	const pm_field *f = &w->schema->fields[field];
	const char *vf = opt(w, "vector.file.format");
	if (blob_file_column(w, f))
		return 1;
	return vf && *vf && f->type->root == PM_VECTOR;
}

int pm_table_writer_set_target(pm_table_writer *w, const uint8_t *part, size_t plen, int32_t bucket)
{
	int rc;
	if (w->failed)
		return pm_err(PAIMON_EINVAL, "write: the table writer failed earlier");
	if (w->rows || w->n_groups)
		return pm_err(PAIMON_EINVAL, "write: set_target after rows were written");
	if ((rc = group_get(w, part, plen, bucket, &w->fixed_group)))
		return rc;
	w->fixed = 1;
	return 0;
}

void pm_table_writer_set_blob_stream(pm_table_writer *w, pm_blob_stream_fn fn, void *ctx)
{
	w->roll.blob_stream = fn;
	w->roll.blob_stream_ctx = ctx;
}

int pm_table_writer_set_write_cols(pm_table_writer *w, const pm_strlist *cols)
{
	return pm_table_writer_set_write_cols_ex(w, cols, 1);
}

static int set_write_cols(pm_table_writer *w, const pm_strlist *cols, int routed);

int pm_table_writer_set_write_cols_ex(pm_table_writer *w, const pm_strlist *cols, int routed)
{
	int rc = set_write_cols(w, cols, routed);
	w->unrouted = !routed;
	return rc ? rc : configure_blobs(w);
}

static int set_write_cols(pm_table_writer *w, const pm_strlist *cols, int routed)
{
	size_t i, k, nf = w->schema->nfields;
	int rc;
	if (w->rows || w->n_groups)
		return pm_err(PAIMON_EINVAL, "with_write_type must be called before any write");
	pm_free(w->wcols);
	pm_free(w->in_wcols);
	pm_type_free(w->wrow);
	w->wcols = NULL;
	w->in_wcols = NULL;
	w->wrow = NULL;
	w->n_wcols = 0;
	w->roll.row = w->row_type;
	w->roll.columns = NULL;
	w->roll.n_columns = 0;
	if (!cols)
		return 0;
	if (cols->len == 0)
		return pm_err(PAIMON_EINVAL, "with_write_type: no columns given (table '%s')", w->table_path);
	if (!(w->wcols = pm_calloc(cols->len, sizeof *w->wcols)) || !(w->in_wcols = pm_calloc(nf + 1, 1)))
		return PAIMON_ENOMEM;
	for (i = 0; i < cols->len; i++) {
		long fi = pm_schema_field_index(w->schema, cols->items[i]);
		if (fi < 0)
			return pm_err(PAIMON_EINVAL, "with_write_type: column '%s' is not in table '%s'", cols->items[i],
				      w->table_path);
		if (w->in_wcols[fi])
			return pm_err(PAIMON_EINVAL, "with_write_type: column '%s' is listed twice", cols->items[i]);
		w->in_wcols[fi] = 1;
		w->wcols[i] = (size_t)fi;
	}
	w->n_wcols = cols->len;
	for (k = 0; routed && k < w->pi.n; k++)
		if (!w->in_wcols[w->pi.field_index[k]])
			return pm_err(PAIMON_EINVAL, "with_write_type: partition column '%s' must be written (table '%s')",
				      w->pi.names[k], w->table_path);
	for (k = 0; routed && k < w->n_bkey; k++)
		if (!w->in_wcols[w->bkey_index[k]])
			return pm_err(PAIMON_EINVAL, "with_write_type: bucket-key column '%s' must be written (table '%s')",
				      w->schema->fields[w->bkey_index[k]].name, w->table_path);
	if (cols->len == nf) {
		/* every column: a plain write (as pypaimon), files keep
		 * write_cols null; columns must still come in table order for
		 * that, else the subset path keeps the caller's order */
		for (i = 0; i < nf && w->wcols[i] == i; i++)
			;
		if (i == nf) {
			pm_free(w->wcols);
			pm_free(w->in_wcols);
			w->wcols = NULL;
			w->in_wcols = NULL;
			w->n_wcols = 0;
			return 0;
		}
	}
	if (!(w->wrow = pm_type_new(PM_ROW)) || !(w->wrow->fields = pm_calloc(cols->len, sizeof(pm_field))))
		return PAIMON_ENOMEM;
	w->wrow->nullable = 0;
	for (i = 0; i < cols->len; i++) {
		if ((rc = pm_field_copy(&w->wrow->fields[i], &w->schema->fields[w->wcols[i]])))
			return rc;
		w->wrow->nfields++;
	}
	w->roll.row = w->wrow;
	w->roll.columns = w->wcols;
	w->roll.n_columns = w->n_wcols;
	return 0;
}

int64_t pm_table_writer_row_count(const pm_table_writer *w)
{
	return w->rows;
}

static int route(pm_table_writer *w, const view *v, size_t *single)
{
	int64_t n = v->arr.length, r;
	size_t k, last_g = SIZE_MAX;
	uint8_t *last = NULL;
	size_t last_n = 0;
	int32_t last_bucket = 0;
	int rc, one = 1;
	if ((size_t)n > w->gid_cap) {
		uint32_t *g = pm_realloc(w->gid, (size_t)n * sizeof *g);
		if (!g)
			return PAIMON_ENOMEM;
		w->gid = g;
		w->gid_cap = (size_t)n;
	}
	for (r = 0; r < n; r++) {
		int32_t bucket = 0;
		int64_t row = v->arr.offset + r;
		size_t gi;
		pm_buf_clear(&w->kbuf);
		for (k = 0; k < w->pi.n; k++) {
			int fi = w->pi.field_index[k];
			if ((rc = pm_datum_from_arrow(w->pi.types[k], v->sch_ch[fi], v->ach[fi], row, &w->vals[k])))
				return pm_err_wrap("write: partition column '%s'", w->pi.names[k]);
		}
		if ((rc = pm_partition_encode(&w->pi, w->vals, &w->kbuf)))
			return rc;
		if (w->num_buckets > 0) {
			for (k = 0; k < w->n_bkey; k++) {
				int fi = w->bkey_index[k];
				if ((rc = pm_datum_from_arrow(w->bkey_types[k], v->sch_ch[fi], v->ach[fi], row, &w->vals[k])))
					return pm_err_wrap("write: bucket-key column '%s'", w->schema->fields[fi].name);
			}
			pm_buf_clear(&w->bbuf);
			if ((rc = pm_binrow_encode(w->bkey_types, w->vals, w->n_bkey, 0, 0, &w->bbuf)))
				return rc;
			bucket = pm_bucket_of_hash(pm_binrow_hash((const uint8_t *)w->bbuf.data, w->bbuf.len),
						   w->num_buckets);
		}
		if (last_g != SIZE_MAX && bucket == last_bucket && w->kbuf.len == last_n &&
		    !memcmp(w->kbuf.data, last, last_n)) {
			gi = last_g;
		} else {
			if ((rc = group_get(w, (const uint8_t *)w->kbuf.data, w->kbuf.len, bucket, &gi)))
				return rc;
			if (last_g != SIZE_MAX && gi != last_g)
				one = 0;
			last_g = gi;
			last = w->groups[gi]->partition.p;
			last_n = w->groups[gi]->partition.n;
			last_bucket = bucket;
		}
		w->gid[r] = (uint32_t)gi;
	}
	*single = one ? last_g : SIZE_MAX;
	return 0;
}

/* Gathers rows perm[0..n) (batch rows, before the batch offset `boff`)
 * of a flat column into out. 1 = not a flat type (caller falls back). */
static int take_column(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t boff, const uint32_t *perm,
		       int64_t n, struct ArrowArray *out)
{
	const char *f = s->format;
	null_priv *p;
	int64_t i, base = a->offset + boff;
	const uint8_t *valid = a->n_buffers > 0 && a->buffers ? a->buffers[0] : NULL;
	int wd = 0, kind; /* 0 fixed, 1 bool, 2 bin32, 3 bin64 */
	if (!strcmp(f, "n"))
		return make_null(s, n, out); /* a column the write type leaves out */
	if (!strcmp(f, "b"))
		kind = 1;
	else if (!strcmp(f, "u") || !strcmp(f, "z"))
		kind = 2;
	else if (!strcmp(f, "U") || !strcmp(f, "Z"))
		kind = 3;
	else if (f[0] != '+' && f[0] != 'n' && (wd = fixed_width(f)) > 0)
		kind = 0;
	else
		return 1;
	memset(out, 0, sizeof *out);
	if (!(p = pm_calloc(1, sizeof *p)))
		return PAIMON_ENOMEM;
	out->private_data = p;
	out->release = owned_release;
	out->length = n;
	out->buffers = p->bptr;
	out->n_buffers = kind >= 2 ? 3 : 2;
	out->null_count = 0;
	if (valid && a->null_count != 0) {
		uint8_t *v = pm_calloc(1, (size_t)(n + 7) / 8 + 1);
		int64_t nulls = 0;
		if (!(p->bufs[0] = v))
			return PAIMON_ENOMEM;
		for (i = 0; i < n; i++) {
			int64_t r = base + perm[i];
			if ((valid[r >> 3] >> (r & 7)) & 1)
				v[i >> 3] |= (uint8_t)(1u << (i & 7));
			else
				nulls++;
		}
		out->null_count = nulls;
		p->bptr[0] = v;
	}
	if (kind == 0) {
		const uint8_t *src = a->buffers[1];
		uint8_t *dst = pm_malloc((size_t)(n + 1) * (size_t)wd);
		if (!(p->bufs[1] = dst))
			return PAIMON_ENOMEM;
		switch (wd) {
		case 4:
			for (i = 0; i < n; i++)
				((uint32_t *)dst)[i] = ((const uint32_t *)src)[base + perm[i]];
			break;
		case 8:
			for (i = 0; i < n; i++)
				((uint64_t *)dst)[i] = ((const uint64_t *)src)[base + perm[i]];
			break;
		default:
			for (i = 0; i < n; i++)
				memcpy(dst + i * wd, src + (base + perm[i]) * wd, (size_t)wd);
		}
	} else if (kind == 1) {
		const uint8_t *src = a->buffers[1];
		uint8_t *dst = pm_calloc(1, (size_t)(n + 7) / 8 + 1);
		if (!(p->bufs[1] = dst))
			return PAIMON_ENOMEM;
		for (i = 0; i < n; i++) {
			int64_t r = base + perm[i];
			if ((src[r >> 3] >> (r & 7)) & 1)
				dst[i >> 3] |= (uint8_t)(1u << (i & 7));
		}
	} else {
		const uint8_t *data = a->buffers[2];
		size_t total = 0, pos = 0, ow = kind == 2 ? 4 : 8;
		uint8_t *offs, *dst;
		for (i = 0; i < n; i++) {
			int64_t r = base + perm[i];
			total += kind == 2 ? (size_t)(((const int32_t *)a->buffers[1])[r + 1] - ((const int32_t *)a->buffers[1])[r])
					   : (size_t)(((const int64_t *)a->buffers[1])[r + 1] - ((const int64_t *)a->buffers[1])[r]);
		}
		if (kind == 2 && total > INT32_MAX)
			return 1; /* let the general path deal with it */
		if (!(offs = p->bufs[1] = pm_malloc((size_t)(n + 1) * ow)) || !(dst = p->bufs[2] = pm_malloc(total + 1)))
			return PAIMON_ENOMEM;
		for (i = 0; i < n; i++) {
			int64_t r = base + perm[i], o0, o1;
			if (kind == 2) {
				o0 = ((const int32_t *)a->buffers[1])[r];
				o1 = ((const int32_t *)a->buffers[1])[r + 1];
				((int32_t *)offs)[i] = (int32_t)pos;
			} else {
				o0 = ((const int64_t *)a->buffers[1])[r];
				o1 = ((const int64_t *)a->buffers[1])[r + 1];
				((int64_t *)offs)[i] = (int64_t)pos;
			}
			memcpy(dst + pos, data + o0, (size_t)(o1 - o0));
			pos += (size_t)(o1 - o0);
		}
		if (kind == 2)
			((int32_t *)offs)[n] = (int32_t)pos;
		else
			((int64_t *)offs)[n] = (int64_t)pos;
		p->bptr[2] = dst;
	}
	p->bptr[1] = p->bufs[1];
	return 0;
}

/* Approximate memory of a flat gathered batch. */
static int64_t batch_bytes(const struct ArrowSchema *s, const struct ArrowArray *a)
{
	int64_t n = a->length, total = 0, c;
	for (c = 0; c < a->n_children; c++) {
		const char *f = s->children[c]->format;
		const struct ArrowArray *k = a->children[c];
		total += (n + 7) / 8;
		if (!strcmp(f, "u") || !strcmp(f, "z"))
			total += 4 * (n + 1) + ((const int32_t *)k->buffers[1])[k->offset + n];
		else if (!strcmp(f, "U") || !strcmp(f, "Z"))
			total += 8 * (n + 1) + ((const int64_t *)k->buffers[1])[k->offset + n];
		else if (strcmp(f, "b"))
			total += n * fixed_width(f);
	}
	return total;
}

/* Takes ownership of the gathered batch *top (rows of group g at
 * [start[g], start[g+1])) and queues one pending slice per group. */
static int hold_pending(pm_table_writer *w, const view *v, struct ArrowArray *top, const int64_t *start, size_t ng)
{
	pbatch *b = pm_calloc(1, sizeof *b);
	size_t c, g;
	if (!b)
		return PAIMON_ENOMEM;
	b->n = v->n;
	b->arr = *top;
	top->release = NULL;
	b->refs = 1; /* ours, until the slices are queued */
	if (!(b->kids = pm_calloc(v->n ? v->n : 1, sizeof *b->kids)) ||
	    !(b->kidp = pm_calloc(v->n ? v->n : 1, sizeof *b->kidp)) ||
	    !(b->strs = pm_calloc(2 * v->n + 1, sizeof *b->strs))) {
		pbatch_unref(w, b);
		return PAIMON_ENOMEM;
	}
	for (c = 0; c < v->n; c++) {
		const struct ArrowSchema *src = v->sch_ch[c];
		if (!(b->strs[2 * c] = pm_strdup(src->format)) ||
		    !(b->strs[2 * c + 1] = pm_strdup(src->name ? src->name : ""))) {
			pbatch_unref(w, b);
			return PAIMON_ENOMEM;
		}
		b->kids[c].format = b->strs[2 * c];
		b->kids[c].name = b->strs[2 * c + 1];
		b->kids[c].flags = src->flags;
		b->kidp[c] = &b->kids[c];
	}
	b->sch.format = "+s";
	b->sch.name = "";
	b->sch.n_children = (int64_t)v->n;
	b->sch.children = b->kidp;
	b->bytes = batch_bytes(&b->sch, &b->arr);
	w->pend_bytes += b->bytes;
	for (g = 0; g < ng; g++) {
		wgroup *gr = w->groups[g];
		if (start[g + 1] == start[g])
			continue;
		if (gr->n_pend == gr->cap_pend) {
			size_t nc = gr->cap_pend ? gr->cap_pend * 2 : 8;
			pslice *np = pm_realloc(gr->pend, nc * sizeof *np);
			if (!np) {
				pbatch_unref(w, b);
				return PAIMON_ENOMEM;
			}
			gr->pend = np;
			gr->cap_pend = nc;
		}
		gr->pend[gr->n_pend].b = b;
		gr->pend[gr->n_pend].off = start[g];
		gr->pend[gr->n_pend].len = start[g + 1] - start[g];
		gr->n_pend++;
		b->refs++;
	}
	pbatch_unref(w, b);
	return 0;
}

/* Reorders the batch by group (counting sort, stable) into one gathered
 * batch and writes each group's contiguous slice: O(rows) for any number
 * of groups. 1 = some column is not flat (caller falls back). */
static int write_sorted(pm_table_writer *w, view *v)
{
	int64_t n = v->arr.length, i;
	size_t ng = w->n_groups, g, c;
	int64_t *start = pm_calloc(ng + 1, sizeof *start);
	uint32_t *perm = pm_malloc((size_t)n * sizeof *perm);
	struct ArrowArray top;
	null_priv *tp = NULL;
	int rc = 0;
	memset(&top, 0, sizeof top);
	if (!start || !perm) {
		rc = PAIMON_ENOMEM;
		goto done;
	}
	for (i = 0; i < n; i++)
		start[w->gid[i] + 1]++;
	for (g = 0; g < ng; g++)
		start[g + 1] += start[g];
	{
		int64_t *pos = pm_malloc((ng + 1) * sizeof *pos);
		if (!pos) {
			rc = PAIMON_ENOMEM;
			goto done;
		}
		memcpy(pos, start, (ng + 1) * sizeof *pos);
		for (i = 0; i < n; i++)
			perm[pos[w->gid[i]]++] = (uint32_t)i;
		pm_free(pos);
	}
	if (!(tp = pm_calloc(1, sizeof *tp)) || !(tp->kids = pm_calloc(v->n ? v->n : 1, sizeof *tp->kids))) {
		pm_free(tp);
		rc = PAIMON_ENOMEM;
		goto done;
	}
	top.private_data = tp;
	top.release = owned_release;
	top.length = n;
	top.n_buffers = 1;
	top.buffers = tp->bptr;
	top.n_children = (int64_t)v->n;
	top.children = tp->kids;
	for (c = 0; c < v->n; c++) {
		if (!(tp->kids[c] = pm_calloc(1, sizeof *tp->kids[c]))) {
			rc = PAIMON_ENOMEM;
			goto done;
		}
		if ((rc = take_column(v->sch_ch[c], v->ach[c], v->arr.offset, perm, n, tp->kids[c])))
			goto done;
	}
	if ((rc = hold_pending(w, v, &top, start, ng)))
		goto done;
	if (w->pend_bytes > w->buffer_limit)
		rc = flush_all(w);
done:
	if (top.release)
		top.release(&top);
	pm_free(start);
	pm_free(perm);
	return rc;
}

static int write_routed(pm_table_writer *w, view *v)
{
	size_t single = SIZE_MAX, g;
	int64_t n = v->arr.length, r;
	int rc;
	if (n == 0)
		return 0;
	if ((rc = route(w, v, &single)))
		return rc;
	if (single != SIZE_MAX) {
		if ((rc = group_flush(w, w->groups[single]))) /* keep the group's row order */
			return rc;
		return group_write(w, w->groups[single], &v->arr, &v->sch);
	}
	if (n <= UINT32_MAX && (rc = write_sorted(w, v)) != 1)
		return rc;
	if ((rc = flush_all(w)))
		return rc;
	/* nested columns: split with the generic Arrow filter, one pass per group */
	if ((size_t)n > w->sel_cap) {
		uint8_t *s = pm_realloc(w->sel, (size_t)n);
		if (!s)
			return PAIMON_ENOMEM;
		w->sel = s;
		w->sel_cap = (size_t)n;
	}
	{
		uint8_t *seen = pm_calloc(w->n_groups, 1);
		if (!seen)
			return PAIMON_ENOMEM;
		for (r = 0; r < n; r++) {
			struct ArrowArray part;
			int64_t q;
			g = w->gid[r];
			if (seen[g])
				continue;
			seen[g] = 1;
			for (q = 0; q < n; q++)
				w->sel[q] = w->gid[q] == g;
			if ((rc = pm_arrow_filter(&v->sch, &v->arr, w->sel, &part))) {
				pm_free(seen);
				return pm_err_wrap("write: splitting a batch by partition");
			}
			rc = group_write(w, w->groups[g], &part, &v->sch);
			if (part.release)
				part.release(&part);
			if (rc) {
				pm_free(seen);
				return rc;
			}
		}
		pm_free(seen);
	}
	return 0;
}

int pm_table_writer_write(pm_table_writer *w, const struct ArrowArray *batch, const struct ArrowSchema *schema)
{
	view v;
	int rc;
	if (w->failed)
		return pm_err(PAIMON_EINVAL, "write: the table writer failed earlier");
	if ((rc = normalize(w, batch, schema, &v))) {
		view_dispose(&v);
		return rc; /* nothing written: the writer stays usable */
	}
	if (v.arr.length == 0) {
		view_dispose(&v);
		return 0;
	}
	if (w->fixed) {
		rc = group_write(w, w->groups[w->fixed_group], &v.arr, &v.sch);
	} else if (w->pi.n == 0 && w->num_buckets <= 0) {
		size_t gi;
		if (!(rc = group_get(w, pm_empty_binrow, sizeof pm_empty_binrow, 0, &gi)))
			rc = group_write(w, w->groups[gi], &v.arr, &v.sch);
	} else {
		rc = write_routed(w, &v);
	}
	view_dispose(&v);
	if (rc) {
		w->failed = 1;
		return rc;
	}
	w->rows += batch->length;
	return 0;
}

int pm_table_writer_prepare_commit(pm_table_writer *w, pm_manifest_entry_list *out)
{
	size_t i;
	int rc;
	if (w->failed)
		return pm_err(PAIMON_EINVAL, "prepare commit: the table writer failed earlier");
	/* group by group: write what is pending, then finish the file, so only
	 * one file's row group is being built at a time */
	for (i = 0; i < w->n_groups; i++)
		if ((rc = group_flush(w, w->groups[i])) || (rc = close_file(w, w->groups[i]))) {
			w->failed = 1;
			return rc;
		}
	for (i = 0; i < w->done.len; i++) {
		pm_manifest_entry *e = pm_manifest_entry_list_push(out);
		if (!e)
			return PAIMON_ENOMEM;
		*e = w->done.items[i];
		memset(&w->done.items[i], 0, sizeof w->done.items[i]);
	}
	w->done.len = 0;
	pm_strlist_dispose(&w->done_paths);
	return 0;
}

void pm_table_writer_free(pm_table_writer *w)
{
	size_t i;
	if (!w)
		return;
	for (i = 0; i < w->n_groups; i++)
		group_free(w, w->groups[i]);
	pm_free(w->groups);
	pm_free(w->slots);
	for (i = 0; i < w->done_paths.len; i++)
		pm_fileio_remove(w->io, w->done_paths.items[i]);
	pm_strlist_dispose(&w->done_paths);
	pm_manifest_entry_list_dispose(&w->done);
	if (w->has_pi)
		pm_partition_info_dispose(&w->pi);
	pm_type_free(w->row_type);
	pm_type_free(w->wrow);
	pm_free(w->rblobs);
	pm_free(w->dcols);
	pm_type_free(w->drow);
	pm_free(w->vcols);
	pm_type_free(w->vrow);
	pm_free(w->vext);
	pm_free(w->wcols);
	pm_free(w->in_wcols);
	if (w->wopts)
		w->fmt->write_options_free(w->wopts);
	pm_schema_free(w->schema);
	pm_free(w->table_path);
	pm_free(w->prefix);
	pm_free(w->ext);
	pm_free(w->path_dir);
	pm_free(w->bkey_index);
	pm_free(w->bkey_types);
	pm_free(w->modes);
	pm_buf_dispose(&w->kbuf);
	pm_buf_dispose(&w->bbuf);
	pm_free(w->gid);
	pm_free(w->sel);
	pm_free(w->vals);
	pm_free(w);
}
