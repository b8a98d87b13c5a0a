/*
 * meta/manifest.c - manifest records: ownership helpers, options, file
 * names, and the Avro encoding of manifest entries, manifest-list records
 * and index-manifest entries (spec core-format §4).
 *
 * Writing builds a pm_avro_value tree per record following the schemas Java
 * writes (§4.3/4.4/4.6). Reading resolves, once per file, the writer-schema
 * index of every field by NAME (Java's RowReader rule): fields missing from
 * the writer schema read as absent, unknown writer fields are ignored, and
 * every value's Avro kind is checked before use, so corrupt or foreign files
 * give PAIMON_ECORRUPT naming the file, the record and the field.
 */
#include "meta/manifest.h"

#include <limits.h>
#include <string.h>
#include <strings.h>

#include "codec/codec.h"
#include "core/error.h"
#include "core/mem.h"
#include "core/uuid.h"
#include "format/avro/avro.h"
#include "types/binrow.h"
#include "types/datum.h"

const uint8_t pm_empty_binrow[12] = {0};

/* ============================================================ ownership */

int pm_bytes_set(pm_bytes *b, const void *p, size_t n)
{
	uint8_t *c = pm_malloc(n ? n : 1);
	if (!c)
		return PAIMON_ENOMEM;
	if (n)
		memcpy(c, p, n);
	pm_free(b->p);
	b->p = c;
	b->n = n;
	return 0;
}

void pm_bytes_dispose(pm_bytes *b)
{
	pm_free(b->p);
	b->p = NULL;
	b->n = 0;
}

int pm_simple_stats_empty(pm_simple_stats *s)
{
	memset(s, 0, sizeof *s);
	if (pm_bytes_set(&s->min_values, pm_empty_binrow, sizeof pm_empty_binrow) ||
	    pm_bytes_set(&s->max_values, pm_empty_binrow, sizeof pm_empty_binrow)) {
		pm_simple_stats_dispose(s);
		return PAIMON_ENOMEM;
	}
	s->has_null_counts = 1;
	return 0;
}

static int copy_i64s(int64_t **dst, const int64_t *src, size_t n)
{
	*dst = NULL;
	if (!n)
		return 0;
	*dst = pm_malloc(n * sizeof **dst);
	if (!*dst)
		return PAIMON_ENOMEM;
	memcpy(*dst, src, n * sizeof **dst);
	return 0;
}

int pm_simple_stats_copy(pm_simple_stats *dst, const pm_simple_stats *src)
{
	memset(dst, 0, sizeof *dst);
	if (pm_bytes_set(&dst->min_values, src->min_values.p, src->min_values.n) ||
	    pm_bytes_set(&dst->max_values, src->max_values.p, src->max_values.n) ||
	    copy_i64s(&dst->null_counts, src->null_counts, src->n_null_counts)) {
		pm_simple_stats_dispose(dst);
		return PAIMON_ENOMEM;
	}
	dst->has_null_counts = src->has_null_counts;
	dst->n_null_counts = src->n_null_counts;
	return 0;
}

void pm_simple_stats_dispose(pm_simple_stats *s)
{
	pm_bytes_dispose(&s->min_values);
	pm_bytes_dispose(&s->max_values);
	pm_free(s->null_counts);
	memset(s, 0, sizeof *s);
}

int pm_data_file_meta_init_append(pm_data_file_meta *f)
{
	memset(f, 0, sizeof *f);
	if (pm_bytes_set(&f->min_key, pm_empty_binrow, sizeof pm_empty_binrow) ||
	    pm_bytes_set(&f->max_key, pm_empty_binrow, sizeof pm_empty_binrow) ||
	    pm_simple_stats_empty(&f->key_stats) || pm_simple_stats_empty(&f->value_stats)) {
		pm_data_file_meta_dispose(f);
		return PAIMON_ENOMEM;
	}
	f->has_creation_time = 1;
	f->creation_time = pm_now_local_millis();
	f->has_delete_row_count = 1;
	f->delete_row_count = 0;
	f->has_file_source = 1;
	f->file_source = PM_FILE_SOURCE_APPEND;
	return 0;
}

static int copy_opt_bytes(pm_bytes *dst, int has, const pm_bytes *src)
{
	memset(dst, 0, sizeof *dst);
	return has ? pm_bytes_set(dst, src->p, src->n) : 0;
}

int pm_data_file_meta_copy(pm_data_file_meta *dst, const pm_data_file_meta *src)
{
	*dst = *src;
	/* Clear every owned pointer first so a partial failure disposes cleanly. */
	dst->file_name = NULL;
	memset(&dst->min_key, 0, sizeof dst->min_key);
	memset(&dst->max_key, 0, sizeof dst->max_key);
	memset(&dst->key_stats, 0, sizeof dst->key_stats);
	memset(&dst->value_stats, 0, sizeof dst->value_stats);
	memset(&dst->extra_files, 0, sizeof dst->extra_files);
	memset(&dst->embedded_file_index, 0, sizeof dst->embedded_file_index);
	memset(&dst->value_stats_cols, 0, sizeof dst->value_stats_cols);
	dst->external_path = NULL;
	memset(&dst->write_cols, 0, sizeof dst->write_cols);
	dst->write_cols_sequences = NULL;
	if ((src->file_name && !(dst->file_name = pm_strdup(src->file_name))) ||
	    pm_bytes_set(&dst->min_key, src->min_key.p, src->min_key.n) ||
	    pm_bytes_set(&dst->max_key, src->max_key.p, src->max_key.n) ||
	    pm_simple_stats_copy(&dst->key_stats, &src->key_stats) ||
	    pm_simple_stats_copy(&dst->value_stats, &src->value_stats) ||
	    pm_strlist_copy(&dst->extra_files, &src->extra_files) ||
	    copy_opt_bytes(&dst->embedded_file_index, src->has_embedded_file_index, &src->embedded_file_index) ||
	    pm_strlist_copy(&dst->value_stats_cols, &src->value_stats_cols) ||
	    (src->external_path && !(dst->external_path = pm_strdup(src->external_path))) ||
	    pm_strlist_copy(&dst->write_cols, &src->write_cols) ||
	    copy_i64s(&dst->write_cols_sequences, src->write_cols_sequences, src->n_write_cols_sequences)) {
		pm_data_file_meta_dispose(dst);
		return PAIMON_ENOMEM;
	}
	return 0;
}

int pm_file_is_blob(const char *name)
{
	size_t n = name ? strlen(name) : 0;
	return n >= 5 && !strcmp(name + n - 5, ".blob");
}

int pm_file_is_vector(const char *name)
{
	return name && strstr(name, ".vector.") != NULL;
}

void pm_data_file_meta_dispose(pm_data_file_meta *f)
{
	pm_free(f->file_name);
	pm_bytes_dispose(&f->min_key);
	pm_bytes_dispose(&f->max_key);
	pm_simple_stats_dispose(&f->key_stats);
	pm_simple_stats_dispose(&f->value_stats);
	pm_strlist_dispose(&f->extra_files);
	pm_bytes_dispose(&f->embedded_file_index);
	pm_strlist_dispose(&f->value_stats_cols);
	pm_free(f->external_path);
	pm_strlist_dispose(&f->write_cols);
	pm_free(f->write_cols_sequences);
	memset(f, 0, sizeof *f);
}

int pm_manifest_entry_copy(pm_manifest_entry *dst, const pm_manifest_entry *src)
{
	int rc;
	memset(dst, 0, sizeof *dst);
	dst->kind = src->kind;
	dst->bucket = src->bucket;
	dst->total_buckets = src->total_buckets;
	if (pm_bytes_set(&dst->partition, src->partition.p, src->partition.n))
		return PAIMON_ENOMEM;
	if ((rc = pm_data_file_meta_copy(&dst->file, &src->file))) {
		pm_bytes_dispose(&dst->partition);
		return rc;
	}
	return 0;
}

void pm_manifest_entry_dispose(pm_manifest_entry *e)
{
	pm_bytes_dispose(&e->partition);
	pm_data_file_meta_dispose(&e->file);
}

/* The {items, len, cap} of one of the list types (entries, manifest metas,
 * index entries), for the helpers below. */
typedef struct rec_list {
	void **items;
	size_t *len, *cap;
} rec_list;

#define REC_LIST(l) ((rec_list){(void **)&(l)->items, &(l)->len, &(l)->cap})

/* Grows a list by one zeroed slot of `size` bytes; NULL on OOM. */
static void *grow_push(rec_list l, size_t size)
{
	char *p;
	if (*l.len == *l.cap) {
		size_t nc = *l.cap ? *l.cap * 2 : 16;
		void *n = pm_realloc(*l.items, nc * size);
		if (!n)
			return NULL;
		*l.items = n;
		*l.cap = nc;
	}
	p = (char *)*l.items + *l.len * size;
	memset(p, 0, size);
	(*l.len)++;
	return p;
}

/* Appends a deep copy of src made by copy (which cleans up after itself on failure). */
static int append_copy(rec_list l, size_t size, const void *src, int (*copy)(void *, const void *))
{
	void *d = grow_push(l, size);
	int rc;
	if (!d)
		return PAIMON_ENOMEM;
	if ((rc = copy(d, src))) {
		(*l.len)--;
		return rc;
	}
	return 0;
}

/* Disposes every item, frees the array, empties the list. */
static void list_dispose(rec_list l, size_t size, void (*dispose)(void *))
{
	size_t i;
	for (i = 0; i < *l.len; i++)
		dispose((char *)*l.items + i * size);
	pm_free(*l.items);
	*l.items = NULL;
	*l.len = *l.cap = 0;
}

static void entry_dispose_v(void *e) { pm_manifest_entry_dispose(e); }
static void list_dispose_v(void *m) { pm_manifest_file_meta_dispose(m); }
static void index_dispose_v(void *e) { pm_index_manifest_entry_dispose(e); }
static int entry_copy_v(void *d, const void *s) { return pm_manifest_entry_copy(d, s); }
static int list_copy_v(void *d, const void *s) { return pm_manifest_file_meta_copy(d, s); }

pm_manifest_entry *pm_manifest_entry_list_push(pm_manifest_entry_list *l)
{
	return grow_push(REC_LIST(l), sizeof *l->items);
}

int pm_manifest_entry_list_append_copy(pm_manifest_entry_list *l, const pm_manifest_entry *e)
{
	return append_copy(REC_LIST(l), sizeof *l->items, e, entry_copy_v);
}

void pm_manifest_entry_list_dispose(pm_manifest_entry_list *l)
{
	list_dispose(REC_LIST(l), sizeof *l->items, entry_dispose_v);
}

int pm_manifest_file_meta_copy(pm_manifest_file_meta *dst, const pm_manifest_file_meta *src)
{
	int rc;
	*dst = *src;
	dst->file_name = NULL;
	memset(&dst->partition_stats, 0, sizeof dst->partition_stats);
	if (src->file_name && !(dst->file_name = pm_strdup(src->file_name)))
		return PAIMON_ENOMEM;
	if ((rc = pm_simple_stats_copy(&dst->partition_stats, &src->partition_stats))) {
		pm_free(dst->file_name);
		dst->file_name = NULL;
		return rc;
	}
	return 0;
}

void pm_manifest_file_meta_dispose(pm_manifest_file_meta *m)
{
	pm_free(m->file_name);
	pm_simple_stats_dispose(&m->partition_stats);
	memset(m, 0, sizeof *m);
}

pm_manifest_file_meta *pm_manifest_file_meta_list_push(pm_manifest_file_meta_list *l)
{
	return grow_push(REC_LIST(l), sizeof *l->items);
}

