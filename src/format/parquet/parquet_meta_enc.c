/*
 * format/parquet/parquet_meta_enc.c - Thrift compact encoding of Parquet
 * metadata (see parquet_meta.h). Fields are emitted in id order; optional
 * fields only when set; lists that are optional only when non-empty.
 */
#include <string.h>

#include "core/error.h"
#include "format/parquet/parquet_meta.h"
#include "serde/thrift/thrift.h"

typedef struct enc {
	pm_tc_writer w;
} enc;

static void need(enc *e, const void *p, const char *what)
{
	if (!p && !e->w.err)
		e->w.err = pm_err(PAIMON_EINVAL, "parquet encode: %s is NULL", what);
}

static void bin_field(enc *e, int16_t id, const pm_pq_bin *b)
{
	if (b->set)
		pm_tcw_field_binary(&e->w, id, b->p, b->len);
}

static void str_field(enc *e, int16_t id, const char *s)
{
	if (s)
		pm_tcw_field_string(&e->w, id, s);
}

static void enc_statistics(enc *e, const pm_pq_statistics *s)
{
	pm_tc_writer *w = &e->w;
	pm_tcw_struct_begin(w);
	bin_field(e, 1, &s->max);
	bin_field(e, 2, &s->min);
	if (s->has_null_count) pm_tcw_field_i64(w, 3, s->null_count);
	if (s->has_distinct_count) pm_tcw_field_i64(w, 4, s->distinct_count);
	bin_field(e, 5, &s->max_value);
	bin_field(e, 6, &s->min_value);
	if (s->has_is_max_value_exact) pm_tcw_field_bool(w, 7, s->is_max_value_exact);
	if (s->has_is_min_value_exact) pm_tcw_field_bool(w, 8, s->is_min_value_exact);
	if (s->has_nan_count) pm_tcw_field_i64(w, 9, s->nan_count);
	pm_tcw_struct_end(w);
}

static void enc_kv_list(enc *e, int16_t id, const pm_pq_key_value *kv, size_t n)
{
	size_t i;
	if (!n)
		return;
	need(e, kv, "key_value");
	if (e->w.err)
		return;
	pm_tcw_field(&e->w, id, PM_TC_LIST);
	pm_tcw_list_begin(&e->w, PM_TC_STRUCT, (uint32_t)n);
	for (i = 0; i < n; i++) {
		need(e, kv[i].key, "KeyValue.key");
		if (e->w.err)
			return;
		pm_tcw_struct_begin(&e->w);
		pm_tcw_field_string(&e->w, 1, kv[i].key);
		bin_field(e, 2, &kv[i].value);
		pm_tcw_struct_end(&e->w);
	}
}

static void enc_union_id(enc *e, int16_t field_id, int32_t member)
{
	pm_tcw_field(&e->w, field_id, PM_TC_STRUCT);
	pm_tcw_struct_begin(&e->w);
	if (member > 0 && member <= INT16_MAX)
		pm_tcw_field_empty_struct(&e->w, (int16_t)member);
	pm_tcw_struct_end(&e->w);
}

static void enc_logical(enc *e, const pm_pq_logical_type *lt)
{
	pm_tc_writer *w = &e->w;
	int16_t id = lt->kind == PM_PQ_LT_UNRECOGNIZED ? lt->unrecognized_id : (int16_t)lt->kind;
	if (lt->kind == PM_PQ_LT_NONE || id <= 0)
		return;
	pm_tcw_field(w, 10, PM_TC_STRUCT);
	pm_tcw_struct_begin(w);
	pm_tcw_field(w, id, PM_TC_STRUCT);
	pm_tcw_struct_begin(w);
	switch (lt->kind) {
	case PM_PQ_LT_DECIMAL:
		pm_tcw_field_i32(w, 1, lt->scale);
		pm_tcw_field_i32(w, 2, lt->precision);
		break;
	case PM_PQ_LT_TIME:
	case PM_PQ_LT_TIMESTAMP:
		pm_tcw_field_bool(w, 1, lt->is_adjusted_to_utc);
		enc_union_id(e, 2, lt->unit);
		break;
	case PM_PQ_LT_INTEGER:
		pm_tcw_field_i8(w, 1, lt->bit_width);
		pm_tcw_field_bool(w, 2, lt->is_signed);
		break;
	case PM_PQ_LT_VARIANT:
		if (lt->has_specification_version)
			pm_tcw_field_i8(w, 1, lt->specification_version);
		break;
	case PM_PQ_LT_GEOMETRY:
		str_field(e, 1, lt->crs);
		break;
	case PM_PQ_LT_GEOGRAPHY:
		str_field(e, 1, lt->crs);
		if (lt->has_algorithm)
			pm_tcw_field_i32(w, 2, lt->algorithm);
		break;
	default:
		break;
	}
	pm_tcw_struct_end(w);
	pm_tcw_struct_end(w);
}

