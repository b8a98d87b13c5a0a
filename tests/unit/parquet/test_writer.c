/* tests/unit/parquet/test_writer.c - Parquet writer: schema layout and field
 * ids, statistics ordering, page cutting, page indexes, error messages. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "arrow/arrow_builder.h"
#include "core/buf.h"
#include "core/mem.h"
#include "format/parquet/parquet_meta.h"
#include "format/parquet/pq_schema_paimon.h"
#include "format/parquet/writer.h"
#include "io/fileio.h"
#include "types/datatype.h"
#include "test.h"

static pm_type *parse_row(const char *s)
{
	pm_type *t = NULL;
	int32_t hi = -1;
	size_t i;
	if (pm_type_parse(s, &t))
		return NULL;
	for (i = 0; i < t->nfields; i++)
		t->fields[i].id = (int32_t)i;
	hi = (int32_t)t->nfields - 1;
	pm_type_assign_ids(t, &hi);
	return t;
}

static void test_field_ids(void)
{
	pm_type *t = NULL;
	pm_pq_wschema *s = NULL;
	CHECK_OK(pm_type_parse("ROW<`a` ARRAY<MAP<INT, ARRAY<INT>>>>", &t));
	t->fields[0].id = 10;
	CHECK_OK(pm_pq_wschema_build(t, &s));
	if (s) {
		/* root, a, list, element(map), key_value, key, value(array), list, element */
		CHECK(s->n_elems == 9);
		CHECK(!strcmp(s->elems[0].name, "paimon_schema") && !s->elems[0].has_repetition);
		CHECK(s->elems[1].field_id == 10 && s->elems[1].converted_type == PM_PQ_CT_LIST);
		CHECK(!strcmp(s->elems[2].name, "list") && !s->elems[2].has_field_id &&
			s->elems[2].repetition == PM_PQ_REPEATED);
		CHECK(s->elems[3].field_id == 536881152 && !strcmp(s->elems[3].name, "element"));
		CHECK(!strcmp(s->elems[4].name, "key_value") && s->elems[4].converted_type == PM_PQ_CT_MAP_KEY_VALUE);
		CHECK(s->elems[5].field_id == 536860669 && s->elems[5].repetition == PM_PQ_REQUIRED);
		CHECK(s->elems[6].field_id == 536881153);
		CHECK(s->elems[8].field_id == 536881154);
		CHECK(s->n_cols == 2 && s->cols[0].max_def == 4 && s->cols[0].max_rep == 2);
		CHECK(s->cols[1].max_def == 7 && s->cols[1].max_rep == 3);
		CHECK_STR(s->cols[1].dotted, "a.list.element.key_value.value.list.element");
	}
	/* 32-bit wrap like Java */
	CHECK(pm_pq_array_element_id(2147483646, 1) == (int32_t)(536870911u + 2147483646u * 1024u + 1u));
	CHECK(pm_pq_decimal_flba_len(19) == 9 && pm_pq_decimal_flba_len(38) == 16 && pm_pq_decimal_flba_len(28) == 12);
	pm_pq_wschema_free(s);
	pm_type_free(t);
}

/* Writes one batch (a struct of the builders' arrays; root is freed) and reads the footer. */
static int write_file(const char *path, const pm_type *row, pm_array_builder *root, const pm_pq_writer_opts *o,
	pm_pq_file_meta **fm)
{
	pm_fileio *io = NULL;
	pm_pq_writer *w = NULL;
	struct ArrowArray a;
	struct ArrowSchema s;
	int rc;
	memset(&a, 0, sizeof a);
	memset(&s, 0, sizeof s);
	if ((rc = pm_fileio_local_new(&io)))
		return rc;
	if (!(rc = pm_ab_schema(root, &s)) && !(rc = pm_ab_finish(root, &a)) &&
	    !(rc = pm_pq_writer_open(io, path, row, o, &w)) && !(rc = pm_pq_writer_write(w, &a, &s)))
		rc = pm_pq_writer_close(w);
	pm_pq_writer_free(w);
	pm_ab_free(root);
	if (a.release)
		a.release(&a);
	if (s.release)
		s.release(&s);
	if (!rc && fm)
		rc = pm_parquet_read_footer(io, path, fm);
	pm_fileio_close(io);
	return rc;
}