int pm_manifest_file_meta_list_append_copy(pm_manifest_file_meta_list *l, const pm_manifest_file_meta *m)
{
	return append_copy(REC_LIST(l), sizeof *l->items, m, list_copy_v);
}

void pm_manifest_file_meta_list_dispose(pm_manifest_file_meta_list *l)
{
	list_dispose(REC_LIST(l), sizeof *l->items, list_dispose_v);
}

void pm_index_manifest_entry_dispose(pm_index_manifest_entry *e)
{
	size_t i;
	pm_bytes_dispose(&e->partition);
	pm_free(e->index_type);
	pm_free(e->file_name);
	for (i = 0; i < e->n_dv_ranges; i++)
		pm_free(e->dv_ranges[i].data_file);
	pm_free(e->dv_ranges);
	pm_free(e->external_path);
	pm_free(e->global_index.extra_field_ids);
	pm_bytes_dispose(&e->global_index.index_meta);
	pm_bytes_dispose(&e->global_index.source_meta);
	memset(e, 0, sizeof *e);
}

pm_index_manifest_entry *pm_index_manifest_entry_list_push(pm_index_manifest_entry_list *l)
{
	return grow_push(REC_LIST(l), sizeof *l->items);
}

void pm_index_manifest_entry_list_dispose(pm_index_manifest_entry_list *l)
{
	list_dispose(REC_LIST(l), sizeof *l->items, index_dispose_v);
}

static int copy_str(char **dst, const char *src)
{
	*dst = NULL;
	if (!src)
		return 0;
	return (*dst = pm_strdup(src)) ? 0 : PAIMON_ENOMEM;
}

int pm_index_manifest_entry_copy(pm_index_manifest_entry *dst, const pm_index_manifest_entry *src)
{
	size_t i;
	int rc;
	memset(dst, 0, sizeof *dst);
	dst->kind = src->kind;
	dst->bucket = src->bucket;
	dst->file_size = src->file_size;
	dst->row_count = src->row_count;
	dst->has_dv_ranges = src->has_dv_ranges;
	dst->has_global_index = src->has_global_index;
	dst->global_index = src->global_index;
	dst->global_index.extra_field_ids = NULL;
	memset(&dst->global_index.index_meta, 0, sizeof dst->global_index.index_meta);
	memset(&dst->global_index.source_meta, 0, sizeof dst->global_index.source_meta);
	if ((rc = pm_bytes_set(&dst->partition, src->partition.p, src->partition.n)) ||
	    (rc = copy_str(&dst->index_type, src->index_type)) || (rc = copy_str(&dst->file_name, src->file_name)) ||
	    (rc = copy_str(&dst->external_path, src->external_path)))
		goto fail;
	if (src->n_dv_ranges) {
		if (!(dst->dv_ranges = pm_calloc(src->n_dv_ranges, sizeof *dst->dv_ranges))) {
			rc = PAIMON_ENOMEM;
			goto fail;
		}
		for (i = 0; i < src->n_dv_ranges; i++) {
			dst->dv_ranges[i] = src->dv_ranges[i];
			dst->dv_ranges[i].data_file = NULL;
			dst->n_dv_ranges = i + 1;
			if ((rc = copy_str(&dst->dv_ranges[i].data_file, src->dv_ranges[i].data_file)))
				goto fail;
		}
	}
	if (src->global_index.n_extra_field_ids) {
		size_t n = src->global_index.n_extra_field_ids;
		if (!(dst->global_index.extra_field_ids = pm_malloc(n * sizeof(int32_t)))) {
			rc = PAIMON_ENOMEM;
			goto fail;
		}
		memcpy(dst->global_index.extra_field_ids, src->global_index.extra_field_ids, n * sizeof(int32_t));
	}
	if ((src->global_index.has_index_meta &&
	     (rc = pm_bytes_set(&dst->global_index.index_meta, src->global_index.index_meta.p,
				src->global_index.index_meta.n))) ||
	    (src->global_index.has_source_meta &&
	     (rc = pm_bytes_set(&dst->global_index.source_meta, src->global_index.source_meta.p,
				src->global_index.source_meta.n))))
		goto fail;
	return 0;
fail:
	pm_index_manifest_entry_dispose(dst);
	return rc;
}

static int index_copy_v(void *d, const void *s) { return pm_index_manifest_entry_copy(d, s); }

int pm_index_manifest_entry_list_append_copy(pm_index_manifest_entry_list *l, const pm_index_manifest_entry *e)
{
	return append_copy(REC_LIST(l), sizeof *l->items, e, index_copy_v);
}

/* ============================================================== options */

/* Java MemorySize.parse: "<n>[ ]<unit>", units b/bytes, k/kb/kibibytes,
 * m/mb/mebibytes, g/gb/gibibytes, t/tb/tebibytes (case-insensitive). */
static int parse_memory_size(const char *key, const char *v, int64_t *out)
{
	static const struct { const char *u; int shift; } units[] = {
		{"", 0}, {"b", 0}, {"bytes", 0}, {"k", 10}, {"kb", 10}, {"kibibytes", 10},
		{"m", 20}, {"mb", 20}, {"mebibytes", 20}, {"g", 30}, {"gb", 30}, {"gibibytes", 30},
		{"t", 40}, {"tb", 40}, {"tebibytes", 40}};
	const char *p = v;
	uint64_t n = 0;
	size_t i, nd = 0;
	while (*p == ' ' || *p == '\t')
		p++;
	for (; *p >= '0' && *p <= '9'; p++, nd++) {
		if (n > (UINT64_MAX - 9) / 10)
			goto range;
		n = n * 10 + (uint64_t)(*p - '0');
	}
	if (!nd)
		return pm_err(PAIMON_EINVAL, "option '%s': '%s' is not a memory size (e.g. \"8 mb\")", key, v);
	while (*p == ' ' || *p == '\t')
		p++;
	{
		size_t ul = strlen(p);
		while (ul && (p[ul - 1] == ' ' || p[ul - 1] == '\t'))
			ul--;
		for (i = 0; i < sizeof units / sizeof units[0]; i++)
			if (strlen(units[i].u) == ul && !strncasecmp(p, units[i].u, ul))
				break;
		if (i == sizeof units / sizeof units[0])
			return pm_err(PAIMON_EINVAL, "option '%s': '%s' has an unknown memory unit", key, v);
	}
	if (n > ((uint64_t)INT64_MAX >> units[i].shift))
		goto range;
	*out = (int64_t)(n << units[i].shift);
	return 0;
range:
	return pm_err(PAIMON_EINVAL, "option '%s': '%s' is out of range", key, v);
}

int pm_manifest_options_from(pm_manifest_options *o, const pm_strmap *opts)
{
	const char *v;
	int rc;
	memset(o, 0, sizeof *o);
	strcpy(o->codec, "zstandard");
	o->level = 1;
	o->target_file_size = 8LL << 20;
	o->merge_min_count = 30;
	o->full_compaction_threshold = 16LL << 20;
	if (!opts)
		return 0;
	if ((v = pm_strmap_get(opts, "manifest.compression"))) {
		static const struct { const char *opt, *codec; } m[] = {
			{"zstd", "zstandard"}, {"zstandard", "zstandard"}, {"none", "null"}, {"null", "null"},
			{"uncompressed", "null"}, {"deflate", "deflate"}, {"snappy", "snappy"}};
		size_t i;
		for (i = 0; i < sizeof m / sizeof m[0]; i++)
			if (!strcasecmp(v, m[i].opt))
				break;
		if (i == sizeof m / sizeof m[0])
			return pm_err(PAIMON_EINVAL,
				      "option 'manifest.compression': '%s' is not supported (zstd, none, deflate, snappy)", v);
		strcpy(o->codec, m[i].codec);
	}
	if ((v = pm_strmap_get(opts, "avro.codec"))) {
		static const char *const ok[] = {"null", "deflate", "snappy", "zstandard"};
		size_t i;
		const char *c = !strcasecmp(v, "zstd") ? "zstandard" : v;
		for (i = 0; i < sizeof ok / sizeof ok[0]; i++)
			if (!strcasecmp(c, ok[i]))
				break;
		if (i == sizeof ok / sizeof ok[0])
			return pm_err(PAIMON_EINVAL,
				      "option 'avro.codec': '%s' is not supported (null, deflate, snappy, zstandard)", v);
		strcpy(o->codec, ok[i]);
	}
	if ((v = pm_strmap_get(opts, "file.compression.zstd-level"))) {
		long long l;
		if (pm_parse_i64(v, &l) || l < -131072 || l > 22)
			return pm_err(PAIMON_EINVAL, "option 'file.compression.zstd-level': '%s' is not a zstd level", v);
		o->level = (int)l;
	}
	if ((v = pm_strmap_get(opts, "manifest.target-file-size"))) {
		if ((rc = parse_memory_size("manifest.target-file-size", v, &o->target_file_size)))
			return rc;
		if (o->target_file_size <= 0)
			return pm_err(PAIMON_EINVAL, "option 'manifest.target-file-size': '%s' must be positive", v);
	}
	if ((v = pm_strmap_get(opts, "manifest.full-compaction-threshold-size")) &&
	    (rc = parse_memory_size("manifest.full-compaction-threshold-size", v, &o->full_compaction_threshold)))
		return rc;
	if ((v = pm_strmap_get(opts, "manifest.merge-min-count"))) {
		long long l;
		if (pm_parse_i64(v, &l) || l < 0 || l > INT_MAX)
			return pm_err(PAIMON_EINVAL, "option 'manifest.merge-min-count': '%s' is not a count", v);
		o->merge_min_count = (int)l;
	}
	return 0;
}

static const pm_manifest_options *opts_or_default(const pm_manifest_options *o, pm_manifest_options *tmp)
{
	if (o)
		return o;
	pm_manifest_options_from(tmp, NULL);
	return tmp;
}

static int codec_level(const pm_manifest_options *o)
{
	return !strcmp(o->codec, "zstandard") ? o->level : PM_CODEC_LEVEL_DEFAULT;
}

/* ================================================================ names */

int pm_manifest_namer_init(pm_manifest_namer *n)
{
	memset(n, 0, sizeof *n);
	return pm_uuid_v4(n->uuid);
}

int pm_manifest_namer_next(pm_manifest_namer *n, const char *kind, pm_buf *out)
{
	int64_t *ctr;
	if (!strcmp(kind, "manifest"))
		ctr = &n->manifest_n;
	else if (!strcmp(kind, "manifest-list"))
		ctr = &n->list_n;
	else if (!strcmp(kind, "index-manifest"))
		ctr = &n->index_n;
	else
		return pm_err(PAIMON_EINVAL, "manifest namer: unknown file kind '%s'", kind);
	pm_buf_clear(out);
	if (pm_buf_printf(out, "%s-%s-%lld", kind, n->uuid, (long long)*ctr))
		return PAIMON_ENOMEM;
	(*ctr)++;
	return 0;
}

char *pm_manifest_dir(const char *table_path)
{
	return pm_path_join(table_path, "manifest");
}

/* ============================================================== schemas */

#define NS "\"namespace\":\"org.apache.paimon.avro.generated\""
#define F(n, t) "{\"name\":\"" n "\",\"type\":" t "}"
#define FN(n, t) "{\"name\":\"" n "\",\"type\":[\"null\"," t "],\"default\":null}"
#define STATS_REC(name) \
	"{\"type\":\"record\",\"name\":\"" name "\",\"fields\":[" F("_MIN_VALUES", "\"bytes\"") "," \
	F("_MAX_VALUES", "\"bytes\"") "," FN("_NULL_COUNTS", "{\"type\":\"array\",\"items\":[\"null\",\"long\"]}") "]}"
