/*
 * fuzz/fuzz_manifest.c - feeds arbitrary bytes to the manifest, manifest
 * list and index manifest readers and to the compact entry-list decoder.
 *
 * Invariants: a failed read leaves the output list as it was (empty); any
 * entry list that decodes re-encodes, and the re-encoding decodes to the
 * same number of entries and encodes to the same bytes; entries that read
 * from a manifest go through the merger without crashing. Errors are fine.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "meta/manifest.h"

static void fail(const char *what)
{
	fprintf(stderr, "invariant broken: %s\n", what);
	abort();
}

static void check_entries(const pm_manifest_entry_list *l)
{
	pm_buf a = PM_BUF_INIT, b = PM_BUF_INIT;
	pm_manifest_entry_list back = {0};
	pm_entry_merger *m = NULL;
	if (pm_manifest_entries_encode(l->items, l->len, &a))
		fail("decoded entries do not encode");
	if (pm_manifest_entries_decode("re", a.data, a.len, &back) || back.len != l->len)
		fail("re-encoded entries do not decode");
	if (pm_manifest_entries_encode(back.items, back.len, &b) || a.len != b.len || memcmp(a.data, b.data, a.len))
		fail("entry encoding is not stable");
	if (!pm_entry_merger_new(&m)) {
		pm_manifest_entry_list out = {0};
		pm_entry_merger_add(m, l->items, l->len);
		pm_entry_merger_finish(m, &out);
		pm_manifest_entry_list_dispose(&out);
		pm_entry_merger_free(m);
	}
	pm_manifest_entry_list_dispose(&back);
	pm_buf_dispose(&a);
	pm_buf_dispose(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pm_manifest_entry_list e = {0};
	pm_manifest_file_meta_list l = {0};
	pm_index_manifest_entry_list ix = {0};
	if (pm_manifest_read_mem("fuzz", data, size, &e) == 0)
		check_entries(&e);
	else if (e.len)
		fail("failed manifest read left entries");
	pm_manifest_entry_list_dispose(&e);
	if (pm_manifest_list_read_mem("fuzz", data, size, &l) != 0 && l.len)
		fail("failed list read left records");
	pm_manifest_file_meta_list_dispose(&l);
	if (pm_index_manifest_read_mem("fuzz", data, size, &ix) != 0 && ix.len)
		fail("failed index read left entries");
	pm_index_manifest_entry_list_dispose(&ix);
	if (pm_manifest_entries_decode("fuzz", data, size, &e) == 0)
		check_entries(&e);
	else if (e.len)
		fail("failed decode left entries");
	pm_manifest_entry_list_dispose(&e);
	return 0;
}
