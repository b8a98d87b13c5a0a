/*
 * format/parquet/parquet_meta.c - decoding and encoding of Parquet's Thrift
 * metadata (see parquet_meta.h), written from parquet.thrift's field list.
 */
#include "format/parquet/parquet_meta.h"

#include <stdalign.h>
#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "serde/thrift/thrift.h"

/* ---------------------------------------------------------------- arena */

typedef struct arena_chunk {
	struct arena_chunk *next;
	size_t cap, used;
	alignas(max_align_t) unsigned char data[];
} arena_chunk;

struct pm_pq_arena {
	arena_chunk *head;
	size_t total;
	size_t limit; /* bytes; a guard against allocation amplification */
};

static struct pm_pq_arena *arena_new(size_t limit)
{
	struct pm_pq_arena *a = pm_calloc(1, sizeof *a);
	if (a)
		a->limit = limit;
	return a;
}

static void arena_free(struct pm_pq_arena *a)
{
	arena_chunk *c, *nx;
	if (!a)
		return;
	for (c = a->head; c; c = nx) {
		nx = c->next;
		pm_free(c);
	}
	pm_free(a);
}

/* Zeroed, max-aligned memory; NULL with the error set on failure. */
static void *arena_alloc(struct pm_pq_arena *a, size_t n)
{
	arena_chunk *c = a->head;
	size_t al = alignof(max_align_t), need = (n + al - 1) & ~(al - 1);
	void *p;
	if (n == 0)
		need = al;
	if (need < n || need > a->limit - (a->total < a->limit ? a->total : a->limit) ||
	    a->total >= a->limit) {
		pm_err(PAIMON_ECORRUPT, "parquet: metadata needs more than %zu bytes of memory "
		       "(guard against corrupt counts)", a->limit);
		return NULL;
	}
	if (!c || c->cap - c->used < need) {
		size_t cap = need > 16384 ? need : 16384;
		c = pm_malloc(sizeof *c + cap);
		if (!c)
			return NULL;
		c->cap = cap;
		c->used = 0;
		c->next = a->head;
		a->head = c;
	}
	p = c->data + c->used;
	c->used += need;
	a->total += need;
	memset(p, 0, need);
	return p;
}

static size_t arena_limit_for(size_t n)
{
	/* Decoded structs are at most a few hundred times their wire size. */
	size_t lim = (size_t)16 << 20;
	if (n > (SIZE_MAX - lim) / 512)
		return SIZE_MAX;
	return lim + n * 512;
}

/* ---------------------------------------------------------------- decoding */

typedef struct dec {
	pm_tc_reader r;
	struct pm_pq_arena *a; /* NULL for allocation-free decoders */
} dec;

static int missing(dec *d, const char *st, const char *field, int id)
{
	return pm_err(PAIMON_ECORRUPT, "parquet: %s lacks required field '%s' (%d), struct ending at "
		      "offset %zu", st, field, id, d->r.pos);
}

/* Typed field readers: a value of another wire type is skipped (leaving
 * *has untouched), as for an unknown field. */
static int f_i32(dec *d, const pm_tc_field *f, int32_t *v, bool *has)
{
	int rc;
	if (f->type != PM_TC_I32)
		return pm_tc_skip_field(&d->r, f);
	if ((rc = pm_tc_read_i32(&d->r, v)) == 0)
		*has = true;
	return rc;
}

static int f_i64(dec *d, const pm_tc_field *f, int64_t *v, bool *has)
{
	int rc;
	if (f->type != PM_TC_I64)
		return pm_tc_skip_field(&d->r, f);
	if ((rc = pm_tc_read_i64(&d->r, v)) == 0)
		*has = true;
	return rc;
}

static int f_i16(dec *d, const pm_tc_field *f, int16_t *v, bool *has)
{
	int rc;
	if (f->type != PM_TC_I16)
		return pm_tc_skip_field(&d->r, f);
	if ((rc = pm_tc_read_i16(&d->r, v)) == 0)
		*has = true;
	return rc;
}

static int f_i8(dec *d, const pm_tc_field *f, int8_t *v, bool *has)
{
	int rc;
	if (f->type != PM_TC_I8)
		return pm_tc_skip_field(&d->r, f);
	if ((rc = pm_tc_read_i8(&d->r, v)) == 0)
		*has = true;
	return rc;
}

static int f_bool(dec *d, const pm_tc_field *f, bool *v, bool *has)
{
	if (f->type != PM_TC_BOOL)
		return pm_tc_skip_field(&d->r, f);
	*v = f->bool_value;
	*has = true;
	return 0;
}

static int f_bin(dec *d, const pm_tc_field *f, pm_pq_bin *b)
{
	int rc;
	if (f->type != PM_TC_BINARY)
		return pm_tc_skip_field(&d->r, f);
	if ((rc = pm_tc_read_binary(&d->r, &b->p, &b->len)) == 0)
		b->set = true;
	return rc;
}

static char *arena_str(dec *d, const uint8_t *p, size_t n)
{
	char *s;
	if (n == SIZE_MAX) {
		pm_err(PAIMON_ECORRUPT, "parquet: string too long");
		return NULL;
	}
	s = arena_alloc(d->a, n + 1);
	if (s && n)
		memcpy(s, p, n);
	return s;
}

static int read_str(dec *d, const char **out)
{
	const uint8_t *p;
	size_t n;
	int rc;
	char *s;
	if ((rc = pm_tc_read_binary(&d->r, &p, &n)) != 0)
		return rc;
	if (!(s = arena_str(d, p, n)))
		return pm_err_code();
	*out = s;
	return 0;
}

static int f_str(dec *d, const pm_tc_field *f, const char **out)
{
	if (f->type != PM_TC_BINARY)
		return pm_tc_skip_field(&d->r, f);
	return read_str(d, out);
}

typedef int (*elem_fn)(dec *d, void *item);

/*
 * A list<elem_type> field: allocates count items of size sz and decodes each
 * with fn. A field of another wire type, or a list of another element type,
 * is skipped (items untouched).
 */
static int f_list(dec *d, const pm_tc_field *f, uint8_t want, size_t sz, elem_fn fn,
		  void **items, size_t *n, bool *has)
{
	uint8_t et;
	uint32_t cnt, i;
	unsigned char *arr;
	int rc;
	if (f->type != PM_TC_LIST && f->type != PM_TC_SET)
		return pm_tc_skip_field(&d->r, f);
	if ((rc = pm_tc_read_list(&d->r, &et, &cnt)) != 0)
		return rc;
	/* i16/i32/i64 share the zigzag varint encoding; Thrift's C++ runtime reads
	 * such lists whatever element type they declare (bad_data/ARROW-GH-41317
	 * has an encodings list<i16>), so accept them, range-checked. */
	if ((want == PM_TC_I32 || want == PM_TC_I64) &&
	    (et == PM_TC_I16 || et == PM_TC_I32 || et == PM_TC_I64))
		et = want;
	if (et != want) {
		for (i = 0; i < cnt && !rc; i++)
			rc = pm_tc_skip(&d->r, et);
		return rc;
	}
	arr = arena_alloc(d->a, cnt ? (size_t)cnt * sz : 1);
	if (!arr)
		return pm_err_code();
	for (i = 0; i < cnt; i++)
		if ((rc = fn(d, arr + (size_t)i * sz)) != 0)
			return rc;
	*items = arr;
	*n = cnt;
	if (has)
		*has = true;
	return 0;
}

