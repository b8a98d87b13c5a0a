/*
 * write/delete.h - deletes by row id of data-evolution tables with
 * deletion vectors (pypaimon 2.1.0 TableDeleteByRowId; spec ai-format
 * §3.8, §6.7): the rows named by _ROW_ID are marked in the deletion vector
 * of their row-id group, keyed by the group's anchor file (pm_dv_anchor),
 * at position row_id - first_row_id. Per touched (partition, bucket) one
 * new DELETION_VECTORS index file holds every DV of the bucket (old ones
 * carried over) and replaces the bucket's old index files; no data file is
 * written. The commit is an OVERWRITE checked against the planned
 * snapshot (commit/commit.h).
 *
 * Needs row-tracking.enabled, data-evolution.enabled and
 * deletion-vectors.enabled (PAIMON_EINVAL naming the option and table, as
 * pypaimon). Row ids are deduplicated; one that is not a row of the latest
 * snapshot is PAIMON_EINVAL naming it, the snapshot and the table; a row
 * deleted already is not an error (nothing is written when nothing
 * changes). deletion-vectors.bitmap64 picks the DV encoding.
 */
#ifndef PM_WRITE_DELETE_H
#define PM_WRITE_DELETE_H

#include <stddef.h>
#include <stdint.h>

#include "core/strs.h"
#include "io/fileio.h"
#include "meta/manifest.h"
#include "meta/schema.h"

typedef struct pm_row_id_delete {
	int64_t base_snapshot;                /* planned snapshot, -1: empty table */
	pm_index_manifest_entry_list index;   /* ADD of the new index files, DELETE of the replaced ones */
	pm_strlist written;                   /* paths of the index files written */
	int64_t rows_deleted;                 /* rows not deleted before */
} pm_row_id_delete;

/*
 * Plans on snapshot snapshot_id (-1: the latest) and writes the index files. opts: writer
 * options over the table's (may be NULL). out is zeroed by the call; on
 * failure nothing is left written. Dispose with pm_row_id_delete_dispose
 * (which does not remove the files: a commit that fails removes them with
 * the commit message's abort).
 */
int pm_row_id_delete_run(pm_fileio *io, const char *table_path, const pm_table_schema *s, const pm_strmap *opts,
			 int64_t snapshot_id, const int64_t *row_ids, size_t n, pm_row_id_delete *out);
void pm_row_id_delete_dispose(pm_row_id_delete *d);

#endif