#define STR_ARRAY "{\"type\":\"array\",\"items\":\"string\"}"

static const char ENTRY_SCHEMA[] =
	"{\"type\":\"record\",\"name\":\"record\"," NS ",\"fields\":["
	F("_VERSION", "\"int\"") "," F("_KIND", "\"int\"") "," F("_PARTITION", "\"bytes\"") ","
	F("_BUCKET", "\"int\"") "," F("_TOTAL_BUCKETS", "\"int\"") ","
	F("_FILE", "{\"type\":\"record\",\"name\":\"record__FILE\",\"fields\":["
		F("_FILE_NAME", "\"string\"") "," F("_FILE_SIZE", "\"long\"") "," F("_ROW_COUNT", "\"long\"") ","
		F("_MIN_KEY", "\"bytes\"") "," F("_MAX_KEY", "\"bytes\"") ","
		F("_KEY_STATS", STATS_REC("record__FILE__KEY_STATS")) ","
		F("_VALUE_STATS", STATS_REC("record__FILE__VALUE_STATS")) ","
		F("_MIN_SEQUENCE_NUMBER", "\"long\"") "," F("_MAX_SEQUENCE_NUMBER", "\"long\"") ","
		F("_SCHEMA_ID", "\"long\"") "," F("_LEVEL", "\"int\"") "," F("_EXTRA_FILES", STR_ARRAY) ","
		FN("_CREATION_TIME", "{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}") ","
		FN("_DELETE_ROW_COUNT", "\"long\"") "," FN("_EMBEDDED_FILE_INDEX", "\"bytes\"") ","
		FN("_FILE_SOURCE", "\"int\"") "," FN("_VALUE_STATS_COLS", STR_ARRAY) ","
		FN("_EXTERNAL_PATH", "\"string\"") "," FN("_FIRST_ROW_ID", "\"long\"") ","
		FN("_WRITE_COLS", STR_ARRAY) ","
		FN("_WRITE_COLS_SEQUENCES", "{\"type\":\"array\",\"items\":\"long\"}") "]}") "]}";

static const char LIST_SCHEMA[] =
	"{\"type\":\"record\",\"name\":\"record\"," NS ",\"fields\":["
	F("_VERSION", "\"int\"") "," F("_FILE_NAME", "\"string\"") "," F("_FILE_SIZE", "\"long\"") ","
	F("_NUM_ADDED_FILES", "\"long\"") "," F("_NUM_DELETED_FILES", "\"long\"") ","
	F("_PARTITION_STATS", STATS_REC("record__PARTITION_STATS")) "," F("_SCHEMA_ID", "\"long\"") ","
	FN("_MIN_BUCKET", "\"int\"") "," FN("_MAX_BUCKET", "\"int\"") "," FN("_MIN_LEVEL", "\"int\"") ","
	FN("_MAX_LEVEL", "\"int\"") "," FN("_MIN_ROW_ID", "\"long\"") "," FN("_MAX_ROW_ID", "\"long\"") "]}";

static const char INDEX_SCHEMA[] =
	"{\"type\":\"record\",\"name\":\"record\"," NS ",\"fields\":["
	F("_VERSION", "\"int\"") "," F("_KIND", "\"int\"") "," F("_PARTITION", "\"bytes\"") ","
	F("_BUCKET", "\"int\"") "," F("_INDEX_TYPE", "\"string\"") "," F("_FILE_NAME", "\"string\"") ","
	F("_FILE_SIZE", "\"long\"") "," F("_ROW_COUNT", "\"long\"") ","
	FN("_DELETIONS_VECTORS_RANGES", "{\"type\":\"array\",\"items\":[\"null\",{\"type\":\"record\","
		"\"name\":\"record__DELETIONS_VECTORS_RANGES\",\"fields\":["
		F("f0", "\"string\"") "," F("f1", "\"int\"") "," F("f2", "\"int\"") ","
		FN("_CARDINALITY", "\"long\"") "]}]}") ","
	FN("_EXTERNAL_PATH", "\"string\"") ","
	FN("_GLOBAL_INDEX", "{\"type\":\"record\",\"name\":\"record__GLOBAL_INDEX\",\"fields\":["
		F("_ROW_RANGE_START", "\"long\"") "," F("_ROW_RANGE_END", "\"long\"") ","
		F("_INDEX_FIELD_ID", "\"int\"") "," FN("_EXTRA_FIELD_IDS", "{\"type\":\"array\",\"items\":\"int\"}") ","
		FN("_INDEX_META", "\"bytes\"") "," FN("_SOURCE_META", "\"bytes\"") "]}") "]}";

/* ========================================================= value building */

/* A scratch array of values handed out in slices; reserve() before taking
 * slices for one record so pointers stay valid. */
typedef struct vpool {
	pm_avro_value *v;
	size_t used, cap;
} vpool;

static int vp_reserve(vpool *p, size_t n)
{
	p->used = 0;
	if (n > p->cap) {
		pm_avro_value *nv = pm_realloc(p->v, n * sizeof *nv);
		if (!nv)
			return PAIMON_ENOMEM;
		p->v = nv;
		p->cap = n;
	}
	memset(p->v, 0, n * sizeof *p->v);
	return 0;
}

static pm_avro_value *vp_take(vpool *p, size_t n)
{
	pm_avro_value *r = p->v + p->used;
	p->used += n;
	return r;
}

static void v_null(pm_avro_value *v)
{
	v->kind = PM_AVRO_NULL;
	v->branch = 0;
}

static void v_int(pm_avro_value *v, int32_t x, int branch)
{
	v->kind = PM_AVRO_INT;
	v->branch = branch;
	v->u.i = x;
}

static void v_long(pm_avro_value *v, int64_t x, int branch)
{
	v->kind = PM_AVRO_LONG;
	v->branch = branch;
	v->u.l = x;
}

static void v_bytes(pm_avro_value *v, const pm_bytes *b, int branch)
{
	v->kind = PM_AVRO_BYTES;
	v->branch = branch;
	v->u.bytes.p = b->p;
	v->u.bytes.n = b->n;
}

static void v_str(pm_avro_value *v, const char *s, int branch)
{
	v->kind = PM_AVRO_STRING;
	v->branch = branch;
	v->u.bytes.p = (const uint8_t *)(s ? s : "");
	v->u.bytes.n = s ? strlen(s) : 0;
}

static void v_container(pm_avro_value *v, pm_avro_kind k, pm_avro_value *items, size_t n, int branch)
{
	v->kind = k;
	v->branch = branch;
	v->u.c.items = items;
	v->u.c.keys = NULL;
	v->u.c.n = n;
}

static void v_strlist(vpool *p, pm_avro_value *v, const pm_strlist *l, int branch)
{
	pm_avro_value *it = vp_take(p, l->len);
	size_t i;
	for (i = 0; i < l->len; i++)
		v_str(&it[i], l->items[i], -1);
	v_container(v, PM_AVRO_ARRAY, it, l->len, branch);
}

static size_t stats_values(const pm_simple_stats *s)
{
	return 3 + s->n_null_counts;
}

static void v_stats(vpool *p, pm_avro_value *v, const pm_simple_stats *s)
{
	pm_avro_value *f = vp_take(p, 3);
	v_bytes(&f[0], &s->min_values, -1);
	v_bytes(&f[1], &s->max_values, -1);
	if (!s->has_null_counts)
		v_null(&f[2]);
	else {
		pm_avro_value *it = vp_take(p, s->n_null_counts);
		size_t i;
		for (i = 0; i < s->n_null_counts; i++) {
			if (s->null_counts[i] < 0)
				v_null(&it[i]);
			else
				v_long(&it[i], s->null_counts[i], 1);
		}
		v_container(&f[2], PM_AVRO_ARRAY, it, s->n_null_counts, 1);
	}
	v_container(v, PM_AVRO_RECORD, f, 3, -1);
}

#define N_FILE_FIELDS 21

static int entry_to_value(vpool *p, const pm_manifest_entry *e, pm_avro_value **out)
{
	const pm_data_file_meta *f = &e->file;
	pm_avro_value *root, *ff, *it;
	size_t i, need = 1 + 6 + N_FILE_FIELDS + stats_values(&f->key_stats) + stats_values(&f->value_stats) +
			 f->extra_files.len + f->value_stats_cols.len + f->write_cols.len + f->n_write_cols_sequences;
	if (vp_reserve(p, need))
		return PAIMON_ENOMEM;
	*out = vp_take(p, 1);
	root = vp_take(p, 6);
	ff = vp_take(p, N_FILE_FIELDS);
	v_container(*out, PM_AVRO_RECORD, root, 6, -1);
	v_int(&root[0], PM_MANIFEST_VERSION, -1);
	v_int(&root[1], e->kind, -1);
	v_bytes(&root[2], &e->partition, -1);
	v_int(&root[3], e->bucket, -1);
	v_int(&root[4], e->total_buckets, -1);
	v_container(&root[5], PM_AVRO_RECORD, ff, N_FILE_FIELDS, -1);
	v_str(&ff[0], f->file_name, -1);
	v_long(&ff[1], f->file_size, -1);
	v_long(&ff[2], f->row_count, -1);
	v_bytes(&ff[3], &f->min_key, -1);
	v_bytes(&ff[4], &f->max_key, -1);
	v_stats(p, &ff[5], &f->key_stats);
	v_stats(p, &ff[6], &f->value_stats);
	v_long(&ff[7], f->min_sequence_number, -1);
	v_long(&ff[8], f->max_sequence_number, -1);
	v_long(&ff[9], f->schema_id, -1);
	v_int(&ff[10], f->level, -1);
	v_strlist(p, &ff[11], &f->extra_files, -1);
	if (f->has_creation_time)
		v_long(&ff[12], f->creation_time, 1);
	else
		v_null(&ff[12]);
	if (f->has_delete_row_count)
		v_long(&ff[13], f->delete_row_count, 1);
	else
		v_null(&ff[13]);
	if (f->has_embedded_file_index)
		v_bytes(&ff[14], &f->embedded_file_index, 1);
	else
		v_null(&ff[14]);
	if (f->has_file_source)
		v_int(&ff[15], f->file_source, 1);
	else
		v_null(&ff[15]);
	if (f->has_value_stats_cols)
		v_strlist(p, &ff[16], &f->value_stats_cols, 1);
	else
		v_null(&ff[16]);
	if (f->external_path)
		v_str(&ff[17], f->external_path, 1);
	else
		v_null(&ff[17]);
	if (f->has_first_row_id)
		v_long(&ff[18], f->first_row_id, 1);
	else
		v_null(&ff[18]);
	if (f->has_write_cols)
		v_strlist(p, &ff[19], &f->write_cols, 1);
	else
		v_null(&ff[19]);
	if (f->has_write_cols_sequences) {
		it = vp_take(p, f->n_write_cols_sequences);
		for (i = 0; i < f->n_write_cols_sequences; i++)
			v_long(&it[i], f->write_cols_sequences[i], -1);
		v_container(&ff[20], PM_AVRO_ARRAY, it, f->n_write_cols_sequences, 1);
	} else
		v_null(&ff[20]);
	return 0;
}

