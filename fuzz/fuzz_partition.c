/*
 * fuzz/fuzz_partition.c - partition values from untrusted text and bytes
 * (table/partition.h): a partition spec "k=v/k=v" as given on the command
 * line or read from a directory name (keys and values path-unescaped), the
 * serialized partition BinaryRow of a manifest entry, and the path
 * escaping itself.
 *
 * Byte 0: bit 0 = bytes (else spec text), bits 1..2 pick the keys and
 * options (11 keys of most types or 3 keys; partition.legacy-name and
 * partition.default-name variants).
 * Invariants: unescape(escape(s)) == s for every input; a spec that parses
 * to a partition row prints (display, both path styles; the Java style may
 * refuse binary values with legacy names) and the canonical text of its
 * values parses back to the identical row (from decoded bytes: or is
 * rejected as out of the type's domain); a row that decodes
 * re-encodes, and the re-encoding decodes and encodes to the same bytes.
 * Errors are fine.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/mem.h"
#include "core/strs.h"
#include "table/partition.h"
#include "types/datum.h"

static pm_type *row, *small;
static pm_partition_info info[4];

static void fail(const char *what)
{
	fprintf(stderr, "invariant broken: %s\n", what);
	fprintf(stderr, "last error: %s\n", paimon_error_message());
	abort();
}

static void init(void)
{
	if (pm_type_parse("ROW<dt STRING, h INT, d DATE, b BOOLEAN, ts TIMESTAMP(3), dec DECIMAL(10, 2), "
			  "big DECIMAL(25, 3), x BIGINT, f DOUBLE, t TIME, bin BYTES>",
			  &row) ||
	    pm_partition_info_init_row(&info[0], row, NULL, 0) || pm_partition_info_init_row(&info[1], row, NULL, 1) ||
	    pm_type_parse("ROW<dt STRING, d DATE, ts TIMESTAMP(6)>", &small) ||
	    pm_partition_info_init_row(&info[2], small, "__HIVE_DEFAULT__", 0) ||
	    pm_partition_info_init_row(&info[3], small, NULL, 1))
		abort();
}

static void check_escape(const char *s, size_t n)
{
	pm_buf e = PM_BUF_INIT, u = PM_BUF_INIT;
	if (n == 0) /* an empty path name is an error by contract */
		return;
	if (pm_partition_escape(s, n, &e) || pm_partition_unescape(e.data ? e.data : "", e.len, &u))
		fail("escape/unescape failed");
	if (u.len != n || (n && memcmp(u.data, s, n)))
		fail("unescape(escape(s)) != s");
	pm_buf_dispose(&e);
	pm_buf_dispose(&u);
}

/* Prints a serialized row every way; the canonical text of its values must
 * build the same row again through a spec. */
