/*
 * tests/unit/format/blob_driver.c - command-line driver of format/blob used
 * by tests/python/test_blob_format.py (compiled by that test against the
 * static library; not part of the CMake build).
 *
 *   blob_driver dump FILE       one JSON line per row:
 *                               {"kind":"value","offset":N,"length":N,"hex":".."}
 *                               {"kind":"null"} / {"kind":"placeholder"}
 *                               (every record checked: magic, length, CRC)
 *   blob_driver write SPEC OUT  writes OUT from SPEC, JSON lines of
 *                               {"hex":".."} | null | "placeholder" |
 *                               {"chunks":["hex",..]} |
 *                               {"file":PATH,"offset":N,"length":N};
 *                               prints {"size":N,"pos":[[offset,length]|null..]}
 *   blob_driver range FILE ROW OFFSET LENGTH   the sub-range, as hex
 *   blob_driver desc-encode URI OFFSET LENGTH  hex of a v2 BlobDescriptor
 *   blob_driver desc-decode HEX                {"version":..,"uri":..,..}
 *   blob_driver view-encode IDENT FIELD ROW    hex of a BlobViewStruct
 *   blob_driver view-decode HEX                {"identifier":..,..}
 * Errors: exit status 1, the message on stderr.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/mem.h"
#include "format/blob/blob_descriptor.h"
#include "format/blob/blob_file.h"
#include "io/fileio.h"
#include "paimonc/common.h"

static char *to_hex(const void *d, size_t n);

static int print_hex(pm_buf *b)
{
	char *hex = to_hex(b->data, b->len);
	printf("%s\n", hex);
	free(hex);
	pm_buf_dispose(b);
	return 0;
}

static int fail(int rc)
{
	fprintf(stderr, "error %d: %s\n", rc, paimon_error_message());
	return 1;
}

static char *to_hex(const void *d, size_t n)
{
	static const char hx[] = "0123456789abcdef";
	const unsigned char *p = d;
	char *s = malloc(2 * n + 1);
	size_t i;
	if (!s)
		exit(2);
	for (i = 0; i < n; i++) {
		s[2 * i] = hx[p[i] >> 4];
		s[2 * i + 1] = hx[p[i] & 15];
	}
	s[2 * n] = 0;
	return s;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int from_hex(const char *s, pm_buf *out)
{
	size_t n = strlen(s), i;
	if (n % 2 || pm_buf_reserve(out, n / 2))
		return 1;
	for (i = 0; i < n; i += 2) {
		int hi = hexval(s[i]), lo = hexval(s[i + 1]);
		if (hi < 0 || lo < 0 || pm_buf_putc(out, (char)(hi << 4 | lo)))
			return 1;
	}
	return 0;
}

static int dump(const char *path)
{
	pm_fileio *io = NULL;
	pm_blob_reader *r = NULL;
	int64_t i;
	int rc;
	if ((rc = pm_fileio_local_new(&io)) || (rc = pm_blob_reader_open(io, path, NULL, &r)))
		return fail(rc);
	for (i = 0; i < pm_blob_reader_rows(r); i++) {
		pm_blob_entry e;
		json_t *o = json_object();
		char *line;
		if ((rc = pm_blob_reader_entry(r, i, &e)))
			return fail(rc);
		if (e.kind == PM_BLOB_VALUE) {
			pm_buf b = PM_BUF_INIT;
			char *hex;
			if ((rc = pm_blob_reader_read(r, i, &b)))
				return fail(rc);
			hex = to_hex(b.data, b.len);
			json_object_set_new(o, "kind", json_string("value"));
			json_object_set_new(o, "offset", json_integer((json_int_t)e.offset));
			json_object_set_new(o, "length", json_integer((json_int_t)e.length));
			json_object_set_new(o, "hex", json_string(hex));
			free(hex);
			pm_buf_dispose(&b);
		} else {
			json_object_set_new(o, "kind", json_string(e.kind == PM_BLOB_NULL ? "null" : "placeholder"));
		}
		line = json_dumps(o, JSON_COMPACT);
		printf("%s\n", line);
		free(line);
		json_decref(o);
	}
	pm_blob_reader_close(r);
	pm_fileio_close(io);
	return 0;
}

static int write_spec(const char *spec, const char *out)
{
	pm_fileio *io = NULL;
	pm_blob_writer *w = NULL;
	FILE *f = fopen(spec, "r");
	char *line = NULL;
	size_t cap = 0;
	json_t *res = json_object(), *pos = json_array();
	uint64_t size = 0;
	char *s;
	int rc;
	if (!f)
		return 1;
	if ((rc = pm_fileio_local_new(&io)) || (rc = pm_blob_writer_open(io, out, &w)))
		return fail(rc);
	while (getline(&line, &cap, f) > 0) {
		json_error_t jerr;
		json_t *v = json_loads(line, JSON_DECODE_ANY, &jerr), *h;
		pm_blob_pos p;
		int is_value = 1;
		pm_buf b = PM_BUF_INIT;
		if (!v) {
			fprintf(stderr, "bad spec line: %s\n", jerr.text);
			return 1;
		}
		if (json_is_null(v)) {
			rc = pm_blob_writer_add_null(w);
			is_value = 0;
		} else if (json_is_string(v) && !strcmp(json_string_value(v), "placeholder")) {
			rc = pm_blob_writer_add_placeholder(w);
			is_value = 0;
		} else if ((h = json_object_get(v, "hex"))) {
			if (from_hex(json_string_value(h), &b))
				return 1;
			rc = pm_blob_writer_add(w, b.data, b.len, &p);
		} else if ((h = json_object_get(v, "chunks"))) {
			size_t k;
			rc = pm_blob_writer_begin(w);
			for (k = 0; !rc && k < json_array_size(h); k++) {
				pm_buf_clear(&b);
				if (from_hex(json_string_value(json_array_get(h, k)), &b))
					return 1;
				rc = pm_blob_writer_append(w, b.data, b.len);
			}
			if (!rc)
				rc = pm_blob_writer_end(w, &p);
		} else if ((h = json_object_get(v, "file"))) {
			rc = pm_blob_writer_add_file_range(w, io, json_string_value(h),
							   (uint64_t)json_integer_value(json_object_get(v, "offset")),
							   (int64_t)json_integer_value(json_object_get(v, "length")), &p);
		} else {
			fprintf(stderr, "bad spec line: %s", line);
			return 1;
		}
		pm_buf_dispose(&b);
		json_decref(v);
		if (rc) {
			pm_blob_writer_abort(w);
			return fail(rc);
		}
		json_array_append_new(pos, is_value ? json_pack("[II]", (json_int_t)p.offset, (json_int_t)p.length)
						    : json_null());
	}
	fclose(f);
	free(line);
	if ((rc = pm_blob_writer_close(w, &size)))
		return fail(rc);
	json_object_set_new(res, "size", json_integer((json_int_t)size));
	json_object_set_new(res, "pos", pos);
	s = json_dumps(res, JSON_COMPACT);
	printf("%s\n", s);
	free(s);
	json_decref(res);
	pm_fileio_close(io);
	return 0;
}

static int range(const char *path, const char *row, const char *off, const char *len)
{
	pm_fileio *io = NULL;
	pm_blob_reader *r = NULL;
	size_t n = (size_t)strtoull(len, NULL, 10);
	char *d = malloc(n ? n : 1), *hex;
	int rc;
	if (!d)
		return 2;
	if ((rc = pm_fileio_local_new(&io)) || (rc = pm_blob_reader_open(io, path, NULL, &r)) ||
	    (rc = pm_blob_reader_read_range(r, strtoll(row, NULL, 10), strtoull(off, NULL, 10), n, d)))
		return fail(rc);
	hex = to_hex(d, n);
	printf("%s\n", hex);
	free(hex);
	free(d);
	pm_blob_reader_close(r);
	pm_fileio_close(io);
	return 0;
}

int main(int argc, char **argv)
{
	pm_buf b = PM_BUF_INIT;
	int rc;
	if (argc == 3 && !strcmp(argv[1], "dump"))
		return dump(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "write"))
		return write_spec(argv[2], argv[3]);
	if (argc == 6 && !strcmp(argv[1], "range"))
		return range(argv[2], argv[3], argv[4], argv[5]);
	if (argc == 5 && !strcmp(argv[1], "desc-encode")) {
		if ((rc = pm_blob_descriptor_encode(argv[2], strlen(argv[2]), strtoll(argv[3], NULL, 10),
						    strtoll(argv[4], NULL, 10), &b)))
			return fail(rc);
		return print_hex(&b);
	}
	if (argc == 3 && !strcmp(argv[1], "desc-decode")) {
		pm_blob_descriptor d;
		if (from_hex(argv[2], &b))
			return 1;
		if ((rc = pm_blob_descriptor_decode(b.data ? b.data : "", b.len, 0, &d)))
			return fail(rc);
		printf("{\"version\":%d,\"uri\":\"%s\",\"offset\":%lld,\"length\":%lld,\"is\":%d}\n", d.version, d.uri,
		       (long long)d.offset, (long long)d.length, pm_blob_descriptor_is(b.data, b.len));
		pm_buf_dispose(&b);
		pm_blob_descriptor_dispose(&d);
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "view-encode")) {
		if ((rc = pm_blob_view_encode(argv[2], strlen(argv[2]), (int32_t)strtol(argv[3], NULL, 10),
					      strtoll(argv[4], NULL, 10), &b)))
			return fail(rc);
		return print_hex(&b);
	}
	if (argc == 3 && !strcmp(argv[1], "view-decode")) {
		pm_blob_view v;
		if (from_hex(argv[2], &b))
			return 1;
		if ((rc = pm_blob_view_decode(b.data ? b.data : "", b.len, &v)))
			return fail(rc);
		printf("{\"identifier\":\"%s\",\"field_id\":%d,\"row_id\":%lld,\"is\":%d}\n", v.identifier,
		       (int)v.field_id, (long long)v.row_id, pm_blob_view_is(b.data, b.len));
		pm_buf_dispose(&b);
		pm_blob_view_dispose(&v);
		return 0;
	}
	fprintf(stderr, "usage: blob_driver dump FILE | write SPEC OUT | range FILE ROW OFF LEN | "
			"desc-encode URI OFF LEN | desc-decode HEX | view-encode ID FIELD ROW | view-decode HEX\n");
	return 2;
}
