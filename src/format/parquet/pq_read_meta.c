/*
 * format/parquet/pm_pq_read_meta.c - JSON description of a Parquet file's
 * metadata (for `paimonc parquet meta` and paimon_parquet_file_meta_json).
 */
#include "format/parquet/pq_read_int.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "codec/codec.h"
#include "core/error.h"
#include "core/mem.h"

static const char *const TYPES[] = {"BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE", "BYTE_ARRAY",
				    "FIXED_LEN_BYTE_ARRAY"};
static const char *const REPS[] = {"REQUIRED", "OPTIONAL", "REPEATED"};
static const char *const CONVERTED[] = {"UTF8", "MAP", "MAP_KEY_VALUE", "LIST", "ENUM", "DECIMAL", "DATE",
	"TIME_MILLIS", "TIME_MICROS", "TIMESTAMP_MILLIS", "TIMESTAMP_MICROS", "UINT_8", "UINT_16", "UINT_32",
	"UINT_64", "INT_8", "INT_16", "INT_32", "INT_64", "JSON", "BSON", "INTERVAL"};
static const char *const ENCODINGS[] = {"PLAIN", "GROUP_VAR_INT", "PLAIN_DICTIONARY", "RLE", "BIT_PACKED",
	"DELTA_BINARY_PACKED", "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY", "RLE_DICTIONARY",
	"BYTE_STREAM_SPLIT", "ALP"};
static const char *const PAGE_TYPES[] = {"DATA_PAGE", "INDEX_PAGE", "DICTIONARY_PAGE", "DATA_PAGE_V2"};

#define NAME(tab, v) ((v) >= 0 && (size_t)(v) < sizeof tab / sizeof tab[0] ? tab[v] : NULL)

static json_t *enum_json(const char *name, int v)
{
	return name ? json_string(name) : json_integer(v);
}

static const char *unit_name(int u)
{
	return u == PM_PQ_MILLIS ? "MILLIS" : u == PM_PQ_MICROS ? "MICROS" : u == PM_PQ_NANOS ? "NANOS" : "?";
}

static json_t *logical_json(const pm_pq_logical_type *lt)
{
	char buf[128];
	switch (lt->kind) {
	case PM_PQ_LT_NONE: return json_null();
	case PM_PQ_LT_STRING: return json_string("STRING");
	case PM_PQ_LT_MAP: return json_string("MAP");
	case PM_PQ_LT_LIST: return json_string("LIST");
	case PM_PQ_LT_ENUM: return json_string("ENUM");
	case PM_PQ_LT_DECIMAL:
		snprintf(buf, sizeof buf, "DECIMAL(%d,%d)", (int)lt->precision, (int)lt->scale);
		return json_string(buf);
	case PM_PQ_LT_DATE: return json_string("DATE");
	case PM_PQ_LT_TIME:
		snprintf(buf, sizeof buf, "TIME(%s,%s)", unit_name(lt->unit), lt->is_adjusted_to_utc ? "true" : "false");
		return json_string(buf);
	case PM_PQ_LT_TIMESTAMP:
		snprintf(buf, sizeof buf, "TIMESTAMP(%s,%s)", unit_name(lt->unit),
			 lt->is_adjusted_to_utc ? "true" : "false");
		return json_string(buf);
	case PM_PQ_LT_INTEGER:
		snprintf(buf, sizeof buf, "INTEGER(%d,%s)", (int)lt->bit_width, lt->is_signed ? "true" : "false");
		return json_string(buf);
	case PM_PQ_LT_UNKNOWN: return json_string("UNKNOWN");
	case PM_PQ_LT_JSON: return json_string("JSON");
	case PM_PQ_LT_BSON: return json_string("BSON");
	case PM_PQ_LT_UUID: return json_string("UUID");
	case PM_PQ_LT_FLOAT16: return json_string("FLOAT16");
	case PM_PQ_LT_VARIANT: return json_string("VARIANT");
	case PM_PQ_LT_GEOMETRY: return json_string("GEOMETRY");
	case PM_PQ_LT_GEOGRAPHY: return json_string("GEOGRAPHY");
	case PM_PQ_LT_FILE: return json_string("FILE");
	default:
		snprintf(buf, sizeof buf, "unrecognized(%d)", (int)lt->unrecognized_id);
		return json_string(buf);
	}
}

