/*
 * tests/unit/table/scanfix.h - a tiny append-table writer for the scan and
 * read tests, built from the lower layers only (Parquet writer, stats,
 * manifests, snapshots): warehouse/<db>.db/t with schema-0, data files
 * with value stats, one manifest per commit, base + delta manifest lists.
 * Columns are filled by name: "id" (INT/BIGINT) = the row's id, "name" /
 * "label" (STRING) = "n<id>", "dt" (STRING) = the file's partition,
 * "score" (DOUBLE) = id * 0.5.
 */
#ifndef SCANFIX_H
#define SCANFIX_H

#include "test.h"
#include "paimonc/paimonc.h"
#include "arrow/arrow_builder.h"
#include "core/mem.h"
#include "format/parquet/reader.h"
#include "format/parquet/writer.h"
#include "io/fileio.h"
#include "meta/manifest.h"
#include "meta/schema.h"
#include "meta/snapshot.h"
#include "table/partition.h"
#include "table/stats.h"

#include <stdio.h>
#include <sys/stat.h>

typedef struct fx {
	pm_fileio *io;
	char *warehouse;
	char table[4096];
	pm_table_schema *schema;
	pm_manifest_namer namer;
	pm_manifest_options mo;
	pm_manifest_file_meta_list all;
	pm_manifest_entry_list pending;
	int64_t next_id, total, file_no;
} fx;

static inline int fx_init(fx *f, const char *columns, const char *partition_key)
{
	pm_schema_spec spec;
	char p[4096];
	int rc;
	memset(f, 0, sizeof *f);
	memset(&spec, 0, sizeof spec);
	f->warehouse = test_tmpdir();
	f->next_id = 1;
	snprintf(p, sizeof p, "%s/db.db", f->warehouse);
	mkdir(p, 0755);
	snprintf(f->table, sizeof f->table, "%s/db.db/t", f->warehouse);
	mkdir(f->table, 0755);
	if ((rc = pm_fileio_local_new(&f->io)) != 0)
		return rc;
	if ((rc = pm_schema_spec_parse_columns(columns, &spec)) != 0)
		return rc;
	if (partition_key && (rc = pm_strlist_push(&spec.partition_keys, partition_key)) != 0)
		return rc;
	rc = pm_schema_from_spec(&spec, &f->schema);
	pm_schema_spec_dispose(&spec);
	if (rc || (rc = pm_schema_commit(f->io, f->table, f->schema)) != 0)
		return rc;
	if ((rc = pm_manifest_namer_init(&f->namer)) != 0)
		return rc;
	return pm_manifest_options_from(&f->mo, &f->schema->options);
}

static inline void fx_dispose(fx *f)
{
	pm_manifest_file_meta_list_dispose(&f->all);
	pm_manifest_entry_list_dispose(&f->pending);
	pm_schema_free(f->schema);
	pm_fileio_close(f->io);
	free(f->warehouse);
}

/* Applies changes to the current schema and commits the next schema. */
static inline int fx_alter(fx *f, const pm_schema_change *ch, size_t n)
{
	pm_table_schema *ns = NULL;
	int rc = pm_schema_apply(f->schema, ch, n, 1, &ns);
	if (rc)
		return rc;
	if ((rc = pm_schema_commit(f->io, f->table, ns)) != 0) {
		pm_schema_free(ns);
		return rc;
	}
	pm_schema_free(f->schema);
	f->schema = ns;
	return 0;
}

