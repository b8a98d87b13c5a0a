/* Tests for meta/manifest: Avro round trips of every field, Java's byte
 * layout of statistics, Java- and pypaimon-written fixtures, corrupt input,
 * the entry merger, options and file names. */
#include "test.h"
#include "meta/manifest.h"
#include "core/mem.h"
#include "core/buf.h"
#include "codec/codec.h"
#include "format/avro/avro.h"
#include "types/binrow.h"
#include "types/datatype.h"

#include <stdint.h>
#include <time.h>

/* ------------------------------------------------------------- helpers */

static pm_type *row_type(const char *sql)
{
	pm_type *t = NULL;
	CHECK_OK(pm_type_parse(sql, &t));
	return t;
}

/* Serialized row (with arity) of `types` from text-free datums. */
static void encode_row(const pm_type *rt, const pm_binrow_datum *vals, pm_bytes *out)
{
	const pm_type *types[8];
	pm_buf b = PM_BUF_INIT;
	size_t i;
	for (i = 0; i < rt->nfields; i++)
		types[i] = rt->fields[i].type;
	CHECK_OK(pm_binrow_encode(types, vals, rt->nfields, 0, 1, &b));
	CHECK_OK(pm_bytes_set(out, b.data, b.len));
	pm_buf_dispose(&b);
}

/* Partition (dt STRING, hr INT) row bytes. */
static void part_row(const char *dt, int hr, int hr_null, pm_bytes *out)
{
	pm_type *t = row_type("ROW<dt STRING, hr INT>");
	pm_binrow_datum v[2];
	memset(v, 0, sizeof v);
	v[0].bytes.p = (const uint8_t *)dt;
	v[0].bytes.n = strlen(dt);
	v[1].i = hr;
	v[1].is_null = hr_null;
	encode_row(t, v, out);
	pm_type_free(t);
}

static void str_datum(pm_binrow_datum *d, const char *s)
{
	memset(d, 0, sizeof *d);
	d->bytes.p = (const uint8_t *)s;
	d->bytes.n = strlen(s);
}

/* An append entry for file `name` in partition (dt, hr), bucket b. */
static void make_entry(pm_manifest_entry *e, int kind, const char *name, const char *dt, int hr, int bucket)
{
	memset(e, 0, sizeof *e);
	e->kind = kind;
	part_row(dt, hr, 0, &e->partition);
	e->bucket = bucket;
	e->total_buckets = -1;
	CHECK_OK(pm_data_file_meta_init_append(&e->file));
	e->file.file_name = pm_strdup(name);
	e->file.file_size = 1000;
	e->file.row_count = 10;
}

/* Every optional field present (and unusual values elsewhere). */
static void make_full_entry(pm_manifest_entry *e)
{
	pm_data_file_meta *f = &e->file;
	size_t i;
	make_entry(e, PM_FILE_KIND_DELETE, "data-full.parquet", "2024-05-14", 13, 3);
	e->total_buckets = 4;
	f->file_size = 1LL << 40;
	f->row_count = 123456789012LL;
	f->min_sequence_number = -5;
	f->max_sequence_number = INT64_MAX;
	f->schema_id = 7;
	f->level = 5;
	CHECK_OK(pm_strlist_push(&f->extra_files, "data-full.parquet.index"));
	CHECK_OK(pm_strlist_push(&f->extra_files, "x\xc3\xa9.row"));
	f->creation_time = 1715648523456LL;
	f->delete_row_count = 42;
	f->has_embedded_file_index = 1;
	CHECK_OK(pm_bytes_set(&f->embedded_file_index, "\x00\x01\x02\xff", 4));
	f->file_source = PM_FILE_SOURCE_COMPACT;
	f->has_value_stats_cols = 1;
	CHECK_OK(pm_strlist_push(&f->value_stats_cols, "id"));
	CHECK_OK(pm_strlist_push(&f->value_stats_cols, "name"));
	f->external_path = pm_strdup("s3://bucket/x/data-full.parquet");
	f->has_first_row_id = 1;
	f->first_row_id = 99;
	f->has_write_cols = 1;
	CHECK_OK(pm_strlist_push(&f->write_cols, "id"));
	f->has_write_cols_sequences = 1;
	f->n_write_cols_sequences = 3;
	f->write_cols_sequences = pm_malloc(3 * sizeof(int64_t));
	for (i = 0; i < 3; i++)
		f->write_cols_sequences[i] = (int64_t)i * 1000 - 1;
	/* key stats with an unknown (null) null count and a null array on value stats */
	pm_simple_stats_dispose(&f->key_stats);
	CHECK_OK(pm_bytes_set(&f->key_stats.min_values, "\0\0\0\1" "\0\0\0\0\0\0\0\0" "\1\0\0\0\0\0\0\0", 20));
	CHECK_OK(pm_bytes_set(&f->key_stats.max_values, "\0\0\0\1" "\0\0\0\0\0\0\0\0" "\2\0\0\0\0\0\0\0", 20));
	f->key_stats.has_null_counts = 1;
	f->key_stats.n_null_counts = 2;
	f->key_stats.null_counts = pm_malloc(2 * sizeof(int64_t));
	f->key_stats.null_counts[0] = 3;
	f->key_stats.null_counts[1] = -1;
	pm_free(f->value_stats.null_counts);
	f->value_stats.null_counts = NULL;
	f->value_stats.n_null_counts = 0;
	f->value_stats.has_null_counts = 0;
	CHECK_OK(pm_bytes_set(&f->min_key, f->key_stats.min_values.p, f->key_stats.min_values.n));
}

/* Every optional field absent. */
static void make_bare_entry(pm_manifest_entry *e)
{
	make_entry(e, PM_FILE_KIND_ADD, "data-bare.parquet", "x", 0, 0);
	e->file.has_creation_time = 0;
	e->file.has_delete_row_count = 0;
	e->file.has_file_source = 0;
}

static int bytes_eq(const pm_bytes *a, const pm_bytes *b)
{
	return a->n == b->n && (!a->n || !memcmp(a->p, b->p, a->n));
}

static int strlist_eq(const pm_strlist *a, const pm_strlist *b)
{
	size_t i;
	if (a->len != b->len)
		return 0;
	for (i = 0; i < a->len; i++)
		if (strcmp(a->items[i], b->items[i]))
			return 0;
	return 1;
}

static int stats_eq(const pm_simple_stats *a, const pm_simple_stats *b)
{
	return bytes_eq(&a->min_values, &b->min_values) && bytes_eq(&a->max_values, &b->max_values) &&
	       a->has_null_counts == b->has_null_counts && a->n_null_counts == b->n_null_counts &&
	       (!a->n_null_counts || !memcmp(a->null_counts, b->null_counts, a->n_null_counts * sizeof(int64_t)));
}

static void check_entry_eq(const pm_manifest_entry *a, const pm_manifest_entry *b)
{
	const pm_data_file_meta *x = &a->file, *y = &b->file;
	CHECK(a->kind == b->kind);
	CHECK(bytes_eq(&a->partition, &b->partition));
	CHECK(a->bucket == b->bucket);
	CHECK(a->total_buckets == b->total_buckets);
	CHECK_STR(x->file_name, y->file_name);
	CHECK(x->file_size == y->file_size);
	CHECK(x->row_count == y->row_count);
	CHECK(bytes_eq(&x->min_key, &y->min_key));
	CHECK(bytes_eq(&x->max_key, &y->max_key));
	CHECK(stats_eq(&x->key_stats, &y->key_stats));
	CHECK(stats_eq(&x->value_stats, &y->value_stats));
	CHECK(x->min_sequence_number == y->min_sequence_number);
	CHECK(x->max_sequence_number == y->max_sequence_number);
	CHECK(x->schema_id == y->schema_id);
	CHECK(x->level == y->level);
	CHECK(strlist_eq(&x->extra_files, &y->extra_files));
	CHECK(x->has_creation_time == y->has_creation_time);
	CHECK(!x->has_creation_time || x->creation_time == y->creation_time);
	CHECK(x->has_delete_row_count == y->has_delete_row_count);
	CHECK(!x->has_delete_row_count || x->delete_row_count == y->delete_row_count);
	CHECK(x->has_embedded_file_index == y->has_embedded_file_index);
	CHECK(!x->has_embedded_file_index || bytes_eq(&x->embedded_file_index, &y->embedded_file_index));
	CHECK(x->has_file_source == y->has_file_source);
	CHECK(!x->has_file_source || x->file_source == y->file_source);
	CHECK(x->has_value_stats_cols == y->has_value_stats_cols);
	CHECK(strlist_eq(&x->value_stats_cols, &y->value_stats_cols));
	CHECK((!x->external_path && !y->external_path) ||
	      (x->external_path && y->external_path && !strcmp(x->external_path, y->external_path)));
	CHECK(x->has_first_row_id == y->has_first_row_id);
	CHECK(!x->has_first_row_id || x->first_row_id == y->first_row_id);
	CHECK(x->has_write_cols == y->has_write_cols);
	CHECK(strlist_eq(&x->write_cols, &y->write_cols));
	CHECK(x->has_write_cols_sequences == y->has_write_cols_sequences);
	CHECK(x->n_write_cols_sequences == y->n_write_cols_sequences);
	CHECK(!x->n_write_cols_sequences ||
	      !memcmp(x->write_cols_sequences, y->write_cols_sequences, x->n_write_cols_sequences * 8));
}

