/*
 * tests/unit/core/test_limits.c - resource limits in every parser of
 * untrusted bytes: tiny inputs claiming huge lengths/counts fail cleanly
 * (PAIMON_ECORRUPT naming the field) and the largest single allocation stays
 * within a bound derived from the input size (pm_mem_set_max_alloc /
 * pm_mem_max_request); 100,000-deep nesting fails cleanly without
 * overflowing the stack.
 *
 * Each test sets a test allocation cap well above the stated bound (so a
 * regression shows up as PAIMON_ENOMEM "exceeds the test allocation cap"
 * instead of a clean ECORRUPT) and checks the high-water mark against the
 * bound itself.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "codec/codec.h"
#include "core/buf.h"
#include "core/mem.h"
#include "format/avro/avro.h"
#include "serde/json/jsonr.h"
#include "format/parquet/parquet_meta.h"
#include "format/parquet/reader.h"
#include "serde/thrift/thrift.h"
#include "io/fileio.h"
#include "meta/manifest.h"
#include "meta/schema.h"
#include "meta/snapshot.h"
#include "commit/commit.h"
#include "table/predicate.h"
#include "scan/scan.h"
#include "types/binrow.h"
#include "types/datatype.h"
#include "test.h"

#define DEEP 100000
#define CAP ((size_t)64 << 20) /* far below every "huge" claim below */

/* Starts a measured section: cap on, high-water mark reset. */
static void limits_on(void)
{
	pm_mem_set_max_alloc(CAP);
}

/* Ends it: cap off; returns the largest single request seen. */
static size_t limits_off(void)
{
	size_t m = pm_mem_max_request();
	pm_mem_set_max_alloc(0);
	return m;
}

