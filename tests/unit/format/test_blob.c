/*
 * tests/unit/format/test_blob.c - the .blob file writer/reader and the
 * BlobDescriptor / BlobViewStruct codecs (format/blob).
 *
 * Expected bytes are built independently in the test (zlib's crc32 over the
 * pieces the Java algorithm checksums) and compared with the spec's worked
 * example; tests/python/test_blob_format.py compares with pypaimon 2.1.0.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "core/buf.h"
#include "core/mem.h"
#include "format/blob/blob_descriptor.h"
#include "format/blob/blob_file.h"
#include "io/fileio.h"
#include "test.h"

static char *g_dir;

static char *tpath(const char *name)
{
	static char p[8][4200];
	static int k;
	k = (k + 1) % 8;
	snprintf(p[k], sizeof p[k], "%s/%s", g_dir, name);
	return p[k];
}

static pm_fileio *local(void)
{
	pm_fileio *io = NULL;
	if (pm_fileio_local_new(&io))
		abort();
	return io;
}

static void le32(pm_buf *b, uint32_t v)
{
	uint8_t t[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
	pm_buf_append(b, t, 4);
}

static void le64(pm_buf *b, uint64_t v)
{
	le32(b, (uint32_t)v);
	le32(b, (uint32_t)(v >> 32));
}

/* A record as Java builds it; java_crc 0: the old pypaimon CRC form. */
static void ref_record(pm_buf *b, const void *payload, size_t n, int java_crc)
{
	size_t start = b->len;
	uLong crc;
	le32(b, PM_BLOB_MAGIC);
	pm_buf_append(b, payload, n);
	le64(b, n + 16);
	crc = crc32(0L, (const Bytef *)b->data + start, (uInt)(b->len - start - (java_crc ? 0 : 8)));
	le32(b, (uint32_t)crc);
}

static void ref_footer(pm_buf *b, const int64_t *entries, size_t n)
{
	pm_buf idx = PM_BUF_INIT;
	CHECK_OK(pm_blob_delta_varint_encode(entries, n, &idx));
	pm_buf_append(b, idx.data, idx.len);
	le32(b, (uint32_t)idx.len);
	pm_buf_putc(b, 1);
	pm_buf_dispose(&idx);
}

static int read_file(const char *path, pm_buf *out)
{
	pm_fileio *io = local();
	int rc = pm_fileio_read_all(io, path, out);
	pm_fileio_close(io);
	return rc;
}

/* ------------------------------------------------------------------ tests */

static void test_varint(void)
{
	int64_t v[] = {0, 1, -1, 21, -22, INT64_MAX, INT64_MIN, -2, 16, 1234567890123LL, INT64_MIN, INT64_MAX};
	size_t n = sizeof v / sizeof v[0], got_n = 0, i;
	int64_t *got = NULL;
	pm_buf b = PM_BUF_INIT;
	CHECK_OK(pm_blob_delta_varint_encode(v, n, &b));
	CHECK_OK(pm_blob_delta_varint_decode(b.data, b.len, 0, "t", &got, &got_n));
	CHECK(got_n == n);
	for (i = 0; i < n && i < got_n; i++)
		CHECK(got[i] == v[i]);
	pm_free(got);
	/* limit */
	CHECK_RC(pm_blob_delta_varint_decode(b.data, b.len, n - 1, "t", &got, &got_n), PAIMON_ECORRUPT);
	CHECK_MSG("more than");
	CHECK(got == NULL && got_n == 0);
	/* empty */
	CHECK_OK(pm_blob_delta_varint_decode("", 0, 0, "t", &got, &got_n));
	CHECK(got == NULL && got_n == 0);
	CHECK_OK(pm_blob_delta_varint_decode(NULL, 0, 0, "t", &got, &got_n)); /* found by fuzz_blob (UBSan) */
	CHECK(got == NULL && got_n == 0);
	/* cut short, too long, overflowing */
	CHECK_RC(pm_blob_delta_varint_decode("\x2a\x80", 2, 0, "idx", &got, &got_n), PAIMON_ECORRUPT);
	CHECK_MSG("idx: a varint is cut short");
	CHECK_RC(pm_blob_delta_varint_decode("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x81\x00", 11, 0, "t", &got, &got_n),
		 PAIMON_ECORRUPT);
	CHECK_MSG("longer than 10 bytes");
	CHECK_RC(pm_blob_delta_varint_decode("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02", 10, 0, "t", &got, &got_n),
		 PAIMON_ECORRUPT);
	CHECK_MSG("overflows 64 bits");
	/* the spec's example index: 21, -1, 16, -2 -> 2a 2b 22 23 */
	{
		int64_t e[] = {21, -1, 16, -2};
		pm_buf_clear(&b);
		CHECK_OK(pm_blob_delta_varint_encode(e, 4, &b));
		CHECK(b.len == 4 && memcmp(b.data, "\x2a\x2b\x22\x23", 4) == 0);
	}
	pm_buf_dispose(&b);
}