static pm_manifest_options null_codec_opts(void)
{
	pm_manifest_options o;
	CHECK_OK(pm_manifest_options_from(&o, NULL));
	strcpy(o.codec, "null");
	return o;
}

static char *read_whole(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *p;
	long n;
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	p = malloc((size_t)n + 1);
	if (fread(p, 1, (size_t)n, f) != (size_t)n)
		n = 0;
	fclose(f);
	*len = (size_t)n;
	return p;
}

static char *manifest_path(const char *table, const char *name)
{
	char *p = malloc(strlen(table) + strlen(name) + 16);
	sprintf(p, "%s/manifest/%s", table, name);
	return p;
}

static void rm_tree(pm_fileio *io, char *dir)
{
	pm_fileio_remove_all(io, dir);
	free(dir);
}

/* ------------------------------------------------------------ round trips */

static void t_entry_roundtrip(void)
{
	const char *codecs[] = {"zstandard", "null", "deflate", "snappy"};
	pm_manifest_entry in[2];
	pm_fileio *io;
	char *table = test_tmpdir();
	pm_type *pt = row_type("ROW<dt STRING, hr INT>");
	size_t c;
	CHECK_OK(pm_fileio_local_new(&io));
	make_full_entry(&in[0]);
	make_bare_entry(&in[1]);
	for (c = 0; c < 4; c++) {
		pm_manifest_options o;
		pm_manifest_namer nm;
		pm_manifest_file_meta_list metas = {0};
		pm_manifest_entry_list got = {0};
		pm_buf enc = PM_BUF_INIT;
		CHECK_OK(pm_manifest_options_from(&o, NULL));
		strcpy(o.codec, codecs[c]);
		CHECK_OK(pm_manifest_namer_init(&nm));
		CHECK_OK(pm_manifest_write(io, table, &o, &nm, pt, in, 2, &metas));
		CHECK(metas.len == 1);
		if (metas.len == 1) {
			CHECK_OK(pm_manifest_read(io, table, metas.items[0].file_name, &got));
			CHECK(got.len == 2);
			if (got.len == 2) {
				check_entry_eq(&got.items[0], &in[0]);
				check_entry_eq(&got.items[1], &in[1]);
			}
		}
		pm_manifest_entry_list_dispose(&got);
		/* compact byte form */
		CHECK_OK(pm_manifest_entries_encode(in, 2, &enc));
		CHECK_OK(pm_manifest_entries_decode("split", enc.data, enc.len, &got));
		CHECK(got.len == 2);
		if (got.len == 2) {
			check_entry_eq(&got.items[0], &in[0]);
			check_entry_eq(&got.items[1], &in[1]);
		}
		pm_manifest_entry_list_dispose(&got);
		pm_buf_dispose(&enc);
		pm_manifest_file_meta_list_dispose(&metas);
	}
	/* copy */
	{
		pm_manifest_entry cp;
		CHECK_OK(pm_manifest_entry_copy(&cp, &in[0]));
		check_entry_eq(&cp, &in[0]);
		pm_manifest_entry_dispose(&cp);
	}
	/* empty list encodes and decodes */
	{
		pm_buf enc = PM_BUF_INIT;
		pm_manifest_entry_list got = {0};
		CHECK_OK(pm_manifest_entries_encode(NULL, 0, &enc));
		CHECK_OK(pm_manifest_entries_decode("empty", enc.data, enc.len, &got));
		CHECK(got.len == 0);
		pm_buf_dispose(&enc);
	}
	pm_manifest_entry_dispose(&in[0]);
	pm_manifest_entry_dispose(&in[1]);
	pm_type_free(pt);
	rm_tree(io, table);
	pm_fileio_close(io);
}

static void t_list_roundtrip(void)
{
	pm_manifest_file_meta in[2];
	pm_manifest_file_meta_list got = {0};
	pm_manifest_namer nm;
	pm_manifest_options o = null_codec_opts();
	pm_fileio *io;
	char *table = test_tmpdir(), *name = NULL, *path;
	int64_t size = -1;
	size_t len;
	char *data;
	memset(in, 0, sizeof in);
	CHECK_OK(pm_fileio_local_new(&io));
	in[0].file_name = pm_strdup("manifest-a-0");
	in[0].file_size = 2209;
	in[0].num_added_files = 3;
	in[0].num_deleted_files = 1;
	CHECK_OK(pm_simple_stats_empty(&in[0].partition_stats));
	in[0].schema_id = 4;
	in[0].has_min_bucket = in[0].has_max_bucket = in[0].has_min_level = in[0].has_max_level = 1;
	in[0].min_bucket = -1;
	in[0].max_bucket = 7;
	in[0].min_level = 0;
	in[0].max_level = 5;
	in[0].has_min_row_id = in[0].has_max_row_id = 1;
	in[0].min_row_id = 10;
	in[0].max_row_id = 1LL << 50;
	in[1].file_name = pm_strdup("manifest-a-1");
	part_row("a", 1, 1, &in[1].partition_stats.min_values);
	part_row("b", 2, 0, &in[1].partition_stats.max_values);
	CHECK_OK(pm_manifest_namer_init(&nm));
	CHECK_OK(pm_manifest_list_write(io, table, &o, &nm, in, 2, &name, &size));
	CHECK(name && !strncmp(name, "manifest-list-", 14));
	path = manifest_path(table, name);
	data = read_whole(path, &len);
	CHECK(data && (int64_t)len == size);
	CHECK_OK(pm_manifest_list_read(io, table, name, &got));
	CHECK(got.len == 2);
	if (got.len == 2) {
		size_t i;
		for (i = 0; i < 2; i++) {
			const pm_manifest_file_meta *a = &got.items[i], *b = &in[i];
			CHECK_STR(a->file_name, b->file_name);
			CHECK(a->file_size == b->file_size && a->num_added_files == b->num_added_files &&
			      a->num_deleted_files == b->num_deleted_files && a->schema_id == b->schema_id);
			CHECK(stats_eq(&a->partition_stats, &b->partition_stats));
			CHECK(a->has_min_bucket == b->has_min_bucket && a->has_max_bucket == b->has_max_bucket &&
			      a->has_min_level == b->has_min_level && a->has_max_level == b->has_max_level &&
			      a->has_min_row_id == b->has_min_row_id && a->has_max_row_id == b->has_max_row_id);
			CHECK(a->min_bucket == b->min_bucket && a->max_bucket == b->max_bucket &&
			      a->min_level == b->min_level && a->max_level == b->max_level &&
			      a->min_row_id == b->min_row_id && a->max_row_id == b->max_row_id);
		}
	}
	/* the same name again: no overwrite */
	{
		pm_manifest_namer again = nm;
		char *n2 = NULL;
		again.list_n = 0;
		CHECK_RC(pm_manifest_list_write(io, table, &o, &again, in, 1, &n2, NULL), PAIMON_EEXISTS);
		CHECK(n2 == NULL);
	}
	free(data);
	free(path);
	pm_free(name);
	pm_manifest_file_meta_list_dispose(&got);
	pm_manifest_file_meta_dispose(&in[0]);
	pm_manifest_file_meta_dispose(&in[1]);
	rm_tree(io, table);
	pm_fileio_close(io);
}

