/*
 * api/api_orphan.c - paimon_table_remove_orphan_files over table/orphan.
 */
#include "paimonc/table.h"
#include "api/handles.h"
#include "maint/orphan.h"
#include "core/error.h"
#include "core/mem.h"

#include <string.h>

int paimon_table_remove_orphan_files(paimon_table *t, int64_t older_than_ms, int dry_run, char ***paths,
				     size_t *count, uint64_t *bytes)
{
	pm_orphan_list l;
	int rc;
	if (paths)
		*paths = NULL;
	if (count)
		*count = 0;
	if (bytes)
		*bytes = 0;
	if (!t)
		return pm_err(PAIMON_EINVAL, "remove orphan files: no table");
	if (t->branch)
		return pm_err(PAIMON_EINVAL, "remove orphan files: '%s' is a branch; run it on the table (it "
			      "walks every branch)", t->identifier);
	memset(&l, 0, sizeof l);
	rc = pm_table_remove_orphans(t->io, t->path, older_than_ms, dry_run, &l);
	if (rc) {
		pm_orphan_list_dispose(&l);
		return rc;
	}
	if (bytes)
		*bytes = l.bytes;
	if (count)
		*count = l.paths.len;
	if (paths && l.paths.len) {
		/* the strlist's array becomes the caller's (pm_malloc'd, as
		 * paimon_string_list_free expects) */
		*paths = l.paths.items;
		l.paths.items = NULL;
		l.paths.len = l.paths.cap = 0;
	}
	pm_orphan_list_dispose(&l);
	return 0;
}

int paimon_table_find_missing_files(paimon_table *t, char ***names, size_t *count)
{
	pm_strlist l = {0};
	int rc;
	if (names)
		*names = NULL;
	if (count)
		*count = 0;
	if (!t)
		return pm_err(PAIMON_EINVAL, "find missing files: no table");
	if ((rc = pm_table_find_missing(t->io, t->path, &l))) {
		pm_strlist_dispose(&l);
		return pm_err_wrap("cannot check the files of table '%s'", t->identifier);
	}
	if (count)
		*count = l.len;
	if (names && l.len) {
		*names = l.items;
		l.items = NULL;
		l.len = l.cap = 0;
	}
	pm_strlist_dispose(&l);
	return 0;
}