/* Rows "hello", null, "", placeholder: the spec's worked example (§4.3.6). */
static void test_worked_example(void)
{
	static const uint8_t spec[] = {
		0xcf, 0x11, 0x4e, 0x58, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x15, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0xc8, 0xf6, 0xa7, 0x51, 0xcf, 0x11, 0x4e, 0x58, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x53, 0x7f, 0xdf, 0x03, 0x2a, 0x2b, 0x22, 0x23, 0x04, 0x00, 0x00, 0x00, 0x01};
	pm_fileio *io = local();
	pm_blob_writer *w = NULL;
	pm_blob_pos p1, p2;
	pm_buf got = PM_BUF_INIT, ref = PM_BUF_INIT;
	int64_t entries[] = {21, -1, 16, -2};
	uint64_t size = 0;
	const char *path = tpath("example.blob");
	CHECK_OK(pm_blob_writer_open(io, path, &w));
	CHECK_OK(pm_blob_writer_add(w, "hello", 5, &p1));
	CHECK_OK(pm_blob_writer_add_null(w));
	CHECK(pm_blob_writer_position(w) == 21);
	CHECK_OK(pm_blob_writer_add(w, "", 0, &p2));
	CHECK_OK(pm_blob_writer_add_placeholder(w));
	CHECK(pm_blob_writer_rows(w) == 4);
	CHECK_OK(pm_blob_writer_close(w, &size));
	CHECK(p1.offset == 4 && p1.length == 5);
	CHECK(p2.offset == 25 && p2.length == 0);
	CHECK_OK(read_file(path, &got));
	CHECK(size == got.len);
	ref_record(&ref, "hello", 5, 1);
	ref_record(&ref, "", 0, 1);
	ref_footer(&ref, entries, 4);
	CHECK(got.len == ref.len && memcmp(got.data, ref.data, ref.len) == 0);
	CHECK(got.len == sizeof spec && memcmp(got.data, spec, sizeof spec) == 0);
	pm_buf_dispose(&got);
	pm_buf_dispose(&ref);
	pm_fileio_close(io);
}

static void test_empty_file(void)
{
	pm_fileio *io = local(), *mem = NULL;
	pm_blob_writer *w = NULL;
	pm_blob_reader *r = NULL;
	pm_buf got = PM_BUF_INIT;
	uint64_t size = 1;
	const char *path = tpath("empty.blob");
	CHECK_OK(pm_blob_writer_open(io, path, &w));
	CHECK_OK(pm_blob_writer_close(w, &size));
	CHECK(size == 5);
	CHECK_OK(read_file(path, &got));
	CHECK(got.len == 5 && memcmp(got.data, "\0\0\0\0\1", 5) == 0);
	CHECK_OK(pm_fileio_mem_new(got.data, got.len, &mem));
	CHECK_OK(pm_blob_reader_open(mem, "mem.blob", NULL, &r));
	CHECK(r && pm_blob_reader_rows(r) == 0 && pm_blob_reader_file_size(r) == 5);
	pm_blob_reader_close(r);
	pm_fileio_close(mem);
	pm_buf_dispose(&got);
	pm_fileio_close(io);
}

static uint64_t rng_state = 88172645463325252ULL;
static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

typedef struct collect {
	pm_buf b;
	size_t calls, max_chunk;
} collect;

static int collect_sink(void *ctx, const void *d, size_t n)
{
	collect *c = ctx;
	c->calls++;
	if (n > c->max_chunk)
		c->max_chunk = n;
	return pm_buf_append(&c->b, d, n);
}

static void test_round_trip(void)
{
	enum { N = 300 };
	pm_fileio *io = local();
	pm_blob_writer *w = NULL;
	pm_blob_reader *r = NULL;
	static pm_buf vals[N];
	int kind[N];
	pm_blob_pos pos[N];
	uint64_t size = 0, expect_pos = 0;
	const char *path = tpath("rt.blob");
	int i;
	CHECK_OK(pm_blob_writer_open(io, path, &w));
	for (i = 0; i < N; i++) {
		uint64_t x = rnd();
		size_t n = (x >> 8) % 5 == 0 ? 0 : (size_t)((x >> 16) % ((x & 1) ? 70000 : 300));
		size_t j;
		kind[i] = (int)(x % 7 == 0 ? PM_BLOB_NULL : x % 11 == 0 ? PM_BLOB_PLACEHOLDER : PM_BLOB_VALUE);
		pm_buf_clear(&vals[i]);
		if (kind[i] == PM_BLOB_NULL) {
			CHECK_OK(pm_blob_writer_add_null(w));
			continue;
		}
		if (kind[i] == PM_BLOB_PLACEHOLDER) {
			CHECK_OK(pm_blob_writer_add_placeholder(w));
			continue;
		}
		for (j = 0; j < n; j++)
			pm_buf_putc(&vals[i], (char)rnd());
		if (i % 2) {
			CHECK_OK(pm_blob_writer_add(w, vals[i].data, n, &pos[i]));
		} else { /* the same value in uneven pieces */
			size_t done = 0;
			CHECK_OK(pm_blob_writer_begin(w));
			while (done < n) {
				size_t k = (size_t)(rnd() % 9000);
				if (k > n - done)
					k = n - done;
				CHECK_OK(pm_blob_writer_append(w, vals[i].data + done, k));
				done += k;
			}
			CHECK_OK(pm_blob_writer_end(w, &pos[i]));
		}
		CHECK(pos[i].offset == expect_pos + 4 && pos[i].length == n);
		expect_pos += n + 16;
		CHECK(pm_blob_writer_position(w) == expect_pos);
	}
	CHECK_OK(pm_blob_writer_close(w, &size));
	CHECK_OK(pm_blob_reader_open(io, path, NULL, &r));
	CHECK(r && pm_blob_reader_rows(r) == N && pm_blob_reader_file_size(r) == size);
	for (i = 0; r && i < N; i++) {
		pm_blob_entry e;
		pm_buf got = PM_BUF_INIT;
		CHECK_OK(pm_blob_reader_entry(r, i, &e));
		CHECK((int)e.kind == kind[i]);
		if (kind[i] != PM_BLOB_VALUE) {
			CHECK(e.offset == 0 && e.length == 0);
			CHECK_RC(pm_blob_reader_read(r, i, &got), PAIMON_EINVAL);
			CHECK_MSG(kind[i] == PM_BLOB_NULL ? "is null" : "is a placeholder");
			CHECK_OK(pm_blob_reader_verify(r, i));
			continue;
		}
		CHECK(e.offset == pos[i].offset && e.length == pos[i].length);
		pm_buf_puts(&got, "pre");
		CHECK_OK(pm_blob_reader_read(r, i, &got));
		CHECK(got.len == 3 + vals[i].len && memcmp(got.data, "pre", 3) == 0 &&
		      (vals[i].len == 0 || memcmp(got.data + 3, vals[i].data, vals[i].len) == 0));
		if (vals[i].len > 10) {
			char part[10];
			uint64_t off = rnd() % (vals[i].len - 9);
			CHECK_OK(pm_blob_reader_read_range(r, i, off, 10, part));
			CHECK(memcmp(part, vals[i].data + off, 10) == 0);
		}
		CHECK_OK(pm_blob_reader_read_range(r, i, e.length, 0, NULL));
		CHECK_RC(pm_blob_reader_read_range(r, i, e.length, 1, got.data), PAIMON_EINVAL);
		CHECK_MSG("past the value's");
		{
			collect c = {PM_BUF_INIT, 0, 0};
			CHECK_OK(pm_blob_reader_stream(r, i, 4096, collect_sink, &c));
			CHECK(c.b.len == vals[i].len && (vals[i].len == 0 || memcmp(c.b.data, vals[i].data, c.b.len) == 0));
			CHECK(c.max_chunk <= 4096);
			pm_buf_dispose(&c.b);
		}
		CHECK_OK(pm_blob_reader_verify(r, i));
		pm_buf_dispose(&got);
	}
	{
		pm_blob_entry e;
		CHECK_RC(pm_blob_reader_entry(r, N, &e), PAIMON_EINVAL);
		CHECK_MSG("row 300 out of range (300 rows)");
		CHECK_RC(pm_blob_reader_entry(r, -1, &e), PAIMON_EINVAL);
	}
	pm_blob_reader_close(r);
	for (i = 0; i < N; i++)
		pm_buf_dispose(&vals[i]);
	pm_fileio_close(io);
}

