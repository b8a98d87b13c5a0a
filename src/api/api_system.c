/*
 * api/api_system.c - metadata system tables read like tables (Java
 * Paimon's org.apache.paimon.table.system): "<db>.<table>$snapshots",
 * $schemas, $options, $tags, $consumers, $branches, $manifests, $files,
 * $partitions, $table_indexes. Their columns are Java 1.4.2's (names,
 * types, nullability, order). Content is generated from the table's
 * metadata when a read starts (one split, one batch); filters are applied
 * exactly, then the limit, then the projection.
 *
 * Where values are text, Java's formats are followed: JSON fields as
 * Java's toFlatJson, partitions as Java's row-to-string cast "{v1, v2}"
 * ($files, $manifests) or "k=v/k2=v2" ($partitions), statistics as
 * "{column=value, ...}" sorted by column name. Values are our canonical
 * text (types/datum.h), which matches Java's for integers, strings,
 * booleans, dates; floats, decimals and timestamps may be spelled
 * differently. Times are TIMESTAMP(3) in local time, as Java shows them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "api/api_system.h"
#include "arrow/arrow_builder.h"
#include "arrow/arrow_filter.h"
#include "core/error.h"
#include "core/mem.h"
#include "maint/expire.h"
#include "meta/manifest.h"
#include "meta/snapshot.h"
#include "read/read.h"
#include "scan/scan.h"
#include "serde/json/jsonw.h"
#include "table/partition.h"
#include "table/stats.h"
#include "types/datum.h"

typedef struct sys_def {
	const char *suffix;
	int kind;
	const char *columns;
} sys_def;

static const sys_def DEFS[] = {
	{"snapshots", PM_SYS_SNAPSHOTS,
	 "snapshot_id BIGINT NOT NULL, schema_id BIGINT NOT NULL, commit_user STRING NOT NULL, "
	 "commit_identifier BIGINT NOT NULL, commit_kind STRING NOT NULL, commit_time TIMESTAMP(3) NOT NULL, "
	 "base_manifest_list STRING NOT NULL, delta_manifest_list STRING NOT NULL, changelog_manifest_list STRING, "
	 "total_record_count BIGINT, delta_record_count BIGINT, changelog_record_count BIGINT, watermark BIGINT, "
	 "next_row_id BIGINT"},
	{"schemas", PM_SYS_SCHEMAS,
	 "schema_id BIGINT NOT NULL, fields STRING NOT NULL, partition_keys STRING NOT NULL, "
	 "primary_keys STRING NOT NULL, options STRING NOT NULL, comment STRING, update_time TIMESTAMP(3) NOT NULL"},
	{"options", PM_SYS_OPTIONS, "key STRING NOT NULL, value STRING NOT NULL"},
	{"tags", PM_SYS_TAGS,
	 "tag_name STRING NOT NULL, snapshot_id BIGINT NOT NULL, schema_id BIGINT NOT NULL, "
	 "commit_time TIMESTAMP(3) NOT NULL, record_count BIGINT, create_time TIMESTAMP(3), time_retained STRING"},
	{"consumers", PM_SYS_CONSUMERS, "consumer_id STRING NOT NULL, next_snapshot_id BIGINT NOT NULL"},
	{"branches", PM_SYS_BRANCHES, "branch_name STRING NOT NULL, create_time TIMESTAMP(3) NOT NULL"},
	{"manifests", PM_SYS_MANIFESTS,
	 "file_name STRING NOT NULL, file_size BIGINT NOT NULL, num_added_files BIGINT NOT NULL, "
	 "num_deleted_files BIGINT NOT NULL, schema_id BIGINT NOT NULL, min_partition_stats STRING, "
	 "max_partition_stats STRING, min_row_id BIGINT, max_row_id BIGINT"},
	{"files", PM_SYS_FILES,
	 "partition STRING, bucket INT NOT NULL, file_path STRING NOT NULL, file_format STRING NOT NULL, "
	 "schema_id BIGINT NOT NULL, level INT NOT NULL, record_count BIGINT NOT NULL, "
	 "file_size_in_bytes BIGINT NOT NULL, min_key STRING, max_key STRING, null_value_counts STRING NOT NULL, "
	 "min_value_stats STRING NOT NULL, max_value_stats STRING NOT NULL, min_sequence_number BIGINT, "
	 "max_sequence_number BIGINT, creation_time TIMESTAMP(3), deleteRowCount BIGINT, file_source STRING, "
	 "first_row_id BIGINT, write_cols ARRAY<STRING>"},
	{"partitions", PM_SYS_PARTITIONS,
	 "partition STRING, record_count BIGINT NOT NULL, file_size_in_bytes BIGINT NOT NULL, "
	 "file_count BIGINT NOT NULL, last_update_time TIMESTAMP(3), created_at TIMESTAMP(3), created_by STRING, "
	 "updated_by STRING, options STRING"},
	{"table_indexes", PM_SYS_TABLE_INDEXES,
	 "partition STRING, bucket INT NOT NULL, index_type STRING NOT NULL, file_name STRING NOT NULL, "
	 "file_size BIGINT NOT NULL, row_count BIGINT NOT NULL"},
};

int pm_api_system_kind(const char *suffix)
{
	size_t i;
	for (i = 0; i < sizeof DEFS / sizeof DEFS[0]; i++)
		if (!strcasecmp(suffix, DEFS[i].suffix))
			return DEFS[i].kind;
	return 0;
}

const char *pm_api_system_names(void)
{
	return "snapshots, schemas, options, tags, consumers, branches, manifests, files, partitions, "
	       "table_indexes, row_tracking";
}

int pm_api_system_schema(int kind, pm_table_schema **out)
{
	pm_schema_spec spec;
	size_t i;
	int rc;
	*out = NULL;
	for (i = 0; i < sizeof DEFS / sizeof DEFS[0]; i++)
		if (DEFS[i].kind == kind)
			break;
	if (i == sizeof DEFS / sizeof DEFS[0])
		return pm_err(PAIMON_EINVAL, "unknown system table kind %d", kind);
	memset(&spec, 0, sizeof spec);
	if (!(rc = pm_schema_spec_parse_columns(DEFS[i].columns, &spec)))
		rc = pm_schema_from_spec(&spec, out);
	pm_schema_spec_dispose(&spec);
	return rc;
}

/* ---------------------------------------------------------------- rows */