static int e_i32(dec *d, void *it) { return pm_tc_read_i32(&d->r, it); }
static int e_i64(dec *d, void *it) { return pm_tc_read_i64(&d->r, it); }
static int e_bool(dec *d, void *it) { return pm_tc_read_bool(&d->r, it); }
static int e_str(dec *d, void *it) { return read_str(d, it); }

static int e_bin(dec *d, void *it)
{
	pm_pq_bin *b = it;
	b->set = true;
	return pm_tc_read_binary(&d->r, &b->p, &b->len);
}

/* Struct decoding skeleton: fields are dispatched by a per-struct function. */
typedef int (*field_fn)(dec *d, void *obj, const pm_tc_field *f);

static int read_struct(dec *d, void *obj, field_fn fn)
{
	int16_t last;
	pm_tc_field f;
	int rc;
	if ((rc = pm_tc_struct_begin(&d->r, &last)) != 0)
		return rc;
	for (;;) {
		if ((rc = pm_tc_read_field(&d->r, &last, &f)) != 0)
			break;
		if (f.type == PM_TC_STOP)
			break;
		if ((rc = fn(d, obj, &f)) != 0)
			break;
	}
	pm_tc_struct_end(&d->r);
	return rc;
}

/* A struct-typed field; other wire types are skipped. */
static int f_struct(dec *d, const pm_tc_field *f, int (*fn)(dec *, void *), void *obj, bool *has)
{
	int rc;
	if (f->type != PM_TC_STRUCT)
		return pm_tc_skip_field(&d->r, f);
	if ((rc = fn(d, obj)) == 0 && has)
		*has = true;
	return rc;
}

/* ---- Statistics */

static int stats_field(dec *d, void *o, const pm_tc_field *f)
{
	pm_pq_statistics *s = o;
	switch (f->id) {
	case 1: return f_bin(d, f, &s->max);
	case 2: return f_bin(d, f, &s->min);
	case 3: return f_i64(d, f, &s->null_count, &s->has_null_count);
	case 4: return f_i64(d, f, &s->distinct_count, &s->has_distinct_count);
	case 5: return f_bin(d, f, &s->max_value);
	case 6: return f_bin(d, f, &s->min_value);
	case 7: return f_bool(d, f, &s->is_max_value_exact, &s->has_is_max_value_exact);
	case 8: return f_bool(d, f, &s->is_min_value_exact, &s->has_is_min_value_exact);
	case 9: return f_i64(d, f, &s->nan_count, &s->has_nan_count);
	default: return pm_tc_skip_field(&d->r, f);
	}
}

static int dec_statistics(dec *d, void *o)
{
	memset(o, 0, sizeof(pm_pq_statistics));
	return read_struct(d, o, stats_field);
}

/* ---- LogicalType and friends */

typedef struct lt_ctx {
	pm_pq_logical_type *lt;
	bool seen[3];
	int members;
} lt_ctx;

static int empty_field(dec *d, void *o, const pm_tc_field *f)
{
	(void)o;
	return pm_tc_skip_field(&d->r, f);
}

static int dec_empty(dec *d, void *o)
{
	return read_struct(d, o, empty_field);
}

/* A union of empty structs (TimeUnit, ColumnOrder, bloom algorithm/hash/
 * compression): the first member's id, 0 if none. */
static int union_id_field(dec *d, void *o, const pm_tc_field *f)
{
	int32_t *id = o;
	if (f->type != PM_TC_STRUCT)
		return pm_tc_skip_field(&d->r, f);
	if (*id == 0 && f->id > 0)
		*id = f->id;
	return dec_empty(d, NULL);
}

static int dec_union_id(dec *d, void *o)
{
	*(int32_t *)o = 0;
	return read_struct(d, o, union_id_field);
}

static int decimal_field(dec *d, void *o, const pm_tc_field *f)
{
	lt_ctx *c = o;
	if (f->id == 1)
		return f_i32(d, f, &c->lt->scale, &c->seen[0]);
	if (f->id == 2)
		return f_i32(d, f, &c->lt->precision, &c->seen[1]);
	return pm_tc_skip_field(&d->r, f);
}

static int time_field(dec *d, void *o, const pm_tc_field *f)
{
	lt_ctx *c = o;
	if (f->id == 1)
		return f_bool(d, f, &c->lt->is_adjusted_to_utc, &c->seen[0]);
	if (f->id == 2) {
		int32_t unit = 0;
		int rc = f_struct(d, f, dec_union_id, &unit, NULL);
		if (!rc && unit) {
			c->lt->unit = unit;
			c->seen[1] = true;
		}
		return rc;
	}
	return pm_tc_skip_field(&d->r, f);
}

static int int_field(dec *d, void *o, const pm_tc_field *f)
{
	lt_ctx *c = o;
	if (f->id == 1)
		return f_i8(d, f, &c->lt->bit_width, &c->seen[0]);
	if (f->id == 2)
		return f_bool(d, f, &c->lt->is_signed, &c->seen[1]);
	return pm_tc_skip_field(&d->r, f);
}

static int variant_field(dec *d, void *o, const pm_tc_field *f)
{
	lt_ctx *c = o;
	if (f->id == 1)
		return f_i8(d, f, &c->lt->specification_version, &c->lt->has_specification_version);
	return pm_tc_skip_field(&d->r, f);
}

static int geo_field(dec *d, void *o, const pm_tc_field *f)
{
	lt_ctx *c = o;
	if (f->id == 1)
		return f_str(d, f, &c->lt->crs);
	if (f->id == 2 && c->lt->kind == PM_PQ_LT_GEOGRAPHY)
		return f_i32(d, f, &c->lt->algorithm, &c->lt->has_algorithm);
	return pm_tc_skip_field(&d->r, f);
}

static int lt_field(dec *d, void *o, const pm_tc_field *f)
{
	lt_ctx *c = o;
	pm_pq_logical_type *lt = c->lt;
	field_fn fn = empty_field;
	int rc;
	if (f->type != PM_TC_STRUCT || f->id <= 0)
		return pm_tc_skip_field(&d->r, f);
	if (c->members++ > 0) /* a second member: keep the first */
		return pm_tc_skip_field(&d->r, f);
	switch (f->id) {
	case PM_PQ_LT_DECIMAL: fn = decimal_field; break;
	case PM_PQ_LT_TIME: case PM_PQ_LT_TIMESTAMP: fn = time_field; break;
	case PM_PQ_LT_INTEGER: fn = int_field; break;
	case PM_PQ_LT_VARIANT: fn = variant_field; break;
	case PM_PQ_LT_GEOMETRY: case PM_PQ_LT_GEOGRAPHY: fn = geo_field; break;
	case PM_PQ_LT_STRING: case PM_PQ_LT_MAP: case PM_PQ_LT_LIST: case PM_PQ_LT_ENUM:
	case PM_PQ_LT_DATE: case PM_PQ_LT_UNKNOWN: case PM_PQ_LT_JSON: case PM_PQ_LT_BSON:
	case PM_PQ_LT_UUID: case PM_PQ_LT_FLOAT16: case PM_PQ_LT_FILE:
		break;
	default:
		lt->kind = PM_PQ_LT_UNRECOGNIZED;
		lt->unrecognized_id = f->id;
		return pm_tc_skip_field(&d->r, f);
	}
	lt->kind = f->id;
	memset(c->seen, 0, sizeof c->seen);
	if ((rc = read_struct(d, c, fn)) != 0)
		return rc;
	switch (f->id) {
	case PM_PQ_LT_DECIMAL:
		if (!c->seen[0]) return missing(d, "DecimalType", "scale", 1);
		if (!c->seen[1]) return missing(d, "DecimalType", "precision", 2);
		break;
	case PM_PQ_LT_TIME: case PM_PQ_LT_TIMESTAMP:
		if (!c->seen[0]) return missing(d, f->id == PM_PQ_LT_TIME ? "TimeType" : "TimestampType",
						"isAdjustedToUTC", 1);
		if (!c->seen[1]) return missing(d, f->id == PM_PQ_LT_TIME ? "TimeType" : "TimestampType",
						"unit", 2);
		break;
	case PM_PQ_LT_INTEGER:
		if (!c->seen[0]) return missing(d, "IntType", "bitWidth", 1);
		if (!c->seen[1]) return missing(d, "IntType", "isSigned", 2);
		break;
	}
	return 0;
}