static inline pm_array_builder *fx_col(const pm_field *fd, const char *part, int64_t first, int64_t n)
{
	pm_array_builder *b = NULL;
	int64_t i;
	char s[64];
	switch (fd->type->root) {
	case PM_INT:
		b = pm_ab_new_fixed("i", 4);
		for (i = 0; b && i < n; i++) {
			int32_t v = (int32_t)(first + i);
			pm_ab_append_fixed(b, &v, 1);
		}
		break;
	case PM_BIGINT:
		b = pm_ab_new_fixed("l", 8);
		for (i = 0; b && i < n; i++) {
			int64_t v = first + i;
			pm_ab_append_fixed(b, &v, 1);
		}
		break;
	case PM_DOUBLE:
		b = pm_ab_new_fixed("g", 8);
		for (i = 0; b && i < n; i++) {
			double v = (double)(first + i) * 0.5;
			pm_ab_append_fixed(b, &v, 1);
		}
		break;
	case PM_VARCHAR:
		b = pm_ab_new_binary("u", 0);
		for (i = 0; b && i < n; i++) {
			if (!strcmp(fd->name, "dt"))
				snprintf(s, sizeof s, "%s", part ? part : "");
			else
				snprintf(s, sizeof s, "n%lld", (long long)(first + i));
			pm_ab_append_binary(b, s, strlen(s));
		}
		break;
	default:
		return NULL;
	}
	if (b)
		pm_ab_set_name(b, fd->name, fd->type->nullable);
	return b;
}

/* Writes a data file of n rows with ids first..first+n-1 under the current
 * schema into partition dt=part (NULL: unpartitioned); queues its entry. */
static inline int fx_write_file(fx *f, const char *part, int64_t first, int64_t n)
{
	const pm_table_schema *s = f->schema;
	pm_type *row = pm_type_new(PM_ROW);
	pm_array_builder **cols = NULL, *st = NULL;
	struct ArrowArray arr;
	struct ArrowSchema sch;
	pm_pq_writer *w = NULL;
	pm_pq_reader *r = NULL;
	pm_partition_info pi;
	pm_buf dir = PM_BUF_INIT, pb = PM_BUF_INIT;
	pm_manifest_entry *e;
	pm_stats_mode *modes = NULL;
	int dense = 1, has_cols = 0, rc;
	char name[128], path[8192];
	size_t i;

	memset(&arr, 0, sizeof arr);
	memset(&sch, 0, sizeof sch);
	if (!row)
		return PAIMON_ENOMEM;
	row->nfields = s->nfields;
	row->fields = pm_calloc(s->nfields, sizeof *row->fields);
	cols = pm_calloc(s->nfields, sizeof *cols);
	for (i = 0; i < s->nfields; i++) {
		pm_field_copy(&row->fields[i], &s->fields[i]);
		cols[i] = fx_col(&s->fields[i], part, first, n);
	}
	st = pm_ab_new_struct(cols, (int64_t)s->nfields);
	pm_free(cols);
	pm_ab_append_valid(st, n);
	if ((rc = pm_ab_schema(st, &sch)) != 0 || (rc = pm_ab_finish(st, &arr)) != 0)
		goto out;
	if ((rc = pm_partition_info_init(&pi, s)) != 0)
		goto out;
	if (part) {
		pm_strmap spec = {0};
		pm_strmap_set(&spec, "dt", part);
		rc = pm_partition_from_spec(&pi, &spec, &pb);
		pm_strmap_dispose(&spec);
	} else {
		rc = pm_buf_append(&pb, pm_empty_binrow, sizeof pm_empty_binrow);
	}
	if (!rc)
		rc = pm_partition_path(&pi, (const uint8_t *)pb.data, pb.len, PM_PART_JAVA, &dir);
	pm_partition_info_dispose(&pi);
	if (rc)
		goto out;
	snprintf(name, sizeof name, "data-fx-%lld-0.parquet", (long long)f->file_no++);
	snprintf(path, sizeof path, "%s/%sbucket-0", f->table, dir.len ? pm_buf_cstr(&dir) : "");
	pm_fileio_mkdirs(f->io, path);
	snprintf(path, sizeof path, "%s/%sbucket-0/%s", f->table, dir.len ? pm_buf_cstr(&dir) : "", name);
	if ((rc = pm_pq_writer_open(f->io, path, row, NULL, &w)) != 0 || (rc = pm_pq_writer_write(w, &arr, &sch)) != 0 ||
	    (rc = pm_pq_writer_close(w)) != 0)
		goto out;
	if ((rc = pm_pq_reader_open(f->io, path, NULL, &r)) != 0)
		goto out;
	if (!(e = pm_manifest_entry_list_push(&f->pending))) {
		rc = PAIMON_ENOMEM;
		goto out;
	}
	e->kind = PM_FILE_KIND_ADD;
	e->bucket = 0;
	e->total_buckets = -1;
	pm_bytes_set(&e->partition, pb.data, pb.len);
	if ((rc = pm_data_file_meta_init_append(&e->file)) != 0)
		goto out;
	e->file.file_name = pm_strdup(name);
	e->file.file_size = (int64_t)pm_pq_writer_bytes_written(w);
	e->file.row_count = n;
	e->file.schema_id = s->id;
	if ((rc = pm_stats_modes(s, &modes, &dense)) != 0)
		goto out;
	pm_simple_stats_dispose(&e->file.value_stats);
	pm_strlist_dispose(&e->file.value_stats_cols);
	rc = pm_stats_from_parquet(s, modes, dense, pm_pq_reader_meta(r), &e->file.value_stats, &has_cols,
				   &e->file.value_stats_cols);
	e->file.has_value_stats_cols = has_cols;
out:
	pm_free(modes);
	pm_pq_reader_free(r);
	pm_pq_writer_free(w);
	if (arr.release)
		arr.release(&arr);
	if (sch.release)
		sch.release(&sch);
	pm_ab_free(st);
	pm_type_free(row);
	pm_buf_dispose(&dir);
	pm_buf_dispose(&pb);
	return rc;
}