static int list_to_value(vpool *p, const pm_manifest_file_meta *m, pm_avro_value **out)
{
	pm_avro_value *f;
	if (vp_reserve(p, 1 + 13 + stats_values(&m->partition_stats)))
		return PAIMON_ENOMEM;
	*out = vp_take(p, 1);
	f = vp_take(p, 13);
	v_container(*out, PM_AVRO_RECORD, f, 13, -1);
	v_int(&f[0], PM_MANIFEST_VERSION, -1);
	v_str(&f[1], m->file_name, -1);
	v_long(&f[2], m->file_size, -1);
	v_long(&f[3], m->num_added_files, -1);
	v_long(&f[4], m->num_deleted_files, -1);
	v_stats(p, &f[5], &m->partition_stats);
	v_long(&f[6], m->schema_id, -1);
	if (m->has_min_bucket) v_int(&f[7], m->min_bucket, 1); else v_null(&f[7]);
	if (m->has_max_bucket) v_int(&f[8], m->max_bucket, 1); else v_null(&f[8]);
	if (m->has_min_level) v_int(&f[9], m->min_level, 1); else v_null(&f[9]);
	if (m->has_max_level) v_int(&f[10], m->max_level, 1); else v_null(&f[10]);
	if (m->has_min_row_id) v_long(&f[11], m->min_row_id, 1); else v_null(&f[11]);
	if (m->has_max_row_id) v_long(&f[12], m->max_row_id, 1); else v_null(&f[12]);
	return 0;
}

static int index_to_value(vpool *p, const pm_index_manifest_entry *e, pm_avro_value **out)
{
	pm_avro_value *f, *it;
	size_t i, need = 1 + 11 + 6 + e->n_dv_ranges * 5 + e->global_index.n_extra_field_ids;
	if (vp_reserve(p, need))
		return PAIMON_ENOMEM;
	*out = vp_take(p, 1);
	f = vp_take(p, 11);
	v_container(*out, PM_AVRO_RECORD, f, 11, -1);
	v_int(&f[0], PM_INDEX_MANIFEST_VERSION, -1);
	v_int(&f[1], e->kind, -1);
	v_bytes(&f[2], &e->partition, -1);
	v_int(&f[3], e->bucket, -1);
	v_str(&f[4], e->index_type, -1);
	v_str(&f[5], e->file_name, -1);
	v_long(&f[6], e->file_size, -1);
	v_long(&f[7], e->row_count, -1);
	if (e->has_dv_ranges) {
		it = vp_take(p, e->n_dv_ranges);
		for (i = 0; i < e->n_dv_ranges; i++) {
			const pm_dv_range *d = &e->dv_ranges[i];
			pm_avro_value *r = vp_take(p, 4);
			v_str(&r[0], d->data_file, -1);
			v_int(&r[1], d->offset, -1);
			v_int(&r[2], d->length, -1);
			if (d->has_cardinality)
				v_long(&r[3], d->cardinality, 1);
			else
				v_null(&r[3]);
			v_container(&it[i], PM_AVRO_RECORD, r, 4, 1);
		}
		v_container(&f[8], PM_AVRO_ARRAY, it, e->n_dv_ranges, 1);
	} else
		v_null(&f[8]);
	if (e->external_path)
		v_str(&f[9], e->external_path, 1);
	else
		v_null(&f[9]);
	if (e->has_global_index) {
		const pm_global_index_meta *g = &e->global_index;
		pm_avro_value *r = vp_take(p, 6);
		v_long(&r[0], g->row_range_start, -1);
		v_long(&r[1], g->row_range_end, -1);
		v_int(&r[2], g->index_field_id, -1);
		if (g->has_extra_field_ids) {
			it = vp_take(p, g->n_extra_field_ids);
			for (i = 0; i < g->n_extra_field_ids; i++)
				v_int(&it[i], g->extra_field_ids[i], -1);
			v_container(&r[3], PM_AVRO_ARRAY, it, g->n_extra_field_ids, 1);
		} else
			v_null(&r[3]);
		if (g->has_index_meta) v_bytes(&r[4], &g->index_meta, 1); else v_null(&r[4]);
		if (g->has_source_meta) v_bytes(&r[5], &g->source_meta, 1); else v_null(&r[5]);
		v_container(&f[10], PM_AVRO_RECORD, r, 6, 1);
	} else
		v_null(&f[10]);
	return 0;
}

/* ============================================================= decoding */

/* Reading context: names the file and record in errors. */
typedef struct rctx {
	const char *what;
	int64_t rec;
} rctx;

static int bad(const rctx *c, const char *field, const char *msg)
{
	return pm_err(PAIMON_ECORRUPT, "%s: record %lld: field %s: %s", c->what, (long long)c->rec, field, msg);
}

static int kind_err(const rctx *c, const char *field, const char *want, const pm_avro_value *v)
{
	char msg[128];
	snprintf(msg, sizeof msg, "expected %s, found %s", want, pm_avro_kind_name(v->kind));
	return bad(c, field, msg);
}

/* Field idx of a decoded writer record (null value for -1). */
static const pm_avro_value *fv(const pm_avro_value *rec, int idx)
{
	if (idx < 0 || (size_t)idx >= rec->u.c.n)
		return &pm_avro_null_value;
	return &rec->u.c.items[idx];
}

/* Returns 1 with *out set, 0 for null (error if required), or < 0. */
static int get_long(const rctx *c, const pm_avro_value *v, const char *field, int required, int64_t *out)
{
	if (v->kind == PM_AVRO_NULL) {
		if (required)
			return bad(c, field, "missing or null");
		return 0;
	}
	if (v->kind == PM_AVRO_LONG)
		*out = v->u.l;
	else if (v->kind == PM_AVRO_INT)
		*out = v->u.i;
	else
		return kind_err(c, field, "long", v);
	return 1;
}

static int get_int(const rctx *c, const pm_avro_value *v, const char *field, int required, int32_t *out)
{
	int64_t l = 0;
	int rc = get_long(c, v, field, required, &l);
	if (rc <= 0)
		return rc;
	if (l < INT32_MIN || l > INT32_MAX)
		return bad(c, field, "value out of int range");
	*out = (int32_t)l;
	return 1;
}

static int get_bytes(const rctx *c, const pm_avro_value *v, const char *field, int required, pm_bytes *out)
{
	if (v->kind == PM_AVRO_NULL) {
		if (required)
			return bad(c, field, "missing or null");
		return 0;
	}
	if (v->kind != PM_AVRO_BYTES && v->kind != PM_AVRO_FIXED)
		return kind_err(c, field, "bytes", v);
	if (pm_bytes_set(out, v->u.bytes.p, v->u.bytes.n))
		return PAIMON_ENOMEM;
	return 1;
}

/* A serialized BinaryRow with arity prefix: at least the prefix, a sane
 * arity and room for the header and fixed part. */
static int check_row(const rctx *c, const char *field, const pm_bytes *b)
{
	int32_t arity;
	if (b->n < 4 || pm_binrow_arity(b->p, b->n, &arity))
		return bad(c, field, "serialized row shorter than its 4-byte arity");
	if (arity < 0 || (uint64_t)(b->n - 4) < pm_binrow_null_bytes((size_t)arity) + 8 * (uint64_t)arity)
		return bad(c, field, "serialized row too short for its arity");
	return 0;
}

static int get_row(const rctx *c, const pm_avro_value *v, const char *field, pm_bytes *out)
{
	int rc = get_bytes(c, v, field, 1, out);
	if (rc < 0)
		return rc;
	return check_row(c, field, out);
}

static int get_str(const rctx *c, const pm_avro_value *v, const char *field, int required, char **out)
{
	if (v->kind == PM_AVRO_NULL) {
		if (required)
			return bad(c, field, "missing or null");
		return 0;
	}
	if (v->kind != PM_AVRO_STRING && v->kind != PM_AVRO_BYTES)
		return kind_err(c, field, "string", v);
	if (memchr(v->u.bytes.p, 0, v->u.bytes.n))
		return bad(c, field, "string contains a NUL byte");
	if (!(*out = pm_strndup((const char *)v->u.bytes.p, v->u.bytes.n)))
		return PAIMON_ENOMEM;
	return 1;
}

static int get_strlist(const rctx *c, const pm_avro_value *v, const char *field, int required, pm_strlist *out)
{
	size_t i;
	if (v->kind == PM_AVRO_NULL) {
		if (required)
			return bad(c, field, "missing or null");
		return 0;
	}
	if (v->kind != PM_AVRO_ARRAY)
		return kind_err(c, field, "array of strings", v);
	for (i = 0; i < v->u.c.n; i++) {
		const pm_avro_value *it = &v->u.c.items[i];
		if (it->kind != PM_AVRO_STRING)
			return kind_err(c, field, "string items", it);
		if (memchr(it->u.bytes.p, 0, it->u.bytes.n))
			return bad(c, field, "string contains a NUL byte");
		if (pm_strlist_push_n(out, (const char *)it->u.bytes.p, it->u.bytes.n))
			return PAIMON_ENOMEM;
	}
	return 1;
}

static int get_longs(const rctx *c, const pm_avro_value *v, const char *field, int64_t **out, size_t *n,
		     int nullable_items)
{
	size_t i;
	if (v->kind == PM_AVRO_NULL)
		return 0;
	if (v->kind != PM_AVRO_ARRAY)
		return kind_err(c, field, "array", v);
	*n = 0;
	if (v->u.c.n) {
		if (!(*out = pm_malloc(v->u.c.n * sizeof **out)))
			return PAIMON_ENOMEM;
	}
	for (i = 0; i < v->u.c.n; i++) {
		const pm_avro_value *it = &v->u.c.items[i];
		if (it->kind == PM_AVRO_NULL && nullable_items)
			(*out)[i] = -1;
		else if (it->kind == PM_AVRO_LONG)
			(*out)[i] = it->u.l;
		else if (it->kind == PM_AVRO_INT)
			(*out)[i] = it->u.i;
		else
			return kind_err(c, field, "long items", it);
		*n = i + 1;
	}
	return 1;
}

/* Finds the record schema of a field (directly or as a union branch). */
static const pm_avro_node *record_of(const pm_avro_node *rec, const char *name, int *idx)
{
	const pm_avro_node *t;
	size_t i;
	*idx = pm_avro_field_index(rec, name);
	if (*idx < 0)
		return NULL;
	t = rec->children[*idx];
	if (t->kind == PM_AVRO_RECORD)
		return t;
	if (t->kind == PM_AVRO_UNION)
		for (i = 0; i < t->n; i++)
			if (t->children[i]->kind == PM_AVRO_RECORD)
				return t->children[i];
	return NULL;
}

/* A record value that must have been decoded with schema `node`. */
static int get_record(const rctx *c, const pm_avro_value *v, const pm_avro_node *node, const char *field,
		      int required, const pm_avro_value **out)
{
	if (v->kind == PM_AVRO_NULL) {
		if (required)
			return bad(c, field, "missing or null");
		return 0;
	}
	if (v->kind != PM_AVRO_RECORD || v->schema != node)
		return kind_err(c, field, "record", v);
	*out = v;
	return 1;
}

/* --------------------------------------------------------- SimpleStats */
typedef struct stats_layout {
	const pm_avro_node *node;
	int min, max, nulls;
} stats_layout;

static void stats_layout_init(stats_layout *l, const pm_avro_node *node)
{
	l->node = node;
	l->min = node ? pm_avro_field_index(node, "_MIN_VALUES") : -1;
	l->max = node ? pm_avro_field_index(node, "_MAX_VALUES") : -1;
	l->nulls = node ? pm_avro_field_index(node, "_NULL_COUNTS") : -1;
}

/* The field's name and its sub-field names, for messages: literals, so reading
 * a stats record formats nothing (snprintf here was ~18% of planning). */
#define STATS_NAMES(f) f, f "._MIN_VALUES", f "._MAX_VALUES", f "._NULL_COUNTS"