static void enc_schema_element(enc *e, const pm_pq_schema_element *s)
{
	pm_tc_writer *w = &e->w;
	need(e, s->name, "SchemaElement.name");
	pm_tcw_struct_begin(w);
	if (s->has_type) pm_tcw_field_i32(w, 1, s->type);
	if (s->has_type_length) pm_tcw_field_i32(w, 2, s->type_length);
	if (s->has_repetition) pm_tcw_field_i32(w, 3, s->repetition);
	if (s->name) pm_tcw_field_string(w, 4, s->name);
	if (s->has_num_children) pm_tcw_field_i32(w, 5, s->num_children);
	if (s->has_converted_type) pm_tcw_field_i32(w, 6, s->converted_type);
	if (s->has_scale) pm_tcw_field_i32(w, 7, s->scale);
	if (s->has_precision) pm_tcw_field_i32(w, 8, s->precision);
	if (s->has_field_id) pm_tcw_field_i32(w, 9, s->field_id);
	enc_logical(e, &s->logical);
	pm_tcw_struct_end(w);
}

static void enc_column_meta(enc *e, const pm_pq_column_meta *m)
{
	pm_tc_writer *w = &e->w;
	size_t i;
	pm_tcw_struct_begin(w);
	pm_tcw_field_i32(w, 1, m->type);
	if (m->n_encodings)
		need(e, m->encodings, "ColumnMetaData.encodings");
	if (m->n_path)
		need(e, m->path_in_schema, "ColumnMetaData.path_in_schema");
	if (w->err)
		return;
	pm_tcw_field(w, 2, PM_TC_LIST);
	pm_tcw_list_begin(w, PM_TC_I32, (uint32_t)m->n_encodings);
	for (i = 0; i < m->n_encodings; i++)
		pm_tcw_i32(w, m->encodings[i]);
	pm_tcw_field(w, 3, PM_TC_LIST);
	pm_tcw_list_begin(w, PM_TC_BINARY, (uint32_t)m->n_path);
	for (i = 0; i < m->n_path; i++) {
		need(e, m->path_in_schema[i], "ColumnMetaData.path_in_schema[i]");
		if (w->err)
			return;
		pm_tcw_string(w, m->path_in_schema[i]);
	}
	pm_tcw_field_i32(w, 4, m->codec);
	pm_tcw_field_i64(w, 5, m->num_values);
	pm_tcw_field_i64(w, 6, m->total_uncompressed_size);
	pm_tcw_field_i64(w, 7, m->total_compressed_size);
	enc_kv_list(e, 8, m->key_value, m->n_key_value);
	pm_tcw_field_i64(w, 9, m->data_page_offset);
	if (m->has_index_page_offset) pm_tcw_field_i64(w, 10, m->index_page_offset);
	if (m->has_dictionary_page_offset) pm_tcw_field_i64(w, 11, m->dictionary_page_offset);
	if (m->has_statistics) {
		pm_tcw_field(w, 12, PM_TC_STRUCT);
		enc_statistics(e, &m->statistics);
	}
	if (m->n_encoding_stats) {
		need(e, m->encoding_stats, "ColumnMetaData.encoding_stats");
		if (w->err)
			return;
		pm_tcw_field(w, 13, PM_TC_LIST);
		pm_tcw_list_begin(w, PM_TC_STRUCT, (uint32_t)m->n_encoding_stats);
		for (i = 0; i < m->n_encoding_stats; i++) {
			pm_tcw_struct_begin(w);
			pm_tcw_field_i32(w, 1, m->encoding_stats[i].page_type);
			pm_tcw_field_i32(w, 2, m->encoding_stats[i].encoding);
			pm_tcw_field_i32(w, 3, m->encoding_stats[i].count);
			pm_tcw_struct_end(w);
		}
	}
	if (m->has_bloom_filter_offset) pm_tcw_field_i64(w, 14, m->bloom_filter_offset);
	if (m->has_bloom_filter_length) pm_tcw_field_i32(w, 15, m->bloom_filter_length);
	pm_tcw_struct_end(w);
}

