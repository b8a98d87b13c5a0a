/* libFuzzer target: schema JSON read; on success write it back (Java form),
 * re-read and require equality. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "meta/schema.h"
#include "core/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pm_table_schema *s = NULL, *r = NULL;
	pm_buf b = PM_BUF_INIT;
	if (pm_schema_from_json("fuzz", (const char *)data, size, &s) != 0)
		return 0;
	if (pm_schema_to_json(s, &b) != 0) {
		fprintf(stderr, "write failed: %s\n", paimon_error_message());
		abort();
	}
	if (pm_schema_from_json("fuzz-rewritten", b.data, b.len, &r) != 0) {
		fprintf(stderr, "re-read failed: %s\n%s\n", paimon_error_message(), pm_buf_cstr(&b));
		abort();
	}
	if (!pm_schema_equal(s, r)) {
		fprintf(stderr, "round trip changed the schema:\n%s\n", pm_buf_cstr(&b));
		abort();
	}
	pm_schema_free(s);
	pm_schema_free(r);
	pm_buf_dispose(&b);
	return 0;
}
