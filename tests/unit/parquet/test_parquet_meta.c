/*
 * Parquet metadata: every corpus footer against pyarrow's numbers
 * (footer_expect.tsv), page headers / page indexes / bloom headers found
 * through those footers, encrypted and malformed files, truncation and bit
 * flips, encode/decode round trips, schema trees.
 */
#include "test.h"

#include <dirent.h>
#include <stdint.h>
#include <sys/stat.h>

#include "codec/codec.h"
#include "core/buf.h"
#include "core/mem.h"
#include "format/parquet/parquet_meta.h"
#include "io/fileio.h"

/* ------------------------------------------------------------ helpers */

static char corpus[4096];

static int find_corpus(void)
{
	const char *env = getenv("PAIMONC_PARQUET_TESTING"), *src = getenv("PAIMONC_SOURCE_DIR");
	struct stat st;
	char tmp[4096];
	if (env && *env && stat(env, &st) == 0) {
		snprintf(corpus, sizeof corpus, "%s", env);
		return 1;
	}
	if (src) {
		snprintf(tmp, sizeof tmp, "%s/../shared/testdata/parquet-testing", src);
		if (stat(tmp, &st) == 0) {
			snprintf(corpus, sizeof corpus, "%s", tmp);
			return 1;
		}
	}
	snprintf(corpus, sizeof corpus, "/work/shared/testdata/parquet-testing");
	return stat(corpus, &st) == 0;
}

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	long len;
	uint8_t *p;
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	p = malloc(len > 0 ? (size_t)len : 1);
	if (p && len > 0 && fread(p, 1, (size_t)len, f) != (size_t)len) {
		free(p);
		p = NULL;
	}
	fclose(f);
	*n = (size_t)len;
	return p;
}

static uint8_t *corpus_file(const char *rel, size_t *n)
{
	char path[8192];
	snprintf(path, sizeof path, "%s/%s", corpus, rel);
	return slurp(path, n);
}

/* encode(m) twice through a decode: the bytes must be identical. */
static void check_reencode(const pm_pq_file_meta *m, const char *what)
{
	pm_buf b1 = PM_BUF_INIT, b2 = PM_BUF_INIT;
	pm_pq_file_meta *m2 = NULL;
	CHECK_OK(pm_pq_file_meta_encode(m, &b1));
	CHECK_OK(pm_pq_file_meta_decode(b1.data, b1.len, &m2));
	if (m2) {
		CHECK_OK(pm_pq_file_meta_encode(m2, &b2));
		if (b1.len != b2.len || memcmp(b1.data, b2.data, b1.len) != 0) {
			test_failures++;
			fprintf(stderr, "%s: re-encoding is not stable (%zu vs %zu bytes)\n", what, b1.len,
				b2.len);
		}
		CHECK(m2->num_rows == m->num_rows && m2->n_row_groups == m->n_row_groups &&
		      m2->n_schema == m->n_schema);
	}
	pm_pq_file_meta_free(m2);
	pm_buf_dispose(&b1);
	pm_buf_dispose(&b2);
}

/* ------------------------------------------------------------ corpus */

typedef struct expect {
	char path[512];
	char status[16];
	long long rows, groups, cols, rg_rows;
	char created_by[512];
	int seen;
} expect;

static expect exps[256];
static size_t n_exps;

static long long num_or(const char *s)
{
	return strcmp(s, "-") == 0 ? -1 : atoll(s);
}

static int load_expect(void)
{
	const char *src = getenv("PAIMONC_SOURCE_DIR");
	char path[4096], line[4096];
	FILE *f;
	snprintf(path, sizeof path, "%s/tests/unit/parquet/footer_expect.tsv", src ? src : ".");
	if (!(f = fopen(path, "r")))
		return 0;
	while (fgets(line, sizeof line, f) && n_exps < 256) {
		char *fld[7], *p = line;
		int k;
		expect *e = &exps[n_exps];
		if (line[0] == '#')
			continue;
		line[strcspn(line, "\n")] = 0;
		for (k = 0; k < 7; k++) {
			fld[k] = p;
			p = strchr(p, '\t');
			if (!p && k < 6)
				break;
			if (p)
				*p++ = 0;
		}
		if (k < 6)
			continue;
		if (snprintf(e->path, sizeof e->path, "%s", fld[0]) >= (int)sizeof e->path ||
		    snprintf(e->status, sizeof e->status, "%s", fld[1]) >= (int)sizeof e->status)
			continue;
		e->rows = num_or(fld[2]);
		e->groups = num_or(fld[3]);
		e->cols = num_or(fld[4]);
		e->rg_rows = num_or(fld[5]);
		snprintf(e->created_by, sizeof e->created_by, "%s", fld[6]);
		n_exps++;
	}
	fclose(f);
	return 1;
}

static expect *lookup(const char *rel)
{
	size_t i;
	for (i = 0; i < n_exps; i++)
		if (strcmp(exps[i].path, rel) == 0)
			return &exps[i];
	return NULL;
}

static size_t n_page_headers, n_col_idx, n_off_idx, n_bloom, n_pages_walked, n_decompressed;
static size_t codec_pages[8];
static pm_codec_ctx *cctx;

/* Walks every page of a chunk and decompresses it with its codec: checks the
 * codec layer against real files (v2 pages: levels are stored uncompressed).
 * Returns 0, or -1 with a note for malformed pages. */
static int walk_pages(const char *rel, const uint8_t *file, size_t len, int64_t start,
		      const pm_pq_column_meta *md)
{
	uint64_t pos = (uint64_t)start, end = (uint64_t)start + (uint64_t)md->total_compressed_size;
	uint8_t *out = NULL;
	if (end > len)
		return -1;
	if (!pm_codec_supported(md->codec))
		return 0; /* BROTLI in large_string_map.brotli.parquet */
	while (pos < end) {
		pm_pq_page_header ph;
		size_t used, skip = 0, ulen, clen;
		int compressed = md->codec != PM_CODEC_UNCOMPRESSED;
		if (pm_pq_page_header_decode(file + pos, end - pos, &ph, &used) != 0) {
			fprintf(stderr, "  note: %s: page at %llu: %s\n", rel, (unsigned long long)pos,
				paimon_error_message());
			free(out);
			return -1;
		}
		n_pages_walked++;
		pos += used;
		if ((uint64_t)ph.compressed_page_size > end - pos) {
			fprintf(stderr, "  note: %s: page at %llu overruns its chunk\n", rel,
				(unsigned long long)pos);
			free(out);
			return -1;
		}
		if (ph.type == PM_PQ_DATA_PAGE_V2 && ph.has_data_page_header_v2) {
			const pm_pq_data_page_header_v2 *v = &ph.data_page_header_v2;
			skip = (size_t)v->definition_levels_byte_length + (size_t)v->repetition_levels_byte_length;
			compressed = compressed && v->is_compressed;
		}
		clen = (size_t)ph.compressed_page_size;
		ulen = (size_t)ph.uncompressed_page_size;
		if (skip <= clen && skip <= ulen && ulen - skip < (64u << 20) &&
		    (ph.type == PM_PQ_DATA_PAGE || ph.type == PM_PQ_DATA_PAGE_V2 ||
		     ph.type == PM_PQ_DICTIONARY_PAGE) && compressed && clen > skip) {
			free(out);
			out = malloc(ulen - skip + 1);
			if (pm_codec_decompress_exact(cctx, md->codec, file + pos + skip, clen - skip, out,
						      ulen - skip) != 0) {
				fprintf(stderr, "  note: %s: page at %llu: %s\n", rel, (unsigned long long)pos,
					paimon_error_message());
				free(out);
				return -1;
			}
			n_decompressed++;
			if (md->codec >= 0 && md->codec < 8)
				codec_pages[md->codec]++;
		}
		pos += clen;
	}
	free(out);
	return 0;
}

/* Follow the footer into the file: first page header of every chunk, page
 * indexes, bloom filter headers. */