static void t_index_roundtrip(void)
{
	pm_index_manifest_entry in[2];
	pm_index_manifest_entry_list got = {0};
	pm_manifest_namer nm;
	pm_fileio *io;
	char *table = test_tmpdir(), *name = NULL;
	size_t i;
	memset(in, 0, sizeof in);
	CHECK_OK(pm_fileio_local_new(&io));
	CHECK_OK(pm_bytes_set(&in[0].partition, pm_empty_binrow, 12));
	in[0].kind = PM_FILE_KIND_ADD;
	in[0].bucket = 2;
	in[0].index_type = pm_strdup("DELETION_VECTORS");
	in[0].file_name = pm_strdup("index-u-0");
	in[0].file_size = 77;
	in[0].row_count = 2;
	in[0].has_dv_ranges = 1;
	in[0].n_dv_ranges = 2;
	in[0].dv_ranges = pm_calloc(2, sizeof(pm_dv_range));
	in[0].dv_ranges[0].data_file = pm_strdup("data-1.parquet");
	in[0].dv_ranges[0].offset = 1;
	in[0].dv_ranges[0].length = 30;
	in[0].dv_ranges[0].has_cardinality = 1;
	in[0].dv_ranges[0].cardinality = 5;
	in[0].dv_ranges[1].data_file = pm_strdup("data-2.parquet");
	in[0].dv_ranges[1].offset = 31;
	in[0].dv_ranges[1].length = 40;
	in[0].external_path = pm_strdup("oss://b/index-u-0");
	in[0].has_global_index = 1;
	in[0].global_index.row_range_start = 0;
	in[0].global_index.row_range_end = 999;
	in[0].global_index.index_field_id = 3;
	in[0].global_index.has_extra_field_ids = 1;
	in[0].global_index.n_extra_field_ids = 2;
	in[0].global_index.extra_field_ids = pm_malloc(8);
	in[0].global_index.extra_field_ids[0] = 4;
	in[0].global_index.extra_field_ids[1] = -5;
	in[0].global_index.has_index_meta = 1;
	CHECK_OK(pm_bytes_set(&in[0].global_index.index_meta, "meta", 4));
	part_row("p", 1, 0, &in[1].partition);
	in[1].kind = PM_FILE_KIND_DELETE;
	in[1].index_type = pm_strdup("HASH");
	in[1].file_name = pm_strdup("index-u-1");
	CHECK_OK(pm_manifest_namer_init(&nm));
	CHECK_OK(pm_index_manifest_write(io, table, NULL, &nm, in, 2, &name));
	CHECK(name && !strncmp(name, "index-manifest-", 15));
	CHECK_OK(pm_index_manifest_read(io, table, name, &got));
	CHECK(got.len == 2);
	for (i = 0; i < got.len && i < 2; i++) {
		const pm_index_manifest_entry *a = &got.items[i], *b = &in[i];
		size_t k;
		CHECK(a->kind == b->kind && a->bucket == b->bucket && bytes_eq(&a->partition, &b->partition));
		CHECK_STR(a->index_type, b->index_type);
		CHECK_STR(a->file_name, b->file_name);
		CHECK(a->file_size == b->file_size && a->row_count == b->row_count);
		CHECK(a->has_dv_ranges == b->has_dv_ranges && a->n_dv_ranges == b->n_dv_ranges);
		for (k = 0; k < a->n_dv_ranges && k < b->n_dv_ranges; k++) {
			CHECK_STR(a->dv_ranges[k].data_file, b->dv_ranges[k].data_file);
			CHECK(a->dv_ranges[k].offset == b->dv_ranges[k].offset &&
			      a->dv_ranges[k].length == b->dv_ranges[k].length &&
			      a->dv_ranges[k].has_cardinality == b->dv_ranges[k].has_cardinality &&
			      a->dv_ranges[k].cardinality == b->dv_ranges[k].cardinality);
		}
		CHECK((!a->external_path && !b->external_path) || !strcmp(a->external_path, b->external_path));
		CHECK(a->has_global_index == b->has_global_index);
		if (a->has_global_index && b->has_global_index) {
			const pm_global_index_meta *x = &a->global_index, *y = &b->global_index;
			CHECK(x->row_range_start == y->row_range_start && x->row_range_end == y->row_range_end &&
			      x->index_field_id == y->index_field_id);
			CHECK(x->has_extra_field_ids == y->has_extra_field_ids &&
			      x->n_extra_field_ids == y->n_extra_field_ids &&
			      !memcmp(x->extra_field_ids, y->extra_field_ids, 8));
			CHECK(x->has_index_meta && bytes_eq(&x->index_meta, &y->index_meta));
			CHECK(!x->has_source_meta);
		}
	}
	pm_free(name);
	pm_index_manifest_entry_list_dispose(&got);
	pm_index_manifest_entry_dispose(&in[0]);
	pm_index_manifest_entry_dispose(&in[1]);
	rm_tree(io, table);
	pm_fileio_close(io);
}

/* ---------------------------------------------------- spec §5.5(g) bytes */

static void t_stats_bytes(void)
{
	static const uint8_t min_row[] = {0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0,
					  0x61, 0, 0, 0, 0, 0, 0, 0x81};
	static const uint8_t max_row[] = {0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0,
					  0x63, 0x63, 0, 0, 0, 0, 0, 0x82};
	static const uint8_t nulls[] = {0x02, 0x04, 0x02, 0x00, 0x02, 0x00, 0x00};
	pm_type *vt = row_type("ROW<id INT, name STRING>");
	pm_binrow_datum v[2];
	pm_manifest_entry e;
	pm_buf want = PM_BUF_INIT, enc = PM_BUF_INIT;
	pm_manifest_namer nm;
	pm_manifest_options o = null_codec_opts();
	pm_manifest_file_meta_list metas = {0};
	pm_fileio *io;
	char *table = test_tmpdir();
	CHECK_OK(pm_fileio_local_new(&io));
	make_entry(&e, PM_FILE_KIND_ADD, "data-g.parquet", "d", 1, 0);
	pm_simple_stats_dispose(&e.file.value_stats);
	memset(v, 0, sizeof v);
	v[0].i = 1;
	str_datum(&v[1], "a");
	encode_row(vt, v, &e.file.value_stats.min_values);
	v[0].i = 3;
	str_datum(&v[1], "cc");
	encode_row(vt, v, &e.file.value_stats.max_values);
	CHECK(e.file.value_stats.min_values.n == sizeof min_row &&
	      !memcmp(e.file.value_stats.min_values.p, min_row, sizeof min_row));
	CHECK(e.file.value_stats.max_values.n == sizeof max_row &&
	      !memcmp(e.file.value_stats.max_values.p, max_row, sizeof max_row));
	e.file.value_stats.has_null_counts = 1;
	e.file.value_stats.n_null_counts = 2;
	e.file.value_stats.null_counts = pm_calloc(2, sizeof(int64_t));
	/* Avro: bytes(min) bytes(max) then the null counts, then _MIN_SEQUENCE_NUMBER */
	pm_avro_put_long(&want, sizeof min_row);
	pm_buf_append(&want, min_row, sizeof min_row);
	pm_avro_put_long(&want, sizeof max_row);
	pm_buf_append(&want, max_row, sizeof max_row);
	pm_buf_append(&want, nulls, sizeof nulls);
	CHECK_OK(pm_manifest_entries_encode(&e, 1, &enc));
	CHECK(memmem(enc.data, enc.len, want.data, want.len) != NULL);
	/* and inside a (null-codec) manifest file */
	CHECK_OK(pm_manifest_namer_init(&nm));
	CHECK_OK(pm_manifest_write(io, table, &o, &nm, NULL, &e, 1, &metas));
	if (metas.len == 1) {
		char *path = manifest_path(table, metas.items[0].file_name);
		size_t len = 0;
		char *data = read_whole(path, &len);
		CHECK(data && memmem(data, len, want.data, want.len) != NULL);
		/* Java's header: null-first unions with defaults, record names */
		CHECK(data && memmem(data, len, "\"name\":\"record__FILE__VALUE_STATS\"", 34));
		CHECK(data && memmem(data, len, "\"namespace\":\"org.apache.paimon.avro.generated\"", 46));
		CHECK(data && memmem(data, len, "{\"name\":\"_CREATION_TIME\",\"type\":[\"null\",{\"type\":\"long\","
					     "\"logicalType\":\"timestamp-millis\"}],\"default\":null}", 99));
		free(data);
		free(path);
		/* unpartitioned: two arity-0 rows, empty non-null null counts */
		CHECK(metas.items[0].partition_stats.min_values.n == 12 &&
		      !memcmp(metas.items[0].partition_stats.min_values.p, pm_empty_binrow, 12));
		CHECK(metas.items[0].partition_stats.max_values.n == 12);
		CHECK(metas.items[0].partition_stats.has_null_counts && metas.items[0].partition_stats.n_null_counts == 0);
	}
	CHECK(metas.len == 1);
	pm_manifest_file_meta_list_dispose(&metas);
	pm_buf_dispose(&want);
	pm_buf_dispose(&enc);
	pm_manifest_entry_dispose(&e);
	pm_type_free(vt);
	rm_tree(io, table);
	pm_fileio_close(io);
}

/* ----------------------------------------- ManifestFileMeta computation */

static void t_file_meta(void)
{
	pm_manifest_entry e[4];
	pm_type *pt = row_type("ROW<dt STRING, hr INT>");
	pm_manifest_namer nm;
	pm_manifest_file_meta_list metas = {0};
	pm_fileio *io;
	char *table = test_tmpdir();
	pm_bytes want = {0};
	size_t i;
	CHECK_OK(pm_fileio_local_new(&io));
	make_entry(&e[0], PM_FILE_KIND_ADD, "f0", "2024-05-14", 13, 2);
	make_entry(&e[1], PM_FILE_KIND_ADD, "f1", "2024-05-02", 20, 0);
	make_entry(&e[2], PM_FILE_KIND_DELETE, "f2", "2024-06-01", 0, 5);
	make_entry(&e[3], PM_FILE_KIND_ADD, "f3", "2024-05-20", 0, 1);
	pm_bytes_dispose(&e[3].partition);
	part_row("2024-05-20", 0, 1, &e[3].partition); /* hr NULL */
	e[1].file.schema_id = 3;
	e[2].file.schema_id = 1;
	e[2].file.level = 4;
	e[0].file.level = 1;
	for (i = 0; i < 4; i++) {
		e[i].file.has_first_row_id = 1;
		e[i].file.first_row_id = 100 * (int64_t)i;
	}
	CHECK_OK(pm_manifest_namer_init(&nm));
	CHECK_OK(pm_manifest_write(io, table, NULL, &nm, pt, e, 4, &metas));
	CHECK(metas.len == 1);
	if (metas.len == 1) {
		const pm_manifest_file_meta *m = &metas.items[0];
		char expect_name[80];
		snprintf(expect_name, sizeof expect_name, "manifest-%s-0", nm.uuid);
		CHECK_STR(m->file_name, expect_name);
		CHECK(m->num_added_files == 3 && m->num_deleted_files == 1);
		CHECK(m->schema_id == 3);
		CHECK(m->has_min_bucket && m->min_bucket == 0 && m->has_max_bucket && m->max_bucket == 5);
		CHECK(m->has_min_level && m->min_level == 0 && m->has_max_level && m->max_level == 4);
		CHECK(m->has_min_row_id && m->min_row_id == 0 && m->has_max_row_id && m->max_row_id == 309);
		part_row("2024-05-02", 0, 0, &want);
		CHECK(bytes_eq(&m->partition_stats.min_values, &want));
		part_row("2024-06-01", 20, 0, &want);
		CHECK(bytes_eq(&m->partition_stats.max_values, &want));
		CHECK(m->partition_stats.has_null_counts && m->partition_stats.n_null_counts == 2 &&
		      m->partition_stats.null_counts[0] == 0 && m->partition_stats.null_counts[1] == 1);
		{
			/* file size is the published size */
			char *path = manifest_path(table, m->file_name);
			size_t len = 0;
			char *data = read_whole(path, &len);
			CHECK(data && (int64_t)len == m->file_size);
			free(data);
			free(path);
		}
	}
	pm_manifest_file_meta_list_dispose(&metas);
	/* one entry without a first row id -> row ids unknown */
	e[2].file.has_first_row_id = 0;
	CHECK_OK(pm_manifest_write(io, table, NULL, &nm, pt, e, 4, &metas));
	CHECK(metas.len == 1 && !metas.items[0].has_min_row_id && !metas.items[0].has_max_row_id);
	if (metas.len == 1) {
		char expect_name[80];
		snprintf(expect_name, sizeof expect_name, "manifest-%s-1", nm.uuid);
		CHECK_STR(metas.items[0].file_name, expect_name);
	}
	pm_manifest_file_meta_list_dispose(&metas);
	/* a partition that does not match the type is an error, and nothing is left behind */
	CHECK(pm_manifest_write(io, table, NULL, &nm, NULL, e, 4, &metas) == 0);
	pm_manifest_file_meta_list_dispose(&metas);
	{
		pm_type *bad = row_type("ROW<a INT>");
		pm_file_list fl = {0};
		char *dir = pm_manifest_dir(table);
		size_t before;
		CHECK_OK(pm_fileio_list(io, dir, &fl));
		before = fl.len;
		pm_file_list_dispose(&fl);
		CHECK(pm_manifest_write(io, table, NULL, &nm, bad, e, 4, &metas) < 0);
		CHECK(metas.len == 0);
		CHECK_OK(pm_fileio_list(io, dir, &fl));
		CHECK(fl.len == before);
		pm_file_list_dispose(&fl);
		pm_free(dir);
		pm_type_free(bad);
	}
	pm_bytes_dispose(&want);
	for (i = 0; i < 4; i++)
		pm_manifest_entry_dispose(&e[i]);
	pm_type_free(pt);
	rm_tree(io, table);
	pm_fileio_close(io);
}