static int dec_logical(dec *d, void *o)
{
	lt_ctx c;
	memset(&c, 0, sizeof c);
	c.lt = o;
	memset(c.lt, 0, sizeof *c.lt);
	return read_struct(d, &c, lt_field);
}

/* ---- SchemaElement */

static int schema_field(dec *d, void *o, const pm_tc_field *f)
{
	pm_pq_schema_element *e = o;
	switch (f->id) {
	case 1: return f_i32(d, f, &e->type, &e->has_type);
	case 2: return f_i32(d, f, &e->type_length, &e->has_type_length);
	case 3: return f_i32(d, f, &e->repetition, &e->has_repetition);
	case 4: return f_str(d, f, &e->name);
	case 5: return f_i32(d, f, &e->num_children, &e->has_num_children);
	case 6: return f_i32(d, f, &e->converted_type, &e->has_converted_type);
	case 7: return f_i32(d, f, &e->scale, &e->has_scale);
	case 8: return f_i32(d, f, &e->precision, &e->has_precision);
	case 9: return f_i32(d, f, &e->field_id, &e->has_field_id);
	case 10: return f_struct(d, f, dec_logical, &e->logical, NULL);
	default: return pm_tc_skip_field(&d->r, f);
	}
}

static int dec_schema_element(dec *d, void *o)
{
	pm_pq_schema_element *e = o;
	int rc = read_struct(d, e, schema_field);
	if (rc)
		return rc;
	if (!e->name)
		return missing(d, "SchemaElement", "name", 4);
	if (e->has_type && (e->type < 0 || e->type > PM_PQ_FIXED_LEN_BYTE_ARRAY))
		return pm_err(PAIMON_ECORRUPT, "parquet: SchemaElement '%s' has invalid physical type %d",
			      e->name, e->type);
	if (e->has_repetition && (e->repetition < 0 || e->repetition > PM_PQ_REPEATED))
		return pm_err(PAIMON_ECORRUPT, "parquet: SchemaElement '%s' has invalid repetition %d",
			      e->name, e->repetition);
	if (e->has_num_children && e->num_children < 0)
		return pm_err(PAIMON_ECORRUPT, "parquet: SchemaElement '%s' has negative num_children %d",
			      e->name, e->num_children);
	return 0;
}

/* ---- KeyValue, PageEncodingStats, SortingColumn */

static int kv_field(dec *d, void *o, const pm_tc_field *f)
{
	pm_pq_key_value *kv = o;
	if (f->id == 1)
		return f_str(d, f, &kv->key);
	if (f->id == 2)
		return f_bin(d, f, &kv->value);
	return pm_tc_skip_field(&d->r, f);
}

static int dec_kv(dec *d, void *o)
{
	pm_pq_key_value *kv = o;
	int rc = read_struct(d, kv, kv_field);
	if (!rc && !kv->key)
		return missing(d, "KeyValue", "key", 1);
	return rc;
}

typedef struct req3 {
	void *obj;
	bool seen[8];
} req3;

static int pes_field(dec *d, void *o, const pm_tc_field *f)
{
	req3 *c = o;
	pm_pq_page_encoding_stats *s = c->obj;
	switch (f->id) {
	case 1: return f_i32(d, f, &s->page_type, &c->seen[0]);
	case 2: return f_i32(d, f, &s->encoding, &c->seen[1]);
	case 3: return f_i32(d, f, &s->count, &c->seen[2]);
	default: return pm_tc_skip_field(&d->r, f);
	}
}

static int dec_pes(dec *d, void *o)
{
	req3 c = {o, {0}};
	int rc = read_struct(d, &c, pes_field);
	if (rc)
		return rc;
	if (!c.seen[0]) return missing(d, "PageEncodingStats", "page_type", 1);
	if (!c.seen[1]) return missing(d, "PageEncodingStats", "encoding", 2);
	if (!c.seen[2]) return missing(d, "PageEncodingStats", "count", 3);
	return 0;
}

static int sc_field(dec *d, void *o, const pm_tc_field *f)
{
	req3 *c = o;
	pm_pq_sorting_column *s = c->obj;
	switch (f->id) {
	case 1: return f_i32(d, f, &s->column_idx, &c->seen[0]);
	case 2: return f_bool(d, f, &s->descending, &c->seen[1]);
	case 3: return f_bool(d, f, &s->nulls_first, &c->seen[2]);
	default: return pm_tc_skip_field(&d->r, f);
	}
}

static int dec_sorting_column(dec *d, void *o)
{
	req3 c = {o, {0}};
	int rc = read_struct(d, &c, sc_field);
	if (rc)
		return rc;
	if (!c.seen[0]) return missing(d, "SortingColumn", "column_idx", 1);
	if (!c.seen[1]) return missing(d, "SortingColumn", "descending", 2);
	if (!c.seen[2]) return missing(d, "SortingColumn", "nulls_first", 3);
	return 0;
}

/* ---- ColumnMetaData */

static int cmd_field(dec *d, void *o, const pm_tc_field *f)
{
	req3 *c = o;
	pm_pq_column_meta *m = c->obj;
	switch (f->id) {
	case 1: return f_i32(d, f, &m->type, &c->seen[0]);
	case 2: return f_list(d, f, PM_TC_I32, sizeof(int32_t), e_i32, (void **)&m->encodings,
			      &m->n_encodings, &c->seen[1]);
	case 3: return f_list(d, f, PM_TC_BINARY, sizeof(char *), e_str, (void **)&m->path_in_schema,
			      &m->n_path, &c->seen[2]);
	case 4: return f_i32(d, f, &m->codec, &c->seen[3]);
	case 5: return f_i64(d, f, &m->num_values, &c->seen[4]);
	case 6: return f_i64(d, f, &m->total_uncompressed_size, &c->seen[5]);
	case 7: return f_i64(d, f, &m->total_compressed_size, &c->seen[6]);
	case 8: return f_list(d, f, PM_TC_STRUCT, sizeof(pm_pq_key_value), dec_kv,
			      (void **)&m->key_value, &m->n_key_value, NULL);
	case 9: return f_i64(d, f, &m->data_page_offset, &c->seen[7]);
	case 10: return f_i64(d, f, &m->index_page_offset, &m->has_index_page_offset);
	case 11: return f_i64(d, f, &m->dictionary_page_offset, &m->has_dictionary_page_offset);
	case 12: return f_struct(d, f, dec_statistics, &m->statistics, &m->has_statistics);
	case 13: return f_list(d, f, PM_TC_STRUCT, sizeof(pm_pq_page_encoding_stats), dec_pes,
			       (void **)&m->encoding_stats, &m->n_encoding_stats, NULL);
	case 14: return f_i64(d, f, &m->bloom_filter_offset, &m->has_bloom_filter_offset);
	case 15: return f_i32(d, f, &m->bloom_filter_length, &m->has_bloom_filter_length);
	default: return pm_tc_skip_field(&d->r, f);
	}
}