static int32_t i32_of(pm_pq_bin b)
{
	int32_t v = 0;
	if (b.len == 4)
		memcpy(&v, b.p, 4);
	return v;
}

static void test_stats_ordering(void)
{
	char *dir = test_tmpdir(), path[4200];
	pm_type *row = parse_row("ROW<i INT, s STRING, f FLOAT, d DECIMAL(20, 2), b BOOLEAN, t TIMESTAMP(9), z DOUBLE>");
	pm_array_builder *ch[7], *root;
	pm_pq_file_meta *fm = NULL;
	int32_t iv[] = {5, -7, 3};
	float fv[] = {NAN, 0.0f, 2.5f};
	double zv[] = {-0.0, 0.0, -0.0};
	uint8_t dv[3][16];
	int64_t tv = 1;
	int k;
	snprintf(path, sizeof path, "%s/stats.parquet", dir);
	ch[0] = pm_ab_new_fixed("i", 4);
	ch[1] = pm_ab_new_binary("u", 0);
	ch[2] = pm_ab_new_fixed("f", 4);
	ch[3] = pm_ab_new_fixed("d:20,2", 16);
	ch[4] = pm_ab_new_bool();
	ch[5] = pm_ab_new_fixed("tsn:", 8);
	ch[6] = pm_ab_new_fixed("g", 8);
	for (k = 0; k < 3; k++) {
		int64_t lo = k == 0 ? -100 : k == 1 ? 7 : -3, hi = lo < 0 ? -1 : 0;
		memcpy(dv[k], &lo, 8);
		memcpy(dv[k] + 8, &hi, 8);
	}
	CHECK_OK(pm_ab_append_fixed(ch[0], iv, 3));
	CHECK_OK(pm_ab_append_binary(ch[1], "z", 1));
	CHECK_OK(pm_ab_append_binary(ch[1], "\xc3\xa9", 2)); /* > "z" unsigned */
	CHECK_OK(pm_ab_append_nulls(ch[1], 1));
	CHECK_OK(pm_ab_append_fixed(ch[2], fv, 3));
	CHECK_OK(pm_ab_append_fixed(ch[3], dv, 3));
	CHECK_OK(pm_ab_append_bools(ch[4], (const uint8_t *)"\1\1\1", 3));
	CHECK_OK(pm_ab_append_fixed_repeat(ch[5], &tv, 3));
	CHECK_OK(pm_ab_append_fixed(ch[6], zv, 3));
	for (k = 0; k < 7; k++)
		CHECK_OK(pm_ab_set_name(ch[k], row->fields[k].name, 1));
	root = pm_ab_new_struct(ch, 7);
	CHECK_OK(pm_ab_append_valid(root, 3));
	CHECK_OK(write_file(path, row, root, NULL, &fm));
	if (fm) {
		const pm_pq_statistics *st;
		float f;
		double z;
		CHECK(fm->n_row_groups == 1 && fm->num_rows == 3 && fm->version == 1);
		CHECK(fm->created_by && !strncmp(fm->created_by, "paimon-c version 0.1.0 (build ", 30));
		CHECK(fm->n_column_orders == 7);
		st = &fm->row_groups[0].columns[0].meta_data.statistics;
		CHECK(i32_of(st->min_value) == -7 && i32_of(st->max_value) == 5 && st->min.set && st->max.set);
		st = &fm->row_groups[0].columns[1].meta_data.statistics;
		CHECK(st->null_count == 1 && st->min_value.len == 1 && st->min_value.p[0] == 'z');
		CHECK(st->max_value.len == 2 && st->max_value.p[0] == 0xc3 && !st->min.set && !st->max.set);
		st = &fm->row_groups[0].columns[2].meta_data.statistics;
		memcpy(&f, st->min_value.p, 4);
		CHECK(f == 0 && signbit(f)); /* NaN ignored, min zero is -0.0 */
		memcpy(&f, st->max_value.p, 4);
		CHECK(f == 2.5f);
		st = &fm->row_groups[0].columns[3].meta_data.statistics;
		CHECK(fm->row_groups[0].columns[3].meta_data.type == PM_PQ_FIXED_LEN_BYTE_ARRAY);
		CHECK(st->min_value.len == 9 && st->min_value.p[0] == 0xff && st->min_value.p[8] == (uint8_t)-100);
		CHECK(st->max_value.len == 9 && st->max_value.p[0] == 0 && st->max_value.p[8] == 7 && st->min.set);
		st = &fm->row_groups[0].columns[4].meta_data.statistics;
		CHECK(st->min_value.len == 1 && st->min_value.p[0] == 1 && st->max_value.p[0] == 1);
		st = &fm->row_groups[0].columns[5].meta_data.statistics;
		CHECK(fm->row_groups[0].columns[5].meta_data.type == PM_PQ_INT96);
		CHECK(!st->min_value.set && !st->max_value.set && st->has_null_count && st->null_count == 0);
		st = &fm->row_groups[0].columns[6].meta_data.statistics;
		memcpy(&z, st->min_value.p, 8);
		CHECK(z == 0 && signbit(z));
		memcpy(&z, st->max_value.p, 8);
		CHECK(z == 0 && !signbit(z));
		CHECK(fm->row_groups[0].columns[6].has_column_index_offset);
		CHECK(fm->row_groups[0].columns[2].has_column_index_offset); /* NaN left out of the bounds */
		CHECK(!fm->row_groups[0].columns[5].has_column_index_offset); /* INT96 */
		CHECK(fm->row_groups[0].columns[5].has_offset_index_offset);
	}
	pm_pq_file_meta_free(fm);
	pm_type_free(row);
	pm_free(NULL);
	free(dir);
}