static void check_chunks(const char *rel, const uint8_t *file, size_t len, const pm_pq_file_meta *m,
			 int *bad)
{
	size_t g, c;
	for (g = 0; g < m->n_row_groups; g++) {
		for (c = 0; c < m->row_groups[g].n_columns; c++) {
			const pm_pq_column_chunk *cc = &m->row_groups[g].columns[c];
			const pm_pq_column_meta *md = &cc->meta_data;
			int64_t start = md->data_page_offset;
			pm_pq_page_header ph;
			size_t used;
			if (!cc->has_meta_data)
				continue;
			if (md->has_dictionary_page_offset && md->dictionary_page_offset > 0 &&
			    md->dictionary_page_offset < start)
				start = md->dictionary_page_offset;
			if (md->num_values == 0)
				continue; /* column_chunk_key_value_metadata: 0 rows, data_page_offset 0 */
			if (start < 4 || (uint64_t)start >= len) {
				(*bad)++;
				fprintf(stderr, "  note: %s: rg %zu col %zu starts at %lld, file has %zu bytes\n",
					rel, g, c, (long long)start, len);
				continue;
			}
			if (pm_pq_page_header_decode(file + start, len - (size_t)start, &ph, &used) != 0) {
				(*bad)++;
				fprintf(stderr, "  note: ");
				fprintf(stderr, "%s: rg %zu col %zu: page header at %lld: %s\n", rel, g, c,
					(long long)start, paimon_error_message());
				continue;
			}
			n_page_headers++;
			if (walk_pages(rel, file, len, start, md) != 0)
				(*bad)++;
			CHECK(ph.type == PM_PQ_DATA_PAGE || ph.type == PM_PQ_DICTIONARY_PAGE ||
			      ph.type == PM_PQ_DATA_PAGE_V2);
			CHECK((uint64_t)start + used + (uint64_t)ph.compressed_page_size <= len);
			CHECK((ph.type == PM_PQ_DATA_PAGE) == ph.has_data_page_header);
			CHECK((ph.type == PM_PQ_DICTIONARY_PAGE) == ph.has_dictionary_page_header);
			/* Page header round trip. */
			{
				pm_buf b = PM_BUF_INIT;
				pm_pq_page_header ph2;
				size_t used2;
				CHECK_OK(pm_pq_page_header_encode(&ph, &b));
				CHECK_OK(pm_pq_page_header_decode(b.data, b.len, &ph2, &used2));
				CHECK(used2 == b.len && ph2.type == ph.type &&
				      ph2.compressed_page_size == ph.compressed_page_size &&
				      ph2.has_crc == ph.has_crc && ph2.crc == ph.crc);
				pm_buf_dispose(&b);
			}
			if (cc->has_column_index_offset && cc->has_column_index_length &&
			    cc->column_index_length > 0) {
				pm_pq_column_index *ci = NULL;
				int64_t o = cc->column_index_offset;
				CHECK(o > 0 && (uint64_t)o + (uint64_t)cc->column_index_length <= len);
				if (o > 0 && (uint64_t)o + (uint64_t)cc->column_index_length <= len) {
					CHECK_OK(pm_pq_column_index_decode(file + o, (size_t)cc->column_index_length,
									   &ci));
					if (ci) {
						pm_buf b = PM_BUF_INIT;
						pm_pq_column_index *ci2 = NULL;
						n_col_idx++;
						CHECK(ci->n_pages > 0);
						CHECK_OK(pm_pq_column_index_encode(ci, &b));
						CHECK_OK(pm_pq_column_index_decode(b.data, b.len, &ci2));
						CHECK(ci2 && ci2->n_pages == ci->n_pages &&
						      ci2->boundary_order == ci->boundary_order);
						pm_pq_column_index_free(ci2);
						pm_buf_dispose(&b);
					}
					pm_pq_column_index_free(ci);
				}
			}
			if (cc->has_offset_index_offset && cc->has_offset_index_length &&
			    cc->offset_index_length > 0) {
				pm_pq_offset_index *oi = NULL;
				int64_t o = cc->offset_index_offset;
				CHECK(o > 0 && (uint64_t)o + (uint64_t)cc->offset_index_length <= len);
				if (o > 0 && (uint64_t)o + (uint64_t)cc->offset_index_length <= len) {
					CHECK_OK(pm_pq_offset_index_decode(file + o, (size_t)cc->offset_index_length,
									   &oi));
					if (oi) {
						n_off_idx++;
						CHECK(oi->n_page_locations > 0);
						if (oi->n_page_locations > 0) {
							CHECK(oi->page_locations[0].first_row_index == 0);
							/* Not == data_page_offset: alltypes_tiny_pages and
							 * ARROW-GH-43605 point data_page_offset at the
							 * dictionary page. */
							CHECK(oi->page_locations[0].offset >= start);
						}
					}
					pm_pq_offset_index_free(oi);
				}
			}
			if (md->has_bloom_filter_offset && md->bloom_filter_offset > 0 &&
			    (uint64_t)md->bloom_filter_offset < len) {
				pm_pq_bloom_filter_header bh;
				size_t bused;
				CHECK_OK(pm_pq_bloom_filter_header_decode(file + md->bloom_filter_offset,
									  len - (size_t)md->bloom_filter_offset,
									  &bh, &bused));
				CHECK(bh.num_bytes > 0 && bh.algorithm == 1 && bh.hash == 1 &&
				      bh.compression == 1);
				n_bloom++;
			}
		}
	}
}

static int ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && strcmp(s + a - b, suf) == 0;
}

static void check_file(const char *rel)
{
	expect *e = lookup(rel);
	size_t len;
	uint8_t *file = corpus_file(rel, &len);
	pm_pq_file_meta *m = NULL;
	int rc;
	if (!e) {
		test_failures++;
		fprintf(stderr, "%s: not in footer_expect.tsv (regenerate it)\n", rel);
		free(file);
		return;
	}
	e->seen = 1;
	if (!file) {
		test_failures++;
		fprintf(stderr, "%s: cannot read\n", rel);
		return;
	}
	rc = pm_parquet_read_footer_mem(file, len, &m);
	if (ends_with(rel, ".encrypted")) {
		CHECK_RC(rc, PAIMON_EUNSUPPORTED);
		CHECK_MSG("encrypted");
	} else if (ends_with(rel, ".bin")) {
		CHECK_RC(rc, PAIMON_ECORRUPT);
		CHECK_MSG("magic");
	} else if (strcmp(e->status, "error") == 0) {
		/* Only PARQUET-1481 (invalid physical type in the schema). */
		CHECK_RC(rc, PAIMON_ECORRUPT);
		CHECK_MSG("invalid physical type");
	} else if (rc != 0) {
		test_failures++;
		fprintf(stderr, "%s: footer decode failed: %s\n", rel, paimon_error_message());
	} else {
		long long rg_rows = 0;
		size_t g;
		int check_failed = 0, bad_pages = 0;
		pm_pq_schema *s = NULL;
		for (g = 0; g < m->n_row_groups; g++)
			rg_rows += m->row_groups[g].num_rows;
		if ((e->rows >= 0 && m->num_rows != e->rows) ||
		    (e->groups >= 0 && (long long)m->n_row_groups != e->groups) ||
		    (e->rg_rows >= 0 && rg_rows != e->rg_rows)) {
			test_failures++;
			fprintf(stderr, "%s: rows %lld groups %zu rg_rows %lld; pyarrow: %lld %lld %lld\n", rel,
				(long long)m->num_rows, m->n_row_groups, rg_rows, e->rows, e->groups,
				e->rg_rows);
		}
		if (strcmp(e->status, "ok") == 0)
			CHECK_STR(m->created_by ? m->created_by : "-", e->created_by);
		CHECK(m->footer_offset + m->footer_len + 8 == len);
		rc = pm_pq_schema_build(m->schema, m->n_schema, &s);
		if (rc) {
			test_failures++;
			fprintf(stderr, "%s: schema: %s\n", rel, paimon_error_message());
		} else {
			if (e->cols >= 0 && (long long)s->n_leaves != e->cols) {
				test_failures++;
				fprintf(stderr, "%s: %zu leaves, pyarrow %lld columns\n", rel, s->n_leaves, e->cols);
			}
			if (pm_pq_file_meta_check(m, s) != 0) {
				check_failed = 1;
				fprintf(stderr, "  note: %s: %s\n", rel, paimon_error_message());
			}
		}
		pm_pq_schema_free(s);
		check_chunks(rel, file, len, m, &bad_pages);
		/* Only these files carry a defect the metadata layer can see (footer vs
		 * schema, page headers, page framing); every other file must be clean. */
		CHECK(check_failed == (strcmp(rel, "bad_data/ARROW-GH-41317.parquet") == 0));
		CHECK((bad_pages > 0) == (strcmp(rel, "bad_data/ARROW-RS-GH-6229-DICTHEADER.parquet") == 0 ||
					  strcmp(rel, "bad_data/ARROW-GH-41321.parquet") == 0 ||
					  strcmp(rel, "data/nation.dict-malformed.parquet") == 0));
		check_reencode(m, rel);
	}
	pm_pq_file_meta_free(m);
	free(file);
}

static size_t walk(const char *rel_dir)
{
	char path[16384], rel[8192];
	DIR *d;
	struct dirent *de;
	size_t count = 0;
	snprintf(path, sizeof path, "%s/%s", corpus, rel_dir);
	if (!(d = opendir(path))) {
		test_failures++;
		fprintf(stderr, "cannot open %s\n", path);
		return 0;
	}
	while ((de = readdir(d))) {
		struct stat st;
		if (de->d_name[0] == '.')
			continue;
		snprintf(rel, sizeof rel, "%s/%s", rel_dir, de->d_name);
		snprintf(path, sizeof path, "%s/%s", corpus, rel);
		if (stat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			count += walk(rel);
		} else if (ends_with(rel, ".parquet") || ends_with(rel, ".encrypted") ||
			   ends_with(rel, ".bin")) {
			check_file(rel);
			count++;
		}
	}
	closedir(d);
	return count;
}

