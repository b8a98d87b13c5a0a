/*
 * fuzz/fuzz_predicate.c - predicate text parser and byte decoder.
 *
 * Byte 0 even: the rest is predicate text; odd: serialized bytes. Whatever
 * parses/decodes must print, parse back to the same text, encode and decode
 * to the same text, and bind (or fail cleanly) against a small schema,
 * then answer statistics and partition tests without crashing.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/mem.h"
#include "meta/schema.h"
#include "table/predicate.h"

static pm_table_schema *schema;

static void init_schema(void)
{
	pm_schema_spec spec;
	memset(&spec, 0, sizeof spec);
	if (pm_schema_spec_parse_columns("a INT, b STRING, c DOUBLE, d DECIMAL(30, 2), e TIMESTAMP(6), f DATE, "
					 "g BOOLEAN, h BYTES, i ARRAY<INT>",
					 &spec) ||
	    pm_schema_from_spec(&spec, &schema))
		abort();
	pm_schema_spec_dispose(&spec);
}

static const pm_col_stats *no_stats(void *ctx, int32_t id)
{
	static pm_col_stats unknown = {0, 0, {0}, {0}, -1};
	(void)ctx;
	return id % 2 ? NULL : &unknown;
}

static char *print(const pm_predicate *p)
{
	pm_buf b = PM_BUF_INIT;
	if (pm_pred_to_string(p, &b))
		abort();
	return pm_buf_detach(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pm_predicate *p = NULL, *q = NULL;
	if (!schema)
		init_schema();
	if (size < 1)
		return 0;
	if (data[0] % 2 == 0) {
		char *text = malloc(size);
		memcpy(text, data + 1, size - 1);
		text[size - 1] = 0;
		int rc = pm_pred_parse(text, &p);
		free(text);
		if (rc)
			return 0;
	} else if (pm_pred_decode(data + 1, size - 1, &p)) {
		return 0;
	}
	char *s1 = print(p);
	if (pm_pred_parse(s1, &q))
		abort(); /* printed text must parse */
	char *s2 = print(q);
	if (strcmp(s1, s2))
		abort();
	pm_buf b = PM_BUF_INIT;
	pm_predicate *d = NULL;
	if (pm_pred_encode(p, &b) || pm_pred_decode(b.data, b.len, &d))
		abort();
	char *s3 = print(d);
	if (strcmp(s1, s3))
		abort();
	if (pm_pred_bind(p, schema) == 0) {
		int32_t ids[2] = {schema->fields[0].id, schema->fields[1].id};
		pm_binrow_datum vals[2];
		memset(vals, 0, sizeof vals);
		vals[0].i = 1;
		vals[1].bytes.p = (const uint8_t *)"x";
		vals[1].bytes.n = 1;
		(void)pm_pred_test_stats(p, 10, no_stats, NULL);
		(void)pm_pred_test_partition(p, ids, vals, 2);
		(void)pm_pred_only_on(p, ids, 2);
		pm_pq_filter *f = NULL;
		if (pm_pred_to_pq_filter(p, schema, &f) == 0)
			pm_pq_filter_free(f);
	}
	pm_buf_dispose(&b);
	pm_free(s1);
	pm_free(s2);
	pm_free(s3);
	pm_pred_free(p);
	pm_pred_free(q);
	pm_pred_free(d);
	return 0;
}