static int dec_column_meta(dec *d, void *o)
{
	static const char *names[] = {"type", "encodings", "path_in_schema", "codec", "num_values",
				      "total_uncompressed_size", "total_compressed_size",
				      "data_page_offset"};
	static const int ids[] = {1, 2, 3, 4, 5, 6, 7, 9};
	req3 c = {o, {0}};
	int rc, i;
	memset(o, 0, sizeof(pm_pq_column_meta));
	if ((rc = read_struct(d, &c, cmd_field)) != 0)
		return rc;
	for (i = 0; i < 8; i++)
		if (!c.seen[i])
			return missing(d, "ColumnMetaData", names[i], ids[i]);
	return 0;
}

/* ---- ColumnChunk */

static int cc_field(dec *d, void *o, const pm_tc_field *f)
{
	req3 *c = o;
	pm_pq_column_chunk *cc = c->obj;
	switch (f->id) {
	case 1: return f_str(d, f, &cc->file_path);
	case 2: return f_i64(d, f, &cc->file_offset, &c->seen[0]);
	case 3: return f_struct(d, f, dec_column_meta, &cc->meta_data, &cc->has_meta_data);
	case 4: return f_i64(d, f, &cc->offset_index_offset, &cc->has_offset_index_offset);
	case 5: return f_i32(d, f, &cc->offset_index_length, &cc->has_offset_index_length);
	case 6: return f_i64(d, f, &cc->column_index_offset, &cc->has_column_index_offset);
	case 7: return f_i32(d, f, &cc->column_index_length, &cc->has_column_index_length);
	case 8:
	case 9:
		return pm_err(PAIMON_EUNSUPPORTED, "parquet: encrypted file (ColumnChunk has %s) is not "
			      "supported", f->id == 8 ? "crypto_metadata" : "encrypted_column_metadata");
	default: return pm_tc_skip_field(&d->r, f);
	}
}

static int dec_column_chunk(dec *d, void *o)
{
	req3 c = {o, {0}};
	int rc = read_struct(d, &c, cc_field);
	if (rc)
		return rc;
	if (!c.seen[0])
		return missing(d, "ColumnChunk", "file_offset", 2);
	return 0;
}

/* ---- RowGroup */

static int rg_field(dec *d, void *o, const pm_tc_field *f)
{
	req3 *c = o;
	pm_pq_row_group *g = c->obj;
	switch (f->id) {
	case 1: return f_list(d, f, PM_TC_STRUCT, sizeof(pm_pq_column_chunk), dec_column_chunk,
			      (void **)&g->columns, &g->n_columns, &c->seen[0]);
	case 2: return f_i64(d, f, &g->total_byte_size, &c->seen[1]);
	case 3: return f_i64(d, f, &g->num_rows, &c->seen[2]);
	case 4: return f_list(d, f, PM_TC_STRUCT, sizeof(pm_pq_sorting_column), dec_sorting_column,
			      (void **)&g->sorting_columns, &g->n_sorting_columns, NULL);
	case 5: return f_i64(d, f, &g->file_offset, &g->has_file_offset);
	case 6: return f_i64(d, f, &g->total_compressed_size, &g->has_total_compressed_size);
	case 7: return f_i16(d, f, &g->ordinal, &g->has_ordinal);
	default: return pm_tc_skip_field(&d->r, f);
	}
}

static int dec_row_group(dec *d, void *o)
{
	req3 c = {o, {0}};
	int rc = read_struct(d, &c, rg_field);
	if (rc)
		return rc;
	if (!c.seen[0]) return missing(d, "RowGroup", "columns", 1);
	if (!c.seen[1]) return missing(d, "RowGroup", "total_byte_size", 2);
	if (!c.seen[2]) return missing(d, "RowGroup", "num_rows", 3);
	return 0;
}

static int e_column_order(dec *d, void *it)
{
	return dec_union_id(d, &((pm_pq_column_order *)it)->kind);
}

/* ---- FileMetaData */

static int fmd_field(dec *d, void *o, const pm_tc_field *f)
{
	req3 *c = o;
	pm_pq_file_meta *m = c->obj;
	switch (f->id) {
	case 1: return f_i32(d, f, &m->version, &c->seen[0]);
	case 2: return f_list(d, f, PM_TC_STRUCT, sizeof(pm_pq_schema_element), dec_schema_element,
			      (void **)&m->schema, &m->n_schema, &c->seen[1]);
	case 3: return f_i64(d, f, &m->num_rows, &c->seen[2]);
	case 4: return f_list(d, f, PM_TC_STRUCT, sizeof(pm_pq_row_group), dec_row_group,
			      (void **)&m->row_groups, &m->n_row_groups, &c->seen[3]);
	case 5: return f_list(d, f, PM_TC_STRUCT, sizeof(pm_pq_key_value), dec_kv,
			      (void **)&m->key_value, &m->n_key_value, NULL);
	case 6: return f_str(d, f, &m->created_by);
	case 7: return f_list(d, f, PM_TC_STRUCT, sizeof(pm_pq_column_order), e_column_order,
			      (void **)&m->column_orders, &m->n_column_orders, NULL);
	case 8:
		return pm_err(PAIMON_EUNSUPPORTED, "parquet: encrypted file (FileMetaData has "
			      "encryption_algorithm) is not supported");
	default: return pm_tc_skip_field(&d->r, f);
	}
}

static int dec_file_meta(dec *d, pm_pq_file_meta *m)
{
	req3 c = {m, {0}};
	int rc = read_struct(d, &c, fmd_field);
	if (rc)
		return rc;
	if (!c.seen[0]) return missing(d, "FileMetaData", "version", 1);
	if (!c.seen[1]) return missing(d, "FileMetaData", "schema", 2);
	if (!c.seen[2]) return missing(d, "FileMetaData", "num_rows", 3);
	if (!c.seen[3]) return missing(d, "FileMetaData", "row_groups", 4);
	return 0;
}

/* Sets up an arena owning a copy of the input. */
static int dec_open(dec *d, const void *p, size_t n, struct pm_pq_arena **arena)
{
	uint8_t *copy;
	*arena = arena_new(arena_limit_for(n));
	if (!*arena)
		return PAIMON_ENOMEM;
	copy = arena_alloc(*arena, n ? n : 1);
	if (!copy) {
		arena_free(*arena);
		*arena = NULL;
		return pm_err_code();
	}
	if (n)
		memcpy(copy, p, n);
	d->a = *arena;
	pm_tc_reader_init(&d->r, copy, n);
	return 0;
}

