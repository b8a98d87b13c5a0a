/*
 * fuzz/fuzz_avro.c - feeds arbitrary bytes to the Avro container reader.
 *
 * Every record that decodes must re-encode with the writer schema, and the
 * re-encoded bytes must decode and encode again to the same bytes (the
 * encoder is canonical). Errors are fine; crashes, leaks, hangs and broken
 * invariants are findings.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "format/avro/avro.h"

static void fail(const char *what)
{
	fprintf(stderr, "invariant broken: %s\n", what);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pm_avro_reader *r = NULL;
	const pm_avro_value *rec;
	pm_buf a = PM_BUF_INIT, b = PM_BUF_INIT;
	int n = 0;
	if (pm_avro_reader_open_mem(data, size, &r))
		return 0;
	while (n++ < 10000 && pm_avro_reader_next(r, &rec) == 1) {
		const pm_avro_node *root = pm_avro_schema_root(pm_avro_reader_schema(r));
		pm_buf_clear(&a);
		if (pm_avro_encode(root, rec, &a))
			fail("decoded record does not re-encode");
		/* Build a one-record container around the encoding and read it back. */
		{
			pm_avro_writer *w = NULL;
			pm_avro_bytes sch;
			pm_avro_reader *r2 = NULL;
			const pm_avro_value *rec2;
			char *text;
			if (pm_avro_reader_meta(r, "avro.schema", &sch))
				fail("schema vanished");
			text = malloc(sch.n + 1);
			if (!text)
				abort();
			memcpy(text, sch.p, sch.n);
			text[sch.n] = 0;
			if (strlen(text) == sch.n && pm_avro_writer_new(text, "null", -1000, &w) == 0) {
				pm_buf file = PM_BUF_INIT;
				if (pm_avro_writer_append(w, rec) || pm_avro_writer_finish(w, &file))
					fail("writer rejects a decoded record");
				if (pm_avro_reader_open_mem(file.data, file.len, &r2) ||
				    pm_avro_reader_next(r2, &rec2) != 1)
					fail("written file does not read back");
				pm_buf_clear(&b);
				if (pm_avro_encode(pm_avro_schema_root(pm_avro_reader_schema(r2)), rec2, &b))
					fail("re-read record does not encode");
				if (a.len != b.len || memcmp(a.data, b.data, a.len) != 0)
					fail("encoding not stable");
				pm_avro_reader_free(r2);
				pm_buf_dispose(&file);
			}
			pm_avro_writer_free(w);
			free(text);
		}
	}
	pm_avro_reader_free(r);
	pm_buf_dispose(&a);
	pm_buf_dispose(&b);
	return 0;
}