static int get_stats(const rctx *c, const stats_layout *l, const pm_avro_value *v, const char *field,
		     const char *min_name, const char *max_name, const char *nulls_name, pm_simple_stats *s)
{
	const pm_avro_value *r = NULL;
	const pm_avro_value *nc;
	int rc = get_record(c, v, l->node, field, 1, &r);
	if (rc < 0)
		return rc;
	if ((rc = get_row(c, fv(r, l->min), min_name, &s->min_values)) < 0)
		return rc;
	if ((rc = get_row(c, fv(r, l->max), max_name, &s->max_values)) < 0)
		return rc;
	nc = fv(r, l->nulls);
	if ((rc = get_longs(c, nc, nulls_name, &s->null_counts, &s->n_null_counts, 1)) < 0)
		return rc;
	s->has_null_counts = rc;
	return 0;
}

/* ------------------------------------------------------ manifest entry */
static const char *const ENTRY_FIELDS[] = {"_VERSION", "_KIND", "_PARTITION", "_BUCKET", "_TOTAL_BUCKETS"};
enum { E_VERSION, E_KIND, E_PARTITION, E_BUCKET, E_TOTAL_BUCKETS, E_N };

static const char *const FILE_FIELDS[N_FILE_FIELDS] = {
	"_FILE_NAME", "_FILE_SIZE", "_ROW_COUNT", "_MIN_KEY", "_MAX_KEY", "_KEY_STATS", "_VALUE_STATS",
	"_MIN_SEQUENCE_NUMBER", "_MAX_SEQUENCE_NUMBER", "_SCHEMA_ID", "_LEVEL", "_EXTRA_FILES",
	"_CREATION_TIME", "_DELETE_ROW_COUNT", "_EMBEDDED_FILE_INDEX", "_FILE_SOURCE", "_VALUE_STATS_COLS",
	"_EXTERNAL_PATH", "_FIRST_ROW_ID", "_WRITE_COLS", "_WRITE_COLS_SEQUENCES"};
enum {
	F_FILE_NAME, F_FILE_SIZE, F_ROW_COUNT, F_MIN_KEY, F_MAX_KEY, F_KEY_STATS, F_VALUE_STATS, F_MIN_SEQ,
	F_MAX_SEQ, F_SCHEMA_ID, F_LEVEL, F_EXTRA_FILES, F_CREATION_TIME, F_DELETE_ROW_COUNT, F_EMBEDDED_INDEX,
	F_FILE_SOURCE, F_VALUE_STATS_COLS, F_EXTERNAL_PATH, F_FIRST_ROW_ID, F_WRITE_COLS, F_WRITE_COLS_SEQ
};

typedef struct entry_layout {
	int e[E_N];
	int file;
	const pm_avro_node *file_node;
	int f[N_FILE_FIELDS];
	stats_layout ks, vs;
} entry_layout;

static int entry_layout_init(void *lp, const pm_avro_node *root, const char *what)
{
	entry_layout *l = lp;
	size_t i;
	int dummy;
	memset(l, 0, sizeof *l);
	if (root->kind != PM_AVRO_RECORD)
		return pm_err(PAIMON_ECORRUPT, "%s: manifest schema is not a record", what);
	for (i = 0; i < E_N; i++)
		l->e[i] = pm_avro_field_index(root, ENTRY_FIELDS[i]);
	l->file_node = record_of(root, "_FILE", &l->file);
	if (!l->file_node)
		return pm_err(PAIMON_ECORRUPT, "%s: manifest schema has no _FILE record", what);
	for (i = 0; i < N_FILE_FIELDS; i++)
		l->f[i] = pm_avro_field_index(l->file_node, FILE_FIELDS[i]);
	stats_layout_init(&l->ks, record_of(l->file_node, "_KEY_STATS", &dummy));
	stats_layout_init(&l->vs, record_of(l->file_node, "_VALUE_STATS", &dummy));
	return 0;
}

static int check_version(const rctx *c, const pm_avro_value *v, int want)
{
	int32_t ver = 0;
	int rc = get_int(c, v, "_VERSION", 1, &ver);
	if (rc < 0)
		return rc;
	if (ver == want)
		return 0;
	if (want == PM_MANIFEST_VERSION && ver == 1)
		return pm_err(PAIMON_ECORRUPT,
			      "%s: record %lld: _VERSION 1 is no longer supported; recreate the table with a newer Paimon",
			      c->what, (long long)c->rec);
	return pm_err(PAIMON_ECORRUPT, "%s: record %lld: unsupported _VERSION %d (expected %d)", c->what,
		      (long long)c->rec, (int)ver, want);
}

static int get_kind(const rctx *c, const pm_avro_value *v, int *kind)
{
	int32_t k = 0;
	int rc = get_int(c, v, "_KIND", 1, &k);
	if (rc < 0)
		return rc;
	if (k != PM_FILE_KIND_ADD && k != PM_FILE_KIND_DELETE)
		return bad(c, "_KIND", "unknown file kind");
	*kind = k;
	return 0;
}

static int entry_from_value(const rctx *c, const void *lp, const pm_avro_value *rec, void *item)
{
	const entry_layout *l = lp;
	pm_manifest_entry *e = item;
	const pm_avro_value *f = NULL;
	pm_data_file_meta *d = &e->file;
	int rc;
	int64_t x;
	if ((rc = check_version(c, fv(rec, l->e[E_VERSION]), PM_MANIFEST_VERSION)) ||
	    (rc = get_kind(c, fv(rec, l->e[E_KIND]), &e->kind)))
		return rc;
	if ((rc = get_row(c, fv(rec, l->e[E_PARTITION]), "_PARTITION", &e->partition)) < 0 ||
	    (rc = get_int(c, fv(rec, l->e[E_BUCKET]), "_BUCKET", 1, &e->bucket)) < 0 ||
	    (rc = get_int(c, fv(rec, l->e[E_TOTAL_BUCKETS]), "_TOTAL_BUCKETS", 1, &e->total_buckets)) < 0 ||
	    (rc = get_record(c, fv(rec, l->file), l->file_node, "_FILE", 1, &f)) < 0)
		return rc;
#define FF(i) fv(f, l->f[i])
	if ((rc = get_str(c, FF(F_FILE_NAME), "_FILE._FILE_NAME", 1, &d->file_name)) < 0 ||
	    (rc = get_long(c, FF(F_FILE_SIZE), "_FILE._FILE_SIZE", 1, &d->file_size)) < 0 ||
	    (rc = get_long(c, FF(F_ROW_COUNT), "_FILE._ROW_COUNT", 1, &d->row_count)) < 0 ||
	    (rc = get_row(c, FF(F_MIN_KEY), "_FILE._MIN_KEY", &d->min_key)) < 0 ||
	    (rc = get_row(c, FF(F_MAX_KEY), "_FILE._MAX_KEY", &d->max_key)) < 0 ||
	    (rc = get_stats(c, &l->ks, FF(F_KEY_STATS), STATS_NAMES("_FILE._KEY_STATS"), &d->key_stats)) < 0 ||
	    (rc = get_stats(c, &l->vs, FF(F_VALUE_STATS), STATS_NAMES("_FILE._VALUE_STATS"), &d->value_stats)) < 0 ||
	    (rc = get_long(c, FF(F_MIN_SEQ), "_FILE._MIN_SEQUENCE_NUMBER", 1, &d->min_sequence_number)) < 0 ||
	    (rc = get_long(c, FF(F_MAX_SEQ), "_FILE._MAX_SEQUENCE_NUMBER", 1, &d->max_sequence_number)) < 0 ||
	    (rc = get_long(c, FF(F_SCHEMA_ID), "_FILE._SCHEMA_ID", 1, &d->schema_id)) < 0 ||
	    (rc = get_int(c, FF(F_LEVEL), "_FILE._LEVEL", 1, &d->level)) < 0 ||
	    (rc = get_strlist(c, FF(F_EXTRA_FILES), "_FILE._EXTRA_FILES", 1, &d->extra_files)) < 0)
		return rc;
	if ((rc = get_long(c, FF(F_CREATION_TIME), "_FILE._CREATION_TIME", 0, &d->creation_time)) < 0)
		return rc;
	d->has_creation_time = rc;
	if ((rc = get_long(c, FF(F_DELETE_ROW_COUNT), "_FILE._DELETE_ROW_COUNT", 0, &d->delete_row_count)) < 0)
		return rc;
	d->has_delete_row_count = rc;
	if ((rc = get_bytes(c, FF(F_EMBEDDED_INDEX), "_FILE._EMBEDDED_FILE_INDEX", 0, &d->embedded_file_index)) < 0)
		return rc;
	d->has_embedded_file_index = rc;
	if ((rc = get_int(c, FF(F_FILE_SOURCE), "_FILE._FILE_SOURCE", 0, &d->file_source)) < 0)
		return rc;
	d->has_file_source = rc;
	if (rc && d->file_source != PM_FILE_SOURCE_APPEND && d->file_source != PM_FILE_SOURCE_COMPACT)
		return bad(c, "_FILE._FILE_SOURCE", "unknown file source");
	if ((rc = get_strlist(c, FF(F_VALUE_STATS_COLS), "_FILE._VALUE_STATS_COLS", 0, &d->value_stats_cols)) < 0)
		return rc;
	d->has_value_stats_cols = rc;
	if ((rc = get_str(c, FF(F_EXTERNAL_PATH), "_FILE._EXTERNAL_PATH", 0, &d->external_path)) < 0)
		return rc;
	x = 0;
	if ((rc = get_long(c, FF(F_FIRST_ROW_ID), "_FILE._FIRST_ROW_ID", 0, &x)) < 0)
		return rc;
	d->has_first_row_id = rc;
	d->first_row_id = x;
	if ((rc = get_strlist(c, FF(F_WRITE_COLS), "_FILE._WRITE_COLS", 0, &d->write_cols)) < 0)
		return rc;
	d->has_write_cols = rc;
	if ((rc = get_longs(c, FF(F_WRITE_COLS_SEQ), "_FILE._WRITE_COLS_SEQUENCES", &d->write_cols_sequences,
			    &d->n_write_cols_sequences, 0)) < 0)
		return rc;
	d->has_write_cols_sequences = rc;
#undef FF
	return 0;
}

/* ------------------------------------------------- manifest-list record */
static const char *const LIST_FIELDS[] = {
	"_VERSION", "_FILE_NAME", "_FILE_SIZE", "_NUM_ADDED_FILES", "_NUM_DELETED_FILES", "_PARTITION_STATS",
	"_SCHEMA_ID", "_MIN_BUCKET", "_MAX_BUCKET", "_MIN_LEVEL", "_MAX_LEVEL", "_MIN_ROW_ID", "_MAX_ROW_ID"};
enum { L_VERSION, L_FILE_NAME, L_FILE_SIZE, L_ADDED, L_DELETED, L_STATS, L_SCHEMA_ID, L_MIN_BUCKET,
       L_MAX_BUCKET, L_MIN_LEVEL, L_MAX_LEVEL, L_MIN_ROW_ID, L_MAX_ROW_ID, L_N };

typedef struct list_layout {
	int f[L_N];
	stats_layout ps;
} list_layout;

static int list_layout_init(void *lp, const pm_avro_node *root, const char *what)
{
	list_layout *l = lp;
	size_t i;
	int dummy;
	memset(l, 0, sizeof *l);
	if (root->kind != PM_AVRO_RECORD)
		return pm_err(PAIMON_ECORRUPT, "%s: manifest list schema is not a record", what);
	for (i = 0; i < L_N; i++)
		l->f[i] = pm_avro_field_index(root, LIST_FIELDS[i]);
	stats_layout_init(&l->ps, record_of(root, "_PARTITION_STATS", &dummy));
	return 0;
}