typedef struct crc_sink_ctx {
	uLong crc;
	uint64_t n;
} crc_sink_ctx;

static int crc_sink(void *ctx, const void *d, size_t n)
{
	crc_sink_ctx *c = ctx;
	c->crc = crc32(c->crc, d, (uInt)n);
	c->n += n;
	return 0;
}

/* A 48 MiB value written in chunks and read back in chunks while no single
 * allocation may exceed 2 MiB: neither side holds the value whole. */
static void test_large_streamed(void)
{
	const size_t total = (size_t)48 << 20, piece = (size_t)256 << 10;
	pm_fileio *io = local();
	pm_blob_writer *w = NULL;
	pm_blob_reader *r = NULL;
	pm_blob_pos pos;
	uint8_t *chunk = malloc(piece);
	size_t done;
	uint64_t size = 0;
	uLong crc_in = crc32(0L, Z_NULL, 0);
	const char *path = tpath("large.blob");
	CHECK(chunk != NULL);
	pm_mem_set_max_alloc((size_t)2 << 20);
	CHECK_OK(pm_blob_writer_open(io, path, &w));
	CHECK_OK(pm_blob_writer_add(w, "a", 1, NULL));
	CHECK_OK(pm_blob_writer_begin(w));
	for (done = 0; done < total; done += piece) {
		size_t j;
		for (j = 0; j < piece; j++)
			chunk[j] = (uint8_t)((done + j) * 2654435761u >> 13);
		crc_in = crc32(crc_in, chunk, (uInt)piece);
		CHECK_OK(pm_blob_writer_append(w, chunk, piece));
	}
	CHECK_OK(pm_blob_writer_end(w, &pos));
	CHECK_OK(pm_blob_writer_add_null(w));
	CHECK_OK(pm_blob_writer_close(w, &size));
	CHECK(pos.offset == 17 + 4 && pos.length == total);
	{
		int64_t ent[3] = {17, (int64_t)total + 16, -1};
		pm_buf idx = PM_BUF_INIT;
		CHECK_OK(pm_blob_delta_varint_encode(ent, 3, &idx));
		CHECK(size == 17 + total + 16 + idx.len + 5);
		pm_buf_dispose(&idx);
	}
	CHECK_OK(pm_blob_reader_open(io, path, NULL, &r));
	CHECK(r && pm_blob_reader_rows(r) == 3);
	if (r) {
		pm_blob_entry e;
		uint8_t mid[16];
		crc_sink_ctx cs = {0, 0};
		cs.crc = crc32(0L, Z_NULL, 0);
		CHECK_OK(pm_blob_reader_entry(r, 1, &e));
		CHECK(e.kind == PM_BLOB_VALUE && e.length == total);
		CHECK_OK(pm_blob_reader_verify(r, 1));
		CHECK_OK(pm_blob_reader_read_range(r, 1, total / 2, sizeof mid, mid));
		CHECK(mid[3] == (uint8_t)((total / 2 + 3) * 2654435761u >> 13));
		CHECK_OK(pm_blob_reader_stream(r, 1, 0, crc_sink, &cs));
		CHECK(cs.n == total && cs.crc == crc_in);
		pm_blob_reader_close(r);
		r = NULL;
	}
	CHECK(pm_mem_max_request() <= ((size_t)2 << 20));
	pm_mem_set_max_alloc(0);
	/* The whole read is limited by the cap: it must fail cleanly, not crash. */
	CHECK_OK(pm_blob_reader_open(io, path, NULL, &r));
	pm_mem_set_max_alloc((size_t)2 << 20);
	{
		pm_buf all = PM_BUF_INIT;
		CHECK_RC(pm_blob_reader_read(r, 1, &all), PAIMON_ENOMEM);
		pm_buf_dispose(&all);
	}
	pm_mem_set_max_alloc(0);
	{
		pm_buf all = PM_BUF_INIT;
		CHECK_OK(pm_blob_reader_read(r, 1, &all));
		CHECK(all.len == total && crc32(crc32(0L, Z_NULL, 0), (const Bytef *)all.data, (uInt)all.len) == crc_in);
		pm_buf_dispose(&all);
	}
	pm_blob_reader_close(r);
	free(chunk);
	pm_fileio_close(io);
}