static void enc_column_chunk(enc *e, const pm_pq_column_chunk *c)
{
	pm_tc_writer *w = &e->w;
	pm_tcw_struct_begin(w);
	str_field(e, 1, c->file_path);
	pm_tcw_field_i64(w, 2, c->file_offset);
	if (c->has_meta_data) {
		pm_tcw_field(w, 3, PM_TC_STRUCT);
		enc_column_meta(e, &c->meta_data);
	}
	if (c->has_offset_index_offset) pm_tcw_field_i64(w, 4, c->offset_index_offset);
	if (c->has_offset_index_length) pm_tcw_field_i32(w, 5, c->offset_index_length);
	if (c->has_column_index_offset) pm_tcw_field_i64(w, 6, c->column_index_offset);
	if (c->has_column_index_length) pm_tcw_field_i32(w, 7, c->column_index_length);
	pm_tcw_struct_end(w);
}

static void enc_row_group(enc *e, const pm_pq_row_group *g)
{
	pm_tc_writer *w = &e->w;
	size_t i;
	if (g->n_columns)
		need(e, g->columns, "RowGroup.columns");
	if (g->n_sorting_columns)
		need(e, g->sorting_columns, "RowGroup.sorting_columns");
	if (w->err)
		return;
	pm_tcw_struct_begin(w);
	pm_tcw_field(w, 1, PM_TC_LIST);
	pm_tcw_list_begin(w, PM_TC_STRUCT, (uint32_t)g->n_columns);
	for (i = 0; i < g->n_columns; i++)
		enc_column_chunk(e, &g->columns[i]);
	pm_tcw_field_i64(w, 2, g->total_byte_size);
	pm_tcw_field_i64(w, 3, g->num_rows);
	if (g->n_sorting_columns) {
		pm_tcw_field(w, 4, PM_TC_LIST);
		pm_tcw_list_begin(w, PM_TC_STRUCT, (uint32_t)g->n_sorting_columns);
		for (i = 0; i < g->n_sorting_columns; i++) {
			pm_tcw_struct_begin(w);
			pm_tcw_field_i32(w, 1, g->sorting_columns[i].column_idx);
			pm_tcw_field_bool(w, 2, g->sorting_columns[i].descending);
			pm_tcw_field_bool(w, 3, g->sorting_columns[i].nulls_first);
			pm_tcw_struct_end(w);
		}
	}
	if (g->has_file_offset) pm_tcw_field_i64(w, 5, g->file_offset);
	if (g->has_total_compressed_size) pm_tcw_field_i64(w, 6, g->total_compressed_size);
	if (g->has_ordinal) pm_tcw_field_i16(w, 7, g->ordinal);
	pm_tcw_struct_end(w);
}

static int finish(enc *e, pm_buf *out, size_t base, const char *what)
{
	int rc = pm_tcw_finish(&e->w);
	if (rc) {
		out->len = base;
		if (out->data)
			out->data[base] = '\0';
		if (rc != PAIMON_ENOMEM)
			pm_err_wrap("parquet: encoding %s", what);
	}
	return rc;
}

