/* libFuzzer target: snapshot/tag JSON read; on success write it back,
 * re-read and require equality (and identical text on the second write). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "meta/snapshot.h"
#include "core/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pm_snapshot *s = NULL, *r = NULL;
	pm_buf b = PM_BUF_INIT, b2 = PM_BUF_INIT;
	if (pm_snapshot_from_json("fuzz", (const char *)data, size, &s) != 0)
		return 0;
	if (pm_snapshot_to_json(s, &b) != 0) {
		fprintf(stderr, "write failed: %s\n", paimon_error_message());
		abort();
	}
	if (pm_snapshot_from_json("fuzz-rewritten", b.data, b.len, &r) != 0) {
		fprintf(stderr, "re-read failed: %s\n%s\n", paimon_error_message(), pm_buf_cstr(&b));
		abort();
	}
	if (!pm_snapshot_equal(s, r)) {
		fprintf(stderr, "round trip changed the snapshot:\n%s\n", pm_buf_cstr(&b));
		abort();
	}
	if (pm_snapshot_to_json(r, &b2) != 0 || b.len != b2.len || memcmp(b.data, b2.data, b.len) != 0) {
		fprintf(stderr, "second write differs:\n%s\n----\n%s\n", pm_buf_cstr(&b), pm_buf_cstr(&b2));
		abort();
	}
	pm_snapshot_free(s);
	pm_snapshot_free(r);
	pm_buf_dispose(&b);
	pm_buf_dispose(&b2);
	return 0;
}