static int stop_sink(void *ctx, const void *d, size_t n)
{
	(void)ctx;
	(void)d;
	(void)n;
	return PAIMON_EIO;
}

static void test_stream_sink(void)
{
	pm_fileio *io = local();
	pm_blob_writer *w = NULL;
	pm_blob_reader *r = NULL;
	char data[10000];
	crc_sink_ctx c = {0, 0};
	const char *path = tpath("sink.blob");
	size_t i;
	for (i = 0; i < sizeof data; i++)
		data[i] = (char)(i * 7);
	c.crc = crc32(0L, Z_NULL, 0);
	CHECK_OK(pm_blob_writer_open(io, path, &w));
	CHECK_OK(pm_blob_writer_add(w, data, sizeof data, NULL));
	CHECK_OK(pm_blob_writer_close(w, NULL));
	CHECK_OK(pm_blob_reader_open(io, path, NULL, &r));
	CHECK_OK(pm_blob_reader_stream(r, 0, 333, crc_sink, &c));
	CHECK(c.n == sizeof data && c.crc == crc32(crc32(0L, Z_NULL, 0), (const Bytef *)data, sizeof data));
	CHECK_RC(pm_blob_reader_stream(r, 0, 0, stop_sink, NULL), PAIMON_EIO);
	pm_blob_reader_close(r);
	pm_fileio_close(io);
}

static void test_file_range(void)
{
	pm_fileio *io = local();
	pm_blob_writer *w = NULL;
	pm_blob_reader *r = NULL;
	pm_blob_pos p;
	pm_buf src = PM_BUF_INIT, got = PM_BUF_INIT, ref = PM_BUF_INIT;
	const char *spath = tpath("source.bin"), *path = tpath("range.blob");
	int64_t entries[3];
	size_t i, n = (size_t)3 << 20; /* larger than one copy chunk */
	for (i = 0; i < n; i++)
		pm_buf_putc(&src, (char)(i * 31 + (i >> 9)));
	CHECK_OK(pm_fileio_write_overwrite(io, spath, src.data, src.len));
	CHECK_OK(pm_blob_writer_open(io, path, &w));
	CHECK_OK(pm_blob_writer_add_file_range(w, io, spath, 100, 1000, &p));
	CHECK(p.offset == 4 && p.length == 1000);
	CHECK_OK(pm_blob_writer_add_file_range(w, io, spath, 5, -1, &p));
	CHECK(p.length == n - 5);
	CHECK_OK(pm_blob_writer_add_file_range(w, io, spath, n, -1, &p));
	CHECK(p.length == 0);
	CHECK_RC(pm_blob_writer_add_file_range(w, io, spath, n - 10, 11, &p), PAIMON_EINVAL);
	CHECK_MSG("is past the end of");
	CHECK_MSG("source.bin");
	CHECK_RC(pm_blob_writer_add_file_range(w, io, spath, n + 1, -1, &p), PAIMON_EINVAL);
	CHECK_RC(pm_blob_writer_add_file_range(w, io, tpath("missing.bin"), 0, -1, &p), PAIMON_ENOTFOUND);
	CHECK_MSG("missing.bin");
	/* refused ranges leave no row behind */
	CHECK(pm_blob_writer_rows(w) == 3);
	CHECK_OK(pm_blob_writer_close(w, NULL));
	ref_record(&ref, src.data + 100, 1000, 1);
	ref_record(&ref, src.data + 5, n - 5, 1);
	ref_record(&ref, "", 0, 1);
	entries[0] = 1016;
	entries[1] = (int64_t)(n - 5 + 16);
	entries[2] = 16;
	ref_footer(&ref, entries, 3);
	CHECK_OK(read_file(path, &got));
	CHECK(got.len == ref.len && memcmp(got.data, ref.data, ref.len) == 0);
	CHECK_OK(pm_blob_reader_open(io, path, NULL, &r));
	pm_buf_clear(&got);
	CHECK_OK(pm_blob_reader_read(r, 1, &got));
	CHECK(got.len == n - 5 && memcmp(got.data, src.data + 5, n - 5) == 0);
	pm_blob_reader_close(r);
	pm_buf_dispose(&src);
	pm_buf_dispose(&got);
	pm_buf_dispose(&ref);
	pm_fileio_close(io);
}