static void t_rolling(void)
{
	enum { N = 300 };
	pm_manifest_entry *e = calloc(N, sizeof *e);
	pm_manifest_options o;
	pm_manifest_namer nm;
	pm_manifest_file_meta_list metas = {0};
	pm_manifest_entry_list got = {0};
	pm_fileio *io;
	char *table = test_tmpdir(), name[64];
	size_t i, total = 0;
	CHECK_OK(pm_fileio_local_new(&io));
	for (i = 0; i < N; i++) {
		snprintf(name, sizeof name, "data-%04zu.parquet", i);
		make_entry(&e[i], PM_FILE_KIND_ADD, name, "p", (int)(i % 7), 0);
	}
	CHECK_OK(pm_manifest_options_from(&o, NULL));
	o.target_file_size = 20000;
	CHECK_OK(pm_manifest_namer_init(&nm));
	CHECK_OK(pm_manifest_write(io, table, &o, &nm, NULL, e, N, &metas));
	CHECK(metas.len > 2);
	for (i = 0; i < metas.len; i++) {
		char want[80];
		snprintf(want, sizeof want, "manifest-%s-%zu", nm.uuid, i);
		CHECK_STR(metas.items[i].file_name, want);
		total += (size_t)metas.items[i].num_added_files;
		CHECK_OK(pm_manifest_read(io, table, metas.items[i].file_name, &got));
	}
	CHECK(total == N);
	CHECK(got.len == N);
	for (i = 0; i < got.len && i < N; i++)
		CHECK_STR(got.items[i].file.file_name, e[i].file.file_name);
	pm_manifest_entry_list_dispose(&got);
	pm_manifest_file_meta_list_dispose(&metas);
	for (i = 0; i < N; i++)
		pm_manifest_entry_dispose(&e[i]);
	free(e);
	rm_tree(io, table);
	pm_fileio_close(io);
}

/* -------------------------------------------------------------- fixtures */

static char *fixture(const char *sub)
{
	const char *src = getenv("PAIMONC_SOURCE_DIR");
	char *p = malloc(4096);
	snprintf(p, 4096, "%s/tests/unit/meta/fixtures/%s", src ? src : ".", sub);
	return p;
}

static int64_t file_size_of(pm_fileio *io, const char *table, const char *name)
{
	char *p = manifest_path(table, name);
	pm_file_status st;
	int64_t n = -1;
	memset(&st, 0, sizeof st);
	if (!pm_fileio_stat(io, p, &st))
		n = (int64_t)st.size;
	free(p);
	return n;
}

/* Decodes a stats/partition row of type sql into vals (bytes point into b). */
static int decode_row(const char *sql, const pm_bytes *b, pm_binrow_datum *vals)
{
	pm_type *t = row_type(sql);
	const pm_type *types[8];
	size_t i;
	int rc;
	for (i = 0; i < t->nfields; i++)
		types[i] = t->fields[i].type;
	rc = pm_binrow_decode(b->p, b->n, types, t->nfields, 1, vals, NULL);
	pm_type_free(t);
	return rc;
}

static int datum_is_str(const pm_binrow_datum *d, const char *s)
{
	return !d->is_null && d->bytes.n == strlen(s) && !memcmp(d->bytes.p, s, d->bytes.n);
}

static void t_java_append_fixture(void)
{
	char *table = fixture("java_append");
	pm_fileio *io;
	pm_manifest_file_meta_list base = {0}, delta = {0};
	pm_manifest_entry_list entries = {0}, live = {0};
	int seen_row_ids = 0;
	size_t i;
	CHECK_OK(pm_fileio_local_new(&io));
	CHECK_OK(pm_manifest_list_read(io, table, "manifest-list-base", &base));
	CHECK(base.len == 0);
	CHECK_OK(pm_manifest_list_read(io, table, "manifest-list-delta", &delta));
	CHECK(delta.len == 1);
	if (delta.len == 1) {
		const pm_manifest_file_meta *m = &delta.items[0];
		pm_binrow_datum v[2];
		CHECK(!strncmp(m->file_name, "manifest-", 9));
		CHECK(m->file_size == file_size_of(io, table, m->file_name));
		CHECK(m->num_added_files == 3 && m->num_deleted_files == 0 && m->schema_id == 0);
		CHECK(m->has_min_bucket && m->min_bucket == 0 && m->has_max_bucket && m->max_bucket == 0);
		CHECK(m->has_min_level && m->min_level == 0 && m->has_max_level && m->max_level == 0);
		CHECK(m->has_min_row_id && m->min_row_id == 0 && m->has_max_row_id && m->max_row_id == 2);
		CHECK_OK(decode_row("ROW<dt STRING, hr INT>", &m->partition_stats.min_values, v));
		CHECK(datum_is_str(&v[0], "s0") && !v[1].is_null && v[1].i == 0);
		CHECK_OK(decode_row("ROW<dt STRING, hr INT>", &m->partition_stats.max_values, v));
		CHECK(datum_is_str(&v[0], "s2") && !v[1].is_null && v[1].i == 2);
		CHECK(m->partition_stats.has_null_counts && m->partition_stats.n_null_counts == 2 &&
		      m->partition_stats.null_counts[0] == 0 && m->partition_stats.null_counts[1] == 0);
		CHECK_OK(pm_manifest_read(io, table, m->file_name, &entries));
	}
	CHECK(entries.len == 3);
	for (i = 0; i < entries.len; i++) {
		const pm_manifest_entry *e = &entries.items[i];
		const pm_data_file_meta *f = &e->file;
		pm_binrow_datum p[2], v[4];
		char s[8];
		int k;
		CHECK(e->kind == PM_FILE_KIND_ADD && e->bucket == 0 && e->total_buckets == -1);
		CHECK_OK(decode_row("ROW<dt STRING, hr INT>", &e->partition, p));
		k = p[1].i;
		snprintf(s, sizeof s, "s%d", k);
		CHECK(k >= 0 && k < 3 && datum_is_str(&p[0], s));
		CHECK(!strncmp(f->file_name, "data-", 5) && strstr(f->file_name, ".parquet"));
		CHECK(f->file_size > 0 && f->row_count == 1);
		CHECK(f->min_key.n == 12 && !memcmp(f->min_key.p, pm_empty_binrow, 12));
		CHECK(f->max_key.n == 12 && !memcmp(f->max_key.p, pm_empty_binrow, 12));
		CHECK(f->key_stats.min_values.n == 12 && f->key_stats.has_null_counts && f->key_stats.n_null_counts == 0);
		/* value stats: (id INT, name STRING, dt STRING, hr INT) = (k, s<k>, s<k>, k) */
		CHECK_OK(decode_row("ROW<id INT, name STRING, dt STRING, hr INT>", &f->value_stats.min_values, v));
		CHECK(v[0].i == k && datum_is_str(&v[1], s) && datum_is_str(&v[2], s) && v[3].i == k);
		CHECK_OK(decode_row("ROW<id INT, name STRING, dt STRING, hr INT>", &f->value_stats.max_values, v));
		CHECK(v[0].i == k && datum_is_str(&v[1], s) && v[3].i == k);
		CHECK(f->value_stats.has_null_counts && f->value_stats.n_null_counts == 4 &&
		      f->value_stats.null_counts[3] == 0);
		CHECK(f->min_sequence_number == 1 && f->max_sequence_number == 1);
		CHECK(f->schema_id == 0 && f->level == 0 && f->extra_files.len == 0);
		CHECK(f->has_creation_time && f->creation_time > 1700000000000LL);
		CHECK(f->has_delete_row_count && f->delete_row_count == 0);
		CHECK(!f->has_embedded_file_index);
		CHECK(f->has_file_source && f->file_source == PM_FILE_SOURCE_APPEND);
		CHECK(!f->has_value_stats_cols && !f->external_path && !f->has_write_cols);
		CHECK(!f->has_write_cols_sequences); /* not in Java 1.4.2's schema */
		CHECK(f->has_first_row_id && f->first_row_id >= 0 && f->first_row_id < 3);
		if (f->has_first_row_id)
			seen_row_ids |= 1 << f->first_row_id;
	}
	CHECK(seen_row_ids == 7);
	CHECK_OK(pm_manifest_read_all(io, table, "manifest-list-base", "manifest-list-delta", NULL, &live));
	CHECK(live.len == 3);
	pm_manifest_entry_list_dispose(&live);
	pm_manifest_entry_list_dispose(&entries);
	pm_manifest_file_meta_list_dispose(&base);
	pm_manifest_file_meta_list_dispose(&delta);
	pm_fileio_close(io);
	free(table);
}