static int trailing(dec *d, const char *what)
{
	if (d->r.pos != d->r.len)
		return pm_err(PAIMON_ECORRUPT, "parquet: %zu unexpected bytes after %s (at offset %zu)",
			      d->r.len - d->r.pos, what, d->r.pos);
	return 0;
}

int pm_pq_file_meta_decode(const void *p, size_t n, pm_pq_file_meta **out)
{
	struct pm_pq_arena *a;
	pm_pq_file_meta *m;
	dec d;
	int rc;
	*out = NULL;
	if ((rc = dec_open(&d, p, n, &a)) != 0)
		return rc;
	if (!(m = arena_alloc(a, sizeof *m))) {
		rc = pm_err_code();
		arena_free(a);
		return rc;
	}
	m->arena = a;
	rc = dec_file_meta(&d, m);
	if (!rc)
		rc = trailing(&d, "FileMetaData");
	if (rc) {
		if (rc != PAIMON_EUNSUPPORTED && rc != PAIMON_ENOMEM)
			pm_err_wrap("parquet: FileMetaData of %zu bytes", n);
		arena_free(a);
		return rc;
	}
	*out = m;
	return 0;
}

void pm_pq_file_meta_free(pm_pq_file_meta *fm)
{
	if (fm)
		arena_free(fm->arena);
}

/* ---- PageHeader (no allocation) */

static int dph_field(dec *d, void *o, const pm_tc_field *f)
{
	req3 *c = o;
	pm_pq_data_page_header *h = c->obj;
	switch (f->id) {
	case 1: return f_i32(d, f, &h->num_values, &c->seen[0]);
	case 2: return f_i32(d, f, &h->encoding, &c->seen[1]);
	case 3: return f_i32(d, f, &h->definition_level_encoding, &c->seen[2]);
	case 4: return f_i32(d, f, &h->repetition_level_encoding, &c->seen[3]);
	case 5: return f_struct(d, f, dec_statistics, &h->statistics, &h->has_statistics);
	default: return pm_tc_skip_field(&d->r, f);
	}
}

static int dec_dph(dec *d, void *o)
{
	req3 c = {o, {0}};
	int rc;
	memset(o, 0, sizeof(pm_pq_data_page_header));
	if ((rc = read_struct(d, &c, dph_field)) != 0)
		return rc;
	if (!c.seen[0]) return missing(d, "DataPageHeader", "num_values", 1);
	if (!c.seen[1]) return missing(d, "DataPageHeader", "encoding", 2);
	if (!c.seen[2]) return missing(d, "DataPageHeader", "definition_level_encoding", 3);
	if (!c.seen[3]) return missing(d, "DataPageHeader", "repetition_level_encoding", 4);
	return 0;
}

static int dict_field(dec *d, void *o, const pm_tc_field *f)
{
	req3 *c = o;
	pm_pq_dictionary_page_header *h = c->obj;
	switch (f->id) {
	case 1: return f_i32(d, f, &h->num_values, &c->seen[0]);
	case 2: return f_i32(d, f, &h->encoding, &c->seen[1]);
	case 3: return f_bool(d, f, &h->is_sorted, &h->has_is_sorted);
	default: return pm_tc_skip_field(&d->r, f);
	}
}

static int dec_dict(dec *d, void *o)
{
	req3 c = {o, {0}};
	int rc;
	memset(o, 0, sizeof(pm_pq_dictionary_page_header));
	if ((rc = read_struct(d, &c, dict_field)) != 0)
		return rc;
	if (!c.seen[0]) return missing(d, "DictionaryPageHeader", "num_values", 1);
	if (!c.seen[1]) return missing(d, "DictionaryPageHeader", "encoding", 2);
	return 0;
}

static int v2_field(dec *d, void *o, const pm_tc_field *f)
{
	req3 *c = o;
	pm_pq_data_page_header_v2 *h = c->obj;
	switch (f->id) {
	case 1: return f_i32(d, f, &h->num_values, &c->seen[0]);
	case 2: return f_i32(d, f, &h->num_nulls, &c->seen[1]);
	case 3: return f_i32(d, f, &h->num_rows, &c->seen[2]);
	case 4: return f_i32(d, f, &h->encoding, &c->seen[3]);
	case 5: return f_i32(d, f, &h->definition_levels_byte_length, &c->seen[4]);
	case 6: return f_i32(d, f, &h->repetition_levels_byte_length, &c->seen[5]);
	case 7: return f_bool(d, f, &h->is_compressed, &h->has_is_compressed);
	case 8: return f_struct(d, f, dec_statistics, &h->statistics, &h->has_statistics);
	default: return pm_tc_skip_field(&d->r, f);
	}
}

static int dec_v2(dec *d, void *o)
{
	static const char *names[] = {"num_values", "num_nulls", "num_rows", "encoding",
				      "definition_levels_byte_length",
				      "repetition_levels_byte_length"};
	req3 c = {o, {0}};
	pm_pq_data_page_header_v2 *h = o;
	int rc, i;
	memset(h, 0, sizeof *h);
	h->is_compressed = true;
	if ((rc = read_struct(d, &c, v2_field)) != 0)
		return rc;
	for (i = 0; i < 6; i++)
		if (!c.seen[i])
			return missing(d, "DataPageHeaderV2", names[i], i + 1);
	return 0;
}

static int ph_field(dec *d, void *o, const pm_tc_field *f)
{
	req3 *c = o;
	pm_pq_page_header *h = c->obj;
	switch (f->id) {
	case 1: return f_i32(d, f, &h->type, &c->seen[0]);
	case 2: return f_i32(d, f, &h->uncompressed_page_size, &c->seen[1]);
	case 3: return f_i32(d, f, &h->compressed_page_size, &c->seen[2]);
	case 4: return f_i32(d, f, &h->crc, &h->has_crc);
	case 5: return f_struct(d, f, dec_dph, &h->data_page_header, &h->has_data_page_header);
	case 6: return f_struct(d, f, dec_empty, NULL, &h->has_index_page_header);
	case 7: return f_struct(d, f, dec_dict, &h->dictionary_page_header,
				&h->has_dictionary_page_header);
	case 8: return f_struct(d, f, dec_v2, &h->data_page_header_v2, &h->has_data_page_header_v2);
	default: return pm_tc_skip_field(&d->r, f);
	}
}

int pm_pq_page_header_decode(const void *p, size_t n, pm_pq_page_header *out, size_t *consumed)
{
	dec d;
	req3 c = {out, {0}};
	int rc;
	memset(out, 0, sizeof *out);
	d.a = NULL;
	pm_tc_reader_init(&d.r, p, n);
	rc = read_struct(&d, &c, ph_field);
	if (!rc) {
		if (!c.seen[0]) rc = missing(&d, "PageHeader", "type", 1);
		else if (!c.seen[1]) rc = missing(&d, "PageHeader", "uncompressed_page_size", 2);
		else if (!c.seen[2]) rc = missing(&d, "PageHeader", "compressed_page_size", 3);
		else if (out->uncompressed_page_size < 0 || out->compressed_page_size < 0)
			rc = pm_err(PAIMON_ECORRUPT, "parquet: negative page size (compressed %d, "
				    "uncompressed %d)", out->compressed_page_size,
				    out->uncompressed_page_size);
	}
	if (rc) {
		pm_err_wrap("parquet: PageHeader");
		return rc;
	}
	*consumed = d.r.pos;
	return 0;
}

