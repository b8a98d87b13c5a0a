/*
 * fuzz/fuzz_parquet_footer.c - feeds arbitrary bytes to the Parquet metadata
 * decoders: FileMetaData (bare and as a whole file image through the footer
 * reader), PageHeader, ColumnIndex, OffsetIndex, BloomFilterHeader.
 *
 * Invariants on success: re-encoding the decoded struct and decoding that
 * again gives a struct whose encoding is byte-identical (the encoders cover
 * every field the decoders keep); the schema tree builder and the footer
 * consistency check return cleanly. Errors must be PAIMON_ECORRUPT or
 * PAIMON_EUNSUPPORTED (encryption). Crashes, leaks, sanitizer reports and
 * broken invariants are findings.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "format/parquet/parquet_meta.h"

static void fail(const char *what)
{
	fprintf(stderr, "invariant broken: %s\n", what);
	abort();
}

static void check_rc(int rc, const char *what)
{
	if (rc != 0 && rc != -7 /* ECORRUPT */ && rc != -8 /* EUNSUPPORTED */) {
		fprintf(stderr, "%s: unexpected error code %d\n", what, rc);
		abort();
	}
}

static void same(const pm_buf *a, const pm_buf *b, const char *what)
{
	if (a->len != b->len || memcmp(a->data, b->data, a->len) != 0)
		fail(what);
}

static void file_meta(const uint8_t *data, size_t size, int as_file)
{
	pm_pq_file_meta *m = NULL, *m2 = NULL;
	pm_pq_schema *s = NULL;
	pm_buf b1 = PM_BUF_INIT, b2 = PM_BUF_INIT;
	int rc = as_file ? pm_parquet_read_footer_mem(data, size, &m) : pm_pq_file_meta_decode(data, size, &m);
	check_rc(rc, "FileMetaData decode");
	if (rc)
		return;
	if (pm_pq_file_meta_encode(m, &b1) != 0)
		fail("encoding a decoded FileMetaData failed");
	if (pm_pq_file_meta_decode(b1.data, b1.len, &m2) != 0)
		fail("re-encoded FileMetaData does not decode");
	if (pm_pq_file_meta_encode(m2, &b2) != 0)
		fail("second FileMetaData encode failed");
	same(&b1, &b2, "FileMetaData encode/decode not stable");
	if (m2->num_rows != m->num_rows || m2->n_schema != m->n_schema ||
	    m2->n_row_groups != m->n_row_groups)
		fail("FileMetaData counts changed");
	rc = pm_pq_schema_build(m->schema, m->n_schema, &s);
	check_rc(rc, "schema build");
	if (!rc) {
		size_t i;
		check_rc(pm_pq_file_meta_check(m, s), "file_meta_check");
		for (i = 0; i < s->n_leaves; i++)
			if (s->leaves[i]->leaf_index != (int)i || s->leaves[i]->max_def_level < s->leaves[i]->max_rep_level)
				fail("leaf numbering or levels");
	}
	pm_pq_schema_free(s);
	pm_pq_file_meta_free(m2);
	pm_pq_file_meta_free(m);
	pm_buf_dispose(&b1);
	pm_buf_dispose(&b2);
}

static void page_header(const uint8_t *data, size_t size)
{
	pm_pq_page_header h, h2;
	pm_buf b1 = PM_BUF_INIT, b2 = PM_BUF_INIT;
	size_t used, used2;
	int rc = pm_pq_page_header_decode(data, size, &h, &used);
	check_rc(rc, "PageHeader decode");
	if (rc)
		return;
	if (used > size)
		fail("PageHeader consumed more than the input");
	if (pm_pq_page_header_encode(&h, &b1) != 0)
		fail("PageHeader encode failed");
	if (pm_pq_page_header_decode(b1.data, b1.len, &h2, &used2) != 0 || used2 != b1.len)
		fail("re-encoded PageHeader does not decode");
	if (pm_pq_page_header_encode(&h2, &b2) != 0)
		fail("second PageHeader encode failed");
	same(&b1, &b2, "PageHeader encode/decode not stable");
	pm_buf_dispose(&b1);
	pm_buf_dispose(&b2);
}

static void column_index(const uint8_t *data, size_t size)
{
	pm_pq_column_index *c = NULL, *c2 = NULL;
	pm_buf b1 = PM_BUF_INIT, b2 = PM_BUF_INIT;
	int rc = pm_pq_column_index_decode(data, size, &c);
	check_rc(rc, "ColumnIndex decode");
	if (rc)
		return;
	if (pm_pq_column_index_encode(c, &b1) != 0)
		fail("ColumnIndex encode failed");
	if (pm_pq_column_index_decode(b1.data, b1.len, &c2) != 0)
		fail("re-encoded ColumnIndex does not decode");
	if (pm_pq_column_index_encode(c2, &b2) != 0)
		fail("second ColumnIndex encode failed");
	same(&b1, &b2, "ColumnIndex encode/decode not stable");
	pm_pq_column_index_free(c);
	pm_pq_column_index_free(c2);
	pm_buf_dispose(&b1);
	pm_buf_dispose(&b2);
}

static void offset_index(const uint8_t *data, size_t size)
{
	pm_pq_offset_index *o = NULL, *o2 = NULL;
	pm_buf b1 = PM_BUF_INIT, b2 = PM_BUF_INIT;
	int rc = pm_pq_offset_index_decode(data, size, &o);
	check_rc(rc, "OffsetIndex decode");
	if (rc)
		return;
	if (pm_pq_offset_index_encode(o, &b1) != 0)
		fail("OffsetIndex encode failed");
	if (pm_pq_offset_index_decode(b1.data, b1.len, &o2) != 0)
		fail("re-encoded OffsetIndex does not decode");
	if (pm_pq_offset_index_encode(o2, &b2) != 0)
		fail("second OffsetIndex encode failed");
	same(&b1, &b2, "OffsetIndex encode/decode not stable");
	pm_pq_offset_index_free(o);
	pm_pq_offset_index_free(o2);
	pm_buf_dispose(&b1);
	pm_buf_dispose(&b2);
}

static void bloom_header(const uint8_t *data, size_t size)
{
	pm_pq_bloom_filter_header h, h2;
	pm_buf b = PM_BUF_INIT;
	size_t used;
	int rc = pm_pq_bloom_filter_header_decode(data, size, &h, &used);
	check_rc(rc, "BloomFilterHeader decode");
	if (rc)
		return;
	if (pm_pq_bloom_filter_header_encode(&h, &b) != 0 ||
	    pm_pq_bloom_filter_header_decode(b.data, b.len, &h2, &used) != 0 ||
	    memcmp(&h, &h2, sizeof h) != 0)
		fail("BloomFilterHeader round trip");
	pm_buf_dispose(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	file_meta(data, size, 0);
	file_meta(data, size, 1);
	page_header(data, size);
	column_index(data, size);
	offset_index(data, size);
	bloom_header(data, size);
	return 0;
}