/* A statistics value rendered per physical type: numbers for numeric types,
 * a string for valid UTF-8 byte arrays, hex otherwise. */
static json_t *stat_value(int type, const pm_pq_bin *b)
{
	char *hex;
	size_t i;
	json_t *j;
	if (!b->set)
		return NULL;
	if ((type == PM_PQ_INT32 || type == PM_PQ_FLOAT) && b->len == 4) {
		int32_t v;
		float f;
		memcpy(&v, b->p, 4);
		memcpy(&f, b->p, 4);
		return type == PM_PQ_INT32 ? json_integer(v) : json_real(f);
	}
	if ((type == PM_PQ_INT64 || type == PM_PQ_DOUBLE) && b->len == 8) {
		int64_t v;
		double d;
		memcpy(&v, b->p, 8);
		memcpy(&d, b->p, 8);
		return type == PM_PQ_INT64 ? json_integer(v) : json_real(d);
	}
	if (type == PM_PQ_BOOLEAN && b->len == 1)
		return json_boolean(b->p[0] != 0);
	if (type == PM_PQ_BYTE_ARRAY && (j = json_stringn((const char *)b->p, b->len)))
		return j;
	if (!(hex = pm_malloc(b->len * 2 + 3)))
		return NULL;
	hex[0] = '0';
	hex[1] = 'x';
	for (i = 0; i < b->len; i++)
		snprintf(hex + 2 + 2 * i, 3, "%02x", b->p[i]);
	hex[2 + 2 * b->len] = 0;
	j = json_string(hex);
	pm_free(hex);
	return j;
}

static json_t *stats_json(int type, const pm_pq_statistics *s)
{
	json_t *o = json_object();
	json_t *v;
	if (!o)
		return NULL;
	if (s->has_null_count)
		json_object_set_new(o, "null_count", json_integer(s->null_count));
	if (s->has_distinct_count)
		json_object_set_new(o, "distinct_count", json_integer(s->distinct_count));
	if ((v = stat_value(type, &s->min_value)))
		json_object_set_new(o, "min_value", v);
	if ((v = stat_value(type, &s->max_value)))
		json_object_set_new(o, "max_value", v);
	if ((v = stat_value(type, &s->min)))
		json_object_set_new(o, "min", v);
	if ((v = stat_value(type, &s->max)))
		json_object_set_new(o, "max", v);
	if (s->has_nan_count)
		json_object_set_new(o, "nan_count", json_integer(s->nan_count));
	return o;
}

static int pages_json(pm_in_file *f, const char *path, const pm_pq_file_meta *fm, const pm_pq_column_meta *m,
		      json_t *arr)
{
	uint64_t start = (uint64_t)m->data_page_offset, end, pos;
	uint64_t limit = fm->footer_offset ? fm->footer_offset : fm->file_size;
	uint8_t *buf = NULL;
	int rc = 0;
	if (m->has_dictionary_page_offset && m->dictionary_page_offset > 0 &&
	    m->dictionary_page_offset < m->data_page_offset)
		start = (uint64_t)m->dictionary_page_offset;
	if (m->data_page_offset < 0 || m->total_compressed_size < 0 || start > limit ||
	    (uint64_t)m->total_compressed_size > limit - start)
		return pm_err(PAIMON_ECORRUPT, "%s: column chunk outside the file", path);
	end = start + (uint64_t)m->total_compressed_size;
	for (pos = start; pos < end;) {
		pm_pq_page_header h;
		size_t hl, n = end - pos < 65536 ? (size_t)(end - pos) : 65536;
		json_t *p;
		if (!(buf = pm_realloc(buf, n)))
			return PAIMON_ENOMEM;
		if ((rc = pm_in_pread(f, pos, n, buf)))
			break;
		if ((rc = pm_pq_page_header_decode(buf, n, &h, &hl))) {
			pm_err_wrap("%s: page header at offset %llu", path, (unsigned long long)pos);
			break;
		}
		if (!(p = json_object())) {
			rc = PAIMON_ENOMEM;
			break;
		}
		json_object_set_new(p, "offset", json_integer((json_int_t)pos));
		json_object_set_new(p, "type", enum_json(NAME(PAGE_TYPES, h.type), h.type));
		json_object_set_new(p, "header_size", json_integer((json_int_t)hl));
		json_object_set_new(p, "compressed_size", json_integer(h.compressed_page_size));
		json_object_set_new(p, "uncompressed_size", json_integer(h.uncompressed_page_size));
		if (h.has_crc)
			json_object_set_new(p, "crc", json_integer((uint32_t)h.crc));
		if (h.has_data_page_header) {
			json_object_set_new(p, "num_values", json_integer(h.data_page_header.num_values));
			json_object_set_new(p, "encoding", enum_json(NAME(ENCODINGS, h.data_page_header.encoding),
								     h.data_page_header.encoding));
			if (h.data_page_header.has_statistics)
				json_object_set_new(p, "statistics", stats_json(m->type, &h.data_page_header.statistics));
		}
		if (h.has_data_page_header_v2) {
			const pm_pq_data_page_header_v2 *v = &h.data_page_header_v2;
			json_object_set_new(p, "num_values", json_integer(v->num_values));
			json_object_set_new(p, "num_nulls", json_integer(v->num_nulls));
			json_object_set_new(p, "num_rows", json_integer(v->num_rows));
			json_object_set_new(p, "encoding", enum_json(NAME(ENCODINGS, v->encoding), v->encoding));
			json_object_set_new(p, "is_compressed", json_boolean(v->is_compressed));
		}
		if (h.has_dictionary_page_header) {
			json_object_set_new(p, "num_values", json_integer(h.dictionary_page_header.num_values));
			json_object_set_new(p, "encoding", enum_json(NAME(ENCODINGS, h.dictionary_page_header.encoding),
								     h.dictionary_page_header.encoding));
		}
		json_array_append_new(arr, p);
		if (h.compressed_page_size < 0) {
			rc = pm_err(PAIMON_ECORRUPT, "%s: negative page size at offset %llu", path,
				    (unsigned long long)pos);
			break;
		}
		pos += hl + (uint64_t)h.compressed_page_size;
	}
	pm_free(buf);
	return rc;
}