/* 50,000 rows of a sorted INT column and a list column: pages of <= 20,000
 * rows starting at row boundaries, offset/column index consistent. */
static void test_page_cutting(void)
{
	char *dir = test_tmpdir(), path[4200];
	pm_type *row = parse_row("ROW<i INT NOT NULL, l ARRAY<INT>>");
	pm_array_builder *ch[2], *root, *elem;
	pm_pq_file_meta *fm = NULL;
	pm_fileio *io = NULL;
	pm_pq_writer_opts o;
	int32_t i;
	snprintf(path, sizeof path, "%s/pages.parquet", dir);
	ch[0] = pm_ab_new_fixed("i", 4);
	elem = pm_ab_new_fixed("i", 4);
	ch[1] = pm_ab_new_list(elem, 0);
	for (i = 0; i < 50000; i++) {
		int32_t n = i % 4, j;
		CHECK_OK(pm_ab_append_fixed(ch[0], &i, 1));
		if (n == 3) {
			CHECK_OK(pm_ab_append_nulls(ch[1], 1));
			continue;
		}
		for (j = 0; j < n; j++)
			CHECK_OK(pm_ab_append_fixed(elem, &i, 1));
		CHECK_OK(pm_ab_append_list(ch[1], n));
	}
	CHECK_OK(pm_ab_set_name(ch[0], "i", 0));
	CHECK_OK(pm_ab_set_name(ch[1], "l", 1));
	root = pm_ab_new_struct(ch, 2);
	CHECK_OK(pm_ab_append_valid(root, 50000));
	pm_pq_writer_opts_default(&o);
	o.dictionary = 0;
	CHECK_OK(pm_pq_writer_opts_set(&o, "page.size", "16kb"));
	CHECK_RC(pm_pq_writer_opts_set(&o, "page.sise", "1"), PAIMON_EINVAL);
	CHECK_MSG("page.sise");
	CHECK_OK(write_file(path, row, root, &o, &fm));
	CHECK_OK(pm_fileio_local_new(&io));
	if (fm && io) {
		size_t c;
		for (c = 0; c < 2; c++) {
			const pm_pq_column_chunk *cc = &fm->row_groups[0].columns[c];
			uint8_t *buf = pm_malloc((size_t)cc->offset_index_length);
			uint8_t *cbuf = pm_malloc((size_t)cc->column_index_length);
			pm_pq_offset_index *oi = NULL;
			pm_pq_column_index *ci = NULL;
			size_t p;
			int64_t values = 0;
			CHECK_OK(pm_fileio_read_range(io, path, (uint64_t)cc->offset_index_offset,
				(size_t)cc->offset_index_length, buf));
			CHECK_OK(pm_pq_offset_index_decode(buf, (size_t)cc->offset_index_length, &oi));
			CHECK_OK(pm_fileio_read_range(io, path, (uint64_t)cc->column_index_offset,
				(size_t)cc->column_index_length, cbuf));
			CHECK_OK(pm_pq_column_index_decode(cbuf, (size_t)cc->column_index_length, &ci));
			if (oi && ci) {
				CHECK(oi->n_page_locations > 3);
				CHECK(oi->page_locations[0].offset == cc->meta_data.data_page_offset);
				CHECK(ci->n_pages == oi->n_page_locations && ci->boundary_order == PM_PQ_ASCENDING);
				for (p = 0; p < oi->n_page_locations; p++) {
					const pm_pq_page_location *pl = &oi->page_locations[p];
					int64_t next = p + 1 < oi->n_page_locations ? oi->page_locations[p + 1].first_row_index
						: 50000;
					uint8_t hb[256];
					pm_pq_page_header ph;
					size_t used;
					int32_t mn = i32_of(ci->min_values[p]), mx = i32_of(ci->max_values[p]);
					CHECK(next - pl->first_row_index <= 20000 && next > pl->first_row_index);
					/* min/max of a page = its first/last row's value (sorted data) */
					CHECK(mn >= pl->first_row_index && mx <= next - 1);
					if (c == 0)
						CHECK(mn == pl->first_row_index && mx == next - 1);
					CHECK_OK(pm_fileio_read_range(io, path, (uint64_t)pl->offset, 64, hb));
					CHECK_OK(pm_pq_page_header_decode(hb, 64, &ph, &used));
					CHECK(ph.type == PM_PQ_DATA_PAGE && ph.has_crc);
					CHECK((int64_t)used + ph.compressed_page_size == pl->compressed_page_size);
					CHECK(ph.uncompressed_page_size <= 16 * 1024 + 1024);
					values += ph.data_page_header.num_values;
				}
				CHECK(values == cc->meta_data.num_values);
			}
			pm_pq_offset_index_free(oi);
			pm_pq_column_index_free(ci);
			pm_free(buf);
			pm_free(cbuf);
		}
		/* l: 50000 rows -> entries: 0 elems -> 1, 1 -> 1, 2 -> 2, null -> 1 */
		CHECK(fm->row_groups[0].columns[1].meta_data.num_values == 62500);
		CHECK(fm->row_groups[0].columns[1].meta_data.statistics.null_count == 25000);
	}
	pm_fileio_close(io);
	pm_pq_file_meta_free(fm);
	pm_type_free(row);
	free(dir);
}

