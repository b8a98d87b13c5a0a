/*
 * fuzz/fuzz_blob.c - feeds arbitrary bytes to the format/blob parsers: the
 * .blob file reader (over an in-memory FileIO), the DeltaVarint decoder,
 * and the BlobDescriptor / BlobViewStruct decoders.
 *
 * Invariants: an opened .blob file's value records tile the bytes before
 * the index; a record that reads whole equals its ranged read and its
 * streamed chunks; rewriting every row with the writer gives a file that
 * reads back to the same rows and is byte-identical to the input except in
 * the records' CRC fields (older pypaimon checksummed less); decoded
 * DeltaVarint values re-encode to values that decode equal; a decoded
 * descriptor or view re-encodes to the input (a v1 descriptor to its v2
 * form). Errors are fine; crashes, leaks, hangs and broken invariants are
 * findings.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/mem.h"
#include "format/blob/blob_descriptor.h"
#include "format/blob/blob_file.h"
#include "io/fileio.h"

#define MAX_ROWS 4096

static void fail(const char *what)
{
	fprintf(stderr, "invariant broken: %s\n", what);
	abort();
}

/* A FileIO whose only job is to capture one written file in memory
 * (pm_fileio_open_write falls back to write_overwrite at close). */
typedef struct cap_io {
	pm_fileio base;
	pm_buf out;
} cap_io;

static int cap_write(pm_fileio *io, const char *path, const void *data, size_t len)
{
	cap_io *c = (cap_io *)io;
	(void)path;
	pm_buf_clear(&c->out);
	return pm_buf_append(&c->out, data, len);
}

static void cap_close(pm_fileio *io)
{
	(void)io;
}

static const pm_fileio_ops cap_ops = {.write_overwrite = cap_write, .close = cap_close};

static int collect(void *ctx, const void *d, size_t n)
{
	return pm_buf_append(ctx, d, n);
}

static void check_file(const uint8_t *data, size_t size)
{
	pm_fileio *mem = NULL, *mem2 = NULL;
	pm_blob_reader *r = NULL, *r2 = NULL;
	pm_blob_read_options opt = {0, MAX_ROWS};
	cap_io cap = {{&cap_ops}, PM_BUF_INIT};
	pm_blob_writer *w = NULL;
	uint64_t next = 0, fsize = 0;
	int64_t i, rows;
	int all_read = 1;
	if (pm_fileio_mem_new(data, size, &mem))
		return;
	if (pm_blob_reader_open(mem, "f.blob", &opt, &r)) {
		pm_fileio_close(mem);
		return;
	}
	rows = pm_blob_reader_rows(r);
	if (rows < 0 || rows > MAX_ROWS || pm_blob_reader_file_size(r) != size)
		fail("row count or size");
	if (pm_blob_writer_open(&cap.base, "w.blob", &w))
		w = NULL;
	for (i = 0; i < rows; i++) {
		pm_blob_entry e;
		pm_buf a = PM_BUF_INIT, b = PM_BUF_INIT;
		if (pm_blob_reader_entry(r, i, &e))
			fail("entry of a valid row");
		if (e.kind != PM_BLOB_VALUE) {
			if (e.offset || e.length)
				fail("null/placeholder with a position");
			if (pm_blob_reader_read(r, i, &a) == 0)
				fail("null/placeholder read as a value");
			if (w && (e.kind == PM_BLOB_NULL ? pm_blob_writer_add_null(w) : pm_blob_writer_add_placeholder(w)))
				fail("writer refuses a null/placeholder");
			continue;
		}
		if (e.offset != next + 4)
			fail("records do not tile");
		next = e.offset - 4 + e.length + PM_BLOB_RECORD_OVERHEAD;
		if (pm_blob_reader_read(r, i, &a) == 0) {
			if (a.len != e.length)
				fail("read length");
			pm_buf_reserve(&b, a.len + 1);
			if (pm_blob_reader_read_range(r, i, 0, a.len, b.data ? b.data : (char *)"") ||
			    (a.len && memcmp(a.data, b.data, a.len)))
				fail("ranged read differs");
			pm_buf_clear(&b);
			if (pm_blob_reader_stream(r, i, 7, collect, &b) || b.len != a.len || (a.len && memcmp(a.data, b.data, a.len)))
				fail("streamed read differs");
			if (pm_blob_reader_verify(r, i))
				fail("verify fails on a record that read");
			if (w && pm_blob_writer_add(w, a.data, a.len, NULL))
				fail("writer refuses a value");
		} else {
			all_read = 0;
			if (pm_blob_reader_verify(r, i) == 0)
				fail("verify passes on a record that does not read");
		}
		pm_buf_dispose(&a);
		pm_buf_dispose(&b);
	}
	if (next != size - PM_BLOB_FOOTER_SIZE - (uint64_t)(size >= 5 ? (data[size - 5] | data[size - 4] << 8 |
				(uint32_t)data[size - 3] << 16 | (uint32_t)data[size - 2] << 24) : 0))
		fail("records do not reach the index");
	if (w && !all_read) {
		pm_blob_writer_abort(w);
		w = NULL;
	}
	if (w) {
		if (pm_blob_writer_close(w, &fsize) || fsize != cap.out.len)
			fail("writer close");
		/* Same rows, same bytes except the CRC fields (and a canonical
		 * index: a redundant varint form re-encodes shorter). */
		if (pm_fileio_mem_new(cap.out.data, cap.out.len, &mem2) || pm_blob_reader_open(mem2, "w.blob", &opt, &r2))
			fail("rewritten file does not open");
		if (pm_blob_reader_rows(r2) != rows)
			fail("rewritten row count");
		for (i = 0; i < rows; i++) {
			pm_blob_entry e1, e2;
			if (pm_blob_reader_entry(r, i, &e1) || pm_blob_reader_entry(r2, i, &e2) || e1.kind != e2.kind ||
			    e1.offset != e2.offset || e1.length != e2.length)
				fail("rewritten entries differ");
			if (e1.kind == PM_BLOB_VALUE) {
				uint64_t s = e1.offset - 4, n = e1.length + PM_BLOB_RECORD_OVERHEAD - 4;
				if (memcmp(data + s, cap.out.data + s, (size_t)n))
					fail("rewritten record differs outside its CRC");
				if (pm_blob_reader_verify(r2, i))
					fail("rewritten record does not verify");
			}
		}
		pm_blob_reader_close(r2);
		pm_fileio_close(mem2);
	}
	pm_buf_dispose(&cap.out);
	pm_blob_reader_close(r);
	pm_fileio_close(mem);
}