int pm_pq_file_meta_encode(const pm_pq_file_meta *fm, pm_buf *out)
{
	enc e;
	pm_tc_writer *w = &e.w;
	size_t i, base = out->len;
	pm_tcw_init(w, out);
	if (fm->n_schema) need(&e, fm->schema, "FileMetaData.schema");
	if (fm->n_row_groups) need(&e, fm->row_groups, "FileMetaData.row_groups");
	if (fm->n_column_orders) need(&e, fm->column_orders, "FileMetaData.column_orders");
	pm_tcw_struct_begin(w);
	pm_tcw_field_i32(w, 1, fm->version);
	pm_tcw_field(w, 2, PM_TC_LIST);
	pm_tcw_list_begin(w, PM_TC_STRUCT, (uint32_t)fm->n_schema);
	for (i = 0; i < fm->n_schema && !w->err; i++)
		enc_schema_element(&e, &fm->schema[i]);
	pm_tcw_field_i64(w, 3, fm->num_rows);
	pm_tcw_field(w, 4, PM_TC_LIST);
	pm_tcw_list_begin(w, PM_TC_STRUCT, (uint32_t)fm->n_row_groups);
	for (i = 0; i < fm->n_row_groups && !w->err; i++)
		enc_row_group(&e, &fm->row_groups[i]);
	enc_kv_list(&e, 5, fm->key_value, fm->n_key_value);
	str_field(&e, 6, fm->created_by);
	if (fm->n_column_orders && !w->err) {
		pm_tcw_field(w, 7, PM_TC_LIST);
		pm_tcw_list_begin(w, PM_TC_STRUCT, (uint32_t)fm->n_column_orders);
		for (i = 0; i < fm->n_column_orders; i++) {
			int32_t k = fm->column_orders[i].kind;
			pm_tcw_struct_begin(w);
			if (k > 0 && k <= INT16_MAX)
				pm_tcw_field_empty_struct(w, (int16_t)k);
			pm_tcw_struct_end(w);
		}
	}
	pm_tcw_struct_end(w);
	return finish(&e, out, base, "FileMetaData");
}

int pm_pq_page_header_encode(const pm_pq_page_header *ph, pm_buf *out)
{
	enc e;
	pm_tc_writer *w = &e.w;
	size_t base = out->len;
	pm_tcw_init(w, out);
	pm_tcw_struct_begin(w);
	pm_tcw_field_i32(w, 1, ph->type);
	pm_tcw_field_i32(w, 2, ph->uncompressed_page_size);
	pm_tcw_field_i32(w, 3, ph->compressed_page_size);
	if (ph->has_crc) pm_tcw_field_i32(w, 4, ph->crc);
	if (ph->has_data_page_header) {
		const pm_pq_data_page_header *h = &ph->data_page_header;
		pm_tcw_field(w, 5, PM_TC_STRUCT);
		pm_tcw_struct_begin(w);
		pm_tcw_field_i32(w, 1, h->num_values);
		pm_tcw_field_i32(w, 2, h->encoding);
		pm_tcw_field_i32(w, 3, h->definition_level_encoding);
		pm_tcw_field_i32(w, 4, h->repetition_level_encoding);
		if (h->has_statistics) {
			pm_tcw_field(w, 5, PM_TC_STRUCT);
			enc_statistics(&e, &h->statistics);
		}
		pm_tcw_struct_end(w);
	}
	if (ph->has_index_page_header)
		pm_tcw_field_empty_struct(w, 6);
	if (ph->has_dictionary_page_header) {
		const pm_pq_dictionary_page_header *h = &ph->dictionary_page_header;
		pm_tcw_field(w, 7, PM_TC_STRUCT);
		pm_tcw_struct_begin(w);
		pm_tcw_field_i32(w, 1, h->num_values);
		pm_tcw_field_i32(w, 2, h->encoding);
		if (h->has_is_sorted) pm_tcw_field_bool(w, 3, h->is_sorted);
		pm_tcw_struct_end(w);
	}
	if (ph->has_data_page_header_v2) {
		const pm_pq_data_page_header_v2 *h = &ph->data_page_header_v2;
		pm_tcw_field(w, 8, PM_TC_STRUCT);
		pm_tcw_struct_begin(w);
		pm_tcw_field_i32(w, 1, h->num_values);
		pm_tcw_field_i32(w, 2, h->num_nulls);
		pm_tcw_field_i32(w, 3, h->num_rows);
		pm_tcw_field_i32(w, 4, h->encoding);
		pm_tcw_field_i32(w, 5, h->definition_levels_byte_length);
		pm_tcw_field_i32(w, 6, h->repetition_levels_byte_length);
		if (h->has_is_compressed || !h->is_compressed)
			pm_tcw_field_bool(w, 7, h->is_compressed);
		if (h->has_statistics) {
			pm_tcw_field(w, 8, PM_TC_STRUCT);
			enc_statistics(&e, &h->statistics);
		}
		pm_tcw_struct_end(w);
	}
	pm_tcw_struct_end(w);
	return finish(&e, out, base, "PageHeader");
}