static void test_errors(void)
{
	char *dir = test_tmpdir(), path[4200];
	pm_type *row = parse_row("ROW<a INT NOT NULL, m MAP<STRING, INT>>");
	pm_array_builder *ch[2], *root;
	snprintf(path, sizeof path, "%s/err.parquet", dir);
	/* wrong Arrow type for a */
	ch[0] = pm_ab_new_fixed("l", 8);
	ch[1] = pm_ab_new_map(pm_ab_new_binary("u", 0), pm_ab_new_fixed("i", 4), 0);
	CHECK_OK(pm_ab_append_nulls(ch[0], 1));
	CHECK_OK(pm_ab_append_nulls(ch[1], 1));
	root = pm_ab_new_struct(ch, 2);
	CHECK_OK(pm_ab_append_valid(root, 1));
	CHECK_RC(write_file(path, row, root, NULL, NULL), PAIMON_EINVAL);
	CHECK_MSG("column 'a': batch has Arrow type 'l'");
	CHECK_MSG("INT NOT NULL");
	/* null in a NOT NULL column */
	ch[0] = pm_ab_new_fixed("i", 4);
	ch[1] = pm_ab_new_map(pm_ab_new_binary("u", 0), pm_ab_new_fixed("i", 4), 0);
	CHECK_OK(pm_ab_append_nulls(ch[0], 1));
	CHECK_OK(pm_ab_append_nulls(ch[1], 1));
	root = pm_ab_new_struct(ch, 2);
	CHECK_OK(pm_ab_append_valid(root, 1));
	CHECK_RC(write_file(path, row, root, NULL, NULL), PAIMON_EINVAL);
	CHECK_MSG("column 'a': null value in NOT NULL field 'a'");
	pm_type_free(row);
	free(dir);
}

TEST_MAIN(T(test_field_ids), T(test_stats_ordering), T(test_page_cutting), T(test_errors))
