/*
 * maint/rollback.h - rollback of a table to a snapshot or a tag (Java
 * Paimon 1.4.2's rollbackTo, pypaimon's rollback_to).
 *
 * To snapshot N (it must exist, or a tag must name it - then as to that
 * tag): the LATEST hint becomes N, the snapshot files above N are deleted
 * newest first, then the long-lived changelogs and the tags of snapshots
 * above N. To tag T: the same with T's snapshot; when that snapshot has
 * expired, the tag (trimmed to a snapshot) is written back as its snapshot
 * file and becomes EARLIEST. Data files, manifests and index files of the
 * removed snapshots stay (as Java): remove-orphan-files takes them once
 * they are older than its guard. Schemas are not rolled back.
 */
#ifndef PM_MAINT_ROLLBACK_H
#define PM_MAINT_ROLLBACK_H

#include <stdint.h>
#include "core/strs.h"
#include "io/fileio.h"

/* tag != NULL: to that tag, else to snapshot_id. dry_run: nothing changes;
 * deleted (may be NULL) gets the paths deleted (would be), in order. */
int pm_table_rollback(pm_fileio *io, const char *meta_path, int64_t snapshot_id, const char *tag, int dry_run,
		      pm_strlist *deleted);

#endif