static void t_java_pk_fixture(void)
{
	char *table = fixture("java_pk");
	pm_fileio *io;
	pm_manifest_file_meta_list delta = {0};
	pm_manifest_entry_list entries = {0};
	int buckets = 0;
	size_t i;
	CHECK_OK(pm_fileio_local_new(&io));
	CHECK_OK(pm_manifest_list_read(io, table, "manifest-list-delta", &delta));
	CHECK(delta.len == 1);
	if (delta.len == 1) {
		const pm_manifest_file_meta *m = &delta.items[0];
		pm_binrow_datum v[1];
		CHECK(m->num_added_files == 4 && m->min_bucket == 0 && m->max_bucket == 1);
		CHECK(!m->has_min_row_id && !m->has_max_row_id);
		CHECK_OK(decode_row("ROW<dt STRING>", &m->partition_stats.min_values, v));
		CHECK(datum_is_str(&v[0], "s0"));
		CHECK_OK(decode_row("ROW<dt STRING>", &m->partition_stats.max_values, v));
		CHECK(datum_is_str(&v[0], "s3"));
		CHECK_OK(pm_manifest_read(io, table, m->file_name, &entries));
	}
	CHECK(entries.len == 4);
	for (i = 0; i < entries.len; i++) {
		const pm_manifest_entry *e = &entries.items[i];
		const pm_data_file_meta *f = &e->file;
		pm_binrow_datum p[1], k[1], v[3];
		char s[8];
		int id;
		CHECK(e->total_buckets == 2 && (e->bucket == 0 || e->bucket == 1));
		buckets |= 1 << e->bucket;
		CHECK_OK(decode_row("ROW<id INT>", &f->min_key, k));
		id = (int)k[0].i;
		snprintf(s, sizeof s, "s%d", id);
		CHECK_OK(decode_row("ROW<dt STRING>", &e->partition, p));
		CHECK(datum_is_str(&p[0], s));
		CHECK(bytes_eq(&f->min_key, &f->max_key));
		CHECK(bytes_eq(&f->key_stats.min_values, &f->min_key));
		CHECK(f->key_stats.n_null_counts == 1 && f->key_stats.null_counts[0] == 0);
		/* value stats over (id, v BIGINT = i*1000+1, dt) */
		CHECK_OK(decode_row("ROW<id INT, v BIGINT, dt STRING>", &f->value_stats.max_values, v));
		CHECK(v[0].i == id && v[1].i == id * 1000 + 1 && datum_is_str(&v[2], s));
		CHECK(!f->has_first_row_id && f->level == 0);
	}
	CHECK(buckets == 3);
	pm_manifest_entry_list_dispose(&entries);
	pm_manifest_file_meta_list_dispose(&delta);
	pm_fileio_close(io);
	free(table);
}

static void t_python_fixture(void)
{
	char *table = fixture("python_append");
	pm_fileio *io;
	pm_manifest_file_meta_list delta = {0};
	pm_manifest_entry_list entries = {0};
	size_t i;
	CHECK_OK(pm_fileio_local_new(&io));
	CHECK_OK(pm_manifest_list_read(io, table, "manifest-list-delta", &delta));
	CHECK(delta.len == 1);
	if (delta.len == 1) {
		const pm_manifest_file_meta *m = &delta.items[0];
		pm_binrow_datum v[1];
		CHECK(m->num_added_files == 2 && m->file_size == file_size_of(io, table, m->file_name));
		CHECK(!m->has_min_row_id);
		CHECK_OK(decode_row("ROW<dt STRING>", &m->partition_stats.min_values, v));
		CHECK(datum_is_str(&v[0], "x"));
		CHECK_OK(decode_row("ROW<dt STRING>", &m->partition_stats.max_values, v));
		CHECK(datum_is_str(&v[0], "y"));
	}
	CHECK_OK(pm_manifest_read_all(io, table, "manifest-list-base", "manifest-list-delta", NULL, &entries));
	CHECK(entries.len == 2);
	for (i = 0; i < entries.len; i++) {
		const pm_data_file_meta *f = &entries.items[i].file;
		pm_binrow_datum p[1];
		CHECK_OK(decode_row("ROW<dt STRING>", &entries.items[i].partition, p));
		CHECK(f->row_count == (datum_is_str(&p[0], "x") ? 2 : 1));
		CHECK(f->has_value_stats_cols && f->value_stats_cols.len == 0); /* pypaimon: no stats */
		CHECK(!f->has_write_cols_sequences && !f->has_first_row_id);
		CHECK(entries.items[i].total_buckets == -1);
	}
	pm_manifest_entry_list_dispose(&entries);
	pm_manifest_file_meta_list_dispose(&delta);
	pm_fileio_close(io);
	free(table);
}

/* --------------------------------------------------------------- corrupt */

/* A null-codec manifest with the full and bare entries, as bytes. */
static void sample_manifest(pm_buf *out)
{
	pm_manifest_entry e[2];
	pm_manifest_namer nm;
	pm_manifest_options o = null_codec_opts();
	pm_manifest_file_meta_list metas = {0};
	pm_fileio *io;
	char *table = test_tmpdir();
	CHECK_OK(pm_fileio_local_new(&io));
	make_full_entry(&e[0]);
	make_bare_entry(&e[1]);
	CHECK_OK(pm_manifest_namer_init(&nm));
	CHECK_OK(pm_manifest_write(io, table, &o, &nm, NULL, e, 2, &metas));
	if (metas.len == 1) {
		char *p = manifest_path(table, metas.items[0].file_name);
		CHECK_OK(pm_fileio_read_all(io, p, out));
		free(p);
	}
	pm_manifest_file_meta_list_dispose(&metas);
	pm_manifest_entry_dispose(&e[0]);
	pm_manifest_entry_dispose(&e[1]);
	rm_tree(io, table);
	pm_fileio_close(io);
}

/* Offset of the first record's first byte in a single-block null-codec file. */
static size_t first_record(const pm_buf *f)
{
	const uint8_t *sync = (const uint8_t *)f->data + f->len - 16, *p;
	int64_t v;
	p = memmem(f->data, f->len - 16, sync, 16);
	CHECK(p != NULL);
	if (!p)
		return 0;
	p += 16;
	pm_avro_get_long(&p, (const uint8_t *)f->data + f->len, &v);
	pm_avro_get_long(&p, (const uint8_t *)f->data + f->len, &v);
	return (size_t)(p - (const uint8_t *)f->data);
}

static void t_corrupt(void)
{
	pm_buf f = PM_BUF_INIT, g = PM_BUF_INIT;
	pm_manifest_entry_list got = {0};
	pm_manifest_file_meta_list lgot = {0};
	size_t n, off;
	sample_manifest(&f);
	CHECK(f.len > 100);
	CHECK_OK(pm_manifest_read_mem("m", f.data, f.len, &got));
	CHECK(got.len == 2);
	pm_manifest_entry_list_dispose(&got);
	/* every truncation fails cleanly and leaves out empty, except the cut
	 * right after the header (a valid file without blocks) */
	{
		int ok = 0;
		for (n = 0; n < f.len; n++) {
			int rc = pm_manifest_read_mem("trunc", f.data, n, &got);
			if (rc == 0)
				ok++;
			CHECK(got.len == 0);
			pm_manifest_entry_list_dispose(&got);
		}
		CHECK(ok == 1);
	}
	/* _VERSION 1 and 3 */
	off = first_record(&f);
	CHECK((uint8_t)f.data[off] == 0x04);
	pm_buf_append(&g, f.data, f.len);
	g.data[off] = 0x02;
	CHECK_RC(pm_manifest_read_mem("manifest-v1", g.data, g.len, &got), PAIMON_ECORRUPT);
	CHECK_MSG("manifest-v1");
	CHECK_MSG("recreate the table");
	g.data[off] = 0x06;
	CHECK_RC(pm_manifest_read_mem("manifest-v3", g.data, g.len, &got), PAIMON_ECORRUPT);
	CHECK_MSG("unsupported _VERSION 3");
	CHECK_MSG("record 0");
	/* kind 5 */
	g.data[off] = 0x04;
	g.data[off + 1] = 0x0a;
	CHECK_RC(pm_manifest_read_mem("m", g.data, g.len, &got), PAIMON_ECORRUPT);
	CHECK_MSG("_KIND");
	CHECK(got.len == 0);
	/* a manifest is not a manifest list and vice versa */
	CHECK(pm_manifest_list_read_mem("m", f.data, f.len, &lgot) < 0);
	CHECK(lgot.len == 0);
	/* random byte flips never crash (fixed seed) */
	{
		unsigned seed = 12345;
		int i;
		for (i = 0; i < 2000; i++) {
			size_t k;
			pm_buf_clear(&g);
			pm_buf_append(&g, f.data, f.len);
			for (k = 0; k < 3; k++) {
				seed = seed * 1103515245u + 12345u;
				g.data[(seed >> 8) % g.len] ^= (char)(1 + (seed >> 20) % 255);
			}
			if (pm_manifest_read_mem("flip", g.data, g.len, &got) == 0)
				CHECK(got.len <= 2);
			pm_manifest_entry_list_dispose(&got);
		}
	}
	pm_buf_dispose(&f);
	pm_buf_dispose(&g);
}