static void corpus_footers(void)
{
	size_t n, i;
	if (!find_corpus()) {
		test_failures++;
		fprintf(stderr, "parquet-testing corpus not found (%s); set PAIMONC_PARQUET_TESTING\n",
			corpus);
		return;
	}
	if (!load_expect() || n_exps < 50) {
		test_failures++;
		fprintf(stderr, "footer_expect.tsv missing or short (%zu entries)\n", n_exps);
		return;
	}
	CHECK_OK(pm_codec_ctx_new(&cctx));
	n = walk("data") + walk("bad_data");
	pm_codec_ctx_free(cctx);
	printf("  %zu pages walked, %zu decompressed (SNAPPY %zu, GZIP %zu, LZ4 %zu, ZSTD %zu, LZ4_RAW %zu)\n",
	       n_pages_walked, n_decompressed, codec_pages[1], codec_pages[2], codec_pages[5],
	       codec_pages[6], codec_pages[7]);
	CHECK(codec_pages[1] > 0 && codec_pages[2] > 0 && codec_pages[5] > 0 && codec_pages[6] > 0 &&
	      codec_pages[7] > 0);
	CHECK(n == n_exps);
	for (i = 0; i < n_exps; i++)
		if (!exps[i].seen) {
			test_failures++;
			fprintf(stderr, "%s: listed in footer_expect.tsv but not found\n", exps[i].path);
		}
	printf("  %zu files, %zu page headers, %zu column indexes, %zu offset indexes, %zu bloom headers\n",
	       n, n_page_headers, n_col_idx, n_off_idx, n_bloom);
	CHECK(n_page_headers > 300 && n_col_idx > 10 && n_off_idx > 10 && n_bloom >= 2);
}

/* Specific facts the footers hold. */
static void corpus_details(void)
{
	size_t len;
	uint8_t *f;
	pm_pq_file_meta *m = NULL;
	pm_pq_schema *s = NULL;
	if (!find_corpus())
		return;
	/* dict-page-offset-zero: ColumnMetaData field 15 holds a list: skipped. */
	f = corpus_file("data/dict-page-offset-zero.parquet", &len);
	CHECK(f != NULL);
	CHECK_OK(pm_parquet_read_footer_mem(f, len, &m));
	if (m) {
		const pm_pq_column_meta *md = &m->row_groups[0].columns[0].meta_data;
		CHECK(md->has_dictionary_page_offset && md->dictionary_page_offset == 0);
		CHECK(!md->has_bloom_filter_length);
	}
	pm_pq_file_meta_free(m);
	free(f);
	/* unknown-logical-type: second column's LogicalType member is unknown. */
	f = corpus_file("data/unknown-logical-type.parquet", &len);
	CHECK_OK(pm_parquet_read_footer_mem(f, len, &m));
	if (m && m->n_schema == 3) {
		CHECK(m->schema[1].logical.kind == PM_PQ_LT_STRING);
		CHECK(m->schema[2].logical.kind == PM_PQ_LT_UNRECOGNIZED);
		CHECK(m->schema[2].logical.unrecognized_id > 19);
	}
	pm_pq_file_meta_free(m);
	free(f);
	/* column_chunk_key_value_metadata: a KeyValue without value. */
	f = corpus_file("data/column_chunk_key_value_metadata.parquet", &len);
	CHECK_OK(pm_parquet_read_footer_mem(f, len, &m));
	if (m) {
		const pm_pq_column_meta *md = &m->row_groups[0].columns[0].meta_data;
		size_t i, nval = 0, noval = 0;
		CHECK(md->n_key_value >= 1);
		for (i = 0; i < m->row_groups[0].n_columns; i++) {
			const pm_pq_column_meta *x = &m->row_groups[0].columns[i].meta_data;
			size_t k;
			for (k = 0; k < x->n_key_value; k++) {
				if (x->key_value[k].value.set) {
					nval++;
					CHECK_STR(x->key_value[k].key, "foo");
					CHECK(x->key_value[k].value.len == 3 &&
					      memcmp(x->key_value[k].value.p, "bar", 3) == 0);
				} else {
					noval++;
				}
			}
		}
		CHECK(nval == 1 && noval == 1);
	}
	pm_pq_file_meta_free(m);
	free(f);
	/* geospatial: GEOGRAPHY with algorithm; crs-srid: crs "srid:5070". */
	f = corpus_file("data/geospatial/crs-srid.parquet", &len);
	CHECK_OK(pm_parquet_read_footer_mem(f, len, &m));
	if (m) {
		size_t i, found = 0;
		for (i = 0; i < m->n_schema; i++)
			if (m->schema[i].logical.kind == PM_PQ_LT_GEOMETRY) {
				found++;
				CHECK_STR(m->schema[i].logical.crs, "srid:5070");
			}
		CHECK(found == 1);
	}
	pm_pq_file_meta_free(m);
	free(f);
	f = corpus_file("data/geospatial/geography-points.parquet", &len);
	CHECK_OK(pm_parquet_read_footer_mem(f, len, &m));
	if (m) {
		size_t i, found = 0;
		for (i = 0; i < m->n_schema; i++)
			if (m->schema[i].logical.kind == PM_PQ_LT_GEOGRAPHY)
				found++;
		CHECK(found == 1);
	}
	pm_pq_file_meta_free(m);
	free(f);
	/* floating_orders_nan_count: IEEE 754 total order + nan_count. */
	f = corpus_file("data/floating_orders_nan_count.parquet", &len);
	CHECK_OK(pm_parquet_read_footer_mem(f, len, &m));
	if (m) {
		size_t i, ieee = 0, nan = 0;
		for (i = 0; i < m->n_column_orders; i++)
			ieee += m->column_orders[i].kind == PM_PQ_ORDER_IEEE_754_TOTAL;
		for (i = 0; i < m->row_groups[1].n_columns; i++)
			nan += m->row_groups[1].columns[i].meta_data.statistics.has_nan_count;
		CHECK(ieee == 3);
		CHECK(nan >= 3);
	}
	pm_pq_file_meta_free(m);
	free(f);
	/* sort_columns: sorting_columns decoded. */
	f = corpus_file("data/sort_columns.parquet", &len);
	CHECK_OK(pm_parquet_read_footer_mem(f, len, &m));
	if (m) {
		const pm_pq_row_group *g = &m->row_groups[0];
		CHECK(g->n_sorting_columns == 2);
		if (g->n_sorting_columns == 2) {
			CHECK(g->sorting_columns[0].column_idx == 0 && g->sorting_columns[0].descending &&
			      g->sorting_columns[0].nulls_first);
			CHECK(g->sorting_columns[1].column_idx == 1 && !g->sorting_columns[1].descending &&
			      !g->sorting_columns[1].nulls_first);
		}
	}
	pm_pq_file_meta_free(m);
	free(f);
	/* nested levels and paths: nested_lists a.list.element.list.element.list.element */
	f = corpus_file("data/nested_lists.snappy.parquet", &len);
	CHECK_OK(pm_parquet_read_footer_mem(f, len, &m));
	if (m && pm_pq_schema_build(m->schema, m->n_schema, &s) == 0) {
		const pm_pq_schema_node *l = s->leaves[0];
		CHECK(s->n_leaves == 2);
		CHECK(l->max_rep_level == 3);
		CHECK(l->max_def_level == 7);
		CHECK(l->depth == 7);
		CHECK_STR(l->path[0], "a");
		CHECK(s->leaves[1]->max_def_level == 0 && s->leaves[1]->max_rep_level == 0); /* required b */
		CHECK(l->parent->parent->leaf_index == -1);
	}
	pm_pq_schema_free(s);
	s = NULL;
	pm_pq_file_meta_free(m);
	free(f);
	/* repeated_no_annotation: footer num_rows 0, row group 6. */
	f = corpus_file("data/repeated_no_annotation.parquet", &len);
	CHECK_OK(pm_parquet_read_footer_mem(f, len, &m));
	if (m) {
		CHECK(m->num_rows == 0);
		CHECK(m->row_groups[0].num_rows == 6);
	}
	pm_pq_file_meta_free(m);
	free(f);
	/* bloom_filter.xxhash.bin: a bare BloomFilterHeader + 1024-byte bitset. */
	f = corpus_file("data/bloom_filter.xxhash.bin", &len);
	if (f) {
		pm_pq_bloom_filter_header bh;
		size_t used;
		CHECK_OK(pm_pq_bloom_filter_header_decode(f, len, &bh, &used));
		CHECK(bh.num_bytes == 1024 && used + 1024 == len);
		CHECK(bh.algorithm == 1 && bh.hash == 1 && bh.compression == 1);
	}
	free(f);
}