/* ---- ColumnIndex, OffsetIndex */

typedef struct ci_ctx {
	pm_pq_column_index *ci;
	bool seen[4];
	size_t n_min, n_max;
} ci_ctx;

static int ci_field(dec *d, void *o, const pm_tc_field *f)
{
	ci_ctx *c = o;
	pm_pq_column_index *ci = c->ci;
	switch (f->id) {
	case 1: return f_list(d, f, PM_TC_BOOL, sizeof(bool), e_bool, (void **)&ci->null_pages,
			      &ci->n_pages, &c->seen[0]);
	case 2: return f_list(d, f, PM_TC_BINARY, sizeof(pm_pq_bin), e_bin, (void **)&ci->min_values,
			      &c->n_min, &c->seen[1]);
	case 3: return f_list(d, f, PM_TC_BINARY, sizeof(pm_pq_bin), e_bin, (void **)&ci->max_values,
			      &c->n_max, &c->seen[2]);
	case 4: return f_i32(d, f, &ci->boundary_order, &c->seen[3]);
	case 5: return f_list(d, f, PM_TC_I64, sizeof(int64_t), e_i64, (void **)&ci->null_counts,
			      &ci->n_null_counts, NULL);
	case 6: return f_list(d, f, PM_TC_I64, sizeof(int64_t), e_i64,
			      (void **)&ci->repetition_level_histograms,
			      &ci->n_repetition_level_histograms, NULL);
	case 7: return f_list(d, f, PM_TC_I64, sizeof(int64_t), e_i64,
			      (void **)&ci->definition_level_histograms,
			      &ci->n_definition_level_histograms, NULL);
	case 8: return f_list(d, f, PM_TC_I64, sizeof(int64_t), e_i64, (void **)&ci->nan_counts,
			      &ci->n_nan_counts, NULL);
	default: return pm_tc_skip_field(&d->r, f);
	}
}

int pm_pq_column_index_decode(const void *p, size_t n, pm_pq_column_index **out)
{
	struct pm_pq_arena *a;
	pm_pq_column_index *ci;
	ci_ctx c;
	dec d;
	int rc;
	*out = NULL;
	if ((rc = dec_open(&d, p, n, &a)) != 0)
		return rc;
	if (!(ci = arena_alloc(a, sizeof *ci))) {
		rc = pm_err_code();
		arena_free(a);
		return rc;
	}
	ci->arena = a;
	memset(&c, 0, sizeof c);
	c.ci = ci;
	rc = read_struct(&d, &c, ci_field);
	if (!rc) {
		if (!c.seen[0]) rc = missing(&d, "ColumnIndex", "null_pages", 1);
		else if (!c.seen[1]) rc = missing(&d, "ColumnIndex", "min_values", 2);
		else if (!c.seen[2]) rc = missing(&d, "ColumnIndex", "max_values", 3);
		else if (!c.seen[3]) rc = missing(&d, "ColumnIndex", "boundary_order", 4);
		else if (c.n_min != ci->n_pages || c.n_max != ci->n_pages ||
			 (ci->null_counts && ci->n_null_counts != ci->n_pages) ||
			 (ci->nan_counts && ci->n_nan_counts != ci->n_pages))
			rc = pm_err(PAIMON_ECORRUPT, "parquet: ColumnIndex list lengths disagree "
				    "(null_pages %zu, min_values %zu, max_values %zu, null_counts %zu, "
				    "nan_counts %zu)", ci->n_pages, c.n_min, c.n_max,
				    ci->n_null_counts, ci->n_nan_counts);
		else
			rc = trailing(&d, "ColumnIndex");
	}
	if (rc) {
		pm_err_wrap("parquet: ColumnIndex");
		arena_free(a);
		return rc;
	}
	*out = ci;
	return 0;
}

void pm_pq_column_index_free(pm_pq_column_index *ci)
{
	if (ci)
		arena_free(ci->arena);
}

static int pl_field(dec *d, void *o, const pm_tc_field *f)
{
	req3 *c = o;
	pm_pq_page_location *l = c->obj;
	switch (f->id) {
	case 1: return f_i64(d, f, &l->offset, &c->seen[0]);
	case 2: return f_i32(d, f, &l->compressed_page_size, &c->seen[1]);
	case 3: return f_i64(d, f, &l->first_row_index, &c->seen[2]);
	default: return pm_tc_skip_field(&d->r, f);
	}
}

static int dec_page_location(dec *d, void *o)
{
	req3 c = {o, {0}};
	int rc = read_struct(d, &c, pl_field);
	if (rc)
		return rc;
	if (!c.seen[0]) return missing(d, "PageLocation", "offset", 1);
	if (!c.seen[1]) return missing(d, "PageLocation", "compressed_page_size", 2);
	if (!c.seen[2]) return missing(d, "PageLocation", "first_row_index", 3);
	return 0;
}

static int oi_field(dec *d, void *o, const pm_tc_field *f)
{
	req3 *c = o;
	pm_pq_offset_index *oi = c->obj;
	switch (f->id) {
	case 1: return f_list(d, f, PM_TC_STRUCT, sizeof(pm_pq_page_location), dec_page_location,
			      (void **)&oi->page_locations, &oi->n_page_locations, &c->seen[0]);
	case 2: return f_list(d, f, PM_TC_I64, sizeof(int64_t), e_i64,
			      (void **)&oi->unencoded_byte_array_data_bytes,
			      &oi->n_unencoded_byte_array_data_bytes, NULL);
	default: return pm_tc_skip_field(&d->r, f);
	}
}

int pm_pq_offset_index_decode(const void *p, size_t n, pm_pq_offset_index **out)
{
	struct pm_pq_arena *a;
	pm_pq_offset_index *oi;
	req3 c;
	dec d;
	int rc;
	*out = NULL;
	if ((rc = dec_open(&d, p, n, &a)) != 0)
		return rc;
	if (!(oi = arena_alloc(a, sizeof *oi))) {
		rc = pm_err_code();
		arena_free(a);
		return rc;
	}
	oi->arena = a;
	memset(&c, 0, sizeof c);
	c.obj = oi;
	rc = read_struct(&d, &c, oi_field);
	if (!rc) {
		if (!c.seen[0])
			rc = missing(&d, "OffsetIndex", "page_locations", 1);
		else if (oi->unencoded_byte_array_data_bytes &&
			 oi->n_unencoded_byte_array_data_bytes != oi->n_page_locations)
			rc = pm_err(PAIMON_ECORRUPT, "parquet: OffsetIndex has %zu page locations but "
				    "%zu unencoded_byte_array_data_bytes", oi->n_page_locations,
				    oi->n_unencoded_byte_array_data_bytes);
		else
			rc = trailing(&d, "OffsetIndex");
	}
	if (rc) {
		pm_err_wrap("parquet: OffsetIndex");
		arena_free(a);
		return rc;
	}
	*out = oi;
	return 0;
}

void pm_pq_offset_index_free(pm_pq_offset_index *oi)
{
	if (oi)
		arena_free(oi->arena);
}

/* ---- BloomFilterHeader */