/* Writes a container file with a hand-made schema and one record. */
static void custom_file(const char *schema, const pm_avro_value *rec, pm_buf *out)
{
	pm_avro_writer *w = NULL;
	CHECK_OK(pm_avro_writer_new(schema, "null", PM_CODEC_LEVEL_DEFAULT, &w));
	if (w) {
		CHECK_OK(pm_avro_writer_append(w, rec));
		CHECK_OK(pm_avro_writer_finish(w, out));
	}
	pm_avro_writer_free(w);
}

static void t_wrong_types(void)
{
	/* _FILE._FILE_SIZE as string; then without _FILE_SIZE */
	static const char *s1 =
		"{\"type\":\"record\",\"name\":\"r\",\"fields\":[{\"name\":\"_VERSION\",\"type\":\"int\"},"
		"{\"name\":\"_KIND\",\"type\":\"int\"},{\"name\":\"_PARTITION\",\"type\":\"bytes\"},"
		"{\"name\":\"_BUCKET\",\"type\":\"int\"},{\"name\":\"_TOTAL_BUCKETS\",\"type\":\"int\"},"
		"{\"name\":\"_FILE\",\"type\":{\"type\":\"record\",\"name\":\"f\",\"fields\":["
		"{\"name\":\"_FILE_NAME\",\"type\":\"string\"},{\"name\":\"_FILE_SIZE\",\"type\":\"string\"}]}}]}";
	static const char *s2 =
		"{\"type\":\"record\",\"name\":\"r\",\"fields\":[{\"name\":\"_VERSION\",\"type\":\"int\"},"
		"{\"name\":\"_KIND\",\"type\":\"int\"},{\"name\":\"_PARTITION\",\"type\":\"bytes\"},"
		"{\"name\":\"_BUCKET\",\"type\":\"int\"},{\"name\":\"_TOTAL_BUCKETS\",\"type\":\"int\"},"
		"{\"name\":\"_FILE\",\"type\":{\"type\":\"record\",\"name\":\"f\",\"fields\":["
		"{\"name\":\"_FILE_NAME\",\"type\":\"string\"}]}}]}";
	pm_avro_value root[6], file[2];
	pm_buf b = PM_BUF_INIT;
	pm_manifest_entry_list got = {0};
	memset(root, 0, sizeof root);
	memset(file, 0, sizeof file);
	root[0].kind = PM_AVRO_INT, root[0].u.i = 2, root[0].branch = -1;
	root[1].kind = PM_AVRO_INT, root[1].branch = -1;
	root[2].kind = PM_AVRO_BYTES, root[2].u.bytes.p = pm_empty_binrow, root[2].u.bytes.n = 12, root[2].branch = -1;
	root[3].kind = PM_AVRO_INT, root[3].branch = -1;
	root[4].kind = PM_AVRO_INT, root[4].branch = -1;
	root[5].kind = PM_AVRO_RECORD, root[5].u.c.items = file, root[5].u.c.n = 2, root[5].branch = -1;
	file[0].kind = PM_AVRO_STRING, file[0].u.bytes.p = (const uint8_t *)"x.parquet", file[0].u.bytes.n = 9;
	file[0].branch = -1;
	file[1].kind = PM_AVRO_STRING, file[1].u.bytes.p = (const uint8_t *)"12", file[1].u.bytes.n = 2;
	file[1].branch = -1;
	{
		pm_avro_value rec;
		memset(&rec, 0, sizeof rec);
		rec.kind = PM_AVRO_RECORD;
		rec.branch = -1;
		rec.u.c.items = root;
		rec.u.c.n = 6;
		custom_file(s1, &rec, &b);
		CHECK_RC(pm_manifest_read_mem("typed", b.data, b.len, &got), PAIMON_ECORRUPT);
		CHECK_MSG("typed: record 0: field _FILE._FILE_SIZE: expected long, found string");
		pm_buf_clear(&b);
		root[5].u.c.n = 1;
		custom_file(s2, &rec, &b);
		CHECK_RC(pm_manifest_read_mem("short", b.data, b.len, &got), PAIMON_ECORRUPT);
		CHECK_MSG("_FILE._FILE_SIZE: missing or null");
		pm_buf_clear(&b);
		root[2].u.bytes.p = (const uint8_t *)"\0\0\0\5\0\0\0\0\0\0\0\0";
		custom_file(s2, &rec, &b); /* partition bytes too short for arity 5 */
		CHECK_RC(pm_manifest_read_mem("p", b.data, b.len, &got), PAIMON_ECORRUPT);
		CHECK_MSG("_PARTITION");
		CHECK(got.len == 0);
	}
	pm_buf_dispose(&b);
}

static void t_decode_corrupt(void)
{
	pm_manifest_entry e[2];
	pm_buf enc = PM_BUF_INIT, g = PM_BUF_INIT;
	pm_manifest_entry_list got = {0};
	size_t n;
	make_full_entry(&e[0]);
	make_bare_entry(&e[1]);
	CHECK_OK(pm_manifest_entries_encode(e, 2, &enc));
	for (n = 0; n < enc.len; n++) {
		CHECK(pm_manifest_entries_decode("split", enc.data, n, &got) == PAIMON_ECORRUPT);
		CHECK(got.len == 0);
	}
	CHECK_MSG("split");
	/* trailing garbage */
	pm_buf_append(&g, enc.data, enc.len);
	pm_buf_putc(&g, 0);
	CHECK_RC(pm_manifest_entries_decode("split", g.data, g.len, &got), PAIMON_ECORRUPT);
	/* count says 1 but there are 2 */
	pm_buf_clear(&g);
	pm_buf_append(&g, enc.data, enc.len);
	g.data[5] = 0x02;
	CHECK_RC(pm_manifest_entries_decode("split", g.data, g.len, &got), PAIMON_ECORRUPT);
	g.data[5] = 0x06; /* 3 */
	CHECK_RC(pm_manifest_entries_decode("split", g.data, g.len, &got), PAIMON_ECORRUPT);
	g.data[4] = 9;
	CHECK_RC(pm_manifest_entries_decode("split", g.data, g.len, &got), PAIMON_ECORRUPT);
	CHECK_MSG("version");
	g.data[0] = 'X';
	CHECK_RC(pm_manifest_entries_decode("split", g.data, g.len, &got), PAIMON_ECORRUPT);
	CHECK_MSG("magic");
	CHECK(got.len == 0);
	pm_buf_dispose(&enc);
	pm_buf_dispose(&g);
	pm_manifest_entry_dispose(&e[0]);
	pm_manifest_entry_dispose(&e[1]);
}

/* ---------------------------------------------------------------- merger */

static void t_merger(void)
{
	pm_manifest_entry e[6];
	pm_entry_merger *m = NULL;
	pm_manifest_entry_list out = {0};
	make_entry(&e[0], PM_FILE_KIND_ADD, "a", "p", 1, 0);
	make_entry(&e[1], PM_FILE_KIND_ADD, "b", "p", 1, 0);
	make_entry(&e[2], PM_FILE_KIND_DELETE, "a", "p", 1, 0);
	make_entry(&e[3], PM_FILE_KIND_DELETE, "c", "p", 1, 0);  /* unmatched */
	make_entry(&e[4], PM_FILE_KIND_ADD, "a", "p", 2, 0);     /* other partition: other file */
	make_entry(&e[5], PM_FILE_KIND_ADD, "b", "p", 1, 0);     /* duplicate of e[1] */
	CHECK_OK(pm_entry_merger_new(&m));
	CHECK_OK(pm_entry_merger_add(m, e, 5));
	CHECK(pm_entry_merger_pending_deletes(m) == 1);
	CHECK_RC(pm_entry_merger_add(m, &e[5], 1), PAIMON_ECORRUPT);
	CHECK_MSG("added twice");
	CHECK_OK(pm_entry_merger_finish(m, &out));
	CHECK(out.len == 3);
	if (out.len == 3) {
		CHECK_STR(out.items[0].file.file_name, "b");
		CHECK_STR(out.items[1].file.file_name, "a");
		CHECK(out.items[1].kind == PM_FILE_KIND_ADD);
		CHECK_STR(out.items[2].file.file_name, "c");
		CHECK(out.items[2].kind == PM_FILE_KIND_DELETE);
	}
	CHECK(pm_entry_merger_pending_deletes(m) == 0);
	pm_manifest_entry_list_dispose(&out);
	/* DELETE before ADD (bigger merge): the pair cancels; ADD after a
	 * pending DELETE of the same file is an error, as Java */
	CHECK_OK(pm_entry_merger_add(m, &e[3], 1));
	{
		pm_manifest_entry c;
		make_entry(&c, PM_FILE_KIND_ADD, "c", "p", 1, 0);
		CHECK_RC(pm_entry_merger_add(m, &c, 1), PAIMON_ECORRUPT);
		/* identifier includes level, extra files, embedded index and external path */
		c.file.level = 1;
		CHECK_OK(pm_entry_merger_add(m, &c, 1));
		c.file.level = 0;
		pm_strlist_push(&c.file.extra_files, "c.index");
		CHECK_OK(pm_entry_merger_add(m, &c, 1));
		pm_strlist_dispose(&c.file.extra_files);
		c.file.external_path = pm_strdup("/x/c");
		CHECK_OK(pm_entry_merger_add(m, &c, 1));
		pm_free(c.file.external_path);
		c.file.external_path = NULL;
		c.file.has_embedded_file_index = 1;
		CHECK_OK(pm_entry_merger_add(m, &c, 1));
		c.bucket = 1;
		c.file.has_embedded_file_index = 0;
		CHECK_OK(pm_entry_merger_add(m, &c, 1));
		pm_manifest_entry_dispose(&c);
	}
	CHECK_OK(pm_entry_merger_finish(m, &out));
	CHECK(out.len == 6);
	pm_manifest_entry_list_dispose(&out);
	pm_entry_merger_free(m);
	for (size_t i = 0; i < 6; i++)
		pm_manifest_entry_dispose(&e[i]);
}