static void i64_list(enc *e, int16_t id, const int64_t *v, size_t n)
{
	size_t i;
	if (!v)
		return;
	pm_tcw_field(&e->w, id, PM_TC_LIST);
	pm_tcw_list_begin(&e->w, PM_TC_I64, (uint32_t)n);
	for (i = 0; i < n; i++)
		pm_tcw_i64(&e->w, v[i]);
}

static void bin_list(enc *e, int16_t id, const pm_pq_bin *v, size_t n)
{
	size_t i;
	pm_tcw_field(&e->w, id, PM_TC_LIST);
	pm_tcw_list_begin(&e->w, PM_TC_BINARY, (uint32_t)n);
	for (i = 0; i < n; i++)
		pm_tcw_binary(&e->w, v[i].p, v[i].len);
}

int pm_pq_column_index_encode(const pm_pq_column_index *ci, pm_buf *out)
{
	enc e;
	pm_tc_writer *w = &e.w;
	size_t i, base = out->len;
	pm_tcw_init(w, out);
	if (ci->n_pages) {
		need(&e, ci->null_pages, "ColumnIndex.null_pages");
		need(&e, ci->min_values, "ColumnIndex.min_values");
		need(&e, ci->max_values, "ColumnIndex.max_values");
	}
	if (!w->err && ((ci->null_counts && ci->n_null_counts != ci->n_pages) ||
			(ci->nan_counts && ci->n_nan_counts != ci->n_pages)))
		w->err = pm_err(PAIMON_EINVAL, "ColumnIndex: null_counts/nan_counts length differs "
				"from the page count %zu", ci->n_pages);
	pm_tcw_struct_begin(w);
	pm_tcw_field(w, 1, PM_TC_LIST);
	pm_tcw_list_begin(w, PM_TC_BOOL, (uint32_t)ci->n_pages);
	for (i = 0; i < ci->n_pages && !w->err; i++)
		pm_tcw_bool(w, ci->null_pages[i]);
	if (!w->err) {
		bin_list(&e, 2, ci->min_values, ci->n_pages);
		bin_list(&e, 3, ci->max_values, ci->n_pages);
	}
	pm_tcw_field_i32(w, 4, ci->boundary_order);
	i64_list(&e, 5, ci->null_counts, ci->n_null_counts);
	i64_list(&e, 6, ci->repetition_level_histograms, ci->n_repetition_level_histograms);
	i64_list(&e, 7, ci->definition_level_histograms, ci->n_definition_level_histograms);
	i64_list(&e, 8, ci->nan_counts, ci->n_nan_counts);
	pm_tcw_struct_end(w);
	return finish(&e, out, base, "ColumnIndex");
}

int pm_pq_offset_index_encode(const pm_pq_offset_index *oi, pm_buf *out)
{
	enc e;
	pm_tc_writer *w = &e.w;
	size_t i, base = out->len;
	pm_tcw_init(w, out);
	if (oi->n_page_locations)
		need(&e, oi->page_locations, "OffsetIndex.page_locations");
	pm_tcw_struct_begin(w);
	pm_tcw_field(w, 1, PM_TC_LIST);
	pm_tcw_list_begin(w, PM_TC_STRUCT, (uint32_t)oi->n_page_locations);
	for (i = 0; i < oi->n_page_locations && !w->err; i++) {
		const pm_pq_page_location *l = &oi->page_locations[i];
		pm_tcw_struct_begin(w);
		pm_tcw_field_i64(w, 1, l->offset);
		pm_tcw_field_i32(w, 2, l->compressed_page_size);
		pm_tcw_field_i64(w, 3, l->first_row_index);
		pm_tcw_struct_end(w);
	}
	i64_list(&e, 2, oi->unencoded_byte_array_data_bytes, oi->n_unencoded_byte_array_data_bytes);
	pm_tcw_struct_end(w);
	return finish(&e, out, base, "OffsetIndex");
}

int pm_pq_bloom_filter_header_encode(const pm_pq_bloom_filter_header *bh, pm_buf *out)
{
	enc e;
	size_t base = out->len;
	pm_tcw_init(&e.w, out);
	pm_tcw_struct_begin(&e.w);
	pm_tcw_field_i32(&e.w, 1, bh->num_bytes);
	enc_union_id(&e, 2, bh->algorithm);
	enc_union_id(&e, 3, bh->hash);
	enc_union_id(&e, 4, bh->compression);
	pm_tcw_struct_end(&e.w);
	return finish(&e, out, base, "BloomFilterHeader");
}