/* Commits the queued files as snapshot next_id at time_millis. */
static inline int fx_commit(fx *f, int64_t time_millis)
{
	pm_manifest_file_meta_list delta = {0};
	pm_partition_info pi;
	pm_snapshot snap;
	char *base = NULL, *dl = NULL;
	int64_t bsz = 0, dsz = 0, added = 0;
	size_t i;
	int rc;
	if ((rc = pm_partition_info_init(&pi, f->schema)) != 0)
		return rc;
	rc = pm_manifest_write(f->io, f->table, &f->mo, &f->namer, pi.row_type, f->pending.items, f->pending.len,
			       &delta);
	pm_partition_info_dispose(&pi);
	if (rc)
		goto out;
	if ((rc = pm_manifest_list_write(f->io, f->table, &f->mo, &f->namer, f->all.items, f->all.len, &base, &bsz)) != 0 ||
	    (rc = pm_manifest_list_write(f->io, f->table, &f->mo, &f->namer, delta.items, delta.len, &dl, &dsz)) != 0)
		goto out;
	for (i = 0; i < f->pending.len; i++)
		added += f->pending.items[i].file.row_count;
	memset(&snap, 0, sizeof snap);
	snap.version = 3;
	snap.id = f->next_id;
	snap.schema_id = f->schema->id;
	snap.base_manifest_list = base;
	snap.delta_manifest_list = dl;
	snap.commit_user = (char *)"fx";
	snap.commit_identifier = INT64_MAX;
	snap.commit_kind = (char *)"APPEND";
	snap.time_millis = time_millis;
	snap.total_record_count = f->total + added;
	snap.delta_record_count = added;
	if ((rc = pm_snapshot_commit(f->io, f->table, &snap)) != 0)
		goto out;
	f->next_id++;
	f->total += added;
	for (i = 0; i < delta.len; i++)
		if ((rc = pm_manifest_file_meta_list_append_copy(&f->all, &delta.items[i])) != 0)
			goto out;
	pm_manifest_entry_list_dispose(&f->pending);
out:
	pm_manifest_file_meta_list_dispose(&delta);
	pm_free(base);
	pm_free(dl);
	return rc;
}

#endif