static void check_varint(const uint8_t *data, size_t size)
{
	int64_t *v = NULL, *v2 = NULL;
	size_t n = 0, n2 = 0, i;
	pm_buf b = PM_BUF_INIT;
	if (pm_blob_delta_varint_decode(data, size, 1 << 16, "fuzz", &v, &n))
		return;
	if (n > size)
		fail("more values than bytes");
	if (pm_blob_delta_varint_encode(v, n, &b) || b.len > size)
		fail("re-encoding is longer than the input");
	if (pm_blob_delta_varint_decode(b.data, b.len, 0, "re", &v2, &n2) || n2 != n)
		fail("re-encoded values do not decode");
	for (i = 0; i < n; i++)
		if (v[i] != v2[i])
			fail("re-encoded values differ");
	pm_free(v);
	pm_free(v2);
	pm_buf_dispose(&b);
}

static void check_descriptors(const uint8_t *data, size_t size)
{
	pm_blob_descriptor d, d2;
	pm_blob_view v;
	pm_buf b = PM_BUF_INIT;
	int exact = pm_blob_descriptor_decode(data, size, 0, &d) == 0;
	if (exact) {
		if (pm_blob_descriptor_encode(d.uri, d.uri_len, d.offset, d.length, &b))
			fail("decoded descriptor does not encode");
		if (d.version == 2 && (b.len != size || memcmp(b.data, data, size)))
			fail("v2 descriptor re-encodes differently");
		if (d.version == 1 && (b.len != size + 8 || memcmp(b.data + 9, data + 1, size - 1)))
			fail("v1 descriptor re-encodes to something other than its v2 form");
		if (!pm_blob_descriptor_is(b.data, b.len) || pm_blob_descriptor_is(data, size) != (d.version == 2))
			fail("descriptor detection");
		if (pm_blob_descriptor_decode(b.data, b.len, 0, &d2) || d2.offset != d.offset || d2.length != d.length ||
		    d2.uri_len != d.uri_len || memcmp(d2.uri, d.uri, d.uri_len))
			fail("re-encoded descriptor decodes differently");
		pm_blob_descriptor_dispose(&d2);
		pm_blob_descriptor_dispose(&d);
	}
	if (pm_blob_descriptor_decode(data, size, 1, &d) == 0) {
		pm_blob_descriptor_dispose(&d);
	} else if (exact) {
		fail("exact descriptor refused with trailing bytes allowed");
	}
	pm_buf_clear(&b);
	if (pm_blob_view_decode(data, size, &v) == 0) {
		if (pm_blob_view_encode(v.identifier, v.identifier_len, v.field_id, v.row_id, &b) || b.len != size ||
		    memcmp(b.data, data, size))
			fail("view re-encodes differently");
		if (!pm_blob_view_is(data, size))
			fail("view detection");
		pm_blob_view_dispose(&v);
	}
	pm_buf_dispose(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_file(data, size);
	check_varint(data, size);
	check_descriptors(data, size);
	return 0;
}