int pm_pq_file_meta_json(pm_fileio *io, const char *path, int with_pages, char **out)
{
	pm_pq_file_meta *fm = NULL;
	pm_pq_schema *s = NULL;
	pm_in_file *f = NULL;
	json_t *root = NULL, *arr, *o;
	size_t i, j, k;
	int rc;
	char *str;

	*out = NULL;
	if ((rc = pm_fileio_open_read(io, path, &f)))
		return rc;
	if ((rc = pm_pq_read_footer_file(f, path, &fm)))
		goto done;
	if ((rc = pm_pq_schema_build(fm->schema, fm->n_schema, &s))) {
		pm_err_wrap("%s", path);
		goto done;
	}
	rc = PAIMON_ENOMEM;
	if (!(root = json_object()))
		goto done;
	json_object_set_new(root, "file", json_string(path));
	json_object_set_new(root, "file_size", json_integer((json_int_t)fm->file_size));
	json_object_set_new(root, "version", json_integer(fm->version));
	json_object_set_new(root, "created_by", fm->created_by ? json_string(fm->created_by) : json_null());
	{
		int64_t rows = 0;
		for (i = 0; i < fm->n_row_groups; i++)
			rows += fm->row_groups[i].num_rows;
		json_object_set_new(root, "num_rows", json_integer(rows));
	}
	json_object_set_new(root, "num_row_groups", json_integer((json_int_t)fm->n_row_groups));
	arr = json_array();
	for (i = 0; i < fm->n_key_value; i++) {
		o = json_object();
		json_object_set_new(o, "key", json_string(fm->key_value[i].key));
		if (fm->key_value[i].value.set)
			json_object_set_new(o, "value_length", json_integer((json_int_t)fm->key_value[i].value.len));
		json_array_append_new(arr, o);
	}
	json_object_set_new(root, "key_value_metadata", arr);
	arr = json_array();
	for (i = 0; i < s->n_nodes; i++) {
		const pm_pq_schema_node *n = &s->nodes[i];
		const pm_pq_schema_element *e = n->elem;
		o = json_object();
		json_object_set_new(o, "name", json_string(e->name));
		json_object_set_new(o, "depth", json_integer(n->depth));
		if (e->has_repetition)
			json_object_set_new(o, "repetition", enum_json(NAME(REPS, e->repetition), e->repetition));
		if (n->leaf_index >= 0) {
			json_object_set_new(o, "type", enum_json(NAME(TYPES, e->type), e->type));
			if (e->has_type_length)
				json_object_set_new(o, "type_length", json_integer(e->type_length));
			json_object_set_new(o, "column", json_integer(n->leaf_index));
		} else {
			json_object_set_new(o, "num_children", json_integer(n->n_children));
		}
		if (e->logical.kind != PM_PQ_LT_NONE)
			json_object_set_new(o, "logical_type", logical_json(&e->logical));
		if (e->has_converted_type)
			json_object_set_new(o, "converted_type",
					    enum_json(NAME(CONVERTED, e->converted_type), e->converted_type));
		if (e->has_field_id)
			json_object_set_new(o, "field_id", json_integer(e->field_id));
		json_object_set_new(o, "max_def_level", json_integer(n->max_def_level));
		json_object_set_new(o, "max_rep_level", json_integer(n->max_rep_level));
		json_array_append_new(arr, o);
	}
	json_object_set_new(root, "schema", arr);
	arr = json_array();
	json_object_set_new(root, "row_groups", arr);
	for (i = 0; i < fm->n_row_groups; i++) {
		const pm_pq_row_group *g = &fm->row_groups[i];
		json_t *cols = json_array();
		o = json_object();
		json_object_set_new(o, "num_rows", json_integer(g->num_rows));
		json_object_set_new(o, "total_byte_size", json_integer(g->total_byte_size));
		if (g->has_total_compressed_size)
			json_object_set_new(o, "total_compressed_size", json_integer(g->total_compressed_size));
		json_object_set_new(o, "columns", cols);
		json_array_append_new(arr, o);
		for (j = 0; j < g->n_columns; j++) {
			const pm_pq_column_chunk *cc = &g->columns[j];
			const pm_pq_column_meta *m = &cc->meta_data;
			json_t *c = json_object(), *a;
			pm_buf pb = {0};
			json_array_append_new(cols, c);
			if (!cc->has_meta_data)
				continue;
			for (k = 0; k < m->n_path; k++)
				if ((k && pm_buf_putc(&pb, '.')) || pm_buf_puts(&pb, m->path_in_schema[k]))
					break;
			json_object_set_new(c, "path", json_string(pb.len ? pm_buf_cstr(&pb) : ""));
			pm_buf_dispose(&pb);
			json_object_set_new(c, "type", enum_json(NAME(TYPES, m->type), m->type));
			json_object_set_new(c, "codec", json_string(pm_codec_name(m->codec)));
			a = json_array();
			for (k = 0; k < m->n_encodings; k++)
				json_array_append_new(a, enum_json(NAME(ENCODINGS, m->encodings[k]), m->encodings[k]));
			json_object_set_new(c, "encodings", a);
			json_object_set_new(c, "num_values", json_integer(m->num_values));
			json_object_set_new(c, "total_compressed_size", json_integer(m->total_compressed_size));
			json_object_set_new(c, "total_uncompressed_size", json_integer(m->total_uncompressed_size));
			json_object_set_new(c, "data_page_offset", json_integer(m->data_page_offset));
			if (m->has_dictionary_page_offset)
				json_object_set_new(c, "dictionary_page_offset", json_integer(m->dictionary_page_offset));
			if (cc->has_offset_index_offset)
				json_object_set_new(c, "offset_index_offset", json_integer(cc->offset_index_offset));
			if (cc->has_column_index_offset)
				json_object_set_new(c, "column_index_offset", json_integer(cc->column_index_offset));
			if (m->has_bloom_filter_offset)
				json_object_set_new(c, "bloom_filter_offset", json_integer(m->bloom_filter_offset));
			if (m->has_statistics)
				json_object_set_new(c, "statistics", stats_json(m->type, &m->statistics));
			if (with_pages) {
				json_t *pages = json_array();
				json_object_set_new(c, "pages", pages);
				if ((rc = pages_json(f, path, fm, m, pages))) {
					pm_err_wrap("row group %zu, column %zu", i, j);
					goto done;
				}
			}
		}
	}
	rc = PAIMON_ENOMEM;
	if (!(str = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER)))
		goto done;
	*out = pm_strdup(str);
	free(str);
	rc = *out ? 0 : PAIMON_ENOMEM;
done:
	json_decref(root);
	pm_pq_schema_free(s);
	pm_pq_file_meta_free(fm);
	pm_in_close(f);
	return rc;
}
