/*
 * fuzz/fuzz_stats.c - decoding a data file's value statistics
 * (table/stats.h pm_stats_decode: the _VALUE_STATS min/max BinaryRows and
 * null counts of a manifest entry, mapped through _VALUE_STATS_COLS) and
 * what pruning does with them (pm_col_stats_merge, pm_pred_test_stats).
 *
 * Input: byte 0 flags (bit 0: a _VALUE_STATS_COLS list follows, bit 1:
 * null counts present); with bit 0, byte 1 = k and k bytes naming columns
 * (index into the schema, or one unknown name); then 2 bytes little-endian
 * = length of the min row, the min row, and the max row is the rest.
 * Invariants: every min/max that decodes prints as canonical text that
 * parses back to an equal value (or, for a value outside its type's
 * domain, is rejected with PAIMON_EINVAL) (pm_datum_to_text / pm_datum_from_text,
 * the partition and predicate literal form), and re-encodes as a BinaryRow
 * that decodes to equal values; merging a column's stats into a copy of
 * themselves keeps min and max. Errors are fine.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/mem.h"
#include "meta/manifest.h"
#include "meta/schema.h"
#include "table/predicate.h"
#include "table/stats.h"
#include "types/datum.h"

#define COLUMNS                                                                                       \
	"a INT, b STRING, c DOUBLE, d DECIMAL(30, 2), e TIMESTAMP(6), f DATE, g BOOLEAN, h BYTES, "     \
	"i ARRAY<INT>, j DECIMAL(5, 2), k FLOAT, l TIMESTAMP(3), m TINYINT, n SMALLINT, o BIGINT, "    \
	"p TIME, q CHAR(4), r TIMESTAMP_LTZ(9), s BINARY(3)"

static const char *const preds[] = {
	"a > 3", "b = 'x'", "c <= 1.5", "d BETWEEN 1.00 AND 2.50", "e IS NULL", "f IN (1, 2)",
	"g = true AND o < 0", "NOT (q >= 'ab')", "l > 5 OR k < 1", "n IS NOT NULL", "m = 7",
	"b LIKE 'a%'", "r >= 0", "j = 1.25",
};
#define NPREDS (sizeof preds / sizeof preds[0])

static pm_table_schema *schema;
static pm_predicate *bound[NPREDS];

static void fail(const char *what, const char *col)
{
	fprintf(stderr, "invariant broken: %s (column %s)\n", what, col);
	fprintf(stderr, "last error: %s\n", paimon_error_message());
	abort();
}

static void init(void)
{
	pm_schema_spec spec;
	size_t i;
	memset(&spec, 0, sizeof spec);
	if (pm_schema_spec_parse_columns(COLUMNS, &spec) || pm_schema_from_spec(&spec, &schema))
		abort();
	pm_schema_spec_dispose(&spec);
	for (i = 0; i < NPREDS; i++) {
		pm_predicate *p = NULL;
		if (pm_pred_parse(preds[i], &p) == 0 && pm_pred_bind(p, schema) == 0)
			bound[i] = p;
		else
			pm_pred_free(p);
	}
}

static const pm_col_stats *lookup(void *ctx, int32_t id)
{
	const pm_col_stats *cols = ctx;
	size_t i;
	for (i = 0; i < schema->nfields; i++)
		if (schema->fields[i].id == id)
			return &cols[i];
	return NULL;
}

static void check_value(const pm_type *t, const pm_binrow_datum *v, const char *col)
{
	pm_buf text = PM_BUF_INIT, row = PM_BUF_INIT;
	pm_binrow_datum back, again;
	uint8_t *owned = NULL;
	int rc;
	if (pm_datum_to_text(t, v, &text))
		fail("decoded stats value does not print", col);
	/* Corrupt stats can hold values outside the type's domain (a
	 * DECIMAL(5, 2) with 12 digits, a DATE after year 9999): they print,
	 * and the parser may reject the text (EINVAL). What parses must be the
	 * same value. */
	rc = pm_datum_from_text(t, pm_buf_cstr(&text), text.len, &back, &owned);
	if (rc && rc != PAIMON_EINVAL)
		fail("printed stats value fails to parse with an unexpected error", col);
	/* timestamps beyond year +-999999 print as bare millis (datum.c),
	 * dropping the nanos: out of domain as well */
	if ((t->root == PM_TIMESTAMP || t->root == PM_TIMESTAMP_LTZ) && !strchr(pm_buf_cstr(&text), ':'))
		rc = 1;
	if (!rc && !pm_datum_equal(t, v, &back)) {
		fprintf(stderr, "text: %s\n", pm_buf_cstr(&text));
		fail("text round trip changed the value", col);
	}
	if (pm_binrow_encode(&t, v, 1, 0, 1, &row) ||
	    pm_binrow_decode((const uint8_t *)row.data, row.len, &t, 1, 1, &again, NULL))
		fail("stats value does not re-encode", col);
	if (!pm_datum_equal(t, v, &again))
		fail("BinaryRow round trip changed the value", col);
	pm_free(owned);
	pm_buf_dispose(&text);
	pm_buf_dispose(&row);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pm_data_file_meta f;
	pm_col_stats *cols;
	size_t pos = 1, i, minlen;
	uint8_t flags;
	if (!schema)
		init();
	if (size < 3)
		return 0;
	memset(&f, 0, sizeof f);
	flags = data[0];
	if (flags & 1) {
		size_t k = data[pos++];
		f.has_value_stats_cols = 1;
		for (i = 0; i < k && pos < size; i++, pos++) {
			size_t c = data[pos] % (schema->nfields + 1);
			if (pm_strlist_push(&f.value_stats_cols, c < schema->nfields ? schema->fields[c].name : "zz"))
				abort();
		}
	}
	if (pos + 2 > size)
		goto out;
	minlen = (size_t)data[pos] | (size_t)data[pos + 1] << 8;
	pos += 2;
	if (minlen > size - pos)
		minlen = size - pos;
	f.file_name = "fuzz-file";
	f.row_count = 10;
	f.value_stats.min_values.p = (uint8_t *)data + pos;
	f.value_stats.min_values.n = minlen;
	f.value_stats.max_values.p = (uint8_t *)data + pos + minlen;
	f.value_stats.max_values.n = size - pos - minlen;
	if (flags & 2) {
		size_t n = f.has_value_stats_cols ? f.value_stats_cols.len : schema->nfields;
		f.value_stats.has_null_counts = 1;
		f.value_stats.null_counts = pm_calloc(n + 1, sizeof(int64_t));
		if (!f.value_stats.null_counts)
			abort();
		for (i = 0; i < n; i++)
			f.value_stats.null_counts[i] = (int64_t)i - 1;
		f.value_stats.n_null_counts = n;
	}
	cols = pm_calloc(schema->nfields, sizeof *cols);
	if (!cols)
		abort();
	if (pm_stats_decode(schema, &f, cols) == 0) {
		for (i = 0; i < schema->nfields; i++) {
			const pm_type *t = schema->fields[i].type;
			pm_col_stats m = cols[i];
			if (cols[i].has_min)
				check_value(t, &cols[i].min, schema->fields[i].name);
			if (cols[i].has_max)
				check_value(t, &cols[i].max, schema->fields[i].name);
			pm_col_stats_merge(t, &m, &cols[i]);
			if (m.has_min != cols[i].has_min || m.has_max != cols[i].has_max ||
			    (m.has_min && !pm_datum_equal(t, &m.min, &cols[i].min)) ||
			    (m.has_max && !pm_datum_equal(t, &m.max, &cols[i].max)))
				fail("merging stats with themselves changed them", schema->fields[i].name);
		}
		for (i = 0; i < NPREDS; i++)
			if (bound[i])
				(void)pm_pred_test_stats(bound[i], f.row_count, lookup, cols);
	}
	pm_free(cols);
	pm_free(f.value_stats.null_counts);
out:
	pm_strlist_dispose(&f.value_stats_cols);
	return 0;
}