static void check_row(const pm_partition_info *pi, const uint8_t *p, size_t n, int from_text)
{
	pm_binrow_datum *vals = pm_calloc(pi->n, sizeof *vals);
	pm_buf b = PM_BUF_INIT, again = PM_BUF_INIT, again2 = PM_BUF_INIT;
	pm_strmap spec = {0};
	size_t i;
	int rc;
	if (!vals)
		abort();
	if (pm_partition_decode(pi, p, n, vals))
		goto out;
	/* legacy names have no directory form for binary values: EUNSUPPORTED */
	rc = pm_partition_path(pi, p, n, PM_PART_JAVA, &b);
	if ((rc && rc != PAIMON_EUNSUPPORTED) || pm_partition_path(pi, p, n, PM_PART_PYTHON, &b) ||
	    pm_partition_to_display(pi, p, n, &b))
		fail("decoded partition does not print");
	if (pm_partition_encode(pi, vals, &again))
		fail("decoded partition does not re-encode");
	{
		pm_binrow_datum *v2 = pm_calloc(pi->n, sizeof *v2);
		if (!v2 || pm_partition_decode(pi, (const uint8_t *)again.data, again.len, v2) ||
		    pm_partition_encode(pi, v2, &again2))
			fail("re-encoded partition does not decode");
		if (again.len != again2.len || memcmp(again.data, again2.data, again.len))
			fail("partition encoding is not stable");
		pm_free(v2);
	}
	for (i = 0; i < pi->n; i++) {
		pm_buf t = PM_BUF_INIT;
		if (vals[i].is_null) {
			if (pm_buf_puts(&t, pi->default_name))
				abort();
		} else if (pm_datum_to_text(pi->types[i], &vals[i], &t)) {
			fail("partition value does not print");
		}
		/* a STRING equal to the default name would read back as null */
		if (!vals[i].is_null && strcmp(pm_buf_cstr(&t), pi->default_name) == 0) {
			pm_buf_dispose(&t);
			goto out;
		}
		/* a timestamp beyond year +-999999 prints as bare millis (datum.c),
		 * dropping the nanos: out of the type's domain */
		if (!vals[i].is_null && (pi->types[i]->root == PM_TIMESTAMP || pi->types[i]->root == PM_TIMESTAMP_LTZ) &&
		    !strchr(pm_buf_cstr(&t), ':')) {
			pm_buf_dispose(&t);
			goto out;
		}
		if (strlen(pm_buf_cstr(&t)) != t.len) { /* NUL inside: no spec form */
			pm_buf_dispose(&t);
			goto out;
		}
		if (pm_strmap_set(&spec, pi->names[i], pm_buf_cstr(&t)))
			abort();
		pm_buf_dispose(&t);
	}
	pm_buf_clear(&again2);
	rc = pm_partition_from_spec(pi, &spec, &again2);
	/* decoded bytes may hold values outside the type's domain (a DATE
	 * after year 9999): their text may be rejected; a row built from text
	 * must come back */
	if (rc && (from_text || rc != PAIMON_EINVAL))
		fail("canonical text of a partition does not parse back");
	if (rc)
		goto out;
	if (again.len != again2.len || memcmp(again.data, again2.data, again.len)) {
		for (i = 0; i < spec.len; i++)
			fprintf(stderr, "%s=%s\n", spec.keys[i], spec.vals[i]);
		fail("partition -> text -> partition changed the row");
	}
out:
	pm_strmap_dispose(&spec);
	pm_buf_dispose(&b);
	pm_buf_dispose(&again);
	pm_buf_dispose(&again2);
	pm_free(vals);
}

/* "k=v/k=v" (also newline separated) with path-escaped keys and values. */
static void from_spec(const pm_partition_info *pi, const char *text, size_t n)
{
	pm_strmap spec = {0};
	pm_buf out = PM_BUF_INIT;
	size_t pos = 0;
	while (pos < n) {
		size_t end = pos, eq;
		pm_buf k = PM_BUF_INIT, v = PM_BUF_INIT;
		while (end < n && text[end] != '/' && text[end] != '\n')
			end++;
		for (eq = pos; eq < end && text[eq] != '='; eq++)
			;
		if (eq < end && pm_partition_unescape(text + pos, eq - pos, &k) == 0 &&
		    pm_partition_unescape(text + eq + 1, end - eq - 1, &v) == 0 &&
		    strlen(pm_buf_cstr(&k)) == k.len && strlen(pm_buf_cstr(&v)) == v.len)
			(void)pm_strmap_set(&spec, pm_buf_cstr(&k), pm_buf_cstr(&v));
		pm_buf_dispose(&k);
		pm_buf_dispose(&v);
		pos = end + 1;
	}
	if (pm_partition_from_spec(pi, &spec, &out) == 0)
		check_row(pi, (const uint8_t *)out.data, out.len, 1);
	pm_buf_dispose(&out);
	pm_strmap_dispose(&spec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const pm_partition_info *pi;
	if (!row)
		init();
	if (size < 1)
		return 0;
	pi = &info[(data[0] >> 1) & 3];
	check_escape((const char *)data + 1, size - 1);
	if (data[0] & 1)
		check_row(pi, data + 1, size - 1, 0);
	else
		from_spec(pi, (const char *)data + 1, size - 1);
	return 0;
}