/* The same footers through pm_fileio, including one forcing a second read. */
static void fileio_footer(void)
{
	pm_fileio *io = NULL;
	pm_pq_file_meta *m = NULL;
	char path[8192];
	char *dir = test_tmpdir();
	pm_buf b = PM_BUF_INIT, file = PM_BUF_INIT;
	pm_pq_file_meta big;
	pm_pq_schema_element el[1];
	pm_pq_key_value kv;
	char *val;
	uint32_t flen;
	uint8_t le[4];
	if (!find_corpus())
		return;
	CHECK_OK(pm_fileio_local_new(&io));
	snprintf(path, sizeof path, "%s/data/alltypes_tiny_pages.parquet", corpus);
	CHECK_OK(pm_parquet_read_footer(io, path, &m));
	CHECK(m && m->num_rows == 7300);
	pm_pq_file_meta_free(m);
	snprintf(path, sizeof path, "%s/data/encrypt_columns_and_footer.parquet.encrypted", corpus);
	CHECK_RC(pm_parquet_read_footer(io, path, &m), PAIMON_EUNSUPPORTED);
	CHECK_MSG("encrypted");
	CHECK_MSG("encrypt_columns_and_footer");
	snprintf(path, sizeof path, "%s/data/encrypt_columns_plaintext_footer.parquet.encrypted", corpus);
	CHECK_RC(pm_parquet_read_footer(io, path, &m), PAIMON_EUNSUPPORTED);
	CHECK_MSG("encrypted");
	snprintf(path, sizeof path, "%s/nope.parquet", dir);
	CHECK_RC(pm_parquet_read_footer(io, path, &m), PAIMON_ENOTFOUND);
	/* A 200 KiB footer: tail read, then a re-read of the whole footer. */
	memset(&big, 0, sizeof big);
	memset(el, 0, sizeof el);
	el[0].name = "root";
	el[0].has_num_children = true;
	big.version = 1;
	big.schema = el;
	big.n_schema = 1;
	val = malloc(200 * 1024 + 1);
	memset(val, 'v', 200 * 1024);
	val[200 * 1024] = 0;
	kv.key = "big";
	kv.value.p = (const uint8_t *)val;
	kv.value.len = 200 * 1024;
	kv.value.set = true;
	big.key_value = &kv;
	big.n_key_value = 1;
	CHECK_OK(pm_buf_append(&file, "PAR1", 4));
	CHECK_OK(pm_pq_file_meta_encode(&big, &b));
	CHECK_OK(pm_buf_append(&file, b.data, b.len));
	flen = (uint32_t)b.len;
	le[0] = (uint8_t)flen; le[1] = (uint8_t)(flen >> 8); le[2] = (uint8_t)(flen >> 16); le[3] = (uint8_t)(flen >> 24);
	CHECK_OK(pm_buf_append(&file, le, 4));
	CHECK_OK(pm_buf_append(&file, "PAR1", 4));
	snprintf(path, sizeof path, "%s/big.parquet", dir);
	CHECK_OK(pm_fileio_write_overwrite(io, path, file.data, file.len));
	CHECK_OK(pm_parquet_read_footer(io, path, &m));
	CHECK(m && m->n_key_value == 1 && m->key_value[0].value.len == 200 * 1024 &&
	      m->footer_len == flen && m->footer_offset == 4);
	pm_pq_file_meta_free(m);
	/* Bad leading magic with a tail that does not cover it. */
	file.data[0] = 'X';
	CHECK_OK(pm_fileio_write_overwrite(io, path, file.data, file.len));
	CHECK_RC(pm_parquet_read_footer(io, path, &m), PAIMON_ECORRUPT);
	CHECK_MSG("start of file");
	/* Footer length larger than the file. */
	file.data[0] = 'P';
	file.data[file.len - 5] = 0x7f;
	CHECK_OK(pm_fileio_write_overwrite(io, path, file.data, file.len));
	CHECK_RC(pm_parquet_read_footer(io, path, &m), PAIMON_ECORRUPT);
	CHECK_MSG("exceeds the file size");
	/* Tiny file. */
	CHECK_OK(pm_fileio_write_overwrite(io, path, "PAR1PAR1", 8));
	CHECK_RC(pm_parquet_read_footer(io, path, &m), PAIMON_ECORRUPT);
	CHECK_MSG("too small");
	free(val);
	pm_buf_dispose(&b);
	pm_buf_dispose(&file);
	CHECK_OK(pm_fileio_remove_all(io, dir));
	pm_fileio_close(io);
	free(dir);
}

/* Truncations and bit flips of corpus footers and page headers. */
static void mangled_footers(void)
{
	static const char *files[] = {
		"data/alltypes_plain.parquet", "data/nested_maps.snappy.parquet",
		"data/nullable.impala.parquet", "data/binary_truncated_min_max.parquet",
		"data/column_chunk_key_value_metadata.parquet", "data/dict-page-offset-zero.parquet",
		"data/geospatial/crs-srid.parquet", "data/floating_orders_nan_count.parquet",
		"data/int32_with_null_pages.parquet", "data/datapage_v2.snappy.parquet",
		"data/unknown-logical-type.parquet", "data/sort_columns.parquet",
	};
	size_t fi, decoded_ok = 0, tried = 0;
	if (!find_corpus())
		return;
	for (fi = 0; fi < sizeof files / sizeof files[0]; fi++) {
		size_t len, i, bit;
		uint8_t *f = corpus_file(files[fi], &len), *foot, *copy;
		uint32_t flen;
		if (!f) {
			test_failures++;
			fprintf(stderr, "cannot read %s\n", files[fi]);
			continue;
		}
		flen = (uint32_t)f[len - 8] | (uint32_t)f[len - 7] << 8 | (uint32_t)f[len - 6] << 16 |
		       (uint32_t)f[len - 5] << 24;
		foot = f + len - 8 - flen;
		/* Every proper prefix of the FileMetaData fails cleanly. */
		for (i = 0; i < flen; i++) {
			pm_pq_file_meta *m = NULL;
			copy = malloc(i ? i : 1);
			memcpy(copy, foot, i);
			CHECK_RC(pm_pq_file_meta_decode(copy, i, &m), PAIMON_ECORRUPT);
			CHECK(m == NULL);
			free(copy);
		}
		/* Every single-bit flip: success or a clean error, never a crash. */
		copy = malloc(flen);
		for (bit = 0; bit < (size_t)flen * 8; bit++) {
			pm_pq_file_meta *m = NULL;
			int rc;
			memcpy(copy, foot, flen);
			copy[bit / 8] ^= (uint8_t)(1u << (bit % 8));
			rc = pm_pq_file_meta_decode(copy, flen, &m);
			tried++;
			if (rc == 0) {
				pm_pq_schema *s = NULL;
				decoded_ok++;
				if (pm_pq_schema_build(m->schema, m->n_schema, &s) == 0) {
					int crc = pm_pq_file_meta_check(m, s);
					CHECK(crc == 0 || crc == PAIMON_ECORRUPT);
				}
				pm_pq_schema_free(s);
				check_reencode(m, files[fi]);
			} else {
				CHECK(rc == PAIMON_ECORRUPT || rc == PAIMON_EUNSUPPORTED);
			}
			pm_pq_file_meta_free(m);
		}
		free(copy);
		/* Whole-file tails with mangled trailer bytes. */
		for (i = 0; i < 8; i++) {
			for (bit = 0; bit < 8; bit++) {
				pm_pq_file_meta *m = NULL;
				int rc;
				f[len - 8 + i] ^= (uint8_t)(1u << bit);
				rc = pm_parquet_read_footer_mem(f, len, &m);
				CHECK(rc != 0 || m != NULL);
				pm_pq_file_meta_free(m);
				f[len - 8 + i] ^= (uint8_t)(1u << bit);
			}
		}
		/* First page header: truncations and bit flips. */
		{
			pm_pq_file_meta *m = NULL;
			CHECK_OK(pm_parquet_read_footer_mem(f, len, &m));
			if (m && m->n_row_groups && m->row_groups[0].n_columns) {
				int64_t off = m->row_groups[0].columns[0].meta_data.data_page_offset;
				const pm_pq_column_meta *md = &m->row_groups[0].columns[0].meta_data;
				pm_pq_page_header ph;
				size_t used, hl;
				if (md->has_dictionary_page_offset && md->dictionary_page_offset > 0 &&
				    md->dictionary_page_offset < off)
					off = md->dictionary_page_offset;
				if (off > 0 && (size_t)off < len &&
				    pm_pq_page_header_decode(f + off, len - (size_t)off, &ph, &used) == 0) {
					hl = used;
					for (i = 0; i < hl; i++) {
						copy = malloc(i ? i : 1);
						memcpy(copy, f + off, i);
						CHECK_RC(pm_pq_page_header_decode(copy, i, &ph, &used), PAIMON_ECORRUPT);
						free(copy);
					}
					copy = malloc(hl);
					for (bit = 0; bit < hl * 8; bit++) {
						int rc;
						memcpy(copy, f + off, hl);
						copy[bit / 8] ^= (uint8_t)(1u << (bit % 8));
						rc = pm_pq_page_header_decode(copy, hl, &ph, &used);
						CHECK(rc == 0 || rc == PAIMON_ECORRUPT);
						if (rc == 0)
							CHECK(used <= hl);
					}
					free(copy);
				} else if (m->row_groups[0].columns[0].meta_data.num_values > 0) {
					test_failures++;
					fprintf(stderr, "%s: no page header at %lld\n", files[fi], (long long)off);
				}
			}
			pm_pq_file_meta_free(m);
		}
		free(f);
	}
	printf("  %zu bit-flipped footers, %zu still decoded\n", tried, decoded_ok);
}