typedef struct cell {
	int null;
	int64_t i;
	char *s;                 /* owned */
	pm_strlist *l;           /* owned: ARRAY<STRING> */
} cell;

typedef struct rows {
	size_t ncols, n, cap;    /* n rows of ncols cells */
	cell *c;
	cell *cur;               /* the row being filled */
	size_t col;
} rows;

static int row_begin(rows *r)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 16;
		cell *c = pm_realloc(r->c, cap * r->ncols * sizeof *c);
		if (!c)
			return PAIMON_ENOMEM;
		r->c = c;
		r->cap = cap;
	}
	r->cur = r->c + r->n * r->ncols;
	memset(r->cur, 0, r->ncols * sizeof *r->cur);
	r->n++;
	r->col = 0;
	return 0;
}

static cell *next_cell(rows *r)
{
	return r->col < r->ncols ? &r->cur[r->col++] : NULL;
}

static int put_null(rows *r)
{
	cell *c = next_cell(r);
	if (!c)
		return pm_err(PAIMON_EINVAL, "system table: too many values in a row");
	c->null = 1;
	return 0;
}

static int put_i64(rows *r, int64_t v)
{
	cell *c = next_cell(r);
	if (!c)
		return pm_err(PAIMON_EINVAL, "system table: too many values in a row");
	c->i = v;
	return 0;
}

static int put_opt_i64(rows *r, int has, int64_t v)
{
	return has ? put_i64(r, v) : put_null(r);
}

static int put_str(rows *r, const char *s)
{
	cell *c;
	if (!s)
		return put_null(r);
	if (!(c = next_cell(r)))
		return pm_err(PAIMON_EINVAL, "system table: too many values in a row");
	return (c->s = pm_strdup(s)) ? 0 : PAIMON_ENOMEM;
}

static int put_list(rows *r, const pm_strlist *l)
{
	cell *c;
	if (!l)
		return put_null(r);
	if (!(c = next_cell(r)))
		return pm_err(PAIMON_EINVAL, "system table: too many values in a row");
	if (!(c->l = pm_calloc(1, sizeof *c->l)))
		return PAIMON_ENOMEM;
	return pm_strlist_copy(c->l, l);
}

/* epoch millis -> the local wall clock as TIMESTAMP millis (Java
 * DateTimeUtils.toLocalDateTime with the default zone) */