static void test_writer_misuse(void)
{
	pm_fileio *io = local();
	pm_blob_writer *w = NULL;
	const char *path = tpath("misuse.blob");
	struct stat st;
	CHECK_OK(pm_blob_writer_open(io, path, &w));
	CHECK_RC(pm_blob_writer_append(w, "x", 1), PAIMON_EINVAL);
	CHECK_MSG("no value begun");
	CHECK_RC(pm_blob_writer_end(w, NULL), PAIMON_EINVAL);
	CHECK_OK(pm_blob_writer_begin(w));
	CHECK_RC(pm_blob_writer_add(w, "x", 1, NULL), PAIMON_EINVAL);
	CHECK_MSG("a value is being streamed");
	CHECK_RC(pm_blob_writer_add_null(w), PAIMON_EINVAL);
	CHECK_RC(pm_blob_writer_add_placeholder(w), PAIMON_EINVAL);
	CHECK_RC(pm_blob_writer_begin(w), PAIMON_EINVAL);
	CHECK_RC(pm_blob_writer_close(w, NULL), PAIMON_EINVAL);
	CHECK_MSG("misuse.blob");
	CHECK(stat(path, &st) != 0); /* an aborted file is removed */
	CHECK_OK(pm_blob_writer_open(io, path, &w));
	CHECK_OK(pm_blob_writer_add(w, "x", 1, NULL));
	pm_blob_writer_abort(w);
	CHECK(stat(path, &st) != 0);
	pm_blob_writer_abort(NULL);
	CHECK_RC(pm_blob_writer_open(io, tpath("no/such/dir/x.blob"), &w), PAIMON_ENOTFOUND);
	CHECK(w == NULL);
	pm_fileio_close(io);
}

/* ------------------------------------------------------------------ corrupt input */

static int open_bytes(const pm_buf *b, const pm_blob_read_options *opt, pm_blob_reader **r)
{
	pm_fileio *mem = NULL;
	int rc;
	*r = NULL;
	if (pm_fileio_mem_new(b->data ? b->data : "", b->len, &mem))
		abort();
	rc = pm_blob_reader_open(mem, "bad.blob", opt, r);
	/* the handle does not need the FileIO object itself (mem reads the
	 * caller's bytes), but keep it simple: close the reader first. */
	if (rc == 0) {
		pm_blob_reader_close(*r);
		*r = NULL;
	}
	pm_fileio_close(mem);
	return rc;
}

static void expect_corrupt(const pm_buf *b, const pm_blob_read_options *opt, const char *msg)
{
	pm_blob_reader *r = NULL;
	CHECK_RC(open_bytes(b, opt, &r), PAIMON_ECORRUPT);
	CHECK_MSG("bad.blob");
	CHECK_MSG(msg);
	CHECK(r == NULL);
}

static void test_corrupt_footer_and_index(void)
{
	pm_buf b = PM_BUF_INIT;
	pm_blob_read_options opt = {0, 0};
	int64_t e2[] = {21, 16};
	int64_t e[4];

	pm_buf_append(&b, "\0\0\0\1", 4);
	expect_corrupt(&b, NULL, "4 bytes, shorter than the 5-byte footer");
	pm_buf_clear(&b);
	expect_corrupt(&b, NULL, "0 bytes, shorter");

	pm_buf_append(&b, "\0\0\0\0\2", 5);
	expect_corrupt(&b, NULL, "unsupported version 2 (expected 1)");

	pm_buf_clear(&b);
	pm_buf_append(&b, "\x01\0\0\0\1", 5);
	expect_corrupt(&b, NULL, "index length 1 exceeds the 0 bytes before the footer");
	pm_buf_clear(&b);
	pm_buf_append(&b, "\xff\xff\xff\xff\1", 5); /* -1 as Java's int */
	expect_corrupt(&b, NULL, "index length 4294967295 exceeds");

	/* truncated varint in the index */
	pm_buf_clear(&b);
	pm_buf_append(&b, "\x80\x01\0\0\0\1", 6);
	expect_corrupt(&b, NULL, "index: a varint is cut short at byte 1");

	/* a valid file, then damaged variants */
	pm_buf_clear(&b);
	ref_record(&b, "hello", 5, 1);
	ref_record(&b, "", 0, 1);
	ref_footer(&b, e2, 2);
	{
		pm_blob_reader *r = NULL;
		CHECK_OK(open_bytes(&b, NULL, &r));
	}
	/* limits */
	opt.max_rows = 1;
	expect_corrupt(&b, &opt, "more than 1 values");
	opt.max_rows = 0;
	opt.max_index_bytes = 1;
	expect_corrupt(&b, &opt, "index of 2 bytes exceeds the limit of 1");

	/* entry below 16, entry -3 */
	e[0] = 21; e[1] = 15;
	pm_buf_clear(&b);
	ref_record(&b, "hello", 5, 1);
	pm_buf_append(&b, "0123456789abcde", 15);
	ref_footer(&b, e, 2);
	expect_corrupt(&b, NULL, "row 1 has record length 15 (expected >= 16, -1 or -2)");
	e[0] = 21; e[1] = -3;
	pm_buf_clear(&b);
	ref_record(&b, "hello", 5, 1);
	ref_footer(&b, e, 2);
	expect_corrupt(&b, NULL, "row 1 has record length -3");
	e[0] = 21; e[1] = 0;
	pm_buf_clear(&b);
	ref_record(&b, "hello", 5, 1);
	ref_footer(&b, e, 2);
	expect_corrupt(&b, NULL, "row 1 has record length 0");

	/* a record running past the index */
	e[0] = 21; e[1] = -1; e[2] = 17;
	pm_buf_clear(&b);
	ref_record(&b, "hello", 5, 1);
	ref_record(&b, "", 0, 1);
	ref_footer(&b, e, 3);
	expect_corrupt(&b, NULL, "row 2: record of 17 bytes at offset 21 runs past the index at 37");
	/* a huge length (wrap-around guard) */
	e[0] = 21; e[1] = INT64_MAX;
	pm_buf_clear(&b);
	ref_record(&b, "hello", 5, 1);
	ref_footer(&b, e, 2);
	expect_corrupt(&b, NULL, "row 1: record of 9223372036854775807 bytes");
	/* records not covering everything before the index (slack) */
	e[0] = 21;
	pm_buf_clear(&b);
	ref_record(&b, "hello", 5, 1);
	pm_buf_append(&b, "xx", 2);
	ref_footer(&b, e, 1);
	expect_corrupt(&b, NULL, "the 1 rows' records cover 21 bytes but the index starts at 23");
	/* no index at all but record bytes */
	pm_buf_clear(&b);
	ref_record(&b, "hello", 5, 1);
	ref_footer(&b, e, 0);
	expect_corrupt(&b, NULL, "the 0 rows' records cover 0 bytes but the index starts at 21");
	pm_buf_dispose(&b);
}