/* ------------------------------------------------------------ round trips */

static const uint8_t BMIN[] = {0x00, 0x01}, BMAX[] = {0xff, 0xfe, 0x00};

static pm_pq_statistics full_stats(void)
{
	pm_pq_statistics s;
	memset(&s, 0, sizeof s);
	s.max.p = BMAX; s.max.len = 3; s.max.set = true;
	s.min.p = BMIN; s.min.len = 2; s.min.set = true;
	s.has_null_count = true; s.null_count = 7;
	s.has_distinct_count = true; s.distinct_count = 1LL << 40;
	s.max_value.p = BMAX; s.max_value.len = 2; s.max_value.set = true;
	s.min_value.p = NULL; s.min_value.len = 0; s.min_value.set = true;
	s.has_is_max_value_exact = true; s.is_max_value_exact = false;
	s.has_is_min_value_exact = true; s.is_min_value_exact = true;
	s.has_nan_count = true; s.nan_count = 3;
	return s;
}

static void stats_equal(const pm_pq_statistics *a, const pm_pq_statistics *b)
{
	CHECK(a->max.set == b->max.set && a->max.len == b->max.len &&
	      (!a->max.len || memcmp(a->max.p, b->max.p, a->max.len) == 0));
	CHECK(a->min.set == b->min.set && a->min.len == b->min.len);
	CHECK(a->has_null_count == b->has_null_count && a->null_count == b->null_count);
	CHECK(a->has_distinct_count == b->has_distinct_count && a->distinct_count == b->distinct_count);
	CHECK(a->max_value.set == b->max_value.set && a->max_value.len == b->max_value.len);
	CHECK(a->min_value.set == b->min_value.set && a->min_value.len == b->min_value.len);
	CHECK(a->has_is_max_value_exact == b->has_is_max_value_exact &&
	      a->is_max_value_exact == b->is_max_value_exact);
	CHECK(a->has_is_min_value_exact == b->has_is_min_value_exact &&
	      a->is_min_value_exact == b->is_min_value_exact);
	CHECK(a->has_nan_count == b->has_nan_count && a->nan_count == b->nan_count);
}