static int list_from_value(const rctx *c, const void *lp, const pm_avro_value *rec, void *item)
{
	const list_layout *l = lp;
	pm_manifest_file_meta *m = item;
	int rc;
	if ((rc = check_version(c, fv(rec, l->f[L_VERSION]), PM_MANIFEST_VERSION)))
		return rc;
	if ((rc = get_str(c, fv(rec, l->f[L_FILE_NAME]), "_FILE_NAME", 1, &m->file_name)) < 0 ||
	    (rc = get_long(c, fv(rec, l->f[L_FILE_SIZE]), "_FILE_SIZE", 1, &m->file_size)) < 0 ||
	    (rc = get_long(c, fv(rec, l->f[L_ADDED]), "_NUM_ADDED_FILES", 1, &m->num_added_files)) < 0 ||
	    (rc = get_long(c, fv(rec, l->f[L_DELETED]), "_NUM_DELETED_FILES", 1, &m->num_deleted_files)) < 0 ||
	    (rc = get_stats(c, &l->ps, fv(rec, l->f[L_STATS]), STATS_NAMES("_PARTITION_STATS"),
			      &m->partition_stats)) < 0 ||
	    (rc = get_long(c, fv(rec, l->f[L_SCHEMA_ID]), "_SCHEMA_ID", 1, &m->schema_id)) < 0)
		return rc;
	if ((rc = get_int(c, fv(rec, l->f[L_MIN_BUCKET]), "_MIN_BUCKET", 0, &m->min_bucket)) < 0)
		return rc;
	m->has_min_bucket = rc;
	if ((rc = get_int(c, fv(rec, l->f[L_MAX_BUCKET]), "_MAX_BUCKET", 0, &m->max_bucket)) < 0)
		return rc;
	m->has_max_bucket = rc;
	if ((rc = get_int(c, fv(rec, l->f[L_MIN_LEVEL]), "_MIN_LEVEL", 0, &m->min_level)) < 0)
		return rc;
	m->has_min_level = rc;
	if ((rc = get_int(c, fv(rec, l->f[L_MAX_LEVEL]), "_MAX_LEVEL", 0, &m->max_level)) < 0)
		return rc;
	m->has_max_level = rc;
	if ((rc = get_long(c, fv(rec, l->f[L_MIN_ROW_ID]), "_MIN_ROW_ID", 0, &m->min_row_id)) < 0)
		return rc;
	m->has_min_row_id = rc;
	if ((rc = get_long(c, fv(rec, l->f[L_MAX_ROW_ID]), "_MAX_ROW_ID", 0, &m->max_row_id)) < 0)
		return rc;
	m->has_max_row_id = rc;
	return 0;
}

/* ------------------------------------------------- index manifest entry */
static const char *const INDEX_FIELDS[] = {
	"_VERSION", "_KIND", "_PARTITION", "_BUCKET", "_INDEX_TYPE", "_FILE_NAME", "_FILE_SIZE", "_ROW_COUNT",
	"_DELETIONS_VECTORS_RANGES", "_EXTERNAL_PATH", "_GLOBAL_INDEX"};
enum { I_VERSION, I_KIND, I_PARTITION, I_BUCKET, I_INDEX_TYPE, I_FILE_NAME, I_FILE_SIZE, I_ROW_COUNT, I_DV,
       I_EXTERNAL_PATH, I_GLOBAL, I_N };

typedef struct index_layout {
	int f[I_N];
	const pm_avro_node *dv_node; /* range record */
	int dv[4];
	const pm_avro_node *g_node;
	int g[6];
} index_layout;

static int index_layout_init(void *lp, const pm_avro_node *root, const char *what)
{
	static const char *const dvf[] = {"f0", "f1", "f2", "_CARDINALITY"};
	static const char *const gf[] = {"_ROW_RANGE_START", "_ROW_RANGE_END", "_INDEX_FIELD_ID",
					 "_EXTRA_FIELD_IDS", "_INDEX_META", "_SOURCE_META"};
	index_layout *l = lp;
	size_t i;
	int dummy;
	memset(l, 0, sizeof *l);
	if (root->kind != PM_AVRO_RECORD)
		return pm_err(PAIMON_ECORRUPT, "%s: index manifest schema is not a record", what);
	for (i = 0; i < I_N; i++)
		l->f[i] = pm_avro_field_index(root, INDEX_FIELDS[i]);
	l->dv_node = NULL;
	if (l->f[I_DV] >= 0) {
		/* ["null", array<["null", record]>] or array<record> */
		const pm_avro_node *t = root->children[l->f[I_DV]];
		if (t->kind == PM_AVRO_UNION)
			for (i = 0; i < t->n; i++)
				if (t->children[i]->kind == PM_AVRO_ARRAY) {
					t = t->children[i];
					break;
				}
		if (t->kind == PM_AVRO_ARRAY) {
			t = t->items;
			if (t->kind == PM_AVRO_UNION) {
				const pm_avro_node *u = t;
				t = NULL;
				for (i = 0; i < u->n; i++)
					if (u->children[i]->kind == PM_AVRO_RECORD)
						t = u->children[i];
			}
			if (t && t->kind == PM_AVRO_RECORD)
				l->dv_node = t;
		}
	}
	for (i = 0; i < 4; i++)
		l->dv[i] = l->dv_node ? pm_avro_field_index(l->dv_node, dvf[i]) : -1;
	l->g_node = record_of(root, "_GLOBAL_INDEX", &dummy);
	for (i = 0; i < 6; i++)
		l->g[i] = l->g_node ? pm_avro_field_index(l->g_node, gf[i]) : -1;
	return 0;
}

static int index_from_value(const rctx *c, const void *lp, const pm_avro_value *rec, void *item)
{
	const index_layout *l = lp;
	pm_index_manifest_entry *e = item;
	const pm_avro_value *v;
	int rc;
	size_t i;
	if ((rc = check_version(c, fv(rec, l->f[I_VERSION]), PM_INDEX_MANIFEST_VERSION)) ||
	    (rc = get_kind(c, fv(rec, l->f[I_KIND]), &e->kind)))
		return rc;
	if ((rc = get_row(c, fv(rec, l->f[I_PARTITION]), "_PARTITION", &e->partition)) < 0 ||
	    (rc = get_int(c, fv(rec, l->f[I_BUCKET]), "_BUCKET", 1, &e->bucket)) < 0 ||
	    (rc = get_str(c, fv(rec, l->f[I_INDEX_TYPE]), "_INDEX_TYPE", 1, &e->index_type)) < 0 ||
	    (rc = get_str(c, fv(rec, l->f[I_FILE_NAME]), "_FILE_NAME", 1, &e->file_name)) < 0 ||
	    (rc = get_long(c, fv(rec, l->f[I_FILE_SIZE]), "_FILE_SIZE", 1, &e->file_size)) < 0 ||
	    (rc = get_long(c, fv(rec, l->f[I_ROW_COUNT]), "_ROW_COUNT", 1, &e->row_count)) < 0 ||
	    (rc = get_str(c, fv(rec, l->f[I_EXTERNAL_PATH]), "_EXTERNAL_PATH", 0, &e->external_path)) < 0)
		return rc;
	v = fv(rec, l->f[I_DV]);
	if (v->kind != PM_AVRO_NULL) {
		if (v->kind != PM_AVRO_ARRAY)
			return kind_err(c, "_DELETIONS_VECTORS_RANGES", "array", v);
		e->has_dv_ranges = 1;
		if (v->u.c.n && !(e->dv_ranges = pm_calloc(v->u.c.n, sizeof *e->dv_ranges)))
			return PAIMON_ENOMEM;
		for (i = 0; i < v->u.c.n; i++) {
			const pm_avro_value *r = NULL;
			pm_dv_range *d = &e->dv_ranges[i];
			e->n_dv_ranges = i + 1;
			if ((rc = get_record(c, &v->u.c.items[i], l->dv_node, "_DELETIONS_VECTORS_RANGES", 1, &r)) < 0 ||
			    (rc = get_str(c, fv(r, l->dv[0]), "_DELETIONS_VECTORS_RANGES.f0", 1, &d->data_file)) < 0 ||
			    (rc = get_int(c, fv(r, l->dv[1]), "_DELETIONS_VECTORS_RANGES.f1", 1, &d->offset)) < 0 ||
			    (rc = get_int(c, fv(r, l->dv[2]), "_DELETIONS_VECTORS_RANGES.f2", 1, &d->length)) < 0 ||
			    (rc = get_long(c, fv(r, l->dv[3]), "_DELETIONS_VECTORS_RANGES._CARDINALITY", 0,
					   &d->cardinality)) < 0)
				return rc;
			d->has_cardinality = rc;
		}
	}
	v = fv(rec, l->f[I_GLOBAL]);
	if (v->kind != PM_AVRO_NULL) {
		const pm_avro_value *r = NULL;
		pm_global_index_meta *g = &e->global_index;
		int64_t *ids = NULL;
		size_t nids = 0;
		if ((rc = get_record(c, v, l->g_node, "_GLOBAL_INDEX", 1, &r)) < 0)
			return rc;
		e->has_global_index = 1;
		if ((rc = get_long(c, fv(r, l->g[0]), "_GLOBAL_INDEX._ROW_RANGE_START", 1, &g->row_range_start)) < 0 ||
		    (rc = get_long(c, fv(r, l->g[1]), "_GLOBAL_INDEX._ROW_RANGE_END", 1, &g->row_range_end)) < 0 ||
		    (rc = get_int(c, fv(r, l->g[2]), "_GLOBAL_INDEX._INDEX_FIELD_ID", 1, &g->index_field_id)) < 0)
			return rc;
		rc = get_longs(c, fv(r, l->g[3]), "_GLOBAL_INDEX._EXTRA_FIELD_IDS", &ids, &nids, 0);
		if (rc > 0) {
			g->has_extra_field_ids = 1;
			if (nids && !(g->extra_field_ids = pm_malloc(nids * sizeof *g->extra_field_ids)))
				rc = PAIMON_ENOMEM;
			for (i = 0; rc > 0 && i < nids; i++) {
				if (ids[i] < INT32_MIN || ids[i] > INT32_MAX)
					rc = bad(c, "_GLOBAL_INDEX._EXTRA_FIELD_IDS", "value out of int range");
				else
					g->extra_field_ids[i] = (int32_t)ids[i];
			}
			g->n_extra_field_ids = rc > 0 ? nids : 0;
		}
		pm_free(ids);
		if (rc < 0)
			return rc;
		if ((rc = get_bytes(c, fv(r, l->g[4]), "_GLOBAL_INDEX._INDEX_META", 0, &g->index_meta)) < 0)
			return rc;
		g->has_index_meta = rc;
		if ((rc = get_bytes(c, fv(r, l->g[5]), "_GLOBAL_INDEX._SOURCE_META", 0, &g->source_meta)) < 0)
			return rc;
		g->has_source_meta = rc;
	}
	return 0;
}

/* ============================================================== reading */

/* One kind of manifest file: its schema layout, and how a record becomes an item. */
typedef struct rec_kind {
	size_t item_size;
	int (*layout_init)(void *layout, const pm_avro_node *root, const char *what);
	int (*from_value)(const rctx *c, const void *layout, const pm_avro_value *rec, void *item);
	void (*dispose)(void *item);
} rec_kind;