#define CHECK_BOUND(seen, bound) do { size_t s_ = (seen), b_ = (bound); if (s_ > b_) { test_failures++; \
	fprintf(stderr, "%s:%d: [%s] largest allocation %zu exceeds the bound %zu (%s)\n", __FILE__, \
		__LINE__, test_current, s_, b_, #bound); } } while (0)

static void put_varint(pm_buf *b, uint64_t v)
{
	do {
		uint8_t c = v & 0x7f;
		v >>= 7;
		if (v)
			c |= 0x80;
		pm_buf_putc(b, (char)c);
	} while (v);
}

static char *repeat3(const char *pre, int n, const char *mid, const char *post)
{
	size_t lp = strlen(pre), lm = strlen(mid), lq = strlen(post);
	char *s = malloc((size_t)n * (lp + lq) + lm + 1), *q = s;
	int i;
	for (i = 0; i < n; i++, q += lp)
		memcpy(q, pre, lp);
	memcpy(q, mid, lm);
	q += lm;
	for (i = 0; i < n; i++, q += lq)
		memcpy(q, post, lq);
	*q = 0;
	return s;
}

/* ------------------------------------------------------------ the cap */

static void test_mem_cap(void)
{
	void *p;
	pm_mem_set_max_alloc(1000);
	CHECK((p = pm_malloc(1000)) != NULL);
	pm_free(p);
	CHECK(pm_malloc(1001) == NULL);
	CHECK_MSG("1001 bytes exceeds the test allocation cap of 1000");
	CHECK(pm_calloc(SIZE_MAX / 2, 4) == NULL);
	CHECK(pm_realloc(NULL, 5000) == NULL);
	CHECK_MSG("5000 bytes");
	CHECK(pm_mem_max_request() == SIZE_MAX);
	pm_mem_set_max_alloc(0);
	CHECK(pm_mem_max_request() == 0);
	CHECK((p = pm_malloc(1 << 20)) != NULL); /* no cap: not limited, not tracked */
	pm_free(p);
	CHECK(pm_mem_max_request() == 0);
}

/* ------------------------------------------------------------ thrift */

/* Bound: the reader allocates nothing at all. */
static void test_thrift_huge_counts(void)
{
	pm_buf b = PM_BUF_INIT;
	pm_tc_reader r;
	uint8_t et, kt, vt;
	uint32_t cnt;
	const uint8_t *p;
	size_t n;

	pm_buf_reserve(&b, 64); /* test buffer: allocated before measuring */
	limits_on();
	pm_buf_putc(&b, (char)0xF5); /* list<i32>, size in a varint */
	put_varint(&b, (uint64_t)1 << 31);
	pm_buf_append(&b, "\x02\x04", 2);
	pm_tc_reader_init(&r, b.data, b.len);
	CHECK_RC(pm_tc_read_list(&r, &et, &cnt), PAIMON_ECORRUPT);
	CHECK_MSG("list size 2147483648 exceeds remaining 2 bytes");

	pm_buf_clear(&b);
	put_varint(&b, (uint64_t)1 << 40); /* binary length */
	pm_buf_append(&b, "abc", 3);
	pm_tc_reader_init(&r, b.data, b.len);
	CHECK_RC(pm_tc_read_binary(&r, &p, &n), PAIMON_ECORRUPT);
	CHECK_MSG("binary length 1099511627776 exceeds remaining 3 bytes");

	pm_buf_clear(&b);
	put_varint(&b, (uint64_t)1 << 31); /* map<i32,i32> */
	pm_buf_putc(&b, 0x55);
	pm_buf_append(&b, "\x02\x02\x02", 3);
	pm_tc_reader_init(&r, b.data, b.len);
	CHECK_RC(pm_tc_read_map(&r, &kt, &vt, &cnt), PAIMON_ECORRUPT);
	CHECK_MSG("map size 2147483648");

	/* list<double>: 8 bytes per element. */
	pm_buf_clear(&b);
	pm_buf_putc(&b, (char)0x37); /* 3 doubles claimed ... */
	pm_buf_append(&b, "12345678abcdefgh", 16); /* ... 2 present */
	pm_tc_reader_init(&r, b.data, b.len);
	CHECK_RC(pm_tc_read_list(&r, &et, &cnt), PAIMON_ECORRUPT);
	CHECK_BOUND(limits_off(), 0);
	pm_buf_dispose(&b);
}

static void test_thrift_deep(void)
{
	pm_buf b = PM_BUF_INIT;
	pm_tc_reader r;
	int i;
	pm_buf_reserve(&b, 2 * DEEP + 16); /* test buffer: allocated before measuring */
	limits_on();
	for (i = 0; i < DEEP; i++)
		pm_buf_putc(&b, 0x1C); /* field delta 1, type struct */
	pm_tc_reader_init(&r, b.data, b.len);
	CHECK_RC(pm_tc_skip(&r, PM_TC_STRUCT), PAIMON_ECORRUPT);
	CHECK_MSG("nesting deeper than 64");

	pm_buf_clear(&b);
	for (i = 0; i < DEEP; i++)
		pm_buf_putc(&b, 0x19); /* list of 1 list */
	pm_tc_reader_init(&r, b.data, b.len);
	CHECK_RC(pm_tc_skip(&r, PM_TC_LIST), PAIMON_ECORRUPT);
	CHECK_MSG("nesting deeper than 64");

	pm_buf_clear(&b);
	for (i = 0; i < DEEP; i++)
		pm_buf_append(&b, "\x01\xCC", 2); /* map of 1 struct->struct ... */
	pm_tc_reader_init(&r, b.data, b.len);
	CHECK_RC(pm_tc_skip(&r, PM_TC_MAP), PAIMON_ECORRUPT);
	CHECK_BOUND(limits_off(), 0);
	pm_buf_dispose(&b);
}

/* ------------------------------------------------------------ parquet metadata */

/* Bound for FileMetaData / schema: the arena holds a copy of the n input
 * bytes, then chunks of max(16 KiB, one list) where one list is at most
 * n elements x sizeof(struct) (each element takes >= 1 wire byte). */
static size_t pm_pq_meta_bound(size_t n)
{
	return 2 * n + 16384 + 256 + n * sizeof(pm_pq_row_group);
}

static void test_parquet_meta_huge_list(void)
{
	pm_buf b = PM_BUF_INIT;
	pm_pq_file_meta *fm = NULL;
	int i;

	limits_on();
	pm_buf_putc(&b, 0x15); /* 1: version i32 */
	pm_buf_putc(&b, 0x02);
	pm_buf_putc(&b, 0x19); /* 2: schema list<struct> of 2^31 - 1 */
	pm_buf_putc(&b, (char)0xFC);
	put_varint(&b, ((uint64_t)1 << 31) - 1);
	pm_buf_append(&b, "\x00\x00\x00\x00", 4);
	CHECK_RC(pm_pq_file_meta_decode(b.data, b.len, &fm), PAIMON_ECORRUPT);
	CHECK_MSG("list size 2147483647 exceeds remaining 4 bytes");
	CHECK(fm == NULL);
	CHECK_BOUND(limits_off(), pm_pq_meta_bound(b.len));

	/* A list as long as the bytes allow (100,000 empty row groups): it
	 * allocates, but within the bound, and then fails on missing fields. */
	limits_on();
	pm_buf_clear(&b);
	pm_buf_append(&b, "\x15\x02", 2);
	pm_buf_putc(&b, 0x39); /* 4 (delta 3): row_groups */
	pm_buf_putc(&b, (char)0xFC);
	put_varint(&b, DEEP);
	for (i = 0; i < DEEP; i++)
		pm_buf_putc(&b, 0);
	pm_buf_putc(&b, 0);
	CHECK_RC(pm_pq_file_meta_decode(b.data, b.len, &fm), PAIMON_ECORRUPT);
	CHECK_BOUND(limits_off(), pm_pq_meta_bound(b.len));

	/* Deeply nested unknown fields are skipped with a depth limit. */
	limits_on();
	pm_buf_clear(&b);
	pm_buf_putc(&b, 0x0C); /* long-form header: type struct ... */
	pm_buf_putc(&b, 0x64); /* ... id 50 (zigzag 100): unknown */
	for (i = 0; i < DEEP; i++)
		pm_buf_putc(&b, 0x1C);
	CHECK_RC(pm_pq_file_meta_decode(b.data, b.len, &fm), PAIMON_ECORRUPT);
	CHECK_MSG("nesting deeper than 64");
	CHECK_BOUND(limits_off(), pm_pq_meta_bound(b.len));
	pm_buf_dispose(&b);
}

static void test_parquet_schema_deep(void)
{
	pm_pq_schema_element *e = calloc(DEEP, sizeof *e);
	pm_pq_schema *s = NULL;
	size_t i;
	for (i = 0; i < DEEP; i++) {
		e[i].name = "g";
		e[i].has_repetition = true;
		e[i].repetition = PM_PQ_OPTIONAL;
		e[i].has_num_children = i + 1 < DEEP;
		e[i].num_children = 1;
		if (i + 1 == DEEP) {
			e[i].has_type = true;
			e[i].type = PM_PQ_INT32;
		}
	}
	limits_on();
	CHECK_RC(pm_pq_schema_build(e, DEEP, &s), PAIMON_ECORRUPT);
	CHECK_MSG("schema nested deeper than 100");
	/* nodes array (n x node) is the largest; paths are bounded by depth 100. */
	CHECK_BOUND(limits_off(), DEEP * sizeof(pm_pq_schema_node) + 4096);

	/* Root claims 2^31 - 1 children. */
	e[0].num_children = INT32_MAX;
	limits_on();
	CHECK_RC(pm_pq_schema_build(e, 3, &s), PAIMON_ECORRUPT);
	CHECK_MSG("claims 2147483647 children but only 2 elements follow");
	CHECK_BOUND(limits_off(), 3 * sizeof(pm_pq_schema_node) + 16384 + 256);
	free(e);
}

/* ------------------------------------------------------------ parquet pages */

/* A one-column (INT32 "x", one row) file whose only page is body (codec as
 * given) under a header claiming usize uncompressed / csize compressed. */
static void make_pq_file(pm_buf *out, int codec, const void *body, size_t blen, int32_t usize, int32_t csize)
{
	pm_pq_schema_element sch[2];
	pm_pq_row_group rg;
	pm_pq_column_chunk cc;
	pm_pq_file_meta fm;
	pm_pq_page_header ph;
	pm_buf ft = PM_BUF_INIT;
	static int32_t encs[1] = {PM_PQ_ENC_PLAIN};
	static const char *path[1] = {"x"};
	size_t hstart;
	uint8_t le[4];

	memset(sch, 0, sizeof sch);
	memset(&rg, 0, sizeof rg);
	memset(&cc, 0, sizeof cc);
	memset(&fm, 0, sizeof fm);
	memset(&ph, 0, sizeof ph);
	pm_buf_append(out, "PAR1", 4);
	hstart = out->len;
	ph.type = PM_PQ_DATA_PAGE;
	ph.uncompressed_page_size = usize;
	ph.compressed_page_size = csize;
	ph.has_data_page_header = true;
	ph.data_page_header.num_values = 1;
	ph.data_page_header.encoding = PM_PQ_ENC_PLAIN;
	ph.data_page_header.definition_level_encoding = PM_PQ_ENC_RLE;
	ph.data_page_header.repetition_level_encoding = PM_PQ_ENC_RLE;
	CHECK_OK(pm_pq_page_header_encode(&ph, out));
	pm_buf_append(out, body, blen);

	sch[0].name = "schema";
	sch[0].has_num_children = true;
	sch[0].num_children = 1;
	sch[1].name = "x";
	sch[1].has_type = true;
	sch[1].type = PM_PQ_INT32;
	sch[1].has_repetition = true;
	sch[1].repetition = PM_PQ_REQUIRED;
	cc.file_offset = 4;
	cc.has_meta_data = true;
	cc.meta_data.type = PM_PQ_INT32;
	cc.meta_data.encodings = encs;
	cc.meta_data.n_encodings = 1;
	cc.meta_data.path_in_schema = path;
	cc.meta_data.n_path = 1;
	cc.meta_data.codec = codec;
	cc.meta_data.num_values = 1;
	cc.meta_data.total_uncompressed_size = (int64_t)(out->len - hstart) + usize - (int64_t)blen;
	cc.meta_data.total_compressed_size = (int64_t)(out->len - hstart);
	cc.meta_data.data_page_offset = (int64_t)hstart;
	rg.columns = &cc;
	rg.n_columns = 1;
	rg.num_rows = 1;
	rg.total_byte_size = cc.meta_data.total_uncompressed_size;
	fm.version = 1;
	fm.schema = sch;
	fm.n_schema = 2;
	fm.num_rows = 1;
	fm.row_groups = &rg;
	fm.n_row_groups = 1;
	CHECK_OK(pm_pq_file_meta_encode(&fm, &ft));
	pm_buf_append(out, ft.data, ft.len);
	le[0] = (uint8_t)ft.len, le[1] = (uint8_t)(ft.len >> 8), le[2] = (uint8_t)(ft.len >> 16), le[3] = 0;
	pm_buf_append(out, le, 4);
	pm_buf_append(out, "PAR1", 4);
	pm_buf_dispose(&ft);
}

/* Opens the file from memory and reads every batch; returns the first error. */
static int read_pq(const pm_buf *file)
{
	pm_fileio *io = NULL;
	pm_pq_reader *r = NULL;
	pm_pq_read_options opt;
	struct ArrowArray a;
	int eof = 0, rc;
	memset(&opt, 0, sizeof opt);
	if ((rc = pm_fileio_mem_new(file->data, file->len, &io)))
		return rc;
	rc = pm_pq_reader_open(io, "corrupt.parquet", &opt, &r);
	while (!rc && !eof) {
		memset(&a, 0, sizeof a);
		rc = pm_pq_reader_next(r, &a, &eof);
		if (!rc && !eof && a.release)
			a.release(&a);
	}
	pm_pq_reader_free(r);
	pm_fileio_close(io);
	return rc;
}

/* Bound for reading a Parquet file of n bytes: the I/O window
 * (PM_PQ_IO_WINDOW, or the file if smaller), a decompressed page of at most
 * pm_codec_max_decompressed_len(codec, compressed size), and the reader's
 * fixed buffers (batch-sized, independent of the claims). */
static void test_parquet_page_claims(void)
{
	static const int32_t one = 42;
	pm_buf body = PM_BUF_INIT, f = PM_BUF_INIT;
	int codecs[] = {PM_CODEC_GZIP, PM_CODEC_SNAPPY, PM_CODEC_ZSTD, PM_CODEC_LZ4_RAW};
	size_t i, bound_fixed = (size_t)4 << 20; /* reader buffers for a 64 Ki-row batch */

	/* Sanity: the honest file reads. */
	make_pq_file(&f, PM_CODEC_UNCOMPRESSED, &one, 4, 4, 4);
	CHECK_OK(read_pq(&f));

	for (i = 0; i < sizeof codecs / sizeof codecs[0]; i++) {
		pm_buf_clear(&body);
		pm_buf_clear(&f);
		CHECK_OK(pm_codec_compress(codecs[i], PM_CODEC_LEVEL_DEFAULT, &one, 4, &body));
		/* 1 GiB - 1 uncompressed claimed for a few compressed bytes (the
		 * page limit alone would allow it). */
		make_pq_file(&f, codecs[i], body.data, body.len, INT32_MAX / 2, (int32_t)body.len);
		limits_on();
		CHECK_RC(read_pq(&f), PAIMON_ECORRUPT);
		CHECK_MSG("more than that codec can expand to");
		CHECK_MSG("corrupt.parquet: column 'x'");
		CHECK_BOUND(limits_off(), f.len + pm_codec_max_decompressed_len(codecs[i], body.len) +
						  bound_fixed);
	}

	/* 2 GB compressed page in a 60-byte file. */
	pm_buf_clear(&f);
	make_pq_file(&f, PM_CODEC_UNCOMPRESSED, &one, 4, 4, INT32_MAX);
	limits_on();
	CHECK_RC(read_pq(&f), PAIMON_ECORRUPT);
	CHECK_MSG("runs past the column chunk end");
	CHECK_BOUND(limits_off(), f.len + bound_fixed);

	/* Uncompressed page whose sizes disagree. */
	pm_buf_clear(&f);
	make_pq_file(&f, PM_CODEC_UNCOMPRESSED, &one, 4, INT32_MAX, 4);
	limits_on();
	CHECK_RC(read_pq(&f), PAIMON_ECORRUPT);
	CHECK_BOUND(limits_off(), f.len + bound_fixed);

	/* Footer claiming a 2 GB FileMetaData. */
	pm_buf_clear(&f);
	pm_buf_append(&f, "PAR1\x00\x00\x00\x00\xff\xff\xff\x7fPAR1", 16);
	limits_on();
	CHECK_RC(read_pq(&f), PAIMON_ECORRUPT);
	CHECK_BOUND(limits_off(), f.len + 16384);
	pm_buf_dispose(&body);
	pm_buf_dispose(&f);
}

/* ------------------------------------------------------------ codecs */

static void test_codec_bounds(void)
{
	pm_buf out = PM_BUF_INIT;
	/* zstd frame header: single segment, 4-byte content size = 16 MiB. */
	static const uint8_t zstd[] = {0x28, 0xB5, 0x2F, 0xFD, 0xA0, 0x00, 0x00, 0x00, 0x01,
				       0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
	/* snappy preamble claiming 4 GiB - 1. */
	static const uint8_t snappy[] = {0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x00, 0x61};
	/* LZ4 Hadoop frame claiming 1 GiB decompressed. */
	static const uint8_t lz4[] = {0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x10, 0x61};
	static const uint8_t junk[] = {0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03};

	CHECK(pm_codec_max_decompressed_len(PM_CODEC_UNCOMPRESSED, 10) == 10);
	CHECK(pm_codec_max_decompressed_len(PM_CODEC_SNAPPY, 3) == 3 * 22 + 64);
	CHECK(pm_codec_max_decompressed_len(PM_CODEC_ZSTD, SIZE_MAX / 2) == SIZE_MAX);
	CHECK(pm_codec_max_decompressed_len(PM_CODEC_BROTLI, 1) == SIZE_MAX);

	limits_on();
	CHECK(pm_codec_decompress_buf(NULL, PM_CODEC_ZSTD, zstd, sizeof zstd, (size_t)1 << 30, &out) != 0);
	/* pm_buf capacity doubles: at most twice the codec's bound. */
	CHECK_BOUND(limits_off(), 2 * (pm_codec_max_decompressed_len(PM_CODEC_ZSTD, sizeof zstd) + 1));
	pm_buf_clear(&out);
	limits_on();
	CHECK_RC(pm_codec_decompress_buf(NULL, PM_CODEC_SNAPPY, snappy, sizeof snappy, (size_t)1 << 30, &out),
		 PAIMON_ECORRUPT);
	CHECK_MSG("SNAPPY");
	CHECK_BOUND(limits_off(), 4096);
	pm_buf_clear(&out);
	limits_on();
	CHECK_RC(pm_codec_decompress_buf(NULL, PM_CODEC_LZ4, lz4, sizeof lz4, (size_t)1 << 30, &out),
		 PAIMON_ECORRUPT);
	CHECK_BOUND(limits_off(), pm_codec_max_decompressed_len(PM_CODEC_LZ4, sizeof lz4) + 1 + 4096);
	pm_buf_clear(&out);
	limits_on();
	CHECK_RC(pm_codec_decompress_buf(NULL, PM_CODEC_GZIP, junk, sizeof junk, (size_t)1 << 30, &out),
		 PAIMON_ECORRUPT);
	CHECK_BOUND(limits_off(), pm_codec_max_decompressed_len(PM_CODEC_GZIP, sizeof junk) + 1 + 65536);
	pm_buf_dispose(&out);
}

/* ------------------------------------------------------------ avro */

static void avro_bytes(pm_buf *b, const void *p, size_t n)
{
	pm_avro_put_long(b, (int64_t)n);
	pm_buf_append(b, p, n);
}

/* An Avro container: schema, codec, then blocks of (count, payload). */
static void make_avro(pm_buf *b, const char *schema, const char *codec, int64_t count, const void *payload,
		      size_t plen)
{
	static const char sync[16] = "0123456789abcdef";
	pm_buf_append(b, "Obj\x01", 4);
	pm_avro_put_long(b, 2);
	avro_bytes(b, "avro.schema", 11);
	avro_bytes(b, schema, strlen(schema));
	avro_bytes(b, "avro.codec", 10);
	avro_bytes(b, codec, strlen(codec));
	pm_avro_put_long(b, 0);
	pm_buf_append(b, sync, 16);
	pm_avro_put_long(b, count);
	avro_bytes(b, payload, plen);
	pm_buf_append(b, sync, 16);
}

static int read_avro(const pm_buf *b)
{
	pm_avro_reader *r = NULL;
	const pm_avro_value *v;
	int rc = pm_avro_reader_open_mem(b->data, b->len, &r);
	while (!rc && !(rc = pm_avro_reader_next(r, &v)) && v)
		;
	pm_avro_reader_free(r);
	return rc;
}

/* Bound for a container of n bytes: the file bytes, a decompressed block of
 * at most pm_codec_max_decompressed_len(codec, block size), and datum arenas
 * of at most max(4 KiB, 2 x bytes left) x sizeof(value) per array block. */
static void test_avro_claims(void)
{
	pm_buf b = PM_BUF_INIT, p = PM_BUF_INIT;
	static const uint8_t zstd[] = {0x28, 0xB5, 0x2F, 0xFD, 0xA0, 0x00, 0x00, 0x00, 0x01,
				       0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
	static const uint8_t snappy[] = {0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x00, 0x61, 0, 0, 0, 0};
	size_t vbound = ((size_t)128 << 10) * 64; /* 65,536-item array block x value size, rounded up */

	/* 2^40 records in a block of 2 bytes. */
	make_avro(&b, "\"long\"", "null", (int64_t)1 << 40, "\x02\x04", 2);
	limits_on();
	CHECK_RC(read_avro(&b), PAIMON_ECORRUPT);
	CHECK_MSG("record count exceeds the block size");
	CHECK_BOUND(limits_off(), b.len + 65536);

	/* An array claiming 2^40 items. */
	pm_buf_clear(&b);
	pm_avro_put_long(&p, (int64_t)1 << 40);
	pm_buf_append(&p, "\x02\x04", 2);
	make_avro(&b, "{\"type\":\"array\",\"items\":\"long\"}", "null", 1, p.data, p.len);
	limits_on();
	CHECK_RC(read_avro(&b), PAIMON_ECORRUPT);
	CHECK_MSG("array block count 1099511627776 exceeds the 2 bytes left");
	CHECK_BOUND(limits_off(), b.len + 65536);

	/* A map block count of 2^31 in negative (count, size) form. */
	pm_buf_clear(&b);
	pm_buf_clear(&p);
	pm_avro_put_long(&p, -((int64_t)1 << 31));
	pm_avro_put_long(&p, 4);
	pm_buf_append(&p, "\x02" "a\x02", 3);
	make_avro(&b, "{\"type\":\"map\",\"values\":\"long\"}", "null", 1, p.data, p.len);
	limits_on();
	CHECK_RC(read_avro(&b), PAIMON_ECORRUPT);
	CHECK_MSG("map block count 2147483648");
	CHECK_BOUND(limits_off(), b.len + 65536);

	/* A string claiming 2^40 bytes. */
	pm_buf_clear(&b);
	pm_buf_clear(&p);
	pm_avro_put_long(&p, (int64_t)1 << 40);
	pm_buf_append(&p, "abc", 3);
	make_avro(&b, "\"string\"", "null", 1, p.data, p.len);
	limits_on();
	CHECK_RC(read_avro(&b), PAIMON_ECORRUPT);
	CHECK_MSG("length 1099511627776 exceeds the 3 bytes left");
	CHECK_BOUND(limits_off(), b.len + 65536);

	/* Arrays of nulls take no bytes per item: each block is capped. */
	pm_buf_clear(&b);
	pm_buf_clear(&p);
	pm_avro_put_long(&p, 65537);
	pm_avro_put_long(&p, 0);
	make_avro(&b, "{\"type\":\"array\",\"items\":\"null\"}", "null", 1, p.data, p.len);
	limits_on();
	CHECK_RC(read_avro(&b), PAIMON_ECORRUPT);
	CHECK_BOUND(limits_off(), b.len + 65536);

	/* Compressed blocks claiming huge outputs. */
	pm_buf_clear(&b);
	make_avro(&b, "\"long\"", "zstandard", 1, zstd, sizeof zstd);
	limits_on();
	CHECK(read_avro(&b) != 0);
	CHECK_BOUND(limits_off(), 2 * (pm_codec_max_decompressed_len(PM_CODEC_ZSTD, sizeof zstd) + 1));
	pm_buf_clear(&b);
	make_avro(&b, "\"long\"", "snappy", 1, snappy, sizeof snappy);
	limits_on();
	CHECK_RC(read_avro(&b), PAIMON_ECORRUPT);
	CHECK_MSG("SNAPPY");
	CHECK_BOUND(limits_off(), b.len + 65536);
	(void)vbound;
	pm_buf_dispose(&b);
	pm_buf_dispose(&p);
}

static void test_avro_schema_deep(void)
{
	char *s = repeat3("{\"type\":\"array\",\"items\":", DEEP, "\"long\"", "}");
	char *s2 = repeat3("[", DEEP, "\"null\"", "]");
	char *s3 = repeat3("{\"type\":\"array\",\"items\":", 100, "\"long\"", "}");
	pm_avro_schema *sch = NULL;
	CHECK_RC(pm_avro_schema_parse(s, strlen(s), &sch), PAIMON_ECORRUPT);
	CHECK_RC(pm_avro_schema_parse(s2, strlen(s2), &sch), PAIMON_ECORRUPT);
	CHECK_RC(pm_avro_schema_parse(s3, strlen(s3), &sch), PAIMON_ECORRUPT);
	CHECK_MSG("nested deeper than 64");
	CHECK(sch == NULL);
	free(s);
	free(s2);
	free(s3);
}

/* ------------------------------------------------------------ JSON, types */

static void test_json_deep(void)
{
	char *arr = repeat3("[", DEEP, "1", "]");
	char *ty = repeat3("{\"type\":\"ARRAY\",\"element\":", DEEP, "\"INT\"", "}");
	char *ty200 = repeat3("{\"type\":\"ARRAY\",\"element\":", 200, "\"INT\"", "}");
	json_t *j = NULL;
	pm_type *t = NULL;
	pm_snapshot *snap = NULL;
	pm_table_schema *sch = NULL;
	pm_buf doc = PM_BUF_INIT;

	CHECK_RC(pm_json_parse("deep.json", arr, strlen(arr), &j), PAIMON_ECORRUPT);
	CHECK_MSG("deep.json");
	CHECK_RC(pm_snapshot_from_json("snapshot-1", arr, strlen(arr), &snap), PAIMON_ECORRUPT);
	CHECK_MSG("snapshot-1");
	pm_buf_reserve(&doc, strlen(ty) + 256);
	limits_on();
	pm_buf_printf(&doc, "{\"version\":3,\"id\":0,\"fields\":[{\"id\":0,\"name\":\"a\",\"type\":%s}],"
		       "\"highestFieldId\":0,\"partitionKeys\":[],\"primaryKeys\":[],\"options\":{}}", ty);
	CHECK_RC(pm_schema_from_json("schema-0", doc.data, doc.len, &sch), PAIMON_ECORRUPT);
	CHECK_MSG("schema-0");
	/* Within jansson's and our pre-check's depth, the type walker's limit. */
	CHECK_OK(pm_json_parse("t.json", ty200, strlen(ty200), &j));
	CHECK_RC(pm_type_from_json("t.json", j, 0, &t), PAIMON_ECORRUPT);
	CHECK_MSG("nested deeper than 64");
	json_decref(j);
	/* Bound: jansson allocates with its own malloc; ours stay small. */
	CHECK_BOUND(limits_off(), 65536);
	pm_buf_dispose(&doc);
	free(arr);
	free(ty);
	free(ty200);
}

static void test_type_string_deep(void)
{
	char *a = repeat3("ARRAY<", DEEP, "INT", ">");
	char *m = repeat3("MAP<INT, ", DEEP, "INT", ">");
	char *r = repeat3("ROW<a ", DEEP, "INT", ">");
	char *a65 = repeat3("ARRAY<", 64, "INT", ">"); /* 65 levels with the INT */
	char *a64 = repeat3("ARRAY<", 63, "INT", ">");
	pm_type *t = NULL;
	/* Type strings are DDL input: an invalid one is PAIMON_EINVAL (read from
	 * a schema file, the caller wraps it as corrupt). */
	limits_on();
	CHECK_RC(pm_type_parse(a, &t), PAIMON_EINVAL);
	CHECK_MSG("nested deeper than 64");
	CHECK_RC(pm_type_parse(m, &t), PAIMON_EINVAL);
	CHECK_RC(pm_type_parse(r, &t), PAIMON_EINVAL);
	CHECK_RC(pm_type_parse(a65, &t), PAIMON_EINVAL);
	CHECK_BOUND(limits_off(), 65536);
	CHECK_OK(pm_type_parse(a64, &t));
	pm_type_free(t);
	free(a);
	free(m);
	free(r);
	free(a65);
	free(a64);
}

/* ------------------------------------------------------------ BinaryRow */

static void test_binrow_offsets(void)
{
	pm_type *t = NULL;
	const pm_type *types[1];
	pm_binrow_datum v[1];
	uint8_t row[20];
	int kind = 0;
	CHECK_OK(pm_type_parse("STRING", &t));
	types[0] = t;
	/* arity prefix 1, null bits (8 bytes), one slot: offset 0xFFFFFFF0, length 0x7FFFFFFF */
	memset(row, 0, sizeof row);
	row[3] = 1;
	row[4 + 8 + 0] = 0xFF, row[4 + 8 + 1] = 0xFF, row[4 + 8 + 2] = 0xFF, row[4 + 8 + 3] = 0x7F;
	row[4 + 8 + 4] = 0xF0, row[4 + 8 + 5] = 0xFF, row[4 + 8 + 6] = 0xFF, row[4 + 8 + 7] = 0xFF;
	limits_on();
	CHECK_RC(pm_binrow_decode(row, sizeof row, types, 1, 1, v, &kind), PAIMON_ECORRUPT);
	CHECK_MSG("field 0");
	/* arity prefix 2^31 - 1 */
	row[0] = 0x7F, row[1] = 0xFF, row[2] = 0xFF, row[3] = 0xFF;
	CHECK_RC(pm_binrow_decode(row, sizeof row, types, 1, 1, v, &kind), PAIMON_ECORRUPT);
	CHECK_MSG("arity prefix 2147483647");
	CHECK_BOUND(limits_off(), 0);
	pm_type_free(t);
}

/* ------------------------------------------------------------ table byte forms */

static void test_predicate_bytes(void)
{
	pm_buf b = PM_BUF_INIT;
	pm_predicate *p = NULL;
	int i;
	pm_buf_reserve(&b, DEEP + 64); /* test buffer: allocated before measuring */
	limits_on();
	pm_buf_append(&b, "PMPR\x01", 5);
	for (i = 0; i < DEEP; i++)
		pm_buf_putc(&b, (char)PM_PRED_NOT);
	CHECK_RC(pm_pred_decode(b.data, b.len, &p), PAIMON_ECORRUPT);
	CHECK_MSG("nested too deep");

	pm_buf_clear(&b);
	pm_buf_append(&b, "PMPR\x01", 5);
	pm_buf_putc(&b, (char)PM_PRED_AND);
	put_varint(&b, (uint64_t)1 << 40);
	pm_buf_append(&b, "xyz", 3);
	CHECK_RC(pm_pred_decode(b.data, b.len, &p), PAIMON_ECORRUPT);
	CHECK_MSG("bad child count");

	pm_buf_clear(&b);
	pm_buf_append(&b, "PMPR\x01", 5);
	pm_buf_putc(&b, (char)PM_PRED_IN);
	pm_buf_append(&b, "\x01" "a", 2);
	put_varint(&b, (uint64_t)1 << 40);
	pm_buf_append(&b, "\x01\x01", 2);
	CHECK_RC(pm_pred_decode(b.data, b.len, &p), PAIMON_ECORRUPT);
	CHECK_MSG("too many literals");
	CHECK_BOUND(limits_off(), 4096);
	CHECK(p == NULL);
	pm_buf_dispose(&b);
}

static void test_entry_bytes(void)
{
	pm_buf b = PM_BUF_INIT;
	pm_manifest_entry_list l;
	pm_split *s = NULL;
	uint8_t split[32];

	memset(&l, 0, sizeof l);
	limits_on();
	pm_buf_append(&b, "PMEL\x01", 5);
	pm_avro_put_long(&b, (int64_t)1 << 40);
	pm_buf_append(&b, "\x00\x00", 2);
	CHECK_RC(pm_manifest_entries_decode("entries", b.data, b.len, &l), PAIMON_ECORRUPT);
	CHECK_MSG("entries: bad entry count");

	pm_buf_clear(&b);
	pm_buf_append(&b, "PMCM\x01\x00\x00\x00", 8);
	pm_buf_append(&b, "PMEL\x01", 5);
	pm_avro_put_long(&b, (int64_t)1 << 31);
	CHECK_RC(pm_commit_message_decode(b.data, b.len, &l), PAIMON_ECORRUPT);
	CHECK_MSG("commit message: bad entry count");

	/* Entries that claim 1000 entries but hold 3 bytes of datum. */
	pm_buf_clear(&b);
	pm_buf_append(&b, "PMEL\x01", 5);
	pm_avro_put_long(&b, 3);
	pm_buf_append(&b, "\x02\x02\x02", 3);
	CHECK_RC(pm_manifest_entries_decode("entries", b.data, b.len, &l), PAIMON_ECORRUPT);

	/* Split whose partition length is 4 GiB - 1. */
	memset(split, 0, sizeof split);
	memcpy(split, PM_SPLIT_MAGIC, 4);
	split[4] = PM_SPLIT_VERSION;
	split[20] = split[21] = split[22] = split[23] = 0xFF;
	CHECK_RC(pm_split_deserialize(split, sizeof split, &s), PAIMON_ECORRUPT);
	CHECK_MSG("partition length 4294967295 exceeds the data");
	CHECK(s == NULL);
	CHECK_BOUND(limits_off(), 65536);
	CHECK(l.len == 0);
	pm_manifest_entry_list_dispose(&l);
	pm_buf_dispose(&b);
}

TEST_MAIN(T(test_mem_cap), T(test_thrift_huge_counts), T(test_thrift_deep), T(test_parquet_meta_huge_list),
	  T(test_parquet_schema_deep), T(test_parquet_page_claims), T(test_codec_bounds), T(test_avro_claims),
	  T(test_avro_schema_deep), T(test_json_deep), T(test_type_string_deep), T(test_binrow_offsets),
	  T(test_predicate_bytes), T(test_entry_bytes))