/* A FileMetaData with every field and every LogicalType member set. */
static void full_roundtrip(void)
{
	enum { NEL = 24 };
	pm_pq_schema_element el[NEL];
	pm_pq_column_chunk cols[2];
	pm_pq_row_group rg;
	pm_pq_sorting_column sc = {1, true, false};
	pm_pq_key_value kvs[2];
	pm_pq_page_encoding_stats pes[2] = {{2, 0, 1}, {0, 8, 3}};
	int32_t encs[3] = {0, 3, 8};
	const char *path0[] = {"i"}, *path1[] = {"lst", "list", "element"};
	pm_pq_column_order orders[2] = {{PM_PQ_ORDER_TYPE_DEFINED}, {PM_PQ_ORDER_IEEE_754_TOTAL}};
	pm_pq_file_meta fm, *d = NULL;
	pm_pq_schema *s = NULL;
	pm_buf b = PM_BUF_INIT, b2 = PM_BUF_INIT;
	static const int kinds[] = {PM_PQ_LT_STRING, PM_PQ_LT_MAP, PM_PQ_LT_LIST, PM_PQ_LT_ENUM,
				    PM_PQ_LT_DECIMAL, PM_PQ_LT_DATE, PM_PQ_LT_TIME, PM_PQ_LT_TIMESTAMP,
				    PM_PQ_LT_INTEGER, PM_PQ_LT_UNKNOWN, PM_PQ_LT_JSON, PM_PQ_LT_BSON,
				    PM_PQ_LT_UUID, PM_PQ_LT_FLOAT16, PM_PQ_LT_VARIANT, PM_PQ_LT_GEOMETRY,
				    PM_PQ_LT_GEOGRAPHY, PM_PQ_LT_FILE, PM_PQ_LT_UNRECOGNIZED};
	size_t i, nk = sizeof kinds / sizeof kinds[0];
	char names[NEL][16];
	memset(el, 0, sizeof el);
	/* root, i (int32 required), lst (LIST) > list (repeated) > element, then leaves with
	 * each logical type. */
	el[0].name = "paimon_schema"; el[0].has_num_children = true;
	el[1].name = "i"; el[1].has_type = true; el[1].type = PM_PQ_INT32; el[1].has_repetition = true;
	el[1].repetition = PM_PQ_REQUIRED; el[1].has_field_id = true; el[1].field_id = 0;
	el[1].has_converted_type = true; el[1].converted_type = PM_PQ_CT_INT_32;
	el[2].name = "lst"; el[2].has_repetition = true; el[2].repetition = PM_PQ_OPTIONAL;
	el[2].has_num_children = true; el[2].num_children = 1; el[2].logical.kind = PM_PQ_LT_LIST;
	el[2].has_converted_type = true; el[2].converted_type = PM_PQ_CT_LIST;
	el[3].name = "list"; el[3].has_repetition = true; el[3].repetition = PM_PQ_REPEATED;
	el[3].has_num_children = true; el[3].num_children = 1;
	el[4].name = "element"; el[4].has_repetition = true; el[4].repetition = PM_PQ_OPTIONAL;
	el[4].has_type = true; el[4].type = PM_PQ_FIXED_LEN_BYTE_ARRAY; el[4].has_type_length = true;
	el[4].type_length = 16; el[4].has_scale = true; el[4].scale = 5; el[4].has_precision = true;
	el[4].precision = 38; el[4].logical.kind = PM_PQ_LT_DECIMAL; el[4].logical.scale = 5;
	el[4].logical.precision = 38; el[4].has_field_id = true; el[4].field_id = 536870911 + 1024;
	for (i = 0; i < nk; i++) {
		pm_pq_schema_element *e = &el[5 + i];
		snprintf(names[i], sizeof names[i], "c%zu", i);
		e->name = names[i];
		e->has_type = true;
		e->type = PM_PQ_BYTE_ARRAY;
		e->has_repetition = true;
		e->repetition = PM_PQ_OPTIONAL;
		e->logical.kind = kinds[i];
		switch (kinds[i]) {
		case PM_PQ_LT_DECIMAL: e->logical.scale = -1; e->logical.precision = 9; break;
		case PM_PQ_LT_TIME: e->logical.is_adjusted_to_utc = true; e->logical.unit = PM_PQ_MILLIS; break;
		case PM_PQ_LT_TIMESTAMP: e->logical.unit = PM_PQ_NANOS; break;
		case PM_PQ_LT_INTEGER: e->logical.bit_width = 16; e->logical.is_signed = false; break;
		case PM_PQ_LT_VARIANT: e->logical.has_specification_version = true;
			e->logical.specification_version = 1; break;
		case PM_PQ_LT_GEOMETRY: e->logical.crs = "srid:4326"; break;
		case PM_PQ_LT_GEOGRAPHY: e->logical.crs = "OGC:CRS84"; e->logical.has_algorithm = true;
			e->logical.algorithm = 2; break;
		case PM_PQ_LT_UNRECOGNIZED: e->logical.unrecognized_id = 77; break;
		}
	}
	CHECK(5 + nk == NEL);
	el[0].num_children = 2 + (int32_t)nk;
	memset(cols, 0, sizeof cols);
	memset(kvs, 0, sizeof kvs);
	kvs[0].key = "k"; kvs[0].value.p = (const uint8_t *)"v\0x"; kvs[0].value.len = 3; kvs[0].value.set = true;
	kvs[1].key = "novalue";
	for (i = 0; i < 2; i++) {
		pm_pq_column_meta *m = &cols[i].meta_data;
		cols[i].file_offset = 100 + (int64_t)i;
		cols[i].has_meta_data = true;
		m->type = i ? PM_PQ_FIXED_LEN_BYTE_ARRAY : PM_PQ_INT32;
		m->encodings = encs; m->n_encodings = 3;
		m->path_in_schema = i ? path1 : path0; m->n_path = i ? 3 : 1;
		m->codec = 6;
		m->num_values = 1000; m->total_uncompressed_size = 5000; m->total_compressed_size = 4000;
		m->key_value = kvs; m->n_key_value = 2;
		m->data_page_offset = 4 + 1000 * (int64_t)i;
		m->has_index_page_offset = true; m->index_page_offset = 3;
		m->has_dictionary_page_offset = true; m->dictionary_page_offset = 4;
		m->has_statistics = true; m->statistics = full_stats();
		m->encoding_stats = pes; m->n_encoding_stats = 2;
		m->has_bloom_filter_offset = true; m->bloom_filter_offset = 1LL << 33;
		m->has_bloom_filter_length = true; m->bloom_filter_length = 1056;
		cols[i].has_offset_index_offset = true; cols[i].offset_index_offset = 9000;
		cols[i].has_offset_index_length = true; cols[i].offset_index_length = 20;
		cols[i].has_column_index_offset = true; cols[i].column_index_offset = 8000;
		cols[i].has_column_index_length = true; cols[i].column_index_length = 30;
	}
	cols[1].file_path = "other.parquet";
	memset(&rg, 0, sizeof rg);
	rg.columns = cols; rg.n_columns = 2;
	rg.total_byte_size = 10000; rg.num_rows = 1000;
	rg.sorting_columns = &sc; rg.n_sorting_columns = 1;
	rg.has_file_offset = true; rg.file_offset = 4;
	rg.has_total_compressed_size = true; rg.total_compressed_size = 8000;
	rg.has_ordinal = true; rg.ordinal = 32000;
	memset(&fm, 0, sizeof fm);
	fm.version = 2; fm.schema = el; fm.n_schema = NEL; fm.num_rows = 1000;
	fm.row_groups = &rg; fm.n_row_groups = 1;
	fm.key_value = kvs; fm.n_key_value = 2;
	fm.created_by = "paimon-c version 0.1.0 (build test)";
	fm.column_orders = orders; fm.n_column_orders = 2;
	CHECK_OK(pm_pq_file_meta_encode(&fm, &b));
	CHECK_OK(pm_pq_file_meta_decode(b.data, b.len, &d));
	if (!d)
		goto out;
	CHECK(d->version == 2 && d->num_rows == 1000 && d->n_schema == NEL && d->n_row_groups == 1);
	for (i = 0; i < NEL; i++) {
		const pm_pq_schema_element *x = &el[i], *y = &d->schema[i];
		CHECK_STR(x->name, y->name);
		CHECK(x->has_type == y->has_type && x->type == y->type);
		CHECK(x->has_type_length == y->has_type_length && x->type_length == y->type_length);
		CHECK(x->has_repetition == y->has_repetition && x->repetition == y->repetition);
		CHECK(x->has_num_children == y->has_num_children && x->num_children == y->num_children);
		CHECK(x->has_converted_type == y->has_converted_type);
		CHECK(x->has_scale == y->has_scale && x->scale == y->scale);
		CHECK(x->has_precision == y->has_precision && x->precision == y->precision);
		CHECK(x->has_field_id == y->has_field_id && x->field_id == y->field_id);
		CHECK(x->logical.kind == y->logical.kind);
		CHECK(x->logical.scale == y->logical.scale && x->logical.precision == y->logical.precision);
		CHECK(x->logical.is_adjusted_to_utc == y->logical.is_adjusted_to_utc);
		CHECK(x->logical.unit == y->logical.unit);
		CHECK(x->logical.bit_width == y->logical.bit_width && x->logical.is_signed == y->logical.is_signed);
		CHECK(x->logical.has_specification_version == y->logical.has_specification_version &&
		      x->logical.specification_version == y->logical.specification_version);
		CHECK((x->logical.crs == NULL) == (y->logical.crs == NULL));
		if (x->logical.crs && y->logical.crs)
			CHECK_STR(x->logical.crs, y->logical.crs);
		CHECK(x->logical.has_algorithm == y->logical.has_algorithm &&
		      x->logical.algorithm == y->logical.algorithm);
		CHECK(x->logical.unrecognized_id == y->logical.unrecognized_id);
	}
	{
		const pm_pq_row_group *g = &d->row_groups[0];
		CHECK(g->n_columns == 2 && g->total_byte_size == 10000 && g->num_rows == 1000);
		CHECK(g->n_sorting_columns == 1 && g->sorting_columns[0].column_idx == 1 &&
		      g->sorting_columns[0].descending && !g->sorting_columns[0].nulls_first);
		CHECK(g->has_file_offset && g->file_offset == 4 && g->has_total_compressed_size &&
		      g->total_compressed_size == 8000 && g->has_ordinal && g->ordinal == 32000);
		for (i = 0; i < 2; i++) {
			const pm_pq_column_chunk *x = &cols[i], *y = &g->columns[i];
			const pm_pq_column_meta *a = &x->meta_data, *c = &y->meta_data;
			size_t k;
			CHECK((x->file_path == NULL) == (y->file_path == NULL));
			CHECK(x->file_offset == y->file_offset && y->has_meta_data);
			CHECK(a->type == c->type && c->n_encodings == 3 && c->encodings[2] == 8);
			CHECK(c->n_path == a->n_path);
			for (k = 0; k < a->n_path && k < c->n_path; k++)
				CHECK_STR(a->path_in_schema[k], c->path_in_schema[k]);
			CHECK(c->codec == 6 && c->num_values == 1000 && c->total_uncompressed_size == 5000 &&
			      c->total_compressed_size == 4000);
			CHECK(c->n_key_value == 2 && c->key_value[0].value.len == 3 &&
			      memcmp(c->key_value[0].value.p, "v\0x", 3) == 0 && !c->key_value[1].value.set);
			CHECK(c->data_page_offset == a->data_page_offset);
			CHECK(c->has_index_page_offset && c->index_page_offset == 3);
			CHECK(c->has_dictionary_page_offset && c->dictionary_page_offset == 4);
			CHECK(c->has_statistics);
			stats_equal(&a->statistics, &c->statistics);
			CHECK(c->n_encoding_stats == 2 && c->encoding_stats[1].encoding == 8 &&
			      c->encoding_stats[1].count == 3);
			CHECK(c->has_bloom_filter_offset && c->bloom_filter_offset == 1LL << 33);
			CHECK(c->has_bloom_filter_length && c->bloom_filter_length == 1056);
			CHECK(y->has_offset_index_offset && y->offset_index_offset == 9000 &&
			      y->has_offset_index_length && y->offset_index_length == 20);
			CHECK(y->has_column_index_offset && y->column_index_offset == 8000 &&
			      y->has_column_index_length && y->column_index_length == 30);
		}
		CHECK_STR(g->columns[1].file_path, "other.parquet");
	}
	CHECK(d->n_key_value == 2);
	CHECK_STR(d->created_by, fm.created_by);
	CHECK(d->n_column_orders == 2 && d->column_orders[1].kind == PM_PQ_ORDER_IEEE_754_TOTAL);
	CHECK_OK(pm_pq_file_meta_encode(d, &b2));
	CHECK(b.len == b2.len && memcmp(b.data, b2.data, b.len) == 0);
	/* Schema tree of this footer. */
	CHECK_OK(pm_pq_schema_build(d->schema, d->n_schema, &s));
	if (s) {
		CHECK(s->n_leaves == 2 + nk);
		CHECK(s->leaves[1]->max_def_level == 3 && s->leaves[1]->max_rep_level == 1);
		CHECK_STR(s->leaves[1]->path[2], "element");
		CHECK(s->leaves[0]->max_def_level == 0);
		/* row group has only 2 chunks for 2+nk leaves */
		CHECK_RC(pm_pq_file_meta_check(d, s), PAIMON_ECORRUPT);
		CHECK_MSG("column chunks");
	}
	/* Input buffer can go away: decoded data is owned by the object. */
	memset(b.data, 0xAB, b.len);
	CHECK_STR(d->schema[1].name, "i");
	CHECK(memcmp(d->row_groups[0].columns[0].meta_data.statistics.max.p, BMAX, 3) == 0);
out:
	pm_pq_schema_free(s);
	pm_pq_file_meta_free(d);
	pm_buf_dispose(&b);
	pm_buf_dispose(&b2);
	/* Encoding refuses NULL names. */
	el[1].name = NULL;
	CHECK_RC(pm_pq_file_meta_encode(&fm, &b), PAIMON_EINVAL);
	CHECK(b.len == 0);
	pm_buf_dispose(&b);
}