static void test_corrupt_records(void)
{
	pm_buf b = PM_BUF_INIT, got = PM_BUF_INIT;
	pm_fileio *mem = NULL;
	pm_blob_reader *r = NULL;
	int64_t e[3] = {21, 21, 21};
	size_t i;
	ref_record(&b, "hello", 5, 1);
	ref_record(&b, "world", 5, 0); /* the old pypaimon CRC form: accepted */
	ref_record(&b, "again", 5, 1);
	ref_footer(&b, e, 3);
	for (i = 0; i < 4; i++) {
		pm_buf c = PM_BUF_INIT;
		const char *want = NULL;
		pm_buf_append(&c, b.data, b.len);
		switch (i) {
		case 0: break;
		case 1: c.data[42] ^= 1; want = "row 2: bad record magic 0x584e11ce at offset 42"; break;
		case 2: c.data[42 + 4 + 5] = 22; want = "row 2: record length field 22 differs from the index (21)"; break;
		case 3: c.data[42 + 4 + 2] ^= 0x20; want = "row 2: CRC mismatch (stored 0x"; break;
		}
		CHECK_OK(pm_fileio_mem_new(c.data, c.len, &mem));
		CHECK_OK(pm_blob_reader_open(mem, "rec.blob", NULL, &r));
		pm_buf_clear(&got);
		CHECK_OK(pm_blob_reader_read(r, 0, &got));
		CHECK(got.len == 5 && memcmp(got.data, "hello", 5) == 0);
		pm_buf_clear(&got);
		CHECK_OK(pm_blob_reader_read(r, 1, &got));
		CHECK(got.len == 5 && memcmp(got.data, "world", 5) == 0);
		CHECK_OK(pm_blob_reader_verify(r, 1));
		pm_buf_clear(&got);
		if (!want) {
			CHECK_OK(pm_blob_reader_read(r, 2, &got));
			CHECK_OK(pm_blob_reader_verify(r, 2));
		} else {
			collect col = {PM_BUF_INIT, 0, 0};
			char part[2];
			CHECK_RC(pm_blob_reader_read(r, 2, &got), PAIMON_ECORRUPT);
			CHECK_MSG("rec.blob");
			CHECK_MSG(want);
			CHECK(got.len == 0);
			CHECK_RC(pm_blob_reader_verify(r, 2), PAIMON_ECORRUPT);
			CHECK_MSG(want);
			CHECK_RC(pm_blob_reader_stream(r, 2, 2, collect_sink, &col), PAIMON_ECORRUPT);
			CHECK_MSG(want);
			pm_buf_dispose(&col.b);
			/* ranged reads do not check the record */
			CHECK_OK(pm_blob_reader_read_range(r, 2, 0, 2, part));
		}
		pm_blob_reader_close(r);
		pm_fileio_close(mem);
		pm_buf_dispose(&c);
	}
	pm_buf_dispose(&b);
	pm_buf_dispose(&got);
}

/* A blob delta file as pypaimon 2.1.0's update writes it: placeholders for
 * the rows not updated, then the new value. */
static void test_placeholders_only(void)
{
	pm_buf b = PM_BUF_INIT;
	pm_fileio *mem = NULL;
	pm_blob_reader *r = NULL;
	int64_t e[3] = {-2, -2, 22};
	pm_blob_entry en;
	ref_record(&b, "abcdef", 6, 1);
	ref_footer(&b, e, 3);
	CHECK_OK(pm_fileio_mem_new(b.data, b.len, &mem));
	CHECK_OK(pm_blob_reader_open(mem, "delta.blob", NULL, &r));
	CHECK(pm_blob_reader_rows(r) == 3);
	CHECK_OK(pm_blob_reader_entry(r, 0, &en));
	CHECK(en.kind == PM_BLOB_PLACEHOLDER);
	CHECK_OK(pm_blob_reader_entry(r, 1, &en));
	CHECK(en.kind == PM_BLOB_PLACEHOLDER);
	CHECK_OK(pm_blob_reader_entry(r, 2, &en));
	CHECK(en.kind == PM_BLOB_VALUE && en.offset == 4 && en.length == 6);
	{
		char part[3];
		CHECK_RC(pm_blob_reader_read_range(r, 0, 0, 1, part), PAIMON_EINVAL);
		CHECK_MSG("delta.blob': row 0 is a placeholder, not a value");
		CHECK_OK(pm_blob_reader_read_range(r, 2, 3, 3, part));
		CHECK(memcmp(part, "def", 3) == 0);
	}
	pm_blob_reader_close(r);
	pm_fileio_close(mem);
	pm_buf_dispose(&b);
}