/* Many entries: ADD all, DELETE every other one, with moves; checks the
 * table's deletion path and prints the time. */
static void t_merger_large(void)
{
	enum { N = 200000 };
	pm_manifest_entry *e = calloc(N, sizeof *e), *d = calloc(N / 2, sizeof *d);
	pm_entry_merger *m = NULL;
	pm_manifest_entry_list out = {0};
	char name[32];
	size_t i;
	clock_t t0, t1;
	for (i = 0; i < N; i++) {
		snprintf(name, sizeof name, "data-%zu.parquet", i);
		make_entry(&e[i], PM_FILE_KIND_ADD, name, "p", (int)(i % 13), 0);
		if (i % 2 == 0)
			make_entry(&d[i / 2], PM_FILE_KIND_DELETE, name, "p", (int)(i % 13), 0);
	}
	t0 = clock();
	CHECK_OK(pm_entry_merger_new(&m));
	CHECK_OK(pm_entry_merger_add_move(m, e, N));
	CHECK_OK(pm_entry_merger_add_move(m, d, N / 2));
	CHECK_OK(pm_entry_merger_finish(m, &out));
	t1 = clock();
	printf("merge %d + %d entries: %.1f ms CPU\n", N, N / 2, (double)(t1 - t0) * 1e3 / CLOCKS_PER_SEC);
	CHECK(out.len == N / 2);
	for (i = 0; i < out.len; i++) {
		snprintf(name, sizeof name, "data-%zu.parquet", 2 * i + 1);
		if (strcmp(out.items[i].file.file_name, name)) {
			CHECK_STR(out.items[i].file.file_name, name);
			break;
		}
	}
	CHECK(e[0].file.file_name == NULL); /* moved */
	pm_manifest_entry_list_dispose(&out);
	pm_entry_merger_free(m);
	free(e);
	free(d);
}

static int keep_bucket0(void *ctx, const pm_manifest_entry *e)
{
	(*(int *)ctx)++;
	return e->bucket == 0;
}

static int skip_deletes(void *ctx, const pm_manifest_file_meta *m)
{
	(void)ctx;
	return m->num_deleted_files == 0;
}

static void t_read_all(void)
{
	pm_manifest_entry base[3], delta[2];
	pm_manifest_file_meta_list bm = {0}, dm = {0};
	pm_manifest_entry_list out = {0};
	pm_manifest_namer nm;
	pm_fileio *io;
	char *table = test_tmpdir(), *bl = NULL, *dl = NULL;
	int calls = 0;
	pm_manifest_filter f = {NULL, keep_bucket0, &calls};
	size_t i;
	CHECK_OK(pm_fileio_local_new(&io));
	make_entry(&base[0], PM_FILE_KIND_ADD, "a", "p", 1, 0);
	make_entry(&base[1], PM_FILE_KIND_ADD, "b", "p", 1, 0);
	make_entry(&base[2], PM_FILE_KIND_ADD, "z", "p", 1, 1);
	make_entry(&delta[0], PM_FILE_KIND_DELETE, "a", "p", 1, 0);
	make_entry(&delta[1], PM_FILE_KIND_ADD, "c", "p", 1, 0);
	CHECK_OK(pm_manifest_namer_init(&nm));
	CHECK_OK(pm_manifest_write(io, table, NULL, &nm, NULL, base, 3, &bm));
	CHECK_OK(pm_manifest_write(io, table, NULL, &nm, NULL, delta, 2, &dm));
	CHECK_OK(pm_manifest_list_write(io, table, NULL, &nm, bm.items, bm.len, &bl, NULL));
	CHECK_OK(pm_manifest_list_write(io, table, NULL, &nm, dm.items, dm.len, &dl, NULL));
	CHECK_OK(pm_manifest_read_all(io, table, bl, dl, NULL, &out));
	CHECK(out.len == 3);
	if (out.len == 3) {
		CHECK_STR(out.items[0].file.file_name, "b");
		CHECK_STR(out.items[1].file.file_name, "z");
		CHECK_STR(out.items[2].file.file_name, "c");
	}
	pm_manifest_entry_list_dispose(&out);
	CHECK_OK(pm_manifest_read_all(io, table, bl, dl, &f, &out));
	CHECK(calls == 5 && out.len == 2);
	pm_manifest_entry_list_dispose(&out);
	/* skipping the delta manifest leaves a live */
	f.keep_manifest = skip_deletes;
	f.keep_entry = NULL;
	CHECK_OK(pm_manifest_read_all(io, table, bl, dl, &f, &out));
	CHECK(out.len == 3 && !strcmp(out.items[0].file.file_name, "a"));
	pm_manifest_entry_list_dispose(&out);
	/* base only */
	CHECK_OK(pm_manifest_read_all(io, table, bl, NULL, NULL, &out));
	CHECK(out.len == 3);
	pm_manifest_entry_list_dispose(&out);
	/* a list naming a missing manifest */
	{
		char *name2 = NULL;
		pm_free(bm.items[0].file_name);
		bm.items[0].file_name = pm_strdup("manifest-missing");
		CHECK_OK(pm_manifest_list_write(io, table, NULL, &nm, bm.items, bm.len, &name2, NULL));
		CHECK_RC(pm_manifest_read_all(io, table, name2, NULL, NULL, &out), PAIMON_ENOTFOUND);
		CHECK_MSG("manifest-missing");
		CHECK(out.len == 0);
		pm_free(name2);
	}
	for (i = 0; i < 3; i++)
		pm_manifest_entry_dispose(&base[i]);
	for (i = 0; i < 2; i++)
		pm_manifest_entry_dispose(&delta[i]);
	pm_manifest_file_meta_list_dispose(&bm);
	pm_manifest_file_meta_list_dispose(&dm);
	pm_free(bl);
	pm_free(dl);
	rm_tree(io, table);
	pm_fileio_close(io);
}

/* Planning-shaped load: 500 commits of 20 files each (one manifest per
 * commit, one base list naming them all); prints read_all CPU time. */
static void t_read_all_speed(void)
{
	enum { COMMITS = 500, FILES = 20 };
	pm_manifest_file_meta_list metas = {0};
	pm_manifest_entry_list out = {0};
	pm_manifest_namer nm;
	pm_type *pt = row_type("ROW<dt STRING, hr INT>");
	pm_type *vt = row_type("ROW<id BIGINT, name STRING, v DOUBLE, dt STRING, hr INT>");
	pm_fileio *io;
	char *table = test_tmpdir(), *list = NULL, name[64];
	clock_t t0, t1;
	size_t c, i;
	CHECK_OK(pm_fileio_local_new(&io));
	CHECK_OK(pm_manifest_namer_init(&nm));
	for (c = 0; c < COMMITS; c++) {
		pm_manifest_entry e[FILES];
		for (i = 0; i < FILES; i++) {
			pm_binrow_datum v[5];
			snprintf(name, sizeof name, "data-%08zu-%02zu-0.parquet", c, i);
			make_entry(&e[i], PM_FILE_KIND_ADD, name, "2024-05-14", (int)(i % 24), 0);
			pm_simple_stats_dispose(&e[i].file.value_stats);
			memset(v, 0, sizeof v);
			v[0].i = (int64_t)c;
			str_datum(&v[1], "aaaaaaaaaaaa");
			v[2].d = 1.5;
			str_datum(&v[3], "2024-05-14");
			v[4].i = (int64_t)i;
			encode_row(vt, v, &e[i].file.value_stats.min_values);
			encode_row(vt, v, &e[i].file.value_stats.max_values);
			e[i].file.value_stats.has_null_counts = 1;
			e[i].file.value_stats.n_null_counts = 5;
			e[i].file.value_stats.null_counts = pm_calloc(5, sizeof(int64_t));
		}
		CHECK_OK(pm_manifest_write(io, table, NULL, &nm, pt, e, FILES, &metas));
		for (i = 0; i < FILES; i++)
			pm_manifest_entry_dispose(&e[i]);
	}
	CHECK_OK(pm_manifest_list_write(io, table, NULL, &nm, metas.items, metas.len, &list, NULL));
	{
		/* PAIMONC_BENCH_REPEAT=n repeats the read (profiling) */
		const char *rep = getenv("PAIMONC_BENCH_REPEAT");
		int r, reps = rep ? atoi(rep) : 1;
		for (r = 1; r < reps; r++) {
			CHECK_OK(pm_manifest_read_all(io, table, list, NULL, NULL, &out));
			pm_manifest_entry_list_dispose(&out);
		}
	}
	t0 = clock();
	CHECK_OK(pm_manifest_read_all(io, table, list, NULL, NULL, &out));
	t1 = clock();
	printf("read_all %d manifests x %d entries: %.1f ms CPU\n", COMMITS, FILES,
	       (double)(t1 - t0) * 1e3 / CLOCKS_PER_SEC);
	CHECK(out.len == COMMITS * FILES);
	pm_manifest_entry_list_dispose(&out);
	pm_manifest_file_meta_list_dispose(&metas);
	pm_free(list);
	pm_type_free(pt);
	pm_type_free(vt);
	rm_tree(io, table);
	pm_fileio_close(io);
}

