/*
 * scan/rowid_plan.h - row-id group planning for batch backfills (the base
 * of pypaimon's process_row_id_ranges, spec python-api §2.9).
 *
 * The data files of one snapshot that carry a first row id are merged into
 * row-id groups: files whose inclusive ranges [first_row_id,
 * first_row_id + row_count - 1] overlap, transitively (a base file, its
 * partial-column files, BLOB / vector sidecars), form one group that a
 * batch never cuts. As in pypaimon (RangeHelper.merge_overlapping_ranges
 * over all files of plan_for_write): files are sorted by (from, to), a file
 * joins the current group when from <= the group's largest to (touching
 * ranges, to + 1 == from, do NOT merge), and the files inside a group keep
 * their scan order. Groups span partitions: pypaimon merges the files of
 * every split together, and row ids are table-wide.
 *
 * Batches (process_row_id_ranges' accumulation): groups in row-id order are
 * appended to the pending batch; once its row count (sum of the groups'
 * to - from + 1) reaches rows_per_batch the batch is closed; a last
 * non-empty pending batch is closed at the end. A batch is the list of its
 * groups' ranges, not merged (pypaimon hands the processor one Range per
 * group).
 *
 * Ownership: a plan owns everything in it (pm_rowid_plan_dispose).
 */
#ifndef PM_SCAN_ROWID_PLAN_H
#define PM_SCAN_ROWID_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "core/strs.h"
#include "io/fileio.h"
#include "meta/manifest.h"
#include "meta/schema.h"

typedef struct pm_rowid_group {
	int64_t from, to;        /* inclusive row ids */
	size_t first_file;       /* files[first_file .. first_file + n_files) */
	size_t n_files;
} pm_rowid_group;

typedef struct pm_rowid_plan {
	int64_t snapshot_id;            /* -1: the table has no snapshot */
	/* Live data files: first those of the groups, group by group (in each
	 * group in scan order), then files without a first row id or without
	 * rows, in scan order. */
	pm_manifest_entry_list files;
	size_t n_grouped;               /* files[0 .. n_grouped) are in groups */
	pm_rowid_group *groups;         /* sorted by from, disjoint */
	size_t n_groups;
	/* pm_rowid_plan_batches: batch b is groups[batch_start[b] ..
	 * batch_start[b + 1]); batch_start has n_batches + 1 entries (NULL
	 * before batching). */
	size_t *batch_start;
	size_t n_batches;
} pm_rowid_plan;

/*
 * Groups the files of `files` (taken over: emptied on success and on
 * failure) into p (zeroed first). require_row_ids != 0 (planning for
 * process_row_id_ranges): a file without a first row id or without rows
 * is PAIMON_EINVAL naming it (pypaimon's non_null_row_id_range fails
 * there too); 0 (listings): such files are kept ungrouped.
 */
int pm_rowid_plan_from_files(pm_manifest_entry_list *files, int64_t snapshot_id, int require_row_ids,
			     pm_rowid_plan *p);

/*
 * Plans the snapshot (snapshot_id, or the latest when < 0) of the table
 * at table_path (current schema `schema`, table options in it) and groups
 * its live data files as pm_rowid_plan_from_files does. A table without
 * snapshots gives an empty plan (snapshot_id -1); a missing snapshot id is
 * the scan's error naming it.
 */
int pm_rowid_plan_run(pm_fileio *io, const char *table_path, const pm_table_schema *schema, int64_t snapshot_id,
		      int require_row_ids, pm_rowid_plan *p);

/* Cuts the groups into batches of about rows_per_batch rows (rule above);
 * replaces earlier batches. PAIMON_EINVAL when rows_per_batch <= 0. */
int pm_rowid_plan_batches(pm_rowid_plan *p, int64_t rows_per_batch);

void pm_rowid_plan_dispose(pm_rowid_plan *p);

#endif