/* Allocation failures anywhere: clean errors, no leaks (ASan). */
static void test_oom(void)
{
	pm_fileio *io = local();
	long nth;
	int done_w = 0, done_r = 0;
	const char *path = tpath("oom.blob");
	for (nth = 1; nth < 200 && !(done_w && done_r); nth++) {
		pm_blob_writer *w = NULL;
		pm_blob_reader *r = NULL;
		pm_buf got = PM_BUF_INIT;
		int rc;
		pm_mem_fail_at(nth);
		rc = pm_blob_writer_open(io, path, &w);
		if (!rc) {
			int i;
			for (i = 0; i < 50 && !rc; i++)
				rc = i % 3 ? pm_blob_writer_add(w, "abcdefgh", 8, NULL) : pm_blob_writer_add_null(w);
			if (rc)
				pm_blob_writer_abort(w);
			else
				rc = pm_blob_writer_close(w, NULL);
		}
		pm_mem_fail_at(0);
		if (rc) {
			CHECK(rc == PAIMON_ENOMEM);
			continue;
		}
		done_w = 1;
		pm_mem_fail_at(nth);
		rc = pm_blob_reader_open(io, path, NULL, &r);
		if (!rc)
			rc = pm_blob_reader_read(r, 1, &got);
		pm_mem_fail_at(0);
		if (rc)
			CHECK(rc == PAIMON_ENOMEM);
		else
			done_r = 1;
		pm_blob_reader_close(r);
		pm_buf_dispose(&got);
	}
	CHECK(done_w && done_r);
	pm_fileio_close(io);
}

/* ------------------------------------------------------------------ descriptors */

static void test_descriptor(void)
{
	/* the spec's v2 example and Java's compat resource blob_descriptor_v1 */
	static const uint8_t v2[] = {0x02, 0x43, 0x53, 0x45, 0x44, 0x42, 0x4f, 0x4c, 0x42, 0x0a, 0x00, 0x00, 0x00,
				     '/', 't', 'e', 's', 't', '/', 'p', 'a', 't', 'h',
				     0x64, 0, 0, 0, 0, 0, 0, 0, 0xc8, 0, 0, 0, 0, 0, 0, 0};
	static const uint8_t v1[] = {0x01, 0x0a, 0x00, 0x00, 0x00, '/', 't', 'e', 's', 't', '/', 'p', 'a', 't', 'h',
				     0x64, 0, 0, 0, 0, 0, 0, 0, 0xc8, 0, 0, 0, 0, 0, 0, 0};
	pm_buf b = PM_BUF_INIT, c = PM_BUF_INIT;
	pm_blob_descriptor d;
	CHECK_OK(pm_blob_descriptor_encode("/test/path", 10, 100, 200, &b));
	CHECK(b.len == sizeof v2 && memcmp(b.data, v2, sizeof v2) == 0);
	CHECK(pm_blob_descriptor_is(b.data, b.len));
	CHECK_OK(pm_blob_descriptor_decode(b.data, b.len, 0, &d));
	CHECK(d.version == 2 && d.uri_len == 10 && d.offset == 100 && d.length == 200);
	CHECK_STR(d.uri, "/test/path");
	pm_blob_descriptor_dispose(&d);
	CHECK_OK(pm_blob_descriptor_decode(v1, sizeof v1, 0, &d));
	CHECK(d.version == 1 && d.offset == 100 && d.length == 200);
	CHECK_STR(d.uri, "/test/path");
	/* re-encoding a v1 writes v2 (pypaimon's serialize) */
	CHECK_OK(pm_blob_descriptor_encode(d.uri, d.uri_len, d.offset, d.length, &c));
	CHECK(c.len == sizeof v2 && memcmp(c.data, v2, sizeof v2) == 0);
	pm_blob_descriptor_dispose(&d);
	CHECK(!pm_blob_descriptor_is(v1, sizeof v1));
	CHECK(!pm_blob_descriptor_is(v2, 8));
	/* empty URI, length -1 */
	pm_buf_clear(&b);
	CHECK_OK(pm_blob_descriptor_encode("", 0, 0, -1, &b));
	CHECK(b.len == 29);
	CHECK_OK(pm_blob_descriptor_decode(b.data, b.len, 0, &d));
	CHECK(d.uri && d.uri_len == 0 && d.length == -1);
	pm_blob_descriptor_dispose(&d);
	/* encode refusals */
	CHECK_RC(pm_blob_descriptor_encode("\xff", 1, 0, 0, &b), PAIMON_EINVAL);
	CHECK_MSG("not valid UTF-8");
	CHECK_RC(pm_blob_descriptor_encode("a", 1, -1, 0, &b), PAIMON_EINVAL);
	CHECK_RC(pm_blob_descriptor_encode("a", 1, 0, -2, &b), PAIMON_EINVAL);
	/* decode refusals */
	{
		uint8_t x[sizeof v2 + 1];
		memcpy(x, v2, sizeof v2);
		x[sizeof v2] = 0;
		CHECK_RC(pm_blob_descriptor_decode(x, sizeof x, 0, &d), PAIMON_ECORRUPT);
		CHECK_MSG("BlobDescriptor: 1 trailing bytes");
		CHECK_OK(pm_blob_descriptor_decode(x, sizeof x, 1, &d));
		pm_blob_descriptor_dispose(&d);
		memcpy(x, v2, sizeof v2);
		x[0] = 3;
		CHECK_RC(pm_blob_descriptor_decode(x, sizeof v2, 0, &d), PAIMON_ECORRUPT);
		CHECK_MSG("unsupported version 3 (expected 1 or 2)");
		x[0] = 0;
		CHECK_RC(pm_blob_descriptor_decode(x, sizeof v2, 0, &d), PAIMON_ECORRUPT);
		CHECK_MSG("unsupported version 0");
		x[0] = 2;
		x[3] ^= 1;
		CHECK_RC(pm_blob_descriptor_decode(x, sizeof v2, 0, &d), PAIMON_ECORRUPT);
		CHECK_MSG("missing magic header");
		memcpy(x, v2, sizeof v2);
		x[12] = 0x80; /* uriLen negative */
		CHECK_RC(pm_blob_descriptor_decode(x, sizeof v2, 0, &d), PAIMON_ECORRUPT);
		CHECK_MSG("negative URI length");
		memcpy(x, v2, sizeof v2);
		x[9] = 11; /* one byte too long */
		CHECK_RC(pm_blob_descriptor_decode(x, sizeof v2, 0, &d), PAIMON_ECORRUPT);
		CHECK_MSG("URI length 11 leaves no room");
		memcpy(x, v2, sizeof v2);
		x[14] = (uint8_t)0xc3; /* a lone lead byte */
		CHECK_RC(pm_blob_descriptor_decode(x, sizeof v2, 0, &d), PAIMON_ECORRUPT);
		CHECK_MSG("URI is not valid UTF-8 (byte 1)");
		memcpy(x, v2, sizeof v2);
		x[sizeof v2 - 1] = 0x80; /* length negative */
		CHECK_RC(pm_blob_descriptor_decode(x, sizeof v2, 0, &d), PAIMON_ECORRUPT);
		CHECK_MSG("bad offset 100 / length");
		CHECK(d.uri == NULL);
		CHECK_RC(pm_blob_descriptor_decode(v2, 5, 0, &d), PAIMON_ECORRUPT);
		CHECK_MSG("too short for the magic");
		CHECK_RC(pm_blob_descriptor_decode(v2, 0, 0, &d), PAIMON_ECORRUPT);
		CHECK_RC(pm_blob_descriptor_decode(v1, 3, 0, &d), PAIMON_ECORRUPT);
		CHECK_MSG("too short for the URI length");
	}
	pm_buf_dispose(&b);
	pm_buf_dispose(&c);
}