/* --------------------------------------------------------- options/names */

static void t_options(void)
{
	pm_manifest_options o;
	pm_strmap m = {0};
	CHECK_OK(pm_manifest_options_from(&o, NULL));
	CHECK_STR(o.codec, "zstandard");
	CHECK(o.level == 1 && o.target_file_size == 8 << 20 && o.merge_min_count == 30 &&
	      o.full_compaction_threshold == 16 << 20);
	pm_strmap_set(&m, "manifest.compression", "none");
	CHECK_OK(pm_manifest_options_from(&o, &m));
	CHECK_STR(o.codec, "null");
	pm_strmap_set(&m, "manifest.compression", "SNAPPY");
	CHECK_OK(pm_manifest_options_from(&o, &m));
	CHECK_STR(o.codec, "snappy");
	pm_strmap_set(&m, "manifest.compression", "lz4");
	CHECK_RC(pm_manifest_options_from(&o, &m), PAIMON_EINVAL);
	CHECK_MSG("manifest.compression");
	pm_strmap_set(&m, "manifest.compression", "deflate");
	pm_strmap_set(&m, "avro.codec", "zstandard");
	pm_strmap_set(&m, "file.compression.zstd-level", "9");
	pm_strmap_set(&m, "manifest.target-file-size", "2 mb");
	pm_strmap_set(&m, "manifest.merge-min-count", "5");
	pm_strmap_set(&m, "manifest.full-compaction-threshold-size", "1GB");
	CHECK_OK(pm_manifest_options_from(&o, &m));
	CHECK_STR(o.codec, "zstandard");
	CHECK(o.level == 9 && o.target_file_size == 2 << 20 && o.merge_min_count == 5 &&
	      o.full_compaction_threshold == 1LL << 30);
	pm_strmap_set(&m, "manifest.target-file-size", "8MB");
	CHECK_OK(pm_manifest_options_from(&o, &m));
	CHECK(o.target_file_size == 8 << 20);
	pm_strmap_set(&m, "manifest.target-file-size", "123");
	CHECK_OK(pm_manifest_options_from(&o, &m));
	CHECK(o.target_file_size == 123);
	pm_strmap_set(&m, "manifest.target-file-size", "64 kb");
	CHECK_OK(pm_manifest_options_from(&o, &m));
	CHECK(o.target_file_size == 64 << 10);
	pm_strmap_set(&m, "manifest.target-file-size", "8 xb");
	CHECK_RC(pm_manifest_options_from(&o, &m), PAIMON_EINVAL);
	CHECK_MSG("manifest.target-file-size");
	pm_strmap_set(&m, "manifest.target-file-size", "0");
	CHECK_RC(pm_manifest_options_from(&o, &m), PAIMON_EINVAL);
	pm_strmap_set(&m, "manifest.target-file-size", "99999999999 tb");
	CHECK_RC(pm_manifest_options_from(&o, &m), PAIMON_EINVAL);
	pm_strmap_set(&m, "manifest.target-file-size", "8mb");
	pm_strmap_set(&m, "avro.codec", "bzip2");
	CHECK_RC(pm_manifest_options_from(&o, &m), PAIMON_EINVAL);
	CHECK_MSG("avro.codec");
	pm_strmap_remove(&m, "avro.codec");
	pm_strmap_set(&m, "manifest.merge-min-count", "x");
	CHECK_RC(pm_manifest_options_from(&o, &m), PAIMON_EINVAL);
	pm_strmap_dispose(&m);
}

static void t_namer(void)
{
	pm_manifest_namer a, b;
	pm_buf n = PM_BUF_INIT;
	char want[96];
	CHECK_OK(pm_manifest_namer_init(&a));
	CHECK_OK(pm_manifest_namer_init(&b));
	CHECK(strlen(a.uuid) == 36 && strcmp(a.uuid, b.uuid));
	CHECK_OK(pm_manifest_namer_next(&a, "manifest", &n));
	snprintf(want, sizeof want, "manifest-%s-0", a.uuid);
	CHECK_STR(n.data, want);
	CHECK_OK(pm_manifest_namer_next(&a, "manifest", &n));
	snprintf(want, sizeof want, "manifest-%s-1", a.uuid);
	CHECK_STR(n.data, want);
	CHECK_OK(pm_manifest_namer_next(&a, "manifest-list", &n));
	snprintf(want, sizeof want, "manifest-list-%s-0", a.uuid);
	CHECK_STR(n.data, want);
	CHECK_OK(pm_manifest_namer_next(&a, "index-manifest", &n));
	snprintf(want, sizeof want, "index-manifest-%s-0", a.uuid);
	CHECK_STR(n.data, want);
	CHECK_RC(pm_manifest_namer_next(&a, "stat", &n), PAIMON_EINVAL);
	pm_buf_dispose(&n);
	{
		char *d = pm_manifest_dir("/w/db.db/t");
		CHECK_STR(d, "/w/db.db/t/manifest");
		pm_free(d);
	}
}

/* With PAIMONC_MANIFEST_OUT=<dir>: writes a table-like dir with one manifest,
 * list and index manifest holding every field, for
 * tests/python/test_manifest_fastavro.py. Prints the names. */
static void t_write_for_fastavro(void)
{
	const char *dir = getenv("PAIMONC_MANIFEST_OUT");
	pm_manifest_entry e[2];
	pm_manifest_file_meta_list metas = {0};
	pm_index_manifest_entry ie;
	pm_manifest_namer nm;
	pm_type *pt = row_type("ROW<dt STRING, hr INT>");
	pm_fileio *io;
	char *list = NULL, *index = NULL;
	if (!dir) {
		pm_type_free(pt);
		return;
	}
	CHECK_OK(pm_fileio_local_new(&io));
	make_full_entry(&e[0]);
	make_bare_entry(&e[1]);
	memset(&ie, 0, sizeof ie);
	part_row("d", 1, 0, &ie.partition);
	ie.index_type = pm_strdup("DELETION_VECTORS");
	ie.file_name = pm_strdup("index-x-0");
	ie.has_dv_ranges = 1;
	ie.n_dv_ranges = 1;
	ie.dv_ranges = pm_calloc(1, sizeof(pm_dv_range));
	ie.dv_ranges[0].data_file = pm_strdup("data-1.parquet");
	ie.dv_ranges[0].has_cardinality = 1;
	ie.dv_ranges[0].cardinality = 3;
	CHECK_OK(pm_manifest_namer_init(&nm));
	CHECK_OK(pm_manifest_write(io, dir, NULL, &nm, pt, e, 2, &metas));
	CHECK_OK(pm_manifest_list_write(io, dir, NULL, &nm, metas.items, metas.len, &list, NULL));
	CHECK_OK(pm_index_manifest_write(io, dir, NULL, &nm, &ie, 1, &index));
	if (metas.len)
		printf("MANIFEST %s\nLIST %s\nINDEX %s\n", metas.items[0].file_name, list, index);
	{
		/* the compact entry form too (a fuzz seed) */
		pm_buf enc = PM_BUF_INIT;
		char path[4200];
		FILE *fp;
		CHECK_OK(pm_manifest_entries_encode(e, 2, &enc));
		snprintf(path, sizeof path, "%s/entries.pmel", dir);
		fp = fopen(path, "wb");
		CHECK(fp && fwrite(enc.data, 1, enc.len, fp) == enc.len);
		if (fp)
			fclose(fp);
		pm_buf_dispose(&enc);
	}
	pm_free(list);
	pm_free(index);
	pm_index_manifest_entry_dispose(&ie);
	pm_manifest_file_meta_list_dispose(&metas);
	pm_manifest_entry_dispose(&e[0]);
	pm_manifest_entry_dispose(&e[1]);
	pm_type_free(pt);
	pm_fileio_close(io);
}

TEST_MAIN(T(t_entry_roundtrip), T(t_list_roundtrip), T(t_index_roundtrip), T(t_stats_bytes), T(t_file_meta),
	  T(t_rolling), T(t_java_append_fixture), T(t_java_pk_fixture), T(t_python_fixture), T(t_corrupt),
	  T(t_wrong_types), T(t_decode_corrupt), T(t_merger), T(t_merger_large), T(t_read_all), T(t_read_all_speed), T(t_options),
	  T(t_namer), T(t_write_for_fastavro))