static int bf_field(dec *d, void *o, const pm_tc_field *f)
{
	req3 *c = o;
	pm_pq_bloom_filter_header *h = c->obj;
	switch (f->id) {
	case 1: return f_i32(d, f, &h->num_bytes, &c->seen[0]);
	case 2: return f_struct(d, f, dec_union_id, &h->algorithm, &c->seen[1]);
	case 3: return f_struct(d, f, dec_union_id, &h->hash, &c->seen[2]);
	case 4: return f_struct(d, f, dec_union_id, &h->compression, &c->seen[3]);
	default: return pm_tc_skip_field(&d->r, f);
	}
}

int pm_pq_bloom_filter_header_decode(const void *p, size_t n, pm_pq_bloom_filter_header *out,
				     size_t *consumed)
{
	dec d;
	req3 c = {out, {0}};
	int rc;
	memset(out, 0, sizeof *out);
	d.a = NULL;
	pm_tc_reader_init(&d.r, p, n);
	rc = read_struct(&d, &c, bf_field);
	if (!rc) {
		if (!c.seen[0]) rc = missing(&d, "BloomFilterHeader", "numBytes", 1);
		else if (!c.seen[1]) rc = missing(&d, "BloomFilterHeader", "algorithm", 2);
		else if (!c.seen[2]) rc = missing(&d, "BloomFilterHeader", "hash", 3);
		else if (!c.seen[3]) rc = missing(&d, "BloomFilterHeader", "compression", 4);
		else if (out->num_bytes < 0)
			rc = pm_err(PAIMON_ECORRUPT, "parquet: BloomFilterHeader numBytes %d is negative",
				    out->num_bytes);
	}
	if (rc) {
		pm_err_wrap("parquet: BloomFilterHeader");
		return rc;
	}
	*consumed = d.r.pos;
	return 0;
}

/* ---------------------------------------------------------------- footer */

static uint32_t rd_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int check_head_magic(const uint8_t *p)
{
	if (memcmp(p, "PAR1", 4) != 0) {
		if (memcmp(p, "PARE", 4) == 0)
			return pm_err(PAIMON_EUNSUPPORTED, "parquet: encrypted file (leading magic PARE) "
				      "is not supported");
		return pm_err(PAIMON_ECORRUPT, "parquet: bad magic at start of file: %02x %02x %02x %02x "
			      "(want PAR1)", p[0], p[1], p[2], p[3]);
	}
	return 0;
}

int pm_parquet_parse_footer(const uint8_t *tail, size_t tail_len, uint64_t file_size,
			    pm_pq_file_meta **out, size_t *need)
{
	const uint8_t *end;
	uint32_t flen;
	int rc;
	*out = NULL;
	*need = 0;
	if (tail_len > file_size)
		return pm_err(PAIMON_EINVAL, "parquet: tail of %zu bytes is longer than the file (%llu)",
			      tail_len, (unsigned long long)file_size);
	if (file_size < 12)
		return pm_err(PAIMON_ECORRUPT, "parquet: file of %llu bytes is too small to be Parquet "
			      "(minimum 12)", (unsigned long long)file_size);
	if (tail_len < 8) {
		*need = 8;
		return 0;
	}
	end = tail + tail_len;
	if (memcmp(end - 4, "PAR1", 4) != 0) {
		if (memcmp(end - 4, "PARE", 4) == 0)
			return pm_err(PAIMON_EUNSUPPORTED, "parquet: encrypted file (footer magic PARE) is "
				      "not supported");
		return pm_err(PAIMON_ECORRUPT, "parquet: bad magic at end of file: %02x %02x %02x %02x "
			      "(want PAR1)", end[-4], end[-3], end[-2], end[-1]);
	}
	flen = rd_le32(end - 8);
	if (flen == 0)
		return pm_err(PAIMON_ECORRUPT, "parquet: footer length is 0");
	if ((uint64_t)flen + 12 > file_size)
		return pm_err(PAIMON_ECORRUPT, "parquet: footer length %u exceeds the file size %llu "
			      "less 12 bytes of magic and length", flen, (unsigned long long)file_size);
	if ((uint64_t)flen + 8 > tail_len) {
		*need = (size_t)flen + 8;
		return 0;
	}
	if (tail_len == file_size && (rc = check_head_magic(tail)) != 0)
		return rc;
	if ((rc = pm_pq_file_meta_decode(end - 8 - flen, flen, out)) != 0)
		return rc;
	(*out)->file_size = file_size;
	(*out)->footer_offset = file_size - 8 - flen;
	(*out)->footer_len = flen;
	return 0;
}

int pm_parquet_read_footer_mem(const uint8_t *file, size_t len, pm_pq_file_meta **out)
{
	size_t need;
	int rc;
	if (len >= 4 && (rc = check_head_magic(file)) != 0)
		return rc;
	return pm_parquet_parse_footer(file, len, len, out, &need);
}

int pm_parquet_read_footer(pm_fileio *io, const char *path, pm_pq_file_meta **out)
{
	pm_file_status st;
	uint8_t *buf = NULL, head[4];
	size_t tl, need = 0;
	int rc;
	*out = NULL;
	memset(&st, 0, sizeof st);
	if ((rc = pm_fileio_stat(io, path, &st)) != 0)
		return rc;
	if (st.size < 12) {
		rc = pm_err(PAIMON_ECORRUPT, "parquet: file of %llu bytes is too small to be Parquet "
			    "(minimum 12)", (unsigned long long)st.size);
		goto fail;
	}
	tl = st.size < PM_PQ_FOOTER_READ_SIZE ? (size_t)st.size : PM_PQ_FOOTER_READ_SIZE;
	for (;;) {
		if (!(buf = pm_malloc(tl)))
			return PAIMON_ENOMEM;
		if ((rc = pm_fileio_read_range(io, path, st.size - tl, tl, buf)) != 0)
			goto out;
		rc = pm_parquet_parse_footer(buf, tl, st.size, out, &need);
		if (rc)
			goto fail;
		if (*out)
			break;
		if (need <= tl) { /* cannot happen: parse asks only for more */
			rc = pm_err(PAIMON_ERROR, "parquet: footer reader made no progress");
			goto fail;
		}
		pm_free(buf);
		buf = NULL;
		tl = need;
	}
	if (tl < st.size) {
		if ((rc = pm_fileio_read_range(io, path, 0, 4, head)) != 0)
			goto out;
		if ((rc = check_head_magic(head)) != 0)
			goto fail;
	}
	pm_free(buf);
	return 0;
fail:
	if (rc != PAIMON_ENOMEM)
		pm_err_wrap("%s", path);
out:
	pm_pq_file_meta_free(*out);
	*out = NULL;
	pm_free(buf);
	return rc;
}

/* ---------------------------------------------------------------- schema */