static int64_t local_ms(int64_t ms)
{
	time_t t = (time_t)(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
	struct tm tm;
	if (!localtime_r(&t, &tm))
		return ms;
	return ms + (int64_t)tm.tm_gmtoff * 1000;
}

static int put_time(rows *r, int64_t ms)
{
	return put_i64(r, local_ms(ms));
}

static void rows_dispose(rows *r)
{
	size_t i;
	for (i = 0; i < r->n * r->ncols; i++) {
		pm_free(r->c[i].s);
		if (r->c[i].l) {
			pm_strlist_dispose(r->c[i].l);
			pm_free(r->c[i].l);
		}
	}
	pm_free(r->c);
	memset(r, 0, sizeof *r);
}

/* ---------------------------------------------------------- generators */

typedef struct gen {
	paimon_table *t;
	pm_fileio *io;
	const char *path;
	const pm_strmap *opts;       /* read options (time travel) */
	pm_table_schema *base;       /* the data table's latest schema */
	pm_partition_info pi;
	int has_pi;
	rows r;
} gen;

static int part_text(gen *g, const pm_bytes *p, int braces, pm_buf *out)
{
	pm_binrow_datum *vals = NULL;
	size_t k;
	int rc = 0;
	pm_buf_clear(out);
	if (g->pi.n && !(vals = pm_calloc(g->pi.n, sizeof *vals)))
		return PAIMON_ENOMEM;
	if (g->pi.n && (rc = pm_partition_decode(&g->pi, p->p, p->n, vals)))
		goto out;
	if (braces)
		rc = pm_buf_append(out, "{", 1);
	for (k = 0; k < g->pi.n && !rc; k++) {
		if (k)
			rc = braces ? pm_buf_append(out, ", ", 2) : pm_buf_append(out, "/", 1);
		if (!rc && !braces)
			rc = pm_buf_printf(out, "%s=", g->pi.names[k]);
		if (rc)
			break;
		if (vals[k].is_null)
			rc = braces ? pm_buf_append(out, "null", 4)
				    : pm_buf_append(out, g->pi.default_name, strlen(g->pi.default_name));
		else if (!braces && (g->pi.types[k]->root == PM_VARCHAR || g->pi.types[k]->root == PM_CHAR) &&
			 !vals[k].bytes.n)
			/* Java lists partitions by their path spec: "" is the default */
			rc = pm_buf_append(out, g->pi.default_name, strlen(g->pi.default_name));
		else
			rc = pm_datum_to_text(g->pi.types[k], &vals[k], out);
	}
	if (!rc && braces)
		rc = pm_buf_append(out, "}", 1);
out:
	pm_free(vals);
	return rc;
}

static int gen_snapshots(gen *g)
{
	int64_t *ids = NULL;
	size_t n = 0, i;
	int rc = pm_snapshot_list_ids(g->io, g->path, &ids, &n);
	for (i = 0; i < n && !rc; i++) {
		pm_snapshot *s = NULL;
		if ((rc = pm_snapshot_load(g->io, g->path, ids[i], &s))) {
			if (rc == PAIMON_ENOTFOUND) { /* expired meanwhile */
				rc = 0;
				continue;
			}
			break;
		}
		if (!(rc = row_begin(&g->r)) && !(rc = put_i64(&g->r, s->id)) && !(rc = put_i64(&g->r, s->schema_id)) &&
		    !(rc = put_str(&g->r, s->commit_user ? s->commit_user : "")) &&
		    !(rc = put_i64(&g->r, s->commit_identifier)) && !(rc = put_str(&g->r, s->commit_kind)) &&
		    !(rc = put_time(&g->r, s->time_millis)) && !(rc = put_str(&g->r, s->base_manifest_list)) &&
		    !(rc = put_str(&g->r, s->delta_manifest_list)) && !(rc = put_str(&g->r, s->changelog_manifest_list)) &&
		    !(rc = put_i64(&g->r, s->total_record_count)) && !(rc = put_i64(&g->r, s->delta_record_count)) &&
		    !(rc = put_opt_i64(&g->r, s->has_changelog_record_count, s->changelog_record_count)) &&
		    !(rc = put_opt_i64(&g->r, s->has_watermark, s->watermark)))
			rc = put_opt_i64(&g->r, s->has_next_row_id, s->next_row_id);
		pm_snapshot_free(s);
	}
	pm_free(ids);
	return rc;
}

static int flat_list(const pm_strlist *l, pm_buf *out)
{
	pm_jw w;
	size_t i;
	pm_buf_clear(out);
	pm_jw_init(&w, out, 1);
	pm_jw_arr_begin(&w);
	for (i = 0; i < l->len; i++)
		pm_jw_str(&w, l->items[i]);
	pm_jw_arr_end(&w);
	return pm_jw_finish(&w);
}

static int gen_schemas(gen *g)
{
	int64_t *ids = NULL;
	size_t n = 0, i, k;
	pm_buf b = PM_BUF_INIT;
	int rc = pm_schema_list_ids(g->io, g->path, &ids, &n);
	for (i = 0; i < n && !rc; i++) {
		pm_table_schema *s = NULL;
		pm_jw w;
		if ((rc = pm_schema_load(g->io, g->path, ids[i], &s)))
			break;
		if ((rc = row_begin(&g->r)) || (rc = put_i64(&g->r, s->id)))
			goto next;
		/* fields: toFlatJson(List<DataField>) */
		pm_buf_clear(&b);
		pm_jw_init(&w, &b, 1);
		pm_jw_arr_begin(&w);
		for (k = 0; k < s->nfields; k++) {
			pm_jw_obj_begin(&w);
			pm_jw_ki64(&w, "id", s->fields[k].id);
			pm_jw_kstr(&w, "name", s->fields[k].name);
			pm_jw_key(&w, "type");
			pm_type_to_json(s->fields[k].type, &w);
			if (s->fields[k].description)
				pm_jw_kstr(&w, "description", s->fields[k].description);
			pm_jw_obj_end(&w);
		}
		pm_jw_arr_end(&w);
		if ((rc = pm_jw_finish(&w)) || (rc = put_str(&g->r, pm_buf_cstr(&b))))
			goto next;
		if ((rc = flat_list(&s->partition_keys, &b)) || (rc = put_str(&g->r, pm_buf_cstr(&b))) ||
		    (rc = flat_list(&s->primary_keys, &b)) || (rc = put_str(&g->r, pm_buf_cstr(&b))))
			goto next;
		pm_buf_clear(&b);
		pm_jw_init(&w, &b, 1);
		pm_jw_obj_begin(&w);
		for (k = 0; k < s->options.len; k++)
			pm_jw_kstr(&w, s->options.keys[k], s->options.vals[k]);
		pm_jw_obj_end(&w);
		if ((rc = pm_jw_finish(&w)) || (rc = put_str(&g->r, pm_buf_cstr(&b))) ||
		    (rc = put_str(&g->r, s->comment)))
			goto next;
		rc = put_time(&g->r, s->time_millis);
	next:
		pm_schema_free(s);
	}
	pm_buf_dispose(&b);
	pm_free(ids);
	return rc;
}

static int gen_options(gen *g)
{
	size_t i;
	int rc = 0;
	for (i = 0; i < g->base->options.len && !rc; i++)
		if (!(rc = row_begin(&g->r)) && !(rc = put_str(&g->r, g->base->options.keys[i])))
			rc = put_str(&g->r, g->base->options.vals[i]);
	return rc;
}

/* Java LocalDateTime JSON: [y, m, d, h, min, s, nanos] (trailing parts
 * may be missing). */
static int parse_ldt(const char *json, int64_t *ms)
{
	long long v[7] = {0, 1, 1, 0, 0, 0, 0};
	int n = 0;
	const char *p = json;
	struct tm tm;
	if (!p || *p != '[')
		return -1;
	p++;
	while (n < 7 && *p) {
		char *end;
		v[n++] = strtoll(p, &end, 10);
		if (end == p)
			return -1;
		p = end;
		while (*p == ',' || *p == ' ')
			p++;
		if (*p == ']')
			break;
	}
	if (n < 3)
		return -1;
	memset(&tm, 0, sizeof tm);
	tm.tm_year = (int)v[0] - 1900;
	tm.tm_mon = (int)v[1] - 1;
	tm.tm_mday = (int)v[2];
	tm.tm_hour = (int)v[3];
	tm.tm_min = (int)v[4];
	tm.tm_sec = (int)v[5];
	*ms = (int64_t)timegm(&tm) * 1000 + v[6] / 1000000;
	return 0;
}

static int gen_tags(gen *g)
{
	pm_strlist names = {0};
	size_t i;
	int rc = pm_tag_list(g->io, g->path, &names);
	for (i = 0; i < names.len && !rc; i++) {
		pm_snapshot *s = NULL;
		int64_t created;
		if ((rc = pm_tag_load(g->io, g->path, names.items[i], &s)))
			break;
		if (!(rc = row_begin(&g->r)) && !(rc = put_str(&g->r, names.items[i])) && !(rc = put_i64(&g->r, s->id)) &&
		    !(rc = put_i64(&g->r, s->schema_id)) && !(rc = put_time(&g->r, s->time_millis)) &&
		    !(rc = put_i64(&g->r, s->total_record_count))) {
			/* create_time is already a local date-time */
			rc = parse_ldt(s->tag_create_time_json, &created) ? put_null(&g->r) : put_i64(&g->r, created);
			if (!rc) {
				const char *tr = s->tag_time_retained_json;
				if (tr && !strcmp(tr, "null"))
					tr = NULL;
				if (tr && *tr == '"') {
					char *u = pm_strndup(tr + 1, strlen(tr) > 1 ? strlen(tr) - 2 : 0);
					rc = u ? put_str(&g->r, u) : PAIMON_ENOMEM;
					pm_free(u);
				} else {
					rc = put_str(&g->r, tr);
				}
			}
		}
		pm_snapshot_free(s);
	}
	pm_strlist_dispose(&names);
	return rc;
}

static int gen_consumers(gen *g)
{
	pm_file_list l = {0};
	char *dir = pm_path_join(g->path, "consumer");
	size_t i;
	int rc;
	if (!dir)
		return PAIMON_ENOMEM;
	rc = pm_fileio_list_optional(g->io, dir, &l);
	for (i = 0; i < l.len && !rc; i++) {
		const char *n = l.items[i].name;
		int64_t next = 0;
		int found = 0;
		if (l.items[i].is_dir || strncmp(n, "consumer-", 9))
			continue;
		if ((rc = pm_consumer_read(g->io, g->path, n + 9, &next, &found)) || !found)
			continue;
		if (!(rc = row_begin(&g->r)) && !(rc = put_str(&g->r, n + 9)))
			rc = put_i64(&g->r, next);
	}
	pm_file_list_dispose(&l);
	pm_free(dir);
	return rc;
}

static int gen_branches(gen *g)
{
	pm_file_list l = {0};
	char *dir = pm_path_join(g->path, "branch");
	size_t i;
	int rc;
	if (!dir)
		return PAIMON_ENOMEM;
	rc = pm_fileio_list_optional(g->io, dir, &l);
	for (i = 0; i < l.len && !rc; i++) {
		const char *n = l.items[i].name;
		if (!l.items[i].is_dir || strncmp(n, "branch-", 7) || !n[7])
			continue;
		if (!(rc = row_begin(&g->r)) && !(rc = put_str(&g->r, n + 7)))
			rc = put_time(&g->r, l.items[i].mtime_ms);
	}
	pm_file_list_dispose(&l);
	pm_free(dir);
	return rc;
}

/* The snapshot $files / $manifests / $partitions / $table_indexes show:
 * the read options' time travel, else the latest (NULL: none). */
static int which_snapshot(gen *g, pm_snapshot **out)
{
	return pm_scan_resolve_snapshot(g->io, g->path, g->opts, out);
}

/* A statistics value as Java prints the internal object
 * (InternalRowUtils.get): DATE as epoch days, TIME as millis of day, the
 * rest as our canonical text. */
static int stat_text(const pm_type *t, const pm_binrow_datum *d, pm_buf *out)
{
	if (t->root == PM_DATE || t->root == PM_TIME)
		return pm_buf_printf(out, "%lld", (long long)d->i);
	return pm_datum_to_text(t, d, out);
}

/* The fields of s by name (Java's TreeMap), as indexes (pm_free). */
static int name_order(const pm_table_schema *s, size_t **out)
{
	size_t *order = pm_calloc(s->nfields + 1, sizeof *order), i, k;
	if (!(*out = order))
		return PAIMON_ENOMEM;
	for (i = 0; i < s->nfields; i++)
		order[i] = i;
	for (i = 1; i < s->nfields; i++)
		for (k = i; k > 0 && strcmp(s->fields[order[k - 1]].name, s->fields[order[k]].name) > 0; k--) {
			size_t t = order[k];
			order[k] = order[k - 1];
			order[k - 1] = t;
		}
	return 0;
}

/* The statistics texts of file f (written under fs) over the columns of
 * cur in `order` (name_order). */
static int stats_row(const pm_table_schema *cur, const size_t *order, const pm_table_schema *fs,
		     const pm_data_file_meta *f, pm_buf *nulls, pm_buf *mins, pm_buf *maxs)
{
	pm_col_stats *cols = NULL;
	size_t i, k;
	int rc;
	pm_buf_clear(nulls);
	pm_buf_clear(mins);
	pm_buf_clear(maxs);
	if (!(cols = pm_calloc(fs->nfields + 1, sizeof *cols))) {
		rc = PAIMON_ENOMEM;
		goto out;
	}
	if ((rc = pm_stats_decode(fs, f, cols)))
		goto out;
	rc = pm_buf_append(nulls, "{", 1) || pm_buf_append(mins, "{", 1) || pm_buf_append(maxs, "{", 1);
	for (i = 0; i < cur->nfields && !rc; i++) {
		const pm_field *cf = &cur->fields[order[i]];
		const pm_col_stats *cs = NULL;
		for (k = 0; k < fs->nfields; k++)
			if (fs->fields[k].id == cf->id) {
				cs = &cols[k];
				break;
			}
		if (i && ((rc = pm_buf_append(nulls, ", ", 2)) || (rc = pm_buf_append(mins, ", ", 2)) ||
			  (rc = pm_buf_append(maxs, ", ", 2))))
			break;
		if ((rc = pm_buf_printf(nulls, "%s=", cf->name)) || (rc = pm_buf_printf(mins, "%s=", cf->name)) ||
		    (rc = pm_buf_printf(maxs, "%s=", cf->name)))
			break;
		if (cs && cs->null_count >= 0)
			rc = pm_buf_printf(nulls, "%lld", (long long)cs->null_count);
		else if (!cs)
			rc = pm_buf_printf(nulls, "%lld", (long long)f->row_count); /* added later: all null */
		else
			rc = pm_buf_append(nulls, "null", 4);
		if (!rc)
			rc = cs && cs->has_min && !cs->min.is_null ? stat_text(fs->fields[k].type, &cs->min, mins)
								   : pm_buf_append(mins, "null", 4);
		if (!rc)
			rc = cs && cs->has_max && !cs->max.is_null ? stat_text(fs->fields[k].type, &cs->max, maxs)
								   : pm_buf_append(maxs, "null", 4);
	}
	if (!rc)
		rc = pm_buf_append(nulls, "}", 1) || pm_buf_append(mins, "}", 1) || pm_buf_append(maxs, "}", 1);
out:
	pm_free(cols);
	return rc;
}

static const char *file_format(const char *name)
{
	static const char *const fmts[] = {"parquet", "orc", "avro", "blob", "vortex", "lance", "csv", "json"};
	const char *dot = strrchr(name, '.');
	size_t i;
	for (i = 0; dot && i < sizeof fmts / sizeof fmts[0]; i++)
		if (!strcmp(dot + 1, fmts[i]))
			return fmts[i];
	return dot ? dot + 1 : "";
}

static int gen_files(gen *g)
{
	pm_snapshot *snap = NULL;
	pm_manifest_entry_list live = {0};
	pm_schema_cache sc;
	pm_buf part = PM_BUF_INIT, path = PM_BUF_INIT, nulls = PM_BUF_INIT, mins = PM_BUF_INIT, maxs = PM_BUF_INIT;
	const pm_table_schema *cur = g->base;
	size_t i, *order = NULL;
	int rc, sc_ok = 0;
	if ((rc = which_snapshot(g, &snap)) || !snap)
		goto out;
	if ((rc = pm_schema_cache_init(&sc, g->io, g->path, g->base)))
		goto out;
	sc_ok = 1;
	/* time travel shows the statistics in the snapshot's schema (Java reads
	 * $files of table.copy(time travel options)) */
	if (g->opts && (pm_strmap_get(g->opts, "scan.snapshot-id") || pm_strmap_get(g->opts, "scan.tag-name") ||
			pm_strmap_get(g->opts, "scan.timestamp-millis") || pm_strmap_get(g->opts, "scan.timestamp")) &&
	    (rc = pm_schema_cache_get(&sc, snap->schema_id, &cur)))
		goto out;
	if ((rc = name_order(cur, &order)) ||
	    (rc = pm_manifest_read_all(g->io, g->path, snap->base_manifest_list, snap->delta_manifest_list, NULL,
				       &live)))
		goto out;
	for (i = 0; i < live.len && !rc; i++) {
		const pm_manifest_entry *e = &live.items[i];
		const pm_data_file_meta *f = &e->file;
		const pm_table_schema *fs = NULL;
		if (e->kind != PM_FILE_KIND_ADD)
			continue;
		if ((rc = pm_schema_cache_get(&sc, f->schema_id, &fs)) ||
		    (rc = part_text(g, &e->partition, 1, &part)) ||
		    (rc = pm_read_data_file_path(g->path, &g->base->options, &g->pi, e, PM_PART_JAVA, &path)) ||
		    (rc = stats_row(cur, order, fs, f, &nulls, &mins, &maxs)))
			break;
		if (!(rc = row_begin(&g->r)) && !(rc = put_str(&g->r, pm_buf_cstr(&part))) &&
		    !(rc = put_i64(&g->r, e->bucket)) && !(rc = put_str(&g->r, pm_buf_cstr(&path))) &&
		    !(rc = put_str(&g->r, file_format(f->file_name))) && !(rc = put_i64(&g->r, f->schema_id)) &&
		    !(rc = put_i64(&g->r, f->level)) && !(rc = put_i64(&g->r, f->row_count)) &&
		    !(rc = put_i64(&g->r, f->file_size)) && !(rc = put_null(&g->r)) && !(rc = put_null(&g->r)) &&
		    !(rc = put_str(&g->r, pm_buf_cstr(&nulls))) && !(rc = put_str(&g->r, pm_buf_cstr(&mins))) &&
		    !(rc = put_str(&g->r, pm_buf_cstr(&maxs))) && !(rc = put_i64(&g->r, f->min_sequence_number)) &&
		    !(rc = put_i64(&g->r, f->max_sequence_number)) &&
		    !(rc = f->has_creation_time ? put_i64(&g->r, f->creation_time) : put_null(&g->r)) &&
		    !(rc = put_opt_i64(&g->r, f->has_delete_row_count, f->delete_row_count)) &&
		    !(rc = put_str(&g->r, !f->has_file_source ? NULL
					    : f->file_source == PM_FILE_SOURCE_COMPACT ? "COMPACT" : "APPEND")) &&
		    !(rc = put_opt_i64(&g->r, f->has_first_row_id, f->first_row_id)))
			rc = put_list(&g->r, f->has_write_cols ? &f->write_cols : NULL);
	}
out:
	if (sc_ok)
		pm_schema_cache_dispose(&sc);
	pm_free(order);
	pm_buf_dispose(&part);
	pm_buf_dispose(&path);
	pm_buf_dispose(&nulls);
	pm_buf_dispose(&mins);
	pm_buf_dispose(&maxs);
	pm_manifest_entry_list_dispose(&live);
	pm_snapshot_free(snap);
	return rc;
}

/* A partition stats row (min or max values of the keys) as "{v1, v2}". */
static int stats_part_text(gen *g, const pm_bytes *row, pm_buf *out)
{
	return part_text(g, row, 1, out);
}

static int gen_manifests(gen *g)
{
	pm_snapshot *snap = NULL;
	pm_manifest_file_meta_list l = {0};
	pm_buf mn = PM_BUF_INIT, mx = PM_BUF_INIT;
	size_t i;
	int rc;
	if ((rc = which_snapshot(g, &snap)) || !snap)
		goto out;
	if ((rc = pm_manifest_list_read(g->io, g->path, snap->base_manifest_list, &l)) ||
	    (rc = pm_manifest_list_read(g->io, g->path, snap->delta_manifest_list, &l)))
		goto out;
	for (i = 0; i < l.len && !rc; i++) {
		const pm_manifest_file_meta *m = &l.items[i];
		int have = g->pi.n && m->partition_stats.min_values.n >= 4;
		if (have && ((rc = stats_part_text(g, &m->partition_stats.min_values, &mn)) ||
			     (rc = stats_part_text(g, &m->partition_stats.max_values, &mx))))
			break;
		if (!have) {
			pm_buf_clear(&mn);
			pm_buf_clear(&mx);
			if ((rc = pm_buf_append(&mn, "{}", 2)) || (rc = pm_buf_append(&mx, "{}", 2)))
				break;
		}
		if (!(rc = row_begin(&g->r)) && !(rc = put_str(&g->r, m->file_name)) && !(rc = put_i64(&g->r, m->file_size)) &&
		    !(rc = put_i64(&g->r, m->num_added_files)) && !(rc = put_i64(&g->r, m->num_deleted_files)) &&
		    !(rc = put_i64(&g->r, m->schema_id)) && !(rc = put_str(&g->r, pm_buf_cstr(&mn))) &&
		    !(rc = put_str(&g->r, pm_buf_cstr(&mx))) && !(rc = put_opt_i64(&g->r, m->has_min_row_id, m->min_row_id)))
			rc = put_opt_i64(&g->r, m->has_max_row_id, m->max_row_id);
	}
out:
	pm_buf_dispose(&mn);
	pm_buf_dispose(&mx);
	pm_manifest_file_meta_list_dispose(&l);
	pm_snapshot_free(snap);
	return rc;
}

static int gen_partitions(gen *g)
{
	pm_snapshot *snap = NULL;
	pm_manifest_entry_list live = {0};
	pm_buf part = PM_BUF_INIT;
	pm_partition_agg *a = NULL;
	size_t j, np = 0;
	int rc;
	if ((rc = which_snapshot(g, &snap)) || !snap)
		goto out;
	if ((rc = pm_manifest_read_all(g->io, g->path, snap->base_manifest_list, snap->delta_manifest_list, NULL,
				       &live)) ||
	    (rc = pm_partition_aggregate(&live, &a, &np)))
		goto out;
	for (j = 0; j < np && !rc; j++) {
		if ((rc = part_text(g, a[j].partition, 0, &part)))
			break;
		if (!(rc = row_begin(&g->r)) && !(rc = g->pi.n ? put_str(&g->r, pm_buf_cstr(&part)) : put_str(&g->r, "")) &&
		    !(rc = put_i64(&g->r, a[j].rows)) && !(rc = put_i64(&g->r, a[j].bytes)) &&
		    !(rc = put_i64(&g->r, a[j].files)) &&
		    !(rc = a[j].last_creation == INT64_MIN ? put_null(&g->r) : put_i64(&g->r, a[j].last_creation)) &&
		    !(rc = put_null(&g->r)) && !(rc = put_null(&g->r)) && !(rc = put_null(&g->r)))
			rc = put_null(&g->r);
	}
out:
	pm_free(a);
	pm_buf_dispose(&part);
	pm_manifest_entry_list_dispose(&live);
	pm_snapshot_free(snap);
	return rc;
}

static int gen_indexes(gen *g)
{
	pm_snapshot *snap = NULL;
	pm_index_manifest_entry_list l = {0};
	pm_buf part = PM_BUF_INIT;
	size_t i;
	int rc;
	if ((rc = which_snapshot(g, &snap)) || !snap || !snap->index_manifest)
		goto out;
	if ((rc = pm_index_manifest_read(g->io, g->path, snap->index_manifest, &l)))
		goto out;
	for (i = 0; i < l.len && !rc; i++) {
		const pm_index_manifest_entry *e = &l.items[i];
		if (e->kind != PM_FILE_KIND_ADD)
			continue;
		if ((rc = part_text(g, &e->partition, 1, &part)))
			break;
		if (!(rc = row_begin(&g->r)) && !(rc = g->pi.n ? put_str(&g->r, pm_buf_cstr(&part)) : put_null(&g->r)) &&
		    !(rc = put_i64(&g->r, e->bucket)) && !(rc = put_str(&g->r, e->index_type)) &&
		    !(rc = put_str(&g->r, e->file_name)) && !(rc = put_i64(&g->r, e->file_size)))
			rc = put_i64(&g->r, e->row_count);
	}
out:
	pm_buf_dispose(&part);
	pm_index_manifest_entry_list_dispose(&l);
	pm_snapshot_free(snap);
	return rc;
}

/* ------------------------------------------------------------- arrow */

/* Column col of the rows with sel[i] (NULL: all) into a builder shaped
 * like the Arrow child s. */
static pm_array_builder *build_column(const rows *r, size_t col, const struct ArrowSchema *s, const uint8_t *sel,
				      int *rc)
{
	const char *f = s->format;
	pm_array_builder *b = NULL, *child = NULL;
	int64_t scale = 1;
	size_t i;
	int list = !strcmp(f, "+l") || !strcmp(f, "+L");
	*rc = 0;
	if (!strcmp(f, "l"))
		b = pm_ab_new_fixed("l", 8);
	else if (!strcmp(f, "i"))
		b = pm_ab_new_fixed("i", 4);
	else if (!strncmp(f, "ts", 2)) {
		b = pm_ab_new_fixed(f, 8);
		scale = f[2] == 'u' ? 1000 : f[2] == 'n' ? 1000000 : 1;
		if (f[2] == 's')
			scale = -1000;
	} else if (!strcmp(f, "u") || !strcmp(f, "U"))
		b = pm_ab_new_binary(f, f[0] == 'U');
	else if (list && s->n_children == 1 && (!strcmp(s->children[0]->format, "u") ||
						!strcmp(s->children[0]->format, "U"))) {
		child = pm_ab_new_binary(s->children[0]->format, s->children[0]->format[0] == 'U');
		if (child)
			pm_ab_set_name(child, s->children[0]->name, 1);
		b = child ? pm_ab_new_list(child, f[1] == 'L') : NULL;
	} else {
		*rc = pm_err(PAIMON_EUNSUPPORTED, "system table: no builder for Arrow format '%s'", f);
		return NULL;
	}
	if (!b) {
		*rc = PAIMON_ENOMEM;
		return NULL;
	}
	for (i = 0; i < r->n && !*rc; i++) {
		const cell *c = &r->c[i * r->ncols + col];
		if (sel && !sel[i])
			continue;
		if (c->null || (f[0] == 'u' && !c->s) || (f[0] == 'U' && !c->s) || (list && !c->l)) {
			*rc = pm_ab_append_nulls(b, 1);
		} else if (!strcmp(f, "i")) {
			int32_t v = (int32_t)c->i;
			*rc = pm_ab_append_fixed(b, &v, 1);
		} else if (f[0] == 'l' || f[0] == 't') {
			int64_t v = scale < 0 ? c->i / -scale : c->i * scale;
			*rc = pm_ab_append_fixed(b, &v, 1);
		} else if (list) {
			size_t k;
			for (k = 0; k < c->l->len && !*rc; k++)
				*rc = pm_ab_append_binary(child, c->l->items[k], strlen(c->l->items[k]));
			if (!*rc)
				*rc = pm_ab_append_list(b, (int64_t)c->l->len);
		} else {
			*rc = pm_ab_append_binary(b, c->s, strlen(c->s));
		}
	}
	if (!*rc)
		*rc = pm_ab_set_name(b, s->name, 1);
	if (*rc) {
		pm_ab_free(b);
		return NULL;
	}
	return b;
}

/* The struct of columns idx[0..n) of rows selected by sel, shaped like
 * the matching children of full (the "+s" of every column). */
static int build_struct(const rows *r, const struct ArrowSchema *full, const size_t *idx, size_t n, const uint8_t *sel,
			int64_t len, struct ArrowArray *a, struct ArrowSchema *s)
{
	pm_array_builder **kids = pm_calloc(n + 1, sizeof *kids), *st;
	size_t i;
	int rc = 0;
	if (!kids)
		return PAIMON_ENOMEM;
	for (i = 0; i < n && !rc; i++)
		kids[i] = build_column(r, idx[i], full->children[idx[i]], sel, &rc);
	if (rc) {
		for (i = 0; i < n; i++)
			pm_ab_free(kids[i]);
		pm_free(kids);
		return rc;
	}
	st = pm_ab_new_struct(kids, (int64_t)n);
	pm_free(kids);
	if (!st)
		return PAIMON_ENOMEM;
	if (!(rc = pm_ab_append_valid(st, len)) && !(rc = pm_ab_schema(st, s)))
		rc = pm_ab_finish(st, a);
	pm_ab_free(st);
	return rc;
}

/* --------------------------------------------------- one-batch stream */

typedef struct one_stream {
	pm_table_schema *schema;     /* the system table's (owned) */
	size_t *idx, n;              /* projected columns (owned) */
	struct ArrowArray batch;     /* release NULL once handed out */
} one_stream;

static int os_get_schema(struct ArrowArrayStream *st, struct ArrowSchema *out)
{
	one_stream *o = st->private_data;
	return pm_read_fields_schema(o->schema, o->idx, o->n, out) ? 12 : 0;
}

static int os_get_next(struct ArrowArrayStream *st, struct ArrowArray *out)
{
	one_stream *o = st->private_data;
	*out = o->batch;
	memset(&o->batch, 0, sizeof o->batch);
	return 0;
}

static const char *os_last_error(struct ArrowArrayStream *st)
{
	(void)st;
	return NULL;
}

static void os_release(struct ArrowArrayStream *st)
{
	one_stream *o = st->private_data;
	if (o) {
		pm_schema_free(o->schema);
		pm_free(o->idx);
		if (o->batch.release)
			o->batch.release(&o->batch);
		pm_free(o);
	}
	st->release = NULL;
}

/* ---------------------------------------------------------------- read */

int pm_api_system_read(paimon_table *t, const pm_strmap *opts, const pm_predicate *pred, const pm_strlist *projection,
		       int64_t limit, size_t nsplits, struct ArrowArrayStream *out)
{
	const pm_table_schema *s = t->schema->schema;
	gen g;
	struct ArrowSchema full, outs;
	struct ArrowArray all, res;
	uint8_t *sel = NULL;
	size_t *idx = NULL, *pidx = NULL, np = 0, i;
	int64_t nsel;
	one_stream *o = NULL;
	int rc;

	memset(&g, 0, sizeof g);
	memset(&full, 0, sizeof full);
	memset(&outs, 0, sizeof outs);
	memset(&all, 0, sizeof all);
	memset(&res, 0, sizeof res);
	memset(out, 0, sizeof *out);
	g.t = t;
	g.io = t->io;
	g.path = t->path;
	g.opts = opts;
	g.r.ncols = s->nfields;
	if ((rc = pm_schema_load_latest(t->io, t->path, &g.base)))
		goto out;
	if ((rc = pm_partition_info_init(&g.pi, g.base)))
		goto out;
	g.has_pi = 1;
	if (nsplits) {
		switch (t->sys_kind) {
		case PM_SYS_SNAPSHOTS: rc = gen_snapshots(&g); break;
		case PM_SYS_SCHEMAS: rc = gen_schemas(&g); break;
		case PM_SYS_OPTIONS: rc = gen_options(&g); break;
		case PM_SYS_TAGS: rc = gen_tags(&g); break;
		case PM_SYS_CONSUMERS: rc = gen_consumers(&g); break;
		case PM_SYS_BRANCHES: rc = gen_branches(&g); break;
		case PM_SYS_MANIFESTS: rc = gen_manifests(&g); break;
		case PM_SYS_FILES: rc = gen_files(&g); break;
		case PM_SYS_PARTITIONS: rc = gen_partitions(&g); break;
		case PM_SYS_TABLE_INDEXES: rc = gen_indexes(&g); break;
		default: rc = pm_err(PAIMON_EINVAL, "table '%s' is not a system table", t->identifier);
		}
		if (rc) {
			pm_err_wrap("reading system table '%s'", t->identifier);
			goto out;
		}
	}
	if (!(idx = pm_calloc(s->nfields + 1, sizeof *idx)) || !(sel = pm_calloc(g.r.n + 1, 1))) {
		rc = PAIMON_ENOMEM;
		goto out;
	}
	for (i = 0; i < s->nfields; i++)
		idx[i] = i;
	if ((rc = pm_read_fields_schema(s, idx, s->nfields, &full)))
		goto out;
	memset(sel, 1, g.r.n + 1);
	if (pred && g.r.n) {
		if ((rc = build_struct(&g.r, &full, idx, s->nfields, NULL, (int64_t)g.r.n, &all, &outs)) ||
		    (rc = pm_pred_eval_batch(pred, &outs, &all, sel)))
			goto out;
		outs.release(&outs);
		memset(&outs, 0, sizeof outs);
	}
	nsel = pm_arrow_sel_count(sel, (int64_t)g.r.n);
	if (limit >= 0 && nsel > limit) {
		int64_t k = 0;
		for (i = 0; i < g.r.n; i++)
			if (sel[i] && ++k > limit)
				sel[i] = 0;
		nsel = limit;
	}
	if ((rc = pm_read_projection(s, projection, &pidx, &np)) ||
	    (rc = build_struct(&g.r, &full, pidx, np, sel, nsel, &res, &outs)))
		goto out;
	if (!(o = pm_calloc(1, sizeof *o))) {
		rc = PAIMON_ENOMEM;
		goto out;
	}
	if ((rc = pm_schema_copy(s, &o->schema))) {
		pm_free(o);
		goto out;
	}
	o->idx = pidx;
	o->n = np;
	pidx = NULL;
	if (nsel) {
		o->batch = res;
		memset(&res, 0, sizeof res);
	}
	out->get_schema = os_get_schema;
	out->get_next = os_get_next;
	out->get_last_error = os_last_error;
	out->release = os_release;
	out->private_data = o;
out:
	if (full.release)
		full.release(&full);
	if (outs.release)
		outs.release(&outs);
	if (all.release)
		all.release(&all);
	if (res.release)
		res.release(&res);
	pm_free(sel);
	pm_free(idx);
	pm_free(pidx);
	rows_dispose(&g.r);
	if (g.has_pi)
		pm_partition_info_dispose(&g.pi);
	pm_schema_free(g.base);
	return rc;
}