static void page_structs_roundtrip(void)
{
	pm_pq_page_header ph, d;
	pm_pq_column_index ci, *dci = NULL;
	pm_pq_offset_index oi, *doi = NULL;
	pm_pq_bloom_filter_header bh = {1024, 1, 1, 1}, dbh;
	pm_buf b = PM_BUF_INIT, b2 = PM_BUF_INIT;
	size_t used;
	bool nulls[3] = {false, true, false};
	pm_pq_bin mins[3] = {{(const uint8_t *)"a", 1, true}, {NULL, 0, true}, {(const uint8_t *)"c", 1, true}};
	pm_pq_bin maxs[3] = {{(const uint8_t *)"b", 1, true}, {NULL, 0, true}, {(const uint8_t *)"dd", 2, true}};
	int64_t ncounts[3] = {0, 10, 2}, hist[6] = {1, 2, 3, 4, 5, 6};
	pm_pq_page_location locs[2] = {{4, 100, 0}, {104, 90, 20000}};
	int64_t ub[2] = {7, 8};
	int t;
	for (t = 0; t < 4; t++) {
		memset(&ph, 0, sizeof ph);
		ph.type = t;
		ph.uncompressed_page_size = 1 << 20;
		ph.compressed_page_size = 12345;
		ph.has_crc = true;
		ph.crc = (int32_t)0xdeadbeef;
		if (t == 0) {
			ph.has_data_page_header = true;
			ph.data_page_header.num_values = 20000;
			ph.data_page_header.encoding = 8;
			ph.data_page_header.definition_level_encoding = 3;
			ph.data_page_header.repetition_level_encoding = 4;
			ph.data_page_header.has_statistics = true;
			ph.data_page_header.statistics = full_stats();
		} else if (t == 1) {
			ph.has_index_page_header = true;
		} else if (t == 2) {
			ph.has_dictionary_page_header = true;
			ph.dictionary_page_header.num_values = 5;
			ph.dictionary_page_header.encoding = 2;
			ph.dictionary_page_header.has_is_sorted = true;
			ph.dictionary_page_header.is_sorted = true;
		} else {
			pm_pq_data_page_header_v2 *v = &ph.data_page_header_v2;
			ph.has_data_page_header_v2 = true;
			v->num_values = 10; v->num_nulls = 10; v->num_rows = 10; v->encoding = 8;
			v->definition_levels_byte_length = 2; v->repetition_levels_byte_length = 0;
			v->has_is_compressed = true; v->is_compressed = false;
			v->has_statistics = true; v->statistics = full_stats();
		}
		pm_buf_clear(&b);
		CHECK_OK(pm_pq_page_header_encode(&ph, &b));
		CHECK_OK(pm_buf_append(&b, "trailing page bytes", 19));
		CHECK_OK(pm_pq_page_header_decode(b.data, b.len, &d, &used));
		CHECK(used == b.len - 19);
		CHECK(d.type == t && d.uncompressed_page_size == 1 << 20 && d.compressed_page_size == 12345);
		CHECK(d.has_crc && d.crc == (int32_t)0xdeadbeef);
		CHECK(d.has_data_page_header == (t == 0) && d.has_index_page_header == (t == 1) &&
		      d.has_dictionary_page_header == (t == 2) && d.has_data_page_header_v2 == (t == 3));
		if (t == 0) {
			CHECK(d.data_page_header.num_values == 20000 && d.data_page_header.encoding == 8 &&
			      d.data_page_header.definition_level_encoding == 3 &&
			      d.data_page_header.repetition_level_encoding == 4);
			stats_equal(&ph.data_page_header.statistics, &d.data_page_header.statistics);
		} else if (t == 2) {
			CHECK(d.dictionary_page_header.num_values == 5 && d.dictionary_page_header.is_sorted);
		} else if (t == 3) {
			CHECK(d.data_page_header_v2.num_nulls == 10 && !d.data_page_header_v2.is_compressed &&
			      d.data_page_header_v2.definition_levels_byte_length == 2);
			stats_equal(&ph.data_page_header_v2.statistics, &d.data_page_header_v2.statistics);
		}
	}
	/* v2 without is_compressed: defaults to true. */
	ph.data_page_header_v2.has_is_compressed = false;
	ph.data_page_header_v2.is_compressed = true;
	pm_buf_clear(&b);
	CHECK_OK(pm_pq_page_header_encode(&ph, &b));
	CHECK_OK(pm_pq_page_header_decode(b.data, b.len, &d, &used));
	CHECK(d.data_page_header_v2.is_compressed && !d.data_page_header_v2.has_is_compressed);
	/* Negative page size and missing required fields. */
	ph.compressed_page_size = -1;
	pm_buf_clear(&b);
	CHECK_OK(pm_pq_page_header_encode(&ph, &b));
	CHECK_RC(pm_pq_page_header_decode(b.data, b.len, &d, &used), PAIMON_ECORRUPT);
	CHECK_MSG("negative page size");
	CHECK_RC(pm_pq_page_header_decode("\x15\x04\x00", 3, &d, &used), PAIMON_ECORRUPT);
	CHECK_MSG("uncompressed_page_size");
	/* Column index. */
	memset(&ci, 0, sizeof ci);
	ci.null_pages = nulls; ci.n_pages = 3; ci.min_values = mins; ci.max_values = maxs;
	ci.boundary_order = PM_PQ_ASCENDING; ci.null_counts = ncounts; ci.n_null_counts = 3;
	ci.repetition_level_histograms = hist; ci.n_repetition_level_histograms = 6;
	ci.definition_level_histograms = hist; ci.n_definition_level_histograms = 6;
	ci.nan_counts = ncounts; ci.n_nan_counts = 3;
	pm_buf_clear(&b);
	CHECK_OK(pm_pq_column_index_encode(&ci, &b));
	CHECK_OK(pm_pq_column_index_decode(b.data, b.len, &dci));
	if (dci) {
		CHECK(dci->n_pages == 3 && dci->null_pages[1] && !dci->null_pages[0]);
		CHECK(dci->max_values[2].len == 2 && memcmp(dci->max_values[2].p, "dd", 2) == 0);
		CHECK(dci->min_values[1].len == 0);
		CHECK(dci->boundary_order == PM_PQ_ASCENDING && dci->n_null_counts == 3 &&
		      dci->null_counts[1] == 10 && dci->n_definition_level_histograms == 6 &&
		      dci->definition_level_histograms[5] == 6 && dci->n_nan_counts == 3);
		CHECK_OK(pm_pq_column_index_encode(dci, &b2));
		CHECK(b.len == b2.len && memcmp(b.data, b2.data, b.len) == 0);
	}
	pm_pq_column_index_free(dci);
	/* Column index with mismatched list lengths. */
	ci.n_null_counts = 2;
	CHECK_RC(pm_pq_column_index_encode(&ci, &b), PAIMON_EINVAL);
	/* Offset index. */
	memset(&oi, 0, sizeof oi);
	oi.page_locations = locs; oi.n_page_locations = 2;
	oi.unencoded_byte_array_data_bytes = ub; oi.n_unencoded_byte_array_data_bytes = 2;
	pm_buf_clear(&b);
	CHECK_OK(pm_pq_offset_index_encode(&oi, &b));
	CHECK_OK(pm_pq_offset_index_decode(b.data, b.len, &doi));
	if (doi) {
		CHECK(doi->n_page_locations == 2 && doi->page_locations[1].offset == 104 &&
		      doi->page_locations[1].compressed_page_size == 90 &&
		      doi->page_locations[1].first_row_index == 20000);
		CHECK(doi->n_unencoded_byte_array_data_bytes == 2 && doi->unencoded_byte_array_data_bytes[1] == 8);
	}
	pm_pq_offset_index_free(doi);
	/* Bloom filter header. */
	pm_buf_clear(&b);
	CHECK_OK(pm_pq_bloom_filter_header_encode(&bh, &b));
	CHECK_OK(pm_pq_bloom_filter_header_decode(b.data, b.len, &dbh, &used));
	CHECK(used == b.len && dbh.num_bytes == 1024 && dbh.algorithm == 1 && dbh.hash == 1 &&
	      dbh.compression == 1);
	pm_buf_dispose(&b);
	pm_buf_dispose(&b2);
}