int pm_pq_schema_build(const pm_pq_schema_element *elems, size_t n, pm_pq_schema **out)
{
	struct pm_pq_arena *a;
	pm_pq_schema *s;
	struct { pm_pq_schema_node *node; int32_t left; } stack[PM_PQ_MAX_SCHEMA_DEPTH + 1];
	int sp = 0, rc = 0;
	size_t idx, li;
	*out = NULL;
	if (n == 0)
		return pm_err(PAIMON_ECORRUPT, "parquet: schema is empty (no root element)");
	if (n > INT32_MAX)
		return pm_err(PAIMON_ECORRUPT, "parquet: schema of %zu elements is too large", n);
	if (!(a = arena_new(SIZE_MAX)))
		return PAIMON_ENOMEM;
	if (!(s = arena_alloc(a, sizeof *s)) || !(s->nodes = arena_alloc(a, n * sizeof *s->nodes)))
		goto oom;
	s->arena = a;
	s->n_nodes = n;
	/* Root. */
	{
		pm_pq_schema_node *r = &s->nodes[0];
		int32_t nc = elems[0].has_num_children ? elems[0].num_children : 0;
		r->elem = &elems[0];
		r->leaf_index = -1;
		if (nc < 0 || (size_t)nc > n - 1) {
			rc = pm_err(PAIMON_ECORRUPT, "parquet: schema root '%s' claims %d children but "
				    "only %zu elements follow", elems[0].name ? elems[0].name : "",
				    nc, n - 1);
			goto fail;
		}
		if (nc && !(r->children = arena_alloc(a, (size_t)nc * sizeof *r->children)))
			goto oom;
		stack[sp].node = r;
		stack[sp].left = nc;
		sp++;
	}
	idx = 1;
	while (sp > 0) {
		pm_pq_schema_node *p = stack[sp - 1].node, *c;
		const pm_pq_schema_element *e;
		int32_t nc;
		if (stack[sp - 1].left == 0) {
			sp--;
			continue;
		}
		if (idx >= n) {
			rc = pm_err(PAIMON_ECORRUPT, "parquet: schema ends after %zu elements but group "
				    "'%s' (element %d) expects %d more children", n,
				    p->elem->name ? p->elem->name : "", p->index, stack[sp - 1].left);
			goto fail;
		}
		e = &elems[idx];
		c = &s->nodes[idx];
		c->elem = e;
		c->index = (int)idx;
		c->parent = p;
		c->depth = p->depth + 1;
		c->leaf_index = -1;
		p->children[p->n_children++] = c;
		stack[sp - 1].left--;
		if (!e->has_repetition) {
			rc = pm_err(PAIMON_ECORRUPT, "parquet: schema element '%s' (element %zu) has no "
				    "repetition type", e->name ? e->name : "", idx);
			goto fail;
		}
		c->max_def_level = (int16_t)(p->max_def_level + (e->repetition != PM_PQ_REQUIRED));
		c->max_rep_level = (int16_t)(p->max_rep_level + (e->repetition == PM_PQ_REPEATED));
		if (!(c->path = arena_alloc(a, (size_t)c->depth * sizeof *c->path)))
			goto oom;
		if (c->depth > 1)
			memcpy(c->path, p->path, (size_t)(c->depth - 1) * sizeof *c->path);
		c->path[c->depth - 1] = e->name ? e->name : "";
		idx++;
		nc = e->has_num_children ? e->num_children : 0;
		if (nc > 0) {
			if ((size_t)nc > n - idx) {
				rc = pm_err(PAIMON_ECORRUPT, "parquet: schema group '%s' (element %zu) claims "
					    "%d children but only %zu elements follow", e->name, idx - 1,
					    nc, n - idx);
				goto fail;
			}
			if (c->depth >= PM_PQ_MAX_SCHEMA_DEPTH) {
				rc = pm_err(PAIMON_ECORRUPT, "parquet: schema nested deeper than %d at '%s'",
					    PM_PQ_MAX_SCHEMA_DEPTH, e->name);
				goto fail;
			}
			if (!(c->children = arena_alloc(a, (size_t)nc * sizeof *c->children)))
				goto oom;
			stack[sp].node = c;
			stack[sp].left = nc;
			sp++;
		} else {
			if (!e->has_type) {
				rc = pm_err(PAIMON_ECORRUPT, "parquet: schema leaf '%s' (element %zu) has no "
					    "physical type", e->name, idx - 1);
				goto fail;
			}
			if (e->type == PM_PQ_FIXED_LEN_BYTE_ARRAY &&
			    (!e->has_type_length || e->type_length <= 0)) {
				rc = pm_err(PAIMON_ECORRUPT, "parquet: FIXED_LEN_BYTE_ARRAY column '%s' has "
					    "no positive type_length", e->name);
				goto fail;
			}
			c->leaf_index = (int)s->n_leaves++;
		}
	}
	if (idx != n) {
		rc = pm_err(PAIMON_ECORRUPT, "parquet: schema has %zu elements but the root's tree "
			    "uses only %zu", n, idx);
		goto fail;
	}
	if (s->n_leaves && !(s->leaves = arena_alloc(a, s->n_leaves * sizeof *s->leaves)))
		goto oom;
	for (idx = 0, li = 0; idx < n; idx++)
		if (s->nodes[idx].leaf_index >= 0)
			s->leaves[li++] = &s->nodes[idx];
	*out = s;
	return 0;
oom:
	rc = pm_err_code();
	if (rc == 0)
		rc = PAIMON_ENOMEM;
fail:
	arena_free(a);
	return rc;
}

void pm_pq_schema_free(pm_pq_schema *s)
{
	if (s)
		arena_free(s->arena);
}

int pm_pq_file_meta_check(const pm_pq_file_meta *fm, const pm_pq_schema *s)
{
	size_t g, c, k;
	for (g = 0; g < fm->n_row_groups; g++) {
		const pm_pq_row_group *rg = &fm->row_groups[g];
		if (rg->n_columns != s->n_leaves)
			return pm_err(PAIMON_ECORRUPT, "parquet: row group %zu has %zu column chunks but "
				      "the schema has %zu columns", g, rg->n_columns, s->n_leaves);
		if (rg->num_rows < 0 || rg->total_byte_size < 0)
			return pm_err(PAIMON_ECORRUPT, "parquet: row group %zu has negative num_rows %lld "
				      "or total_byte_size %lld", g, (long long)rg->num_rows,
				      (long long)rg->total_byte_size);
		for (c = 0; c < rg->n_columns; c++) {
			const pm_pq_column_chunk *cc = &rg->columns[c];
			const pm_pq_column_meta *m = &cc->meta_data;
			const pm_pq_schema_node *leaf = s->leaves[c];
			if (!cc->has_meta_data)
				return pm_err(PAIMON_ECORRUPT, "parquet: row group %zu column %zu has no "
					      "meta_data", g, c);
			if (m->type != leaf->elem->type)
				return pm_err(PAIMON_ECORRUPT, "parquet: row group %zu column %zu has physical "
					      "type %d but the schema says %d", g, c, m->type,
					      leaf->elem->type);
			if (m->n_path != (size_t)leaf->depth)
				return pm_err(PAIMON_ECORRUPT, "parquet: row group %zu column %zu path has %zu "
					      "parts, schema leaf '%s' is at depth %d", g, c, m->n_path,
					      leaf->elem->name, leaf->depth);
			for (k = 0; k < m->n_path; k++)
				if (strcmp(m->path_in_schema[k], leaf->path[k]) != 0)
					return pm_err(PAIMON_ECORRUPT, "parquet: row group %zu column %zu path "
						      "part %zu is '%s', schema says '%s'", g, c, k,
						      m->path_in_schema[k], leaf->path[k]);
			if (m->num_values < 0 || m->total_compressed_size < 0 ||
			    m->total_uncompressed_size < 0 || m->data_page_offset < 0)
				return pm_err(PAIMON_ECORRUPT, "parquet: row group %zu column %zu has a "
					      "negative count, size or offset", g, c);
		}
	}
	return 0;
}