static void test_view(void)
{
	pm_buf b = PM_BUF_INIT, ref = PM_BUF_INIT;
	pm_blob_view v;
	CHECK_OK(pm_blob_view_encode("db.t", 4, 7, 123456789012LL, &b));
	pm_buf_putc(&ref, 1);
	le64(&ref, PM_BLOB_VIEW_MAGIC);
	le32(&ref, 4);
	pm_buf_append(&ref, "db.t", 4);
	le32(&ref, 7);
	le64(&ref, 123456789012ULL);
	CHECK(b.len == ref.len && memcmp(b.data, ref.data, ref.len) == 0);
	CHECK(memcmp(b.data + 1, "WEIVBOLB", 8) == 0);
	CHECK(pm_blob_view_is(b.data, b.len));
	CHECK(!pm_blob_descriptor_is(b.data, b.len));
	CHECK_OK(pm_blob_view_decode(b.data, b.len, &v));
	CHECK_STR(v.identifier, "db.t");
	CHECK(v.identifier_len == 4 && v.field_id == 7 && v.row_id == 123456789012LL);
	pm_blob_view_dispose(&v);
	CHECK_RC(pm_blob_view_encode("nodot", 5, 1, 1, &b), PAIMON_EINVAL);
	CHECK_MSG("has no '.'");
	CHECK_RC(pm_blob_view_encode("  ", 2, 1, 1, &b), PAIMON_EINVAL);
	CHECK_MSG("is empty");
	{
		pm_buf x = PM_BUF_INIT;
		pm_buf_append(&x, ref.data, ref.len);
		pm_buf_putc(&x, 0);
		CHECK_RC(pm_blob_view_decode(x.data, x.len, &v), PAIMON_ECORRUPT);
		CHECK_MSG("BlobViewStruct: 1 trailing bytes");
		CHECK_RC(pm_blob_view_decode(x.data, 24, &v), PAIMON_ECORRUPT);
		CHECK_MSG("too short");
		x.data[0] = 2;
		CHECK_RC(pm_blob_view_decode(x.data, ref.len, &v), PAIMON_ECORRUPT);
		CHECK_MSG("unsupported version 2");
		x.data[0] = 1;
		x.data[5] ^= 1;
		CHECK_RC(pm_blob_view_decode(x.data, ref.len, &v), PAIMON_ECORRUPT);
		CHECK_MSG("missing magic");
		x.data[5] ^= 1;
		x.data[9] = 5;
		CHECK_RC(pm_blob_view_decode(x.data, ref.len, &v), PAIMON_ECORRUPT);
		CHECK_MSG("identifier length 5 exceeds");
		x.data[9] = 4;
		x.data[15] = 'x'; /* "dbxt" */
		CHECK_RC(pm_blob_view_decode(x.data, ref.len, &v), PAIMON_ECORRUPT);
		CHECK_MSG("has no '.'");
		CHECK(v.identifier == NULL);
		pm_buf_dispose(&x);
	}
	pm_buf_dispose(&b);
	pm_buf_dispose(&ref);
}

static void setup(void)
{
	g_dir = test_tmpdir();
	pm_fileio_local_set_sync(0);
}

static void cleanup(void)
{
	pm_fileio *io = local();
	pm_fileio_remove_all(io, g_dir);
	pm_fileio_close(io);
	free(g_dir);
}

TEST_MAIN(T(setup), T(test_varint), T(test_worked_example), T(test_empty_file), T(test_round_trip),
	  T(test_large_streamed), T(test_stream_sink), T(test_file_range), T(test_writer_misuse),
	  T(test_corrupt_footer_and_index), T(test_corrupt_records), T(test_placeholders_only), T(test_oom),
	  T(test_descriptor), T(test_view), T(cleanup))