/* Footer-level malformations built by hand. */
static void hand_made_footers(void)
{
	pm_pq_file_meta *m = NULL;
	/* version only: schema missing */
	CHECK_RC(pm_pq_file_meta_decode("\x15\x02\x00", 3, &m), PAIMON_ECORRUPT);
	CHECK_MSG("schema");
	/* trailing garbage after the struct */
	CHECK_RC(pm_pq_file_meta_decode("\x15\x02\x19\x0c\x16\x00\x19\x0c\x00\xff", 10, &m), PAIMON_ECORRUPT);
	CHECK_MSG("unexpected bytes");
	/* minimal valid: version 1, empty schema list, num_rows 0, empty row groups */
	CHECK_OK(pm_pq_file_meta_decode("\x15\x02\x19\x0c\x16\x00\x19\x0c\x00", 9, &m));
	pm_pq_file_meta_free(m);
	m = NULL;
	/* schema list claiming 4,000,000,000 elements in a tiny buffer */
	CHECK_RC(pm_pq_file_meta_decode("\x15\x02\x19\xfc\x80\xd0\xac\xf3\x0e\x00", 10, &m), PAIMON_ECORRUPT);
	CHECK_MSG("list size 4000000000 exceeds remaining");
	/* encryption_algorithm (field 8) present */
	CHECK_RC(pm_pq_file_meta_decode("\x15\x02\x19\x0c\x16\x00\x19\x0c\x4c\x00\x00", 11, &m),
		 PAIMON_EUNSUPPORTED);
	CHECK_MSG("encrypted");
	/* known field with unexpected wire type (version as binary) is skipped: then missing */
	CHECK_RC(pm_pq_file_meta_decode("\x18\x01x\x19\x0c\x16\x00\x19\x0c\x00", 10, &m), PAIMON_ECORRUPT);
	CHECK_MSG("'version'");
	/* Footers with bad lengths in a file image. */
	{
		uint8_t img[32] = "PAR1";
		size_t need;
		memcpy(img + 4, "\x15\x02\x19\x0c\x16\x00\x19\x0c\x00", 9);
		img[13] = 9; img[14] = 0; img[15] = 0; img[16] = 0;
		memcpy(img + 17, "PAR1", 4);
		CHECK_OK(pm_parquet_read_footer_mem(img, 21, &m));
		CHECK(m && m->footer_offset == 4 && m->footer_len == 9 && m->file_size == 21);
		pm_pq_file_meta_free(m);
		m = NULL;
		/* tail too short: asks for more */
		CHECK_OK(pm_parquet_parse_footer(img + 21 - 12, 12, 21, &m, &need));
		CHECK(m == NULL && need == 17);
		CHECK_OK(pm_parquet_parse_footer(img + 21 - 17, 17, 21, &m, &need));
		CHECK(m != NULL && need == 0);
		pm_pq_file_meta_free(m);
		m = NULL;
		img[13] = 10;
		CHECK_RC(pm_parquet_read_footer_mem(img, 21, &m), PAIMON_ECORRUPT);
		img[13] = 0;
		CHECK_RC(pm_parquet_read_footer_mem(img, 21, &m), PAIMON_ECORRUPT);
		CHECK_MSG("footer length is 0");
		img[13] = 9;
		memcpy(img + 17, "PARE", 4);
		CHECK_RC(pm_parquet_read_footer_mem(img, 21, &m), PAIMON_EUNSUPPORTED);
		memcpy(img + 17, "PAR1", 4);
		img[0] = 'Q';
		CHECK_RC(pm_parquet_read_footer_mem(img, 21, &m), PAIMON_ECORRUPT);
		CHECK_MSG("start of file");
	}
}

static pm_pq_schema_element leaf(const char *n, int rep, int type)
{
	pm_pq_schema_element e;
	memset(&e, 0, sizeof e);
	e.name = n;
	e.has_repetition = true;
	e.repetition = rep;
	e.has_type = true;
	e.type = type;
	return e;
}

static pm_pq_schema_element group(const char *n, int rep, int nc)
{
	pm_pq_schema_element e;
	memset(&e, 0, sizeof e);
	e.name = n;
	e.has_repetition = rep >= 0;
	e.repetition = rep;
	e.has_num_children = true;
	e.num_children = nc;
	return e;
}

static void schema_trees(void)
{
	pm_pq_schema_element el[PM_PQ_MAX_SCHEMA_DEPTH + 5];
	pm_pq_schema *s = NULL;
	int i;
	/* root{ a req int32, m opt group{ kv rep group{ k req binary, v opt int64 } }, z rep int32 } */
	el[0] = group("root", -1, 3);
	el[1] = leaf("a", PM_PQ_REQUIRED, PM_PQ_INT32);
	el[2] = group("m", PM_PQ_OPTIONAL, 1);
	el[3] = group("key_value", PM_PQ_REPEATED, 2);
	el[4] = leaf("key", PM_PQ_REQUIRED, PM_PQ_BYTE_ARRAY);
	el[5] = leaf("value", PM_PQ_OPTIONAL, PM_PQ_INT64);
	el[6] = leaf("z", PM_PQ_REPEATED, PM_PQ_INT32);
	CHECK_OK(pm_pq_schema_build(el, 7, &s));
	if (s) {
		CHECK(s->n_leaves == 4 && s->n_nodes == 7);
		CHECK(s->nodes[0].n_children == 3 && s->nodes[2].n_children == 1);
		CHECK(s->leaves[0]->max_def_level == 0 && s->leaves[0]->max_rep_level == 0);
		CHECK(s->leaves[1]->max_def_level == 2 && s->leaves[1]->max_rep_level == 1);
		CHECK(s->leaves[2]->max_def_level == 3 && s->leaves[2]->max_rep_level == 1);
		CHECK(s->leaves[3]->max_def_level == 1 && s->leaves[3]->max_rep_level == 1);
		CHECK(s->leaves[2]->depth == 3);
		CHECK_STR(s->leaves[2]->path[0], "m");
		CHECK_STR(s->leaves[2]->path[1], "key_value");
		CHECK_STR(s->leaves[2]->path[2], "value");
		CHECK(s->leaves[2]->parent == &s->nodes[3] && s->leaves[2]->leaf_index == 2);
	}
	pm_pq_schema_free(s);
	s = NULL;
	/* too few elements */
	CHECK_RC(pm_pq_schema_build(el, 6, &s), PAIMON_ECORRUPT);
	CHECK(s == NULL);
	/* too many elements */
	el[7] = leaf("extra", PM_PQ_REQUIRED, PM_PQ_INT32);
	CHECK_RC(pm_pq_schema_build(el, 8, &s), PAIMON_ECORRUPT);
	CHECK_MSG("uses only 7");
	/* children count past the end */
	el[2].num_children = 100;
	CHECK_RC(pm_pq_schema_build(el, 7, &s), PAIMON_ECORRUPT);
	CHECK_MSG("claims 100 children");
	el[2].num_children = 1;
	el[0].num_children = -1;
	CHECK_RC(pm_pq_schema_build(el, 7, &s), PAIMON_ECORRUPT);
	el[0].num_children = 3;
	/* leaf without type, missing repetition, FLBA without length */
	el[5].has_type = false;
	CHECK_RC(pm_pq_schema_build(el, 7, &s), PAIMON_ECORRUPT);
	CHECK_MSG("no physical type");
	el[5].has_type = true;
	el[1].has_repetition = false;
	CHECK_RC(pm_pq_schema_build(el, 7, &s), PAIMON_ECORRUPT);
	CHECK_MSG("no repetition");
	el[1].has_repetition = true;
	el[1].type = PM_PQ_FIXED_LEN_BYTE_ARRAY;
	CHECK_RC(pm_pq_schema_build(el, 7, &s), PAIMON_ECORRUPT);
	CHECK_MSG("type_length");
	CHECK_RC(pm_pq_schema_build(el, 0, &s), PAIMON_ECORRUPT);
	/* root only: zero columns */
	CHECK_OK(pm_pq_schema_build(el, 1, &s) == 0 ? 0 : 0);
	el[0].num_children = 0;
	CHECK_OK(pm_pq_schema_build(el, 1, &s));
	CHECK(s && s->n_leaves == 0);
	pm_pq_schema_free(s);
	s = NULL;
	/* depth: a chain of groups */
	el[0] = group("root", -1, 1);
	for (i = 1; i <= PM_PQ_MAX_SCHEMA_DEPTH + 2; i++)
		el[i] = group("g", PM_PQ_OPTIONAL, 1);
	el[PM_PQ_MAX_SCHEMA_DEPTH + 3] = leaf("x", PM_PQ_OPTIONAL, PM_PQ_INT32);
	CHECK_RC(pm_pq_schema_build(el, PM_PQ_MAX_SCHEMA_DEPTH + 4, &s), PAIMON_ECORRUPT);
	CHECK_MSG("deeper");
	/* the deepest allowed chain works */
	el[PM_PQ_MAX_SCHEMA_DEPTH - 1] = leaf("x", PM_PQ_OPTIONAL, PM_PQ_INT32);
	CHECK_OK(pm_pq_schema_build(el, PM_PQ_MAX_SCHEMA_DEPTH, &s));
	CHECK(s && s->leaves[0]->max_def_level == PM_PQ_MAX_SCHEMA_DEPTH - 1);
	pm_pq_schema_free(s);
}

/* OOM at every allocation of a corpus footer decode + schema build. */
static void oom(void)
{
	size_t len;
	uint8_t *f;
	long nth;
	if (!find_corpus())
		return;
	f = corpus_file("data/nullable.impala.parquet", &len);
	if (!f)
		return;
	for (nth = 1; nth < 40; nth++) {
		pm_pq_file_meta *m = NULL;
		pm_pq_schema *s = NULL;
		int rc;
		pm_mem_fail_at(nth);
		rc = pm_parquet_read_footer_mem(f, len, &m);
		if (rc == 0)
			rc = pm_pq_schema_build(m->schema, m->n_schema, &s);
		pm_mem_fail_at(0);
		CHECK(rc == 0 || rc == PAIMON_ENOMEM);
		pm_pq_schema_free(s);
		pm_pq_file_meta_free(m);
	}
	free(f);
}

TEST_MAIN(T(corpus_footers), T(corpus_details), T(fileio_footer), T(mangled_footers),
	  T(full_roundtrip), T(page_structs_roundtrip), T(hand_made_footers), T(schema_trees), T(oom))