static const rec_kind ENTRY_KIND = {sizeof(pm_manifest_entry), entry_layout_init, entry_from_value,
				    entry_dispose_v};
static const rec_kind LIST_KIND = {sizeof(pm_manifest_file_meta), list_layout_init, list_from_value,
				   list_dispose_v};
static const rec_kind INDEX_KIND = {sizeof(pm_index_manifest_entry), index_layout_init, index_from_value,
				    index_dispose_v};

/* Rolls a list back to `start` items; if it was unallocated before, frees
 * the array too, so a failed call leaves the caller's list exactly as it was. */
static void rollback(rec_list l, const rec_kind *k, size_t start, size_t start_cap)
{
	while (*l.len > start)
		k->dispose((char *)*l.items + --*l.len * k->item_size);
	if (!start_cap) {
		pm_free(*l.items);
		*l.items = NULL;
		*l.cap = 0;
	}
}

/*
 * Appends every record of r, read by field name through k, to out; *count
 * (may be NULL) = the records read. On failure out is as it was and the
 * error names `what` (the file).
 */
static int read_records(pm_avro_reader *r, const rec_kind *k, const char *what, rec_list out, int64_t *count)
{
	union {
		entry_layout e;
		list_layout l;
		index_layout i;
	} layout;
	rctx c = {what, 0};
	const pm_avro_value *rec;
	size_t start = *out.len, start_cap = *out.cap;
	int rc;
	if ((rc = k->layout_init(&layout, pm_avro_schema_root(pm_avro_reader_schema(r)), what)))
		return rc;
	while ((rc = pm_avro_reader_next(r, &rec)) == 1) {
		void *item = grow_push(out, k->item_size);
		if (!item) {
			rc = PAIMON_ENOMEM;
			break;
		}
		if ((rc = k->from_value(&c, &layout, rec, item))) {
			k->dispose(item);
			(*out.len)--;
			break;
		}
		c.rec++;
	}
	if (rc < 0) {
		if (rc != PAIMON_ENOMEM && !strstr(paimon_error_message(), what))
			pm_err_wrap("%s", what);
		rollback(out, k, start, start_cap);
		return rc;
	}
	if (count)
		*count = c.rec;
	return 0;
}

static int read_any(pm_avro_reader *r, const rec_kind *k, const char *what, rec_list out)
{
	int rc = read_records(r, k, what, out, NULL);
	pm_avro_reader_free(r);
	return rc;
}

static int read_mem(const rec_kind *k, const char *what, const void *data, size_t len, rec_list out)
{
	pm_avro_reader *r;
	int rc;
	if (!what)
		what = "manifest";
	if ((rc = pm_avro_reader_open_mem(data, len, &r)))
		return pm_err_wrap("%s", what);
	return read_any(r, k, what, out);
}

static int read_file(const rec_kind *k, pm_fileio *io, const char *table_path, const char *file_name,
		     rec_list out)
{
	char *dir = pm_manifest_dir(table_path), *path;
	pm_avro_reader *r;
	int rc;
	if (!dir)
		return PAIMON_ENOMEM;
	path = pm_path_join(dir, file_name);
	pm_free(dir);
	if (!path)
		return PAIMON_ENOMEM;
	if ((rc = pm_avro_reader_open(io, path, &r))) {
		if (!strstr(paimon_error_message(), path))
			pm_err_wrap("%s", path);
		pm_free(path);
		return rc;
	}
	rc = read_any(r, k, path, out);
	pm_free(path);
	return rc;
}

int pm_manifest_read(pm_fileio *io, const char *table_path, const char *file_name, pm_manifest_entry_list *out)
{
	return read_file(&ENTRY_KIND, io, table_path, file_name, REC_LIST(out));
}

int pm_manifest_read_mem(const char *what, const void *data, size_t len, pm_manifest_entry_list *out)
{
	return read_mem(&ENTRY_KIND, what, data, len, REC_LIST(out));
}

int pm_manifest_list_read(pm_fileio *io, const char *table_path, const char *file_name,
			  pm_manifest_file_meta_list *out)
{
	return read_file(&LIST_KIND, io, table_path, file_name, REC_LIST(out));
}

int pm_manifest_list_read_mem(const char *what, const void *data, size_t len, pm_manifest_file_meta_list *out)
{
	return read_mem(&LIST_KIND, what, data, len, REC_LIST(out));
}

int pm_index_manifest_read(pm_fileio *io, const char *table_path, const char *file_name,
			   pm_index_manifest_entry_list *out)
{
	return read_file(&INDEX_KIND, io, table_path, file_name, REC_LIST(out));
}

int pm_index_manifest_read_mem(const char *what, const void *data, size_t len, pm_index_manifest_entry_list *out)
{
	return read_mem(&INDEX_KIND, what, data, len, REC_LIST(out));
}

/* ============================================================== writing */

/* Finishes w into a buffer and publishes it (no overwrite). */
static int publish(pm_fileio *io, pm_avro_writer *w, const char *path, int64_t *size)
{
	pm_buf b = PM_BUF_INIT;
	int rc = pm_avro_writer_finish(w, &b);
	if (!rc)
		rc = pm_fileio_write_new_atomic(io, path, b.data, b.len);
	if (!rc && size)
		*size = (int64_t)b.len;
	pm_buf_dispose(&b);
	return rc;
}

/* "<table>/manifest/<name>" for the namer's next name of kind; makes the dir. */
static int next_path(pm_fileio *io, const char *table_path, pm_manifest_namer *namer, const char *kind,
		     pm_buf *name, char **path)
{
	char *dir;
	int rc;
	*path = NULL;
	if ((rc = pm_manifest_namer_next(namer, kind, name)))
		return rc;
	if (!(dir = pm_manifest_dir(table_path)))
		return PAIMON_ENOMEM;
	if ((rc = pm_fileio_mkdirs(io, dir))) {
		pm_free(dir);
		return rc;
	}
	*path = pm_path_join(dir, name->data);
	pm_free(dir);
	return *path ? 0 : PAIMON_ENOMEM;
}

/* Partition statistics over entries[0..n) (Java's partition stats
 * collector, full precision): per field min, max and null count. */
static int partition_stats(const pm_type *ptype, const pm_manifest_entry *entries, size_t n, pm_simple_stats *s)
{
	size_t arity = ptype ? ptype->nfields : 0, i, k;
	const pm_type **types = NULL;
	pm_binrow_datum *vals = NULL, *mins = NULL, *maxs = NULL;
	pm_buf b = PM_BUF_INIT;
	int rc = 0;
	if (!arity)
		return pm_simple_stats_empty(s);
	memset(s, 0, sizeof *s);
	types = pm_calloc(arity, sizeof *types);
	vals = pm_calloc(arity * 3, sizeof *vals);
	s->null_counts = pm_calloc(arity, sizeof *s->null_counts);
	if (!types || !vals || !s->null_counts) {
		rc = PAIMON_ENOMEM;
		goto out;
	}
	mins = vals + arity;
	maxs = vals + 2 * arity;
	s->n_null_counts = arity;
	s->has_null_counts = 1;
	for (k = 0; k < arity; k++) {
		types[k] = ptype->fields[k].type;
		mins[k].is_null = maxs[k].is_null = 1;
	}
	for (i = 0; i < n; i++) {
		const pm_manifest_entry *e = &entries[i];
		if ((rc = pm_binrow_decode(e->partition.p, e->partition.n, types, arity, 1, vals, NULL))) {
			pm_err_wrap("partition of manifest entry for file %s",
				    e->file.file_name ? e->file.file_name : "?");
			goto out;
		}
		for (k = 0; k < arity; k++) {
			if (vals[k].is_null) {
				s->null_counts[k]++;
				continue;
			}
			if (!pm_datum_type_comparable(types[k]))
				continue;
			if (mins[k].is_null || pm_datum_compare(types[k], &vals[k], &mins[k]) < 0)
				mins[k] = vals[k];
			if (maxs[k].is_null || pm_datum_compare(types[k], &vals[k], &maxs[k]) > 0)
				maxs[k] = vals[k];
		}
	}
	if ((rc = pm_binrow_encode(types, mins, arity, 0, 1, &b)) ||
	    (rc = pm_bytes_set(&s->min_values, b.data, b.len)))
		goto out;
	pm_buf_clear(&b);
	if ((rc = pm_binrow_encode(types, maxs, arity, 0, 1, &b)) ||
	    (rc = pm_bytes_set(&s->max_values, b.data, b.len)))
		goto out;
out:
	pm_buf_dispose(&b);
	pm_free(types);
	pm_free(vals);
	if (rc)
		pm_simple_stats_dispose(s);
	return rc;
}

/* The manifest-list record for entries[0..n) written to name/size. */
static int file_meta_for(const pm_type *ptype, const pm_manifest_entry *entries, size_t n, const char *name,
			 int64_t size, pm_manifest_file_meta *m)
{
	size_t i;
	int rc, row_ids = 1;
	memset(m, 0, sizeof *m);
	if (!(m->file_name = pm_strdup(name)))
		return PAIMON_ENOMEM;
	m->file_size = size;
	m->schema_id = INT64_MIN;
	for (i = 0; i < n; i++) {
		const pm_manifest_entry *e = &entries[i];
		const pm_data_file_meta *f = &e->file;
		if (e->kind == PM_FILE_KIND_ADD)
			m->num_added_files++;
		else
			m->num_deleted_files++;
		if (f->schema_id > m->schema_id)
			m->schema_id = f->schema_id;
		if (!i || e->bucket < m->min_bucket)
			m->min_bucket = e->bucket;
		if (!i || e->bucket > m->max_bucket)
			m->max_bucket = e->bucket;
		if (!i || f->level < m->min_level)
			m->min_level = f->level;
		if (!i || f->level > m->max_level)
			m->max_level = f->level;
		if (!f->has_first_row_id)
			row_ids = 0;
		else if (row_ids) {
			int64_t last = f->first_row_id + f->row_count - 1;
			if (!m->has_min_row_id || f->first_row_id < m->min_row_id)
				m->min_row_id = f->first_row_id;
			if (!m->has_max_row_id || last > m->max_row_id)
				m->max_row_id = last;
			m->has_min_row_id = m->has_max_row_id = 1;
		}
	}
	if (!row_ids || !n)
		m->has_min_row_id = m->has_max_row_id = 0, m->min_row_id = m->max_row_id = 0;
	m->has_min_bucket = m->has_max_bucket = m->has_min_level = m->has_max_level = n > 0;
	if (!n)
		m->schema_id = 0;
	if ((rc = partition_stats(ptype, entries, n, &m->partition_stats))) {
		pm_manifest_file_meta_dispose(m);
		return rc;
	}
	return 0;
}

static int check_entry(const pm_manifest_entry *e, size_t i)
{
	if (e->kind != PM_FILE_KIND_ADD && e->kind != PM_FILE_KIND_DELETE)
		return pm_err(PAIMON_EINVAL, "manifest entry %zu: bad kind %d", i, e->kind);
	if (!e->file.file_name)
		return pm_err(PAIMON_EINVAL, "manifest entry %zu: no file name", i);
	if (e->partition.n < 4)
		return pm_err(PAIMON_EINVAL, "manifest entry %zu (%s): partition is not a serialized row", i,
			      e->file.file_name);
	return 0;
}

int pm_manifest_write(pm_fileio *io, const char *table_path, const pm_manifest_options *o,
		      pm_manifest_namer *namer, const pm_type *partition_type, const pm_manifest_entry *entries,
		      size_t n, pm_manifest_file_meta_list *out)
{
	pm_manifest_options defo;
	vpool vp = {0};
	pm_buf name = PM_BUF_INIT, enc = PM_BUF_INIT;
	pm_avro_writer *w = NULL;
	pm_avro_schema *schema = NULL;
	pm_strlist written = {0};
	char *path = NULL;
	size_t out_start = out->len, out_cap = out->cap, first = 0, i;
	int64_t raw = 0;
	int rc = 0;
	o = opts_or_default(o, &defo);
	if ((rc = pm_avro_schema_parse(ENTRY_SCHEMA, sizeof ENTRY_SCHEMA - 1, &schema)))
		goto fail;
	for (i = 0; i < n; i++)
		if ((rc = check_entry(&entries[i], i)))
			goto fail;
	for (i = 0; i < n; i++) {
		pm_avro_value *v;
		if (!w) {
			if ((rc = next_path(io, table_path, namer, "manifest", &name, &path)) ||
			    (rc = pm_avro_writer_new(ENTRY_SCHEMA, o->codec, codec_level(o), &w)))
				goto fail;
			first = i;
			raw = 0;
		}
		if ((rc = entry_to_value(&vp, &entries[i], &v)))
			goto fail;
		pm_buf_clear(&enc);
		if ((rc = pm_avro_encode(pm_avro_schema_root(schema), v, &enc)) ||
		    (rc = pm_avro_writer_append(w, v)))
			goto fail;
		raw += (int64_t)enc.len;
		if (raw >= o->target_file_size || i + 1 == n) {
			int64_t size = 0;
			pm_manifest_file_meta *m;
			if ((rc = pm_strlist_push(&written, path)))
				goto fail;
			rc = publish(io, w, path, &size);
			pm_avro_writer_free(w);
			w = NULL;
			pm_free(path);
			path = NULL;
			if (rc)
				goto fail;
			if (!(m = pm_manifest_file_meta_list_push(out))) {
				rc = PAIMON_ENOMEM;
				goto fail;
			}
			if ((rc = file_meta_for(partition_type, entries + first, i + 1 - first, name.data, size, m))) {
				out->len--;
				goto fail;
			}
		}
	}
	goto done;
fail:
	{
		pm_err_state st;
		pm_err_save(&st);
		for (i = 0; i < written.len; i++)
			pm_fileio_remove(io, written.items[i]);
		pm_err_restore(&st);
		rollback(REC_LIST(out), &LIST_KIND, out_start, out_cap);
	}
done:
	pm_avro_writer_free(w);
	pm_avro_schema_free(schema);
	pm_free(path);
	pm_free(vp.v);
	pm_buf_dispose(&name);
	pm_buf_dispose(&enc);
	pm_strlist_dispose(&written);
	return rc;
}

/* One file of records (list or index manifest). */
static int write_one(pm_fileio *io, const char *table_path, const pm_manifest_options *o, pm_manifest_namer *namer,
		     const char *kind, const char *schema, const void *items, size_t n, size_t item_size,
		     int (*to_value)(vpool *, const void *, pm_avro_value **), char **name_out, int64_t *size_out)
{
	pm_manifest_options defo;
	vpool vp = {0};
	pm_buf name = PM_BUF_INIT;
	pm_avro_writer *w = NULL;
	char *path = NULL;
	size_t i;
	int64_t size = 0;
	int rc;
	o = opts_or_default(o, &defo);
	if (name_out)
		*name_out = NULL;
	if ((rc = next_path(io, table_path, namer, kind, &name, &path)) ||
	    (rc = pm_avro_writer_new(schema, o->codec, codec_level(o), &w)))
		goto out;
	for (i = 0; i < n; i++) {
		pm_avro_value *v;
		if ((rc = to_value(&vp, (const char *)items + i * item_size, &v)) || (rc = pm_avro_writer_append(w, v)))
			goto out;
	}
	if ((rc = publish(io, w, path, &size)))
		goto out;
	if (size_out)
		*size_out = size;
	if (name_out && !(*name_out = pm_buf_detach(&name))) {
		pm_err_state st;
		rc = PAIMON_ENOMEM;
		pm_err_save(&st);
		pm_fileio_remove(io, path);
		pm_err_restore(&st);
	}
out:
	pm_avro_writer_free(w);
	pm_free(path);
	pm_free(vp.v);
	pm_buf_dispose(&name);
	return rc;
}

static int list_to_value_v(vpool *p, const void *m, pm_avro_value **out)
{
	const pm_manifest_file_meta *mm = m;
	if (!mm->file_name)
		return pm_err(PAIMON_EINVAL, "manifest list record without a file name");
	return list_to_value(p, mm, out);
}

static int index_to_value_v(vpool *p, const void *e, pm_avro_value **out)
{
	const pm_index_manifest_entry *ie = e;
	if (!ie->file_name || !ie->index_type || ie->partition.n < 4)
		return pm_err(PAIMON_EINVAL, "index manifest entry without file name, index type or partition");
	if (ie->kind != PM_FILE_KIND_ADD && ie->kind != PM_FILE_KIND_DELETE)
		return pm_err(PAIMON_EINVAL, "index manifest entry %s: bad kind %d", ie->file_name, ie->kind);
	return index_to_value(p, ie, out);
}

int pm_manifest_list_write(pm_fileio *io, const char *table_path, const pm_manifest_options *o,
			   pm_manifest_namer *namer, const pm_manifest_file_meta *metas, size_t n, char **name_out,
			   int64_t *size_out)
{
	return write_one(io, table_path, o, namer, "manifest-list", LIST_SCHEMA, metas, n, sizeof *metas,
			 list_to_value_v, name_out, size_out);
}

int pm_index_manifest_write(pm_fileio *io, const char *table_path, const pm_manifest_options *o,
			    pm_manifest_namer *namer, const pm_index_manifest_entry *entries, size_t n, char **name_out)
{
	return write_one(io, table_path, o, namer, "index-manifest", INDEX_SCHEMA, entries, n, sizeof *entries,
			 index_to_value_v, name_out, NULL);
}

/* ===================================================== compact byte form */

#define PMEL_VERSION 1

int pm_manifest_entries_encode(const pm_manifest_entry *entries, size_t n, pm_buf *out)
{
	pm_avro_schema *schema = NULL;
	vpool vp = {0};
	size_t i, start = out->len;
	int rc;
	if ((rc = pm_avro_schema_parse(ENTRY_SCHEMA, sizeof ENTRY_SCHEMA - 1, &schema)))
		return rc;
	if ((rc = pm_buf_append(out, "PMEL", 4)) || (rc = pm_buf_putc(out, PMEL_VERSION)) ||
	    (rc = pm_avro_put_long(out, (int64_t)n)))
		goto out;
	for (i = 0; i < n; i++) {
		pm_avro_value *v;
		if ((rc = check_entry(&entries[i], i)) || (rc = entry_to_value(&vp, &entries[i], &v)) ||
		    (rc = pm_avro_encode(pm_avro_schema_root(schema), v, out)))
			goto out;
	}
out:
	if (rc)
		out->len = start;
	pm_free(vp.v);
	pm_avro_schema_free(schema);
	return rc;
}

static int put_avro_bytes(pm_buf *b, const void *p, size_t n)
{
	int rc = pm_avro_put_long(b, (int64_t)n);
	return rc ? rc : pm_buf_append(b, p, n);
}

/* The compact byte form of a record list: magic, version byte, count, the
 * Avro datums of `schema`; decoded through the by-name reader of `k`. */
static int compact_decode(const char *magic, const char *schema, size_t schema_len, const rec_kind *k,
			  const char *what, const void *data, size_t len, rec_list out)
{
	uint8_t sync[16] = {0};
	const uint8_t *p = data, *end = p + len;
	pm_buf file = PM_BUF_INIT;
	pm_avro_reader *r = NULL;
	int64_t count, got = 0;
	size_t start = *out.len, start_cap = *out.cap;
	int rc;
	memcpy(sync, magic, 4);
	if (len < 5 || memcmp(p, magic, 4))
		return pm_err(PAIMON_ECORRUPT, "%s: not an encoded manifest entry list (bad magic)", what);
	if (p[4] != PMEL_VERSION)
		return pm_err(PAIMON_ECORRUPT, "%s: unsupported entry list version %u", what, p[4]);
	p += 5;
	if (pm_avro_get_long(&p, end, &count) || count < 0 || (uint64_t)count > (uint64_t)(end - p))
		return pm_err(PAIMON_ECORRUPT, "%s: bad entry count", what);
	if (!count)
		return p == end ? 0 : pm_err(PAIMON_ECORRUPT, "%s: trailing bytes after 0 entries", what);
	/* Wrap the datums in an in-memory container file so the same by-name
	 * reader (and its validation) applies. */
	if ((rc = pm_buf_append(&file, "Obj\x01", 4)) || (rc = pm_avro_put_long(&file, 2)) ||
	    (rc = put_avro_bytes(&file, "avro.schema", 11)) ||
	    (rc = put_avro_bytes(&file, schema, schema_len)) ||
	    (rc = put_avro_bytes(&file, "avro.codec", 10)) || (rc = put_avro_bytes(&file, "null", 4)) ||
	    (rc = pm_avro_put_long(&file, 0)) || (rc = pm_buf_append(&file, sync, 16)) ||
	    (rc = pm_avro_put_long(&file, count)) || (rc = put_avro_bytes(&file, p, (size_t)(end - p))) ||
	    (rc = pm_buf_append(&file, sync, 16)))
		goto out;
	if ((rc = pm_avro_reader_open_mem(file.data, file.len, &r))) {
		pm_err_wrap("%s", what);
		goto out;
	}
	rc = read_records(r, k, what, out, &got);
	if (!rc && got != count) {
		rc = pm_err(PAIMON_ECORRUPT, "%s: %lld entries decoded, header says %lld", what, (long long)got,
			    (long long)count);
		rollback(out, k, start, start_cap);
	}
out:
	pm_avro_reader_free(r);
	pm_buf_dispose(&file);
	return rc;
}

int pm_manifest_entries_decode(const char *what, const void *data, size_t len, pm_manifest_entry_list *out)
{
	return compact_decode("PMEL", ENTRY_SCHEMA, sizeof ENTRY_SCHEMA - 1, &ENTRY_KIND,
			      what ? what : "manifest entries", data, len, REC_LIST(out));
}

int pm_index_manifest_entries_encode(const pm_index_manifest_entry *entries, size_t n, pm_buf *out)
{
	pm_avro_schema *schema = NULL;
	vpool vp = {0};
	size_t i, start = out->len;
	int rc;
	if ((rc = pm_avro_schema_parse(INDEX_SCHEMA, sizeof INDEX_SCHEMA - 1, &schema)))
		return rc;
	if ((rc = pm_buf_append(out, "PMIL", 4)) || (rc = pm_buf_putc(out, PMEL_VERSION)) ||
	    (rc = pm_avro_put_long(out, (int64_t)n)))
		goto out;
	for (i = 0; i < n; i++) {
		pm_avro_value *v;
		if ((rc = index_to_value_v(&vp, &entries[i], &v)) ||
		    (rc = pm_avro_encode(pm_avro_schema_root(schema), v, out)))
			goto out;
	}
out:
	if (rc)
		out->len = start;
	pm_free(vp.v);
	pm_avro_schema_free(schema);
	return rc;
}

int pm_index_manifest_entries_decode(const char *what, const void *data, size_t len,
				     pm_index_manifest_entry_list *out)
{
	return compact_decode("PMIL", INDEX_SCHEMA, sizeof INDEX_SCHEMA - 1, &INDEX_KIND,
			      what ? what : "index manifest entries", data, len, REC_LIST(out));
}
